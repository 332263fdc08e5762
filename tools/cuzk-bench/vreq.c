/* vreq.c - the vanilla-proof input every request-making command shares (cli.h: cli_vreq):
 * the proof files, the sidecar beside them and the request flags, and the small file helpers
 * the commands use.
 *
 * Files (proofs.h defines them and reads and writes them; docs/formats.md summarizes):
 *   porep        FILE is the C1 output: SealCommitPhase1Output JSON exactly as filecoin-ffi
 *                writes it, or Curio's wrapper {"SectorNum","Phase1Out","SectorSize"}
 *                (gen-vanilla --curio-wrapper).
 *   PoSt, snap   FILE holds either ONE raw bincode proof or a JSON list of base64 strings, one
 *                bincode proof each (vp_proof_file_parse): Curio's snap-vproof.json format
 *                (what gen-vanilla writes for snap, and for window-post with --sectors > 1).
 *                Several --vanilla files are concatenated in order: PoSt proofs are one per
 *                sector, snap proofs one per partition.
 *   sidecar      FILE.json beside the first vanilla file (vp_sidecar): what the request needs
 *                besides the proofs and is not inside them (spec vanilla-proofs.md 4.4).
 *                Command-line flags override it; --no-sidecar ignores it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "seal/seal.h"
#include "proofs/proofs.h"
#include "circuits/circuits.h"

#define MAX_FILE_BYTES ((size_t)1 << 30)

/* ---- small shared helpers ------------------------------------------------------------------ */

static const char *const PROOF_NAMES[] = {NULL, "porep", "snap", "window-post", "winning-post"};

bool cli_proof_parse(cli_proof_kind *out, const char *name)
{
    for (size_t i = 1; i < ARRAY_LEN(PROOF_NAMES); i++) {
        if (name && strcmp(name, PROOF_NAMES[i]) == 0) {
            *out = (cli_proof_kind)i;
            return true;
        }
    }
    return false;
}

const char *cli_proof_name(cli_proof_kind kind)
{
    return (size_t)kind < ARRAY_LEN(PROOF_NAMES) && PROOF_NAMES[kind] ? PROOF_NAMES[kind] : "?";
}

