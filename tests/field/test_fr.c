/* test_fr.c - Fr: known answers from @noble/curves 2.4.0 (tests/vectors/field/fr_vectors.h),
 * the spec's constants (groth16.md 1.3-1.4), a naive bit-serial modular multiplication, ring
 * laws, Tonelli-Shanks, batch inversion, and the ADX kernels against the portable ones.
 */
#include "field_test_util.h"
#include "vectors/field/fr_vectors.h"

#define NRAND 2000

static void kat_bin(const struct field_vec2 *v, size_t n,
                    void (*op)(fr_t *, const fr_t *, const fr_t *))
{
    for (size_t i = 0; i < n; i++) {
        fr_t a, b, want, got;
        hex_fr(&a, v[i].a);
        hex_fr(&b, v[i].b);
        hex_fr(&want, v[i].out);
        op(&got, &a, &b);
        CHECK_MSG(fr_eq(&got, &want), "vector %zu", i);
        got = a;
        op(&got, &got, &b);
        CHECK(fr_eq(&got, &want));
        got = b;
        op(&got, &a, &got);
        CHECK(fr_eq(&got, &want));
    }
}

static void kat_un(const struct field_vec1 *v, size_t n, void (*op)(fr_t *, const fr_t *))
{
    for (size_t i = 0; i < n; i++) {
        fr_t a, want, got;
        hex_fr(&a, v[i].a);
        hex_fr(&want, v[i].out);
        op(&got, &a);
        CHECK_MSG(fr_eq(&got, &want), "vector %zu", i);
        op(&a, &a);
        CHECK(fr_eq(&a, &want));
    }
}

TEST(fr_kat_add_sub_mul_sqr_inv)
{
    FOR_EACH_KERNEL({
        kat_bin(fr_add_vectors, ARRAY_LEN(fr_add_vectors), fr_add);
        kat_bin(fr_sub_vectors, ARRAY_LEN(fr_sub_vectors), fr_sub);
        kat_bin(fr_mul_vectors, ARRAY_LEN(fr_mul_vectors), fr_mul);
        kat_un(fr_sqr_vectors, ARRAY_LEN(fr_sqr_vectors), fr_sqr);
        kat_un(fr_inv_vectors, ARRAY_LEN(fr_inv_vectors), fr_inv);
    });
}

TEST(fr_kat_sqrt)
{
    FOR_EACH_KERNEL({
        for (size_t i = 0; i < ARRAY_LEN(fr_sqrt_vectors); i++) {
            const struct field_sqrt_vec *v = &fr_sqrt_vectors[i];
            fr_t a, root, got, neg;
            hex_fr(&a, v->a);
            CHECK_EQ_U64(fr_sqrt(&got, &a), v->is_square);
            if (v->is_square) {
                hex_fr(&root, v->root);
                fr_neg(&neg, &root);
                CHECK_MSG(fr_eq(&got, &root) || fr_eq(&got, &neg), "vector %zu", i);
            }
        }
    });
}

