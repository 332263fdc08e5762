/* config.c - the configuration table and everything it drives: defaults, the TOML-subset file
 * (libinih splits sections and keys; parse_value reads the TOML values), command-line flags,
 * --help and --print-config.
 *
 * Before inih sees the file, each line is left-trimmed (inih would read an indented line as a
 * continuation of the previous value), '#' comments outside strings are removed, lines of an
 * array that spans several lines are joined, and every value is moved aside: inih reads
 * `key = N` and on_ini looks up value N's text. inih's limits (a line shorter than 200
 * characters; " ;" starts a comment) therefore apply to section headers and keys only, never
 * to values. A map keeps the original line numbers for messages.
 */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "common/alloc.h"
#include "common/log.h"
#include "common/pool.h"

/* ---------------------------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------------------------- */

typedef enum {
    CT_STR,    /* string */
    CT_STRS,   /* string or array of strings */
    CT_U64,    /* non-negative integer */
    CT_BOOL,   /* true / false */
    CT_SIZE,   /* bytes: integer or "5GiB"; "auto" where auto_ok */
    CT_DUR,    /* milliseconds: integer seconds or "500ms", "30s", "5m", "1h" */
    CT_MODE,   /* permission bits: 0o660 or "0660" */
    CT_LEVEL,  /* log level name */
    CT_GPUS,   /* srv_gpu_sel: "auto", "none", [0, 1] or (flags) "0,1" */
    CT_IGNORED /* a Rust-daemon key that does not apply here: accepted, warned about */
} cfg_type;

typedef struct cfg_entry {
    const char *key; /* "section.name" */
    cfg_type type;
    size_t off; /* into srv_config */
    const char *dflt;
    uint64_t min, max;
    bool auto_ok;
    const char *flag; /* NULL: "--" + key with '.' and '_' turned into '-' */
    const char *help;
} cfg_entry;

#define OFF(f)  offsetof(srv_config, f)
#define MS_DAY  UINT64_C(86400000)
#define U64_BIG (UINT64_MAX - 1)
#define IGNORED(k, why)                                                                            \
    {                                                                                              \
        k, CT_IGNORED, 0, NULL, 0, 0, false, NULL, why                                             \
    }

static const cfg_entry cfg_table[] = {
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
    {"gpus.stream_share", CT_U64, OFF(gpu_stream_share), "4", 1, 8, false, NULL,
     "streamed parameters: up to this many partitions of a proof ready together share each "
     "pass over the streamed points (fewer bytes moved per proof; each costs 32 bytes per "
     "streamed h, a and b point of pinned host memory, 8 GB for a 32 GiB PoRep); 1 = a pass "
     "per partition"},
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

#define NENTRIES ARRAY_LEN(cfg_table)

/* CT_STRS keys store (char **list, size_t count) back to back. */
_Static_assert(offsetof(srv_config, nlisten) == offsetof(srv_config, listen) + sizeof(char **),
               "listen and nlisten must be adjacent");

static void flag_name(const cfg_entry *e, char *out, size_t cap)
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

static const cfg_entry *find_key(const char *key)
{
    for (size_t i = 0; i < NENTRIES; i++) {
        if (strcmp(cfg_table[i].key, key) == 0) {
            return &cfg_table[i];
        }
    }
    return NULL;
}

static const cfg_entry *find_flag(const char *name)
{
    char f[96];
    for (size_t i = 0; i < NENTRIES; i++) {
        if (cfg_table[i].type == CT_IGNORED) {
            continue;
        }
        flag_name(&cfg_table[i], f, sizeof(f));
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
 * Values
 * ------------------------------------------------------------------------------------------- */

typedef enum { V_STR, V_INT, V_BOOL, V_ARR } vkind;

typedef struct cfg_val {
    vkind kind;
    bool raw; /* a command-line string, interpreted according to the key's type */
    char *s;
    int64_t i;
    bool b;
    struct cfg_val *items;
    size_t n;
} cfg_val;

static void val_clear(cfg_val *v)
{
    cz_free(v->s);
    for (size_t i = 0; i < v->n; i++) {
        val_clear(&v->items[i]);
    }
    cz_free(v->items);
    memset(v, 0, sizeof(*v));
}

typedef struct perr {
    char *msg;
    size_t cap;
} perr;

static bool fail_msg(perr *e, const char *fmt, ...) CZ_PRINTF(2, 3);

static bool fail_msg(perr *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, e->cap, fmt, ap);
    va_end(ap);
    return false;
}

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t') {
        (*p)++;
    }
}

