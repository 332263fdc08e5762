/* prover_gpu.c - the Groth16 prover on a device (spec groth16.md 4.5-4.7 through gpu/gpu.h), with
 * the parameters resident in device memory across proofs (g16_gpu_params).
 *
 * Per proof, after prover.c's checks:
 *   prep      a, b, c go to the device through the staging ring; the density maps of A and B
 *             are built on the host and their upload starts, then the first chunks of the
 *             assignment [inputs | aux] (Montgomery), so those transfers overlap the quotient;
 *   quotient  gpu_quotient_h_buf: h ends in a's buffer (top coefficient checked: CUZK_E_UNSAT);
 *   prep      the rest of [inputs | aux] is uploaded;
 *   msm_h     over h in place (Montgomery scalars, converted by the MSM);
 *   msm_l     over the aux part of [inputs | aux] in place;
 *   msm_a     gpu_fr_compact_buf gathers the scalars of A from [inputs | aux] with the map of
 *             the density [1^num_inputs | a_aux_density]: one MSM over all of p->a (inputs and
 *             aux together; spec 4.6 splits it in two, the sum is the same);
 *   msm_b_g1  the same with [b_input_density | b_aux_density], one MSM over all of p->b_g1;
 *   msm_b_g2  over the same compacted scalars and p->b_g2;
 *   assemble  on the CPU, shared with prover.c (g16_prove_assemble).
 * The MSM sums are the CPU's group elements, so the affine proof is byte for byte the CPU's.
 *
 * Transfers: pageable host memory crosses PCIe several times slower than pinned memory, so every
 * upload goes through a ring of pinned slots: the pool copies a chunk into the next slot while
 * the device pulls the previous ones (asynchronous copies on the object's own stream, one event
 * per slot marks when a slot may be refilled). Device work runs on the device's stream; the
 * host waits for the ring (ring_drain) before device work reads what the ring wrote. The maps
 * live in pinned memory of their own and go up directly.
 *
 * Staging (g16_gpu_stage): with opts.spare_assignment the object also holds a spare [inputs |
 * aux] buffer and a ring and stream of its own. Another thread uploads the next proof's
 * assignment there while a proof runs (copies overlap kernels); g16_gpu_stage_take swaps the
 * spare in before that proof, whose prep then uploads only the density maps.
 *
 * Memory: everything is allocated by g16_gpu_params_new; a proof allocates nothing but the
 * device's MSM scratch (gpu/, grow-only). The compacted A / B scalars use b's buffer (free after
 * the quotient) when they fit in n values.
 *
 * Built once per GPU backend (src/groth16/CMakeLists.txt): prover.c reaches this file through
 * the g16_gpu_params head, never by name.
 */
#include "groth16/groth16.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "groth16/internal.h"

#define STAGE_BYTES_DEFAULT ((size_t)32 << 20)
#define STAGE_SLOTS_DEFAULT 4u
#define STAGE_BYTES_MIN     ((size_t)1024)
#define STAGE_BYTES_MAX     ((size_t)1 << 32)
#define COPY_GRAIN          ((size_t)1 << 20) /* bytes per pool task of a staging copy */

/* ---- the staging ring ----------------------------------------------------------------------- */

typedef struct ring {
    gpu_stream *s;     /* the asynchronous uploads */
    uint8_t *host;     /* slots * slot_bytes of pinned memory */
    size_t slot_bytes; /* a multiple of 256 */
    unsigned slots, next;
    gpu_event *ev[G16_GPU_MAX_SLOTS]; /* recorded after each slot's upload */
    bool busy[G16_GPU_MAX_SLOTS];     /* an upload from the slot may still be running */
} ring_t;

/* One host-to-device copy moving through the ring: len bytes from src to dst at off, of which
 * `done` have been staged. */
typedef struct upload {
    gpu_buf *dst;
    size_t off;
    const uint8_t *src;
    size_t len, done;
} upload_t;

typedef struct copy_job {
    uint8_t *dst;
    const uint8_t *src;
} copy_job_t;

static void copy_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const copy_job_t *job = ctx;
    (void)worker;
    memcpy(job->dst + begin, job->src + begin, end - begin);
}

/* dst = src over the pool (len bytes). */
static void pool_copy(void *dst, const void *src, size_t len, cz_pool *pool)
{
    copy_job_t job = {.dst = dst, .src = src};
    cz_pool_for(pool, len, COPY_GRAIN, copy_task, &job);
}

/* The next slot, once its previous upload (if any) has finished. */
static cuzk_err ring_slot(ring_t *rg, unsigned *slot, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned sl = rg->next;

    if (rg->busy[sl]) {
        CZ_TRY(err, gpu_event_sync(rg->ev[sl], dg), done);
        rg->busy[sl] = false;
    }
    rg->next = (sl + 1) % rg->slots;
    *slot = sl;
done:
    return err;
}

/* Stages up to max_chunks slot-sized chunks of the unfinished uploads u[0 .. k), in order, and
 * returns with their transfers in flight. The sources may be reused as soon as this returns. */
static cuzk_err ring_push(ring_t *rg, upload_t *u, size_t k, size_t max_chunks, cz_pool *pool,
                          cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t sent = 0;

    for (size_t j = 0; j < k && sent < max_chunks; j++) {
        while (u[j].done < u[j].len && sent < max_chunks) {
            size_t len = u[j].len - u[j].done;
            unsigned sl = 0;
            uint8_t *slot;

            if (len > rg->slot_bytes) {
                len = rg->slot_bytes;
            }
            CZ_TRY(err, ring_slot(rg, &sl, dg), done);
            slot = rg->host + (size_t)sl * rg->slot_bytes;
            pool_copy(slot, u[j].src + u[j].done, len, pool);
            CZ_TRY(err, gpu_buf_upload_async(u[j].dst, u[j].off + u[j].done, slot, len, rg->s, dg),
                   done);
            CZ_TRY(err, gpu_event_record(rg->ev[sl], rg->s, dg), done);
            rg->busy[sl] = true;
            u[j].done += len;
            sent++;
        }
    }
done:
    return err;
}

/* Waits for every transfer on the ring's stream (the staged chunks and the maps). */
static cuzk_err ring_drain(ring_t *rg, cz_diag *dg)
{
    cuzk_err err = gpu_stream_sync(rg->s, dg);
    if (err == CUZK_OK) {
        memset(rg->busy, 0, sizeof(rg->busy));
    }
    return err;
}

static void ring_clear(ring_t *rg)
{
    gpu_stream_free(rg->s); /* waits for its transfers first */
    for (unsigned i = 0; i < G16_GPU_MAX_SLOTS; i++) {
        gpu_event_free(rg->ev[i]);
    }
    gpu_host_free(rg->host);
    memset(rg, 0, sizeof(*rg));
}

/* The ring's stream and events (its pinned memory is allocated by the caller). */
static cuzk_err ring_init(ring_t *rg, gpu_dev *dev, size_t slot_bytes, unsigned slots, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    rg->slot_bytes = slot_bytes;
    rg->slots = slots;
    rg->next = 0;
    CZ_TRY(err, gpu_stream_new(&rg->s, dev, dg), done);
    for (unsigned i = 0; i < slots; i++) {
        CZ_TRY(err, gpu_event_new(&rg->ev[i], dev, dg), done);
    }
done:
    return err;
}

/* ---- the device-resident parameters --------------------------------------------------------- */

typedef struct gpu_params_impl {
    struct g16_gpu_params head; /* first member: a g16_gpu_params * points here */
    gpu_dev *dev;               /* retained */
    unsigned lg;
    size_t n, ni, na;                    /* domain size, inputs (ONE included), aux */
    size_t cmp_len;                      /* max(a_len, b_g1_len): the compacted scalars */
    gpu_msm_bases *bases[G16_SEC_COUNT]; /* h, l, a, b_g1 (G1), b_g2 (G2); NULL when streamed */
    /* streamed sections (bit G16_SEC_*): their points cross from the host for every proof,
     * chunk by chunk through two device buffers, on a stream of their own (one event per
     * buffer marks its upload); `pinned`: the host points are page-locked (pin_params), else
     * the chunks go through the staging ring */
    unsigned stream_mask;
    gpu_buf *chunk[2];
    size_t chunk_bytes;
    gpu_stream *cs;
    gpu_event *cev[2];
    bool pinned;
    /* share_max > 1: g16_prove_group's proofs share each pass over the streamed points; their
     * scalars cross beside the points into sbuf[b][j] (share_chunk_bytes: a chunk's scalars, 32
     * bytes a G1 point, dense or as classes), uploaded through the ring, whose stream records
     * sev[b] after them; a chunk's MSM reads classes as they are (gpu_msm_set) */
    unsigned share_max, kept_h;
    gpu_buf *sbuf[2][G16_GPU_MAX_SHARE];
    gpu_event *sev[2];
    fr_t *kept; /* pinned: kept_h x kept_values(), the h of a group's proofs (kept_sc) waiting
                   for their pass */
    /* lean_buffers: da, db and (lean_own_z) dz instead of four buffers; without lean_own_z dz is
     * db; dc is NULL */
    bool lean, lean_z;
    gpu_buf *da, *db, *dc; /* n values each; h lands in da */
    gpu_buf *dz;           /* [inputs | aux], ni + na values */
    gpu_buf *dcmp;         /* the compacted scalars, or NULL: db holds them */
    gpu_buf *dmap_a, *dmap_b;
    void *map_a, *map_b; /* pinned host maps, map_bytes each */
    size_t map_bytes;
    uint64_t *words; /* host: one combined density, (ni + na + 63) / 64 words */
    /* the densities the device's maps were built from: [A aux | B inputs | B aux] words, and
     * their counts; maps_ok false until a build's upload is queued (map_key NULL: no cache) */
    uint64_t *map_key;
    bool maps_ok;
    size_t a_cnt, b_cnt;
    ring_t ring;
    size_t dev_bytes, pinned_bytes;
    /* g16_gpu_stage: the spare [inputs | aux] and its own ring (NULL / zeroed without
     * spare_assignment). stage_mu guards staged, staged_inputs / _aux and the swap of dz and
     * dz_spare; a staging holds it from start to end. taken_*: the vectors dz holds since
     * g16_gpu_stage_take, until the next proof. */
    gpu_buf *dz_spare;
    ring_t stage_ring;
    pthread_mutex_t stage_mu;
    bool staged;
    const fr_t *staged_inputs, *staged_aux;
    const fr_t *taken_inputs, *taken_aux;
} gpu_params_impl;

/* A recorded shape resident beside the parameters (g16_gpu_shape_new). */
struct g16_gpu_shape {
    const gpu_params_impl *g; /* the parameters it was made for */
    gpu_spmat *m[3];          /* A, B, C */
    size_t rows;
};

/* ---- density maps --------------------------------------------------------------------------- */

/* Bits [0, len) of src (NULL: all ones) into bit positions [at, at + len) of w, which is zero
 * there (w has room for them). */
