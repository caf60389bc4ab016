/* schedule: periodic list scheduling of one micro-batch's chain
 * F_0..F_{L-1}, B_{L-1}..B_0 (doc/model.md section 2).
 *
 * Each operation goes at the earliest time after its predecessor (plus the
 * transfer when the two sit on different GPUs) at which its interval,
 * taken modulo T, misses every operation already on its GPU. Two passes
 * then shrink activation lifetimes without touching validity: forward ops
 * move as late as their successors allow, backward ops as early as their
 * predecessors allow. Finally a small local search inserts deliberate
 * waits earlier in the chain when that lowers memory (a wait before F_j
 * only lengthens the lifetimes of layers below j, while the wait the list
 * scheduler was forced into later may lengthen more of them). */
#include "schedule.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slack when comparing offsets: far below PLAN_EPS so a checker using
 * PLAN_EPS accepts what is built here, far above rounding noise. Beyond
 * periods of a second it grows with the period, as the checker's does:
 * at 2 x 10^12 ms a double resolves 0.2 us, and an absolute slack of
 * 10^-8 ms failed every placement (every baseline returned no plan). */
#define SCHED_EPS (PLAN_EPS * 1e-2)

static inline double sched_eps(double T)
{
    return T > 1e3 ? SCHED_EPS * 1e-3 * T : SCHED_EPS;
}
#define SCHED_MIN_T SCHEDULE_MIN_T
/* Bound on the local search, in interval comparisons, so large chains
 * stay interactive; the search is deterministic within it. */
#define SCHED_WORK 4000000L
#define SCHED_ROUNDS 8
#define SCHED_WAITS 6
/* Buckets are at least this many SCHED_EPS wide, so rounding moves a
 * point by less than a bucket. */
#define GRID_MIN_WIDTH 16.0
/* The ordered sets look this many times the scheduler's slack beyond an
 * interval, far more than rounding moves a point. */
#define TREE_SLACK 16.0

/* The reference search (every op against every op) everywhere, for tests. */
static bool sched_reference;

/* A node of a bucket's list: op o, valid while its version is current. */
struct gnode {
    int op, ver, next;
};

/* Grids: per GPU, [0, T) cut into nb[p] buckets of width T / nb[p]. The
 * cover grid lists each op in every bucket its interval touches, the ends
 * and starts grids list it in the bucket of its end and of its start.
 * An op that moves gets a new version; its old nodes are skipped. */
enum { GRID_COVER, GRID_ENDS, GRID_STARTS, GRID_KINDS };

struct sched {
    const struct problem *pb;
    struct plan *pl;
    int L, P, n;             /* n = 2L operations */
    double T;
    int *order;              /* [n] chain position -> operation */
    double *delay;           /* [n] extra wait forced before a position */
    double *off;             /* [n] start modulo T, per operation */
    int *count;              /* [P] operations placed per GPU */
    int *base;               /* [P] where each GPU's run starts in slot */
    int *slot;               /* [n] operations placed, grouped by GPU */
    long work;
    bool packed;             /* place flush against other ops only */
    int fail_gpu;            /* where the last place() gave up */
    double fail_dur;
    bool counting;           /* the local search counts work */
    int *nz;                 /* [P] ops with a duration placed per GPU */
    bool tree;               /* this period's searches: ordered sets, not grids */
    double *busy;            /* [P] the durations of each GPU's ops, summed */
    int *nb;                 /* [P] buckets per GPU */
    int *hbase;              /* [P] where each GPU's buckets start */
    int *head[GRID_KINDS];   /* [sum nb] first node of each bucket, -1 */
    int *ver;                /* [n] current version of each op */
    struct gnode *pool;
    int npool, cappool;
    bool oom;                /* the grids are out of date: use the reference */
    /* per GPU, the ops placed in order of offset: a treap over the ops */
    int *root;               /* [P] the top op, -1 when none */
    int *tcnt;               /* [P] ops in each GPU's set */
    int *tl, *tr, *tp;       /* [n] left, right, parent, -1 when none */
    double *tkey;            /* [n] the offset an op was filed at */
    bool *filed;             /* [n] whether an op is in its GPU's set */
};

/* Offsets and their differences are within a period or two of 0, where
 * the result is fmod's to the bit (x - T is exact for x in [T, 2T) by
 * Sterbenz's lemma, and fmod is x itself inside (-T, T)) at a fraction of
 * its cost: the list scheduler spends most of its time here. */
static inline double mod_t(double x, double T)
{
    double r = x > -T && x < T ? x : x >= T && x < 2 * T ? x - T : fmod(x, T);
    if (r < 0.0)
        r += T;
    if (r >= T)
        r -= T;
    return r;
}

/* How far forward from a to b around the period T; b equal to a up to
 * rounding reads as no way at all, not a whole period (a wait of 0). */
static double mod_ahead(double a, double b, double T)
{
    double delta = mod_t(b - a, T);
    return delta > T - sched_eps(T) ? 0.0 : delta;
}

static int op_layer(const struct sched *s, int o)
{
    return o < s->L ? o : o - s->L;
}

static int op_gpu(const struct sched *s, int o)
{
    return s->pl->gpu[op_layer(s, o)];
}

static double op_dur(const struct sched *s, int o)
{
    return problem_op_duration(s->pb, o);
}

/* Transfer time of cut i, or 0 when both sides share a GPU. */
static double cut_ms(const struct sched *s, int i)
{
    return s->pl->gpu[i] != s->pl->gpu[i + 1] ? s->pb->c[i] : 0.0;
}

/* Transfer between chain positions k-1 and k (k >= 1). */
static double chain_gap(const struct sched *s, int k)
{
    if (k < s->L)
        return cut_ms(s, k - 1);
    if (k == s->L)
        return 0.0;
    return cut_ms(s, 2 * s->L - 1 - k);
}

static double chain_ready(const struct sched *s, int k)
{
    if (k == 0)
        return 0.0;
    int prev = s->order[k - 1];
    return s->pl->start[prev] + op_dur(s, prev) + chain_gap(s, k);
}

/* Whether [y, y+d) and [r, r+e) modulo T share any instant. Empty
 * intervals only clash with the inside of another one. */
static inline bool clash(double y, double d, double r, double e, double T)
{
    double eps = sched_eps(T);
    if (d <= eps && e <= eps)
        return false;
    if (d <= eps) {
        double x = mod_t(y - r, T);
        return x > eps && x < e - eps;
    }
    if (e <= eps) {
        double x = mod_t(r - y, T);
        return x > eps && x < d - eps;
    }
    double x = mod_t(r - y, T);
    return !(x >= d - eps && x <= T - e + eps);
}

static bool sched_free(struct sched *s, int p, double y, double d, int skip)
{
    const int *ops = s->slot + s->base[p];
    s->work += s->count[p];
    for (int j = 0; j < s->count[p]; j++) {
        int o = ops[j];
        if (o != skip && clash(y, d, s->off[o], op_dur(s, o), s->T))
            return false;
    }
    return true;
}

/* Earliest t >= ready at which an op of length d fits on p. Loose: at
 * ready itself or where some op ends. Packed: only flush against an op
 * (where one ends, or ending where one starts), so free time is not cut
 * into holes too short for what comes later; ready itself only on a GPU
 * with nothing on it yet. NAN when nothing fits. */
