/* allocset: the allocations that could still beat an objective, by
 * enumeration with bounds that need no schedule (see allocset.h,
 * doc/model.md section 5.4). */
#include "allocset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cyclic.h"
#include "plan.h"
#include "schedule.h"

#define POLL_NODES 4096
#define PACK_POLL_NODES 256    /* a packed chain's node costs far more */
#define PACK_CYCLIC_NODES 2000 /* of one GPU's operations' search (cyclic.h) */
#define PACK_GPU_OPS 32        /* a GPU's operations it searches at most */
#define PACK_PAIR_OPS CYCLIC_OPS /* two GPUs' */
#define PACK_PAIR_NODES 32     /* and their search's nodes (a node: up to 48^4 steps) */
#define BISECT 64
#define PIECES 64              /* of the periods a complete allocation is bounded over */
#define REFINE 32              /* halvings of the piece that gives its bound */
#define STEP 0.002             /* a piece's packed search: its target's step */
#define PACK_BUDGET 1024       /* and the nodes it first tries below the cutoff */
#define PACK_QUIT 8            /* and its budgets it takes at most */
#define PACK_GROW 12           /* a piece's budget doubled at most (each time it gave up) */
_Static_assert(PIECES + 2 * REFINE <= ALLOCSET_MAX_PIECES, "allocset_chain_packed's pieces");
/* The chain bound's steps (runs looked at) at most: 177 layers on 4 GPUs
 * take a few hundred thousand; a file of many thousands of short layers
 * would take minutes, and gets no chain bound. */
#define CHAIN_STEPS 50000000L
/* Bounds must stay below the model's own figures when sums are taken in
 * another order: lifetimes shrink and tolerances grow by this. */
#define SLACK 1e-9

struct walk {
    const struct problem *pb;
    const int *sym;
    const struct allocset_options *opt;
    struct allocset *out;
    int B, P, kept_cap;
    bool flushed, contiguous;
    double alpha, beta;
    int *gpu;                  /* [B] the partial allocation */
    int *used;                 /* [P] elements on GPU p so far */
    double *suffix;            /* [B+1] compute from element i to the end */
    double *life;              /* [B] wait-free lifetimes of the placed elements */
    double *wf;                /* [B] a copy of them, while life holds a piece's */
    double *mem, *load, *link; /* [P] */
    bool stopped;
};

/* Copies memory charges for a lifetime at period T (a lower bound of the
 * model's count: the lifetime of a plan is at least the wait-free one). */
static double copies(const struct walk *w, double life, double T)
{
    double n = 1;
    if (isfinite(T) && T > 0)
        n = fmax(1, ceil(life * (1 - SLACK) / T - PLAN_EPS));
    return w->flushed ? fmin(n, (double)w->pb->m) : n;
}

/* Memory that does not depend on the copies: weights (pipedream's extra
 * versions are charged with the copies). */
static double base_of(const struct walk *w, int i)
{
    return (w->flushed ? w->pb->phi : w->pb->phi - 1) * w->pb->w[i];
}

static double per_copy(const struct walk *w, int i)
{
    return w->flushed ? w->pb->s[i] : w->pb->s[i] + w->pb->w[i];
}

/* Lifetimes of elements 0..k-1 with the cuts among them; returns the
 * wait-free latency those cuts give. */
static double lifetimes(struct walk *w, int k)
{
    double acc = 0;
    for (int i = k - 1; i >= 0; i--) {
        if (i + 1 < k && w->gpu[i] != w->gpu[i + 1])
            acc += 2 * w->pb->c[i];
        w->life[i] = w->suffix[i] + acc;
    }
    return w->suffix[0] + acc;
}

/* Whether elements 0..k-1 placed, at period T, leave room for a plan:
 * loads within T, memory within the caps, and the rest's least memory and
 * compute within what is left (after lifetimes()). */
static bool fits(struct walk *w, int k, double T)
{
    const struct problem *pb = w->pb;
    int P = w->P;
    double tol = T * (1 + SLACK) + 1e-12;
    for (int p = 0; p < P; p++)
        w->mem[p] = w->load[p] = w->link[p] = 0;
    for (int i = 0; i < k; i++) {
        int p = w->gpu[i];
        w->load[p] += pb->f[i] + pb->b[i];
        w->mem[p] += base_of(w, i) + per_copy(w, i) * copies(w, w->life[i], T);
        if (i + 1 < k && w->gpu[i + 1] != p) {
            int q = w->gpu[i + 1];
            w->link[p] += pb->c[i];
            w->link[q] += pb->c[i];
            w->mem[p] += 2 * pb->a[i];
            w->mem[q] += 2 * pb->a[i];
        }
    }
    double room = 0, spare = 0;
    for (int p = 0; p < P; p++) {
        double free = pb->cap[p] - pb->reserved[p];
        if (w->load[p] > tol || w->link[p] > tol || w->mem[p] > free * (1 + SLACK))
            return false;
        room += fmax(0, free - w->mem[p]);
        if (isfinite(T))
            spare += T - w->load[p];
    }
    if (k == w->B)
        return true;
    /* the elements still to place, each at its least (no cut after it) */
    double need = 0;
    for (int i = k; i < w->B; i++)
        need += base_of(w, i) + per_copy(w, i) * copies(w, w->suffix[i], T);
    if (need > room * (1 + SLACK) + 1e-6)
        return false;
    return !isfinite(T) || w->suffix[k] <= spare * (1 + SLACK) + 1e-9;
}

/* The longest period at which a plan with this wait-free latency could
 * still beat the cutoff. */
static double longest(const struct walk *w, double lat)
{
    if (!isfinite(w->opt->cutoff))
        return INFINITY;
    return w->alpha > 0 ? (w->opt->cutoff - w->beta * lat) / w->alpha : INFINITY;
}

static void keep(struct walk *w, double T, double lat, double bound)
{
    struct allocset *as = w->out;
    as->found++;
    as->least = fmin(as->least, bound);
    if (as->n >= w->kept_cap)
        return;
    memcpy(as->gpu + (size_t)as->n * w->B, w->gpu, (size_t)w->B * sizeof *w->gpu);
    as->period[as->n] = T;
    as->latency[as->n] = lat;
    as->bound[as->n] = bound;
    as->n++;
}

/* fmax() and fmin() without their rule for NaN, which keeps the compiler
 * from inlining them: the packed chain's lifetimes (every value finite)
 * spent a sixth of their time in those calls. */
static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}

/* The least x >= v with x in [k T + lo, (k + 1) T - hi] for some k >= 0
 * and some period T in [t1, t2]: in [k t1 + lo, (k + 1) t2 - hi]. Those
 * zones start later as k grows: x is in the first that ends at or after
 * v. Rounded down (a bound). */
static double zone(double v, double lo, double hi, double t1, double t2)
{
    double k = max2(0, ceil((v * (1 - SLACK) + hi) / t2) - 1);
    return max2(v, (k * t1 + lo) * (1 - SLACK));
}

/* The least lifetime at or above `life` that an element's own forward
 * and backward (f, b) allow at some period in [t1, t2]. They share a GPU
 * and may not overlap modulo the period T: the backward starts k T + f
 * to (k + 1) T - b after the forward, so the lifetime lies in
 * [k T + f + b, (k + 1) T] for some k >= 0. */
static double own_pair(double life, double f, double b, double t1, double t2)
{
    return zone(life, f + b, 0, t1, t2);
}

/* Lifetimes over periods in [t1, t2] (after lifetimes(B) into w->wf): from
 * the last element back, each at least its wait-free lifetime plus the
 * waits of the later ones (their windows lie inside its own), rounded up
 * to what the pairs on its GPU allow. Returns the latency, element 0's
 * lifetime. */
static double waited(struct walk *w, double t1, double t2)
{
    const struct problem *pb = w->pb;
    double extra = 0;
    for (int i = w->B - 1; i >= 0; i--) {
        double life = w->wf[i] + extra;
        if (i + 1 < w->B && w->gpu[i] == w->gpu[i + 1]) {
            /* i + 1 on the same GPU, no cut: B_i starts x = L_{i+1} + w2
             * after F_{i+1} starts, B_{i+1} starts f_i + y - b_{i+1}
             * after F_i with y = L_{i+1} + w1 (w1, w2 >= 0 the waits
             * between the two, both in L_i - f_i - b_i); neither pair may
             * overlap modulo T */
            double l1 = w->life[i + 1], dd = pb->f[i] + pb->b[i];
            life = fmax(life, dd + zone(l1, pb->f[i + 1], pb->b[i], t1, t2));
            life = fmax(life, dd + zone(l1, pb->b[i + 1], pb->f[i], t1, t2));
        }
        w->life[i] = own_pair(life, pb->f[i], pb->b[i], t1, t2);
        extra = w->life[i] - w->wf[i];
    }
    return w->life[0];
}

