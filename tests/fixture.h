/* fixture: what the cmocka tests share. Hand-made problems, one random
 * stream, and a registry of the problems a test made, so that a test
 * that fails half-way leaks nothing: cmocka jumps out of it, and its
 * teardown frees what it left (FX_TEST): problems, and the plans of
 * results registered with fx_track_result. */
#ifndef PIPEPLAN_TEST_FIXTURE_H
#define PIPEPLAN_TEST_FIXTURE_H

#include <stdint.h>
#include "planner.h"
#include "problem.h"

#define GB 1e9

/* A problem of L layers "l0".."lL-1" on P GPUs with nothing in it yet:
 * one sample per micro-batch, m = 4, pipedream, 1 GB/s links, the given
 * weight factor and layout, zero caps. Registered until fx_problem_free. */
struct problem *fx_problem(int L, int P, double phi, enum layout_kind layout);

/* Register a problem made elsewhere (problem_create, problem_coarsen). */
struct problem *fx_track(struct problem *pb);

/* Free a problem, registered or not. */
void fx_problem_free(struct problem *pb);

/* Register a result's plan; fx_result_clear forgets it and clears. */
void fx_track_result(struct planner_result *res);
void fx_result_clear(struct planner_result *res);

/* The tests' random stream: reproducible on every machine. */
void fx_seed(uint64_t seed);
unsigned fx_rnd(unsigned n);

/* How fx_random draws a chain: times in quarters of a ms (f 1..8, b
 * 1..12 quarters), stored 1..5 GB, weights 0..w_levels-1 GB, buffers
 * 0, 0.5 or 1 GB, transfer times c_step * 0..c_levels-1; then, where
 * the levels are not 0, phi 1..phi_levels, m 1..m_levels and the
 * schedule. */
struct fx_spread {
    double phi;
    enum layout_kind layout;
    unsigned w_levels;
    double c_step;
    unsigned c_levels;
    unsigned phi_levels, m_levels;
    int draw_schedule;
};
struct problem *fx_random(int L, int P, const struct fx_spread *sp);

/* cmocka teardown: frees everything still registered. */
int fx_teardown(void **state);
#define FX_TEST(f) cmocka_unit_test_teardown(f, fx_teardown)

#endif
