/* test_gpu.c - the GPU backend (gpu/gpu.h) against the CPU, exactly.
 * References: field/ and curve/ for the device field and XYZZ arithmetic (gpu_debug_*); a naive
 * O(n^2) DFT built on fr_mul and poly/'s ntt_* for every transform kind at sizes 2^0 .. 2^20;
 * poly_quotient_h for H; msm/ (msm_g1, msm_g2), naive double-and-add sums and bases with known
 * discrete logs ([sum s_i log_i] G, no MSM at all) for the MSMs, over random, 0/1-heavy,
 * all-equal, edge and small scalars, identity bases, n = 1, 2, 3 and odd sizes, and every
 * window size from 1 bit; a straightforward fr_mul / fr_add sum for the sparse constraint
 * matrices (gpu_spmv_buf) over random rows from empty to hundreds of terms; curve/'s
 * fixed-base multiplication (g1_fb_mul, g2_fb_mul) for gpu_fb_mul_g1 / _g2 and the wire
 * encodings of g1_aff_to_uncompressed / g2_aff_to_uncompressed.
 * Built twice: test_gpu (the real backend; every test skips, exit 77, without a device) and
 * test_gpu_emu (the kernels run by the CPU emulation of gpu/cuda/emu.cuh; smaller sizes).
 */
#include "harness/test.h"

#include <stdlib.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/bls12_381_consts.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/gpu_test_util.h"
#include "gpu/internal.h"
#include "msm/msm.h"
#include "poly/poly.h"

#define T_NTT_LG     (gtu_small_sizes() ? 11u : 20u)
#define T_QUOT_LG    (gtu_small_sizes() ? 10u : 20u)
#define MSM_BIG_N    (gtu_small_sizes() ? (size_t)2100 : (size_t)1 << 17)
#define MSM_MID_N    (gtu_small_sizes() ? (size_t)2100 : (size_t)4097)
#define MSM_G2_BIG_N (gtu_small_sizes() ? (size_t)300 : (size_t)1 << 13)
#define FIELD_N      (gtu_small_sizes() ? (size_t)300 : (size_t)20000)

/* ---- shared state and helpers ---- */

static void *xmalloc(size_t n)
{
    void *p = cz_malloc_aligned(n ? n : 64, 64);
    CHECK(p != NULL);
    return p;
}

static void rand_fr(fr_t *x)
{
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = cz_prng_u64(test_prng());
    }
    fr_from_u256_reduce(x, v);
}

static void rand_scalar(fr_repr_t *s)
{
    fr_t x;
    rand_fr(&x);
    fr_to_repr(s, &x);
}

static fr_repr_t repr_u64(uint64_t v)
{
    fr_repr_t r = {{v, 0, 0, 0}};
    return r;
}

/* A random element of Fp, reduced (raw Montgomery limbs). */
static void rand_fp(fp_t *x)
{
    uint64_t v[6];
    do {
        for (int i = 0; i < 6; i++) {
            v[i] = cz_prng_u64(test_prng());
        }
        v[5] &= 0x1fffffffffffffffULL;
    } while (!fp_from_limbs(x, v));
}

static cz_pool *test_pool(void)
{
    static cz_pool *pool;
    if (!pool) {
        unsigned n = cz_cpu_count();
        CHECK_OK(cz_pool_new(&pool, n > 1 ? n - 1 : 0, "gpu-test", NULL));
    }
    return pool;
}

/* ---- device and buffers ---- */

TEST(gpu_info_and_buffers)
{
    gpu_dev *dev = gtu_need_dev();
    gpu_dev_info info;
    gpu_buf *buf = NULL;
    uint8_t in[1000], out[1000];

    GPU_OK(gpu_dev_get_info(dev, &info, DG));
    printf("  device: %s, %zu MiB (%zu free), %u SMs, cc %u.%u\n", info.name, info.total_mem >> 20,
           info.free_mem >> 20, info.sm_count, info.cc_major, info.cc_minor);
    CHECK(info.sm_count > 0);
    cz_prng_bytes(test_prng(), in, sizeof(in));
    GPU_OK(gpu_buf_new(&buf, dev, 4096, DG));
    CHECK_EQ_U64(gpu_buf_len(buf), 4096);
    GPU_OK(gpu_buf_zero(buf, 0, 4096, DG));
    GPU_OK(gpu_buf_upload(buf, 3000, in, sizeof(in), DG));
    GPU_OK(gpu_buf_download(out, buf, 3000, sizeof(out), DG));
    CHECK_MEM_EQ(out, in, sizeof(in));
    GPU_OK(gpu_buf_download(out, buf, 2000, 1000, DG));
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ_U64(out[i], 0);
    }
    CHECK_ERR(gpu_buf_upload(buf, 3500, in, sizeof(in), NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_buf_download(out, buf, 4097, 0, NULL), CUZK_E_INVAL);
    gpu_buf_free(buf);
    gpu_buf_free(NULL);
}

TEST(gpu_streams_events_pinned)
{
    gpu_dev *dev = gtu_need_dev();
    gpu_stream *s = NULL;
    gpu_event *e0 = NULL, *e1 = NULL;
    gpu_buf *buf = NULL;
    uint8_t *pin = NULL;
    float ms = -1;

    GPU_OK(gpu_stream_new(&s, dev, DG));
    GPU_OK(gpu_event_new(&e0, dev, DG));
    GPU_OK(gpu_event_new(&e1, dev, DG));
    GPU_OK(gpu_host_alloc((void **)&pin, 1 << 20, DG));
    GPU_OK(gpu_buf_new(&buf, dev, 1 << 20, DG));
    for (size_t i = 0; i < (1u << 20); i++) {
        pin[i] = (uint8_t)(i * 7);
    }
    GPU_OK(gpu_event_record(e0, s, DG));
    GPU_OK(gpu_buf_upload_async(buf, 0, pin, 1 << 20, s, DG));
    GPU_OK(gpu_event_record(e1, s, DG));
    GPU_OK(gpu_stream_wait_event(s, e1, DG));
    GPU_OK(gpu_event_sync(e1, DG));
    memset(pin, 0, 1 << 20);
    GPU_OK(gpu_buf_download_async(pin, buf, 0, 1 << 20, s, DG));
    GPU_OK(gpu_stream_sync(s, DG));
    for (size_t i = 0; i < (1u << 20); i++) {
        CHECK_EQ_U64(pin[i], (uint8_t)(i * 7));
    }
    GPU_OK(gpu_event_elapsed_ms(&ms, e0, e1, DG));
    CHECK(ms >= 0);
    gpu_buf_free(buf);
    gpu_host_free(pin);
    gpu_event_free(e0);
    gpu_event_free(e1);
    gpu_stream_free(s);
}

/* ---- classes of Fr vectors (gpu_fr_classes_build, gpu_fr_expand_buf) ---- */

/* The reference: the values of z = [v0 | v1] at the positions sel picks, in order. */
static size_t select_ref(fr_t *out, const fr_t *v0, size_t n0, const fr_t *v1, size_t n1,
                         const gpu_fr_select *s)
{
    size_t k = 0;
    for (size_t p = s->from; p < n0 + n1; p++) {
        if (!s->keep || ((s->keep[p / 64 * s->stride] >> (p % 64)) & 1)) {
            out[k++] = p < n0 ? v0[p] : v1[p - n0];
        }
    }
    return k;
}

/* The class words of c read position by position, against the reference values. */
static void check_class_words(const gpu_fr_classes *c, const fr_t *want, const fr_t *unit)
{
    size_t oth = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t *w = &c->map[3 * (i / 64)];
        const bool nz = (w[0] >> (i % 64)) & 1, ot = (w[1] >> (i % 64)) & 1;
        const bool zero = fr_is_zero(&want[i]), one = fr_eq(&want[i], unit);
        if (i % 64 == 0) {
            CHECK_EQ_U64(w[2], oth);
        }
        CHECK_MSG(nz == !zero && ot == (!zero && !one), "position %zu of %zu", i, c->n);
        if (ot) {
            CHECK_MEM_EQ(&c->oth[oth++], &want[i], sizeof(fr_t));
        }
    }
    CHECK_EQ_U64(oth, c->n_oth);
}

/* Slices of c expanded on the device (class words at an 8-byte offset, others after them, the
 * output between sentinels) against the reference. */
static void check_expand_slices(gpu_dev *dev, const gpu_fr_classes *c, const fr_t *want,
                                const fr_t *unit)
{
    const size_t cuts[][2] = {{0, c->n},
                              {0, 1},
                              {c->n - 1, 1},
                              {c->n / 3, c->n / 2 + 1},
                              {c->n > 70 ? 63 : 0, c->n > 70 ? 2 : 1}};
    for (size_t t = 0; t < ARRAY_LEN(cuts); t++) {
        const size_t first = cuts[t][0], k = cuts[t][1];
        size_t w0, nw, base, n_oth;
        gpu_fr_classes_slice(c, first, k, &w0, &nw, &base, &n_oth);
        const size_t map_off = 8, oth_off = (map_off + nw * 8 + 31) / 32 * 32;
        const size_t in_len = oth_off + n_oth * 32 + 32, out_len = (k + 2) * 32;
        uint8_t *got = xmalloc(out_len);
        gpu_buf *in = NULL, *out = NULL;

        memset(got, 0xa5, out_len);
        GPU_OK(gpu_buf_new(&in, dev, in_len, DG));
        GPU_OK(gpu_buf_new(&out, dev, out_len, DG));
        GPU_OK(gpu_buf_upload(out, 0, got, out_len, DG));
        GPU_OK(gpu_buf_upload(in, map_off, c->map + w0, nw * 8, DG));
        if (n_oth) {
            GPU_OK(gpu_buf_upload(in, oth_off, c->oth + base, n_oth * 32, DG));
        }
        GPU_OK(gpu_fr_expand_buf(dev, out, 32, in, map_off, nw, oth_off, n_oth,
                                 (unsigned)(first % 64), base, k, unit, DG));
        GPU_OK(gpu_buf_download(got, out, 0, out_len, DG));
        CHECK_MSG(memcmp(got + 32, want + first, k * 32) == 0, "slice %zu+%zu of %zu", first, k,
                  c->n);
        for (size_t i = 0; i < 32; i++) {
            CHECK(got[i] == 0xa5 && got[out_len - 1 - i] == 0xa5);
        }
        CHECK_ERR(gpu_fr_expand_buf(dev, out, 32, in, map_off, nw - 3, oth_off, n_oth,
                                    (unsigned)(first % 64), base, k, unit, NULL),
                  CUZK_E_INVAL);
        CHECK_ERR(gpu_fr_expand_buf(dev, out, 64, in, map_off, nw, oth_off, n_oth,
                                    (unsigned)(first % 64), base, k + 1, unit, NULL),
                  CUZK_E_INVAL);
        gpu_buf_free(in);
        gpu_buf_free(out);
        cz_free_aligned(got);
    }
}

