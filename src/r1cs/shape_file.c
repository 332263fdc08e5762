/* shape_file.c - compact shape files (docs/formats.md "Compact shape"): save, and a load that
 * refuses anything it did not write for this key and version.
 *
 * Layout (little-endian): a header of SHP_HDR_FIXED bytes of fields, the caller's key, zero
 * padding and the header's own XXH64 in its last 8 bytes (the header is a multiple of 64
 * bytes); then the payload, ten sections without padding, each naturally aligned: the
 * dictionary, the three row-pointer arrays, the three column arrays, the three coefficient
 * arrays. The payload checksum is the XXH64 of the little-endian XXH64s of its 16 MiB blocks,
 * each section cut into blocks on its own, so that saving hashes the arrays where they are and
 * both sides hash blocks in parallel. XXH64 (Yann Collet, xxhash.h 0.8, "XXH64 algorithm
 * overview") is implemented here; it runs at several GB/s per core, so that checking a 5 GiB
 * shape costs a fraction of reading it.
 *
 * Load reads the file with one read into one buffer that becomes the shape's arrays (a copy in
 * anonymous memory, not a mapping: a file truncated under a mapping would kill the process),
 * then checks the payload checksum and every index an evaluator dereferences, and derives the
 * densities from the columns.
 */
#include "r1cs/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#    error "shape files hold the arrays as they are in memory: little-endian hosts only"
#endif

#define SHP_MAGIC     "CUZKSHAP"
#define SHP_HDR_FIXED 88
#define SHP_HDR_MAX   (((SHP_HDR_FIXED + CS_SHAPE_KEY_MAX + 8) + 63) / 64 * 64)
#define SHP_BLOCK     ((size_t)1 << 24)
#define SHP_SECTIONS  10

/* ------------------------------------------------------------------------------------------
 * XXH64
 * ---------------------------------------------------------------------------------------- */

#define XXH_P1 UINT64_C(0x9E3779B185EBCA87)
#define XXH_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH_P3 UINT64_C(0x165667B19E3779F9)
#define XXH_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define XXH_P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t xxh_rotl(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t xxh_read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t in)
{
    acc += in * XXH_P2;
    return xxh_rotl(acc, 31) * XXH_P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
    acc ^= xxh_round(0, v);
    return acc * XXH_P1 + XXH_P4;
}

uint64_t cs_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;

    if (len >= 32) {
        uint64_t v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2, v3 = seed, v4 = seed - XXH_P1;
        do {
            v1 = xxh_round(v1, xxh_read64(p));
            v2 = xxh_round(v2, xxh_read64(p + 8));
            v3 = xxh_round(v3, xxh_read64(p + 16));
            v4 = xxh_round(v4, xxh_read64(p + 24));
            p += 32;
        } while (end - p >= 32);
        h = xxh_rotl(v1, 1) + xxh_rotl(v2, 7) + xxh_rotl(v3, 12) + xxh_rotl(v4, 18);
        h = xxh_merge(h, v1);
        h = xxh_merge(h, v2);
        h = xxh_merge(h, v3);
        h = xxh_merge(h, v4);
    } else {
        h = seed + XXH_P5;
    }
    h += (uint64_t)len;
    for (; end - p >= 8; p += 8) {
        h ^= xxh_round(0, xxh_read64(p));
        h = xxh_rotl(h, 27) * XXH_P1 + XXH_P4;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)cz_load_le32(p) * XXH_P1;
        h = xxh_rotl(h, 23) * XXH_P2 + XXH_P3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= *p * XXH_P5;
        h = xxh_rotl(h, 11) * XXH_P1;
    }
    h ^= h >> 33;
    h *= XXH_P2;
    h ^= h >> 29;
    h *= XXH_P3;
    h ^= h >> 32;
    return h;
}

/* ------------------------------------------------------------------------------------------
 * Sections and the payload checksum
 * ---------------------------------------------------------------------------------------- */

typedef struct shp_section {
    const uint8_t *p;
    size_t len;
} shp_section;

