/* simulate: replay a plan micro-batch by micro-batch and check it against
 * the model (doc/model.md section 6). It shares no code with the planners, the
 * schedule builder or plan_evaluate(): everything is re-derived from the
 * problem and the plan's gpu[], T and start[], so it can judge them all. */
#include "simulate.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The replay goes one GPU at a time (a GPU's operations meet only each
 * other; its memory is its layers'), each over the micro-batches its own
 * operations need: two more than its share of micro-batch 0 spans periods
 * (a GPU late in a long pipeline is busy for a few periods of it, not for
 * the whole trip). Operation instances held at once at most, one GPU's: a
 * plan whose replay of one GPU exceeds this is refused rather than
 * allowed to exhaust memory (32 bytes each, 128 MiB at most); a chain of
 * 100,000 layers spanning 8 periods on one GPU needs 2 M. And instances
 * replayed in all, over every GPU, at most (a few seconds; every plan shown
 * is replayed): 10,000 layers spanning 258 periods on 128 GPUs replay 5 M,
 * 20,000 layers on 1,024 GPUs (1,024 periods) 20 M in about a second. */
#define SIM_MAX_INSTANCES (1L << 22)
#define SIM_MAX_WORK (1L << 25)
/* Each operation's dependency is checked in every micro-batch of the
 * replay, a comparison each: at most this many (well under a second). */
#define SIM_MAX_CHECKS (1L << 26)

struct inst {
    double t;           /* start, ms */
    double d;           /* duration, ms */
    long j;             /* micro-batch */
    int o;              /* operation: F_o, or B_{o-L} when o >= L */
    int gpu;
};

/* Memory event: a stored activation (and, for pipedream, a weight
 * version) of layer i for micro-batch j appears or goes away. */
enum mem_kind { MEM_RELEASE = 0, MEM_ACQUIRE = 1, MEM_RELEASE_EMPTY = 2 };

struct mem_event {
    double t;
    long j;
    int layer;
    int kind;           /* enum mem_kind, also the order of ties */
};

struct sim {
    const struct plan *pl;
    const struct problem *pb;
    struct sim_report *rep;
    int L, P;
    bool pipedream;
    double T, tol;
    double tmin0, tmax0;    /* first start, last end of micro-batch 0 */
    int ovl_op;             /* the operation of the first overlap */
    long K;                 /* micro-batches replayed for periodic checks */
    long kmem;              /* ... for memory and makespan */
    int *ops;               /* [2L] the operations, GPU by GPU */
    int *first;             /* [P+1] GPU p's are ops[first[p] .. first[p+1]) */
    long *kp;               /* [P] micro-batches replayed on GPU p */
    double *endp;           /* [P] last end of GPU p's operations of micro-batch 0 */
    long room;              /* the most instances of one GPU's replay */
    struct inst *in;        /* [room]: one GPU's instances, by time */
    long nin;
    double lo, hi;          /* first start, last end of micro-batches < kmem */
    double *busy;           /* [P] busy ms per period, steady state */
    double *second;         /* [P] ... in the period after */
    double *work;           /* [P] its operations' total */
    double *send, *recv;    /* [P] link load per period */
    double *peak;           /* [P] measured peak memory, bytes */
    int *alive;             /* [L] most copies of layer i alive at once */
};

