/* Tests for the plan simulator: the worked example of doc/model.md section 9
 * is accepted with its measured peaks, and hand-made broken plans are
 * rejected with the right verdict and a reason naming the culprit. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "simulate.h"
#include "valgrind.h"

#define GB 1e9

/* cmocka 1.1's float assertions go through float, too coarse for bytes. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a, __LINE__)

static void assert_near_at(double a, double b, double eps, const char *what, int line)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("line %d: %s = %.17g, expected %.17g", line, what, a, b);
}

/* A problem built by hand, so these tests depend on plan.c alone. */
static struct problem *pb_new(int L, int P, long m, enum spec_schedule sched)
{
    struct problem *pb = calloc(1, sizeof *pb);
    assert_non_null(pb);
    pb->L = L;
    pb->P = P;
    pb->m = m;
    pb->schedule = sched;
    pb->layout = LAYOUT_ANY;
    pb->phi = 4;
    pb->micro_batch = 32;
    pb->f = calloc((size_t)L, sizeof *pb->f);
    pb->b = calloc((size_t)L, sizeof *pb->b);
    pb->w = calloc((size_t)L, sizeof *pb->w);
    pb->a = calloc((size_t)L, sizeof *pb->a);
    pb->s = calloc((size_t)L, sizeof *pb->s);
    pb->c = calloc((size_t)L, sizeof *pb->c);
    pb->cap = calloc((size_t)P, sizeof *pb->cap);
    pb->reserved = calloc((size_t)P, sizeof *pb->reserved);
    assert_true(pb->f && pb->b && pb->w && pb->a && pb->s && pb->c && pb->cap && pb->reserved);
    for (int i = 0; i < L; i++) {
        pb->f[i] = 1;
        pb->b[i] = 2;
    }
    for (int p = 0; p < P; p++)
        pb->cap[p] = 100 * GB;
    return pb;
}

static void pb_free(struct problem *pb)
{
    free(pb->f);
    free(pb->b);
    free(pb->w);
    free(pb->a);
    free(pb->s);
    free(pb->c);
    free(pb->cap);
    free(pb->reserved);
    free(pb);
}

/* doc/model.md section 9: four layers, f = 1, b = 2, s = 4, 3, 2, 1 GB. */
static struct problem *pb_section9(enum spec_schedule sched, long m)
{
    struct problem *pb = pb_new(4, 2, m, sched);
    for (int i = 0; i < 4; i++)
        pb->s[i] = (4 - i) * GB;
    return pb;
}

/* start[] lists F_0..F_{L-1} then B_0..B_{L-1}. */
static struct plan *plan_make(const struct problem *pb, const int *gpu, double T,
                              const double *start)
{
    struct plan *pl = plan_new(pb->L, pb->P);
    assert_non_null(pl);
    memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
    memcpy(pl->start, start, 2 * (size_t)pb->L * sizeof *start);
    pl->T = T;
    assert_int_equal(plan_evaluate(pl, pb), 0);
    return pl;
}

static const int contiguous_gpu[4] = { 0, 0, 1, 1 };
static const double contiguous_start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
static const int interleaved_gpu[4] = { 0, 1, 1, 0 };
static const double interleaved_start[8] = { 0, 1, 2, 3, 13, 11, 9, 4 };

static void expect(const struct plan *pl, const struct problem *pb, enum sim_verdict want,
                   struct sim_report *rep)
{
    enum sim_verdict v = simulate_plan(pl, pb, rep);
    if (v != want)
        fail_msg("verdict %s, expected %s: %s", simulate_verdict_name(v),
                 simulate_verdict_name(want), rep->reason);
    assert_int_equal(rep->verdict, v);
}

static void expect_reason(const struct sim_report *rep, const char *text)
{
    if (strcmp(rep->reason, text) != 0)
        fail_msg("reason \"%s\", expected \"%s\"", rep->reason, text);
}

