/* fuzz_util.c - the helpers of fuzz.h, linked into every target in both build modes. */
#include "fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"

static uint64_t ok_count;
static char tmp_in[4000];
static char tmp_out[4096];

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "fuzz check failed: %s:%d: %s\n", file, line, what);
    fflush(stderr);
    abort();
}

void fuzz_note_ok(void)
{
    ok_count++;
}

uint64_t fuzz_ok_count(void)
{
    return ok_count;
}

size_t fuzz_live_bytes(void)
{
    return cz_alloc_live();
}

static void remove_tmp(void)
{
    if (tmp_in[0]) {
        unlink(tmp_in);
    }
    if (tmp_out[0]) {
        unlink(tmp_out);
    }
}

static void make_tmp(void)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    if (tmp_in[0]) {
        return;
    }
    if (!dir || !dir[0]) {
        /* tmpfs when there is one: rewriting a file on a disk mounted with online discard
         * costs milliseconds per input */
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    }
    snprintf(tmp_in, sizeof(tmp_in), "%s/cuzk-fuzz-XXXXXX", dir);
    fd = mkstemp(tmp_in);
    if (fd < 0) {
        tmp_in[0] = '\0';
        fuzz_fail(__FILE__, __LINE__, "mkstemp (set TMPDIR to a writable directory)");
    }
    close(fd);
    snprintf(tmp_out, sizeof(tmp_out), "%s.out", tmp_in);
    atexit(remove_tmp);
}

const char *fuzz_write_tmp(const uint8_t *data, size_t n)
{
    int fd;

    make_tmp();
    fd = open(tmp_in, O_WRONLY | O_TRUNC);
    FUZZ_CHECK(fd >= 0);
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        FUZZ_CHECK(w > 0);
        data += w;
        n -= (size_t)w;
    }
    FUZZ_CHECK(close(fd) == 0);
    return tmp_in;
}

const char *fuzz_tmp_out_path(void)
{
    make_tmp();
    return tmp_out;
}

uint8_t *fuzz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    *len = 0;
    if (!f) {
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            uint8_t *nb = cz_realloc(buf, ncap);
            if (!nb) {
                cz_free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        cz_free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}
