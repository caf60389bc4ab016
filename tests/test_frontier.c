/* The frontier's caps and curves: exact values on small hand-worked cases. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "frontier.h"

#define GIB 1073741824.0

/* fit 10 GiB, all 20 GiB: 1/4 GiB steps would be 42 points (9.75..20),
 * 1/2 GiB steps 22 (9.5..20): the smallest step within nmax wins. */
static void test_caps_smallest_round_step_within_nmax(void **state)
{
    (void)state;
    double cap[FRONTIER_MAX_CAPS];
    assert_int_equal(frontier_caps(10 * GIB, 20 * GIB, 24, cap), 22);
    assert_true(cap[0] == 9.5 * GIB);
    assert_true(cap[1] == 10 * GIB);
    assert_true(cap[21] == 20 * GIB);
    assert_int_equal(frontier_caps(10 * GIB, 20 * GIB, 48, cap), 42);
    assert_true(cap[0] == 9.75 * GIB);
    assert_true(cap[41] == 20 * GIB);
    /* not on the grid: the last multiple below 10.1 is 10, the first at or
     * above 19.9 is 20 (1/2 GiB steps: 21 points) */
    assert_int_equal(frontier_caps(10.1 * GIB, 19.9 * GIB, 24, cap), 21);
    assert_true(cap[0] == 10 * GIB);
    assert_true(cap[20] == 20 * GIB);
}

/* 3.3 .. 70 GiB in at most 24 points: steps 1/4, 1/2, 1, 2 give 268, 135,
 * 68, 35 points; 5 GiB gives 5..70 (the multiple below 3.3 would be 0:
 * never below one step). */
static void test_caps_never_below_one_step(void **state)
{
    (void)state;
    double cap[FRONTIER_MAX_CAPS];
    assert_int_equal(frontier_caps(3.3 * GIB, 70 * GIB, 24, cap), 14);
    assert_true(cap[0] == 5 * GIB);
    assert_true(cap[13] == 70 * GIB);
}

/* fit == all on the grid: one point below it, and it. */
static void test_caps_single_fit_gives_two_points(void **state)
{
    (void)state;
    double cap[FRONTIER_MAX_CAPS];
    assert_int_equal(frontier_caps(8 * GIB, 8 * GIB, 4, cap), 2);
    assert_true(cap[0] == 7.75 * GIB);
    assert_true(cap[1] == 8 * GIB);
    /* all below fit counts as fit */
    assert_int_equal(frontier_caps(8 * GIB, 1 * GIB, 4, cap), 2);
    assert_true(cap[1] == 8 * GIB);
}

static void test_caps_reject_bad_input(void **state)
{
    (void)state;
    double cap[FRONTIER_MAX_CAPS];
    assert_int_equal(frontier_caps(0, GIB, 24, cap), -1);
    assert_int_equal(frontier_caps(NAN, GIB, 24, cap), -1);
    assert_int_equal(frontier_caps(GIB, INFINITY, 24, cap), -1);
    assert_int_equal(frontier_caps(GIB, 2 * GIB, 1, cap), -1);
    /* nmax beyond the array is clamped: 1/4 GiB steps over 0.25..16 GiB */
    int n = frontier_caps(0.3 * GIB, 16 * GIB, 1000, cap);
    assert_int_equal(n, FRONTIER_MAX_CAPS);
    assert_true(cap[0] == 0.25 * GIB);
    assert_true(cap[63] == 16 * GIB);
}

static struct plan fitting(double objective, bool fits)
{
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    pl.objective = objective;
    pl.fits = fits;
    return pl;
}

/* Two planners over caps 1..4 GiB:
 *   a: no fit, 30 ms, 20 ms, (not yet)  -> stops fitting at index 0
 *   b: (not yet), no fit, (not yet), 25 ms -> stops fitting at index 1 */
