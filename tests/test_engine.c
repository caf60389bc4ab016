/* Tests for the planning engine core: problem, plan, schedule. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan.h"
#include "problem.h"
#include "schedule.h"
#include "simulate.h"
#include "valgrind.h"

#define GB 1000000000.0
#define TOL 1e-9

/* ---- hand-built specs (spec.c is not used here) ---- */

struct fixture {
    struct spec_network net;
    struct spec_platform plat;
    uint64_t gpu_memory[8];
    struct spec_layer layers[64];
    char names[64][16];
};

static void fixture_init(struct fixture *fx, int L, int gpus)
{
    memset(fx, 0, sizeof *fx);
    fx->net.name = "net";
    fx->net.micro_batch = 32;
    fx->net.nlayers = L;
    fx->net.layers = fx->layers;
    for (int i = 0; i < L; i++) {
        snprintf(fx->names[i], sizeof fx->names[i], "l%d", i + 1);
        fx->layers[i].name = fx->names[i];
        fx->layers[i].forward_ms = 1.0;
        fx->layers[i].backward_ms = 2.0;
    }
    fx->plat.name = "plat";
    fx->plat.gpus = gpus;
    fx->plat.memory = 100000000000ull;
    for (int p = 0; p < 8; p++)
        fx->gpu_memory[p] = fx->plat.memory;
    fx->plat.gpu_memory = fx->gpu_memory;
    fx->plat.reserved = 0;
    fx->plat.bandwidth = 1e12;
    fx->plat.latency_ms = 0.0;
    fx->plat.micro_batches = 4;
    fx->plat.schedule = SPEC_SCHEDULE_PIPEDREAM;
    fx->plat.optimizer = SPEC_OPT_FACTOR;
    fx->plat.weight_factor = 4.0;
}

static struct problem *fixture_problem(struct fixture *fx, const struct knobs *k)
{
    char err[256] = "";
    struct problem *pb = problem_create(&fx->net, &fx->plat, k, err, sizeof err);
    if (!pb)
        fail_msg("problem_create: %s", err);
    return pb;
}

/* doc/model.md section 9: f = 1, b = 2, s = 4, 3, 2, 1 GB, 2 GPUs, pipedream. */
static struct problem *section9_problem(struct fixture *fx)
{
    fixture_init(fx, 4, 2);
    for (int i = 0; i < 4; i++)
        fx->layers[i].stored = (uint64_t)(4 - i) * 1000000000ull;
    return fixture_problem(fx, NULL);
}

static struct plan *plan_with(const struct problem *pb, const int *gpu)
{
    struct plan *pl = plan_new(pb->L, pb->P);
    assert_non_null(pl);
    memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
    return pl;
}

static void assert_starts(const struct plan *pl, const double *want)
{
    for (int o = 0; o < 2 * pl->L; o++) {
        if (fabs(pl->start[o] - want[o]) > TOL)
            fail_msg("start[%d] = %g, want %g", o, pl->start[o], want[o]);
    }
}

static void assert_inflight(const struct plan *pl, const int *want)
{
    for (int i = 0; i < pl->L; i++)
        assert_int_equal(pl->inflight[i], want[i]);
}

/* ---- an independent checker of doc/model.md section 2 ---- */

static double pos_mod(double x, double T)
{
    double r = fmod(x, T);
    return r < 0 ? r + T : r;
}

static double dur(const struct problem *pb, int o)
{
    return o < pb->L ? pb->f[o] : pb->b[o - pb->L];
}

static void check_valid(const struct plan *pl, const struct problem *pb)
{
    const double eps = 1e-6;
    int L = pb->L;
    double T = pl->T;
    assert_true(T > 0);
    assert_true(fabs(pl->start[0]) < eps);
    /* chain order with transfer delays */
    for (int i = 0; i + 1 < L; i++) {
        double c = pl->gpu[i] != pl->gpu[i + 1] ? pb->c[i] : 0.0;
        if (pl->start[i + 1] < pl->start[i] + pb->f[i] + c - eps)
            fail_msg("F%d starts before F%d and its transfer end", i + 1, i);
        if (pl->start[L + i] < pl->start[L + i + 1] + pb->b[i + 1] + c - eps)
            fail_msg("B%d starts before B%d and its transfer end", i, i + 1);
    }
    assert_true(pl->start[2 * L - 1] >= pl->start[L - 1] + pb->f[L - 1] - eps);
    /* loads */
    double load[8] = { 0 }, send[8] = { 0 }, recv[8] = { 0 };
    for (int i = 0; i < L; i++) {
        load[pl->gpu[i]] += pb->f[i] + pb->b[i];
        if (i + 1 < L && pl->gpu[i] != pl->gpu[i + 1]) {
            send[pl->gpu[i]] += pb->c[i];
            recv[pl->gpu[i + 1]] += pb->c[i];
            send[pl->gpu[i + 1]] += pb->c[i];
            recv[pl->gpu[i]] += pb->c[i];
        }
    }
    for (int p = 0; p < pb->P; p++) {
        assert_true(load[p] <= T + eps);
        assert_true(send[p] <= T + eps);
        assert_true(recv[p] <= T + eps);
    }
    /* modular non-overlap: o' must start at least d_o after o, circularly,
     * and leave d_o' before o comes round again */
    for (int o = 0; o < 2 * L; o++) {
        for (int q = o + 1; q < 2 * L; q++) {
            int lo = o < L ? o : o - L, lq = q < L ? q : q - L;
            double d1 = dur(pb, o), d2 = dur(pb, q);
            if (pl->gpu[lo] != pl->gpu[lq] || d1 <= 0 || d2 <= 0)
                continue;
            double x = pos_mod(pl->start[q] - pl->start[o], T);
            if (x > T - eps)
                x = 0;
            if (!(x >= d1 - eps && x <= T - d2 + eps))
                fail_msg("ops %d and %d overlap on GPU %d (T %g, starts %g %g)",
                         o, q, pl->gpu[lo], T, pl->start[o], pl->start[q]);
        }
    }
    /* derived counts follow the lifetimes */
    for (int i = 0; i < L; i++) {
        double life = pl->start[L + i] + pb->b[i] - pl->start[i];
        int n = (int)ceil(life / T - 1e-6);
        if (n < 1)
            n = 1;
        assert_int_equal(pl->inflight[i], n);
    }
}

/* ---- doc/model.md section 9 ---- */

