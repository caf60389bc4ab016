/* torch_export: see torch_export.h.
 *
 * The names written here were checked against PyTorch's
 * torch/distributed/pipelining (schedules.py: _Action.from_str,
 * PipelineScheduleMulti._load_csv, _PipelineScheduleRuntime._load_csv and
 * its compute_only lowering, Schedule1F1B; _IR.py: pipeline, SplitPoint;
 * stage.py: PipelineStage) and torchtitan (distributed/pipeline_parallel.py,
 * config/job_config.py). */
#include "torch_export.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "text.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- stages and ranks ----------------------------------------------- */

struct split {
    int L, S, R;
    int *first;          /* [S+1] first layer of each stage; first[S] = L */
    int *rank_of;        /* [S] */
    int *gpu_of_rank;    /* [R] */
};

static void split_free(struct split *sp)
{
    free(sp->first);
    free(sp->rank_of);
    free(sp->gpu_of_rank);
    memset(sp, 0, sizeof *sp);
}

static bool plan_shape_ok(const struct plan *pl)
{
    if (!pl || pl->L < 1 || pl->P < 1 || !pl->gpu)
        return false;
    for (int i = 0; i < pl->L; i++)
        if (pl->gpu[i] < 0 || pl->gpu[i] >= pl->P)
            return false;
    return true;
}

/* A V-shaped plan (rank r holds stages r and 2R-1-r of 2R) has its two
 * middle stages on one GPU, next to each other in the chain: as maximal
 * runs they are one, 2R-1 runs in all, where run s and run 2R-2-s share a
 * GPU. When the plan is so and that middle run can be cut (two layers or
 * more), its layers [*a, *e) and true. Walks the runs from both ends. */
static bool v_middle(const struct plan *pl, int *a, int *e)
{
    int L = pl->L, R = plan_gpus_used(pl), S = 1;
    for (int i = 1; i < L; i++)
        S += pl->gpu[i] != pl->gpu[i - 1];
    if (R < 2 || S != 2 * R - 1)
        return false;
    int lo = 0, hi = L - 1;          /* run s from the front, run S-1-s from the back */
    for (int s = 0; s < R - 1; s++) {
        if (pl->gpu[lo] != pl->gpu[hi])
            return false;
        for (int g = pl->gpu[lo]; pl->gpu[lo] == g; lo++) {}
        for (int g = pl->gpu[hi]; pl->gpu[hi] == g; hi--) {}
    }
    /* R GPUs in 2R-1 runs mirrored about the middle: the first R distinct */
    *a = lo;
    *e = hi + 1;
    return hi > lo;
}

/* Cut a V-shaped plan's middle run where its compute halves (the first
 * such layer on a tie), so that the V schedules, which want two stages a
 * rank, take the plan: on one GPU the two halves run as the one run did.
 * pb NULL: anywhere (the stages counted, not written). */
static void v_unfold(struct split *sp, const struct problem *pb, const struct plan *pl)
{
    int a, e;
    if (!v_middle(pl, &a, &e))
        return;
    int mid = sp->R - 1, cut = a + 1;
    if (pb) {
        double total = 0, part = 0, best = INFINITY;
        for (int i = a; i < e; i++)
            total += pb->f[i] + pb->b[i];
        for (int k = a + 1; k < e; k++) {
            part += pb->f[k - 1] + pb->b[k - 1];
            double d = fabs(2 * part - total);
            if (d < best) {
                best = d;
                cut = k;
            }
        }
    }
    for (int s = sp->S; s > mid; s--) {
        sp->first[s + 1] = sp->first[s];
        sp->rank_of[s] = sp->rank_of[s - 1];
    }
    sp->first[mid + 1] = cut;
    sp->S++;
}

static int split_build(struct split *sp, const struct problem *pb, const struct plan *pl,
                       char *err, size_t errlen)
{
    memset(sp, 0, sizeof *sp);
    if (!plan_shape_ok(pl))
        return fail(err, errlen, "malformed plan: no layers, or a layer on no GPU");
    int L = pl->L, P = pl->P;
    sp->L = L;
    sp->first = malloc(((size_t)L + 1) * sizeof *sp->first);
    sp->rank_of = malloc((size_t)L * sizeof *sp->rank_of);
    sp->gpu_of_rank = malloc((size_t)P * sizeof *sp->gpu_of_rank);
    int *rank_of_gpu = malloc((size_t)P * sizeof *rank_of_gpu);
    if (!sp->first || !sp->rank_of || !sp->gpu_of_rank || !rank_of_gpu) {
        free(rank_of_gpu);
        split_free(sp);
        return fail(err, errlen, "out of memory");
    }
    for (int p = 0; p < P; p++)
        rank_of_gpu[p] = -1;
    for (int i = 0; i < L; i++) {
        if (i > 0 && pl->gpu[i] == pl->gpu[i - 1])
            continue;
        int g = pl->gpu[i];
        /* Ranks in the order of their first stage, so stage 0 is on rank 0. */
        if (rank_of_gpu[g] < 0) {
            rank_of_gpu[g] = sp->R;
            sp->gpu_of_rank[sp->R++] = g;
        }
        sp->rank_of[sp->S] = rank_of_gpu[g];
        sp->first[sp->S++] = i;
    }
    sp->first[sp->S] = L;
    free(rank_of_gpu);
    v_unfold(sp, pb, pl);
    return 0;
}

int torch_stage_count(const struct plan *pl)
{
    if (!plan_shape_ok(pl))
        return -1;
    int S = 1, a, e;
    for (int i = 1; i < pl->L; i++)
        S += pl->gpu[i] != pl->gpu[i - 1];
    return S + v_middle(pl, &a, &e);     /* a V's middle run: two stages */
}

int torch_rank_count(const struct plan *pl)
{
    if (!plan_shape_ok(pl))
        return -1;
    return plan_gpus_used(pl);
}

/* ---- one iteration's order ------------------------------------------ */

enum { ACT_F = 0, ACT_B = 1 };

