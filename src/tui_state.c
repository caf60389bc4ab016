/* tui_state: the explorer's model without curses: knobs and their steps,
 * undo, reload, the plans table fed by worker events, export. */
#include "tui_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "export.h"
#include "ilp.h"
#include "planfile.h"
#include "report.h"
#include "simulate.h"
#include "split.h"
#include "units.h"

/* Replays longer than this (micro-batches x operations, about 5 ms) are
 * not re-checked on the UI's thread: a check must not stall the screen. */
#define SIM_BUDGET 20000.0

double tui_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The readers speak the command line's words; here the keys change the
 * GPUs: "--gpus changes ..." becomes "g and G change ..." (shorter, so
 * in place). */
static void explorer_words(char *msg)
{
    static const char from[] = "--gpus changes ", to[] = "g and G change ";
    for (char *p = msg; (p = strstr(p, from));) {
        memcpy(p, to, sizeof to - 1);
        memmove(p + sizeof to - 1, p + sizeof from - 1, strlen(p + sizeof from - 1) + 1);
        p += sizeof to - 1;
    }
}

void tui_message(struct tui *t, enum tui_msg kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->msg_kind = kind;
    t->dirty = true;
}

/* ---- shared problems ---- */

/* Bounds only rise: a lower bound proven later (or kept from before)
 * never replaces a larger one; NAN is no bound. */
static void bound_raise(double *bound, double v)
{
    if (isfinite(v) && !(v < *bound))
        *bound = v;
}

static struct tui_problem *tp_new(struct problem *pb)
{
    struct tui_problem *tp = malloc(sizeof *tp);
    if (!tp) {
        problem_free(pb);
        return NULL;
    }
    tp->pb = pb;
    tp->refs = 1;
    return tp;
}

static struct tui_problem *tp_ref(struct tui_problem *tp)
{
    if (tp)
        tp->refs++;
    return tp;
}

static void tp_unref(struct tui_problem *tp)
{
    if (tp && --tp->refs == 0) {
        problem_free(tp->pb);
        free(tp);
    }
}

/* ---- settings ---- */

static void setting_free(struct tui_setting *s)
{
    free(s->cap);
    s->cap = NULL;
    s->ncap = 0;
}

static int setting_copy(struct tui_setting *dst, const struct tui_setting *src)
{
    *dst = *src;
    dst->cap = NULL;
    if (src->ncap > 0) {
        dst->cap = malloc((size_t)src->ncap * sizeof *dst->cap);
        if (!dst->cap)
            return -1;
        memcpy(dst->cap, src->cap, (size_t)src->ncap * sizeof *dst->cap);
    }
    return 0;
}

/* Whether two settings give the same problem (only the ILP's knobs
 * differ), each knob as the problem takes it: a cap of 16 GiB typed
 * (m then M) is the platform's 16 GiB, and the ILP's result for it is
 * kept (tui_cache). */
static bool setting_same_problem(const struct tui *t, const struct tui_setting *a,
                                 const struct tui_setting *b)
{
    struct knobs ka, kb;
    char err[SPEC_ERR_LEN];
    if (problem_knobs_resolve(&a->k, t->plat, &ka, err, sizeof err) < 0 ||
        problem_knobs_resolve(&b->k, t->plat, &kb, err, sizeof err) < 0) {
        ka = a->k;              /* one of them is no problem: only the same knobs */
        kb = b->k;
        if (ka.memory != kb.memory)
            return false;
    }
    if (ka.gpus != kb.gpus || ka.micro_batches != kb.micro_batches ||
        ka.schedule != kb.schedule || ka.layout != kb.layout ||
        ka.weight_factor != kb.weight_factor)
        return false;
    for (int p = 0; p < ka.gpus; p++) {
        uint64_t x = p < a->ncap && a->cap[p] ? a->cap[p] : problem_gpu_memory(&ka, t->plat, p);
        uint64_t y = p < b->ncap && b->cap[p] ? b->cap[p] : problem_gpu_memory(&kb, t->plat, p);
        if (x != y)
            return false;
    }
    return true;
}

static struct problem *problem_build(const struct spec_network *net,
                                     const struct spec_platform *plat,
                                     const struct tui_setting *s, char *err, size_t errlen)
{
    struct problem *pb = problem_create(net, plat, &s->k, err, errlen);
    if (!pb)
        return NULL;
    for (int p = 0; p < pb->P && p < s->ncap; p++) {
        if (!s->cap[p])
            continue;
        if ((double)s->cap[p] <= pb->reserved[p]) {
            /* as a uniform cap (and a [gpu N] section) is refused */
            char b1[32], b2[32];
            snprintf(err, errlen, "GPU %d's cap %s is not above the %s it reserves "
                     "(expected more)", p, units_format_size((double)s->cap[p], b1, sizeof b1),
                     units_format_size(pb->reserved[p], b2, sizeof b2));
            problem_free(pb);
            return NULL;
        }
        pb->cap[p] = (double)s->cap[p];
    }
    return pb;
}

/* Make `s` the setting and `pb` the problem; re-plan as much as needed. */
static void setting_install(struct tui *t, struct tui_setting *s, struct problem *pb,
                            bool same_problem)
{
    setting_free(&t->set);
    t->set = *s;
    if (pb) {
        struct tui_problem *tp = tp_new(pb);
        if (tp) {
            tp_unref(t->cur);
            t->cur = tp;
        }
    }
    enum tui_replan want = same_problem ? REPLAN_ILP : REPLAN_ALL;
    if (want > t->replan)
        t->replan = want;
    t->dirty = true;
}

static void undo_push(struct tui *t, const struct tui_setting *old)
{
    if (t->nundo == TUI_UNDO_MAX) {
        setting_free(&t->undo[0]);
        memmove(&t->undo[0], &t->undo[1], (TUI_UNDO_MAX - 1) * sizeof t->undo[0]);
        t->nundo--;
    }
    if (setting_copy(&t->undo[t->nundo], old) == 0)
        t->nundo++;
}

/* ---- steps that make sense for each knob ---- */

static uint64_t cap_step(uint64_t cap)
{
    /* 1 GiB below 20 GiB, about 5 % above (in whole GiB) */
    double gib = (double)cap / TUI_GIB;
    if (gib < 20.0)
        return TUI_MIN_CAP;
    return (uint64_t)floor(gib * 0.05 + 0.5) * TUI_MIN_CAP;
}

static uint64_t cap_next(uint64_t cap, int dir)
{
    uint64_t next;
    if (dir > 0) {
        /* a file's cap may be above the keys' largest: larger never
         * lowers it (M took 8 TiB down to 4) */
        if (cap >= TUI_MAX_CAP)
            return cap;
        uint64_t st = cap_step(cap);
        next = (cap / st + 1) * st;
        if (next > TUI_MAX_CAP)
            next = TUI_MAX_CAP;
    } else {
        /* nor is it below the keys' smallest: smaller never raises it
         * (m took 512 MiB up to 1 GiB) */
        if (cap <= TUI_MIN_CAP)
            return cap;
        uint64_t st = cap_step(cap > 1 ? cap - 1 : cap);
        uint64_t k = (cap + st - 1) / st;
        next = k > 1 ? (k - 1) * st : TUI_MIN_CAP;
        if (next < TUI_MIN_CAP)
            next = TUI_MIN_CAP;
    }
    return next;
}

