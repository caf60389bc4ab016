/* tui_draw: one whole frame from the state: erase, draw everything, one
 * doupdate, so no frame mixes two states. (ncurses 6.4 still writes a frame
 * in pieces, flushing at each cursor jump: for the few milliseconds of
 * those writes a terminal, or a tmux capture, can show the new frame's
 * upper lines over the old one's lower ones.) Works from 60x15,
 * uses what a larger terminal offers, and reads without colour (NO_COLOR,
 * monochrome terminals) or without Unicode (the glyphs fall back to ASCII). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600       /* wcwidth */
#endif
#include "tui_impl.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ilp.h"
#include "text.h"
#include "units.h"

#define MIN_COLS 60
#define MIN_LINES 15

enum role {
    R_NORMAL, R_TITLE, R_RULE, R_VALUE, R_DIM, R_GOOD, R_BAD, R_WARN, R_SEL, R_KEY,
    R_WEIGHTS, R_ACTIV, R_BUFFERS, R_RESERVED, R_OVER, R_FWD, R_BWD, R_IDLE,
    R_GPU, NROLES = R_GPU + 6
};

static attr_t roles[NROLES];

struct glyphs {
    const char *hline, *arrow, *times, *ge, *dots, *mark, *vbar;
    const char *seg[4];          /* weights, activations, buffers, reserved */
    const char *idle, *left, *right;
};

static const struct glyphs utf8_glyphs = {
    "\u2500", "\u2192", "\u00d7", "\u2265", "\u2026", "\u25b6", "\u2502",
    { "\u2588", "\u2593", "\u2592", "\u2591" }, "\u00b7", "\u25c0", "\u25b6"
};
static const struct glyphs ascii_glyphs = {
    "-", "->", "x", ">=", "...", ">", "|", { "#", "=", "+", ":" }, ".", "<", ">"
};
static const struct glyphs *G = &ascii_glyphs;

static const char gpu_chars[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

void tui_draw_init(struct tui *t)
{
    const char *no_color = getenv("NO_COLOR");
    t->color = has_colors() && !(no_color && *no_color);
    G = t->unicode ? &utf8_glyphs : &ascii_glyphs;
    for (int i = 0; i < NROLES; i++)
        roles[i] = A_NORMAL;
    roles[R_TITLE] = A_BOLD;
    roles[R_VALUE] = A_BOLD;
    roles[R_DIM] = A_DIM;
    roles[R_BAD] = A_BOLD;
    roles[R_WARN] = A_BOLD;
    roles[R_SEL] = A_REVERSE;
    roles[R_KEY] = A_REVERSE;
    roles[R_OVER] = A_REVERSE | A_BOLD;
    roles[R_BWD] = A_BOLD;
    roles[R_IDLE] = A_DIM;
    /* without colour, neighbouring GPUs alternate plain and reverse */
    for (int i = 0; i < 6; i++)
        roles[R_GPU + i] = i % 2 ? A_REVERSE : A_NORMAL;
    if (!t->color)
        return;
    start_color();
    short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
    static const struct { enum role r; short fg; attr_t extra; } fg[] = {
        { R_TITLE, COLOR_CYAN, A_BOLD }, { R_RULE, COLOR_BLUE, A_NORMAL },
        { R_GOOD, COLOR_GREEN, A_NORMAL }, { R_BAD, COLOR_RED, A_BOLD },
        { R_WARN, COLOR_YELLOW, A_BOLD }, { R_WEIGHTS, COLOR_MAGENTA, A_NORMAL },
        { R_ACTIV, COLOR_CYAN, A_NORMAL }, { R_BUFFERS, COLOR_YELLOW, A_NORMAL },
        { R_RESERVED, COLOR_WHITE, A_NORMAL }, { R_OVER, COLOR_RED, A_REVERSE | A_BOLD },
        { R_FWD, COLOR_GREEN, A_NORMAL }, { R_BWD, COLOR_MAGENTA, A_BOLD },
    };
    short pair = 1;
    for (size_t i = 0; i < sizeof fg / sizeof fg[0]; i++, pair++) {
        init_pair(pair, fg[i].fg, bg);
        roles[fg[i].r] = COLOR_PAIR(pair) | fg[i].extra;
    }
    init_pair(pair, COLOR_BLACK, COLOR_CYAN);
    roles[R_KEY] = COLOR_PAIR(pair);
    pair++;
    static const short gbg[6] = { COLOR_BLUE, COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA,
                                  COLOR_CYAN, COLOR_WHITE };
    static const short gfg[6] = { COLOR_WHITE, COLOR_BLACK, COLOR_BLACK, COLOR_WHITE,
                                  COLOR_BLACK, COLOR_BLACK };
    for (int i = 0; i < 6; i++, pair++) {
        init_pair(pair, gfg[i], gbg[i]);
        roles[R_GPU + i] = COLOR_PAIR(pair);
    }
}

/* ---- text ---- */

/* Copy text from outside (files, messages) so that each code point is one
 * column: controls and bytes of invalid UTF-8 become \xNN (a name's ESC
 * must not drive the terminal), wide characters '?'; without Unicode, so
 * does any valid character beyond ASCII. */
static void text_clean(const char *in, char *out, size_t outlen, bool unicode)
{
    size_t n = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    const char *p = in;
    while (*p && n + 5 < outlen) {
        unsigned char c = (unsigned char)*p;
        size_t valid = text_utf8_len(p);
        bool c1 = c == 0xC2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] < 0xA0;
        if (c < 0x20 || c == 0x7f || valid == 0 || c1) {
            snprintf(out + n, outlen - n, "\\x%02X", c);
            n += 4;
            p++;
            continue;
        }
        if (c < 0x80) {
            out[n++] = (char)c;
            p++;
            continue;
        }
        wchar_t wc;
        size_t len = unicode ? mbrtowc(&wc, p, MB_CUR_MAX, &st) : (size_t)-1;
        if (len == (size_t)-1 || len == (size_t)-2 || len == 0 || wcwidth(wc) != 1) {
            memset(&st, 0, sizeof st);
            out[n++] = '?';
            p += valid;
            continue;
        }
        memcpy(out + n, p, len);
        n += len;
        p += len;
    }
    out[n] = '\0';
}

/* Columns of a cleaned string: one per code point. */
static int text_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The code point after the one at p (a cleaned string: valid UTF-8). */
static const char *cp_next(const char *p)
{
    p++;
    while (((unsigned char)*p & 0xc0) == 0x80)
        p++;
    return p;
}

/* A line being written left to right, clipped at `end`. */
struct pen {
    int y, x, end;
};

static void put(struct pen *pn, attr_t a, const char *s)
{
    if (pn->x >= pn->end)
        return;
    int room = pn->end - pn->x, cols = 0;
    const char *q = s;
    while (*q && cols < room) {
        q = cp_next(q);
        cols++;
    }
    attrset(a);
    mvaddnstr(pn->y, pn->x, s, (int)(q - s));
    pn->x += cols;
}

static void putf(struct pen *pn, attr_t a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void putf(struct pen *pn, attr_t a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(pn, a, buf);
}

static void pad_to(struct pen *pn, int x)
{
    while (pn->x < x && pn->x < pn->end)
        put(pn, roles[R_NORMAL], " ");
}

/* A section rule: "── left ──────── right ──". */
static void rule(int y, const char *left, attr_t la, const char *right, attr_t ra)
{
    struct pen pn = { y, 0, COLS };
    attrset(roles[R_RULE]);
    for (int x = 0; x < COLS; x++)
        mvaddstr(y, x, G->hline);
    if (left && *left) {
        pn.x = 2;
        put(&pn, la, " ");
        put(&pn, la, left);
        put(&pn, la, " ");
    }
    if (right && *right) {
        int x = COLS - 3 - text_cols(right);
        if (x > pn.x + 1) {
            pn.x = x;
            put(&pn, ra, " ");
            put(&pn, ra, right);
            put(&pn, ra, " ");
        }
    }
}

/* Whether rule() shows both sides whole. */
static bool rule_fits(const char *left, const char *right)
{
    return 2 + text_cols(left) + 2 + 2 + (right ? text_cols(right) : 0) + 3 <= COLS;
}

static char *fmt_time(double ms, char *buf, size_t len)
{
    if (!isfinite(ms))
        snprintf(buf, len, "-");
    else
        units_format_time(ms, buf, len);
    return buf;
}

/* A time in at most w columns (a table's): fmt_time's, or one shorter
 * for times of hours and beyond. */
static char *fmt_time_fit(double ms, int w, char *buf, size_t len)
{
    fmt_time(ms, buf, len);
    static const char *const shorter[] = { "%.0f s", "%.2g s", "%.1g s" };
    for (size_t k = 0; k < 3 && isfinite(ms) && text_cols(buf) > w; k++)
        snprintf(buf, len, shorter[k], ms / 1e3);
    return buf;
}

static char *fmt_size(double bytes, char *buf, size_t len)
{
    return units_format_size(bytes, buf, len);
}

/* "15.8/16.0 GiB": both in the cap's unit. */
static char *fmt_mem_pair(double used, double cap, char *buf, size_t len)
{
    /* up to PiB, as the files' sizes go: a cap of 16000 PiB in TiB was
     * "2e7/16384000 TiB", and the busy share's % fell off the line */
    static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int k = 0;
    double div = 1;
    while (cap / div >= 1024.0 && k < 5) {
        div *= 1024.0;
        k++;
    }
    double u = used / div, c = cap / div;
    /* 30 GiB of a 3.9 TiB cap: both in the unit below while the cap's
     * figure keeps to four digits ("30.2/4000 GiB", not "<0.1/3.9 TiB") */
    if (u > 0 && u < 0.05 && k > 0 && c * 1024.0 < 9999.5) {
        div /= 1024.0;
        k--;
        u = used / div;
        c = cap / div;
    }
    if (u >= 9999.5) {
        /* far over the cap: "2e4/76.0 GiB", in the column's 13 characters
         * (the exact figure is in the per-GPU panel) */
        int e = (int)floor(log10(u));
        double mant = round(u / pow(10, e));
        if (mant >= 10) {
            mant = 1;
            e++;
        }
        snprintf(buf, len, "%.0fe%d/", mant, e);
    } else if (u > 0 && u < 0.05) {
        /* 16 GiB against a cap in TiB is not "0.0" (the exact figure is in
         * the per-GPU panel) */
        snprintf(buf, len, "<0.1/");
    } else if (used > cap) {
        /* over the cap: up, as "needs" says it (23.21 GiB needs 23.3, and
         * the bar said 23.2) */
        double scale = u < 100 ? 10 : 1;
        snprintf(buf, len, u < 100 ? "%.1f/" : "%.0f/", ceil(u * scale) / scale);
    } else {
        snprintf(buf, len, u < 100 ? "%.1f/" : "%.0f/", u);
    }
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, c < 100 ? "%.1f %s" : "%.0f %s", c, names[k]);
    return buf;
}

/* The ILP's limit as the search obeys it: the deterministic work limit
 * when one was given (the seconds are then not used), else the seconds. */
static void ilp_limit(const struct tui *t, char *buf, size_t len)
{
    if (t->opt.work_limit > 0)
        snprintf(buf, len, "work %ld", t->opt.work_limit);
    else
        snprintf(buf, len, "%.0f s", t->set.time_limit);
}

/* A gap (planner_gap: a fraction) in percent. One that would round to
 * 0.0% but is more than the ILP's optimality tolerance says so: "0.0%"
 * beside a search still running reads as proven. */
static char *fmt_gap(double gap, char *buf, size_t len)
{
    if (!isfinite(gap))
        snprintf(buf, len, "-");
    else if (gap * 100 < 0.05)
        snprintf(buf, len, gap > ILP_GAP ? "<0.1%%" : "0.0%%");
    else
        snprintf(buf, len, "%.1f%%", gap * 100);
    return buf;
}

static char gpu_char(int p)
{
    return p >= 0 && p < (int)sizeof gpu_chars - 1 ? gpu_chars[p] : '+';
}

static attr_t gpu_attr(int p)
{
    return roles[R_GPU + (p % 6)];
}

/* ---- layout ---- */

struct layout {
    int title, knobs, strip_rule, overview, strip, info, mem_rule, gpu0, ngpu;
    int plans_rule, header, rows, ilp, ilp2, details, ndetails, status, nstatus, keys;
};

/* Columns before the strips' cells: their label ("all", "zoom"). */
#define STRIP_LABEL 5

static int strip_width(void)
{
    return COLS - STRIP_LABEL - 2;
}

/* The format chooser's items: " 3 csv". */
static void format_item(int i, char *buf, size_t len)
{
    snprintf(buf, len, " %d %s", i + 1, export_format_at(i)->name);
}

/* Columns the chooser needs on one line, after its label. */
static int format_cols(void)
{
    int n = (int)strlen("Export as:");
    for (int i = 0; i < export_count(); i++) {
        char item[64];
        format_item(i, item, sizeof item);
        n += (int)strlen(item);
    }
    return n;
}

static const char *wrap_line(const char *s, int cols, bool last, char *out, size_t outlen);

