/* test_boolean.c - Boolean, AllocatedBit, AllocatedNum and multipack gadgets.
 *
 * Expected result tags, values and constraint counts are transcribed from the reference tests
 * of bellpepper-core 0.2.0 (argumentcomputer/bellpepper tag 0.2.0,
 * crates/bellpepper-core/src/gadgets/{boolean,num}.rs: test_boolean_xor, test_boolean_and,
 * test_boolean_sha256_ch/maj, test_alloc_conditionally, test_u64_into_boolean_vec_le,
 * test_field_into_allocated_bits_le, test_into_bits, test_num_*), and bellperson 0.27
 * (filecoin-project/bellperson d1fa22cbed33ca5281a3c52ed8c91af5af64f3e3,
 * src/gadgets/multipack.rs test_multipacking). Every small gadget is enumerated over all
 * operand kinds and run through gu_soundness (no free wire) and the checker.
 */
#include "harness/test.h"

#include "gadgets/gadget_util.h"

/* OperandType of the reference tests. */
enum { T_TRUE, T_FALSE, T_ALLOC_TRUE, T_ALLOC_FALSE, T_NEG_TRUE, T_NEG_FALSE, T_COUNT };

static bool op_val(int op)
{
    return op == T_TRUE || op == T_ALLOC_TRUE || op == T_NEG_FALSE;
}

static bool op_const(int op)
{
    return op == T_TRUE || op == T_FALSE;
}

static gad_bool_t make_operand(cs_t *cs, int op)
{
    switch (op) {
    case T_TRUE:
        return gad_bool_const(true);
    case T_FALSE:
        return gad_bool_const(false);
    case T_ALLOC_TRUE:
        return gad_alloc_bit(cs, true);
    case T_ALLOC_FALSE:
        return gad_alloc_bit(cs, false);
    case T_NEG_TRUE:
        return gad_bool_not(gad_alloc_bit(cs, true));
    default:
        return gad_bool_not(gad_alloc_bit(cs, false));
    }
}

enum { OP_XOR, OP_AND, OP_CH, OP_MAJ };

typedef struct bool_ctx {
    int op;
    int ops[3];
    gad_bool_t result;
    size_t constraints_before;
} bool_ctx;

static void bool_synth(cs_t *cs, void *p)
{
    bool_ctx *c = p;
    gad_bool_t a = make_operand(cs, c->ops[0]);
    gad_bool_t b = make_operand(cs, c->ops[1]);
    gad_bool_t x = c->op >= OP_CH ? make_operand(cs, c->ops[2]) : gad_bool_const(false);
    cs_counts_t n;
    gu_inputs_done(cs);
    cs_get_counts(cs, &n);
    c->constraints_before = n.num_constraints;
    switch (c->op) {
    case OP_XOR:
        c->result = gad_bool_xor(cs, a, b);
        break;
    case OP_AND:
        c->result = gad_bool_and(cs, a, b);
        break;
    case OP_CH:
        c->result = gad_bool_sha256_ch(cs, a, b, x);
        break;
    default:
        c->result = gad_bool_sha256_maj(cs, a, b, x);
        break;
    }
}

/* 'C' constant, 'I' Is, 'N' Not; from test_boolean_xor / test_boolean_and. */
static const char XOR_KIND[T_COUNT][T_COUNT + 1] = {
    "CCNNII", "CCIINN", "NIIINN", "NIIINN", "INNNII", "INNNII",
};
static const char AND_KIND[T_COUNT][T_COUNT + 1] = {
    "CCIINN", "CCCCCC", "ICIIII", "ICIIII", "NCIIII", "NCIIII",
};

static char kind_char(gad_bool_t b)
{
    return b.kind == GAD_CONST ? 'C' : b.kind == GAD_IS ? 'I' : 'N';
}

static size_t count_after(bool_ctx *c)
{
    cs_counts_t n;
    gu_counts(&n, bool_synth, c);
    return n.num_constraints - c->constraints_before;
}

TEST(boolean_xor_and_all_operands)
{
    for (int op = OP_XOR; op <= OP_AND; op++) {
        for (int a = 0; a < T_COUNT; a++) {
            for (int b = 0; b < T_COUNT; b++) {
                bool_ctx c = {op, {a, b, 0}, {{0}, 0, 0}, 0};
                size_t extra = count_after(&c);
                bool want = op == OP_XOR ? op_val(a) ^ op_val(b) : (op_val(a) && op_val(b));
                char kind = op == OP_XOR ? XOR_KIND[a][b] : AND_KIND[a][b];
                CHECK_MSG(kind_char(c.result) == kind, "op %d (%d, %d): kind %c, want %c", op, a, b,
                          kind_char(c.result), kind);
                CHECK_EQ_U64(c.result.value, want);
                CHECK_EQ_U64(extra, kind == 'C' || op_const(a) || op_const(b) ? 0 : 1);
                gu_check_sat(bool_synth, &c);
                (void)gu_soundness(bool_synth, &c);
            }
        }
    }
}

