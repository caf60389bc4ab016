/* bench_gpus: how the memory-aware planning grows with the GPUs.
 *
 *   bench_gpus [GPUS...]     default 64 128 256 512
 *
 * The DP baseline (with caps that differ) and the least-cap search
 * (planner_min_cap, which pipeplan solve runs when no plan it made fits)
 * once took some 40 minutes on 2,003 layers x 512 GPUs of 16 and 32 GiB;
 * filling only the cells that can lie on a plan made it seconds (see
 * doc/model.md section 7). This guards that axis. For each P,
 * built in memory (no files): a transformer from the project's generator
 * (src/transformer.c: GPT style, hidden 1024, 16 heads, FFN 4096,
 * vocabulary 32000, sequence 2048, one sequence per micro-batch, bf16 on
 * H100) with 4P - 3 blocks, so L = 4P layers with the embedding, final
 * norm and output, on a platform of P GPUs whose even GPUs have 16 GiB
 * and odd ones 32 GiB ([gpu N] memory overrides), 1 GiB reserved,
 * 360 GB/s, 5 us, 2P micro-batches, 1F1B, Adam. The uniform split does
 * not fit; the DP's does (its layers are small next to the caps: heavier
 * ones that fit nowhere make the DP give up at once, and do not show the
 * 40 minutes).
 *
 * Each size runs in a child of its own (so the peak memory is that
 * size's), each step in a grandchild stopped after BENCH_GPUS_LIMIT
 * seconds (default 300; the least-cap searches get that each):
 *   build      the network and the problem (generator + problem_create)
 *   dp         planner_run("dp") at the platform's caps, which differ
 *   dp_equal   the same with every GPU at 32 GiB (the equal-caps path)
 *   uniform    the uniform split, which does not fit
 *   min_cap    planner_min_cap() on uniform's result, as pipeplan solve
 *              --planner uniform calls it: it runs the other baselines at
 *              the platform's caps (the dp again among them), then
 *              bisects a uniform cap with dp and pipedream under solve's
 *              default --time-limit (10 s: no cap begun after it)
 *   min_cap_nolimit  the same with no limits (only the library's own
 *              work budget stops the bisection)
 * Each step is timed on CLOCK_MONOTONIC with the process's peak resident
 * memory after it. BENCH_GPUS_NOTE, if set, goes into the machine's
 * description (e.g. what else was running).
 *
 * Prints a table with the growth per doubling of P and writes
 * bench/results/gpus.csv (the machine in # lines). Run from the source
 * tree (make bench-gpus does). Nothing here is part of make check: the
 * machine is shared and the figures move with its load. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "planner.h"
#include "problem.h"
#include "spec.h"

#include "bench_util.h"
#include "transformer.h"

#define GIB 1073741824.0
/* pipeplan solve's default --time-limit (src/cmd_solve.c), which it also
 * gives planner_min_cap as its seconds */
#define SOLVE_TIME_LIMIT 10.0

static struct bench_step steps[BENCH_MAX_STEPS];
static int nsteps;
static long sizes[BENCH_MAX_SIZES];
static int nsizes;
static double limit_sec = 300;

static struct bench_step *step_get(const char *name)
{
    return bench_step_get(steps, &nsteps, name);
}

/* ---- the problem ---- */

static const struct transformer_shape shape_base = {
    .name = "bench-gpus", .layers = 0, .hidden = 1024, .heads = 16, .kv_heads = 16,
    .ffn = 4096, .vocab = 32000, .positions = 2048, .seq = 2048, .gated = false,
    .tied = false, .source = "bench/bench_gpus.c",
};

/* P GPUs, even ones 16 GiB and odd ones 32 GiB. NULL with why in err. */
static struct spec_platform *make_platform(long P, char *err, size_t errlen)
{
    size_t len = 512 + (size_t)P * 40;
    char *text = malloc(len);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    size_t n = (size_t)snprintf(text, len,
                                "[platform]\nname = mixed-%ld\ngpus = %ld\nmemory = 16GiB\n"
                                "reserved = 1GiB\nbandwidth = 360GB/s\nlatency = 5us\n\n"
                                "[training]\nmicro_batches = %ld\nschedule = 1f1b\n"
                                "optimizer = adam\n", P, P, 2 * P);
    for (long p = 1; p < P; p += 2)
        n += (size_t)snprintf(text + n, len - n, "\n[gpu %ld]\nmemory = 32GiB\n", p);
    struct spec_platform *plat = spec_platform_parse(text, "bench_gpus platform", err, errlen);
    free(text);
    return plat;
}

