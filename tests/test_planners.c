/* Every planner on every bundled network x platform: the independent
 * simulator accepts each plan, the figures are consistent, and the
 * schedules are sane. Reads data/ under PIPEPLAN_SRCDIR. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "baseline.h"
#include "planner.h"
#include "schedule.h"
#include "simulate.h"
#include "spec.h"
#include "valgrind.h"

static const char *const networks[] = { "alexnet", "vgg16", "resnet50", "gnmt" };
static const char *const platforms[] = {
    "v100-16gb-pcie-4", "dgx1-v100-32gb", "a100-40gb-8", "dgx-a100-80gb", "dgx-h100",
    "a10-24gb-pcie-4",
};
#define NNET (sizeof networks / sizeof networks[0])
#define NPLAT (sizeof platforms / sizeof platforms[0])

static struct spec_network *nets[NNET];
static struct spec_platform *plats[NPLAT];

static int load_all(void **state)
{
    (void)state;
    const char *dir = getenv("PIPEPLAN_SRCDIR");
    char path[1024], err[SPEC_ERR_LEN];
    if (!dir)
        dir = ".";
    for (size_t i = 0; i < NNET; i++) {
        snprintf(path, sizeof path, "%s/data/networks/%s.ini", dir, networks[i]);
        nets[i] = spec_network_load(path, err, sizeof err);
        if (!nets[i]) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
    }
    for (size_t i = 0; i < NPLAT; i++) {
        snprintf(path, sizeof path, "%s/data/platforms/%s.ini", dir, platforms[i]);
        plats[i] = spec_platform_load(path, err, sizeof err);
        if (!plats[i]) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
    }
    return 0;
}

static int free_all(void **state)
{
    (void)state;
    for (size_t i = 0; i < NNET; i++)
        spec_network_free(nets[i]);
    for (size_t i = 0; i < NPLAT; i++)
        spec_platform_free(plats[i]);
    return 0;
}

/* Checks one plan; returns the number of problems found (and prints them). */
static int check_plan(const struct problem *pb, const struct planner_result *res,
                      const char *where)
{
    int bad = 0;
    const struct plan *pl = res->plan;
    if (!pl) {
        print_error("%s %s: no plan\n", where, res->planner);
        return 1;
    }
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) != SIM_OK) {
        print_error("%s %s: simulator: %s\n", where, res->planner, rep.reason);
        bad++;
    }
    if (pl->T < problem_lower_bound(pb) * (1 - 1e-9)) {
        print_error("%s %s: period %g below the lower bound %g\n", where, res->planner, pl->T,
                    problem_lower_bound(pb));
        bad++;
    }
    for (int i = 0; i < pl->L; i++)
        if (pl->gpu[i] < 0 || pl->gpu[i] >= pb->P)
            bad++;
    if (res->status != (pl->fits ? PLAN_FEASIBLE : PLAN_NO_FIT)) {
        print_error("%s %s: status %s with fits=%d\n", where, res->planner,
                    plan_status_name(res->status), pl->fits);
        bad++;
    }
    /* A contiguous split always has a 1F1B schedule at its load bound;
     * only dp stretches the period, and only when that schedule does not
     * fit its memory. */
    if (plan_is_contiguous(pl)) {
        double need = 0;
        for (int p = 0; p < pl->P; p++)
            need = fmax(need, fmax(pl->gpus[p].load_ms,
                                   fmax(pl->gpus[p].send_ms, pl->gpus[p].recv_ms)));
        bool stretched_for_memory = false;
        if (strcmp(res->planner, "dp") == 0) {
            struct plan *at = plan_copy(pl);
            stretched_for_memory = schedule_build_at(at, pb, need) == 0 && !at->fits;
            plan_free(at);
        }
        if (pl->T > need * (1 + 1e-9) + 1e-9 && !stretched_for_memory) {
            print_error("%s %s: period %g above its load bound %g\n", where, res->planner,
                        pl->T, need);
            bad++;
        }
    }
    /* Contiguous baselines: waits of a 1F1B pipeline are bounded by about
     * a period per stage and direction, so the latency stays within the
     * chain (compute and transfers) plus 2P periods. */
    if (plan_is_contiguous(pl)) {
        double chain = problem_compute_ms(pb);
        for (int i = 0; i + 1 < pl->L; i++)
            if (pl->gpu[i] != pl->gpu[i + 1])
                chain += 2 * pb->c[i];
        if (pl->latency > chain + 2.0 * pb->P * pl->T + 1e-6) {
            print_error("%s %s: latency %g far above the chain %g + 2P x T %g\n", where,
                        res->planner, pl->latency, chain, pl->T);
            bad++;
        }
    }
    return bad;
}

