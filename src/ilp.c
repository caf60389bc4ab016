/* ilp: the exact planner (doc/model.md section 5) with CBC's C API.
 *
 * The objective is alpha*T + beta*Lambda: (1, 0) for pipedream (the
 * period), (m-1, 1) for 1f1b (the iteration time). The search keeps
 * intervals [a, b] of the period with a proven lower bound each:
 *
 * - the master MIP over [a, b] has the period as a variable tau and
 *   chooses an allocation of the blocks; the chain of each block's F and
 *   B gets start times, and operations sure to share a GPU (a block's own
 *   F and B, neighbouring blocks with no cut between them) may not
 *   overlap modulo tau. The integer of a block's own pair is its in-flight
 *   count, so memory and latency include the waits this packing forces.
 *   Products of those integers with tau are McCormick's. It is a
 *   relaxation of every plan with its period in [a, b]: its optimum
 *   bounds the interval. Only plans that beat the incumbent are asked for.
 * - the allocation it picks is judged by a schedule MIP over the
 *   operations that share a GPU, over the whole range [a, b] (products
 *   with tau exact by binary expansion): its best plan there and its
 *   least objective there, a cut the master keeps for [a, b] and the
 *   intervals inside; or, when nothing fits, a no-good for every period
 *   <= b (a schedule at a shorter period stretches to a longer one with
 *   the same in-flight counts).
 * - intervals are split until their bound meets the best plan; for 1f1b
 *   they are split before solving while too wide for a useful master.
 *
 * First plans: the fitting baselines and, for 1f1b, the same allocations
 * at longer periods, where fewer waits can pay for the longer period.
 * Plans found on blocks are expanded to layers exactly (a block's
 * operations run back to back) and then refined layer by layer. */
#include "ilp.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocset.h"
#include "baseline.h"
#include "fold.h"
#include "mip.h"
#include "lns.h"
#include "schedule.h"
#include "simulate.h"
#include "stages.h"

#define GB 1e9                 /* memory rows in GB keep coefficients near 1 */
#define MIP_INCREMENT_SHARE 1e-7 /* CBC's cutoff increment, of the least objective */
#define MAX_INTERVALS 4096
#define T_RESOLUTION 1e-5      /* intervals narrower than this (relative) stop splitting */
/* Interval widths (a master's McCormick products loosen with its width,
 * and so does its speed), measured on the bundled networks: */
#define WIDE_SHARE 2e-3        /* 1f1b: (n_0 - 1)(b - a) over the objective, at first */
#define WIDE_MAX 0.05          /* and up to this while masters keep proving quickly */
#define PERIOD_SHARE 0.02      /* pipedream: (b - a) / a */
#define LADDER_STEPS 64        /* 1f1b: periods tried above an allocation's shortest */
#define LADDER_STEP (1.0 / 128)
#define MASTER_SECONDS 10.0    /* time cap of one master MIP */
#define SUB_SECONDS 2.0        /* of a schedule MIP over a range of periods */
/* Under a work limit the same caps in CBC nodes, so that the path of the
 * search depends on its inputs only (a master that hits its cap still
 * bounds its interval, which is then split). */
#define MASTER_NODES 20000
#define SUB_NODES 5000
/* A candidate of the exact local search is one of many: the first that
 * beats the incumbent is taken, and one its MIP cannot decide quickly is
 * passed over. */
#define EXACT_MIP_SECONDS 0.5
#define EXACT_MIP_NODES 500
/* A node costs about the rows times the simplex iterations it takes, and
 * those grow with the rows too: a master's node cap is MASTER_NODES (or
 * RELAX_NODES) up to MASTER_REF_ROWS rows and shrinks with the square of
 * its rows beyond, not below MASTER_MIN_NODES. Measured here: a 2,600-row
 * master of resnet50 on 8 GPUs took 70 s for 5,400 nodes and 12-16 s for
 * 790; capped near 550 it stops near the 10 s of MASTER_SECONDS, and its
 * interval is split. */
#define MASTER_REF_ROWS 433.0
#define MASTER_MIN_NODES 200
/* After the block search the network's relaxation gets what is left,
 * at least this share of the limit. */
#define NETBOUND_SHARE 0.2
/* Its masters: a bound is wanted, not a proof, and a stopped master
 * still bounds its interval, which is then split into easier ones, down
 * to this width. */
#define RELAX_NODES 2000
#define RELAX_SECONDS 3.0
#define RELAX_RESOLUTION 1e-3
#define RELAX_MIN_WORK 50
/* The enumeration of allocations (allocset.h): its node budget (one to
 * two seconds on 16 blocks and 8 GPUs), the allocations the master may be
 * restricted to, and its nodes per unit of work (under a work limit it
 * may take an eighth of the work left). */
#define ENUM_NODES 2000000L
#define ENUM_KEEP 1024
#define ENUM_WORK 1024
#define ENUM_MAX_BLOCKS 64     /* beyond, it could not finish anyway */
/* The chain with its runs packed (allocset_chain_packed): in the
 * network's phase it takes three quarters of what is left (measured: the
 * relaxation after it added nothing on the pairs looked at, while more
 * packed nodes raised the built-in example's bound), in seconds or under
 * a work limit at this many nodes per unit of work (about 13 ms of nodes
 * on resnet50, a CBC node's order), and never more than PACK_MAX_NODES
 * (about four minutes there). */
#define PACK_SHARE 0.75
/* Its complete splits are scheduled (packed_split), each MIP capped at
 * this (those that find a plan took 0.1 to 1 s on the pairs looked at;
 * on vgg16 on the A10s 48 splits took 22 s at the cap of a judgement,
 * SUB_SECONDS, and found nothing). */
#define SPLIT_MIP_SECONDS 1.0
#define SPLIT_MIP_NODES 1000
#define PACK_WORK 100
#define PACK_MAX_NODES 2000000L
/* The packed chain's splits of least value, kept: after it, the local
 * search of 5.2 (list scheduler) starts from them, in that order, on
 * SPLIT_POLISH_SHARE of what its phase has left. The schedule MIP keeps a
 * run's layers back to back and a split is rarely good as it stands;
 * moving layers from it is what finds the plan (resnet50 on the DGX-1:
 * 1,122 ms after 1,159 schedules from the split of least value, where
 * every plan found before was 1,150 ms at best). */
#define SPLIT_POOL 4
#define SPLIT_POLISH_SHARE 0.8

/* ------------------------------------------------------------- search */

struct cut {
    int *alloc;                /* [B] block -> GPU */
    double ta, tb;             /* proven for periods in [ta, tb] */
    double obj;                /* least objective there; INFINITY: nothing fits
                                * at any period <= tb (no-good) */
};

enum iv_state {
    IV_OPEN,                   /* master at b not solved for this [a, b] */
    IV_SOLVED,                 /* solved: lb uses it; something fits at b */
    IV_FINAL                   /* too narrow to split and nothing left to learn */
};

struct interval {
    double a, b, lb;
    enum iv_state state;
    /* its last master was built with seen - 1 cuts against the incumbent
     * seen_obj (seen 0: never): with neither changed since, the same MIP */
    int seen;
    double seen_obj;
};

