/* Tests for the layer-level local search (src/lns.c): on the worked
 * example of doc/model.md section 9 it finds the non-contiguous plan the
 * baselines miss; every plan it offers fits and replays; the contiguous
 * layout stays contiguous; the same inputs give the same plans under an
 * evaluation budget; a start plan that does not fit gives a fitting plan
 * or none. Every run has an evaluation budget and no seconds: nothing
 * here depends on the clock. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baseline.h"
#include "fixture.h"
#include "lns.h"
#include "planner.h"
#include "schedule.h"
#include "simulate.h"

#define EVALS 400L

/* What the search offered, each checked when offered. */
struct offers {
    const struct problem *pb;
    int count;
    int bad;                   /* did not replay, or did not fit */
    int scattered;             /* not contiguous under the contiguous layout */
    double last;               /* objective of the last one */
    bool worse;                /* an offer no better than the one before */
};

static void collect(void *ctx, const struct plan *pl)
{
    struct offers *o = ctx;
    if (simulate_plan(pl, o->pb, NULL) != SIM_OK || !pl->fits)
        o->bad++;
    if (o->pb->layout == LAYOUT_CONTIGUOUS && !plan_is_contiguous(pl))
        o->scattered++;
    if (o->count > 0 && !(pl->objective < o->last))
        o->worse = true;
    o->last = pl->objective;
    o->count++;
}

static int run(const struct problem *pb, const struct plan *start, long evals,
               struct plan **out, struct offers *o, struct lns_stats *st)
{
    struct lns_options opt;
    lns_options_init(&opt);
    opt.evaluations = evals;
    opt.offer = collect;
    opt.ctx = o;
    memset(o, 0, sizeof *o);
    o->pb = pb;
    int rc = lns_improve(pb, start, &opt, out, st);
    assert_int_equal(o->bad, 0);
    assert_int_equal(o->scattered, 0);
    assert_false(o->worse);
    assert_int_equal(rc, o->count);
    if (rc > 0) {
        assert_non_null(*out);
        assert_true((*out)->objective == o->last);
    } else {
        assert_null(*out);
    }
    return rc;
}

/* doc/model.md section 9: f = 1, b = 2, s = 4 3 2 1 GB, 2 GPUs, no weights
 * and no transfers, pipedream, nothing reserved. */
static struct problem *pb_worked(double cap, enum layout_kind layout)
{
    struct problem *pb = fx_problem(4, 2, 1, layout);
    for (int i = 0; i < 4; i++) {
        pb->f[i] = 1;
        pb->b[i] = 2;
        pb->s[i] = (4 - i) * GB;
    }
    for (int p = 0; p < 2; p++)
        pb->cap[p] = cap;
    return pb;
}

/* The best fitting baseline plan (owned by the caller), or NULL. */
static struct plan *best_baseline(const struct problem *pb)
{
    struct plan *best = NULL;
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        assert_int_equal(planner_run(planner_name(i), pb, &res), 0);
        if (res.plan && res.plan->fits && (!best || res.plan->objective < best->objective)) {
            plan_free(best);
            best = res.plan;
            res.plan = NULL;
        }
        planner_result_clear(&res);
    }
    return best;
}

static struct plan *plan_of(const struct problem *pb, const int *gpu)
{
    struct plan *pl = plan_new(pb->L, pb->P);
    assert_non_null(pl);
    memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
    assert_int_equal(schedule_build(pl, pb), 0);
    return pl;
}

/* Under a 13 GB cap every contiguous plan needs a period of 9 ms (the
 * baselines' best), while {1,4 | 2,3} fits at 6 ms = T_lb, the optimum.
 * One move (layer 4 to the first GPU) gets there. */
static void worked_example_reaches_period_6(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_ANY);
    struct plan *start = best_baseline(pb);
    assert_non_null(start);
    assert_true(fabs(start->objective - 9) < 1e-9);
    /* exhaustive: no allocation beats 6 ms (T_lb), one reaches it */
    double least = INFINITY;
    for (int mask = 0; mask < 16; mask++) {
        int gpu[4];
        for (int i = 0; i < 4; i++)
            gpu[i] = (mask >> i) & 1;
        struct plan *pl = baseline_schedule_fitting(pb, gpu, 0);
        if (pl && pl->fits)
            least = fmin(least, pl->objective);
        plan_free(pl);
    }
    assert_true(fabs(least - 6) < 1e-9);
    assert_true(fabs(problem_lower_bound(pb) - 6) < 1e-9);

    struct plan *out;
    struct offers o;
    assert_true(run(pb, start, EVALS, &out, &o, NULL) >= 1);
    assert_true(fabs(out->objective - 6) < 1e-9);
    assert_true(out->fits);
    assert_false(plan_is_contiguous(out));
    assert_true(out->gpu[0] == out->gpu[3] && out->gpu[1] == out->gpu[2] &&
                out->gpu[0] != out->gpu[1]);
    plan_free(out);
    plan_free(start);
    fx_problem_free(pb);
}

