/* test_r1cs.c - the constraint system and its backends.
 * Independent references: hand-computed a/b/c and densities for small circuits; a naive
 * evaluator in this file (direct sums over the unmerged terms, O(n^2) merge for densities) for
 * random circuits; the shape digests of tools/gen_vectors/gen_r1cs_digest.mjs (node, written
 * from bellpepper-core's test_cs.rs); sequential synthesis as the reference for cs_extend and
 * cs_fork / cs_join; hand-computed densities for a forked child that uses parent variables.
 */
#include "harness/test.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/pool.h"
#include "r1cs/r1cs.h"
#include "r1cs/asg_test_util.h"
#include "vectors/r1cs/r1cs_digest_vectors.h"

/* ------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------- */

static fr_t fu(uint64_t v)
{
    fr_t x;
    fr_from_u64(&x, v);
    return x;
}

static fr_t fneg(uint64_t v)
{
    fr_t x = fu(v);
    fr_neg(&x, &x);
    return x;
}

static fr_t frand(cz_prng *g)
{
    uint64_t w[4];
    fr_t x;
    for (int i = 0; i < 4; i++) {
        w[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(&x, w);
    return x;
}

#define CHECK_FR_EQ(a, b) CHECK_MEM_EQ((a), (b), sizeof(fr_t))

/* A random-circuit "program": the same operations replayed into any backend. */
typedef struct tterm {
    char op; /* '1' add_var, '-' sub_var, '+' add coeff */
    bool aux;
    bool par; /* index is a variable of the enclosing cs (global numbering), not a local one */
    uint32_t index;
    fr_t coeff;
} tterm;

typedef struct top {
    char kind; /* 'I', 'A', 'E' */
    size_t first, na, nb, nc;
} top;

typedef struct tprog {
    top *ops;
    size_t nops, ops_cap;
    tterm *terms;
    size_t nterms, terms_cap;
    fr_t *in_vals; /* local inputs 1.. (index 0 unused) */
    fr_t *aux_vals;
    size_t ni, na, nc;     /* ni includes the local ONE */
    size_t par_ni, par_na; /* enclosing variables the terms may use (0: none) */
} tprog;

static void prog_free(tprog *p)
{
    cz_free(p->ops);
    cz_free(p->terms);
    cz_free(p->in_vals);
    cz_free(p->aux_vals);
    memset(p, 0, sizeof(*p));
}

static top *prog_op(tprog *p)
{
    if (p->nops == p->ops_cap) {
        p->ops_cap = p->ops_cap ? 2 * p->ops_cap : 64;
        p->ops = cz_realloc(p->ops, p->ops_cap * sizeof(top));
        CHECK(p->ops);
    }
    return &p->ops[p->nops++];
}

static tterm *prog_term(tprog *p)
{
    if (p->nterms == p->terms_cap) {
        p->terms_cap = p->terms_cap ? 2 * p->terms_cap : 256;
        p->terms = cz_realloc(p->terms, p->terms_cap * sizeof(tterm));
        CHECK(p->terms);
    }
    return &p->terms[p->nterms++];
}

static void rand_lc(cz_prng *g, tprog *p, size_t *count)
{
    uint64_t shape = cz_prng_below(g, 10);
    size_t n = shape < 2 ? 0 : shape < 8 ? 1 + cz_prng_below(g, 4) : 17 + cz_prng_below(g, 80);
    size_t pool = n > 16 ? 3 + cz_prng_below(g, n) : SIZE_MAX;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        tterm t = {0};
        if (p->par_ni && cz_prng_below(g, 3) == 0) {
            t.par = true;
            t.aux = p->par_na > 0 && cz_prng_below(g, 4) != 0;
            t.index = (uint32_t)cz_prng_below(g, t.aux ? p->par_na : p->par_ni);
        } else {
            bool aux = p->na > 0 && cz_prng_below(g, 5) != 0;
            size_t lim = aux ? p->na : p->ni;
            if (lim > pool) {
                lim = pool;
            }
            t.aux = aux;
            t.index = (uint32_t)cz_prng_below(g, lim);
        }
        uint64_t r = cz_prng_below(g, 10);
        t.op = r < 4 ? '1' : r < 6 ? '-' : '+';
        t.coeff = r < 7 ? FR_ZERO : r < 8 ? fu(cz_prng_below(g, 1000)) : frand(g);
        *prog_term(p) = t;
        (*count)++;
        if (cz_prng_below(g, 6) == 0) { /* an exact cancellation partner */
            tterm u = t;
            if (t.op == '1') {
                u.op = '-';
            } else if (t.op == '-') {
                u.op = '1';
            } else {
                fr_neg(&u.coeff, &t.coeff);
            }
            *prog_term(p) = u;
            (*count)++;
        }
    }
}

/* A random program whose terms may also use the enclosing cs's first par_ni inputs and par_na
 * aux (global numbers). */
static void prog_random_par(cz_prng *g, tprog *p, size_t nops, size_t par_ni, size_t par_na)
{
    memset(p, 0, sizeof(*p));
    p->par_ni = par_ni;
    p->par_na = par_na;
    p->ni = 1;
    p->in_vals = cz_malloc((nops + 1) * sizeof(fr_t));
    p->aux_vals = cz_malloc((nops + 1) * sizeof(fr_t));
    CHECK(p->in_vals && p->aux_vals);
    p->in_vals[0] = FR_ONE;
    for (size_t k = 0; k < nops; k++) {
        uint64_t r = cz_prng_below(g, 10);
        top *o;
        if (r < 1) {
            o = prog_op(p);
            o->kind = 'I';
            p->in_vals[p->ni++] = cz_prng_below(g, 3) ? frand(g) : fu(cz_prng_below(g, 2));
        } else if (r < 4 || p->na == 0) {
            o = prog_op(p);
            o->kind = 'A';
            p->aux_vals[p->na++] = cz_prng_below(g, 3) ? frand(g) : fu(cz_prng_below(g, 2));
        } else {
            size_t first = p->nterms, na, nb, nc;
            rand_lc(g, p, &na);
            rand_lc(g, p, &nb);
            rand_lc(g, p, &nc);
            o = prog_op(p);
            o->kind = 'E';
            o->first = first;
            o->na = na;
            o->nb = nb;
            o->nc = nc;
            p->nc++;
        }
    }
}

static void prog_random(cz_prng *g, tprog *p, size_t nops)
{
    prog_random_par(g, p, nops, 0, 0);
}

/* The global variable of a program's local variable, given the bases it was replayed at. */
static cs_var_t map_var(const tterm *t, size_t in_base, size_t aux_base)
{
    if (t->par) {
        return t->aux ? cs_var_aux(t->index) : cs_var_input(t->index);
    }
    if (t->aux) {
        return cs_var_aux(aux_base + t->index);
    }
    return t->index == 0 ? CS_ONE : cs_var_input(in_base + t->index - 1);
}

static void build_lc(cs_t *cs, cs_lc_t *lc, const tterm *t, size_t n, size_t in_base,
                     size_t aux_base)
{
    for (size_t i = 0; i < n; i++) {
        cs_var_t v = map_var(&t[i], in_base, aux_base);
        if (t[i].op == '1') {
            cs_lc_add_var(cs, lc, v);
        } else if (t[i].op == '-') {
            cs_lc_sub_var(cs, lc, v);
        } else {
            cs_lc_add(cs, lc, &t[i].coeff, v);
        }
    }
}

/* Replays `p` into `cs`; local inputs >= 1 become global in_base.., aux aux_base.. (the bases
 * are the counts at the start when sequential, 1 and 0 for a fresh child), inside namespace
 * `ns` when non-NULL. False when an allocation fails or hands out another variable than the
 * bases predict. No CHECK inside: runs on pool threads too. */
static bool replay_ok(cs_t *cs, const tprog *p, size_t in_base, size_t aux_base, const char *ns)
{
    size_t ii = 1, ai = 0, ci = 0;
    bool ok = true;
    if (ns) {
        cs_push_ns(cs, ns);
    }
    for (size_t k = 0; k < p->nops; k++) {
        const top *o = &p->ops[k];
        cs_var_t v;
        if (o->kind == 'I') {
            ok = ok && cs_alloc_input(cs, &v, &p->in_vals[ii]) == CUZK_OK &&
                 v.bits == cs_var_input(in_base + ii - 1).bits;
            ii++;
        } else if (o->kind == 'A') {
            ok = ok && cs_alloc(cs, &v, &p->aux_vals[ai]) == CUZK_OK &&
                 v.bits == cs_var_aux(aux_base + ai).bits;
            ai++;
        } else {
            const tterm *t = &p->terms[o->first];
            cs_lc_t a = cs_lc(cs), b = cs_lc(cs), c = cs_lc(cs);
            if (cs_needs_lcs(cs)) {
                build_lc(cs, &a, t, o->na, in_base, aux_base);
                build_lc(cs, &b, t + o->na, o->nb, in_base, aux_base);
                build_lc(cs, &c, t + o->na + o->nb, o->nc, in_base, aux_base);
            }
            cs_push_nsf(cs, "c%zu", ci);
            cs_enforcef(cs, &a, &b, &c, "eq %zu", ci);
            cs_pop_ns(cs);
            ci++;
        }
    }
    if (ns) {
        cs_pop_ns(cs);
    }
    return ok;
}

static void replay(cs_t *cs, const tprog *p, size_t in_base, size_t aux_base, const char *ns)
{
    CHECK_MSG(replay_ok(cs, p, in_base, aux_base, ns), "replay into a %s cs", cs_kind_name(cs));
}

/* Naive reference: value of one LC (unmerged direct sum) over global values w_in/w_aux. */
static fr_t naive_eval(const tterm *t, size_t n, const fr_t *w_in, const fr_t *w_aux,
                       size_t in_base, size_t aux_base)
{
    fr_t acc = FR_ZERO;
    for (size_t i = 0; i < n; i++) {
        cs_var_t v = map_var(&t[i], in_base, aux_base);
        const fr_t *x = cs_var_is_aux(v) ? &w_aux[cs_var_index(v)] : &w_in[cs_var_index(v)];
        fr_t c = t[i].op == '1' ? FR_ONE : t[i].op == '-' ? fneg(1) : t[i].coeff;
        fr_t y;
        fr_mul(&y, &c, x);
        fr_add(&acc, &acc, &y);
    }
    return acc;
}

/* Naive density: sets bit of every variable whose summed coefficient is non-zero. */
static void naive_density(const tterm *t, size_t n, uint8_t *in_bits, uint8_t *aux_bits,
                          size_t in_base, size_t aux_base)
{
    for (size_t i = 0; i < n; i++) {
        cs_var_t v = map_var(&t[i], in_base, aux_base);
        fr_t sum = FR_ZERO;
        for (size_t j = 0; j < n; j++) {
            if (cs_var_eq(map_var(&t[j], in_base, aux_base), v)) {
                fr_t c = t[j].op == '1' ? FR_ONE : t[j].op == '-' ? fneg(1) : t[j].coeff;
                fr_add(&sum, &sum, &c);
            }
        }
        if (!fr_is_zero(&sum)) {
            uint8_t *bits = cs_var_is_aux(v) ? aux_bits : in_bits;
            if (bits) {
                bits[cs_var_index(v)] = 1;
            }
        }
    }
}

static void check_bitvec(const cs_bitvec_t *bv, const uint8_t *bits, size_t len)
{
    size_t pop = 0;
    CHECK_EQ_U64(bv->len, len);
    for (size_t i = 0; i < len; i++) {
        CHECK_MSG(cs_bitvec_get(bv, i) == (bits[i] != 0), "bit %zu", i);
        pop += bits[i] != 0;
    }
    CHECK_EQ_U64(bv->popcount, pop);
    if (len % 64) {
        CHECK_EQ_U64(bv->words[len / 64] >> (len % 64), 0);
    }
}

static void check_matrix_eq(const cs_matrix_t *x, const cs_matrix_t *y)
{
    CHECK_EQ_U64(x->rows, y->rows);
    CHECK_EQ_U64(x->nnz, y->nnz);
    CHECK_MEM_EQ(x->row_ptr, y->row_ptr, (x->rows + 1) * sizeof(size_t));
    if (x->nnz) {
        CHECK_MEM_EQ(x->col, y->col, x->nnz * sizeof(uint64_t));
        CHECK_MEM_EQ(x->val, y->val, x->nnz * sizeof(fr_t));
    }
}

/* ------------------------------------------------------------------------------------------
 * Linear combinations
 * ---------------------------------------------------------------------------------------- */

TEST(lc_merge_adds_coefficients)
{
    cs_t *cs;
    cs_var_t a, b;
    fr_t co;
    CHECK_OK(cs_new_counter(&cs, NULL));
    CHECK_OK(cs_alloc(cs, &a, NULL));
    CHECK_OK(cs_alloc(cs, &b, NULL));

    cs_lc_t lc = cs_lc(cs); /* a + a = 2a */
    cs_lc_add_var(cs, &lc, a);
    cs_lc_add_var(cs, &lc, a);
    CHECK(cs_lc_coeff(cs, &co, &lc, a));
    fr_t two = fu(2);
    CHECK_FR_EQ(&co, &two);
    CHECK_EQ_U64(cs_lc_merge(cs, &lc), 1);
    CHECK(cs_lc_coeff(cs, &co, &lc, a));
    CHECK_FR_EQ(&co, &two);
    CHECK(!cs_lc_coeff(cs, &co, &lc, b));
    CHECK(fr_is_zero(&co));

    cs_lc_t d = cs_lc(cs); /* a - a keeps a zero term; + 3b - 1b = 2b */
    fr_t three = fu(3);
    cs_lc_add_var(cs, &d, a);
    cs_lc_add(cs, &d, &three, b);
    cs_lc_sub_var(cs, &d, a);
    cs_lc_sub_var(cs, &d, b);
    CHECK_EQ_U64(cs_lc_merge(cs, &d), 2);
    CHECK(cs_lc_coeff(cs, &co, &d, a));
    CHECK(fr_is_zero(&co));
    CHECK(cs_lc_coeff(cs, &co, &d, b));
    CHECK_FR_EQ(&co, &two);

    /* lc += 5 * d and lc -= d (scaled merges through add_lc). */
    fr_t five = fu(5);
    cs_lc_add_lc(cs, &lc, &five, &d); /* 2a + 0a + 10b */
    cs_lc_sub_lc(cs, &lc, &d);        /* ... - 2b: 2a + 8b */
    cs_lc_add_lc(cs, &lc, NULL, &lc); /* doubling itself: 4a + 16b */
    CHECK(cs_lc_coeff(cs, &co, &lc, a));
    fr_t four = fu(4), sixteen = fu(16);
    CHECK_FR_EQ(&co, &four);
    CHECK(cs_lc_coeff(cs, &co, &lc, b));
    CHECK_FR_EQ(&co, &sixteen);
    CHECK_EQ_U64(cs_lc_merge(cs, &lc), 2);
    cs_free(cs);
}

/* Long LCs go through the hash merge; compare with a naive per-variable sum. */
TEST(lc_merge_long_random)
{
    cz_prng *g = test_prng();
    cs_t *cs;
    CHECK_OK(cs_new_counter(&cs, NULL));
    cs_var_t v;
    for (int i = 0; i < 64; i++) {
        CHECK_OK(cs_alloc(cs, &v, NULL));
        CHECK_OK(cs_alloc_input(cs, &v, NULL));
    }
    for (int rep = 0; rep < 50; rep++) {
        size_t n = 1 + cz_prng_below(g, 600), distinct = 1 + cz_prng_below(g, 60);
        fr_t want[2][64];
        bool seen[2][64] = {{false}};
        memset(want, 0, sizeof(want));
        cs_lc_t lc;
        bool heap = rep & 1;
        if (heap) {
            cs_lc_init(&lc);
        } else {
            lc = cs_lc(cs);
        }
        size_t nd = 0;
        for (size_t i = 0; i < n; i++) {
            int kind = (int)cz_prng_below(g, 2);
            size_t idx = (size_t)cz_prng_below(g, distinct);
            cs_var_t x = kind ? cs_var_aux(idx) : cs_var_input(idx);
            fr_t c = cz_prng_below(g, 2) ? frand(g) : fu(1);
            cs_lc_add(cs, &lc, &c, x);
            fr_add(&want[kind][idx], &want[kind][idx], &c);
            if (!seen[kind][idx]) {
                nd++;
            }
            seen[kind][idx] = true;
        }
        CHECK_EQ_U64(cs_lc_merge(cs, &lc), nd);
        for (int kind = 0; kind < 2; kind++) {
            for (size_t idx = 0; idx < 64; idx++) {
                fr_t co;
                cs_var_t x = kind ? cs_var_aux(idx) : cs_var_input(idx);
                CHECK(cs_lc_coeff(cs, &co, &lc, x) == seen[kind][idx]);
                CHECK_FR_EQ(&co, &want[kind][idx]);
            }
        }
        if (heap) {
            cs_lc_clear(&lc);
        }
        CHECK_OK(cs_enforce(cs, NULL, NULL, NULL, NULL)); /* resets the arena */
    }
    cs_free(cs);
}

/* A heap LC survives enforce; a big arena LC grows (in place or by moving) correctly. */
TEST(lc_heap_and_arena_growth)
{
    cs_t *cs;
    cs_var_t x, y;
    fr_t vx = fu(7), vy = fu(11), out;
    CHECK_OK(cs_new_prover(&cs, NULL, NULL));
    CHECK_OK(cs_alloc(cs, &x, &vx));
    CHECK_OK(cs_alloc(cs, &y, &vy));
    cs_lc_t acc;
    cs_lc_init(&acc);
    for (int k = 0; k < 3; k++) {
        cs_lc_add_var(cs, &acc, x);
        cs_lc_t a = cs_lc_of(cs, y), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, y);
        CHECK_OK(cs_enforce(cs, &a, &b, &c, "y = y"));
    }
    CHECK(cs_lc_eval(cs, &out, &acc));
    fr_t want = fu(21);
    CHECK_FR_EQ(&out, &want);
    /* Two interleaved big arena LCs: each growth of one moves it past the other. */
    cs_lc_t p = cs_lc(cs), q = cs_lc(cs);
    for (int i = 0; i < 5000; i++) {
        cs_lc_add_var(cs, &p, x);
        cs_lc_sub_var(cs, &q, y);
    }
    CHECK(cs_lc_eval(cs, &out, &p));
    want = fu(35000);
    CHECK_FR_EQ(&out, &want);
    CHECK(cs_lc_eval(cs, &out, &q));
    want = fneg(55000);
    CHECK_FR_EQ(&out, &want);
    CHECK_OK(cs_enforce(cs, &acc, NULL, NULL, "acc * 0 = 0"));
    cs_lc_reset(cs, &acc);
    CHECK_EQ_U64(acc.len, 0);
    cs_lc_clear(&acc);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
}

