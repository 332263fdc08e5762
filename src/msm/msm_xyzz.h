/* msm_xyzz.h - scalar point arithmetic in XYZZ coordinates (x = X/ZZ, y = Y/ZZZ,
 * ZZ^3 = ZZZ^2; the identity iff ZZ = 0), for the MSM's buckets and sums; a template included
 * by msm_impl.h and by the vector kernels (msm_vec_impl.h, which fall back to it for the rare
 * exceptional lane). The includer defines FE_ADD FE_SUB FE_DBL FE_NEG FE_MUL FE_SQR FE_IS_ZERO,
 * FE_ONE, AFF and JAC (see msm_impl.h), and XYZZ, the group's msm_xyzz_g1_t or msm_xyzz_g2_t.
 * Everything here is static.
 */

#include <string.h>

typedef XYZZ xyzz_t;

static inline bool xyzz_is_inf(const xyzz_t *p)
{
    return FE_IS_ZERO(&p->zz);
}

static inline void xyzz_set_inf(xyzz_t *p)
{
    memset(p, 0, sizeof(*p));
}

static inline void xyzz_set_aff(xyzz_t *p, const AFF *a, bool neg)
{
    p->x = a->x;
    if (neg) {
        FE_NEG(&p->y, &a->y);
    } else {
        p->y = a->y;
    }
    p->zz = FE_ONE;
    p->zzz = FE_ONE;
}

/* p = [2](x, y) for an affine point (EFD mdbl-2008-s-1, a = 0). y = 0 gives the identity. */
static void xyzz_set_dbl_aff(xyzz_t *p, const FE *x, const FE *y)
{
    FE u, v, w, s, m, t;

    FE_DBL(&u, y);      /* U = 2 Y1 */
    FE_SQR(&v, &u);     /* V = U^2 */
    FE_MUL(&w, &u, &v); /* W = U V */
    FE_MUL(&s, x, &v);  /* S = X1 V */
    FE_SQR(&m, x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t); /* M = 3 X1^2 */
    FE_SQR(&t, &m);
    FE_SUB(&t, &t, &s);
    FE_SUB(&t, &t, &s); /* X3 = M^2 - 2 S */
    FE_SUB(&s, &s, &t);
    FE_MUL(&s, &m, &s); /* M (S - X3) */
    FE_MUL(&u, &w, y);
    FE_SUB(&p->y, &s, &u); /* Y3 = M (S - X3) - W Y1 */
    p->x = t;
    p->zz = v;  /* ZZ3 = V */
    p->zzz = w; /* ZZZ3 = W */
}

/* p = [2]p (EFD dbl-2008-s-1, a = 0). */
static void xyzz_dbl(xyzz_t *p)
{
    FE u, v, w, s, m, t;

    if (xyzz_is_inf(p)) {
        return;
    }
    FE_DBL(&u, &p->y);     /* U = 2 Y1 */
    FE_SQR(&v, &u);        /* V = U^2 */
    FE_MUL(&w, &u, &v);    /* W = U V */
    FE_MUL(&s, &p->x, &v); /* S = X1 V */
    FE_SQR(&m, &p->x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t); /* M = 3 X1^2 */
    FE_SQR(&t, &m);
    FE_SUB(&t, &t, &s);
    FE_SUB(&t, &t, &s); /* X3 = M^2 - 2 S */
    FE_SUB(&s, &s, &t);
    FE_MUL(&s, &m, &s); /* M (S - X3) */
    FE_MUL(&u, &w, &p->y);
    FE_SUB(&p->y, &s, &u); /* Y3 = M (S - X3) - W Y1 */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &v);   /* ZZ3 = V ZZ1 */
    FE_MUL(&p->zzz, &p->zzz, &w); /* ZZZ3 = W ZZZ1 */
}

