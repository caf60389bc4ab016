/* stages (src/stages.c, doc/model.md section 5.6): hand-worked plans with
 * their waits, memory and transfers; the DP at a period against a brute
 * force over every contiguous split, built here from the definition and
 * judged by the model's own code (plan_evaluate, the simulator); plans
 * that replay, keep the layout, sit at or above the chain bound and
 * below the cutoff; the same plan twice; bad arguments. No clock. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "allocset.h"
#include "fixture.h"
#include "plan.h"
#include "schedule.h"
#include "simulate.h"
#include "stages.h"

#define MAXL 7

static void caps(struct problem *pb, double cap)
{
    for (int p = 0; p < pb->P; p++) {
        pb->cap[p] = cap;
        pb->reserved[p] = 0;
    }
}

static struct plan *track(struct plan *pl)
{
    struct planner_result res = { .plan = pl };
    fx_track_result(&res);
    return pl;
}

/* Two layers, f = 1 and b = 2 ms each, a 1 ms transfer between them,
 * 1 GB stored each, 1f1b with m = 4, on 2 GPUs of `cap` GB. */
static struct problem *two_layers(double cap, double c)
{
    struct problem *pb = fx_problem(2, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 2; i++) {
        pb->f[i] = 1;
        pb->b[i] = 2;
        pb->s[i] = 1 * GB;
    }
    pb->c[0] = c;
    pb->schedule = SPEC_SCHEDULE_1F1B;
    caps(pb, cap * GB);
    return pb;
}

/* T = 3 (each GPU 3 ms of work): layer 1 turns round at once (lifetime
 * 3); its gradient is back on GPU 0 at 1 + 1 + 3 + 1 = 6, phase 0, but
 * B_0 may only start at phase 1 (after F_0) and end by 3: it waits 1 ms,
 * so the latency is 9 (8 without the wait) and the iteration 3 * 3 + 9 =
 * 18. One GPU would take T = 6: 3 * 6 + 6 = 24. */
static void two_stages_wait_at_the_turn(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    assert_true(fabs(stages_latency(pb, 3) - 9) < 1e-12);
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->T - 3) < 1e-12);
    assert_true(fabs(pl->latency - 9) < 1e-12);
    assert_true(fabs(pl->objective - 18) < 1e-12);
    assert_int_equal(pl->gpu[0], 0);
    assert_int_equal(pl->gpu[1], 1);
    /* F_0 at 0, F_1 at 2, B_1 at 3, B_0 at 7 (arrived at 6) */
    double want[4] = { 0, 2, 7, 3 };
    for (int o = 0; o < 4; o++)
        assert_true(fabs(pl->start[o] - want[o]) < 1e-12);
    assert_int_equal(pl->copies[0], 3);
    assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
}

/* With 2.5 GB per GPU layer 0's three copies at T = 3 do not fit. Below
 * T = 4 the gradient's phase 6 - T misses [1, T - 2] and the latency is
 * 2T + 3, three copies again; from T = 4 to 5 it is 8, two copies: 3 * 4
 * + 8 = 20, below the one GPU's 24. */
static void memory_moves_the_period(void **state)
{
    (void)state;
    struct problem *pb = two_layers(2.5, 1);
    assert_true(isinf(stages_latency(pb, 3)));
    assert_true(isinf(stages_latency(pb, 3.9)));
    assert_true(fabs(stages_latency(pb, 4) - 8) < 1e-12);
    assert_true(fabs(stages_latency(pb, 4.5) - 8) < 1e-12);
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - 20) < 1e-9);
    assert_true(fabs(pl->latency - 8) < 1e-9);
    assert_int_equal(pl->copies[0], 2);
    assert_true(pl->fits);
    assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
}

/* A 10 ms transfer: two stages need T >= 10 for the links (3 * 10 + 23
 * at least); one GPU at T = 6 gives 24. Then the links bind. */
