/* update.c - SnapDeals, storage-proofs-update circuit.rs (standard, SHA-256 TreeD),
 * poseidon/circuit.rs (Poseidon TreeD, one partition), gadgets.rs, constants.rs, challenges.rs
 * and vanilla.rs (phi, rho); spec circuits.md 7.
 *
 * The public preamble decomposes k_and_h_select (standard) or h_select (Poseidon) into bits
 * with enforce(sum 2^i b_i | ONE | x); the challenges come from Poseidon digests of comm_r_new
 * (tag 2^40) decomposed the same way; each challenge proves leaf_r_old in TreeR old, the
 * re-encoded leaf_r_new = leaf_r_old + leaf_d_new * rho(high bits) in TreeR new, and
 * leaf_d_new in TreeD (standard: up to its apex leaf, the apex tree and the partition path
 * being proved once per partition; Poseidon: the whole TreeR-shaped TreeD).
 */
#include "circuits/circuits.h"

#include <string.h>

#include "circuits/internal.h"
#include "common/alloc.h"

#define MAX_APEX   128
#define MAX_CHBITS 32 /* log2(nodes) <= 31 */

/* constants.rs, sizes in nodes */
#define N_1KIB  (UINT64_C(1) << 5)
#define N_8KIB  (UINT64_C(1) << 8)
#define N_32KIB (UINT64_C(1) << 10)
#define N_16MIB (UINT64_C(1) << 19)

static unsigned log2_u64(uint64_t x)
{
    unsigned k = 0;
    while ((UINT64_C(1) << k) < x) {
        k++;
    }
    return k;
}

bool circ_update_cfg_init(circ_update_cfg_t *cfg, uint64_t nodes, bool poseidon)
{
    /* validate_tree_r_shape: the sizes the sector table marks `update` */
    const seal_size *s = nodes <= SEAL_MAX_NODES ? seal_size_lookup(nodes * CIRC_NODE_BYTES) : NULL;

    memset(cfg, 0, sizeof(*cfg));
    if (!s || !s->update ||
        !gad_tree_shape_init(&cfg->tree_r, nodes, s->base_arity, s->sub_arity, s->top_arity) ||
        !gad_tree_shape_init(&cfg->tree_d, nodes, 2, 0, 0)) {
        return false;
    }
    uint32_t partitions = nodes <= N_8KIB ? 1 : nodes <= N_32KIB ? 2 : nodes <= N_16MIB ? 4 : 16;
    uint32_t challenges = nodes <= N_16MIB ? 10 : 86;

    cfg->nodes = nodes;
    cfg->poseidon = poseidon;
    cfg->challenge_bits = log2_u64(nodes);
    for (unsigned k = 0; k < CIRC_UPDATE_HS; k++) {
        cfg->hs[k] = nodes <= N_32KIB ? 1 : 7 + k;
    }
    if (poseidon) {
        cfg->partitions = 1;
        cfg->challenges = challenges * partitions;
    } else {
        cfg->partitions = partitions;
        cfg->challenges = challenges;
        cfg->partition_bits = log2_u64(partitions);
        cfg->apex_leaves = nodes <= N_8KIB ? 8 : 128;
        cfg->apex_bits = log2_u64(cfg->apex_leaves);
    }
    return true;
}

bool circ_update_h_select(const circ_update_cfg_t *cfg, uint32_t h, uint64_t *h_select)
{
    for (unsigned k = 0; k < CIRC_UPDATE_HS; k++) {
        if (cfg->hs[k] == h) {
            *h_select = UINT64_C(1) << k; /* the first match, as position() finds it */
            return true;
        }
    }
    return false;
}

/* The first public input: k | h_select << partition_bits (Poseidon: h_select). */
static bool first_input(const circ_update_cfg_t *cfg, uint32_t k, uint32_t h, uint64_t *out)
{
    uint64_t hsel;

    if (k >= cfg->partitions || !circ_update_h_select(cfg, h, &hsel)) {
        return false;
    }
    *out = (uint64_t)k | (hsel << cfg->partition_bits);
    return true;
}