static void test_section9_contiguous(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = section9_problem(&fx);
    assert_true(fabs(problem_lower_bound(pb) - 6.0) < TOL);
    struct plan *pl = plan_with(pb, (int[]){ 0, 0, 1, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 6.0) < TOL);
    assert_starts(pl, (double[]){ 0, 1, 2, 3, 10, 8, 6, 4 });
    assert_inflight(pl, (int[]){ 2, 2, 1, 1 });
    assert_true(fabs(pl->gpus[0].total - 14 * GB) < 1);
    assert_true(fabs(pl->gpus[1].total - 3 * GB) < 1);
    assert_true(fabs(pl->latency - 12.0) < TOL);
    assert_true(fabs(pl->objective - 6.0) < TOL);
    assert_true(fabs(pl->throughput - 32 * 1000.0 / 6.0) < 1e-6);
    assert_int_equal(pl->peak_gpu, 0);
    assert_true(fabs(pl->peak_memory - 14 * GB) < 1);
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

static void test_section9_noncontiguous(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = section9_problem(&fx);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1, 1, 0 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 6.0) < TOL);
    assert_starts(pl, (double[]){ 0, 1, 2, 3, 13, 11, 9, 4 });
    assert_inflight(pl, (int[]){ 3, 2, 2, 1 });
    assert_true(fabs(pl->gpus[0].total - 13 * GB) < 1);
    assert_true(fabs(pl->gpus[1].total - 10 * GB) < 1);
    assert_true(fabs(pl->latency - 15.0) < TOL);
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

/* Under a 13 GB cap the non-contiguous plan fits at T = 6, the contiguous
 * one does not. */
static void test_section9_cap(void **state)
{
    (void)state;
    struct fixture fx;
    problem_free(section9_problem(&fx));
    struct knobs k;
    knobs_init(&k);
    k.memory = 13000000000ull;
    struct problem *pb = fixture_problem(&fx, &k);
    struct plan *a = plan_with(pb, (int[]){ 0, 0, 1, 1 });
    struct plan *b = plan_with(pb, (int[]){ 0, 1, 1, 0 });
    assert_int_equal(schedule_build(a, pb), 0);
    assert_int_equal(schedule_build(b, pb), 0);
    assert_false(a->fits);
    assert_true(b->fits);
    assert_int_equal(a->peak_gpu, 0);
    plan_free(a);
    plan_free(b);
    problem_free(pb);
}

/* The contiguous split at T = 9 (doc/model.md section 9, last paragraph, and
 * its 1-based names): the plain list schedule makes B2 wait 3 ms after B3
 * and keeps two copies of layer 2 (14 GB); the local search moves a 2 ms
 * wait before F2 instead and finds the model's hand-made schedule (F1 -3,
 * F2 0, ..., B1 10), shifted by 3 ms: 11 GB. */
static void test_section9_period9_waits_early(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = section9_problem(&fx);
    struct plan *pl = plan_with(pb, (int[]){ 0, 0, 1, 1 });
    assert_int_equal(schedule_build_at(pl, pb, 9.0), 0);
    assert_true(fabs(pl->T - 9.0) < TOL);
    assert_starts(pl, (double[]){ 0, 3, 4, 5, 13, 10, 8, 6 });
    assert_inflight(pl, (int[]){ 2, 1, 1, 1 });
    assert_true(fabs(pl->gpus[0].total - 11 * GB) < 1);
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

/* ---- transfers: c_i, buffers, send/receive loads ---- */

/* Two layers on two GPUs; c = 0.5 ms latency + 1 GB at 1 TB/s = 1.5 ms.
 * F0 [0,1), F1 at 2.5, B1 at 3.5, B0 at 7; T = 3. */
static struct problem *transfer_problem(struct fixture *fx, int schedule, long m)
{
    fixture_init(fx, 2, 2);
    fx->plat.latency_ms = 0.5;
    fx->layers[0].activation = 1000000000ull;
    fx->layers[0].stored = 2000000000ull;
    fx->layers[0].weights = 1000000ull;
    fx->layers[1].activation = 7000000000ull; /* after the last layer: unused */
    fx->layers[1].stored = 500000000ull;
    fx->layers[1].weights = 3000000ull;
    struct knobs k;
    knobs_init(&k);
    k.schedule = schedule;
    k.micro_batches = m;
    return fixture_problem(fx, &k);
}

static void test_transfer_pipedream(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = transfer_problem(&fx, SPEC_SCHEDULE_PIPEDREAM, 4);
    assert_true(fabs(pb->c[0] - 1.5) < TOL);
    assert_true(pb->c[1] == 0.0);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 3.0) < TOL);
    assert_starts(pl, (double[]){ 0, 2.5, 7, 3.5 });
    assert_inflight(pl, (int[]){ 3, 1 });
    for (int p = 0; p < 2; p++) {
        assert_true(fabs(pl->gpus[p].send_ms - 1.5) < TOL);
        assert_true(fabs(pl->gpus[p].recv_ms - 1.5) < TOL);
        assert_true(fabs(pl->gpus[p].buffers - 2e9) < 1);
        assert_true(fabs(pl->gpus[p].load_ms - 3.0) < TOL);
    }
    /* pipedream: (phi + n - 1) w, s n */
    assert_true(fabs(pl->gpus[0].weights - 6 * 1e6) < 1e-3);
    assert_true(fabs(pl->gpus[0].activations - 6e9) < 1);
    assert_true(fabs(pl->gpus[1].weights - 4 * 3e6) < 1e-3);
    assert_true(fabs(pl->gpus[1].activations - 0.5e9) < 1);
    assert_true(fabs(pl->gpus[0].total - (6e6 + 6e9 + 2e9)) < 1);
    assert_true(fabs(pl->latency - 9.0) < TOL);
    assert_true(fabs(pl->objective - 3.0) < TOL);
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

static void test_transfer_1f1b(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = transfer_problem(&fx, SPEC_SCHEDULE_1F1B, 2);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_inflight(pl, (int[]){ 3, 1 });
    assert_int_equal(pl->copies[0], 2);     /* min(n, m) */
    assert_int_equal(pl->versions[0], 1);
    assert_true(fabs(pl->gpus[0].weights - 4 * 1e6) < 1e-3);
    assert_true(fabs(pl->gpus[0].activations - 4e9) < 1);
    assert_true(fabs(pl->iteration - 12.0) < TOL);  /* (2-1)*3 + 9 */
    assert_true(fabs(pl->objective - 12.0) < TOL);
    assert_true(fabs(pl->throughput - 2 * 32 * 1000.0 / 12.0) < 1e-6);
    plan_free(pl);
    problem_free(pb);
}