static void one_gpu_when_the_cut_costs_more(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 10);
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - 24) < 1e-9);
    assert_int_equal(pl->gpu[0], pl->gpu[1]);
    assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
    /* one micro-batch (no copies to pay for, the objective is the
     * latency) and no room for both layers on one GPU: the links keep
     * T >= 4, where layer 1 lives 3, the gradient is back at 1 + 4 + 3 +
     * 4 = 12, phase 0, and B_0 waits to 13: latency 15. From T = 14/3 the
     * phase 12 - 2T is in [1, T - 2]: 14, no wait. */
    pb->m = 1;
    caps(pb, 1.5 * GB);
    pb->c[0] = 4;
    assert_true(isinf(stages_latency(pb, 3.9)));
    assert_true(fabs(stages_latency(pb, 4) - 15) < 1e-12);
    struct plan *q = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(q);
    /* at 4.6 the phase 2.8 is past T - 2 = 2.6: B_0 waits to 3T + 1 */
    assert_true(fabs(stages_latency(pb, 4.6) - 16.8) < 1e-12);
    assert_true(fabs(stages_latency(pb, 14.0 / 3) - 14) < 1e-12);
    assert_true(fabs(q->objective - 14) < 1e-12);
    assert_true(q->T >= 14.0 / 3 - 1e-9);
    assert_int_equal(simulate_plan(q, pb, NULL), SIM_OK);
}

/* pipedream: the period alone, with a version of the weights per copy. */
static void pipedream_takes_the_least_period(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    pb->schedule = SPEC_SCHEDULE_PIPEDREAM;
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - 3) < 1e-12);
    /* 3 copies of 1 GB weights (phi 1) and activations on GPU 0: 6 GB */
    pb->w[0] = 1 * GB;
    caps(pb, 5.5 * GB);
    assert_true(isinf(stages_latency(pb, 3)));
    struct plan *q = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(q);
    assert_true(q->T > 3);
    assert_int_equal(simulate_plan(q, pb, NULL), SIM_OK);
}

/* The objective's weights (problem_objective_weights(), shared by the
 * planners): 1f1b's iteration (m - 1) T + Lambda, pipedream's period. */
static void objective_weights_by_schedule(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    pb->m = 8;
    double alpha, beta;
    problem_objective_weights(pb, &alpha, &beta);
    assert_true(alpha == 7 && beta == 1);
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - (alpha * pl->T + beta * pl->latency)) < 1e-9);
    pb->schedule = SPEC_SCHEDULE_PIPEDREAM;
    problem_objective_weights(pb, &alpha, &beta);
    assert_true(alpha == 1 && beta == 0);
}

/* Nothing fits: NULL. A cutoff at the best plan's objective: NULL; just
 * above it: the plan. */
static void nothing_below_the_cutoff(void **state)
{
    (void)state;
    struct problem *pb = two_layers(0.5, 1);
    assert_null(stages_plan(pb, INFINITY, 0));
    caps(pb, 100 * GB);
    assert_null(stages_plan(pb, 18, 0));
    struct plan *pl = track(stages_plan(pb, 18.001, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - 18) < 1e-12);
}

/* GPUs of different room: with any layout the first stage, which keeps
 * three copies, goes to the roomiest; with the contiguous layout the
 * stages follow the GPUs' order, and there it does not fit. */
static void roomiest_gpu_first_unless_contiguous(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    pb->cap[0] = 2.5 * GB;
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(fabs(pl->objective - 18) < 1e-12);
    assert_int_equal(pl->gpu[0], 1);
    assert_int_equal(pl->gpu[1], 0);
    pb->layout = LAYOUT_CONTIGUOUS;
    struct plan *q = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(q);
    assert_true(plan_is_contiguous(q));
    assert_true(q->objective > 18 + 1e-9);
    assert_int_equal(simulate_plan(q, pb, NULL), SIM_OK);
}

/* A chain of no time: the schedule builder's least period, not a period
 * rounding towards 0. */
static void no_time_at_all(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 0);
    for (int i = 0; i < 2; i++)
        pb->f[i] = pb->b[i] = 0;
    struct plan *pl = track(stages_plan(pb, INFINITY, 0));
    assert_non_null(pl);
    assert_true(pl->T == SCHEDULE_MIN_T);
    assert_true(fabs(pl->objective - 3 * SCHEDULE_MIN_T) < 1e-15);
    assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    assert_null(stages_plan(NULL, INFINITY, 0));
    assert_null(stages_plan(pb, NAN, 0));
    assert_true(isinf(stages_latency(NULL, 3)));
    assert_true(isinf(stages_latency(pb, 0)));
    assert_true(isinf(stages_latency(pb, NAN)));
    /* below the longest layer's work nothing runs */
    assert_true(isinf(stages_latency(pb, 2.9)));
}

