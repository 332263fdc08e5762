/* fuzz_base64.c - libFuzzer target for the strict base64 decoder (common/base64.h).
 * Input: any bytes, decoded as base64 text; the same bytes are also encoded and decoded back.
 * Properties: a decodable input is the one canonical encoding of what it decodes to (encoding
 * the output gives the input back, byte for byte), of 3 * size / 4 minus the padding bytes; a
 * rejected input is CUZK_E_FORMAT with an offset within the input and a message that starts
 * "invalid base64: ", and no output; any bytes survive encode then decode; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();
    uint8_t *out = NULL;
    size_t n = 0, bad = SIZE_MAX;
    char *enc = cz_malloc(cz_base64_encoded_len(size) + 1);
    cz_diag dg;
    cuzk_err err;

    FUZZ_CHECK(enc != NULL);
    cz_diag_init(&dg);
    err = cz_base64_decode(&out, &n, (const char *)data, size, &bad, &dg);
    if (err == CUZK_OK) {
        fuzz_note_ok();
        FUZZ_CHECK(size % 4 == 0 && n <= size / 4 * 3 && n + 2 >= size / 4 * 3);
        cz_base64_encode(enc, out, n);
        FUZZ_CHECK(strlen(enc) == size && memcmp(enc, data, size) == 0);
        cz_free(out);
    } else {
        FUZZ_CHECK(err == CUZK_E_FORMAT && out == NULL && n == 0);
        FUZZ_CHECK(bad <= size);
        FUZZ_CHECK(strncmp(dg.msg, "invalid base64: ", 16) == 0);
    }
    /* the input as bytes: encode, decode, compare */
    cz_base64_encode(enc, data, size);
    FUZZ_CHECK(strlen(enc) == cz_base64_encoded_len(size));
    FUZZ_CHECK(cz_base64_decode(&out, &n, enc, strlen(enc), NULL, NULL) == CUZK_OK);
    FUZZ_CHECK(n == size && memcmp(out, data, size) == 0);
    cz_free(out);
    cz_free(enc);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
