/* config.h - the configuration of cuzkd and of the library (src/api): one table (config.c) of
 * keys with type, default, bounds and help drives the config file (toml.c), the command-line
 * flags and --help (cli.c).
 *
 * File format: a TOML subset read with libinih plus a small value parser: [section] headers,
 * `key = value` lines, # comments, values that are basic "strings" (escapes \" \\ \n \t \r
 * \uXXXX) or 'literal strings', integers (decimal, 0x, 0o, 0b, with _), true/false, and
 * arrays of strings or of integers (which may span lines). Keys mirror the Rust cuzk daemon's
 * cuzk.example.toml; its keys that do not apply to this build are accepted with a warning.
 * Precedence: built-in defaults < $FIL_PROOFS_PARAMETER_CACHE and $CUZK_TIMING < the --config
 * file < flags.
 */
#ifndef CUZK_CONFIG_CONFIG_H
#define CUZK_CONFIG_CONFIG_H

#include <stdio.h>

#include "common/common.h"
#include "engine/engine.h"

/** total_budget = "auto": physical memory minus safety_margin. */
#define SRV_SIZE_AUTO UINT64_MAX

/** gpus.devices: "auto", "none" or a list of device ordinals. */
typedef struct srv_gpu_sel {
    eng_gpu_mode mode;
    size_t n; /* ENG_GPU_LIST: ordinals in devices */
    unsigned devices[ENG_MAX_GPUS];
} srv_gpu_sel;

/** Largest device ordinal gpus.devices accepts. */
#define SRV_GPU_ORDINAL_MAX 1023

typedef struct srv_config {
    char **listen; /* "host:port" or "unix:///abs/path" */
    size_t nlisten;
    uint64_t socket_mode;
    uint64_t shutdown_grace_ms;
    char *param_cache;
    uint64_t total_budget; /* bytes or SRV_SIZE_AUTO */
    uint64_t safety_margin;
    uint64_t eviction_min_idle_ms;
    uint64_t max_batch_size;
    uint64_t max_batch_wait_ms;
    bool sort_by_type;
    uint64_t synth_threads;          /* 0 = one per CPU */
    uint64_t max_parallel_synthesis; /* cap on synth_threads; 0 = 18 */
    char *synth_mode;                /* "auto", "prover" or "pce" (eng_synth_mode_parse) */
    char *shape_cache;               /* directory of recorded shapes, or "none" */
    bool keep_host_points;           /* srs.keep_host_points */
    uint64_t max_active_jobs;
    uint64_t prover_threads;
    uint64_t prover_cpu_threads; /* threads of one proof's MSMs; 0 = all CPUs */
    uint64_t retention_ms;
    uint64_t max_retained;
    srv_gpu_sel gpus;           /* which devices prove */
    uint64_t gpu_mem_limit;     /* per device, bytes of resident parameters; 0 = no limit */
    uint64_t gpu_device_memory; /* per device, cap on all engine allocations; 0 = none */
    char *gpu_streaming;        /* "auto", "always" or "never" (eng_gpu_stream_parse) */
    uint64_t gpu_stream_chunk;  /* bytes per chunk buffer of streamed points; 0 = automatic */
    uint64_t gpu_h2d_rate;      /* debugging: host-to-device bytes per second; 0 = unpaced */
    uint64_t gpu_stream_share;  /* partitions sharing a pass over streamed points (1 .. 16) */
    uint64_t gpu_stream_kept_h; /* of those, partitions keeping their h for a pass (1 .. 16) */
    char *log_level;
    bool timing;       /* logging.timing / --timing / CUZK_TIMING=1: one log line per stage */
    char *config_path; /* the --config file, if any (informational) */
} srv_config;

/** Fills cfg with the defaults (and $FIL_PROOFS_PARAMETER_CACHE; $CUZK_TIMING = 1 turns
 *  logging.timing on). Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err srv_config_init(srv_config *cfg, cz_diag *dg);
/** Frees everything cfg owns; a zeroed struct is accepted. */
void srv_config_clear(srv_config *cfg);

/** Applies the file's settings. Errors: CUZK_E_IO (unreadable), CUZK_E_FORMAT / CUZK_E_INVAL
 *  with "path:line: key: what" in dg (syntax, unknown key, wrong type, out of bounds). */
CZ_MUST_USE cuzk_err srv_config_load_file(srv_config *cfg, const char *path, cz_diag *dg);
/** Same over text in memory; `name` names it in messages. */
CZ_MUST_USE cuzk_err srv_config_load_string(srv_config *cfg, const char *text, const char *name,
                                            cz_diag *dg);

/** What the command line asked for beyond settings. */
typedef enum srv_cli_action { SRV_RUN, SRV_HELP, SRV_VERSION, SRV_PRINT_CONFIG } srv_cli_action;

/** Parses argv: --config FILE (-c) is read first, then every other flag overrides it
 *  (--listen may repeat: the flags replace the file's list). --help (-h), --version and
 *  --print-config set *action. Errors: CUZK_E_INVAL naming the flag; file errors as above. */
CZ_MUST_USE cuzk_err srv_config_from_args(srv_config *cfg, int argc, char **argv,
                                          srv_cli_action *action, cz_diag *dg);

/** Writes usage and every flag with its file key, default and bounds. */
void srv_config_help(FILE *out, const char *argv0);
/** Writes the effective configuration in the file format (loadable again). */
void srv_config_print(FILE *out, const srv_config *cfg);

/** Translates to the engine's configuration (CPU counts and "auto" memory resolved here).
 *  param_cache in *ecfg points into cfg. Errors: CUZK_E_INVAL (memory budget resolves to 0). */
CZ_MUST_USE cuzk_err srv_config_engine(const srv_config *cfg, eng_config_t *ecfg, cz_diag *dg);

/** Parses "5GiB", "512MiB", "1TB", "4096" (bytes); false when malformed or overflowing. */
bool srv_parse_size(const char *s, uint64_t *out);
/** Parses "500ms", "30s", "5m", "1h", "60" (seconds) into milliseconds; false when malformed. */
bool srv_parse_duration_ms(const char *s, uint64_t *out);

#endif /* CUZK_CONFIG_CONFIG_H */