static void test_curves_stop_range_done(void **state)
{
    (void)state;
    static const double cap[4] = { 1 * GIB, 2 * GIB, 3 * GIB, 4 * GIB };
    static const char *const names[2] = { "a", "b" };
    struct frontier f;
    frontier_init(&f, cap, 4, names, 2);
    assert_int_equal(frontier_planner(&f, "b"), 1);
    assert_int_equal(frontier_planner(&f, "c"), -1);
    assert_int_equal(frontier_done(&f, -1), 0);
    double lo = 0, hi = 0;
    assert_false(frontier_range(&f, &lo, &hi));
    assert_int_equal(frontier_stop(&f, 0), -1);

    struct plan no = fitting(99, false), p30 = fitting(30, true), p20 = fitting(20, true),
                p25 = fitting(25, true);
    frontier_set(&f, 0, 0, PLAN_NO_FIT, &no);
    frontier_set(&f, 0, 1, PLAN_FEASIBLE, &p30);
    frontier_set(&f, 0, 2, PLAN_FEASIBLE, &p20);
    frontier_set(&f, 1, 1, PLAN_INFEASIBLE, NULL);
    /* b has no fitting point yet: nothing to stop */
    assert_int_equal(frontier_stop(&f, 1), -1);
    frontier_set(&f, 1, 3, PLAN_TIMEOUT, &p25);
    /* out of range: ignored */
    frontier_set(&f, 2, 0, PLAN_FEASIBLE, &p20);
    frontier_set(&f, 0, 4, PLAN_FEASIBLE, &p20);

    assert_int_equal(frontier_done(&f, 0), 3);
    assert_int_equal(frontier_done(&f, 1), 2);
    assert_int_equal(frontier_done(&f, -1), 5);
    assert_int_equal(frontier_stop(&f, 0), 0);
    assert_int_equal(frontier_stop(&f, 1), 1);
    assert_true(frontier_range(&f, &lo, &hi));
    assert_true(lo == 20 && hi == 30);
    /* a point that does not fit has no objective, whatever its plan says */
    assert_true(isnan(f.pt[0][0].objective));
    assert_false(f.pt[1][1].fits);
    assert_true(f.pt[1][3].status == PLAN_TIMEOUT);
    assert_false(f.pt[0][3].done);
}

static void test_plot_positions(void **state)
{
    (void)state;
    static const double cap[4] = { 1 * GIB, 2 * GIB, 3 * GIB, 4 * GIB };
    static const char *const names[1] = { "a" };
    struct frontier f;
    frontier_init(&f, cap, 4, names, 1);
    /* 4 caps on 10 columns: 0, 3, 6, 9 */
    assert_int_equal(frontier_col(&f, 0, 10), 0);
    assert_int_equal(frontier_col(&f, 1, 10), 3);
    assert_int_equal(frontier_col(&f, 2, 10), 6);
    assert_int_equal(frontier_col(&f, 3, 10), 9);
    /* 2.5 GiB is half way: 4.5 rounds to 5; outside: -1 and n */
    assert_int_equal(frontier_cap_col(&f, 2.5 * GIB, 10), 5);
    assert_int_equal(frontier_cap_col(&f, 0.5 * GIB, 10), -1);
    assert_int_equal(frontier_cap_col(&f, 5 * GIB, 10), 10);
    /* rows: hi at the top, lo at the bottom; one value in the middle */
    assert_int_equal(frontier_row(30, 20, 30, 5), 0);
    assert_int_equal(frontier_row(20, 20, 30, 5), 4);
    assert_int_equal(frontier_row(25, 20, 30, 5), 2);
    assert_int_equal(frontier_row(25, 25, 25, 5), 2);
    /* nearest cap: 2.5 is a tie (the lower), 16 the last */
    assert_int_equal(frontier_nearest(&f, 2.5 * GIB), 1);
    assert_int_equal(frontier_nearest(&f, 2.6 * GIB), 2);
    assert_int_equal(frontier_nearest(&f, 16 * GIB), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caps_smallest_round_step_within_nmax),
        cmocka_unit_test(test_caps_never_below_one_step),
        cmocka_unit_test(test_caps_single_fit_gives_two_points),
        cmocka_unit_test(test_caps_reject_bad_input),
        cmocka_unit_test(test_curves_stop_range_done),
        cmocka_unit_test(test_plot_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