/* The lines the status message needs at words, at most MSG_LINES. */
#define MSG_LINES 4
static int msg_lines(const struct tui *t)
{
    if (t->msg_kind == MSG_NONE)
        return 0;
    char buf[sizeof t->msg * 4], line[sizeof buf];
    text_clean(t->msg, buf, sizeof buf, t->unicode);
    int n = 0;
    for (const char *p = buf; *p && n < MSG_LINES; n++)
        p = wrap_line(p, COLS, false, line, sizeof line);
    return n > 0 ? n : 1;
}

/* Lines by priority: the fixed parts (title, knobs, the strip, one GPU,
 * the plans, the ILP line with its state and bound, the keys), then a
 * message of more than one line, the layer line, GPUs (a few), the
 * table's header, the whole-network strip, every GPU, a status line, the
 * ILP line's second half, then a per-GPU table; whatever is left stays
 * blank above the keys. A part that does not fit is left out whole. */
static void layout_compute(const struct tui *t, struct layout *ly)
{
    int P = t->cur->pb->P, L = t->cur->pb->L;
    int avail = LINES - (9 + t->nrows);
    int ngpu = 1, take;
    bool info = false, header = false, overview = false;
#define TAKE(n) (take = (n) < avail ? (n) : avail, take = take > 0 ? take : 0, avail -= take, take)
    /* a message is read once, and until the next key: the whole of it
     * before the GPUs' rows (a refusal cut short says no why) */
    int nmsg = t->mode == MODE_MAIN ? msg_lines(t) : 0;
    int nstatus = nmsg > 1 ? TAKE(nmsg) : 0;
    info = TAKE(1) > 0;
    ngpu += TAKE((P < 2 ? P : 2) - ngpu);
    header = TAKE(1) > 0;
    ngpu += TAKE((P < 4 ? P : 4) - ngpu);
    overview = L > strip_width() && TAKE(1) > 0;
    ngpu += TAKE(P - ngpu);
    if (!nstatus)
        nstatus = TAKE(1);
    /* the format chooser gets a second line when there is room */
    if (nstatus && t->mode == MODE_FORMAT && format_cols() > COLS)
        nstatus += TAKE(1);
    bool ilp2 = TAKE(1) > 0;
    int ndetails = avail >= 4 ? (P + 2 < avail ? P + 2 : avail) : 0;
    avail -= ndetails;
#undef TAKE
    if (ngpu > P)
        ngpu = P;

    int y = 0;
    ly->title = y++;
    ly->knobs = y++;
    ly->strip_rule = y++;
    ly->overview = overview ? y++ : -1;
    ly->strip = y++;
    ly->info = info ? y++ : -1;
    ly->mem_rule = y++;
    ly->gpu0 = y;
    ly->ngpu = ngpu;
    y += ngpu;
    ly->plans_rule = y++;
    ly->header = header ? y++ : -1;
    ly->rows = y;
    y += t->nrows;
    ly->ilp = y++;
    ly->ilp2 = ilp2 ? y++ : -1;
    ly->details = ndetails ? y : -1;
    ly->ndetails = ndetails;
    ly->keys = LINES - 1;
    ly->nstatus = nstatus;
    ly->status = nstatus ? LINES - 1 - nstatus : -1;
}

/* ---- the parts ---- */

/* The solver's state in words (planner_status_text) and its colour. */
static const char *ilp_short(const struct tui *t, attr_t *a, char *buf, size_t len)
{
    const struct tui_row *r = &t->rows[t->ilp];
    *a = roles[R_NORMAL];
    if (r->started) {
        *a = roles[R_WARN];
        return "running";
    }
    if (!r->done)
        return "waiting";
    switch (r->status) {
    case PLAN_OPTIMAL: *a = roles[R_GOOD]; break;
    case PLAN_INFEASIBLE:
    case PLAN_ERROR: *a = roles[R_BAD]; break;
    default: break;
    }
    return planner_status_text(r->status, r->blocks > 0 ? r->blocks : tui_blocks(t), buf, len);
}

static double ilp_elapsed(const struct tui *t)
{
    const struct tui_row *r = &t->rows[t->ilp];
    return r->started ? tui_now() - t->ilp_t0 : r->seconds;
}

static bool caps_uniform(const struct problem *pb, double *lo, double *hi)
{
    *lo = *hi = pb->cap[0];
    for (int p = 1; p < pb->P; p++) {
        *lo = fmin(*lo, pb->cap[p]);
        *hi = fmax(*hi, pb->cap[p]);
    }
    return *lo == *hi;
}

/* Network, platform, micro-batch size on the left (as much as fits, in
 * whole pieces), the solver's state on the right (always). */
static void draw_title(const struct tui *t, int y)
{
    const struct problem *pb = t->cur->pb;
    const struct tui_row *r = &t->rows[t->ilp];
    char name[128], plat[160], b1[32], b2[32], b3[32], gpus[96], st[64];
    text_clean(pb->network, name, sizeof name, t->unicode);
    char pname[128];
    text_clean(t->plat->name ? t->plat->name : "", pname, sizeof pname, t->unicode);
    snprintf(plat, sizeof plat, "%s%s", t->opt.platform_path ? "" : "built-in ", pname);
    double lo, hi;
    /* tensor-parallel: a plan's GPU is a pipeline rank of tp GPUs */
    char tp[32] = "";
    if (pb->tp > 1)
        snprintf(tp, sizeof tp, " ranks of TP%d", pb->tp);
    if (caps_uniform(pb, &lo, &hi))
        snprintf(gpus, sizeof gpus, "%d%s %s %s", pb->P, tp, G->times, fmt_size(hi, b1, sizeof b1));
    else
        snprintf(gpus, sizeof gpus, "%d%s GPUs of %s-%s", pb->P, tp[0] ? tp : "",
                 fmt_size(lo, b1, sizeof b1), fmt_size(hi, b2, sizeof b2));
    attr_t a;
    const char *state = ilp_short(t, &a, st, sizeof st);
    char right[96];
    if (r->started)
        snprintf(right, sizeof right, "%s %.1f s", state, ilp_elapsed(t));
    else if (r->done && r->status != PLAN_ERROR)
        snprintf(right, sizeof right, "%s in %.1f s", state, r->seconds);
    else
        snprintf(right, sizeof right, "%s", state);
    char left[5][600];
    const char *s = pb->L == 1 ? "" : "s";
    snprintf(left[0], sizeof left[0], "pipeplan  %s (%d layer%s, micro-batch %ld) on %s: %s, %s",
             name, pb->L, s, pb->micro_batch, plat, gpus,
             units_format_bandwidth(pb->bandwidth, b3, sizeof b3));
    snprintf(left[1], sizeof left[1], "%s (%d layer%s, micro-batch %ld) on %s: %s", name, pb->L,
             s, pb->micro_batch, plat, gpus);
    snprintf(left[2], sizeof left[2], "%s (micro-batch %ld) on %s", name, pb->micro_batch, plat);
    snprintf(left[3], sizeof left[3], "%s on %s", name, plat);
    snprintf(left[4], sizeof left[4], "%s", name);
    /* the most that fits: the elapsed time goes before the platform */
    static const struct { int left; bool time; } tries[] = {
        { 0, true }, { 1, true }, { 2, true }, { 2, false }, { 3, true }, { 3, false },
        { 4, false },
    };
    int k = 4;
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        int rc = tries[i].time ? text_cols(right) : text_cols(state);
        if (text_cols(left[tries[i].left]) + 2 + 4 + rc <= COLS || i + 1 == sizeof tries / sizeof tries[0]) {
            k = tries[i].left;
            if (!tries[i].time)
                snprintf(right, sizeof right, "%s", state);
            break;
        }
    }
    struct pen pn = { y, 0, COLS - 4 - text_cols(right) - 1 };
    /* a name longer than its room ends in an ellipsis, not cut short */
    char cut[sizeof name];
    if (k == 4 && text_cols(name) > pn.end - 1) {
        wrap_line(name, pn.end - 1, true, cut, sizeof cut);
        snprintf(name, sizeof name, "%s", cut);
        snprintf(left[4], sizeof left[4], "%s", name);
    }
    const char *l = left[k];
    if (k == 0) {
        put(&pn, roles[R_TITLE], "pipeplan");
        l += strlen("pipeplan");
    }
    size_t nl = strlen(name);
    const char *nm = strstr(l, name);
    if (nm) {
        char pre[32];
        snprintf(pre, sizeof pre, "%.*s", (int)(nm - l), l);
        put(&pn, roles[R_NORMAL], pre);
        char nb[128];
        snprintf(nb, sizeof nb, "%.*s", (int)nl, nm);
        put(&pn, roles[R_VALUE], nb);
        l = nm + nl;
    }
    put(&pn, roles[R_NORMAL], l);
    pn = (struct pen){ y, COLS - 4 - text_cols(right), COLS };
    put(&pn, roles[R_NORMAL], "ILP ");
    put(&pn, a, right);
}

static void draw_knobs(const struct tui *t, int y)
{
    const struct problem *pb = t->cur->pb;
    char cap[48], b1[32], b2[32], mb[32], P[48];
    double lo, hi;
    if (caps_uniform(pb, &lo, &hi))
        fmt_size(hi, cap, sizeof cap);
    else
        snprintf(cap, sizeof cap, "%s-%s", fmt_size(lo, b1, sizeof b1), fmt_size(hi, b2, sizeof b2));
    snprintf(mb, sizeof mb, "%ld", pb->m);
    /* tensor-parallel: the knob counts pipeline ranks of tp GPUs each */
    if (pb->tp > 1)
        snprintf(P, sizeof P, "%d %s TP%d", pb->P, G->times, pb->tp);
    else
        snprintf(P, sizeof P, "%d", pb->P);
    const char *sched = spec_schedule_name(pb->schedule);
    const char *layout = pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any";
    char gpus[16];
    snprintf(gpus, sizeof gpus, "%s ", problem_gpu_word(pb, true));
    struct { const char *full, *brief, *value; } items[] = {
        { gpus, gpus, P },
        { "cap ", "cap ", cap },
        { "micro-batches ", "mb ", mb }, { "schedule ", "", sched },
        { "layout ", "", layout },
    };
    int n = (int)(sizeof items / sizeof items[0]);
    int full = 0;
    for (int i = 0; i < n; i++)
        full += text_cols(items[i].full) + text_cols(items[i].value) + 2;
    bool brief = full > COLS;
    struct pen pn = { y, 0, COLS };
    for (int i = 0; i < n; i++) {
        put(&pn, roles[R_NORMAL], brief ? items[i].brief : items[i].full);
        put(&pn, roles[R_VALUE], items[i].value);
        put(&pn, roles[R_NORMAL], "  ");
    }
    /* the ILP's knobs too, when there is room (else on the ILP line) */
    char extra[96], blocks[32];
    int nb = tui_blocks(t);
    if (nb >= pb->L)
        snprintf(blocks, sizeof blocks, "all");
    else
        snprintf(blocks, sizeof blocks, "%d%s", nb, t->set.k.blocks < 0 ? " (auto)" : "");
    char lim[40];
    ilp_limit(t, lim, sizeof lim);
    snprintf(extra, sizeof extra, "blocks %s  limit %s", blocks, lim);
    if (pn.x + text_cols(extra) <= COLS) {
        put(&pn, roles[R_NORMAL], "blocks ");
        put(&pn, roles[R_VALUE], blocks);
        put(&pn, roles[R_NORMAL], "  limit ");
        put(&pn, roles[R_VALUE], lim);
    }
}

static const char *row_title(const struct tui_row *r)
{
    return tui_row_title(r);
}

/* "the ILP plan", "the mem-aware DP plan"; yours is "your split". */
static const char *plan_phrase(const char *planner, const char *title, char *buf, size_t len)
{
    if (planner_is_given(planner))
        snprintf(buf, len, "%s", title);
    else
        snprintf(buf, len, "the %s plan", title);
    return buf;
}

/* "a=GPU 10" or "a-l=GPU 10-21" (ranks for a tensor-parallel network):
 * what the strip's letters mean. */
static void gpu_legend(const struct problem *pb, int P, char *buf, size_t len)
{
    const char *w = problem_gpu_word(pb, false);
    buf[0] = '\0';
    if (P <= 10)
        return;
    int last = P - 1 < (int)sizeof gpu_chars - 2 ? P - 1 : (int)sizeof gpu_chars - 2;
    if (last == 10)
        snprintf(buf, len, "a=%s 10", w);
    else
        snprintf(buf, len, "a-%c=%s 10-%d", gpu_char(last), w, last);
    if (P - 1 == last + 1)
        snprintf(buf + strlen(buf), len - strlen(buf), ", +=%s %d", w, P - 1);
    else if (P - 1 > last)
        snprintf(buf + strlen(buf), len - strlen(buf), ", +=%s %d-%d", w, last + 1, P - 1);
}

