/* plan: an allocation (layer -> GPU) plus a periodic schedule, and the
 * figures derived from them with the memory model of doc/model.md section 3.
 * Pure C, no I/O. */
#ifndef PIPEPLAN_PLAN_H
#define PIPEPLAN_PLAN_H

#include <stdbool.h>
#include "problem.h"

/* Tolerance for comparing times (ms) computed in floating point. */
#define PLAN_EPS 1e-6

struct plan_gpu {
    double load_ms;          /* sum of f+b of its layers */
    double send_ms, recv_ms; /* per-period transfer load of its cuts */
    double weights;          /* sum (phi + v_i - 1) * w_i */
    double activations;      /* sum s_i * u_i */
    double buffers;          /* sum over cuts touching it of 2 * a_i */
    double reserved;
    double total;            /* sum of the four above */
    double cap;
};

struct plan {
    int L, P;
    int *gpu;                /* [L] allocation */
    double T;                /* period, ms */
    double *start;           /* [2L] start of op o for micro-batch 0, ms:
                                o < L is F_o, o >= L is B_{o-L}; start[0] = 0 */
    /* derived by plan_evaluate() */
    int *inflight;           /* [L] n_i = ceil((t(B_i)+b_i-t(F_i)) / T) */
    int *copies;             /* [L] u_i: n_i (pipedream) or min(n_i, m) (1f1b) */
    int *versions;           /* [L] v_i: n_i (pipedream) or 1 (1f1b) */
    double latency;          /* Lambda = t(B_0)+b_0-t(F_0), ms */
    double iteration;        /* ms: (m-1)T + Lambda (1f1b), m T (pipedream) */
    double throughput;       /* samples/s: m * micro_batch / iteration */
    double objective;        /* T (pipedream) or iteration (1f1b) */
    double peak_memory;      /* max over GPUs of total */
    int peak_gpu;            /* GPU with the largest total - cap */
    bool fits;               /* every GPU's total <= cap */
    struct plan_gpu *gpus;   /* [P] */
};

struct plan *plan_new(int L, int P);
struct plan *plan_copy(const struct plan *pl);
void plan_free(struct plan *pl);

/* Fill every derived field from gpu[], T and start[] (which it does not
 * change). Returns 0, or -1 (filling nothing) when the plan's L or P
 * differ from pb's or a gpu[] entry is out of range. */
int plan_evaluate(struct plan *pl, const struct problem *pb);

/* n for an activation lifetime: ceil(lifetime / T) with tolerance, >= 1. */
int plan_inflight_count(double lifetime, double T);

/* Number of distinct GPUs used (-1 when out of memory); whether each GPU
 * holds one interval of layers. */
int plan_gpus_used(const struct plan *pl);
bool plan_is_contiguous(const struct plan *pl);
/* The first layer of gpu[L] that starts a second run of layers on its GPU
 * (one that comes back after another GPU held layers in between): L when
 * none does, -1 when a GPU is outside 0..P-1 or memory runs out. */
int plan_second_run(const int *gpu, int L, int P);

/* doc/model.md section 11.1. optimal: proven for the network's own layers;
 * block_optimal: proven only for the network coarsened into `blocks`
 * blocks; running: a solver's best so far while it still searches. */
enum plan_status {
    PLAN_OPTIMAL, PLAN_FEASIBLE, PLAN_NO_FIT, PLAN_INFEASIBLE, PLAN_TIMEOUT, PLAN_ERROR,
    PLAN_BLOCK_OPTIMAL, PLAN_RUNNING
};

/* "optimal", "no_fit", ... (a sweep CSV's status column) */
const char *plan_status_name(enum plan_status s);

#endif
