/* planfile: write and read plan files (see planfile.h for the format). */
#include "planfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "simulate.h"
#include "spec.h"
#include "text.h"
#include "units.h"

/* The longest time a plan file holds: a trip lasts many times a layer,
 * whose time files keep to 10^12 ms, but a period of 10^308 ms left the
 * memory model and the simulator apart. Links of a thousandth of a byte
 * a second still give longer periods: those plans are not written
 * (planfile_check), so every plan file written reads back. */
#define PLANFILE_MAX_MS 1e15

/* The shortest decimal that reads back as exactly v, with "ms". */
static void ms_exact(double v, char *buf, size_t len)
{
    units_write_exact(v, 6, buf, len);
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "ms");
}

/* The weight factor (1 to 1000) exactly, never with an exponent, which its
 * reader refuses as the spec files' does: %.1g wrote 10 as "1e+01". Four
 * digits or more keep every factor up to 1000 in plain decimals. */
static char *phi_exact(double phi, char *buf, size_t len)
{
    return units_write_exact(phi, 4, buf, len);
}

int planfile_write(FILE *out, const struct problem *pb, const struct plan *pl,
                   const char *planner)
{
    char b1[32], b2[32], b3[32];
    fprintf(out, "; pipeplan plan file: read it back with --plan FILE (or p in the explorer)\n");
    char name[1024];
    /* a tensor-parallel network's GPUs here are its pipeline ranks */
    fprintf(out, "; %s on %d %s, plan: %s\n", text_escape(pb->network, name, sizeof name),
            pb->P, problem_gpu_word(pb, pb->P != 1), planner ? planner : "-");
    fprintf(out, "; judged for %s, %ld micro-batch%s, weight factor %g: period %s, iteration "
            "%s, %s\n", spec_schedule_name(pb->schedule), pb->m, pb->m == 1 ? "" : "es",
            pb->phi, units_format_time(pl->T, b1, sizeof b1),
            units_format_time(pl->iteration, b2, sizeof b2), pl->fits ? "fits" : "does not fit");
    for (int p = 0; p < pl->P; p++) {
        const struct plan_gpu *g = &pl->gpus[p];
        /* over the cap: up, as the table's "needs" (a cap of the figure fits) */
        fprintf(out, "; %s %d: %s of %s\n", problem_gpu_word(pb, false), p,
                g->total > g->cap ? units_format_size_up(g->total, b1, sizeof b1)
                : units_format_size(g->total, b1, sizeof b1),
                units_format_size(g->cap, b3, sizeof b3));
    }
    ms_exact(pl->T, b1, sizeof b1);
    /* names escaped as on screen (a control byte would break the line);
     * the reader compares them so (same_name) */
    fprintf(out, "\n[plan]\nnetwork = %s\nlayers = %d\ngpus = %d\nperiod = %s\n", name,
            pl->L, pl->P, b1);
    /* the settings it was judged for: a reader judging it under others says so */
    fprintf(out, "schedule = %s\nmicro_batches = %ld\nweight_factor = %s\n",
            spec_schedule_name(pb->schedule), pb->m, phi_exact(pb->phi, b2, sizeof b2));
    for (int i = 0; i < pl->L; i++) {
        ms_exact(pl->start[i], b1, sizeof b1);
        ms_exact(pl->start[pl->L + i], b2, sizeof b2);
        fprintf(out, "\n[layer %s]\ngpu = %d\nforward_start = %s\nbackward_start = %s\n",
                text_escape(pb->names[i], name, sizeof name), pl->gpu[i], b1, b2);
    }
    return ferror(out) ? -1 : 0;
}

int planfile_check(const struct plan *pl, char *err, size_t errlen)
{
    char b[32];
    const char *what = NULL;
    double t = 0;
    if (!(pl->T <= PLANFILE_MAX_MS)) {
        what = "period";
        t = pl->T;
    }
    for (int i = 0; !what && i < 2 * pl->L; i++)
        if (!(pl->start[i] <= PLANFILE_MAX_MS)) {
            what = "start of an operation";
            t = pl->start[i];
        }
    if (!what)
        return 0;
    snprintf(err, errlen, "its %s, %s, is beyond the longest time a plan file holds (%s)",
             what, units_format_time(t, b, sizeof b), "10^12 s");
    return -1;
}

/* ---- reading ---- */

/* Whether a name read from a plan file is the model's name, as written
 * (escaped) or, from a file made by hand, as it is. */
static bool same_name(const char *read, const char *name)
{
    char buf[1024];
    return strcmp(read, name) == 0 || strcmp(read, text_escape(name, buf, sizeof buf)) == 0;
}

