/* msm_vec_impl.h - the eight-lane kernels of one group: batched affine additions (VEC_FN, see
 * msm_vec_flush_g1 in internal.h) and bucket sums (SUMS_FN, msm_vec_bucket_sums_g1); a template
 * included once by msm_vec_g1.c and once by msm_vec_g2.c, after msm_vec.h and msm_xyzz.h. The
 * includer defines:
 *   AFF, FE, XYZZ                 the affine point, coordinate and XYZZ point types
 *   FE_MUL, FE_INV and the rest of msm_xyzz.h's FE_* macros (scalar arithmetic)
 *   VFE, VFE_NW                   the vector coordinate type and its 64-bit words per element
 *   vfe_from_words, vfe_words_of, vfe_sub, vfe_mul, vfe_sqr, vfe_reduce, vfe_set_one_mask,
 *   vfe_neg_mask                  as in msm_vec.h, for VFE
 *   VEC_FN, SUMS_FN               the functions' names
 *
 * Method (the batch of msm_impl.h's acc_flush, eight additions at a time): entry i sits in lane
 * i mod 8 of group i / 8, and each lane runs its own chain of Montgomery's trick:
 *   forward   den = x2 - x1, prod_g = prod_(g-1) den_g (lane-wise; work: den, then prod,
 *             ng vectors each),
 *   inverse   of the eight lane totals, by the scalar trick (one FE_INV),
 *   backward  1/den_g = inv prod_(g-1), inv *= den_g; lambda = (y2 - y1) / den,
 *             x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1, written over the bucket.
 * Lanes past n in the last group are masked: their den is 1 and nothing is stored.
 */

/* Byte offsets of the buckets and bases of entries [i0, i0 + cnt), and which add -P. */
static inline void vec_offsets(const uint32_t *eb, const uint32_t *ep, size_t i0, unsigned cnt,
                               __m512i *ob, __m512i *op, __mmask8 *neg)
{
    const __m512i size = _mm512_set1_epi64((long long)sizeof(AFF));
    const __m512i negbit = _mm512_set1_epi64((long long)MSM_PREF_NEG);
    __m512i vb, vp;
    if (cnt == 8) {
        vb = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(eb + i0)));
        vp = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(ep + i0)));
    } else {
        uint32_t b[8] = {0}, p[8] = {0};
        for (unsigned l = 0; l < cnt; l++) {
            b[l] = eb[i0 + l];
            p[l] = ep[i0 + l];
        }
        vb = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)b));
        vp = _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p));
    }
    *neg = _mm512_test_epi64_mask(vp, negbit);
    vp = _mm512_andnot_si512(negbit, vp);
    *ob = _mm512_mul_epu32(vb, size); /* 32 x 32 -> 64-bit products */
    *op = _mm512_mul_epu32(vp, size);
}

static inline __mmask8 vec_lanes(unsigned cnt)
{
    return (__mmask8)((1u << cnt) - 1u);
}