static struct problem *make_problem(long P, char *err, size_t errlen)
{
    struct transformer_shape sh = shape_base;
    sh.layers = 4 * P - 3;
    struct transformer_run run = {
        .seq = 2048, .micro_batch = 1, .tp = 1, .dtype = TRANSFORMER_BF16,
        .gpu = TRANSFORMER_H100, .mfu = TRANSFORMER_DEFAULT_MFU,
        .recompute = TRANSFORMER_RECOMPUTE_NONE, .attention = TRANSFORMER_FLASH,
    };
    if (transformer_validate(&sh, &run, err, errlen) < 0)
        return NULL;
    struct spec_network *net = transformer_network(&sh, &run, err, errlen);
    struct spec_platform *plat = net ? make_platform(P, err, errlen) : NULL;
    struct problem *pb = plat ? problem_create(net, plat, NULL, err, errlen) : NULL;
    spec_network_free(net);
    spec_platform_free(plat);
    return pb;
}

/* ---- one size, in a child: lines "step seconds rss note" on fd ---- */

static void plan_note(const struct planner_result *res, char *note, size_t len)
{
    if (!res->plan)
        snprintf(note, len, "no_plan(%s)", plan_status_name(res->status));
    else
        snprintf(note, len, "T=%.6gms,%s,peak=%.2fGiB", res->plan->T,
                 res->plan->fits ? "fits" : "no_fit", res->plan->peak_memory / GIB);
}

static void step_dp(int fd, const char *step, const struct problem *pb)
{
    double t0 = bench_now();
    struct planner_result res;
    planner_run("dp", pb, &res);
    double sec = bench_now() - t0;
    char note[96];
    plan_note(&res, note, sizeof note);
    planner_result_clear(&res);
    bench_say(fd, step, sec, bench_peak_mib(), note);
}

/* pipeplan solve --planner uniform: the uniform split, which does not fit,
 * then the least cap on its result as solve asks for it (with its
 * limits), then again without limits. */
static void step_min_cap(int fd, const struct problem *pb)
{
    struct planner_result res;
    double t0 = bench_now();
    planner_run("uniform", pb, &res);
    double sec = bench_now() - t0;
    char note[96];
    plan_note(&res, note, sizeof note);
    bench_say(fd, "uniform", sec, bench_peak_mib(), note);

    for (int pass = 0; pass < 2; pass++) {
        struct min_cap_limits solve_lim = { SOLVE_TIME_LIMIT, 0 };
        const char *step = pass == 0 ? "min_cap" : "min_cap_nolimit";
        alarm((unsigned)limit_sec);   /* each search gets the whole limit */
        struct plan *fit = NULL;
        const char *who = NULL;
        double within = NAN;
        t0 = bench_now();
        double cap = planner_min_cap(pb, &res, 1, &fit, &who, &within,
                                     pass == 0 ? &solve_lim : NULL);
        sec = bench_now() - t0;
        if (isnan(cap))
            snprintf(note, sizeof note, "no_cap");
        else
            snprintf(note, sizeof note, "cap=%.2fGiB,within=%.0fMiB,by=%s", cap / GIB,
                     within / 1048576.0, who ? who : "?");
        plan_free(fit);
        bench_say(fd, step, sec, bench_peak_mib(), note);
    }
    planner_result_clear(&res);
}

/* Run one step in a grandchild stopped after limit_sec; `names` are the
 * steps it reports, each said "stopped" when it did not. */