static void test_section9_contiguous_is_valid(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    assert_near(rep.peak[0], 14 * GB, 0.5);
    assert_near(rep.peak[1], 3 * GB, 0.5);
    assert_near(rep.period, 6, 1e-9);
    /* max(m, 3P) = 6 covers the 2-period span of micro-batch 0 plus two. */
    assert_int_equal(rep.microbatches, 6);
    assert_near(pl->gpus[0].total, 14 * GB, 0.5);
    plan_free(pl);
    pb_free(pb);
}

/* The model charges 13 GB to GPU 0 (4*3 + 1*1) but layer 0's third copy
 * and layer 3's copy are never alive together: the true peak is 12 GB. */
static void test_section9_interleaved_is_valid_and_model_is_an_upper_bound(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, interleaved_gpu, 6, interleaved_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    assert_near(pl->gpus[0].total, 13 * GB, 0.5);
    assert_near(pl->gpus[1].total, 10 * GB, 0.5);
    assert_near(rep.peak[0], 12 * GB, 0.5);
    assert_near(rep.peak[1], 10 * GB, 0.5);
    assert_near(rep.period, 6, 1e-9);
    plan_free(pl);
    pb_free(pb);
}

/* Section 9's contiguous plan at T = 9, shifted so F0 starts at 0. */
static void test_section9_contiguous_at_period_9(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    pb->cap[0] = pb->cap[1] = 13 * GB;
    static const double start[8] = { 0, 3, 4, 5, 13, 10, 8, 6 };
    struct plan *pl = plan_make(pb, contiguous_gpu, 9, start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    assert_true(pl->fits);
    assert_near(rep.peak[0], 11 * GB, 0.5);
    assert_near(rep.period, 9, 1e-9);
    plan_free(pl);
    pb_free(pb);
}

/* Stashed weight versions: with 2 micro-batches in flight a layer holds
 * phi*w + 1*w; a flushed schedule holds phi*w only. */
static void test_weight_versions_pipedream_and_1f1b(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    for (int i = 0; i < 4; i++)
        pb->w[i] = 1 * GB;
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    /* GPU 0: 4*2 + 3*2 activations + 2 * (4 + 1) weights, all at once. */
    assert_near(rep.peak[0], 24 * GB, 0.5);
    assert_near(rep.peak[1], 11 * GB, 0.5);
    plan_free(pl);

    pb->schedule = SPEC_SCHEDULE_1F1B;
    pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    expect(pl, pb, SIM_OK, &rep);
    assert_near(rep.peak[0], 22 * GB, 0.5);
    assert_near(rep.peak[1], 11 * GB, 0.5);
    plan_free(pl);
    pb_free(pb);
}

/* A flushed run of m micro-batches never holds more than m copies. */
static void test_1f1b_with_fewer_micro_batches_than_in_flight(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_1F1B, 2);
    struct plan *pl = plan_make(pb, interleaved_gpu, 6, interleaved_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    assert_int_equal(pl->inflight[0], 3);
    assert_int_equal(pl->copies[0], 2);
    /* GPU 0: 4*2 + 1 = 9 GB both in the model and measured. */
    assert_near(pl->gpus[0].total, 9 * GB, 0.5);
    assert_near(rep.peak[0], 9 * GB, 0.5);
    assert_near(rep.peak[1], 10 * GB, 0.5);
    assert_near(rep.makespan, 6 + 15, 1e-9);
    plan_free(pl);
    pb_free(pb);

    pb = pb_section9(SPEC_SCHEDULE_1F1B, 1);
    pl = plan_make(pb, interleaved_gpu, 6, interleaved_start);
    expect(pl, pb, SIM_OK, &rep);
    assert_near(rep.peak[0], 5 * GB, 0.5);
    assert_near(rep.peak[1], 5 * GB, 0.5);
    assert_near(rep.makespan, 15, 1e-9);
    /* The periodic checks still replay max(m, 3P) micro-batches. */
    assert_int_equal(rep.microbatches, 6);
    plan_free(pl);
    pb_free(pb);
}

static void test_1f1b_makespan_is_m_minus_1_periods_plus_latency(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_1F1B, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    assert_near(rep.makespan, 3 * 6 + 12, 1e-9);

    pl->latency += 1;
    expect(pl, pb, SIM_MAKESPAN, &rep);
    assert_non_null(strstr(rep.reason, "30 ms"));
    pl->latency -= 1;
    pl->iteration += 1;
    expect(pl, pb, SIM_MAKESPAN, &rep);
    plan_free(pl);
    pb_free(pb);
}

static void test_pipedream_tampered_latency_is_derived(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;
    pl->latency = 11;
    expect(pl, pb, SIM_DERIVED, &rep);
    expect_reason(&rep, "one micro-batch takes 12 ms from F0 start to B0 end, "
                  "the plan's latency is 11 ms");
    plan_free(pl);
    pb_free(pb);
}

/* The wait-free schedule of the interleaved plan collides: B2 of
 * micro-batch 0 still runs on GPU 1 when F1 of micro-batch 1 starts (and
 * GPU 0 meets B0 and B3 later). */
static void test_overlap_across_micro_batches(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, interleaved_gpu, 6, contiguous_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OVERLAP, &rep);
    expect_reason(&rep, "GPU 1: B2 of micro-batch 0 [6, 8) overlaps "
                  "F1 of micro-batch 1 [7, 8)");
    plan_free(pl);
    pb_free(pb);
}

