/* export: the formats `solve --format` and the explorer's e write, as a
 * table of writers (name -> writer) that further formats extend. Each
 * writer fills a stream; export_file() writes one to a file
 * atomically. */
#ifndef PIPEPLAN_EXPORT_H
#define PIPEPLAN_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "report.h"

struct export_input {
    const struct report *rep;             /* table, json: every result */
    const struct planner_result *res;     /* one-plan formats: the plan exported */
    long tensor_parallel;                 /* GPUs per pipeline rank (the network's) */
};

struct export_format {
    const char *name;                     /* as given to --format */
    const char *what;                     /* a few words for --help and the chooser */
    const char *ext;                      /* file extension the explorer proposes */
    bool one_plan;                        /* writes in->res, not the whole report */
    /* Whether this plan can be written: 0, or -1 with why in err (the
     * writer is then not called). NULL: always. */
    int (*check)(const struct export_input *in, char *err, size_t errlen);
    /* Returns 0, or -1 on a stream error. */
    int (*write)(FILE *out, const struct export_input *in);
    /* Whether any plan of this network can be written: 0, or -1 with why
     * in err. Asked before planning, so that a solve of seconds does not
     * end in a refusal known from the start. NULL: any network. */
    int (*network)(const struct problem *pb, char *err, size_t errlen);
};

int export_count(void);
const struct export_format *export_format_at(int i);
const struct export_format *export_find(const char *name);
/* "table, json, csv, ..." */
const char *export_names(char *buf, size_t len);

/* Write PATH atomically with f's writer (fileio_write_atomic; the caller
 * has run f->check). Returns 0, or -1 with "PATH: reason" in err. */
int export_file(const char *path, bool force, const struct export_format *f,
                const struct export_input *in, char *err, size_t errlen);

/* The writers, for tests. */
int export_csv(FILE *out, const struct problem *pb, const struct plan *pl);

#endif