bool cli_read_file(const char *cmd, const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *buf;
    size_t n;

    *out = NULL;
    *len = 0;
    if (!f) {
        cli_error(cmd, "%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        cli_error(cmd, "%s: not a regular file", path);
        return false;
    }
    if ((uint64_t)st.st_size > MAX_FILE_BYTES) {
        fclose(f);
        cli_error(cmd, "%s: larger than 1 GiB", path);
        return false;
    }
    n = (size_t)st.st_size;
    buf = cz_malloc(n + 1);
    if (!buf) {
        fclose(f);
        cli_error(cmd, "%s: out of memory (%zu bytes)", path, n);
        return false;
    }
    if (fread(buf, 1, n, f) != n) {
        fclose(f);
        cz_free(buf);
        cli_error(cmd, "%s: read error", path);
        return false;
    }
    fclose(f);
    buf[n] = 0; /* text readers may rely on it; not counted in len */
    *out = buf;
    *len = n;
    return true;
}

bool cli_write_file(const char *cmd, const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok;

    if (!f) {
        cli_error(cmd, "%s: cannot create: %s", path, strerror(errno));
        return false;
    }
    ok = fwrite(buf, 1, len, f) == len;
    if (fclose(f) != 0) {
        ok = false;
    }
    if (!ok) {
        cli_error(cmd, "%s: write error", path);
    }
    return ok;
}

void cli_blobs_clear(cli_blobs *b)
{
    for (size_t i = 0; i < b->n; i++) {
        cz_free(b->data[i]);
        cz_free(b->name[i]);
    }
    cz_free(b->data);
    cz_free(b->len);
    cz_free(b->name);
    memset(b, 0, sizeof(*b));
}

/* Appends data (taken) with a name (copied). */
static bool blobs_push(cli_blobs *b, uint8_t *data, size_t len, const char *name)
{
    uint8_t **nd = cz_realloc(b->data, (b->n + 1) * sizeof(*nd));
    size_t *nl;
    char **nn;

    if (nd) {
        b->data = nd;
    }
    nl = nd ? cz_realloc(b->len, (b->n + 1) * sizeof(*nl)) : NULL;
    if (nl) {
        b->len = nl;
    }
    nn = nl ? cz_realloc(b->name, (b->n + 1) * sizeof(*nn)) : NULL;
    if (nn) {
        b->name = nn;
    }
    if (!nn) {
        cz_free(data);
        return false;
    }
    b->name[b->n] = cz_strdup(name);
    if (!b->name[b->n]) {
        cz_free(data);
        return false;
    }
    b->data[b->n] = data;
    b->len[b->n] = len;
    b->n++;
    return true;
}

/* Reads one --vanilla FILE into `out`: one raw proof, or a JSON list of base64 proofs whose
 * entry i is named "FILE[i]" (proofs.h vp_proof_file_parse). */
static bool load_vanilla_file(const char *cmd, const char *path, cli_blobs *out)
{
    vp_blobs vb = {0};
    const char *encoding;
    uint8_t *buf;
    size_t len;
    cz_diag dg;
    cuzk_err err;
    bool ok = true;

    if (!cli_read_file(cmd, path, &buf, &len)) {
        return false;
    }
    cz_diag_init(&dg);
    err = vp_proof_file_parse(&vb, &encoding, buf, len, &dg);
    cz_free(buf);
    if (err != CUZK_OK) {
        vp_blobs_clear(&vb);
        cli_error(cmd, "%s: %s", path, err == CUZK_E_NOMEM ? "out of memory" : dg.msg);
        return false;
    }
    for (size_t i = 0; ok && i < vb.n; i++) {
        char name[4200];
        if (strcmp(encoding, "bincode") == 0) {
            snprintf(name, sizeof(name), "%s", path);
        } else {
            snprintf(name, sizeof(name), "%s[%zu]", path, i);
        }
        ok = blobs_push(out, vb.data[i], vb.len[i], name);
        vb.data[i] = NULL; /* taken, also on failure */
    }
    vp_blobs_clear(&vb);
    if (!ok) {
        cli_error(cmd, "out of memory");
    }
    return ok;
}

/* 64 hex digits (an optional 0x prefix) into 32 bytes, byte 0 first. */
static bool parse_hex32(const char *cmd, const char *what, const char *hex, uint8_t out[32])
{
    if (strncmp(hex, "0x", 2) == 0 || strncmp(hex, "0X", 2) == 0) {
        hex += 2;
    }
    if (strlen(hex) != 64 || !cz_hex_decode(out, 32, hex)) {
        cli_error(cmd, "%s: expected 64 hex digits (32 bytes), got '%s'", what, hex);
        return false;
    }
    return true;
}

bool cli_parse_sector_size(const char *cmd, const char *text, uint64_t *out)
{
    const circ_sector_t *s = circ_sector_parse(text);
    char *end;

    if (s) {
        *out = s->bytes;
        return true;
    }
    errno = 0;
    if (text[0] >= '0' && text[0] <= '9') {
        unsigned long long v = strtoull(text, &end, 0);
        if (errno == 0 && *end == '\0') {
            *out = v;
            return true;
        }
    }
    cli_error(cmd,
              "--sector-size '%s' is neither a sector size (2KiB 8MiB 512MiB 32GiB 64GiB ...) "
              "nor a byte count",
              text);
    return false;
}

/* ---- the sidecar (proofs.h vp_sidecar) ------------------------------------------------------ */

char *cli_sidecar_path(const char *vanilla_path)
{
    size_t n = strlen(vanilla_path);
    char *p = cz_malloc(n + 6);
    if (p) {
        memcpy(p, vanilla_path, n);
        memcpy(p + n, ".json", 6);
    }
    return p;
}

/* ---- request flags and loading (cli_vreq) -------------------------------------------------- */

int cli_vreq_flags_init(cli_vreq_flags *f, const char *cmd, int argc, char **argv)
{
    memset(f, 0, sizeof(*f));
    f->argv = cz_calloc((size_t)argc + 1, sizeof(char *));
    f->vanilla = cz_calloc((size_t)argc + 1, sizeof(char *));
    if (!f->argv || !f->vanilla) {
        cli_vreq_flags_clear(f);
        return cli_error(cmd, "out of memory");
    }
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--vanilla") == 0) {
            size_t before = f->nvanilla;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                f->vanilla[f->nvanilla++] = argv[++i];
            }
            if (f->nvanilla == before) {
                cli_vreq_flags_clear(f);
                return cli_error(cmd, "option --vanilla needs at least one FILE");
            }
            continue;
        }
        f->argv[f->argc++] = argv[i];
    }
    return -1;
}