/* One layer, T = 3 = f + b: B0 at 2 runs [2, 4), wrapping past the end of
 * the period onto the next F0; B0 at 1 is fine. */
static void test_overlap_only_by_wrap_around(void **state)
{
    (void)state;
    struct problem *pb = pb_new(1, 1, 4, SPEC_SCHEDULE_PIPEDREAM);
    static const int gpu[1] = { 0 };
    static const double ok[2] = { 0, 1 }, wraps[2] = { 0, 2 };
    struct sim_report rep;
    struct plan *pl = plan_make(pb, gpu, 3, ok);
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);

    pl = plan_make(pb, gpu, 3, wraps);
    expect(pl, pb, SIM_OVERLAP, &rep);
    expect_reason(&rep, "GPU 0: B0 of micro-batch 0 [2, 4) overlaps "
                  "F0 of micro-batch 1 [3, 4)");
    plan_free(pl);
    pb_free(pb);
}

/* Layers that start long after their F: the replay grows past max(m, 3P)
 * until the whole span of micro-batch 0 is in steady state. */
static void test_long_span_replays_enough_micro_batches(void **state)
{
    (void)state;
    struct problem *pb = pb_new(1, 1, 4, SPEC_SCHEDULE_PIPEDREAM);
    pb->s[0] = 1 * GB;
    static const int gpu[1] = { 0 };
    static const double start[2] = { 0, 100 };
    struct plan *pl = plan_make(pb, gpu, 3, start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    /* Lifetime 102 ms = 34 periods: 34 copies; span 34 periods + 2. */
    assert_int_equal(pl->inflight[0], 34);
    assert_near(rep.peak[0], 34 * GB, 0.5);
    assert_int_equal(rep.microbatches, 36);
    plan_free(pl);
    pb_free(pb);
}

static void test_period_below_load_overlaps(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 5, contiguous_start);
    struct sim_report rep;
    expect(pl, pb, SIM_OVERLAP, &rep);
    plan_free(pl);

    /* A load figure above T that the replay does not show. */
    pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    pl->gpus[1].load_ms = 7;
    expect(pl, pb, SIM_DERIVED, &rep);
    expect_reason(&rep, "GPU 1 computes 6 ms per period in the replay, the plan says 7 ms");
    plan_free(pl);
    pb_free(pb);
}

