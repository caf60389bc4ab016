/* tui_impl: what the explorer's files share (not a public interface).
 *
 * tui_state.c  knobs, undo, reload, results, export (no curses)
 * tui.c        terminal, signals, the event loop, the solver worker
 * tui_keys.c   keys to actions
 * tui_draw.c   one whole frame from the state (the frontier view's too) */
#ifndef PIPEPLAN_TUI_IMPL_H
#define PIPEPLAN_TUI_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "frontier.h"
#include "planner.h"
#include "problem.h"
#include "spec.h"
#include "tui.h"
#include "worker.h"

#define TUI_MAX_ROWS 12          /* rows of the plans table: the registry's planners and yours */
#define TUI_CACHE_MAX 16         /* settings whose ILP results are kept */
#define TUI_UNDO_MAX 256
#define TUI_GIB 1073741824.0
#define TUI_MIN_CAP 1073741824ull                 /* 1 GiB */
#define TUI_MAX_CAP (4096ull * 1073741824ull)     /* 4 TiB */
#define TUI_MAX_MICRO_BATCHES 1000000L

/* A problem shared by the plans judged against it; freed with its last user. */
struct tui_problem {
    struct problem *pb;
    int refs;
};

/* What a knob change alters and undo restores. */
struct tui_setting {
    struct knobs k;              /* 0 / -1: as in the files */
    double time_limit;           /* ILP seconds */
    int ncap;
    uint64_t *cap;               /* [ncap] per-GPU cap set with { }, 0 = none */
};

enum tui_knob {
    KNOB_GPUS, KNOB_CAP, KNOB_GPU_CAP, KNOB_MICRO_BATCHES, KNOB_SCHEDULE,
    KNOB_LAYOUT, KNOB_BLOCKS, KNOB_TIME_LIMIT
};

enum tui_mode { MODE_MAIN, MODE_HELP, MODE_PROMPT, MODE_CONFIRM, MODE_FORMAT, MODE_FRONTIER };
/* What the prompt line asks for: a file to export to, or a plan file to load. */
enum tui_prompt { PROMPT_EXPORT, PROMPT_LOAD, PROMPT_SPLIT };
enum tui_msg { MSG_NONE, MSG_INFO, MSG_ERROR };
enum tui_replan { REPLAN_NONE, REPLAN_ILP, REPLAN_ALL };

/* One line of the plans table. */
struct tui_row {
    const char *planner;         /* a registry name (static); planner_given() for yours */
    struct tui_problem *tp;      /* the problem plan was judged against */
    struct plan *plan;           /* owned; NULL when there is none */
    enum plan_status status;
    bool stale;                  /* plan is from an earlier problem */
    bool done;                   /* final result for the current problem */
    bool started;                /* ILP: solving now */
    bool believed_fit;
    bool kept;                   /* status error, plan the solver's last good one */
    double bound;                /* proven bound on the network's objective, or NAN */
    double block_bound;          /* solver: proven for the blocks only, or NAN */
    int blocks;                  /* ILP: elements the bound holds for (0: unknown) */
    double seconds;
    char message[320];
};

/* The frontier view's computation, one worker request at a time: the
 * range (the smallest cap at which a plan fits, then every baseline's
 * unconstrained peak), the baselines at every cap, the ILP at every cap. */
enum tui_fr_phase { FR_OFF, FR_MIN_CAP, FR_PEAKS, FR_BASELINES, FR_ILP, FR_DONE, FR_FAILED };

struct tui_frontier {
    enum tui_fr_phase phase;
    struct tui_problem *for_pb;  /* the problem it is computed for (a reference) */
    int blocks;                  /* ... with these ILP blocks and seconds */
    double time_limit;
    struct frontier fr;
    int nmax;                    /* caps wanted (from the plot's width) */
    double fit_cap, all_cap;     /* the range found (bytes) */
    int next;                    /* next cap index to ask for in this phase */
    int busy;                    /* cap index of the request in flight, -1 */
    struct worker *worker;
    struct problem *pb;          /* the request's problem (the worker's plans
                                    are judged against it) */
    struct plan *warm;           /* the ILP's last plan that fits, to start from */
    int cursor;                  /* cap index under the cursor */
    char why[400];               /* FR_FAILED: the reason */
    char err[256];               /* the first planner error heard, for why */
};

