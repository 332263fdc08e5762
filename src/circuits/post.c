/* post.c - fallback PoSt, storage-proofs-post fallback/circuit.rs (FallbackPoStCircuit,
 * Sector::synthesize) and compound.rs (generate_public_inputs); spec circuits.md 6,
 * vanilla-proofs.md 2.3-2.5.
 *
 * Per circuit sector, in order: comm_r_last = alloc, comm_c = alloc, comm_r = alloc, inputize
 * comm_r, equal(comm_r, Poseidon2(comm_c, comm_r_last)), then per challenge a PoR whose leaf is
 * allocated (Root::Val) and whose root is comm_r_last (one public input: the leaf index).
 * Sectors reference nothing but ONE, so chunks of sectors can synthesize independently and be
 * concatenated, as bellperson's synthesize_extendable does; here they are cs_fork children of
 * known size, which write in place (the 4 GB of a 32 GiB partition's values are never copied).
 */
#include "circuits/circuits.h"

#include <string.h>

#include "circuits/internal.h"
#include "common/alloc.h"
#include "hash/sha256.h"

bool circ_post_cfg_init(circ_post_cfg_t *cfg, uint64_t sector_bytes, uint32_t base, uint32_t sub,
                        uint32_t top, uint32_t sector_count, uint32_t challenge_count)
{
    if (sector_bytes % CIRC_NODE_BYTES || sector_count == 0 || challenge_count == 0 ||
        !gad_tree_shape_init(&cfg->tree, sector_bytes / CIRC_NODE_BYTES, base, sub, top) ||
        gad_tree_shape_siblings(&cfg->tree) > CIRC_MAX_SIBLINGS) {
        return false;
    }
    cfg->sector_bytes = sector_bytes;
    cfg->sector_count = sector_count;
    cfg->challenge_count = challenge_count;
    return true;
}

bool circ_winning_post_cfg(circ_post_cfg_t *cfg, uint64_t sector_bytes)
{
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);

    /* winning_post_setup_params: 66 challenges over 1 sector become 66 circuit sectors of
     * one challenge each. */
    return s && circ_post_cfg_init(cfg, sector_bytes, s->base_arity, s->sub_arity, s->top_arity,
                                   CIRC_WINNING_POST_CHALLENGES, 1);
}

bool circ_window_post_cfg(circ_post_cfg_t *cfg, uint64_t sector_bytes, uint32_t sectors)
{
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);

    return s && circ_post_cfg_init(cfg, sector_bytes, s->base_arity, s->sub_arity, s->top_arity,
                                   sectors ? sectors : s->window_post_sectors,
                                   CIRC_WINDOW_POST_CHALLENGES);
}

size_t circ_post_num_inputs(const circ_post_cfg_t *cfg)
{
    return (size_t)cfg->sector_count * (1 + (size_t)cfg->challenge_count);
}