cuzk_err circ_update_public_inputs(fr_t out[4], const circ_update_cfg_t *cfg, uint32_t k,
                                   uint32_t h, const fr_t *comm_r_old, const fr_t *comm_d_new,
                                   const fr_t *comm_r_new, cz_diag *dg)
{
    uint64_t kh;

    if (!first_input(cfg, k, h, &kh)) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals: partition %u or h %u not allowed", k, h);
    }
    fr_from_u64(&out[0], kh);
    out[1] = *comm_r_old;
    out[2] = *comm_d_new;
    out[3] = *comm_r_new;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * Native helpers
 * ---------------------------------------------------------------------------------------- */

/* Poseidon arity 2 with the Custom(Arbitrary(1)) tag (POSEIDON_CONSTANTS_GEN_RANDOMNESS). */
static void poseidon_gen(fr_t *out, const fr_t *a, const fr_t *b)
{
    fr_t tag, in[2] = {*a, *b};

    poseidon_tag_custom(&tag, 1);
    poseidon_hash_tagged(out, &tag, in, 2, poseidon_params(2));
}

void circ_update_phi(fr_t *phi, const fr_t *comm_d_new, const fr_t *comm_r_old)
{
    poseidon_gen(phi, comm_d_new, comm_r_old);
}

void circ_update_rho(fr_t *rho, const fr_t *phi, uint64_t high)
{
    fr_t h;

    fr_from_u64(&h, high);
    poseidon_gen(rho, phi, &h);
}

size_t circ_update_digests(size_t challenges, size_t bits_per_challenge)
{
    size_t per = GAD_FR_CAPACITY / bits_per_challenge;
    return (challenges + per - 1) / per;
}

