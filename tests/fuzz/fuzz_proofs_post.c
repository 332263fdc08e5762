/* fuzz_proofs_post.c - libFuzzer target for the bincode PoSt vanilla proof reader (2 KiB and
 * 32 GiB tree shapes) and, for decodable inputs, the native verifier.
 * Properties: errors carry a message; a decodable input re-encodes (vp_post_to_bincode) to
 * exactly the input (the challenge count is the verifier's business); nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t sizes[2] = {2048, 32ull << 30};
    static const uint32_t post_ids[2] = {10, 13};
    static const uint8_t rand[32] = {1};
    size_t live = fuzz_live_bytes();

    for (int i = 0; i < 2; i++) {
        vp_post_proof p;
        seal_post_config cfg;
        cz_diag dg;
        uint8_t *b = NULL;
        size_t n = 0;

        cz_diag_init(&dg);
        if (vp_post_from_bincode(&p, sizes[i], data, size, &dg) != CUZK_OK) {
            FUZZ_CHECK(dg.msg[0] != '\0');
            continue;
        }
        fuzz_note_ok();
        FUZZ_CHECK(p.ninclusion >= 1 && p.inclusion != NULL); /* the count is checked by verify */
        FUZZ_CHECK(vp_post_to_bincode(&p, &b, &n, NULL) == CUZK_OK);
        FUZZ_CHECK(n == size && memcmp(b, data, size) == 0);
        cz_free(b);
        FUZZ_CHECK(seal_post_config_for_id(&cfg, post_ids[i]));
        cz_diag_init(&dg);
        if (vp_post_verify(&p, &cfg, rand, 0, &dg) != CUZK_OK) {
            FUZZ_CHECK(dg.msg[0] != '\0');
        }
        vp_post_clear(&p);
    }
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
