/* msm.cuh - multi-scalar multiplication over G1 and G2 on the device (msm/msm.h's contract,
 * spec groth16.md 4.6 and 5.5).
 *
 * One call:
 *  1. classify: scalars 0 are dropped; scalars 1 go to a "ones" list (their bases are simply
 *     summed: the batch addition of spec 5.5); the others ("tail") are compacted with their
 *     indices, their words in eight planes (a window's digits read one or two words of each).
 *     Block-level atomics keep the order unspecified, which no sum depends on.
 *  2. the windows go in groups (all of them when they fit, one at a time for the largest
 *     MSMs: GROUP_* below), each group in one pass of a few launches, so that a small MSM has
 *     W times more parallel work per launch than window by window would give it. With several
 *     groups, group k + 1 is sorted on the device's second stream while group k is accumulated
 *     (msm_groups: two sets of sort buffers). Per group:
 *     signed Booth digits d in [-2^(c-1), 2^(c-1)] of window w from bits [wc - 1, wc + c) of each
 *     tail scalar (so the windows are independent; ceil(256 / c) windows cover scalars below
 *     2^255); counting sort of the (index | sign) entries by key = (window in the group) *
 *     2^(c-1) + |d| - 1 (histogram, exclusive scan, scatter): the scan's bucket starts tell
 *     the keys of the sorted list (a thread finds its first by binary search);
 *     affine rounds (G2 with long runs: aff_auto) first add each bucket's points in pairs;
 *     bucket accumulation: each thread sums a chunk of the sorted list with mixed XYZZ additions;
 *     a bucket whose run lies strictly inside a chunk is stored directly, the runs that touch a
 *     chunk's ends go to a record list (key, partial sum) which is sorted too and reduced the
 *     same way in chunks of REC_CHUNK, level after level, until one chunk remains. Every
 *     bucket is written exactly once, however skewed the digits (all scalars equal, millions of
 *     ones). Chunks are shorter when the group is small (latency: see ACC_TARGET_THREADS);
 *     bucket reduction, all windows of the group in one launch: segments of 8 to 32 buckets run
 *     the usual running sum from the top, each segment's result is corrected by lo * (segment
 *     sum), and a two-launch tree per window reduces the segments;
 *  3. the ones list goes through the same chunked reduction into one bucket;
 *  4. the host combines the windows by doublings (Horner) and adds the ones (gpu_host.c).
 * Sets (gpu_msm_g1_sets): several scalar vectors over the same bases go through one call. Each
 * set is classified on its own (dense values, or a slice of a vector's classes: gpu.h), its
 * tail entries numbered after the sets before it; its windows are numbered after theirs (set s
 * owns windows [s W, s W + W)), so one sort, one accumulation and one reduction serve all of
 * them, and their ones lists, packed one after another, are one reduction with a run per set.
 * The bucket chains and launches that dominate a small MSM are paid once for all the sets.
 * Memory: about 40 bytes per term (indices, compacted scalars), 32 more when host scalars are
 * copied in (device scalars are read in place, Montgomery ones converted as they are
 * classified; with sets: 36 bytes per possible tail scalar, n for a dense set and its others
 * for a class slice, and 8 per term of each set for the ones); twice
 * (two sort sets) 4 bytes per sorted entry (at most max(n, 2^26)),
 * records (2 XYZZ points per level-0 thread: at most max(2^18, entries / 32)), and the
 * buckets: 2^(c-1) XYZZ points per window (192 bytes on G1, 384 on G2), at most 256 MiB unless
 * one window needs more; the affine rounds' points in the second scratch area (half an affine
 * point per tail scalar of a group for the first round, a quarter for the second).
 * msm_g1.cu and msm_g2.cu instantiate it (two translation units that compile in parallel).
 */
#ifndef CUZK_GPU_CUDA_MSM_CUH
#define CUZK_GPU_CUDA_MSM_CUH

#include "gpu/cuda/curve.cuh"
#include "gpu/cuda/dev.cuh"

#include <string.h>

namespace czg
{
namespace
{ /* internal linkage: msm_g1.cu and msm_g2.cu each get their own copy */

constexpr uint32_t KEY_NONE = 0xffffffffu;
constexpr uint32_t SIGN_BIT = 0x80000000u;
/* Sizing. A thread of the accumulation or of the bucket reduction runs a chain of dependent
 * XYZZ additions (thousands of instructions each): with few threads the device is latency bound,
 * so chunks shrink when the total is small, down to ACC_CHUNK_MIN entries, as long as about
 * ACC_TARGET_THREADS threads result; large totals keep long chunks (fewer records). */
constexpr unsigned ACC_CHUNK_MIN = 8;   /* sorted entries per thread at level 0, at least */
constexpr unsigned ACC_CHUNK_MAX = 256; /* ... and at most (gpu_debug_msm_chunk: fixed) */
/* records are sized for chunks of GPU_MSM_CHUNK_MIN or more once the target is reached */
static_assert(ACC_CHUNK_MAX >= GPU_MSM_CHUNK_MIN, "chunk bounds");
constexpr size_t ACC_TARGET_THREADS = (size_t)1 << 17;
constexpr unsigned REC_CHUNK = 8; /* records per thread at levels >= 1 (short chains) */
constexpr unsigned ACC_THREADS = 128;
constexpr unsigned SEG_MIN = 8; /* buckets per thread in the window reduction: 8, 16 or 32 */
constexpr unsigned SUM_THREADS = 64;
constexpr unsigned SUM_BLOCKS = 64;   /* per window, first of the two summing launches */
constexpr unsigned SCAN_ITEMS = 1024; /* per block of 256 threads */
/* Window groups: the windows of a group are sorted, accumulated and reduced together (one
 * launch per step for the whole group). A group holds at most GROUP_MAX windows per set of the
 * call (a call of several sets has that many times the windows, few entries each), at most
 * GROUP_ENTRIES sorted entries (8 bytes each) unless one window alone has more, and at most
 * GROUP_BUCKET_BYTES of buckets unless one window alone needs more. */
constexpr unsigned GROUP_MAX = GPU_MSM_GROUP_MAX;
constexpr size_t GROUP_ENTRIES = (size_t)1 << 26;
constexpr size_t GROUP_BUCKET_BYTES = (size_t)1 << 28;

/* ---- scalars ---- */

/* The tail scalars are kept as eight planes of 32-bit words (word j of tail scalar i at
 * planes[j stride + i]), so that a window's digits read only the one or two words they need
 * and a warp's loads are contiguous. */

/** Bits [pos, pos + 33) of tail scalar i (zero past the top), pos < 256. */
CZ_DEV uint64_t plane_bits(const uint32_t *planes, size_t stride, size_t i, unsigned pos)
{
    const unsigned wi = pos >> 5;
    uint64_t two = planes[wi * stride + i];
    if (wi + 1 < 8) {
        two |= (uint64_t)planes[(wi + 1) * stride + i] << 32;
    }
    return two >> (pos & 31);
}

/** Booth digit of window w: d = v + b - 2^c t with v = bits [wc, wc + c), b = bit wc - 1 and
 *  t = bit wc + c - 1; sum_w d_w 2^(wc) = s when the top window's last bit is zero. */
CZ_DEV int32_t booth_digit(const uint32_t *planes, size_t stride, size_t i, unsigned w, unsigned c)
{
    const unsigned pos = w * c;
    const uint64_t x =
        pos ? plane_bits(planes, stride, i, pos - 1) : plane_bits(planes, stride, i, 0) << 1;
    const uint32_t b = (uint32_t)x & 1u, v = (uint32_t)(x >> 1) & ((1u << c) - 1);
    const uint32_t t = v >> (c - 1);
    return (int32_t)(v + b) - (int32_t)(t << c);
}

/* Where one set's n scalars come from (msm_classify_kernel): 32-byte values in device memory
 * (sc; canonical, or Montgomery with mont), or (sc NULL) a slice of a vector's classes (gpu.h:
 * map holds three words per block of 64 positions, oth the slice's n_oth others, the first of
 * which is the vector's other `base`; position i of the set is bit0 + i of the slice), whose
 * unit class is the scalar 1. */
struct set_src {
    const uint4 *sc;
    const uint64_t *map;
    const uint4 *oth;
    size_t n_oth;
    uint64_t base;
    unsigned bit0;
    int mont;
};

/* Where the counts of one set land (zeroed by the caller): the tail's shared count (positions in
 * tail_idx and the planes), the set's own tail count, and its ones count. */
struct set_cnt {
    uint32_t *tail, *set_tail, *ones;
};

/** Value i of src as canonical words; false when it is zero (a class slice's zeros are not
 *  read; nor is an other outside the slice's others, when the slice is malformed). */
CZ_DEV bool src_value(const set_src &src, size_t i, uint32_t w[8])
{
    uint4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
    if (src.sc) {
        lo = src.sc[2 * i];
        hi = src.sc[2 * i + 1];
    } else {
        size_t q = 0;
        const int cls = class_at(src.map, i + src.bit0, src.base, &q);
        if (cls == 0 || (cls == 2 && q >= src.n_oth)) {
            return false;
        }
        if (cls == 1) {
            CZ_UNROLL
            for (unsigned j = 0; j < 8; j++) {
                w[j] = j == 0;
            }
            return true;
        }
        lo = src.oth[2 * q];
        hi = src.oth[2 * q + 1];
    }
    fr_e v;
    v.w[0] = lo.x, v.w[1] = lo.y, v.w[2] = lo.z, v.w[3] = lo.w;
    v.w[4] = hi.x, v.w[5] = hi.y, v.w[6] = hi.z, v.w[7] = hi.w;
    if (src.mont) {
        v = from_mont(v);
    }
    uint32_t any = 0;
    CZ_UNROLL
    for (unsigned j = 0; j < 8; j++) {
        w[j] = v.w[j];
        any |= v.w[j];
    }
    return any != 0;
}

/* Splits a set's n scalars into zeros (dropped), ones (one_idx: their positions) and the rest
 * (tail_idx: vbase + position, the set's first virtual index added; their words in planes of
 * stride `stride`). Block-level atomics keep the order unspecified, which no sum depends on. */
__global__ void __launch_bounds__(256)
    msm_classify_kernel(set_src src, size_t n, int split01, uint32_t vbase, uint32_t *tail_idx,
                        uint32_t *planes, size_t stride, uint32_t *one_idx, set_cnt cnt)
{
    __shared__ uint32_t s_cnt[2];
    __shared__ uint32_t s_base[2];
    const unsigned t = threadIdx.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n;
         base += (size_t)gridDim.x * blockDim.x) {
        if (t < 2) {
            s_cnt[t] = 0;
        }
        __syncthreads();
        const size_t i = base + t;
        int cls = 0; /* 0 drop, 1 tail, 2 one */
        uint32_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0}, my = 0;
        if (i < n && src_value(src, i, w)) {
            const uint32_t upper = w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7];
            cls = upper == 0 && w[0] == 1 && split01 ? 2 : 1;
        }
        if (cls) {
            my = atomicAdd(&s_cnt[cls - 1], 1u);
        }
        __syncthreads();
        if (t == 0) {
            s_base[0] = atomicAdd(cnt.tail, s_cnt[0]);
            atomicAdd(cnt.set_tail, s_cnt[0]);
        } else if (t == 1) {
            s_base[1] = atomicAdd(cnt.ones, s_cnt[1]);
        }
        __syncthreads();
        if (cls == 1) {
            const uint32_t pos = s_base[0] + my;
            tail_idx[pos] = vbase + (uint32_t)i;
            CZ_UNROLL
            for (unsigned j = 0; j < 8; j++) {
                planes[j * stride + pos] = w[j];
            }
        } else if (cls == 2) {
            one_idx[s_base[1] + my] = (uint32_t)i;
        }
        __syncthreads();
    }
}

