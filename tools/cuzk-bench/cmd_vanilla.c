/* cmd_vanilla.c - cuzk-bench gen-vanilla and check-vanilla (the proof files: vreq.c).
 *
 * check-vanilla synthesizes every partition with the checker backend from the witness the
 * circuit adapters build (circuits.h circ_*_from_*) and compares the public inputs the circuit
 * allocated with those the chain verifier derives (proofs.h vp_*_public_inputs): exit 0 iff
 * every constraint holds and every input matches. Exit 1: the vanilla proof is malformed or
 * invalid (the first problem is named); exit 2: bad usage or unreadable files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "progress.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/rand.h"
#include "field/fr.h"
#include "hash/sha256.h"
#include "r1cs/r1cs.h"
#include "seal/seal.h"
#include "proofs/proofs.h"
#include "circuits/circuits.h"
#include "groth16/groth16.h"

/* ---- small helpers ------------------------------------------------------------------------- */

static void hex32(char out[65], const uint8_t in[32])
{
    cz_hex_encode(out, in, 32);
}

static bool sidecar_write(const char *cmd, const char *path, const vp_sidecar *sc)
{
    char *json;
    size_t len;
    cz_diag dg;
    bool ok;

    cz_diag_init(&dg);
    if (vp_sidecar_to_json(sc, &json, &len, &dg) != CUZK_OK) {
        cli_error(cmd, "%s: out of memory", path);
        return false;
    }
    ok = cli_write_file(cmd, path, json, len);
    cz_free(json);
    return ok;
}

/* ---- parsed vanilla proofs and their public inputs ------------------------------------------ */

typedef struct vparsed {
    cli_proof_kind kind;
    uint32_t partitions;
    size_t ninputs; /* per partition, ONE excluded */
    vp_c1 c1;
    seal_post_config pc;
    vp_post_proof *post;
    seal_update_config uc;
    vp_snap_proof *snap;
    size_t n; /* post or snap proofs */
} vparsed;

static void vparsed_clear(vparsed *p)
{
    vp_c1_clear(&p->c1);
    for (size_t i = 0; p->post && i < p->n; i++) {
        vp_post_clear(&p->post[i]);
    }
    for (size_t i = 0; p->snap && i < p->n; i++) {
        vp_snap_clear(&p->snap[i]);
    }
    cz_free(p->post);
    cz_free(p->snap);
    memset(p, 0, sizeof(*p));
}

/* Decodes the request's proofs. CLI_EXIT_OK, CLI_EXIT_INVALID (malformed proof, named) or
 * CLI_EXIT_ERROR (a configuration the request cannot have, out of memory). */
static int vparse(const char *cmd, const cli_vreq *r, vparsed *p)
{
    cz_diag dg;

    memset(p, 0, sizeof(*p));
    cz_diag_init(&dg);
    p->kind = r->kind;
    switch (r->kind) {
    case CLI_PROOF_POREP:
        if (vp_c1_parse(&p->c1, (const char *)r->vanilla.data[0], r->vanilla.len[0], &dg) !=
            CUZK_OK) {
            cli_error(cmd, "%s: %s", r->vanilla.name[0], dg.msg);
            return CLI_EXIT_INVALID;
        }
        if (r->has_registered_proof && r->registered_proof != p->c1.cfg.registered_proof) {
            fprintf(stderr,
                    "cuzk-bench %s: note: the C1 output is %s (%u); the request says registered "
                    "proof %" PRIu64 "\n",
                    cmd, p->c1.cfg.name, p->c1.cfg.registered_proof, r->registered_proof);
        }
        p->partitions = p->c1.partitions;
        p->ninputs = vp_porep_num_inputs(&p->c1.cfg);
        return CLI_EXIT_OK;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST: {
        seal_post_type want =
            r->kind == CLI_PROOF_WINNING_POST ? SEAL_POST_WINNING : SEAL_POST_WINDOW;
        if (r->registered_proof > UINT32_MAX ||
            !seal_post_config_for_id(&p->pc, (uint32_t)r->registered_proof) || p->pc.type != want) {
            cli_error(cmd, "registered PoSt proof %" PRIu64 " is not a %s proof",
                      r->registered_proof, cli_proof_name(r->kind));
            return CLI_EXIT_ERROR;
        }
        if (r->has_sector_size && r->sector_size != p->pc.shape.sector_size) {
            cli_error(cmd, "%s is for %" PRIu64 "-byte sectors, not %" PRIu64, p->pc.name,
                      p->pc.shape.sector_size, r->sector_size);
            return CLI_EXIT_ERROR;
        }
        if (r->vanilla.n > p->pc.sector_count) {
            cli_error(cmd, "%zu sector proofs, but a %s partition holds at most %u", r->vanilla.n,
                      p->pc.name, p->pc.sector_count);
            return CLI_EXIT_INVALID;
        }
        p->post = cz_calloc(r->vanilla.n, sizeof(*p->post));
        if (!p->post) {
            cli_error(cmd, "out of memory");
            return CLI_EXIT_ERROR;
        }
        for (; p->n < r->vanilla.n; p->n++) {
            if (vp_post_from_bincode(&p->post[p->n], p->pc.shape.sector_size, r->vanilla.data[p->n],
                                     r->vanilla.len[p->n], &dg) != CUZK_OK) {
                cli_error(cmd, "%s: %s", r->vanilla.name[p->n], dg.msg);
                return CLI_EXIT_INVALID;
            }
        }
        p->partitions = 1;
        p->ninputs = vp_post_num_inputs(&p->pc);
        return CLI_EXIT_OK;
    }
    case CLI_PROOF_SNAP:
        if (r->registered_proof > UINT32_MAX ||
            !seal_update_config_for_id(&p->uc, (uint32_t)r->registered_proof)) {
            cli_error(cmd, "unknown registered update proof %" PRIu64, r->registered_proof);
            return CLI_EXIT_ERROR;
        }
        if (r->has_sector_size && r->sector_size != p->uc.shape.sector_size) {
            cli_error(cmd, "%s is for %" PRIu64 "-byte sectors, not %" PRIu64, p->uc.name,
                      p->uc.shape.sector_size, r->sector_size);
            return CLI_EXIT_ERROR;
        }
        if (r->vanilla.n != p->uc.partitions) {
            cli_error(cmd, "%zu partition proofs, but %s has %u partitions", r->vanilla.n,
                      p->uc.name, p->uc.partitions);
            return CLI_EXIT_INVALID;
        }
        p->snap = cz_calloc(r->vanilla.n, sizeof(*p->snap));
        if (!p->snap) {
            cli_error(cmd, "out of memory");
            return CLI_EXIT_ERROR;
        }
        for (; p->n < r->vanilla.n; p->n++) {
            if (vp_snap_from_bincode(&p->snap[p->n], p->uc.shape.sector_size, r->vanilla.data[p->n],
                                     r->vanilla.len[p->n], &dg) != CUZK_OK) {
                cli_error(cmd, "%s: %s", r->vanilla.name[p->n], dg.msg);
                return CLI_EXIT_INVALID;
            }
        }
        p->partitions = p->uc.partitions;
        p->ninputs = VP_SNAP_NUM_INPUTS;
        return CLI_EXIT_OK;
    default:
        return cli_error(cmd, "no proof kind");
    }
}

