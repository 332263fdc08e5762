/* insertion.c - pick, insert and select (storage-proofs-core gadgets/insertion.rs; spec
 * circuits.md 4.5). insert for 2, 4 and 8 elements uses the reference's hand-optimised pick
 * sequences (2, 8 and 22 constraints); other sizes select every position (n (n - 1)).
 */
#include "gadgets/gadgets.h"

#include "common/alloc.h"
#include "gadgets/internal.h"

#define STACK_ELEMS 64

void gad_pick(cs_t *cs, gad_num_t *out, gad_bool_t cond, const gad_num_t *a, const gad_num_t *b)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t c;

    GAD_NS_PUSH(cs, lab, "pick result");
    gad_num_alloc(cs, &c, cond.value ? &a->value : &b->value);
    GAD_NS_POP(cs, lab);
    if (cs_needs_lcs(cs)) {
        /* (b - a) * cond = b - c */
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        cs_lc_add_var(cs, &la, b->var);
        cs_lc_sub_var(cs, &la, a->var);
        gad_lc_add_bool(cs, &lb, NULL, cond);
        cs_lc_add_var(cs, &lc, b->var);
        cs_lc_sub_var(cs, &lc, c.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "pick");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "pick");
    }
    *out = c;
}

/* pick inside a namespace named after the reference's witness variable. */
static void wpick(cs_t *cs, bool lab, const char *name, gad_num_t *out, gad_bool_t cond,
                  const gad_num_t *a, const gad_num_t *b)
{
    GAD_NS_PUSH(cs, lab, name);
    gad_pick(cs, out, cond, a, b);
    GAD_NS_POP(cs, lab);
}

static void insert_2(cs_t *cs, bool lab, gad_num_t *out, const gad_num_t *a, const gad_bool_t *bits,
                     const gad_num_t *el)
{
    gad_num_t o0, o1;
    wpick(cs, lab, "binary insert 0", &o0, bits[0], &el[0], a);
    wpick(cs, lab, "binary insert 1", &o1, bits[0], a, &el[0]);
    out[0] = o0;
    out[1] = o1;
}

static void insert_4(cs_t *cs, bool lab, gad_num_t *out, const gad_num_t *a, const gad_bool_t *bits,
                     const gad_num_t *el)
{
    const gad_bool_t b0 = bits[0], b1 = bits[1];
    const gad_num_t *b = &el[0], *c = &el[1], *d = &el[2];
    gad_num_t x, p[4];

    /* p<pos>_<b1 b0 known bits>: x = unknown */
    wpick(cs, lab, "p0_x0", &x, b0, b, a);
    wpick(cs, lab, "p0", &p[0], b1, b, &x);
    wpick(cs, lab, "p1_x0", &x, b0, a, b);
    wpick(cs, lab, "p1", &p[1], b1, c, &x);
    wpick(cs, lab, "p2_x1", &x, b0, d, a);
    wpick(cs, lab, "p2", &p[2], b1, &x, c);
    wpick(cs, lab, "p3_x1", &x, b0, a, d);
    wpick(cs, lab, "p3", &p[3], b1, &x, d);
    for (unsigned i = 0; i < 4; i++) {
        out[i] = p[i];
    }
}

static void insert_8(cs_t *cs, bool lab, gad_num_t *out, const gad_num_t *a, const gad_bool_t *bits,
                     const gad_num_t *el)
{
    const gad_bool_t b0 = bits[0], b1 = bits[1], b2 = bits[2];
    const gad_num_t *b = &el[0], *c = &el[1], *d = &el[2], *e = &el[3], *f = &el[4], *g = &el[5],
                    *h = &el[6];
    gad_num_t x, y, p[8];

    /* The reference panics unless b0 and b1 are allocated, unnegated bits. */
    CZ_CHECK(b0.kind == GAD_IS && b1.kind == GAD_IS);
    GAD_NS_PUSH(cs, lab, "b0 nor b1");
    gad_bool_t nor = gad_bit_nor(cs, b0, b1);
    GAD_NS_POP(cs, lab);
    GAD_NS_PUSH(cs, lab, "b0 and b1");
    gad_bool_t and = gad_bit_and(cs, b0, b1);
    GAD_NS_POP(cs, lab);

    wpick(cs, lab, "p0_xx0", &x, nor, a, b);
    wpick(cs, lab, "p0", &p[0], b2, b, &x);

    wpick(cs, lab, "p1_x00", &x, b0, a, b);
    wpick(cs, lab, "p1_xx0", &y, b1, c, &x);
    wpick(cs, lab, "p1", &p[1], b2, c, &y);

    wpick(cs, lab, "p2_x10", &x, b0, d, a);
    wpick(cs, lab, "p2_xx0", &y, b1, &x, c);
    wpick(cs, lab, "p2", &p[2], b2, d, &y);

    wpick(cs, lab, "p3_xx0", &x, and, a, d);
    wpick(cs, lab, "p3", &p[3], b2, e, &x);

    wpick(cs, lab, "p4_xx1", &x, nor, a, f);
    wpick(cs, lab, "p4", &p[4], b2, &x, e);

    wpick(cs, lab, "p5_x01", &x, b0, a, f);
    wpick(cs, lab, "p5_xx1", &y, b1, g, &x);
    wpick(cs, lab, "p5", &p[5], b2, &y, f);

    wpick(cs, lab, "p6_x11", &x, b0, h, a);
    wpick(cs, lab, "p6_xx1", &y, b1, &x, g);
    wpick(cs, lab, "p6", &p[6], b2, &y, g);

    wpick(cs, lab, "p7_xx1", &x, and, a, h);
    wpick(cs, lab, "p7", &p[7], b2, &x, h);
    for (unsigned i = 0; i < 8; i++) {
        out[i] = p[i];
    }
}