/* The same chain on one GPU moves nothing: no buffers, no link load. */
static void test_transfer_same_gpu(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = transfer_problem(&fx, SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_with(pb, (int[]){ 1, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 6.0) < TOL);
    assert_starts(pl, (double[]){ 0, 1, 4, 2 });
    assert_true(pl->gpus[1].buffers == 0.0);
    assert_true(pl->gpus[1].send_ms == 0.0);
    assert_true(pl->gpus[0].total == 0.0);
    assert_int_equal(plan_gpus_used(pl), 1);
    plan_free(pl);
    problem_free(pb);
}

/* Links slower than compute set the period; a GPU holding layers on both
 * sides of a cut it does not touch pays no buffer for it. */
static void test_transfer_link_bound(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 3, 2);
    fx.plat.bandwidth = 1e9;                  /* 5 MB -> 5 ms */
    for (int i = 0; i < 3; i++)
        fx.layers[i].activation = 5000000ull;
    struct problem *pb = fixture_problem(&fx, NULL);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1, 0 });
    assert_int_equal(schedule_build(pl, pb), 0);
    /* GPU 1 touches both cuts: sends and receives 10 ms per period */
    assert_true(fabs(pl->gpus[1].send_ms - 10.0) < TOL);
    assert_true(fabs(pl->gpus[0].recv_ms - 10.0) < TOL);
    assert_true(pl->T >= 10.0 - TOL);
    assert_true(fabs(pl->gpus[0].buffers - 2 * 2 * 5e6) < 1e-6);
    check_valid(pl, pb);
    plan_free(pl);

    /* Loads 6 and 3, links 5: T = 6 needs GPU 0 packed tight. Placing B1
     * at its ready time (15, offset 3) would split GPU 0's free time into
     * two 1 ms holes and leave no room for B0; flush placement puts B1 at
     * [4,6) and B0 at [2,4) modulo 6. */
    pl = plan_with(pb, (int[]){ 0, 0, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 6.0) < TOL);
    assert_starts(pl, (double[]){ 0, 1, 7, 20, 16, 8 });
    assert_inflight(pl, (int[]){ 4, 3, 1 });
    assert_true(fabs(pl->latency - 22.0) < TOL);
    assert_true(fabs(pl->gpus[0].buffers - 2 * 5e6) < 1e-6);
    assert_true(fabs(pl->gpus[1].buffers - 2 * 5e6) < 1e-6);
    check_valid(pl, pb);
    plan_free(pl);

    /* GPU 0 holds layers on both sides of cut 1 (between GPUs 1 and 2)
     * but does not touch it: no buffer for it there. */
    fixture_init(&fx, 4, 3);
    fx.layers[1].activation = 7000ull;
    problem_free(pb);
    pb = fixture_problem(&fx, NULL);
    pl = plan_with(pb, (int[]){ 0, 1, 2, 0 });
    pl->T = 6.0;
    assert_int_equal(plan_evaluate(pl, pb), 0);
    assert_true(pl->gpus[0].buffers == 0.0);
    assert_true(fabs(pl->gpus[1].buffers - 14000.0) < 1e-9);
    assert_true(fabs(pl->gpus[2].buffers - 14000.0) < 1e-9);
    assert_true(pl->gpus[0].send_ms == 0.0 && pl->gpus[0].recv_ms == 0.0);
    plan_free(pl);
    problem_free(pb);
}

/* ---- schedule builder edges ---- */

static void test_schedule_errors(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = section9_problem(&fx);
    struct plan *pl = plan_with(pb, (int[]){ 0, 0, 1, 1 });
    assert_int_equal(schedule_build_at(pl, pb, 5.9), -1);   /* below load */
    assert_int_equal(schedule_build_at(pl, pb, 0.0), -1);
    assert_int_equal(schedule_build_at(pl, pb, NAN), -1);
    assert_int_equal(schedule_build_at(pl, pb, 6.0), 0);
    pl->gpu[2] = 2;                                           /* no GPU 2 */
    assert_int_equal(schedule_build(pl, pb), -1);
    pl->gpu[2] = -1;
    assert_int_equal(schedule_build_at(pl, pb, 6.0), -1);
    assert_int_equal(plan_evaluate(pl, pb), -1);
    plan_free(pl);
    pl = plan_new(3, 2);                                      /* wrong L */
    assert_int_equal(schedule_build(pl, pb), -1);
    plan_free(pl);
    assert_null(plan_new(0, 2));
    assert_null(plan_new(2, 0));
    problem_free(pb);
}

/* f/b = 2/3, 1/2, 1/1 on GPUs 1, 0, 1; T = 7 (GPU 1's load). Placing F2
 * at its ready time 3 leaves GPU 1 no 3 ms hole for B0, so the builder
 * places flush against other ops: F2 at 6 (ending where F0 starts again),
 * B2 at 9, B1 at 10, B0 at 17. F1, placed at 2, then moves to 5, right
 * before F2: layer 1 keeps one copy instead of two. */
static void test_schedule_packed_then_compacted(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 3, 2);
    const double f[3] = { 2, 1, 1 }, b[3] = { 3, 2, 1 };
    for (int i = 0; i < 3; i++) {
        fx.layers[i].forward_ms = f[i];
        fx.layers[i].backward_ms = b[i];
        fx.layers[i].stored = 1000000000ull;
    }
    struct problem *pb = fixture_problem(&fx, NULL);
    struct plan *pl = plan_with(pb, (int[]){ 1, 0, 1 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - 7.0) < TOL);
    assert_starts(pl, (double[]){ 0, 5, 6, 17, 10, 9 });
    assert_inflight(pl, (int[]){ 3, 1, 1 });
    assert_true(fabs(pl->gpus[0].total - 1 * GB) < 1);
    assert_true(fabs(pl->gpus[1].total - 4 * GB) < 1);
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

/* A case where neither placement fits at the load bound (found by a
 * random search): the period search must move on in small steps rather
 * than jump to the chain length, and end with a valid schedule. */