struct action {
    int stage, kind, mb;
};

struct order {
    int m;
    int *row_start;      /* [R+1] */
    struct action *act;  /* [2 S m], rank by rank */
};

/* The most actions (2 x stages x micro-batches) one iteration's order may
 * have. The torch-schedule CSV is a table of a row per rank that people
 * read and that _PipelineScheduleRuntime._load_csv parses, every rank's
 * row, into a Python object an action; a real pipeline has far fewer
 * (128 stages of 4096 micro-batches: about a million). At this cap the
 * order takes 17 bytes an action, 170 MB, and some 4 s to build, and the
 * CSV is about 90 MB; it is built while fileio_write_atomic holds off signals,
 * and in the explorer on the screen's thread, so beyond it (a thousand
 * stages of a million micro-batches: 16 GB and minutes) it is refused
 * before anything is allocated. */
#define TORCH_MAX_ACTIONS 10000000L

/* 0 when an order of m micro-batches on S stages (R ranks) is within the
 * cap, else -1 with its size and what to change (fewer of pb's GPUs, or
 * ranks with tensor parallelism). */
static int order_size(const struct problem *pb, long m, int S, int R, char *err, size_t errlen)
{
    if (m < 1)
        return fail(err, errlen, "%ld micro-batches: cannot unroll that many", m);
    long most = TORCH_MAX_ACTIONS / 2 / S;
    if (m <= most)
        return 0;
    char fix[96];
    if (most >= 1)
        snprintf(fix, sizeof fix, "plan at most %ld micro-batches on %d stages, or fewer %s",
                 most, S, problem_gpu_word(pb, true));
    else
        snprintf(fix, sizeof fix, "plan fewer %s", problem_gpu_word(pb, true));
    return fail(err, errlen, "the schedule would have %.0f actions (2 x %d stages x %ld "
                "micro-batches, in %d rank rows), more than %ld: %s", 2.0 * S * (double)m, S,
                m, R, TORCH_MAX_ACTIONS, fix);
}

int torch_schedule_size(const struct problem *pb, const struct plan *pl, char *err,
                        size_t errlen)
{
    int S = torch_stage_count(pl), R = torch_rank_count(pl);
    if (!pb || S < 1 || R < 1)
        return fail(err, errlen, "malformed plan: no layers, or a layer on no GPU");
    return order_size(pb, pb->m, S, R, err, errlen);
}

static void order_free(struct order *od)
{
    free(od->row_start);
    free(od->act);
    memset(od, 0, sizeof *od);
}

struct keyed {
    const struct split *sp;
    const struct plan *pl;
    int m;
};

/* Action id = (stage * 2 + kind) * m + mb. */
static double act_time(const struct keyed *k, int id)
{
    int j = id % k->m, sk = id / k->m, s = sk / 2;
    /* A stage's F starts with its first layer's F, its B with its last
     * layer's B: the layers of a stage run back to back as one action. */
    int o = sk % 2 == ACT_F ? k->sp->first[s] : k->pl->L + k->sp->first[s + 1] - 1;
    return k->pl->start[o] + (double)j * k->pl->T;
}

/* Position in one micro-batch's chain F_0..F_{S-1}, B_{S-1}..B_0. */
static int act_chain(const struct keyed *k, int id)
{
    int sk = id / k->m, s = sk / 2;
    return sk % 2 == ACT_F ? s : 2 * k->sp->S - 1 - s;
}

/* Time order; ties by chain position, then micro-batch. */
static bool act_before(const struct keyed *k, int a, int b)
{
    double ta = act_time(k, a), tb = act_time(k, b);
    if (ta != tb)
        return ta < tb;
    int ca = act_chain(k, a), cb = act_chain(k, b);
    if (ca != cb)
        return ca < cb;
    return a % k->m < b % k->m;
}