static double earliest_ref(struct sched *s, int p, double ready, double d, int skip,
                           bool packed)
{
    double x0 = mod_t(ready, s->T);
    const int *ops = s->slot + s->base[p];
    bool empty = true;
    for (int j = 0; j < s->count[p] && empty; j++)
        if (ops[j] != skip && op_dur(s, ops[j]) > sched_eps(s->T))
            empty = false;
    if ((!packed || empty || d <= sched_eps(s->T)) && sched_free(s, p, x0, d, skip))
        return ready;
    double best = INFINITY;
    for (int j = 0; j < s->count[p]; j++) {
        int o = ops[j];
        if (o == skip)
            continue;
        for (int side = 0; side < (packed ? 2 : 1); side++) {
            double y = side == 0 ? mod_t(s->off[o] + op_dur(s, o), s->T)
                                 : mod_t(s->off[o] - d, s->T);
            double delta = mod_ahead(x0, y, s->T);
            if (delta >= best)
                continue;
            if (sched_free(s, p, y, d, skip))
                best = delta;
        }
    }
    return isfinite(best) ? ready + best : NAN;
}

/* Latest t in [lo, hi] at which the op fits on p: hi itself or a start
 * that ends where some op begins. lo is known to fit. */
static double latest_ref(struct sched *s, int p, double lo, double hi, double d, int skip)
{
    double xh = mod_t(hi, s->T);
    if (sched_free(s, p, xh, d, skip))
        return hi;
    const int *ops = s->slot + s->base[p];
    double best = INFINITY;
    for (int j = 0; j < s->count[p]; j++) {
        int o = ops[j];
        if (o == skip)
            continue;
        double y = mod_t(s->off[o] - d, s->T);
        double delta = mod_ahead(y, xh, s->T);
        if (delta >= best || hi - delta < lo)
            continue;
        if (sched_free(s, p, y, d, skip))
            best = delta;
    }
    return isfinite(best) ? hi - best : lo;
}

static void sched_set(struct sched *s, int o, double t)
{
    s->pl->start[o] = t;
    s->off[o] = mod_t(t, s->T);
}

/* ---- the grids: the same searches in time near-linear in the ops ----
 * The reference functions above test every candidate against every op
 * of the GPU: quadratic per op, cubic per schedule. The ops on a GPU
 * never clash with each other (each was placed where it fits), so a
 * bucket holds a few of them; a test looks only at the buckets its
 * interval touches, one more on each side for rounding, and the
 * candidates are taken bucket by bucket in order of their wait, stopping
 * once a bucket's waits exceed the best found by a whole bucket. Every
 * test is the same clash() on the same numbers, so the result is the
 * reference's to the bit (tests/test_engine.c compares them). */

static int grid_bucket(const struct sched *s, int p, double x)
{
    int nb = s->nb[p];
    int b = (int)(x / s->T * nb);
    return b < 0 ? 0 : b >= nb ? nb - 1 : b;
}

static int grid_wrap(int b, int nb)
{
    b %= nb;
    return b < 0 ? b + nb : b;
}

/* Size the buckets for period s->T and empty every grid. */
static void grid_reset(struct sched *s)
{
    int total = 0;
    double most = floor(s->T / (GRID_MIN_WIDTH * sched_eps(s->T)));
    for (int p = 0; p < s->P; p++) {
        int share = (p + 1 < s->P ? s->base[p + 1] : s->n) - s->base[p];
        int want = 2 * share + 1;
        if ((double)want > most)
            want = most >= 1.0 ? (int)most : 1;
        s->nb[p] = want;
        s->hbase[p] = total;
        total += want;
    }
    for (int g = 0; g < GRID_KINDS; g++)
        memset(s->head[g], 0xff, (size_t)total * sizeof *s->head[g]);
    memset(s->nz, 0, (size_t)s->P * sizeof *s->nz);
    memset(s->ver, 0, (size_t)s->n * sizeof *s->ver);
    s->npool = 0;
    s->oom = false;
}

static int grid_push(struct sched *s, int g, int p, int b, int o)
{
    if (s->npool == s->cappool) {
        int cap = s->cappool ? 2 * s->cappool : 1024;
        struct gnode *np = s->cappool < INT_MAX / 2 ? realloc(s->pool, (size_t)cap * sizeof *np)
                                                    : NULL;
        if (!np)
            return -1;
        s->pool = np;
        s->cappool = cap;
    }
    int *h = &s->head[g][s->hbase[p] + b];
    s->pool[s->npool] = (struct gnode){ o, s->ver[o], *h };
    *h = s->npool++;
    return 0;
}

static int grid_file(struct sched *s, int p, int o)
{
    double d = op_dur(s, o), off = s->off[o];
    int nb = s->nb[p];
    s->ver[o]++;
    int b1 = grid_bucket(s, p, off), b2 = grid_bucket(s, p, mod_t(off + d, s->T));
    int span = d <= sched_eps(s->T) ? 1 : grid_wrap(b2 - b1, nb) + 1;
    if (d > sched_eps(s->T) && d + 2.0 * s->T / nb >= s->T)
        span = nb;
    for (int k = 0; k < span && k < nb; k++)
        if (grid_push(s, GRID_COVER, p, grid_wrap(b1 + k, nb), o) != 0)
            return -1;
    if (grid_push(s, GRID_ENDS, p, b2, o) != 0 || grid_push(s, GRID_STARTS, p, b1, o) != 0)
        return -1;
    return 0;
}

/* File op o (on GPU p) at its current offset; its older nodes go stale.
 * Out of memory, the grids are given up for the reference. */
static void grid_add(struct sched *s, int p, int o)
{
    if (s->oom || grid_file(s, p, o) != 0)
        s->oom = true;
}

static bool grid_free(const struct sched *s, int p, double y, double d, int skip)
{
    int nb = s->nb[p];
    int b1 = grid_bucket(s, p, y), b2 = grid_bucket(s, p, mod_t(y + d, s->T));
    int span = grid_wrap(b2 - b1, nb) + 3;
    if (span > nb || d + 2.0 * s->T / nb >= s->T)
        span = nb;
    const int *head = s->head[GRID_COVER] + s->hbase[p];
    for (int k = 0; k < span; k++) {
        for (int i = head[grid_wrap(b1 - 1 + k, nb)]; i >= 0; i = s->pool[i].next) {
            int o = s->pool[i].op;
            if (o != skip && s->pool[i].ver == s->ver[o] &&
                clash(y, d, s->off[o], op_dur(s, o), s->T))
                return false;
        }
    }
    return true;
}

/* ---- the ordered sets: the same searches in time near-linear in the ops ----
 * The reference functions above test every candidate against every op
 * of the GPU: quadratic per op, cubic per schedule. Here each GPU's ops
 * are kept in order of their offset (a treap whose priorities are hashed
 * from the op, so the shape is deterministic). The ops on a GPU never
 * clash with each other (each was placed where it fits), so an interval
 * can only clash with the ops that start inside it (give or take a
 * slack for rounding) and with the nearest op of some length that starts
 * before it, and the empty ones between: an op of some length that
 * starts earlier still ends before that one starts, to within the
 * scheduler's slack. The candidates are taken in order of their wait and
 * the search stops once the next one's wait, less the slack, is above
 * the best found. Every test is the same clash() on the same numbers, so
 * the result is the reference's to the bit (tests/test_engine.c compares
 * them). They serve where the grids above do not (index_reset()): the
 * grids' buckets, of a uniform width over the period, held every op of a
 * GPU in one or two of them when the period was set by transfers of
 * hours and the ops took milliseconds (1000 layers on 3 GPUs scanned
 * 3.9e9 bucket entries in 22 M tests). */

