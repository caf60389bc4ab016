/* problem: the numbers a planner needs, built from the specs and knobs,
 * and their coarsening into blocks for the ILP. */
#include "problem.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* Splits whose largest block is within this fraction of the best balance
 * count as ties; among them the one with the least activation crossing
 * the cuts wins. */
#define COARSEN_SLACK 0.03

void knobs_init(struct knobs *k)
{
    k->gpus = 0;
    k->memory = 0;
    k->micro_batches = 0;
    k->schedule = -1;
    k->layout = -1;
    k->blocks = 0;
    k->weight_factor = 0.0;
}

static void err_set(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static char *str_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

struct problem *problem_new(int L, int P)
{
    struct problem *pb = calloc(1, sizeof *pb);
    if (!pb)
        return NULL;
    size_t l = (size_t)L;
    pb->L = L;
    pb->P = P;
    pb->tp = 1;
    pb->f = calloc(l, sizeof *pb->f);
    pb->b = calloc(l, sizeof *pb->b);
    pb->w = calloc(l, sizeof *pb->w);
    pb->a = calloc(l, sizeof *pb->a);
    pb->s = calloc(l, sizeof *pb->s);
    pb->c = calloc(l, sizeof *pb->c);
    pb->names = calloc(l, sizeof *pb->names);
    pb->first = calloc(l + 1, sizeof *pb->first);
    pb->cap = calloc((size_t)P, sizeof *pb->cap);
    pb->reserved = calloc((size_t)P, sizeof *pb->reserved);
    if (!pb->f || !pb->b || !pb->w || !pb->a || !pb->s || !pb->c ||
        !pb->names || !pb->first || !pb->cap || !pb->reserved) {
        problem_free(pb);
        return NULL;
    }
    return pb;
}

void problem_free(struct problem *pb)
{
    if (!pb)
        return;
    if (pb->names)
        for (int i = 0; i < pb->L; i++)
            free(pb->names[i]);
    free(pb->names);
    free(pb->network);
    free(pb->f);
    free(pb->b);
    free(pb->w);
    free(pb->a);
    free(pb->s);
    free(pb->c);
    free(pb->first);
    free(pb->cap);
    free(pb->reserved);
    free(pb);
}

/* The scalar run settings shared by a problem and its copies. */
static void problem_copy_settings(struct problem *dst, const struct problem *src)
{
    dst->micro_batch = src->micro_batch;
    dst->tp = src->tp;
    dst->m = src->m;
    dst->schedule = src->schedule;
    dst->layout = src->layout;
    dst->phi = src->phi;
    dst->bandwidth = src->bandwidth;
    dst->latency_ms = src->latency_ms;
    for (int p = 0; p < src->P && p < dst->P; p++) {
        dst->cap[p] = src->cap[p];
        dst->reserved[p] = src->reserved[p];
    }
}

static bool finite_nonneg(double x)
{
    return isfinite(x) && x >= 0.0;
}

uint64_t problem_gpu_memory(const struct knobs *k, const struct spec_platform *plat, int p)
{
    if (k->memory)
        return k->memory;
    if (plat->gpu_memory && p < plat->gpus)
        return plat->gpu_memory[p];
    return plat->memory;
}

/* Everything problem_create needs from the knobs, resolved against the
 * files; returns 0 or -1 with a message. */
int problem_knobs_resolve(const struct knobs *k, const struct spec_platform *plat,
                          struct knobs *out, char *err, size_t errlen)
{
    struct knobs def;
    knobs_init(&def);
    if (!k)
        k = &def;

    if (k->gpus < 0 || k->gpus > SPEC_MAX_GPUS) {
        err_set(err, errlen, "gpus must be between 1 and %d (got %d)",
                SPEC_MAX_GPUS, k->gpus);
        return -1;
    }
    out->gpus = k->gpus ? k->gpus : plat->gpus;
    if (out->gpus < 1 || out->gpus > SPEC_MAX_GPUS) {
        err_set(err, errlen, "gpus must be between 1 and %d (platform has %d)",
                SPEC_MAX_GPUS, out->gpus);
        return -1;
    }
    out->memory = k->memory;
    if (k->memory && k->memory <= plat->reserved) {
        /* nothing at all would fit: every plan's row would say no_fit */
        char b1[32], b2[32];
        err_set(err, errlen, "--memory %s is not above the %s the platform reserves per GPU "
                "(expected more)", units_format_size((double)k->memory, b1, sizeof b1),
                units_format_size((double)plat->reserved, b2, sizeof b2));
        return -1;
    }

    if (k->micro_batches < 0) {
        err_set(err, errlen, "micro-batches must be at least 1 (got %ld)",
                k->micro_batches);
        return -1;
    }
    out->micro_batches = k->micro_batches ? k->micro_batches : plat->micro_batches;
    if (out->micro_batches < 1) {
        err_set(err, errlen, "micro-batches must be at least 1 (platform has %ld)",
                out->micro_batches);
        return -1;
    }

    if (k->schedule > SPEC_SCHEDULE_PIPEDREAM) {
        err_set(err, errlen, "schedule must be 1f1b or pipedream (got %d)",
                k->schedule);
        return -1;
    }
    out->schedule = k->schedule >= 0 ? k->schedule : (int)plat->schedule;
    if (out->schedule != SPEC_SCHEDULE_1F1B && out->schedule != SPEC_SCHEDULE_PIPEDREAM) {
        err_set(err, errlen, "schedule must be 1f1b or pipedream (platform has %d)",
                out->schedule);
        return -1;
    }

    if (k->layout > LAYOUT_CONTIGUOUS) {
        err_set(err, errlen, "layout must be any or contiguous (got %d)", k->layout);
        return -1;
    }
    out->layout = k->layout >= 0 ? k->layout : LAYOUT_ANY;

    if (k->blocks < -1) {
        err_set(err, errlen, "blocks must be 0 (none), -1 (automatic) or a count (got %d)",
                k->blocks);
        return -1;
    }
    out->blocks = k->blocks;

    if (isnan(k->weight_factor) || k->weight_factor < 0.0 || isinf(k->weight_factor)) {
        err_set(err, errlen, "weight factor must be a positive number (got %g)",
                k->weight_factor);
        return -1;
    }
    out->weight_factor = k->weight_factor > 0.0 ? k->weight_factor : plat->weight_factor;
    if (!isfinite(out->weight_factor) || out->weight_factor <= 0.0) {
        err_set(err, errlen, "weight factor must be a positive number (platform has %g)",
                out->weight_factor);
        return -1;
    }
    return 0;
}

static int network_check(const struct spec_network *net, char *err, size_t errlen)
{
    if (net->nlayers < 1 || net->nlayers > SPEC_MAX_LAYERS || !net->layers) {
        err_set(err, errlen, "network must have between 1 and %d layers (got %d)",
                SPEC_MAX_LAYERS, net->nlayers);
        return -1;
    }
    if (net->micro_batch < 1) {
        err_set(err, errlen, "micro-batch size must be at least 1 sample (got %ld)",
                net->micro_batch);
        return -1;
    }
    for (int i = 0; i < net->nlayers; i++) {
        const struct spec_layer *ly = &net->layers[i];
        if (!finite_nonneg(ly->forward_ms) || !finite_nonneg(ly->backward_ms)) {
            err_set(err, errlen, "layer %s: compute times must be finite and >= 0",
                    ly->name ? ly->name : "?");
            return -1;
        }
    }
    return 0;
}

static int platform_check(const struct spec_platform *plat, char *err, size_t errlen)
{
    if (!isfinite(plat->bandwidth) || plat->bandwidth <= 0.0) {
        err_set(err, errlen, "bandwidth must be positive (got %g B/s)", plat->bandwidth);
        return -1;
    }
    if (!finite_nonneg(plat->latency_ms)) {
        err_set(err, errlen, "latency must be finite and >= 0 (got %g ms)",
                plat->latency_ms);
        return -1;
    }
    return 0;
}

struct problem *problem_create(const struct spec_network *net,
                               const struct spec_platform *plat,
                               const struct knobs *knobs,
                               char *err, size_t errlen)
{
    if (!net || !plat) {
        err_set(err, errlen, "missing network or platform");
        return NULL;
    }
    struct knobs k;
    if (network_check(net, err, errlen) || platform_check(plat, err, errlen) ||
        problem_knobs_resolve(knobs, plat, &k, err, errlen))
        return NULL;

    int L = net->nlayers;
    struct problem *pb = problem_new(L, k.gpus);
    if (!pb) {
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    pb->network = str_dup(net->name ? net->name : "");
    if (!pb->network)
        goto oom;
    pb->micro_batch = net->micro_batch;
    pb->tp = net->tensor_parallel > 1 ? (int)net->tensor_parallel : 1;
    for (int i = 0; i < L; i++) {
        const struct spec_layer *ly = &net->layers[i];
        pb->f[i] = ly->forward_ms;
        pb->b[i] = ly->backward_ms;
        pb->w[i] = (double)ly->weights;
        pb->a[i] = (double)ly->activation;
        pb->s[i] = (double)ly->stored;
        pb->c[i] = i < L - 1
                 ? plat->latency_ms + pb->a[i] / plat->bandwidth * 1000.0 : 0.0;
        if (ly->name) {
            pb->names[i] = str_dup(ly->name);
        } else {
            char buf[16];
            snprintf(buf, sizeof buf, "%d", i);
            pb->names[i] = str_dup(buf);
        }
        if (!pb->names[i])
            goto oom;
        pb->first[i] = i;
    }
    pb->first[L] = L;

    for (int p = 0; p < pb->P; p++) {
        pb->cap[p] = (double)problem_gpu_memory(&k, plat, p);
        pb->reserved[p] = (double)plat->reserved;
    }
    pb->m = k.micro_batches;
    pb->schedule = (enum spec_schedule)k.schedule;
    pb->layout = (enum layout_kind)k.layout;
    pb->phi = k.weight_factor;
    pb->bandwidth = plat->bandwidth;
    pb->latency_ms = plat->latency_ms;
    return pb;

oom:
    problem_free(pb);
    err_set(err, errlen, "out of memory");
    return NULL;
}

static bool same_doubles(const double *x, const double *y, int n)
{
    return n <= 0 || memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

bool problem_same_but_caps(const struct problem *a, const struct problem *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->L != b->L || a->P != b->P || a->tp != b->tp || a->m != b->m ||
        a->micro_batch != b->micro_batch || a->schedule != b->schedule ||
        a->layout != b->layout || a->phi != b->phi || a->bandwidth != b->bandwidth ||
        a->latency_ms != b->latency_ms)
        return false;
    int L = a->L;
    return same_doubles(a->f, b->f, L) && same_doubles(a->b, b->b, L) &&
           same_doubles(a->w, b->w, L) && same_doubles(a->a, b->a, L) &&
           same_doubles(a->s, b->s, L) && same_doubles(a->c, b->c, L) &&
           same_doubles(a->reserved, b->reserved, a->P) &&
           memcmp(a->first, b->first, ((size_t)L + 1) * sizeof *a->first) == 0;
}

struct problem *problem_on_gpus(const struct problem *pb, int P)
{
    struct problem *cp = P >= 1 ? problem_new(pb->L, P) : NULL;
    if (!cp)
        return NULL;
    size_t l = (size_t)pb->L;
    memcpy(cp->f, pb->f, l * sizeof *cp->f);
    memcpy(cp->b, pb->b, l * sizeof *cp->b);
    memcpy(cp->w, pb->w, l * sizeof *cp->w);
    memcpy(cp->a, pb->a, l * sizeof *cp->a);
    memcpy(cp->s, pb->s, l * sizeof *cp->s);
    memcpy(cp->c, pb->c, l * sizeof *cp->c);
    memcpy(cp->first, pb->first, (l + 1) * sizeof *cp->first);
    cp->network = str_dup(pb->network ? pb->network : "");
    if (!cp->network)
        goto oom;
    for (int i = 0; i < pb->L; i++) {
        cp->names[i] = str_dup(pb->names[i] ? pb->names[i] : "");
        if (!cp->names[i])
            goto oom;
    }
    problem_copy_settings(cp, pb);
    return cp;

oom:
    problem_free(cp);
    return NULL;
}

struct problem *problem_copy(const struct problem *pb)
{
    return problem_on_gpus(pb, pb->P);
}

double problem_compute_ms(const struct problem *pb)
{
    double sum = 0.0;
    for (int i = 0; i < pb->L; i++)
        sum += pb->f[i] + pb->b[i];
    return sum;
}

/* A bound made of sums of the layers' times, lowered by what rounding can
 * put into such sums (n terms: at most n units of the last place each
 * way): a plan's loads are summed in another order, and its period must
 * not come out below the bound by a rounding (10,000 layers of 3 us on
 * 16 GPUs: 1.8749999999999691 ms against 1.875000000000064 ms). A bound
 * lowered stays a bound. */
static double sum_floor(double v, int n)
{
    return v - fabs(v) * 2.0 * ((double)n + 2.0) * DBL_EPSILON;
}

double problem_lower_bound(const struct problem *pb)
{
    double biggest = 0.0;
    for (int i = 0; i < pb->L; i++)
        if (pb->f[i] + pb->b[i] > biggest)
            biggest = pb->f[i] + pb->b[i];
    double spread = sum_floor(problem_compute_ms(pb) / pb->P, pb->L);
    return spread > biggest ? spread : biggest;
}

static int cmp_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a < b) - (a > b);
}