/* ------------------------------------------------------------------------------------------
 * Prover
 * ---------------------------------------------------------------------------------------- */

/* x = Input(1) = 3; a = Aux(0) = 5, b = Aux(1) = 1, c = Aux(2) = 15.
 *   0: a * x = c                          a=5  b=3  c=15
 *   1: b * (1 - b) = 0                    a=1  b=0  c=0
 *   2: (a + a + c - c) * ONE = 2a         a=10 b=1  c=10   (c cancels in A: not A-dense)
 *   3: ONE * (c - c + a) = a              a=1  b=5  c=5    (c cancels in B: not B-dense)
 *   4, 5: input constraints               a=1, 3; b = c = 0
 * a_aux_density = {0, 1}; b_input_density = {0, 1}; b_aux_density = {0, 1}. */
static void hand_circuit(cs_t *cs)
{
    fr_t three = fu(3), five = fu(5), one = fu(1), fifteen = fu(15);
    cs_var_t x, a, b, c;
    CHECK_OK(cs_alloc(cs, &a, &five));
    CHECK_OK(cs_alloc_input(cs, &x, &three));
    CHECK_OK(cs_alloc(cs, &b, &one));
    CHECK_OK(cs_alloc(cs, &c, &fifteen));

    cs_lc_t la = cs_lc_of(cs, a), lb = cs_lc_of(cs, x), lc = cs_lc_of(cs, c);
    CHECK_OK(cs_enforce(cs, &la, &lb, &lc, "mul"));

    la = cs_lc_of(cs, b);
    lb = cs_lc_of(cs, CS_ONE);
    cs_lc_sub_var(cs, &lb, b);
    CHECK_OK(cs_enforce(cs, &la, &lb, NULL, "bool"));

    la = cs_lc(cs);
    cs_lc_add_var(cs, &la, a);
    cs_lc_add_var(cs, &la, a);
    cs_lc_add_var(cs, &la, c);
    cs_lc_sub_var(cs, &la, c);
    lb = cs_lc_of(cs, CS_ONE);
    lc = cs_lc(cs);
    fr_t two = fu(2);
    cs_lc_add(cs, &lc, &two, a);
    CHECK_OK(cs_enforce(cs, &la, &lb, &lc, "double"));

    la = cs_lc_of(cs, CS_ONE);
    lb = cs_lc(cs);
    cs_lc_add_var(cs, &lb, c);
    cs_lc_sub_var(cs, &lb, c);
    cs_lc_add_var(cs, &lb, a);
    lc = cs_lc_of(cs, a);
    CHECK_OK(cs_enforce(cs, &la, &lb, &lc, "copy"));
}