/* The baseline's split judged in a runtime's own 1F1B order
 * (planner_judge_1f1b): the simulator accepts it, and stage r of S keeps
 * min(S - r, m) micro-batches of every layer in flight, whatever the
 * period. A split that is no 1F1B one (fewer micro-batches than stages)
 * comes back judged as planner_judge would. Returns the failures. */
static int check_runtime_order(const struct problem *pb, const int *gpu, const char *where)
{
    struct planner_result r;
    int rc = planner_judge_1f1b(pb, gpu, 0, "runtime", &r);
    if (rc < 0) {
        print_error("%s: runtime order: %s\n", where, r.message);
        return 1;
    }
    char at[160];
    snprintf(at, sizeof at, "%s (1F1B order)", where);
    int bad = 0;
    struct sim_report rep;
    if (!r.plan || simulate_plan(r.plan, pb, &rep) != SIM_OK) {
        print_error("%s: simulator: %s\n", at, r.plan ? rep.reason : "no plan");
        planner_result_clear(&r);
        return 1;
    }
    int S = 1;
    for (int i = 1; i < pb->L; i++)
        S += gpu[i] != gpu[i - 1];
    if (rc == 0) {
        for (int i = 0, st = 0; i < pb->L; i++) {
            st += i > 0 && gpu[i] != gpu[i - 1];
            long want = S - st < pb->m ? S - st : pb->m;
            /* an operation of no time at a stage's edge may end as the
             * next starts: one copy fewer, as the model counts it */
            bool edge = pb->f[i] == 0 && pb->b[i] == 0 && r.plan->copies[i] == want - 1;
            if (r.plan->copies[i] != want && !edge) {
                print_error("%s: layer %d of stage %d keeps %d copies, not %ld\n", at, i, st,
                            r.plan->copies[i], want);
                bad++;
                break;
            }
        }
    } else if (pb->m >= S) {
        print_error("%s: a split of %d stages not judged in its 1F1B order\n", at, S);
        bad++;
    }
    planner_result_clear(&r);
    return bad;
}

/* Valgrind runs every fifth network x platform pair: each network, five
 * of the platforms. */
#define VALGRIND_STRIDE 5

static int run_instances(long micro_batches, int schedule, int *failures, int *plans)
{
    int pairs = 0;
    for (size_t n = 0; n < NNET; n++) {
        for (size_t p = 0; p < NPLAT; p++) {
            if (valgrind_skips((int)(n * NPLAT + p), VALGRIND_STRIDE))
                continue;
            pairs++;
            struct knobs k;
            char err[SPEC_ERR_LEN], where[128];
            knobs_init(&k);
            k.micro_batches = micro_batches;
            k.schedule = schedule;
            struct problem *pb = problem_create(nets[n], plats[p], &k, err, sizeof err);
            assert_non_null(pb);
            snprintf(where, sizeof where, "%s on %s (%s, m=%ld)", networks[n], platforms[p],
                     spec_schedule_name(pb->schedule), pb->m);
            for (int i = 0; i < planner_count(); i++) {
                struct planner_result res;
                if (planner_is_solver(planner_name(i)))
                    continue;
                assert_int_equal(planner_run(planner_name(i), pb, &res), 0);
                *failures += check_plan(pb, &res, where);
                (*plans)++;
                if (res.plan && schedule == SPEC_SCHEDULE_1F1B)
                    *failures += check_runtime_order(pb, res.plan->gpu, where);
                planner_result_clear(&res);
            }
            problem_free(pb);
        }
    }
    return pairs;
}

static void test_every_plan_passes_the_simulator_1f1b(void **state)
{
    (void)state;
    int failures = 0, plans = 0;
    int pairs = run_instances(0, SPEC_SCHEDULE_1F1B, &failures, &plans);
    int all = (int)(NNET * NPLAT);
    assert_int_equal(pairs, valgrind_running() ? (all + VALGRIND_STRIDE - 1) / VALGRIND_STRIDE : all);
    assert_int_equal(plans, pairs * (planner_count() - 1));
    assert_int_equal(failures, 0);
}

