/* problem: the numbers a planner needs, built from a network, a platform
 * and the run knobs. Immutable once built; a knob change builds a new one.
 * Pure C, no I/O.
 *
 * Units inside the model: times in milliseconds, sizes in bytes, both as
 * double (bytes are exact integers well below 2^53). */
#ifndef PIPEPLAN_PROBLEM_H
#define PIPEPLAN_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "spec.h"

enum layout_kind { LAYOUT_ANY = 0, LAYOUT_CONTIGUOUS = 1 };

/* Run knobs. A zero (or negative for the enums) means "as in the files". */
struct knobs {
    int gpus;
    uint64_t memory;         /* uniform per-GPU cap, bytes */
    long micro_batches;
    int schedule;            /* enum spec_schedule, or -1 */
    int layout;              /* enum layout_kind, or -1 (= any) */
    int blocks;              /* ILP coarsening: 0 = none, -1 = automatic */
    double weight_factor;
};

void knobs_init(struct knobs *k);   /* everything "as in the files" */

struct problem {
    char *network;           /* network name */
    long micro_batch;        /* samples per micro-batch */
    int L;                   /* chain elements (layers, or blocks) */
    double *f, *b;           /* [L] forward / backward ms */
    double *w;               /* [L] parameter bytes */
    double *a;               /* [L] bytes crossing the cut after i (a[L-1] unused) */
    double *s;               /* [L] stored bytes */
    double *c;               /* [L] ms to send the cut after i: latency + a/bw; c[L-1] = 0 */
    char **names;            /* [L] layer (or block) names */
    int *first;              /* [L+1]: element i covers original layers first[i]..first[i+1]-1 */
    int P;                   /* GPUs: pipeline ranks, each a group of tp
                                GPUs when the network is tensor-parallel */
    int tp;                  /* tensor-parallel GPUs per rank (>= 1): the
                                costs are one GPU's share of its group */
    double *cap;             /* [P] memory per GPU, bytes */
    double *reserved;        /* [P] reserved bytes per GPU */
    long m;                  /* micro-batches per iteration */
    enum spec_schedule schedule;
    enum layout_kind layout;
    double phi;              /* weight memory factor */
    double bandwidth;        /* bytes/s */
    double latency_ms;
};

/* The knobs as problem_create() takes them: each one left "as in the
 * files" (0 or -1) given the platform's value. 0, or -1 with why in err. */
int problem_knobs_resolve(const struct knobs *k, const struct spec_platform *plat,
                          struct knobs *out, char *err, size_t errlen);
/* GPU p's memory cap under resolved knobs k: the uniform cap, or else the
 * platform's for that GPU. */
uint64_t problem_gpu_memory(const struct knobs *k, const struct spec_platform *plat, int p);

/* Build from specs and knobs (knobs may be NULL). Returns NULL with a
 * message in err when a knob is out of range (or the specs hold
 * something no planner can use: no layers, a negative time, zero
 * bandwidth). knobs->blocks is only checked here: the result keeps every
 * layer, and a planner that wants blocks calls problem_coarsen(). */
struct problem *problem_create(const struct spec_network *net,
                               const struct spec_platform *plat,
                               const struct knobs *knobs,
                               char *err, size_t errlen);
/* Every array for L elements and P GPUs, zeroed; names start NULL (for
 * builders, and tests that fill a problem by hand). NULL when out of memory. */
struct problem *problem_new(int L, int P);
struct problem *problem_copy(const struct problem *pb);
/* pb's elements and settings on P GPUs (P >= 1): GPU p keeps pb's cap and
 * reserve where pb has a GPU p, and has 0 beyond (for the caller to set).
 * NULL when out of memory. */
struct problem *problem_on_gpus(const struct problem *pb, int P);
/* Whether a and b are the same problem but for their memory caps: every
 * time, size, count and setting alike (names aside). */
bool problem_same_but_caps(const struct problem *a, const struct problem *b);

/* What a plan's GPU stands for, in words: "GPU", or with tensor
 * parallelism "rank" (a pipeline rank, a group of tp GPUs). */
const char *problem_gpu_word(const struct problem *pb, bool plural);
void problem_free(struct problem *pb);

/* Coarsen into at most `blocks` elements: sums of f, b, w, s; a block's cut
 * is the cut after its last layer; cut points with small activations are
 * preferred. blocks <= 0 or >= L returns a copy. */
struct problem *problem_coarsen(const struct problem *pb, int blocks);

/* The blocks bound[k]..bound[k+1]-1 for k < K (bound[0] = 0, bound[K] =
 * L, increasing), summed as problem_coarsen() does. NULL when the bounds
 * are not that or out of memory. */
struct problem *problem_group(const struct problem *pb, const int *bound, int K);

/* T_lb = max(sum(f+b)/P, max(f+b)). */
double problem_lower_bound(const struct problem *pb);

/* A lower bound on any plan's period from the loads alone, at least
 * T_lb: also, for every k, among the k P + 1 longest elements (f + b)
 * some GPU runs k + 1, so T >= the sum of the k + 1 shortest of them. */
double problem_load_bound(const struct problem *pb);

/* The trivial lower bound on the objective (doc/model.md section 10.3):
 * T_lb for pipedream, (m-1) T_lb + sum(f+b) for 1f1b. */
double problem_objective_bound(const struct problem *pb);

/* Sum of f+b over all elements. */
double problem_compute_ms(const struct problem *pb);

/* The objective as alpha T + beta Lambda (doc/model.md section 4): the
 * iteration (m - 1) T + Lambda for 1f1b, the period T for pipedream. */
void problem_objective_weights(const struct problem *pb, double *alpha, double *beta);

/* Duration of operation o: o < L is F_o, o >= L is B_{o-L}. */
static inline double problem_op_duration(const struct problem *pb, int o)
{
    return o < pb->L ? pb->f[o] : pb->b[o - pb->L];
}

#endif