/* The chain verifier's public inputs of partition k (p->ninputs of them). */
static int vinputs(const char *cmd, const cli_vreq *r, const vparsed *p, uint32_t k, fr_t *out)
{
    cz_diag dg;
    cuzk_err err = CUZK_E_INVAL;

    cz_diag_init(&dg);
    switch (p->kind) {
    case CLI_PROOF_POREP:
        err = vp_porep_public_inputs(out, &p->c1.cfg, p->c1.replica_id, p->c1.comm_d, p->c1.comm_r,
                                     p->c1.seed, k, &dg);
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST:
        err = vp_post_public_inputs_of(out, &p->pc, r->randomness, p->post, p->n,
                                       (uint32_t)r->partition_index, &dg);
        break;
    case CLI_PROOF_SNAP:
        err =
            vp_snap_public_inputs(out, &p->uc, k, r->comm_r_old, r->comm_d_new, r->comm_r_new, &dg);
        break;
    default:
        break;
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "partition %u: cannot derive the public inputs: %s", k,
                  dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return err == CUZK_E_NOMEM ? CLI_EXIT_ERROR : CLI_EXIT_INVALID;
    }
    return CLI_EXIT_OK;
}

int cli_vreq_verify(const char *cmd, const cli_vreq *r, const char *vk_path, const uint8_t *proof,
                    size_t len)
{
    vparsed p;
    g16_vk_t *vk = NULL;
    g16_pvk_t pvk;
    g16_proof_t *proofs = NULL;
    fr_t *x = NULL;
    size_t n = 0;
    cz_diag dg;
    int rc;

    cz_diag_init(&dg);
    rc = vparse(cmd, r, &p);
    if (rc != CLI_EXIT_OK) {
        return rc == CLI_EXIT_INVALID ? CLI_EXIT_ERROR : rc;
    }
    rc = CLI_EXIT_ERROR;
    if (g16_vk_load(&vk, vk_path, &dg) != CUZK_OK) {
        cli_error(cmd, "%s: %s", vk_path, dg.msg);
        goto done;
    }
    g16_pvk_init(&pvk, vk);
    if (pvk.ic_len != p.ninputs + 1) {
        cli_error(cmd, "%s takes %zu public inputs; the %s circuit has %zu", vk_path,
                  pvk.ic_len - 1, cli_proof_name(r->kind), p.ninputs);
        goto done;
    }
    proofs = cz_calloc(p.partitions, sizeof(*proofs));
    x = cz_malloc(p.ninputs * sizeof(fr_t));
    if (!proofs || !x) {
        cli_error(cmd, "out of memory");
        goto done;
    }
    if (len != (size_t)p.partitions * G16_PROOF_NBYTES) {
        cli_error(cmd, "the proof is %zu bytes; %u partitions make %zu", len, p.partitions,
                  (size_t)p.partitions * G16_PROOF_NBYTES);
        rc = CLI_EXIT_INVALID;
        goto done;
    }
    if (g16_proofs_from_bytes(proofs, p.partitions, &n, proof, len, &dg) != CUZK_OK) {
        cli_error(cmd, "the proof does not decode: %s", dg.msg);
        rc = CLI_EXIT_INVALID;
        goto done;
    }
    rc = CLI_EXIT_OK;
    for (uint32_t k = 0; k < p.partitions; k++) {
        bool valid = false;
        int r2 = vinputs(cmd, r, &p, k, x);
        if (r2 != CLI_EXIT_OK) {
            rc = CLI_EXIT_ERROR;
            goto done;
        }
        if (g16_verify(&pvk, &valid, &proofs[k], x, p.ninputs, &dg) != CUZK_OK) {
            cli_error(cmd, "partition %u: %s", k, dg.msg);
            rc = CLI_EXIT_ERROR;
            goto done;
        }
        printf("verify partition=%u %s\n", k, valid ? "valid" : "INVALID");
        if (!valid) {
            rc = CLI_EXIT_INVALID;
        }
    }
done:
    cz_free(x);
    cz_free(proofs);
    g16_vk_free(vk);
    vparsed_clear(&p);
    return rc;
}

/* ---- check-vanilla --------------------------------------------------------------------------- */

typedef struct synth_ctx {
    const vparsed *p;
    circ_porep_vanilla_t porep;
    circ_post_vanilla_t post;
    circ_update_vanilla_t update;
    cz_pool *pool;
} synth_ctx;

/* Builds the witness of partition k (the adapters' format checks run here). */
static int witness_of(const char *cmd, const cli_vreq *r, synth_ctx *c, uint32_t k)
{
    const vparsed *p = c->p;
    cz_diag dg;
    cuzk_err err = CUZK_E_INVAL;

    cz_diag_init(&dg);
    switch (p->kind) {
    case CLI_PROOF_POREP:
        err = circ_porep_from_c1(&c->porep, &p->c1, k, &dg);
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST:
        err = circ_post_from_vanilla(&c->post, &p->pc, p->post, p->n, &dg);
        break;
    case CLI_PROOF_SNAP:
        err = circ_update_from_vanilla(&c->update, &p->uc, &p->snap[k], k, r->comm_r_old,
                                       r->comm_d_new, r->comm_r_new, &dg);
        break;
    default:
        break;
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "partition %u: %s", k, dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return err == CUZK_E_NOMEM ? CLI_EXIT_ERROR : CLI_EXIT_INVALID;
    }
    return CLI_EXIT_OK;
}

