/* config.c - the configuration table and its appliers: every key with its type, default,
 * bounds, flag and help; each type's applier checks a value (from the file, a flag or the
 * default) against its key and stores it into srv_config; defaults and the environment; the
 * translation into the engine's configuration. The file (toml.c) and the command line
 * (cli.c) hand their values to cfg_apply.
 */
#include "config/internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/log.h"
#include "common/pool.h"

/* ---------------------------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------------------------- */

#define OFF(f)  offsetof(srv_config, f)
#define MS_DAY  UINT64_C(86400000)
#define U64_BIG (UINT64_MAX - 1)
#define IGNORED(k, why)                                                                            \
    {                                                                                              \
        k, CT_IGNORED, 0, NULL, 0, 0, false, NULL, why                                             \
    }

const cfg_entry cfg_table[] = {
    {"daemon.listen", CT_STRS, OFF(listen), "127.0.0.1:9820", 0, 0, false, "listen",
     "gRPC listen address: \"host:port\" or \"unix:///abs/path\" (the flag may repeat)"},
    {"daemon.socket_mode", CT_MODE, OFF(socket_mode), "0660", 0, 0777, false, "socket-mode",
     "permission bits of unix-socket listen addresses (octal)"},
    {"daemon.shutdown_grace", CT_DUR, OFF(shutdown_grace_ms), "30s", 0, MS_DAY, false,
     "shutdown-grace",
     "on SIGTERM/SIGINT: time queued and running jobs get to finish before the daemon stops "
     "(a second signal stops at once)"},
    IGNORED("daemon.status_listen",
            "the Rust daemon's HTTP status page (use GetStatus, GetMetrics)"),
    {"srs.param_cache", CT_STR, OFF(param_cache), "/var/tmp/filecoin-proof-parameters", 0, 0, false,
     "param-cache",
     "directory of the .params files (default: $FIL_PROOFS_PARAMETER_CACHE when set)"},
    IGNORED("srs.preload", "deprecated in the Rust daemon (use the PreloadSRS RPC)"),
    {"srs.keep_host_points", CT_BOOL, OFF(keep_host_points), "false", 0, 0, false, NULL,
     "keep the decoded parameter points in host memory after every usable GPU holds them "
     "(false: they are freed then and decoded again from the file only if a CPU proof or "
     "another upload needs them)"},
    {"memory.total_budget", CT_SIZE, OFF(total_budget), "auto", UINT64_C(1) << 20, U64_BIG, true,
     NULL,
     "memory for hot parameters and partition working sets: a size (\"256GiB\") or \"auto\" "
     "(physical memory minus safety_margin)"},
    {"memory.safety_margin", CT_SIZE, OFF(safety_margin), "5GiB", 0, U64_BIG, false, NULL,
     "memory left to the system when total_budget is \"auto\""},
    {"memory.eviction_min_idle", CT_DUR, OFF(eviction_min_idle_ms), "5m", 0, MS_DAY, false, NULL,
     "under memory pressure, unused parameters are demoted only after this much idle time"},
    IGNORED("memory.pinned_budget", "deprecated in the Rust daemon (use total_budget)"),
    IGNORED("memory.working_memory_budget", "deprecated in the Rust daemon (use total_budget)"),
    {"gpus.devices", CT_GPUS, OFF(gpus), "auto", 0, SRV_GPU_ORDINAL_MAX, false, "gpus",
     "devices that prove: \"auto\" (every device found; none found: the CPU), \"none\" (the "
     "CPU only) or device ordinals, [0, 1] in the file, 0,1 as a flag; [] means \"auto\" as in "
     "the Rust daemon; a listed device that is absent or fails to open is skipped with a "
     "warning"},
    {"gpus.memory_limit", CT_SIZE, OFF(gpu_mem_limit), "0", 0, U64_BIG, false, NULL,
     "per device: most memory of parameters kept resident (least recently used freed first); "
     "0 = bounded by the device's free memory only"},
    {"gpus.device_memory", CT_SIZE, OFF(gpu_device_memory), "0", 0, U64_BIG, false, NULL,
     "per device: hard cap on all the device memory the engine allocates (parameters, work "
     "buffers, scratch, tables); 0 = the device's free memory"},
    {"gpus.streaming", CT_STR, OFF(gpu_streaming), "auto", 0, 0, false, NULL,
     "\"auto\": parameters that do not fit a device stay in host memory and their points are "
     "streamed to it for every proof (what fits stays resident); \"always\": every section "
     "streamed; \"never\": such partitions are proved on the CPU"},
    {"gpus.stream_chunk", CT_SIZE, OFF(gpu_stream_chunk), "0", 0, U64_BIG, false, NULL,
     "bytes of each of the two device buffers that streamed points pass through; 0 = chosen "
     "from the device's memory (at most 1 GiB)"},
    {"gpus.stream_share", CT_U64, OFF(gpu_stream_share), "10", 1, 16, false, NULL,
     "streamed parameters: up to this many partitions of a job, taken as they are synthesized, "
     "share each pass over the streamed L, A and B points (fewer bytes moved per proof; each "
     "keeps the classes of its scalars, about 0.3 GB for a 32 GiB PoRep); 1 = a pass per "
     "partition"},
    {"gpus.stream_kept_h", CT_U64, OFF(gpu_stream_kept_h), "3", 1, 16, false, NULL,
     "streamed parameters: of the partitions sharing passes, how many keep their h in pinned "
     "host memory for one pass over the h points (32 bytes per h point each: 4.3 GB for a "
     "32 GiB PoRep); at most gpus.stream_share"},
    {"gpus.debug_h2d_rate", CT_SIZE, OFF(gpu_h2d_rate), "0", 0, U64_BIG, false, NULL,
     "debugging: pace every host-to-device copy to this many bytes per second (\"25GB\" "
     "emulates PCIe 4.0 x16); 0 = full speed"},
    IGNORED("gpus.gpu_threads",
            "the device threads' host work uses the prover pool (pipeline.prover_cpu_threads)"),
    IGNORED("gpus.gpu_workers_per_device",
            "one prover thread per device: a device and its resident parameters serve one proof "
            "at a time"),
    {"scheduler.max_batch_size", CT_U64, OFF(max_batch_size), "1", 1, 64, false, NULL,
     "jobs of one circuit type (PoRep, SnapDeals) dispatched together; 1 = no batching"},
    {"scheduler.max_batch_wait_ms", CT_U64, OFF(max_batch_wait_ms), "10000", 0, 3600000, false,
     NULL, "how long a partial batch waits for more jobs before it is dispatched"},
    {"scheduler.sort_by_type", CT_BOOL, OFF(sort_by_type), "true", 0, 0, false, NULL,
     "NORMAL and LOW jobs: prefer the circuit type dispatched last (fewer parameter switches)"},
    {"synthesis.threads", CT_U64, OFF(synth_threads), "0", 0, 4096, false, NULL,
     "synthesis worker threads; 0 = one per CPU"},
    {"synthesis.mode", CT_STR, OFF(synth_mode), "auto", 0, 0, false, "synthesis-mode",
     "\"pce\": witness only, then a, b, c from the circuit's recorded shape (recorded once per "
     "circuit); \"prover\": a, b, c evaluated at every constraint; \"auto\": pce once the "
     "shape is recorded, the prover backend while it is being recorded or if it cannot be"},
    {"synthesis.shape_cache", CT_STR, OFF(shape_cache), "none", 0, 0, false, NULL,
     "directory where recorded circuit shapes are kept across restarts (checked on load, "
     "recorded again when stale or corrupt); \"none\" keeps them in memory only"},
    IGNORED("synthesis.partition_workers", "deprecated in the Rust daemon (the budget decides)"),
    IGNORED("pipeline.enabled", "the pipeline is always on"),
    IGNORED("pipeline.synthesis_lookahead", "the memory budget bounds synthesized partitions"),
    IGNORED("pipeline.synthesis_concurrency", "see synthesis.threads"),
    IGNORED("pipeline.slot_size", "the memory budget bounds partitions in flight"),
    IGNORED("pipeline.max_gpu_queue_depth",
            "the memory budget bounds the partitions waiting for a prover"),
    {"pipeline.max_parallel_synthesis", CT_U64, OFF(max_parallel_synthesis), "18", 0, 4096, false,
     NULL, "upper bound on synthesis threads (0 = 18)"},
    {"pipeline.max_active_jobs", CT_U64, OFF(max_active_jobs), "4", 1, 1024, false, NULL,
     "jobs (or batches) in the pipeline at once; CRITICAL jobs are always admitted"},
    {"pipeline.prover_threads", CT_U64, OFF(prover_threads), "1", 1, 64, false, NULL,
     "partitions proved at the same time on the CPU when no GPU is in use (with GPUs: one per "
     "device)"},
    {"pipeline.prover_cpu_threads", CT_U64, OFF(prover_cpu_threads), "0", 0, 4096, false, NULL,
     "CPU threads of one proof's multi-scalar multiplications; 0 = one per CPU"},
    {"jobs.retention", CT_DUR, OFF(retention_ms), "1h", 0, 7 * MS_DAY, false, NULL,
     "how long finished jobs stay available to AwaitProof and idempotent resubmission"},
    {"jobs.max_retained", CT_U64, OFF(max_retained), "10000", 1, 10000000, false, NULL,
     "most finished jobs kept"},
    {"logging.level", CT_LEVEL, OFF(log_level), "info", 0, 0, false, "log-level",
     "error, warn, info, debug or trace"},
    IGNORED("logging.format", "this daemon always logs key=value lines"),
    {"logging.timing", CT_BOOL, OFF(timing), "false", 0, 0, false, "timing",
     "log one key=value line per stage of every partition (synthesis, each prover stage, "
     "verify) for cuzk-bench ab / timeline; also CUZK_TIMING=1"},
};