struct tui {
    struct tui_options opt;
    struct spec_network *net;
    struct spec_platform *plat;
    struct tui_setting set;
    struct tui_setting undo[TUI_UNDO_MAX];
    int nundo;
    struct tui_problem *cur;
    unsigned gen;                /* bumped by every re-plan */
    struct tui_row rows[TUI_MAX_ROWS];
    int nrows;                   /* planner_count() */
    int ilp;                     /* row of the solver (planner_is_solver) */
    const char *follow;          /* planner of the best plan last settled */
    /* the plan on show when the knobs last changed, shown (marked as
     * updating) until every memory-aware planner answered for the new ones */
    struct tui_row hold;
    unsigned data_gen;           /* bumped when reload changes the files */
    /* the solver's best result per setting (tui_state.c, least recently
     * used first out) */
    struct tui_cache_entry *cache[TUI_CACHE_MAX];
    int ncache;
    /* a uniform cap at which a baseline's plan fits, for the current
     * problem when nothing fits (from the worker), NAN when unknown: the
     * smallest, to within min_cap_within (more than 1 MiB when its search
     * stopped at the explorer's limit) */
    double min_cap;
    double min_cap_within;
    const char *min_cap_planner;

    struct tui_frontier front;   /* the frontier view (F) */

    /* solver */
    struct worker *worker;
    enum tui_replan replan;      /* asked for by the keys handled so far */
    double replan_key;           /* arrival of the first key behind it */
    double ilp_t0;               /* when the ILP started (ILP row started) */
    bool cap_owed;               /* the worker looks for the least cap that
                                    fits before the ILP when no baseline's
                                    plan fits (WORKER_MIN_CAP ends it) */

    /* view */
    int layer;                   /* cursor in the strip */
    int strip_first;             /* first layer the strip shows */
    int gpu;                     /* GPU selected with [ ] */
    int sel;                     /* row pinned with up/down, -1: the best */
    enum tui_mode mode;
    enum tui_prompt prompt;
    char input[4096];            /* prompt line (a split of many layers is long) */
    size_t input_len;
    bool input_cut;              /* a key was dropped, the line full: not taken */
    const struct export_format *export_fmt;   /* chosen in MODE_FORMAT */
    int format_sel;              /* highlighted format in the chooser */

    /* your plan (--split, --plan, p): a row judged here, not by the worker */
    int user;                    /* its row, -1: none */
    char *user_split;            /* the --split value, parsed again for each problem */
    int *user_gpu;               /* or a plan file's allocation [user_L] */
    double *user_start;          /* and its schedule [2 user_L] */
    double user_T;
    int user_L;
    char user_source[1100];      /* "--split ..." or "plan file PATH" */
    char last_plan[1024];        /* the last plan file p loaded */
    struct planner_result export_res;
    struct problem *export_pb;
    int export_blocks;
    char msg[640];
    enum tui_msg msg_kind;
    int help_top;
    enum tui_mode help_from;     /* the mode ? came from */

    /* terminal */
    bool unicode, color;
    bool dirty, quit;
    int exit_status;
    FILE *trace;                 /* PIPEPLAN_TRACE: key and frame times */
    unsigned shown_gen;          /* newest generation a frame has shown */
    double gen_key;              /* key arrival behind the newest generation */
};

/* The ILP's result for one setting (everything that changes its problem). */
struct tui_cache_entry {
    unsigned data_gen;
    struct tui_setting set;      /* time_limit ignored */
    int blocks;                  /* resolved block count */
    struct tui_problem *tp;
    struct plan *plan;           /* best plan, or NULL */
    enum plan_status status;     /* final status, or PLAN_RUNNING when cut short */
    double bound, block_bound, seconds;
    int nblocks;                 /* elements the bound holds for */
    double limit;                /* the longest time limit its searches had */
};

/* ---- tui_state.c ---- */
double tui_now(void);            /* monotonic seconds */
int tui_state_init(struct tui *t, const struct tui_options *opt, struct spec_network *net,
                   struct spec_platform *plat, char *err, size_t errlen);