struct reader {
    const char *label;
    const struct problem *pb;
    struct plan *pl;
    char *err;
    size_t errlen;
    int line;
    int layer;               /* section: -1 [plan], else the layer, -2 none yet */
    unsigned seen;           /* keys seen in the current section */
    int plan_line, period_line, last_layer_line;
    /* the settings the file says it was judged for (-1, NAN: not said) */
    int schedule;
    long m;
    double phi;
    int *op_line;            /* [2L] the line of each start (F_i: i, B_i: L + i) */
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->errlen, "%s:%d: ", r->label, r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen)
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* A time with a unit written out: "12.5ms", "250us", "0.5s". Decimal
 * only (strtod would take hex floats), and within PLANFILE_MAX_MS. */
static int parse_ms(struct reader *r, const char *key, const char *v, double *ms)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    const char *unit = end;
    while (*unit == ' ')
        unit++;
    double scale = strcmp(unit, "ms") == 0 ? 1.0 : strcmp(unit, "us") == 0 ? 1e-3
                 : strcmp(unit, "s") == 0 ? 1e3 : 0.0;
    bool decimal = strspn(v, "+-0123456789.eE") == (size_t)(end - v);
    /* an underflow (1e-320) is a tiny time, judged as such; an overflow
     * is no time */
    if (end == v || (errno && fabs(x) >= 1) || !isfinite(x) || scale == 0.0 || !decimal)
        return fail(r, "bad %s '%s' (expected a time with its unit, e.g. 12.5ms)", key, v);
    *ms = x * scale;
    if (fabs(*ms) > PLANFILE_MAX_MS)
        return fail(r, "%s = %s is out of range (expected at most %gms)", key, v,
                    PLANFILE_MAX_MS);
    if (*ms < 0)       /* every operation starts at or after the first */
        return fail(r, "%s = %s is negative (expected a time from 0)", key, v);
    return 0;
}

static int parse_count(struct reader *r, const char *key, const char *v, long *out)
{
    char why[128];
    if (units_parse_count(v, 0, 1000000000L, out, why, sizeof why) < 0)
        return fail(r, "bad %s '%s': %s%s", key, v, why,
                    strstr(why, "(expected") ? "" : " (expected a whole number)");
    return 0;
}

/* the first four are required; the settings after them were added later */
#define PLAN_REQUIRED 4
static const char *const plan_keys[] = { "network", "layers", "gpus", "period", "schedule",
                                         "micro_batches", "weight_factor", NULL };
static const char *const layer_keys[] = { "gpu", "forward_start", "backward_start", NULL };

/* The keys of the section just closed are all there. */
static int section_close(struct reader *r)
{
    const char *const *keys = r->layer == -1 ? plan_keys : layer_keys;
    for (int k = 0; keys[k] && (r->layer != -1 || k < PLAN_REQUIRED); k++)
        if (!(r->seen & (1u << k))) {
            if (r->layer == -1)
                return fail(r, "[plan] has no %s (expected network, layers, gpus and period)",
                            keys[k]);
            return fail(r, "[layer %s] has no %s (expected gpu, forward_start and "
                        "backward_start)", r->pb->names[r->layer], keys[k]);
        }
    return 0;
}

static int section_open(struct reader *r, char *head)
{
    if (r->layer >= -1 && section_close(r) < 0)
        return -1;
    r->seen = 0;
    const struct problem *pb = r->pb;
    if (strcmp(head, "plan") == 0) {
        if (r->layer != -2)
            return fail(r, "a second [plan] (expected one, at the top)");
        r->layer = -1;
        r->plan_line = r->line;
        return 0;
    }
    if (r->layer == -2)
        return fail(r, "[%s] before [plan] (expected [plan] first)", head);
    if (strncmp(head, "layer ", 6) != 0)
        return fail(r, "unknown section [%s] (expected [plan] or [layer NAME])", head);
    const char *name = trim(head + 6);
    int i = r->layer + 1;
    if (i >= pb->L)
        return fail(r, "[layer %s] after the last layer (expected %d layer section%s)", name,
                    pb->L, pb->L == 1 ? "" : "s");
    if (!same_name(name, pb->names[i]))
        return fail(r, "[layer %s] (expected [layer %s], layer %d of %s)", name, pb->names[i], i,
                    pb->network);
    r->layer = i;
    r->last_layer_line = r->line;
    return 0;
}

