/* lns: layer-level local search around a plan (see lns.h and
 * doc/model.md section 5.2).
 *
 * A candidate is the current allocation with up to three ranges of layers
 * given to other GPUs (a move). Its lower bound needs no schedule: no
 * period is below its compute and link loads, no latency below its
 * wait-free chain (every layer's compute plus both transfers of each cut),
 * and no layer keeps fewer copies than ceil(wait-free lifetime / T), so
 * no fitting plan of it has a period below the least T at which those
 * copies fit memory. Candidates whose bound cannot beat the incumbent are
 * dropped; the others are scheduled in the order of their bounds, from
 * the bound's period up to where the schedule's own lifetimes fit. */
#include "lns.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schedule.h"
#include "simulate.h"

#define LNS_GAIN 1e-9          /* relative improvement that counts */
#define LNS_BISECT 60          /* bisection steps of the least fitting period */
#define LNS_STEPS 4            /* schedules per candidate, from its bound up */
#define LNS_LADDER 3           /* 1f1b: longer periods tried on a plan that waits */
#define LNS_WINDOWS 40000      /* boundary pairs tried over all windows of three runs */
#define LNS_WINDOW_MIN 64      /* and at least this many per window */
#define LNS_DESCENT 4096       /* moves of the walk towards a fitting memory */
#define LNS_ROUND_STEPS 5e7    /* layers looked at per round's screening, about */
#define LNS_ROUND_MIN 1024     /* but at least this many candidates per round */
#define LNS_WORK_STEPS 1e8     /* layers screened that count as one schedule */

/* Up to three ranges lo..hi of layers given to GPU g. */
struct move {
    double lb;                 /* lower bound on the objective of its plans */
    double est;                /* estimate with the incumbent's waits: the order */
    double T;                  /* least period its wait-free copies fit at */
    int seq;                   /* generation order, the tie-break */
    int n;
    int lo[3], hi[3], g[3];
};

