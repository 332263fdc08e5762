/* prove_wpost.c - proves one WindowPoSt partition through cuzk's public C API (<cuzk/cuzk.h>)
 * and checks the proof with the same API, as a program linking libcuzk would.
 *
 * Usage:
 *   prove_wpost (--param-cache DIR | --config FILE) --randomness HEX --miner-id N
 *               [--partition K] [--sector-size BYTES] [--registered-proof N]
 *               [--verify PROOF_HEX] VANILLA...
 *
 * VANILLA: one file per sector of the partition, in order, each holding one sector's
 * FallbackPoStSectorProof in bincode (what Curio sends; `cuzk-bench gen-vanilla window-post`
 * makes test ones). --randomness: the 32-byte challenge randomness as 64 hex digits, byte 0
 * first. The defaults are a 2 KiB sector (2048) and registered proof 10
 * (StackedDrgWindow2KiBV1_1). --config reads the daemon's configuration file; --param-cache
 * is the shortcut for a configuration that only names the parameter directory.
 *
 * Prints the job's outcome and stage times, "verified=valid", and the proof as "proof=HEX";
 * exits 0 iff the proof was made and verifies, 1 when proving or verifying failed, 2 on a
 * usage error or an unreadable file. With --verify it proves nothing: it checks the given
 * proof against the request and prints "verified=valid" (exit 0) or "verified=invalid" (1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/cuzk.h>

#define MAX_SECTORS 64

typedef struct args {
    const char *param_cache, *config, *randomness_hex, *verify_hex;
    uint64_t miner_id, partition, sector_size, registered_proof;
    const char *vanilla[MAX_SECTORS];
    size_t n_vanilla;
} args;

static int usage(const char *why)
{
    fprintf(stderr,
            "prove_wpost: %s\n"
            "usage: prove_wpost (--param-cache DIR | --config FILE) --randomness HEX "
            "--miner-id N\n"
            "                   [--partition K] [--sector-size BYTES] [--registered-proof N]\n"
            "                   [--verify PROOF_HEX] VANILLA...\n",
            why);
    return 2;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

/* Returns 0 when the arguments are complete, else the exit status. */
static int parse_args(args *a, int argc, char **argv)
{
    memset(a, 0, sizeof(*a));
    a->sector_size = 2048;
    a->registered_proof = 10;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool num_ok = true;
        if (o[0] != '-') {
            if (a->n_vanilla == MAX_SECTORS) {
                return usage("too many vanilla proof files");
            }
            a->vanilla[a->n_vanilla++] = o;
            continue;
        }
        if (!v) {
            return usage("an option lacks its value");
        }
        if (strcmp(o, "--param-cache") == 0) {
            a->param_cache = v;
        } else if (strcmp(o, "--config") == 0) {
            a->config = v;
        } else if (strcmp(o, "--randomness") == 0) {
            a->randomness_hex = v;
        } else if (strcmp(o, "--verify") == 0) {
            a->verify_hex = v;
        } else if (strcmp(o, "--miner-id") == 0) {
            num_ok = parse_u64(v, &a->miner_id);
        } else if (strcmp(o, "--partition") == 0) {
            num_ok = parse_u64(v, &a->partition) && a->partition <= UINT32_MAX;
        } else if (strcmp(o, "--sector-size") == 0) {
            num_ok = parse_u64(v, &a->sector_size);
        } else if (strcmp(o, "--registered-proof") == 0) {
            num_ok = parse_u64(v, &a->registered_proof);
        } else {
            return usage("unknown option");
        }
        if (!num_ok) {
            return usage("a number is malformed");
        }
        i++;
    }
    if (!a->param_cache == !a->config) {
        return usage("give --param-cache or --config (one of them)");
    }
    if (!a->randomness_hex || !a->n_vanilla) {
        return usage("--randomness and at least one VANILLA file are required");
    }
    return 0;
}

/* Decodes exactly n bytes from 2n hex digits. */
static bool parse_hex(uint8_t *out, size_t n, const char *hex)
{
    if (strlen(hex) != 2 * n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
            return false;
        }
        out[i] = (uint8_t)byte;
    }
    return true;
}

/* Appends the file's bytes to *buf (*len bytes so far, realloc'ed); returns its size, or
 * (size_t)-1 after printing why it cannot be read. */
static size_t append_file(uint8_t **buf, size_t *len, const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (!f) {
        fprintf(stderr, "prove_wpost: %s: %s\n", path, strerror(errno));
        return (size_t)-1;
    }
    for (;;) {
        uint8_t *grown = realloc(*buf, *len + n + 65536);
        if (!grown) {
            fclose(f);
            fprintf(stderr, "prove_wpost: %s: out of memory\n", path);
            return (size_t)-1;
        }
        *buf = grown;
        size_t got = fread(*buf + *len + n, 1, 65536, f);
        n += got;
        if (got < 65536) {
            break;
        }
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || n == 0) {
        fprintf(stderr, "prove_wpost: %s: %s\n", path, bad ? "read error" : "empty file");
        return (size_t)-1;
    }
    *len += n;
    return n;
}