/* One piece [t1, t2]: the lifetimes of waited() must fit at t2 (the
 * fewest copies in it), and every plan there is at least alpha t1 + beta
 * times its latency. Its bound (INFINITY when nothing fits) and latency. */
static double piece(struct walk *w, double t1, double t2, double *lat)
{
    *lat = waited(w, t1, t2);
    return fits(w, w->B, t2) ? w->alpha * t1 + w->beta * *lat : INFINITY;
}

/* A piece's bound (INFINITY: nothing fits there) and its latency. */
typedef double (*piece_fn)(void *ctx, double t1, double t2, double *lat);

/* The periods [lo, hi] cut into `pieces` (one when hi is not above lo),
 * then the piece that gives the least halved `refine` times at most,
 * while that least is below `stop`: each piece's ends, bound and latency
 * into a, b, v, l (room for pieces + refine). Returns the pieces. */
static int pieces_bound(double lo, double hi, int pieces, int refine, double stop, piece_fn fn,
                        void *ctx, double *a, double *b, double *v, double *l)
{
    int n = hi > lo ? pieces : 1;
    for (int j = 0; j < n; j++) {
        a[j] = lo + (hi - lo) * j / n;
        b[j] = j + 1 == n ? hi : lo + (hi - lo) * (j + 1) / n;
        v[j] = fn(ctx, a[j], b[j], &l[j]);
    }
    for (int r = 0; r < refine && n > 1; r++) {
        int m = 0;
        for (int j = 1; j < n; j++)
            if (v[j] < v[m])
                m = j;
        double mid = a[m] + (b[m] - a[m]) / 2;
        if (!isfinite(v[m]) || v[m] >= stop || !(mid > a[m] && mid < b[m]))
            break;
        a[n] = mid;
        b[n] = b[m];
        b[m] = mid;
        v[m] = fn(ctx, a[m], b[m], &l[m]);
        v[n] = fn(ctx, a[n], b[n], &l[n]);
        n++;
    }
    return n;
}

static double walk_piece(void *ctx, double t1, double t2, double *lat)
{
    return piece(ctx, t1, t2, lat);
}

/* Bound of a complete allocation over periods in [t_lo, top] (t_lo the
 * least at which its wait-free lifetimes fit): the range cut into PIECES,
 * the piece that gives the least halved REFINE times at most. The least
 * over the pieces that fit, the first such piece's start and their least
 * latency go to keep(). */
static void leaf_pieces(struct walk *w, double lat, double t_lo, double top)
{
    memcpy(w->wf, w->life, (size_t)w->B * sizeof *w->wf);
    double hi = isfinite(top) ? top : fmax(t_lo, w->wf[0]);
    double a[PIECES + REFINE], b[PIECES + REFINE], v[PIECES + REFINE], l[PIECES + REFINE];
    int n = pieces_bound(t_lo, hi, PIECES, REFINE, INFINITY, walk_piece, w, a, b, v, l);
    double best = INFINITY, first = INFINITY, least_lat = INFINITY;
    for (int j = 0; j < n; j++) {
        if (!isfinite(v[j]))
            continue;
        best = fmin(best, v[j]);
        first = fmin(first, a[j]);
        least_lat = fmin(least_lat, l[j]);
    }
    if (!isfinite(top)) {
        /* beyond the longest lifetime no one waits and one copy is kept */
        memcpy(w->life, w->wf, (size_t)w->B * sizeof *w->life);
        if (fits(w, w->B, hi)) {
            best = fmin(best, w->alpha * hi + w->beta * lat);
            first = fmin(first, hi);
            least_lat = fmin(least_lat, lat);
        }
    }
    memcpy(w->life, w->wf, (size_t)w->B * sizeof *w->life);
    if (best < w->opt->cutoff)
        keep(w, first, least_lat, best);
}

/* A complete allocation that passed: its least fitting period. */
static void leaf(struct walk *w, double lat, double top)
{
    double t_load = 0;
    for (int p = 0; p < w->P; p++)
        t_load = fmax(t_load, fmax(w->load[p], w->link[p]));
    /* above the longest lifetime every count is one: memory is least */
    double hi = fmin(top, fmax(t_load, w->life[0]));
    if (!(t_load > 0) || t_load > hi * (1 + SLACK) || !fits(w, w->B, hi))
        return;
    double T = t_load;
    if (!fits(w, w->B, t_load)) {
        double lo = t_load;
        for (int k = 0; k < BISECT && hi - lo > 1e-13 * hi; k++) {
            double mid = lo + (hi - lo) / 2;
            if (fits(w, w->B, mid))
                hi = mid;
            else
                lo = mid;
        }
        T = lo;                /* nothing below lo fits: a bound */
    }
    if (w->alpha * T + w->beta * lat < w->opt->cutoff)
        leaf_pieces(w, lat, T, top);
}

static void dfs(struct walk *w, int k)
{
    struct allocset *as = w->out;
    if (w->stopped)
        return;
    as->nodes++;
    if ((w->opt->max_nodes > 0 && as->nodes > w->opt->max_nodes) ||
        (w->opt->stop && as->nodes % POLL_NODES == 0 && w->opt->stop(w->opt->ctx))) {
        w->stopped = true;
        return;
    }
    double lat = lifetimes(w, k);
    double top = longest(w, lat);
    if (!(top > 0) || !fits(w, k, top))
        return;
    if (k == w->B) {
        leaf(w, lat, top);
        return;
    }
    for (int p = 0; p < w->P; p++) {
        /* identical GPUs in order of first use */
        if (!w->used[p] && p > 0 && w->sym && w->sym[p] && !w->used[p - 1])
            continue;
        if (w->contiguous && k > 0 && w->gpu[k - 1] != p && w->used[p])
            continue;
        w->gpu[k] = p;
        w->used[p]++;
        dfs(w, k + 1);
        w->used[p]--;
        if (w->stopped)
            return;
    }
}

/* Kept allocations, best bound first (stable on the order found). */
static void sort_kept(struct allocset *as)
{
    int n = as->n, B = as->B;
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && as->bound[j] < as->bound[j - 1]; j--) {
            double t;
            t = as->bound[j], as->bound[j] = as->bound[j - 1], as->bound[j - 1] = t;
            t = as->period[j], as->period[j] = as->period[j - 1], as->period[j - 1] = t;
            t = as->latency[j], as->latency[j] = as->latency[j - 1], as->latency[j - 1] = t;
            for (int b = 0; b < B; b++) {
                int g = as->gpu[(size_t)j * B + b];
                as->gpu[(size_t)j * B + b] = as->gpu[(size_t)(j - 1) * B + b];
                as->gpu[(size_t)(j - 1) * B + b] = g;
            }
        }
    }
}

void allocset_free(struct allocset *as)
{
    if (!as)
        return;
    free(as->gpu);
    free(as->period);
    memset(as, 0, sizeof *as);
    as->least = INFINITY;
}

int allocset_search(const struct problem *pb, const int *sym, const struct allocset_options *opt,
                    struct allocset *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    out->least = INFINITY;
    if (!pb || !opt || pb->L < 1 || pb->P < 1 || opt->max_keep < 0)
        return -1;
    int B = pb->L, P = pb->P, keep_n = opt->max_keep;
    struct walk w = {
        .pb = pb, .sym = sym, .opt = opt, .out = out, .B = B, .P = P, .kept_cap = keep_n,
        .flushed = pb->schedule == SPEC_SCHEDULE_1F1B,
        .contiguous = pb->layout == LAYOUT_CONTIGUOUS,
    };
    problem_objective_weights(pb, &w.alpha, &w.beta);
    int *ints = malloc((size_t)(B + P) * sizeof *ints);
    double *dbl = malloc((size_t)(3 * B + 1 + 3 * P) * sizeof *dbl);
    out->gpu = malloc(((size_t)keep_n * B + 1) * sizeof *out->gpu);
    out->period = malloc(((size_t)3 * keep_n + 1) * sizeof *out->period);
    if (!ints || !dbl || !out->gpu || !out->period) {
        free(ints);
        free(dbl);
        allocset_free(out);
        return -1;
    }
    out->B = B;
    out->P = P;
    out->latency = out->period + keep_n;
    out->bound = out->period + 2 * keep_n;
    w.gpu = ints;
    w.used = ints + B;
    memset(w.used, 0, (size_t)P * sizeof *w.used);
    w.suffix = dbl;
    w.life = dbl + B + 1;
    w.wf = dbl + 2 * B + 1;
    w.mem = dbl + 3 * B + 1;
    w.load = w.mem + P;
    w.link = w.load + P;
    w.suffix[B] = 0;
    for (int i = B - 1; i >= 0; i--)
        w.suffix[i] = w.suffix[i + 1] + pb->f[i] + pb->b[i];
    dfs(&w, 0);
    out->complete = !w.stopped;
    sort_kept(out);
    free(ints);
    free(dbl);
    return 0;
}