static void test_dependency_violated(void **state)
{
    (void)state;
    struct problem *pb = pb_new(2, 2, 4, SPEC_SCHEDULE_PIPEDREAM);
    static const int gpu[2] = { 0, 1 };
    static const double early[4] = { 0, 0.5, 3.5, 1.5 };
    struct plan *pl = plan_make(pb, gpu, 6, early);
    struct sim_report rep;
    expect(pl, pb, SIM_DEPENDENCY, &rep);
    expect_reason(&rep, "F1 of micro-batch 0 starts at 0.5 ms, before F0 ends at 1 ms");
    plan_free(pl);

    /* B_last may not start before F_last ends, even on its own GPU. */
    static const double back[4] = { 0, 1, 3.5, 1.5 };
    pl = plan_make(pb, gpu, 6, back);
    expect(pl, pb, SIM_DEPENDENCY, &rep);
    expect_reason(&rep, "B1 of micro-batch 0 starts at 1.5 ms, before F1 ends at 2 ms");
    plan_free(pl);
    pb_free(pb);
}

/* Two layers on two GPUs, c_0 = 1 ms: the cut costs 1 ms each way. */
static struct problem *pb_transfer(void)
{
    struct problem *pb = pb_new(2, 2, 4, SPEC_SCHEDULE_PIPEDREAM);
    pb->c[0] = 1;
    pb->a[0] = 1 * GB;
    pb->s[0] = pb->s[1] = 1 * GB;
    pb->reserved[0] = pb->reserved[1] = 0.5 * GB;
    return pb;
}

static void test_transfer_delay_respected(void **state)
{
    (void)state;
    struct problem *pb = pb_transfer();
    static const int gpu[2] = { 0, 1 };
    /* T = 3: GPU 0 runs F0 [0,1) B0 [1,3), GPU 1 F1 [2,3) B1 [0,2). */
    static const double start[4] = { 0, 2, 7, 3 };
    struct plan *pl = plan_make(pb, gpu, 3, start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    /* Layer 0 lives 9 ms = 3 periods; buffers 2a on both sides. */
    assert_near(rep.peak[0], (0.5 + 2 + 3) * GB, 0.5);
    assert_near(rep.peak[1], (0.5 + 2 + 1) * GB, 0.5);
    plan_free(pl);
    pb_free(pb);
}

static void test_transfer_delay_violated(void **state)
{
    (void)state;
    struct problem *pb = pb_transfer();
    static const int gpu[2] = { 0, 1 };
    struct sim_report rep;
    /* T = 4: F1 starts after F0 ends but before the activation arrives. */
    static const double forward[4] = { 0, 1.5, 5.5, 2.5 };
    struct plan *pl = plan_make(pb, gpu, 4, forward);
    expect(pl, pb, SIM_DEPENDENCY, &rep);
    expect_reason(&rep, "F1 of micro-batch 0 starts at 1.5 ms on GPU 1, before F0's "
                  "output reaches it from GPU 0 at 2 ms (F0 ends at 1, transfer 1 ms)");
    plan_free(pl);

    /* The gradient coming back is late the same way. */
    static const double backward[4] = { 0, 2, 5.5, 3 };
    pl = plan_make(pb, gpu, 4, backward);
    expect(pl, pb, SIM_DEPENDENCY, &rep);
    expect_reason(&rep, "B0 of micro-batch 0 starts at 5.5 ms on GPU 0, before B1's "
                  "output reaches it from GPU 1 at 6 ms (B1 ends at 5, transfer 1 ms)");
    plan_free(pl);

    /* No transfer between layers on the same GPU, whatever c_i says. */
    pb->P = 1;
    static const int one[2] = { 0, 0 };
    static const double tight[4] = { 0, 1, 4, 2 };
    pl = plan_make(pb, one, 6, tight);
    expect(pl, pb, SIM_OK, &rep);
    assert_near(rep.peak[0], (0.5 + 2) * GB, 0.5);
    plan_free(pl);
    pb_free(pb);
}

/* f = b = 1; layers 0 and 2 on GPU 0, layer 1 on GPU 1: GPU 0 touches
 * both cuts and sends c_0 + c_1 per period. */
static void test_link_overload(void **state)
{
    (void)state;
    struct problem *pb = pb_new(3, 2, 4, SPEC_SCHEDULE_PIPEDREAM);
    static const int gpu[3] = { 0, 1, 0 };
    struct sim_report rep;
    for (int i = 0; i < 3; i++)
        pb->b[i] = 1;

    pb->c[0] = pb->c[1] = 2.25;
    static const double fits[6] = { 0, 3.25, 6.5, 14.5, 10.75, 7.5 };
    struct plan *pl = plan_make(pb, gpu, 4.5, fits);
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);

    pb->c[0] = pb->c[1] = 2.5;
    static const double over[6] = { 0, 3.5, 7, 15, 11.5, 8 };
    pl = plan_make(pb, gpu, 4.5, over);
    expect(pl, pb, SIM_LINK, &rep);
    expect_reason(&rep, "GPU 0 sends 5 ms of transfers per period, "
                  "more than the period T = 4.5 ms");
    plan_free(pl);
    pb_free(pb);
}