/* A schedule callback (the ILP's exact schedules) in place of the list
 * scheduler: what it was asked and what it answered. */
struct asked {
    const struct problem *pb;
    const int *start;          /* the start plan's allocation */
    bool refuse;               /* answer "none below the cap" every time */
    int calls;
    int first_moved;           /* layers the first candidate moved */
    int last_moved;            /* and the last one */
    bool disorder;             /* a candidate moved fewer than the one before */
    double max_cap;            /* the largest cap it was given */
    bool low_t;                /* a plan below the t_lo it was given */
};

static int ask(void *ctx, struct plan *pl, double t_lo, double cap)
{
    struct asked *a = ctx;
    int moved = 0;
    for (int i = 0; i < a->pb->L; i++)
        moved += pl->gpu[i] != a->start[i];
    if (a->calls++ == 0)
        a->first_moved = moved;
    a->disorder |= moved < a->last_moved;
    a->last_moved = moved;
    a->max_cap = fmax(a->max_cap, cap);
    if (a->refuse)
        return 0;
    struct plan *got = baseline_schedule_fitting(a->pb, pl->gpu, 0);
    int rc = got && got->fits && got->objective < cap ? 1 : 0;
    if (rc == 1) {
        a->low_t |= got->T < t_lo * (1 - 1e-9);
        pl->T = got->T;
        memcpy(pl->start, got->start, 2 * (size_t)a->pb->L * sizeof *pl->start);
        plan_evaluate(pl, a->pb);
    }
    plan_free(got);
    return rc;
}

/* With the callback the search schedules nothing itself: one evaluation
 * per call, the cap always below the incumbent (9 ms, then better), the
 * candidate that moves the fewest layers first; it reaches the optimum
 * of 6 ms as the list scheduler does, and a callback that finds nothing
 * below the cap gets nothing offered. */
static void schedule_callback_replaces_the_list_scheduler(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_ANY);
    struct plan *start = best_baseline(pb);
    assert_non_null(start);
    for (int refuse = 0; refuse <= 1; refuse++) {
        struct asked a = { .pb = pb, .start = start->gpu, .refuse = refuse };
        struct lns_options opt;
        lns_options_init(&opt);
        opt.evaluations = EVALS;
        opt.schedule = ask;
        opt.ctx = &a;
        struct plan *out = NULL;
        struct lns_stats st;
        int rc = lns_improve(pb, start, &opt, &out, &st);
        assert_true(a.calls > 0);
        assert_int_equal(st.evaluations, a.calls);
        assert_int_equal(a.first_moved, 1);
        assert_true(a.max_cap < 9);
        assert_false(a.low_t);
        if (refuse) {
            assert_int_equal(rc, 0);
            assert_null(out);
        } else {
            assert_true(rc >= 1);
            assert_non_null(out);
            assert_true(fabs(out->objective - 6) < 1e-9);
            assert_int_equal(simulate_plan(out, pb, NULL), SIM_OK);
            plan_free(out);
        }
    }
    plan_free(start);
    fx_problem_free(pb);
}

/* The same instance with the contiguous layout: 9 ms is the best
 * contiguous plan, so nothing better exists and nothing is offered. */
static void contiguous_layout_finds_nothing_better_than_9(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_CONTIGUOUS);
    struct plan *start = best_baseline(pb);
    assert_non_null(start);
    struct plan *out;
    struct offers o;
    assert_int_equal(run(pb, start, EVALS, &out, &o, NULL), 0);
    plan_free(start);
    fx_problem_free(pb);
}

/* Start {1,2 | 3,4} at 6 ms needs 14 GB: over a 13 GB cap. The search
 * offers only fitting plans, and here finds the optimum. */
static void start_that_does_not_fit_gives_a_fitting_plan(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_ANY);
    static const int split[4] = { 0, 0, 1, 1 };
    struct plan *start = plan_of(pb, split);
    assert_false(start->fits);
    struct plan *out;
    struct offers o;
    assert_true(run(pb, start, EVALS, &out, &o, NULL) >= 1);
    assert_true(out->fits);
    assert_true(fabs(out->objective - 6) < 1e-9);
    plan_free(out);
    plan_free(start);
    fx_problem_free(pb);
}