static void run_step(int fd, const char *const *names, int nnames,
                     void (*fn)(int, const char *, const struct problem *), const char *arg,
                     const struct problem *pb)
{
    int p[2];
    if (pipe(p) != 0)
        _exit(4);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        alarm((unsigned)limit_sec);
        fn(p[1], arg, pb);
        _exit(0);
    }
    close(p[1]);
    /* pass the grandchild's lines on, noting which steps it reported */
    bool said[8] = { false };
    FILE *in = pid > 0 ? fdopen(p[0], "r") : NULL;
    char line[256];
    while (in && fgets(line, sizeof line, in)) {
        for (int i = 0; i < nnames && i < 8; i++) {
            size_t l = strlen(names[i]);
            if (strncmp(line, names[i], l) == 0 && line[l] == ' ')
                said[i] = true;
        }
        size_t len = strlen(line);
        if (write(fd, line, len) != (ssize_t)len)
            _exit(3);
    }
    if (in)
        fclose(in);
    else
        close(p[0]);
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    for (int i = 0; i < nnames && i < 8; i++)
        if (!said[i]) {
            char note[96];
            snprintf(note, sizeof note, "stopped_after_%.0fs%s", limit_sec,
                     WIFSIGNALED(st) && WTERMSIG(st) != SIGALRM ? "(crashed)" : "");
            bench_say(fd, names[i], INFINITY, NAN, note);
        }
}

static void fn_dp_equal(int fd, const char *step, const struct problem *pb)
{
    struct problem *q = problem_copy(pb);
    if (!q)
        _exit(2);
    for (int p = 0; p < q->P; p++)
        q->cap[p] = 32 * GIB;
    step_dp(fd, step, q);
    problem_free(q);
}

static void fn_min_cap(int fd, const char *step, const struct problem *pb)
{
    (void)step;
    step_min_cap(fd, pb);
}

static void run_size(int fd, long P)
{
    char err[SPEC_ERR_LEN];
    double t0 = bench_now();
    struct problem *pb = make_problem(P, err, sizeof err);
    if (!pb) {
        fprintf(stderr, "bench_gpus: %s\n", err);
        _exit(2);
    }
    double lo = INFINITY, hi = 0;
    for (int p = 0; p < pb->P; p++) {
        lo = fmin(lo, pb->cap[p]);
        hi = fmax(hi, pb->cap[p]);
    }
    char note[96];
    snprintf(note, sizeof note, "L=%d,P=%d,m=%ld,caps=%.0f-%.0fGiB", pb->L, pb->P, pb->m,
             lo / GIB, hi / GIB);
    bench_say(fd, "build", bench_now() - t0, bench_peak_mib(), note);
    static const char *const dp[] = { "dp" }, *const eq[] = { "dp_equal" },
                             *const mc[] = { "uniform", "min_cap", "min_cap_nolimit" };
    run_step(fd, dp, 1, step_dp, "dp", pb);
    run_step(fd, eq, 1, fn_dp_equal, "dp_equal", pb);
    run_step(fd, mc, 3, fn_min_cap, NULL, pb);
    problem_free(pb);
    _exit(0);
}

static void run_child(int fd, const void *arg)
{
    run_size(fd, *(const long *)arg);
}

static int measure_size(int k, long P)
{
    return bench_measure(steps, &nsteps, k, run_child, &P);
}

/* ---- output ---- */