void circ_update_challenges(uint64_t *out, const circ_update_cfg_t *cfg, const fr_t *comm_r_new,
                            uint32_t k)
{
    size_t bits = cfg->challenge_bits - cfg->partition_bits;
    size_t per = GAD_FR_CAPACITY / bits;
    size_t digests = circ_update_digests(cfg->challenges, bits);
    uint64_t digest_index = cfg->poseidon ? 0 : (uint64_t)k * digests;
    uint64_t top = cfg->poseidon ? 0 : (uint64_t)k << bits;
    size_t c = 0;

    CZ_CHECK(k < cfg->partitions);
    while (c < cfg->challenges) {
        fr_t di, d;
        fr_repr_t r;

        fr_from_u64(&di, digest_index++);
        poseidon_gen(&d, comm_r_new, &di);
        fr_to_repr(&r, &d);
        for (size_t t = 0; t < per && c < cfg->challenges; t++, c++) {
            uint64_t v = 0;
            for (size_t b = 0; b < bits; b++) {
                size_t pos = t * bits + b;
                v |= ((r.l[pos / 64] >> (pos % 64)) & 1) << b;
            }
            out[c] = v | top;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Gadgets (gadgets.rs)
 * ---------------------------------------------------------------------------------------- */

/* allocated_num_to_allocated_bits: 255 alloc_bits of x's value, then the decomposition
 * constraint with the sum in A. */
static void num_to_bits(cs_t *cs, gad_bool_t out[GAD_FR_BITS], const gad_num_t *x)
{
    fr_repr_t r;

    fr_to_repr(&r, &x->value);
    for (size_t i = 0; i < GAD_FR_BITS; i++) {
        out[i] = gad_alloc_bit(cs, (r.l[i / 64] >> (i % 64)) & 1);
    }
    circ_enforce_decomp(cs, out, GAD_FR_BITS, x->var, "binary decomp");
}

/* poseidon_hash(preimage, POSEIDON_CONSTANTS_GEN_RANDOMNESS). */
static void poseidon_gen_circuit(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b)
{
    fr_t tag;
    gad_num_t in[2] = {*a, *b};

    poseidon_tag_custom(&tag, 1);
    gad_poseidon_hash_tagged(cs, out, &tag, in, 2, poseidon_params(2));
}

void circ_update_apex_por(cs_t *cs, const gad_num_t *apex_leaves, size_t n,
                          const gad_bool_t *partition_bits, size_t pbits,
                          const gad_num_t *partition_path, const gad_num_t *comm_d)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t row[MAX_APEX];
    gad_tree_shape_t shape;
    size_t len = n, level = 0;

    CZ_CHECK(n >= 1 && n <= MAX_APEX && (n & (n - 1)) == 0);
    memcpy(row, apex_leaves, n * sizeof(row[0]));
    while (len > 1) {
        for (size_t j = 0; j < len / 2; j++) {
            CIRC_NS_PUSHF(cs, lab, "apex_tree generation hash (tree_row=%zu, siblings=%zu)", level,
                          j);
            gad_sha256_hash_leaves(cs, &row[j], &row[2 * j], 2);
            CIRC_NS_POP(cs, lab);
        }
        len /= 2;
        level++;
    }
    CZ_CHECK(gad_tree_shape_init(&shape, UINT64_C(1) << pbits, 2, 0, 0));
    CIRC_NS_PUSH(cs, lab, "partition-tree por");
    gad_por_no_challenge_input(cs, GAD_HASHER_SHA256, &shape, partition_bits, pbits, &row[0],
                               partition_path, comm_d);
    CIRC_NS_POP(cs, lab);
}

void circ_update_gen_challenge_bits(cs_t *cs, gad_bool_t *out, const gad_num_t *comm_r_new,
                                    const gad_num_t *partition, size_t challenges,
                                    size_t bits_per_challenge)
{
    bool lab = cs_wants_labels(cs);
    size_t per = GAD_FR_CAPACITY / bits_per_challenge;
    size_t digests = circ_update_digests(challenges, bits_per_challenge);
    size_t done = 0;
    fr_t fd;

    fr_from_u64(&fd, digests);
    for (size_t j = 0; j < digests; j++) {
        gad_num_t di, d;
        gad_bool_t bits[GAD_FR_BITS];
        fr_t fj;

        /* digest_index = k * digests + j */
        fr_from_u64(&fj, j);
        fr_mul(&di.value, &partition->value, &fd);
        fr_add(&di.value, &di.value, &fj);
        CIRC_NS_PUSHF(cs, lab, "digest_index_%zu", j);
        gad_num_alloc(cs, &di, &di.value);
        CIRC_NS_POP(cs, lab);
        if (cs_needs_lcs(cs)) {
            cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, di.var);
            cs_lc_add(cs, &a, &fd, partition->var);
            cs_lc_add(cs, &a, &fj, CS_ONE);
            (void)cs_enforce(cs, &a, &b, &c, "digest_index == k * digests_per_partition + j");
        } else {
            (void)cs_enforce(cs, NULL, NULL, NULL, "digest_index");
        }
        CIRC_NS_PUSHF(cs, lab, "digest_%zu", j);
        poseidon_gen_circuit(cs, &d, comm_r_new, &di);
        CIRC_NS_POP(cs, lab);
        CIRC_NS_PUSHF(cs, lab, "digest_%zu_bits", j);
        num_to_bits(cs, bits, &d);
        CIRC_NS_POP(cs, lab);

        size_t take = j == digests - 1 ? challenges - done : per;
        for (size_t t = 0; t < take; t++, done++) {
            memcpy(&out[done * bits_per_challenge], &bits[t * bits_per_challenge],
                   bits_per_challenge * sizeof(gad_bool_t));
        }
    }
    CZ_CHECK(done == challenges);
}

/* get_challenge_high_bits: c_high = sum over k of h_select_k * (top hs[k] bits of c). */
static void challenge_high_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *c_bits, size_t len,
                                const gad_bool_t *h_select_bits, const uint32_t *hs)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t z[CIRC_UPDATE_HS], sel;

    fr_t sum = FR_ZERO;
    for (size_t k = 0; k < CIRC_UPDATE_HS; k++) {
        gad_num_t c_high;

        CZ_CHECK(hs[k] <= len);
        CIRC_NS_PUSHF(cs, lab, "c_high (h=%u, k=%zu)", (unsigned)hs[k], k);
        gad_pack_bits(cs, &c_high, c_bits + (len - hs[k]), hs[k]);
        CIRC_NS_POP(cs, lab);
        CIRC_NS_PUSHF(cs, lab, "c_high_or_zero (h=%u, k=%zu)", (unsigned)hs[k], k);
        gad_num_alloc(cs, &z[k], h_select_bits[k].value ? &c_high.value : &FR_ZERO);
        CIRC_NS_POP(cs, lab);
        if (cs_needs_lcs(cs)) {
            cs_lc_t a = cs_lc_of(cs, c_high.var), b = cs_lc_of(cs, h_select_bits[k].var);
            cs_lc_t c = cs_lc_of(cs, z[k].var);
            (void)cs_enforce(cs, &a, &b, &c, "c_high_or_zero == c_high * h_select_bit");
        } else {
            (void)cs_enforce(cs, NULL, NULL, NULL, "c_high_or_zero == c_high * h_select_bit");
        }
        fr_add(&sum, &sum, &z[k].value);
    }
    CIRC_NS_PUSH(cs, lab, "c_high_selected");
    gad_num_alloc(cs, &sel, &sum);
    CIRC_NS_POP(cs, lab);
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, sel.var);
        for (size_t k = 0; k < CIRC_UPDATE_HS; k++) {
            cs_lc_add_var(cs, &a, z[k].var);
        }
        (void)cs_enforce(cs, &a, &b, &c, "c_high_selected == dot(c_highs, h_select_bits)");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "c_high_selected == dot(c_highs, h_select_bits)");
    }
    *out = sel;
}

