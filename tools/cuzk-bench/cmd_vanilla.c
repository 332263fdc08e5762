/* cmd_vanilla.c - cuzk-bench gen-vanilla and check-vanilla, and the verification of a proof
 * against its request (cli_vreq_verify); the proof files: vreq.c.
 *
 * check-vanilla and cli_vreq_verify drive the daemon's own handler of the request's kind
 * offline (kinds.h: eng_offline): its parse decodes the vanilla proofs, its checker entry
 * synthesizes each partition with the checker backend from the witness the handler builds and
 * compares the public inputs the circuit allocates with those the handler derives as the chain
 * verifier does (challenges from the seed or randomness, parents from the graph). check-vanilla
 * exits 0 iff every constraint holds and every input matches. Exit 1: the vanilla proof is
 * malformed or invalid (the first problem is named); exit 2: bad usage or unreadable files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/rand.h"
#include "field/fr.h"
#include "hash/sha256.h"
#include "seal/seal.h"
#include "proofs/proofs.h"
#include "groth16/groth16.h"
#include "kinds/kinds.h"

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

/* ---- the request through its kind's handler (kinds.h) -------------------------------------- */

/* Reports a failed eng_offline call as "[WHERE: ][WHAT: ]MESSAGE", WHERE naming the file (or
 * list entry) of the vanilla proof at fault when the handler named one (fault_entry, 1 + its
 * index). Returns CLI_EXIT_INVALID when the vanilla proofs are at fault (one is named, or they
 * are malformed), else CLI_EXIT_ERROR (the request or its fields, out of memory). */
static int offline_error(const char *cmd, const cli_vreq *r, size_t fault_entry, const char *what,
                         cuzk_err err, const cz_diag *dg)
{
    const char *where =
        fault_entry >= 1 && fault_entry <= r->vanilla.n ? r->vanilla.name[fault_entry - 1] : NULL;
    const char *msg = dg->msg[0] ? dg->msg : cuzk_strerror(err);

    cli_error(cmd, "%s%s%s%s%s", where ? where : "", where ? ": " : "", what ? what : "",
              what ? ": " : "", msg);
    return err != CUZK_E_NOMEM && (where || err == CUZK_E_FORMAT) ? CLI_EXIT_INVALID
                                                                  : CLI_EXIT_ERROR;
}

/* The request of r planned by its handler, without native verification. *vps: the request's
 * view of r's proofs (owned, cz_free). */
static int offline_plan(const char *cmd, const cli_vreq *r, cz_pool *pool, eng_offline_t **out,
                        eng_bytes_t **vps)
{
    eng_request_t req;
    size_t fault = 0;
    cz_diag dg;

    *out = NULL;
    *vps = cz_calloc(r->vanilla.n ? r->vanilla.n : 1, sizeof(**vps));
    if (!*vps) {
        return cli_error(cmd, "out of memory");
    }
    cli_vreq_request(r, cmd, &req, *vps);
    cz_diag_init(&dg);
    cuzk_err err = eng_offline_new(out, &fault, &req, pool, false, &dg);
    return err == CUZK_OK ? CLI_EXIT_OK : offline_error(cmd, r, fault, NULL, err, &dg);
}

/* What checking proofs of one request takes, made once: the verifying key and each
 * partition's public inputs as the handler derives them (x: parts rows of ninputs). */
struct cli_verifier {
    const char *cmd;
    g16_vk_t *vk;
    g16_pvk_t pvk;
    size_t parts, ninputs;
    fr_t *x;
};

void cli_verifier_free(cli_verifier *v)
{
    if (v) {
        cz_free(v->x);
        g16_vk_free(v->vk);
        cz_free(v);
    }
}

