/* fuzz_proofs_snap.c - libFuzzer target for the SnapDeals readers: one bincode PartitionProof
 * (2 KiB and 16 KiB shapes) and Curio's JSON list of base64 proofs; decodable proofs go
 * through the native verifier with arbitrary commitments.
 * Properties: errors carry a message; a decodable bincode input re-encodes to exactly the
 * input; a decodable list writes (vp_snap_list_to_json) a list that reads back to the same
 * proofs (compared through their bincode) and writes the same JSON again; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

static void free_list(vp_snap_proof *list, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        vp_snap_clear(&list[k]);
    }
    cz_free(list);
}

static void check_list(uint64_t sector_size, const vp_snap_proof *list, size_t n)
{
    vp_snap_proof *back = NULL;
    size_t nb = 0, l1, l2;
    char *j1 = NULL, *j2 = NULL;

    FUZZ_CHECK(vp_snap_list_to_json(list, n, &j1, &l1, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_snap_list_from_json(&back, &nb, sector_size, j1, l1, NULL) == CUZK_OK);
    FUZZ_CHECK(nb == n);
    for (size_t k = 0; k < n; k++) {
        uint8_t *a = NULL, *b = NULL;
        size_t na, nbb;
        FUZZ_CHECK(vp_snap_to_bincode(&list[k], &a, &na, NULL) == CUZK_OK);
        FUZZ_CHECK(vp_snap_to_bincode(&back[k], &b, &nbb, NULL) == CUZK_OK);
        FUZZ_CHECK(na == nbb && memcmp(a, b, na) == 0);
        cz_free(a);
        cz_free(b);
    }
    FUZZ_CHECK(vp_snap_list_to_json(back, nb, &j2, &l2, NULL) == CUZK_OK);
    FUZZ_CHECK(l1 == l2 && memcmp(j1, j2, l1) == 0);
    cz_free(j1);
    cz_free(j2);
    free_list(back, nb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t sizes[2] = {2048, 16384};
    static const uint8_t comm[32] = {7};
    size_t live = fuzz_live_bytes();

    for (int i = 0; i < 2; i++) {
        vp_snap_proof p, *list = NULL;
        seal_update_config cfg;
        size_t n = 0;
        cz_diag dg;

        cz_diag_init(&dg);
        if (vp_snap_from_bincode(&p, sizes[i], data, size, &dg) == CUZK_OK) {
            uint8_t *b = NULL;
            size_t nb = 0;
            fuzz_note_ok();
            FUZZ_CHECK(vp_snap_to_bincode(&p, &b, &nb, NULL) == CUZK_OK);
            FUZZ_CHECK(nb == size && memcmp(b, data, size) == 0);
            cz_free(b);
            FUZZ_CHECK(seal_update_config_for_size(&cfg, sizes[i]));
            cz_diag_init(&dg);
            if (vp_snap_verify(&p, &cfg, 0, comm, comm, comm, &dg) != CUZK_OK) {
                FUZZ_CHECK(dg.msg[0] != '\0');
            }
            vp_snap_clear(&p);
        } else {
            FUZZ_CHECK(dg.msg[0] != '\0');
        }
        cz_diag_init(&dg);
        if (vp_snap_list_from_json(&list, &n, sizes[i], (const char *)data, size, &dg) == CUZK_OK) {
            fuzz_note_ok();
            check_list(sizes[i], list, n);
            free_list(list, n);
        } else {
            FUZZ_CHECK(dg.msg[0] != '\0');
        }
    }
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
