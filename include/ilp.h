/* ilp: the exact planner, an integer linear program solved with CBC
 * (doc/model.md section 5), through CBC's C API.
 *
 * Search: over intervals of the period T. On each, a "master" MIP (the
 * period a variable, the in-flight counts and the waits forced by the
 * operations sure to share a GPU modelled, a relaxation of every plan in
 * the interval) chooses an allocation of the blocks and bounds the
 * interval; each allocation it proposes is scheduled exactly over the
 * interval by a small schedule MIP over the operations that share a GPU,
 * which gives its best plan and a cut (its least objective there, or a
 * no-good). The bound is proven for the blocked problem; the plan
 * returned is per layer, refined layer by layer and never worse than the
 * best fitting baseline.
 *
 * CBC writes to standard output even at log level 0: callers that own the
 * terminal run this in a child process (see worker.h). No other I/O here. */
#ifndef PIPEPLAN_ILP_H
#define PIPEPLAN_ILP_H

#include <stdbool.h>
#include "planner.h"

/* Relative gap at which a plan is called optimal. */
#define ILP_GAP 1e-4

struct ilp_progress {
    double elapsed;              /* seconds since the solve started */
    const struct plan *plan;     /* improved layer-level plan, or NULL */
    double objective;            /* of the best plan so far (INFINITY if none) */
    double bound;                /* proven lower bound on the network's objective */
    double block_bound;          /* proven for the blocks only (NAN when the
                                  * blocks are the layers: then it is `bound`) */
    int blocks;                  /* elements the search works on */
};

struct ilp_options {
    double time_limit;           /* seconds for the whole search (<= 0: none);
                                  * not used under a work limit */
    /* Deterministic work limit (<= 0: none): CBC branch-and-bound nodes
     * summed over the search's MIPs, plus one per MIP. Under it nothing
     * depends on the clock (node caps replace the per-MIP seconds, CBC
     * runs one thread): the same inputs give the same plan, status and
     * bound on any machine. Tests use it; people use seconds. */
    long work_limit;
    int threads;                 /* CBC threads (<= 1: one) */
    int blocks;                  /* coarsening: 0 = the layers, -1 = automatic */
    const struct plan *warm;     /* layer-level plan to start from, or NULL */
    /* A lower bound already proven for the same problem and blocks (an
     * earlier search's block bound, or its bound when the blocks are the
     * layers), to continue from; NAN: none. */
    double known_bound;
    /* A lower bound already proven for the network itself (any blocks: the
     * chain bound of an earlier search), to start from; NAN: none. It
     * holds for the blocks too. */
    double known_net_bound;      /* (0 or NAN: none) */
    /* The search's own trace, a line at a time (masters, judgements,
     * plans, bounds), or NULL; solver_log > 0 also asks CBC for its log
     * at that level (on standard output). */
    void (*on_trace)(void *ctx, const char *line);
    int solver_log;
    /* every improved plan and every improved bound, as soon as known */
    void (*on_progress)(void *ctx, const struct ilp_progress *p);
    void *ctx;
    /* polled between MIPs; nonzero stops the search (the best plan so far
     * comes back with status timeout) */
    volatile int *cancel;
    /* The baselines' results for this same problem, when the caller has
     * them (the worker runs the baselines before the solver): the search
     * takes their plans rather than running them again, which on 20,000
     * layers and 1,024 GPUs took the memory-aware DP most of a minute,
     * past any time limit. A baseline not among them is run; one given
     * with status error is left out. */
    const struct planner_result *baselines;
    int nbaselines;
};

void ilp_options_init(struct ilp_options *opt);

/* The block count used when opt->blocks is -1. */
int ilp_default_blocks(const struct problem *pb);

/* The one rule for how many elements the search works on, for a
 * requested count (-1: automatic, 0: every layer, N: N blocks, at most
 * the layers). */
int ilp_blocks(const struct problem *pb, int requested);

struct ilp_stats {
    int blocks;                  /* elements of the problem the bound holds for */
    int rows, cols, integers;    /* of the largest master MIP built */
    int masters, subproblems, cuts;
    long alloc_nodes;            /* nodes of the enumeration of allocations */
    long allocs;                 /* allocations it found that could beat the
                                  * incumbent, -1 when it did not finish */
    long splits;                 /* the packed chain's splits scheduled */
    long polished;               /* schedules of the local search from its
                                  * splits of least value */
    double first_better_seconds; /* first plan better than the warm start, or -1 */
    double master_seconds, sub_seconds, refine_seconds;   /* where the time went */
};

/* Solve. Fills res (plan per layer, status, bounds, seconds) and, if
 * stats is not NULL, the statistics. Status (doc/model.md section 11.1):
 * optimal when the gap to the network's bound is <= ILP_GAP;
 * block_optimal when only the gap to the blocks' bound is; timeout when
 * a limit or a cancel stopped it first; infeasible when no plan of the
 * layers fits (proven; for blocks coarser than the layers that is only
 * no_fit, with the reason in res->message); error when CBC failed.
 * Returns 0, or -1 on bad arguments. */
int ilp_solve(const struct problem *pb, const struct ilp_options *opt,
              struct planner_result *res, struct ilp_stats *stats);

#endif
