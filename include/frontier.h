/* frontier: the best objective against a uniform memory cap, one curve per
 * planner, over a list of round caps; the bookkeeping of which points are
 * known and where each lands on a plot. Pure C, no I/O.
 *
 * Caps in bytes; objectives in ms (the period for pipedream, the iteration
 * time for 1f1b). */
#ifndef PIPEPLAN_FRONTIER_H
#define PIPEPLAN_FRONTIER_H

#include <stdbool.h>
#include "planner.h"

#define FRONTIER_MAX_CAPS 64
#define FRONTIER_MAX_PLANNERS 12

struct frontier_point {
    bool done;               /* computed (a point not done is not drawn) */
    bool fits;               /* a plan that fits the cap */
    enum plan_status status;
    double objective;        /* of the plan that fits, else NAN */
};

struct frontier {
    int ncap;
    double cap[FRONTIER_MAX_CAPS];            /* increasing, evenly spaced */
    int nplanner;
    const char *planner[FRONTIER_MAX_PLANNERS];   /* registry names, static */
    struct frontier_point pt[FRONTIER_MAX_PLANNERS][FRONTIER_MAX_CAPS];
};

/* The round caps to plot, into cap[] (at most nmax, <= FRONTIER_MAX_CAPS):
 * evenly spaced by the smallest step of 1/4, 1/2, 1, 2, 5, 10, 20, 50, ...
 * GiB that keeps them at most nmax, from the last multiple of the step
 * strictly below `fit` (the smallest cap at which some plan fits: the
 * points where planners stop fitting show) up to the first at or above
 * `all` (every planner's plan fits), never below one step. Returns the
 * count, or -1 when fit or all is not a positive number or nmax < 2. */
int frontier_caps(double fit, double all, int nmax, double *cap);

/* Empty curves over the caps for the planners (copied, clamped to the
 * maxima). */
void frontier_init(struct frontier *f, const double *cap, int ncap,
                   const char *const *planners, int nplanners);
/* The index of a planner, -1 when not in f. */
int frontier_planner(const struct frontier *f, const char *name);
/* Record a planner's result at cap k: fits and objective from the plan
 * (NULL: none), with its status. */
void frontier_set(struct frontier *f, int planner, int k, enum plan_status status,
                  const struct plan *pl);
/* Points done of one planner (or, with planner -1, of all). */
int frontier_done(const struct frontier *f, int planner);

/* Where planner stops fitting: the largest cap index with a computed point
 * that does not fit below a computed point that does, or -1. */
int frontier_stop(const struct frontier *f, int planner);
/* The range of the computed objectives that fit; false when there is none
 * (lo == hi when one value). */
bool frontier_range(const struct frontier *f, double *lo, double *hi);
/* The cap index nearest a cap (the lower one on a tie). */
int frontier_nearest(const struct frontier *f, double cap);

/* Plot positions on a grid of n points (0..n-1): the column of cap index
 * k, of any cap (-1 left of the caps, n right of them), and the row of an
 * objective between lo and hi, row 0 at the top (lo at the bottom). */
int frontier_col(const struct frontier *f, int k, int n);
int frontier_cap_col(const struct frontier *f, double cap, int n);
int frontier_row(double v, double lo, double hi, int n);

#endif
