/* pipeplan sweep: every planner over a grid of settings, one CSV row per
 * (network, setting, planner), resumable and split into shards; --merge
 * joins shards; --plot draws the memory/period frontier as SVG. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fileio.h"
#include "planner.h"
#include "sha256.h"
#include "spec.h"
#include "svg.h"
#include "sweep.h"
#include "text.h"
#include "units.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static const char sweep_usage[] =
    "usage: " CLI_USAGE_SWEEP "\n"
    "       " CLI_USAGE_MERGE_WRAPPED "\n"
    CLI_HELP_SWEEP;

/* ---- the CSV file: header lines and rows ---- */

/* The value after "# NAME " in the header, or NULL. */
static const char *csv_header_value(const struct sweep_csv *cf, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < cf->nheader; i++)
        if (strncmp(cf->header[i], "# ", 2) == 0 && strncmp(cf->header[i] + 2, name, n) == 0 &&
            cf->header[i][2 + n] == ' ')
            return cf->header[i] + 3 + n;
    return NULL;
}

/* What a header line means for matching: an input line up to its hash
 * (its path may differ between machines); the shard line is not compared. */
static size_t header_compared_len(const char *line)
{
    if (strncmp(line, "# input ", 8) == 0) {
        const char *h = strstr(line, " sha256 ");
        if (h)
            return (size_t)(h - line) + 8 + 64;
    }
    return strlen(line);
}

static bool header_is_shard(const char *line)
{
    return strncmp(line, "# shard ", 8) == 0;
}

/* The first header line of a that b lacks (or the reverse), or -1 when the
 * two headers match (the shard lines aside). *which: 0 in a, 1 in b. */
static int header_mismatch(char *const *a, int na, char *const *b, int nb, int *which)
{
    int i = 0, j = 0;
    for (;;) {
        while (i < na && header_is_shard(a[i]))
            i++;
        while (j < nb && header_is_shard(b[j]))
            j++;
        if (i == na || j == nb)
            break;
        size_t la = header_compared_len(a[i]), lb = header_compared_len(b[j]);
        if (la != lb || strncmp(a[i], b[j], la) != 0) {
            *which = 0;
            return i;
        }
        i++;
        j++;
    }
    if (i < na) {
        *which = 0;
        return i;
    }
    if (j < nb) {
        *which = 1;
        return j;
    }
    return -1;
}

/* Read a sweep CSV made for grid g (see sweep_csv_parse). Returns 0, or
 * -1 with "FILE:LINE: why". */
static int csv_load(const char *path, const struct sweep_grid *g, long size, long shard,
                    long nshards, struct sweep_csv *cf, char *err, size_t errlen)
{
    memset(cf, 0, sizeof *cf);
    cf->path = path;
    size_t len;
    char *text = fileio_read(path, &len, err, errlen);
    if (!text)
        return -1;
    int rc = sweep_csv_parse(text, len, path, g, size, shard, nshards, cf, err, errlen);
    free(text);
    return rc;
}

struct csv_write {
    char *const *header;
    int nheader;
    const char *shard_line;      /* replaces the header's shard line, or NULL */
    const struct sweep_csv_row *rows;
    long nrows;
};

static int csv_writer(FILE *out, void *ctx)
{
    const struct csv_write *w = ctx;
    for (int i = 0; i < w->nheader; i++)
        fprintf(out, "%s\n", w->shard_line && header_is_shard(w->header[i]) ? w->shard_line
                : w->header[i]);
    fprintf(out, "%s\n", sweep_columns);
    for (long i = 0; i < w->nrows; i++)
        fputs(w->rows[i].text, out);
    return ferror(out) ? -1 : 0;
}

/* ---- the plot ---- */

struct plot_point {
    /* the series: network, knobs but memory, planner; a name whole (192
     * bytes at most on a 199-byte line), as two networks alike in their
     * first 60 bytes were drawn as one line */
    char key[240];
    size_t group_len;            /* the key without its planner: one dash per group */
    int planner;                 /* registry index: one colour per planner */
    char label[200];
    double gb, y;
    bool fits;
};

static int point_cmp(const void *x, const void *y)
{
    const struct plot_point *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->gb > b->gb) - (a->gb < b->gb);
}

static int doc_writer(FILE *out, void *ctx)
{
    return fputs(ctx, out) < 0 ? -1 : 0;
}

/* Columns of every row that has a uniform memory cap, through f(); the
 * number of such rows. */
typedef void (*plot_visit)(char **f, void *ctx);
static long plot_rows(const struct sweep_csv_row *rows, long nrows, plot_visit f, void *ctx)
{
    long n = 0;
    for (long i = 0; i < nrows; i++) {
        char *copy = strdup(rows[i].text);
        char *fields[SWEEP_NCOLUMNS];
        if (!copy)
            return -1;
        copy[strcspn(copy, "\n")] = '\0';
        if (sweep_csv_split(copy, fields, SWEEP_NCOLUMNS) == SWEEP_NCOLUMNS &&
            fields[SWEEP_COL_MEMORY][0]) {
            f(fields, ctx);
            n++;
        }
        free(copy);
    }
    return n;
}

/* What varies among the rows: only that goes into the legend. */
struct plot_scan {
    char first[SWEEP_NCOLUMNS][200];
    bool any, varies[SWEEP_NCOLUMNS];
    struct plot_point *pts;
    long n;
};

static void scan_visit(char **f, void *ctx)
{
    struct plot_scan *sc = ctx;
    for (int c = 0; c < SWEEP_NCOLUMNS; c++) {
        if (!sc->any)
            snprintf(sc->first[c], sizeof sc->first[c], "%s", f[c]);
        else if (strncmp(sc->first[c], f[c], sizeof sc->first[c] - 1) != 0)
            sc->varies[c] = true;
    }
    sc->any = true;
}

