/* sha256: the SHA-256 digest (FIPS 180-4) of a buffer, for naming the
 * inputs of a sweep in its CSV header. Pure C, no I/O. */
#ifndef PIPEPLAN_SHA256_H
#define PIPEPLAN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN 65    /* 64 hex digits and the NUL */

struct sha256 {
    uint32_t h[8];
    uint64_t bytes;          /* message length so far */
    unsigned char block[64];
    size_t used;             /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* The digest as 32 bytes; s must be initialised again before reuse. */
void sha256_final(struct sha256 *s, unsigned char digest[32]);
/* The digest of one buffer as lower-case hex (what sha256sum prints). */
char *sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN]);

#endif
