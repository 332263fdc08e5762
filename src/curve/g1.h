/* g1.h - the group G1 of BLS12-381: E(Fp): y^2 = x^3 + 4, order-r subgroup.
 * Representation: g1_t is Jacobian (X, Y, Z), x = X/Z^2, y = Y/Z^3, identity iff Z = 0.
 * g1_aff_t is affine (x, y) in Montgomery form; the identity is all-zero coordinates (as blst),
 * which is never a curve point. Both are fixed-size values, safe in arrays and mapped files.
 * Memory: never allocates (batch conversions take caller scratch). Threads: reentrant.
 * Timing: variable-time in everything, scalars included. Outputs may alias inputs.
 */
#ifndef CUZK_CURVE_G1_H
#define CUZK_CURVE_G1_H

#include "common/pool.h"
#include "field/fp.h"
#include "field/fr.h"

#define G1_COMPRESSED_NBYTES   48
#define G1_UNCOMPRESSED_NBYTES 96

typedef struct g1 {
    fp_t x, y, z;
} g1_t;

typedef struct g1_aff {
    fp_t x, y;
} g1_aff_t;
_Static_assert(sizeof(g1_aff_t) == 96, "g1_aff_t layout");

/** The standard generator (spec groth16.md 1.2). */
extern const g1_aff_t G1_GEN;

void g1_set_identity(g1_t *out);
bool g1_is_identity(const g1_t *p);
void g1_aff_set_identity(g1_aff_t *out);
bool g1_aff_is_identity(const g1_aff_t *p);

void g1_from_aff(g1_t *out, const g1_aff_t *a);
void g1_to_aff(g1_aff_t *out, const g1_t *p);
/** Converts n points with one field inversion; `scratch` holds n fp_t (borrowed).
 *  Identities map to the affine identity. out must not overlap in. */
void g1_batch_to_aff(g1_aff_t *out, const g1_t *in, size_t n, fp_t *scratch);

void g1_add(g1_t *out, const g1_t *a, const g1_t *b);
/** Mixed addition out = a + b with b affine (identity allowed). */
void g1_add_aff(g1_t *out, const g1_t *a, const g1_aff_t *b);
void g1_dbl(g1_t *out, const g1_t *a);
void g1_neg(g1_t *out, const g1_t *a);
void g1_aff_neg(g1_aff_t *out, const g1_aff_t *a);
void g1_sub(g1_t *out, const g1_t *a, const g1_t *b);
bool g1_eq(const g1_t *a, const g1_t *b);
bool g1_aff_eq(const g1_aff_t *a, const g1_aff_t *b);

/** out = [k] p with k a canonical scalar (any 256-bit value; not reduced mod r). */
void g1_mul(g1_t *out, const g1_t *p, const fr_repr_t *k);
void g1_mul_fr(g1_t *out, const g1_t *p, const fr_t *k);
/** out = [k] p with k given as n 64-bit little-endian limbs. */
void g1_mul_limbs(g1_t *out, const g1_t *p, const uint64_t *k, size_t n);

bool g1_is_on_curve(const g1_t *p);
bool g1_aff_is_on_curve(const g1_aff_t *p); /* identity: true */
/** Subgroup membership ([r]P = O, or an equivalent endomorphism test); identity: true.
 *  Points off the curve: false. (Implemented as Scott's sigma(P) == [-z^2]P test, checked by
 *  tests/curve against [r]P = O inside and outside G1.) */
bool g1_aff_is_in_group(const g1_aff_t *p);

/** Encodings of spec groth16.md 2.3-2.4. Decoders return CUZK_E_FORMAT for bad flags, wrong
 *  identity encodings or coordinates >= p, and CUZK_E_NOT_IN_GROUP for off-curve points, for
 *  x = 0 (as blst), and (when check_group) for points outside the subgroup. The identity is
 *  accepted; callers that forbid it check g1_aff_is_identity. On failure *out is the identity.
 *  The uncompressed decoder rejects every flag but the exact identity pattern 0x40 (a strict
 *  reading of spec 2.4: no compressed form inside 96 bytes). */
CZ_MUST_USE cuzk_err g1_aff_from_compressed(g1_aff_t *out, const uint8_t in[48], bool check_group);
CZ_MUST_USE cuzk_err g1_aff_from_uncompressed(g1_aff_t *out, const uint8_t in[96],
                                              bool check_group);
void g1_aff_to_compressed(uint8_t out[48], const g1_aff_t *p);
void g1_aff_to_uncompressed(uint8_t out[96], const g1_aff_t *p);

/* ---- Fixed-base multiplication: one base, many scalars (fixed_base.c) ----------------------
 * A table for base P and window w (G1_FB_MIN_WINDOW <= w <= G1_FB_MAX_WINDOW) holds the affine
 * points d 2^(w i) P for windows i < ceil(256 / w) and digits d = 1 .. 2^(w-1), window by
 * window. [k]P is then the sum of one entry or its negation per non-zero signed digit of k:
 * at most ceil(256 / w) additions and no doublings, made in affine coordinates with one field
 * inversion per window shared by a batch of scalars. A table of w = 16 holds 524288 points
 * (48 MiB). Exact for every point and every k < 2^255; the result does not depend on the pool.
 */

#define G1_FB_MIN_WINDOW 2
#define G1_FB_MAX_WINDOW 16

/** Number of points in a table of window w. */
size_t g1_fb_table_len(unsigned w);

/** The window that minimizes table building plus n multiplications (from a cost model). */
unsigned g1_fb_window(size_t n);

/** Fills tab (g1_fb_table_len(w) points, caller-owned) for `base` (any point, borrowed).
 *  Rows are built in parallel over `pool` (NULL: on the caller). */
void g1_fb_table_init(g1_aff_t *tab, const g1_aff_t *base, unsigned w, cz_pool *pool);

/** out[j] = [k[j]] P for j < n, affine (identity for k = 0), with `tab` a table of window w
 *  for P (borrowed). Scalars are canonical (< 2^255 is a contract, CZ_CHECK). out must not
 *  overlap tab or k. Spread over `pool` in batches of 256 scalars. */
void g1_fb_mul(g1_aff_t *out, const g1_aff_t *tab, unsigned w, const fr_repr_t *k, size_t n,
               cz_pool *pool);

#endif /* CUZK_CURVE_G1_H */