static long pow2_floor(long n)
{
    long p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static long micro_batches_next(long m, int dir)
{
    /* 1 up to 16, then steps of about an eighth, staying on a round grid */
    if (dir > 0) {
        long st = m >= 8 ? pow2_floor(m / 8) : 1;
        long next = (m / st + 1) * st;
        return next > TUI_MAX_MICRO_BATCHES ? TUI_MAX_MICRO_BATCHES : next;
    }
    long st = m - 1 >= 8 ? pow2_floor((m - 1) / 8) : 1;
    long next = ((m + st - 1) / st - 1) * st;
    return next < 1 ? 1 : next;
}

/* Block counts 2, 3, 4, 6, 8, 12, 16, 24, ... then every layer. */
static int blocks_next(int cur, int L, int dir)
{
    int lo = L < 2 ? L : 2;
    if (dir > 0) {
        if (cur >= L)
            return L;
        for (int a = 2, b = 3;; a *= 2, b *= 2) {
            if (a > cur)
                return a < L ? a : L;
            if (b > cur)
                return b < L ? b : L;
            if (a > L)
                return L;
        }
    }
    if (cur <= lo)
        return lo;
    int best = lo;
    for (int a = 2, b = 3; a < cur; a *= 2, b *= 2) {
        best = a;
        if (b < cur)
            best = b;
    }
    return best;
}

static const double limits[] = { 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600 };
#define NLIMITS ((int)(sizeof limits / sizeof limits[0]))

static double limit_next(double cur, int dir)
{
    if (dir > 0) {
        for (int i = 0; i < NLIMITS; i++)
            if (limits[i] > cur + 1e-9)
                return limits[i];
        return cur;
    }
    for (int i = NLIMITS - 1; i >= 0; i--)
        if (limits[i] < cur - 1e-9)
            return limits[i];
    return cur;
}

int tui_blocks(const struct tui *t)
{
    return ilp_blocks(t->cur->pb, t->set.k.blocks);
}

static double cap_max(const struct problem *pb)
{
    double m = 0;
    for (int p = 0; p < pb->P; p++)
        m = fmax(m, pb->cap[p]);
    return m;
}

/* Make `s` (owned from here) the setting, undoably: 1, or -1 when its
 * problem cannot be built (the message says why). */
static int setting_change(struct tui *t, struct tui_setting *s)
{
    bool same = setting_same_problem(t, s, &t->set);
    struct problem *npb = NULL;
    if (!same) {
        char err[SPEC_ERR_LEN];
        npb = problem_build(t->net, t->plat, s, err, sizeof err);
        if (!npb) {
            tui_message(t, MSG_ERROR, "%s", err);
            setting_free(s);
            return -1;
        }
    }
    undo_push(t, &t->set);
    setting_install(t, s, npb, same);
    return 1;
}

int tui_knob_step(struct tui *t, enum tui_knob knob, int dir)
{
    const struct problem *pb = t->cur->pb;
    struct tui_setting s;
    if (setting_copy(&s, &t->set) < 0) {
        tui_message(t, MSG_ERROR, "out of memory");
        return -1;
    }
    bool changed = false;
    switch (knob) {
    case KNOB_GPUS: {
        int P = pb->P + (dir > 0 ? 1 : -1);
        if (P >= 1 && P <= SPEC_MAX_GPUS) {
            s.k.gpus = P;
            changed = true;
        }
        break;
    }
    case KNOB_CAP: {
        /* from the largest cap, so a uniform cap never drops below a GPU's */
        uint64_t cur = (uint64_t)cap_max(pb);
        uint64_t next = cap_next(cur, dir);
        /* a cap must leave room above what a GPU reserves: below, the
         * smallest it takes is the one it has */
        double most = 0;
        for (int p = 0; p < pb->P; p++)
            most = fmax(most, pb->reserved[p]);
        if (dir < 0 && (double)next <= most)
            next = cur;
        bool uniform = s.ncap == 0;
        for (int p = 0; p < pb->P; p++)
            uniform = uniform && pb->cap[p] == (double)cur;
        if (next != cur || !uniform) {
            s.k.memory = next;
            free(s.cap);
            s.cap = NULL;
            s.ncap = 0;
            changed = true;
        }
        break;
    }
    case KNOB_GPU_CAP: {
        int g = t->gpu < pb->P ? t->gpu : pb->P - 1;
        uint64_t cur = (uint64_t)pb->cap[g];
        uint64_t next = cap_next(cur, dir);
        if (next != cur) {
            if (g >= s.ncap) {
                uint64_t *nc = realloc(s.cap, (size_t)(g + 1) * sizeof *nc);
                if (!nc)
                    break;
                for (int p = s.ncap; p <= g; p++)
                    nc[p] = 0;
                s.cap = nc;
                s.ncap = g + 1;
            }
            s.cap[g] = next;
            changed = true;
        }
        break;
    }
    case KNOB_MICRO_BATCHES: {
        long next = micro_batches_next(pb->m, dir);
        if (next != pb->m) {
            s.k.micro_batches = next;
            changed = true;
        }
        break;
    }
    case KNOB_SCHEDULE:
        s.k.schedule = pb->schedule == SPEC_SCHEDULE_1F1B ? SPEC_SCHEDULE_PIPEDREAM
                                                          : SPEC_SCHEDULE_1F1B;
        changed = true;
        break;
    case KNOB_LAYOUT:
        s.k.layout = pb->layout == LAYOUT_ANY ? LAYOUT_CONTIGUOUS : LAYOUT_ANY;
        changed = true;
        break;
    case KNOB_BLOCKS: {
        int cur = tui_blocks(t);
        int next = blocks_next(cur, pb->L, dir);
        if (next != cur) {
            s.k.blocks = next;
            changed = true;
        }
        break;
    }
    case KNOB_TIME_LIMIT: {
        double next = limit_next(s.time_limit, dir);
        if (next != s.time_limit) {
            s.time_limit = next;
            changed = true;
        }
        break;
    }
    }
    if (!changed) {
        setting_free(&s);
        return 0;
    }
    return setting_change(t, &s);
}

int tui_cap_set(struct tui *t, uint64_t cap)
{
    const struct problem *pb = t->cur->pb;
    bool uniform = t->set.ncap == 0;
    for (int p = 0; p < pb->P; p++)
        uniform = uniform && pb->cap[p] == (double)cap;
    if (uniform)
        return 0;
    struct tui_setting s;
    if (setting_copy(&s, &t->set) < 0) {
        tui_message(t, MSG_ERROR, "out of memory");
        return -1;
    }
    s.k.memory = cap;
    free(s.cap);
    s.cap = NULL;
    s.ncap = 0;
    return setting_change(t, &s);
}

int tui_undo(struct tui *t)
{
    if (t->nundo == 0) {
        tui_message(t, MSG_INFO, "nothing to undo");
        return 0;
    }
    struct tui_setting s = t->undo[--t->nundo];
    bool same = setting_same_problem(t, &s, &t->set);
    struct problem *npb = NULL;
    if (!same) {
        char err[SPEC_ERR_LEN];
        npb = problem_build(t->net, t->plat, &s, err, sizeof err);
        if (!npb) {
            /* the files changed under it (reload): that step cannot come back */
            tui_message(t, MSG_ERROR, "cannot undo: %s", err);
            setting_free(&s);
            return -1;
        }
    }
    setting_install(t, &s, npb, same);
    tui_message(t, MSG_INFO, "undone (%d more)", t->nundo);
    return 1;
}

/* The knobs that differ from the files, in words ("GPUs 8, cap 20.0 GiB"). */
static void overrides_text(const struct tui *t, char *buf, size_t len)
{
    const struct knobs *k = &t->set.k;
    size_t n = 0;
    buf[0] = '\0';
#define ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, \
                      "%s", n ? ", " : ""); if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
    if (k->gpus > 0)
        ADD("%s %d", problem_gpu_word(t->cur->pb, true), k->gpus);
    if (k->memory > 0)
        ADD("cap %.1f GiB", (double)k->memory / TUI_GIB);
    bool gcap = false;
    for (int p = 0; p < t->set.ncap; p++)
        gcap = gcap || t->set.cap[p] != 0;
    if (gcap)
        ADD("per-%s caps", problem_gpu_word(t->cur->pb, false));
    if (k->micro_batches > 0)
        ADD("micro-batches %ld", k->micro_batches);
    if (k->schedule >= 0)
        ADD("schedule %s", spec_schedule_name((enum spec_schedule)k->schedule));
    if (k->layout >= 0)
        ADD("layout %s", k->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any");
    if (k->weight_factor > 0)
        ADD("weight factor %g", k->weight_factor);
#undef ADD
}

/* The setting with the files' values: only the ILP's knobs stay. */
static int setting_files(const struct tui_setting *cur, struct tui_setting *s)
{
    memset(s, 0, sizeof *s);
    knobs_init(&s->k);
    s->k.blocks = cur->k.blocks;
    s->time_limit = cur->time_limit;
    return 0;
}

void tui_reload(struct tui *t, bool drop)
{
    const char *np = t->opt.network_path, *pp = t->opt.platform_path;
    char err[SPEC_ERR_LEN];
    char kept[256];
    overrides_text(t, kept, sizeof kept);
    struct spec_network *net = NULL;
    struct spec_platform *plat = NULL;
    if (np && !(net = spec_network_load(np, err, sizeof err))) {
        tui_message(t, MSG_ERROR, "%s (kept the last good files)", err);
        return;
    }
    if (pp && !(plat = spec_platform_load(pp, err, sizeof err))) {
        tui_message(t, MSG_ERROR, "%s (kept the last good files)", err);
        spec_network_free(net);
        return;
    }
    if (!np && !pp && !drop) {
        tui_message(t, MSG_INFO, "the built-in example has no file to reload%s",
                    kept[0] ? " (R: its own values)" : "");
        return;
    }
    struct tui_setting s;
    if (drop ? setting_files(&t->set, &s) : setting_copy(&s, &t->set)) {
        spec_network_free(net);
        spec_platform_free(plat);
        tui_message(t, MSG_ERROR, "out of memory");
        return;
    }
    struct problem *pb = problem_build(net ? net : t->net, plat ? plat : t->plat, &s,
                                       err, sizeof err);
    if (!pb) {
        tui_message(t, MSG_ERROR, "%s (kept the last good files)", err);
        spec_network_free(net);
        spec_platform_free(plat);
        setting_free(&s);
        return;
    }
    if (net) {
        spec_network_free(t->net);
        t->net = net;
    }
    if (plat) {
        spec_platform_free(t->plat);
        t->plat = plat;
    }
    if (net || plat)
        t->data_gen++;
    if (drop && kept[0])
        undo_push(t, &t->set);
    setting_install(t, &s, pb, false);
    if (t->layer >= pb->L)
        t->layer = pb->L - 1;
    char what[600];
    if (np || pp)
        snprintf(what, sizeof what, "reloaded %s%s%s", np ? np : "", np && pp ? " and " : "",
                 pp ? pp : "");
    else
        snprintf(what, sizeof what, "the built-in example");
    if (drop)
        tui_message(t, MSG_INFO, "%s; the files' values%s%s%s", what,
                    kept[0] ? " instead of " : "", kept, kept[0] ? " (u: back)" : "");
    else if (kept[0])
        tui_message(t, MSG_INFO, "%s; kept: %s (R: the files' values)", what, kept);
    else
        tui_message(t, MSG_INFO, "%s", what);
}

/* ---- rows ---- */

static void row_set_plan(struct tui *t, struct tui_row *r, struct plan *pl)
{
    plan_free(r->plan);
    tp_unref(r->tp);
    r->plan = pl;
    r->tp = pl ? tp_ref(t->cur) : NULL;
    r->stale = false;
}

static void row_clear(struct tui_row *r)
{
    plan_free(r->plan);
    tp_unref(r->tp);
    r->plan = NULL;
    r->tp = NULL;
}

static void row_reset(struct tui_row *r)
{
    r->stale = r->plan != NULL;
    r->done = false;
    r->started = false;
    r->status = PLAN_FEASIBLE;
    r->kept = false;
    r->bound = NAN;
    r->block_bound = NAN;
    r->blocks = 0;
    r->seconds = 0;
    r->message[0] = '\0';
}

static void row_copy(struct tui_row *dst, const struct tui_row *src)
{
    row_clear(dst);
    struct plan *pl = src->plan ? plan_copy(src->plan) : NULL;
    *dst = *src;
    dst->plan = pl;
    dst->tp = pl ? tp_ref(src->tp) : NULL;
}

/* What the views show now becomes the plan held while the new knobs are
 * planned (unless one is still held: nothing settled since). */
static void hold_take(struct tui *t)
{
    if (t->hold.plan && !tui_settled(t))
        return;
    bool updating;
    const struct tui_row *r = tui_view_row(t, &updating);
    if (r == &t->hold)
        return;
    if (r->plan && r->tp)
        row_copy(&t->hold, r);
    else
        row_clear(&t->hold);
    t->hold.stale = true;
}

bool tui_settled(const struct tui *t)
{
    for (int i = 0; i < t->nrows; i++)
        if (i != t->ilp && planner_has_memory_rule(t->rows[i].planner) && !t->rows[i].done)
            return false;
    return true;
}

void tui_rows_begin(struct tui *t, bool all)
{
    if (all) {
        hold_take(t);
        t->min_cap = NAN;
        t->min_cap_within = 0;
        t->min_cap_planner = NULL;
    }
    for (int i = 0; i < t->nrows; i++)
        if (all || i == t->ilp)
            row_reset(&t->rows[i]);
    /* an ILP plan from an older problem says nothing about this one */
    row_clear(&t->rows[t->ilp]);
    t->rows[t->ilp].stale = false;
    /* your plan is judged in the worker, with the baselines */
    if (!all)
        t->ilp_t0 = tui_now();
}

/* ---- your plan ---- */

void tui_user_request(const struct tui *t, struct worker_request *req)
{
    req->user_split = t->user_split;
    req->user_gpu = t->user_gpu;
    req->user_start = t->user_start;
    req->user_T = t->user_T;
    req->user_L = t->user_L;
    req->user_source = t->user_source;
}

static void user_row(struct tui *t)
{
    if (t->user >= 0 || t->nrows >= TUI_MAX_ROWS)
        return;
    t->user = t->nrows++;
    struct tui_row *r = &t->rows[t->user];
    memset(r, 0, sizeof *r);
    r->planner = planner_given();
    r->bound = r->block_bound = NAN;
}

/* Your split or plan changed, not the problem: it alone is judged again,
 * in the worker (its schedule builder can take most of a second); the
 * baselines keep their plans, the ILP goes on from its own, and the plan
 * on show stays, marked updating, until it is in. */
static void user_pending(struct tui *t)
{
    user_row(t);
    if (t->user < 0)
        return;
    hold_take(t);
    row_clear(&t->rows[t->user]);
    row_reset(&t->rows[t->user]);
    if (t->replan < REPLAN_ILP)
        t->replan = REPLAN_ILP;
    t->dirty = true;
}

static void user_forget(struct tui *t)
{
    free(t->user_split);
    free(t->user_gpu);
    free(t->user_start);
    t->user_split = NULL;
    t->user_gpu = NULL;
    t->user_start = NULL;
    t->user_L = 0;
}

int tui_user_split(struct tui *t, const char *spec, char *err, size_t errlen)
{
    const struct problem *pb = t->cur->pb;
    int *gpu = malloc((size_t)pb->L * sizeof *gpu);
    char why[SPEC_ERR_LEN];
    if (!gpu || split_parse(spec, pb, gpu, why, sizeof why) < 0) {
        explorer_words(why);
        /* the reason first, the split cut short: a typed split of a
         * thousand characters would push the reason off the status lines */
        snprintf(err, errlen, "bad split: %s ('%.40s%s')", gpu ? why : "out of memory", spec,
                 strlen(spec) > 40 ? "..." : "");
        free(gpu);
        return -1;
    }
    free(gpu);
    char *copy = strdup(spec);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    user_forget(t);
    t->user_split = copy;
    snprintf(t->user_source, sizeof t->user_source, "--split %s", spec);
    user_pending(t);
    return 0;
}

int tui_user_load(struct tui *t, const char *path, char *note, size_t notelen, char *err,
                  size_t errlen)
{
    const struct problem *pb = t->cur->pb;
    struct plan *pl = planfile_load(path, pb, note, notelen, err, errlen);
    if (!pl) {
        explorer_words(err);
        return -1;
    }
    int *gpu = malloc((size_t)pl->L * sizeof *gpu);
    double *start = malloc(2 * (size_t)pl->L * sizeof *start);
    if (!gpu || !start) {
        free(gpu);
        free(start);
        plan_free(pl);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(gpu, pl->gpu, (size_t)pl->L * sizeof *gpu);
    memcpy(start, pl->start, 2 * (size_t)pl->L * sizeof *start);
    user_forget(t);
    t->user_gpu = gpu;
    t->user_start = start;
    t->user_T = pl->T;
    t->user_L = pl->L;
    plan_free(pl);
    snprintf(t->user_source, sizeof t->user_source, "plan file %s", path);
    snprintf(t->last_plan, sizeof t->last_plan, "%s", path);
    user_pending(t);
    return 0;
}

/* Whether a row other than the ILP's (and yours, unless `yours`) is
 * still to come. */
static bool rows_owed(const struct tui *t, bool yours)
{
    for (int i = 0; i < t->nrows; i++)
        if (i != t->ilp && (yours || i != t->user) && !t->rows[i].done)
            return true;
    return false;
}

bool tui_baselines_owed(const struct tui *t)
{
    return rows_owed(t, false);
}

bool tui_baselines_done(const struct tui *t)
{
    return !rows_owed(t, true);
}

static int row_index(const struct tui *t, const char *planner)
{
    for (int i = 0; i < t->nrows; i++)
        if (strcmp(t->rows[i].planner, planner) == 0)
            return i;
    return -1;
}

const char *tui_row_title(const struct tui_row *r)
{
    return planner_is_solver(r->planner) ? "ILP" : planner_title(r->planner);
}

/* Every plan shown passes the independent simulator first. */
static bool plan_accept(const struct problem *pb, struct plan *pl, char *why, size_t len)
{
    double ops = 2.0 * pb->L * fmax((double)pb->m, 3.0 * pb->P);
    if (ops > SIM_BUDGET)
        return true;
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) == SIM_OK)
        return true;
    snprintf(why, len, "rejected by the simulator: %s", rep.reason);
    return false;
}