/* label_r_new: t = d_new * rho; r = alloc(r_old + t); enforce(r_old + t | ONE | r). */
static void label_r_new(cs_t *cs, gad_num_t *out, const gad_num_t *r_old, const gad_num_t *d_new,
                        const gad_num_t *rho)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t t, r;
    fr_t v;

    CIRC_NS_PUSH(cs, lab, "label_d_new * rho");
    gad_num_mul(cs, &t, d_new, rho);
    CIRC_NS_POP(cs, lab);
    fr_add(&v, &r_old->value, &t.value);
    CIRC_NS_PUSH(cs, lab, "label_r_new");
    gad_num_alloc(cs, &r, &v);
    CIRC_NS_POP(cs, lab);
    gad_sum(cs, r_old, &t, &r);
    *out = r;
}

/* Allocates n path siblings. */
static void alloc_siblings(cs_t *cs, gad_num_t *out, const fr_t *values, size_t n, const char *what)
{
    bool lab = cs_wants_labels(cs);

    for (size_t i = 0; i < n; i++) {
        CIRC_NS_PUSHF(cs, lab, "%s sibling %zu", what, i);
        gad_num_alloc(cs, &out[i], &values[i]);
        CIRC_NS_POP(cs, lab);
    }
}

/* Allocates a public number: x = alloc(v); inputize(x). */
static void alloc_public(cs_t *cs, gad_num_t *out, const fr_t *v, const char *name)
{
    bool lab = cs_wants_labels(cs);

    CIRC_NS_PUSH(cs, lab, name);
    gad_num_alloc(cs, out, v);
    gad_num_inputize(cs, out);
    CIRC_NS_POP(cs, lab);
}

static void alloc_private(cs_t *cs, gad_num_t *out, const fr_t *v, const char *name)
{
    bool lab = cs_wants_labels(cs);

    CIRC_NS_PUSH(cs, lab, name);
    gad_num_alloc(cs, out, v);
    CIRC_NS_POP(cs, lab);
}

/* enforce(hash2(comm_c, root) | ONE | comm_r): the TreeR hasher's hash2 (Poseidon, arity 2,
 * MerkleTree tag). */
static void check_comm_r(cs_t *cs, const gad_num_t *comm_c, const gad_num_t *root,
                         const gad_num_t *comm_r, const char *label)
{
    gad_num_t pre[2] = {*comm_c, *root}, calc;

    gad_poseidon_hash(cs, &calc, pre, 2, poseidon_params(2));
    gad_equal(cs, &calc, comm_r, label);
}

/* ------------------------------------------------------------------------------------------
 * The circuits
 * ---------------------------------------------------------------------------------------- */

typedef struct upd_common {
    gad_num_t phi, comm_c, root_r_old, root_r_new, comm_r_old, comm_d_new, comm_r_new;
} upd_common;

