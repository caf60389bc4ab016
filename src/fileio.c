/* fileio: whole-file reads and atomic writes. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILEIO_MAX_BYTES ((size_t)1 << 30)

/* Whether the first bytes read (len of them) are UTF-16 (Windows'
 * "Unicode"): a byte-order mark, or two ASCII characters each beside a 0. */
static bool utf16(const unsigned char *u, size_t len)
{
    if (len >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff)))
        return true;
    if (len < 4)
        return false;
    bool le = u[1] == 0 && u[3] == 0 && u[0] && u[0] < 0x80 && u[2] && u[2] < 0x80;
    bool be = u[0] == 0 && u[2] == 0 && u[1] && u[1] < 0x80 && u[3] && u[3] < 0x80;
    return le || be;
}

/* Report the line of the first NUL byte: FILE:LINE like every other error
 * in a text file (end: the end of what was read). */
static void nul_error(const char *path, const char *buf, const char *nul, const char *end,
                      char *err, size_t errlen)
{
    long line = 1;
    for (const char *p = buf; p < nul; p++)
        line += *p == '\n';
    if (utf16((const unsigned char *)buf, (size_t)(end - buf)))
        snprintf(err, errlen, "%s:1: UTF-16 text (expected UTF-8: save the file as UTF-8)",
                 path);
    else
        snprintf(err, errlen, "%s:%ld: a NUL byte (expected a text file)", path, line);
}

char *fileio_read(const char *path, size_t *len, char *err, size_t errlen)
{
    if (!*path) {
        snprintf(err, errlen, "'': an empty file name (expected the path of a file)");
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO without a writer must not wait for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory (expected a file)", path);
        close(fd);
        return NULL;
    }
    /* a device (/dev/zero, a terminal) may never end: files and pipes only */
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s: is a device (expected a file)", path);
        close(fd);
        return NULL;
    }
    /* a pipe with a writer is read to its end; without one it is empty */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
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
            /* one byte past 1 GiB is enough to tell: no more (an endless
             * pipe grew the buffer to 2 GiB before) */
            if (n > FILEIO_MAX_BYTES) {
                snprintf(err, errlen, "%s: file too large (over 1 GiB)", path);
                goto fail;
            }
            size_t want = cap * 2 > FILEIO_MAX_BYTES + 2 ? FILEIO_MAX_BYTES + 2 : cap * 2;
            char *nb = realloc(buf, want);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
            cap = want;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        /* binary data (a pipe from /dev/urandom) stops at its first NUL */
        const char *nul = memchr(buf + n, '\0', got);
        if (nul) {
            nul_error(path, buf, nul, buf + n + got, err, errlen);
            goto fail;
        }
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    buf[n] = '\0';
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
 * rename and ERROR one of enospc, eio, erofs, enoent, makes every atomic
 * write fail at that step with that error, as a full, failing or read-only
 * disk, or a directory that makes no files (/proc), would
 * (tests/faults.sh). The errno for `step`, 0 for none. */
static int fileio_fault(const char *step)
{
    const char *f = getenv("PIPEPLAN_FAULT");
    size_t n = strlen(step);
    if (!f || strncmp(f, step, n) != 0 || f[n] != '-')
        return 0;
    f += n + 1;
    return strcmp(f, "enospc") == 0 ? ENOSPC : strcmp(f, "eio") == 0 ? EIO
           : strcmp(f, "erofs") == 0 ? EROFS : strcmp(f, "enoent") == 0 ? ENOENT : 0;
}

static int write_in_place(const char *path, fileio_writer writer, void *ctx, char *err,
                          size_t errlen)
{
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path,
                 errno == ENXIO ? "nothing reads from it" : strerror(errno));
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *out = fdopen(fd, "w");
    if (!out) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    int rc = writer(out, ctx);
    if (rc == 0 && fflush(out) != 0)
        rc = -1;
    int saved = errno;
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "%s: write failed: %s", path,
                 saved ? strerror(saved) : "error while writing");
    return rc;
}

/* What no write can go to, whatever --force says: "" and a directory. */
static int unwritable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!*path) {
        snprintf(err, errlen, "an empty file name (expected a file to write)");
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: a directory (expected a file name)", path);
        return -1;
    }
    return 0;
}

/* A temporary file beside path (same directory, so rename() is atomic):
 * its name into *tmp (caller frees), the descriptor returned; -1 with
 * "PATH: reason" in err. */
static int temp_create(const char *path, char **tmp, char *err, size_t errlen)
{
    size_t n = strlen(path);
    *tmp = malloc(n + 16);
    if (!*tmp) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* mkstemp fills the six Xs */
    snprintf(*tmp, n + 16, "%s.tmp", path);
    memset(*tmp + n + 4, 'X', 6);
    (*tmp)[n + 10] = '\0';
    int fault = fileio_fault("create");
    int fd = fault ? -1 : mkstemp(*tmp);
    if (fd >= 0)
        return fd;
    int e = fault ? fault : errno;
    char *copy = e == ENOENT ? strdup(path) : NULL;
    const char *dir = copy ? dirname(copy) : NULL;
    struct stat st;
    if (dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        /* the one reason a user can act on: say which directory */
        snprintf(err, errlen, "%s: cannot write: no directory %s (expected an existing one)",
                 path, dir);
    else if (dir)
        /* there, but it makes no files (/proc says ENOENT) */
        snprintf(err, errlen, "%s: cannot write: %s takes no new files", path, dir);
    else
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(e));
    free(copy);
    free(*tmp);
    *tmp = NULL;
    return -1;
}

/* How path is written: 1 in place (a device or a pipe, /dev/null or a
 * FIFO, with or without --force: nothing is replaced, and renaming a file
 * over it would replace the device itself), 0 through a temporary file,
 * -1 not at all (why in err). */
static int output_way(const char *path, bool force, char *err, size_t errlen)
{
    struct stat st;
    if (unwritable(path, err, errlen) < 0)
        return -1;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return 1;
    if (!force && lstat(path, &st) == 0) {
        snprintf(err, errlen, "%s: already exists (use --force to overwrite)", path);
        return -1;
    }
    return 0;
}

int fileio_probe(const char *path, bool force, char *err, size_t errlen)
{
    int way = output_way(path, force, err, errlen);
    if (way != 0)
        return way < 0 ? -1 : 0;
    char *tmp;
    int fd = temp_create(path, &tmp, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(tmp);
    free(tmp);
    return 0;
}

static int write_through_temp(const char *path, bool force, fileio_writer writer,
                              void *ctx, char *err, size_t errlen);

int fileio_write_atomic(const char *path, bool force, fileio_writer writer,
                        void *ctx, char *err, size_t errlen)
{
    int way = output_way(path, force, err, errlen);
    if (way < 0)
        return -1;
    if (way == 1)
        return write_in_place(path, writer, ctx, err, errlen);
    /* Ctrl-C, a kill or a hang-up while the temporary file exists would
     * leave it behind: held until it is renamed or removed, they then
     * act as they would have (the file is whole or absent, never half) */
    sigset_t held, old;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigaddset(&held, SIGHUP);
    sigaddset(&held, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &held, &old);
    int rc = write_through_temp(path, force, writer, ctx, err, errlen);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static int write_through_temp(const char *path, bool force, fileio_writer writer,
                              void *ctx, char *err, size_t errlen)
{
    struct stat st;
    char *tmp;
    int fd = temp_create(path, &tmp, err, errlen);
    if (fd < 0)
        return -1;
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
    int fault = fileio_fault("write");
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
