/* test_merkle.c - insertion, select and PoR Merkle inclusion.
 *
 * Counts from rust-fil-proofs (filecoin-project/rust-fil-proofs
 * 87348a749d80447d00c595af834a8ed73c09e4d9): storage-proofs-core/src/gadgets/insertion.rs
 * test_select (size - 1) and test_insert (2 -> 2, 4 -> 8, 8 -> 22, 16 -> 240),
 * storage-proofs-core/tests/por_circuit.rs test_por_circuit_* (public root, 3 inputs) and
 * test_por_circuit_*_private_root (2 inputs), and test_por_no_challenge_input_* (shapes).
 * Roots are computed natively with hash/poseidon, hash/sha256 (trimmed) and OpenSSL's
 * BLAKE2s-256 (trimmed; Blake2sHasher) and compared.
 */
#include "harness/test.h"

#include <openssl/evp.h>
#include <stdlib.h>

#include "gadgets/gadget_util.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

/* ---------------------------------------------------------------------------------------------
 * select / insert
 * ------------------------------------------------------------------------------------------- */

typedef struct ins_ctx {
    unsigned log_size;
    size_t index;
    bool do_select;
    fr_t el[16];
    fr_t x;
    gad_num_t out[16];
    size_t before;
} ins_ctx;

static void ins_synth(cs_t *cs, void *p)
{
    ins_ctx *c = p;
    size_t size = (size_t)1 << c->log_size;
    gad_num_t el[16], x;
    gad_bool_t bits[4];
    size_t nel = c->do_select ? size : size - 1;
    for (size_t i = 0; i < nel; i++) {
        gad_num_alloc(cs, &el[i], &c->el[i]);
    }
    if (!c->do_select) {
        gad_num_alloc(cs, &x, &c->x);
    }
    for (unsigned i = 0; i < c->log_size; i++) {
        bits[i] = gad_alloc_bit(cs, (c->index >> i) & 1);
    }
    gu_inputs_done(cs);
    cs_counts_t n;
    cs_get_counts(cs, &n);
    c->before = n.num_constraints;
    if (c->do_select) {
        gad_select(cs, &c->out[0], el, bits, c->log_size);
    } else {
        gad_insert(cs, c->out, &x, bits, c->log_size, el);
    }
}

TEST(insertion_select)
{
    cz_prng *g = test_prng();
    for (unsigned log_size = 1; log_size < 5; log_size++) {
        size_t size = (size_t)1 << log_size;
        for (size_t index = 0; index < size; index++) {
            ins_ctx c;
            memset(&c, 0, sizeof(c));
            c.log_size = log_size;
            c.index = index;
            c.do_select = true;
            for (size_t i = 0; i < size; i++) {
                gu_rand_fr(&c.el[i], g);
            }
            cs_counts_t n;
            gu_counts(&n, ins_synth, &c);
            CHECK_EQ_U64(c.before, log_size);
            CHECK_EQ_U64(n.num_constraints - c.before, size - 1);
            gu_check_sat(ins_synth, &c);
            CHECK(fr_eq(&c.out[0].value, &c.el[index]));
            (void)gu_soundness(ins_synth, &c);
        }
    }
}

