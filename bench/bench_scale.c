/* bench_scale: how the engine grows with the layers (issue 12).
 *
 *   bench_scale [LAYERS...]     default 1000 10000 100000
 *
 * For each size, a generated chain of identical-ish layers (forward 1 ms,
 * backward 2 ms, weights 64 kB, activations 128 kB, each varied by up
 * to 30 % by a fixed pseudo-random sequence) on 8x A100 40 GB
 * (data/platforms/a100-40gb-8.ini) is written to a file, then in a
 * child process of its own (so the peak memory is that size's): loaded,
 * coarsened to the ILP's automatic block count, and planned by every
 * baseline, each plan scheduled and checked by the simulator. Each step
 * is timed (wall clock) with the process's peak resident memory after it;
 * a baseline runs in a grandchild stopped after BENCH_SCALE_LIMIT seconds
 * (default 120), so one slow planner cannot hold up the rest.
 * BENCH_SCALE_NOTE, if set, goes into the machine's description (e.g.
 * what else was running).
 *
 * Then, on the largest size: the explorer's first frame and its first
 * frame showing a plan (under tmux, from the explorer's PIPEPLAN_TRACE),
 * and the ILP after automatic coarsening: its blocks, the largest master
 * MIP's rows, columns and integers, and when the first plan came
 * (BENCH_SCALE_ILP seconds, default 30, for the whole search).
 *
 * Prints a table with the growth per 10x layers, writes
 * bench/results/scale.csv (the machine in # lines) and
 * bench/results/scale.svg (log-log time against layers). Run from the
 * source tree (make bench-scale does). Nothing here is part of make check:
 * the machine is shared and the figures move with its load. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ilp.h"
#include "planner.h"
#include "problem.h"
#include "simulate.h"
#include "spec.h"

#include "bench_util.h"

#define PLATFORM "data/platforms/a100-40gb-8.ini"

static struct bench_step steps[BENCH_MAX_STEPS];
static int nsteps;
static long sizes[BENCH_MAX_SIZES];
static int nsizes;
static double limit_sec = 120;

static struct bench_step *step_get(const char *name)
{
    return bench_step_get(steps, &nsteps, name);
}

/* ---- the network ---- */

static unsigned long long rng = 12345;

static double unit(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int write_network(const char *path, long n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    rng = 12345;
    fprintf(f, "; bench_scale: %ld identical-ish layers\n[network]\nname = chain%ld\n"
            "micro_batch = 1\n\n", n, n);
    for (long i = 0; i < n; i++)
        fprintf(f, "[layer l%ld]\nforward = %.4fms\nbackward = %.4fms\nweights = %.0fB\n"
                "activation = %.0fB\n\n", i, 1.0 + 0.3 * unit(), 2.0 + 0.6 * unit(),
                64000.0 * (1.0 + 0.3 * unit()), 128000.0 * (1.0 + 0.3 * unit()));
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- one size, in a child: lines "step seconds rss note" on fd ---- */

static void run_baseline(int fd, const char *name, const char *step,
                         const struct problem *pb)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm((unsigned)limit_sec);
        double t0 = bench_now();
        struct planner_result res;
        planner_run(name, pb, &res);
        struct sim_report rep;
        char note[96];
        if (!res.plan || simulate_plan(res.plan, pb, &rep) != SIM_OK)
            snprintf(note, sizeof note, "REJECTED");
        else
            snprintf(note, sizeof note, "T=%.6gms%s", res.plan->T,
                     res.plan->fits ? "" : ",no_fit");
        bench_say(fd, step, bench_now() - t0, bench_peak_mib(), note);
        _exit(0);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char note[96];
        snprintf(note, sizeof note, "stopped_after_%.0fs", limit_sec);
        bench_say(fd, step, INFINITY, NAN, note);
    }
}