void cli_vreq_flags_clear(cli_vreq_flags *f)
{
    cz_free(f->argv);
    cz_free((void *)f->vanilla);
    f->argv = NULL;
    f->vanilla = NULL;
}

size_t cli_vreq_opts(cli_opt_t *o, cli_vreq_flags *f)
{
    size_t n = 0;

    o[n++] = (cli_opt_t)CLI_OPT("type", CLI_STR, &f->type, "KIND",
                                "porep | winning-post | window-post | snap", true);
    o[n++] = (cli_opt_t)CLI_OPT(
        "c1", CLI_STR, &f->c1, "FILE",
        "porep: the C1 output (SealCommitPhase1Output JSON, bare or in Curio's wrapper)", false);
    o[n++] = (cli_opt_t)CLI_OPT("vanilla", CLI_STR, &f->vanilla_help, "FILE...",
                                "PoSt: one proof per sector, snap: one per partition; a FILE "
                                "holds one raw bincode proof or a JSON list of base64 proofs",
                                false);
    o[n++] = (cli_opt_t)CLI_OPT("no-sidecar", CLI_FLAG, &f->no_sidecar, NULL,
                                "ignore FILE.json beside the first vanilla file", false);
    o[n++] =
        (cli_opt_t)CLI_OPT("sector-size", CLI_STR, &f->sector_size, "S",
                           "2KiB ... 64GiB or bytes (default: from the registered proof)", false);
    o[n++] = (cli_opt_t)CLI_OPT_GIVEN("registered-proof", CLI_U64, &f->registered_proof, "N",
                                      "abi RegisteredSealProof / PoStProof / UpdateProof "
                                      "(default: from the C1, or V1_1 of the sector size)",
                                      false, &f->has_registered_proof);
    o[n++] = (cli_opt_t)CLI_OPT_GIVEN("miner-id", CLI_U64, &f->miner_id, "N", "miner actor id",
                                      false, &f->has_miner_id);
    o[n++] =
        (cli_opt_t)CLI_OPT_GIVEN("sector-number", CLI_U64, &f->sector_number, "N",
                                 "porep and snap: the sector number", false, &f->has_sector_number);
    o[n++] = (cli_opt_t)CLI_OPT("randomness", CLI_STR, &f->randomness, "HEX",
                                "PoSt: 32-byte challenge randomness (top 2 bits are cleared, "
                                "as Curio does)",
                                false);
    o[n++] = (cli_opt_t)CLI_OPT_GIVEN("partition-index", CLI_U64, &f->partition_index, "N",
                                      "window-post: the partition (default 0)", false,
                                      &f->has_partition_index);
    o[n++] = (cli_opt_t)CLI_OPT("comm-r-old", CLI_STR, &f->comm_r_old, "HEX",
                                "snap: 32-byte sealed commitment of the sector key", false);
    o[n++] = (cli_opt_t)CLI_OPT("comm-r-new", CLI_STR, &f->comm_r_new, "HEX",
                                "snap: 32-byte new sealed commitment", false);
    o[n++] = (cli_opt_t)CLI_OPT("comm-d-new", CLI_STR, &f->comm_d_new, "HEX",
                                "snap: 32-byte new data commitment", false);
    CZ_CHECK(n == CLI_VREQ_NOPTS);
    return n;
}

void cli_vreq_clear(cli_vreq *r)
{
    cli_blobs_clear(&r->vanilla);
    memset(r, 0, sizeof(*r));
}

/* The sidecar's value of a field, unless the sidecar lacks it. */
static void take_u64(uint64_t *dst, bool *has, uint64_t v, bool given)
{
    if (given) {
        *dst = v;
        *has = true;
    }
}