static void test_every_plan_passes_the_simulator_pipedream(void **state)
{
    (void)state;
    int failures = 0, plans = 0;
    run_instances(4, SPEC_SCHEDULE_PIPEDREAM, &failures, &plans);
    assert_int_equal(failures, 0);
}

/* Two layers of f = 1, b = 2 and a cut of 0.5 ms after the first, on P
 * GPUs of ample memory, 4 micro-batches. */
static struct problem *two_layers(int P)
{
    struct problem *pb = problem_new(2, P);
    assert_non_null(pb);
    pb->m = 4;
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->phi = 4;
    pb->micro_batch = 1;
    for (int i = 0; i < 2; i++) {
        pb->f[i] = 1;
        pb->b[i] = 2;
    }
    for (int p = 0; p < P; p++)
        pb->cap[p] = 1e12;
    pb->c[0] = 0.5;
    return pb;
}

/* Their plan on P GPUs: the first layer on GPU 0, the second on `second`. */
static struct plan *two_layer_plan(int P, int second)
{
    struct plan *pl = plan_new(2, P);
    assert_non_null(pl);
    pl->gpu[0] = 0;
    pl->gpu[1] = second;
    return pl;
}

/* schedule_build_1f1b on `ranks` gives period T, the starts F0, F1, B0,
 * B1, the latency, and copies0 and copies1 in flight; the simulator
 * accepts it. */
static void expect_order(struct plan *pl, const struct problem *pb, int ranks, double T,
                         const double *start, double latency, int copies0, int copies1)
{
    assert_int_equal(schedule_build_1f1b(pl, pb, ranks), 0);
    assert_true(fabs(pl->T - T) < 1e-9);
    for (int o = 0; o < 4; o++)
        assert_true(fabs(pl->start[o] - start[o]) < 1e-9);
    assert_true(fabs(pl->latency - latency) < 1e-9);
    assert_true(fabs(pl->iteration - (3 * T + latency)) < 1e-9);
    assert_int_equal(pl->copies[0], copies0);
    assert_int_equal(pl->copies[1], copies1);
    struct sim_report rep;
    assert_int_equal(simulate_plan(pl, pb, &rep), SIM_OK);
}

/* The 1F1B order worked by hand: two stages of f = 1, b = 2 and a cut of
 * 0.5 ms. At T the last stage's backward follows its forward at once;
 * stage 0's follows its forward of the next micro-batch, at T + 1 +
 * E_0 with E_0 = max(3 + 2 x 0.5 - T, 0), which its window takes while
 * E_0 <= T - 3: T = 3.5, E_0 = 0.5. F at 0 and 1.5, B at 5 and 2.5,
 * latency 7, iteration 3 x 3.5 + 7 = 17.5 with 4 micro-batches; stage 0
 * keeps 2 in flight, stage 1 one. */
static void test_runtime_order_by_hand(void **state)
{
    (void)state;
    struct problem *pb = two_layers(2);
    struct plan *pl = two_layer_plan(2, 1);
    const double want[4] = { 0, 1.5, 5, 2.5 };
    expect_order(pl, pb, 0, 3.5, want, 7, 2, 1);
    /* no 1F1B split: one micro-batch for two stages, a GPU of two runs */
    pb->m = 1;
    assert_int_equal(schedule_build_1f1b(pl, pb, 0), -2);
    pb->m = 4;
    plan_free(pl);
    pl = plan_new(3, 2);
    struct problem *three = problem_new(3, 2);
    assert_true(pl && three);
    three->m = 4;
    three->schedule = SPEC_SCHEDULE_1F1B;
    for (int i = 0; i < 3; i++)
        three->f[i] = three->b[i] = 1;
    pl->gpu[0] = pl->gpu[2] = 0;
    pl->gpu[1] = 1;
    assert_int_equal(schedule_build_1f1b(pl, three, 0), -2);
    plan_free(pl);
    problem_free(three);
    problem_free(pb);
}