/* Packs the sets' ones lists (set s's at one_idx[s n ..], ones[s] of them) one after another
 * into pack, set s's run starting at offs[s]; *total = all of them. Block s moves set s. */
__global__ void msm_ones_pack_kernel(const uint32_t *one_idx, size_t n, const uint32_t *ones,
                                     unsigned sets, uint32_t *pack, uint32_t *offs, uint32_t *total)
{
    const unsigned s = blockIdx.x;
    uint32_t start = 0, all = 0;
    for (unsigned j = 0; j < sets; j++) {
        start += j < s ? ones[j] : 0;
        all += ones[j];
    }
    if (threadIdx.x == 0) {
        offs[s] = start;
        if (s == 0) {
            *total = all;
        }
    }
    for (uint32_t i = threadIdx.x; i < ones[s]; i += blockDim.x) {
        pack[start + i] = one_idx[(size_t)s * n + i];
    }
}

/* The sets' windows are numbered one set after another (set s has windows [s W, s W + W)), so
 * one sort serves all of them. Of the group's windows [w0, w0 + G), a tail scalar of virtual
 * index idx (set idx / n) has digits in [g0, g1) (group-relative), those of its set's windows
 * from wl0 on; its base is `local`. */
struct set_win {
    unsigned g0, g1, wl0;
    uint32_t local;
};

CZ_DEV set_win set_windows(uint32_t idx, size_t n, unsigned W, unsigned w0, unsigned G)
{
    const uint32_t s = idx / (uint32_t)n;
    const unsigned lo = s * W, hi = lo + W;
    set_win r;
    r.g0 = lo > w0 ? lo - w0 : 0;
    r.g1 = hi < w0 + G ? (hi > w0 ? hi - w0 : 0) : G;
    r.wl0 = w0 + r.g0 - lo;
    r.local = idx - s * (uint32_t)n;
    return r;
}

/* hist[g nb + |d| - 1] counts the nonzero Booth digits d of tail scalar i in its set's window of
 * group window g, for g < G (planes of stride `stride`, m tail scalars; sets of n scalars, W
 * windows each; with one set the indices are not read). */
__global__ void msm_digits_kernel(const uint32_t *planes, size_t stride, const uint32_t *tail_idx,
                                  size_t m, size_t n, unsigned sets, unsigned W, unsigned w0,
                                  unsigned G, unsigned c, size_t nb, uint32_t *hist)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += (size_t)gridDim.x * blockDim.x) {
        const set_win sw = sets > 1 ? set_windows(tail_idx[i], n, W, w0, G) : set_win{0, G, w0, 0};
        for (unsigned g = sw.g0; g < sw.g1; g++) {
            const int32_t d = booth_digit(planes, stride, i, sw.wl0 + g - sw.g0, c);
            if (d) {
                atomicAdd(&hist[g * nb + (uint32_t)(d < 0 ? -d : d) - 1], 1u);
            }
        }
    }
}

/* Counting-sort scatter: every nonzero digit of the group puts (base index | sign) into its
 * bucket's range (key = g nb + |d| - 1; the ranges, offs, tell the keys apart later). */
__global__ void msm_scatter_kernel(const uint32_t *planes, size_t stride, const uint32_t *tail_idx,
                                   size_t m, size_t n, unsigned sets, unsigned W, unsigned w0,
                                   unsigned G, unsigned c, size_t nb, uint32_t *cursor,
                                   uint32_t *vals)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t idx = tail_idx[i];
        const set_win sw = sets > 1 ? set_windows(idx, n, W, w0, G) : set_win{0, G, w0, idx};
        for (unsigned g = sw.g0; g < sw.g1; g++) {
            const int32_t d = booth_digit(planes, stride, i, sw.wl0 + g - sw.g0, c);
            if (!d) {
                continue;
            }
            const uint32_t key = (uint32_t)(g * nb) + (uint32_t)(d < 0 ? -d : d) - 1;
            vals[atomicAdd(&cursor[key], 1u)] = sw.local | (d < 0 ? SIGN_BIT : 0);
        }
    }
}

/* ---- exclusive scan of uint32 (bucket offsets) ---- */

__global__ void __launch_bounds__(256)
    scan_block_kernel(const uint32_t *in, uint32_t *out, size_t n, uint32_t *bsum)
{
    __shared__ uint32_t sh[2][256];
    const unsigned t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * SCAN_ITEMS + (size_t)t * 4;
    uint32_t v[4], tot = 0;
    CZ_UNROLL
    for (int j = 0; j < 4; j++) {
        v[j] = base + j < n ? in[base + j] : 0;
        tot += v[j];
    }
    sh[0][t] = tot;
    __syncthreads();
    int src = 0;
    for (unsigned off = 1; off < 256; off <<= 1) {
        uint32_t x = sh[src][t];
        if (t >= off) {
            x += sh[src][t - off];
        }
        sh[1 - src][t] = x;
        src = 1 - src;
        __syncthreads();
    }
    const uint32_t incl = sh[src][t];
    uint32_t run = incl - tot;
    CZ_UNROLL
    for (int j = 0; j < 4; j++) {
        if (base + j < n) {
            out[base + j] = run;
        }
        run += v[j];
    }
    if (t == 255) {
        bsum[blockIdx.x] = incl;
    }
}

__global__ void scan_add_kernel(uint32_t *out, size_t n, const uint32_t *boff)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] += boff[i / SCAN_ITEMS];
    }
}

/* ---- bucket accumulation ---- */

template <class F> struct acc_out {
    xyzz_t<F> *buckets;
    uint32_t *rk;    /* record keys, 2 per thread (KEY_NONE = empty) */
    xyzz_t<F> *rp;   /* record partial sums */
    int final_level; /* one thread covers everything: store every run */
};