/* Per challenge, up to the TreeR new PoR (common to both variants). Returns leaf_d_new. */
static void challenge_r(cs_t *cs, const circ_update_cfg_t *cfg, const upd_common *u,
                        const circ_update_challenge_t *ch, const gad_bool_t *c_bits,
                        const gad_bool_t *h_select_bits, gad_num_t *leaf_d_new)
{
    bool lab = cs_wants_labels(cs);
    size_t nsib = gad_tree_shape_siblings(&cfg->tree_r);
    gad_num_t c_high, rho, leaf_r_old, leaf_r_new, path[CIRC_MAX_SIBLINGS], pre[2];

    CIRC_NS_PUSH(cs, lab, "get_challenge_high_bits");
    challenge_high_bits(cs, &c_high, c_bits, cfg->challenge_bits, h_select_bits, cfg->hs);
    CIRC_NS_POP(cs, lab);
    pre[0] = u->phi;
    pre[1] = c_high;
    CIRC_NS_PUSH(cs, lab, "rho");
    poseidon_gen_circuit(cs, &rho, &pre[0], &pre[1]);
    CIRC_NS_POP(cs, lab);

    alloc_private(cs, &leaf_r_old, &ch->leaf_r_old, "leaf_r_old");
    alloc_private(cs, leaf_d_new, &ch->leaf_d_new, "leaf_d_new");
    CIRC_NS_PUSH(cs, lab, "leaf_r_new");
    label_r_new(cs, &leaf_r_new, &leaf_r_old, leaf_d_new, &rho);
    CIRC_NS_POP(cs, lab);

    alloc_siblings(cs, path, ch->path_r_old, nsib, "path_r_old");
    CIRC_NS_PUSH(cs, lab, "por tree_r_old");
    gad_por_no_challenge_input(cs, GAD_HASHER_POSEIDON, &cfg->tree_r, c_bits, cfg->challenge_bits,
                               &leaf_r_old, path, &u->root_r_old);
    CIRC_NS_POP(cs, lab);
    alloc_siblings(cs, path, ch->path_r_new, nsib, "path_r_new");
    CIRC_NS_PUSH(cs, lab, "por tree_r_new");
    gad_por_no_challenge_input(cs, GAD_HASHER_POSEIDON, &cfg->tree_r, c_bits, cfg->challenge_bits,
                               &leaf_r_new, path, &u->root_r_new);
    CIRC_NS_POP(cs, lab);
}

/* comm_r_old, comm_d_new, comm_r_new public; phi; comm_c, root_r_old, root_r_new private. */
static void commitments(cs_t *cs, const circ_update_witness_t *w, upd_common *u)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t pre[2];

    alloc_public(cs, &u->comm_r_old, w ? &w->comm_r_old : &FR_ZERO, "comm_r_old");
    alloc_public(cs, &u->comm_d_new, w ? &w->comm_d_new : &FR_ZERO, "comm_d_new");
    alloc_public(cs, &u->comm_r_new, w ? &w->comm_r_new : &FR_ZERO, "comm_r_new");
    pre[0] = u->comm_d_new;
    pre[1] = u->comm_r_old;
    CIRC_NS_PUSH(cs, lab, "phi");
    poseidon_gen_circuit(cs, &u->phi, &pre[0], &pre[1]);
    CIRC_NS_POP(cs, lab);
    alloc_private(cs, &u->comm_c, w ? &w->comm_c : &FR_ZERO, "comm_c");
    alloc_private(cs, &u->root_r_old, w ? &w->root_r_old : &FR_ZERO, "root_r_old");
    alloc_private(cs, &u->root_r_new, w ? &w->root_r_new : &FR_ZERO, "root_r_new");
}

/* What every challenge reads from the preamble (both variants). */
typedef struct upd_chal {
    const circ_update_cfg_t *cfg;
    const circ_update_witness_t *w;
    const circ_update_challenge_t *blank;
    const upd_common *u;
    const gad_bool_t *gen;     /* the challenges' bits, gbits each */
    size_t gbits;              /* standard: challenge_bits - partition_bits; Poseidon: all */
    const gad_bool_t *kh_bits; /* standard: the partition bits, then h_select's */
    const gad_bool_t *hs_bits; /* h_select's bits */
    const gad_num_t *apex;     /* standard: the apex leaves */
} upd_chal;

