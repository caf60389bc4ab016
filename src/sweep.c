/* sweep: the grid, its shards and its CSV rows. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "spec.h"
#include "sweep.h"
#include "text.h"
#include "units.h"

const char sweep_columns[] =
    "setting,network,platform,gpus,memory,micro_batches,schedule,layout,planner,status,"
    "period_ms,iteration_ms,throughput,bound_ms,block_bound_ms,gap,fits,peak_memory,"
    "peak_gpu,message,seconds";

static const char *const axis_names[SWEEP_AXES] = {
    "gpus", "memory", "micro_batches", "schedule", "layout"
};

struct sweep_grid *sweep_grid_new(int nnetworks)
{
    struct sweep_grid *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->nnetworks = nnetworks;
    for (int a = 0; a < SWEEP_AXES; a++) {
        g->values[a] = malloc(sizeof *g->values[a]);
        if (!g->values[a]) {
            sweep_grid_free(g);
            return NULL;
        }
        g->n[a] = 1;
        g->values[a][0] = a == SWEEP_SCHEDULE || a == SWEEP_LAYOUT ? -1 : 0;
    }
    return g;
}

void sweep_grid_free(struct sweep_grid *g)
{
    if (!g)
        return;
    for (int a = 0; a < SWEEP_AXES; a++)
        free(g->values[a]);
    free(g);
}

/* One item of a list: its value, or -1 with why in err. */
static int parse_item(enum sweep_axis axis, const char *item, int64_t *v, char *err,
                      size_t errlen)
{
    long n;
    uint64_t size;
    /* only sizes take a range: say so, not "not a whole number" */
    if ((axis == SWEEP_GPUS || axis == SWEEP_MICRO_BATCHES) && strchr(item, ':')) {
        snprintf(err, errlen, "'%s': a range START:STOP:STEP is for --memory; "
                 "list the counts, e.g. 2,4,8", item);
        return -1;
    }
    switch (axis) {
    case SWEEP_GPUS:
        if (units_parse_count(item, 1, SPEC_MAX_GPUS, &n, err, errlen) < 0)
            return -1;
        *v = n;
        return 0;
    case SWEEP_MICRO_BATCHES:
        if (units_parse_count(item, 1, 1000000, &n, err, errlen) < 0)
            return -1;
        *v = n;
        return 0;
    case SWEEP_MEMORY:
        if (units_parse_size(item, &size, err, errlen) < 0)
            return -1;
        /* the grid's values are int64_t: 8192 PiB at most */
        if (size == 0) {
            snprintf(err, errlen, "'%s': must be positive", item);
            return -1;
        }
        if (size > INT64_MAX) {
            snprintf(err, errlen, "'%s': above the most a sweep takes (8192 PiB)", item);
            return -1;
        }
        *v = (int64_t)size;
        return 0;
    case SWEEP_SCHEDULE:
        if (strcmp(item, "1f1b") == 0 || strcmp(item, "pipedream") == 0) {
            *v = strcmp(item, "1f1b") == 0 ? SPEC_SCHEDULE_1F1B : SPEC_SCHEDULE_PIPEDREAM;
            return 0;
        }
        snprintf(err, errlen, "'%s' (expected 1f1b or pipedream)", item);
        return -1;
    default:
        if (strcmp(item, "any") == 0 || strcmp(item, "contiguous") == 0) {
            *v = strcmp(item, "any") == 0 ? LAYOUT_ANY : LAYOUT_CONTIGUOUS;
            return 0;
        }
        snprintf(err, errlen, "'%s' (expected any or contiguous)", item);
        return -1;
    }
}

static int push(int64_t **vals, int *n, int64_t v, char *err, size_t errlen)
{
    for (int i = 0; i < *n; i++)
        if ((*vals)[i] == v) {
            snprintf(err, errlen, "a value given twice");
            return -1;
        }
    if (*n >= SWEEP_MAX_VALUES) {
        snprintf(err, errlen, "more than %d values", SWEEP_MAX_VALUES);
        return -1;
    }
    int64_t *grown = realloc(*vals, (size_t)(*n + 1) * sizeof **vals);
    if (!grown) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *vals = grown;
    grown[(*n)++] = v;
    return 0;
}