TEST(boolean_ch_maj_all_operands)
{
    for (int op = OP_CH; op <= OP_MAJ; op++) {
        for (int a = 0; a < T_COUNT; a++) {
            for (int b = 0; b < T_COUNT; b++) {
                for (int x = 0; x < T_COUNT; x++) {
                    bool_ctx c = {op, {a, b, x}, {{0}, 0, 0}, 0};
                    size_t extra = count_after(&c);
                    bool va = op_val(a), vb = op_val(b), vc = op_val(x);
                    bool want =
                        op == OP_CH ? (va & vb) ^ (!va & vc) : (va & vb) ^ (va & vc) ^ (vb & vc);
                    CHECK_EQ_U64(c.result.value, want);
                    if (op_const(a) && op_const(b) && op_const(x)) {
                        CHECK(c.result.kind == GAD_CONST);
                        CHECK_EQ_U64(extra, 0);
                    } else if (!op_const(a) && !op_const(b) && !op_const(x)) {
                        /* general case: ch (1 alloc + 1 constraint), maj (2 + 2 with b and c) */
                        CHECK(c.result.kind == GAD_IS);
                        CHECK_EQ_U64(extra, op == OP_CH ? 1 : 2);
                    } else {
                        CHECK(extra <= 1);
                    }
                    gu_check_sat(bool_synth, &c);
                    (void)gu_soundness(bool_synth, &c);
                }
            }
        }
    }
}

/* Words whose bits run through every operand triple (216 of them, in 7 words), through the
 * word gadgets xor, ch, maj, addmany and alloc: a blind backend (witness, counter) takes their
 * batched path, the others the bit-by-bit one. */
#define WORDS 7

typedef struct word_ctx {
    bool alloc; /* also gad_u32_alloc, whose bits nothing else constrains (not for gu_soundness) */
    gad_u32_t out[5][WORDS];
    cs_counts_t n;
} word_ctx;

static void word_synth(cs_t *cs, void *p)
{
    word_ctx *c = p;
    gad_bool_t bits[3][32 * WORDS];

    for (int i = 0; i < 32 * WORDS; i++) {
        int combo = i % (T_COUNT * T_COUNT * T_COUNT);
        bits[0][i] = make_operand(cs, combo / (T_COUNT * T_COUNT));
        bits[1][i] = make_operand(cs, combo / T_COUNT % T_COUNT);
        bits[2][i] = make_operand(cs, combo % T_COUNT);
    }
    gu_inputs_done(cs);
    gad_multieq_t me;
    gad_multieq_init(&me, cs);
    for (int w = 0; w < WORDS; w++) {
        gad_u32_t a, b, x;
        gad_u32_from_bits(&a, &bits[0][32 * w]);
        gad_u32_from_bits(&b, &bits[1][32 * w]);
        gad_u32_from_bits(&x, &bits[2][32 * w]);
        gad_u32_xor(cs, &c->out[0][w], &a, &b);
        gad_u32_sha256_ch(cs, &c->out[1][w], &a, &b, &x);
        gad_u32_sha256_maj(cs, &c->out[2][w], &a, &b, &x);
        const gad_u32_t *ops[3] = {&a, &b, &x};
        gad_u32_addmany(&me, &c->out[3][w], ops, 3);
        if (c->alloc) {
            gad_u32_alloc(cs, &c->out[4][w], a.value ^ 0x5a5a5a5a);
        } else {
            c->out[4][w] = a;
        }
    }
    gad_multieq_finish(&me);
    cs_get_counts(cs, &c->n);
}

TEST(word_ops_batched_like_bitwise)
{
    word_ctx blind = {.alloc = true}, seen = {.alloc = true};
    cs_t *cs = NULL;

    CHECK_OK(cs_new_witness(&cs, NULL, NULL));
    CHECK(cs_blind(cs));
    word_synth(cs, &blind);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
    CHECK_OK(cs_new_checker(&cs, NULL));
    CHECK(!cs_blind(cs));
    word_synth(cs, &seen);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
    CHECK_EQ_U64(blind.n.num_aux, seen.n.num_aux);
    CHECK_EQ_U64(blind.n.num_constraints, seen.n.num_constraints);
    for (int k = 0; k < 5; k++) {
        for (int w = 0; w < WORDS; w++) {
            const gad_u32_t *x = &blind.out[k][w], *y = &seen.out[k][w];
            CHECK_EQ_U64(x->value, y->value);
            for (int i = 0; i < 32; i++) {
                /* each bit's value is the word's (computed on the integers) */
                CHECK_EQ_U64(x->bits[i].value, (x->value >> i) & 1);
                CHECK_MSG(x->bits[i].kind == y->bits[i].kind &&
                              x->bits[i].value == y->bits[i].value &&
                              x->bits[i].var.bits == y->bits[i].var.bits,
                          "gadget %d, word %d, bit %d", k, w, i);
            }
        }
    }
    gu_check_sat(word_synth, &seen);
    seen.alloc = false;
    (void)gu_soundness(word_synth, &seen);
}

/* Folding with one constant: the number of constraints of every mixed case, derived by hand
 * from the folding rules of spec 2.4 (a = Constant(true) alone is the general case for ch). */