struct search {
    const struct problem *pb;  /* layers */
    struct problem *bp;        /* blocks */
    const struct ilp_options *opt;
    struct ilp_stats *stats;
    double t0;
    long work;                 /* CBC nodes + 1 per MIP, for opt->work_limit */
    double net_bound;          /* bound on the network's objective (trivial, then netbound's) */
    double load_t;             /* least period the loads allow (problem_load_bound) */
    double alpha, beta;
    double lat_floor;          /* no latency is below the total compute */
    double chain;              /* wait-free latency with every cut: T above it gains nothing */
    int B, P;
    int *sym;                  /* [P] 1 if GPU p and p-1 are interchangeable */
    struct plan *best;         /* layer-level incumbent */
    double best_obj;
    double bound;
    bool stopped;              /* limit or cancel: no optimality claim */
    bool warmed;               /* the baselines have been offered */
    bool failed;               /* CBC failed */
    bool net_failed;           /* CBC failed in the relaxation of 5.3: the
                                * network's bound stays what was proven */
    struct cut *cuts;
    int ncuts, cuts_cap;
    struct interval *iv;
    int niv;
    double pruned_floor;       /* least bound of the intervals pruned as close enough */
    double wide;               /* 1f1b: the share of the objective an interval may lose */
    /* The network's relaxation (doc/model.md section 5.3): the same
     * search over blocks of the layers, where a block may also be split
     * between GPUs at the most favourable cost of every term and the
     * operations that pairs and memory see are each block's first
     * layer's; nothing is judged, and blocks the master splits are
     * refined. Every bound it proves holds for the layers. */
    bool relaxed;
    const char *tag;           /* trace prefix */
    int *lfirst;               /* relaxed: [B+1] first layer (in pb) of each block */
    double *cin;               /* relaxed: [B] transfers inside block i, summed */
    double *cmin;              /* relaxed: [B] least transfer inside (INFINITY: one layer) */
    double *amin;              /* relaxed: [B] least activation crossing inside */
    int max_blocks;            /* relaxed: refinement stops here */
    double deadline;           /* stop at this time too (seconds mode) */
    long work_cap;             /* and at this work (work mode) */
    /* The allocations that could beat the incumbent (complete search
     * only); when every one is kept, the master picks among them. */
    struct allocset allocs;
    bool allocs_only;
    /* The chain's least lifetimes of the layers over the interval being
     * solved (section 5.5): floors for the masters' counts and latency. */
    double *life;              /* [pb->L], or NULL */
    bool life_set;
    double life_a, life_b;     /* the interval they are for (NAN: none), */
    int life_rc;               /* and allocset_chain_lifetimes()'s answer */
    int *bfirst;               /* [B+1] first layer (in pb) of each block */
    bool chain_on;             /* each better plan raises the chain bound */
    uint64_t *tried;           /* the packed chain's splits scheduled (hashes) */
    int ntried, tried_cap;
    int *pool;                 /* [SPLIT_POOL * L] its splits of least value, */
    double pool_v[SPLIT_POOL]; /* those values, in ascending order */
    int npool;
    struct allocset_piece *pieces; /* the packed chain's bound, period by period */
    int npieces;
    double exact_from;         /* exact_search() ended unimproved on this
                                * incumbent (NAN: never) */
    long exact_judged;         /* after judging so many candidates (LONG_MAX:
                                * all there were) */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Under a work limit nothing depends on the clock: same inputs, same
 * search, same answer on any machine. */
static bool deterministic(const struct search *s)
{
    return s->opt->work_limit > 0;
}

/* Seconds left of the caller's time limit (1e9 without one). */
static double time_left(const struct search *s)
{
    return s->opt->time_limit > 0 ? s->opt->time_limit - (now() - s->t0) : 1e9;
}

/* ... and of this phase's deadline too. */
static double remaining(const struct search *s)
{
    if (deterministic(s))
        return 1e9;
    double left = time_left(s);
    return isfinite(s->deadline) ? fmin(left, s->deadline - now()) : left;
}

/* A cancel, or the clock past the time limit: for loops of schedules that
 * take seconds on many layers (never the work limit, which they count
 * outside, so that the same inputs give the same search). */
static bool interrupted(const struct search *s)
{
    return (s->opt->cancel && *s->opt->cancel) || (!deterministic(s) && time_left(s) <= 0.0);
}

/* The caller's limits: a cancel, the work limit or the time limit. */
static bool limit_reached(const struct search *s)
{
    return interrupted(s) || (deterministic(s) && s->work >= s->opt->work_limit);
}

/* The caller's limits, or this phase's own (its work cap or deadline). */
static bool should_stop(struct search *s)
{
    if (limit_reached(s) || (deterministic(s) ? s->work >= s->work_cap : remaining(s) <= 0.0))
        s->stopped = true;
    return s->stopped;
}

static void trace(const struct search *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The search's own log line (masters, judgements, plans, bounds). */
static void trace(const struct search *s, const char *fmt, ...)
{
    if (!s->opt->on_trace)
        return;
    char line[256];
    int n = snprintf(line, sizeof line, "[%8.3f s] %s", now() - s->t0, s->tag ? s->tag : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    s->opt->on_trace(s->opt->ctx, line);
}

/* CBC checks its limits between nodes, not inside its root (LP and
 * preprocessing), whose time grows as about rows^1.5: on resnet50 on 8
 * GPUs (blocks = 64, 96, 128) schedule MIPs took 0.6 s at 25,775 rows,
 * 2.1 s at 55,637 and 4.9 s at 99,264, each capped at 0.5 s; with every
 * layer a block (177) one took 20 s, and a master of 29,408 rows, whose
 * root does more, took 3.1 s of CPU (started with 0.08 s left, it ended
 * 3.6 s past the limit). The seconds a root takes at least, on the
 * machine those were measured on. */
#define ROOT_ROWS 32768
#define ROOT_MASTER 4.0
static double root_seconds(int rows, bool master)
{
    return (master ? ROOT_MASTER : 1) * pow(rows / (double)ROOT_ROWS, 1.5);
}

/* Whether a bound proves a plan of objective obj optimal (as obj - bound
 * <= ILP_GAP * obj: an objective of 0 meets a bound of 0). */
static bool proven_at(double obj, double bound)
{
    return obj - bound <= ILP_GAP * obj;
}

/* Under a work limit a node of a MIP of up to WORK_ROWS rows is one unit
 * of work, and a node of a larger one (rows / WORK_ROWS)^3 units, its root
 * included. Measured: a master's node took 17 ms at 2,600 rows, 0.3 s at
 * 6,468 and 0.8 s at 11,250 (about the cube). Counted one unit each, the
 * 200 nodes of that last master (80 layers as blocks on 6 GPUs) took two
 * minutes, and a work limit of 2,000 ran for most of an hour. The bundled
 * cases' MIPs are below WORK_ROWS. */
#define WORK_ROWS 4096.0
static double node_work(int rows)
{
    return rows <= WORK_ROWS ? 1.0 : pow(rows / WORK_ROWS, 3);
}

/* The rows a MIP may have and still start within what is left (its root
 * as a schedule MIP's, the cheaper kind; search_mip_solve() judges it
 * again by its kind): a larger one is counted, not built. 0: no limit.
 * Under a work limit, a node of it and the root as another within the
 * work left (up to WORK_ROWS a node counts one and is always allowed);
 * in seconds, its root within the time left. */
static int max_rows(const struct search *s)
{
    bool det = deterministic(s);
    double left = det ? (double)(s->opt->work_limit - s->work) / 2 : time_left(s);
    double lo = det ? WORK_ROWS : 1, hi = (double)INT_MAX;
    if ((det ? node_work(INT_MAX) : root_seconds(INT_MAX, false)) <= left)
        return 0;
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if ((det ? node_work((int)mid) : root_seconds((int)mid, false)) <= left)
            lo = mid;
        else
            hi = mid;
    }
    return (int)hi;
}

/* A MIP capped by `seconds` of the time left, or under a work limit by
 * `nodes` of the work left. */
static int search_mip_init(const struct search *s, struct mip *mp, double seconds, long nodes)
{
    int rc;
    if (deterministic(s)) {
        long left = s->opt->work_limit - s->work;
        /* one thread: CBC's parallel search is not reproducible */
        rc = mip_init(mp, 1, 0, left < nodes ? (left > 1 ? left : 1) : nodes);
    } else {
        rc = mip_init(mp, s->opt->threads, fmax(0.05, fmin(seconds, remaining(s))), 0);
    }
    if (rc == 0 && s->opt->solver_log > 0) {
        mip_log_level(mp, s->opt->solver_log);
    }
    if (rc == 0)
        mip_set_max_rows(mp, max_rows(s));
    /* CBC's cutoff increment, an absolute 1e-5 ms, is far above the gap
     * on objectives of microseconds: a tenth of CBC's own gap (1e-6) of
     * the least objective there is, never above CBC's default */
    double floor_obj = fmax(s->net_bound, problem_objective_bound(s->pb));
    if (rc == 0)
        mip_set_increment(mp, floor_obj * MIP_INCREMENT_SHARE);
    return rc;
}

/* Solve, counting its work and adding its seconds to *seconds; a MIP whose
 * root could not end before the time limit, or cost more than the work
 * left, is not started (the search ends: MIP_UNKNOWN). */
static enum mip_outcome search_mip_solve(struct search *s, struct mip *mp, bool master,
                                         double *seconds)
{
    if (!deterministic(s) && root_seconds(mp->rows, master) > time_left(s)) {
        /* it could not end before the limit: the search ends here */
        trace(s, "a MIP of %d rows not started%s: its root would outlast the %.3g s left",
              mp->rows, mp->over ? " (nor built)" : "", fmax(0, time_left(s)));
        s->stopped = true;
        return MIP_UNKNOWN;
    }
    double unit = node_work(mp->rows);
    if (deterministic(s) && unit > 1) {
        /* its nodes within the work left, the root as one of them */
        double left = (double)(s->opt->work_limit - s->work);
        long nodes = (long)floor(left / unit) - 1;
        if (nodes < 1) {
            trace(s, "a MIP of %d rows not started%s: a node of it counts %.3g of the %.0f "
                  "units of work left", mp->rows, mp->over ? " (nor built)" : "", unit,
                  fmax(0, left));
            s->stopped = true;
            return MIP_UNKNOWN;
        }
        if (mp->nodes <= 0 || nodes < mp->nodes)
            mip_set_nodes(mp, nodes);
    }
    if (mp->over) {
        /* not built (mip_set_max_rows); the checks above refuse it first */
        s->stopped = true;
        return MIP_UNKNOWN;
    }
    double t1 = now();
    enum mip_outcome out = mip_solve(mp);
    *seconds += now() - t1;
    s->work += (long)ceil(unit * (double)(1 + mip_nodes(mp)));
    if (mp->aborted)
        trace(s, "CBC aborted (an assertion in Clp) %s", out == MIP_FAILED
              ? "twice on this MIP: it is given up" : "on this MIP: a copy was solved again with "
              "Dantzig pricing");
    if (out == MIP_FAILED)
        s->failed = s->stopped = true;     /* out of memory building it */
    return out;
}

static void report(struct search *s, const struct plan *improved)
{
    if (!s->opt->on_progress)
        return;
    bool exact = s->B == s->pb->L;
    struct ilp_progress p = {
        .elapsed = now() - s->t0, .plan = improved, .objective = s->best_obj,
        .bound = exact ? fmax(s->net_bound, s->bound) : s->net_bound,
        .block_bound = exact || !isfinite(s->bound) ? NAN : s->bound, .blocks = s->B,
    };
    s->opt->on_progress(s->opt->ctx, &p);
}

static double objective_of(const struct search *s, double T, double latency)
{
    return s->alpha * T + s->beta * latency;
}

/* The objective a plan must stay below to beat the incumbent by more than
 * half the optimality gap (INFINITY with no incumbent). */
static double objective_cap(const struct search *s)
{
    return isfinite(s->best_obj) ? s->best_obj * (1 - ILP_GAP / 2) : INFINITY;
}

/* For 1f1b: the latency above which a plan at period T cannot either. */
static double latency_cap(const struct search *s, double T)
{
    if (!isfinite(s->best_obj) || s->beta <= 0)
        return INFINITY;
    return (objective_cap(s) - s->alpha * T) / s->beta;
}

static void chain_bound(struct search *s);

/* The network's bound meets the incumbent: the plan is optimal for the
 * network, nothing is left to prove (false with no incumbent). */
static bool network_proven(const struct search *s)
{
    return s->net_bound >= s->best_obj * (1 - ILP_GAP);
}

/* Offer a layer-level plan as incumbent (copied if better). */
static void offer(struct search *s, const struct plan *pl)
{
    if (!pl || !pl->fits || pl->objective >= s->best_obj * (1 - 1e-12))
        return;
    struct sim_report rep;
    /* nothing the simulator rejects is ever shown */
    if (simulate_plan(pl, s->pb, &rep) != SIM_OK)
        return;
    struct plan *c = plan_copy(pl);
    if (!c)
        return;
    plan_free(s->best);
    s->best = c;
    s->best_obj = c->objective;
    if (s->warmed && s->stats->first_better_seconds < 0)
        s->stats->first_better_seconds = now() - s->t0;
    trace(s, "plan %.6g ms (period %.6g ms)", c->objective, c->T);
    report(s, c);
    if (s->chain_on)
        chain_bound(s);
}

/* An allocation scheduled at its shortest fitting period and, for 1f1b,
 * on a ladder of longer ones: a longer period can cost less than the
 * waits it removes from the latency. */
static struct plan *schedule_ladder(const struct search *s, const struct problem *pb,
                                    const int *gpu)
{
    struct plan *best = baseline_schedule_fitting(pb, gpu, 0);
    if (!best || !best->fits || s->beta <= 0)
        return best;
    struct plan *alt = plan_copy(best);
    double T0 = best->T, floor_lat = problem_compute_ms(pb);
    for (int k = 1; alt && k <= LADDER_STEPS && !interrupted(s); k++) {
        double T = T0 * (1 + k * LADDER_STEP);
        if (objective_of(s, T, floor_lat) >= best->objective)
            break;
        if (schedule_build_at(alt, pb, T) == 0 && alt->fits &&
            alt->objective < best->objective) {
            struct plan *swap = best;
            best = alt;
            alt = swap;
        }
    }
    plan_free(alt);
    return best;
}

/* ---- block plans to layer plans ---- */

/* Exact expansion: the layers of a block run back to back where the block
 * ran, so every lifetime, load and cut is at most the block's. Block i of
 * bp is layers first[i]..first[i+1]-1 of pb; into pl (pb's layers). */
static void expand_into(const struct problem *pb, const struct problem *bp, const int *first,
                        const struct plan *bpl, struct plan *pl)
{
    pl->T = bpl->T;
    for (int i = 0; i < bp->L; i++) {
        double tf = bpl->start[i], tb = bpl->start[bp->L + i];
        for (int j = first[i]; j < first[i + 1]; j++) {
            pl->gpu[j] = bpl->gpu[i];
            pl->start[j] = tf;
            tf += pb->f[j];
        }
        for (int j = first[i + 1] - 1; j >= first[i]; j--) {
            pl->start[pb->L + j] = tb;
            tb += pb->b[j];
        }
    }
    double s0 = pl->start[0];
    for (int o = 0; o < 2 * pb->L; o++)
        pl->start[o] -= s0;
    plan_evaluate(pl, pb);
}

static struct plan *expand_plan(const struct search *s, const struct plan *bpl)
{
    struct plan *pl = plan_new(s->pb->L, s->pb->P);
    if (pl)
        expand_into(s->pb, s->bp, s->bp->first, bpl, pl);
    return pl;
}

/* No period is below an allocation's own compute and link loads. */
static double allocation_load(const struct problem *bp, const int *gpu)
{
    int L = bp->L;
    double need = 0;
    for (int p = 0; p < bp->P; p++) {
        double load = 0, link = 0;
        for (int i = 0; i < L; i++) {
            if (gpu[i] == p)
                load += bp->f[i] + bp->b[i];
            if (i + 1 < L && (gpu[i] == p) != (gpu[i + 1] == p))
                link += bp->c[i];
        }
        need = fmax(need, fmax(load, link));
    }
    return need;
}

/* The layer-level local search (lns.h), after the baselines and on each
 * new plan found on blocks: at most so many seconds and this share of the
 * time left, or under a work limit so many schedules. */
#define WARM_SECONDS 1.5
#define WARM_SHARE 0.15
#define WARM_EVALS 64
/* The folded starts (fold.h) race by successive halving: which start ends
 * best is not foreseen by its first schedule, nor by a short search from
 * it (doc/model.md section 5.2). */
#define FOLD_SECONDS 6.0
#define FOLD_SHARE 0.2
#define FOLD_EVALS 96
#define REFINE_SECONDS 2.0
#define REFINE_SHARE 0.25
#define REFINE_EVALS 32

/* The local search from a plan, its improvements offered as found: at
 * most `seconds` of the time left, or under a work limit `evals`
 * schedules, each counted as one unit of work. */
static void lns_offer(void *ctx, const struct plan *pl)
{
    offer(ctx, pl);
}

/* lns_improve() from a copy of start (offer() replaces the incumbent,
 * which may be start), its improvements offered as found; the best of
 * them into *out when out is not NULL (NULL: none). -1 when out of memory
 * (nothing ran). */
static int lns_run(struct search *s, const struct plan *start, struct lns_options *lo,
                   struct lns_stats *st, struct plan **out)
{
    if (out)
        *out = NULL;
    memset(st, 0, sizeof *st);
    lo->cancel = s->opt->cancel;
    lo->offer = lns_offer;
    lo->ctx = s;
    struct plan *from = plan_copy(start), *found = NULL;
    if (!from)
        return -1;
    double t1 = now();
    lns_improve(s->pb, from, lo, &found, st);
    plan_free(from);
    if (out)
        *out = found;
    else
        plan_free(found);
    s->stats->refine_seconds += now() - t1;
    return 0;
}

/* A local search from start within seconds (evals under a work limit);
 * its best plan into *out when out is not NULL (NULL: none better than
 * start). */
static long local_search_to(struct search *s, const struct plan *start, double seconds,
                            long evals, struct plan **out)
{
    if (out)
        *out = NULL;
    struct lns_options lo;
    lns_options_init(&lo);
    if (deterministic(s)) {
        long left = s->opt->work_limit - s->work;
        lo.evaluations = left < evals ? left : evals;
        if (lo.evaluations <= 0)
            return 0;
    } else {
        lo.seconds = fmin(seconds, remaining(s));
        if (lo.seconds <= 0)
            return 0;
    }
    struct lns_stats st;
    if (lns_run(s, start, &lo, &st, out) != 0)
        return 0;
    s->work += st.evaluations + st.screen_work;
    trace(s, "local search: %ld schedules (+%ld for the screening), %ld of %ld candidates "
          "screened out, %d better plan%s", st.evaluations, st.screen_work, st.screened,
          st.candidates, st.improvements, st.improvements == 1 ? "" : "s");
    return st.evaluations;
}

static void local_search(struct search *s, const struct plan *start, double seconds, long evals)
{
    local_search_to(s, start, seconds, evals, NULL);
}

/* Layer-level local search around a plan found on blocks. */
static void refine_layers(struct search *s, const struct plan *start)
{
    /* a bounded share of the time left: the MIPs prove, this only polishes */
    local_search(s, start, fmin(REFINE_SECONDS, REFINE_SHARE * remaining(s)), REFINE_EVALS);
}

/* A fitting block plan: expanded to layers, offered, and refined layer by
 * layer when it is a new best plan (refining costs schedules). */
static void offer_block_plan(struct search *s, const struct plan *bpl)
{
    struct plan *layer = bpl && bpl->fits ? expand_plan(s, bpl) : NULL;
    if (!layer)
        return;
    bool promising = layer->fits && layer->objective < s->best_obj * (1 - 1e-9);
    offer(s, layer);
    if (promising)
        refine_layers(s, layer);
    plan_free(layer);
}

/* ---- the exact schedule of one block allocation at a fixed period ---- */

/* w = (v + off) * tau, v an integer column in [vl, vu], tau in [a, b]:
 * McCormick's four rows, exact once v is fixed. Returns w's column. */
static int master_product(struct mip *mp, int v, double off, double vl, double vu, int tau,
                          double a, double b)
{
    double yl = vl + off, yu = vu + off;
    int w = mip_col(mp, fmin(yl * a, yl * b), fmax(yu * a, yu * b), 0, false);
    const double ty[4] = { yl, yu, yu, yl }, tt[4] = { a, b, a, b };
    const char sense[4] = { 'G', 'G', 'L', 'L' };
    for (int k = 0; k < 4; k++) {
        /* w - y_k tau - t_k v  {>=, <=}  t_k off - y_k t_k */
        mip_row_begin(mp);
        mip_row_add(mp, w, 1);
        mip_row_add(mp, tau, -ty[k]);
        mip_row_add(mp, v, -tt[k]);
        mip_row_end(mp, sense[k], tt[k] * off - ty[k] * tt[k]);
    }
    return w;
}

/* Two operations on one GPU do not overlap modulo tau: with w = y tau
 * and the operations starting at t_q + off_q and t_o + off_o,
 * d_o <= t_q + off_q - t_o - off_o - w <= tau - d_q, switched off when
 * any of the nsw columns sw[] is 1 by M >= tau (a window of length >= tau
 * holds a multiple of tau). */
static void master_pair_at(struct mip *mp, int tq, double off_q, int to, double off_o, int w,
                           int tau, const int *sw, int nsw, double M, double d_o, double d_q)
{
    for (int up = 0; up < 2; up++) {
        mip_row_begin(mp);
        mip_row_add(mp, tq, 1);
        mip_row_add(mp, to, -1);
        mip_row_add(mp, w, -1);
        if (up)
            mip_row_add(mp, tau, -1);
        for (int k = 0; k < nsw; k++)
            if (sw[k] >= 0)
                mip_row_add(mp, sw[k], up ? -M : M);
        mip_row_end(mp, up ? 'L' : 'G', (up ? -d_q : d_o) - off_q + off_o);
    }
}

/* The same, both operations at their columns' times, with one switch
 * (sw < 0: always on). */
static void master_pair(struct mip *mp, int tq, int to, int w, int tau, int sw, double M,
                        double d_o, double d_q)
{
    master_pair_at(mp, tq, 0, to, 0, w, tau, &sw, 1, M, d_o, d_q);
}

/* The range of a pair's integer when its two starts lie in the given
 * windows and the period in [a, b]. */
static void pair_range(double q_lo, double q_hi, double o_lo, double o_hi, double a, double b,
                       double *yl, double *yu)
{
    *yl = floor((q_lo - o_hi) / (q_lo - o_hi < 0 ? a : b)) - 1;
    *yu = ceil((q_hi - o_lo) / (q_hi - o_lo < 0 ? b : a)) + 1;
}


/* w = y * tau exactly, y a new integer column in [yl, yu] (returned in
 * *y) and tau in [a, b]: y = yl + sum 2^k beta_k with binaries beta_k,
 * and each beta_k * tau is exact with McCormick's rows (a binary sits on
 * a bound). Returns w's column. */
static int exact_product(struct mip *mp, double yl, double yu, int tau, double a, double b,
                         int *y)
{
    int K = 0;
    while (K < 30 && (double)(1L << K) <= yu - yl)
        K++;
    *y = mip_col(mp, yl, yu, 0, true);
    int w = mip_col(mp, fmin(yl * a, yl * b), fmax(yu * a, yu * b), 0, false);
    int *beta = malloc((size_t)(K + 1) * 2 * sizeof *beta);
    if (!beta)
        return w;
    int *g = beta + K + 1;
    for (int k = 0; k < K; k++) {
        beta[k] = mip_col(mp, 0, 1, 0, true);
        g[k] = mip_col(mp, 0, b, 0, false);
        const double cb[4] = { -b, -a, -a, -b }, ct[4] = { 0, 0, -1, -1 };
        const double rhs[4] = { 0, 0, -a, -b };
        const char sense[4] = { 'L', 'G', 'L', 'G' };
        for (int r = 0; r < 4; r++) {
            mip_row_begin(mp);
            mip_row_add(mp, g[k], 1);
            mip_row_add(mp, beta[k], cb[r]);
            if (ct[r] != 0)
                mip_row_add(mp, tau, ct[r]);
            mip_row_end(mp, sense[r], rhs[r]);
        }
    }
    mip_row_begin(mp);              /* y = yl + sum 2^k beta_k */
    mip_row_add(mp, *y, 1);
    for (int k = 0; k < K; k++)
        mip_row_add(mp, beta[k], -(double)(1L << k));
    mip_row_end(mp, 'E', yl);
    mip_row_begin(mp);              /* w = yl tau + sum 2^k g_k */
    mip_row_add(mp, w, 1);
    mip_row_add(mp, tau, -yl);
    for (int k = 0; k < K; k++)
        mip_row_add(mp, g[k], -(double)(1L << k));
    mip_row_end(mp, 'E', 0);
    free(beta);
    return w;
}

/* w = y * tau for a new integer y in [yl, yu]: exact_product() over a
 * range of periods, one row at a fixed one (ta = tb). */
static int pair_product(struct mip *mp, double yl, double yu, int tau, double ta, double tb,
                        int *y)
{
    if (ta < tb)
        return exact_product(mp, yl, yu, tau, ta, tb, y);
    *y = mip_col(mp, yl, yu, 0, true);
    int w = mip_col(mp, fmin(yl * ta, yu * ta), fmax(yl * ta, yu * ta), 0, false);
    mip_row_begin(mp);
    mip_row_add(mp, w, 1);
    mip_row_add(mp, *y, -ta);
    mip_row_end(mp, 'E', 0);
    return w;
}

/* Pipedream: the most copies of one activation and weights (s, w) any
 * GPU could hold, a bound on its in-flight count in a fitting plan. */
static double copies_of(const struct problem *bp, double s, double w)
{
    double per = s + w, most = 0;
    for (int p = 0; p < bp->P; p++)
        most = fmax(most, bp->cap[p] - bp->reserved[p] - (bp->phi - 1) * w);
    return per > 0 ? fmax(1, floor(most / per + 1e-9)) : INFINITY;
}

/* Of block i: its whole activation and weights. */
static double copies_that_fit(const struct problem *bp, int i)
{
    return copies_of(bp, bp->s[i], bp->w[i]);
}

/* What pairs and memory see of block i's operation o (F_i: o = i, B_i:
 * o = B + i): the block's own, or in the relaxation its first layer's,
 * which is one operation of the layers wherever the rest of the block
 * runs. Its duration, and where it starts past the block's column (the
 * first layer's backward ends the block's). */
static double op_len(const struct search *s, int o)
{
    if (!s->relaxed)
        return problem_op_duration(s->bp, o);
    int i = o < s->B ? o : o - s->B;
    return o < s->B ? s->pb->f[s->lfirst[i]] : s->pb->b[s->lfirst[i]];
}

static double op_off(const struct search *s, int o)
{
    if (!s->relaxed || o < s->B)
        return 0;
    int i = o - s->B;
    return s->bp->b[i] - s->pb->b[s->lfirst[i]];
}

/* The most copies of block i's in-flight count memory allows (pipedream). */
static double copies_first(const struct search *s, int i)
{
    if (!s->relaxed)
        return copies_that_fit(s->bp, i);
    int j = s->lfirst[i];
    return copies_of(s->bp, s->pb->s[j], s->pb->w[j]);
}

/* What the schedule MIP's families share: its columns and the windows
 * they were made with. Op o is F_i for o = i and B_i for o = L + i. */
struct schedule_cols {
    struct mip *mp;
    const int *gpu;            /* [L] the allocation */
    double ta, tb;             /* the period's range */
    int tau;
    int *t;                    /* [2L] start of op o */
    int *u;                    /* [L] the copies memory charges */
    double *lo, *hi;           /* [2L] start window of op o */
};

/* Earliest starts: the chain without waits. */
static void schedule_earliest(const struct problem *bp, const int *gpu, double *lo)
{
    int L = bp->L;
    lo[0] = 0;
    for (int i = 0; i + 1 < L; i++)
        lo[i + 1] = lo[i] + bp->f[i] + (gpu[i] != gpu[i + 1] ? bp->c[i] : 0.0);
    lo[2 * L - 1] = lo[L - 1] + bp->f[L - 1];
    for (int i = L - 2; i >= 0; i--)
        lo[L + i] = lo[L + i + 1] + bp->b[i + 1] + (gpu[i] != gpu[i + 1] ? bp->c[i] : 0.0);
}

/* Start columns and the latest starts. Waits of a period or more never
 * help (shift the rest of the chain back by a period: offsets stay, no
 * lifetime grows), so the op at chain position k starts within k periods
 * of its earliest start, and every start is before B_0's, at most last. */
static void schedule_start_cols(const struct search *s, const struct schedule_cols *sc,
                                double last)
{
    int L = s->bp->L;
    for (int o = 0; o < 2 * L; o++) {
        int pos = o < L ? o : 3 * L - 1 - o;
        double ub = fmax(sc->lo[o], fmin(sc->lo[o] + pos * sc->tb, last));
        sc->t[o] = mip_col(sc->mp, sc->lo[o], ub, o == L ? s->beta : 0.0, false);
        sc->hi[o] = ub;
    }
}

/* Only schedules with an objective <= obj_cap. */
static void schedule_cutoff_row(const struct search *s, const struct schedule_cols *sc,
                                double obj_cap)
{
    if (!isfinite(obj_cap))
        return;
    mip_row_begin(sc->mp);
    mip_row_add(sc->mp, sc->tau, s->alpha);
    mip_row_add(sc->mp, sc->t[s->bp->L], s->beta);
    mip_row_end(sc->mp, 'L', obj_cap - s->beta * s->bp->b[0]);
}

/* Chain order with transfers between GPUs. */
static void schedule_chain_rows(const struct problem *bp, const struct schedule_cols *sc)
{
    struct mip *mp = sc->mp;
    int L = bp->L;
    const int *t = sc->t;
    for (int i = 0; i + 1 < L; i++) {
        double c = sc->gpu[i] != sc->gpu[i + 1] ? bp->c[i] : 0.0;
        mip_row_begin(mp);
        mip_row_add(mp, t[i + 1], 1);
        mip_row_add(mp, t[i], -1);
        mip_row_end(mp, 'G', bp->f[i] + c);
        mip_row_begin(mp);
        mip_row_add(mp, t[L + i], 1);
        mip_row_add(mp, t[L + i + 1], -1);
        mip_row_end(mp, 'G', bp->b[i + 1] + c);
    }
    mip_row_begin(mp);
    mip_row_add(mp, t[2 * L - 1], 1);
    mip_row_add(mp, t[L - 1], -1);
    mip_row_end(mp, 'G', bp->f[L - 1]);
}

/* One operation at a time modulo tau on each GPU: every pair on one GPU. */
static void schedule_pair_rows(const struct problem *bp, const struct schedule_cols *sc)
{
    int L = bp->L, n = 2 * L;
    for (int o = 0; o < n; o++) {
        for (int q = o + 1; q < n; q++) {
            int lo = o < L ? o : o - L, lq = q < L ? q : q - L;
            if (sc->gpu[lo] != sc->gpu[lq])
                continue;
            double d_o = problem_op_duration(bp, o), d_q = problem_op_duration(bp, q);
            if (d_o <= 0 && d_q <= 0)
                continue;
            double yl, yu;
            int y;
            pair_range(sc->lo[q], sc->hi[q], sc->lo[o], sc->hi[o], sc->ta, sc->tb, &yl, &yu);
            int w = pair_product(sc->mp, yl, yu, sc->tau, sc->ta, sc->tb, &y);
            master_pair(sc->mp, sc->t[q], sc->t[o], w, sc->tau, -1, 0, d_o, d_q);
        }
    }
}

/* In-flight counts n_i (n_i tau >= t(B_i) + b_i - t(F_i)) and the copies
 * u_i memory charges: n_i, or min(n_i, m) for 1f1b. */
static void schedule_inflight_rows(const struct problem *bp, const struct schedule_cols *sc)
{
    struct mip *mp = sc->mp;
    int L = bp->L;
    const int *t = sc->t;
    bool flushed = bp->schedule == SPEC_SCHEDULE_1F1B;
    double m = (double)bp->m;
    double wf = 0;      /* wait-free lifetime of block i's activation */
    for (int i = L - 1; i >= 0; i--) {
        wf += bp->f[i] + bp->b[i];
        if (i + 1 < L && sc->gpu[i] != sc->gpu[i + 1])
            wf += 2 * bp->c[i];
        double nmin = fmax(1, ceil(wf / sc->tb - 1e-9));
        double nmax = fmax(nmin, ceil((sc->hi[L + i] + bp->b[i] - sc->lo[i]) / sc->ta) + 1);
        if (!flushed)
            nmax = fmax(nmin, fmin(nmax, copies_that_fit(bp, i)));
        int n;
        int w = pair_product(mp, nmin, nmax, sc->tau, sc->ta, sc->tb, &n);
        mip_row_begin(mp);
        mip_row_add(mp, w, 1);
        mip_row_add(mp, t[L + i], -1);
        mip_row_add(mp, t[i], 1);
        mip_row_end(mp, 'G', bp->b[i]);
        sc->u[i] = n;
        if (flushed && nmax > m) {
            sc->u[i] = mip_col(mp, 1, m, 0, true);
            int h = mip_col(mp, 0, 1, 0, true);
            mip_row_begin(mp);          /* u >= n - (nmax - m) h */
            mip_row_add(mp, sc->u[i], 1);
            mip_row_add(mp, n, -1);
            mip_row_add(mp, h, nmax - m);
            mip_row_end(mp, 'G', 0);
            mip_row_begin(mp);          /* u >= m h */
            mip_row_add(mp, sc->u[i], 1);
            mip_row_add(mp, h, -m);
            mip_row_end(mp, 'G', 0);
        }
    }
}

/* Memory of each GPU: its weights, the copies it keeps and the buffers
 * of the transfers it sends and receives. */
static void schedule_memory_rows(const struct problem *bp, const struct schedule_cols *sc)
{
    struct mip *mp = sc->mp;
    int L = bp->L;
    bool flushed = bp->schedule == SPEC_SCHEDULE_1F1B;
    for (int p = 0; p < bp->P; p++) {
        double fixed = bp->reserved[p];
        mip_row_begin(mp);
        for (int i = 0; i < L; i++) {
            if (sc->gpu[i] != p)
                continue;
            if (flushed) {
                fixed += bp->phi * bp->w[i];
                mip_row_add(mp, sc->u[i], bp->s[i] / GB);
            } else {
                fixed += (bp->phi - 1) * bp->w[i];
                mip_row_add(mp, sc->u[i], (bp->s[i] + bp->w[i]) / GB);
            }
        }
        for (int i = 0; i + 1 < L; i++)
            if ((sc->gpu[i] == p) != (sc->gpu[i + 1] == p))
                fixed += 2 * bp->a[i];
        mip_row_end(mp, 'L', (bp->cap[p] - fixed) / GB);
    }
}

/* Pairs of operations of one GPU that schedule_pair_rows() orders. */
static double same_gpu_pairs(const struct problem *bp, const int *gpu)
{
    double *ops = calloc((size_t)bp->P, sizeof *ops), pairs = 0;
    if (!ops)
        return 0;
    for (int i = 0; i < bp->L; i++)
        ops[gpu[i]] += (bp->f[i] > 0) + (bp->b[i] > 0);
    for (int p = 0; p < bp->P; p++)
        pairs += ops[p] * (ops[p] - 1) / 2;
    free(ops);
    return pairs;
}

/* The schedule MIP of one block allocation over the periods tau in
 * [ta, tb] (ta = tb: a fixed period): start times, an integer per pair of
 * operations on one GPU for how many periods apart they are (products
 * with tau as McCormick's, exact once the integer is fixed), in-flight
 * counts, memory. Minimises alpha*tau + beta*Lambda, the objective, below
 * obj_cap when that is finite (a plan that cannot beat the incumbent is
 * not worth finding). Returns 1 with the best fitting schedule in pl and
 * in *obj_lb (if not NULL) a proven lower bound on the objective of this
 * allocation over [ta, tb]; 0 when no schedule fits at any period <= tb
 * (none fits in [ta, tb], and a fitting schedule at a shorter period
 * stretches to ta); 2 when none has an objective <= obj_cap in [ta, tb];
 * -1 when undecided. Over a range it stops at range_secs (or a quarter of
 * the time left), at a fixed period at the time left; under a work limit
 * at `nodes`. CBC's path depends on the order of rows and columns: keep
 * the order of the families. */
static int schedule_exact(struct search *s, struct plan *pl, double ta, double tb,
                          double obj_cap, double *obj_lb, double range_secs, long nodes)
{
    const struct problem *bp = s->bp;
    int L = bp->L, n = 2 * L;
    double need = allocation_load(bp, pl->gpu);
    if (need > tb * (1 + 1e-12))
        return 0;
    ta = fmin(tb, fmax(ta, need));
    struct mip mp;
    double secs = ta < tb ? fmin(range_secs, remaining(s) / 4) : remaining(s);
    /* undecided, as below, before the rows are built: each pair of
     * operations on one GPU takes two rows at least, and building them
     * alone took 10 s on 2,000 layers on 64 GPUs (120,000 pairs) */
    if (root_seconds((int)fmin(INT_MAX, 2 * same_gpu_pairs(bp, pl->gpu)), false) >
        fmax(1, deterministic(s) ? nodes / 1000.0 : secs))
        return -1;
    if (search_mip_init(s, &mp, secs, nodes) != 0)
        return -1;
    int *t = malloc((size_t)n * sizeof *t);
    int *u = malloc((size_t)L * sizeof *u);
    double *est = malloc((size_t)n * 2 * sizeof *est);    /* earliest, then latest */
    int rc = -1;
    if (!t || !u || !est)
        goto done;
    struct schedule_cols sc = {
        .mp = &mp, .gpu = pl->gpu, .ta = ta, .tb = tb, .t = t, .u = u,
        .lo = est, .hi = est + n,
    };
    schedule_earliest(bp, pl->gpu, sc.lo);
    sc.tau = mip_col(&mp, ta, tb, s->alpha, false);
    /* 1f1b: the cap bounds B_0's start */
    double last = s->beta > 0 && isfinite(obj_cap)
                  ? (obj_cap - s->alpha * ta) / s->beta - bp->b[0] : INFINITY;
    if (bp->schedule != SPEC_SCHEDULE_1F1B) {
        double mem_last = copies_that_fit(bp, 0) * tb - bp->b[0];
        if (mem_last < sc.lo[L]) {
            rc = 0;     /* the first block cannot keep the copies its lifetime needs */
            goto done;
        }
        last = fmin(last, mem_last);
    }
    if (last < sc.lo[L]) {
        rc = 2;
        goto done;
    }
    schedule_start_cols(s, &sc, last);
    schedule_cutoff_row(s, &sc, obj_cap);
    schedule_chain_rows(bp, &sc);
    schedule_pair_rows(bp, &sc);
    schedule_inflight_rows(bp, &sc);
    schedule_memory_rows(bp, &sc);
    /* undecided: its root alone would overrun its cap (taken as at least 1 s) */
    if (root_seconds(mp.rows, false) > fmax(1, deterministic(s) ? nodes / 1000.0 : secs))
        goto done;
    s->stats->subproblems++;
    enum mip_outcome out = search_mip_solve(s, &mp, false, &s->stats->sub_seconds);
    if (out == MIP_INFEASIBLE) {
        rc = isfinite(obj_cap) ? 2 : 0;
    } else if (out == MIP_SOLVED || out == MIP_FEASIBLE_STOPPED) {
        const double *x = mip_solution(&mp);
        pl->T = fmin(tb, fmax(ta, x[sc.tau]));
        for (int o = 0; o < n; o++)
            pl->start[o] = x[t[o]];
        plan_evaluate(pl, bp);
        rc = pl->fits ? 1 : -1;
        if (obj_lb)
            *obj_lb = out == MIP_SOLVED ? pl->objective
                      : fmin(pl->objective, fmax(0, mip_best_bound(&mp) + s->beta * bp->b[0]));
    } else if (obj_lb && out == MIP_UNKNOWN) {
        /* stopped with no schedule: CBC's bound still holds */
        double bp_ = mip_best_bound(&mp);
        *obj_lb = isfinite(bp_) ? bp_ + s->beta * bp->b[0] : 0;
    } else if (obj_lb) {
        *obj_lb = 0;
    }
done:
    free(t);
    free(u);
    free(est);
    mip_free(&mp);
    return rc;
}

/* ---- cuts ---- */

static void cut_add(struct search *s, const int *alloc, double ta, double tb, double obj)
{
    if (s->ncuts == s->cuts_cap) {
        int cap = s->cuts_cap ? s->cuts_cap * 2 : 64;
        struct cut *nc = realloc(s->cuts, (size_t)cap * sizeof *nc);
        if (!nc)
            return;
        s->cuts = nc;
        s->cuts_cap = cap;
    }
    int *al = malloc((size_t)s->B * sizeof *al);
    if (!al)
        return;
    memcpy(al, alloc, (size_t)s->B * sizeof *al);
    s->cuts[s->ncuts++] = (struct cut){ al, ta, tb, obj };
    s->stats->cuts++;
}

/* Whether a cut holds for the allocation over all of [a, b]. */
static bool cut_covers(const struct cut *ct, double a, double b)
{
    return ct->tb >= b * (1 - 1e-12) && (!isfinite(ct->obj) || ct->ta <= a * (1 + 1e-12));
}

/* Whether the allocation already has a cut over all of [a, b]: the
 * master's value for it is then exact and judging it again learns nothing. */
static bool cut_known(const struct search *s, const int *alloc, double a, double b)
{
    for (int c = 0; c < s->ncuts; c++)
        if (cut_covers(&s->cuts[c], a, b) &&
            memcmp(s->cuts[c].alloc, alloc, (size_t)s->B * sizeof *alloc) == 0)
            return true;
    return false;
}

/* ---- the master ---- */

struct master {
    struct mip mp;
    int *x;                    /* [B*P] */
    int *sg;                   /* relaxed: [B] block i split, or -1 */
    int lam;                   /* latency */
    int tau;                   /* the period, in [a, b] */
    double cap;                /* objective cutoff: no better plan above it */
};

static int X(const struct search *s, int i, int p)
{
    return i * s->P + p;
}

/* What the master's families share: its columns and the bounds they were
 * made with. Op o is F_i for o = i and B_i for o = B + i. */
struct master_cols {
    struct mip *mp;
    double a, b;               /* the period's interval */
    bool flushed;              /* 1f1b */
    int *x;                    /* [B*P] block i on GPU p, at X(s, i, p) */
    int tau, lam;
    int *z;                    /* [B-1] a cut after block i */
    int *e;                    /* [(B-1)*P] that cut touches GPU p, at X(s, i, p) */
    int *tf, *tb;              /* [B] starts of F_i and B_i */
    int *n;                    /* [B] in-flight counts */
    int *u;                    /* [B] the copies memory charges */
    double *lo, *hi;           /* [2B] start window of op o */
    double *nlo, *nhi;         /* [B] range of n_i */
    double *ucap;              /* [B] most copies memory charges */
    int *sg;                   /* relaxed: [B] block i split between GPUs (-1: one layer) */
    int *g;                    /* relaxed: [B*P] its compute share on GPU p */
    int *r;                    /* relaxed: [B*P] its memory on GPU p, GB */
};

/* Start windows of op o. Earliest: the chain with no cut. Latest: a wait
 * of a period or more loses nothing (move the rest of the chain a period
 * back), so each step adds at most its duration, its transfer and a
 * period. */
static void master_windows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    int B = s->B;
    double *lo = mc->lo, *hi = mc->hi;
    double t_lo = 0, t_hi = 0;
    for (int k = 0; k < 2 * B; k++) {
        int o = k < B ? k : 3 * B - 1 - k;
        lo[o] = t_lo;
        hi[o] = t_hi;
        double d = problem_op_duration(bp, o);
        double c = k < B ? (k + 1 < B ? bp->c[k] : 0) : (o > B ? bp->c[o - B - 1] : 0);
        t_lo += d;
        t_hi += d + c + mc->b;
        if (s->relaxed) {
            /* the layers inside: a transfer and a wait each at most */
            int i = o < B ? o : o - B;
            t_hi += s->cin[i] + (s->lfirst[i + 1] - s->lfirst[i] - 1) * mc->b;
        }
    }
    /* 1f1b: a plan that beats the incumbent starts everything before
     * its latency, which the incumbent bounds */
    double last = INFINITY;
    if (s->beta > 0 && isfinite(s->best_obj))
        last = (s->best_obj - s->alpha * mc->a) / s->beta - bp->b[0];
    /* pipedream: nor after n_0 periods, which memory bounds */
    if (!mc->flushed)
        last = copies_first(s, 0) * mc->b - bp->b[0];
    for (int o = 0; o < 2 * B; o++)
        hi[o] = fmax(lo[o], fmin(hi[o], last));
}

/* The allocation x, the objective alpha tau + beta Lambda (pipedream: the
 * period), cuts z, the GPUs e they touch, and the chain's start times. */
static void master_columns(const struct search *s, struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    int B = s->B, P = s->P;
    for (int i = 0; i < B; i++)
        for (int p = 0; p < P; p++)
            mc->x[X(s, i, p)] = mip_col(mp, 0, 1, 0, true);
    mc->tau = mip_col(mp, mc->a, mc->b, s->alpha, false);
    double lam_hi = mc->hi[B] + bp->b[0] + mc->b;
    mc->lam = mip_col(mp, s->life_set ? fmin(s->life[0], lam_hi) : 0, lam_hi, s->beta, false);
    for (int i = 0; i + 1 < B; i++)
        mc->z[i] = mip_col(mp, 0, 1, 0, true);
    for (int i = 0; i + 1 < B; i++)
        for (int p = 0; p < P; p++)
            mc->e[X(s, i, p)] = mip_col(mp, 0, 1, 0, false);
    for (int i = 0; i < B; i++) {
        mc->tf[i] = mip_col(mp, mc->lo[i], i == 0 ? 0 : mc->hi[i], 0, false);
        mc->tb[i] = mip_col(mp, mc->lo[B + i], mc->hi[B + i], 0, false);
    }
    for (int i = 0; s->relaxed && i < B; i++) {
        bool splits = isfinite(s->cmin[i]);
        mc->sg[i] = splits ? mip_col(mp, 0, 1, 0, true) : -1;
        for (int p = 0; p < P; p++) {
            mc->g[X(s, i, p)] = splits ? mip_col(mp, 0, 1, 0, false) : -1;
            mc->r[X(s, i, p)] = splits ? mip_col(mp, 0, fmax(0, bp->cap[p] - bp->reserved[p]) / GB, 0, false) : -1;
        }
    }
}

/* Relaxed: the column, or -1 when there is none. */
static void add_opt(struct mip *mp, int col, double v)
{
    if (col >= 0)
        mip_row_add(mp, col, v);
}

/* Only plans that beat the incumbent by more than half the gap. */
static void master_cutoff_row(const struct search *s, const struct master_cols *mc, double cap)
{
    if (!isfinite(cap))
        return;
    mip_row_begin(mc->mp);
    mip_row_add(mc->mp, mc->tau, s->alpha);
    mip_row_add(mc->mp, mc->lam, s->beta);
    mip_row_end(mc->mp, 'L', cap);
}

/* Each block on one GPU. */
static void master_assignment_rows(const struct search *s, const struct master_cols *mc)
{
    for (int i = 0; i < s->B; i++) {
        mip_row_begin(mc->mp);
        for (int p = 0; p < s->P; p++)
            mip_row_add(mc->mp, mc->x[X(s, i, p)], 1);
        if (s->relaxed)
            add_opt(mc->mp, mc->sg[i], 1);
        mip_row_end(mc->mp, 'E', 1);
        if (s->relaxed && mc->sg[i] >= 0) {
            /* a split block's compute shares sum to it */
            mip_row_begin(mc->mp);
            for (int p = 0; p < s->P; p++)
                mip_row_add(mc->mp, mc->g[X(s, i, p)], 1);
            mip_row_add(mc->mp, mc->sg[i], -1);
            mip_row_end(mc->mp, 'E', 0);
        }
    }
}

/* Cuts between neighbouring blocks on different GPUs, and the GPUs they
 * touch. */
static void master_cut_rows(const struct search *s, const struct master_cols *mc)
{
    struct mip *mp = mc->mp;
    for (int i = 0; i + 1 < s->B; i++) {
        for (int p = 0; p < s->P; p++) {
            for (int dir = 0; dir < 2; dir++) {
                int xi = mc->x[X(s, i, p)], xj = mc->x[X(s, i + 1, p)];
                for (int ze = 0; ze < 2; ze++) {
                    mip_row_begin(mp);
                    mip_row_add(mp, ze ? mc->e[X(s, i, p)] : mc->z[i], 1);
                    mip_row_add(mp, dir ? xj : xi, -1);
                    mip_row_add(mp, dir ? xi : xj, 1);
                    if (s->relaxed) {
                        /* next to a split block the boundary may not be a cut */
                        add_opt(mp, mc->sg[i], 1);
                        add_opt(mp, mc->sg[i + 1], 1);
                    }
                    mip_row_end(mp, 'G', 0);
                }
            }
        }
    }
}

/* The chain: forwards, then backwards, a transfer at every cut; the
 * latency ends with B_0. */
static void master_chain_rows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    int B = s->B;
    /* relaxed: a split block pays at least its least inner transfer on
     * the way forward and again on the way back */
    for (int i = 0; i + 1 < B; i++) {
        double ci = s->relaxed && mc->sg[i] >= 0 ? s->cmin[i] : 0;
        mip_row_begin(mp);
        mip_row_add(mp, mc->tf[i + 1], 1);
        mip_row_add(mp, mc->tf[i], -1);
        mip_row_add(mp, mc->z[i], -bp->c[i]);
        if (ci > 0)
            mip_row_add(mp, mc->sg[i], -ci);
        mip_row_end(mp, 'G', bp->f[i]);
        mip_row_begin(mp);
        mip_row_add(mp, mc->tb[i], 1);
        mip_row_add(mp, mc->tb[i + 1], -1);
        mip_row_add(mp, mc->z[i], -bp->c[i]);
        if (ci > 0)
            mip_row_add(mp, mc->sg[i], -ci);
        mip_row_end(mp, 'G', bp->b[i + 1]);
    }
    mip_row_begin(mp);
    mip_row_add(mp, mc->tb[B - 1], 1);
    mip_row_add(mp, mc->tf[B - 1], -1);
    if (s->relaxed && mc->sg[B - 1] >= 0 && s->cmin[B - 1] > 0)
        mip_row_add(mp, mc->sg[B - 1], -2 * s->cmin[B - 1]);
    mip_row_end(mp, 'G', bp->f[B - 1]);
    mip_row_begin(mp);
    mip_row_add(mp, mc->lam, 1);
    mip_row_add(mp, mc->tb[0], -1);
    mip_row_end(mp, 'G', bp->b[0]);
}

