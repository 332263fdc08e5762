/* post.c - PoSt vanilla proofs (vanilla-proofs.md 2): the bincode FallbackPoStSectorProof,
 * its verification (storage-proofs-post fallback/vanilla.rs) and the circuit's public inputs
 * (fallback/compound.rs generate_public_inputs).
 */
#include "proofs/internal.h"

#include <string.h>

#include "common/alloc.h"

void vp_post_clear(vp_post_proof *p)
{
    if (!p) {
        return;
    }
    cz_free(p->inclusion);
    memset(p, 0, sizeof(*p));
}

/* The smallest bincode MerkleProof: tag, root, leaf, an empty path. */
#define MIN_MERKLE_BYTES (4 + 32 + 32 + 8)

cuzk_err vp_post_from_bincode(vp_post_proof *out, uint64_t sector_size, const uint8_t *buf,
                              size_t len, cz_diag *dg)
{
    seal_shape sh;
    seal_tree_shape tr;
    vp_br r;
    uint64_t nsec, n;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (!seal_shape_for_size(&sh, sector_size)) {
        return cz_fail(dg, CUZK_E_INVAL, "PoSt vanilla proof: unsupported sector size %llu",
                       (unsigned long long)sector_size);
    }
    seal_tree_shape_r(&tr, &sh);
    vp_br_init(&r, "PoSt vanilla proof", buf, len, dg);
    size_t m = vp_path_push(&r.path, "sector_id");
    CZ_TRY(err, vp_br_u64(&r, &out->sector_id), fail);
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "comm_r");
    CZ_TRY(err, vp_br_node(&r, out->comm_r), fail);
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "vanilla_proof.sectors");
    CZ_TRY(err, vp_br_len(&r, &nsec, 8 + 64), fail);
    if (nsec != 1) {
        r.pos -= 8;
        err =
            vp_br_fail(&r, "expected exactly 1 sector proof, found %llu", (unsigned long long)nsec);
        goto fail;
    }
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "vanilla_proof.sectors[0].inclusion_proofs");
    CZ_TRY(err, vp_br_len(&r, &n, MIN_MERKLE_BYTES), fail);
    if (n == 0) {
        r.pos -= 8;
        err = vp_br_fail(&r, "no inclusion proofs");
        goto fail;
    }
    out->inclusion = cz_calloc((size_t)n, sizeof(seal_merkle_proof));
    if (!out->inclusion) {
        err = cz_fail(dg, CUZK_E_NOMEM, "PoSt vanilla proof: %llu inclusion proofs",
                      (unsigned long long)n);
        goto fail;
    }
    out->ninclusion = (size_t)n;
    for (size_t i = 0; i < out->ninclusion; i++) {
        size_t m1 = vp_path_push(&r.path, "[%zu]", i);
        CZ_TRY(err, vp_br_merkle(&r, &out->inclusion[i], &tr), fail);
        vp_path_pop(&r.path, m1);
    }
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "vanilla_proof.sectors[0].comm_c");
    CZ_TRY(err, vp_br_node(&r, out->comm_c), fail);
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "vanilla_proof.sectors[0].comm_r_last");
    CZ_TRY(err, vp_br_node(&r, out->comm_r_last), fail);
    vp_path_pop(&r.path, m);
    CZ_TRY(err, vp_br_end(&r), fail);
    return CUZK_OK;
fail:
    vp_post_clear(out);
    return err;
}

cuzk_err vp_post_to_bincode(const vp_post_proof *p, uint8_t **out, size_t *len, cz_diag *dg)
{
    vp_buf b = {0};
    char *s;
    cuzk_err err;

    vp_buf_u64le(&b, p->sector_id);
    vp_buf_put(&b, p->comm_r, 32);
    vp_buf_u64le(&b, 1);
    vp_buf_u64le(&b, p->ninclusion);
    for (size_t i = 0; i < p->ninclusion; i++) {
        vp_bw_merkle(&b, &p->inclusion[i]);
    }
    vp_buf_put(&b, p->comm_c, 32);
    vp_buf_put(&b, p->comm_r_last, 32);
    err = vp_buf_finish(&b, &s, len, dg);
    *out = (uint8_t *)s;
    return err;
}