static inline double tree_slack(double T)
{
    return TREE_SLACK * sched_eps(T);
}

static unsigned tree_pri(int o)
{
    unsigned x = (unsigned)o * 2654435761u;
    x ^= x >> 16;
    x *= 2246822519u;
    x ^= x >> 13;
    return x;
}

/* The order: offset as filed, then op. */
static bool tree_less(const struct sched *s, int a, int b)
{
    return s->tkey[a] < s->tkey[b] || (s->tkey[a] == s->tkey[b] && a < b);
}

/* x's parent (or GPU p's root) takes y in x's place. */
static void tree_relink(struct sched *s, int p, int x, int y)
{
    int g = s->tp[x];
    if (g < 0)
        s->root[p] = y;
    else if (s->tl[g] == x)
        s->tl[g] = y;
    else
        s->tr[g] = y;
    if (y >= 0)
        s->tp[y] = g;
}

/* Rotate x above its parent. */
static void tree_rotate_up(struct sched *s, int p, int x)
{
    int y = s->tp[x];
    tree_relink(s, p, y, x);
    if (s->tl[y] == x) {
        s->tl[y] = s->tr[x];
        if (s->tr[x] >= 0)
            s->tp[s->tr[x]] = y;
        s->tr[x] = y;
    } else {
        s->tr[y] = s->tl[x];
        if (s->tl[x] >= 0)
            s->tp[s->tl[x]] = y;
        s->tl[x] = y;
    }
    s->tp[y] = x;
}

static void tree_insert(struct sched *s, int p, int o)
{
    int cur = s->root[p], par = -1;
    bool left = false;
    s->tl[o] = s->tr[o] = -1;
    while (cur >= 0) {
        par = cur;
        left = tree_less(s, o, cur);
        cur = left ? s->tl[cur] : s->tr[cur];
    }
    s->tp[o] = par;
    if (par < 0)
        s->root[p] = o;
    else if (left)
        s->tl[par] = o;
    else
        s->tr[par] = o;
    while (s->tp[o] >= 0 && tree_pri(o) > tree_pri(s->tp[o]))
        tree_rotate_up(s, p, o);
    s->tcnt[p]++;
}

static void tree_remove(struct sched *s, int p, int o)
{
    while (s->tl[o] >= 0 && s->tr[o] >= 0)
        tree_rotate_up(s, p, tree_pri(s->tl[o]) >= tree_pri(s->tr[o]) ? s->tl[o] : s->tr[o]);
    tree_relink(s, p, o, s->tl[o] >= 0 ? s->tl[o] : s->tr[o]);
    s->tcnt[p]--;
}

static int tree_first(const struct sched *s, int p)
{
    int x = s->root[p];
    while (x >= 0 && s->tl[x] >= 0)
        x = s->tl[x];
    return x;
}

static int tree_last(const struct sched *s, int p)
{
    int x = s->root[p];
    while (x >= 0 && s->tr[x] >= 0)
        x = s->tr[x];
    return x;
}

static int tree_next(const struct sched *s, int x)
{
    if (s->tr[x] >= 0) {
        x = s->tr[x];
        while (s->tl[x] >= 0)
            x = s->tl[x];
        return x;
    }
    while (s->tp[x] >= 0 && s->tr[s->tp[x]] == x)
        x = s->tp[x];
    return s->tp[x];
}

static int tree_prev(const struct sched *s, int x)
{
    if (s->tl[x] >= 0) {
        x = s->tl[x];
        while (s->tr[x] >= 0)
            x = s->tr[x];
        return x;
    }
    while (s->tp[x] >= 0 && s->tl[s->tp[x]] == x)
        x = s->tp[x];
    return s->tp[x];
}

/* The first op of p filed at x or later, -1 if none. */
static int tree_lower(const struct sched *s, int p, double x)
{
    int best = -1;
    for (int c = s->root[p]; c >= 0;) {
        if (s->tkey[c] >= x) {
            best = c;
            c = s->tl[c];
        } else {
            c = s->tr[c];
        }
    }
    return best;
}

/* Empty every GPU's set. */
static void tree_reset(struct sched *s)
{
    for (int p = 0; p < s->P; p++) {
        s->root[p] = -1;
        s->tcnt[p] = 0;
    }
    memset(s->filed, 0, (size_t)s->n * sizeof *s->filed);
    memset(s->nz, 0, (size_t)s->P * sizeof *s->nz);
}

/* File op o (on GPU p) at its current offset, in place of where it was. */
static void tree_add(struct sched *s, int p, int o)
{
    if (s->filed[o])
        tree_remove(s, p, o);
    s->tkey[o] = s->off[o];
    s->filed[o] = true;
    tree_insert(s, p, o);
}

/* Steps around GPU p's ops in circular order; *wrap becomes T (forward)
 * or -T (backward) once the step passes the end of [0, T). */
static int tree_step(const struct sched *s, int p, int o, bool forward, double *wrap)
{
    int x = forward ? tree_next(s, o) : tree_prev(s, o);
    if (x < 0) {
        x = forward ? tree_first(s, p) : tree_last(s, p);
        *wrap = forward ? s->T : -s->T;
    }
    return x;
}

static bool tree_clear(const struct sched *s, int p, double y, double d, int skip)
{
    int cnt = s->tcnt[p];
    double T = s->T, eps = sched_eps(T), m = tree_slack(T);
    if (cnt == 0)
        return true;
    /* an op of no length clashes only with the inside of one of some
     * length: with none filed, nothing to walk (a network of layers that
     * take no time walked every op at every placement, quadratic) */
    if (d <= eps && s->nz[p] - (skip >= 0 && op_dur(s, skip) > eps) == 0)
        return true;
    if (d + 2.0 * m >= T) {
        for (int o = tree_first(s, p); o >= 0; o = tree_next(s, o))
            if (o != skip && clash(y, d, s->off[o], op_dur(s, o), T))
                return false;
        return true;
    }
    /* the ops that start in [y - m, y + d + m] */
    double a = mod_t(y - m, T), end = a + d + 2.0 * m, wrap = 0.0;
    int start = tree_lower(s, p, a), o = start, k = 0;
    if (o < 0) {
        o = tree_first(s, p);
        wrap = T;
    }
    for (; k < cnt && s->tkey[o] + wrap <= end; k++) {
        if (o != skip && clash(y, d, s->off[o], op_dur(s, o), T))
            return false;
        o = tree_step(s, p, o, true, &wrap);
    }
    /* then back from y - m, down to the first op of some length */
    o = start >= 0 ? tree_prev(s, start) : tree_last(s, p);
    for (; k < cnt; k++) {
        if (o < 0)
            o = tree_last(s, p);
        if (o != skip && clash(y, d, s->off[o], op_dur(s, o), T))
            return false;
        if (op_dur(s, o) > eps)
            break;
        o = tree_prev(s, o);
    }
    return true;
}