static void bits_or_at(uint64_t *w, size_t at, const uint64_t *src, size_t len)
{
    size_t q = at / 64, sh = at % 64, nw = (len + 63) / 64;
    size_t last = (at + len + 63) / 64; /* words of w that the bits may touch */

    for (size_t k = 0; k < nw; k++) {
        uint64_t v = src ? src[k] : ~(uint64_t)0;
        if (k == nw - 1 && len % 64 != 0) {
            v &= ((uint64_t)1 << (len % 64)) - 1;
        }
        w[q + k] |= v << sh;
        if (sh != 0 && q + k + 1 < last) {
            w[q + k + 1] |= v >> (64 - sh);
        }
    }
}

/* The compaction map of [in_bits over the ni inputs | aux_bits over the na aux] into map;
 * returns the number of positions kept. in_bits NULL: every input. */
static size_t build_map(gpu_params_impl *g, void *map, const uint64_t *in_bits,
                        const uint64_t *aux_bits)
{
    size_t nz = g->ni + g->na;

    memset(g->words, 0, (nz + 63) / 64 * sizeof(uint64_t));
    bits_or_at(g->words, 0, in_bits, g->ni);
    bits_or_at(g->words, g->ni, aux_bits, g->na);
    return gpu_compact_map_build(map, g->words, nz);
}

/* The density maps on the device for asg: built and uploaded (on the ring's stream) only when
 * the densities differ from the last upload's. A circuit's densities follow from its
 * constraints, so the partitions of one shape share them; the comparison reads 2 bits per
 * variable where the build wrote 64. */
static cuzk_err upload_maps(gpu_params_impl *g, const cs_assignment_t *asg, size_t *a_cnt,
                            size_t *b_cnt, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t wa = (g->na + 63) / 64, wi = (g->ni + 63) / 64;
    const uint64_t *src[3] = {asg->a_aux_density.words, asg->b_input_density.words,
                              asg->b_aux_density.words};
    const size_t at[3] = {0, wa, wa + wi}, nw[3] = {wa, wi, wa};
    bool same = g->maps_ok; /* never set without map_key */

    for (int k = 0; k < 3; k++) {
        same = same && src[k] && memcmp(g->map_key + at[k], src[k], nw[k] * 8) == 0;
    }
    if (same) {
        *a_cnt = g->a_cnt;
        *b_cnt = g->b_cnt;
        return CUZK_OK;
    }
    g->maps_ok = false;
    *a_cnt = build_map(g, g->map_a, NULL, src[0]);
    *b_cnt = build_map(g, g->map_b, src[1], src[2]);
    CZ_TRY(err, gpu_buf_upload_async(g->dmap_a, 0, g->map_a, g->map_bytes, g->ring.s, dg), done);
    CZ_TRY(err, gpu_buf_upload_async(g->dmap_b, 0, g->map_b, g->map_bytes, g->ring.s, dg), done);
    if (g->map_key && src[0] && src[1] && src[2]) {
        for (int k = 0; k < 3; k++) {
            memcpy(g->map_key + at[k], src[k], nw[k] * 8);
        }
        g->a_cnt = *a_cnt;
        g->b_cnt = *b_cnt;
        g->maps_ok = true;
    }
done:
    return err;
}

/* ---- proving -------------------------------------------------------------------------------- */

/* The two uploads of [inputs | aux] into dst. */
static void z_uploads(upload_t z[2], const gpu_params_impl *g, gpu_buf *dst,
                      const cs_assignment_t *asg)
{
    z[0] = (upload_t){
        .dst = dst, .off = 0, .src = (const uint8_t *)asg->inputs, .len = g->ni * sizeof(fr_t)};
    z[1] = (upload_t){.dst = dst,
                      .off = g->ni * sizeof(fr_t),
                      .src = (const uint8_t *)asg->aux,
                      .len = g->na * sizeof(fr_t)};
}

/* True when the proof of asg finds it on the device already: opts->gpu_staged after
 * g16_gpu_stage_take(asg) (one proof per take). */
static bool use_taken(gpu_params_impl *g, const cs_assignment_t *asg, const g16_prove_opts_t *opts)
{
    bool hit = opts && opts->gpu_staged && g->taken_inputs == asg->inputs &&
               g->taken_aux == asg->aux && (asg->inputs || asg->aux);
    g->taken_inputs = g->taken_aux = NULL;
    return hit;
}

/* ---- streamed sections ---------------------------------------------------------------- */

/* The host points of section sec (g1_aff_t, or g2_aff_t for b_g2). */
static const uint8_t *sec_points(const g16_params_t *p, unsigned sec)
{
    const void *v[G16_SEC_COUNT] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    return (const uint8_t *)v[sec];
}

static size_t sec_elem(unsigned sec)
{
    return sec == G16_SEC_B_G2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
}

/* Starts the upload of k points of section sec from point `first` into chunk buffer b; its
 * event is recorded when the copy is queued. */
static cuzk_err chunk_upload(gpu_params_impl *g, unsigned b, unsigned sec, size_t first, size_t k,
                             cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t elem = sec_elem(sec);
    const uint8_t *src = sec_points(g->head.params, sec) + first * elem;

    if (g->pinned) {
        CZ_TRY(err, gpu_buf_upload_async(g->chunk[b], 0, src, k * elem, g->cs, dg), done);
        CZ_TRY(err, gpu_event_record(g->cev[b], g->cs, dg), done);
    } else {
        upload_t u = {.dst = g->chunk[b], .off = 0, .src = src, .len = k * elem};
        CZ_TRY(err, ring_push(&g->ring, &u, 1, SIZE_MAX, pool, dg), done);
        CZ_TRY(err, gpu_event_record(g->cev[b], g->ring.s, dg), done);
    }
done:
    return err;
}

/* Where one proof's scalars of a pass come from: count Montgomery values at byte off of a device
 * buffer, or (buf NULL) in host memory, uploaded beside each chunk of points: directly when
 * page-locked (`pinned`), else through the staging ring; or (cl) a vector's classes, whose
 * slices go through the ring and are read as they are by the chunk's MSM (gpu_msm_set). */
typedef struct pass_src {
    const gpu_buf *buf;
    size_t off;
    const fr_t *host;
    bool pinned;
    const gpu_fr_classes *cl;
} pass_src;

/* Where a slice of classes lies in a scalar chunk buffer: its class words at 0, its others
 * from byte oth_off. */
typedef struct cl_slice {
    size_t w0, nw, base, n_oth, oth_off;
} cl_slice;

static cl_slice slice_of(const gpu_fr_classes *cl, size_t first, size_t k)
{
    cl_slice sl;

    gpu_fr_classes_slice(cl, first, k, &sl.w0, &sl.nw, &sl.base, &sl.n_oth);
    sl.oth_off = (sl.nw * sizeof(uint64_t) + 31) / 32 * 32;
    return sl;
}

/* Device bytes of one proof's scalar chunk buffer for chunks of chunk_bytes: the dense scalars
 * of a chunk of G1 points, and room for the class words of its blocks. */
static size_t share_chunk_bytes(size_t chunk_bytes)
{
    const size_t per = chunk_bytes / sizeof(g1_aff_t);

    return per * sizeof(fr_t) + (gpu_fr_classes_words(per + 64) * sizeof(uint64_t) + 31) / 32 * 32;
}

size_t g16_gpu_share_bytes(unsigned share_max, size_t chunk_bytes)
{
    if (share_max < 2) {
        return 0;
    }
    return 2 * (size_t)share_max * share_chunk_bytes(chunk_bytes);
}

/* Fills the uploads of proof j's scalars of a chunk (k values from `first`) into dst; returns
 * how many (0 to 2). */
static size_t scalar_uploads(upload_t u[2], const pass_src *src, gpu_buf *dst, size_t first,
                             size_t k)
{
    const fr_t *dense = src->cl ? src->cl->dense : src->host;

    if (dense) {
        u[0] = (upload_t){
            .dst = dst, .src = (const uint8_t *)(dense + first), .len = k * sizeof(fr_t)};
        return 1;
    }
    cl_slice sl = slice_of(src->cl, first, k);
    u[0] = (upload_t){.dst = dst,
                      .src = (const uint8_t *)(src->cl->map + sl.w0),
                      .len = sl.nw * sizeof(uint64_t)};
    u[1] = (upload_t){.dst = dst,
                      .off = sl.oth_off,
                      .src = (const uint8_t *)(src->cl->oth + sl.base),
                      .len = sl.n_oth * sizeof(fr_t)};
    return sl.n_oth ? 2 : 1;
}

/* A pass over the count points of streamed section sec for nsrc proofs: an upload thread queues
 * chunk i (points, and the host scalars of each proof) into buffer set i % 2 once the MSMs of
 * chunk i - 2 have returned; the calling thread runs the nsrc MSMs of each chunk as its uploads
 * land. mu guards queued, consumed, stop and err. */
typedef struct pass {
    gpu_params_impl *g;
    unsigned sec;
    const pass_src *src;
    size_t nsrc, count, per;
    size_t budget; /* device scratch for one MSM call (pass_budget) */
    cz_pool *pool;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t queued, consumed; /* chunks whose uploads are queued / whose MSMs returned */
    bool stop;
    cuzk_err err; /* the upload thread's */
    cz_diag dg;
} pass_t;

/* Queues the uploads of chunk i (k points from `first`) into buffer set b. */
static cuzk_err pass_upload(pass_t *ps, unsigned b, size_t first, size_t k)
{
    gpu_params_impl *g = ps->g;
    cuzk_err err = CUZK_OK;
    bool host = false;

    CZ_TRY(err, chunk_upload(g, b, ps->sec, first, k, ps->pool, &ps->dg), done);
    for (size_t j = 0; j < ps->nsrc; j++) {
        upload_t u[2];
        if (ps->src[j].buf) {
            continue;
        }
        size_t nu = scalar_uploads(u, &ps->src[j], g->sbuf[b][j], first, k);
        if (ps->src[j].pinned) {
            CZ_TRY(err, gpu_buf_upload_async(u[0].dst, 0, u[0].src, u[0].len, g->ring.s, &ps->dg),
                   done);
        } else {
            CZ_TRY(err, ring_push(&g->ring, u, nu, SIZE_MAX, ps->pool, &ps->dg), done);
        }
        host = true;
    }
    if (host) {
        CZ_TRY(err, gpu_event_record(g->sev[b], g->ring.s, &ps->dg), done);
    }
done:
    return err;
}

static void *pass_uploader(void *arg)
{
    pass_t *ps = arg;
    cuzk_err err = CUZK_OK;

    for (size_t first = 0, i = 0; first < ps->count && err == CUZK_OK; first += ps->per, i++) {
        pthread_mutex_lock(&ps->mu);
        while (!ps->stop && i >= ps->consumed + 2) {
            pthread_cond_wait(&ps->cv, &ps->mu);
        }
        bool stop = ps->stop;
        pthread_mutex_unlock(&ps->mu);
        if (stop) {
            break;
        }
        const size_t k = ps->count - first < ps->per ? ps->count - first : ps->per;
        err = pass_upload(ps, (unsigned)(i % 2), first, k);
        pthread_mutex_lock(&ps->mu);
        ps->err = err;
        ps->queued += err == CUZK_OK;
        pthread_cond_broadcast(&ps->cv);
        pthread_mutex_unlock(&ps->mu);
    }
    return NULL;
}

