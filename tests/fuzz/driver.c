/* driver.c - a main() for the fuzz targets when libFuzzer is not used (gcc, the default build):
 * runs LLVMFuzzerTestOneInput over every file of the corpus directories given on the command
 * line, then over deterministic pseudo-random mutations of them, bounded by a count and a time
 * budget, so that each target is a quick regression test in the normal suite.
 *
 *   fuzz_<name> [--iters N] [--max-ms MS] [--seed S] PATH...
 *
 * A PATH that is a directory contributes its regular files (in name order) to the corpus; a
 * PATH that is a file is run once. When every PATH is a file nothing is mutated (replay of a
 * reproducer, as with libFuzzer). Seeds named "ok-*" must be accepted by the target (it calls
 * fuzz_note_ok) and seeds named "bad-*" must not: a seed that changes side fails the test.
 * The mutations are a function of --seed (printed at start), so a failure replays exactly.
 * When the target aborts or crashes, the input is written to crash-<target>.bin in the current
 * directory (or $FUZZ_ARTIFACT_DIR) and its first bytes are dumped to stderr in hex.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/rand.h"

#if defined(__SANITIZE_ADDRESS__)
#    define DRIVER_ASAN 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
#        define DRIVER_ASAN 1
#    endif
#endif
#ifdef DRIVER_ASAN
#    include <sanitizer/common_interface_defs.h>
#endif

#define MAX_LEN (1u << 20) /* mutations never grow an input beyond 1 MiB */

typedef struct seed_file {
    char *path;
    uint8_t *data;
    size_t len;
} seed_file;

typedef struct corpus {
    seed_file *v;
    size_t n, cap;
} corpus;

/* What is running now, for the crash report. */
static const uint8_t *cur_data;
static size_t cur_len;
static const char *cur_what = "start-up";
static char cur_desc[256];
static char artifact[4096];