/* The same two layers on a runtime of three ranks (Megatron's layout
 * "x||x", DeepSpeed's parts [0, 1, 1, 2]): the idle rank 1 passes the
 * activation on, a cut each way in and out, and counts as a stage. f =
 * (1, 0, 1), b = (2, 0, 2), c = (0.5, 0.5): E_1 = max(3 + 1 - T, 0) <= T,
 * E_0 = max(E_1 + 1 - T, 0) <= T - 3: T = 3, E_1 = 1, E_0 = 0. F at 0
 * and 2 (1 + 0.5 + 0.5), B at 3 and 2 x 3 + 1 = 7: latency 9, iteration
 * 18, and rank 0 keeps 3 micro-batches in flight, not 2. With the idle
 * rank last instead ([0, 1, 2, 2]): nothing to pass on after the last
 * layer, E_1 = 0, E_0 = max(4 - T, 0) <= T - 3: T = 3.5, B at 8.5 and
 * 6, latency 10.5; ranks 0 and 1 keep 3 and 2. */
static void test_runtime_order_idle_rank(void **state)
{
    (void)state;
    struct problem *pb = two_layers(3);
    struct plan *pl = two_layer_plan(3, 2);
    const double idle[4] = { 0, 2, 7, 3 };
    expect_order(pl, pb, 3, 3, idle, 9, 3, 1);
    /* the runs alone: two stages, as in the case above */
    const double runs[4] = { 0, 1.5, 5, 2.5 };
    expect_order(pl, pb, 0, 3.5, runs, 7, 2, 1);
    pl->gpu[1] = 1;
    const double last[4] = { 0, 1.5, 8.5, 6 };
    expect_order(pl, pb, 3, 3.5, last, 10.5, 3, 2);

    /* no such split on three ranks: runs out of rank order, fewer
     * micro-batches than ranks; more ranks than GPUs is a bad call */
    pl->gpu[0] = 1;
    pl->gpu[1] = 0;
    assert_int_equal(schedule_build_1f1b(pl, pb, 3), -2);
    pl->gpu[0] = 0;
    pl->gpu[1] = 2;
    pb->m = 2;
    assert_int_equal(schedule_build_1f1b(pl, pb, 3), -2);
    assert_int_equal(schedule_build_1f1b(pl, pb, 4), -1);
    plan_free(pl);
    problem_free(pb);
}

/* The memory-aware DP is exact over contiguous plans in its wait-free
 * model, and real in-flight counts are never below the wait-free ones: so
 * no contiguous plan that really fits has a period below dp's model
 * period. Checked against every contiguous baseline on every instance. */
static void test_no_fitting_contiguous_plan_beats_dp_model(void **state)
{
    (void)state;
    int compared = 0;
    for (int sched = 0; sched < 2; sched++) {
        for (size_t n = 0; n < NNET; n++) {
            for (size_t p = 0; p < NPLAT; p++) {
                if (valgrind_skips((int)(n * NPLAT + p), VALGRIND_STRIDE))
                    continue;
                struct knobs k;
                char err[SPEC_ERR_LEN];
                knobs_init(&k);
                k.schedule = sched;
                struct problem *pb = problem_create(nets[n], plats[p], &k, err, sizeof err);
                assert_non_null(pb);
                int *gpu = malloc((size_t)pb->L * sizeof *gpu);
                double period = NAN;
                int found = baseline_dp_allocation(pb, gpu, &period);
                assert_true(found >= 0);
                for (int i = 0; i < planner_count(); i++) {
                    struct planner_result res;
                    if (planner_is_solver(planner_name(i)))
                        continue;
                    planner_run(planner_name(i), pb, &res);
                    if (found == 1 && res.plan->fits && plan_is_contiguous(res.plan)) {
                        if (res.plan->T < period * (1 - 1e-9))
                            print_error("%s on %s: %s T %g below dp's model %g\n",
                                        networks[n], platforms[p], res.planner, res.plan->T,
                                        period);
                        assert_true(res.plan->T >= period * (1 - 1e-9));
                        compared++;
                    }
                    /* and when dp's model admits nothing, no contiguous plan fits */
                    if (found == 0 && plan_is_contiguous(res.plan))
                        assert_false(res.plan->fits);
                    planner_result_clear(&res);
                }
                free(gpu);
                problem_free(pb);
            }
        }
    }
    assert_true(compared > (valgrind_running() ? 4 : 20));
}