static void run_size(int fd, const char *net_path)
{
    char err[SPEC_ERR_LEN];
    double t0 = bench_now();
    struct spec_network *net = spec_network_load(net_path, err, sizeof err);
    struct spec_platform *plat = net ? spec_platform_load(PLATFORM, err, sizeof err) : NULL;
    struct problem *pb = plat ? problem_create(net, plat, NULL, err, sizeof err) : NULL;
    spec_network_free(net);
    spec_platform_free(plat);
    if (!pb) {
        fprintf(stderr, "bench_scale: %s\n", err);
        _exit(2);
    }
    double total = bench_now() - t0;
    bench_say(fd, "load", total, bench_peak_mib(), "-");
    t0 = bench_now();
    int blocks = ilp_blocks(pb, -1);
    struct problem *cb = problem_coarsen(pb, blocks);
    char note[96];
    snprintf(note, sizeof note, "%d_blocks", blocks);
    bench_say(fd, "coarsen", bench_now() - t0, bench_peak_mib(), note);
    problem_free(cb);
    for (int i = 0; i < planner_count(); i++) {
        const char *name = planner_name(i);
        if (!planner_is_solver(name))
            run_baseline(fd, name, name, pb);
    }
    /* The memory-aware planners again under a cap that binds: 60 % of
     * the room the dp's plan takes without one, so they split by memory
     * (steps *_tight, outside the target's total). */
    struct planner_result loose;
    if (planner_run("dp", pb, &loose) == 0 && loose.plan) {
        double reserved = 0;
        for (int p = 0; p < pb->P; p++)
            reserved = fmax(reserved, pb->reserved[p]);
        struct problem *tight = problem_copy(pb);
        if (tight) {
            for (int p = 0; p < tight->P; p++)
                tight->cap[p] = floor(reserved + 0.6 * (loose.plan->peak_memory - reserved));
            run_baseline(fd, "dp", "dp_tight", tight);
            run_baseline(fd, "pipedream", "pipedream_tight", tight);
            problem_free(tight);
        }
    }
    planner_result_clear(&loose);
    problem_free(pb);
    _exit(0);
}

static void run_child(int fd, const void *arg)
{
    run_size(fd, arg);
}

static int measure_size(int k, const char *net_path)
{
    int rc = bench_measure(steps, &nsteps, k, run_child, net_path);
    /* the total: load and baselines, not the coarsening nor the tight caps */
    double total = 0, total_rss = 0;
    bool complete = true;
    for (int i = 0; i < nsteps; i++) {
        const struct bench_step *s = &steps[i];
        if (isnan(s->sec[k]) || strcmp(s->name, "total") == 0)
            continue;
        if (strcmp(s->name, "coarsen") != 0 && !strstr(s->name, "_tight")) {
            total += s->sec[k];
            complete = complete && isfinite(s->sec[k]);
        }
        if (s->rss[k] > total_rss)
            total_rss = s->rss[k];
    }
    struct bench_step *s = step_get("total");
    if (s) {
        s->sec[k] = complete ? total : INFINITY;
        s->rss[k] = total_rss;
        snprintf(s->note[k], sizeof s->note[k], "load+baselines");
    }
    return rc;
}

/* ---- the explorer's first frame (tmux, PIPEPLAN_TRACE) ---- */

static double explorer_first[2] = { NAN, NAN };   /* any frame, a frame with a plan */

