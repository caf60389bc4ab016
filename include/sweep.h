/* sweep: the grid of settings `pipeplan sweep` runs (networks x GPUs x
 * memory caps x micro-batches x schedules x layouts), its order, its
 * shards, and the CSV rows it writes. Pure C, no I/O.
 *
 * Settings are numbered 0..size-1 in grid order: the network outermost,
 * then GPUs, memory, micro-batches, schedule, layout (innermost). Shard I
 * of N (I in 0..N-1) holds the settings whose number is I mod N. */
#ifndef PIPEPLAN_SWEEP_H
#define PIPEPLAN_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "problem.h"

#define SWEEP_MAX_VALUES 4096        /* values of one knob */
#define SWEEP_MAX_SETTINGS 10000000L /* settings of a grid */
#define SWEEP_MAX_PLANNERS 16

enum sweep_axis { SWEEP_GPUS, SWEEP_MEMORY, SWEEP_MICRO_BATCHES, SWEEP_SCHEDULE, SWEEP_LAYOUT,
                  SWEEP_AXES };

/* Each axis holds at least one value; the value 0 (-1 for schedule and
 * layout) means "as in the files". */
struct sweep_grid {
    int nnetworks;
    int n[SWEEP_AXES];
    int64_t *values[SWEEP_AXES];
    int nplanners;
    const char *planners[SWEEP_MAX_PLANNERS];   /* static registry names */
};

struct sweep_setting {
    int network;                 /* index among the network files */
    struct knobs knobs;          /* the setting's knobs (blocks left automatic) */
};

/* Every axis "as in the files", no planner. NULL when out of memory. */
struct sweep_grid *sweep_grid_new(int nnetworks);
void sweep_grid_free(struct sweep_grid *g);

/* Set one axis from the user's text: "4,8,16" (GPUs, micro-batches),
 * "40GB,80GB" or "START:STOP:STEP" with units ("40GB:141GB:10GB", exact
 * in bytes: STOP is included when the steps land on it), "1f1b,pipedream",
 * "any,contiguous". Returns 0, or -1 with why in err (an empty list or
 * item, a bad number or unit, START above STOP, a step of zero, more than
 * SWEEP_MAX_VALUES values, a value given twice). */
int sweep_grid_set(struct sweep_grid *g, enum sweep_axis axis, const char *text,
                   char *err, size_t errlen);

/* Settings in the grid (networks included); -1 above SWEEP_MAX_SETTINGS. */
long sweep_grid_size(const struct sweep_grid *g);
/* Setting `index` (0 <= index < size). */
void sweep_grid_setting(const struct sweep_grid *g, long index, struct sweep_setting *s);
/* One line (no newline) naming the grid, the same for the same grid:
 * "networks=2 gpus=4,8 memory=40000000000 micro_batches=files ..." */
char *sweep_grid_describe(const struct sweep_grid *g, char *buf, size_t len);
/* The bytes (the NUL included) a buffer must have for the whole line: a
 * line cut short names two grids alike, and a resume took one for the
 * other (4096 caps filled a buffer of 7000 before the schedules). */
size_t sweep_grid_describe_size(const struct sweep_grid *g);

/* "I/N" with 0 <= I < N. Returns 0, or -1 with why in err. */
int sweep_shard_parse(const char *text, long *shard, long *nshards, char *err, size_t errlen);
static inline bool sweep_shard_has(long index, long shard, long nshards)
{
    return index % nshards == shard;
}

/* The key of a row: its setting and its planner's place in the grid's
 * planners; -1 for a planner the grid does not run. */
long sweep_row_key(const struct sweep_grid *g, long setting, const char *planner);

/* ---- CSV ---- */
enum sweep_column {
    SWEEP_COL_SETTING, SWEEP_COL_NETWORK, SWEEP_COL_PLATFORM, SWEEP_COL_GPUS, SWEEP_COL_MEMORY,
    SWEEP_COL_MICRO_BATCHES, SWEEP_COL_SCHEDULE, SWEEP_COL_LAYOUT, SWEEP_COL_PLANNER,
    SWEEP_COL_STATUS, SWEEP_COL_PERIOD, SWEEP_COL_ITERATION, SWEEP_COL_THROUGHPUT,
    SWEEP_COL_BOUND, SWEEP_COL_BLOCK_BOUND, SWEEP_COL_GAP, SWEEP_COL_FITS, SWEEP_COL_PEAK_MEMORY,
    SWEEP_COL_PEAK_GPU, SWEEP_COL_MESSAGE, SWEEP_COL_SECONDS, SWEEP_NCOLUMNS
};
/* The column line (no newline). */
extern const char sweep_columns[];

/* One row; NaN numbers and missing plans are written as empty fields. */
struct sweep_row {
    long setting;
    const char *network, *platform;
    int gpus;
    uint64_t memory;             /* the cap of every GPU, bytes (0: not uniform) */
    long micro_batches;
    const char *schedule, *layout, *planner, *status;
    bool has_plan;
    double period, iteration, throughput, bound, block_bound, gap;
    bool fits;
    double peak_memory;          /* bytes */
    int peak_gpu;
    const char *message;         /* why (an error, a surprise), or NULL */
    double seconds;
};

/* The row as one CSV line with its newline: numbers that round-trip
 * (%.17g, bytes as integers), names quoted per RFC 4180 when they hold
 * a comma or a quote (a line break in a name is written as a blank). Returns the length, or -1 when buf is
 * too small. */
int sweep_row_format(const struct sweep_row *r, char *buf, size_t len);

/* Split one CSV line (without its newline) in place into at most `max`
 * fields (quotes removed, "" unescaped). Returns the field count, or -1
 * for bad quoting or more than max fields. */
int sweep_csv_split(char *line, char **fields, int max);

/* ---- reading a sweep CSV back (a run resumed, --merge) ---- */
struct sweep_csv_row {
    long key;                    /* sweep_row_key */
    long setting;
    int line;
    char *text;                  /* the whole line with its newline */
};

struct sweep_csv {
    const char *path;
    char **header;               /* the "# ..." lines, without newline */
    int nheader;
    struct sweep_csv_row *rows;  /* by key */
    long nrows;
    int partial_line;            /* line number of a dropped partial last line, or 0 */
    bool respelled;              /* read past a BOM or CRLF line ends: rewrite in LF */
};

/* Parse the text (len bytes, NUL-terminated; its line breaks are
 * overwritten) of a sweep CSV made for grid g of `size` settings: the
 * header, the column line, then rows of nshards' shard (shard < 0: any),
 * sorted by key; with g NULL the header and the column line only. A last
 * line without its newline or with too few fields is a partial row (a
 * killed run): dropped, its line number kept. A row whose status or
 * figures do not read as a run writes them, or a key given twice, is
 * refused. Returns 0, or -1 with "PATH:LINE: why" and cf emptied. */
int sweep_csv_parse(char *text, size_t len, const char *path, const struct sweep_grid *g,
                    long size, long shard, long nshards, struct sweep_csv *cf, char *err,
                    size_t errlen);
void sweep_csv_free(struct sweep_csv *cf);
/* qsort order of struct sweep_csv_row: by key */
int sweep_csv_row_cmp(const void *x, const void *y);

#endif
