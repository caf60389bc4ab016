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

#include "fileio.h"
#include "ilp.h"
#include "report.h"
#include "simulate.h"

/* Replays longer than this (micro-batches x operations, about 5 ms) are
 * not re-checked on the UI's thread: a check must not stall the screen. */
#define SIM_BUDGET 20000.0

/* Display order of the table: the ILP first, then the registry's order. */
static const char *const row_planners[TUI_NROWS] = {
    "ilp", "dp", "pipedream", "time", "parameters", "uniform"
};

double tui_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* Whether two settings give the same problem (only the ILP's knobs differ). */
static bool setting_same_problem(const struct tui_setting *a, const struct tui_setting *b)
{
    if (a->k.gpus != b->k.gpus || a->k.memory != b->k.memory ||
        a->k.micro_batches != b->k.micro_batches || a->k.schedule != b->k.schedule ||
        a->k.layout != b->k.layout || a->k.weight_factor != b->k.weight_factor)
        return false;
    int n = a->ncap > b->ncap ? a->ncap : b->ncap;
    for (int p = 0; p < n; p++) {
        uint64_t x = p < a->ncap ? a->cap[p] : 0, y = p < b->ncap ? b->cap[p] : 0;
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
    for (int p = 0; p < pb->P && p < s->ncap; p++)
        if (s->cap[p])
            pb->cap[p] = (double)s->cap[p];
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
            t->auto_blocks = ilp_default_blocks(pb);
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
        uint64_t st = cap_step(cap);
        next = (cap / st + 1) * st;
        if (next > TUI_MAX_CAP)
            next = TUI_MAX_CAP;
    } else {
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
    int L = t->cur->pb->L;
    int k = t->set.k.blocks;
    if (k < 0)
        return t->auto_blocks > 0 && t->auto_blocks < L ? t->auto_blocks : L;
    if (k == 0 || k > L)
        return L;
    return k;
}

static double cap_max(const struct problem *pb)
{
    double m = 0;
    for (int p = 0; p < pb->P; p++)
        m = fmax(m, pb->cap[p]);
    return m;
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
    bool same = setting_same_problem(&s, &t->set);
    struct problem *npb = NULL;
    if (!same) {
        char err[SPEC_ERR_LEN];
        npb = problem_build(t->net, t->plat, &s, err, sizeof err);
        if (!npb) {
            tui_message(t, MSG_ERROR, "%s", err);
            setting_free(&s);
            return -1;
        }
    }
    undo_push(t, &t->set);
    setting_install(t, &s, npb, same);
    return 1;
}

int tui_undo(struct tui *t)
{
    if (t->nundo == 0) {
        tui_message(t, MSG_INFO, "nothing to undo");
        return 0;
    }
    struct tui_setting s = t->undo[--t->nundo];
    bool same = setting_same_problem(&s, &t->set);
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

void tui_reload(struct tui *t)
{
    const char *np = t->opt.network_path, *pp = t->opt.platform_path;
    if (!np && !pp) {
        tui_message(t, MSG_INFO, "the built-in example has no file to reload");
        return;
    }
    char err[SPEC_ERR_LEN];
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
    struct problem *pb = problem_build(net ? net : t->net, plat ? plat : t->plat, &t->set,
                                       err, sizeof err);
    if (!pb) {
        tui_message(t, MSG_ERROR, "%s (kept the last good files)", err);
        spec_network_free(net);
        spec_platform_free(plat);
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
    struct tui_setting s;
    if (setting_copy(&s, &t->set) < 0) {
        problem_free(pb);
        tui_message(t, MSG_ERROR, "out of memory");
        return;
    }
    setting_install(t, &s, pb, false);
    if (t->layer >= pb->L)
        t->layer = pb->L - 1;
    tui_message(t, MSG_INFO, "reloaded %s%s%s", np ? np : "", np && pp ? " and " : "",
                pp ? pp : "");
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
    r->bound = NAN;
    r->blocks = 0;
    r->seconds = 0;
    r->message[0] = '\0';
}

void tui_rows_begin(struct tui *t, bool all)
{
    for (int i = 0; i < TUI_NROWS; i++)
        if (all || i == 0)
            row_reset(&t->rows[i]);
    /* an ILP plan from an older problem says nothing about this one */
    row_clear(&t->rows[0]);
    t->rows[0].stale = false;
    if (!all)
        t->ilp_t0 = tui_now();
}

bool tui_baselines_done(const struct tui *t)
{
    for (int i = 1; i < TUI_NROWS; i++)
        if (!t->rows[i].done)
            return false;
    return true;
}

static int row_index(const char *planner)
{
    for (int i = 0; i < TUI_NROWS; i++)
        if (strcmp(row_planners[i], planner) == 0)
            return i;
    return -1;
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

void tui_event_apply(struct tui *t, struct worker_event *ev)
{
    t->dirty = true;
    if (ev->kind == WORKER_DONE) {
        struct tui_row *ilp = &t->rows[0];
        ilp->started = false;
        return;
    }
    int i = row_index(ev->planner);
    if (i < 0) {
        /* the worker died: whatever was still coming will not */
        for (int k = 0; k < TUI_NROWS; k++) {
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
        if (ev->plan && plan_accept(pb, ev->plan, r->message, sizeof r->message)) {
            row_set_plan(t, r, ev->plan);
            ev->plan = NULL;
        }
        if (isfinite(ev->bound))
            r->bound = ev->bound;
        if (ev->blocks > 0)
            r->blocks = ev->blocks;
        r->seconds = ev->seconds;
        follow_settle(t);
        return;
    }
    r->done = true;
    r->started = false;
    r->status = ev->status;
    r->believed_fit = ev->believed_fit;
    r->bound = ev->bound;
    if (ev->blocks > 0)
        r->blocks = ev->blocks;
    r->seconds = ev->seconds;
    snprintf(r->message, sizeof r->message, "%s", ev->message);
    if (ev->plan) {
        if (plan_accept(pb, ev->plan, r->message, sizeof r->message)) {
            row_set_plan(t, r, ev->plan);
            ev->plan = NULL;
        } else {
            row_clear(r);
            r->status = PLAN_ERROR;
        }
    } else if (i != 0 || r->status == PLAN_ERROR || r->status == PLAN_INFEASIBLE) {
        row_clear(r);
    }
    r->stale = false;
    if (i != 0 && tui_baselines_done(t)) {
        /* the baselines are in: the ILP starts now */
        t->rows[0].started = !t->rows[0].done;
        t->ilp_t0 = tui_now();
    }
    if (tui_baselines_done(t))
        follow_settle(t);
}

static bool row_usable(const struct tui_row *r)
{
    return r->plan && r->status != PLAN_ERROR;
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
    for (int i = 0; i < TUI_NROWS; i++)
        any_fresh = any_fresh || (row_usable(&t->rows[i]) && !t->rows[i].stale);
    int best = -1;
    for (int i = 0; i < TUI_NROWS; i++) {
        const struct tui_row *r = &t->rows[i];
        if (!row_usable(r) || (any_fresh && r->stale))
            continue;
        if (best < 0 || row_compare(r, &t->rows[best]) < 0)
            best = i;
    }
    return best;
}

int tui_shown_row(const struct tui *t)
{
    if (t->sel >= 0 && t->sel < TUI_NROWS)
        return t->sel;
    /* while the baselines come in, stay on the plan that was best, so the
     * views do not jump from row to row */
    if (t->follow && !tui_baselines_done(t)) {
        int i = row_index(t->follow);
        if (i >= 0 && row_usable(&t->rows[i]))
            return i;
    }
    int b = tui_best_row(t);
    return b >= 0 ? b : 0;
}

double tui_objective_bound(const struct tui *t, bool *ilp)
{
    const struct problem *pb = t->cur->pb;
    double T = problem_lower_bound(pb);
    /* Lambda covers the whole chain's compute at least once */
    double bound = pb->schedule == SPEC_SCHEDULE_PIPEDREAM
                 ? T : (double)(pb->m - 1) * T + problem_compute_ms(pb);
    *ilp = false;
    const struct tui_row *r = &t->rows[0];
    /* a bound proven on blocks does not hold for the layers */
    if (isfinite(r->bound) && r->blocks == pb->L && r->bound > bound) {
        bound = r->bound;
        *ilp = true;
    }
    return bound;
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
    if (r->stale) {
        /* its figures belong to the knobs before the last change */
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
    t->export_res.planner = r->planner;
    t->export_res.status = r->status;
    if (!r->done && i == 0)
        t->export_res.status = PLAN_TIMEOUT;   /* an incumbent, not a proof */
    t->export_res.believed_fit = i == 0 ? r->plan->fits : r->believed_fit;
    t->export_res.bound = r->bound;
    t->export_res.seconds = i == 0 && !r->done ? tui_now() - t->ilp_t0 : r->seconds;
    snprintf(t->export_res.message, sizeof t->export_res.message, "%s", r->message);
    if (i == 0 && !r->done)
        snprintf(t->export_res.message, sizeof t->export_res.message,
                 "exported while the solver was running: best plan so far");
    t->export_blocks = i == 0 && r->blocks > 0 ? r->blocks : t->export_pb->L;
    t->export_res.blocks = i == 0 ? r->blocks : 0;
    /* a file name that says what it holds */
    char name[96];
    size_t n = 0;
    for (const char *p = t->export_pb->network; *p && n < 48; p++)
        name[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ? *p : '_');
    name[n] = '\0';
    t->input_len = (size_t)snprintf(t->input, sizeof t->input, "%s-%dgpu-%s.json",
                                    n ? name : "plan", t->export_pb->P, r->planner);
    return 0;
}

static int export_writer(FILE *out, void *ctx)
{
    return report_json(out, ctx);
}

int tui_export_write(struct tui *t, const char *path, bool force)
{
    struct report rep = {
        .pb = t->export_pb, .blocks = t->export_blocks, .results = &t->export_res,
        .nresults = 1, .min_cap = NAN, .min_cap_planner = NULL,
    };
    char err[SPEC_ERR_LEN + 64];
    if (fileio_write_atomic(path, force, export_writer, &rep, err, sizeof err) < 0) {
        tui_message(t, MSG_ERROR, "%s", err);
        return -1;
    }
    tui_message(t, MSG_INFO, "exported the %s plan to %s",
                planner_title(t->export_res.planner), path);
    return 0;
}

void tui_export_end(struct tui *t)
{
    plan_free(t->export_res.plan);
    problem_free(t->export_pb);
    memset(&t->export_res, 0, sizeof t->export_res);
    t->export_pb = NULL;
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
    for (int i = 0; i < TUI_NROWS; i++) {
        t->rows[i].planner = row_planners[i];
        t->rows[i].bound = NAN;
    }
    struct problem *pb = problem_build(net, plat, &t->set, err, errlen);
    if (!pb)
        return -1;
    t->cur = tp_new(pb);
    if (!t->cur) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t->auto_blocks = ilp_default_blocks(pb);
    t->replan = REPLAN_ALL;
    t->dirty = true;
    return 0;
}

void tui_state_free(struct tui *t)
{
    for (int i = 0; i < TUI_NROWS; i++)
        row_clear(&t->rows[i]);
    for (int i = 0; i < t->nundo; i++)
        setting_free(&t->undo[i]);
    t->nundo = 0;
    setting_free(&t->set);
    tui_export_end(t);
    tp_unref(t->cur);
    t->cur = NULL;
    spec_network_free(t->net);
    spec_platform_free(t->plat);
    t->net = NULL;
    t->plat = NULL;
}