bool VEC_FN(AFF *aff, const AFF *points, const uint32_t *eb, const uint32_t *ep, size_t n,
            void *work)
{
    vfp_consts_t K;
    size_t ng = (n + 7) / 8;
    VFE *den = work, *prod = den + ng;
    char *bx = (char *)aff, *by = bx + sizeof(FE);
    const char *px = (const char *)points, *py = px + sizeof(FE);
    __m512i w1[VFE_NW], w2[VFE_NW];
    __m512i ob, op;
    __mmask8 k, neg;
    VFE x1, y1, x2, y2, d, inv, li, lam, t;

    if (n == 0) {
        return true;
    }
    vfp_consts_init(&K);

    /* forward; nothing is written outside the work areas until every den is known non-zero */
    for (size_t g = 0; g < ng; g++) {
        unsigned cnt = n - 8 * g < 8 ? (unsigned)(n - 8 * g) : 8u;
        k = vec_lanes(cnt);
        vec_offsets(eb, ep, 8 * g, cnt, &ob, &op, &neg);
        vfp_gather_words(w1, VFE_NW, bx, ob, k);
        vfp_gather_words(w2, VFE_NW, px, op, k);
        __mmask8 eq = k;
        for (unsigned i = 0; i < VFE_NW; i++) { /* canonical words: equal iff x1 == x2 */
            eq &= _mm512_cmpeq_epi64_mask(w1[i], w2[i]);
        }
        if (eq) {
            return false; /* a doubling or a cancellation: the caller's general path */
        }
        vfe_from_words(&x1, w1, &K);
        vfe_from_words(&x2, w2, &K);
        vfe_sub(&d, &x2, &x1, &K);
        vfe_set_one_mask(&d, &d, (__mmask8)~k, &K);
        den[g] = d;
        if (g == 0) {
            prod[0] = d;
        } else {
            vfe_mul(&prod[g], &prod[g - 1], &d, &K);
        }
    }

    /* the eight lane totals, inverted with one field inversion */
    {
        uint64_t words[VFE_NW][8];
        FE tot[8], pre[8], tinv, linv[8];
        vfe_reduce(&t, &prod[ng - 1], &K);
        vfe_words_of(w1, &t);
        for (unsigned i = 0; i < VFE_NW; i++) {
            _mm512_storeu_si512((void *)words[i], w1[i]);
        }
        for (unsigned l = 0; l < 8; l++) {
            uint64_t *dst = (uint64_t *)(void *)&tot[l];
            for (unsigned i = 0; i < VFE_NW; i++) {
                dst[i] = words[i][l];
            }
        }
        pre[0] = tot[0];
        for (unsigned l = 1; l < 8; l++) {
            FE_MUL(&pre[l], &pre[l - 1], &tot[l]);
        }
        FE_INV(&tinv, &pre[7]);
        for (unsigned l = 8; l-- > 1;) {
            FE_MUL(&linv[l], &tinv, &pre[l - 1]);
            FE_MUL(&tinv, &tinv, &tot[l]);
        }
        linv[0] = tinv;
        for (unsigned l = 0; l < 8; l++) {
            const uint64_t *src = (const uint64_t *)(const void *)&linv[l];
            for (unsigned i = 0; i < VFE_NW; i++) {
                words[i][l] = src[i];
            }
        }
        for (unsigned i = 0; i < VFE_NW; i++) {
            w1[i] = _mm512_loadu_si512((const void *)words[i]);
        }
        vfe_from_words(&inv, w1, &K);
    }

    /* backward */
    for (size_t g = ng; g-- > 0;) {
        unsigned cnt = n - 8 * g < 8 ? (unsigned)(n - 8 * g) : 8u;
        k = vec_lanes(cnt);
        if (g > 0) {
            vfe_mul(&li, &inv, &prod[g - 1], &K); /* 1 / den_g */
            vfe_mul(&inv, &inv, &den[g], &K);
        } else {
            li = inv;
        }
        vec_offsets(eb, ep, 8 * g, cnt, &ob, &op, &neg);
        vfp_gather_words(w1, VFE_NW, bx, ob, k);
        vfe_from_words(&x1, w1, &K);
        vfp_gather_words(w1, VFE_NW, px, op, k);
        vfe_from_words(&x2, w1, &K);
        vfp_gather_words(w1, VFE_NW, by, ob, k);
        vfe_from_words(&y1, w1, &K);
        vfp_gather_words(w1, VFE_NW, py, op, k);
        vfe_from_words(&y2, w1, &K);
        vfe_neg_mask(&y2, &y2, neg, &K);

        vfe_sub(&t, &y2, &y1, &K);
        vfe_mul(&lam, &t, &li, &K); /* lambda = (y2 - y1) / (x2 - x1) */
        vfe_sqr(&t, &lam, &K);
        vfe_sub(&t, &t, &x1, &K);
        vfe_sub(&t, &t, &x2, &K); /* x3 = lambda^2 - x1 - x2 */
        vfe_sub(&d, &x1, &t, &K);
        vfe_mul(&d, &lam, &d, &K);
        vfe_sub(&d, &d, &y1, &K); /* y3 = lambda (x1 - x3) - y1 */

        vfe_reduce(&t, &t, &K);
        vfe_words_of(w1, &t);
        vfp_scatter_words(bx, ob, k, w1, VFE_NW);
        vfe_reduce(&d, &d, &K);
        vfe_words_of(w1, &d);
        vfp_scatter_words(by, ob, k, w1, VFE_NW);
    }
    return true;
}

/* ---- Bucket sums: eight running sums at once in XYZZ coordinates. ----
 *
 * Lane l walks its segment from the top bucket down, as acc_running_sum does for one:
 *   R += bucket_b (mixed addition of the affine slot, then the XYZZ slot), T += R.
 * The formulas are EFD madd-2008-s and add-2008-s, as in msm_xyzz.h, without their special
 * cases. The identity is tracked per lane in masks (rinf, tinf), and the lanes where the
 * formula would divide by zero (P = 0: a doubling or the sum is the identity) are redone with
 * the scalar functions of msm_xyzz.h on that lane alone; so are additions of XYZZ slots, which
 * only conflicts of the batch queue leave (rare). */

