/* plan: allocation + periodic schedule, and the memory model of
 * doc/model.md sections 3 and 4 applied to them. */
#include "plan.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct plan *plan_new(int L, int P)
{
    if (L < 1 || P < 1)
        return NULL;
    struct plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    size_t l = (size_t)L;
    pl->L = L;
    pl->P = P;
    pl->gpu = calloc(l, sizeof *pl->gpu);
    pl->start = calloc(2 * l, sizeof *pl->start);
    pl->inflight = calloc(l, sizeof *pl->inflight);
    pl->copies = calloc(l, sizeof *pl->copies);
    pl->versions = calloc(l, sizeof *pl->versions);
    pl->gpus = calloc((size_t)P, sizeof *pl->gpus);
    if (!pl->gpu || !pl->start || !pl->inflight || !pl->copies ||
        !pl->versions || !pl->gpus) {
        plan_free(pl);
        return NULL;
    }
    return pl;
}

void plan_free(struct plan *pl)
{
    if (!pl)
        return;
    free(pl->gpu);
    free(pl->start);
    free(pl->inflight);
    free(pl->copies);
    free(pl->versions);
    free(pl->gpus);
    free(pl);
}

struct plan *plan_copy(const struct plan *pl)
{
    struct plan *cp = plan_new(pl->L, pl->P);
    if (!cp)
        return NULL;
    size_t l = (size_t)pl->L;
    /* Keep the new arrays, take every scalar. */
    struct plan keep = *cp;
    *cp = *pl;
    cp->gpu = keep.gpu;
    cp->start = keep.start;
    cp->inflight = keep.inflight;
    cp->copies = keep.copies;
    cp->versions = keep.versions;
    cp->gpus = keep.gpus;
    memcpy(cp->gpu, pl->gpu, l * sizeof *cp->gpu);
    memcpy(cp->start, pl->start, 2 * l * sizeof *cp->start);
    memcpy(cp->inflight, pl->inflight, l * sizeof *cp->inflight);
    memcpy(cp->copies, pl->copies, l * sizeof *cp->copies);
    memcpy(cp->versions, pl->versions, l * sizeof *cp->versions);
    memcpy(cp->gpus, pl->gpus, (size_t)pl->P * sizeof *cp->gpus);
    return cp;
}

int plan_inflight_count(double lifetime, double T)
{
    if (!(T > 0.0) || !(lifetime > 0.0))
        return 1;
    /* The tolerance keeps 12/6 at 2 when rounding makes it 2.0000000001. */
    double n = ceil(lifetime / T - PLAN_EPS);
    if (n < 1.0)
        return 1;
    if (n > (double)INT_MAX)
        return INT_MAX;
    return (int)n;
}

int plan_evaluate(struct plan *pl, const struct problem *pb)
{
    int L = pl->L, P = pl->P;
    if (L != pb->L || P != pb->P)
        return -1;
    for (int i = 0; i < L; i++)
        if (pl->gpu[i] < 0 || pl->gpu[i] >= P)
            return -1;

    memset(pl->gpus, 0, (size_t)P * sizeof *pl->gpus);
    for (int i = 0; i < L; i++) {
        struct plan_gpu *g = &pl->gpus[pl->gpu[i]];
        g->load_ms += pb->f[i] + pb->b[i];

        double life = pl->start[L + i] + pb->b[i] - pl->start[i];
        int n = plan_inflight_count(life, pl->T);
        pl->inflight[i] = n;
        if (pb->schedule == SPEC_SCHEDULE_PIPEDREAM) {
            pl->copies[i] = n;
            pl->versions[i] = n;
        } else {
            pl->copies[i] = pb->m < n ? (int)pb->m : n;
            pl->versions[i] = 1;
        }
        g->weights += (pb->phi + pl->versions[i] - 1) * pb->w[i];
        g->activations += pb->s[i] * pl->copies[i];

        if (i < L - 1 && pl->gpu[i] != pl->gpu[i + 1]) {
            /* The activation goes forward and its gradient comes back, so
             * each side both sends and receives c_i per period. */
            struct plan_gpu *h = &pl->gpus[pl->gpu[i + 1]];
            g->send_ms += pb->c[i];
            g->recv_ms += pb->c[i];
            h->send_ms += pb->c[i];
            h->recv_ms += pb->c[i];
            g->buffers += 2.0 * pb->a[i];
            h->buffers += 2.0 * pb->a[i];
        }
    }

    pl->fits = true;
    pl->peak_memory = 0.0;
    pl->peak_gpu = 0;
    double worst = -INFINITY;
    for (int p = 0; p < P; p++) {
        struct plan_gpu *g = &pl->gpus[p];
        g->reserved = pb->reserved[p];
        g->cap = pb->cap[p];
        g->total = g->weights + g->activations + g->buffers + g->reserved;
        if (g->total > g->cap)
            pl->fits = false;
        if (g->total > pl->peak_memory)
            pl->peak_memory = g->total;
        if (g->total - g->cap > worst) {
            worst = g->total - g->cap;
            pl->peak_gpu = p;
        }
    }

    pl->latency = pl->start[L] + pb->b[0] - pl->start[0];
    /* doc/model.md section 10.2: a flushed mini-batch drains the pipeline,
     * an asynchronous one never does and ends every m periods */
    if (pb->schedule == SPEC_SCHEDULE_PIPEDREAM) {
        pl->iteration = (double)pb->m * pl->T;
        pl->objective = pl->T;
    } else {
        pl->iteration = (double)(pb->m - 1) * pl->T + pl->latency;
        pl->objective = pl->iteration;
    }
    /* a network with no time at all: no rate to give */
    pl->throughput = pl->iteration > 0.0
                   ? (double)pb->m * (double)pb->micro_batch * 1000.0 / pl->iteration
                   : NAN;
    return 0;
}

int plan_gpus_used(const struct plan *pl)
{
    unsigned char *seen = calloc((size_t)pl->P, 1);
    if (!seen)
        return -1;
    int used = 0;
    for (int i = 0; i < pl->L; i++) {
        int p = pl->gpu[i];
        if (p >= 0 && p < pl->P && !seen[p]) {
            seen[p] = 1;
            used++;
        }
    }
    free(seen);
    return used;
}

int plan_second_run(const int *gpu, int L, int P)
{
    unsigned char *seen = calloc((size_t)P, 1);
    if (!seen)
        return -1;
    int at = L;
    for (int i = 0; i < L && at == L; i++) {
        int p = gpu[i];
        if (p < 0 || p >= P)
            at = -1;
        else if (i > 0 && p == gpu[i - 1])
            continue;
        else if (seen[p])
            at = i;
        else
            seen[p] = 1;
    }
    free(seen);
    return at;
}

bool plan_is_contiguous(const struct plan *pl)
{
    return plan_second_run(pl->gpu, pl->L, pl->P) == pl->L;
}

const char *plan_status_name(enum plan_status s)
{
    switch (s) {
    case PLAN_OPTIMAL: return "optimal";
    case PLAN_FEASIBLE: return "feasible";
    case PLAN_NO_FIT: return "no_fit";
    case PLAN_INFEASIBLE: return "infeasible";
    case PLAN_TIMEOUT: return "timeout";
    case PLAN_BLOCK_OPTIMAL: return "block_optimal";
    case PLAN_RUNNING: return "running";
    default: return "error";
    }
}