static void take_32(uint8_t dst[32], bool *has, const uint8_t v[32], bool given)
{
    if (given) {
        memcpy(dst, v, 32);
        *has = true;
    }
}

/* Applies the sidecar at `path` (which exists) to r. */
static bool apply_sidecar(const char *cmd, const char *path, cli_vreq *r)
{
    uint8_t *buf;
    size_t len;
    vp_sidecar sc;
    cz_diag dg;
    cuzk_err err;

    if (!cli_read_file(cmd, path, &buf, &len)) {
        return false;
    }
    cz_diag_init(&dg);
    err = vp_sidecar_from_json(&sc, (const char *)buf, len, &dg);
    cz_free(buf);
    if (err != CUZK_OK) {
        cli_error(cmd, "%s: %s", path, err == CUZK_E_NOMEM ? "out of memory" : dg.msg);
        return false;
    }
    if (sc.kind[0] && strcmp(sc.kind, cli_proof_name(r->kind)) != 0) {
        cli_error(cmd, "%s describes a %s proof, not %s (or pass --no-sidecar)", path, sc.kind,
                  cli_proof_name(r->kind));
        return false;
    }
    take_u64(&r->sector_size, &r->has_sector_size, sc.sector_size, sc.has_sector_size);
    take_u64(&r->registered_proof, &r->has_registered_proof, sc.registered_proof,
             sc.has_registered_proof);
    take_u64(&r->miner_id, &r->has_miner_id, sc.miner_id, sc.has_miner_id);
    take_u64(&r->sector_number, &r->has_sector_number, sc.sector_number, sc.has_sector_number);
    take_32(r->randomness, &r->has_randomness, sc.randomness, sc.has_randomness);
    take_32(r->comm_r_old, &r->has_comm_r_old, sc.comm_r_old, sc.has_comm_r_old);
    take_32(r->comm_r_new, &r->has_comm_r_new, sc.comm_r_new, sc.has_comm_r_new);
    take_32(r->comm_d_new, &r->has_comm_d_new, sc.comm_d_new, sc.has_comm_d_new);
    if (sc.has_partition_index) {
        r->partition_index = sc.partition_index;
    }
    return true;
}

bool cli_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The proofs: porep's C1 file as one blob, else every --vanilla FILE's proofs in order.
 * *first: the file the sidecar sits beside. */
static bool vreq_load_proofs(const char *cmd, const cli_vreq_flags *f, cli_vreq *r,
                             const char **first)
{
    if (r->kind == CLI_PROOF_POREP) {
        uint8_t *buf;
        size_t len;
        if ((f->c1 != NULL) + (f->nvanilla > 0) != 1 || f->nvanilla > 1) {
            cli_error(cmd, "porep takes its C1 output as --c1 FILE (or one --vanilla FILE)");
            return false;
        }
        *first = f->c1 ? f->c1 : f->vanilla[0];
        if (!cli_read_file(cmd, *first, &buf, &len)) {
            return false;
        }
        if (!blobs_push(&r->vanilla, buf, len, *first)) {
            cli_error(cmd, "out of memory");
            return false;
        }
        return true;
    }
    if (f->c1) {
        cli_error(cmd, "--c1 is for porep; %s takes --vanilla FILE...", cli_proof_name(r->kind));
        return false;
    }
    if (f->nvanilla == 0) {
        cli_error(cmd, "%s needs --vanilla FILE...", cli_proof_name(r->kind));
        return false;
    }
    *first = f->vanilla[0];
    for (size_t i = 0; i < f->nvanilla; i++) {
        if (!load_vanilla_file(cmd, f->vanilla[i], &r->vanilla)) {
            return false;
        }
    }
    return true;
}

/* FILE.json beside the first vanilla file, when there is one and --no-sidecar is absent. */
static bool vreq_load_sidecar(const char *cmd, const cli_vreq_flags *f, const char *first,
                              cli_vreq *r)
{
    char *sp;
    bool ok;

    if (f->no_sidecar) {
        return true;
    }
    sp = cli_sidecar_path(first);
    ok = sp != NULL;
    if (sp && cli_file_exists(sp)) {
        ok = apply_sidecar(cmd, sp, r);
    }
    cz_free(sp);
    return ok;
}