TEST(gpu_fr_classes)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t sizes[][2] = {{0, 1}, {1, 0}, {3, 61}, {40, 1000}, {328, 5000}};
    const fr_t unit = FR_ONE;
    fr_t other;

    rand_fr(&other);
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        for (int kind = 0; kind < 3; kind++) { /* mostly 0 and 1; all others; all zero */
            const size_t n0 = sizes[si][0], n1 = sizes[si][1], nz = n0 + n1, zw = (nz + 63) / 64;
            fr_t *v0 = xmalloc(n0 * 32), *v1 = xmalloc(n1 * 32), *want = xmalloc(nz * 32);
            uint64_t *keep = xmalloc(2 * zw * 8);
            for (size_t p = 0; p < nz; p++) {
                fr_t *v = p < n0 ? &v0[p] : &v1[p - n0];
                unsigned r = (unsigned)(cz_prng_u64(test_prng()) % 20);
                if (kind == 2 || (kind == 0 && r < 9)) {
                    memset(v, 0, sizeof(*v));
                } else if (kind == 0 && r < 18) {
                    *v = unit;
                } else {
                    r == 19 ? (void)(*v = other) : rand_fr(v); /* repeated others too */
                }
            }
            for (size_t w = 0; w < 2 * zw; w++) {
                keep[w] = cz_prng_u64(test_prng()) & (w % 4 == 2 ? 0 : ~(uint64_t)0);
            }
            const gpu_fr_select sel[4] = {
                {NULL, 0, 0}, {NULL, 0, n0}, {keep, 2, 0}, {keep, 1, nz > 5 ? 5 : 0}};
            gpu_fr_classes c[4], cp[4], dense[4];
            CHECK_OK(gpu_fr_classes_build(c, 4, v0, n0, v1, n1, sel, &unit, 1.0, NULL, NULL));
            CHECK_OK(
                gpu_fr_classes_build(cp, 4, v0, n0, v1, n1, sel, &unit, 1.0, test_pool(), NULL));
            CHECK_OK(gpu_fr_classes_build(dense, 4, v0, n0, v1, n1, sel, &unit, 0.25, NULL, NULL));
            for (int t = 0; t < 4; t++) {
                const size_t n = select_ref(want, v0, n0, v1, n1, &sel[t]);
                fr_t *got = xmalloc(n * 32);
                CHECK_EQ_U64(c[t].n, n);
                CHECK(c[t].map && !c[t].dense && cp[t].n == n && cp[t].n_oth == c[t].n_oth);
                CHECK_MEM_EQ(cp[t].map, c[t].map, gpu_fr_classes_words(n) * 8);
                CHECK(c[t].n_oth == 0 || memcmp(cp[t].oth, c[t].oth, c[t].n_oth * 32) == 0);
                check_class_words(&c[t], want, &unit);
                /* the dense choice: more than a quarter others */
                CHECK((dense[t].dense != NULL) == (c[t].n_oth * 4 > n));
                for (int f = 0; f < 2; f++) {
                    memset(got, 0x5a, n * 32);
                    gpu_fr_classes_expand(got, f ? &dense[t] : &c[t], 0, n, &unit);
                    CHECK_MSG(memcmp(got, want, n * 32) == 0, "sizes %zu kind %d sel %d", si, kind,
                              t);
                }
                if (n) {
                    check_expand_slices(dev, &c[t], want, &unit);
                }
                gpu_fr_classes_clear(&c[t]);
                gpu_fr_classes_clear(&cp[t]);
                gpu_fr_classes_clear(&dense[t]);
                cz_free_aligned(got);
            }
            cz_free_aligned(v0);
            cz_free_aligned(v1);
            cz_free_aligned(want);
            cz_free_aligned(keep);
        }
    }
}

/* ---- field arithmetic ---- */

TEST(gpu_field_fr)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = FIELD_N;
    fr_t *a = xmalloc(n * 32), *b = xmalloc(n * 32), *got = xmalloc(n * 32), want;
    fr_repr_t rep;

    for (size_t i = 0; i < n; i++) {
        rand_fr(&a[i]);
        rand_fr(&b[i]);
    }
    /* edges (Montgomery limbs): 0, raw 1, raw r - 1, one, -one, squares of edge values */
    memset(&a[0], 0, 32);
    memset(&b[1], 0, 32);
    a[2] = (fr_t){{1, 0, 0, 0}};
    a[3] = (fr_t){{FR_MODULUS[0] - 1, FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}};
    b[3] = a[3];
    a[4] = FR_ONE;
    fr_neg(&b[4], &FR_ONE);
    a[5] = b[4];
    b[5] = b[4];
    for (int op = GPU_DBG_FR_MUL; op <= GPU_DBG_FR_FROM_MONT; op++) {
        GPU_OK(gpu_debug_field(dev, op, got[0].l, a[0].l, b[0].l, n, DG));
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case GPU_DBG_FR_MUL:
                fr_mul(&want, &a[i], &b[i]);
                break;
            case GPU_DBG_FR_ADD:
                fr_add(&want, &a[i], &b[i]);
                break;
            case GPU_DBG_FR_SUB:
                fr_sub(&want, &a[i], &b[i]);
                break;
            case GPU_DBG_FR_NEG:
                fr_neg(&want, &a[i]);
                break;
            default:
                fr_to_repr(&rep, &a[i]);
                memcpy(&want, &rep, 32);
                break;
            }
            CHECK_MSG(memcmp(&got[i], &want, 32) == 0, "fr op %d element %zu", op, i);
        }
    }
    /* the product on words that are mostly 0 or 2^32 - 1: zero words in the reduction steps,
     * and carries through every word */
    for (size_t i = 0; i < n; i++) {
        fr_t *xs[2] = {&a[i], &b[i]};
        for (int k = 0; k < 2; k++) {
            uint32_t w[8];
            for (int j = 0; j < 8; j++) {
                uint64_t u = cz_prng_u64(test_prng());
                w[j] = u % 4 == 0 ? 0xffffffffu : u % 4 == 1 ? (uint32_t)(u >> 32) : 0;
            }
            w[7] &= 0x3fffffffu; /* < 2^254 < r */
            memcpy(xs[k], w, 32);
        }
    }
    GPU_OK(gpu_debug_field(dev, GPU_DBG_FR_MUL, got[0].l, a[0].l, b[0].l, n, DG));
    for (size_t i = 0; i < n; i++) {
        fr_mul(&want, &a[i], &b[i]);
        CHECK_MSG(memcmp(&got[i], &want, 32) == 0, "fr mul sparse element %zu", i);
    }
    cz_free_aligned(a);
    cz_free_aligned(b);
    cz_free_aligned(got);
}

/* The carry flag read by the other kind of instruction (GPU_DBG_CC_PROBE). The expected values
 * are the hardware's, where a subtraction's flag is the carry of a + ~b + 1, the complement of
 * the borrow (Stack Overflow question 66403252, "Why is addition without overflow set CC.CF to
 * 1?", measured; the PTX ISA leaves it open): the emulation must agree, and on a device this
 * checks that it does. */
TEST(gpu_carry_flag_convention)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = 64;
    uint32_t *a = xmalloc(n * 32), *b = xmalloc(n * 32), *got = xmalloc(n * 32);

    for (size_t i = 0; i < 8 * n; i++) {
        uint64_t u = cz_prng_u64(test_prng());
        a[i] = (uint32_t)u;
        b[i] = (uint32_t)(u >> 32);
    }
    /* edges: equal words, 0 against all ones both ways, sums of exactly 2^32 and 2^32 - 1 */
    for (size_t j = 0; j < 8; j++) {
        a[j] = b[j] = (uint32_t)j;
        a[8 + j] = 0;
        b[8 + j] = 0xffffffffu;
        a[16 + j] = 0xffffffffu;
        b[16 + j] = 0;
        a[24 + j] = 0x80000000u + (uint32_t)j;
        b[24 + j] = 0x80000000u - (uint32_t)j - 1u;
        a[32 + j] = 0x80000000u + (uint32_t)j;
        b[32 + j] = 0x80000000u - (uint32_t)j;
    }
    GPU_OK(gpu_debug_field(dev, GPU_DBG_CC_PROBE, (uint64_t *)got, (const uint64_t *)a,
                           (const uint64_t *)b, n, DG));
    for (size_t i = 0; i < 8 * n; i++) {
        uint32_t want;
        if (i % 2 == 0) {
            want = a[i] >= b[i] ? 1u : 0u;
        } else {
            want = (uint64_t)a[i] + b[i] >= ((uint64_t)1 << 32) ? 0u : 0xffffffffu;
        }
        CHECK_MSG(got[i] == want, "word %zu: a %08x b %08x got %08x want %08x", i, a[i], b[i],
                  got[i], want);
    }
    cz_free_aligned(a);
    cz_free_aligned(b);
    cz_free_aligned(got);
}

/* The ceiling benchmark's kernels compute what they claim: thread 0 ends with seed[j] y^iters
 * (CPU fp_mul) and the chains d = d * 0.5 + 1 with the CPU's fma (bit for bit), alone and
 * together; an unknown kind is refused. */
TEST(gpu_ceiling_kernels)
{
    gpu_dev *dev = gtu_need_dev();
    fp_t seed[4], y, want[4], got[4];
    const unsigned iters = 9;
    double want_d = 0.0, dsum = -1.0;
    float ms = -1.0f;

    for (int j = 0; j < 4; j++) {
        rand_fp(&seed[j]);
        want[j] = seed[j];
    }
    rand_fp(&y);
    for (unsigned i = 0; i < iters; i++) {
        for (int j = 0; j < 4; j++) {
            fp_mul(&want[j], &want[j], &y);
        }
    }
    for (int j = 0; j < 4; j++) {
        double d = j;
        for (unsigned i = 0; i < iters * (GPU_CEIL_DFMA_PER_ROUND / 4); i++) {
            d = __builtin_fma(d, 0.5, 1.0); /* math.h's FP_ZERO would clash with ours */
        }
        want_d += d;
    }
    for (int kind = GPU_CEIL_FP_MUL; kind <= (GPU_CEIL_FP_MUL | GPU_CEIL_DFMA); kind++) {
        memset(got, 0, sizeof(got));
        GPU_OK(gpu_debug_ceiling(dev, kind, 300, iters, seed[0].l, y.l, got[0].l, &dsum, &ms, DG));
        if (kind & GPU_CEIL_FP_MUL) {
            CHECK(memcmp(got, want, sizeof(want)) == 0);
        }
        if (kind & GPU_CEIL_DFMA) {
            CHECK(dsum == want_d);
        }
        CHECK(ms >= 0.0f);
    }
    CHECK_ERR(gpu_debug_ceiling(dev, 4, 300, 1, seed[0].l, y.l, NULL, NULL, &ms, NULL),
              CUZK_E_INVAL);
    CHECK_ERR(gpu_debug_ceiling(dev, GPU_CEIL_DFMA, 0, 1, seed[0].l, y.l, NULL, NULL, &ms, NULL),
              CUZK_E_INVAL);
}

TEST(gpu_field_fp_fp2)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = FIELD_N;
    fp_t *a = xmalloc(n * 48), *b = xmalloc(n * 48), *got = xmalloc(n * 48), want;
    fp2_t *a2 = xmalloc(n * 96), *b2 = xmalloc(n * 96), *got2 = xmalloc(n * 96), want2;

    for (size_t i = 0; i < n; i++) {
        rand_fp(&a[i]);
        rand_fp(&b[i]);
        rand_fp(&a2[i].c0);
        rand_fp(&a2[i].c1);
        rand_fp(&b2[i].c0);
        rand_fp(&b2[i].c1);
    }
    memset(&a[0], 0, 48);
    memset(&b[1], 0, 48);
    fp_neg(&a[2], &FP_ONE);
    b[2] = a[2];
    a[3] = FP_ONE;
    memcpy(&a[4], FP_MODULUS, 48);
    a[4].l[0] -= 1; /* raw p - 1 */
    b[4] = a[4];
    /* long carry chains: the low half all ones, the high half just below p's */
    memcpy(&a[5], FP_MODULUS, 48);
    a[5].l[0] = a[5].l[1] = a[5].l[2] = ~(uint64_t)0;
    a[5].l[3] -= 1;
    b[5] = a[5];
    a[6] = a[5];
    b[6] = a[4];
    memset(&a2[0], 0, 96);
    a2[1].c0 = a[4];
    a2[1].c1 = a[4];
    b2[1] = a2[1];
    for (int op = GPU_DBG_FP_MUL; op <= GPU_DBG_FP_NEG; op++) {
        GPU_OK(gpu_debug_field(dev, op, got[0].l, a[0].l, b[0].l, n, DG));
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case GPU_DBG_FP_MUL:
                fp_mul(&want, &a[i], &b[i]);
                break;
            case GPU_DBG_FP_ADD:
                fp_add(&want, &a[i], &b[i]);
                break;
            case GPU_DBG_FP_SUB:
                fp_sub(&want, &a[i], &b[i]);
                break;
            default:
                fp_neg(&want, &a[i]);
                break;
            }
            CHECK_MSG(memcmp(&got[i], &want, 48) == 0, "fp op %d element %zu", op, i);
        }
    }
    for (int op = GPU_DBG_FP2_MUL; op <= GPU_DBG_FP2_SUB; op++) {
        GPU_OK(gpu_debug_field(dev, op, got2[0].c0.l, a2[0].c0.l, b2[0].c0.l, n, DG));
        for (size_t i = 0; i < n; i++) {
            switch (op) {
            case GPU_DBG_FP2_MUL:
                fp2_mul(&want2, &a2[i], &b2[i]);
                break;
            case GPU_DBG_FP2_SQR:
                fp2_sqr(&want2, &a2[i]);
                break;
            case GPU_DBG_FP2_ADD:
                fp2_add(&want2, &a2[i], &b2[i]);
                break;
            default:
                fp2_sub(&want2, &a2[i], &b2[i]);
                break;
            }
            CHECK_MSG(memcmp(&got2[i], &want2, 96) == 0, "fp2 op %d element %zu", op, i);
        }
    }
    cz_free_aligned(a);
    cz_free_aligned(b);
    cz_free_aligned(got);
    cz_free_aligned(a2);
    cz_free_aligned(b2);
    cz_free_aligned(got2);
}