/* w = y * tau for a new integer y in [yl, yu] (returned in *y). Exact by
 * binary expansion for 1f1b, whose latency lives on these waits
 * (measured: the 8-GPU masters close much faster); McCormick's looser,
 * quicker rows for pipedream. */
static int master_pair_product(const struct master_cols *mc, double yl, double yu, int *y)
{
    if (mc->flushed)
        return exact_product(mc->mp, yl, yu, mc->tau, mc->a, mc->b, y);
    *y = mip_col(mc->mp, yl, yu, 0, true);
    return master_product(mc->mp, *y, 0, yl, yu, mc->tau, mc->a, mc->b);
}

/* In-flight counts: F_i and B_i share a GPU, n_i - 1 is their pair's
 * integer, so n_i tau >= t(B_i) + b_i - t(F_i) (the product as in
 * master_pair_product(), n_i itself an integer for McCormick's). */
static void master_inflight_rows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    int B = s->B;
    double *nlo = mc->nlo, *nhi = mc->nhi;
    int *n = mc->n;
    /* no block's activation lives less than the compute from it on */
    double W = 0;
    for (int i = B - 1; i >= 0; i--) {
        W = W + bp->f[i] + bp->b[i];
        nlo[i] = fmax(1, ceil(W / mc->b - 1e-9));
        /* nor less than the chain's least lifetime of its first layer */
        if (s->life_set) {
            int j = s->relaxed ? s->lfirst[i] : s->bfirst[i];
            nlo[i] = fmax(nlo[i], ceil(s->life[j] * (1 - 1e-9) / mc->b - PLAN_EPS));
        }
    }
    for (int i = 0; i < B; i++) {
        nhi[i] = fmax(nlo[i], ceil((mc->hi[B + i] + bp->b[i] - mc->lo[i]) / mc->a) + 1);
        /* pipedream: no fitting plan keeps more copies than a GPU holds */
        if (!mc->flushed)
            nhi[i] = fmax(nlo[i], fmin(nhi[i], copies_first(s, i)));
        int w;
        if (mc->flushed) {
            int y;
            w = exact_product(mp, nlo[i] - 1, nhi[i] - 1, mc->tau, mc->a, mc->b, &y);
            n[i] = mip_col(mp, nlo[i], nhi[i], 0, false);
            mip_row_begin(mp);
            mip_row_add(mp, n[i], 1);
            mip_row_add(mp, y, -1);
            mip_row_end(mp, 'E', 1);
        } else {
            n[i] = mip_col(mp, nlo[i], nhi[i], 0, true);
            w = master_product(mp, n[i], -1, nlo[i], nhi[i], mc->tau, mc->a, mc->b);
        }
        master_pair_at(mp, mc->tb[i], op_off(s, B + i), mc->tf[i], 0, w, mc->tau, NULL, 0, 0,
                       op_len(s, i), op_len(s, B + i));
    }
}