const size_t cfg_nentries = ARRAY_LEN(cfg_table);
_Static_assert(ARRAY_LEN(cfg_table) <= CFG_ENTRIES_MAX, "CFG_ENTRIES_MAX");

/* CT_STRS keys store (char **list, size_t count) back to back. */
_Static_assert(offsetof(srv_config, nlisten) == offsetof(srv_config, listen) + sizeof(char **),
               "listen and nlisten must be adjacent");

void cfg_flag_name(const cfg_entry *e, char *out, size_t cap)
{
    if (e->flag) {
        snprintf(out, cap, "%s", e->flag);
        return;
    }
    size_t i = 0;
    for (const char *p = e->key; *p && i + 1 < cap; p++) {
        out[i++] = (*p == '.' || *p == '_') ? '-' : *p;
    }
    out[i] = '\0';
}

const cfg_entry *cfg_find_key(const char *key)
{
    for (size_t i = 0; i < cfg_nentries; i++) {
        if (strcmp(cfg_table[i].key, key) == 0) {
            return &cfg_table[i];
        }
    }
    return NULL;
}

const cfg_entry *cfg_find_flag(const char *name)
{
    char f[96];
    for (size_t i = 0; i < cfg_nentries; i++) {
        if (cfg_table[i].type == CT_IGNORED) {
            continue;
        }
        cfg_flag_name(&cfg_table[i], f, sizeof(f));
        if (strcmp(f, name) == 0) {
            return &cfg_table[i];
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Sizes and durations
 * ------------------------------------------------------------------------------------------- */

static bool parse_u64_digits(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
            return false;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

bool srv_parse_size(const char *s, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t mul;
    } units[] = {
        {"KiB", UINT64_C(1) << 10},   {"MiB", UINT64_C(1) << 20},      {"GiB", UINT64_C(1) << 30},
        {"TiB", UINT64_C(1) << 40},   {"KB", UINT64_C(1000)},          {"MB", UINT64_C(1000000)},
        {"GB", UINT64_C(1000000000)}, {"TB", UINT64_C(1000000000000)}, {"B", 1}};
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    uint64_t mul = 1;
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        size_t k = strlen(units[i].suffix);
        if (n > k && strncmp(s + n - k, units[i].suffix, k) == 0) {
            mul = units[i].mul;
            n -= k;
            while (n && s[n - 1] == ' ') {
                n--;
            }
            break;
        }
    }
    uint64_t v;
    if (!parse_u64_digits(s, n, &v) || (v && mul > UINT64_MAX / v)) {
        return false;
    }
    *out = v * mul;
    return true;
}

bool srv_parse_duration_ms(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    uint64_t mul = 1000; /* bare numbers are seconds, as in the Rust daemon */
    if (n > 2 && strcmp(s + n - 2, "ms") == 0) {
        mul = 1;
        n -= 2;
    } else if (n > 1 && s[n - 1] == 's') {
        n--;
    } else if (n > 1 && s[n - 1] == 'm') {
        mul = 60000;
        n--;
    } else if (n > 1 && s[n - 1] == 'h') {
        mul = 3600000;
        n--;
    }
    uint64_t v;
    if (!parse_u64_digits(s, n, &v) || (v && mul > UINT64_MAX / v)) {
        return false;
    }
    *out = v * mul;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Applying a value to a key
 * ------------------------------------------------------------------------------------------- */

static const char *type_word(cfg_type t)
{
    switch (t) {
    case CT_STR:
    case CT_LEVEL:
        return "a string";
    case CT_STRS:
        return "a string or an array of strings";
    case CT_U64:
        return "a non-negative integer";
    case CT_BOOL:
        return "true or false";
    case CT_SIZE:
        return "a size such as \"64GiB\" or an integer (bytes)";
    case CT_DUR:
        return "a duration such as \"30s\", \"5m\" or an integer (seconds)";
    case CT_MODE:
        return "octal permission bits such as \"0660\" or 0o660";
    case CT_GPUS:
        return "\"auto\", \"none\" or an array of device ordinals such as [0, 1]";
    default:
        return "a value";
    }
}

static bool check_bounds(const cfg_entry *e, uint64_t v, cfg_perr *pe)
{
    if (v < e->min || v > e->max) {
        return cfg_fail(pe, "%" PRIu64 " is outside [%" PRIu64 ", %" PRIu64 "]", v, e->min, e->max);
    }
    return true;
}

/* Adds ordinal u to the list in sel (bounds and duplicates checked). */
static bool gpu_sel_add(srv_gpu_sel *sel, const cfg_entry *e, uint64_t u, cfg_perr *pe)
{
    if (!check_bounds(e, u, pe)) {
        return false;
    }
    if (sel->n == ENG_MAX_GPUS) {
        return cfg_fail(pe, "more than %d devices", ENG_MAX_GPUS);
    }
    for (size_t i = 0; i < sel->n; i++) {
        if (sel->devices[i] == u) {
            return cfg_fail(pe, "device %" PRIu64 " is listed twice", u);
        }
    }
    sel->devices[sel->n++] = (unsigned)u;
    return true;
}

/* "auto", "none" or comma-separated ordinals ("0,1", "2"); false (message in pe) otherwise. */
static bool gpu_sel_from_string(srv_gpu_sel *sel, const cfg_entry *e, const char *str, cfg_perr *pe)
{
    if (!strcmp(str, "auto")) {
        sel->mode = ENG_GPU_AUTO;
        return true;
    }
    if (!strcmp(str, "none")) {
        sel->mode = ENG_GPU_NONE;
        return true;
    }
    sel->mode = ENG_GPU_LIST;
    for (const char *p = str;;) {
        while (*p == ' ') {
            p++;
        }
        size_t len = strspn(p, "0123456789");
        uint64_t u;
        if (!parse_u64_digits(p, len, &u)) {
            return cfg_fail(pe,
                            "\"%s\": expected \"auto\", \"none\" or device ordinals such as "
                            "\"0,1\"",
                            str);
        }
        if (!gpu_sel_add(sel, e, u, pe)) {
            return false;
        }
        p += len;
        while (*p == ' ') {
            p++;
        }
        if (!*p) {
            return true;
        }
        if (*p++ != ',') {
            return cfg_fail(pe, "\"%s\": expected ',' between device ordinals", str);
        }
    }
}

/* Each type's applier stores value v into the srv_config field at `slot` (e->off) after checking
 * it against e. `append` (string lists only): add to the list instead of replacing it. False
 * with the message in pe; a value of the wrong type is wrong_type()'s "expected ...". */
typedef bool (*cfg_applier)(void *slot, const cfg_entry *e, const cfg_val *v, bool append,
                            cfg_perr *pe);

static bool wrong_type(const cfg_entry *e, cfg_perr *pe)
{
    return cfg_fail(pe, "expected %s", type_word(e->type));
}

/* The value's string, or NULL when it is not one. */
static const char *str_of(const cfg_val *v)
{
    return v->kind == CFG_V_STR ? v->s : NULL;
}

/* Replaces the owned string at slot with a copy of str. */
static bool set_string(void *slot, const char *str, cfg_perr *pe)
{
    char *copy = cz_strdup(str);
    char **s = slot;

    if (!copy) {
        return cfg_fail(pe, "out of memory");
    }
    cz_free(*s);
    *s = copy;
    return true;
}

/* Stores u at slot when it lies within e's bounds. */
static bool set_u64_bounded(void *slot, const cfg_entry *e, uint64_t u, cfg_perr *pe)
{
    if (!check_bounds(e, u, pe)) {
        return false;
    }
    *(uint64_t *)slot = u;
    return true;
}

static bool apply_ignored(void *slot, const cfg_entry *e, const cfg_val *v, bool append,
                          cfg_perr *pe)
{
    (void)slot;
    (void)v;
    (void)append;
    (void)pe;
    CZ_LOG(CZ_LOG_WARN, "config=%s event=ignored reason=\"%s\"", e->key, e->help);
    return true;
}

static bool apply_str(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);

    (void)append;
    if (!str) {
        return wrong_type(e, pe);
    }
    if (!str[0]) {
        return cfg_fail(pe, "must not be empty");
    }
    return set_string(slot, str, pe);
}

static bool apply_level(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    cz_log_level lvl;

    (void)append;
    if (!str) {
        return wrong_type(e, pe);
    }
    if (!cz_log_level_parse(&lvl, str)) {
        return cfg_fail(pe, "unknown log level \"%s\" (error, warn, info, debug, trace)", str);
    }
    return set_string(slot, str, pe);
}

/* A string or an array of non-empty strings; the field is a char ** followed by its count. */
static bool apply_strs(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    size_t n = v->kind == CFG_V_ARR ? v->n : v->kind == CFG_V_STR ? 1 : 0;
    char ***list = slot;
    size_t *count = (size_t *)(void *)((char *)slot + sizeof(char **));

    if (!n) {
        return v->kind == CFG_V_ARR ? cfg_fail(pe, "needs at least one entry") : wrong_type(e, pe);
    }
    for (size_t i = 0; v->kind == CFG_V_ARR && i < n; i++) {
        if (v->items[i].kind != CFG_V_STR) {
            return cfg_fail(pe, "entry %zu is not a string", i);
        }
    }
    size_t keep = append ? *count : 0;
    char **nl = cz_calloc(keep + n, sizeof(char *));
    if (!nl) {
        return cfg_fail(pe, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = v->kind == CFG_V_ARR ? v->items[i].s : v->s;
        if (!s[0] || !(nl[keep + i] = cz_strdup(s))) {
            for (size_t j = 0; j < i; j++) {
                cz_free(nl[keep + j]);
            }
            cz_free(nl);
            return cfg_fail(pe, s[0] ? "out of memory" : "empty entry");
        }
    }
    for (size_t i = 0; i < keep; i++) {
        nl[i] = (*list)[i];
    }
    for (size_t i = keep; i < *count; i++) {
        cz_free((*list)[i]);
    }
    cz_free(*list);
    *list = nl;
    *count = keep + n;
    return true;
}

/* A flag's word: 1 for true, yes, on, 1; 0 for false, no, off, 0; -1 for anything else. */
static int bool_word(const char *s)
{
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on") || !strcmp(s, "1")) {
        return 1;
    }
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off") || !strcmp(s, "0")) {
        return 0;
    }
    return -1;
}

static bool apply_bool(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    int b = v->kind == CFG_V_BOOL ? v->b : v->raw && str ? bool_word(str) : -1;

    (void)append;
    if (b < 0) {
        return wrong_type(e, pe);
    }
    *(bool *)slot = b == 1;
    return true;
}

static bool apply_u64(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == CFG_V_INT && v->i >= 0) {
        u = (uint64_t)v->i;
    } else if (v->raw && str) {
        /* a flag's text, read as the file's integers are */
        cfg_val iv;
        cfg_perr tmp = *pe;
        const char *p = str;
        if (!cfg_parse_int(&p, &iv, &tmp) || *p || iv.i < 0) {
            return wrong_type(e, pe);
        }
        u = (uint64_t)iv.i;
    } else {
        return wrong_type(e, pe);
    }
    return set_u64_bounded(slot, e, u, pe);
}

