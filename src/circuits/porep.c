/* porep.c - the PoRep partition circuit, storage-proofs-porep stacked/circuit/proof.rs
 * (StackedCircuit::synthesize) and params.rs (Proof::synthesize); spec circuits.md 5.
 *
 * Order (every allocation and constraint in the reference's sequence):
 *   replica_id = alloc; inputize; bits = reverse_bit_numbering(to_bits_le(replica_id))
 *   comm_d = alloc; inputize;  comm_r = alloc; inputize;  comm_r_last = alloc;  comm_c = alloc
 *   equal(comm_r, Poseidon2(comm_c, comm_r_last))
 *   per challenge: data leaf + TreeD PoR; 6 DRG then 8 expander columns (rows, column hash,
 *   TreeC PoR each); the challenge as a UInt64 packed into an input; per layer the parents'
 *   bit decompositions and create_label; encode(last label, data leaf) + TreeRLast PoR; the
 *   hash of the challenged column (all labels) + TreeC PoR.
 * Every PoR allocates its index bits (one public input: the leaf index) and ends with
 * enforce(computed root | ONE | root).
 *
 * Parallel synthesis: the challenges use the partition's shared variables (comm_d, comm_c,
 * comm_r_last, the replica_id bits) and nothing of each other, and allocate their public
 * inputs themselves, so with a pool each challenge synthesizes in a cs_fork child after the
 * shared part and the children are joined in challenge order: the same constraints, variables
 * and inputs in the same order as sequential synthesis. Every challenge has the same shape, so
 * with one challenge's counts the children of the value-keeping backends write straight into
 * the parent's vectors and joining copies nothing.
 */
#include "circuits/circuits.h"

#include <string.h>

#include "circuits/internal.h"
#include "common/alloc.h"

#define MAX_LAYERS 11

bool circ_porep_cfg_init(circ_porep_cfg_t *cfg, uint64_t nodes, uint32_t base, uint32_t sub,
                         uint32_t top, uint32_t layers, uint32_t challenges)
{
    if ((layers != 2 && layers != 11) || challenges == 0 ||
        !gad_tree_shape_init(&cfg->tree, nodes, base, sub, top) ||
        !gad_tree_shape_init(&cfg->tree_d, nodes, 2, 0, 0) ||
        gad_tree_shape_siblings(&cfg->tree) > CIRC_MAX_SIBLINGS ||
        gad_tree_shape_siblings(&cfg->tree_d) > CIRC_MAX_SIBLINGS) {
        return false;
    }
    cfg->nodes = nodes;
    cfg->layers = layers;
    cfg->challenges = challenges;
    return true;
}

bool circ_porep_cfg_for_sector(circ_porep_cfg_t *cfg, uint64_t sector_bytes)
{
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);
    uint32_t partitions, challenges;

    if (!s ||
        !circ_porep_partitioning(sector_bytes, CIRC_POREP_INTERACTIVE, &partitions, &challenges)) {
        return false;
    }
    return circ_porep_cfg_init(cfg, sector_bytes / CIRC_NODE_BYTES, s->base_arity, s->sub_arity,
                               s->top_arity, s->porep_layers, challenges);
}

size_t circ_porep_num_inputs(const circ_porep_cfg_t *cfg)
{
    return 3 + (size_t)CIRC_POREP_INPUTS_PER_CHALLENGE * cfg->challenges;
}