static void draw_strip(struct tui *t, const struct layout *ly)
{
    bool updating;
    const struct tui_row *r = tui_view_row(t, &updating);
    const struct plan *pl = r->plan;
    const struct problem *pb = r->tp ? r->tp->pb : t->cur->pb;
    int L = pl ? pl->L : t->cur->pb->L;
    if (t->layer >= L)
        t->layer = L - 1;
    if (t->layer < 0)
        t->layer = 0;

    char why[200], brief[200] = "", b0[32], bw[32];
    /* the plan that fits at that cap, when it is not the one on show */
    char who[64] = "";
    if (t->min_cap_planner && strcmp(t->min_cap_planner, r->planner) != 0)
        snprintf(who, sizeof who, "%s ", planner_title(t->min_cap_planner));
    if (!pl && !r->done) {
        /* nothing on show yet to update (the first frames) */
        snprintf(why, sizeof why, "planning%s", G->dots);
    } else if (updating) {
        /* the plan on show before, until what changed is in */
        snprintf(why, sizeof why, "updating%s", G->dots);
    } else if (t->sel >= 0) {
        snprintf(why, sizeof why, "selected%s", r->stale ? ", updating" : "");
    } else if (!tui_settled(t) || r->stale) {
        snprintf(why, sizeof why, "updating%s", G->dots);
    } else if (pl && pl->fits) {
        snprintf(why, sizeof why, "best that fits");
    } else if (isfinite(t->min_cap)) {
        /* rounded up: the cap shown, typed back with m/M or --memory, fits;
         * when the search for the least cap stopped at its limit, it may
         * be less by up to what is left */
        units_format_size_up(t->min_cap, b0, sizeof b0);
        bool open = t->min_cap_within > 1048576.0;
        if (open)
            units_format_size_up(t->min_cap_within, bw, sizeof bw);
        snprintf(why, sizeof why, "least memory; nothing fits; %sfits with caps of %s%s%s%s",
                 who, b0,
                 open ? ", maybe " : "", open ? bw : "", open ? " less" : "");
        /* fewer words for a narrow rule: true without the "maybe" */
        snprintf(brief, sizeof brief, "nothing fits; %sfits at %s", who, b0);
    } else {
        snprintf(why, sizeof why, "least memory; nothing fits");
    }
    if (!brief[0])
        snprintf(brief, sizeof brief, "%s", why);
    char left[4][240], right[2][96], legend[64];
    gpu_legend(pb, pl ? pl->P : pb->P, legend, sizeof legend);
    snprintf(left[0], sizeof left[0], "layers %s %s: %s (%s)", G->arrow,
             problem_gpu_word(t->cur->pb, false), row_title(r), why);
    snprintf(left[1], sizeof left[1], "%s (%s)", row_title(r), why);
    snprintf(left[2], sizeof left[2], "%s (%s)", row_title(r), brief);
    snprintf(left[3], sizeof left[3], "%s", row_title(r));
    /* layers count from 0, as in --split, solve's table and the JSON */
    snprintf(right[0], sizeof right[0], "%s%slayer %d of %d", legend, legend[0] ? "  " : "",
             t->layer, L);
    snprintf(right[1], sizeof right[1], "%d of %d", t->layer, L);
    int kl = 0, kr = 0;
    while (!rule_fits(left[kl], right[kr])) {
        if (kl < 1)
            kl++;
        else if (kr < 1)
            kr++;
        else if (kl < 3)
            kl++;
        else
            break;
    }
    rule(ly->strip_rule, left[kl], roles[R_TITLE], right[kr], roles[R_NORMAL]);
    /* the strips' labels: the whole network, and the window around the cursor */
    struct pen lp = { ly->strip, 0, COLS };
    put(&lp, roles[R_DIM], ly->overview >= 0 || L > strip_width() ? "zoom" : "all");
    if (ly->overview >= 0) {
        lp = (struct pen){ ly->overview, 0, COLS };
        put(&lp, roles[R_DIM], "all");
    }

    if (!pl) {
        struct pen pn = { ly->strip, STRIP_LABEL, COLS };
        const char *st = r->status == PLAN_ERROR ? r->message
                       : r->done ? "no plan" : "planning";
        char msg[400], line[400];
        text_clean(st[0] ? st : "no plan", msg, sizeof msg, t->unicode);
        attr_t a = r->status == PLAN_ERROR ? roles[R_BAD] : roles[R_DIM];
        /* an error goes on over the info line, free without a plan */
        const char *rest = wrap_line(msg, COLS - STRIP_LABEL, ly->info < 0, line, sizeof line);
        put(&pn, a, line);
        if (*rest && ly->info >= 0) {
            wrap_line(rest, COLS - STRIP_LABEL, true, line, sizeof line);
            pn = (struct pen){ ly->info, STRIP_LABEL, COLS };
            put(&pn, a, line);
        }
        if (!r->done && r->status != PLAN_ERROR)
            put(&pn, roles[R_DIM], G->dots);
        return;
    }
    int W = strip_width();
    /* the strip scrolls only when the cursor reaches its edge */
    if (t->layer < t->strip_first)
        t->strip_first = t->layer;
    if (t->layer >= t->strip_first + W)
        t->strip_first = t->layer - W + 1;
    if (t->strip_first > L - W)
        t->strip_first = L - W;
    if (t->strip_first < 0)
        t->strip_first = 0;
    /* whole network, several layers per cell: which GPU holds most of each */
    int *count = ly->overview >= 0 ? calloc((size_t)pl->P, sizeof *count) : NULL;
    int OW = COLS - STRIP_LABEL;
    if (count) {
        for (int c = 0; c < OW; c++) {
            int a = (int)((long)c * L / OW), b = (int)((long)(c + 1) * L / OW);
            if (b <= a)
                b = a + 1;
            if (b > L)
                b = L;
            int best = pl->gpu[a];
            for (int i = a; i < b; i++)
                if (++count[pl->gpu[i]] > count[best])
                    best = pl->gpu[i];
            for (int i = a; i < b; i++)
                count[pl->gpu[i]] = 0;
            attr_t at = gpu_attr(best);
            /* underlined: the part the strip below shows */
            if (b > t->strip_first && a < t->strip_first + W)
                at |= A_UNDERLINE;
            if (t->layer >= a && t->layer < b)
                at = (at ^ A_REVERSE) | A_BOLD | A_UNDERLINE;
            attrset(at);
            mvaddch(ly->overview, STRIP_LABEL + c, (chtype)gpu_char(best));
        }
        free(count);
    }
    /* one cell per layer around the cursor */
    int first = t->strip_first;
    struct pen pn = { ly->strip, STRIP_LABEL, COLS };
    put(&pn, roles[R_DIM], first > 0 ? G->left : " ");
    for (int i = first; i < first + W && i < L; i++) {
        attr_t at = gpu_attr(pl->gpu[i]);
        if (i == t->layer)
            at = (at ^ A_REVERSE) | A_BOLD | A_UNDERLINE;
        attrset(at);
        mvaddch(ly->strip, STRIP_LABEL + 1 + i - first, (chtype)gpu_char(pl->gpu[i]));
    }
    if (first + W < L) {
        pn.x = COLS - 1;
        put(&pn, roles[R_DIM], G->right);
    }

    /* the layer under the cursor */
    if (ly->info < 0)
        return;
    int i = t->layer;
    char name[160], b1[32], b2[32], b3[32], b4[32], b5[32];
    text_clean(pb->names[i] ? pb->names[i] : "", name, sizeof name, t->unicode);
    /* the costs, then what is stored (when it differs) and the copies in
     * flight: the most of them that fits, each part whole */
    char base[256], more[256 + 64], all[256 + 64 + 32], stored[64] = "", flight[32];
    snprintf(base, sizeof base, "f %s  b %s  w %s  a %s",
             fmt_time(pb->f[i], b1, sizeof b1), fmt_time(pb->b[i], b2, sizeof b2),
             fmt_size(pb->w[i], b3, sizeof b3), fmt_size(pb->a[i], b4, sizeof b4));
    if (pb->s[i] != pb->a[i])
        snprintf(stored, sizeof stored, "  stored %s", fmt_size(pb->s[i], b5, sizeof b5));
    snprintf(flight, sizeof flight, "  %d in flight", pl->copies[i]);
    snprintf(more, sizeof more, "%s%s", base, stored);
    snprintf(all, sizeof all, "%s%s", more, COLS >= 100 ? flight : "");
    char *costs[3] = { all, more, base };
    char where[64];
    /* one blank before the arrow: "rank" is a column longer than "GPU",
     * and at 80 columns a transformer's first layer lost its name's start */
    snprintf(where, sizeof where, " %s %s %d", G->arrow, problem_gpu_word(pb, false), pl->gpu[i]);
    pn = (struct pen){ ly->info, 0, COLS };
    char num[32];
    snprintf(num, sizeof num, "layer %d of %d ", i, L);
    int k = 0;
    while (k < 3 && text_cols(num) + 8 + text_cols(where) + 2 + text_cols(costs[k]) > COLS)
        k++;
    char *cost = k < 3 ? costs[k] : costs[2];
    if (k == 3)
        cost[0] = '\0';
    int room = COLS - text_cols(cost) - text_cols(where) - 2 - text_cols(num);
    if (room < 4)
        room = 4;
    if (text_cols(name) > room) {
        /* keep both ends, cut the middle: a module path's start names the
         * block ("layers.12"), its end the operation */
        int head = (room - 1) / 2;
        const char *h = name, *p = name;
        for (int c = 0; c < head; c++)
            h = cp_next(h);
        while (text_cols(p) > room - 1 - head)
            p = cp_next(p);
        char cut[176];
        snprintf(cut, sizeof cut, "%.*s%s%s", (int)(h - name), name,
                 t->unicode ? "\u2026" : "~", p);
        memcpy(name, cut, sizeof name - 1);
        name[sizeof name - 1] = '\0';
    }
    put(&pn, roles[R_NORMAL], num);
    put(&pn, roles[R_VALUE], name);
    put(&pn, roles[R_NORMAL], where);
    put(&pn, roles[R_NORMAL], "  ");
    int x = COLS - text_cols(cost);
    if (x > pn.x)
        pn.x = x;
    put(&pn, roles[R_NORMAL], cost);
}

/* One GPU's memory: weights, activations, buffers, reserved against a
 * scale of `scale` bytes over `w` cells; cells beyond the cap overflow. */
static void draw_bar(struct pen *pn, const struct plan_gpu *g, double scale, int w)
{
    double seg[4] = { g->weights, g->activations, g->buffers, g->reserved };
    static const enum role segrole[4] = { R_WEIGHTS, R_ACTIV, R_BUFFERS, R_RESERVED };
    double cell = scale / w;
    int capcell = (int)floor(g->cap / cell + 0.5);
    for (int c = 0; c < w; c++) {
        double mid = (c + 0.5) * cell, acc = 0;
        int k = -1;
        for (int s = 0; s < 4; s++) {
            acc += seg[s];
            if (mid < acc) {
                k = s;
                break;
            }
        }
        if (k < 0) {
            /* free; the cap is marked when the scale goes past it */
            if (c == capcell && capcell < w)
                put(pn, roles[R_BAD], G->vbar);
            else
                put(pn, roles[R_NORMAL], " ");
            continue;
        }
        put(pn, mid > g->cap ? roles[R_OVER] : roles[segrole[k]], G->seg[k]);
    }
}

/* One GPU's period: F and B by the share of each cell they fill, idle
 * where less than half of it is busy. */
static void draw_period(struct pen *pn, const struct plan *pl, const struct problem *pb,
                        int p, int w)
{
    double *fc = calloc((size_t)w, sizeof *fc), *bc = calloc((size_t)w, sizeof *bc);
    if (!fc || !bc || !(pl->T > 0)) {
        free(fc);
        free(bc);
        return;
    }
    double T = pl->T, cw = T / w;
    for (int o = 0; o < 2 * pl->L; o++) {
        int layer = o < pl->L ? o : o - pl->L;
        if (pl->gpu[layer] != p)
            continue;
        double d = fmin(problem_op_duration(pb, o), T);
        double r = fmod(pl->start[o], T);
        if (r < 0)
            r += T;
        double *cov = o < pl->L ? fc : bc;
        double parts[2][2] = { { r, fmin(r + d, T) }, { 0, r + d > T ? r + d - T : 0 } };
        for (int k = 0; k < 2; k++) {
            double a = parts[k][0], b = parts[k][1];
            if (b <= a)
                continue;
            int c0 = (int)(a / cw), c1 = (int)ceil(b / cw);
            for (int c = c0 < 0 ? 0 : c0; c < c1 && c < w; c++)
                cov[c] += fmin(b, (c + 1) * cw) - fmax(a, c * cw);
        }
    }
    for (int c = 0; c < w; c++) {
        if (fc[c] + bc[c] < 0.5 * cw)
            put(pn, roles[R_IDLE], G->idle);
        else if (fc[c] >= bc[c])
            put(pn, roles[R_FWD], "F");
        else
            put(pn, roles[R_BWD], "B");
    }
    free(fc);
    free(bc);
}