typedef struct vxyzz {
    VFE x, y, zz, zzz;
} vxyzz_t;

static inline void vfe_blend(VFE *r, __mmask8 k, const VFE *a, const VFE *b)
{
    const vfp_t *pa = (const vfp_t *)(const void *)a, *pb = (const vfp_t *)(const void *)b;
    vfp_t *pr = (vfp_t *)(void *)r;
    for (unsigned c = 0; c < VFE_NW / 6; c++) {
        for (unsigned j = 0; j < VFP_NLIMBS; j++) {
            pr[c].l[j] = _mm512_mask_blend_epi64(k, pa[c].l[j], pb[c].l[j]);
        }
    }
}

static inline void vxyzz_blend(vxyzz_t *r, __mmask8 k, const vxyzz_t *a, const vxyzz_t *b)
{
    vfe_blend(&r->x, k, &a->x, &b->x);
    vfe_blend(&r->y, k, &a->y, &b->y);
    vfe_blend(&r->zz, k, &a->zz, &b->zz);
    vfe_blend(&r->zzz, k, &a->zzz, &b->zzz);
}

/* Lanes where a = 0 mod p. */
static inline __mmask8 vfe_zero_mask(const VFE *a, const vfp_consts_t *K)
{
    VFE t;
    vfe_reduce(&t, a, K);
    const vfp_t *pt = (const vfp_t *)(const void *)&t;
    __m512i acc = _mm512_setzero_si512();
    for (unsigned c = 0; c < VFE_NW / 6; c++) {
        for (unsigned j = 0; j < VFP_NLIMBS; j++) {
            acc = _mm512_or_si512(acc, pt[c].l[j]);
        }
    }
    return _mm512_testn_epi64_mask(acc, acc);
}

static void vfe_lane_get(FE *out, const VFE *v, unsigned lane, const vfp_consts_t *K)
{
    VFE t;
    __m512i w[VFE_NW];
    uint64_t buf[8];
    uint64_t *o = (uint64_t *)(void *)out;

    vfe_reduce(&t, v, K);
    vfe_words_of(w, &t);
    for (unsigned i = 0; i < VFE_NW; i++) {
        _mm512_storeu_si512((void *)buf, w[i]);
        o[i] = buf[lane];
    }
}

/* Sets one lane to a canonical scalar; the others keep their (lazy) values. */
static void vfe_lane_set(VFE *v, const FE *in, unsigned lane, const vfp_consts_t *K)
{
    __m512i w[VFE_NW];
    const uint64_t *src = (const uint64_t *)(const void *)in;

    vfe_words_of(w, v); /* values below 2p < 2^384: a change of radix only */
    for (unsigned i = 0; i < VFE_NW; i++) {
        w[i] = _mm512_mask_set1_epi64(w[i], (__mmask8)(1u << lane), (long long)src[i]);
    }
    vfe_from_words(v, w, K);
}

static void vxyzz_lane_get(xyzz_t *out, const vxyzz_t *v, unsigned lane, const vfp_consts_t *K)
{
    vfe_lane_get(&out->x, &v->x, lane, K);
    vfe_lane_get(&out->y, &v->y, lane, K);
    vfe_lane_get(&out->zz, &v->zz, lane, K);
    vfe_lane_get(&out->zzz, &v->zzz, lane, K);
}

static void vxyzz_lane_set(vxyzz_t *v, const xyzz_t *in, unsigned lane, const vfp_consts_t *K)
{
    vfe_lane_set(&v->x, &in->x, lane, K);
    vfe_lane_set(&v->y, &in->y, lane, K);
    vfe_lane_set(&v->zz, &in->zz, lane, K);
    vfe_lane_set(&v->zzz, &in->zzz, lane, K);
}

