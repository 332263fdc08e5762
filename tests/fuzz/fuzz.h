/* fuzz.h - what every fuzz target shares: the libFuzzer entry point, a check that aborts (the
 * way libFuzzer and the regression driver learn about a bug), a count of accepted inputs (the
 * driver checks that "ok-" seeds decode and "bad-" seeds do not), a leak check on cz_malloc's
 * live-byte counter, and a scratch file for loaders that take a path.
 *
 * Build modes (tests/fuzz/CMakeLists.txt): with clang and CUZK_FUZZ=ON each target links
 * libFuzzer (-fsanitize=fuzzer,address,undefined); otherwise it links driver.c, which replays
 * the seed corpus and a bounded number of deterministic mutations as a CTest test.
 */
#ifndef CUZK_TESTS_FUZZ_FUZZ_H
#define CUZK_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/** The target: must return 0 and never crash, leak or trip a sanitizer on any input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Prints "fuzz check failed: file:line: what" and aborts. */
CZ_NORETURN void fuzz_fail(const char *file, int line, const char *what);

/** A property of the decoder under test; always compiled in. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fuzz_fail(__FILE__, __LINE__, #cond);                                                  \
        }                                                                                          \
    } while (0)

/** Records that a decoder accepted the current input. */
void fuzz_note_ok(void);
/** Number of fuzz_note_ok calls so far in this process. */
uint64_t fuzz_ok_count(void);

/** cz_malloc's live bytes, to be compared before and after one input (targets whose decoders
 *  allocate only through cz_malloc and keep nothing between inputs). Only growth counts: a
 *  pool's threads free their start-up allocations at a time of their own choosing. */
size_t fuzz_live_bytes(void);
#define FUZZ_CHECK_NO_LEAK(before) FUZZ_CHECK(fuzz_live_bytes() <= (before))

/** Writes n bytes to this process's scratch file (created on first use under $TMPDIR, else
 *  /dev/shm or /tmp; removed at exit) and returns its path. Aborts if the file cannot be
 *  written. */
const char *fuzz_write_tmp(const uint8_t *data, size_t n);
/** A second scratch path in the same directory for encoders that write files (not created
 *  here; removed at exit). */
const char *fuzz_tmp_out_path(void);
/** Reads a whole file into an owned buffer (cz_free); NULL when it cannot be read. */
uint8_t *fuzz_read_file(const char *path, size_t *len);

#endif /* CUZK_TESTS_FUZZ_FUZZ_H */
