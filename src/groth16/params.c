/* params.c - the .vk and .params file formats (spec groth16.md 3.1, 3.2): reading with full
 * length validation and parallel point decoding, writing in exactly the same layout, and the
 * check of parameters against a circuit's shape.
 *
 * Reading is two passes. The first walks the structure (fixed VK part, ic count, the five
 * u32 big-endian counts) and checks every length against the buffer before any point is
 * decoded, so a truncated or inconsistent file fails fast with the section named. The second
 * decodes the points over the pool; when several points are bad, the one with the lowest
 * position in the file is reported, so errors do not depend on the thread count.
 */
#include "groth16/groth16.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bytes.h"
#include "groth16/internal.h"

#define G1_NB G1_UNCOMPRESSED_NBYTES
#define G2_NB G2_UNCOMPRESSED_NBYTES

/* Offsets of the fixed VK part (spec 3.1). */
#define VK_OFF_ALPHA_G1 0
#define VK_OFF_BETA_G1  96
#define VK_OFF_BETA_G2  192
#define VK_OFF_GAMMA_G2 384
#define VK_OFF_DELTA_G1 576
#define VK_OFF_DELTA_G2 672
#define VK_OFF_IC_LEN   864

enum {
    SEC_H = G16_SEC_H,
    SEC_L = G16_SEC_L,
    SEC_A = G16_SEC_A,
    SEC_B_G1 = G16_SEC_B_G1,
    SEC_B_G2 = G16_SEC_B_G2,
    SEC_COUNT = G16_SEC_COUNT
};
static const char *const SEC_NAME[SEC_COUNT] = {"h", "l", "a", "b_g1", "b_g2"};

/* Where everything is in an encoded .params (or .vk: nsec = 0). */
typedef struct layout {
    size_t ic_len;
    size_t sec_off[SEC_COUNT]; /* offset of the first point (after the count) */
    size_t sec_len[SEC_COUNT];
} layout_t;

static size_t sec_point_size(unsigned sec)
{
    return sec == SEC_B_G2 ? G2_NB : G1_NB;
}

/* Checks the fixed VK part and ic; *pos receives the offset just past ic (0 on failure). */
static cuzk_err walk_vk(layout_t *lay, size_t *pos, const uint8_t *buf, size_t len, cz_diag *dg)
{
    size_t ic_len, need;

    *pos = 0;
    if (len < G16_VK_FIXED_NBYTES) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "section vk truncated: the fixed part needs %d bytes, only %zu present",
                       G16_VK_FIXED_NBYTES, len);
    }
    ic_len = cz_load_be32(buf + VK_OFF_IC_LEN);
    if (ic_len == 0) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "section ic inconsistent: count is 0 (ONE needs a point)");
    }
    need = ic_len * G1_NB;
    if (len - G16_VK_FIXED_NBYTES < need) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "section ic truncated: %zu points need %zu bytes at offset %d, only %zu "
                       "present",
                       ic_len, need, G16_VK_FIXED_NBYTES, len - G16_VK_FIXED_NBYTES);
    }
    lay->ic_len = ic_len;
    *pos = G16_VK_FIXED_NBYTES + need;
    return CUZK_OK;
}

static cuzk_err walk_params(layout_t *lay, const uint8_t *buf, size_t len, cz_diag *dg)
{
    cuzk_err err;
    size_t pos = 0;

    memset(lay, 0, sizeof(*lay));
    err = walk_vk(lay, &pos, buf, len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    for (unsigned s = 0; s < SEC_COUNT; s++) {
        size_t count, need;

        if (len - pos < 4) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "section %s truncated: its 4-byte count at offset %zu is cut off "
                           "(%zu bytes present)",
                           SEC_NAME[s], pos, len - pos);
        }
        count = cz_load_be32(buf + pos);
        pos += 4;
        need = count * sec_point_size(s);
        if (len - pos < need) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "section %s truncated: %zu points need %zu bytes at offset %zu, only "
                           "%zu present",
                           SEC_NAME[s], count, need, pos, len - pos);
        }
        lay->sec_off[s] = pos;
        lay->sec_len[s] = count;
        pos += need;
    }
    if (lay->sec_len[SEC_B_G1] != lay->sec_len[SEC_B_G2]) {
        return cz_fail(dg, CUZK_E_FORMAT, "section b_g2 inconsistent: %zu points but b_g1 has %zu",
                       lay->sec_len[SEC_B_G2], lay->sec_len[SEC_B_G1]);
    }
    if (pos != len) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "section b_g2 inconsistent: %zu trailing bytes after the last section "
                       "(file has %zu bytes, the counts describe %zu)",
                       len - pos, len, pos);
    }
    return CUZK_OK;
}