/* r = p + (x2, y2) by madd-2008-s; returns the lanes where P = U2 - X1 = 0 (r is then garbage). */
static __mmask8 vxyzz_madd(vxyzz_t *r, const vxyzz_t *p, const VFE *x2, const VFE *y2,
                           const vfp_consts_t *K)
{
    VFE u2, s2, pp, ppp, q, t, rr;

    vfe_mul(&u2, x2, &p->zz, K);  /* U2 = X2 ZZ1 */
    vfe_mul(&s2, y2, &p->zzz, K); /* S2 = Y2 ZZZ1 */
    vfe_sub(&u2, &u2, &p->x, K);  /* P = U2 - X1 */
    vfe_sub(&rr, &s2, &p->y, K);  /* R = S2 - Y1 */
    __mmask8 ex = vfe_zero_mask(&u2, K);
    vfe_sqr(&pp, &u2, K);       /* PP = P^2 */
    vfe_mul(&ppp, &u2, &pp, K); /* PPP = P PP */
    vfe_mul(&q, &p->x, &pp, K); /* Q = X1 PP */
    vfe_sqr(&t, &rr, K);
    vfe_sub(&t, &t, &ppp, K);
    vfe_sub(&t, &t, &q, K);
    vfe_sub(&t, &t, &q, K); /* X3 = R^2 - PPP - 2 Q */
    vfe_sub(&q, &q, &t, K);
    vfe_mul(&q, &rr, &q, K); /* R (Q - X3) */
    vfe_mul(&s2, &p->y, &ppp, K);
    vfe_sub(&r->y, &q, &s2, K); /* Y3 = R (Q - X3) - Y1 PPP */
    r->x = t;
    vfe_mul(&r->zz, &p->zz, &pp, K);    /* ZZ3 = ZZ1 PP */
    vfe_mul(&r->zzz, &p->zzz, &ppp, K); /* ZZZ3 = ZZZ1 PPP */
    return ex;
}

/* r = p + q by add-2008-s; returns the lanes where P = U2 - U1 = 0 (r is then garbage). */
static __mmask8 vxyzz_add(vxyzz_t *r, const vxyzz_t *p, const vxyzz_t *q, const vfp_consts_t *K)
{
    VFE u1, u2, s1, s2, pp, ppp, qq, t, rr;

    vfe_mul(&u1, &p->x, &q->zz, K);  /* U1 = X1 ZZ2 */
    vfe_mul(&u2, &q->x, &p->zz, K);  /* U2 = X2 ZZ1 */
    vfe_mul(&s1, &p->y, &q->zzz, K); /* S1 = Y1 ZZZ2 */
    vfe_mul(&s2, &q->y, &p->zzz, K); /* S2 = Y2 ZZZ1 */
    vfe_sub(&u2, &u2, &u1, K);       /* P = U2 - U1 */
    vfe_sub(&rr, &s2, &s1, K);       /* R = S2 - S1 */
    __mmask8 ex = vfe_zero_mask(&u2, K);
    vfe_sqr(&pp, &u2, K);       /* PP = P^2 */
    vfe_mul(&ppp, &u2, &pp, K); /* PPP = P PP */
    vfe_mul(&qq, &u1, &pp, K);  /* Q = U1 PP */
    vfe_sqr(&t, &rr, K);
    vfe_sub(&t, &t, &ppp, K);
    vfe_sub(&t, &t, &qq, K);
    vfe_sub(&t, &t, &qq, K); /* X3 = R^2 - PPP - 2 Q */
    vfe_sub(&qq, &qq, &t, K);
    vfe_mul(&qq, &rr, &qq, K); /* R (Q - X3) */
    vfe_mul(&s1, &s1, &ppp, K);
    vfe_sub(&r->y, &qq, &s1, K); /* Y3 = R (Q - X3) - S1 PPP */
    r->x = t;
    vfe_mul(&u1, &p->zz, &q->zz, K);
    vfe_mul(&r->zz, &u1, &pp, K); /* ZZ3 = ZZ1 ZZ2 PP */
    vfe_mul(&u1, &p->zzz, &q->zzz, K);
    vfe_mul(&r->zzz, &u1, &ppp, K); /* ZZZ3 = ZZZ1 ZZZ2 PPP */
    return ex;
}

