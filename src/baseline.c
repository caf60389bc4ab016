/* baseline: the splits today's frameworks pick, each scheduled and judged
 * with the common model (doc/model.md section 7). All splits are contiguous:
 * stage k is one interval of layers on GPU k. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "schedule.h"

/* Relative tolerance of the ceil() in the wait-free copy count, so that a
 * period snapped to lifetime / n still counts n copies. Far below the
 * search tolerance, so the search never settles inside it. */
#define COPIES_TOL 1e-12
/* The dp period search stops when its bracket is this tight (relative). */
#define SEARCH_TOL 1e-9
#define SEARCH_MAX_STEPS 200
/* Bound on the periods tried when the dp's split must be rescheduled
 * longer to fit (each try runs the schedule builder). */
#define DP_RESCHEDULE_STEPS 32
/* ... and how close (relative) the bisection back goes. */
#define DP_REFINE_TOL 1e-3
/* Bound on the dp's plans again on smaller rooms when its scheduled split
 * does not fit (each a dp and a schedule). */
#define DP_RETRIES 6

static bool problem_usable(const struct problem *pb)
{
    return pb && pb->L >= 1 && pb->P >= 1;
}

static int stage_limit(const struct problem *pb)
{
    return pb->P < pb->L ? pb->P : pb->L;
}

/* pre[i] = sum of x over layers before i, so an interval sum is a
 * difference: every stage sum is computed the same way in every pass. */
static double *prefix_new(const struct problem *pb, const double *x,
                          const double *y)
{
    double *pre = malloc(((size_t)pb->L + 1) * sizeof *pre);
    if (!pre)
        return NULL;
    pre[0] = 0;
    for (int i = 0; i < pb->L; i++)
        pre[i + 1] = pre[i] + x[i] + (y ? y[i] : 0);
    return pre;
}

/* An optional per-stage limit: factor_k * (lim[j] - lim[i]) <= bound[k],
 * with factor_k = S - k when by_depth (PipeDream's rule), else 1. */
struct stage_rule {
    const double *lim;
    const double *bound;
    bool by_depth;
};

static bool rule_admits(const struct stage_rule *r, int S, int k, int i, int j)
{
    if (!r)
        return true;
    double factor = r->by_depth ? (double)(S - k) : 1.0;
    return factor * (r->lim[j] - r->lim[i]) <= r->bound[k];
}

/* The direct scan everywhere, for tests. */
static bool minmax_reference;

void baseline_use_reference(bool on)
{
    minmax_reference = on;
}

static bool non_decreasing(const double *x, int from, int to)
{
    for (int i = from; i < to; i++)
        if (!(x[i] <= x[i + 1]))
            return false;
    return true;
}

/* Cell (k, j) of split_minmax, the direct way: i from j-1 down. */
static void minmax_scan(int S, int k, int j, const double *cost, const struct stage_rule *rule,
                        const double *prevrow, double *cell, int *from)
{
    for (int i = j - 1; i >= k - 1; i--) {
        double c = cost[j] - cost[i];
        if (c > *cell)
            break; /* stages only get dearer to the left */
        /* the limited quantity too only grows to the left */
        if (!rule_admits(rule, S, k - 1, i, j))
            break;
        double prev = prevrow[i];
        if (prev == INFINITY)
            continue;
        double v = prev > c ? prev : c;
        if (v <= *cell) {
            *cell = v;
            *from = i;
        }
    }
}

/* The same cell when the previous row does not decrease over the range:
 * max(prev(i), c(i)) then falls and rises around the first i where prev
 * reaches c, so two binary searches find the least value and the smallest
 * i holding it, exactly what the scan finds (same comparisons of the same
 * numbers), in log time instead of the stage's length. */
static void minmax_search(int S, int k, int j, const double *cost,
                          const struct stage_rule *rule, const double *prevrow, double *cell,
                          int *from)
{
    int lo = k - 1, hi = j - 1;
    if (rule) {
        /* the rule admits a suffix of [lo, hi] */
        if (!rule_admits(rule, S, k - 1, hi, j))
            return;
        int a = lo, b = hi;
        while (a < b) {
            int m = a + (b - a) / 2;
            if (rule_admits(rule, S, k - 1, m, j))
                b = m;
            else
                a = m + 1;
        }
        lo = a;
    }
    /* first i with prev(i) >= c(i), or hi + 1 */
    int a = lo, b = hi + 1;
    while (a < b) {
        int m = a + (b - a) / 2;
        if (prevrow[m] >= cost[j] - cost[m])
            b = m;
        else
            a = m + 1;
    }
    int ic = a;
    double va = ic <= hi && prevrow[ic] != INFINITY ? prevrow[ic] : INFINITY;
    if (ic > lo) {
        /* left of ic the value is c(i), which only grows to the left:
         * the smallest i with c(i) == c(ic - 1) */
        double vb = cost[j] - cost[ic - 1];
        if (vb <= va) {
            int x = lo, y = ic - 1;
            while (x < y) {
                int m = x + (y - x) / 2;
                if (cost[j] - cost[m] <= vb)
                    y = m;
                else
                    x = m + 1;
            }
            *cell = vb;
            *from = x;
            return;
        }
    }
    if (va < INFINITY) {
        *cell = va;
        *from = ic;
    }
}

/* Exactly S non-empty stages minimising the largest stage cost
 * (cost[j] - cost[i]) under an optional rule. Writes gpu[] and returns the
 * optimum, or INFINITY (gpu untouched) when the rule admits no split, or
 * NAN when out of memory. Ties go to the longest last stage, recursively. */
static double split_minmax(const struct problem *pb, int S, const double *cost,
                           const struct stage_rule *rule, int *gpu)
{
    int L = pb->L;
    size_t cells = ((size_t)S + 1) * ((size_t)L + 1);
    double *best = malloc(cells * sizeof *best);
    int *from = malloc(cells * sizeof *from);
    if (!best || !from) {
        free(best);
        free(from);
        return NAN;
    }
    for (size_t x = 0; x < cells; x++) {
        best[x] = INFINITY;
        from[x] = -1;
    }
    best[0] = 0; /* zero stages cover zero layers */
    /* the search needs sums that never fall (times and sizes are >= 0;
     * a hand-built problem may break that: then scan) */
    bool sums_rise = !minmax_reference && non_decreasing(cost, 0, L) && (!rule || non_decreasing(rule->lim, 0, L));
    for (int k = 1; k <= S; k++) {
        const double *prevrow = &best[(size_t)(k - 1) * (L + 1)];
        bool search = sums_rise && non_decreasing(prevrow, k - 1, L);
        /* stage k-1 ends at j; later stages need one layer each */
        for (int j = k; j <= L - (S - k); j++) {
            size_t at = (size_t)k * (L + 1) + j;
            if (search)
                minmax_search(S, k, j, cost, rule, prevrow, &best[at], &from[at]);
            else
                minmax_scan(S, k, j, cost, rule, prevrow, &best[at], &from[at]);
        }
    }
    double opt = best[(size_t)S * (L + 1) + L];
    if (opt < INFINITY) {
        int j = L;
        for (int k = S; k >= 1; k--) {
            int i = from[(size_t)k * (L + 1) + j];
            for (int l = i; l < j; l++)
                gpu[l] = k - 1;
            j = i;
        }
    }
    free(best);
    free(from);
    return opt;
}