/* Layers of GPU p as ranges ("0-15,40"). */
static void gpu_layers(const struct plan *pl, int p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < pl->L && n + 24 < len; i++) {
        if (pl->gpu[i] != p || (i > 0 && pl->gpu[i - 1] == p))
            continue;
        int j = i;
        while (j + 1 < pl->L && pl->gpu[j + 1] == p)
            j++;
        /* layers count from 0, as in --split and solve's table */
        n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", i);
        if (j > i)
            n += (size_t)snprintf(buf + n, len - n, "-%d", j);
    }
    if (!buf[0])
        snprintf(buf, len, "-");
}

/* A GPU's layer list in `room` columns: whole ranges only, an ellipsis
 * when some do not fit. Returns false, `out` empty, when not even the
 * first range fits (a label before it would stand alone). */
static bool layers_fit(const char *lay, int room, char *out, size_t len)
{
    out[0] = '\0';
    if (text_cols(lay) <= room) {
        snprintf(out, len, "%s", lay);
        return true;
    }
    int dots = text_cols(G->dots);
    const char *cut = NULL;
    for (const char *p = lay; *p && p - lay <= room - dots; p++)
        if (*p == ',')
            cut = p;
    if (!cut)
        return false;
    snprintf(out, len, "%.*s,%s", (int)(cut - lay), lay, G->dots);
    return true;
}

static void draw_memory(struct tui *t, const struct layout *ly)
{
    bool updating;
    const struct tui_row *r = tui_view_row(t, &updating);
    const struct plan *pl = r->plan;
    const struct problem *pb = r->tp ? r->tp->pb : t->cur->pb;
    int P = pl ? pl->P : pb->P;
    if (t->gpu >= t->cur->pb->P)
        t->gpu = t->cur->pb->P - 1;
    int sel = t->gpu < P ? t->gpu : P - 1;

    int digits = 1;
    for (int v = P - 1; v >= 10; v /= 10)
        digits++;
    /* label, " [", bar, "] ", text, " ", period, " 100%" */
    int text = 15;
    int rest = COLS - digits - 2 - 2 - text - 1 - 5;
    /* past 48 columns a longer bar says no more: the room goes to the
     * period and then to the GPU's layers */
    int barw = rest * 2 / 5 < 48 ? rest * 2 / 5 : 48, sched = rest - barw;
    int layers_w = 0;
    if (sched > 90) {
        layers_w = sched - 90;
        sched = 90;
    }

    int g0 = 0;
    if (P > ly->ngpu) {
        g0 = sel - ly->ngpu / 2;
        if (g0 > P - ly->ngpu)
            g0 = P - ly->ngpu;
        if (g0 < 0)
            g0 = 0;
    }
    char left[200], right[96], b1[32];
    const char *const names[4] = { "weights", "activ.", "buffers", "reserved" };
    int n = snprintf(left, sizeof left, "memory");
    /* the keys that show the others: [ and ] */
    if (P > ly->ngpu && ly->ngpu == 1)
        n += snprintf(left + n, sizeof left - (size_t)n, " (%s %d of %d; [ ])",
                      problem_gpu_word(pb, false), g0, P);
    else if (P > ly->ngpu)
        n += snprintf(left + n, sizeof left - (size_t)n, " (%s %d-%d of %d; [ ])",
                      problem_gpu_word(pb, true), g0, g0 + ly->ngpu - 1, P);
    char legend[160];
    snprintf(legend, sizeof legend, "%s %s %s %s %s %s %s %s", G->seg[0], names[0], G->seg[1],
             names[1], G->seg[2], names[2], G->seg[3], names[3]);
    if (pl)
        snprintf(right, sizeof right, "period T = %s", fmt_time(pl->T, b1, sizeof b1));
    else
        right[0] = '\0';
    if (pl && !rule_fits(left, right))
        snprintf(right, sizeof right, "T = %s", fmt_time(pl->T, b1, sizeof b1));
    if (text_cols(left) + text_cols(legend) + text_cols(right) + 12 <= COLS)
        snprintf(left + n, sizeof left - (size_t)n, "  %s", legend);
    rule(ly->mem_rule, left, roles[R_TITLE], right, roles[R_NORMAL]);
    if (!pl)
        return;

    double scale = 0;
    for (int p = 0; p < P; p++)
        scale = fmax(scale, fmax(pl->gpus[p].total, pl->gpus[p].cap));
    if (!(scale > 0))
        scale = 1;
    for (int k = 0; k < ly->ngpu && g0 + k < P; k++) {
        int p = g0 + k;
        const struct plan_gpu *g = &pl->gpus[p];
        struct pen pn = { ly->gpu0 + k, 0, COLS };
        putf(&pn, p == sel ? roles[R_SEL] : roles[R_NORMAL], "%*d", digits, p);
        put(&pn, roles[R_NORMAL], " [");
        draw_bar(&pn, g, scale, barw);
        put(&pn, roles[R_NORMAL], "] ");
        bool over = g->total > g->cap + 0.5;
        char pair[48];
        fmt_mem_pair(g->total, g->cap, pair, sizeof pair);
        int x0 = pn.x;
        put(&pn, over ? roles[R_BAD] : roles[R_NORMAL], pair);
        put(&pn, roles[R_BAD], over ? " !" : "");
        pad_to(&pn, x0 + text);
        put(&pn, roles[R_NORMAL], " ");
        draw_period(&pn, pl, pb, p, sched);
        putf(&pn, roles[R_NORMAL], " %3.0f%%", pl->T > 0 ? 100.0 * g->load_ms / pl->T : 0.0);
        if (layers_w > 8) {
            char lay[256], fit[256];
            gpu_layers(pl, p, lay, sizeof lay);
            /* less the line's last column; no label without a range */
            if (layers_fit(lay, pn.end - 1 - pn.x - 9, fit, sizeof fit)) {
                put(&pn, roles[R_DIM], "  layers ");
                put(&pn, roles[R_DIM], fit);
            }
        }
    }
}

static void draw_plans(struct tui *t, const struct layout *ly, int shown)
{
    const struct problem *pb = t->cur->pb;
    bool ilp_bound;
    double bound = tui_objective_bound(t, &ilp_bound);
    char right[3][160], b1[32], b2[32];
    double T_lb = problem_lower_bound(pb);
    const char *who = ilp_bound ? " (ILP)" : "";
    if (pb->schedule == SPEC_SCHEDULE_PIPEDREAM) {
        snprintf(right[0], sizeof right[0], "lower bound T %s %s%s", G->ge,
                 fmt_time(fmax(T_lb, bound), b1, sizeof b1), who);
        snprintf(right[1], sizeof right[1], "T %s %s%s", G->ge, b1, who);
    } else {
        snprintf(right[0], sizeof right[0], "lower bound T %s %s, iteration %s %s%s", G->ge,
                 fmt_time(T_lb, b1, sizeof b1), G->ge, fmt_time(bound, b2, sizeof b2), who);
        snprintf(right[1], sizeof right[1], "T %s %s, iteration %s %s%s", G->ge, b1, G->ge,
                 b2, who);
    }
    snprintf(right[2], sizeof right[2], "bound %s%s", fmt_time(bound, b2, sizeof b2), who);
    int k = 0;
    while (k < 2 && !rule_fits("plans", right[k]))
        k++;
    rule(ly->plans_rule, "plans", roles[R_TITLE], right[k], roles[R_NORMAL]);

    /* columns: marker, name, period, iteration, samples/s, memory, gap, note;
     * a narrow terminal loses samples/s and the note, whole. The note's
     * longest word ("so far", after a blank) ends at the last column at 80
     * and at 64 (it was cut to "so fa"): at 64 and 65 the gap moves one
     * left, into the blank after the longest memory ("needs 1023 GiB") */
    int c_name = 2, c_period = 17, c_iter = 28, c_thr = 39, c_mem = 50, c_gap = 66, c_note = 73;
    if (COLS < 80) {
        c_period = 16;
        c_iter = 26;
        c_thr = -1;
        c_mem = 37;
        c_gap = COLS >= 66 ? 52 : 51;
        c_note = COLS >= 66 ? 59 : COLS >= 64 ? 57 : -1;
    }
    /* T/T_lb and the peak GPU when the longest they can be fits with
     * "so far" after it (the GPU's number as long as the last's, the
     * size as "65536 PiB"), whatever the rows hold: no column comes and
     * goes as the results come in */
    char note[64];
    int note_w = snprintf(note, sizeof note, "  %5s  %d (%s)  ", "1.000", pb->P - 1,
                          "65536 PiB");
    bool wide = c_note >= 0 && c_note + note_w + 6 <= COLS;
    if (ly->header >= 0) {
        struct pen pn = { ly->header, 0, COLS };
        pad_to(&pn, c_name);
        put(&pn, roles[R_DIM], "plan");
        pad_to(&pn, c_period + 3);
        put(&pn, roles[R_DIM], "period");
        pad_to(&pn, c_iter);
        put(&pn, roles[R_DIM], "iteration");
        if (c_thr >= 0) {
            pad_to(&pn, c_thr);
            put(&pn, roles[R_DIM], "samples/s");
        }
        pad_to(&pn, c_mem);
        put(&pn, roles[R_DIM], "memory");
        pad_to(&pn, c_gap + 3);
        put(&pn, roles[R_DIM], "gap");
        if (wide) {
            pad_to(&pn, c_note + 1);
            putf(&pn, roles[R_DIM], "T/T_lb  peak %s", problem_gpu_word(pb, false));
        }
    }
    int best = tui_best_row(t);
    for (int i = 0; i < t->nrows; i++) {
        const struct tui_row *r = &t->rows[i];
        const struct plan *pl = r->plan;
        bool is_shown = i == shown;
        attr_t base = is_shown ? roles[R_SEL] : roles[R_NORMAL];
        attr_t fig = r->stale ? (base | A_DIM) : base;
        struct pen pn = { ly->rows + i, 0, COLS };
        if (is_shown) {
            attrset(base);
            mvhline(pn.y, 0, ' ', COLS);
        }
        put(&pn, base, is_shown ? G->mark : " ");
        pad_to(&pn, c_name);
        put(&pn, base, row_title(r));
        char buf[64];
        if (!pl) {
            pad_to(&pn, c_period);
            const char *what;
            attr_t a = base | A_DIM;
            if (r->status == PLAN_ERROR && r->done) {
                what = "error";
                a = is_shown ? base : roles[R_BAD];
            } else if (i == t->ilp && r->done && r->status == PLAN_INFEASIBLE) {
                what = "infeasible: no plan fits (proven)";
                a = is_shown ? base : roles[R_BAD];
            } else if (i == t->ilp && r->started) {
                what = "solving; no plan better than the baselines yet";
            } else if (i == t->ilp && r->done) {
                what = "no plan";
            } else {
                what = "planning";
            }
            snprintf(buf, sizeof buf, "%s%s", what, !r->done && r->status != PLAN_ERROR ? G->dots : "");
            put(&pn, a, buf);
            if (r->status == PLAN_ERROR && r->message[0]) {
                char m[400], l[400];
                text_clean(r->message, m, sizeof m, t->unicode);
                put(&pn, a, ": ");
                /* cut at a word with an ellipsis, not mid-word at the edge */
                wrap_line(m, pn.end - pn.x, true, l, sizeof l);
                put(&pn, a, l);
            }
            continue;
        }
        /* a blank after the longest name ("param-balanced") and between */
        fmt_time_fit(pl->T, COLS < 80 ? 8 : 9, buf, sizeof buf);
        pad_to(&pn, c_period + 9 - text_cols(buf));
        put(&pn, fig, buf);
        fmt_time_fit(pl->iteration, 9, buf, sizeof buf);
        pad_to(&pn, c_iter + 9 - text_cols(buf));
        put(&pn, fig, buf);
        if (c_thr >= 0) {
            units_format_rate(pl->throughput, buf, sizeof buf);
            pad_to(&pn, c_thr + 9 - text_cols(buf));
            put(&pn, fig, buf);
        }
        pad_to(&pn, c_mem);
        if (r->stale) {
            /* whether it fits was judged against the caps before */
            put(&pn, fig, G->dots);
        } else if (pl->fits) {
            put(&pn, is_shown ? fig : (r->stale ? roles[R_DIM] : roles[R_GOOD]), "fits");
        } else {
            char b[32];
            snprintf(buf, sizeof buf, "needs %s",
                     units_format_size_up(pl->peak_memory, b, sizeof b));
            put(&pn, is_shown ? fig : (r->stale ? roles[R_DIM] : roles[R_BAD]), buf);
        }
        if (!r->stale)
            fmt_gap(tui_row_gap(t, pl), buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "%s", G->dots);
        pad_to(&pn, c_gap + 6 - text_cols(buf));
        put(&pn, fig, buf);
        if (c_note < 0)
            continue;
        pad_to(&pn, c_note);
        if (wide) {
            char b[32], ratio[16] = "    -";
            /* a network without compute has T_lb = 0: no ratio to show */
            if (problem_lower_bound(pb) > 0)
                snprintf(ratio, sizeof ratio, "%5s",
                         units_format_ratio(pl->T / problem_lower_bound(pb), b, sizeof b));
            putf(&pn, fig, "  %s  %d (%s)", ratio, pl->peak_gpu,
                 pl->fits ? fmt_size(pl->gpus[pl->peak_gpu].total, b, sizeof b)
                 : units_format_size_up(pl->gpus[pl->peak_gpu].total, b, sizeof b));
            put(&pn, fig, "  ");
        } else {
            put(&pn, fig, " ");
        }
        /* nothing fits: the plan on show needs the least memory, which
         * the strip's title says; "best" it is not */
        if (i == best && !r->stale && pl->fits)
            put(&pn, is_shown ? base : roles[R_GOOD], "best");
        else if (i == t->ilp && r->started)
            put(&pn, base | A_DIM, "so far");
    }
}