static bool apply_size(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == CFG_V_INT && v->i >= 0) {
        u = (uint64_t)v->i;
    } else if (str && e->auto_ok && strcmp(str, "auto") == 0) {
        *(uint64_t *)slot = SRV_SIZE_AUTO;
        return true;
    } else if (!str || !srv_parse_size(str, &u)) {
        return wrong_type(e, pe);
    }
    return set_u64_bounded(slot, e, u, pe);
}

/* Stored in milliseconds; an integer is seconds. */
static bool apply_dur(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == CFG_V_INT && v->i >= 0) {
        if ((uint64_t)v->i > UINT64_MAX / 1000) {
            return cfg_fail(pe, "duration out of range");
        }
        u = (uint64_t)v->i * 1000;
    } else if (!str || !srv_parse_duration_ms(str, &u)) {
        return wrong_type(e, pe);
    }
    return set_u64_bounded(slot, e, u, pe);
}

/* "auto", "none", "0,1" (flags), one ordinal, or an array of ordinals. */
static bool apply_gpus(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    srv_gpu_sel sel;

    (void)append;
    memset(&sel, 0, sizeof(sel));
    if (str) {
        if (!gpu_sel_from_string(&sel, e, str, pe)) {
            return false;
        }
    } else if (v->kind == CFG_V_INT) {
        sel.mode = ENG_GPU_LIST;
        if (v->i < 0 || !gpu_sel_add(&sel, e, (uint64_t)v->i, pe)) {
            return v->i < 0 ? cfg_fail(pe, "device ordinals are not negative") : false;
        }
    } else if (v->kind == CFG_V_ARR) {
        /* The Rust daemon's Vec<u32>: empty means every device. */
        sel.mode = v->n ? ENG_GPU_LIST : ENG_GPU_AUTO;
        for (size_t i = 0; i < v->n; i++) {
            if (v->items[i].kind != CFG_V_INT || v->items[i].i < 0) {
                return cfg_fail(pe, "entry %zu is not a device ordinal", i);
            }
            if (!gpu_sel_add(&sel, e, (uint64_t)v->items[i].i, pe)) {
                return false;
            }
        }
    } else {
        return wrong_type(e, pe);
    }
    *(srv_gpu_sel *)slot = sel;
    return true;
}

