/* cmd_params.c - cuzk-bench check-params: loads a .params file (and its .vk) the way cuzkd does,
 * reports what it holds and how long the load took, and optionally makes it resident on GPU 0.
 * A corrupt file fails with the loader's message: the file, the section, the point and its
 * byte offset (docs/formats.md "What the loaders check").
 *
 *   cuzk-bench check-params --params FILE [--vk FILE] [--subgroup] [--cold] [--gpu]
 *                           [--threads N]
 *
 * --cold asks the kernel to drop the file's cached pages first (posix_fadvise DONTNEED: clean
 * pages of a file nobody else maps), so the load reads the disk; without it a recently written
 * or read file loads from the page cache.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common/alloc.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

static const char *const ABOUT =
    "Loads a .params file as cuzkd does (every count checked against the file size, every\n"
    "point decoded and checked on the curve; --subgroup: in the subgroup too) and prints its\n"
    "sections and the load time; with --vk also the .vk file, which must hold the same\n"
    "verifying key. --gpu then makes the parameters resident on GPU 0 (timed). --cold drops\n"
    "the file's pages from the page cache first. Exit 0 when everything loads and agrees, 2\n"
    "otherwise, with the file, section, point and byte offset of the first bad point.";

/* Drops the clean cached pages of `path` (best effort: the kernel may keep some). */
static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* The .vk at vk_path holds the same key as the parameters. */
static bool same_vk(const char *cmd, const char *vk_path, const g16_params_t *p)
{
    g16_vk_t *vk = NULL;
    cz_diag dg;
    bool same = false;

    cz_diag_init(&dg);
    cuzk_err err = g16_vk_load(&vk, vk_path, &dg);
    if (err != CUZK_OK) {
        cli_error_diag(cmd, err, &dg);
        return false;
    }
    same = g16_vk_eq(vk, &p->vk);
    if (!same) {
        cli_error(cmd, "%s: another verifying key than the parameters'", vk_path);
    }
    g16_vk_free(vk);
    return same;
}

/* Uploads to GPU 0 (from the host points, or with `path` decoding them from the file) and
 * prints the time and the host memory left after freeing the points. */
static bool to_gpu(const char *cmd, const g16_params_t *p, const char *path, cz_pool *pool)
{
    gpu_dev *dev = NULL;
    g16_gpu_params *gp = NULL;
    cz_diag dg;
    double t = cli_now_ms();

    cz_diag_init(&dg);
    cuzk_err err = gpu_dev_open(&dev, 0, &dg);
    if (err == CUZK_OK && path) {
        err = g16_gpu_params_from_file(&gp, p, path, dev, NULL, pool, &dg);
    } else if (err == CUZK_OK) {
        err = g16_gpu_params_new(&gp, p, dev, NULL, pool, &dg);
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "--gpu: %s", dg.msg[0] ? dg.msg : cuzk_strerror(err));
        gpu_dev_close(dev);
        return false;
    }
    printf("gpu from_file=%d upload_ms=%.1f device_bytes=%zu pinned_bytes=%zu rss_bytes=%zu\n",
           path != NULL, cli_now_ms() - t, g16_gpu_params_device_bytes(gp),
           g16_gpu_params_pinned_bytes(gp), cz_rss_now());
    g16_gpu_params_free(gp);
    gpu_dev_close(dev);
    return true;
}