double problem_load_bound(const struct problem *pb)
{
    int L = pb->L, P = pb->P;
    double t = problem_lower_bound(pb);
    double *v = malloc((size_t)L * sizeof *v);
    if (!v)
        return t;
    for (int i = 0; i < L; i++)
        v[i] = pb->f[i] + pb->b[i];
    qsort(v, (size_t)L, sizeof *v, cmp_desc);
    /* among the k P + 1 largest elements some GPU runs k + 1: at least
     * the k + 1 smallest of them */
    for (int k = 1; k * P + 1 <= L; k++) {
        double sum = 0;
        for (int j = k * P - k; j <= k * P; j++)
            sum += v[j];
        t = fmax(t, sum_floor(sum, k + 1));
    }
    free(v);
    return t;
}

void problem_objective_weights(const struct problem *pb, double *alpha, double *beta)
{
    bool flushed = pb->schedule == SPEC_SCHEDULE_1F1B;
    *alpha = flushed ? (double)(pb->m - 1) : 1.0;
    *beta = flushed ? 1.0 : 0.0;
}

double problem_objective_bound(const struct problem *pb)
{
    double T = problem_lower_bound(pb);
    if (pb->schedule != SPEC_SCHEDULE_1F1B)
        return T;
    /* a micro-batch's latency is at least its whole chain of compute */
    return sum_floor((double)(pb->m - 1) * T + problem_compute_ms(pb), pb->L + 2);
}