/* ---- points ---- */

static void g1_random_points(g1_aff_t *out, fr_t *dlog, size_t n)
{
    g1_t *jac = xmalloc(sizeof(g1_t) * n);
    fp_t *scr = xmalloc(sizeof(fp_t) * n);
    g1_t gen, steps[4], acc;
    fr_t dsteps[4], a;
    fr_repr_t k;

    g1_from_aff(&gen, &G1_GEN);
    for (int j = 0; j < 4; j++) {
        rand_fr(&dsteps[j]);
        fr_to_repr(&k, &dsteps[j]);
        g1_mul(&steps[j], &gen, &k);
    }
    rand_fr(&a);
    fr_to_repr(&k, &a);
    g1_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)cz_prng_below(test_prng(), 4);
        g1_add(&acc, &acc, &steps[j]);
        fr_add(&a, &a, &dsteps[j]);
        jac[i] = acc;
        if (dlog) {
            dlog[i] = a;
        }
    }
    g1_batch_to_aff(out, jac, n, scr);
    cz_free_aligned(jac);
    cz_free_aligned(scr);
}

static void g2_random_points(g2_aff_t *out, fr_t *dlog, size_t n)
{
    g2_t *jac = xmalloc(sizeof(g2_t) * n);
    fp2_t *scr = xmalloc(sizeof(fp2_t) * n);
    g2_t gen, steps[4], acc;
    fr_t dsteps[4], a;
    fr_repr_t k;

    g2_from_aff(&gen, &G2_GEN);
    for (int j = 0; j < 4; j++) {
        rand_fr(&dsteps[j]);
        fr_to_repr(&k, &dsteps[j]);
        g2_mul(&steps[j], &gen, &k);
    }
    rand_fr(&a);
    fr_to_repr(&k, &a);
    g2_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)cz_prng_below(test_prng(), 4);
        g2_add(&acc, &acc, &steps[j]);
        fr_add(&a, &a, &dsteps[j]);
        jac[i] = acc;
        if (dlog) {
            dlog[i] = a;
        }
    }
    g2_batch_to_aff(out, jac, n, scr);
    cz_free_aligned(jac);
    cz_free_aligned(scr);
}

TEST(gpu_curve_g1_formulas)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = 64;
    g1_aff_t p[64], q[64];
    uint64_t *out = xmalloc(4 * n * GPU_G1_XYZZ_LIMBS * 8);
    g1_t jp, jq, want, got, t;
    fr_repr_t k;

    g1_random_points(p, NULL, n);
    g1_random_points(q, NULL, n);
    /* special pairs: Q = 2P (doubling in the mixed addition), Q = -2P (cancellation), identities */
    g1_from_aff(&jp, &p[0]);
    g1_dbl(&t, &jp);
    g1_to_aff(&q[0], &t);
    g1_from_aff(&jp, &p[1]);
    g1_dbl(&t, &jp);
    g1_neg(&t, &t);
    g1_to_aff(&q[1], &t);
    g1_aff_set_identity(&p[2]);
    g1_aff_set_identity(&q[3]);
    g1_aff_set_identity(&p[4]);
    g1_aff_set_identity(&q[4]);
    q[5] = p[5];
    g1_aff_neg(&q[6], &p[6]);
    GPU_OK(gpu_debug_g1(dev, out, p, q, n, DG));
    for (size_t i = 0; i < n; i++) {
        g1_from_aff(&jp, &p[i]);
        g1_from_aff(&jq, &q[i]);
        g1_dbl(&want, &jp);
        g1_add(&want, &want, &jq);
        gpu_host_xyzz_to_g1(&got, out + (4 * i) * GPU_G1_XYZZ_LIMBS);
        CHECK_MSG(g1_eq(&got, &want), "2P + Q, pair %zu", i);
        g1_dbl(&want, &jp);
        gpu_host_xyzz_to_g1(&got, out + (4 * i + 1) * GPU_G1_XYZZ_LIMBS);
        CHECK_MSG(g1_eq(&got, &want), "2P, pair %zu", i);
        g1_dbl(&t, &jq);
        g1_add(&want, &want, &t);
        gpu_host_xyzz_to_g1(&got, out + (4 * i + 2) * GPU_G1_XYZZ_LIMBS);
        CHECK_MSG(g1_eq(&got, &want), "2P + 2Q, pair %zu", i);
        k = repr_u64(GPU_DEBUG_SMALL_K(i));
        g1_mul(&want, &jp, &k);
        gpu_host_xyzz_to_g1(&got, out + (4 * i + 3) * GPU_G1_XYZZ_LIMBS);
        CHECK_MSG(g1_eq(&got, &want), "[k]P, pair %zu", i);
    }
    cz_free_aligned(out);
}

TEST(gpu_curve_g2_formulas)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = 16;
    g2_aff_t p[16], q[16];
    uint64_t *out = xmalloc(4 * n * GPU_G2_XYZZ_LIMBS * 8);
    g2_t jp, jq, want, got, t;
    fr_repr_t k;

    g2_random_points(p, NULL, n);
    g2_random_points(q, NULL, n);
    g2_from_aff(&jp, &p[0]);
    g2_dbl(&t, &jp);
    g2_to_aff(&q[0], &t);
    g2_from_aff(&jp, &p[1]);
    g2_dbl(&t, &jp);
    g2_neg(&t, &t);
    g2_to_aff(&q[1], &t);
    g2_aff_set_identity(&p[2]);
    g2_aff_set_identity(&q[3]);
    q[5] = p[5];
    GPU_OK(gpu_debug_g2(dev, out, p, q, n, DG));
    for (size_t i = 0; i < n; i++) {
        g2_from_aff(&jp, &p[i]);
        g2_from_aff(&jq, &q[i]);
        g2_dbl(&want, &jp);
        g2_add(&want, &want, &jq);
        gpu_host_xyzz_to_g2(&got, out + (4 * i) * GPU_G2_XYZZ_LIMBS);
        CHECK_MSG(g2_eq(&got, &want), "2P + Q, pair %zu", i);
        g2_dbl(&want, &jp);
        gpu_host_xyzz_to_g2(&got, out + (4 * i + 1) * GPU_G2_XYZZ_LIMBS);
        CHECK_MSG(g2_eq(&got, &want), "2P, pair %zu", i);
        g2_dbl(&t, &jq);
        g2_add(&want, &want, &t);
        gpu_host_xyzz_to_g2(&got, out + (4 * i + 2) * GPU_G2_XYZZ_LIMBS);
        CHECK_MSG(g2_eq(&got, &want), "2P + 2Q, pair %zu", i);
        k = repr_u64(GPU_DEBUG_SMALL_K(i));
        g2_mul(&want, &jp, &k);
        gpu_host_xyzz_to_g2(&got, out + (4 * i + 3) * GPU_G2_XYZZ_LIMBS);
        CHECK_MSG(g2_eq(&got, &want), "[k]P, pair %zu", i);
    }
    cz_free_aligned(out);
}

/* ---- NTT ---- */

static void naive_dft(fr_t *out, const fr_t *in, unsigned lg, const fr_t *w)
{
    size_t n = (size_t)1 << lg;
    for (size_t j = 0; j < n; j++) {
        fr_t acc = FR_ZERO, wj, p = FR_ONE, t;
        fr_pow_u64(&wj, w, j);
        for (size_t i = 0; i < n; i++) {
            fr_mul(&t, &in[i], &p);
            fr_add(&acc, &acc, &t);
            fr_mul(&p, &p, &wj);
        }
        out[j] = acc;
    }
}

static void cpu_ntt(const ntt_domain_t *d, fr_t *x, gpu_ntt_kind kind)
{
    switch (kind) {
    case GPU_NTT_FWD:
        ntt_fwd(d, x, NULL);
        break;
    case GPU_NTT_INV:
        ntt_inv(d, x, NULL);
        break;
    case GPU_NTT_COSET_FWD:
        ntt_coset_fwd(d, x, NULL);
        break;
    case GPU_NTT_COSET_INV:
        ntt_coset_inv(d, x, NULL);
        break;
    }
}

TEST(gpu_ntt_naive_dft)
{
    gpu_dev *dev = gtu_need_dev();
    fr_t x[64], want[64], got[64], w;
    uint64_t wl[4];

    for (unsigned lg = 0; lg <= 6; lg++) {
        size_t n = (size_t)1 << lg;
        for (size_t i = 0; i < n; i++) {
            rand_fr(&x[i]);
        }
        /* the domain generator from the spec's definition, then the naive sum */
        fr_t root;
        memcpy(&root, FR_ROOT_OF_UNITY_MONT, 32);
        for (unsigned s = lg; s < 32; s++) {
            fr_sqr(&root, &root);
        }
        gpu_host_fr_root(wl, lg);
        memcpy(&w, wl, 32);
        CHECK(fr_eq(&w, &root));
        naive_dft(want, x, lg, &root);
        memcpy(got, x, n * 32);
        GPU_OK(gpu_ntt(dev, got, lg, GPU_NTT_FWD, DG));
        for (size_t i = 0; i < n; i++) {
            CHECK_MSG(fr_eq(&got[i], &want[i]), "lg %u element %zu", lg, i);
        }
    }
}

/* Pass layouts (gpu_debug_ntt_layout: k0, k1, tile_lg): the default, then small ones that reach
 * multi-pass transforms with strided groups at small sizes. */
static const unsigned LAYOUTS[][4] = {{0, 0, 0, 0}, {3, 3, 3, 1}, {4, 3, 6, 2},
                                      {6, 4, 8, 1}, {5, 5, 5, 0}, {0, 0, 0, 1}};

/* Every kind of transform of 2^lg random values on dev against poly/ (layout l for messages). */
static void check_ntt_kinds(gpu_dev *dev, unsigned lg, const unsigned *l)
{
    size_t n = (size_t)1 << lg;
    fr_t *x = xmalloc(n * 32), *want = xmalloc(n * 32), *got = xmalloc(n * 32);
    void *tw = xmalloc(ntt_domain_tw_sizeof(lg));
    ntt_domain_t d;

    CHECK(ntt_domain_init(&d, lg, tw, NULL));
    for (int kind = GPU_NTT_FWD; kind <= GPU_NTT_COSET_INV; kind++) {
        for (size_t i = 0; i < n; i++) {
            rand_fr(&x[i]);
        }
        memcpy(want, x, n * 32);
        cpu_ntt(&d, want, (gpu_ntt_kind)kind);
        memcpy(got, x, n * 32);
        GPU_OK(gpu_ntt(dev, got, lg, (gpu_ntt_kind)kind, DG));
        for (size_t i = 0; i < n; i++) {
            CHECK_MSG(memcmp(&got[i], &want[i], 32) == 0,
                      "layout %u/%u/%u/%u lg %u kind %d element %zu", l[0], l[1], l[2], l[3], lg,
                      kind, i);
        }
    }
    cz_free_aligned(x);
    cz_free_aligned(want);
    cz_free_aligned(got);
    cz_free_aligned(tw);
}