/* The command line over the sidecar. */
static bool vreq_apply_flags(const char *cmd, const cli_vreq_flags *f, cli_vreq *r)
{
    if (f->sector_size) {
        if (!cli_parse_sector_size(cmd, f->sector_size, &r->sector_size)) {
            return false;
        }
        r->has_sector_size = true;
    }
    take_u64(&r->registered_proof, &r->has_registered_proof, f->registered_proof,
             f->has_registered_proof);
    take_u64(&r->miner_id, &r->has_miner_id, f->miner_id, f->has_miner_id);
    take_u64(&r->sector_number, &r->has_sector_number, f->sector_number, f->has_sector_number);
    if (f->has_partition_index) {
        if (f->partition_index > UINT32_MAX) {
            cli_error(cmd, "--partition-index %" PRIu64 " is too large", f->partition_index);
            return false;
        }
        r->partition_index = f->partition_index;
    }
    if ((f->randomness && !parse_hex32(cmd, "--randomness", f->randomness, r->randomness)) ||
        (f->comm_r_old && !parse_hex32(cmd, "--comm-r-old", f->comm_r_old, r->comm_r_old)) ||
        (f->comm_r_new && !parse_hex32(cmd, "--comm-r-new", f->comm_r_new, r->comm_r_new)) ||
        (f->comm_d_new && !parse_hex32(cmd, "--comm-d-new", f->comm_d_new, r->comm_d_new))) {
        return false;
    }
    r->has_randomness |= f->randomness != NULL;
    r->has_comm_r_old |= f->comm_r_old != NULL;
    r->has_comm_r_new |= f->comm_r_new != NULL;
    r->has_comm_d_new |= f->comm_d_new != NULL;
    return true;
}

/* porep: what is missing of the registered proof and the sector size, from the C1 itself. A C1
 * that does not parse is an error only when the request is to be sent (check-vanilla reports
 * it itself). */
static bool vreq_derive_porep(const char *cmd, bool to_send, const char *first, cli_vreq *r)
{
    vp_c1 c1;
    cz_diag dg;

    if (r->has_registered_proof && r->has_sector_size) {
        return true;
    }
    cz_diag_init(&dg);
    if (vp_c1_parse(&c1, (const char *)r->vanilla.data[0], r->vanilla.len[0], &dg) != CUZK_OK) {
        if (!to_send) {
            return true;
        }
        cli_error(cmd,
                  "%s: %s (to send it anyway, give --registered-proof and "
                  "--sector-size)",
                  first, dg.msg);
        return false;
    }
    take_u64(&r->registered_proof, &r->has_registered_proof, c1.cfg.registered_proof,
             !r->has_registered_proof);
    take_u64(&r->sector_size, &r->has_sector_size, c1.cfg.shape.sector_size, !r->has_sector_size);
    vp_c1_clear(&c1);
    return true;
}

/* PoSt and snap: the registered proof from a published sector size (seal.h
 * seal_default_ids_for_size), or the sector size from the registered proof. */
static bool vreq_derive_post_snap(const char *cmd, cli_vreq *r)
{
    bool snap = r->kind == CLI_PROOF_SNAP;
    seal_default_ids ids;

    if (!r->has_registered_proof) {
        if (!r->has_sector_size || !seal_default_ids_for_size(&ids, r->sector_size)) {
            cli_error(cmd,
                      "%s needs --registered-proof (or --sector-size of a published "
                      "size: 2KiB 8MiB 512MiB 32GiB 64GiB)",
                      cli_proof_name(r->kind));
            return false;
        }
        r->registered_proof = snap                               ? ids.update
                              : r->kind == CLI_PROOF_WINDOW_POST ? ids.window_post
                                                                 : ids.winning_post;
        r->has_registered_proof = true;
    }
    if (!r->has_sector_size) {
        seal_post_config pc;
        seal_update_config uc;
        bool ok = r->registered_proof <= UINT32_MAX &&
                  (snap ? seal_update_config_for_id(&uc, (uint32_t)r->registered_proof)
                        : seal_post_config_for_id(&pc, (uint32_t)r->registered_proof));
        if (!ok) {
            cli_error(cmd, "unknown registered %s proof %" PRIu64 " (give --sector-size)",
                      snap ? "update" : "PoSt", r->registered_proof);
            return false;
        }
        r->sector_size = snap ? uc.shape.sector_size : pc.shape.sector_size;
        r->has_sector_size = true;
    }
    return true;
}

