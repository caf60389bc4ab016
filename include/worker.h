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
    const char *const *planners;     /* registry names, in order */
    int nplanners;
    double time_limit;               /* ILP seconds */
    long work_limit;                 /* ILP deterministic work limit (0: none) */
    const struct plan *warm;         /* ILP: a plan to start from, or NULL */
    double known_bound;              /* ILP: a bound proven before for the same
                                      * settings and blocks (ilp.h), or NAN */
    double known_net_bound;          /* ILP: one proven for the network (any
                                      * blocks), or 0 or NAN (ilp.h) */
    int threads;                     /* ILP threads */
    int blocks;                      /* ILP coarsening (-1 automatic) */
    /* where the child's stdout/stderr go, with CBC's log and the ILP's
     * trace; NULL: /dev/null */
    const char *log_path;
    /* after the baselines, when none of their plans fits: look for the
     * smallest uniform cap at which one does (planner_min_cap, within
     * work_limit caps, or time_limit seconds of its own; unlimited when
     * both are 0) and send it as a WORKER_MIN_CAP event before the ILP
     * starts */
    bool min_cap;
    /* baselines' results the caller already has for this problem (the
     * explorer's rows), for the ILP to start from rather than run them
     * again; those the worker runs itself are added */
    const struct planner_result *baselines;
    int nbaselines;
    /* your plan, judged (worker_judge_user) when planner_given() is among
     * the planners: a split parsed against pb, or else a plan file's
     * allocation of user_L layers with its period and starts; user_source
     * names it. Its result is no baseline: the ILP and the least cap do
     * not use it. */
    const char *user_split;
    const int *user_gpu;
    const double *user_start;
    double user_T;
    int user_L;
    const char *user_source;
};

enum worker_event_kind {
    WORKER_RESULT,                   /* a planner finished: final plan and status */
    WORKER_PROGRESS,                 /* the ILP improved its plan and/or bound */
    WORKER_DONE,                     /* every planner finished; nothing follows */
    WORKER_MIN_CAP                   /* bound: a uniform cap (bytes) at which
                                      * `planner`'s plan fits, NAN for none; within:
                                      * how far above the smallest it may be */
};

struct worker_event {
    enum worker_event_kind kind;
    char planner[16];
    enum plan_status status;         /* RESULT; PROGRESS: running */
    struct plan *plan;               /* owned by the event; may be NULL */
    double bound;                    /* proven bound on the network's objective, or NAN */
    double block_bound;              /* proven for the blocks only, or NAN */
    double objective;                /* PROGRESS: of the best plan so far */
    double seconds;                  /* RESULT: planner time; PROGRESS: elapsed */
    int blocks;                      /* elements a solver works on (0: n/a) */
    double within;                   /* MIN_CAP (above); 0 otherwise */
    bool believed_fit;
    char message[320];
};

/* Your plan of the request, judged for its problem as planner_judge()
 * does (the schedule builder, or the file's schedule): *res as
 * planner_given()'s, its message the reason when there is no plan. */
void worker_judge_user(const struct worker_request *req, struct planner_result *res);

/* Fork the child and start. NULL with a message in err on failure. */
struct worker *worker_start(const struct worker_request *req, char *err, size_t errlen);

/* The fd to poll for POLLIN, and the longest to wait (ms, -1: no limit)
 * before calling worker_next() again even without input: a solver under a
 * time limit (and no work limit) still running a grace of 30 s plus its
 * time limit after its time limit is killed there as hung (PIPEPLAN_GRACE,
 * a test hook, sets the grace in seconds). */
int worker_fd(const struct worker *w);
int worker_poll_ms(const struct worker *w);

/* Without blocking: 1 and an event, 0 when none is ready yet, -1 when the
 * child has finished (or died) and every event was consumed. A child that
 * dies (exits, crashes, or is killed as hung) without WORKER_DONE yields a
 * RESULT with status error and the reason in one line for each planner
 * that had not answered, the one that was running first. */
int worker_next(struct worker *w, struct worker_event *ev);
void worker_event_clear(struct worker_event *ev);

/* Kill the child and reap it (returns promptly); pending events are dropped. */
void worker_cancel(struct worker *w);
bool worker_running(const struct worker *w);
/* Cancels if still running, frees everything. */
void worker_free(struct worker *w);

#endif