static void follow_settle(struct tui *t)
{
    int b = tui_best_row(t);
    if (b >= 0)
        t->follow = t->rows[b].planner;
}

/* as planner_result_usable() */
static bool row_usable(const struct tui_row *r)
{
    return r->plan && (r->status != PLAN_ERROR || r->kept);
}

/* Whether a baseline's plan (not yours) fits: the worker's test for the
 * search of the least cap (worker.c) */
static bool baseline_fits(const struct tui *t)
{
    for (int i = 0; i < t->nrows; i++)
        if (i != t->ilp && i != t->user && t->rows[i].plan && t->rows[i].status != PLAN_ERROR &&
            t->rows[i].plan->fits)
            return true;
    return false;
}

void tui_event_apply(struct tui *t, struct worker_event *ev)
{
    t->dirty = true;
    if (ev->kind == WORKER_DONE) {
        struct tui_row *ilp = &t->rows[t->ilp];
        ilp->started = false;
        return;
    }
    if (ev->kind == WORKER_MIN_CAP) {
        t->min_cap = ev->bound;
        t->min_cap_within = ev->within;
        int k = row_index(t, ev->planner);
        t->min_cap_planner = k >= 0 ? t->rows[k].planner : NULL;
        tui_trace(t, "mincap %.17g", ev->bound);
        /* the search for it is over: the ILP starts now */
        struct tui_row *ilp = &t->rows[t->ilp];
        if (t->cap_owed && !ilp->done && !ilp->started) {
            ilp->started = true;
            t->ilp_t0 = tui_now();
        }
        t->cap_owed = false;
        return;
    }
    int i = row_index(t, ev->planner);
    if (i < 0) {
        /* the worker died: whatever was still coming will not */
        for (int k = 0; k < t->nrows; k++) {
            struct tui_row *r = &t->rows[k];
            if (r->done)
                continue;
            row_clear(r);
            r->done = true;
            r->started = false;
            r->stale = false;
            r->status = PLAN_ERROR;
            snprintf(r->message, sizeof r->message, "%s", ev->message);
        }
        follow_settle(t);
        return;
    }
    struct tui_row *r = &t->rows[i];
    const struct problem *pb = t->cur->pb;
    if (ev->kind == WORKER_PROGRESS) {
        if (!r->started)
            t->ilp_t0 = tui_now() - ev->seconds;
        r->started = true;
        t->cap_owed = false;
        if (ev->plan && plan_accept(pb, ev->plan, r->message, sizeof r->message)) {
            row_set_plan(t, r, ev->plan);
            ev->plan = NULL;
        }
        bound_raise(&r->bound, ev->bound);
        bound_raise(&r->block_bound, ev->block_bound);
        if (ev->blocks > 0)
            r->blocks = ev->blocks;
        r->seconds = ev->seconds;
        if (i == t->ilp)
            tui_cache_store(t);
        follow_settle(t);
        return;
    }
    r->done = true;
    r->started = false;
    r->status = ev->status;
    r->kept = false;
    r->believed_fit = ev->believed_fit;
    r->bound = ev->bound;
    r->block_bound = ev->block_bound;
    if (ev->blocks > 0)
        r->blocks = ev->blocks;
    r->seconds = ev->seconds;
    snprintf(r->message, sizeof r->message, "%s", ev->message);
    explorer_words(r->message);    /* your split, read again for new knobs */
    if (ev->plan) {
        if (plan_accept(pb, ev->plan, r->message, sizeof r->message)) {
            row_set_plan(t, r, ev->plan);
            ev->plan = NULL;
            /* a solver failure that came with its best plan before it */
            r->kept = r->status == PLAN_ERROR;
        } else {
            row_clear(r);
            r->status = PLAN_ERROR;
        }
    } else if (i == t->ilp && r->status == PLAN_ERROR && r->plan && !r->stale) {
        /* failed or died after it found plans: the last good one stays,
         * a plan like any other (the simulator accepted it) */
        r->kept = true;
        snprintf(r->message, sizeof r->message, "%.280s; kept its best plan before that",
                 ev->message);
    } else if (i != t->ilp || r->status == PLAN_ERROR || r->status == PLAN_INFEASIBLE) {
        row_clear(r);
    }
    if (r->status == PLAN_ERROR)
        tui_message(t, MSG_ERROR, "%s: %s", planner_title(r->planner), r->message);
    else if (i == t->ilp && r->message[0] && t->msg_kind == MSG_NONE)
        /* a word on the result (why no plan is the best, a bound that
         * stayed, what is proven for the blocks only), unless the answer
         * to a key is on show: that stays until the next key */
        tui_message(t, MSG_INFO, "%s: %s", planner_title(r->planner), r->message);
    r->stale = false;
    if (i == t->ilp && r->status != PLAN_ERROR)
        tui_cache_store(t);
    if (i != t->ilp && tui_baselines_done(t)) {
        /* the baselines are in: the ILP starts now, or when nothing of
         * theirs fits, once the least cap that fits is found */
        t->cap_owed = t->cap_owed && !baseline_fits(t);
        t->rows[t->ilp].started = !t->rows[t->ilp].done && !t->cap_owed;
        t->ilp_t0 = tui_now();
    }

    if (tui_baselines_done(t))
        follow_settle(t);
}


