/* bench_planners: the figures behind the planning engine and the ILP.
 *
 *   bench_planners machine     CPU model, cores, load, date
 *   bench_planners baselines   each baseline's period / T_lb on every
 *                              data/ network x platform, both schedules
 *   bench_planners targets [SECONDS [WORK [WHICH]]]
 *                              issue 11's targets 1, 2, 4, 5 and 6, each
 *                              with what is measured, its limit, the
 *                              figure and met / NOT met; SECONDS (> 0)
 *                              shortens the targets' own limits (10 s,
 *                              30 s) for quick runs, WORK is target 6's
 *                              work limit (default 200000), WHICH the
 *                              target numbers to run (e.g. 14; 5 and 6
 *                              reuse or repeat the runs of 1, 2 and 4)
 *   bench_planners bound [SECONDS [contiguous]]
 *                              target 3: the network bound on every
 *                              data/ network x platform, SECONDS (default
 *                              60) per pair; with contiguous, the same
 *                              pairs with that layout (not the target's
 *                              settings: for the figures of that layout)
 *   bench_planners ilp [SECS [WORD]]
 *                              the per-row ILP table (status, gaps, MIP
 *                              sizes and times): resnet50, 12 blocks, 4
 *                              GPUs of 40 GiB (pipedream), then every
 *                              network at 16 blocks on every 8-GPU
 *                              platform, SECS (default 30) each; WORD
 *                              keeps the rows whose network or platform
 *                              contains it
 *
 * Figures against limits, one run: nothing here asserts a time, and none
 * of it is part of make check. Run from the source tree (or set
 * PIPEPLAN_SRCDIR). CBC prints to stdout, so the tables go to the
 * original stdout and CBC's chatter to /dev/null. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ilp.h"
#include "planner.h"
#include "simulate.h"
#include "spec.h"
#include "tui.h"
#include "units.h"

static const char *const networks[] = { "alexnet", "vgg16", "resnet50", "gnmt" };
static const char *const platforms[] = {
    "v100-16gb-pcie-4", "a10-24gb-pcie-4", "dgx1-v100-32gb", "a100-40gb-8", "dgx-a100-80gb",
    "dgx-h100",
};
#define NNET (int)(sizeof networks / sizeof networks[0])
#define NPLAT (int)(sizeof platforms / sizeof platforms[0])

static FILE *out;

static struct problem *load(const char *net, const char *plat, const struct knobs *k)
{
    const char *dir = getenv("PIPEPLAN_SRCDIR");
    char a[1024], b[1024], err[SPEC_ERR_LEN];
    snprintf(a, sizeof a, "%s/data/networks/%s.ini", dir ? dir : ".", net);
    snprintf(b, sizeof b, "%s/data/platforms/%s.ini", dir ? dir : ".", plat);
    struct spec_network *n = spec_network_load(a, err, sizeof err);
    struct spec_platform *p = n ? spec_platform_load(b, err, sizeof err) : NULL;
    struct problem *pb = p ? problem_create(n, p, k, err, sizeof err) : NULL;
    if (!pb)
        fprintf(stderr, "%s\n", err);
    spec_network_free(n);
    spec_platform_free(p);
    return pb;
}

static int bench_baselines(void)
{
    fprintf(out, "Baselines: period / T_lb (x = does not fit; its peak memory need in "
            "brackets)\n\n");
    for (int sched = 0; sched < 2; sched++) {
        fprintf(out, "%s schedule, micro-batches from the platform file\n",
                spec_schedule_name(sched));
        fprintf(out, "%-9s %-17s %9s", "network", "platform", "T_lb");
        for (int i = 0; i < planner_count(); i++)
            if (!planner_is_solver(planner_name(i)))
                fprintf(out, " %17s", planner_name(i));
        fprintf(out, "\n");
        for (int n = 0; n < NNET; n++) {
            for (int p = 0; p < NPLAT; p++) {
                struct knobs k;
                knobs_init(&k);
                k.schedule = sched;
                struct problem *pb = load(networks[n], platforms[p], &k);
                if (!pb)
                    return 1;
                double lb = problem_lower_bound(pb);
                char t[32];
                fprintf(out, "%-9s %-17s %9s", networks[n], platforms[p],
                        units_format_time(lb, t, sizeof t));
                for (int i = 0; i < planner_count(); i++) {
                    struct planner_result res;
                    struct sim_report rep;
                    if (planner_is_solver(planner_name(i)))
                        continue;
                    planner_run(planner_name(i), pb, &res);
                    char cell[32], mem[32];
                    if (!res.plan || simulate_plan(res.plan, pb, &rep) != SIM_OK)
                        snprintf(cell, sizeof cell, "REJECTED");
                    else if (res.plan->fits)
                        snprintf(cell, sizeof cell, "%.3f", res.plan->T / lb);
                    else
                        snprintf(cell, sizeof cell, "%.3f x(%s)", res.plan->T / lb,
                                 units_format_size(res.plan->peak_memory, mem, sizeof mem));
                    fprintf(out, " %17s", cell);
                    planner_result_clear(&res);
                }
                fprintf(out, "\n");
                problem_free(pb);
            }
        }
        fprintf(out, "\n");
    }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct trace {
    int plans, rejected;
    const struct problem *pb;
    double proven_at;
};

/* Records in *at the first moment the reported bound for the blocks meets
 * the plan: a search that has proven its plan goes on with the time left
 * on the network's bound, so its end is not when it proved. */