TEST(prover_hand_circuit)
{
    cs_t *cs;
    cs_assignment_t asg;
    cs_counts_t n;
    CHECK_OK(cs_new_prover(&cs, NULL, NULL));
    CHECK(cs_needs_lcs(cs) && cs_has_values(cs) && !cs_wants_labels(cs));
    hand_circuit(cs);
    cs_get_counts(cs, &n);
    CHECK_EQ_U64(n.num_inputs, 2);
    CHECK_EQ_U64(n.num_aux, 3);
    CHECK_EQ_U64(n.num_constraints, 4);
    CHECK_ERR(cs_take_assignment(cs, &asg, NULL), CUZK_E_INVAL); /* not finished */
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_assignment_t again;
    CHECK_ERR(cs_take_assignment(cs, &again, NULL), CUZK_E_INVAL); /* already taken */
    cs_free(cs);

    static const uint64_t ea[6] = {5, 1, 10, 1, 1, 3}, eb[6] = {3, 0, 1, 5, 0, 0},
                          ec[6] = {15, 0, 10, 5, 0, 0};
    CHECK_EQ_U64(asg.m, 6);
    for (size_t j = 0; j < 6; j++) {
        fr_t x = fu(ea[j]), y = fu(eb[j]), z = fu(ec[j]);
        CHECK_MSG(fr_eq(&asg.a[j], &x) && fr_eq(&asg.b[j], &y) && fr_eq(&asg.c[j], &z), "row %zu",
                  j);
    }
    CHECK_EQ_U64(asg.num_inputs, 2);
    fr_t three = fu(3);
    CHECK_FR_EQ(&asg.inputs[0], &FR_ONE);
    CHECK_FR_EQ(&asg.inputs[1], &three);
    CHECK_EQ_U64(asg.num_aux, 3);
    static const uint8_t a_aux[3] = {1, 1, 0}, b_in[2] = {1, 1}, b_aux[3] = {1, 1, 0};
    check_bitvec(&asg.a_aux_density, a_aux, 3);
    check_bitvec(&asg.b_input_density, b_in, 2);
    check_bitvec(&asg.b_aux_density, b_aux, 3);
    CHECK_EQ_U64(asg.a_aux_density.words[0], 3);
    /* a, b, c: 6 values each, inputs 2, aux 3; one word per density */
    CHECK_EQ_U64(cs_assignment_bytes(&asg), (3 * 6 + 2 + 3) * sizeof(fr_t) + 3 * 8);
    cs_assignment_clear(&asg);
    CHECK(asg.a == NULL && asg.m == 0);
    CHECK_EQ_U64(cs_assignment_bytes(&asg), 0);
    cs_assignment_clear(&asg);
}

/* Random circuits: the prover equals the naive evaluation; the recorder's CSR times the
 * witness equals the prover's a, b, c; the witness backend + cs_r1cs_eval gives exactly the
 * prover's assignment; counter == recorder counts. */
TEST(backends_agree_random)
{
    cz_prng *g = test_prng();
    for (int rep = 0; rep < 40; rep++) {
        tprog p;
        prog_random(g, &p, 20 + cz_prng_below(g, 300));
        cs_t *pr, *rec, *cnt, *wit;
        CHECK_OK(cs_new_prover(&pr, rep & 1 ? &(cs_counts_t){p.ni, p.na, p.nc} : NULL, NULL));
        CHECK_OK(cs_new_recorder(&rec, NULL));
        CHECK_OK(cs_new_counter(&cnt, NULL));
        CHECK_OK(cs_new_witness(&wit, NULL, NULL));
        CHECK(!cs_needs_lcs(wit) && !cs_needs_lcs(cnt));
        replay(pr, &p, 1, 0, NULL);
        replay(rec, &p, 1, 0, "top");
        replay(cnt, &p, 1, 0, NULL);
        replay(wit, &p, 1, 0, NULL);
        CHECK_OK(cs_finish(pr, NULL));
        CHECK_OK(cs_finish(rec, NULL));
        CHECK_OK(cs_finish(cnt, NULL));
        CHECK_OK(cs_finish(wit, NULL));

        cs_assignment_t asg, wasg;
        cs_r1cs_t r1cs;
        cs_counts_t nc;
        CHECK_OK(cs_take_assignment(pr, &asg, NULL));
        CHECK_OK(cs_take_r1cs(rec, &r1cs, NULL));
        CHECK_OK(cs_take_assignment(wit, &wasg, NULL));
        cs_get_counts(cnt, &nc);
        CHECK_EQ_U64(nc.num_inputs, p.ni);
        CHECK_EQ_U64(nc.num_aux, p.na);
        CHECK_EQ_U64(nc.num_constraints, p.nc);
        CHECK_EQ_U64(r1cs.num_inputs, p.ni);
        CHECK_EQ_U64(r1cs.num_aux, p.na);
        CHECK_EQ_U64(r1cs.num_constraints, p.nc);
        size_t m = p.nc + p.ni;
        CHECK_EQ_U64(asg.m, m);
        CHECK_MEM_EQ(asg.inputs, p.in_vals, p.ni * sizeof(fr_t));

        /* Naive a, b, c and densities. */
        uint8_t *a_aux = cz_calloc(p.na + 1, 1), *b_in = cz_calloc(p.ni, 1),
                *b_aux = cz_calloc(p.na + 1, 1);
        CHECK(a_aux && b_in && b_aux);
        size_t j = 0;
        for (size_t k = 0; k < p.nops; k++) {
            const top *o = &p.ops[k];
            if (o->kind != 'E') {
                continue;
            }
            const tterm *t = &p.terms[o->first];
            fr_t ea = naive_eval(t, o->na, p.in_vals, p.aux_vals, 1, 0);
            fr_t eb = naive_eval(t + o->na, o->nb, p.in_vals, p.aux_vals, 1, 0);
            fr_t ec = naive_eval(t + o->na + o->nb, o->nc, p.in_vals, p.aux_vals, 1, 0);
            CHECK_MSG(fr_eq(&asg.a[j], &ea), "a[%zu]", j);
            CHECK_MSG(fr_eq(&asg.b[j], &eb), "b[%zu]", j);
            CHECK_MSG(fr_eq(&asg.c[j], &ec), "c[%zu]", j);
            naive_density(t, o->na, NULL, a_aux, 1, 0);
            naive_density(t + o->na, o->nb, b_in, b_aux, 1, 0);
            j++;
        }
        for (size_t i = 0; i < p.ni; i++) { /* the input constraints, last */
            CHECK_FR_EQ(&asg.a[p.nc + i], &p.in_vals[i]);
            CHECK(fr_is_zero(&asg.b[p.nc + i]) && fr_is_zero(&asg.c[p.nc + i]));
        }
        check_bitvec(&asg.a_aux_density, a_aux, p.na);
        check_bitvec(&asg.b_input_density, b_in, p.ni);
        check_bitvec(&asg.b_aux_density, b_aux, p.na);

        /* CSR: shape, sorted rows, no zero values, and A w = a etc. */
        const cs_matrix_t *mats[3] = {&r1cs.A, &r1cs.B, &r1cs.C};
        const fr_t *vecs[3] = {asg.a, asg.b, asg.c};
        fr_t *out = cz_malloc(m * sizeof(fr_t));
        CHECK(out);
        for (int k = 0; k < 3; k++) {
            const cs_matrix_t *mx = mats[k];
            CHECK_EQ_U64(mx->rows, m);
            CHECK_EQ_U64(mx->row_ptr[0], 0);
            CHECK_EQ_U64(mx->row_ptr[m], mx->nnz);
            for (size_t r = 0; r < m; r++) {
                for (size_t z = mx->row_ptr[r]; z < mx->row_ptr[r + 1]; z++) {
                    CHECK(mx->col[z] < p.ni + p.na);
                    CHECK(!fr_is_zero(&mx->val[z]));
                    CHECK(z == mx->row_ptr[r] || mx->col[z - 1] < mx->col[z]);
                }
            }
            cs_matrix_mul(mx, out, p.in_vals, p.ni, p.aux_vals, NULL);
            CHECK_MEM_EQ(out, vecs[k], m * sizeof(fr_t));
        }
        for (size_t i = 0; i < p.ni; i++) { /* input rows: A = {Input(i): 1}, B = C = {} */
            size_t r = p.nc + i;
            CHECK_EQ_U64(r1cs.A.row_ptr[r + 1] - r1cs.A.row_ptr[r], 1);
            CHECK_EQ_U64(r1cs.A.col[r1cs.A.row_ptr[r]], i);
            CHECK_FR_EQ(&r1cs.A.val[r1cs.A.row_ptr[r]], &FR_ONE);
            CHECK_EQ_U64(r1cs.B.row_ptr[r + 1] - r1cs.B.row_ptr[r], 0);
            CHECK_EQ_U64(r1cs.C.row_ptr[r + 1] - r1cs.C.row_ptr[r], 0);
        }
        cz_free(out);

        /* Witness-only mode. */
        CHECK(wasg.a == NULL && wasg.m == 0);
        CHECK_OK(cs_r1cs_eval(&r1cs, &wasg, NULL, NULL));
        cst_check_asg_eq(&wasg, &asg);
        CHECK_ERR(cs_r1cs_eval(&r1cs, &wasg, NULL, NULL), CUZK_E_INVAL);

        cz_free(a_aux);
        cz_free(b_in);
        cz_free(b_aux);
        cs_assignment_clear(&asg);
        cs_assignment_clear(&wasg);
        cs_r1cs_clear(&r1cs);
        cs_free(pr);
        cs_free(rec);
        cs_free(cnt);
        cs_free(wit);
        prog_free(&p);
    }
}