static int run_cmd(const char *cmd)
{
    int rc = system(cmd);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void measure_explorer(const char *net_path, const char *dir)
{
    const char *bin = getenv("PIPEPLAN");
    char pipeplan[PATH_MAX], trace[1100], cmd[3 * PATH_MAX + 2400], sock[64];
    if (!bin)
        bin = "src/pipeplan";
    if (!realpath(bin, pipeplan)) {
        fprintf(stderr, "bench_scale: no explorer binary %s (set PIPEPLAN)\n", bin);
        return;
    }
    if (run_cmd("tmux -V >/dev/null 2>&1") != 0) {
        fprintf(stderr, "bench_scale: tmux not found, no explorer figure\n");
        return;
    }
    snprintf(trace, sizeof trace, "%s/trace", dir);
    snprintf(sock, sizeof sock, "bench_scale_%ld", (long)getpid());
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return;
    snprintf(cmd, sizeof cmd,
             "tmux -L %s -f /dev/null new-session -d -x 120 -y 40 "
             "'env TERM=xterm-256color PIPEPLAN_TRACE=%s %s %s %s/" PLATFORM
             " --time-limit 600'", sock, trace, pipeplan, net_path, cwd);
    double t0 = bench_now();
    if (run_cmd(cmd) != 0) {
        fprintf(stderr, "bench_scale: tmux failed\n");
        return;
    }
    /* poll the trace: "frame MS" and "shown MS ..." on the monotonic clock */
    while (bench_now() - t0 < limit_sec && isnan(explorer_first[1])) {
        usleep(20000);
        FILE *f = fopen(trace, "r");
        char line[256];
        while (f && fgets(line, sizeof line, f)) {
            double ms;
            if (isnan(explorer_first[0]) && sscanf(line, "frame %lf", &ms) == 1)
                explorer_first[0] = ms / 1e3 - t0;
            if (isnan(explorer_first[1]) && sscanf(line, "shown %lf", &ms) == 1)
                explorer_first[1] = ms / 1e3 - t0;
        }
        if (f)
            fclose(f);
    }
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server >/dev/null 2>&1", sock);
    run_cmd(cmd);
}

/* ---- the ILP after automatic coarsening ---- */

struct ilp_fig {
    int blocks, rows, cols, integers;
    double first_plan, seconds, objective, best_baseline;
    char status[48];
};

static void on_progress(void *ctx, const struct ilp_progress *p)
{
    struct ilp_fig *f = ctx;
    if (p->plan && isnan(f->first_plan))
        f->first_plan = p->elapsed;
}

static struct ilp_fig ilp_fig = { 0, 0, 0, 0, NAN, NAN, NAN, NAN, "not run" };

static void measure_ilp(const char *net_path, double secs)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        /* the search's warm start runs every baseline first: a slow one
         * holds it past its own limit */
        alarm((unsigned)(secs + limit_sec));
        char err[SPEC_ERR_LEN];
        struct spec_network *net = spec_network_load(net_path, err, sizeof err);
        struct spec_platform *plat = net ? spec_platform_load(PLATFORM, err, sizeof err) : NULL;
        struct problem *pb = plat ? problem_create(net, plat, NULL, err, sizeof err) : NULL;
        spec_network_free(net);
        spec_platform_free(plat);
        if (!pb)
            _exit(2);
        struct ilp_fig f = ilp_fig;
        struct ilp_options opt;
        ilp_options_init(&opt);
        opt.blocks = -1;
        opt.time_limit = secs;
        opt.on_progress = on_progress;
        opt.ctx = &f;
        struct planner_result res;
        struct ilp_stats st;
        memset(&st, 0, sizeof st);
        ilp_solve(pb, &opt, &res, &st);
        f.blocks = st.blocks;
        f.rows = st.rows;
        f.cols = st.cols;
        f.integers = st.integers;
        f.seconds = res.seconds;
        f.objective = res.plan ? res.plan->objective : NAN;
        char buf[48];
        snprintf(f.status, sizeof f.status, "%s",
                 planner_status_text(res.status, res.blocks, buf, sizeof buf));
        planner_result_clear(&res);
        problem_free(pb);
        if (write(p[1], &f, sizeof f) != (ssize_t)sizeof f)
            _exit(3);
        _exit(0);
    }
    close(p[1]);
    struct ilp_fig f;
    if (pid > 0 && read(p[0], &f, sizeof f) == (ssize_t)sizeof f)
        ilp_fig = f;
    else
        snprintf(ilp_fig.status, sizeof ilp_fig.status, "stopped after %.0f s", secs + limit_sec);
    close(p[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* ---- the machine ---- */


/* ---- output ---- */

/* Where a step is known to be able to grow faster than n log n. */
static const char *why(const char *step)
{
    if (strcmp(step, "dp") == 0)
        return "mem-aware DP: a cell takes stage ends in order of transfer time and sums "
               "the memory of each it tries; ties in transfer time (identical cuts) make "
               "it sum every tied stage, as the scan it replaced did (O(L^2 / stages) per "
               "period probe)";
    if (strcmp(step, "load") == 0 || strcmp(step, "coarsen") == 0)
        return "milliseconds at the smaller size: page faults and cache, not the algorithm";
    return NULL;
}

static void print_table(void)
{
    printf("\nScale: time (s) and peak memory (MiB) per step; growth = time ratio per 10x "
           "layers (near-linear: about 10-14)\n\n");
    printf("%-15s", "step");
    for (int k = 0; k < nsizes; k++)
        printf(" %9ld", sizes[k]);
    for (int k = 1; k < nsizes; k++)
        printf("  x%-6s", k == 1 ? "first" : "next");
    for (int k = 0; k < nsizes; k++)
        printf(" %8s", "MiB");
    printf("  note\n");
    for (int i = 0; i < nsteps; i++) {
        struct bench_step *s = &steps[i];
        printf("%-15s", s->name);
        for (int k = 0; k < nsizes; k++) {
            char b[32];
            bench_fmt_sec(s->sec[k], limit_sec, b, sizeof b);
            printf(" %9s", b);
        }
        bool superlinear = false;
        for (int k = 1; k < nsizes; k++) {
            double r = s->sec[k] / s->sec[k - 1];
            double ideal = (double)sizes[k] / (double)sizes[k - 1];
            if (isfinite(r) && s->sec[k - 1] > 0) {
                printf("  %7.1f", r);
                /* n log n allows ~1.5x over the size ratio; below 50 ms
                 * the figures are noise */
                if (r > ideal * 1.5 && s->sec[k] > 0.05)
                    superlinear = true;
            } else {
                printf("  %7s", isinf(s->sec[k]) ? "big" : "-");
                if (isinf(s->sec[k]))
                    superlinear = true;
            }
        }
        for (int k = 0; k < nsizes; k++)
            printf(" %8.0f", s->rss[k]);
        printf("  %s%s\n", s->note[nsizes - 1], superlinear ? "  SUPERLINEAR" : "");
        if (superlinear && why(s->name))
            printf("%11s   why: %s\n", "", why(s->name));
    }
    if (nsizes > 0) {
        struct bench_step *t = step_get("total");
        char b[32];
        bench_fmt_sec(t ? t->sec[nsizes - 1] : NAN, limit_sec, b, sizeof b);
        printf("\nTarget: %ld layers loaded, every baseline planned, scheduled and simulated "
               "in <= 5 s: %s s, %s\n", sizes[nsizes - 1], b,
               t && t->sec[nsizes - 1] <= 5 ? "met" : "NOT met");
    }
    char a[32], b[32];
    bench_fmt_sec(explorer_first[0], limit_sec, a, sizeof a);
    bench_fmt_sec(explorer_first[1], limit_sec, b, sizeof b);
    printf("Explorer on %ld layers: first frame %s s, first frame showing a plan %s s\n",
           nsizes ? sizes[nsizes - 1] : 0, a, b);
    bench_fmt_sec(ilp_fig.first_plan, limit_sec, a, sizeof a);
    printf("ILP on %ld layers after automatic coarsening: %d blocks, largest master %d rows x "
           "%d columns (%d integer)%s, first plan after %s s (its warm start runs every "
           "baseline on the layers), status %s after %.1f s\n",
           nsizes ? sizes[nsizes - 1] : 0, ilp_fig.blocks, ilp_fig.rows, ilp_fig.cols,
           ilp_fig.integers,
           ilp_fig.rows == 0 && strncmp(ilp_fig.status, "optimal", 7) == 0
               ? " (no master built: the first plan met the bound)" : "", a, ilp_fig.status, ilp_fig.seconds);
}

static int write_csv(const char *path, char mach[5][256])
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "# bench_scale (make bench-scale): pipeplan's time against the layers\n");
    for (int i = 0; i < 5; i++)
        fprintf(f, "# %s\n", mach[i]);
    fprintf(f, "layers,step,seconds,peak_rss_mib,note\n");
    for (int i = 0; i < nsteps; i++)
        for (int k = 0; k < nsizes; k++) {
            char b[32];
            if (isinf(steps[i].sec[k]))
                snprintf(b, sizeof b, "stopped>%.0f", limit_sec);
            else
                snprintf(b, sizeof b, "%.6f", steps[i].sec[k]);
            fprintf(f, "%ld,%s,%s,%.1f,%s\n", sizes[k], steps[i].name, b, steps[i].rss[k],
                    steps[i].note[k]);
        }
    long big = nsizes ? sizes[nsizes - 1] : 0;
    fprintf(f, "%ld,explorer_first_frame,%.6f,,\n", big, explorer_first[0]);
    fprintf(f, "%ld,explorer_first_plan_frame,%.6f,,\n", big, explorer_first[1]);
    fprintf(f, "%ld,ilp_first_plan,%.6f,,blocks=%d rows=%d cols=%d integers=%d status=%s\n",
            big, ilp_fig.first_plan, ilp_fig.blocks, ilp_fig.rows, ilp_fig.cols,
            ilp_fig.integers, ilp_fig.status);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

/* A log-log plot, one line per step. */
static int write_svg(const char *path)
{
    static const char *const colour[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                          "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                          "#bcbd22", "#17becf" };
    double ymin = INFINITY, ymax = 5;   /* the target stays in view */
    for (int i = 0; i < nsteps; i++)
        for (int k = 0; k < nsizes; k++) {
            double s = isinf(steps[i].sec[k]) ? limit_sec : steps[i].sec[k];
            if (isfinite(s) && s > 0) {
                ymin = fmin(ymin, s);
                ymax = fmax(ymax, s);
            }
        }
    if (!isfinite(ymin) || nsizes < 2)
        return -1;
    double ylo = floor(log10(ymin)), yhi = ceil(log10(ymax));
    double xlo = floor(log10((double)sizes[0])), xhi = ceil(log10((double)sizes[nsizes - 1]));
    if (yhi <= ylo)
        yhi = ylo + 1;
    if (xhi <= xlo)
        xhi = xlo + 1;
    const double W = 760, H = 520, L0 = 70, R0 = 190, T0 = 40, B0 = 60;
    double pw = W - L0 - R0, ph = H - T0 - B0;
#define XP(x) (L0 + (log10(x) - xlo) / (xhi - xlo) * pw)
#define YP(y) (T0 + (yhi - log10(y)) / (yhi - ylo) * ph)
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"15\">pipeplan: time against layers "
            "(log-log; dashed: proportional to layers)</text>\n", L0);
    for (double e = xlo; e <= xhi + 1e-9; e++) {
        double x = L0 + (e - xlo) / (xhi - xlo) * pw;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                x, T0, x, T0 + ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x,
                T0 + ph + 18, pow(10, e));
    }
    for (double e = ylo; e <= yhi + 1e-9; e++) {
        double y = T0 + (yhi - e) / (yhi - ylo) * ph;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                L0, y, L0 + pw, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g s</text>\n", L0 - 6,
                y + 4, pow(10, e));
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n", L0, T0, pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">layers</text>\n",
            L0 + pw / 2, H - 15);
    fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">"
            "seconds (wall clock)</text>\n", T0 + ph / 2);
    /* the 5 s target */
    if (5 >= pow(10, ylo) && 5 <= pow(10, yhi))
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"red\" "
                "stroke-dasharray=\"2 3\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"red\">5 s "
                "target</text>\n", L0, YP(5), L0 + pw, YP(5), L0 + 4, YP(5) - 4);
    double label_y = T0 + 10;
    for (int i = 0; i < nsteps; i++) {
        const char *c = colour[i % 10];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        double lx = NAN, ly = NAN;
        for (int k = 0; k < nsizes; k++) {
            double s = steps[i].sec[k];
            if (isinf(s))
                s = limit_sec;   /* drawn at the stop, marked below */
            if (!(s > 0))
                continue;
            lx = XP((double)sizes[k]);
            ly = YP(s);
            fprintf(f, "%.1f,%.1f ", lx, ly);
        }
        fprintf(f, "\"/>\n");
        for (int k = 0; k < nsizes; k++) {
            double s = steps[i].sec[k];
            if (isfinite(s) && s > 0)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                        XP((double)sizes[k]), YP(s), c);
            else if (isinf(s))
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" text-anchor=\"middle\">"
                        "stopped</text>\n", XP((double)sizes[k]), YP(limit_sec) - 6, c);
        }
        /* legend on the right */
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n", W - R0 + 12,
                label_y, W - R0 + 36, label_y, c, W - R0 + 42, label_y + 4, steps[i].name);
        label_y += 18;
        (void)lx;
        (void)ly;
    }
    /* a slope-1 reference through the total's first point */
    struct bench_step *t = step_get("total");
    if (t && t->sec[0] > 0) {
        double x0 = (double)sizes[0], x1 = (double)sizes[nsizes - 1];
        double y0 = t->sec[0], y1 = t->sec[0] * x1 / x0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" "
                "stroke-dasharray=\"6 4\"/>\n", XP(x0), YP(y0), XP(x1), YP(y1));
    }
    fprintf(f, "</svg>\n");
