/* test.h - the test harness. TEST(name) { ... } defines and registers a test; the checks below
 * print both sides with file:line and end the current test on failure (never compiled out).
 * The runner (test.c) runs every test, or those named on the command line, prints one line
 * per test and "N passed, N failed", and exits 0 only if none failed (77 if all skipped).
 * Randomized tests draw from test_prng(), seeded from --seed S or the clock, printed at start.
 */
#ifndef CUZK_TESTS_HARNESS_TEST_H
#define CUZK_TESTS_HARNESS_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "common/rand.h"

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);

#define TEST(name)                                                                                 \
    static void test_##name(void);                                                                 \
    __attribute__((constructor)) static void test_register_##name(void)                            \
    {                                                                                              \
        test_register(#name, test_##name);                                                         \
    }                                                                                              \
    static void test_##name(void)

/* Failure reporting: prints and jumps out of the current test. */
__attribute__((noreturn)) void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
__attribute__((noreturn)) void test_skip(const char *why);
void test_fail_mem(const char *file, int line, const char *what, const void *a, const void *b,
                   size_t n);

/** The seed of this run and a generator seeded from it (fresh per test, same seed). */
uint64_t test_seed(void);
cz_prng *test_prng(void);
/** Path of a file below the source tree ("tests/vectors/...") in a static buffer. */
const char *test_src_path(const char *rel);
/** Path below the build tree, for cached fixtures ($CUZK_TEST_BIN_DIR instead when set). */
const char *test_bin_path(const char *rel);
/** Reads a data file from the shared data directory beside the source tree (../shared/ of the
 *  checkout, or $CUZK_SHARED_DIR): third-party golden files live there, never in the
 *  repository. Returns a cz_malloc'ed buffer and its length, or ends the test as skipped when
 *  the file is absent. */
uint8_t *test_shared_load(const char *rel, size_t *len);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                                     \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                                            \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
    do {                                                                                           \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                               \
        if (check_a_ != check_b_) {                                                                \
            test_fail(__FILE__, __LINE__, "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, check_a_,   \
                      check_b_);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_MEM_EQ(a, b, n)                                                                      \
    do {                                                                                           \
        if (memcmp((a), (b), (n)) != 0) {                                                          \
            test_fail_mem(__FILE__, __LINE__, #a " == " #b, (a), (b), (n));                        \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *check_a_ = (a), *check_b_ = (b);                                               \
        if (strcmp(check_a_, check_b_) != 0) {                                                     \
            test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, check_a_,          \
                      check_b_);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_ERR(expr, code)                                                                      \
    do {                                                                                           \
        cuzk_err check_e_ = (expr);                                                                \
        if (check_e_ != (code)) {                                                                  \
            test_fail(__FILE__, __LINE__, "%s returned %s, expected %s", #expr,                    \
                      cuzk_errname(check_e_), cuzk_errname(code));                                 \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr) CHECK_ERR(expr, CUZK_OK)

#endif /* CUZK_TESTS_HARNESS_TEST_H */
