/* allocset: hand-worked bounds, agreement with a brute force that uses the
 * model's own memory code (plan_evaluate), bounds never above a real plan,
 * budgets and bad arguments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "allocset.h"
#include "cyclic.h"
#include "fixture.h"
#include "valgrind.h"
#include "plan.h"
#include "planner.h"
#include "schedule.h"
#include "simulate.h"

#define MAXL 7

static void caps(struct problem *pb, double cap)
{
    for (int p = 0; p < pb->P; p++) {
        pb->cap[p] = cap;
        pb->reserved[p] = 0;
    }
}

static void search(const struct problem *pb, double cutoff, struct allocset *as)
{
    int sym[8] = { 0 };
    for (int p = 1; p < pb->P; p++)
        sym[p] = pb->cap[p] == pb->cap[p - 1] && pb->reserved[p] == pb->reserved[p - 1];
    struct allocset_options o = { .cutoff = cutoff, .max_nodes = 0, .max_keep = 4096 };
    assert_int_equal(allocset_search(pb, sym, &o, as), 0);
    assert_true(as->complete);
}

/* Two layers of f = b = 1 ms and 1 GB stored each, on 2 GPUs, 1f1b with
 * m = 4, no transfers. {0,0}: period 4 (the load), lifetimes 4 and 2 keep
 * one copy each, 2 GB: bound 3 x 4 + 4 = 16. {0,1}: period 2, layer 0
 * keeps ceil(4/2) = 2 copies, 2 GB on GPU 0: bound 3 x 2 + 4 = 10. At a
 * 1.5 GB cap {0,0} never fits and {0,1} needs one copy of layer 0, so a
 * period of 4: bound 16. */
static struct problem *two_layers(double cap)
{
    struct problem *pb = fx_problem(2, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 2; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->s[i] = GB;
        pb->w[i] = pb->a[i] = pb->c[i] = 0;
    }
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 4;
    caps(pb, cap);
    return pb;
}

static void hand_worked_two_layers(void **state)
{
    (void)state;
    struct problem *pb = two_layers(2 * GB);
    struct allocset as;
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 2);
    assert_int_equal(as.n, 2);
    /* best first */
    assert_int_equal(as.gpu[0], 0);
    assert_int_equal(as.gpu[1], 1);
    assert_true(fabs(as.bound[0] - 10) < 1e-9);
    assert_true(fabs(as.period[0] - 2) < 1e-9);
    assert_true(fabs(as.latency[0] - 4) < 1e-9);
    assert_int_equal(as.gpu[2], 0);
    assert_int_equal(as.gpu[3], 0);
    assert_true(fabs(as.bound[1] - 16) < 1e-9);
    assert_true(fabs(as.least - 10) < 1e-9);
    allocset_free(&as);
    /* a cutoff keeps what beats it only */
    search(pb, 12, &as);
    assert_int_equal(as.found, 1);
    assert_int_equal(as.gpu[1], 1);
    allocset_free(&as);
    search(pb, 10, &as);
    assert_int_equal(as.found, 0);
    assert_true(isinf(as.least));
    allocset_free(&as);
    fx_problem_free(pb);

    pb = two_layers(1.5 * GB);
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 1);
    assert_int_equal(as.gpu[1], 1);
    /* 16, less the model's rounding tolerance (PLAN_EPS) */
    assert_true(fabs(as.bound[0] - 16) < 1e-4);
    assert_true(as.bound[0] <= 16);
    allocset_free(&as);
    /* nothing fits below one copy each */
    caps(pb, 0.9 * GB);
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 0);
    allocset_free(&as);
    fx_problem_free(pb);
}

/* The chain bound on two_layers(): at a 2 GB cap the least of the
 * enumeration, 10 (period 2, a cut, lifetime 4); at 1.5 GB, 16 (two copies
 * of layer 0 fit on no GPU below a period of 4); at 0.9 GB nothing fits,
 * so nothing beats the cutoff. A long layer (f 6, b 4) then a short one
 * (3, 2) with 1 ms transfers, m = 2: below a period of 15 they cannot
 * share a GPU; with a cut, layer 0 lives 10 + 2 + 5 = 17 ms at least, and
 * its F and B on one GPU put its lifetime in [k T + 10, (k + 1) T]: at T in
 * [10, 15), T + 10, so T + T + 10 >= 30; at T >= 15, T + 15 >= 30. The
 * plan at T = 10 reaches 30 (B_0 waits 3 ms for F_0's slot to end). */