/* planner_result_compare's order: fitting first, then objective, else the
 * smaller peak. */
static int row_compare(const struct tui_row *a, const struct tui_row *b)
{
    if (a->plan->fits != b->plan->fits)
        return a->plan->fits ? -1 : 1;
    double x = a->plan->fits ? a->plan->objective : a->plan->peak_memory;
    double y = b->plan->fits ? b->plan->objective : b->plan->peak_memory;
    return (x > y) - (x < y);
}

int tui_best_row(const struct tui *t)
{
    bool any_fresh = false;
    for (int i = 0; i < t->nrows; i++)
        any_fresh = any_fresh || (row_usable(&t->rows[i]) && !t->rows[i].stale);
    int best = -1;
    for (int i = 0; i < t->nrows; i++) {
        const struct tui_row *r = &t->rows[i];
        if (!row_usable(r) || (any_fresh && r->stale))
            continue;
        if (best < 0 || row_compare(r, &t->rows[best]) < 0)
            best = i;
    }
    return best;
}

/* The solver's plan for these knobs, from the cache, fits while the
 * baselines are still to come: it is what the screen will settle on (no
 * baseline beats it), so it is on show rather than the plan held from the
 * knobs before (one GPU's, under "GPUs 4"). */
static bool ilp_cached_on_show(const struct tui *t)
{
    const struct tui_row *ilp = t->ilp >= 0 ? &t->rows[t->ilp] : NULL;
    return ilp && row_usable(ilp) && !ilp->stale && ilp->plan->fits && ilp->tp == t->cur &&
           tui_best_row(t) == t->ilp;
}