/* ---- every allocation at once: the chain bound ---- */

/* The packing counts. The runs a GPU holds have memory m_1, m_2, ...
 * within its room, at most the roomiest GPU's R, so sum_j u(m_j / R) <= 1
 * for any dual feasible function u (Fekete and Schepers): here u_e(y) = 1
 * above 1 - e, y in [e, 1 - e], 0 below e. Over the GPUs the runs' sum is
 * at most P. Each run counts u in units of 1/D rounded down; D = 0 is the
 * plain chain, which counts nothing. The same holds for the runs' compute
 * against the period (load: y = compute / t2, the runs a GPU holds sum to
 * at most T <= t2): near the loads' bound runs over half the period
 * cannot share a GPU, and those a little under it cannot take each
 * other's leftovers. With the contiguous layout a GPU holds one run, so
 * every run counts a whole unit (each): at most P runs, which neither
 * measure can add to. */
struct count {
    double eps;
    int D;
    bool each;
    bool load;                 /* u of the run's compute, not its memory */
};
static const struct count COUNTS_ANY[] = {
    {0, 0, false, false},
    {0.5, 2, false, false}, {0.5, 2, false, true},
    {1.0 / 3, 6, false, false}, {1.0 / 3, 6, false, true},
    {0.25, 8, false, false}, {0.25, 8, false, true},
};
static const struct count COUNTS_CONTIGUOUS[] = {{0, 0, false, false}, {0, 1, true, false}};
#define MAX_COUNTS (int)(sizeof COUNTS_ANY / sizeof COUNTS_ANY[0])

/* The counts for pb's layout, plain chain first, into out; returns their
 * number. A memory count is left out where no run can reach its e of the
 * roomiest GPU (1f1b: every element's weights and m copies, and buffers of
 * the largest cut at both ends, together below it): there it counts
 * nothing and would only take the budget of a count that can. */
static int counts_for(const struct problem *pb, struct count *out)
{
    if (pb->layout == LAYOUT_CONTIGUOUS) {
        memcpy(out, COUNTS_CONTIGUOUS, sizeof COUNTS_CONTIGUOUS);
        return (int)(sizeof COUNTS_CONTIGUOUS / sizeof COUNTS_CONTIGUOUS[0]);
    }
    double most = INFINITY, room = 0;
    if (pb->schedule == SPEC_SCHEDULE_1F1B) {
        double amax = 0;
        most = 0;
        for (int i = 0; i < pb->L; i++) {
            most += pb->phi * pb->w[i] + (double)pb->m * pb->s[i];
            if (i + 1 < pb->L)
                amax = fmax(amax, pb->a[i]);
        }
        most += 4 * amax;
    }
    for (int p = 0; p < pb->P; p++)
        room = fmax(room, pb->cap[p] - pb->reserved[p]);
    int n = 0;
    for (int c = 0; c < MAX_COUNTS; c++)
        if (COUNTS_ANY[c].D == 0 || COUNTS_ANY[c].load ||
            !(most < COUNTS_ANY[c].eps * room * (1 + SLACK)))
            out[n++] = COUNTS_ANY[c];
    return n;
}

/* A count's levels on P GPUs: 0..D P units. */
static size_t count_k(const struct count *cnt, int P)
{
    return (size_t)cnt->D * (size_t)P + 1;
}

struct chain {
    struct walk w;             /* for copies(), base_of(), per_copy() */
    int K;                     /* count levels of the count being run: D P + 1 */
    struct count cnt;
    struct count counts[MAX_COUNTS]; /* the layout's counts (counts_for()) */
    int ncounts;               /* counts run (counts[0..ncounts-1]), as the budget allows */
    /* [(L+1) K], by (r, k): the least over the plans in which i (i+1) is in
     * a run ending at r - 1 and the runs after it count at most k */
    double *prev, *cur;        /* lifetime of i (i+1) */
    double *mprev, *mcur;      /* that run's memory from i (i+1) on */
    double *tprev, *tcur;      /* every layer's memory from i (i+1) on, with
                                  the buffers of their cuts on both sides */
    double *down;              /* [(L+1) K] by (r, k): least time from the end of
                                  F_{r-1} to the start of B_{r-1}, the rest of
                                  the chain after a cut (0 at the chain's end) */
    double *sf, *sb;           /* [L+1] forward, backward times of 0..i-1 */
    double *next, *cand;       /* [K] least lifetime of i + 1, its run counted, by count */
    double *lmin;              /* [L] least lifetime of i over every allocation */
    double *lcnt;              /* [L] the same under one count */
    double *tsuf;              /* [L+1] least memory of the layers from i on
                                  (the buffers of the cuts among them), the
                                  largest over the counts */
    double tmin;               /* least memory of the whole chain */
    double least;              /* the least piece's bound so far */
    double *buf;
    double free_sum, free_max;
};

/* Units of a run with memory mem, or for a count of the load its compute
 * over periods up to t2 (lower bounds of them: u is monotone). */
static int run_units(const struct chain *ch, double mem, double load, double t2)
{
    if (ch->cnt.each)
        return ch->cnt.D;
    if (ch->cnt.D == 0 || !(ch->cnt.load ? t2 > 0 : ch->free_max > 0))
        return 0;
    double y = ch->cnt.load ? load / t2 : mem / ch->free_max, e = ch->cnt.eps;
    if (y > (1 - e) * (1 + SLACK))
        return ch->cnt.D;
    if (y < e * (1 + SLACK))
        return 0;
    return (int)floor(ch->cnt.D * y * (1 - SLACK));
}

/* The least y >= base with y = k T + (pre[q] - pre[i]) for some k >= 0,
 * some period T in [t1, t2] and some q in (i, r): a gap of a nested arc
 * after the run's first q - i operations. The least such prefix at or
 * above base - k t2, for the least k at which the largest one is, gives
 * it (a larger k puts y at least t1 - sF later). INFINITY when the run
 * has no inner gap (one element). Rounded down (a bound). */
static double nest_phase(const double *pre, int i, int r, double base, double t1, double t2)
{
    if (r - i < 2)
        return INFINITY;
    double lo = base * (1 - SLACK), top = pre[r - 1] - pre[i];
    double k = max2(0, ceil((lo - top) / t2));
    int a = i + 1, b = r - 1;          /* least q in [a, b] with pre[q] - pre[i] >= lo - k t2 */
    if (pre[b] - pre[i] < lo - k * t2) {
        k += 1;                        /* only by rounding */
        b = a;
    }
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (pre[mid] - pre[i] >= lo - k * t2)
            b = mid;
        else
            a = mid + 1;
    }
    return max2(base, (k * t1 + pre[a] - pre[i]) * (1 - SLACK));
}

/* The least lifetime of i when i..r-1 are on one GPU and the rest of the
 * chain takes down from the end of F_{r-1} to the start of B_{r-1}: the
 * run's own pair zone (section 5.5). Its forwards span an arc of the
 * period (their times sF and the waits between them), its backwards
 * another (sB and waits); mod T the two overlap by no more than the waits,
 * so the phase of the backwards' start is in [sF - waits, T - sB]: a wait
 * there costs what a later start would. So the lifetime is in
 * [k T + sF + sB, (k + 1) T], unless one arc holds the other, or an arc
 * spans the whole period (waits of T - sF or T - sB). The backwards
 * inside the forwards' arc start in a gap after the run's first j
 * forwards, at a phase of their times P_j plus the waits before the gap,
 * and those waits count in the lifetime: it is sB + y with y >= sF + sB +
 * down and y = P_j mod T; likewise the forwards inside the backwards'
 * arc, sF + y with y = (the last j backwards' times) mod T. */
static double run_zone(const struct chain *ch, int i, int r, double down, double t1, double t2)
{
    double sF = ch->sf[r] - ch->sf[i], sB = ch->sb[r] - ch->sb[i], base = sF + sB + down;
    double z = zone(base, sF + sB, 0, t1, t2);
    if (z <= base + min2(sF, sB))
        return z;                      /* every other way waits more */
    double v = min2(z, base + t1 - max2(sF, sB));
    v = min2(v, sB + nest_phase(ch->sf, i, r, base, t1, t2));
    return min2(v, sF + nest_phase(ch->sb, i, r, base, t1, t2));
}