/** Stores a finished run: directly when it is interior to the chunk (or on the final level),
 *  else as this thread's first or last record. */
template <class F>
CZ_DEV void acc_flush(const acc_out<F> &o, size_t t, uint32_t key, const xyzz_t<F> &acc, bool first,
                      bool last)
{
    if (o.final_level || (!first && !last)) {
        store16(o.buckets + key, acc);
    } else {
        const size_t slot = first ? 2 * t : 2 * t + 1;
        o.rk[slot] = key;
        store16(o.rp + slot, acc);
    }
}

/** The key of sorted entry i: the last k < nk with offs[k] <= i (offs: the buckets' starts,
 *  nondecreasing, offs[0] = 0). */
CZ_DEV uint32_t key_of(const uint32_t *offs, uint32_t nk, size_t i)
{
    uint32_t lo = 0, hi = nk; /* offs[lo] <= i; the answer is below hi */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (offs[mid] <= i) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/** Where the bucket after `key` starts (cnt past the last one). */
CZ_DEV size_t key_end(const uint32_t *offs, uint32_t nk, uint32_t key, size_t cnt)
{
    return key + 1 < nk ? offs[key + 1] : cnt;
}

/* Entries over points: entry i is pts[vals[i] & ~SIGN_BIT], negated when SIGN_BIT is set (the
 * sorted digits over the bases), or pts[i] when vals is NULL (the affine rounds' points). */
template <class F> struct entries_t {
    const aff_t<F> *pts;
    const uint32_t *vals;
};

/** Where entry i's point lies; *neg: whether the entry is its negation. */
template <class F> CZ_DEV const aff_t<F> *entry_at(const entries_t<F> &e, size_t i, bool *neg)
{
    const uint32_t v = e.vals ? e.vals[i] : (uint32_t)i;
    *neg = (v & SIGN_BIT) != 0;
    return e.pts + (v & ~SIGN_BIT);
}

/** Entry i's point, the sign applied (the identity stays all-zero: -0 = 0). */
template <class F> CZ_DEV aff_t<F> entry_load(const entries_t<F> &e, size_t i)
{
    bool neg;
    aff_t<F> q = ldg16(entry_at(e, i, &neg));
    if (neg) {
        q.y = -q.y;
    }
    return q;
}

/* Whether the level-0 accumulation issues the gather of entry i + 1 before entry i's addition
 * (two dependent loads, the sorted index then the point, hidden behind the arithmetic). G2 has
 * no registers left for the second point (it would spill). */
template <class F> struct acc_prefetch {
    static constexpr bool on = false;
};
template <> struct acc_prefetch<fp_e> {
    static constexpr bool on = true;
};

/* Level 0: sorted entries whose buckets start at offs[0 .. nk), `chunk` per thread; offs ==
 * NULL means one bucket, key 0. */
template <class F>
__global__ void __launch_bounds__(ACC_THREADS)
    msm_acc0_kernel(entries_t<F> src, const uint32_t *offs, uint32_t nk, const uint32_t *cnt_ptr,
                    size_t nthreads, unsigned chunk, acc_out<F> o)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) {
        return;
    }
    const size_t cnt = *cnt_ptr, start = t * chunk;
    const size_t end = start + chunk < cnt ? start + chunk : cnt;
    if (start >= end) {
        if (!o.final_level) {
            o.rk[2 * t] = KEY_NONE;
            o.rk[2 * t + 1] = KEY_NONE;
        }
        return;
    }
    xyzz_t<F> acc = xyzz_inf<F>();
    uint32_t cur = offs ? key_of(offs, nk, start) : 0;
    size_t next = offs ? key_end(offs, nk, cur, cnt) : cnt;
    bool first = true;
    aff_t<F> qn; /* with the prefetch: entry i's point, loaded one iteration ahead */
    if constexpr (acc_prefetch<F>::on) {
        qn = entry_load(src, start);
    }
    for (size_t i = start; i < end; i++) {
        aff_t<F> q;
        if constexpr (acc_prefetch<F>::on) {
            q = qn;
            qn = entry_load(src, i + 1 < end ? i + 1 : i);
        } else {
            q = entry_load(src, i);
        }
        if (i == next) { /* the next nonempty bucket */
            acc_flush(o, t, cur, acc, first, false);
            first = false;
            acc = xyzz_inf<F>();
            do {
                cur++;
                next = key_end(offs, nk, cur, cnt);
            } while (next == i);
        }
        if (!aff_is_inf(q)) {
            xyzz_add_aff(acc, q);
        }
    }
    acc_flush(o, t, cur, acc, first, true);
    if (!o.final_level && first) {
        o.rk[2 * t + 1] = KEY_NONE;
    }
}

/* Level >= 1: records (key or KEY_NONE, XYZZ partial sum) in key order, REC_CHUNK per thread. */
template <class F>
__global__ void __launch_bounds__(ACC_THREADS)
    msm_acc1_kernel(const uint32_t *ik, const xyzz_t<F> *ip, size_t cnt, size_t nthreads,
                    acc_out<F> o)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) {
        return;
    }
    const size_t start = t * REC_CHUNK;
    const size_t end = start + REC_CHUNK < cnt ? start + REC_CHUNK : cnt;
    xyzz_t<F> acc = xyzz_inf<F>();
    uint32_t cur = KEY_NONE;
    bool first = true;
    for (size_t i = start; i < end; i++) {
        const uint32_t key = ik[i];
        if (key == KEY_NONE) {
            continue;
        }
        if (cur != KEY_NONE && key != cur) {
            acc_flush(o, t, cur, acc, first, false);
            first = false;
            acc = xyzz_inf<F>();
        }
        cur = key;
        xyzz_add_call(acc, load16(ip + i));
    }
    if (cur == KEY_NONE) {
        if (!o.final_level) {
            o.rk[2 * t] = KEY_NONE;
            o.rk[2 * t + 1] = KEY_NONE;
        }
        return;
    }
    acc_flush(o, t, cur, acc, first, true);
    if (!o.final_level && first) {
        o.rk[2 * t + 1] = KEY_NONE;
    }
}

/* ---- affine rounds: a bucket's points added in pairs before the accumulation ---- */

/* A round halves every bucket's run of sorted points: output j of bucket b is the sum of its
 * inputs 2 (j - start) and 2 (j - start) + 1 (or the last one alone), in affine coordinates:
 * lambda = dy / dx, x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1, 2M + 1S, with the
 * divisions of a thread's AFF_PER outputs batched into one inversion (Montgomery's trick: 3M
 * each). With the inversion spread thin that is about 6.5 multiplications per addition
 * against the XYZZ accumulation's 10, but each output gathers its two points twice (once per
 * pass) and writes and reads its prefix: on G1 the traffic outweighs the arithmetic saved,
 * on G2 it does not (aff_auto). The inputs of the first round are the sorted (index | sign)
 * entries over the bases, of later rounds the previous round's points; the accumulation
 * (reduce_runs) then sums the shortened runs. */
constexpr unsigned AFF_PER = 512; /* outputs per thread: additions per inversion, at most */

/* Rounds by default (GPU_MSM_AFF_ROUNDS_AUTO), from bench_gpu on the H200 with dense scalars:
 * on G1 a round costs more than the XYZZ additions it saves (its two passes gather the points
 * twice; 2^27 terms: 919 ms without, 1,037 with one round, 1,107 with two); on G2, whose
 * arithmetic weighs three times more, rounds pay, the more the longer the buckets' runs:
 * 2^24 terms 413 / 389 / 398 ms with 0 / 1 / 2 rounds, 2^26 terms 1,428 / 1,346 / 1,282. On
 * a short tail they cost: one round on the 32 GiB PoRep's B_G2 (mostly 0 and 1) took it from
 * 56.8 to 60.1 ms. */
constexpr size_t AFF_G2_ONE_ROUND = (size_t)1 << 24;  /* tail scalars from which G2 takes 1 */
constexpr size_t AFF_G2_TWO_ROUNDS = (size_t)1 << 25; /* ... and 2 */

template <class F> struct aff_auto;
template <> struct aff_auto<fp_e> {
    static unsigned rounds(size_t)
    {
        return 0;
    }
};
template <> struct aff_auto<fp2_e> {
    static unsigned rounds(size_t tail)
    {
        return tail >= AFF_G2_TWO_ROUNDS ? 2 : tail >= AFF_G2_ONE_ROUND ? 1 : 0;
    }
};

/** The affine rounds of an MSM of `tail` scalars other than 0 and 1 on d. */
template <class F> static unsigned aff_rounds_for(const gpu_dev *d, size_t tail)
{
    return d->msm_aff_rounds == GPU_MSM_AFF_ROUNDS_AUTO ? aff_auto<F>::rounds(tail)
                                                        : d->msm_aff_rounds;
}

