/* stages: the best contiguous pipeline whose stages run back to back
 * (doc/model.md section 5.6). */
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"
#include "schedule.h"

/* Points of each pass of the period search, and the grid points each
 * refining pass looks around. */
#define GRID 32
#define KEEP 3
#define PASSES 3

struct stages {
    const struct problem *pb;
    int L, P;
    int *ord;            /* [P] GPU of each stage slot, first stage first */
    double *pf, *pbk;    /* [L+1] prefix sums of f and b */
    double *best;        /* [(P+1)(L+1)]: least lifetime of layer i when the
                            layers i.. run on the last q stage slots */
    int *cut;            /* [(P+1)(L+1)]: the end of that first stage */
    long steps, work;
};

/* The least x' >= x whose phase x' mod T lies in [lo, T - hi]: where a
 * stretch of length hi may start after one of length lo that starts at 0
 * without the two overlapping modulo T. */
static double phase_at_least(double x, double T, double lo, double hi)
{
    double k = floor(x / T);
    double r = x - k * T;
    if (r < lo)
        return k * T + lo;
    if (r <= T - hi + 1e-12 * T)
        return x;
    return (k + 1) * T + lo;
}

static int copies(const struct problem *pb, int n)
{
    return pb->schedule == SPEC_SCHEDULE_PIPEDREAM || n < pb->m ? n : (int)pb->m;
}

/* Whether the stage i..r-1 fits on GPU g when its backwards start phi
 * after its first forward: summed as plan_evaluate() does, so that the
 * two agree to the last bit. */
static bool stage_fits(struct stages *st, int i, int r, double phi, double T, int g)
{
    const struct problem *pb = st->pb;
    double weights = 0, acts = 0, cap = pb->cap[g];
    double bufs = (i > 0 ? 2.0 * pb->a[i - 1] : 0) + (r < st->L ? 2.0 * pb->a[r - 1] : 0);
    for (int j = i; j < r; j++) {
        double life = phi - (st->pf[j] - st->pf[i]) + (st->pbk[r] - st->pbk[j]);
        int n = plan_inflight_count(life, T);
        int v = pb->schedule == SPEC_SCHEDULE_PIPEDREAM ? n : 1;
        weights += (pb->phi + v - 1) * pb->w[j];
        acts += pb->s[j] * copies(pb, n);
        if (weights + acts > cap)
            break;      /* every term is >= 0: it cannot come back */
    }
    st->steps += r - i;
    return weights + acts + bufs + pb->reserved[g] <= cap;
}

/* The least latency at period T (INFINITY: none fits), with the cuts
 * that give it in st->cut. */
static double stages_dp(struct stages *st, double T)
{
    const struct problem *pb = st->pb;
    int L = st->L, P = st->P, W = L + 1;
    for (int k = 0; k < (P + 1) * W; k++)
        st->best[k] = INFINITY;
    st->best[L] = 0;            /* q = 0: nothing left */
    for (int q = 1; q <= P; q++) {
        int g = st->ord[P - q];
        for (int i = L - 1; i >= 0; i--) {
            double cur = INFINITY;
            int at = -1;
            for (int r = i + 1; r <= L; r++) {
                double sF = st->pf[r] - st->pf[i], sB = st->pbk[r] - st->pbk[i];
                if (sF + sB > T)
                    break;
                /* the budget binds inside a period too: a file of many
                 * thousands of short layers */
                if (++st->steps > st->work)
                    return INFINITY;
                double D = 0;
                if (r < L) {
                    double next = st->best[(q - 1) * W + r];
                    if (!isfinite(next))
                        continue;
                    D = 2 * pb->c[r - 1] + next;
                }
                if ((i > 0 ? pb->c[i - 1] : 0) + (r < L ? pb->c[r - 1] : 0) > T)
                    continue;
                /* the last backward waits until its stretch fits beside
                 * the forwards' modulo T */
                double phi = phase_at_least(sF + D, T, sF, sB);
                if (phi + sB >= cur || !stage_fits(st, i, r, phi, T, g))
                    continue;
                cur = phi + sB;
                at = r;
            }
            st->best[q * W + i] = cur;
            st->cut[q * W + i] = at;
        }
    }
    double v = INFINITY;
    for (int q = 1; q <= P; q++)
        v = fmin(v, st->best[q * W]);
    return v;
}