static void chain_bound_hand_worked(void **state)
{
    (void)state;
    struct problem *pb = two_layers(2 * GB);
    assert_true(fabs(allocset_chain_bound(pb, 100, 2) - 10) < 1e-6);
    caps(pb, 1.5 * GB);
    double v = allocset_chain_bound(pb, 100, 2);
    assert_true(fabs(v - 16) < 1e-4 && v <= 16);
    caps(pb, 0.9 * GB);
    assert_true(allocset_chain_bound(pb, 100, 2) == 100);
    fx_problem_free(pb);

    pb = two_layers(10 * GB);
    pb->f[0] = 6, pb->b[0] = 4, pb->f[1] = 3, pb->b[1] = 2;
    pb->c[0] = 1;
    pb->m = 2;
    /* 30 less the bound's own slack (1e-9 relative) */
    v = allocset_chain_bound(pb, 100, 10);
    assert_true(fabs(v - 30) < 1e-6 && v <= 30);
    /* nothing beats a cutoff at or below the least */
    assert_true(allocset_chain_bound(pb, 25, 10) == 25);
    /* the lifetimes themselves: at T = 10, layer 1 lives 5, layer 0 20;
     * at T = 16 they may share a GPU, 15; with one copy of each on no GPU,
     * nothing fits */
    double life[2];
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 10, life), 0);
    assert_true(fabs(life[1] - 5) < 1e-6 && fabs(life[0] - 20) < 1e-6 && life[0] <= 20);
    assert_int_equal(allocset_chain_lifetimes(pb, 16, 16, life), 0);
    assert_true(fabs(life[0] - 15) < 1e-6);
    caps(pb, 0.5 * GB);
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 16, life), 1);
    assert_int_equal(allocset_chain_lifetimes(pb, 16, 10, life), -1);
    caps(pb, 10 * GB);
    /* bad arguments */
    assert_true(isinf(allocset_chain_bound(NULL, 100, 10)));
    assert_true(isinf(allocset_chain_bound(pb, INFINITY, 10)));
    assert_true(isinf(allocset_chain_bound(pb, 100, 0)));
    /* one micro-batch (the latency alone, one copy at any period): the one
     * period longer than the chain with its cut (17 ms) bounds every
     * period: both layers on one GPU, 15 ms, packed or not; with no room
     * for a copy of each, nothing beats the cutoff */
    pb->m = 1;
    v = allocset_chain_bound(pb, 100, 10);
    assert_true(fabs(v - 15) < 1e-6 && v <= 15);
    long nodes;
    v = allocset_chain_packed(pb, 100, 10, NULL, &nodes);
    assert_true(fabs(v - 15) < 1e-6 && v <= 15);
    caps(pb, 0.5 * GB);
    assert_true(allocset_chain_bound(pb, 100, 10) == 100);
    assert_true(allocset_chain_packed(pb, 100, 10, NULL, &nodes) == 100);
    fx_problem_free(pb);
}

/* Where each run fits a GPU and all the memory fits all of them, but the
 * plans do not. Three layers of f = b = 1 ms keeping 6 GB each (1f1b,
 * m = 2, no transfers) on GPUs of 10 GB: no GPU holds two, so on 2 GPUs
 * nothing fits (each run is over half a GPU: 3 such runs need 3 GPUs), on
 * 3 GPUs each has its own: L_2 = 2, L_1 = 4, L_0 = 6, one copy each only
 * from T = 6 on (at T in [3, 6) layer 0's zone [T + 2, 2 T] puts its
 * lifetime at 7 or more, two copies): 6 + 6 = 12. Then two layers keeping
 * 10.5 GB each with a 1 GB activation between them, on GPUs of 20 and
 * 1 GB: each run fits the first and the two 21 GB fit both, but together
 * they exceed the first, and apart the cut's 2 GB buffers on each side
 * make 25 GB: nothing fits. */
static struct problem *three_6gb_layers(int P)
{
    struct problem *pb = fx_problem(3, P, 1, LAYOUT_ANY);
    for (int i = 0; i < 3; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->s[i] = 6 * GB;
        pb->w[i] = pb->a[i] = pb->c[i] = 0;
    }
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 2;
    caps(pb, 10 * GB);
    return pb;
}

static void chain_bound_packing(void **state)
{
    (void)state;
    struct problem *pb = three_6gb_layers(2);
    assert_true(allocset_chain_bound(pb, 100, 2) == 100);
    double life[3];
    assert_int_equal(allocset_chain_lifetimes(pb, 6, 6, life), 1);
    /* at any period: each run over half a GPU at one copy already */
    assert_int_equal(allocset_chain_none_fits(pb), 1);
    /* the enumeration agrees: nothing fits */
    struct allocset as;
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 0);
    allocset_free(&as);
    struct problem *three = three_6gb_layers(3);
    double v = allocset_chain_bound(three, 100, 2);
    assert_true(fabs(v - 12) < 1e-4 && v <= 12);
    assert_int_equal(allocset_chain_lifetimes(three, 6, 6, life), 0);
    assert_true(fabs(life[0] - 6) < 1e-6 && fabs(life[1] - 4) < 1e-6 && fabs(life[2] - 2) < 1e-6);
    assert_int_equal(allocset_chain_none_fits(three), 0);
    assert_int_equal(allocset_chain_none_fits(NULL), -1);
    fx_problem_free(three);
    fx_problem_free(pb);

    pb = fx_problem(2, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 2; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->s[i] = 10.5 * GB;
        pb->w[i] = pb->c[i] = 0;
    }
    pb->a[0] = GB;
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 2;
    caps(pb, 20 * GB);
    pb->cap[1] = GB;
    assert_true(allocset_chain_bound(pb, 100, 2) == 100);
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 10, life), 1);
    assert_int_equal(allocset_chain_none_fits(pb), 1);
    /* with room for the buffers it fits apart: L_1 = 2, L_0 = 4, one copy
     * each from T = 4 on (at T in [2, 4) layer 0's lifetime rounds to 5 or
     * more, two copies): 4 + 4 */
    pb->cap[1] = 20 * GB;
    v = allocset_chain_bound(pb, 100, 2);
    assert_true(fabs(v - 8) < 1e-4 && v <= 8);
    fx_problem_free(pb);
}

/* The contiguous layout's run count. Three layers (f = b = 1 ms, no
 * transfers, m = 2) keeping 5, 6 and 5 GB on two GPUs of 10 GB: layers 0
 * and 2 share a GPU and layer 1 has the other, three runs on two GPUs. So
 * with the layout any the chain bound is at most that plan's 6 + 6 = 12
 * (T = 6, every layer one copy: L_0 = 6); contiguous, each GPU holds one
 * run, the two runs' neighbours never fit together (11 GB), and nothing
 * fits at any period: the bound is the cutoff. Without the count the
 * contiguous chain is the any one. */