TEST(fr_kat_encoding)
{
    for (size_t i = 0; i < ARRAY_LEN(fr_enc_vectors); i++) {
        const struct field_enc_vec *v = &fr_enc_vectors[i];
        uint8_t want[FR_NBYTES], got[FR_NBYTES];
        fr_repr_t repr = {{0}}, back;
        fr_t a, b;
        size_t len = strlen(v->value_be);
        for (size_t d = 0; d < len; d++) {
            char c = v->value_be[len - 1 - d];
            uint64_t nib = (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
            repr.l[d / 16] |= nib << (4 * (d % 16));
        }
        hex_bytes(want, sizeof(want), v->bytes);
        CHECK(fr_from_repr(&a, &repr));
        fr_to_bytes(got, &a);
        CHECK_MEM_EQ(got, want, FR_NBYTES);
        fr_repr_to_bytes(got, &repr);
        CHECK_MEM_EQ(got, want, FR_NBYTES);
        CHECK_OK(fr_from_bytes(&b, want));
        CHECK(fr_eq(&a, &b));
        fr_to_repr(&back, &b);
        CHECK_MEM_EQ(back.l, repr.l, sizeof(back.l));
    }
}

TEST(fr_decode_rejects_noncanonical)
{
    uint8_t b[FR_NBYTES];
    fr_repr_t v;
    fr_t a;

    /* r, r + 1, r + 2^64, all-ones */
    for (int k = 0; k < 3; k++) {
        memcpy(v.l, FR_MODULUS, sizeof(v.l));
        if (k == 1) {
            v.l[0] += 1;
        } else if (k == 2) {
            v.l[1] += 1;
        }
        fr_repr_to_bytes(b, &v);
        CHECK_ERR(fr_from_bytes(&a, b), CUZK_E_FORMAT);
        CHECK(!fr_from_repr(&a, &v));
    }
    memset(b, 0xff, sizeof(b));
    CHECK_ERR(fr_from_bytes(&a, b), CUZK_E_FORMAT);
    /* spec groth16.md 2.1: the bytes of r are rejected, 1 is 01 00 .. 00 */
    uint8_t rbytes[FR_NBYTES];
    CHECK(cz_hex_decode(rbytes, FR_NBYTES,
                        "01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73"));
    CHECK_ERR(fr_from_bytes(&a, rbytes), CUZK_E_FORMAT);
    memset(b, 0, sizeof(b));
    b[0] = 1;
    CHECK_OK(fr_from_bytes(&a, b));
    CHECK(fr_is_one(&a));
    for (int i = 0; i < 200; i++) {
        cz_prng_bytes(test_prng(), b, sizeof(b));
        for (size_t j = 0; j < FR_NLIMBS; j++) {
            v.l[j] = cz_load_le64(b + 8 * j);
        }
        CHECK_EQ_U64(fr_from_bytes(&a, b) == CUZK_OK, limbs_lt(v.l, FR_MODULUS, FR_NLIMBS));
    }
    /* r - 1 is accepted and equals -1 */
    memcpy(v.l, FR_MODULUS, sizeof(v.l));
    v.l[0] -= 1;
    fr_repr_to_bytes(b, &v);
    CHECK_OK(fr_from_bytes(&a, b));
    fr_t m1;
    fr_neg(&m1, &FR_ONE);
    CHECK(fr_eq(&a, &m1));
}

TEST(fr_constants)
{
    /* spec groth16.md 1.4: Montgomery limbs of 7 and of ROOT_OF_UNITY */
    static const uint64_t seven_mont[4] = {0x0000000efffffff1ULL, 0x17e363d300189c0fULL,
                                           0xff9c57876f8457b0ULL, 0x351332208fc5a8c4ULL};
    static const uint64_t root_mont[4] = {0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL,
                                          0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL};
    fr_t seven, root, t;
    fr_from_u64(&seven, 7);
    CHECK_MEM_EQ(seven.l, seven_mont, 32);
    CHECK_MEM_EQ(FR_GENERATOR_MONT, seven_mont, 32);
    memcpy(root.l, root_mont, 32);
    CHECK_MEM_EQ(FR_ROOT_OF_UNITY_MONT, root_mont, 32);
    /* ROOT = 7^t, of order exactly 2^32 */
    fr_pow(&t, &seven, FR_TRACE, FR_NLIMBS);
    CHECK(fr_eq(&t, &root));
    for (int i = 0; i < 31; i++) {
        fr_sqr(&t, &t);
    }
    fr_t m1;
    fr_neg(&m1, &FR_ONE);
    CHECK(fr_eq(&t, &m1));
    fr_sqr(&t, &t);
    CHECK(fr_is_one(&t));
    /* 7 is a non-square (a generator) */
    CHECK(!fr_sqrt(&t, &seven));
    CHECK_EQ_U64(FR_MODULUS[0] * FR_MONT_INV, ~0ULL);
    /* spec: 7^-1 mod r */
    fr_repr_t inv7;
    fr_inv(&t, &seven);
    fr_to_repr(&inv7, &t);
    CHECK_EQ_U64(inv7.l[3], 0x211f5460e7519182ULL);
    CHECK_EQ_U64(inv7.l[0], 0xdb6db6db24924925ULL);
}

TEST(fr_mul_vs_naive)
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < 500; i++) {
            fr_repr_t a, b, got;
            uint64_t want[FR_NLIMBS];
            fr_t x, y, z;
            rand_edge_below(a.l, FR_MODULUS, FR_NLIMBS);
            rand_edge_below(b.l, FR_MODULUS, FR_NLIMBS);
            naive_mulmod(want, a.l, b.l, FR_MODULUS, FR_NLIMBS);
            CHECK(fr_from_repr(&x, &a));
            CHECK(fr_from_repr(&y, &b));
            fr_mul(&z, &x, &y);
            fr_to_repr(&got, &z);
            CHECK_MEM_EQ(got.l, want, sizeof(want));
            naive_mulmod(want, a.l, a.l, FR_MODULUS, FR_NLIMBS);
            fr_sqr(&z, &x);
            fr_to_repr(&got, &z);
            CHECK_MEM_EQ(got.l, want, sizeof(want));
        }
    });
}

