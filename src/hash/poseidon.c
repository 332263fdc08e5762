/* poseidon.c - Poseidon constants (Grain LFSR, Cauchy MDS, neptune's preprocessing) and the
 * native hash. Facts from spec circuits.md section 3 (neptune 11.0.0: round_constants.rs,
 * mds.rs, preprocessing.rs, poseidon.rs); the code is ours.
 */
#include "hash/poseidon.h"

#include <pthread.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Round numbers (spec 3.1; neptune round_numbers.rs, security margin included). */

#define STD_ARITIES(X) X(2, 55) X(4, 56) X(8, 57) X(11, 57) X(16, 59) X(24, 59) X(36, 60)

bool poseidon_arity_is_supported(size_t arity)
{
#define X(a, rp) || arity == (a)
    return false STD_ARITIES(X);
#undef X
}

uint32_t poseidon_partial_rounds(size_t arity, poseidon_strength strength)
{
    uint32_t rp = 0;
#define X(a, r)                                                                                    \
    if (arity == (a)) {                                                                            \
        rp = (r);                                                                                  \
    }
    STD_ARITIES(X)
#undef X
    CZ_CHECK(rp != 0);
    /* Strengthened: ceil(1.25 * R_P) (round_numbers.rs round_numbers_strengthened). */
    return strength == POSEIDON_STRENGTHENED ? (5 * rp + 3) / 4 : rp;
}

/* ---------------------------------------------------------------------------------------------
 * Grain LFSR (spec 3.2; the Poseidon paper's reference script create_rcs_grain.sage).
 * The 80-bit register as bits b_0 (oldest) .. b_79: lo holds b_0..b_63, hi holds b_64..b_79.
 * Every tap is below 64. */

typedef struct grain {
    uint64_t lo, hi;
} grain_t;

static unsigned grain_clock(grain_t *g)
{
    uint64_t x = g->lo;
    unsigned nb = (unsigned)((x >> 62) ^ (x >> 51) ^ (x >> 38) ^ (x >> 23) ^ (x >> 13) ^ x) & 1;
    /* drop b_0, append the new bit as b_79 */
    g->lo = (x >> 1) | (g->hi << 63);
    g->hi = (g->hi >> 1) | ((uint64_t)nb << 15);
    return nb;
}

static void grain_push(grain_t *g, unsigned *n, unsigned nbits, uint64_t v)
{
    for (unsigned i = nbits; i-- > 0;) { /* most significant bit first */
        uint64_t bit = (v >> i) & 1;
        if (*n < 64) {
            g->lo |= bit << *n;
        } else {
            g->hi |= bit << (*n - 64);
        }
        (*n)++;
    }
}

static void grain_init(grain_t *g, unsigned t, unsigned r_f, unsigned r_p)
{
    unsigned n = 0;

    g->lo = g->hi = 0;
    grain_push(g, &n, 2, 1);    /* field: prime field GF(p) */
    grain_push(g, &n, 4, 1);    /* S-box: x^alpha */
    grain_push(g, &n, 12, 255); /* field size in bits */
    grain_push(g, &n, 12, t);
    grain_push(g, &n, 10, r_f);
    grain_push(g, &n, 10, r_p);
    grain_push(g, &n, 30, 0x3fffffff);
    CZ_CHECK(n == 80);
    for (int i = 0; i < 160; i++) {
        grain_clock(g);
    }
}

/* Output bits come from pairs of clocked bits: (1, b) outputs b, (0, b) outputs nothing. */
static unsigned grain_bit(grain_t *g)
{
    for (;;) {
        unsigned first = grain_clock(g);
        unsigned second = grain_clock(g);
        if (first) {
            return second;
        }
    }
}

/* Next constant: 255-bit big-endian candidates (7 bits, then 31 bytes of 8, each MSB first),
 * rejected until one is < r. */