/* ---- the VK ----------------------------------------------------------------------------------- */

static cuzk_err decode_g1_named(g1_aff_t *out, const uint8_t *buf, size_t off, bool check_group,
                                const char *name, cz_diag *dg)
{
    cuzk_err err = g1_aff_from_uncompressed(out, buf + off, check_group);
    if (err != CUZK_OK) {
        return cz_fail(dg, err, "section vk: %s (byte offset %zu) is %s", name, off,
                       err == CUZK_E_FORMAT ? "malformed" : "not on the curve or not in G1");
    }
    return CUZK_OK;
}

static cuzk_err decode_g2_named(g2_aff_t *out, const uint8_t *buf, size_t off, const char *name,
                                cz_diag *dg)
{
    cuzk_err err = g2_aff_from_uncompressed(out, buf + off, true);
    if (err != CUZK_OK) {
        return cz_fail(dg, err, "section vk: %s (byte offset %zu) is %s", name, off,
                       err == CUZK_E_FORMAT ? "malformed" : "not on the curve or not in G2");
    }
    return CUZK_OK;
}

/* Decodes the six fixed points (always with subgroup checks; identity allowed, spec 3.1). */
static cuzk_err decode_vk_fixed(g16_vk_t *vk, const uint8_t *buf, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, decode_g1_named(&vk->alpha_g1, buf, VK_OFF_ALPHA_G1, true, "alpha_g1", dg), done);
    CZ_TRY(err, decode_g1_named(&vk->beta_g1, buf, VK_OFF_BETA_G1, true, "beta_g1", dg), done);
    CZ_TRY(err, decode_g2_named(&vk->beta_g2, buf, VK_OFF_BETA_G2, "beta_g2", dg), done);
    CZ_TRY(err, decode_g2_named(&vk->gamma_g2, buf, VK_OFF_GAMMA_G2, "gamma_g2", dg), done);
    CZ_TRY(err, decode_g1_named(&vk->delta_g1, buf, VK_OFF_DELTA_G1, true, "delta_g1", dg), done);
    CZ_TRY(err, decode_g2_named(&vk->delta_g2, buf, VK_OFF_DELTA_G2, "delta_g2", dg), done);
done:
    return err;
}

/* ---- parallel decoding of point vectors --------------------------------------------------------- */

typedef struct decode_job {
    const uint8_t *src;
    void *dst;
    bool g2;
    bool check_group;
    atomic_size_t first_bad; /* lowest failing index, SIZE_MAX while none */
} decode_job_t;

static bool decode_one(const decode_job_t *job, size_t i, cuzk_err *err)
{
    if (job->g2) {
        g2_aff_t *dst = (g2_aff_t *)job->dst + i;
        *err = g2_aff_from_uncompressed(dst, job->src + i * G2_NB, job->check_group);
        return *err == CUZK_OK && !g2_aff_is_identity(dst);
    }
    g1_aff_t *dst = (g1_aff_t *)job->dst + i;
    *err = g1_aff_from_uncompressed(dst, job->src + i * G1_NB, job->check_group);
    return *err == CUZK_OK && !g1_aff_is_identity(dst);
}

static void decode_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    decode_job_t *job = ctx;
    (void)worker;

    for (size_t i = begin; i < end; i++) {
        cuzk_err err;
        if (!decode_one(job, i, &err)) {
            size_t cur = atomic_load(&job->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&job->first_bad, &cur, i)) {
            }
            return; /* later points of this chunk cannot be lower */
        }
    }
}

/* Points decoded per block when the input is released as the load proceeds (192 MiB of G1). */
#define RELEASE_BLOCK ((size_t)1 << 21)

/* Drops the whole pages of [p, p + len) from the process (a read-only file mapping: the pages
 * stay in the page cache and fault in again if read). */
