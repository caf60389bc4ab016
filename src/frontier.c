/* frontier: caps to plot and the curves' bookkeeping (see frontier.h). */
#include "frontier.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

/* The i-th round step in GiB: 1/4, 1/2, then 1, 2, 5 times powers of ten. */
static double step_gib(int i)
{
    if (i == 0)
        return 0.25;
    if (i == 1)
        return 0.5;
    static const double mant[3] = { 1, 2, 5 };
    return mant[(i - 2) % 3] * pow(10, (i - 2) / 3);
}

int frontier_caps(double fit, double all, int nmax, double *cap)
{
    if (!(fit > 0) || !(all > 0) || !isfinite(fit) || !isfinite(all) || nmax < 2)
        return -1;
    if (nmax > FRONTIER_MAX_CAPS)
        nmax = FRONTIER_MAX_CAPS;
    if (all < fit)
        all = fit;
    for (int i = 0;; i++) {
        double s = step_gib(i) * GIB;
        /* the last multiple strictly below fit, the first at or above all */
        double k0 = ceil(fit / s) - 1, k1 = ceil(all / s);
        if (k0 < 1)
            k0 = 1;
        if (k1 < k0 + 1)
            k1 = k0 + 1;
        if (k1 - k0 + 1 > nmax)
            continue;
        int n = (int)(k1 - k0) + 1;
        for (int k = 0; k < n; k++)
            cap[k] = (k0 + k) * s;
        return n;
    }
}

void frontier_init(struct frontier *f, const double *cap, int ncap,
                   const char *const *planners, int nplanners)
{
    memset(f, 0, sizeof *f);
    f->ncap = ncap < 0 ? 0 : ncap > FRONTIER_MAX_CAPS ? FRONTIER_MAX_CAPS : ncap;
    for (int k = 0; k < f->ncap; k++)
        f->cap[k] = cap[k];
    f->nplanner = nplanners < 0 ? 0 : nplanners > FRONTIER_MAX_PLANNERS ? FRONTIER_MAX_PLANNERS
                                                                        : nplanners;
    for (int i = 0; i < f->nplanner; i++) {
        f->planner[i] = planners[i];
        for (int k = 0; k < FRONTIER_MAX_CAPS; k++)
            f->pt[i][k].objective = NAN;
    }
}

int frontier_planner(const struct frontier *f, const char *name)
{
    for (int i = 0; i < f->nplanner; i++)
        if (strcmp(f->planner[i], name) == 0)
            return i;
    return -1;
}

void frontier_set(struct frontier *f, int planner, int k, enum plan_status status,
                  const struct plan *pl)
{
    if (planner < 0 || planner >= f->nplanner || k < 0 || k >= f->ncap)
        return;
    struct frontier_point *p = &f->pt[planner][k];
    p->done = true;
    p->status = status;
    p->fits = pl && pl->fits;
    p->objective = p->fits ? pl->objective : NAN;
}

int frontier_done(const struct frontier *f, int planner)
{
    int n = 0;
    for (int i = 0; i < f->nplanner; i++)
        if (planner < 0 || planner == i)
            for (int k = 0; k < f->ncap; k++)
                n += f->pt[i][k].done;
    return n;
}

int frontier_stop(const struct frontier *f, int planner)
{
    if (planner < 0 || planner >= f->nplanner)
        return -1;
    bool fit_above = false;
    for (int k = f->ncap - 1; k >= 0; k--) {
        const struct frontier_point *p = &f->pt[planner][k];
        if (!p->done)
            continue;
        if (p->fits)
            fit_above = true;
        else
            return fit_above ? k : -1;
    }
    return -1;
}

bool frontier_range(const struct frontier *f, double *lo, double *hi)
{
    bool any = false;
    for (int i = 0; i < f->nplanner; i++)
        for (int k = 0; k < f->ncap; k++) {
            const struct frontier_point *p = &f->pt[i][k];
            if (!p->done || !p->fits)
                continue;
            if (!any || p->objective < *lo)
                *lo = p->objective;
            if (!any || p->objective > *hi)
                *hi = p->objective;
            any = true;
        }
    return any;
}

int frontier_nearest(const struct frontier *f, double cap)
{
    int best = 0;
    for (int k = 1; k < f->ncap; k++)
        if (fabs(f->cap[k] - cap) < fabs(f->cap[best] - cap))
            best = k;
    return best;
}

int frontier_col(const struct frontier *f, int k, int n)
{
    if (f->ncap < 2 || n < 2)
        return 0;
    long d = f->ncap - 1;
    return (int)(((long)k * (n - 1) * 2 + d) / (2 * d));
}

int frontier_cap_col(const struct frontier *f, double cap, int n)
{
    if (f->ncap < 1 || n < 1)
        return 0;
    double a = f->cap[0], b = f->cap[f->ncap - 1];
    if (cap < a)
        return -1;
    if (cap > b)
        return n;
    if (b <= a)
        return 0;
    return (int)lround((cap - a) / (b - a) * (n - 1));
}

int frontier_row(double v, double lo, double hi, int n)
{
    if (n < 2)
        return 0;
    if (!(hi > lo))
        return (n - 1) / 2;
    int r = (int)lround((hi - v) / (hi - lo) * (n - 1));
    return r < 0 ? 0 : r > n - 1 ? n - 1 : r;
}