static void point_visit(char **f, void *ctx)
{
    struct plot_scan *sc = ctx;
    struct plot_point *pt = &sc->pts[sc->n++];
    bool pipedream = strcmp(f[SWEEP_COL_SCHEDULE], "pipedream") == 0;
    pt->planner = 0;
    for (int p = 0; p < planner_count(); p++)
        if (strcmp(planner_name(p), f[SWEEP_COL_PLANNER]) == 0)
            pt->planner = p;
    /* numbers padded, so that the series sort as numbers: 4, 8, 16 */
    int w = snprintf(pt->key, sizeof pt->key, "%.192s|%06ld|%08ld|%.10s|%.12s|",
                     f[SWEEP_COL_NETWORK], strtol(f[SWEEP_COL_GPUS], NULL, 10),
                     strtol(f[SWEEP_COL_MICRO_BATCHES], NULL, 10), f[SWEEP_COL_SCHEDULE],
                     f[SWEEP_COL_LAYOUT]);
    pt->group_len = w > 0 ? (size_t)w : 0;
    snprintf(pt->key + pt->group_len, sizeof pt->key - pt->group_len, "%02d", pt->planner);
    pt->gb = strtod(f[SWEEP_COL_MEMORY], NULL) / 1e9;
    pt->y = f[pipedream ? SWEEP_COL_PERIOD : SWEEP_COL_ITERATION][0]
            ? strtod(f[pipedream ? SWEEP_COL_PERIOD : SWEEP_COL_ITERATION], NULL) : NAN;
    pt->fits = strcmp(f[SWEEP_COL_FITS], "true") == 0 &&
               strcmp(f[SWEEP_COL_STATUS], "error") != 0 && isfinite(pt->y);
    const bool *v = sc->varies;
    /* the name as the title shows it: whole characters, \xNN for bytes
     * that are not UTF-8 (cut at 60 bytes inside an é, the SVG did not
     * parse) */
    char net[100];
    text_escape(f[SWEEP_COL_NETWORK], net, sizeof net);
    snprintf(pt->label, sizeof pt->label, "%.20s, %s GPU%s%s%s%s%.10s%s%.12s%s%.12s",
             planner_title(f[SWEEP_COL_PLANNER]), f[SWEEP_COL_GPUS],
             strcmp(f[SWEEP_COL_GPUS], "1") == 0 ? "" : "s",
             v[SWEEP_COL_NETWORK] ? ", " : "", v[SWEEP_COL_NETWORK] ? net : "",
             v[SWEEP_COL_SCHEDULE] ? ", " : "", v[SWEEP_COL_SCHEDULE] ? f[SWEEP_COL_SCHEDULE] : "",
             v[SWEEP_COL_MICRO_BATCHES] ? ", m=" : "",
             v[SWEEP_COL_MICRO_BATCHES] ? f[SWEEP_COL_MICRO_BATCHES] : "",
             v[SWEEP_COL_LAYOUT] ? ", " : "", v[SWEEP_COL_LAYOUT] ? f[SWEEP_COL_LAYOUT] : "");
}

/* The frontier of the rows as SVG: per series the objective of every
 * fitting plan against the cap, a cross at the lowest cap that fits when
 * a lower one does not. */
static int plot_write(const char *path, const struct sweep_csv_row *rows, long nrows, char *err,
                      size_t errlen)
{
    struct plot_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.pts = calloc((size_t)nrows + 1, sizeof *sc.pts);
    double *xy = malloc((2 * (size_t)nrows + 1) * sizeof *xy);
    struct svg_series *series = calloc((size_t)nrows + 1, sizeof *series);
    int rc = -1;
    if (!sc.pts || !xy || !series || plot_rows(rows, nrows, scan_visit, &sc) < 0 ||
        plot_rows(rows, nrows, point_visit, &sc) < 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    qsort(sc.pts, (size_t)sc.n, sizeof *sc.pts, point_cmp);
    /* every cap swept on the axis, those where nothing fits too */
    double xmin = INFINITY, xmax = -INFINITY;
    for (long i = 0; i < sc.n; i++) {
        xmin = fmin(xmin, sc.pts[i].gb);
        xmax = fmax(xmax, sc.pts[i].gb);
    }
    int ns = 0, group = 0;
    double *next = xy;
    for (long i = 0; i < sc.n;) {
        long j = i;
        while (j < sc.n && strcmp(sc.pts[j].key, sc.pts[i].key) == 0)
            j++;
        struct svg_series *se = &series[ns++];
        if (i > 0 && (sc.pts[i].group_len != sc.pts[i - 1].group_len ||
                      strncmp(sc.pts[i].key, sc.pts[i - 1].key, sc.pts[i].group_len) != 0))
            group++;
        se->colour = sc.pts[i].planner;
        se->dash = group;
        int k = 0;
        bool below_fails = false;
        se->mark = -1;
        se->label = sc.pts[i].label;
        for (long q = i; q < j; q++) {
            if (!sc.pts[q].fits) {
                below_fails = below_fails || k == 0;
                continue;
            }
            if (k == 0 && below_fails)
                se->mark = 0;      /* below this cap the planner stops fitting */
            next[k++] = sc.pts[q].gb;
        }
        se->x = next;
        se->y = next + k;
        for (long q = i, m = 0; q < j; q++)
            if (sc.pts[q].fits)
                next[k + m++] = sc.pts[q].y;
        se->n = k;
        next += 2 * k;
        if (k == 0) {
            /* in the legend all the same: that it never fits is an answer */
            size_t len = strlen(sc.pts[i].label);
            snprintf(sc.pts[i].label + len, sizeof sc.pts[i].label - len, " (fits at no cap)");
        }
        i = j;
    }
    bool one_sched = !sc.varies[SWEEP_COL_SCHEDULE];
    bool iter = one_sched && strcmp(sc.first[SWEEP_COL_SCHEDULE], "1f1b") == 0;
    char title[400], net[64], plat[64];
    text_escape(sc.first[SWEEP_COL_NETWORK], net, sizeof net);
    text_escape(sc.first[SWEEP_COL_PLATFORM], plat, sizeof plat);
    if (sc.any)
        snprintf(title, sizeof title, "%s%s on %s%s%.10s: best %s against the memory cap (x: the "
                 "lowest cap that fits)", net, sc.varies[SWEEP_COL_NETWORK] ? " and others" : "",
                 plat, one_sched ? ", " : "", one_sched ? sc.first[SWEEP_COL_SCHEDULE] : "",
                 !one_sched ? "period (pipedream) or iteration time (1f1b)"
                 : iter ? "iteration time" : "period");
    else
        snprintf(title, sizeof title, "the best plan against the memory cap");
    struct svg_chart chart = {
        .title = title, .xlabel = "memory cap per GPU (GB)",
        .ylabel = !one_sched ? "period or iteration time (ms)"
                  : iter ? "iteration time (ms)" : "period (ms)",
        .nseries = ns, .series = series, .xmin = xmin, .xmax = xmax,
        .empty = sc.any ? "nothing to plot: no plan fits at any cap swept"
                        : "nothing to plot: no row has one cap on every GPU (its memory "
                          "column is empty)",
    };
    char *doc = svg_chart_render(&chart);
    if (!doc) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto out;
    }
    rc = fileio_write_atomic(path, true, doc_writer, doc, err, errlen);
    free(doc);
out:
    free(sc.pts);
    free(xy);
    free(series);
    return rc;
}

