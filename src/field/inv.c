/* inv.c - variable-time modular inversion by Bernstein-Yang "safegcd" divsteps, shared by Fp
 * (6 limbs) and Fr (4 limbs).
 *
 * Sources: D. J. Bernstein, B.-Y. Yang, "Fast constant-time gcd computation and modular
 * inversion" (TCHES 2019), for the divstep and its 2x2 transition matrices; P. Wuille's notes
 * "The safegcd implementation in libsecp256k1 explained", for batching 62 divsteps on machine
 * words, the variable-time skipping of even steps, and updating d, e modulo m while keeping them
 * in (-2m, m).
 *
 * divstep(delta, f, g), f odd:
 *   delta > 0 and g odd:  (1 - delta, g, (g - f) / 2)
 *   otherwise:            (1 + delta, f, (g + (g mod 2) f) / 2)
 * Starting from (1, m, x), g reaches 0 after finitely many steps and then f = +-gcd(m, x) = +-1.
 * Alongside, d and e satisfy d x = f and e x = g (mod m); so at the end x^-1 = +-d.
 *
 * Numbers are held in "signed-62" form: limbs of 62 bits, least significant first, the top limb
 * signed (its sign is the number's). 62 divsteps at a time are computed on the low limbs alone
 * and summarised in a matrix T with 2^62 (f', g') = T (f, g); then f, g, d, e are updated with
 * T in one pass each. Signed 128-bit intermediate products are two's complement in cz_u128.
 */
#include "field/internal.h"

#include "field/bls12_381_consts.h"

#define S62_MAXLIMBS 7
#define M62          (UINT64_MAX >> 2)

typedef struct s62 {
    int64_t v[S62_MAXLIMBS];
} s62_t;

typedef struct s62_mod {
    s62_t m;         /* the modulus in signed-62 form */
    uint64_t minv62; /* m^-1 mod 2^62 */
    size_t n;        /* signed-62 limbs in use */
} s62_mod;

/* ---- two's complement 128-bit helpers ---- */

/* The signed product a * b as a two's complement 128-bit value. Converting a negative int64_t
 * to cz_u128 adds 2^128, i.e. sign-extends, and products are exact modulo 2^128. */
static inline cz_u128 smul(int64_t a, int64_t b)
{
    return (cz_u128)a * (cz_u128)b;
}

static inline cz_u128 s128(int64_t a)
{
    return (cz_u128)a;
}

/* Arithmetic shift right by 62 of a two's complement 128-bit value. */
static inline cz_u128 sar62(cz_u128 x)
{
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t nlo = (lo >> 62) | (hi << 2);
    int64_t nhi = (int64_t)hi >> 62; /* arithmetic shift (GCC, Clang) */
    return ((cz_u128)(uint64_t)nhi << 64) | nlo;
}

static inline uint64_t low64(cz_u128 x)
{
    return (uint64_t)x;
}

/* ---- conversions ---- */

/* v (nl 64-bit limbs, non-negative) -> signed-62 with n limbs. */
static void s62_from_limbs(s62_t *out, const uint64_t *v, size_t nl, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t x = w < nl ? v[w] >> sh : 0;
        if (sh > 2 && w + 1 < nl) {
            x |= v[w + 1] << (64 - sh);
        }
        out->v[i] = (int64_t)(x & M62);
    }
    for (size_t i = n; i < S62_MAXLIMBS; i++) {
        out->v[i] = 0;
    }
}

/* Non-negative normalized signed-62 (every limb in [0, 2^62)) -> nl 64-bit limbs. */
static void s62_to_limbs(uint64_t *out, const s62_t *a, size_t nl, size_t n)
{
    for (size_t w = 0; w < nl; w++) {
        out[w] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t x = (uint64_t)a->v[i];
        if (w < nl) {
            out[w] |= x << sh;
        }
        if (sh > 2 && w + 1 < nl) {
            out[w + 1] |= x >> (64 - sh);
        }
    }
}

/* ---- 62 divsteps on the low limbs ---- */

typedef struct trans {
    int64_t u, v, q, r;
} trans_t;

/* Runs 62 divsteps on the low 62 bits f0 (odd), g0 and returns the new delta; t receives the
 * matrix with 2^62 (f', g') = t (f, g). Variable-time: runs of even g are skipped with one
 * count-trailing-zeros; odd steps are branch-free (conditional swap and negation by masks). */