/* Balance is judged on blocks of two or more elements only: an element
 * bigger than the rest cannot be split, and measuring against it would
 * let every other block grow to its size, wasting blocks on slivers.
 * A block is allowed when it is a single element or sums to <= limit. */

/* Greedy: fewest allowed blocks (optimal, as any part of an allowed block
 * is allowed). */
static int blocks_needed(const double *x, int n, double limit)
{
    int count = 0;
    double run = 0.0;
    for (int i = 0; i < n; i++) {
        if (count > 0 && run + x[i] <= limit) {
            run += x[i];
        } else {
            count++;
            run = x[i];
        }
    }
    return count;
}

/* Largest multi-element block of the greedy split under limit: a value
 * some split reaches, so the bisection below lands on the exact optimum. */
static double blocks_worst(const double *x, int n, double limit)
{
    double run = 0.0, worst = 0.0;
    int len = 0;
    for (int i = 0; i < n; i++) {
        if (len > 0 && run + x[i] <= limit) {
            run += x[i];
            len++;
        } else {
            run = x[i];
            len = 1;
        }
        if (len > 1 && run > worst)
            worst = run;
    }
    return worst;
}

/* The least possible largest multi-element block over splits into at
 * most K blocks (K < n). */
static double coarsen_balance(const double *x, int n, int K)
{
    double lo = 0.0, hi = 0.0;
    for (int i = 0; i < n; i++)
        hi += x[i];
    if (blocks_needed(x, n, lo) <= K)
        return blocks_worst(x, n, lo);
    /* lo infeasible, hi feasible: bisect down to adjacent doubles. */
    for (int it = 0; it < 2000; it++) {
        double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi)
            break;
        if (blocks_needed(x, n, mid) <= K)
            hi = mid;
        else
            lo = mid;
    }
    return blocks_worst(x, n, hi);
}