static int key_value(struct reader *r, char *key, char *v)
{
    const struct problem *pb = r->pb;
    if (r->layer == -2)
        return fail(r, "'%s' before [plan] (expected [plan] first)", key);
    const char *const *keys = r->layer == -1 ? plan_keys : layer_keys;
    int k = 0;
    while (keys[k] && strcmp(keys[k], key) != 0)
        k++;
    if (!keys[k]) {
        if (r->layer == -1)
            return fail(r, "unknown key '%s' in [plan] (expected network, layers, gpus, "
                        "period, schedule, micro_batches or weight_factor)", key);
        return fail(r, "unknown key '%s' in [layer %s] (expected gpu, forward_start or "
                    "backward_start)", key, pb->names[r->layer]);
    }
    if (r->seen & (1u << k))
        return fail(r, "%s given twice (expected it once per section)", key);
    r->seen |= 1u << k;
    long n;
    double ms;
    if (r->layer == -1) {
        switch (k) {
        case 0:
            if (!same_name(v, pb->network))
                return fail(r, "network '%s' (expected %s, the network being planned)", v,
                            pb->network);
            return 0;
        case 1:
            if (parse_count(r, key, v, &n) < 0)
                return -1;
            if (n != pb->L)
                return fail(r, "layers = %ld (expected %d, the layers of %s)", n, pb->L,
                            pb->network);
            return 0;
        case 2:
            if (parse_count(r, key, v, &n) < 0)
                return -1;
            if (n != pb->P)
                return fail(r, "gpus = %ld (expected %d, the %s being planned; --gpus "
                            "changes them)", n, pb->P,
                            pb->tp > 1 ? "pipeline ranks" : "GPUs");
            return 0;
        case 3:
            if (parse_ms(r, key, v, &ms) < 0)
                return -1;
            if (!(ms > 0))
                return fail(r, "period %s (expected a positive time)", v);
            r->pl->T = ms;
            r->period_line = r->line;
            return 0;
        case 4:
            if (strcmp(v, "1f1b") != 0 && strcmp(v, "pipedream") != 0)
                return fail(r, "bad schedule '%s' (expected 1f1b or pipedream)", v);
            r->schedule = strcmp(v, "1f1b") == 0 ? SPEC_SCHEDULE_1F1B : SPEC_SCHEDULE_PIPEDREAM;
            return 0;
        case 5:
            if (parse_count(r, key, v, &n) < 0)
                return -1;
            if (n < 1)
                return fail(r, "micro_batches = %s (expected at least 1)", v);
            r->m = n;
            return 0;
        default: {
            char why[128];
            if (units_parse_real(v, &r->phi, why, sizeof why) < 0)
                return fail(r, "bad weight_factor '%s': %s (expected a number, e.g. 4)", v, why);
            return 0;
        }
        }
    }
    int i = r->layer;
    switch (k) {
    case 0: {
        char why[128];
        /* the GPUs being planned, not any count: 4294967296 is out of them */
        if (units_parse_count(v, 0, pb->P - 1, &n, why, sizeof why) < 0) {
            if (strstr(why, "(expected"))
                return fail(r, "bad gpu '%s': %s", v, why);
            return fail(r, "bad gpu '%s': %s (expected a %s from 0 to %d)", v, why,
                        problem_gpu_word(pb, false), pb->P - 1);
        }
        r->pl->gpu[i] = (int)n;
        return 0;
    }
    case 1:
        if (parse_ms(r, key, v, &ms) < 0)
            return -1;
        if (i == 0 && ms != 0)
            return fail(r, "forward_start = %s for the first layer (expected 0ms: times count "
                        "from its start)", v);
        r->pl->start[i] = ms;
        r->op_line[i] = r->line;
        return 0;
    default:
        if (parse_ms(r, key, v, &ms) < 0)
            return -1;
        r->pl->start[pb->L + i] = ms;
        r->op_line[pb->L + i] = r->line;
        return 0;
    }
}

/* "a", "a and b", "a, b and c" */
static void join_and(char *out, size_t len, char items[][48], int n)
{
    size_t k = 0;
    out[0] = '\0';
    for (int j = 0; j < n && k < len; j++)
        k += (size_t)snprintf(out + k, len - k, "%s%s",
                              j == 0 ? "" : j == n - 1 ? " and " : ", ", items[j]);
}

/* What differs between the settings the file was judged for and pb's,
 * as "F was written for pipedream and 8 micro-batches; judged here for
 * 1f1b and 32 micro-batches", or "" when nothing does (or the file does
 * not say). */
