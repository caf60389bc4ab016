/* planner: registry and common result handling for every planner. */
#include "planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "ilp.h"
#include "schedule.h"

struct entry {
    const char *name;
    const char *title;
    bool solver;             /* searches under limits (ilp_solve), streams progress */
    bool memory_rule;        /* chooses its split under the memory caps */
    /* baselines without a memory rule always "believe" they fit */
    struct plan *(*run_plain)(const struct problem *);
    struct plan *(*run_mem)(const struct problem *, bool *);
};

static const struct entry registry[] = {
    { "ilp", "ILP (CBC)", true, true, NULL, NULL },
    { "dp", "mem-aware DP", false, true, NULL, baseline_dp },
    { "pipedream", "PipeDream", false, true, NULL, baseline_pipedream },
    { "time", "time-balanced", false, false, baseline_time, NULL },
    { "parameters", "param-balanced", false, false, baseline_parameters, NULL },
    { "uniform", "uniform", false, false, baseline_uniform, NULL },
};

#define NREG ((int)(sizeof registry / sizeof registry[0]))

/* The user's own plan: in the registry for its name and title, but not
 * among the planners that run. */
static const struct entry given = { "user", "your split", false, false, NULL, NULL };

int planner_count(void)
{
    return NREG;
}

const char *planner_name(int i)
{
    return i >= 0 && i < NREG ? registry[i].name : NULL;
}