TEST(fr_ring_laws)
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < NRAND; i++) {
            fr_t a, b, c, t, u, v;
            rand_fr(&a);
            rand_fr(&b);
            rand_fr(&c);
            fr_add(&t, &a, &b);
            fr_add(&u, &b, &a);
            CHECK(fr_eq(&t, &u));
            fr_mul(&t, &a, &b);
            fr_mul(&u, &b, &a);
            CHECK(fr_eq(&t, &u));
            fr_mul(&t, &t, &c);
            fr_mul(&u, &b, &c);
            fr_mul(&u, &a, &u);
            CHECK(fr_eq(&t, &u));
            fr_add(&t, &b, &c);
            fr_mul(&t, &a, &t);
            fr_mul(&u, &a, &b);
            fr_mul(&v, &a, &c);
            fr_add(&u, &u, &v);
            CHECK(fr_eq(&t, &u));
            fr_sub(&t, &a, &b);
            fr_add(&t, &t, &b);
            CHECK(fr_eq(&t, &a));
            fr_neg(&t, &a);
            fr_add(&t, &t, &a);
            CHECK(fr_is_zero(&t));
            fr_dbl(&t, &a);
            fr_add(&u, &a, &a);
            CHECK(fr_eq(&t, &u));
            fr_sqr(&t, &a);
            fr_mul(&u, &a, &a);
            CHECK(fr_eq(&t, &u));
        }
    });
}

TEST(fr_inv_sqrt_pow_random)
{
    fr_t z;
    fr_inv(&z, &FR_ZERO);
    CHECK(fr_is_zero(&z));
    unsigned nonsq = 0;
    for (int i = 0; i < 300; i++) {
        fr_t a, t, s, sq;
        rand_fr(&a);
        fr_inv(&t, &a);
        fr_mul(&t, &t, &a);
        CHECK(fr_is_zero(&a) ? fr_is_zero(&t) : fr_is_one(&t));
        fr_sqr(&sq, &a);
        CHECK(fr_sqrt(&s, &sq));
        fr_sqr(&t, &s);
        CHECK(fr_eq(&t, &sq));
        /* a itself: a square iff Euler's criterion says so */
        fr_pow(&t, &a, FR_HALF_MODULUS, FR_NLIMBS);
        bool is_sq = fr_is_zero(&a) || fr_is_one(&t);
        CHECK_EQ_U64(fr_sqrt(&s, &a), is_sq);
        if (is_sq) {
            fr_sqr(&t, &s);
            CHECK(fr_eq(&t, &a));
        } else {
            nonsq++;
        }
        uint64_t e = cz_prng_below(test_prng(), 300);
        fr_t acc = FR_ONE;
        for (uint64_t k = 0; k < e; k++) {
            fr_mul(&acc, &acc, &a);
        }
        fr_pow_u64(&t, &a, e);
        CHECK(fr_eq(&t, &acc));
    }
    CHECK(nonsq > 50);
    /* squares of elements of high 2-power order exercise many Tonelli-Shanks rounds */
    fr_t w;
    memcpy(w.l, FR_ROOT_OF_UNITY_MONT, sizeof(w.l));
    for (int k = 0; k < 32; k++) {
        fr_t s, t;
        CHECK_EQ_U64(fr_sqrt(&s, &w), k > 0);
        if (k > 0) {
            fr_sqr(&t, &s);
            CHECK(fr_eq(&t, &w));
        }
        fr_sqr(&w, &w);
    }
}