/* Least lifetimes over every allocation at periods in [t1, t2] under the
 * count ch->cnt (into lcnt), by dynamic programming from the last element
 * back over the runs (elements on one GPU with no cut between). The state
 * is (i, r, k): i to r - 1 in one run, the runs after it counting at most
 * k. A run's compute fits in the period and its memory (the buffers of
 * the cuts at both its ends too) in the roomiest GPU; all the runs count
 * at most D P. At a cut a transfer each way joins the lifetime, in a run
 * the rules of waited() apply. Every rule is monotone in the later
 * lifetime, so the least of each state bounds every plan in it. Returns
 * element 0's least lifetime, INFINITY when no allocation passes. */
static double chain_count(struct chain *ch, double t1, double t2)
{
    struct walk *w = &ch->w;
    const struct problem *pb = w->pb;
    int L = pb->L, K = ch->K;
    double tol = t2 * (1 + SLACK) + 1e-12, room = ch->free_max * (1 + SLACK);
    double tnext = 0;          /* least memory from i + 1 on */
    for (int k = 0; k < K; k++)
        ch->next[k] = INFINITY;
    for (int i = L - 1; i >= 0; i--) {
        double f = pb->f[i], b = pb->b[i], dd = f + b, run = 0, least = INFINITY;
        int r = i + 1;
        for (; r <= L; r++) {
            double *cur = ch->cur + (size_t)r * K;
            run += pb->f[r - 1] + pb->b[r - 1];
            if (run > tol)
                break;
            for (int k = 0; k < K; k++) {
                cur[k] = INFINITY;
                double life, mem, tot;
                if (r == i + 1 && i + 1 == L) {
                    life = dd;     /* the chain's end: no run after it */
                    ch->down[(size_t)r * K + k] = 0;
                    mem = tot = 0;
                } else if (r == i + 1) {
                    /* a cut after i: its buffers are on both of its GPUs */
                    ch->down[(size_t)r * K + k] = 2 * pb->c[i] + ch->next[k];
                    life = dd + ch->down[(size_t)r * K + k];
                    mem = 2 * pb->a[i];
                    tot = 4 * pb->a[i] + tnext;
                } else {
                    const size_t at = (size_t)r * K + (size_t)k;
                    life = ch->prev[at];
                    double l1 = life;
                    if (isfinite(l1)) {
                        life = fmax(l1 + dd, dd + zone(l1, pb->f[i + 1], b, t1, t2));
                        life = fmax(life, dd + zone(l1, pb->b[i + 1], f, t1, t2));
                        life = fmax(life, run_zone(ch, i, r, ch->down[at], t1, t2));
                    }
                    mem = ch->mprev[at];
                    tot = ch->tprev[at];
                }
                if (!isfinite(life))
                    continue;
                life = own_pair(life, f, b, t1, t2);
                double own = base_of(w, i) + per_copy(w, i) * copies(w, life, t2);
                if (mem + own > room)
                    continue;
                cur[k] = life;
                ch->mcur[(size_t)r * K + k] = mem + own;
                ch->tcur[(size_t)r * K + k] = tot + own;
                least = fmin(least, life);
            }
        }
        if (!isfinite(least))
            return INFINITY;
        ch->lcnt[i] = least;
        /* i's runs as seen from a cut before it (i > 0: its buffers join
         * the run), or as the first run: counted */
        double in = i > 0 ? 2 * pb->a[i - 1] : 0;
        for (int k = 0; k < K; k++)
            ch->cand[k] = INFINITY;
        tnext = INFINITY;
        for (int q = i + 1; q < r; q++)
            for (int k = 0; k < K; k++) {
                size_t at = (size_t)q * K + (size_t)k;
                double life = ch->cur[at];
                if (!isfinite(life) || ch->mcur[at] + in > room)
                    continue;
                int kk = k + run_units(ch, ch->mcur[at] + in,
                                       ch->sf[q] - ch->sf[i] + ch->sb[q] - ch->sb[i], t2);
                if (kk >= K)
                    continue;
                ch->cand[kk] = fmin(ch->cand[kk], life);
                tnext = fmin(tnext, ch->tcur[at]);
            }
        for (int k = 0; k < K; k++)
            ch->next[k] = fmin(ch->cand[k], k > 0 ? ch->next[k - 1] : INFINITY);
        ch->tsuf[i] = fmax(ch->tsuf[i], tnext);
        double *t = ch->prev;
        ch->prev = ch->cur;
        ch->cur = t;
        t = ch->mprev;
        ch->mprev = ch->mcur;
        ch->mcur = t;
        t = ch->tprev;
        ch->tprev = ch->tcur;
        ch->tcur = t;
    }
    ch->tmin = fmax(ch->tmin, tnext);
    /* element 0's states leave its own run out of the count: the chains
     * counted whole bound it (nine runs on eight GPUs otherwise) */
    ch->lcnt[0] = max2(ch->lcnt[0], ch->next[K - 1]);
    return ch->next[K - 1];
}

/* Least lifetimes at periods in [t1, t2] under counts from..to-1 (into
 * lmin, the largest of theirs and of those already there when from > 0),
 * and whether they leave room: each count passes and the least memory of
 * all the layers (the copies at t2, the fewest in the range, and the
 * buffers of the cuts) is within all the GPUs' room. */
static bool chain_fits(struct chain *ch, double t1, double t2, int from, int to)
{
    int L = ch->w.pb->L;
    if (from == 0) {
        ch->tmin = 0;
        for (int i = 0; i <= L; i++)
            ch->tsuf[i] = 0;
    }
    for (int c = from; c < to; c++) {
        ch->cnt = ch->counts[c];
        ch->K = (int)count_k(&ch->cnt, ch->w.P);
        if (!isfinite(chain_count(ch, t1, t2)))
            return false;
        for (int i = 0; i < L; i++)
            ch->lmin[i] = c == 0 ? ch->lcnt[i] : fmax(ch->lmin[i], ch->lcnt[i]);
    }
    return ch->tmin <= ch->free_sum * (1 + SLACK) + 1e-6;
}

/* One piece [t1, t2] of the chain bound: the plain chain's, and the
 * counts' only when the plain one is below the least piece so far (a
 * piece at or above it cannot give the least, and the plain chain's value
 * bounds it anyway). */
static double chain_piece(void *ctx, double t1, double t2, double *lat)
{
    struct chain *ch = ctx;
    if (!chain_fits(ch, t1, t2, 0, 1))
        return INFINITY;
    double v = ch->w.alpha * t1 + ch->w.beta * ch->lmin[0];
    if (ch->ncounts > 1 && v < ch->least) {
        if (!chain_fits(ch, t1, t2, 1, ch->ncounts))
            return INFINITY;
        v = ch->w.alpha * t1 + ch->w.beta * ch->lmin[0];
        ch->least = fmin(ch->least, v);
    }
    *lat = ch->lmin[0];
    return v;
}

/* Set up for the counts 0..ncounts-1. */
static int chain_init(struct chain *ch, const struct problem *pb, int ncounts)
{
    memset(ch, 0, sizeof *ch);
    struct walk *w = &ch->w;
    w->pb = pb;
    w->B = pb->L;
    w->P = pb->P;
    w->flushed = pb->schedule == SPEC_SCHEDULE_1F1B;
    problem_objective_weights(pb, &w->alpha, &w->beta);
    for (int p = 0; p < pb->P; p++) {
        double free = pb->cap[p] - pb->reserved[p];
        ch->free_sum += fmax(0, free);
        ch->free_max = fmax(ch->free_max, free);
    }
    int avail = counts_for(pb, ch->counts);
    ch->ncounts = ncounts < avail ? ncounts : avail;
    ch->least = INFINITY;
    size_t K = 1;
    for (int c = 0; c < ch->ncounts; c++)
        K = count_k(&ch->counts[c], pb->P) > K ? count_k(&ch->counts[c], pb->P) : K;
    size_t L = (size_t)pb->L, S = (L + 1) * K;
    double *v = malloc((7 * S + 2 * K + 5 * L + 3) * sizeof *v);
    if (!v)
        return -1;
    ch->buf = v;
    double **part[] = {&ch->prev, &ch->cur, &ch->mprev, &ch->mcur, &ch->tprev, &ch->tcur,
                       &ch->down};
    for (int j = 0; j < 7; j++)
        *part[j] = v + (size_t)j * S;
    ch->next = v + 7 * S;
    ch->cand = ch->next + K;
    ch->lmin = ch->cand + K;
    ch->lcnt = ch->lmin + L;
    ch->sf = ch->lcnt + L;
    ch->sb = ch->sf + L + 1;
    ch->tsuf = ch->sb + L + 1;
    ch->sf[0] = ch->sb[0] = 0;
    for (size_t i = 0; i < L; i++) {
        ch->sf[i + 1] = ch->sf[i] + pb->f[i];
        ch->sb[i + 1] = ch->sb[i] + pb->b[i];
    }
    return 0;
}

