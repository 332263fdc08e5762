/* err.h - the error codes of every fallible cuzk function.
 * Each code is listed once, in CUZK_ERRORS; the enum and the name/message tables expand it.
 */
#ifndef CUZK_ERR_H
#define CUZK_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#    define CUZK_API __attribute__((visibility("default")))
#else
#    define CUZK_API
#endif

#define CUZK_ERRORS(X)                                                                             \
    X(OK, "success")                                                                               \
    X(E_NOMEM, "out of memory")                                                                    \
    X(E_INVAL, "invalid argument")                                                                 \
    X(E_IO, "I/O error")                                                                           \
    X(E_FORMAT, "malformed or non-canonical encoding")                                             \
    X(E_NOT_IN_GROUP, "point not on curve or not in subgroup")                                     \
    X(E_UNSAT, "witness does not satisfy the constraints")                                         \
    X(E_GPU, "GPU runtime error")                                                                  \
    X(E_NO_GPU, "no usable GPU")                                                                   \
    X(E_CANCELLED, "job cancelled")                                                                \
    X(E_EXISTS, "already exists")                                                                  \
    X(E_NOT_FOUND, "not found")

#define CUZK_ERR_ENUM(name, msg) CUZK_##name,
typedef enum { CUZK_ERRORS(CUZK_ERR_ENUM) CUZK_ERR_COUNT } cuzk_err;
#undef CUZK_ERR_ENUM

/** The code's name without prefix ("E_NOMEM"); "E_UNKNOWN" for a value outside the list. */
CUZK_API const char *cuzk_errname(cuzk_err err);

/** A one-line description of the code ("out of memory"). */
CUZK_API const char *cuzk_strerror(cuzk_err err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_ERR_H */