/* A block's activation lives at least as long as the next one's. */
static void master_lifetime_rows(const struct search *s, const struct master_cols *mc)
{
    for (int i = 0; i + 1 < s->B; i++) {
        mip_row_begin(mc->mp);
        mip_row_add(mc->mp, mc->n[i], 1);
        mip_row_add(mc->mp, mc->n[i + 1], -1);
        mip_row_end(mc->mp, 'G', 0);
    }
}

/* Neighbours on one GPU (no cut between them): their other four pairs,
 * switched off by the cut. */
static void master_neighbour_pairs(const struct search *s, const struct master_cols *mc)
{
    int B = s->B;
    for (int i = 0; i + 1 < B; i++) {
        int j = i + 1;
        const int q[4] = { B + i, B + j, j, B + i }, o[4] = { j, i, i, B + j };
        for (int k = 0; k < 4; k++) {
            double yl, yu;
            int y;
            double oq = op_off(s, q[k]), oo = op_off(s, o[k]);
            pair_range(mc->lo[q[k]] + oq, mc->hi[q[k]] + oq, mc->lo[o[k]] + oo,
                       mc->hi[o[k]] + oo, mc->a, mc->b, &yl, &yu);
            int w = master_pair_product(mc, yl, yu, &y);
            int cq = q[k] < B ? mc->tf[q[k]] : mc->tb[q[k] - B];
            int co = o[k] < B ? mc->tf[o[k]] : mc->tb[o[k] - B];
            /* off when a cut separates them, or (relaxed) either is split */
            const int sw[3] = { mc->z[i], s->relaxed ? mc->sg[i] : -1,
                                s->relaxed ? mc->sg[j] : -1 };
            master_pair_at(mc->mp, cq, oq, co, oo, w, mc->tau, sw, 3, mc->b,
                           op_len(s, o[k]), op_len(s, q[k]));
        }
    }
}

/* The copies memory charges: min(n, m) for 1f1b; for pipedream no
 * fitting plan has more copies than the largest GPU holds. */
static void master_copies_rows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    double m = (double)bp->m;
    int *u = mc->u, *n = mc->n;
    for (int i = 0; i < s->B; i++) {
        double nmax = mc->nhi[i], nmin = mc->nlo[i];
        u[i] = n[i];
        if (mc->flushed) {
            mc->ucap[i] = fmin(nmax, m);
            if (nmax > m) {
                if (nmin >= m) {
                    u[i] = mip_col(mp, m, m, 0, true);
                } else {
                    u[i] = mip_col(mp, 1, m, 0, true);
                    int hh = mip_col(mp, 0, 1, 0, true);
                    mip_row_begin(mp);          /* u >= n - (nmax - m) h */
                    mip_row_add(mp, u[i], 1);
                    mip_row_add(mp, n[i], -1);
                    mip_row_add(mp, hh, nmax - m);
                    mip_row_end(mp, 'G', 0);
                    mip_row_begin(mp);          /* u >= m h */
                    mip_row_add(mp, u[i], 1);
                    mip_row_add(mp, hh, -m);
                    mip_row_end(mp, 'G', 0);
                }
            }
        } else {
            mc->ucap[i] = fmax(1, fmin(nmax, copies_first(s, i)));
            mip_row_begin(mp);
            mip_row_add(mp, n[i], 1);
            mip_row_end(mp, 'L', mc->ucap[i]);
        }
    }
}

/* Memory: q_ip >= u_i - U_i (1 - x_ip) carries the copies to GPU p. */
static void master_memory_rows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    int B = s->B;
    int *qc = malloc((size_t)B * sizeof *qc);
    for (int p = 0; qc && p < s->P; p++) {
        for (int i = 0; i < B; i++) {
            double U = mc->ucap[i];
            qc[i] = mip_col(mp, 0, U, 0, false);
            mip_row_begin(mp);
            mip_row_add(mp, qc[i], 1);
            mip_row_add(mp, mc->u[i], -1);
            mip_row_add(mp, mc->x[X(s, i, p)], -U);
            mip_row_end(mp, 'G', -U);
        }
        mip_row_begin(mp);
        for (int i = 0; i < B; i++) {
            double base = mc->flushed ? bp->phi * bp->w[i] : (bp->phi - 1) * bp->w[i];
            double per = mc->flushed ? bp->s[i] : bp->s[i] + bp->w[i];
            mip_row_add(mp, mc->x[X(s, i, p)], base / GB);
            mip_row_add(mp, qc[i], per / GB);
        }
        for (int i = 0; i + 1 < B; i++)
            mip_row_add(mp, mc->e[X(s, i, p)], 2 * bp->a[i] / GB);
        mip_row_end(mp, 'L', (bp->cap[p] - bp->reserved[p]) / GB);
    }
    free(qc);
}

/* Relaxed memory. A whole block on GPU p: its weights; its first layer's
 * activation u_i times and the rest of it at least u_{i+1} times (every
 * later layer lives at least as long as the next block's first); the
 * buffers of its cuts. A split block: its weights, the same copies and
 * two buffers of its least inner activation on each of two GPUs, spread
 * over the GPUs as suits the relaxation best (r). */
static void master_memory_rows_relaxed(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp, *pb = s->pb;
    struct mip *mp = mc->mp;
    int B = s->B;
    bool fl = mc->flushed;
    int *qc = malloc((size_t)2 * B * sizeof *qc);
    if (!qc) {
        mp->oom = true;
        return;
    }
    int *q2 = qc + B;
    for (int p = 0; p < s->P; p++) {
        for (int i = 0; i < B; i++) {
            for (int k = 0; k < 2; k++) {
                int *q = k ? q2 : qc, v = i + k;
                q[i] = -1;
                if (v >= B)
                    continue;
                double U = mc->ucap[v];
                q[i] = mip_col(mp, 0, U, 0, false);
                mip_row_begin(mp);      /* q >= u_v - U (1 - x_ip) */
                mip_row_add(mp, q[i], 1);
                mip_row_add(mp, mc->u[v], -1);
                mip_row_add(mp, mc->x[X(s, i, p)], -U);
                mip_row_end(mp, 'G', -U);
            }
        }
        mip_row_begin(mp);
        for (int i = 0; i < B; i++) {
            int j = s->lfirst[i];
            double base = fl ? bp->phi * bp->w[i] : (bp->phi - 1) * bp->w[i];
            double per_j = fl ? pb->s[j] : pb->s[j] + pb->w[j];
            double rest = (fl ? bp->s[i] : bp->s[i] + bp->w[i]) - per_j;
            mip_row_add(mp, mc->x[X(s, i, p)], (base + (i + 1 == B ? rest : 0)) / GB);
            mip_row_add(mp, qc[i], per_j / GB);
            if (q2[i] >= 0)
                mip_row_add(mp, q2[i], rest / GB);
            add_opt(mp, mc->r[X(s, i, p)], 1);
        }
        for (int i = 0; i + 1 < B; i++)
            mip_row_add(mp, mc->e[X(s, i, p)], 2 * bp->a[i] / GB);
        mip_row_end(mp, 'L', (bp->cap[p] - bp->reserved[p]) / GB);
    }
    free(qc);
    for (int i = 0; i < B; i++) {
        if (mc->sg[i] < 0)
            continue;
        int j = s->lfirst[i];
        bool last = i + 1 == B;
        double base = (fl ? bp->phi * bp->w[i] : (bp->phi - 1) * bp->w[i]) + 4 * s->amin[i];
        double per_j = (fl ? pb->s[j] : pb->s[j] + pb->w[j]) / GB;
        double rest = (fl ? bp->s[i] : bp->s[i] + bp->w[i]) / GB - per_j;
        double D = per_j * mc->ucap[i] + rest * (last ? 1 : mc->ucap[i + 1]);
        /* sum_p r_ip >= sigma (base + per_j u_i + rest u_{i+1}), as
         * sum r - base sigma - per_j u_i - rest u_{i+1} - D sigma >= -D */
        mip_row_begin(mp);
        for (int p = 0; p < s->P; p++)
            mip_row_add(mp, mc->r[X(s, i, p)], 1);
        mip_row_add(mp, mc->sg[i], -base / GB - D);
        mip_row_add(mp, mc->u[i], -per_j);
        if (!last)
            mip_row_add(mp, mc->u[i + 1], -rest);
        mip_row_end(mp, 'G', -D + (last ? rest : 0));
    }
}

/* Compute and link loads within the period. */
static void master_load_rows(const struct search *s, const struct master_cols *mc)
{
    const struct problem *bp = s->bp;
    struct mip *mp = mc->mp;
    for (int p = 0; p < s->P; p++) {
        mip_row_begin(mp);
        for (int i = 0; i < s->B; i++) {
            mip_row_add(mp, mc->x[X(s, i, p)], bp->f[i] + bp->b[i]);
            if (s->relaxed)
                add_opt(mp, mc->g[X(s, i, p)], bp->f[i] + bp->b[i]);
        }
        mip_row_add(mp, mc->tau, -1);
        mip_row_end(mp, 'L', 0);
        mip_row_begin(mp);
        for (int i = 0; i + 1 < s->B; i++)
            mip_row_add(mp, mc->e[X(s, i, p)], bp->c[i]);
        mip_row_add(mp, mc->tau, -1);
        mip_row_end(mp, 'L', 0);
    }
}

/* Identical GPUs are used in order of their first block. */
static void master_symmetry_rows(const struct search *s, const struct master_cols *mc)
{
    for (int p = 1; p < s->P; p++) {
        if (!s->sym[p])
            continue;
        for (int i = 0; i < s->B; i++) {
            mip_row_begin(mc->mp);
            mip_row_add(mc->mp, mc->x[X(s, i, p)], 1);
            for (int j = 0; j < i; j++)
                mip_row_add(mc->mp, mc->x[X(s, j, p - 1)], -1);
            mip_row_end(mc->mp, 'L', 0);
        }
    }
}

/* Contiguous layout: each GPU holds one run of blocks (a run starts at
 * most once). */
static void master_contiguous_rows(const struct search *s, const struct master_cols *mc)
{
    struct mip *mp = mc->mp;
    int B = s->B;
    int *st = malloc((size_t)B * sizeof *st);
    for (int p = 0; st && p < s->P; p++) {
        for (int i = 0; i < B; i++) {
            st[i] = mip_col(mp, 0, 1, 0, false);
            mip_row_begin(mp);
            mip_row_add(mp, st[i], 1);
            mip_row_add(mp, mc->x[X(s, i, p)], -1);
            if (i > 0)
                mip_row_add(mp, mc->x[X(s, i - 1, p)], 1);
            mip_row_end(mp, 'G', 0);
        }
        mip_row_begin(mp);
        for (int i = 0; i < B; i++)
            mip_row_add(mp, st[i], 1);
        mip_row_end(mp, 'L', 1);
    }
    free(st);
}

/* Only the enumerated allocations can beat the cutoff (section 5.4): the
 * master picks one of them, with its bounds on the period, the latency
 * and the objective as floors. Those that cannot beat today's cutoff or
 * fit by b are left out. */
static void master_allocset_rows(const struct search *s, const struct master_cols *mc)
{
    const struct allocset *as = &s->allocs;
    struct mip *mp = mc->mp;
    int B = s->B, P = s->P, n = 0;
    int *y = malloc((size_t)(as->n + 1) * sizeof *y), *k_of = malloc((size_t)(as->n + 1) * sizeof *k_of);
    if (!y || !k_of) {
        free(y);
        free(k_of);
        mp->oom = true;
        return;
    }
    double cap = objective_cap(s);
    for (int k = 0; k < as->n; k++) {
        if (as->bound[k] >= cap || as->period[k] > mc->b * (1 + 1e-9))
            continue;
        k_of[n] = k;
        y[n++] = mip_col(mp, 0, 1, 0, true);
    }
    mip_row_begin(mp);
    if (n == 0) {
        /* none: the master is infeasible, as it should be */
        mip_row_add(mp, mip_col(mp, 0, 0, 0, false), 1);
    }
    for (int j = 0; j < n; j++)
        mip_row_add(mp, y[j], 1);
    mip_row_end(mp, 'E', 1);
    for (int i = 0; i < B; i++) {
        for (int p = 0; p < P; p++) {
            mip_row_begin(mp);
            mip_row_add(mp, mc->x[X(s, i, p)], 1);
            for (int j = 0; j < n; j++)
                if (as->gpu[(size_t)k_of[j] * B + i] == p)
                    mip_row_add(mp, y[j], -1);
            mip_row_end(mp, 'E', 0);
        }
    }
    /* floors: the period, the latency and the objective (its bound) */
    for (int f = 0; f < 3; f++) {
        mip_row_begin(mp);
        if (f != 1)
            mip_row_add(mp, mc->tau, f == 0 ? 1 : s->alpha);
        if (f != 0)
            mip_row_add(mp, mc->lam, f == 1 ? 1 : s->beta);
        for (int j = 0; j < n; j++) {
            int k = k_of[j];
            mip_row_add(mp, y[j], -(f == 0 ? as->period[k] : f == 1 ? as->latency[k]
                                    : as->bound[k]));
        }
        mip_row_end(mp, 'G', 0);
    }
    free(y);
    free(k_of);
}

/* The cuts on allocations already judged that hold over [a, b]:
 * no-goods, and least objectives over intervals that hold this one. */
static void master_judged_rows(const struct search *s, const struct master_cols *mc)
{
    struct mip *mp = mc->mp;
    int B = s->B;
    for (int c = 0; c < s->ncuts; c++) {
        const struct cut *ct = &s->cuts[c];
        if (!cut_covers(ct, mc->a, mc->b))
            continue;
        mip_row_begin(mp);
        if (isfinite(ct->obj)) {
            /* alpha tau + beta Lambda >= obj - obj (B - matches) */
            mip_row_add(mp, mc->tau, s->alpha);
            mip_row_add(mp, mc->lam, s->beta);
            for (int i = 0; i < B; i++)
                mip_row_add(mp, mc->x[X(s, i, ct->alloc[i])], -ct->obj);
            mip_row_end(mp, 'G', ct->obj - ct->obj * B);
        } else {
            for (int i = 0; i < B; i++)
                mip_row_add(mp, mc->x[X(s, i, ct->alloc[i])], 1);
            mip_row_end(mp, 'L', B - 1);
        }
    }
}

/* Build the master over periods tau in [a, b].
 *
 * The period is a variable. Besides the allocation (x, cut z, touch e),
 * each block's forward and backward get start times along the chain, and
 * operations sure to share a GPU may not overlap modulo tau: a block's own
 * F and B (always; that pair's integer is the in-flight count less one)
 * and the four pairs of neighbouring blocks when no cut separates them.
 * Products of those integers with tau are McCormick's: exact once an
 * integer is fixed, so branching closes the relaxation, and an interval
 * whose optimum sits on a plateau of equal objectives is bounded at once.
 * Other pairs are left to the schedule MIP: this is a relaxation of every
 * plan with its period in [a, b], and its optimum bounds them all.
 * CBC's path depends on the order of rows and columns: keep the order of
 * the families. */
static void master_free(struct master *ms);