TEST(insertion_insert)
{
    cz_prng *g = test_prng();
    for (unsigned log_size = 1; log_size <= 4; log_size++) {
        size_t size = (size_t)1 << log_size;
        size_t want = size == 8 ? 22 : size == 4 ? 8 : size * (size - 1);
        for (size_t index = 0; index < size; index++) {
            ins_ctx c;
            memset(&c, 0, sizeof(c));
            c.log_size = log_size;
            c.index = index;
            for (size_t i = 0; i + 1 < size; i++) {
                gu_rand_fr(&c.el[i], g);
            }
            gu_rand_fr(&c.x, g);
            cs_counts_t n;
            gu_counts(&n, ins_synth, &c);
            CHECK_EQ_U64(c.before, log_size);
            CHECK_EQ_U64(n.num_constraints - c.before, want);
            CHECK_EQ_U64(n.num_aux, size + log_size + want); /* one result per pick/helper */
            gu_check_sat(ins_synth, &c);
            for (size_t pos = 0, k = 0; pos < size; pos++) {
                const fr_t *w = pos == index ? &c.x : &c.el[k++];
                CHECK_MSG(fr_eq(&c.out[pos].value, w), "size %zu index %zu pos %zu", size, index,
                          pos);
            }
            (void)gu_soundness(ins_synth, &c);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Native trees
 * ------------------------------------------------------------------------------------------- */

static void native_hash(gad_hasher h, fr_t *out, const fr_t *in, size_t n)
{
    if (h == GAD_HASHER_POSEIDON) {
        poseidon_hash(out, in, n, poseidon_params(n));
    } else if (h == GAD_HASHER_BLAKE2S) {
        /* Blake2sFunction: unkeyed, unpersonalized BLAKE2s-256 (OpenSSL), trim_to_fr32 */
        uint8_t buf[16 * 32], d[32];
        unsigned dl = 0;
        for (size_t i = 0; i < n; i++) {
            fr_to_bytes(buf + 32 * i, &in[i]);
        }
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        CHECK(ctx);
        CHECK(EVP_DigestInit_ex(ctx, EVP_blake2s256(), NULL) == 1);
        CHECK(EVP_DigestUpdate(ctx, buf, 32 * n) == 1);
        CHECK(EVP_DigestFinal_ex(ctx, d, &dl) == 1);
        EVP_MD_CTX_free(ctx);
        CHECK_EQ_U64(dl, 32);
        d[31] &= 0x3f;
        CHECK_OK(fr_from_bytes(out, d));
    } else {
        uint8_t buf[16 * 32], d[32];
        for (size_t i = 0; i < n; i++) {
            fr_to_bytes(buf + 32 * i, &in[i]);
        }
        sha256_fr32(d, buf, 32 * n);
        CHECK_OK(fr_from_bytes(out, d));
    }
}

/* The root of `leaves` under `shape` and the path (siblings, per-level index) of leaf c. */
static void native_tree(gad_hasher h, const gad_tree_shape_t *s, const fr_t *leaves,
                        uint64_t nleaves, uint64_t c, fr_t *root, fr_t *sibs, uint32_t *idx)
{
    size_t levels = gad_tree_shape_levels(s);
    fr_t *row = malloc(nleaves * sizeof(fr_t));
    CHECK(row);
    memcpy(row, leaves, nleaves * sizeof(fr_t));
    uint64_t n = nleaves, pos = c;
    size_t ns = 0;
    for (size_t l = 0; l < levels; l++) {
        uint32_t a = gad_tree_shape_arity(s, l);
        uint64_t first = pos / a * a;
        idx[l] = (uint32_t)(pos % a);
        for (uint32_t k = 0; k < a; k++) {
            if (k != idx[l]) {
                sibs[ns++] = row[first + k];
            }
        }
        for (uint64_t j = 0; j < n / a; j++) {
            native_hash(h, &row[j], &row[j * a], a);
        }
        n /= a;
        pos /= a;
    }
    CHECK_EQ_U64(n, 1);
    *root = row[0];
    free(row);
}

/* ---------------------------------------------------------------------------------------------
 * PoRCircuit
 * ------------------------------------------------------------------------------------------- */

typedef struct por_ctx {
    gad_hasher h;
    gad_tree_shape_t shape;
    fr_t leaf, root;
    fr_t sibs[64];
    uint32_t idx[32];
    bool priv;
    gad_num_t computed;
} por_ctx;

static void por_synth(cs_t *cs, void *p)
{
    por_ctx *c = p;
    gad_root_t value = {false, {{0}, c->leaf}};
    gad_root_t root = {false, {{0}, c->root}};
    gad_por(cs, c->h, &c->shape, &value, c->sibs, c->idx, &root, c->priv, &c->computed);
}

typedef struct por_case {
    gad_hasher h;
    uint32_t u, v, w;
    size_t constraints;
    bool priv;
} por_case;

static void run_por_case(const por_case *pc, bool soundness)
{
    cz_prng *g = test_prng();
    uint64_t leaves = 64 * (pc->v ? pc->v : 1) * (pc->w ? pc->w : 1);
    fr_t *data = malloc(leaves * sizeof(fr_t));
    CHECK(data);
    static por_ctx c;
    memset(&c, 0, sizeof(c));
    c.h = pc->h;
    c.priv = pc->priv;
    CHECK(gad_tree_shape_init(&c.shape, leaves, pc->u, pc->v, pc->w));
    CHECK_EQ_U64(gad_tree_shape_index_bits(&c.shape), 63 - __builtin_clzll(leaves));
    for (uint64_t i = 0; i < leaves; i++) {
        if (pc->h == GAD_HASHER_SHA256 || pc->h == GAD_HASHER_BLAKE2S) {
            uint8_t b[32];
            cz_prng_bytes(g, b, 32);
            b[31] &= 0x3f; /* Sha256Domain / Blake2sDomain leaves are fr32-trimmed */
            CHECK_OK(fr_from_bytes(&data[i], b));
        } else {
            gu_rand_fr(&data[i], g);
        }
    }
    uint64_t challenges[4] = {0, leaves - 1, cz_prng_below(g, leaves), cz_prng_below(g, leaves)};
    for (int k = 0; k < 4; k++) {
        uint64_t ch = challenges[k];
        native_tree(pc->h, &c.shape, data, leaves, ch, &c.root, c.sibs, c.idx);
        c.leaf = data[ch];
        cs_counts_t n;
        gu_counts(&n, por_synth, &c);
        CHECK_EQ_U64(n.num_constraints, pc->constraints);
        CHECK_EQ_U64(n.num_inputs, pc->priv ? 2 : 3);
        /* the inputs: the challenge (packed path bits), then the root when public */
        cs_t *cs = NULL;
        cs_assignment_t asg;
        memset(&asg, 0, sizeof(asg));
        CHECK_OK(cs_new_witness(&cs, NULL, NULL));
        por_synth(cs, &c);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_assignment(cs, &asg, NULL));
        cs_free(cs);
        fr_t chf;
        fr_from_u64(&chf, ch);
        CHECK(fr_eq(&asg.inputs[1], &chf));
        if (!pc->priv) {
            CHECK(fr_eq(&asg.inputs[2], &c.root));
        }
        cs_assignment_clear(&asg);
        CHECK(fr_eq(&c.computed.value, &c.root));
        if (k < 2) {
            gu_check_sat(por_synth, &c);
        }
        if (soundness && k == 2) {
            (void)gu_soundness(por_synth, &c);
        }
    }
    /* a wrong sibling makes the circuit unsatisfiable at the root equality */
    native_tree(pc->h, &c.shape, data, leaves, 5, &c.root, c.sibs, c.idx);
    c.leaf = data[5];
    fr_add(&c.sibs[0], &c.sibs[0], &FR_ONE);
    const char *path = gu_check_unsat(por_synth, &c);
    CHECK_MSG(strstr(path, "enforce root is correct") != NULL, "first failure at %s", path);
    free(data);
}

static const por_case POR_CASES[] = {
    {GAD_HASHER_POSEIDON, 2, 0, 0, 1887, false}, {GAD_HASHER_POSEIDON, 4, 0, 0, 1164, false},
    {GAD_HASHER_POSEIDON, 8, 0, 0, 1063, false}, {GAD_HASHER_POSEIDON, 8, 2, 0, 1377, false},
    {GAD_HASHER_POSEIDON, 8, 4, 2, 1764, false}, {GAD_HASHER_POSEIDON, 8, 8, 0, 1593, false},
    {GAD_HASHER_POSEIDON, 8, 8, 2, 1907, false}, {GAD_HASHER_POSEIDON, 8, 2, 4, 1764, false},
    {GAD_HASHER_POSEIDON, 2, 0, 0, 1886, true},  {GAD_HASHER_POSEIDON, 4, 0, 0, 1163, true},
    {GAD_HASHER_POSEIDON, 8, 0, 0, 1062, true},
};

TEST(por_poseidon_shapes)
{
    for (size_t i = 0; i < ARRAY_LEN(POR_CASES); i++) {
        run_por_case(&POR_CASES[i], true);
    }
}

static const por_case POR_SHA_CASES[] = {
    {GAD_HASHER_SHA256, 2, 0, 0, 272295, false},
    {GAD_HASHER_SHA256, 4, 0, 0, 216258, false},
    {GAD_HASHER_SHA256, 8, 0, 0, 250987, false},
};

TEST(por_sha256_shapes)
{
    for (size_t i = 0; i < ARRAY_LEN(POR_SHA_CASES); i++) {
        run_por_case(&POR_SHA_CASES[i], i == 0);
    }
}

/* test_por_circuit_blake2s_base_{2,4,8}: 129_135, 130_296, 174_503 (public root, 3 inputs). */
static const por_case POR_BLAKE2S_CASES[] = {
    {GAD_HASHER_BLAKE2S, 2, 0, 0, 129135, false},
    {GAD_HASHER_BLAKE2S, 4, 0, 0, 130296, false},
    {GAD_HASHER_BLAKE2S, 8, 0, 0, 174503, false},
};

TEST(por_blake2s_shapes)
{
    for (size_t i = 0; i < ARRAY_LEN(POR_BLAKE2S_CASES); i++) {
        run_por_case(&POR_BLAKE2S_CASES[i], i == 0);
    }
}

/* ---------------------------------------------------------------------------------------------
 * por_no_challenge_input (shapes of test_por_no_challenge_input_*): one root shared by
 * several challenges, given allocated bits and siblings.
 * ------------------------------------------------------------------------------------------- */

typedef struct pnc_ctx {
    gad_tree_shape_t shape;
    fr_t root;
    size_t nch;
    uint64_t ch[6];
    fr_t leaf[6];
    fr_t sibs[6][64];
} pnc_ctx;

static void pnc_synth(cs_t *cs, void *p)
{
    pnc_ctx *c = p;
    gad_num_t root;
    size_t nbits = gad_tree_shape_index_bits(&c->shape);
    size_t nsib = gad_tree_shape_siblings(&c->shape);
    gad_num_alloc(cs, &root, &c->root);
    for (size_t k = 0; k < c->nch; k++) {
        gad_num_t leaf, path[64];
        gad_bool_t bits[64];
        gad_num_alloc(cs, &leaf, &c->leaf[k]);
        for (size_t i = 0; i < nbits; i++) {
            bits[i] = gad_alloc_bit(cs, (c->ch[k] >> i) & 1);
        }
        for (size_t i = 0; i < nsib; i++) {
            gad_num_alloc(cs, &path[i], &c->sibs[k][i]);
        }
        gad_por_no_challenge_input(cs, GAD_HASHER_POSEIDON, &c->shape, bits, nbits, &leaf, path,
                                   &root);
    }
}

TEST(por_no_challenge_input_shapes)
{
    static const struct {
        uint32_t u, v, w;
        uint64_t nodes;
    } shapes[] = {{8, 0, 0, 1 << 6},
                  {8, 8, 0, 1 << 6},
                  {8, 4, 0, 1 << 8},
                  {8, 4, 2, 1 << 9},
                  {8, 8, 2, 1 << 10}};
    cz_prng *g = test_prng();
    static pnc_ctx c;
    for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
        uint64_t n = shapes[s].nodes;
        fr_t *data = malloc(n * sizeof(fr_t));
        uint32_t idx[32];
        CHECK(data);
        memset(&c, 0, sizeof(c));
        CHECK(gad_tree_shape_init(&c.shape, n, shapes[s].u, shapes[s].v, shapes[s].w));
        for (uint64_t i = 0; i < n; i++) {
            gu_rand_fr(&data[i], g);
        }
        c.nch = 6;
        for (size_t k = 0; k < c.nch; k++) {
            c.ch[k] = cz_prng_below(g, n);
            c.leaf[k] = data[c.ch[k]];
            native_tree(GAD_HASHER_POSEIDON, &c.shape, data, n, c.ch[k], &c.root, c.sibs[k], idx);
        }
        /* per challenge: leaf, bits, siblings, then the per-level insert + hash and 1 equality */
        size_t per = 0, aux = 0;
        for (size_t l = 0; l < gad_tree_shape_levels(&c.shape); l++) {
            uint32_t a = gad_tree_shape_arity(&c.shape, l);
            size_t ins = a == 2 ? 2 : a == 4 ? 8 : 22;
            size_t hash = a == 2 ? 311 : a == 4 ? 377 : 505;
            per += ins + hash;
            aux += (a - 1) + ins + hash;
        }
        size_t nbits = gad_tree_shape_index_bits(&c.shape);
        GU_CHECK_COUNTS(pnc_synth, &c, 1, 1 + c.nch * (1 + nbits + aux), c.nch * (nbits + per + 1));
        gu_check_sat(pnc_synth, &c);
        (void)gu_soundness(pnc_synth, &c);
        free(data);
    }
}

TEST(tree_shapes)
{
    gad_tree_shape_t s;
    /* 32GiB: 2^30 nodes, (8, 8, 0): 9 base levels + 1 sub level, 30 index bits */
    CHECK(gad_tree_shape_init(&s, UINT64_C(1) << 30, 8, 8, 0));
    CHECK_EQ_U64(s.base_levels, 9);
    CHECK_EQ_U64(gad_tree_shape_levels(&s), 10);
    CHECK_EQ_U64(gad_tree_shape_index_bits(&s), 30);
    CHECK_EQ_U64(gad_tree_shape_siblings(&s), 70);
    /* 64GiB: 2^31, (8, 8, 2) */
    CHECK(gad_tree_shape_init(&s, UINT64_C(1) << 31, 8, 8, 2));
    CHECK_EQ_U64(s.base_levels, 9);
    CHECK_EQ_U64(gad_tree_shape_index_bits(&s), 31);
    /* 4KiB: 2^7, (8, 2, 0) */
    CHECK(gad_tree_shape_init(&s, 128, 8, 2, 0));
    CHECK_EQ_U64(s.base_levels, 2);
    /* arities that do not fit */
    CHECK(!gad_tree_shape_init(&s, 128, 8, 0, 0));
    CHECK(!gad_tree_shape_init(&s, 64, 8, 0, 2));
    CHECK(!gad_tree_shape_init(&s, 64, 3, 0, 0));
}

/* ---------------------------------------------------------------------------------------------
 * Exact A/B/C of pick and the insert_2 / insert_8 orders (spec 4.5; insertion.rs).
 * ------------------------------------------------------------------------------------------- */

static void lay_synth(cs_t *cs, void *p)
{
    const int *which = p;
    fr_t v[8];
    gad_num_t el[8], out[8];
    for (int i = 0; i < 8; i++) {
        fr_from_u64(&v[i], 100 + (uint64_t)i);
        gad_num_alloc(cs, &el[i], &v[i]); /* Aux(0..7) */
    }
    gad_bool_t b[3] = {gad_alloc_bit(cs, true), gad_alloc_bit(cs, false),
                       gad_alloc_bit(cs, true)}; /* Aux(8..10), rows 0..2 */
    if (*which == 0) {
        gad_insert(cs, out, &el[0], b, 1, &el[1]); /* picks: Aux(11), Aux(12), rows 3, 4 */
    } else {
        gad_insert(cs, out, &el[0], b, 3, &el[1]);
    }
}

TEST(insertion_layout)
{
    cs_r1cs_t r;
    int which = 0;
    gu_record(&r, lay_synth, &which);
    {
        /* out0 = pick(b0, s0, a): (a - s0) * b0 = a - out0 with a = Aux0, s0 = Aux1 */
        gu_term a[] = {gu_aux(0, 1), gu_aux(1, -1)}, b[] = {gu_aux(8, 1)},
                c[] = {gu_aux(0, 1), gu_aux(11, -1)};
        gu_check_row(&r, &r.A, 3, a, 2, "insert_2 pick 0 A");
        gu_check_row(&r, &r.B, 3, b, 1, "insert_2 pick 0 B");
        gu_check_row(&r, &r.C, 3, c, 2, "insert_2 pick 0 C");
        /* out1 = pick(b0, a, s0): (s0 - a) * b0 = s0 - out1 */
        gu_term a1[] = {gu_aux(1, 1), gu_aux(0, -1)}, c1[] = {gu_aux(1, 1), gu_aux(12, -1)};
        gu_check_row(&r, &r.A, 4, a1, 2, "insert_2 pick 1 A");
        gu_check_row(&r, &r.C, 4, c1, 2, "insert_2 pick 1 C");
    }
    cs_r1cs_clear(&r);
    which = 1;
    gu_record(&r, lay_synth, &which);
    {
        /* nor(b0, b1) = Aux11 (row 3), and(b0, b1) = Aux12 (row 4), then
         * p0_xx0 = pick(nor, a, b) = Aux13 (row 5): (b - a) * nor = b - p0_xx0 */
        gu_term na[] = {gu_in(0, 1), gu_aux(8, -1)}, nb[] = {gu_in(0, 1), gu_aux(9, -1)},
                nc[] = {gu_aux(11, 1)};
        gu_check_row(&r, &r.A, 3, na, 2, "insert_8 nor A");
        gu_check_row(&r, &r.B, 3, nb, 2, "insert_8 nor B");
        gu_check_row(&r, &r.C, 3, nc, 1, "insert_8 nor C");
        gu_term aa[] = {gu_aux(8, 1)}, ab[] = {gu_aux(9, 1)}, ac[] = {gu_aux(12, 1)};
        gu_check_row(&r, &r.A, 4, aa, 1, "insert_8 and A");
        gu_check_row(&r, &r.B, 4, ab, 1, "insert_8 and B");
        gu_check_row(&r, &r.C, 4, ac, 1, "insert_8 and C");
        gu_term pa[] = {gu_aux(1, 1), gu_aux(0, -1)}, pb[] = {gu_aux(11, 1)},
                pc[] = {gu_aux(1, 1), gu_aux(13, -1)};
        gu_check_row(&r, &r.A, 5, pa, 2, "insert_8 p0_xx0 A");
        gu_check_row(&r, &r.B, 5, pb, 1, "insert_8 p0_xx0 B");
        gu_check_row(&r, &r.C, 5, pc, 2, "insert_8 p0_xx0 C");
        /* p0 = pick(b2, b, p0_xx0) = Aux14 (row 6): (p0_xx0 - b) * b2 = p0_xx0 - p0 */
        gu_term qa[] = {gu_aux(13, 1), gu_aux(1, -1)}, qb[] = {gu_aux(10, 1)},
                qc[] = {gu_aux(13, 1), gu_aux(14, -1)};
        gu_check_row(&r, &r.A, 6, qa, 2, "insert_8 p0 A");
        gu_check_row(&r, &r.B, 6, qb, 1, "insert_8 p0 B");
        gu_check_row(&r, &r.C, 6, qc, 2, "insert_8 p0 C");
        /* the last pick p7 = pick(b2, p7_xx1, h) = Aux32 (row 24): (h - p7_xx1) * b2 */
        gu_term la[] = {gu_aux(7, 1), gu_aux(31, -1)}, lc[] = {gu_aux(7, 1), gu_aux(32, -1)};
        gu_check_row(&r, &r.A, 24, la, 2, "insert_8 p7 A");
        gu_check_row(&r, &r.B, 24, qb, 1, "insert_8 p7 B");
        gu_check_row(&r, &r.C, 24, lc, 2, "insert_8 p7 C");
        CHECK_EQ_U64(r.num_constraints, 25);
    }
    cs_r1cs_clear(&r);
}

static void lay4_synth(cs_t *cs, void *p)
{
    (void)p;
    fr_t v[4];
    gad_num_t el[4], out[4];
    for (int i = 0; i < 4; i++) {
        fr_from_u64(&v[i], 200 + (uint64_t)i);
        gad_num_alloc(cs, &el[i], &v[i]); /* a = Aux0, b = Aux1, c = Aux2, d = Aux3 */
    }
    gad_bool_t b[2] = {gad_alloc_bit(cs, false), gad_alloc_bit(cs, true)}; /* Aux4, Aux5 */
    gad_insert(cs, out, &el[0], b, 2, &el[1]); /* picks Aux6.. (rows 2..9) */
}

TEST(insertion_4_layout)
{
    /* pick(cond, x, y) -> r: (y - x) * cond = y - r; the spec's order:
     * p0_x0 = pick(b0, b, a); p0 = pick(b1, b, p0_x0); p1_x0 = pick(b0, a, b);
     * p1 = pick(b1, c, p1_x0); p2_x1 = pick(b0, d, a); p2 = pick(b1, p2_x1, c);
     * p3_x1 = pick(b0, a, d); p3 = pick(b1, p3_x1, d) */
    static const int args[8][3] = {{4, 1, 0}, {5, 1, 6},  {4, 0, 1}, {5, 2, 8},
                                   {4, 3, 0}, {5, 10, 2}, {4, 0, 3}, {5, 12, 3}};
    cs_r1cs_t r;
    gu_record(&r, lay4_synth, NULL);
    CHECK_EQ_U64(r.num_constraints, 10);
    for (int k = 0; k < 8; k++) {
        uint64_t cond = (uint64_t)args[k][0], x = (uint64_t)args[k][1], y = (uint64_t)args[k][2];
        uint64_t res = 6 + (uint64_t)k;
        gu_term a[] = {gu_aux(y, 1), gu_aux(x, -1)}, b[] = {gu_aux(cond, 1)},
                c[] = {gu_aux(y, 1), gu_aux(res, -1)};
        gu_check_row(&r, &r.A, 2 + (size_t)k, a, 2, "insert_4 A");
        gu_check_row(&r, &r.B, 2 + (size_t)k, b, 1, "insert_4 B");
        gu_check_row(&r, &r.C, 2 + (size_t)k, c, 2, "insert_4 C");
    }
    cs_r1cs_clear(&r);
}

/* PoR order (spec 4.7): value, then per level index bits, siblings, insert, hash; then the
 * path input, the root, the equality and (public root) inputize. One level of arity 8. */
TEST(por_layout)
{
    static por_ctx c;
    cz_prng *g = test_prng();
    fr_t data[8];
    memset(&c, 0, sizeof(c));
    c.h = GAD_HASHER_POSEIDON;
    CHECK(gad_tree_shape_init(&c.shape, 8, 8, 0, 0));
    for (int i = 0; i < 8; i++) {
        gu_rand_fr(&data[i], g);
    }
    native_tree(c.h, &c.shape, data, 8, 5, &c.root, c.sibs, c.idx);
    c.leaf = data[5];
    cs_r1cs_t r;
    gu_record(&r, por_synth, &c);
    /* Aux0 = value; index bits Aux1..3 (rows 0..2); siblings Aux4..10 */
    for (uint64_t i = 0; i < 3; i++) {
        gu_term a[] = {gu_in(0, 1), gu_aux(1 + i, -1)}, b[] = {gu_aux(1 + i, 1)};
        gu_check_row(&r, &r.A, i, a, 2, "index bit A");
        gu_check_row(&r, &r.B, i, b, 1, "index bit B");
    }
    /* insert_8 row 5 (after nor, and): p0_xx0 = pick(nor, a = value, b = sibling 0) */
    gu_term pa[] = {gu_aux(4, 1), gu_aux(0, -1)}, pb[] = {gu_aux(11, 1)};
    gu_check_row(&r, &r.A, 5, pa, 2, "p0_xx0 A");
    gu_check_row(&r, &r.B, 5, pb, 1, "p0_xx0 B");
    /* 3 + 22 + 505 rows of the level; then packing (Input1), equality, inputize (Input2) */
    size_t base = 3 + 22 + 505;
    CHECK_EQ_U64(r.num_constraints, base + 3);
    uint64_t hash = 11 + 22 + 505 - 1; /* the level's hash output */
    uint64_t rt = hash + 1;
    gu_term ka[] = {gu_aux(1, 1), gu_aux(2, 2), gu_aux(3, 4)}, one[] = {gu_in(0, 1)},
            kc[] = {gu_in(1, 1)};
    gu_check_row(&r, &r.A, base, ka, 3, "path packing A");
    gu_check_row(&r, &r.B, base, one, 1, "path packing B");
    gu_check_row(&r, &r.C, base, kc, 1, "path packing C");
    gu_term ea[] = {gu_aux(hash, 1)}, ec[] = {gu_aux(rt, 1)};
    gu_check_row(&r, &r.A, base + 1, ea, 1, "root equality A");
    gu_check_row(&r, &r.B, base + 1, one, 1, "root equality B");
    gu_check_row(&r, &r.C, base + 1, ec, 1, "root equality C");
    gu_term ia[] = {gu_in(2, 1)};
    gu_check_row(&r, &r.A, base + 2, ia, 1, "inputize A");
    gu_check_row(&r, &r.C, base + 2, ec, 1, "inputize C");
    CHECK_EQ_U64(r.num_aux, rt + 1);
    cs_r1cs_clear(&r);
}