static void release_pages(const uint8_t *p, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t lo, hi;

    if (pg <= 0) {
        return;
    }
    lo = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
    hi = ((uintptr_t)p + len) & ~((uintptr_t)pg - 1);
    if (hi > lo) {
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
}

/* Decodes points [first, first + n) of the section `name` into dst[0 .. n): src holds the
 * bytes of point `first` onwards, and the section's first point is at byte `off` of its file
 * (the decoding fails at the first bad point: named with its index in the section and its file
 * offset). With `release`, block by block, each block's input pages dropped once decoded. */
static cuzk_err decode_vector(void *dst, const uint8_t *src, size_t off, size_t first, size_t n,
                              bool g2, bool check_group, bool release, const char *name,
                              cz_pool *pool, cz_diag *dg)
{
    const size_t nb = g2 ? G2_NB : G1_NB, block = release ? RELEASE_BLOCK : (n ? n : 1);
    decode_job_t job = {.g2 = g2, .check_group = check_group};
    size_t bad = SIZE_MAX, at, i0;
    cuzk_err err;

    for (i0 = 0; i0 < n && bad == SIZE_MAX; i0 += block) {
        size_t len = n - i0 < block ? n - i0 : block;
        job.src = src + i0 * nb;
        job.dst = (uint8_t *)dst + i0 * (g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t));
        atomic_init(&job.first_bad, SIZE_MAX);
        cz_pool_for(pool, len, check_group ? 64 : 1024, decode_task, &job);
        bad = atomic_load(&job.first_bad);
        if (release) {
            release_pages(job.src, len * nb);
        }
    }
    if (bad == SIZE_MAX) {
        return CUZK_OK;
    }
    (void)decode_one(&job, bad, &err);
    bad += first + i0 - block; /* the failing block's first index, in the section */
    at = off + bad * nb;
    if (err == CUZK_OK) {
        return cz_fail(dg, CUZK_E_NOT_IN_GROUP,
                       "section %s: point %zu (byte offset %zu) is the identity", name, bad, at);
    }
    return cz_fail(dg, err, "section %s: point %zu (byte offset %zu) is %s", name, bad, at,
                   err == CUZK_E_FORMAT ? "malformed"
                   : check_group        ? "not on the curve or not in the subgroup"
                                        : "not on the curve");
}

/* ---- storage ------------------------------------------------------------------------------------ */

/* The store of the five vectors (lengths set in p) and their pointers into it. */
static cuzk_err alloc_vectors(g16_params_t *p, cz_diag *dg)
{
    size_t g1_count = p->h_len + p->l_len + p->a_len + p->b_g1_len;
    size_t bytes = g1_count * sizeof(g1_aff_t) + p->b_g2_len * sizeof(g2_aff_t);
    cuzk_err err = cz_buf_new(&p->store, bytes ? bytes : 1, dg);
    g1_aff_t *g1;

    if (err != CUZK_OK) {
        return err;
    }
    g1 = p->store.ptr;
    p->h = g1;
    g1 += p->h_len;
    p->l = g1;
    g1 += p->l_len;
    p->a = g1;
    g1 += p->a_len;
    p->b_g1 = g1;
    g1 += p->b_g1_len;
    p->b_g2 = (g2_aff_t *)(void *)g1;
    p->dropped = false;
    return CUZK_OK;
}

/* ic's own allocation and the counts of p; no vectors yet. */
static cuzk_err alloc_counts(g16_params_t *p, size_t ic_len, size_t h_len, size_t l_len,
                             size_t a_len, size_t b_g1_len, size_t b_g2_len, cz_diag *dg)
{
    /* ic apart from the vectors: a prepared VK (g16_pvk_init) keeps pointing at it when the
     * vectors are dropped */
    p->ic_own = cz_malloc((ic_len ? ic_len : 1) * sizeof(g1_aff_t));
    if (!p->ic_own) {
        return cz_fail(dg, CUZK_E_NOMEM, "parameters: out of memory");
    }
    p->vk.ic_len = ic_len;
    p->vk.ic = p->ic_own;
    p->h_len = h_len;
    p->l_len = l_len;
    p->a_len = a_len;
    p->b_g1_len = b_g1_len;
    p->b_g2_len = b_g2_len;
    return CUZK_OK;
}

cuzk_err g16_params_alloc(g16_params_t *p, size_t ic_len, size_t h_len, size_t l_len, size_t a_len,
                          size_t b_g1_len, size_t b_g2_len, cz_diag *dg)
{
    cuzk_err err = alloc_counts(p, ic_len, h_len, l_len, a_len, b_g1_len, b_g2_len, dg);
    return err == CUZK_OK ? alloc_vectors(p, dg) : err;
}

void g16_params_free(g16_params_t *p)
{
    if (!p) {
        return;
    }
    cz_buf_free(&p->store);
    cz_free(p->ic_own);
    cz_free(p);
}

bool g16_params_has_points(const g16_params_t *p)
{
    return !p->dropped;
}

void g16_params_drop_points(g16_params_t *p)
{
    p->h = p->l = p->a = p->b_g1 = NULL;
    p->b_g2 = NULL;
    cz_buf_free(&p->store);
    p->dropped = true;
}

