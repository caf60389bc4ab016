/* mip: rows and columns into CBC, one solve, its answer (include/mip.h). */
#include "mip.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static mip_fault_fn fault;

void mip_set_fault(mip_fault_fn fn)
{
    fault = fn;
}

#define CBC_INCREMENT 1e-5     /* CBC's own cutoff increment, absolute */

static void apply_increment(struct mip *mp)
{
    if (mp->increment > 0) {
        char inc[32];
        snprintf(inc, sizeof inc, "%.17g", mp->increment);
        Cbc_setParameter(mp->m, "increment", inc);
    }
}

static void mip_configure(struct mip *mp, double seconds)
{
    mip_log_level(mp, mp->log_level);
    Cbc_setParameter(mp->m, "slog", "0");
    if (mp->threads > 1) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", mp->threads);
        Cbc_setParameter(mp->m, "threads", buf);
    }
    if (seconds > 0) {
        /* the user's limit is on the clock: CBC counts CPU seconds by
         * default, which on a loaded machine overran it by a second */
        Cbc_setParameter(mp->m, "timeMode", "elapsed");
        Cbc_setMaximumSeconds(mp->m, seconds > 0.01 ? seconds : 0.01);
    }
    if (mp->nodes > 0)
        Cbc_setMaximumNodes(mp->m, mp->nodes > INT_MAX ? INT_MAX : (int)mp->nodes);
    /* measured on the bundled networks: probing costs more than it saves
     * on these small, symmetric models */
    Cbc_setParameter(mp->m, "probing", "off");
    /* The feasibility pump's small branch and bound, at the root, can
     * cycle in Clp's primal for ever, deaf to both limits: relaxation
     * masters of four to six layers (random instances, 3 in 14,000) ran
     * for minutes under a work limit of 20. Without it they end in under
     * a second, and the bench's targets are the same (their plans and
     * figures; the times within noise). */
    Cbc_setParameter(mp->m, "feas", "off");
    Cbc_setAllowableFractionGap(mp->m, 1e-6);
    apply_increment(mp);
}

int mip_init(struct mip *mp, int threads, double seconds, long nodes)
{
    memset(mp, 0, sizeof mp[0]);
    mp->m = Cbc_newModel();
    if (!mp->m)
        return -1;
    mp->threads = threads;
    mp->seconds = seconds;
    mp->nodes = nodes;
    mip_configure(mp, seconds);
    return 0;
}

void mip_set_nodes(struct mip *mp, long nodes)
{
    mp->nodes = nodes;
    if (nodes > 0)
        Cbc_setMaximumNodes(mp->m, nodes > INT_MAX ? INT_MAX : (int)nodes);
}

void mip_set_increment(struct mip *mp, double increment)
{
    /* only below CBC's own: a larger one would prune more */
    mp->increment = increment > 0 && increment < CBC_INCREMENT ? increment : 0;
    apply_increment(mp);
}

void mip_set_max_rows(struct mip *mp, int rows)
{
    mp->max_rows = rows > 0 ? rows : 0;
}

void mip_free(struct mip *mp)
{
    if (mp->m)
        Cbc_deleteModel(mp->m);
    free(mp->col);
    free(mp->row);
    free(mp->nz);
    memset(mp, 0, sizeof mp[0]);
}

void mip_log_level(struct mip *mp, int level)
{
    mp->log_level = level;
    char lvl[16];
    snprintf(lvl, sizeof lvl, "%d", level);
    Cbc_setLogLevel(mp->m, level);
    Cbc_setParameter(mp->m, "log", lvl);
}

/* Grow *v, of *cap elements of size sz, to hold n: false when out of
 * memory, which marks the model incomplete. */
static bool grow(struct mip *mp, void **v, long *cap, long n, size_t sz)
{
    if (n <= *cap)
        return true;
    long c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    void *nv = n > INT_MAX ? NULL : realloc(*v, (size_t)c * sz);
    if (!nv) {
        mp->oom = true;
        return false;
    }
    *v = nv;
    *cap = c;
    return true;
}

int mip_col(struct mip *mp, double lb, double ub, double obj, bool integer)
{
    if (mp->over)
        return mp->cols++;    /* counted: no row is kept to refer to it */
    if (!grow(mp, (void **)&mp->col, &mp->col_cap, mp->cols + 1L, sizeof *mp->col))
        return mp->cols;      /* refused at the solve (mp->oom) */
    mp->col[mp->cols] = (struct mip_coldef){ .lb = lb, .ub = ub, .obj = obj,
                                             .integer = integer, .at = -1 };
    if (integer)
        mp->ints++;
    return mp->cols++;
}