/* Runs chain_lives() looks at for periods up to t2. */
static long chain_span(const struct problem *pb, double t2)
{
    long span = 0;
    double run = 0, tol = t2 * (1 + SLACK) + 1e-12;
    for (int i = 0, r = 0; i < pb->L; i++) {
        if (r < i) {
            r = i;
            run = 0;
        }
        while (r < pb->L && run + pb->f[r] + pb->b[r] <= tol) {
            run += pb->f[r] + pb->b[r];
            r++;
        }
        span += r - i + 1;
        if (r > i)
            run -= pb->f[i] + pb->b[i];
    }
    return span;
}

static void chain_free(struct chain *ch)
{
    free(ch->buf);
    ch->buf = NULL;
}

/* The most counts whose steps (span each, per count level) stay within
 * budget; 0 when not even the plain chain does. */
static int counts_within(const struct problem *pb, long span, double budget)
{
    struct count counts[MAX_COUNTS];
    int n = 0, avail = counts_for(pb, counts);
    long levels = 0;           /* of counts 0..n-1, summed */
    while (n < avail &&
           (double)span * (double)(levels + (long)count_k(&counts[n], pb->P)) <= budget)
        levels += (long)count_k(&counts[n++], pb->P);
    return n;
}

int allocset_chain_lifetimes(const struct problem *pb, double t1, double t2, double *life)
{
    if (!pb || pb->L < 1 || pb->P < 1 || !life || !(t1 > 0) || !(t2 >= t1) || !isfinite(t2))
        return -1;
    int n = counts_within(pb, chain_span(pb, t2), CHAIN_STEPS / 8);
    struct chain ch;
    if (n < 1 || chain_init(&ch, pb, n) != 0)
        return -1;
    bool ok = chain_fits(&ch, t1, t2, 0, n);
    if (ok)
        memcpy(life, ch.lmin, (size_t)pb->L * sizeof *life);
    chain_free(&ch);
    return ok ? 0 : 1;
}

/* A micro-batch's round trip with a cut after every element bounds every
 * lifetime, so each counts one copy there (the model's rounding tolerance
 * aside: a little more). */
static double round_trip_period(const struct problem *pb)
{
    double round_trip = 0;
    for (int i = 0; i < pb->L; i++)
        round_trip += pb->f[i] + pb->b[i] + (i + 1 < pb->L ? 2 * pb->c[i] : 0);
    return fmax(round_trip, SCHEDULE_MIN_T) * 1.001;
}

int allocset_chain_round_trip(const struct problem *pb, double *life)
{
    if (!pb || pb->L < 1 || pb->P < 1 || !life)
        return -1;
    double T = round_trip_period(pb);
    return isfinite(T) ? allocset_chain_lifetimes(pb, T, T, life) : -1;
}

int allocset_chain_none_fits(const struct problem *pb)
{
    if (!pb || pb->L < 1)
        return -1;
    double *life = malloc((size_t)pb->L * sizeof *life);
    if (!life)
        return -1;
    int rc = allocset_chain_round_trip(pb, life);
    free(life);
    return rc;
}

/* The longest period at which a plan could beat cutoff (into *t_hi).
 * Returns NAN when the periods from *t_lo to it are to be searched, or
 * else the bound itself: the cutoff when no period lets a plan beat it,
 * -INFINITY on bad arguments.
 *
 * One micro-batch (1f1b, the objective the latency alone): every layer
 * keeps one copy at any period, and a plan's allocation run with no wait
 * at a period longer than the chain with a cut after every layer fits
 * there too, with no longer a latency. So the least over that one period
 * bounds every period: *t_lo and *t_hi are both set to it. */
static double chain_range(const struct problem *pb, double cutoff, double *t_lo, double *t_hi)
{
    if (!pb || pb->L < 1 || pb->P < 1 || !isfinite(cutoff) || !(*t_lo > 0) || !isfinite(*t_lo))
        return -INFINITY;
    double alpha, beta, chain = 0;
    problem_objective_weights(pb, &alpha, &beta);
    for (int i = 0; i < pb->L; i++)
        chain += pb->f[i] + pb->b[i];
    if (!(alpha > 0)) {
        double T = round_trip_period(pb);
        if (!(beta > 0) || !isfinite(T))
            return -INFINITY;
        *t_lo = *t_hi = fmax(*t_lo, T);
        return NAN;
    }
    *t_hi = (cutoff - beta * chain) / alpha;
    if (*t_hi < *t_lo)
        return cutoff;
    return NAN;
}

double allocset_chain_bound(const struct problem *pb, double cutoff, double t_lo)
{
    double t_hi, early = chain_range(pb, cutoff, &t_lo, &t_hi);
    if (!isnan(early))
        return early;
    /* 64 pieces and 32 halvings with every count the budget allows, or
     * the plain chain on fewer pieces to stay within CHAIN_STEPS */
    long span = chain_span(pb, t_hi);
    int pieces = PIECES, refine = REFINE;
    int n = counts_within(pb, span, (double)CHAIN_STEPS / (PIECES + 2 * REFINE));
    if (n < 1) {
        n = 1;
        pieces = (int)fmin(PIECES, (double)CHAIN_STEPS / 3 / (double)span);
        refine = pieces < REFINE ? pieces : REFINE;
        if (pieces < 2)
            return -INFINITY;
    }
    struct chain ch;
    if (chain_init(&ch, pb, n) != 0)
        return -INFINITY;
    double a[PIECES + REFINE], b[PIECES + REFINE], val[PIECES + REFINE], lat[PIECES + REFINE];
    int got = pieces_bound(t_lo, t_hi, pieces, refine, cutoff, chain_piece, &ch, a, b, val, lat);
    double least = INFINITY;
    for (int j = 0; j < got; j++)
        least = fmin(least, val[j]);
    chain_free(&ch);
    return fmin(cutoff, least);
}

/* ---- the chain's runs packed onto the GPUs ---- */

/* The search over the runs of one piece of the periods [t1, t2]: the
 * chain split into runs in chain order, each run given a GPU. */
struct pack {
    struct chain *ch;
    const struct allocset_options *opt;
    int L, P;
    double t1, t2;
    double cutoff;             /* objective to beat (falls as the caller's plans do) */
    double best;               /* least value below the cutoff so far */
    double *life;              /* [L] lifetimes of the layers placed */
    double *base, *pcopy;      /* [L] each layer's memory without copies, per copy */
    double *floor;             /* [L*P] at depth k: GPU p's memory before any child */
    int *ord_r;                /* [cap] a stack of runs' ends to try ... */
    double *ord_v;             /* [cap] ... and their values */
    int top, cap;
    double *rmem, *rload;      /* [L] each run's memory, compute */
    double *room, *gmem, *gload; /* [P] */
    int *cut;                  /* [L+1] run j is cut[j]..cut[j+1]-1 */
    int *gpu;                  /* [L] run j's GPU */
    int *lgpu;                 /* [L] a complete split's layers' GPUs, for opt->split */
    int *nruns;                /* [P] runs on GPU p */
    bool *sym;                 /* [P] GPU p is GPU p-1's twin */
    long nodes, max_nodes;
    long lim;                  /* a search's own budget: nodes up to it (0: none) */
    bool stopped, spent;       /* stopped: by the limits; spent: lim passed */
    bool found;                /* a complete split below the best */
    long quit;                 /* a search's nodes up to it at most (0: no end) */
    bool gaveup;               /* stopped by quit */
    double step;               /* the best once past lim */
    double above;              /* least value of a partial split cut off by the best */
    /* a GPU's own operations (pack_ops_span) */
    struct cyclic cy;
    double *lfloor;            /* [L] lifetimes they force (0: none) */
    int *undo_i, nundo;        /* floors raised: layer, value before */
    double *undo_v;
    double od[CYCLIC_OPS], og[CYCLIC_OPS];   /* durations, least gaps after */
    int ogpu[CYCLIC_OPS];                    /* and GPUs */
};

/* Lifetimes of run j's layers by the rules of chain_count(), from its
 * last back, with `down` the least time from the end of its last forward
 * to the start of its last backward; its memory (the buffers of the cuts
 * at both its ends too) and compute. */