static void proven_moment(double *at, const struct ilp_progress *p)
{
    double bb = isfinite(p->block_bound) ? p->block_bound : p->bound;
    if (*at < 0 && isfinite(p->objective) && isfinite(bb) &&
        (p->objective - bb) / p->objective <= ILP_GAP)
        *at = p->elapsed;
}

static void on_progress(void *ctx, const struct ilp_progress *p)
{
    struct trace *t = ctx;
    struct sim_report rep;
    proven_moment(&t->proven_at, p);
    if (p->plan) {
        t->plans++;
        if (simulate_plan(p->plan, t->pb, &rep) != SIM_OK)
            t->rejected++;
    }
}

static const char *only;       /* row filter, or NULL */

static void ilp_row(const char *net, const char *plat, const struct knobs *k, int blocks,
                    double secs)
{
    if (only && !strstr(net, only) && !strstr(plat, only))
        return;
    struct problem *pb = load(net, plat, k);
    if (!pb)
        return;
    double best_base = INFINITY;
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        planner_run(planner_name(i), pb, &res);
        if (res.plan && res.plan->fits && res.plan->objective < best_base)
            best_base = res.plan->objective;
        planner_result_clear(&res);
    }
    struct ilp_options opt;
    struct ilp_stats st;
    struct planner_result res;
    struct trace tr = { 0, 0, pb, -1 };
    ilp_options_init(&opt);
    opt.blocks = blocks;
    opt.time_limit = secs;
    opt.on_progress = on_progress;
    opt.ctx = &tr;
    double t0 = now();
    ilp_solve(pb, &opt, &res, &st);
    double wall = now() - t0;
    double obj = res.plan && res.plan->fits ? res.plan->objective : NAN;
    double gap = planner_gap(&res);
    /* the search's own target: the bound proven for its blocks */
    double bb = isfinite(res.block_bound) ? res.block_bound : res.bound;
    double bgap = isfinite(bb) && isfinite(obj) ? fmax(0, (obj - bb) / obj) : NAN;
    char first[16], proven[16];
    if (st.first_better_seconds >= 0)
        snprintf(first, sizeof first, "%.2f", st.first_better_seconds);
    else
        snprintf(first, sizeof first, "-");
    if (res.status == PLAN_OPTIMAL || res.status == PLAN_BLOCK_OPTIMAL)
        snprintf(proven, sizeof proven, "%.2f", tr.proven_at >= 0 ? tr.proven_at : wall);
    else
        snprintf(proven, sizeof proven, "-");
    fprintf(out, "%-9s %-17s %-9s %3d %-13s %8s %8s %7.2f%% %7.2f%% %8.4f %8.4f %5d %5d %5d %3d/%d"
            "   %3d %5.1f %4d %5.1f %5.1f\n",
            net, plat, spec_schedule_name(pb->schedule), st.blocks,
            plan_status_name(res.status), first, proven, 100 * bgap, 100 * gap, obj / best_base,
            res.plan ? res.plan->T / problem_lower_bound(pb) : NAN, st.rows, st.cols,
            st.integers, tr.plans - tr.rejected, tr.plans, st.masters, st.master_seconds,
            st.subproblems, st.sub_seconds, st.refine_seconds);
    planner_result_clear(&res);
    problem_free(pb);
}

static void ilp_header(void)
{
    fprintf(out, "%-9s %-17s %-9s %3s %-13s %8s %8s %8s %8s %8s %8s %5s %5s %5s %s   %3s %5s %4s "
            "%5s %5s\n", "network", "platform", "schedule", "blk", "status", "better@s",
            "proven@s", "blk-gap", "gap", "ILP/base", "T/T_lb", "rows", "cols", "ints", "simulated", "mst",
            "mst@s", "sub", "sub@s", "ref@s");
}

static int bench_ilp(double secs)
{
    fprintf(out, "ILP table 1: resnet50, 12 blocks, 4 GPUs x 40 GiB, 12 GB/s, phi 4, "
            "pipedream, 10 s\n");
    ilp_header();
    struct knobs k;
    knobs_init(&k);
    k.gpus = 4;
    k.memory = 40ULL << 30;
    k.schedule = SPEC_SCHEDULE_PIPEDREAM;
    ilp_row("resnet50", "v100-16gb-pcie-4", &k, 12, 10);
    fprintf(out, "\nILP table 2: every network, 16 blocks, 8 GPUs, platform files as they are, "
            "%.0f s each\n", secs);
    ilp_header();
    static const char *const eight[] = { "dgx1-v100-32gb", "a100-40gb-8", "dgx-a100-80gb",
                                         "dgx-h100" };
    for (int n = 0; n < NNET; n++)
        for (int p = 0; p < 4; p++) {
            knobs_init(&k);
            ilp_row(networks[n], eight[p], &k, 16, secs);
            fflush(out);
        }
    fprintf(out, "\nbetter@s: first plan better than the best fitting baseline; proven@s: "
            "time to the optimum proven for the blocks; blk-gap: over the bound proven for the\n"
            "blocks, gap: over the bound for the network's own layers, at the end;\nILP/base: ILP objective over the "
            "best fitting baseline's; simulated: plans reported / accepted by the simulator;\n"
            "mst, sub: master and schedule MIPs solved, with their seconds; ref@s: seconds "
            "of layer-level refinement.\n");
    return 0;
}


/* ---- the machine ---- */

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon++;
            while (*colon == ' ' || *colon == '\t')
                colon++;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static void load_average(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, c;
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    if (f)
        fclose(f);
}

static void date_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S %z", &tm))
        snprintf(buf, len, "?");
}

