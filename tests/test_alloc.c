/* Allocation failures: this test is linked with -Wl,--wrap for malloc,
 * calloc, realloc and strdup, so every allocation the library makes (not
 * CBC's, not libc's own) goes through a counter that can fail the Nth.
 * Each step (spec loading, problem building, coarsening, the baselines,
 * the MIP rows the ILP builds its models from) runs with
 * N = 1, 2, ... failed in turn until a run makes fewer than N calls, and
 * the ILP with every call from the Nth on failing: every run must end in
 * a clean error or in an answer that holds (the same plan for a baseline;
 * for the ILP, a proof only of what is true), without a crash, and (under
 * ASan and valgrind) without a leak. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "valgrind.h"
#include "ilp.h"
#include "mip.h"
#include "planner.h"
#include "problem.h"
#include "simulate.h"
#include "spec.h"

/* ---- the counter ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long calls, fail_at;     /* fail_at 0: none fails */
static bool injected;
static bool sticky;             /* every call from the Nth on fails */

static bool fail_now(void)
{
    if (fail_at <= 0)
        return false;
    ++calls;
    if (calls != fail_at && !(sticky && calls > fail_at))
        return false;
    injected = true;
    return true;
}

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fail_now() ? NULL : __real_strdup(s);
}

static void arm(long n)
{
    calls = 0;
    fail_at = n;
    injected = false;
}

static void disarm(void)
{
    fail_at = 0;
}

/* Valgrind (its preload library is in LD_PRELOAD) is some 40 times
 * slower: there the ILP's runs take every 16th N (ASan takes them all). */
static long stride;

/* Run step(ctx, n) with the nth allocation failing, n = 1, 2, ... until
 * one run failed none; returns how many runs that took. */
static long each_failure(void (*step)(void *ctx, long n), void *ctx)
{
    long n;
    for (n = 1; n < 1000000; n += stride > 0 ? stride : 1) {
        arm(n);
        step(ctx, n);
        bool hit = injected;
        disarm();
        if (!hit)
            break;
    }
    return n;
}

static const char *srcdir(void)
{
    const char *d = getenv("PIPEPLAN_SRCDIR");
    return d && *d ? d : ".";
}

/* ---- spec files and problem building ---- */


struct build_ctx {
    char net_path[512], plat_path[512];
    int L, P;
    double lower_bound, compute_ms;
};

static void build_step(void *vctx, long n)
{
    struct build_ctx *c = vctx;
    char err[SPEC_ERR_LEN] = "";
    struct spec_network *net = spec_network_load(c->net_path, err, sizeof err);
    if (!net) {
        if (!injected || !err[0])
            fail_msg("N=%ld: network not loaded without a failure, or without a message", n);
        return;
    }
    struct spec_platform *plat = spec_platform_load(c->plat_path, err, sizeof err);
    if (!plat) {
        if (!injected || !err[0])
            fail_msg("N=%ld: platform not loaded without a failure, or without a message", n);
        spec_network_free(net);
        return;
    }
    struct knobs k;
    knobs_init(&k);
    err[0] = '\0';
    struct problem *pb = problem_create(net, plat, &k, err, sizeof err);
    spec_network_free(net);
    spec_platform_free(plat);
    if (!pb) {
        if (!injected || !err[0])
            fail_msg("N=%ld: no problem without a failure, or without a message", n);
        return;
    }
    /* a problem made is the problem: nothing dropped on the way */
    if (c->L == 0) {
        c->L = pb->L;
        c->P = pb->P;
        c->lower_bound = problem_lower_bound(pb);
        c->compute_ms = problem_compute_ms(pb);
    }
    assert_int_equal(pb->L, c->L);
    assert_int_equal(pb->P, c->P);
    assert_true(problem_lower_bound(pb) == c->lower_bound);
    assert_true(problem_compute_ms(pb) == c->compute_ms);
    /* coarsening: all or nothing */
    struct problem *bp = problem_coarsen(pb, 6);
    if (bp) {
        assert_int_equal(bp->L, 6);
        assert_true(fabs(problem_compute_ms(bp) - c->compute_ms) <= 1e-9 * c->compute_ms);
        problem_free(bp);
    } else if (!injected) {
        fail_msg("N=%ld: coarsening failed without a failure", n);
    }
    problem_free(pb);
}