TEST(gpu_ntt_all_kinds_vs_poly)
{
    gpu_dev *dev = gtu_need_dev();

    for (size_t li = 0; li < ARRAY_LEN(LAYOUTS); li++) {
        const unsigned *l = LAYOUTS[li];
        GPU_OK(gpu_debug_ntt_layout(dev, l[0], l[1], l[2], l[3], DG));
        for (unsigned lg = 0; lg <= T_NTT_LG; lg++) {
            if (li > 0 && lg > T_NTT_LG - 2) {
                continue; /* small layouts: the largest sizes take too long for what they add */
            }
            check_ntt_kinds(dev, lg, l);
        }
    }
    GPU_OK(gpu_debug_ntt_layout(dev, 0, 0, 0, 0, DG));
    CHECK_ERR(gpu_debug_ntt_layout(dev, 3, 4, 8, 0, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_debug_ntt_layout(dev, 0, 0, 0, 3, NULL), CUZK_E_INVAL);
}

TEST(gpu_ntt_buf_roundtrip)
{
    gpu_dev *dev = gtu_need_dev();
    const unsigned lg = T_NTT_LG > 14 ? 14 : T_NTT_LG;
    const size_t n = (size_t)1 << lg, off = 3 * 32;
    fr_t *x = xmalloc(n * 32), *y = xmalloc(n * 32), *z = xmalloc(n * 32);
    gpu_buf *buf = NULL;

    for (size_t i = 0; i < n; i++) {
        rand_fr(&x[i]);
    }
    GPU_OK(gpu_buf_new(&buf, dev, off + n * 32, DG));
    /* without scratch left by earlier tests, which would hide a missing allocation */
    GPU_OK(gpu_dev_trim(dev, DG));
    GPU_OK(gpu_buf_upload(buf, off, x, n * 32, DG));
    GPU_OK(gpu_ntt_buf(dev, buf, off, lg, GPU_NTT_COSET_FWD, DG));
    GPU_OK(gpu_buf_download(y, buf, off, n * 32, DG));
    memcpy(z, x, n * 32);
    GPU_OK(gpu_ntt(dev, z, lg, GPU_NTT_COSET_FWD, DG));
    CHECK_MEM_EQ(y, z, n * 32);
    GPU_OK(gpu_ntt_buf(dev, buf, off, lg, GPU_NTT_COSET_INV, DG));
    GPU_OK(gpu_ntt_buf(dev, buf, off, lg, GPU_NTT_FWD, DG));
    GPU_OK(gpu_ntt_buf(dev, buf, off, lg, GPU_NTT_INV, DG));
    GPU_OK(gpu_buf_download(y, buf, off, n * 32, DG));
    CHECK_MEM_EQ(y, x, n * 32);
    CHECK_ERR(gpu_ntt_buf(dev, buf, off + 32, lg, GPU_NTT_FWD, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_ntt_buf(dev, buf, 16, 2, GPU_NTT_FWD, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_ntt(dev, x, GPU_NTT_MAX_LG + 1, GPU_NTT_FWD, NULL), CUZK_E_INVAL);
    gpu_buf_free(buf);
    cz_free_aligned(x);
    cz_free_aligned(y);
    cz_free_aligned(z);
}

/* ---- quotient ---- */

static void check_quotient(gpu_dev *dev, unsigned lg, size_t m, bool satisfying)
{
    size_t n = (size_t)1 << lg;
    fr_t *a = xmalloc(n * 32), *b = xmalloc(n * 32), *c = xmalloc(n * 32);
    fr_t *h = xmalloc(n * 32), *ha = xmalloc(n * 32), *hb = xmalloc(n * 32), *hc = xmalloc(n * 32);
    void *tw = xmalloc(ntt_domain_tw_sizeof(lg));
    ntt_domain_t d;
    bool top_cpu, top_gpu = false;
    gpu_buf *ba = NULL, *bb = NULL, *bc = NULL;

    for (size_t i = 0; i < m; i++) {
        rand_fr(&a[i]);
        rand_fr(&b[i]);
        if (satisfying) {
            fr_mul(&c[i], &a[i], &b[i]);
        } else {
            rand_fr(&c[i]);
        }
    }
    /* the GPU reads only m values; poison the rest of its input copies */
    memcpy(ha, a, m * 32);
    memcpy(hb, b, m * 32);
    memcpy(hc, c, m * 32);
    memset(ha + m, 0x5a, (n - m) * 32);
    memset(hb + m, 0x5a, (n - m) * 32);
    memset(hc + m, 0x5a, (n - m) * 32);
    GPU_OK(gpu_quotient_h(dev, h, &top_gpu, ha, hb, hc, m, lg, DG));
    CHECK(ntt_domain_init(&d, lg, tw, NULL));
    top_cpu = poly_quotient_h(&d, a, b, c, m, NULL);
    CHECK_MSG(top_cpu == top_gpu, "lg %u m %zu: top coefficient zero: cpu %d gpu %d", lg, m,
              top_cpu, top_gpu);
    if (satisfying) {
        CHECK(top_cpu);
    }
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(memcmp(&h[i], &a[i], 32) == 0, "lg %u m %zu coefficient %zu", lg, m, i);
    }
    /* the device-buffer variant on the same inputs */
    GPU_OK(gpu_buf_new(&ba, dev, n * 32, DG));
    GPU_OK(gpu_buf_new(&bb, dev, n * 32, DG));
    GPU_OK(gpu_buf_new(&bc, dev, n * 32, DG));
    GPU_OK(gpu_buf_upload(ba, 0, ha, n * 32, DG));
    GPU_OK(gpu_buf_upload(bb, 0, hb, n * 32, DG));
    GPU_OK(gpu_buf_upload(bc, 0, hc, n * 32, DG));
    GPU_OK(gpu_quotient_h_buf(dev, &top_gpu, ba, bb, bc, m, lg, DG));
    GPU_OK(gpu_buf_download(h, ba, 0, n * 32, DG));
    CHECK(top_gpu == top_cpu);
    CHECK_MEM_EQ(h, a, n * 32);
    /* the two-buffer variant: c goes into b's buffer once a holds A B */
    if (lg >= 3) {
        top_gpu = !top_cpu;
        GPU_OK(gpu_buf_upload(ba, 0, ha, n * 32, DG));
        GPU_OK(gpu_buf_upload(bb, 0, hb, n * 32, DG));
        GPU_OK(gpu_quotient_ab_buf(dev, ba, bb, m, lg, DG));
        GPU_OK(gpu_buf_upload(bb, 0, hc, n * 32, DG));
        GPU_OK(gpu_quotient_finish_buf(dev, &top_gpu, ba, bb, m, lg, DG));
        GPU_OK(gpu_buf_download(h, ba, 0, n * 32, DG));
        CHECK(top_gpu == top_cpu);
        CHECK_MSG(memcmp(h, a, n * 32) == 0, "lean quotient lg %u m %zu", lg, m);
    } else {
        CHECK_ERR(gpu_quotient_ab_buf(dev, ba, bb, m, lg, NULL), CUZK_E_INVAL);
    }
    gpu_buf_free(ba);
    gpu_buf_free(bb);
    gpu_buf_free(bc);
    cz_free_aligned(a);
    cz_free_aligned(b);
    cz_free_aligned(c);
    cz_free_aligned(h);
    cz_free_aligned(ha);
    cz_free_aligned(hb);
    cz_free_aligned(hc);
    cz_free_aligned(tw);
}

TEST(gpu_quotient_vs_poly)
{
    gpu_dev *dev = gtu_need_dev();
    static const unsigned lgs[] = {0, 1, 2, 3, 4, 7, 8, 9, 11, 12, 13, 16, 18, 20};
    for (size_t i = 0; i < ARRAY_LEN(lgs) && lgs[i] <= T_QUOT_LG; i++) {
        unsigned lg = lgs[i];
        size_t n = (size_t)1 << lg;
        size_t m = n > 4 ? n - 1 - (size_t)cz_prng_below(test_prng(), n / 4) : n;
        check_quotient(dev, lg, m, true);
        check_quotient(dev, lg, n, (i & 1) != 0);
        if (lg >= 3) {
            check_quotient(dev, lg, n / 2 + 1, false);
        }
    }
    /* multi-pass layouts */
    for (size_t li = 1; li < ARRAY_LEN(LAYOUTS); li++) {
        const unsigned *l = LAYOUTS[li];
        GPU_OK(gpu_debug_ntt_layout(dev, l[0], l[1], l[2], l[3], DG));
        check_quotient(dev, T_QUOT_LG - 1, ((size_t)1 << (T_QUOT_LG - 1)) - 3, true);
        check_quotient(dev, 7, 100, false);
    }
    GPU_OK(gpu_debug_ntt_layout(dev, 0, 0, 0, 0, DG));
}

/* Split twiddles (two small tables and a product per twiddle, the layout of capped devices):
 * every transform kind and both quotients against poly/, in the default and multi-pass
 * layouts; the automatic choice follows the cap; a table of either layout serves smaller
 * transforms after larger ones. */
TEST(gpu_split_twiddles)
{
    gpu_dev *dev = gtu_need_dev();
    static const unsigned lgs[] = {8, 9, 11, 12, 13, 16, 18, 20};

    GPU_OK(gpu_debug_ntt_twiddles(dev, 2, DG));
    for (size_t i = 0; i < ARRAY_LEN(lgs) && lgs[i] <= T_QUOT_LG; i++) {
        check_ntt_kinds(dev, lgs[i], LAYOUTS[0]);
        check_quotient(dev, lgs[i], ((size_t)1 << lgs[i]) - 5, true);
    }
    check_ntt_kinds(dev, 9, LAYOUTS[0]); /* smaller than the table */
    for (size_t li = 1; li < ARRAY_LEN(LAYOUTS); li++) {
        const unsigned *l = LAYOUTS[li];
        GPU_OK(gpu_debug_ntt_layout(dev, l[0], l[1], l[2], l[3], DG));
        check_ntt_kinds(dev, 10, l);
        check_quotient(dev, 11, 2000, li % 2 == 0);
    }
    GPU_OK(gpu_debug_ntt_layout(dev, 0, 0, 0, 0, DG));
    CHECK_EQ_U64(gpu_ntt_twiddle_bytes(dev, 20), (size_t)32 * 11 << 10);
    GPU_OK(gpu_debug_ntt_twiddles(dev, 1, DG));
    CHECK_EQ_U64(gpu_ntt_twiddle_bytes(dev, 20), (size_t)32 << 20);
    GPU_OK(gpu_debug_ntt_twiddles(dev, 0, DG));
    gpu_dev_set_mem_cap(dev, (size_t)32 << 20); /* a whole 2^20 table is more than an eighth */
    CHECK_EQ_U64(gpu_ntt_twiddle_bytes(dev, 20), (size_t)32 * 11 << 10);
    CHECK_EQ_U64(gpu_ntt_twiddle_bytes(dev, 16), (size_t)32 << 16);
    gpu_dev_set_mem_cap(dev, 0);
    CHECK_EQ_U64(gpu_ntt_twiddle_bytes(dev, 20), (size_t)32 << 20);
    CHECK_ERR(gpu_debug_ntt_twiddles(dev, 3, NULL), CUZK_E_INVAL);
}

/* ---- MSM ---- */

enum scalar_kind { SC_RANDOM, SC_01, SC_ONES, SC_ZEROS, SC_EQUAL, SC_EDGE, SC_SMALL, SC_KINDS };
static const char *const SC_NAMES[] = {"random", "0/1-heavy", "ones", "zeros",
                                       "equal",  "edge",      "small"};

static void fill_scalars(fr_repr_t *s, size_t n, int kind)
{
    static const uint64_t r[4] = FR_MODULUS_INIT;
    fr_repr_t same;
    rand_scalar(&same);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cz_prng_u64(test_prng());
        switch (kind) {
        case SC_RANDOM:
            rand_scalar(&s[i]);
            break;
        case SC_01:
            if (u % 10 < 9) {
                s[i] = repr_u64((u >> 8) & 1);
            } else {
                rand_scalar(&s[i]);
            }
            break;
        case SC_ONES:
            s[i] = repr_u64(1);
            break;
        case SC_ZEROS:
            s[i] = repr_u64(0);
            break;
        case SC_EQUAL:
            s[i] = same;
            break;
        case SC_EDGE:
            switch (u % 8) {
            case 0: /* r - 1 */
                s[i] = (fr_repr_t){{r[0] - 1, r[1], r[2], r[3]}};
                break;
            case 1: /* 2^254 */
                s[i] = (fr_repr_t){{0, 0, 0, (uint64_t)1 << 62}};
                break;
            case 2: /* all ones below 2^254 */
                s[i] = (fr_repr_t){{~0ULL, ~0ULL, ~0ULL, ((uint64_t)1 << 62) - 1}};
                break;
            case 3: /* 2^k - 1 and 2^k around window edges */
                s[i] = repr_u64(((uint64_t)1 << (u >> 58)) - (u >> 63));
                break;
            case 4:
                s[i] = repr_u64(2);
                break;
            case 5:
                s[i] = (fr_repr_t){{0, (uint64_t)1 << (u >> 58), 0, 0}};
                break;
            default:
                rand_scalar(&s[i]);
                break;
            }
            break;
        default: /* small: up to 16 bits */
            s[i] = repr_u64(u & 0xffff);
            break;
        }
    }
}

static void g1_cpu_msm(g1_t *out, const g1_aff_t *p, const fr_repr_t *s, size_t n)
{
    void *scratch = xmalloc(msm_g1_scratch_sizeof(n));
    msm_g1(out, p, s, n, scratch, n > 4096 ? test_pool() : NULL);
    cz_free_aligned(scratch);
}

static void g2_cpu_msm(g2_t *out, const g2_aff_t *p, const fr_repr_t *s, size_t n)
{
    void *scratch = xmalloc(msm_g2_scratch_sizeof(n));
    msm_g2(out, p, s, n, scratch, n > 1024 ? test_pool() : NULL);
    cz_free_aligned(scratch);
}

static void g1_naive(g1_t *out, const g1_aff_t *p, const fr_repr_t *s, size_t n)
{
    g1_t acc, t, q;
    g1_set_identity(&acc);
    for (size_t i = 0; i < n; i++) {
        g1_from_aff(&q, &p[i]);
        g1_mul(&t, &q, &s[i]);
        g1_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* [sum s_i log_i] G: the MSM's value from the bases' discrete logs. */
static void g1_from_logs(g1_t *out, const fr_t *dlog, const fr_repr_t *s, size_t n)
{
    fr_t sum = FR_ZERO, t;
    fr_repr_t k;
    g1_t gen;
    for (size_t i = 0; i < n; i++) {
        CHECK(fr_from_repr(&t, &s[i]));
        fr_mul(&t, &t, &dlog[i]);
        fr_add(&sum, &sum, &t);
    }
    fr_to_repr(&k, &sum);
    g1_from_aff(&gen, &G1_GEN);
    g1_mul(out, &gen, &k);
}

/* gpu_msm_scratch_bytes is what an MSM asks: on a trimmed device capped at what it holds plus
 * that figure the MSM runs (and is right); one byte less and it fails as out of memory. */
TEST(gpu_msm_scratch_bytes_is_what_the_msm_asks)
{
    gpu_dev *dev = gtu_need_dev();
    enum { N = 3000 };
    g1_aff_t *p = malloc(N * sizeof(*p));
    g2_aff_t *q = malloc(N * sizeof(*q));
    fr_repr_t *s = malloc(N * sizeof(*s));
    static const size_t ns[] = {1, 40, N};

    CHECK(p && q && s);
    g1_random_points(p, NULL, N);
    g2_random_points(q, NULL, N);
    fill_scalars(s, N, SC_EDGE);
    for (size_t i = 0; i < ARRAY_LEN(ns); i++) {
        for (int group = 1; group <= 2; group++) {
            gpu_msm_bases *b = NULL;
            gpu_dev_info info;
            g1_t got1, want1;
            g2_t got2;
            size_t need = gpu_msm_scratch_bytes(ns[i], group, true);
            GPU_OK(group == 1 ? gpu_msm_bases_new_g1(&b, dev, ns[i], DG)
                              : gpu_msm_bases_new_g2(&b, dev, ns[i], DG));
            GPU_OK(group == 1 ? gpu_msm_bases_upload_g1(b, 0, p, ns[i], DG)
                              : gpu_msm_bases_upload_g2(b, 0, q, ns[i], DG));
            GPU_OK(gpu_dev_trim(dev, DG));
            GPU_OK(gpu_dev_get_info(dev, &info, DG));
            CHECK(need > 0);
            gpu_dev_set_mem_cap(dev, info.used_mem + need - 1);
            cuzk_err err = group == 1 ? gpu_msm_g1(dev, &got1, b, 0, s, ns[i], NULL, NULL)
                                      : gpu_msm_g2(dev, &got2, b, 0, s, ns[i], NULL, NULL);
            CHECK_MSG(err == CUZK_E_NOMEM, "n %zu G%d: one byte short ran (%d)", ns[i], group,
                      (int)err);
            gpu_dev_set_mem_cap(dev, info.used_mem + need);
            if (group == 1) {
                GPU_OK(gpu_msm_g1(dev, &got1, b, 0, s, ns[i], NULL, DG));
                g1_naive(&want1, p, s, ns[i]);
                CHECK_MSG(g1_eq(&got1, &want1), "n %zu", ns[i]);
            } else {
                GPU_OK(gpu_msm_g2(dev, &got2, b, 0, s, ns[i], NULL, DG));
            }
            gpu_dev_set_mem_cap(dev, 0);
            gpu_msm_bases_free(b);
        }
    }
    free(p);
    free(q);
    free(s);
}

TEST(gpu_msm_g1_small_n)
{
    gpu_dev *dev = gtu_need_dev();
    g1_aff_t p[40];
    fr_repr_t s[40];
    gpu_msm_bases *b = NULL;
    g1_t got, want;

    g1_random_points(p, NULL, 40);
    g1_aff_set_identity(&p[7]);
    GPU_OK(gpu_msm_bases_new_g1(&b, dev, 40, DG));
    GPU_OK(gpu_msm_bases_upload_g1(b, 0, p, 40, DG));
    CHECK_EQ_U64(gpu_msm_bases_len(b), 40);
    for (size_t n = 0; n <= 12; n++) {
        for (int kind = 0; kind < SC_KINDS; kind++) {
            fill_scalars(s, n, kind);
            g1_naive(&want, p + 3, s, n);
            GPU_OK(gpu_msm_g1(dev, &got, b, 3, s, n, NULL, DG));
            CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s", n, SC_NAMES[kind]);
        }
    }
    /* every window size on a few terms, with and without the 0/1 split */
    fill_scalars(s, 40, SC_EDGE);
    s[0] = repr_u64(1);
    s[1] = repr_u64(0);
    g1_naive(&want, p, s, 40);
    for (unsigned c = 1; c <= 16; c++) {
        gpu_msm_opts o = {c, (c & 1) != 0};
        GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, 40, &o, DG));
        CHECK_MSG(g1_eq(&got, &want), "window %u", c);
    }
    /* window groups: c <= 3 gives more windows than one group holds (the last group partial);
     * c = 20 has more buckets than one group holds (13 windows in groups of 2, 32-bucket
     * reduction segments) */
    {
        gpu_msm_opts o = {20, false};
        GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, 40, &o, DG));
        CHECK_MSG(g1_eq(&got, &want), "window %u", o.window_bits);
    }
    /* argument errors */
    CHECK_ERR(gpu_msm_g1(dev, &got, b, 30, s, 11, NULL, NULL), CUZK_E_INVAL);
    gpu_msm_opts bad = {GPU_MSM_MAX_WINDOW_BITS + 1, false};
    CHECK_ERR(gpu_msm_g1(dev, &got, b, 0, s, 4, &bad, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_msm_g2(dev, NULL, b, 0, s, 4, NULL, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_msm_bases_upload_g1(b, 39, p, 2, NULL), CUZK_E_INVAL);
    gpu_msm_bases_free(b);
}

/* n random bases in p, the identity every 97th, uploaded to dev. */
static gpu_msm_bases *g1_bases_with_identities(gpu_dev *dev, g1_aff_t *p, size_t n)
{
    gpu_msm_bases *b = NULL;

    g1_random_points(p, NULL, n);
    for (size_t i = 0; i < n; i += 97) {
        g1_aff_set_identity(&p[i]);
    }
    GPU_OK(gpu_msm_bases_new_g1(&b, dev, n, DG));
    GPU_OK(gpu_msm_bases_upload_g1(b, 0, p, n, DG));
    return b;
}

TEST(gpu_msm_g1_kinds_and_windows)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t sizes[] = {65, 700, MSM_MID_N};
    const size_t nmax = MSM_MID_N;
    g1_aff_t *p = xmalloc(nmax * sizeof(g1_aff_t));
    fr_repr_t *s = xmalloc(nmax * sizeof(fr_repr_t));
    gpu_msm_bases *b = NULL;
    g1_t got, want;

    b = g1_bases_with_identities(dev, p, nmax);
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        for (int kind = 0; kind < SC_KINDS; kind++) {
            fill_scalars(s, n, kind);
            g1_cpu_msm(&want, p, s, n);
            GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
            CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s", n, SC_NAMES[kind]);
            gpu_msm_opts o = {kind == SC_SMALL ? 3 : 11, kind == SC_01};
            GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, &o, DG));
            CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s window %u", n, SC_NAMES[kind],
                      o.window_bits);
            /* long accumulation chains: across many buckets, few records */
            for (unsigned chunk = GPU_MSM_CHUNK_MIN; n > 700 && chunk <= GPU_MSM_CHUNK_MAX;
                 chunk *= 4) {
                GPU_OK(gpu_debug_msm_chunk(dev, chunk, DG));
                GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
                CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s chunk %u", n, SC_NAMES[kind],
                          chunk);
            }
            GPU_OK(gpu_debug_msm_chunk(dev, 0, DG));
            /* window groups sorted on one stream while the last is accumulated on the other
             * (the largest MSMs): groups of one window and of two (odd and even counts) */
            for (unsigned grp = 1; grp <= 2; grp++) {
                GPU_OK(gpu_debug_msm_group(dev, grp, DG));
                GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
                CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s groups of %u", n, SC_NAMES[kind],
                          grp);
            }
            GPU_OK(gpu_debug_msm_group(dev, 0, DG));
        }
    }
    CHECK_ERR(gpu_debug_msm_group(dev, GPU_MSM_GROUP_MAX + 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_debug_msm_chunk(dev, GPU_MSM_CHUNK_MIN - 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_debug_msm_chunk(dev, GPU_MSM_CHUNK_MAX + 1, NULL), CUZK_E_INVAL);
    gpu_msm_bases_free(b);
    cz_free_aligned(p);
    cz_free_aligned(s);
}

/* Places a set of n scalars (canonical s) on the device for gpu_msm_*_sets, in one of three
 * forms: 0 dense canonical, 1 dense Montgomery, 2 the classes (unit: Montgomery one) of a
 * longer Montgomery vector, the set being its slice from position 67 (bit 3 of a word, others
 * before it). */
static void set_upload(gpu_dev *dev, gpu_buf **buf, gpu_msm_set *st, const fr_repr_t *s, size_t n,
                       int form)
{
    const size_t pre = form == 2 ? 67 : 0;
    fr_t *v = xmalloc((pre + n) * 32);

    for (size_t i = 0; i < pre; i++) {
        rand_fr(&v[i]);
    }
    for (size_t i = 0; i < n; i++) {
        if (form == 0) {
            memcpy(&v[i], &s[i], 32);
        } else {
            CHECK(fr_from_repr(&v[pre + i], &s[i]));
        }
    }
    memset(st, 0, sizeof(*st));
    if (form < 2) {
        GPU_OK(gpu_buf_new(buf, dev, n * 32 + 64, DG));
        GPU_OK(gpu_buf_upload(*buf, 32, v, n * 32, DG));
        *st = (gpu_msm_set){.off = 32, .mont = form == 1};
    } else {
        const gpu_fr_select all = {NULL, 0, 0};
        const fr_t unit = FR_ONE;
        gpu_fr_classes c;
        size_t w0, nw, base, n_oth;
        CHECK_OK(gpu_fr_classes_build(&c, 1, v, pre + n, NULL, 0, &all, &unit, 1.0, NULL, NULL));
        gpu_fr_classes_slice(&c, pre, n, &w0, &nw, &base, &n_oth);
        const size_t oth_off = (8 + nw * 8 + 31) / 32 * 32;
        GPU_OK(gpu_buf_new(buf, dev, oth_off + n_oth * 32 + 32, DG));
        GPU_OK(gpu_buf_upload(*buf, 8, c.map + w0, nw * 8, DG));
        if (n_oth) {
            GPU_OK(gpu_buf_upload(*buf, oth_off, c.oth + base, n_oth * 32, DG));
        }
        *st = (gpu_msm_set){.off = 8,
                            .mont = true,
                            .nw = nw,
                            .oth_off = oth_off,
                            .n_oth = n_oth,
                            .bit0 = (unsigned)(pre % 64),
                            .base = base};
        gpu_fr_classes_clear(&c);
    }
    st->buf = *buf;
    cz_free_aligned(v);
}

/* gpu_msm_g1_sets / _g2_sets: every set's sum equals the CPU MSM of its scalars, for 1, 3 and 16
 * sets of every scalar kind in each of the three forms, window groups that straddle the sets'
 * windows, sets without a tail; malformed sets are refused; the scratch figure is exact. */
TEST(gpu_msm_sets)
{
    gpu_dev *dev = gtu_need_dev();
    enum { S = GPU_MSM_MAX_SETS };
    const size_t N = MSM_MID_N, n = 700, first = 37, n2 = 150;
    const unsigned counts[] = {1, 3, S}, groups[] = {0, 1, 5};
    g1_aff_t *p = xmalloc(N * sizeof(g1_aff_t));
    g2_aff_t *q = xmalloc(n2 * sizeof(g2_aff_t));
    fr_repr_t *s = xmalloc(S * n * sizeof(fr_repr_t));
    gpu_buf *buf[S] = {0};
    gpu_msm_set st[S];
    g1_t got[S], want;
    g2_t got2[3], want2;
    gpu_msm_bases *b = g1_bases_with_identities(dev, p, N), *b2 = NULL;

    for (unsigned k = 0; k < S; k++) {
        fill_scalars(s + k * n, n, (int)(k % SC_KINDS));
        set_upload(dev, &buf[k], &st[k], s + k * n, n, (int)(k % 3));
    }
    for (size_t gi = 0; gi < ARRAY_LEN(groups); gi++) {
        GPU_OK(gpu_debug_msm_group(dev, groups[gi], DG));
        for (size_t t = 0; t < ARRAY_LEN(counts); t++) {
            memset(got, 0, sizeof(got));
            GPU_OK(gpu_msm_g1_sets(dev, got, b, first, n, st, counts[t], DG));
            for (unsigned k = 0; k < counts[t]; k++) {
                g1_cpu_msm(&want, p + first, s + k * n, n);
                CHECK_MSG(g1_eq(&got[k], &want), "%u sets, groups of %u: set %u (%s, form %u)",
                          counts[t], groups[gi], k, SC_NAMES[k % SC_KINDS], k % 3);
            }
        }
    }
    GPU_OK(gpu_debug_msm_group(dev, 0, DG));
    /* no tail at all: the ones (classes) and the zeros (dense) */
    GPU_OK(gpu_msm_g1_sets(dev, got, b, first, n, st + 2, 2, DG));
    g1_cpu_msm(&want, p + first, s + 2 * n, n);
    CHECK(g1_eq(&got[0], &want) && g1_is_identity(&got[1]));
    /* the scratch figure: one byte short fails, the figure runs */
    {
        const size_t need = gpu_msm_sets_scratch_bytes(n, 1, st, S);
        gpu_dev_info info;
        CHECK(need > gpu_msm_sets_scratch_bytes(n, 1, st, 1));
        GPU_OK(gpu_dev_trim(dev, DG));
        GPU_OK(gpu_dev_get_info(dev, &info, DG));
        gpu_dev_set_mem_cap(dev, info.used_mem + need - 1);
        CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, st, S, NULL), CUZK_E_NOMEM);
        gpu_dev_set_mem_cap(dev, info.used_mem + need);
        GPU_OK(gpu_msm_g1_sets(dev, got, b, first, n, st, S, DG));
        gpu_dev_set_mem_cap(dev, 0);
        g1_cpu_msm(&want, p + first, s + (S - 1) * n, n);
        CHECK(g1_eq(&got[S - 1], &want));
    }
    /* malformed sets */
    CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, st, 0, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, st, S + 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_msm_g1_sets(dev, got, b, N - n + 1, n, st, 1, NULL), CUZK_E_INVAL);
    {
        gpu_msm_set bad = st[2];
        bad.nw -= 3;
        CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, &bad, 1, NULL), CUZK_E_INVAL);
        bad = st[2];
        bad.n_oth = n + 1;
        CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, &bad, 1, NULL), CUZK_E_INVAL);
        bad = st[0];
        bad.off = 16;
        CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, &bad, 1, NULL), CUZK_E_INVAL);
        bad.off = 96; /* n values from 96 run past the buffer's end */
        CHECK_ERR(gpu_msm_g1_sets(dev, got, b, first, n, &bad, 1, NULL), CUZK_E_INVAL);
    }
    /* G2: three sets, one of each form */
    g2_random_points(q, NULL, n2);
    GPU_OK(gpu_msm_bases_new_g2(&b2, dev, n2, DG));
    GPU_OK(gpu_msm_bases_upload_g2(b2, 0, q, n2, DG));
    GPU_OK(gpu_msm_g2_sets(dev, got2, b2, 0, n2, st, 3, DG));
    for (unsigned k = 0; k < 3; k++) {
        g2_cpu_msm(&want2, q, s + k * n, n2);
        CHECK_MSG(g2_eq(&got2[k], &want2), "G2 set %u", k);
    }
    for (unsigned k = 0; k < S; k++) {
        gpu_buf_free(buf[k]);
    }
    gpu_msm_bases_free(b);
    gpu_msm_bases_free(b2);
    cz_free_aligned(p);
    cz_free_aligned(q);
    cz_free_aligned(s);
}

