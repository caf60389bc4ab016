/* ilp: the exact planner (MODEL.md section 5) with CBC's C API.
 *
 * The objective is alpha*T + beta*Lambda: (1, 0) for pipedream (the
 * period), (m-1, 1) for 1f1b (the iteration time). The search keeps
 * intervals [a, b] of the period with a proven lower bound each:
 *
 * - the master MIP at T = b chooses an allocation of the blocks with the
 *   wait-free in-flight counts n_i >= (W_i + 2 sum_{j>=i} c_j z_j) / T,
 *   memory, compute and link loads; it minimises the wait-free latency.
 *   Real counts are never below wait-free ones and an allocation that fits
 *   at some T <= b also fits at b (scale every start by b/T: lifetimes and
 *   periods scale together, so the counts stay), so its optimum bounds the
 *   whole interval: alpha*a + beta*Lambda_master(b).
 * - the allocation is then scheduled exactly at b: the list scheduler, and
 *   if that does not fit, a schedule MIP over the operations that share a
 *   GPU. An allocation with no fitting schedule at b is cut off for every
 *   T <= b (no-good); one that fits gives a plan, and for 1f1b a cut
 *   Lambda >= (a/b') * Lambda_exact(b') on that allocation (by the same
 *   scaling, its latency at T >= a is at least that).
 * - intervals are split until their bound meets the best plan.
 *
 * Plans found on blocks are expanded to layers exactly (a block's
 * operations run back to back) and then refined layer by layer. */
#include "ilp.h"

#include <Cbc_C_Interface.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline.h"
#include "schedule.h"
#include "simulate.h"

#define GB 1e9                 /* memory rows in GB keep coefficients near 1 */
#define MAX_INTERVALS 4096
#define T_RESOLUTION 1e-5      /* intervals narrower than this (relative) stop splitting */

/* ---------------------------------------------------------------- MIP */

struct mip {
    Cbc_Model *m;
    int cols, rows, ints;
    int *idx;
    double *val;
    int n, cap;
};

static int mip_init(struct mip *mp, int threads, double seconds)
{
    memset(mp, 0, sizeof mp[0]);
    mp->m = Cbc_newModel();
    if (!mp->m)
        return -1;
    Cbc_setLogLevel(mp->m, 0);
    Cbc_setParameter(mp->m, "log", "0");
    Cbc_setParameter(mp->m, "slog", "0");
    if (threads > 1) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", threads);
        Cbc_setParameter(mp->m, "threads", buf);
    }
    Cbc_setMaximumSeconds(mp->m, seconds > 0.01 ? seconds : 0.01);
    /* measured on the bundled networks: probing costs more than it saves
     * on these small, symmetric models */
    Cbc_setParameter(mp->m, "probing", "off");
    Cbc_setAllowableFractionGap(mp->m, 1e-6);
    return 0;
}

static void mip_free(struct mip *mp)
{
    if (mp->m)
        Cbc_deleteModel(mp->m);
    free(mp->idx);
    free(mp->val);
    memset(mp, 0, sizeof mp[0]);
}

static int mip_col(struct mip *mp, double lb, double ub, double obj, bool integer)
{
    Cbc_addCol(mp->m, "", lb, ub, obj, integer ? 1 : 0, 0, NULL, NULL);
    if (integer)
        mp->ints++;
    return mp->cols++;
}

static void row_begin(struct mip *mp)
{
    mp->n = 0;
}

static void row_add(struct mip *mp, int col, double v)
{
    if (v == 0.0)
        return;
    if (mp->n == mp->cap) {
        int cap = mp->cap ? mp->cap * 2 : 64;
        int *ni = realloc(mp->idx, (size_t)cap * sizeof *ni);
        double *nv = realloc(mp->val, (size_t)cap * sizeof *nv);
        if (ni)
            mp->idx = ni;
        if (nv)
            mp->val = nv;
        if (!ni || !nv)
            return;
        mp->cap = cap;
    }
    mp->idx[mp->n] = col;
    mp->val[mp->n] = v;
    mp->n++;
}

static void row_end(struct mip *mp, char sense, double rhs)
{
    Cbc_addRow(mp->m, "", mp->n, mp->idx, mp->val, sense, rhs);
    mp->rows++;
}

enum mip_outcome { MIP_SOLVED, MIP_INFEASIBLE, MIP_FEASIBLE_STOPPED, MIP_UNKNOWN };

static enum mip_outcome mip_solve(struct mip *mp)
{
    Cbc_solve(mp->m);
    if (Cbc_isProvenOptimal(mp->m))
        return MIP_SOLVED;
    if (Cbc_isProvenInfeasible(mp->m))
        return MIP_INFEASIBLE;
    if (Cbc_bestSolution(mp->m))
        return MIP_FEASIBLE_STOPPED;
    /* a finished search without a solution and without the flag */
    if (Cbc_status(mp->m) == 0 && Cbc_secondaryStatus(mp->m) == 1)
        return MIP_INFEASIBLE;
    return MIP_UNKNOWN;
}

/* ------------------------------------------------------------- search */

struct cut {
    int *alloc;                /* [B] block -> GPU */
    double T;                  /* proven for periods <= T (no-good) */
    double latency;            /* > 0: latency cut, exact at T */
};

enum iv_state {
    IV_OPEN,                   /* master at b not solved for this [a, b] */
    IV_SOLVED,                 /* solved: lb uses it; something fits at b */
    IV_FINAL                   /* too narrow to split and nothing left to learn */
};

