/* test_g2.c - G2: known answers from @noble/curves 2.4.0 (tests/vectors/curve/g2_vectors.h),
 * the constants against the spec and re-derivations (b', the generator, psi's factors), psi's
 * characteristic equation, group laws, scalar multiplication against a naive double-and-add,
 * batch conversion, encodings (Fp2 as c1 || c0), and the psi-based subgroup test against the
 * plain [r]Q = O test on points inside and outside G2 (including points of every prime order
 * dividing the cofactor). The tests G2 shares with G1 are curve_tests_impl.h; this file adds
 * the spec's generator, the constants, psi, the on-curve checks and the wire order of Fp2.
 */
#include "harness/test.h"

#include "curve/curve_consts.h"
#include "curve/g2.h"
#include "curve_util.h"
#include "field/bls12_381_consts.h"
#include "vectors/curve/cofactor_vectors.h"
#include "vectors/curve/g2_vectors.h"

/* spec groth16.md 1.2: x.c1 || x.c0 with the compression flag */
static const uint8_t SPEC_G2_GEN_COMPRESSED[96] = {
    0x93, 0xe0, 0x2b, 0x60, 0x52, 0x71, 0x9f, 0x60, 0x7d, 0xac, 0xd3, 0xa0, 0x88, 0x27, 0x4f, 0x65,
    0x59, 0x6b, 0xd0, 0xd0, 0x99, 0x20, 0xb6, 0x1a, 0xb5, 0xda, 0x61, 0xbb, 0xdc, 0x7f, 0x50, 0x49,
    0x33, 0x4c, 0xf1, 0x12, 0x13, 0x94, 0x5d, 0x57, 0xe5, 0xac, 0x7d, 0x05, 0x5d, 0x04, 0x2b, 0x7e,
    0x02, 0x4a, 0xa2, 0xb2, 0xf0, 0x8f, 0x0a, 0x91, 0x26, 0x08, 0x05, 0x27, 0x2d, 0xc5, 0x10, 0x51,
    0xc6, 0xe4, 0x7a, 0xd4, 0xfa, 0x40, 0x3b, 0x02, 0xb4, 0x51, 0x0b, 0x64, 0x7a, 0xe3, 0xd1, 0x77,
    0x0b, 0xac, 0x03, 0x26, 0xa8, 0x05, 0xbb, 0xef, 0xd4, 0x80, 0x56, 0xc8, 0xc1, 0x21, 0xbd, 0xb8};

#define AFF              g2_aff_t
#define JAC              g2_t
#define FE               fp2_t
#define GFN(suffix)      g2##suffix
#define GEN              G2_GEN
#define COMP             G2_COMPRESSED_NBYTES
#define UNCOMP           G2_UNCOMPRESSED_NBYTES
#define RAND_G           rand_g2
#define RAND_E           rand_e2
#define COFACTOR_LIMBS   CURVE_H2_LIMBS
#define COFACTOR_PRIMES  CURVE_H2_PRIMES
#define ITERS_GROUP_LAWS 12
#define ITERS_SCALAR_MUL 4
#define ITERS_SUBGROUP   8
#define ITERS_ENCODING   15
#define BATCH_N          9
#define MIN_INSIDE       8
#define MIN_OUTSIDE      50
#define MIN_TORSION      30
#define ENCODING_EXTRA   g2_encoding_wire_order
#include "curve_tests_impl.h"

/* Wire order: x.c1 comes first in both encodings. */
static void g2_encoding_wire_order(const g2_aff_t *a, const uint8_t *compressed,
                                   const uint8_t *uncompressed)
{
    uint8_t xc1[FP_NBYTES];
    fp_to_bytes(xc1, &a->x.c1);
    CHECK(memcmp(uncompressed + 1, xc1 + 1, FP_NBYTES - 1) == 0 &&
          memcmp(compressed + 1, xc1 + 1, FP_NBYTES - 1) == 0);
}

