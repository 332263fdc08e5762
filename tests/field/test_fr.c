/* test_fr.c - Fr: known answers from @noble/curves 2.4.0 (tests/vectors/field/fr_vectors.h),
 * the spec's constants (groth16.md 1.3-1.4), a naive bit-serial modular multiplication, ring
 * laws, Tonelli-Shanks, batch inversion, and the ADX kernels against the portable ones. The
 * tests Fr shares with Fp are field_tests_impl.h; this file adds Fr's own.
 */
#include "field_test_util.h"
#include "vectors/field/fr_vectors.h"

#define NRAND 2000

/* Canonical limbs to an element and back through fr_repr_t. */
static bool fr_from_limbs_repr(fr_t *out, const uint64_t l[FR_NLIMBS])
{
    fr_repr_t r;
    memcpy(r.l, l, sizeof(r.l));
    return fr_from_repr(out, &r);
}

static void fr_to_limbs_repr(uint64_t l[FR_NLIMBS], const fr_t *a)
{
    fr_repr_t r;
    fr_to_repr(&r, a);
    memcpy(l, r.l, sizeof(r.l));
}

#define FE            fr_t
#define FE_FN(suffix) fr##suffix
#define FE_NLIMBS     FR_NLIMBS
#define FE_MODULUS    FR_MODULUS
#define FE_ONE        FR_ONE
#define FE_INV_EXP    FR_INV_EXP
#define HEX_FE        hex_fr
#define RAND_FE       rand_fr
#define FE_FROM_LIMBS fr_from_limbs_repr
#define FE_TO_LIMBS   fr_to_limbs_repr
#include "field_tests_impl.h"

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