static void heap_push(const struct keyed *k, int *heap, size_t *n, int id)
{
    size_t i = (*n)++;
    heap[i] = id;
    while (i > 0 && act_before(k, heap[i], heap[(i - 1) / 2])) {
        int t = heap[i];
        heap[i] = heap[(i - 1) / 2];
        heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int heap_pop(const struct keyed *k, int *heap, size_t *n)
{
    int top = heap[0];
    heap[0] = heap[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < *n && act_before(k, heap[l], heap[best]))
            best = l;
        if (r < *n && act_before(k, heap[r], heap[best]))
            best = r;
        if (best == i)
            break;
        int t = heap[i];
        heap[i] = heap[best];
        heap[best] = t;
        i = best;
    }
    return top;
}

static bool plan_times_ok(const struct plan *pl)
{
    if (!pl->start || !isfinite(pl->T) || pl->T <= 0)
        return false;
    for (int o = 0; o < 2 * pl->L; o++)
        if (!isfinite(pl->start[o]))
            return false;
    return true;
}

/* Every action of micro-batches 0..m-1 in time order, emitted only once
 * what it depends on was: a valid plan's times already respect the
 * dependencies, and this keeps rounding in start times from reordering two
 * dependent actions. Each rank keeps its share in emission order. */
static int order_build(struct order *od, const struct split *sp, const struct problem *pb,
                       const struct plan *pl, char *err, size_t errlen)
{
    memset(od, 0, sizeof *od);
    if (!plan_times_ok(pl))
        return fail(err, errlen, "malformed plan: no positive period or a start time "
                    "that is not a number");
    /* the cap also keeps action ids (below 2 S m) within an int */
    if (order_size(pb, pb->m, sp->S, sp->R, err, errlen) < 0)
        return -1;
    int m = (int)pb->m, S = sp->S;
    size_t n = (size_t)2 * (size_t)S * (size_t)m;
    od->m = m;
    od->row_start = calloc((size_t)sp->R + 1, sizeof *od->row_start);
    od->act = malloc(n * sizeof *od->act);
    int *heap = malloc(n * sizeof *heap);
    unsigned char *waits = malloc(n);
    int *fill = calloc((size_t)sp->R, sizeof *fill);
    if (!od->row_start || !od->act || !heap || !waits || !fill) {
        free(heap);
        free(waits);
        free(fill);
        order_free(od);
        return fail(err, errlen, "out of memory");
    }
    for (int s = 0; s < S; s++)
        od->row_start[sp->rank_of[s] + 1] += 2 * m;
    for (int r = 0; r < sp->R; r++)
        od->row_start[r + 1] += od->row_start[r];

    struct keyed k = { sp, pl, m };
    size_t nheap = 0;
    for (int s = 0; s < S; s++)
        for (int j = 0; j < m; j++) {
            int f = (s * 2 + ACT_F) * m + j, b = (s * 2 + ACT_B) * m + j;
            waits[f] = s > 0;                   /* F of the stage before */
            waits[b] = 1 + (s < S - 1);         /* own F, B of the stage after */
            if (!waits[f])
                heap_push(&k, heap, &nheap, f);
        }
    while (nheap > 0) {
        int id = heap_pop(&k, heap, &nheap);
        int j = id % m, sk = id / m, s = sk / 2, kind = sk % 2;
        int r = sp->rank_of[s];
        od->act[od->row_start[r] + fill[r]++] = (struct action){ s, kind, j };
        int next[2], nn = 0;
        if (kind == ACT_F) {
            if (s < S - 1)
                next[nn++] = ((s + 1) * 2 + ACT_F) * m + j;
            next[nn++] = (s * 2 + ACT_B) * m + j;
        } else if (s > 0) {
            next[nn++] = ((s - 1) * 2 + ACT_B) * m + j;
        }
        for (int q = 0; q < nn; q++)
            if (--waits[next[q]] == 0)
                heap_push(&k, heap, &nheap, next[q]);
    }
    free(heap);
    free(waits);
    free(fill);
    return 0;
}

static int check_inputs(const struct problem *pb, const struct plan *pl, char *err,
                        size_t errlen)
{
    if (!pb || !pl)
        return fail(err, errlen, "no plan or no problem to export");
    if (pl->L != pb->L || pl->P != pb->P)
        return fail(err, errlen, "plan is for %d layers on %d GPUs, problem has %d on %d",
                    pl->L, pl->P, pb->L, pb->P);
    return 0;
}

static int stream_status(FILE *out, char *err, size_t errlen)
{
    if (ferror(out))
        return fail(err, errlen, "write error");
    return 0;
}

static void write_action(FILE *out, const struct action *a)
{
    fprintf(out, "%d%c%d", a->stage, a->kind == ACT_F ? 'F' : 'B', a->mb);
}

int torch_export_schedule(FILE *out, const struct problem *pb, const struct plan *pl,
                          char *err, size_t errlen)
{
    struct split sp;
    struct order od;
    if (check_inputs(pb, pl, err, errlen) < 0 || split_build(&sp, pb, pl, err, errlen) < 0)
        return -1;
    if (order_build(&od, &sp, pb, pl, err, errlen) < 0) {
        split_free(&sp);
        return -1;
    }
    for (int r = 0; r < sp.R; r++) {
        for (int k = od.row_start[r]; k < od.row_start[r + 1]; k++) {
            if (k > od.row_start[r])
                fputc(',', out);
            write_action(out, &od.act[k]);
        }
        fputc('\n', out);
    }
    order_free(&od);
    split_free(&sp);
    return stream_status(out, err, errlen);
}

/* ---- the program ---------------------------------------------------- */

/* A double-quoted string valid in Python and in TOML alike. */
static void write_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        size_t n = text_utf8_len((const char *)c);
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(out, "\\u%04x", *c);
        else if (n == 0)
            fputs("\\ufffd", out);     /* invalid UTF-8: Python would not compile it */
        else {
            fwrite(c, 1, n, out);
            c += n - 1;
        }
    }
    fputc('"', out);
}

