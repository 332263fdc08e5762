/* internal.h - what g1.c, g2.c and pairing.c share: the flag bits of the point encodings and
 * the signed-window (Booth) recoding used by scalar multiplication.
 */
#ifndef CUZK_CURVE_INTERNAL_H
#define CUZK_CURVE_INTERNAL_H

#include "common/common.h"

/* Flag bits in byte 0 of an encoded point (spec groth16.md 2.3). */
#define CURVE_FLAG_COMPRESSED 0x80u
#define CURVE_FLAG_INFINITY   0x40u
#define CURVE_FLAG_SIGN       0x20u
#define CURVE_FLAG_MASK       0xe0u

/* Signed windows of CURVE_WINDOW bits; tables hold [1..CURVE_TABLE]P. */
#define CURVE_WINDOW 5
#define CURVE_TABLE  16

/** True iff all n bytes are zero. */
static inline bool curve_bytes_are_zero(const uint8_t *b, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= b[i];
    }
    return acc == 0;
}

/** Number of significant bits of the n-limb little-endian integer k (0 for k = 0). */
static inline size_t curve_bitlen(const uint64_t *k, size_t n)
{
    while (n > 0 && k[n - 1] == 0) {
        n--;
    }
    if (n == 0) {
        return 0;
    }
    return 64 * (n - 1) + (size_t)(64 - __builtin_clzll(k[n - 1]));
}

/** Bit i of k (zero beyond the last limb). */
static inline unsigned curve_bit(const uint64_t *k, size_t n, size_t i)
{
    return i / 64 < n ? (unsigned)((k[i / 64] >> (i % 64)) & 1u) : 0u;
}

/** Digit i of the Booth recoding of k with 5-bit windows:
 *  d_i = b(5i-1) + b(5i) + 2 b(5i+1) + 4 b(5i+2) + 8 b(5i+3) - 16 b(5i+4), b(-1) = 0,
 *  so that k = sum_i d_i 2^(5i) with d_i in [-16, 16]; windows 0 .. bitlen/5 suffice. */
static inline int curve_booth_digit(const uint64_t *k, size_t n, size_t i)
{
    size_t lo = CURVE_WINDOW * i;
    unsigned v = lo > 0 ? curve_bit(k, n, lo - 1) : 0u;
    for (unsigned j = 0; j < CURVE_WINDOW; j++) {
        v |= curve_bit(k, n, lo + j) << (j + 1);
    }
    return (int)(v & 1u) + (int)((v >> 1) & 15u) - 16 * (int)((v >> 5) & 1u);
}

#endif /* CUZK_CURVE_INTERNAL_H */
