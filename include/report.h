/* report: plans as text for people (table) and JSON for machines. The
 * JSON shape is the contract of `pipeplan solve --json` and of exports. */
#ifndef PIPEPLAN_REPORT_H
#define PIPEPLAN_REPORT_H

#include <stdio.h>
#include "planner.h"

struct report {
    const struct problem *pb;        /* the layer-level problem */
    int blocks;                      /* elements the ILP worked on (L if none) */
    const struct planner_result *results;
    int nresults;
    double min_cap;                  /* NAN unless nothing fits */
    const char *min_cap_planner;
    const struct plan *min_cap_plan; /* the plan that fits at min_cap, or NULL */
    double min_cap_within;           /* min_cap is at most this above the smallest */
};

/* "" for one, "s" otherwise: "%d layer%s", n, report_s(n). */
const char *report_s(long n);

/* Returns 0, or -1 on a stream error. */
int report_json(FILE *out, const struct report *r);
int report_table(FILE *out, const struct report *r);
/* The least cap that fits (r->min_cap), rounded up as --memory takes it
 * back, and closely enough that no row's plan, needing more, fits there
 * too: the table gives that cap's own plan ("Plan that fits at"). */
char *report_min_cap_text(const struct report *r, char *buf, size_t len);

#endif