/* The plan held is on show (tui_view_row). */
static bool hold_on_show(const struct tui *t)
{
    return t->sel < 0 && !tui_settled(t) && t->hold.plan && !ilp_cached_on_show(t);
}

int tui_shown_row(const struct tui *t)
{
    if (t->sel >= 0 && t->sel < t->nrows)
        return t->sel;
    /* the plan held on show: the marker on its planner's row (it was on
     * another row, while the strip and panels showed the held plan) */
    if (hold_on_show(t)) {
        int h = row_index(t, t->hold.planner);
        if (h >= 0)
            return h;
    }
    /* while the baselines come in, stay on the plan that was best, so the
     * views do not jump from row to row; not on its plan for the settings
     * before, once the hold is over (it would be shown as this setting's) */
    int b = tui_best_row(t);
    if (t->follow && !tui_baselines_done(t)) {
        int i = row_index(t, t->follow);
        /* ...but never a plan that does not fit over one that does (the
         * row followed may be the best of a cap where nothing fitted,
         * while the ILP's plan for this one came from the cache) */
        if (i >= 0 && row_usable(&t->rows[i]) && !t->rows[i].stale &&
            (t->rows[i].plan->fits || !t->rows[b].plan->fits))
            return i;
    }
    return b >= 0 ? b : 0;
}

const struct tui_row *tui_view_row(const struct tui *t, bool *updating)
{
    *updating = false;
    if (hold_on_show(t)) {
        *updating = true;
        return &t->hold;
    }
    /* your split selected while it is judged: what was on show before */
    if (t->sel >= 0 && t->sel == t->user && !t->rows[t->user].done && t->hold.plan) {
        *updating = true;
        return &t->hold;
    }
    return &t->rows[tui_shown_row(t)];
}

double tui_objective_bound(const struct tui *t, bool *ilp)
{
    const struct problem *pb = t->cur->pb;
    double bound = problem_objective_bound(pb);
    *ilp = false;
    const struct tui_row *r = &t->rows[t->ilp];
    /* the solver's bound holds for the network (its block bound does not) */
    if (isfinite(r->bound) && r->bound > bound) {
        bound = r->bound;
        *ilp = true;
    }
    return bound;
}

double tui_row_gap(const struct tui *t, const struct plan *pl)
{
    bool ilp;
    struct planner_result res;
    memset(&res, 0, sizeof res);
    res.plan = (struct plan *)pl;
    res.bound = tui_objective_bound(t, &ilp);
    return planner_gap(&res);
}

/* ---- the solver's results per setting ---- */

static void cache_entry_free(struct tui_cache_entry *e)
{
    if (!e)
        return;
    setting_free(&e->set);
    plan_free(e->plan);
    tp_unref(e->tp);
    free(e);
}