enum { AFF_COPY_P, AFF_COPY_Q, AFF_INF, AFF_ADD, AFF_DBL };

/** The kind of P + Q and, for AFF_ADD and AFF_DBL, the denominator of lambda. */
template <class F> CZ_DEV int aff_pair_kind(const aff_t<F> &p, const aff_t<F> &q, F &den)
{
    if (aff_is_inf(q)) {
        return AFF_COPY_P;
    }
    if (aff_is_inf(p)) {
        return AFF_COPY_Q;
    }
    den = q.x - p.x;
    if (!is_zero(den)) {
        return AFF_ADD;
    }
    if (!is_zero(q.y - p.y) || is_zero(p.y)) {
        return AFF_INF; /* Q = -P */
    }
    den = dbl(p.y);
    return AFF_DBL;
}

/** The kind of src's pair (i, i + 1) as aff_pair_kind finds it, reading only the x
 *  coordinates when they settle it (both nonzero and different: AFF_ADD), which is all but
 *  always: the first pass's gathers are a third smaller. */
template <class F> CZ_DEV int aff_pair_kind_at(const entries_t<F> &e, size_t i, F &den)
{
    bool neg;
    const F px = ldg16(&entry_at(e, i, &neg)->x), qx = ldg16(&entry_at(e, i + 1, &neg)->x);
    den = qx - px;
    if (!is_zero(px) && !is_zero(qx) && !is_zero(den)) {
        return AFF_ADD;
    }
    return aff_pair_kind(entry_load(e, i), entry_load(e, i + 1), den);
}

/* Where output j's inputs lie: *i the first, and whether a second follows in its bucket. */
struct aff_pos {
    const uint32_t *offs_in, *offs_out;
    uint32_t nk;
    size_t cin, cout;
};

CZ_DEV bool aff_inputs(const aff_pos &ps, uint32_t b, size_t j, size_t *i)
{
    *i = ps.offs_in[b] + 2 * (j - ps.offs_out[b]);
    return *i + 1 < key_end(ps.offs_in, ps.nk, b, ps.cin);
}

/* One round: outputs [t AFF_PER, (t + 1) AFF_PER) of cnt_out; a first pass stores each
 * division's exclusive prefix product in its output's x, a second, backwards, the sums. */
template <class F>
__global__ void __launch_bounds__(ACC_THREADS)
    msm_aff_round_kernel(entries_t<F> src, aff_pos ps, const uint32_t *cnt_in_ptr,
                         const uint32_t *cnt_out_ptr, size_t nthreads, aff_t<F> *out)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) {
        return;
    }
    ps.cin = *cnt_in_ptr;
    ps.cout = *cnt_out_ptr;
    const size_t j0 = t * AFF_PER, j1 = j0 + AFF_PER < ps.cout ? j0 + AFF_PER : ps.cout;
    if (j0 >= j1) {
        return;
    }
    F run = field_traits<F>::one(), den;
    uint32_t b = key_of(ps.offs_out, ps.nk, j0);
    size_t bend = key_end(ps.offs_out, ps.nk, b, ps.cout), i;
    for (size_t j = j0; j < j1; j++) {
        while (j >= bend) {
            b++;
            bend = key_end(ps.offs_out, ps.nk, b, ps.cout);
        }
        if (aff_inputs(ps, b, j, &i) && aff_pair_kind_at(src, i, den) >= AFF_ADD) {
            store16(&out[j].x, run);
            run = run * den;
        }
    }
    F inv = field_traits<F>::inv(run);
    for (size_t j = j1; j-- > j0;) {
        while (ps.offs_out[b] > j) {
            b--;
        }
        const bool two = aff_inputs(ps, b, j, &i);
        const aff_t<F> p = entry_load(src, i);
        aff_t<F> r = p;
        if (two) {
            const aff_t<F> q = entry_load(src, i + 1);
            const int kind = aff_pair_kind(p, q, den);
            if (kind == AFF_COPY_Q) {
                r = q;
            } else if (kind == AFF_INF) {
                r.x = r.y = field_traits<F>::zero();
            } else if (kind >= AFF_ADD) {
                const F dinv = inv * load16(&out[j].x);
                inv = inv * den;
                F num = q.y - p.y;
                if (kind == AFF_DBL) {
                    const F x2 = sqr(p.x);
                    num = x2 + dbl(x2);
                }
                const F lam = num * dinv;
                r.x = sqr(lam) - p.x - q.x;
                r.y = lam * (p.x - r.x) - p.y;
            }
        }
        store16(out + j, r);
    }
}

/* half[b] = ceil(run of bucket b / 2): a round's output counts (scanned into its offsets). */
__global__ void msm_half_runs_kernel(const uint32_t *offs_in, uint32_t nk, const uint32_t *cnt_ptr,
                                     uint32_t *half)
{
    const size_t cnt = *cnt_ptr;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < nk;
         b += (size_t)gridDim.x * blockDim.x) {
        const size_t m = key_end(offs_in, nk, (uint32_t)b, cnt) - offs_in[b];
        half[b] = (uint32_t)((m + 1) / 2);
    }
}

/* ---- bucket reduction: sum_b (b + 1) bucket[b] ---- */

/* Thread t = w nseg + j: segment j of `seg` buckets [lo, hi) of window w (buckets bk[w nb ..]);
 * running sums from the top give acc = sum (b - lo + 1) B[b] and run = sum B[b]; the segment's
 * share is acc + lo run. out[t] receives it. */
template <class F>
__global__ void __launch_bounds__(ACC_THREADS)
    msm_bucket_seg_kernel(const xyzz_t<F> *bk, size_t nb, unsigned seg, size_t nseg, size_t total,
                          xyzz_t<F> *out)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) {
        return;
    }
    const size_t w = t / nseg, lo = (t - w * nseg) * seg;
    const size_t hi = lo + seg < nb ? lo + seg : nb;
    bk += w * nb;
    xyzz_t<F> run = xyzz_inf<F>(), acc = xyzz_inf<F>();
    for (size_t b = hi; b-- > lo;) {
        xyzz_add_call(run, load16(bk + b));
        xyzz_add_call(acc, run);
    }
    if (lo && !is_inf(run)) {
        xyzz_add_call(acc, xyzz_mul_small(run, (uint32_t)lo));
    }
    store16(out + t, acc);
}

/* Row y = blockIdx.y: out[y ostride + block] = sum of in[y istride + block * SUM_THREADS +
 * k * gridDim.x * SUM_THREADS ...], indices below n. */
template <class F>
__global__ void __launch_bounds__(SUM_THREADS)
    msm_sum_kernel(const xyzz_t<F> *in, size_t n, size_t istride, xyzz_t<F> *out, size_t ostride)
{
    __shared__ xyzz_t<F> sh[SUM_THREADS];
    const unsigned t = threadIdx.x;
    in += blockIdx.y * istride;
    out += blockIdx.y * ostride;
    xyzz_t<F> acc = xyzz_inf<F>();
    for (size_t i = (size_t)blockIdx.x * SUM_THREADS + t; i < n;
         i += (size_t)gridDim.x * SUM_THREADS) {
        xyzz_add_call(acc, load16(in + i));
    }
    sh[t] = acc;
    __syncthreads();
    for (unsigned s = SUM_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            xyzz_t<F> a = sh[t];
            xyzz_add_call(a, sh[t + s]);
            sh[t] = a;
        }
        __syncthreads();
    }
    if (t == 0) {
        store16(out + blockIdx.x, sh[0]);
    }
}

/* ---- host side ---- */

/* Scratch entries a scan of n values needs for its block sums, all levels. */
static size_t scan_tmp_len(size_t n)
{
    size_t nblk = host_cdiv(n, SCAN_ITEMS);
    return nblk <= 1 ? 2 : 2 * nblk + scan_tmp_len(nblk);
}

static cuzk_err scan_u32(gpu_dev *d, cudaStream_t st, const uint32_t *in, uint32_t *out, size_t n,
                         uint32_t *total, uint32_t *tmp, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t nblk = host_cdiv(n, SCAN_ITEMS);
    uint32_t *bsum = tmp, *boff = tmp + nblk;

    CUDA_LAUNCH(err, done, scan_block_kernel, (unsigned)nblk, 256, 0, st, in, out, n, bsum);
    if (nblk == 1) {
        CUDA_TRY(err, cudaMemcpyAsync(total, bsum, 4, cudaMemcpyDeviceToDevice, st), done);
    } else {
        CZ_TRY(err, scan_u32(d, st, bsum, boff, nblk, total, tmp + 2 * nblk, dg), done);
        CUDA_LAUNCH(err, done, scan_add_kernel, grid_for(d, n, 256), 256, 0, st, out, n, boff);
    }
done:
    return err;
}

/* Counts in scratch (uint32 each): the tail's, the groups' entries per sort set, the affine
 * rounds' points, the packed ones, then each set's ones and tail. */