/* ---- against a brute force ---- */

/* The plan of the definition: stage k (layers from[k]..from[k+1]-1) on
 * GPU gpu0 + k, forwards back to back from 0 with the transfers between
 * stages, each stage's backwards back to back from the first moment after
 * the gradient arrives at which (start - stage's first forward) mod T
 * lies in [its forwards' time, T - its backwards' time]. */
static void by_definition(const struct problem *pb, const int *from, int n, int gpu0, double T,
                          struct plan *pl)
{
    int L = pb->L;
    double t = 0, t0[MAXL + 1];
    pl->T = T;
    for (int k = 0; k < n; k++) {
        t0[k] = t;
        for (int j = from[k]; j < from[k + 1]; j++) {
            pl->gpu[j] = gpu0 + k;
            pl->start[j] = t;
            t += pb->f[j];
        }
        if (from[k + 1] < L)
            t += pb->c[from[k + 1] - 1];
    }
    double arrive = t;          /* the last stage's forwards end here */
    for (int k = n - 1; k >= 0; k--) {
        double sF = 0, sB = 0;
        for (int j = from[k]; j < from[k + 1]; j++) {
            sF += pb->f[j];
            sB += pb->b[j];
        }
        double x = arrive, ph = fmod(x - t0[k], T);
        if (ph < sF)
            x += sF - ph;
        else if (ph > T - sB + 1e-12 * T)
            x += T - ph + sF;
        for (int j = from[k + 1] - 1; j >= from[k]; j--) {
            pl->start[L + j] = x;
            x += pb->b[j];
        }
        arrive = x + (from[k] > 0 ? pb->c[from[k] - 1] : 0);
    }
    plan_evaluate(pl, pb);
}

/* The least latency by definition over every split into at most P
 * stages (the first of n on GPU P - n), or INFINITY. */
static double brute_latency(const struct problem *pb, double T, struct plan *pl)
{
    int L = pb->L, P = pb->P;
    double best = INFINITY;
    /* a split: a bit per gap between layers */
    for (unsigned mask = 0; mask < 1u << (L - 1); mask++) {
        int from[MAXL + 1], n = 0;
        from[n++] = 0;
        for (int i = 1; i < L; i++)
            if (mask & 1u << (i - 1))
                from[n++] = i;
        from[n] = L;
        if (n > P)
            continue;
        bool ok = true;
        for (int k = 0; k < n && ok; k++) {
            double load = 0;
            for (int j = from[k]; j < from[k + 1]; j++)
                load += pb->f[j] + pb->b[j];
            ok = load <= T;
        }
        if (!ok)
            continue;
        by_definition(pb, from, n, P - n, T, pl);
        for (int p = 0; p < P && ok; p++)
            ok = pl->gpus[p].send_ms <= T && pl->gpus[p].recv_ms <= T;
        if (!ok || !pl->fits)
            continue;
        if (simulate_plan(pl, pb, NULL) != SIM_OK)
            fail_msg("the definition's plan does not replay (mask %u, T %g)", mask, T);
        best = fmin(best, pl->latency);
    }
    return best;
}

static const struct fx_spread spread = { 1, LAYOUT_ANY, 3, 0.25, 4, 3, 6, 1 };
/* transfers as long as the layers: the links bind */
static const struct fx_spread slow_links = { 1, LAYOUT_ANY, 3, 1.5, 4, 3, 6, 1 };

/* A random chain of 2..7 layers on 2..3 GPUs, each with room for 30% to
 * 105% of one copy of everything. */
static struct problem *random_chain(const struct fx_spread *sp)
{
    int L = 2 + (int)fx_rnd(6), P = 2 + (int)fx_rnd(2);
    struct problem *pb = fx_random(L, P, sp);
    double one = 0;
    for (int i = 0; i < L; i++)
        one += pb->phi * pb->w[i] + pb->s[i];
    caps(pb, (0.3 + 0.15 * (double)fx_rnd(6)) * one);
    return pb;
}

/* Random chains of 2..7 layers on 2..3 equal GPUs, at periods from the
 * longest layer up: the DP's latency is the brute force's, to 1e-9. */