/* START:STOP:STEP over sizes, in exact integer bytes. */
static int parse_range(const char *text, int64_t **vals, int *n, char *err, size_t errlen)
{
    char part[3][64];
    const char *p = text;
    for (int k = 0; k < 3; k++) {
        const char *end = k < 2 ? strchr(p, ':') : p + strlen(p);
        if (!end || (size_t)(end - p) >= sizeof part[k] || (k == 2 && strchr(p, ':'))) {
            snprintf(err, errlen, "expected START:STOP:STEP, e.g. 40GB:141GB:10GB");
            return -1;
        }
        memcpy(part[k], p, (size_t)(end - p));
        part[k][end - p] = '\0';
        p = end + 1;
    }
    uint64_t start, stop, step;
    char why[128];
    static const char *const what[3] = { "START", "STOP", "STEP" };
    uint64_t *dst[3] = { &start, &stop, &step };
    for (int k = 0; k < 3; k++) {
        if (part[k][strspn(part[k], " \t")] == '-') {
            snprintf(err, errlen, "%s must be positive", what[k]);
            return -1;
        }
        if (units_parse_size(part[k], dst[k], why, sizeof why) < 0) {
            snprintf(err, errlen, "%s %s", what[k], why);
            return -1;
        }
    }
    if (step == 0) {
        snprintf(err, errlen, "STEP must be positive");
        return -1;
    }
    if (start == 0) {
        snprintf(err, errlen, "START must be positive");
        return -1;
    }
    if (start > stop) {
        snprintf(err, errlen, "START above STOP");
        return -1;
    }
    if ((stop - start) / step >= SWEEP_MAX_VALUES) {
        snprintf(err, errlen, "more than %d values", SWEEP_MAX_VALUES);
        return -1;
    }
    for (uint64_t v = start; v <= stop; v += step) {
        if (push(vals, n, (int64_t)v, err, errlen) < 0)
            return -1;
        if (stop - v < step)
            break;
    }
    return 0;
}

int sweep_grid_set(struct sweep_grid *g, enum sweep_axis axis, const char *text,
                   char *err, size_t errlen)
{
    int64_t *vals = NULL;
    int n = 0;
    int rc = 0;
    if (!*text) {
        snprintf(err, errlen, "an empty list");
        return -1;
    }
    if (axis == SWEEP_MEMORY && strchr(text, ':')) {
        rc = parse_range(text, &vals, &n, err, errlen);
    } else {
        char *copy = strdup(text);
        if (!copy) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        /* strsep, not strtok: "4,,8" has an empty item */
        char *rest = copy;
        for (char *item = copy; rc == 0 && rest; item = rest) {
            char *comma = strchr(item, ',');
            rest = comma ? comma + 1 : NULL;
            if (comma)
                *comma = '\0';
            int64_t v;
            if (!*item) {
                snprintf(err, errlen, "an empty item");
                rc = -1;
            } else if (parse_item(axis, item, &v, err, errlen) < 0 ||
                       push(&vals, &n, v, err, errlen) < 0) {
                rc = -1;
            }
        }
        free(copy);
    }
    if (rc < 0) {
        free(vals);
        return -1;
    }
    free(g->values[axis]);
    g->values[axis] = vals;
    g->n[axis] = n;
    return 0;
}

long sweep_grid_size(const struct sweep_grid *g)
{
    long size = g->nnetworks;
    for (int a = 0; a < SWEEP_AXES; a++) {
        if (size > SWEEP_MAX_SETTINGS / g->n[a])
            return -1;
        size *= g->n[a];
    }
    return size;
}

