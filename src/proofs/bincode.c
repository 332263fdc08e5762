/* bincode.c - the bincode 1.x reader of proofs/'s formats: little-endian fixed-width integers,
 * u64 lengths, and 32-byte nodes, with messages that name the location and the byte offset.
 */
#include "proofs/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/bytes.h"

void vp_br_init(vp_br *r, const char *what, const uint8_t *buf, size_t len, cz_diag *dg)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->what = what;
    r->dg = dg;
}

cuzk_err vp_br_fail(vp_br *r, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cz_fail(r->dg, CUZK_E_FORMAT, "%s: %s%s%s (at byte %zu of %zu)", r->what, r->path.s,
                   r->path.len ? ": " : "", msg, r->pos, r->len);
}

static cuzk_err br_need(vp_br *r, size_t n, const char *what)
{
    if (r->len - r->pos < n) {
        return vp_br_fail(r, "truncated: %s needs %zu bytes, %zu left", what, n, r->len - r->pos);
    }
    return CUZK_OK;
}

cuzk_err vp_br_u32(vp_br *r, uint32_t *out)
{
    cuzk_err err = br_need(r, 4, "a u32");
    if (err == CUZK_OK) {
        *out = cz_load_le32(r->buf + r->pos);
        r->pos += 4;
    }
    return err;
}

cuzk_err vp_br_u64(vp_br *r, uint64_t *out)
{
    cuzk_err err = br_need(r, 8, "a u64");
    if (err == CUZK_OK) {
        *out = cz_load_le64(r->buf + r->pos);
        r->pos += 8;
    }
    return err;
}

cuzk_err vp_br_node(vp_br *r, uint8_t out[32])
{
    cuzk_err err = br_need(r, 32, "a 32-byte node");
    if (err == CUZK_OK) {
        memcpy(out, r->buf + r->pos, 32);
        r->pos += 32;
    }
    return err;
}

cuzk_err vp_br_len(vp_br *r, uint64_t *n, size_t min_elem)
{
    cuzk_err err = vp_br_u64(r, n);
    if (err != CUZK_OK) {
        return err;
    }
    if (min_elem && *n > (r->len - r->pos) / min_elem) {
        r->pos -= 8;
        return vp_br_fail(r, "length %llu cannot fit in the %zu bytes left", (unsigned long long)*n,
                          r->len - r->pos - 8);
    }
    return CUZK_OK;
}

cuzk_err vp_br_end(vp_br *r)
{
    if (r->pos != r->len) {
        return vp_br_fail(r, "%zu trailing bytes", r->len - r->pos);
    }
    return CUZK_OK;
}