int baseline_uniform_allocation(const struct problem *pb, int *gpu)
{
    if (!problem_usable(pb) || !gpu)
        return -1;
    int S = stage_limit(pb);
    int base = pb->L / S, extra = pb->L % S;
    int l = 0;
    for (int k = 0; k < S; k++)
        for (int n = base + (k < extra); n > 0; n--)
            gpu[l++] = k;
    return 0;
}

int baseline_time_allocation(const struct problem *pb, int *gpu)
{
    if (!problem_usable(pb) || !gpu)
        return -1;
    double *load = prefix_new(pb, pb->f, pb->b);
    if (!load)
        return -1;
    double opt = split_minmax(pb, stage_limit(pb), load, NULL, gpu);
    free(load);
    return isnan(opt) ? -1 : 0;
}

int baseline_parameters_allocation(const struct problem *pb, int *gpu)
{
    if (!problem_usable(pb) || !gpu)
        return -1;
    int S = stage_limit(pb);
    double *load = prefix_new(pb, pb->f, pb->b);
    double *wpre = prefix_new(pb, pb->w, NULL);
    double *bound = malloc((size_t)S * sizeof *bound);
    int rc = -1;
    if (load && wpre && bound) {
        double wmax = split_minmax(pb, S, wpre, NULL, gpu);
        if (!isnan(wmax)) {
            /* second pass: least compute among the splits reaching wmax;
             * the first pass's split qualifies, so this cannot fail */
            for (int k = 0; k < S; k++)
                bound[k] = wmax;
            struct stage_rule rule = { wpre, bound, false };
            double t = split_minmax(pb, S, load, &rule, gpu);
            rc = isnan(t) ? -1 : 0;
        }
    }
    free(load);
    free(wpre);
    free(bound);
    return rc;
}

/* v[r] for r = 1..R: the optimum of split_minmax(pb, r, cost, rule) for
 * a PipeDream rule (by_depth) whose bound is the same for every stage,
 * all from one DP over suffixes: the stage r-th from the end keeps r
 * copies whatever the stage count, so a suffix split into r stages serves
 * every S >= r. R rows of L in place of R rows for each of R counts; the
 * values are the same numbers (min and max of the same differences, the
 * same rule test), so the count chosen from them is. Needs sums that
 * never fall. */
static int suffix_minmax_values(const struct problem *pb, int R, const double *cost,
                                const struct stage_rule *rule, double *v)
{
    int L = pb->L;
    double room = rule->bound[0];
    double *buf = malloc(2 * ((size_t)L + 1) * sizeof *buf);
    if (!buf)
        return -1;
    double *prev = buf, *cur = buf + L + 1;
    for (int i = 0; i <= L; i++)
        prev[i] = INFINITY;
    prev[L] = 0; /* zero stages cover zero layers */
    for (int r = 1; r <= R; r++) {
        double factor = (double)r;
        int top = L - (r - 1);   /* the first stage ends by here */
        /* where the suffix split into r - 1 stages never gets dearer as
         * it shortens, the least of max(prev(j), c(j)) is found by binary
         * search, as in minmax_search */
        bool search = true;
        for (int j = 1; search && j < top; j++)
            search = prev[j] >= prev[j + 1];
        for (int i = 0; i <= L; i++)
            cur[i] = INFINITY;
        for (int i = 0; i + r <= L; i++) {
            int lo = i + 1, hi = top;
            if (!(factor * (rule->lim[lo] - rule->lim[i]) <= room))
                continue;
            double best = INFINITY;
            if (search) {
                /* the rule admits a prefix of [lo, hi] */
                int a = lo, b = hi;
                while (a < b) {
                    int m = a + (b - a + 1) / 2;
                    if (factor * (rule->lim[m] - rule->lim[i]) <= room)
                        a = m;
                    else
                        b = m - 1;
                }
                hi = a;
                /* the first j with c(j) >= prev(j), or hi + 1: before it
                 * the value is prev(j), falling; from it c(j), rising */
                a = lo;
                b = hi + 1;
                while (a < b) {
                    int m = a + (b - a) / 2;
                    if (cost[m] - cost[i] >= prev[m])
                        b = m;
                    else
                        a = m + 1;
                }
                if (a <= hi)
                    best = cost[a] - cost[i];
                if (a > lo && prev[a - 1] < best)
                    best = prev[a - 1];
            } else {
                for (int j = lo; j <= hi; j++) {
                    double c = cost[j] - cost[i];
                    if (c >= best || !(factor * (rule->lim[j] - rule->lim[i]) <= room))
                        break;
                    double x = prev[j] > c ? prev[j] : c;
                    if (x < best)
                        best = x;
                }
            }
            cur[i] = best;
        }
        v[r] = cur[0];
        double *t = prev;
        prev = cur;
        cur = t;
    }
    free(buf);
    return 0;
}

/* PipeDream's choice of count when the GPUs' rooms differ, the same as
 * the loop of a DP per count (the reference): with every room raised to
 * the largest, a count's optimum can only fall or stay (more splits are
 * admitted; each split's value is the same max of the same differences),
 * and with every room lowered to the least it can only rise or stay. So
 * lo[S] <= v(S) <= hi[S], both for every count from one suffix DP each:
 * a count with lo[S] >= best - PLAN_EPS cannot win (v(S) >= lo[S]), and
 * one with lo[S] == hi[S] has v(S) = lo[S] without its own DP. Only the
 * counts left run split_minmax, in the reference's order against the
 * same best. Writes the chosen count's split to gpu and its value to
 * *best (INFINITY when none is admitted); -1 when out of memory. Needs
 * sums that never fall. */
static int pipedream_pruned(const struct problem *pb, int Smax, const double *load,
                            const struct stage_rule *rule, int *trial, int *gpu,
                            double *best)
{
    double top = rule->bound[0], low = rule->bound[0];
    for (int k = 1; k < Smax; k++) {
        if (rule->bound[k] > top)
            top = rule->bound[k];
        if (rule->bound[k] < low)
            low = rule->bound[k];
    }
    /* a room that is not a number admits nothing: then no count is known
     * from hi alone */
    for (int k = 0; k < Smax; k++)
        if (isnan(rule->bound[k]))
            low = NAN;
    double *lo = malloc(2 * ((size_t)Smax + 1) * sizeof *lo);
    if (!lo)
        return -1;
    double *hi = lo + Smax + 1;
    struct stage_rule most = { rule->lim, &top, true }, least = { rule->lim, &low, true };
    if (suffix_minmax_values(pb, Smax, load, &most, lo) != 0 ||
        suffix_minmax_values(pb, Smax, load, &least, hi) != 0) {
        free(lo);
        return -1;
    }
    int pick = 0;
    *best = INFINITY;
    for (int S = 1; S <= Smax; S++) {
        /* the reference's test, on a value no greater than v(S) */
        if (!(lo[S] < INFINITY && (*best == INFINITY || lo[S] < *best - PLAN_EPS)))
            continue;
        double v = lo[S];
        if (lo[S] != hi[S]) {
            v = split_minmax(pb, S, load, rule, trial);
            if (isnan(v)) {
                free(lo);
                return -1;
            }
        }
        if (v < INFINITY && (*best == INFINITY || v < *best - PLAN_EPS)) {
            *best = v;
            pick = S;
        }
    }
    free(lo);
    if (pick > 0 && isnan(split_minmax(pb, pick, load, rule, gpu)))
        return -1;
    return 0;
}