static void chain_bound_contiguous_runs(void **state)
{
    (void)state;
    struct problem *pb = fx_problem(3, 2, 1, LAYOUT_ANY);
    const double keep[3] = {5, 6, 5};
    for (int i = 0; i < 3; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->s[i] = keep[i] * GB;
        pb->w[i] = pb->a[i] = pb->c[i] = 0;
    }
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 2;
    caps(pb, 10 * GB);
    double v = allocset_chain_bound(pb, 100, 2), life[3];
    assert_true(v <= 12 + 1e-9);
    assert_int_equal(allocset_chain_lifetimes(pb, 6, 6, life), 0);
    pb->layout = LAYOUT_CONTIGUOUS;
    assert_true(allocset_chain_bound(pb, 100, 2) == 100);
    assert_int_equal(allocset_chain_lifetimes(pb, 6, 6, life), 1);
    assert_int_equal(allocset_chain_lifetimes(pb, 100, 100, life), 1);
    assert_int_equal(allocset_chain_none_fits(pb), 1);
    /* with layer 1 at 5 GB the split {0}, {1, 2} fits contiguous: 12 */
    pb->s[1] = 5 * GB;
    v = allocset_chain_bound(pb, 100, 2);
    assert_true(v < 100 && v <= 12 + 1e-9);
    assert_int_equal(allocset_chain_lifetimes(pb, 6, 6, life), 0);
    assert_int_equal(allocset_chain_none_fits(pb), 0);
    fx_problem_free(pb);
}

/* A run's own pair zone. Layers 0 and 1 (f = 1) on one GPU, layer 2
 * (f = b = 3) on the other: the memory (0.3, 0.3, 0.6 GB of weights, GPUs
 * of 1 GB) keeps 2 off their GPU, and a 5 ms transfer after layer 0 makes
 * every other split slower. At T = 10 the rest of the chain takes 8 ms
 * (1 + 6 + 1) between F_1's end and B_1's start. With b = 1 the forwards
 * span [0, 2] mod 10 and the backwards, 2 ms, must start in [2, 8] mod
 * 10: 2 + 8 = 10 is not, so 12, and layer 0 lives 14 (the rules for
 * neighbouring layers alone give 13). With b = 0.5 the backwards (1 ms)
 * can sit between the two forwards instead: F_0 [0, 1], B_1 [11, 11.5],
 * B_0 [11.5, 12], F_1 [2, 3]: 12, where the zone alone would say 13. */
/* Three layers on two GPUs of 1 GB, 1f1b with two micro-batches, nothing
 * stored or sent but the weights and the transfers c0, c1 after layers 0
 * and 1. */
static struct problem *three_layers(const double *f, const double *b, const double *w,
                                    double c0, double c1)
{
    struct problem *pb = fx_problem(3, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 3; i++) {
        pb->f[i] = f[i];
        pb->b[i] = b[i];
        pb->w[i] = w[i];
        pb->s[i] = pb->a[i] = 0;
    }
    pb->c[0] = c0;
    pb->c[1] = c1;
    pb->c[2] = 0;
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 2;
    caps(pb, GB);
    return pb;
}

static void chain_bound_run_zone(void **state)
{
    (void)state;
    const double fb[3] = { 1, 1, 3 }, w[3] = { 0.3 * GB, 0.3 * GB, 0.6 * GB };
    struct problem *pb = three_layers(fb, fb, w, 5, 1);
    double life[3];
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 10, life), 0);
    assert_true(fabs(life[0] - 14) < 1e-6 && life[0] <= 14);
    assert_true(fabs(life[2] - 6) < 1e-6);
    pb->b[0] = pb->b[1] = 0.5;
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 10, life), 0);
    assert_true(fabs(life[0] - 12) < 1e-6 && life[0] <= 12);
    fx_problem_free(pb);
}

/* One arc of a run inside the other costs the phase of the gap it sits
 * in. Layers 0 (f = 1, b = 2) and 1 (f = 2, b = 3) on one GPU, layer 2
 * (f = 3, b = 6) on the other (a 100 ms transfer after layer 0; a run of
 * 1 and 2 or of all three is over the period), 1.75 ms after layer 1, at
 * T = 10: from F_1's end to B_1's start at least 1.75 + 9 + 1.75 = 12.5,
 * so layer 0 lives 3 + 5 + 12.5 = 20.5 with no wait. Its run's arcs: the
 * backwards starting in [3, 5] mod 10 after the forwards give 28.
 * Backwards inside the forwards' gap, which follows F_0: B_1 starts 1 mod
 * 10 after F_0, 21, and layer 0 lives 26; forwards inside the backwards'
 * gap, which precedes B_0: the gap starts 0 mod 10 after F_0, 20, and
 * layer 0 lives 20 + 3 + 2 = 25 (the plan below); an arc over the whole
 * period, 20.5 + 10 - 5 = 25.5. Without the phases the nesting was charged min(sF, sB) = 3:
 * 23.5. */
static void chain_bound_nested_phase(void **state)
{
    (void)state;
    const double f[3] = { 1, 2, 3 }, b[3] = { 2, 3, 6 }, w[3] = { 0, 0, 0 };
    struct problem *pb = three_layers(f, b, w, 100, 1.75);
    double life[3];
    assert_int_equal(allocset_chain_lifetimes(pb, 10, 10, life), 0);
    if (!(fabs(life[0] - 25) < 1e-6 && life[0] <= 25))
        fail_msg("layer 0 lives %.9g (expected 25)", life[0]);
    /* 25 is a plan's: GPU 0 mod 10 runs F_0 [0, 1], F_1 [1, 3], B_0
     * [3, 5] (from 23) and B_1 [7, 10] (from 17); GPU 1 F_2 [4.75, 7.75]
     * and B_2 [7.75, 13.75] */
    struct plan *pl = plan_new(3, 2);
    assert_non_null(pl);
    const int gpu[3] = { 0, 0, 1 };
    const double start[6] = { 0, 1, 4.75, 23, 17, 7.75 };
    memcpy(pl->gpu, gpu, sizeof gpu);
    memcpy(pl->start, start, sizeof start);
    pl->T = 10;
    assert_int_equal(plan_evaluate(pl, pb), 0);
    assert_true(fabs(pl->latency - 25) < 1e-9);
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) != SIM_OK)
        fail_msg("the plan of latency 25 does not replay: %s", rep.reason);
    plan_free(pl);
    fx_problem_free(pb);
}