/* The first line of `s` (cleaned text) that fits in `cols` columns, cut
 * at a space (a word longer than the line is cut where it must be); on
 * the last line, what does not fit ends in an ellipsis. Returns the rest. */
static const char *wrap_line(const char *s, int cols, bool last, char *out, size_t outlen)
{
    while (*s == ' ')
        s++;
    if (text_cols(s) <= cols) {
        snprintf(out, outlen, "%s", s);
        return s + strlen(s);
    }
    const char *dots = G->dots;
    int room = last ? cols - text_cols(dots) : cols;
    const char *p = s, *cut = NULL;
    for (int c = 0; *p && c < room; c++) {
        if (*p == ' ')
            cut = p;
        p = cp_next(p);
    }
    if (*p == ' ')
        cut = p;
    if (!cut || cut == s)
        cut = p;
    snprintf(out, outlen, "%.*s%s", (int)(cut - s), s, last ? dots : "");
    return cut;
}

/* "ILP 12 blocks (auto), limit 30 s: running 3.1 s; best 1.90 s, bound
 * 1.40 s (gap 26.3%), block bound 1.52 s": on one line when it fits, else
 * the second half on y2 (when there is one). What does not fit is left
 * out in whole pieces, the state and the bound last. */
static void draw_ilp_line(struct tui *t, int y, int y2)
{
    const struct tui_row *r = &t->rows[t->ilp];
    const struct problem *pb = t->cur->pb;
    char b1[32], b2[32], b3[32], b4[32], st[64], head[160], state[400];
    attr_t a;
    const char *sh = ilp_short(t, &a, st, sizeof st);
    int nb = r->blocks > 0 ? r->blocks : tui_blocks(t);
    char blocks[48];
    if (nb >= pb->L)
        snprintf(blocks, sizeof blocks, "every layer");
    else
        snprintf(blocks, sizeof blocks, "%d blocks", nb);
    char lim[40];
    ilp_limit(t, lim, sizeof lim);
    snprintf(head, sizeof head, "%s%s, limit %s: ", blocks, t->set.k.blocks < 0 ? " (auto)" : "",
             lim);
    if (r->started) {
        snprintf(state, sizeof state, "running %.1f s", ilp_elapsed(t));
    } else if (!r->done) {
        /* what the worker runs before it: the baselines and your split,
         * then, when no baseline's plan fits, the search of the least cap */
        bool yours = t->user >= 0 && !t->rows[t->user].done;
        if (tui_baselines_owed(t))
            snprintf(state, sizeof state, "waiting for the baselines%s",
                     yours ? " and your split" : "");
        else if (yours)
            snprintf(state, sizeof state, "waiting for your split to be judged");
        else if (t->cap_owed)
            snprintf(state, sizeof state, "waiting for the least cap that fits");
        else
            snprintf(state, sizeof state, "starting");
    } else if (r->status == PLAN_ERROR) {
        char m[320];
        text_clean(r->message[0] ? r->message : "failed", m, sizeof m, t->unicode);
        snprintf(state, sizeof state, "error: %s", m);
    } else if (r->status == PLAN_TIMEOUT) {
        snprintf(state, sizeof state, "stopped at the limit after %.1f s", r->seconds);
    } else {
        snprintf(state, sizeof state, "%s in %.1f s", sh, r->seconds);
    }
    /* the pieces after the state, most wanted first */
    bool ilp_bound;
    double bound = tui_objective_bound(t, &ilp_bound);
    char best[64] = "", bnd[64] = "", gap[64] = "", blk[64] = "";
    if (r->status != PLAN_ERROR || !r->done) {
        /* a plan that does not fit is there to say what it would need */
        bool fits = r->plan && r->plan->fits;
        if (fits)
            snprintf(best, sizeof best, "best %s", fmt_time(r->plan->objective, b1, sizeof b1));
        else if (r->plan && r->done)
            snprintf(best, sizeof best, "no plan fits");
        else if (r->started)
            snprintf(best, sizeof best, "no plan yet");
        snprintf(bnd, sizeof bnd, "bound %s", fmt_time(bound, b2, sizeof b2));
        if (fits)
            snprintf(gap, sizeof gap, " (gap %s)", fmt_gap(tui_row_gap(t, r->plan), b3, sizeof b3));
        /* proven for the blocks only: never shown as a bound on the network */
        if (isfinite(r->block_bound) && nb < pb->L)
            snprintf(blk, sizeof blk, "block bound %s", fmt_time(r->block_bound, b4, sizeof b4));
    }
    if (r->done && r->status == PLAN_ERROR) {
        /* the reason at words over both lines, an ellipsis only when it
         * is longer than they are */
        int hc = text_cols(head);
        if (COLS - 4 - hc < 24)
            hc = 0;             /* the head would leave the reason no room */
        char l1[sizeof state], l2[sizeof state];
        const char *rest = wrap_line(state, COLS - 4 - hc, y2 < 0, l1, sizeof l1);
        struct pen pn = { y, 0, COLS };
        put(&pn, roles[R_TITLE], "ILP ");
        put(&pn, roles[R_NORMAL], hc ? head : "");
        put(&pn, a, l1);
        if (y2 >= 0 && *rest) {
            wrap_line(rest, COLS - 4, true, l2, sizeof l2);
            pn = (struct pen){ y2, 4, COLS };
            put(&pn, a, l2);
        }
        return;
    }
    /* drop, in this order, until it fits: the head, the block bound, the gap, the best */
    char tail[256];
    bool use_head = true, use_blk = true, use_gap = true, use_best = true;
    bool two = false;
    for (int step = 0;; step++) {
        size_t n = 0;
        tail[0] = '\0';
        const char *parts[4] = { use_best ? best : "", bnd, use_gap ? gap : "", use_blk ? blk : "" };
        for (int k = 0; k < 4; k++) {
            if (!parts[k][0])
                continue;
            n += (size_t)snprintf(tail + n, sizeof tail - n, "%s%s",
                                  n && k != 2 ? ", " : "", parts[k]);
        }
        int line1 = 4 + (use_head ? text_cols(head) : 0) + text_cols(state);
        int t_cols = text_cols(tail);
        if (!tail[0] || line1 + 2 + t_cols <= COLS)
            break;
        if (y2 >= 0 && line1 <= COLS && 4 + t_cols <= COLS) {
            two = true;
            break;
        }
        if (use_blk && blk[0])
            use_blk = false;
        else if (use_head)
            use_head = false;
        else if (use_gap && gap[0])
            use_gap = false;
        else if (use_best && best[0])
            use_best = false;
        else
            break;
    }
    struct pen pn = { y, 0, COLS };
    put(&pn, roles[R_TITLE], "ILP ");
    put(&pn, roles[R_NORMAL], use_head ? head : "");
    put(&pn, a, state);
    if (tail[0]) {
        if (two)
            pn = (struct pen){ y2, 4, COLS };
        else
            put(&pn, roles[R_NORMAL], "; ");
        put(&pn, roles[R_NORMAL], tail);
    }
    /* what the solver said beside its status (why a plan is not the best,
     * a bound that stayed where it was) on the second line when free */
    if (r->done && r->message[0] && y2 >= 0 && !two) {
        char m[sizeof r->message], l[sizeof r->message];
        text_clean(r->message, m, sizeof m, t->unicode);
        wrap_line(m, COLS - 4, true, l, sizeof l);
        pn = (struct pen){ y2, 4, COLS };
        put(&pn, roles[R_DIM], l);
    }
}

/* Per-GPU figures of the shown plan, when the terminal has the lines. */
static void draw_details(struct tui *t, const struct layout *ly)
{
    bool updating;
    const struct tui_row *r = tui_view_row(t, &updating);
    const struct plan *pl = r->plan;
    char title[128], what[96];
    snprintf(title, sizeof title, "%s of %s", problem_gpu_word(t->cur->pb, true),
             plan_phrase(r->planner, row_title(r), what, sizeof what));
    rule(ly->details, title, roles[R_TITLE], NULL, 0);
    if (!pl && !r->done && ly->ndetails >= 2) {
        struct pen pn = { ly->details + 1, 0, COLS };
        put(&pn, roles[R_DIM], "planning");
        put(&pn, roles[R_DIM], G->dots);
    }
    if (!pl || ly->ndetails < 3)
        return;
    static const char *const heads[] = { "load", "send", "recv", "weights", "activ.",
                                         "buffers", "reserved", "total", "cap" };
    /* whole columns of 10, most telling first, as many as leave "GPU" and
     * "  layers" their room: never a figure without its unit */
    static const int keep[] = { 0, 7, 8, 4, 3, 5, 6, 1, 2 };
    bool shown[9] = { false };
    /* "GPU" or "rank", over numbers as wide */
    const char *word = problem_gpu_word(t->cur->pb, false);
    int idw = (int)strlen(word);
    int room = COLS - idw - 8;
    for (int k = 0; k < 9 && room >= 10; k++) {
        if ((keep[k] == 1 || keep[k] == 2) && COLS < 110)
            continue;
        shown[keep[k]] = true;
        room -= 10;
    }
    struct pen pn = { ly->details + 1, 0, COLS };
    put(&pn, roles[R_DIM], word);
    for (int c = 0; c < 9; c++) {
        if (!shown[c])
            continue;
        pad_to(&pn, pn.x + 10 - text_cols(heads[c]));
        put(&pn, roles[R_DIM], heads[c]);
    }
    put(&pn, roles[R_DIM], "  layers");
    int rows = ly->ndetails - 2, P = pl->P;
    int g0 = 0;
    if (P > rows) {
        g0 = t->gpu - rows / 2;
        if (g0 > P - rows)
            g0 = P - rows;
        if (g0 < 0)
            g0 = 0;
    }
    for (int k = 0; k < rows && g0 + k < P; k++) {
        int p = g0 + k;
        const struct plan_gpu *g = &pl->gpus[p];
        pn = (struct pen){ ly->details + 2 + k, 0, COLS };
        putf(&pn, p == t->gpu ? roles[R_SEL] : roles[R_NORMAL], "%*d", idw, p);
        double v[9] = { g->load_ms, g->send_ms, g->recv_ms, g->weights, g->activations,
                        g->buffers, g->reserved, g->total, g->cap };
        for (int c = 0; c < 9; c++) {
            if (!shown[c])
                continue;
            char b[32];
            if (c < 3)
                fmt_time(v[c], b, sizeof b);
            else if (c == 7 && g->total > g->cap)
                units_format_size_up(v[c], b, sizeof b);   /* as its bar and "needs" */
            else
                fmt_size(v[c], b, sizeof b);
            pad_to(&pn, pn.x + 10 - text_cols(b));
            put(&pn, c == 7 && g->total > g->cap + 0.5 ? roles[R_BAD] : roles[R_NORMAL], b);
        }
        char lay[512], fit[512];
        gpu_layers(pl, p, lay, sizeof lay);
        put(&pn, roles[R_NORMAL], "  ");
        if (layers_fit(lay, pn.end - 1 - pn.x, fit, sizeof fit))
            put(&pn, roles[R_NORMAL], fit);
    }
}

struct keyhint {
    const char *key, *label;
    int prio;                    /* lower stays longer when space is short */
};