static int master_build(struct search *s, struct master *ms, double a, double b)
{
    int B = s->B, P = s->P;
    memset(ms, 0, sizeof *ms);
    /* one master may not eat the budget: stopped early it still gives a
     * bound and maybe an allocation, and its interval is split, which
     * makes the next masters easier */
    double secs = fmin(MASTER_SECONDS, s->opt->time_limit > 0 || isfinite(s->deadline)
                                       ? fmax(1.0, remaining(s) / 3) : 1e9);
    if (s->relaxed)
        secs = fmin(secs, RELAX_SECONDS);
    if (search_mip_init(s, &ms->mp, secs, s->relaxed ? RELAX_NODES : MASTER_NODES) != 0)
        return -1;
    ms->x = malloc((size_t)B * P * sizeof *ms->x);
    ms->sg = malloc((size_t)B * (1 + 2 * P) * sizeof *ms->sg);
    int *col = malloc((size_t)(5 + P) * B * sizeof *col);
    double *num = malloc((size_t)7 * B * sizeof *num);
    if (!ms->x || !ms->sg || !col || !num) {
        free(col);
        free(num);
        master_free(ms);
        return -1;
    }
    struct master_cols mc = {
        .mp = &ms->mp, .a = a, .b = b, .flushed = s->bp->schedule == SPEC_SCHEDULE_1F1B,
        .x = ms->x, .z = col, .n = col + B, .u = col + 2 * B, .tf = col + 3 * B,
        .tb = col + 4 * B, .e = col + 5 * B,
        .lo = num, .hi = num + 2 * B, .nlo = num + 4 * B, .nhi = num + 5 * B,
        .ucap = num + 6 * B,
        .sg = ms->sg, .g = ms->sg + B, .r = ms->sg + B + B * P,
    };
    master_windows(s, &mc);
    master_columns(s, &mc);
    ms->tau = mc.tau;
    ms->lam = mc.lam;
    ms->cap = objective_cap(s);
    master_cutoff_row(s, &mc, ms->cap);
    master_assignment_rows(s, &mc);
    master_cut_rows(s, &mc);
    master_chain_rows(s, &mc);
    master_inflight_rows(s, &mc);
    master_lifetime_rows(s, &mc);
    master_neighbour_pairs(s, &mc);
    master_copies_rows(s, &mc);
    if (s->relaxed)
        master_memory_rows_relaxed(s, &mc);
    else
        master_memory_rows(s, &mc);
    master_load_rows(s, &mc);
    master_symmetry_rows(s, &mc);
    if (s->allocs_only && !s->relaxed)
        master_allocset_rows(s, &mc);
    if (s->bp->layout == LAYOUT_CONTIGUOUS)
        master_contiguous_rows(s, &mc);
    /* what the schedule MIPs proved holds for blocks, not for layers */
    if (!s->relaxed)
        master_judged_rows(s, &mc);
    if (deterministic(s)) {
        long base = s->relaxed ? RELAX_NODES : MASTER_NODES, left = s->opt->work_limit - s->work;
        double shrink = fmin(1, pow(MASTER_REF_ROWS / fmax(1, ms->mp.rows), 2));
        /* the floor in work, not nodes: see node_work() */
        double least = fmin(base, MASTER_MIN_NODES) / node_work(ms->mp.rows);
        long cap = (long)fmax(fmax(1, floor(least)), floor(base * shrink));
        mip_set_nodes(&ms->mp, cap < left ? cap : (left > 1 ? left : 1));
    }
    if (s->stats->cols < ms->mp.cols) {
        s->stats->cols = ms->mp.cols;
        s->stats->rows = ms->mp.rows;
        s->stats->integers = ms->mp.ints;
    }
    free(col);
    free(num);
    return 0;
}

static void master_free(struct master *ms)
{
    mip_free(&ms->mp);
    free(ms->x);
    free(ms->sg);
}

/* Judge the allocation the master chose for periods in [a, b], with the
 * period at tau: quick plans first (the list scheduler at b, the exact
 * schedule at tau); then its exact schedule MIP over the range gives its
 * best plan there and its least objective there (a cut), or proves that
 * nothing fits (a no-good).
 * Returns 1 when it learnt nothing new but a plan fits, 0 when a cut was
 * added, -1 when undecided. */
static int judge(struct search *s, const int *alloc, double a, double b, double tau)
{
    const struct problem *bp = s->bp;
    struct plan *pl = plan_new(bp->L, bp->P);
    if (!pl)
        return -1;
    memcpy(pl->gpu, alloc, (size_t)bp->L * sizeof *alloc);
    /* the list scheduler at b, and the allocation at its own shortest
     * period (and longer ones for 1f1b): quick plans, no proof */
    bool fits = schedule_build_at(pl, bp, b) == 0 && pl->fits;
    if (fits)
        offer_block_plan(s, pl);
    struct plan *own = schedule_ladder(s, bp, alloc);
    offer_block_plan(s, own);
    plan_free(own);
    /* exact where the master put the period: cheap, and a plan there
     * that meets the master's value closes the interval */
    double cap = objective_cap(s);
    if (tau < b * (1 - 1e-9) && schedule_exact(s, pl, tau, tau, cap, NULL, SUB_SECONDS, SUB_NODES) == 1)
        offer_block_plan(s, pl);
    cap = objective_cap(s);     /* the plan at tau may have lowered it */
    /* then over all of [a, b], below what could still beat the best plan */
    double lb = 0;
    int e = schedule_exact(s, pl, a, b, cap, &lb, SUB_SECONDS, SUB_NODES);
    int rc;
    if (e == 1) {
        offer_block_plan(s, pl);
        cut_add(s, alloc, a, b, lb);
        rc = 0;
    } else if (e == 2) {
        cut_add(s, alloc, a, b, cap);
        rc = 0;
    } else if (e == 0) {
        cut_add(s, alloc, 0, b, INFINITY);
        rc = 0;
    } else {
        /* the range was too hard: keep CBC's bound over it, decide b alone */
        bool cut = lb > 0;
        if (cut)
            cut_add(s, alloc, a, b, lb);
        int eb = a < b && !should_stop(s) ? schedule_exact(s, pl, b, b, cap, NULL, SUB_SECONDS, SUB_NODES) : -1;
        if (eb == 1) {
            offer_block_plan(s, pl);
            fits = true;
        } else if (eb == 0) {
            cut_add(s, alloc, 0, b, INFINITY);
            cut = true;
        }
        rc = cut ? 0 : fits ? 1 : -1;
    }
    plan_free(pl);
    return rc;
}

/* ---- the local search with exact schedules ---- */

/* The layer-level local search (lns.h) again, with each candidate
 * scheduled by the schedule MIP instead of the list scheduler (which
 * places one operation at a time and misses schedules a GPU holding two
 * runs near a full period needs). It runs twice: from the best baseline,
 * before the list scheduler's local search (a better plan early), and
 * after the block search from its plan, unless it already ended on that
 * plan with nothing left to try. Each time half of its share of the time
 * limit (of EXACT_SECONDS without one), or under a work limit half of its
 * schedule MIPs and of its share of the work. */
#define EXACT_SHARE 0.1
#define EXACT_SECONDS 10.0
#define EXACT_MIN_SECONDS 1.0
#define EXACT_EVALS 24

/* The allocation pl->gpu on the search's blocks, cut again wherever it
 * changes GPU inside one (a block's layers then run back to back, as in
 * expand_plan), scheduled exactly over the periods from t_lo to the
 * longest that could still get below cap, each MIP capped at secs (nodes
 * under a work limit). 1 with the plan in pl, 0 when none gets below cap,
 * -1 undecided. */
static int schedule_layers(struct search *s, struct plan *pl, double t_lo, double cap,
                           double secs, long nodes, bool blocks)
{
    const struct problem *pb = s->pb;
    if (should_stop(s))
        return -1;
    int *bound = malloc(((size_t)pb->L + 1) * sizeof *bound);
    if (!bound)
        return -1;
    int K = 0;
    for (int j = 0, k = 0; j < pb->L; j++) {
        while (k < s->B && s->bfirst[k] < j)
            k++;
        if (j == 0 || pl->gpu[j] != pl->gpu[j - 1] || (blocks && s->bfirst[k] == j))
            bound[K++] = j;
    }
    bound[K] = pb->L;
    struct problem *gb = problem_group(pb, bound, K);
    struct plan *bpl = gb ? plan_new(K, pb->P) : NULL;
    int rc = -1;
    if (bpl) {
        /* no latency is below the compute and a transfer each way at each cut */
        double lat = s->lat_floor;
        for (int k = 0; k < K; k++) {
            bpl->gpu[k] = pl->gpu[bound[k]];
            if (k > 0 && bpl->gpu[k] != bpl->gpu[k - 1])
                lat += 2 * gb->c[k - 1];
        }
        double tb = s->alpha > 0 ? (cap - s->beta * lat) / s->alpha : INFINITY;
        struct problem *keep = s->bp;
        s->bp = gb;
        int e = t_lo <= tb ? schedule_exact(s, bpl, t_lo, tb, cap, NULL, secs, nodes) : 2;
        s->bp = keep;
        if (e == 1)
            expand_into(pb, gb, bound, bpl, pl);
        rc = e == 1 ? 1 : e == 0 || e == 2 ? 0 : -1;
    }
    plan_free(bpl);
    problem_free(gb);
    free(bound);
    return rc;
}

/* lns_options.schedule: schedule_layers() with the exact search's caps. */
static int exact_schedule(void *ctx, struct plan *pl, double t_lo, double cap)
{
    return schedule_layers(ctx, pl, t_lo, cap, EXACT_MIP_SECONDS, EXACT_MIP_NODES, true);
}

/* A phase with its own deadline or work cap after the block search
 * (whose own may have passed): what it replaces, for phase_end(). */
struct phase {
    double deadline;
    long work_cap;
    bool stopped;
};

static struct phase phase_begin(struct search *s)
{
    struct phase ph = { s->deadline, s->work_cap, s->stopped };
    s->stopped = false;
    return ph;
}

static void phase_end(struct search *s, const struct phase *ph)
{
    s->deadline = ph->deadline;
    s->work_cap = ph->work_cap;
    s->stopped = ph->stopped || s->failed;
}

static void exact_search(struct search *s)
{
    /* 1f1b only: there the list scheduler's waits cost latency; for
     * pipedream the period alone counts, and its schedule MIPs over a
     * range of periods cost seconds each (resnet50 on the V100s: 12 took
     * 38 s under a work limit for 0.3% better) */
    if (!s->best || !s->bfirst || !(s->beta > 0) || limit_reached(s) || network_proven(s) ||
        (s->best_obj == s->exact_from && s->exact_judged == LONG_MAX))
        return;
    struct phase ph = phase_begin(s);
    struct lns_options lo;
    lns_options_init(&lo);
    if (deterministic(s)) {
        s->work_cap = s->work + (long)(EXACT_SHARE / 2 * (double)s->opt->work_limit);
        lo.evaluations = EXACT_EVALS / 2;
    } else {
        double share = s->opt->time_limit > 0 ? EXACT_SHARE * s->opt->time_limit
                       : EXACT_SECONDS;
        /* at least a few schedule MIPs' worth, but never a quarter of what is left */
        lo.seconds = fmin(fmax(share / 2, EXACT_MIN_SECONDS), time_left(s) / 4);
        s->deadline = now() + lo.seconds;
    }
    lo.schedule = exact_schedule;
    /* from the plan an earlier run stopped on: on from where it stopped */
    lo.skip = s->best_obj == s->exact_from ? s->exact_judged : 0;
    struct lns_stats st;
    lns_run(s, s->best, &lo, &st, NULL);
    /* ended with no candidate left, not by its budget: done on this plan */
    bool budget = should_stop(s) ||
                  (deterministic(s) && st.evaluations + st.screen_work >= lo.evaluations);
    if (!budget) {
        s->exact_from = s->best_obj;
        s->exact_judged = LONG_MAX;
    } else if (st.improvements == 0) {
        s->exact_from = s->best_obj;
        s->exact_judged = lo.skip + st.evaluations;
    }
    trace(s, "exact local search: %ld schedule MIPs, %ld of %ld candidates screened out, "
          "%d better plan%s%s", st.evaluations, st.screened, st.candidates, st.improvements,
          st.improvements == 1 ? "" : "s", budget ? " (budget spent)" : "");
    phase_end(s, &ph);
}

/* Whether an interval is too wide for a quick master: the products of
 * the pair integers with the period are loose by about the integers'
 * range times (b - a); for 1f1b that range is about n_0, the first
 * block's in-flight count in a plan that could still beat the incumbent. */
static bool too_wide(const struct search *s, const struct interval *iv)
{
    /* with no plan yet, the first question is whether anything fits */
    if (!isfinite(s->best_obj))
        return false;
    if (s->beta <= 0)
        return iv->b - iv->a > PERIOD_SHARE * iv->a;
    double lat = fmin(latency_cap(s, iv->a), 2 * s->chain);
    double n0 = ceil(fmax(lat, s->lat_floor) / iv->a);
    return (n0 - 1) * (iv->b - iv->a) > s->wide * objective_of(s, iv->a, s->lat_floor);
}

/* ---- the relaxation's blocks ---- */

/* Relaxed: what the rows need of each block's inside. 0, or -1 when out
 * of memory. */
static int relaxed_blocks(struct search *s)
{
    const struct problem *pb = s->pb;
    int B = s->B;
    double *v = malloc((size_t)3 * B * sizeof *v);
    if (!v)
        return -1;
    free(s->cin);
    s->cin = v;
    s->cmin = v + B;
    s->amin = v + 2 * B;
    for (int i = 0; i < B; i++) {
        s->cin[i] = 0;
        s->cmin[i] = INFINITY;
        s->amin[i] = INFINITY;
        for (int j = s->lfirst[i]; j + 1 < s->lfirst[i + 1]; j++) {
            s->cin[i] += pb->c[j];
            s->cmin[i] = fmin(s->cmin[i], pb->c[j]);
            s->amin[i] = fmin(s->amin[i], pb->a[j]);
        }
        if (!isfinite(s->amin[i]))
            s->amin[i] = 0;
    }
    return 0;
}

/* Relaxed: split every block the master split, at the middle of its
 * compute. Returns the blocks split (0: none, or no more allowed), -1
 * when out of memory. */
static int relaxed_refine(struct search *s, const double *x, const int *sg)
{
    const struct problem *pb = s->pb;
    int B = s->B, K = 0, split = 0;
    int *nf = malloc((size_t)(2 * B + 1) * sizeof *nf);
    if (!nf)
        return -1;
    for (int i = 0; i < B; i++) {
        int from = s->lfirst[i], to = s->lfirst[i + 1];
        nf[K++] = from;
        if (sg[i] < 0 || x[sg[i]] < 0.5 || B + split >= s->max_blocks)
            continue;
        double half = 0, acc = 0, best = INFINITY;
        for (int j = from; j < to; j++)
            half += (pb->f[j] + pb->b[j]) / 2;
        int cut = from + 1;
        for (int j = from; j + 1 < to; j++) {
            acc += pb->f[j] + pb->b[j];
            if (fabs(acc - half) < best) {
                best = fabs(acc - half);
                cut = j + 1;
            }
        }
        nf[K++] = cut;
        split++;
    }
    nf[K] = pb->L;
    struct problem *np = split ? problem_group(pb, nf, K) : NULL;
    if (!np) {
        free(nf);
        return split ? -1 : 0;
    }
    problem_free(s->bp);
    s->bp = np;
    s->B = K;
    free(s->lfirst);
    s->lfirst = nf;
    if (relaxed_blocks(s) != 0)
        return -1;
    trace(s, "split %d block%s: %d blocks", split, split == 1 ? "" : "s", K);
    return split;
}

/* The chain's lifetimes over the interval (section 5.5) for the master,
 * and its bound. Returns false when no plan of the layers with its
 * period there fits. */
static bool interval_chain(struct search *s, struct interval *iv)
{
    s->life_set = false;
    if (!s->life)
        return true;
    /* the master's rounds on one interval share its lifetimes */
    if (!(iv->a == s->life_a && iv->b == s->life_b)) {
        s->life_rc = allocset_chain_lifetimes(s->pb, iv->a, iv->b, s->life);
        s->life_a = iv->a;
        s->life_b = iv->b;
    }
    int rc = s->life_rc;
    if (rc == 1)
        return false;
    s->life_set = rc == 0;
    if (s->life_set)
        iv->lb = fmax(iv->lb, objective_of(s, iv->a, s->life[0]));
    return true;
}

/* Solve the master at the right end of an interval; updates it. Returns 0,
 * or -1 when the search must stop. */
static int interval_solve(struct search *s, struct interval *iv)
{
    for (int round = 0; round < 10000; round++) {
        if (should_stop(s))
            return -1;
        bool fits = interval_chain(s, iv);
        if (!fits || iv->lb >= objective_cap(s)) {
            /* nothing fits there, or nothing there beats the incumbent */
            if (!fits)
                iv->lb = INFINITY;
            iv->state = IV_FINAL;
            return 0;
        }
        struct master ms;
        iv->seen = s->ncuts + 1;
        iv->seen_obj = s->best_obj;
        if (master_build(s, &ms, iv->a, iv->b) != 0) {
            s->failed = true;
            return -1;
        }
        s->stats->masters++;
        enum mip_outcome out = search_mip_solve(s, &ms.mp, true, &s->stats->master_seconds);
        if (out == MIP_FAILED) {
            master_free(&ms);
            return -1;
        }
        trace(s, "master %d on T in [%.6g, %.6g] ms (%d rows, %d cols): %s, bound %.6g",
              s->stats->masters, iv->a, iv->b, ms.mp.rows, ms.mp.cols,
              out == MIP_SOLVED ? "solved" : out == MIP_INFEASIBLE ? "nothing below the cutoff"
              : out == MIP_FEASIBLE_STOPPED ? "stopped with an allocation" : "stopped",
              out == MIP_INFEASIBLE ? ms.cap : mip_best_bound(&ms.mp));
        if (out == MIP_INFEASIBLE) {
            /* nothing fits, or nothing below the cutoff: no better plan
             * in [a, b] by more than half the gap */
            iv->lb = isfinite(ms.cap) ? fmax(iv->lb, ms.cap) : INFINITY;
            master_free(&ms);
            /* quick proofs: the next intervals may be wider */
            s->wide = fmin(2 * s->wide, WIDE_MAX);
            iv->state = IV_FINAL;
            return 0;
        }
        if (out == MIP_UNKNOWN) {
            /* its own time cap, no solution: keep CBC's bound and let the
             * interval be split, which makes the masters easier */
            double lb = mip_best_bound(&ms.mp);
            master_free(&ms);
            if (should_stop(s))
                return -1;
            if (isfinite(lb) && lb < 1e40)
                iv->lb = fmax(iv->lb, lb);
            iv->state = IV_SOLVED;
            return 0;
        }
        /* Stopped early with a solution: its allocation is still worth
         * judging, and CBC's proven bound still bounds the interval. */
        s->wide = fmax(s->wide / 2, WIDE_SHARE);
        const double *x = mip_solution(&ms.mp);
        double v = out == MIP_SOLVED ? mip_objective(&ms.mp)
                   : mip_best_bound(&ms.mp);
        if (s->relaxed) {
            /* its value bounds the layers' plans in [a, b]; a block it
             * splits is refined and the interval solved again */
            iv->lb = fmax(iv->lb, v);
            if (s->beta <= 0 && v > iv->a)
                iv->a = fmin(v, iv->b);
            int split = relaxed_refine(s, x, ms.sg);
            master_free(&ms);
            if (split < 0) {
                s->failed = true;
                return -1;
            }
            if (split > 0)
                continue;
            iv->state = IV_SOLVED;
            return out == MIP_SOLVED ? 1 : 0;
        }
        double tau = fmin(iv->b, fmax(iv->a, x[ms.tau]));
        int *alloc = malloc((size_t)s->B * sizeof *alloc);
        if (!alloc) {
            master_free(&ms);
            return -1;
        }
        for (int i = 0; i < s->B; i++) {
            alloc[i] = 0;
            for (int p = 0; p < s->P; p++)
                if (x[ms.x[X(s, i, p)]] > 0.5)
                    alloc[i] = p;
        }
        master_free(&ms);
        iv->lb = fmax(iv->lb, v);
        /* An allocation already judged over the master's [a, b]: the
         * master had that cut, its value for it is exact, nothing more to
         * learn here (asked before a moves: a cut that covers only the
         * narrower interval is news to it). */
        bool known = cut_known(s, alloc, iv->a, iv->b);
        /* pipedream: no plan has its period below the master's least */
        if (s->beta <= 0 && v > iv->a)
            iv->a = fmin(v, iv->b);
        if (known) {
            free(alloc);
            iv->state = IV_SOLVED;
            return 1;
        }
        int j = judge(s, alloc, iv->a, iv->b, tau);
        free(alloc);
        if (j < 0) {
            /* undecided in its time: narrower intervals are easier */
            if (should_stop(s))
                return -1;
            iv->state = IV_SOLVED;
            return 0;
        }
        if (j == 1) {
            iv->state = IV_SOLVED;
            return 0;
        }
        /* cut off: solve again at the same period, or first split an
         * interval that has become too wide to bound well */
        if (too_wide(s, iv)) {
            iv->state = IV_OPEN;
            return 0;
        }
    }
    s->stopped = true;
    return -1;
}

