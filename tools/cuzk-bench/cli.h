/* cli.h - what cuzk-bench's commands share: the command table entry, a declarative option
 * parser that also prints each command's --help, exit codes and one-line error reporting.
 *
 * Adding a command: write `int cmd_<name>(int argc, char **argv)` in a cmd_*.c file, declare it
 * below and add a row to the table in main.c. argv[0] is the command name; options follow.
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_CLI_H
#define CUZK_TOOLS_CUZK_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "common/pool.h"
#include "engine/engine.h"

/* Exit codes of every command. */
#define CLI_EXIT_OK      0 /* success; for verify: the proof is valid */
#define CLI_EXIT_INVALID 1 /* verify: the proof is invalid */
#define CLI_EXIT_ERROR   2 /* bad usage, bad input, I/O or any other failure */

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_cmd_t;

typedef enum { CLI_STR, CLI_U64, CLI_FLAG } cli_kind;

/** One option "--name VALUE" (or "--name" for CLI_FLAG). dst: const char ** for CLI_STR,
 *  uint64_t * for CLI_U64, bool * for CLI_FLAG; it keeps its value when the option is absent. */
typedef struct cli_opt {
    const char *name; /* without the leading "--" */
    cli_kind kind;
    void *dst;
    const char *meta; /* value placeholder in --help ("FILE") */
    const char *help;
    bool required;
    bool *given; /* optional: set to true when the option appears */
} cli_opt_t;

/** A table row: CLI_OPT(name, kind, dst, meta, help, required); CLI_OPT_GIVEN adds `given`. */
#define CLI_OPT(n, k, d, m, h, r)                                                                  \
    {                                                                                              \
        .name = (n), .kind = (k), .dst = (d), .meta = (m), .help = (h), .required = (r)            \
    }
#define CLI_OPT_GIVEN(n, k, d, m, h, r, g)                                                         \
    {                                                                                              \
        .name = (n), .kind = (k), .dst = (d), .meta = (m), .help = (h), .required = (r),           \
        .given = (g)                                                                               \
    }

/** Parses argv[1..argc) against opts. Returns -1 when parsing succeeded, otherwise the exit
 *  code to return at once: CLI_EXIT_OK after printing --help, CLI_EXIT_ERROR after a one-line
 *  error (unknown option, missing value, missing required option, bad number).
 *  `about` is the command's description printed by --help (may hold several lines). */
int cli_parse(const char *cmd, const char *about, const cli_opt_t *opts, size_t nopts, int argc,
              char **argv);

/** Prints "cuzk-bench CMD: error: MESSAGE" on stderr and returns CLI_EXIT_ERROR. */
int cli_error(const char *cmd, const char *fmt, ...) CZ_PRINTF(2, 3);

/** cli_error with the message of a failed call's diagnostic (or its code's text). */
int cli_error_diag(const char *cmd, cuzk_err err, const cz_diag *dg);

/** A worker pool using `threads` cores in all (0 = every online CPU); NULL for 1 core.
 *  Exits through cli_error on failure (returns false). */
bool cli_pool(const char *cmd, uint64_t threads, cz_pool **out);

/** Milliseconds on the monotonic clock. */
double cli_now_ms(void);

/* Commands (cmd_groth16.c). */
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_snarkjs(int argc, char **argv);

/* Commands (cmd_params.c). */
int cmd_check_params(int argc, char **argv);
int cmd_gpu_hold(int argc, char **argv);

/* Commands (cmd_circuit.c). */
int cmd_circuit_info(int argc, char **argv);

/* Commands (cmd_filecoin.c). setup --proof KIND: Filecoin test parameters under the official
 * names; with --r1cs it hands over to cmd_setup. */
int cmd_setup_any(int argc, char **argv);

/* ---- vanilla proofs and the daemon client (vreq.c, cmd_vanilla.c, cmd_client.c) -------- */

/** Proof kinds, numbered as cuzk.v1.ProofKind. */
typedef enum cli_proof_kind {
    CLI_PROOF_NONE = 0,
    CLI_PROOF_POREP = 1,
    CLI_PROOF_SNAP = 2,
    CLI_PROOF_WINDOW_POST = 3,
    CLI_PROOF_WINNING_POST = 4,
} cli_proof_kind;

/** "porep", "snap", "window-post", "winning-post"; false for another name. */
bool cli_proof_parse(cli_proof_kind *out, const char *name);
const char *cli_proof_name(cli_proof_kind kind);

/** Owned byte strings: the vanilla proofs of one request. */
typedef struct cli_blobs {
    size_t n;
    uint8_t **data; /* cz_malloc'ed */
    size_t *len;
    char **name; /* where each came from: "FILE", or "FILE[i]" for entry i of a list */
} cli_blobs;

void cli_blobs_clear(cli_blobs *b);

/** Reads a whole file (at most 1 GiB) into a cz_malloc'ed buffer; reports through cli_error. */
bool cli_read_file(const char *cmd, const char *path, uint8_t **out, size_t *len);
bool cli_write_file(const char *cmd, const char *path, const void *buf, size_t len);
/** True when path names a regular file. */
bool cli_file_exists(const char *path);
/** "2KiB", "32GiB" ... or a byte count into *out; false after an error line. */
bool cli_parse_sector_size(const char *cmd, const char *text, uint64_t *out);
/** The sidecar's path beside a vanilla file: "FILE.json" (cz_malloc'ed; NULL: out of memory). */
char *cli_sidecar_path(const char *vanilla_path);