/* One candidate start y for earliest: its wait from x0, kept when it is
 * below *best and free. */
static void earliest_try(const struct sched *s, int p, double x0, double y, double d, int skip,
                         double *best)
{
    double delta = mod_ahead(x0, y, s->T);
    if (delta < *best && (s->tree ? tree_clear(s, p, y, d, skip) : grid_free(s, p, y, d, skip)))
        *best = delta;
}

/* One candidate start y for latest: how far it lies back from xh (hi
 * mod T), kept when that is below *best, not back past lo, and free. */
static void latest_try(const struct sched *s, int p, double lo, double hi, double xh, double y,
                       double d, int skip, double *best)
{
    double delta = mod_ahead(y, xh, s->T);
    if (!(delta >= *best || hi - delta < lo) &&
        (s->tree ? tree_clear(s, p, y, d, skip) : grid_free(s, p, y, d, skip)))
        *best = delta;
}

/* The candidates of one kind (op ends, or op starts less d) from the op
 * filed at a or after it, in order, while their wait from x0 (at least
 * the op's offset less a less m) can still beat *best. */
static void earliest_walk(const struct sched *s, int p, double a, double x0, double d, int skip,
                          bool ends, double *best)
{
    double T = s->T, m = tree_slack(T), wrap = 0.0;
    int o = tree_lower(s, p, a);
    if (o < 0) {
        o = tree_first(s, p);
        wrap = T;
    }
    for (int k = 0; k < s->tcnt[p] && s->tkey[o] + wrap - a - 2.0 * m <= *best; k++) {
        if (o != skip) {
            double y = ends ? mod_t(s->off[o] + op_dur(s, o), T) : mod_t(s->off[o] - d, T);
            earliest_try(s, p, x0, y, d, skip, best);
        }
        o = tree_step(s, p, o, true, &wrap);
    }
}

static double earliest_tree(struct sched *s, int p, double ready, double d, int skip,
                            bool packed)
{
    double T = s->T, eps = sched_eps(T), m = tree_slack(T);
    double x0 = mod_t(ready, T);
    int cnt = s->tcnt[p];
    int nz = s->nz[p] - (skip >= 0 && op_dur(s, skip) > eps);
    if ((!packed || nz == 0 || d <= eps) && tree_clear(s, p, x0, d, skip))
        return ready;
    double best = INFINITY;
    if (cnt > 0) {
        /* an op that starts before x0 - m and ends past it is the nearest
         * one of some length before it (the empty ones between end where
         * they start) */
        double a = mod_t(x0 - m, T);
        int start = tree_lower(s, p, a);
        int o = start >= 0 ? tree_prev(s, start) : tree_last(s, p);
        for (int k = 0; k < cnt; k++) {
            if (o < 0)
                o = tree_last(s, p);
            if (o != skip)
                earliest_try(s, p, x0, mod_t(s->off[o] + op_dur(s, o), T), d, skip, &best);
            if (op_dur(s, o) > eps)
                break;
            o = tree_prev(s, o);
        }
        earliest_walk(s, p, a, x0, d, skip, true, &best);
        if (packed)
            earliest_walk(s, p, mod_t(x0 + d - m, T), x0, d, skip, false, &best);
    }
    return isfinite(best) ? ready + best : NAN;
}

static double latest_tree(struct sched *s, int p, double lo, double hi, double d, int skip)
{
    double T = s->T, m = tree_slack(T);
    double xh = mod_t(hi, T);
    if (tree_clear(s, p, xh, d, skip))
        return hi;
    int cnt = s->tcnt[p];
    double best = INFINITY;
    /* starts y = off - d, back from an op filed below c: the wait
     * xh - y is at least c less the op's offset less m */
    double c = mod_t(xh + d + m, T);
    double reach = hi - lo + 1e-15 * (fabs(hi) + fabs(lo)), wrap = 0.0;
    int j = cnt > 0 ? tree_lower(s, p, c) : -1;
    int o = j >= 0 ? tree_prev(s, j) : tree_last(s, p);
    if (o < 0 && cnt > 0) {
        o = tree_last(s, p);
        wrap = -T;
    }
    for (int k = 0; k < cnt; k++) {
        double lb = c - (s->tkey[o] + wrap) - 2.0 * m;
        if (lb > best || lb > reach)
            break;
        if (o != skip)
            latest_try(s, p, lo, hi, xh, mod_t(s->off[o] - d, T), d, skip, &best);
        o = tree_step(s, p, o, false, &wrap);
    }
    return isfinite(best) ? hi - best : lo;
}

static void earliest_bucket(const struct sched *s, int g, int p, int b, double x0, double d,
                            int skip, double *best)
{
    const int *head = s->head[g] + s->hbase[p];
    for (int i = head[grid_wrap(b, s->nb[p])]; i >= 0; i = s->pool[i].next) {
        int o = s->pool[i].op;
        if (o == skip || s->pool[i].ver != s->ver[o])
            continue;
        double y = g == GRID_ENDS ? mod_t(s->off[o] + op_dur(s, o), s->T)
                                  : mod_t(s->off[o] - d, s->T);
        earliest_try(s, p, x0, y, d, skip, best);
    }
}

static double earliest_grid(struct sched *s, int p, double ready, double d, int skip,
                            bool packed)
{
    double x0 = mod_t(ready, s->T);
    int nz = s->nz[p] - (skip >= 0 && op_dur(s, skip) > sched_eps(s->T));
    if ((!packed || nz == 0 || d <= sched_eps(s->T)) && grid_free(s, p, x0, d, skip))
        return ready;
    int nb = s->nb[p];
    double w = s->T / nb;
    /* a start y = off - d of the starts grid lies in bucket
     * bucket(off) - shift or one below */
    int shift = (int)(d / w);
    int b0 = grid_bucket(s, p, x0);
    double best = INFINITY;
    /* step k takes the candidates in end bucket b0 + k and start bucket
     * b0 + k + shift + 1: none seen later waits less than (k - 1) w */
    for (int k = -2; k <= nb + 2; k++) {
        earliest_bucket(s, GRID_ENDS, p, b0 + k, x0, d, skip, &best);
        if (packed) {
            if (k == -2)
                earliest_bucket(s, GRID_STARTS, p, b0 + k + shift, x0, d, skip, &best);
            earliest_bucket(s, GRID_STARTS, p, b0 + k + shift + 1, x0, d, skip, &best);
        }
        if (best < (k - 2) * w)
            break;
    }
    return isfinite(best) ? ready + best : NAN;
}

static double latest_grid(struct sched *s, int p, double lo, double hi, double d, int skip)
{
    double xh = mod_t(hi, s->T);
    if (grid_free(s, p, xh, d, skip))
        return hi;
    int nb = s->nb[p];
    double w = s->T / nb;
    int shift = (int)(d / w);
    int b0 = grid_bucket(s, p, xh);
    const int *head = s->head[GRID_STARTS] + s->hbase[p];
    double best = INFINITY;
    /* step k takes start bucket b0 - k + shift (and one above at first):
     * its starts y = off - d lie in bucket b0 - k or one below */
    for (int k = -2; k <= nb + 2; k++) {
        for (int extra = k == -2 ? 1 : 0; extra >= 0; extra--) {
            int b = grid_wrap(b0 - k + shift + extra, nb);
            for (int i = head[b]; i >= 0; i = s->pool[i].next) {
                int o = s->pool[i].op;
                if (o != skip && s->pool[i].ver == s->ver[o])
                    latest_try(s, p, lo, hi, xh, mod_t(s->off[o] - d, s->T), d, skip, &best);
            }
        }
        if (best < (k - 2) * w || (k - 2) * w > hi - lo)
            break;
    }
    return isfinite(best) ? hi - best : lo;
}