/* torchtitan's module names: tok_embeddings, layers.N, norm, output. */
static bool torchtitan_name(const char *s)
{
    if (!strcmp(s, "tok_embeddings") || !strcmp(s, "norm") || !strcmp(s, "output"))
        return true;
    if (strncmp(s, "layers.", 7) != 0 || !s[7])
        return false;
    for (s += 7; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static bool action_is(const struct action *a, int s, int kind, int mb)
{
    return a->stage == s && a->kind == kind && a->mb == mb;
}

/* Whether rank s (holding only stage s) runs Schedule1F1B's order: on
 * stage s, min(m, S - s) forwards, then one backward and one forward while
 * forwards remain, then the remaining backwards. */
static bool order_is_1f1b(const struct order *od, const struct split *sp)
{
    int m = od->m, S = sp->S;
    for (int s = 0; s < S; s++) {
        const struct action *a = od->act + od->row_start[s];
        int warm = m < S - s ? m : S - s, f = 0, b = 0, k = 0;
        bool ok = true;
        for (; f < warm; f++)
            ok = action_is(&a[k++], s, ACT_F, f) && ok;
        for (;;) {
            ok = action_is(&a[k++], s, ACT_B, b++) && ok;
            if (f == m)
                break;
            ok = action_is(&a[k++], s, ACT_F, f++) && ok;
        }
        while (b < m)
            ok = action_is(&a[k++], s, ACT_B, b++) && ok;
        if (!ok)
            return false;
    }
    return true;
}

enum placement { PLACE_OTHER, PLACE_LOOP, PLACE_V };

/* torchtitan's pipeline_module_split puts stage s on rank s % degree
 * ("loop"), or for the V schedules rank r holds stages r and 2R-1-r. */
static enum placement split_placement(const struct split *sp)
{
    bool loop = sp->S % sp->R == 0, v = sp->S == 2 * sp->R;
    for (int s = 0; s < sp->S; s++) {
        loop = loop && sp->rank_of[s] == s % sp->R;
        v = v && sp->rank_of[s] == (s < sp->R ? s : 2 * sp->R - 1 - s);
    }
    return loop ? PLACE_LOOP : v ? PLACE_V : PLACE_OTHER;
}

static void write_fqn_lists(FILE *out, const struct problem *pb, const struct split *sp,
                            const char *indent, bool notes)
{
    for (int s = 0; s < sp->S; s++) {
        fprintf(out, "%s    [", indent);
        for (int i = sp->first[s]; i < sp->first[s + 1]; i++) {
            if (i > sp->first[s])
                fputs(", ", out);
            write_quoted(out, pb->names[i]);
        }
        fputs("],", out);
        if (notes)
            fprintf(out, "  # stage %d: rank %d (pipeplan %s %d)", s, sp->rank_of[s],
                    problem_gpu_word(pb, false), sp->gpu_of_rank[sp->rank_of[s]]);
        fputc('\n', out);
    }
}

static void write_int_list(FILE *out, const int *v, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++)
        fprintf(out, i ? ", %d" : "%d", v[i]);
    fputc(']', out);
}

static void write_header(FILE *out, const struct problem *pb, const struct plan *pl,
                         const struct split *sp, int m)
{
    bool pipedream = pb->schedule == SPEC_SCHEDULE_PIPEDREAM;
    fputs("# Pipeline plan for torch.distributed.pipelining and torchtitan, "
          "written by pipeplan.\n", out);
    char name[1024];   /* a Python comment: a CR in the name would end it */
    fprintf(out, "# Network %s: %d layer%s in %d stage%s on %d pipeline rank%s, "
            "%d micro-batch%s per step,\n",
            pb->network ? text_escape(pb->network, name, sizeof name) : "(unnamed)",
            sp->L, sp->L == 1 ? "" : "s", sp->S, sp->S == 1 ? "" : "s",
            sp->R, sp->R == 1 ? "" : "s", m, m == 1 ? "" : "es");
    fprintf(out, "# %s schedule, period %.6g ms, iteration %.6g ms.\n",
            pipedream ? "pipedream" : "1f1b", pl->T, pl->iteration);
    if (pipedream)
        fputs("# This is a pipedream plan (never flushed, stashed weights), but\n"
              "# torch.distributed.pipelining flushes every step(): the schedule below runs\n"
              "# the plan's periodic order for one step of micro-batches, with one weight\n"
              "# version.\n", out);
    bool titan = true;
    for (int i = 0; i < pb->L; i++)
        titan = titan && torchtitan_name(pb->names[i]);
    if (!titan)
        fputs("#\n# The names below are the network file's layer names. pipeline() and\n"
              "# torchtitan need the model's module FQNs (fully qualified names, as\n"
              "# model.named_modules() prints them): rename them where they differ.\n"
              "# pipeline() cuts only at submodule calls and torchtitan keeps whole\n"
              "# modules, so a stage cannot start at an operation of a profiled graph that\n"
              "# has no module of its own (an Add, an Input): move such a cut to the module\n"
              "# next to it. A cut inside a residual block also sends the block's skip\n"
              "# tensor, and torch's multi-stage schedules support no skip connections.\n", out);
    fputs("\nfrom torch.distributed.pipelining import PipelineStage, SplitPoint, pipeline\n"
          "from torch.distributed.pipelining.schedules import (\n"
          "    Schedule1F1B,\n"
          "    _PipelineScheduleRuntime,\n"
          ")\n\n", out);
}

static void write_data(FILE *out, const struct problem *pb, const struct split *sp, int m)
{
    fputs("# Stage s runs the modules module_fqns_per_model_part[s], in this order.\n"
          "# A stage is a maximal run of consecutive layers on one GPU (a V-shaped\n"
          "# plan's middle run is two, cut where its compute halves); stages are\n"
          "# numbered in chain order.\n"
          "module_fqns_per_model_part = [\n", out);
    write_fqn_lists(out, pb, sp, "", true);
    fprintf(out, "]\nnum_stages = %d\n\n", sp->S);
    if (pb->tp > 1)
        fputs("# The pipeline rank holding each stage; rank r runs on pipeplan's rank\n"
              "# rank_gpu[r] (the plan's memory figures are for each GPU of its group).\n"
              "stage_to_rank = ", out);
    else
        fputs("# The pipeline rank holding each stage; rank r runs on pipeplan's GPU\n"
              "# rank_gpu[r] (the plan's memory figures are for that GPU).\n"
              "stage_to_rank = ", out);
    write_int_list(out, sp->rank_of, sp->S);
    fputs("\nrank_gpu = ", out);
    write_int_list(out, sp->gpu_of_rank, sp->R);
    fprintf(out, "\npp_degree = %d  # pipeline ranks\n", sp->R);
    if (pb->tp > 1)
        /* the network's figures are one GPU's share of its rank's group:
         * run unsharded, each GPU would hold tp times the plan's weights */
        fprintf(out, "tp_degree = %d  # tensor parallel: each pipeline rank is a group of %d "
                "GPUs;\n# shard each stage's modules over its group (a 2-D DeviceMesh of "
                "(pp_degree, tp_degree),\n# parallelize_module on the \"tp\" dimension) "
                "before wrapping it as a PipelineStage\n", pb->tp, pb->tp);
    fprintf(out, "n_microbatches = %d  # per step()\n\n", m);
    fputs("# The same split for the tracer frontend, pipeline(module, mb_args,\n"
          "# split_spec=split_spec): a split before the first module of every stage\n"
          "# but stage 0.\n"
          "split_spec = {\n", out);
    for (int s = 1; s < sp->S; s++) {
        fputs("    ", out);
        write_quoted(out, pb->names[sp->first[s]]);
        fputs(": SplitPoint.BEGINNING,\n", out);
    }
    fputs("}\n\n", out);
}

/* Which schedule class runs the plan, and why, as comments. */
static bool write_schedule_choice(FILE *out, const struct order *od, const struct split *sp)
{
    bool single = sp->S == sp->R;
    bool use_1f1b = single && od->m >= sp->S && order_is_1f1b(od, sp);
    fputs("# Schedule: ", out);
    if (use_1f1b)
        fputs("every rank holds one stage and runs it in Schedule1F1B's order\n"
              "# (min(n_microbatches, num_stages - s) forwards on stage s, then one backward\n"
              "# and one forward at a time), so Schedule1F1B runs this plan as it is. The\n"
              "# torch-schedule CSV holds the same order.\n", out);
    else if (single && od->m < sp->S)
        fputs("Schedule1F1B needs at least as many micro-batches as stages, so\n"
              "# run pipeplan's torch-schedule CSV with _PipelineScheduleRuntime.\n", out);
    else if (single)
        fputs("every rank holds one stage, but this plan's order is not\n"
              "# Schedule1F1B's (min(n_microbatches, num_stages - s) forwards before the first\n"
              "# backward on stage s): run pipeplan's torch-schedule CSV with\n"
              "# _PipelineScheduleRuntime.\n", out);
    else
        fputs("a rank holds several stages: run pipeplan's torch-schedule CSV with\n"
              "# _PipelineScheduleRuntime (ScheduleInterleaved1F1B would run its own order,\n"
              "# with stage s on rank s % pp_degree, not this plan's).\n", out);
    fprintf(out, "schedule_class = \"%s\"\n",
            use_1f1b ? "Schedule1F1B" : "_PipelineScheduleRuntime");
    fputs("schedule_csv = \"schedule.csv\"  # pipeplan's torch-schedule export of this plan\n\n",
          out);
    return use_1f1b;
}

/* Whether stage s is on rank s % R for every s: the placement torch's
 * multi-stage schedules assume unless told otherwise. */
static bool placement_is_loop(const struct split *sp)
{
    for (int s = 0; s < sp->S; s++)
        if (sp->rank_of[s] != s % sp->R)
            return false;
    return true;
}

static void write_functions(FILE *out, bool use_1f1b, const struct split *sp)
{
    fputs("\ndef stages_of_rank(pipe, rank, device, group=None):\n"
          "    \"\"\"This rank's PipelineStage objects, in stage order, from\n"
          "    pipe = pipeline(model, mb_args=(example_microbatch,), split_spec=split_spec).\n"
          "    Without the tracer, build each part from module_fqns_per_model_part[s] and\n"
          "    wrap it as PipelineStage(part, s, num_stages, device, group=group).\"\"\"\n"
          "    return [pipe.build_stage(s, device, group)\n"
          "            for s in range(num_stages) if stage_to_rank[s] == rank]\n\n\n"
          "def make_schedule(stages, loss_fn):\n"
          "    \"\"\"The schedule of this rank's stages.\"\"\"\n", out);
    if (use_1f1b)
        fputs("    return Schedule1F1B(stages[0], n_microbatches=n_microbatches, "
              "loss_fn=loss_fn)\n", out);
    else
    {
        fputs("    schedule = _PipelineScheduleRuntime(\n"
              "        stages, n_microbatches=n_microbatches, loss_fn=loss_fn)\n", out);
        /* PyTorch 2.7 (pytorch PR 146217) made _load_csv set each stage's
         * rank from the CSV; before, stage s was on rank s % pp_degree */
        if (!placement_is_loop(sp))
            fputs("    # _load_csv takes each stage's rank from the CSV in PyTorch 2.7 and later.\n"
                  "    # Before 2.7 the schedule puts stage s on rank s % pp_degree, which is\n"
                  "    # not this plan's stage_to_rank: there pass\n"
                  "    # stage_index_to_group_rank=dict(enumerate(stage_to_rank)) to it above.\n",
                  out);
        fputs("    schedule._load_csv(schedule_csv)  # format \"compute_only\": a row per rank\n"
              "    return schedule\n", out);
    }
    fputs("\n\ndef run_step(schedule, rank, x, y):\n"
          "    \"\"\"One step of n_microbatches micro-batches (x, y: the whole batch).\n"
          "    The losses on the rank of the last stage, None elsewhere.\"\"\"\n"
          "    args = (x,) if rank == stage_to_rank[0] else ()\n"
          "    if rank != stage_to_rank[-1]:\n"
          "        schedule.step(*args)\n"
          "        return None\n"
          "    losses = []\n"
          "    schedule.step(*args, target=y, losses=losses)\n"
          "    return losses\n", out);
}

static void write_torchtitan(FILE *out, const struct problem *pb, const struct split *sp,
                             int m, bool use_1f1b)
{
    enum placement place = split_placement(sp);
    /* torchtitan moved its job config from TOML files to Python
     * dataclasses (ParallelismConfig, TrainingConfig) in 2026, with the
     * same field names, and torchtitan PR 4121 (August 2026) gave the
     * batch in tokens rather than local_batch_size */
    fputs("\n\n# torchtitan: job config TOML (the same fields of ParallelismConfig and\n"
          "# TrainingConfig in its Python configs of 2026, or --parallelism.NAME and\n"
          "# --training.NAME on its command line; releases from August 2026 give the\n"
          "# batch in tokens rather than local_batch_size).\n", out);
    if (place == PLACE_OTHER) {
        fputs("# torchtitan places stage s on rank s % pipeline_parallel_degree (or, for\n"
              "# the V schedules, rank r holds stages r and 2 * degree - 1 - r), with as\n"
              "# many stages on every rank; this plan's stage_to_rank is neither, so build\n"
              "# the stages as above rather than through torchtitan's config.\n", out);
        return;
    }
    const char *name = place == PLACE_V ? "ZBVZeroBubble"
                       : sp->S == sp->R ? "1F1B" : "Interleaved1F1B";
    fputs("# Leave pipeline_parallel_layers_per_stage unset: module_fqns_per_model_part\n"
          "# sets the stages.", out);
    if (!use_1f1b)
        fprintf(out, " With a schedule CSV, torchtitan runs _PipelineScheduleRuntime\n"
                "# and reads pipeline_parallel_schedule (\"%s\") only to place the stages.", name);
    fprintf(out, "\n#\n# [parallelism]\n# pipeline_parallel_degree = %d\n"
            "# pipeline_parallel_schedule = \"%s\"\n", sp->R, name);
    if (pb->tp > 1)
        fprintf(out, "# tensor_parallel_degree = %d\n", pb->tp);
    if (!use_1f1b)
        fputs("# pipeline_parallel_schedule_csv = \"schedule.csv\"\n", out);
    fprintf(out, "# pipeline_parallel_microbatch_size = %ld\n"
            "# module_fqns_per_model_part = [\n", pb->micro_batch);
    write_fqn_lists(out, pb, sp, "#", false);
    fprintf(out, "# ]\n#\n# [training]\n# local_batch_size = %ld  # n_microbatches micro-batches\n",
            (long)m * pb->micro_batch);
}

int torch_export_program(FILE *out, const struct problem *pb, const struct plan *pl,
                         char *err, size_t errlen)
{
    struct split sp;
    struct order od;
    if (check_inputs(pb, pl, err, errlen) < 0)
        return -1;
    for (int i = 0; i < pb->L; i++)
        if (!pb->names || !pb->names[i])
            return fail(err, errlen, "layer %d has no name", i);
    if (split_build(&sp, pb, pl, err, errlen) < 0)
        return -1;
    if (order_build(&od, &sp, pb, pl, err, errlen) < 0) {
        split_free(&sp);
        return -1;
    }
    write_header(out, pb, pl, &sp, od.m);
    write_data(out, pb, &sp, od.m);
    bool use_1f1b = write_schedule_choice(out, &od, &sp);
    write_functions(out, use_1f1b, &sp);
    write_torchtitan(out, pb, &sp, od.m, use_1f1b);
    order_free(&od);
    split_free(&sp);
    return stream_status(out, err, errlen);
}

/* ---- the validator -------------------------------------------------- */

struct cell {
    int rank, col;
};

struct check {
    int S, R, m;
    struct cell *where;      /* [2 S m] by action id; rank -1 when absent */
    int *stage_rank;         /* [S] -1 until seen */
    int *row_start;          /* [R+1] where each row starts in acts */
    int *acts, *cols;        /* [2 S m] the actions read, row by row, and their columns */
    int nacts;
};

static int act_id(const struct check *c, int s, int kind, int j)
{
    return (s * 2 + kind) * c->m + j;
}

static const char *act_text(const struct check *c, int id, char *buf, size_t len)
{
    int j = id % c->m, sk = id / c->m;
    snprintf(buf, len, "%d%c%d", sk / 2, sk % 2 == ACT_F ? 'F' : 'B', j);
    return buf;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f';
}

/* Read digits into *v; false when none or too many. */
static bool read_num(const char **p, const char *end, int *v)
{
    long x = 0;
    const char *s = *p;
    while (s < end && *s >= '0' && *s <= '9' && s - *p < 9)
        x = x * 10 + (*s++ - '0');
    if (s == *p || (s < end && *s >= '0' && *s <= '9'))
        return false;
    *v = (int)x;
    *p = s;
    return true;
}

/* One cell [*b, *e), spaces around it allowed as Python's str.strip()
 * does (*b, *e trimmed): 1 with its stage, kind and micro-batch, 0 when
 * empty, -1 when it does not read as an action. */
static int cell_read(const char **b, const char **e, int *s, int *kind, int *j)
{
    while (*b < *e && is_space(**b))
        (*b)++;
    while (*e > *b && is_space((*e)[-1]))
        (*e)--;
    if (*b == *e)
        return 0;
    const char *p = *b;
    if (!read_num(&p, *e, s) || p == *e || (*p != 'F' && *p != 'B'))
        return -1;
    *kind = *p++ == 'F' ? ACT_F : ACT_B;
    if (!read_num(&p, *e, j) || p != *e)
        return -1;
    return 1;
}

static int cell_unreadable(int rank, int col, const char *b, const char *e, char *err,
                           size_t errlen)
{
    int len = (int)(e - b) > 40 ? 40 : (int)(e - b);
    const char *p = b;
    int n;
    if (read_num(&p, e, &n) && p < e && (*p == 'I' || *p == 'W'))
        /* torch reads these (a backward split in two), this check does not */
        return fail(err, errlen, "rank %d, column %d: \"%.*s\" is a %s action, which torch "
                    "reads but this check does not (it checks schedules of F and B, as "
                    "pipeplan writes them)", rank, col, len, b,
                    *p == 'I' ? "backward-input (I)" : "backward-weight (W)");
    return fail(err, errlen, "rank %d, column %d: cannot read \"%.*s\" (expected stage, F "
                "or B, micro-batch, e.g. 2F0)", rank, col, len, b);
}

static int cell_quoted(int rank, int col, char *err, size_t errlen)
{
    return fail(err, errlen, "rank %d, column %d: quoted cells are not read (expected stage, "
                "F or B, micro-batch, e.g. 2F0)", rank, col);
}

/* One cell [b, e) into the check. */
static int check_cell(struct check *c, int rank, int col, const char *b, const char *e,
                      char *err, size_t errlen)
{
    int s, j, kind;
    int r = cell_read(&b, &e, &s, &kind, &j);
    if (r == 0)
        return 0;
    if (r < 0)
        return cell_unreadable(rank, col, b, e, err, errlen);
    int len = (int)(e - b) > 40 ? 40 : (int)(e - b);
    if (s >= c->S)
        return fail(err, errlen, "rank %d, column %d: %.*s names stage %d, there are %d "
                    "(0..%d)", rank, col, len, b, s, c->S, c->S - 1);
    if (j >= c->m)
        return fail(err, errlen, "rank %d, column %d: %.*s names micro-batch %d, there are "
                    "%d (0..%d)", rank, col, len, b, j, c->m, c->m - 1);
    if (c->stage_rank[s] >= 0 && c->stage_rank[s] != rank)
        return fail(err, errlen, "rank %d, column %d: %.*s puts stage %d on rank %d, it is "
                    "on rank %d", rank, col, len, b, s, rank, c->stage_rank[s]);
    c->stage_rank[s] = rank;
    int id = act_id(c, s, kind, j);
    if (c->where[id].rank >= 0)
        return fail(err, errlen, "rank %d, column %d: %.*s repeats column %d", rank, col,
                    len, b, c->where[id].col);
    c->where[id] = (struct cell){ rank, col };
    c->acts[c->nacts] = id;
    c->cols[c->nacts++] = col;
    return 0;
}

static int check_rows(struct check *c, const char *csv, char *err, size_t errlen)
{
    const char *p = csv;
    int rank = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *line_end = end > p && end[-1] == '\r' ? end - 1 : end;
        if (rank >= c->R)
            return fail(err, errlen, "the schedule has more rows than ranks (%d)", c->R);
        c->row_start[rank] = c->nacts;
        int col = 0;
        for (const char *b = p;; col++) {
            const char *comma = memchr(b, ',', (size_t)(line_end - b));
            const char *e = comma ? comma : line_end;
            if (memchr(b, '"', (size_t)(e - b)))
                return cell_quoted(rank, col, err, errlen);
            if (check_cell(c, rank, col, b, e, err, errlen) < 0)
                return -1;
            if (!comma)
                break;
            b = comma + 1;
        }
        if (c->nacts == c->row_start[rank])
            return fail(err, errlen, "rank %d has no actions", rank);
        rank++;
        p = eol ? eol + 1 : end;
    }
    c->row_start[rank] = c->nacts;
    if (rank != c->R)
        return fail(err, errlen, "the schedule has %d row%s, expected %d (one per rank)",
                    rank, rank == 1 ? "" : "s", c->R);
    return 0;
}

