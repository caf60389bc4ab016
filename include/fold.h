/* fold: starting points for the ILP's local search that no contiguous
 * planner gives (doc/model.md section 5.2, "Folded starts").
 *
 * A baseline's split of the chain into 2P stages, planned for 2P GPUs,
 * folded onto the P GPUs in a V: stage q on GPU q for q < P, on GPU
 * 2P-1-q after. Each GPU then holds an early stage, whose activations are
 * kept for many micro-batches in flight, and a late one, kept for few: the
 * memory that is lopsided in a contiguous pipeline evens out. How a GPU's
 * room is best shared between its two stages depends on the network, so
 * the splits are planned with the early stage given 1/2, 2/3 and 5/6 of
 * it. Pure C, no I/O. */
#ifndef PIPEPLAN_FOLD_H
#define PIPEPLAN_FOLD_H

#include <stdbool.h>
#include "problem.h"

/* Folded allocations at most: the PipeDream and memory-aware DP
 * baselines' splits at each share of the room. */
#define FOLD_MAX 6

/* The folded splits, without repeats, into gpu[k*L .. k*L+L-1] (room for
 * FOLD_MAX of them). Returns how many: 0 with the contiguous layout, one
 * GPU, or fewer than 2P layers; -1 on bad arguments or out of memory. */
int fold_allocations(const struct problem *pb, int *gpu);
/* The same, asking stop(ctx) (NULL: never) before each baseline's split:
 * once it says yes, the folds found so far. On 10,000 layers each split
 * took seconds. */
int fold_allocations_until(const struct problem *pb, int *gpu,
                           bool (*stop)(const void *), const void *ctx);

#endif
