/* test_common.c - errors, diagnostics, allocation counting, the pool, PRNG and hex. */
#include "harness/test.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/pool.h"
#include "common/rand.h"

TEST(err_names)
{
    CHECK_STR_EQ(cuzk_errname(CUZK_OK), "OK");
    CHECK_STR_EQ(cuzk_errname(CUZK_E_UNSAT), "E_UNSAT");
    CHECK_STR_EQ(cuzk_strerror(CUZK_E_NOMEM), "out of memory");
    CHECK_STR_EQ(cuzk_errname((cuzk_err)999), "E_UNKNOWN");
}

TEST(diag_records_location)
{
    cz_diag dg;
    char buf[600];
    cz_diag_init(&dg);
    CHECK_ERR(cz_fail(&dg, CUZK_E_FORMAT, "field %s at %d", "h", 7), CUZK_E_FORMAT);
    CHECK_EQ_U64(dg.code, CUZK_E_FORMAT);
    CHECK_STR_EQ(dg.msg, "field h at 7");
    CHECK(strstr(cz_diag_str(&dg, buf, sizeof(buf)), "E_FORMAT: field h at 7") == buf);
    CHECK_ERR(cz_fail(NULL, CUZK_E_IO, "ignored"), CUZK_E_IO);
}

/* Diagnostics name source files relative to the source tree (the build's -fmacro-prefix-map),
 * never with the build machine's directory. */
TEST(diag_location_is_relative)
{
    cz_diag dg;
    cz_buf b;
    char buf[600];

    cz_diag_init(&dg);
    CHECK_ERR(cz_buf_new(&b, SIZE_MAX, &dg), CUZK_E_NOMEM); /* a real failure in a library */
    cz_diag_str(&dg, buf, sizeof(buf));
    CHECK_MSG(strstr(buf, "(src/common/alloc.c:") != NULL, "diag: %s", buf);
    CHECK_MSG(strstr(buf, CUZK_SOURCE_DIR) == NULL, "diag: %s", buf);
    CHECK_STR_EQ(dg.file, "src/common/alloc.c");
    CHECK_MSG(__FILE__[0] != '/', "__FILE__ = %s", __FILE__);
}

TEST(alloc_counts_live_bytes)
{
    size_t before = cz_alloc_live();
    void *a = cz_malloc(1000);
    void *b = cz_malloc_aligned(4096, 64);
    CHECK(a && b);
    CHECK(((uintptr_t)b & 63) == 0);
    CHECK_EQ_U64(cz_alloc_live(), before + 5096);
    a = cz_realloc(a, 10);
    CHECK(a);
    CHECK_EQ_U64(cz_alloc_live(), before + 4106);
    cz_free(a);
    cz_free_aligned(b);
    CHECK_EQ_U64(cz_alloc_live(), before);
    CHECK(cz_calloc(SIZE_MAX / 2, 4) == NULL);
    cz_free(NULL);
}

TEST(buf_and_memzero)
{
    cz_buf buf;
    CHECK_OK(cz_buf_new(&buf, 3u << 20, NULL));
    unsigned char *p = buf.ptr;
    CHECK(p[0] == 0 && p[buf.len - 1] == 0);
    memset(p, 0xab, 64);
    cz_memzero(p, 64);
    for (int i = 0; i < 64; i++) {
        CHECK(p[i] == 0);
    }
    cz_buf_free(&buf);
    CHECK(buf.ptr == NULL);
    CHECK(cz_rss_now() > 0);
}

struct sum_ctx {
    atomic_ullong sum;
    atomic_uint calls;
    unsigned width;
    bool bad_worker;
};

static void sum_fn(void *ctx, size_t begin, size_t end, unsigned worker)
{
    struct sum_ctx *s = ctx;
    unsigned long long local = 0;
    for (size_t i = begin; i < end; i++) {
        local += i;
    }
    if (worker >= s->width) {
        s->bad_worker = true;
    }
    atomic_fetch_add(&s->sum, local);
    atomic_fetch_add(&s->calls, 1);
}

static void nested_fn(void *ctx, size_t begin, size_t end, unsigned worker)
{
    cz_pool *pool = *(cz_pool **)ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        struct sum_ctx s = {.width = cz_pool_width(pool)};
        cz_pool_for(pool, 100, 7, sum_fn, &s); /* runs inline */
        CHECK_EQ_U64(atomic_load(&s.sum), 4950);
    }
}

TEST(pool_covers_every_item_once)
{
    cz_pool *pool;
    CHECK_OK(cz_pool_new(&pool, 3, "test", NULL));
    CHECK_EQ_U64(cz_pool_width(pool), 4);
    for (size_t n = 0; n < 2000; n += 137) {
        for (size_t grain = 0; grain < 40; grain += 13) {
            struct sum_ctx s = {.width = cz_pool_width(pool)};
            cz_pool_for(pool, n, grain, sum_fn, &s);
            CHECK_EQ_U64(atomic_load(&s.sum), n ? n * (n - 1) / 2 : 0);
            CHECK(!s.bad_worker);
        }
    }
    cz_pool_for(pool, 16, 1, nested_fn, &pool);
    cz_pool_free(pool);

    struct sum_ctx s = {.width = 1};
    cz_pool_for(NULL, 10, 0, sum_fn, &s);
    CHECK_EQ_U64(atomic_load(&s.sum), 45);
    CHECK_EQ_U64(atomic_load(&s.calls), 1);
    struct sum_ctx t = {.width = 1};
    cz_pool_for(NULL, 10, 3, sum_fn, &t); /* chunks of at most 3 even inline */
    CHECK_EQ_U64(atomic_load(&t.sum), 45);
    CHECK_EQ_U64(atomic_load(&t.calls), 4);
    cz_pool_free(NULL);
}

TEST(prng_is_deterministic)
{
    cz_prng a, b;
    cz_prng_seed(&a, 42);
    cz_prng_seed(&b, 42);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_U64(cz_prng_u64(&a), cz_prng_u64(&b));
    }
    for (int i = 0; i < 1000; i++) {
        CHECK(cz_prng_below(&a, 7) < 7);
    }
    uint8_t r1[32] = {0}, r2[32] = {0};
    CHECK_OK(cz_rand_bytes(r1, sizeof(r1), NULL));
    CHECK_OK(cz_rand_bytes(r2, sizeof(r2), NULL));
    CHECK(memcmp(r1, r2, 32) != 0);
}

TEST(hex_and_endianness)
{
    uint8_t b[4];
    char s[9];
    CHECK(cz_hex_decode(b, 4, "DeadBeef"));
    CHECK_EQ_U64(cz_load_be32(b), 0xdeadbeef);
    CHECK_EQ_U64(cz_load_le32(b), 0xefbeadde);
    cz_hex_encode(s, b, 4);
    CHECK_STR_EQ(s, "deadbeef");
    CHECK(!cz_hex_decode(b, 4, "deadbee"));
    CHECK(!cz_hex_decode(b, 4, "deadbeefff"));
    CHECK(!cz_hex_decode(b, 4, "deadbeeg"));
    uint8_t w[8];
    cz_store_be64(w, 0x0102030405060708ull);
    CHECK(w[0] == 1 && w[7] == 8);
    CHECK_EQ_U64(cz_load_le64(w), 0x0807060504030201ull);
}