int cli_verifier_new(cli_verifier **out, const char *cmd, const cli_vreq *r, const char *vk_path)
{
    eng_offline_t *o = NULL;
    eng_bytes_t *vps = NULL;
    cli_verifier *v = cz_calloc(1, sizeof(*v));
    cz_diag dg;
    int rc = v ? offline_plan(cmd, r, NULL, &o, &vps) : cli_error(cmd, "out of memory");

    *out = NULL;
    cz_diag_init(&dg);
    if (rc != CLI_EXIT_OK) {
        rc = CLI_EXIT_ERROR; /* the request, not a proof */
        goto done;
    }
    rc = CLI_EXIT_ERROR;
    v->cmd = cmd;
    if (g16_vk_load(&v->vk, vk_path, &dg) != CUZK_OK) {
        cli_error(cmd, "%s: %s", vk_path, dg.msg);
        goto done;
    }
    g16_pvk_init(&v->pvk, v->vk);
    v->parts = eng_offline_plan(o)->num_partitions;
    v->ninputs = v->pvk.ic_len - 1;
    v->x = cz_calloc(v->parts * v->ninputs + 1, sizeof(fr_t));
    if (!v->x) {
        cli_error(cmd, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < v->parts; k++) {
        if (eng_offline_public_inputs(o, k, v->x + k * v->ninputs, v->ninputs, &dg) != CUZK_OK) {
            cli_error(cmd, "partition %zu: %s", k, dg.msg);
            goto done;
        }
    }
    *out = v;
    v = NULL;
    rc = CLI_EXIT_OK;
done:
    cli_verifier_free(v);
    eng_offline_free(o);
    cz_free(vps);
    return rc;
}

int cli_verifier_check(cli_verifier *v, const uint8_t *proof, size_t len)
{
    g16_proof_t *proofs = cz_calloc(v->parts ? v->parts : 1, sizeof(*proofs));
    size_t n = 0;
    cz_diag dg;
    int rc = CLI_EXIT_INVALID;

    cz_diag_init(&dg);
    if (!proofs) {
        return cli_error(v->cmd, "out of memory");
    }
    if (len != v->parts * G16_PROOF_NBYTES) {
        cli_error(v->cmd, "the proof is %zu bytes; %zu partitions make %zu", len, v->parts,
                  v->parts * G16_PROOF_NBYTES);
        goto done;
    }
    if (g16_proofs_from_bytes(proofs, v->parts, &n, proof, len, &dg) != CUZK_OK) {
        cli_error(v->cmd, "the proof does not decode: %s", dg.msg);
        goto done;
    }
    rc = CLI_EXIT_OK;
    for (size_t k = 0; k < v->parts; k++) {
        bool valid = false;
        if (g16_verify(&v->pvk, &valid, &proofs[k], v->x + k * v->ninputs, v->ninputs, &dg) !=
            CUZK_OK) {
            rc = cli_error(v->cmd, "partition %zu: %s", k, dg.msg);
            goto done;
        }
        printf("verify partition=%zu %s\n", k, valid ? "valid" : "INVALID");
        if (!valid) {
            rc = CLI_EXIT_INVALID;
        }
    }
done:
    cz_free(proofs);
    return rc;
}

int cli_vreq_verify(const char *cmd, const cli_vreq *r, const char *vk_path, const uint8_t *proof,
                    size_t len)
{
    cli_verifier *v = NULL;
    int rc = cli_verifier_new(&v, cmd, r, vk_path);

    if (rc == CLI_EXIT_OK) {
        rc = cli_verifier_check(v, proof, len);
    }
    cli_verifier_free(v);
    return rc;
}

/* ---- check-vanilla --------------------------------------------------------------------------- */

/* Reports what eng_offline_check found in partition k (not OK); returns CLI_EXIT_INVALID. */
static int check_finding(const char *cmd, const eng_check_t *c, size_t k)
{
    char a[65], b[65];
    uint8_t ba[32], bb[32];

    if (c->status == ENG_CHECK_UNSAT) {
        cli_error(cmd, "partition %zu: constraint %zu is not satisfied: %s", k, c->constraint,
                  c->path[0] ? c->path : "(unnamed)");
        return CLI_EXIT_INVALID;
    }
    fr_to_bytes(ba, &c->circuit);
    fr_to_bytes(bb, &c->verifier);
    hex32(a, ba);
    hex32(b, bb);
    cli_error(cmd,
              "partition %zu: public input %zu differs from the verifier's: circuit %s, "
              "verifier %s (little-endian hex)",
              k, c->input, a, b);
    return CLI_EXIT_INVALID;
}

/* Partition k: the native verification (with `native`), then the circuit with the checker,
 * whose counts go to *c. CLI_EXIT_OK when both find nothing wrong. */
static int check_one(const char *cmd, eng_offline_t *o, const cli_vreq *r, size_t k, bool native,
                     eng_check_t *c)
{
    size_t fault = 0;
    char what[64];
    cz_diag dg;
    cuzk_err err;

    cz_diag_init(&dg);
    if (native && (err = eng_offline_verify_vanilla(o, &fault, k, k + 1, &dg)) != CUZK_OK) {
        snprintf(what, sizeof(what), "partition %zu: native verification", k);
        return offline_error(cmd, r, fault, what, err, &dg);
    }
    err = eng_offline_check(o, c, k, &dg);
    if (err != CUZK_OK) {
        cli_error(cmd, "partition %zu: %s", k, dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return err == CUZK_E_NOMEM ? CLI_EXIT_ERROR : CLI_EXIT_INVALID;
    }
    return c->status == ENG_CHECK_OK ? CLI_EXIT_OK : check_finding(cmd, c, k);
}

/* --partition K of a plan of n partitions into [*k0, *k1) (all without it). */
static bool check_range(const char *cmd, const char *partition, size_t n, size_t *k0, size_t *k1)
{
    char *end;
    unsigned long v;

    *k0 = 0;
    *k1 = n;
    if (!partition) {
        return true;
    }
    v = strtoul(partition, &end, 10);
    if (*end != '\0' || partition[0] < '0' || partition[0] > '9' || v >= n) {
        cli_error(cmd, "--partition %s: the proof has partitions 0..%zu", partition, n - 1);
        return false;
    }
    *k0 = (size_t)v;
    *k1 = *k0 + 1;
    return true;
}

static const char CHECK_ABOUT[] =
    "Runs the circuit of each partition on the vanilla proof with the checker backend\n"
    "and compares the public inputs the circuit allocates with those the chain verifier\n"
    "derives (challenges from the seed or randomness, parents from the graph). Exit 0 iff\n"
    "every constraint holds and every input matches; 1 names the first problem (a parse\n"
    "error with its field, or the first unsatisfied constraint's path); 2 on bad usage.\n"
    "Request fields come from FILE.json beside the first file (gen-vanilla writes it)\n"
    "unless given as flags.";

/* What check-vanilla was asked to do. */
typedef struct check_opts {
    const char *partition;
    uint64_t threads;
    bool native, quiet;
} check_opts;

/* The options; -1 when parsing succeeded, else the exit code. */
static int check_parse(check_opts *o, cli_vreq_flags *f)
{
    cli_opt_t opts[CLI_VREQ_NOPTS + 4];
    size_t n = cli_vreq_opts(opts, f);

    memset(o, 0, sizeof(*o));
    opts[n++] = (cli_opt_t)CLI_OPT("partition", CLI_STR, &o->partition, "K",
                                   "check only partition K (default: all)", false);
    opts[n++] = (cli_opt_t)CLI_OPT(
        "native", CLI_FLAG, &o->native, NULL,
        "also run the native vanilla verifier (Merkle roots, labels, challenges)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("threads", CLI_U64, &o->threads, "N",
                                   "cores for verification and synthesis (default: all)", false);
    opts[n++] =
        (cli_opt_t)CLI_OPT("quiet", CLI_FLAG, &o->quiet, NULL, "no progress on stderr", false);
    return cli_parse("check-vanilla", CHECK_ABOUT, opts, n, f->argc, f->argv);
}

/* One check-vanilla under way. */
typedef struct check_state {
    cli_vreq r;
    cz_pool *pool;
    eng_offline_t *o;
    eng_bytes_t *vps;
    cli_progress pg;
} check_state;

/* The "parse" stage: the files read, the request planned by its handler. */
static int check_prepare(check_state *st, const check_opts *o, const cli_vreq_flags *f)
{
    static const char CMD[] = "check-vanilla";

    cli_progress_begin(&st->pg, "parse", 0);
    if (!cli_vreq_load(CMD, f, false, &st->r) || !cli_pool(CMD, o->threads, &st->pool)) {
        return CLI_EXIT_ERROR;
    }
    return offline_plan(CMD, &st->r, st->pool, &st->o, &st->vps);
}

static int check_run(check_state *st, const check_opts *o, const cli_vreq_flags *f)
{
    static const char CMD[] = "check-vanilla";
    double t0 = cli_now_ms();
    size_t k0, k1;
    int rc = check_prepare(st, o, f);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    size_t parts = eng_offline_plan(st->o)->num_partitions;
    if (!check_range(CMD, o->partition, parts, &k0, &k1)) {
        return CLI_EXIT_ERROR;
    }
    cli_progress_begin(&st->pg, "partitions", k1 - k0);
    for (size_t k = k0; k < k1; k++) {
        eng_check_t c;
        double tk = cli_now_ms();
        rc = check_one(CMD, st->o, &st->r, k, o->native, &c);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
        cli_progress_hide(&st->pg); /* the result line goes to the same terminal */
        printf("partition=%zu constraints=%zu inputs=%zu aux=%zu satisfied inputs_match "
               "ms=%.1f\n",
               k, c.counts.num_constraints, c.counts.num_inputs - 1, c.counts.num_aux,
               cli_now_ms() - tk);
        fflush(stdout);
        cli_progress_update(&st->pg, k + 1 - k0);
    }
    cli_progress_end(&st->pg);
    printf("ok kind=%s partitions=%zu checked=%zu%s ms=%.1f\n", cli_proof_name(st->r.kind), parts,
           k1 - k0, o->native ? " native=ok" : "", cli_now_ms() - t0);
    return CLI_EXIT_OK;
}

int cmd_check_vanilla(int argc, char **argv)
{
    cli_vreq_flags f;
    check_opts o;
    check_state st;
    int rc = cli_vreq_flags_init(&f, "check-vanilla", argc, argv);

    if (rc >= 0) {
        return rc;
    }
    rc = check_parse(&o, &f);
    if (rc >= 0) {
        cli_vreq_flags_clear(&f);
        return rc;
    }
    memset(&st, 0, sizeof(st));
    /* two stages: parse (the vanilla proofs decoded), then the partitions one by one */
    cli_progress_init(&st.pg, "check-vanilla", 2, cli_progress_default_mode(o.quiet));
    rc = check_run(&st, &o, &f);
    cli_progress_hide(&st.pg);
    eng_offline_free(st.o);
    cz_free(st.vps);
    cz_pool_free(st.pool);
    cli_vreq_clear(&st.r);
    cli_vreq_flags_clear(&f);
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
