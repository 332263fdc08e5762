/* test_g1.c - G1: known answers from @noble/curves 2.4.0 (tests/vectors/curve/g1_vectors.h),
 * the constants against the spec and re-derivations, group laws, scalar multiplication against
 * a naive double-and-add, batch conversion, encodings, and the endomorphism subgroup test
 * against the plain [r]P = O test on points inside and outside G1 (including points of every
 * prime order dividing the cofactor). The tests G1 shares with G2 are curve_tests_impl.h; this
 * file adds the spec's generator, the constants, the on-curve checks and the order-3 point.
 */
#include "harness/test.h"

#include "curve/curve_consts.h"
#include "curve/g1.h"
#include "curve_util.h"
#include "vectors/curve/cofactor_vectors.h"
#include "vectors/curve/g1_vectors.h"

/* spec groth16.md 1.2 */
static const uint8_t SPEC_G1_GEN_COMPRESSED[48] = {
    0x97, 0xf1, 0xd3, 0xa7, 0x31, 0x97, 0xd7, 0x94, 0x26, 0x95, 0x63, 0x8c, 0x4f, 0xa9, 0xac, 0x0f,
    0xc3, 0x68, 0x8c, 0x4f, 0x97, 0x74, 0xb9, 0x05, 0xa1, 0x4e, 0x3a, 0x3f, 0x17, 0x1b, 0xac, 0x58,
    0x6c, 0x55, 0xe8, 0x3f, 0xf9, 0x7a, 0x1a, 0xef, 0xfb, 0x3a, 0xf0, 0x0a, 0xdb, 0x22, 0xc6, 0xbb};
/* canonical x, y little-endian limbs, spec groth16.md 1.2 */
static const uint64_t SPEC_G1_GEN_X[6] = {0xfb3af00adb22c6bbULL, 0x6c55e83ff97a1aefULL,
                                          0xa14e3a3f171bac58ULL, 0xc3688c4f9774b905ULL,
                                          0x2695638c4fa9ac0fULL, 0x17f1d3a73197d794ULL};
static const uint64_t SPEC_G1_GEN_Y[6] = {0x0caa232946c5e7e1ULL, 0xd03cc744a2888ae4ULL,
                                          0x00db18cb2c04b3edULL, 0xfcf5e095d5d00af6ULL,
                                          0xa09e30ed741d8ae4ULL, 0x08b3f481e3aaa0f1ULL};

#define AFF              g1_aff_t
#define JAC              g1_t
#define FE               fp_t
#define GFN(suffix)      g1##suffix
#define GEN              G1_GEN
#define COMP             G1_COMPRESSED_NBYTES
#define UNCOMP           G1_UNCOMPRESSED_NBYTES
#define RAND_G           rand_g1
#define RAND_E           rand_e1
#define COFACTOR_LIMBS   CURVE_H1_LIMBS
#define COFACTOR_PRIMES  CURVE_H1_PRIMES
#define ITERS_GROUP_LAWS 20
#define ITERS_SCALAR_MUL 8
#define ITERS_SUBGROUP   20
#define ITERS_ENCODING   30
#define BATCH_N          17
#define MIN_INSIDE       20
#define MIN_OUTSIDE      100
#define MIN_TORSION      70
#define SUBGROUP_EXTRA   g1_subgroup_order3
#include "curve_tests_impl.h"

/* (0, +-2): a point of order 3, whose x = 0 the endomorphism test must handle. */
static void g1_subgroup_order3(int *inside, int *outside)
{
    g1_aff_t z;
    fp_t two;
    fp_from_u64(&two, 2);
    z.x = FP_ZERO;
    z.y = two;
    CHECK(g1_aff_is_on_curve(&z));
    check_subgroup_agrees(&z, inside, outside);
    CHECK(!g1_aff_is_in_group(&z));
}

TEST(g1_generator_matches_spec)
{
    fp_t x, y;
    g1_aff_t dec;
    uint8_t out[48];

    CHECK(fp_from_limbs(&x, SPEC_G1_GEN_X));
    CHECK(fp_from_limbs(&y, SPEC_G1_GEN_Y));
    CHECK(fp_eq(&x, &G1_GEN.x));
    CHECK(fp_eq(&y, &G1_GEN.y));
    g1_aff_to_compressed(out, &G1_GEN);
    CHECK_MEM_EQ(out, SPEC_G1_GEN_COMPRESSED, 48);
    CHECK_OK(g1_aff_from_compressed(&dec, SPEC_G1_GEN_COMPRESSED, true));
    CHECK(g1_aff_eq(&dec, &G1_GEN));
    CHECK(g1_aff_is_on_curve(&G1_GEN));
    CHECK(g1_aff_is_in_group(&G1_GEN));
    CHECK(in_group_naive(&G1_GEN));
}

TEST(g1_constants_rederived)
{
    static const fp_t b = {G1_B_MONT_INIT};
    static const fp_t beta = {G1_BETA_MONT_INIT};
    fp_t four, t;
    g1_t g, zz;
    g1_aff_t a, s;
    uint64_t z2[2];

    fp_from_u64(&four, 4);
    CHECK(fp_eq(&b, &four));
    /* beta is a primitive cube root of unity */
    CHECK(!fp_is_one(&beta));
    fp_sqr(&t, &beta);
    fp_mul(&t, &t, &beta);
    CHECK(fp_is_one(&t));
    /* and (beta x, y) = [-z^2] G, with [z^2] computed by the generic multiplication */
    limbs_mul(z2, (const uint64_t[]){CURVE_Z_ABS}, 1, (const uint64_t[]){CURVE_Z_ABS}, 1);
    g1_from_aff(&g, &G1_GEN);
    g1_mul_limbs(&zz, &g, z2, 2);
    g1_neg(&zz, &zz);
    g1_to_aff(&a, &zz);
    fp_mul(&s.x, &G1_GEN.x, &beta);
    s.y = G1_GEN.y;
    CHECK(g1_aff_eq(&a, &s));
}

TEST(g1_on_curve)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 20; it++) {
        g1_t p;
        g1_aff_t a;
        rand_g1(g, &p);
        CHECK(g1_is_on_curve(&p));
        g1_to_aff(&a, &p);
        CHECK(g1_aff_is_on_curve(&a));
        fp_add(&p.y, &p.y, &FP_ONE);
        CHECK(!g1_is_on_curve(&p));
        fp_add(&a.x, &a.x, &FP_ONE);
        CHECK(!g1_aff_is_on_curve(&a));
        CHECK(!g1_aff_is_in_group(&a));
    }
}