/* Every interval of the periods closed with nothing in it: what a claim
 * that no plan fits needs (an interval left with a finite bound, its
 * master stopped by its own cap, proves nothing). */
static bool searched_out(const struct search *s)
{
    return isinf(s->bound) && s->bound > 0;
}

static void update_bound(struct search *s)
{
    /* intervals pruned for being within the gap still bound the optimum */
    double lb = fmin(s->best_obj, s->pruned_floor);
    for (int k = 0; k < s->niv; k++)
        if (s->iv[k].lb < lb)
            lb = s->iv[k].lb;
    if (lb > s->bound) {
        s->bound = lb;
        trace(s, "bound %.6g ms (%d interval%s open)", lb, s->niv, s->niv == 1 ? "" : "s");
        report(s, NULL);
    }
}

static void intervals_prune(struct search *s)
{
    int w = 0;
    for (int k = 0; k < s->niv; k++) {
        if (isfinite(s->iv[k].lb) && s->iv[k].lb < s->best_obj * (1 - ILP_GAP))
            s->iv[w++] = s->iv[k];
        else if (isfinite(s->iv[k].lb))
            s->pruned_floor = fmin(s->pruned_floor, s->iv[k].lb);
    }
    s->niv = w;
}

static struct interval interval_make(double a, double b, double lb, enum iv_state state)
{
    return (struct interval){ .a = a, .b = b, .lb = lb, .state = state };
}

/* The search's intervals: one over [t_lo, t_hi]. */
static int search_start(struct search *s, double t_lo, double t_hi)
{
    s->iv = malloc(MAX_INTERVALS * sizeof *s->iv);
    if (!s->iv)
        return -1;
    s->niv = 1;
    /* a bound proven before holds for every interval */
    s->iv[0] = interval_make(t_lo, t_hi, fmax(objective_of(s, t_lo, s->lat_floor), s->bound),
                             IV_OPEN);
    update_bound(s);
    return 0;
}

/* The search's intervals: the pieces of the periods another bound (the
 * packed chain's) leaves below the incumbent, each with that bound, so
 * that what the search proves there adds to it period by period. */
static int search_start_pieces(struct search *s, const struct allocset_piece *pc, int n)
{
    s->iv = malloc(MAX_INTERVALS * sizeof *s->iv);
    if (!s->iv)
        return -1;
    s->niv = 0;
    for (int j = 0; j < n && s->niv < MAX_INTERVALS; j++)
        if (pc[j].v < s->best_obj && pc[j].t2 > pc[j].t1)
            s->iv[s->niv++] = interval_make(
                pc[j].t1, pc[j].t2,
                fmax(fmax(pc[j].v, objective_of(s, pc[j].t1, s->lat_floor)), s->bound), IV_OPEN);
    intervals_prune(s);
    update_bound(s);
    return 0;
}

/* Until every interval is closed or a limit stops it; it can go on later. */
static void search_loop(struct search *s)
{
    while (!should_stop(s)) {
        /* the network's bound meets the incumbent: nothing is left to
         * prove, for the blocks either */
        if (!s->relaxed && network_proven(s)) {
            s->bound = fmax(s->bound, fmin(s->net_bound, s->best_obj));
            break;
        }
        /* the open interval with the least bound */
        int k = -1;
        for (int j = 0; j < s->niv; j++)
            if (s->iv[j].state != IV_FINAL && (k < 0 || s->iv[j].lb < s->iv[k].lb))
                k = j;
        if (k < 0)
            break;
        struct interval *iv = &s->iv[k];
        double res = s->relaxed ? RELAX_RESOLUTION : T_RESOLUTION;
        bool narrow = iv->b - iv->a <= res * iv->b || s->niv >= MAX_INTERVALS;
        if (iv->state == IV_OPEN && !narrow && too_wide(s, iv)) {
            /* the master's bound loses (n_0 - 1)(b - a): halve first */
            double mid = (iv->a + iv->b) / 2;
            s->iv[s->niv++] = interval_make(mid, iv->b,
                                            fmax(iv->lb, objective_of(s, mid, s->lat_floor)),
                                            IV_OPEN);
            iv->b = mid;
        } else if (iv->state == IV_OPEN) {
            int rc = interval_solve(s, iv);
            if (rc < 0)
                break;
            /* relaxed 1f1b: the products are exact, the value is the
             * relaxation's over the whole interval */
            if (rc == 1 && (narrow || (s->relaxed && s->beta > 0)))
                iv->state = IV_FINAL;
        } else if (!narrow) {
            /* split: the left half is open; the right half keeps the
             * master's latency bound and, for 1f1b, is re-solved with its
             * larger a, which tightens the latency cuts */
            double mid = (iv->a + iv->b) / 2;
            struct interval right = interval_make(mid, iv->b,
                                                  fmax(iv->lb, objective_of(s, mid, s->lat_floor)),
                                                  s->beta > 0 ? IV_OPEN : IV_SOLVED);
            iv->b = mid;
            iv->state = IV_OPEN;
            s->iv[s->niv++] = right;
        } else {
            /* narrow: for 1f1b another master round may tighten the
             * latency, once cuts or a better plan came since its last
             * (the same master again proves the same: with --blocks 0 on
             * resnet50 a stopped one was solved again for minutes);
             * otherwise its bound is final */
            bool same = iv->seen == s->ncuts + 1 && iv->seen_obj == s->best_obj;
            iv->state = s->beta > 0 && !s->relaxed && !same ? IV_OPEN : IV_FINAL;
            if (iv->state == IV_OPEN) {
                int rc = interval_solve(s, iv);
                if (rc < 0)
                    break;
                if (rc == 1)
                    iv->state = IV_FINAL;
            }
        }
        intervals_prune(s);
        update_bound(s);
    }
}

static void search_run(struct search *s, double t_lo, double t_hi)
{
    if (search_start(s, t_lo, t_hi) == 0)
        search_loop(s);
    else
        s->failed = s->stopped = true;  /* no intervals is no proof */
}

/* ---- the network's own bound ---- */

/* The blocks' first layers, as indices into pb: [B+1], or NULL. */
static int *first_layers(const struct problem *pb, const struct problem *bp)
{
    int *v = malloc((size_t)(bp->L + 1) * sizeof *v);
    for (int k = 0, j = 0; v && k <= bp->L; k++) {
        int want = bp->first[k];
        while (j < pb->L && pb->first[j] < want)
            j++;
        v[k] = k == bp->L ? pb->L : j;
    }
    return v;
}

/* The relaxation's search, over the same first blocks as s. 0, or -1
 * when out of memory. */
static int relaxed_init(struct search *r, const struct search *s, struct ilp_options *ropt,
                        struct ilp_stats *rstats)
{
    const struct problem *pb = s->pb;
    *ropt = *s->opt;
    ropt->on_progress = NULL;  /* its bound reaches the caller through s */
    memset(r, 0, sizeof *r);
    memset(rstats, 0, sizeof *rstats);
    r->pb = pb;
    r->opt = ropt;
    r->stats = rstats;
    r->t0 = s->t0;
    r->best_obj = s->best_obj;
    r->bound = -INFINITY;
    r->load_t = s->load_t;
    r->pruned_floor = INFINITY;
    r->wide = WIDE_SHARE;
    r->alpha = s->alpha;
    r->beta = s->beta;
    r->relaxed = true;
    r->tag = "network: ";
    r->deadline = INFINITY;
    r->work_cap = LONG_MAX;
    r->B = s->B;
    r->P = s->P;
    /* refining stops at four times the blocks: a master that large is
     * slow, and the relaxation still bounds the layers */
    r->max_blocks = pb->L < 4 * s->B ? pb->L : 4 * s->B;
    r->lfirst = malloc((size_t)(s->B + 1) * sizeof *r->lfirst);
    r->sym = malloc((size_t)s->P * sizeof *r->sym);
    if (!r->lfirst || !r->sym || !s->sym || !s->bfirst)
        return -1;
    memcpy(r->sym, s->sym, (size_t)s->P * sizeof *r->sym);
    memcpy(r->lfirst, s->bfirst, (size_t)(s->B + 1) * sizeof *r->lfirst);
    r->bp = problem_group(pb, r->lfirst, r->B);
    if (!r->bp || relaxed_blocks(r) != 0)
        return -1;
    r->life = malloc((size_t)pb->L * sizeof *r->life);
    r->life_a = r->life_b = NAN;
    if (!r->life)
        return -1;
    r->lat_floor = problem_compute_ms(pb);
    r->chain = r->lat_floor;
    for (int i = 0; i + 1 < pb->L; i++)
        r->chain += 2 * pb->c[i];
    return 0;
}

static void relaxed_free(struct search *r)
{
    free(r->life);
    free(r->iv);
    free(r->sym);
    free(r->lfirst);
    free(r->cin);
    problem_free(r->bp);
}

/* Run the relaxation until the caller's limit, or under a work limit for
 * at most `work` more (it shares s's work count), against s's incumbent.
 * Raises s's network bound. Returns true when the bound meets the
 * incumbent or proves that nothing fits. */
static bool relaxed_run(struct search *r, struct search *s, long work)
{
    /* without a plan that fits there is no cutoff, and the masters' wide
     * windows and periods drove Clp into a failed assertion (llama3-70b
     * on 4x A10): the relaxation only bounds plans that beat one */
    if (limit_reached(s) || !isfinite(s->best_obj))
        return false;
    r->best_obj = s->best_obj;
    r->stopped = false;
    r->work = s->work;
    r->work_cap = deterministic(s) ? s->work + work : LONG_MAX;
    r->deadline = INFINITY;
    if (!r->iv) {
        double t_lo = r->load_t;
        double t_hi = fmax(r->chain, t_lo);
        if (isfinite(r->best_obj) && r->alpha > 0)
            t_hi = fmin(t_hi, (r->best_obj - r->beta * r->lat_floor) / r->alpha);
        if (t_hi < t_lo)
            r->bound = fmax(r->bound, fmin(r->best_obj, objective_of(r, t_lo, r->lat_floor)));
        else if (s->npieces > 0 ? search_start_pieces(r, s->pieces, s->npieces) != 0
                                : search_start(r, t_lo, t_hi) != 0)
            r->failed = true;
    } else {
        intervals_prune(r);
        update_bound(r);
    }
    if (r->iv && !r->failed)
        search_loop(r);
    s->work = r->work;
    if (r->failed && !s->net_failed) {
        /* the block search's plan and bound stand; only the network's
         * bound loses what the relaxation would have added (a network of
         * no compute drove Clp into a failed assertion here) */
        s->net_failed = true;
        trace(s, "network: the relaxation stopped after a solver failure; the network's "
              "bound stays %.6g ms", s->net_bound);
    }
    if (r->bound > s->net_bound) {
        s->net_bound = r->bound;
        report(s, NULL);
    }
    return isinf(r->bound) || (isfinite(s->best_obj) && r->bound >= s->best_obj * (1 - ILP_GAP));
}

/* ----------------------------------------------------------- entry */

void ilp_options_init(struct ilp_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->time_limit = 10;
    opt->threads = 1;
    opt->blocks = -1;
    opt->known_bound = NAN;
    opt->known_net_bound = NAN;
}

int ilp_default_blocks(const struct problem *pb)
{
    return ilp_blocks(pb, -1);
}

int ilp_blocks(const struct problem *pb, int requested)
{
    int b = requested < 0 ? (pb->P <= 4 ? 12 : 16) : requested;
    return b > 0 && b < pb->L ? b : pb->L;
}

/* Bytes over the caps, summed over the GPUs. */
static double excess_memory(const struct plan *pl)
{
    double over = 0;
    for (int p = 0; p < pl->P; p++)
        over += fmax(0, pl->gpus[p].total - pl->gpus[p].cap);
    return over;
}

static int by_objective(const void *x, const void *y)
{
    const struct plan *a = *(struct plan *const *)x, *b = *(struct plan *const *)y;
    return (a->objective > b->objective) - (a->objective < b->objective);
}

/* For fold_allocations_until(): on a network of 10,000 layers its six
 * baselines' splits on 16 GPUs took 20 s, past a time limit of 5 s. */
static bool search_interrupted(const void *ctx)
{
    return interrupted(ctx);
}

/* The folded starts (fold.h, any layout): each scheduled and offered, then
 * raced with local searches. They are far from the baselines' plans, so
 * the local search from those does not get there: on resnet50 on the
 * H100 cluster one gives 2.45 s where it stopped at 2.49 s. */
static void fold_search(struct search *s)
{
    const struct problem *pb = s->pb;
    if (should_stop(s) || network_proven(s))
        return;
    double t1 = now(), secs = fmin(FOLD_SECONDS, FOLD_SHARE * remaining(s));
    int *gpu = malloc((size_t)FOLD_MAX * pb->L * sizeof *gpu);
    int n = gpu ? fold_allocations_until(pb, gpu, search_interrupted, s) : -1;
    struct plan *seed[FOLD_MAX];
    int k = 0;
    /* at the least period that fits: the local search tries longer ones */
    for (int j = 0; j < n && !interrupted(s); j++) {
        struct plan *pl = baseline_schedule_fitting(pb, gpu + (size_t)j * pb->L, 0);
        s->work++;
        if (pl && pl->fits) {
            offer(s, pl);
            seed[k++] = pl;
        } else {
            plan_free(pl);
        }
    }
    free(gpu);
    trace(s, "folded starts: %d of %d fit (%.3f s)", k, n > 0 ? n : 0, now() - t1);
    /* the race (successive halving): each round shares an equal part of
     * the budget among the starts left, then the better half goes on */
    int rounds = 1;
    for (int left = k; left > 1; left = (left + 1) / 2)
        rounds++;
    for (int left = k; left > 0 && !should_stop(s) && !network_proven(s);) {
        int going = 0;
        for (int j = 0; j < left && !should_stop(s) && !network_proven(s); j++) {
            struct plan *to = NULL;
            local_search_to(s, seed[j], secs / rounds / left, FOLD_EVALS / rounds / left, &to);
            /* a start its search did not improve would only be searched
             * the same way again: it leaves the race */
            if (to) {
                plan_free(seed[j]);
                seed[j] = to;
                struct plan *x = seed[going];
                seed[going++] = seed[j];
                seed[j] = x;
            }
        }
        qsort(seed, (size_t)going, sizeof *seed, by_objective);
        int half = left > 1 ? (left + 1) / 2 : 0;
        left = half < going ? half : going;
    }
    for (int j = 0; j < k; j++)
        plan_free(seed[j]);
}

/* The baseline NAME's result for pb: the caller's (with a copy of its
 * plan) when it gave one, else run now. 0; 1 when the caller's result is
 * an error (nothing to take from it; res holds no plan); -1 when it could
 * not run or be copied (out of memory). */
static int baseline_get(const struct problem *pb, const struct ilp_options *opt,
                        const char *name, struct planner_result *res,
                        bool (*stop)(const void *), const void *ctx)
{
    const struct planner_result *b = planner_result_find(opt->baselines, opt->nbaselines, name);
    if (!b)
        return planner_run_until(name, pb, res, stop, ctx);
    *res = *b;
    res->plan = NULL;
    if (b->status == PLAN_ERROR || !b->plan)
        return 1;
    res->plan = plan_copy(b->plan);
    return res->plan ? 0 : -1;
}

/* Best fitting baseline (or the warm plan) as the first incumbent, then
 * the local search from it (from the baseline nearest to fitting when
 * none fits). */
static void warm_start(struct search *s)
{
    const struct problem *pb = s->pb;
    const struct plan *warm = s->opt->warm;
    if (warm && warm->L == pb->L && warm->P == pb->P &&
        (pb->layout == LAYOUT_ANY || plan_is_contiguous(warm)))
        offer(s, warm);
    int n = planner_count(), kept = 0;
    int *gpu = malloc((size_t)n * pb->L * sizeof *gpu);
    if (!gpu) {
        s->failed = s->stopped = true;      /* out of memory */
        return;
    }
    struct plan *nearest = NULL;
    for (int i = 0; i < n; i++) {
        struct planner_result res;
        if (planner_is_solver(planner_name(i)))
            continue;
        /* past the time limit with a plan in hand, no more baselines are
         * run: each would take until its own next look at the clock (on
         * 100,000 layers near a second each) */
        if (s->best && interrupted(s) &&
            !planner_result_find(s->opt->baselines, s->opt->nbaselines, planner_name(i)))
            continue;
        int got = baseline_get(pb, s->opt, planner_name(i), &res, search_interrupted, s);
        if (got == 1) {
            planner_result_clear(&res);
            continue;
        }
        if (got != 0 || res.status == PLAN_ERROR) {
            /* out of memory: a search without its start would be another */
            planner_result_clear(&res);
            s->failed = s->stopped = true;
            break;
        }
        if (res.plan && res.plan->fits &&
            (pb->layout == LAYOUT_ANY || plan_is_contiguous(res.plan))) {
            offer(s, res.plan);
            if (gpu)
                memcpy(gpu + (size_t)kept++ * pb->L, res.plan->gpu, (size_t)pb->L * sizeof *gpu);
        } else if (res.plan && (pb->layout == LAYOUT_ANY || plan_is_contiguous(res.plan)) &&
                   (!nearest || excess_memory(res.plan) < excess_memory(nearest))) {
            plan_free(nearest);
            nearest = res.plan;
            res.plan = NULL;
        }
        planner_result_clear(&res);
    }
    s->warmed = true;
    /* the ILP's own first plans: the best pipeline of back-to-back stages
     * (section 5.6), the local search from the best baseline (from the
     * stages' plan it stopped in worse local optima: vgg16 on the V100s,
     * 3.72 s against 3.39 s), then the baselines' allocations at longer
     * periods */
    struct plan *start = s->best ? plan_copy(s->best) : NULL;
    if (s->best && !start) {
        plan_free(nearest);
        free(gpu);
        s->failed = s->stopped = true;      /* out of memory */
        return;
    }
    if (!should_stop(s)) {
        struct plan *st = stages_plan(pb, s->best_obj, 0);
        if (st)
            trace(s, "stages: %.6g ms (period %.6g ms)", st->objective, st->T);
        else
            trace(s, "stages: nothing below %.6g ms", s->best_obj);
        offer(s, st);       /* contiguous: fit for either layout */
        plan_free(st);
    }
    /* a plan that meets the network's bound (the stages' often does, where
     * memory is loose) leaves nothing to search for */
    const struct plan *from = start ? start : nearest;
    /* the exact local search first (1f1b), from the best plan so far:
     * where the list scheduler's waits cost latency, a better plan comes
     * early, and the list scheduler's search goes on from it */
    double before = s->best_obj;
    if (start)
        exact_search(s);
    if (s->best_obj < before)
        from = s->best;
    if (from && !should_stop(s) && !network_proven(s))
        local_search(s, from, fmin(WARM_SECONDS, WARM_SHARE * remaining(s)), WARM_EVALS);
    plan_free(start);
    plan_free(nearest);
    for (int k = 0; gpu && k < kept && s->beta > 0 && !should_stop(s) && !network_proven(s); k++) {
        struct plan *longer = schedule_ladder(s, pb, gpu + (size_t)k * pb->L);
        offer(s, longer);
        plan_free(longer);
    }
    free(gpu);
    fold_search(s);
}

