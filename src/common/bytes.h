/* bytes.h - endian loads/stores and hex conversion. All inline, no allocation. */
#ifndef CUZK_COMMON_BYTES_H
#define CUZK_COMMON_BYTES_H

#include "common/common.h"

static inline uint32_t cz_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void cz_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t cz_load_le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void cz_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t cz_load_be64(const uint8_t *p)
{
    return (uint64_t)cz_load_be32(p) << 32 | cz_load_be32(p + 4);
}

static inline void cz_store_be64(uint8_t *p, uint64_t v)
{
    cz_store_be32(p, (uint32_t)(v >> 32));
    cz_store_be32(p + 4, (uint32_t)v);
}

static inline uint64_t cz_load_le64(const uint8_t *p)
{
    return (uint64_t)cz_load_le32(p + 4) << 32 | cz_load_le32(p);
}

static inline void cz_store_le64(uint8_t *p, uint64_t v)
{
    cz_store_le32(p, (uint32_t)v);
    cz_store_le32(p + 4, (uint32_t)(v >> 32));
}

/** Decodes exactly 2*n hex digits (either case, no prefix) into n bytes; false on bad input. */
bool cz_hex_decode(uint8_t *out, size_t n, const char *hex);

/** Writes 2*n lowercase hex digits and a NUL into out (2*n + 1 bytes). */
void cz_hex_encode(char *out, const uint8_t *in, size_t n);

/** Decodes one UTF-8 sequence (RFC 3629: shortest form, no surrogates, at most U+10FFFF) from
 *  the n > 0 bytes at p: its length 1..4 with the code point in *cp, or 0 when p does not start
 *  a valid sequence. */
size_t cz_utf8_next(const uint8_t *p, size_t n, uint32_t *cp);

#endif /* CUZK_COMMON_BYTES_H */