static void witness_clear(synth_ctx *c)
{
    switch (c->p->kind) {
    case CLI_PROOF_POREP:
        circ_porep_vanilla_clear(&c->porep);
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST:
        circ_post_vanilla_clear(&c->post);
        break;
    case CLI_PROOF_SNAP:
        circ_update_vanilla_clear(&c->update);
        break;
    default:
        break;
    }
}

static void synth(cs_t *cs, synth_ctx *c)
{
    switch (c->p->kind) {
    case CLI_PROOF_POREP:
        circ_porep_synth(cs, &c->porep.cfg, &c->porep.w);
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST:
        circ_post_synth(cs, &c->post.cfg, c->post.sectors, c->pool);
        break;
    case CLI_PROOF_SNAP:
        circ_update_synth(cs, &c->update.cfg, &c->update.w);
        break;
    default:
        break;
    }
}

/* The native (non-circuit) vanilla verification of partition k. */
static int native_check(const char *cmd, const cli_vreq *r, const vparsed *p, uint32_t k)
{
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    cz_diag_init(&dg);
    switch (p->kind) {
    case CLI_PROOF_POREP:
        if (k == 0) {
            err = vp_c1_verify(&p->c1, NULL, &dg);
        }
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST: {
        size_t bad = 0;
        if (vp_post_verify_partition(p->post, p->n, &p->pc, r->randomness,
                                     (uint32_t)r->partition_index, &bad, &dg) != CUZK_OK) {
            cli_error(cmd, "%s: native verification: %s", r->vanilla.name[bad], dg.msg);
            return CLI_EXIT_INVALID;
        }
        break;
    }
    case CLI_PROOF_SNAP:
        err = vp_snap_verify(&p->snap[k], &p->uc, k, r->comm_r_old, r->comm_d_new, r->comm_r_new,
                             &dg);
        break;
    default:
        break;
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "partition %u: native verification: %s", k,
                  dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return err == CUZK_E_NOMEM ? CLI_EXIT_ERROR : CLI_EXIT_INVALID;
    }
    return CLI_EXIT_OK;
}

/* Partition k through the checker; compares its public inputs with `expect`. */
static int check_partition(const char *cmd, synth_ctx *c, uint32_t k, const fr_t *expect, size_t n,
                           cs_counts_t *counts)
{
    cs_t *cs = NULL;
    cz_diag dg;
    cuzk_err err;
    int rc = CLI_EXIT_INVALID;

    cz_diag_init(&dg);
    if (cs_new_checker(&cs, &dg) != CUZK_OK) {
        return cli_error_diag(cmd, CUZK_E_NOMEM, &dg);
    }
    synth(cs, c);
    cs_get_counts(cs, counts);
    err = cs_finish(cs, &dg);
    if (err == CUZK_E_UNSAT) {
        size_t idx = 0;
        const char *path = cs_unsat_path(cs, &idx);
        cli_error(cmd, "partition %u: constraint %zu is not satisfied: %s", k, idx,
                  path ? path : dg.msg);
        goto done;
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "partition %u: synthesis failed: %s", k,
                  dg.msg[0] ? dg.msg : cuzk_strerror(err));
        rc = err == CUZK_E_NOMEM ? CLI_EXIT_ERROR : CLI_EXIT_INVALID;
        goto done;
    }
    if (counts->num_inputs != n + 1) {
        cli_error(cmd, "partition %u: the circuit has %zu public inputs, the verifier derives %zu",
                  k, counts->num_inputs - 1, n);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        fr_t got;
        if (!cs_value(cs, &got, cs_var_input(i + 1))) {
            rc = cli_error(cmd, "partition %u: the checker kept no input values", k);
            goto done;
        }
        if (!fr_eq(&got, &expect[i])) {
            uint8_t a[32], b[32];
            char ha[65], hb[65];
            fr_to_bytes(a, &got);
            fr_to_bytes(b, &expect[i]);
            hex32(ha, a);
            hex32(hb, b);
            cli_error(cmd,
                      "partition %u: public input %zu differs from the verifier's: circuit %s, "
                      "verifier %s (little-endian hex)",
                      k, i, ha, hb);
            goto done;
        }
    }
    rc = CLI_EXIT_OK;
done:
    cs_free(cs);
    return rc;
}