static int check_counts(const struct check *c, char *err, size_t errlen)
{
    for (int s = 0; s < c->S; s++) {
        if (c->stage_rank[s] < 0)
            return fail(err, errlen, "stage %d is on no rank", s);
        for (int j = 0; j < c->m; j++)
            for (int kind = ACT_F; kind <= ACT_B; kind++)
                if (c->where[act_id(c, s, kind, j)].rank < 0)
                    return fail(err, errlen, "stage %d has no %c for micro-batch %d (rank %d)",
                                s, kind == ACT_F ? 'F' : 'B', j, c->stage_rank[s]);
    }
    return 0;
}

/* What action id waits for first that is not done yet, or -1. */
static int check_blocker(const struct check *c, const bool *done, int id)
{
    int j = id % c->m, sk = id / c->m, s = sk / 2;
    if (sk % 2 == ACT_F)
        return s > 0 && !done[act_id(c, s - 1, ACT_F, j)] ? act_id(c, s - 1, ACT_F, j) : -1;
    if (!done[act_id(c, s, ACT_F, j)])
        return act_id(c, s, ACT_F, j);
    if (s < c->S - 1 && !done[act_id(c, s + 1, ACT_B, j)])
        return act_id(c, s + 1, ACT_B, j);
    return -1;
}

