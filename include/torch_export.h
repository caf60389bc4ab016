/* torch_export: a plan as PyTorch's torch.distributed.pipelining (and
 * torchtitan) take it: the program text naming the stages, their modules,
 * split points, ranks and schedule class (`torch`), and the schedule as the
 * compute_only CSV that _PipelineScheduleRuntime._load_csv reads
 * (`torch-schedule`). Pure C: writes to the stream it is given, no other
 * I/O.
 *
 * A stage is a maximal run of consecutive layers on one GPU, but for a
 * V-shaped plan's middle run (R GPUs in 2R-1 runs, runs s and 2R-2-s on
 * one GPU), which is two stages, cut where its compute halves, so that
 * torchtitan's V schedules (two stages a rank) take the plan; stages are
 * numbered 0.. in chain order. The pipeline ranks are the GPUs that hold a
 * layer, numbered in the order of their first stage (rank 0 holds stage 0).
 * The schedule is one iteration: micro-batches 0..m-1 at the plan's start
 * times start[o] + j*T, each rank's actions in time order (doc/model.md
 * section 2). */
#ifndef PIPEPLAN_TORCH_EXPORT_H
#define PIPEPLAN_TORCH_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "plan.h"
#include "problem.h"

/* `torch`: commented Python (data and a short example). Returns 0, or -1
 * with a one-line message in err (malformed plan, a layer without a name,
 * out of memory, stream error). */
int torch_export_program(FILE *out, const struct problem *pb, const struct plan *pl,
                         char *err, size_t errlen);

/* `torch-schedule`: one row per rank, comma-separated actions such as 0F3
 * (stage 0, forward, micro-batch 3) or 2B3, in the order the rank runs
 * them; no header, no idle cells. Returns 0, or -1 with a message. */
int torch_export_schedule(FILE *out, const struct problem *pb, const struct plan *pl,
                          char *err, size_t errlen);

/* Check a compute_only schedule CSV for nstages stages, nranks ranks and m
 * micro-batches: one row per rank; every cell empty (idle) or
 * STAGE{F|B}MICROBATCH; every stage on one rank; one F and one B per stage
 * and micro-batch; and the rows can run, i.e. replaying them with each
 * action waiting for F of the stage before (same micro-batch), and B for F
 * of its own stage and B of the stage after, never deadlocks. Returns 0, or
 * -1 with the first problem in err ("rank 1, column 4: 2B3 before 3B3");
 * columns count from 0, idle cells included. */
int torch_schedule_validate(const char *csv, int nstages, int nranks, int m,
                            char *err, size_t errlen);

/* The first cell of a schedule CSV that does not read as an action (or
 * is quoted), named by its rank and column as torch_schedule_validate()
 * names it: -1 with err; 0 when every cell reads or is empty. */
int torch_schedule_cells(const char *csv, char *err, size_t errlen);

/* The stages, ranks (rows) and micro-batches a schedule CSV implies, for
 * checking a file on its own, and the cells that read as actions (a
 * complete schedule has 2 x stages x micro-batches). Returns 0, or -1 when
 * no cell reads as an action. */
int torch_schedule_shape(const char *csv, int *nstages, int *nranks, int *m, long *actions);

/* Whether pipeplan check reads a file as a schedule CSV: its first line
 * is no section or comment, and the file is named .csv or starts with a
 * digit (an action such as 0F0). */
bool torch_schedule_is(const char *text, const char *name);

/* A schedule file as pipeplan check reads it: no byte order mark and no
 * blank line (torch's _load_csv would read either as part of the
 * schedule), every cell an action or empty, and the stages, ranks and
 * micro-batches torch_schedule_shape() implies passing
 * torch_schedule_validate(). Returns 0 with those counts; -1 with the
 * problem in err and the line it is on in *line (0: err names rank and
 * column, or no line); -2 when out of memory. */
int torch_schedule_read(const char *text, int *nstages, int *nranks, int *m, int *line,
                        char *err, size_t errlen);

/* Whether both exports can unroll pl's iteration: 0, or -1 with its size
 * and what to change in err when it has more actions (2 x stages x
 * micro-batches) than the exports write (ten million). Cheap: asked before
 * writing, so that a refusal comes before gigabytes and minutes. */
int torch_schedule_size(const struct problem *pb, const struct plan *pl, char *err,
                        size_t errlen);

/* Stages and pipeline ranks of a plan as above; -1 when pl is malformed. */
int torch_stage_count(const struct plan *pl);
int torch_rank_count(const struct plan *pl);

#endif