/* The count of the runs' compute. Three layers of f = b = 1 ms, no
 * memory, no transfers, on two GPUs (1f1b, m = 10): below a period of 4
 * no plan fits (three 2 ms layers on two GPUs), and at 4 layers 0 and 2
 * share a GPU, layer 1 has the other, and a micro-batch runs with no wait
 * (GPU 0 mod 4: F_0 [0, 1], B_0 [1, 2], F_2 [2, 3], B_2 [3, 4]): latency
 * 6, 9 x 4 + 6 = 42. Asked from T = 3 (below the loads' bound, which
 * says 4 by itself, so that the counts alone must find it): there every
 * layer alone fits the period, and the plain chain's three runs (L_0 = 8)
 * give 9 x 3 + 8 = 35; but each is over half the period, and two GPUs
 * hold two such runs at most. */
static void chain_bound_compute_count(void **state)
{
    (void)state;
    struct problem *pb = fx_problem(3, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 3; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->w[i] = pb->s[i] = pb->a[i] = pb->c[i] = 0;
    }
    pb->schedule = SPEC_SCHEDULE_1F1B;
    pb->m = 10;
    caps(pb, GB);
    double life[3];
    assert_int_equal(allocset_chain_lifetimes(pb, 3, 3, life), 1);
    assert_int_equal(allocset_chain_lifetimes(pb, 3.9, 3.9, life), 1);
    assert_int_equal(allocset_chain_lifetimes(pb, 4, 4, life), 0);
    assert_true(fabs(life[0] - 6) < 1e-6 && life[0] <= 6);
    double v = allocset_chain_bound(pb, 100, 3);
    assert_true(fabs(v - 42) < 1e-6 && v <= 42);
    long nodes;
    v = allocset_chain_packed(pb, 100, 3, NULL, &nodes);
    assert_true(fabs(v - 42) < 1e-6 && v <= 42);
    fx_problem_free(pb);
}

/* Symmetry and layout: three layers on three identical GPUs give the 5
 * set partitions in order of first use; contiguous drops {0,1,0}. */
static void identical_gpus_and_contiguity(void **state)
{
    (void)state;
    struct problem *pb = fx_problem(3, 3, 1, LAYOUT_ANY);
    for (int i = 0; i < 3; i++) {
        pb->f[i] = pb->b[i] = 1;
        pb->s[i] = GB;
        pb->w[i] = pb->a[i] = pb->c[i] = 0;
    }
    caps(pb, 100 * GB);
    struct allocset as;
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 5);
    for (int k = 0; k < as.n; k++) {
        const int *g = as.gpu + k * 3;
        assert_int_equal(g[0], 0);
        assert_true(g[1] <= 1);
        assert_true(g[2] <= (g[1] > g[0] ? g[1] : g[0]) + 1);
    }
    allocset_free(&as);
    pb->layout = LAYOUT_CONTIGUOUS;
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 4);
    for (int k = 0; k < as.n; k++)
        assert_false(as.gpu[k * 3] == 0 && as.gpu[k * 3 + 1] == 1 && as.gpu[k * 3 + 2] == 0);
    allocset_free(&as);
    /* GPUs that differ are all tried: 3^3 allocations */
    pb->layout = LAYOUT_ANY;
    pb->cap[1] = 99 * GB;
    pb->cap[2] = 98 * GB;
    search(pb, INFINITY, &as);
    assert_int_equal(as.found, 27);
    allocset_free(&as);
    fx_problem_free(pb);
}

/* ---- the reference: plan_evaluate on wait-free schedules ---------------- */

/* The wait-free schedule of gpu[] at period T into pl (starts along the
 * chain, a transfer at each cut), evaluated by the model's own code. */
static void wait_free(const struct problem *pb, const int *gpu, double T, struct plan *pl)
{
    int L = pb->L;
    double t = 0;
    memcpy(pl->gpu, gpu, (size_t)L * sizeof *gpu);
    for (int i = 0; i < L; i++) {
        pl->start[i] = t;
        t += pb->f[i] + (i + 1 < L && gpu[i] != gpu[i + 1] ? pb->c[i] : 0);
    }
    for (int i = L - 1; i >= 0; i--) {
        if (i + 1 < L && gpu[i] != gpu[i + 1])
            t += pb->c[i];
        pl->start[L + i] = t;
        t += pb->b[i];
    }
    pl->T = T;
    assert_int_equal(plan_evaluate(pl, pb), 0);
}

/* The least objective of gpu[]'s wait-free schedule over the periods at
 * which it fits (INFINITY: none): the memory only changes at a lifetime
 * over a count, so those and the loads are the candidates. */
static double reference_bound(const struct problem *pb, const int *gpu, struct plan *pl)
{
    wait_free(pb, gpu, 1, pl);
    double t_load = 0;
    for (int p = 0; p < pb->P; p++)
        t_load = fmax(t_load, fmax(pl->gpus[p].load_ms,
                                   fmax(pl->gpus[p].send_ms, pl->gpus[p].recv_ms)));
    double best = INFINITY;
    int L = pb->L;
    for (int i = -1; i < L; i++) {
        double life = i < 0 ? 0 : pl->start[L + i] + pb->b[i] - pl->start[i];
        for (int k = 1; k <= (i < 0 ? 1 : 64); k++) {
            double T = i < 0 ? t_load : life / k;
            if (T < t_load)
                break;
            struct plan *q = pl;
            wait_free(pb, gpu, T, q);
            if (q->fits)
                best = fmin(best, q->objective);
        }
    }
    return best;
}

