/* lns: layer-level local search around a plan (doc/model.md section 5.2).
 *
 * From a start plan it moves layers between GPUs: a run of layers at the
 * edge of a GPU's range to another GPU (with the contiguous layout only
 * moves that keep the plan contiguous), two runs exchanged, and the split
 * of a window of three consecutive runs re-chosen over every pair of
 * boundary positions. Each candidate allocation first gets a lower bound
 * on its objective that needs no schedule (its compute and link loads,
 * and the least period at which its wait-free lifetimes fit memory);
 * only those whose bound beats the incumbent are scheduled, best bound
 * first, from that period up. The first candidate that fits and beats the
 * incumbent is taken (first improvement), and the search goes on from it.
 * A start plan that does not fit is first walked towards allocations
 * whose memory with one copy of everything fits, without schedules.
 *
 * Every plan it offers fits and replays in the simulator (simulate.h).
 * Deterministic: under an evaluation budget and no seconds, the same
 * inputs give the same plans on any machine. Pure C, no I/O. */
#ifndef PIPEPLAN_LNS_H
#define PIPEPLAN_LNS_H

#include "plan.h"

struct lns_options {
    double seconds;              /* wall-clock budget from the call (<= 0: none) */
    long evaluations;            /* schedules it may build (<= 0: no count) */
    volatile int *cancel;        /* polled; nonzero stops it (may be NULL) */
    /* Called with every improved plan as soon as it is found (fits,
     * replays); the plan is the module's: copy it to keep it. */
    void (*offer)(void *ctx, const struct plan *pl);
    /* Optional: schedule a candidate another way than the list scheduler
     * (the ILP schedules it exactly). pl->gpu holds the allocation; into
     * pl a fitting plan of objective below cap with its period at least
     * t_lo. Returns 1 when it found one, 0 when it proved there is none,
     * -1 when it could not tell (a limit). Each call is one evaluation. */
    int (*schedule)(void *ctx, struct plan *pl, double t_lo, double cap);
    /* With schedule: the first round's first so many candidates were put
     * to an earlier call from the same plan with the same options (the
     * order is deterministic), which found none better or could not tell
     * within its limits: passed over. */
    long skip;
    void *ctx;
};

void lns_options_init(struct lns_options *opt);

struct lns_stats {
    long evaluations;            /* schedules built */
    long candidates;             /* allocations looked at */
    long screened;               /* of those, dropped by the lower bound */
    long screen_work;            /* the screening's layers, in schedules' worth
                                  * (counted against evaluations) */
    int improvements;            /* plans offered */
};

/* Search from start (a plan of pb, fitting or not; its schedule is not
 * used). On return *best_out is the best fitting plan found that beats
 * start (the caller frees it with plan_free), or NULL when none was.
 * stats may be NULL. Returns the number of improvements, or -1 on bad
 * arguments or out of memory (*best_out is then NULL). */
int lns_improve(const struct problem *pb, const struct plan *start,
                const struct lns_options *opt, struct plan **best_out,
                struct lns_stats *stats);

#endif