/* With 4.5 GB per GPU nothing fits (one copy of every layer is 10 GB on
 * two GPUs): no plan, nothing offered. */
static void nothing_fits_gives_nothing(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(4.5 * GB, LAYOUT_ANY);
    static const int split[4] = { 0, 0, 1, 1 };
    struct plan *start = plan_of(pb, split);
    assert_false(start->fits);
    struct plan *out;
    struct offers o;
    assert_int_equal(run(pb, start, EVALS, &out, &o, NULL), 0);
    assert_int_equal(o.count, 0);
    plan_free(start);
    fx_problem_free(pb);
}

/* Random chains (both layouts, both schedules, caps from loose to tight),
 * from the best fitting baseline or, when none fits, from the uniform
 * split: every offer replays and fits, improves on the one before, keeps
 * the layout, and the result is never worse than the start. */
static const struct fx_spread spread = { 1, LAYOUT_ANY, 3, 0.25, 4, 3, 6, 1 };

static double single_copy_memory(const struct problem *pb)
{
    double sum = 0;
    for (int i = 0; i < pb->L; i++)
        sum += pb->phi * pb->w[i] + pb->s[i];
    return sum;
}

static struct problem *random_problem(int k)
{
    int L = 5 + (int)fx_rnd(8);           /* 5..12 */
    int P = 2 + (int)fx_rnd(3);           /* 2..4 */
    struct problem *pb = fx_random(L, P, &spread);
    pb->layout = k % 2 ? LAYOUT_CONTIGUOUS : LAYOUT_ANY;
    double cap = (1.0 + 0.4 * fx_rnd(5)) * single_copy_memory(pb) / P;
    for (int p = 0; p < P; p++)
        pb->cap[p] = cap;
    return pb;
}

static struct plan *start_of(const struct problem *pb)
{
    struct plan *start = best_baseline(pb);
    if (!start) {
        int *gpu = malloc((size_t)pb->L * sizeof *gpu);
        assert_non_null(gpu);
        assert_int_equal(baseline_uniform_allocation(pb, gpu), 0);
        start = plan_of(pb, gpu);
        free(gpu);
    }
    return start;
}

static void random_offers_replay_and_keep_the_layout(void **state)
{
    (void)state;
    fx_seed(2024);
    int improved = 0, rescued = 0;
    for (int k = 0; k < 40; k++) {
        struct problem *pb = random_problem(k);
        struct plan *start = start_of(pb);
        struct plan *out;
        struct offers o;
        int rc = run(pb, start, 60, &out, &o, NULL);
        if (rc > 0 && start->fits) {
            assert_true(out->objective < start->objective);
            improved++;
        }
        if (rc > 0 && !start->fits)
            rescued++;
        plan_free(out);
        plan_free(start);
        fx_problem_free(pb);
    }
    /* the instances leave room: the search is not idle */
    assert_true(improved + rescued >= 4);
}

/* Under an evaluation budget the same inputs give the same plans. */
static void same_inputs_same_plans(void **state)
{
    (void)state;
    for (int k = 0; k < 12; k++) {
        fx_seed(900 + (uint64_t)k);
        struct problem *pb = random_problem(k);
        struct plan *start = start_of(pb);
        struct plan *out[2];
        struct lns_stats st[2];
        int rc[2];
        for (int r = 0; r < 2; r++) {
            struct offers o;
            rc[r] = run(pb, start, 25, &out[r], &o, &st[r]);
        }
        assert_int_equal(rc[0], rc[1]);
        assert_int_equal(st[0].evaluations, st[1].evaluations);
        assert_int_equal(st[0].candidates, st[1].candidates);
        assert_int_equal(st[0].screened, st[1].screened);
        assert_true(st[0].evaluations <= 25);
        if (out[0]) {
            assert_true(out[0]->objective == out[1]->objective && out[0]->T == out[1]->T);
            assert_memory_equal(out[0]->gpu, out[1]->gpu, (size_t)pb->L * sizeof(int));
            assert_memory_equal(out[0]->start, out[1]->start, 2 * (size_t)pb->L * sizeof(double));
        }
        plan_free(out[0]);
        plan_free(out[1]);
        plan_free(start);
        fx_problem_free(pb);
    }
}

/* On a chain of thousands of layers a candidate's bound costs as much as
 * a small network's schedule: under a count the screening counts too (a
 * schedule's worth per 10^8 layers looked at), and a round looks at a
 * regular subset of the moves, about 5 * 10^7 layers' worth, so the
 * search stops near its count, not after rounds of 10^5 candidates. */