/* An integer (0o660 in the file) or up to 4 octal digits as a string. */
static bool apply_mode(void *slot, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == CFG_V_INT && v->i >= 0) {
        u = (uint64_t)v->i;
    } else if (str && str[0] && strspn(str, "01234567") == strlen(str) && strlen(str) <= 4) {
        u = strtoull(str, NULL, 8);
    } else {
        return wrong_type(e, pe);
    }
    if (u > 0777) {
        return cfg_fail(pe, "mode 0%" PRIo64 " has bits beyond 0777", u);
    }
    *(uint64_t *)slot = u;
    return true;
}

static const cfg_applier appliers[] = {
    [CT_STR] = apply_str,         [CT_STRS] = apply_strs,   [CT_U64] = apply_u64,
    [CT_BOOL] = apply_bool,       [CT_SIZE] = apply_size,   [CT_DUR] = apply_dur,
    [CT_MODE] = apply_mode,       [CT_LEVEL] = apply_level, [CT_GPUS] = apply_gpus,
    [CT_IGNORED] = apply_ignored,
};
_Static_assert(ARRAY_LEN(appliers) == CT_IGNORED + 1, "one applier per cfg_type");

bool cfg_apply(srv_config *cfg, const cfg_entry *e, const cfg_val *v, bool append, cfg_perr *pe)
{
    return appliers[e->type]((char *)cfg + e->off, e, v, append, pe);
}

