/* test_setup_twin.c - the device setup (g16_setup_gpu_write) against the CPU setup
 * (g16_setup_shape + g16_params_write) on a real Filecoin circuit: the 2 KiB WindowPoSt
 * partition (the smallest Filecoin circuit; 120 thousand points), byte for byte, .params and
 * VK. Built twice like tests/gpu: test_setup_twin over the real backend (skips, exit 77,
 * without a device) and test_setup_twin_emu over the CPU emulation of the kernels.
 * test_groth16_gpu.c holds the same comparison on random circuits that reach the corners of
 * the value filter (empty A or B densities, dark aux blocks).
 */
#include "harness/test.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "circuits/circuits.h"
#include "common/alloc.h"
#include "common/pool.h"
#include "gpu/gpu.h"
#include "gpu/gpu_test_util.h"
#include "groth16/groth16.h"
#include "groth16/internal.h"
#include "r1cs/r1cs.h"

/* The first differing byte, or len when equal. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (a[i] != b[i]) {
            return i;
        }
    }
    return len;
}

TEST(setup_twin_window_post_2k)
{
    gpu_dev *dev = gtu_need_dev();
    const uint64_t seed = 0x5eed;
    unsigned nthreads = cz_cpu_count();
    char cpu_path[64], gpu_path[64];
    cz_pool *pool = NULL;
    cs_t *cs = NULL;
    cs_shape_t shape;
    g16_params_t *p = NULL;
    g16_vk_t *vk = NULL;
    g16_setup_stats_t st;
    uint8_t *va, *vb;
    g16_file_t fa, fb;
    cz_diag dg;

    snprintf(cpu_path, sizeof(cpu_path), "/tmp/cuzk-twin2k-%d-cpu.params", (int)getpid());
    snprintf(gpu_path, sizeof(gpu_path), "/tmp/cuzk-twin2k-%d-gpu.params", (int)getpid());
    CHECK_OK(cz_pool_new(&pool, nthreads > 1 ? nthreads - 1 : 0, "twin", NULL));
    CHECK_OK(cs_new_shape_recorder(&cs, NULL, NULL));
    CHECK_OK(circ_synth_blank(cs, CIRC_WINDOW_POST, 2048, 0, pool, NULL));
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_shape(cs, &shape, NULL));
    cs_free(cs);
    CHECK_OK(g16_setup_shape(&p, NULL, &shape, &seed, pool, NULL));
    CHECK_OK(g16_params_write(p, cpu_path, pool, NULL));
    cz_diag_init(&dg);
    CHECK_MSG(g16_setup_gpu_write(&vk, &st, &shape, &seed, dev, gpu_path, pool, &dg) == CUZK_OK,
              "%s", dg.msg);
    printf("  device setup: qap %.0f ms, tables %.0f ms, G1 %.0f ms, G2 %.0f ms, total %.0f ms\n",
           st.qap_ms, st.tables_ms, st.g1_ms, st.g2_ms, st.total_ms);
    CHECK_OK(g16_file_map(&fa, cpu_path, NULL));
    CHECK_OK(g16_file_map(&fb, gpu_path, NULL));
    CHECK_EQ_U64(fb.len, fa.len);
    CHECK_MSG(first_diff(fa.data, fb.data, fa.len) == fa.len,
              "the files differ first at byte %zu of %zu", first_diff(fa.data, fb.data, fa.len),
              fa.len);
    CHECK_EQ_U64(g16_vk_nbytes(vk), g16_vk_nbytes(&p->vk));
    va = cz_malloc(g16_vk_nbytes(vk));
    vb = cz_malloc(g16_vk_nbytes(vk));
    CHECK(va && vb);
    g16_vk_to_bytes(va, vk);
    g16_vk_to_bytes(vb, &p->vk);
    CHECK_MEM_EQ(va, vb, g16_vk_nbytes(vk));
    remove(cpu_path);
    remove(gpu_path);
    g16_file_unmap(&fa);
    g16_file_unmap(&fb);
    cz_free(va), cz_free(vb);
    g16_vk_free(vk);
    g16_params_free(p);
    cs_shape_clear(&shape);
    cz_pool_free(pool);
}

TEST(zz_close_device)
{
    if (gtu_dev) {
        gpu_dev_close(gtu_dev);
        gtu_dev = NULL;
    }
    if (gpu_count() == 0) {
        test_skip("no GPU");
    }
}