void mip_row_begin(struct mip *mp)
{
    /* a row begun again drops what the last begin added */
    mp->nnz = mp->row_nnz;
}

void mip_row_add(struct mip *mp, int col, double v)
{
    if (mp->over || v == 0.0 || col < 0 || col >= mp->cols)
        return;
    /* a column named twice in one row: its coefficients add up */
    long at = mp->col[col].at;
    if (at >= mp->row_nnz && at < mp->nnz && mp->nz[at].col == col) {
        mp->nz[at].v += v;
        return;
    }
    if (!grow(mp, (void **)&mp->nz, &mp->nz_cap, mp->nnz + 1, sizeof *mp->nz))
        return;
    mp->nz[mp->nnz] = (struct mip_nz){ .col = col, .v = v };
    mp->col[col].at = mp->nnz++;
}

void mip_row_end(struct mip *mp, char sense, double rhs)
{
    if (!mp->over && mp->max_rows > 0 && mp->rows >= mp->max_rows) {
        /* too large to solve: what was kept goes, the rest is counted */
        mp->over = true;
        free(mp->row);
        free(mp->nz);
        free(mp->col);
        mp->row = NULL;
        mp->nz = NULL;
        mp->col = NULL;
        mp->row_cap = mp->nz_cap = mp->col_cap = 0;
        mp->nnz = mp->row_nnz = 0;
    }
    if (mp->over) {
        mp->rows++;
        return;
    }
    if (!grow(mp, (void **)&mp->row, &mp->row_cap, mp->rows + 1L, sizeof *mp->row))
        return;
    mp->row[mp->rows] = (struct mip_rowdef){
        .start = mp->row_nnz,
        .lb = sense == 'L' ? -DBL_MAX : rhs,
        .ub = sense == 'G' ? DBL_MAX : rhs,
    };
    mp->row_nnz = mp->nnz;
    mp->rows++;
}

/* The model built into CBC at once: Cbc_addRow appends a row to a matrix
 * kept by columns, which copies it, so a schedule MIP of 177 layers (tens
 * of thousands of rows) took minutes to build and ignored every limit.
 * Once, before the first solve. Returns 0, or -1 out of memory. */