static bool next_alloc(int *gpu, int L, int P)
{
    for (int i = L - 1; i >= 0; i--) {
        if (++gpu[i] < P)
            return true;
        gpu[i] = 0;
    }
    return false;
}

/* In the allocset's canonical form: identical GPUs in order of first use. */
static bool canonical(const struct problem *pb, const int *gpu)
{
    bool used[8] = { false };
    for (int i = 0; i < pb->L; i++) {
        int p = gpu[i];
        if (!used[p] && p > 0 && pb->cap[p] == pb->cap[p - 1] && !used[p - 1])
            return false;
        used[p] = true;
    }
    if (pb->layout == LAYOUT_CONTIGUOUS)
        for (int i = 1; i < pb->L; i++)
            for (int j = 0; j + 1 < i; j++)
                if (gpu[j] == gpu[i] && gpu[i - 1] != gpu[i])
                    return false;
    return true;
}

static int find(const struct allocset *as, const int *gpu)
{
    for (int k = 0; k < as->n; k++)
        if (memcmp(as->gpu + (size_t)k * as->B, gpu, (size_t)as->B * sizeof *gpu) == 0)
            return k;
    return -1;
}

static const struct fx_spread spread = { 1, LAYOUT_ANY, 3, 0.25, 4, 3, 6, 1 };

/* The least objective of a fitting schedule of gpu[] that the schedule
 * builder finds over a grid of periods (INFINITY: none). */
static double scheduled_best(const struct problem *pb, const int *gpu, struct plan *pl)
{
    wait_free(pb, gpu, 1, pl);
    double t_load = 0, chain = pl->start[pb->L] + pb->b[0] - pl->start[0];
    for (int p = 0; p < pb->P; p++)
        t_load = fmax(t_load, fmax(pl->gpus[p].load_ms,
                                   fmax(pl->gpus[p].send_ms, pl->gpus[p].recv_ms)));
    double best = INFINITY;
    for (int j = 0; j <= 24; j++) {
        double T = t_load + (2 * chain - t_load) * j / 24;
        memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
        if (schedule_build_at(pl, pb, T) == 0 && pl->fits)
            best = fmin(best, pl->objective);
    }
    return best;
}

/* On random chains: every allocation with a fitting schedule is kept, at
 * a bound no higher than that schedule's objective and no lower than its
 * wait-free bound (by plan_evaluate on wait-free schedules); under a
 * cutoff, every allocation with a schedule below it is kept, and nothing
 * at or above it. */
static void bounds_between_wait_free_and_schedules(void **state)
{
    (void)state;
    fx_seed(7);
    int checked = 0, scheduled = 0, raised = 0, n = valgrind_share(60, 5);
    int chained = 0, chain_tight = 0, nofit = 0, proved = 0;
    for (int k = 0; k < n; k++) {
        int L = 2 + (int)fx_rnd(5), P = 2 + (int)fx_rnd(2);
        struct problem *pb = fx_random(L, P, &spread);
        pb->layout = k % 4 == 3 ? LAYOUT_CONTIGUOUS : LAYOUT_ANY;
        double one = 0;
        for (int i = 0; i < L; i++)
            one += pb->phi * pb->w[i] + pb->s[i];
        caps(pb, (0.3 + 0.1 * (double)fx_rnd(6)) * one);
        if (k % 5 == 2)
            pb->cap[P - 1] *= 1.5;        /* GPUs that differ */
        struct allocset all;
        search(pb, INFINITY, &all);
        struct plan *pl = plan_new(L, P);
        assert_non_null(pl);
        int gpu[MAXL] = { 0 };
        /* per canonical allocation in enumeration order (at most 3^6) */
        static double real_of[729], objs[729];
        int nobj = 0, nreal = 0;
        do {
            if (!canonical(pb, gpu))
                continue;
            double wf = reference_bound(pb, gpu, pl);
            double real = scheduled_best(pb, gpu, pl);
            real_of[nreal++] = real;
            int at = find(&all, gpu);
            if (isfinite(real)) {
                scheduled++;
                objs[nobj++] = real;
                if (at < 0)
                    fail_msg("instance %d: allocation with a schedule of %g not kept", k, real);
                if (all.bound[at] > real * (1 + 1e-9))
                    fail_msg("instance %d: bound %.12g above a schedule's %.12g", k,
                             all.bound[at], real);
            }
            if (at >= 0) {
                if (!isfinite(wf))
                    fail_msg("instance %d: kept an allocation that never fits", k);
                /* the model's counts round with PLAN_EPS: a hair below
                 * life / k still counts k */
                if (all.bound[at] < wf * (1 - 2e-6))
                    fail_msg("instance %d: bound %.12g below the wait-free %.12g", k,
                             all.bound[at], wf);
                raised += all.bound[at] > wf * (1 + 1e-6);
            }
            checked++;
        } while (next_alloc(gpu, L, P));
        /* nothing fits at any period only where no schedule fits */
        int none = allocset_chain_none_fits(pb);
        if (none == 1 && nobj > 0)
            fail_msg("instance %d: proven that nothing fits, but %d allocations do", k, nobj);
        assert_true(none == 0 || none == 1);
        nofit += nobj == 0;
        proved += none == 1;
        /* the chain bound, over every allocation at once, is at most
         * every schedule's objective */
        if (nobj > 0 && pb->m > 1) {
            double least = INFINITY;
            for (int j = 0; j < nobj; j++)
                least = fmin(least, objs[j]);
            double t_lo = fmax(problem_lower_bound(pb), problem_load_bound(pb));
            double v = allocset_chain_bound(pb, 2 * least, t_lo);
            if (!(v <= least * (1 + 1e-9)))
                fail_msg("instance %d: chain bound %.12g above a schedule's %.12g", k, v, least);
            chained += v > 0;
            chain_tight += v >= least * (1 - 1e-6);
        }
        /* a cutoff at the median schedule */
        if (nobj > 1) {
            double cut = objs[nobj / 2];
            struct allocset some;
            search(pb, cut, &some);
            for (int j = 0; j < some.n; j++)
                assert_true(some.bound[j] < cut);
            memset(gpu, 0, sizeof gpu);
            int r = 0;
            do {
                if (!canonical(pb, gpu))
                    continue;
                if (real_of[r++] < cut * (1 - 1e-9) && find(&some, gpu) < 0)
                    fail_msg("instance %d: under a cutoff %g an allocation below it is gone", k,
                             cut);
            } while (next_alloc(gpu, L, P));
            allocset_free(&some);
        }
        plan_free(pl);
        allocset_free(&all);
        fx_problem_free(pb);
    }
    print_message("%d allocations, %d with schedules, %d bounds above the wait-free one; "
                  "chain bound on %d instances, %d at the best schedule; %d with no schedule "
                  "that fits, %d proven so at any period\n",
                  checked, scheduled, raised, chained, chain_tight, nofit, proved);
    assert_true(scheduled > n);
    assert_true(raised > 0);
    assert_true(proved > 0 && proved <= nofit);
}