enum {
    CNT_TAIL = 0,
    CNT_GROUP = 2, /* + sort set */
    CNT_ROUND = 4, /* + round % 2 */
    CNT_ONES_ALL = 6,
    CNT_ONES = 8, /* + set */
    CNT_SET_TAIL = CNT_ONES + GPU_MSM_MAX_SETS,
    CNT_LEN = CNT_SET_TAIL + GPU_MSM_MAX_SETS
};

/** What an MSM call's scratch is laid out for: `sets` sets of n scalars over the same n bases,
 *  at most `tail` scalars other than 0 and 1 in all and t_max in one set. */
struct msm_shape {
    size_t n;
    unsigned sets;
    size_t tail, t_max;
};

/** Device scratch of one MSM call, laid out for a shape and windows up to c_max bits. The
 *  sorted entries of a group and their bucket starts come in two sets, so that group k + 1 is
 *  sorted (on s_sort) into one while group k is accumulated (on s) from the other. */
template <class F> struct msm_mem {
    uint32_t *counts; /* CNT_* */
    uint32_t *tail_idx;
    uint32_t *planes;   /* the tail scalars' words, 8 planes of `stride` */
    uint32_t *one_idx;  /* set s's ones from s n */
    uint32_t *one_pack; /* with several sets: their ones one after another ... */
    uint32_t *one_offs; /* ... set s's from one_offs[s] */
    uint32_t *hist[2], *offs[2], *cursor[2], *scan_tmp[2];
    uint32_t *vals[2];
    xyzz_t<F> *buckets;
    uint32_t *rk[2];
    xyzz_t<F> *rp[2];
    xyzz_t<F> *seg, *sum_tmp, *win;
    unsigned rounds;  /* affine rounds (aff_rounds_for), 0 until the tail is known */
    aff_t<F> *aff[2]; /* their points, even and odd rounds (second scratch area) */
    size_t stride;    /* the planes' */
    size_t g_max;     /* windows of a group */
    size_t e_cap;     /* sorted entries (vals) */
    size_t b_cap;     /* buckets of a group (hist, offs, cursor, buckets) */
};

/* Level-0 chunk for cnt entries: ACC_TARGET_THREADS threads where the bounds allow, or the
 * device's msm_chunk when set (never below GPU_MSM_CHUNK_MIN: the records' space). */
static unsigned acc_chunk(const gpu_dev *d, size_t cnt)
{
    const size_t k = host_cdiv(cnt, ACC_TARGET_THREADS);
    if (d->msm_chunk) {
        return d->msm_chunk;
    }
    return k < ACC_CHUNK_MIN ? ACC_CHUNK_MIN : k > ACC_CHUNK_MAX ? ACC_CHUNK_MAX : (unsigned)k;
}

/* Level-0 threads for cnt entries; at most acc_threads_max(e) for every cnt <= e. */
static size_t acc_threads(const gpu_dev *d, size_t cnt)
{
    return host_cdiv(cnt ? cnt : 1, acc_chunk(d, cnt));
}

static size_t acc_threads_max(size_t e)
{
    size_t a = host_cdiv(e ? e : 1, ACC_CHUNK_MIN), b = host_cdiv(e ? e : 1, GPU_MSM_CHUNK_MIN);
    if (b < ACC_TARGET_THREADS) {
        b = ACC_TARGET_THREADS;
    }
    return a < b ? a : b;
}

/* Buckets per reduction thread for a group of `total` buckets: short chains when few. */
static unsigned seg_size(size_t total)
{
    return total >= ((size_t)1 << 20)   ? 4 * SEG_MIN
           : total >= ((size_t)1 << 19) ? 2 * SEG_MIN
                                        : SEG_MIN;
}

/* Points after an affine round of at most cnt inputs over nk buckets. */
static size_t aff_out_max(size_t cnt, size_t nk)
{
    return (cnt + (nk < cnt ? nk : cnt) + 1) / 2;
}

/* Lays out (base == NULL: only sizes) the scratch of an MSM call of shape sh (the affine
 * rounds' points come later: aff_scratch). */
template <class F>
static size_t msm_layout(char *base, const msm_shape &sh, unsigned c_max, msm_mem<F> *m)
{
    typedef xyzz_t<F> X;
    const size_t nb = (size_t)1 << (c_max - 1), tm = sh.t_max;
    const size_t gm = (size_t)GROUP_MAX * sh.sets; /* windows of a group, at most */
    const size_t e_cap = tm * gm < GROUP_ENTRIES ? tm * gm
                         : tm > GROUP_ENTRIES    ? tm
                                                 : GROUP_ENTRIES;
    /* smaller windows have more of them but fewer buckets in all: c_max's total bounds them */
    const size_t b_all = (size_t)sh.sets * ((256 + c_max - 1) / c_max) * nb;
    const size_t b_grp =
        b_all < GROUP_BUCKET_BYTES / sizeof(X) ? b_all : GROUP_BUCKET_BYTES / sizeof(X);
    const size_t b_cap = nb > b_grp ? nb : b_grp;
    const size_t ones = sh.n * sh.sets, e_rec = e_cap > ones ? e_cap : ones;
    const size_t rec0 = 2 * acc_threads_max(e_rec), rec1 = 2 * host_cdiv(rec0, REC_CHUNK);
    const size_t nseg = host_cdiv(b_cap, SEG_MIN) + gm;
    layout L;
    size_t o_counts = L.add(CNT_LEN * 4), o_tidx = L.add(sh.tail * 4), o_tsc = L.add(sh.tail * 32),
           o_oidx = L.add(ones * 4), o_pack = L.add(sh.sets > 1 ? ones * 4 : 0),
           o_ooff = L.add(GPU_MSM_MAX_SETS * 4), o_bk = L.add(b_cap * sizeof(X)),
           o_rk0 = L.add(rec0 * 4), o_rk1 = L.add(rec1 * 4), o_rp0 = L.add(rec0 * sizeof(X)),
           o_rp1 = L.add(rec1 * sizeof(X)), o_seg = L.add(nseg * sizeof(X)),
           o_sum = L.add(gm * SUM_BLOCKS * sizeof(X)),
           o_win = L.add((size_t)sh.sets * 258 * sizeof(X));
    size_t o_hist[2], o_offs[2], o_cur[2], o_scan[2], o_vals[2];
    for (int p = 0; p < 2; p++) {
        o_hist[p] = L.add(b_cap * 4);
        o_offs[p] = L.add(b_cap * 4);
        o_cur[p] = L.add(b_cap * 4);
        o_scan[p] = L.add(scan_tmp_len(b_cap) * 4);
        o_vals[p] = L.add(e_cap * 4);
    }
    if (base) {
        m->counts = (uint32_t *)(base + o_counts);
        m->tail_idx = (uint32_t *)(base + o_tidx);
        m->planes = (uint32_t *)(base + o_tsc);
        m->one_idx = (uint32_t *)(base + o_oidx);
        m->one_pack = (uint32_t *)(base + o_pack);
        m->one_offs = (uint32_t *)(base + o_ooff);
        for (int p = 0; p < 2; p++) {
            m->hist[p] = (uint32_t *)(base + o_hist[p]);
            m->offs[p] = (uint32_t *)(base + o_offs[p]);
            m->cursor[p] = (uint32_t *)(base + o_cur[p]);
            m->scan_tmp[p] = (uint32_t *)(base + o_scan[p]);
            m->vals[p] = (uint32_t *)(base + o_vals[p]);
        }
        m->buckets = (X *)(base + o_bk);
        m->rk[0] = (uint32_t *)(base + o_rk0);
        m->rk[1] = (uint32_t *)(base + o_rk1);
        m->rp[0] = (X *)(base + o_rp0);
        m->rp[1] = (X *)(base + o_rp1);
        m->seg = (X *)(base + o_seg);
        m->sum_tmp = (X *)(base + o_sum);
        m->win = (X *)(base + o_win);
        m->rounds = 0;
        m->aff[0] = m->aff[1] = NULL;
        m->stride = sh.tail;
        m->g_max = gm;
        m->e_cap = e_cap;
        m->b_cap = b_cap;
    }
    return L.off;
}

/** Sets m->rounds for `tail` scalars and places the rounds' points in the second scratch area,
 *  for groups of G windows of nb buckets. */
template <class F>
static cuzk_err aff_scratch(gpu_dev *d, msm_mem<F> *m, size_t tail, unsigned G, size_t nb,
                            cz_diag *dg)
{
    const unsigned R = aff_rounds_for<F>(d, tail);
    const size_t e = G * tail < m->e_cap ? G * tail : m->e_cap, buckets = G * nb;
    const size_t a0 = R && e > 1 ? aff_out_max(e, buckets) : 0;
    const size_t a1 = R > 1 ? aff_out_max(a0, buckets) : 0;
    char *p = NULL;
    cuzk_err err = CUZK_OK;

    if (a0) {
        CZ_TRY(err, dev_scratch2(d, (a0 + a1) * sizeof(aff_t<F>), &p, dg), done);
        m->rounds = R;
        m->aff[0] = (aff_t<F> *)p;
        m->aff[1] = a1 ? (aff_t<F> *)p + a0 : NULL;
    }
done:
    return err;
}