/* One line: when a table was measured and how busy the machine was. */
static void machine_line(const char *what)
{
    char cpu[256], load[64], date[64];
    cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    date_now(date, sizeof date);
    fprintf(out, "%s: %s, %ld cores online, load average %s, %s\n", what, cpu,
            sysconf(_SC_NPROCESSORS_ONLN), load, date);
}

static int bench_machine(void)
{
    char cpu[256], load[64], date[64];
    cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    date_now(date, sizeof date);
    fprintf(out, "Machine\n  CPU:          %s\n  cores:        %ld online (%ld configured)\n"
            "  load average: %s (1, 5, 15 min; other users share this machine)\n"
            "  date:         %s\n\n", cpu, sysconf(_SC_NPROCESSORS_ONLN),
            sysconf(_SC_NPROCESSORS_CONF), load, date);
    return 0;
}

/* ---- issue 11's targets ---- */

static const char *mark(bool met)
{
    return met ? "met" : "NOT met";
}

static char *pct(double x, char *buf, size_t len)
{
    if (isfinite(x))
        snprintf(buf, len, "%.2f%%", 100 * x);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

static char *ms(double x, char *buf, size_t len)
{
    if (isfinite(x))
        return units_format_time(x, buf, len);
    snprintf(buf, len, "none");
    return buf;
}

/* One ILP run of a target instance and what the targets read from it. */
struct inst {
    char label[96];
    double limit;                /* seconds asked for (0 under a work limit) */
    long work;                   /* work limit, or 0 */
    double base;                 /* best fitting baseline's objective, INFINITY: none */
    const char *base_name;
    enum plan_status status;
    int blocks;
    bool fits;
    double obj, bound, block_bound, gap, bgap;
    double first_better;         /* seconds, or -1 */
    double wall;
    double proven_at;            /* seconds until the bound for its blocks met
                                  * the plan (the search goes on after it, on
                                  * the network's bound), or -1 */
    double goal;                 /* a gap target's gap (0: none) */
    bool network_goal;           /* judged on the network gap alone, not the
                                  * smaller of it and the block gap */
    double reached_at;           /* seconds until the gap met the goal (a
                                  * work-limited search goes on after it, to
                                  * its limit), or -1 */
    bool ran;
    bool guarded;                /* stopped by the bench's guard, not its limit */
    int crashed;                 /* the run's process died: its signal, or -1 */
};

/* A work-limited run has no clock; the bench stops one that outlasts
 * GUARD_FACTOR x its target's seconds (a cancel, polled between MIPs),
 * so that make bench ends: such a run is reported as stopped, not as a
 * figure of the work limit. */
#define GUARD_FACTOR 3
static volatile int guard_hit;

static void on_alarm(int sig)
{
    (void)sig;
    guard_hit = 1;
}

static void best_baseline(const struct problem *pb, double *obj, const char **name)
{
    *obj = INFINITY;
    *name = NULL;
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        if (planner_run(planner_name(i), pb, &res) == 0 && res.plan && res.plan->fits &&
            res.plan->objective < *obj) {
            *obj = res.plan->objective;
            *name = planner_name(i);
        }
        planner_result_clear(&res);
    }
}

static void inst_progress(void *ctx, const struct ilp_progress *p)
{
    struct inst *r = ctx;
    proven_moment(&r->proven_at, p);
    if (r->goal > 0 && r->reached_at < 0 && isfinite(p->objective)) {
        double g = (p->objective - p->bound) / p->objective;
        if (!r->network_goal && isfinite(p->block_bound))
            g = fmin(g, (p->objective - p->block_bound) / p->objective);
        if (g <= r->goal)
            r->reached_at = p->elapsed;
    }
}

/* When a gap target's run met it: the moment its gap reached the goal
 * (the search goes on after it until its limit), else its end. */
static double reached(const struct inst *r)
{
    return r->reached_at >= 0 ? r->reached_at : r->wall;
}

/* Run the ILP on pb (blocks: -1 automatic, else the count) under a time
 * limit (secs) or, when work > 0, the work limit alone. */
static void inst_solve(struct inst *r, const struct problem *pb, int blocks, double secs, long work,
                     double guard)
{
    best_baseline(pb, &r->base, &r->base_name);
    struct ilp_options opt;
    struct ilp_stats st;
    struct planner_result res;
    ilp_options_init(&opt);
    opt.blocks = blocks;
    opt.time_limit = work > 0 ? 0 : secs;
    opt.work_limit = work;
    opt.on_progress = inst_progress;
    opt.ctx = r;
    r->proven_at = -1;
    r->reached_at = -1;
    r->limit = work > 0 ? 0 : secs;
    r->work = work;
    guard_hit = 0;
    if (work > 0 && guard > 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        opt.cancel = &guard_hit;
        alarm((unsigned)ceil(guard));
    }
    double t0 = now();
    ilp_solve(pb, &opt, &res, &st);
    r->wall = now() - t0;
    alarm(0);
    r->guarded = guard_hit != 0;
    r->status = res.status;
    r->blocks = st.blocks;
    r->fits = res.plan && res.plan->fits;
    r->obj = r->fits ? res.plan->objective : NAN;
    r->bound = res.bound;
    r->block_bound = isfinite(res.block_bound) ? res.block_bound : res.bound;
    r->gap = planner_gap(&res);
    r->bgap = isfinite(r->block_bound) && r->fits
        ? fmax(0, (r->obj - r->block_bound) / r->obj) : NAN;
    r->first_better = st.first_better_seconds;
    r->ran = true;
    planner_result_clear(&res);
}

/* inst_solve in a child process, as the explorer and `solve` run the ILP
 * (worker.c): a solver that dies takes one row with it, not the bench,
 * and no run inherits another's state. */