static void test_tampered_memory_model(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;
    pl->gpus[0].total -= 1 * GB;
    expect(pl, pb, SIM_MEMORY_MODEL, &rep);
    expect_reason(&rep, "GPU 0: measured peak 14000000000 B exceeds the model's "
                  "13000000000 B by 1000000000 B");
    /* Raising it is safe for memory but no longer the sum of its parts. */
    pl->gpus[0].total += 2 * GB;
    expect(pl, pb, SIM_DERIVED, &rep);
    plan_free(pl);

    /* An in-flight count below the replay's is caught even with slack. */
    pl = plan_make(pb, interleaved_gpu, 6, interleaved_start);
    pl->inflight[0] = pl->copies[0] = pl->versions[0] = 2;
    expect(pl, pb, SIM_DERIVED, &rep);
    plan_free(pl);
    pb_free(pb);
}

static void test_claims_fit_over_cap(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    pb->cap[0] = pb->cap[1] = 13 * GB;
    struct sim_report rep;
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    /* Honest: it does not fit, and says so. */
    assert_false(pl->fits);
    expect(pl, pb, SIM_OK, &rep);
    pl->fits = true;
    expect(pl, pb, SIM_MEMORY_CAP, &rep);
    expect_reason(&rep, "plan claims to fit but GPU 0 peaks at 14000000000 B, over its "
                  "13000000000 B cap by 1000000000 B");
    plan_free(pl);

    /* The interleaved plan fits the same caps. */
    pl = plan_make(pb, interleaved_gpu, 6, interleaved_start);
    assert_true(pl->fits);
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);
    pb_free(pb);
}

static void test_malformed_plans(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_PIPEDREAM, 4);
    struct plan *pl = plan_make(pb, contiguous_gpu, 6, contiguous_start);
    struct sim_report rep;

    pl->gpu[2] = 2;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    expect_reason(&rep, "layer 2 is on GPU 2, outside 0..1");
    pl->gpu[2] = -1;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    pl->gpu[2] = 1;

    pl->T = 0;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    pl->T = NAN;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    pl->T = 6;

    pl->start[5] = INFINITY;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    expect_reason(&rep, "B1 has no finite start time");
    pl->start[5] = 8;

    /* Spanning a billion periods would need a billion micro-batches. */
    pl->start[4] = 6e9;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    pl->start[4] = 10;

    pb->L = 3;
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    pb->L = 4;
    assert_int_equal(simulate_plan(NULL, pb, &rep), SIM_BAD_PLAN);
    assert_int_equal(simulate_plan(pl, NULL, &rep), SIM_BAD_PLAN);

    /* Restored, it passes again, and a NULL report is allowed. */
    assert_int_equal(simulate_plan(pl, pb, NULL), SIM_OK);
    plan_free(pl);
    pb_free(pb);
}

/* An empty operation (zero time, as for an input layer) may sit at the
 * start or end of another operation but not inside one. Layers 0 (empty)
 * and 2 on GPU 0, layer 1 on GPU 1, T = 6: GPU 0 runs F2 [1,2) B2 [2,4). */