/* Bases that collide within a bucket: P, -P, P, the identity, ... (with equal or small scalars
 * the affine rounds meet doublings, cancellations and identities at every level). */
static void g1_colliding_points(g1_aff_t *p, size_t n)
{
    g1_random_points(p, NULL, 1);
    for (size_t i = 1; i < n; i++) {
        if (i % 4 == 1) {
            g1_aff_neg(&p[i], &p[0]);
        } else if (i % 4 == 3) {
            g1_aff_set_identity(&p[i]);
        } else {
            p[i] = p[0];
        }
    }
}

TEST(gpu_msm_affine_rounds)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = MSM_MID_N, nc = 700;
    const int kinds[] = {SC_RANDOM, SC_01, SC_EQUAL, SC_EDGE, SC_SMALL};
    const unsigned rounds[] = {1, 2, 3, GPU_MSM_AFF_ROUNDS_MAX};
    g1_aff_t *p = xmalloc(n * sizeof(g1_aff_t));
    g2_aff_t *q = xmalloc(n * sizeof(g2_aff_t));
    fr_repr_t *s = xmalloc(n * sizeof(fr_repr_t));
    gpu_msm_bases *b = NULL, *bc = NULL, *b2 = NULL;
    g1_t got, want;
    g2_t got2, want2;

    b = g1_bases_with_identities(dev, p, n);
    for (size_t ki = 0; ki < ARRAY_LEN(kinds); ki++) {
        fill_scalars(s, n, kinds[ki]);
        g1_cpu_msm(&want, p, s, n);
        for (size_t ri = 0; ri < ARRAY_LEN(rounds); ri++) {
            GPU_OK(gpu_debug_msm_aff_rounds(dev, rounds[ri], DG));
            GPU_OK(gpu_debug_msm_group(dev, ri == 1 ? 1 : 0, DG));
            GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
            CHECK_MSG(g1_eq(&got, &want), "scalars %s, %u rounds", SC_NAMES[kinds[ki]], rounds[ri]);
        }
    }
    GPU_OK(gpu_debug_msm_group(dev, 0, DG));
    /* doublings, cancellations, identities */
    g1_colliding_points(p, nc);
    GPU_OK(gpu_msm_bases_new_g1(&bc, dev, nc, DG));
    GPU_OK(gpu_msm_bases_upload_g1(bc, 0, p, nc, DG));
    const int ckinds[] = {SC_EQUAL, SC_SMALL};
    for (size_t ki = 0; ki < ARRAY_LEN(ckinds); ki++) {
        const int kind = ckinds[ki];
        fill_scalars(s, nc, kind);
        g1_cpu_msm(&want, p, s, nc);
        for (size_t ri = 0; ri < ARRAY_LEN(rounds); ri++) {
            GPU_OK(gpu_debug_msm_aff_rounds(dev, rounds[ri], DG));
            GPU_OK(gpu_msm_g1(dev, &got, bc, 0, s, nc, NULL, DG));
            CHECK_MSG(g1_eq(&got, &want), "colliding bases, scalars %s, %u rounds", SC_NAMES[kind],
                      rounds[ri]);
        }
    }
    /* G2: dense scalars, and colliding bases */
    g2_random_points(q, NULL, nc);
    GPU_OK(gpu_msm_bases_new_g2(&b2, dev, nc, DG));
    GPU_OK(gpu_msm_bases_upload_g2(b2, 0, q, nc, DG));
    fill_scalars(s, nc, SC_RANDOM);
    g2_cpu_msm(&want2, q, s, nc);
    GPU_OK(gpu_debug_msm_aff_rounds(dev, 2, DG));
    GPU_OK(gpu_msm_g2(dev, &got2, b2, 0, s, nc, NULL, DG));
    CHECK(g2_eq(&got2, &want2));
    for (size_t i = 1; i < nc; i++) {
        if (i % 3 == 1) {
            g2_aff_neg(&q[i], &q[0]);
        } else {
            q[i] = q[0];
        }
    }
    GPU_OK(gpu_msm_bases_upload_g2(b2, 0, q, nc, DG));
    fill_scalars(s, nc, SC_EQUAL);
    g2_cpu_msm(&want2, q, s, nc);
    GPU_OK(gpu_msm_g2(dev, &got2, b2, 0, s, nc, NULL, DG));
    CHECK(g2_eq(&got2, &want2));
    /* no rounds on G2, and the automatic setting on G1 */
    GPU_OK(gpu_debug_msm_aff_rounds(dev, 0, DG));
    GPU_OK(gpu_msm_g2(dev, &got2, b2, 0, s, nc, NULL, DG));
    CHECK(g2_eq(&got2, &want2));
    GPU_OK(gpu_debug_msm_aff_rounds(dev, GPU_MSM_AFF_ROUNDS_AUTO, DG));
    fill_scalars(s, nc, SC_SMALL);
    g1_cpu_msm(&want, p, s, nc);
    GPU_OK(gpu_msm_g1(dev, &got, bc, 0, s, nc, NULL, DG));
    CHECK(g1_eq(&got, &want));
    CHECK_ERR(gpu_debug_msm_aff_rounds(dev, GPU_MSM_AFF_ROUNDS_MAX + 1, NULL), CUZK_E_INVAL);
    gpu_msm_bases_free(b);
    gpu_msm_bases_free(bc);
    gpu_msm_bases_free(b2);
    cz_free_aligned(p);
    cz_free_aligned(q);
    cz_free_aligned(s);
}

