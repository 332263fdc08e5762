/* fuzz_proofs_c1.c - libFuzzer target for the C1 readers: the bare JSON and Curio's wrapper
 * (through vp_c1_parse) and the bincode form of a 2 KiB StackedDrg2KiBV1_1 output; decodable
 * outputs also go through the native verifier. Any input must give CUZK_OK or an error with a
 * message, never a crash, a leak or an out-of-bounds access.
 * Round trips (proofs.h formats): a decodable bincode input re-encodes to exactly the input;
 * its JSON and Curio forms (our writers) read back to the same bincode, with the wrapper's
 * sector number; a decodable JSON input writes JSON that reads back and writes the same JSON
 * again (a fixed point) and the same bincode. So the committed bincode seed also drives the
 * JSON and wrapper readers through their success paths.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

/* bincode of c1 (owned, cz_free). */
static uint8_t *to_bincode(const vp_c1 *c1, size_t *len)
{
    uint8_t *b = NULL;
    FUZZ_CHECK(vp_c1_to_bincode(c1, &b, len, NULL) == CUZK_OK);
    return b;
}

/* The verifier accepts or says why not (a fuzzed C1 almost never verifies). */
static void check_verify(const vp_c1 *c1)
{
    cz_diag dg;
    cz_diag_init(&dg);
    if (vp_c1_verify(c1, NULL, &dg) != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0');
    }
}

static void check_json_forms(const vp_c1 *c1, const uint8_t *bin, size_t bin_len)
{
    char *json = NULL, *wrap = NULL;
    size_t json_len, wrap_len, n;
    uint64_t num = 0;
    uint8_t *b;
    vp_c1 back;

    FUZZ_CHECK(vp_c1_to_json(c1, &json, &json_len, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_c1_parse(&back, json, json_len, NULL) == CUZK_OK);
    b = to_bincode(&back, &n);
    FUZZ_CHECK(n == bin_len && memcmp(b, bin, n) == 0);
    cz_free(b);
    vp_c1_clear(&back);

    FUZZ_CHECK(vp_c1_to_curio_json(c1, 77, &wrap, &wrap_len, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_c1_from_curio_json(&back, &num, wrap, wrap_len, NULL) == CUZK_OK && num == 77);
    b = to_bincode(&back, &n);
    FUZZ_CHECK(n == bin_len && memcmp(b, bin, n) == 0);
    cz_free(b);
    vp_c1_clear(&back);
    FUZZ_CHECK(vp_c1_parse(&back, wrap, wrap_len, NULL) == CUZK_OK);
    vp_c1_clear(&back);
    cz_free(json);
    cz_free(wrap);
}

static void check_bincode(const uint8_t *data, size_t size)
{
    seal_porep_config cfg;
    vp_c1 c1;
    cz_diag dg;
    uint8_t *b;
    size_t n;

    cz_diag_init(&dg);
    FUZZ_CHECK(seal_porep_config_for_id(&cfg, 5));
    cuzk_err err = vp_c1_from_bincode(&c1, &cfg, data, size, &dg);
    if (err != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0');
        return;
    }
    fuzz_note_ok();
    b = to_bincode(&c1, &n);
    FUZZ_CHECK(n == size && memcmp(b, data, size) == 0);
    check_json_forms(&c1, b, n);
    cz_free(b);
    check_verify(&c1);
    vp_c1_clear(&c1);
}

static void check_json(const uint8_t *data, size_t size)
{
    vp_c1 c1, back;
    cz_diag dg;
    char *j1 = NULL, *j2 = NULL;
    size_t n1, n2, b1n, b2n;
    uint8_t *b1, *b2;

    cz_diag_init(&dg);
    cuzk_err err = vp_c1_parse(&c1, (const char *)data, size, &dg);
    if (err != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0');
        return;
    }
    fuzz_note_ok();
    FUZZ_CHECK(vp_c1_to_json(&c1, &j1, &n1, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_c1_from_json(&back, j1, n1, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_c1_to_json(&back, &j2, &n2, NULL) == CUZK_OK);
    FUZZ_CHECK(n1 == n2 && memcmp(j1, j2, n1) == 0);
    b1 = to_bincode(&c1, &b1n);
    b2 = to_bincode(&back, &b2n);
    FUZZ_CHECK(b1n == b2n && memcmp(b1, b2, b1n) == 0);
    check_verify(&c1);
    cz_free(b1);
    cz_free(b2);
    cz_free(j1);
    cz_free(j2);
    vp_c1_clear(&c1);
    vp_c1_clear(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();

    check_json(data, size);
    check_bincode(data, size);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