/* The payload sections of `s` in file order. */
static void shape_sections(const cs_shape_t *s, shp_section out[SHP_SECTIONS])
{
    const cs_shape_matrix_t *m[3] = {&s->A, &s->B, &s->C};

    out[0] = (shp_section){(const uint8_t *)s->dict, s->dict_len * sizeof(fr_t)};
    for (int k = 0; k < 3; k++) {
        out[1 + k] =
            (shp_section){(const uint8_t *)m[k]->row_ptr, (m[k]->rows + 1) * sizeof(uint32_t)};
        out[4 + k] = (shp_section){(const uint8_t *)m[k]->col, m[k]->nnz * sizeof(uint32_t)};
        out[7 + k] = (shp_section){(const uint8_t *)m[k]->coef, m[k]->nnz * sizeof(uint16_t)};
    }
}

typedef struct hash_ctx {
    const shp_section *blocks;
    uint8_t *out; /* 8 bytes per block, little-endian */
} hash_ctx;

static void hash_task(void *arg, size_t begin, size_t end, unsigned worker)
{
    const hash_ctx *x = arg;

    (void)worker;
    for (size_t i = begin; i < end; i++) {
        cz_store_le64(x->out + 8 * i, cs_xxh64(x->blocks[i].p, x->blocks[i].len, 0));
    }
}

/* The payload checksum of `sec` into *out; false without memory. */
static bool payload_hash(uint64_t *out, const shp_section sec[SHP_SECTIONS], cz_pool *pool)
{
    size_t n = 0;

    for (int i = 0; i < SHP_SECTIONS; i++) {
        n += (sec[i].len + SHP_BLOCK - 1) / SHP_BLOCK;
    }
    shp_section *blocks = cz_malloc((n ? n : 1) * sizeof(*blocks));
    uint8_t *hashes = cz_malloc((n ? n : 1) * 8);
    if (!blocks || !hashes) {
        cz_free(blocks);
        cz_free(hashes);
        return false;
    }
    n = 0;
    for (int i = 0; i < SHP_SECTIONS; i++) {
        for (size_t off = 0; off < sec[i].len; off += SHP_BLOCK) {
            size_t len = sec[i].len - off < SHP_BLOCK ? sec[i].len - off : SHP_BLOCK;
            blocks[n++] = (shp_section){sec[i].p + off, len};
        }
    }
    hash_ctx x = {blocks, hashes};
    if (pool) {
        cz_pool_for(pool, n, 1, hash_task, &x);
    } else {
        hash_task(&x, 0, n, 0);
    }
    *out = cs_xxh64(hashes, 8 * n, 0);
    cz_free(blocks);
    cz_free(hashes);
    return true;
}

