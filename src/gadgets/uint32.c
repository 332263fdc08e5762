/* uint32.c - UInt32 and the MultiEq accumulator (bellperson 0.27 gadgets/uint32.rs and
 * multieq.rs; spec circuits.md 2.8-2.9).
 */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------
 * MultiEq
 * ---------------------------------------------------------------------------------------- */

void gad_multieq_init(gad_multieq_t *me, cs_t *cs)
{
    me->cs = cs;
    me->bits_used = 0;
    me->ops = 0;
    me->coeff = FR_ONE;
    me->lcs = cs_needs_lcs(cs);
    cs_lc_init(&me->lhs);
    cs_lc_init(&me->rhs);
}

/* enforce(lhs | ONE | rhs) and start again from nothing. */
static void multieq_flush(gad_multieq_t *me)
{
    cs_t *cs = me->cs;

    if (me->lcs) {
        cs_lc_t one = cs_lc_of(cs, CS_ONE);
        (void)cs_enforcef(cs, &me->lhs, &one, &me->rhs, "multieq %zu", me->ops);
        cs_lc_reset(cs, &me->lhs);
        cs_lc_reset(cs, &me->rhs);
    } else {
        (void)cs_enforcef(cs, NULL, NULL, NULL, "multieq %zu", me->ops);
    }
    me->bits_used = 0;
    me->coeff = FR_ONE;
    me->ops++;
}

/* Flushes when bits_used + num_bits would reach CAPACITY (254). */
static void multieq_make_room(gad_multieq_t *me, size_t num_bits)
{
    if (GAD_FR_CAPACITY <= me->bits_used + num_bits) {
        multieq_flush(me);
    }
    CZ_CHECK(me->bits_used + num_bits < GAD_FR_CAPACITY);
}

static void multieq_advance(gad_multieq_t *me, size_t num_bits)
{
    me->bits_used += num_bits;
    if (me->lcs) {
        for (size_t i = 0; i < num_bits; i++) {
            fr_dbl(&me->coeff, &me->coeff);
        }
    }
}

void gad_multieq_enforce_equal(gad_multieq_t *me, size_t num_bits, const cs_lc_t *lhs,
                               const cs_lc_t *rhs)
{
    multieq_make_room(me, num_bits);
    if (me->lcs) {
        CZ_CHECK((!lhs || lhs->gen == 0) && (!rhs || rhs->gen == 0));
        if (lhs) {
            cs_lc_add_lc(me->cs, &me->lhs, &me->coeff, lhs);
        }
        if (rhs) {
            cs_lc_add_lc(me->cs, &me->rhs, &me->coeff, rhs);
        }
    }
    multieq_advance(me, num_bits);
}

void gad_multieq_finish(gad_multieq_t *me)
{
    if (me->bits_used > 0) {
        multieq_flush(me);
    }
    cs_lc_clear(&me->lhs);
    cs_lc_clear(&me->rhs);
}

/* ------------------------------------------------------------------------------------------
 * UInt32
 * ---------------------------------------------------------------------------------------- */

void gad_u32_const(gad_u32_t *out, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++) {
        out->bits[i] = gad_bool_const((v >> i) & 1);
    }
    out->value = v;
}

void gad_u32_alloc(cs_t *cs, gad_u32_t *out, uint32_t v)
{
    bool bits[32];
    for (unsigned i = 0; i < 32; i++) {
        bits[i] = (v >> i) & 1;
    }
    gad_alloc_bits_m(cs, gad_mode(cs), out->bits, bits, 32, "allocated bit");
    out->value = v;
}

void gad_u32_from_bits_be(gad_u32_t *out, const gad_bool_t bits[32])
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++) {
        v = (v << 1) | bits[i].value;
    }
    for (unsigned i = 0; i < 32; i++) {
        out->bits[i] = bits[31 - i];
    }
    out->value = v;
}

void gad_u32_into_bits_be(gad_bool_t out[32], const gad_u32_t *a)
{
    for (unsigned i = 0; i < 32; i++) {
        out[i] = a->bits[31 - i];
    }
}

void gad_u32_from_bits(gad_u32_t *out, const gad_bool_t bits[32])
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++) {
        out->bits[i] = bits[i];
        v |= (uint32_t)bits[i].value << i;
    }
    out->value = v;
}

void gad_u32_rotr(gad_u32_t *out, const gad_u32_t *a, size_t by)
{
    by %= 32;
    CZ_CHECK(out != a);
    for (size_t i = 0; i < 32; i++) {
        out->bits[i] = a->bits[(i + by) % 32];
    }
    out->value = by ? (a->value >> by) | (a->value << (32 - by)) : a->value;
}

void gad_u32_shr(gad_u32_t *out, const gad_u32_t *a, size_t by)
{
    by %= 32;
    CZ_CHECK(out != a);
    for (size_t i = 0; i < 32; i++) {
        out->bits[i] = i + by < 32 ? a->bits[i + by] : gad_bool_const(false);
    }
    out->value = a->value >> by;
}

/* The end of a batched word (blind backends): bits[0 .. n) allocated with their constraints
 * (gad_alloc_bits_blind); bit i of the result takes the variable of bits[first[i]] (none when
 * first[i] is UINT8_MAX). */
static void word_finish(cs_t *cs, gad_u32_t *out, gad_bool_t r[32], const bool *bits, size_t n,
                        const uint8_t first[32])
{
    cs_var_t vars[64];

    gad_alloc_bits_blind(cs, vars, bits, n);
    for (unsigned i = 0; i < 32; i++) {
        if (first[i] != UINT8_MAX) {
            r[i].var = vars[first[i]];
        }
    }
    memcpy(out->bits, r, 32 * sizeof(r[0]));
}

