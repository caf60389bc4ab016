/* schedule: turn any allocation into a valid periodic 1F1B schedule.
 * Pure C, no I/O. */
#ifndef PIPEPLAN_SCHEDULE_H
#define PIPEPLAN_SCHEDULE_H

#include "plan.h"

/* The least period a schedule gets, ms: a chain with no time at all still
 * gets a positive one. */
#define SCHEDULE_MIN_T 1e-3

/* Given pl->gpu, choose the period T and start times that satisfy every
 * constraint of doc/model.md section 2 (chain order with transfer delays,
 * per-GPU send/receive load <= T, modular non-overlap on each GPU), with T
 * as small as it can find (starting from the largest per-GPU compute, send
 * and receive load) and in-flight counts low (list scheduling in chain
 * order, each op at the earliest time its GPU is free modulo T, or flush
 * against another op when that is what fits; then forward ops moved as
 * late and backward ops as early as allowed, and a bounded search for
 * deliberate waits that lower memory over the caps, then the objective,
 * then the worst GPU's margin). Deterministic. Then calls plan_evaluate().
 * Returns 0, or -1 if the allocation is malformed. */
int schedule_build(struct plan *pl, const struct problem *pb);

/* Same with a fixed period T: returns -1 when T is below a GPU's compute,
 * send or receive load or the list scheduler cannot place every operation
 * at that T (it always can once T reaches the whole chain's time with its
 * transfers); pl is then left as it was. */
int schedule_build_at(struct plan *pl, const struct problem *pb, double T);

/* For a plan over its caps: the smallest period above its own (found by
 * doubling, then bisection) at which a schedule fits, since a longer
 * period keeps fewer micro-batches in flight (as a synchronous 1F1B
 * runtime does by stalling). Returns 1 and reschedules pl when one is
 * found, 0 when none fits (pl unchanged). */
int schedule_stretch(struct plan *pl, const struct problem *pb);

/* The schedule of a runtime that runs its own 1F1B order (Megatron-LM,
 * DeepSpeed, torch's Schedule1F1B; doc/model.md section 2.1): stage r of
 * S runs the backward of micro-batch j after its forward of micro-batch
 * j + S - r - 1, so keeps S - r micro-batches in flight whatever the
 * period; the least period at which that order runs, forwards with no
 * wait. The stages are the runtime's `ranks` pipeline ranks, rank r on
 * GPU r, a rank with no layer passing the activation on (a transfer in
 * and one out, none before the first layer or after the last); with
 * ranks <= 0, the runs in chain order, one per GPU. Then calls
 * plan_evaluate(). Returns 0; -2 when the plan is no such split (a GPU
 * of two runs; with ranks, runs not in rank order or on a GPU past them)
 * or there are fewer micro-batches than stages (no steady 1F1B), pl
 * unchanged; -1 on a malformed plan, ranks > P or out of memory. */
int schedule_build_1f1b(struct plan *pl, const struct problem *pb, int ranks);

/* Tests only: with on, every search tests each candidate against every
 * op (the quadratic reference the faster search must equal to the bit). */
void schedule_use_reference(bool on);

/* Tests only: with on, each search by the faster structure is also made
 * by the reference (the faster one's result is used). Returns how many
 * results differed since the previous call, and starts the count again. */
long schedule_crosscheck(bool on);

#endif
