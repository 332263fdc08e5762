/* cmd_filecoin.c - cuzk-bench setup for the Filecoin circuits: test parameters in the official
 * file format under the official file names, so that cuzkd finds them in its parameter cache
 * (FIL_PROOFS_PARAMETER_CACHE / --param-cache) exactly where the published ones would be.
 *
 *   cuzk-bench setup --proof porep|winning-post|window-post|snap|snap-poseidon
 *                    --sector-size SIZE --out DIR [--seed HEX] [--threads N] [--force] [--gpu]
 *
 * Steps: the blank circuit's compact shape is recorded (r1cs.h "Compact shape": the matrices
 * with the input constraints, in parallel over the pool) and fingerprinted
 * (cs_shape_fingerprint); g16_setup_shape draws the toxic waste (OS CSPRNG, or a deterministic
 * generator from --seed for reproducible, INSECURE fixtures) and the files are written:
 * v28-<id>.params, v28-<id>.vk, v28-<id>.meta ({"sector_size":N}) and a stamp
 * v28-<id>.cuzk-setup (format below) that records the circuit's counts and shape fingerprint
 * and the sizes of the files. With --gpu the points are made on device 0 and streamed into the
 * .params file as they are made (g16_setup_gpu_write): the same bytes, without the parameters
 * ever held in host memory.
 *
 * Up to date: when the stamp exists, its counts and shape fingerprint equal the circuit's (the
 * recording, which the setup needs anyway, and a parallel hash), it names this setup
 * implementation (see setup_impl_id) and the three files have the sizes the stamp names,
 * nothing is written ("up to date"). A stamp of another format or setup implementation is stale: the files are made again.
 * Files under the official names WITHOUT a stamp of ours are taken to be published parameters
 * and are never overwritten unless --force is given.
 *
 * `setup` with --r1cs keeps its circom meaning (cmd_groth16.c): this command hands over to it.
 *
 * Stamp file (text, one "key value" per line): "format cuzk-setup-3", setup (the
 * implementation, "<SETUP_IMPL_VERSION>-<probe>"), proof, sector_size, inputs (ONE included),
 * aux, constraints (without the input constraints), shape (the 16-hex-digit fingerprint),
 * domain, params_bytes, vk_bytes, meta_bytes, seed ("random" or the hex seed). Format 1 had no
 * setup line; format 2 held the bellpepper shape digest (a sequential pass: minutes at 32 GiB)
 * where format 3 holds the shape fingerprint.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "circuits/circuits.h"
#include "common/alloc.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "poly/poly.h"
#include "hash/hash.h"
#include "r1cs/r1cs.h"

#define STAMP_EXT    ".cuzk-setup"
#define STAMP_PREFIX "cuzk-setup-" /* every format of ours */
#define STAMP_FORMAT "cuzk-setup-3"
#define PATH_CAP     4096

/* The setup implementation. Bump SETUP_IMPL_VERSION whenever g16_setup, g16_params_write or
 * g16_vk_write may write other bytes for the same circuit and seed: parameters cached under
 * another version are then made again. The stamp also records a probe of the implementation
 * (setup_impl_id), which catches a forgotten bump whenever the change shows on a small
 * circuit. */
#define SETUP_IMPL_VERSION 1

/* The stamp's content. */
typedef struct fil_stamp {
    char setup[48]; /* setup_impl_id */
    char proof[32];
    uint64_t sector_size;
    cs_counts_t counts;
    char shape[17]; /* cs_shape_fingerprint, hex */
    uint64_t domain;
    uint64_t params_bytes, vk_bytes, meta_bytes;
    char seed[32];
} fil_stamp;

typedef struct fil_paths {
    char params[PATH_CAP], vk[PATH_CAP], meta[PATH_CAP], stamp[PATH_CAP];
} fil_paths;

static bool file_size(const char *path, uint64_t *out)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        return false;
    }
    *out = (uint64_t)st.st_size;
    return true;
}