/* ---- running the grid ---- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

struct sweep_args {
    const char *files[64];
    int nfiles;
    struct sweep_grid *grid;
    struct ilp_args ilp;
    long shard, nshards;
    const char *output, *plot;
    bool force, merge;
};

/* The inputs: the files read once, hashed, parsed. */
struct sweep_inputs {
    int nnets;
    struct spec_network **nets;
    struct spec_platform *plat;
    char (*hash)[SHA256_HEX_LEN];
};

static void inputs_free(struct sweep_inputs *in)
{
    for (int i = 0; i < in->nnets; i++)
        spec_network_free(in->nets[i]);
    free(in->nets);
    spec_platform_free(in->plat);
    free(in->hash);
}

static int inputs_load(const struct sweep_args *a, struct sweep_inputs *in)
{
    char err[SPEC_ERR_LEN];
    memset(in, 0, sizeof *in);
    in->nnets = a->nfiles - 1;
    in->nets = calloc((size_t)in->nnets, sizeof *in->nets);
    in->hash = calloc((size_t)a->nfiles, sizeof *in->hash);
    if (!in->nets || !in->hash) {
        text_eprintf("pipeplan sweep: out of memory\n");
        return -1;
    }
    for (int i = 0; i < a->nfiles; i++) {
        size_t len;
        char *text = fileio_read(a->files[i], &len, err, sizeof err);
        if (!text) {
            text_eprintf("%s\n", err);
            return -1;
        }
        sha256_hex(text, len, in->hash[i]);
        if (i < in->nnets)
            in->nets[i] = spec_network_parse(text, a->files[i], err, sizeof err);
        else
            in->plat = spec_platform_parse(text, a->files[i], err, sizeof err);
        free(text);
        if (i < in->nnets ? !in->nets[i] : !in->plat) {
            text_eprintf("%s\n", err);
            return -1;
        }
    }
    return 0;
}

/* The header lines (each "# ...", no newline) naming everything the rows
 * depend on: the version, each input and its hash, the grid, the ILP's
 * limits, the shard. */
static char **header_make(const struct sweep_args *a, const struct sweep_inputs *in, long size,
                          int *n)
{
    int count = a->nfiles + 5;
    char **h = calloc((size_t)count, sizeof *h);
    char buf[8192], path[600];
    if (!h)
        return NULL;
    int k = 0;
    snprintf(buf, sizeof buf, "# pipeplan %s sweep", PACKAGE_VERSION);
    h[k++] = strdup(buf);
    for (int i = 0; i < a->nfiles; i++) {
        snprintf(buf, sizeof buf, "# input %s sha256 %s %s", i < in->nnets ? "network"
                 : "platform", in->hash[i], text_escape(a->files[i], path, sizeof path));
        h[k++] = strdup(buf);
    }
    /* the whole grid, however long: the line is what a resume compares */
    size_t glen = sweep_grid_describe_size(a->grid);
    char *grid = malloc(glen + 7);
    if (grid) {
        memcpy(grid, "# grid ", 7);
        sweep_grid_describe(a->grid, grid + 7, glen);
    }
    h[k++] = grid;
    snprintf(buf, sizeof buf, "# size settings=%ld planners=%d", size, a->grid->nplanners);
    h[k++] = strdup(buf);
    /* under a work limit the seconds are not used, nor threads but one
     * (ilp.h): a resume may change them */
    if (a->ilp.work_limit > 0)
        snprintf(buf, sizeof buf, "# ilp work_limit=%ld blocks=%d threads=1",
                 a->ilp.work_limit, a->ilp.blocks);
    else
        snprintf(buf, sizeof buf, "# ilp time_limit=%.17g work_limit=0 blocks=%d threads=%d",
                 a->ilp.time_limit, a->ilp.blocks, a->ilp.threads);
    h[k++] = strdup(buf);
    snprintf(buf, sizeof buf, "# shard %ld/%ld", a->shard, a->nshards);
    h[k++] = strdup(buf);
    *n = k;
    for (int i = 0; i < k; i++)
        if (!h[i]) {
            for (int j = 0; j < k; j++)
                free(h[j]);
            free(h);
            return NULL;
        }
    return h;
}

static void header_free(char **h, int n)
{
    for (int i = 0; h && i < n; i++)
        free(h[i]);
    free(h);
}