/* Waits for chunk i's uploads (queued, then landed). */
static cuzk_err pass_wait(pass_t *ps, size_t i, bool host, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const unsigned b = (unsigned)(i % 2);

    pthread_mutex_lock(&ps->mu);
    while (ps->queued <= i && ps->err == CUZK_OK) {
        pthread_cond_wait(&ps->cv, &ps->mu);
    }
    err = ps->queued <= i ? ps->err : CUZK_OK;
    pthread_mutex_unlock(&ps->mu);
    if (err != CUZK_OK) {
        if (dg) {
            *dg = ps->dg; /* the upload thread's failure (it stopped) */
        }
        return err;
    }
    CZ_TRY(err, gpu_event_sync(ps->g->cev[b], dg), done);
    if (host) {
        CZ_TRY(err, gpu_event_sync(ps->g->sev[b], dg), done);
    }
done:
    return err;
}

_Static_assert(G16_GPU_MAX_SHARE <= GPU_MSM_MAX_SETS, "a chunk's proofs fit one MSM call");

/* Proof j's scalars of chunk i (k points from `first`, buffer set b) as an MSM set. */
static gpu_msm_set pass_set(const pass_t *ps, size_t j, unsigned b, size_t first, size_t k)
{
    const pass_src *src = &ps->src[j];

    if (src->buf) {
        return (gpu_msm_set){.buf = src->buf, .off = src->off + first * sizeof(fr_t), .mont = true};
    }
    gpu_msm_set st = {.buf = ps->g->sbuf[b][j], .mont = true};
    if (src->cl && !src->cl->dense) { /* the chunk's classes */
        cl_slice sl = slice_of(src->cl, first, k);
        st.nw = sl.nw;
        st.oth_off = sl.oth_off;
        st.n_oth = sl.n_oth;
        st.bit0 = (unsigned)(first % 64);
        st.base = sl.base;
    }
    return st;
}

/* The device scratch planned for a chunk's MSMs: what one dense MSM of a chunk of G1 or of G2
 * points asks, whichever is more (the engine's plan reserves it). */
static size_t pass_budget(const gpu_params_impl *g)
{
    const size_t s1 = gpu_msm_scratch_bytes(g->chunk_bytes / sizeof(g1_aff_t), 1, true);
    const size_t s2 = gpu_msm_scratch_bytes(g->chunk_bytes / sizeof(g2_aff_t), 2, true);

    return s1 > s2 ? s1 : s2;
}

/* The nsrc MSMs of chunk i (k points from `first`), added into outs (g1_t or g2_t each): as
 * many proofs per gpu_msm_*_sets call as the planned scratch holds (pass_budget), at least
 * one. */
static cuzk_err pass_msms(pass_t *ps, size_t i, size_t first, size_t k, void *outs, cz_diag *dg)
{
    const bool g2 = ps->sec == G16_SEC_B_G2;
    const int group = g2 ? 2 : 1;
    const unsigned b = (unsigned)(i % 2);
    gpu_msm_set sets[G16_GPU_MAX_SHARE];
    g1_t p1[G16_GPU_MAX_SHARE];
    g2_t p2[G16_GPU_MAX_SHARE];
    gpu_msm_bases *v = NULL;
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, gpu_msm_bases_view(&v, ps->g->chunk[b], 0, group, k, dg), done);
    for (size_t j = 0; j < ps->nsrc; j++) {
        sets[j] = pass_set(ps, j, b, first, k);
    }
    for (size_t j0 = 0, m = 1; j0 < ps->nsrc; j0 += m, m = 1) {
        while (j0 + m < ps->nsrc &&
               gpu_msm_sets_scratch_bytes(k, group, sets + j0, (unsigned)m + 1) <= ps->budget) {
            m++;
        }
        if (g2) {
            CZ_TRY(err, gpu_msm_g2_sets(ps->g->dev, p2, v, 0, k, sets + j0, (unsigned)m, dg), done);
        } else {
            CZ_TRY(err, gpu_msm_g1_sets(ps->g->dev, p1, v, 0, k, sets + j0, (unsigned)m, dg), done);
        }
        for (size_t t = 0; t < m; t++) {
            if (g2) {
                g2_add((g2_t *)outs + j0 + t, (g2_t *)outs + j0 + t, &p2[t]);
            } else {
                g1_add((g1_t *)outs + j0 + t, (g1_t *)outs + j0 + t, &p1[t]);
            }
        }
    }
done:
    gpu_msm_bases_free(v);
    return err;
}

/* outs[j] (g1_t or g2_t) = the MSM of the count points of streamed section sec and the scalars
 * of src[j], for j < nsrc, in one pass over the points: each chunk of chunk_bytes crosses once
 * and serves every proof, the uploads of chunk i + 1 overlapping the MSMs of chunk i; the chunks'
 * sums are added on the host (the MSM is linear, so the sum is the whole MSM's group element).
 * A cancellation is seen between chunks. */
static cuzk_err msm_pass(gpu_params_impl *g, unsigned sec, void *outs, const pass_src *src,
                         size_t nsrc, size_t count, const g16_prove_opts_t *opts, cz_pool *pool,
                         cz_diag *dg)
{
    pass_t ps = {.g = g, .sec = sec, .src = src, .nsrc = nsrc, .count = count, .pool = pool};
    const bool g2 = sec == G16_SEC_B_G2;
    cuzk_err err = CUZK_OK;
    pthread_t th;
    bool started = false, host = false;

    ps.per = g->chunk_bytes / sec_elem(sec);
    ps.budget = pass_budget(g);
    for (size_t j = 0; j < nsrc; j++) {
        host |= src[j].buf == NULL;
        if (g2) {
            g2_set_identity((g2_t *)outs + j);
        } else {
            g1_set_identity((g1_t *)outs + j);
        }
    }
    CZ_CHECK(nsrc >= 1 && (!host || nsrc <= g->share_max));
    cz_diag_init(&ps.dg);
    pthread_mutex_init(&ps.mu, NULL);
    pthread_cond_init(&ps.cv, NULL);
    if (count && pthread_create(&th, NULL, pass_uploader, &ps) != 0) {
        err = cz_fail(dg, CUZK_E_NOMEM, "the thread of a streamed pass");
        goto done;
    }
    started = count > 0;
    for (size_t first = 0, i = 0; first < count; first += ps.per, i++) {
        const size_t k = count - first < ps.per ? count - first : ps.per;
        CZ_TRY(err, pass_wait(&ps, i, host, dg), done);
        CZ_TRY(err, pass_msms(&ps, i, first, k, outs, dg), done);
        pthread_mutex_lock(&ps.mu);
        ps.consumed = i + 1;
        pthread_cond_broadcast(&ps.cv);
        pthread_mutex_unlock(&ps.mu);
        CZ_TRY(err, g16_stage_check(opts, dg), done);
    }
done:
    if (started) {
        pthread_mutex_lock(&ps.mu);
        ps.stop = true;
        pthread_cond_broadcast(&ps.cv);
        pthread_mutex_unlock(&ps.mu);
        pthread_join(th, NULL);
    }
    if (err != CUZK_OK) {
        /* no copy may still write a chunk buffer; the first error is the one reported */
        cuzk_err e2 = g->pinned ? gpu_stream_sync(g->cs, NULL) : CUZK_OK;
        cuzk_err e3 = ring_drain(&g->ring, NULL);
        (void)e2;
        (void)e3;
    }
    pthread_cond_destroy(&ps.cv);
    pthread_mutex_destroy(&ps.mu);
    return err;
}

/* The MSM of section sec: resident bases, or streamed. */
static cuzk_err msm_sec(gpu_params_impl *g, unsigned sec, void *out, const gpu_buf *sc, size_t soff,
                        size_t count, const g16_prove_opts_t *opts, cz_pool *pool, cz_diag *dg)
{
    if (g->stream_mask & (1u << sec)) {
        const pass_src src = {.buf = sc, .off = soff};
        return msm_pass(g, sec, out, &src, 1, count, opts, pool, dg);
    }
    if (sec == G16_SEC_B_G2) {
        return gpu_msm_g2_buf(g->dev, out, g->bases[sec], 0, sc, soff, count, true, NULL, dg);
    }
    return gpu_msm_g1_buf(g->dev, out, g->bases[sec], 0, sc, soff, count, true, NULL, dg);
}

/* Fails with CUZK_E_UNSAT when the quotient's top coefficient is not zero. */
static cuzk_err check_top(bool top_zero, cz_diag *dg)
{
    if (top_zero) {
        return CUZK_OK;
    }
    return cz_fail(dg, CUZK_E_UNSAT,
                   "the assignment does not satisfy the constraints (A*B - C is not "
                   "divisible by Z: the quotient's top coefficient is not zero)");
}

/* What one proof of a group (g16_prove_group) keeps for the group's passes: h (n - 1 values,
 * page-locked) when h is streamed, else NULL; the classes of its L, A and B scalars (cl[KEPT_L,
 * KEPT_A, KEPT_B], built from the assignment on the host) when those sections are streamed. */
enum { KEPT_L, KEPT_A, KEPT_B, KEPT_COUNT };

typedef struct kept_sc {
    fr_t *h;
    gpu_fr_classes *cl;
} kept_sc;

/* ---- the classes of a proof's streamed scalars ---- */

enum { CL_Z, CL_L, CL_A, CL_B, CL_COUNT };

/* The sections whose scalars each class vector holds (CL_Z: none, it feeds the front). */
static const unsigned CL_SECS[CL_COUNT] = {0, 1u << G16_SEC_L, 1u << G16_SEC_A,
                                           (1u << G16_SEC_B_G1) | (1u << G16_SEC_B_G2)};

struct g16_classes {
    gpu_fr_classes v[CL_COUNT];
};

/* The classes of asg's vectors in want (bits 1 << CL_*) into v (the rest zeroed), from one
 * reading of [inputs | aux]: z = [inputs | aux]; L = aux; A = z at [every input |
 * a_aux_density]; B = z at [b_input_density | b_aux_density]. A vector of more than a quarter
 * others (not PoRep's or SnapDeals') stays dense. */