/* Work space for the cut DP over n elements and K blocks. */
struct cutdp {
    int n, K;
    double *prefix, *prev, *cur;
    int *queue, *from;
};

static void cutdp_free(struct cutdp *dp)
{
    free(dp->prefix);
    free(dp->prev);
    free(dp->cur);
    free(dp->queue);
    free(dp->from);
}

static int cutdp_init(struct cutdp *dp, const double *x, int n, int K)
{
    size_t rows = (size_t)K + 1, cols = (size_t)n + 1;
    memset(dp, 0, sizeof *dp);
    if (rows > SIZE_MAX / cols / sizeof(int))
        return -1;
    dp->n = n;
    dp->K = K;
    dp->prefix = malloc(cols * sizeof *dp->prefix);
    dp->prev = malloc(cols * sizeof *dp->prev);
    dp->cur = malloc(cols * sizeof *dp->cur);
    dp->queue = malloc(cols * sizeof *dp->queue);
    dp->from = malloc(rows * cols * sizeof *dp->from);
    if (!dp->prefix || !dp->prev || !dp->cur || !dp->queue || !dp->from) {
        cutdp_free(dp);
        return -1;
    }
    dp->prefix[0] = 0.0;
    for (int i = 0; i < n; i++)
        dp->prefix[i + 1] = dp->prefix[i] + x[i];
    return 0;
}

