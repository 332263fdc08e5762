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

/* What a cs wants, looked up once per gadget call: LCs (cs_needs_lcs), labels
 * (cs_wants_labels), or nothing but counts and values (cs_blind: batched allocations). */
#define GAD_M_LCS   1u
#define GAD_M_LAB   2u
#define GAD_M_BLIND 4u

static inline unsigned gad_mode(cs_t *cs)
{
    return (cs_needs_lcs(cs) ? GAD_M_LCS : 0u) | (cs_wants_labels(cs) ? GAD_M_LAB : 0u) |
           (cs_blind(cs) ? GAD_M_BLIND : 0u);
}

static inline bool gad_is_false(gad_bool_t b)
{
    return b.kind == GAD_CONST && !b.value;
}

static inline bool gad_is_true(gad_bool_t b)
{
    return b.kind == GAD_CONST && b.value;
}

/* Boolean::xor's decision, without the allocation: false with *r the result when no bit is
 * allocated (a constant operand: the other one or its negation); true when the result is a new
 * bit of value *bit (Not(bit) when *negate: one operand Is, the other Not), allocated by
 * gad_bit_xor with the Is operand first. gad_bool_xor_m and the batched gad_u32_xor share it. */
static inline bool gad_xor_plan(gad_bool_t a, gad_bool_t b, gad_bool_t *r, bool *bit, bool *negate)
{
    if (gad_is_false(a)) {
        *r = b;
    } else if (gad_is_false(b)) {
        *r = a;
    } else if (gad_is_true(a)) {
        *r = gad_bool_not(b);
    } else if (gad_is_true(b)) {
        *r = gad_bool_not(a);
    } else {
        *bit = gad_bit_value(a) ^ gad_bit_value(b);
        *negate = a.kind != b.kind;
        return true;
    }
    return false;
}

/* On a blind backend (GAD_M_BLIND): n new bits of values bits[] (vars[i]), each with its one
 * constraint, in one cs_alloc_bits and one cs_enforce_blind. */
static inline void gad_alloc_bits_blind(cs_t *cs, cs_var_t *vars, const bool *bits, size_t n)
{
    (void)cs_alloc_bits(cs, vars, bits, n);
    (void)cs_enforce_blind(cs, n);
}

/* The Boolean gadgets with the mode given (hot loops look it up once). */
gad_bool_t gad_alloc_bit_m(cs_t *cs, unsigned m, bool value);
/* out[i] = gad_alloc_bit_m(cs, m, bits[i]) for i < n, in order, each in the namespace
 * "<ns> <i>"; on a blind backend in one cs_alloc_bits and one cs_enforce_blind.
 * n <= GAD_FR_BITS + 1. */
void gad_alloc_bits_m(cs_t *cs, unsigned m, gad_bool_t *out, const bool *bits, size_t n,
                      const char *ns);
gad_bool_t gad_bit_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_and_not_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bit_nor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b);
gad_bool_t gad_bool_sha256_ch_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c);
gad_bool_t gad_bool_sha256_maj_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c);

/* How gad_bool_sha256_ch_m / gad_bool_sha256_maj_m compute one bit, decided once for both
 * their LC path and the batched words of a blind backend: `how` (the result as it is, through
 * gad_bool_and_m(x, y), its negation, or the general case with its own constraint); n new bits
 * (0 to 2, in allocation order, one constraint each) of values bit[]; the result r, whose var
 * is the first new bit when n > 0. */
enum { GAD_PLAN_DONE, GAD_PLAN_AND, GAD_PLAN_NAND, GAD_PLAN_GENERAL };

typedef struct gad_bit_plan {
    int how;
    gad_bool_t x, y; /* GAD_PLAN_AND, GAD_PLAN_NAND */
    gad_bool_t r;
    unsigned n;
    bool bit[2];
} gad_bit_plan;

void gad_sha256_ch_plan(gad_bit_plan *p, gad_bool_t a, gad_bool_t b, gad_bool_t c);
void gad_sha256_maj_plan(gad_bit_plan *p, gad_bool_t a, gad_bool_t b, gad_bool_t c);

/* Poseidon in circuit form with a given tag; the shared body of the public functions.
 * use_table false forces the generic LC arithmetic in the partial rounds (tests compare the
 * two; the constraints are identical). */
void gad_poseidon_circuit(cs_t *cs, gad_num_t *out, const fr_t *tag, const gad_num_t *in,
                          size_t arity, const poseidon_params_t *p, bool use_table);

#endif /* CUZK_GADGETS_INTERNAL_H */