cuzk_err cs_shape_fingerprint(const cs_shape_t *s, uint64_t *out, cz_pool *pool, cz_diag *dg)
{
    shp_section sec[SHP_SECTIONS];
    uint8_t head[8 * 8];
    uint64_t h;
    const uint64_t f[8] = {s->num_inputs, s->num_aux, s->num_constraints, s->dict_len,
                           s->A.nnz,      s->B.nnz,   s->C.nnz,           s->A.rows};

    shape_sections(s, sec);
    if (!payload_hash(&h, sec, pool)) {
        return cz_fail(dg, CUZK_E_NOMEM, "shape fingerprint: out of memory");
    }
    for (int i = 0; i < 8; i++) {
        cz_store_le64(head + 8 * i, f[i]);
    }
    *out = cs_xxh64(head, sizeof(head), h);
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * Header
 * ---------------------------------------------------------------------------------------- */

typedef struct shp_header {
    uint32_t version, key_len;
    uint64_t num_inputs, num_aux, num_constraints, dict_len, nnz[3];
    uint64_t payload_bytes, payload_hash;
    size_t len; /* header bytes: fields, key, padding, header hash */
} shp_header;

static size_t header_len(size_t key_len)
{
    return (SHP_HDR_FIXED + key_len + 8 + 63) / 64 * 64;
}

/* Payload bytes for these counts; false on overflow. */
static bool payload_len(uint64_t *out, uint64_t dict_len, uint64_t rows, const uint64_t nnz[3])
{
    uint64_t n = dict_len * sizeof(fr_t);

    if (rows > (UINT64_MAX >> 4) || dict_len > CS_SHAPE_DICT_MAX) {
        return false;
    }
    for (int k = 0; k < 3; k++) {
        if (nnz[k] > UINT32_MAX) {
            return false;
        }
        n += (rows + 1) * 4 + nnz[k] * 6;
    }
    *out = n;
    return true;
}

/* Writes the header of `h` with `key` into buf (h->len bytes). */
static void header_put(uint8_t *buf, const shp_header *h, const void *key)
{
    memset(buf, 0, h->len);
    memcpy(buf, SHP_MAGIC, 8);
    cz_store_le32(buf + 8, h->version);
    cz_store_le32(buf + 12, h->key_len);
    cz_store_le64(buf + 16, h->num_inputs);
    cz_store_le64(buf + 24, h->num_aux);
    cz_store_le64(buf + 32, h->num_constraints);
    cz_store_le64(buf + 40, h->dict_len);
    for (int k = 0; k < 3; k++) {
        cz_store_le64(buf + 48 + 8 * k, h->nnz[k]);
    }
    cz_store_le64(buf + 72, h->payload_bytes);
    cz_store_le64(buf + 80, h->payload_hash);
    memcpy(buf + SHP_HDR_FIXED, key, h->key_len);
    cz_store_le64(buf + h->len - 8, cs_xxh64(buf, h->len - 8, 0));
}

/* A key for messages: printable ASCII as is, other bytes as \xNN, cut at ~80 characters. */
static void key_str(char *out, size_t cap, const uint8_t *key, size_t n)
{
    size_t o = 0;

    for (size_t i = 0; i < n && o + 8 < cap; i++) {
        if (o > 80) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (key[i] >= 0x20 && key[i] < 0x7f && key[i] != '"' && key[i] != '\\') {
            out[o++] = (char)key[i];
        } else {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", key[i]);
        }
    }
    out[o] = '\0';
}

/* ------------------------------------------------------------------------------------------
 * Save
 * ---------------------------------------------------------------------------------------- */

static cuzk_err write_all(FILE *fp, const char *path, const void *p, size_t len, cz_diag *dg)
{
    if (len > 0 && fwrite(p, 1, len, fp) != len) {
        return cz_fail(dg, CUZK_E_IO, "%s: write failed: %s", path, strerror(errno));
    }
    return CUZK_OK;
}

cuzk_err cs_shape_save(const cs_shape_t *shape, const char *path, const void *key, size_t key_len,
                       cz_pool *pool, cz_diag *dg)
{
    shp_section sec[SHP_SECTIONS];
    uint8_t hdr[SHP_HDR_MAX];
    char tmp[4096];
    cuzk_err err = CUZK_OK;
    FILE *fp = NULL;
    shp_header h = {
        .version = CS_SHAPE_FILE_VERSION,
        .key_len = (uint32_t)key_len,
        .num_inputs = shape->num_inputs,
        .num_aux = shape->num_aux,
        .num_constraints = shape->num_constraints,
        .dict_len = shape->dict_len,
        .nnz = {shape->A.nnz, shape->B.nnz, shape->C.nnz},
        .len = header_len(key_len),
    };

    if (key_len == 0 || key_len > CS_SHAPE_KEY_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: key of %zu bytes (1 .. %d)", path, key_len,
                       CS_SHAPE_KEY_MAX);
    }
    CZ_CHECK(payload_len(&h.payload_bytes, h.dict_len, shape->A.rows, h.nnz));
    shape_sections(shape, sec);
    if (!payload_hash(&h.payload_hash, sec, pool)) {
        return cz_fail(dg, CUZK_E_NOMEM, "%s: checksum scratch", path);
    }
    header_put(hdr, &h, key);
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= sizeof(tmp)) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: path too long", path);
    }
    fp = fopen(tmp, "wb");
    if (!fp) {
        return cz_fail(dg, CUZK_E_IO, "%s: cannot create: %s", tmp, strerror(errno));
    }
    CZ_TRY(err, write_all(fp, tmp, hdr, h.len, dg), fail);
    for (int i = 0; i < SHP_SECTIONS; i++) {
        CZ_TRY(err, write_all(fp, tmp, sec[i].p, sec[i].len, dg), fail);
    }
    if (fflush(fp) != 0) {
        err = cz_fail(dg, CUZK_E_IO, "%s: write failed: %s", tmp, strerror(errno));
        goto fail;
    }
    if (fclose(fp) != 0) {
        fp = NULL;
        err = cz_fail(dg, CUZK_E_IO, "%s: close failed: %s", tmp, strerror(errno));
        goto fail;
    }
    fp = NULL;
    if (rename(tmp, path) != 0) {
        err = cz_fail(dg, CUZK_E_IO, "%s: cannot rename %s into place: %s", path, tmp,
                      strerror(errno));
        goto fail;
    }
    return CUZK_OK;