/* The five vectors of `lay` decoded from buf into dst (in section order). */
static cuzk_err decode_sections(void *const dst[SEC_COUNT], const uint8_t *buf, const layout_t *lay,
                                const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg)
{
    bool check_group = opts ? opts->check_subgroup : false;
    bool release = opts ? opts->release_input : false;
    cuzk_err err = CUZK_OK;

    for (unsigned s = 0; s < SEC_COUNT && err == CUZK_OK; s++) {
        err = decode_vector(dst[s], buf + lay->sec_off[s], lay->sec_off[s], 0, lay->sec_len[s],
                            s == SEC_B_G2, check_group, release, SEC_NAME[s], pool, dg);
    }
    return err;
}

/* The layout of buf, which must hold p's parameters: the same counts and VK bytes. */
static cuzk_err walk_same(layout_t *lay, const g16_params_t *p, const uint8_t *buf, size_t len,
                          cz_diag *dg)
{
    size_t vk_len = g16_vk_nbytes(&p->vk);
    uint8_t *vk = NULL;
    cuzk_err err;

    CZ_TRY(err, walk_params(lay, buf, len, dg), done);
    vk = cz_malloc(vk_len);
    if (!vk) {
        err = cz_fail(dg, CUZK_E_NOMEM, "parameters: out of memory");
        goto done;
    }
    g16_vk_to_bytes(vk, &p->vk);
    if (lay->ic_len != p->vk.ic_len || lay->sec_len[SEC_H] != p->h_len ||
        lay->sec_len[SEC_L] != p->l_len || lay->sec_len[SEC_A] != p->a_len ||
        lay->sec_len[SEC_B_G1] != p->b_g1_len || memcmp(vk, buf, vk_len) != 0) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "the file changed: it no longer holds the parameters whose points were "
                      "dropped");
    }
done:
    cz_free(vk);
    return err;
}

cuzk_err g16_params_file_sections(const g16_params_t *p, const uint8_t *buf, size_t len,
                                  size_t off[G16_SEC_COUNT], cz_diag *dg)
{
    layout_t lay;
    cuzk_err err = walk_same(&lay, p, buf, len, dg);

    if (err == CUZK_OK) {
        memcpy(off, lay.sec_off, sizeof(lay.sec_off));
    }
    return err;
}

cuzk_err g16_params_decode_range(void *dst, const uint8_t *buf, size_t sec_off, unsigned sec,
                                 size_t first, size_t n, const g16_load_opts_t *opts, cz_pool *pool,
                                 cz_diag *dg)
{
    CZ_CHECK(sec < SEC_COUNT);
    return decode_vector(dst, buf + sec_off + first * sec_point_size(sec), sec_off, first, n,
                         sec == SEC_B_G2, opts ? opts->check_subgroup : false,
                         opts ? opts->release_input : false, SEC_NAME[sec], pool, dg);
}

/* Parallel pread of [off, off + len) of fd into buf, in pieces. */
typedef struct pread_job {
    int fd;
    uint8_t *buf;
    size_t off, len;
    atomic_int failed; /* errno of the first failure, or -1 for a short read */
} pread_job;

#define PREAD_PIECE ((size_t)4 << 20)

static void pread_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    pread_job *j = ctx;
    (void)worker;
    for (size_t p = begin; p < end && !atomic_load(&j->failed); p++) {
        size_t at = p * PREAD_PIECE, want = j->len - at < PREAD_PIECE ? j->len - at : PREAD_PIECE;
        while (want > 0) {
            ssize_t got = pread(j->fd, j->buf + at, want, (off_t)(j->off + at));
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got <= 0) {
                int zero = 0;
                atomic_compare_exchange_strong(&j->failed, &zero, got < 0 ? errno : -1);
                return;
            }
            at += (size_t)got;
            want -= (size_t)got;
        }
    }
}

cuzk_err g16_params_read_range(void *dst, uint8_t *raw, int fd, size_t sec_off, unsigned sec,
                               size_t first, size_t n, const g16_load_opts_t *opts, cz_pool *pool,
                               cz_diag *dg)
{
    CZ_CHECK(sec < SEC_COUNT);
    const size_t nb = sec_point_size(sec);
    pread_job job = {.fd = fd, .buf = raw, .off = sec_off + first * nb, .len = n * nb};

    atomic_init(&job.failed, 0);
    cz_pool_for(pool, (job.len + PREAD_PIECE - 1) / PREAD_PIECE, 1, pread_task, &job);
    int e = atomic_load(&job.failed);
    if (e) {
        return cz_fail(dg, CUZK_E_IO, "section %s: reading %zu bytes at offset %zu: %s",
                       SEC_NAME[sec], job.len, job.off, e > 0 ? strerror(e) : "file too short");
    }
    return decode_vector(dst, raw, sec_off, first, n, sec == SEC_B_G2,
                         opts ? opts->check_subgroup : false, false, SEC_NAME[sec], pool, dg);
}