/* Which structure serves this period. The grids' buckets are uniform over
 * the period: where a GPU's ops fill a fair share of it they hold a few
 * ops each and a search costs a few tests; where the period is set by
 * the links (transfers of hours, layers of milliseconds) a GPU's ops all
 * fall in one or two buckets and every search scans them all (1,000
 * layers on 3 GPUs: 19 s for PipeDream's plan, 0.5 s with the sets). The
 * ordered sets cost a logarithm more a step (5,000 compute-bound layers
 * on 3 GPUs, the time-balanced plan: 2.2 s with the sets alone, 1.0 s
 * with the grids), so they serve only where some GPU of more than
 * TREE_OPS ops is busy less than 1/TREE_FILL of the period. */
#define TREE_FILL 64.0
#define TREE_OPS 8

static void index_reset(struct sched *s)
{
    s->tree = false;
    for (int p = 0; p < s->P; p++) {
        int share = (p + 1 < s->P ? s->base[p + 1] : s->n) - s->base[p];
        s->tree = s->tree || (share > TREE_OPS && TREE_FILL * s->busy[p] < s->T);
    }
    if (s->tree)
        tree_reset(s);
    else
        grid_reset(s);
}

static void index_add(struct sched *s, int p, int o)
{
    if (s->tree)
        tree_add(s, p, o);
    else
        grid_add(s, p, o);
}

/* The reference while the local search still counts its work (the count
 * is the reference's comparisons, so the search stops where it always
 * did), the grids or the ordered sets otherwise. */
static bool use_ref(const struct sched *s)
{
    return sched_reference || (!s->tree && s->oom) || (s->counting && s->work < SCHED_WORK);
}

/* Tests only: each search by the grids or the ordered sets done by the
 * reference too, the results that differ counted. */
static bool sched_crosscheck;
static long sched_mismatches;

static double crosscheck(double fast, double ref)
{
    if (!(fast == ref || (isnan(fast) && isnan(ref))))
        sched_mismatches++;
    return fast;
}

static double sched_earliest(struct sched *s, int p, double ready, double d, int skip,
                             bool packed)
{
    if (use_ref(s))
        return earliest_ref(s, p, ready, d, skip, packed);
    double t = s->tree ? earliest_tree(s, p, ready, d, skip, packed)
                       : earliest_grid(s, p, ready, d, skip, packed);
    return sched_crosscheck ? crosscheck(t, earliest_ref(s, p, ready, d, skip, packed)) : t;
}

static double sched_latest(struct sched *s, int p, double lo, double hi, double d, int skip)
{
    if (use_ref(s))
        return latest_ref(s, p, lo, hi, d, skip);
    double t = s->tree ? latest_tree(s, p, lo, hi, d, skip) : latest_grid(s, p, lo, hi, d, skip);
    return sched_crosscheck ? crosscheck(t, latest_ref(s, p, lo, hi, d, skip)) : t;
}

void schedule_use_reference(bool on)
{
    sched_reference = on;
}

long schedule_crosscheck(bool on)
{
    long n = sched_mismatches;
    sched_crosscheck = on;
    sched_mismatches = 0;
    return n;
}

/* Forward ops as late, backward ops as early as their neighbours allow;
 * each move only shortens a lifetime. */
static void sched_compact(struct sched *s)
{
    int L = s->L;
    double *start = s->pl->start;
    for (int round = 0; round < 8; round++) {
        bool moved = false;
        for (int i = L - 1; i >= 0; i--) {
            int next = i == L - 1 ? 2 * L - 1 : i + 1;
            double hi = start[next] - (i == L - 1 ? 0.0 : cut_ms(s, i)) - s->pb->f[i];
            if (hi <= start[i] + sched_eps(s->T))
                continue;
            double t = sched_latest(s, op_gpu(s, i), start[i], hi, s->pb->f[i], i);
            if (t > start[i] + sched_eps(s->T)) {
                sched_set(s, i, t);
                index_add(s, op_gpu(s, i), i);
                moved = true;
            }
        }
        for (int k = L; k < s->n; k++) {
            int o = s->order[k];
            double ready = chain_ready(s, k);
            if (ready >= start[o] - sched_eps(s->T))
                continue;
            double t = sched_earliest(s, op_gpu(s, o), ready, op_dur(s, o), o, false);
            if (t < start[o] - sched_eps(s->T)) {
                sched_set(s, o, t);
                index_add(s, op_gpu(s, o), o);
                moved = true;
            }
        }
        if (!moved)
            break;
    }
}

/* One list-scheduling pass with the current delays. 0, or -1 when some
 * op finds no room (fail_gpu / fail_dur say which). */
static int sched_place(struct sched *s, bool compact)
{
    bool packed = s->packed;
    memset(s->count, 0, (size_t)s->P * sizeof *s->count);
    index_reset(s);
    for (int k = 0; k < s->n; k++) {
        int o = s->order[k];
        int p = op_gpu(s, o);
        double d = op_dur(s, o);
        double t = sched_earliest(s, p, chain_ready(s, k) + s->delay[k], d, -1, packed);
        if (isnan(t)) {
            s->fail_gpu = p;
            s->fail_dur = d;
            return -1;
        }
        sched_set(s, o, t);
        s->slot[s->base[p] + s->count[p]++] = o;
        s->nz[p] += d > sched_eps(s->T);
        index_add(s, p, o);
    }
    if (compact)
        sched_compact(s);
    double s0 = s->pl->start[0];
    if (s0 != 0.0)
        for (int o = 0; o < s->n; o++)
            sched_set(s, o, s->pl->start[o] - s0);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Largest free stretch on GPU p, circularly, among the ops placed: after
 * each op's end, up to the next start (its own start a period on at the
 * latest). The next start is found in the sorted offsets, its neighbours
 * measured as the scan over every op measured them (a scan per op was
 * quadratic: 25,000 ops on a GPU, at each of a long search's periods). */
static double sched_largest_gap(const struct sched *s, int p)
{
    const int *ops = s->slot + s->base[p];
    double *at = malloc(((size_t)s->count[p] + 1) * sizeof *at);
    int m = 0;
    for (int j = 0; at && j < s->count[p]; j++)
        if (op_dur(s, ops[j]) > sched_eps(s->T))
            at[m++] = s->off[ops[j]];
    if (!at || m == 0) {
        free(at);
        return s->T;   /* nothing placed (or no memory to look): all free */
    }
    qsort(at, (size_t)m, sizeof *at, cmp_double);
    double best = 0.0;
    for (int j = 0; j < s->count[p]; j++) {
        int a = ops[j];
        if (op_dur(s, a) <= sched_eps(s->T))
            continue;
        double end = s->off[a] + op_dur(s, a);
        double gap = s->T - op_dur(s, a);
        double e = mod_t(end, s->T);
        int lo = 0, hi = m;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (at[mid] < e)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int k = lo - 1; k <= lo + 1; k++) {
            double g = mod_t(at[(k % m + m) % m] - end, s->T);
            if (g < gap)
                gap = g;
        }
        if (gap > best)
            best = gap;
    }
    free(at);
    return best;
}

