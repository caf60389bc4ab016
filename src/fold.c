/* fold: baselines' splits into 2P stages folded onto P GPUs in a V
 * (fold.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "fold.h"

/* Stage q of 2P on its GPU: down the GPUs, then back up. */
static int fold_gpu(int q, int P)
{
    return q < P ? q : 2 * P - 1 - q;
}

/* The early stage's shares of its GPU's room, the late one has the rest. */
static const double FOLD_SHARES[] = { 1.0 / 2, 2.0 / 3, 5.0 / 6 };
#define NSHARES (int)(sizeof FOLD_SHARES / sizeof FOLD_SHARES[0])

/* With unequal rooms both baselines split once per stage count, about
 * (2P)^2 L cells each time (the even share needs one pass): past this the
 * uneven shares are left out (5,000 layers on 64 GPUs: 82 M, and the
 * folds took 170 s, uncounted by a work limit). */
#define FOLD_UNEVEN_CELLS 1e7

/* pb on 2P GPUs, stage q's with its share of the room of its GPU in the
 * fold (the reserve is whole for each: both stages run in one process). */
static struct problem *fold_problem(const struct problem *pb, double early)
{
    int P2 = 2 * pb->P;
    struct problem *fp = problem_on_gpus(pb, P2);
    if (!fp)
        return NULL;
    fp->layout = LAYOUT_CONTIGUOUS;
    for (int q = 0; q < P2; q++) {
        int p = fold_gpu(q, pb->P);
        double room = pb->cap[p] > pb->reserved[p] ? pb->cap[p] - pb->reserved[p] : 0;
        fp->reserved[q] = pb->reserved[p];
        fp->cap[q] = pb->reserved[p] + room * (q < pb->P ? early : 1 - early);
    }
    return fp;
}

int fold_allocations(const struct problem *pb, int *gpu)
{
    return fold_allocations_until(pb, gpu, NULL, NULL);
}

int fold_allocations_until(const struct problem *pb, int *gpu,
                           bool (*stop)(const void *), const void *ctx)
{
    if (!pb || !gpu || pb->P < 1 || pb->L < 1)
        return -1;
    int L = pb->L, P = pb->P;
    if (pb->layout != LAYOUT_ANY || P < 2 || L < 2 * P)
        return 0;
    int *stage = malloc((size_t)L * sizeof *stage);
    if (!stage)
        return -1;
    int n = 0;
    double cells = 4.0 * P * P * L;
    for (int h = 0; h < NSHARES && n >= 0 && !(stop && stop(ctx)); h++) {
        if (FOLD_SHARES[h] != 0.5 && cells > FOLD_UNEVEN_CELLS)
            break;
        struct problem *fp = fold_problem(pb, FOLD_SHARES[h]);
        for (int k = 0; k < 2 && n >= 0 && !(stop && stop(ctx)); k++) {
            int rc = !fp ? -1 : k == 0 ? baseline_pipedream_allocation(fp, stage)
                                       : baseline_dp_allocation_until(fp, stage, NULL, stop, ctx);
            if (rc == -1)
                n = -1;
            /* 0: nothing fits by its rule (the time split), no fold; stopped
             * inside (2, -2): its split is not the DP's, no fold either */
            if (rc != 1)
                continue;
            int *g = gpu + (size_t)n * L;
            for (int i = 0; i < L; i++)
                g[i] = fold_gpu(stage[i], P);
            bool seen = false;
            for (int j = 0; j < n && !seen; j++)
                seen = memcmp(gpu + (size_t)j * L, g, (size_t)L * sizeof *g) == 0;
            if (!seen)
                n++;
        }
        problem_free(fp);
    }
    free(stage);
    return n;
}
