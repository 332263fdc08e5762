/* engine_util.h - what the engine tests share ("etu"): the "tk" test handler with parameters
 * generated once per process (removed at exit), a small engine configuration, engines with the
 * handler registered, requests for it, waiting, an independent check of returned proofs, and a
 * capture of the engine's log.
 *
 * Proof check: the partition proofs are decoded from the result bytes and verified with the
 * parameter file loaded separately and the public input recomputed here as x^3 + x + 5
 * (through fr_pow_u64, not the handler's code), partition by partition, so a proof in the
 * wrong slot fails; each proof must also fail with a wrong input.
 */
#ifndef CUZK_TESTS_ENGINE_ENGINE_UTIL_H
#define CUZK_TESTS_ENGINE_ENGINE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/test_kind.h"

/** The parameter directory of this process (concurrent runs must not share files). */
const char *etu_param_dir(void);
/** The shared test handler (parameters generated on first use, removed at exit). */
tk_ctx *etu_tk(void);
/** Closes the gate and forgets earlier events; called whenever a test starts an engine. */
void etu_reset(void);

uint64_t etu_file_size(const char *path);
void etu_sleep_ms(unsigned ms);
/** Rewrites the file at path in place (same inode) with len bytes of buf, with a new
 *  modification time. */
void etu_rewrite_in_place(const char *path, const uint8_t *buf, size_t len);
/** The whole file at path (malloc'd; *len its size). */
uint8_t *etu_read_all(const char *path, size_t *len);
/** PreloadSRS of circuit_id, waited for; *already receives the callback's flag. */
cuzk_err etu_preload(eng_t *eng, const char *circuit_id, bool *already);

/** Defaults with the parameter directory, a 64 MiB budget, two synthesis workers, one prover
 *  thread, no pools, four active jobs and a 100 ms batch wait. */
void etu_cfg(eng_config_t *cfg);

/** All four proof kinds, 0-terminated. */
extern const eng_kind etu_all_kinds[];

/** Starts an engine with the handler `ops` (ctx = etu_tk()) on `kinds` (0-terminated), after
 *  etu_reset. */
eng_t *etu_start(const eng_config_t *cfg, const eng_kind *kinds, const eng_kind_ops *ops);

/** A request of nparts partitions, x[i] = x0 + 17 i. */
tk_req etu_req(uint32_t flags, uint32_t nparts, uint64_t x0);

/** Buffers of a request made by etu_request. */
typedef struct etu_scratch {
    uint8_t payload[512];
    eng_bytes_t vp;
    uint8_t b32[32];
} etu_scratch;

/** An eng_request_t for the handler under `kind` (which the handler ignores). */
eng_request_t etu_request(etu_scratch *s, eng_kind kind, eng_prio prio, const char *rid,
                          const tk_req *r);

/** Submits; checks that a non-empty rid is the job id; copies the id to job_id (ENG_ID_MAX
 *  bytes) when not NULL. */
void etu_submit(eng_t *eng, eng_kind kind, eng_prio prio, const char *rid, const tk_req *r,
                char *job_id);

/** Waits for job `id`; fails when it does not finish within timeout_s. */
void etu_wait(eng_t *eng, const char *id, eng_result_copy_t *res, unsigned timeout_s);

/** Independent check of a COMPLETED result (see the file comment). */
void etu_check_proofs(const eng_result_copy_t *res, const tk_req *r);

/** Captures the engine's log from now on (echoed nowhere; end with cz_log_set_sink(NULL,
 *  NULL)). */
void etu_capture_start(void);
/** Number of captured lines containing a and, when b is not NULL, b. */
size_t etu_count_lines(const char *a, const char *b);
/** True if a captured line contains `want`. */
bool etu_captured(const char *want);
/** The captured text ("" when none); for failure messages. */
const char *etu_log_text(void);

#define ETU_CHECK_LOG(a, b)                                                                        \
    CHECK_MSG(etu_count_lines((a), (b)) > 0, "no log line with \"%s\"%s%s; log:\n%s", (a),         \
              (b) ? " and " : "", (b) ? (const char *)(b) : "", etu_log_text())

#endif /* CUZK_TESTS_ENGINE_ENGINE_UTIL_H */