/* Lexicographic: fitting or not, the objective, memory over the caps, the
 * worst margin. Waits that only shrink the overflow of a plan that does
 * not fit anyway are not worth a longer iteration: the figures shown for
 * such a plan are those of its natural schedule. */
struct sched_score {
    double over, objective, excess;
};

static struct sched_score sched_score(const struct plan *pl)
{
    struct sched_score sc = { 0.0, pl->objective, -INFINITY };
    for (int p = 0; p < pl->P; p++) {
        double e = pl->gpus[p].total - pl->gpus[p].cap;
        if (e > 0.0)
            sc.over += e;
        if (e > sc.excess)
            sc.excess = e;
    }
    return sc;
}

static int cmp_tol(double a, double b)
{
    double tol = 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
    return a < b - tol ? -1 : a > b + tol ? 1 : 0;
}

static bool score_better(struct sched_score a, struct sched_score b)
{
    bool fa = cmp_tol(a.over, 0.0) == 0, fb = cmp_tol(b.over, 0.0) == 0;
    if (fa != fb)
        return fa;
    int c = cmp_tol(a.objective, b.objective);
    if (c == 0)
        c = cmp_tol(a.over, b.over);
    if (c == 0)
        c = cmp_tol(a.excess, b.excess);
    return c < 0;
}

static int cmp_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* The distinct waits the list scheduler was forced into, largest first. */
static int sched_waits(const struct sched *s, double *waits)
{
    int count = 0;
    for (int k = 1; k < s->n; k++) {
        double w = s->pl->start[s->order[k]] - chain_ready(s, k);
        if (w > sched_eps(s->T))
            waits[count++] = w;
    }
    qsort(waits, (size_t)count, sizeof *waits, cmp_desc);
    int distinct = 0;
    for (int j = 0; j < count; j++)
        if (distinct == 0 || cmp_tol(waits[distinct - 1], waits[j]) != 0)
            waits[distinct++] = waits[j];
    return distinct < SCHED_WAITS ? distinct : SCHED_WAITS;
}

/* Try a wait of each forced size before each chain position; keep the
 * best change, repeat. s holds a placed, evaluated schedule on entry and
 * the best one found on return. */
static void sched_improve(struct sched *s, double *best_start, double *waits)
{
    struct plan *pl = s->pl;
    size_t startsz = (size_t)s->n * sizeof *pl->start;
    struct sched_score best = sched_score(pl);
    memcpy(best_start, pl->start, startsz);
    s->work = 0;
    s->counting = true;

    for (int round = 0; round < SCHED_ROUNDS && s->work < SCHED_WORK; round++) {
        int nw = sched_waits(s, waits);
        int bk = -1;
        double bw = 0.0;
        for (int k = 1; k < s->n && s->work < SCHED_WORK; k++) {
            for (int j = 0; j < nw && s->work < SCHED_WORK; j++) {
                s->delay[k] += waits[j];
                if (sched_place(s, true) == 0 && plan_evaluate(pl, s->pb) == 0) {
                    struct sched_score sc = sched_score(pl);
                    if (score_better(sc, best)) {
                        best = sc;
                        bk = k;
                        bw = waits[j];
                        memcpy(best_start, pl->start, startsz);
                    }
                }
                s->delay[k] -= waits[j];
            }
        }
        if (bk < 0)
            break;
        s->delay[bk] += bw;
        /* Re-place so waits and offsets describe the kept schedule. */
        if (sched_place(s, true) != 0)
            break;
    }
    s->counting = false;
    memcpy(pl->start, best_start, startsz);
    plan_evaluate(pl, s->pb);
}

static void sched_free_all(struct sched *s)
{
    free(s->order);
    free(s->delay);
    free(s->off);
    free(s->count);
    free(s->base);
    free(s->slot);
    free(s->busy);
    free(s->nb);
    free(s->hbase);
    for (int g = 0; g < GRID_KINDS; g++)
        free(s->head[g]);
    free(s->ver);
    free(s->pool);
    free(s->root);
    free(s->tcnt);
    free(s->tl);
    free(s->tr);
    free(s->tp);
    free(s->tkey);
    free(s->filed);
    free(s->nz);
}

/* Checks the allocation and fills s; -1 if malformed or out of memory. */
static int sched_init(struct sched *s, struct plan *pl, const struct problem *pb)
{
    memset(s, 0, sizeof *s);
    if (!pl || !pb || pl->L != pb->L || pl->P != pb->P || pl->L < 1 || pl->P < 1)
        return -1;
    for (int i = 0; i < pl->L; i++)
        if (pl->gpu[i] < 0 || pl->gpu[i] >= pl->P)
            return -1;
    s->pb = pb;
    s->pl = pl;
    s->L = pl->L;
    s->P = pl->P;
    s->n = 2 * pl->L;
    size_t n = (size_t)s->n;
    s->order = malloc(n * sizeof *s->order);
    s->delay = calloc(n, sizeof *s->delay);
    s->off = calloc(n, sizeof *s->off);
    s->count = calloc((size_t)s->P, sizeof *s->count);
    s->base = calloc((size_t)s->P, sizeof *s->base);
    s->slot = malloc(n * sizeof *s->slot);
    s->busy = calloc((size_t)s->P, sizeof *s->busy);
    s->nb = calloc((size_t)s->P, sizeof *s->nb);
    s->hbase = calloc((size_t)s->P, sizeof *s->hbase);
    s->ver = calloc(n, sizeof *s->ver);
    /* at most 2 share + 1 buckets per GPU (grid_reset) */
    bool heads = true;
    for (int g = 0; g < GRID_KINDS; g++) {
        s->head[g] = malloc((2 * n + (size_t)s->P) * sizeof *s->head[g]);
        heads = heads && s->head[g];
    }
    s->root = calloc((size_t)s->P, sizeof *s->root);
    s->tcnt = calloc((size_t)s->P, sizeof *s->tcnt);
    s->tl = calloc(n, sizeof *s->tl);
    s->tr = calloc(n, sizeof *s->tr);
    s->tp = calloc(n, sizeof *s->tp);
    s->tkey = calloc(n, sizeof *s->tkey);
    s->filed = calloc(n, sizeof *s->filed);
    s->nz = calloc((size_t)s->P, sizeof *s->nz);
    if (!s->order || !s->delay || !s->off || !s->count || !s->base || !s->slot || !s->root ||
        !s->tcnt || !s->tl || !s->tr || !s->tp || !s->tkey || !s->filed || !s->nz ||
        !s->busy || !s->nb || !s->hbase || !s->ver || !heads) {
        sched_free_all(s);
        return -1;
    }
    for (int k = 0; k < s->n; k++)
        s->order[k] = k < s->L ? k : s->L + (2 * s->L - 1 - k);
    /* Each layer puts two ops on its GPU. */
    for (int i = 0; i < s->L; i++)
        s->count[pl->gpu[i]] += 2;
    for (int p = 1; p < s->P; p++)
        s->base[p] = s->base[p - 1] + s->count[p - 1];
    for (int o = 0; o < s->n; o++)
        s->busy[op_gpu(s, o)] += op_dur(s, o);
    return 0;
}