/* Real plans (every baseline's, scheduled) are at or above the bound of
 * their allocation, relabelled into first-use order (identical GPUs). */
static void baselines_never_below_their_bound(void **state)
{
    (void)state;
    fx_seed(11);
    int compared = 0;
    for (int k = 0; k < 40; k++) {
        int L = 3 + (int)fx_rnd(4), P = 2 + (int)fx_rnd(2);
        struct problem *pb = fx_random(L, P, &spread);
        double one = 0;
        for (int i = 0; i < L; i++)
            one += pb->phi * pb->w[i] + pb->s[i];
        caps(pb, (0.5 + 0.25 * (double)fx_rnd(4)) * one);
        struct allocset as;
        search(pb, INFINITY, &as);
        for (int b = 0; b < planner_count(); b++) {
            struct planner_result res;
            if (planner_is_solver(planner_name(b)) ||
                planner_run(planner_name(b), pb, &res) != 0)
                continue;
            fx_track_result(&res);
            if (res.plan && res.plan->fits) {
                int map[8], next = 0, gpu[MAXL];
                for (int p = 0; p < P; p++)
                    map[p] = -1;
                for (int i = 0; i < L; i++) {
                    int p = res.plan->gpu[i];
                    if (map[p] < 0)
                        map[p] = next++;
                    gpu[i] = map[p];
                }
                int at = find(&as, gpu);
                if (at < 0)
                    fail_msg("instance %d: %s's allocation is not in the set", k, planner_name(b));
                if (as.bound[at] > res.plan->objective * (1 + 1e-9))
                    fail_msg("instance %d: %s's plan %.9g below its bound %.9g", k,
                             planner_name(b), res.plan->objective, as.bound[at]);
                compared++;
            }
            fx_result_clear(&res);
        }
        allocset_free(&as);
        fx_problem_free(pb);
    }
    assert_true(compared > 40);
}

/* A node budget stops the search and says so; bad arguments are refused. */
static void budget_and_bad_arguments(void **state)
{
    (void)state;
    /* the chain bound stays within its steps: 8,000 short layers, every
     * one in reach of every other within the period, would take 3 10^7
     * steps a piece */
    struct problem *big = fx_problem(8000, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < big->L; i++) {
        big->f[i] = big->b[i] = 1;
        big->s[i] = big->w[i] = big->a[i] = big->c[i] = 0;
    }
    caps(big, GB);
    double life[1];
    assert_true(isinf(allocset_chain_bound(big, 1e9, 8000)));
    assert_int_equal(allocset_chain_lifetimes(big, 16000, 20000, life), -1);
    fx_problem_free(big);
    fx_seed(3);
    struct problem *pb = fx_random(7, 3, &spread);
    caps(pb, 1e6 * GB);
    struct allocset as;
    struct allocset_options o = { .cutoff = INFINITY, .max_nodes = 50, .max_keep = 8 };
    assert_int_equal(allocset_search(pb, NULL, &o, &as), 0);
    assert_false(as.complete);
    assert_true(as.n <= 8);
    allocset_free(&as);
    /* kept at most max_keep, counted all */
    o.max_nodes = 0;
    assert_int_equal(allocset_search(pb, NULL, &o, &as), 0);
    assert_true(as.complete);
    assert_int_equal(as.n, 8);
    assert_int_equal(as.found, 3 * 3 * 3 * 3 * 3 * 3 * 3);
    allocset_free(&as);
    assert_int_equal(allocset_search(NULL, NULL, &o, &as), -1);
    assert_int_equal(allocset_search(pb, NULL, NULL, &as), -1);
    assert_int_equal(allocset_search(pb, NULL, &o, NULL), -1);
    o.max_keep = -1;
    assert_int_equal(allocset_search(pb, NULL, &o, &as), -1);
    allocset_free(&as);
    allocset_free(NULL);
    fx_problem_free(pb);
}

/* Brute force for cyclic_span at one integer period: every integer start
 * (the least starts of a system of integer bounds are integers), depth
 * first; the least span below hi, or hi. Op j on GPU grp[j] (NULL: one
 * GPU); only two on one GPU may not overlap. */