static void pack_run(struct pack *q, int j, double down)
{
    struct chain *ch = q->ch;
    const struct problem *pb = ch->w.pb;
    int s0 = q->cut[j], r = q->cut[j + 1];
    double mem = 0, t1 = q->t1, t2 = q->t2;
    for (int i = r - 1; i >= s0; i--) {
        double f = pb->f[i], b = pb->b[i], dd = f + b, life;
        if (i == r - 1) {
            life = dd + down;
        } else {
            double l1 = q->life[i + 1];
            life = max2(l1 + dd, dd + zone(l1, pb->f[i + 1], b, t1, t2));
            life = max2(life, dd + zone(l1, pb->b[i + 1], f, t1, t2));
            life = max2(life, run_zone(ch, i, r, down, t1, t2));
        }
        life = own_pair(max2(life, q->lfloor[i]), f, b, t1, t2);
        q->life[i] = life;
        /* copies() inlined: this loop is the search's cost */
        double n = ceil(life * (1 - SLACK) / t2 - PLAN_EPS);
        n = n < 1 ? 1 : n;
        if (ch->w.flushed && n > pb->m)
            n = pb->m;
        mem += q->base[i] + q->pcopy[i] * n;
    }
    mem += (r < q->L ? 2 * pb->a[r - 1] : 0) + (s0 > 0 ? 2 * pb->a[s0 - 1] : 0);
    q->rmem[j] = mem;
    q->rload[j] = ch->sf[r] - ch->sf[s0] + ch->sb[r] - ch->sb[s0];
}

/* The least time from the end of the forward before cut[j+1] to the start
 * of its backward: a transfer each way and the lifetime after the cut
 * (the rest of the chain at its least lifetime past cut[k]); 0 at the
 * chain's end. */
static double pack_down(const struct pack *q, int j, int k)
{
    const struct chain *ch = q->ch;
    int end = q->cut[j + 1];
    if (end >= q->L)
        return 0;
    return 2 * ch->w.pb->c[end - 1] + (j + 1 < k ? q->life[end] : ch->lmin[end]);
}

/* Lifetimes, memory and compute of runs from..0, the runs after `from`
 * as they are (runs 0..k-1 placed, the rest of the chain at its least
 * lifetime). Returns layer 0's lifetime. */
static double pack_eval_from(struct pack *q, int from, int k)
{
    for (int j = from; j >= 0; j--)
        pack_run(q, j, pack_down(q, j, k));
    return q->life[0];
}

/* Lifetimes of the layers of runs 0..k-1 (the rest of the chain at its
 * least lifetime, lmin) by the rules of chain_count() from the last back,
 * and each run's memory (the buffers of the cuts at both its ends) and
 * compute. Returns layer 0's lifetime. */
static double pack_eval(struct pack *q, int k)
{
    return pack_eval_from(q, k - 1, k);
}

static bool pack_over(const struct pack *q, double mem, double load, int p)
{
    return mem > q->room[p] * (1 + SLACK) + 1e-9 || load > q->t2 * (1 + SLACK) + 1e-12;
}

/* The memory and compute of runs 0..k-1 summed on their GPUs (into
 * mem[P], load[P]). */
static void pack_sums(const struct pack *q, int k, double *mem, double *load)
{
    for (int p = 0; p < q->P; p++)
        mem[p] = load[p] = 0;
    for (int j = 0; j < k; j++) {
        mem[q->gpu[j]] += q->rmem[j];
        load[q->gpu[j]] += q->rload[j];
    }
}

/* The memory and compute of runs 0..k-1 on their GPUs (they grow with
 * the lifetimes after them); true when a GPU's exceed its room or the
 * period. */
static bool pack_gpus(struct pack *q, int k)
{
    pack_sums(q, k, q->gmem, q->gload);
    for (int p = 0; p < q->P; p++)
        if (pack_over(q, q->gmem[p], q->gload[p], p))
            return true;
    return false;
}

/* Whether run k may go on GPU p: not the GPU of the run before (one GPU,
 * no cut: the same run), twins in order of first use, and with the
 * contiguous layout one run per GPU. */
static bool pack_allowed(const struct pack *q, int k, int p)
{
    if (k > 0 && q->gpu[k - 1] == p)
        return false;
    if (q->nruns[p] == 0 && p > 0 && q->sym[p] && q->nruns[p - 1] == 0)
        return false;
    return !(q->nruns[p] > 0 && q->ch->w.pb->layout == LAYOUT_CONTIGUOUS);
}

static void pack_dfs(struct pack *q, int k);

/* Whether a split of value v (or every split below a partial one of that
 * value) is cut off by the best; its value is then kept in q->above, the
 * least of those cut off, which is what a search by steps ends with as the
 * piece's bound: every prune by value must go through here. */
static bool pack_cut(struct pack *q, double v)
{
    if (v < q->best)
        return false;
    q->above = fmin(q->above, v);
    return true;
}

/* Runs 0..k are a complete split below the best: its allocation to the
 * caller, who may have a plan from it that lowers the cutoff. */
static void pack_offer(struct pack *q, int k)
{
    for (int j = 0; j <= k; j++)
        for (int i = q->cut[j]; i < q->cut[j + 1]; i++)
            q->lgpu[i] = q->gpu[j];
    double c = q->opt->split(q->opt->ctx, q->lgpu, q->best);
    if (c < q->cutoff)
        q->cutoff = c;
    if (c < q->best)
        q->best = c;
}

/* GPU p's operations of one micro-batch among runs 0..n-1 (with p2 >= 0,
 * p's and p2's), in the order its trip visits them (the forwards of its
 * runs in chain order, then their backwards in reverse): their durations
 * into q->od, their GPUs into q->ogpu and into q->og the least time from
 * each one's end to the next one's start: 0 inside a run; between two of
 * its runs the layers between (on other GPUs) and a transfer at each cut;
 * between its last forward and backward, a transfer each way and the
 * lifetime after (pack_down). Returns how many: 0 when there are more
 * than `most`. */
static int pack_gpu_ops(struct pack *q, int n, int p, int p2, int most)
{
    const struct chain *ch = q->ch;
    const struct problem *pb = ch->w.pb;
    int N = 0;
    for (int j = 0; j < n; j++)
        if (q->gpu[j] == p || q->gpu[j] == p2)
            N += 2 * (q->cut[j + 1] - q->cut[j]);
    if (N > most)
        return 0;
    int m = 0, prev = -1;
    double cuts = 0;           /* transfers at the cuts since p's run before */
    for (int j = 0; j < n; j++) {
        if (j > 0)
            cuts += pb->c[q->cut[j] - 1];
        if (q->gpu[j] != p && q->gpu[j] != p2)
            continue;
        int s0 = q->cut[j], r = q->cut[j + 1];
        if (prev >= 0) {
            int e = q->cut[prev + 1];
            q->og[m - 1] = ch->sf[s0] - ch->sf[e] + cuts;
            q->og[N - 1 - m] = ch->sb[s0] - ch->sb[e] + cuts;
        }
        for (int i = s0; i < r; i++, m++) {
            q->od[m] = pb->f[i];
            q->od[N - 1 - m] = pb->b[i];
            q->ogpu[m] = q->ogpu[N - 1 - m] = q->gpu[j];
            if (i + 1 < r)
                q->og[m] = q->og[N - 2 - m] = 0;
        }
        q->og[m - 1] = pack_down(q, j, n);
        prev = j;
        cuts = 0;
    }
    return N;
}

/* Run k (the last of runs 0..k) just went on GPU p, which held others:
 * the least lifetime of p's first layer (into *first) that p's own
 * operations allow (none may overlap another modulo the period:
 * cyclic_span), or INFINITY when it would take the split's value to the
 * best. Every split below keeps it: more runs on p only add operations,
 * and the lifetimes after run k only grow. With p2 >= 0, GPUs p and p2
 * together (their first layer), their operations in the order the trip
 * visits them: p's may not overlap p's, nor p2's p2's, and a wait on one
 * delays the trip on the other. */
static double pack_ops_span(struct pack *q, int k, int p, int p2, int *first)
{
    const struct chain *ch = q->ch;
    const struct problem *pb = ch->w.pb;
    *first = -1;
    if (!(ch->w.beta > 0))
        return 0;              /* pipedream: the period alone */
    int N = pack_gpu_ops(q, k + 1, p, p2, p2 < 0 ? PACK_GPU_OPS : PACK_PAIR_OPS);
    if (N == 0)
        return 0;
    int j0 = 0;
    while (q->gpu[j0] != p && q->gpu[j0] != p2)
        j0++;
    /* layer 0 lives at least what p's first layer does, and every layer's
     * compute before it and a transfer each way at each cut */
    int i0 = q->cut[j0];
    *first = i0;
    double before = ch->sf[i0] + ch->sb[i0];
    for (int j = 1; j <= j0; j++)
        before += 2 * pb->c[q->cut[j] - 1];
    double hi = (q->best - ch->w.alpha * q->t1) / ch->w.beta - before;
    double span = cyclic_span_groups(&q->cy, N, q->od, q->og, p2 < 0 ? NULL : q->ogpu,
                                     q->t1, q->t2, hi,
                                     p2 < 0 ? PACK_CYCLIC_NODES : PACK_PAIR_NODES);
    return span >= hi ? INFINITY : span;
}