static cuzk_err classes_build(gpu_fr_classes *v, const cs_assignment_t *asg, unsigned want,
                              cz_pool *pool, cz_diag *dg)
{
    const size_t ni = asg->num_inputs, na = asg->num_aux, nw = (ni + na + 63) / 64 + 1;
    uint64_t *ka = cz_calloc(nw, sizeof(uint64_t)), *kb = cz_calloc(nw, sizeof(uint64_t));
    gpu_fr_select sel[CL_COUNT];
    gpu_fr_classes got[CL_COUNT];
    size_t count = 0;
    cuzk_err err = CUZK_OK;

    memset(v, 0, CL_COUNT * sizeof(*v));
    if (!ka || !kb) {
        err = cz_fail(dg, CUZK_E_NOMEM, "the classes of %zu values", ni + na);
        goto done;
    }
    bits_or_at(ka, 0, NULL, ni);
    bits_or_at(ka, ni, asg->a_aux_density.words, na);
    bits_or_at(kb, 0, asg->b_input_density.words, ni);
    bits_or_at(kb, ni, asg->b_aux_density.words, na);
    const gpu_fr_select all[CL_COUNT] = {{NULL, 0, 0}, {NULL, 0, ni}, {ka, 1, 0}, {kb, 1, 0}};
    for (int t = 0; t < CL_COUNT; t++) {
        if (want & (1u << t)) {
            sel[count++] = all[t];
        }
    }
    if (count) {
        CZ_TRY(err,
               gpu_fr_classes_build(got, count, asg->inputs, ni, asg->aux, na, sel, &FR_ONE, 0.25,
                                    pool, dg),
               done);
    }
    for (int t = 0, i = 0; t < CL_COUNT; t++) {
        if (want & (1u << t)) {
            v[t] = got[i++];
        }
    }
done:
    cz_free(ka);
    cz_free(kb);
    return err;
}

cuzk_err g16_classes_new(g16_classes **out, const cs_assignment_t *asg, cz_pool *pool, cz_diag *dg)
{
    g16_classes *c = cz_calloc(1, sizeof(*c));
    cuzk_err err;

    *out = NULL;
    if (!c) {
        return cz_fail(dg, CUZK_E_NOMEM, "classes");
    }
    err = classes_build(c->v, asg, (1u << CL_COUNT) - 1, pool, dg);
    if (err != CUZK_OK) {
        g16_classes_free(c);
        return err;
    }
    *out = c;
    return CUZK_OK;
}

void g16_classes_free(g16_classes *c)
{
    if (!c) {
        return;
    }
    for (int t = 0; t < CL_COUNT; t++) {
        gpu_fr_classes_clear(&c->v[t]);
    }
    cz_free(c);
}

/* Host bytes of a vector's classes (0 when not built). */
static uint64_t one_classes_bytes(const gpu_fr_classes *v)
{
    if (v->dense) {
        return v->n * sizeof(fr_t);
    }
    return gpu_fr_classes_words(v->n) * sizeof(uint64_t) + v->n_oth * sizeof(fr_t);
}

uint64_t g16_classes_bytes(const g16_classes *c)
{
    uint64_t n = 0;

    for (int t = 0; c && t < CL_COUNT; t++) {
        n += one_classes_bytes(&c->v[t]);
    }
    return n;
}

/* The classes the front of job's proof sends: with zc, those of [inputs | aux]
 * (z_from_classes); with cl (a group's proof), those of its streamed L, A and B scalars into
 * cl[KEPT_L ..]. Taken out of the classes built ahead (job->classes, left empty; what is not
 * wanted is freed), else built here. */
static cuzk_err part_classes(const gpu_params_impl *g, g16_prove_job_t *job, gpu_fr_classes *zc,
                             gpu_fr_classes *cl, cz_pool *pool, cz_diag *dg)
{
    gpu_fr_classes *to[CL_COUNT] = {zc, NULL, NULL, NULL};
    g16_classes own, *c = job->classes ? job->classes : &own;
    unsigned want = 0;
    cuzk_err err = CUZK_OK;

    for (int t = CL_L; cl && t < CL_COUNT; t++) {
        to[t] = (g->stream_mask & CL_SECS[t]) ? &cl[KEPT_L + t - CL_L] : NULL;
    }
    for (int t = 0; t < CL_COUNT; t++) {
        want |= to[t] ? 1u << t : 0;
    }
    if (!job->classes) {
        CZ_TRY(err, classes_build(own.v, job->asg, want, pool, dg), done);
    }
    for (int t = 0; t < CL_COUNT; t++) {
        if (to[t]) {
            *to[t] = c->v[t];
            memset(&c->v[t], 0, sizeof(c->v[t]));
        }
        gpu_fr_classes_clear(&c->v[t]);
    }
done:
    return err;
}

/* [inputs | aux] into dz from its classes zc (not dense): the class words and the others staged
 * in dc, then expanded; *done false when they are dense or do not fit in dc (the caller then
 * uploads z dense). */
static cuzk_err z_from_classes(gpu_params_impl *g, const gpu_fr_classes *zc, bool *done,
                               cz_pool *pool, cz_diag *dg)
{
    const size_t words = gpu_fr_classes_words(zc->n);
    const size_t oth_off = (words * sizeof(uint64_t) + 31) / 32 * 32;
    upload_t u[2] = {
        {.dst = g->dc, .src = (const uint8_t *)zc->map, .len = words * sizeof(uint64_t)},
        {.dst = g->dc,
         .off = oth_off,
         .src = (const uint8_t *)zc->oth,
         .len = zc->n_oth * sizeof(fr_t)}};
    cuzk_err err = CUZK_OK;

    *done = false;
    if (zc->dense || zc->n == 0 || oth_off + zc->n_oth * sizeof(fr_t) > gpu_buf_len(g->dc)) {
        return CUZK_OK;
    }
    CZ_TRY(err, ring_push(&g->ring, u, zc->n_oth ? 2 : 1, SIZE_MAX, pool, dg), out);
    CZ_TRY(err, ring_drain(&g->ring, dg), out);
    CZ_TRY(err,
           gpu_fr_expand_buf(g->dev, g->dz, 0, g->dc, 0, words, oth_off, zc->n_oth, 0, 0, zc->n,
                             &FR_ONE, dg),
           out);
    *done = true;
out:
    return err;
}

/* The MSM of section sec over the count scalars at byte soff of sc, or, for a streamed section
 * of a group's proof (keep not NULL), the scalars copied into keep for the group's pass. */
static cuzk_err msm_or_keep(gpu_params_impl *g, unsigned sec, void *out, const gpu_buf *sc,
                            size_t soff, size_t count, fr_t *keep, const g16_prove_opts_t *opts,
                            cz_pool *pool, cz_diag *dg)
{
    if (keep && (g->stream_mask & (1u << sec))) {
        return gpu_buf_download(keep, sc, soff, count * sizeof(fr_t), dg);
    }
    return msm_sec(g, sec, out, sc, soff, count, opts, pool, dg);
}

/* The five MSMs (4.6) of a proof whose h is in da and [inputs | aux] in dz; cmp receives the
 * compacted A / B scalars. With keep (a group's proof) the streamed sections are left to the
 * group's passes: h is copied to the host, the others' scalars are the kept classes. */