/* p += (x2, neg ? -y : y) for a non-identity affine point (EFD madd-2008-s). */
static void xyzz_madd(xyzz_t *p, const AFF *a, bool neg)
{
    FE y2, u2, s2, pp, ppp, q, r, t;

    if (neg) {
        FE_NEG(&y2, &a->y);
    } else {
        y2 = a->y;
    }
    if (xyzz_is_inf(p)) {
        p->x = a->x;
        p->y = y2;
        p->zz = FE_ONE;
        p->zzz = FE_ONE;
        return;
    }
    FE_MUL(&u2, &a->x, &p->zz); /* U2 = X2 ZZ1 */
    FE_MUL(&s2, &y2, &p->zzz);  /* S2 = Y2 ZZZ1 */
    FE_SUB(&u2, &u2, &p->x);    /* P = U2 - X1 */
    FE_SUB(&r, &s2, &p->y);     /* R = S2 - Y1 */
    if (FE_IS_ZERO(&u2)) {
        if (FE_IS_ZERO(&r)) {
            xyzz_set_dbl_aff(p, &a->x, &y2);
        } else {
            xyzz_set_inf(p);
        }
        return;
    }
    FE_SQR(&pp, &u2);       /* PP = P^2 */
    FE_MUL(&ppp, &u2, &pp); /* PPP = P PP */
    FE_MUL(&q, &p->x, &pp); /* Q = X1 PP */
    FE_SQR(&t, &r);
    FE_SUB(&t, &t, &ppp);
    FE_SUB(&t, &t, &q);
    FE_SUB(&t, &t, &q); /* X3 = R^2 - PPP - 2 Q */
    FE_SUB(&q, &q, &t);
    FE_MUL(&q, &r, &q); /* R (Q - X3) */
    FE_MUL(&s2, &p->y, &ppp);
    FE_SUB(&p->y, &q, &s2); /* Y3 = R (Q - X3) - Y1 PPP */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &pp);    /* ZZ3 = ZZ1 PP */
    FE_MUL(&p->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 PPP */
}

/* p += q (EFD add-2008-s). */
static void xyzz_add(xyzz_t *p, const xyzz_t *q)
{
    FE u1, u2, s1, s2, pp, ppp, qq, r, t;

    if (xyzz_is_inf(q)) {
        return;
    }
    if (xyzz_is_inf(p)) {
        *p = *q;
        return;
    }
    FE_MUL(&u1, &p->x, &q->zz);  /* U1 = X1 ZZ2 */
    FE_MUL(&u2, &q->x, &p->zz);  /* U2 = X2 ZZ1 */
    FE_MUL(&s1, &p->y, &q->zzz); /* S1 = Y1 ZZZ2 */
    FE_MUL(&s2, &q->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    FE_SUB(&u2, &u2, &u1);       /* P = U2 - U1 */
    FE_SUB(&r, &s2, &s1);        /* R = S2 - S1 */
    if (FE_IS_ZERO(&u2)) {
        if (FE_IS_ZERO(&r)) {
            xyzz_dbl(p);
        } else {
            xyzz_set_inf(p);
        }
        return;
    }
    FE_SQR(&pp, &u2);       /* PP = P^2 */
    FE_MUL(&ppp, &u2, &pp); /* PPP = P PP */
    FE_MUL(&qq, &u1, &pp);  /* Q = U1 PP */
    FE_SQR(&t, &r);
    FE_SUB(&t, &t, &ppp);
    FE_SUB(&t, &t, &qq);
    FE_SUB(&t, &t, &qq); /* X3 = R^2 - PPP - 2 Q */
    FE_SUB(&qq, &qq, &t);
    FE_MUL(&qq, &r, &qq); /* R (Q - X3) */
    FE_MUL(&s1, &s1, &ppp);
    FE_SUB(&p->y, &qq, &s1); /* Y3 = R (Q - X3) - S1 PPP */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &q->zz);
    FE_MUL(&p->zz, &p->zz, &pp); /* ZZ3 = ZZ1 ZZ2 PP */
    FE_MUL(&p->zzz, &p->zzz, &q->zzz);
    FE_MUL(&p->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 ZZZ2 PPP */
}

/* p = [k]p for a small k (double-and-add). */
static inline void xyzz_mul_small(xyzz_t *p, uint64_t k)
{
    xyzz_t r;

    xyzz_set_inf(&r);
    for (int bit = 63; bit >= 0; bit--) {
        xyzz_dbl(&r);
        if ((k >> bit) & 1) {
            xyzz_add(&r, p);
        }
    }
    *p = r;
}

/* Jacobian (X', Y', Z') = (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ): X'/Z'^2 = X/ZZ, Y'/Z'^3 = Y/ZZZ,
 * without relying on ZZ^3 = ZZZ^2. The identity maps to Z' = 0. */
static inline void xyzz_to_jac(JAC *out, const xyzz_t *p)
{
    FE a, t;

    FE_SQR(&t, &p->zzz);    /* ZZZ^2 */
    FE_MUL(&a, &p->zz, &t); /* ZZ ZZZ^2 */
    FE_MUL(&out->x, &p->x, &a);
    FE_SQR(&t, &p->zz); /* ZZ^2 */
    FE_MUL(&t, &t, &a); /* ZZ^3 ZZZ^2 */
    FE_MUL(&out->y, &p->y, &t);
    FE_MUL(&out->z, &p->zz, &p->zzz);
}
