/* fuzz_sweep: a sweep CSV read back (sweep_csv_parse, what a resumed
 * sweep and sweep --merge read: the "# ..." header, the column line, the
 * rows, a partial last row), for the grid its "# size" line names as
 * --merge finds it (else 4 settings of dp and uniform), whole, header
 * only and as shard 1/2. A refusal says where; a file accepted has its
 * rows in the grid, sorted, one per key, and written back as a sweep
 * writes it reads again as the same rows (a resumed run rewrites it so). */
#include "fuzz.h"
#include "sweep.h"

struct parsed {
    int rc;
    struct sweep_csv cf;
    char err[512];
};

static void parse(const char *text, const struct sweep_grid *g, long size, long shard,
                  long nshards, struct parsed *p)
{
    char *copy = strdup(text);
    FUZZ_ASSERT(copy, "strdup");
    p->err[0] = '\0';
    p->rc = sweep_csv_parse(copy, strlen(copy), "fuzz.csv", g, size, shard, nshards, &p->cf,
                            p->err, sizeof p->err);
    free(copy);
    FUZZ_ASSERT(p->rc == 0 || p->rc == -1, "returned %d", p->rc);
    if (p->rc < 0) {
        FUZZ_ASSERT(strncmp(p->err, "fuzz.csv:", 9) == 0, "message '%s'", p->err);
        FUZZ_ASSERT(!p->cf.header && !p->cf.rows && !p->cf.nheader && !p->cf.nrows,
                    "a refusal keeps rows");
    }
}

static void rows_check(const struct sweep_csv *cf, const struct sweep_grid *g, long size)
{
    for (int i = 0; i < cf->nheader; i++)
        FUZZ_ASSERT(cf->header[i][0] == '#', "header line %d '%s'", i, cf->header[i]);
    for (long i = 0; i < cf->nrows; i++) {
        const struct sweep_csv_row *r = &cf->rows[i];
        FUZZ_ASSERT(r->setting >= 0 && r->setting < size, "setting %ld of %ld", r->setting,
                    size);
        FUZZ_ASSERT(i == 0 || cf->rows[i - 1].key < r->key, "row %ld out of order", i);
        FUZZ_ASSERT(r->line > cf->nheader && (!cf->partial_line || r->line < cf->partial_line),
                    "row %ld on line %d", i, r->line);
        size_t n = strlen(r->text);
        FUZZ_ASSERT(n > 0 && r->text[n - 1] == '\n' && !memchr(r->text, '\n', n - 1),
                    "row %ld not one line", i);
        char *copy = strdup(r->text), *f[SWEEP_NCOLUMNS + 1];
        FUZZ_ASSERT(copy, "strdup");
        copy[n - 1] = '\0';
        FUZZ_ASSERT(sweep_csv_split(copy, f, SWEEP_NCOLUMNS + 1) == SWEEP_NCOLUMNS,
                    "row %ld fields", i);
        FUZZ_ASSERT(sweep_row_key(g, r->setting, f[SWEEP_COL_PLANNER]) == r->key, "row %ld key",
                    i);
        free(copy);
    }
}

