/* cyclic: the least span of a GPU's operations under periodicity (see
 * cyclic.h). A disjunctive temporal problem: each pair's start-to-start
 * time lies in one of its zones [k T + d_a, (k + 1) T - d_b]. The
 * search keeps the tightest bounds between every two starts (a closed
 * distance matrix), rounds each pair's bounds into its zones, fixes a pair
 * met by one zone only, and branches on a pair met by several, the
 * earliest zone first. */
#include "cyclic.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Zones are widened by this (times the period): a wider zone only
 * weakens the bound, never makes it wrong. */
#define CYCLIC_EPS 1e-9

struct search {
    int n;
    double t1, t2, eps;
    const double *d;
    const int *grp;            /* [n] or NULL: pairs of two groups never clash */
    double *D;                 /* per depth: D[i n + j] >= s_j - s_i */
    long nodes, max_nodes;
    long steps;                /* zones tried */
    double best;               /* least span found, or hi */
    double root;               /* the bounds' span before any branch */
    bool stopped;
};

int cyclic_init(struct cyclic *cy)
{
    cy->D = malloc((size_t)CYCLIC_DEPTH * CYCLIC_OPS * CYCLIC_OPS * sizeof *cy->D);
    cy->steps = 0;
    return cy->D ? 0 : -1;
}

void cyclic_free(struct cyclic *cy)
{
    free(cy->D);
    cy->D = NULL;
}

/* s_v - s_u <= w into the closed matrix D (every path through the new
 * arc); false when it closes a negative cycle (no schedule). *moved is set
 * when it tightens D by more than eps. */
static bool arc_tighten(double *D, int n, int u, int v, double w, double eps, bool *moved)
{
    if (!(w < D[u * n + v] - eps))
        return true;
    if (w + D[v * n + u] < -eps)
        return false;
    *moved = true;
    for (int i = 0; i < n; i++) {
        double iu = D[i * n + u];
        if (iu == INFINITY)
            continue;
        for (int j = 0; j < n; j++) {
            double x = iu + w + D[v * n + j];
            if (x < D[i * n + j])
                D[i * n + j] = x;
        }
    }
    return true;
}

static bool arc_add(double *D, int n, int u, int v, double w, double eps)
{
    bool moved = false;
    return arc_tighten(D, n, u, v, w, eps, &moved);
}

/* The span the bounds in D allow at least. */
static double span_of(const struct search *s, const double *D)
{
    return -D[(s->n - 1) * s->n] + s->d[s->n - 1];
}

/* Zone k of pair (a, b): [*zs, *ze]. */
static void zone_k(const struct search *s, int a, int b, double k, double *zs, double *ze)
{
    *zs = k * s->t1 + s->d[a] - s->eps;
    *ze = (k + 1) * s->t2 - s->d[b] + s->eps;
}

/* Rounds every pair's bounds into its zones until nothing moves; a pair
 * met by one zone gets that zone's bounds. Returns false when some pair
 * has no zone left; else the pair met by the fewest zones (at least two)
 * in *ba, *bb, or -1 when every pair lies inside one zone. */
static bool propagate(struct search *s, double *D, int *ba, int *bb)
{
    int n = s->n;
    for (;;) {
        bool changed = false;
        int fewest = 1 << 30;
        *ba = *bb = -1;
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++) {
                if (s->grp && s->grp[a] != s->grp[b])
                    continue;
                double lo = -D[b * n + a], hi = D[a * n + b], zs, ze;
                /* the first zone that ends at or after lo */
                double k = fmax(0, ceil((lo + s->d[b] - s->eps) / s->t2) - 1);
                zone_k(s, a, b, k, &zs, &ze);
                if (zs > hi)
                    return false;
                if (zs <= lo + s->eps && hi <= ze + s->eps)
                    continue;
                if (zs > lo + s->eps) {         /* lo in a gap: up to the zone */
                    if (!arc_tighten(D, n, b, a, -zs, s->eps, &changed))
                        return false;
                    lo = zs;
                }
                /* the last zone that starts at or before hi */
                double kl = floor((hi - s->d[a] + s->eps) / s->t1), ls, le;
                zone_k(s, a, b, kl, &ls, &le);
                if (le < hi - s->eps) {         /* hi in a gap: down to the zone */
                    if (!arc_tighten(D, n, a, b, le, s->eps, &changed))
                        return false;
                    hi = le;
                }
                if (zs <= lo + s->eps && hi <= ze + s->eps)
                    continue;
                int meet = kl > k + 1 ? 3 : 2;
                if (kl <= k) {                  /* one zone: its bounds */
                    if (!arc_tighten(D, n, a, b, ze, s->eps, &changed))
                        return false;
                } else if (meet < fewest) {
                    fewest = meet;
                    *ba = a;
                    *bb = b;
                }
            }
        if (!changed)
            return true;
    }
}