TEST(gpu_msm_g1_big_known_logs)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n = MSM_BIG_N;
    g1_aff_t *p = xmalloc(n * sizeof(g1_aff_t));
    fr_t *dlog = xmalloc(n * sizeof(fr_t));
    fr_repr_t *s = xmalloc(n * sizeof(fr_repr_t));
    fr_t *mont = xmalloc(n * sizeof(fr_t));
    gpu_msm_bases *b = NULL;
    gpu_buf *sb = NULL;
    g1_t got, want;

    g1_random_points(p, dlog, n);
    GPU_OK(gpu_msm_bases_new_g1(&b, dev, n, DG));
    GPU_OK(gpu_msm_bases_upload_g1(b, 0, p, n, DG));
    GPU_OK(gpu_buf_new(&sb, dev, n * 32 + 64, DG));
    for (int kind = SC_RANDOM; kind <= SC_EQUAL; kind++) {
        fill_scalars(s, n, kind);
        g1_from_logs(&want, dlog, s, n);
        GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
        CHECK_MSG(g1_eq(&got, &want), "n %zu scalars %s", n, SC_NAMES[kind]);
        /* device scalars, canonical and Montgomery, at an offset */
        GPU_OK(gpu_buf_upload(sb, 64, s, n * 32, DG));
        GPU_OK(gpu_msm_g1_buf(dev, &got, b, 0, sb, 64, n, false, NULL, DG));
        CHECK_MSG(g1_eq(&got, &want), "device canonical scalars %s", SC_NAMES[kind]);
        for (size_t i = 0; i < n; i++) {
            CHECK(fr_from_repr(&mont[i], &s[i]));
        }
        GPU_OK(gpu_buf_upload(sb, 32, mont, n * 32, DG));
        GPU_OK(gpu_msm_g1_buf(dev, &got, b, 0, sb, 32, n, true, NULL, DG));
        CHECK_MSG(g1_eq(&got, &want), "device Montgomery scalars %s", SC_NAMES[kind]);
    }
    /* the CPU MSM agrees too on the dense case */
    fill_scalars(s, n, SC_RANDOM);
    g1_cpu_msm(&want, p, s, n);
    GPU_OK(gpu_msm_g1(dev, &got, b, 0, s, n, NULL, DG));
    CHECK(g1_eq(&got, &want));
    gpu_buf_free(sb);
    gpu_msm_bases_free(b);
    cz_free_aligned(p);
    cz_free_aligned(dlog);
    cz_free_aligned(s);
    cz_free_aligned(mont);
}