static bool join(char *out, const char *dir, const char *name, const char *ext)
{
    int n = snprintf(out, PATH_CAP, "%s/%s%s", dir, name, ext);
    return n > 0 && n < PATH_CAP;
}

/* The four paths under DIR: the official names of circ_param_file_name, and the stamp. */
static cuzk_err make_paths(fil_paths *p, const char *dir, circ_kind kind, uint64_t bytes,
                           cz_diag *dg)
{
    char pn[CIRC_PARAM_NAME_MAX], vn[CIRC_PARAM_NAME_MAX], mn[CIRC_PARAM_NAME_MAX];
    char base[CIRC_PARAM_NAME_MAX];
    cuzk_err err = circ_param_file_name(pn, sizeof(pn), kind, bytes, CIRC_PARAM_PARAMS);

    if (err == CUZK_OK) {
        err = circ_param_file_name(vn, sizeof(vn), kind, bytes, CIRC_PARAM_VK);
    }
    if (err == CUZK_OK) {
        err = circ_param_file_name(mn, sizeof(mn), kind, bytes, CIRC_PARAM_META);
    }
    if (err != CUZK_OK) {
        return err;
    }
    size_t n = strlen(pn) - strlen(".params"); /* "v28-<id>" */
    memcpy(base, pn, n);
    base[n] = '\0';
    if (!join(p->params, dir, pn, "") || !join(p->vk, dir, vn, "") || !join(p->meta, dir, mn, "") ||
        !join(p->stamp, dir, base, STAMP_EXT)) {
        return cz_fail(dg, CUZK_E_INVAL, "%s: path too long", dir);
    }
    return CUZK_OK;
}

/* Counts of the blank circuit (counter backend). */
/* Copies src into dst[cap] when it fits; leaves dst empty otherwise. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    dst[0] = '\0';
    if (n < cap) {
        memcpy(dst, src, n + 1);
    }
}

typedef enum { STAMP_NONE, STAMP_OTHER_FORMAT, STAMP_CURRENT } stamp_state;

/* NONE: no stamp of ours (no file, or not written by this command); OTHER_FORMAT: ours, from
 * another format (stale). */
static stamp_state stamp_read(fil_stamp *st, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256], key[64], val[128];
    stamp_state state = STAMP_NONE;

    memset(st, 0, sizeof(*st));
    if (!f) {
        return STAMP_NONE;
    }
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%63s %127s", key, val) != 2) {
            continue;
        }
        unsigned long long u = strtoull(val, NULL, 10);
        if (strcmp(key, "format") == 0) {
            state = strcmp(val, STAMP_FORMAT) == 0                          ? STAMP_CURRENT
                    : strncmp(val, STAMP_PREFIX, strlen(STAMP_PREFIX)) == 0 ? STAMP_OTHER_FORMAT
                                                                            : STAMP_NONE;
        } else if (strcmp(key, "setup") == 0) {
            copy_str(st->setup, sizeof(st->setup), val);
        } else if (strcmp(key, "proof") == 0) {
            copy_str(st->proof, sizeof(st->proof), val);
        } else if (strcmp(key, "sector_size") == 0) {
            st->sector_size = u;
        } else if (strcmp(key, "inputs") == 0) {
            st->counts.num_inputs = (size_t)u;
        } else if (strcmp(key, "aux") == 0) {
            st->counts.num_aux = (size_t)u;
        } else if (strcmp(key, "constraints") == 0) {
            st->counts.num_constraints = (size_t)u;
        } else if (strcmp(key, "shape") == 0) {
            copy_str(st->shape, sizeof(st->shape), val);
        } else if (strcmp(key, "domain") == 0) {
            st->domain = u;
        } else if (strcmp(key, "params_bytes") == 0) {
            st->params_bytes = u;
        } else if (strcmp(key, "vk_bytes") == 0) {
            st->vk_bytes = u;
        } else if (strcmp(key, "meta_bytes") == 0) {
            st->meta_bytes = u;
        } else if (strcmp(key, "seed") == 0) {
            copy_str(st->seed, sizeof(st->seed), val);
        }
    }
    fclose(f);
    return state;
}