void circ_porep_public_inputs(fr_t *out, const circ_porep_cfg_t *cfg, const fr_t *replica_id,
                              const fr_t *comm_d, const fr_t *comm_r, const uint64_t *challenges,
                              const uint64_t (*drg)[CIRC_DRG_PARENTS],
                              const uint64_t (*exp)[CIRC_EXP_PARENTS])
{
    size_t n = 0;

    out[n++] = *replica_id;
    out[n++] = *comm_d;
    out[n++] = *comm_r;
    for (size_t i = 0; i < cfg->challenges; i++) {
        fr_t c;
        fr_from_u64(&c, challenges[i]);
        out[n++] = c; /* TreeD inclusion */
        for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
            fr_from_u64(&out[n++], drg[i][j]);
        }
        for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
            fr_from_u64(&out[n++], exp[i][j]);
        }
        out[n++] = c; /* the challenge as a UInt64 */
        out[n++] = c; /* TreeRLast inclusion */
        out[n++] = c; /* TreeC inclusion of the challenged column */
    }
    CZ_CHECK(n == circ_porep_num_inputs(cfg));
}

/* Validates a challenge against the configuration (sticky CUZK_E_INVAL when it does not fit). */
static bool check_challenge(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_challenge_t *ch,
                            size_t i)
{
    if (ch->node >= cfg->nodes) {
        (void)cs_fail(cs, CUZK_E_INVAL, "challenge %zu: node %llu outside the sector", i,
                      (unsigned long long)ch->node);
        return false;
    }
    if (!circ_check_path(cs, &cfg->tree_d, &ch->comm_d_path, "comm_d path of challenge", i) ||
        !circ_check_path(cs, &cfg->tree, &ch->comm_r_last_path, "comm_r_last path of challenge",
                         i) ||
        !circ_check_path(cs, &cfg->tree, &ch->comm_c_path, "comm_c path of challenge", i)) {
        return false;
    }
    for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
        if (!ch->drg[j].rows ||
            !circ_check_path(cs, &cfg->tree, &ch->drg[j].path, "DRG parent path of challenge", i)) {
            (void)cs_fail(cs, CUZK_E_INVAL, "challenge %zu: bad DRG parent column %zu", i, j);
            return false;
        }
    }
    for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
        if (!ch->exp[j].rows || !circ_check_path(cs, &cfg->tree, &ch->exp[j].path,
                                                 "expander parent path of challenge", i)) {
            (void)cs_fail(cs, CUZK_E_INVAL, "challenge %zu: bad expander parent column %zu", i, j);
            return false;
        }
    }
    return true;
}

/* ColumnProof::alloc + AllocatedColumn::hash + enforce_inclusion for one parent column. */
static void parent_column(cs_t *cs, bool lab, const circ_porep_cfg_t *cfg, const circ_column_t *col,
                          const gad_num_t *comm_c, gad_num_t *rows, const char *kind, size_t i)
{
    gad_num_t h;

    CIRC_NS_PUSHF(cs, lab, "%s_parent_%zu_num", kind, i);
    CIRC_NS_PUSH(cs, lab, "column");
    for (uint32_t r = 0; r < cfg->layers; r++) {
        CIRC_NS_PUSHF(cs, lab, "column_num_row_%u", (unsigned)r);
        gad_num_alloc(cs, &rows[r], &col->rows[r]);
        CIRC_NS_POP(cs, lab);
    }
    CIRC_NS_POP(cs, lab);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSHF(cs, lab, "%s_parent_%zu_constraint", kind, i);
    gad_poseidon_hash(cs, &h, rows, cfg->layers, poseidon_params(cfg->layers));
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSHF(cs, lab, "%s_parent_%zu_inclusion", kind, i);
    circ_por_var(cs, GAD_HASHER_POSEIDON, &cfg->tree, &h, &col->path, comm_c);
    CIRC_NS_POP(cs, lab);
}

/* The variables every challenge uses, allocated once per partition. */
typedef struct porep_shared {
    gad_num_t comm_d, comm_c, comm_r_last;
    gad_bool_t rid_bits[256];
} porep_shared;