/* A floor on layer i's lifetime, its value before kept to be undone. */
static void pack_floor(struct pack *q, int i, double v)
{
    q->undo_i[q->nundo] = i;
    q->undo_v[q->nundo++] = q->lfloor[i];
    q->lfloor[i] = v;
}

/* The floors back to what they were with `mark` of them. */
static void pack_undo(struct pack *q, int mark)
{
    while (q->nundo > mark) {
        q->nundo--;
        q->lfloor[q->undo_i[q->nundo]] = q->undo_v[q->nundo];
    }
}

/* Run k just went on GPU p: the floors its operations force, p's own (when
 * it held runs) and p's with each other GPU that holds runs. True when one
 * takes the split to the best or a GPU past its room. */
static bool pack_floors(struct pack *q, int k, int p)
{
    struct chain *ch = q->ch;
    /* p's first run: nothing (the pairs there, three times the searches,
     * cost more than they prove: doc/model.md section 5.5) */
    if (q->nruns[p] == 0)
        return false;
    for (int p2 = -1; p2 < q->P; p2++) {
        if (p2 == p || (p2 >= 0 && q->nruns[p2] == 0))
            continue;
        int i0;
        double span = pack_ops_span(q, k, p, p2, &i0);
        if (span == INFINITY) {
            q->above = fmin(q->above, q->best);
            return true;
        }
        if (i0 < 0 || !(span > q->life[i0]) || !(span > q->lfloor[i0]))
            continue;
        pack_floor(q, i0, span);
        pack_eval(q, k + 1);
        if (pack_cut(q, ch->w.alpha * q->t1 + ch->w.beta * q->life[0]) || pack_gpus(q, k + 1))
            return true;
    }
    return false;
}

/* Run k = cut[k]..r-1 as pack_children() found it: the lifetimes of
 * runs 0..k and the GPUs' sums of runs 0..k-1 derived again (a child's
 * floor or the search below it overwrote them). */
static void pack_redo(struct pack *q, int k, int r)
{
    q->cut[k + 1] = r;
    pack_eval(q, k + 1);
    pack_gpus(q, k);
}

/* Run k is cut[k]..r-1, of value v (at least): every GPU for it, and
 * below each every run after it. */
static void pack_children(struct pack *q, int k, int r, double v)
{
    struct chain *ch = q->ch;
    const struct problem *pb = ch->w.pb;
    int s0 = q->cut[k];
    /* again: the runs scanned after this one, and the children of those
     * tried before it, overwrote its lifetimes and the GPUs' sums */
    pack_redo(q, k, r);
    double run = ch->sf[r] - ch->sf[s0] + ch->sb[r] - ch->sb[s0];
    /* what is left after r: its compute and least memory */
    double need_c = ch->sf[q->L] - ch->sf[r] + ch->sb[q->L] - ch->sb[r];
    double need_m = r < q->L ? ch->tsuf[r] + 2 * pb->a[r - 1] : 0;
    double left_c = 0, left_m = 0;
    for (int p = 0; p < q->P; p++) {
        left_c += fmax(0, q->t2 - q->gload[p]);
        left_m += fmax(0, q->room[p] - q->gmem[p]);
    }
    for (int p = 0; p < q->P; p++) {
        if (!pack_allowed(q, k, p))
            continue;
        double m = q->gmem[p] + q->rmem[k], c = q->gload[p] + run;
        if (pack_over(q, m, c, p))
            continue;
        double lc = left_c - fmax(0, q->t2 - q->gload[p]) + fmax(0, q->t2 - c);
        double lm = left_m - fmax(0, q->room[p] - q->gmem[p]) + fmax(0, q->room[p] - m);
        if (need_c > lc * (1 + SLACK) + 1e-12 || need_m > lm * (1 + SLACK) + 1e-9)
            continue;
        q->gpu[k] = p;
        /* what its operations force, with p's others and each GPU's */
        int mark = q->nundo;
        if (pack_floors(q, k, p)) {
            pack_undo(q, mark);
            pack_redo(q, k, r);
            continue;
        }
        if (r == q->L) {
            /* every layer placed, every GPU within */
            q->best = fmax(v, ch->w.alpha * q->t1 + ch->w.beta * q->life[0]);
            q->found = true;
            if (q->opt && q->opt->split)
                pack_offer(q, k);
        } else {
            q->nruns[p]++;
            pack_dfs(q, k + 1);
            q->nruns[p]--;
        }
        pack_undo(q, mark);
        if (q->stopped || pack_cut(q, v))
            return;
        pack_redo(q, k, r);
    }
}

/* Runs 0..k-1 placed, the next starting at cut[k]: every run after it
 * and every GPU for it. */
static void pack_dfs(struct pack *q, int k)
{
    if (q->stopped)
        return;
    q->nodes++;
    if ((q->max_nodes > 0 && q->nodes > q->max_nodes) ||
        (q->nodes % PACK_POLL_NODES == 0 && q->opt && q->opt->stop &&
         q->opt->stop(q->opt->ctx))) {
        q->stopped = true;
        return;
    }
    if (q->quit > 0 && q->nodes > q->quit) {
        q->stopped = q->gaveup = true;
        return;
    }
    if (q->lim > 0 && q->nodes > q->lim) {
        /* past its budget: below the step's target from here on (what was
         * cut off so far was above the best of its time, so above it) */
        q->lim = 0;
        q->spent = true;
        if (q->step < q->best) {
            if (q->found)
                q->above = fmin(q->above, q->best);
            q->best = q->step;
            q->found = false;
        }
    }
    struct chain *ch = q->ch;
    const struct problem *pb = ch->w.pb;
    int s0 = q->cut[k];
    /* the GPUs' memory and compute before the next run: lifetimes only
     * grow as runs are placed, so a run that fits on no GPU over these
     * fits on none after the prefix is re-derived (which costs the most) */
    double *fmem = q->floor + (size_t)k * 2 * (size_t)q->P, *fload = fmem + q->P;
    pack_sums(q, k, fmem, fload);
    /* The runs from s0 that could lead below the best, tried least value
     * first: a low leaf found early prunes the most. They are kept on a
     * stack shared by the depths; a node takes what is left of it but a
     * slot for each deeper one, and tries its runs in chunks of that. */
    int top0 = q->top, r = s0 + 1;
    double run = 0;
    bool scanned = false;
    while (!scanned && !q->stopped) {
        int chunk = q->cap - q->top - (q->L + 1 - k);
        int *cr = q->ord_r + q->top;
        double *cv = q->ord_v + q->top;
        int nc = 0;
        for (; nc < (chunk > 1 ? chunk : 1); r++) {
            if (r > q->L || (run += pb->f[r - 1] + pb->b[r - 1]) > q->t2 * (1 + SLACK) + 1e-12) {
                scanned = true;
                break;
            }
            q->cut[k + 1] = r;
            pack_run(q, k, pack_down(q, k, k + 1));
            bool room = false;
            for (int p = 0; p < q->P && !room; p++)
                room = pack_allowed(q, k, p) &&
                       !pack_over(q, fmem[p] + q->rmem[k], fload[p] + run, p);
            if (!room)
                continue;
            double v = ch->w.alpha * q->t1 + ch->w.beta * pack_eval_from(q, k - 1, k + 1);
            if (pack_cut(q, v) || pack_gpus(q, k))
                continue;
            int at = nc++;
            for (; at > 0 && cv[at - 1] > v; at--) {
                cv[at] = cv[at - 1];
                cr[at] = cr[at - 1];
            }
            cv[at] = v;
            cr[at] = r;
        }
        q->top += nc;
        for (int c = 0; c < nc && !q->stopped && !pack_cut(q, cv[c]); c++)
            pack_children(q, k, cr[c], cv[c]);
        q->top = top0;
    }
}

/* The packed search of piece [q->t1, q->t2] below the cutoff, or below
 * `step` once past `budget` nodes: the least value of a complete split
 * into q->best when q->found. Returns false when stopped by the limits. */
static bool pack_search(struct pack *q, double step, long budget)
{
    q->best = q->cutoff;
    q->step = step;
    q->above = INFINITY;
    q->lim = q->nodes + budget;
    q->quit = q->nodes + PACK_QUIT * budget;
    q->spent = q->found = q->gaveup = false;
    q->cut[0] = 0;
    for (int p = 0; p < q->P; p++)
        q->nruns[p] = 0;
    pack_dfs(q, 0);
    q->lim = q->quit = 0;
    return !q->stopped;
}

