/* setup_gpu.c - parameter generation with the points made on a device (g16_setup_gpu_write):
 * the scalars of setup.c (g16_qap_run: the same toxic waste draws, the same value filter),
 * then every point by gpu_fb_mul_g1 / _g2 from the same fixed-base tables as the CPU setup,
 * already encoded by the device in the file's uncompressed form, streamed into the file in the
 * layout of g16_params_write. The bytes are those of g16_setup_shape + g16_params_write for the
 * same shape and seed.
 *
 * Streaming: two pinned staging buffers of FB_CHUNK encoded points. The calling thread fills
 * one through the device while a writer thread writes the other to the file, so the device and
 * the disk work at the same time; the host never holds more than the two buffers of points
 * (besides the scalars). The h scalars are made per chunk (pinned buffer), the others are read
 * from the QAP's arrays.
 *
 * Memory: the QAP's n + 3 (ni + na) field elements while they are computed, then 3 (ni + na)
 * scalars; 2 x FB_CHUNK x 192 bytes of pinned staging (384 MiB) and FB_CHUNK h scalars.
 */
#include "groth16/groth16.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "common/bytes.h"
#include "gpu/gpu.h"
#include "groth16/internal.h"

#define FB_CHUNK  ((size_t)1 << 20) /* points per staging buffer */
#define GPU_FB_W1 12                /* windows of the device tables (22 / 22 additions) */
#define GPU_FB_W2 12

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- the writer thread ---- */

typedef struct fb_writer {
    FILE *fp;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *buf[2];
    size_t len[2]; /* bytes waiting to be written; 0 = free */
    bool stop;
    int werrno;     /* first write error (errno), 0 = none */
    double wait_ms; /* time the device side waited for a free buffer */
} fb_writer;

static void *writer_main(void *arg)
{
    fb_writer *w = arg;
    unsigned next = 0;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->len[next] == 0 && !w->stop) {
            pthread_cond_wait(&w->cv, &w->mu);
        }
        if (w->len[next] == 0) {
            break;
        }
        size_t len = w->len[next];
        bool failed = w->werrno != 0;
        pthread_mutex_unlock(&w->mu);
        int e = 0;
        if (!failed && fwrite(w->buf[next], 1, len, w->fp) != len) {
            e = errno ? errno : EIO;
        }
        pthread_mutex_lock(&w->mu);
        if (e && !w->werrno) {
            w->werrno = e;
        }
        w->len[next] = 0;
        next ^= 1;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until buffer `slot` is free. */
