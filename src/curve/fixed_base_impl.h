/* fixed_base_impl.h - the table builder and the batched multiplication of fixed_base.c for one
 * group; a template included by fixed_base.c once for G1 (coordinates in Fp) and once for G2
 * (coordinates in Fp2), after the shared helpers (fb_nwin, fb_half, fb_check_window, fb_digit,
 * fb_prefetch, fb_abs, FB_LANES). The includer defines:
 *   FB_FE                  the coordinate field type (fp_t or fp2_t)
 *   FB_FE_FN(suffix)       the field's function names, e.g. fp##suffix (_sub, _mul, ...)
 *   FB_FE_ONE              the field's one (a const object)
 *   FB_AFF, FB_JAC         affine and Jacobian point types (members x, y / x, y, z)
 *   FB_FN(suffix)          the group's names, e.g. g1##suffix (curve and fixed-base functions)
 *   FB_ROW_BLOCK           Jacobian points converted to affine at once while building a row
 * Defines the public FB_FN(_fb_table_init) and FB_FN(_fb_mul) (declared in g1.h and g2.h), and
 * static helpers named FB_FN(_fb_...); undefines the parameters at the end, so the next
 * instantiation starts clean. The method is in fixed_base.c's file comment.
 */

typedef struct FB_FN(_fb_build) {
    FB_AFF *tab;
    const FB_AFF *base;
    unsigned w;
} FB_FN(_fb_build_t);

/* Rows [begin, end) of the table. */
static void FB_FN(_fb_rows)(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const FB_FN(_fb_build_t) *b = ctx;
    size_t half = fb_half(b->w);
    FB_JAC jac[FB_ROW_BLOCK];
    FB_FE scratch[FB_ROW_BLOCK];
    (void)worker;

    for (size_t i = begin; i < end; i++) {
        FB_AFF *row = b->tab + i * half;
        FB_AFF first;
        FB_JAC cur;

        /* first = 2^(w i) P */
        FB_FN(_from_aff)(&cur, b->base);
        for (size_t s = 0; s < (size_t)b->w * i; s++) {
            FB_FN(_dbl)(&cur, &cur);
        }
        FB_FN(_to_aff)(&first, &cur);
        FB_FN(_set_identity)(&cur);
        for (size_t d0 = 0; d0 < half; d0 += FB_ROW_BLOCK) {
            size_t len = half - d0 < FB_ROW_BLOCK ? half - d0 : FB_ROW_BLOCK;
            for (size_t j = 0; j < len; j++) {
                FB_FN(_add_aff)(&cur, &cur, &first);
                jac[j] = cur;
            }
            FB_FN(_batch_to_aff)(row + d0, jac, len, scratch);
        }
    }
}

void FB_FN(_fb_table_init)(FB_AFF *tab, const FB_AFF *base, unsigned w, cz_pool *pool)
{
    FB_FN(_fb_build_t) b = {.tab = tab, .base = base, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, fb_nwin(w), 1, FB_FN(_fb_rows), &b);
}

