/* baseline: the plans today's frameworks would pick (doc/model.md section 7).
 * Each returns a scheduled and evaluated plan (see schedule_build), judged
 * with the same memory model as every other plan; a plan a baseline
 * believed would fit may not fit. When a baseline's own memory rule
 * rejects every split, it returns the plan it would pick ignoring memory
 * (so the caller can show what cap it needs) and sets *believed_fit to
 * false; otherwise *believed_fit is true. believed_fit may be NULL.
 * Every plan is contiguous: stage k (one interval of layers) on GPU k,
 * at most min(P, L) stages. Pure C, no I/O. */
#ifndef PIPEPLAN_BASELINE_H
#define PIPEPLAN_BASELINE_H

#include <stdbool.h>
#include "plan.h"

/* Equal number of layers per GPU (Megatron-LM / DeepSpeed "uniform"). */
struct plan *baseline_uniform(const struct problem *pb);
/* Balanced parameter bytes, contiguous (DeepSpeed "parameters"). */
struct plan *baseline_parameters(const struct problem *pb);
/* Minimise the largest stage compute time, contiguous, exact; no memory
 * model (GPipe / torchgpipe balance_by_time). */
struct plan *baseline_time(const struct problem *pb);
/* PipeDream's planner: contiguous DP minimising the largest stage time,
 * a stage's memory charged as (stages from it to the last) x (its stored
 * activations + its parameters), against the cap. */
struct plan *baseline_pipedream(const struct problem *pb, bool *believed_fit);
/* Memory-aware contiguous DP (MadPipe-style): optimum over contiguous
 * plans when layer i keeps ceil(L_i / T) copies, L_i the wait-free chain
 * time from F_i start to B_i end. Its split is scheduled like the others;
 * when the shortest schedule does not fit, it is scheduled again at longer
 * periods (from the model's own, below which no schedule of the split
 * fits) and the shortest one found to fit is returned. */
struct plan *baseline_dp(const struct problem *pb, bool *believed_fit);
/* The same, asking stop(ctx) between the periods of its DP: stopped, it
 * sets *stopped (may be NULL) and returns the split its rule admitted at
 * the longest period tried so far, scheduled, or NULL when it knew of
 * none yet. */
struct plan *baseline_dp_until(const struct problem *pb, bool *believed_fit,
                               bool (*stop)(const void *), const void *ctx, bool *stopped);

/* The allocations behind the plans above, written to gpu[L] (stage k on
 * GPU k, GPU indices non-decreasing), without scheduling.
 *
 * uniform: min(P, L) stages, the first L mod P get one layer more (as
 * DeepSpeed's partition_uniform does).
 * parameters: min(P, L) stages minimising the largest parameter sum, ties
 * broken by the largest stage compute time.
 * time: min(P, L) stages minimising the largest stage compute time.
 * Ties left after that go to the split with the longest last stages.
 * These return 0, or -1 on a malformed problem or out of memory.
 *
 * pipedream and dp return 1 when their memory rule admits a split, 0 when
 * it admits none (gpu[] then holds the time split), -1 on error. dp also
 * writes the period of its wait-free model to *period (may be NULL; left
 * unchanged when nothing fits). */
int baseline_uniform_allocation(const struct problem *pb, int *gpu);
int baseline_parameters_allocation(const struct problem *pb, int *gpu);
int baseline_time_allocation(const struct problem *pb, int *gpu);
int baseline_pipedream_allocation(const struct problem *pb, int *gpu);
int baseline_dp_allocation(const struct problem *pb, int *gpu, double *period);

/* The same DP, asking stop(ctx) before each of its periods' fills (on
 * thousands of layers and tens of stages each takes a second): 2 when it
 * stopped with a split its rule admits in gpu[] and *period, not
 * necessarily the least; -2 when it stopped before it knew whether one
 * exists (gpu[] unspecified). Otherwise as baseline_dp_allocation(). */
int baseline_dp_allocation_until(const struct problem *pb, int *gpu, double *period,
                                 bool (*stop)(const void *), const void *ctx);

/* Schedule an allocation at the least period (from `period` up) at which
 * its list schedule fits memory: a longer period lowers the in-flight
 * counts. The shortest schedule when it fits already; when nothing fits,
 * the shortest schedule (not fitting). NULL when malformed. */
struct plan *baseline_schedule_fitting(const struct problem *pb, const int *gpu,
                                       double period);

/* Tests only: with on, the min-max splits scan every stage start instead
 * of binary-searching (the reference the search must equal). */
void baseline_use_reference(bool on);

#endif