static const struct entry *find_run(const char *name)
{
    for (int i = 0; i < NREG; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

static const struct entry *find(const char *name)
{
    return strcmp(name, given.name) == 0 ? &given : find_run(name);
}

const char *planner_given(void)
{
    return given.name;
}

bool planner_is_given(const char *name)
{
    return name && strcmp(name, given.name) == 0;
}

const char *planner_title(const char *name)
{
    const struct entry *e = name ? find(name) : NULL;
    return e ? e->title : name;
}

bool planner_exists(const char *name)
{
    return name && find(name) != NULL;
}

bool planner_is_solver(const char *name)
{
    const struct entry *e = name ? find(name) : NULL;
    return e && e->solver;
}

bool planner_has_memory_rule(const char *name)
{
    const struct entry *e = name ? find(name) : NULL;
    return e && e->memory_rule;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int planner_run(const char *name, const struct problem *pb, struct planner_result *res)
{
    return planner_run_until(name, pb, res, NULL, NULL);
}

int planner_run_until(const char *name, const struct problem *pb, struct planner_result *res,
                      bool (*stop)(const void *), const void *ctx)
{
    const struct entry *e = find_run(name);
    memset(res, 0, sizeof *res);
    res->bound = NAN;
    res->block_bound = NAN;
    if (!e)
        return -1;
    res->bound = problem_objective_bound(pb);
    if (e->solver) {
        /* the solver with its default limits; callers with their own
         * limits call ilp_solve() */
        struct ilp_options opt;
        ilp_options_init(&opt);
        return ilp_solve(pb, &opt, res, NULL) == 0 ? 0 : -1;
    }
    res->planner = e->name;
    res->believed_fit = true;
    double t0 = now_seconds();
    bool stopped = false;
    if (stop && e->run_mem == baseline_dp)
        res->plan = baseline_dp_until(pb, &res->believed_fit, stop, ctx, &stopped);
    else
        res->plan = e->run_mem ? e->run_mem(pb, &res->believed_fit) : e->run_plain(pb);
    res->seconds = now_seconds() - t0;
    if (stopped) {
        /* its split at a longer period than its own least, or none */
        res->status = PLAN_TIMEOUT;
        snprintf(res->message, sizeof res->message, "stopped before its least period");
    } else if (!res->plan) {
        res->status = PLAN_ERROR;
        snprintf(res->message, sizeof res->message, "the planner returned no plan");
    } else {
        res->status = res->plan->fits ? PLAN_FEASIBLE : PLAN_NO_FIT;
    }
    return 0;
}

/* The checks every judgement makes of gpu[]: a new plan holding it, or
 * NULL with the reason in res (status error). */
static struct plan *judge_begin(const struct problem *pb, const int *gpu, const char *source,
                                struct planner_result *res)
{
    memset(res, 0, sizeof *res);
    res->planner = given.name;
    res->status = PLAN_ERROR;
    res->bound = problem_objective_bound(pb);
    res->block_bound = NAN;
    snprintf(res->message, sizeof res->message, "%s", source ? source : "");
    int used = 0;
    for (int i = 0; i < pb->L; i++) {
        if (gpu[i] < 0) {
            snprintf(res->message, sizeof res->message, "layer %d has no GPU", i);
            return NULL;
        }
        if (gpu[i] + 1 > used)
            used = gpu[i] + 1;
    }
    if (used > pb->P) {
        snprintf(res->message, sizeof res->message, "it uses GPU %d, but there %s only %d "
                 "GPU%s", used - 1, pb->P == 1 ? "is" : "are", pb->P, pb->P == 1 ? "" : "s");
        return NULL;
    }
    /* a plan of another layout is no plan of this setting (it would be
     * shown beside an ILP that rules such plans out) */
    int second = pb->layout == LAYOUT_CONTIGUOUS ? plan_second_run(gpu, pb->L, pb->P) : pb->L;
    if (second < 0) {
        snprintf(res->message, sizeof res->message, "out of memory");
        return NULL;
    }
    if (second < pb->L) {
        snprintf(res->message, sizeof res->message, "GPU %d holds a second run of layers from "
                 "layer %d: the contiguous layout gives a GPU one", gpu[second], second);
        return NULL;
    }
    struct plan *pl = plan_new(pb->L, pb->P);
    if (!pl) {
        snprintf(res->message, sizeof res->message, "out of memory");
        return NULL;
    }
    memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
    return pl;
}

static int judge_end(struct plan *pl, int rc, struct planner_result *res)
{
    if (rc != 0) {
        plan_free(pl);
        snprintf(res->message, sizeof res->message, "no schedule for this allocation");
        return -1;
    }
    res->plan = pl;
    res->believed_fit = pl->fits;
    res->status = pl->fits ? PLAN_FEASIBLE : PLAN_NO_FIT;
    return 0;
}

int planner_judge(const struct problem *pb, const int *gpu, double T, const double *start,
                  const char *source, struct planner_result *res)
{
    struct plan *pl = judge_begin(pb, gpu, source, res);
    if (!pl)
        return -1;
    int rc;
    if (start) {
        pl->T = T;
        memcpy(pl->start, start, 2 * (size_t)pb->L * sizeof *start);
        rc = plan_evaluate(pl, pb);
    } else {
        rc = schedule_build(pl, pb);
        /* your split is judged with the schedule your runtime would run
         * it with when the fastest one does not fit */
        if (rc == 0)
            schedule_stretch(pl, pb);
    }
    return judge_end(pl, rc, res);
}

int planner_judge_1f1b(const struct problem *pb, const int *gpu, int ranks, const char *source,
                       struct planner_result *res)
{
    struct plan *pl = judge_begin(pb, gpu, source, res);
    if (!pl)
        return -1;
    int rc = schedule_build_1f1b(pl, pb, ranks);
    if (rc == -2) {
        /* no 1F1B split: the order the plan's own schedule would run */
        plan_free(pl);
        return planner_judge(pb, gpu, 0, NULL, source, res) == 0 ? 1 : -1;
    }
    if (rc == 0) {
        size_t n = strlen(res->message);
        snprintf(res->message + n, sizeof res->message - n, "%s(judged in the runtime's 1F1B "
                 "order)", n ? " " : "");
    }
    return judge_end(pl, rc, res);
}

void planner_result_clear(struct planner_result *res)
{
    plan_free(res->plan);
    res->plan = NULL;
    res->replayed = false;
}

const char *planner_status_text(enum plan_status s, int blocks, char *buf, size_t len)
{
    if (s == PLAN_BLOCK_OPTIMAL)
        snprintf(buf, len, "optimal for %d block%s", blocks, blocks == 1 ? "" : "s");
    else
        snprintf(buf, len, "%s", plan_status_name(s));
    return buf;
}

double planner_gap(const struct planner_result *res)
{
    /* the bound holds for plans that fit: nothing to measure otherwise */
    if (!res->plan || !res->plan->fits || !isfinite(res->bound))
        return NAN;
    /* a network with no time at all: nothing to gain */
    if (!(res->plan->objective > 0))
        return res->bound >= res->plan->objective ? 0.0 : NAN;
    return fmax(0.0, (res->plan->objective - res->bound) / res->plan->objective);
}

bool planner_result_usable(const struct planner_result *res)
{
    return res->plan && (res->status != PLAN_ERROR || res->kept);
}

int planner_result_compare(const struct planner_result *a, const struct planner_result *b)
{
    if (!a->plan || !b->plan)
        return (a->plan == NULL) - (b->plan == NULL);
    if (a->plan->fits != b->plan->fits)
        return a->plan->fits ? -1 : 1;
    double x = a->plan->fits ? a->plan->objective : a->plan->peak_memory;
    double y = b->plan->fits ? b->plan->objective : b->plan->peak_memory;
    return (x > y) - (x < y);
}

const struct planner_result *planner_result_find(const struct planner_result *v, int n,
                                                 const char *name)
{
    for (int i = 0; v && i < n; i++)
        if (v[i].planner && strcmp(v[i].planner, name) == 0)
            return &v[i];
    return NULL;
}

/* A copy of the problem with every GPU capped at `cap` bytes. */
static struct problem *with_cap(const struct problem *pb, double cap)
{
    struct problem *q = problem_copy(pb);
    if (q)
        for (int p = 0; p < q->P; p++)
            q->cap[p] = cap;
    return q;
}

/* The bisection's work, counted as a DP's cells (layers x stages) for each
 * of its some 20 periods, per cap tried: resnet50 on 4 GPUs tries 14 caps
 * for 200,000; 5,000 layers on 4,096 GPUs would take 20 s a cap (its
 * search ran for more than ten minutes), and tries none. */
#define MIN_CAP_WORK 3e8

/* Whether the caller's limits allow one more cap, `tried` caps in. */
static bool min_cap_may_try(const struct min_cap_limits *lim, long tried, double deadline)
{
    if (!lim)
        return true;
    if (lim->work > 0)
        return tried < lim->work;
    return !(lim->seconds <= 0) && (isinf(deadline) || now_seconds() < deadline);
}

double planner_min_cap(const struct problem *pb, const struct planner_result *known,
                       int nknown, struct plan **fit_plan, const char **fit_planner,
                       double *within, const struct min_cap_limits *lim)
{
    /* the seconds are counted from here; under a work limit, never */
    double deadline = lim && lim->work <= 0 && lim->seconds > 0 && isfinite(lim->seconds)
                      ? now_seconds() + lim->seconds : INFINITY;
    long tried = 0;
    *fit_plan = NULL;
    *fit_planner = NULL;
    if (within)
        *within = 0;
    double best = INFINITY;
    /* Every planner's plan fits at its own peak; the cap-aware ones may
     * find a different split under a smaller cap, hence the bisection.
     * The caller's results for pb are taken as they are (a plan the
     * simulator refused is none). */
    for (int i = 0; i < NREG; i++) {
        struct planner_result res;
        if (registry[i].solver)
            continue;
        const struct planner_result *k = planner_result_find(known, nknown, registry[i].name);
        if (k && (k->status == PLAN_ERROR || !k->plan))
            continue;
        if (k) {
            memset(&res, 0, sizeof res);
            res.plan = plan_copy(k->plan);
        } else {
            planner_run(registry[i].name, pb, &res);
        }
        if (res.plan && res.plan->peak_memory < best) {
            best = res.plan->peak_memory;
            plan_free(*fit_plan);
            *fit_plan = res.plan;
            res.plan = NULL;
            *fit_planner = registry[i].name;
        }
        planner_result_clear(&res);
    }
    if (!isfinite(best))
        return NAN;
    double lo = 0;
    for (int p = 0; p < pb->P; p++)
        lo = fmax(lo, pb->reserved[p]);
    double probe = 20.0 * pb->L * (pb->P < pb->L ? pb->P : pb->L), failed = lo;
    static const char *const aware[] = { "dp", "pipedream" };
    for (size_t k = 0; k < sizeof aware / sizeof aware[0]; k++) {
        double l = lo, h = best, work = 0;
        /* 1 MiB resolution is finer than anything a user sets */
        while (h - l > 1048576.0 && (work += probe) <= MIN_CAP_WORK &&
               min_cap_may_try(lim, tried, deadline)) {
            tried++;
            double mid = floor((l + h) / 2);
            struct problem *q = with_cap(pb, mid);
            struct planner_result res;
            if (!q)
                break;
            planner_run(aware[k], q, &res);
            if (res.plan && res.plan->fits) {
                h = res.plan->peak_memory;
                if (h < best) {
                    best = h;
                    plan_free(*fit_plan);
                    *fit_plan = res.plan;
                    res.plan = NULL;
                    *fit_planner = find(aware[k])->name;
                }
            } else {
                l = mid;
            }
            planner_result_clear(&res);
            problem_free(q);
        }
        failed = fmax(failed, l);
    }
    if (within)
        *within = fmax(0, best - failed);
    /* the returned plan is judged against the cap that was found */
    struct problem *q = with_cap(pb, best);
    if (q && *fit_plan)
        plan_evaluate(*fit_plan, q);
    problem_free(q);
    return best;
}