static cuzk_err prove_msms(gpu_params_impl *g, g16_sums_t *sums, gpu_buf *cmp, size_t a_cnt,
                           size_t b_cnt, const g16_prove_opts_t *opts, g16_prove_stats_t *st,
                           const kept_sc *keep, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t nz = g->ni + g->na;
    const unsigned bs = (1u << G16_SEC_B_G1) | (1u << G16_SEC_B_G2);
    double t = g16_now_ms();

    CZ_TRY(err,
           msm_or_keep(g, G16_SEC_H, &sums->h, g->da, 0, g->n - 1, keep ? keep->h : NULL, opts,
                       pool, dg),
           done);
    st->msm_h_ms = g16_stage_end(opts, "msm_h", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    if (!keep || !(g->stream_mask & (1u << G16_SEC_L))) {
        CZ_TRY(err,
               msm_sec(g, G16_SEC_L, &sums->l, g->dz, g->ni * sizeof(fr_t), g->na, opts, pool, dg),
               done);
    }
    st->msm_l_ms = g16_stage_end(opts, "msm_l", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    if (!keep || !(g->stream_mask & (1u << G16_SEC_A))) {
        CZ_TRY(err, gpu_fr_compact_buf(g->dev, cmp, 0, g->dz, 0, g->dmap_a, 0, nz, a_cnt, dg),
               done);
        CZ_TRY(err, msm_sec(g, G16_SEC_A, &sums->a, cmp, 0, a_cnt, opts, pool, dg), done);
    }
    st->msm_a_ms = g16_stage_end(opts, "msm_a", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    if (!keep || (g->stream_mask & bs) != bs) {
        CZ_TRY(err, gpu_fr_compact_buf(g->dev, cmp, 0, g->dz, 0, g->dmap_b, 0, nz, b_cnt, dg),
               done);
    }
    if (!keep || !(g->stream_mask & (1u << G16_SEC_B_G1))) {
        CZ_TRY(err, msm_sec(g, G16_SEC_B_G1, &sums->b1, cmp, 0, b_cnt, opts, pool, dg), done);
    }
    st->msm_b_g1_ms = g16_stage_end(opts, "msm_b_g1", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    if (!keep || !(g->stream_mask & (1u << G16_SEC_B_G2))) {
        CZ_TRY(err, msm_sec(g, G16_SEC_B_G2, &sums->b2, cmp, 0, b_cnt, opts, pool, dg), done);
    }
    st->msm_b_g2_ms = g16_stage_end(opts, "msm_b_g2", t);
done:
    return err;
}

/* Uploads the m values of host vector v (a, b or c) into dst through the ring and waits for
 * them; with job->take the vector is freed once staged. */
static cuzk_err push_abc(gpu_params_impl *g, g16_prove_job_t *job, int k, gpu_buf *dst,
                         cz_pool *pool, cz_diag *dg)
{
    upload_t u = {
        .dst = dst, .src = (const uint8_t *)job->abc[k], .len = job->asg->m * sizeof(fr_t)};
    cuzk_err err = ring_push(&g->ring, &u, 1, SIZE_MAX, pool, dg);

    if (job->take) {
        cz_free(job->abc[k]); /* staged: the ring no longer reads it */
        job->abc[k] = NULL;
    }
    return err;
}

/* The prep stage after the quotient: what is left of [inputs | aux] (z) uploaded and waited for. */
static cuzk_err push_z_rest(gpu_params_impl *g, upload_t z[2], const g16_prove_opts_t *opts,
                            g16_prove_stats_t *st, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    double t = g16_now_ms();

    CZ_TRY(err, ring_push(&g->ring, z, 2, SIZE_MAX, pool, dg), done);
    CZ_TRY(err, ring_drain(&g->ring, dg), done);
    st->prep_ms += g16_stage_end(opts, "prep", t);
done:
    return err;
}

/* a (k = 0), b or c (2) into dst: from the host through the ring, or from the device shape. */
static cuzk_err lean_vec(gpu_params_impl *g, g16_prove_job_t *job, int k, gpu_buf *dst,
                         const g16_gpu_shape *shp, cz_pool *pool, cz_diag *dg)
{
    if (shp) {
        return gpu_spmv_buf(g->dev, dst, 0, shp->m[k], g->dz, 0, g->ni + g->na, dg);
    }
    return push_abc(g, job, k, dst, pool, dg);
}

/* prep and quotient of the lean layouts (lean_buffers): A -> da, B -> db, A B on the coset in
 * da, then C -> db and h in da. A, B, C come from the host, or with a device shape (lean_own_z)
 * from [inputs | aux], uploaded first into dz; without lean_own_z [inputs | aux] goes into db
 * (dz is db) after the quotient. */
static cuzk_err prove_lean_front(gpu_params_impl *g, g16_prove_job_t *job, size_t *a_cnt,
                                 size_t *b_cnt, cz_pool *pool, cz_diag *dg)
{
    const cs_assignment_t *asg = job->asg;
    const g16_prove_opts_t *opts = job->opts;
    const g16_gpu_shape *shp = opts ? opts->gpu_shape : NULL;
    g16_prove_stats_t *st = job->st;
    cuzk_err err = CUZK_OK;
    bool top_zero = false;
    upload_t z[2];
    double t;

    if (shp && !g->lean_z) {
        return cz_fail(dg, CUZK_E_INVAL, "a device shape with the two-buffer layout");
    }
    CZ_CHECK(!shp || (shp->g == g && shp->rows == asg->m));
    z_uploads(z, g, g->dz, asg);
    CZ_TRY(err, ring_drain(&g->ring, dg), done); /* anything a failed proof left in flight */
    if (g->lean_z) {
        CZ_TRY(err, ring_push(&g->ring, z, 2, SIZE_MAX, pool, dg), done);
    }
    CZ_TRY(err, upload_maps(g, asg, a_cnt, b_cnt, dg), done);
    CZ_TRY(err, ring_drain(&g->ring, dg), done);
    CZ_TRY(err, lean_vec(g, job, 0, g->da, shp, pool, dg), done);
    CZ_TRY(err, lean_vec(g, job, 1, g->db, shp, pool, dg), done);
    CZ_TRY(err, ring_drain(&g->ring, dg), done);
    st->prep_ms = g16_stage_end(opts, "prep", job->t0);

    t = g16_now_ms();
    CZ_TRY(err, gpu_quotient_ab_buf(g->dev, g->da, g->db, asg->m, g->lg, dg), done);
    CZ_TRY(err, lean_vec(g, job, 2, g->db, shp, pool, dg), done);
    CZ_TRY(err, ring_drain(&g->ring, dg), done);
    CZ_TRY(err, gpu_quotient_finish_buf(g->dev, &top_zero, g->da, g->db, asg->m, g->lg, dg), done);
    CZ_TRY(err, check_top(top_zero, dg), done);
    st->quotient_ms = g16_stage_end(opts, "quotient", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    if (!g->lean_z) {
        CZ_TRY(err, push_z_rest(g, z, opts, st, pool, dg), done);
    }
done:
    return err;
}

/* prep, products and quotient of the three-buffer layout: a, b, c (or, with a shape, all of
 * [inputs | aux] and the products on the device), the maps, and [inputs | aux] around the
 * quotient so that its transfer overlaps it. */
static cuzk_err prove_front(gpu_params_impl *g, g16_prove_job_t *job, const gpu_fr_classes *zc,
                            size_t *a_cnt, size_t *b_cnt, cz_pool *pool, cz_diag *dg)
{
    const cs_assignment_t *asg = job->asg;
    const g16_prove_opts_t *opts = job->opts;
    g16_prove_stats_t *st = job->st;
    const g16_gpu_shape *shp = opts ? opts->gpu_shape : NULL;
    gpu_buf *abc_dst[3] = {g->da, g->db, g->dc};
    cuzk_err err = CUZK_OK;
    bool top_zero = false;
    upload_t z[2];
    double t;

    z_uploads(z, g, g->dz, asg);
    if (use_taken(g, asg, opts)) {
        z[0].done = z[0].len; /* on the device already: the ring skips finished uploads */
        z[1].done = z[1].len;
    }
    CZ_TRY(err, ring_drain(&g->ring, dg), done); /* anything a failed proof left in flight */
    if (shp) {
        bool sent = false;
        CZ_CHECK(shp->g == g && shp->rows == asg->m);
        if (zc && z[0].done == 0) {
            CZ_TRY(err, z_from_classes(g, zc, &sent, pool, dg), done);
        }
        for (int k = 0; sent && k < 2; k++) {
            z[k].done = z[k].len;
        }
        CZ_TRY(err, ring_push(&g->ring, z, 2, SIZE_MAX, pool, dg), done); /* products read z */
    }
    for (int k = 0; !shp && k < 3; k++) {
        CZ_TRY(err, push_abc(g, job, k, abc_dst[k], pool, dg), done);
    }
    CZ_TRY(err, upload_maps(g, asg, a_cnt, b_cnt, dg), done);
    CZ_TRY(err, ring_drain(&g->ring, dg), done); /* the quotient reads a, b, c (or z) */
    CZ_TRY(err, ring_push(&g->ring, z, 2, g->ring.slots, pool, dg), done);
    st->prep_ms = g16_stage_end(opts, "prep", job->t0);

    if (shp) {
        t = g16_now_ms();
        for (int k = 0; k < 3; k++) {
            CZ_TRY(err, gpu_spmv_buf(g->dev, abc_dst[k], 0, shp->m[k], g->dz, 0, g->ni + g->na, dg),
                   done);
        }
        st->prep_ms += g16_stage_end(opts, "products", t);
    }

    t = g16_now_ms();
    CZ_TRY(err, gpu_quotient_h_buf(g->dev, &top_zero, g->da, g->db, g->dc, asg->m, g->lg, dg),
           done);
    CZ_TRY(err, check_top(top_zero, dg), done);
    st->quotient_ms = g16_stage_end(opts, "quotient", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    CZ_TRY(err, push_z_rest(g, z, opts, st, pool, dg), done);
done:
    return err;
}

/* The front (prep, products, quotient) and the MSMs of one proof (prove_msms' keep). */
static cuzk_err prove_part(gpu_params_impl *g, g16_prove_job_t *job, g16_sums_t *sums,
                           const kept_sc *keep, cz_pool *pool, cz_diag *dg)
{
    const cs_assignment_t *asg = job->asg;
    cuzk_err err = CUZK_OK;
    /* the compacted scalars: their own buffer, or b's (free after the quotient), or, in the
     * two-buffer layout, a's (free after msm_h: b holds [inputs | aux]) */
    gpu_buf *cmp = g->dcmp ? g->dcmp : g->lean && !g->lean_z ? g->da : g->db;
    size_t a_cnt = 0, b_cnt = 0;
    /* streamed, with a device shape: [inputs | aux] crosses as classes too */
    const bool zcl = g->stream_mask && !g->lean && job->opts && job->opts->gpu_shape;
    gpu_fr_classes zc = {0};

    /* prover.c checked the shape against p, the object's parameters */
    CZ_CHECK(job->lg == g->lg && asg->num_inputs == g->ni && asg->num_aux == g->na);
    CZ_CHECK(asg->m <= g->n);
    if (keep || zcl) { /* the maps first: the classes of A and B follow them */
        CZ_TRY(err, upload_maps(g, asg, &a_cnt, &b_cnt, dg), done);
        CZ_TRY(err, part_classes(g, job, zcl ? &zc : NULL, keep ? keep->cl : NULL, pool, dg), done);
    }
    if (g->lean) {
        CZ_TRY(err, prove_lean_front(g, job, &a_cnt, &b_cnt, pool, dg), done);
    } else {
        CZ_TRY(err, prove_front(g, job, zcl ? &zc : NULL, &a_cnt, &b_cnt, pool, dg), done);
    }
    gpu_fr_classes_clear(&zc);
    /* popcounts checked by prover.c */
    CZ_CHECK(a_cnt == g->head.params->a_len && b_cnt == g->head.params->b_g1_len);
    err = prove_msms(g, sums, cmp, a_cnt, b_cnt, job->opts, job->st, keep, pool, dg);
done:
    gpu_fr_classes_clear(&zc);
    if (job->take) {
        for (int k = 0; k < 3; k++) {
            cz_free(job->abc[k]);
            job->abc[k] = NULL;
        }
    }
    return err;
}

static cuzk_err gpu_prove(g16_gpu_params *gp, g16_prove_job_t *job, cz_pool *pool, cz_diag *dg)
{
    gpu_params_impl *g = (gpu_params_impl *)gp;
    g16_sums_t sums;
    const uint64_t h2d0 = gpu_dev_h2d_bytes(g->dev);
    cuzk_err err = prove_part(g, job, &sums, NULL, pool, dg);

    if (err == CUZK_OK) { /* ---- assembly (4.7) ---- */
        double t = g16_now_ms();
        g16_prove_assemble(gp->params, job->out, &sums, job->r, job->s);
        job->st->assemble_ms = g16_stage_end(job->opts, "assemble", t);
    } else {
        /* leave no transfer in flight; the first error is the one reported */
        cuzk_err e2 = ring_drain(&g->ring, NULL);
        (void)e2;
    }
    job->st->h2d_bytes = gpu_dev_h2d_bytes(g->dev) - h2d0;
    return err;
}

/* Values kept in page-locked memory per proof of a group: h, when streamed (kept_sc). */
static size_t kept_values(const gpu_params_impl *g)
{
    return g->stream_mask & (1u << G16_SEC_H) ? g->n - 1 : 0;
}

/* Proof j's slot of the object's kept area (j % kept_h: a group's h passes run for every kept_h
 * proofs) and its classes cl (KEPT_COUNT of them). */
static kept_sc kept_of(const gpu_params_impl *g, size_t j, gpu_fr_classes *cl)
{
    kept_sc k = {.cl = cl};

    if (g->stream_mask & (1u << G16_SEC_H)) {
        k.h = g->kept + (j % g->kept_h) * kept_values(g);
    }
    return k;
}

/* Host bytes of a proof's kept classes. */
static uint64_t classes_bytes(const gpu_fr_classes *cl)
{
    uint64_t n = 0;

    for (int t = 0; t < KEPT_COUNT; t++) {
        n += one_classes_bytes(&cl[t]);
    }
    return n;
}

/* The passes of the streamed sections in secs for proofs [from, to) of a group: each once for
 * all of them, h from the kept area, the others from the proofs' classes cl[j]. */
static cuzk_err group_passes(gpu_params_impl *g, g16_prove_job_t *jobs, size_t from, size_t to,
                             unsigned secs, g16_sums_t *sums, gpu_fr_classes (*cl)[KEPT_COUNT],
                             cz_pool *pool, cz_diag *dg)
{
    static const char *const stage[G16_SEC_COUNT] = {"msm_h", "msm_l", "msm_a", "msm_b_g1",
                                                     "msm_b_g2"};
    const g16_params_t *p = g->head.params;
    const size_t len[G16_SEC_COUNT] = {g->n - 1, g->na, p->a_len, p->b_g1_len, p->b_g2_len};
    const g16_prove_opts_t *opts = jobs[from].opts;
    const size_t cnt = to - from;
    cuzk_err err = CUZK_OK;

    for (unsigned sec = 0; sec < G16_SEC_COUNT; sec++) {
        pass_src src[G16_GPU_MAX_SHARE];
        g1_t o1[G16_GPU_MAX_SHARE];
        g2_t o2[G16_GPU_MAX_SHARE];
        double t = g16_now_ms();

        if (!(g->stream_mask & secs & (1u << sec))) {
            continue;
        }
        for (size_t j = from; j < to; j++) {
            const int slot[G16_SEC_COUNT] = {-1, KEPT_L, KEPT_A, KEPT_B, KEPT_B};
            src[j - from] = sec == G16_SEC_H
                                ? (pass_src){.host = kept_of(g, j, NULL).h, .pinned = true}
                                : (pass_src){.cl = &cl[j][slot[sec]]};
        }
        void *outs = sec == G16_SEC_B_G2 ? (void *)o2 : (void *)o1;
        CZ_TRY(err, msm_pass(g, sec, outs, src, cnt, len[sec], opts, pool, dg), done);
        double ms = g16_stage_end(opts, stage[sec], t);
        for (size_t j = from; j < to; j++) {
            g1_t *dst1[G16_SEC_COUNT] = {&sums[j].h, &sums[j].l, &sums[j].a, &sums[j].b1, NULL};
            double *st[G16_SEC_COUNT] = {&jobs[j].st->msm_h_ms, &jobs[j].st->msm_l_ms,
                                         &jobs[j].st->msm_a_ms, &jobs[j].st->msm_b_g1_ms,
                                         &jobs[j].st->msm_b_g2_ms};
            if (sec == G16_SEC_B_G2) {
                sums[j].b2 = o2[j - from];
            } else {
                *dst1[sec] = o1[j - from];
            }
            *st[sec] += ms;
        }
    }
done:
    return err;
}

/* Proofs of a group one by one (no shared pass). */
static cuzk_err group_alone(g16_gpu_params *gp, g16_group_t *grp, size_t *j, cz_pool *pool,
                            cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    for (; *j < grp->count && err == CUZK_OK; (*j)++) {
        err = gpu_prove(gp, &grp->jobs[*j], pool, dg);
    }
    return err;
}

/* The fronts of a group's proofs as they come (grp->more asked once every proof given has had
 * its front), each proof's streamed scalars kept on the host; h's pass for every kept_h of
 * them; *j: the fronts done or failed (their a, b, c freed). */
static cuzk_err group_fronts(gpu_params_impl *g, g16_group_t *grp, g16_sums_t *sums,
                             gpu_fr_classes (*cl)[KEPT_COUNT], size_t *j, cz_pool *pool,
                             cz_diag *dg)
{
    const unsigned h = 1u << G16_SEC_H;
    size_t hs = 0; /* the first proof whose h waits for its pass */
    cuzk_err err = CUZK_OK;

    for (;;) {
        if (*j == grp->count && grp->more && grp->count < g->share_max) {
            CZ_TRY(err, grp->more(grp, g->share_max, dg), done);
        }
        if (*j == grp->count) {
            break;
        }
        kept_sc k = kept_of(g, *j, cl[*j]);
        if (*j > 0) { /* its "prep" starts now, not with the group */
            grp->jobs[*j].t0 = g16_now_ms();
        }
        err = prove_part(g, &grp->jobs[*j], &sums[*j], &k, pool, dg);
        (*j)++; /* done or failed, its a, b, c are freed */
        if (err != CUZK_OK) {
            goto done;
        }
        if (grp->front_done) {
            grp->front_done(grp, *j - 1, classes_bytes(cl[*j - 1]));
        }
        if (*j - hs == g->kept_h) {
            CZ_TRY(err, group_passes(g, grp->jobs, hs, *j, h, sums, cl, pool, dg), done);
            hs = *j;
        }
    }
    if (hs < *j) {
        CZ_TRY(err, group_passes(g, grp->jobs, hs, *j, h, sums, cl, pool, dg), done);
    }
done:
    return err;
}

/* A group's proofs (1 .. share_max) sharing each pass over the streamed points: their fronts and
 * resident MSMs in turn, h's passes as the kept area fills (group_fronts), then one pass per
 * other streamed section for all of them; the proofs are each what gpu_prove makes. */
static cuzk_err gpu_prove_group(g16_gpu_params *gp, g16_group_t *grp, cz_pool *pool, cz_diag *dg)
{
    gpu_params_impl *g = (gpu_params_impl *)gp;
    g16_prove_job_t *jobs = grp->jobs;
    g16_sums_t sums[G16_GPU_MAX_SHARE];
    gpu_fr_classes cl[G16_GPU_MAX_SHARE][KEPT_COUNT];
    const uint64_t h2d0 = gpu_dev_h2d_bytes(g->dev);
    cuzk_err err = CUZK_OK;
    size_t j = 0;

    memset(cl, 0, sizeof(cl));
    if (!g->stream_mask || g->share_max < 2 || (grp->count == 1 && !grp->more)) {
        err = group_alone(gp, grp, &j, pool, dg);
        goto free_rest;
    }
    CZ_CHECK(grp->count <= g->share_max);
    CZ_TRY(err, group_fronts(g, grp, sums, cl, &j, pool, dg), done);
    CZ_TRY(err,
           group_passes(g, jobs, 0, grp->count, G16_GPU_STREAM_ALL & ~(1u << G16_SEC_H), sums, cl,
                        pool, dg),
           done);
    for (size_t i = 0; i < grp->count; i++) { /* ---- assembly (4.7) ---- */
        double t = g16_now_ms();
        g16_prove_assemble(gp->params, jobs[i].out, &sums[i], jobs[i].r, jobs[i].s);
        jobs[i].st->assemble_ms = g16_stage_end(jobs[i].opts, "assemble", t);
    }
done:
    if (err != CUZK_OK) {
        cuzk_err e2 = ring_drain(&g->ring, NULL); /* no transfer left in flight */
        (void)e2;
    }
    for (size_t i = 0; i < grp->count; i++) { /* the group's bytes, shared evenly */
        jobs[i].st->h2d_bytes = (gpu_dev_h2d_bytes(g->dev) - h2d0) / grp->count;
        for (int t = 0; t < KEPT_COUNT; t++) {
            gpu_fr_classes_clear(&cl[i][t]);
        }
    }
free_rest:
    for (; j < grp->count; j++) {
        for (int k = 0; jobs[j].take && k < 3; k++) {
            cz_free(jobs[j].abc[k]);
            jobs[j].abc[k] = NULL;
        }
    }
    return err;
}

/* ---- creation ------------------------------------------------------------------------------- */

/* Where a vector of bases comes from: decoded host points, or section `sec` of a .params file
 * (its first point at byte off), decoded into the pinned slots. */
typedef struct point_src {
    const void *points; /* or NULL: from the file */
    const uint8_t *file;
    uint8_t *raw; /* with pread: a slot of encoded points read from fd */
    int fd;
    size_t off;
    unsigned sec;
    const g16_load_opts_t *lo;
} point_src;

/* Uploads count points into bases (G1 or G2) through the ring's slots: the pool copies the host
 * points (or decodes the file's) into pinned memory while the device pulls the previous slots
 * at the pinned rate. */
static cuzk_err upload_bases(gpu_params_impl *g, gpu_msm_bases *b, bool g2, const point_src *src,
                             size_t count, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t elem = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
    const size_t per = g->ring.slot_bytes / elem;
    ring_t *rg = &g->ring;

    for (size_t first = 0; first < count; first += per) {
        size_t k = count - first < per ? count - first : per;
        unsigned sl = 0;
        uint8_t *slot;

        CZ_TRY(err, ring_slot(rg, &sl, dg), done);
        slot = rg->host + (size_t)sl * rg->slot_bytes;
        if (src->points) {
            pool_copy(slot, (const uint8_t *)src->points + first * elem, k * elem, pool);
        } else if (src->raw) {
            CZ_TRY(err,
                   g16_params_read_range(slot, src->raw, src->fd, src->off, src->sec, first, k,
                                         src->lo, pool, dg),
                   done);
        } else {
            CZ_TRY(err,
                   g16_params_decode_range(slot, src->file, src->off, src->sec, first, k, src->lo,
                                           pool, dg),
                   done);
        }
        if (g2) {
            CZ_TRY(
                err,
                gpu_msm_bases_upload_g2(b, first, (const struct g2_aff *)(const void *)slot, k, dg),
                done);
        } else {
            CZ_TRY(
                err,
                gpu_msm_bases_upload_g1(b, first, (const struct g1_aff *)(const void *)slot, k, dg),
                done);
        }
    }
done:
    return err;
}

/* A device buffer of len bytes, counted in dev_bytes; dg names `what` when memory runs out. */
static cuzk_err dev_buf(gpu_params_impl *g, gpu_buf **out, size_t len, const char *what,
                        cz_diag *dg)
{
    cuzk_err err = gpu_buf_new(out, g->dev, len, dg);
    if (err == CUZK_E_NOMEM) {
        return cz_fail(dg, err, "device memory for %s (%zu bytes)", what, len);
    }
    if (err == CUZK_OK) {
        g->dev_bytes += len;
    }
    return err;
}

static cuzk_err dev_bases(gpu_params_impl *g, gpu_msm_bases **out, bool g2, const point_src *src,
                          size_t count, const char *what, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = g2 ? gpu_msm_bases_new_g2(out, g->dev, count, dg)
                      : gpu_msm_bases_new_g1(out, g->dev, count, dg);
    if (err == CUZK_E_NOMEM) {
        return cz_fail(dg, err, "device memory for the %s bases (%zu points)", what, count);
    }
    if (err != CUZK_OK) {
        return err;
    }
    g->dev_bytes += count * (g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t));
    return upload_bases(g, *out, g2, src, count, pool, dg);
}

static cuzk_err pinned(gpu_params_impl *g, void **out, size_t len, const char *what, cz_diag *dg)
{
    cuzk_err err = gpu_host_alloc(out, len, dg);
    if (err == CUZK_E_NOMEM) {
        return cz_fail(dg, err, "pinned memory for %s (%zu bytes)", what, len);
    }
    if (err == CUZK_OK) {
        g->pinned_bytes += len;
    }
    return err;
}

/* The spare [inputs | aux] and its ring (spare_assignment). Out of device or pinned memory the
 * object goes without: staging is an optimization, the proofs upload as before. */
static cuzk_err spare_new(gpu_params_impl *g, size_t slot_bytes, unsigned slots, cz_diag *dg)
{
    const size_t ring_bytes = slot_bytes * slots;
    void *mem = NULL;
    cz_diag sdg;
    cuzk_err err;

    cz_diag_init(&sdg);
    CZ_TRY(err, ring_init(&g->stage_ring, g->dev, slot_bytes, slots, &sdg), done);
    CZ_TRY(err, pinned(g, &mem, ring_bytes, "the spare's staging ring", &sdg), done);
    g->stage_ring.host = mem;
    CZ_TRY(
        err,
        dev_buf(g, &g->dz_spare, (g->ni + g->na) * sizeof(fr_t), "the spare inputs and aux", &sdg),
        done);
done:
    if (err == CUZK_E_NOMEM) {
        g->pinned_bytes -= g->stage_ring.host ? ring_bytes : 0;
        ring_clear(&g->stage_ring);
        err = CUZK_OK;
    } else if (err != CUZK_OK) {
        err = cz_fail(dg, err, "%s", sdg.msg);
    }
    return err;
}

/* Page-locking of a g16_params_t's points, counted (p->pins) so that several objects, on one
 * device or several, share it: the first pins, the last unpins. pin_mu guards every p->pins. */
static pthread_mutex_t pin_mu = PTHREAD_MUTEX_INITIALIZER;

static bool pin_params(g16_params_t *p)
{
    bool ok = true;

    pthread_mutex_lock(&pin_mu);
    if (p->pins == 0) {
        ok = gpu_host_register(p->store.ptr, p->store.len, NULL) == CUZK_OK;
    }
    p->pins += ok;
    pthread_mutex_unlock(&pin_mu);
    return ok;
}

static void unpin_params(g16_params_t *p)
{
    pthread_mutex_lock(&pin_mu);
    if (--p->pins == 0) {
        gpu_host_unregister(p->store.ptr);
    }
    pthread_mutex_unlock(&pin_mu);
}

/* The largest streamed section's bytes. */
static size_t streamed_most(const gpu_params_impl *g)
{
    const g16_params_t *p = g->head.params;
    const size_t len[G16_SEC_COUNT] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    size_t most = 0;

    for (unsigned s = 0; s < G16_SEC_COUNT; s++) {
        if ((g->stream_mask & (1u << s)) && len[s] * sec_elem(s) > most) {
            most = len[s] * sec_elem(s);
        }
    }
    return most;
}

/* The two chunk buffers, their stream and events, and the pinning of the host points. */
static cuzk_err stream_new(gpu_params_impl *g, size_t bytes, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t most = streamed_most(g);

    if (bytes == 0) {
        bytes = most < G16_GPU_STREAM_BYTES_DEFAULT ? most : G16_GPU_STREAM_BYTES_DEFAULT;
    }
    bytes = bytes < sizeof(g2_aff_t) ? sizeof(g2_aff_t) : bytes;
    bytes = (bytes + 255) & ~(size_t)255;
    g->chunk_bytes = bytes;
    CZ_TRY(err, gpu_stream_new(&g->cs, g->dev, dg), done);
    for (int b = 0; b < 2; b++) {
        CZ_TRY(err, gpu_event_new(&g->cev[b], g->dev, dg), done);
        CZ_TRY(err, dev_buf(g, &g->chunk[b], bytes, "a chunk of streamed points", dg), done);
    }
    /* without page-locked points the chunks go through the staging ring (slower, same result) */
    g->pinned = pin_params((g16_params_t *)g->head.params);
done:
    return err;
}

/* The proofs whose h the kept area holds (g16_gpu_opts_t.kept_h: 0 or more = share_max). */
static unsigned kept_proofs(unsigned share_max, unsigned kept_h)
{
    return kept_h && kept_h < share_max ? kept_h : share_max;
}

/* With share_max > 1: the scalar chunk buffers of the group's passes, their events and the
 * pinned area of the kept scalars. */
static cuzk_err share_new(gpu_params_impl *g, unsigned share_max, unsigned kept_h, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t sb = share_chunk_bytes(g->chunk_bytes);

    if (share_max > G16_GPU_MAX_SHARE) {
        return cz_fail(dg, CUZK_E_INVAL, "%u proofs sharing a pass (at most %u)", share_max,
                       (unsigned)G16_GPU_MAX_SHARE);
    }
    if (share_max < 2 || !g->stream_mask) {
        return CUZK_OK;
    }
    g->share_max = share_max;
    g->kept_h = kept_proofs(share_max, kept_h);
    g->head.share_max = share_max;
    for (int b = 0; b < 2; b++) {
        CZ_TRY(err, gpu_event_new(&g->sev[b], g->dev, dg), done);
        for (unsigned j = 0; j < share_max; j++) {
            CZ_TRY(err, dev_buf(g, &g->sbuf[b][j], sb, "a chunk of streamed scalars", dg), done);
        }
    }
    if (kept_values(g)) {
        CZ_TRY(err,
               pinned(g, (void **)&g->kept, g->kept_h * kept_values(g) * sizeof(fr_t),
                      "the scalars kept for shared passes", dg),
               done);
    }
done:
    return err;
}

static void share_clear(gpu_params_impl *g)
{
    for (int b = 0; b < 2; b++) {
        gpu_event_free(g->sev[b]);
        for (unsigned j = 0; j < G16_GPU_MAX_SHARE; j++) {
            gpu_buf_free(g->sbuf[b][j]);
        }
    }
    gpu_host_free(g->kept);
}

static void stream_clear(gpu_params_impl *g)
{
    gpu_stream_free(g->cs); /* waits for its uploads first */
    for (int b = 0; b < 2; b++) {
        gpu_event_free(g->cev[b]);
        gpu_buf_free(g->chunk[b]);
    }
    if (g->pinned) {
        unpin_params((g16_params_t *)g->head.params);
    }
    g->cs = NULL;
    g->pinned = false;
}

/* The staging ring's slots for p under opts: the default slot, or less for a small circuit (one
 * slot holds its largest vector of Fr), rounded up to 256 bytes. False when out of range. */
static bool stage_slots(const g16_params_t *p, const g16_gpu_opts_t *opts, size_t *slot_bytes,
                        unsigned *slots)
{
    const size_t n = p->h_len + 1;
    size_t sb = opts && opts->stage_bytes ? opts->stage_bytes : 0;

    *slots = opts && opts->stage_slots ? opts->stage_slots : STAGE_SLOTS_DEFAULT;
    if (sb == 0) {
        size_t most = (n > p->vk.ic_len + p->l_len ? n : p->vk.ic_len + p->l_len) * sizeof(fr_t);
        sb = most < STAGE_BYTES_DEFAULT ? most : STAGE_BYTES_DEFAULT;
        sb = sb < STAGE_BYTES_MIN ? STAGE_BYTES_MIN : sb;
    }
    *slot_bytes = (sb + 255) & ~(size_t)255;
    return sb >= STAGE_BYTES_MIN && sb <= STAGE_BYTES_MAX && *slots >= 2 &&
           *slots <= G16_GPU_MAX_SLOTS;
}

size_t g16_gpu_params_pinned_plan(const g16_params_t *p, const g16_gpu_opts_t *opts)
{
    const unsigned mask = opts ? opts->stream_sections & ((1u << G16_SEC_COUNT) - 1) : 0;
    const size_t nz = p->vk.ic_len + p->l_len;
    size_t slot_bytes, b;
    unsigned slots;

    if (!stage_slots(p, opts, &slot_bytes, &slots)) {
        return 0;
    }
    b = slot_bytes * slots + 2 * gpu_compact_map_sizeof(nz);
    if (mask && opts->share_max >= 2 && (mask & (1u << G16_SEC_H))) {
        b += kept_proofs(opts->share_max, opts->kept_h) * p->h_len * sizeof(fr_t);
    }
    if (opts && opts->spare_assignment && !opts->lean_buffers) {
        b += slot_bytes * slots;
    }
    return b;
}

cuzk_err g16_gpu_params_new(g16_gpu_params **out, const g16_params_t *p, struct gpu_dev *dev,
                            const g16_gpu_opts_t *opts, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_params_impl *g = NULL;
    size_t slot_bytes;
    unsigned slots;
    size_t n = p->h_len + 1, nz;
    unsigned lg = 0;
    void *ring_mem = NULL;

    const g16_load_opts_t lo = {.release_input = opts && opts->release_file};
    const bool from_file = !g16_params_has_points(p);
    size_t off[G16_SEC_COUNT] = {0};
    uint8_t *raw = NULL;

    CZ_CHECK(p != NULL && dev != NULL);
    *out = NULL;
    if (from_file && !(opts && opts->file)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters without their points (dropped): restore "
                       "them, or name their file, to make them resident");
    }
    if (!stage_slots(p, opts, &slot_bytes, &slots)) {
        return cz_fail(dg, CUZK_E_INVAL, "GPU staging of %u slots of %zu bytes", slots, slot_bytes);
    }
    while (lg < 63 && ((size_t)1 << lg) < n) {
        lg++;
    }
    if (((size_t)1 << lg) != n || p->a_len < p->vk.ic_len || p->b_g1_len != p->b_g2_len) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "parameters unfit for the GPU prover: h_len %zu, a_len %zu < ic_len %zu "
                       "or b_g1_len %zu != b_g2_len %zu",
                       p->h_len, p->a_len, p->vk.ic_len, p->b_g1_len, p->b_g2_len);
    }
    g = cz_calloc(1, sizeof(*g));
    if (!g) {
        return cz_fail(dg, CUZK_E_NOMEM, "g16_gpu_params");
    }
    pthread_mutex_init(&g->stage_mu, NULL);
    g->head.params = p;
    g->head.prove = gpu_prove;
    g->head.prove_group = gpu_prove_group;
    g->head.share_max = 1;
    g->dev = dev;
    g->lg = lg;
    g->n = n;
    g->ni = p->vk.ic_len;
    g->na = p->l_len;
    nz = g->ni + g->na;
    g->cmp_len = p->a_len > p->b_g1_len ? p->a_len : p->b_g1_len;
    g->stream_mask = opts ? opts->stream_sections & ((1u << G16_SEC_COUNT) - 1) : 0;
    if (g->stream_mask && from_file) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "streamed sections need the host points (restore them to stream)");
        goto done;
    }
    g->lean = opts && opts->lean_buffers;
    g->lean_z = g->lean && opts->lean_own_z;
    if (g->lean && ((nz > n && !g->lean_z) || g->cmp_len > n || lg < 3)) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "two-buffer layout for %zu inputs and aux, %zu compacted scalars and a "
                      "domain of %zu (each at most the domain, from 8)",
                      nz, g->cmp_len, n);
        goto done;
    }

    if (from_file) {
        CZ_TRY(err, g16_params_file_sections(p, opts->file, opts->file_len, off, dg), done);
        if (opts->file_pread && !(raw = cz_malloc(slot_bytes))) {
            err = cz_fail(dg, CUZK_E_NOMEM, "a read slot of %zu bytes", slot_bytes);
            goto done;
        }
    }
    CZ_TRY(err, ring_init(&g->ring, dev, slot_bytes, slots, dg), done);
    CZ_TRY(err, pinned(g, &ring_mem, slot_bytes * slots, "the staging ring", dg), done);
    g->ring.host = ring_mem;
    {
        const void *host[G16_SEC_COUNT] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
        const size_t len[G16_SEC_COUNT] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
        static const char *const what[G16_SEC_COUNT] = {"h", "l", "a", "b_g1", "b_g2"};
        for (unsigned s = 0; s < G16_SEC_COUNT; s++) {
            if (g->stream_mask & (1u << s)) {
                continue;
            }
            point_src src = {.points = from_file ? NULL : host[s],
                             .file = from_file ? opts->file : NULL,
                             .raw = raw,
                             .fd = raw ? opts->file_fd : -1,
                             .off = off[s],
                             .sec = s,
                             .lo = &lo};
            CZ_TRY(err,
                   dev_bases(g, &g->bases[s], s == G16_SEC_B_G2, &src, len[s], what[s], pool, dg),
                   done);
        }
    }

    CZ_TRY(err, dev_buf(g, &g->da, n * sizeof(fr_t), "a", dg), done);
    CZ_TRY(err, dev_buf(g, &g->db, n * sizeof(fr_t), "b", dg), done);
    if (g->lean_z) {
        CZ_TRY(err, dev_buf(g, &g->dz, nz * sizeof(fr_t), "the inputs and aux", dg), done);
    } else if (g->lean) {
        g->dz = g->db;
    } else {
        CZ_TRY(err, dev_buf(g, &g->dc, n * sizeof(fr_t), "c", dg), done);
        CZ_TRY(err, dev_buf(g, &g->dz, nz * sizeof(fr_t), "the inputs and aux", dg), done);
    }
    if (g->cmp_len > n) {
        CZ_TRY(err, dev_buf(g, &g->dcmp, g->cmp_len * sizeof(fr_t), "compacted scalars", dg), done);
    }
    g->map_bytes = gpu_compact_map_sizeof(nz);
    CZ_TRY(err, dev_buf(g, &g->dmap_a, g->map_bytes, "the A density map", dg), done);
    CZ_TRY(err, dev_buf(g, &g->dmap_b, g->map_bytes, "the B density map", dg), done);
    CZ_TRY(err, pinned(g, &g->map_a, g->map_bytes, "the A density map", dg), done);
    CZ_TRY(err, pinned(g, &g->map_b, g->map_bytes, "the B density map", dg), done);
    g->words = cz_malloc((nz + 63) / 64 * sizeof(uint64_t));
    if (!g->words) {
        err = cz_fail(dg, CUZK_E_NOMEM, "density words (%zu positions)", nz);
        goto done;
    }
    /* best effort: without it the maps are rebuilt for every proof */
    g->map_key = cz_malloc((2 * ((g->na + 63) / 64) + (g->ni + 63) / 64) * sizeof(uint64_t));
    if (g->stream_mask) {
        CZ_TRY(err, stream_new(g, opts->stream_bytes, dg), done);
        CZ_TRY(err, share_new(g, opts->share_max, opts->kept_h, dg), done);
    }
    if (opts && opts->spare_assignment && !g->lean) {
        CZ_TRY(err, spare_new(g, slot_bytes, slots, dg), done);
    }
    *out = &g->head;
    g = NULL; /* ownership moved to the caller */
