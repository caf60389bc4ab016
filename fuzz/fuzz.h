/* fuzz: what the libFuzzer harnesses share. Each harness feeds its input
 * to one reader of untrusted text the way the program does, then checks
 * what must hold of a success (a failed property is an abort, which
 * libFuzzer reports as a crash). */
#ifndef PIPEPLAN_FUZZ_H
#define PIPEPLAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (the readers take text; the program reads
 * files whole and stops at a NUL the same way). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A property that must hold: report and abort. */
#define FUZZ_ASSERT(cond, ...) do {                                         \
        if (!(cond)) {                                                      \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            abort();                                                        \
        }                                                                   \
    } while (0)

#endif