/* ---------------------------------------------------------------------------------------------
 * Defaults, clearing
 * ------------------------------------------------------------------------------------------- */

cuzk_err srv_config_init(srv_config *cfg, cz_diag *dg)
{
    char err[256];
    cfg_perr pe = {err, sizeof(err)};

    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < cfg_nentries; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        char dflt[256];
        snprintf(dflt, sizeof(dflt), "%s", e->dflt);
        cfg_val v = {.kind = CFG_V_STR, .raw = true, .s = dflt};
        if (!cfg_apply(cfg, e, &v, false, &pe)) {
            srv_config_clear(cfg);
            return cz_fail(dg, CUZK_E_NOMEM, "default of %s: %s", e->key, err);
        }
    }
    const char *timing = getenv("CUZK_TIMING");
    if (timing && strcmp(timing, "1") == 0) {
        cfg->timing = true;
    }
    const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (env && env[0]) {
        char *copy = cz_strdup(env);
        if (!copy) {
            srv_config_clear(cfg);
            return cz_fail(dg, CUZK_E_NOMEM, "param_cache");
        }
        cz_free(cfg->param_cache);
        cfg->param_cache = copy;
    }
    return CUZK_OK;
}

void srv_config_clear(srv_config *cfg)
{
    for (size_t i = 0; i < cfg->nlisten; i++) {
        cz_free(cfg->listen[i]);
    }
    cz_free(cfg->listen);
    cz_free(cfg->param_cache);
    cz_free(cfg->synth_mode);
    cz_free(cfg->gpu_streaming);
    cz_free(cfg->shape_cache);
    cz_free(cfg->log_level);
    cz_free(cfg->config_path);
    memset(cfg, 0, sizeof(*cfg));
}

