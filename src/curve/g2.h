/* g2.h - the group G2 of BLS12-381: E'(Fp2): y^2 = x^3 + 4(1 + u), order-r subgroup.
 * Same conventions as g1.h: Jacobian g2_t, affine g2_aff_t with all-zero identity, Montgomery
 * coordinates, memory order c0 then c1. On the wire Fp2 is c1 || c0 (spec groth16.md 2.3).
 * Memory: never allocates. Timing: variable-time. Outputs may alias inputs.
 */
#ifndef CUZK_CURVE_G2_H
#define CUZK_CURVE_G2_H

#include "common/pool.h"
#include "field/fp2.h"
#include "field/fr.h"

#define G2_COMPRESSED_NBYTES   96
#define G2_UNCOMPRESSED_NBYTES 192

typedef struct g2 {
    fp2_t x, y, z;
} g2_t;

typedef struct g2_aff {
    fp2_t x, y;
} g2_aff_t;
_Static_assert(sizeof(g2_aff_t) == 192, "g2_aff_t layout");

extern const g2_aff_t G2_GEN;

void g2_set_identity(g2_t *out);
bool g2_is_identity(const g2_t *p);
void g2_aff_set_identity(g2_aff_t *out);
bool g2_aff_is_identity(const g2_aff_t *p);

void g2_from_aff(g2_t *out, const g2_aff_t *a);
void g2_to_aff(g2_aff_t *out, const g2_t *p);
/** Converts n points with one field inversion; `scratch` holds n fp2_t (borrowed).
 *  Identities map to the affine identity. out must not overlap in. */
void g2_batch_to_aff(g2_aff_t *out, const g2_t *in, size_t n, fp2_t *scratch);

void g2_add(g2_t *out, const g2_t *a, const g2_t *b);
void g2_add_aff(g2_t *out, const g2_t *a, const g2_aff_t *b);
void g2_dbl(g2_t *out, const g2_t *a);
void g2_neg(g2_t *out, const g2_t *a);
void g2_aff_neg(g2_aff_t *out, const g2_aff_t *a);
void g2_sub(g2_t *out, const g2_t *a, const g2_t *b);
bool g2_eq(const g2_t *a, const g2_t *b);
bool g2_aff_eq(const g2_aff_t *a, const g2_aff_t *b);

void g2_mul(g2_t *out, const g2_t *p, const fr_repr_t *k);
void g2_mul_fr(g2_t *out, const g2_t *p, const fr_t *k);
void g2_mul_limbs(g2_t *out, const g2_t *p, const uint64_t *k, size_t n);

/** out = psi(p), the untwist-Frobenius-twist endomorphism (x, y) -> (conj(x) (1+u)^-((p-1)/3),
 *  conj(y) (1+u)^-((p-1)/2)); on G2 it acts as multiplication by z (= p mod r). */
void g2_psi(g2_t *out, const g2_t *p);

bool g2_is_on_curve(const g2_t *p);
bool g2_aff_is_on_curve(const g2_aff_t *p);
/** Subgroup membership (psi(Q) == [z]Q, Scott 2021, tested against [r]Q = O); identity: true;
 *  points off the curve: false. */
bool g2_aff_is_in_group(const g2_aff_t *p);

/** Encodings of spec groth16.md 2.3-2.4 with the return codes of g1.h (no x = 0 special case
 *  on G2). On failure *out is the identity. */
CZ_MUST_USE cuzk_err g2_aff_from_compressed(g2_aff_t *out, const uint8_t in[96], bool check_group);
CZ_MUST_USE cuzk_err g2_aff_from_uncompressed(g2_aff_t *out, const uint8_t in[192],
                                              bool check_group);
void g2_aff_to_compressed(uint8_t out[96], const g2_aff_t *p);
void g2_aff_to_uncompressed(uint8_t out[192], const g2_aff_t *p);

/* ---- Fixed-base multiplication: one base, many scalars (fixed_base.c) ----------------------
 * As in g1.h, over G2: tables of g2_fb_table_len(w) affine points (w = 16: 96 MiB). */

#define G2_FB_MIN_WINDOW 2
#define G2_FB_MAX_WINDOW 16

size_t g2_fb_table_len(unsigned w);
unsigned g2_fb_window(size_t n);
void g2_fb_table_init(g2_aff_t *tab, const g2_aff_t *base, unsigned w, cz_pool *pool);
void g2_fb_mul(g2_aff_t *out, const g2_aff_t *tab, unsigned w, const fr_repr_t *k, size_t n,
               cz_pool *pool);

#endif /* CUZK_CURVE_G2_H */
