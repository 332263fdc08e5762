/* iden3.h - a minimal writer and section lister for the iden3 binary container (magic, u32 LE
 * version, u32 LE section count, sections of u32 LE type + u64 LE size + data; see
 * groth16/circom.h), for the circom fuzz targets and the seed generator. Header-only (static
 * inline); every write is bounds-checked against the buffer's capacity by the caller's sizing.
 */
#ifndef CUZK_TESTS_FUZZ_IDEN3_H
#define CUZK_TESTS_FUZZ_IDEN3_H

#include <string.h>

#include "common/bytes.h"
#include "field/fr.h"

/* r as 32 little-endian bytes (spec groth16.md 1.1, byte-reversed). */
static const uint8_t IDEN3_R_LE[FR_NBYTES] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};

typedef struct iden3_buf {
    uint8_t *p;
    size_t len, cap;
} iden3_buf;

static inline void iden3_put(iden3_buf *b, const void *data, size_t n)
{
    if (b->len + n <= b->cap) {
        memcpy(b->p + b->len, data, n);
    }
    b->len += n; /* a caller that sized cap too small sees len > cap */
}

static inline void iden3_u32(iden3_buf *b, uint32_t v)
{
    uint8_t t[4];
    cz_store_le32(t, v);
    iden3_put(b, t, 4);
}

static inline void iden3_u64(iden3_buf *b, uint64_t v)
{
    uint8_t t[8];
    cz_store_le64(t, v);
    iden3_put(b, t, 8);
}

/* The file header: magic, version, number of sections. */
static inline void iden3_header(iden3_buf *b, const char magic[4], uint32_t version, uint32_t nsec)
{
    iden3_put(b, magic, 4);
    iden3_u32(b, version);
    iden3_u32(b, nsec);
}

/* A section header; the caller then writes exactly `size` bytes. */
static inline void iden3_section(iden3_buf *b, uint32_t type, uint64_t size)
{
    iden3_u32(b, type);
    iden3_u64(b, size);
}

/* The field header common to .r1cs and .wtns: n8 = 32, then r. */
static inline void iden3_field(iden3_buf *b)
{
    iden3_u32(b, FR_NBYTES);
    iden3_put(b, IDEN3_R_LE, FR_NBYTES);
}

/* Lists the section types of a well-formed container (one the reader accepted) into
 * types[0 .. *n); false if there are more than `cap`. */
static inline bool iden3_section_types(const uint8_t *buf, size_t len, uint32_t *types, size_t cap,
                                       size_t *n)
{
    size_t pos = 12;
    uint32_t nsec = cz_load_le32(buf + 8);

    *n = 0;
    for (uint32_t i = 0; i < nsec; i++) {
        if (i >= cap || len - pos < 12) {
            return false;
        }
        types[i] = cz_load_le32(buf + pos);
        pos += 12 + (size_t)cz_load_le64(buf + pos + 4);
        *n = i + 1;
    }
    return true;
}

#endif /* CUZK_TESTS_FUZZ_IDEN3_H */