static void dp_equals_the_brute_force(void **state)
{
    (void)state;
    fx_seed(11);
    int finite = 0, infinite = 0;
    for (int k = 0; k < 80; k++) {
        struct problem *pb = random_chain(k % 2 ? &slow_links : &spread);
        int L = pb->L, P = pb->P;
        double work = 0, longest = 0;
        for (int i = 0; i < L; i++) {
            work += pb->f[i] + pb->b[i];
            longest = fmax(longest, pb->f[i] + pb->b[i]);
        }
        for (int p = 0; k % 3 == 1 && p < P; p++) {
            pb->cap[p] *= 1.2;
            pb->reserved[p] = 0.2 * pb->cap[p];
        }
        struct plan *pl = track(plan_new(L, P));
        assert_non_null(pl);
        for (int j = 0; j < 6; j++) {
            double T = longest + (work - longest) * (0.1 + 0.17 * j) + 0.01 * (double)fx_rnd(25);
            double dp = stages_latency(pb, T), bf = brute_latency(pb, T, pl);
            if (isinf(dp) != isinf(bf) || (!isinf(dp) && fabs(dp - bf) > 1e-9 * bf))
                fail_msg("chain %d at T %.9g: DP %.12g, brute force %.12g", k, T, dp, bf);
            if (isinf(dp))
                infinite++;
            else
                finite++;
        }
    }
    /* both outcomes are exercised */
    assert_true(finite >= 100);
    assert_true(infinite >= 40);
}

/* Random chains: every plan fits, replays, is contiguous, at or above
 * the chain bound (which holds for every plan); under its own objective
 * as the cutoff only a better one comes back; the same plan on a second
 * call. */
static void plans_replay_and_respect_the_chain_bound(void **state)
{
    (void)state;
    fx_seed(5);
    int planned = 0;
    for (int k = 0; k < 60; k++) {
        struct problem *pb = random_chain(&spread);
        int L = pb->L;
        pb->layout = k % 3 == 2 ? LAYOUT_CONTIGUOUS : LAYOUT_ANY;
        if (k % 5 == 1)
            pb->cap[0] *= 1.4;
        struct plan *pl = track(stages_plan(pb, INFINITY, 0));
        if (!pl)
            continue;
        planned++;
        struct sim_report rep;
        if (simulate_plan(pl, pb, &rep) != SIM_OK)
            fail_msg("chain %d: %s", k, rep.reason);
        assert_true(pl->fits);
        assert_true(plan_is_contiguous(pl));
        double cb = allocset_chain_bound(pb, INFINITY, 0);
        if (pl->objective < cb * (1 - 1e-9))
            fail_msg("chain %d: plan %.12g below the chain bound %.12g", k, pl->objective, cb);
        /* under a cutoff, only plans below it */
        struct plan *under = track(stages_plan(pb, pl->objective, 0));
        if (under)
            assert_true(under->objective < pl->objective);
        struct plan *again = track(stages_plan(pb, INFINITY, 0));
        assert_non_null(again);
        assert_true(again->objective == pl->objective && again->T == pl->T);
        assert_memory_equal(again->gpu, pl->gpu, (size_t)L * sizeof *pl->gpu);
    }
    assert_true(planned >= 30);
}

/* A budget of one step still returns a plan or nothing, never a bad
 * one. */
static void a_tiny_budget_is_obeyed(void **state)
{
    (void)state;
    struct problem *pb = two_layers(100, 1);
    struct plan *pl = track(stages_plan(pb, INFINITY, 1));
    if (pl)
        assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(two_stages_wait_at_the_turn),
        FX_TEST(memory_moves_the_period),
        FX_TEST(one_gpu_when_the_cut_costs_more),
        FX_TEST(pipedream_takes_the_least_period),
        FX_TEST(objective_weights_by_schedule),
        FX_TEST(nothing_below_the_cutoff),
        FX_TEST(roomiest_gpu_first_unless_contiguous),
        FX_TEST(no_time_at_all),
        FX_TEST(bad_arguments_are_refused),
        FX_TEST(dp_equals_the_brute_force),
        FX_TEST(plans_replay_and_respect_the_chain_bound),
        FX_TEST(a_tiny_budget_is_obeyed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