/* Replay the rows, each rank running its next action once what it waits
 * for has run. Stuck: report an action waiting for one later in its own
 * row if there is one (a plain order error), else the lowest rank's. */
static int check_order(const struct check *c, char *err, size_t errlen)
{
    size_t n = (size_t)2 * c->S * c->m;
    bool *done = calloc(n, sizeof *done);
    int *next = malloc((size_t)c->R * sizeof *next);
    if (!done || !next) {
        free(done);
        free(next);
        return fail(err, errlen, "out of memory");
    }
    for (int r = 0; r < c->R; r++)
        next[r] = c->row_start[r];
    int left = c->nacts, rc = 0;
    while (left > 0) {
        bool moved = false;
        for (int r = 0; r < c->R; r++)
            while (next[r] < c->row_start[r + 1] && check_blocker(c, done, c->acts[next[r]]) < 0) {
                done[c->acts[next[r]++]] = true;
                left--;
                moved = true;
            }
        if (moved)
            continue;
        int pick = -1;
        for (int r = 0; r < c->R && pick < 0; r++) {
            if (next[r] == c->row_start[r + 1])
                continue;
            int dep = check_blocker(c, done, c->acts[next[r]]);
            if (c->where[dep].rank == r)
                pick = r;
        }
        for (int r = 0; r < c->R && pick < 0; r++)
            if (next[r] < c->row_start[r + 1])
                pick = r;
        int id = c->acts[next[pick]], dep = check_blocker(c, done, id);
        char a[32], b[32];
        rc = fail(err, errlen, "rank %d, column %d: %s before %s (rank %d, column %d)", pick,
                  c->cols[next[pick]], act_text(c, id, a, sizeof a), act_text(c, dep, b, sizeof b),
                  c->where[dep].rank, c->where[dep].col);
        break;
    }
    free(done);
    free(next);
    return rc;
}

