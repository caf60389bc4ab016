/* mip: a thin layer over CBC's C API for building and solving one mixed
 * integer program a row at a time (the ILP's masters, schedule MIPs and
 * the network bound). Pure C, no I/O of its own, although CBC writes to
 * standard output (see worker.h). */
#ifndef PIPEPLAN_MIP_H
#define PIPEPLAN_MIP_H

#include <stdbool.h>
#include <Cbc_C_Interface.h>

/* The model is kept here as it is built and goes into CBC in one call
 * at the solve (see mip_load in mip.c). */
struct mip_coldef {
    double lb, ub, obj;
    bool integer;
    long at;                   /* its entry in the row being built, if any */
};
struct mip_rowdef {
    long start;                /* its first entry in nz */
    double lb, ub;
};
struct mip_nz {
    int col;
    double v;
};
struct mip {
    Cbc_Model *m;
    int cols, rows, ints;
    struct mip_coldef *col;
    struct mip_rowdef *row;
    struct mip_nz *nz;         /* the rows' entries, row after row */
    long col_cap, row_cap, nz_cap;
    long nnz;                  /* entries, the row being built included */
    long row_nnz;              /* entries of the rows ended */
    bool solved;               /* mip_solve ran CBC on it (the model is in CBC) */
    bool oom;                  /* an allocation failed: the model is incomplete */
    int threads, log_level;    /* as set, to set again on a retry */
    double seconds;
    long nodes;
    int aborted;               /* solves CBC aborted (see mip_solve) */
    int max_rows;              /* rows kept at most (0: no limit) */
    bool over;                 /* rows beyond max_rows were counted, not kept */
    double increment;          /* CBC's cutoff increment (0: its own) */
};

/* seconds <= 0: no time cap; nodes <= 0: no node cap; threads <= 1: one.
 * Returns 0, or -1 when CBC could not make a model. */
int mip_init(struct mip *mp, int threads, double seconds, long nodes);
/* A new node cap (> 0), for a model whose size decides it. */
void mip_set_nodes(struct mip *mp, long nodes);
/* Rows beyond this many (> 0) are counted in mp->rows but not kept, and
 * mp->over is set: a model too large to solve within its limits is not
 * built (a master on 2,051 layers and 128 GPUs, 2 M rows, took 15 s and
 * 4 GB to build, then could not start). mip_solve() refuses such a model
 * (MIP_UNKNOWN). Call it before the first row. */
void mip_set_max_rows(struct mip *mp, int rows);
/* The least improvement (in the objective's units) a new solution must
 * bring, where it is above 0 and below CBC's own (otherwise CBC's own
 * stays). CBC's own is an absolute 1e-5: it pruned any node within
 * 1e-5 of its incumbent and called that incumbent optimal, which on
 * objectives of a few microseconds (0.0031 ms) is 0.3 %, far above the
 * gap an optimality claim allows. */
void mip_set_increment(struct mip *mp, double increment);
void mip_free(struct mip *mp);
/* Set CBC's log level (0: quiet). */
void mip_log_level(struct mip *mp, int level);

/* A new column; returns its index. */
int mip_col(struct mip *mp, double lb, double ub, double obj, bool integer);

/* A row: begin, add coefficients (zeros are skipped), end with its sense
 * ('L', 'G', 'E') and right-hand side. A failed allocation marks the
 * model incomplete (mp->oom) and mip_solve() then refuses it. */
void mip_row_begin(struct mip *mp);
void mip_row_add(struct mip *mp, int col, double v);
void mip_row_end(struct mip *mp, char sense, double rhs);

enum mip_outcome {
    MIP_SOLVED,                /* proven optimal */
    MIP_INFEASIBLE,            /* proven infeasible */
    MIP_FEASIBLE_STOPPED,      /* stopped by a cap with a solution */
    MIP_UNKNOWN,               /* stopped by a cap with none */
    MIP_FAILED                 /* the model is incomplete (out of memory),
                                * or CBC gave up without a solution */
};

enum mip_outcome mip_solve(struct mip *mp);

/* Test hook (the worker's child sets it from PIPEPLAN_FAULT, worker.c):
 * called before every solve; negative makes the solve MIP_FAILED, as if
 * CBC had failed; MIP_FAULT_ABORT makes CBC's first try abort, as Clp's
 * assertions do (mip_solve then solves a copy again); 0 or NULL, the
 * default: none. */
#define MIP_FAULT_ABORT 2
typedef int (*mip_fault_fn)(void);
void mip_set_fault(mip_fault_fn fn);

/* After mip_solve(): the branch-and-bound nodes it took, CBC's proven
 * bound on the objective (-INFINITY when it has none), the objective and
 * the solution (NULL when none); before it, 0, -INFINITY, NAN and NULL. */
long mip_nodes(const struct mip *mp);
double mip_best_bound(const struct mip *mp);
double mip_objective(const struct mip *mp);
const double *mip_solution(const struct mip *mp);

#endif