static void grain_field_element(grain_t *g, fr_t *out)
{
    for (;;) {
        uint8_t be[32];
        fr_repr_t repr;

        for (int i = 0; i < 32; i++) {
            unsigned acc = 0;
            for (int b = 0; b < (i == 0 ? 7 : 8); b++) {
                acc = acc << 1 | grain_bit(g);
            }
            be[i] = (uint8_t)acc;
        }
        for (int limb = 0; limb < 4; limb++) {
            uint64_t v = 0;
            for (int i = 0; i < 8; i++) {
                v = v << 8 | be[(3 - limb) * 8 + i];
            }
            repr.l[limb] = v;
        }
        if (fr_from_repr(out, &repr)) {
            return;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Small dense linear algebra over Fr (t <= 37). Row-major; apply() is "vector times matrix". */

/* out[j] = sum_i x[i*n + j] * v[i]. out must not alias v. */
static void apply(fr_t *restrict out, const fr_t *x, const fr_t *restrict v, size_t n)
{
    fr_t tmp;

    for (size_t j = 0; j < n; j++) {
        out[j] = FR_ZERO;
    }
    for (size_t i = 0; i < n; i++) {
        const fr_t *row = x + i * n;
        for (size_t j = 0; j < n; j++) {
            fr_mul(&tmp, &row[j], &v[i]);
            fr_add(&out[j], &out[j], &tmp);
        }
    }
}

/* Gauss-Jordan elimination on an n x w augmented matrix a (row-major, w >= n) whose left n x n
 * block is invertible: afterwards that block is the identity and the right block holds
 * inverse(left) * right. Row swaps pick the first non-zero pivot. */
static void gauss_jordan(fr_t *a, size_t n, size_t w)
{
    fr_t inv, f, tmp;

    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        while (piv < n && fr_is_zero(&a[piv * w + c])) {
            piv++;
        }
        CZ_CHECK(piv < n); /* singular: cannot happen for the Cauchy matrix and its minors */
        if (piv != c) {
            for (size_t k = 0; k < w; k++) {
                tmp = a[c * w + k];
                a[c * w + k] = a[piv * w + k];
                a[piv * w + k] = tmp;
            }
        }
        fr_inv(&inv, &a[c * w + c]);
        for (size_t k = c; k < w; k++) {
            fr_mul(&a[c * w + k], &a[c * w + k], &inv);
        }
        for (size_t r = 0; r < n; r++) {
            if (r == c || fr_is_zero(&a[r * w + c])) {
                continue;
            }
            f = a[r * w + c];
            for (size_t k = c; k < w; k++) {
                fr_mul(&tmp, &f, &a[c * w + k]);
                fr_sub(&a[r * w + k], &a[r * w + k], &tmp);
            }
        }
    }
}

/* out = inverse(m), n x n; scratch holds 2 n^2 elements and may start where out does (the
 * rows move forward: row i goes from scratch[2ni + n] to out[ni], never over unread rows). */
static void mat_inverse(fr_t *out, const fr_t *m, size_t n, fr_t *scratch)
{
    size_t w = 2 * n;

    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            scratch[i * w + j] = m[i * n + j];
            scratch[i * w + n + j] = i == j ? FR_ONE : FR_ZERO;
        }
    }
    gauss_jordan(scratch, n, w);
    for (size_t i = 0; i < n; i++) {
        memmove(&out[i * n], &scratch[i * w + n], n * sizeof(fr_t));
    }
}

/* ---------------------------------------------------------------------------------------------
 * Parameter derivation. */

static size_t storage_len(size_t t, size_t r_p)
{
    return POSEIDON_PARAMS_STORAGE_LEN(t, r_p);
}

size_t poseidon_params_storage_len(size_t arity, poseidon_strength strength)
{
    return storage_len(arity + 1, poseidon_partial_rounds(arity, strength));
}

/* Compressed round constants (spec 3.5; preprocessing.rs compress_round_constants with every
 * partial round preprocessed). */
static void derive_crc(fr_t *crc, const fr_t *rc, const fr_t *minv, size_t t, size_t r_p)
{
    const size_t hf = POSEIDON_HALF_FULL_ROUNDS;
    fr_t acc[POSEIDON_MAX_WIDTH], tmp[POSEIDON_MAX_WIDTH];
    fr_t *pk; /* the R_P single partial-round constants, stored in application order */
    size_t off = 0;

#define RK(r) (rc + (r)*t)
    /* 1. the first round's constants, added before any S-box */
    memcpy(crc, RK(0), t * sizeof(fr_t));
    off += t;
    /* 2. after S-box rounds 0 .. HF-2: M^-1 applied to the next round's constants */
    for (size_t i = 0; i + 1 < hf; i++) {
        apply(crc + off, minv, RK(i + 1), t);
        off += t;
    }
    /* 3. fold the partial rounds' constants backwards, starting from the first final full round:
     *    each step keeps element 0 of M^-1 acc as that partial round's constant. */
    pk = crc + off + t;
    memcpy(acc, RK(hf + r_p), t * sizeof(fr_t));
    for (size_t i = 0; i < r_p; i++) {
        apply(tmp, minv, acc, t);
        pk[r_p - 1 - i] = tmp[0]; /* produced last-round-first; stored first-round-first */
        tmp[0] = FR_ZERO;
        for (size_t k = 0; k < t; k++) {
            fr_add(&acc[k], RK(hf + r_p - 1 - i) + k, &tmp[k]);
        }
    }
    apply(crc + off, minv, acc, t); /* after the last first-half S-box round */
    off += t + r_p;
    /* 4. after the final full S-box rounds except the last: M^-1 of the next round's constants */
    for (size_t i = 1; i < hf; i++) {
        apply(crc + off, minv, RK(hf + r_p + i), t);
        off += t;
    }
#undef RK
    CZ_CHECK(off == POSEIDON_FULL_ROUNDS * t + r_p);
}