TEST(gpu_msm_g2)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t sizes[] = {1, 2, 3, 17, 100, MSM_G2_BIG_N};
    const size_t nmax = MSM_G2_BIG_N;
    g2_aff_t *p = xmalloc(nmax * sizeof(g2_aff_t));
    fr_repr_t *s = xmalloc(nmax * sizeof(fr_repr_t));
    fr_t *mont = xmalloc(nmax * sizeof(fr_t));
    gpu_msm_bases *b = NULL;
    gpu_buf *sb = NULL;
    g2_t got, want;

    g2_random_points(p, NULL, nmax);
    g2_aff_set_identity(&p[5]);
    GPU_OK(gpu_msm_bases_new_g2(&b, dev, nmax, DG));
    GPU_OK(gpu_msm_bases_upload_g2(b, 0, p, nmax, DG));
    GPU_OK(gpu_buf_new(&sb, dev, nmax * 32, DG));
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        for (int kind = 0; kind < SC_KINDS; kind++) {
            if (n == nmax && kind != SC_RANDOM && kind != SC_01 && kind != SC_EQUAL) {
                continue;
            }
            fill_scalars(s, n, kind);
            g2_cpu_msm(&want, p, s, n);
            GPU_OK(gpu_msm_g2(dev, &got, b, 0, s, n, NULL, DG));
            CHECK_MSG(g2_eq(&got, &want), "n %zu scalars %s", n, SC_NAMES[kind]);
        }
    }
    /* G2 through the group pipeline too (groups of one window) */
    fill_scalars(s, nmax, SC_RANDOM);
    g2_cpu_msm(&want, p, s, nmax);
    GPU_OK(gpu_debug_msm_group(dev, 1, DG));
    GPU_OK(gpu_msm_g2(dev, &got, b, 0, s, nmax, NULL, DG));
    GPU_OK(gpu_debug_msm_group(dev, 0, DG));
    CHECK(g2_eq(&got, &want));
    fill_scalars(s, 50, SC_EDGE);
    g2_cpu_msm(&want, p + 7, s, 50);
    for (unsigned c = 1; c <= 9; c += 2) {
        gpu_msm_opts o = {c, c == 5};
        GPU_OK(gpu_msm_g2(dev, &got, b, 7, s, 50, &o, DG));
        CHECK_MSG(g2_eq(&got, &want), "window %u", c);
    }
    for (size_t i = 0; i < 50; i++) {
        CHECK(fr_from_repr(&mont[i], &s[i]));
    }
    GPU_OK(gpu_buf_upload(sb, 0, mont, 50 * 32, DG));
    GPU_OK(gpu_msm_g2_buf(dev, &got, b, 7, sb, 0, 50, true, NULL, DG));
    CHECK(g2_eq(&got, &want));
    CHECK_ERR(gpu_msm_g1(dev, NULL, b, 0, s, 4, NULL, NULL), CUZK_E_INVAL);
    gpu_buf_free(sb);
    gpu_msm_bases_free(b);
    cz_free_aligned(p);
    cz_free_aligned(s);
    cz_free_aligned(mont);
}

TEST(gpu_msm_from_quotient)
{
    /* h stays on the device: quotient into a buffer, then the MSM over its n - 1 values */
    gpu_dev *dev = gtu_need_dev();
    const unsigned lg = T_QUOT_LG > 12 ? 12 : T_QUOT_LG;
    const size_t n = (size_t)1 << lg;
    fr_t *a = xmalloc(n * 32), *b = xmalloc(n * 32), *c = xmalloc(n * 32);
    fr_repr_t *h = xmalloc(n * 32);
    g1_aff_t *p = xmalloc(n * sizeof(g1_aff_t));
    void *tw = xmalloc(ntt_domain_tw_sizeof(lg));
    gpu_buf *ba = NULL, *bb = NULL, *bc = NULL;
    gpu_msm_bases *bases = NULL;
    ntt_domain_t d;
    bool top = false;
    g1_t got, want;

    for (size_t i = 0; i < n; i++) {
        rand_fr(&a[i]);
        rand_fr(&b[i]);
        fr_mul(&c[i], &a[i], &b[i]);
    }
    g1_random_points(p, NULL, n);
    GPU_OK(gpu_buf_new(&ba, dev, n * 32, DG));
    GPU_OK(gpu_buf_new(&bb, dev, n * 32, DG));
    GPU_OK(gpu_buf_new(&bc, dev, n * 32, DG));
    GPU_OK(gpu_buf_upload(ba, 0, a, n * 32, DG));
    GPU_OK(gpu_buf_upload(bb, 0, b, n * 32, DG));
    GPU_OK(gpu_buf_upload(bc, 0, c, n * 32, DG));
    GPU_OK(gpu_quotient_h_buf(dev, &top, ba, bb, bc, n, lg, DG));
    CHECK(top);
    GPU_OK(gpu_msm_bases_new_g1(&bases, dev, n, DG));
    GPU_OK(gpu_msm_bases_upload_g1(bases, 0, p, n, DG));
    GPU_OK(gpu_msm_g1_buf(dev, &got, bases, 0, ba, 0, n - 1, true, NULL, DG));
    CHECK(ntt_domain_init(&d, lg, tw, NULL));
    CHECK(poly_quotient_h(&d, a, b, c, n, NULL));
    poly_to_repr(h, a, n, NULL);
    g1_cpu_msm(&want, p, h, n - 1);
    CHECK(g1_eq(&got, &want));
    gpu_buf_free(ba);
    gpu_buf_free(bb);
    gpu_buf_free(bc);
    gpu_msm_bases_free(bases);
    cz_free_aligned(a);
    cz_free_aligned(b);
    cz_free_aligned(c);
    cz_free_aligned(h);
    cz_free_aligned(p);
    cz_free_aligned(tw);
}

/* ---- sparse constraint matrices (gpu_spmat, gpu_spmv_buf) ---- */

/* A CSR matrix in the recorder's raw format, with its dictionary. */
typedef struct spm {
    size_t rows, nnz;
    uint32_t *row_ptr, *col;
    uint16_t *coef;
} spm_t;

static void spm_free(spm_t *m)
{
    cz_free_aligned(m->row_ptr);
    cz_free_aligned(m->col);
    cz_free_aligned(m->coef);
}

/* dict[0] = 1, dict[1] = -1, then 0, 2 and random values. */
static fr_t *spm_dict(size_t len)
{
    fr_t *d = xmalloc(len * sizeof(fr_t));
    d[0] = FR_ONE;
    fr_neg(&d[1], &FR_ONE);
    for (size_t i = 2; i < len; i++) {
        if (i == 2) {
            d[i] = FR_ZERO;
        } else if (i == 3) {
            fr_add(&d[i], &FR_ONE, &FR_ONE);
        } else {
            rand_fr(&d[i]);
        }
    }
    return d;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A random matrix over z_len columns whose row lengths are lens[r] (terms sorted by column,
 * coefficients: 40% +1, 30% -1, 30% any entry of a dictionary of dict_len). */
static void spm_random(spm_t *m, const uint32_t *lens, size_t rows, size_t z_len, size_t dict_len)
{
    m->rows = rows;
    m->nnz = 0;
    for (size_t r = 0; r < rows; r++) {
        m->nnz += lens[r];
    }
    m->row_ptr = xmalloc((rows + 1) * sizeof(uint32_t));
    m->col = xmalloc(m->nnz * sizeof(uint32_t));
    m->coef = xmalloc(m->nnz * sizeof(uint16_t));
    m->row_ptr[0] = 0;
    for (size_t r = 0; r < rows; r++) {
        const uint32_t beg = m->row_ptr[r];
        m->row_ptr[r + 1] = beg + lens[r];
        for (uint32_t j = beg; j < m->row_ptr[r + 1]; j++) {
            const uint64_t k = cz_prng_below(test_prng(), 10);
            m->col[j] = (uint32_t)cz_prng_below(test_prng(), z_len);
            m->coef[j] = k < 4 ? 0 : k < 7 ? 1 : (uint16_t)cz_prng_below(test_prng(), dict_len);
        }
        qsort(m->col + beg, lens[r], sizeof(uint32_t), cmp_u32);
    }
}

/* Row lengths: mostly 1 to 4, some empty, some up to GPU_SPMAT_SHORT_MAX and just above it,
 * a few long (up to 600 terms). */
static void spm_lens(uint32_t *lens, size_t rows)
{
    for (size_t r = 0; r < rows; r++) {
        const uint64_t k = cz_prng_below(test_prng(), 1000);
        if (k < 50) {
            lens[r] = 0;
        } else if (k < 900) {
            lens[r] = 1 + (uint32_t)cz_prng_below(test_prng(), 4);
        } else if (k < 970) {
            lens[r] = 5 + (uint32_t)cz_prng_below(test_prng(), GPU_SPMAT_SHORT_MAX - 4);
        } else if (k < 995) {
            lens[r] = GPU_SPMAT_SHORT_MAX + 1 + (uint32_t)cz_prng_below(test_prng(), 48);
        } else {
            lens[r] = 64 + (uint32_t)cz_prng_below(test_prng(), 537);
        }
    }
}

/* The straightforward sum: out[r] = sum_j dict[coef_j] * z[col_j], all through fr_mul. */
static void spm_cpu(fr_t *out, const spm_t *m, const fr_t *dict, const fr_t *z)
{
    for (size_t r = 0; r < m->rows; r++) {
        fr_t acc = FR_ZERO, t;
        for (uint32_t j = m->row_ptr[r]; j < m->row_ptr[r + 1]; j++) {
            fr_mul(&t, &dict[m->coef[j]], &z[m->col[j]]);
            fr_add(&acc, &acc, &t);
        }
        out[r] = acc;
    }
}

/* Uploads m and z (at z_off), evaluates into out_off and compares with spm_cpu, bit for bit. */
static void spm_check(gpu_dev *dev, const spm_t *m, const fr_t *dict, size_t dict_len,
                      const fr_t *z, size_t z_len, size_t z_off, size_t out_off)
{
    gpu_spmat *dm = NULL;
    gpu_buf *bz = NULL, *bo = NULL;
    fr_t *want = xmalloc(m->rows * sizeof(fr_t)), *got = xmalloc(m->rows * sizeof(fr_t));

    GPU_OK(gpu_spmat_new(&dm, dev, m->rows, m->nnz, m->row_ptr, m->col, m->coef,
                         (const struct fr *)dict, dict_len, DG));
    CHECK_EQ_U64(gpu_spmat_rows(dm), m->rows);
    CHECK(gpu_spmat_bytes(dm) >= (m->rows + 1) * 4 + m->nnz * 6 + dict_len * 32);
    GPU_OK(gpu_buf_new(&bz, dev, z_off + z_len * 32, DG));
    GPU_OK(gpu_buf_new(&bo, dev, out_off + m->rows * 32 + 64, DG));
    GPU_OK(gpu_buf_upload(bz, z_off, z, z_len * 32, DG));
    GPU_OK(gpu_spmv_buf(dev, bo, out_off, dm, bz, z_off, z_len, DG));
    GPU_OK(gpu_buf_download(got, bo, out_off, m->rows * 32, DG));
    spm_cpu(want, m, dict, z);
    for (size_t r = 0; r < m->rows; r++) {
        CHECK_MSG(fr_eq(&got[r], &want[r]), "row %zu of %zu (%u terms)", r, m->rows,
                  m->row_ptr[r + 1] - m->row_ptr[r]);
    }
    gpu_spmat_free(dm);
    gpu_buf_free(bz);
    gpu_buf_free(bo);
    cz_free_aligned(want);
    cz_free_aligned(got);
}

static fr_t *spm_z(size_t z_len)
{
    fr_t *z = xmalloc(z_len * sizeof(fr_t));
    z[0] = FR_ONE; /* ONE first, as in [inputs | aux] */
    for (size_t i = 1; i < z_len; i++) {
        rand_fr(&z[i]);
    }
    return z;
}

TEST(gpu_spmv_random)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t rows = gtu_small_sizes() ? 1500 : 300000;
    const size_t z_lens[] = {rows / 2 + 1, 2 * rows + 7};
    const size_t dict_lens[] = {2, 300, GPU_SPMAT_MAX_DICT};
    uint32_t *lens = xmalloc(rows * sizeof(uint32_t));

    for (size_t iz = 0; iz < ARRAY_LEN(z_lens); iz++) {
        for (size_t id = 0; id < ARRAY_LEN(dict_lens); id++) {
            const size_t z_len = z_lens[iz], dict_len = dict_lens[id];
            fr_t *dict = spm_dict(dict_len), *z = spm_z(z_len);
            spm_t m;
            spm_lens(lens, rows);
            spm_random(&m, lens, rows, z_len, dict_len);
            spm_check(dev, &m, dict, dict_len, z, z_len, 32 * iz, 64 * id);
            spm_free(&m);
            cz_free_aligned(dict);
            cz_free_aligned(z);
        }
    }
    cz_free_aligned(lens);
}