/** Windows per group for W windows of nb buckets over `tail` scalars (at least 1). */
template <class F>
static unsigned group_windows(const gpu_dev *d, const msm_mem<F> &m, unsigned W, size_t tail,
                              size_t nb)
{
    size_t g = W < m.g_max ? W : m.g_max;
    if (d->msm_group && g > d->msm_group) {
        g = d->msm_group;
    }
    if (tail && g * tail > m.e_cap) {
        g = m.e_cap / tail;
    }
    if (g * nb > m.b_cap) {
        g = m.b_cap / nb;
    }
    return g ? (unsigned)g : 1;
}

/* Sorted entries in runs: the runs of the nk buckets start at offs[0 .. nk) (NULL: one
 * bucket); *cnt (device) entries, at most cnt_max. */
template <class F> struct runs_t {
    entries_t<F> e;
    const uint32_t *offs, *cnt;
    size_t nk, cnt_max;
};

/** Sums the runs into their buckets (chunked, level by level). */
template <class F>
static cuzk_err reduce_runs(gpu_dev *d, const msm_mem<F> &m, const runs_t<F> &r, xyzz_t<F> *buckets,
                            cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t cnt_max = r.cnt_max;
    const unsigned chunk = acc_chunk(d, cnt_max);
    size_t T, cnt;
    int in = 0;
    acc_out<F> o;

    if (cnt_max == 0) {
        return CUZK_OK;
    }
    o.buckets = buckets;
    o.final_level = cnt_max <= chunk;
    T = o.final_level ? 1 : acc_threads(d, cnt_max);
    o.rk = m.rk[0];
    o.rp = m.rp[0];
    CUDA_LAUNCH(err, done, msm_acc0_kernel<F>, (unsigned)host_cdiv(T, ACC_THREADS), ACC_THREADS, 0,
                d->s, r.e, r.offs, (uint32_t)r.nk, r.cnt, T, chunk, o);
    cnt = 2 * T;
    while (!o.final_level) {
        o.final_level = cnt <= REC_CHUNK;
        T = o.final_level ? 1 : host_cdiv(cnt, REC_CHUNK);
        o.rk = m.rk[1 - in];
        o.rp = m.rp[1 - in];
        CUDA_LAUNCH(err, done, msm_acc1_kernel<F>, (unsigned)host_cdiv(T, ACC_THREADS), ACC_THREADS,
                    0, d->s, (const uint32_t *)m.rk[in], (const xyzz_t<F> *)m.rp[in], cnt, T, o);
        cnt = 2 * T;
        in = 1 - in;
    }
done:
    return err;
}

/** out[r] = sum of the n XYZZ points in[r n ..] for each of `rows` rows (two launches). */
template <class F>
static cuzk_err sum_points(gpu_dev *d, const msm_mem<F> &m, const xyzz_t<F> *in, size_t n,
                           unsigned rows, xyzz_t<F> *out, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t blocks = host_cdiv(n, SUM_THREADS);
    if (blocks > SUM_BLOCKS) {
        blocks = SUM_BLOCKS;
    }
    if (blocks <= 1) {
        CUDA_LAUNCH(err, done, msm_sum_kernel<F>, dim3(1, rows), SUM_THREADS, 0, d->s, in, n, n,
                    out, 1);
    } else {
        CUDA_LAUNCH(err, done, msm_sum_kernel<F>, dim3((unsigned)blocks, rows), SUM_THREADS, 0,
                    d->s, in, n, n, m.sum_tmp, blocks);
        CUDA_LAUNCH(err, done, msm_sum_kernel<F>, dim3(1, rows), SUM_THREADS, 0, d->s,
                    (const xyzz_t<F> *)m.sum_tmp, blocks, blocks, out, 1);
    }
done:
    return err;
}

/** Group p's runs *r (set p's sorted entries) through m.rounds affine rounds, on s: *r becomes
 *  the rounds' points in runs (entry i is point i), unchanged without rounds. The round offsets
 *  live in set p's hist and cursor, free while this group is accumulated (the next sort uses
 *  the other set). */
template <class F>
static cuzk_err aff_rounds(gpu_dev *d, const msm_mem<F> &m, int p, runs_t<F> *r, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    uint32_t *ob[2] = {m.hist[p], m.cursor[p]};

    for (unsigned k = 0; k < m.rounds && r->cnt_max > 1; k++) {
        uint32_t *offs_out = ob[k & 1], *cout = m.counts + CNT_ROUND + (k & 1);
        const size_t out_max = aff_out_max(r->cnt_max, r->nk);
        const size_t T = host_cdiv(out_max, AFF_PER);
        CUDA_LAUNCH(err, done, msm_half_runs_kernel, grid_for(d, r->nk, 256), 256, 0, d->s, r->offs,
                    (uint32_t)r->nk, r->cnt, offs_out);
        CZ_TRY(err, scan_u32(d, d->s, offs_out, offs_out, r->nk, cout, m.scan_tmp[p], dg), done);
        const aff_pos ps = {r->offs, offs_out, (uint32_t)r->nk, 0, 0};
        CUDA_LAUNCH(err, done, msm_aff_round_kernel<F>, (unsigned)host_cdiv(T, ACC_THREADS),
                    ACC_THREADS, 0, d->s, r->e, ps, r->cnt, (const uint32_t *)cout, T,
                    m.aff[k & 1]);
        *r = runs_t<F>{{m.aff[k & 1], NULL}, offs_out, cout, r->nk, out_max};
    }
done:
    return err;
}

/* Events of the group pipeline (dev->msm_ev). */
enum { EV_START = 0, EV_SORTED = 1 /* + set */, EV_ACC_START = 3, EV_COUNT };
static_assert(EV_COUNT == GPU_MSM_EVENTS, "dev->msm_ev holds the pipeline's events");

/** Windows in the group that starts at window w0 (W windows, G per group). */
static unsigned group_width(unsigned W, unsigned G, unsigned w0)
{
    return W - w0 < G ? W - w0 : G;
}

/* The tail of an MSM call: `tail` scalars in all, at most t_max of one set, sets of n scalars
 * with W windows of c bits each (set s's windows are [s W, s W + W) of the V in all), sorted in
 * groups of G windows. */
struct tail_t {
    size_t tail, t_max, n;
    unsigned W, V, G, c;
};

/** Sorts the tail's digits of windows [w0, w0 + g) into sort set p, on the sort stream. */
template <class F>
static cuzk_err sort_group(gpu_dev *d, const msm_mem<F> &m, int p, const tail_t &t, unsigned w0,
                           unsigned g, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cudaStream_t st = d->s_sort;
    const size_t nb = (size_t)1 << (t.c - 1), tb = g * nb;

    CUDA_TRY(err, cudaMemsetAsync(m.hist[p], 0, tb * 4, st), done);
    CUDA_LAUNCH(err, done, msm_digits_kernel, grid_for(d, t.tail, 256), 256, 0, st,
                (const uint32_t *)m.planes, m.stride, (const uint32_t *)m.tail_idx, t.tail, t.n,
                t.V / t.W, t.W, w0, g, t.c, nb, m.hist[p]);
    CZ_TRY(err,
           scan_u32(d, st, m.hist[p], m.offs[p], tb, m.counts + CNT_GROUP + p, m.scan_tmp[p], dg),
           done);
    CUDA_TRY(err, cudaMemcpyAsync(m.cursor[p], m.offs[p], tb * 4, cudaMemcpyDeviceToDevice, st),
             done);
    CUDA_LAUNCH(err, done, msm_scatter_kernel, grid_for(d, t.tail, 256), 256, 0, st,
                (const uint32_t *)m.planes, m.stride, (const uint32_t *)m.tail_idx, t.tail, t.n,
                t.V / t.W, t.W, w0, g, t.c, nb, m.cursor[p], m.vals[p]);
    CUDA_TRY(err, cudaEventRecord(d->msm_ev[EV_SORTED + p], st), done);
done:
    return err;
}

/** The window groups of the tail into m.win (window v's sum at v): group k + 1 is sorted on
 *  s_sort (into sort set k + 1 mod 2) while group k is accumulated on s (from set k mod 2).
 *  The sort waits until that accumulation has started: then the set it overwrites is no longer
 *  read (group k - 1's accumulation is over), and its kernels share the device with the long
 *  accumulation rather than with the short, latency-bound bucket reduction before it. Every
 *  s_sort launch is ordered after the work already on s, and s waits for the last sort. */