cuzk_err g16_params_restore_points(g16_params_t *p, const uint8_t *buf, size_t len,
                                   const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg)
{
    layout_t lay;
    cuzk_err err = CUZK_OK;

    if (g16_params_has_points(p)) {
        return CUZK_OK;
    }
    CZ_TRY(err, walk_same(&lay, p, buf, len, dg), done);
    CZ_TRY(err, alloc_vectors(p, dg), done);
    void *const dst[SEC_COUNT] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    err = decode_sections(dst, buf, &lay, opts, pool, dg);
    if (err != CUZK_OK) {
        g16_params_drop_points(p);
    }
done:
    return err;
}

/* ---- reading ------------------------------------------------------------------------------------ */

cuzk_err g16_params_from_bytes(g16_params_t **out, const uint8_t *buf, size_t len,
                               const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_params_t *p = NULL;
    layout_t lay;
    void *dst[SEC_COUNT];

    *out = NULL;
    CZ_TRY(err, walk_params(&lay, buf, len, dg), done);
    p = cz_calloc(1, sizeof(*p));
    if (!p) {
        err = cz_fail(dg, CUZK_E_NOMEM, "parameters: out of memory");
        goto done;
    }
    CZ_TRY(err,
           alloc_counts(p, lay.ic_len, lay.sec_len[SEC_H], lay.sec_len[SEC_L], lay.sec_len[SEC_A],
                        lay.sec_len[SEC_B_G1], lay.sec_len[SEC_B_G2], dg),
           done);
    p->dropped = true; /* until the vectors exist */
    CZ_TRY(err, decode_vk_fixed(&p->vk, buf, dg), done);
    CZ_TRY(err,
           decode_vector(p->vk.ic, buf + G16_VK_FIXED_NBYTES, G16_VK_FIXED_NBYTES, 0, lay.ic_len,
                         false, true, false, "ic", pool, dg),
           done);
    if (opts && opts->skip_points) {
        *out = p; /* dropped: the five vectors are decoded later, or never on the host */
        p = NULL;
        goto done;
    }
    CZ_TRY(err, alloc_vectors(p, dg), done);
    dst[SEC_H] = p->h;
    dst[SEC_L] = p->l;
    dst[SEC_A] = p->a;
    dst[SEC_B_G1] = p->b_g1;
    dst[SEC_B_G2] = p->b_g2;
    CZ_TRY(err, decode_sections(dst, buf, &lay, opts, pool, dg), done);
    *out = p;
    p = NULL;
done:
    g16_params_free(p);
    return err;
}

cuzk_err g16_params_load(g16_params_t **out, const char *path, const g16_load_opts_t *opts,
                         cz_pool *pool, cz_diag *dg)
{
    g16_file_t f;
    cuzk_err err;

    *out = NULL;
    err = g16_file_map(&f, path, dg);
    if (err != CUZK_OK) {
        return err;
    }
    g16_load_opts_t o = opts ? *opts : (g16_load_opts_t){0};
    o.release_input = f.map != NULL; /* the mapping goes right after: drop pages as we go */
    err = g16_params_from_bytes(out, f.data, f.len, &o, pool, dg);
    if (err != CUZK_OK) {
        g16_diag_prefix(dg, path);
    }
    g16_file_unmap(&f);
    return err;
}

cuzk_err g16_vk_from_bytes(g16_vk_t **out, const uint8_t *buf, size_t len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_vk_t *vk = NULL;
    layout_t lay;
    size_t pos;

    *out = NULL;
    memset(&lay, 0, sizeof(lay));
    CZ_TRY(err, walk_vk(&lay, &pos, buf, len, dg), done);
    if (pos != len) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "section ic inconsistent: %zu trailing bytes after %zu ic points (not a .vk "
                      "file?)",
                      len - pos, lay.ic_len);
        goto done;
    }
    vk = cz_calloc(1, sizeof(*vk));
    if (!vk || !(vk->ic = cz_malloc(lay.ic_len * sizeof(g1_aff_t)))) {
        err = cz_fail(dg, CUZK_E_NOMEM, "verifying key: out of memory");
        goto done;
    }
    vk->ic_len = lay.ic_len;
    CZ_TRY(err, decode_vk_fixed(vk, buf, dg), done);
    CZ_TRY(err,
           decode_vector(vk->ic, buf + G16_VK_FIXED_NBYTES, G16_VK_FIXED_NBYTES, 0, lay.ic_len,
                         false, true, false, "ic", NULL, dg),
           done);
    *out = vk;
    vk = NULL;