static void test_schedule_fragmentation(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 5, 2);
    const double f[5] = { 0.37873229980468748, 1.1160980224609376, 1.3469024658203126,
                          2.5477539062500001, 1.6122222900390626 };
    const double b[5] = { 3.7656188964843751, 3.7442565917968751, 4.5236755371093746,
                          3.9069915771484376, 4.1818786621093746 };
    const uint64_t act[5] = { 2000000, 2000000, 1000000, 0, 0 };
    fx.plat.bandwidth = 1e9;
    for (int i = 0; i < 5; i++) {
        fx.layers[i].forward_ms = f[i];
        fx.layers[i].backward_ms = b[i];
        fx.layers[i].activation = act[i];
    }
    struct problem *pb = fixture_problem(&fx, NULL);
    struct plan *pl = plan_with(pb, (int[]){ 1, 1, 0, 1, 1 });
    double load = 0;
    for (int i = 0; i < 5; i++)
        if (i != 2)
            load += f[i] + b[i];
    /* Packed placement reaches the load bound itself here; offsets that
     * coincide up to rounding must not cost a whole period. */
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(fabs(pl->T - load) < 1e-9);
    check_valid(pl, pb);
    assert_true(pl->latency < 3 * pl->T);
    /* below the load bound there is no schedule, and the plan is left alone */
    struct plan *before = plan_copy(pl);
    assert_int_equal(schedule_build_at(pl, pb, load * 0.999), -1);
    assert_true(pl->T == before->T);
    assert_memory_equal(pl->start, before->start, 10 * sizeof(double));
    plan_free(before);
    plan_free(pl);
    problem_free(pb);
}

/* A chain with no compute at all still gets a valid positive period. */
static void test_schedule_zero_chain(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 3, 2);
    for (int i = 0; i < 3; i++)
        fx.layers[i].forward_ms = fx.layers[i].backward_ms = 0.0;
    struct problem *pb = fixture_problem(&fx, NULL);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1, 0 });
    assert_int_equal(schedule_build(pl, pb), 0);
    assert_true(pl->T > 0.0);
    assert_inflight(pl, (int[]){ 1, 1, 1 });
    check_valid(pl, pb);
    plan_free(pl);
    problem_free(pb);
}

/* Times at the files' limits, 10^12 ms beside 10^-6 ms: at such periods a
 * double resolves 0.2 us, and the scheduler's slack grows with the period
 * (an absolute one failed every placement: no baseline had a plan). Each
 * allocation gets a schedule the simulator accepts. */
static void test_schedule_extreme_times(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 3, 2);
    fx.layers[0].forward_ms = fx.layers[0].backward_ms = 1e12;
    for (int i = 1; i < 3; i++)
        fx.layers[i].forward_ms = fx.layers[i].backward_ms = 1e-6;
    fx.plat.schedule = SPEC_SCHEDULE_1F1B;
    struct problem *pb = fixture_problem(&fx, NULL);
    static const int allocs[4][3] = { { 0, 0, 0 }, { 0, 1, 1 }, { 0, 0, 1 }, { 0, 1, 0 } };
    for (int a = 0; a < 4; a++) {
        struct plan *pl = plan_with(pb, allocs[a]);
        assert_int_equal(schedule_build(pl, pb), 0);
        assert_true(pl->T >= 2e12 && pl->T < 2e12 * (1 + 1e-6));
        struct sim_report rep;
        if (simulate_plan(pl, pb, &rep) != SIM_OK)
            fail_msg("allocation %d: %s", a, rep.reason);
        plan_free(pl);
    }
    problem_free(pb);
}

/* ---- randomized invariants ---- */

static double rnd_unit(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)((*seed >> 8) & 0xffff) / 65536.0;
}

static int rnd_int(unsigned *seed, int n)
{
    int v = (int)(rnd_unit(seed) * n);
    return v < n ? v : n - 1;
}

static void test_schedule_random_invariants(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int trial = 0; trial < 600; trial++) {
        struct fixture fx;
        int L = 1 + rnd_int(&seed, 9);
        int P = 1 + rnd_int(&seed, 4);
        fixture_init(&fx, L, P);
        fx.plat.bandwidth = 1e9;
        fx.plat.latency_ms = rnd_int(&seed, 2) ? 0.0 : 0.1;
        fx.plat.schedule = rnd_int(&seed, 2) ? SPEC_SCHEDULE_1F1B : SPEC_SCHEDULE_PIPEDREAM;
        bool integral = rnd_int(&seed, 2);
        for (int i = 0; i < L; i++) {
            struct spec_layer *ly = &fx.layers[i];
            if (integral) {
                ly->forward_ms = rnd_int(&seed, 4);
                ly->backward_ms = rnd_int(&seed, 5);
            } else {
                ly->forward_ms = 0.05 + 3 * rnd_unit(&seed);
                ly->backward_ms = 0.05 + 5 * rnd_unit(&seed);
            }
            ly->activation = (uint64_t)rnd_int(&seed, 3000000);
            ly->stored = (uint64_t)rnd_int(&seed, 1000000000);
            ly->weights = (uint64_t)rnd_int(&seed, 1000000);
        }
        struct problem *pb = fixture_problem(&fx, NULL);
        struct plan *pl = plan_new(L, P);
        for (int i = 0; i < L; i++)
            pl->gpu[i] = rnd_int(&seed, P);
        assert_int_equal(schedule_build(pl, pb), 0);
        check_valid(pl, pb);
        for (int p = 0; p < P; p++)
            assert_true(pl->T >= pl->gpus[p].load_ms - 1e-9);
        /* a larger fixed period works too and stays valid */
        double T2 = pl->T * (1.0 + rnd_unit(&seed));
        assert_int_equal(schedule_build_at(pl, pb, T2), 0);
        assert_true(fabs(pl->T - T2) < 1e-12);
        check_valid(pl, pb);
        plan_free(pl);
        problem_free(pb);
    }
}


/* Schedules pb's allocation gpu with the faster searches (grids or
 * ordered sets) and with the reference (every candidate against every
 * op), at the least period and at that period times stretch: the same
 * period and start times, to the bit, and each faster search the
 * reference's answer. */
static void assert_matches_reference(const struct problem *pb, const int *gpu, double stretch)
{
    int L = pb->L, P = pb->P;
    struct plan *pl[2];
    /* each search on its own too, not only the schedules they make up */
    schedule_crosscheck(true);
    for (int ref = 0; ref < 2; ref++) {
        schedule_use_reference(ref == 1);
        pl[ref] = plan_new(L, P);
        memcpy(pl[ref]->gpu, gpu, (size_t)L * sizeof *gpu);
        assert_int_equal(schedule_build(pl[ref], pb), 0);
    }
    schedule_use_reference(false);
    assert_true(pl[0]->T == pl[1]->T);
    assert_memory_equal(pl[0]->start, pl[1]->start, 2 * (size_t)L * sizeof *pl[0]->start);
    double T2 = pl[0]->T * stretch;
    for (int ref = 0; ref < 2; ref++) {
        schedule_use_reference(ref == 1);
        assert_int_equal(schedule_build_at(pl[ref], pb, T2), 0);
    }
    schedule_use_reference(false);
    assert_int_equal(schedule_crosscheck(false), 0);
    assert_memory_equal(pl[0]->start, pl[1]->start, 2 * (size_t)L * sizeof *pl[0]->start);
    plan_free(pl[0]);
    plan_free(pl[1]);
}