/* As a sweep writes what it read: header, column line, rows, in LF. */
static void round_trip(const struct sweep_csv *cf, const struct sweep_grid *g, long size)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_ASSERT(f, "open_memstream");
    for (int i = 0; i < cf->nheader; i++)
        fprintf(f, "%s\n", cf->header[i]);
    fprintf(f, "%s\n", sweep_columns);
    for (long i = 0; i < cf->nrows; i++)
        fputs(cf->rows[i].text, f);
    FUZZ_ASSERT(fclose(f) == 0, "fclose");
    struct parsed back;
    parse(out, g, size, -1, 1, &back);
    FUZZ_ASSERT(back.rc == 0, "written back, refused: %s\n%s", back.err, out);
    FUZZ_ASSERT(!back.cf.partial_line, "written back: a partial row");
    FUZZ_ASSERT(back.cf.nheader == cf->nheader && back.cf.nrows == cf->nrows,
                "written back: %d header lines, %ld rows (were %d, %ld)", back.cf.nheader,
                back.cf.nrows, cf->nheader, cf->nrows);
    /* a header line may end in a CR of its own ("...\r\r\n" read): written
     * back before its LF, that CR reads as a line end (the comparisons
     * of headers stop at an input's hash, and a shard line so ended is
     * refused); a row cannot (its last field is a number) */
    bool cr = false;
    for (int i = 0; i < cf->nheader; i++) {
        size_t n = strlen(cf->header[i]);
        bool ends = n > 0 && cf->header[i][n - 1] == '\r';
        cr = cr || ends;
        FUZZ_ASSERT(strlen(back.cf.header[i]) == n - ends &&
                    strncmp(back.cf.header[i], cf->header[i], n - ends) == 0, "header line %d",
                    i);
    }
    FUZZ_ASSERT(!back.cf.respelled || cr, "written back: respelled");
    for (long i = 0; i < cf->nrows; i++)
        FUZZ_ASSERT(back.cf.rows[i].key == cf->rows[i].key &&
                    strcmp(back.cf.rows[i].text, cf->rows[i].text) == 0, "row %ld", i);
    sweep_csv_free(&back.cf);
    free(out);
}

/* The grid as sweep --merge reads it from the header (merge_grid): the
 * settings and the planners' names. */
static long grid_from(const char *text, struct sweep_grid *g, char *list, size_t len)
{
    const char *sz = strstr(text, "\n# size settings=");
    const char *pl = strstr(text, " planners=");
    const char *cols = strstr(text, sweep_columns);
    long size = 0;
    int np = 0;
    FUZZ_ASSERT(len >= 512, "list");
    if (sz && pl && cols && pl < cols &&
        sscanf(sz, "\n# size settings=%ld planners=%d", &size, &np) == 2 && size > 0 &&
        size <= SWEEP_MAX_SETTINGS && sscanf(pl, " planners=%511[a-z0-9,_-]", list) == 1) {
        g->nplanners = 0;
        for (char *save = NULL, *t = strtok_r(list, ",", &save);
             t && g->nplanners < SWEEP_MAX_PLANNERS; t = strtok_r(NULL, ",", &save))
            g->planners[g->nplanners++] = t;
        if (g->nplanners == np && np > 0)
            return size;
    }
    g->nplanners = 2;
    g->planners[0] = "dp";
    g->planners[1] = "uniform";
    return 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct sweep_grid *g = sweep_grid_new(1);
    FUZZ_ASSERT(g, "sweep_grid_new");
    char list[512];
    long n = grid_from(text, g, list, sizeof list);

    struct parsed all, head, odd;
    parse(text, g, n, -1, 1, &all);
    parse(text, NULL, n, -1, 1, &head);
    parse(text, g, n, 1, 2, &odd);
    if (all.rc == 0) {
        rows_check(&all.cf, g, n);
        round_trip(&all.cf, g, n);
        /* the header alone reads wherever the whole file does */
        FUZZ_ASSERT(head.rc == 0 && head.cf.nheader == all.cf.nheader && !head.cf.nrows,
                    "header only: %s", head.err);
    }
    if (odd.rc == 0) {
        /* a shard's rows are rows of the whole */
        FUZZ_ASSERT(all.rc == 0 && all.cf.nrows == odd.cf.nrows, "shard 1/2 only: %s",
                    all.err);
        for (long i = 0; i < odd.cf.nrows; i++)
            FUZZ_ASSERT(odd.cf.rows[i].setting % 2 == 1, "setting %ld in shard 1/2",
                        odd.cf.rows[i].setting);
    }
    sweep_csv_free(&all.cf);
    sweep_csv_free(&head.cf);
    sweep_csv_free(&odd.cf);
    sweep_grid_free(g);
    free(text);
    return 0;
}