/* A piece of the periods: its bound, and whether the runs were packed. */
struct ppiece {
    double t1, t2, v;
    int depth;
    int grow;                  /* its searches' budgets doubled so many times */
    bool packed;               /* v is its packed chain's (or the cutoff) */
    bool fitted;               /* its least lifetimes are kept */
};

static int ppiece_cmp(const void *x, const void *y)
{
    const struct ppiece *a = x, *b = y;
    return (a->t1 > b->t1) - (a->t1 < b->t1);
}

/* The plain chain's bound of [t1, t2] with every count (INFINITY when no
 * plan fits there), at least floor. */
static double ppiece_plain(struct chain *ch, double t1, double t2, double floor)
{
    if (!chain_fits(ch, t1, t2, 0, ch->ncounts))
        return INFINITY;
    return fmax(floor, ch->w.alpha * t1 + ch->w.beta * ch->lmin[0]);
}

double allocset_chain_packed(const struct problem *pb, double cutoff, double t_lo,
                             const struct allocset_options *opt, long *nodes)
{
    if (nodes)
        *nodes = 0;
    if (opt && opt->npieces)
        *opt->npieces = 0;
    double t_hi, early = chain_range(pb, cutoff, &t_lo, &t_hi);
    if (!isnan(early))
        return early;
    int n = counts_within(pb, chain_span(pb, t_hi), (double)CHAIN_STEPS / (PIECES + 2 * REFINE));
    if (n < 1)
        return -INFINITY;      /* too many layers for the plain chain's pieces */
    struct chain ch;
    if (chain_init(&ch, pb, n) != 0)
        return -INFINITY;
    int L = pb->L, P = pb->P, cap = PIECES + 2 * REFINE;
    struct pack q = { .ch = &ch, .opt = opt, .L = L, .P = P,
                      .max_nodes = opt ? opt->max_nodes : 0 };
    double *dv = malloc((5 * (size_t)L + 3 * (size_t)P + 2 * (size_t)(L + 1) * (size_t)P) *
                        sizeof *dv);
    int *iv = malloc((3 * (size_t)L + 1 + (size_t)P) * sizeof *iv);
    bool *sym = malloc((size_t)P * sizeof *sym);
    struct ppiece *pc = malloc((size_t)cap * sizeof *pc);
    double *keep = malloc((size_t)cap * (2 * (size_t)L + 1) * sizeof *keep);
    /* a chunk of runs at each depth and a slot for each deeper one */
    q.cap = 33 * (L + 1);
    q.ord_r = malloc((size_t)q.cap * sizeof *q.ord_r);
    q.ord_v = malloc((size_t)q.cap * sizeof *q.ord_v);
    q.lfloor = calloc((size_t)L, sizeof *q.lfloor);
    /* a floor for each GPU at each depth at most */
    q.undo_i = malloc(((size_t)L + 1) * (size_t)P * sizeof *q.undo_i);
    q.undo_v = malloc(((size_t)L + 1) * (size_t)P * sizeof *q.undo_v);
    int cy_rc = cyclic_init(&q.cy);
    double bound = -INFINITY;
    if (!dv || !iv || !sym || !pc || !keep || !q.ord_r || !q.ord_v || !q.lfloor || !q.undo_i ||
        !q.undo_v || cy_rc != 0)
        goto out;
    q.life = dv;
    q.rmem = dv + L;
    q.rload = dv + 2 * L;
    q.base = dv + 3 * L;
    q.pcopy = dv + 4 * L;
    q.room = dv + 5 * L;
    q.gmem = q.room + P;
    q.gload = q.gmem + P;
    q.floor = q.gload + P;

    for (int i = 0; i < L; i++) {
        q.base[i] = base_of(&ch.w, i);
        q.pcopy[i] = per_copy(&ch.w, i);
    }
    q.cut = iv;
    q.gpu = iv + L + 1;
    q.nruns = iv + 2 * L + 1;
    q.lgpu = q.nruns + P;
    q.cutoff = cutoff;
    q.sym = sym;
    for (int p = 0; p < P; p++) {
        q.room[p] = fmax(0, pb->cap[p] - pb->reserved[p]);
        sym[p] = p > 0 && q.room[p] == q.room[p - 1];
    }
    int np = t_hi > t_lo ? PIECES : 1;
    for (int j = 0; j < np; j++) {
        double t1 = t_lo + (t_hi - t_lo) * j / np, t2 = t_lo + (t_hi - t_lo) * (j + 1) / np;
        pc[j] = (struct ppiece){ .t1 = t1, .t2 = t2, .v = ppiece_plain(&ch, t1, t2, -INFINITY) };
    }
    /* best first: the least piece is packed, or halved once packed */
    double heard = -INFINITY;
    long most = 0;             /* nodes a search that ended below the cutoff took */
    for (;;) {
        int at = 0;
        for (int j = 1; j < np; j++)
            if (pc[j].v < pc[at].v)
                at = j;
        struct ppiece *x = &pc[at];
        /* the least piece is the bound so far */
        if (opt && opt->progress && fmin(q.cutoff, x->v) > heard) {
            heard = fmin(q.cutoff, x->v);
            opt->progress(opt->ctx, heard);
        }
        if (!(x->v < q.cutoff))
            break;
        if (!x->packed) {
            /* the piece's least lifetimes and memory, kept for its next
             * search */
            double *lk = keep + (size_t)at * (2 * (size_t)L + 1);
            if (!x->fitted) {
                if (!chain_fits(&ch, x->t1, x->t2, 0, ch.ncounts)) {
                    x->v = INFINITY;
                    continue;
                }
                memcpy(lk, ch.lmin, (size_t)L * sizeof *lk);
                memcpy(lk + L, ch.tsuf, ((size_t)L + 1) * sizeof *lk);
                x->fitted = true;
            } else {
                memcpy(ch.lmin, lk, (size_t)L * sizeof *lk);
                memcpy(ch.tsuf, lk + L, ((size_t)L + 1) * sizeof *lk);
            }
            q.t1 = x->t1;
            q.t2 = x->t2;
            /* below the cutoff; past a budget of nodes (four times what
             * such a search took at most) below a target a step above the
             * piece's bound: where the splits below the cutoff are too
             * many, those near the bound prune what lies far above it */
            long budget = opt && opt->first_nodes > 0 ? opt->first_nodes : PACK_BUDGET + 4 * most;
            budget <<= x->grow;
            long n0 = q.nodes;
            double step = x->v + STEP * fabs(x->v);
            if (!pack_search(&q, step, budget)) {
                if (!q.gaveup)
                    break;     /* the piece keeps its bound so far */
                /* too many even there: halved, its halves searched apart
                 * with twice the budget (a narrower range alone seldom
                 * makes the splits fewer: doc/model.md section 5.5) */
                q.stopped = false;
                x->grow += x->grow < PACK_GROW;
                goto halve;
            }
            if (!q.spent)
                most = q.nodes - n0 > most ? q.nodes - n0 : most;
            /* no split below the best: none below the least value cut off
             * (every split lies below a partial one of no more value) */
            x->v = fmax(x->v, q.found ? q.best : fmin(q.above, q.cutoff));
            x->packed = q.found || !q.spent || x->v >= q.cutoff;
            continue;
        }
    halve:
        if (x->depth >= REFINE || np + 1 > cap || !(x->t2 > x->t1))
            break;
        double mid = (x->t1 + x->t2) / 2, v = x->v;
        int d = x->depth + 1;
        pc[np++] = (struct ppiece){ .t1 = mid, .t2 = x->t2,
                                    .v = ppiece_plain(&ch, mid, x->t2, v), .depth = d,
                                    .grow = x->grow };
        *x = (struct ppiece){ .t1 = x->t1, .t2 = mid, .v = ppiece_plain(&ch, x->t1, mid, v),
                               .depth = d, .grow = x->grow };
    }
    bound = q.cutoff;
    for (int j = 0; j < np; j++)
        bound = fmin(bound, pc[j].v);
    if (opt && opt->pieces && opt->npieces) {
        qsort(pc, (size_t)np, sizeof *pc, ppiece_cmp);
        for (int j = 0; j < np; j++)
            opt->pieces[j] = (struct allocset_piece){ pc[j].t1, pc[j].t2, pc[j].v };
        *opt->npieces = np;
    }
out:
    if (nodes)
        *nodes = q.nodes;
    free(dv);
    free(iv);
    free(sym);
    free(pc);
    free(keep);
    free(q.ord_r);
    free(q.ord_v);
    free(q.lfloor);
    free(q.undo_i);
    free(q.undo_v);
    cyclic_free(&q.cy);
    chain_free(&ch);
    return bound;
}