static void cyclic_brute_at(int n, const int *d, const int *g, const int *grp, int T, int j,
                            int *s, int hi, int *best)
{
    if (j == n) {
        int span = s[n - 1] + d[n - 1];
        if (span < *best)
            *best = span;
        return;
    }
    for (int t = s[j - 1] + d[j - 1] + g[j - 1]; t + d[j] < *best && t + d[j] < hi; t++) {
        bool ok = true;
        for (int a = 0; a < j && ok; a++) {
            if (grp && grp[a] != grp[j])
                continue;
            /* the zones [k T + d_a, (k + 1) T - d_b]: an empty operation may
             * sit at another's start (as the simulator allows), not inside */
            int x = (t - s[a]) % T;
            ok = (x >= d[a] && x <= T - d[j]) || (x == 0 && d[j] == 0);
        }
        if (ok) {
            s[j] = t;
            cyclic_brute_at(n, d, g, grp, T, j + 1, s, hi, best);
        }
    }
}

/* Random integer operations as doubles (into dd, gd) and their span
 * without waits (*wait_free); returns the ceiling the brute force searches
 * below: that and a period for each operation. */
static int cyclic_doubles(int n, const int *di, const int *gi, int T, double *dd, double *gd,
                          double *wait_free)
{
    *wait_free = 0;
    for (int j = 0; j < n; j++) {
        dd[j] = di[j];
        gd[j] = gi[j];
        *wait_free += di[j] + (j + 1 < n ? gi[j] : 0);
    }
    return (int)*wait_free + (n + 1) * T;
}

/* A GPU's own operations (cyclic.h): hand-worked, and equal to a brute
 * force over integer starts at one period; over a range of periods never
 * above the brute force at any integer period in it. */
static void cyclic_span_exact(void **state)
{
    (void)state;
    struct cyclic cy;
    assert_int_equal(cyclic_init(&cy), 0);
    /* a layer's forward (2) and backward (3) on one GPU, T = 6: the
     * backward starts 2..3 after the forward, modulo 6 */
    double d[CYCLIC_OPS] = { 2, 3 }, g[CYCLIC_OPS] = { 0 };
    assert_true(fabs(cyclic_span(&cy, 2, d, g, 6, 6, 100, 1000) - 5) < 1e-6);
    /* 2 away first: 4 is in the gap (3, 8), so 8, and the span 11 */
    g[0] = 2;
    assert_true(fabs(cyclic_span(&cy, 2, d, g, 6, 6, 100, 1000) - 11) < 1e-6);
    /* none below 11 */
    assert_true(fabs(cyclic_span(&cy, 2, d, g, 6, 6, 11, 1000) - 11) < 1e-6);
    /* three operations of 2 and an empty one, T = 10, back to back: a
     * ceiling far above (a cutoff of a million micro-batches) gives the
     * same span for the same work; the zones past the best span were
     * tried one by one, 30 under a ceiling of 100 and 300,000 under 10^6 */
    double d4[4] = { 2, 2, 2, 0 }, g4[3] = { 0, 0, 0 };
    assert_true(fabs(cyclic_span(&cy, 4, d4, g4, 10, 10, 100, 1000000) - 6) < 1e-6);
    long steps = cy.steps;
    assert_true(steps >= 1);
    assert_true(fabs(cyclic_span(&cy, 4, d4, g4, 10, 10, 1e6, 1000000) - 6) < 1e-6);
    assert_true(cy.steps <= steps);
    /* three operations of 1, the second at least 2 after the first ends,
     * T = 3: the second cannot start at 3 (phase 0, the first's), so 4;
     * the third right after it, at 5 (phases 0, 1, 2): span 6 */
    double d3[3] = { 1, 1, 1 }, g3[2] = { 2, 0 };
    assert_true(fabs(cyclic_span(&cy, 3, d3, g3, 3, 3, 100, 1000) - 6) < 1e-6);

    fx_seed(0xc1c11cu);
    int checked = 0, waited = 0;
    int trials = valgrind_running() ? 60 : 400;
    for (int k = 0; k < trials; k++) {
        int n = 2 + (int)fx_rnd(5), T = 4 + (int)fx_rnd(9), load = 0;
        int di[8], gi[8], s[8] = { 0 };
        for (int j = 0; j < n; j++) {
            di[j] = (int)fx_rnd(3);
            gi[j] = (int)fx_rnd(4) == 0 ? (int)fx_rnd(2 * T) : 0;
            load += di[j];
        }
        if (load > T)
            continue;
        double dd[8], gd[8], wait_free;
        int hi = cyclic_doubles(n, di, gi, T, dd, gd, &wait_free), best = hi;
        cyclic_brute_at(n, di, gi, NULL, T, 1, s, hi, &best);
        double v = cyclic_span(&cy, n, dd, gd, T, T, hi, 1000000);
        if (fabs(v - best) > 1e-6) {
            for (int j = 0; j < n; j++)
                print_message("op %d: d %d, gap after %d\n", j, di[j], gi[j]);
            fail_msg("trial %d (n %d, T %d): cyclic span %.9g, brute force %d", k, n, T, v, best);
        }
        /* over [T - 1, T + 1]: never above the least of the three periods */
        int least = hi;
        for (int t = T - 1; t <= T + 1; t++) {
            if (t < load || t < 1)
                continue;
            int b = hi;
            cyclic_brute_at(n, di, gi, NULL, t, 1, s, hi, &b);
            least = b < least ? b : least;
        }
        if (T - 1 >= load && T - 1 >= 1)
            assert_true(cyclic_span(&cy, n, dd, gd, T - 1, T + 1, hi, 1000000) <= least + 1e-6);
        /* a budget of one node: still a bound */
        assert_true(cyclic_span(&cy, n, dd, gd, T, T, hi, 1) <= best + 1e-6);
        checked++;
        waited += best > (int)wait_free;
    }
    print_message("cyclic: %d instances checked, %d with waits\n", checked, waited);
    assert_true(checked >= trials / 4 && waited >= checked / 8);
    cyclic_free(&cy);
}