/* out = a * b, all n x n. out must not alias a or b. */
static void mat_mul(fr_t *restrict out, const fr_t *a, const fr_t *b, size_t n)
{
    fr_t tmp;

    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            out[i * n + j] = FR_ZERO;
        }
        for (size_t k = 0; k < n; k++) {
            for (size_t j = 0; j < n; j++) {
                fr_mul(&tmp, &a[i * n + k], &b[k * n + j]);
                fr_add(&out[i * n + j], &out[i * n + j], &tmp);
            }
        }
    }
}

/* Sparse factorisation of M for r_p partial rounds (spec 3.5; mds.rs factor_to_sparse_matrixes).
 *
 * neptune iterates cur_0 = M, cur_{k+1} = M * m_prime(cur_k), taking from each cur_k the
 * first row v_k, the first column w_k and m_hat_k = cur_k without row 0 and column 0, and
 * emits Sparse{[M00] ++ w_k * m_hat_k^-1, v_k}. Writing M in blocks [[M00, v], [w, Mh]], the
 * product M * [[1, 0], [0, m_hat_k]] is [[M00, v * m_hat_k], [w, Mh * m_hat_k]], so by
 * induction w_k = w, m_hat_k = Mh^(k+1) and v_k = v * Mh^k. Hence (row vectors, "times" as
 * apply() computes it):
 *     w_hat_k = w_hat_{k-1} * Mh^-1 (w_hat_{-1} = w),   v_k = v_{k-1} * Mh (v_0 = v),
 *     PRE_SPARSE = cur_{R_P} = [[M00, v * Mh^R_P], [w, Mh^(R_P + 1)]].
 * This gives exactly neptune's matrices (exact field arithmetic) with one inversion instead of
 * R_P. The supra_seal test vectors pin the result. scratch: 3 t^2 elements. */
static void derive_sparse(fr_t *pre_sparse, fr_t *sparse, const fr_t *m, size_t t, size_t r_p,
                          fr_t *scratch)
{
    const size_t n = t - 1;
    fr_t *mh = scratch, *a = scratch + n * n, *b = scratch + 2 * n * n;
    fr_t wh[POSEIDON_MAX_WIDTH], v[POSEIDON_MAX_WIDTH], tmp[POSEIDON_MAX_WIDTH];

    CZ_CHECK(r_p >= 1);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            mh[i * n + j] = m[(i + 1) * t + (j + 1)];
        }
        wh[i] = m[(i + 1) * t];
        v[i] = m[i + 1];
    }
    mat_inverse(a, mh, n, a); /* a = Mh^-1; the work space is a and b */
    for (size_t k = 0; k < r_p; k++) {
        fr_t *s = sparse + (r_p - 1 - k) * (2 * t - 1); /* the list is used in reverse order */

        apply(tmp, a, wh, n); /* w_hat_k */
        memcpy(wh, tmp, n * sizeof(fr_t));
        if (k > 0) {
            apply(tmp, mh, v, n); /* v_k */
            memcpy(v, tmp, n * sizeof(fr_t));
        }
        s[0] = m[0];
        memcpy(s + 1, wh, n * sizeof(fr_t));
        memcpy(s + t, v, n * sizeof(fr_t));
    }

    /* PRE_SPARSE: first row M00, v_{R_P-1} * Mh; first column w; the rest Mh^(R_P + 1),
     * by left-to-right square-and-multiply (powers of Mh commute). */
    apply(tmp, mh, v, n);
    pre_sparse[0] = m[0];
    memcpy(pre_sparse + 1, tmp, n * sizeof(fr_t));
    size_t e = r_p + 1, top = 0;
    while ((e >> (top + 1)) != 0) {
        top++;
    }
    memcpy(a, mh, n * n * sizeof(fr_t));
    for (size_t bit = top; bit-- > 0;) {
        mat_mul(b, a, a, n);
        if ((e >> bit) & 1) {
            mat_mul(a, b, mh, n);
        } else {
            memcpy(a, b, n * n * sizeof(fr_t));
        }
    }
    for (size_t i = 0; i < n; i++) {
        pre_sparse[(i + 1) * t] = m[(i + 1) * t];
        memcpy(pre_sparse + (i + 1) * t + 1, a + i * n, n * sizeof(fr_t));
    }
}