TEST(fr_batch_inv)
{
    enum { N = 257 };
    static fr_t in[N], out[N], scratch[N];
    for (size_t i = 0; i < N; i++) {
        rand_fr(&in[i]);
        if (i % 17 == 3) {
            in[i] = FR_ZERO;
        }
    }
    fr_batch_inv(out, in, N, scratch);
    for (size_t i = 0; i < N; i++) {
        fr_t t;
        fr_inv(&t, &in[i]);
        CHECK_MSG(fr_eq(&t, &out[i]), "element %zu", i);
    }
    /* in place */
    memcpy(scratch, in, sizeof(in));
    fr_batch_inv(in, in, N, scratch);
    CHECK_MEM_EQ(in, out, sizeof(out));
    /* n = 0 and n = 1 */
    fr_batch_inv(out, in, 0, scratch);
    fr_t one = FR_ONE, r1;
    fr_batch_inv(&r1, &one, 1, scratch);
    CHECK(fr_is_one(&r1));
}

TEST(fr_from_u256_reduce)
{
    for (int i = 0; i < 500; i++) {
        uint64_t v[4], want[4];
        static const uint64_t one[4] = {1};
        fr_t a;
        fr_repr_t got;
        for (int j = 0; j < 4; j++) {
            v[j] = cz_prng_u64(test_prng());
        }
        if (i == 0) {
            memset(v, 0xff, sizeof(v));
        } else if (i == 1) {
            memcpy(v, FR_MODULUS, sizeof(v));
        }
        naive_mulmod(want, v, one, FR_MODULUS, 4);
        fr_from_u256_reduce(&a, v);
        fr_to_repr(&got, &a);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
    }
}