template <class F>
static cuzk_err msm_groups(gpu_dev *d, const msm_mem<F> &m, const aff_t<F> *bases, const tail_t &t,
                           cz_diag *dg)
{
    typedef xyzz_t<F> X;
    cuzk_err err = CUZK_OK;
    const size_t nb = (size_t)1 << (t.c - 1);
    const unsigned G = t.G, groups = t.tail ? (t.V + G - 1) / G : 0;

    if (!groups) {
        return CUZK_OK;
    }
    CUDA_TRY(err, cudaEventRecord(d->msm_ev[EV_START], d->s), done);
    CUDA_TRY(err, cudaStreamWaitEvent(d->s_sort, d->msm_ev[EV_START], 0), done);
    CZ_TRY(err, sort_group<F>(d, m, 0, t, 0, group_width(t.V, G, 0), dg), done);
    for (unsigned k = 0; k < groups; k++) {
        const unsigned w0 = k * G, g = group_width(t.V, G, w0);
        const int p = (int)(k & 1);
        const size_t tb = g * nb;
        const unsigned seg = seg_size(tb);
        const size_t nseg = host_cdiv(nb, seg);
        CUDA_TRY(err, cudaStreamWaitEvent(d->s, d->msm_ev[EV_SORTED + p], 0), done);
        CUDA_TRY(err, cudaMemsetAsync(m.buckets, 0, tb * sizeof(X), d->s), done);
        prof_mark(d, 1);
        if (k + 1 < groups) {
            CUDA_TRY(err, cudaEventRecord(d->msm_ev[EV_ACC_START], d->s), done);
            CUDA_TRY(err, cudaStreamWaitEvent(d->s_sort, d->msm_ev[EV_ACC_START], 0), done);
            CZ_TRY(err, sort_group<F>(d, m, 1 - p, t, w0 + G, group_width(t.V, G, w0 + G), dg),
                   done);
        }
        runs_t<F> runs = {{bases, m.vals[p]}, m.offs[p], m.counts + CNT_GROUP + p, tb, g * t.t_max};
        CZ_TRY(err, aff_rounds<F>(d, m, p, &runs, dg), done);
        CZ_TRY(err, reduce_runs<F>(d, m, runs, m.buckets, dg), done);
        prof_mark(d, 2);
        CUDA_LAUNCH(err, done, msm_bucket_seg_kernel<F>, (unsigned)host_cdiv(g * nseg, ACC_THREADS),
                    ACC_THREADS, 0, d->s, (const X *)m.buckets, nb, seg, nseg, g * nseg, m.seg);
        CZ_TRY(err, sum_points<F>(d, m, m.seg, nseg, g, m.win + w0, dg), done);
        prof_mark(d, 3);
    }
done:
    return err;
}

/** Each set's ones summed into out[s]: one set's run of one_idx, or the runs of several sets
 *  packed one after another (one reduction for all of them, a run per set). */
template <class F>
static cuzk_err msm_ones(gpu_dev *d, const msm_mem<F> &m, const aff_t<F> *bases,
                         const msm_shape &sh, size_t ones, xyzz_t<F> *out, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    if (sh.sets == 1) {
        const runs_t<F> r = {{bases, m.one_idx}, NULL, m.counts + CNT_ONES, 1, ones};
        return reduce_runs<F>(d, m, r, out, dg);
    }
    if (!ones) {
        return CUZK_OK;
    }
    CUDA_LAUNCH(err, done, msm_ones_pack_kernel, sh.sets, 256, 0, d->s, (const uint32_t *)m.one_idx,
                sh.n, (const uint32_t *)(m.counts + CNT_ONES), sh.sets, m.one_pack, m.one_offs,
                m.counts + CNT_ONES_ALL);
    {
        const runs_t<F> r = {
            {bases, m.one_pack}, m.one_offs, m.counts + CNT_ONES_ALL, sh.sets, ones};
        CZ_TRY(err, reduce_runs<F>(d, m, r, out, dg), done);
    }
done:
    return err;
}

/** The MSM of each of the sh.sets sets (srcs) against bases[0 .. sh.n). Writes to `win_host`
 *  the V = sets W window sums (set s's from s W) and then each set's ones sum (V + sets XYZZ
 *  points), and W, c. `base` is scratch laid out by msm_layout(sh, c_max). */
template <class F>
static cuzk_err msm_run(gpu_dev *d, char *base, const msm_shape &sh, unsigned c_max,
                        const aff_t<F> *bases, const set_src *srcs, const gpu_msm_opts *opts,
                        uint64_t *win_host, unsigned *w_out, unsigned *c_out, cz_diag *dg)
{
    typedef xyzz_t<F> X;
    cuzk_err err = CUZK_OK;
    msm_mem<F> m;
    uint32_t counts[CNT_LEN];
    size_t ones = 0, nb = 0;
    const unsigned S = sh.sets;
    tail_t t = {0, 0, sh.n, 0, 0, 0, 0};

    msm_layout<F>(base, sh, c_max, &m);
    prof_begin(d);
    CUDA_TRY(err, cudaMemsetAsync(m.counts, 0, sizeof(counts), d->s), done);
    for (unsigned s = 0; s < S; s++) {
        const set_cnt cnt = {m.counts + CNT_TAIL, m.counts + CNT_SET_TAIL + s,
                             m.counts + CNT_ONES + s};
        CUDA_LAUNCH(err, done, msm_classify_kernel, grid_for(d, sh.n, 256), 256, 0, d->s, srcs[s],
                    sh.n, opts && opts->no_split01 ? 0 : 1, (uint32_t)(s * sh.n), m.tail_idx,
                    m.planes, m.stride, m.one_idx + s * sh.n, cnt);
    }
    CUDA_TRY(err, cudaMemcpyAsync(counts, m.counts, sizeof(counts), cudaMemcpyDeviceToHost, d->s),
             done);
    CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
    prof_mark(d, 0);
    t.tail = counts[CNT_TAIL];
    for (unsigned s = 0; s < S; s++) {
        t.t_max = counts[CNT_SET_TAIL + s] > t.t_max ? counts[CNT_SET_TAIL + s] : t.t_max;
        ones += counts[CNT_ONES + s];
    }
    t.c = opts && opts->window_bits ? opts->window_bits : gpu_msm_auto_window_bits(t.t_max);
    t.c = t.c > c_max ? c_max : t.c;
    t.W = (256 + t.c - 1) / t.c;
    t.V = S * t.W;
    nb = (size_t)1 << (t.c - 1);
    t.G = group_windows(d, m, t.V, t.t_max, nb);
    CZ_TRY(err, aff_scratch<F>(d, &m, t.t_max, t.G, nb, dg), done);
    CUDA_TRY(err, cudaMemsetAsync(m.win, 0, (t.V + S) * sizeof(X), d->s), done);
    CZ_TRY(err, msm_groups<F>(d, m, bases, t, dg), done);
    prof_mark(d, 1);
    CZ_TRY(err, msm_ones<F>(d, m, bases, sh, ones, m.win + t.V, dg), done);
    prof_mark(d, 4);
    CUDA_TRY(err,
             cudaMemcpyAsync(win_host, m.win, (t.V + S) * sizeof(X), cudaMemcpyDeviceToHost, d->s),
             done);
    prof_mark(d, 5);
    CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
    prof_end(d);
    *w_out = t.W;
    *c_out = t.c;
done:
    return err;
}

/** The scratch bytes of an MSM of n terms with windows of at most c_max bits: the scalars'
 *  copy when they are placed in scratch (host scalars), then the layout. */
template <class F> static size_t msm_scratch_total(size_t n, unsigned c_max, bool sc_in_scratch)
{
    const size_t sc_bytes = sc_in_scratch ? n * 32 : 0;
    const msm_shape sh = {n, 1, n, n};
    return ((sc_bytes + 255) & ~(size_t)255) + msm_layout<F>(NULL, sh, c_max, NULL);
}

/** Checks the bases of an MSM of n terms from `first` (group 1 or 2). */
static cuzk_err check_bases(gpu_dev *dev, const gpu_msm_bases *bases, size_t first, size_t n,
                            int group, cz_diag *dg)
{
    if (!bases || bases->group != group || bases->dev != dev || first > bases->n ||
        n > bases->n - first) {
        return cz_fail(dg, CUZK_E_INVAL, "MSM of %zu terms at base %zu of %zu (group %d)", n, first,
                       bases ? bases->n : 0, group);
    }
    return CUZK_OK;
}