static void spec_and_problem_building(void **state)
{
    (void)state;
    struct build_ctx c;
    memset(&c, 0, sizeof c);
    snprintf(c.net_path, sizeof c.net_path, "%s/data/networks/alexnet.ini", srcdir());
    snprintf(c.plat_path, sizeof c.plat_path, "%s/data/platforms/v100-16gb-pcie-4.ini",
             srcdir());
    build_step(&c, 0);          /* the reference, nothing failing */
    assert_int_equal(c.L, 23);
    long runs = each_failure(build_step, &c);
    /* every allocation was failed once */
    assert_true(runs > 20);
    print_message("spec + problem + coarsening: %ld allocations, each failed in turn\n",
                  runs - 1);
}

/* ---- the baselines and the ILP ---- */

struct plan_ctx {
    struct problem *pb;
    const char *planner;
    enum plan_status status;            /* the reference */
    double objective;
    bool have;
};

static void assert_plan_ok(const struct plan *pl, const struct problem *pb, long n)
{
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) != SIM_OK)
        fail_msg("N=%ld: a plan the simulator rejects: %s", n, rep.reason);
}

static void plan_step(void *vctx, long n)
{
    struct plan_ctx *c = vctx;
    struct planner_result res;
    int rc;
    rc = planner_run(c->planner, c->pb, &res);
    disarm();                   /* the checks below allocate too */
    if (rc != 0) {
        /* refused outright: only for a failure */
        if (!injected)
            fail_msg("N=%ld: %s failed without a failure", n, c->planner);
        planner_result_clear(&res);
        return;
    }
    if (res.plan)
        assert_plan_ok(res.plan, c->pb, n);
    if (!c->have) {
        c->have = true;
        c->status = res.status;
        c->objective = res.plan ? res.plan->objective : NAN;
    } else if (res.status == PLAN_ERROR) {
        if (!injected || !res.message[0])
            fail_msg("N=%ld: %s: error without a failure, or without a message", n, c->planner);
    } else {
        /* a baseline's answer is the same with or without the failure */
        if (res.status != c->status)
            fail_msg("N=%ld: %s: status %s, without the failure %s", n, c->planner,
                     plan_status_name(res.status), plan_status_name(c->status));
        if (res.plan && !(fabs(res.plan->objective - c->objective) <= 1e-9 * c->objective))
            fail_msg("N=%ld: %s: objective %.17g, without the failure %.17g", n, c->planner,
                     res.plan->objective, c->objective);
    }
    planner_result_clear(&res);
}

static struct problem *small_problem(void)
{
    static const struct fx_spread spread = { 2, LAYOUT_ANY, 3, 0.25, 4, 0, 0, 0 };
    fx_seed(31);
    struct problem *pb = fx_random(8, 3, &spread);
    double one_copy = 0;
    for (int i = 0; i < pb->L; i++)
        one_copy += pb->phi * pb->w[i] + pb->s[i];
    for (int p = 0; p < pb->P; p++)
        pb->cap[p] = 0.6 * one_copy;
    return pb;
}

static void baselines(void **state)
{
    (void)state;
    struct problem *pb = small_problem();
    static const char *const names[] = { "uniform", "parameters", "time", "pipedream", "dp" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct plan_ctx c = { .pb = pb, .planner = names[i] };
        plan_step(&c, 0);
        assert_int_not_equal(c.status, PLAN_ERROR);
        long runs = each_failure(plan_step, &c);
        print_message("%s: %ld allocations, each failed in turn\n", names[i], runs - 1);
    }
    fx_problem_free(pb);
}

/* The ILP's matrix building: a row whose coefficients could not all be
 * stored makes the solve fail (MIP_FAILED), never a model without them. */
static void mip_step(void *vctx, long n)
{
    (void)vctx;
    struct mip mp;
    if (mip_init(&mp, 1, 0, 0) != 0)
        fail_msg("N=%ld: mip_init", n);
    int cols = 200;
    for (int j = 0; j < cols; j++)
        mip_col(&mp, 0, 1, -1.0 - j % 3, true);
    /* one knapsack row over every column: its coefficient array grows */
    mip_row_begin(&mp);
    for (int j = 0; j < cols; j++)
        mip_row_add(&mp, j, 1.0 + j % 5);
    mip_row_end(&mp, 'L', 40);
    bool hit = injected;
    disarm();
    enum mip_outcome out = mip_solve(&mp);
    if (hit)
        assert_int_equal(out, MIP_FAILED);
    else
        assert_int_equal(out, MIP_SOLVED);
    mip_free(&mp);
}