/* ---- crash reporting (async-signal-safe: write(2) only) ------------------------------------- */

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) {
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void report_crash(void)
{
    static const char hex[] = "0123456789abcdef";
    char line[2 * 32 + 2];
    int fd;

    put("fuzz driver: the target failed on ");
    put(cur_what);
    put(cur_desc);
    put("\n");
    if (!cur_data) {
        return;
    }
    fd = open(artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t left = cur_len;
        const uint8_t *p = cur_data;
        while (left > 0) {
            ssize_t w = write(fd, p, left);
            if (w <= 0) {
                break;
            }
            p += w;
            left -= (size_t)w;
        }
        close(fd);
        put("fuzz driver: input saved to ");
        put(artifact);
        put(" (replay: pass that file as the only argument)\n");
    }
    put("fuzz driver: input (hex, at most 512 bytes):\n");
    for (size_t off = 0; off < cur_len && off < 512; off += 32) {
        size_t k = 0;
        for (size_t i = off; i < cur_len && i < off + 32; i++) {
            line[k++] = hex[cur_data[i] >> 4];
            line[k++] = hex[cur_data[i] & 15];
        }
        line[k++] = '\n';
        line[k] = '\0';
        put(line);
    }
}

static void on_signal(int sig)
{
    report_crash();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    /* Under ASan the sanitizer owns SIGSEGV and friends and reports through its callback. */
#ifdef DRIVER_ASAN
    __sanitizer_set_death_callback(report_crash);
#else
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
#endif
    signal(SIGABRT, on_signal);
}

/* ---- corpus ---------------------------------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void corpus_add(corpus *c, const char *path)
{
    seed_file s;

    s.data = read_all(path, &s.len);
    if (!s.data) {
        fprintf(stderr, "fuzz driver: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    s.path = strdup(path);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->v = realloc(c->v, c->cap * sizeof(*c->v));
    }
    if (!s.path || !c->v) {
        fprintf(stderr, "fuzz driver: out of memory\n");
        exit(2);
    }
    c->v[c->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void corpus_add_dir(corpus *c, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;

    if (!d) {
        fprintf(stderr, "fuzz driver: cannot open %s: %s\n", dir, strerror(errno));
        exit(2);
    }
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            names = realloc(names, cap * sizeof(*names));
        }
        if (!names || !(names[n] = strdup(path))) {
            fprintf(stderr, "fuzz driver: out of memory\n");
            exit(2);
        }
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++) {
        corpus_add(c, names[i]);
        free(names[i]);
    }
    free(names);
}

/* ---- mutations ------------------------------------------------------------------------------- */

static const uint32_t INTERESTING32[] = {
    0,    1,    2,    3,     4,     7,          8,          16,         31,
    32,   48,   64,   96,    127,   128,        192,        255,        256,
    1023, 1024, 4096, 65535, 65536, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

/* Tokens of the text formats (JSON, TOML, base64) and of binary headers. */
static const char *const TOKENS[] = {
    "\"",
    "\\",
    "\\u",
    "\\u0000",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "=",
    "\n",
    "#",
    "'",
    "'''",
    "\"\"\"",
    "true",
    "false",
    "null",
    "0",
    "-1",
    "1e308",
    "0x",
    "0o",
    "0b",
    "_",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "GiB",
    "ms",
    "[daemon]",
    "[memory]",
    "[scheduler]",
    "\"Phase1Out\"",
    "\"SectorSize\"",
    "==",
    "=\"",
    "AAAA",
    "r1cs",
    "wtns",
};

static uint64_t below(cz_prng *g, uint64_t bound)
{
    return bound ? cz_prng_below(g, bound) : 0;
}

/* One mutation of buf[0 .. *len) in place (capacity MAX_LEN). */
static void mutate_once(uint8_t *buf, size_t *len, cz_prng *g, const corpus *c)
{
    size_t n = *len;
    unsigned op = (unsigned)below(g, 13);

    if (n == 0 && op < 5) {
        op = 9; /* nothing to modify in place: grow */
    }
    switch (op) {
    case 0: /* flip one bit */
        buf[below(g, n)] ^= (uint8_t)(1u << below(g, 8));
        break;
    case 1: /* one random byte */
        buf[below(g, n)] = (uint8_t)cz_prng_u64(g);
        break;
    case 2: { /* an interesting byte (flag patterns of the curve encodings among them) */
        static const uint8_t v[] = {0x00, 0x01, 0x20, 0x40, 0x7f, 0x80, 0xa0, 0xc0, 0xe0, 0xff};
        buf[below(g, n)] = v[below(g, sizeof(v))];
        break;
    }
    case 3: { /* an interesting 32-bit value, LE or BE, or the length +- a little */
        size_t at;
        uint32_t v = INTERESTING32[below(g, ARRAY_LEN(INTERESTING32))];
        if (n < 4) {
            break;
        }
        if (below(g, 4) == 0) {
            v = (uint32_t)(n + below(g, 5) - 2);
        }
        at = below(g, n - 3);
        if (below(g, 2)) {
            cz_store_le32(buf + at, v);
        } else {
            cz_store_be32(buf + at, v);
        }
        break;
    }
    case 4: { /* add or subtract a small amount to one byte */
        size_t at = below(g, n);
        buf[at] =
            (uint8_t)(buf[at] + (uint8_t)(below(g, 2) ? 1 + below(g, 8) : 256 - 1 - below(g, 8)));
        break;
    }
    case 5: { /* delete a run */
        size_t run, at;
        if (n == 0) {
            break;
        }
        run = 1 + below(g, below(g, 4) == 0 ? n : (n < 16 ? n : 16));
        at = below(g, n - run + 1);
        memmove(buf + at, buf + at + run, n - at - run);
        *len = n - run;
        break;
    }
    case 6: { /* truncate */
        *len = below(g, n + 1);
        break;
    }
    case 7: { /* copy a chunk over another place */
        size_t run, from, to;
        if (n < 2) {
            break;
        }
        run = 1 + below(g, n / 2);
        from = below(g, n - run + 1);
        to = below(g, n - run + 1);
        memmove(buf + to, buf + from, run);
        break;
    }
    case 8: { /* splice: the tail of another seed after a random point */
        const seed_file *o;
        size_t at, from, take;
        if (c->n == 0) {
            break;
        }
        o = &c->v[below(g, c->n)];
        at = below(g, n + 1);
        from = below(g, o->len + 1);
        take = o->len - from;
        if (at + take > MAX_LEN) {
            take = MAX_LEN - at;
        }
        memcpy(buf + at, o->data + from, take);
        *len = at + take;
        break;
    }
    case 9: { /* insert random bytes or a repeated byte */
        size_t run = 1 + below(g, below(g, 4) == 0 ? 256 : 8), at = below(g, n + 1);
        if (n + run > MAX_LEN) {
            break;
        }
        memmove(buf + at + run, buf + at, n - at);
        if (below(g, 2)) {
            cz_prng_bytes(g, buf + at, run);
        } else {
            memset(buf + at, (int)(uint8_t)cz_prng_u64(g), run);
        }
        *len = n + run;
        break;
    }
    case 10: { /* insert a token */
        const char *t = TOKENS[below(g, ARRAY_LEN(TOKENS))];
        size_t tl = strlen(t), at = below(g, n + 1);
        if (n + tl > MAX_LEN) {
            break;
        }
        memmove(buf + at + tl, buf + at, n - at);
        memcpy(buf + at, t, tl);
        *len = n + tl;
        break;
    }
    case 11: { /* duplicate a chunk in place (grows repeated structures) */
        size_t run, from, at;
        if (n == 0) {
            break;
        }
        run = 1 + below(g, n < 256 ? n : 256);
        from = below(g, n - run + 1);
        at = below(g, n + 1);
        if (at > n || n - at > MAX_LEN || n + run > MAX_LEN) {
            break;
        }
        memmove(buf + at + run, buf + at, n - at);
        memmove(buf + at, buf + (from < at ? from : from + run), run);
        *len = n + run;
        break;
    }
    default: { /* overwrite a run with random bytes */
        size_t run, at;
        if (n == 0) {
            break;
        }
        run = 1 + below(g, n < 48 ? n : 48);
        at = below(g, n - run + 1);
        cz_prng_bytes(g, buf + at, run);
        break;
    }
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void run_one(const uint8_t *data, size_t len)
{
    cur_data = data;
    cur_len = len;
    (void)LLVMFuzzerTestOneInput(data, len);
    cur_data = NULL;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--iters N] [--max-ms MS] [--seed S] DIR|FILE...\n", argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t iters = 10000, max_ms = 1500, seed = 0x63757a6b;
    bool have_dir = false;
    const char *dir = getenv("FUZZ_ARTIFACT_DIR");
    corpus c = {0};
    unsigned failures = 0;
    uint8_t *buf;
    double t0;
    uint64_t done = 0, accepted0;
    cz_prng g;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            iters = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--max-ms") == 0 && i + 1 < argc) {
            max_ms = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (argv[i][0] == '-') {
            usage(argv[0]);
        } else {
            struct stat st;
            if (stat(argv[i], &st) != 0) {
                fprintf(stderr, "fuzz driver: %s: %s\n", argv[i], strerror(errno));
                return 2;
            }
            if (S_ISDIR(st.st_mode)) {
                corpus_add_dir(&c, argv[i]);
                have_dir = true;
            } else {
                corpus_add(&c, argv[i]);
            }
        }
    }
    snprintf(artifact, sizeof(artifact), "%s%scrash-%s.bin", dir ? dir : "", dir ? "/" : "",
             base_name(argv[0]));
    install_handlers();
    printf("%s: seed=%" PRIu64 " corpus=%zu files\n", base_name(argv[0]), seed, c.n);
    fflush(stdout);

    /* The seeds themselves, with their expected outcome. */
    for (size_t i = 0; i < c.n; i++) {
        const char *name = base_name(c.v[i].path);
        uint64_t before = fuzz_ok_count();
        cur_what = "seed file ";
        snprintf(cur_desc, sizeof(cur_desc), "%s", c.v[i].path);
        run_one(c.v[i].data, c.v[i].len);
        bool ok = fuzz_ok_count() != before;
        if (strncmp(name, "ok-", 3) == 0 && !ok) {
            fprintf(stderr, "FAIL: seed %s should be accepted but was rejected\n", c.v[i].path);
            failures++;
        } else if (strncmp(name, "bad-", 4) == 0 && ok) {
            fprintf(stderr, "FAIL: seed %s should be rejected but was accepted\n", c.v[i].path);
            failures++;
        }
    }
    if (!have_dir) {
        printf("%s: replayed %zu files, %u failures\n", base_name(argv[0]), c.n, failures);
        return failures ? 1 : 0;
    }

    /* Deterministic mutations of them, within the budget. */
    buf = malloc(MAX_LEN);
    if (!buf) {
        return 2;
    }
    cz_prng_seed(&g, seed);
    accepted0 = fuzz_ok_count();
    t0 = now_ms();
    cur_what = "mutation ";
    for (uint64_t it = 0; it < iters; it++) {
        size_t len = 0;
        if (c.n > 0 && below(&g, 16) != 0) {
            const seed_file *s = &c.v[below(&g, c.n)];
            len = s->len < MAX_LEN ? s->len : MAX_LEN;
            memcpy(buf, s->data, len);
        } else {
            len = below(&g, 200);
            cz_prng_bytes(&g, buf, len);
        }
        for (uint64_t k = 1 + below(&g, 4); k > 0; k--) {
            mutate_once(buf, &len, &g, &c);
        }
        snprintf(cur_desc, sizeof(cur_desc), "%" PRIu64 " (--seed %" PRIu64 ")", it, seed);
        run_one(buf, len);
        done++;
        if ((it & 15) == 15 && now_ms() - t0 > (double)max_ms) {
            break;
        }
    }
    printf("%s: %" PRIu64 " mutations in %.0f ms, %" PRIu64 " accepted; %u seed failures\n",
           base_name(argv[0]), done, now_ms() - t0, fuzz_ok_count() - accepted0, failures);
    free(buf);
    for (size_t i = 0; i < c.n; i++) {
        free(c.v[i].path);
        free(c.v[i].data);
    }
    free(c.v);
    return failures ? 1 : 0;
}
