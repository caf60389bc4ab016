/* stages: the best contiguous pipeline whose stages run their operations
 * back to back (doc/model.md section 5.6).
 *
 * For a period T, a dynamic programme over the stage boundaries, from the
 * last stage back, finds the least latency of a contiguous plan in which
 * each GPU runs its forwards in one stretch and its backwards in another,
 * waiting only where periodicity forces it: before its first backward,
 * until that stretch falls where the forwards leave room modulo T. Each
 * stage's memory is checked on its GPU at the lifetimes this schedule
 * gives. The periods are searched on a grid refined around the best.
 *
 * Its plans are exact schedules (they fit, and replay in simulate.h); the
 * ILP starts from them. Deterministic: a budget of DP steps, no clock.
 * Pure C, no I/O. */
#ifndef PIPEPLAN_STAGES_H
#define PIPEPLAN_STAGES_H

#include "plan.h"
#include "problem.h"

/* The best such plan by the objective of pb->schedule, when it is below
 * cutoff (INFINITY: any that fits). With the contiguous
 * layout the stages follow the GPUs' order; otherwise the roomiest GPUs
 * take the first stages. work: the DP steps it may take (<= 0: the
 * default, STAGES_WORK). Returns a new plan that fits, or NULL when it
 * found none (or ran out of memory). */
struct plan *stages_plan(const struct problem *pb, double cutoff, long work);

/* The least latency of such a plan at period T (INFINITY: none fits),
 * whatever the work. */
double stages_latency(const struct problem *pb, double T);

#define STAGES_WORK 40000000L

#endif