done:
    g16_gpu_params_free(g ? &g->head : NULL); /* the ring reads only its pinned slots, never raw */
    cz_free(raw);
    return err;
}

cuzk_err g16_gpu_params_from_file(g16_gpu_params **out, const g16_params_t *p, const char *path,
                                  struct gpu_dev *dev, const g16_gpu_opts_t *opts, cz_pool *pool,
                                  cz_diag *dg)
{
    g16_gpu_opts_t o = opts ? *opts : (g16_gpu_opts_t){0};
    g16_file_t f;
    cuzk_err err;

    *out = NULL;
    CZ_TRY(err, g16_file_map(&f, path, dg), done);
    o.file = f.data;
    o.file_len = f.len;
    o.release_file = f.map != NULL;
    o.file_fd = open(path, O_RDONLY | O_CLOEXEC);
    o.file_pread = o.file_fd >= 0;
    err = g16_gpu_params_new(out, p, dev, &o, pool, dg);
    if (err != CUZK_OK) {
        g16_diag_prefix(dg, path);
    }
    if (o.file_pread) {
        close(o.file_fd);
    }
    g16_file_unmap(&f);
done:
    return err;
}

void g16_gpu_params_free(g16_gpu_params *gp)
{
    gpu_params_impl *g = (gpu_params_impl *)gp;

    if (!g) {
        return;
    }
    ring_clear(&g->ring); /* first: no transfer may still read the pinned maps */
    ring_clear(&g->stage_ring);
    share_clear(g);
    stream_clear(g);
    gpu_buf_free(g->dz_spare);
    for (unsigned s = 0; s < G16_SEC_COUNT; s++) {
        gpu_msm_bases_free(g->bases[s]);
    }
    gpu_buf_free(g->da);
    gpu_buf_free(g->db);
    gpu_buf_free(g->dc);
    gpu_buf_free(g->lean && !g->lean_z ? NULL : g->dz);
    gpu_buf_free(g->dcmp);
    gpu_buf_free(g->dmap_a);
    gpu_buf_free(g->dmap_b);
    gpu_host_free(g->map_a);
    gpu_host_free(g->map_b);
    cz_free(g->words);
    cz_free(g->map_key);
    pthread_mutex_destroy(&g->stage_mu);
    cz_free(g);
}