/* Appends the UTF-8 encoding of code point c to buf at *n (buf has room). */
static bool put_utf8(char *buf, size_t *n, uint32_t c)
{
    if (c >= 0xd800 && c < 0xe000) {
        return false;
    }
    if (c < 0x80) {
        buf[(*n)++] = (char)c;
    } else if (c < 0x800) {
        buf[(*n)++] = (char)(0xc0 | (c >> 6));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        buf[(*n)++] = (char)(0xe0 | (c >> 12));
        buf[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x110000) {
        buf[(*n)++] = (char)(0xf0 | (c >> 18));
        buf[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3f));
        buf[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else {
        return false;
    }
    return true;
}

static bool parse_string(const char **pp, cfg_val *v, perr *e)
{
    const char *p = *pp;
    char q = *p++;
    size_t cap = strlen(p) * 4 + 1, n = 0;
    char *buf = cz_malloc(cap);
    if (!buf) {
        return fail_msg(e, "out of memory");
    }
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == '\0') {
            cz_free(buf);
            return fail_msg(e, "unterminated string");
        }
        p++;
        if (c == (unsigned char)q) {
            break;
        }
        if (c < 0x20 && c != '\t') {
            cz_free(buf);
            return fail_msg(e, "control character in string");
        }
        if (c != '\\' || q == '\'') {
            buf[n++] = (char)c;
            continue;
        }
        char x = *p++;
        switch (x) {
        case 'b':
            buf[n++] = '\b';
            break;
        case 't':
            buf[n++] = '\t';
            break;
        case 'n':
            buf[n++] = '\n';
            break;
        case 'f':
            buf[n++] = '\f';
            break;
        case 'r':
            buf[n++] = '\r';
            break;
        case '"':
            buf[n++] = '"';
            break;
        case '\\':
            buf[n++] = '\\';
            break;
        case 'u':
        case 'U': {
            int digits = x == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (int i = 0; i < digits; i++) {
                char h = *p++;
                int d = isdigit((unsigned char)h) ? h - '0'
                        : (h >= 'a' && h <= 'f')  ? h - 'a' + 10
                        : (h >= 'A' && h <= 'F')  ? h - 'A' + 10
                                                  : -1;
                if (d < 0) {
                    cz_free(buf);
                    return fail_msg(e, "bad \\%c escape", x);
                }
                cp = cp * 16 + (uint32_t)d;
            }
            if (!put_utf8(buf, &n, cp)) {
                cz_free(buf);
                return fail_msg(e, "bad unicode escape");
            }
            break;
        }
        default:
            cz_free(buf);
            return fail_msg(e, "unknown escape \\%c", x ? x : '0');
        }
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        cz_free(buf);
        return fail_msg(e, "NUL in string");
    }
    v->kind = V_STR;
    v->s = buf;
    *pp = p;
    return true;
}