static void test_empty_operations(void **state)
{
    (void)state;
    struct problem *pb = pb_new(3, 2, 4, SPEC_SCHEDULE_PIPEDREAM);
    pb->f[0] = 0;
    pb->b[0] = 0;
    static const int gpu[3] = { 0, 1, 0 };
    /* B0 at 7 = 1 mod 6, the instant F2 of the next micro-batch starts. */
    static const double at_edge[6] = { 0, 0, 1, 7, 4, 2 };
    struct plan *pl = plan_make(pb, gpu, 6, at_edge);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);

    static const double inside[6] = { 0, 0, 1, 9, 4, 2 };
    pl = plan_make(pb, gpu, 6, inside);
    expect(pl, pb, SIM_OVERLAP, &rep);
    expect_reason(&rep, "GPU 0: B2 of micro-batch 1 [8, 10) overlaps "
                  "B0 of micro-batch 0 [9, 9)");
    plan_free(pl);
    pb_free(pb);
}

/* A lifetime at the tolerance: F_0 empty, B_0 of 1e-6 ms, period 1e-3 ms
 * (pipedream, weights stashed per micro-batch in flight). Shifted by j
 * periods the release (its end less the tolerance) fell on the instant of
 * its own acquire and was sorted before it, releasing the copy before;
 * the last copy then stayed counted, and micro-batch 8 found two: 1,000 B
 * over the model. */
static void test_lifetime_at_the_tolerance(void **state)
{
    (void)state;
    struct problem *pb = pb_new(1, 3, 8, SPEC_SCHEDULE_PIPEDREAM);   /* 9 replayed */
    pb->f[0] = 0;
    pb->b[0] = 1e-6;
    pb->w[0] = 1000;
    static const int gpu[1] = { 0 };
    static const double start[2] = { 0, 0 };
    struct plan *pl = plan_make(pb, gpu, 0.001, start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);
    pb_free(pb);
}

/* Two layers per GPU, GPU k holding layers 2k and 2k+1 (f = 1, b = 2,
 * transfers c), period 6 = a GPU's load: each GPU runs its forwards at
 * phase a and its backwards 2 ms later mod 6, waiting up to a period for
 * that phase. Micro-batch 0 spans about (6L + (P - 1) 2c + waits) / 6
 * periods. */
static struct plan *pipeline_of_pairs(struct problem *pb, double c)
{
    int L = pb->L;
    int *gpu = malloc((size_t)L * sizeof *gpu);
    double *start = malloc(2 * (size_t)L * sizeof *start);
    assert_true(gpu && start);
    for (int i = 0; i < L; i++) {
        gpu[i] = i / 2;
        pb->c[i] = i + 1 < L && i % 2 == 1 ? c : 0;
    }
    double t = 0;
    for (int i = 0; i < L; i++) {
        start[i] = t;
        t += 1 + pb->c[i];
    }
    /* backwards from the last GPU: B of its second layer at the first
     * moment after the gradient arrives that is 2 mod 6 past its forwards */
    double back = t;     /* the end of F_{L-1} */
    for (int k = L / 2 - 1; k >= 0; k--) {
        double a = start[2 * k], x = fmax(back, a + 2);
        x = a + 2 + 6 * ceil((x - a - 2) / 6 - 1e-12);
        start[L + 2 * k + 1] = x;
        start[L + 2 * k] = x + 2;
        back = x + 4 + (k > 0 ? pb->c[2 * k - 1] : 0);
    }
    struct plan *pl = plan_make(pb, gpu, 6, start);
    free(gpu);
    free(start);
    return pl;
}

/* The replay goes one GPU at a time: 2,000 layers on 1,000 GPUs with 1 ms
 * transfers span 1,999 periods, so all the GPUs' instances (8 M) were over
 * the cap of one replay and the plan was refused as too long to replay;
 * one GPU's are 8,000. And each GPU over the micro-batches its own
 * operations meet: GPU k of this pipeline is busy for about 2 (P - k)
 * periods of micro-batch 0, so 3,000 layers on 1,500 GPUs replay 9 M
 * instances, where every GPU over the whole trip made 18 M, over the cap
 * of all the GPUs' work (the plan was refused; 4,099 layers on 2,048 GPUs
 * from the memory-aware DP and uniform were). A span that would make even
 * that too much work (8,000 layers on 4,000 GPUs: over 32 M) is still
 * refused, with the limit it passed. */
