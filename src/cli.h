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


/* Help text shared by `pipeplan --help` and the commands' own --help, so
 * that they cannot drift apart. Each is whole lines of "  --flag  what". */
#define CLI_HELP_KNOBS \
    "  --gpus N                 number of GPUs\n" \
    "  --memory SIZE            uniform memory cap per GPU, with a unit (e.g. 16GiB)\n" \
    "  --micro-batches M        micro-batches per iteration (mini-batch)\n" \
    "  --schedule 1f1b|pipedream  flushed 1F1B or asynchronous PipeDream\n" \
    "  --layout any|contiguous  may a GPU hold several ranges of layers\n" \
    "  --weight-factor PHI      bytes of weight state per parameter byte\n"

/* SECONDS: the default time limit, as text ("10" for solve, "30" for the
 * explorer). */
#define CLI_HELP_ILP(SECONDS) \
    "  --blocks N               blocks the ILP works on (0: every layer;\n" \
    "                           default 12 up to 4 GPUs, 16 above)\n" \
    "  --time-limit SECONDS     time for the ILP's whole search\n" \
    "                           (default " SECONDS ")\n" \
    "  --work-limit N           deterministic work limit for the ILP: CBC\n" \
    "                           branch-and-bound nodes summed over the search's\n" \
    "                           MIPs (plus one per MIP); when given, the seconds\n" \
    "                           limit is not used and the same inputs give the\n" \
    "                           same plan, status and bound on any machine\n" \
    "  --threads N              threads CBC may use (default 1)\n" \
    "  --log FILE               append CBC's log and the ILP's trace to FILE\n"

#define CLI_HELP_SOLVE_ONLY \
    "  --planner NAME[,NAME...]|all  planners to run (default all: ilp, dp,\n" \
    "                           pipedream, time, parameters, uniform)\n" \
    "  --json                   print JSON instead of the table\n"

#define CLI_HELP_IMPORT \
    "  --micro-batch N          samples per batch the profile was measured at\n" \
    "                           (required; the profile does not say)\n" \
    "  -o, --output OUT.ini     write to OUT.ini instead of standard output\n" \
    "  --force                  replace an existing OUT.ini\n" \
    "  --note TEXT              add TEXT as a comment line of the header (repeatable)\n"

#define CLI_EXPLORE_DEFAULT_SECONDS "30"   /* TUI_TIME_LIMIT in tui.h */
#define CLI_SOLVE_DEFAULT_SECONDS "10"

#define CLI_USAGE_SOLVE "pipeplan solve NETWORK.ini PLATFORM.ini [options]"
#define CLI_USAGE_CHECK "pipeplan check FILE..."
#define CLI_USAGE_IMPORT "pipeplan import pipedream GRAPH.txt --micro-batch N [-o OUT.ini] [--force]"

/* The embedded default spec files (generated from data/ at build time). */
extern const char default_network[], default_network_path[];
extern const char default_platform[], default_platform_path[];

#endif