static void mip_row_building(void **state)
{
    (void)state;
    long runs = each_failure(mip_step, NULL);
    /* 64, 128, 256 coefficients: three growths of two arrays */
    assert_true(runs >= 4);
    print_message("mip rows: %ld allocations, each failed in turn\n", runs - 1);
}

/* The ILP (its models, masters, cuts, local search) on 5 layers under a
 * small work limit, and again on 2 blocks (the relaxation's models too).
 * Memory, once short, stays short: every allocation from the Nth on fails
 * (one failure alone sends a degraded search down paths of any length).
 * The answer is an error with a message, or one that holds: its plan
 * replays, and a proof is the proof made without the failure. */
struct ilp_ctx {
    struct problem *pb;
    int blocks;
    long work;
    enum plan_status status;            /* without a failure, to the end */
    double objective;
    bool have;
};

static bool proven(enum plan_status s)
{
    return s == PLAN_OPTIMAL || s == PLAN_BLOCK_OPTIMAL || s == PLAN_INFEASIBLE;
}

static void ilp_step(void *vctx, long n)
{
    struct ilp_ctx *c = vctx;
    struct ilp_options opt;
    ilp_options_init(&opt);
    opt.work_limit = c->work;
    opt.time_limit = 0;
    opt.threads = 1;
    opt.blocks = c->blocks;
    struct planner_result res;
    int rc = ilp_solve(c->pb, &opt, &res, NULL);
    disarm();
    if (rc != 0) {
        if (!injected)
            fail_msg("N=%ld: ilp_solve failed without a failure", n);
        planner_result_clear(&res);
        return;
    }
    if (res.plan)
        assert_plan_ok(res.plan, c->pb, n);
    if (!c->have) {
        c->have = true;
        c->status = res.status;
        c->objective = res.plan ? res.plan->objective : NAN;
    } else if (res.status == PLAN_ERROR) {
        if (!injected || !res.message[0])
            fail_msg("N=%ld: ilp: error without a failure, or without a message", n);
    } else if (proven(res.status)) {
        /* a proof made under the failure is the proof made without it */
        double obj = res.plan ? res.plan->objective : NAN;
        bool same = res.status == PLAN_INFEASIBLE ? c->status == PLAN_INFEASIBLE
                    : res.status == PLAN_OPTIMAL ? fabs(obj - c->objective) <= 1e-6 * c->objective
                    : obj >= c->objective * (1 - 1e-6);
        if (!same)
            fail_msg("N=%ld: ilp: %s at %.17g, proven without the failure: %s at %.17g", n,
                     plan_status_name(res.status), obj, plan_status_name(c->status),
                     c->objective);
    }
    planner_result_clear(&res);
}

static void ilp_under_memory_exhaustion(void **state)
{
    (void)state;
    static const struct fx_spread spread = { 2, LAYOUT_ANY, 3, 0.25, 4, 0, 0, 0 };
    fx_seed(32);
    struct problem *pb = fx_random(5, 2, &spread);
    double one_copy = 0;
    for (int i = 0; i < pb->L; i++)
        one_copy += pb->phi * pb->w[i] + pb->s[i];
    for (int p = 0; p < pb->P; p++)
        pb->cap[p] = 0.7 * one_copy;
    for (int blocks = 0; blocks <= 2; blocks += 2) {
        /* the reference: solved to the end */
        struct ilp_ctx c = { .pb = pb, .blocks = blocks, .work = 1000000 };
        ilp_step(&c, 0);
        assert_true(proven(c.status));
        c.work = 6;
        /* ALLOC_SINGLE=1 (by hand: minutes) fails the Nth call alone */
        sticky = getenv("ALLOC_SINGLE") == NULL;
        stride = valgrind_running() ? 16 : 1;
        long runs = each_failure(ilp_step, &c);
        sticky = false;
        stride = 1;
        assert_true(runs > 50);
        print_message("ilp (%s): %ld allocations, memory exhausted at each in turn\n",
                      blocks ? "2 blocks" : "every layer", runs - 1);
    }
    fx_problem_free(pb);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(spec_and_problem_building),
        FX_TEST(baselines),
        FX_TEST(mip_row_building),
        FX_TEST(ilp_under_memory_exhaustion),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