/* Challenge c of the partition. */
static void upd_challenge(cs_t *cs, const upd_chal *x, size_t c)
{
    const circ_update_cfg_t *cfg = x->cfg;
    const circ_update_challenge_t *ch = x->w ? &x->w->challenges[c] : x->blank;
    bool lab = cs_wants_labels(cs);
    gad_num_t leaf_d_new, apex_leaf,
        path[CIRC_MAX_SIBLINGS > MAX_CHBITS ? CIRC_MAX_SIBLINGS : MAX_CHBITS];
    gad_bool_t c_bits[MAX_CHBITS];

    CIRC_NS_PUSHF(cs, lab, "c_index=%zu", c);
    if (cfg->poseidon) {
        const gad_bool_t *bits = &x->gen[c * x->gbits];
        size_t nsib = gad_tree_shape_siblings(&cfg->tree_r);
        challenge_r(cs, cfg, x->u, ch, bits, x->hs_bits, &leaf_d_new);
        alloc_siblings(cs, path, ch->path_d_new, nsib, "path_d_new");
        CIRC_NS_PUSH(cs, lab, "por tree_d_new");
        gad_por_no_challenge_input(cs, GAD_HASHER_POSEIDON, &cfg->tree_r, bits, x->gbits,
                                   &leaf_d_new, path, &x->u->comm_d_new);
        CIRC_NS_POP(cs, lab);
    } else {
        const size_t pbits = cfg->partition_bits, rbits = x->gbits;
        const size_t start = cfg->challenge_bits - pbits - cfg->apex_bits;
        gad_tree_shape_t to_apex;
        CZ_CHECK(gad_tree_shape_init(&to_apex, UINT64_C(1) << start, 2, 0, 0));
        memcpy(c_bits, &x->gen[c * rbits], rbits * sizeof(gad_bool_t));
        memcpy(c_bits + rbits, x->kh_bits, pbits * sizeof(gad_bool_t));
        challenge_r(cs, cfg, x->u, ch, c_bits, x->hs_bits, &leaf_d_new);

        CIRC_NS_PUSH(cs, lab, "select_apex_leaf");
        gad_select(cs, &apex_leaf, x->apex, c_bits + start, cfg->apex_bits);
        CIRC_NS_POP(cs, lab);
        alloc_siblings(cs, path, ch->path_d_new, start, "path_to_apex_leaf");
        CIRC_NS_PUSH(cs, lab, "por to_apex_leaf");
        gad_por_no_challenge_input(cs, GAD_HASHER_SHA256, &to_apex, c_bits, start, &leaf_d_new,
                                   path, &apex_leaf);
        CIRC_NS_POP(cs, lab);
    }
    CIRC_NS_POP(cs, lab);
}

typedef struct upd_job {
    const upd_chal *x;
    size_t per; /* challenges per child, from challenge 1 */
} upd_job;

static void upd_chunk(cs_t *child, size_t k, void *ctx)
{
    const upd_job *job = ctx;
    const size_t n = job->x->cfg->challenges;
    size_t lo = 1 + k * job->per, hi = lo + job->per < n ? lo + job->per : n;
    for (size_t c = lo; c < hi; c++) {
        upd_challenge(child, job->x, c);
    }
}

/* Every challenge in order. With a pool: challenge 0 in cs (its counts, the same for every
 * challenge, size the others), then chunks of challenges 1.. in fork children of exact size,
 * which read the preamble's variables and write in place; the result is the sequential one. */