static void long_chain_screening_is_counted(void **state)
{
    (void)state;
    fx_seed(77);
    int L = 6000, P = 4;
    struct problem *pb = fx_random(L, P, &spread);
    for (int p = 0; p < P; p++)
        pb->cap[p] = 1e30;
    int *gpu = malloc((size_t)L * sizeof *gpu);
    assert_non_null(gpu);
    assert_int_equal(baseline_uniform_allocation(pb, gpu), 0);
    struct plan *start = plan_of(pb, gpu);
    free(gpu);
    assert_true(start->fits);
    struct lns_options opt;
    lns_options_init(&opt);
    opt.evaluations = 12;
    struct lns_stats st;
    struct plan *out;
    assert_true(lns_improve(pb, start, &opt, &out, &st) >= 0);
    /* the screening was counted, and the count holds (checked every 256
     * candidates: a little over at most) */
    assert_true(st.screen_work >= 1);
    assert_true(st.evaluations + st.screen_work <= opt.evaluations + 1);
    /* a round ends on a better plan or ends the search */
    double per_round = 2 * 5e7 / L;
    assert_true((double)st.candidates <= (st.improvements + 1) * per_round);
    plan_free(out);
    plan_free(start);
    fx_problem_free(pb);
}

/* A spent budget or a raised cancel flag stops it before any schedule. */
static void budget_and_cancel_are_obeyed(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_ANY);
    struct plan *start = best_baseline(pb);
    assert_non_null(start);
    volatile int cancel = 1;
    struct lns_options opt;
    lns_options_init(&opt);
    opt.cancel = &cancel;
    struct lns_stats st;
    struct plan *out;
    assert_int_equal(lns_improve(pb, start, &opt, &out, &st), 0);
    assert_null(out);
    assert_int_equal(st.evaluations, 0);
    cancel = 0;
    opt.evaluations = 1;
    assert_true(lns_improve(pb, start, &opt, &out, &st) >= 0);
    assert_true(st.evaluations <= 1);
    plan_free(out);
    plan_free(start);
    fx_problem_free(pb);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(13 * GB, LAYOUT_ANY);
    struct problem *other = fx_problem(3, 2, 1, LAYOUT_ANY);
    static const int split[4] = { 0, 0, 1, 1 };
    struct plan *start = plan_of(pb, split);
    struct plan *out = start;
    assert_int_equal(lns_improve(NULL, start, NULL, &out, NULL), -1);
    assert_null(out);
    assert_int_equal(lns_improve(pb, NULL, NULL, &out, NULL), -1);
    assert_int_equal(lns_improve(other, start, NULL, &out, NULL), -1);
    assert_int_equal(lns_improve(pb, start, NULL, NULL, NULL), -1);
    start->gpu[2] = 7;
    assert_int_equal(lns_improve(pb, start, NULL, &out, NULL), -1);
    plan_free(start);
    fx_problem_free(other);
    fx_problem_free(pb);
}

/* With the callback, the candidates of a round come fewest layers moved
 * first (an exact schedule far from the incumbent costs the most): on
 * random chains, a callback that never finds better sees one round, in
 * that order, and nothing is offered. */
static void exact_candidates_come_fewest_layers_first(void **state)
{
    (void)state;
    fx_seed(77);
    int rounds = 0;
    for (int k = 0; k < 20; k++) {
        struct problem *pb = random_problem(k);
        struct plan *start = start_of(pb);
        if (start->fits) {
            struct asked a = { .pb = pb, .start = start->gpu, .refuse = true };
            struct lns_options opt;
            lns_options_init(&opt);
            opt.evaluations = 10000;
            opt.schedule = ask;
            opt.ctx = &a;
            struct plan *out = NULL;
            struct lns_stats st;
            assert_int_equal(lns_improve(pb, start, &opt, &out, &st), 0);
            assert_null(out);
            assert_int_equal(st.evaluations, a.calls);
            assert_false(a.disorder);
            if (a.calls > 1 && a.last_moved > a.first_moved)
                rounds++;
        }
        plan_free(start);
        fx_problem_free(pb);
    }
    /* the order was put to the test */
    assert_true(rounds >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(worked_example_reaches_period_6),
        FX_TEST(schedule_callback_replaces_the_list_scheduler),
        FX_TEST(contiguous_layout_finds_nothing_better_than_9),
        FX_TEST(start_that_does_not_fit_gives_a_fitting_plan),
        FX_TEST(nothing_fits_gives_nothing),
        FX_TEST(random_offers_replay_and_keep_the_layout),
        FX_TEST(exact_candidates_come_fewest_layers_first),
        FX_TEST(same_inputs_same_plans),
        FX_TEST(long_chain_screening_is_counted),
        FX_TEST(budget_and_cancel_are_obeyed),
        FX_TEST(bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