void sweep_grid_setting(const struct sweep_grid *g, long index, struct sweep_setting *s)
{
    long idx[SWEEP_AXES];
    for (int a = SWEEP_AXES - 1; a >= 0; a--) {
        idx[a] = index % g->n[a];
        index /= g->n[a];
    }
    s->network = (int)index;
    knobs_init(&s->knobs);
    s->knobs.gpus = (int)g->values[SWEEP_GPUS][idx[SWEEP_GPUS]];
    s->knobs.memory = (uint64_t)g->values[SWEEP_MEMORY][idx[SWEEP_MEMORY]];
    s->knobs.micro_batches = (long)g->values[SWEEP_MICRO_BATCHES][idx[SWEEP_MICRO_BATCHES]];
    s->knobs.schedule = (int)g->values[SWEEP_SCHEDULE][idx[SWEEP_SCHEDULE]];
    s->knobs.layout = (int)g->values[SWEEP_LAYOUT][idx[SWEEP_LAYOUT]];
}

/* snprintf at `at` into buf of len, where at may be past the end
 * (nothing written then): the line's length is counted whole. */
static size_t describe_put(char *buf, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t describe_put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, fmt, ap);
    va_end(ap);
    return at + (w > 0 ? (size_t)w : 0);
}

/* The line into buf (cut at len), and its whole length: one writer for
 * the line and its size, so the two cannot drift apart. */
static size_t describe(const struct sweep_grid *g, char *buf, size_t len)
{
    size_t at = describe_put(buf, len, 0, "networks=%d", g->nnetworks);
    for (int a = 0; a < SWEEP_AXES; a++) {
        at = describe_put(buf, len, at, " %s=", axis_names[a]);
        for (int i = 0; i < g->n[a]; i++) {
            int64_t v = g->values[a][i];
            const char *sep = i ? "," : "";
            bool enum_axis = a == SWEEP_SCHEDULE || a == SWEEP_LAYOUT;
            if (v == (enum_axis ? -1 : 0))
                at = describe_put(buf, len, at, "files");
            else if (a == SWEEP_SCHEDULE)
                at = describe_put(buf, len, at, "%s%s", sep,
                                  spec_schedule_name((enum spec_schedule)v));
            else if (a == SWEEP_LAYOUT)
                at = describe_put(buf, len, at, "%s%s", sep,
                                  v == LAYOUT_CONTIGUOUS ? "contiguous" : "any");
            else
                at = describe_put(buf, len, at, "%s%" PRId64, sep, v);
        }
    }
    at = describe_put(buf, len, at, " planners=");
    for (int p = 0; p < g->nplanners; p++)
        at = describe_put(buf, len, at, "%s%s", p ? "," : "", g->planners[p]);
    return at;
}

size_t sweep_grid_describe_size(const struct sweep_grid *g)
{
    return describe(g, NULL, 0) + 1;
}

char *sweep_grid_describe(const struct sweep_grid *g, char *buf, size_t len)
{
    describe(g, buf, len);
    return buf;
}

int sweep_shard_parse(const char *text, long *shard, long *nshards, char *err, size_t errlen)
{
    const char *slash = strchr(text, '/');
    char first[32];
    char why[128];
    if (!slash || (size_t)(slash - text) >= sizeof first) {
        snprintf(err, errlen, "expected I/N with I in 0..N-1, e.g. 0/4");
        return -1;
    }
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    if (units_parse_count(slash + 1, 1, SWEEP_MAX_SETTINGS, nshards, why, sizeof why) < 0) {
        snprintf(err, errlen, "N: %s (expected I/N with I in 0..N-1, e.g. 0/4)", why);
        return -1;
    }
    if (units_parse_count(first, 0, SWEEP_MAX_SETTINGS, shard, why, sizeof why) < 0) {
        snprintf(err, errlen, "I: %s (expected I/N with I in 0..N-1, e.g. 0/4)", why);
        return -1;
    }
    if (*shard >= *nshards) {
        snprintf(err, errlen, "I is %ld, N %ld (expected I in 0..N-1: shards count from 0; "
                 "from a Slurm array numbered 1..N pass $((SLURM_ARRAY_TASK_ID - 1))/N)",
                 *shard, *nshards);
        return -1;
    }
    return 0;
}