static void test_long_pipeline_replays_one_gpu_at_a_time(void **state)
{
    (void)state;
    struct sim_report rep;
    if (!valgrind_running()) {     /* millions of instances: minutes under valgrind */
        struct problem *pb = pb_new(2000, 1000, 4, SPEC_SCHEDULE_1F1B);
        struct plan *pl = pipeline_of_pairs(pb, 1);
        assert_true(pl->latency / 6 > 1300);
        expect(pl, pb, SIM_OK, &rep);
        assert_true(rep.microbatches > 1300);
        assert_near(rep.period, 6, 1e-9);
        plan_free(pl);
        pb_free(pb);

        pb = pb_new(3000, 1500, 4, SPEC_SCHEDULE_1F1B);
        pl = pipeline_of_pairs(pb, 1);
        assert_true(pl->latency / 6 > 2000);
        expect(pl, pb, SIM_OK, &rep);
        assert_near(rep.period, 6, 1e-9);
        assert_near(rep.makespan, 3 * 6 + pl->latency, 1e-6);
        plan_free(pl);
        pb_free(pb);
    }
    struct problem *pb = pb_new(8000, 4000, 4, SPEC_SCHEDULE_1F1B);
    struct plan *pl = pipeline_of_pairs(pb, 1);
    expect(pl, pb, SIM_BAD_PLAN, &rep);
    assert_non_null(strstr(rep.reason, "too long to replay"));
    /* ...saying which limit it passed (the span alone was blamed) */
    assert_non_null(strstr(rep.reason, "M operation instances, at most 32 M)"));
    plan_free(pl);
    pb_free(pb);
}

/* Each GPU replays the micro-batches its own operations meet: in a
 * pipeline of 64 GPUs the last one holds its layers for 2 periods of
 * micro-batch 0 and replays 4 or so of the 1,000, the first one the whole
 * trip (some 130). Memory peaks and the makespan come out as over all
 * 1,000: GPU p stores 1 GB per copy of its first layer, and keeps as many
 * copies as that layer has in flight (the first GPU over 100, the last 1
 * or 2); the flush ends 999 periods after the first trip began. */
static void test_each_gpu_replays_its_own_window(void **state)
{
    (void)state;
    for (int sched = 0; sched < 2; sched++) {
        struct problem *pb = pb_new(128, 64, 1000, sched ? SPEC_SCHEDULE_PIPEDREAM
                                                        : SPEC_SCHEDULE_1F1B);
        for (int p = 0; p < 64; p++)
            pb->s[2 * p] = GB;
        struct plan *pl = pipeline_of_pairs(pb, 1);
        struct sim_report rep;
        expect(pl, pb, SIM_OK, &rep);
        assert_near(rep.period, 6, 1e-9);
        if (!sched)
            assert_near(rep.makespan, 999 * 6 + pl->latency, 1e-6);
        assert_true(pl->copies[0] > 20 && pl->copies[126] <= 2);
        for (int p = 0; p < 64; p++) {
            /* pipedream keeps a weight version per copy beyond the
             * first, of weights 0 here */
            if (fabs(rep.peak[p] - pl->copies[2 * p] * GB) > 0.5)
                fail_msg("GPU %d: measured %.0f B, %d copies of 1 GB", p, rep.peak[p],
                         pl->copies[2 * p]);
        }
        plan_free(pl);
        pb_free(pb);
    }
}

/* The tolerance follows the period, or micro-batch 0's span when that is
 * shorter, never below what rounding leaves at the replay's magnitudes.
 * Section 9's plan, valid at a period of 6 ms, is valid at 10^6 and 10^12
 * ms too (one micro-batch at a time); with every start at 0 it is not (F1
 * before F0 ends), which a tolerance of 10^-6 of a 10^6 ms period (1 ms,
 * the length of F0) let through. */
