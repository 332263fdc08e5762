/* internal.h - helpers shared by the gadget sources. Not a public header. */
#ifndef CUZK_GADGETS_INTERNAL_H
#define CUZK_GADGETS_INTERNAL_H

#include "gadgets/gadgets.h"

/* Namespaces cost a formatted string only in the checker; elsewhere they are skipped
 * altogether (lab = cs_wants_labels(cs), looked up once per gadget call). */
#define GAD_NS_PUSH(cs, lab, name)                                                                 \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_push_ns((cs), name);                                                                \
        }                                                                                          \
    } while (0)
#define GAD_NS_PUSHF(cs, lab, ...)                                                                 \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_push_nsf((cs), __VA_ARGS__);                                                        \
        }                                                                                          \
    } while (0)
#define GAD_NS_POP(cs, lab)                                                                        \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_pop_ns(cs);                                                                         \
        }                                                                                          \
    } while (0)

static inline const fr_t *gad_fr_bit(bool b)
{
    return b ? &FR_ONE : &FR_ZERO;
}

/* The value of the integer sum_{j<n} 2^j bits[j] (n <= 254) as an Fr. */
void gad_bits_value(fr_t *out, const gad_bool_t *bits, size_t n);

/* x = alloc(value) with the value checked only when the backend keeps values. */
static inline cs_var_t gad_alloc_var(cs_t *cs, const fr_t *value)
{
    cs_var_t v;
    (void)cs_alloc(cs, &v, value);
    return v;
}

/* What a cs wants, looked up once per gadget call: LCs (cs_needs_lcs) and labels
 * (cs_wants_labels). */
#define GAD_M_LCS 1u
#define GAD_M_LAB 2u

static inline unsigned gad_mode(cs_t *cs)
{
    return (cs_needs_lcs(cs) ? GAD_M_LCS : 0u) | (cs_wants_labels(cs) ? GAD_M_LAB : 0u);
}

/* The Boolean gadgets with the mode given (hot loops look it up once). */
gad_bool_t gad_alloc_bit_m(cs_t *cs, unsigned m, bool value);
gad_bool_t gad_bit_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and_not_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_nor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_sha256_ch_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c);
gad_bool_t gad_bool_sha256_maj_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c);

/* Poseidon in circuit form with a given tag; the shared body of the public functions.
 * use_table false forces the generic LC arithmetic in the partial rounds (tests compare the
 * two; the constraints are identical). */
void gad_poseidon_circuit(cs_t *cs, gad_num_t *out, const fr_t *tag, const gad_num_t *in,
                          size_t arity, const poseidon_params_t *p, bool use_table);

#endif /* CUZK_GADGETS_INTERNAL_H */