static cuzk_err stamp_write(const fil_stamp *st, const char *path, cz_diag *dg)
{
    char tmp[PATH_CAP + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "%s: %s", tmp, strerror(errno));
    }
    fprintf(f,
            "format %s\nsetup %s\nproof %s\nsector_size %" PRIu64
            "\ninputs %zu\naux %zu\nconstraints %zu\nshape %s\ndomain %" PRIu64
            "\nparams_bytes %" PRIu64 "\nvk_bytes %" PRIu64 "\nmeta_bytes %" PRIu64 "\nseed %s\n",
            STAMP_FORMAT, st->setup, st->proof, st->sector_size, st->counts.num_inputs,
            st->counts.num_aux, st->counts.num_constraints, st->shape, st->domain, st->params_bytes,
            st->vk_bytes, st->meta_bytes, st->seed);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return cz_fail(dg, CUZK_E_IO, "%s: %s", path, strerror(e));
    }
    return CUZK_OK;
}

static cuzk_err write_text(const char *path, const char *text, cz_diag *dg)
{
    char tmp[PATH_CAP + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "%s: %s", tmp, strerror(errno));
    }
    fputs(text, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return cz_fail(dg, CUZK_E_IO, "%s: %s", path, strerror(e));
    }
    return CUZK_OK;
}

static cuzk_err mkdir_p(const char *dir, cz_diag *dg)
{
    char buf[PATH_CAP];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof(buf)) {
        return cz_fail(dg, CUZK_E_INVAL, "bad directory '%s'", dir);
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                return cz_fail(dg, CUZK_E_IO, "mkdir %s: %s", buf, strerror(errno));
            }
            buf[i] = c;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return cz_fail(dg, CUZK_E_IO, "%s is not a directory", dir);
    }
    return CUZK_OK;
}

static bool parse_hex_u64(uint64_t *out, const char *s)
{
    uint64_t v = 0;
    size_t n = 0;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
    }
    for (; *s; s++, n++) {
        int d;
        if (*s >= '0' && *s <= '9') {
            d = *s - '0';
        } else if (*s >= 'a' && *s <= 'f') {
            d = *s - 'a' + 10;
        } else if (*s >= 'A' && *s <= 'F') {
            d = *s - 'A' + 10;
        } else {
            return false;
        }
        if (n >= 16) {
            return false;
        }
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return n > 0;
}

/* The probe circuit of setup_impl_id: one input x and a chain of 60 constraints
 * (a_i + i + 1) * x = a_{i+1}, 62 rows with the input constraints (domain 64). */
#define PROBE_CONSTRAINTS 60

static cuzk_err probe_r1cs(cs_r1cs_t *out, cz_diag *dg)
{
    cs_t *cs = NULL;
    cs_var_t x, a, next;
    cuzk_err err = cs_new_recorder(&cs, dg);

    if (err != CUZK_OK) {
        return err;
    }
    (void)cs_alloc_input(cs, &x, NULL);
    (void)cs_alloc(cs, &a, NULL);
    for (uint64_t i = 0; i < PROBE_CONSTRAINTS; i++) {
        fr_t k;
        fr_from_u64(&k, i + 1);
        (void)cs_alloc(cs, &next, NULL);
        cs_lc_t A = cs_lc_of(cs, a), B = cs_lc_of(cs, x), C = cs_lc_of(cs, next);
        cs_lc_add(cs, &A, &k, CS_ONE);
        (void)cs_enforce(cs, &A, &B, &C, "probe");
        a = next;
    }
    err = cs_finish(cs, dg); /* reports any sticky error of the calls above */
    if (err == CUZK_OK) {
        err = cs_take_r1cs(cs, out, dg);
    }
    cs_free(cs);
    return err;
}

/* This setup implementation: "<SETUP_IMPL_VERSION>-<probe>", probe = the first 8 bytes (hex)
 * of the SHA-256 of the .params file (which holds the verifying key) of a setup of the probe
 * circuit with seed 1. A few milliseconds. */