static void inst_run(struct inst *r, const struct problem *pb, int blocks, double secs, long work,
                     double guard)
{
    int fd[2];
    fflush(NULL);
    if (pipe(fd) != 0) {
        inst_solve(r, pb, blocks, secs, work, guard);
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        inst_solve(r, pb, blocks, secs, work, guard);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        inst_solve(r, pb, blocks, secs, work, guard);
        const char *p = (const char *)r;
        size_t left = sizeof *r;
        while (left > 0) {
            ssize_t n = write(fd[1], p, left);
            if (n <= 0)
                _exit(1);
            p += n;
            left -= (size_t)n;
        }
        _exit(0);
    }
    close(fd[1]);
    struct inst got;
    char *p = (char *)&got;
    size_t have = 0;
    double t0 = now();
    while (have < sizeof got) {
        ssize_t n = read(fd[0], p + have, sizeof got - have);
        if (n > 0)
            have += (size_t)n;
        else if (n == 0 || errno != EINTR)
            break;
    }
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (have == sizeof got) {
        *r = got;
        return;
    }
    r->ran = true;
    r->status = PLAN_ERROR;
    r->fits = false;
    r->obj = r->bound = r->block_bound = r->gap = r->bgap = NAN;
    r->first_better = -1;
    r->wall = now() - t0;
    r->crashed = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

static const char guard_note[] = ", STOPPED by the bench's guard before the work limit";

static const char *status_text(const struct inst *r, char *buf, size_t len)
{
    if (r->crashed > 0)
        snprintf(buf, len, "crashed (signal %d)", r->crashed);
    else if (r->crashed < 0)
        snprintf(buf, len, "died without a result");
    if (r->crashed)
        return buf;
    return planner_status_text(r->status, r->blocks, buf, len);
}

/* The seconds a target allows, shortened to `cap` when cap > 0 (quick
 * runs while developing: a target missed under a shortened limit is
 * inconclusive, and said so). */
static double cap_secs = 0;

static double limit_for(double target)
{
    return cap_secs > 0 && cap_secs < target ? cap_secs : target;
}

static void shortened_note(double target)
{
    if (limit_for(target) < target)
        fprintf(out, "  NOTE: limit shortened from %g s to %g s (BENCH_SECONDS): a target NOT met "
                "here is inconclusive\n", target, limit_for(target));
}

static bool proven(const struct inst *r)
{
    return r->status == PLAN_OPTIMAL || r->status == PLAN_BLOCK_OPTIMAL;
}

/* target 1 */
#define T1_SECONDS 10.0
static struct inst t1[2];

static bool t1_verdict(const struct inst *r, double within, char *fig, size_t flen, char *dist,
                       size_t dlen)
{
    char b[32];
    /* proven when the bound met the plan; a run ends later when its
     * time left goes to the network's bound */
    double at = r->proven_at >= 0 ? r->proven_at : r->wall;
    bool met = proven(r) && at <= within;
    if (proven(r))
        snprintf(fig, flen, "proven optimal for %d blocks at %.2f s", r->blocks, at);
    else if (r->fits)
        snprintf(fig, flen, "not proven: block gap %s at %.2f s", pct(r->bgap, b, sizeof b),
                 r->wall);
    else
        snprintf(fig, flen, "not proven: %s, no plan that fits, at %.2f s",
                 plan_status_name(r->status), r->wall);
    if (met)
        dist[0] = '\0';
    else if (proven(r))
        snprintf(dist, dlen, " (distance: %.2f s over %g s)", at - within, within);
    else
        snprintf(dist, dlen, " (distance: block gap %s left)", pct(r->bgap, b, sizeof b));
    return met;
}

static void t1_load(struct problem **pb, int sched)
{
    struct knobs k;
    knobs_init(&k);
    k.schedule = sched;
    *pb = load("resnet50", "v100-16gb-pcie-4", &k);
}

static bool target1_print(struct inst *rs, const char *title)
{
    bool all = true;
    char fig[128], dist[96];
    for (int i = 0; i < 2; i++) {
        bool met = t1_verdict(&rs[i], T1_SECONDS, fig, sizeof fig, dist, sizeof dist);
        fprintf(out, "  %-28s figure: %-52s %s%s", rs[i].label, fig, mark(met), dist);
        if (rs[i].work > 0)
            fprintf(out, "  [wall %.2f s%s]", rs[i].wall, rs[i].guarded ? guard_note : "");
        fprintf(out, "\n");
        all = all && met;
    }
    fprintf(out, "  %s: %s\n", title, mark(all));
    return all;
}

static void target1(void)
{
    double lim = limit_for(T1_SECONDS);
    fprintf(out, "Target 1: built-in example (resnet50 on v100-16gb-pcie-4, the files' settings), "
            "both schedules, default blocks\n"
            "  measured: seconds until the bound for the blocks meets the plan (the status at the end:\n"
            "            optimal or optimal for its blocks; the time left then goes to the network's bound)\n"
            "  limit:    %g s time limit per run\n"
            "  target:   proven optimal for the default blocks in <= %g s\n", lim, T1_SECONDS);
    shortened_note(T1_SECONDS);
    for (int sched = 0; sched < 2; sched++) {
        struct problem *pb;
        t1_load(&pb, sched);
        if (!pb)
            return;
        snprintf(t1[sched].label, sizeof t1[sched].label, "%s, %d blocks",
                 spec_schedule_name(sched), ilp_default_blocks(pb));
        inst_run(&t1[sched], pb, -1, lim, 0, 0);
        problem_free(pb);
    }
    target1_print(t1, "target 1");
    fprintf(out, "\n");
    fflush(out);
}

/* target 2 */
#define T2_SECONDS 30.0
#define T2_GAP 0.02
static const char *const t2_nets[] = { "vgg16", "resnet50" };
static struct inst t2[2];

static double t2_judged(const struct inst *r)
{
    return isfinite(r->gap) && (!isfinite(r->bgap) || r->gap < r->bgap) ? r->gap : r->bgap;
}

static struct problem *t2_load(int i)
{
    struct knobs k;
    knobs_init(&k);
    k.gpus = 8;
    k.schedule = SPEC_SCHEDULE_1F1B;
    return load(t2_nets[i], "dgx1-v100-32gb", &k);
}

/* The end of a gap target's row: how far a missed run is (a gap over the
 * target, `none` when there is no gap to judge, or seconds over `within`
 * under a work limit), and a work-limited run's wall time and the moment
 * its gap met the target. */
static void gap_row_end(const struct inst *r, bool met, double g, double target, const char *none,
                        double within)
{
    if (!met && isfinite(g) && g > target)
        fprintf(out, " (distance: %.2f points over %.0f%%)", 100 * (g - target), 100 * target);
    else if (!met && none)
        fprintf(out, " (distance: %s)", none);
    else if (!met)
        fprintf(out, " (distance: %.2f s over %g s)", reached(r) - within, within);
    if (r->work > 0 && r->reached_at >= 0)
        fprintf(out, "  [gap within %.0f%% at %.2f s; wall %.2f s%s]", 100 * target,
                r->reached_at, r->wall, r->guarded ? guard_note : "");
    else if (r->work > 0)
        fprintf(out, "  [wall %.2f s%s]", r->wall, r->guarded ? guard_note : "");
    fprintf(out, "\n");
}

static bool target2_print(struct inst *rs, const char *title, double within)
{
    bool all = true;
    char b1[32], b2[32], b3[32], b4[32];
    for (int i = 0; i < 2; i++) {
        const struct inst *r = &rs[i];
        double j = t2_judged(r);
        bool met = isfinite(j) && j <= T2_GAP && (r->work == 0 || reached(r) <= within);
        fprintf(out, "  %-28s %-22s block gap %8s, network gap %8s -> judged %8s  %s",
                r->label, status_text(r, b3, sizeof b3), pct(r->bgap, b1, sizeof b1),
                pct(r->gap, b2, sizeof b2), pct(j, b4, sizeof b4), mark(met));
        gap_row_end(r, met, j, T2_GAP, isfinite(j) ? NULL : "no plan that fits", within);
        all = all && met;
    }
    fprintf(out, "  %s: %s\n", title, mark(all));
    return all;
}

static void target2(void)
{
    double lim = limit_for(T2_SECONDS);
    fprintf(out, "Target 2: vgg16 and resnet50 on dgx1-v100-32gb, 16 blocks, 8 GPUs, 1f1b\n"
            "  measured: block gap (objective - block bound) / objective and network gap "
            "(planner_gap) at the end;\n"
            "            judged on the block gap, or the network gap when it is available "
            "and smaller\n"
            "  limit:    %g s time limit per run\n"
            "  target:   gap <= %.0f%% in %g s\n", lim, 100 * T2_GAP, T2_SECONDS);
    shortened_note(T2_SECONDS);
    for (int i = 0; i < 2; i++) {
        struct problem *pb = t2_load(i);
        if (!pb)
            return;
        snprintf(t2[i].label, sizeof t2[i].label, "%s, 16 blocks", t2_nets[i]);
        t2[i].goal = T2_GAP;
        inst_run(&t2[i], pb, 16, lim, 0, 0);
        problem_free(pb);
    }
    target2_print(t2, "target 2", T2_SECONDS);
    fprintf(out, "\n");
    fflush(out);
}

/* target 4 */
#define T4_SECONDS 30.0
#define T4_GAP 0.01
#define MIB (1024.0 * 1024.0)
struct t4_case {
    const char *net;
    int ranks;
};
static const struct t4_case t4_cases[] = { { "llama3-70b", 8 }, { "gpt3-175b", 16 } };
static struct inst t4[2];
static double t4_cap[2];

/* The problem with the cap just below what the even split needs: the
 * uniform planner's peak need without a cap, times 0.99, down to a MiB.
 * Prints the cap and whether the even split indeed no longer fits. */
static struct problem *t4_load(int i, bool say)
{
    struct knobs k;
    knobs_init(&k);
    k.gpus = t4_cases[i].ranks;
    k.micro_batches = 4L * t4_cases[i].ranks;
    k.schedule = SPEC_SCHEDULE_1F1B;
    if (!(t4_cap[i] > 0)) {
        k.memory = 1ULL << 50;   /* no cap to speak of */
        struct problem *free_pb = load(t4_cases[i].net, "h100-ib-8nodes", &k);
        if (!free_pb)
            return NULL;
        struct planner_result res;
        planner_run("uniform", free_pb, &res);
        double need = res.plan ? res.plan->peak_memory : NAN;
        planner_result_clear(&res);
        problem_free(free_pb);
        if (!isfinite(need))
            return NULL;
        t4_cap[i] = floor(0.99 * need / MIB) * MIB;
        if (say) {
            char b1[32], b2[32];
            fprintf(out, "  %s, %d ranks: the even split needs %s per GPU; cap %s (%.0f MiB)",
                    t4_cases[i].net, t4_cases[i].ranks, units_format_size(need, b1, sizeof b1),
                    units_format_size(t4_cap[i], b2, sizeof b2), t4_cap[i] / MIB);
        }
    }
    k.memory = (uint64_t)t4_cap[i];
    struct problem *pb = load(t4_cases[i].net, "h100-ib-8nodes", &k);
    if (pb && say) {
        struct planner_result res;
        planner_run("uniform", pb, &res);
        fprintf(out, "; under it the even split %s\n",
                res.plan && !res.plan->fits ? "does not fit (as intended)"
                                            : "FITS (the cap is wrong)");
        planner_result_clear(&res);
    }
    return pb;
}

static bool target4_print(struct inst *rs, const char *title, double within)
{
    bool all = true;
    char b1[32], b2[32];
    for (int i = 0; i < 2; i++) {
        const struct inst *r = &rs[i];
        bool infeasible = r->status == PLAN_INFEASIBLE;
        bool met = (infeasible || (isfinite(r->gap) && r->gap <= T4_GAP)) &&
                   (r->work == 0 || (infeasible ? r->wall : reached(r)) <= within);
        char fig[96];
        if (infeasible)
            snprintf(fig, sizeof fig, "proven infeasible");
        else if (r->fits)
            snprintf(fig, sizeof fig, "gap %s", pct(r->gap, b1, sizeof b1));
        else
            snprintf(fig, sizeof fig, "no plan that fits, not proven");
        fprintf(out, "  %-28s %-22s figure: %-30s %s", r->label, status_text(r, b2, sizeof b2),
                fig, mark(met));
        gap_row_end(r, met, r->fits ? r->gap : NAN, T4_GAP,
                    !infeasible && !r->fits ? "no plan and no proof" : NULL, within);
        all = all && met;
    }
    fprintf(out, "  %s: %s\n", title, mark(all));
    return all;
}

static void target4(void)
{
    double lim = limit_for(T4_SECONDS);
    fprintf(out, "Target 4: LLM scale on h100-ib-8nodes (tensor parallel 8 per rank), 1f1b, "
            "micro-batches 4 x the ranks,\n"
            "          the per-GPU cap at 99%% of the even split's need (down to a MiB), so "
            "that it does not fit\n"
            "  measured: the ILP's gap to the network bound (planner_gap) at the end, or its "
            "proof of infeasibility\n"
            "  limit:    %g s time limit per run, default blocks\n"
            "  target:   within %.0f%% of the network bound in %g s, or proven infeasible\n",
            lim, 100 * T4_GAP, T4_SECONDS);
    shortened_note(T4_SECONDS);
    for (int i = 0; i < 2; i++) {
        struct problem *pb = t4_load(i, true);
        if (!pb) {
            fprintf(out, "  %s: could not build the problem\n", t4_cases[i].net);
            return;
        }
        snprintf(t4[i].label, sizeof t4[i].label, "%s, %d ranks, m %ld", t4_cases[i].net,
                 t4_cases[i].ranks, pb->m);
        t4[i].goal = T4_GAP;
        t4[i].network_goal = true;
        inst_run(&t4[i], pb, -1, lim, 0, 0);
        problem_free(pb);
    }
    target4_print(t4, "target 4", T4_SECONDS);
    fprintf(out, "\n");
    fflush(out);
}

/* target 5 */
#define T5_SECONDS 2.0

static bool target5_rows(struct inst *rs, int n, int *better)
{
    bool all = true;
    char b1[32], b2[32];
    for (int i = 0; i < n; i++) {
        const struct inst *r = &rs[i];
        if (!r->ran)
            continue;
        bool found = r->fits && r->obj < r->base * (1 - 1e-9);
        fprintf(out, "  %-28s best baseline %10s (%-10s) ILP %10s  ", r->label,
                ms(r->base, b1, sizeof b1), r->base_name ? r->base_name : "none fits",
                ms(r->obj, b2, sizeof b2));
        if (!found) {
            fprintf(out, "no better plan found\n");
            continue;
        }
        (*better)++;
        bool met = r->first_better >= 0 && r->first_better <= T5_SECONDS;
        fprintf(out, "first better at %6.2f s  %s", r->first_better, mark(met));
        if (!met)
            fprintf(out, " (distance: %.2f s over %g s)", r->first_better - T5_SECONDS,
                    T5_SECONDS);
        fprintf(out, "\n");
        all = all && met;
    }
    return all;
}

static bool target5_print(struct inst *a, struct inst *b, struct inst *c, const char *title)
{
    int better = 0;
    bool all = target5_rows(a, 2, &better);
    all = target5_rows(b, 2, &better) && all;
    all = target5_rows(c, 2, &better) && all;
    fprintf(out, "  %s: %s (%d instance%s with a plan better than the best baseline; "
            "the others found none, so there is nothing to time)\n", title, mark(all), better,
            better == 1 ? "" : "s");
    return all;
}

static void target5(void)
{
    fprintf(out, "Target 5: first improvement, the runs of targets 1, 2 and 4 above\n"
            "  measured: seconds from the start of the ILP to its first plan better than the "
            "best fitting baseline (ilp_stats.first_better_seconds)\n"
            "  limit:    those runs' limits\n"
            "  target:   wherever a better plan than the best baseline exists, the first one "
            "comes within %g s\n", T5_SECONDS);
    target5_print(t1, t2, t4, "target 5");
    fprintf(out, "\n");
    fflush(out);
}

/* target 6 */
static void target6(long work)
{
    static struct inst w1[2], w2[2], w4[2];
    fprintf(out, "Target 6: targets 1, 2, 4 and 5 again under the deterministic work limit "
            "(ilp_options.work_limit = %ld, no seconds limit)\n"
            "  measured: the same figures, the moment each met its target (the proof, or the gap\n"
            "            within the target; the search goes on after it to its work limit) and\n"
            "            each run's wall time (printed [wall])\n"
            "  limit:    work %ld per run (BENCH_WORK)\n"
            "  target:   the same targets, met within their seconds\n"
            "  guard:    a run still going at %d x its target's seconds is stopped (a cancel) "
            "and says so;\n"
            "            met only if it met its target before\n", work, work, GUARD_FACTOR);
    for (int sched = 0; sched < 2; sched++) {
        struct problem *pb;
        t1_load(&pb, sched);
        if (!pb)
            return;
        snprintf(w1[sched].label, sizeof w1[sched].label, "%s, %d blocks",
                 spec_schedule_name(sched), ilp_default_blocks(pb));
        inst_run(&w1[sched], pb, -1, 0, work, GUARD_FACTOR * limit_for(T1_SECONDS));
        problem_free(pb);
    }
    bool all = target1_print(w1, "target 1 under the work limit");
    fflush(out);
    for (int i = 0; i < 2; i++) {
        struct problem *pb = t2_load(i);
        if (!pb)
            return;
        snprintf(w2[i].label, sizeof w2[i].label, "%s, 16 blocks", t2_nets[i]);
        w2[i].goal = T2_GAP;
        inst_run(&w2[i], pb, 16, 0, work, GUARD_FACTOR * limit_for(T2_SECONDS));
        problem_free(pb);
    }
    all = target2_print(w2, "target 2 under the work limit", T2_SECONDS) && all;
    fflush(out);
    for (int i = 0; i < 2; i++) {
        struct problem *pb = t4_load(i, false);
        if (!pb)
            return;
        snprintf(w4[i].label, sizeof w4[i].label, "%s, %d ranks, m %ld", t4_cases[i].net,
                 t4_cases[i].ranks, pb->m);
        w4[i].goal = T4_GAP;
        w4[i].network_goal = true;
        inst_run(&w4[i], pb, -1, 0, work, GUARD_FACTOR * limit_for(T4_SECONDS));
        problem_free(pb);
    }
    all = target4_print(w4, "target 4 under the work limit", T4_SECONDS) && all;
    all = target5_print(w1, w2, w4, "target 5 under the work limit") && all;
    fprintf(out, "  target 6, work limit: %s\n", mark(all));
    /* the explorer's default: seconds, and targets 1 and 2 are judged at
     * limits no longer than it */
    bool seconds_ok = true;
    for (int i = 0; i < 2; i++) {
        char f[128], d[96];
        if (t1[i].ran)
            seconds_ok = t1_verdict(&t1[i], T1_SECONDS, f, sizeof f, d, sizeof d) && seconds_ok;
        if (t2[i].ran)
            seconds_ok = isfinite(t2_judged(&t2[i])) && t2_judged(&t2[i]) <= T2_GAP && seconds_ok;
    }
    fprintf(out, "  the explorer's default limit, %g s (TUI_TIME_LIMIT), is no less than "
            "targets 1 and 2 ask for (%g s, %g s);\n"
            "  it reaches them on this machine as far as the seconds runs of targets 1 and 2 "
            "above do: %s\n",
            TUI_TIME_LIMIT, T1_SECONDS, T2_SECONDS,
            t1[0].ran || t2[0].ran ? mark(seconds_ok) : "not judged (targets 1 and 2 not run)");
    fprintf(out, "\n");
    fflush(out);
}

/* bench_planners targets [SECONDS [WORK [WHICH]]] */
static int bench_targets(double cap, long work, const char *which)
{
    cap_secs = cap;
    bool on[7];
    for (int i = 1; i <= 6; i++)
        on[i] = !which || strchr(which, '0' + i);
    /* target 5 reads the runs of targets 1, 2 and 4 */
    if (on[5])
        on[1] = on[2] = on[4] = true;
    machine_line("Targets (issue 11), measured on");
    fprintf(out, "Each run: the ILP (CBC, %d thread) after the baselines of the same problem; "
            "seconds are wall-clock.\n\n", 1);
    if (on[1])
        target1();
    if (on[2])
        target2();
    if (on[4])
        target4();
    if (on[5])
        target5();
    if (on[6])
        target6(work);
    if (on[3])
        fprintf(out, "Target 3 (the network bound on every network x platform) is its own "
                "run: bench_planners bound [SECONDS].\n\n");
    return 0;
}

/* ---- target 3: the network bound on every bundled pair ---- */

#define T3_GAP 0.05

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names (without .ini) of the files in data/KIND, sorted. */
static int list_ini(const char *kind, char ***names)
{
    const char *dir = getenv("PIPEPLAN_SRCDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", dir ? dir : ".", kind);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    int n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n] = strdup(e->d_name);
        if (!v[n])
            break;
        v[n][len - 4] = '\0';
        n++;
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, by_name);
    *names = v;
    return n;
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int bench_bound(double secs, bool contiguous)
{
    char **nets = NULL, **plats = NULL;
    int nn = list_ini("networks", &nets);
    int np = list_ini("platforms", &plats);
    if (nn < 0 || np < 0)
        return 1;
    machine_line("Target 3 (issue 11), measured on");
    fprintf(out, "Target 3: a lower bound valid for the network's own layers, on every bundled "
            "network x platform (the files' settings%s)\n", contiguous ? ", layout contiguous" : "");
    fprintf(out, "  measured: the best plan's objective (every planner), the ILP's network bound "
            "and the gap (planner_gap) at the end\n"
            "  limit:    %g s time limit per pair (BENCH_BOUND_SECONDS), default blocks\n"
            "  target:   gap <= %.0f%% on every pair in 60 s\n", secs, 100 * T3_GAP);
    if (contiguous)
        fprintf(out, "  NOTE: every pair with the layout contiguous, not the files' settings: "
                "these are not target 3's figures\n");
    if (secs < 60)
        fprintf(out, "  NOTE: limit shorter than the target's 60 s: a pair NOT within %.0f%% "
                "here is inconclusive\n", 100 * T3_GAP);
    fprintf(out, "  %-11s %-17s %-9s %-22s %10s %10s %8s %7s  %s\n", "network", "platform",
            "schedule", "ILP status", "best plan", "bound", "gap", "wall", "");
    int judged = 0, within = 0, skipped = 0;
    double worst = -1;
    char worst_pair[96] = "";
    for (int n = 0; n < nn; n++)
        for (int p = 0; p < np; p++) {
            struct knobs k;
            knobs_init(&k);
            if (contiguous)
                k.layout = LAYOUT_CONTIGUOUS;
            struct problem *pb = load(nets[n], plats[p], &k);
            if (!pb) {
                fprintf(out, "  %-11s %-17s could not build the problem\n", nets[n], plats[p]);
                continue;
            }
            struct inst r;
            memset(&r, 0, sizeof r);
            inst_run(&r, pb, -1, secs, 0, 0);
            char b1[32], b2[32], b3[32], b4[32];
            bool none = !isfinite(r.base) && !r.fits;
            if (none && (r.status == PLAN_NO_FIT || r.status == PLAN_INFEASIBLE)) {
                fprintf(out, "  %-11s %-17s %-9s %-22s skipped: no planner's plan fits and "
                        "the ILP %s (%.1f s)\n", nets[n], plats[p],
                        spec_schedule_name(pb->schedule), status_text(&r, b1, sizeof b1),
                        r.status == PLAN_INFEASIBLE ? "proves that none does" : "reports no fit",
                        r.wall);
                skipped++;
                problem_free(pb);
                fflush(out);
                continue;
            }
            double best = fmin(r.base, r.fits ? r.obj : INFINITY);
            judged++;
            bool ok = isfinite(r.gap) && r.gap <= T3_GAP;
            if (ok)
                within++;
            double g = isfinite(r.gap) ? r.gap : INFINITY;
            if (g > worst) {
                worst = g;
                snprintf(worst_pair, sizeof worst_pair, "%s on %s", nets[n], plats[p]);
            }
            fprintf(out, "  %-11s %-17s %-9s %-22s %10s %10s %8s %6.1fs  %s\n", nets[n], plats[p],
                    spec_schedule_name(pb->schedule), status_text(&r, b1, sizeof b1),
                    ms(best, b2, sizeof b2), ms(r.bound, b3, sizeof b3),
                    pct(r.gap, b4, sizeof b4), r.wall, ok ? "within" : "NOT within");
            problem_free(pb);
            fflush(out);
        }
    char b[32];
    fprintf(out, "  worst gap %s (%s); %d of %d pairs within %.0f%%, %d skipped\n",
            isfinite(worst) ? pct(worst, b, sizeof b) : "n/a (a pair has no plan)", worst_pair,
            within, judged, 100 * T3_GAP, skipped);
    bool met = judged > 0 && within == judged;
    fprintf(out, "  target 3: %s", mark(met));
    if (!met && isfinite(worst))
        fprintf(out, " (distance: worst gap %.2f points over %.0f%%; %d pair%s over)",
                100 * (worst - T3_GAP), 100 * T3_GAP, judged - within,
                judged - within == 1 ? "" : "s");
    fprintf(out, "\n\n");
    free_names(nets, nn);
    free_names(plats, np);
    return 0;
}