int baseline_pipedream_allocation(const struct problem *pb, int *gpu)
{
    if (!problem_usable(pb) || !gpu)
        return -1;
    int L = pb->L, Smax = stage_limit(pb);
    double *load = prefix_new(pb, pb->f, pb->b);
    double *sw = prefix_new(pb, pb->s, pb->w);
    double *bound = malloc((size_t)Smax * sizeof *bound);
    int *trial = malloc((size_t)L * sizeof *trial);
    int rc = -1;
    if (!load || !sw || !bound || !trial)
        goto out;
    for (int k = 0; k < Smax; k++)
        bound[k] = pb->cap[k] - pb->reserved[k];
    struct stage_rule rule = { sw, bound, true };
    double best = INFINITY;
    bool sorted = !minmax_reference && non_decreasing(load, 0, L) && non_decreasing(sw, 0, L);
    bool same = sorted;
    for (int k = 1; same && k < Smax; k++)
        same = bound[k] == bound[0];
    if (same) {
        /* every count's optimum at once; the split of the one chosen */
        double *v = malloc(((size_t)Smax + 1) * sizeof *v);
        if (!v || suffix_minmax_values(pb, Smax, load, &rule, v) != 0) {
            free(v);
            goto out;
        }
        int pick = 0;
        for (int S = 1; S <= Smax; S++)
            if (v[S] < INFINITY && (best == INFINITY || v[S] < best - PLAN_EPS)) {
                best = v[S];
                pick = S;
            }
        free(v);
        if (pick > 0 && isnan(split_minmax(pb, pick, load, &rule, gpu)))
            goto out;
    } else if (sorted) {
        if (pipedream_pruned(pb, Smax, load, &rule, trial, gpu, &best) != 0)
            goto out;
    } else {
        for (int S = 1; S <= Smax; S++) {
            double v = split_minmax(pb, S, load, &rule, trial);
            if (isnan(v))
                goto out;
            /* more stages must be strictly faster to win */
            if (v < INFINITY && (best == INFINITY || v < best - PLAN_EPS)) {
                best = v;
                memcpy(gpu, trial, (size_t)L * sizeof *gpu);
            }
        }
    }
    if (best < INFINITY) {
        rc = 1;
    } else {
        double v = split_minmax(pb, Smax, load, NULL, gpu);
        rc = isnan(v) ? -1 : 0;
    }
out:
    free(load);
    free(sw);
    free(bound);
    free(trial);
    return rc;
}

/* ---- memory-aware DP ---------------------------------------------------
 *
 * For a period T, a suffix of the chain starting at layer i and split into
 * t stages is summarised by X, the transfer time of its cuts (every cut
 * after a layer >= i). The layers of the stage [i, j) in front of a suffix
 * starting at j all see the same cuts: the one after j-1 and the suffix's,
 * so their wait-free lifetimes are (compute from l to the end) + 2X(i).
 * Copy counts grow with X and nothing else in front depends on the suffix,
 * so the suffix with the least X dominates: one value per (i, t) keeps the
 * DP exact. Equal X goes to the suffix with more memory headroom (a real
 * schedule may need more copies than the wait-free count). */

struct dp {
    const struct problem *pb;
    int L, Smax;
    bool same_room;        /* cap - reserved equal on GPUs 0..Smax-1 */
    double *load;          /* [L+1] prefix of f+b */
    double *X, *slack;     /* [(Smax+1)(L+1)] per (t, i) */
    int *next;             /* end of the first stage of that suffix */
    int *trial;            /* [L] */
    double *pw, *ps;       /* [L+1] prefixes of w and s */
    /* dp_fill_cells' scratch, [L+1] each */
    double *xj;            /* a stage end's X */
    int *dead;             /* -1, or the first layer where its stage's
                              memory broke room */
    int *memi;             /* -1, or the first layer of the stage ending at
                              j whose memory is in mems[j] */
    double *mems;
    int *heap, *held;
    bool rising;           /* load never falls (times >= 0): cells can be
                              filled one by one */
    /* Which cells can lie on a whole plan at the period being tried
     * (dp_bounds): a cell (t, i) outside [rlo[t], rhi[t]] is empty and
     * never read, so a fill neither resets nor visits it. */
    double *lbm;           /* [L+1] prefix of each layer's least bytes */
    int *reach0, *reach;   /* [Smax+1] the furthest layer k stages reach:
                              with any count; with the count being filled */
    int *rlo, *rhi;        /* [Smax+1] per row t */
    double cmin, amin;     /* the least transfer time and size of a cut */
};

/* Layer i's bytes with n copies in flight: its weights (with a version
 * per copy under pipedream) and its stored activations (at most m copies
 * under 1f1b). */
static double dp_layer_bytes(const struct problem *pb, int i, double n)
{
    bool async = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    double u = async ? n : fmin(n, (double)pb->m);
    double v = async ? n : 1;
    return (pb->phi + v - 1) * pb->w[i] + pb->s[i] * u;
}

static double dp_copies(double life, double T)
{
    if (life <= 0)
        return 1;
    double q = life / T;
    double n = ceil(q - COPIES_TOL * (q > 1 ? q : 1));
    return n < 1 ? 1 : n;
}

static double dp_copies_at(const struct dp *d, int l, double X, double T)
{
    return dp_copies(d->load[d->L] - d->load[l] + 2 * X, T);
}

/* Every cell empty but the end of the chain, reached with no stage. */
static void dp_reset(struct dp *d)
{
    size_t row = (size_t)d->L + 1;
    for (size_t x = 0; x < ((size_t)d->Smax + 1) * row; x++) {
        d->X[x] = INFINITY;
        d->slack[x] = -INFINITY;
        d->next[x] = -1;
    }
    for (int t = 0; t <= d->Smax; t++) {
        d->rlo[t] = 0;
        d->rhi[t] = d->L;
    }
    d->X[d->L] = 0;
    d->slack[d->L] = INFINITY;
}

/* Rows t + 1 .. tmax left empty. */
static void dp_rows_empty(struct dp *d, int t, int tmax)
{
    for (int u = t + 1; u <= tmax; u++) {
        d->rlo[u] = 1;
        d->rhi[u] = 0;
    }
}