int cmd_check_vanilla(int argc, char **argv)
{
    static const char CMD[] = "check-vanilla";
    static const char about[] =
        "Runs the circuit of each partition on the vanilla proof with the checker backend\n"
        "and compares the public inputs the circuit allocates with those the chain verifier\n"
        "derives (challenges from the seed or randomness, parents from the graph). Exit 0 iff\n"
        "every constraint holds and every input matches; 1 names the first problem (a parse\n"
        "error with its field, or the first unsatisfied constraint's path); 2 on bad usage.\n"
        "Request fields come from FILE.json beside the first file (gen-vanilla writes it)\n"
        "unless given as flags.";
    cli_vreq_flags f;
    cli_opt_t opts[CLI_VREQ_NOPTS + 4];
    uint64_t threads = 0;
    bool native = false, quiet = false;
    cli_progress pg;
    const char *partition = NULL;
    cli_vreq r;
    vparsed p;
    synth_ctx c;
    fr_t *expect = NULL;
    size_t nopts;
    uint32_t k0 = 0, k1;
    double t0 = cli_now_ms();
    int rc = cli_vreq_flags_init(&f, CMD, argc, argv);

    if (rc >= 0) {
        return rc;
    }
    nopts = cli_vreq_opts(opts, &f);
    opts[nopts++] = (cli_opt_t)CLI_OPT("partition", CLI_STR, &partition, "K",
                                       "check only partition K (default: all)", false);
    opts[nopts++] = (cli_opt_t)CLI_OPT(
        "native", CLI_FLAG, &native, NULL,
        "also run the native vanilla verifier (Merkle roots, labels, challenges)", false);
    opts[nopts++] = (cli_opt_t)CLI_OPT("threads", CLI_U64, &threads, "N",
                                       "cores for PoSt synthesis (default: all)", false);
    opts[nopts++] =
        (cli_opt_t)CLI_OPT("quiet", CLI_FLAG, &quiet, NULL, "no progress on stderr", false);
    rc = cli_parse(CMD, about, opts, nopts, f.argc, f.argv);
    if (rc >= 0) {
        cli_vreq_flags_clear(&f);
        return rc;
    }
    memset(&c, 0, sizeof(c));
    /* two stages: parse (the vanilla proofs decoded), then the partitions one by one */
    cli_progress_init(&pg, CMD, 2, cli_progress_default_mode(quiet));
    cli_progress_begin(&pg, "parse", 0);
    if (!cli_vreq_load(CMD, &f, false, &r)) {
        cli_progress_hide(&pg);
        cli_vreq_flags_clear(&f);
        return CLI_EXIT_ERROR;
    }
    cli_vreq_flags_clear(&f);
    rc = vparse(CMD, &r, &p);
    if (rc != CLI_EXIT_OK) {
        cli_progress_hide(&pg);
        cli_vreq_clear(&r);
        vparsed_clear(&p);
        return rc;
    }
    c.p = &p;
    k1 = p.partitions;
    if (partition) {
        char *end;
        unsigned long v = strtoul(partition, &end, 10);
        if (*end != '\0' || partition[0] < '0' || partition[0] > '9' || v >= p.partitions) {
            rc = cli_error(CMD, "--partition %s: the proof has partitions 0..%u", partition,
                           p.partitions - 1);
            goto done;
        }
        k0 = (uint32_t)v;
        k1 = k0 + 1;
    }
    if ((p.kind == CLI_PROOF_WINDOW_POST || p.kind == CLI_PROOF_WINNING_POST) &&
        !cli_pool(CMD, threads, &c.pool)) {
        rc = CLI_EXIT_ERROR;
        goto done;
    }
    expect = cz_malloc(p.ninputs * sizeof(fr_t));
    if (!expect) {
        rc = cli_error(CMD, "out of memory");
        goto done;
    }
    cli_progress_begin(&pg, "partitions", k1 - k0);
    for (uint32_t k = k0; k < k1; k++) {
        cs_counts_t counts;
        double tk = cli_now_ms();

        if (native && (rc = native_check(CMD, &r, &p, k)) != CLI_EXIT_OK) {
            goto done;
        }
        if ((rc = vinputs(CMD, &r, &p, k, expect)) != CLI_EXIT_OK) {
            goto done;
        }
        if ((rc = witness_of(CMD, &r, &c, k)) != CLI_EXIT_OK) {
            goto done;
        }
        rc = check_partition(CMD, &c, k, expect, p.ninputs, &counts);
        witness_clear(&c);
        if (rc != CLI_EXIT_OK) {
            goto done;
        }
        cli_progress_hide(&pg); /* the result line goes to the same terminal */
        printf("partition=%u constraints=%zu inputs=%zu aux=%zu satisfied inputs_match ms=%.1f\n",
               k, counts.num_constraints, counts.num_inputs - 1, counts.num_aux, cli_now_ms() - tk);
        fflush(stdout);
        cli_progress_update(&pg, k + 1 - k0);
    }
    cli_progress_end(&pg);
    printf("ok kind=%s partitions=%u checked=%u%s ms=%.1f\n", cli_proof_name(p.kind), p.partitions,
           k1 - k0, native ? " native=ok" : "", cli_now_ms() - t0);
    rc = CLI_EXIT_OK;
done:
    cli_progress_hide(&pg);
    cz_free(expect);
    cz_pool_free(c.pool);
    vparsed_clear(&p);
    cli_vreq_clear(&r);
    return rc;
}

/* ---- gen-vanilla ----------------------------------------------------------------------------- */

typedef struct gen_opts {
    cli_proof_kind kind;
    uint64_t sector_size;
    const char *out, *data_path, *workdir;
    bool synthetic, curio_wrapper, cc;
    uint64_t registered_proof, miner_id, sector_number, sectors;
    bool has_registered_proof;
    seal_default_ids ids; /* of sector_size */
    cz_prng prng;
    cz_pool *pool;
    cli_progress *pg; /* stages: porep sector, c1, write; PoSt sectors, write; snap sector,
                         encode, partitions, write */
} gen_opts;

static void random_node(uint8_t out[32], cz_prng *g)
{
    cz_prng_bytes(g, out, 32);
    out[31] &= 0x3f;
}

/* The sector's padded data: --data FILE (raw bytes, fr32-padded as add_piece does, zero
 * filled), else random nodes. Returns owned nodes or NULL after an error line. */
static seal_node *make_data(const char *cmd, const gen_opts *o, uint64_t nodes)
{
    seal_node *d = cz_calloc(nodes, sizeof(seal_node));

    if (!d) {
        cli_error(cmd, "out of memory (%" PRIu64 " nodes)", nodes);
        return NULL;
    }
    if (o->data_path) {
        uint8_t *raw;
        size_t len, cap = (size_t)(nodes * 32 / 128 * 127);
        if (!cli_read_file(cmd, o->data_path, &raw, &len)) {
            cz_free(d);
            return NULL;
        }
        if (len > cap) {
            cli_error(cmd, "%s: %zu bytes; a %" PRIu64 "-byte sector holds at most %zu unpadded",
                      o->data_path, len, nodes * 32, cap);
            cz_free(raw);
            cz_free(d);
            return NULL;
        }
        seal_fr32_pad((uint8_t *)d, raw, len);
        cz_free(raw);
    } else {
        for (uint64_t i = 0; i < nodes; i++) {
            random_node(d[i].b, (cz_prng *)&o->prng);
        }
    }
    return d;
}

static bool dir_has_sector(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/sector.meta", dir);
    return cli_file_exists(path);
}

/* True when the loaded sector holds committed capacity: all-zero data, every column sealed. */
static bool sector_is_cc(const seal_sector *s, const seal_porep_config *cfg)
{
    uint8_t zero[32];
    seal_zero_comm_d(zero, cfg->shape.log2_nodes);
    return !seal_sector_get_info(s)->sparse &&
           memcmp(seal_sector_get_info(s)->comm_d, zero, 32) == 0;
}