void poseidon_params_init(poseidon_params_t *p, size_t arity, poseidon_strength strength,
                          fr_t *storage, size_t storage_cap)
{
    CZ_CHECK(p && storage && poseidon_arity_is_supported(arity));
    const size_t t = arity + 1, r_f = POSEIDON_FULL_ROUNDS;
    const size_t r_p = poseidon_partial_rounds(arity, strength);
    CZ_CHECK(storage_cap >= storage_len(t, r_p));

    fr_t *rc = storage;
    fr_t *mds = rc + (r_f + r_p) * t;
    fr_t *mds_inv = mds + t * t;
    fr_t *crc = mds_inv + t * t;
    fr_t *pre_sparse = crc + r_f * t + r_p;
    fr_t *sparse = pre_sparse + t * t;
    fr_t *scratch = sparse + r_p * (2 * t - 1);
    CZ_CHECK((size_t)(scratch + 3 * t * t - storage) == storage_len(t, r_p));

    memset(p, 0, sizeof(*p));
    p->arity = (uint32_t)arity;
    p->width = (uint32_t)t;
    p->full_rounds = (uint32_t)r_f;
    p->partial_rounds = (uint32_t)r_p;
    p->strength = strength;
    poseidon_tag_merkle(&p->merkle_tag, arity);

    /* Round constants: the Grain LFSR seeded with (t, R_F, R_P). */
    grain_t g;
    grain_init(&g, (unsigned)t, (unsigned)r_f, (unsigned)r_p);
    for (size_t i = 0; i < (r_f + r_p) * t; i++) {
        grain_field_element(&g, &rc[i]);
    }

    /* Cauchy MDS: M[i][j] = 1 / (x_i + y_j), x_i = i, y_j = t + j; i + t + j takes the 2t - 1
     * values t .. 3t - 2. */
    fr_t inv[2 * POSEIDON_MAX_WIDTH - 1];
    for (size_t k = 0; k < 2 * t - 1; k++) {
        fr_t d;
        fr_from_u64(&d, (uint64_t)(t + k));
        fr_inv(&inv[k], &d);
    }
    for (size_t i = 0; i < t; i++) {
        for (size_t j = 0; j < t; j++) {
            mds[i * t + j] = inv[i + j];
        }
    }
    mat_inverse(mds_inv, mds, t, scratch);

    derive_crc(crc, rc, mds_inv, t, r_p);
    derive_sparse(pre_sparse, sparse, mds, t, r_p, scratch);

    p->rc = rc;
    p->mds = mds;
    p->mds_inv = mds_inv;
    p->crc = crc;
    p->pre_sparse = pre_sparse;
    p->sparse = sparse;
}