fail:
    if (fp) {
        fclose(fp);
    }
    remove(tmp);
    return err;
}

/* ------------------------------------------------------------------------------------------
 * Load
 * ---------------------------------------------------------------------------------------- */

/* Reads exactly `len` bytes at `off`: CUZK_E_FORMAT when the file ends first, CUZK_E_IO. */
static cuzk_err read_at(int fd, const char *path, void *buf, size_t len, uint64_t off, cz_diag *dg)
{
    uint8_t *p = buf;

    while (len > 0) {
        size_t want = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t got = pread(fd, p, want, (off_t)off);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return cz_fail(dg, CUZK_E_IO, "%s: read failed: %s", path, strerror(errno));
        }
        if (got == 0) {
            return cz_fail(dg, CUZK_E_FORMAT, "%s: truncated (ends at byte %llu)", path,
                           (unsigned long long)off);
        }
        p += got;
        off += (uint64_t)got;
        len -= (size_t)got;
    }
    return CUZK_OK;
}

/* Decodes and checks the header in buf (`have` bytes, the file being `size` bytes): magic,
 * version, header checksum, key, counts against each other and the file size. */
static cuzk_err header_get(shp_header *h, const uint8_t *buf, size_t have, uint64_t size,
                           const char *path, const uint8_t *key, size_t key_len, cz_diag *dg)
{
    char want[96], got[96];
    uint64_t rows, expect;

    if (have < 16 || memcmp(buf, SHP_MAGIC, 8) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: not a shape file (%s)", path,
                       have < 16 ? "shorter than a header" : "bad magic");
    }
    h->version = cz_load_le32(buf + 8);
    h->key_len = cz_load_le32(buf + 12);
    if (h->version != CS_SHAPE_FILE_VERSION) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "%s: shape file version %u, this build reads version %d (stale: record "
                       "the shape again)",
                       path, h->version, CS_SHAPE_FILE_VERSION);
    }
    if (h->key_len == 0 || h->key_len > CS_SHAPE_KEY_MAX) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: corrupted header (key length %u)", path, h->key_len);
    }
    h->len = header_len(h->key_len);
    if (have < h->len) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: truncated (%llu bytes, the header alone is %zu)",
                       path, (unsigned long long)size, h->len);
    }
    if (cz_load_le64(buf + h->len - 8) != cs_xxh64(buf, h->len - 8, 0)) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: corrupted (header checksum mismatch)", path);
    }
    if (h->key_len != key_len || memcmp(buf + SHP_HDR_FIXED, key, key_len) != 0) {
        key_str(got, sizeof(got), buf + SHP_HDR_FIXED, h->key_len);
        key_str(want, sizeof(want), key, key_len);
        return cz_fail(dg, CUZK_E_FORMAT,
                       "%s: recorded for another circuit shape (key \"%s\", expected \"%s\")", path,
                       got, want);
    }
    h->num_inputs = cz_load_le64(buf + 16);
    h->num_aux = cz_load_le64(buf + 24);
    h->num_constraints = cz_load_le64(buf + 32);
    h->dict_len = cz_load_le64(buf + 40);
    for (int k = 0; k < 3; k++) {
        h->nnz[k] = cz_load_le64(buf + 48 + 8 * k);
    }
    h->payload_bytes = cz_load_le64(buf + 72);
    h->payload_hash = cz_load_le64(buf + 80);
    rows = h->num_constraints + h->num_inputs;
    if (h->num_inputs == 0 || h->num_inputs > (UINT64_C(1) << 32) ||
        h->num_aux > (UINT64_C(1) << 32) || h->num_inputs + h->num_aux > (UINT64_C(1) << 32) ||
        rows < h->num_constraints || h->dict_len < 2 ||
        !payload_len(&expect, h->dict_len, rows, h->nnz) || expect != h->payload_bytes ||
        rows > SIZE_MAX / sizeof(fr_t)) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: corrupted header (inconsistent counts)", path);
    }
    if (size - h->len != h->payload_bytes) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: %s (%llu bytes, the header announces %llu)", path,
                       size - h->len < h->payload_bytes ? "truncated" : "trailing bytes",
                       (unsigned long long)size, (unsigned long long)(h->len + h->payload_bytes));
    }
    return CUZK_OK;
}