static bool is_fr(const uint8_t b[32])
{
    return seal_node_is_fr(b);
}

cuzk_err vp_post_verify(const vp_post_proof *p, const seal_post_config *cfg,
                        const uint8_t randomness[32], uint64_t sector_index, cz_diag *dg)
{
    seal_tree_shape tr;
    uint8_t comm_r[32];
    const uint64_t sid = p->sector_id;

    seal_tree_shape_r(&tr, &cfg->shape);
    if (!is_fr(randomness)) {
        return cz_fail(dg, CUZK_E_FORMAT, "PoSt sector %llu: randomness is not a valid Fr",
                       (unsigned long long)sid);
    }
    if (!is_fr(p->comm_c) || !is_fr(p->comm_r_last) || !is_fr(p->comm_r)) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "PoSt sector %llu: comm_r, comm_c or comm_r_last is not a valid Fr",
                       (unsigned long long)sid);
    }
    seal_comm_r(comm_r, p->comm_c, p->comm_r_last);
    if (memcmp(comm_r, p->comm_r, 32) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "PoSt sector %llu: comm_r != Poseidon2(comm_c, comm_r_last)",
                       (unsigned long long)sid);
    }
    if (p->ninclusion != cfg->challenge_count) {
        return cz_fail(dg, CUZK_E_FORMAT, "PoSt sector %llu: %zu inclusion proofs, %s needs %u",
                       (unsigned long long)sid, p->ninclusion, cfg->name, cfg->challenge_count);
    }
    for (uint32_t n = 0; n < cfg->challenge_count; n++) {
        const seal_merkle_proof *ip = &p->inclusion[n];
        uint64_t idx = seal_post_challenge_index(cfg, sector_index, n);
        uint64_t leaf = seal_post_leaf_challenge(randomness, sid, idx, cfg->shape.nodes);
        if (!seal_merkle_matches_shape(ip, &tr)) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "PoSt sector %llu: inclusion_proofs[%u]: wrong path shape",
                           (unsigned long long)sid, n);
        }
        if (seal_merkle_leaf_index(ip) != leaf) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "PoSt sector %llu: inclusion_proofs[%u]: opens leaf %llu, the "
                           "challenge is leaf %llu",
                           (unsigned long long)sid, n,
                           (unsigned long long)seal_merkle_leaf_index(ip),
                           (unsigned long long)leaf);
        }
        if (memcmp(ip->root.b, p->comm_r_last, 32) != 0) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "PoSt sector %llu: inclusion_proofs[%u]: root != comm_r_last",
                           (unsigned long long)sid, n);
        }
        if (!seal_merkle_verify(ip, SEAL_HASH_POSEIDON)) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "PoSt sector %llu: inclusion_proofs[%u]: path does not hash to the "
                           "root",
                           (unsigned long long)sid, n);
        }
    }
    return CUZK_OK;
}

size_t vp_post_num_inputs(const seal_post_config *cfg)
{
    if (cfg->type == SEAL_POST_WINNING) {
        return (size_t)cfg->challenge_count * 2;
    }
    return (size_t)cfg->sector_count * (1 + cfg->challenge_count);
}

/* Refuses what no partition can have. */
static cuzk_err post_inputs_check(const seal_post_config *cfg, const uint8_t randomness[32],
                                  size_t n, cz_diag *dg)
{
    if (n == 0 || n > cfg->sector_count) {
        return cz_fail(dg, CUZK_E_INVAL, "PoSt public inputs: %zu sectors, %s takes 1..%u", n,
                       cfg->name, cfg->sector_count);
    }
    if (!is_fr(randomness)) {
        return cz_fail(dg, CUZK_E_FORMAT, "PoSt public inputs: randomness is not a valid Fr");
    }
    return CUZK_OK;
}