TEST(r1cs_eval_with_pool)
{
    cz_prng *g = test_prng();
    cz_pool *pool;
    tprog p;
    cs_t *pr, *rec, *wit;
    cs_assignment_t asg, wasg;
    cs_r1cs_t r1cs;
    CHECK_OK(cz_pool_new(&pool, 1, "test-r1cs", NULL));
    prog_random(g, &p, 30000);
    CHECK_OK(cs_new_prover(&pr, NULL, NULL));
    CHECK_OK(cs_new_recorder(&rec, NULL));
    CHECK_OK(cs_new_witness(&wit, NULL, NULL));
    replay(pr, &p, 1, 0, NULL);
    replay(rec, &p, 1, 0, NULL);
    replay(wit, &p, 1, 0, NULL);
    CHECK_OK(cs_finish(pr, NULL));
    CHECK_OK(cs_finish(rec, NULL));
    CHECK_OK(cs_finish(wit, NULL));
    CHECK_OK(cs_take_assignment(pr, &asg, NULL));
    CHECK_OK(cs_take_r1cs(rec, &r1cs, NULL));
    CHECK_OK(cs_take_assignment(wit, &wasg, NULL));
    CHECK_OK(cs_r1cs_eval(&r1cs, &wasg, pool, NULL));
    cst_check_asg_eq(&wasg, &asg);
    cs_assignment_clear(&asg);
    cs_assignment_clear(&wasg);
    cs_r1cs_clear(&r1cs);
    cs_free(pr);
    cs_free(rec);
    cs_free(wit);
    prog_free(&p);
    cz_pool_free(pool);
}

/* ------------------------------------------------------------------------------------------
 * Checker
 * ---------------------------------------------------------------------------------------- */

TEST(checker_names_first_failure)
{
    cs_t *cs;
    cz_diag dg;
    size_t idx;
    CHECK_OK(cs_new_checker(&cs, NULL));
    CHECK(cs_wants_labels(cs));
    hand_circuit(cs); /* satisfied */
    CHECK(cs_unsat_path(cs, &idx) == NULL);

    fr_t two = fu(2), four = fu(4), five = fu(5);
    cs_var_t x, y, z;
    cs_push_ns(cs, "outer");
    cs_push_nsf(cs, "inner %d", 7);
    CHECK_OK(cs_alloc(cs, &x, &two));
    CHECK_OK(cs_alloc(cs, &y, &two));
    CHECK_OK(cs_alloc(cs, &z, &five));
    cs_lc_t a = cs_lc_of(cs, x), b = cs_lc_of(cs, y), c = cs_lc_of(cs, z);
    CHECK_OK(cs_enforcef(cs, &a, &b, &c, "square %s", "bad")); /* 2 * 2 != 5: constraint 4 */
    cs_pop_ns(cs);
    a = cs_lc_of(cs, x);
    b = cs_lc_of(cs, CS_ONE);
    c = cs_lc_of(cs, z);
    CHECK_OK(cs_enforce(cs, &a, &b, &c, "second")); /* also false, but not the first */
    cs_pop_ns(cs);
    a = cs_lc_of(cs, x);
    b = cs_lc_of(cs, y);
    c = cs_lc(cs);
    cs_lc_add(cs, &c, &four, CS_ONE);
    CHECK_OK(cs_enforce(cs, &a, &b, &c, "fine"));

    const char *path = cs_unsat_path(cs, &idx);
    CHECK(path != NULL);
    CHECK_STR_EQ(path, "outer/inner 7/square bad");
    CHECK_EQ_U64(idx, 4);
    cz_diag_init(&dg);
    CHECK_ERR(cs_finish(cs, &dg), CUZK_E_UNSAT);
    CHECK(strstr(dg.msg, "outer/inner 7/square bad") != NULL);
    CHECK(strstr(dg.msg, "constraint 4") != NULL);
    cs_free(cs);
}

TEST(checker_satisfied_and_sticky_errors)
{
    cs_t *cs;
    cz_diag dg;
    cs_var_t v;
    CHECK_OK(cs_new_checker(&cs, NULL));
    hand_circuit(cs);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);

    /* A missing value in a backend that keeps values is a sticky E_INVAL. */
    CHECK_OK(cs_new_prover(&cs, NULL, NULL));
    CHECK_ERR(cs_alloc(cs, &v, NULL), CUZK_E_INVAL);
    fr_t one = FR_ONE;
    CHECK_ERR(cs_alloc(cs, &v, &one), CUZK_E_INVAL);
    CHECK_ERR(cs_enforce(cs, NULL, NULL, NULL, "x"), CUZK_E_INVAL);
    cz_diag_init(&dg);
    CHECK_ERR(cs_finish(cs, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "value missing") != NULL);
    cs_free(cs);

    /* A constraint over a variable never allocated. */
    CHECK_OK(cs_new_recorder(&cs, NULL));
    cs_lc_t a = cs_lc_of(cs, cs_var_aux(3));
    CHECK_ERR(cs_enforce(cs, &a, NULL, NULL, "x"), CUZK_E_INVAL);
    CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
    cs_free(cs);

    /* A gadget failure, and a namespace name with '/'. */
    CHECK_OK(cs_new_counter(&cs, NULL));
    CHECK_ERR(cs_fail(cs, CUZK_E_INVAL, "gadget says %d", 42), CUZK_E_INVAL);
    CHECK_ERR(cs_status(cs), CUZK_E_INVAL);
    cz_diag_init(&dg);
    CHECK_ERR(cs_finish(cs, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "gadget says 42") != NULL);
    cs_free(cs);
    CHECK_OK(cs_new_checker(&cs, NULL));
    cs_push_ns(cs, "a/b");
    cs_pop_ns(cs);
    CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
    cs_free(cs);
}

/* ------------------------------------------------------------------------------------------
 * Shape digest
 * ---------------------------------------------------------------------------------------- */

static void replay_vector(cs_t *cs, const struct r1cs_dg_circuit *v)
{
    fr_t zero = FR_ZERO;
    for (size_t k = 0; k < v->nops; k++) {
        const struct r1cs_dg_op *o = &v->ops[k];
        cs_var_t x;
        if (o->kind == 'I') {
            CHECK_OK(cs_alloc_input(cs, &x, &zero));
        } else if (o->kind == 'A') {
            CHECK_OK(cs_alloc(cs, &x, &zero));
        } else {
            cs_lc_t lcs[3] = {cs_lc(cs), cs_lc(cs), cs_lc(cs)};
            unsigned counts[3] = {o->na, o->nb, o->nc};
            const struct r1cs_dg_term *t = &v->terms[o->first];
            for (int w = 0; w < 3; w++) {
                for (unsigned i = 0; i < counts[w]; i++, t++) {
                    cs_var_t var = t->kind == 'A' ? cs_var_aux(t->index) : cs_var_input(t->index);
                    if (t->op == '1') {
                        cs_lc_add_var(cs, &lcs[w], var);
                    } else if (t->op == '-') {
                        cs_lc_sub_var(cs, &lcs[w], var);
                    } else {
                        uint8_t b[32];
                        fr_t c;
                        CHECK(cz_hex_decode(b, 32, t->coeff));
                        CHECK_OK(fr_from_bytes(&c, b));
                        cs_lc_add(cs, &lcs[w], &c, var);
                    }
                }
            }
            CHECK_OK(cs_enforce(cs, &lcs[0], &lcs[1], &lcs[2], "e"));
        }
    }
}