/* The smallest T the constraints allow outright: per-GPU compute, send
 * and receive loads. */
static double sched_min_period(const struct sched *s)
{
    double *load = calloc((size_t)s->P * 2, sizeof *load);
    if (!load)
        return NAN;
    double *link = load + s->P;
    double need = 0.0;
    for (int i = 0; i < s->L; i++) {
        load[s->pl->gpu[i]] += s->pb->f[i] + s->pb->b[i];
        /* Each side of a cut sends c_i and receives c_i per period, so
         * its send and receive loads are equal. */
        if (i < s->L - 1 && s->pl->gpu[i] != s->pl->gpu[i + 1]) {
            link[s->pl->gpu[i]] += s->pb->c[i];
            link[s->pl->gpu[i + 1]] += s->pb->c[i];
        }
    }
    for (int p = 0; p < s->P; p++)
        need = fmax(need, fmax(load[p], link[p]));
    for (int o = 0; o < s->n; o++)
        need = fmax(need, op_dur(s, o));
    free(load);
    return need;
}

/* Place at s->T, loose and packed, keep the better of those that fit
 * (loose on a tie), then polish it. 0, or -1 when neither fits (the
 * loose attempt's failure is left in fail_gpu / fail_dur), -2 when out of
 * memory. */
static int sched_run(struct sched *s)
{
    struct plan *pl = s->pl;
    size_t n = (size_t)s->n;
    double *scratch = malloc(3 * n * sizeof *scratch);
    if (!scratch)
        return -2;              /* out of memory: a larger T would not help */
    int fail_gpu = 0;
    double fail_dur = 0.0;
    bool found = false, keep_packed = false;
    struct sched_score best = { 0.0, 0.0, 0.0 };
    for (int mode = 0; mode < 2; mode++) {
        s->packed = mode == 1;
        if (sched_place(s, true) != 0) {
            if (mode == 0) {
                fail_gpu = s->fail_gpu;
                fail_dur = s->fail_dur;
            }
            continue;
        }
        plan_evaluate(pl, s->pb);
        struct sched_score sc = sched_score(pl);
        if (!found || score_better(sc, best)) {
            found = true;
            best = sc;
            keep_packed = mode == 1;
            memcpy(scratch + 2 * n, pl->start, n * sizeof *pl->start);
        }
    }
    s->packed = keep_packed;
    s->fail_gpu = fail_gpu;
    s->fail_dur = fail_dur;
    if (found) {
        /* Re-place the kept mode so offsets and waits describe it. */
        if (sched_place(s, true) == 0) {
            plan_evaluate(pl, s->pb);
            sched_improve(s, scratch, scratch + n);
        } else {
            memcpy(pl->start, scratch + 2 * n, n * sizeof *pl->start);
            plan_evaluate(pl, s->pb);
        }
    }
    free(scratch);
    return found ? 0 : -1;
}

/* A contiguous allocation always has a schedule at its load bound: each
 * GPU runs its forward ops back to back and its backward ops back to back,
 * the backward block started in the part of the period the forward block
 * leaves free (the classic 1F1B pipeline). The list scheduler can miss it
 * when a GPU is exactly full. Fills pl->start at period T; 0, or -1 if the
 * allocation is not contiguous or T is below a load. */
static int sched_blocks(struct sched *s, double T)
{
    const struct problem *pb = s->pb;
    struct plan *pl = s->pl;
    int L = s->L;
    if (!plan_is_contiguous(pl) || T < sched_min_period(s) - sched_eps(T))
        return -1;
    double *start = pl->start;
    for (int i = 0; i < L; i++)
        start[i] = i == 0 ? 0.0 : start[i - 1] + pb->f[i - 1] + cut_ms(s, i - 1);
    for (int i = L - 1; i >= 0; i--) {
        double ready = i == L - 1 ? start[L - 1] + pb->f[L - 1]
                                  : start[L + i + 1] + pb->b[i + 1] + cut_ms(s, i);
        bool segment_end = i == L - 1 || pl->gpu[i + 1] != pl->gpu[i];
        if (segment_end) {
            int first = i;
            double fsum = 0.0, bsum = 0.0;
            while (first > 0 && pl->gpu[first - 1] == pl->gpu[i])
                first--;
            for (int j = first; j <= i; j++) {
                fsum += pb->f[j];
                bsum += pb->b[j];
            }
            double x = mod_t(ready - start[first], T);
            if (!(x >= fsum - sched_eps(T) && x <= T - bsum + sched_eps(T)))
                ready += mod_t(fsum - x, T);
        }
        start[L + i] = ready;
    }
    pl->T = T;
    return 0;
}

/* Keep whichever of the plan as built and the block schedule at T scores
 * better; the plan is evaluated on return. */
static void sched_try_blocks(struct sched *s, double T)
{
    struct plan *pl = s->pl;
    struct plan *alt = plan_copy(pl);
    if (!alt)
        return;
    struct sched_score before = sched_score(pl);
    double oldT = pl->T;
    if (sched_blocks(s, T) == 0 && plan_evaluate(pl, s->pb) == 0 &&
        score_better(sched_score(pl), before))
        ;   /* keep the block schedule */
    else {
        pl->T = oldT;
        memcpy(pl->start, alt->start, (size_t)s->n * sizeof *pl->start);
        plan_evaluate(pl, s->pb);
    }
    plan_free(alt);
}

int schedule_build_at(struct plan *pl, const struct problem *pb, double T)
{
    struct sched s;
    if (sched_init(&s, pl, pb) != 0)
        return -1;
    int rc = -1;
    double need = sched_min_period(&s);
    double *keep = malloc((size_t)s.n * sizeof *keep);
    if (keep && isfinite(T) && T > 0.0 && !isnan(need) && T >= need - sched_eps(T)) {
        /* A failed attempt leaves the plan as it was. */
        double oldT = pl->T;
        memcpy(keep, pl->start, (size_t)s.n * sizeof *keep);
        s.T = T;
        pl->T = T;
        rc = sched_run(&s);
        if (rc == 0) {
            sched_try_blocks(&s, T);
        } else if (rc != -2 && sched_blocks(&s, T) == 0) {
            plan_evaluate(pl, pb);
            rc = 0;
        } else {
            rc = -1;
            pl->T = oldT;
            memcpy(pl->start, keep, (size_t)s.n * sizeof *keep);
        }
    }
    free(keep);
    sched_free_all(&s);
    return rc;
}

int schedule_build(struct plan *pl, const struct problem *pb)
{
    struct sched s;
    if (sched_init(&s, pl, pb) != 0)
        return -1;
    double T = sched_min_period(&s);
    if (isnan(T)) {
        sched_free_all(&s);
        return -1;
    }
    if (T < SCHED_MIN_T)
        T = SCHED_MIN_T;
    /* At the whole chain's length (transfers included) every op runs at
     * its ready time without wrapping, so the search below ends there. */
    double chain = problem_compute_ms(pb);
    for (int i = 0; i < pb->L - 1; i++)
        chain += 2.0 * cut_ms(&s, i);

    int rc = -1;
    double T0 = T;
    for (int tries = 0; tries < 100000; tries++) {
        s.T = T;
        pl->T = T;
        rc = sched_run(&s);
        if (rc == -2) {
            rc = -1;
            break;
        }
        if (rc == 0) {
            /* the list scheduler may have had to go above the load bound */
            s.T = T0;
            sched_try_blocks(&s, T0);
            break;
        }
        /* Grow T by what the failing op lacked in the widest gap, at
         * least a little; jump to the chain length when that is near. */
        double lack = s.fail_dur - sched_largest_gap(&s, s.fail_gpu);
        double next = fmax(T + lack, T * (1.0 + 1.0 / 1024.0));
        if (T < chain && next > chain)
            next = chain;
        T = next;
    }
    sched_free_all(&s);
    return rc;
}

