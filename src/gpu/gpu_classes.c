/* gpu_classes.c - the host half of the class form of Fr vectors (gpu.h, gpu_fr_classes_build):
 * the vectors a streamed pass sends are selections of one assignment z = [inputs | aux], so z is
 * classified once (two bits a position: not zero, other) and each selection's class words are
 * those bits compacted by its selection, with only its others' values read again.
 * Built with and without CUDA (pure host code); gpu_fr_expand_buf (cuda/compact.cu) is the
 * device's reader of the same layout, gpu_fr_classes_expand the host's.
 */
#include "gpu/gpu.h"

#include <string.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "field/fr.h"

#define WORDS_PER_TASK ((size_t)4096) /* z words (64 positions each) per pool task */

size_t gpu_fr_classes_words(size_t n)
{
    return (n + 63) / 64 * 3;
}

void gpu_fr_classes_clear(gpu_fr_classes *c)
{
    cz_free(c->map);
    cz_free(c->oth);
    cz_free(c->dense);
    memset(c, 0, sizeof(*c));
}

/* The work of one build: z, its class bits, and per task of each selection the counts that
 * place the task's output. */
typedef struct build {
    const fr_t *v0, *v1;
    size_t n0, nz, zw; /* nz = n0 + n1 positions, zw words */
    const fr_t *unit;
    uint64_t *nzb, *otb; /* per z word: positions not zero; positions other */
    const gpu_fr_select *sel;
    gpu_fr_classes *out;
    size_t ntask;
    size_t *kept, *others; /* per selection and task: counts, then (after the scan) starts */
    size_t t;              /* the selection being written */
} build_t;

static const fr_t *z_at(const build_t *b, size_t p)
{
    return p < b->n0 ? &b->v0[p] : &b->v1[p - b->n0];
}

static void classify_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    build_t *b = ctx;
    (void)worker;
    for (size_t w = begin; w < end; w++) {
        uint64_t nzb = 0, otb = 0;
        size_t p0 = w * 64, p1 = p0 + 64 < b->nz ? p0 + 64 : b->nz;
        for (size_t p = p0; p < p1; p++) {
            const fr_t *v = z_at(b, p);
            uint64_t bit = (uint64_t)1 << (p - p0);
            if (!fr_is_zero(v)) {
                nzb |= bit;
                otb |= fr_eq(v, b->unit) ? 0 : bit;
            }
        }
        b->nzb[w] = nzb;
        b->otb[w] = otb;
    }
}

/* The selection bits of z word w for selection s. */
static uint64_t sel_word(const build_t *b, const gpu_fr_select *s, size_t w)
{
    uint64_t m = s->keep ? s->keep[w * s->stride] : ~(uint64_t)0;
    size_t p0 = w * 64;

    if (s->from > p0) {
        m = s->from - p0 >= 64 ? 0 : m & (~(uint64_t)0 << (s->from - p0));
    }
    if (b->nz - p0 < 64) {
        m &= ((uint64_t)1 << (b->nz - p0)) - 1;
    }
    return m;
}

static size_t task_end(const build_t *b, size_t task)
{
    size_t e = (task + 1) * WORDS_PER_TASK;
    return e < b->zw ? e : b->zw;
}

static void count_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    build_t *b = ctx;
    const gpu_fr_select *s = &b->sel[b->t];
    (void)worker;
    for (size_t task = begin; task < end; task++) {
        size_t kept = 0, oth = 0;
        for (size_t w = task * WORDS_PER_TASK; w < task_end(b, task); w++) {
            uint64_t m = sel_word(b, s, w);
            kept += (size_t)__builtin_popcountll(m);
            oth += (size_t)__builtin_popcountll(m & b->otb[w]);
        }
        b->kept[task] = kept;
        b->others[task] = oth;
    }
}

/* The bits of x at the set positions of m, packed from bit 0 up. */
static uint64_t bits_extract(uint64_t x, uint64_t m)
{
    uint64_t r = 0;

    if (m == ~(uint64_t)0) {
        return x;
    }
    for (unsigned k = 0; m; m &= m - 1, k++) {
        r |= ((x >> __builtin_ctzll(m)) & 1) << k;
    }
    return r;
}

/* Appends the len (<= 64) low bits of x at bit position o of the plane `plane` of map (words
 * shared with a neighbouring task are ORed atomically). */
static void bits_append(uint64_t *map, unsigned plane, size_t o, uint64_t x, unsigned len)
{
    size_t w = o / 64;
    unsigned sh = (unsigned)(o % 64);

    if (len == 0 || x == 0) {
        return;
    }
    __atomic_fetch_or(&map[3 * w + plane], x << sh, __ATOMIC_RELAXED);
    if (sh != 0 && sh + len > 64) {
        __atomic_fetch_or(&map[3 * (w + 1) + plane], x >> (64 - sh), __ATOMIC_RELAXED);
    }
}

static void write_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    build_t *b = ctx;
    const gpu_fr_select *s = &b->sel[b->t];
    gpu_fr_classes *c = &b->out[b->t];
    (void)worker;
    for (size_t task = begin; task < end; task++) {
        size_t o = b->kept[task], q = b->others[task];
        for (size_t w = task * WORDS_PER_TASK; w < task_end(b, task); w++) {
            uint64_t m = sel_word(b, s, w);
            unsigned len = (unsigned)__builtin_popcountll(m);
            if (c->dense) {
                for (uint64_t r = m; r; r &= r - 1) {
                    c->dense[o++] = *z_at(b, w * 64 + (size_t)__builtin_ctzll(r));
                }
                continue;
            }
            bits_append(c->map, 0, o, bits_extract(b->nzb[w], m), len);
            bits_append(c->map, 1, o, bits_extract(b->otb[w], m), len);
            for (uint64_t r = m & b->otb[w]; r; r &= r - 1) {
                c->oth[q++] = *z_at(b, w * 64 + (size_t)__builtin_ctzll(r));
            }
            o += len;
        }
    }
}