TEST(digest_known_answers)
{
    for (size_t i = 0; i < ARRAY_LEN(r1cs_dg_circuits); i++) {
        const struct r1cs_dg_circuit *v = &r1cs_dg_circuits[i];
        cs_counts_t want = {v->num_inputs, v->num_aux, v->num_constraints}, got;
        char hex[65];
        cs_t *cs;

        /* Buffered (counts unknown up front). */
        CHECK_OK(cs_new_digest(&cs, NULL, NULL));
        CHECK(!cs_can_extend(cs));
        replay_vector(cs, v);
        CHECK(!cs_digest_hex(cs, hex)); /* not finished */
        CHECK_OK(cs_finish(cs, NULL));
        cs_get_counts(cs, &got);
        CHECK_EQ_U64(got.num_inputs, want.num_inputs);
        CHECK_EQ_U64(got.num_aux, want.num_aux);
        CHECK_EQ_U64(got.num_constraints, want.num_constraints);
        CHECK(cs_digest_hex(cs, hex));
        CHECK_MSG(strcmp(hex, v->digest) == 0, "%s: %s != %s", v->name, hex, v->digest);
        cs_free(cs);

        /* Streaming with declared counts. */
        CHECK_OK(cs_new_digest(&cs, &want, NULL));
        replay_vector(cs, v);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK(cs_digest_hex(cs, hex));
        CHECK_MSG(strcmp(hex, v->digest) == 0, "%s streaming: %s", v->name, hex);
        cs_free(cs);

        /* Declared counts that are wrong. */
        cs_counts_t bad = want;
        bad.num_aux++;
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_OK(cs_new_digest(&cs, &bad, NULL));
        replay_vector(cs, v);
        CHECK_ERR(cs_finish(cs, &dg), CUZK_E_INVAL);
        CHECK(!cs_digest_hex(cs, hex));
        cs_free(cs);

        /* The counter agrees with the declared counts. */
        CHECK_OK(cs_new_counter(&cs, NULL));
        replay_vector(cs, v);
        CHECK_OK(cs_finish(cs, NULL));
        cs_get_counts(cs, &got);
        CHECK_EQ_U64(got.num_inputs, want.num_inputs);
        CHECK_EQ_U64(got.num_aux, want.num_aux);
        CHECK_EQ_U64(got.num_constraints, want.num_constraints);
        cs_free(cs);
    }
}

/* ------------------------------------------------------------------------------------------
 * Extend
 * ---------------------------------------------------------------------------------------- */

typedef cuzk_err (*cs_ctor)(cs_t **out);

static cuzk_err mk_prover(cs_t **out)
{
    return cs_new_prover(out, NULL, NULL);
}
static cuzk_err mk_witness(cs_t **out)
{
    return cs_new_witness(out, NULL, NULL);
}
static cuzk_err mk_counter(cs_t **out)
{
    return cs_new_counter(out, NULL);
}
static cuzk_err mk_checker(cs_t **out)
{
    return cs_new_checker(out, NULL);
}
static cuzk_err mk_recorder(cs_t **out)
{
    return cs_new_recorder(out, NULL);
}

/* The same result from two cs of backend number b (see the ctors table) synthesized
 * differently: counts, finish status, and every result (byte-identical). */
static void check_same_result(int b, cs_t *seq, cs_t *par)
{
    cs_counts_t ns, np;
    cs_get_counts(seq, &ns);
    cs_get_counts(par, &np);
    CHECK_EQ_U64(ns.num_inputs, np.num_inputs);
    CHECK_EQ_U64(ns.num_aux, np.num_aux);
    CHECK_EQ_U64(ns.num_constraints, np.num_constraints);
    if (b == 3) { /* checker: random values fail; the same first failure */
        size_t is, ip;
        const char *ps = cs_unsat_path(seq, &is), *pp = cs_unsat_path(par, &ip);
        CHECK((ps == NULL) == (pp == NULL));
        if (ps) {
            CHECK_EQ_U64(is, ip);
            CHECK_STR_EQ(ps, pp);
        }
        CHECK_ERR(cs_finish(seq, NULL), ps ? CUZK_E_UNSAT : CUZK_OK);
        CHECK_ERR(cs_finish(par, NULL), ps ? CUZK_E_UNSAT : CUZK_OK);
        return;
    }
    CHECK_OK(cs_finish(seq, NULL));
    CHECK_OK(cs_finish(par, NULL));
    if (b == 0 || b == 1) {
        cs_assignment_t x, y;
        CHECK_OK(cs_take_assignment(seq, &x, NULL));
        CHECK_OK(cs_take_assignment(par, &y, NULL));
        if (b == 0) {
            cst_check_asg_eq(&x, &y);
        } else {
            CHECK_EQ_U64(x.num_inputs, y.num_inputs);
            CHECK_MEM_EQ(x.inputs, y.inputs, x.num_inputs * sizeof(fr_t));
            CHECK_EQ_U64(x.num_aux, y.num_aux);
            if (x.num_aux) {
                CHECK_MEM_EQ(x.aux, y.aux, x.num_aux * sizeof(fr_t));
            }
        }
        cs_assignment_clear(&x);
        cs_assignment_clear(&y);
    } else if (b == 4) {
        cs_r1cs_t x, y;
        CHECK_OK(cs_take_r1cs(seq, &x, NULL));
        CHECK_OK(cs_take_r1cs(par, &y, NULL));
        CHECK_EQ_U64(x.num_inputs, y.num_inputs);
        CHECK_EQ_U64(x.num_aux, y.num_aux);
        check_matrix_eq(&x.A, &y.A);
        check_matrix_eq(&x.B, &y.B);
        check_matrix_eq(&x.C, &y.C);
        cs_r1cs_clear(&x);
        cs_r1cs_clear(&y);
    }
}

/* Runs `parts` (the first belongs to the parent itself; the others are children) either
 * sequentially in one cs or in children joined by cs_extend, inside a namespace. */
static cs_t *run_parts(cs_ctor mk, const tprog *parts, size_t nparts, bool parallel)
{
    cs_t *cs;
    CHECK_OK(mk(&cs));
    cs_push_ns(cs, "root");
    for (size_t k = 0; k < nparts; k++) {
        cs_counts_t n;
        char name[32];
        snprintf(name, sizeof(name), "part%zu", k);
        cs_get_counts(cs, &n);
        if (k == 0 || !parallel) {
            replay(cs, &parts[k], n.num_inputs, n.num_aux, name);
        } else {
            cs_t *child;
            CHECK_OK(cs_new_like(&child, cs, NULL, NULL));
            replay(child, &parts[k], 1, 0, name);
            CHECK_OK(cs_extend(cs, child, NULL));
            cs_free(child);
        }
    }
    cs_pop_ns(cs);
    return cs;
}

TEST(extend_equals_sequential)
{
    cz_prng *g = test_prng();
    cs_ctor ctors[5] = {mk_prover, mk_witness, mk_counter, mk_checker, mk_recorder};
    for (int rep = 0; rep < 12; rep++) {
        size_t nparts = 2 + cz_prng_below(g, 4);
        tprog parts[6];
        for (size_t k = 0; k < nparts; k++) {
            prog_random(g, &parts[k], 5 + cz_prng_below(g, 150));
        }
        for (int b = 0; b < 5; b++) {
            cs_t *seq = run_parts(ctors[b], parts, nparts, false);
            cs_t *par = run_parts(ctors[b], parts, nparts, true);
            check_same_result(b, seq, par);
            cs_free(seq);
            cs_free(par);
        }
        for (size_t k = 0; k < nparts; k++) {
            prog_free(&parts[k]);
        }
    }
}

TEST(extend_refused_for_digest)
{
    cs_t *d, *child;
    cz_diag dg;
    CHECK_OK(cs_new_digest(&d, NULL, NULL));
    cz_diag_init(&dg);
    CHECK_ERR(cs_new_like(&child, d, NULL, &dg), CUZK_E_INVAL);
    CHECK(child == NULL);
    cs_free(d);
}

TEST(no_leaks)
{
    size_t before = cz_alloc_live();
    cs_t *cs;
    cs_assignment_t asg;
    CHECK_OK(cs_new_prover(&cs, &(cs_counts_t){2, 3, 4}, NULL));
    hand_circuit(cs);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_free(cs);
    cs_assignment_clear(&asg);
    CHECK_EQ_U64(cz_alloc_live(), before);
}