/* Two GPUs' operations together (cyclic_span_groups): hand-worked, and
 * equal to the brute force at one period on random chains of operations
 * spread over two or three GPUs; never below the span of each GPU's own
 * (the same constraints and more); all on one GPU, cyclic_span's. */
static void cyclic_span_groups_exact(void **state)
{
    (void)state;
    struct cyclic cy;
    assert_int_equal(cyclic_init(&cy), 0);
    /* a forward of 2 on GPU 0, one of 3 on GPU 1, the backward of 2 on
     * GPU 0, T = 5: the first two back to back (other GPUs), the third at
     * 5 would be 5 after the first, which is in (3, 7): so 7, span 9. On
     * one GPU 7 of work does not fit a period of 5: none below hi. */
    double d[3] = { 2, 3, 2 }, g[2] = { 0, 0 };
    int grp[3] = { 0, 1, 0 }, one[3] = { 0, 0, 0 };
    assert_true(fabs(cyclic_span_groups(&cy, 3, d, g, grp, 5, 5, 100, 1000) - 9) < 1e-6);
    assert_true(fabs(cyclic_span_groups(&cy, 3, d, g, one, 5, 5, 100, 1000) - 100) < 1e-6);
    assert_true(fabs(cyclic_span(&cy, 3, d, g, 5, 5, 100, 1000) - 100) < 1e-6);
    /* the GPUs' labels are only compared: 7 and 3 are two GPUs too */
    int other[3] = { 7, 3, 7 };
    assert_true(fabs(cyclic_span_groups(&cy, 3, d, g, other, 5, 5, 100, 1000) - 9) < 1e-6);

    fx_seed(0x9a1125u);
    int checked = 0, joint = 0;
    int trials = valgrind_running() ? 60 : 400;
    for (int k = 0; k < trials; k++) {
        int n = 2 + (int)fx_rnd(6), T = 4 + (int)fx_rnd(9), G = 2 + (int)fx_rnd(2);
        int di[8], gi[8], gr[8], s[8] = { 0 }, load[3] = { 0 };
        for (int j = 0; j < n; j++) {
            di[j] = (int)fx_rnd(4);
            gi[j] = (int)fx_rnd(3) == 0 ? (int)fx_rnd(2 * T) : 0;
            gr[j] = (int)fx_rnd((unsigned)G);
            load[gr[j]] += di[j];
        }
        if (load[0] > T || load[1] > T || load[2] > T)
            continue;
        double dd[8], gd[8], wait_free;
        int hi = cyclic_doubles(n, di, gi, T, dd, gd, &wait_free), best = hi;
        cyclic_brute_at(n, di, gi, gr, T, 1, s, hi, &best);
        double v = cyclic_span_groups(&cy, n, dd, gd, gr, T, T, hi, 1000000);
        if (fabs(v - best) > 1e-6) {
            for (int j = 0; j < n; j++)
                print_message("op %d: d %d, gap after %d, GPU %d\n", j, di[j], gi[j], gr[j]);
            fail_msg("trial %d (n %d, T %d): grouped span %.9g, brute force %d", k, n, T, v, best);
        }
        /* a budget of one node: still a bound */
        assert_true(cyclic_span_groups(&cy, n, dd, gd, gr, T, T, hi, 1) <= best + 1e-6);
        /* each GPU's operations alone (the others' as gaps) span no more */
        int most = 0;
        for (int p = 0; p < G; p++) {
            int first = -1, last = -1;
            for (int j = 0; j < n; j++)
                if (gr[j] == p) {
                    first = first < 0 ? j : first;
                    last = j;
                }
            if (first < 0 || first == last)
                continue;
            int m = 0, dp[8], gp[8], sp[8] = { 0 };
            for (int j = first; j <= last; j++) {
                if (gr[j] != p) {
                    gp[m - 1] += di[j] + gi[j];
                    continue;
                }
                dp[m] = di[j];
                gp[m++] = j < last ? gi[j] : 0;
            }
            int b = hi;
            cyclic_brute_at(m, dp, gp, NULL, T, 1, sp, hi, &b);
            /* a span between p's ops, plus what lies outside them */
            int outside = 0;
            for (int j = 0; j < first; j++)
                outside += di[j] + gi[j];
            for (int j = last + 1; j < n; j++)
                outside += gi[j - 1] + di[j];
            most = b + outside > most ? b + outside : most;
        }
        assert_true(best >= (most < hi ? most : hi));
        checked++;
        joint += best > most;
    }
    print_message("cyclic groups: %d instances checked, %d where GPUs together wait more\n",
                  checked, joint);
    assert_true(checked >= trials / 4 && joint > 0);
    cyclic_free(&cy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(hand_worked_two_layers),
        FX_TEST(identical_gpus_and_contiguity),
        FX_TEST(chain_bound_hand_worked),
        FX_TEST(chain_bound_packing),
        FX_TEST(chain_bound_contiguous_runs),
        FX_TEST(chain_bound_run_zone),
        FX_TEST(chain_bound_nested_phase),
        FX_TEST(chain_bound_compute_count),
        FX_TEST(bounds_between_wait_free_and_schedules),
        FX_TEST(baselines_never_below_their_bound),
        FX_TEST(budget_and_bad_arguments),
        FX_TEST(cyclic_span_exact),
        FX_TEST(cyclic_span_groups_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