static bool parse_int(const char **pp, cfg_val *v, perr *e)
{
    const char *p = *pp;
    bool neg = false;
    unsigned base = 10;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b')) {
        if (*pp != p) {
            return fail_msg(e, "a sign is not allowed before 0%c", p[1]);
        }
        base = p[1] == 'x' ? 16 : p[1] == 'o' ? 8 : 2;
        p += 2;
    }
    uint64_t acc = 0;
    size_t digits = 0;
    bool last_us = true; /* no leading underscore */
    const char *first = p;
    for (;; p++) {
        char c = *p;
        int d = isdigit((unsigned char)c)              ? c - '0'
                : (base == 16 && c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (base == 16 && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                       : -1;
        if (c == '_') {
            if (last_us) {
                return fail_msg(e, "misplaced '_' in integer");
            }
            last_us = true;
            continue;
        }
        if (d < 0 || (unsigned)d >= base) {
            break;
        }
        if (acc > (UINT64_MAX - (uint64_t)d) / base) {
            return fail_msg(e, "integer out of range");
        }
        acc = acc * base + (uint64_t)d;
        digits++;
        last_us = false;
    }
    if (!digits || last_us) {
        return fail_msg(e, "malformed integer");
    }
    if (*p == '.' || *p == 'e' || *p == 'E') {
        return fail_msg(e, "floating-point values are not supported");
    }
    if (base == 10 && first[0] == '0' && digits > 1) {
        return fail_msg(e, "leading zeros are not allowed in decimal integers");
    }
    if (acc > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
        return fail_msg(e, "integer out of range");
    }
    v->kind = V_INT;
    v->i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    *pp = p;
    return true;
}

static bool parse_value(const char **pp, cfg_val *v, perr *e, bool in_array)
{
    const char *p = *pp;
    memset(v, 0, sizeof(*v));
    skip_ws(&p);
    if (*p == '"' || *p == '\'') {
        if (*p == '"' && p[1] == '"' && p[2] == '"') {
            return fail_msg(e, "multi-line strings are not supported");
        }
        if (!parse_string(&p, v, e)) {
            return false;
        }
    } else if (*p == '[') {
        if (in_array) {
            return fail_msg(e, "nested arrays are not supported");
        }
        p++;
        v->kind = V_ARR;
        for (;;) {
            skip_ws(&p);
            if (*p == ']') {
                p++;
                break;
            }
            cfg_val *items = cz_realloc(v->items, (v->n + 1) * sizeof(cfg_val));
            if (!items) {
                val_clear(v);
                return fail_msg(e, "out of memory");
            }
            v->items = items;
            if (!parse_value(&p, &v->items[v->n], e, true)) {
                val_clear(v);
                return false;
            }
            v->n++;
            skip_ws(&p);
            if (*p == ',') {
                p++;
            } else if (*p != ']') {
                val_clear(v);
                return fail_msg(e, "expected ',' or ']' in array");
            }
        }
    } else if (strncmp(p, "true", 4) == 0 && !isalnum((unsigned char)p[4])) {
        v->kind = V_BOOL;
        v->b = true;
        p += 4;
    } else if (strncmp(p, "false", 5) == 0 && !isalnum((unsigned char)p[5])) {
        v->kind = V_BOOL;
        v->b = false;
        p += 5;
    } else if (isdigit((unsigned char)*p) || *p == '+' || *p == '-') {
        if (!parse_int(&p, v, e)) {
            return false;
        }
    } else if (*p == '{') {
        return fail_msg(e, "inline tables are not supported");
    } else if (*p == '\0') {
        return fail_msg(e, "missing value");
    } else {
        return fail_msg(e, "unrecognized value (strings need quotes)");
    }
    *pp = p;
    return true;
}

/* A whole value from a file: the value, then only blanks. */
static bool parse_file_value(const char *text, cfg_val *v, perr *e)
{
    const char *p = text;
    if (!parse_value(&p, v, e, false)) {
        return false;
    }
    skip_ws(&p);
    if (*p) {
        val_clear(v);
        return fail_msg(e, "unexpected text after the value: \"%.20s\"", p);
    }
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

static bool check_bounds(const cfg_entry *e, uint64_t v, perr *pe)
{
    if (v < e->min || v > e->max) {
        return fail_msg(pe, "%" PRIu64 " is outside [%" PRIu64 ", %" PRIu64 "]", v, e->min, e->max);
    }
    return true;
}

/* Adds ordinal u to the list in sel (bounds and duplicates checked). */
static bool gpu_sel_add(srv_gpu_sel *sel, const cfg_entry *e, uint64_t u, perr *pe)
{
    if (!check_bounds(e, u, pe)) {
        return false;
    }
    if (sel->n == ENG_MAX_GPUS) {
        return fail_msg(pe, "more than %d devices", ENG_MAX_GPUS);
    }
    for (size_t i = 0; i < sel->n; i++) {
        if (sel->devices[i] == u) {
            return fail_msg(pe, "device %" PRIu64 " is listed twice", u);
        }
    }
    sel->devices[sel->n++] = (unsigned)u;
    return true;
}

/* "auto", "none" or comma-separated ordinals ("0,1", "2"); false (message in pe) otherwise. */
static bool gpu_sel_from_string(srv_gpu_sel *sel, const cfg_entry *e, const char *str, perr *pe)
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
            return fail_msg(pe,
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
            return fail_msg(pe, "\"%s\": expected ',' between device ordinals", str);
        }
    }
}

/* Each type's applier stores value v into the srv_config field at `slot` (e->off) after checking
 * it against e. `append` (string lists only): add to the list instead of replacing it. False
 * with the message in pe; a value of the wrong type is wrong_type()'s "expected ...". */
typedef bool (*cfg_applier)(void *slot, const cfg_entry *e, const cfg_val *v, bool append,
                            perr *pe);

static bool wrong_type(const cfg_entry *e, perr *pe)
{
    return fail_msg(pe, "expected %s", type_word(e->type));
}

/* The value's string, or NULL when it is not one. */
static const char *str_of(const cfg_val *v)
{
    return v->kind == V_STR ? v->s : NULL;
}

/* Replaces the owned string at slot with a copy of str. */
static bool set_string(void *slot, const char *str, perr *pe)
{
    char *copy = cz_strdup(str);
    char **s = slot;

    if (!copy) {
        return fail_msg(pe, "out of memory");
    }
    cz_free(*s);
    *s = copy;
    return true;
}

/* Stores u at slot when it lies within e's bounds. */
static bool set_u64_bounded(void *slot, const cfg_entry *e, uint64_t u, perr *pe)
{
    if (!check_bounds(e, u, pe)) {
        return false;
    }
    *(uint64_t *)slot = u;
    return true;
}

static bool apply_ignored(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    (void)slot;
    (void)v;
    (void)append;
    (void)pe;
    CZ_LOG(CZ_LOG_WARN, "config=%s event=ignored reason=\"%s\"", e->key, e->help);
    return true;
}