/* Whether a fill asked only whether some plan exists may stop after row
 * t: with any count of stages (S == 0), row t's first cell is a plan. */
static bool dp_done(const struct dp *d, int t, int S, bool any)
{
    return any && S == 0 && d->rlo[t] <= 0 && d->X[(size_t)t * ((size_t)d->L + 1)] < INFINITY;
}

/* The memory of the layers [i, j) of a stage whose cuts from j on
 * transfer X: per layer (phi + v - 1) w + u s with its wait-free copy
 * count, as the scan sums it. The count falls as l rises and takes two or
 * three values within a period of load, so the layers go by runs of one
 * count from prefix sums: a few binary searches, not the stage's length
 * (under a tight cap every stage end was summed over its whole window:
 * 10,000 layers took 50 s). Byte counts are integers, so the sums are the
 * scan's to the bit. */
static double stage_memory(const struct dp *d, int i, int j, double X, double T)
{
    const struct problem *pb = d->pb;
    bool async = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    double sum = 0;
    for (int hi = j; hi > i;) {
        double n = dp_copies_at(d, hi - 1, X, T);
        int lo = i, top = hi - 1;
        while (lo < top) {
            int mid = lo + (top - lo) / 2;
            if (dp_copies_at(d, mid, X, T) <= n)
                top = mid;
            else
                lo = mid + 1;
        }
        double u = async ? n : fmin(n, (double)pb->m);
        double v = async ? n : 1;
        sum += (pb->phi + v - 1) * (d->pw[hi] - d->pw[lo]) + u * (d->ps[hi] - d->ps[lo]);
        hi = lo;
    }
    return sum;
}

/* Room for layers on the GPU of the front's k-th stage (0-based). */
static double dp_room(const struct dp *d, int k)
{
    int g = d->same_room ? 0 : k;
    return d->pb->cap[g] - d->pb->reserved[g];
}

/* A stage's layers as a relaxation of the fill's test: its load within T,
 * and its memory within room: its layers' bytes at the copies they would
 * keep if the cuts after the stage transferred only X (what they transfer
 * at least; more only adds copies), plus bufs, the least buffers of the
 * cuts it is known to have. Both are interval sums of non-negative terms,
 * so a sub-interval of an admitted stage is admitted and greedy stages
 * reach furthest. The tolerance keeps the relaxation loose where the sums
 * are rounded differently from the fill's. */
struct dp_relax {
    double T, room, X, bufs;
};

static bool dp_relaxed_fits(const struct dp *d, int i, int j, const struct dp_relax *r)
{
    if (!(d->load[j] - d->load[i] <= r->T))
        return false;
    double lim = r->room * (1 + 1e-9) + 1 - r->bufs;
    /* the bytes at X = 0 from their prefix first: they are never more */
    if (!(d->lbm[j] - d->lbm[i] <= lim))
        return false;
    return r->X <= 0 || stage_memory(d, i, j, r->X, r->T) <= lim;
}

/* The furthest end of a stage from i (front) or the earliest start of one
 * ending at j (back) that the relaxation admits. */