TEST(fr_adx_matches_portable)
{
#if FIELD_HAVE_ADX_KERNELS
    if (!field_cpu_has_adx()) {
        test_skip("CPU lacks ADX/BMI2");
    }
    CHECK_STR_EQ(fr_impl_name(), "adx");
    for (int i = 0; i < 20000; i++) {
        uint64_t a[4], b[4], w[4], g[4];
        rand_edge_below(a, FR_MODULUS, 4);
        rand_edge_below(b, FR_MODULUS, 4);
        fr_mul_portable(w, a, b);
        fr_mul_adx(g, a, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        fr_sqr_portable(w, a);
        fr_sqr_adx(g, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
        memcpy(g, b, sizeof(g));
        fr_mul_adx(g, a, g);
        fr_mul_portable(w, a, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        memcpy(g, a, sizeof(g));
        fr_sqr_adx(g, g);
        fr_sqr_portable(w, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
    }
#else
    test_skip("no ADX kernels in this build");
#endif
}

TEST(fr_addsub_matches_portable)
{
    /* fp_add/fp_sub (inline assembly on x86-64) against the portable C versions */
    for (int i = 0; i < 20000; i++) {
        fr_t a, b, got;
        uint64_t want[FR_NLIMBS];
        rand_edge_below(a.l, FR_MODULUS, FR_NLIMBS);
        rand_edge_below(b.l, FR_MODULUS, FR_NLIMBS);
        fr_add(&got, &a, &b);
        fr_add_portable(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FR_MODULUS, FR_NLIMBS));
        fr_sub(&got, &a, &b);
        fr_sub_portable(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FR_MODULUS, FR_NLIMBS));
        got = a;
        fr_sub(&got, &b, &got);
        fr_sub_portable(want, b.l, a.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        got = b;
        fr_add(&got, &got, &got);
        fr_add_portable(want, b.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
    }
    if (!FIELD_HAVE_X86_ADDSUB) {
        test_skip("no assembly add/sub in this build: compared the portable code with itself");
    }
}

TEST(fr_wide_sums)
{
    /* unreduced sums against chains of fr_add, the assembly accumulation against the portable
     * one, and the masks: mask 0 adds nothing, ~0 adds the element */
    for (int trial = 0; trial < 4000; trial++) {
        size_t n = trial < 3000 ? (size_t)(trial % 12) : 200 + (size_t)trial;
        fr_wide_t acc = {{0}}, port = {{0}};
        fr_t want = FR_ZERO, got;
        for (size_t i = 0; i < n; i++) {
            fr_t x;
            rand_fr(&x);
            uint64_t mask = (i * 7 + (size_t)trial) % 3 == 0 ? 0 : ~(uint64_t)0;
            fr_wide_add_masked(&acc, &x, mask);
            fr_wide_add_masked_portable(&port, &x, mask);
            if (mask) {
                fr_add(&want, &want, &x);
            }
        }
        CHECK_MEM_EQ(acc.l, port.l, sizeof(acc.l));
        fr_wide_reduce(&got, acc);
        CHECK_MSG(fr_eq(&got, &want), "trial %d (%zu terms)", trial, n);
        CHECK(limbs_lt(got.l, FR_MODULUS, FR_NLIMBS));
    }
    {
        /* the low limbs in [2r, 2^256) with no carry (three reps of about 2^256 / 3), and
         * 100000 reps of r - 1 (a carry limb near 2^16) */
        fr_t third = {{0x5555555555555555ULL, 0x5555555555555555ULL, 0x5555555555555555ULL,
                       0x5555555555555555ULL}};
        fr_t top = {{FR_MODULUS[0] - 1, FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}};
        fr_t want, got, k;
        fr_wide_t acc = {{0}};
        for (int i = 0; i < 3; i++) {
            fr_wide_add_masked(&acc, &third, ~(uint64_t)0);
        }
        CHECK(acc.l[FR_NLIMBS] == 0 && !limbs_lt(acc.l, FR_MODULUS, FR_NLIMBS));
        fr_add(&want, &third, &third);
        fr_add(&want, &want, &third);
        fr_wide_reduce(&got, acc);
        CHECK(fr_eq(&got, &want));
        memset(&acc, 0, sizeof(acc));
        for (int i = 0; i < 100000; i++) {
            fr_wide_add_masked(&acc, &top, ~(uint64_t)0);
        }
        fr_from_u64(&k, 100000);
        fr_mul(&want, &top, &k);
        fr_wide_reduce(&got, acc);
        CHECK(acc.l[FR_NLIMBS] > 1000 && fr_eq(&got, &want));
    }
}

/* out = a^e bit by bit (e: n limbs), the simplest square-and-multiply: the reference for
 * fr_pow's windowed path. */
static void naive_pow(fr_t *out, const fr_t *a, const uint64_t *e, size_t n)
{
    fr_t acc = FR_ONE;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fr_mul(&acc, &acc, &acc);
            if ((e[i] >> bit) & 1) {
                fr_mul(&acc, &acc, a);
            }
        }
    }
    *out = acc;
}

TEST(fr_inv_vs_fermat)
{
    /* safegcd inversion against a^(m-2) (Fermat), on random and edge values (and small powers
     * of two, whose divsteps runs are long), with both kernels */
    FOR_EACH_KERNEL({
        for (int i = 0; i < 400; i++) {
            fr_t a, want, got;
            if (i < 40) {
                fr_from_u64(&a, 1ULL << (i % 64));
                if (i >= 20) {
                    fr_neg(&a, &a);
                }
            } else {
                rand_fr(&a);
            }
            naive_pow(&want, &a, FR_INV_EXP, FR_NLIMBS);
            fr_inv(&got, &a);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
            got = a;
            fr_inv(&got, &got);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
        }
    });
}

TEST(fr_pow_multi_limb)
{
    for (int i = 0; i < 50; i++) {
        fr_t a, want, got;
        uint64_t e[FR_NLIMBS + 1];
        size_t n = 1 + cz_prng_below(test_prng(), FR_NLIMBS + 1);
        rand_fr(&a);
        for (size_t j = 0; j < n; j++) {
            e[j] = cz_prng_u64(test_prng());
        }
        if (i % 5 == 0) {
            e[n - 1] = 0; /* leading zero limbs */
        }
        if (i % 7 == 0) {
            e[0] = 0;
        }
        naive_pow(&want, &a, e, n);
        fr_pow(&got, &a, e, n);
        CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
    }
    /* a^(m-1) = 1, a^0 = 1 */
    fr_t a, t;
    uint64_t m1[FR_NLIMBS];
    memcpy(m1, FR_MODULUS, sizeof(m1));
    m1[0] -= 1;
    do {
        rand_fr(&a);
    } while (fr_is_zero(&a));
    fr_pow(&t, &a, m1, FR_NLIMBS);
    CHECK(fr_is_one(&t));
    fr_pow(&t, &a, m1, 0);
    CHECK(fr_is_one(&t));
}