/* Starts an engine from --config, or from a configuration naming --param-cache. */
static cuzk_engine *start_engine(const args *a)
{
    char text[4200];
    cuzk_engine *engine = NULL;
    cuzk_diag dg;

    if (a->param_cache) {
        /* A TOML literal string: no escapes to worry about unless the path holds a quote. */
        if (strchr(a->param_cache, '\'') || strlen(a->param_cache) > 4000) {
            fprintf(stderr, "prove_wpost: --param-cache: a path without ' please\n");
            return NULL;
        }
        snprintf(text, sizeof(text), "[srs]\nparam_cache = '%s'\n", a->param_cache);
    }
    if (cuzk_engine_new(&engine, a->config, a->param_cache ? text : NULL, &dg) != CUZK_OK) {
        fprintf(stderr, "prove_wpost: engine: %s\n", dg.message);
        return NULL;
    }
    return engine;
}

static void print_hex(const char *label, const uint8_t *b, size_t n)
{
    printf("%s=", label);
    for (size_t i = 0; i < n; i++) {
        printf("%02x", b[i]);
    }
    printf("\n");
}

/* Checks a proof given in hex (--verify) against the request; returns the exit status. */
static int verify_only(cuzk_engine *engine, const cuzk_request *req, const char *hex)
{
    uint8_t proof[16 * CUZK_PROOF_BYTES];
    size_t n = strlen(hex) / 2;
    cuzk_diag dg;
    bool valid = false;

    if (n > sizeof(proof) || !parse_hex(proof, n, hex)) {
        fprintf(stderr, "prove_wpost: --verify: hex digits of at most %zu bytes expected\n",
                sizeof(proof));
        return 2;
    }
    if (cuzk_verify(engine, req, proof, n, &valid, &dg) != CUZK_OK) {
        fprintf(stderr, "prove_wpost: verify: %s\n", dg.message);
        return 1;
    }
    printf("verified=%s\n", valid ? "valid" : "invalid");
    return valid ? 0 : 1;
}

/* Proves the request and verifies the proof; returns the exit status. */
static int prove_and_verify(cuzk_engine *engine, const cuzk_request *req)
{
    cuzk_proof p;
    cuzk_diag dg;
    bool valid = false;
    int rc = 1;

    if (cuzk_prove(engine, req, &p, &dg) != CUZK_OK) {
        fprintf(stderr, "prove_wpost: request refused: %s\n", dg.message);
        return 1;
    }
    printf("job=%s kind=%s status=%s proof_bytes=%zu\n", p.job_id, cuzk_kind_name(p.kind),
           cuzk_job_status_name(p.status), p.proof_len);
    if (p.status != CUZK_JOB_COMPLETED) {
        fprintf(stderr, "prove_wpost: job %s %s: %s\n", p.job_id, cuzk_job_status_name(p.status),
                p.error);
        goto done;
    }
    printf("ms queue=%" PRIu64 " srs_load=%" PRIu64 " synthesis=%" PRIu64 " prove=%" PRIu64
           " verify=%" PRIu64 " total=%" PRIu64 "\n",
           p.queue_wait_ms, p.srs_load_ms, p.synthesis_ms, p.prove_ms, p.verify_ms, p.total_ms);
    if (cuzk_verify(engine, req, p.proof, p.proof_len, &valid, &dg) != CUZK_OK) {
        fprintf(stderr, "prove_wpost: verify: %s\n", dg.message);
        goto done;
    }
    printf("verified=%s\n", valid ? "valid" : "invalid");
    print_hex("proof", p.proof, p.proof_len);
    rc = valid ? 0 : 1;
done:
    cuzk_proof_clear(&p);
    return rc;
}

int main(int argc, char **argv)
{
    args a;
    uint8_t randomness[32];
    uint8_t *proofs = NULL;
    size_t proofs_len = 0, lens[MAX_SECTORS];
    cuzk_engine *engine = NULL;
    int rc = parse_args(&a, argc, argv);

    if (rc) {
        return rc;
    }
    if (cuzk_api_version() != CUZK_API_VERSION) {
        fprintf(stderr, "prove_wpost: libcuzk has API %" PRIu32 ", this program was built for %d\n",
                cuzk_api_version(), CUZK_API_VERSION);
        return 2;
    }
    if (!parse_hex(randomness, sizeof(randomness), a.randomness_hex)) {
        return usage("--randomness: 64 hex digits expected");
    }
    for (size_t i = 0; i < a.n_vanilla; i++) {
        lens[i] = append_file(&proofs, &proofs_len, a.vanilla[i]);
        if (lens[i] == (size_t)-1) {
            free(proofs);
            return 2;
        }
    }
    printf("cuzk %s (API %" PRIu32 "): window-post sectors=%zu sector_size=%" PRIu64
           " registered_proof=%" PRIu64 " partition=%" PRIu64 "\n",
           cuzk_version(), cuzk_api_version(), a.n_vanilla, a.sector_size, a.registered_proof,
           a.partition);
    fflush(stdout);

    engine = start_engine(&a);
    if (!engine) {
        free(proofs);
        return 2;
    }
    cuzk_request req = {0};
    req.kind = CUZK_KIND_WINDOW_POST;
    req.sector_size = a.sector_size;
    req.registered_proof = a.registered_proof;
    req.vanilla_proofs = proofs;
    req.vanilla_proof_lens = lens;
    req.n_vanilla_proofs = a.n_vanilla;
    req.miner_id = a.miner_id;
    req.randomness = randomness;
    req.partition_index = (uint32_t)a.partition;
    rc = a.verify_hex ? verify_only(engine, &req, a.verify_hex) : prove_and_verify(engine, &req);
    cuzk_engine_free(engine);
    free(proofs);
    return rc;
}
