/* simulate: independent replay of a plan that checks the invariants of
 * doc/model.md section 6. Written without using the planners' or schedule
 * builder's code, so it can judge them. Pure C, no I/O. */
#ifndef PIPEPLAN_SIMULATE_H
#define PIPEPLAN_SIMULATE_H

#include <stdbool.h>
#include "plan.h"

enum sim_verdict {
    SIM_OK = 0,
    SIM_BAD_PLAN,        /* malformed: GPU index out of range, T <= 0, NaN */
    SIM_OVERLAP,         /* a GPU runs two operations at once */
    SIM_DEPENDENCY,      /* chain order or transfer delay violated */
    SIM_LINK,            /* per-GPU send or receive load exceeds T */
    SIM_PERIOD,          /* measured steady-state period != T */
    SIM_MEMORY_MODEL,    /* measured peak memory > the model's mem_p */
    SIM_MEMORY_CAP,      /* plan says it fits but measured peak > cap */
    SIM_MAKESPAN,        /* 1f1b: makespan of m micro-batches != (m-1)T+Lambda */
    SIM_DERIVED          /* a derived figure of the plan disagrees with the replay */
};

struct sim_report {
    enum sim_verdict verdict;
    char reason[256];        /* human explanation naming the op / GPU; ops
                                are written F3 / B3 with 0-based layers */
    int op;                  /* the operation to blame (F_i: i, B_i: L + i),
                                one that starts too early or overlaps; -1 */
    int microbatches;        /* how many the checks cover (each GPU replays
                              * those its own operations meet) */
    double period;           /* measured steady-state period, ms */
    double makespan;         /* of the replay (flushed: m micro-batches) */
    double peak[64];         /* measured peak memory of the first 64 GPUs */
};

/* Replay max(m, 3P) micro-batches of the plan (more when micro-batch 0
 * spans more periods, so the replay always reaches steady state) and
 * check it. Memory is measured over exactly m micro-batches for 1f1b and
 * over the whole replay for pipedream. Checks run in the order of the
 * verdicts above (overlap and dependency: whichever comes first in time);
 * the first failure is returned. Fields the run did not reach stay 0.
 * report may be NULL. Returns the verdict (SIM_OK = 0). */
enum sim_verdict simulate_plan(const struct plan *pl, const struct problem *pb,
                               struct sim_report *report);

const char *simulate_verdict_name(enum sim_verdict v);

#endif