struct interval {
    double a, b, lb;
    enum iv_state state;
};

struct search {
    const struct problem *pb;  /* layers */
    struct problem *bp;        /* blocks */
    const struct ilp_options *opt;
    struct ilp_stats *stats;
    double t0;
    double alpha, beta;
    double lat_floor;          /* no latency is below the total compute */
    double chain;              /* wait-free latency with every cut: T above it gains nothing */
    int B, P;
    int *sym;                  /* [P] 1 if GPU p and p-1 are interchangeable */
    struct plan *best;         /* layer-level incumbent */
    double best_obj;
    double bound;
    bool stopped;              /* limit or cancel: no optimality claim */
    bool warmed;               /* the baselines have been offered */
    bool failed;               /* CBC failed */
    struct cut *cuts;
    int ncuts, cuts_cap;
    struct interval *iv;
    int niv;
    double pruned_floor;       /* least bound of the intervals pruned as close enough */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double remaining(const struct search *s)
{
    if (s->opt->time_limit <= 0)
        return 1e9;
    return s->opt->time_limit - (now() - s->t0);
}

static bool should_stop(struct search *s)
{
    if ((s->opt->cancel && *s->opt->cancel) || remaining(s) <= 0.0)
        s->stopped = true;
    return s->stopped;
}

static void report(struct search *s, const struct plan *improved)
{
    if (!s->opt->on_progress)
        return;
    struct ilp_progress p = {
        .elapsed = now() - s->t0, .plan = improved, .objective = s->best_obj,
        .bound = s->bound,
    };
    s->opt->on_progress(s->opt->ctx, &p);
}

static double objective_of(const struct search *s, double T, double latency)
{
    return s->alpha * T + s->beta * latency;
}

/* Offer a layer-level plan as incumbent (copied if better). */
static void offer(struct search *s, const struct plan *pl)
{
    if (!pl || !pl->fits || pl->objective >= s->best_obj * (1 - 1e-12))
        return;
    struct sim_report rep;
    /* nothing the simulator rejects is ever shown */
    if (simulate_plan(pl, s->pb, &rep) != SIM_OK)
        return;
    struct plan *c = plan_copy(pl);
    if (!c)
        return;
    plan_free(s->best);
    s->best = c;
    s->best_obj = c->objective;
    if (s->warmed && s->stats->first_better_seconds < 0)
        s->stats->first_better_seconds = now() - s->t0;
    report(s, c);
}

/* ---- block plans to layer plans ---- */

/* Exact expansion: the layers of a block run back to back where the block
 * ran, so every lifetime, load and cut is at most the block's. */
static struct plan *expand_plan(const struct search *s, const struct plan *bpl)
{
    const struct problem *pb = s->pb, *bp = s->bp;
    struct plan *pl = plan_new(pb->L, pb->P);
    if (!pl)
        return NULL;
    pl->T = bpl->T;
    for (int i = 0; i < bp->L; i++) {
        double tf = bpl->start[i], tb = bpl->start[bp->L + i];
        for (int j = bp->first[i]; j < bp->first[i + 1]; j++) {
            pl->gpu[j] = bpl->gpu[i];
            pl->start[j] = tf;
            tf += pb->f[j];
        }
        for (int j = bp->first[i + 1] - 1; j >= bp->first[i]; j--) {
            pl->start[pb->L + j] = tb;
            tb += pb->b[j];
        }
    }
    double s0 = pl->start[0];
    for (int o = 0; o < 2 * pb->L; o++)
        pl->start[o] -= s0;
    plan_evaluate(pl, pb);
    return pl;
}

/* Layer-level local search around a plan: move a layer at a boundary to
 * its neighbour's GPU while that lowers the objective of a fitting plan. */
static void refine_layers(struct search *s, const struct plan *start)
{
    const struct problem *pb = s->pb;
    /* a bounded share of the time left: the MIPs prove, this only polishes */
    double deadline = now() + fmin(2.0, 0.25 * remaining(s));
    struct plan *cur = plan_copy(start);
    if (!cur)
        return;
    int *gpu = malloc((size_t)pb->L * sizeof *gpu);
    if (!gpu) {
        plan_free(cur);
        return;
    }
    bool improved = true;
    for (int round = 0; improved && round < 64 && !should_stop(s) && now() < deadline; round++) {
        improved = false;
        for (int j = 0; j + 1 < pb->L && !should_stop(s) && now() < deadline; j++) {
            if (cur->gpu[j] == cur->gpu[j + 1])
                continue;
            for (int side = 0; side < 2; side++) {
                memcpy(gpu, cur->gpu, (size_t)pb->L * sizeof *gpu);
                if (side == 0)
                    gpu[j] = cur->gpu[j + 1];
                else
                    gpu[j + 1] = cur->gpu[j];
                if (pb->layout == LAYOUT_CONTIGUOUS) {
                    struct plan probe = { .L = pb->L, .P = pb->P, .gpu = gpu };
                    if (!plan_is_contiguous(&probe))
                        continue;
                }
                /* no schedule beats its own loads: skip moves that cannot help */
                double floor_T = 0, lat = problem_compute_ms(pb);
                for (int p = 0; p < pb->P; p++) {
                    double load = 0, link = 0;
                    for (int i = 0; i < pb->L; i++) {
                        if (gpu[i] == p)
                            load += pb->f[i] + pb->b[i];
                        if (i + 1 < pb->L && (gpu[i] == p) != (gpu[i + 1] == p))
                            link += pb->c[i];
                    }
                    floor_T = fmax(floor_T, fmax(load, link));
                }
                for (int i = 0; i + 1 < pb->L; i++)
                    if (gpu[i] != gpu[i + 1])
                        lat += 2 * pb->c[i];
                if (objective_of(s, floor_T, lat) >= cur->objective * (1 - 1e-9))
                    continue;
                struct plan *cand = baseline_schedule_fitting(pb, gpu, 0);
                if (cand && cand->fits && cand->objective < cur->objective * (1 - 1e-9)) {
                    plan_free(cur);
                    cur = cand;
                    improved = true;
                    offer(s, cur);
                    break;
                }
                plan_free(cand);
            }
        }
    }
    free(gpu);
    plan_free(cur);
}

/* ---- the exact schedule of one block allocation at a fixed period ---- */

/* The schedule MIP over the operations that share a GPU: start times
 * t = k*T + r, a binary per same-GPU pair for which comes first modulo T,
 * in-flight counts, memory. Minimises the latency. Returns 1 with a
 * fitting schedule in pl, 0 when proven impossible, -1 when undecided. */
static int schedule_exact(struct search *s, struct plan *pl, double T)
{
    const struct problem *bp = s->bp;
    int L = bp->L, n = 2 * L;
    struct mip mp;
    if (mip_init(&mp, s->opt->threads, fmax(0.05, remaining(s))) != 0)
        return -1;
    /* waits beyond a period per operation never help */
    double span = 2.0 * n * T;
    int *t = malloc((size_t)n * sizeof *t);
    int *nn = malloc((size_t)L * 3 * sizeof *nn);
    if (!t || !nn) {
        free(t);
        free(nn);
        mip_free(&mp);
        return -1;
    }
    int *u = nn + L, *h = nn + 2 * L;
    double *est = malloc((size_t)n * sizeof *est);
    if (!est) {
        free(t);
        free(nn);
        mip_free(&mp);
        return -1;
    }
    /* earliest starts: the chain without waits */
    est[0] = 0;
    for (int i = 0; i + 1 < L; i++)
        est[i + 1] = est[i] + bp->f[i] + (pl->gpu[i] != pl->gpu[i + 1] ? bp->c[i] : 0.0);
    est[2 * L - 1] = est[L - 1] + bp->f[L - 1];
    for (int i = L - 2; i >= 0; i--)
        est[L + i] = est[L + i + 1] + bp->b[i + 1] +
                     (pl->gpu[i] != pl->gpu[i + 1] ? bp->c[i] : 0.0);
    /* Waits of a period or more never help (shift the rest of the chain
     * back by T: offsets stay, no lifetime grows), so the op at chain
     * position k starts within k periods of its earliest start. */
    for (int o = 0; o < n; o++) {
        int pos = o < L ? o : 3 * L - 1 - o;
        /* latency matters only to 1f1b; pipedream asks: any schedule? */
        t[o] = mip_col(&mp, est[o], est[o] + pos * T, o == L && s->beta > 0 ? 1.0 : 0.0, false);
    }
    /* chain order with transfers between GPUs */
    for (int i = 0; i + 1 < L; i++) {
        double c = pl->gpu[i] != pl->gpu[i + 1] ? bp->c[i] : 0.0;
        row_begin(&mp);
        row_add(&mp, t[i + 1], 1);
        row_add(&mp, t[i], -1);
        row_end(&mp, 'G', bp->f[i] + c);
        row_begin(&mp);
        row_add(&mp, t[L + i], 1);
        row_add(&mp, t[L + i + 1], -1);
        row_end(&mp, 'G', bp->b[i + 1] + c);
    }
    row_begin(&mp);
    row_add(&mp, t[2 * L - 1], 1);
    row_add(&mp, t[L - 1], -1);
    row_end(&mp, 'G', bp->f[L - 1]);
    /* one operation at a time modulo T on each GPU: for each pair an
     * integer y with t_q - t_o - y T in [d_o, T - d_q] */
    for (int o = 0; o < n; o++) {
        for (int q = o + 1; q < n; q++) {
            int lo = o < L ? o : o - L, lq = q < L ? q : q - L;
            if (pl->gpu[lo] != pl->gpu[lq])
                continue;
            double d_o = problem_op_duration(bp, o), d_q = problem_op_duration(bp, q);
            if (d_o <= 0 && d_q <= 0)
                continue;
            double ylo = floor((est[q] - (est[o] + o * T + T * n)) / T) - 1;
            double yhi = ceil((est[q] + T * n - est[o]) / T) + 1;
            int y = mip_col(&mp, ylo, yhi, 0, true);
            row_begin(&mp);
            row_add(&mp, t[q], 1);
            row_add(&mp, t[o], -1);
            row_add(&mp, y, -T);
            row_end(&mp, 'G', d_o);
            row_begin(&mp);
            row_add(&mp, t[q], 1);
            row_add(&mp, t[o], -1);
            row_add(&mp, y, -T);
            row_end(&mp, 'L', T - d_q);
        }
    }
    /* in-flight counts and the copies memory charges */
    bool flushed = bp->schedule == SPEC_SCHEDULE_1F1B;
    double wf = 0;      /* wait-free lifetime of block i's activation */
    for (int i = L - 1; i >= 0; i--) {
        wf += bp->f[i] + bp->b[i];
        if (i + 1 < L && pl->gpu[i] != pl->gpu[i + 1])
            wf += 2 * bp->c[i];
        double nmax = ceil((wf + span) / T) + 1;
        nn[i] = mip_col(&mp, fmax(1, ceil(wf / T - 1e-9)), nmax, 0, true);
        row_begin(&mp);
        row_add(&mp, nn[i], T);
        row_add(&mp, t[L + i], -1);
        row_add(&mp, t[i], 1);
        row_end(&mp, 'G', bp->b[i]);
        u[i] = nn[i];
        h[i] = -1;
        if (flushed && nmax > (double)bp->m) {
            u[i] = mip_col(&mp, 1, (double)bp->m, 0, true);
            h[i] = mip_col(&mp, 0, 1, 0, true);
            row_begin(&mp);          /* u >= n - (nmax - m) h */
            row_add(&mp, u[i], 1);
            row_add(&mp, nn[i], -1);
            row_add(&mp, h[i], nmax - (double)bp->m);
            row_end(&mp, 'G', 0);
            row_begin(&mp);          /* u >= m h */
            row_add(&mp, u[i], 1);
            row_add(&mp, h[i], -(double)bp->m);
            row_end(&mp, 'G', 0);
        }
    }
    for (int p = 0; p < bp->P; p++) {
        double fixed = bp->reserved[p];
        row_begin(&mp);
        for (int i = 0; i < L; i++) {
            if (pl->gpu[i] != p)
                continue;
            if (flushed) {
                fixed += bp->phi * bp->w[i];
                row_add(&mp, u[i], bp->s[i] / GB);
            } else {
                fixed += (bp->phi - 1) * bp->w[i];
                row_add(&mp, u[i], (bp->s[i] + bp->w[i]) / GB);
            }
        }
        for (int i = 0; i + 1 < L; i++)
            if ((pl->gpu[i] == p) != (pl->gpu[i + 1] == p))
                fixed += 2 * bp->a[i];
        row_end(&mp, 'L', (bp->cap[p] - fixed) / GB);
    }
    free(nn);
    free(est);
    s->stats->subproblems++;
    double t1 = now();
    enum mip_outcome out = mip_solve(&mp);
    s->stats->sub_seconds += now() - t1;
    int rc = -1;
    if (out == MIP_INFEASIBLE) {
        rc = 0;
    } else if (out == MIP_SOLVED || out == MIP_FEASIBLE_STOPPED) {
        const double *x = Cbc_getColSolution(mp.m);
        pl->T = T;
        for (int o = 0; o < n; o++)
            pl->start[o] = x[t[o]];
        plan_evaluate(pl, bp);
        rc = pl->fits ? 1 : -1;
    }
    free(t);
    mip_free(&mp);
    return rc;
}

/* ---- cuts ---- */

static void cut_add(struct search *s, const int *alloc, double T, double latency)
{
    if (s->ncuts == s->cuts_cap) {
        int cap = s->cuts_cap ? s->cuts_cap * 2 : 64;
        struct cut *nc = realloc(s->cuts, (size_t)cap * sizeof *nc);
        if (!nc)
            return;
        s->cuts = nc;
        s->cuts_cap = cap;
    }
    int *a = malloc((size_t)s->B * sizeof *a);
    if (!a)
        return;
    memcpy(a, alloc, (size_t)s->B * sizeof *a);
    s->cuts[s->ncuts++] = (struct cut){ a, T, latency };
    s->stats->cuts++;
}

/* Whether the allocation already has a latency cut exact at T. */
static bool cut_known(const struct search *s, const int *alloc, double T)
{
    for (int c = 0; c < s->ncuts; c++)
        if (s->cuts[c].latency > 0 && fabs(s->cuts[c].T - T) <= 1e-12 * T &&
            memcmp(s->cuts[c].alloc, alloc, (size_t)s->B * sizeof *alloc) == 0)
            return true;
    return false;
}

/* ---- the master ---- */

struct master {
    struct mip mp;
    int *x;                    /* [B*P] */
    int lam;                   /* latency column */
};

static int X(const struct search *s, int i, int p)
{
    return i * s->P + p;
}

/* Build the master for period T over [a, T]. */
static int master_build(struct search *s, struct master *ms, double a, double T)
{
    const struct problem *bp = s->bp;
    int B = s->B, P = s->P;
    bool flushed = bp->schedule == SPEC_SCHEDULE_1F1B;
    memset(ms, 0, sizeof *ms);
    /* one master may not eat the whole budget: stopped early it still
     * gives a bound and an allocation */
    double cap = s->opt->time_limit > 0 ? fmax(1.0, remaining(s) / 3) : 1e9;
    if (mip_init(&ms->mp, s->opt->threads, fmin(cap, fmax(0.05, remaining(s)))) != 0)
        return -1;
    struct mip *mp = &ms->mp;
    ms->x = malloc((size_t)B * P * sizeof *ms->x);
    int *z = malloc((size_t)B * sizeof *z);
    int *e = malloc((size_t)B * P * sizeof *e);
    int *n = malloc((size_t)B * sizeof *n);
    int *u = malloc((size_t)B * sizeof *u);
    double *W = malloc((size_t)(B + 1) * sizeof *W);
    double *C = malloc((size_t)(B + 1) * sizeof *C);
    if (!ms->x || !z || !e || !n || !u || !W || !C) {
        free(z), free(e), free(n), free(u), free(W), free(C);
        return -1;
    }
    /* suffix sums: compute and transfer if every cut were made */
    W[B] = C[B] = 0;
    for (int i = B - 1; i >= 0; i--) {
        W[i] = W[i + 1] + bp->f[i] + bp->b[i];
        C[i] = C[i + 1] + (i + 1 < B ? bp->c[i] : 0.0);
    }
    for (int i = 0; i < B; i++)
        for (int p = 0; p < P; p++)
            ms->x[X(s, i, p)] = mip_col(mp, 0, 1, 0, true);
    /* 1f1b minimises the latency; pipedream only asks for a fitting split */
    ms->lam = mip_col(mp, 0, 1e12, 1.0, false);
    for (int i = 0; i + 1 < B; i++)
        z[i] = mip_col(mp, 0, 1, 0, true);
    for (int i = 0; i + 1 < B; i++)
        for (int p = 0; p < P; p++)
            e[X(s, i, p)] = mip_col(mp, 0, 1, 0, false);
    /* each block on one GPU */
    for (int i = 0; i < B; i++) {
        row_begin(mp);
        for (int p = 0; p < P; p++)
            row_add(mp, ms->x[X(s, i, p)], 1);
        row_end(mp, 'E', 1);
    }
    /* cuts and the GPUs they touch */
    for (int i = 0; i + 1 < B; i++) {
        for (int p = 0; p < P; p++) {
            for (int dir = 0; dir < 2; dir++) {
                int xi = ms->x[X(s, i, p)], xj = ms->x[X(s, i + 1, p)];
                row_begin(mp);
                row_add(mp, z[i], 1);
                row_add(mp, dir ? xj : xi, -1);
                row_add(mp, dir ? xi : xj, 1);
                row_end(mp, 'G', 0);
                row_begin(mp);
                row_add(mp, e[X(s, i, p)], 1);
                row_add(mp, dir ? xj : xi, -1);
                row_add(mp, dir ? xi : xj, 1);
                row_end(mp, 'G', 0);
            }
        }
    }
    /* latency: Lambda >= compute + 2 * transfers (wait-free) */
    row_begin(mp);
    row_add(mp, ms->lam, 1);
    for (int i = 0; i + 1 < B; i++)
        row_add(mp, z[i], -2 * bp->c[i]);
    row_end(mp, 'G', W[0]);
    /* compute and link loads within the period */
    for (int p = 0; p < P; p++) {
        row_begin(mp);
        for (int i = 0; i < B; i++)
            row_add(mp, ms->x[X(s, i, p)], bp->f[i] + bp->b[i]);
        row_end(mp, 'L', T);
        row_begin(mp);
        for (int i = 0; i + 1 < B; i++)
            row_add(mp, e[X(s, i, p)], bp->c[i]);
        row_end(mp, 'L', T);
    }
    /* wait-free in-flight counts: n_i T >= W_i + 2 sum_{j>=i} c_j z_j */
    for (int i = 0; i < B; i++) {
        double nmax = fmax(1, ceil((W[i] + 2 * C[i]) / T - 1e-9));
        double nmin = fmax(1, ceil(W[i] / T - 1e-9));
        n[i] = mip_col(mp, nmin, nmax, 0, true);
        row_begin(mp);
        row_add(mp, n[i], T);
        for (int j = i; j + 1 < B; j++)
            row_add(mp, z[j], -2 * bp->c[j]);
        row_end(mp, 'G', W[i]);
        u[i] = n[i];
        if (flushed && nmax > (double)bp->m) {
            if (nmin >= (double)bp->m) {
                u[i] = mip_col(mp, (double)bp->m, (double)bp->m, 0, true);
            } else {
                u[i] = mip_col(mp, 1, (double)bp->m, 0, true);
                int hh = mip_col(mp, 0, 1, 0, true);
                row_begin(mp);
                row_add(mp, u[i], 1);
                row_add(mp, n[i], -1);
                row_add(mp, hh, nmax - (double)bp->m);
                row_end(mp, 'G', 0);
                row_begin(mp);
                row_add(mp, u[i], 1);
                row_add(mp, hh, -(double)bp->m);
                row_end(mp, 'G', 0);
            }
        }
    }
    /* memory: q_ip >= u_i - U_i (1 - x_ip) carries the copies to GPU p */
    for (int p = 0; p < P; p++) {
        int *q = malloc((size_t)B * sizeof *q);
        if (!q)
            break;
        for (int i = 0; i < B; i++) {
            double U = flushed ? fmin((double)bp->m,
                                      fmax(1, ceil((W[i] + 2 * C[i]) / T - 1e-9)))
                               : fmax(1, ceil((W[i] + 2 * C[i]) / T - 1e-9));
            q[i] = mip_col(mp, 0, U, 0, false);
            row_begin(mp);
            row_add(mp, q[i], 1);
            row_add(mp, u[i], -1);
            row_add(mp, ms->x[X(s, i, p)], -U);
            row_end(mp, 'G', -U);
        }
        row_begin(mp);
        for (int i = 0; i < B; i++) {
            double base = flushed ? bp->phi * bp->w[i] : (bp->phi - 1) * bp->w[i];
            double per = flushed ? bp->s[i] : bp->s[i] + bp->w[i];
            row_add(mp, ms->x[X(s, i, p)], base / GB);
            row_add(mp, q[i], per / GB);
        }
        for (int i = 0; i + 1 < B; i++)
            row_add(mp, e[X(s, i, p)], 2 * bp->a[i] / GB);
        row_end(mp, 'L', (bp->cap[p] - bp->reserved[p]) / GB);
        free(q);
    }
    /* identical GPUs are used in order of their first block */
    for (int p = 1; p < P; p++) {
        if (!s->sym[p])
            continue;
        for (int i = 0; i < B; i++) {
            row_begin(mp);
            row_add(mp, ms->x[X(s, i, p)], 1);
            for (int j = 0; j < i; j++)
                row_add(mp, ms->x[X(s, j, p - 1)], -1);
            row_end(mp, 'L', 0);
        }
    }
    /* contiguous: each GPU holds one run of blocks */
    if (bp->layout == LAYOUT_CONTIGUOUS) {
        for (int p = 0; p < P; p++) {
            int *st = malloc((size_t)B * sizeof *st);
            if (!st)
                break;
            for (int i = 0; i < B; i++) {
                st[i] = mip_col(mp, 0, 1, 0, false);
                row_begin(mp);
                row_add(mp, st[i], 1);
                row_add(mp, ms->x[X(s, i, p)], -1);
                if (i > 0)
                    row_add(mp, ms->x[X(s, i - 1, p)], 1);
                row_end(mp, 'G', 0);
            }
            row_begin(mp);
            for (int i = 0; i < B; i++)
                row_add(mp, st[i], 1);
            row_end(mp, 'L', 1);
            free(st);
        }
    }
    /* no-goods and latency cuts on allocations already judged */
    for (int c = 0; c < s->ncuts; c++) {
        const struct cut *ct = &s->cuts[c];
        if (ct->latency > 0) {
            if (ct->T < T - 1e-12)
                continue;
            double lat = ct->latency * a / ct->T;
            row_begin(mp);       /* Lambda >= lat - lat * (B - matches) */
            row_add(mp, ms->lam, 1);
            for (int i = 0; i < B; i++)
                row_add(mp, ms->x[X(s, i, ct->alloc[i])], -lat);
            row_end(mp, 'G', lat - lat * B);
        } else {
            if (ct->T < T - 1e-12)
                continue;
            row_begin(mp);
            for (int i = 0; i < B; i++)
                row_add(mp, ms->x[X(s, i, ct->alloc[i])], 1);
            row_end(mp, 'L', B - 1);
        }
    }
    if (s->stats->cols < mp->cols) {
        s->stats->cols = mp->cols;
        s->stats->rows = mp->rows;
        s->stats->integers = mp->ints;
    }
    free(z), free(e), free(n), free(u), free(W), free(C);
    return 0;
}

static void master_free(struct master *ms)
{
    mip_free(&ms->mp);
    free(ms->x);
}

/* Judge the allocation the master chose at period T: a fitting schedule
 * (list scheduler, else exact MIP) or a no-good. Returns 1 fits, 0 cut
 * off, -1 undecided. */
static int judge(struct search *s, const int *alloc, double a, double T)
{
    const struct problem *bp = s->bp;
    struct plan *pl = plan_new(bp->L, bp->P);
    if (!pl)
        return -1;
    memcpy(pl->gpu, alloc, (size_t)bp->L * sizeof *alloc);
    int rc = -1;
    bool fits = schedule_build_at(pl, bp, T) == 0 && pl->fits;
    if (!fits || s->beta > 0) {
        /* exact: does any schedule fit, and with what least latency */
        struct plan *ex = plan_copy(pl);
        int e = ex ? schedule_exact(s, ex, T) : -1;
        if (e == 1 && (!fits || ex->latency < pl->latency)) {
            plan_free(pl);
            pl = ex;
            ex = NULL;
            fits = true;
        } else if (e == 0) {
            fits = false;
        } else if (e < 0 && !fits) {
            plan_free(ex);
            plan_free(pl);
            return -1;
        }
        plan_free(ex);
        if (s->beta > 0 && e == 1)
            cut_add(s, alloc, T, pl->latency);
    }
    if (!fits) {
        cut_add(s, alloc, T, 0);
        rc = 0;
    } else {
        rc = 1;
        /* No schedule of this allocation runs below its own compute and
         * link loads; when that is below T, ask the exact schedule there,
         * so optima sitting on a load are found exactly, not approached. */
        double need = 0;
        for (int p = 0; p < bp->P; p++)
            need = fmax(need, fmax(pl->gpus[p].load_ms,
                                   fmax(pl->gpus[p].send_ms, pl->gpus[p].recv_ms)));
        if (need < T * (1 - 1e-9)) {
            struct plan *at = plan_copy(pl);
            if (at && schedule_exact(s, at, need) == 1 &&
                at->objective < pl->objective) {
                plan_free(pl);
                pl = at;
                at = NULL;
            }
            plan_free(at);
        }
        /* the same allocation may do better at its own shortest period */
        struct plan *own = baseline_schedule_fitting(bp, alloc, 0);
        struct plan *use = own && own->fits && own->objective < pl->objective ? own : pl;
        struct plan *layer = expand_plan(s, use);
        if (layer) {
            /* refining costs schedules: only a new best plan */
            bool promising = layer->fits && layer->objective < s->best_obj * (1 - 1e-9);
            offer(s, layer);
            if (promising) {
                double t1 = now();
                refine_layers(s, layer);
                s->stats->refine_seconds += now() - t1;
            }
        }
        plan_free(layer);
        plan_free(own);
        (void)a;
    }
    plan_free(pl);
    return rc;
}

/* Solve the master at the right end of an interval; updates it. Returns 0,
 * or -1 when the search must stop. */
static int interval_solve(struct search *s, struct interval *iv)
{
    for (int round = 0; round < 10000; round++) {
        if (should_stop(s))
            return -1;
        struct master ms;
        if (master_build(s, &ms, iv->a, iv->b) != 0) {
            s->failed = true;
            return -1;
        }
        s->stats->masters++;
        double t1 = now();
        enum mip_outcome out = mip_solve(&ms.mp);
        s->stats->master_seconds += now() - t1;
        if (out == MIP_INFEASIBLE) {
            master_free(&ms);
            iv->lb = INFINITY;
            iv->state = IV_FINAL;
            return 0;
        }
        if (out == MIP_UNKNOWN) {
            master_free(&ms);
            s->stopped = true;
            return -1;
        }
        /* Stopped early with a solution: its allocation is still worth
         * judging, and CBC's proven bound still bounds the interval. */
        const double *x = Cbc_getColSolution(ms.mp.m);
        double lam = out == MIP_SOLVED ? x[ms.lam] : Cbc_getBestPossibleObjValue(ms.mp.m);
        int *alloc = malloc((size_t)s->B * sizeof *alloc);
        if (!alloc) {
            master_free(&ms);
            return -1;
        }
        for (int i = 0; i < s->B; i++) {
            alloc[i] = 0;
            for (int p = 0; p < s->P; p++)
                if (x[ms.x[X(s, i, p)]] > 0.5)
                    alloc[i] = p;
        }
        master_free(&ms);
        iv->lb = fmax(iv->lb, objective_of(s, iv->a, fmax(lam, s->lat_floor)));
        /* An allocation whose exact latency at b is already a cut: the
         * master cannot learn more at this [a, b]. */
        if (s->beta > 0 && cut_known(s, alloc, iv->b)) {
            free(alloc);
            iv->state = IV_SOLVED;
            return 1;
        }
        int j = judge(s, alloc, iv->a, iv->b);
        free(alloc);
        if (j < 0) {
            s->stopped = true;
            return -1;
        }
        if (j == 1) {
            iv->state = IV_SOLVED;
            return 0;
        }
        /* cut off: solve again at the same period */
    }
    s->stopped = true;
    return -1;
}

static void update_bound(struct search *s)
{
    /* intervals pruned for being within the gap still bound the optimum */
    double lb = fmin(s->best_obj, s->pruned_floor);
    for (int k = 0; k < s->niv; k++)
        if (s->iv[k].lb < lb)
            lb = s->iv[k].lb;
    if (lb > s->bound) {
        s->bound = lb;
        report(s, NULL);
    }
}

static void intervals_prune(struct search *s)
{
    int w = 0;
    for (int k = 0; k < s->niv; k++) {
        if (isfinite(s->iv[k].lb) && s->iv[k].lb < s->best_obj * (1 - ILP_GAP))
            s->iv[w++] = s->iv[k];
        else if (isfinite(s->iv[k].lb))
            s->pruned_floor = fmin(s->pruned_floor, s->iv[k].lb);
    }
    s->niv = w;
}

static void search_run(struct search *s, double t_lo, double t_hi)
{
    s->iv = malloc(MAX_INTERVALS * sizeof *s->iv);
    if (!s->iv)
        return;
    s->niv = 1;
    s->iv[0] = (struct interval){ t_lo, t_hi, objective_of(s, t_lo, s->lat_floor), IV_OPEN };
    update_bound(s);
    while (!should_stop(s)) {
        /* the open interval with the least bound */
        int k = -1;
        for (int j = 0; j < s->niv; j++)
            if (s->iv[j].state != IV_FINAL && (k < 0 || s->iv[j].lb < s->iv[k].lb))
                k = j;
        if (k < 0)
            break;
        struct interval *iv = &s->iv[k];
        bool narrow = iv->b - iv->a <= T_RESOLUTION * iv->b || s->niv >= MAX_INTERVALS;
        if (iv->state == IV_OPEN) {
            int rc = interval_solve(s, iv);
            if (rc < 0)
                break;
            if (rc == 1 && narrow)
                iv->state = IV_FINAL;
        } else if (!narrow) {
            /* split: the left half is open; the right half keeps the
             * master's latency bound and, for 1f1b, is re-solved with its
             * larger a, which tightens the latency cuts */
            double mid = (iv->a + iv->b) / 2;
            double lam = s->beta > 0 ? (iv->lb - s->alpha * iv->a) / s->beta : s->lat_floor;
            struct interval right = { mid, iv->b, objective_of(s, mid, lam),
                                      s->beta > 0 ? IV_OPEN : IV_SOLVED };
            iv->b = mid;
            iv->state = IV_OPEN;
            iv->lb = objective_of(s, iv->a, s->lat_floor);
            s->iv[s->niv++] = right;
        } else {
            /* narrow: for 1f1b another master round may tighten the
             * latency; otherwise its bound is final */
            iv->state = s->beta > 0 ? IV_OPEN : IV_FINAL;
            if (s->beta > 0) {
                int rc = interval_solve(s, iv);
                if (rc < 0)
                    break;
                if (rc == 1)
                    iv->state = IV_FINAL;
            }
        }
        intervals_prune(s);
        update_bound(s);
    }
}

/* ----------------------------------------------------------- entry */

void ilp_options_init(struct ilp_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->time_limit = 10;
    opt->threads = 1;
    opt->blocks = -1;
}

int ilp_default_blocks(const struct problem *pb)
{
    int b = pb->P <= 4 ? 12 : 16;
    return b < pb->L ? b : pb->L;
}

/* Best fitting baseline (or the warm plan) as the first incumbent. */
static void warm_start(struct search *s)
{
    const struct plan *warm = s->opt->warm;
    if (warm && warm->L == s->pb->L && warm->P == s->pb->P &&
        (s->pb->layout == LAYOUT_ANY || plan_is_contiguous(warm)))
        offer(s, warm);
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result res;
        if (planner_run(planner_name(i), s->pb, &res) == 0 && res.plan && res.plan->fits &&
            (s->pb->layout == LAYOUT_ANY || plan_is_contiguous(res.plan)))
            offer(s, res.plan);
        planner_result_clear(&res);
    }
}