done:
    g16_vk_free(vk);
    return err;
}

cuzk_err g16_vk_load(g16_vk_t **out, const char *path, cz_diag *dg)
{
    g16_file_t f;
    cuzk_err err;

    *out = NULL;
    err = g16_file_map(&f, path, dg);
    if (err != CUZK_OK) {
        return err;
    }
    err = g16_vk_from_bytes(out, f.data, f.len, dg);
    if (err != CUZK_OK) {
        g16_diag_prefix(dg, path);
    }
    g16_file_unmap(&f);
    return err;
}

void g16_vk_free(g16_vk_t *vk)
{
    if (!vk) {
        return;
    }
    cz_free(vk->ic);
    cz_free(vk);
}

cuzk_err g16_vk_dup(g16_vk_t **out, const g16_vk_t *vk, cz_diag *dg)
{
    g16_vk_t *d = cz_malloc(sizeof(*d));

    *out = NULL;
    if (!d) {
        return cz_fail(dg, CUZK_E_NOMEM, "verifying key: out of memory");
    }
    *d = *vk;
    d->ic = cz_malloc(vk->ic_len * sizeof(g1_aff_t));
    if (!d->ic) {
        cz_free(d);
        return cz_fail(dg, CUZK_E_NOMEM, "verifying key: out of memory");
    }
    memcpy(d->ic, vk->ic, vk->ic_len * sizeof(g1_aff_t));
    *out = d;
    return CUZK_OK;
}

/* ---- writing ------------------------------------------------------------------------------------ */

bool g16_vk_eq(const g16_vk_t *a, const g16_vk_t *b)
{
    if (a->ic_len != b->ic_len || !g1_aff_eq(&a->alpha_g1, &b->alpha_g1) ||
        !g1_aff_eq(&a->beta_g1, &b->beta_g1) || !g2_aff_eq(&a->beta_g2, &b->beta_g2) ||
        !g2_aff_eq(&a->gamma_g2, &b->gamma_g2) || !g1_aff_eq(&a->delta_g1, &b->delta_g1) ||
        !g2_aff_eq(&a->delta_g2, &b->delta_g2)) {
        return false;
    }
    for (size_t i = 0; i < a->ic_len; i++) {
        if (!g1_aff_eq(&a->ic[i], &b->ic[i])) {
            return false;
        }
    }
    return true;
}

size_t g16_vk_nbytes(const g16_vk_t *vk)
{
    return G16_VK_FIXED_NBYTES + vk->ic_len * G1_NB;
}

void g16_vk_to_bytes(uint8_t *out, const g16_vk_t *vk)
{
    CZ_CHECK(vk->ic_len <= UINT32_MAX);
    g1_aff_to_uncompressed(out + VK_OFF_ALPHA_G1, &vk->alpha_g1);
    g1_aff_to_uncompressed(out + VK_OFF_BETA_G1, &vk->beta_g1);
    g2_aff_to_uncompressed(out + VK_OFF_BETA_G2, &vk->beta_g2);
    g2_aff_to_uncompressed(out + VK_OFF_GAMMA_G2, &vk->gamma_g2);
    g1_aff_to_uncompressed(out + VK_OFF_DELTA_G1, &vk->delta_g1);
    g2_aff_to_uncompressed(out + VK_OFF_DELTA_G2, &vk->delta_g2);
    cz_store_be32(out + VK_OFF_IC_LEN, (uint32_t)vk->ic_len);
    for (size_t i = 0; i < vk->ic_len; i++) {
        g1_aff_to_uncompressed(out + G16_VK_FIXED_NBYTES + i * G1_NB, &vk->ic[i]);
    }
}

cuzk_err g16_vk_write(const g16_vk_t *vk, const char *path, cz_diag *dg)
{
    size_t len;
    uint8_t *buf;
    cuzk_err err;

    if (vk->ic_len > UINT32_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: ic has %zu points, more than a u32 count holds", path,
                       vk->ic_len);
    }
    len = g16_vk_nbytes(vk);
    buf = cz_malloc(len);
    if (!buf) {
        return cz_fail(dg, CUZK_E_NOMEM, "%s: out of memory", path);
    }
    g16_vk_to_bytes(buf, vk);
    err = g16_file_write(path, buf, len, dg);
    cz_free(buf);
    return err;
}