/* ---- more GPUs than blocks ----
 *
 * A plan puts its B blocks on at most B GPUs, and GPUs differ only in
 * their free memory (cap - reserved; links are uniform): a plan on any B
 * GPUs moves to the B with the most free memory, largest to largest, and
 * still fits with the same schedule. So the search runs on those B alone
 * and its plans come back relabelled; the model then grows with the
 * blocks, not the GPUs (on 1,024 GPUs building it took minutes). */
struct gpu_subset {
    const struct problem *pb;    /* the caller's */
    const struct ilp_options *opt;
    int *order;                  /* [P] GPUs by free memory, most first */
    /* The subset's network bound holds for plans on K GPUs, and a plan of
     * the layers may use more when there are more layers than blocks:
     * then the caller's network gets the bounds that hold for any plan
     * of its own (NAN when the blocks are the layers). */
    double net_bound;
};

/* A GPU and its free memory (cap - reserved), to sort by. */
struct gpu_room {
    double room;
    int p;
};

static int by_room(const void *x, const void *y)
{
    const struct gpu_room *a = x, *b = y;
    return a->room > b->room ? -1 : a->room < b->room ? 1 : a->p - b->p;
}

/* pl (on GPUs 0..K-1 of the subset) on the caller's GPUs, evaluated. */
static struct plan *subset_plan_out(const struct gpu_subset *g, const struct plan *pl)
{
    struct plan *out = plan_new(pl->L, g->pb->P);
    if (!out)
        return NULL;
    for (int i = 0; i < pl->L; i++)
        out->gpu[i] = g->order[pl->gpu[i]];
    out->T = pl->T;
    memcpy(out->start, pl->start, 2 * (size_t)pl->L * sizeof *out->start);
    if (plan_evaluate(out, g->pb) != 0) {
        plan_free(out);
        return NULL;
    }
    return out;
}

/* The caller's plan on the subset, when it uses at most K GPUs: its GPUs
 * in order of free memory onto the subset's, which have at least as much. */
static struct plan *subset_plan_in(const struct gpu_subset *g, const struct problem *sub,
                                   const struct plan *pl)
{
    if (!pl || pl->L != sub->L || pl->P != g->pb->P || plan_gpus_used(pl) > sub->P)
        return NULL;
    int *to = malloc((size_t)pl->P * sizeof *to);
    struct plan *in = plan_new(pl->L, sub->P);
    if (!to || !in) {
        free(to);
        plan_free(in);
        return NULL;
    }
    for (int p = 0; p < pl->P; p++)
        to[p] = -1;
    for (int i = 0; i < pl->L; i++)
        to[pl->gpu[i]] = 0;
    for (int k = 0, next = 0; k < pl->P; k++)
        if (to[g->order[k]] == 0)
            to[g->order[k]] = next++ + 1;
    for (int i = 0; i < pl->L; i++)
        in->gpu[i] = to[pl->gpu[i]] - 1;
    in->T = pl->T;
    memcpy(in->start, pl->start, 2 * (size_t)pl->L * sizeof *in->start);
    free(to);
    if (plan_evaluate(in, sub) != 0) {
        plan_free(in);
        return NULL;
    }
    return in;
}

static void subset_progress(void *ctx, const struct ilp_progress *p)
{
    const struct gpu_subset *g = ctx;
    struct ilp_progress q = *p;
    if (isfinite(g->net_bound)) {
        q.block_bound = isfinite(p->block_bound) ? fmax(p->block_bound, p->bound) : p->bound;
        q.bound = g->net_bound;
    }
    struct plan *out = p->plan ? subset_plan_out(g, p->plan) : NULL;
    q.plan = out;
    if (!p->plan || out)
        g->opt->on_progress(g->opt->ctx, &q);
    plan_free(out);
}

static void subset_trace(void *ctx, const char *line)
{
    const struct gpu_subset *g = ctx;
    g->opt->on_trace(g->opt->ctx, line);
}

/* The end of the caller's time for subset_keep_baseline()'s baselines
 * (never under a work limit, which owes nothing to the clock). */
struct subset_clock {
    const struct ilp_options *opt;
    double end;
};

static bool subset_late(const void *ctx)
{
    const struct subset_clock *c = ctx;
    return (c->opt->cancel && *c->opt->cancel) || now() >= c->end;
}

/* The baselines plan the layers on every GPU, and may use more than the
 * subset: the ILP never returns worse than the best that fits. The
 * memory-aware DP's plan when it does not fit goes to *dp (taken; NULL
 * when none): with nothing that fits, the ILP's row shows it, the same
 * as the DP's row, not the DP's split of the subset. The
 * caller's results are taken when given; those run here stop at the
 * time limit (the memory-aware DP on 20,000 layers and 1,024 GPUs took
 * 40 s, and the watchdog killed the search). They run before the search
 * on the subset: run after it, they found the limit spent, and `solve
 * --planner ilp` on 4,099 layers and 2,048 GPUs gave a plan of the 16
 * blocks on 16 GPUs, 802 s an iteration, where the DP's takes 9.9 s.
 * Returns the best that fits and passes the simulator (NULL: none). */
static struct plan *subset_best_baseline(const struct problem *pb,
                                         const struct ilp_options *opt, double t0,
                                         struct planner_result *dp)
{
    memset(dp, 0, sizeof *dp);
    struct subset_clock clock = {
        opt, opt->work_limit <= 0 && opt->time_limit > 0 ? t0 + opt->time_limit : INFINITY
    };
    int n = 0;
    struct plan **fit = calloc((size_t)planner_count(), sizeof *fit);
    if (!fit)
        return NULL;
    for (int i = 0; i < planner_count(); i++) {
        struct planner_result b;
        if (planner_is_solver(planner_name(i)))
            continue;
        if (baseline_get(pb, opt, planner_name(i), &b, subset_late, &clock) != 0 || !b.plan) {
            planner_result_clear(&b);
            continue;
        }
        if (b.plan->fits && (pb->layout == LAYOUT_ANY || plan_is_contiguous(b.plan))) {
            fit[n++] = b.plan;
            b.plan = NULL;
        } else if (!b.plan->fits && strcmp(planner_name(i), "dp") == 0) {
            *dp = b;
            continue;
        }
        planner_result_clear(&b);
    }
    /* the best that passes the simulator (nothing it rejects is ever
     * shown), best first: one replay, not one per baseline (a second
     * each on thousands of GPUs) */
    struct plan *best = NULL;
    while (n > 0 && !best) {
        int k = 0;
        for (int i = 1; i < n; i++)
            if (fit[i]->objective < fit[k]->objective)
                k = i;
        struct sim_report rep;
        if (simulate_plan(fit[k], pb, &rep) == SIM_OK)
            best = fit[k];
        else
            plan_free(fit[k]);
        fit[k] = fit[--n];
    }
    for (int i = 0; i < n; i++)
        plan_free(fit[i]);
    free(fit);
    return best;
}

/* The subset's result, or the best baseline (taken, freed either way)
 * when that is better: whether it was taken. A search that ended with its
 * blocks' plan proven stays block_optimal (the baseline, below the block
 * bound, cuts inside a block: doc/model.md 11.1); "feasible" told nobody
 * whether it had stopped early. */
static bool subset_keep_baseline(struct plan *best, struct planner_result *res, int K, int P)
{
    bool have = res->plan && res->plan->fits && res->believed_fit;
    if (!best || (have && res->plan->objective <= best->objective)) {
        plan_free(best);
        return false;
    }
    bool blocks_proven = (res->status == PLAN_OPTIMAL || res->status == PLAN_BLOCK_OPTIMAL) &&
                         res->plan && isfinite(res->block_bound);
    bool stopped = res->status == PLAN_TIMEOUT;
    plan_free(res->plan);
    res->plan = best;
    res->believed_fit = true;
    double obj = best->objective;
    bool proven = isfinite(res->bound) && proven_at(obj, res->bound);
    res->status = proven ? PLAN_OPTIMAL : stopped ? PLAN_TIMEOUT
                  : blocks_proven && proven_at(obj, res->block_bound) ? PLAN_BLOCK_OPTIMAL
                  : PLAN_FEASIBLE;
    if (proven || stopped)
        res->message[0] = '\0';
    else
        snprintf(res->message, sizeof res->message, "%s; the best baseline's plan, on all %d "
                 "GPUs, beats its plan on the %d with the most memory",
                 res->status == PLAN_BLOCK_OPTIMAL ? "the search ended"
                 : "the search ended with no plan of its blocks that fits", P, K);
    return true;
}

static int solve(const struct problem *pb, const struct ilp_options *opt,
                 struct planner_result *res, struct ilp_stats *stats, bool network,
                 const struct problem *whole, bool show_dp);

/* Whether the search ended with no plan to show (nothing fits, or none
 * found in time) */
static bool no_plan_of_its_own(const struct planner_result *res)
{
    return res->status == PLAN_INFEASIBLE || res->status == PLAN_NO_FIT ||
           (!res->plan && res->status == PLAN_TIMEOUT);
}

/* Show what the best baseline would need rather than an empty row, and
 * say whose plan it is: the memory-aware DP's result b (its plan taken).
 * Status and bounds stay the search's own. */
static void show_dp_split(struct planner_result *res, struct planner_result *b)
{
    plan_free(res->plan);
    res->plan = b->plan;
    b->plan = NULL;
    res->believed_fit = false;
    size_t n = strlen(res->message);
    snprintf(res->message + n, sizeof res->message - n,
             "%sits row shows the memory-aware DP's split%s, which does not fit either",
             n ? "; " : "",
             b->status == PLAN_TIMEOUT ? " (stopped before its least period)" : "");
}

/* One micro-batch (1f1b, m = 1): the objective is the latency alone, and
 * the search leaves the period wherever its masters put it (91.5 ms over
 * a load of 89.4 ms, shown beside an iteration of 89.4 ms and a T/T_lb of
 * 4.1 for a plan proven optimal). The same start times are taken at the
 * least period, from the GPUs' loads up to the latency, that the
 * simulator accepts (at the latency the whole trip lies in one period,
 * so one always is), or the list scheduler's schedule when its period is
 * shorter still and its latency no longer. */
#define TIGHTEN_STEPS 32
static bool tighten_ok(struct plan *c, const struct problem *pb, double obj)
{
    return plan_evaluate(c, pb) == 0 && c->fits && c->objective <= obj * (1 + 1e-12) &&
           simulate_plan(c, pb, NULL) == SIM_OK;
}

static void period_tighten(struct plan *pl, const struct problem *pb)
{
    double lo = SCHEDULE_MIN_T;
    for (int p = 0; p < pl->P; p++)
        lo = fmax(lo, fmax(pl->gpus[p].load_ms, fmax(pl->gpus[p].send_ms, pl->gpus[p].recv_ms)));
    double hi = fmax(lo, fmin(pl->T, pl->latency)), obj = pl->objective, best_T = pl->T;
    struct plan *same = plan_copy(pl), *list = plan_copy(pl), *take = NULL;
    for (int k = 0; same && k <= TIGHTEN_STEPS; k++) {
        same->T = lo + (hi - lo) * k / TIGHTEN_STEPS;
        if (!(same->T < best_T))
            break;
        if (tighten_ok(same, pb, obj)) {
            take = same;
            best_T = same->T;
            break;
        }
    }
    if (list && schedule_build(list, pb) == 0 && list->T < best_T && tighten_ok(list, pb, obj))
        take = list;
    if (take) {
        double *start = pl->start;
        pl->start = take->start;
        take->start = start;
        pl->T = take->T;
        plan_evaluate(pl, pb);
    }
    plan_free(same);
    plan_free(list);
}

/* GPUs beyond this many times the blocks make the search run on the
 * blocks' count of GPUs */
#define SUBSET_FACTOR 4

static int solve_on_subset(const struct problem *pb, const struct ilp_options *opt, int K,
                           struct planner_result *res, struct ilp_stats *stats)
{
    double t0 = now();
    struct gpu_subset g = { pb, opt, malloc((size_t)pb->P * sizeof(int)), NAN };
    if (K < pb->L) {
        /* the loads' period, each micro-batch at least the whole chain */
        double alpha, beta;
        problem_objective_weights(pb, &alpha, &beta);
        g.net_bound = fmax(problem_objective_bound(pb),
                           alpha * problem_load_bound(pb) + beta * problem_compute_ms(pb));
    }
    struct problem *sub = problem_copy(pb);
    struct gpu_room *rooms = malloc((size_t)pb->P * sizeof *rooms);
    if (!g.order || !sub || !rooms) {
        free(g.order);
        free(rooms);
        problem_free(sub);
        memset(res, 0, sizeof *res);
        res->planner = "ilp";
        res->status = PLAN_ERROR;
        res->bound = res->block_bound = NAN;
        snprintf(res->message, sizeof res->message, "out of memory");
        return 0;
    }
    for (int p = 0; p < pb->P; p++)
        rooms[p] = (struct gpu_room){ pb->cap[p] - pb->reserved[p], p };
    qsort(rooms, (size_t)pb->P, sizeof *rooms, by_room);
    for (int p = 0; p < pb->P; p++)
        g.order[p] = rooms[p].p;
    free(rooms);
    sub->P = K;
    for (int k = 0; k < K; k++) {
        sub->cap[k] = pb->cap[g.order[k]];
        sub->reserved[k] = pb->reserved[g.order[k]];
    }
    struct planner_result dp;
    struct plan *base = subset_best_baseline(pb, opt, t0, &dp);
    struct ilp_options so = *opt;
    if (opt->work_limit <= 0 && opt->time_limit > 0)
        /* what the baselines left, and never less than a fifth */
        so.time_limit = fmax(opt->time_limit - (now() - t0), opt->time_limit / 5);
    struct plan *warm = subset_plan_in(&g, sub, opt->warm);
    so.warm = warm;
    so.baselines = NULL;        /* theirs are planned on every GPU */
    so.nbaselines = 0;
    so.ctx = &g;
    so.on_progress = opt->on_progress ? subset_progress : NULL;
    so.on_trace = opt->on_trace ? subset_trace : NULL;
    /* K = L: the L roomiest GPUs serve every plan of the layers, so what
     * the subset proves (its relaxation, the chain asking whether any plan
     * fits) holds for all. K blocks < L: the relaxation would bound plans
     * on K GPUs only, and the chain asks on every GPU */
    bool net = !isfinite(g.net_bound);
    int rc = solve(sub, &so, res, stats, net, net ? sub : pb, false);
    if (rc == 0 && isfinite(g.net_bound) && res->plan && res->plan->fits && res->believed_fit) {
        /* the chain bound holds on every GPU: its memory is all of theirs */
        double t_lo = fmax(problem_lower_bound(pb), problem_load_bound(pb));
        g.net_bound = fmax(g.net_bound, allocset_chain_bound(pb, res->plan->objective *
                                                             (1 - ILP_GAP / 2), t_lo));
    }
    if (rc == 0 && isfinite(g.net_bound)) {
        /* what the subset proved for the layers holds for the blocks */
        res->block_bound = isfinite(res->block_bound) ? fmax(res->block_bound, res->bound)
                           : res->bound;
        res->bound = g.net_bound;
        if (res->status == PLAN_OPTIMAL && res->plan) {
            double obj = res->plan->objective;
            res->status = proven_at(obj, res->bound) ? PLAN_OPTIMAL : PLAN_BLOCK_OPTIMAL;
        } else if (res->status == PLAN_INFEASIBLE) {
            /* only the chain on every GPU says so here (the blocks are
             * coarser than the layers): it holds for every plan */
            res->block_bound = NAN;    /* nothing of the blocks fits either */
        }
    }
    if (rc == 0 && res->plan) {
        struct plan *out = subset_plan_out(&g, res->plan);
        plan_free(res->plan);
        res->plan = out;
        if (!out) {
            res->status = PLAN_ERROR;
            snprintf(res->message, sizeof res->message, "out of memory");
        }
    }
    bool took = false;
    if (rc == 0 && res->status != PLAN_ERROR)
        took = subset_keep_baseline(base, res, K, pb->P);
    else
        plan_free(base);
    if (rc == 0 && !took && dp.plan && no_plan_of_its_own(res))
        show_dp_split(res, &dp);
    planner_result_clear(&dp);
    if (took && opt->on_progress) {
        struct ilp_progress q = {
            .elapsed = res->seconds, .plan = res->plan, .objective = res->plan->objective,
            .bound = res->bound, .block_bound = res->block_bound, .blocks = K,
        };
        opt->on_progress(opt->ctx, &q);
    }
    plan_free(warm);
    problem_free(sub);
    free(g.order);
    return rc;
}

static bool allocs_stop(void *ctx)
{
    struct search *s = ctx;
    return (s->opt->cancel && *s->opt->cancel) || (!deterministic(s) && should_stop(s));
}

/* Enumerate the allocations of the blocks that could beat the incumbent
 * (section 5.4). Searched to the end, the least of their bounds (no
 * schedule: loads, memory, forced waits) holds for every plan of the blocks; none at all proves the
 * incumbent (or, with none, that nothing fits); and when every one is
 * kept the masters choose among them. Otherwise nothing is learnt. */
static void enumerate_allocations(struct search *s)
{
    struct allocset_options eo = {
        .cutoff = objective_cap(s), .max_nodes = ENUM_NODES, .max_keep = ENUM_KEEP,
        .stop = allocs_stop, .ctx = s,
    };
    /* nor when the network's bound already proves the incumbent */
    if (s->B > ENUM_MAX_BLOCKS || network_proven(s))
        return;
    if (deterministic(s)) {
        long share = (s->opt->work_limit - s->work) / 8;
        if (share < 1)
            return;
        if (share < ENUM_NODES / ENUM_WORK)
            eo.max_nodes = share * ENUM_WORK;
    }
    if (allocset_search(s->bp, s->sym, &eo, &s->allocs) != 0)
        return;                /* out of memory: the masters do without */
    s->work += 1 + s->allocs.nodes / ENUM_WORK;
    s->stats->alloc_nodes = s->allocs.nodes;
    s->stats->allocs = s->allocs.complete ? s->allocs.found : -1;
    trace(s, "allocations: %ld nodes%s, %ld could beat %.6g ms, least bound %.6g ms",
          s->allocs.nodes, s->allocs.complete ? "" : " (stopped)", s->allocs.found, eo.cutoff,
          s->allocs.least);
    if (!s->allocs.complete) {
        allocset_free(&s->allocs);
        return;
    }
    double floor = fmin(eo.cutoff, s->allocs.least);
    if (floor > s->bound) {
        s->bound = floor;
        report(s, NULL);
    }
    s->allocs_only = s->allocs.found <= s->allocs.n;
}

/* The chain bounds' least period: no plan of the layers has a shorter one. */
static double chain_t_lo(const struct search *s)
{
    return fmax(problem_lower_bound(s->pb), s->load_t);
}

/* The chain bound (section 5.5) on the network's own layers: no
 * enumeration, milliseconds; on each better plan (offer()), as it bounds
 * only the periods at which a plan could beat the incumbent. */
static void chain_bound(struct search *s)
{
    if (!isfinite(s->best_obj))
        return;
    double v = allocset_chain_bound(s->pb, objective_cap(s), chain_t_lo(s));
    s->work++;
    if (v > s->net_bound) {
        trace(s, "chain bound %.6g ms", v);
        s->net_bound = v;
        report(s, NULL);
    }
}

static bool packed_stop(void *ctx)
{
    const struct search *s = ctx;
    return (s->opt->cancel && *s->opt->cancel) ||
           (!deterministic(s) && (now() >= s->deadline || time_left(s) <= 0));
}