/* ---------------------------------------------------------------------------------------------
 * Engine configuration
 * ------------------------------------------------------------------------------------------- */

cuzk_err srv_config_engine(const srv_config *cfg, eng_config_t *ecfg, cz_diag *dg)
{
    unsigned cpus = cz_cpu_count();

    eng_config_default(ecfg);
    ecfg->param_cache = cfg->param_cache;
    if (cfg->total_budget == SRV_SIZE_AUTO) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
        if (phys <= cfg->safety_margin) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "memory.total_budget = \"auto\": physical memory %" PRIu64
                           " bytes is not above safety_margin %" PRIu64,
                           phys, cfg->safety_margin);
        }
        ecfg->mem_budget_bytes = phys - cfg->safety_margin;
    } else {
        ecfg->mem_budget_bytes = cfg->total_budget;
    }
    uint64_t workers = cfg->synth_threads ? cfg->synth_threads : cpus;
    uint64_t cap = cfg->max_parallel_synthesis ? cfg->max_parallel_synthesis : 18;
    ecfg->synth_workers = (unsigned)(workers < cap ? workers : cap);
    ecfg->prover_threads = (unsigned)cfg->prover_threads;
    uint64_t msm = cfg->prover_cpu_threads ? cfg->prover_cpu_threads : cpus;
    ecfg->prover_pool_threads = (unsigned)(msm - 1);
    ecfg->srs_load_threads = cpus - 1;
    ecfg->max_active_jobs = (unsigned)cfg->max_active_jobs;
    ecfg->max_batch_size = (unsigned)cfg->max_batch_size;
    ecfg->max_batch_wait_ms = cfg->max_batch_wait_ms;
    ecfg->sort_by_type = cfg->sort_by_type;
    ecfg->eviction_min_idle_ms = cfg->eviction_min_idle_ms;
    ecfg->retention_ms = cfg->retention_ms;
    ecfg->max_retained = (size_t)cfg->max_retained;
    ecfg->verify_proofs = true;
    ecfg->timing = cfg->timing;
    ecfg->gpu_mode = cfg->gpus.mode;
    ecfg->n_gpu_devices = cfg->gpus.mode == ENG_GPU_LIST ? cfg->gpus.n : 0;
    for (size_t i = 0; i < ecfg->n_gpu_devices; i++) {
        ecfg->gpu_devices[i] = cfg->gpus.devices[i];
    }
    ecfg->gpu_mem_limit_bytes = cfg->gpu_mem_limit;
    if (!eng_synth_mode_parse(&ecfg->synth_mode, cfg->synth_mode)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "synthesis.mode = \"%s\": expected \"auto\", \"prover\" or \"pce\"",
                       cfg->synth_mode);
    }
    ecfg->shape_cache = strcmp(cfg->shape_cache, "none") == 0 ? NULL : cfg->shape_cache;
    ecfg->keep_host_points = cfg->keep_host_points;
    ecfg->gpu_device_memory_bytes = cfg->gpu_device_memory;
    ecfg->gpu_stream_bytes = cfg->gpu_stream_chunk;
    ecfg->gpu_h2d_rate = cfg->gpu_h2d_rate;
    ecfg->gpu_stream_share = (unsigned)cfg->gpu_stream_share;
    ecfg->gpu_stream_kept_h = (unsigned)cfg->gpu_stream_kept_h;
    if (!eng_gpu_stream_parse(&ecfg->gpu_streaming, cfg->gpu_streaming)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "gpus.streaming = \"%s\": expected \"auto\", \"always\" or \"never\"",
                       cfg->gpu_streaming);
    }
    return CUZK_OK;
}
