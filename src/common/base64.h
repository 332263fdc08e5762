/* base64.h - base64 with the standard alphabet and '=' padding (RFC 4648 section 4), as Go's
 * encoding/base64.StdEncoding writes a []byte: the form of the binary fields in Curio's JSON
 * (a C1 wrapper's Phase1Out, snap-vproof.json).
 * Decoding is strict: no whitespace or line breaks, padding required, and the bits below the
 * last byte must be zero (RFC 4648 section 3.5), so each byte string has exactly one encoding.
 * Memory: cz_base64_decode allocates its output; encoding writes into the caller's buffer.
 * Threads: reentrant.
 */
#ifndef CUZK_COMMON_BASE64_H
#define CUZK_COMMON_BASE64_H

#include "common/common.h"

/** Characters in the encoding of n bytes, without the NUL: 4 * ceil(n / 3). */
size_t cz_base64_encoded_len(size_t n);

/** Writes the encoding of in[0..n) and a NUL into out (cz_base64_encoded_len(n) + 1 bytes). */
void cz_base64_encode(char *out, const uint8_t *in, size_t n);

/** Decodes the n characters at `in` (no NUL needed) into an owned buffer (*out, free with
 *  cz_free; allocated even for n = 0) of *outlen bytes.
 *  CUZK_E_FORMAT: not strict base64. *bad_at (may be NULL) gets the offset of the first
 *  offending character (n when the length is wrong) and dg a message starting "invalid base64: "
 *  that names it: a length that is not a multiple of 4, a character outside the alphabet, '='
 *  before the end, or non-zero bits below the last byte (a non-canonical encoding).
 *  CUZK_E_NOMEM: out of memory. On failure *out is NULL. */
CZ_MUST_USE cuzk_err cz_base64_decode(uint8_t **out, size_t *outlen, const char *in, size_t n,
                                      size_t *bad_at, cz_diag *dg);

#endif /* CUZK_COMMON_BASE64_H */