static void test_tolerance_follows_the_span(void **state)
{
    (void)state;
    struct problem *pb = pb_section9(SPEC_SCHEDULE_1F1B, 4);
    static const double zeros[8] = { 0 };
    for (int k = 0; k < 2; k++) {
        double T = k ? 1e12 : 1e6;
        struct plan *pl = plan_make(pb, contiguous_gpu, T, contiguous_start);
        struct sim_report rep;
        expect(pl, pb, SIM_OK, &rep);
        assert_near(rep.makespan, 3 * T + 12, 1e-9 * T);
        plan_free(pl);
        pl = plan_make(pb, contiguous_gpu, T, zeros);
        if (k == 0) {
            expect(pl, pb, SIM_DEPENDENCY, &rep);
            assert_non_null(strstr(rep.reason, "F1 of micro-batch 0 starts at 0 ms, before F0"));
        }
        plan_free(pl);
    }
    pb_free(pb);

    /* one micro-batch's trip back to back (times in tenths, not exact in
     * binary) at a period of 10^12 + 0.3 ms: valid, though each start
     * shifted by j periods rounds by up to 10^-3 ms */
    pb = pb_new(8, 2, 4, SPEC_SCHEDULE_1F1B);
    int gpu[8];
    double start[16], t = 0;
    for (int i = 0; i < 8; i++) {
        gpu[i] = i / 4;
        pb->f[i] = 0.1 * (i + 1);
        pb->b[i] = 0.3 * (i + 1);
        pb->c[i] = i == 3 ? 0.7 : 0;
    }
    for (int i = 0; i < 8; i++) {
        start[i] = t;
        t += pb->f[i] + pb->c[i];
    }
    for (int i = 7; i >= 0; i--) {
        start[8 + i] = t;
        t += pb->b[i] + (i > 0 ? pb->c[i - 1] : 0);
    }
    struct plan *pl = plan_make(pb, gpu, 1e12 + 0.3, start);
    struct sim_report rep;
    expect(pl, pb, SIM_OK, &rep);
    plan_free(pl);
    pb_free(pb);
}

static void test_verdict_names_are_distinct(void **state)
{
    (void)state;
    for (int a = SIM_OK; a <= SIM_DERIVED; a++)
        for (int b = a + 1; b <= SIM_DERIVED; b++)
            assert_string_not_equal(simulate_verdict_name((enum sim_verdict)a),
                                    simulate_verdict_name((enum sim_verdict)b));
    assert_string_equal(simulate_verdict_name(SIM_OK), "ok");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section9_contiguous_is_valid),
        cmocka_unit_test(test_section9_interleaved_is_valid_and_model_is_an_upper_bound),
        cmocka_unit_test(test_section9_contiguous_at_period_9),
        cmocka_unit_test(test_weight_versions_pipedream_and_1f1b),
        cmocka_unit_test(test_1f1b_with_fewer_micro_batches_than_in_flight),
        cmocka_unit_test(test_1f1b_makespan_is_m_minus_1_periods_plus_latency),
        cmocka_unit_test(test_pipedream_tampered_latency_is_derived),
        cmocka_unit_test(test_overlap_across_micro_batches),
        cmocka_unit_test(test_overlap_only_by_wrap_around),
        cmocka_unit_test(test_long_span_replays_enough_micro_batches),
        cmocka_unit_test(test_period_below_load_overlaps),
        cmocka_unit_test(test_dependency_violated),
        cmocka_unit_test(test_transfer_delay_respected),
        cmocka_unit_test(test_transfer_delay_violated),
        cmocka_unit_test(test_link_overload),
        cmocka_unit_test(test_tampered_memory_model),
        cmocka_unit_test(test_claims_fit_over_cap),
        cmocka_unit_test(test_malformed_plans),
        cmocka_unit_test(test_empty_operations),
        cmocka_unit_test(test_lifetime_at_the_tolerance),
        cmocka_unit_test(test_long_pipeline_replays_one_gpu_at_a_time),
        cmocka_unit_test(test_each_gpu_replays_its_own_window),
        cmocka_unit_test(test_tolerance_follows_the_span),
        cmocka_unit_test(test_verdict_names_are_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