/* Scratch of n numbers: on the stack up to STACK_ELEMS, else cz_malloc (NULL and a sticky
 * E_NOMEM on failure). */
static gad_num_t *scratch(cs_t *cs, gad_num_t *stack, size_t n)
{
    if (n <= STACK_ELEMS) {
        return stack;
    }
    gad_num_t *p = n <= SIZE_MAX / sizeof(gad_num_t) ? cz_malloc(n * sizeof(gad_num_t)) : NULL;
    if (!p) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "insertion scratch of %zu numbers", n);
    }
    return p;
}

static void scratch_free(gad_num_t *p, const gad_num_t *stack)
{
    if (p != stack) {
        cz_free(p);
    }
}

void gad_select(cs_t *cs, gad_num_t *out, const gad_num_t *from, const gad_bool_t *bits,
                size_t nbits)
{
    bool lab = cs_wants_labels(cs);
    gad_num_t stack[STACK_ELEMS];
    size_t size = (size_t)1 << nbits;

    CZ_CHECK(nbits < 8 * sizeof(size_t) - 1);
    gad_num_t *state = scratch(cs, stack, size);
    if (!state) {
        gad_num_alloc(cs, out, NULL);
        return;
    }
    for (size_t j = 0; j < size; j++) {
        state[j] = from[j];
    }
    /* Most significant bit first: state = [pick(bit, state[half + j], state[j])]. */
    size_t half = size / 2;
    for (size_t i = 0; i < nbits; i++, half /= 2) {
        gad_bool_t bit = bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            GAD_NS_PUSHF(cs, lab, "pick %zu, %zu", i, j);
            gad_pick(cs, &state[j], bit, &state[half + j], &state[j]);
            GAD_NS_POP(cs, lab);
        }
    }
    *out = state[0];
    scratch_free(state, stack);
}

void gad_insert(cs_t *cs, gad_num_t *out, const gad_num_t *element, const gad_bool_t *bits,
                size_t nbits, const gad_num_t *elements)
{
    bool lab = cs_wants_labels(cs);

    CZ_CHECK(nbits >= 1 && nbits < 8 * sizeof(size_t) - 1);
    switch (nbits) {
    case 1:
        insert_2(cs, lab, out, element, bits, elements);
        return;
    case 2:
        insert_4(cs, lab, out, element, bits, elements);
        return;
    case 3:
        insert_8(cs, lab, out, element, bits, elements);
        return;
    default:
        break;
    }
    /* General case: position pos of the result for insertion index k is elements[pos] when
     * pos < k, the element when pos == k, elements[pos - 1] when pos > k; select per position
     * over k. */
    size_t size = (size_t)1 << nbits;
    gad_num_t stack[STACK_ELEMS];
    gad_num_t *choices = scratch(cs, stack, size);
    if (!choices) {
        return;
    }
    for (size_t pos = 0; pos < size; pos++) {
        for (size_t k = 0; k < size; k++) {
            choices[k] = pos < k ? elements[pos] : pos == k ? *element : elements[pos - 1];
        }
        GAD_NS_PUSHF(cs, lab, "choice at %zu", pos);
        gad_select(cs, &out[pos], choices, bits, nbits);
        GAD_NS_POP(cs, lab);
    }
    scratch_free(choices, stack);
}
