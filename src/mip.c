/* mip: rows and columns into CBC, one solve, its answer (include/mip.h). */
#include "mip.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mip_fault_fn fault;

void mip_set_fault(mip_fault_fn fn)
{
    fault = fn;
}

int mip_init(struct mip *mp, int threads, double seconds, long nodes)
{
    memset(mp, 0, sizeof mp[0]);
    mp->m = Cbc_newModel();
    if (!mp->m)
        return -1;
    mip_log_level(mp, 0);
    Cbc_setParameter(mp->m, "slog", "0");
    if (threads > 1) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", threads);
        Cbc_setParameter(mp->m, "threads", buf);
    }
    if (seconds > 0) {
        /* the user's limit is on the clock: CBC counts CPU seconds by
         * default, which on a loaded machine overran it by a second */
        Cbc_setParameter(mp->m, "timeMode", "elapsed");
        Cbc_setMaximumSeconds(mp->m, seconds > 0.01 ? seconds : 0.01);
    }
    if (nodes > 0)
        Cbc_setMaximumNodes(mp->m, nodes > INT_MAX ? INT_MAX : (int)nodes);
    /* measured on the bundled networks: probing costs more than it saves
     * on these small, symmetric models */
    Cbc_setParameter(mp->m, "probing", "off");
    Cbc_setAllowableFractionGap(mp->m, 1e-6);
    return 0;
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

enum mip_outcome mip_solve(struct mip *mp)
{
    if (mp->oom || (fault && fault() != 0))
        return MIP_FAILED;
    Cbc_solve(mp->m);
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
    return Cbc_getNodeCount(mp->m);
}

double mip_best_bound(const struct mip *mp)
{
    double v = Cbc_getBestPossibleObjValue(mp->m);
    return isfinite(v) && fabs(v) < 1e40 ? v : -INFINITY;
}

double mip_objective(const struct mip *mp)
{
    return Cbc_getObjValue(mp->m);
}

const double *mip_solution(const struct mip *mp)
{
    return Cbc_bestSolution(mp->m) ? Cbc_getColSolution(mp->m) : NULL;
}