static void search_dfs(struct search *s, int depth)
{
    int n = s->n;
    double *D = s->D + (size_t)depth * (size_t)(n * n);
    if (++s->nodes > s->max_nodes || depth + 1 >= CYCLIC_DEPTH) {
        s->stopped = true;
        return;
    }
    int ba, bb;
    if (!propagate(s, D, &ba, &bb))
        return;
    double lb = span_of(s, D);
    if (depth == 0)
        s->root = fmax(s->root, lb);
    if (lb >= s->best - s->eps)
        return;
    if (ba < 0) {
        s->best = lb;          /* every pair inside one zone: the earliest starts */
        return;
    }
    double lo = -D[bb * n + ba], hi = D[ba * n + bb];
    double *C = D + (size_t)(n * n);
    for (double k = fmax(0, ceil((lo + s->d[bb] - s->eps) / s->t2) - 1);
         k * s->t1 + s->d[ba] - s->eps <= hi && !s->stopped; k++) {
        double zs, ze;
        zone_k(s, ba, bb, k, &zs, &ze);
        s->steps++;
        memcpy(C, D, (size_t)(n * n) * sizeof *C);
        /* below the best span found, in zone k */
        if (!arc_add(C, n, 0, n - 1, s->best - s->d[n - 1] - s->eps, s->eps))
            return;
        /* no later zone either: each starts later still (with many
         * micro-batches the pair's own bound, from a loose cutoff, spans
         * some 10^5 zones that the best span rules out one by one) */
        if (zs > C[ba * n + bb] + s->eps)
            break;
        if (arc_add(C, n, ba, bb, ze, s->eps) && arc_add(C, n, bb, ba, -zs, s->eps))
            search_dfs(s, depth + 1);
    }
}

double cyclic_span(struct cyclic *cy, int n, const double *d, const double *g,
                   double t1, double t2, double hi, long max_nodes)
{
    return cyclic_span_groups(cy, n, d, g, NULL, t1, t2, hi, max_nodes);
}

double cyclic_span_groups(struct cyclic *cy, int n, const double *d, const double *g,
                          const int *grp, double t1, double t2, double hi, long max_nodes)
{
    if (n <= 0 || n > CYCLIC_OPS || !(t1 > 0) || t2 < t1)
        return 0;
    struct search s = { .n = n, .t1 = t1, .t2 = t2, .eps = CYCLIC_EPS * t2, .d = d,
                        .grp = grp, .D = cy->D, .max_nodes = max_nodes, .best = hi };
    double *D = cy->D;
    for (int i = 0; i < n * n; i++)
        D[i] = INFINITY;
    for (int i = 0; i < n; i++)
        D[i * n + i] = 0;
    bool ok = true;
    for (int j = 0; j + 1 < n && ok; j++)
        ok = arc_add(D, n, j + 1, j, -(d[j] + g[j]), s.eps);
    if (ok && isfinite(hi))
        ok = arc_add(D, n, 0, n - 1, hi - d[n - 1], s.eps);
    if (!ok)
        return hi;
    s.root = span_of(&s, D);
    search_dfs(&s, 0);
    cy->steps = s.steps;
    return s.stopped ? fmin(s.root, s.best) : s.best;
}