size_t g16_params_nbytes(const g16_params_t *p)
{
    return g16_vk_nbytes(&p->vk) + 4 * SEC_COUNT +
           G1_NB * (p->h_len + p->l_len + p->a_len + p->b_g1_len) + G2_NB * p->b_g2_len;
}

typedef struct encode_job {
    uint8_t *dst;
    const void *src;
    bool g2;
} encode_job_t;

static void encode_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const encode_job_t *job = ctx;
    (void)worker;

    for (size_t i = begin; i < end; i++) {
        if (job->g2) {
            g2_aff_to_uncompressed(job->dst + i * G2_NB, (const g2_aff_t *)job->src + i);
        } else {
            g1_aff_to_uncompressed(job->dst + i * G1_NB, (const g1_aff_t *)job->src + i);
        }
    }
}

/* Points encoded per fwrite: 16384 G2 points are 3 MiB. */
#define WRITE_CHUNK 16384

cuzk_err g16_params_write(const g16_params_t *p, const char *path, cz_pool *pool, cz_diag *dg)
{
    const void *src[SEC_COUNT] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    const size_t cnt[SEC_COUNT] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    size_t vk_len = g16_vk_nbytes(&p->vk);
    size_t buf_len = vk_len > WRITE_CHUNK * G2_NB ? vk_len : WRITE_CHUNK * G2_NB;
    cuzk_err err = CUZK_OK;
    uint8_t *buf = NULL;
    FILE *fp = NULL;

    if (!g16_params_has_points(p)) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: the parameters' points were dropped", path);
    }
    for (unsigned s = 0; s < SEC_COUNT; s++) {
        if (cnt[s] > UINT32_MAX) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "%s: section %s has %zu points, more than a u32 "
                           "count holds",
                           path, SEC_NAME[s], cnt[s]);
        }
    }
    if (p->vk.ic_len > UINT32_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: ic too long", path);
    }
    buf = cz_malloc(buf_len);
    if (!buf) {
        return cz_fail(dg, CUZK_E_NOMEM, "%s: out of memory", path);
    }
    fp = fopen(path, "wb");
    if (!fp) {
        err = cz_fail(dg, CUZK_E_IO, "%s: cannot create: %s", path, strerror(errno));
        goto done;
    }
    g16_vk_to_bytes(buf, &p->vk);
    if (fwrite(buf, 1, vk_len, fp) != vk_len) {
        goto io_error;
    }
    for (unsigned s = 0; s < SEC_COUNT; s++) {
        size_t nb = sec_point_size(s);
        uint8_t be[4];

        cz_store_be32(be, (uint32_t)cnt[s]);
        if (fwrite(be, 1, 4, fp) != 4) {
            goto io_error;
        }
        for (size_t off = 0; off < cnt[s]; off += WRITE_CHUNK) {
            size_t k = cnt[s] - off < WRITE_CHUNK ? cnt[s] - off : WRITE_CHUNK;
            encode_job_t job = {
                .dst = buf,
                .src = (const uint8_t *)src[s] +
                       off * (s == SEC_B_G2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t)),
                .g2 = s == SEC_B_G2,
            };
            cz_pool_for(pool, k, 256, encode_task, &job);
            if (fwrite(buf, 1, k * nb, fp) != k * nb) {
                goto io_error;
            }
        }
    }
    if (fflush(fp) != 0) {
        goto io_error;
    }
    if (fclose(fp) != 0) {
        fp = NULL;
        goto io_error;
    }
    fp = NULL;
    goto done;
io_error:
    err = cz_fail(dg, CUZK_E_IO, "%s: write failed: %s", path, strerror(errno));
    if (fp) {
        fclose(fp);
        fp = NULL;
    }
    remove(path);
done:
    cz_free(buf);
    return err;
}

/* ---- shape checks ---------------------------------------------------------------------------------- */

/* Counts v into query q of out. */
static void count_scalar(g16_query_stats_t *out, unsigned q, const fr_t *v)
{
    out->n[q]++;
    if (fr_is_zero(v)) {
        out->zeros[q]++;
    } else if (fr_eq(v, &FR_ONE)) {
        out->ones[q]++;
    }
}

