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
 */
#include "circuits/circuits.h"

#include "circuits/internal.h"

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

/* One challenge (params.rs Proof::synthesize). */
static void porep_challenge(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_challenge_t *ch,
                            const gad_num_t *comm_d, const gad_num_t *comm_c,
                            const gad_num_t *comm_r_last, const gad_bool_t rid_bits[256])
{
    bool lab = cs_wants_labels(cs);
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

void circ_porep_synth(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_witness_t *w)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t replica_id, comm_d, comm_r, comm_r_last, comm_c, pre[2], h;
    gad_bool_t le[GAD_FR_BITS], rid_bits[256];
    circ_porep_challenge_t blank;

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

    CIRC_NS_PUSH(cs, lab, "replica_id");
    gad_num_alloc(cs, &replica_id, w ? &w->replica_id : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "replica_id_input");
    gad_num_inputize(cs, &replica_id);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "replica_id_bits");
    gad_num_to_bits_le(cs, le, &replica_id);
    CIRC_NS_POP(cs, lab);
    (void)gad_reverse_bit_numbering(rid_bits, le, GAD_FR_BITS);

    CIRC_NS_PUSH(cs, lab, "comm_d");
    gad_num_alloc(cs, &comm_d, w ? &w->comm_d : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_d_input");
    gad_num_inputize(cs, &comm_d);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r");
    gad_num_alloc(cs, &comm_r, w ? &w->comm_r : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_input");
    gad_num_inputize(cs, &comm_r);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_last");
    gad_num_alloc(cs, &comm_r_last, w ? &w->comm_r_last : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_c");
    gad_num_alloc(cs, &comm_c, w ? &w->comm_c : NULL);
    CIRC_NS_POP(cs, lab);

    pre[0] = comm_c;
    pre[1] = comm_r_last;
    CIRC_NS_PUSH(cs, lab, "H_comm_c_comm_r_last");
    gad_poseidon_hash(cs, &h, pre, 2, poseidon_params(2));
    CIRC_NS_POP(cs, lab);
    gad_equal(cs, &comm_r, &h, "enforce comm_r = H(comm_c || comm_r_last)");

    for (size_t i = 0; i < cfg->challenges; i++) {
        CIRC_NS_PUSHF(cs, lab, "challenge_%zu", i);
        porep_challenge(cs, cfg, w ? &w->challenges[i] : &blank, &comm_d, &comm_c, &comm_r_last,
                        rid_bits);
        CIRC_NS_POP(cs, lab);
    }
}