/* The child's own ONE in B sets the parent's b_input_density bit 0 (groth16.md 4.2 extend). */
TEST(extend_ors_child_one_density)
{
    for (int parallel = 0; parallel < 2; parallel++) {
        cs_t *cs, *child, *target;
        cs_var_t a, x, y;
        fr_t v = fu(9);
        cs_assignment_t asg;
        CHECK_OK(cs_new_prover(&cs, NULL, NULL));
        CHECK_OK(cs_alloc(cs, &a, &v));
        cs_lc_t la = cs_lc_of(cs, a), lb = cs_lc_of(cs, a);
        CHECK_OK(cs_enforce(cs, &la, &lb, NULL, "no ONE in B"));
        child = NULL;
        target = cs;
        if (parallel) {
            CHECK_OK(cs_new_like(&child, cs, NULL, NULL));
            target = child;
        }
        CHECK_OK(cs_alloc_input(target, &x, &v));
        CHECK_OK(cs_alloc(target, &y, &v));
        la = cs_lc_of(target, y);
        lb = cs_lc_of(target, CS_ONE);
        cs_lc_add_var(target, &lb, x);
        CHECK_OK(cs_enforce(target, &la, &lb, NULL, "ONE and x in B"));
        if (child) {
            CHECK_OK(cs_extend(cs, child, NULL));
            cs_free(child);
        }
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_assignment(cs, &asg, NULL));
        static const uint8_t b_in[2] = {1, 1}, a_aux[2] = {1, 1}, b_aux[2] = {1, 0};
        check_bitvec(&asg.b_input_density, b_in, 2);
        check_bitvec(&asg.a_aux_density, a_aux, 2);
        check_bitvec(&asg.b_aux_density, b_aux, 2);
        fr_t ten = fu(10); /* row 1: a = y = 9, b = ONE + x = 10 */
        CHECK_FR_EQ(&asg.a[1], &v);
        CHECK_FR_EQ(&asg.b[1], &ten);
        cs_assignment_clear(&asg);
        cs_free(cs);
    }
}

/* ------------------------------------------------------------------------------------------
 * Fork and join
 * ---------------------------------------------------------------------------------------- */

typedef enum { FORK_SEQ, FORK_SIZED, FORK_UNSIZED } fork_mode;

#define FORK_MAX_PARTS 8

typedef struct fork_job {
    cs_t **children;
    const tprog *parts; /* child k replays parts[k] */
    const size_t *in_base, *aux_base;
    bool *ok;
} fork_job;

static void fork_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    fork_job *j = ctx;
    (void)worker;
    for (size_t k = begin; k < end; k++) {
        char name[32];
        snprintf(name, sizeof(name), "part%zu", k + 1);
        j->ok[k] = replay_ok(j->children[k], &j->parts[k], j->in_base[k], j->aux_base[k], name);
    }
}

/* parts[0] is the parent's prefix; parts[1 .. nparts) use the prefix's variables and run
 * sequentially (FORK_SEQ, the reference) or in fork children on `pool` (NULL: in order on this
 * thread) joined in order; `tail` runs in the parent afterwards and uses any variable so far,
 * by its sequential number (which the children's must therefore be, after the joins). */
static cs_t *run_fork(cs_ctor mk, const tprog *parts, size_t nparts, const tprog *tail,
                      fork_mode mode, cz_pool *pool)
{
    cs_t *cs;
    cs_counts_t n;
    char name[32];
    size_t nch = nparts - 1;

    CHECK(nparts >= 1 && nparts <= FORK_MAX_PARTS);
    CHECK_OK(mk(&cs));
    cs_push_ns(cs, "root");
    replay(cs, &parts[0], 1, 0, "part0");
    if (mode == FORK_SEQ) {
        for (size_t k = 1; k < nparts; k++) {
            snprintf(name, sizeof(name), "part%zu", k);
            cs_get_counts(cs, &n);
            replay(cs, &parts[k], n.num_inputs, n.num_aux, name);
        }
    } else {
        cs_t *children[FORK_MAX_PARTS];
        cs_counts_t sizes[FORK_MAX_PARTS];
        size_t in_base[FORK_MAX_PARTS], aux_base[FORK_MAX_PARTS];
        bool ok[FORK_MAX_PARTS];
        cs_get_counts(cs, &n);
        size_t ib = n.num_inputs, ab = n.num_aux;
        for (size_t k = 0; k < nch; k++) {
            const tprog *p = &parts[k + 1];
            sizes[k] = (cs_counts_t){p->ni - 1, p->na, p->nc};
            in_base[k] = ib; /* sized: where it lands; unsized: right after the parent's */
            aux_base[k] = ab;
            if (mode == FORK_SIZED) {
                ib += p->ni - 1;
                ab += p->na;
            }
        }
        CHECK_OK(cs_fork(cs, children, nch, mode == FORK_SIZED ? sizes : NULL, NULL));
        fork_job j = {children, parts + 1, in_base, aux_base, ok};
        cz_pool_for(pool, nch, 1, fork_task, &j);
        for (size_t k = 0; k < nch; k++) {
            CHECK_MSG(ok[k], "child %zu", k);
            cs_counts_t c;
            cs_get_counts(children[k], &c); /* a child reports what it added */
            CHECK_EQ_U64(c.num_inputs, sizes[k].num_inputs);
            CHECK_EQ_U64(c.num_aux, sizes[k].num_aux);
            CHECK_EQ_U64(c.num_constraints, sizes[k].num_constraints);
            CHECK_OK(cs_join(cs, children[k], NULL));
            cs_free(children[k]);
        }
    }
    cs_get_counts(cs, &n);
    replay(cs, tail, n.num_inputs, n.num_aux, "tail");
    cs_pop_ns(cs);
    return cs;
}

/* Random circuits whose parts share the prefix's variables: fork / join (with and without
 * sizes, on a pool thread and inline) gives the sequential result in every backend. */
TEST(fork_join_equals_sequential)
{
    cz_prng *g = test_prng();
    cs_ctor ctors[5] = {mk_prover, mk_witness, mk_counter, mk_checker, mk_recorder};
    cz_pool *pool;
    size_t live = cz_alloc_live();

    CHECK_OK(cz_pool_new(&pool, 1, "test-fork", NULL));
    for (int rep = 0; rep < 12; rep++) {
        size_t nparts = 2 + cz_prng_below(g, FORK_MAX_PARTS - 1);
        tprog parts[FORK_MAX_PARTS], tail;
        size_t tot_in, tot_aux;
        prog_random(g, &parts[0], 5 + cz_prng_below(g, 150));
        tot_in = parts[0].ni;
        tot_aux = parts[0].na;
        for (size_t k = 1; k < nparts; k++) {
            prog_random_par(g, &parts[k], 5 + cz_prng_below(g, 300), parts[0].ni, parts[0].na);
            tot_in += parts[k].ni - 1;
            tot_aux += parts[k].na;
        }
        prog_random_par(g, &tail, 5 + cz_prng_below(g, 60), tot_in, tot_aux);
        for (int b = 0; b < 5; b++) {
            for (int mode = FORK_SIZED; mode <= FORK_UNSIZED; mode++) {
                for (int threaded = 0; threaded < 2; threaded++) {
                    cs_t *seq = run_fork(ctors[b], parts, nparts, &tail, FORK_SEQ, NULL);
                    cs_t *par = run_fork(ctors[b], parts, nparts, &tail, (fork_mode)mode,
                                         threaded ? pool : NULL);
                    check_same_result(b, seq, par);
                    cs_free(seq);
                    cs_free(par);
                }
            }
        }
        for (size_t k = 0; k < nparts; k++) {
            prog_free(&parts[k]);
        }
        prog_free(&tail);
    }
    cz_pool_free(pool);
    CHECK_EQ_U64(cz_alloc_live(), live);
}

/* A hand circuit: the children use parent variables in A, B and C; every value, row and
 * density bit is computed by hand. Parent: ONE, x = Input(1) = 3, a = Aux(0) = 9, b = Aux(1) =
 * 2, row 0: a * ONE = a. Child 0: y = Aux(2) = 5, z = Input(2) = 25, row 1: y * (b + x) = z.
 * Child 1: w = Aux(3) = 4, u = Input(3) = 6, row 2: a * (u + w) = 0 (unsatisfied: the
 * checker's first failure, "root/kid1/w"). */
static void hand_fork(cs_t *cs, bool sized, cs_t *kid[2])
{
    fr_t v3 = fu(3), v9 = fu(9), v2 = fu(2), v5 = fu(5), v25 = fu(25), v4 = fu(4), v6 = fu(6);
    cs_var_t x, a, b, y, z, w, u;
    cs_counts_t sizes[2] = {{1, 1, 1}, {1, 1, 1}};
    fr_t got;

    cs_push_ns(cs, "root");
    CHECK_OK(cs_alloc_input(cs, &x, &v3));
    CHECK_OK(cs_alloc(cs, &a, &v9));
    CHECK_OK(cs_alloc(cs, &b, &v2));
    cs_lc_t la = cs_lc_of(cs, a), lb = cs_lc_of(cs, CS_ONE), lc = cs_lc_of(cs, a);
    CHECK_OK(cs_enforce(cs, &la, &lb, &lc, "a"));
    CHECK_OK(cs_fork(cs, kid, 2, sized ? sizes : NULL, NULL));

    /* child 1 first: the order of synthesis does not matter, only that of the joins */
    cs_push_ns(kid[1], "kid1");
    CHECK_OK(cs_alloc(kid[1], &w, &v4));
    CHECK_OK(cs_alloc_input(kid[1], &u, &v6));
    CHECK_EQ_U64(w.bits, cs_var_aux(sized ? 3 : 2).bits);
    CHECK_EQ_U64(u.bits, cs_var_input(sized ? 3 : 2).bits);
    if (cs_has_values(kid[1])) {
        CHECK(cs_value(kid[1], &got, a)); /* a parent value */
        CHECK_FR_EQ(&got, &v9);
        CHECK(cs_value(kid[1], &got, w));
        CHECK_FR_EQ(&got, &v4);
        CHECK(cs_value(kid[1], &got, x));
        CHECK_FR_EQ(&got, &v3);
    }
    la = cs_lc_of(kid[1], a);
    lb = cs_lc_of(kid[1], u);
    cs_lc_add_var(kid[1], &lb, w);
    CHECK_OK(cs_enforce(kid[1], &la, &lb, NULL, "w"));
    cs_pop_ns(kid[1]);

    cs_push_ns(kid[0], "kid0");
    CHECK_OK(cs_alloc(kid[0], &y, &v5));
    CHECK_OK(cs_alloc_input(kid[0], &z, &v25));
    CHECK_EQ_U64(y.bits, cs_var_aux(2).bits);
    CHECK_EQ_U64(z.bits, cs_var_input(2).bits);
    la = cs_lc_of(kid[0], y);
    lb = cs_lc_of(kid[0], b);
    cs_lc_add_var(kid[0], &lb, x);
    lc = cs_lc_of(kid[0], z);
    CHECK_OK(cs_enforce(kid[0], &la, &lb, &lc, "y"));
    cs_pop_ns(kid[0]);

    for (int k = 0; k < 2; k++) {
        CHECK_OK(cs_join(cs, kid[k], NULL));
        cs_free(kid[k]);
        kid[k] = NULL;
    }
    cs_pop_ns(cs);
}