/* Seals (or loads from o->workdir when `cache` and it holds one) the sector `ids` of `cfg`.
 * porep_seed: for a synthetic PoRep sector, the seed whose challenges are materialised.
 * cc: all-zero data (the sector key of a SnapDeals update, or --cc). A cached sector must be
 * committed capacity when --cc asks for it, and must not be when the kind wants data (porep
 * and PoSt without --cc); a snap sector key may hold data. */
static bool obtain_sector(const char *cmd, const gen_opts *o, const seal_porep_config *cfg,
                          const seal_ids *ids, const uint8_t *porep_seed, bool cc, bool cache,
                          seal_sector **out)
{
    seal_node *data = NULL;
    cz_diag dg;
    cuzk_err err;

    *out = NULL;
    cz_diag_init(&dg);
    if (cache && o->workdir && dir_has_sector(o->workdir)) {
        const seal_sector_info *in;
        if (seal_sector_load(out, o->workdir, o->pool, &dg) != CUZK_OK) {
            cli_error(cmd, "%s: %s", o->workdir, dg.msg);
            return false;
        }
        in = seal_sector_get_info(*out);
        if (seal_sector_config(*out)->registered_proof != cfg->registered_proof ||
            memcmp(&in->ids, ids, sizeof(*ids)) != 0) {
            cli_error(cmd,
                      "%s holds a sector of another registered proof, miner or sector number "
                      "(or ticket: give the same --seed)",
                      o->workdir);
            seal_sector_free(*out);
            *out = NULL;
            return false;
        }
        bool have_cc = sector_is_cc(*out, cfg);
        if ((o->cc && !have_cc) || (!cc && have_cc)) {
            cli_error(cmd, "%s holds a %s sector: %s", o->workdir,
                      have_cc ? "committed-capacity (all-zero)" : "non-committed-capacity",
                      have_cc ? "give --cc to use it" : "--cc needs another --workdir");
            seal_sector_free(*out);
            *out = NULL;
            return false;
        }
        cli_progress_hide(o->pg);
        fprintf(stderr, "cuzk-bench gen-vanilla: note: using the sector in %s\n", o->workdir);
        return true;
    }
    if (o->synthetic) {
        uint64_t *ch = NULL;
        size_t n = 0;
        if (porep_seed) {
            uint8_t comm_d[32], rid[32];
            n = (size_t)cfg->partitions * cfg->challenges_per_partition;
            ch = cz_malloc(n * sizeof(uint64_t));
            if (!ch) {
                cli_error(cmd, "out of memory");
                return false;
            }
            /* interactive challenges depend on replica_id (comm_d of the zero sector) and the
             * seed only, so they are known before sealing */
            seal_zero_comm_d(comm_d, cfg->shape.log2_nodes);
            seal_replica_id(rid, ids->prover_id, ids->sector_id, ids->ticket, comm_d,
                            cfg->porep_id);
            for (uint32_t k = 0; k < cfg->partitions; k++) {
                seal_porep_challenges(ch + (size_t)k * cfg->challenges_per_partition, cfg, rid,
                                      NULL, porep_seed, k);
            }
        }
        err = seal_sector_seal_sparse(out, cfg, ids, ch, n, &dg);
        cz_free(ch);
    } else {
        if (!cc) {
            data = make_data(cmd, o, cfg->shape.nodes);
            if (!data) {
                return false;
            }
        }
        err = seal_sector_seal(out, cfg, ids, data, o->pool, &dg);
        cz_free(data);
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "sealing: %s", dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return false;
    }
    if (cache && o->workdir) {
        if (seal_sector_save(*out, o->workdir, &dg) != CUZK_OK) {
            cli_error(cmd, "%s: %s", o->workdir, dg.msg);
            seal_sector_free(*out);
            *out = NULL;
            return false;
        }
    }
    return true;
}

/* Writes the proofs: one raw bincode proof, or a JSON list of base64 proofs (proofs.h
 * vp_proof_file_encode, which names the encoding). */
static bool write_proof_file(const char *cmd, const char *path, const vp_blobs *bins,
                             const char **encoding)
{
    uint8_t *bytes;
    size_t len;
    cz_diag dg;
    bool ok;

    cz_diag_init(&dg);
    if (vp_proof_file_encode(bins, &bytes, &len, encoding, &dg) != CUZK_OK) {
        cli_error(cmd, "out of memory");
        return false;
    }
    ok = cli_write_file(cmd, path, bytes, len);
    cz_free(bytes);
    return ok;
}

static int gen_porep(const char *cmd, gen_opts *o, vp_sidecar *sc)
{
    seal_porep_config cfg;
    seal_ids ids;
    seal_sector *s = NULL;
    uint8_t seed[32];
    vp_c1 c1;
    char *json = NULL;
    size_t len = 0;
    cz_diag dg;
    cuzk_err err;
    int rc = CLI_EXIT_ERROR;

    memset(&c1, 0, sizeof(c1));
    cz_diag_init(&dg);
    if (o->registered_proof > UINT32_MAX ||
        !seal_porep_config_for_id(&cfg, (uint32_t)o->registered_proof) ||
        cfg.shape.sector_size != o->sector_size) {
        return cli_error(cmd,
                         "registered seal proof %" PRIu64 " is not one of %" PRIu64 "-byte sectors",
                         o->registered_proof, o->sector_size);
    }
    if (o->synthetic && cfg.kind != SEAL_POREP_INTERACTIVE) {
        return cli_error(cmd,
                         "--synthetic needs an interactive PoRep (the challenges of %s "
                         "depend on comm_r)",
                         cfg.name);
    }
    seal_prover_id(ids.prover_id, o->miner_id);
    ids.sector_id = o->sector_number;
    random_node(ids.ticket, &o->prng);
    cz_prng_bytes(&o->prng, seed, 32);
    seed[31] &= 0x3f;
    cli_progress_begin(o->pg, "sector", 0);
    if (!obtain_sector(cmd, o, &cfg, &ids, seed, o->cc, true, &s)) {
        return CLI_EXIT_ERROR;
    }
    cli_progress_begin(o->pg, "c1", 0);
    err = vp_gen_porep_c1(&c1, s, seed, o->pool, &dg);
    if (err == CUZK_OK) {
        err = o->curio_wrapper ? vp_c1_to_curio_json(&c1, o->sector_number, &json, &len, &dg)
                               : vp_c1_to_json(&c1, &json, &len, &dg);
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "C1: %s", dg.msg[0] ? dg.msg : cuzk_strerror(err));
        goto done;
    }
    cli_progress_begin(o->pg, "write", 0);
    if (!cli_write_file(cmd, o->out, json, len)) {
        goto done;
    }
    cli_progress_end(o->pg);
    sc->registered_proof = cfg.registered_proof;
    sc->has_registered_proof = true;
    sc->encoding = o->curio_wrapper ? "c1-curio-json" : "c1-json";
    sc->proofs = 1;
    sc->has_c1_values = true;
    sc->has_comm_r = true;
    memcpy(sc->comm_r, c1.comm_r, 32);
    memcpy(sc->comm_d, c1.comm_d, 32);
    memcpy(sc->replica_id, c1.replica_id, 32);
    memcpy(sc->seed, c1.seed, 32);
    memcpy(sc->ticket, c1.ticket, 32);
    printf("c1 registered_proof=%u (%s) partitions=%u challenges=%u bytes=%zu\n",
           cfg.registered_proof, cfg.name, c1.partitions, c1.challenges, len);
    rc = CLI_EXIT_OK;