static void print_table(void)
{
    printf("\nGPUs: time (s) and peak memory (MiB) per step, L = 4P layers; growth = time "
           "ratio per doubling of P (L doubles with it)\n\n");
    printf("%-16s", "step");
    for (int k = 0; k < nsizes; k++)
        printf(" %8ld", sizes[k]);
    for (int k = 1; k < nsizes; k++)
        printf("  x%-6s", k == 1 ? "first" : "next");
    for (int k = 0; k < nsizes; k++)
        printf(" %7s", "MiB");
    printf("  note (largest P)\n");
    for (int i = 0; i < nsteps; i++) {
        struct bench_step *s = &steps[i];
        printf("%-16s", s->name);
        for (int k = 0; k < nsizes; k++) {
            char b[32];
            bench_fmt_sec(s->sec[k], limit_sec, b, sizeof b);
            printf(" %8s", b);
        }
        bool stopped = false;
        for (int k = 1; k < nsizes; k++) {
            double r = s->sec[k] / s->sec[k - 1];
            /* per doubling, whatever the sizes given */
            double d = log2((double)sizes[k] / (double)sizes[k - 1]);
            if (isfinite(r) && s->sec[k - 1] > 0 && d > 0)
                printf("  %7.1f", pow(r, 1.0 / d));
            else
                printf("  %7s", isinf(s->sec[k]) ? "big" : "-");
            stopped = stopped || isinf(s->sec[k]);
        }
        for (int k = 0; k < nsizes; k++)
            printf(" %7.0f", s->rss[k]);
        printf("  %s%s\n", nsizes ? s->note[nsizes - 1] : "", stopped ? "  STOPPED" : "");
    }
    printf("\ndp and dp_equal: the mem-aware DP at caps of 16/32 GiB and of 32 GiB; min_cap: "
           "planner_min_cap as pipeplan solve --planner uniform calls it (the other baselines, "
           "then the bisection; --time-limit %.0f s); min_cap_nolimit: no limits\n",
           SOLVE_TIME_LIMIT);
}

static int write_csv(const char *path, char mach[5][256])
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "# bench_gpus (make bench-gpus): the memory-aware DP and the least-cap search "
            "against the GPUs\n");
    for (int i = 0; i < 5; i++)
        fprintf(f, "# %s\n", mach[i]);
    fprintf(f, "gpus,layers,step,seconds,peak_rss_mib,note\n");
    for (int i = 0; i < nsteps; i++)
        for (int k = 0; k < nsizes; k++) {
            char b[32];
            if (isinf(steps[i].sec[k]))
                snprintf(b, sizeof b, "stopped>%.0f", limit_sec);
            else if (isnan(steps[i].sec[k]))
                snprintf(b, sizeof b, "-");
            else
                snprintf(b, sizeof b, "%.6f", steps[i].sec[k]);
            fprintf(f, "%ld,%ld,%s,%s,%.1f,%s\n", sizes[k], 4 * sizes[k], steps[i].name, b,
                    steps[i].rss[k], steps[i].note[k]);
        }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *e = getenv("BENCH_GPUS_LIMIT");
    if (e && atof(e) > 0)
        limit_sec = atof(e);
    for (int i = 1; i < argc && nsizes < BENCH_MAX_SIZES; i++) {
        char *end;
        long n = strtol(argv[i], &end, 10);
        /* 4P - 3 blocks plus three layers stay within a network's layers */
        if (*end || n < 2 || n > SPEC_MAX_GPUS || 4 * n > SPEC_MAX_LAYERS) {
            fprintf(stderr, "bench_gpus: GPUs must be 2..%d\n", SPEC_MAX_GPUS);
            return 2;
        }
        sizes[nsizes++] = n;
    }
    if (nsizes == 0) {
        static const long def[] = { 64, 128, 256, 512 };
        for (int k = 0; k < 4; k++)
            sizes[nsizes++] = def[k];
    }
    static const char *const order[] = { "build", "dp", "dp_equal", "uniform", "min_cap",
                                         "min_cap_nolimit" };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        step_get(order[i]);
    for (int k = 0; k < nsizes; k++) {
        printf("%ld GPUs, %ld layers ...\n", sizes[k], 4 * sizes[k]);
        if (measure_size(k, sizes[k]) != 0)
            fprintf(stderr, "bench_gpus: the %ld-GPU run failed\n", sizes[k]);
    }
    char mach[5][256];
    bench_machine(mach, "BENCH_GPUS_NOTE", "generated transformer, L = 4P (see bench/bench_gpus.c), "
             "on P GPUs of 16 GiB (even) and 32 GiB (odd)");
    print_table();
    for (int i = 0; i < 5; i++)
        printf("%s\n", mach[i]);
    mkdir("bench/results", 0777);
    if (write_csv("bench/results/gpus.csv", mach) != 0) {
        fprintf(stderr, "bench_gpus: cannot write bench/results/gpus.csv\n");
        return 1;
    }
    printf("wrote bench/results/gpus.csv\n");
    return 0;
}