/* Selection t: counts per task, their starts, the vectors allocated, then written. */
static cuzk_err build_one(build_t *b, size_t t, double max_oth, cz_pool *pool, cz_diag *dg)
{
    gpu_fr_classes *c = &b->out[t];
    size_t kept = 0, oth = 0;

    b->t = t;
    cz_pool_for(pool, b->ntask, 1, count_task, b);
    for (size_t task = 0; task < b->ntask; task++) { /* counts -> starts */
        size_t k = b->kept[task], q = b->others[task];
        b->kept[task] = kept;
        b->others[task] = oth;
        kept += k;
        oth += q;
    }
    c->n = kept;
    if ((double)oth > max_oth * (double)kept) {
        c->dense = kept ? cz_malloc(kept * sizeof(fr_t)) : NULL;
        if (kept && !c->dense) {
            return cz_fail(dg, CUZK_E_NOMEM, "%zu values of a dense vector", kept);
        }
    } else {
        c->n_oth = oth;
        c->map = cz_calloc(gpu_fr_classes_words(kept) + 1, sizeof(uint64_t));
        c->oth = oth ? cz_malloc(oth * sizeof(fr_t)) : NULL;
        if (!c->map || (oth && !c->oth)) {
            return cz_fail(dg, CUZK_E_NOMEM, "the classes of %zu values (%zu others)", kept, oth);
        }
    }
    cz_pool_for(pool, b->ntask, 1, write_task, b);
    if (c->map) { /* the third word of each block: others before it */
        uint64_t before = 0;
        for (size_t w = 0; w < (kept + 63) / 64; w++) {
            c->map[3 * w + 2] = before;
            before += (uint64_t)__builtin_popcountll(c->map[3 * w + 1]);
        }
    }
    return CUZK_OK;
}

cuzk_err gpu_fr_classes_build(gpu_fr_classes *out, size_t count, const fr_t *v0, size_t n0,
                              const fr_t *v1, size_t n1, const gpu_fr_select *sel, const fr_t *unit,
                              double max_oth, cz_pool *pool, cz_diag *dg)
{
    build_t b = {.v0 = v0, .v1 = v1, .n0 = n0, .nz = n0 + n1, .unit = unit, .sel = sel, .out = out};
    cuzk_err err = CUZK_OK;

    CZ_CHECK(out != NULL && sel != NULL && unit != NULL && (n0 == 0 || v0) && (n1 == 0 || v1));
    for (size_t t = 0; t < count; t++) {
        memset(&out[t], 0, sizeof(out[t]));
    }
    b.zw = (b.nz + 63) / 64;
    b.ntask = (b.zw + WORDS_PER_TASK - 1) / WORDS_PER_TASK;
    b.nzb = cz_malloc((b.zw + 1) * sizeof(uint64_t));
    b.otb = cz_malloc((b.zw + 1) * sizeof(uint64_t));
    b.kept = cz_malloc((b.ntask + 1) * sizeof(size_t));
    b.others = cz_malloc((b.ntask + 1) * sizeof(size_t));
    if (!b.nzb || !b.otb || !b.kept || !b.others) {
        err = cz_fail(dg, CUZK_E_NOMEM, "the classes of %zu values", b.nz);
        goto done;
    }
    cz_pool_for(pool, b.zw, WORDS_PER_TASK, classify_task, &b);
    for (size_t t = 0; t < count && err == CUZK_OK; t++) {
        err = build_one(&b, t, max_oth, pool, dg);
    }
done:
    for (size_t t = 0; err != CUZK_OK && t < count; t++) {
        gpu_fr_classes_clear(&out[t]);
    }
    cz_free(b.nzb);
    cz_free(b.otb);
    cz_free(b.kept);
    cz_free(b.others);
    return err;
}

/* The number of others of c before position p (p <= n). */
static size_t others_before(const gpu_fr_classes *c, size_t p)
{
    size_t w = p / 64;
    unsigned bit = (unsigned)(p % 64);

    if (w == (c->n + 63) / 64) { /* p = n, on a block boundary */
        return c->n_oth;
    }
    return (size_t)c->map[3 * w + 2] +
           (size_t)__builtin_popcountll(c->map[3 * w + 1] & (((uint64_t)1 << bit) - 1));
}

void gpu_fr_classes_slice(const gpu_fr_classes *c, size_t first, size_t k, size_t *w0, size_t *nw,
                          size_t *base, size_t *n_oth)
{
    CZ_CHECK(c->map != NULL && k >= 1 && first <= c->n && k <= c->n - first);
    *w0 = first / 64 * 3;
    *nw = ((first % 64) + k + 63) / 64 * 3;
    *base = others_before(c, first);
    *n_oth = others_before(c, first + k) - *base;
}

void gpu_fr_classes_expand(fr_t *out, const gpu_fr_classes *c, size_t first, size_t k,
                           const fr_t *unit)
{
    CZ_CHECK(first <= c->n && k <= c->n - first);
    if (c->dense) {
        memcpy(out, c->dense + first, k * sizeof(fr_t));
        return;
    }
    for (size_t i = 0; i < k; i++) {
        size_t p = first + i, w = p / 64;
        uint64_t bit = (uint64_t)1 << (p % 64);
        if (!(c->map[3 * w] & bit)) {
            memset(&out[i], 0, sizeof(fr_t));
        } else if (c->map[3 * w + 1] & bit) {
            out[i] = c->oth[others_before(c, p)];
        } else {
            out[i] = *unit;
        }
    }
}