done:
    cz_free(json);
    vp_c1_clear(&c1);
    seal_sector_free(s);
    return rc;
}

static int gen_post(const char *cmd, gen_opts *o, vp_sidecar *sc)
{
    seal_porep_config cfg;
    seal_post_config pc;
    seal_post_type want = o->kind == CLI_PROOF_WINNING_POST ? SEAL_POST_WINNING : SEAL_POST_WINDOW;
    uint8_t rnd[32], ticket0[32];
    vp_blobs bins = {0};
    size_t made = 0, n = o->sectors ? (size_t)o->sectors : 1;
    const char *encoding = NULL;
    int rc = CLI_EXIT_ERROR;

    if (o->registered_proof > UINT32_MAX ||
        !seal_post_config_for_id(&pc, (uint32_t)o->registered_proof) || pc.type != want ||
        pc.shape.sector_size != o->sector_size) {
        return cli_error(
            cmd, "registered PoSt proof %" PRIu64 " is not a %s proof of %" PRIu64 "-byte sectors",
            o->registered_proof, cli_proof_name(o->kind), o->sector_size);
    }
    if (n > pc.sector_count) {
        return cli_error(cmd, "--sectors %zu: a %s partition holds at most %u sectors", n, pc.name,
                         pc.sector_count);
    }
    CZ_CHECK(seal_porep_config_for_id(&cfg, o->ids.porep)); /* V1_1 sectors */
    /* every kind draws the first sector's ticket first: the same --seed and --workdir then
     * name the same sector whichever kind sealed it */
    random_node(ticket0, &o->prng);
    random_node(rnd, &o->prng);
    cli_progress_begin(o->pg, "sectors", n);
    for (; made < n; made++) {
        seal_ids ids;
        seal_sector *s = NULL;
        vp_post_proof p;
        uint8_t *bin;
        size_t len;
        cz_diag dg;
        cuzk_err err;

        cz_diag_init(&dg);
        seal_prover_id(ids.prover_id, o->miner_id);
        ids.sector_id = o->sector_number + made;
        if (made == 0) {
            memcpy(ids.ticket, ticket0, 32);
        } else {
            random_node(ids.ticket, &o->prng);
        }
        if (!obtain_sector(cmd, o, &cfg, &ids, NULL, o->cc, made == 0, &s)) {
            goto done;
        }
        if (made == 0) {
            memcpy(sc->comm_r, seal_sector_get_info(s)->comm_r, 32);
            sc->has_comm_r = true;
        }
        err = vp_gen_post(&p, s, &pc, rnd, made, &dg);
        seal_sector_free(s);
        if (err == CUZK_OK) {
            err = vp_post_to_bincode(&p, &bin, &len, &dg);
            vp_post_clear(&p);
        }
        if (err == CUZK_OK) {
            err = vp_blobs_push(&bins, bin, len, &dg);
        }
        if (err != CUZK_OK) {
            cli_error(cmd, "sector %zu: %s", made, dg.msg[0] ? dg.msg : cuzk_strerror(err));
            goto done;
        }
        cli_progress_update(o->pg, made + 1);
    }
    cli_progress_begin(o->pg, "write", 0);
    if (!write_proof_file(cmd, o->out, &bins, &encoding)) {
        goto done;
    }
    cli_progress_end(o->pg);
    sc->registered_proof = pc.registered_proof;
    sc->has_registered_proof = true;
    sc->encoding = encoding;
    sc->proofs = n;
    sc->has_partition_index = true; /* 0 */
    sc->has_randomness = true;
    memcpy(sc->randomness, rnd, 32);
    printf("post registered_proof=%u (%s) sectors=%zu challenges=%u bytes=%zu\n",
           pc.registered_proof, pc.name, n, pc.challenge_count, bins.len[0]);
    rc = CLI_EXIT_OK;
done:
    vp_blobs_clear(&bins);
    return rc;
}