TEST(fork_hand_circuit)
{
    size_t live = cz_alloc_live();
    for (int sized = 0; sized < 2; sized++) {
        cs_t *cs, *kid[2];
        cs_assignment_t asg;
        cs_counts_t n;

        CHECK_OK(cs_new_prover(&cs, NULL, NULL));
        hand_fork(cs, sized, kid);
        cs_get_counts(cs, &n);
        CHECK_EQ_U64(n.num_inputs, 4);
        CHECK_EQ_U64(n.num_aux, 4);
        CHECK_EQ_U64(n.num_constraints, 3);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_assignment(cs, &asg, NULL));
        cs_free(cs);

        static const uint64_t ea[7] = {9, 5, 9, 1, 3, 25, 6}, eb[7] = {1, 5, 10, 0, 0, 0, 0},
                              ec[7] = {9, 25, 0, 0, 0, 0, 0}, ein[4] = {1, 3, 25, 6},
                              eaux[4] = {9, 2, 5, 4};
        CHECK_EQ_U64(asg.m, 7);
        for (size_t j = 0; j < 7; j++) {
            fr_t x = fu(ea[j]), y = fu(eb[j]), z = fu(ec[j]);
            CHECK_MSG(fr_eq(&asg.a[j], &x) && fr_eq(&asg.b[j], &y) && fr_eq(&asg.c[j], &z),
                      "row %zu", j);
        }
        for (size_t i = 0; i < 4; i++) {
            fr_t x = fu(ein[i]), y = fu(eaux[i]);
            CHECK_FR_EQ(&asg.inputs[i], &x);
            CHECK_FR_EQ(&asg.aux[i], &y);
        }
        static const uint8_t a_aux[4] = {1, 0, 1, 0}, b_in[4] = {1, 1, 0, 1},
                             b_aux[4] = {0, 1, 0, 1};
        check_bitvec(&asg.a_aux_density, a_aux, 4);
        check_bitvec(&asg.b_input_density, b_in, 4);
        check_bitvec(&asg.b_aux_density, b_aux, 4);
        cs_assignment_clear(&asg);

        /* The checker: the child's failure at its place, under the parent's namespace. */
        size_t idx;
        cz_diag dg;
        CHECK_OK(cs_new_checker(&cs, NULL));
        hand_fork(cs, sized, kid);
        const char *path = cs_unsat_path(cs, &idx);
        CHECK(path != NULL);
        CHECK_STR_EQ(path, "root/kid1/w");
        CHECK_EQ_U64(idx, 2);
        cz_diag_init(&dg);
        CHECK_ERR(cs_finish(cs, &dg), CUZK_E_UNSAT);
        cs_free(cs);

        /* The recorder: the children's columns at their final places (unified numbering:
         * inputs 0..3, then aux at 4 + index). Row 1: A {Aux(2)}, B {Input(1), Aux(1)},
         * C {Input(2)}; row 2: A {Aux(0)}, B {Input(3), Aux(3)}. */
        cs_r1cs_t r;
        CHECK_OK(cs_new_recorder(&cs, NULL));
        hand_fork(cs, sized, kid);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_r1cs(cs, &r, NULL));
        cs_free(cs);
        CHECK_EQ_U64(r.A.col[r.A.row_ptr[1]], 4 + 2);
        CHECK_EQ_U64(r.B.row_ptr[2] - r.B.row_ptr[1], 2);
        CHECK_EQ_U64(r.B.col[r.B.row_ptr[1]], 1);
        CHECK_EQ_U64(r.B.col[r.B.row_ptr[1] + 1], 4 + 1);
        CHECK_EQ_U64(r.C.col[r.C.row_ptr[1]], 2);
        CHECK_EQ_U64(r.A.col[r.A.row_ptr[2]], 4 + 0);
        CHECK_EQ_U64(r.B.row_ptr[3] - r.B.row_ptr[2], 2);
        CHECK_EQ_U64(r.B.col[r.B.row_ptr[2]], 3);
        CHECK_EQ_U64(r.B.col[r.B.row_ptr[2] + 1], 4 + 3);
        cs_r1cs_clear(&r);
    }
    CHECK_EQ_U64(cz_alloc_live(), live);
}

/* Misuse that is data, not a bug: sizes that do not match, a dropped child, a reference into a
 * sibling's range, a child's own failure, a kind that cannot fork. Each becomes the parent's
 * sticky error; nothing leaks. */
TEST(fork_errors)
{
    size_t live = cz_alloc_live();
    fr_t v = fu(5);
    cs_var_t x;
    cs_t *cs, *kid[2];
    cz_diag dg;

    /* digest: refused, no child made */
    CHECK_OK(cs_new_digest(&cs, NULL, NULL));
    kid[0] = kid[1] = (cs_t *)&dg; /* overwritten with NULL */
    CHECK_ERR(cs_fork(cs, kid, 2, NULL, NULL), CUZK_E_INVAL);
    CHECK(kid[0] == NULL && kid[1] == NULL);
    cs_free(cs);

    for (int backend = 0; backend < 3; backend++) { /* prover, witness, counter */
        cs_ctor mk = backend == 0 ? mk_prover : backend == 1 ? mk_witness : mk_counter;
        const cs_counts_t one_aux[2] = {{0, 1, 0}, {0, 1, 0}};

        /* n == 0 is a no-op; the parent stays usable */
        CHECK_OK(mk(&cs));
        CHECK_OK(cs_fork(cs, NULL, 0, NULL, NULL));
        CHECK_OK(cs_alloc(cs, &x, &v));
        CHECK_OK(cs_finish(cs, NULL));
        cs_free(cs);

        /* a child that stays below its declared size, or outgrows it (the placed values of
         * the prover and witness cannot grow: the alloc fails; the counter finds out at the
         * join) */
        for (int over = 0; over < 2; over++) {
            CHECK_OK(mk(&cs));
            CHECK_OK(cs_fork(cs, kid, 2, one_aux, NULL));
            if (over) {
                CHECK_OK(cs_alloc(kid[0], &x, &v));
                CHECK_EQ_U64(x.bits, cs_var_aux(0).bits);
                cuzk_err e = cs_alloc(kid[0], &x, &v);
                CHECK_ERR(e, cs_has_values(cs) ? CUZK_E_INVAL : CUZK_OK);
            }
            CHECK_OK(cs_alloc(kid[1], &x, &v));
            CHECK_EQ_U64(x.bits, cs_var_aux(1).bits);
            cz_diag_init(&dg);
            CHECK_ERR(cs_join(cs, kid[0], &dg), CUZK_E_INVAL);
            CHECK_MSG(strstr(dg.msg, over && cs_has_values(cs) ? "more aux than" : "declared"),
                      "%s", dg.msg);
            CHECK_ERR(cs_join(cs, kid[1], NULL), CUZK_E_INVAL); /* the parent's error */
            cs_free(kid[0]);
            cs_free(kid[1]);
            CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
            cs_free(cs);
        }

        /* a child freed without join: the parent is void, later joins fail */
        CHECK_OK(mk(&cs));
        CHECK_OK(cs_fork(cs, kid, 2, one_aux, NULL));
        CHECK_OK(cs_alloc(kid[0], &x, &v));
        CHECK_OK(cs_alloc(kid[1], &x, &v));
        cs_free(kid[0]);
        CHECK_ERR(cs_join(cs, kid[1], NULL), CUZK_E_INVAL);
        cs_free(kid[1]);
        cz_diag_init(&dg);
        CHECK_ERR(cs_finish(cs, &dg), CUZK_E_INVAL);
        CHECK_MSG(strstr(dg.msg, "freed without cs_join"), "%s", dg.msg);
        cs_free(cs);

        /* without sizes, a dropped child also voids the parent */
        CHECK_OK(mk(&cs));
        CHECK_OK(cs_fork(cs, kid, 2, NULL, NULL));
        CHECK_OK(cs_join(cs, kid[0], NULL));
        cs_free(kid[0]);
        cs_free(kid[1]);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
        cs_free(cs);

        /* a child's own failure becomes the parent's */
        CHECK_OK(mk(&cs));
        CHECK_OK(cs_fork(cs, kid, 1, NULL, NULL));
        CHECK_ERR(cs_fail(kid[0], CUZK_E_INVAL, "gadget %d", 7), CUZK_E_INVAL);
        cz_diag_init(&dg);
        CHECK_ERR(cs_join(cs, kid[0], &dg), CUZK_E_INVAL);
        CHECK_MSG(strstr(dg.msg, "gadget 7"), "%s", dg.msg);
        cs_free(kid[0]);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
        cs_free(cs);
    }

    /* Backends that look at variables: a child may not use a sibling's range or its own
     * future variables (prover: unallocated value; recorder: unallocated column). */
    for (int backend = 0; backend < 2; backend++) {
        const cs_counts_t sizes[2] = {{0, 1, 0}, {0, 1, 1}};
        CHECK_OK(backend == 0 ? mk_prover(&cs) : mk_recorder(&cs));
        CHECK_OK(cs_alloc(cs, &x, &v)); /* parent: Aux(0) */
        CHECK_OK(cs_fork(cs, kid, 2, sizes, NULL));
        CHECK_OK(cs_alloc(kid[0], &x, &v));
        CHECK_EQ_U64(x.bits, cs_var_aux(1).bits);
        CHECK_OK(cs_alloc(kid[1], &x, &v));
        CHECK_EQ_U64(x.bits, cs_var_aux(2).bits);
        cs_lc_t a = cs_lc_of(kid[1], cs_var_aux(1)); /* child 0's */
        cz_diag_init(&dg);
        CHECK_ERR(cs_enforce(kid[1], &a, NULL, NULL, "gap"), CUZK_E_INVAL);
        CHECK_OK(cs_join(cs, kid[0], NULL));
        CHECK_ERR(cs_join(cs, kid[1], &dg), CUZK_E_INVAL);
        CHECK_MSG(strstr(dg.msg, "unallocated variable Aux(1)"), "%s", dg.msg);
        cs_free(kid[0]);
        cs_free(kid[1]);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
        cs_free(cs);
    }

    /* prover: more constraints than declared */
    {
        const cs_counts_t sizes[1] = {{0, 0, 1}};
        CHECK_OK(mk_prover(&cs));
        CHECK_OK(cs_fork(cs, kid, 1, sizes, NULL));
        CHECK_OK(cs_enforce(kid[0], NULL, NULL, NULL, "one"));
        CHECK_ERR(cs_enforce(kid[0], NULL, NULL, NULL, "two"), CUZK_E_INVAL);
        cz_diag_init(&dg);
        CHECK_ERR(cs_join(cs, kid[0], &dg), CUZK_E_INVAL);
        CHECK_MSG(strstr(dg.msg, "more constraints than"), "%s", dg.msg);
        cs_free(kid[0]);
        cs_free(cs);
    }
    CHECK_EQ_U64(cz_alloc_live(), live);
}