/* The key hints that fit in the line's first `cols` columns. */
static void draw_keys_in(const struct tui *t, int y, int cols)
{
    static const struct keyhint main_keys[] = {
        { "g/G", "GPUs", 1 }, { "m/M", "cap", 1 }, { "b/B", "micro-batches", 2 },
        { "s", "schedule", 2 }, { "c", "layout", 3 }, { "[]{}", "GPU cap", 5 },
        { "k/K", "blocks", 5 }, { "t/T", "limit", 5 }, { "u", "undo", 4 },
        { "r/R", "reload", 6 }, { "e", "export", 3 }, { "p", "load plan", 4 },
        { "S", "your split", 6 }, { "F", "frontier", 3 },
        { "?", "help", 0 }, { "q", "quit", 0 },
    };
    static const struct keyhint prompt_keys[] = {
        { "Enter", "write", 0 }, { "Esc", "cancel", 0 }, { "^U", "clear", 1 },
    };
    static const struct keyhint load_keys[] = {
        { "Enter", "load", 0 }, { "Esc", "cancel", 0 }, { "^U", "clear", 1 },
    };
    static const struct keyhint split_keys[] = {
        { "Enter", "judge", 0 }, { "Esc", "cancel", 0 }, { "^U", "clear", 1 },
    };
    static const struct keyhint confirm_keys[] = {
        { "y", "overwrite", 0 }, { "n", "pick another name", 0 },
    };
    /* the digits that pick a format: as many as there are formats */
    char digits[16];
    snprintf(digits, sizeof digits, "1-%d", export_count());
    const struct keyhint format_keys[] = {
        { digits, "format", 0 }, { "Enter", "highlighted", 0 }, { "Esc", "cancel", 0 },
    };
    static const struct keyhint frontier_keys[] = {
        { "Left/Right", "cap", 0 }, { "Enter", "apply", 0 }, { "g/G", "GPUs", 1 },
        { "s", "schedule", 1 }, { "b/B", "micro-batches", 2 }, { "c", "layout", 3 },
        { "?", "help", 0 }, { "Esc/F/q", "back", 0 },
    };
    static const struct keyhint help_keys[] = {
        { "Up/Down", "scroll", 0 }, { "PgUp/PgDn/Space", "page", 1 }, { "any other key", "back", 0 },
    };
    /* tensor-parallel networks: the knob counts pipeline ranks */
    struct keyhint knobs[sizeof main_keys / sizeof main_keys[0]];
    struct keyhint front[sizeof frontier_keys / sizeof frontier_keys[0]];
    memcpy(knobs, main_keys, sizeof knobs);
    knobs[0].label = problem_gpu_word(t->cur ? t->cur->pb : NULL, true);
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        if (strcmp(knobs[i].key, "[]{}") == 0 && t->cur && t->cur->pb && t->cur->pb->tp > 1)
            knobs[i].label = "rank cap";
    const struct keyhint *k = knobs;
    int n = (int)(sizeof main_keys / sizeof main_keys[0]);
    if (t->mode == MODE_PROMPT) {
        k = t->prompt == PROMPT_LOAD ? load_keys : t->prompt == PROMPT_SPLIT ? split_keys
            : prompt_keys;
        n = 3;
    } else if (t->mode == MODE_CONFIRM) {
        k = confirm_keys;
        n = 2;
    } else if (t->mode == MODE_HELP) {
        k = help_keys;
        n = 3;
    } else if (t->mode == MODE_FORMAT) {
        k = format_keys;
        n = 3;
    } else if (t->mode == MODE_FRONTIER) {
        memcpy(front, frontier_keys, sizeof front);
        front[2].label = problem_gpu_word(t->cur ? t->cur->pb : NULL, true);
        k = front;
        n = (int)(sizeof frontier_keys / sizeof frontier_keys[0]);
    }
    /* the most hints that fit, with two spaces between them or else one */
    int limit = 9, sep = 2;
    for (; limit >= 0; limit--) {
        int w[3] = { 0, 0, 0 };
        for (int i = 0; i < n; i++)
            if (k[i].prio <= limit)
                for (int s = 1; s <= 2; s++)
                    w[s] += text_cols(k[i].key) + 1 + text_cols(k[i].label) + s;
        if (w[2] <= cols + 2)
            break;
        if (w[1] <= cols + 1) {
            sep = 1;
            break;
        }
    }
    struct pen pn = { y, 0, cols };
    for (int i = 0; i < n; i++) {
        if (k[i].prio > limit)
            continue;
        put(&pn, roles[R_KEY], k[i].key);
        put(&pn, roles[R_NORMAL], " ");
        put(&pn, roles[R_NORMAL], k[i].label);
        put(&pn, roles[R_NORMAL], sep == 2 ? "  " : " ");
    }
}

static void draw_keys(const struct tui *t, int y)
{
    draw_keys_in(t, y, COLS);
}

static void draw_status(struct tui *t, int y, int lines)
{
    struct pen pn = { y, 0, COLS };
    char buf[1200];
    if (t->mode == MODE_FORMAT) {
        /* items wrap onto the lines there are, whole; with too few lines
         * the ones around the highlighted one show, "<" / ">" saying
         * there are more */
        const char *label = COLS < 70 ? "Export:" : "Export as:";
        int n = export_count(), first = 0, last = n - 1;
        for (;;) {
            int line = 0, x = text_cols(label) + (first > 0 ? 2 : 0);
            last = first - 1;
            for (int i = first; i < n; i++) {
                char item[64];
                format_item(i, item, sizeof item);
                int w = text_cols(item) + (i + 1 < n ? 2 : 0);   /* room for " >" */
                if (x + w > COLS) {
                    if (++line >= lines)
                        break;
                    x = 0;
                }
                x += text_cols(item);
                last = i;
            }
            if (last >= t->format_sel || first >= t->format_sel)
                break;
            first++;
        }
        put(&pn, roles[R_VALUE], label);
        if (first > 0)
            put(&pn, roles[R_NORMAL], " <");
        int line = 0;
        for (int i = first; i <= last; i++) {
            char item[64];
            format_item(i, item, sizeof item);
            int w = text_cols(item) + (i + 1 < n ? 2 : 0);
            if (pn.x + w > COLS && line + 1 < lines) {
                line++;
                pn = (struct pen){ y + line, 0, COLS };
            }
            char num[16];
            snprintf(num, sizeof num, " %d", i + 1);
            put(&pn, roles[R_KEY], num);
            put(&pn, roles[R_NORMAL], " ");
            put(&pn, i == t->format_sel ? roles[R_VALUE] | A_REVERSE : roles[R_NORMAL],
                export_format_at(i)->name);
        }
        if (last < n - 1)
            put(&pn, roles[R_NORMAL], " >");
        return;
    }
    if (t->mode == MODE_PROMPT || t->mode == MODE_CONFIRM) {
        char path[sizeof t->input + 100], what[96], shown[TUI_PATH_SHOWN + 8];
        char typed[sizeof t->input];
        /* a pasted split's line breaks, kept for its comments, read as blanks */
        snprintf(typed, sizeof typed, "%s", t->input);
        text_breaks_blank(typed);
        text_clean(t->mode == MODE_CONFIRM ? tui_path_short(t->input, shown, sizeof shown)
                                           : typed, path, sizeof path, t->unicode);
        if (t->mode == MODE_CONFIRM) {
            put(&pn, roles[R_WARN], path);
            put(&pn, roles[R_WARN], " exists. Overwrite it? (y/n)");
            return;
        }
        if (t->input_cut)   /* said before Enter, which will not take it */
            snprintf(buf, sizeof buf, "Too long, Esc: ");
        else if (t->prompt == PROMPT_LOAD)
            snprintf(buf, sizeof buf, "Load a plan file: ");
        else if (t->prompt == PROMPT_SPLIT)
            snprintf(buf, sizeof buf, "Your split (as --split): ");
        else
            snprintf(buf, sizeof buf, "Export %s (%s) to: ",
                     plan_phrase(t->export_res.planner, planner_title(t->export_res.planner),
                                 what, sizeof what),
                     t->export_fmt ? t->export_fmt->name : "json");
        put(&pn, roles[R_VALUE], buf);
        /* keep the end of a long name (where the typing happens) visible */
        const char *p = path;
        while (text_cols(p) > pn.end - pn.x - 1)
            p = cp_next(p);
        put(&pn, roles[R_NORMAL], p);
        move(y, pn.x < COLS ? pn.x : COLS - 1);
        return;
    }
    if (t->msg_kind == MSG_NONE)
        return;
    text_clean(t->msg, buf, sizeof buf, t->unicode);
    attr_t a = t->msg_kind == MSG_ERROR ? roles[R_BAD] : roles[R_NORMAL];
    const char *p = buf;
    for (int k = 0; k < lines && *p; k++) {
        char line[1200];
        p = wrap_line(p, COLS, k == lines - 1, line, sizeof line);
        pn = (struct pen){ y + k, 0, COLS };
        put(&pn, a, line);
    }
}

/* ---- the frontier view (F) ---- */

/* Columns of the objective labels left of the plot, and the lines around it. */
#define FR_YLABEL 9

struct fr_cell {
    unsigned char dots;          /* braille dots (UTF-8), or 1 for a curve cell (ASCII) */
    signed char owner;           /* planner of the last curve through it, -1 */
    const char *mark;            /* a glyph over it, or NULL */
    signed char mark_owner;
};

/* A planner's letter: its title's first letter not taken by an earlier one. */
static void fr_letters(const struct tui *t, char *letter)
{
    const struct frontier *f = &t->front.fr;
    for (int i = 0; i < f->nplanner; i++) {
        const char *s = f->planner[i] == t->rows[t->ilp].planner ? "ILP"
                                                                 : planner_title(f->planner[i]);
        letter[i] = '?';
        for (const char *p = s; *p; p++) {
            char c = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
            bool taken = !(c >= 'A' && c <= 'Z');
            for (int j = 0; j < i && !taken; j++)
                taken = letter[j] == c;
            if (!taken) {
                letter[i] = c;
                break;
            }
        }
    }
}

static attr_t fr_role(const struct tui *t, int i)
{
    static const enum role r[] = { R_GOOD, R_WARN, R_WEIGHTS, R_ACTIV, R_RULE, R_RESERVED };
    if (t->front.fr.planner[i] == t->rows[t->ilp].planner)
        return roles[R_VALUE];
    return roles[r[i % (int)(sizeof r / sizeof r[0])]];
}

int tui_frontier_points(void)
{
    int pw = COLS - FR_YLABEL - 2;
    int n = pw / 2;
    return n < 16 ? 16 : n > 48 ? 48 : n;
}

/* Lines of the panel under the plot: planners in columns of `*w`. */
static int fr_panel_rows(int np, int *ncol, int *w)
{
    *w = COLS >= 80 ? 40 : 30;
    *ncol = COLS / *w > 0 ? COLS / *w : 1;
    return (np + *ncol - 1) / *ncol;
}

