/* test.c - the runner for TEST() functions: registration, seeding, failure jumps, summary. */
#include "harness/test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "common/alloc.h"

#define MAX_TESTS 1024

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static size_t ntests;
static jmp_buf test_jmp;
static uint64_t seed;
static cz_prng prng;

enum { RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

void test_register(const char *name, test_fn fn)
{
    if (ntests == MAX_TESTS) {
        fprintf(stderr, "too many tests\n");
        exit(2);
    }
    tests[ntests].name = name;
    tests[ntests].fn = fn;
    ntests++;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fprintf(stdout, "\n");
    fflush(stdout);
    longjmp(test_jmp, RESULT_FAIL);
}

void test_skip(const char *why)
{
    fprintf(stdout, "  skipped: %s\n", why);
    longjmp(test_jmp, RESULT_SKIP);
}

static void dump_hex(const char *label, const unsigned char *p, size_t n)
{
    fprintf(stdout, "    %s: ", label);
    for (size_t i = 0; i < n && i < 256; i++) {
        fprintf(stdout, "%02x", p[i]);
    }
    fprintf(stdout, n > 256 ? "...\n" : "\n");
}

void test_fail_mem(const char *file, int line, const char *what, const void *a, const void *b,
                   size_t n)
{
    const unsigned char *pa = a, *pb = b;
    size_t first = 0;
    while (first < n && pa[first] == pb[first]) {
        first++;
    }
    fprintf(stdout, "  %s:%d: %s differs at byte %zu of %zu\n", file, line, what, first, n);
    dump_hex("left ", pa, n);
    dump_hex("right", pb, n);
    fflush(stdout);
    longjmp(test_jmp, RESULT_FAIL);
}

uint64_t test_seed(void)
{
    return seed;
}

cz_prng *test_prng(void)
{
    return &prng;
}

const char *test_src_path(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof(buf), "%s/%s", CUZK_SOURCE_DIR, rel);
    return buf;
}

const char *test_bin_path(const char *rel)
{
    static char buf[4096];
    const char *dir = getenv("CUZK_TEST_BIN_DIR"); /* binaries carried to another machine */
    snprintf(buf, sizeof(buf), "%s/%s", dir && *dir ? dir : CUZK_BINARY_DIR, rel);
    return buf;
}

uint8_t *test_shared_load(const char *rel, size_t *len)
{
    char path[4096];
    const char *dir = getenv("CUZK_SHARED_DIR");
    if (dir && *dir) {
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
    } else {
        snprintf(path, sizeof(path), "%s/../shared/%s", CUZK_SOURCE_DIR, rel);
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        static char why[4200];
        snprintf(why, sizeof(why), "shared data file %s is absent", path);
        test_skip(why);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = cz_malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        test_fail(__FILE__, __LINE__, "cannot read %s", path);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static bool selected(const char *name, int argc, char **argv)
{
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0) {
            i++;
            continue;
        }
        any = true;
        if (strcmp(argv[i], name) == 0) {
            return true;
        }
    }
    return !any;
}

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0) {
            seed = strtoull(argv[i + 1], NULL, 0);
        }
    }
    printf("seed=%" PRIu64 " (replay with --seed %" PRIu64 ")\n", seed, seed);
    setvbuf(stdout, NULL, _IOLBF, 0);

    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < ntests; i++) {
        if (!selected(tests[i].name, argc, argv)) {
            continue;
        }
        cz_prng_seed(&prng, seed);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int r = setjmp(test_jmp);
        if (r == 0) {
            tests[i].fn();
            r = RESULT_PASS;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        const char *word = r == RESULT_PASS ? "ok" : r == RESULT_SKIP ? "skip" : "FAIL";
        printf("%-4s %s (%.1f ms)\n", word, tests[i].name, ms);
        passed += r == RESULT_PASS;
        failed += r == RESULT_FAIL;
        skipped += r == RESULT_SKIP;
    }
    printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    if (failed) {
        return 1;
    }
    if (passed == 0 && skipped > 0) {
        return 77;
    }
    return 0;
}