/* Points the arrays of `s` into `block` (the payload) as the header lays them out. */
static void shape_place(cs_shape_t *s, const shp_header *h, uint8_t *block)
{
    cs_shape_matrix_t *m[3] = {&s->A, &s->B, &s->C};
    size_t rows = (size_t)(h->num_constraints + h->num_inputs);
    uint8_t *p = block;

    s->num_inputs = (size_t)h->num_inputs;
    s->num_aux = (size_t)h->num_aux;
    s->num_constraints = (size_t)h->num_constraints;
    s->dict = (fr_t *)(void *)p;
    s->dict_len = (size_t)h->dict_len;
    p += s->dict_len * sizeof(fr_t);
    for (int k = 0; k < 3; k++) {
        m[k]->rows = rows;
        m[k]->nnz = (size_t)h->nnz[k];
        m[k]->row_ptr = (uint32_t *)(void *)p;
        p += (rows + 1) * sizeof(uint32_t);
    }
    for (int k = 0; k < 3; k++) {
        m[k]->col = (uint32_t *)(void *)p;
        p += m[k]->nnz * sizeof(uint32_t);
    }
    for (int k = 0; k < 3; k++) {
        m[k]->coef = (uint16_t *)(void *)p;
        p += m[k]->nnz * sizeof(uint16_t);
    }
}

typedef struct check_ctx {
    const cs_shape_t *s;
    uint64_t ncols;
    _Atomic size_t bad[3]; /* first bad row of each matrix seen so far; SIZE_MAX: none */
} check_ctx;

/* Row r of m is safe to evaluate: its range lies in [0, nnz), its columns are below ncols and
 * strictly increasing, its coefficient indices below dict_len. */
static bool row_ok(const cs_shape_matrix_t *m, size_t r, uint64_t ncols, size_t dict_len)
{
    uint32_t b = m->row_ptr[r], e = m->row_ptr[r + 1];

    if (b > e || e > m->nnz) {
        return false;
    }
    for (uint32_t z = b; z < e; z++) {
        if (m->col[z] >= ncols || (z > b && m->col[z] <= m->col[z - 1]) || m->coef[z] >= dict_len) {
            return false;
        }
    }
    return true;
}

static void check_task(void *arg, size_t begin, size_t end, unsigned worker)
{
    check_ctx *x = arg;
    const cs_shape_matrix_t *m[3] = {&x->s->A, &x->s->B, &x->s->C};

    (void)worker;
    for (int k = 0; k < 3; k++) {
        for (size_t r = begin; r < end; r++) {
            if (!row_ok(m[k], r, x->ncols, x->s->dict_len)) {
                size_t cur = atomic_load(&x->bad[k]);
                while (r < cur && !atomic_compare_exchange_weak(&x->bad[k], &cur, r)) {
                }
                break;
            }
        }
    }
}