static enum sim_verdict say(struct sim_report *r, enum sim_verdict v,
                            const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum sim_verdict say(struct sim_report *r, enum sim_verdict v,
                            const char *fmt, ...)
{
    va_list ap;
    r->verdict = v;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    return v;
}

/* "F3" / "B3", 0-based like the plan's arrays. */
static const char *op_name(int o, int L, char *buf, size_t len)
{
    snprintf(buf, len, "%c%d", o < L ? 'F' : 'B', o < L ? o : o - L);
    return buf;
}

static double op_dur(const struct sim *s, int o)
{
    return o < s->L ? s->pb->f[o] : s->pb->b[o - s->L];
}

/* What the plan's GPUs are: pipeline ranks of a tensor-parallel network. */
static const char *gpu_word(const struct sim *s)
{
    return problem_gpu_word(s->pb, false);
}

static int op_gpu(const struct sim *s, int o)
{
    return s->pl->gpu[o < s->L ? o : o - s->L];
}

static bool is_cut(const struct sim *s, int i)
{
    return i + 1 < s->L && s->pl->gpu[i] != s->pl->gpu[i + 1];
}

/* The operation that must finish before o (-1 for F_0) and the transfer
 * delay between them. */
static int op_pred(const struct sim *s, int o, double *delay)
{
    int L = s->L;
    *delay = 0;
    if (o == 0)
        return -1;
    if (o < L) {
        if (is_cut(s, o - 1))
            *delay = s->pb->c[o - 1];
        return o - 1;
    }
    int i = o - L;
    if (i == L - 1)
        return L - 1;
    if (is_cut(s, i))
        *delay = s->pb->c[i];
    return o + 1;
}

static double mem_tol(double bytes)
{
    return 1.0 + 1e-9 * fabs(bytes);
}

static bool finite_nonneg(double x)
{
    return isfinite(x) && x >= 0;
}

static enum sim_verdict check_form(struct sim *s)
{
    const struct plan *pl = s->pl;
    const struct problem *pb = s->pb;
    struct sim_report *r = s->rep;

    if (!pl || !pb)
        return say(r, SIM_BAD_PLAN, "no plan or no problem to check");
    if (pb->L < 1 || pb->P < 1 || pb->m < 1)
        return say(r, SIM_BAD_PLAN, "problem has %d layers, %d GPUs, %ld micro-batches",
                   pb->L, pb->P, pb->m);
    if (pl->L != pb->L || pl->P != pb->P)
        return say(r, SIM_BAD_PLAN, "plan is for %d layers on %d %s, problem has %d on %d",
                   pl->L, pl->P, problem_gpu_word(pb, true), pb->L, pb->P);
    if (!pl->gpu || !pl->start || !pl->gpus || !pl->inflight || !pl->copies || !pl->versions)
        return say(r, SIM_BAD_PLAN, "plan is missing its arrays");
    s->L = pb->L;
    s->P = pb->P;
    for (int i = 0; i < s->L; i++) {
        if (!finite_nonneg(pb->f[i]) || !finite_nonneg(pb->b[i]) ||
            !finite_nonneg(pb->c[i]) || !finite_nonneg(pb->s[i]) ||
            !finite_nonneg(pb->w[i]) || !finite_nonneg(pb->a[i]))
            return say(r, SIM_BAD_PLAN, "layer %d has a negative or non-finite cost", i);
        if (pl->gpu[i] < 0 || pl->gpu[i] >= s->P)
            return say(r, SIM_BAD_PLAN, "layer %d is on %s %d, outside 0..%d",
                       i, problem_gpu_word(pb, false), pl->gpu[i], s->P - 1);
    }
    if (!isfinite(pl->T) || pl->T <= 0)
        return say(r, SIM_BAD_PLAN, "period T = %.9g ms is not a positive number", pl->T);
    for (int o = 0; o < 2 * s->L; o++) {
        char nm[16];
        if (!isfinite(pl->start[o]))
            return say(r, SIM_BAD_PLAN, "%s has no finite start time",
                       op_name(o, s->L, nm, sizeof nm));
    }
    s->T = pl->T;
    s->pipedream = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;

    s->tmin0 = INFINITY;
    s->tmax0 = -INFINITY;
    for (int o = 0; o < 2 * s->L; o++) {
        s->tmin0 = fmin(s->tmin0, pl->start[o]);
        s->tmax0 = fmax(s->tmax0, pl->start[o] + op_dur(s, o));
    }
    /* Two micro-batches more than micro-batch 0 spans periods: then every
     * pair of instances that could meet in the endless periodic schedule
     * meets in the replay, and two whole periods of steady state exist. */
    double span = ceil((s->tmax0 - s->tmin0) / s->T);
    long ops = 2L * s->L;
    long *n = calloc((size_t)s->P, sizeof *n);
    double *lo = malloc((size_t)s->P * sizeof *lo);
    s->kp = calloc((size_t)s->P, sizeof *s->kp);
    s->endp = malloc((size_t)s->P * sizeof *s->endp);
    if (!n || !lo || !s->kp || !s->endp) {
        free(n);
        free(lo);
        return say(r, SIM_BAD_PLAN, "out of memory while replaying");
    }
    for (int p = 0; p < s->P; p++) {
        lo[p] = INFINITY;
        s->endp[p] = -INFINITY;
    }
    for (int o = 0; o < 2 * s->L; o++) {
        int p = op_gpu(s, o);
        n[p]++;
        lo[p] = fmin(lo[p], pl->start[o]);
        s->endp[p] = fmax(s->endp[p], pl->start[o] + op_dur(s, o));
    }
    /* GPU p's instances of micro-batches j and j' meet only when |j - j'|
     * is at most its span; with two more the replay holds every such
     * pair, and from the end of its micro-batch 0 two whole periods of
     * steady state (no micro-batch before 0 is still on it, none after
     * the last has begun), where its memory peaks as in the endless
     * schedule or in a flush of at least that many. */
    double work = 0, room = 0;
    for (int p = 0; p < s->P; p++) {
        if (n[p] == 0)
            continue;
        double k = ceil((s->endp[p] - lo[p]) / s->T) + 2;
        work += k * (double)n[p];
        room = fmax(room, k * (double)n[p]);
        s->kp[p] = k < (double)LONG_MAX / 4 ? (long)k : LONG_MAX / 4;
    }
    free(n);
    free(lo);
    /* say which limit: "spans 1024 periods" alone blamed the span, where
     * 5,000 layers on 2,048 GPUs (as long) replay and 20,000 on 1,024 had
     * too many operations for it */
    if (room > (double)SIM_MAX_INSTANCES || work > (double)SIM_MAX_WORK) {
        bool one = room > (double)SIM_MAX_INSTANCES;
        return say(r, SIM_BAD_PLAN, "micro-batch 0 spans %.*g periods: too long to replay "
                   "(%.3g M operation instances%s%s, at most %ld M)", span < 1e9 ? 9 : 3, span,
                   (one ? room : work) / 1048576.0, one ? " on one " : "", one ? gpu_word(s) : "",
                   (one ? SIM_MAX_INSTANCES : SIM_MAX_WORK) >> 20);
    }
    if ((span + 2) * (double)ops > (double)SIM_MAX_CHECKS)
        return say(r, SIM_BAD_PLAN, "micro-batch 0 spans %.*g periods: too long to replay "
                   "(%.3g M dependency checks, at most %ld M)", span < 1e9 ? 9 : 3, span,
                   (span + 2) * (double)ops / 1048576.0, SIM_MAX_CHECKS >> 20);
    s->room = (long)room;
    long need = (long)span + 2;
    long K = pb->m > 3L * s->P ? pb->m : 3L * s->P;
    if (K < need)
        K = need;
    /* Beyond `need` a replay only repeats itself; cap the work. */
    if (K > SIM_MAX_INSTANCES / ops)
        K = need > SIM_MAX_INSTANCES / ops / 2 ? need : SIM_MAX_INSTANCES / ops / 2;
    s->K = K;
    /* Times are compared with a tolerance relative to the period, or to
     * micro-batch 0's span when that is shorter (a plan file with a period
     * of 10^6 ms had 1 ms of tolerance, and a chain of shorter operations
     * all at time 0, backwards before forwards, passed), but never below
     * what rounding leaves in the replay's times, start + j T for j < K
     * (a valid plan with a period of 10^12 ms must still pass). */
    double scale = fabs(s->tmin0) + fabs(s->tmax0) + (double)K * s->T;
    s->tol = fmax(PLAN_EPS * fmax(1.0, fmin(s->T, s->tmax0 - s->tmin0)),
                  64 * DBL_EPSILON * scale);
    s->kmem = s->pipedream ? K : (pb->m < K ? pb->m : K);
    r->microbatches = (int)K;
    return SIM_OK;
}

static int inst_cmp(const void *x, const void *y)
{
    const struct inst *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    /* An empty operation may share its instant with the start of another. */
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    if (a->j != b->j)
        return a->j < b->j ? -1 : 1;
    return (a->o > b->o) - (a->o < b->o);
}

/* The replay sorts K copies of the same 2L operations, copy j shifted by
 * j periods: sorting copy 0 once and laying every copy out in that order
 * leaves K sorted runs to merge (n log K, not n log n; 100,000 layers
 * replay 2 M instances). Rounding a shifted start can create a tie that
 * copy 0 did not have, so each run is first put in exact order (an
 * insertion pass, linear on a sorted run); the merge then gives exactly
 * what one sort of the whole array would. */
static void run_fix(unsigned char *a, long len, size_t size,
                    int (*cmp)(const void *, const void *))
{
    unsigned char tmp[64];
    for (long i = 1; i < len; i++) {
        if (cmp(a + (size_t)(i - 1) * size, a + (size_t)i * size) <= 0)
            continue;
        memcpy(tmp, a + (size_t)i * size, size);
        long k = i;
        while (k > 0 && cmp(a + (size_t)(k - 1) * size, tmp) > 0) {
            memcpy(a + (size_t)k * size, a + (size_t)(k - 1) * size, size);
            k--;
        }
        memcpy(a + (size_t)k * size, tmp, size);
    }
}

_Static_assert(sizeof(struct inst) <= 64 && sizeof(struct mem_event) <= 64, "run_fix buffer");

static int runs_sort(void *base, long n, long len, size_t size,
                     int (*cmp)(const void *, const void *))
{
    unsigned char *a = base;
    for (long i = 0; i < n; i += len)
        run_fix(a + (size_t)i * size, i + len <= n ? len : n - i, size, cmp);
    if (len >= n)
        return 0;
    unsigned char *b = malloc((size_t)n * size), *src = a, *dst = b;
    if (!b)
        return -1;
    for (long w = len; w < n; w *= 2) {
        for (long lo = 0; lo < n; lo += 2 * w) {
            long mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            long x = lo, y = mid, k = lo;
            while (x < mid && y < hi) {
                long from = cmp(src + (size_t)y * size, src + (size_t)x * size) < 0 ? y++ : x++;
                memcpy(dst + (size_t)k++ * size, src + (size_t)from * size, size);
            }
            if (x < mid)
                memcpy(dst + (size_t)k * size, src + (size_t)x * size, (size_t)(mid - x) * size);
            else if (y < hi)
                memcpy(dst + (size_t)k * size, src + (size_t)y * size, (size_t)(hi - y) * size);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * size);
    free(b);
    return 0;
}

/* The operations grouped by GPU, and room for one GPU's instances. */
static int group_ops(struct sim *s)
{
    s->ops = malloc(2 * (size_t)s->L * sizeof *s->ops);
    s->first = calloc((size_t)s->P + 1, sizeof *s->first);
    int *at = malloc((size_t)s->P * sizeof *at);
    if (!s->ops || !s->first || !at) {
        free(at);
        return -1;
    }
    for (int o = 0; o < 2 * s->L; o++)
        s->first[op_gpu(s, o) + 1]++;
    for (int p = 0; p < s->P; p++)
        s->first[p + 1] += s->first[p];
    memcpy(at, s->first, (size_t)s->P * sizeof *at);
    for (int o = 0; o < 2 * s->L; o++)
        s->ops[at[op_gpu(s, o)]++] = o;
    free(at);
    s->in = malloc((size_t)(s->room > 0 ? s->room : 1) * sizeof *s->in);
    return s->in ? 0 : -1;
}

/* GPU p's instances over its kp[p] micro-batches, in time order. */
static int build_instances(struct sim *s, int p)
{
    long ops = s->first[p + 1] - s->first[p], n = s->kp[p] * ops;
    for (long k = 0; k < ops; k++) {
        int o = s->ops[s->first[p] + k];
        s->in[k] = (struct inst){ s->pl->start[o], op_dur(s, o), 0, o, p };
    }
    qsort(s->in, (size_t)ops, sizeof *s->in, inst_cmp);
    for (long j = 1; j < s->kp[p]; j++)
        for (long k = 0; k < ops; k++) {
            struct inst *x = &s->in[j * ops + k];
            *x = s->in[k];
            x->t = s->pl->start[x->o] + (double)j * s->T;
            x->j = j;
        }
    s->nin = n;
    return n > 0 ? runs_sort(s->in, n, ops, sizeof *s->in, inst_cmp) : 0;
}

/* Every instance of every operation against its chain predecessor in the
 * same micro-batch. Returns the start of the earliest violating instance
 * (INFINITY if none) and fills the reason for it. */
static double find_dependency(struct sim *s, char *why, size_t len, int *blame)
{
    double first = INFINITY;
    for (long j = 0; j < s->K; j++)
        for (int o = 1; o < 2 * s->L; o++) {
            double delay;
            int p = op_pred(s, o, &delay);
            double t = s->pl->start[o] + (double)j * s->T;
            double end = s->pl->start[p] + (double)j * s->T + op_dur(s, p);
            if (t >= end + delay - s->tol || t >= first)
                continue;
            first = t;
            *blame = o;
            char a[16], b[16];
            op_name(o, s->L, a, sizeof a);
            op_name(p, s->L, b, sizeof b);
            if (delay > 0)
                snprintf(why, len, "%s of micro-batch %ld starts at %.9g ms on %s %d, "
                         "before %s's output reaches it from %s %d at %.9g ms "
                         "(%s ends at %.9g, transfer %.9g ms)",
                         a, j, t, gpu_word(s), op_gpu(s, o), b, gpu_word(s), op_gpu(s, p),
                         end + delay, b, end, delay);
            else
                snprintf(why, len, "%s of micro-batch %ld starts at %.9g ms, before %s "
                         "ends at %.9g ms", a, j, t, b, end);
        }
    return first;
}

/* Sweep the GPU's instances in time order; an instance that starts
 * before the latest end seen so far overlaps that operation. Returns the
 * earlier of first and its own first overlap, with the reason in why. */
static double find_overlap(struct sim *s, double first, char *why, size_t len, int *blame)
{
    long k = 0;
    while (k < s->nin) {
        int g = s->in[k].gpu;
        const struct inst *holder = NULL;
        for (; k < s->nin && s->in[k].gpu == g; k++) {
            const struct inst *x = &s->in[k];
            if (holder) {
                double hend = holder->t + holder->d;
                bool empty_at_start = x->d <= s->tol && x->t <= holder->t + s->tol;
                if (x->t < hend - s->tol && !empty_at_start) {
                    if (x->t < first) {
                        char a[16], b[16];
                        first = x->t;
                        *blame = x->o;
                        snprintf(why, len, "%s %d: %s of micro-batch %ld [%.9g, %.9g) "
                                 "overlaps %s of micro-batch %ld [%.9g, %.9g)", gpu_word(s), g,
                                 op_name(holder->o, s->L, a, sizeof a), holder->j,
                                 holder->t, hend, op_name(x->o, s->L, b, sizeof b),
                                 x->j, x->t, x->t + x->d);
                    }
                    while (k < s->nin && s->in[k].gpu == g)
                        k++;
                    break;
                }
            }
            if (x->d > s->tol && (!holder || x->t + x->d > holder->t + holder->d))
                holder = x;
        }
    }
    return first;
}

static double clip(double t, double d, double lo, double hi)
{
    double a = fmax(t, lo), b = fmin(t + d, hi);
    return b > a ? b - a : 0;
}

/* GPU by GPU: its instances, the first overlap among them (into tovl and
 * ovl), its busy time in two steady-state periods (from the end of its
 * micro-batch 0) and its work, and the span of the first kmem
 * micro-batches (those past its replay are the last ones replayed, later
 * by whole periods). -1 when out of memory. */
static int replay_gpus(struct sim *s, double *tovl, char *ovl, size_t len)
{
    *tovl = INFINITY;
    s->lo = INFINITY;
    s->hi = -INFINITY;
    for (int p = 0; p < s->P; p++) {
        if (build_instances(s, p) < 0)
            return -1;
        *tovl = find_overlap(s, *tovl, ovl, len, &s->ovl_op);
        double w0 = s->endp[p], w1 = w0 + s->T, w2 = w1 + s->T;
        long kr = s->kmem < s->kp[p] ? s->kmem : s->kp[p];
        double later = (double)(s->kmem - kr) * s->T;
        for (long k = 0; k < s->nin; k++) {
            const struct inst *x = &s->in[k];
            s->busy[p] += clip(x->t, x->d, w0, w1);
            s->second[p] += clip(x->t, x->d, w1, w2);
            if (x->j == 0)
                s->work[p] += x->d;
            if (x->j < kr) {
                s->lo = fmin(s->lo, x->t);
                s->hi = fmax(s->hi, x->t + x->d + later);
            }
        }
    }
    return 0;
}

static enum sim_verdict check_replay(struct sim *s, double tovl, const char *ovl)
{
    char dep[sizeof s->rep->reason];
    int dep_op = -1;
    double tdep = find_dependency(s, dep, sizeof dep, &dep_op);
    if (tdep == INFINITY && tovl == INFINITY)
        return SIM_OK;
    /* Report whichever the replay meets first. */
    s->rep->op = tdep <= tovl ? dep_op : s->ovl_op;
    if (tdep <= tovl)
        return say(s->rep, SIM_DEPENDENCY, "%s", dep);
    return say(s->rep, SIM_OVERLAP, "%s", ovl);
}

/* Each split cut is sent once forward and once backward per period: the
 * activation from the GPU before it, the gradient from the GPU after. */
static enum sim_verdict check_links(struct sim *s)
{
    for (int i = 0; i + 1 < s->L; i++) {
        if (!is_cut(s, i))
            continue;
        int a = s->pl->gpu[i], b = s->pl->gpu[i + 1];
        s->send[a] += s->pb->c[i];
        s->recv[b] += s->pb->c[i];
        s->send[b] += s->pb->c[i];
        s->recv[a] += s->pb->c[i];
    }
    for (int p = 0; p < s->P; p++) {
        if (s->send[p] > s->T + s->tol)
            return say(s->rep, SIM_LINK, "%s %d sends %.9g ms of transfers per period, "
                       "more than the period T = %.9g ms", gpu_word(s), p, s->send[p], s->T);
        if (s->recv[p] > s->T + s->tol)
            return say(s->rep, SIM_LINK, "%s %d receives %.9g ms of transfers per period, "
                       "more than the period T = %.9g ms", gpu_word(s), p, s->recv[p], s->T);
    }
    return SIM_OK;
}

/* In steady state (from the last end of micro-batch 0 on) each GPU must
 * be busy the same time in consecutive periods, equal to its operations'
 * total, and micro-batches must complete one per T. */
static enum sim_verdict check_period(struct sim *s)
{
    const double *second = s->second, *work = s->work;
    enum sim_verdict v = SIM_OK;
    for (int p = 0; p < s->P && v == SIM_OK; p++) {
        double tol = s->tol * (2.0 * s->L + 2);
        if (fabs(s->busy[p] - second[p]) > tol)
            v = say(s->rep, SIM_PERIOD, "%s %d is busy %.9g ms in one steady-state period "
                    "and %.9g ms in the next", gpu_word(s), p, s->busy[p], second[p]);
        else if (fabs(s->busy[p] - work[p]) > tol)
            v = say(s->rep, SIM_PERIOD, "%s %d is busy %.9g ms per steady-state period, "
                    "its operations take %.9g ms", gpu_word(s), p, s->busy[p], work[p]);
    }
    if (v != SIM_OK)
        return v;

    /* Completions of B_0 across the middle of the replay. */
    long j1 = s->K / 4, j2 = s->K - 1 - s->K / 4;
    if (j2 <= j1) {
        j1 = 0;
        j2 = s->K - 1;
    }
    double end0 = s->pl->start[s->L] + s->pb->b[0];
    double e1 = end0 + (double)j1 * s->T, e2 = end0 + (double)j2 * s->T;
    s->rep->period = j2 > j1 ? (e2 - e1) / (double)(j2 - j1) : s->T;
    if (fabs(s->rep->period - s->T) > s->tol)
        return say(s->rep, SIM_PERIOD, "micro-batches complete every %.9g ms, "
                   "the plan's period is %.9g ms", s->rep->period, s->T);
    return SIM_OK;
}

static int mem_cmp(const void *x, const void *y)
{
    const struct mem_event *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->j != b->j)
        return a->j < b->j ? -1 : 1;
    return a->layer - b->layer;
}

/* Weights (phi*w, plus one stashed w per extra version in use under
 * pipedream) and activations appear at the start of F_i and leave at the
 * end of B_i; buffers and reserved memory are constant. Intervals are
 * half-open, so a copy freed at the instant another is taken does not
 * count twice. */
static int measure_memory(struct sim *s)
{
    const struct problem *pb = s->pb;
    const struct plan *pl = s->pl;
    /* the events of one GPU's layers at a time: 2 per layer and copy */
    struct mem_event *ev = malloc((size_t)(s->room > 0 ? s->room : 1) * sizeof *ev);
    int *layers = malloc((size_t)s->L * sizeof *layers);
    int *count = calloc((size_t)s->L, sizeof *count);
    if (!ev || !layers || !count) {
        free(ev);
        free(layers);
        free(count);
        return -1;
    }
    for (int p = 0; p < s->P; p++) {
        /* GPU p's layers: its forward operations, in chain order */
        int nl = 0;
        for (int k = s->first[p]; k < s->first[p + 1]; k++)
            if (s->ops[k] < s->L)
                layers[nl++] = s->ops[k];
        /* a flush of more micro-batches than its replay peaks as that
         * replay's steady state does (see check_form) */
        long kr = s->kmem < s->kp[p] ? s->kmem : s->kp[p];
        long ops = 2L * nl, n = kr * ops, k = 0;
        for (long j = 0; j < kr; j++) {
            /* Copy 0 sorted, the others laid out in its order (runs_sort). */
            if (j == 1)
                qsort(ev, (size_t)ops, sizeof *ev, mem_cmp);
            for (long e = 0; e < ops; e++) {
                int i = j == 0 ? layers[e / 2] : ev[e].layer;
                bool acquire = j == 0 ? e % 2 == 0 : ev[e].kind == MEM_ACQUIRE;
                double from = pl->start[i] + (double)j * s->T;
                double to = pl->start[s->L + i] + (double)j * s->T + pb->b[i] - s->tol;
                /* compared as computed: a lifetime near the tolerance,
                 * shifted by j periods, may round either way, and a
                 * release before its own acquire would leave the copy
                 * counted for ever */
                if (acquire)
                    ev[k++] = (struct mem_event){ from, j, i, MEM_ACQUIRE };
                else if (to > from)
                    ev[k++] = (struct mem_event){ to, j, i, MEM_RELEASE };
                else
                    ev[k++] = (struct mem_event){ from, j, i, MEM_RELEASE_EMPTY };
            }
        }
        if (kr == 1)
            qsort(ev, (size_t)n, sizeof *ev, mem_cmp);
        else if (n > 0 && runs_sort(ev, n, ops, sizeof *ev, mem_cmp) < 0) {
            free(ev);
            free(layers);
            free(count);
            return -1;
        }
        double cur = 0, top = 0;
        for (k = 0; k < n; k++) {
            int i = ev[k].layer;
            if (ev[k].kind == MEM_ACQUIRE) {
                count[i]++;
                cur += pb->s[i];
                if (s->pipedream && count[i] >= 2)
                    cur += pb->w[i];
                if (cur > top)
                    top = cur;
                if (count[i] > s->alive[i])
                    s->alive[i] = count[i];
            } else if (count[i] > 0) {
                if (s->pipedream && count[i] >= 2)
                    cur -= pb->w[i];
                cur -= pb->s[i];
                count[i]--;
            }
        }
        s->peak[p] = pb->reserved[p] + top;
    }

    for (int i = 0; i < s->L; i++) {
        s->peak[pl->gpu[i]] += pb->phi * pb->w[i];
        if (is_cut(s, i)) {
            s->peak[pl->gpu[i]] += 2 * pb->a[i];
            s->peak[pl->gpu[i + 1]] += 2 * pb->a[i];
        }
    }
    free(ev);
    free(layers);
    free(count);
    return 0;
}

static enum sim_verdict check_memory(struct sim *s)
{
    for (int p = 0; p < s->P; p++) {
        double model = s->pl->gpus[p].total;
        if (s->peak[p] > model + mem_tol(model))
            return say(s->rep, SIM_MEMORY_MODEL, "%s %d: measured peak %.0f B exceeds "
                       "the model's %.0f B by %.0f B", gpu_word(s), p, s->peak[p], model,
                       s->peak[p] - model);
    }
    if (!s->pl->fits)
        return SIM_OK;
    for (int p = 0; p < s->P; p++) {
        double cap = s->pb->cap[p];
        if (s->peak[p] > cap + mem_tol(cap))
            return say(s->rep, SIM_MEMORY_CAP, "plan claims to fit but %s %d peaks at "
                       "%.0f B, over its %.0f B cap by %.0f B", gpu_word(s), p, s->peak[p], cap,
                       s->peak[p] - cap);
    }
    return SIM_OK;
}

/* Makespan of the flushed run: first start to last end over the first
 * kmem micro-batches, the rest (if the replay was capped) one T each. */
static enum sim_verdict check_makespan(struct sim *s)
{
    double lo = s->lo, hi = s->hi;
    long runs = s->pipedream ? s->K : s->pb->m;
    s->rep->makespan = hi - lo + (double)(runs - s->kmem) * s->T;
    if (s->pipedream)
        return SIM_OK;
    double m = (double)s->pb->m;
    double want = (m - 1) * s->T + s->pl->latency;
    double tol = s->tol * (m + 1);
    if (fabs(s->rep->makespan - want) > tol)
        return say(s->rep, SIM_MAKESPAN, "%ld micro-batches take %.9g ms, but "
                   "(m-1)T + latency = %.9g ms", s->pb->m, s->rep->makespan, want);
    if (fabs(s->rep->makespan - s->pl->iteration) > tol)
        return say(s->rep, SIM_MAKESPAN, "%ld micro-batches take %.9g ms, the plan's "
                   "iteration time is %.9g ms", s->pb->m, s->rep->makespan, s->pl->iteration);
    return SIM_OK;
}

static bool near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

static enum sim_verdict check_layers(struct sim *s)
{
    const struct plan *pl = s->pl;
    long m = s->pb->m;
    for (int i = 0; i < s->L; i++) {
        double life = pl->start[s->L + i] + s->pb->b[i] - pl->start[i];
        int n = pl->inflight[i];
        /* Any count within tolerance of the ceiling is accepted. */
        bool ok = n >= 1 && life <= n * s->T + s->tol &&
                  (n == 1 || life > (n - 1) * s->T - s->tol);
        if (!ok)
            return say(s->rep, SIM_DERIVED, "layer %d lives %.9g ms = %.9g periods, "
                       "the plan counts %d in flight", i, life, life / s->T, n);
        int u = s->pipedream || n <= m ? n : (int)m;
        int v = s->pipedream ? n : 1;
        if (pl->copies[i] != u || pl->versions[i] != v)
            return say(s->rep, SIM_DERIVED, "layer %d: %d in flight should give %d copies "
                       "and %d versions, the plan has %d and %d", i, n, u, v,
                       pl->copies[i], pl->versions[i]);
        if (s->alive[i] > pl->copies[i])
            return say(s->rep, SIM_DERIVED, "layer %d: %d copies alive at once in the "
                       "replay, the plan counts %d", i, s->alive[i], pl->copies[i]);
    }
    return SIM_OK;
}

static enum sim_verdict check_gpus(struct sim *s)
{
    const struct plan *pl = s->pl;
    const struct problem *pb = s->pb;
    double *wts = calloc((size_t)s->P, sizeof *wts);
    double *act = calloc((size_t)s->P, sizeof *act);
    double *buf = calloc((size_t)s->P, sizeof *buf);
    if (!wts || !act || !buf) {
        free(wts);
        free(act);
        free(buf);
        return say(s->rep, SIM_BAD_PLAN, "out of memory while replaying");
    }
    for (int i = 0; i < s->L; i++) {
        int p = pl->gpu[i];
        wts[p] += (pb->phi + pl->versions[i] - 1) * pb->w[i];
        act[p] += pb->s[i] * pl->copies[i];
        if (is_cut(s, i)) {
            buf[p] += 2 * pb->a[i];
            buf[pl->gpu[i + 1]] += 2 * pb->a[i];
        }
    }
    enum sim_verdict v = SIM_OK;
    bool fits = true, clear = true;   /* clear: every GPU well under its cap */
    double peak = -INFINITY;
    for (int p = 0; p < s->P && v == SIM_OK; p++) {
        const struct plan_gpu *g = &pl->gpus[p];
        double tol = s->tol * 2;
        if (!near(g->load_ms, s->busy[p], tol))
            v = say(s->rep, SIM_DERIVED, "%s %d computes %.9g ms per period in the "
                    "replay, the plan says %.9g ms", gpu_word(s), p, s->busy[p], g->load_ms);
        else if (!near(g->send_ms, s->send[p], tol) || !near(g->recv_ms, s->recv[p], tol))
            v = say(s->rep, SIM_DERIVED, "%s %d sends/receives %.9g/%.9g ms per period, "
                    "the plan says %.9g/%.9g ms", gpu_word(s), p, s->send[p], s->recv[p],
                    g->send_ms, g->recv_ms);
        else if (fmax(g->load_ms, fmax(g->send_ms, g->recv_ms)) > s->T + s->tol)
            v = say(s->rep, SIM_DERIVED, "%s %d's load %.9g ms is above the period "
                    "T = %.9g ms", gpu_word(s), p, fmax(g->load_ms, fmax(g->send_ms, g->recv_ms)),
                    s->T);
        else if (!near(g->weights, wts[p], mem_tol(wts[p])) ||
                 !near(g->activations, act[p], mem_tol(act[p])) ||
                 !near(g->buffers, buf[p], mem_tol(buf[p])) ||
                 !near(g->reserved, pb->reserved[p], mem_tol(pb->reserved[p])))
            v = say(s->rep, SIM_DERIVED, "%s %d: memory split %.0f/%.0f/%.0f/%.0f B "
                    "(weights/activations/buffers/reserved), expected %.0f/%.0f/%.0f/%.0f B",
                    gpu_word(s), p, g->weights, g->activations, g->buffers, g->reserved,
                    wts[p], act[p], buf[p], pb->reserved[p]);
        else if (!near(g->total, g->weights + g->activations + g->buffers + g->reserved,
                       mem_tol(g->total)))
            v = say(s->rep, SIM_DERIVED, "%s %d: total %.0f B is not the sum of its parts",
                    gpu_word(s), p, g->total);
        else if (!near(g->cap, pb->cap[p], mem_tol(pb->cap[p])))
            v = say(s->rep, SIM_DERIVED, "%s %d: cap %.0f B, the problem says %.0f B",
                    gpu_word(s), p, g->cap, pb->cap[p]);
        if (g->total > pb->cap[p] + mem_tol(pb->cap[p]))
            fits = false;
        if (g->total > pb->cap[p] - mem_tol(pb->cap[p]))
            clear = false;
        peak = fmax(peak, g->total);
    }
    free(wts);
    free(act);
    free(buf);
    if (v != SIM_OK)
        return v;
    if (pl->fits && !fits)
        return say(s->rep, SIM_DERIVED, "plan claims to fit but a %s's total is over its cap",
                   gpu_word(s));
    if (!pl->fits && clear)
        return say(s->rep, SIM_DERIVED, "plan claims not to fit but every %s is under its cap",
                   gpu_word(s));
    if (!near(pl->peak_memory, peak, mem_tol(peak)))
        return say(s->rep, SIM_DERIVED, "peak memory %.0f B, the largest %s total is %.0f B",
                   pl->peak_memory, gpu_word(s), peak);
    return SIM_OK;
}

static enum sim_verdict check_derived(struct sim *s)
{
    const struct plan *pl = s->pl;
    double lat = pl->start[s->L] + s->pb->b[0] - pl->start[0];
    double m = (double)s->pb->m;
    if (!near(pl->latency, lat, s->tol))
        return say(s->rep, SIM_DERIVED, "one micro-batch takes %.9g ms from F0 start to "
                   "B0 end, the plan's latency is %.9g ms", lat, pl->latency);
    double iter = s->pipedream ? m * s->T : (m - 1) * s->T + lat;
    if (!near(pl->iteration, iter, s->tol * (m + 1)))
        return say(s->rep, SIM_DERIVED, "iteration time %.9g ms, %s is %.9g ms",
                   pl->iteration, s->pipedream ? "m T" : "(m-1)T + latency", iter);
    double thr = iter > 0 ? m * (double)s->pb->micro_batch * 1000.0 / iter : NAN;
    if (isnan(thr) ? !isnan(pl->throughput) : !near(pl->throughput, thr, 1e-9 * fmax(1.0, thr)))
        return say(s->rep, SIM_DERIVED, "throughput %.9g samples/s, m x micro-batch / "
                   "iteration is %.9g", pl->throughput, thr);
    double obj = s->pipedream ? s->T : iter;
    if (!near(pl->objective, obj, s->tol * (m + 1)))
        return say(s->rep, SIM_DERIVED, "objective %.9g, expected %.9g (%s)", pl->objective,
                   obj, s->pipedream ? "the period" : "the iteration time");
    enum sim_verdict v = check_layers(s);
    if (v != SIM_OK)
        return v;
    return check_gpus(s);
}

static void sim_free(struct sim *s)
{
    free(s->ops);
    free(s->first);
    free(s->kp);
    free(s->endp);
    free(s->in);
    free(s->busy);
    free(s->second);
    free(s->work);
    free(s->send);
    free(s->recv);
    free(s->peak);
    free(s->alive);
}

enum sim_verdict simulate_plan(const struct plan *pl, const struct problem *pb,
                               struct sim_report *report)
{
    struct sim_report local;
    struct sim s;
    memset(&s, 0, sizeof s);
    s.pl = pl;
    s.pb = pb;
    s.rep = report ? report : &local;
    memset(s.rep, 0, sizeof *s.rep);
    s.rep->op = -1;

    enum sim_verdict v = check_form(&s);
    if (v != SIM_OK) {
        sim_free(&s);
        return v;
    }
    s.busy = calloc((size_t)s.P, sizeof *s.busy);
    s.second = calloc((size_t)s.P, sizeof *s.second);
    s.work = calloc((size_t)s.P, sizeof *s.work);
    s.send = calloc((size_t)s.P, sizeof *s.send);
    s.recv = calloc((size_t)s.P, sizeof *s.recv);
    s.peak = calloc((size_t)s.P, sizeof *s.peak);
    s.alive = calloc((size_t)s.L, sizeof *s.alive);
    char ovl[sizeof s.rep->reason];
    double tovl;
    if (!s.busy || !s.second || !s.work || !s.send || !s.recv || !s.peak || !s.alive ||
        group_ops(&s) < 0 || replay_gpus(&s, &tovl, ovl, sizeof ovl) < 0) {
        sim_free(&s);
        return say(s.rep, SIM_BAD_PLAN, "out of memory while replaying");
    }

    v = check_replay(&s, tovl, ovl);
    if (v == SIM_OK)
        v = check_links(&s);
    if (v == SIM_OK)
        v = check_period(&s);
    if (v == SIM_OK) {
        if (measure_memory(&s) < 0)
            v = say(s.rep, SIM_BAD_PLAN, "out of memory while replaying");
        for (int p = 0; p < s.P && p < 64; p++)
            s.rep->peak[p] = s.peak[p];
    }
    if (v == SIM_OK)
        v = check_memory(&s);
    if (v == SIM_OK)
        v = check_makespan(&s);
    if (v == SIM_OK)
        v = check_derived(&s);
    if (v == SIM_OK)
        say(s.rep, SIM_OK, "valid: %d micro-batches replayed, period %.9g ms",
            s.rep->microbatches, s.rep->period);
    sim_free(&s);
    return v;
}

const char *simulate_verdict_name(enum sim_verdict v)
{
    switch (v) {
    case SIM_OK: return "ok";
    case SIM_BAD_PLAN: return "bad plan";
    case SIM_OVERLAP: return "overlap";
    case SIM_DEPENDENCY: return "dependency";
    case SIM_LINK: return "link overload";
    case SIM_PERIOD: return "period";
    case SIM_MEMORY_MODEL: return "memory model";
    case SIM_MEMORY_CAP: return "memory cap";
    case SIM_MAKESPAN: return "makespan";
    case SIM_DERIVED: return "derived figures";
    }
    return "unknown";
}