static cuzk_err setup_impl_id(char *out, size_t cap, cz_diag *dg)
{
    const uint64_t seed = 1;
    const char *tmpdir = getenv("TMPDIR");
    char path[PATH_CAP];
    cs_r1cs_t r1cs;
    g16_params_t *params = NULL;
    uint8_t digest[SHA256_DIGEST_BYTES];
    cuzk_err err;
    int fd;

    memset(&r1cs, 0, sizeof(r1cs));
    snprintf(path, sizeof(path), "%s/cuzk-setup-probe-XXXXXX",
             tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    fd = mkstemp(path);
    if (fd < 0) {
        return cz_fail(dg, CUZK_E_IO, "%s: %s", path, strerror(errno));
    }
    close(fd);
    err = probe_r1cs(&r1cs, dg);
    if (err == CUZK_OK) {
        err = g16_setup(&params, &r1cs, &seed, NULL, dg);
    }
    if (err == CUZK_OK) {
        err = g16_params_write(params, path, NULL, dg);
    }
    if (err == CUZK_OK) {
        FILE *f = fopen(path, "rb");
        uint8_t buf[4096];
        size_t n;
        sha256_ctx_t h;
        if (!f) {
            err = cz_fail(dg, CUZK_E_IO, "%s: %s", path, strerror(errno));
        } else {
            sha256_init(&h);
            while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
                sha256_update(&h, buf, n);
            }
            if (ferror(f)) {
                err = cz_fail(dg, CUZK_E_IO, "reading %s", path);
            }
            fclose(f);
            sha256_final(&h, digest);
        }
    }
    remove(path);
    g16_params_free(params);
    cs_r1cs_clear(&r1cs);
    if (err == CUZK_OK) {
        int k = snprintf(out, cap, "%d-", SETUP_IMPL_VERSION);
        for (size_t i = 0; i < 8 && k > 0 && (size_t)k + 2 < cap; i++) {
            k += snprintf(out + k, cap - (size_t)k, "%02x", digest[i]);
        }
    }
    return err;
}

/* True when the stamp describes this circuit and setup implementation, and the files it names
 * are in place. */
static bool up_to_date(const fil_stamp *have, const fil_stamp *want, const fil_paths *p)
{
    uint64_t ps, vs, ms;
    return strcmp(have->setup, want->setup) == 0 && strcmp(have->proof, want->proof) == 0 &&
           have->sector_size == want->sector_size &&
           have->counts.num_inputs == want->counts.num_inputs &&
           have->counts.num_aux == want->counts.num_aux &&
           have->counts.num_constraints == want->counts.num_constraints &&
           strcmp(have->shape, want->shape) == 0 && file_size(p->params, &ps) &&
           file_size(p->vk, &vs) && file_size(p->meta, &ms) && ps == have->params_bytes &&
           vs == have->vk_bytes && ms == have->meta_bytes;
}

/* The blank circuit's compact shape (shape recorder, over the pool) and its fingerprint. */
static cuzk_err blank_shape(cs_shape_t *out, fil_stamp *want, circ_kind kind, cz_pool *pool,
                            cli_progress *pg, cz_diag *dg)
{
    cs_t *cs = NULL;
    uint64_t fp = 0;
    cuzk_err err;

    cli_progress_begin(pg, "record", 0);
    err = cs_new_shape_recorder(&cs, NULL, dg);
    if (err == CUZK_OK) {
        err = circ_synth_blank(cs, kind, want->sector_size, 0, pool, dg);
    }
    if (err == CUZK_OK) {
        err = cs_finish(cs, dg);
    }
    if (err == CUZK_OK) {
        err = cs_take_shape(cs, out, dg);
    }
    cs_free(cs);
    if (err == CUZK_OK) {
        cli_progress_begin(pg, "check", 0);
        want->counts.num_inputs = out->num_inputs;
        want->counts.num_aux = out->num_aux;
        want->counts.num_constraints = out->num_constraints;
        err = cs_shape_fingerprint(out, &fp, pool, dg);
    }
    if (err == CUZK_OK) {
        snprintf(want->shape, sizeof(want->shape), "%016" PRIx64, fp);
        err = setup_impl_id(want->setup, sizeof(want->setup), dg);
    }
    return err;
}