static int mip_load(struct mip *mp)
{
    int nc = mp->cols, nr = mp->rows;
    long nnz = mp->row_nnz;
    CoinBigIndex *start = calloc((size_t)nc + 1, sizeof *start);
    int *index = malloc((size_t)(nnz ? nnz : 1) * sizeof *index);
    double *value = malloc((size_t)(nnz ? nnz : 1) * sizeof *value);
    double *clb = malloc((size_t)(nc ? nc : 1) * sizeof *clb);
    double *cub = malloc((size_t)(nc ? nc : 1) * sizeof *cub);
    double *obj = malloc((size_t)(nc ? nc : 1) * sizeof *obj);
    double *rlb = malloc((size_t)(nr ? nr : 1) * sizeof *rlb);
    double *rub = malloc((size_t)(nr ? nr : 1) * sizeof *rub);
    int rc = -1;
    if (!start || !index || !value || !clb || !cub || !obj || !rlb || !rub)
        goto out;
    /* rows to columns: count, prefix sums, then fill in row order, so
     * each column lists its rows in order */
    for (long k = 0; k < nnz; k++)
        start[mp->nz[k].col + 1]++;
    for (int c = 0; c < nc; c++)
        start[c + 1] += start[c];
    for (int r = 0; r < nr; r++) {
        long end = r + 1 < nr ? mp->row[r + 1].start : nnz;
        for (long k = mp->row[r].start; k < end; k++) {
            CoinBigIndex at = start[mp->nz[k].col]++;
            index[at] = r;
            value[at] = mp->nz[k].v;
        }
        rlb[r] = mp->row[r].lb;
        rub[r] = mp->row[r].ub;
    }
    for (int c = nc; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
    for (int c = 0; c < nc; c++) {
        clb[c] = mp->col[c].lb;
        cub[c] = mp->col[c].ub;
        obj[c] = mp->col[c].obj;
    }
    Cbc_loadProblem(mp->m, nc, nr, start, index, value, clb, cub, obj, rlb, rub);
    for (int c = 0; c < nc; c++)
        if (mp->col[c].integer)
            Cbc_setInteger(mp->m, c);
    rc = 0;
out:
    free(start);
    free(index);
    free(value);
    free(clb);
    free(cub);
    free(obj);
    free(rlb);
    free(rub);
    return rc;
}

/* Debian's Clp is built with its assertions on, and one of them
 * (ClpPrimalColumnSteepest::pivotColumn: "reducedCost > 0") fires on some
 * masters (a Llama 3 70B on 8 GPUs at 40 GB): abort() ended the whole
 * solver process. So a solve runs with SIGABRT caught on its thread: the
 * model the abort left is half updated by CBC, so it is leaked, never
 * touched again, and a copy taken before the solve is solved again with
 * Dantzig pricing, which has no such assertion, in the time that is left.
 * A second abort fails the MIP; one on a thread of CBC's own stays fatal. */
static sigjmp_buf abort_jump;
/* the models aborts left, every one kept reachable: a leak checker then
 * sees what an abort costs as in use, not as lost (each MIP may abort once,
 * so a long search can leave many) */
static Cbc_Model **abandoned;
static size_t nabandoned, abandoned_cap;
static volatile sig_atomic_t abort_armed;
static pthread_t abort_thread;

/* An aborted model: kept, never touched again. */
static void abandon(Cbc_Model *m)
{
    if (nabandoned == abandoned_cap) {
        size_t cap = abandoned_cap ? 2 * abandoned_cap : 32;
        Cbc_Model **v = realloc(abandoned, cap * sizeof *v);
        if (!v)
            return;
        abandoned = v;
        abandoned_cap = cap;
    }
    abandoned[nabandoned++] = m;
}

static void on_abort(int sig)
{
    if (abort_armed && pthread_equal(pthread_self(), abort_thread)) {
        abort_armed = 0;
        siglongjmp(abort_jump, 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static double clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Cbc_solve under the guard: 0, or -1 when CBC aborted. */
static int guarded_solve(Cbc_Model *m, bool simulate_abort)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_abort;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGABRT, &sa, &old) != 0) {
        Cbc_solve(m);
        return 0;
    }
    int rc = 0;
    abort_thread = pthread_self();
    if (sigsetjmp(abort_jump, 1) == 0) {
        abort_armed = 1;
        if (simulate_abort)
            abort();
        Cbc_solve(m);
    } else {
        rc = -1;
    }
    abort_armed = 0;
    sigaction(SIGABRT, &old, NULL);
    return rc;
}

enum mip_outcome mip_solve(struct mip *mp)
{
    if (mp->over)
        return MIP_UNKNOWN;    /* not built: see mip_set_max_rows */
    int f = mp->oom ? -1 : fault ? fault() : 0;
    if (f < 0 || (!mp->solved && mip_load(mp) != 0))
        return MIP_FAILED;
    double t0 = clock_now();
    mp->solved = true;
    Cbc_Model *copy = Cbc_clone(mp->m);
    if (guarded_solve(mp->m, f == MIP_FAULT_ABORT) != 0) {
        mp->aborted++;
        abandon(mp->m);
        mp->m = copy;
        copy = NULL;
        if (!mp->m)
            return MIP_FAILED;
        double left = mp->seconds > 0 ? mp->seconds - (clock_now() - t0) : 0;
        if (mp->seconds > 0 && left <= 0.01)
            left = 0.01;
        mip_configure(mp, left);
        Cbc_setParameter(mp->m, "primalP", "dantzig");
        if (guarded_solve(mp->m, false) != 0) {
            mp->aborted++;
            abandon(mp->m);
            mp->m = NULL;
            return MIP_FAILED;
        }
    }
    if (copy)
        Cbc_deleteModel(copy);
    /* CBC gave up (numerical trouble, an internal error): a solution it
     * found is still judged like any other, no answer is a failure */
    if (Cbc_isAbandoned(mp->m) && !Cbc_bestSolution(mp->m))
        return MIP_FAILED;
    if (Cbc_isProvenOptimal(mp->m))
        return MIP_SOLVED;
    if (Cbc_isProvenInfeasible(mp->m))
        return MIP_INFEASIBLE;
    if (Cbc_bestSolution(mp->m))
        return MIP_FEASIBLE_STOPPED;
    /* a finished search without a solution and without the flag */
    if (Cbc_status(mp->m) == 0 && Cbc_secondaryStatus(mp->m) == 1)
        return MIP_INFEASIBLE;
    return MIP_UNKNOWN;
}

long mip_nodes(const struct mip *mp)
{
    return mp->m && mp->solved ? Cbc_getNodeCount(mp->m) : 0;
}

double mip_best_bound(const struct mip *mp)
{
    if (!mp->m || !mp->solved)
        return -INFINITY;
    double v = Cbc_getBestPossibleObjValue(mp->m);
    return isfinite(v) && fabs(v) < 1e40 ? v : -INFINITY;
}

double mip_objective(const struct mip *mp)
{
    return mp->m && mp->solved ? Cbc_getObjValue(mp->m) : NAN;
}

const double *mip_solution(const struct mip *mp)
{
    return mp->m && mp->solved && Cbc_bestSolution(mp->m) ? Cbc_getColSolution(mp->m) : NULL;
}