void SUMS_FN(XYZZ T_out[8], XYZZ R_out[8], const AFF *aff, const XYZZ *ovf, const uint8_t *meta,
             const size_t b0[8], const size_t len[8], unsigned nseg)
{
    vfp_consts_t K;
    vxyzz_t T, R, N;
    VFE x2, y2, one;
    __m512i w[VFE_NW];
    __mmask8 tinf = 0xff, rinf = 0xff;
    size_t steps = 0;
    xyzz_t s;

    CZ_CHECK(nseg >= 1 && nseg <= 8);
    vfp_consts_init(&K);
    memset(&T, 0, sizeof(T));
    memset(&R, 0, sizeof(R));
    memset(&one, 0, sizeof(one));
    vfe_set_one_mask(&one, &one, 0xff, &K);
    for (unsigned l = 0; l < nseg; l++) {
        steps = len[l] > steps ? len[l] : steps;
    }
    for (size_t st = steps; st-- > 0;) {
        uint64_t off[8] = {0};
        __mmask8 act = 0, haff = 0, hovf = 0;
        for (unsigned l = 0; l < nseg; l++) {
            if (st < len[l]) {
                size_t b = b0[l] + st;
                act |= (__mmask8)(1u << l);
                off[l] = (uint64_t)b * sizeof(AFF);
                haff |= (__mmask8)((meta[b] & MSM_META_AFF ? 1u : 0u) << l);
                hovf |= (__mmask8)((meta[b] & MSM_META_OVF ? 1u : 0u) << l);
            }
        }
        /* R += affine slots */
        if (haff) {
            __m512i voff = _mm512_loadu_si512((const void *)off);
            vfp_gather_words(w, VFE_NW, (const char *)aff, voff, haff);
            vfe_from_words(&x2, w, &K);
            vfp_gather_words(w, VFE_NW, (const char *)aff + sizeof(FE), voff, haff);
            vfe_from_words(&y2, w, &K);
            __mmask8 gen = haff & (__mmask8)~rinf, init = haff & rinf;
            if (gen) {
                __mmask8 ex = vxyzz_madd(&N, &R, &x2, &y2, &K) & gen;
                vxyzz_blend(&R, gen & (__mmask8)~ex, &R, &N);
                for (unsigned l = 0; l < 8; l++) {
                    if (ex >> l & 1) {
                        vxyzz_lane_get(&s, &R, l, &K);
                        xyzz_madd(&s, &aff[b0[l] + st], false);
                        vxyzz_lane_set(&R, &s, l, &K);
                        rinf = (__mmask8)((rinf & ~(1u << l)) | (xyzz_is_inf(&s) ? 1u << l : 0));
                    }
                }
            }
            if (init) {
                vfe_blend(&R.x, init, &R.x, &x2);
                vfe_blend(&R.y, init, &R.y, &y2);
                vfe_blend(&R.zz, init, &R.zz, &one);
                vfe_blend(&R.zzz, init, &R.zzz, &one);
                rinf &= (__mmask8)~init;
            }
        }
        /* R += XYZZ slots */
        for (unsigned l = 0; l < 8; l++) {
            if (hovf >> l & 1) {
                vxyzz_lane_get(&s, &R, l, &K);
                if (rinf >> l & 1) {
                    xyzz_set_inf(&s);
                }
                xyzz_add(&s, &ovf[b0[l] + st]);
                vxyzz_lane_set(&R, &s, l, &K);
                rinf = (__mmask8)((rinf & ~(1u << l)) | (xyzz_is_inf(&s) ? 1u << l : 0));
            }
        }
        /* T += R */
        if (T_out == NULL) {
            continue;
        }
        __mmask8 ta = act & (__mmask8)~rinf;
        __mmask8 gen = ta & (__mmask8)~tinf, init = ta & tinf;
        if (gen) {
            __mmask8 ex = vxyzz_add(&N, &T, &R, &K) & gen;
            vxyzz_blend(&T, gen & (__mmask8)~ex, &T, &N);
            for (unsigned l = 0; l < 8; l++) {
                if (ex >> l & 1) {
                    xyzz_t r;
                    vxyzz_lane_get(&s, &T, l, &K);
                    vxyzz_lane_get(&r, &R, l, &K);
                    xyzz_add(&s, &r);
                    vxyzz_lane_set(&T, &s, l, &K);
                    tinf = (__mmask8)((tinf & ~(1u << l)) | (xyzz_is_inf(&s) ? 1u << l : 0));
                }
            }
        }
        if (init) {
            vxyzz_blend(&T, init, &T, &R);
            tinf &= (__mmask8)~init;
        }
    }
    for (unsigned l = 0; l < nseg; l++) {
        if (T_out == NULL) {
            /* R only */
        } else if (tinf >> l & 1) {
            xyzz_set_inf(&T_out[l]);
        } else {
            vxyzz_lane_get(&T_out[l], &T, l, &K);
        }
        if (rinf >> l & 1) {
            xyzz_set_inf(&R_out[l]);
        } else {
            vxyzz_lane_get(&R_out[l], &R, l, &K);
        }
    }
}