/* The faster searches equal the reference to the bit on random
 * allocations with ties (integral times), zero-length ops and tight
 * periods (set by compute: the grids serve them, index_reset()). */
static void test_schedule_grids_match_reference(void **state)
{
    (void)state;
    unsigned seed = 777;
    int trials = valgrind_share(150, 10);
    for (int trial = 0; trial < trials; trial++) {
        struct fixture fx;
        int L = 1 + rnd_int(&seed, 64);
        int P = 1 + rnd_int(&seed, 8);
        fixture_init(&fx, L, P);
        fx.plat.bandwidth = 1e9;
        fx.plat.latency_ms = rnd_int(&seed, 2) ? 0.0 : 0.1;
        fx.plat.schedule = rnd_int(&seed, 2) ? SPEC_SCHEDULE_1F1B : SPEC_SCHEDULE_PIPEDREAM;
        int kind = rnd_int(&seed, 3);
        for (int i = 0; i < L; i++) {
            struct spec_layer *ly = &fx.layers[i];
            if (kind == 0) {
                ly->forward_ms = rnd_int(&seed, 4);
                ly->backward_ms = rnd_int(&seed, 5);
            } else if (kind == 1) {
                ly->forward_ms = 1.0 + 0.2 * rnd_unit(&seed);
                ly->backward_ms = 2.0 + 0.4 * rnd_unit(&seed);
            } else {
                ly->forward_ms = rnd_int(&seed, 5) == 0 ? 0.0 : 0.05 + 3 * rnd_unit(&seed);
                ly->backward_ms = 0.05 + 5 * rnd_unit(&seed);
            }
            ly->activation = (uint64_t)rnd_int(&seed, 3000000);
            ly->stored = (uint64_t)rnd_int(&seed, 1000000000);
            ly->weights = (uint64_t)rnd_int(&seed, 1000000);
        }
        struct problem *pb = fixture_problem(&fx, NULL);
        bool contiguous = rnd_int(&seed, 2);
        int gpu[64];
        for (int i = 0; i < L; i++)
            gpu[i] = contiguous ? (int)((long)i * P / L) : rnd_int(&seed, P);
        assert_matches_reference(pb, gpu, 1.0 + 0.5 * rnd_unit(&seed));
        problem_free(pb);
    }
}

/* The same where the period is set by the links, a million times and more
 * the ops' durations (activations of 10 to 70 GB at 1 MB/s: transfers of
 * hours, layers of milliseconds: the ordered sets serve GPUs of more than
 * 8 ops), as a stress run's 1,000 layers were: a
 * GPU's ops then sit in a few clusters far apart within the period,
 * with ties, zero-length ops and exactly adjacent ops among them. */
static void test_schedule_sets_long_period(void **state)
{
    (void)state;
    unsigned seed = 4242;
    int trials = valgrind_share(60, 6);
    double least_ratio = INFINITY;
    for (int trial = 0; trial < trials; trial++) {
        struct fixture fx;
        int L = 2 + rnd_int(&seed, 40);
        int P = 2 + rnd_int(&seed, 3);
        fixture_init(&fx, L, P);
        fx.plat.bandwidth = 1e6;
        fx.plat.latency_ms = rnd_int(&seed, 2) ? 0.0 : 0.005;
        fx.plat.schedule = rnd_int(&seed, 2) ? SPEC_SCHEDULE_1F1B : SPEC_SCHEDULE_PIPEDREAM;
        bool integral = rnd_int(&seed, 2);
        /* equal activations make the transfers multiples of one another:
         * ops then meet modulo the period, as in a contiguous pipeline */
        uint64_t same = rnd_int(&seed, 3) ? (10 + (uint64_t)rnd_int(&seed, 3) * 10) * 1000000000ull : 0;
        double longest = 0.0;
        for (int i = 0; i < L; i++) {
            struct spec_layer *ly = &fx.layers[i];
            if (integral) {
                ly->forward_ms = rnd_int(&seed, 4);
                ly->backward_ms = rnd_int(&seed, 5);
            } else {
                ly->forward_ms = rnd_int(&seed, 6) == 0 ? 0.0 : 0.001 + 3 * rnd_unit(&seed);
                ly->backward_ms = 0.001 + 5 * rnd_unit(&seed);
            }
            longest = fmax(longest, fmax(ly->forward_ms, ly->backward_ms));
            ly->activation = same ? same : (10 + (uint64_t)rnd_int(&seed, 60)) * 1000000000ull;
            ly->stored = (uint64_t)rnd_int(&seed, 1000000000);
            ly->weights = (uint64_t)rnd_int(&seed, 1000000);
        }
        struct problem *pb = fixture_problem(&fx, NULL);
        bool contiguous = rnd_int(&seed, 2);
        int gpu[64];
        for (int i = 0; i < L; i++)
            gpu[i] = contiguous ? (int)((long)i * P / L) : rnd_int(&seed, P);
        /* a cut at least, so the links set the period */
        gpu[L - 1] = (gpu[0] + 1) % P;
        struct plan *pl = plan_new(L, P);
        memcpy(pl->gpu, gpu, (size_t)L * sizeof *gpu);
        assert_int_equal(schedule_build(pl, pb), 0);
        if (longest > 0.0)
            least_ratio = fmin(least_ratio, pl->T / longest);
        plan_free(pl);
        assert_matches_reference(pb, gpu, 1.0 + 0.5 * rnd_unit(&seed));
        problem_free(pb);
    }
    assert_true(least_ratio >= 1e6);
}

/* ---- plan ---- */

static void test_plan_inflight_count(void **state)
{
    (void)state;
    assert_int_equal(plan_inflight_count(12.0, 6.0), 2);
    assert_int_equal(plan_inflight_count(12.0 + 1e-12, 6.0), 2);
    assert_int_equal(plan_inflight_count(0.1 + 0.2, 0.3), 1);
    assert_int_equal(plan_inflight_count(12.01, 6.0), 3);
    assert_int_equal(plan_inflight_count(3.0, 6.0), 1);
    assert_int_equal(plan_inflight_count(0.0, 6.0), 1);
    assert_int_equal(plan_inflight_count(15.0, 6.0), 3);
}

