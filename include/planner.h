/* planner: every planner behind one call, with a status a user can trust.
 * A baseline's status is "feasible" when its plan fits and "no_fit" when
 * it does not; "optimal" is reserved for a solver that proved it.
 * Pure C, no I/O. */
#ifndef PIPEPLAN_PLANNER_H
#define PIPEPLAN_PLANNER_H

#include <stdbool.h>
#include "plan.h"

struct planner_result {
    const char *planner;     /* registry name, static */
    enum plan_status status;
    struct plan *plan;       /* owned; NULL only on error */
    bool believed_fit;       /* what the planner's own rule believed */
    double bound;            /* proven lower bound on the network's objective
                                (at least the trivial one), or NAN */
    double block_bound;      /* bound proven for the blocks only, or NAN */
    double seconds;          /* wall time of the planner */
    int blocks;              /* elements a solver worked on (0: n/a) */
    bool kept;               /* status error, but the plan is the solver's best
                                before it failed (a valid plan all the same) */
    bool replayed;           /* plan already accepted by the simulator (the
                                planners' worker replays what it returns) */
    char message[320];       /* why, for errors and surprises */
};

/* Registry of the planners, in display order: the ILP, then the
 * baselines. planner_count() and planner_name() list the planners that
 * run; the user's own plan (--split, --plan) has a registry entry of its
 * own, planner_given(), which is judged, never run. */
int planner_count(void);
const char *planner_name(int i);
const char *planner_title(const char *name);   /* "mem-aware DP", ... */
bool planner_exists(const char *name);
/* The registry name of the user's own plan ("user", titled "your
 * split"); whether a name is it. */
const char *planner_given(void);
bool planner_is_given(const char *name);
/* A solver searches under limits and streams its progress (the ILP: see
 * ilp.h for its options); the others are baselines, quick and final. */
bool planner_is_solver(const char *name);
/* Whether it chooses its split under the memory caps (the ILP, the DP,
 * PipeDream's planner); the others ignore memory. */
bool planner_has_memory_rule(const char *name);

/* Run one planner (a solver with its default limits). Returns 0 and fills
 * *res (free with planner_result_clear), or -1 for an unknown name. */
int planner_run(const char *name, const struct problem *pb, struct planner_result *res);
/* The same, the memory-aware DP asking stop(ctx) between its periods
 * (most of a minute on 20,000 layers and 1,024 GPUs): stopped, status
 * timeout, with the split it admitted at a longer period or no plan. */
int planner_run_until(const char *name, const struct problem *pb, struct planner_result *res,
                      bool (*stop)(const void *), const void *ctx);
void planner_result_clear(struct planner_result *res);
/* The result of the planner NAME among n results, or NULL. */
const struct planner_result *planner_result_find(const struct planner_result *v, int n,
                                                 const char *name);

/* Judge the user's own plan: gpu[pb->L] with, when start is not NULL,
 * its own period T and start times start[2L] (else schedule_build gives
 * it one), evaluated with the memory model (doc/model.md section 3).
 * Fills *res as planner_given() (status feasible or no_fit, the trivial
 * bound, `source` as its message). Returns 0, or -1 with status error
 * and the reason in res->message (a GPU out of range, a bad schedule
 * that plan_evaluate refuses). The caller runs the simulator. */
int planner_judge(const struct problem *pb, const int *gpu, double T, const double *start,
                  const char *source, struct planner_result *res);

/* The same with the order of a runtime that runs its own 1F1B
 * (Megatron-LM, DeepSpeed, torch's Schedule1F1B: schedule_build_1f1b) on
 * `ranks` pipeline ranks (split_parse's count; <= 0: the runs), ranks
 * with no layer counted: its in-flight counts whatever the period, no
 * stretch. Returns 0; 1 when gpu[] is no such split (a GPU of two runs,
 * or fewer micro-batches than stages), judged as planner_judge() judges
 * it; -1 as there. */
int planner_judge_1f1b(const struct problem *pb, const int *gpu, int ranks, const char *source,
                       struct planner_result *res);

/* The status in words, the same everywhere: "optimal", "optimal for 12
 * blocks", "timeout", ... */
const char *planner_status_text(enum plan_status s, int blocks, char *buf, size_t len);

/* The gap, one definition (doc/model.md section 10.5): (objective - bound) /
 * objective with the bound proven for the network; NAN without a plan
 * that fits or without a bound. */
double planner_gap(const struct planner_result *res);

/* Whether the result has a plan to show as a plan, choose as the best
 * and export: any but an error's, save the plan an error kept. */
bool planner_result_usable(const struct planner_result *res);

/* Order: fitting plans before others, then by objective. */
int planner_result_compare(const struct planner_result *a, const struct planner_result *b);

/* The caller's limits on planner_min_cap's bisection. Under a work limit
 * (work > 0) it tries at most `work` caps (a baseline run at a cap each)
 * and nothing depends on the clock: the same inputs give the same cap on
 * any machine. Otherwise it tries no cap once `seconds` have passed since
 * it started (INFINITY: no limit; 0 or less: no cap at all); a cap begun
 * in time runs to its end, so the search may end that run late. */
struct min_cap_limits {
    double seconds;
    long work;
};

/* The smallest uniform per-GPU cap (bytes) at which some plan of the
 * baselines fits, found by bisection over the cap for the memory-aware
 * ones; *fit_plan receives that plan (owned by the caller) and
 * *fit_planner its planner. known (nknown entries, may be NULL) are
 * results already had for pb, taken rather than run again. The bisection
 * stops at 1 MiB, or earlier on networks so large that each cap tried
 * takes seconds (a budget of DP cells) or at the caller's limits (lim,
 * NULL for none): *within (may be NULL) receives how far above the
 * smallest the cap may be, as the bisection left it. The cap returned is
 * always the peak of a plan that fits at it (at the least a baseline's
 * own plan, at its own peak, when no cap could be tried). Returns the
 * cap, or NAN when none fits even without a cap. */
double planner_min_cap(const struct problem *pb, const struct planner_result *known,
                       int nknown, struct plan **fit_plan, const char **fit_planner,
                       double *within, const struct min_cap_limits *lim);

#endif
