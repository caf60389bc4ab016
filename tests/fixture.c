/* fixture: see fixture.h. */
#include "fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

struct kept {
    void *obj;
    void (*free_fn)(void *);
};

static struct kept *kept;
static size_t nkept, capkept;
static uint64_t rng_state;

static void keep(void *obj, void (*free_fn)(void *))
{
    if (!obj)
        return;
    if (nkept == capkept) {
        size_t cap = capkept ? 2 * capkept : 16;
        struct kept *nk = realloc(kept, cap * sizeof *nk);
        assert_non_null(nk);
        kept = nk;
        capkept = cap;
    }
    kept[nkept++] = (struct kept){ obj, free_fn };
}

static void forget(const void *obj)
{
    for (size_t i = 0; i < nkept; i++) {
        if (kept[i].obj == obj) {
            kept[i] = kept[--nkept];
            return;
        }
    }
}

static void free_problem(void *pb)
{
    problem_free(pb);
}

static void free_plan(void *pl)
{
    plan_free(pl);
}

struct problem *fx_track(struct problem *pb)
{
    assert_non_null(pb);
    keep(pb, free_problem);
    return pb;
}

void fx_problem_free(struct problem *pb)
{
    forget(pb);
    problem_free(pb);
}

void fx_track_result(struct planner_result *res)
{
    keep(res->plan, free_plan);
}

void fx_result_clear(struct planner_result *res)
{
    forget(res->plan);
    planner_result_clear(res);
}

int fx_teardown(void **state)
{
    (void)state;
    while (nkept > 0) {
        nkept--;
        kept[nkept].free_fn(kept[nkept].obj);
    }
    free(kept);
    kept = NULL;
    capkept = 0;
    return 0;
}

struct problem *fx_problem(int L, int P, double phi, enum layout_kind layout)
{
    struct problem *pb = fx_track(problem_new(L, P));
    pb->micro_batch = 1;
    for (int i = 0; i <= L; i++)
        pb->first[i] = i;
    /* coarsening builds block names from these */
    for (int i = 0; i < L; i++) {
        pb->names[i] = malloc(16);
        assert_non_null(pb->names[i]);
        snprintf(pb->names[i], 16, "l%d", i);
    }
    pb->m = 4;
    pb->schedule = SPEC_SCHEDULE_PIPEDREAM;
    pb->layout = layout;
    pb->phi = phi;
    pb->bandwidth = 1e9;
    return pb;
}

void fx_seed(uint64_t seed)
{
    rng_state = seed;
}

unsigned fx_rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (unsigned)(rng_state >> 33) % n;
}

struct problem *fx_random(int L, int P, const struct fx_spread *sp)
{
    struct problem *pb = fx_problem(L, P, sp->phi, sp->layout);
    for (int i = 0; i < L; i++) {
        pb->f[i] = 0.25 * (1 + fx_rnd(8));
        pb->b[i] = 0.25 * (1 + fx_rnd(12));
        pb->w[i] = (double)fx_rnd(sp->w_levels) * GB;
        pb->s[i] = (double)(1 + fx_rnd(5)) * GB;
        pb->a[i] = i < L - 1 ? (double)fx_rnd(3) * 0.5 * GB : 0;
        pb->c[i] = i < L - 1 ? sp->c_step * fx_rnd(sp->c_levels) : 0;
    }
    if (sp->phi_levels)
        pb->phi = 1 + fx_rnd(sp->phi_levels);
    if (sp->m_levels)
        pb->m = 1 + fx_rnd(sp->m_levels);
    if (sp->draw_schedule)
        pb->schedule = fx_rnd(2) ? SPEC_SCHEDULE_PIPEDREAM : SPEC_SCHEDULE_1F1B;
    return pb;
}