static void test_plan_contiguous(void **state)
{
    (void)state;
    struct plan *pl = plan_new(4, 3);
    int cases[][4] = { { 0, 0, 1, 1 }, { 0, 1, 1, 0 }, { 2, 2, 0, 0 },
                       { 0, 1, 0, 1 }, { 1, 1, 1, 1 }, { 0, 2, 1, 2 } };
    bool want[] = { true, false, true, false, true, false };
    int used[] = { 2, 2, 2, 2, 1, 3 };
    for (int c = 0; c < 6; c++) {
        memcpy(pl->gpu, cases[c], sizeof cases[c]);
        assert_int_equal(plan_is_contiguous(pl), want[c]);
        assert_int_equal(plan_gpus_used(pl), used[c]);
    }
    plan_free(pl);
}

static void test_plan_copy(void **state)
{
    (void)state;
    struct fixture fx;
    struct problem *pb = section9_problem(&fx);
    struct plan *pl = plan_with(pb, (int[]){ 0, 1, 1, 0 });
    assert_int_equal(schedule_build(pl, pb), 0);
    struct plan *cp = plan_copy(pl);
    assert_non_null(cp);
    assert_true(cp->gpu != pl->gpu && cp->start != pl->start);
    assert_memory_equal(cp->start, pl->start, 8 * sizeof(double));
    assert_memory_equal(cp->inflight, pl->inflight, 4 * sizeof(int));
    assert_true(cp->gpus[1].total == pl->gpus[1].total);
    assert_true(cp->T == pl->T && cp->fits == pl->fits);
    plan_free(pl);
    /* the copy stands alone */
    assert_int_equal(plan_evaluate(cp, pb), 0);
    assert_true(fabs(cp->gpus[0].total - 13 * GB) < 1);
    plan_free(cp);
    problem_free(pb);
}

/* ---- problem ---- */

static void test_problem_fields(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 3, 2);
    fx.plat.latency_ms = 0.25;
    fx.plat.bandwidth = 2e9;
    fx.plat.reserved = 1000;
    fx.layers[0].activation = 4000000;      /* 2 ms at 2 GB/s */
    fx.layers[1].activation = 1000000;
    fx.layers[2].activation = 9000000;
    struct problem *pb = fixture_problem(&fx, NULL);
    assert_int_equal(pb->L, 3);
    assert_int_equal(pb->P, 2);
    assert_string_equal(pb->network, "net");
    assert_string_equal(pb->names[2], "l3");
    assert_true(fabs(pb->c[0] - 2.25) < TOL);
    assert_true(fabs(pb->c[1] - 0.75) < TOL);
    assert_true(pb->c[2] == 0.0);
    for (int i = 0; i <= 3; i++)
        assert_int_equal(pb->first[i], i);
    assert_true(pb->reserved[1] == 1000.0);
    assert_int_equal(pb->m, 4);
    assert_int_equal(pb->schedule, SPEC_SCHEDULE_PIPEDREAM);
    assert_int_equal(pb->layout, LAYOUT_ANY);
    assert_true(pb->phi == 4.0);
    assert_true(fabs(problem_compute_ms(pb) - 9.0) < TOL);

    struct problem *cp = problem_copy(pb);
    assert_non_null(cp);
    assert_true(cp->names[0] != pb->names[0]);
    assert_string_equal(cp->names[0], "l1");
    assert_memory_equal(cp->c, pb->c, 3 * sizeof(double));
    assert_true(cp->cap[1] == pb->cap[1] && cp->latency_ms == 0.25);
    /* the same but for the caps: other caps yes, any other figure no */
    assert_true(problem_same_but_caps(pb, cp));
    cp->cap[0] *= 2;
    cp->cap[1] = 1;
    assert_true(problem_same_but_caps(pb, cp));
    cp->w[2] += 1;
    assert_false(problem_same_but_caps(pb, cp));
    cp->w[2] -= 1;
    cp->m = 5;
    assert_false(problem_same_but_caps(pb, cp));
    cp->m = pb->m;
    cp->reserved[0] += 1;
    assert_false(problem_same_but_caps(pb, cp));
    cp->reserved[0] -= 1;
    cp->schedule = SPEC_SCHEDULE_1F1B;
    assert_false(problem_same_but_caps(pb, cp));
    cp->schedule = pb->schedule;
    assert_true(problem_same_but_caps(pb, cp));
    problem_free(pb);
    problem_free(cp);
}

static void test_problem_lower_bound(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 4, 3);                /* 12 ms over 3 GPUs */
    struct problem *pb = fixture_problem(&fx, NULL);
    assert_true(fabs(problem_lower_bound(pb) - 4.0) < TOL);
    problem_free(pb);
    fx.layers[2].backward_ms = 8.0;         /* one 9 ms layer dominates 18/3 */
    pb = fixture_problem(&fx, NULL);
    assert_true(fabs(problem_lower_bound(pb) - 9.0) < TOL);
    problem_free(pb);
}

static void test_problem_knobs_override(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 4, 2);
    fx.gpu_memory[1] = 5000;
    fx.plat.memory = 7000;
    struct problem *pb = fixture_problem(&fx, NULL);
    assert_true(pb->cap[0] == 100000000000.0);    /* per-GPU table wins */
    assert_true(pb->cap[1] == 5000.0);
    problem_free(pb);

    struct knobs k;
    knobs_init(&k);
    k.gpus = 4;                                   /* extra GPUs: plat->memory */
    k.micro_batches = 16;
    k.schedule = SPEC_SCHEDULE_1F1B;
    k.layout = LAYOUT_CONTIGUOUS;
    k.weight_factor = 2.5;
    pb = fixture_problem(&fx, &k);
    assert_int_equal(pb->P, 4);
    assert_true(pb->cap[1] == 5000.0);
    assert_true(pb->cap[2] == 7000.0 && pb->cap[3] == 7000.0);
    assert_int_equal(pb->m, 16);
    assert_int_equal(pb->schedule, SPEC_SCHEDULE_1F1B);
    assert_int_equal(pb->layout, LAYOUT_CONTIGUOUS);
    assert_true(pb->phi == 2.5);
    problem_free(pb);

    k.gpus = 1;
    k.memory = 123456;                            /* uniform cap */
    pb = fixture_problem(&fx, &k);
    assert_int_equal(pb->P, 1);
    assert_true(pb->cap[0] == 123456.0);
    problem_free(pb);

    fx.plat.gpu_memory = NULL;                    /* no table: plat->memory */
    pb = fixture_problem(&fx, NULL);
    assert_true(pb->cap[0] == 7000.0 && pb->cap[1] == 7000.0);
    problem_free(pb);
}