/* out->bits = a->bits xor b->bits, batched: the variables, values and counts of 32
 * gad_bool_xor_m calls. */
static void u32_xor_blind(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b)
{
    gad_bool_t r[32];
    bool bits[32];
    uint8_t first[32];
    size_t n = 0;

    for (unsigned i = 0; i < 32; i++) {
        bool bit, negate;
        first[i] = UINT8_MAX;
        if (gad_xor_plan(a->bits[i], b->bits[i], &r[i], &bit, &negate)) {
            gad_bool_t t = {{0}, GAD_IS, (uint8_t)bit};
            r[i] = negate ? gad_bool_not(t) : t;
            first[i] = (uint8_t)n;
            bits[n++] = bit;
        }
    }
    word_finish(cs, out, r, bits, n, first);
}

void gad_u32_xor(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b)
{
    unsigned m = gad_mode(cs);
    bool lab = (m & GAD_M_LAB) != 0;
    uint32_t v = a->value ^ b->value;
    if (m & GAD_M_BLIND) {
        u32_xor_blind(cs, out, a, b);
        out->value = v;
        return;
    }
    for (unsigned i = 0; i < 32; i++) {
        GAD_NS_PUSHF(cs, lab, "xor of bit %u", i);
        out->bits[i] = gad_bool_xor_m(cs, m, a->bits[i], b->bits[i]);
        GAD_NS_POP(cs, lab);
    }
    out->value = v;
}

/* out->bits[i] = plan(a->bits[i], b->bits[i], c->bits[i]), batched: the variables, values and
 * counts of 32 ch or maj calls. */
static void u32_tri_blind(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b,
                          const gad_u32_t *c,
                          void (*plan)(gad_bit_plan *, gad_bool_t, gad_bool_t, gad_bool_t))
{
    gad_bool_t r[32];
    bool bits[64];
    uint8_t first[32];
    size_t n = 0;

    for (unsigned i = 0; i < 32; i++) {
        gad_bit_plan p;
        plan(&p, a->bits[i], b->bits[i], c->bits[i]);
        r[i] = p.r;
        first[i] = p.n ? (uint8_t)n : UINT8_MAX;
        for (unsigned j = 0; j < p.n; j++) {
            bits[n++] = p.bit[j];
        }
    }
    word_finish(cs, out, r, bits, n, first);
}

void gad_u32_sha256_ch(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b,
                       const gad_u32_t *c)
{
    unsigned m = gad_mode(cs);
    bool lab = (m & GAD_M_LAB) != 0;
    uint32_t v = (a->value & b->value) ^ (~a->value & c->value);
    if (m & GAD_M_BLIND) {
        u32_tri_blind(cs, out, a, b, c, gad_sha256_ch_plan);
        out->value = v;
        return;
    }
    for (unsigned i = 0; i < 32; i++) {
        GAD_NS_PUSHF(cs, lab, "ch %u", i);
        out->bits[i] = gad_bool_sha256_ch_m(cs, m, a->bits[i], b->bits[i], c->bits[i]);
        GAD_NS_POP(cs, lab);
    }
    out->value = v;
}

void gad_u32_sha256_maj(cs_t *cs, gad_u32_t *out, const gad_u32_t *a, const gad_u32_t *b,
                        const gad_u32_t *c)
{
    unsigned m = gad_mode(cs);
    bool lab = (m & GAD_M_LAB) != 0;
    uint32_t v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    if (m & GAD_M_BLIND) {
        u32_tri_blind(cs, out, a, b, c, gad_sha256_maj_plan);
        out->value = v;
        return;
    }
    for (unsigned i = 0; i < 32; i++) {
        GAD_NS_PUSHF(cs, lab, "maj %u", i);
        out->bits[i] = gad_bool_sha256_maj_m(cs, m, a->bits[i], b->bits[i], c->bits[i]);
        GAD_NS_POP(cs, lab);
    }
    out->value = v;
}

void gad_u32_addmany(gad_multieq_t *me, gad_u32_t *out, const gad_u32_t *const *ops, size_t n)
{
    cs_t *cs = me->cs;
    unsigned mode = gad_mode(cs);
    uint64_t sum = 0;
    bool all_constants = true;
    gad_bool_t res[36];

    CZ_CHECK(n >= 2 && n <= 10);
    for (size_t k = 0; k < n; k++) {
        sum += ops[k]->value;
        for (unsigned i = 0; i < 32 && all_constants; i++) {
            all_constants = ops[k]->bits[i].kind == GAD_CONST;
        }
    }
    if (all_constants) {
        gad_u32_const(out, (uint32_t)sum);
        return;
    }

    /* Result width: bitlength(n (2^32 - 1)). */
    uint64_t max = (uint64_t)n * UINT32_MAX;
    size_t m = 0;
    while (max) {
        m++;
        max >>= 1;
    }
    bool bits[36];
    for (size_t i = 0; i < m; i++) {
        bits[i] = (sum >> i) & 1;
    }
    gad_alloc_bits_m(cs, mode, res, bits, m, "result bit");

    /* MultiEq::enforce_equal(m, sum of operands, sum of result bits). */
    multieq_make_room(me, m);
    if (me->lcs) {
        for (size_t k = 0; k < n; k++) {
            gad_lc_add_bits(cs, &me->lhs, &me->coeff, ops[k]->bits, 32);
        }
        gad_lc_add_bits(cs, &me->rhs, &me->coeff, res, m);
    }
    multieq_advance(me, m);

    for (unsigned i = 0; i < 32; i++) {
        out->bits[i] = res[i];
    }
    out->value = (uint32_t)sum;
}