static void writer_acquire(fb_writer *w, unsigned slot)
{
    double t = now_ms();
    pthread_mutex_lock(&w->mu);
    while (w->len[slot] != 0) {
        pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    w->wait_ms += now_ms() - t;
}

static void writer_submit(fb_writer *w, unsigned slot, size_t len)
{
    pthread_mutex_lock(&w->mu);
    w->len[slot] = len;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Writes everything submitted, stops the thread; returns the first write errno (0 = none). */
static int writer_finish(fb_writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    return w->werrno;
}

/* ---- sections ---- */

typedef struct gpu_setup {
    gpu_dev *dev;
    gpu_buf *tab1, *tab2;
    fb_writer wr;
    unsigned slot; /* the staging buffer filled next */
    fr_repr_t *hk; /* FB_CHUNK h scalars (pinned) */
    const g16_qap_t *q;
    cz_pool *pool;
} gpu_setup;

/* One section: its 4-byte count, then n points of group g from the scalars k (h scalars when
 * k is NULL), chunk by chunk through the staging buffers. */
static cuzk_err put_section(gpu_setup *s, int g, const fr_repr_t *k, size_t n, cz_diag *dg)
{
    const size_t nb = g == 1 ? G1_UNCOMPRESSED_NBYTES : G2_UNCOMPRESSED_NBYTES;
    uint8_t be[4];
    cuzk_err err = CUZK_OK;

    CZ_CHECK(n <= UINT32_MAX);
    cz_store_be32(be, (uint32_t)n);
    writer_acquire(&s->wr, s->slot);
    memcpy(s->wr.buf[s->slot], be, 4);
    writer_submit(&s->wr, s->slot, 4);
    s->slot ^= 1;
    for (size_t base = 0; base < n && err == CUZK_OK; base += FB_CHUNK) {
        size_t len = n - base < FB_CHUNK ? n - base : FB_CHUNK;
        const fr_repr_t *kk = k ? k + base : s->hk;
        writer_acquire(&s->wr, s->slot);
        if (!k) {
            g16_qap_h(s->q, s->hk, base, len, s->pool);
        }
        if (g == 1) {
            err = gpu_fb_mul_g1(s->dev, s->wr.buf[s->slot], true, s->tab1, GPU_FB_W1, kk, len, dg);
        } else {
            err = gpu_fb_mul_g2(s->dev, s->wr.buf[s->slot], true, s->tab2, GPU_FB_W2, kk, len, dg);
        }
        if (err == CUZK_OK) {
            writer_submit(&s->wr, s->slot, len * nb);
            s->slot ^= 1;
        }
    }
    return err;
}

/* The tables of both generators, built on the host and uploaded. */
static cuzk_err upload_tables(gpu_setup *s, g1_aff_t **t1, g2_aff_t **t2, cz_diag *dg)
{
    size_t l1 = g1_fb_table_len(GPU_FB_W1) * sizeof(g1_aff_t);
    size_t l2 = g2_fb_table_len(GPU_FB_W2) * sizeof(g2_aff_t);
    cuzk_err err = CUZK_OK;

    *t1 = cz_malloc(l1);
    *t2 = cz_malloc(l2);
    if (!*t1 || !*t2) {
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
    }
    g1_fb_table_init(*t1, &G1_GEN, GPU_FB_W1, s->pool);
    g2_fb_table_init(*t2, &G2_GEN, GPU_FB_W2, s->pool);
    CZ_TRY(err, gpu_buf_new(&s->tab1, s->dev, l1, dg), done);
    CZ_TRY(err, gpu_buf_new(&s->tab2, s->dev, l2, dg), done);
    CZ_TRY(err, gpu_buf_upload(s->tab1, 0, *t1, l1, dg), done);
    CZ_TRY(err, gpu_buf_upload(s->tab2, 0, *t2, l2, dg), done);
done:
    return err;
}

/* The VK part and the five sections into the open file. */
static cuzk_err put_all(gpu_setup *s, g16_vk_t *vk, g16_setup_stats_t *st, cz_diag *dg)
{
    const g16_qap_t *q = s->q;
    size_t vk_len = g16_vk_nbytes(vk);
    uint8_t *vb = cz_malloc(vk_len);
    cuzk_err err = CUZK_OK;
    double t = now_ms();

    if (!vb) {
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
    }
    g16_vk_to_bytes(vb, vk);
    writer_acquire(&s->wr, s->slot);
    memcpy(s->wr.buf[s->slot], vb, vk_len); /* a VK is far below a staging buffer */
    writer_submit(&s->wr, s->slot, vk_len);
    s->slot ^= 1;
    cz_free(vb);
    CZ_TRY(err, put_section(s, 1, NULL, q->n - 1, dg), done);
    CZ_TRY(err, put_section(s, 1, q->l, q->na, dg), done);
    CZ_TRY(err, put_section(s, 1, q->a, q->a_len, dg), done);
    CZ_TRY(err, put_section(s, 1, q->b, q->b_len, dg), done);
    st->g1_ms = now_ms() - t;
    t = now_ms();
    CZ_TRY(err, put_section(s, 2, q->b, q->b_len, dg), done);
    st->g2_ms = now_ms() - t;
done:
    return err;
}

/* Staging, the writer thread, the tables and the VK; then put_all; then the file is closed. */
static cuzk_err stream_params(gpu_setup *s, g16_vk_t *vk, g16_setup_stats_t *st, FILE *fp,
                              cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g1_aff_t *t1 = NULL;
    g2_aff_t *t2 = NULL;
    bool started = false;
    double t = now_ms();

    s->wr.fp = fp;
    for (int i = 0; i < 2; i++) {
        CZ_TRY(err, gpu_host_alloc((void **)&s->wr.buf[i], FB_CHUNK * G2_UNCOMPRESSED_NBYTES, dg),
               done);
    }
    CZ_TRY(err, gpu_host_alloc((void **)&s->hk, FB_CHUNK * sizeof(fr_repr_t), dg), done);
    CZ_TRY(err, upload_tables(s, &t1, &t2, dg), done);
    g16_qap_vk(s->q, vk, t1, GPU_FB_W1, t2, GPU_FB_W2, s->pool);
    st->g1_window = GPU_FB_W1;
    st->g2_window = GPU_FB_W2;
    st->tables_ms = now_ms() - t;
    pthread_mutex_init(&s->wr.mu, NULL);
    pthread_cond_init(&s->wr.cv, NULL);
    if (pthread_create(&s->wr.th, NULL, writer_main, &s->wr) != 0) {
        err = cz_fail(dg, CUZK_E_NOMEM, "setup: cannot start the writer thread");
        goto done;
    }
    started = true;
    err = put_all(s, vk, st, dg);
done:
    if (started) {
        int e = writer_finish(&s->wr);
        if (e && err == CUZK_OK) {
            err = cz_fail(dg, CUZK_E_IO, "write failed: %s", strerror(e));
        }
        pthread_mutex_destroy(&s->wr.mu);
        pthread_cond_destroy(&s->wr.cv);
    }
    for (int i = 0; i < 2; i++) {
        gpu_host_free(s->wr.buf[i]);
    }
    if (s->hk) {
        cz_memzero(s->hk, FB_CHUNK * sizeof(fr_repr_t));
    }
    gpu_host_free(s->hk);
    gpu_buf_free(s->tab1);
    gpu_buf_free(s->tab2);
    cz_free(t1);
    cz_free(t2);
    return err;
}

cuzk_err g16_setup_gpu_write(g16_vk_t **vk_out, g16_setup_stats_t *stats, const cs_shape_t *shape,
                             const uint64_t *seed, gpu_dev *dev, const char *path, cz_pool *pool,
                             cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_setup_stats_t st;
    g16_qap_t q;
    g16_vk_t *vk = NULL;
    gpu_setup s;
    FILE *fp = NULL;
    double t0 = now_ms();

    *vk_out = NULL;
    memset(&st, 0, sizeof(st));
    memset(&s, 0, sizeof(s));
    CZ_TRY(err, g16_qap_run(&q, shape, seed, pool, dg), done);
    st.qap_ms = now_ms() - t0;
    vk = cz_calloc(1, sizeof(*vk));
    if (vk) {
        vk->ic = cz_calloc(q.ni, sizeof(g1_aff_t));
        vk->ic_len = q.ni;
    }
    if (!vk || !vk->ic) {
        err = cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
        goto done_q;
    }
    fp = fopen(path, "wb");
    if (!fp) {
        err = cz_fail(dg, CUZK_E_IO, "%s: cannot create: %s", path, strerror(errno));
        goto done_q;
    }
    s.dev = dev;
    s.q = &q;
    s.pool = pool;
    err = stream_params(&s, vk, &st, fp, dg);
    st.write_wait_ms = s.wr.wait_ms;
    if (fclose(fp) != 0 && err == CUZK_OK) {
        err = cz_fail(dg, CUZK_E_IO, "%s: write failed: %s", path, strerror(errno));
    }
    if (err != CUZK_OK) {
        if (dg) {
            char m[sizeof(dg->msg)];
            snprintf(m, sizeof(m), "%s", dg->msg);
            (void)cz_fail(dg, err, "%s: %s", path, m);
        }
        remove(path);
    }
done_q:
    g16_qap_free(&q);
done:
    if (err == CUZK_OK) {
        *vk_out = vk;
        vk = NULL;
    }
    g16_vk_free(vk);
    st.total_ms = now_ms() - t0;
    if (stats) {
        *stats = st;
    }
    return err;
}
