/* mip: rows and columns into CBC, one solve, its answer (include/mip.h). */
#include "mip.h"

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
    Cbc_setAllowableFractionGap(mp->m, 1e-6);
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

void mip_free(struct mip *mp)
{
    if (mp->m)
        Cbc_deleteModel(mp->m);
    free(mp->idx);
    free(mp->val);
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

int mip_col(struct mip *mp, double lb, double ub, double obj, bool integer)
{
    Cbc_addCol(mp->m, "", lb, ub, obj, integer ? 1 : 0, 0, NULL, NULL);
    if (integer)
        mp->ints++;
    return mp->cols++;
}

void mip_row_begin(struct mip *mp)
{
    mp->n = 0;
}

void mip_row_add(struct mip *mp, int col, double v)
{
    if (v == 0.0)
        return;
    if (mp->n == mp->cap) {
        int cap = mp->cap ? mp->cap * 2 : 64;
        int *ni = realloc(mp->idx, (size_t)cap * sizeof *ni);
        if (ni)
            mp->idx = ni;
        double *nv = ni ? realloc(mp->val, (size_t)cap * sizeof *nv) : NULL;
        if (nv)
            mp->val = nv;
        if (!ni || !nv) {
            /* a row without this coefficient would be another model */
            mp->oom = true;
            return;
        }
        mp->cap = cap;
    }
    mp->idx[mp->n] = col;
    mp->val[mp->n] = v;
    mp->n++;
}

void mip_row_end(struct mip *mp, char sense, double rhs)
{
    Cbc_addRow(mp->m, "", mp->n, mp->idx, mp->val, sense, rhs);
    mp->rows++;
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
/* the models aborts left, kept reachable (leak checkers stay quiet) */
static Cbc_Model *abandoned[32];
static int nabandoned;
static volatile sig_atomic_t abort_armed;
static pthread_t abort_thread;

/* An aborted model: kept, never touched again. */
static void abandon(Cbc_Model *m)
{
    if (nabandoned < (int)(sizeof abandoned / sizeof abandoned[0]))
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
    int f = mp->oom ? -1 : fault ? fault() : 0;
    if (f < 0)
        return MIP_FAILED;
    double t0 = clock_now();
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
    return mp->m ? Cbc_getNodeCount(mp->m) : 0;
}

double mip_best_bound(const struct mip *mp)
{
    if (!mp->m)
        return -INFINITY;
    double v = Cbc_getBestPossibleObjValue(mp->m);
    return isfinite(v) && fabs(v) < 1e40 ? v : -INFINITY;
}

double mip_objective(const struct mip *mp)
{
    return mp->m ? Cbc_getObjValue(mp->m) : NAN;
}

const double *mip_solution(const struct mip *mp)
{
    return mp->m && Cbc_bestSolution(mp->m) ? Cbc_getColSolution(mp->m) : NULL;
}