int main(int argc, char **argv)
{
    /* keep the tables; send CBC's stdout chatter away */
    int keep = dup(STDOUT_FILENO);
    out = fdopen(keep, "w");
    int null = open("/dev/null", O_WRONLY);
    if (!out || null < 0)
        return 1;
    dup2(null, STDOUT_FILENO);
    close(null);
    int rc;
    const char *mode = argc >= 2 ? argv[1] : "";
    if (strcmp(mode, "machine") == 0)
        rc = bench_machine();
    else if (strcmp(mode, "baselines") == 0)
        rc = bench_baselines();
    else if (strcmp(mode, "ilp") == 0) {
        only = argc >= 4 ? argv[3] : NULL;
        rc = bench_ilp(argc >= 3 ? atof(argv[2]) : 30);
    } else if (strcmp(mode, "targets") == 0) {
        rc = bench_targets(argc >= 3 ? atof(argv[2]) : 0, argc >= 4 ? atol(argv[3]) : 200000,
                           argc >= 5 ? argv[4] : NULL);
    } else if (strcmp(mode, "bound") == 0) {
        bool contiguous = argc >= 4 && strcmp(argv[3], "contiguous") == 0;
        if (argc >= 4 && !contiguous) {
            fprintf(stderr, "bench_planners bound: the layout may only be contiguous\n");
            rc = 2;
        } else {
            rc = bench_bound(argc >= 3 ? atof(argv[2]) : 60, contiguous);
        }
    } else {
        fprintf(stderr, "usage: bench_planners machine | baselines | ilp [SECONDS [WORD]] |\n"
                "       targets [SECONDS [WORK [WHICH]]] | bound [SECONDS [contiguous]]\n");
        rc = 2;
    }
    fclose(out);
    return rc;
}