/** A proof request as the daemon client and check-vanilla take it: the kind, the vanilla
 *  proofs (porep: the C1 file as one blob; PoSt: one per sector; snap: one per partition) and
 *  the request fields, from the command line over the sidecar (FILE.json beside the first
 *  vanilla file, as gen-vanilla writes it). */
typedef struct cli_vreq {
    cli_proof_kind kind;
    cli_blobs vanilla;
    uint64_t sector_size, registered_proof, miner_id, sector_number, partition_index;
    bool has_sector_size, has_registered_proof, has_miner_id, has_sector_number;
    uint8_t randomness[32], comm_r_old[32], comm_r_new[32], comm_d_new[32];
    bool has_randomness, has_comm_r_old, has_comm_r_new, has_comm_d_new;
} cli_vreq;

/** The options every request-making command shares (--type, --c1, --vanilla, --no-sidecar,
 *  --sector-size, --registered-proof, --miner-id, --sector-number, --randomness,
 *  --partition-index, --comm-r-old, --comm-r-new, --comm-d-new). */
typedef struct cli_vreq_flags {
    const char *type, *c1, *sector_size, *randomness, *comm_r_old, *comm_r_new, *comm_d_new;
    const char *vanilla_help; /* placeholder for --help; --vanilla is collected separately */
    uint64_t registered_proof, miner_id, sector_number, partition_index;
    bool has_registered_proof, has_miner_id, has_sector_number, has_partition_index;
    bool no_sidecar;
    const char **vanilla; /* the FILEs of every --vanilla (cz_malloc'ed array) */
    size_t nvanilla;
    char **argv; /* argv without the --vanilla FILE... groups (cz_malloc'ed) */
    int argc;
} cli_vreq_flags;

/** Moves the "--vanilla FILE..." groups (repeatable, one or more FILEs each) out of argv into
 *  f->vanilla and f->argv/argc (the rest, for cli_parse). Returns -1 on success, else the exit
 *  code (after an error line). */
int cli_vreq_flags_init(cli_vreq_flags *f, const char *cmd, int argc, char **argv);
void cli_vreq_flags_clear(cli_vreq_flags *f);
/** Writes the shared options into opts (room for CLI_VREQ_NOPTS); returns their count. */
#define CLI_VREQ_NOPTS 13
size_t cli_vreq_opts(cli_opt_t *opts, cli_vreq_flags *f);
/** Reads the files and the sidecar, applies the flags, derives what is missing (sector size
 *  from the registered proof and back; for porep both from the C1 JSON) and checks what the
 *  kind needs (spec vanilla-proofs.md 4.4). `to_send`: the request goes to the daemon, so
 *  miner id (and, for porep and snap, sector number) are required and a C1 that does not
 *  parse is an error here (check-vanilla passes false and reports it itself). Returns false
 *  after an error line. */
bool cli_vreq_load(const char *cmd, const cli_vreq_flags *f, bool to_send, cli_vreq *out);
void cli_vreq_clear(cli_vreq *r);

/** The engine's form of r (request_id borrowed), over r's buffers and vps, room for
 *  r->vanilla.n slices (at least one): porep's C1 as vanilla_proof, else the proofs as
 *  vanilla_proofs; the fields r has. */
void cli_vreq_request(const cli_vreq *r, const char *request_id, eng_request_t *req,
                      eng_bytes_t *vps);

/** Checks a proof (`len` bytes: one 192-byte Groth16 proof per partition, in partition order)
 *  against the verifying key at vk_path with the public inputs the chain verifier derives from
 *  the request's vanilla proofs (the handler of its kind, kinds.h). Prints one line per partition; returns CLI_EXIT_OK when all
 *  verify, CLI_EXIT_INVALID when one does not, CLI_EXIT_ERROR on bad input. */
int cli_vreq_verify(const char *cmd, const cli_vreq *r, const char *vk_path, const uint8_t *proof,
                    size_t len);
/** The same in two steps, for many proofs of one request (batch --vk): the request's plan, the
 *  key and every partition's public inputs once (CLI_EXIT_OK, or CLI_EXIT_ERROR after an error
 *  line), then each proof (as cli_vreq_verify). Messages are prefixed with cmd (borrowed). */
typedef struct cli_verifier cli_verifier;
int cli_verifier_new(cli_verifier **out, const char *cmd, const cli_vreq *r, const char *vk_path);
int cli_verifier_check(cli_verifier *v, const uint8_t *proof, size_t len);
void cli_verifier_free(cli_verifier *v);

/* Commands (cmd_vanilla.c). */
int cmd_gen_vanilla(int argc, char **argv);
int cmd_check_vanilla(int argc, char **argv);

/* Commands (cmd_client.c): talk to a running cuzkd. */
int cmd_single(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_evict(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

/* Commands (cmd_synth.c, cmd_micro.c, cmd_ab.c, cmd_timeline.c): the performance workbench
 * (shared helpers in perf.h). */
int cmd_synth(int argc, char **argv);
int cmd_micro(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_timeline(int argc, char **argv);

#endif /* CUZK_TOOLS_CUZK_BENCH_CLI_H */