/* out[j] = [k[j]] P for j < len <= FB_LANES. */
static void FB_FN(_fb_lanes)(FB_AFF *out, const FB_AFF *tab, unsigned w, const fr_repr_t *k,
                             size_t len)
{
    size_t half = fb_half(w);
    unsigned nwin = fb_nwin(w);
    unsigned carry[FB_LANES];
    int dig[FB_LANES];
    FB_FE pre[FB_LANES];

    for (size_t j = 0; j < len; j++) {
        CZ_CHECK((k[j].l[3] >> 63) == 0); /* k < 2^255 */
        FB_FN(_aff_set_identity)(&out[j]);
        carry[j] = 0;
    }
    for (unsigned i = 0; i < nwin; i++) {
        const FB_AFF *row = tab + (size_t)i * half;
        FB_FE acc = FB_FE_ONE, inv;
        size_t nact = 0;

        for (size_t j = 0; j < len; j++) {
            dig[j] = fb_digit(&k[j], w, i, &carry[j]);
            if (dig[j] != 0) {
                fb_prefetch(&row[fb_abs(dig[j]) - 1], sizeof(FB_AFF));
            }
        }
        /* forward: prefix products of x_T - x over the lanes that add in affine */
        for (size_t j = 0; j < len; j++) {
            const FB_AFF *t;
            FB_FE dx;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            if (FB_FN(_aff_is_identity)(&out[j])) {
                out[j] = *t;
                if (dig[j] < 0) {
                    FB_FE_FN(_neg)(&out[j].y, &out[j].y);
                }
                dig[j] = 0;
                continue;
            }
            if (FB_FE_FN(_eq)(&out[j].x, &t->x)) {
                /* T = +-acc: complete Jacobian formulas (doubling or the identity) */
                FB_AFF tt;
                FB_JAC a;
                tt = *t;
                if (dig[j] < 0) {
                    FB_FE_FN(_neg)(&tt.y, &tt.y);
                }
                FB_FN(_from_aff)(&a, &out[j]);
                FB_FN(_add_aff)(&a, &a, &tt);
                FB_FN(_to_aff)(&out[j], &a);
                dig[j] = 0;
                continue;
            }
            pre[j] = acc;
            FB_FE_FN(_sub)(&dx, &t->x, &out[j].x);
            FB_FE_FN(_mul)(&acc, &acc, &dx);
            nact++;
        }
        if (nact == 0) {
            continue;
        }
        FB_FE_FN(_inv)(&inv, &acc);
        /* backward: inv = 1 / prod_{j' <= j} dx_j' on entry to lane j */
        for (size_t j = len; j-- > 0;) {
            const FB_AFF *t;
            FB_FE dx, lam, ty, x3;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            FB_FE_FN(_sub)(&dx, &t->x, &out[j].x);
            FB_FE_FN(_mul)(&pre[j], &pre[j], &inv); /* 1 / dx_j */
            FB_FE_FN(_mul)(&inv, &inv, &dx);
            if (dig[j] < 0) {
                FB_FE_FN(_neg)(&ty, &t->y);
            } else {
                ty = t->y;
            }
            FB_FE_FN(_sub)(&lam, &ty, &out[j].y);
            FB_FE_FN(_mul)(&lam, &lam, &pre[j]);
            FB_FE_FN(_sqr)(&x3, &lam);
            FB_FE_FN(_sub)(&x3, &x3, &out[j].x);
            FB_FE_FN(_sub)(&x3, &x3, &t->x);
            FB_FE_FN(_sub)(&dx, &out[j].x, &x3);
            FB_FE_FN(_mul)(&dx, &dx, &lam);
            FB_FE_FN(_sub)(&out[j].y, &dx, &out[j].y);
            out[j].x = x3;
        }
    }
    /* the digits are the scalars (toxic waste in a setup) */
    cz_memzero(dig, sizeof(dig));
    cz_memzero(carry, sizeof(carry));
}

typedef struct FB_FN(_fb_job) {
    FB_AFF *out;
    const FB_AFF *tab;
    const fr_repr_t *k;
    unsigned w;
} FB_FN(_fb_job_t);

static void FB_FN(_fb_task)(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const FB_FN(_fb_job_t) *job = ctx;
    (void)worker;

    for (size_t b = begin; b < end; b += FB_LANES) {
        size_t len = end - b < FB_LANES ? end - b : FB_LANES;
        FB_FN(_fb_lanes)(job->out + b, job->tab, job->w, job->k + b, len);
    }
}

void FB_FN(_fb_mul)(FB_AFF *out, const FB_AFF *tab, unsigned w, const fr_repr_t *k, size_t n,
                    cz_pool *pool)
{
    FB_FN(_fb_job_t) job = {.out = out, .tab = tab, .k = k, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, n, FB_LANES, FB_FN(_fb_task), &job);
}

#undef FB_FE
#undef FB_FE_FN
#undef FB_FE_ONE
#undef FB_AFF
#undef FB_JAC
#undef FB_FN
#undef FB_ROW_BLOCK