static int cache_index(const struct tui *t)
{
    int blocks = tui_blocks(t);
    for (int i = t->ncache - 1; i >= 0; i--) {
        const struct tui_cache_entry *e = t->cache[i];
        if (e->data_gen == t->data_gen && e->blocks == blocks &&
            setting_same_problem(t, &e->set, &t->set))
            return i;
    }
    return -1;
}

double tui_cache_net_bound(const struct tui *t)
{
    double best = NAN;
    for (int i = 0; i < t->ncache; i++) {
        const struct tui_cache_entry *e = t->cache[i];
        if (e->data_gen == t->data_gen && isfinite(e->bound) &&
            setting_same_problem(t, &e->set, &t->set) && !(e->bound <= best))
            best = e->bound;
    }
    return best;
}

const struct tui_cache_entry *tui_cache_find(const struct tui *t)
{
    int i = cache_index(t);
    return i >= 0 ? t->cache[i] : NULL;
}

static bool status_proven(enum plan_status s)
{
    return s == PLAN_OPTIMAL || s == PLAN_BLOCK_OPTIMAL || s == PLAN_INFEASIBLE;
}

void tui_cache_store(struct tui *t)
{
    const struct tui_row *r = &t->rows[t->ilp];
    int i = cache_index(t);
    struct tui_cache_entry *e;
    if (i >= 0) {
        e = t->cache[i];
        memmove(&t->cache[i], &t->cache[i + 1], (size_t)(t->ncache - i - 1) * sizeof e);
        t->ncache--;
    } else {
        e = calloc(1, sizeof *e);
        if (!e || setting_copy(&e->set, &t->set) < 0) {
            free(e);
            return;
        }
        e->data_gen = t->data_gen;
        e->blocks = tui_blocks(t);
        e->limit = t->set.time_limit;
        e->status = PLAN_RUNNING;
        e->bound = e->block_bound = NAN;
        if (t->ncache == TUI_CACHE_MAX) {
            cache_entry_free(t->cache[0]);
            memmove(&t->cache[0], &t->cache[1], (TUI_CACHE_MAX - 1) * sizeof e);
            t->ncache--;
        }
    }
    t->cache[t->ncache++] = e;
    /* never worse than what was known: a better plan, larger bounds */
    if (r->plan && r->tp && (!e->plan || (r->plan->fits && !e->plan->fits) ||
                             (r->plan->fits == e->plan->fits &&
                              r->plan->objective < e->plan->objective))) {
        struct plan *pl = plan_copy(r->plan);
        if (pl) {
            plan_free(e->plan);
            tp_unref(e->tp);
            e->plan = pl;
            e->tp = tp_ref(r->tp);
        }
    }
    bound_raise(&e->bound, r->bound);
    bound_raise(&e->block_bound, r->block_bound);
    if (r->blocks > 0)
        e->nblocks = r->blocks;
    if (r->done && !status_proven(e->status))
        e->status = r->status == PLAN_ERROR ? PLAN_RUNNING : r->status;
    if (r->done && r->status != PLAN_ERROR)
        e->limit = fmax(e->limit, t->set.time_limit);
    e->seconds = r->seconds;
}

void tui_row_from_cache(struct tui *t, const struct tui_cache_entry *e)
{
    struct tui_row *r = &t->rows[t->ilp];
    struct plan *pl = e->plan ? plan_copy(e->plan) : NULL;
    if (pl)
        plan_evaluate(pl, t->cur->pb);
    row_set_plan(t, r, pl);
    r->bound = e->bound;
    r->block_bound = e->block_bound;
    r->blocks = e->nblocks;
    r->seconds = e->seconds;
    r->believed_fit = pl ? pl->fits : false;
    /* optimal for the blocks only: a longer limit (T) may still find a
     * better plan or bound for the network, past the blocks */
    r->done = status_proven(e->status) &&
              !(e->status == PLAN_BLOCK_OPTIMAL && t->opt.work_limit <= 0 &&
                t->set.time_limit > e->limit);
    r->status = r->done ? e->status : PLAN_FEASIBLE;
    r->kept = false;
    r->started = false;
    r->stale = false;
    if (r->done)
        snprintf(r->message, sizeof r->message, "proven before for these knobs");
}

static void cache_free(struct tui *t)
{
    for (int i = 0; i < t->ncache; i++)
        cache_entry_free(t->cache[i]);
    t->ncache = 0;
}

/* ---- export ---- */

void tui_path_expand(const char *in, char *out, size_t outlen)
{
    const char *home = getenv("HOME");
    if (in[0] == '~' && (in[1] == '/' || in[1] == '\0') && home && *home)
        snprintf(out, outlen, "%s%s", home, in + 1);
    else
        snprintf(out, outlen, "%s", in);
}

int tui_export_begin(struct tui *t)
{
    int i = tui_shown_row(t);
    const struct tui_row *r = &t->rows[i];
    if (!r->plan) {
        tui_message(t, MSG_ERROR, "no plan on screen to export");
        return -1;
    }
    bool updating;
    tui_view_row(t, &updating);
    if (r->stale || updating || r->tp != t->cur) {
        /* its figures belong to the knobs before the last change (a key
         * right after a knob's comes before the re-plan starts) */
        tui_message(t, MSG_INFO, "the %s plan is being computed for the new knobs; "
                    "export it in a moment", planner_title(r->planner));
        return -1;
    }
    tui_export_end(t);
    t->export_pb = problem_copy(r->tp->pb);
    t->export_res.plan = plan_copy(r->plan);
    if (!t->export_pb || !t->export_res.plan) {
        tui_export_end(t);
        tui_message(t, MSG_ERROR, "out of memory");
        return -1;
    }
    bool solver = i == t->ilp;
    bool running = solver && !r->done;
    t->export_res.planner = r->planner;
    t->export_res.status = running ? PLAN_RUNNING : r->status;   /* an incumbent, not a proof */
    t->export_res.believed_fit = solver ? r->plan->fits : r->believed_fit;
    /* the network's bound, the one the table's gap uses */
    bool ilp_bound;
    t->export_res.bound = tui_objective_bound(t, &ilp_bound);
    t->export_res.block_bound = solver ? r->block_bound : NAN;
    t->export_res.seconds = running ? (r->started ? tui_now() - t->ilp_t0 : 0.0) : r->seconds;
    snprintf(t->export_res.message, sizeof t->export_res.message, "%s", r->message);
    if (running)
        snprintf(t->export_res.message, sizeof t->export_res.message,
                 "exported while the solver was running: best plan so far");
    t->export_blocks = solver && r->blocks > 0 ? r->blocks : t->export_pb->L;
    t->export_res.blocks = solver ? r->blocks : 0;
    t->export_fmt = NULL;
    return 0;
}

static void export_input(struct tui *t, struct report *rep, struct export_input *in)
{
    *rep = (struct report){
        .pb = t->export_pb, .blocks = t->export_blocks, .results = &t->export_res,
        .nresults = 1, .min_cap = NAN, .min_cap_planner = NULL,
    };
    *in = (struct export_input){ .rep = rep, .res = &t->export_res,
                                 .tensor_parallel = t->net->tensor_parallel };
}