/* cs_blind, cs_alloc_bits and cs_enforce_blind: the batched forms of cs_alloc and
 * cs_enforce(cs, NULL, NULL, NULL) give the same variables, values and counts; their errors. */
TEST(alloc_bits_and_blind_enforce)
{
    const bool bits[5] = {true, false, false, true, true};
    fr_t one = fu(1), v;
    cs_var_t x, out[5];
    cs_counts_t n[2];
    cs_t *cs, *kid[1];
    atomic_bool flag;

    CHECK_OK(mk_prover(&cs));
    CHECK(!cs_blind(cs));
    cs_free(cs);
    CHECK_OK(mk_checker(&cs));
    CHECK(!cs_blind(cs));
    cs_free(cs);
    CHECK_OK(mk_recorder(&cs));
    CHECK(!cs_blind(cs));
    cs_free(cs);
    CHECK_OK(cs_new_digest(&cs, NULL, NULL));
    CHECK(!cs_blind(cs));
    cs_free(cs);
    for (int backend = 0; backend < 2; backend++) { /* witness, counter */
        cs_ctor mk = backend == 0 ? mk_witness : mk_counter;
        for (int batched = 0; batched < 2; batched++) {
            CHECK_OK(mk(&cs));
            CHECK(cs_blind(cs));
            CHECK_OK(cs_alloc(cs, &x, &one));
            if (batched) {
                CHECK_OK(cs_alloc_bits(cs, out, bits, 5));
                CHECK_OK(cs_enforce_blind(cs, 5));
                CHECK_OK(cs_enforce_blind(cs, 0));
            } else {
                for (int i = 0; i < 5; i++) {
                    CHECK_OK(cs_alloc(cs, &out[i], bits[i] ? &FR_ONE : &FR_ZERO));
                    CHECK_OK(cs_enforce(cs, NULL, NULL, NULL, "bit"));
                }
            }
            for (int i = 0; i < 5; i++) {
                CHECK_EQ_U64(out[i].bits, cs_var_aux(1 + (uint64_t)i).bits);
                CHECK(cs_value(cs, &v, out[i]) == (backend == 0));
                CHECK(backend != 0 || fr_eq(&v, bits[i] ? &FR_ONE : &FR_ZERO));
            }
            cs_get_counts(cs, &n[batched]);
            CHECK_OK(cs_finish(cs, NULL));
            cs_free(cs);
        }
        CHECK(memcmp(&n[0], &n[1], sizeof(n[0])) == 0);

        /* after a sticky error: nothing allocated, every out[] the next variable */
        CHECK_OK(mk(&cs));
        atomic_init(&flag, true);
        cs_set_cancel(cs, &flag);
        CHECK_ERR(cs_enforce_blind(cs, 3), CUZK_E_CANCELLED);
        CHECK_ERR(cs_alloc_bits(cs, out, bits, 5), CUZK_E_CANCELLED);
        for (int i = 0; i < 5; i++) {
            CHECK_EQ_U64(out[i].bits, cs_var_aux(0).bits);
        }
        cs_get_counts(cs, &n[0]);
        CHECK_EQ_U64(n[0].num_aux, 0);
        CHECK_EQ_U64(n[0].num_constraints, 0);
        cs_free(cs);

        /* the cancel flag is looked at when a run counts constraint 4096 k (0-based), as
         * cs_enforce does */
        CHECK_OK(mk(&cs));
        atomic_init(&flag, false);
        cs_set_cancel(cs, &flag);
        CHECK_OK(cs_enforce_blind(cs, 4095));
        atomic_store(&flag, true);
        CHECK_OK(cs_enforce_blind(cs, 1)); /* number 4095 */
        CHECK_ERR(cs_enforce_blind(cs, 1), CUZK_E_CANCELLED);
        cs_free(cs);
        CHECK_OK(mk(&cs));
        atomic_init(&flag, false);
        cs_set_cancel(cs, &flag);
        CHECK_OK(cs_enforce_blind(cs, 4097));
        atomic_store(&flag, true);
        CHECK_OK(cs_enforce_blind(cs, 4000)); /* 4097 .. 8096: no multiple of 4096 */
        CHECK_ERR(cs_enforce_blind(cs, 200), CUZK_E_CANCELLED);
        cs_free(cs);

        /* a placed fork child without room for the whole run takes none of it */
        CHECK_OK(mk(&cs));
        const cs_counts_t two_aux = {0, 2, 0};
        CHECK_OK(cs_fork(cs, kid, 1, &two_aux, NULL));
        cuzk_err e = cs_alloc_bits(kid[0], out, bits, 3);
        CHECK_ERR(e, backend == 0 ? CUZK_E_INVAL : CUZK_OK);
        CHECK_ERR(cs_join(cs, kid[0], NULL), CUZK_E_INVAL);
        cs_free(kid[0]);
        cs_free(cs);
    }
}

/* cs_set_cancel: a set flag stops synthesis within 4096 constraints with a sticky
 * CUZK_E_CANCELLED, in the cs and in its fork children; an unset flag changes nothing. */
TEST(cancel_flag_stops_synthesis)
{
    fr_t one = fu(1);
    atomic_bool flag;
    cs_var_t x;
    cs_t *cs, *kid[1];

    for (int backend = 0; backend < 3; backend++) { /* prover, witness, counter */
        cs_ctor mk = backend == 0 ? mk_prover : backend == 1 ? mk_witness : mk_counter;
        atomic_init(&flag, false);
        CHECK_OK(mk(&cs));
        cs_set_cancel(cs, &flag);
        CHECK_OK(cs_alloc(cs, &x, &one));
        for (int i = 0; i < 10000; i++) {
            CHECK_OK(cs_enforce(cs, NULL, NULL, NULL, "empty"));
        }
        atomic_store(&flag, true);
        size_t done = 0;
        while (cs_enforce(cs, NULL, NULL, NULL, "empty") == CUZK_OK) {
            done++;
        }
        CHECK(done < 4096);
        CHECK_ERR(cs_status(cs), CUZK_E_CANCELLED);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_CANCELLED);
        cs_free(cs);

        /* A fork child inherits the flag. */
        atomic_store(&flag, true);
        CHECK_OK(mk(&cs));
        cs_set_cancel(cs, &flag);
        CHECK_OK(cs_fork(cs, kid, 1, NULL, NULL));
        CHECK_ERR(cs_enforce(kid[0], NULL, NULL, NULL, "empty"), CUZK_E_CANCELLED);
        CHECK_ERR(cs_join(cs, kid[0], NULL), CUZK_E_CANCELLED);
        cs_free(kid[0]);
        cs_free(cs);
    }
}
