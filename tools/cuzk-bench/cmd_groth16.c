/* cmd_groth16.c - cuzk-bench commands around Groth16 and circom circuits: setup, prove,
 * verify, export-snarkjs. Each prints one line of key=value results on success and one error
 * line naming the file and the problem otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/alloc.h"
#include "gpu/gpu.h"
#include "groth16/circom.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"

/* Reads a whole file (at most 1 GiB) into a cz_malloc'ed buffer. */
static bool read_file(const char *cmd, const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    *out = NULL;
    *len = 0;
    if (!f) {
        cli_error(cmd, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *nb;
            cap = cap ? 2 * cap : 4096;
            if (cap > ((size_t)1 << 30)) {
                cli_error(cmd, "%s: larger than 1 GiB", path);
                goto fail;
            }
            nb = cz_realloc(buf, cap);
            if (!nb) {
                cli_error(cmd, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        cli_error(cmd, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return true;
fail:
    fclose(f);
    cz_free(buf);
    return false;
}

/* "dir/x.params" -> "dir/x.vk"; anything else gets ".vk" appended. Returns owned. */
static char *vk_path_for(const char *params_path)
{
    size_t len = strlen(params_path);
    const char *suffix = ".params";
    size_t sl = strlen(suffix);
    char *out = cz_malloc(len + 4);

    if (!out) {
        return NULL;
    }
    if (len > sl && strcmp(params_path + len - sl, suffix) == 0) {
        memcpy(out, params_path, len - sl);
        strcpy(out + len - sl, ".vk");
    } else {
        memcpy(out, params_path, len);
        strcpy(out + len, ".vk");
    }
    return out;
}

/* ---- setup ------------------------------------------------------------------------------------ */

int cmd_setup(int argc, char **argv)
{
    static const char *const about =
        "Generates Groth16 test parameters for a circom circuit (compiled with --prime\n"
        "bls12381) in the official bellperson file format: OUT (.params) and, beside it, the\n"
        "verifying key (OUT with .params replaced by .vk, or --vk-out). The toxic waste comes\n"
        "from the OS CSPRNG and is wiped; --seed makes reproducible, INSECURE test fixtures.";
    const char *r1cs_path = NULL, *out_path = NULL, *vk_out = NULL;
    uint64_t threads = 0, seed = 0;
    bool have_seed = false;
    cli_opt_t opts[] = {
        CLI_OPT("r1cs", CLI_STR, &r1cs_path, "FILE", "circom constraint system (.r1cs)", true),
        CLI_OPT("out", CLI_STR, &out_path, "FILE", "parameters to write (.params)", true),
        CLI_OPT("vk-out", CLI_STR, &vk_out, "FILE",
                "verifying key to write (default: beside --out)", false),
        CLI_OPT_GIVEN("seed", CLI_U64, &seed, "N",
                      "deterministic toxic waste from seed N (tests only)", false, &have_seed),
        CLI_OPT("threads", CLI_U64, &threads, "N", "cores to use (default: all)", false),
    };
    g16_circom_r1cs_t *cr = NULL;
    g16_params_t *params = NULL;
    cs_t *cs = NULL;
    cs_r1cs_t r1cs;
    cz_pool *pool = NULL;
    char *vk_alloc = NULL;
    cz_diag dg;
    cuzk_err err;
    double t0 = cli_now_ms(), t_setup;
    int rc = cli_parse(argv[0], about, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    memset(&r1cs, 0, sizeof(r1cs));
    cz_diag_init(&dg);
    rc = CLI_EXIT_ERROR;
    if (!vk_out) {
        vk_out = vk_alloc = vk_path_for(out_path);
        if (!vk_alloc) {
            cli_error(argv[0], "out of memory");
            goto done;
        }
    }
    if (!cli_pool(argv[0], threads, &pool)) {
        goto done;
    }
    err = g16_circom_r1cs_load(&cr, r1cs_path, &dg);
    if (err == CUZK_OK) {
        err = cs_new_recorder(&cs, &dg);
    }
    if (err == CUZK_OK) {
        err = g16_circom_synthesize(cs, cr, NULL, 0, &dg);
    }
    if (err == CUZK_OK) {
        err = cs_finish(cs, &dg);
    }
    if (err == CUZK_OK) {
        err = cs_take_r1cs(cs, &r1cs, &dg);
    }
    if (err != CUZK_OK) {
        cli_error_diag(argv[0], err, &dg);
        goto done;
    }
    t_setup = cli_now_ms();
    err = g16_setup(&params, &r1cs, have_seed ? &seed : NULL, pool, &dg);
    if (err != CUZK_OK) {
        if (strstr(dg.msg, "aux variable")) {
            /* aux variable j is circom wire 1 + (number of public wires) + j */
            cli_error(argv[0], "%s: %s (circom wire = aux index + %zu)", r1cs_path, dg.msg,
                      g16_circom_num_public(cr) + 1);
        } else {
            cli_error_diag(argv[0], err, &dg);
        }
        goto done;
    }
    t_setup = cli_now_ms() - t_setup;
    err = g16_params_write(params, out_path, pool, &dg);
    if (err == CUZK_OK) {
        err = g16_vk_write(&params->vk, vk_out, &dg);
    }
    if (err != CUZK_OK) {
        cli_error_diag(argv[0], err, &dg);
        goto done;
    }
    printf("setup: ok constraints=%u inputs=%zu aux=%zu domain=%zu params=%s vk=%s "
           "setup_ms=%.1f total_ms=%.1f\n",
           cr->n_constraints, r1cs.num_inputs, r1cs.num_aux, params->h_len + 1, out_path, vk_out,
           t_setup, cli_now_ms() - t0);
    rc = CLI_EXIT_OK;
done:
    g16_params_free(params);
    cs_r1cs_clear(&r1cs);
    cs_free(cs);
    g16_circom_r1cs_free(cr);
    cz_pool_free(pool);
    cz_free(vk_alloc);
    return rc;
}

/* ---- prove ------------------------------------------------------------------------------------ */

/* Re-synthesizes with the checker backend to name the first unsatisfied constraint. */
static void explain_unsat(const char *cmd, const char *wtns_path, const g16_circom_r1cs_t *cr,
                          const fr_t *wit, size_t nwit)
{
    cs_t *cs = NULL;
    cz_diag dg;
    cuzk_err err;
    size_t index = 0;
    const char *path;

    cz_diag_init(&dg);
    err = cs_new_checker(&cs, &dg);
    if (err == CUZK_OK) {
        err = g16_circom_synthesize(cs, cr, wit, nwit, &dg);
    }
    if (err == CUZK_OK) {
        err = cs_finish(cs, &dg);
    }
    path = cs ? cs_unsat_path(cs, &index) : NULL;
    if (path) {
        cli_error(cmd, "%s: the witness does not satisfy the circuit (first failing: %s)",
                  wtns_path, path);
    } else {
        cli_error(cmd, "%s: the witness does not satisfy the circuit", wtns_path);
    }
    cs_free(cs);
}

static const char PROVE_ABOUT[] =
    "Proves a circom circuit: synthesizes the witness (.wtns from snarkjs wtns calculate)\n"
    "over the constraint system (.r1cs), proves with PARAMS using fresh random r, s, checks\n"
    "the proof with the parameters' verifying key, and writes the 192-byte proof\n"
    "(A || B || C compressed). --public-out writes the public inputs (outputs first, ONE\n"
    "excluded) as snarkjs public.json. --gpu proves on GPU device 0 instead (the\n"
    "parameters are uploaded first; same proof bytes as the CPU for the same r, s) and fails\n"
    "when there is no usable GPU.";

/* What prove was asked to do. */
typedef struct prove_opts {
    const char *params_path, *r1cs_path, *wtns_path, *out_path, *public_out;
    uint64_t threads;
    bool check_subgroup, use_gpu;
} prove_opts;

/* One prove command under way; each step reports its own failure through cmd. */
typedef struct prove_state {
    const char *cmd;
    cz_pool *pool;
    gpu_dev *dev; /* --gpu only */
    g16_circom_r1cs_t *cr;
    fr_t *wit;
    size_t nwit;
    cs_t *cs;
    cs_assignment_t asg; /* the synthesized witness, taken by the prover */
    g16_params_t *params;
    g16_gpu_params *gp; /* --gpu: the parameters on the device */
    g16_prove_stats_t st;
    g16_proof_t proof;
    double t_synth, t_load, t_upload;
    cz_diag dg;
} prove_state;

/* --gpu: opens device 0 first, so that a machine without a GPU fails before any long work. */
static bool prove_open_gpu(prove_state *ps)
{
    if (gpu_count() == 0) {
        cli_error(ps->cmd, "--gpu: no usable GPU (built without CUDA, no driver or no "
                           "device)");
        return false;
    }
    if (gpu_dev_open(&ps->dev, 0, &ps->dg) != CUZK_OK) {
        cli_error(ps->cmd, "--gpu: cannot open GPU 0: %s", ps->dg.msg);
        return false;
    }
    return true;
}

/* Loads the circuit and the witness and synthesizes them into ps->asg. */
static bool prove_synthesize(prove_state *ps, const prove_opts *o)
{
    cs_counts_t hint;
    cuzk_err err = g16_circom_r1cs_load(&ps->cr, o->r1cs_path, &ps->dg);

    if (err == CUZK_OK) {
        err = g16_circom_wtns_load(&ps->wit, &ps->nwit, o->wtns_path, &ps->dg);
    }
    if (err != CUZK_OK) {
        cli_error_diag(ps->cmd, err, &ps->dg);
        return false;
    }
    ps->t_synth = cli_now_ms();
    hint.num_inputs = g16_circom_num_public(ps->cr) + 1;
    hint.num_aux = ps->cr->n_wires - hint.num_inputs;
    hint.num_constraints = ps->cr->n_constraints;
    err = cs_new_prover(&ps->cs, &hint, &ps->dg);
    if (err == CUZK_OK) {
        err = g16_circom_synthesize(ps->cs, ps->cr, ps->wit, ps->nwit, &ps->dg);
        if (err == CUZK_E_INVAL) {
            cli_error(ps->cmd, "%s: %s (circuit %s)", o->wtns_path, ps->dg.msg, o->r1cs_path);
            return false;
        }
    }
    if (err == CUZK_OK) {
        err = cs_finish(ps->cs, &ps->dg);
    }
    if (err == CUZK_OK) {
        err = cs_take_assignment(ps->cs, &ps->asg, &ps->dg);
    }
    if (err != CUZK_OK) {
        cli_error_diag(ps->cmd, err, &ps->dg);
        return false;
    }
    ps->t_synth = cli_now_ms() - ps->t_synth;
    return true;
}

/* Loads the parameters, checks that they fit the circuit, and with --gpu uploads them. */
static bool prove_load_params(prove_state *ps, const prove_opts *o)
{
    g16_load_opts_t lo = {0};

    ps->t_load = cli_now_ms();
    lo.check_subgroup = o->check_subgroup;
    cuzk_err err = g16_params_load(&ps->params, o->params_path, &lo, ps->pool, &ps->dg);
    if (err != CUZK_OK) {
        cli_error_diag(ps->cmd, err, &ps->dg);
        return false;
    }
    ps->t_load = cli_now_ms() - ps->t_load;
    if (g16_params_check_circuit(ps->params, &ps->asg, &ps->dg) != CUZK_OK) {
        cli_error(ps->cmd, "%s: %s (circuit %s)", o->params_path, ps->dg.msg, o->r1cs_path);
        return false;
    }
    if (ps->dev) {
        ps->t_upload = cli_now_ms();
        err = g16_gpu_params_new(&ps->gp, ps->params, ps->dev, NULL, ps->pool, &ps->dg);
        if (err != CUZK_OK) {
            cli_error(ps->cmd, "--gpu: parameters to the device: %s",
                      ps->dg.msg[0] ? ps->dg.msg : cuzk_strerror(err));
            return false;
        }
        ps->t_upload = cli_now_ms() - ps->t_upload;
    }
    return true;
}

/* Proves with fresh r, s (wiped after), then verifies: never hand out a bad proof (docs/engine.md). */
static bool prove_and_verify(prove_state *ps, const prove_opts *o)
{
    g16_prove_opts_t po = {0};
    g16_pvk_t pvk;
    fr_t r, s;
    bool valid = false;
    cuzk_err err;

    po.gpu = ps->gp;
    err = g16_fr_random(&r, &ps->dg);
    if (err == CUZK_OK) {
        err = g16_fr_random(&s, &ps->dg);
    }
    if (err == CUZK_OK) {
        err = g16_prove_take(ps->params, &ps->proof, &ps->asg, &r, &s, &po, &ps->st, ps->pool,
                             &ps->dg);
    }
    cz_memzero(&r, sizeof(r));
    cz_memzero(&s, sizeof(s));
    if (err == CUZK_E_UNSAT) {
        explain_unsat(ps->cmd, o->wtns_path, ps->cr, ps->wit, ps->nwit);
        return false;
    }
    if (err != CUZK_OK) {
        cli_error_diag(ps->cmd, err, &ps->dg);
        return false;
    }
    g16_pvk_init(&pvk, &ps->params->vk);
    err = g16_verify(&pvk, &valid, &ps->proof, ps->asg.inputs + 1, ps->asg.num_inputs - 1, &ps->dg);
    if (err != CUZK_OK || !valid) {
        cli_error(ps->cmd, "internal error: the new proof does not verify (%s)",
                  err != CUZK_OK ? ps->dg.msg : "pairing check failed");
        return false;
    }
    return true;
}

/* The proof to --out, the public inputs to --public-out. */
static bool prove_write(prove_state *ps, const prove_opts *o)
{
    uint8_t bytes[G16_PROOF_NBYTES];
    FILE *f = fopen(o->out_path, "wb");

    g16_proof_to_bytes(bytes, &ps->proof);
    if (!f || fwrite(bytes, 1, sizeof(bytes), f) != sizeof(bytes) || fclose(f) != 0) {
        cli_error(ps->cmd, "%s: cannot write the proof: %s", o->out_path, strerror(errno));
        return false;
    }
    if (o->public_out) {
        cuzk_err err = g16_snarkjs_write_public(ps->asg.inputs + 1, ps->asg.num_inputs - 1,
                                                o->public_out, &ps->dg);
        if (err != CUZK_OK) {
            cli_error_diag(ps->cmd, err, &ps->dg);
            return false;
        }
    }
    return true;
}

static bool prove_run(prove_state *ps, const prove_opts *o, double t0)
{
    const g16_prove_stats_t *st = &ps->st;

    if (!cli_pool(ps->cmd, o->threads, &ps->pool) || (o->use_gpu && !prove_open_gpu(ps)) ||
        !prove_synthesize(ps, o) || !prove_load_params(ps, o) || !prove_and_verify(ps, o) ||
        !prove_write(ps, o)) {
        return false;
    }
    printf("prove: ok backend=%s constraints=%zu inputs=%zu aux=%zu synth_ms=%.1f load_ms=%.1f "
           "gpu_upload_ms=%.1f prep_ms=%.1f quotient_ms=%.1f msm_h_ms=%.1f msm_l_ms=%.1f "
           "msm_a_ms=%.1f msm_b_g1_ms=%.1f msm_b_g2_ms=%.1f prove_ms=%.1f total_ms=%.1f\n",
           ps->gp ? "gpu" : "cpu", ps->asg.m, ps->asg.num_inputs, ps->asg.num_aux, ps->t_synth,
           ps->t_load, ps->t_upload, st->prep_ms, st->quotient_ms, st->msm_h_ms, st->msm_l_ms,
           st->msm_a_ms, st->msm_b_g1_ms, st->msm_b_g2_ms, st->total_ms, cli_now_ms() - t0);
    return true;
}

int cmd_prove(int argc, char **argv)
{
    prove_opts o = {0};
    cli_opt_t opts[] = {
        CLI_OPT("params", CLI_STR, &o.params_path, "FILE", "proving parameters (.params)", true),
        CLI_OPT("r1cs", CLI_STR, &o.r1cs_path, "FILE", "circom constraint system (.r1cs)", true),
        CLI_OPT("wtns", CLI_STR, &o.wtns_path, "FILE", "witness (.wtns)", true),
        CLI_OPT("out", CLI_STR, &o.out_path, "FILE", "proof to write (192 bytes)", true),
        CLI_OPT("public-out", CLI_STR, &o.public_out, "FILE",
                "public inputs to write (public.json)", false),
        CLI_OPT("check-subgroup", CLI_FLAG, &o.check_subgroup, NULL,
                "check every parameter point for subgroup membership (slow)", false),
        CLI_OPT("threads", CLI_U64, &o.threads, "N", "cores to use (default: all)", false),
        CLI_OPT("gpu", CLI_FLAG, &o.use_gpu, NULL,
                "prove on GPU device 0 (fails when there is no usable GPU)", false),
    };
    prove_state ps;
    double t0 = cli_now_ms();
    int rc = cli_parse(argv[0], PROVE_ABOUT, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    memset(&ps, 0, sizeof(ps));
    ps.cmd = argv[0];
    cz_diag_init(&ps.dg);
    rc = prove_run(&ps, &o, t0) ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    cs_assignment_clear(&ps.asg);
    cs_free(ps.cs);
    g16_gpu_params_free(ps.gp);
    gpu_dev_close(ps.dev);
    g16_params_free(ps.params);
    g16_circom_r1cs_free(ps.cr);
    cz_free(ps.wit);
    cz_pool_free(ps.pool);
    return rc;
}

/* ---- verify ----------------------------------------------------------------------------------- */

/* Reads and decodes a proof file; *n proofs into *out (owned). */
static bool load_proofs(const char *cmd, const char *path, g16_proof_t **out, size_t *n)
{
    uint8_t *bytes = NULL;
    size_t len = 0, cap;
    g16_proof_t *proofs;
    cz_diag dg;
    cuzk_err err;

    *out = NULL;
    *n = 0;
    if (!read_file(cmd, path, &bytes, &len)) {
        return false;
    }
    cap = len / G16_PROOF_NBYTES + 1;
    proofs = cz_malloc(cap * sizeof(g16_proof_t));
    if (!proofs) {
        cz_free(bytes);
        cli_error(cmd, "%s: out of memory", path);
        return false;
    }
    cz_diag_init(&dg);
    err = g16_proofs_from_bytes(proofs, cap, n, bytes, len, &dg);
    cz_free(bytes);
    if (err != CUZK_OK) {
        cz_free(proofs);
        cli_error(cmd, "%s: %s", path, dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return false;
    }
    *out = proofs;
    return true;
}

int cmd_verify(int argc, char **argv)
{
    static const char *const about =
        "Verifies Groth16 proof bytes (one 192-byte proof, or several concatenated: then\n"
        "public.json holds one array per proof and they are batch-verified) against a\n"
        "verifying key (.vk) and the public inputs (public.json: a JSON array of decimal\n"
        "strings, ONE excluded). Prints 'valid' or 'invalid'; exit 0 iff valid.";
    const char *vk_path = NULL, *proof_path = NULL, *public_path = NULL;
    cli_opt_t opts[] = {
        CLI_OPT("vk", CLI_STR, &vk_path, "FILE", "verifying key (.vk)", true),
        CLI_OPT("proof", CLI_STR, &proof_path, "FILE", "proof bytes", true),
        CLI_OPT("public", CLI_STR, &public_path, "FILE", "public inputs (public.json)", true),
    };
    g16_vk_t *vk = NULL;
    g16_proof_t *proofs = NULL;
    g16_pvk_t pvk;
    fr_t *x = NULL;
    size_t nproofs = 0, rows = 0, cols = 0;
    cz_diag dg;
    cuzk_err err;
    bool valid = false;
    int rc = cli_parse(argv[0], about, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    cz_diag_init(&dg);
    rc = CLI_EXIT_ERROR;
    err = g16_vk_load(&vk, vk_path, &dg);
    if (err != CUZK_OK) {
        cli_error_diag(argv[0], err, &dg);
        goto done;
    }
    if (!load_proofs(argv[0], proof_path, &proofs, &nproofs)) {
        goto done;
    }
    err = g16_snarkjs_read_public(&x, &rows, &cols, public_path, &dg);
    if (err != CUZK_OK) {
        cli_error_diag(argv[0], err, &dg);
        goto done;
    }
    if (rows != nproofs) {
        cli_error(argv[0], "%s: %zu rows of public inputs for %zu proofs in %s", public_path, rows,
                  nproofs, proof_path);
        goto done;
    }
    if (cols + 1 != vk->ic_len) {
        cli_error(argv[0], "%s: %zu public inputs, the verifying key %s expects %zu", public_path,
                  cols, vk_path, vk->ic_len - 1);
        goto done;
    }
    g16_pvk_init(&pvk, vk);
    err = g16_verify_batch(&pvk, &valid, proofs, nproofs, x, cols, &dg);
    if (err != CUZK_OK) {
        cli_error_diag(argv[0], err, &dg);
        goto done;
    }
    printf("%s\n", valid ? "valid" : "invalid");
    rc = valid ? CLI_EXIT_OK : CLI_EXIT_INVALID;
done:
    g16_vk_free(vk);
    cz_free(proofs);
    cz_free(x);
    return rc;
}

/* ---- export-snarkjs --------------------------------------------------------------------------- */

int cmd_export_snarkjs(int argc, char **argv)
{
    static const char *const about =
        "Writes a verifying key (.vk) as snarkjs verification_key.json and a proof as snarkjs\n"
        "proof.json, for `snarkjs groth16 verify vk.json public.json proof.json`. With several\n"
        "concatenated proofs, --index picks one (default 0).";
    const char *vk_path = NULL, *proof_path = NULL, *out_vk = NULL, *out_proof = NULL;
    uint64_t index = 0;
    cli_opt_t opts[] = {
        CLI_OPT("vk", CLI_STR, &vk_path, "FILE", "verifying key (.vk)", false),
        CLI_OPT("proof", CLI_STR, &proof_path, "FILE", "proof bytes", false),
        CLI_OPT("out-vk", CLI_STR, &out_vk, "FILE", "verification_key.json to write (needs --vk)",
                false),
        CLI_OPT("out-proof", CLI_STR, &out_proof, "FILE", "proof.json to write (needs --proof)",
                false),
        CLI_OPT("index", CLI_U64, &index, "N", "which proof of a concatenation (default 0)", false),
    };
    g16_vk_t *vk = NULL;
    g16_proof_t *proofs = NULL;
    size_t nproofs = 0;
    cz_diag dg;
    cuzk_err err;
    int rc = cli_parse(argv[0], about, opts, ARRAY_LEN(opts), argc, argv);

    if (rc >= 0) {
        return rc;
    }
    cz_diag_init(&dg);
    rc = CLI_EXIT_ERROR;
    if (!out_vk && !out_proof) {
        cli_error(argv[0], "nothing to do: give --out-vk and/or --out-proof (see --help)");
        goto done;
    }
    if ((out_vk && !vk_path) || (out_proof && !proof_path)) {
        cli_error(argv[0], "--out-vk needs --vk and --out-proof needs --proof");
        goto done;
    }
    if (out_vk) {
        err = g16_vk_load(&vk, vk_path, &dg);
        if (err == CUZK_OK) {
            err = g16_snarkjs_write_vk(vk, out_vk, &dg);
        }
        if (err != CUZK_OK) {
            cli_error_diag(argv[0], err, &dg);
            goto done;
        }
    }
    if (out_proof) {
        if (!load_proofs(argv[0], proof_path, &proofs, &nproofs)) {
            goto done;
        }
        if (index >= nproofs) {
            cli_error(argv[0], "%s: holds %zu proof(s), --index %llu is out of range", proof_path,
                      nproofs, (unsigned long long)index);
            goto done;
        }
        err = g16_snarkjs_write_proof(&proofs[index], out_proof, &dg);
        if (err != CUZK_OK) {
            cli_error_diag(argv[0], err, &dg);
            goto done;
        }
    }
    rc = CLI_EXIT_OK;
done:
    g16_vk_free(vk);
    cz_free(proofs);
    return rc;
}
