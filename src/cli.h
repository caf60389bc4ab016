/* cli: the subcommands of the pipeplan binary. Each takes the argv slice
 * starting at its own name and returns the process exit status:
 * 0 success, 1 "no plan fits" (solve), 2 bad input or usage. */
#ifndef PIPEPLAN_CLI_H
#define PIPEPLAN_CLI_H

int cmd_check(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_default(void);

struct knobs;
/* Knob flags shared by solve and the explorer (--gpus, --memory, ...).
 * Returns 1 if argv[*i] was one (its value consumed), 0 if not, -1 after
 * printing a message for a bad value. */
int cli_parse_knob(int argc, char **argv, int *i, struct knobs *k);

/* The embedded default spec files (generated from data/ at build time). */
extern const char default_network[], default_network_path[];
extern const char default_platform[], default_platform_path[];

#endif
