/* multipack.c - packing bits into field elements (bellperson 0.27 gadgets/multipack.rs;
 * spec circuits.md 2.7).
 */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

void gad_pack_into_inputs(cs_t *cs, const gad_bool_t *bits, size_t n)
{
    bool lab = cs_wants_labels(cs);
    size_t chunk = 0;

    for (size_t off = 0; off < n; off += GAD_FR_CAPACITY, chunk++) {
        size_t len = n - off < GAD_FR_CAPACITY ? n - off : GAD_FR_CAPACITY;
        fr_t value;
        cs_var_t in;

        gad_bits_value(&value, bits + off, len);
        (void)cs_alloc_input(cs, &in, &value);
        if (cs_needs_lcs(cs)) {
            cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, in);
            gad_lc_add_bits(cs, &a, NULL, bits + off, len);
            if (lab) {
                (void)cs_enforcef(cs, &a, &b, &c, "packing constraint %zu", chunk);
            } else {
                (void)cs_enforce(cs, &a, &b, &c, NULL);
            }
        } else {
            (void)cs_enforce(cs, NULL, NULL, NULL, NULL);
        }
    }
}

void gad_pack_bits(cs_t *cs, gad_num_t *out, const gad_bool_t *bits, size_t n)
{
    size_t len = n < GAD_FR_CAPACITY ? n : GAD_FR_CAPACITY;
    gad_num_t r;

    gad_bits_value(&r.value, bits, len);
    r.var = gad_alloc_var(cs, &r.value);
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, r.var);
        gad_lc_add_bits(cs, &a, NULL, bits, len);
        (void)cs_enforce(cs, &a, &b, &c, "packing constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "packing constraint");
    }
    *out = r;
}

void gad_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (unsigned k = 0; k < 8; k++) {
            out[8 * i + k] = (bytes[i] >> (7 - k)) & 1;
        }
    }
}

void gad_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (unsigned k = 0; k < 8; k++) {
            out[8 * i + k] = (bytes[i] >> k) & 1;
        }
    }
}

size_t gad_compute_multipacking(fr_t *out, const bool *bits, size_t n)
{
    size_t count = 0;

    for (size_t off = 0; off < n; off += GAD_FR_CAPACITY) {
        size_t len = n - off < GAD_FR_CAPACITY ? n - off : GAD_FR_CAPACITY;
        fr_repr_t r = {{0, 0, 0, 0}};
        for (size_t j = 0; j < len; j++) {
            r.l[j / 64] |= (uint64_t)(bits[off + j] ? 1 : 0) << (j % 64);
        }
        CZ_CHECK(fr_from_repr(&out[count], &r));
        count++;
    }
    return count;
}