/* Least total activation on the K-1 cuts over splits into exactly K
 * non-empty allowed blocks (INFINITY if none).
 * Exact DP; the allowed block starts only move right as the block end
 * does, so a sliding-window minimum makes it O(K n). */
static double cutdp_run(struct cutdp *dp, const double *cut, double limit)
{
    int n = dp->n, K = dp->K;
    size_t cols = (size_t)n + 1;
    double *prev = dp->prev, *cur = dp->cur;
    for (size_t j = 0; j < cols; j++)
        prev[j] = INFINITY;
    prev[0] = 0.0;
    for (int k = 1; k <= K; k++) {
        int head = 0, tail = 0, lo = 0;
        for (size_t j = 0; j < cols; j++)
            cur[j] = INFINITY;
        for (int j = k; j <= n - (K - k); j++) {
            int i = j - 1;
            if (isfinite(prev[i])) {
                while (tail > head && prev[dp->queue[tail - 1]] > prev[i])
                    tail--;
                dp->queue[tail++] = i;
            }
            while (lo < j && dp->prefix[j] - dp->prefix[lo] > limit)
                lo++;
            /* A single element is always allowed. */
            int oldest = lo < j - 1 ? lo : j - 1;
            while (tail > head && dp->queue[head] < oldest)
                head++;
            if (tail > head) {
                cur[j] = prev[dp->queue[head]] + (j < n ? cut[j - 1] : 0.0);
                dp->from[(size_t)k * cols + (size_t)j] = dp->queue[head];
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    dp->prev = prev;
    dp->cur = cur;
    return prev[n];
}

/* The boundaries of the split cutdp_run last found (K+1 of them). */
static void cutdp_bounds(const struct cutdp *dp, int *bound)
{
    size_t cols = (size_t)dp->n + 1;
    bound[dp->K] = dp->n;
    for (int k = dp->K; k > 0; k--)
        bound[k - 1] = dp->from[(size_t)k * cols + (size_t)bound[k]];
}

/* Cheapest cuts within the slack of the best balance, then the tightest
 * balance that keeps that cost (so equal activations keep the balanced
 * split). */
static int coarsen_cuts(const double *x, const double *cut, int n, int K, int *bound)
{
    struct cutdp dp;
    if (cutdp_init(&dp, x, n, K))
        return -1;
    double best = coarsen_balance(x, n, K);
    double lo = best, hi = best * (1.0 + COARSEN_SLACK) + 1e-9;
    double cost = cutdp_run(&dp, cut, hi);
    int rc = -1;
    if (!isfinite(cost))
        goto out;
    double keep = cost + 1e-9 * fmax(1.0, cost);
    if (cutdp_run(&dp, cut, lo + 1e-9) > keep) {
        for (int it = 0; it < 60 && hi - lo > 1e-9 * fmax(1.0, best); it++) {
            double mid = lo + (hi - lo) / 2.0;
            if (cutdp_run(&dp, cut, mid) <= keep)
                hi = mid;
            else
                lo = mid;
        }
        lo = hi;
    }
    if (cutdp_run(&dp, cut, lo + 1e-9) > keep)
        goto out;
    cutdp_bounds(&dp, bound);
    rc = 0;
out:
    cutdp_free(&dp);
    return rc;
}

/* "first..last" from the names of the first and last elements of a block;
 * an element that is already a block contributes its own end. */
/* Problems built by hand may leave names out. */
static const char *layer_name(const struct problem *pb, int i)
{
    return pb->names && pb->names[i] ? pb->names[i] : "";
}

static char *block_name(const struct problem *pb, int from, int to)
{
    if (from == to)
        return str_dup(layer_name(pb, from));
    const char *head = layer_name(pb, from);
    size_t hlen = strlen(head);
    if (pb->first[from + 1] - pb->first[from] > 1) {
        const char *dots = strstr(head, "..");
        if (dots)
            hlen = (size_t)(dots - head);
    }
    const char *tail = layer_name(pb, to);
    if (pb->first[to + 1] - pb->first[to] > 1) {
        const char *dots = NULL;
        for (const char *p = strstr(tail, ".."); p; p = strstr(p + 1, ".."))
            dots = p;
        if (dots)
            tail = dots + 2;
    }
    size_t tlen = strlen(tail);
    char *name = malloc(hlen + 2 + tlen + 1);
    if (!name)
        return NULL;
    memcpy(name, head, hlen);
    memcpy(name + hlen, "..", 2);
    memcpy(name + hlen + 2, tail, tlen + 1);
    return name;
}

struct problem *problem_group(const struct problem *pb, const int *bound, int K)
{
    if (K < 1 || bound[0] != 0 || bound[K] != pb->L)
        return NULL;
    for (int k = 0; k < K; k++)
        if (bound[k + 1] <= bound[k])
            return NULL;
    struct problem *cb = problem_new(K, pb->P);
    if (!cb)
        return NULL;
    cb->network = str_dup(pb->network ? pb->network : "");
    if (!cb->network)
        goto fail;
    problem_copy_settings(cb, pb);
    for (int k = 0; k < K; k++) {
        int from = bound[k], to = bound[k + 1] - 1;
        for (int i = from; i <= to; i++) {
            cb->f[k] += pb->f[i];
            cb->b[k] += pb->b[i];
            cb->w[k] += pb->w[i];
            cb->s[k] += pb->s[i];
        }
        cb->a[k] = pb->a[to];
        cb->c[k] = k < K - 1 ? pb->c[to] : 0.0;
        cb->first[k] = pb->first[from];
        cb->names[k] = block_name(pb, from, to);
        if (!cb->names[k])
            goto fail;
    }
    cb->first[K] = pb->first[pb->L];
    return cb;
fail:
    problem_free(cb);
    return NULL;
}

struct problem *problem_coarsen(const struct problem *pb, int blocks)
{
    if (blocks <= 0 || blocks >= pb->L)
        return problem_copy(pb);

    int n = pb->L, K = blocks;
    double *x = malloc((size_t)n * sizeof *x);
    int *bound = malloc(((size_t)K + 1) * sizeof *bound);
    struct problem *cb = NULL;
    if (x && bound) {
        for (int i = 0; i < n; i++)
            x[i] = pb->f[i] + pb->b[i];
        if (coarsen_cuts(x, pb->a, n, K, bound) == 0)
            cb = problem_group(pb, bound, K);
    }
    free(x);
    free(bound);
    return cb;
}

const char *problem_gpu_word(const struct problem *pb, bool plural)
{
    if (pb && pb->tp > 1)
        return plural ? "ranks" : "rank";
    return plural ? "GPUs" : "GPU";
}