struct lns {
    const struct problem *pb;
    const struct lns_options *opt;
    struct lns_stats *st;
    double t0;
    int L, P;
    double alpha, beta;        /* objective = alpha T + beta latency */
    int *cur;                  /* [L] current allocation */
    int *tmp;                  /* [L] a candidate */
    int *seen;                 /* [P] scratch */
    double *life;              /* [L] lifetimes for the memory test */
    double *extra;             /* [L] waits in the current plan's lifetimes */
    double *load, *link, *fixed, *acc;   /* [P] per GPU */
    double *per_copy;          /* [L] bytes per copy in flight */
    double t_load, lat;        /* of the allocation last prepared */
    struct plan *best;         /* fitting improvement so far, or NULL */
    double best_obj;           /* objective to beat (INFINITY: any fitting plan) */
    int *rlo, *rhi, *rg;       /* [L] runs of the current allocation */
    int *alone;                /* [L] per run: all its GPU holds */
    int nr;
    struct move *mv;
    int nmv, capmv;
    double steps;              /* layers looked at by the screening */
    unsigned long looked;      /* moves given to consider() */
    bool stop;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lns_options_init(struct lns_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

/* The clock is read only with a seconds budget. Under a count the
 * screening's layers count too: on a network of many thousands of layers
 * a candidate's bound costs as much as a small network's schedule. */
static bool out_of_budget(struct lns *s)
{
    const struct lns_options *o = s->opt;
    s->st->screen_work = (long)(s->steps / LNS_WORK_STEPS);
    if (!s->stop && ((o->cancel && *o->cancel) ||
                     (o->evaluations > 0 &&
                      s->st->evaluations + s->st->screen_work >= o->evaluations) ||
                     (o->seconds > 0 && now() - s->t0 >= o->seconds)))
        s->stop = true;
    return s->stop;
}

static double objective_of(const struct lns *s, double T, double lat)
{
    return s->alpha * T + s->beta * lat;
}

static bool beats(const struct lns *s, double obj)
{
    return obj < s->best_obj * (1 - LNS_GAIN);
}

/* Loads, the memory that does not depend on the period, the wait-free
 * lifetimes into s->life, s->t_load and s->lat. */
static void prepare(struct lns *s, const int *gpu)
{
    const struct problem *pb = s->pb;
    bool async = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    for (int p = 0; p < s->P; p++) {
        s->load[p] = 0;
        s->link[p] = 0;
        s->fixed[p] = pb->reserved[p];
    }
    double life = 0;
    s->steps += s->L;
    for (int i = s->L - 1; i >= 0; i--) {
        int p = gpu[i];
        s->load[p] += pb->f[i] + pb->b[i];
        /* pipedream keeps a weight version per copy beyond the first */
        s->fixed[p] += (async ? pb->phi - 1 : pb->phi) * pb->w[i];
        life += pb->f[i] + pb->b[i];
        if (i + 1 < s->L && gpu[i + 1] != p) {
            int q = gpu[i + 1];
            s->link[p] += pb->c[i];
            s->link[q] += pb->c[i];
            s->fixed[p] += 2 * pb->a[i];
            s->fixed[q] += 2 * pb->a[i];
            life += 2 * pb->c[i];
        }
        s->life[i] = life;
    }
    s->t_load = 0;
    for (int p = 0; p < s->P; p++)
        s->t_load = fmax(s->t_load, fmax(s->load[p], s->link[p]));
    s->lat = life;
}

/* Memory of every GPU at period T with lifetimes life (after prepare()):
 * whether all fit, and the bytes over the caps. */
static bool mem_fits(struct lns *s, const int *gpu, const double *life, double T,
                     double *excess)
{
    const struct problem *pb = s->pb;
    bool async = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    double *acc = s->acc;
    s->steps += s->L;
    memcpy(acc, s->fixed, (size_t)s->P * sizeof *acc);
    for (int i = 0; i < s->L; i++) {
        int n = plan_inflight_count(life[i], T);
        double u = async || n < pb->m ? (double)n : (double)pb->m;
        acc[gpu[i]] += u * s->per_copy[i];
    }
    double over = 0;
    for (int p = 0; p < s->P; p++)
        if (acc[p] > pb->cap[p])
            over += acc[p] - pb->cap[p];
    if (excess)
        *excess = over;
    return over <= 0;
}

/* The least period in [lo, hi] at which lifetimes life fit memory, given
 * that they fit at hi: bisection, then down to the period at which the
 * copies counted at the end of it begin (a breakpoint life_i / n_i). */
static double least_fitting(struct lns *s, const int *gpu, const double *life, double lo,
                            double hi)
{
    if (mem_fits(s, gpu, life, lo, NULL))
        return lo;
    for (int k = 0; k < LNS_BISECT && hi - lo > 1e-12 * hi; k++) {
        double mid = lo + (hi - lo) / 2;
        if (mem_fits(s, gpu, life, mid, NULL))
            hi = mid;
        else
            lo = mid;
    }
    double need = lo;
    for (int i = 0; i < s->L; i++)
        need = fmax(need, life[i] / plan_inflight_count(life[i], hi));
    return need < hi && mem_fits(s, gpu, life, need, NULL) ? need : hi;
}

/* Lower bound of the allocation gpu on the objective of its fitting
 * plans, and the period it is reached at (*T). INFINITY when even one
 * copy of everything does not fit, with the bytes over the caps in
 * *excess; at least the objective to beat when it cannot beat it. */
static double bound(struct lns *s, const int *gpu, double *T, double *excess)
{
    prepare(s, gpu);
    double top = fmax(s->t_load, s->life[0]);   /* one copy of everything */
    *T = top;
    if (!mem_fits(s, gpu, s->life, top, excess))
        return INFINITY;
    double floor_obj = objective_of(s, s->t_load, s->lat);
    if (!beats(s, floor_obj))
        return fmax(floor_obj, s->best_obj);
    if (isfinite(s->best_obj) && s->alpha > 0) {
        /* the longest period that could still beat the incumbent */
        double cap = (s->best_obj - s->beta * s->lat) / s->alpha;
        if (cap < top) {
            top = fmax(cap, s->t_load);
            if (!mem_fits(s, gpu, s->life, top, NULL))
                return s->best_obj;
        }
    }
    *T = least_fitting(s, gpu, s->life, s->t_load, top);
    return objective_of(s, *T, s->lat);
}

/* After bound(): the objective the allocation would have if its
 * lifetimes held the same waits as the current plan's, from T up. Only
 * an order for the candidates (the list scheduler decides the waits). */
static double estimate(struct lns *s, const int *gpu, double T)
{
    double lat = s->lat + s->extra[0], top = T;
    for (int i = 0; i < s->L; i++) {
        s->life[i] += s->extra[i];
        top = fmax(top, s->life[i]);
    }
    return objective_of(s, least_fitting(s, gpu, s->life, T, top), lat);
}

/* The waits of plan pl (scheduled) against its wait-free lifetimes. */
static void set_extra(struct lns *s, const struct plan *pl)
{
    prepare(s, pl->gpu);
    for (int i = 0; i < s->L; i++)
        s->extra[i] = fmax(0, pl->start[s->L + i] + s->pb->b[i] - pl->start[i] - s->life[i]);
}

/* Whether every GPU holds one interval of layers. */
static bool contiguous(struct lns *s, const int *gpu)
{
    memset(s->seen, 0, (size_t)s->P * sizeof *s->seen);
    for (int i = 0; i < s->L; i++) {
        if (i > 0 && gpu[i] == gpu[i - 1])
            continue;
        if (s->seen[gpu[i]])
            return false;
        s->seen[gpu[i]] = 1;
    }
    return true;
}

static void apply(struct lns *s, const struct move *m, int *gpu)
{
    memcpy(gpu, s->cur, (size_t)s->L * sizeof *gpu);
    for (int k = 0; k < m->n; k++)
        for (int i = m->lo[k]; i <= m->hi[k]; i++)
            gpu[i] = m->g[k];
}

static void runs(struct lns *s)
{
    s->nr = 0;
    for (int i = 0; i < s->L; i++) {
        if (i == 0 || s->cur[i] != s->cur[i - 1]) {
            s->rlo[s->nr] = i;
            s->rg[s->nr] = s->cur[i];
            s->nr++;
        }
        s->rhi[s->nr - 1] = i;
    }
}

/* How many layers gpu puts on another GPU than the current allocation. */
static double moved(const struct lns *s, const int *gpu)
{
    int n = 0;
    for (int i = 0; i < s->L; i++)
        n += gpu[i] != s->cur[i];
    return n;
}

/* With an objective to beat: screen by the bound and keep the move.
 * Without one (walk == true): keep it with its excess in lb. */
static void consider(struct lns *s, const struct move *m, bool walk)
{
    /* the budget on a count of the moves looked at, not of candidates:
     * with the contiguous layout most moves are dropped before they count,
     * each after a pass over the layers */
    if (s->stop || ((++s->looked & 255) == 0 && out_of_budget(s)))
        return;
    apply(s, m, s->tmp);
    if (s->pb->layout == LAYOUT_CONTIGUOUS && !contiguous(s, s->tmp))
        return;
    s->st->candidates++;
    double T, excess = 0;
    double lb = bound(s, s->tmp, &T, &excess);
    if (walk) {
        lb = excess;
    } else if (!isfinite(lb) || !beats(s, lb)) {
        s->st->screened++;
        return;
    }
    if (s->nmv == s->capmv) {
        int cap = s->capmv ? 2 * s->capmv : 256;
        struct move *nm = realloc(s->mv, (size_t)cap * sizeof *nm);
        if (!nm) {
            s->stop = true;
            return;
        }
        s->mv = nm;
        s->capmv = cap;
    }
    /* the order: those that would beat the incumbent even with the
     * waits it has now come first; with exact schedules, which cost far
     * more on allocations far from the incumbent's, the fewest layers
     * moved first */
    double est = walk ? lb : s->opt->schedule ? moved(s, s->tmp) : estimate(s, s->tmp, T);
    struct move *k = &s->mv[s->nmv];
    *k = *m;
    k->est = est;
    k->lb = lb;
    k->T = T;
    k->seq = s->nmv;
    s->nmv++;
}

static void one_range(struct lns *s, int lo, int hi, int g, bool walk)
{
    struct move m = { .n = 1, .lo = { lo }, .hi = { hi }, .g = { g } };
    consider(s, &m, walk);
}

static bool alike(const struct lns *s, int p, int q)
{
    return s->pb->cap[p] == s->pb->cap[q] && s->pb->reserved[p] == s->pb->reserved[q];
}

/* GPUs holding nothing are interchangeable when their caps are: only the
 * first of each kind is a target. */
static bool first_of_kind(const struct lns *s, const int *used, int q)
{
    for (int p = 0; p < q; p++)
        if (!used[p] && alike(s, p, q))
            return false;
    return true;
}

/* The next count of layers to move off a run of len, every stride-th
 * and always the whole run; past len: done. */
static int next_count(int d, int len, int stride)
{
    if (d >= len)
        return len + 1;
    return d + stride < len ? d + stride : len;
}

/* The moves around the current allocation: a run's first or last d
 * layers to another GPU; two runs exchanged; with `windows`, the split of
 * three consecutive runs re-chosen. A candidate's bound looks at every
 * layer, so on a long network a round looks at a regular subset of them
 * (about LNS_ROUND_STEPS layers in all). */
static void neighbours(struct lns *s, bool walk, bool windows)
{
    s->nmv = 0;
    runs(s);
    int *used = calloc(2 * (size_t)s->P, sizeof *used);
    if (!used) {
        s->stop = true;
        return;
    }
    int *target = used + s->P;  /* a GPU a run may go to, but its own */
    for (int r = 0; r < s->nr; r++)
        used[s->rg[r]]++;
    for (int q = 0; q < s->P; q++)
        target[q] = used[q] || first_of_kind(s, used, q);
    int *alone = s->alone;
    for (int r = 0; r < s->nr; r++)
        alone[r] = used[s->rg[r]] == 1;
    bool any = s->pb->layout != LAYOUT_CONTIGUOUS;
    long cap = (long)(LNS_ROUND_STEPS / s->L);
    if (cap < LNS_ROUND_MIN)
        cap = LNS_ROUND_MIN;
    /* a run's edges: half the round */
    long edges = 0;
    for (int r = 0; r < s->nr; r++)
        edges += 2L * (s->rhi[r] - s->rlo[r] + 1) * (any ? s->P - 1 : 2);
    int stride = (int)((edges + cap / 2 - 1) / (cap / 2));
    if (stride < 1)
        stride = 1;
    for (int r = 0; r < s->nr && !s->stop; r++) {
        int lo = s->rlo[r], hi = s->rhi[r], g = s->rg[r], len = hi - lo + 1;
        for (int q = 0; q < s->P; q++) {
            if (q == g || !target[q])
                continue;
            bool prev = r > 0 && s->rg[r - 1] == q, next = r + 1 < s->nr && s->rg[r + 1] == q;
            /* contiguous plans keep contiguous: only to a neighbour or a free GPU */
            if (!any && !prev && !next && used[q])
                continue;
            for (int d = 1; d <= len; d = next_count(d, len, stride)) {
                /* a GPU's only run to a free GPU like it: a relabelling */
                if (d == len && !used[q] && alone[r] && alike(s, g, q))
                    continue;
                if (any || prev || !used[q])
                    one_range(s, lo, lo + d - 1, q, walk);
                if (d < len && (any || next || !used[q]))
                    one_range(s, hi - d + 1, hi, q, walk);
            }
        }
    }
    /* exchanges of two runs (not of two alike GPUs' only runs: a
     * relabelling): a quarter */
    long pairs = (long)s->nr * (s->nr - 1) / 2;
    int every = (int)((pairs + cap / 4 - 1) / (cap / 4));
    if (every < 1)
        every = 1;
    for (int r = 0; r < s->nr && !s->stop; r++)
        for (int t = r + 1; t < s->nr; t += every) {
            if (s->rg[r] == s->rg[t] || (alone[r] && alone[t] && alike(s, s->rg[r], s->rg[t])))
                continue;
            struct move m = { .n = 2, .lo = { s->rlo[r], s->rlo[t] }, .hi = { s->rhi[r], s->rhi[t] },
                              .g = { s->rg[t], s->rg[r] } };
            consider(s, &m, walk);
        }
    /* three consecutive runs: every pair of inner boundaries, or a
     * regular subset of them when there are too many: a quarter */
    long total = LNS_WINDOWS < cap / 4 ? LNS_WINDOWS : cap / 4;
    long share = s->nr > 2 ? total / (s->nr - 2) : 0;
    if (share < LNS_WINDOW_MIN)
        share = s->nr > 2 && (long)(s->nr - 2) * LNS_WINDOW_MIN > cap / 4
                ? (share > 1 ? share : 1) : LNS_WINDOW_MIN;
    for (int r = 0; windows && r + 2 < s->nr && !s->stop; r++) {
        int a = s->rlo[r], e = s->rhi[r + 2], n = e - a + 1;
        long npairs = (long)(n - 1) * (n - 2) / 2;
        int step = 1;
        while (npairs / ((long)step * step) > share)
            step++;
        for (int x = a; x + 2 <= e; x += step)
            for (int y = x + 1; y + 1 <= e; y += step) {
                if (x == s->rhi[r] && y == s->rhi[r + 1])
                    continue;
                struct move m = { .n = 3, .lo = { a, x + 1, y + 1 }, .hi = { x, y, e },
                                  .g = { s->rg[r], s->rg[r + 1], s->rg[r + 2] } };
                consider(s, &m, walk);
            }
    }
    free(used);
}

static int move_cmp(const void *x, const void *y)
{
    const struct move *a = x, *b = y;
    if (a->est != b->est)
        return a->est < b->est ? -1 : 1;
    if (a->lb != b->lb)
        return a->lb < b->lb ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* A new incumbent (fits, beats best_obj): replayed, kept and offered;
 * false when the simulator rejects it. Takes pl. */
static bool accept(struct lns *s, struct plan *pl)
{
    if (simulate_plan(pl, s->pb, NULL) != SIM_OK) {
        plan_free(pl);
        return false;
    }
    plan_free(s->best);
    s->best = pl;
    s->best_obj = pl->objective;
    memcpy(s->cur, pl->gpu, (size_t)s->L * sizeof *s->cur);
    set_extra(s, pl);
    s->st->improvements++;
    if (s->opt->offer)
        s->opt->offer(s->opt->ctx, pl);
    return true;
}

/* Schedule gpu from period T up: each time it does not fit, at the least
 * period at which the schedule's own lifetimes would; NULL unless a
 * fitting plan that beats the incumbent comes out. */
static struct plan *evaluate(struct lns *s, const int *gpu, double T)
{
    struct plan *pl = plan_new(s->L, s->P);
    if (!pl) {
        s->stop = true;
        return NULL;
    }
    memcpy(pl->gpu, gpu, (size_t)s->L * sizeof *gpu);
    if (s->opt->schedule) {
        /* one exact answer over every period from T up */
        s->st->evaluations++;
        double cap = isfinite(s->best_obj) ? s->best_obj * (1 - LNS_GAIN) : INFINITY;
        if (s->opt->schedule(s->opt->ctx, pl, T, cap) == 1 && pl->fits && beats(s, pl->objective))
            return pl;
        plan_free(pl);
        return NULL;
    }
    prepare(s, gpu);
    double lat = s->lat;
    for (int step = 0; step < LNS_STEPS && !out_of_budget(s); step++) {
        s->st->evaluations++;
        if (schedule_build_at(pl, s->pb, T) != 0) {
            /* the list scheduler could not place it: a little longer */
            T *= 1 + 1.0 / 256;
        } else if (pl->fits) {
            if (beats(s, pl->objective))
                return pl;
            break;
        } else {
            for (int i = 0; i < s->L; i++)
                s->life[i] = pl->start[s->L + i] + s->pb->b[i] - pl->start[i];
            double top = T;
            for (int i = 0; i < s->L; i++)
                top = fmax(top, s->life[i]);
            if (!mem_fits(s, gpu, s->life, top, NULL))
                break;
            T = fmax(least_fitting(s, gpu, s->life, T, top), T * (1 + 1.0 / 4096));
        }
        if (!beats(s, objective_of(s, T, lat)))
            break;
    }
    plan_free(pl);
    return NULL;
}

/* 1f1b: a plan whose latency holds waits may do better at a slightly
 * longer period, where fewer operations collide. */
static void ladder(struct lns *s)
{
    /* an exact schedule already chose its period */
    if (!s->best || s->alpha <= 0 || s->beta <= 0 || s->opt->schedule)
        return;
    prepare(s, s->best->gpu);
    double wait = s->best->latency - s->lat;
    double T0 = s->best->T;
    for (int k = 1; k <= LNS_LADDER && wait > 1e-9 * s->best->latency && !out_of_budget(s); k++) {
        double T = T0 + (wait * s->beta / s->alpha) * k / (LNS_LADDER + 1);
        struct plan *pl = plan_copy(s->best);
        if (!pl)
            return;
        s->st->evaluations++;
        if (schedule_build_at(pl, s->pb, T) == 0 && pl->fits && beats(s, pl->objective) &&
            accept(s, pl))
            return;
        plan_free(pl);
    }
}

/* One round: the neighbours that can beat the incumbent, best bound
 * first, until one does. */
static bool improve_round(struct lns *s)
{
    neighbours(s, false, true);
    if (s->stop || s->nmv == 0)
        return false;
    qsort(s->mv, (size_t)s->nmv, sizeof *s->mv, move_cmp);
    /* the first round from the start plan: what an earlier call judged */
    int k0 = s->opt->schedule && s->st->improvements == 0 && s->opt->skip > 0
             ? (int)(s->opt->skip < s->nmv ? s->opt->skip : s->nmv) : 0;
    for (int k = k0; k < s->nmv && !out_of_budget(s); k++) {
        apply(s, &s->mv[k], s->tmp);
        struct plan *pl = evaluate(s, s->tmp, s->mv[k].T);
        if (pl && accept(s, pl)) {
            ladder(s);
            return true;
        }
    }
    return false;
}

/* With no fitting plan: walk, without schedules, to an allocation whose
 * memory with one copy of everything fits (least excess first). */
static void walk_to_fit(struct lns *s)
{
    double T, excess;
    bound(s, s->cur, &T, &excess);
    for (int step = 0; step < LNS_DESCENT && excess > 0 && !out_of_budget(s); step++) {
        neighbours(s, true, false);
        int k = -1;
        for (int j = 0; j < s->nmv; j++)
            if (s->mv[j].lb < excess && (k < 0 || s->mv[j].lb < s->mv[k].lb))
                k = j;
        if (k < 0)
            return;
        apply(s, &s->mv[k], s->cur);
        excess = s->mv[k].lb;
    }
}

static void lns_free(struct lns *s)
{
    free(s->cur);
    free(s->tmp);
    free(s->seen);
    free(s->life);
    free(s->extra);
    free(s->load);
    free(s->per_copy);
    free(s->rlo);
    free(s->rhi);
    free(s->rg);
    free(s->alone);
    free(s->mv);
}

int lns_improve(const struct problem *pb, const struct plan *start,
                const struct lns_options *opt, struct plan **best_out,
                struct lns_stats *stats)
{
    struct lns_stats local;
    struct lns_options none;
    if (best_out)
        *best_out = NULL;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!opt) {
        lns_options_init(&none);
        opt = &none;
    }
    if (!pb || !start || !best_out || start->L != pb->L || start->P != pb->P || pb->L < 1 ||
        pb->P < 1)
        return -1;
    for (int i = 0; i < pb->L; i++)
        if (start->gpu[i] < 0 || start->gpu[i] >= pb->P)
            return -1;

    struct lns s;
    memset(&s, 0, sizeof s);
    s.pb = pb;
    s.opt = opt;
    s.st = stats;
    s.t0 = opt->seconds > 0 ? now() : 0;
    s.L = pb->L;
    s.P = pb->P;
    problem_objective_weights(pb, &s.alpha, &s.beta);
    size_t L = (size_t)pb->L, P = (size_t)pb->P;
    s.cur = malloc(L * sizeof *s.cur);
    s.tmp = malloc(L * sizeof *s.tmp);
    s.seen = malloc(P * sizeof *s.seen);
    s.life = malloc(L * sizeof *s.life);
    s.extra = calloc(L, sizeof *s.extra);
    s.load = malloc(4 * P * sizeof *s.load);
    s.per_copy = malloc(L * sizeof *s.per_copy);
    s.rlo = malloc(L * sizeof *s.rlo);
    s.rhi = malloc(L * sizeof *s.rhi);
    s.rg = malloc(L * sizeof *s.rg);
    s.alone = malloc(L * sizeof *s.alone);
    if (!s.cur || !s.tmp || !s.seen || !s.life || !s.extra || !s.load || !s.per_copy || !s.rlo || !s.rhi ||
        !s.rg || !s.alone) {
        lns_free(&s);
        return -1;
    }
    s.link = s.load + P;
    s.fixed = s.load + 2 * P;
    s.acc = s.load + 3 * P;
    for (int i = 0; i < pb->L; i++)
        s.per_copy[i] = pb->s[i] + (pb->schedule == SPEC_SCHEDULE_1F1B ? 0 : pb->w[i]);
    memcpy(s.cur, start->gpu, L * sizeof *s.cur);
    s.best_obj = start->fits ? start->objective : INFINITY;

    if (!start->fits) {
        /* first a fitting plan: its memory with one copy, then a schedule */
        walk_to_fit(&s);
        double T, excess;
        double lb = bound(&s, s.cur, &T, &excess);
        struct plan *pl = isfinite(lb) ? evaluate(&s, s.cur, T) : NULL;
        if (pl)
            accept(&s, pl);
    } else if (pb->layout == LAYOUT_CONTIGUOUS && !plan_is_contiguous(start)) {
        s.stop = true;
    } else {
        s.best = plan_copy(start);
        if (!s.best) {
            lns_free(&s);
            return -1;
        }
        set_extra(&s, start);
        ladder(&s);
        if (s.st->improvements == 0) {
            plan_free(s.best);
            s.best = NULL;
        }
    }
    while (!out_of_budget(&s) && improve_round(&s))
        ;
    lns_free(&s);
    *best_out = s.best;
    return stats->improvements;
}