/* Fits at T: a copy scheduled at T, or NULL when it does not fit. */
static struct plan *stretch_try(const struct plan *pl, const struct problem *pb, double T)
{
    struct plan *c = plan_copy(pl);
    if (c && schedule_build_at(c, pb, T) == 0 && c->fits)
        return c;
    plan_free(c);
    return NULL;
}

int schedule_stretch(struct plan *pl, const struct problem *pb)
{
    if (pl->fits || !(pl->T > 0.0))
        return 0;
    /* Past the whole chain's length nothing is in flight twice. */
    double chain = problem_compute_ms(pb) + 2.0 * pb->L * pb->latency_ms;
    for (int i = 0; i < pb->L - 1; i++)
        chain += 2.0 * pb->c[i];
    double lo = pl->T, hi = NAN;
    struct plan *best = NULL;
    /* doubling steps from 0.1 % up, then halving between the last miss
     * and the first fit: about 40 schedules, each linear in the layers */
    for (double step = pl->T / 1024.0; lo < chain; step *= 2.0) {
        double T = fmin(pl->T + step, chain);
        best = stretch_try(pl, pb, T);
        if (best) {
            hi = T;
            break;
        }
        lo = T;
        if (T >= chain)
            break;
    }
    if (!best)
        return 0;
    for (int k = 0; k < 20 && hi - lo > pl->T * 1e-6; k++) {
        double mid = 0.5 * (lo + hi);
        struct plan *c = stretch_try(pl, pb, mid);
        if (c) {
            plan_free(best);
            best = c;
            hi = mid;
        } else {
            lo = mid;
        }
    }
    pl->T = best->T;
    memcpy(pl->start, best->start, 2 * (size_t)pb->L * sizeof *pl->start);
    plan_free(best);
    return plan_evaluate(pl, pb) == 0 ? 1 : 0;
}

/* ---- the 1F1B order of the runtimes ---- */

/* Stage r's slack into its window at period T: how much later than
 * (S - r - 1) T + f_r after its forward its backward starts, from the last
 * stage back (doc/model.md section 2.1). Returns whether every window
 * holds it: E_r <= T - f_r - b_r. With `E` not NULL, the values too. */
static bool order_fits(int S, const double *f, const double *b, const double *c, double T,
                       double *E)
{
    double e = 0;
    for (int r = S - 1; r >= 0; r--) {
        if (r < S - 1)
            e = fmax(e + f[r + 1] + b[r + 1] + 2.0 * c[r] - T, 0.0);
        if (E)
            E[r] = e;
        if (e > T - f[r] - b[r])
            return false;
    }
    return true;
}

int schedule_build_1f1b(struct plan *pl, const struct problem *pb, int ranks)
{
    int L = pb->L, P = pb->P;
    if (pl->L != L || L < 1 || ranks > P)
        return -1;
    for (int i = 0; i < L; i++)
        if (pl->gpu[i] < 0 || pl->gpu[i] >= P)
            return -1;
    /* the stages: runs in chain order, a GPU holding one at most; with
     * ranks, stage r on rank r = GPU r, those with no layer included */
    int S = ranks > 0 ? ranks : L;
    int *first = malloc(((size_t)S + 1) * sizeof *first);
    bool *used = calloc((size_t)P, sizeof *used);
    double *v = calloc(5 * (size_t)S, sizeof *v);
    int rc = -1;
    if (!first || !used || !v)
        goto out;
    int n = 0;
    for (int i = 0; i < L; i++) {
        int g = pl->gpu[i];
        if (i > 0 && g == pl->gpu[i - 1])
            continue;
        if (used[g] || (ranks > 0 && (g >= ranks || (i > 0 && g < pl->gpu[i - 1])))) {
            rc = -2;
            goto out;
        }
        used[g] = true;
        /* a rank with no layer starts where the next one does */
        for (; ranks > 0 && n < g; n++)
            first[n] = i;
        first[n++] = i;
    }
    for (; n < S && ranks > 0; n++)
        first[n] = L;
    S = n;
    first[S] = L;
    /* a flush of fewer micro-batches than stages is no steady 1F1B */
    if (pb->m < S) {
        rc = -2;
        goto out;
    }
    double *f = v, *b = v + S, *c = v + 2 * S, *E = v + 3 * S, *phi = v + 4 * S;
    double T = SCHEDULE_MIN_T, hi = 0;
    for (int r = 0; r < S; r++) {
        for (int i = first[r]; i < first[r + 1]; i++) {
            f[r] += pb->f[i];
            b[r] += pb->b[i];
        }
        /* what crosses to the next rank: the activation of the last layer
         * so far, passed on by a rank with none (nothing before the first
         * layer or after the last) */
        c[r] = first[r + 1] > 0 && first[r + 1] < L ? pb->c[first[r + 1] - 1] : 0.0;
        /* its compute, and its links: a cut each way at both its ends */
        T = fmax(T, fmax(f[r] + b[r], c[r] + (r > 0 ? c[r - 1] : 0.0)));
    }
    for (int r = 0; r + 1 < S; r++)
        hi = fmax(hi, f[r + 1] + b[r + 1] + 2.0 * c[r]);
    /* at hi every slack is 0; the slacks only shrink as T grows, so the
     * least T whose windows hold them is found by bisection, and it is
     * the best one: the iteration grows with T (doc/model.md section 2.1) */
    hi = fmax(hi, T);
    if (!order_fits(S, f, b, c, T, NULL)) {
        double lo = T;
        for (int k = 0; k < 200 && hi - lo > 1e-12 * hi; k++) {
            double mid = 0.5 * (lo + hi);
            if (order_fits(S, f, b, c, mid, NULL))
                hi = mid;
            else
                lo = mid;
        }
        T = hi;
    }
    order_fits(S, f, b, c, T, E);
    /* forwards with no wait; stage r's backward of micro-batch j just after
     * its forward of micro-batch j + S - r - 1, or E_r later */
    for (int r = 0; r < S; r++) {
        phi[r] = r == 0 ? 0.0 : phi[r - 1] + f[r - 1] + c[r - 1];
        double t = phi[r];
        for (int i = first[r]; i < first[r + 1]; i++) {
            pl->start[i] = t;
            t += pb->f[i];
        }
        t = phi[r] + (double)(S - r - 1) * T + f[r] + E[r];
        for (int i = first[r + 1] - 1; i >= first[r]; i--) {
            pl->start[L + i] = t;
            t += pb->b[i];
        }
    }
    pl->T = T;
    rc = plan_evaluate(pl, pb) == 0 ? 0 : -1;
out:
    free(first);
    free(used);
    free(v);
    return rc;
}
