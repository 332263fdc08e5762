/* g16_model.h - an independent model of the .vk and .params layouts (spec groth16.md 3.1,
 * 3.2) for fuzz_g16_vk.c and fuzz_g16_params.c: walks the bytes as the spec describes them and
 * predicts the result code of the loaders, decoding points with the curve decoders (fuzzed on
 * their own by fuzz_g1 / fuzz_g2). Header-only: static inline functions.
 *
 * Order of checks (what the loaders document): the whole structure first (lengths, counts,
 * b_g1 == b_g2, no trailing bytes: E_FORMAT), then every point in file order; the first bad
 * point decides the code (identity in ic or a vector: E_NOT_IN_GROUP).
 */
#ifndef CUZK_TESTS_FUZZ_G16_MODEL_H
#define CUZK_TESTS_FUZZ_G16_MODEL_H

#include "common/bytes.h"
#include "groth16/groth16.h"

#define MODEL_G1 G1_UNCOMPRESSED_NBYTES
#define MODEL_G2 G2_UNCOMPRESSED_NBYTES

/* The six fixed VK points: offset and group (spec 3.1). */
static const struct {
    size_t off;
    bool g2;
} MODEL_VK_FIXED[6] = {
    {0, false}, {96, false}, {192, true}, {384, true}, {576, false}, {672, true},
};

static inline cuzk_err model_point(const uint8_t *p, bool g2, bool check_group, bool allow_identity)
{
    cuzk_err err;
    bool identity;

    if (g2) {
        g2_aff_t q;
        err = g2_aff_from_uncompressed(&q, p, check_group);
        identity = g2_aff_is_identity(&q);
    } else {
        g1_aff_t q;
        err = g1_aff_from_uncompressed(&q, p, check_group);
        identity = g1_aff_is_identity(&q);
    }
    if (err != CUZK_OK) {
        return err;
    }
    return identity && !allow_identity ? CUZK_E_NOT_IN_GROUP : CUZK_OK;
}

/* Structure of the VK part; *end receives the offset after ic. */
static inline bool model_vk_layout(const uint8_t *buf, size_t len, size_t *ic_len, size_t *end)
{
    if (len < G16_VK_FIXED_NBYTES) {
        return false;
    }
    *ic_len = cz_load_be32(buf + 864);
    if (*ic_len == 0 || (len - G16_VK_FIXED_NBYTES) / MODEL_G1 < *ic_len) {
        return false;
    }
    *end = G16_VK_FIXED_NBYTES + *ic_len * MODEL_G1;
    return true;
}

/* Points of the VK part (fixed points in the subgroup, identity allowed; ic in the subgroup,
 * identity rejected). */
static inline cuzk_err model_vk_points(const uint8_t *buf, size_t ic_len)
{
    for (size_t i = 0; i < 6; i++) {
        cuzk_err err = model_point(buf + MODEL_VK_FIXED[i].off, MODEL_VK_FIXED[i].g2, true, true);
        if (err != CUZK_OK) {
            return err;
        }
    }
    for (size_t i = 0; i < ic_len; i++) {
        cuzk_err err = model_point(buf + G16_VK_FIXED_NBYTES + i * MODEL_G1, false, true, false);
        if (err != CUZK_OK) {
            return err;
        }
    }
    return CUZK_OK;
}

/* Expected result of g16_vk_from_bytes. */
static inline cuzk_err model_vk(const uint8_t *buf, size_t len)
{
    size_t ic_len, end;

    if (!model_vk_layout(buf, len, &ic_len, &end) || end != len) {
        return CUZK_E_FORMAT;
    }
    return model_vk_points(buf, ic_len);
}

/* Expected result of g16_params_from_bytes; on success *count[5] receives the vector lengths
 * (h, l, a, b_g1, b_g2). */
static inline cuzk_err model_params(const uint8_t *buf, size_t len, bool check_subgroup,
                                    size_t count[5])
{
    size_t ic_len, pos, off[5];
    cuzk_err err;

    if (!model_vk_layout(buf, len, &ic_len, &pos)) {
        return CUZK_E_FORMAT;
    }
    for (int s = 0; s < 5; s++) {
        size_t point = s == 4 ? MODEL_G2 : MODEL_G1;
        if (len - pos < 4) {
            return CUZK_E_FORMAT;
        }
        count[s] = cz_load_be32(buf + pos);
        pos += 4;
        if ((len - pos) / point < count[s]) {
            return CUZK_E_FORMAT;
        }
        off[s] = pos;
        pos += count[s] * point;
    }
    if (count[3] != count[4] || pos != len) {
        return CUZK_E_FORMAT;
    }
    err = model_vk_points(buf, ic_len);
    if (err != CUZK_OK) {
        return err;
    }
    for (int s = 0; s < 5; s++) {
        size_t point = s == 4 ? MODEL_G2 : MODEL_G1;
        for (size_t i = 0; i < count[s]; i++) {
            err = model_point(buf + off[s] + i * point, s == 4, check_subgroup, false);
            if (err != CUZK_OK) {
                return err;
            }
        }
    }
    return CUZK_OK;
}

#endif /* CUZK_TESTS_FUZZ_G16_MODEL_H */