/* Every index an evaluator follows, and the dictionary (canonical, non-zero, 1 and -1 first). */
static cuzk_err shape_check(const cs_shape_t *s, const char *path, cz_pool *pool, cz_diag *dg)
{
    const cs_shape_matrix_t *m[3] = {&s->A, &s->B, &s->C};
    static const char *const name[3] = {"A", "B", "C"};
    size_t rows = s->A.rows;
    fr_t minus_one, t;
    check_ctx x = {.s = s, .ncols = (uint64_t)s->num_inputs + s->num_aux};

    fr_neg(&minus_one, &FR_ONE);
    if (memcmp(&s->dict[0], &FR_ONE, sizeof(fr_t)) != 0 ||
        memcmp(&s->dict[1], &minus_one, sizeof(fr_t)) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: dictionary does not start with 1, -1", path);
    }
    for (size_t i = 0; i < s->dict_len; i++) {
        fr_repr_t r;
        memcpy(&r, &s->dict[i], sizeof(r));
        if (!fr_from_repr(&t, &r) || cs_fr_is_zero(&s->dict[i])) {
            return cz_fail(dg, CUZK_E_FORMAT, "%s: dictionary entry %zu is %s", path, i,
                           cs_fr_is_zero(&s->dict[i]) ? "zero" : "not below r");
        }
    }
    for (int k = 0; k < 3; k++) {
        atomic_init(&x.bad[k], SIZE_MAX);
        if (m[k]->row_ptr[0] != 0 || m[k]->row_ptr[rows] != m[k]->nnz) {
            return cz_fail(dg, CUZK_E_FORMAT, "%s: matrix %s: row pointers do not span 0 .. %zu",
                           path, name[k], m[k]->nnz);
        }
    }
    if (pool) {
        cz_pool_for(pool, rows, 65536, check_task, &x);
    } else {
        check_task(&x, 0, rows, 0);
    }
    for (int k = 0; k < 3; k++) {
        size_t r = atomic_load(&x.bad[k]);
        if (r != SIZE_MAX) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "%s: matrix %s row %zu: row pointer, column or coefficient index out "
                           "of range or columns unsorted",
                           path, name[k], r);
        }
    }
    return CUZK_OK;
}

/* Opens `path` and reads its header into h (checked against `key`); *fd, *size on success. */
static cuzk_err load_header(shp_header *h, int *fd, uint64_t *size, const char *path,
                            const void *key, size_t key_len, cz_diag *dg)
{
    uint8_t buf[SHP_HDR_MAX];
    struct stat st;
    cuzk_err err;

    /* A FIFO or device at the path would block the open (and with it the job, and a shutdown
     * waiting for the job): only a regular file is opened, and without blocking. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        return cz_fail(dg, CUZK_E_IO, "%s: not a readable regular file", path);
    }
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0) {
        return cz_fail(dg, CUZK_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        err = cz_fail(dg, CUZK_E_IO, "%s: not a readable regular file", path);
        goto fail;
    }
    *size = (uint64_t)st.st_size;
    size_t have = *size < sizeof(buf) ? (size_t)*size : sizeof(buf);
    CZ_TRY(err, read_at(*fd, path, buf, have, 0, dg), fail);
    CZ_TRY(err, header_get(h, buf, have, *size, path, key, key_len, dg), fail);
    return CUZK_OK;
fail:
    close(*fd);
    *fd = -1;
    return err;
}

cuzk_err cs_shape_load(cs_shape_t *out, const char *path, const void *key, size_t key_len,
                       cz_pool *pool, cz_diag *dg)
{
    shp_header h;
    shp_section sec[SHP_SECTIONS];
    cz_buf buf = {NULL, 0};
    uint64_t size, sum;
    int fd = -1;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (key_len == 0 || key_len > CS_SHAPE_KEY_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: key of %zu bytes (1 .. %d)", path, key_len,
                       CS_SHAPE_KEY_MAX);
    }
    CZ_TRY(err, load_header(&h, &fd, &size, path, key, key_len, dg), done);
    if (h.payload_bytes > SIZE_MAX) {
        err =
            cz_fail(dg, CUZK_E_NOMEM, "%s: %llu bytes", path, (unsigned long long)h.payload_bytes);
        goto done;
    }
    CZ_TRY(err, cz_buf_new(&buf, (size_t)h.payload_bytes, dg), done);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    CZ_TRY(err, read_at(fd, path, buf.ptr, buf.len, h.len, dg), done);
    out->block = buf.ptr;
    out->block_len = buf.len;
    buf.ptr = NULL; /* owned by *out from here */
    shape_place(out, &h, out->block);
    shape_sections(out, sec);
    if (!payload_hash(&sum, sec, pool)) {
        err = cz_fail(dg, CUZK_E_NOMEM, "%s: checksum scratch", path);
        goto done;
    }
    if (sum != h.payload_hash) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: corrupted (payload checksum mismatch)", path);
        goto done;
    }
    CZ_TRY(err, shape_check(out, path, pool, dg), done);
    if (!cs_shape_densities(out)) {
        err = cz_fail(dg, CUZK_E_NOMEM, "%s: densities", path);
    }
done:
    if (fd >= 0) {
        close(fd);
    }
    cz_buf_free(&buf);
    if (err != CUZK_OK) {
        cs_shape_clear(out);
    }
    return err;
}