static void fr_line(struct fr_cell *c, int pw, int ph, bool dots, int x0, int y0, int x1, int y1,
                    int owner)
{
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        int cx = dots ? x0 / 2 : x0, cy = dots ? y0 / 4 : y0;
        if (cx >= 0 && cx < pw && cy >= 0 && cy < ph) {
            struct fr_cell *k = &c[cy * pw + cx];
            if (dots) {
                static const unsigned char bit[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
                                                         { 0x08, 0x10, 0x20, 0x80 } };
                k->dots |= bit[x0 % 2][y0 % 4];
            } else {
                k->dots = 1;
            }
            k->owner = (signed char)owner;
        }
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static void fr_mark(struct fr_cell *c, int pw, int ph, int x, int y, const char *g, int owner)
{
    if (x >= 0 && x < pw && y >= 0 && y < ph) {
        c[y * pw + x].mark = g;
        c[y * pw + x].mark_owner = (signed char)owner;
    }
}

/* The words for a point: its objective and what it is. */
static const char *fr_point_text(const struct tui *t, int i, const struct frontier_point *p,
                                 char *obj, size_t len)
{
    bool solver = t->front.fr.planner[i] == t->rows[t->ilp].planner;
    snprintf(obj, len, "-");
    if (!p->done)
        return "";
    if (p->fits)
        fmt_time(p->objective, obj, len);
    if (p->status == PLAN_ERROR)
        return "error";
    if (!solver)
        return p->fits ? "fits" : "no fit";
    if (p->status == PLAN_OPTIMAL)
        return "optimal";
    if (p->status == PLAN_INFEASIBLE)
        return "none fits";
    return p->fits ? "best found" : "no fit found";
}

static void fr_progress(const struct tui *t, char *buf, size_t len)
{
    const struct tui_frontier *f = &t->front;
    int np = 0, k = 0;
    for (int i = 0; i < f->fr.nplanner; i++)
        if (f->fr.planner[i] != t->rows[t->ilp].planner)
            np++;
    switch (f->phase) {
    case FR_MIN_CAP:
    case FR_PEAKS:
        snprintf(buf, len, "computing the range");
        break;
    case FR_BASELINES:
        snprintf(buf, len, "computing %d/%d", f->fr.ncap > 0 && np > 0
                 ? frontier_done(&f->fr, -1) / np : 0, f->fr.ncap);
        break;
    case FR_ILP:
        k = frontier_done(&f->fr, frontier_planner(&f->fr, t->rows[t->ilp].planner));
        snprintf(buf, len, "ILP %d/%d", k, f->fr.ncap);
        break;
    case FR_DONE:
        snprintf(buf, len, "done");
        break;
    default:
        snprintf(buf, len, "stopped");
        break;
    }
}

void tui_frontier_draw(struct tui *t)
{
    const struct tui_frontier *f = &t->front;
    const struct frontier *fr = &f->fr;
    const struct problem *pb = t->cur->pb;
    bool ilp_obj = pb->schedule == SPEC_SCHEDULE_1F1B;
    char name[128], left[5][300], right[64], b1[32], b2[32];
    text_clean(pb->network, name, sizeof name, t->unicode);
    const char *sched = ilp_obj ? "1f1b" : "pipedream", *what = ilp_obj ? "iteration time"
                                                                         : "period";
    /* the most that fits */
    const char *gpus = problem_gpu_word(pb, pb->P != 1);
    /* every knob the curves depend on (c and b redraw them too) */
    const char *lay = pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any layout";
    snprintf(left[0], sizeof left[0], "frontier  %s  %d %s  %s  %ld micro-batches  %s: %s by "
             "memory cap", name, pb->P, gpus, sched, pb->m, lay, what);
    snprintf(left[1], sizeof left[1], "frontier  %s  %d %s  %s  m %ld  %s  %s", name, pb->P,
             gpus, sched, pb->m, lay, what);
    snprintf(left[2], sizeof left[2], "frontier  %s  %d %s  %s  m %ld  %s", name, pb->P, gpus,
             sched, pb->m, lay);
    snprintf(left[3], sizeof left[3], "frontier  %s  %s", name, sched);
    snprintf(left[4], sizeof left[4], "frontier");
    fr_progress(t, right, sizeof right);
    int lk = 0;
    while (lk < 4 && !rule_fits(left[lk], right))
        lk++;
    rule(0, left[lk], roles[R_TITLE], right, f->phase == FR_DONE ? roles[R_GOOD] : roles[R_WARN]);

    int ncol, cw;
    int np = fr->nplanner;
    int prow = fr_panel_rows(np, &ncol, &cw);
    /* title, axis, cap labels, legend, panel header + rows, keys */
    int ph = LINES - 6 - prow, pw = COLS - FR_YLABEL - 2;
    if (ph < 2 || pw < 4)
        return;
    int top = 1, x0 = FR_YLABEL + 1;
    double cur = 0;
    for (int p = 0; p < pb->P; p++)
        cur = fmax(cur, pb->cap[p]);
    char letter[FRONTIER_MAX_PLANNERS];
    fr_letters(t, letter);

    /* the axes */
    attrset(roles[R_DIM]);
    for (int y = 0; y < ph; y++)
        mvaddstr(top + y, x0 - 1, G->vbar);
    for (int x = x0 - 1; x < x0 + pw; x++)
        mvaddstr(top + ph, x, x == x0 - 1 ? (t->unicode ? "\u2514" : "+") : G->hline);

    double lo = 0, hi = 0;
    bool any = fr->ncap > 0 && frontier_range(fr, &lo, &hi);
    if (any) {
        struct pen pn;
        char lab[32];
        int rows[3] = { 0, ph - 1, (ph - 1) / 2 };
        double vals[3] = { hi, lo, (lo + hi) / 2 };
        for (int k = 0; k < (hi > lo ? 3 : 1); k++) {
            if (k == 2 && ph < 5)
                break;
            fmt_time(k == 0 && !(hi > lo) ? lo : vals[k], lab, sizeof lab);
            pn = (struct pen){ top + (hi > lo ? rows[k] : (ph - 1) / 2), 0, x0 - 1 };
            pn.x = x0 - 2 - (int)strlen(lab) > 0 ? x0 - 2 - (int)strlen(lab) : 0;
            put(&pn, roles[R_NORMAL], lab);
        }
    }

    /* the curves on a canvas of cells (braille: 2x4 dots each) */
    struct fr_cell *c = calloc((size_t)pw * (size_t)ph, sizeof *c);
    if (c && fr->ncap > 0) {
        bool dots = t->unicode;
        int dw = dots ? 2 * pw : pw, dh = dots ? 4 * ph : ph;
        /* the cell of a point: the one its dot lands in */
#define FR_CELL_X(k) (frontier_col(fr, (k), dw) / (dots ? 2 : 1))
#define FR_CELL_Y(v) (frontier_row((v), lo, hi, dh) / (dots ? 4 : 1))
        for (int i = 0; i < pw * ph; i++)
            c[i].owner = c[i].mark_owner = -1;
        /* the current cap, under the curves */
        int cc = frontier_cap_col(fr, cur, dw);
        cc = cc < 0 ? -1 : cc >= dw ? pw : dots ? cc / 2 : cc;
        if (cc >= 0 && cc < pw)
            for (int y = 0; y < ph; y++)
                fr_mark(c, pw, ph, cc, y, t->unicode ? "\u2506" : ":", -2);
        /* baselines first, the ILP on top */
        for (int pass = 0; pass < 2 && any; pass++)
            for (int i = 0; i < np; i++) {
                bool solver = fr->planner[i] == t->rows[t->ilp].planner;
                if (solver != (pass == 1))
                    continue;
                int first = -1;
                for (int k = 0; k < fr->ncap; k++) {
                    const struct frontier_point *p = &fr->pt[i][k];
                    if (!p->done || !p->fits)
                        continue;
                    int x = frontier_col(fr, k, dw), y = frontier_row(p->objective, lo, hi, dh);
                    const struct frontier_point *q = k + 1 < fr->ncap ? &fr->pt[i][k + 1] : NULL;
                    if (q && q->done && q->fits)
                        fr_line(c, pw, ph, dots, x, y, frontier_col(fr, k + 1, dw),
                                frontier_row(q->objective, lo, hi, dh), i);
                    else
                        fr_line(c, pw, ph, dots, x, y, x, y, i);
                    if (first < 0)
                        first = k;
                }
                for (int k = 0; solver && k < fr->ncap; k++) {
                    const struct frontier_point *p = &fr->pt[i][k];
                    if (p->done && p->fits)
                        fr_mark(c, pw, ph, FR_CELL_X(k), FR_CELL_Y(p->objective),
                                p->status == PLAN_OPTIMAL ? (t->unicode ? "\u25cf" : "*")
                                                          : (t->unicode ? "\u25cb" : "o"), i);
                }
                /* where it stops fitting: a cross at the cap below its first fit */
                int s = frontier_stop(fr, i);
                if (s >= 0) {
                    int k = s + 1;
                    while (k < fr->ncap && !(fr->pt[i][k].done && fr->pt[i][k].fits))
                        k++;
                    if (k < fr->ncap)
                        fr_mark(c, pw, ph, FR_CELL_X(s), FR_CELL_Y(fr->pt[i][k].objective),
                                t->unicode ? "\u00d7" : "x", i);
                }
                /* its letter where the curve starts (braille curves share cells) */
                if (dots && first >= 0 && !solver) {
                    int x = FR_CELL_X(first) - 1, y = FR_CELL_Y(fr->pt[i][first].objective);
                    /* marks point at their glyph until the frame is drawn */
                    static char lt[FRONTIER_MAX_PLANNERS][2];
                    lt[i][0] = letter[i];
                    lt[i][1] = '\0';
                    if (x >= 0 && !c[y * pw + x].mark && !c[y * pw + x].dots)
                        fr_mark(c, pw, ph, x, y, lt[i], i);
                }
            }
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                const struct fr_cell *k = &c[y * pw + x];
                char g[8];
                const char *s = NULL;
                attr_t a = roles[R_NORMAL];
                if (k->mark && k->mark_owner != -2) {
                    s = k->mark;
                    a = fr_role(t, k->mark_owner) | A_BOLD;
                } else if (k->dots) {
                    if (dots) {
                        unsigned v = 0x2800u + k->dots;
                        g[0] = (char)(0xe0 | (v >> 12));
                        g[1] = (char)(0x80 | ((v >> 6) & 0x3f));
                        g[2] = (char)(0x80 | (v & 0x3f));
                        g[3] = '\0';
                    } else {
                        g[0] = letter[k->owner];
                        g[1] = '\0';
                    }
                    s = g;
                    a = fr_role(t, k->owner);
                } else if (k->mark) {
                    s = k->mark;
                    a = roles[R_DIM];
                }
                if (s) {
                    attrset(a);
                    mvaddstr(top + y, x0 + x, s);
                }
            }
    }
#undef FR_CELL_X
#undef FR_CELL_Y
    free(c);
    if (!any) {
        char msg[440];
        if (f->phase == FR_FAILED)
            snprintf(msg, sizeof msg, "no frontier: %s", f->why);
        else if (fr->ncap > 0 && f->phase > FR_BASELINES)
            snprintf(msg, sizeof msg, "no plan fits at any of these caps");
        else
            fr_progress(t, msg, sizeof msg);
        char cl[400];
        text_clean(msg, cl, sizeof cl, t->unicode);
        struct pen pn = { top + ph / 2, x0 + 2, COLS };
        int w = text_cols(cl);
        if (w < pw)
            pn.x = x0 + (pw - w) / 2;
        put(&pn, f->phase == FR_FAILED ? roles[R_BAD] : roles[R_DIM], cl);
    }

    /* the cursor on the axis, the caps under it */
    int ya = top + ph, yl = ya + 1;
    if (fr->ncap > 0) {
        int cx = t->unicode ? frontier_col(fr, f->cursor, 2 * pw) / 2
                            : frontier_col(fr, f->cursor, pw);
        attrset(roles[R_SEL]);
        mvaddstr(ya, x0 + cx, t->unicode ? "\u25b2" : "^");
        struct pen pn;
        fmt_size(fr->cap[0], b1, sizeof b1);
        fmt_size(fr->cap[fr->ncap - 1], b2, sizeof b2);
        int lx = x0 + pw - (int)strlen(b2);
        int cc = frontier_cap_col(fr, cur, t->unicode ? 2 * pw : pw);
        cc = cc < 0 ? -1 : cc >= (t->unicode ? 2 * pw : pw) ? pw : t->unicode ? cc / 2 : cc;
        char capl[64], b3[32];
        snprintf(capl, sizeof capl, "%s cap %s", cc < 0 ? G->left : cc >= pw ? G->right : G->vbar,
                 fmt_size(cur, b3, sizeof b3));
        int w = text_cols(capl);
        int px = cc < 0 ? x0 : cc >= pw ? x0 + pw - w : x0 + cc;
        if (px + w > x0 + pw)
            px = x0 + pw - w;
        /* the first cap whole before the current one's label, or not at
         * all ("8.| cap 9.00 GiB" cut it in half) */
        if (x0 + (int)strlen(b1) < px) {
            pn = (struct pen){ yl, x0, COLS };
            put(&pn, roles[R_NORMAL], b1);
        }
        /* the end label yields to the current cap's; with that cap past the
         * axis's end, it stands just before it (the top cap named all the
         * same: "8.00 GiB ... 29.0 GiB > cap 32.0 GiB") */
        if (lx <= px + w && cc >= pw)
            lx = px - 1 - (int)strlen(b2);
        if (lx > px + w || (cc >= pw && lx > x0 + (int)strlen(b1) + 1)) {
            pn = (struct pen){ yl, lx, COLS };
            put(&pn, roles[R_NORMAL], b2);
        }
        pn = (struct pen){ yl, px, COLS };
        put(&pn, roles[R_WARN], capl);
    }

    /* the legend: titles, or registry names when they do not fit */
    const char *marks = t->unicode ? "\u25cf optimal \u25cb best found \u00d7 stops fitting"
                                   : "* optimal o best found x stops fitting";
    int wide = 0;
    for (int i = 0; i < np; i++)
        wide += 4 + text_cols(fr->planner[i] == t->rows[t->ilp].planner
                                  ? "ILP" : planner_title(fr->planner[i]));
    bool titles = wide - 2 <= COLS;
    struct pen pn = { yl + 1, 0, COLS };
    for (int i = 0; i < np; i++) {
        char lt[2] = { letter[i], '\0' };
        put(&pn, fr_role(t, i) | A_BOLD, lt);
        put(&pn, roles[R_NORMAL], " ");
        put(&pn, roles[R_NORMAL], fr->planner[i] == t->rows[t->ilp].planner ? "ILP"
                                  : titles ? planner_title(fr->planner[i]) : fr->planner[i]);
        put(&pn, roles[R_NORMAL], "  ");
    }
    if (pn.x + text_cols(marks) <= COLS)
        put(&pn, roles[R_DIM], marks);

    /* the cursor's cap, per planner */
    int yp = yl + 2;
    pn = (struct pen){ yp, 0, COLS };
    if (fr->ncap > 0) {
        putf(&pn, roles[R_VALUE], "cap %s", fmt_size(fr->cap[f->cursor], b1, sizeof b1));
        put(&pn, roles[R_NORMAL], fr->cap[f->cursor] == cur ? " (the current cap)"
                                                            : "  (Enter applies it)");
    }
    for (int i = 0; i < np && fr->ncap > 0; i++) {
        const struct frontier_point *p = &fr->pt[i][f->cursor];
        char obj[32];
        const char *st = fr_point_text(t, i, p, obj, sizeof obj);
        pn = (struct pen){ yp + 1 + i / ncol, (i % ncol) * cw, (i % ncol + 1) * cw - 1 };
        char lt[2] = { letter[i], '\0' };
        put(&pn, fr_role(t, i) | A_BOLD, lt);
        put(&pn, roles[R_NORMAL], " ");
        if (cw >= 40) {
            put(&pn, roles[R_NORMAL], fr->planner[i] == t->rows[t->ilp].planner
                                          ? "ILP" : planner_title(fr->planner[i]));
            pad_to(&pn, (i % ncol) * cw + 17);
        }
        if (!p->done) {
            put(&pn, roles[R_DIM], "computing");
            continue;
        }
        int x = pn.x;
        put(&pn, roles[R_VALUE], obj);
        pad_to(&pn, x + 10);
        put(&pn, p->fits ? (strcmp(st, "optimal") == 0 ? roles[R_GOOD] : roles[R_NORMAL])
                         : roles[R_BAD], st);
    }
}

/* The lines a tensor-parallel network has in its own words: the knob
 * counts ranks, the strips and panels show ranks */
