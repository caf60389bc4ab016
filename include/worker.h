/* worker: runs planners in a child process, so the caller never blocks,
 * CBC's output never reaches the terminal, and a solve is cancelled at
 * once (the child is killed). Results stream back over a pipe; the caller
 * polls worker_fd() next to its other inputs.
 *
 * Plans come back per layer, re-evaluated against the caller's problem. */
#ifndef PIPEPLAN_WORKER_H
#define PIPEPLAN_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include "planner.h"

struct worker_request {
    const struct problem *pb;        /* layer-level problem */
    const char *const *planners;     /* registry names and/or "ilp", in order */
    int nplanners;
    double time_limit;               /* ILP seconds */
    int threads;                     /* ILP threads */
    int blocks;                      /* ILP coarsening (-1 automatic) */
    const char *log_path;            /* where the child's stdout/stderr go; NULL: /dev/null */
};

enum worker_event_kind {
    WORKER_RESULT,                   /* a planner finished: final plan and status */
    WORKER_PROGRESS,                 /* the ILP improved its plan and/or bound */
    WORKER_DONE                      /* every planner finished; nothing follows */
};

struct worker_event {
    enum worker_event_kind kind;
    char planner[16];
    enum plan_status status;         /* RESULT only */
    struct plan *plan;               /* owned by the event; may be NULL */
    double bound;                    /* proven bound on the objective, or NAN */
    double objective;                /* PROGRESS: of the best plan so far */
    double seconds;                  /* RESULT: planner time; PROGRESS: elapsed */
    int blocks;                      /* elements the bound is proven for */
    bool believed_fit;
    char message[320];
};

/* Fork the child and start. NULL with a message in err on failure. */
struct worker *worker_start(const struct worker_request *req, char *err, size_t errlen);

/* The fd to poll for POLLIN. */
int worker_fd(const struct worker *w);

/* Without blocking: 1 and an event, 0 when none is ready yet, -1 when the
 * child has finished (or died) and every event was consumed. A child that
 * dies without WORKER_DONE yields a final RESULT with status error. */
int worker_next(struct worker *w, struct worker_event *ev);
void worker_event_clear(struct worker_event *ev);

/* Kill the child and reap it (returns promptly); pending events are dropped. */
void worker_cancel(struct worker *w);
bool worker_running(const struct worker *w);
/* Cancels if still running, frees everything. */
void worker_free(struct worker *w);

#endif