cuzk_err g16_gpu_stage(g16_gpu_params *gp, const cs_assignment_t *asg, cz_pool *pool, cz_diag *dg)
{
    gpu_params_impl *g = (gpu_params_impl *)gp;
    cuzk_err err = CUZK_OK;
    upload_t z[2];

    CZ_CHECK(gp != NULL && asg != NULL);
    if (!g->dz_spare) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "no spare assignment buffer (g16_gpu_opts_t.spare_assignment)");
    }
    if (asg->num_inputs != g->ni || asg->num_aux != g->na) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "staging %zu inputs and %zu aux for parameters of %zu inputs and %zu aux",
                       asg->num_inputs, asg->num_aux, g->ni, g->na);
    }
    pthread_mutex_lock(&g->stage_mu);
    g->staged = false;
    z_uploads(z, g, g->dz_spare, asg);
    err = ring_push(&g->stage_ring, z, 2, SIZE_MAX, pool, dg);
    if (err == CUZK_OK) {
        err = ring_drain(&g->stage_ring, dg);
    } else {
        cuzk_err e2 = ring_drain(&g->stage_ring, NULL); /* the first error is the one reported */
        (void)e2;
    }
    if (err == CUZK_OK) {
        g->staged = true;
        g->staged_inputs = asg->inputs;
        g->staged_aux = asg->aux;
    }
    pthread_mutex_unlock(&g->stage_mu);
    return err;
}

