/* curve.cuh - G1 / G2 point arithmetic on the device, generic over the coordinate field
 * (fp_e for G1: y^2 = x^3 + 4; fp2_e for G2). Affine points have the memory layout of
 * g1_aff_t / g2_aff_t (all-zero coordinates = identity). Sums accumulate in XYZZ coordinates
 * (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; identity iff ZZ = 0), whose formulas need no field
 * inversion and cost 8M + 2S for a mixed addition: EFD, "Short Weierstrass curves, XYZZ
 * coordinates", add-2008-s, madd-2008-s, dbl-2008-s-1 and mdbl-2008-s-1 with a = 0
 * (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html).
 */
#ifndef CUZK_GPU_CUDA_CURVE_CUH
#define CUZK_GPU_CUDA_CURVE_CUH

#include "gpu/cuda/field.cuh"

namespace czg
{

template <class F> struct __align__(16) aff_t
{
    F x, y;
};

template <class F> struct __align__(16) xyzz_t
{
    F x, y, zz, zzz;
};

typedef aff_t<fp_e> g1_aff_e;
typedef aff_t<fp2_e> g2_aff_e;
typedef xyzz_t<fp_e> g1_xyzz_e;
typedef xyzz_t<fp2_e> g2_xyzz_e;

template <class F> CZ_DEV bool aff_is_inf(const aff_t<F> &p)
{
    return is_zero(p.x) && is_zero(p.y);
}

template <class F> CZ_DEV bool is_inf(const xyzz_t<F> &p)
{
    return is_zero(p.zz);
}

template <class F> CZ_DEV xyzz_t<F> xyzz_inf()
{
    F z = field_traits<F>::zero();
    return xyzz_t<F>{z, z, z, z};
}

template <class F> CZ_DEV xyzz_t<F> xyzz_from_aff(const aff_t<F> &p)
{
    if (aff_is_inf(p)) {
        return xyzz_inf<F>();
    }
    F one = field_traits<F>::one();
    return xyzz_t<F>{p.x, p.y, one, one};
}

/** 2P for affine P (mdbl-2008-s-1); the identity when y = 0. */
template <class F> CZ_DEV xyzz_t<F> xyzz_mdbl(const aff_t<F> &p)
{
    F u = dbl(p.y); /* U = 2Y */
    F v = sqr(u);   /* V = U^2 */
    F w = u * v;    /* W = U V */
    F s = p.x * v;  /* S = X V */
    F t = sqr(p.x);
    F m = t + dbl(t);       /* M = 3 X^2 */
    F x3 = sqr(m) - dbl(s); /* X3 = M^2 - 2S */
    F y3 = m * (s - x3) - w * p.y;
    return xyzz_t<F>{x3, y3, v, w};
}

/** 2P (dbl-2008-s-1); the identity stays the identity (V = 0). */
template <class F> CZ_DEV xyzz_t<F> xyzz_dbl(const xyzz_t<F> &p)
{
    F u = dbl(p.y);
    F v = sqr(u);
    F w = u * v;
    F s = p.x * v;
    F t = sqr(p.x);
    F m = t + dbl(t);
    F x3 = sqr(m) - dbl(s);
    F y3 = m * (s - x3) - w * p.y;
    return xyzz_t<F>{x3, y3, v * p.zz, w * p.zzz};
}

/** acc += Q for affine Q that is not the identity (madd-2008-s). */
template <class F> CZ_DEV void xyzz_add_aff(xyzz_t<F> &acc, const aff_t<F> &q)
{
    if (is_inf(acc)) {
        F one = field_traits<F>::one();
        acc = xyzz_t<F>{q.x, q.y, one, one};
        return;
    }
    F u2 = q.x * acc.zz;  /* U2 = X2 ZZ1 */
    F s2 = q.y * acc.zzz; /* S2 = Y2 ZZZ1 */
    F p = u2 - acc.x;     /* P = U2 - X1 */
    F r = s2 - acc.y;     /* R = S2 - Y1 */
    if (is_zero(p)) {
        if (is_zero(r)) {
            acc = xyzz_mdbl(q); /* Q == acc */
        } else {
            acc = xyzz_inf<F>(); /* Q == -acc */
        }
        return;
    }
    F pp = sqr(p);
    F ppp = p * pp;
    F q1 = acc.x * pp; /* Q = X1 PP */
    F x3 = sqr(r) - ppp - dbl(q1);
    F y3 = r * (q1 - x3) - acc.y * ppp;
    acc.zz = acc.zz * pp;
    acc.zzz = acc.zzz * ppp;
    acc.x = x3;
    acc.y = y3;
}

/** acc += Q, both XYZZ, either may be the identity (add-2008-s). */
template <class F> CZ_DEV void xyzz_add(xyzz_t<F> &acc, const xyzz_t<F> &q)
{
    if (is_inf(q)) {
        return;
    }
    if (is_inf(acc)) {
        acc = q;
        return;
    }
    F u1 = acc.x * q.zz;  /* U1 = X1 ZZ2 */
    F u2 = q.x * acc.zz;  /* U2 = X2 ZZ1 */
    F s1 = acc.y * q.zzz; /* S1 = Y1 ZZZ2 */
    F s2 = q.y * acc.zzz; /* S2 = Y2 ZZZ1 */
    F p = u2 - u1;
    F r = s2 - s1;
    if (is_zero(p)) {
        if (is_zero(r)) {
            acc = xyzz_dbl(acc);
        } else {
            acc = xyzz_inf<F>();
        }
        return;
    }
    F pp = sqr(p);
    F ppp = p * pp;
    F q1 = u1 * pp;
    F x3 = sqr(r) - ppp - dbl(q1);
    F y3 = r * (q1 - x3) - s1 * ppp;
    acc.zz = acc.zz * q.zz * pp;
    acc.zzz = acc.zzz * q.zzz * ppp;
    acc.x = x3;
    acc.y = y3;
}

/* Out-of-line versions for code outside the hot accumulation loop. */
template <class F> CZ_DEV_CALL void xyzz_add_call(xyzz_t<F> &acc, const xyzz_t<F> &q)
{
    xyzz_add(acc, q);
}

template <class F> CZ_DEV_CALL xyzz_t<F> xyzz_dbl_call(const xyzz_t<F> &p)
{
    return xyzz_dbl(p);
}

/** [k] P for a small k (double-and-add from the top bit). */
template <class F> CZ_DEV_CALL xyzz_t<F> xyzz_mul_small(const xyzz_t<F> &p, uint32_t k)
{
    xyzz_t<F> r = xyzz_inf<F>();
    for (int b = 31; b >= 0; b--) {
        if (!is_inf(r)) {
            r = xyzz_dbl_call(r);
        }
        if ((k >> b) & 1) {
            xyzz_add_call(r, p);
        }
    }
    return r;
}

} // namespace czg

#endif /* CUZK_GPU_CUDA_CURVE_CUH */
