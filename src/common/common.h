/* common.h - the base layer every module uses: error handling, contract checks, diagnostics.
 * Errors (STYLE section 4): bad data from outside returns a cuzk_err; a broken contract between
 * modules is CZ_CHECK (always on, aborts); an expensive invariant is CZ_VERIFY (only in
 * CUZK_VERIFY builds). Detail goes to an optional caller-owned cz_diag.
 */
#ifndef CUZK_COMMON_COMMON_H
#define CUZK_COMMON_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#if defined(__GNUC__)
#    define CZ_MUST_USE     __attribute__((warn_unused_result))
#    define CZ_NORETURN     __attribute__((noreturn))
#    define CZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#    define CZ_LIKELY(x)    __builtin_expect(!!(x), 1)
#    define CZ_UNLIKELY(x)  __builtin_expect(!!(x), 0)
#else
#    define CZ_MUST_USE
#    define CZ_NORETURN
#    define CZ_PRINTF(f, a)
#    define CZ_LIKELY(x)   (x)
#    define CZ_UNLIKELY(x) (x)
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Binary byte sizes (uint64_t). */
#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

/** Aborts after printing "file:line: what". Used by CZ_CHECK and CZ_VERIFY. */
CZ_NORETURN void cz_panic(const char *file, int line, const char *what);

/** A contract between modules; always compiled in. */
#define CZ_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (CZ_UNLIKELY(!(cond))) {                                                                \
            cz_panic(__FILE__, __LINE__, #cond);                                                   \
        }                                                                                          \
    } while (0)

/** An expensive invariant; compiled only in CUZK_VERIFY builds (all tests). */
#if defined(CUZK_VERIFY) && CUZK_VERIFY
#    define CZ_VERIFY(cond) CZ_CHECK(cond)
#else
#    define CZ_VERIFY(cond) ((void)0)
#endif

/** Evaluates a cuzk_err expression; on failure stores it in `err` and jumps to `label`. */
#define CZ_TRY(err, expr, label)                                                                   \
    do {                                                                                           \
        (err) = (expr);                                                                            \
        if (CZ_UNLIKELY((err) != CUZK_OK)) {                                                       \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/** Diagnostic detail for a failure: code, message and where it was raised. Caller-owned. */
typedef struct cz_diag {
    cuzk_err code;
    const char *file;
    int line;
    char msg[512];
} cz_diag;

/** Clears a diagnostic to CUZK_OK with an empty message. */
void cz_diag_init(cz_diag *dg);

/** Records code and a formatted message in `dg` (when non-NULL) and returns `code`.
 *  Use through cz_fail(dg, code, fmt, ...), which adds file:line. */
cuzk_err cz_fail_at(cz_diag *dg, const char *file, int line, cuzk_err code, const char *fmt, ...)
    CZ_PRINTF(5, 6);
#define cz_fail(dg, code, ...) cz_fail_at((dg), __FILE__, __LINE__, (code), __VA_ARGS__)

/** "E_FORMAT: message (file:line)" or just the code's text when dg has no message. */
const char *cz_diag_str(const cz_diag *dg, char *buf, size_t len);

#endif /* CUZK_COMMON_COMMON_H */