/* What each kind needs (spec vanilla-proofs.md 4.4); PoSt randomness is trimmed to a field
 * element as Curio does. */
static bool vreq_check(const char *cmd, bool to_send, cli_vreq *r)
{
    if (r->kind == CLI_PROOF_WINNING_POST || r->kind == CLI_PROOF_WINDOW_POST) {
        if (!r->has_randomness) {
            cli_error(cmd, "%s needs --randomness HEX (or a sidecar)", cli_proof_name(r->kind));
            return false;
        }
        if (r->randomness[31] & 0xc0) {
            fprintf(stderr,
                    "cuzk-bench %s: note: clearing the top two bits of the randomness, as "
                    "Curio does\n",
                    cmd);
            r->randomness[31] &= 0x3f;
        }
    }
    if (r->kind == CLI_PROOF_SNAP &&
        (!r->has_comm_r_old || !r->has_comm_r_new || !r->has_comm_d_new)) {
        cli_error(cmd, "snap needs --comm-r-old, --comm-r-new and --comm-d-new (or a sidecar)");
        return false;
    }
    if (to_send && !r->has_miner_id) {
        cli_error(cmd, "%s needs --miner-id (or a sidecar)", cli_proof_name(r->kind));
        return false;
    }
    if (to_send && !r->has_sector_number &&
        (r->kind == CLI_PROOF_POREP || r->kind == CLI_PROOF_SNAP)) {
        cli_error(cmd, "%s needs --sector-number (or a sidecar)", cli_proof_name(r->kind));
        return false;
    }
    return true;
}

bool cli_vreq_load(const char *cmd, const cli_vreq_flags *f, bool to_send, cli_vreq *r)
{
    const char *first = NULL;
    bool ok;

    memset(r, 0, sizeof(*r));
    if (!cli_proof_parse(&r->kind, f->type)) {
        cli_error(cmd, "unknown --type '%s' (porep, winning-post, window-post, snap)",
                  f->type ? f->type : "");
        return false;
    }
    ok = vreq_load_proofs(cmd, f, r, &first) && vreq_load_sidecar(cmd, f, first, r) &&
         vreq_apply_flags(cmd, f, r) &&
         (r->kind == CLI_PROOF_POREP ? vreq_derive_porep(cmd, to_send, first, r)
                                     : vreq_derive_post_snap(cmd, r)) &&
         vreq_check(cmd, to_send, r);
    if (!ok) {
        cli_vreq_clear(r);
    }
    return ok;
}

void cli_vreq_request(const cli_vreq *r, const char *request_id, eng_request_t *req,
                      eng_bytes_t *vps)
{
    memset(req, 0, sizeof(*req));
    req->request_id = request_id;
    req->kind = (eng_kind)r->kind;
    req->sector_size = r->sector_size;
    req->registered_proof = r->registered_proof;
    req->sector_number = r->sector_number;
    req->miner_id = r->miner_id;
    req->partition_index = (uint32_t)r->partition_index;
    if (r->kind == CLI_PROOF_POREP) {
        req->vanilla_proof.ptr = r->vanilla.data[0];
        req->vanilla_proof.len = r->vanilla.len[0];
    } else {
        for (size_t i = 0; i < r->vanilla.n; i++) {
            vps[i].ptr = r->vanilla.data[i];
            vps[i].len = r->vanilla.len[i];
        }
        req->vanilla_proofs = vps;
        req->n_vanilla_proofs = r->vanilla.n;
    }
    if (r->has_randomness) {
        req->randomness = (eng_bytes_t){r->randomness, 32};
    }
    if (r->has_comm_r_old) {
        req->comm_r_old = (eng_bytes_t){r->comm_r_old, 32};
    }
    if (r->has_comm_r_new) {
        req->comm_r_new = (eng_bytes_t){r->comm_r_new, 32};
    }
    if (r->has_comm_d_new) {
        req->comm_d_new = (eng_bytes_t){r->comm_d_new, 32};
    }
}