static int gen_snap(const char *cmd, gen_opts *o, vp_sidecar *sc)
{
    seal_porep_config cfg;
    seal_update_config uc;
    seal_ids ids;
    seal_sector *s = NULL;
    seal_update *u = NULL;
    seal_node *data = NULL;
    vp_snap_proof *parts = NULL;
    char *json = NULL;
    size_t len = 0;
    uint32_t made = 0;
    cz_diag dg;
    cuzk_err err;
    int rc = CLI_EXIT_ERROR;

    cz_diag_init(&dg);
    if (o->registered_proof > UINT32_MAX ||
        !seal_update_config_for_id(&uc, (uint32_t)o->registered_proof) ||
        uc.shape.sector_size != o->sector_size) {
        return cli_error(
            cmd, "registered update proof %" PRIu64 " is not one of %" PRIu64 "-byte sectors",
            o->registered_proof, o->sector_size);
    }
    CZ_CHECK(seal_porep_config_for_id(&cfg, o->ids.porep));
    seal_prover_id(ids.prover_id, o->miner_id);
    ids.sector_id = o->sector_number;
    random_node(ids.ticket, &o->prng);
    /* the sector key: a committed-capacity (all-zero) sector, as SnapDeals upgrades */
    cli_progress_begin(o->pg, "sector", 0);
    if (!obtain_sector(cmd, o, &cfg, &ids, NULL, true, true, &s)) {
        return CLI_EXIT_ERROR;
    }
    cli_progress_begin(o->pg, "encode", 0);
    if (!o->synthetic) {
        data = make_data(cmd, o, cfg.shape.nodes);
        if (!data) {
            goto done;
        }
    }
    err = seal_update_encode(&u, s, &uc, data, o->pool, &dg);
    parts = err == CUZK_OK ? cz_calloc(uc.partitions, sizeof(*parts)) : NULL;
    if (err == CUZK_OK && !parts) {
        err = cz_fail(&dg, CUZK_E_NOMEM, "out of memory");
    }
    if (err == CUZK_OK) {
        cli_progress_begin(o->pg, "partitions", uc.partitions);
    }
    for (; err == CUZK_OK && made < uc.partitions; made++) {
        err = vp_gen_snap(&parts[made], u, made, &dg);
        if (err != CUZK_OK) {
            break;
        }
        cli_progress_update(o->pg, made + 1);
    }
    if (err == CUZK_OK) {
        err = vp_snap_list_to_json(parts, uc.partitions, &json, &len, &dg);
    }
    if (err != CUZK_OK) {
        cli_error(cmd, "SnapDeals: %s", dg.msg[0] ? dg.msg : cuzk_strerror(err));
        goto done;
    }
    cli_progress_begin(o->pg, "write", 0);
    if (!cli_write_file(cmd, o->out, json, len)) {
        goto done;
    }
    cli_progress_end(o->pg);
    sc->registered_proof = uc.registered_proof;
    sc->has_registered_proof = true;
    sc->encoding = "base64-list";
    sc->proofs = uc.partitions;
    sc->has_comm_r_old = sc->has_comm_r_new = sc->has_comm_d_new = sc->has_comm_r = true;
    memcpy(sc->comm_r_old, seal_update_get_info(u)->comm_r_old, 32);
    memcpy(sc->comm_r_new, seal_update_get_info(u)->comm_r_new, 32);
    memcpy(sc->comm_d_new, seal_update_get_info(u)->comm_d_new, 32);
    memcpy(sc->comm_r, sc->comm_r_new, 32);
    printf("snap registered_proof=%u (%s) partitions=%u challenges=%u bytes=%zu\n",
           uc.registered_proof, uc.name, uc.partitions, uc.challenges, len);
    rc = CLI_EXIT_OK;
done:
    for (uint32_t i = 0; parts && i < made; i++) {
        vp_snap_clear(&parts[i]);
    }
    cz_free(parts);
    cz_free(json);
    cz_free(data);
    seal_update_free(u);
    seal_sector_free(s);
    return rc;
}

/* Seeds o->prng, which draws every random value, from --seed or the OS; seed_text gets the
 * seed in hex (printed, so a run can be replayed). */
static bool gen_seed(const char *cmd, gen_opts *o, const char *seed_hex, char seed_text[129])
{
    uint8_t seed[64], h[32];
    size_t seed_len = 32;
    cz_diag dg;

    cz_diag_init(&dg);
    if (seed_hex) {
        /* an odd count of digits reads with a leading 0: "1" is the seed "01" */
        char even[130] = "0";
        size_t hl = strlen(seed_hex);
        if (hl % 2 != 0 && hl < 128) {
            snprintf(even + 1, sizeof(even) - 1, "%s", seed_hex);
            seed_hex = even;
            hl++;
        }
        if (hl == 0 || hl % 2 != 0 || hl > 128 || !cz_hex_decode(seed, hl / 2, seed_hex)) {
            cli_error(cmd, "--seed: expected 1 to 128 hex digits");
            return false;
        }
        seed_len = hl / 2;
    } else if (cz_rand_bytes(seed, seed_len, &dg) != CUZK_OK) {
        cli_error_diag(cmd, CUZK_E_IO, &dg);
        return false;
    }
    cz_hex_encode(seed_text, seed, seed_len);
    sha256(h, seed, seed_len);
    cz_prng_seed(&o->prng, cz_load_le64(h));
    return true;
}

/* gen-vanilla --help */
static const char GEN_ABOUT[] =
    "cuzk-bench gen-vanilla porep|winning-post|window-post|snap --sector-size SIZE --out FILE\n"
    "\n"
    "Seals a test sector (random data, or --data) with the seal library and writes a\n"
    "vanilla proof the daemon and check-vanilla accept, verified natively before it is\n"
    "written: porep the C1 output JSON; winning-post and window-post the bincode\n"
    "FallbackPoStSectorProof (window-post with --sectors > 1: a JSON list of base64\n"
    "proofs); snap Curio's snap-vproof.json (an upgrade of a CC sector). Beside it,\n"
    "FILE.json holds what a request needs besides the proof (registered proof, miner,\n"
    "sector number, randomness, commitments). Sectors are sealed in memory unless\n"
    "--workdir names a sector cache (loaded if it holds the same sector, else written):\n"
    "with the same --seed every kind names the same sector, and with --cc (a committed-\n"
    "capacity, all-zero sector, which snap upgrades) all four kinds can share one.\n"
    "--synthetic seals an all-zero sector with only the challenged columns (32 GiB in\n"
    "seconds). Values are drawn from --seed (printed when random), so runs can be replayed.";