static void expect_error(struct fixture *fx, const struct knobs *k, const char *word)
{
    char err[256] = "";
    struct problem *pb = problem_create(&fx->net, &fx->plat, k, err, sizeof err);
    if (pb) {
        problem_free(pb);
        fail_msg("expected an error mentioning '%s'", word);
    }
    if (!strstr(err, word))
        fail_msg("error '%s' does not mention '%s'", err, word);
}

static void test_problem_knob_errors(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 4, 2);
    struct knobs k;

    knobs_init(&k); k.gpus = -1;                  expect_error(&fx, &k, "gpus");
    knobs_init(&k); k.gpus = SPEC_MAX_GPUS + 1;   expect_error(&fx, &k, "gpus");
    knobs_init(&k); k.micro_batches = -3;         expect_error(&fx, &k, "micro-batches");
    knobs_init(&k); k.schedule = 2;               expect_error(&fx, &k, "schedule");
    knobs_init(&k); k.layout = 5;                 expect_error(&fx, &k, "layout");
    knobs_init(&k); k.blocks = -2;                expect_error(&fx, &k, "blocks");
    knobs_init(&k); k.weight_factor = -1.0;       expect_error(&fx, &k, "weight factor");
    knobs_init(&k); k.weight_factor = NAN;        expect_error(&fx, &k, "weight factor");
    fx.plat.reserved = 1000;
    knobs_init(&k); k.memory = 1000;              expect_error(&fx, &k, "the platform reserves per GPU");
    fx.plat.reserved = 0;

    knobs_init(&k);
    fx.plat.micro_batches = 0;                    expect_error(&fx, &k, "micro-batches");
    k.micro_batches = 2;                          /* the knob repairs it */
    struct problem *pb = fixture_problem(&fx, &k);
    assert_int_equal(pb->m, 2);
    problem_free(pb);
    fx.plat.micro_batches = 4;

    fx.plat.weight_factor = 0.0;                  expect_error(&fx, NULL, "weight factor");
    fx.plat.weight_factor = 4.0;
    fx.plat.bandwidth = 0.0;                      expect_error(&fx, NULL, "bandwidth");
    fx.plat.bandwidth = 1e9;
    fx.net.nlayers = 0;                           expect_error(&fx, NULL, "layers");
    fx.net.nlayers = 4;
    fx.layers[1].forward_ms = -1.0;               expect_error(&fx, NULL, "l2");
    fx.layers[1].forward_ms = 1.0;
    pb = fixture_problem(&fx, NULL);               /* repaired: fine again */
    problem_free(pb);
}

/* ---- coarsening ---- */

static void test_coarsen_sums(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 6, 2);
    const char *names[] = { "conv1", "bn1", "relu1", "conv2", "bn2", "relu3" };
    for (int i = 0; i < 6; i++) {
        fx.layers[i].name = (char *)names[i];
        fx.layers[i].forward_ms = 1.0 + i;
        fx.layers[i].backward_ms = 2.0 * (1.0 + i);
        fx.layers[i].weights = 100u * (uint64_t)(i + 1);
        fx.layers[i].stored = 1000u * (uint64_t)(i + 1);
        fx.layers[i].activation = 10u * (uint64_t)(i + 1);
    }
    fx.plat.latency_ms = 1.0;
    struct problem *pb = fixture_problem(&fx, NULL);
    /* compute 3, 6, 9, 12, 15, 18 (total 63): two blocks split 30 | 33 */
    struct problem *cb = problem_coarsen(pb, 2);
    assert_non_null(cb);
    assert_int_equal(cb->L, 2);
    assert_int_equal(cb->first[0], 0);
    assert_int_equal(cb->first[1], 4);
    assert_int_equal(cb->first[2], 6);
    assert_true(fabs(cb->f[0] - 10.0) < TOL && fabs(cb->b[0] - 20.0) < TOL);
    assert_true(fabs(cb->f[1] - 11.0) < TOL && fabs(cb->b[1] - 22.0) < TOL);
    assert_true(cb->w[0] == 1000.0 && cb->w[1] == 1100.0);
    assert_true(cb->s[0] == 10000.0 && cb->s[1] == 11000.0);
    assert_true(cb->a[0] == 40.0);
    assert_true(cb->c[0] == pb->c[3] && cb->c[1] == 0.0);
    assert_string_equal(cb->names[0], "conv1..conv2");
    assert_string_equal(cb->names[1], "bn2..relu3");
    assert_true(fabs(problem_compute_ms(cb) - problem_compute_ms(pb)) < TOL);
    assert_int_equal(cb->P, 2);
    assert_true(cb->phi == pb->phi && cb->m == pb->m);

    /* coarsening again keeps first[] on the original layers */
    struct problem *c3 = problem_coarsen(pb, 3);
    assert_int_equal(c3->L, 3);
    struct problem *c2 = problem_coarsen(c3, 2);
    assert_int_equal(c2->L, 2);
    assert_int_equal(c2->first[2], 6);
    int cut = c2->first[1];
    assert_true(cut == c3->first[1] || cut == c3->first[2]);
    char want[32];
    snprintf(want, sizeof want, "conv1..%s", names[cut - 1]);
    assert_string_equal(c2->names[0], cut == 1 ? "conv1" : want);

    /* blocks <= 0 or >= L: a plain copy */
    struct problem *same = problem_coarsen(pb, 6);
    assert_int_equal(same->L, 6);
    assert_string_equal(same->names[5], "relu3");
    problem_free(same);
    same = problem_coarsen(pb, 0);
    assert_int_equal(same->L, 6);
    problem_free(same);
    problem_free(c2);
    problem_free(c3);
    problem_free(cb);
    problem_free(pb);
}

/* Compute 10, 10, 0.5, 10, 9.9 in two blocks: the cut after l2 gives the
 * best balance (20 | 20.4); after l3 is 2 % worse (20.5 | 19.9) but moves
 * 1 KB instead of 100 MB, so it wins. The cut after l1 has the smallest
 * activation of all but is far from balanced, so it never does. */
static void test_coarsen_prefers_small_cut(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 5, 2);
    double x[5] = { 10, 10, 0.5, 10, 9.9 };
    uint64_t act[5] = { 1, 100000000, 1000, 100000000, 0 };
    for (int i = 0; i < 5; i++) {
        fx.layers[i].forward_ms = x[i];
        fx.layers[i].backward_ms = 0.0;
        fx.layers[i].activation = act[i];
    }
    struct problem *pb = fixture_problem(&fx, NULL);
    struct problem *cb = problem_coarsen(pb, 2);
    assert_int_equal(cb->first[1], 3);
    assert_true(cb->a[0] == 1000.0);
    assert_string_equal(cb->names[0], "l1..l3");
    problem_free(cb);
    problem_free(pb);

    /* with equal activations the balanced cut is kept */
    fx.layers[2].activation = 100000000;
    pb = fixture_problem(&fx, NULL);
    cb = problem_coarsen(pb, 2);
    assert_int_equal(cb->first[1], 2);
    problem_free(cb);
    problem_free(pb);
}