long sweep_row_key(const struct sweep_grid *g, long setting, const char *planner)
{
    for (int p = 0; p < g->nplanners; p++)
        if (strcmp(g->planners[p], planner) == 0)
            return setting * g->nplanners + p;
    return -1;
}

/* A name, quoted when it must be (RFC 4180). */
static int put_name(char *buf, size_t len, size_t *at, const char *s)
{
    bool quote = strpbrk(s, ",\"") != NULL;
    if (quote && *at < len)
        buf[(*at)++] = '"';
    for (; *s; s++) {
        if (*at + 2 >= len)
            return -1;
        if (*s == '"')
            buf[(*at)++] = '"';
        /* a row is one line: resume and merge read the file line by line */
        buf[(*at)++] = *s == '\n' || *s == '\r' ? ' ' : *s;
    }
    if (quote && *at < len)
        buf[(*at)++] = '"';
    if (*at >= len)
        return -1;
    buf[*at] = '\0';
    return 0;
}

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= len - *at)
        return -1;
    *at += (size_t)w;
    return 0;
}

/* ",%.17g", or "," for NaN and infinities */
static int put_real(char *buf, size_t len, size_t *at, double v)
{
    return isfinite(v) ? put(buf, len, at, ",%.17g", v) : put(buf, len, at, ",");
}

int sweep_row_format(const struct sweep_row *r, char *buf, size_t len)
{
    size_t at = 0;
    int bad = put(buf, len, &at, "%ld,", r->setting);
    bad |= put_name(buf, len, &at, r->network);
    bad |= put(buf, len, &at, ",");
    bad |= put_name(buf, len, &at, r->platform);
    bad |= put(buf, len, &at, ",%d,", r->gpus);
    bad |= r->memory ? put(buf, len, &at, "%" PRIu64, r->memory) : 0;
    bad |= put(buf, len, &at, ",%ld,%s,%s,", r->micro_batches, r->schedule, r->layout);
    bad |= put_name(buf, len, &at, r->planner);
    bad |= put(buf, len, &at, ",%s", r->status);
    bool p = r->has_plan;
    bad |= put_real(buf, len, &at, p ? r->period : NAN);
    bad |= put_real(buf, len, &at, p ? r->iteration : NAN);
    bad |= put_real(buf, len, &at, p ? r->throughput : NAN);
    bad |= put_real(buf, len, &at, r->bound);
    bad |= put_real(buf, len, &at, r->block_bound);
    bad |= put_real(buf, len, &at, r->gap);
    bad |= put(buf, len, &at, ",%s", p ? (r->fits ? "true" : "false") : "");
    if (p)
        bad |= put(buf, len, &at, ",%.0f,%d", r->peak_memory, r->peak_gpu);
    else
        bad |= put(buf, len, &at, ",,");
    bad |= put(buf, len, &at, ",");
    bad |= r->message ? put_name(buf, len, &at, r->message) : 0;
    bad |= put_real(buf, len, &at, r->seconds);
    bad |= put(buf, len, &at, "\n");
    return bad ? -1 : (int)at;
}

int sweep_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n >= max)
            return -1;
        char *out = p;
        fields[n++] = out;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0')
                    return -1;           /* no closing quote */
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            if (*p != ',' && *p != '\0')
                return -1;               /* text after the closing quote */
        } else {
            while (*p && *p != ',') {
                if (*p == '"')
                    return -1;
                *out++ = *p++;
            }
        }
        char sep = *p;
        *out = '\0';
        if (sep == '\0')
            return n;
        p++;
    }
}

/* ---- reading a sweep CSV back ---- */

