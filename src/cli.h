/* cli: the subcommands of the pipeplan binary. Each takes the argv slice
 * starting at its own name and returns the process exit status:
 * 0 success, 1 "no plan fits" (solve), 2 bad input or usage. */
#ifndef PIPEPLAN_CLI_H
#define PIPEPLAN_CLI_H

#include <stdbool.h>

int cmd_check(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_explore(int argc, char **argv);   /* argv[0]: the program */

struct knobs;
/* Knob flags shared by solve and the explorer (--gpus, --memory, ...).
 * Returns 1 if argv[*i] was one (its value consumed), 0 if not, -1 after
 * printing a message for a bad value. */
int cli_parse_knob(int argc, char **argv, int *i, struct knobs *k);

/* The ILP's flags: --blocks N, --time-limit S, --work-limit N,
 * --threads N, --log FILE. */
struct ilp_args {
    double time_limit;
    long work_limit;         /* 0: none (seconds rule) */
    int threads;
    int blocks;              /* -1: automatic */
    const char *log_path;    /* NULL: CBC's log is discarded */
};
int cli_parse_ilp(int argc, char **argv, int *i, struct ilp_args *a);

/* "all" or "ilp,dp,...": fills out[] with static names; count or -1
 * (after printing why). */
int cli_parse_planners(const char *list, const char **out, int max);


/* The embedded default spec files (generated from data/ at build time). */
extern const char default_network[], default_network_path[];
extern const char default_platform[], default_platform_path[];

#endif