/* Brute force O(K n^2) reference: the best balance of multi-layer blocks
 * (a single layer is never too big), then the least cut activation among
 * splits within 3 % of it. */
static void coarsen_reference(const double *x, const double *a, int n, int K,
                              double *balance, double *cost)
{
    double best[41][41], cheap[41][41];
    double pre[41] = { 0 };
    for (int i = 0; i < n; i++)
        pre[i + 1] = pre[i] + x[i];
    for (int k = 0; k <= K; k++)
        for (int j = 0; j <= n; j++)
            best[k][j] = cheap[k][j] = INFINITY;
    best[0][0] = 0;
    for (int k = 1; k <= K; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 0; i < j; i++)
                best[k][j] = fmin(best[k][j], fmax(best[k - 1][i],
                                                   j - i > 1 ? pre[j] - pre[i] : 0));
    *balance = best[K][n];
    double limit = *balance * 1.03 + 1e-9;
    cheap[0][0] = 0;
    for (int k = 1; k <= K; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 0; i < j; i++)
                if (j - i == 1 || pre[j] - pre[i] <= limit)
                    cheap[k][j] = fmin(cheap[k][j], cheap[k - 1][i] + (j < n ? a[j - 1] : 0));
    *cost = cheap[K][n];
}

/* One layer of 20 ms among 1 ms ones, four blocks: it gets a block of its
 * own and the rest is split evenly (blocks of 4 ms at most), whatever the
 * activations; measured against the 20 ms layer alone, any split with
 * blocks up to 20 ms would have counted as balanced. */
static void test_coarsen_dominant_layer(void **state)
{
    (void)state;
    struct fixture fx;
    fixture_init(&fx, 9, 2);
    for (int i = 0; i < 9; i++) {
        fx.layers[i].forward_ms = i == 4 ? 20.0 : 1.0;
        fx.layers[i].backward_ms = 0.0;
        fx.layers[i].activation = 1000;
    }
    fx.layers[0].activation = 1;            /* tempting slivers */
    fx.layers[6].activation = 1;
    fx.layers[7].activation = 1;
    struct problem *pb = fixture_problem(&fx, NULL);
    struct problem *cb = problem_coarsen(pb, 4);
    assert_int_equal(cb->L, 4);
    bool alone = false;
    for (int k = 0; k < 4; k++) {
        int len = cb->first[k + 1] - cb->first[k];
        if (cb->first[k] == 4 && len == 1)
            alone = true;
        else
            assert_true(cb->f[k] <= 4.0 + TOL);
    }
    assert_true(alone);
    problem_free(cb);
    problem_free(pb);
}

static void test_coarsen_matches_reference(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int trial = 0; trial < 150; trial++) {
        struct fixture fx;
        int n = 5 + rnd_int(&seed, 36);
        int K = 2 + rnd_int(&seed, n - 2);
        fixture_init(&fx, n, 2);
        double x[40], a[40];
        for (int i = 0; i < n; i++) {
            fx.layers[i].forward_ms = 0.1 + 4 * rnd_unit(&seed);
            if (rnd_int(&seed, 10) == 0)
                fx.layers[i].forward_ms *= 20;
            fx.layers[i].backward_ms = 2 * fx.layers[i].forward_ms;
            fx.layers[i].activation = (uint64_t)rnd_int(&seed, 1000000);
            x[i] = 3 * fx.layers[i].forward_ms;
            a[i] = (double)fx.layers[i].activation;
        }
        struct problem *pb = fixture_problem(&fx, NULL);
        struct problem *cb = problem_coarsen(pb, K);
        struct problem *again = problem_coarsen(pb, K);
        assert_int_equal(cb->L, K);
        assert_memory_equal(cb->first, again->first, ((size_t)K + 1) * sizeof(int));
        double balance, cost;
        coarsen_reference(x, a, n, K, &balance, &cost);
        double worst = 0, cuts = 0;
        for (int k = 0; k < K; k++) {
            assert_true(cb->first[k + 1] > cb->first[k]);
            if (cb->first[k + 1] - cb->first[k] > 1)
                worst = fmax(worst, cb->f[k] + cb->b[k]);
            if (k < K - 1) {
                assert_true(cb->a[k] == a[cb->first[k + 1] - 1]);
                cuts += cb->a[k];
            }
        }
        assert_true(worst >= balance - 1e-9);
        assert_true(worst <= balance * 1.03 + 1e-9);
        assert_true(fabs(cuts - cost) < 1e-6);
        problem_free(again);
        problem_free(cb);
        problem_free(pb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section9_contiguous),
        cmocka_unit_test(test_section9_noncontiguous),
        cmocka_unit_test(test_section9_cap),
        cmocka_unit_test(test_section9_period9_waits_early),
        cmocka_unit_test(test_transfer_pipedream),
        cmocka_unit_test(test_transfer_1f1b),
        cmocka_unit_test(test_transfer_same_gpu),
        cmocka_unit_test(test_transfer_link_bound),
        cmocka_unit_test(test_schedule_errors),
        cmocka_unit_test(test_schedule_packed_then_compacted),
        cmocka_unit_test(test_schedule_fragmentation),
        cmocka_unit_test(test_schedule_zero_chain),
        cmocka_unit_test(test_schedule_extreme_times),
        cmocka_unit_test(test_schedule_random_invariants),
        cmocka_unit_test(test_schedule_grids_match_reference),
        cmocka_unit_test(test_schedule_sets_long_period),
        cmocka_unit_test(test_plan_inflight_count),
        cmocka_unit_test(test_plan_contiguous),
        cmocka_unit_test(test_plan_copy),
        cmocka_unit_test(test_problem_fields),
        cmocka_unit_test(test_problem_lower_bound),
        cmocka_unit_test(test_problem_knobs_override),
        cmocka_unit_test(test_problem_knob_errors),
        cmocka_unit_test(test_coarsen_sums),
        cmocka_unit_test(test_coarsen_prefers_small_cut),
        cmocka_unit_test(test_coarsen_dominant_layer),
        cmocka_unit_test(test_coarsen_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