TEST(g2_generator_matches_spec)
{
    g2_aff_t dec;
    uint8_t out[96];

    g2_aff_to_compressed(out, &G2_GEN);
    CHECK_MEM_EQ(out, SPEC_G2_GEN_COMPRESSED, 96);
    CHECK_OK(g2_aff_from_compressed(&dec, SPEC_G2_GEN_COMPRESSED, true));
    CHECK(g2_aff_eq(&dec, &G2_GEN));
    CHECK(g2_aff_is_on_curve(&G2_GEN));
    CHECK(g2_aff_is_in_group(&G2_GEN));
    CHECK(in_group_naive(&G2_GEN));
}

/* psi's factors re-derived: PSI_X = xi^-((p-1)/3), PSI_Y = xi^-((p-1)/2), xi = 1 + u. */
TEST(g2_constants_rederived)
{
    static const fp2_t b = {.c0 = {G2_B_C0_MONT_INIT}, .c1 = {G2_B_C1_MONT_INIT}};
    static const fp2_t psi_x = {.c0 = {G2_PSI_X_C0_MONT_INIT}, .c1 = {G2_PSI_X_C1_MONT_INIT}};
    static const fp2_t psi_y = {.c0 = {G2_PSI_Y_C0_MONT_INIT}, .c1 = {G2_PSI_Y_C1_MONT_INIT}};
    uint64_t pm1[6], e3[6];
    fp2_t xi, t, four;

    fp_from_u64(&four.c0, 4);
    fp_from_u64(&four.c1, 4);
    CHECK(fp2_eq(&b, &four));
    memcpy(pm1, FP_MODULUS, sizeof(pm1));
    pm1[0] -= 1;
    limbs_div_small(e3, pm1, 6, 3);
    xi.c0 = FP_ONE;
    xi.c1 = FP_ONE;
    fp2_pow(&t, &xi, e3, 6);
    fp2_inv(&t, &t);
    CHECK(fp2_eq(&t, &psi_x));
    fp2_pow(&t, &xi, FP_HALF_MODULUS, 6);
    fp2_inv(&t, &t);
    CHECK(fp2_eq(&t, &psi_y));
}

/* psi(G2) = [z] G2, and psi^2 - [t] psi + [p] = 0 on all of E'(Fp2), t = z + 1 the trace. */
TEST(g2_psi)
{
    cz_prng *g = test_prng();
    g2_t gen, a, b;
    uint64_t zabs = CURVE_Z_ABS, tabs = CURVE_Z_ABS - 1; /* t = z + 1 = -(|z| - 1) */

    g2_from_aff(&gen, &G2_GEN);
    g2_psi(&a, &gen);
    g2_mul_limbs(&b, &gen, &zabs, 1);
    g2_neg(&b, &b);
    check_eq(&a, &b);
    for (int it = 0; it < 6; it++) {
        g2_aff_t e;
        g2_t q, p1, p2, tp, pq;
        rand_e2(g, &e);
        g2_from_aff(&q, &e);
        g2_rescale(g, &q);
        g2_psi(&p1, &q);
        g2_psi(&p2, &p1);
        g2_mul_limbs(&tp, &p1, &tabs, 1); /* [|t|] psi(Q) = -[t] psi(Q) */
        g2_add(&tp, &p2, &tp);            /* psi^2(Q) - [t] psi(Q) */
        g2_mul_limbs(&pq, &q, FP_MODULUS, 6);
        g2_add(&tp, &tp, &pq);
        CHECK(g2_is_identity(&tp));
        CHECK(g2_is_on_curve(&p1));
        /* aliasing */
        g2_psi(&q, &q);
        check_eq(&q, &p1);
    }
    /* psi(O) = O */
    g2_set_identity(&a);
    g2_psi(&b, &a);
    CHECK(g2_is_identity(&b));
}

TEST(g2_on_curve)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 10; it++) {
        g2_t p;
        g2_aff_t a;
        rand_g2(g, &p);
        CHECK(g2_is_on_curve(&p));
        g2_to_aff(&a, &p);
        CHECK(g2_aff_is_on_curve(&a));
        fp_add(&p.y.c1, &p.y.c1, &FP_ONE);
        CHECK(!g2_is_on_curve(&p));
        fp_add(&a.x.c0, &a.x.c0, &FP_ONE);
        CHECK(!g2_aff_is_on_curve(&a));
        CHECK(!g2_aff_is_in_group(&a));
    }
}
