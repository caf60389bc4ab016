/* valgrind: whether a test runs under valgrind, and the share of its
 * random instances it runs there. Valgrind runs the library (CBC, the
 * reference scheduler) some 50x slower; it looks for memory errors, which
 * a few instances of each path show as well as many. It puts its preload
 * library in the client's LD_PRELOAD. */
#ifndef PIPEPLAN_TEST_VALGRIND_H
#define PIPEPLAN_TEST_VALGRIND_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool valgrind_running(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload");
}

/* n instances natively, n / share (at least one) under valgrind. */
static inline int valgrind_share(int n, int share)
{
    return valgrind_running() && share > 1 ? (n + share - 1) / share : n;
}

/* Whether instance j is left out under valgrind, which runs every
 * stride-th (stride prime to a grid's width crosses its rows and columns). */
static inline bool valgrind_skips(int j, int stride)
{
    return valgrind_running() && stride > 1 && j % stride != 0;
}

#endif
