/* test_base64.c - common/base64.h against RFC 4648's test vectors (section 10), a round trip of
 * every length and byte value, and the strict decoder's rejections, each with its offset and
 * message: wrong length (truncated), characters outside the alphabet, misplaced or missing
 * padding, and non-canonical final groups. */
#include "harness/test.h"

#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"

/* RFC 4648 section 10 */
static const char *const RFC4648[][2] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

TEST(base64_rfc4648_vectors)
{
    for (size_t i = 0; i < ARRAY_LEN(RFC4648); i++) {
        const char *raw = RFC4648[i][0], *enc = RFC4648[i][1];
        char out[16];
        uint8_t *dec;
        size_t n;

        CHECK_EQ_U64(cz_base64_encoded_len(strlen(raw)), strlen(enc));
        memset(out, 'x', sizeof(out));
        cz_base64_encode(out, (const uint8_t *)raw, strlen(raw));
        CHECK_STR_EQ(out, enc);
        CHECK_EQ_U64((unsigned char)out[strlen(enc) + 1], 'x'); /* nothing past the NUL */
        CHECK_OK(cz_base64_decode(&dec, &n, enc, strlen(enc), NULL, NULL));
        CHECK(dec != NULL); /* also for the empty string */
        CHECK_EQ_U64(n, strlen(raw));
        CHECK_MEM_EQ(dec, raw, n);
        cz_free(dec);
    }
}

/* Every length 0..200 of a buffer holding every byte value; the alphabet's 64 characters all
 * appear in the encodings. */
TEST(base64_round_trip)
{
    uint8_t in[200];
    char enc[300];
    bool seen[256] = {false};

    for (size_t i = 0; i < sizeof(in); i++) {
        in[i] = (uint8_t)(i * 151 + 7);
    }
    for (size_t n = 0; n <= sizeof(in); n++) {
        uint8_t *dec;
        size_t m;
        cz_base64_encode(enc, in, n);
        CHECK_EQ_U64(strlen(enc), cz_base64_encoded_len(n));
        for (const char *p = enc; *p; p++) {
            seen[(unsigned char)*p] = true;
        }
        CHECK_OK(cz_base64_decode(&dec, &m, enc, strlen(enc), NULL, NULL));
        CHECK_EQ_U64(m, n);
        CHECK_MEM_EQ(dec, in, n);
        cz_free(dec);
    }
    for (const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="; *a;
         a++) {
        CHECK_MSG(seen[(unsigned char)*a], "'%c' never written", *a);
    }
    /* Binary input with every value of the last byte: "/w==" is 0xff. */
    uint8_t ff = 0xff, *dec;
    size_t m;
    cz_base64_encode(enc, &ff, 1);
    CHECK_STR_EQ(enc, "/w==");
    CHECK_OK(cz_base64_decode(&dec, &m, "+/+/", 4, NULL, NULL));
    CHECK_EQ_U64(m, 3);
    CHECK_MEM_EQ(dec, "\xfb\xff\xbf", 3);
    cz_free(dec);
}

/* Decodes `in`, expecting CUZK_E_FORMAT at offset `at` with `needle` in the message. */
static void check_bad(const char *in, size_t at, const char *needle)
{
    uint8_t *dec = (uint8_t *)1;
    size_t n = 99, bad = 99;
    cz_diag dg;

    cz_diag_init(&dg);
    CHECK_ERR(cz_base64_decode(&dec, &n, in, strlen(in), &bad, &dg), CUZK_E_FORMAT);
    CHECK(dec == NULL);
    CHECK_EQ_U64(n, 0);
    CHECK_MSG(bad == at, "\"%s\": offset %zu, expected %zu", in, bad, at);
    CHECK_MSG(strncmp(dg.msg, "invalid base64: ", 16) == 0, "\"%s\": %s", in, dg.msg);
    CHECK_MSG(strstr(dg.msg, needle) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", in, dg.msg,
              needle);
    /* the same without bad_at or a diagnostic */
    CHECK_ERR(cz_base64_decode(&dec, &n, in, strlen(in), NULL, NULL), CUZK_E_FORMAT);
}

TEST(base64_rejects_truncated)
{
    check_bad("Zg=", 3, "length 3 is not a multiple of 4");
    check_bad("Zm9vY", 5, "length 5");
    check_bad("Z", 1, "length 1");
    check_bad("Zm9vYmFyZg", 10, "length 10"); /* "foobarf" cut after "Zg" */
}

TEST(base64_rejects_bad_characters)
{
    check_bad("Zm9v!A==", 4, "character '!' at offset 4");
    check_bad("Zm9v Yg=", 4, "byte 0x20 at offset 4");  /* no whitespace */
    check_bad("Zm9v\nYg=", 4, "byte 0x0a at offset 4"); /* no line breaks */
    check_bad("Zm-_", 2, "character '-' at offset 2");  /* not the URL-safe alphabet */
    check_bad("Zm9\xc3\xa9=AA", 3, "byte 0xc3 at offset 3");
    /* an embedded NUL is a character like any other */
    uint8_t *dec;
    size_t n, bad;
    CHECK_ERR(cz_base64_decode(&dec, &n, "Zm\0v", 4, &bad, NULL), CUZK_E_FORMAT);
    CHECK_EQ_U64(bad, 2);
}

TEST(base64_rejects_bad_padding)
{
    check_bad("Z===", 1, "padding '=' before the end at offset 1");
    check_bad("====", 0, "padding '=' before the end at offset 0");
    check_bad("Zg==Zg==", 2, "padding '=' before the end at offset 2");
    check_bad("Zg=a", 2, "padding '=' before the end at offset 2");
    check_bad("Zm=v", 2, "padding '=' before the end");
    /* no padding where it is due: "Zg" alone has the wrong length */
    check_bad("Zm9vYg", 6, "length 6");
}

TEST(base64_rejects_non_canonical)
{
    /* "Zh==" would be "f" with a stray bit; "Zm9=" "fo" with one */
    check_bad("Zh==", 1, "non-zero bits below the last byte at offset 1");
    check_bad("Zm9=", 2, "non-zero bits below the last byte at offset 2");
    check_bad("Zm9vYh==", 5, "non-zero bits");
    /* their canonical forms decode */
    uint8_t *dec;
    size_t n;
    CHECK_OK(cz_base64_decode(&dec, &n, "Zg==", 4, NULL, NULL));
    cz_free(dec);
    CHECK_OK(cz_base64_decode(&dec, &n, "Zm8=", 4, NULL, NULL));
    cz_free(dec);
}