bool g16_gpu_can_stage(const g16_gpu_params *gp)
{
    return gp && ((const gpu_params_impl *)gp)->dz_spare != NULL;
}

bool g16_gpu_stage_take(g16_gpu_params *gp, const cs_assignment_t *asg)
{
    gpu_params_impl *g = (gpu_params_impl *)gp;
    bool hit = false;

    pthread_mutex_lock(&g->stage_mu);
    if (g->staged && g->staged_inputs == asg->inputs && g->staged_aux == asg->aux) {
        gpu_buf *t = g->dz; /* no proof reads it any more: it becomes the spare */
        g->dz = g->dz_spare;
        g->dz_spare = t;
        g->staged = false;
        g->taken_inputs = asg->inputs;
        g->taken_aux = asg->aux;
        hit = true;
    }
    pthread_mutex_unlock(&g->stage_mu);
    return hit;
}

size_t g16_gpu_params_device_bytes(const g16_gpu_params *gp)
{
    return gp ? ((const gpu_params_impl *)gp)->dev_bytes : 0;
}

size_t g16_gpu_params_pinned_bytes(const g16_gpu_params *gp)
{
    return gp ? ((const gpu_params_impl *)gp)->pinned_bytes : 0;
}

unsigned g16_gpu_params_streamed(const g16_gpu_params *gp)
{
    return gp ? ((const gpu_params_impl *)gp)->stream_mask : 0;
}

size_t g16_gpu_params_stream_bytes(const g16_gpu_params *gp)
{
    return gp ? ((const gpu_params_impl *)gp)->chunk_bytes : 0;
}

bool g16_gpu_params_stream_pinned(const g16_gpu_params *gp)
{
    return gp && ((const gpu_params_impl *)gp)->pinned;
}

unsigned g16_gpu_params_share_max(const g16_gpu_params *gp)
{
    return gp ? gp->share_max : 0;
}

unsigned g16_gpu_params_buffers(const g16_gpu_params *gp)
{
    const gpu_params_impl *g = (const gpu_params_impl *)gp;
    return !g ? 0 : !g->lean ? 4 : g->lean_z ? 3 : 2;
}

cuzk_err g16_gpu_shape_new(g16_gpu_shape **out, g16_gpu_params *gp, const cs_shape_t *shape,
                           cz_diag *dg)
{
    const gpu_params_impl *g = (const gpu_params_impl *)gp;
    const cs_shape_matrix_t *mats[3] = {&shape->A, &shape->B, &shape->C};
    size_t rows = shape->num_constraints + shape->num_inputs;
    cuzk_err err = CUZK_OK;
    g16_gpu_shape *s = NULL;

    *out = NULL;
    if (shape->num_inputs != g->ni || shape->num_aux != g->na || rows > g->n || rows == 0) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "shape of %zu inputs, %zu aux and %zu rows does not fit parameters of "
                       "%zu inputs, %zu aux and a domain of %zu",
                       shape->num_inputs, shape->num_aux, rows, g->ni, g->na, g->n);
    }
    s = cz_calloc(1, sizeof(*s));
    if (!s) {
        return cz_fail(dg, CUZK_E_NOMEM, "g16_gpu_shape");
    }
    s->g = g;
    s->rows = rows;
    for (int k = 0; k < 3; k++) {
        const cs_shape_matrix_t *m = mats[k];
        if (m->rows != rows) {
            err = cz_fail(dg, CUZK_E_INVAL, "shape matrix %c has %zu rows, not %zu", "ABC"[k],
                          m -> rows, rows);
            goto done;
        }
        CZ_TRY(err,
               gpu_spmat_new(&s->m[k], g->dev, m->rows, m->nnz, m->row_ptr, m->col, m->coef,
                             shape->dict, shape->dict_len, dg),
               done);
    }
    *out = s;
    s = NULL;
done:
    g16_gpu_shape_free(s);
    return err;
}

void g16_gpu_shape_free(g16_gpu_shape *s)
{
    if (!s) {
        return;
    }
    for (int k = 0; k < 3; k++) {
        gpu_spmat_free(s->m[k]);
    }
    cz_free(s);
}

size_t g16_gpu_shape_device_bytes(const g16_gpu_shape *s)
{
    return s ? gpu_spmat_bytes(s->m[0]) + gpu_spmat_bytes(s->m[1]) + gpu_spmat_bytes(s->m[2]) : 0;
}

size_t g16_gpu_shape_device_estimate(const cs_shape_t *shape)
{
    const cs_shape_matrix_t *mats[3] = {&shape->A, &shape->B, &shape->C};
    size_t b = 0;

    for (int k = 0; k < 3; k++) {
        b += gpu_spmat_sizeof(mats[k]->rows, mats[k]->nnz, mats[k]->row_ptr, shape->dict_len);
    }
    return b;
}
