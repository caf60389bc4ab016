/* planfile: the plan file, a whole plan as text. `solve --format plan`
 * writes it and `--plan FILE` (and the explorer's p) read it back: the
 * allocation and the schedule (period, start of every operation), so a
 * round trip gives the same plan. The format (man page, PLAN FILE):
 *
 *   ; comment lines
 *   [plan]
 *   network = NAME          ; the network's name
 *   layers = L
 *   gpus = P
 *   period = 12.5ms
 *   schedule = 1f1b         ; optional: the settings it was judged for
 *   micro_batches = 32
 *   weight_factor = 4
 *
 *   [layer NAME]            ; one per layer, in chain order
 *   gpu = 0
 *   forward_start = 0ms     ; start of F for micro-batch 0
 *   backward_start = 31.2ms ; start of B
 *
 * Reading checks every line against the problem being planned, then the
 * plan with the simulator (doc/model.md section 6); errors are
 * "FILE:LINE: what is wrong (what was expected)". */
#ifndef PIPEPLAN_PLANFILE_H
#define PIPEPLAN_PLANFILE_H

#include <stdio.h>
#include "plan.h"
#include "problem.h"

/* Write pl (evaluated against pb) as a plan file; `planner` (a title, or
 * NULL) is named in the header comment. Returns 0, or -1 on a stream
 * error. */
int planfile_write(FILE *out, const struct problem *pb, const struct plan *pl,
                   const char *planner);

/* Whether pl can be written as a plan file that reads back: every time
 * within what the reader takes (PLANFILE_MAX_MS). Returns 0, or -1 with
 * the reason in err. */
int planfile_check(const struct plan *pl, char *err, size_t errlen);

/* Parse text (label names it in messages) into a plan for pb, evaluated
 * and checked by the simulator. Returns the plan (plan_free), or NULL
 * with the message in err. When the file names settings it was judged
 * for (schedule, micro-batches, weight factor) that differ from pb's,
 * note (when not NULL) says which, else it is "": the plan is judged
 * for pb's all the same. */
struct plan *planfile_parse(const char *text, const char *label, const struct problem *pb,
                            char *note, size_t notelen, char *err, size_t errlen);

/* Read and parse the file at path. */
struct plan *planfile_load(const char *path, const struct problem *pb, char *note,
                           size_t notelen, char *err, size_t errlen);

#endif