static const char help_gpus[] = "  g / G        fewer / more GPUs";
static const char help_sel[] = "  [ / ]        select the previous / next GPU";
static const char help_cap[] = "  { / }        smaller / larger cap of the selected GPU only";
static const char help_jump[] = "  < >              previous / next change of GPU along the chain";
static const char help_strips[] = "  Strips: one character per layer, the GPU it runs on (0-9, then a=GPU 10, b=GPU 11, ...); \"all\" shows the whole network, \"zoom\" the layers around the cursor.";
static const char help_period[] = "  Period: one period of each GPU, F forward, B backward, @i idle;";
static const char help_busy[] = "    the percentage is the GPU's busy share.";
static const char *const help_tp[][2] = {
    { help_gpus, "  g / G        fewer / more ranks (pipeline ranks of TP GPUs each)" },
    { help_sel, "  [ / ]        select the previous / next rank" },
    { help_cap, "  { / }        smaller / larger cap of the selected rank's GPUs only" },
    { help_jump, "  < >              previous / next change of rank along the chain" },
    { help_strips, "  Strips: one character per layer, the rank it runs on (0-9, then a=rank 10, b=rank 11, ...); \"all\" shows the whole network, \"zoom\" the layers around the cursor." },
    { help_period, "  Period: one period of each rank, F forward, B backward, @i idle;" },
    { help_busy, "    the percentage is the rank's busy share." },
};

static const char *const help_text[] = {
    "#pipeplan explorer: keys",
    "",
    "#Knobs (each change plans again at once; a running solve is cancelled)",
    help_gpus,
    "  m / M        smaller / larger memory cap on every GPU",
    "               (1 GiB steps, about 5 % above 20 GiB)",
    help_sel,
    help_cap,
    "  b / B        fewer / more micro-batches per iteration",
    "  s            schedule: 1f1b (flushed) or pipedream (asynchronous)",
    "  c            layout: any allocation, or contiguous stages only",
    "  k / K        fewer / more ILP blocks (coarser solves faster)",
    "  t / T        shorter / longer ILP time limit",
    "  u            undo the last knob change",
    "  r            reload the network and platform files from disk, keeping the knobs changed here (it says which)",
    "  R            reload, back to the files' values (the ILP's blocks and limit stay)",
    "",
    "#Views",
    "  Left Right h l   move the layer cursor (Home End PgUp PgDn too); layers count from 0, as in --split",
    help_jump,
    "  Up Down Tab      show another plan's layers, memory and period",
    "  f                follow the best plan again",
    "",
    "#Other",
    "  e            export the plan on screen: pick a format (1 table, 2 json, 3 csv, 4 plan file, 5 megatron, 6 deepspeed, 7 torch, 8 torch schedule, as solve --format; or Enter for the highlighted one, json at first), then the file",
    "  p            load a plan file (written by e or solve --format plan) as your plan: the row \"your split\", judged like the others",
    "  S            type your split as --split takes it (0,12,24,36 from layer 0, megatron:LAYOUT, deepspeed:[PARTS], torchtitan:[[...]]; a paste of several lines is taken whole): the row \"your split\"",
    "  Ctrl-L       redraw the screen",
    "  F            the frontier view: the best iteration time (1f1b) or period (pipedream) of each planner against a memory cap on every GPU, for these GPUs and schedule; computed in the background, the baselines first, then the ILP with a short limit per cap",
    "  ?  F1        this help",
    "  q  Q  Ctrl-C quit",
    "",
    "#Export format chooser (e)",
    "  1-8          pick that format",
    "  Left Right Up Down Tab Shift-Tab   move the highlight; Enter takes it",
    "  Esc  q  Ctrl-G   cancel the export",
    "",
    "#Text prompts (e's file name, p, S)",
    "  Enter        take the line",
    "  Esc  Ctrl-G  cancel",
    "  Backspace    delete the last character",
    "  Ctrl-U       clear the line",
    "  Ctrl-W       delete the last part of a path (back to the /)",
    "",
    "#This help",
    "  Up Down      scroll a line",
    "  PgUp PgDn Space  scroll a page (Space down)",
    "  any other key    back",
    "",
    "#The frontier view (F)",
    "  Left Right h l   move the cursor along the caps (Home End too); the panel shows that cap's figures per planner",
    "  Enter        apply the cursor's cap to every GPU (as m/M do) and go back",
    "  g G s b B c  change a knob: the curves are computed again",
    "  Ctrl-L       redraw the screen",
    "  ?  F1        this help",
    "  Esc F q Q    back to the plans (q does not quit here; Ctrl-C does)",
    "  Curves: braille dots (letters under LANG=C), one per planner, the letter in the legend; a point not computed yet is not drawn. The ILP's points: @o optimal (proven), @f best found (not proven); @x where a planner stops fitting (at the cap below its smallest that fits); the dotted line is the current cap.",
    "",
    "#Reading the screen",
    "  Memory bars, against each GPU's cap (marks beyond the cap stand out):",
    "    @0 weights, gradients and optimizer state   @1 stored activations",
    "    @2 send / receive buffers                   @3 reserved",
    help_strips,
    help_period,
    help_busy,
    "  gap: (objective - bound) / objective, the objective being the iteration time for 1f1b and the period for pipedream, the bound the best lower bound proven for the network.",
    "  While the plans for new knobs come in, the plan on show before stays, marked \"updating\", the marker on its planner's row; knobs the ILP planned before show its plan for them at once, when it fits.",
    "  The ILP is called optimal only when it proved it; otherwise the",
    "    table shows its best plan so far and the bound it proved.",
    "  With fewer blocks than layers, the ILP proves a bound for whole blocks only (\"block bound\", \"optimal for N blocks\"); its plan is refined per layer and may beat that bound, which is no bound on the network.",
    "  Each setting's ILP result is kept: coming back to it (u) shows it at once, and a new search continues from it.",
};

/* Help line k for this network (a tensor-parallel one counts ranks). */
static const char *help_line(const struct tui *t, int k)
{
    if (t->cur->pb->tp > 1)
        for (size_t i = 0; i < sizeof help_tp / sizeof help_tp[0]; i++)
            if (help_text[k] == help_tp[i][0])
                return help_tp[i][1];
    return help_text[k];
}

/* Visible columns of a help line (@X is one glyph). */
static int help_cols(const char *s, int n)
{
    int c = 0;
    for (int i = 0; i < n && s[i]; i++) {
        if (s[i] == '@' && s[i + 1]) {
            i++;
            c++;
        } else if (((unsigned char)s[i] & 0xc0) != 0x80) {
            c++;
        }
    }
    return c;
}

/* The help's lines wrapped at spaces to `cols`: each as (text index,
 * start, length, indent). Returns how many. */
struct help_piece {
    int line, start, len, indent;
};

static int help_wrap(const struct tui *t, int cols, struct help_piece *out, int max)
{
    int n = 0, nl = (int)(sizeof help_text / sizeof help_text[0]);
    for (int k = 0; k < nl; k++) {
        const char *s = help_line(t, k);
        int len = (int)strlen(s), start = 0, indent = 0;
        /* continuation lines start under the description */
        int lead = 0;
        while (s[lead] == ' ' || s[lead] == '#')
            lead++;
        const char *gap = strstr(s + lead, "  ");
        int desc = gap ? (int)(gap - s) : lead;
        while (gap && s[desc] == ' ')
            desc++;
        if (desc > cols / 2)
            desc = lead + 2;
        do {
            int end = len;
            if (help_cols(s + start, len - start) + indent > cols) {
                int room = cols - indent, c = 0, i = start, cut = -1;
                for (; i < len && c < room; i++) {
                    if (s[i] == ' ' && i > start)
                        cut = i;
                    if (s[i] == '@' && s[i + 1])
                        i++;
                    if (((unsigned char)s[i] & 0xc0) != 0x80)
                        c++;
                }
                end = cut > start ? cut : i;
            }
            if (n < max)
                out[n] = (struct help_piece){ k, start, end - start, indent };
            n++;
            start = end;
            while (start < len && s[start] == ' ')
                start++;
            indent = desc;
        } while (start < len);
    }
    return n < max ? n : max;
}

static void draw_help(struct tui *t)
{
    static struct help_piece pieces[512];
    int n = help_wrap(t, COLS - 2, pieces, 512);
    int rows = LINES - 1;
    if (t->help_top > n - rows)
        t->help_top = n - rows > 0 ? n - rows : 0;
    for (int k = 0; k < rows && t->help_top + k < n; k++) {
        const struct help_piece *hp = &pieces[t->help_top + k];
        const char *s = help_line(t, hp->line) + hp->start;
        const char *end = s + hp->len;
        struct pen pn = { k, 1 + hp->indent, COLS };
        attr_t a = roles[R_NORMAL];
        if (hp->start == 0 && *s == '#') {
            a = roles[R_TITLE];
            s++;
        } else if (help_text[hp->line][0] == '#') {
            a = roles[R_TITLE];
        }
        /* @N: the glyph of memory segment N, @i: the idle glyph */
        for (const char *p = s; p < end && *p; p++) {
            if (*p == '@' && p[1]) {
                p++;
                if (*p == 'i')
                    put(&pn, roles[R_IDLE], G->idle);
                else if (*p == 'o')
                    put(&pn, a, t->unicode ? "\u25cf" : "*");
                else if (*p == 'f')
                    put(&pn, a, t->unicode ? "\u25cb" : "o");
                else if (*p == 'x')
                    put(&pn, a, t->unicode ? "\u00d7" : "x");
                else if (*p >= '0' && *p <= '3')
                    put(&pn, roles[R_WEIGHTS + (*p - '0')], G->seg[*p - '0']);
                continue;
            }
            char c[2] = { *p, '\0' };
            put(&pn, a, c);
        }
    }
    /* the hints that fit beside "more below", not under it */
    const char *more = "more below";
    bool below = t->help_top + rows < n;
    draw_keys_in(t, LINES - 1, below ? COLS - (int)strlen(more) - 2 : COLS);
    if (below) {
        struct pen pn = { LINES - 1, COLS - (int)strlen(more) - 1, COLS };
        put(&pn, roles[R_DIM], more);
    }
}

/* Centred on line y: the first of the texts (longest first) that fits. */
static void put_centred(int y, int role, char texts[][48], int n)
{
    int k = 0;
    while (k + 1 < n && text_cols(texts[k]) > COLS)
        k++;
    int w = text_cols(texts[k]);
    struct pen pn = { y, w < COLS ? (COLS - w) / 2 : 0, COLS };
    put(&pn, roles[role], texts[k]);
}

/* Whole words at any size: the notice shortens before it is cut. */
static void draw_small(void)
{
    char why[3][48], need[4][48];
    snprintf(why[0], sizeof why[0], "terminal %dx%d is too small", COLS, LINES);
    snprintf(why[1], sizeof why[1], "%dx%d: too small", COLS, LINES);
    snprintf(why[2], sizeof why[2], "too small");
    snprintf(need[0], sizeof need[0], "pipeplan needs %dx%d (q quits)", MIN_COLS, MIN_LINES);
    snprintf(need[1], sizeof need[1], "needs %dx%d, q quits", MIN_COLS, MIN_LINES);
    snprintf(need[2], sizeof need[2], "needs %dx%d", MIN_COLS, MIN_LINES);
    snprintf(need[3], sizeof need[3], "%dx%d", MIN_COLS, MIN_LINES);
    put_centred(LINES > 1 ? LINES / 2 - 1 : 0, R_BAD, why, 3);
    if (LINES > 1)
        put_centred(LINES / 2, R_NORMAL, need, 4);
}

bool tui_too_small(void)
{
    return COLS < MIN_COLS || LINES < MIN_LINES;
}

void tui_draw(struct tui *t)
{
    erase();
    if (tui_too_small()) {
        draw_small();
    } else if (t->mode == MODE_HELP) {
        draw_help(t);
    } else if (t->mode == MODE_FRONTIER) {
        tui_frontier_draw(t);
        /* a message takes the keys' line */
        if (t->msg_kind != MSG_NONE)
            draw_status(t, LINES - 1, 1);
        else
            draw_keys(t, LINES - 1);
    } else {
        struct layout ly;
        layout_compute(t, &ly);
        int shown = tui_shown_row(t);
        draw_title(t, ly.title);
        draw_knobs(t, ly.knobs);
        draw_strip(t, &ly);
        draw_memory(t, &ly);
        draw_plans(t, &ly, shown);
        draw_ilp_line(t, ly.ilp, ly.ilp2);
        draw_keys(t, ly.keys);
        /* with no line of its own, a message (or the prompt) takes the keys' */
        if (ly.details >= 0)
            draw_details(t, &ly);
        int sy = ly.status >= 0 ? ly.status
               : (t->msg_kind != MSG_NONE || t->mode != MODE_MAIN) ? ly.keys : -1;
        if (sy >= 0) {
            if (sy == ly.keys) {
                move(sy, 0);
                clrtoeol();
            }
            draw_status(t, sy, ly.status >= 0 ? ly.nstatus : 1);
        }
    }
    attrset(A_NORMAL);
    wnoutrefresh(stdscr);
    doupdate();
}