static bool apply_str(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);

    (void)append;
    if (!str) {
        return wrong_type(e, pe);
    }
    if (!str[0]) {
        return fail_msg(pe, "must not be empty");
    }
    return set_string(slot, str, pe);
}

static bool apply_level(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    cz_log_level lvl;

    (void)append;
    if (!str) {
        return wrong_type(e, pe);
    }
    if (!cz_log_level_parse(&lvl, str)) {
        return fail_msg(pe, "unknown log level \"%s\" (error, warn, info, debug, trace)", str);
    }
    return set_string(slot, str, pe);
}

/* A string or an array of non-empty strings; the field is a char ** followed by its count. */
static bool apply_strs(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    size_t n = v->kind == V_ARR ? v->n : v->kind == V_STR ? 1 : 0;
    char ***list = slot;
    size_t *count = (size_t *)(void *)((char *)slot + sizeof(char **));

    if (!n) {
        return v->kind == V_ARR ? fail_msg(pe, "needs at least one entry") : wrong_type(e, pe);
    }
    for (size_t i = 0; v->kind == V_ARR && i < n; i++) {
        if (v->items[i].kind != V_STR) {
            return fail_msg(pe, "entry %zu is not a string", i);
        }
    }
    size_t keep = append ? *count : 0;
    char **nl = cz_calloc(keep + n, sizeof(char *));
    if (!nl) {
        return fail_msg(pe, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = v->kind == V_ARR ? v->items[i].s : v->s;
        if (!s[0] || !(nl[keep + i] = cz_strdup(s))) {
            for (size_t j = 0; j < i; j++) {
                cz_free(nl[keep + j]);
            }
            cz_free(nl);
            return fail_msg(pe, s[0] ? "out of memory" : "empty entry");
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

static bool apply_bool(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    int b = v->kind == V_BOOL ? v->b : v->raw && str ? bool_word(str) : -1;

    (void)append;
    if (b < 0) {
        return wrong_type(e, pe);
    }
    *(bool *)slot = b == 1;
    return true;
}

static bool apply_u64(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == V_INT && v->i >= 0) {
        u = (uint64_t)v->i;
    } else if (v->raw && str) {
        /* a flag's text, read as the file's integers are */
        cfg_val iv;
        perr tmp = *pe;
        const char *p = str;
        if (!parse_int(&p, &iv, &tmp) || *p || iv.i < 0) {
            return wrong_type(e, pe);
        }
        u = (uint64_t)iv.i;
    } else {
        return wrong_type(e, pe);
    }
    return set_u64_bounded(slot, e, u, pe);
}

static bool apply_size(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == V_INT && v->i >= 0) {
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
static bool apply_dur(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == V_INT && v->i >= 0) {
        if ((uint64_t)v->i > UINT64_MAX / 1000) {
            return fail_msg(pe, "duration out of range");
        }
        u = (uint64_t)v->i * 1000;
    } else if (!str || !srv_parse_duration_ms(str, &u)) {
        return wrong_type(e, pe);
    }
    return set_u64_bounded(slot, e, u, pe);
}

/* "auto", "none", "0,1" (flags), one ordinal, or an array of ordinals. */
static bool apply_gpus(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    srv_gpu_sel sel;

    (void)append;
    memset(&sel, 0, sizeof(sel));
    if (str) {
        if (!gpu_sel_from_string(&sel, e, str, pe)) {
            return false;
        }
    } else if (v->kind == V_INT) {
        sel.mode = ENG_GPU_LIST;
        if (v->i < 0 || !gpu_sel_add(&sel, e, (uint64_t)v->i, pe)) {
            return v->i < 0 ? fail_msg(pe, "device ordinals are not negative") : false;
        }
    } else if (v->kind == V_ARR) {
        /* The Rust daemon's Vec<u32>: empty means every device. */
        sel.mode = v->n ? ENG_GPU_LIST : ENG_GPU_AUTO;
        for (size_t i = 0; i < v->n; i++) {
            if (v->items[i].kind != V_INT || v->items[i].i < 0) {
                return fail_msg(pe, "entry %zu is not a device ordinal", i);
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
static bool apply_mode(void *slot, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    const char *str = str_of(v);
    uint64_t u;

    (void)append;
    if (v->kind == V_INT && v->i >= 0) {
        u = (uint64_t)v->i;
    } else if (str && str[0] && strspn(str, "01234567") == strlen(str) && strlen(str) <= 4) {
        u = strtoull(str, NULL, 8);
    } else {
        return wrong_type(e, pe);
    }
    if (u > 0777) {
        return fail_msg(pe, "mode 0%" PRIo64 " has bits beyond 0777", u);
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

static bool apply(srv_config *cfg, const cfg_entry *e, const cfg_val *v, bool append, perr *pe)
{
    return appliers[e->type]((char *)cfg + e->off, e, v, append, pe);
}

/* ---------------------------------------------------------------------------------------------
 * Defaults, clearing
 * ------------------------------------------------------------------------------------------- */

cuzk_err srv_config_init(srv_config *cfg, cz_diag *dg)
{
    char err[256];
    perr pe = {err, sizeof(err)};

    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < NENTRIES; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        char dflt[256];
        snprintf(dflt, sizeof(dflt), "%s", e->dflt);
        cfg_val v = {.kind = V_STR, .raw = true, .s = dflt};
        if (!apply(cfg, e, &v, false, &pe)) {
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
 * Files
 * ------------------------------------------------------------------------------------------- */

#define INI_LINE_MAX 199 /* inih's INI_MAX_LINE (200) less the terminator */

/* The text as inih sees it: every `key = value` line is rewritten to `key = N`, and value N's
 * text is kept aside, so that inih never sees a value: neither its length nor a " ;" in a
 * string (inih's inline comment) can reach inih's line reader. */
typedef struct pre_text {
    char *text;    /* the lines handed to inih */
    size_t *lines; /* lines[i] = source line of inih's line i + 1 */
    size_t nlines;
    char *vbuf;   /* the values, each NUL-terminated */
    size_t *voff; /* voff[k] = offset of value k in vbuf */
    size_t nvals;
} pre_text;

static void pre_clear(pre_text *pt)
{
    cz_free(pt->text);
    cz_free(pt->lines);
    cz_free(pt->vbuf);
    cz_free(pt->voff);
    memset(pt, 0, sizeof(*pt));
}

typedef struct file_ctx {
    srv_config *cfg;
    const pre_text *pt;
    bool seen[NENTRIES];
    char err[1024];
    bool failed;
} file_ctx;

/* The value text behind inih's value "N" (see pre_text); NULL when it is not such an index. */
static const char *value_text(const pre_text *pt, const char *idx)
{
    size_t k = 0;
    if (!idx[0] || strspn(idx, "0123456789") != strlen(idx) || strlen(idx) > 9) {
        return NULL;
    }
    for (const char *p = idx; *p; p++) {
        k = k * 10 + (size_t)(*p - '0');
    }
    return k < pt->nvals ? pt->vbuf + pt->voff[k] : NULL;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    file_ctx *fc = user;
    char key[256], msg[400];
    perr pe = {msg, sizeof(msg)};

    if (fc->failed) {
        return 0; /* report the first error only */
    }
    snprintf(key, sizeof(key), "%s%s%s", section, section[0] ? "." : "", name);
    const cfg_entry *e = find_key(key);
    if (!e) {
        snprintf(fc->err, sizeof(fc->err), "unknown key %s", key);
        fc->failed = true;
        return 0;
    }
    size_t idx = (size_t)(e - cfg_table);
    if (fc->seen[idx]) {
        snprintf(fc->err, sizeof(fc->err), "%s is set twice", key);
        fc->failed = true;
        return 0;
    }
    fc->seen[idx] = true;
    const char *text = value_text(fc->pt, value);
    if (!text) {
        /* inih read a line the preprocessor did not take for `key = value`. */
        snprintf(fc->err, sizeof(fc->err), "%s: malformed line", key);
        fc->failed = true;
        return 0;
    }
    cfg_val v;
    if (!parse_file_value(text, &v, &pe)) {
        snprintf(fc->err, sizeof(fc->err), "%s: %s", key, msg);
        fc->failed = true;
        return 0;
    }
    bool ok = apply(fc->cfg, e, &v, false, &pe);
    val_clear(&v);
    if (!ok) {
        snprintf(fc->err, sizeof(fc->err), "%s: %s", key, msg);
        fc->failed = true;
        return 0;
    }
    return 1;
}

/* Where inih would split the line [s, end) into name and value: the first '=' or ':', unless a
 * ';' after a blank (inih's inline comment) comes first. Returns NULL when it would not split. */
static char *ini_separator(char *s, const char *end)
{
    bool was_space = false;
    for (; s < end; s++) {
        if (*s == '=' || *s == ':') {
            return s;
        }
        if (was_space && *s == ';') {
            return NULL;
        }
        was_space = isspace((unsigned char)*s) != 0;
    }
    return NULL;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Appends n bytes to the growing buffer *buf (length *len, capacity *cap). */
static bool text_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *b = cz_realloc(*buf, c);
        if (!b) {
            return false;
        }
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return true;
}

/* Rewrites the text for inih (see the file comment and pre_text). */
static cuzk_err preprocess(const char *text, pre_text *pt, cz_diag *dg, const char *name)
{
    size_t len = strlen(text);
    char *o = cz_malloc(len + 2); /* the logical line being assembled */
    size_t on = 0, nl = 0, vn = 0, vlen_total = 0, src = 1;
    size_t tlen = 0, tcap = 0;
    int depth = 0;
    bool in_str = false, joining = false;
    char q = 0;

    memset(pt, 0, sizeof(*pt));
    pt->lines = cz_calloc(len + 2, sizeof(size_t));
    pt->vbuf = cz_malloc(len + 2);
    pt->voff = cz_calloc(len + 2, sizeof(size_t));
    if (!o || !pt->lines || !pt->vbuf || !pt->voff ||
        !text_append(&pt->text, &tlen, &tcap, "", 0)) {
        goto nomem;
    }
    const char *p = text;
    if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf) {
        p += 3; /* a UTF-8 byte order mark */
    }
    while (*p) {
        if (!joining) {
            on = 0;
            pt->lines[nl] = src;
        }
        /* Left-trim (inih would read an indented line as a continuation). */
        while (is_blank(*p)) {
            p++;
        }
        for (; *p && *p != '\n'; p++) {
            char c = *p;
            if (c == '\r' && p[1] == '\n') {
                continue;
            }
            if (in_str) {
                o[on++] = c;
                if (c == '\\' && q == '"' && p[1] && p[1] != '\n') {
                    o[on++] = *++p;
                } else if (c == q) {
                    in_str = false;
                }
                continue;
            }
            if (c == '#') {
                while (p[1] && p[1] != '\n') {
                    p++;
                }
                continue;
            }
            if (c == '"' || c == '\'') {
                in_str = true;
                q = c;
            } else if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            }
            o[on++] = c;
        }
        if (*p == '\n') {
            p++;
        }
        src++;
        in_str = false; /* strings never span lines in this subset */
        if (depth > 0 && *p) {
            o[on++] = ' ';
            joining = true;
            continue;
        }
        depth = 0;
        joining = false;
        while (on > 0 && is_blank(o[on - 1])) {
            on--;
        }
        /* A `key = value` line (not a [section] or ; comment): its value moves aside. */
        char *sep = NULL;
        if (on > 0 && o[0] != '[' && o[0] != ';') {
            sep = ini_separator(o, o + on);
        }
        size_t keep = on;
        char idx[24] = "";
        if (sep) {
            size_t vlen = on - (size_t)(sep + 1 - o);
            memcpy(pt->vbuf + vlen_total, sep + 1, vlen);
            pt->vbuf[vlen_total + vlen] = '\0';
            pt->voff[vn] = vlen_total;
            vlen_total += vlen + 1;
            snprintf(idx, sizeof(idx), " %zu", vn++);
            keep = (size_t)(sep + 1 - o);
        }
        if (keep + strlen(idx) > INI_LINE_MAX) {
            cuzk_err err = cz_fail(dg, CUZK_E_FORMAT,
                                   "%s:%zu: section header or key longer than %d characters", name,
                                   pt->lines[nl], INI_LINE_MAX);
            cz_free(o);
            pre_clear(pt);
            return err;
        }
        if (!text_append(&pt->text, &tlen, &tcap, o, keep) ||
            !text_append(&pt->text, &tlen, &tcap, idx, strlen(idx)) ||
            !text_append(&pt->text, &tlen, &tcap, "\n", 1)) {
            goto nomem;
        }
        nl++;
    }
    cz_free(o);
    pt->nlines = nl;
    pt->nvals = vn;
    return CUZK_OK;
nomem:
    cz_free(o);
    pre_clear(pt);
    return cz_fail(dg, CUZK_E_NOMEM, "config text");
}

cuzk_err srv_config_load_string(srv_config *cfg, const char *text, const char *name, cz_diag *dg)
{
    pre_text pt;
    cuzk_err err = preprocess(text, &pt, dg, name);
    if (err != CUZK_OK) {
        return err;
    }
    file_ctx *fc = cz_calloc(1, sizeof(*fc));
    if (!fc) {
        pre_clear(&pt);
        return cz_fail(dg, CUZK_E_NOMEM, "config");
    }
    fc->cfg = cfg;
    fc->pt = &pt;
    int r = ini_parse_string(pt.text, on_ini, fc);
    if (r != 0) {
        size_t line = r > 0 && (size_t)r <= pt.nlines ? pt.lines[r - 1] : (size_t)(r > 0 ? r : 0);
        if (fc->failed) {
            err = cz_fail(dg, CUZK_E_INVAL, "%s:%zu: %s", name, line, fc->err);
        } else {
            err = cz_fail(dg, CUZK_E_FORMAT,
                          "%s:%zu: syntax error (expected [section] or key = value)", name, line);
        }
    }
    cz_free(fc);
    pre_clear(&pt);
    return err;
}

cuzk_err srv_config_load_file(srv_config *cfg, const char *path, cz_diag *dg)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "config file %s: %s", path, strerror(errno));
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    cuzk_err err = CUZK_OK;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            if (cap > (size_t)1 << 20) {
                err = cz_fail(dg, CUZK_E_FORMAT, "config file %s is larger than 1 MiB", path);
                break;
            }
            char *t = cz_realloc(text, cap);
            if (!t) {
                err = cz_fail(dg, CUZK_E_NOMEM, "config file");
                break;
            }
            text = t;
        }
        size_t n = fread(text + len, 1, 4096, f);
        len += n;
        if (n < 4096) {
            if (ferror(f)) {
                err = cz_fail(dg, CUZK_E_IO, "reading %s: %s", path, strerror(errno));
            }
            break;
        }
    }
    fclose(f);
    if (err == CUZK_OK) {
        text[len] = '\0';
        if (strlen(text) != len) {
            err = cz_fail(dg, CUZK_E_FORMAT, "config file %s contains NUL bytes", path);
        } else {
            err = srv_config_load_string(cfg, text, path, dg);
        }
    }
    cz_free(text);
    return err;
}

/* ---------------------------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------------------------- */

cuzk_err srv_config_from_args(srv_config *cfg, int argc, char **argv, srv_cli_action *action,
                              cz_diag *dg)
{
    const char *config_path = NULL;
    char msg[400];
    perr pe = {msg, sizeof(msg)};
    bool listed[NENTRIES] = {false};

    *action = SRV_RUN;
    /* Pass 1: actions and the config file. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *action = SRV_HELP;
            return CUZK_OK;
        }
        if (!strcmp(a, "--version")) {
            *action = SRV_VERSION;
        } else if (!strcmp(a, "--print-config")) {
            *action = SRV_PRINT_CONFIG;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            if (i + 1 >= argc) {
                return cz_fail(dg, CUZK_E_INVAL, "%s needs a file name", a);
            }
            config_path = argv[++i];
        } else if (!strncmp(a, "--config=", 9)) {
            config_path = a + 9;
        } else if (!strncmp(a, "--", 2)) {
            const char *eq = strchr(a, '=');
            char name[96];
            snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a - 2 : (long)strlen(a) - 2),
                     a + 2);
            const cfg_entry *e = find_flag(name);
            if (!e) {
                return cz_fail(dg, CUZK_E_INVAL, "unknown flag %s (see --help)", a);
            }
            if (!eq && e->type != CT_BOOL) {
                i++; /* its value */
                if (i >= argc) {
                    return cz_fail(dg, CUZK_E_INVAL, "%s needs a value", a);
                }
            }
        } else {
            return cz_fail(dg, CUZK_E_INVAL, "unexpected argument \"%s\" (see --help)", a);
        }
    }
    if (config_path) {
        cuzk_err err = srv_config_load_file(cfg, config_path, dg);
        if (err != CUZK_OK) {
            return err;
        }
        char *copy = cz_strdup(config_path);
        if (!copy) {
            return cz_fail(dg, CUZK_E_NOMEM, "config path");
        }
        cz_free(cfg->config_path);
        cfg->config_path = copy;
    }
    /* Pass 2: flags override the file. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || !strncmp(a, "--config=", 9) || !strcmp(a, "--version") ||
            !strcmp(a, "--print-config")) {
            continue;
        }
        const char *eq = strchr(a, '=');
        char name[96];
        snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - a - 2 : (long)strlen(a) - 2), a + 2);
        const cfg_entry *e = find_flag(name);
        const char *value = eq ? eq + 1 : e->type == CT_BOOL ? "true" : argv[++i];
        char *copy = cz_strdup(value);
        if (!copy) {
            return cz_fail(dg, CUZK_E_NOMEM, "flag value");
        }
        cfg_val v = {.kind = V_STR, .raw = true, .s = copy};
        size_t idx = (size_t)(e - cfg_table);
        bool ok = apply(cfg, e, &v, listed[idx], &pe);
        listed[idx] = true;
        cz_free(copy);
        if (!ok) {
            return cz_fail(dg, CUZK_E_INVAL, "--%s: %s", name, msg);
        }
    }
    return CUZK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * --help and --print-config
 * ------------------------------------------------------------------------------------------- */

/* The placeholder of an entry's value in --help: a directory for the *_cache keys, else a word. */
static const char *value_word(const cfg_entry *e)
{
    size_t n = strlen(e->key);
    switch (e->type) {
    case CT_STRS:
        return "ADDR";
    case CT_STR:
        return n >= 6 && strcmp(e->key + n - 6, "_cache") == 0 ? "DIR" : "WORD";
    case CT_BOOL:
        return "[=BOOL]";
    case CT_SIZE:
        return "SIZE";
    case CT_DUR:
        return "DURATION";
    case CT_MODE:
        return "MODE";
    case CT_LEVEL:
        return "LEVEL";
    case CT_GPUS:
        return "auto|none|N,N";
    default:
        return "N";
    }
}

void srv_config_help(FILE *out, const char *argv0)
{
    fprintf(out,
            "usage: %s [--config FILE] [flags]\n\n"
            "Serves the cuzk.v1.ProvingEngine gRPC API (Curio's cuzk client works unchanged).\n"
            "Settings come from the built-in defaults, then the TOML file, then the flags.\n\n"
            "  -c, --config FILE           read settings from FILE (flags override it)\n"
            "  -h, --help                  show this help and exit\n"
            "      --version               show the version and exit\n"
            "      --print-config          print the effective settings as TOML and exit\n\n",
            argv0);
    for (size_t i = 0; i < NENTRIES; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        char flag[96], left[128];
        flag_name(e, flag, sizeof(flag));
        snprintf(left, sizeof(left), "--%s %s", flag, value_word(e));
        fprintf(out, "  %-36s %s\n", left, e->help);
        fprintf(out, "  %-36s file key %s; default %s", "", e->key, e->dflt);
        if (e->type == CT_U64) {
            fprintf(out, "; range %" PRIu64 "..%" PRIu64, e->min, e->max);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "\nAccepted in the file for compatibility with the Rust cuzk daemon, ignored:\n");
    for (size_t i = 0; i < NENTRIES; i++) {
        if (cfg_table[i].type == CT_IGNORED) {
            fprintf(out, "  %-34s %s\n", cfg_table[i].key, cfg_table[i].help);
        }
    }
}

static void print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void print_ms(FILE *out, uint64_t ms)
{
    if (ms % 3600000 == 0 && ms) {
        fprintf(out, "\"%" PRIu64 "h\"", ms / 3600000);
    } else if (ms % 60000 == 0 && ms) {
        fprintf(out, "\"%" PRIu64 "m\"", ms / 60000);
    } else if (ms % 1000 == 0) {
        fprintf(out, "\"%" PRIu64 "s\"", ms / 1000);
    } else {
        fprintf(out, "\"%" PRIu64 "ms\"", ms);
    }
}

void srv_config_print(FILE *out, const srv_config *cfg)
{
    const char *base = (const char *)cfg;
    char section[64] = "";

    for (size_t i = 0; i < NENTRIES; i++) {
        const cfg_entry *e = &cfg_table[i];
        if (e->type == CT_IGNORED) {
            continue;
        }
        const char *dot = strchr(e->key, '.');
        if ((size_t)(dot - e->key) != strlen(section) ||
            strncmp(section, e->key, (size_t)(dot - e->key)) != 0) {
            snprintf(section, sizeof(section), "%.*s", (int)(dot - e->key), e->key);
            fprintf(out, "%s[%s]\n", i ? "\n" : "", section);
        }
        fprintf(out, "%s = ", dot + 1);
        const void *field = base + e->off;
        switch (e->type) {
        case CT_STR:
        case CT_LEVEL:
            print_string(out, *(char *const *)field);
            break;
        case CT_STRS: {
            char *const *list = *(char **const *)field;
            size_t n = *(const size_t *)(const void *)(base + e->off + sizeof(char **));
            fputc('[', out);
            for (size_t k = 0; k < n; k++) {
                fprintf(out, "%s", k ? ", " : "");
                print_string(out, list[k]);
            }
            fputc(']', out);
            break;
        }
        case CT_BOOL:
            fprintf(out, "%s", *(const bool *)field ? "true" : "false");
            break;
        case CT_U64:
            fprintf(out, "%" PRIu64, *(const uint64_t *)field);
            break;
        case CT_SIZE: {
            uint64_t v = *(const uint64_t *)field;
            if (v == SRV_SIZE_AUTO) {
                fprintf(out, "\"auto\"");
            } else {
                fprintf(out, "%" PRIu64, v);
            }
            break;
        }
        case CT_DUR:
            print_ms(out, *(const uint64_t *)field);
            break;
        case CT_MODE:
            fprintf(out, "\"0%03" PRIo64 "\"", *(const uint64_t *)field);
            break;
        case CT_GPUS: {
            const srv_gpu_sel *sel = field;
            if (sel->mode == ENG_GPU_LIST) {
                fputc('[', out);
                for (size_t k = 0; k < sel->n; k++) {
                    fprintf(out, "%s%u", k ? ", " : "", sel->devices[k]);
                }
                fputc(']', out);
            } else {
                fprintf(out, "\"%s\"", sel->mode == ENG_GPU_NONE ? "none" : "auto");
            }
            break;
        }
        case CT_IGNORED:
            break;
        }
        fputc('\n', out);
    }
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
    if (!eng_gpu_stream_parse(&ecfg->gpu_streaming, cfg->gpu_streaming)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "gpus.streaming = \"%s\": expected \"auto\", \"always\" or \"never\"",
                       cfg->gpu_streaming);
    }
    return CUZK_OK;
}