int ilp_solve(const struct problem *pb, const struct ilp_options *opt,
              struct planner_result *res, struct ilp_stats *stats)
{
    struct ilp_options defaults;
    struct ilp_stats local;
    if (!opt) {
        ilp_options_init(&defaults);
        opt = &defaults;
    }
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    stats->first_better_seconds = -1;
    memset(res, 0, sizeof *res);
    res->planner = "ilp";
    res->bound = NAN;
    res->believed_fit = true;
    if (!pb || pb->L < 1 || pb->P < 1)
        return -1;

    struct search s;
    memset(&s, 0, sizeof s);
    s.pb = pb;
    s.opt = opt;
    s.stats = stats;
    s.t0 = now();
    s.best_obj = INFINITY;
    s.bound = -INFINITY;
    s.pruned_floor = INFINITY;
    bool flushed = pb->schedule == SPEC_SCHEDULE_1F1B;
    s.alpha = flushed ? (double)(pb->m - 1) : 1.0;
    s.beta = flushed ? 1.0 : 0.0;
    int blocks = opt->blocks < 0 ? ilp_default_blocks(pb) : opt->blocks;
    s.bp = problem_coarsen(pb, blocks);
    if (!s.bp) {
        res->status = PLAN_ERROR;
        snprintf(res->message, sizeof res->message, "out of memory");
        return 0;
    }
    s.B = s.bp->L;
    s.P = s.bp->P;
    stats->blocks = s.B;
    s.sym = calloc((size_t)s.P, sizeof *s.sym);
    for (int p = 1; s.sym && p < s.P; p++)
        s.sym[p] = s.bp->cap[p] == s.bp->cap[p - 1] && s.bp->reserved[p] == s.bp->reserved[p - 1];
    s.lat_floor = problem_compute_ms(s.bp);
    s.chain = s.lat_floor;
    for (int i = 0; i + 1 < s.B; i++)
        s.chain += 2 * s.bp->c[i];