/* Static standard parameters, one set per arity, each built under its own pthread_once. */
#define X(a, rp)                                                                                   \
    static fr_t std_storage_##a[POSEIDON_PARAMS_STORAGE_LEN((a) + 1, (rp))];                       \
    static poseidon_params_t std_params_##a;                                                       \
    static pthread_once_t std_once_##a = PTHREAD_ONCE_INIT;                                        \
    static void std_init_##a(void)                                                                 \
    {                                                                                              \
        poseidon_params_init(&std_params_##a, (a), POSEIDON_STANDARD, std_storage_##a,             \
                             ARRAY_LEN(std_storage_##a));                                          \
    }
STD_ARITIES(X)
#undef X

const poseidon_params_t *poseidon_params(size_t arity)
{
#define X(a, rp)                                                                                   \
    if (arity == (a)) {                                                                            \
        CZ_CHECK(pthread_once(&std_once_##a, std_init_##a) == 0);                                  \
        return &std_params_##a;                                                                    \
    }
    STD_ARITIES(X)
#undef X
    CZ_CHECK(poseidon_arity_is_supported(arity));
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Domain tags (spec 3.4). */

void poseidon_tag_merkle(fr_t *out, size_t arity)
{
    CZ_CHECK(arity >= 1 && arity <= 63);
    fr_from_u64(out, ((uint64_t)1 << arity) - 1);
}

void poseidon_tag_constant_length(fr_t *out, uint64_t len)
{
    fr_repr_t r = {{0, len, 0, 0}};
    CZ_CHECK(fr_from_repr(out, &r));
}

void poseidon_tag_custom(fr_t *out, uint64_t id)
{
    CZ_CHECK(id >= 1 && id <= 256);
    fr_from_u64(out, id << 40);
}

/* ---------------------------------------------------------------------------------------------
 * Permutations. */

static inline void sbox(fr_t *x)
{
    fr_t x2;
    fr_sqr(&x2, x);
    fr_sqr(&x2, &x2);
    fr_mul(x, x, &x2);
}

/* state = state times the dense t x t matrix x. */
static void mul_dense(fr_t *state, const fr_t *x, size_t t)
{
    fr_t out[POSEIDON_MAX_WIDTH];
    apply(out, x, state, t);
    memcpy(state, out, t * sizeof(fr_t));
}

/* state = state times a sparse matrix (layout in poseidon.h). */
static void mul_sparse(fr_t *state, const fr_t *s, size_t t)
{
    fr_t s0 = state[0], acc, tmp;

    fr_mul(&acc, &s[0], &state[0]);
    for (size_t i = 1; i < t; i++) {
        fr_mul(&tmp, &s[i], &state[i]);
        fr_add(&acc, &acc, &tmp);
    }
    for (size_t j = 1; j < t; j++) {
        fr_mul(&tmp, &s[t + j - 1], &s0);
        fr_add(&state[j], &state[j], &tmp);
    }
    state[0] = acc;
}

void poseidon_permute(fr_t *state, const poseidon_params_t *p)
{
    const size_t t = p->width, r_p = p->partial_rounds, hf = POSEIDON_HALF_FULL_ROUNDS;
    const fr_t *c = p->crc;

    for (size_t i = 0; i < t; i++) {
        fr_add(&state[i], &state[i], &c[i]);
    }
    c += t;
    /* First half: S-boxes plus the next (compressed) constants; the last of these rounds
     * multiplies by the pre-sparse matrix instead of M. */
    for (size_t r = 0; r < hf; r++) {
        for (size_t i = 0; i < t; i++) {
            sbox(&state[i]);
            fr_add(&state[i], &state[i], &c[i]);
        }
        c += t;
        mul_dense(state, r + 1 == hf ? p->pre_sparse : p->mds, t);
    }
    for (size_t r = 0; r < r_p; r++) {
        sbox(&state[0]);
        fr_add(&state[0], &state[0], c);
        c += 1;
        mul_sparse(state, p->sparse + r * (2 * t - 1), t);
    }
    for (size_t r = 0; r + 1 < hf; r++) {
        for (size_t i = 0; i < t; i++) {
            sbox(&state[i]);
            fr_add(&state[i], &state[i], &c[i]);
        }
        c += t;
        mul_dense(state, p->mds, t);
    }
    for (size_t i = 0; i < t; i++) {
        sbox(&state[i]);
    }
    mul_dense(state, p->mds, t);
    CZ_VERIFY(c == p->crc + POSEIDON_FULL_ROUNDS * t + r_p);
}

void poseidon_permute_ref(fr_t *state, const poseidon_params_t *p)
{
    const size_t t = p->width, hf = POSEIDON_HALF_FULL_ROUNDS;
    const size_t rounds = p->full_rounds + p->partial_rounds;

    for (size_t r = 0; r < rounds; r++) {
        const fr_t *rk = p->rc + r * t;
        bool full = r < hf || r >= hf + p->partial_rounds;
        for (size_t i = 0; i < t; i++) {
            fr_add(&state[i], &state[i], &rk[i]);
        }
        if (full) {
            for (size_t i = 0; i < t; i++) {
                sbox(&state[i]);
            }
        } else {
            sbox(&state[0]);
        }
        mul_dense(state, p->mds, t);
    }
}

void poseidon_hash_tagged(fr_t *out, const fr_t *tag, const fr_t *in, size_t n,
                          const poseidon_params_t *p)
{
    fr_t state[POSEIDON_MAX_WIDTH];

    CZ_CHECK(n <= p->arity);
    state[0] = *tag;
    memcpy(&state[1], in, n * sizeof(fr_t));
    for (size_t i = n + 1; i < p->width; i++) {
        state[i] = FR_ZERO;
    }
    poseidon_permute(state, p);
    *out = state[1];
}

void poseidon_hash(fr_t *out, const fr_t *in, size_t arity, const poseidon_params_t *p)
{
    CZ_CHECK(arity == p->arity);
    poseidon_hash_tagged(out, &p->merkle_tag, in, arity, p);
}