/* One write() of the whole text on an O_APPEND fd: a row is in the file
 * whole or not at all (short writes, which regular files do not make
 * below the disk's end, are finished). Returns 0 or -1 with errno. */
static int append_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *clock_text(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

/* A setting in words for progress lines: "alexnet, 4 GPUs, 16GB, ..." */
static char *setting_text(const struct sweep_inputs *in, const struct problem *pb,
                          const struct sweep_setting *s, char *buf, size_t len)
{
    char mem[32] = "memory as in the file", name[64];
    if (s->knobs.memory)
        units_write_size(s->knobs.memory, mem, sizeof mem);
    snprintf(buf, len, "%s, %d GPU%s, %s, %ld micro-batches, %s, %s",
             text_escape(in->nets[s->network]->name, name, sizeof name), pb->P,
             pb->P == 1 ? "" : "s", mem, pb->m, spec_schedule_name(pb->schedule),
             pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any");
    return buf;
}

/* The rows of one setting whose key is not yet done, each one write(), then
 * one fsync. Returns rows written, -1 when stopped (nothing written), -2
 * after a write error (said). */
static long run_setting(const struct sweep_args *a, const struct sweep_inputs *in, long index,
                        const struct problem *pb, const bool *done, int fd)
{
    const struct sweep_grid *g = a->grid;
    int n = g->nplanners;
    struct planner_result results[SWEEP_MAX_PLANNERS];
    if (cli_run_planners(pb, g->planners, n, &a->ilp, results, &stop_signal) != 0)
        return -1;
    /* stopped while the last planner answered: dropped all the same (a
     * Ctrl-C also reaches the worker, whose results are then not to trust) */
    if (stop_signal) {
        for (int i = 0; i < n; i++)
            planner_result_clear(&results[i]);
        return -1;
    }
    cli_finish_results(pb, results, n);
    struct sweep_setting s;
    sweep_grid_setting(g, index, &s);
    long written = 0;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (done[i])
            continue;
        const struct planner_result *res = &results[i];
        const struct plan *pl = res->plan;
        bool uniform = true;
        for (int p = 1; p < pb->P; p++)
            uniform = uniform && pb->cap[p] == pb->cap[0];
        struct sweep_row row = {
            .setting = index, .network = in->nets[s.network]->name, .platform = in->plat->name,
            .gpus = pb->P, .memory = uniform ? (uint64_t)pb->cap[0] : 0,
            .micro_batches = pb->m, .schedule = spec_schedule_name(pb->schedule),
            .layout = pb->layout == LAYOUT_CONTIGUOUS ? "contiguous" : "any",
            .planner = res->planner, .status = plan_status_name(res->status),
            .has_plan = pl != NULL, .period = pl ? pl->T : NAN,
            .iteration = pl ? pl->iteration : NAN, .throughput = pl ? pl->throughput : NAN,
            .bound = res->bound,
            /* as solve --json: a bound for the blocks only when it differs */
            .block_bound = res->blocks > 0 && res->blocks < pb->L &&
                           res->status != PLAN_INFEASIBLE ? res->block_bound : NAN,
            .gap = planner_gap(res), .fits = pl && pl->fits,
            .peak_memory = pl ? pl->peak_memory : NAN, .peak_gpu = pl ? pl->peak_gpu : -1,
            .message = res->message[0] ? res->message : NULL, .seconds = res->seconds,
        };
        char line[2048];
        int len = sweep_row_format(&row, line, sizeof line);
        if (len < 0 || append_all(fd, line, (size_t)len) < 0) {
            text_eprintf("pipeplan sweep: %s: write failed: %s\n", a->output,
                         len < 0 ? "row too long" : strerror(errno));
            rc = -1;
        } else {
            written++;
        }
    }
    for (int i = 0; i < n; i++)
        planner_result_clear(&results[i]);
    /* per setting, not per row: one sync for the planners' rows together */
    if (rc == 0 && written > 0 && fsync(fd) != 0 && errno != EINVAL) {
        text_eprintf("pipeplan sweep: %s: sync failed: %s\n", a->output, strerror(errno));
        rc = -1;
    }
    return rc < 0 ? -2 : written;
}

/* Whether cf's header was made from other inputs, settings or shard than
 * this run's (header): then it says so. */
static bool other_inputs(const struct sweep_args *a, const struct sweep_csv *cf,
                         char **header, int nheader)
{
    int which;
    int bad = header_mismatch(cf->header, cf->nheader, header, nheader, &which);
    const char *shard = csv_header_value(cf, "shard");
    char want[64];
    snprintf(want, sizeof want, "%ld/%ld", a->shard, a->nshards);
    if (bad < 0 && shard && strcmp(shard, want) == 0)
        return false;
    text_eprintf("pipeplan sweep: %s was made from other inputs or settings: %s '%s'%s "
                 "(use --force to start over)\n", a->output,
                 bad < 0 ? "its shard is" : which == 0 ? "it has" : "it lacks",
                 bad < 0 ? (shard ? shard : "none")
                 : which == 0 ? cf->header[bad] : header[bad],
                 bad < 0 ? ", not this run's" : "");
    return true;
}

/* The output at the start of a run: its rows so far (resuming), or a new
 * file with only the header. Returns 0, or -1 after saying why. */
static int output_open(const struct sweep_args *a, char **header, int nheader, long size,
                       struct sweep_csv *cf)
{
    char err[SPEC_ERR_LEN + 200];
    struct stat st;
    memset(cf, 0, sizeof *cf);
    bool exists = lstat(a->output, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        text_eprintf("pipeplan sweep: %s: not a regular file (expected a CSV file to create "
                     "or resume)\n", a->output);
        return -1;
    }
    if (exists && !a->force) {
        if (csv_load(a->output, a->grid, size, a->shard, a->nshards, cf, err, sizeof err) < 0) {
            /* a file of another grid is that, not a row out of this
             * grid's range: its header alone says so */
            struct sweep_csv h;
            char herr[SPEC_ERR_LEN + 200];
            bool other = csv_load(a->output, NULL, 0, -1, 1, &h, herr, sizeof herr) == 0 &&
                         other_inputs(a, &h, header, nheader);
            sweep_csv_free(&h);
            if (!other)
                text_eprintf("pipeplan sweep: %s (use --force to start over)\n", err);
            return -1;
        }
        if (other_inputs(a, cf, header, nheader)) {
            sweep_csv_free(cf);
            return -1;
        }
        if (cf->partial_line || cf->respelled) {
            /* a killed machine: drop the partial row, atomically (and a
             * file saved again with CRLF goes on in LF, as written) */
            struct csv_write w = { cf->header, cf->nheader, NULL, cf->rows, cf->nrows };
            if (fileio_write_atomic(a->output, true, csv_writer, &w, err, sizeof err) < 0) {
                text_eprintf("pipeplan sweep: %s\n", err);
                sweep_csv_free(cf);
                return -1;
            }
            if (cf->partial_line)
                text_eprintf("pipeplan sweep: %s:%d: dropped a partial last row (an "
                             "interrupted write)\n", a->output, cf->partial_line);
        }
        return 0;
    }
    struct csv_write w = { header, nheader, NULL, NULL, 0 };
    if (fileio_write_atomic(a->output, a->force, csv_writer, &w, err, sizeof err) < 0) {
        text_eprintf("pipeplan sweep: %s\n", err);
        return -1;
    }
    return 0;
}

/* The sweep's hold on its CSV (flock on fd, released when it closes), or
 * -1 with why when another sweep holds it. */
static int output_lock(const struct sweep_args *a, int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno == EWOULDBLOCK)
        text_eprintf("pipeplan sweep: %s: another sweep is writing it (wait for it to end, "
                     "or give another -o)\n", a->output);
    else
        text_eprintf("pipeplan sweep: %s: cannot lock: %s\n", a->output, strerror(errno));
    return -1;
}

