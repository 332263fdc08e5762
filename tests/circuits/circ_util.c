/* circ_util.c - see circ_util.h. The native trees are built from the hash module only (no
 * circuit code), so a tree root and a circuit's computed root are independent results. */
#include "circ_util.h"

#include "common/alloc.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

void cu_counts(cs_counts_t *out, cu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;

    CHECK_OK(cs_new_counter(&cs, NULL));
    fn(cs, ctx);
    cs_get_counts(cs, out);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
}

cuzk_err cu_check(cu_synth_fn fn, void *ctx, const char **path)
{
    static char buf[512];
    cs_t *cs = NULL;
    cz_diag dg;
    cuzk_err err;
    size_t idx;

    cz_diag_init(&dg);
    CHECK_OK(cs_new_checker(&cs, NULL));
    fn(cs, ctx);
    err = cs_finish(cs, &dg);
    if (path) {
        const char *p = cs_unsat_path(cs, &idx);
        snprintf(buf, sizeof(buf), "%s", p ? p : dg.msg);
        *path = buf;
    }
    cs_free(cs);
    return err;
}

fr_t *cu_inputs(cu_synth_fn fn, void *ctx, size_t *n)
{
    cs_t *cs = NULL;
    cs_assignment_t asg;
    fr_t *out;

    CHECK_OK(cs_new_witness(&cs, NULL, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_free(cs);
    CHECK(asg.num_inputs >= 1 && fr_is_one(&asg.inputs[0]));
    *n = asg.num_inputs - 1;
    out = cz_malloc((*n + 1) * sizeof(fr_t));
    CHECK(out);
    memcpy(out, asg.inputs + 1, *n * sizeof(fr_t));
    cs_assignment_clear(&asg);
    return out;
}

void cu_digest_hex(char out[65], cu_synth_fn fn, void *ctx)
{
    cs_counts_t c;
    cs_t *cs = NULL;

    cu_counts(&c, fn, ctx);
    CHECK_OK(cs_new_digest(&cs, &c, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK(cs_digest_hex(cs, out));
    cs_free(cs);
}

static void prover_assignment(cs_assignment_t *out, cu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;

    CHECK_OK(cs_new_prover(&cs, NULL, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, out, NULL));
    cs_free(cs);
}

static void check_same_bits(const cs_bitvec_t *a, const cs_bitvec_t *b)
{
    CHECK_EQ_U64(a->len, b->len);
    CHECK_EQ_U64(a->popcount, b->popcount);
    CHECK_MEM_EQ(a->words, b->words, (a->len + 63) / 64 * sizeof(uint64_t));
}

void cu_check_same(cu_synth_fn fn1, void *ctx1, cu_synth_fn fn2, void *ctx2)
{
    cs_assignment_t x, y;
    cs_counts_t n1, n2;

    cu_counts(&n1, fn1, ctx1);
    cu_counts(&n2, fn2, ctx2);
    CHECK(memcmp(&n1, &n2, sizeof(n1)) == 0);
    prover_assignment(&x, fn1, ctx1);
    prover_assignment(&y, fn2, ctx2);
    CHECK_EQ_U64(x.m, y.m);
    CHECK_EQ_U64(x.num_inputs, y.num_inputs);
    CHECK_EQ_U64(x.num_aux, y.num_aux);
    CHECK_MEM_EQ(x.a, y.a, x.m * sizeof(fr_t));
    CHECK_MEM_EQ(x.b, y.b, x.m * sizeof(fr_t));
    CHECK_MEM_EQ(x.c, y.c, x.m * sizeof(fr_t));
    CHECK_MEM_EQ(x.inputs, y.inputs, x.num_inputs * sizeof(fr_t));
    CHECK_MEM_EQ(x.aux, y.aux, x.num_aux * sizeof(fr_t));
    check_same_bits(&x.a_aux_density, &y.a_aux_density);
    check_same_bits(&x.b_input_density, &y.b_input_density);
    check_same_bits(&x.b_aux_density, &y.b_aux_density);
    cs_assignment_clear(&x);
    cs_assignment_clear(&y);
}

void cu_rand_fr(fr_t *out, cz_prng *g)
{
    uint64_t l[4];

    for (unsigned i = 0; i < 4; i++) {
        l[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(out, l);
}

void cu_rand_fr254(fr_t *out, cz_prng *g)
{
    uint8_t b[32];

    cz_prng_bytes(g, b, sizeof(b));
    b[31] &= 0x3f;
    CHECK_OK(fr_from_bytes(out, b));
}

void cu_sha_node(fr_t *out, const fr_t *a, const fr_t *b)
{
    uint8_t buf[64], d[32];

    fr_to_bytes(buf, a);
    fr_to_bytes(buf + 32, b);
    sha256_fr32_node(d, buf, buf + 32);
    CHECK_OK(fr_from_bytes(out, d));
}

void cu_tree_build(cu_tree_t *t, const gad_tree_shape_t *shape, bool sha, const fr_t *leaves)
{
    size_t n = 1;

    memset(t, 0, sizeof(*t));
    t->shape = *shape;
    t->sha = sha;
    t->levels = gad_tree_shape_levels(shape);
    CHECK(t->levels < ARRAY_LEN(t->rows));
    for (size_t l = 0; l < t->levels; l++) {
        n *= gad_tree_shape_arity(shape, l);
    }
    t->len[0] = n;
    t->rows[0] = cz_malloc(n * sizeof(fr_t));
    CHECK(t->rows[0]);
    memcpy(t->rows[0], leaves, n * sizeof(fr_t));
    for (size_t l = 0; l < t->levels; l++) {
        size_t a = gad_tree_shape_arity(shape, l);
        size_t m = t->len[l] / a;
        t->len[l + 1] = m;
        t->rows[l + 1] = cz_malloc(m * sizeof(fr_t));
        CHECK(t->rows[l + 1]);
        for (size_t j = 0; j < m; j++) {
            const fr_t *ch = &t->rows[l][j * a];
            if (sha) {
                CHECK(a == 2);
                cu_sha_node(&t->rows[l + 1][j], &ch[0], &ch[1]);
            } else {
                poseidon_hash(&t->rows[l + 1][j], ch, a, poseidon_params(a));
            }
        }
    }
    CHECK(t->len[t->levels] == 1);
}

void cu_tree_free(cu_tree_t *t)
{
    for (size_t l = 0; l <= t->levels; l++) {
        cz_free(t->rows[l]);
    }
    memset(t, 0, sizeof(*t));
}

const fr_t *cu_tree_root(const cu_tree_t *t)
{
    return &t->rows[t->levels][0];
}

void cu_tree_path(const cu_tree_t *t, uint64_t i, fr_t *siblings, uint32_t *index)
{
    size_t s = 0;

    CHECK(i < t->len[0]);
    for (size_t l = 0; l < t->levels; l++) {
        uint32_t a = gad_tree_shape_arity(&t->shape, l);
        uint64_t base = i - i % a;
        index[l] = (uint32_t)(i % a);
        for (uint32_t k = 0; k < a; k++) {
            if (k != index[l]) {
                siblings[s++] = t->rows[l][base + k];
            }
        }
        i /= a;
    }
}