void tui_state_free(struct tui *t);
void tui_message(struct tui *t, enum tui_msg kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Step a knob up (dir > 0) or down. Returns 1 when it changed (a re-plan
 * is then pending), 0 at a limit, -1 with an error message. */
int tui_knob_step(struct tui *t, enum tui_knob knob, int dir);
int tui_undo(struct tui *t);
/* Reload the files; keep the knob overrides, or (drop) go back to the
 * files' values. */
void tui_reload(struct tui *t, bool drop);

/* Rows: a new generation starts (all rows, or the ILP row only); events
 * of the running one are applied as they come. */
void tui_rows_begin(struct tui *t, bool all);
void tui_event_apply(struct tui *t, struct worker_event *ev);
bool tui_baselines_done(const struct tui *t);
/* Whether a baseline's plan (not yours) is still to come. */
bool tui_baselines_owed(const struct tui *t);

int tui_best_row(const struct tui *t);
int tui_shown_row(const struct tui *t);
/* The row whose plan the views show: the shown row, or while the plans
 * for new knobs come in, the plan on show before (*updating set). */
const struct tui_row *tui_view_row(const struct tui *t, bool *updating);
/* Every memory-aware baseline answered for the current problem. */
bool tui_settled(const struct tui *t);
/* The solver's cached result for the current setting, or NULL. */
const struct tui_cache_entry *tui_cache_find(const struct tui *t);
/* The best bound on the network any search of this problem proved (its
 * blocks whatever they were), or NAN. */
double tui_cache_net_bound(const struct tui *t);
/* Put a cached result in the solver row (done when it was proven). */
void tui_row_from_cache(struct tui *t, const struct tui_cache_entry *e);
/* Remember the solver row's result for the current setting. */
void tui_cache_store(struct tui *t);
/* Display name of a row: "ILP" for the solver, else the planner's title. */
const char *tui_row_title(const struct tui_row *r);
/* The table's gap of plan (planner_gap with the best network bound). */
double tui_row_gap(const struct tui *t, const struct plan *pl);
/* Best proven lower bound on the current objective (trivial or the ILP's
 * when it holds for every layer); *ilp tells which. */
double tui_objective_bound(const struct tui *t, bool *ilp);
/* ILP block count for the current knobs (resolving "auto"). */
int tui_blocks(const struct tui *t);

/* Export: copy the shown plan, pick a format (export.h), check it can be
 * written and propose a file name, then write it. */
int tui_export_begin(struct tui *t);
int tui_export_format(struct tui *t, const struct export_format *f);
int tui_export_write(struct tui *t, const char *path, bool force);
void tui_export_end(struct tui *t);
/* Your plan: from a --split value or a plan file (read against the
 * current problem); 0, or -1 with the FILE:LINE or option message in
 * err. The row then shows it, judged for each new problem. */
/* A path as messages show it: whole up to TUI_PATH_SHOWN bytes, else its
 * start, "..." and its end (buf of at least TUI_PATH_SHOWN + 4). */
#define TUI_PATH_SHOWN 48
const char *tui_path_short(const char *path, char *buf, size_t len);

/* Your plan's fields of a worker request (worker.h), for its problem. */
void tui_user_request(const struct tui *t, struct worker_request *req);
int tui_user_split(struct tui *t, const char *spec, char *err, size_t errlen);
/* note: what the file says it was judged for, where the knobs differ (or "") */
int tui_user_load(struct tui *t, const char *path, char *note, size_t notelen, char *err,
                  size_t errlen);
/* "~/x" -> "$HOME/x" into out. */
void tui_path_expand(const char *in, char *out, size_t outlen);

/* Set every GPU's cap to `cap` bytes (as m/M do): 1 when it changed. */
int tui_cap_set(struct tui *t, uint64_t cap);
/* The frontier view: open it (its computation starts from the loop),
 * close it (its worker killed), and apply its worker's events. */
void tui_frontier_open(struct tui *t, int nmax);
/* Whether the view's curves stand for the current setting (and then it
 * follows it): the same problem but for the caps, which the view sets
 * itself, and the same ILP blocks and seconds. So a cap applied with
 * Enter, m or M keeps what was computed. */
bool tui_frontier_current(struct tui *t);
void tui_frontier_stop(struct tui *t);
/* Leaving the view kills its worker but keeps what it computed; coming
 * back to the same problem continues (the cursor at the current cap),
 * to another starts over with nmax caps. */
void tui_frontier_pause(struct tui *t);
void tui_frontier_resume(struct tui *t, int nmax);
void tui_frontier_event(struct tui *t, struct worker_event *ev);
/* The next worker request when none is in flight; false when finished. */
bool tui_frontier_request(struct tui *t, struct worker_request *req, const char **names);

/* ---- tui.c ---- */
void tui_trace(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- tui_keys.c ---- */
void tui_key(struct tui *t, int ch);

/* ---- tui_draw.c ---- */
void tui_draw_init(struct tui *t);      /* colours and glyphs, after newterm */
void tui_draw(struct tui *t);           /* erase, draw all, one doupdate */
bool tui_too_small(void);               /* the screen shows only "too small" */
/* The frontier view (all but the keys line); the caps it wants at this
 * screen width. */
void tui_frontier_draw(struct tui *t);
int tui_frontier_points(void);

#endif