/* Moves tmp to path. */
static cuzk_err put_in_place(const char *tmp, const char *path, cz_diag *dg)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return cz_fail(dg, CUZK_E_IO, "%s: %s", path, strerror(e));
    }
    return CUZK_OK;
}

/* Writes .vk and .meta, and last the stamp, whose domain and file sizes it fills in; the
 * .params file is already in place. */
static cuzk_err write_rest(fil_stamp *want, const fil_paths *p, const g16_vk_t *vk, size_t domain,
                           const char *dir, cz_diag *dg)
{
    char tmp[PATH_CAP + 8], meta[64];
    cuzk_err err;

    snprintf(tmp, sizeof(tmp), "%s.tmp", p->vk);
    err = g16_vk_write(vk, tmp, dg);
    if (err == CUZK_OK) {
        err = put_in_place(tmp, p->vk, dg);
    }
    if (err == CUZK_OK) {
        err = circ_param_meta_json(meta, sizeof(meta), want->sector_size);
    }
    if (err == CUZK_OK) {
        err = write_text(p->meta, meta, dg);
    }
    if (err == CUZK_OK) {
        want->domain = domain;
        if (!file_size(p->params, &want->params_bytes) || !file_size(p->vk, &want->vk_bytes) ||
            !file_size(p->meta, &want->meta_bytes)) {
            err = cz_fail(dg, CUZK_E_IO, "%s: files vanished after writing", dir);
        }
    }
    if (err == CUZK_OK) {
        err = stamp_write(want, p->stamp, dg);
    }
    return err;
}

/* The parameters of the shape into the four files: on the CPU (g16_setup_shape, then
 * g16_params_write) or streamed from device 0 (g16_setup_gpu_write). Progress stages "setup"
 * and "write". */
static cuzk_err make_files(fil_stamp *want, const fil_paths *p, const cs_shape_t *shape,
                           const uint64_t *seed, bool gpu, const char *dir, cz_pool *pool,
                           cli_progress *pg, double t_ms[2], cz_diag *dg)
{
    char tmp[PATH_CAP + 8];
    g16_params_t *params = NULL;
    g16_vk_t *vk = NULL;
    gpu_dev *dev = NULL;
    size_t domain = 0;
    cuzk_err err = CUZK_OK;
    double t = cli_now_ms();

    snprintf(tmp, sizeof(tmp), "%s.tmp", p->params);
    cli_progress_begin(pg, "setup", 0);
    if (gpu) {
        err = gpu_dev_open(&dev, 0, dg);
        if (err == CUZK_OK) {
            err = g16_setup_gpu_write(&vk, NULL, shape, seed, dev, tmp, pool, dg);
        }
        gpu_dev_close(dev);
    } else {
        err = g16_setup_shape(&params, NULL, shape, seed, pool, dg);
    }
    t_ms[0] = cli_now_ms() - t;
    t = cli_now_ms();
    cli_progress_begin(pg, "write", 0);
    if (err == CUZK_OK && !gpu) {
        err = g16_params_write(params, tmp, pool, dg);
    }
    if (err == CUZK_OK) {
        err = put_in_place(tmp, p->params, dg);
    }
    if (err == CUZK_OK) {
        unsigned lg = 0;
        CZ_CHECK(ntt_lg_for(&lg, shape->A.rows)); /* the setup checked it */
        domain = (size_t)1 << lg;
        err = write_rest(want, p, gpu ? vk : &params->vk, domain, dir, dg);
    }
    t_ms[1] = cli_now_ms() - t;
    g16_params_free(params);
    g16_vk_free(vk);
    return err;
}