static double objective(const struct problem *pb, double T, double latency)
{
    if (!isfinite(latency))
        return INFINITY;
    double alpha, beta;
    problem_objective_weights(pb, &alpha, &beta);
    return alpha * T + beta * latency;
}

/* The plan of the cuts the last stages_dp() left, at period T. */
static struct plan *stages_build(struct stages *st, double T)
{
    const struct problem *pb = st->pb;
    int L = st->L, P = st->P, W = L + 1, q = 0;
    for (int k = 1; k <= P; k++)
        if (isfinite(st->best[k * W]) && (q == 0 || st->best[k * W] < st->best[q * W]))
            q = k;
    if (q == 0)
        return NULL;
    struct plan *pl = plan_new(L, P);
    int *from = malloc((size_t)(P + 1) * sizeof *from);
    double *t0 = malloc((size_t)(P + 1) * sizeof *t0);
    if (!pl || !from || !t0) {
        plan_free(pl);
        free(from);
        free(t0);
        return NULL;
    }
    pl->T = T;
    /* forwards: each stage back to back, then the transfer */
    int n = 0;
    double t = 0;
    for (int i = 0, k = q; i < L; k--) {
        int r = st->cut[k * W + i];
        from[n] = i;
        t0[n++] = t;
        for (int j = i; j < r; j++) {
            pl->gpu[j] = st->ord[P - k];
            pl->start[j] = t;
            t += pb->f[j];
        }
        t += r < L ? pb->c[r - 1] : 0;
        i = r;
    }
    from[n] = L;
    /* backwards: from the last stage, each at its first allowed phase */
    double back = 0;
    for (int k = n - 1; k >= 0; k--) {
        int i = from[k], r = from[k + 1];
        double sF = st->pf[r] - st->pf[i], sB = st->pbk[r] - st->pbk[i];
        double x = t0[k] + phase_at_least(k == n - 1 ? sF : back - t0[k], T, sF, sB);
        for (int j = r - 1; j >= i; j--) {
            pl->start[L + j] = x;
            x += pb->b[j];
        }
        back = x + (i > 0 ? pb->c[i - 1] : 0);
    }
    free(from);
    free(t0);
    if (plan_evaluate(pl, pb) != 0 || !pl->fits) {
        plan_free(pl);
        return NULL;
    }
    return pl;
}

static void stages_free(struct stages *st)
{
    free(st->ord);
    free(st->pf);
    free(st->best);
    free(st->cut);
}

static int stages_init(struct stages *st, const struct problem *pb, long work)
{
    int L = pb->L, P = pb->P;
    memset(st, 0, sizeof *st);
    st->pb = pb;
    st->L = L;
    st->P = P;
    st->work = work > 0 ? work : STAGES_WORK;
    st->ord = malloc((size_t)P * sizeof *st->ord);
    st->pf = malloc((size_t)2 * (L + 1) * sizeof *st->pf);
    st->best = malloc((size_t)(P + 1) * (L + 1) * sizeof *st->best);
    st->cut = malloc((size_t)(P + 1) * (L + 1) * sizeof *st->cut);
    if (!st->ord || !st->pf || !st->best || !st->cut) {
        stages_free(st);
        return -1;
    }
    st->pbk = st->pf + L + 1;
    st->pf[0] = st->pbk[0] = 0;
    for (int i = 0; i < L; i++) {
        st->pf[i + 1] = st->pf[i] + pb->f[i];
        st->pbk[i + 1] = st->pbk[i] + pb->b[i];
    }
    /* GPUs differ only in their room: with any layout the first stages,
     * which keep the most in flight, go to the roomiest (stable order) */
    for (int p = 0; p < P; p++)
        st->ord[p] = p;
    if (pb->layout == LAYOUT_ANY)
        for (int p = 1; p < P; p++)
            for (int k = p; k > 0; k--) {
                int a = st->ord[k - 1], b = st->ord[k];
                if (pb->cap[b] - pb->reserved[b] <= pb->cap[a] - pb->reserved[a])
                    break;
                st->ord[k - 1] = b;
                st->ord[k] = a;
            }
    return 0;
}