static void upd_challenges(cs_t *cs, const upd_chal *x, cz_pool *pool)
{
    const size_t n = x->cfg->challenges;
    unsigned width = cz_pool_width(pool);
    cs_counts_t before, after, *sizes = NULL;
    upd_job job = {.x = x, .per = 1};
    size_t chunks;

    if (!pool || width < 2 || n < 3 || !cs_can_extend(cs) || cs_status(cs) != CUZK_OK) {
        for (size_t c = 0; c < n; c++) {
            upd_challenge(cs, x, c);
        }
        return;
    }
    cs_get_counts(cs, &before);
    upd_challenge(cs, x, 0);
    cs_get_counts(cs, &after);
    chunks = (size_t)width * 4 < n - 1 ? (size_t)width * 4 : n - 1;
    job.per = (n - 1 + chunks - 1) / chunks;
    chunks = (n - 1 + job.per - 1) / job.per;
    sizes = cz_malloc(chunks * sizeof(*sizes));
    if (!sizes) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "SnapDeals: parallel synthesis bookkeeping");
        return;
    }
    for (size_t k = 0; k < chunks; k++) {
        size_t lo = 1 + k * job.per, m = lo + job.per < n ? job.per : n - lo;
        sizes[k].num_inputs = m * (after.num_inputs - before.num_inputs);
        sizes[k].num_aux = m * (after.num_aux - before.num_aux);
        sizes[k].num_constraints = m * (after.num_constraints - before.num_constraints);
    }
    circ_fork_join(cs, chunks, sizes, upd_chunk, &job, pool, "SnapDeals challenges");
    cz_free(sizes);
}

static void update_standard(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w,
                            uint64_t kh_value, const circ_update_challenge_t *blank, cz_pool *pool)
{
    bool lab = cs_wants_labels(cs);
    const size_t pbits = cfg->partition_bits, cbits = cfg->challenge_bits;
    const size_t rbits = cbits - pbits;
    gad_num_t kh, partition, apex[MAX_APEX], ppath[MAX_CHBITS];
    gad_bool_t kh_bits[MAX_CHBITS + CIRC_UPDATE_HS];
    gad_bool_t *gen = NULL;
    upd_common u;
    fr_t v;

    gen = cz_malloc(cfg->challenges * rbits * sizeof(*gen));
    if (!gen) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "SnapDeals: challenge bits");
        return;
    }
    fr_from_u64(&v, kh_value);
    alloc_public(cs, &kh, &v, "k_and_h_select");
    for (size_t i = 0; i < pbits + CIRC_UPDATE_HS; i++) {
        CIRC_NS_PUSHF(cs, lab, "k_and_h_select_bit_%zu", i);
        kh_bits[i] = gad_alloc_bit(cs, (kh_value >> i) & 1);
        CIRC_NS_POP(cs, lab);
    }
    circ_enforce_decomp(cs, kh_bits, pbits + CIRC_UPDATE_HS, kh.var,
                        "k_and_h_select binary decomp");
    CIRC_NS_PUSH(cs, lab, "pack partition bits");
    gad_pack_bits(cs, &partition, kh_bits, pbits);
    CIRC_NS_POP(cs, lab);

    commitments(cs, w, &u);
    for (size_t i = 0; i < cfg->apex_leaves; i++) {
        CIRC_NS_PUSHF(cs, lab, "apex_leaf_%zu", i);
        gad_num_alloc(cs, &apex[i], w ? &w->apex_leaves[i] : &FR_ZERO);
        CIRC_NS_POP(cs, lab);
    }
    /* the partition path: the top partition_bits TreeD siblings of the first challenge */
    alloc_siblings(cs, ppath, (w ? w->challenges[0].path_d_new : blank->path_d_new) + rbits, pbits,
                   "partition_path");

    CIRC_NS_PUSH(cs, lab, "comm_r_old_calc");
    check_comm_r(cs, &u.comm_c, &u.root_r_old, &u.comm_r_old,
                 "enforce comm_r_old_calc == comm_r_old");
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_new_calc");
    check_comm_r(cs, &u.comm_c, &u.root_r_new, &u.comm_r_new,
                 "enforce comm_r_new_calc == comm_r_new");
    CIRC_NS_POP(cs, lab);

    CIRC_NS_PUSH(cs, lab, "apex_gadget");
    circ_update_apex_por(cs, apex, cfg->apex_leaves, kh_bits, pbits, ppath, &u.comm_d_new);
    CIRC_NS_POP(cs, lab);

    CIRC_NS_PUSH(cs, lab, "gen_challenge_bits");
    circ_update_gen_challenge_bits(cs, gen, &u.comm_r_new, &partition, cfg->challenges, rbits);
    CIRC_NS_POP(cs, lab);

    upd_chal x = {.cfg = cfg,
                  .w = w,
                  .blank = blank,
                  .u = &u,
                  .gen = gen,
                  .gbits = rbits,
                  .kh_bits = kh_bits,
                  .hs_bits = kh_bits + pbits,
                  .apex = apex};
    upd_challenges(cs, &x, pool);
    cz_free(gen);
}