static int64_t divsteps_62(int64_t delta, uint64_t f0, uint64_t g0, trans_t *t)
{
    /* 2^k f_k = u f + v g, 2^k g_k = q f + r g after k steps; entries stay below 2^62 in size */
    uint64_t u = 1, v = 0, q = 0, r = 1;
    uint64_t f = f0, g = g0;
    int left = 62;

    for (;;) {
        /* even g: (f, g) -> (f, g / 2), f's row doubles; the bit at `left` stops the scan */
        int z = __builtin_ctzll(g | (1ULL << left));
        g >>= z;
        u <<= z;
        v <<= z;
        delta += z;
        left -= z;
        if (left == 0) {
            break;
        }
        /* g odd: if delta > 0, first (f, g, delta) -> (g, -f, -delta) with the matrix rows
         * likewise; then in both cases g = (g + f) / 2, delta += 1 */
        uint64_t c = (uint64_t)0 - (uint64_t)(delta > 0);
        uint64_t x;
        x = (f ^ g) & c;
        f ^= x;
        g ^= x;
        g = (g ^ c) - c;
        x = (u ^ q) & c;
        u ^= x;
        q ^= x;
        q = (q ^ c) - c;
        x = (v ^ r) & c;
        v ^= x;
        r ^= x;
        r = (r ^ c) - c;
        delta = (int64_t)(((uint64_t)delta ^ c) - c);

        g = (g + f) >> 1;
        q += u;
        r += v;
        u <<= 1;
        v <<= 1;
        delta += 1;
        left -= 1;
        if (left == 0) {
            break;
        }
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return delta;
}

/* ---- applying a matrix ---- */

/* (f, g) = t (f, g) / 2^62 on the first n limbs (exact division). */
static void update_fg(s62_t *f, s62_t *g, const trans_t *t, size_t n)
{
    cz_u128 cf = smul(t->u, f->v[0]) + smul(t->v, g->v[0]);
    cz_u128 cg = smul(t->q, f->v[0]) + smul(t->r, g->v[0]);
    CZ_VERIFY((low64(cf) & M62) == 0 && (low64(cg) & M62) == 0);
    cf = sar62(cf);
    cg = sar62(cg);
    for (size_t i = 1; i < n; i++) {
        cf += smul(t->u, f->v[i]) + smul(t->v, g->v[i]);
        cg += smul(t->q, f->v[i]) + smul(t->r, g->v[i]);
        f->v[i - 1] = (int64_t)(low64(cf) & M62);
        g->v[i - 1] = (int64_t)(low64(cg) & M62);
        cf = sar62(cf);
        cg = sar62(cg);
    }
    f->v[n - 1] = (int64_t)low64(cf);
    g->v[n - 1] = (int64_t)low64(cg);
}

/* (d, e) = (t (d, e) + m (md, me)) / 2^62 with md, me chosen so that the division is exact
 * and d, e stay in (-2m, m) (Wuille's notes, "avoiding modulus additions"). */
static void update_de(s62_t *d, s62_t *e, const trans_t *t, const s62_mod *mod)
{
    size_t n = mod->n;
    int64_t sd = d->v[n - 1] >> 63, se = e->v[n - 1] >> 63; /* 0 or -1 */
    int64_t md = (t->u & sd) + (t->v & se);
    int64_t me = (t->q & sd) + (t->r & se);
    cz_u128 cd = smul(t->u, d->v[0]) + smul(t->v, e->v[0]);
    cz_u128 ce = smul(t->q, d->v[0]) + smul(t->r, e->v[0]);

    /* md -= (m^-1 (cd + m md)) mod 2^62, making cd + m md divisible by 2^62 */
    md -= (int64_t)((mod->minv62 * low64(cd) + (uint64_t)md) & M62);
    me -= (int64_t)((mod->minv62 * low64(ce) + (uint64_t)me) & M62);
    cd += smul(mod->m.v[0], md);
    ce += smul(mod->m.v[0], me);
    CZ_VERIFY((low64(cd) & M62) == 0 && (low64(ce) & M62) == 0);
    cd = sar62(cd);
    ce = sar62(ce);
    for (size_t i = 1; i < n; i++) {
        cd += smul(t->u, d->v[i]) + smul(t->v, e->v[i]) + smul(mod->m.v[i], md);
        ce += smul(t->q, d->v[i]) + smul(t->r, e->v[i]) + smul(mod->m.v[i], me);
        d->v[i - 1] = (int64_t)(low64(cd) & M62);
        e->v[i - 1] = (int64_t)(low64(ce) & M62);
        cd = sar62(cd);
        ce = sar62(ce);
    }
    d->v[n - 1] = (int64_t)low64(cd);
    e->v[n - 1] = (int64_t)low64(ce);
}

/* d in (-2m, m) -> d * sign in [0, m), sign = -1 or +1 (the sign of the final f). */
static void normalize(s62_t *d, int64_t sign, const s62_mod *mod)
{
    size_t n = mod->n;
    int64_t neg = sign >> 63; /* -1 to negate */
    cz_u128 c;

    /* d < 0: add m (now in (-m, m)); then negate if asked (still in (-m, m)) */
    int64_t add = d->v[n - 1] >> 63;
    for (size_t i = 0; i < n; i++) {
        int64_t x = d->v[i] + (mod->m.v[i] & add);
        d->v[i] = (x ^ neg) - neg;
    }
    /* propagate carries so that the low limbs are back in [0, 2^62) */
    c = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        c += s128(d->v[i]);
        d->v[i] = (int64_t)(low64(c) & M62);
        c = sar62(c);
    }
    c += s128(d->v[n - 1]);
    d->v[n - 1] = (int64_t)low64(c);
    /* still negative: add m once more */
    add = d->v[n - 1] >> 63;
    c = 0;
    for (size_t i = 0; i < n; i++) {
        c += s128(d->v[i]) + s128(mod->m.v[i] & add);
        d->v[i] = (int64_t)(i + 1 < n ? (low64(c) & M62) : low64(c));
        c = sar62(c);
    }
}