void sweep_csv_free(struct sweep_csv *cf)
{
    for (int i = 0; i < cf->nheader; i++)
        free(cf->header[i]);
    free(cf->header);
    for (long i = 0; i < cf->nrows; i++)
        free(cf->rows[i].text);
    free(cf->rows);
    memset(cf, 0, sizeof *cf);
}

int sweep_csv_row_cmp(const void *x, const void *y)
{
    const struct sweep_csv_row *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Whether a resumed row's figures read as a run writes them: a known
 * status, fits true, false or empty, numbers or empty; else why, so that
 * a row edited or damaged is refused rather than carried into the result. */
static bool row_fields_ok(char **f, char *why, size_t len)
{
    bool known = false;
    for (int s = PLAN_OPTIMAL; s <= PLAN_RUNNING && !known; s++)
        known = strcmp(f[SWEEP_COL_STATUS], plan_status_name((enum plan_status)s)) == 0;
    if (!known) {
        snprintf(why, len, "status '%.40s' (expected one a planner reports)",
                 f[SWEEP_COL_STATUS]);
        return false;
    }
    const char *fits = f[SWEEP_COL_FITS];
    if (*fits && strcmp(fits, "true") != 0 && strcmp(fits, "false") != 0) {
        snprintf(why, len, "fits '%.40s' (expected true, false or nothing)", fits);
        return false;
    }
    static const int num[] = { SWEEP_COL_PERIOD, SWEEP_COL_ITERATION, SWEEP_COL_THROUGHPUT,
                               SWEEP_COL_BOUND, SWEEP_COL_BLOCK_BOUND, SWEEP_COL_GAP,
                               SWEEP_COL_PEAK_MEMORY, SWEEP_COL_PEAK_GPU, SWEEP_COL_SECONDS };
    static const char *const name[] = { "period_ms", "iteration_ms", "throughput", "bound_ms",
                                         "block_bound_ms", "gap", "peak_memory", "peak_gpu",
                                         "seconds" };
    for (size_t k = 0; k < sizeof num / sizeof *num; k++) {
        const char *v = f[num[k]];
        char *end;
        double x = *v ? strtod(v, &end) : 0;
        if (*v && (*end || !isfinite(x) || x < 0)) {
            snprintf(why, len, "%s '%.40s' (expected a number from 0, or nothing)", name[k], v);
            return false;
        }
    }
    return true;
}

int sweep_csv_parse(char *text, size_t len, const char *path, const struct sweep_grid *g,
                    long size, long shard, long nshards, struct sweep_csv *cf, char *err,
                    size_t errlen)
{
    memset(cf, 0, sizeof *cf);
    cf->path = path;
    if (len == 0) {
        snprintf(err, errlen, "%s: an empty file (expected a pipeplan sweep CSV)", path);
        return -1;
    }
    int rc = 0, line = 0;
    bool columns = false;
    long cap = 0;
    /* a file saved again by an editor or a spreadsheet: BOM and CRLF */
    char *p = text + text_bom_len(text, len);
    cf->respelled = p != text;
    while (rc == 0 && *p) {
        char *nl = strchr(p, '\n');
        line++;
        bool last = !nl || nl[1] == '\0';
        if (nl) {
            *nl = '\0';
            if (nl > p && nl[-1] == '\r') {
                nl[-1] = '\0';
                cf->respelled = true;
            }
        }
        if (!columns && p[0] == '#') {
            char **grown = realloc(cf->header, (size_t)(cf->nheader + 1) * sizeof *grown);
            char *copy = grown ? strdup(p) : NULL;
            if (!copy) {
                if (grown)
                    cf->header = grown;
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            cf->header = grown;
            cf->header[cf->nheader++] = copy;
        } else if (!columns) {
            if (strcmp(p, sweep_columns) != 0 || !nl) {
                snprintf(err, errlen, "%s:%d: not the column line of a pipeplan sweep CSV "
                         "(expected %.60s...)", path, line, sweep_columns);
                rc = -1;
                break;
            }
            columns = true;
            if (!g)
                break;
        } else {
            char *copy = strdup(p);
            char *fields[SWEEP_NCOLUMNS + 1];
            int nf = copy ? sweep_csv_split(copy, fields, SWEEP_NCOLUMNS + 1) : -1;
            if (!copy) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            if (last && (!nl || (nf >= 0 && nf < SWEEP_NCOLUMNS))) {
                /* a run killed while writing: a row cut short, never one
                 * with more fields than a row has (that one is an error) */
                cf->partial_line = line;
                free(copy);
                break;
            }
            long setting = -1, key = -1;
            char why[128];
            if (nf < 0)
                snprintf(err, errlen, "%s:%d: more than %d fields, or a quote not closed "
                         "(expected %d fields)", path, line, SWEEP_NCOLUMNS, SWEEP_NCOLUMNS);
            else if (nf != SWEEP_NCOLUMNS)
                snprintf(err, errlen, "%s:%d: %d fields (expected %d)", path, line, nf,
                         SWEEP_NCOLUMNS);
            else if (units_parse_count(fields[SWEEP_COL_SETTING], 0, size - 1, &setting, why,
                                       sizeof why) < 0)
                snprintf(err, errlen, "%s:%d: setting '%.40s': %s (the grid has %ld)", path,
                         line, fields[SWEEP_COL_SETTING], why, size);
            else if ((key = sweep_row_key(g, setting, fields[SWEEP_COL_PLANNER])) < 0)
                snprintf(err, errlen, "%s:%d: planner '%.40s' is not one of this sweep's",
                         path, line, fields[SWEEP_COL_PLANNER]);
            else if (shard >= 0 && !sweep_shard_has(setting, shard, nshards))
                snprintf(err, errlen, "%s:%d: setting %ld is not in shard %ld/%ld", path,
                         line, setting, shard, nshards);
            bool fields_ok = nf != SWEEP_NCOLUMNS || key < 0 || row_fields_ok(fields, why,
                                                                               sizeof why);
            if (!fields_ok)
                snprintf(err, errlen, "%s:%d: %s", path, line, why);
            free(copy);
            if (nf != SWEEP_NCOLUMNS || setting < 0 || key < 0 || !fields_ok ||
                (shard >= 0 && !sweep_shard_has(setting, shard, nshards))) {
                rc = -1;
                break;
            }
            if (cf->nrows == cap) {
                long ncap = cap ? 2 * cap : 64;
                struct sweep_csv_row *grown = realloc(cf->rows, (size_t)ncap * sizeof *grown);
                if (!grown) {
                    snprintf(err, errlen, "%s: out of memory", path);
                    rc = -1;
                    break;
                }
                cf->rows = grown;
                cap = ncap;
            }
            size_t n = strlen(p);
            char *whole = malloc(n + 2);
            if (!whole) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
                break;
            }
            memcpy(whole, p, n);
            memcpy(whole + n, "\n", 2);
            cf->rows[cf->nrows++] = (struct sweep_csv_row){ key, setting, line, whole };
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (rc == 0 && !columns) {
        snprintf(err, errlen, "%s:%d: no column line (expected a pipeplan sweep CSV)", path,
                 line);
        rc = -1;
    }
    /* a file of no rows (stopped in its first setting, an empty shard)
     * has no array to sort */
    if (rc == 0 && cf->nrows > 0) {
        qsort(cf->rows, (size_t)cf->nrows, sizeof *cf->rows, sweep_csv_row_cmp);
        for (long i = 1; i < cf->nrows; i++)
            if (cf->rows[i].key == cf->rows[i - 1].key) {
                snprintf(err, errlen, "%s:%d: setting %ld and its planner a second time "
                         "(first on line %d)", path, cf->rows[i].line, cf->rows[i].setting,
                         cf->rows[i - 1].line);
                rc = -1;
                break;
            }
    }
    if (rc < 0)
        sweep_csv_free(cf);
    return rc;
}