static void update_poseidon(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w,
                            uint64_t h_select, const circ_update_challenge_t *blank, cz_pool *pool)
{
    bool lab = cs_wants_labels(cs);
    const size_t cbits = cfg->challenge_bits;
    gad_num_t hs_num, partition;
    gad_bool_t hs_bits[CIRC_UPDATE_HS];
    gad_bool_t *gen;
    upd_common u;
    fr_t v;

    gen = cz_malloc(cfg->challenges * cbits * sizeof(*gen));
    if (!gen) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "SnapDeals: challenge bits");
        return;
    }
    fr_from_u64(&v, h_select);
    alloc_public(cs, &hs_num, &v, "h_select");
    for (size_t i = 0; i < CIRC_UPDATE_HS; i++) {
        CIRC_NS_PUSHF(cs, lab, "h_select_bit_%zu", i);
        hs_bits[i] = gad_alloc_bit(cs, (h_select >> i) & 1);
        CIRC_NS_POP(cs, lab);
    }
    circ_enforce_decomp(cs, hs_bits, CIRC_UPDATE_HS, hs_num.var, "h_select binary decomp");

    commitments(cs, w, &u);
    CIRC_NS_PUSH(cs, lab, "comm_r_old_calc");
    check_comm_r(cs, &u.comm_c, &u.root_r_old, &u.comm_r_old,
                 "enforce comm_r_old_calc == comm_r_old");
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_new_calc");
    check_comm_r(cs, &u.comm_c, &u.root_r_new, &u.comm_r_new,
                 "enforce comm_r_new_calc == comm_r_new");
    CIRC_NS_POP(cs, lab);
    alloc_private(cs, &partition, &FR_ZERO, "partition");

    CIRC_NS_PUSH(cs, lab, "gen_challenge_bits");
    circ_update_gen_challenge_bits(cs, gen, &u.comm_r_new, &partition, cfg->challenges, cbits);
    CIRC_NS_POP(cs, lab);

    upd_chal x = {.cfg = cfg,
                  .w = w,
                  .blank = blank,
                  .u = &u,
                  .gen = gen,
                  .gbits = cbits,
                  .kh_bits = NULL,
                  .hs_bits = hs_bits,
                  .apex = NULL};
    upd_challenges(cs, &x, pool);
    cz_free(gen);
}

void circ_update_synth(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w)
{
    circ_update_synth_pool(cs, cfg, w, NULL);
}

void circ_update_synth_pool(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w,
                            cz_pool *pool)
{
    circ_update_challenge_t blank = {FR_ZERO, FR_ZERO, CIRC_ZERO_FR, CIRC_ZERO_FR, CIRC_ZERO_FR};
    uint64_t first;
    uint32_t k = w ? w->k : 0, h = w ? w->h : cfg->hs[3];

    CZ_CHECK(cfg && cfg->challenge_bits < MAX_CHBITS && cfg->apex_leaves <= MAX_APEX);
    if (!first_input(cfg, k, h, &first)) {
        (void)cs_fail(cs, CUZK_E_INVAL, "SnapDeals: partition %u or h %u not allowed", k, h);
        return;
    }
    if (w) {
        CZ_CHECK(w->challenges && (cfg->poseidon || w->apex_leaves));
        for (size_t c = 0; c < cfg->challenges; c++) {
            CZ_CHECK(w->challenges[c].path_r_old && w->challenges[c].path_r_new &&
                     w->challenges[c].path_d_new);
        }
    }
    if (cfg->poseidon) {
        update_poseidon(cs, cfg, w, first, &blank, pool);
    } else {
        update_standard(cs, cfg, w, first, &blank, pool);
    }
}
