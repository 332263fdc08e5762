/* err.c - names and messages of the error codes, expanded from CUZK_ERRORS. */
#include "cuzk/err.h"

#include <stddef.h>

#define ERR_NAME(name, msg) #name,
#define ERR_MSG(name, msg)  msg,
static const char *const err_names[] = {CUZK_ERRORS(ERR_NAME)};
static const char *const err_msgs[] = {CUZK_ERRORS(ERR_MSG)};
#undef ERR_NAME
#undef ERR_MSG

_Static_assert(sizeof(err_names) / sizeof(err_names[0]) == CUZK_ERR_COUNT, "error table");

const char *cuzk_errname(cuzk_err err)
{
    if ((unsigned)err >= CUZK_ERR_COUNT) {
        return "E_UNKNOWN";
    }
    return err_names[err];
}

const char *cuzk_strerror(cuzk_err err)
{
    if ((unsigned)err >= CUZK_ERR_COUNT) {
        return "unknown error";
    }
    return err_msgs[err];
}