static int dp_relaxed_end(const struct dp *d, int i, const struct dp_relax *r)
{
    int lo = i, hi = d->L;
    while (lo < hi) {
        int mid = hi - (hi - lo) / 2;
        if (dp_relaxed_fits(d, i, mid, r))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int dp_relaxed_start(const struct dp *d, int j, const struct dp_relax *r)
{
    int lo = 0, hi = j;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (dp_relaxed_fits(d, mid, j, r))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Where the front's k-th stage (0-based) is known to have `after` cuts
 * after it (-1: not known) and, for k > 0, one before it. */
static struct dp_relax dp_front_relax(const struct dp *d, double T, int k, int after)
{
    struct dp_relax r = { T, dp_room(d, k), after > 0 ? after * d->cmin : 0,
                          2 * d->amin * ((k > 0) + (after > 0)) };
    return r;
}

/* The same for the back's stage t (1-based from the end) of S (0: any
 * count), with room: t - 1 cuts after it, and one before it unless it is
 * the first. */
static struct dp_relax dp_back_relax(const struct dp *d, double T, double room, int t, int S)
{
    struct dp_relax r = { T, room, (t - 1) * d->cmin,
                          2 * d->amin * ((t > 1) + (S > 0 && t < S)) };
    return r;
}

/* reach[k] for k <= S: the furthest layer k stages on GPUs 0..k-1 cover
 * in the relaxation, S > 0 the count of stages (each front stage k then
 * has S - k - 1 cuts after it), S == 0 any count. */
static void dp_reach(struct dp *d, double T, int S, int *reach)
{
    int L = d->L, n = S > 0 ? S : d->Smax;
    reach[0] = 0;
    for (int k = 0; k < n; k++) {
        struct dp_relax r = dp_front_relax(d, T, k, S > 0 ? S - k - 1 : -1);
        /* the searches need sums that never fall */
        if (!d->rising) {
            reach[k + 1] = L;
        } else {
            /* stage k holds a layer: it starts at the last b <= reach[k]
             * (and >= k, one layer per stage before it) where one layer
             * fits; none, and no k + 1 stages cover anything (a roomier
             * GPU after it cannot make up for it) */
            int b = reach[k];
            while (b >= k && b < L && !dp_relaxed_fits(d, b, b + 1, &r))
                b--;
            if (b < k || b >= L) {
                for (int u = k + 1; u <= n; u++)
                    reach[u] = b >= L ? L : -1;
                break;
            }
            reach[k + 1] = dp_relaxed_end(d, b, &r);
        }
        if (reach[k + 1] == L) {
            for (int u = k + 2; u <= n; u++)
                reach[u] = L;
            break;
        }
    }
}

/* At period T, the bytes at X = 0 and reach0, the reach with any count
 * (no cut after a stage assumed): an S with reach0[S] < L has no plan, and
 * the others get their own reach (dp_reach) before their fill. A cell
 * (t, i) with i beyond the reach of the stages in front of it has no plan
 * either: with many GPUs near the load bound most cells of a row are so,
 * and filling them made 2,000 layers on 512 GPUs take 40 minutes. */
static void dp_bounds(struct dp *d, double T)
{
    const struct problem *pb = d->pb;
    int L = d->L;
    d->lbm[0] = 0;
    for (int l = 0; l < L; l++)
        d->lbm[l + 1] = d->lbm[l] + dp_layer_bytes(pb, l, dp_copies_at(d, l, 0, T));
    dp_reach(d, T, 0, d->reach0);
}

/* Fill the tables at period T. S > 0: plans of exactly S stages on GPUs
 * 0..S-1 (caps differ); S == 0: any count up to Smax (caps equal, so the
 * stage's GPU does not matter). The direct way: every stage end j, then
 * every first layer i within a period of load, O(L^2 / S) per row. */
static void dp_fill_scan(struct dp *d, double T, int S, bool any)
{
    const struct problem *pb = d->pb;
    int L = d->L, tmax = S > 0 ? S : d->Smax;
    size_t row = (size_t)L + 1;
    dp_reset(d);
    for (int t = 1; t <= tmax; t++) {
        int g = S > 0 ? S - t : 0;
        int ilo = S > 0 ? S - t : 0;
        double room = pb->cap[g] - pb->reserved[g];
        for (int j = 1; j <= L; j++) {
            size_t from = (size_t)(t - 1) * row + j;
            if (d->X[from] == INFINITY)
                continue;
            double out_c = j < L ? pb->c[j - 1] : 0;
            double out_buf = j < L ? 2 * pb->a[j - 1] : 0;
            double X = out_c + d->X[from];
            double layers = 0;
            for (int i = j - 1; i >= ilo; i--) {
                if (d->load[j] - d->load[i] > T)
                    break;
                double life = d->load[L] - d->load[i] + 2 * X;
                layers += dp_layer_bytes(pb, i, dp_copies(life, T));
                if (layers > room)
                    break; /* every layer adds memory */
                if (S > 0 && t == S && i != 0)
                    continue;
                double in_c = i > 0 ? pb->c[i - 1] : 0;
                if (in_c + out_c > T)
                    continue;
                double mem = layers + out_buf + (i > 0 ? 2 * pb->a[i - 1] : 0);
                if (mem > room)
                    continue;
                double sl = fmin(d->slack[from], room - mem);
                size_t to = (size_t)t * row + i;
                if (X < d->X[to] || (X == d->X[to] && sl > d->slack[to])) {
                    d->X[to] = X;
                    d->slack[to] = sl;
                    d->next[to] = j;
                }
            }
        }
        if (dp_done(d, t, S, any)) {
            dp_rows_empty(d, t, tmax);
            return;
        }
    }
}

/* ---- the same tables, cell by cell ----
 * Cell (t, i) keeps, over the stage ends j that reach it, the least X,
 * then the most slack, then the first j: dp_fill_scan's updates in its
 * order come to that. So each cell takes the candidates j in order of
 * (X, j) from a heap of the ends within a period of load, and stops at
 * the first that is valid there (after its ties in X, for the slack, up
 * to DP_TIES of them).
 * A stage's memory is summed exactly as the scan sums it, layer by layer
 * down from j - 1, and kept per j, so each sum is extended, never redone.
 * With distinct X the heap's top rarely changes and a row costs about
 * L log L; ties in X (identical cuts) are summed up to DP_TIES each. */

static bool key_less(const struct dp *d, int a, int b)
{
    return d->xj[a] < d->xj[b] || (d->xj[a] == d->xj[b] && a < b);
}

static void heap_push(struct dp *d, int *n, int j)
{
    int k = (*n)++;
    while (k > 0 && key_less(d, j, d->heap[(k - 1) / 2])) {
        d->heap[k] = d->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    d->heap[k] = j;
}

static int heap_pop(struct dp *d, int *n)
{
    int top = d->heap[0], last = d->heap[--*n], k = 0;
    for (;;) {
        int c = 2 * k + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && key_less(d, d->heap[c + 1], d->heap[c]))
            c++;
        if (!key_less(d, d->heap[c], last))
            break;
        d->heap[k] = d->heap[c];
        k = c;
    }
    if (*n > 0)
        d->heap[k] = last;
    return top;
}

/* The memory of stage [i, j), or INFINITY once it broke room at i or
 * above (it only grows as i falls: then j is done). The cells go down i
 * by i, so the stage [i + 1, j) was often the last asked: then one layer
 * more, added as the scan adds it. */
static double stage_layers(struct dp *d, int j, int i, double T, double room)
{
    if (d->dead[j] >= i)
        return INFINITY;
    double sum;
    if (d->memi[j] == i + 1)
        sum = d->mems[j] + dp_layer_bytes(d->pb, i, dp_copies_at(d, i, d->xj[j], T));
    else
        sum = stage_memory(d, i, j, d->xj[j], T);
    d->memi[j] = i;
    d->mems[j] = sum;
    if (sum > room) {
        d->dead[j] = i;
        return INFINITY;
    }
    return sum;
}

/* The least X decides; among its ties the most slack, looked for among
 * the first DP_TIES after the first valid end only: identical cuts (a
 * chain of equal layers) tie everywhere, and summing every tie made a
 * cell cost the whole window (100,000 such layers: hours). */
#define DP_TIES 8

static void dp_cell_set(struct dp *d, size_t at, double X, double slack, int next)
{
    d->X[at] = X;
    d->slack[at] = slack;
    d->next[at] = next;
}

static void dp_fill_cells(struct dp *d, double T, int S, bool any)
{
    const struct problem *pb = d->pb;
    int L = d->L, tmax = S > 0 ? S : d->Smax;
    size_t row = (size_t)L + 1;
    d->rlo[0] = d->rhi[0] = L;
    d->X[L] = 0;
    d->slack[L] = INFINITY;
    d->next[L] = -1;
    int back = L; /* the earliest start t stages from the end reach */
    for (int t = 1; t <= tmax; t++) {
        int g = S > 0 ? S - t : 0;
        int ilo = S > 0 ? S - t : 0;
        double room = pb->cap[g] - pb->reserved[g];
        const double *Xp = d->X + (size_t)(t - 1) * row;
        const double *Sp = d->slack + (size_t)(t - 1) * row;
        int plo = d->rlo[t - 1], phi = d->rhi[t - 1];
        struct dp_relax rb = dp_back_relax(d, T, room, t, S);
        back = d->rising ? dp_relaxed_start(d, back, &rb) : 0;
        int lo = ilo > back ? ilo : back;
        int hi = d->reach[tmax - t] < L - 1 ? d->reach[tmax - t] : L - 1;
        if (plo > phi || lo > hi) {
            /* no cell of this row or of any after it lies on a plan */
            dp_rows_empty(d, t - 1, tmax);
            return;
        }
        d->rlo[t] = lo;
        d->rhi[t] = hi;
        for (int i = lo; i <= hi; i++)
            dp_cell_set(d, (size_t)t * row + i, INFINITY, -INFINITY, -1);
        /* a stage ends after a layer: j >= 1 */
        for (int j = plo > 1 ? plo : 1; j <= phi; j++) {
            d->xj[j] = (j < L ? pb->c[j - 1] : 0) + Xp[j];
            d->dead[j] = -1;
            d->memi[j] = -1;
        }
        int n = 0;
        /* the ends beyond the row's last cell, as the cells above it would
         * have pushed them */
        for (int j = phi; j > hi + 1 && j >= plo; j--)
            if (Xp[j] != INFINITY)
                heap_push(d, &n, j);
        for (int i = hi; i >= lo; i--) {
            if (i + 1 >= plo && i + 1 <= phi && Xp[i + 1] != INFINITY)
                heap_push(d, &n, i + 1);
            /* the last stage of exactly S starts at layer 0 */
            if (S > 0 && t == S && i != 0)
                continue;
            double in_c = i > 0 ? pb->c[i - 1] : 0;
            double in_buf = i > 0 ? 2 * pb->a[i - 1] : 0;
            int nheld = 0, best = -1, ties = 0;
            double bestX = INFINITY, bestSl = -INFINITY;
            /* The common case: the top is valid and nothing ties with it,
             * so it wins without leaving the heap. */
            if (n > 0) {
                int j = d->heap[0];
                double x = d->xj[j];
                bool alone = (n < 2 || d->xj[d->heap[1]] > x) && (n < 3 || d->xj[d->heap[2]] > x);
                double layers = alone && d->load[j] - d->load[i] <= T
                                ? stage_layers(d, j, i, T, room) : INFINITY;
                double out_c = j < L ? pb->c[j - 1] : 0;
                double mem = layers + (j < L ? 2 * pb->a[j - 1] : 0) + in_buf;
                if (layers != INFINITY && in_c + out_c <= T && mem <= room) {
                    dp_cell_set(d, (size_t)t * row + i, x, fmin(Sp[j], room - mem), j);
                    continue;
                }
            }
            while (n > 0) {
                int j = d->heap[0];
                if (best >= 0 && (d->xj[j] > bestX || ++ties > DP_TIES))
                    break;
                heap_pop(d, &n);
                /* beyond a period of load from i: from every later i too */
                if (d->load[j] - d->load[i] > T)
                    continue;
                double layers = stage_layers(d, j, i, T, room);
                if (layers == INFINITY)
                    continue;
                d->held[nheld++] = j;
                double out_c = j < L ? pb->c[j - 1] : 0;
                if (in_c + out_c > T)
                    continue;
                double mem = layers + (j < L ? 2 * pb->a[j - 1] : 0) + in_buf;
                if (mem > room)
                    continue;
                double sl = fmin(Sp[j], room - mem);
                if (best < 0 || sl > bestSl) {
                    best = j;
                    bestX = d->xj[j];
                    bestSl = sl;
                }
            }
            for (int k = 0; k < nheld; k++)
                heap_push(d, &n, d->held[k]);
            if (best >= 0)
                dp_cell_set(d, (size_t)t * row + i, bestX, bestSl, best);
        }
        if (dp_done(d, t, S, any)) {
            dp_rows_empty(d, t, tmax);
            return;
        }
    }
}

static void dp_fill(struct dp *d, double T, int S, bool any)
{
    if (d->rising && !minmax_reference)
        dp_fill_cells(d, T, S, any);
    else
        dp_fill_scan(d, T, S, any);
}

static void dp_trace(const struct dp *d, int t, int *gpu)
{
    size_t row = (size_t)d->L + 1;
    int i = 0;
    for (int k = 0; i < d->L; k++, t--) {
        int j = d->next[(size_t)t * row + i];
        for (int l = i; l < j; l++)
            gpu[l] = k;
        i = j;
    }
}

static void dp_consider(const struct dp *d, int t, double *bestX,
                        double *bestSlack, int *gpu)
{
    if (d->rlo[t] > 0 || d->rhi[t] < 0)
        return;
    size_t at = (size_t)t * ((size_t)d->L + 1);
    double X = d->X[at], sl = d->slack[at];
    if (X < *bestX || (X < INFINITY && X == *bestX && sl > *bestSlack)) {
        *bestX = X;
        *bestSlack = sl;
        dp_trace(d, t, gpu);
    }
}

/* Whether some contiguous plan fits at T; the chosen one goes to gpu[]:
 * least transfer time, then most headroom, then fewest stages. With caps
 * that differ, each count of stages is a fill of its own. `any` stops at
 * the first count with a plan, all a bisection probe needs to know. */
static bool dp_feasible(struct dp *d, double T, int *gpu, bool any)
{
    double bestX = INFINITY, bestSlack = -INFINITY;
    /* the reference fill (tests) neither skips counts nor bounds rows, so
     * that it checks both */
    bool prune = d->rising && !minmax_reference;
    dp_bounds(d, T);
    if (d->same_room) {
        if (prune && d->reach0[d->Smax] < d->L)
            return false;
        /* any count: the front of a cell may hold fewer stages than it
         * could */
        d->reach[0] = d->reach0[0];
        for (int k = 1; k <= d->Smax; k++)
            d->reach[k] = d->reach0[k] > d->reach[k - 1] ? d->reach0[k] : d->reach[k - 1];
        dp_fill(d, T, 0, any);
        for (int t = 1; t <= d->Smax; t++)
            dp_consider(d, t, &bestX, &bestSlack, gpu);
    } else {
        for (int S = 1; S <= d->Smax && !(any && bestX < INFINITY); S++) {
            if (prune && d->reach0[S] < d->L)
                continue;
            dp_reach(d, T, S, d->reach);
            if (prune && d->reach[S] < d->L)
                continue;
            dp_fill(d, T, S, any);
            dp_consider(d, S, &bestX, &bestSlack, gpu);
        }
    }
    return bestX < INFINITY;
}

/* The least period at which the wait-free model still admits gpu[] with
 * the copy counts it has at T: the largest of its loads, its link loads
 * and lifetime / count over its layers (a hair above T when T was inside
 * the count tolerance). */
static double dp_snap(const struct dp *d, const int *gpu, double T)
{
    const struct problem *pb = d->pb;
    int L = d->L;
    double need = 0, X = 0;
    int j = L;
    while (j > 0) {
        int i = j - 1;
        while (i > 0 && gpu[i - 1] == gpu[j - 1])
            i--;
        double out_c = j < L ? pb->c[j - 1] : 0;
        double in_c = i > 0 ? pb->c[i - 1] : 0;
        X += out_c;
        need = fmax(need, d->load[j] - d->load[i]);
        need = fmax(need, in_c + out_c);
        for (int l = i; l < j; l++) {
            double life = d->load[L] - d->load[l] + 2 * X;
            if (life > 0)
                need = fmax(need, life / dp_copies(life, T));
        }
        j = i;
    }
    return need;
}

static void dp_free(struct dp *d)
{
    free(d->load);
    free(d->X);
    free(d->slack);
    free(d->next);
    free(d->trial);
    free(d->xj);
    free(d->pw);
    free(d->ps);
    free(d->dead);
    free(d->memi);
    free(d->mems);
    free(d->heap);
    free(d->held);
    free(d->lbm);
    free(d->reach0);
    free(d->reach);
    free(d->rlo);
    free(d->rhi);
}

int baseline_dp_allocation(const struct problem *pb, int *gpu, double *period)
{
    return baseline_dp_allocation_until(pb, gpu, period, NULL, NULL);
}

int baseline_dp_allocation_until(const struct problem *pb, int *gpu, double *period,
                                 bool (*stop)(const void *), const void *ctx)
{
    if (!problem_usable(pb) || !gpu)
        return -1;
    struct dp d = { .pb = pb, .L = pb->L, .Smax = stage_limit(pb) };
    size_t cells = ((size_t)d.Smax + 1) * ((size_t)d.L + 1);
    d.load = prefix_new(pb, pb->f, pb->b);
    d.X = malloc(cells * sizeof *d.X);
    d.slack = malloc(cells * sizeof *d.slack);
    d.next = malloc(cells * sizeof *d.next);
    d.trial = malloc((size_t)d.L * sizeof *d.trial);
    size_t row = (size_t)d.L + 1;
    d.xj = malloc(row * sizeof *d.xj);
    d.pw = prefix_new(pb, pb->w, NULL);
    d.ps = prefix_new(pb, pb->s, NULL);
    d.dead = malloc(row * sizeof *d.dead);
    d.memi = malloc(row * sizeof *d.memi);
    d.mems = malloc(row * sizeof *d.mems);
    d.heap = malloc(row * sizeof *d.heap);
    d.held = malloc(row * sizeof *d.held);
    d.lbm = malloc(row * sizeof *d.lbm);
    d.reach0 = malloc(((size_t)d.Smax + 1) * sizeof *d.reach0);
    d.reach = malloc(((size_t)d.Smax + 1) * sizeof *d.reach);
    d.rlo = malloc(((size_t)d.Smax + 1) * sizeof *d.rlo);
    d.rhi = malloc(((size_t)d.Smax + 1) * sizeof *d.rhi);
    if (!d.load || !d.X || !d.slack || !d.next || !d.trial || !d.xj || !d.pw || !d.ps ||
        !d.dead || !d.memi || !d.mems || !d.heap || !d.held || !d.lbm || !d.reach0 || !d.reach ||
        !d.rlo || !d.rhi) {
        dp_free(&d);
        return -1;
    }
    d.rising = non_decreasing(d.load, 0, d.L);
    d.cmin = d.amin = d.L > 1 ? INFINITY : 0;
    for (int j = 0; j + 1 < d.L; j++) {
        d.cmin = fmin(d.cmin, pb->c[j]);
        d.amin = fmin(d.amin, pb->a[j]);
    }
    d.same_room = true;
    for (int p = 1; p < d.Smax; p++)
        if (pb->cap[p] - pb->reserved[p] != pb->cap[0] - pb->reserved[0])
            d.same_room = false;

    /* Above every wait-free lifetime each layer keeps one copy, the least
     * memory any period allows: if nothing fits there, nothing fits. */
    double transfers = 0;
    for (int i = 0; i + 1 < d.L; i++)
        transfers += pb->c[i];
    double hi = d.load[d.L] + 2 * transfers;
    if (hi <= 0)
        hi = 1;
    if (stop && stop(ctx)) {
        dp_free(&d);
        return -2;
    }
    if (!dp_feasible(&d, hi, gpu, true)) {
        dp_free(&d);
        return baseline_time_allocation(pb, gpu) < 0 ? -1 : 0;
    }
    hi = dp_snap(&d, gpu, hi);

    /* Feasibility is monotone in T: bisect, snapping every success down to
     * the period its plan really needs, so the bracket closes on one of the
     * finitely many values (a load, a link load, a lifetime / count).
     * The period is often within a hair of the lower bound (long chains:
     * 1e-5 above it) and sometimes far (tight caps), so the bisection is
     * on the logarithm of the distance above lo until that is known to a
     * factor of 4, then on the period: 14 probes instead of 33 on 100,000
     * layers, never more than a few beyond plain halving. */
    double lb = problem_lower_bound(pb);
    double lo = lb > 0 ? lb * (1 - 1e-9) : 0;
    double lo0 = lo, gmin = SEARCH_TOL * hi / 2;
    int rc = 1;
    for (int step = 0; step < SEARCH_MAX_STEPS && hi - lo > SEARCH_TOL * hi;
         step++) {
        if (stop && stop(ctx)) {
            rc = 2;
            break;
        }
        double mid = lo + (hi - lo) / 2;
        double gl = fmax(lo - lo0, gmin), gh = hi - lo0;
        if (gh > 4 * gl)
            mid = lo0 + sqrt(gl * gh);
        if (dp_feasible(&d, mid, d.trial, true)) {
            memcpy(gpu, d.trial, (size_t)d.L * sizeof *gpu);
            hi = dp_snap(&d, gpu, mid);
        } else {
            lo = mid;
        }
    }
    /* the probes took the first count that fits; the plan is the best one
     * at the period found (it fits there: the probe's plan did) */
    if (dp_feasible(&d, hi, d.trial, false)) {
        memcpy(gpu, d.trial, (size_t)d.L * sizeof *gpu);
        hi = dp_snap(&d, gpu, hi);
    }
    if (period)
        *period = hi;
    dp_free(&d);
    return rc;
}

/* ---- plans ------------------------------------------------------------ */

static struct plan *plan_from_allocation(const struct problem *pb,
                                         const int *gpu)
{
    struct plan *pl = plan_new(pb->L, pb->P);
    if (!pl)
        return NULL;
    memcpy(pl->gpu, gpu, (size_t)pb->L * sizeof *gpu);
    if (schedule_build(pl, pb) != 0) {
        plan_free(pl);
        return NULL;
    }
    return pl;
}

typedef int (*allocation_fn)(const struct problem *pb, int *gpu);

static struct plan *baseline_run(const struct problem *pb, allocation_fn fn,
                                 bool *believed_fit)
{
    if (!problem_usable(pb))
        return NULL;
    int *gpu = malloc((size_t)pb->L * sizeof *gpu);
    if (!gpu)
        return NULL;
    int rc = fn(pb, gpu);
    struct plan *pl = rc < 0 ? NULL : plan_from_allocation(pb, gpu);
    if (pl && believed_fit)
        *believed_fit = rc != 0;
    free(gpu);
    return pl;
}

/* The three rules without a memory model always "believe" they fit. */
static int uniform_rule(const struct problem *pb, int *gpu)
{
    return baseline_uniform_allocation(pb, gpu) < 0 ? -1 : 1;
}

static int parameters_rule(const struct problem *pb, int *gpu)
{
    return baseline_parameters_allocation(pb, gpu) < 0 ? -1 : 1;
}

static int time_rule(const struct problem *pb, int *gpu)
{
    return baseline_time_allocation(pb, gpu) < 0 ? -1 : 1;
}

struct plan *baseline_uniform(const struct problem *pb)
{
    return baseline_run(pb, uniform_rule, NULL);
}

struct plan *baseline_parameters(const struct problem *pb)
{
    return baseline_run(pb, parameters_rule, NULL);
}

struct plan *baseline_time(const struct problem *pb)
{
    return baseline_run(pb, time_rule, NULL);
}

struct plan *baseline_pipedream(const struct problem *pb, bool *believed_fit)
{
    return baseline_run(pb, baseline_pipedream_allocation, believed_fit);
}

/* Whether every GPU would fit at period T if the activation lifetimes of
 * pl's schedule stayed as they are. mem[] is scratch for P values. */
static bool dp_fits_at(const struct plan *pl, const struct problem *pb,
                       double T, double *mem)
{
    bool async = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    for (int p = 0; p < pl->P; p++)
        mem[p] = pl->gpus[p].reserved + pl->gpus[p].buffers;
    for (int i = 0; i < pl->L; i++) {
        double life = pl->start[pl->L + i] + pb->b[i] - pl->start[i];
        int n = plan_inflight_count(life, T);
        double u = async ? n : fmin(n, (double)pb->m);
        double v = async ? n : 1;
        mem[pl->gpu[i]] += (pb->phi + v - 1) * pb->w[i] + pb->s[i] * u;
    }
    for (int p = 0; p < pl->P; p++)
        if (mem[p] > pb->cap[p])
            return false;
    return true;
}

/* The least period at which pl would fit with its lifetimes unchanged
 * (bisection, then down to the lifetime / count that really binds), or
 * INFINITY when one copy of everything does not fit either. */
static double dp_predict_period(const struct plan *pl, const struct problem *pb,
                                double *mem)
{
    double lo = pl->T, hi = pl->T;
    for (int i = 0; i < pl->L; i++)
        hi = fmax(hi, pl->start[pl->L + i] + pb->b[i] - pl->start[i]);
    if (!dp_fits_at(pl, pb, hi, mem))
        return INFINITY;
    for (int step = 0; step < SEARCH_MAX_STEPS && hi - lo > SEARCH_TOL * hi;
         step++) {
        double mid = lo + (hi - lo) / 2;
        if (dp_fits_at(pl, pb, mid, mem))
            hi = mid;
        else
            lo = mid;
    }
    double need = pl->T;
    for (int i = 0; i < pl->L; i++) {
        double life = pl->start[pl->L + i] + pb->b[i] - pl->start[i];
        if (life > 0)
            need = fmax(need, life / plan_inflight_count(life, hi));
    }
    return fmin(need, hi);
}

/* The list scheduler picks the least period it can place and ignores
 * memory, but the dp's split is only worth its period if it fits. When
 * the shortest schedule does not fit, schedule again from the dp's own
 * period (no schedule of this split fits below it) upwards, each time at
 * the period where the last schedule's lifetimes would fit; lifetimes
 * often shrink as T grows, so then bisect back towards the last period
 * that did not fit. */
struct plan *baseline_schedule_fitting(const struct problem *pb, const int *gpu,
                                       double period)
{
    struct plan *pl = plan_from_allocation(pb, gpu);
    if (!pl || pl->fits)
        return pl;
    struct plan *alt = plan_copy(pl);
    double *mem = malloc((size_t)pb->P * sizeof *mem);
    double T = fmax(period, pl->T), bad = T;
    bool found = false;
    for (int step = 0; alt && mem && step < DP_RESCHEDULE_STEPS; step++) {
        if (found) {
            if (T - bad <= DP_REFINE_TOL * T)
                break;
            T = bad + (T - bad) / 2;
        }
        if (schedule_build_at(alt, pb, T) != 0) {
            bad = T;
            T = found ? pl->T : T * (1 + 1.0 / 256);
            continue;
        }
        if (alt->fits) {
            struct plan *swap = pl;
            pl = alt;
            alt = swap;
            found = true;
            T = pl->T;
            continue;
        }
        bad = T;
        if (found) {
            T = pl->T;
            continue;
        }
        double next = dp_predict_period(alt, pb, mem);
        if (next == INFINITY)
            break;
        T = fmax(next, T * (1 + 1.0 / 4096));
    }
    plan_free(alt);
    free(mem);
    return pl;
}

struct plan *baseline_dp(const struct problem *pb, bool *believed_fit)
{
    return baseline_dp_until(pb, believed_fit, NULL, NULL, NULL);
}

/* The dp again on smaller rooms when its scheduled split does not fit:
 * its wait-free counts are a lower bound, and under a cap between two of
 * its splits' real needs it may pick one that does not fit where one that
 * does exists (40 equal layers on 40 GPUs: none at 6 GB, a split at 5.5).
 * First the rooms shrunk by the share the split needed beyond its cap on
 * the GPU that needed most, then halving between the largest share known
 * to give a split that fits and the least known not to; the best split
 * that fits, judged scheduled, is kept. Returns it, or NULL. */
static struct plan *dp_retry_smaller(const struct problem *pb, const struct plan *last,
                                     int *gpu, bool (*stop)(const void *), const void *ctx)
{
    double lo = 1;
    for (int p = 0; p < pb->P; p++) {
        double room = pb->cap[p] - pb->reserved[p], need = last->gpus[p].total - pb->reserved[p];
        if (need > room && room > 0)
            lo = fmin(lo, room / need);
    }
    if (!(lo < 1))
        return NULL;
    struct problem *q = problem_copy(pb);
    struct plan *best = NULL;
    double hi = 1, scale = lo;
    bool fitted = false;
    for (int r = 0; q && r < DP_RETRIES && (!fitted || hi - lo > 1.0 / 32); r++) {
        for (int p = 0; p < pb->P; p++)
            q->cap[p] = pb->reserved[p] + floor((pb->cap[p] - pb->reserved[p]) * scale);
        double period = 0;
        int rc = baseline_dp_allocation_until(q, gpu, &period, stop, ctx);
        struct plan *pl = rc == 1 ? baseline_schedule_fitting(pb, gpu, period) : NULL;
        if (rc == 2 || rc < 0 || (rc == 1 && !pl))
            break; /* stopped, or out of memory */
        bool fits = pl && pl->fits;
        if (fits && (!best || pl->objective < best->objective - PLAN_EPS)) {
            plan_free(best);
            best = pl;
            pl = NULL;
        }
        plan_free(pl);
        if (fits) {
            lo = scale;
            fitted = true;
        } else if (!fitted) {
            /* nothing fits yet: shrink further */
            hi = scale;
            lo = scale * scale;
        } else {
            hi = scale;
        }
        scale = fitted ? lo + (hi - lo) / 2 : lo;
    }
    problem_free(q);
    return best;
}

struct plan *baseline_dp_until(const struct problem *pb, bool *believed_fit,
                               bool (*stop)(const void *), const void *ctx, bool *stopped)
{
    if (stopped)
        *stopped = false;
    if (!problem_usable(pb))
        return NULL;
    int *gpu = malloc((size_t)pb->L * sizeof *gpu);
    if (!gpu)
        return NULL;
    double period = 0;
    int rc = baseline_dp_allocation_until(pb, gpu, &period, stop, ctx);
    struct plan *pl = NULL;
    if (stopped)
        *stopped = rc == 2 || rc == -2;
    if (rc == 1 || rc == 2)
        pl = baseline_schedule_fitting(pb, gpu, period);
    else if (rc == 0)
        pl = plan_from_allocation(pb, gpu);
    if (pl && !pl->fits && rc == 1) {
        struct plan *fit = dp_retry_smaller(pb, pl, gpu, stop, ctx);
        if (fit) {
            plan_free(pl);
            pl = fit;
        }
    }
    if (pl && believed_fit)
        *believed_fit = rc == 1 || rc == 2;
    free(gpu);
    return pl;
}