/* The packed chain's bound so far: the network's, shown as it rises. */
static void packed_progress(void *ctx, double bound)
{
    struct search *s = ctx;
    if (bound > s->net_bound) {
        s->net_bound = bound;
        report(s, NULL);
    }
}

/* Whether the packed chain's split gpu[L] was scheduled before (by its
 * hash: a collision only passes a split over); if not, it is now. */
static bool split_tried(struct search *s, const int *gpu)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < s->pb->L; i++)
        h = (h ^ (uint64_t)(gpu[i] + 1)) * 1099511628211ULL;
    for (int k = 0; k < s->ntried; k++)
        if (s->tried[k] == h)
            return true;
    if (s->ntried == s->tried_cap) {
        int cap = s->tried_cap ? 2 * s->tried_cap : 64;
        uint64_t *t = realloc(s->tried, (size_t)cap * sizeof *t);
        if (!t)
            return true;
        s->tried = t;
        s->tried_cap = cap;
    }
    s->tried[s->ntried++] = h;
    return false;
}

/* Keep split gpu[L] of the packed chain if it is among the SPLIT_POOL of
 * least value so far. */
static void pool_add(struct search *s, const int *gpu, double value)
{
    int L = s->pb->L;
    if (!s->pool && !(s->pool = malloc((size_t)SPLIT_POOL * (size_t)L * sizeof *s->pool)))
        return;
    if (s->npool == SPLIT_POOL && !(value < s->pool_v[SPLIT_POOL - 1]))
        return;
    int k = s->npool < SPLIT_POOL ? s->npool++ : SPLIT_POOL - 1;
    for (; k > 0 && s->pool_v[k - 1] > value; k--) {
        s->pool_v[k] = s->pool_v[k - 1];
        memcpy(s->pool + (size_t)k * L, s->pool + (size_t)(k - 1) * L, (size_t)L * sizeof *gpu);
    }
    s->pool_v[k] = value;
    memcpy(s->pool + (size_t)k * L, gpu, (size_t)L * sizeof *gpu);
}

/* The local search from the packed chain's kept splits, least value
 * first, while SPLIT_POLISH_SHARE of the phase's time left lasts (of
 * `work` under a work limit, a schedule a unit): the next split only when
 * the search from one ends before that. */
static void pool_polish(struct search *s, long work)
{
    if (s->npool == 0 || limit_reached(s))
        return;
    struct phase ph = phase_begin(s);
    long until = s->work + (long)(SPLIT_POLISH_SHARE * (double)work);
    if (!deterministic(s))
        s->deadline = now() + SPLIT_POLISH_SHARE * fmax(0, time_left(s));
    struct plan *pl = plan_new(s->pb->L, s->pb->P);
    for (int k = 0; pl && k < s->npool && !should_stop(s); k++) {
        if (deterministic(s) && s->work >= until)
            break;
        memcpy(pl->gpu, s->pool + (size_t)k * s->pb->L, (size_t)s->pb->L * sizeof *pl->gpu);
        trace(s, "local search from the packed chain's split of value %.6g ms", s->pool_v[k]);
        s->stats->polished += local_search_to(s, pl, remaining(s), until - s->work, NULL);
    }
    plan_free(pl);
    phase_end(s, &ph);
}

/* allocset_options.split: a split of the packed chain below the
 * incumbent is an allocation whose lifetimes, by the chain's rules, could
 * beat it, found by a search that looks at every allocation; its own
 * schedule often does (the witnesses of the bound are the plans worth
 * trying). 1f1b: the schedule MIP over the periods that could beat the
 * incumbent; pipedream: the list scheduler. Returns the cutoff. */
static double packed_split(void *ctx, const int *gpu, double value)
{
    struct search *s = ctx;
    (void)value;
    if (should_stop(s) || split_tried(s, gpu))
        return objective_cap(s);
    s->stats->splits++;
    pool_add(s, gpu, value);
    if (s->beta > 0 && s->bfirst) {
        struct plan *pl = plan_new(s->pb->L, s->pb->P);
        if (pl) {
            memcpy(pl->gpu, gpu, (size_t)s->pb->L * sizeof *gpu);
            if (schedule_layers(s, pl, chain_t_lo(s), objective_cap(s), SPLIT_MIP_SECONDS,
                                SPLIT_MIP_NODES, false) == 1)
                offer(s, pl);
        }
        plan_free(pl);
    } else {
        struct plan *pl = schedule_ladder(s, s->pb, gpu);
        s->work++;
        offer(s, pl);
        plan_free(pl);
    }
    return objective_cap(s);
}

/* The chain bound with its runs packed onto the GPUs exactly (section
 * 5.5): at most `work` under a work limit, else PACK_SHARE of the time
 * left. Pieces it does not reach keep the plain chain's bound. The
 * splits it finds below the incumbent are scheduled (packed_split). */
static void packed_bound(struct search *s, long work)
{
    if (!isfinite(s->best_obj) || network_proven(s) || limit_reached(s))
        return;
    if (!s->pieces)
        s->pieces = malloc(ALLOCSET_MAX_PIECES * sizeof *s->pieces);
    struct allocset_options po = { .max_nodes = PACK_MAX_NODES, .stop = packed_stop, .ctx = s,
                                   .progress = packed_progress, .split = packed_split,
                                   .pieces = s->pieces, .npieces = &s->npieces };
    struct phase ph = phase_begin(s);
    if (deterministic(s)) {
        long share = work > 0 ? work : 1;
        po.max_nodes = (long)fmin(PACK_MAX_NODES, (double)share * PACK_WORK);
        s->work_cap = s->work + share;
    } else {
        s->deadline = now() + PACK_SHARE * fmax(0, time_left(s));
    }
    long nodes = 0, tried = s->stats->splits;
    double v = allocset_chain_packed(s->pb, objective_cap(s), chain_t_lo(s), &po, &nodes);
    s->work += 1 + nodes / PACK_WORK;
    trace(s, "packed chain bound %.6g ms after %ld nodes, %ld splits scheduled", v, nodes,
          s->stats->splits - tried);
    packed_progress(s, v);
    phase_end(s, &ph);
}

/* 1f1b with a single micro-batch: the objective is the latency alone and
 * every layer keeps one copy at any period (min(n, m) = 1), so the period
 * changes nothing but the waits, which only lengthen the latency. At a
 * period longer than the whole chain with a cut after every layer no
 * lifetime reaches the period, no rule of 5.5 rounds one up, and each
 * layer counts one copy: the chain's least latency there bounds every plan
 * of the layers at every period (the chain bound proper, over pieces of
 * the periods, has nothing to work with here). */
static void single_copy_bound(struct search *s, const struct problem *whole)
{
    if (s->alpha != 0 || !(s->beta > 0) || whole->L < 1)
        return;
    double *life = malloc((size_t)whole->L * sizeof *life);
    if (!life)
        return;
    s->work++;
    if (allocset_chain_round_trip(whole, life) == 0 && s->beta * life[0] > s->net_bound) {
        s->net_bound = s->beta * life[0];
        trace(s, "one micro-batch: the chain's least latency %.6g ms bounds every period",
              life[0]);
    }
    free(life);
}

/* network: also bound the network's own layers (the relaxation); whole:
 * the problem on every GPU a plan of the layers may use (pb, or the caller's
 * when pb holds a subset of them), on which the chain may prove that no
 * plan of the layers fits */
static int solve(const struct problem *pb, const struct ilp_options *opt,
                 struct planner_result *res, struct ilp_stats *stats, bool network,
                 const struct problem *whole, bool show_dp)
{
    struct ilp_options defaults;
    struct ilp_stats local;
    if (!opt) {
        ilp_options_init(&defaults);
        opt = &defaults;
    }
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    stats->first_better_seconds = -1;
    stats->allocs = -1;
    memset(res, 0, sizeof *res);
    res->planner = "ilp";
    res->bound = NAN;
    res->block_bound = NAN;
    res->believed_fit = true;
    if (!pb || pb->L < 1 || pb->P < 1)
        return -1;

    struct search s;
    memset(&s, 0, sizeof s);
    s.pb = pb;
    s.opt = opt;
    s.stats = stats;
    s.t0 = now();
    s.best_obj = INFINITY;
    s.bound = isfinite(opt->known_bound) ? opt->known_bound : -INFINITY;
    s.net_bound = problem_objective_bound(pb);
    if (isfinite(opt->known_net_bound) && opt->known_net_bound > 0) {
        s.net_bound = fmax(s.net_bound, opt->known_net_bound);
        s.bound = fmax(s.bound, opt->known_net_bound);
    }
    s.pruned_floor = INFINITY;
    s.wide = WIDE_SHARE;
    s.deadline = INFINITY;
    s.work_cap = LONG_MAX;
    s.allocs.least = INFINITY;
    s.exact_from = NAN;
    problem_objective_weights(pb, &s.alpha, &s.beta);
    s.bp = problem_coarsen(pb, ilp_blocks(pb, opt->blocks));
    if (!s.bp) {
        res->status = PLAN_ERROR;
        snprintf(res->message, sizeof res->message, "out of memory");
        return 0;
    }
    s.B = s.bp->L;
    s.P = s.bp->P;
    stats->blocks = s.B;
    s.bfirst = first_layers(pb, s.bp);
    /* out of memory: the masters do without the chain's floors */
    s.life = s.bfirst ? malloc((size_t)pb->L * sizeof *s.life) : NULL;
    s.life_a = s.life_b = NAN;
    s.sym = calloc((size_t)s.P, sizeof *s.sym);
    for (int p = 1; s.sym && p < s.P; p++)
        s.sym[p] = s.bp->cap[p] == s.bp->cap[p - 1] && s.bp->reserved[p] == s.bp->reserved[p - 1];
    s.lat_floor = problem_compute_ms(s.bp);
    /* the loads' own bound holds for every plan of the layers */
    s.load_t = problem_load_bound(pb);
    s.net_bound = fmax(s.net_bound, objective_of(&s, s.load_t, s.lat_floor));
    s.chain = s.lat_floor;
    for (int i = 0; i + 1 < s.B; i++)
        s.chain += 2 * s.bp->c[i];

    s.chain_on = network;
    if (network)
        single_copy_bound(&s, whole);
    warm_start(&s);
    /* nothing fits so far: the chain's rules at a long period may prove
     * that no plan of the layers ever does (section 5.5) */
    bool none_fits = false;
    if (!isfinite(s.best_obj) && !should_stop(&s)) {
        none_fits = allocset_chain_none_fits(whole) == 1;
        s.work++;
        if (none_fits) {
            trace(&s, "chain: no plan of the layers fits at any period");
            s.bound = INFINITY;
        }
    }
    /* No compute at all: a plan runs at any period however short, so none
     * is best and nothing shorter can be searched for; the bound is the
     * trivial one (a period of 0), which a plan meets only when the period
     * does not count (1f1b, one micro-batch). The enumeration drops an
     * allocation of no load, and with no interval searched the bound
     * would be the incumbent's. */
    bool idle = !(s.lat_floor > 0);
    if (s.sym && !none_fits && !idle && !network_proven(&s))
        enumerate_allocations(&s);
    /* blocks coarser than the layers: the relaxation bounds the layers */
    struct search r;
    struct ilp_options ropt;
    struct ilp_stats rstats;
    bool relax = network && s.B < pb->L && !none_fits && !idle, net_done = false;
    memset(&r, 0, sizeof r);
    if (relax && relaxed_init(&r, &s, &ropt, &rstats) != 0) {
        relax = false;
        s.failed = true;
    }
    /* the block search first, leaving the relaxation its share (there is
     * none to leave without a plan that fits) */
    bool share = relax && isfinite(s.best_obj);
    if (share && deterministic(&s))
        s.work_cap = (long)((1 - NETBOUND_SHARE) * (double)opt->work_limit);
    else if (share && opt->time_limit > 0)
        s.deadline = s.t0 + (1 - NETBOUND_SHARE) * opt->time_limit;
    /* a bound for the layers holds for the blocks */
    if (isfinite(s.net_bound) && s.net_bound > s.bound)
        s.bound = s.net_bound;
    /* The least period: compute over the GPUs, the largest block, the
     * loads' own bound; above the whole chain's length nothing improves. */
    double t_lo = fmax(problem_lower_bound(s.bp), s.load_t);
    double t_hi = fmax(s.chain, t_lo);
    if (isfinite(s.best_obj) && s.alpha > 0)
        t_hi = fmin(t_hi, (s.best_obj - s.beta * s.lat_floor) / s.alpha);
    if ((isinf(s.bound) && s.bound > 0) || idle) {
        /* the enumeration found no allocation that fits, or none is best */
    } else if (t_hi < t_lo || (isfinite(s.best_obj) && s.bound >= s.best_obj * (1 - ILP_GAP))) {
        /* the incumbent already meets the bound */
        s.bound = fmax(s.bound, fmin(s.best_obj, objective_of(&s, t_lo, s.lat_floor)));
    } else if (s.sym) {
        search_run(&s, t_lo, t_hi);
    } else {
        s.failed = true;
    }
    if (!idle)
        update_bound(&s);   /* with no interval searched, the incumbent */
    exact_search(&s);
    /* the rest of the budget tightens the network's bound */
    /* under a work limit the packed chain and the relaxation get a
     * quarter of what the blocks took (at most a fifth of the whole, as in
     * seconds), so that a quick proof stays quick; in seconds they have
     * the time left */
    if (relax && !network_proven(&s)) {
        /* the packed chain first, on PACK_SHARE of the phase's share */
        long work = (long)fmax(RELAX_MIN_WORK, (double)s.work / 4), before = s.work;
        packed_bound(&s, (long)(PACK_SHARE * (double)work));
        pool_polish(&s, work - (s.work - before));
        work = (long)fmax(RELAX_MIN_WORK / 2, (double)(work - (s.work - before)));
        if (!network_proven(&s))
            net_done = relaxed_run(&r, &s, work);
        else
            net_done = true;
    }
    if (relax && !net_done && s.iv && s.stopped && !limit_reached(&s)) {
        /* the relaxation finished early: the blocks get the rest */
        s.stopped = false;
        s.deadline = INFINITY;
        s.work_cap = LONG_MAX;
        search_loop(&s);
        update_bound(&s);
    }
    bool net_infeasible = none_fits || (relax && isinf(r.bound) && r.bound > 0 && !s.best);
    if (relax)
        trace(&s, "network bound %.6g ms after %d masters, %d blocks", s.net_bound,
              rstats.masters, r.B);

    res->seconds = now() - s.t0;
    res->blocks = s.B;
    /* What is proven for blocks is not proven for the network: the
     * network keeps its own bound (doc/model.md section 10.4). */
    bool exact = s.B == pb->L;
    res->bound = exact ? fmax(s.net_bound, s.bound) : s.net_bound;
    /* nothing fits: the status says so; the bound stays a number */
    if (!isfinite(res->bound))
        res->bound = fmax(problem_objective_bound(pb),
                          objective_of(&s, s.load_t, s.lat_floor));
    res->block_bound = !exact && isfinite(s.bound) ? s.bound : NAN;
    trace(&s, "end after %d masters, %d schedule MIPs, work %ld", stats->masters,
          stats->subproblems, s.work);
    if (s.best) {
        res->plan = s.best;
        s.best = NULL;
        if (!(s.alpha > 0) && !idle)
            period_tighten(res->plan, pb);
        double obj = res->plan->objective;
        bool proven = !s.failed && proven_at(obj, res->bound);
        bool block_proven = !s.failed && !exact && proven_at(obj, s.bound);
        res->status = proven ? PLAN_OPTIMAL : block_proven ? PLAN_BLOCK_OPTIMAL
                      : s.stopped ? PLAN_TIMEOUT : PLAN_FEASIBLE;
        if (proven && res->bound > obj)
            res->bound = obj;
        if (idle && !proven)
            snprintf(res->message, sizeof res->message,
                     "the layers take no time: any period will do, and none is the best");
        else if (!proven && s.alpha > 0 && res->plan->T <= SCHEDULE_MIN_T * (1 + 1e-9) &&
                 problem_lower_bound(pb) < SCHEDULE_MIN_T)
            /* layers of nanoseconds: the gap to the bound is the floor's,
             * not the search's (period 1 us against a bound of 24 ns) */
            snprintf(res->message, sizeof res->message,
                     "the period is the schedulers' least, 1 us; the layers would allow "
                     "a shorter one");
        if (s.failed) {
            /* an error all the same: the plan is the best before it */
            res->status = PLAN_ERROR;
            res->kept = true;
            snprintf(res->message, sizeof res->message,
                     "the MIP solver failed; kept its best plan before that");
        } else if (s.net_failed && !res->message[0]) {
            snprintf(res->message, sizeof res->message,
                     "the MIP solver failed in the search for the network's bound, which "
                     "stays what was proven before");
        }
    } else if (net_infeasible || (!s.stopped && !s.failed && exact && searched_out(&s))) {
        res->status = PLAN_INFEASIBLE;
        snprintf(res->message, sizeof res->message,
                 "no plan of the %d layer%s fits: proven infeasible", pb->L, pb->L == 1 ? "" : "s");
    } else if (!s.stopped && !s.failed && searched_out(&s)) {
        /* proven for the blocks only: a finer split might fit */
        res->status = PLAN_NO_FIT;
        snprintf(res->message, sizeof res->message,
                 "no plan of the %d blocks fits (proven for the blocks, not the layers)", s.B);
    } else {
        res->status = s.failed ? PLAN_ERROR : PLAN_TIMEOUT;
        snprintf(res->message, sizeof res->message, s.failed ? "the MIP solver failed"
                 : s.stopped && deterministic(&s) ? "no fitting plan found before the work limit"
                 : s.stopped ? "no fitting plan found before the time limit"
                 : "no fitting plan found, nor a proof that none fits (a master was "
                   "stopped by its own limit)");
    }
    /* on a subset of the GPUs, solve_on_subset() shows the DP's split on
     * all of them instead: this one's would be of the subset */
    if (show_dp && no_plan_of_its_own(res)) {
        struct planner_result b;
        if (baseline_get(pb, opt, "dp", &b, NULL, NULL) == 0)
            show_dp_split(res, &b);
    }
    for (int c = 0; c < s.ncuts; c++)
        free(s.cuts[c].alloc);
    free(s.cuts);
    free(s.iv);
    free(s.tried);
    free(s.pool);
    free(s.pieces);
    free(s.sym);
    free(s.bfirst);
    free(s.life);
    allocset_free(&s.allocs);
    relaxed_free(&r);
    problem_free(s.bp);
    plan_free(s.best);
    return 0;
}

int ilp_solve(const struct problem *pb, const struct ilp_options *opt,
              struct planner_result *res, struct ilp_stats *stats)
{
    struct ilp_options defaults;
    if (!opt) {
        ilp_options_init(&defaults);
        opt = &defaults;
    }
    if (pb && pb->L >= 1 && pb->P >= 1) {
        /* a plan of the layers uses at most L GPUs: more are never needed.
         * Far more GPUs than blocks (the model grows with both) and the
         * blocks' count of GPUs serves the blocks, at the price of the
         * network's relaxation bound (see solve_on_subset). */
        int B = ilp_blocks(pb, opt->blocks), K = pb->P < pb->L ? pb->P : pb->L;
        if (K > SUBSET_FACTOR * B)
            return solve_on_subset(pb, opt, B, res, stats);
        if (K < pb->P)
            return solve_on_subset(pb, opt, K, res, stats);
    }
    return solve(pb, opt, res, stats, true, pb, true);
}