/* One challenge (params.rs Proof::synthesize). */
static void porep_challenge(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_challenge_t *ch,
                            const porep_shared *sh)
{
    bool lab = cs_wants_labels(cs);
    const gad_num_t *comm_d = &sh->comm_d, *comm_c = &sh->comm_c, *comm_r_last = &sh->comm_r_last;
    const gad_bool_t *rid_bits = sh->rid_bits;
    const uint32_t L = cfg->layers;
    gad_num_t data_leaf, drg_rows[CIRC_DRG_PARENTS][MAX_LAYERS];
    gad_num_t exp_rows[CIRC_EXP_PARENTS][MAX_LAYERS], labels[MAX_LAYERS], enc, col_hash;
    gad_u64_t node;
    /* the parents' 256-bit message forms of one layer: 6 DRG, then 8 expander */
    gad_bool_t parent_bits[CIRC_DRG_PARENTS + CIRC_EXP_PARENTS][256];
    gad_bool_t le[GAD_FR_BITS];

    CIRC_NS_PUSH(cs, lab, "data_leaf");
    gad_num_alloc(cs, &data_leaf, &ch->data_leaf);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_d_inclusion");
    circ_por_var(cs, GAD_HASHER_SHA256, &cfg->tree_d, &data_leaf, &ch->comm_d_path, comm_d);
    CIRC_NS_POP(cs, lab);

    for (size_t i = 0; i < CIRC_DRG_PARENTS; i++) {
        parent_column(cs, lab, cfg, &ch->drg[i], comm_c, drg_rows[i], "drg", i);
    }
    for (size_t i = 0; i < CIRC_EXP_PARENTS; i++) {
        parent_column(cs, lab, cfg, &ch->exp[i], comm_c, exp_rows[i], "exp", i);
    }

    CIRC_NS_PUSH(cs, lab, "challenge");
    gad_u64_alloc(cs, &node, ch->node);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "challenge input");
    gad_u64_pack_into_input(cs, &node);
    CIRC_NS_POP(cs, lab);

    for (uint32_t layer = 1; layer <= L; layer++) {
        const gad_bool_t *expanded[GAD_LABEL_PARENTS];
        size_t np = 0;

        CIRC_NS_PUSHF(cs, lab, "labeling_%u", (unsigned)layer);
        /* DRG parents at this layer, expander parents at the previous one */
        for (size_t i = 0; i < CIRC_DRG_PARENTS; i++, np++) {
            CIRC_NS_PUSHF(cs, lab, "drg_parent_%zu_bits", np);
            gad_num_to_bits_le(cs, le, &drg_rows[i][layer - 1]);
            CIRC_NS_POP(cs, lab);
            (void)gad_reverse_bit_numbering(parent_bits[np], le, GAD_FR_BITS);
        }
        if (layer > 1) {
            for (size_t i = 0; i < CIRC_EXP_PARENTS; i++, np++) {
                CIRC_NS_PUSHF(cs, lab, "exp_parent_%zu_bits", np);
                gad_num_to_bits_le(cs, le, &exp_rows[i][layer - 2]);
                CIRC_NS_POP(cs, lab);
                (void)gad_reverse_bit_numbering(parent_bits[np], le, GAD_FR_BITS);
            }
        }
        /* layer 1: the 6 parents six times, then the first; later: 14 + 14 + first 9 */
        for (size_t k = 0; k < GAD_LABEL_PARENTS; k++) {
            expanded[k] = parent_bits[k % np];
        }
        CIRC_NS_PUSH(cs, lab, "create_label");
        gad_create_label(cs, &labels[layer - 1], rid_bits, 256, expanded, layer, &node);
        CIRC_NS_POP(cs, lab);
        CIRC_NS_POP(cs, lab);
    }

    CIRC_NS_PUSH(cs, lab, "encode_node");
    gad_encode(cs, &enc, &labels[L - 1], &data_leaf);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_last_data_inclusion");
    circ_por_var(cs, GAD_HASHER_POSEIDON, &cfg->tree, &enc, &ch->comm_r_last_path, comm_r_last);
    CIRC_NS_POP(cs, lab);

    CIRC_NS_PUSH(cs, lab, "c_x_column_hash");
    gad_poseidon_hash(cs, &col_hash, labels, L, poseidon_params(L));
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "c_x_inclusion");
    circ_por_var(cs, GAD_HASHER_POSEIDON, &cfg->tree, &col_hash, &ch->comm_c_path, comm_c);
    CIRC_NS_POP(cs, lab);
}