/* setup --proof --help */
static const char *const SETUP_ABOUT =
    "Generates Groth16 test parameters for one Filecoin circuit (one partition) and writes\n"
    "them under the OFFICIAL file names into DIR: v28-<id>.params, .vk and .meta, as\n"
    "rust-fil-proofs' parameter cache names them, plus a stamp (.cuzk-setup) recording the\n"
    "circuit's counts and shape fingerprint and the setup implementation. Run cuzkd with\n"
    "--param-cache DIR (or FIL_PROOFS_PARAMETER_CACHE=DIR) to prove with them. When the\n"
    "stamp matches the circuit and this setup, and the files are in place, nothing is done\n"
    "(\"up to date\"). Files under those names\n"
    "without our stamp (published parameters) are never replaced unless --force.\n"
    "The toxic waste comes from the OS CSPRNG and is wiped; --seed makes reproducible,\n"
    "INSECURE test fixtures. --gpu makes the points on GPU 0 and streams them to the file\n"
    "(the same bytes as the CPU setup). With --r1cs instead of --proof: a circom circuit.";

/* Whether the files need making: 1 up to date (printed), 0 make them, -1 refuse (printed). */
static int check_stamp(const char *cmd, const fil_stamp *want, const fil_paths *paths, bool force,
                       double check_ms)
{
    uint64_t ignored;
    fil_stamp have;
    stamp_state have_stamp = stamp_read(&have, paths->stamp);
    bool have_files = file_size(paths->params, &ignored) || file_size(paths->vk, &ignored);

    if (!force && have_stamp == STAMP_CURRENT && up_to_date(&have, want, paths)) {
        printf("setup: up to date proof=%s sector_size=%" PRIu64
               " inputs=%zu aux=%zu constraints=%zu shape=%s setup=%s params=%s "
               "check_ms=%.1f\n",
               want->proof, want->sector_size, want->counts.num_inputs, want->counts.num_aux,
               want->counts.num_constraints, want->shape, want->setup, paths->params, check_ms);
        return 1;
    }
    if (!force && have_files && have_stamp == STAMP_NONE) {
        cli_error(cmd,
                  "%s exists without a cuzk-setup stamp (published parameters?); not "
                  "replacing it (use --force to regenerate)",
                  paths->params);
        return -1;
    }
    return 0;
}

typedef struct setup_args {
    const char *proof, *size, *dir, *seed_hex;
    uint64_t threads;
    bool force, quiet, gpu;
} setup_args;

/* The options of setup --proof; CLI_EXIT_* when parsing ends the command, else -1. */
static int parse_setup(setup_args *a, int argc, char **argv)
{
    cli_opt_t opts[] = {
        CLI_OPT("proof", CLI_STR, &a->proof, "KIND",
                "porep | winning-post | window-post | snap | snap-poseidon", true),
        CLI_OPT("sector-size", CLI_STR, &a->size, "SIZE", "2KiB 8MiB 512MiB 32GiB 64GiB (or bytes)",
                true),
        CLI_OPT("out", CLI_STR, &a->dir, "DIR", "parameter cache directory (created if missing)",
                true),
        CLI_OPT("seed", CLI_STR, &a->seed_hex, "HEX",
                "deterministic toxic waste from this 64-bit hex seed (tests only)", false),
        CLI_OPT("threads", CLI_U64, &a->threads, "N", "cores to use (default: all)", false),
        CLI_OPT("force", CLI_FLAG, &a->force, NULL, "regenerate even when up to date", false),
        CLI_OPT("gpu", CLI_FLAG, &a->gpu, NULL, "make the points on GPU 0", false),
        CLI_OPT("quiet", CLI_FLAG, &a->quiet, NULL, "no progress on stderr", false),
    };
    memset(a, 0, sizeof(*a));
    return cli_parse(argv[0], SETUP_ABOUT, opts, ARRAY_LEN(opts), argc, argv);
}