static void settings_note(const struct reader *r, char *note, size_t len)
{
    const struct problem *pb = r->pb;
    char was[3][48], now[3][48], b[32];
    int n = 0;
    if (r->schedule >= 0 && r->schedule != (int)pb->schedule) {
        snprintf(was[n], sizeof was[n], "%s", spec_schedule_name((enum spec_schedule)r->schedule));
        snprintf(now[n++], sizeof now[0], "%s", spec_schedule_name(pb->schedule));
    }
    if (r->m > 0 && r->m != pb->m) {
        snprintf(was[n], sizeof was[n], "%ld micro-batch%s", r->m, r->m == 1 ? "" : "es");
        snprintf(now[n++], sizeof now[0], "%ld micro-batch%s", pb->m, pb->m == 1 ? "" : "es");
    }
    if (!isnan(r->phi) && r->phi != pb->phi) {
        snprintf(was[n], sizeof was[n], "weight factor %s",
                 phi_exact(r->phi, b, sizeof b));
        snprintf(now[n++], sizeof now[0], "weight factor %s",
                 phi_exact(pb->phi, b, sizeof b));
    }
    if (n == 0) {
        note[0] = '\0';
        return;
    }
    char w[160], h[160];
    join_and(w, sizeof w, was, n);
    join_and(h, sizeof h, now, n);
    snprintf(note, len, "%s was written for %s; judged here for %s", r->label, w, h);
}

struct plan *planfile_parse(const char *text, const char *label, const struct problem *pb,
                            char *note, size_t notelen, char *err, size_t errlen)
{
    struct reader r = { .label = label, .pb = pb, .err = err, .errlen = errlen, .layer = -2,
                        .schedule = -1, .m = -1, .phi = NAN };
    if (note && notelen)
        note[0] = '\0';
    r.pl = plan_new(pb->L, pb->P);
    r.op_line = calloc(2 * (size_t)pb->L, sizeof *r.op_line);
    char *copy = strdup(text);
    if (!r.pl || !r.op_line || !copy) {
        snprintf(err, errlen, "%s: out of memory", label);
        plan_free(r.pl);
        free(r.op_line);
        free(copy);
        return NULL;
    }
    int rc = 0;
    char *next = copy + (text_skip_bom(copy) - copy);
    while (rc == 0 && next) {
        char *s = next;
        char *nl = strchr(s, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        r.line++;
        s = trim(s);
        if (*s == '\0' || *s == ';' || *s == '#')
            continue;
        /* an inline comment starts at " ;" */
        char *c = strstr(s, " ;");
        if (!c)
            c = strstr(s, "\t;");
        if (c) {
            *c = '\0';
            s = trim(s);
        }
        if (*s == '[') {
            size_t n = strlen(s);
            if (s[n - 1] != ']') {
                rc = fail(&r, "'%s' (expected a section header [NAME])", s);
                break;
            }
            s[n - 1] = '\0';
            rc = section_open(&r, trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = fail(&r, "'%.60s' (expected KEY = VALUE)", s);
            break;
        }
        *eq = '\0';
        rc = key_value(&r, trim(s), trim(eq + 1));
    }
    if (rc == 0) {
        if (r.layer == -2)
            rc = fail(&r, "no [plan] section (expected a plan file written by --format plan)");
        else if (section_close(&r) < 0)
            rc = -1;
        else if (r.layer < pb->L - 1)
            rc = fail(&r, "the file ends after %d of %d layers (expected [layer %s] next)",
                      r.layer + 1, pb->L, pb->names[r.layer + 1]);
    }
    free(copy);
    if (rc == 0 && plan_evaluate(r.pl, pb) != 0) {
        r.line = r.plan_line;
        rc = fail(&r, "the plan does not match the problem (expected %d layers on %d %s)",
                  pb->L, pb->P, problem_gpu_word(pb, true));
    }
    if (rc == 0) {
        struct sim_report rep;
        if (simulate_plan(r.pl, pb, &rep) != SIM_OK) {
            /* the start that runs too early or into another operation;
             * the period for what no one start explains (links, memory) */
            r.line = rep.op >= 0 && rep.op < 2 * pb->L && r.op_line[rep.op] > 0
                     ? r.op_line[rep.op] : r.period_line;
            rc = fail(&r, "the schedule does not pass the simulator: %s (expected a valid "
                      "periodic schedule, doc/model.md section 6)", rep.reason);
        }
    }
    free(r.op_line);
    if (rc != 0) {
        plan_free(r.pl);
        return NULL;
    }
    if (note && notelen)
        settings_note(&r, note, notelen);
    return r.pl;
}

struct plan *planfile_load(const char *path, const struct problem *pb, char *note,
                           size_t notelen, char *err, size_t errlen)
{
    size_t len;
    if (note && notelen)
        note[0] = '\0';
    char *text = fileio_read(path, &len, err, errlen);
    if (!text)
        return NULL;
    struct plan *pl = planfile_parse(text, path, pb, note, notelen, err, errlen);
    free(text);
    return pl;
}