static int sweep_run(const struct sweep_args *a)
{
    struct sweep_inputs in;
    int rc = 2, lockfd = -1;
    if (inputs_load(a, &in) < 0) {
        inputs_free(&in);
        return 2;
    }
    /* the rows and the plot tell the networks apart by name: two of one
     * name made rows only the setting number told apart and one line of
     * the plot zigzag between them */
    for (int i = 0; i < in.nnets; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(in.nets[i]->name, in.nets[j]->name) == 0) {
                cli_usage_error("sweep", "%s and %s both name their network '%s' (expected "
                                "one name per network: the rows name it)", a->files[j],
                                a->files[i], in.nets[i]->name);
                inputs_free(&in);
                return 2;
            }
    long size = sweep_grid_size(a->grid);
    char err[SPEC_ERR_LEN];
    /* every setting must make a problem before anything is written: built
     * once per cap list, as the cap changes only the caps, but each cap
     * resolved (one at or below the platform's reserve stopped the run
     * at its first setting, the rows before it written) */
    for (long i = 0; i < size; i++) {
        struct sweep_setting s;
        sweep_grid_setting(a->grid, i, &s);
        long inner = (long)a->grid->n[SWEEP_MICRO_BATCHES] * a->grid->n[SWEEP_SCHEDULE] *
                     a->grid->n[SWEEP_LAYOUT];
        struct knobs resolved;
        if (i / inner % a->grid->n[SWEEP_MEMORY] != 0 &&
            problem_knobs_resolve(&s.knobs, in.plat, &resolved, err, sizeof err) == 0)
            continue;
        struct problem *pb = problem_create(in.nets[s.network], in.plat, &s.knobs, err,
                                            sizeof err);
        if (!pb) {
            text_eprintf("pipeplan sweep: %s\n", err);
            inputs_free(&in);
            return 2;
        }
        problem_free(pb);
    }
    int nheader = 0;
    char **header = header_make(a, &in, size, &nheader);
    struct sweep_csv cf;
    memset(&cf, 0, sizeof cf);
    if (!header) {
        text_eprintf("pipeplan sweep: out of memory\n");
        goto out;
    }
    /* one sweep writes a CSV at a time: a second one on the same -o (a
     * requeued job, a command run twice) appended its rows too, and the
     * file no longer read back. Locked before anything is read or
     * rewritten, and again on the file the rows go to (a fresh file, or
     * one rewritten without its partial row, is another inode). */
    lockfd = open(a->output, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (lockfd >= 0 && output_lock(a, lockfd) < 0)
        goto out;
    if (output_open(a, header, nheader, size, &cf) < 0)
        goto out;
    int np = a->grid->nplanners;
    long total = 0, rows_done = cf.nrows;
    for (long i = a->shard; i < size; i += a->nshards)
        total++;
    long rows_total = total * np;
    /* settings with every row already there are skipped */
    long complete = 0;
    for (long r = 0; r < cf.nrows;) {
        long q = r;
        while (q < cf.nrows && cf.rows[q].setting == cf.rows[r].setting)
            q++;
        complete += q - r == np;
        r = q;
    }
    long todo = total - complete;
    if (cf.nrows > 0)
        text_eprintf("pipeplan sweep: %s: resuming: %ld of %ld rows there, %ld setting%s "
                     "to run\n", a->output, cf.nrows, rows_total, todo, todo == 1 ? "" : "s");
    int fd = open(a->output, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        text_eprintf("pipeplan sweep: %s: cannot append: %s\n", a->output, strerror(errno));
        goto out;
    }
    struct stat sl, sf;
    bool held = lockfd >= 0 && fstat(lockfd, &sl) == 0 && fstat(fd, &sf) == 0 &&
                sl.st_dev == sf.st_dev && sl.st_ino == sf.st_ino;
    if (!held) {
        /* the file was made or rewritten: the lock goes with its new inode
         * (two locks on one file, even in one process, exclude each other) */
        if (lockfd >= 0)
            close(lockfd);
        lockfd = -1;
        if (output_lock(a, fd) < 0) {
            close(fd);
            goto out;
        }
    }
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: the wait for the worker wakes up */
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    const char *hook = getenv("PIPEPLAN_SWEEP_STOP_AFTER");
    long stop_after = hook ? strtol(hook, NULL, 10) : -1;
    bool tty = isatty(STDERR_FILENO);
    double t0 = now_seconds();
    long ran = 0, written = 0;
    long r = 0;                          /* cursor in cf.rows (sorted by key) */
    bool failed = false;
    for (long i = a->shard; i < size && !stop_signal && !failed; i += a->nshards) {
        bool done[SWEEP_MAX_PLANNERS] = { false };
        int ndone = 0;
        while (r < cf.nrows && cf.rows[r].setting < i)
            r++;
        for (; r < cf.nrows && cf.rows[r].setting == i; r++, ndone++)
            done[cf.rows[r].key % np] = true;
        if (ndone == np)
            continue;
        struct sweep_setting s;
        sweep_grid_setting(a->grid, i, &s);
        struct problem *pb = problem_create(in.nets[s.network], in.plat, &s.knobs, err,
                                            sizeof err);
        if (!pb) {
            text_eprintf("pipeplan sweep: %s\n", err);
            failed = true;
            break;
        }
        double t1 = now_seconds();
        long w = run_setting(a, &in, i, pb, done, fd);
        if (w == -2)
            failed = true;
        if (w >= 0) {
            ran++;
            written += w;
            rows_done += w;
            double el = now_seconds() - t0, rate = ran / (el > 0 ? el : 1e-9);
            char left[32], words[300];
            if (tty) {
                fprintf(stderr, "\rpipeplan sweep: %ld/%ld settings, %ld/%ld rows, "
                        "%.2f settings/s, about %s left   ", complete + ran, total, rows_done,
                        rows_total, rate, clock_text((todo - ran) / rate, left, sizeof left));
            } else {
                text_eprintf("pipeplan sweep: setting %ld (%ld/%ld): %s: %ld row%s in %.1f s\n",
                             i, complete + ran, total,
                             setting_text(&in, pb, &s, words, sizeof words), w,
                             w == 1 ? "" : "s", now_seconds() - t1);
            }
        }
        problem_free(pb);
        if (stop_after >= 0 && written >= stop_after && !stop_signal)
            raise(SIGTERM);
    }
    if (tty && ran > 0)
        fputc('\n', stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (close(fd) != 0 && !failed) {
        text_eprintf("pipeplan sweep: %s: %s\n", a->output, strerror(errno));
        failed = true;
    }
    if (failed)
        goto out;
    if (stop_signal) {
        text_eprintf("pipeplan sweep: stopped by %s: %ld of %ld rows in %s; run the same "
                     "command again to resume\n", stop_signal == SIGINT ? "SIGINT"
                     : stop_signal == SIGTERM ? "SIGTERM" : "SIGHUP", rows_done, rows_total,
                     a->output);
        rc = 128 + stop_signal;
        goto out;
    }
    text_eprintf("pipeplan sweep: %s: %ld row%s (%ld new) in %.1f s\n", a->output, rows_done,
                 rows_done == 1 ? "" : "s", written, now_seconds() - t0);
    rc = 0;
    if (a->plot) {
        char perr[SPEC_ERR_LEN + 200];
        struct sweep_csv all;
        if (csv_load(a->output, a->grid, size, a->shard, a->nshards, &all, perr,
                     sizeof perr) < 0 ||
            plot_write(a->plot, all.rows, all.nrows, perr, sizeof perr) < 0) {
            text_eprintf("pipeplan sweep: %s\n", perr);
            rc = 2;
        }
        sweep_csv_free(&all);
    }
out:
    if (lockfd >= 0)
        close(lockfd);
    sweep_csv_free(&cf);
    header_free(header, nheader);
    inputs_free(&in);
    return rc;
}

/* ---- merging shards ---- */

/* The line without its last field (the seconds, which differ between runs). */
static size_t without_seconds(const char *line)
{
    const char *comma = strrchr(line, ',');
    return comma ? (size_t)(comma - line) : strlen(line);
}

/* The header lines of a sweep CSV, for the grid's size and planners. */
static int merge_grid(const char *path, struct sweep_grid *g, long *size)
{
    char err[SPEC_ERR_LEN];
    char *text = fileio_read(path, NULL, err, sizeof err);
    if (!text) {
        text_eprintf("pipeplan sweep: %s\n", err);
        return -1;
    }
    const char *sz = strstr(text, "\n# size settings=");
    const char *pl = strstr(text, " planners=");
    const char *cols = strstr(text, sweep_columns);
    int rc = -1, np = 0;
    char list[512];
    if (sz && pl && cols && pl < cols &&
        sscanf(sz, "\n# size settings=%ld planners=%d", size, &np) == 2 && *size > 0 &&
        *size <= SWEEP_MAX_SETTINGS && sscanf(pl, " planners=%511[a-z0-9,_-]", list) == 1) {
        g->nplanners = cli_parse_planners("sweep", list, g->planners, SWEEP_MAX_PLANNERS);
        rc = g->nplanners == np ? 0 : -1;
    }
    if (rc < 0)
        text_eprintf("pipeplan sweep: %s: no pipeplan sweep header (expected the \"# size\" "
                     "and \"# grid\" lines a sweep writes)\n", path);
    free(text);
    return rc;
}

static int sweep_merge(const struct sweep_args *a)
{
    struct sweep_grid *g = sweep_grid_new(1);
    struct sweep_csv *files = calloc((size_t)a->nfiles, sizeof *files);
    struct sweep_csv_row *all = NULL;
    long size = 0, nall = 0;
    int rc = 2;
    char err[SPEC_ERR_LEN + 200];
    if (!g || !files) {
        text_eprintf("pipeplan sweep: out of memory\n");
        goto out;
    }
    if (merge_grid(a->files[0], g, &size) < 0)
        goto out;
    for (int f = 0; f < a->nfiles; f++) {
        struct sweep_csv *cf = &files[f];
        if (csv_load(a->files[f], g, size, -1, 1, cf, err, sizeof err) < 0) {
            text_eprintf("pipeplan sweep: %s\n", err);
            goto out;
        }
        int which;
        int bad = header_mismatch(files[0].header, files[0].nheader, cf->header, cf->nheader,
                                  &which);
        if (bad >= 0) {
            text_eprintf("pipeplan sweep: %s was made from other inputs or settings than %s: "
                         "%s '%s'\n", a->files[f], a->files[0], which ? "it has" : "it lacks",
                         which ? cf->header[bad] : files[0].header[bad]);
            goto out;
        }
        const char *shard = csv_header_value(cf, "shard");
        for (int e = 0; e < f; e++) {
            const char *other = csv_header_value(&files[e], "shard");
            if (shard && other && strcmp(shard, other) == 0) {
                text_eprintf("pipeplan sweep: shard %s given twice: %s and %s\n", shard,
                             a->files[e], a->files[f]);
                goto out;
            }
        }
        if (cf->partial_line)
            text_eprintf("pipeplan sweep: %s:%d: a partial last row (an interrupted run), "
                         "ignored\n", a->files[f], cf->partial_line);
        nall += cf->nrows;
    }
    all = malloc(((size_t)nall + 1) * sizeof *all);
    if (!all) {
        text_eprintf("pipeplan sweep: out of memory\n");
        goto out;
    }
    nall = 0;
    for (int f = 0; f < a->nfiles; f++)
        for (long i = 0; i < files[f].nrows; i++) {
            all[nall] = files[f].rows[i];
            /* the file, for messages: its index in the line field's place */
            all[nall++].line = f;
        }
    qsort(all, (size_t)nall, sizeof *all, sweep_csv_row_cmp);
    long kept = 0;
    for (long i = 0; i < nall; i++) {
        if (kept > 0 && all[kept - 1].key == all[i].key) {
            size_t n = without_seconds(all[i].text);
            if (n != without_seconds(all[kept - 1].text) ||
                strncmp(all[i].text, all[kept - 1].text, n) != 0) {
                text_eprintf("pipeplan sweep: setting %ld, planner %s: %s and %s disagree\n",
                             all[i].setting, g->planners[all[i].key % g->nplanners],
                             a->files[all[kept - 1].line], a->files[all[i].line]);
                goto out;
            }
            continue;
        }
        all[kept++] = all[i];
    }
    /* the absent settings: a setting is there when every planner's row is */
    long absent = 0, shown = 0;
    char list[400] = "";
    size_t at = 0;
    long k = 0;
    for (long s = 0; s < size; s++) {
        int have = 0;
        while (k < kept && all[k].setting == s) {
            k++;
            have++;
        }
        if (have == g->nplanners)
            continue;
        absent++;
        if (shown < 20 && at < sizeof list) {
            int w = snprintf(list + at, sizeof list - at, "%s%ld", shown ? ", " : "", s);
            at += w > 0 ? (size_t)w : 0;
            shown++;
        }
    }
    if (absent > 0) {
        text_eprintf("pipeplan sweep: %ld of %ld settings absent: %s%s (settings are numbered "
                     "from 0; shard I/N holds those equal to I mod N); nothing written\n",
                     absent, size, list, absent > shown ? ", ..." : "");
        rc = 1;
        goto out;
    }
    struct csv_write w = { files[0].header, files[0].nheader, "# shard 0/1", all, kept };
    if (fileio_write_atomic(a->output, a->force, csv_writer, &w, err, sizeof err) < 0) {
        text_eprintf("pipeplan sweep: %s\n", err);
        goto out;
    }
    text_eprintf("pipeplan sweep: %s: %ld row%s from %d file%s\n", a->output, kept,
                 kept == 1 ? "" : "s", a->nfiles, a->nfiles == 1 ? "" : "s");
    rc = 0;
    if (a->plot && plot_write(a->plot, all, kept, err, sizeof err) < 0) {
        text_eprintf("pipeplan sweep: %s\n", err);
        rc = 2;
    }
out:
    for (int f = 0; files && f < a->nfiles; f++)
        sweep_csv_free(&files[f]);
    free(files);
    free(all);
    sweep_grid_free(g);
    return rc;
}

/* Whether two paths name one file: that file, or, where neither is there
 * yet, the same name in the same directory (-o out.svg --plot ./out.svg
 * wrote the plot over the rows). */
static bool paths_same(const char *x, const char *y)
{
    struct stat sx, sy;
    if (strcmp(x, y) == 0)
        return true;
    bool hx = stat(x, &sx) == 0, hy = stat(y, &sy) == 0;
    if (hx || hy)
        return hx && hy && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
    const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
    bx = bx ? bx + 1 : x;
    by = by ? by + 1 : y;
    if (strcmp(bx, by) != 0)
        return false;
    /* the directories with their last slash ("/" for "/out.svg"), or "." */
    char *dx = bx > x ? strndup(x, (size_t)(bx - x)) : strdup(".");
    char *dy = by > y ? strndup(y, (size_t)(by - y)) : strdup(".");
    bool same = dx && dy && stat(dx, &sx) == 0 && stat(dy, &sy) == 0 &&
                sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
    free(dx);
    free(dy);
    return same;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_args a;
    memset(&a, 0, sizeof a);
    cli_set_command("sweep");
    a.ilp = (struct ilp_args){ 10.0, 0, 1, -1, NULL };
    a.nshards = 1;
    static const char *const value_flags[] = {
        "--gpus", "--memory", "--micro-batches", "--schedule", "--layout", "--planner",
        "--shard", "--plot", "--output", "-o", NULL
    };
    static const enum sweep_axis axes[] = { SWEEP_GPUS, SWEEP_MEMORY, SWEEP_MICRO_BATCHES,
                                            SWEEP_SCHEDULE, SWEEP_LAYOUT };
    const char *planners = "all";
    const char *v = NULL;
    int rc = 2;
    /* the grid's networks are counted once the files are: axes first */
    const char *axis_text[SWEEP_AXES] = { NULL };
    /* the first option of a run that --merge does not take: the merge
     * went on without it (--planner dp merged every planner's rows) */
    const char *run_only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int r = cli_parse_ilp(argc, argv, &i, &a.ilp);
        if (r < 0)
            return 2;
        if (r > 0) {
            run_only = run_only ? run_only : arg;
            if (a.ilp.log_path)
                return cli_usage_error("sweep", "--log is not a sweep option (expected it "
                                       "with solve, on one setting)");
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return cli_help("sweep", sweep_usage);
        } else if (strcmp(argv[i], "--force") == 0) {
            a.force = true;
        } else if (strcmp(argv[i], "--merge") == 0) {
            a.merge = true;
        } else if ((r = cli_flag_match(value_flags, argc, argv, &i, &v)) != -1) {
            if (r < 0)
                return 2;
            if (r < 7 && !run_only)
                run_only = arg;
            if (r < 5) {
                axis_text[axes[r]] = v;
            } else if (r == 5) {
                planners = v;
            } else if (r == 6) {
                char err[200];
                if (sweep_shard_parse(v, &a.shard, &a.nshards, err, sizeof err) < 0)
                    return cli_usage_error("sweep", "bad --shard '%s': %s", v, err);
            } else if (!*v) {
                return cli_usage_error("sweep", "%s needs a file name", value_flags[r]);
            } else if (r == 7) {
                size_t n = strlen(v);
                if (n < 4 || strcmp(v + n - 4, ".svg") != 0)
                    return cli_usage_error("sweep", "bad --plot '%s' (expected a file name "
                                           "ending in .svg)", v);
                a.plot = v;
            } else {
                a.output = v;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_unknown_option(argv[i]);
        } else if (a.nfiles < (int)(sizeof a.files / sizeof a.files[0])) {
            a.files[a.nfiles++] = argv[i];
        } else {
            return cli_usage_error("sweep", "more than %d files",
                                   (int)(sizeof a.files / sizeof a.files[0]));
        }
    }
    if (!a.output)
        return cli_usage_error("sweep", "missing -o FILE.csv (expected " CLI_USAGE_SWEEP ")");
    if (a.plot && paths_same(a.plot, a.output))
        return cli_usage_error("sweep", "--plot and -o name the same file");
    /* the plot comes last: a path it cannot write is refused before the
     * grid runs or the merged file is written */
    char perr[1200];
    if (a.plot && fileio_probe(a.plot, true, perr, sizeof perr) < 0) {
        text_eprintf("pipeplan sweep: %s\n", perr);
        return 2;
    }
    if (a.merge) {
        if (run_only)
            return cli_usage_error("sweep", "--merge takes CSV files, -o, --force and --plot "
                                   "only (the grid is in the files), not %.*s",
                                   (int)strcspn(run_only, "="), run_only);
        if (a.nfiles == 0)
            return cli_usage_error("sweep", "--merge needs CSV files (expected "
                                   CLI_USAGE_MERGE ")");
        return sweep_merge(&a);
    }
    /* -o one of the inputs: its resume would refuse it, and --force
     * would replace the network or the platform with the CSV */
    struct stat so, si;
    if (stat(a.output, &so) == 0)
        for (int f = 0; f < a.nfiles; f++)
            if (stat(a.files[f], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
                return cli_usage_error("sweep", "-o '%s' is the input file '%s' (expected "
                                       "another name for the CSV)", a.output, a.files[f]);
    if (a.nfiles < 2)
        return cli_usage_error("sweep", "missing %s (expected " CLI_USAGE_SWEEP ")",
                               a.nfiles ? "PLATFORM.ini after the network files"
                               : "NETWORK.ini and PLATFORM.ini");
    a.grid = sweep_grid_new(a.nfiles - 1);
    if (!a.grid) {
        text_eprintf("pipeplan sweep: out of memory\n");
        return 2;
    }
    static const char *const axis_flag[SWEEP_AXES] = {
        "--gpus", "--memory", "--micro-batches", "--schedule", "--layout"
    };
    for (int x = 0; x < SWEEP_AXES; x++) {
        char err[200];
        if (axis_text[x] &&
            sweep_grid_set(a.grid, (enum sweep_axis)x, axis_text[x], err, sizeof err) < 0) {
            cli_usage_error("sweep", "bad %s '%s': %s", axis_flag[x], axis_text[x], err);
            goto out;
        }
    }
    a.grid->nplanners = cli_parse_planners("sweep", planners, a.grid->planners, SWEEP_MAX_PLANNERS);
    if (a.grid->nplanners <= 0)
        goto out;
    for (int p = 0; p < a.grid->nplanners; p++)
        if (planner_is_given(a.grid->planners[p])) {
            cli_usage_error("sweep", "--planner %s is your own plan, which a sweep does not "
                            "take", a.grid->planners[p]);
            goto out;
        }
    if (sweep_grid_size(a.grid) < 0) {
        cli_usage_error("sweep", "more than %ld settings in the grid", SWEEP_MAX_SETTINGS);
        goto out;
    }
    rc = sweep_run(&a);
out:
    sweep_grid_free(a.grid);
    return rc;
}