/* out = x^-1 mod m for x in [1, m), m odd, of nl 64-bit limbs; n62 signed-62 limbs must hold
 * m with room for a sign bit and two more bits (values in (-2m, m)). */
static void safegcd_inv(uint64_t *out, const uint64_t *x, const uint64_t *m, uint64_t mont_inv,
                        size_t nl, size_t n62)
{
    s62_mod mod;
    s62_t d = {{0}}, e = {{0}}, f, g;
    int64_t delta = 1;
    size_t len;

    mod.n = n62;
    s62_from_limbs(&mod.m, m, nl, mod.n);
    /* mont_inv = -m^-1 mod 2^64 */
    mod.minv62 = ((uint64_t)0 - mont_inv) & M62;

    e.v[0] = 1;
    f = mod.m;
    s62_from_limbs(&g, x, nl, mod.n);
    len = mod.n;
    for (;;) {
        trans_t t;
        delta = divsteps_62(delta, (uint64_t)f.v[0], (uint64_t)g.v[0], &t);
        update_de(&d, &e, &t, &mod);
        update_fg(&f, &g, &t, len);
        /* done when g = 0 */
        if (g.v[0] == 0) {
            int64_t any = 0;
            for (size_t i = 1; i < len; i++) {
                any |= g.v[i];
            }
            if (any == 0) {
                break;
            }
        }
        /* shrink f, g by a limb while both top limbs are 0 or -1 (sign only) */
        if (len > 1) {
            int64_t fn = f.v[len - 1], gn = g.v[len - 1];
            if (((fn ^ (fn >> 63)) | (gn ^ (gn >> 63))) == 0) {
                f.v[len - 2] |= (int64_t)((uint64_t)fn << 62);
                g.v[len - 2] |= (int64_t)((uint64_t)gn << 62);
                len--;
            }
        }
    }
    /* f = +-1 */
    normalize(&d, f.v[len - 1], &mod);
    s62_to_limbs(out, &d, nl, mod.n);
}

/* x is a Montgomery value aR; the plain inverse (aR)^-1 times R^3, Montgomery-multiplied, is
 * a^-1 R. */

void fp_inv_limbs(uint64_t out[6], const uint64_t a[6])
{
    uint64_t t[6];
    if (limbs_is_zero(a, 6)) {
        for (size_t i = 0; i < 6; i++) {
            out[i] = 0;
        }
        return;
    }
    safegcd_inv(t, a, FP_MODULUS, FP_MONT_INV, 6, 7); /* 381 bits: 7 x 62 = 434 */
    fp_mul_kernel(out, t, FP_MONT_R3);
}

void fr_inv_limbs(uint64_t out[4], const uint64_t a[4])
{
    uint64_t t[4];
    if (limbs_is_zero(a, 4)) {
        for (size_t i = 0; i < 4; i++) {
            out[i] = 0;
        }
        return;
    }
    safegcd_inv(t, a, FR_MODULUS, FR_MONT_INV, 4, 5); /* 255 bits: 5 x 62 = 310 */
    fr_mul_kernel(out, t, FR_MONT_R3);
}