int cmd_check_params(int argc, char **argv)
{
    const char *params_path = NULL, *vk_path = NULL;
    uint64_t threads = 0;
    bool subgroup = false, cold = false, use_gpu = false, from_file = false;
    cli_opt_t opts[] = {
        CLI_OPT("params", CLI_STR, &params_path, "FILE", "the .params file", true),
        CLI_OPT("vk", CLI_STR, &vk_path, "FILE", "its .vk file (must hold the same key)", false),
        CLI_OPT("subgroup", CLI_FLAG, &subgroup, NULL, "check every point's subgroup too", false),
        CLI_OPT("cold", CLI_FLAG, &cold, NULL, "drop the file's cached pages first", false),
        CLI_OPT("gpu", CLI_FLAG, &use_gpu, NULL, "then make them resident on GPU 0", false),
        CLI_OPT("from-file", CLI_FLAG, &from_file, NULL,
                "with --gpu: load only the key and counts, then decode the points from the file "
                "straight into the device's staging (cuzkd's path with a usable GPU)",
                false),
        CLI_OPT("threads", CLI_U64, &threads, "N", "cores to use (default: all)", false),
    };
    const char *cmd = argv[0];
    g16_load_opts_t lo = {.check_subgroup = false};
    g16_params_t *p = NULL;
    cz_pool *pool = NULL;
    cz_diag dg;
    double t;
    int rc = cli_parse(cmd, ABOUT, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    rc = CLI_EXIT_ERROR;
    cz_diag_init(&dg);
    if (!cli_pool(cmd, threads, &pool)) {
        return rc;
    }
    if (cold) {
        drop_cache(params_path);
    }
    if (from_file && !use_gpu) {
        rc = cli_error(cmd, "--from-file goes with --gpu");
        goto done;
    }
    lo.check_subgroup = subgroup;
    lo.skip_points = from_file;
    t = cli_now_ms();
    cuzk_err err = g16_params_load(&p, params_path, &lo, pool, &dg);
    t = cli_now_ms() - t;
    if (err != CUZK_OK) {
        cli_error_diag(cmd, err, &dg);
        goto done;
    }
    size_t bytes = g16_params_nbytes(p);
    printf("params ok file=%s bytes=%zu ic=%zu h=%zu l=%zu a=%zu b_g1=%zu b_g2=%zu load_ms=%.1f "
           "mib_per_s=%.0f cold=%d subgroup=%d rss_bytes=%zu\n",
           params_path, bytes, p->vk.ic_len, p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len,
           t, (double)bytes / 1048576.0 / (t > 0 ? t / 1e3 : 1e-3), cold, subgroup, cz_rss_now());
    if (vk_path && !same_vk(cmd, vk_path, p)) {
        goto done;
    }
    if (use_gpu && !to_gpu(cmd, p, from_file ? params_path : NULL, pool)) {
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    g16_params_free(p);
    cz_pool_free(pool);
    return rc;
}

static const char HOLD_ABOUT[] =
    "Takes all but LEAVE MiB of a device's free memory in a process of its own and keeps it until\n"
    "killed (or for --seconds), so that a daemon on the same device sees a card of that size:\n"
    "with cuzkd's gpus.device_memory set to the same size, an honest stand-in for a smaller\n"
    "card. Prints one line once the memory is held.";

int cmd_gpu_hold(int argc, char **argv)
{
    uint64_t leave_mib = 0, device = 0, seconds = 0;
    cli_opt_t opts[] = {
        CLI_OPT("leave-mib", CLI_U64, &leave_mib, "MIB", "device memory left free", true),
        CLI_OPT("device", CLI_U64, &device, "N", "device ordinal (default 0)", false),
        CLI_OPT("seconds", CLI_U64, &seconds, "S", "hold for S seconds (default: until killed)",
                false),
    };
    const char *cmd = argv[0];
    const size_t grain = (size_t)1 << 30;
    gpu_buf *held[1024] = {0};
    gpu_dev *dev = NULL;
    gpu_dev_info info;
    size_t n = 0, took = 0;
    cz_diag dg;
    int rc = cli_parse(cmd, HOLD_ABOUT, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    rc = CLI_EXIT_ERROR;
    cz_diag_init(&dg);
    if (gpu_dev_open(&dev, (unsigned)device, &dg) != CUZK_OK ||
        gpu_dev_get_info(dev, &info, &dg) != CUZK_OK) {
        rc = cli_error(cmd, "%s", dg.msg);
        goto done;
    }
    const size_t leave = (size_t)leave_mib << 20;
    size_t want = info.free_mem > leave ? info.free_mem - leave : 0;
    while (took < want && n < ARRAY_LEN(held)) {
        size_t len = want - took < grain ? want - took : grain;
        if (gpu_buf_new(&held[n], dev, len, &dg) != CUZK_OK) {
            rc = cli_error(cmd, "after %zu bytes: %s", took, dg.msg);
            goto done;
        }
        n++;
        took += len;
    }
    if (gpu_dev_get_info(dev, &info, &dg) != CUZK_OK) {
        info.free_mem = 0;
    }
    printf("gpu-hold: device %" PRIu64 " held_bytes=%zu free_bytes=%zu\n", device, took,
           info.free_mem);
    fflush(stdout);
    if (seconds) {
        sleep((unsigned)seconds);
    } else {
        for (;;) {
            pause();
        }
    }
    rc = CLI_EXIT_OK;
done:
    for (size_t i = 0; i < n; i++) {
        gpu_buf_free(held[i]);
    }
    gpu_dev_close(dev);
    return rc;
}
