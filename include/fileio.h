/* fileio: whole-file reads and atomic writes (temp file + rename). */
#ifndef PIPEPLAN_FILEIO_H
#define PIPEPLAN_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Read a whole file into a NUL-terminated buffer (caller frees). Returns
 * NULL with "PATH: reason" in err. A file holding a NUL byte is refused
 * with "PATH:LINE: a NUL byte (expected a text file)". Regular files and
 * pipes only: a directory or a device is refused, and a FIFO nobody
 * writes to reads as empty (nothing waits). */
char *fileio_read(const char *path, size_t *len, char *err, size_t errlen);

/* Called with a stream on the temporary file; returns 0 or -1. */
typedef int (*fileio_writer)(FILE *out, void *ctx);

/* Write PATH atomically: the writer fills a temporary file in the same
 * directory, which is flushed, synced and renamed over PATH only when
 * everything succeeded; on any failure the temporary is removed and PATH
 * is untouched. Unless `force`, an existing PATH is an error. An existing
 * PATH that is a device or a FIFO is written in place (a FIFO nobody
 * reads is an error, not a wait). Returns 0,
 * or -1 with "PATH: reason" in err. */
int fileio_write_atomic(const char *path, bool force, fileio_writer writer,
                        void *ctx, char *err, size_t errlen);

/* Whether fileio_write_atomic() would write PATH: not "" nor a
 * directory, not an existing file unless `force`, and its temporary file
 * can be created beside it (a device or a FIFO is written in place: not
 * tried), so that a command can refuse an output before its work. Returns
 * 0, or -1 with "PATH: reason" in err; leaves nothing behind. */
int fileio_probe(const char *path, bool force, char *err, size_t errlen);

#endif
