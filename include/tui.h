/* tui: the live explorer. Shows the plans of every planner for the
 * current knobs, re-plans on each knob change (the solver runs in a
 * worker process, so the screen never waits for it) and exports the plan
 * on screen. The only module that uses curses. */
#ifndef PIPEPLAN_TUI_H
#define PIPEPLAN_TUI_H

#include "problem.h"
#include "spec.h"

/* Default ILP time limit in the explorer, seconds. */
#define TUI_TIME_LIMIT 30.0

struct tui_options {
    const char *network_path;    /* file to reload with r; NULL: built in */
    const char *platform_path;   /* likewise */
    struct knobs knobs;          /* starting knobs (0 / -1: as in the files) */
    double time_limit;           /* ILP seconds */
    long work_limit;             /* ILP deterministic work limit (0: none) */
    int threads;                 /* ILP threads */
    const char *log_path;        /* the solver's output goes there; NULL: nowhere */
    const char *split;           /* --split value, or NULL */
    const char *plan_path;       /* --plan file, or NULL */
};

/* Run the explorer on the terminal (stdin and stdout must be one) until
 * the user quits. Takes ownership of net and plat, which must be valid
 * for opt->knobs. Returns the exit status: 0 after q or Ctrl-C, 128+N
 * after a fatal signal N, 2 when the terminal cannot be used (the
 * message then goes to stderr). */
int tui_run(const struct tui_options *opt, struct spec_network *net,
            struct spec_platform *plat);

#endif