#undef XP
#undef YP
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *e = getenv("BENCH_SCALE_LIMIT");
    if (e && atof(e) > 0)
        limit_sec = atof(e);
    double ilp_secs = 30;
    e = getenv("BENCH_SCALE_ILP");
    if (e && atof(e) > 0)
        ilp_secs = atof(e);
    for (int i = 1; i < argc && nsizes < BENCH_MAX_SIZES; i++) {
        long n = atol(argv[i]);
        if (n < 1 || n > SPEC_MAX_LAYERS) {
            fprintf(stderr, "bench_scale: layers must be 1..%d\n", SPEC_MAX_LAYERS);
            return 2;
        }
        sizes[nsizes++] = n;
    }
    if (nsizes == 0) {
        sizes[0] = 1000;
        sizes[1] = 10000;
        sizes[2] = 100000;
        nsizes = 3;
    }
    if (access(PLATFORM, R_OK) != 0) {
        fprintf(stderr, "bench_scale: run from the source tree (no %s)\n", PLATFORM);
        return 2;
    }
    const char *tmpdir = getenv("TMPDIR");
    char dirbuf[1024];
    snprintf(dirbuf, sizeof dirbuf, "%s/bench_scale.XXXXXX", tmpdir ? tmpdir : P_tmpdir);
    char *d = mkdtemp(dirbuf);
    if (!d) {
        perror("bench_scale: mkdtemp");
        return 1;
    }
    char mach[5][256];
    char path[1100];
    step_get("load");
    step_get("coarsen");
    for (int i = 0; i < planner_count(); i++)
        if (!planner_is_solver(planner_name(i)))
            step_get(planner_name(i));
    step_get("total");
    for (int k = 0; k < nsizes; k++) {
        snprintf(path, sizeof path, "%s/chain%ld.ini", d, sizes[k]);
        if (write_network(path, sizes[k]) != 0) {
            perror("bench_scale: writing the network");
            return 1;
        }
        printf("%ld layers ...\n", sizes[k]);
        if (measure_size(k, path) != 0)
            fprintf(stderr, "bench_scale: the %ld-layer run failed\n", sizes[k]);
        if (k + 1 < nsizes)
            remove(path);
    }
    printf("explorer ...\n");
    measure_explorer(path, d);
    printf("ILP (%.0f s) ...\n", ilp_secs);
    measure_ilp(path, ilp_secs);
    remove(path);
    char trace[1100];
    snprintf(trace, sizeof trace, "%s/trace", d);
    remove(trace);
    rmdir(d);
    bench_machine(mach, "BENCH_SCALE_NOTE", "generated chain (see bench/bench_scale.c) on " PLATFORM);
    print_table();
    for (int i = 0; i < 5; i++)
        printf("%s\n", mach[i]);
    mkdir("bench/results", 0777);
    if (write_csv("bench/results/scale.csv", mach) != 0 ||
        write_svg("bench/results/scale.svg") != 0) {
        fprintf(stderr, "bench_scale: cannot write bench/results/scale.csv or .svg\n");
        return 1;
    }
    printf("wrote bench/results/scale.csv and bench/results/scale.svg\n");
    return 0;
}
