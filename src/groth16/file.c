/* file.c - read-only whole-file mappings and whole-file writes for the groth16 file formats. */
#include "groth16/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cuzk_err g16_file_map(g16_file_t *f, const char *path, cz_diag *dg)
{
    struct stat st;
    int fd;

    memset(f, 0, sizeof(*f));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return cz_fail(dg, CUZK_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cz_fail(dg, CUZK_E_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cz_fail(dg, CUZK_E_IO, "%s: not a regular file", path);
    }
    if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cz_fail(dg, CUZK_E_IO, "%s: cannot map: %s", path, strerror(e));
        }
        (void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
        f->map = m;
        f->map_len = (size_t)st.st_size;
        f->data = m;
        f->len = (size_t)st.st_size;
    }
    close(fd);
    return CUZK_OK;
}

void g16_file_unmap(g16_file_t *f)
{
    if (f && f->map) {
        munmap(f->map, f->map_len);
    }
    if (f) {
        memset(f, 0, sizeof(*f));
    }
}

cuzk_err g16_file_write(const char *path, const void *data, size_t len, cz_diag *dg)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        return cz_fail(dg, CUZK_E_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    if ((len > 0 && fwrite(data, 1, len, fp) != len) || fflush(fp) != 0) {
        int e = errno;
        fclose(fp);
        remove(path);
        return cz_fail(dg, CUZK_E_IO, "%s: write failed: %s", path, strerror(e));
    }
    if (fclose(fp) != 0) {
        int e = errno;
        remove(path);
        return cz_fail(dg, CUZK_E_IO, "%s: close failed: %s", path, strerror(e));
    }
    return CUZK_OK;
}

void g16_diag_prefix(cz_diag *dg, const char *path)
{
    char tmp[sizeof(dg->msg)];

    if (!dg) {
        return;
    }
    /* A message cut at the buffer's end still names the file first. */
    if (snprintf(tmp, sizeof(tmp), "%s: %s", path, dg->msg) < 0) {
        return;
    }
    memcpy(dg->msg, tmp, sizeof(tmp));
}