void g16_query_stats(g16_query_stats_t *out, const cs_assignment_t *asg)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < asg->num_inputs; i++) {
        count_scalar(out, G16_Q_A, &asg->inputs[i]);
        if (cs_bitvec_get(&asg->b_input_density, i)) {
            count_scalar(out, G16_Q_B, &asg->inputs[i]);
        }
    }
    for (size_t i = 0; i < asg->num_aux; i++) {
        const fr_t *v = &asg->aux[i];
        count_scalar(out, G16_Q_L, v);
        if (cs_bitvec_get(&asg->a_aux_density, i)) {
            count_scalar(out, G16_Q_A, v);
        }
        if (cs_bitvec_get(&asg->b_aux_density, i)) {
            count_scalar(out, G16_Q_B, v);
        }
    }
}

void g16_shape_of_assignment(g16_shape_t *out, const cs_assignment_t *asg)
{
    out->num_inputs = asg->num_inputs;
    out->num_aux = asg->num_aux;
    out->m = asg->m;
    out->a_aux_popcount = asg->a_aux_density.popcount;
    out->b_input_popcount = asg->b_input_density.popcount;
    out->b_aux_popcount = asg->b_aux_density.popcount;
}

/* Marks the columns present in `m` into `seen` (num_cols bits, zeroed by the caller). */
static void mark_columns(uint64_t *seen, const cs_matrix_t *m)
{
    for (size_t k = 0; k < m->nnz; k++) {
        seen[m->col[k] / 64] |= UINT64_C(1) << (m->col[k] % 64);
    }
}

static size_t count_bits(const uint64_t *bits, size_t lo, size_t hi)
{
    size_t c = 0;
    for (size_t i = lo; i < hi; i++) {
        c += (bits[i / 64] >> (i % 64)) & 1;
    }
    return c;
}

cuzk_err g16_shape_of_r1cs(g16_shape_t *out, const cs_r1cs_t *r1cs, cz_diag *dg)
{
    size_t ncols = r1cs->num_inputs + r1cs->num_aux;
    size_t words = ncols / 64 + 1;
    uint64_t *seen = cz_calloc(words, sizeof(uint64_t));

    if (!seen) {
        return cz_fail(dg, CUZK_E_NOMEM, "shape: out of memory");
    }
    out->num_inputs = r1cs->num_inputs;
    out->num_aux = r1cs->num_aux;
    out->m = r1cs->A.rows;
    mark_columns(seen, &r1cs->A);
    out->a_aux_popcount = count_bits(seen, r1cs->num_inputs, ncols);
    memset(seen, 0, words * sizeof(uint64_t));
    mark_columns(seen, &r1cs->B);
    out->b_input_popcount = count_bits(seen, 0, r1cs->num_inputs);
    out->b_aux_popcount = count_bits(seen, r1cs->num_inputs, ncols);
    cz_free(seen);
    return CUZK_OK;
}

cuzk_err g16_params_check_shape(const g16_params_t *p, const g16_shape_t *sh, cz_diag *dg)
{
    size_t n = 1;
    size_t b_len = sh->b_input_popcount + sh->b_aux_popcount;

    while (n < sh->m) {
        n *= 2;
    }
    if (p->h_len != n - 1) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters do not fit the circuit: h has %zu points, the circuit's %zu "
                       "constraints (domain %zu) need %zu",
                       p->h_len, sh->m, n, n - 1);
    }
    if (p->vk.ic_len != sh->num_inputs) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters do not fit the circuit: ic has %zu points, the circuit has "
                       "%zu inputs (ONE included)",
                       p->vk.ic_len, sh->num_inputs);
    }
    if (p->l_len != sh->num_aux) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters do not fit the circuit: l has %zu points, the circuit has "
                       "%zu aux variables",
                       p->l_len, sh->num_aux);
    }
    if (p->a_len != sh->num_inputs + sh->a_aux_popcount) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters do not fit the circuit: a has %zu points, the circuit needs "
                       "%zu inputs + %zu A-dense aux",
                       p->a_len, sh->num_inputs, sh->a_aux_popcount);
    }
    if (p->b_g1_len != b_len || p->b_g2_len != b_len) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters do not fit the circuit: b_g1/b_g2 have %zu/%zu points, the "
                       "circuit needs %zu B-dense inputs + %zu B-dense aux",
                       p->b_g1_len, p->b_g2_len, sh->b_input_popcount, sh->b_aux_popcount);
    }
    return CUZK_OK;
}

cuzk_err g16_params_check_circuit(const g16_params_t *p, const cs_assignment_t *asg, cz_diag *dg)
{
    g16_shape_t sh;

    g16_shape_of_assignment(&sh, asg);
    return g16_params_check_shape(p, &sh, dg);
}