int tui_export_format(struct tui *t, const struct export_format *f)
{
    struct report rep;
    struct export_input in;
    export_input(t, &rep, &in);
    char err[SPEC_ERR_LEN];
    if (f->check && f->check(&in, err, sizeof err) < 0) {
        tui_message(t, MSG_ERROR, "cannot write plan %s as %s: %s",
                    planner_title(t->export_res.planner), f->name, err);
        return -1;
    }
    t->export_fmt = f;
    /* a file name that says what it holds */
    char name[96];
    size_t n = 0;
    for (const char *p = t->export_pb->network; *p && n < 48; p++)
        name[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ? *p : '_');
    name[n] = '\0';
    /* the format named where its extension is another's too (csv and
     * torch-schedule, deepspeed and torch) */
    bool named = strcmp(f->name, f->ext) != 0;
    t->input_cut = false;
    /* a tensor-parallel network's "GPU" is a pipeline rank of tp GPUs */
    t->input_len = (size_t)snprintf(t->input, sizeof t->input, "%s-%d%s-%s%s%s.%s",
                                    n ? name : "plan", t->export_pb->P,
                                    t->export_pb->tp > 1 ? "rank" : "gpu",
                                    t->export_res.planner, named ? "-" : "",
                                    named ? f->name : "", f->ext);
    return 0;
}

const char *tui_path_short(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    if (n <= TUI_PATH_SHOWN || len < TUI_PATH_SHOWN + 4)
        return path;
    /* the start and the end, which names the file; cut at characters */
    size_t head = 16, tail = TUI_PATH_SHOWN - 16 - 3;
    while (head > 0 && ((unsigned char)path[head] & 0xc0) == 0x80)
        head--;
    size_t from = n - tail;
    while (from < n && ((unsigned char)path[from] & 0xc0) == 0x80)
        from++;
    snprintf(buf, len, "%.*s...%s", (int)head, path, path + from);
    return buf;
}

int tui_export_write(struct tui *t, const char *path, bool force)
{
    struct report rep;
    struct export_input in;
    export_input(t, &rep, &in);
    const struct export_format *f = t->export_fmt ? t->export_fmt : export_find("json");
    char err[SPEC_ERR_LEN + 64];
    char shown[TUI_PATH_SHOWN + 8];
    const char *sp = tui_path_short(path, shown, sizeof shown);
    if (export_file(path, force, f, &in, err, sizeof err) < 0) {
        /* the reason after a long path, not pushed off the line by it */
        size_t n = strlen(path);
        if (sp != path && strncmp(err, path, n) == 0)
            tui_message(t, MSG_ERROR, "%s%s", sp, err + n);
        else
            tui_message(t, MSG_ERROR, "%s", err);
        return -1;
    }
    tui_message(t, MSG_INFO, "exported the plan (%s) as %s to %s",
                planner_title(t->export_res.planner), f->name, sp);
    return 0;
}

void tui_export_end(struct tui *t)
{
    plan_free(t->export_res.plan);
    problem_free(t->export_pb);
    memset(&t->export_res, 0, sizeof t->export_res);
    t->export_pb = NULL;
    t->export_fmt = NULL;
}

/* ---- life cycle ---- */

int tui_state_init(struct tui *t, const struct tui_options *opt, struct spec_network *net,
                   struct spec_platform *plat, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->opt = *opt;
    t->net = net;
    t->plat = plat;
    t->set.k = opt->knobs;
    t->set.time_limit = opt->time_limit > 0 ? opt->time_limit : TUI_TIME_LIMIT;
    t->sel = -1;
    t->exit_status = 0;
    t->min_cap = NAN;
    t->hold.bound = t->hold.block_bound = NAN;
    /* the table's rows: the registry's planners, in its order */
    t->ilp = -1;
    t->user = -1;
    for (int i = 0; i < planner_count() && t->nrows < TUI_MAX_ROWS; i++) {
        struct tui_row *r = &t->rows[t->nrows];
        r->planner = planner_name(i);
        r->bound = r->block_bound = NAN;
        if (planner_is_solver(r->planner) && t->ilp < 0)
            t->ilp = t->nrows;
        t->nrows++;
    }
    if (t->ilp < 0) {
        snprintf(err, errlen, "no solver among the planners");
        return -1;
    }
    struct problem *pb = problem_build(net, plat, &t->set, err, errlen);
    if (!pb)
        return -1;
    t->cur = tp_new(pb);
    if (!t->cur) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (opt->split && tui_user_split(t, opt->split, err, errlen) < 0)
        return -1;
    char note[512];
    if (opt->plan_path && tui_user_load(t, opt->plan_path, note, sizeof note, err, errlen) < 0)
        return -1;
    if (opt->plan_path && note[0])
        tui_message(t, MSG_INFO, "%s", note);
    t->replan = REPLAN_ALL;
    t->dirty = true;
    return 0;
}

void tui_state_free(struct tui *t)
{
    for (int i = 0; i < t->nrows; i++)
        row_clear(&t->rows[i]);
    row_clear(&t->hold);
    cache_free(t);
    for (int i = 0; i < t->nundo; i++)
        setting_free(&t->undo[i]);
    t->nundo = 0;
    setting_free(&t->set);
    tui_export_end(t);
    user_forget(t);
    tui_frontier_stop(t);
    tp_unref(t->cur);
    t->cur = NULL;
    spec_network_free(t->net);
    spec_platform_free(t->plat);
    t->net = NULL;
    t->plat = NULL;
}

/* ---- the frontier view ---- */

/* The ILP's seconds per cap (a work limit, when given, decides instead). */
#define FR_ILP_SECONDS 2.0
/* "No cap": the baselines' own plans, for their peaks (1 PiB). */
#define FR_NO_CAP 1125899906842624.0

void tui_frontier_stop(struct tui *t)
{
    struct tui_frontier *f = &t->front;
    worker_free(f->worker);
    f->worker = NULL;
    problem_free(f->pb);
    f->pb = NULL;
    plan_free(f->warm);
    f->warm = NULL;
    tp_unref(f->for_pb);
    f->for_pb = NULL;
    f->phase = FR_OFF;
}

void tui_frontier_open(struct tui *t, int nmax)
{
    tui_frontier_stop(t);
    struct tui_frontier *f = &t->front;
    const char *names[TUI_MAX_ROWS];
    int n = 0;
    for (int i = 0; i < t->nrows; i++)
        if (i != t->user)
            names[n++] = t->rows[i].planner;
    frontier_init(&f->fr, NULL, 0, names, n);
    f->phase = FR_MIN_CAP;
    f->for_pb = tp_ref(t->cur);
    f->blocks = t->set.k.blocks;
    f->time_limit = t->set.time_limit;
    f->nmax = nmax;
    f->fit_cap = NAN;
    f->all_cap = NAN;           /* no peak heard yet (0 is one) */
    f->next = 0;
    f->busy = -1;
    f->cursor = 0;
    f->why[0] = f->err[0] = '\0';
    t->dirty = true;
}

bool tui_frontier_current(struct tui *t)
{
    struct tui_frontier *f = &t->front;
    if (f->phase == FR_OFF || !f->for_pb)
        return false;
    if (f->for_pb == t->cur)
        return true;
    if (f->blocks != t->set.k.blocks || f->time_limit != t->set.time_limit ||
        !problem_same_but_caps(f->for_pb->pb, t->cur->pb))
        return false;
    tp_unref(f->for_pb);
    f->for_pb = tp_ref(t->cur);
    return true;
}