/* When nothing fits, the smallest fitting cap is real: a plan fits there. */
static void test_min_cap_gives_a_fitting_plan(void **state)
{
    (void)state;
    struct knobs k;
    char err[SPEC_ERR_LEN];
    knobs_init(&k);
    k.memory = 4ULL << 30;   /* 4 GiB: vgg16 at 128 images cannot fit */
    struct problem *pb = problem_create(nets[1], plats[0], &k, err, sizeof err);
    assert_non_null(pb);
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        planner_run(planner_name(i), pb, &res);
        assert_false(res.plan->fits);
        planner_result_clear(&res);
    }
    struct plan *fit = NULL;
    const char *who = NULL;
    double within = -1;
    double cap = planner_min_cap(pb, NULL, 0, &fit, &who, &within, NULL);
    assert_true(within >= 0 && within <= 1048576.0);
    assert_true(isfinite(cap));
    assert_true(cap > 4.0 * 1073741824.0);
    assert_non_null(fit);
    assert_non_null(who);
    assert_true(fit->fits);
    assert_true(fit->peak_memory <= cap);
    /* and just below it, that planner's plan does not fit */
    struct problem *below = problem_copy(pb);
    for (int p = 0; p < below->P; p++)
        below->cap[p] = cap - 2.0 * 1048576.0;
    struct planner_result res;
    planner_run(who, below, &res);
    assert_false(res.plan->fits);
    planner_result_clear(&res);
    problem_free(below);
    plan_free(fit);
    problem_free(pb);
}

/* The caller's limits end the search for the least cap where they say,
 * with no clock under a work limit: 2 caps leave it more than 1 MiB from
 * the smallest, yet the cap named is a fitting plan's peak and no less
 * than the whole search's; no time at all tries no cap and names the
 * least peak of the baselines' own plans. */
static void test_min_cap_stops_at_its_limits(void **state)
{
    (void)state;
    struct knobs k;
    char err[SPEC_ERR_LEN];
    knobs_init(&k);
    k.memory = 4ULL << 30;
    struct problem *pb = problem_create(nets[1], plats[0], &k, err, sizeof err);
    assert_non_null(pb);
    struct plan *fit = NULL;
    const char *who = NULL;
    double within = -1;
    double whole = planner_min_cap(pb, NULL, 0, &fit, &who, &within, NULL);
    assert_true(within <= 1048576.0);
    plan_free(fit);

    struct min_cap_limits two = { 0.0, 2 };
    double cap = planner_min_cap(pb, NULL, 0, &fit, &who, &within, &two);
    assert_true(isfinite(cap) && cap >= whole);
    assert_true(within > 1048576.0);
    assert_true(cap - within <= whole);
    assert_non_null(fit);
    assert_true(fit->fits && fit->peak_memory <= cap);
    plan_free(fit);

    /* the same again: nothing depends on the clock */
    double within2 = -1;
    assert_true(planner_min_cap(pb, NULL, 0, &fit, &who, &within2, &two) == cap);
    assert_true(within2 == within);
    plan_free(fit);

    struct min_cap_limits none = { 0.0, 0 };
    double least = INFINITY;
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        planner_run(planner_name(i), pb, &res);
        if (res.plan)
            least = fmin(least, res.plan->peak_memory);
        planner_result_clear(&res);
    }
    cap = planner_min_cap(pb, NULL, 0, &fit, &who, &within, &none);
    assert_true(cap == least);
    assert_true(fit->fits);
    assert_true(cap - within <= whole);
    plan_free(fit);
    problem_free(pb);
}

static void test_result_order_prefers_fitting_then_objective(void **state)
{
    (void)state;
    struct plan a = { 0 }, b = { 0 };
    struct planner_result ra = { .plan = &a }, rb = { .plan = &b };
    a.fits = true;
    a.objective = 10;
    b.fits = false;
    b.objective = 5;
    assert_true(planner_result_compare(&ra, &rb) < 0);
    b.fits = true;
    assert_true(planner_result_compare(&ra, &rb) > 0);
    b.objective = 10;
    assert_int_equal(planner_result_compare(&ra, &rb), 0);
    assert_int_equal(planner_run("no-such-planner", NULL, &ra), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_order_by_hand),
        cmocka_unit_test(test_runtime_order_idle_rank),
        cmocka_unit_test(test_every_plan_passes_the_simulator_1f1b),
        cmocka_unit_test(test_every_plan_passes_the_simulator_pipedream),
        cmocka_unit_test(test_no_fitting_contiguous_plan_beats_dp_model),
        cmocka_unit_test(test_min_cap_gives_a_fitting_plan),
        cmocka_unit_test(test_min_cap_stops_at_its_limits),
        cmocka_unit_test(test_result_order_prefers_fitting_then_objective),
    };
    return cmocka_run_group_tests(tests, load_all, free_all);
}
