/* fuzz_field.c - libFuzzer target for the canonical field decoders fp_from_bytes (48 bytes
 * big-endian) and fr_from_bytes (32 bytes little-endian).
 * Input: 48 bytes decode as Fp, 32 bytes as Fr; any other length decodes its first 48 (Fp) and
 * first 32 (Fr) bytes, zero-padded.
 * Properties: a decoder accepts exactly the values below its modulus (compared here bytewise
 * with p and r as spec groth16.md 1.1 writes them, independently of the field code), and
 * to_bytes(from_bytes(x)) == x for every accepted x.
 */
#include "fuzz.h"

#include <string.h>

#include "field/fp.h"
#include "field/fr.h"

/* p, big-endian (spec groth16.md 1.1). */
static const uint8_t P_BE[FP_NBYTES] = {
    0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
    0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
    0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab,
};

/* r, big-endian (spec groth16.md 1.1); the Fr encoding is its byte-reverse. */
static const uint8_t R_BE[FR_NBYTES] = {
    0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
    0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
};

static void check_fp(const uint8_t in[FP_NBYTES])
{
    uint8_t out[FP_NBYTES];
    fp_t a;
    bool below = memcmp(in, P_BE, FP_NBYTES) < 0; /* big-endian: memcmp orders numerically */
    cuzk_err err = fp_from_bytes(&a, in);

    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_FORMAT);
    FUZZ_CHECK((err == CUZK_OK) == below);
    if (err != CUZK_OK) {
        return;
    }
    fuzz_note_ok();
    fp_to_bytes(out, &a);
    FUZZ_CHECK(memcmp(out, in, FP_NBYTES) == 0);
}

static void check_fr(const uint8_t in[FR_NBYTES])
{
    uint8_t be[FR_NBYTES], out[FR_NBYTES];
    fr_t a;
    fr_repr_t repr;
    cuzk_err err = fr_from_bytes(&a, in);

    for (size_t i = 0; i < FR_NBYTES; i++) {
        be[i] = in[FR_NBYTES - 1 - i];
    }
    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_FORMAT);
    FUZZ_CHECK((err == CUZK_OK) == (memcmp(be, R_BE, FR_NBYTES) < 0));
    if (err != CUZK_OK) {
        return;
    }
    fuzz_note_ok();
    fr_to_bytes(out, &a);
    FUZZ_CHECK(memcmp(out, in, FR_NBYTES) == 0);
    /* The repr path agrees with the byte path. */
    fr_to_repr(&repr, &a);
    fr_repr_to_bytes(out, &repr);
    FUZZ_CHECK(memcmp(out, in, FR_NBYTES) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t buf[FP_NBYTES];

    if (size == FP_NBYTES) {
        check_fp(data);
        return 0;
    }
    if (size == FR_NBYTES) {
        check_fr(data);
        return 0;
    }
    memset(buf, 0, sizeof(buf));
    memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf));
    check_fp(buf);
    check_fr(buf);
    return 0;
}