static int setup_filecoin(int argc, char **argv)
{
    const char *cmd = argv[0];
    setup_args a;
    fil_paths paths;
    fil_stamp want;
    circ_kind kind;
    const circ_sector_t *sec;
    cz_pool *pool = NULL;
    cs_shape_t shape;
    uint64_t seed = 0;
    cz_diag dg;
    cuzk_err err;
    cli_progress pg;
    int rc = parse_setup(&a, argc, argv);
    double t0 = cli_now_ms(), t_check = 0, t_make[2] = {0, 0};

    if (rc >= 0) {
        return rc;
    }
    /* Four stages; the last two only when the files are not up to date. */
    cli_progress_init(&pg, cmd, 4, cli_progress_default_mode(a.quiet));
    memset(&shape, 0, sizeof(shape));
    memset(&want, 0, sizeof(want));
    cz_diag_init(&dg);
    if (!circ_kind_parse(&kind, a.proof)) {
        return cli_error(cmd,
                         "unknown --proof '%s' (porep, winning-post, window-post, snap, "
                         "snap-poseidon)",
                         a.proof);
    }
    sec = circ_sector_parse(a.size);
    if (!sec) {
        return cli_error(cmd, "unsupported --sector-size '%s'", a.size);
    }
    if (a.seed_hex && !parse_hex_u64(&seed, a.seed_hex)) {
        return cli_error(cmd, "--seed '%s' is not a hex number of at most 16 digits", a.seed_hex);
    }
    err = make_paths(&paths, a.dir, kind, sec->bytes, &dg);
    if (err != CUZK_OK) {
        return cli_error_diag(cmd, err, &dg);
    }
    rc = CLI_EXIT_ERROR;
    if (!cli_pool(cmd, a.threads, &pool)) {
        goto done;
    }
    snprintf(want.proof, sizeof(want.proof), "%s", circ_kind_name(kind));
    want.sector_size = sec->bytes;
    snprintf(want.seed, sizeof(want.seed), a.seed_hex ? "%016" PRIx64 : "random", seed);

    /* The circuit's shape and fingerprint, then the stamp. */
    err = blank_shape(&shape, &want, kind, pool, &pg, &dg);
    if (err != CUZK_OK) {
        cli_error_diag(cmd, err, &dg);
        goto done;
    }
    t_check = cli_now_ms() - t0;
    int st = check_stamp(cmd, &want, &paths, a.force, t_check);
    if (st != 0) {
        rc = st > 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
        goto done;
    }
    err = mkdir_p(a.dir, &dg);
    /* A stale stamp goes first, so an interrupted run is never taken for a finished one. */
    remove(paths.stamp);
    if (err == CUZK_OK) {
        err = make_files(&want, &paths, &shape, a.seed_hex ? &seed : NULL, a.gpu, a.dir, pool, &pg,
                         t_make, &dg);
    }
    if (err != CUZK_OK) {
        cli_error_diag(cmd, err, &dg);
        goto done;
    }
    cli_progress_end(&pg);
    printf("setup: ok proof=%s sector_size=%" PRIu64 " inputs=%zu aux=%zu constraints=%zu "
           "domain=%" PRIu64 " shape=%s setup=%s device=%s params=%s params_bytes=%" PRIu64
           " check_ms=%.1f setup_ms=%.1f write_ms=%.1f total_ms=%.1f peak_rss_bytes=%" PRIu64 "\n",
           want.proof, want.sector_size, want.counts.num_inputs, want.counts.num_aux,
           want.counts.num_constraints, want.domain, want.shape, want.setup, a.gpu ? "gpu" : "cpu",
           paths.params, want.params_bytes, t_check, t_make[0], t_make[1], cli_now_ms() - t0,
           (uint64_t)cz_rss_peak());
    rc = CLI_EXIT_OK;
done:
    cli_progress_hide(&pg);
    cs_shape_clear(&shape);
    cz_pool_free(pool);
    return rc;
}

int cmd_setup_any(int argc, char **argv)
{
    bool help = false;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--r1cs") == 0) {
            return cmd_setup(argc, argv);
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help = true;
        }
    }
    if (help) {
        int rc = setup_filecoin(argc, argv);
        printf("\n---- circom mode ----\n");
        fflush(stdout);
        return rc == CLI_EXIT_OK ? cmd_setup(argc, argv) : rc;
    }
    return setup_filecoin(argc, argv);
}
