/* fileio: whole-file reads and atomic writes. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fileio_read(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory (expected a file)", path);
        fclose(f);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > ((size_t)1 << 30)) {
                snprintf(err, errlen, "%s: file too large (over 1 GiB)", path);
                goto fail;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    buf[n] = '\0';
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        /* FILE:LINE like every other error in a text file */
        long line = 1;
        for (const char *p = buf; p < nul; p++)
            line += *p == '\n';
        snprintf(err, errlen, "%s:%ld: a NUL byte (expected a text file)", path, line);
        goto fail;
    }
    fclose(f);
    if (len)
        *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* Test hook: PIPEPLAN_FAULT=STEP-ERROR, STEP one of create, write,
 * rename and ERROR one of enospc, eio, erofs, makes every atomic write
 * fail at that step with that error, as a full, failing or read-only disk
 * would (tests/faults.sh). The errno for `step`, 0 for none. */
static int fileio_fault(const char *step)
{
    const char *f = getenv("PIPEPLAN_FAULT");
    size_t n = strlen(step);
    if (!f || strncmp(f, step, n) != 0 || f[n] != '-')
        return 0;
    f += n + 1;
    return strcmp(f, "enospc") == 0 ? ENOSPC : strcmp(f, "eio") == 0 ? EIO
           : strcmp(f, "erofs") == 0 ? EROFS : 0;
}

int fileio_write_atomic(const char *path, bool force, fileio_writer writer,
                        void *ctx, char *err, size_t errlen)
{
    struct stat st;
    if (!force && lstat(path, &st) == 0) {
        snprintf(err, errlen, "%s: already exists (use --force to overwrite)", path);
        return -1;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* same directory, so rename() is atomic; mkstemp fills the six Xs */
    snprintf(tmp, n + 16, "%s.tmp", path);
    memset(tmp + n + 4, 'X', 6);
    tmp[n + 10] = '\0';
    int fault = fileio_fault("create");
    int fd = fault ? -1 : mkstemp(tmp);
    if (fault)
        errno = fault;
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    fchmod(fd, 0644);
    FILE *out = fdopen(fd, "w");
    if (!out) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    int rc = writer(out, ctx);
    if (rc == 0 && fflush(out) != 0)
        rc = -1;
    fault = fileio_fault("write");
    if (rc == 0 && fault) {
        rc = -1;
        errno = fault;
    }
    if (rc == 0 && fsync(fileno(out)) != 0)
        rc = -1;
    int saved = errno;
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && !force && lstat(path, &st) == 0) {
        snprintf(err, errlen, "%s: appeared while writing (use --force to overwrite)", path);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    fault = fileio_fault("rename");
    if (rc == 0 && (fault || rename(tmp, path) != 0)) {
        rc = -1;
        saved = fault ? fault : errno;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: write failed: %s", path,
                 saved ? strerror(saved) : "error while writing");
        unlink(tmp);
    }
    free(tmp);
    return rc;
}
