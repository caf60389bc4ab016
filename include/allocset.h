/* allocset: the allocations of a problem's elements (the ILP's blocks)
 * that could still beat an objective, found by enumeration
 * (doc/model.md section 5.4).
 *
 * Depth first over the elements in chain order, each given a GPU. A
 * partial allocation is dropped when no plan completing it can beat the
 * cutoff even with no waits at all: at the longest period that could
 * still beat it, its GPUs' compute and link loads must fit in the period,
 * its elements' memory (copies from their wait-free lifetimes, which only
 * grow as elements are added) within the caps, and what the elements
 * still to place need at least within the room left. A complete
 * allocation that passes gets its bound over pieces of the periods from
 * the least at which its wait-free lifetimes fit: in each, lifetimes
 * rounded up by the waits that an element's own forward and backward,
 * and those of neighbours on one GPU, force by not overlapping modulo
 * the period; the least objective over the pieces that fit. Every plan of
 * the elements (each element's operations run as one) is at or above the
 * bound of its allocation, so when the search completes, every plan that
 * beats the cutoff uses an allocation kept (or counted, past max_keep),
 * and no plan is below the least bound.
 *
 * Identical neighbouring GPUs are used in order of their first element,
 * as the ILP's symmetry rows ask; with the contiguous layout each GPU
 * holds one run. Deterministic under its node budget. Pure C, no I/O. */
#ifndef PIPEPLAN_ALLOCSET_H
#define PIPEPLAN_ALLOCSET_H

#include <stdbool.h>
#include "problem.h"

struct allocset {
    int B, P;
    int n;                       /* allocations kept, best bound first */
    int *gpu;                    /* [n*B]: allocation k is gpu[k*B .. k*B+B-1] */
    double *period;              /* [n] no plan of it has a shorter period */
    double *latency;             /* [n] nor a shorter latency */
    double *bound;               /* [n] nor a smaller objective */
    long found;                  /* allocations that beat the cutoff (may exceed n) */
    double least;                /* least bound of those (INFINITY: none) */
    long nodes;                  /* partial allocations looked at */
    bool complete;               /* the whole tree was searched */
};

/* A piece of the periods and a bound on every plan with its period in
 * [t1, t2] (at or above the cutoff: none there beats it; INFINITY: none
 * fits there). */
struct allocset_piece {
    double t1, t2, v;
};

/* allocset_chain_packed's pieces at most */
#define ALLOCSET_MAX_PIECES 128

struct allocset_options {
    double cutoff;               /* objective to beat (INFINITY: anything that fits) */
    long max_nodes;              /* node budget (<= 0: none) */
    int max_keep;                /* allocations kept at most */
    /* polled every few thousand nodes; true stops the search (incomplete) */
    bool (*stop)(void *ctx);
    void *ctx;
    /* allocset_chain_packed only (may be NULL): the bound so far, each
     * time it rises, so that a caller can show it while the search runs */
    void (*progress)(void *ctx, double bound);
    /* allocset_chain_packed only (may be NULL): each complete split found
     * below the best so far, as its elements' GPUs (gpu[L]) and its value;
     * returns the objective to beat from then on (a plan of that
     * allocation may beat the cutoff: the splits above it are not worth
     * searching) */
    double (*split)(void *ctx, const int *gpu, double value);
    /* allocset_chain_packed only (may be NULL): room for
     * ALLOCSET_MAX_PIECES, into which go its pieces at the end, in the
     * order of their periods, their number into *npieces (0 when it
     * returns early): the bound period by period, for a caller that
     * bounds the same plans another way */
    struct allocset_piece *pieces;
    int *npieces;
    /* allocset_chain_packed only: the nodes a piece's search first tries
     * below the cutoff before it goes on below a step above the piece's
     * bound (<= 0: the default, more after longer searches); tests set 1
     * to take the second way from the start */
    long first_nodes;
};

/* Search. `sym[p]` is true when GPU p may trade places with GPU p-1 (NULL:
 * none may). Returns 0, or -1 on bad arguments or out of memory (out is
 * then empty). */
int allocset_search(const struct problem *pb, const int *sym, const struct allocset_options *opt,
                    struct allocset *out);

void allocset_free(struct allocset *as);

/* A bound for every plan of the elements whatever their allocation,
 * without enumerating (doc/model.md section 5.5): the least lifetimes over every split of the chain
 * into runs (elements on one GPU with no cut between), a run's compute
 * within the period and its memory within the roomiest GPU, with the
 * waits an element's own operations and those of its run's neighbours
 * force, and all the elements' memory within all the GPUs' room; over
 * pieces of the periods from t_lo (below which no plan fits) to the
 * longest at which a plan could beat the cutoff. Returns the least of
 * cutoff and that bound; -INFINITY on bad arguments (cutoff must be
 * finite) or out of memory. With a single micro-batch (1f1b) the one
 * period longer than the chain with every cut bounds every period. */
double allocset_chain_bound(const struct problem *pb, double cutoff, double t_lo);

/* The chain bound with the runs packed (doc/model.md section 5.5): on each
 * piece of the periods, the splits of the chain into runs, each run given a
 * GPU, depth first in chain order; a partial split is dropped when its
 * lifetimes (the rest of the chain at its least) give no less than the
 * cutoff, when a GPU's runs exceed its room or the period, or when what is
 * left cannot fit what the GPUs have left. The least piece is searched
 * first, then halved; a piece whose splits below the cutoff are too many
 * is searched below a target a step above its bound instead, raised step
 * by step. opt's max_nodes (<= 0: none) and stop end it early:
 * the pieces not searched keep the plain chain's bound; opt's progress
 * hears the bound as it rises. Returns the least of cutoff and the bound,
 * -INFINITY on bad arguments (cutoff must be finite), out of memory, too
 * or too many layers (a single micro-batch: one period, as above); the
 * nodes visited in *nodes. */
double allocset_chain_packed(const struct problem *pb, double cutoff, double t_lo,
                             const struct allocset_options *opt, long *nodes);

/* The same rules at periods in [t1, t2]: into life[L], a lifetime no plan
 * of the elements with its period there can beat, element by element.
 * Returns 0; 1 when no plan with its period there fits (life untouched);
 * -1 on bad arguments or out of memory. */
int allocset_chain_lifetimes(const struct problem *pb, double t1, double t2, double *life);

/* Whether any plan of the elements fits at any period: the same rules at
 * a period longer than a micro-batch's whole round trip with a cut after
 * every element, where every in-flight count is 1 and every run's compute
 * is allowed. Any allocation of a fitting plan fits there too (one
 * micro-batch at a time: no more copies, the same cuts), so 1 proves that
 * no plan fits at all. Returns 0 when the rules pass, 1 when they prove
 * none fits, -1 on bad arguments, out of memory or beyond the step
 * budget (a chain of many thousands of elements). */
int allocset_chain_none_fits(const struct problem *pb);

/* The lifetimes of allocset_chain_lifetimes() at that period, into
 * life[L]; its return values. With one micro-batch (1f1b) every element
 * keeps one copy at any period, so life[0] there bounds the latency of
 * every plan at every period. */
int allocset_chain_round_trip(const struct problem *pb, double *life);

#endif