int torch_schedule_validate(const char *csv, int nstages, int nranks, int m,
                            char *err, size_t errlen)
{
    if (!csv)
        return fail(err, errlen, "no schedule to check");
    if (nstages < 1 || nranks < 1 || m < 1 || m > INT_MAX / 4 / nstages)
        return fail(err, errlen, "cannot check %d stage%s on %d rank%s with %d micro-batch%s",
                    nstages, nstages == 1 ? "" : "s", nranks, nranks == 1 ? "" : "s", m,
                    m == 1 ? "" : "es");
    struct check c = { .S = nstages, .R = nranks, .m = m };
    size_t n = (size_t)2 * nstages * m;
    c.where = malloc(n * sizeof *c.where);
    c.stage_rank = malloc((size_t)nstages * sizeof *c.stage_rank);
    c.row_start = malloc(((size_t)nranks + 1) * sizeof *c.row_start);
    c.acts = malloc(n * sizeof *c.acts);
    c.cols = malloc(n * sizeof *c.cols);
    int rc;
    if (!c.where || !c.stage_rank || !c.row_start || !c.acts || !c.cols) {
        rc = fail(err, errlen, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++)
            c.where[i] = (struct cell){ -1, -1 };
        for (int s = 0; s < nstages; s++)
            c.stage_rank[s] = -1;
        rc = check_rows(&c, csv, err, errlen);
        if (rc == 0)
            rc = check_counts(&c, err, errlen);
        if (rc == 0)
            rc = check_order(&c, err, errlen);
    }
    free(c.where);
    free(c.stage_rank);
    free(c.row_start);
    free(c.acts);
    free(c.cols);
    return rc;
}