TEST(gpu_spmv_edges)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t z_len = 5000, dict_len = 40;
    const uint32_t long_len = gtu_small_sizes() ? 4000 : 200000;
    fr_t *dict = spm_dict(dict_len), *z = spm_z(z_len);
    uint32_t lens[70];
    spm_t m;

    /* rows = 0 */
    memset(lens, 0, sizeof(lens));
    spm_random(&m, lens, 0, z_len, dict_len);
    spm_check(dev, &m, dict, dict_len, z, z_len, 0, 0);
    spm_free(&m);
    /* only empty rows: zeros */
    spm_random(&m, lens, 70, z_len, dict_len);
    spm_check(dev, &m, dict, dict_len, z, z_len, 0, 0);
    spm_free(&m);
    /* one very long row (its terms repeat columns: z_len < long_len on small runs) */
    lens[0] = long_len;
    spm_random(&m, lens, 1, z_len, dict_len);
    spm_check(dev, &m, dict, dict_len, z, z_len, 0, 0);
    spm_free(&m);
    /* row lengths 0 .. 69 around the short/long boundary, the last column in the last row,
     * z exactly as long as the largest column needs */
    for (uint32_t r = 0; r < 70; r++) {
        lens[r] = r;
    }
    spm_random(&m, lens, 70, z_len, dict_len);
    m.col[m.nnz - 1] = (uint32_t)z_len - 1;
    spm_check(dev, &m, dict, dict_len, z, z_len, 0, 0);
    m.col[m.nnz - 1] = 0; /* the last row unsorted: the kernels do not rely on the order */
    spm_check(dev, &m, dict, dict_len, z, z_len, 96, 32);
    spm_free(&m);
    cz_free_aligned(dict);
    cz_free_aligned(z);
}

TEST(gpu_spmv_rejects)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t z_len = 100, dict_len = 8;
    fr_t *dict = spm_dict(dict_len), *z = spm_z(z_len);
    uint32_t lens[20];
    gpu_spmat *dm = NULL;
    gpu_buf *bz = NULL, *bo = NULL;
    spm_t m;

    for (int r = 0; r < 20; r++) {
        lens[r] = (uint32_t)r % 5;
    }
    spm_random(&m, lens, 20, z_len, dict_len);
    m.col[3] = (uint32_t)z_len - 1;
#define NEW_ERR(d)                                                                                 \
    CHECK_ERR(gpu_spmat_new(&dm, dev, m.rows, m.nnz, m.row_ptr, m.col, m.coef,                     \
                            (const struct fr *)(d), dict_len, NULL),                               \
              CUZK_E_INVAL);                                                                       \
    CHECK(dm == NULL)
    /* row offsets: not starting at 0, decreasing, not ending at nnz */
    m.row_ptr[0] = 1;
    NEW_ERR(dict);
    m.row_ptr[0] = 0;
    m.row_ptr[7] = m.row_ptr[8] + 1;
    NEW_ERR(dict);
    m.row_ptr[7] = m.row_ptr[6] + lens[6];
    m.row_ptr[20]++;
    NEW_ERR(dict);
    m.row_ptr[20]--;
    /* a coefficient index past the dictionary */
    m.coef[5] = (uint16_t)dict_len;
    NEW_ERR(dict);
    m.coef[5] = 1;
    /* dictionary: 1 and -1 in place, entries reduced */
    {
        fr_t bad[8];
        memcpy(bad, dict, sizeof(bad));
        bad[0] = bad[1];
        NEW_ERR(bad);
        memcpy(bad, dict, sizeof(bad));
        bad[1] = FR_ONE;
        NEW_ERR(bad);
        memcpy(bad, dict, sizeof(bad));
        memset(&bad[6], 0xff, sizeof(fr_t));
        NEW_ERR(bad);
    }
#undef NEW_ERR
    CHECK_ERR(gpu_spmat_new(&dm, dev, m.rows, m.nnz, m.row_ptr, m.col, m.coef,
                            (const struct fr *)dict, 1, NULL),
              CUZK_E_INVAL);
    GPU_OK(gpu_spmat_new(&dm, dev, m.rows, m.nnz, m.row_ptr, m.col, m.coef, (const struct fr *)dict,
                         dict_len, DG));
    GPU_OK(gpu_buf_new(&bz, dev, z_len * 32, DG));
    GPU_OK(gpu_buf_new(&bo, dev, 20 * 32, DG));
    GPU_OK(gpu_buf_upload(bz, 0, z, z_len * 32, DG));
    /* z shorter than the largest column, misaligned offsets, results past the buffer, overlap */
    CHECK_ERR(gpu_spmv_buf(dev, bo, 0, dm, bz, 0, z_len - 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_spmv_buf(dev, bo, 0, dm, bz, 0, z_len + 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_spmv_buf(dev, bo, 16, dm, bz, 0, z_len, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_spmv_buf(dev, bo, 32, dm, bz, 0, z_len, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_spmv_buf(dev, bo, 0, dm, bz, 16, z_len - 1, NULL), CUZK_E_INVAL);
    CHECK_ERR(gpu_spmv_buf(dev, bz, 0, dm, bz, 0, z_len, NULL), CUZK_E_INVAL);
    GPU_OK(gpu_spmv_buf(dev, bo, 0, dm, bz, 0, z_len, DG));
    gpu_spmat_free(dm);
    gpu_spmat_free(NULL);
    gpu_buf_free(bz);
    gpu_buf_free(bo);
    spm_free(&m);
    cz_free_aligned(dict);
    cz_free_aligned(z);
}

/* ---- fixed-base multiplication (gpu_fb_mul_g1 / _g2) ---- */

/* Scalars that reach every case of the signed recoding: 0, 1, small, digits at the window
 * boundary (2^(w-1), 2^(w-1) + 1: a carry), all ones in a window (carry out of a full
 * window), r - 1 (the top window), 2^254, and random ones. */
static void fb_scalars(fr_repr_t *k, size_t n, unsigned w)
{
    static const fr_repr_t r_minus_1 = {{0xffffffff00000000ULL, 0x53bda402fffe5bfeULL,
                                         0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}};
    const uint64_t half = (uint64_t)1 << (w - 1);
    const fr_repr_t fixed[] = {
        repr_u64(0),
        repr_u64(1),
        repr_u64(2),
        repr_u64(half),
        repr_u64(half + 1),
        repr_u64((half << 1) - 1),
        repr_u64(((half << 1) - 1) | (half << 1)),
        r_minus_1,
        {{0, 0, 0, 1ULL << 62}},
    };
    for (size_t i = 0; i < n; i++) {
        if (i < ARRAY_LEN(fixed)) {
            k[i] = fixed[i];
        } else {
            rand_scalar(&k[i]);
        }
    }
}

/* gpu_fb_mul_gX against gX_fb_mul, both forms (affine and wire encoding). */
static void fb_check(gpu_dev *dev, int group, unsigned w, size_t n)
{
    const size_t pt = group == 1 ? sizeof(g1_aff_t) : sizeof(g2_aff_t);
    const size_t nb = group == 1 ? G1_UNCOMPRESSED_NBYTES : G2_UNCOMPRESSED_NBYTES;
    const size_t tlen = group == 1 ? g1_fb_table_len(w) : g2_fb_table_len(w);
    fr_repr_t *k = xmalloc(n * sizeof(*k));
    uint8_t *tab = xmalloc(tlen * pt), *want = xmalloc(n * pt), *got = xmalloc(n * pt);
    uint8_t *enc = xmalloc(n * nb), *want_enc = xmalloc(n * nb);
    gpu_buf *dt = NULL;

    fb_scalars(k, n, w);
    if (group == 1) {
        g1_fb_table_init((g1_aff_t *)tab, &G1_GEN, w, test_pool());
        g1_fb_mul((g1_aff_t *)want, (const g1_aff_t *)tab, w, k, n, test_pool());
    } else {
        g2_fb_table_init((g2_aff_t *)tab, &G2_GEN, w, test_pool());
        g2_fb_mul((g2_aff_t *)want, (const g2_aff_t *)tab, w, k, n, test_pool());
    }
    GPU_OK(gpu_buf_new(&dt, dev, tlen * pt, DG));
    GPU_OK(gpu_buf_upload(dt, 0, tab, tlen * pt, DG));
    for (int e = 0; e < 2; e++) {
        void *out = e ? (void *)enc : (void *)got;
        if (group == 1) {
            GPU_OK(gpu_fb_mul_g1(dev, out, e == 1, dt, w, k, n, DG));
        } else {
            GPU_OK(gpu_fb_mul_g2(dev, out, e == 1, dt, w, k, n, DG));
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (group == 1) {
            g1_aff_to_uncompressed(want_enc + i * nb, (const g1_aff_t *)want + i);
        } else {
            g2_aff_to_uncompressed(want_enc + i * nb, (const g2_aff_t *)want + i);
        }
    }
    CHECK_MEM_EQ(got, want, n * pt);
    CHECK_MEM_EQ(enc, want_enc, n * nb);
    /* a table too short for the window, a window out of range */
    if (group == 1) {
        CHECK_ERR(gpu_fb_mul_g1(dev, got, false, dt, w + 1, k, 1, NULL), CUZK_E_INVAL);
        CHECK_ERR(gpu_fb_mul_g1(dev, got, false, dt, 1, k, 1, NULL), CUZK_E_INVAL);
        GPU_OK(gpu_fb_mul_g1(dev, got, false, dt, w, k, 0, DG));
    } else {
        CHECK_ERR(gpu_fb_mul_g2(dev, got, false, dt, w + 1, k, 1, NULL), CUZK_E_INVAL);
        CHECK_ERR(gpu_fb_mul_g2(dev, got, false, dt, 17, k, 1, NULL), CUZK_E_INVAL);
    }
    gpu_buf_free(dt);
    cz_free_aligned(k);
    cz_free_aligned(tab);
    cz_free_aligned(want);
    cz_free_aligned(got);
    cz_free_aligned(enc);
    cz_free_aligned(want_enc);
}

TEST(gpu_fixed_base)
{
    gpu_dev *dev = gtu_need_dev();
    const size_t n1 = gtu_small_sizes() ? 300 : 300000, n2 = gtu_small_sizes() ? 60 : 50000;

    fb_check(dev, 1, 2, 40);
    fb_check(dev, 1, 12, n1);
    fb_check(dev, 1, 16, gtu_small_sizes() ? 20 : 5000);
    fb_check(dev, 2, 3, 20);
    fb_check(dev, 2, 12, n2);
}

TEST(gpu_zz_close_device)
{
    /* runs last (registration order): releases the device, exercising trim and close */
    if (gtu_dev) {
        GPU_OK(gpu_dev_trim(gtu_dev, DG));
        gpu_dev_close(gtu_dev);
        gtu_dev = NULL;
    }
    gpu_dev_close(NULL);
    if (gpu_count() == 0) {
        test_skip("no GPU");
    }
}