TEST(boolean_ch_maj_folding_counts)
{
    for (int a = 0; a < T_COUNT; a++) {
        for (int b = 0; b < T_COUNT; b++) {
            for (int x = 0; x < T_COUNT; x++) {
                bool ca = op_const(a), cb = op_const(b), cx = op_const(x);
                int nconst = ca + cb + cx;
                if (nconst == 0 || nconst == 3) {
                    continue;
                }
                bool_ctx ch = {OP_CH, {a, b, x}, {{0}, 0, 0}, 0};
                bool_ctx mj = {OP_MAJ, {a, b, x}, {{0}, 0, 0}, 0};
                size_t n_ch = count_after(&ch), n_mj = count_after(&mj);
                size_t want_ch, want_mj;
                /* ch */
                if (a == T_FALSE) {
                    want_ch = 0; /* c */
                } else if (b == T_FALSE) {
                    want_ch = (ca || cx) ? 0 : 1; /* and(!a, c) */
                } else if (x == T_FALSE) {
                    want_ch = (ca || cb) ? 0 : 1; /* and(a, b) */
                } else if (x == T_TRUE) {
                    want_ch = (ca || cb) ? 0 : 1;
                } else if (b == T_TRUE) {
                    want_ch = (ca || cx) ? 0 : 1;
                } else {
                    want_ch = 1; /* a == true with b, c allocated: general */
                }
                /* maj */
                if (a == T_FALSE) {
                    want_mj = (cb || cx) ? 0 : 1;
                } else if (b == T_FALSE) {
                    want_mj = (ca || cx) ? 0 : 1;
                } else if (x == T_FALSE) {
                    want_mj = (ca || cb) ? 0 : 1;
                } else if (x == T_TRUE) {
                    want_mj = (ca || cb) ? 0 : 1;
                } else if (b == T_TRUE) {
                    want_mj = (ca || cx) ? 0 : 1;
                } else {
                    want_mj = (cb || cx) ? 0 : 1; /* a == true */
                }
                CHECK_MSG(n_ch == want_ch, "ch(%d,%d,%d): %zu constraints, want %zu", a, b, x, n_ch,
                          want_ch);
                CHECK_MSG(n_mj == want_mj, "maj(%d,%d,%d): %zu constraints, want %zu", a, b, x,
                          n_mj, want_mj);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Exact A/B/C of the primitive constraints (spec 2.2): recorded matrices, row by row.
 * ------------------------------------------------------------------------------------------- */

typedef struct term_want {
    char kind; /* 'I' input, 'A' aux */
    uint64_t index;
    int64_t coeff;
} term_want;

static void check_row(const cs_r1cs_t *r, const cs_matrix_t *m, size_t row, const term_want *want,
                      size_t n, const char *what)
{
    size_t len = m->row_ptr[row + 1] - m->row_ptr[row];
    CHECK_MSG(len == n, "%s: %zu terms, want %zu", what, len, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t col = want[i].kind == 'I' ? want[i].index : r->num_inputs + want[i].index;
        fr_t c;
        fr_from_u64(&c, (uint64_t)(want[i].coeff < 0 ? -want[i].coeff : want[i].coeff));
        if (want[i].coeff < 0) {
            fr_neg(&c, &c);
        }
        bool found = false;
        for (size_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
            if (m->col[k] == col) {
                found = fr_eq(&m->val[k], &c);
            }
        }
        CHECK_MSG(found, "%s: term %c%llu coeff %lld missing", what, want[i].kind,
                  (unsigned long long)want[i].index, (long long)want[i].coeff);
    }
}

typedef struct prim_ctx {
    int which;
} prim_ctx;

static void prim_synth(cs_t *cs, void *p)
{
    prim_ctx *c = p;
    gad_bool_t a = gad_alloc_bit(cs, true);  /* Aux(0), constraint 0 */
    gad_bool_t b = gad_alloc_bit(cs, false); /* Aux(1), constraint 1 */
    switch (c->which) {
    case 0:
        (void)gad_bit_xor(cs, a, b);
        break;
    case 1:
        (void)gad_bit_and(cs, a, b);
        break;
    case 2:
        (void)gad_bit_and_not(cs, a, b);
        break;
    case 3:
        (void)gad_bit_nor(cs, a, b);
        break;
    case 4:
        (void)gad_alloc_bit_cond(cs, false, a);
        break;
    case 5:
        (void)gad_bool_sha256_ch(cs, a, gad_bool_not(b), gad_alloc_bit(cs, true));
        break;
    default:
        (void)gad_bool_sha256_maj(cs, gad_bool_not(a), b, gad_alloc_bit(cs, true));
        break;
    }
}

static void record(cs_r1cs_t *r, gu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    memset(r, 0, sizeof(*r));
    CHECK_OK(cs_new_recorder(&cs, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_r1cs(cs, r, NULL));
    cs_free(cs);
}

TEST(boolean_primitive_layout)
{
    cs_r1cs_t r;
    /* booleanity of Aux(0): (ONE - x) * x = 0 */
    prim_ctx c0 = {0};
    record(&r, prim_synth, &c0);
    {
        term_want a[] = {{'I', 0, 1}, {'A', 0, -1}}, b[] = {{'A', 0, 1}};
        check_row(&r, &r.A, 0, a, 2, "booleanity A");
        check_row(&r, &r.B, 0, b, 1, "booleanity B");
        check_row(&r, &r.C, 0, NULL, 0, "booleanity C");
        /* xor: 2a * b = a + b - r, r = Aux(2) */
        term_want xa[] = {{'A', 0, 2}}, xb[] = {{'A', 1, 1}},
                  xc[] = {{'A', 0, 1}, {'A', 1, 1}, {'A', 2, -1}};
        check_row(&r, &r.A, 2, xa, 1, "xor A");
        check_row(&r, &r.B, 2, xb, 1, "xor B");
        check_row(&r, &r.C, 2, xc, 3, "xor C");
    }
    cs_r1cs_clear(&r);
    prim_ctx c1 = {1};
    record(&r, prim_synth, &c1);
    {
        term_want a[] = {{'A', 0, 1}}, b[] = {{'A', 1, 1}}, c[] = {{'A', 2, 1}};
        check_row(&r, &r.A, 2, a, 1, "and A");
        check_row(&r, &r.B, 2, b, 1, "and B");
        check_row(&r, &r.C, 2, c, 1, "and C");
    }
    cs_r1cs_clear(&r);
    prim_ctx c2 = {2};
    record(&r, prim_synth, &c2);
    {
        term_want a[] = {{'A', 0, 1}}, b[] = {{'I', 0, 1}, {'A', 1, -1}}, c[] = {{'A', 2, 1}};
        check_row(&r, &r.A, 2, a, 1, "and_not A");
        check_row(&r, &r.B, 2, b, 2, "and_not B");
        check_row(&r, &r.C, 2, c, 1, "and_not C");
    }
    cs_r1cs_clear(&r);
    prim_ctx c3 = {3};
    record(&r, prim_synth, &c3);
    {
        term_want a[] = {{'I', 0, 1}, {'A', 0, -1}}, b[] = {{'I', 0, 1}, {'A', 1, -1}},
                  c[] = {{'A', 2, 1}};
        check_row(&r, &r.A, 2, a, 2, "nor A");
        check_row(&r, &r.B, 2, b, 2, "nor B");
        check_row(&r, &r.C, 2, c, 1, "nor C");
    }
    cs_r1cs_clear(&r);
    prim_ctx c4 = {4};
    record(&r, prim_synth, &c4);
    {
        term_want a[] = {{'I', 0, 1}, {'A', 0, -1}, {'A', 2, -1}}, b[] = {{'A', 2, 1}};
        check_row(&r, &r.A, 2, a, 3, "alloc_conditionally A");
        check_row(&r, &r.B, 2, b, 1, "alloc_conditionally B");
        check_row(&r, &r.C, 2, NULL, 0, "alloc_conditionally C");
    }
    cs_r1cs_clear(&r);
    /* ch(a, Not(b), c): c = Aux(2) (row 2); ch = Aux(3): (lc(b') - c) * a = ch - c with
     * lc(Not b) = ONE - b. */
    prim_ctx c5 = {5};
    record(&r, prim_synth, &c5);
    {
        term_want a[] = {{'I', 0, 1}, {'A', 1, -1}, {'A', 2, -1}}, b[] = {{'A', 0, 1}},
                  c[] = {{'A', 3, 1}, {'A', 2, -1}};
        check_row(&r, &r.A, 3, a, 3, "ch A");
        check_row(&r, &r.B, 3, b, 1, "ch B");
        check_row(&r, &r.C, 3, c, 2, "ch C");
    }
    cs_r1cs_clear(&r);
    /* maj(Not(a), b, c): maj = Aux(3) first, then bc = and(b, c) = Aux(4) (row 3), then
     * (2 bc - b - c) * (ONE - a) = bc - maj (row 4). */
    prim_ctx c6 = {6};
    record(&r, prim_synth, &c6);
    {
        term_want bc_a[] = {{'A', 1, 1}}, bc_b[] = {{'A', 2, 1}}, bc_c[] = {{'A', 4, 1}};
        check_row(&r, &r.A, 3, bc_a, 1, "maj bc A");
        check_row(&r, &r.B, 3, bc_b, 1, "maj bc B");
        check_row(&r, &r.C, 3, bc_c, 1, "maj bc C");
        term_want a[] = {{'A', 4, 2}, {'A', 1, -1}, {'A', 2, -1}},
                  b[] = {{'I', 0, 1}, {'A', 0, -1}}, c[] = {{'A', 4, 1}, {'A', 3, -1}};
        check_row(&r, &r.A, 4, a, 3, "maj A");
        check_row(&r, &r.B, 4, b, 2, "maj B");
        check_row(&r, &r.C, 4, c, 2, "maj C");
    }
    cs_r1cs_clear(&r);
}

/* ---------------------------------------------------------------------------------------------
 * alloc_conditionally (test_alloc_conditionally)
 * ------------------------------------------------------------------------------------------- */

typedef struct cond_ctx {
    bool value, must;
} cond_ctx;

static void cond_synth(cs_t *cs, void *p)
{
    cond_ctx *c = p;
    gad_bool_t b = gad_alloc_bit(cs, c->must);
    (void)gad_alloc_bit_cond(cs, c->value, b);
}

TEST(alloc_conditionally)
{
    for (int v = 0; v < 2; v++) {
        for (int m = 0; m < 2; m++) {
            cond_ctx c = {v != 0, m != 0};
            if (v && m) {
                /* value true while must_be_false is true: unsatisfiable */
                (void)gu_check_unsat(cond_synth, &c);
            } else {
                gu_check_sat(cond_synth, &c);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Bit decompositions
 * ------------------------------------------------------------------------------------------- */

TEST(u64_into_boolean_vec_le)
{
    cs_t *cs = NULL;
    gad_bool_t bits[64];
    CHECK_OK(cs_new_checker(&cs, NULL));
    gad_u64_into_bits_le(cs, bits, UINT64_C(17234652694787248421));
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
    /* the reference asserts these (index 63 - k) */
    static const struct {
        unsigned k;
        bool v;
    } want[] = {{0, 1}, {1, 1}, {2, 1}, {3, 0}, {4, 1}, {5, 1}, {20, 1}, {21, 0}, {22, 0}};
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        CHECK_EQ_U64(bits[63 - want[i].k].value, want[i].v);
        CHECK(bits[63 - want[i].k].kind == GAD_IS);
    }
}

typedef struct bits_ctx {
    fr_t x;
    bool strict;
    gad_bool_t out[GAD_FR_BITS];
} bits_ctx;

static void bits_synth(cs_t *cs, void *p)
{
    bits_ctx *c = p;
    gad_num_t x;
    gad_num_alloc(cs, &x, &c->x);
    if (c->strict) {
        gad_num_to_bits_le_strict(cs, c->out, &x);
    } else {
        gad_num_to_bits_le(cs, c->out, &x);
    }
}

TEST(field_into_allocated_bits_le)
{
    /* 9147677615426976802526883532204139322118074541891858454835346926874644257775 */
    static const uint64_t limbs[4] = {0x363b4cc1a3211bef, 0x42e9aee8763a0979, 0x7f7a991e3585257a,
                                      0x143966ecc1a8456c};
    bits_ctx c;
    memset(&c, 0, sizeof(c));
    gu_fr_from_limbs(&c.x, limbs);
    GU_CHECK_COUNTS(bits_synth, &c, 1, 256, 256);
    gu_check_sat(bits_synth, &c);
    static const struct {
        unsigned k;
        bool v;
    } want[] = {{0, 0}, {1, 0}, {2, 1}, {3, 0}, {4, 1}, {5, 0}, {20, 1}, {23, 1}};
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        CHECK_EQ_U64(c.out[254 - want[i].k].value, want[i].v);
    }
    (void)gu_soundness(bits_synth, &c);
}

TEST(num_to_bits_le_random_and_edges)
{
    cz_prng *g = test_prng();
    bits_ctx c;
    memset(&c, 0, sizeof(c));
    for (int it = 0; it < 6; it++) {
        if (it == 0) {
            c.x = FR_ZERO;
        } else if (it == 1) {
            fr_neg(&c.x, &FR_ONE); /* r - 1: the largest element */
        } else {
            gu_rand_fr(&c.x, g);
        }
        for (int strict = 0; strict < 2; strict++) {
            c.strict = strict != 0;
            gu_check_sat(bits_synth, &c);
            fr_repr_t rep;
            fr_to_repr(&rep, &c.x);
            for (unsigned i = 0; i < GAD_FR_BITS; i++) {
                CHECK_EQ_U64(c.out[i].value, (rep.l[i / 64] >> (i % 64)) & 1);
                CHECK(c.out[i].kind == GAD_IS);
            }
            (void)gu_soundness(bits_synth, &c);
        }
    }
    /* strict: 255 bits + the k-ary ANDs over the runs of ones of r - 1 + unpacking. The
     * count is a property of r alone; recompute it from r's bits independently. */
    fr_t m1;
    fr_repr_t r;
    fr_neg(&m1, &FR_ONE);
    fr_to_repr(&r, &m1);
    size_t ands = 0, run = 0;
    bool have_last = false;
    for (int pos = 254; pos >= 0; pos--) {
        if ((r.l[pos / 64] >> (pos % 64)) & 1) {
            run++;
        } else if (run) {
            ands += run + (have_last ? 1 : 0) - 1;
            have_last = true;
            run = 0;
        }
    }
    c.strict = true;
    GU_CHECK_COUNTS(bits_synth, &c, 1, 1 + 255 + ands, 255 + ands + 1);
}

/* to_bits_le_strict must reject an encoding of x + r, which the non-strict form accepts: use
 * x = 1 with bits of 1 + r (< 2^255). We build the dishonest witness directly. */
typedef struct overflow_ctx {
    bool strict_like;
} overflow_ctx;

static void overflow_synth(cs_t *cs, void *p)
{
    (void)p;
    /* bits of 1 + r, then the non-strict unpacking: satisfiable in the field */
    static const uint64_t rl[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                   0x73eda753299d7d48};
    uint64_t v[4] = {rl[0] + 1, rl[1], rl[2], rl[3]};
    gad_num_t x;
    gad_bool_t bits[GAD_FR_BITS];
    gad_num_alloc(cs, &x, &FR_ONE);
    for (unsigned i = 0; i < GAD_FR_BITS; i++) {
        bits[i] = gad_alloc_bit(cs, (v[i / 64] >> (i % 64)) & 1);
    }
    cs_lc_t c = cs_lc(cs);
    if (cs_needs_lcs(cs)) {
        gad_lc_add_bits(cs, &c, NULL, bits, GAD_FR_BITS);
        cs_lc_sub_var(cs, &c, x.var);
    }
    (void)cs_enforce(cs, NULL, NULL, cs_needs_lcs(cs) ? &c : NULL, "unpacking constraint");
}

TEST(num_to_bits_non_strict_accepts_overflow)
{
    /* documents why the strict form exists; the non-strict one is what Filecoin uses */
    gu_check_sat(overflow_synth, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * AllocatedNum arithmetic (test_num_squaring, test_num_multiplication,
 * test_num_conditional_reversal, test_num_nonzero)
 * ------------------------------------------------------------------------------------------- */

typedef struct num_ctx {
    int which;
    uint64_t a, b;
    bool cond;
    gad_num_t out[2];
} num_ctx;

static void num_synth(cs_t *cs, void *p)
{
    num_ctx *c = p;
    fr_t av, bv;
    gad_num_t a, b;
    fr_from_u64(&av, c->a);
    fr_from_u64(&bv, c->b);
    gad_num_alloc(cs, &a, &av);
    gad_num_alloc(cs, &b, &bv);
    gu_inputs_done(cs);
    switch (c->which) {
    case 0:
        gad_num_square(cs, &c->out[0], &a);
        break;
    case 1:
        gad_num_mul(cs, &c->out[0], &a, &b);
        break;
    case 2: {
        gad_bool_t cond = gad_alloc_bit(cs, c->cond);
        gu_inputs_done(cs);
        gad_num_conditionally_reverse(cs, &c->out[0], &c->out[1], &a, &b, cond);
        break;
    }
    case 3:
        gad_num_assert_nonzero(cs, &a);
        break;
    default:
        gad_num_inputize(cs, &a);
        break;
    }
}

TEST(num_ops)
{
    fr_t want;
    num_ctx c = {0, 3, 0, false, {{{0}, {{0}}}, {{0}, {{0}}}}};
    GU_CHECK_COUNTS(num_synth, &c, 1, 3, 1);
    gu_check_sat(num_synth, &c);
    fr_from_u64(&want, 9);
    CHECK(fr_eq(&c.out[0].value, &want));
    (void)gu_soundness(num_synth, &c);

    c.which = 1;
    c.a = 12;
    c.b = 10;
    GU_CHECK_COUNTS(num_synth, &c, 1, 3, 1);
    gu_check_sat(num_synth, &c);
    fr_from_u64(&want, 120);
    CHECK(fr_eq(&c.out[0].value, &want));
    (void)gu_soundness(num_synth, &c);

    c.which = 2;
    c.a = 5;
    c.b = 7;
    for (int cond = 0; cond < 2; cond++) {
        c.cond = cond != 0;
        GU_CHECK_COUNTS(num_synth, &c, 1, 5, 3);
        gu_check_sat(num_synth, &c);
        fr_t a5, b7;
        fr_from_u64(&a5, 5);
        fr_from_u64(&b7, 7);
        CHECK(fr_eq(&c.out[0].value, cond ? &b7 : &a5));
        CHECK(fr_eq(&c.out[1].value, cond ? &a5 : &b7));
        (void)gu_soundness(num_synth, &c);
    }

    c.which = 3;
    c.a = 3;
    GU_CHECK_COUNTS(num_synth, &c, 1, 3, 1);
    gu_check_sat(num_synth, &c);
    (void)gu_soundness(num_synth, &c);
    c.a = 0; /* the reference fails synthesis (DivisionByZero) */
    {
        cs_t *cs = NULL;
        CHECK_OK(cs_new_checker(&cs, NULL));
        num_synth(cs, &c);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
        cs_free(cs);
    }

    c.which = 4;
    c.a = 77;
    GU_CHECK_COUNTS(num_synth, &c, 2, 2, 1);
    gu_check_sat(num_synth, &c);
    (void)gu_soundness(num_synth, &c);
}

/* ---------------------------------------------------------------------------------------------
 * multipack (test_multipacking): bits allocated, packed into inputs, inputs equal
 * compute_multipacking of the bit values. 0 .. 600 bits (the reference goes to 1500).
 * ------------------------------------------------------------------------------------------- */

typedef struct pack_ctx {
    size_t n;
    bool vals[1500];
    bool as_aux;
    gad_num_t packed;
} pack_ctx;

static void pack_synth(cs_t *cs, void *p)
{
    pack_ctx *c = p;
    gad_bool_t bits[1500];
    for (size_t i = 0; i < c->n; i++) {
        bits[i] = gad_alloc_bit(cs, c->vals[i]);
    }
    if (c->as_aux) {
        gu_inputs_done(cs); /* bits past 254 are not packed: free inputs */
        gad_pack_bits(cs, &c->packed, bits, c->n);
    } else {
        gad_pack_into_inputs(cs, bits, c->n);
    }
}

TEST(multipacking)
{
    cz_prng *g = test_prng();
    static pack_ctx c;
    static fr_t expect[8];
    for (size_t n = 0; n <= 600; n += (n < 260 ? 1 : 37)) {
        c.n = n;
        c.as_aux = false;
        for (size_t i = 0; i < n; i++) {
            c.vals[i] = cz_prng_u64(g) & 1;
        }
        size_t chunks = gad_compute_multipacking(expect, c.vals, n);
        CHECK_EQ_U64(chunks, (n + 253) / 254);
        GU_CHECK_COUNTS(pack_synth, &c, 1 + chunks, n, n + chunks);
        /* the witness backend's inputs are the packed values */
        cs_t *cs = NULL;
        cs_assignment_t asg;
        memset(&asg, 0, sizeof(asg));
        CHECK_OK(cs_new_witness(&cs, NULL, NULL));
        pack_synth(cs, &c);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_assignment(cs, &asg, NULL));
        cs_free(cs);
        CHECK_EQ_U64(asg.num_inputs, 1 + chunks);
        for (size_t k = 0; k < chunks; k++) {
            CHECK(fr_eq(&asg.inputs[1 + k], &expect[k]));
        }
        cs_assignment_clear(&asg);
        if (n % 50 == 3 || n == 254 || n == 255) {
            gu_check_sat(pack_synth, &c);
            (void)gu_soundness(pack_synth, &c);
        }
        /* pack_bits keeps the first 254 bits in one aux */
        c.as_aux = true;
        GU_CHECK_COUNTS(pack_synth, &c, 1, n + 1, n + 1);
        if (n == 300) {
            gu_check_sat(pack_synth, &c);
            CHECK(fr_eq(&c.packed.value, &expect[0]));
            (void)gu_soundness(pack_synth, &c);
        }
    }
    /* bytes_to_bits MSB first, bytes_to_bits_le LSB first */
    uint8_t byte = 0x96;
    bool be[8], le[8];
    gad_bytes_to_bits(be, &byte, 1);
    gad_bytes_to_bits_le(le, &byte, 1);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_U64(be[i], (0x96 >> (7 - i)) & 1);
        CHECK_EQ_U64(le[i], (0x96 >> i) & 1);
    }
}

/* Boolean::enforce_equal: every operand pair; unequal values must be rejected. */
typedef struct eq_ctx {
    int a, b;
} eq_ctx;

static void eq_synth(cs_t *cs, void *p)
{
    eq_ctx *c = p;
    gad_bool_t a = make_operand(cs, c->a), b = make_operand(cs, c->b);
    gad_bool_enforce_equal(cs, a, b);
}

TEST(boolean_enforce_equal)
{
    for (int a = 0; a < T_COUNT; a++) {
        for (int b = 0; b < T_COUNT; b++) {
            eq_ctx c = {a, b};
            if (op_val(a) == op_val(b)) {
                gu_check_sat(eq_synth, &c);
            } else if (op_const(a) && op_const(b)) {
                cs_t *cs = NULL;
                CHECK_OK(cs_new_checker(&cs, NULL));
                eq_synth(cs, &c);
                CHECK_ERR(cs_finish(cs, NULL), CUZK_E_UNSAT);
                cs_free(cs);
            } else {
                (void)gu_check_unsat(eq_synth, &c);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Exact A/B/C of the number gadgets (spec 2.5, 2.7; bellpepper-core num.rs, bellperson
 * multipack.rs): recorded rows.
 * ------------------------------------------------------------------------------------------- */

typedef struct lay_ctx {
    int which;
} lay_ctx;

static void lay_synth(cs_t *cs, void *p)
{
    lay_ctx *c = p;
    fr_t v5, v7;
    gad_num_t a, b, r1, r2;
    gad_bool_t bits[GAD_FR_BITS];
    fr_from_u64(&v5, 5);
    fr_from_u64(&v7, 7);
    gad_num_alloc(cs, &a, &v5); /* Aux(0) */
    gad_num_alloc(cs, &b, &v7); /* Aux(1) */
    switch (c->which) {
    case 0: { /* cond = Not(Aux(2)) (row 0); c = Aux(3) (row 1); d = Aux(4) (row 2) */
        gad_bool_t cond = gad_bool_not(gad_alloc_bit(cs, false));
        gad_num_conditionally_reverse(cs, &r1, &r2, &a, &b, cond);
        break;
    }
    case 1: /* bits Aux(1 + 1 + i), rows 0..254; unpacking row 255 */
        gad_num_to_bits_le(cs, bits, &b);
        break;
    case 2: /* 3 bits Aux(2..4), Not on the middle one; inputs 1 (row 3) */
        bits[0] = gad_alloc_bit(cs, true);
        bits[1] = gad_bool_not(gad_alloc_bit(cs, true));
        bits[2] = gad_bool_const(true);
        bits[3] = gad_alloc_bit(cs, false);
        gad_pack_into_inputs(cs, bits, 4);
        gad_pack_bits(cs, &r1, bits, 4); /* Aux(5), row 4 */
        break;
    case 3: /* inputize: Input(1), row 0; mul: Aux(2), row 1; square: Aux(3), row 2 */
        gad_num_inputize(cs, &a);
        gad_num_mul(cs, &r1, &a, &b);
        gad_num_square(cs, &r2, &b);
        break;
    default:
        break;
    }
}

TEST(num_layout)
{
    cs_r1cs_t r;
    lay_ctx c = {0};
    gu_record(&r, lay_synth, &c);
    {
        /* (a - b) * lc(cond) = a - c;  (b - a) * lc(cond) = b - d;  lc(Not x) = ONE - x */
        gu_term a1[] = {gu_aux(0, 1), gu_aux(1, -1)}, b1[] = {gu_in(0, 1), gu_aux(2, -1)},
                c1[] = {gu_aux(0, 1), gu_aux(3, -1)};
        gu_check_row(&r, &r.A, 1, a1, 2, "cond reverse 1 A");
        gu_check_row(&r, &r.B, 1, b1, 2, "cond reverse 1 B");
        gu_check_row(&r, &r.C, 1, c1, 2, "cond reverse 1 C");
        gu_term a2[] = {gu_aux(1, 1), gu_aux(0, -1)}, c2[] = {gu_aux(1, 1), gu_aux(4, -1)};
        gu_check_row(&r, &r.A, 2, a2, 2, "cond reverse 2 A");
        gu_check_row(&r, &r.B, 2, b1, 2, "cond reverse 2 B");
        gu_check_row(&r, &r.C, 2, c2, 2, "cond reverse 2 C");
    }
    cs_r1cs_clear(&r);
    c.which = 1;
    gu_record(&r, lay_synth, &c);
    {
        /* {} * {} = sum 2^i b_i - x */
        static gu_term cc[GAD_FR_BITS + 1];
        fr_t pw = FR_ONE;
        for (unsigned i = 0; i < GAD_FR_BITS; i++) {
            cc[i] = gu_aux_fr(2 + i, &pw);
            fr_dbl(&pw, &pw);
        }
        cc[GAD_FR_BITS] = gu_aux(1, -1);
        gu_check_row(&r, &r.A, 255, NULL, 0, "unpacking A");
        gu_check_row(&r, &r.B, 255, NULL, 0, "unpacking B");
        gu_check_row(&r, &r.C, 255, cc, GAD_FR_BITS + 1, "unpacking C");
    }
    cs_r1cs_clear(&r);
    c.which = 2;
    gu_record(&r, lay_synth, &c);
    {
        /* bits: Aux2 (1), Not Aux3 (2 ONE - 2 Aux3), true (4 ONE), Aux4 (8): ONE coeff 6 */
        gu_term a[] = {gu_aux(2, 1), gu_aux(3, -2), gu_in(0, 6), gu_aux(4, 8)};
        gu_term b[] = {gu_in(0, 1)}, ci[] = {gu_in(1, 1)}, ca[] = {gu_aux(5, 1)};
        gu_check_row(&r, &r.A, 3, a, 4, "pack_into_inputs A");
        gu_check_row(&r, &r.B, 3, b, 1, "pack_into_inputs B");
        gu_check_row(&r, &r.C, 3, ci, 1, "pack_into_inputs C");
        gu_check_row(&r, &r.A, 4, a, 4, "pack_bits A");
        gu_check_row(&r, &r.B, 4, b, 1, "pack_bits B");
        gu_check_row(&r, &r.C, 4, ca, 1, "pack_bits C");
    }
    cs_r1cs_clear(&r);
    c.which = 3;
    gu_record(&r, lay_synth, &c);
    {
        gu_term a0[] = {gu_in(1, 1)}, b0[] = {gu_in(0, 1)}, c0[] = {gu_aux(0, 1)};
        gu_check_row(&r, &r.A, 0, a0, 1, "inputize A");
        gu_check_row(&r, &r.B, 0, b0, 1, "inputize B");
        gu_check_row(&r, &r.C, 0, c0, 1, "inputize C");
        gu_term a1[] = {gu_aux(0, 1)}, b1[] = {gu_aux(1, 1)}, c1[] = {gu_aux(2, 1)};
        gu_check_row(&r, &r.A, 1, a1, 1, "mul A");
        gu_check_row(&r, &r.B, 1, b1, 1, "mul B");
        gu_check_row(&r, &r.C, 1, c1, 1, "mul C");
        gu_term a2[] = {gu_aux(1, 1)}, c2[] = {gu_aux(3, 1)};
        gu_check_row(&r, &r.A, 2, a2, 1, "square A");
        gu_check_row(&r, &r.B, 2, a2, 1, "square B");
        gu_check_row(&r, &r.C, 2, c2, 1, "square C");
    }
    cs_r1cs_clear(&r);
}