struct plan *stages_plan(const struct problem *pb, double cutoff, long work)
{
    if (!pb || pb->L < 1 || pb->P < 1)
        return NULL;
    struct stages st;
    if (stages_init(&st, pb, work) != 0)
        return NULL;
    int L = pb->L;
    /* no shorter period than the schedule builder's (a chain of no time) */
    double lo = fmax(problem_lower_bound(pb), SCHEDULE_MIN_T), hi = 0;
    for (int i = 0; i < L; i++)
        hi += pb->f[i] + pb->b[i] + 2 * pb->c[i];
    hi = fmax(hi, lo);
    double best_t = NAN, best_v = INFINITY;
    long budget = st.work;
    st.work = budget - budget / 4;      /* a quarter for closing in, below */
    /* a grid over [lo, hi], then grids over a step either side of the
     * KEEP best points of the pass before */
    double keep[KEEP], vals[KEEP], step = 0, prev = lo, lat_min = st.pbk[L] + st.pf[L];
    int nk = 0;
    for (int pass = 0; pass <= PASSES && hi >= lo && st.steps <= st.work; pass++) {
        double around[KEEP];
        int runs = pass == 0 ? 1 : nk;
        memcpy(around, keep, sizeof keep);
        nk = 0;
        double width = step;
        step = 0;
        for (int k = 0; k < runs && st.steps <= st.work; k++) {
            double x0 = pass == 0 ? lo : fmax(lo, around[k] - width);
            double x1 = pass == 0 ? hi : fmin(hi, around[k] + width);
            for (int g = 0; g < GRID; g++) {
                if (pass == 0 && isfinite(fmin(best_v, cutoff))) {
                    /* no period past the best's, less the least latency
                     * (all the compute), can beat it: the rest of the
                     * grid spreads over what is left */
                    double v = fmin(best_v, cutoff);
                    double t = pb->schedule == SPEC_SCHEDULE_PIPEDREAM ? v
                               : pb->m > 1 ? (v - lat_min) / (double)(pb->m - 1) : INFINITY;
                    if (t < x1)
                        x1 = hi = fmax(t, prev);
                }
                /* evenly over [prev, x1]: the plain grid while x1 stays */
                double T = g == 0 ? x0 : prev + (x1 - prev) / (GRID - g);
                /* the next pass looks a widest spacing either side */
                step = fmax(step, T - (g == 0 ? T : prev));
                prev = T;
                double v = objective(pb, T, stages_dp(&st, T));
                if (st.steps > st.work)
                    break;
                if (v < best_v) {
                    best_v = v;
                    best_t = T;
                }
                if (!isfinite(v))
                    continue;
                /* insert into the pass's KEEP best, least first */
                int pos = nk < KEEP ? nk++ : KEEP;
                for (; pos > 0 && vals[pos - 1] > v; pos--)
                    if (pos < KEEP) {
                        vals[pos] = vals[pos - 1];
                        keep[pos] = keep[pos - 1];
                    }
                if (pos < KEEP) {
                    vals[pos] = v;
                    keep[pos] = T;
                }
            }
        }
        if (nk == 0)
            break;
    }
    st.work = budget;
    /* the best usually sits just above a period where a wait or a copy
     * appears: close in on it from the grid point below */
    for (double a = fmax(lo, best_t - step), b = best_t;
         isfinite(best_v) && b - a > 1e-12 * b && st.steps <= st.work;) {
        double mid = (a + b) / 2, v = objective(pb, mid, stages_dp(&st, mid));
        if (v < best_v && st.steps <= st.work) {
            best_v = v;
            best_t = b = mid;
        } else {
            a = mid;
        }
    }
    struct plan *pl = NULL;
    if (best_v < cutoff) {
        st.work = LONG_MAX;     /* the winner's cuts again, whatever the budget */
        stages_dp(&st, best_t);
        pl = stages_build(&st, best_t);
    }
    stages_free(&st);
    return pl;
}

double stages_latency(const struct problem *pb, double T)
{
    struct stages st;
    if (!pb || pb->L < 1 || pb->P < 1 || !(T > 0) || stages_init(&st, pb, LONG_MAX) != 0)
        return INFINITY;
    double v = stages_dp(&st, T);
    stages_free(&st);
    return v;
}