/** outs[i] = the host's combination of a set's window sums (W of c bits) and its ones sum. */
static void msm_finish(int group, void *outs, size_t i, const uint64_t *win, unsigned W, unsigned c,
                       const uint64_t *ones)
{
    if (group == 1) {
        gpu_host_msm_finish_g1(gpu_host_g1_at((struct g1 *)outs, i), win, W, c, ones);
    } else {
        gpu_host_msm_finish_g2(gpu_host_g2_at((struct g2 *)outs, i), win, W, c, ones);
    }
}

/** outs[i] = the identity of the group. */
static void msm_identity(int group, void *outs, size_t i)
{
    static const uint64_t zero_xyzz[GPU_G2_XYZZ_LIMBS] = {0};
    if (group == 1) {
        gpu_host_xyzz_to_g1(gpu_host_g1_at((struct g1 *)outs, i), zero_xyzz);
    } else {
        gpu_host_xyzz_to_g2(gpu_host_g2_at((struct g2 *)outs, i), zero_xyzz);
    }
}

/** Common front end: argument checks, scratch, scalar placement, run, host combination. */
template <class F>
static cuzk_err msm_call(gpu_dev *dev, void *out, const gpu_msm_bases *bases, size_t first,
                         const void *host_sc, const gpu_buf *dev_sc, size_t off, size_t n,
                         bool mont, const gpu_msm_opts *opts, int group, cz_diag *dg)
{
    typedef xyzz_t<F> X;
    cuzk_err err = CUZK_OK;
    unsigned c_max = 0, W = 0, c = 0;
    size_t sc_bytes = 0, total = 0;
    char *buf = NULL;
    set_src src = {NULL, NULL, NULL, 0, 0, 0, 0};
    uint64_t *win = NULL;
    const msm_shape sh = {n, 1, n, n};

    CZ_TRY(err, check_bases(dev, bases, first, n, group, dg), done);
    if (opts && opts->window_bits > GPU_MSM_MAX_WINDOW_BITS) {
        return cz_fail(dg, CUZK_E_INVAL, "window of %u bits", opts->window_bits);
    }
    if (dev_sc &&
        (off % 32 != 0 || dev_sc->dev != dev || off > dev_sc->len || n * 32 > dev_sc->len - off)) {
        return cz_fail(dg, CUZK_E_INVAL, "%zu scalars at offset %zu of a %zu-byte buffer", n, off,
                       dev_sc->len);
    }
    if (n == 0) {
        msm_identity(group, out, 0);
        return CUZK_OK;
    }
    c_max = opts && opts->window_bits ? opts->window_bits : gpu_msm_auto_window_bits(n);
    sc_bytes = host_sc ? n * 32 : 0;
    total = msm_scratch_total<F>(n, c_max, sc_bytes > 0);
    win = (uint64_t *)cz_malloc(258 * sizeof(X));
    if (!win) {
        return cz_fail(dg, CUZK_E_NOMEM, "MSM window sums");
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, total, &buf, dg), done);
    if (host_sc) {
        CZ_TRY(err, dev_h2d(dev, buf, host_sc, n * 32, dev->s, dg), done);
        src.sc = (const uint4 *)buf;
    } else { /* read in place; Montgomery values converted as they are classified */
        src.sc = (const uint4 *)((const char *)dev_sc->ptr + off);
        src.mont = mont ? 1 : 0;
    }
    CZ_TRY(err,
           msm_run<F>(dev, buf + ((sc_bytes + 255) & ~(size_t)255), sh, c_max,
                      (const aff_t<F> *)bases->ptr + first, &src, opts, win, &W, &c, dg),
           done);
    msm_finish(group, out, 0, win, W, c, win + (size_t)W * (sizeof(X) / 8));
done:
    cz_free(win);
    return err;
}

/** The scratch shape of an MSM over sets (a dense set's tail bound is n, a class slice's its
 *  others). */
static msm_shape sets_shape(size_t n, const gpu_msm_set *sets, unsigned nsets)
{
    msm_shape sh = {n, nsets, 0, 0};
    for (unsigned s = 0; s < nsets; s++) {
        const size_t t = sets[s].nw ? sets[s].n_oth : n;
        sh.tail += t;
        sh.t_max = t > sh.t_max ? t : sh.t_max;
    }
    return sh;
}

/** Checks one set of n scalars (gpu.h, gpu_msm_set) and says where it lies on the device. */
static cuzk_err set_check(gpu_dev *dev, const gpu_msm_set *st, size_t n, set_src *src, cz_diag *dg)
{
    const gpu_buf *b = st->buf;
    const char *p = b ? (const char *)b->ptr : NULL;

    if (!b || b->dev != dev) {
        return cz_fail(dg, CUZK_E_INVAL, "an MSM set without a buffer of the device");
    }
    *src = set_src{NULL, NULL, NULL, 0, st->base, st->bit0, st->mont ? 1 : 0};
    if (!st->nw) {
        if (st->off % 32 != 0 || st->off > b->len || n > (b->len - st->off) / 32) {
            return cz_fail(dg, CUZK_E_INVAL, "%zu scalars at offset %zu of a %zu-byte buffer", n,
                           st->off, b->len);
        }
        src->sc = (const uint4 *)(p + st->off);
        return CUZK_OK;
    }
    if (st->off % 8 != 0 || st->oth_off % 32 != 0 || st->bit0 >= 64 || st->n_oth > n ||
        st->nw > b->len / 8 || st->nw < (st->bit0 + n + 63) / 64 * 3 || st->off > b->len ||
        st->nw * 8 > b->len - st->off || st->oth_off > b->len ||
        st->n_oth > (b->len - st->oth_off) / 32) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "classes of %zu scalars (bit %u): %zu words at %zu and %zu others at %zu "
                       "of a %zu-byte buffer",
                       n, st->bit0, st->nw, st->off, st->n_oth, st->oth_off, b->len);
    }
    src->map = (const uint64_t *)(const void *)(p + st->off);
    src->oth = (const uint4 *)(p + st->oth_off);
    src->n_oth = st->n_oth;
    return CUZK_OK;
}

/** The scratch bytes msm_sets_call asks for. */
template <class F> static size_t msm_sets_scratch(size_t n, const gpu_msm_set *sets, unsigned nsets)
{
    const msm_shape sh = sets_shape(n, sets, nsets);
    return n ? msm_layout<F>(NULL, sh, gpu_msm_auto_window_bits(sh.t_max), NULL) : 0;
}

/** outs[s] = the MSM of set s's scalars against bases [first, first + n), for s < nsets: one
 *  classification per set, then one sort, accumulation and reduction for all of them. */
template <class F>
static cuzk_err msm_sets_call(gpu_dev *dev, void *outs, const gpu_msm_bases *bases, size_t first,
                              size_t n, const gpu_msm_set *sets, unsigned nsets, int group,
                              cz_diag *dg)
{
    typedef xyzz_t<F> X;
    const size_t limbs = sizeof(X) / 8;
    cuzk_err err = CUZK_OK;
    set_src src[GPU_MSM_MAX_SETS];
    unsigned W = 0, c = 0;
    uint64_t *win = NULL;
    char *buf = NULL;

    CZ_TRY(err, check_bases(dev, bases, first, n, group, dg), done);
    if (nsets < 1 || nsets > GPU_MSM_MAX_SETS || (size_t)nsets * n >= GPU_MSM_MAX_BASES) {
        return cz_fail(dg, CUZK_E_INVAL, "%u sets of %zu scalars (1 to %u sets, below 2^31 in all)",
                       nsets, n, (unsigned)GPU_MSM_MAX_SETS);
    }
    for (unsigned s = 0; s < nsets; s++) {
        CZ_TRY(err, set_check(dev, &sets[s], n, &src[s], dg), done);
    }
    if (n == 0) {
        for (unsigned s = 0; s < nsets; s++) {
            msm_identity(group, outs, s);
        }
        return CUZK_OK;
    }
    {
        const msm_shape sh = sets_shape(n, sets, nsets);
        const unsigned c_max = gpu_msm_auto_window_bits(sh.t_max);
        win = (uint64_t *)cz_malloc((size_t)nsets * 258 * sizeof(X));
        if (!win) {
            return cz_fail(dg, CUZK_E_NOMEM, "MSM window sums");
        }
        CZ_TRY(err, dev_enter(dev, dg), done);
        CZ_TRY(err, dev_scratch(dev, msm_layout<F>(NULL, sh, c_max, NULL), &buf, dg), done);
        CZ_TRY(err,
               msm_run<F>(dev, buf, sh, c_max, (const aff_t<F> *)bases->ptr + first, src, NULL, win,
                          &W, &c, dg),
               done);
    }
    for (unsigned s = 0; s < nsets; s++) {
        msm_finish(group, outs, s, win + (size_t)s * W * limbs, W, c,
                   win + ((size_t)nsets * W + s) * limbs);
    }
done:
    cz_free(win);
    return err;
}

} // namespace
} // namespace czg

#endif /* CUZK_GPU_CUDA_MSM_CUH */