    warm_start(&s);
    s.warmed = true;
    /* The least period: compute over the GPUs, the largest block; above
     * the whole chain's length nothing improves. */
    double t_lo = problem_lower_bound(s.bp);
    double t_hi = fmax(s.chain, t_lo);
    if (isfinite(s.best_obj) && s.alpha > 0)
        t_hi = fmin(t_hi, (s.best_obj - s.beta * s.lat_floor) / s.alpha);
    if (t_hi < t_lo) {
        /* the incumbent already meets the bound */
        s.bound = s.best_obj;
    } else if (s.sym) {
        search_run(&s, t_lo, t_hi);
    } else {
        s.failed = true;
    }
    update_bound(&s);

    res->seconds = now() - s.t0;
    res->blocks = s.B;
    res->bound = isfinite(s.bound) ? s.bound : NAN;
    if (s.best) {
        res->plan = s.best;
        s.best = NULL;
        double gap = (res->plan->objective - s.bound) / res->plan->objective;
        res->status = gap <= ILP_GAP && !s.failed ? PLAN_OPTIMAL
                      : s.stopped ? PLAN_TIMEOUT : PLAN_FEASIBLE;
        if (res->status == PLAN_OPTIMAL && gap < 0)
            res->bound = res->plan->objective;
    } else if (!s.stopped && !s.failed) {
        res->status = PLAN_INFEASIBLE;
        snprintf(res->message, sizeof res->message,
                 "no plan of the %d blocks fits: proven infeasible", s.B);
    } else {
        res->status = s.failed ? PLAN_ERROR : PLAN_TIMEOUT;
        snprintf(res->message, sizeof res->message, s.failed ? "the MIP solver failed"
                 : "no fitting plan found before the time limit");
    }
    if (res->status == PLAN_INFEASIBLE || (!res->plan && res->status == PLAN_TIMEOUT)) {
        /* show what the best baseline would need */
        struct planner_result b;
        if (planner_run("dp", pb, &b) == 0) {
            res->plan = b.plan;
            res->believed_fit = false;
        }
    }
    for (int c = 0; c < s.ncuts; c++)
        free(s.cuts[c].alloc);
    free(s.cuts);
    free(s.iv);
    free(s.sym);
    problem_free(s.bp);
    plan_free(s.best);
    return 0;
}
