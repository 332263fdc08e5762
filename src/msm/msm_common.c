/* msm_common.c - group-independent parts of the MSM: window/method choice and scratch layout.
 *
 * Cost model, in units of one scalar field multiplication (squarings count as multiplications),
 * per window w with nb_w buckets and m tail terms:  m * add + bucket * nb_w, where
 *   add = 8M + 2S for an XYZZ mixed addition (EFD madd-2008-s), or
 *   add = 5M + 1S + INV / batch for a batched affine addition (3M of Montgomery's trick, then
 *         lambda, x3, y3);
 *   bucket = one mixed plus one full XYZZ addition per bucket (running sum).
 * With batch-affine buckets a window narrower than its slots (the top one) spreads its terms
 * over copies of its buckets and sums all nb = 2^(c-1) slots, and narrow windows share units
 * (MSM_GROUP_BUCKETS), which sets the batch size. The scalar constants are those operation
 * counts scaled to times measured with bench_msm on x86-64 with the ADX field kernels (field
 * additions and bookkeeping included; fp_inv costs about 85 fp_mul); windows 11..16 at 2^16
 * and 2^18 terms confirmed the choices to within noise. The vector constants (AVX-512 IFMA
 * kernels, eight lanes; their bucket sums run eight segments at once too) are fitted to single-
 * thread times of G1 and G2 at 2^13..2^17 terms and windows 9..15 on an AMD Zen 5 core
 * (per term and window 0.073 us on G1, 0.185 us on G2; per bucket 0.17 us, 0.52 us), where
 * one scalar fp_mul takes about 0.023 us; 2^20 terms on G1 confirmed c = 16.
 * The window minimizing the sum over ceil(256/c) windows is taken, up to MSM_AUTO_MAX_WINDOW:
 * beyond it the model gains a few percent while the buckets outgrow every cache (which the model
 * ignores) and the scratch quadruples per two bits.
 *
 * Monotonicity, which the scratch bound relies on: cost(c) = A(c) m + B(c) is a line in m, and
 * B(c) (the bucket count over all windows) never decreases with c. If c' > c(n) were optimal at
 * some m < n, it would need A(c') < A(c(n)) (as B(c') >= B(c(n))), and then it would beat c(n)
 * at n too. So the choice for a tail m <= n never exceeds the choice for n (ties go to the
 * smaller c). A test checks this bound over n < 2^31; msm_run also checks the layout it uses.
 */
#include "msm/internal.h"

#define COST_XYZZ_ADD           11.0
#define COST_AFF_ADD            7.2
#define COST_INV                90.0
#define COST_BUCKET             26.0
#define COST_VEC_ADD            3.0
#define COST_VEC_INV            120.0 /* fp_inv and the lane products' scalar trick, per flush */
#define COST_VEC_BUCKET         7.5
#define MSM_VEC_MODEL_MAX_TERMS ((size_t)1 << 18)

size_t msm_batch_cap(size_t nb, bool vec)
{
    size_t cap = nb / 4;
    size_t max = vec ? MSM_BATCH_MAX_VEC : MSM_BATCH_MAX;
    if (cap > max) {
        cap = max;
    }
    if (cap < 4) {
        cap = 4;
    }
    return cap;
}

static double window_cost(size_t m, unsigned c, bool ba, bool vec)
{
    double cost = 0;
    size_t nbw = (size_t)1 << (c - 1);
    for (unsigned w = 0; w < msm_nwin(c); w++) {
        size_t nb = msm_win_buckets(w, c);
        if (!ba || nbw < MSM_BA_MIN_BUCKETS) {
            cost += COST_XYZZ_ADD * (double)m + COST_BUCKET * (double)nb;
            continue;
        }
        size_t unit = nbw > MSM_GROUP_BUCKETS ? nbw : MSM_GROUP_BUCKETS;
        double cap = (double)msm_batch_cap(unit, vec);
        if (vec) {
            cost += (COST_VEC_ADD + COST_VEC_INV / cap) * (double)m + COST_VEC_BUCKET * (double)nbw;
        } else {
            cost += (COST_AFF_ADD + COST_INV / cap) * (double)m + COST_BUCKET * (double)nbw;
        }
    }
    return cost;
}

