/* msm_common.c - group-independent parts of the MSM: window/method choice and scratch layout.
 *
 * Cost model, in field multiplications (squarings count as multiplications), per window w with
 * nb_w buckets and m tail terms:  m * add + COST_BUCKET * nb_w, where
 *   add = 8M + 2S for an XYZZ mixed addition (EFD madd-2008-s), or
 *   add = 5M + 1S + INV / batch for a batched affine addition (3M of Montgomery's trick, then
 *         lambda, x3, y3), used only where the window has MSM_BA_MIN_BUCKETS buckets or more;
 *   reduction = one mixed plus one full XYZZ addition per bucket (running sum).
 * The constants below are those operation counts scaled to times measured with bench_msm on
 * x86-64 with the ADX field kernels (field additions and bookkeeping included; fp_inv costs
 * about 85 fp_mul); windows 11..16 at 2^16 and 2^18 terms confirmed the choices to within noise.
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

#define COST_XYZZ_ADD 11.0
#define COST_AFF_ADD  7.2
#define COST_INV      90.0
#define COST_BUCKET   26.0

size_t msm_batch_cap(size_t nb)
{
    size_t cap = nb / 4;
    if (cap > MSM_BATCH_MAX) {
        cap = MSM_BATCH_MAX;
    }
    if (cap < 4) {
        cap = 4;
    }
    return cap;
}

static double window_cost(size_t m, unsigned c, bool ba)
{
    double cost = 0;
    for (unsigned w = 0; w < msm_nwin(c); w++) {
        size_t nb = msm_win_buckets(w, c);
        double add = COST_XYZZ_ADD;
        if (ba && nb >= MSM_BA_MIN_BUCKETS) {
            add = COST_AFF_ADD + COST_INV / (double)msm_batch_cap(nb);
        }
        cost += add * (double)m + COST_BUCKET * (double)nb;
    }
    return cost;
}

static unsigned best_window(size_t m, bool ba, unsigned cmin, double *cost_out)
{
    unsigned best = cmin;
    double best_cost = window_cost(m, cmin, ba);
    for (unsigned c = cmin + 1; c <= MSM_AUTO_MAX_WINDOW; c++) {
        double cost = window_cost(m, c, ba);
        if (cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    *cost_out = best_cost;
    return best;
}

msm_plan msm_plan_for(size_t m, const msm_opts *opts)
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
        plan.c = best_window(m, plan.batch_affine, cmin, &cost);
    }
    return plan;
}

unsigned msm_auto_window_bits(size_t m, msm_accum accum)
{
    msm_opts o = {.accum = accum};
    return msm_plan_for(m, &o).c;
}

unsigned msm_nchunks_max(size_t n)
{
    size_t k = n / MSM_CHUNK_MIN;
    if (k > MSM_MAX_CHUNKS) {
        k = MSM_MAX_CHUNKS;
    }
    return k ? (unsigned)k : 1u;
}

size_t msm_batch_bytes(size_t cap, size_t qcap, size_t fe)
{
    /* prod[cap], den[cap] FE, bucket[cap] u32, point[cap] u32, kind[cap] u8, queue 2 x qcap */
    return msm_align64(cap * fe) * 2 + msm_align64(cap * 4) * 2 + msm_align64(cap) +
           msm_align64(qcap * 4) * 2;
}

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
    /* a unit never has more buckets than a window, nor a larger batch */
    L->batch_cap = msm_batch_cap(L->nbw);
    L->queue_cap = L->batch_cap / 2;
    L->batch_size = msm_batch_bytes(L->batch_cap, L->queue_cap, sz->fe);

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
    w += (size_t)L->nwin * L->kmax * L->batch_size;

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
    /* For a fixed method and range of windows the best c never decreases with m (see the top of
     * this file), so a tail m <= n gets at most these windows. */
    double cost;
    msm_accum accum = opts ? opts->accum : MSM_ACCUM_AUTO;
    if (accum == MSM_ACCUM_XYZZ) {
        cmax = best_window(n, false, 1, &cost);
    } else if (accum == MSM_ACCUM_BATCH_AFFINE) {
        cmax = best_window(n, true, 1, &cost);
    } else if (n < MSM_BA_MIN_TERMS) {
        cmax = best_window(n, false, 1, &cost);
    } else {
        unsigned cx = best_window(MSM_BA_MIN_TERMS - 1, false, 1, &cost);
        unsigned cb = best_window(n, true, MSM_BA_MIN_WINDOW, &cost);
        cmax = cx > cb ? cx : cb;
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