/* A blank challenge: every value zero, every path position zero. */
static void blank_challenge(circ_porep_challenge_t *ch)
{
    circ_path_t z = circ_zero_path();

    ch->node = 0;
    ch->data_leaf = FR_ZERO;
    ch->comm_d_path = z;
    ch->comm_r_last_path = z;
    ch->comm_c_path = z;
    for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
        ch->drg[j].rows = CIRC_ZERO_FR;
        ch->drg[j].path = z;
    }
    for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
        ch->exp[j].rows = CIRC_ZERO_FR;
        ch->exp[j].path = z;
    }
}

/* Challenge i in its namespace. */
static void porep_challenge_ns(cs_t *cs, const circ_porep_cfg_t *cfg,
                               const circ_porep_challenge_t *ch, const porep_shared *sh, size_t i)
{
    bool lab = cs_wants_labels(cs);

    CIRC_NS_PUSHF(cs, lab, "challenge_%zu", i);
    porep_challenge(cs, cfg, ch, sh);
    CIRC_NS_POP(cs, lab);
}

/* Everything before the challenges: replica_id (an input and its bits), comm_d and comm_r
 * (inputs), comm_r_last, comm_c and comm_r = Poseidon2(comm_c, comm_r_last). w NULL: blank. */
static void porep_prefix(cs_t *cs, const circ_porep_witness_t *w, porep_shared *sh)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t replica_id, comm_r, pre[2], h;
    gad_bool_t le[GAD_FR_BITS];

    CIRC_NS_PUSH(cs, lab, "replica_id");
    gad_num_alloc(cs, &replica_id, w ? &w->replica_id : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "replica_id_input");
    gad_num_inputize(cs, &replica_id);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "replica_id_bits");
    gad_num_to_bits_le(cs, le, &replica_id);
    CIRC_NS_POP(cs, lab);
    (void)gad_reverse_bit_numbering(sh->rid_bits, le, GAD_FR_BITS);

    CIRC_NS_PUSH(cs, lab, "comm_d");
    gad_num_alloc(cs, &sh->comm_d, w ? &w->comm_d : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_d_input");
    gad_num_inputize(cs, &sh->comm_d);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r");
    gad_num_alloc(cs, &comm_r, w ? &w->comm_r : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_input");
    gad_num_inputize(cs, &comm_r);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_last");
    gad_num_alloc(cs, &sh->comm_r_last, w ? &w->comm_r_last : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_c");
    gad_num_alloc(cs, &sh->comm_c, w ? &w->comm_c : NULL);
    CIRC_NS_POP(cs, lab);

    pre[0] = sh->comm_c;
    pre[1] = sh->comm_r_last;
    CIRC_NS_PUSH(cs, lab, "H_comm_c_comm_r_last");
    gad_poseidon_hash(cs, &h, pre, 2, poseidon_params(2));
    CIRC_NS_POP(cs, lab);
    gad_equal(cs, &comm_r, &h, "enforce comm_r = H(comm_c || comm_r_last)");
}

cuzk_err circ_porep_challenge_counts(cs_counts_t *out, const circ_porep_cfg_t *cfg, cz_diag *dg)
{
    cs_t *cs = NULL;
    cs_counts_t before, after;
    circ_porep_challenge_t blank;
    porep_shared sh;
    cuzk_err err;

    CZ_CHECK(cfg && cfg->layers <= MAX_LAYERS);
    memset(out, 0, sizeof(*out));
    err = cs_new_counter(&cs, dg);
    if (err != CUZK_OK) {
        return err;
    }
    blank_challenge(&blank);
    porep_prefix(cs, NULL, &sh); /* real shared variables: constant ones would fold */
    cs_get_counts(cs, &before);
    porep_challenge(cs, cfg, &blank, &sh);
    cs_get_counts(cs, &after);
    err = cs_finish(cs, dg);
    cs_free(cs);
    if (err == CUZK_OK) {
        out->num_inputs = after.num_inputs - before.num_inputs;
        out->num_aux = after.num_aux - before.num_aux;
        out->num_constraints = after.num_constraints - before.num_constraints;
    }
    return err;
}

/* Parallel synthesis: challenge c in fork child c. */
typedef struct porep_job {
    const circ_porep_cfg_t *cfg;
    const circ_porep_witness_t *w; /* NULL: blank */
    const circ_porep_challenge_t *blank;
    const porep_shared *sh;
} porep_job;

static void porep_challenge_child(cs_t *child, size_t c, void *ctx)
{
    const porep_job *job = ctx;
    porep_challenge_ns(child, job->cfg, job->w ? &job->w->challenges[c] : job->blank, job->sh, c);
}

/* The challenges of a partition on `pool`; false (nothing done) when they must run
 * sequentially instead (no pool, one challenge, a kind that cannot fork). */
static bool porep_challenges_par(cs_t *cs, const circ_porep_cfg_t *cfg,
                                 const circ_porep_witness_t *w, const circ_porep_challenge_t *blank,
                                 const porep_shared *sh, cz_pool *pool,
                                 const cs_counts_t *challenge_counts)
{
    const size_t n = cfg->challenges;
    cs_counts_t each, *sizes = NULL;
    cuzk_err err;
    porep_job job;

    if (!pool || cz_pool_width(pool) < 2 || n < 2 || !cs_can_extend(cs)) {
        return false;
    }
    if (cs_status(cs) != CUZK_OK) {
        return true; /* nothing more to synthesize: the error stands */
    }
    /* Sizes let value-keeping children write in place; the others do not need them. */
    if (challenge_counts || cs_has_values(cs)) {
        if (challenge_counts) {
            each = *challenge_counts;
        } else if ((err = circ_porep_challenge_counts(&each, cfg, NULL)) != CUZK_OK) {
            (void)cs_fail(cs, err, "PoRep: cannot count a challenge");
            return true;
        }
        sizes = cz_malloc(n * sizeof(*sizes));
        if (!sizes) {
            (void)cs_fail(cs, CUZK_E_NOMEM, "PoRep: parallel synthesis bookkeeping");
            return true;
        }
        for (size_t c = 0; c < n; c++) {
            sizes[c] = each;
        }
    }
    job.cfg = cfg;
    job.w = w;
    job.blank = blank;
    job.sh = sh;
    circ_fork_join(cs, n, sizes, porep_challenge_child, &job, pool, "PoRep challenges");
    cz_free(sizes);
    return true;
}

void circ_porep_synth(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_witness_t *w)
{
    circ_porep_synth_pool(cs, cfg, w, NULL, NULL);
}

void circ_porep_synth_pool(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_witness_t *w,
                           cz_pool *pool, const cs_counts_t *challenge_counts)
{
    circ_porep_challenge_t blank;
    porep_shared sh;

    CZ_CHECK(cfg && cfg->layers <= MAX_LAYERS);
    if (w) {
        CZ_CHECK(w->challenges);
        for (size_t i = 0; i < cfg->challenges; i++) {
            if (!check_challenge(cs, cfg, &w->challenges[i], i)) {
                return;
            }
        }
    } else {
        blank_challenge(&blank);
    }

    porep_prefix(cs, w, &sh);
    if (porep_challenges_par(cs, cfg, w, &blank, &sh, pool, challenge_counts)) {
        return;
    }
    for (size_t i = 0; i < cfg->challenges; i++) {
        porep_challenge_ns(cs, cfg, w ? &w->challenges[i] : &blank, &sh, i);
    }
}