int torch_schedule_cells(const char *csv, char *err, size_t errlen)
{
    int rank = 0;
    for (const char *p = csv; *p; rank++) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *line_end = end > p && end[-1] == '\r' ? end - 1 : end;
        int col = 0;
        for (const char *b = p, *comma;; b = comma + 1, col++) {
            comma = memchr(b, ',', (size_t)(line_end - b));
            const char *e = comma ? comma : line_end, *cb = b, *ce = e;
            int s, kind, j;
            if (memchr(b, '"', (size_t)(e - b)))
                return cell_quoted(rank, col, err, errlen);
            if (cell_read(&cb, &ce, &s, &kind, &j) < 0)
                return cell_unreadable(rank, col, cb, ce, err, errlen);
            if (!comma)
                break;
        }
        p = eol ? eol + 1 : end;
    }
    return 0;
}

/* The counts a schedule CSV implies: its rows, and one more than the
 * largest stage and micro-batch among the cells that read as actions. */
int torch_schedule_shape(const char *csv, int *nstages, int *nranks, int *m, long *actions)
{
    long S = 0, R = 0, M = 0, A = 0;
    for (const char *p = csv; p && *p;) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        R++;
        for (const char *b = p; b < end;) {
            while (b < end && (*b == ' ' || *b == '\t'))
                b++;
            char *q;
            if (b < end && *b >= '0' && *b <= '9') {
                long st = strtol(b, &q, 10);
                if (q < end && (*q == 'F' || *q == 'B') && q[1] >= '0' && q[1] <= '9') {
                    long mb = strtol(q + 1, &q, 10);
                    if (st < INT_MAX && mb < INT_MAX) {
                        S = st + 1 > S ? st + 1 : S;
                        M = mb + 1 > M ? mb + 1 : M;
                        A++;
                    }
                }
            }
            const char *comma = memchr(b, ',', (size_t)(end - b));
            b = comma ? comma + 1 : end;
        }
        p = eol ? eol + 1 : end;
    }
    if (S == 0 || R > INT_MAX)
        return -1;
    *nstages = (int)S;
    *nranks = (int)R;
    *m = (int)M;
    *actions = A;
    return 0;
}

/* ---- a schedule file, as pipeplan check reads one -------------------- */

bool torch_schedule_is(const char *text, const char *name)
{
    const char *p = text_skip_bom(text);
    /* what the text is decides first: a spec file's first line is a
     * section or a comment (a file named .csv too), a schedule's a cell */
    const char *q = p + strspn(p, " \t\r\n");
    if (*q == '[' || *q == ';' || *q == '#')
        return false;
    size_t n = strlen(name);
    if (n >= 4 && strcmp(name + n - 4, ".csv") == 0)
        return true;
    q = p + strspn(p, " \t\r\n,");
    return *q >= '0' && *q <= '9';
}

/* What torch's _load_csv cannot take although the rows read: it opens
 * the file as plain UTF-8, so a byte order mark is part of the first
 * action, and csv.reader makes every blank line a row, that is one more
 * rank (then "Schedule has incorrect number of ranks"). The last line
 * break is no row. Returns 0, or -1 having said which line. */
static int file_layout(const char *text, int *line, char *err, size_t errlen)
{
    if (text_skip_bom(text) != text) {
        *line = 1;
        return fail(err, errlen, "a byte order mark before the first action, which torch's "
                    "_load_csv reads as part of it (expected the file saved without one)");
    }
    *line = 1;
    for (const char *p = text; *p; (*line)++) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (strspn(p, " \t\r") >= n)
            return fail(err, errlen, "a blank line, which torch's _load_csv reads as a rank "
                        "of no action (expected one row per rank and no other line)");
        p = eol ? eol + 1 : p + n;
    }
    *line = 0;
    return 0;
}

/* The schedule's rows, without the last line break. NULL: out of memory. */
static char *file_rows(const char *text)
{
    char *rows = strdup(text);
    if (!rows)
        return NULL;
    size_t n = strlen(rows);
    if (n > 0 && rows[n - 1] == '\n')
        rows[--n] = '\0';
    if (n > 0 && rows[n - 1] == '\r')
        rows[--n] = '\0';
    return rows;
}

int torch_schedule_read(const char *text, int *nstages, int *nranks, int *m, int *line,
                        char *err, size_t errlen)
{
    if (file_layout(text, line, err, errlen) < 0)
        return -1;
    char *rows = file_rows(text);
    if (!rows)
        return -2;
    int rc = 0;
    long actions = 0;
    if (torch_schedule_cells(rows, err, errlen) < 0) {
        /* a cell that does not read, before the count it would upset */
        rc = -1;
    } else if (torch_schedule_shape(rows, nstages, nranks, m, &actions) < 0) {
        /* a cell that does not read is named before this */
        *line = 1;
        rc = fail(err, errlen, "no action in the schedule (expected rows of cells such as "
                  "0F0 or 1B3, one row per rank)");
    } else if ((double)2 * *nstages * *m > (double)actions) {
        /* say so before the check sizes its tables by the largest
         * numbers named: 0F99999999 alone would take gigabytes */
        rc = fail(err, errlen, "%ld action%s for %d stage%s and %d micro-batch%s (expected "
                  "an F and a B for each stage and micro-batch: %.0f)", actions,
                  actions == 1 ? "" : "s", *nstages, *nstages == 1 ? "" : "s", *m,
                  *m == 1 ? "" : "es", (double)2 * *nstages * *m);
    } else {
        rc = torch_schedule_validate(rows, *nstages, *nranks, *m, err, errlen);
    }
    free(rows);
    return rc;
}
