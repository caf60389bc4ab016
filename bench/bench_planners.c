/* bench_planners: the figures behind the planning engine and the ILP.
 *
 *   bench_planners baselines   each baseline's period / T_lb on every
 *                              data/ network x platform, both schedules
 *   bench_planners ilp [SECS]  the ILP targets: resnet50, 12 blocks, 4 GPUs
 *                              of 40 GiB (pipedream), then every network at
 *                              16 blocks on every 8-GPU platform (files'
 *                              schedule), SECS (default 30) each
 *   bench_planners ilp SECS WORD  only the rows whose network or platform
 *                              contains WORD
 *
 * Run from the source tree (or set PIPEPLAN_SRCDIR). CBC prints to stdout,
 * so the tables go to the original stdout and CBC's chatter to /dev/null. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ilp.h"
#include "planner.h"
#include "simulate.h"
#include "spec.h"
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
};

static void on_progress(void *ctx, const struct ilp_progress *p)
{
    struct trace *t = ctx;
    struct sim_report rep;
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
    struct trace tr = { 0, 0, pb };
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
        snprintf(proven, sizeof proven, "%.2f", wall);
    else
        snprintf(proven, sizeof proven, "-");
    fprintf(out, "%-9s %-17s %-9s %3d %-13s %8s %8s %7.2f%% %7.2f%% %8.4f %8.4f %5d %5d %5d %3d/%d"
            "   %3d %5.1f %4d %5.1f %5.1f\n",
            net, plat, spec_schedule_name(pb->schedule), st.blocks,
            planner_status_name(res.status), first, proven, 100 * bgap, 100 * gap, obj / best_base,
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
    fprintf(out, "ILP target 1: resnet50, 12 blocks, 4 GPUs x 40 GiB, 12 GB/s, phi 4, "
            "pipedream: proven optimal in <= 10 s\n");
    ilp_header();
    struct knobs k;
    knobs_init(&k);
    k.gpus = 4;
    k.memory = 40ULL << 30;
    k.schedule = SPEC_SCHEDULE_PIPEDREAM;
    ilp_row("resnet50", "v100-16gb-pcie-4", &k, 12, 10);
    fprintf(out, "\nILP target 2: every network, 16 blocks, 8 GPUs, platform files as they are: "
            "within 2%% of the bound in <= %.0f s\n", secs);
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
    if (argc >= 2 && strcmp(argv[1], "baselines") == 0)
        rc = bench_baselines();
    else if (argc >= 2 && strcmp(argv[1], "ilp") == 0) {
        only = argc >= 4 ? argv[3] : NULL;
        rc = bench_ilp(argc >= 3 ? atof(argv[2]) : 30);
    } else {
        fprintf(stderr, "usage: bench_planners baselines | ilp [SECONDS [WORD]]\n");
        rc = 2;
    }
    fclose(out);
    return rc;
}