/* Appends at out[*o] the inputs of the sector at `sector_index` (partition * sector_count +
 * position): comm_r, then its leaf challenges. */
static cuzk_err post_sector_inputs(fr_t *out, size_t *o, const seal_post_config *cfg,
                                   const uint8_t randomness[32], uint64_t sector_id,
                                   const uint8_t comm_r[32], uint64_t sector_index, cz_diag *dg)
{
    fr_t c;

    if (fr_from_bytes(&c, comm_r) != CUZK_OK) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "PoSt public inputs: comm_r of sector %llu is "
                       "not a valid Fr",
                       (unsigned long long)sector_id);
    }
    if (cfg->type == SEAL_POST_WINNING) {
        /* the circuit unrolls the 66 challenges into 66 one-challenge sectors */
        for (uint32_t k = 0; k < cfg->challenge_count; k++) {
            uint64_t idx = seal_post_challenge_index(cfg, sector_index, k);
            out[(*o)++] = c;
            fr_from_u64(&out[(*o)++],
                        seal_post_leaf_challenge(randomness, sector_id, idx, cfg->shape.nodes));
        }
        return CUZK_OK;
    }
    out[(*o)++] = c;
    for (uint32_t k = 0; k < cfg->challenge_count; k++) {
        uint64_t idx = seal_post_challenge_index(cfg, sector_index, k);
        fr_from_u64(&out[(*o)++],
                    seal_post_leaf_challenge(randomness, sector_id, idx, cfg->shape.nodes));
    }
    return CUZK_OK;
}

/* Window: repeats the last sector's block until sector_count sectors. */
static void post_inputs_pad(fr_t *out, size_t o, const seal_post_config *cfg)
{
    size_t block = (size_t)1 + cfg->challenge_count;

    while (o < vp_post_num_inputs(cfg)) {
        memcpy(&out[o], &out[o - block], block * sizeof(fr_t));
        o += block;
    }
    CZ_CHECK(o == vp_post_num_inputs(cfg));
}

cuzk_err vp_post_public_inputs(fr_t *out, const seal_post_config *cfg, const uint8_t randomness[32],
                               const uint64_t *sector_ids, const seal_node *comm_rs, size_t n,
                               uint32_t partition, cz_diag *dg)
{
    size_t o = 0;
    cuzk_err err = post_inputs_check(cfg, randomness, n, dg);

    for (size_t i = 0; err == CUZK_OK && i < n; i++) {
        err = post_sector_inputs(out, &o, cfg, randomness, sector_ids[i], comm_rs[i].b,
                                 (uint64_t)partition * cfg->sector_count + i, dg);
    }
    if (err == CUZK_OK) {
        post_inputs_pad(out, o, cfg);
    }
    return err;
}

cuzk_err vp_post_public_inputs_of(fr_t *out, const seal_post_config *cfg,
                                  const uint8_t randomness[32], const vp_post_proof *proofs,
                                  size_t n, uint32_t partition, cz_diag *dg)
{
    size_t o = 0;
    cuzk_err err = post_inputs_check(cfg, randomness, n, dg);

    for (size_t i = 0; err == CUZK_OK && i < n; i++) {
        err = post_sector_inputs(out, &o, cfg, randomness, proofs[i].sector_id, proofs[i].comm_r,
                                 (uint64_t)partition * cfg->sector_count + i, dg);
    }
    if (err == CUZK_OK) {
        post_inputs_pad(out, o, cfg);
    }
    return err;
}

cuzk_err vp_post_verify_partition(const vp_post_proof *proofs, size_t n,
                                  const seal_post_config *cfg, const uint8_t randomness[32],
                                  uint32_t partition, size_t *bad, cz_diag *dg)
{
    for (size_t i = 0; i < n; i++) {
        cuzk_err err = vp_post_verify(&proofs[i], cfg, randomness,
                                      (uint64_t)partition * cfg->sector_count + i, dg);
        if (err != CUZK_OK) {
            if (bad) {
                *bad = i;
            }
            return err;
        }
    }
    return CUZK_OK;
}
