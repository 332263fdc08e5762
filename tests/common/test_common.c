/* test_common.c - errors, diagnostics, allocation counting, the pool, PRNG, hex, UTF-8 and log
 * value quoting. */
#include "harness/test.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/log.h"
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

TEST(utf8_decoding)
{
    static const struct {
        const char *s;
        size_t len;
        uint32_t cp;
    } cases[] = {
        {"a", 1, 'a'},
        {"\xc2\xa9", 2, 0xa9},
        {"\xe2\x82\xac", 3, 0x20ac},
        {"\xf0\x9f\x98\x80", 4, 0x1f600},
        {"\xf4\x8f\xbf\xbf", 4, 0x10ffff},
        {"\x80", 0, 0},             /* continuation byte first */
        {"\xc0\xaf", 0, 0},         /* overlong '/' */
        {"\xe0\x80\xaf", 0, 0},     /* overlong */
        {"\xed\xa0\x80", 0, 0},     /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", 0, 0}, /* above U+10FFFF */
        {"\xe2\x82", 0, 0},         /* truncated */
        {"\xff", 0, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint32_t cp = 0;
        size_t n = strlen(cases[i].s);
        CHECK_EQ_U64(cz_utf8_next((const uint8_t *)cases[i].s, n, &cp), cases[i].len);
        if (cases[i].len) {
            CHECK_EQ_U64(cp, cases[i].cp);
        }
    }
}

typedef struct line_capture {
    char line[2048];
    int n;
} line_capture;

static void last_line_sink(cz_log_level level, const char *line, void *ctx)
{
    line_capture *c = ctx;
    (void)level;
    snprintf(c->line, sizeof(c->line), "%s", line);
    c->n++;
}

TEST(log_values_are_quoted_and_escaped)
{
    static const char *const values[] = {
        "porep-1000-42",
        "wdpost-1000-0-[95 52 194 205 1 2 3 4]",
        "say \"hi\" \\ bye",
        "line\nbreak\r\ttab",
        "\x1b[31mred\x1b[0m",
        "C1 \xc2\x9b control, \xe2\x82\xac euro, bad \xff byte",
        "line\xe2\x80\xa8separator and paragraph\xe2\x80\xa9separator",
        "",
        "k=v x=y",
    };
    line_capture cap = {{0}, 0};
    cz_log_set_sink(last_line_sink, &cap);
    for (size_t i = 0; i < ARRAY_LEN(values); i++) {
        char q[CZ_LOG_QUOTED_MAX(64)], back[128];
        cz_log_quote(q, sizeof(q), values[i]);
        if (i == 0) {
            CHECK_STR_EQ(q, values[0]); /* plain ids are written as they are */
        } else {
            CHECK_MSG(q[0] == '"', "value %zu not quoted: %s", i, q);
        }
        cz_log_write(CZ_LOG_INFO, "job=%s event=x error=%s", q, q);
        for (const char *p = cap.line; *p; p++) {
            unsigned char c = (unsigned char)*p;
            CHECK_MSG(c >= 0x20 && c != 0x7f, "control byte 0x%02x reached the sink (value %zu)", c,
                      i);
            CHECK_MSG(!(c == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9f),
                      "a C1 control reached the sink (value %zu)", i);
            CHECK_MSG(!(c == 0xe2 && (unsigned char)p[1] == 0x80 &&
                        ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)),
                      "U+2028 or U+2029 reached the sink (value %zu)", i);
        }
        char ev[8];
        CHECK(cz_log_kv(cap.line, "event", ev, sizeof(ev)));
        CHECK_STR_EQ(ev, "x");
        CHECK_MSG(cz_log_kv(cap.line, "job", back, sizeof(back)), "value %zu: %s", i, cap.line);
        CHECK_STR_EQ(back, values[i]);
        CHECK(cz_log_kv(cap.line, "error", back, sizeof(back)));
        CHECK_STR_EQ(back, values[i]);
    }
    /* Text inside a quoted value is never taken for a key. */
    CHECK(!cz_log_kv("job=\"a x=1\" y=2", "x", (char[8]){0}, 8));
    /* A forged line in an unquoted value stays on one line. */
    cz_log_write(CZ_LOG_INFO, "error=%s", "boom\n2026-01-01T00:00:00Z level=error forged=1");
    CHECK(strchr(cap.line, '\n') == NULL);
    CHECK(strstr(cap.line, "boom\\n2026") != NULL);
    cz_log_set_sink(NULL, NULL);
    /* Truncation keeps the quotes. */
    char small[8];
    cz_log_quote(small, sizeof(small), "a b c d e f");
    CHECK_STR_EQ(small, "\"a b c\"");
}