int cmd_gen_vanilla(int argc, char **argv)
{
    static const char CMD[] = "gen-vanilla";
    const char *type = NULL, *size = NULL, *seed_hex = NULL;
    gen_opts o;
    uint64_t threads = 0, miner_id = 1000, sector_number = 1;
    char **args = NULL;
    int nargs = 0, rc;
    vp_sidecar sc;
    char seed_text[129], *sc_path = NULL;
    double t0 = cli_now_ms();
    cz_diag dg;
    cli_progress pg;
    bool quiet = false;

    memset(&o, 0, sizeof(o));
    memset(&sc, 0, sizeof(sc));
    cli_opt_t opts[] = {
        CLI_OPT("type", CLI_STR, &type, "KIND", "the kind, when not given first", false),
        CLI_OPT("sector-size", CLI_STR, &size, "SIZE", "2KiB 8MiB 512MiB 32GiB 64GiB", true),
        CLI_OPT("out", CLI_STR, &o.out, "FILE", "the vanilla proof to write (and FILE.json)", true),
        CLI_OPT("data", CLI_STR, &o.data_path, "FILE",
                "the sector's raw (unpadded) data, zero filled; snap: the new data", false),
        CLI_OPT("seed", CLI_STR, &seed_hex, "HEX",
                "1..64 bytes seeding every random value (default: random, printed)", false),
        CLI_OPT("workdir", CLI_STR, &o.workdir, "DIR", "sector cache directory", false),
        CLI_OPT("synthetic", CLI_FLAG, &o.synthetic, NULL,
                "all-zero sector with only the challenged columns materialised", false),
        CLI_OPT("cc", CLI_FLAG, &o.cc, NULL,
                "seal a committed-capacity (all-zero) sector, fully; snap's sector key always is "
                "one (snap: new data still random or --data)",
                false),
        CLI_OPT_GIVEN("registered-proof", CLI_U64, &o.registered_proof, "N",
                      "abi id (default: V1_1 seal / Winning V1 / Window V1_1 / Update V1)", false,
                      &o.has_registered_proof),
        CLI_OPT("miner-id", CLI_U64, &miner_id, "N", "miner actor id (default 1000)", false),
        CLI_OPT("sector-number", CLI_U64, &sector_number, "N",
                "sector number (default 1; window-post sector i gets N + i)", false),
        CLI_OPT("sectors", CLI_U64, &o.sectors, "N", "window-post: sectors (default 1)", false),
        CLI_OPT("curio-wrapper", CLI_FLAG, &o.curio_wrapper, NULL,
                "porep: write Curio's {\"SectorNum\",\"Phase1Out\",\"SectorSize\"} wrapper", false),
        CLI_OPT("threads", CLI_U64, &threads, "N", "cores to use (default: all)", false),
        CLI_OPT("quiet", CLI_FLAG, &quiet, NULL, "no progress on stderr", false),
    };

    /* the kind may come first: gen-vanilla KIND --opts... */
    args = cz_calloc((size_t)argc + 1, sizeof(char *));
    if (!args) {
        return cli_error(CMD, "out of memory");
    }
    args[nargs++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (i == 1 && argv[i][0] != '-') {
            type = argv[i];
            continue;
        }
        args[nargs++] = argv[i];
    }
    rc = cli_parse(CMD, GEN_ABOUT, opts, ARRAY_LEN(opts), nargs, args);
    cz_free(args);
    if (rc >= 0) {
        return rc;
    }
    cz_diag_init(&dg);
    if (!cli_proof_parse(&o.kind, type)) {
        return cli_error(CMD, "give the kind first: porep, winning-post, window-post or snap");
    }
    if (!cli_parse_sector_size(CMD, size, &o.sector_size)) {
        return CLI_EXIT_ERROR;
    }
    if (!seal_default_ids_for_size(&o.ids, o.sector_size)) {
        return cli_error(CMD,
                         "--sector-size %s: registered proofs exist only for 2KiB 8MiB "
                         "512MiB 32GiB 64GiB",
                         size);
    }
    if (o.sectors && o.kind != CLI_PROOF_WINDOW_POST) {
        return cli_error(CMD, "--sectors applies to window-post only");
    }
    if (o.curio_wrapper && o.kind != CLI_PROOF_POREP) {
        return cli_error(CMD, "--curio-wrapper applies to porep only");
    }
    if (o.synthetic && o.data_path) {
        return cli_error(CMD, "--synthetic seals an all-zero sector: no --data");
    }
    if (o.cc && (o.synthetic || (o.data_path && o.kind != CLI_PROOF_SNAP))) {
        return cli_error(CMD, "--cc seals an all-zero sector: no --%s",
                         o.synthetic ? "synthetic" : "data");
    }
    if (!o.has_registered_proof) {
        o.registered_proof = o.kind == CLI_PROOF_POREP          ? o.ids.porep
                             : o.kind == CLI_PROOF_WINNING_POST ? o.ids.winning_post
                             : o.kind == CLI_PROOF_WINDOW_POST  ? o.ids.window_post
                                                                : o.ids.update;
    }
    o.miner_id = miner_id;
    o.sector_number = sector_number;

    if (!gen_seed(CMD, &o, seed_hex, seed_text)) {
        return CLI_EXIT_ERROR;
    }
    if (!cli_pool(CMD, threads, &o.pool)) {
        return CLI_EXIT_ERROR;
    }
    printf("gen-vanilla kind=%s sector_size=%" PRIu64 " seed=%s\n", cli_proof_name(o.kind),
           o.sector_size, seed_text);
    fflush(stdout);

    cli_progress_init(&pg, CMD,
                      o.kind == CLI_PROOF_POREP  ? 3
                      : o.kind == CLI_PROOF_SNAP ? 4
                                                 : 2,
                      cli_progress_default_mode(quiet));
    o.pg = &pg;
    snprintf(sc.kind, sizeof(sc.kind), "%s", cli_proof_name(o.kind));
    sc.vanilla = o.out;
    sc.seed_hex = seed_text;
    sc.sector_size = o.sector_size;
    sc.miner_id = o.miner_id;
    sc.sector_number = o.sector_number;
    sc.has_sector_size = sc.has_miner_id = sc.has_sector_number = true;
    switch (o.kind) {
    case CLI_PROOF_POREP:
        rc = gen_porep(CMD, &o, &sc);
        break;
    case CLI_PROOF_WINNING_POST:
    case CLI_PROOF_WINDOW_POST:
        rc = gen_post(CMD, &o, &sc);
        break;
    default:
        rc = gen_snap(CMD, &o, &sc);
        break;
    }
    if (rc == CLI_EXIT_OK) {
        sc_path = cli_sidecar_path(o.out);
        if (!sc_path) {
            rc = cli_error(CMD, "out of memory");
        } else if (!sidecar_write(CMD, sc_path, &sc)) {
            rc = CLI_EXIT_ERROR;
        } else {
            printf("out=%s sidecar=%s ms=%.1f\n", o.out, sc_path, cli_now_ms() - t0);
        }
    }
    cli_progress_hide(&pg);
    cz_free(sc_path);
    cz_pool_free(o.pool);
    return rc;
}
