/* bench_util: what the size benchmarks (bench_scale, bench_gpus) share:
 * a table of steps timed per size, the line a child sends for one step,
 * and the description of the machine. Not part of make check. */
#ifndef PIPEPLAN_BENCH_UTIL_H
#define PIPEPLAN_BENCH_UTIL_H

#include <stddef.h>

#define BENCH_MAX_SIZES 8
#define BENCH_MAX_STEPS 16

struct bench_step {
    char name[32];
    double sec[BENCH_MAX_SIZES];    /* NAN: not measured; INFINITY: stopped */
    double rss[BENCH_MAX_SIZES];    /* MiB, peak of the process after the step */
    char note[BENCH_MAX_SIZES][96];
};

/* Seconds on the monotonic clock. */
double bench_now(void);
/* The process's peak resident memory so far, MiB. */
double bench_peak_mib(void);
/* One line "step seconds rss note" on fd (a child to its parent); exits
 * the child (status 3) when the pipe refuses it. */
void bench_say(int fd, const char *step, double sec, double rss, const char *note);
/* The step named, added (unmeasured) when new; NULL when the table of
 * BENCH_MAX_STEPS is full. */
struct bench_step *bench_step_get(struct bench_step *steps, int *nsteps, const char *name);
/* Run run(fd, arg) in a child, its standard output to /dev/null (nothing
 * a planner or CBC prints may reach the table), and read the lines it
 * sends on fd (bench_say) into column k of the table (a step not in it
 * is added). run must end the child (_exit). Returns 0 when the child
 * exited with status 0, -1 otherwise. */
int bench_measure(struct bench_step *steps, int *nsteps, int k,
                  void (*run)(int fd, const void *arg), const void *arg);
/* A time for the table: "-" unmeasured, ">LIMIT" stopped. */
void bench_fmt_sec(double s, double limit, char *buf, size_t len);
/* Five lines: cpu, memory, date and git revision, the load at the end
 * (with the environment variable note_env's text: what else ran), and
 * network. */
void bench_machine(char lines[5][256], const char *note_env, const char *network);

#endif