static unsigned best_window(size_t m, bool ba, bool vec, unsigned cmin, double *cost_out)
{
    unsigned best = cmin;
    double best_cost = window_cost(m, cmin, ba, vec);
    for (unsigned c = cmin + 1; c <= MSM_AUTO_MAX_WINDOW; c++) {
        double cost = window_cost(m, c, ba, vec);
        if (cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    *cost_out = best_cost;
    return best;
}

bool msm_uses_vec(const msm_opts *opts)
{
    return !(opts && opts->no_simd) && msm_vec_available();
}

msm_plan msm_plan_for(size_t m, const msm_opts *opts, bool vec)
{
    msm_accum accum = opts ? opts->accum : MSM_ACCUM_AUTO;
    unsigned forced = opts ? opts->window_bits : 0;
    msm_plan plan;
    double cost;

    CZ_CHECK(forced <= MSM_MAX_WINDOW_BITS);
    if (accum == MSM_ACCUM_AUTO) {
        plan.batch_affine = m >= MSM_BA_MIN_TERMS && (forced == 0 || forced >= MSM_BA_MIN_WINDOW);
    } else {
        plan.batch_affine = accum == MSM_ACCUM_BATCH_AFFINE;
    }
    if (forced) {
        plan.c = forced;
    } else {
        unsigned cmin = accum == MSM_ACCUM_AUTO && plan.batch_affine ? MSM_BA_MIN_WINDOW : 1;
        /* the vector model was fitted below 2^18 terms; above, the scalar choice (measured
         * with 16 threads too) stands: at 2^20 and 2^22 terms on one thread the vector kernels
         * ran windows 16 and 18 within 1% of each other */
        plan.c = best_window(m, plan.batch_affine, vec && m < MSM_VEC_MODEL_MAX_TERMS, cmin, &cost);
    }
    return plan;
}

unsigned msm_auto_window_bits(size_t m, msm_accum accum)
{
    msm_opts o = {.accum = accum};
    return msm_plan_for(m, &o, msm_uses_vec(&o)).c;
}

unsigned msm_nchunks_max(size_t n)
{
    size_t k = n / MSM_CHUNK_MIN;
    if (k > MSM_MAX_CHUNKS) {
        k = MSM_MAX_CHUNKS;
    }
    return k ? (unsigned)k : 1u;
}

size_t msm_unit_cap(size_t slots, size_t cap_limit, bool vec)
{
    size_t cap = msm_batch_cap(slots, vec);
    return cap < cap_limit ? cap : cap_limit;
}

size_t msm_unit_batch_bytes(size_t cap, size_t fe)
{
    return msm_batch_bytes(cap, cap / 2, fe);
}

size_t msm_batch_work_bytes(size_t cap, size_t fe)
{
    size_t plain = msm_align64(cap * fe) * 2;
    size_t vec = 2 * ((cap + 7) / 8) * 8 * (fe / 48 * 64); /* 8 limbs of 8 bytes per 48-byte Fp */
    return msm_align64(plain > vec ? plain : vec);
}

size_t msm_batch_bytes(size_t cap, size_t qcap, size_t fe)
{
    /* prod[cap], den[cap] FE, bucket[cap] u32, point[cap] u32, kind[cap] u8, queue 2 x qcap */
    return msm_batch_work_bytes(cap, fe) + msm_align64(cap * 4) * 2 + msm_align64(cap) +
           msm_align64(qcap * 4) * 2;
}

bool msm_vec_available(void)
{
#if MSM_HAVE_VEC
    /* the compiler's CPU model is filled in by a constructor of its runtime (which checks that
     * the OS saves the AVX-512 state too) */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    return false;
#endif
}

const char *msm_impl_name(void)
{
    return msm_vec_available() ? "avx512ifma" : "scalar";
}

#if !MSM_HAVE_VEC
bool msm_vec_flush_g1(g1_aff_t *aff, const g1_aff_t *points, const uint32_t *eb, const uint32_t *ep,
                      size_t n, void *work)
{
    (void)aff, (void)points, (void)eb, (void)ep, (void)n, (void)work;
    return false;
}

bool msm_vec_flush_g2(g2_aff_t *aff, const g2_aff_t *points, const uint32_t *eb, const uint32_t *ep,
                      size_t n, void *work)
{
    (void)aff, (void)points, (void)eb, (void)ep, (void)n, (void)work;
    return false;
}

void msm_vec_bucket_sums_g1(msm_xyzz_g1_t T[8], msm_xyzz_g1_t R[8], const g1_aff_t *aff,
                            const msm_xyzz_g1_t *ovf, const uint8_t *meta, const size_t b0[8],
                            const size_t len[8], unsigned nseg)
{
    (void)T, (void)R, (void)aff, (void)ovf, (void)meta, (void)b0, (void)len, (void)nseg;
    CZ_CHECK(msm_vec_available()); /* never true in this build */
}

void msm_vec_bucket_sums_g2(msm_xyzz_g2_t T[8], msm_xyzz_g2_t R[8], const g2_aff_t *aff,
                            const msm_xyzz_g2_t *ovf, const uint8_t *meta, const size_t b0[8],
                            const size_t len[8], unsigned nseg)
{
    (void)T, (void)R, (void)aff, (void)ovf, (void)meta, (void)b0, (void)len, (void)nseg;
    CZ_CHECK(msm_vec_available());
}

bool msm_vec_fp_apply(uint64_t out[8][6], const uint64_t a[8][6], const uint64_t b[8][6],
                      unsigned op)
{
    (void)out, (void)a, (void)b, (void)op;
    return false;
}
#endif

void msm_layout_for(msm_layout *L, size_t n, unsigned c, const msm_sizes *sz)
{
    size_t off = 0;

    CZ_CHECK(c >= 1 && c <= MSM_MAX_WINDOW_BITS);
    L->c = c;
    L->nwin = msm_nwin(c);
    L->nbw = (size_t)1 << (c - 1);
    L->kmax = (unsigned)(L->nbw / MSM_MIN_RANGE);
    if (L->kmax > MSM_MAX_RANGES) {
        L->kmax = MSM_MAX_RANGES;
    }
    if (L->kmax == 0) {
        L->kmax = 1;
    }
    L->nchunks_max = msm_nchunks_max(n);
    /* Units' batches (msm_impl.h's plan): the units of one window are k <= kmax bucket ranges
     * or chunk pieces, each with at most ceil(nbw / k) bucket slots; a unit of several windows
     * (only where windows are narrower than MSM_GROUP_BUCKETS) has MSM_GROUP_BUCKETS slots and
     * there are at most ceil(nwin / 2) of them. No batch needs more entries than there are
     * terms. The vector flush's capacities bound the scalar's. */
    L->cap_limit = n > 4 ? n : 4;
    size_t per_window = 0;
    for (size_t k = 1; k <= L->kmax; k++) {
        size_t cap = msm_unit_cap((L->nbw + k - 1) / k, L->cap_limit, true);
        size_t b = k * msm_unit_batch_bytes(cap, sz->fe);
        per_window = b > per_window ? b : per_window;
    }
    L->batch_area = (size_t)L->nwin * per_window;
    if (L->nbw < MSM_GROUP_BUCKETS) {
        size_t cap = msm_unit_cap(MSM_GROUP_BUCKETS, L->cap_limit, true);
        size_t grouped = (size_t)(L->nwin + 1) / 2 * msm_unit_batch_bytes(cap, sz->fe);
        L->batch_area = grouped > L->batch_area ? grouped : L->batch_area;
    }

    L->tail_idx = off;
    off += msm_align64(n * sizeof(uint32_t));
    L->tail_sc = off;
    off += msm_align64(n * sizeof(fr_repr_t));
    L->chunk_res = off;
    off += msm_align64((size_t)L->nchunks_max * sz->xyzz);
    L->work = off; /* independent of c: the classification pass runs before c is known */

    /* phase 2: unit results, per-window buckets, per-unit batch arrays */
    size_t w = off;
    L->unit_res = w;
    w += msm_align64((size_t)L->nwin * L->kmax * sz->xyzz);
    L->win_aff = w;
    w += msm_align64((size_t)L->nwin * L->nbw * sz->aff);
    L->win_ovf = w;
    w += msm_align64((size_t)L->nwin * L->nbw * sz->xyzz);
    L->win_meta = w;
    w += msm_align64((size_t)L->nwin * L->nbw);
    L->unit_batch = w;
    w += L->batch_area;

    /* phase 1: per-chunk ones accumulators (aff, meta, batch arrays without queue) */
    L->ones_stride = msm_align64(MSM_ONES_K * sz->aff) + msm_align64(MSM_ONES_K) +
                     msm_batch_bytes(MSM_ONES_K, 0, sz->fe);
    size_t o = off + (size_t)L->nchunks_max * L->ones_stride;

    L->total = (w > o ? w : o) + 64;
}

size_t msm_scratch_bytes(size_t n, const msm_opts *opts, const msm_sizes *sz)
{
    msm_layout L;
    unsigned cmax;

    if (opts && opts->window_bits) {
        cmax = opts->window_bits;
        msm_layout_for(&L, n, cmax, sz);
        return L.total;
    }
    /* For a fixed method, cost model and range of windows the best c never decreases with m
     * (see the top of this file), so a tail m <= n gets at most these windows: the scalar
     * model's choice for n, or the vector model's for the largest m it is used for. */
    double cost;
    msm_accum accum = opts ? opts->accum : MSM_ACCUM_AUTO;
    cmax = 0;
    for (int vec = 0; vec < 2; vec++) { /* either kernel may run (msm_opts.no_simd) */
        size_t m = vec && n >= MSM_VEC_MODEL_MAX_TERMS ? MSM_VEC_MODEL_MAX_TERMS - 1 : n;
        unsigned cv;
        if (accum == MSM_ACCUM_XYZZ) {
            cv = best_window(m, false, vec, 1, &cost);
        } else if (accum == MSM_ACCUM_BATCH_AFFINE) {
            cv = best_window(m, true, vec, 1, &cost);
        } else if (m < MSM_BA_MIN_TERMS) {
            cv = best_window(m, false, vec, 1, &cost);
        } else {
            unsigned cx = best_window(MSM_BA_MIN_TERMS - 1, false, vec, 1, &cost);
            unsigned cb = best_window(m, true, vec, MSM_BA_MIN_WINDOW, &cost);
            cv = cx > cb ? cx : cb;
        }
        cmax = cv > cmax ? cv : cmax;
    }
    size_t best = 0;
    for (unsigned c = 1; c <= cmax; c++) {
        msm_layout_for(&L, n, c, sz);
        if (L.total > best) {
            best = L.total;
        }
    }
    return best;
}