/* Sector::synthesize. */
static void post_sector(cs_t *cs, const circ_post_cfg_t *cfg, const circ_post_sector_t *s)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t comm_r_last, comm_c, comm_r, pre[2], h;
    circ_path_t zero = circ_zero_path();

    CIRC_NS_PUSH(cs, lab, "comm_r_last");
    gad_num_alloc(cs, &comm_r_last, s ? &s->comm_r_last : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_c");
    gad_num_alloc(cs, &comm_c, s ? &s->comm_c : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r");
    gad_num_alloc(cs, &comm_r, s ? &s->comm_r : NULL);
    CIRC_NS_POP(cs, lab);
    CIRC_NS_PUSH(cs, lab, "comm_r_input");
    gad_num_inputize(cs, &comm_r);
    CIRC_NS_POP(cs, lab);

    pre[0] = comm_c;
    pre[1] = comm_r_last;
    CIRC_NS_PUSH(cs, lab, "H_comm_c_comm_r_last");
    gad_poseidon_hash(cs, &h, pre, 2, poseidon_params(2));
    CIRC_NS_POP(cs, lab);
    gad_equal(cs, &comm_r, &h, "enforce_comm_c_comm_r_last_hash_comm_r");

    for (uint32_t n = 0; n < cfg->challenge_count; n++) {
        const circ_path_t *path = s ? &s->paths[n] : &zero;
        gad_root_t leaf = {false, {{0}, FR_ZERO}}, root = {true, comm_r_last};

        if (s) {
            leaf.num.value = s->leaves[n];
        }
        CIRC_NS_PUSHF(cs, lab, "challenge_inclusion_%u", (unsigned)n);
        gad_por(cs, GAD_HASHER_POSEIDON, &cfg->tree, &leaf, path->siblings, path->index, &root,
                true, NULL);
        CIRC_NS_POP(cs, lab);
    }
}

/* Synthesizes sectors [begin, end) (NULL sectors: blank) into cs. */
static void post_range(cs_t *cs, const circ_post_cfg_t *cfg, const circ_post_sector_t *sectors,
                       size_t begin, size_t end)
{
    bool lab = cs_wants_labels(cs);

    for (size_t i = begin; i < end; i++) {
        CIRC_NS_PUSHF(cs, lab, "sector_%zu", i);
        post_sector(cs, cfg, sectors ? &sectors[i] : NULL);
        CIRC_NS_POP(cs, lab);
    }
}

/* Parallel synthesis: chunk c covers sectors [c * per, min((c + 1) * per, S)) in fork child c,
 * which knows its exact counts, so that it writes its values (and a prover's a, b, c) straight
 * into their place in the parent and cs_join copies nothing. */
typedef struct post_job {
    const circ_post_cfg_t *cfg;
    const circ_post_sector_t *sectors;
    size_t per;
} post_job;

static void post_chunk(cs_t *child, size_t c, void *ctx)
{
    const post_job *job = ctx;
    size_t lo = c * job->per;
    size_t hi = lo + job->per < job->cfg->sector_count ? lo + job->per : job->cfg->sector_count;
    post_range(child, job->cfg, job->sectors, lo, hi);
}

/* What one sector adds to a circuit (a blank one: the shape does not depend on the values). */
static cuzk_err sector_counts(const circ_post_cfg_t *cfg, cs_counts_t *out)
{
    cs_t *cs = NULL;
    cs_counts_t before, after;
    cuzk_err err = cs_new_counter(&cs, NULL);

    memset(out, 0, sizeof(*out));
    if (err != CUZK_OK) {
        return err;
    }
    cs_get_counts(cs, &before);
    post_sector(cs, cfg, NULL);
    cs_get_counts(cs, &after);
    err = cs_finish(cs, NULL);
    cs_free(cs);
    if (err == CUZK_OK) {
        out->num_inputs = after.num_inputs - before.num_inputs;
        out->num_aux = after.num_aux - before.num_aux;
        out->num_constraints = after.num_constraints - before.num_constraints;
    }
    return err;
}

static bool check_sectors(cs_t *cs, const circ_post_cfg_t *cfg, const circ_post_sector_t *sectors)
{
    for (size_t i = 0; i < cfg->sector_count; i++) {
        const circ_post_sector_t *s = &sectors[i];
        CZ_CHECK(s->leaves && s->paths);
        for (size_t n = 0; n < cfg->challenge_count; n++) {
            if (!circ_check_path(cs, &cfg->tree, &s->paths[n], "PoSt path of sector", i)) {
                return false;
            }
        }
    }
    return true;
}

void circ_post_synth(cs_t *cs, const circ_post_cfg_t *cfg, const circ_post_sector_t *sectors,
                     cz_pool *pool)
{
    const size_t S = cfg->sector_count;
    unsigned width = cz_pool_width(pool);
    post_job job;
    cs_counts_t each;
    cs_counts_t *sizes = NULL;
    size_t chunks;
    cuzk_err err;

    CZ_CHECK(cfg);
    if (sectors && !check_sectors(cs, cfg, sectors)) {
        return;
    }
    if (!pool || width < 2 || S < 2 || !cs_can_extend(cs) || cs_status(cs) != CUZK_OK) {
        post_range(cs, cfg, sectors, 0, S);
        return;
    }

    /* A few chunks per thread balance the load; any split gives the same circuit. */
    chunks = (size_t)width * 4 < S ? (size_t)width * 4 : S;
    job.cfg = cfg;
    job.sectors = sectors;
    job.per = (S + chunks - 1) / chunks;
    chunks = (S + job.per - 1) / job.per;
    if ((err = sector_counts(cfg, &each)) != CUZK_OK) {
        (void)cs_fail(cs, err, "PoSt: cannot count a sector");
        return;
    }
    sizes = cz_malloc(chunks * sizeof(*sizes));
    if (!sizes) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "PoSt: parallel synthesis bookkeeping");
        return;
    }
    for (size_t c = 0; c < chunks; c++) {
        size_t lo = c * job.per, n = lo + job.per < S ? job.per : S - lo;
        sizes[c].num_inputs = n * each.num_inputs;
        sizes[c].num_aux = n * each.num_aux;
        sizes[c].num_constraints = n * each.num_constraints;
    }
    circ_fork_join(cs, chunks, sizes, post_chunk, &job, pool, "PoSt chunks of sectors");
    cz_free(sizes);
}

uint64_t circ_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t sector_bytes)
{
    uint8_t msg[48], h[SHA256_DIGEST_BYTES];
    uint64_t v = 0;

    memcpy(msg, randomness, 32);
    for (unsigned i = 0; i < 8; i++) {
        msg[32 + i] = (uint8_t)(sector_id >> (8 * i));
        msg[40 + i] = (uint8_t)(challenge_index >> (8 * i));
    }
    sha256(h, msg, sizeof(msg));
    for (unsigned i = 0; i < 8; i++) {
        v |= (uint64_t)h[i] << (8 * i);
    }
    return v % (sector_bytes / CIRC_NODE_BYTES);
}

cuzk_err circ_post_public_inputs(fr_t *out, const circ_post_cfg_t *cfg, circ_api api,
                                 const uint8_t randomness[32],
                                 const circ_post_pub_sector_t *sectors, size_t n, size_t k,
                                 cz_diag *dg)
{
    const size_t S = cfg->sector_count, C = cfg->challenge_count, block = 1 + C;
    size_t first, count, pos = 0;

    if (k > SIZE_MAX / S || k * S >= n) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "PoSt: partition %zu has no sectors (%zu sectors, %zu "
                       "per partition)",
                       k, n, S);
    }
    first = k * S;
    count = n - first < S ? n - first : S;
    for (size_t i = 0; i < count; i++) {
        const circ_post_pub_sector_t *s = &sectors[first + i];
        out[pos++] = s->comm_r;
        for (size_t j = 0; j < C; j++) {
            uint64_t idx = api == CIRC_API_V1_2_0 ? (uint64_t)j : (uint64_t)(first + i) * C + j;
            fr_from_u64(&out[pos++],
                        circ_post_leaf_challenge(randomness, s->id, idx, cfg->sector_bytes));
        }
    }
    /* Too few sectors: the last sector's inputs repeat (the prover pads the same way). */
    for (size_t i = count; i < S; i++, pos += block) {
        memcpy(&out[pos], &out[pos - block], block * sizeof(fr_t));
    }
    CZ_CHECK(pos == circ_post_num_inputs(cfg));
    return CUZK_OK;
}