/* The view's own reason first; a planner's error heard on the way (one
 * baseline the simulator refused) only as what went with it. */
static void frontier_fail(struct tui_frontier *f, const char *why)
{
    f->phase = FR_FAILED;
    if (f->err[0])
        snprintf(f->why, sizeof f->why, "%s (%s)", why, f->err);
    else
        snprintf(f->why, sizeof f->why, "%s", why);
}

/* The problem of the view with every GPU's cap at `cap`. */
static struct problem *frontier_problem(const struct tui *t, double cap)
{
    struct problem *pb = problem_copy(t->cur->pb);
    if (pb)
        for (int p = 0; p < pb->P; p++)
            pb->cap[p] = cap;
    return pb;
}

bool tui_frontier_request(struct tui *t, struct worker_request *req, const char **names)
{
    struct tui_frontier *f = &t->front;
    int n = 0;
    double cap = 0;
    memset(req, 0, sizeof *req);
    req->known_bound = NAN;
    req->threads = t->opt.threads > 0 ? t->opt.threads : 1;
    req->blocks = t->set.k.blocks;
    f->busy = -1;
    switch (f->phase) {
    case FR_MIN_CAP:
        if (f->next == 0) {
            /* one baseline under a cap nothing meets: the worker then
             * looks for the smallest cap at which a plan fits */
            for (int i = 0; i < t->nrows && n == 0; i++)
                if (i != t->ilp && i != t->user)
                    names[n++] = t->rows[i].planner;
            req->min_cap = true;
            /* the search for it keeps to the explorer's limits */
            req->work_limit = t->opt.work_limit;
            req->time_limit = t->set.time_limit;
            cap = 1;
            break;
        }
        if (!(f->fit_cap >= 0)) {
            frontier_fail(f, "no plan fits at any cap");
            return false;
        }
        /* a network that needs no memory at all starts at one step */
        f->fit_cap = fmax(f->fit_cap, 1);
        f->phase = FR_PEAKS;
        f->next = 0;
        /* fall through */
    case FR_PEAKS:
        if (f->next == 0) {
            cap = FR_NO_CAP;
            break;
        }
        {
            double caps[FRONTIER_MAX_CAPS];
            const char *pl[FRONTIER_MAX_PLANNERS];
            /* a network that needs no memory peaks at 0; no peak at
             * all (NAN) stays none */
            double all = isnan(f->all_cap) ? f->all_cap : fmax(f->all_cap, f->fit_cap);
            int nc = frontier_caps(f->fit_cap, all, f->nmax, caps);
            if (nc < 0) {
                frontier_fail(f, "the baselines gave no peak memory");
                return false;
            }
            memcpy(pl, f->fr.planner, sizeof pl);
            frontier_init(&f->fr, caps, nc, pl, f->fr.nplanner);
            double cur = 0;
            for (int p = 0; p < t->cur->pb->P; p++)
                cur = fmax(cur, t->cur->pb->cap[p]);
            f->cursor = frontier_nearest(&f->fr, cur);
        }
        f->phase = FR_BASELINES;
        f->next = 0;
        /* fall through */
    case FR_BASELINES:
        if (f->next < f->fr.ncap) {
            cap = f->fr.cap[f->next];
            break;
        }
        f->phase = FR_ILP;
        f->next = 0;
        /* fall through */
    case FR_ILP:
        if (t->ilp >= 0 && f->next < f->fr.ncap) {
            cap = f->fr.cap[f->next];
            names[n++] = t->rows[t->ilp].planner;
            /* a plan that fits a smaller cap fits this one */
            req->warm = f->warm;
            req->work_limit = t->opt.work_limit;
            req->time_limit = t->opt.work_limit > 0 || t->set.time_limit < FR_ILP_SECONDS
                                  ? t->set.time_limit : FR_ILP_SECONDS;
            break;
        }
        f->phase = FR_DONE;
        return false;
    default:
        return false;
    }
    if (f->phase == FR_PEAKS || f->phase == FR_BASELINES)
        for (int i = 0; i < t->nrows; i++)
            if (i != t->ilp && i != t->user)
                names[n++] = t->rows[i].planner;
    if (f->phase == FR_BASELINES || f->phase == FR_ILP)
        f->busy = f->next;
    f->next++;
    problem_free(f->pb);
    f->pb = frontier_problem(t, cap);
    if (!f->pb) {
        frontier_fail(f, "out of memory");
        return false;
    }
    req->pb = f->pb;
    req->planners = names;
    req->nplanners = n;
    return true;
}

void tui_frontier_event(struct tui *t, struct worker_event *ev)
{
    struct tui_frontier *f = &t->front;
    if (ev->kind == WORKER_MIN_CAP && f->phase == FR_MIN_CAP) {
        /* the range starts below the least cap that could fit */
        f->fit_cap = ev->bound - ev->within;
        return;
    }
    if (ev->kind != WORKER_RESULT)
        return;
    if (ev->status == PLAN_ERROR && !f->err[0])
        snprintf(f->err, sizeof f->err, "%s: %.200s", planner_title(ev->planner), ev->message);
    if (f->phase == FR_MIN_CAP) {
        /* a plan within the 1-byte cap asked (a network that needs no
         * memory): no search for the least cap follows, and nothing
         * fitting was "no plan fits at any cap" */
        if (ev->plan && ev->status != PLAN_ERROR && ev->plan->fits)
            f->fit_cap = 0;
        return;
    }
    if (f->phase == FR_PEAKS) {
        if (ev->plan)           /* fmax: the first is taken over NAN */
            f->all_cap = fmax(f->all_cap, ev->plan->peak_memory);
        return;
    }
    if (f->busy < 0)
        return;
    int i = frontier_planner(&f->fr, ev->planner);
    if (i < 0)
        return;
    frontier_set(&f->fr, i, f->busy, ev->status, ev->plan);
    if (f->phase == FR_ILP && ev->plan && ev->plan->fits) {
        plan_free(f->warm);
        f->warm = ev->plan;
        ev->plan = NULL;
    }
    t->dirty = true;
}

void tui_frontier_pause(struct tui *t)
{
    struct tui_frontier *f = &t->front;
    if (!f->worker)
        return;
    worker_free(f->worker);
    f->worker = NULL;
    /* the request cut short is asked again */
    if (f->phase == FR_MIN_CAP || f->phase == FR_PEAKS)
        f->next = 0;
    else if (f->busy >= 0)
        f->next = f->busy;
    f->busy = -1;
}

void tui_frontier_resume(struct tui *t, int nmax)
{
    struct tui_frontier *f = &t->front;
    if (f->phase == FR_FAILED || !tui_frontier_current(t)) {
        tui_frontier_open(t, nmax);
        return;
    }
    double cur = 0;
    for (int p = 0; p < t->cur->pb->P; p++)
        cur = fmax(cur, t->cur->pb->cap[p]);
    if (f->fr.ncap > 0)
        f->cursor = frontier_nearest(&f->fr, cur);
    t->dirty = true;
}
