/* export: the format table and the csv, plan, megatron and deepspeed
 * writers (table and json are report.c's, torch and torch-schedule
 * torch_export.c's). */
#include "export.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "planner.h"
#include "planfile.h"
#include "split.h"
#include "torch_export.h"
#include "units.h"

static int write_table(FILE *out, const struct export_input *in)
{
    return report_table(out, in->rep);
}

static int write_json(FILE *out, const struct export_input *in)
{
    return report_json(out, in->rep);
}

/* ---- csv ---- */

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A start time within the period, [0, T). */
static double in_period(double t, double T)
{
    double r = fmod(t, T);
    if (r < 0)
        r += T;
    return r >= T - PLAN_EPS * T ? 0.0 : r;
}

int export_csv(FILE *out, const struct problem *pb, const struct plan *pl)
{
    fputs("index,name,gpu,stage,forward_start_ms,backward_start_ms,in_flight,stored_bytes\n",
          out);
    int stage = 0;
    for (int i = 0; i < pl->L; i++) {
        if (i > 0 && pl->gpu[i] != pl->gpu[i - 1])
            stage++;
        fprintf(out, "%d,", i);
        csv_field(out, pb->names[i]);
        fprintf(out, ",%d,%d,%.6f,%.6f,%d,%.0f\n", pl->gpu[i], stage,
                in_period(pl->start[i], pl->T), in_period(pl->start[pl->L + i], pl->T),
                pl->copies[i], pb->s[i] * pl->copies[i]);
    }
    return ferror(out) ? -1 : 0;
}

static int write_csv(FILE *out, const struct export_input *in)
{
    return export_csv(out, in->rep->pb, in->res->plan);
}

/* ---- plan file ---- */

static int write_plan(FILE *out, const struct export_input *in)
{
    return planfile_write(out, in->rep->pb, in->res->plan, planner_title(in->res->planner));
}

static int check_plan(const struct export_input *in, char *err, size_t errlen)
{
    return planfile_check(in->res->plan, err, errlen);
}

/* ---- Megatron-Core ---- */

static int megatron_layout(const struct export_input *in, struct split_megatron *m, char *err,
                           size_t errlen)
{
    const struct problem *pb = in->rep->pb;
    return split_megatron_write(in->res->plan->gpu, pb->names, pb->L, pb->P, pb->cap,
                                pb->reserved, pb, m, err, errlen);
}

static int check_megatron(const struct export_input *in, char *err, size_t errlen)
{
    struct split_megatron m;
    int rc = megatron_layout(in, &m, err, errlen);
    split_megatron_clear(&m);
    return rc;
}

static int network_megatron(const struct problem *pb, char *err, size_t errlen)
{
    char why[256];
    if (split_transformer_layers(pb->names, pb->L, why, sizeof why) < 0) {
        snprintf(err, errlen, "Megatron's layout needs a transformer network: %s", why);
        return -1;
    }
    return 0;
}

/* Which of the plan's GPUs (pb's ranks with tensor parallelism) each
 * runtime rank or stage is. */
static void rank_comment(FILE *out, const struct problem *pb, const int *gpu_of_rank, int P,
                         const char *what)
{
    const char *gpu = problem_gpu_word(pb, false), *gpus = problem_gpu_word(pb, true);
    bool identity = true;
    for (int r = 0; r < P; r++)
        identity = identity && gpu_of_rank[r] == r;
    if (identity) {
        fprintf(out, "# %s r is pipeplan %s r\n", what, gpu);
        return;
    }
    fprintf(out, "# %s renumbered (only among %s of equal memory):", gpus, gpus);
    for (int r = 0; r < P; r++)
        if (gpu_of_rank[r] >= 0)
            fprintf(out, "%s %s %d = pipeplan %s %d", r ? "," : "", what, r, gpu,
                    gpu_of_rank[r]);
    fputc('\n', out);
}

/* Two times into a and b (len each), with the digits that tell them apart:
 * "21.5 ms" twice says they are the same. Returns a. */
static char *times_apart(double x, double y, char *a, char *b, size_t len)
{
    units_format_time(x, a, len);
    units_format_time(y, b, len);
    for (int d = 2; d <= 6 && strcmp(a, b) == 0; d++) {
        snprintf(a, len, "%.*f ms", d, x);
        snprintf(b, len, "%.*f ms", d, y);
    }
    return a;
}

/* A runtime that runs its own 1F1B order (Megatron, DeepSpeed) runs the
 * plan's split, not its schedule: what pipeplan judges that order to
 * take (planner_judge_1f1b, as for "your split" in its terms: on the
 * runtime's `ranks`, GPU g on rank rank[g], those with no layer counted),
 * when it is slower; for an interleaved split, whose order pipeplan does
 * not model, what the split takes in the order pipeplan gives it. */
static void runtime_note(FILE *out, const struct export_input *in, const char *runtime,
                         const int *rank, int ranks)
{
    const struct problem *pb = in->rep->pb;
    const struct plan *pl = in->res->plan;
    struct planner_result r;
    memset(&r, 0, sizeof r);
    int *gpu = malloc((size_t)pb->L * sizeof *gpu);
    if (!gpu)
        return;
    for (int i = 0; i < pb->L; i++)
        gpu[i] = rank[pl->gpu[i]];
    if (pb->schedule == SPEC_SCHEDULE_PIPEDREAM) {
        /* these runtimes flush every iteration: PipeDream's asynchronous
         * schedule (no flush, stashed weights) is none of theirs, and its
         * period no time of theirs */
        struct problem *q = problem_copy(pb);
        if (q) {
            q->schedule = SPEC_SCHEDULE_1F1B;
            int rc = planner_judge_1f1b(q, gpu, ranks, runtime, &r);
            char a[32];
            if (rc >= 0 && r.plan)
                fprintf(out, "# note: %s flushes every iteration: it runs this split as 1F1B, "
                        "which pipeplan judges at an iteration of %s (--schedule 1f1b)%s; the "
                        "plan's period is that of PipeDream's asynchronous schedule, which "
                        "neither %s nor torch.distributed.pipelining runs\n", runtime,
                        units_format_time(r.plan->objective, a, sizeof a),
                        r.plan->fits ? "" : ", where it does not fit", runtime);
            problem_free(q);
        }
        free(gpu);
        planner_result_clear(&r);
        return;
    }
    int rc = planner_judge_1f1b(pb, gpu, ranks, runtime, &r);
    free(gpu);
    if (rc >= 0 && r.plan && r.plan->objective > pl->objective * (1 + 1e-3)) {
        char a[32], b[32];
        fprintf(out, "# note: %s runs this split in its own %s, which pipeplan judges "
                "at an iteration of %s%s; the plan's %s is that of its own order, which "
                "torch.distributed.pipelining runs from the torch-schedule export\n", runtime,
                rc == 0 ? "1F1B order" : "order (no steady 1F1B here, interleaved or of fewer "
                "micro-batches than stages: pipeplan's list schedule of the split)",
                times_apart(r.plan->objective, pl->objective, a, b, sizeof a),
                r.plan->fits || !pl->fits ? "" : ", where it does not fit", b);
    }
    planner_result_clear(&r);
}

/* Megatron's arguments for a tensor-parallel network: its group size, and
 * sequence parallelism, which the network's activations and cuts assume
 * (shards of S/T; Megatron leaves it off unless asked) */
static void tp_args(FILE *out, long tp)
{
    if (tp > 1)
        fprintf(out, " --tensor-model-parallel-size %ld --sequence-parallel", tp);
}

/* v == 1: the ranks that hold no layer; Megatron still passes every
 * micro-batch through them, a cost the plan does not have. Say so, with
 * the same split on the ranks that hold layers. */
static void megatron_idle(FILE *out, const struct split_megatron *m, const struct plan *pl, int P,
                          long tp)
{
    int idle = 0;
    for (int r = 0; r < P; r++) {
        bool used = false;
        for (int i = 0; i < pl->L && !used; i++)
            used = pl->gpu[i] == m->gpu[r];
        if (!used) {
            fprintf(out, "%s %d", idle ? "," : "# warning: ranks holding no layer:", r);
            idle++;
        }
    }
    if (!idle)
        return;
    fprintf(out, "; Megatron passes every micro-batch through %s (a receive and a send each "
            "way), which the plan does not count\n# the same split on the %d ranks that hold "
            "layers: --pipeline-model-parallel-size %d --pipeline-model-parallel-layout \"",
            idle == 1 ? "it" : "them", P - idle, P - idle);
    bool first = true;
    for (const char *p = m->layout; *p;) {
        size_t n = strcspn(p, "|");
        if (n > 0) {
            fprintf(out, "%s%.*s", first ? "" : "|", (int)n, p);
            first = false;
        }
        p += n + (p[n] == '|');
    }
    fputs("\"", out);
    tp_args(out, tp);
    fputs("\n", out);
}

/* The same split in the arguments Megatron had before the layout, when
 * they can say it: one stage a rank, every rank holding layers, the
 * ranks between the first and the last holding as many (what
 * --decoder-first/last-pipeline-num-layers leave to them). gpu is the
 * plan's, a transformer network's (E, t..., norm, output). */
static void megatron_uneven(FILE *out, const struct split_megatron *m, const int *gpu, int L,
                            int P, long tp)
{
    if (P < 2)
        return;
    int *count = calloc((size_t)P, sizeof *count);
    if (!count)
        return;
    for (int i = 1; i < L - 2; i++)
        count[m->rank[gpu[i]]]++;
    bool ok = true;
    for (int r = 0; r < P; r++)
        ok = ok && count[r] > 0 && (r == 0 || r == P - 1 || count[r] == count[1]);
    if (ok) {
        fprintf(out, "# the same split in the arguments of Megatron before the layout: "
                "--pipeline-model-parallel-size %d --decoder-first-pipeline-num-layers %d "
                "--decoder-last-pipeline-num-layers %d", P, count[0], count[P - 1]);
        tp_args(out, tp);
        fputs("\n", out);
    }
    free(count);
}

/* v > 1: what Megatron-Core's interleaved 1F1B asks that a plan's own
 * order does not. Its micro-batches go round in groups of
 * microbatch_group_size_per_vp_stage, P by default
 * (model_parallel_config.py); the schedule refuses fewer micro-batches
 * than a group, and a count that is no multiple of it (schedules.py,
 * forward_backward_pipelining_with_interleaving). And every micro-batch
 * goes through each of the P x V model chunks, an empty one too. */
static void megatron_interleaved(FILE *out, const struct split_megatron *m,
                                 const struct problem *pb)
{
    if (pb->m < pb->P || pb->m % pb->P != 0)
        fprintf(out, "# warning: Megatron-Core's interleaved schedule refuses %ld micro-batch%s "
                "on %d pipeline ranks (it takes a multiple of the ranks, its "
                "microbatch_group_size_per_vp_stage); plan with --micro-batches %ld, or one stage "
                "a rank (--layout contiguous)\n", pb->m, pb->m == 1 ? "" : "es", pb->P,
                pb->m < pb->P ? (long)pb->P : (pb->m / pb->P + 1) * pb->P);
    int empty = 0, chunks = 0;
    for (const char *p = m->layout;; chunks++) {
        size_t n = strcspn(p, "|");
        empty += n == 0;
        if (!p[n])
            break;
        p += n + 1;
    }
    chunks++;
    if (empty > 0)
        fprintf(out, "# warning: %d of the %d model chunks hold no layer; Megatron passes every "
                "micro-batch through each of them (a receive and a send each way), which the "
                "plan does not count\n", empty, chunks);
}

static int write_megatron(FILE *out, const struct export_input *in)
{
    const struct problem *pb = in->rep->pb;
    struct split_megatron m;
    char err[320];
    if (megatron_layout(in, &m, err, sizeof err) < 0)
        return -1;
    char name[1024];   /* a comment line: a CR in the name would end it */
    fprintf(out, "# Megatron-Core arguments for %s, plan: %s (pipeplan); %s\n",
            text_escape(pb->network, name, sizeof name), planner_title(in->res->planner),
            in->res->plan->fits ? "it fits" : "it does not fit");
    fprintf(out, "# %d stage%s = %d pipeline rank%s x %d virtual stage%s; stage k runs on "
            "rank k mod %d\n", m.stages, m.stages == 1 ? "" : "s", pb->P, pb->P == 1 ? "" : "s",
            m.virtual_stages, m.virtual_stages == 1 ? "" : "s", pb->P);
    if (m.virtual_stages > 1)
        fprintf(out, "# Megatron derives the %d virtual stages per rank from the layout (it "
                "refuses --num-virtual-stages-per-pipeline-rank beside it)\n",
                m.virtual_stages);
    fprintf(out, "# E = tok_embeddings, t = layers.0 .. layers.%d in order, L = norm + output; "
            "--num-layers must be %d\n", pb->L - 4, pb->L - 3);
    rank_comment(out, pb, m.gpu, pb->P, "rank");
    /* Megatron's own 1F1B keeps min(P - r, m) micro-batches in flight on
     * rank r; a plan that keeps fewer (a longer period, or another order)
     * needs that order run, which Megatron's schedule does not do */
    const struct plan *pl = in->res->plan;
    for (int r = 0; m.virtual_stages == 1 && r < pb->P; r++) {
        long want = pb->P - r < pb->m ? pb->P - r : pb->m;
        int fewest = -1;
        for (int i = 0; i < pb->L; i++)
            if (pl->gpu[i] == m.gpu[r] && (fewest < 0 || pl->copies[i] < fewest))
                fewest = pl->copies[i];
        if (fewest >= 0 && fewest < want)
            fprintf(out, "# warning: on rank %d the plan keeps %d micro-batch%s in flight where "
                    "Megatron's 1F1B keeps %ld: there Megatron needs more memory than planned "
                    "(the torch-schedule export runs the plan's own order)\n", r, fewest,
                    fewest == 1 ? "" : "es", want);
    }
    /* the interleaved 1F1B (schedules.py, forward_backward_pipelining_
     * with_interleaving) warms up (P - r - 1) * 2 + (V - 1) * P chunk
     * forwards on rank r (the micro-batch group being P by default), so
     * holds one more at its peak; all m * V when m is P */
    for (int r = 0; m.virtual_stages > 1 && r < pb->P; r++) {
        long V = m.virtual_stages;
        long want = (long)(pb->P - r - 1) * 2 + (V - 1) * pb->P + 1;
        if (pb->m == pb->P || want > pb->m * V)
            want = pb->m * V;
        long kept = 0;
        int most = 0;
        for (int i = 0; i < pb->L; i++) {
            if (pl->gpu[i] != m.gpu[r])
                continue;
            if (i > 0 && pl->gpu[i - 1] == pl->gpu[i]) {
                most = pl->copies[i] > most ? pl->copies[i] : most;
                continue;
            }
            kept += most;
            most = pl->copies[i];
        }
        kept += most;
        if (kept < want)
            fprintf(out, "# warning: on rank %d the plan keeps %ld chunk-micro-batch%s in "
                    "flight (its %ld stages together) where Megatron's interleaved 1F1B keeps "
                    "up to %ld: there Megatron may need more memory than planned (the "
                    "torch-schedule export runs the plan's own order)\n", r, kept,
                    kept == 1 ? "" : "es", V, want);
    }
    if (m.virtual_stages == 1) {
        megatron_idle(out, &m, pl, pb->P, in->tensor_parallel);
        megatron_uneven(out, &m, pl->gpu, pb->L, pb->P, in->tensor_parallel);
    } else {
        megatron_interleaved(out, &m, pb);
    }
    runtime_note(out, in, "Megatron", m.rank, pb->P);
    fprintf(out, "--pipeline-model-parallel-size %d --pipeline-model-parallel-layout \"%s\"",
            pb->P, m.layout);
    tp_args(out, in->tensor_parallel);
    fputc('\n', out);
    split_megatron_clear(&m);
    return ferror(out) ? -1 : 0;
}

/* ---- DeepSpeed ---- */

static int deepspeed_parts(const struct export_input *in, int *parts, int *rank, char *err,
                           size_t errlen)
{
    const struct problem *pb = in->rep->pb;
    return split_deepspeed_parts(in->res->plan->gpu, pb->L, pb->P, pb->cap, pb->reserved, pb,
                                 parts, rank, err, errlen);
}

static int check_deepspeed(const struct export_input *in, char *err, size_t errlen)
{
    int P = in->rep->pb->P;
    int *parts = malloc((size_t)(P + 1) * sizeof *parts), *rank = malloc((size_t)P * sizeof *rank);
    int rc = -1;
    if (!parts || !rank)
        snprintf(err, errlen, "out of memory");
    else
        rc = deepspeed_parts(in, parts, rank, err, errlen) < 0 ? -1 : 0;
    free(parts);
    free(rank);
    return rc;
}

static int write_deepspeed(FILE *out, const struct export_input *in)
{
    const struct problem *pb = in->rep->pb;
    int P = pb->P;
    int *parts = malloc((size_t)(P + 1) * sizeof *parts), *rank = malloc((size_t)P * sizeof *rank);
    int *gpu_of = malloc((size_t)P * sizeof *gpu_of);
    char err[320];
    int stages = parts && rank && gpu_of ? deepspeed_parts(in, parts, rank, err, sizeof err) : -1;
    if (stages < 0) {
        free(parts);
        free(rank);
        free(gpu_of);
        return -1;
    }
    for (int r = 0; r < P; r++)
        gpu_of[r] = -1;
    for (int g = 0; g < P; g++)
        if (rank[g] >= 0)
            gpu_of[rank[g]] = g;
    char name[1024];   /* a Python comment: a CR in the name would end it */
    fprintf(out, "# DeepSpeed PipelineModule partition for %s, plan: %s (pipeplan); %s\n",
            text_escape(pb->network, name, sizeof name), planner_title(in->res->planner),
            in->res->plan->fits ? "it fits" : "it does not fit");
    fprintf(out, "# num_stages=%d; the layers list holds pipeplan's %d layers in order; "
            "parts[s] is the first layer of stage s, parts[%d] the layer count\n", stages,
            pb->L, stages);
    fprintf(out, "# PipelineModule takes no such list (partition_method is 'uniform', "
            "'parameters' or 'type:REGEX'):\n");
    fprintf(out, "# subclass it and override _partition_layers to set self.parts = parts and "
            "call self._set_bounds(start=self.parts[stage_id], stop=self.parts[stage_id + 1])\n");
    if (stages < P)
        /* PipelineModule refuses a world size num_stages does not divide
         * (its ranks are processes: a tensor-parallel plan's ranks are
         * called pipeline ranks beside them) */
        fprintf(out, "# %d of the %d %s%s hold layers: launch on %d ranks (or a multiple of "
                "%d, the rest data parallel), as DeepSpeed needs num_stages to divide the "
                "world size\n", stages, P, pb->tp > 1 ? "pipeline " : "",
                problem_gpu_word(pb, true), stages * pb->tp, stages * pb->tp);
    if (pb->tp > 1)
        fprintf(out, "# tensor parallel %d: each stage is a group of %d GPUs; pass "
                "topology=PipeModelDataParallelTopology(num_pp=%d, num_mp=%d, num_dp=...) "
                "and shard the layers (e.g. Megatron-DeepSpeed's --tensor-model-parallel-size "
                "%d), with sequence parallelism: the network's activations and cuts are its "
                "shards\n", pb->tp, pb->tp, stages, pb->tp, pb->tp);
    runtime_note(out, in, "DeepSpeed", rank, stages);
    rank_comment(out, pb, gpu_of, stages, "stage");
    fputs("parts = [", out);
    for (int s = 0; s <= stages; s++)
        fprintf(out, "%s%d", s ? ", " : "", parts[s]);
    fputs("]\n", out);
    free(parts);
    free(rank);
    free(gpu_of);
    return ferror(out) ? -1 : 0;
}

/* ---- torch.distributed.pipelining (torch_export.c) ---- */

static int check_torch(const struct export_input *in, char *err, size_t errlen)
{
    const struct problem *pb = in->rep->pb;
    if (torch_stage_count(in->res->plan) < 0 || in->res->plan->L != pb->L) {
        snprintf(err, errlen, "the plan does not match the network's %d layers", pb->L);
        return -1;
    }
    for (int i = 0; i < pb->L; i++)
        if (!pb->names || !pb->names[i] || !pb->names[i][0]) {
            snprintf(err, errlen, "layer %d has no name (torch needs module names)", i);
            return -1;
        }
    /* both unroll the iteration (the program picks its schedule class
     * from that order): refused here, before the writer allocates it */
    return torch_schedule_size(pb, in->res->plan, err, errlen);
}

static int write_torch(FILE *out, const struct export_input *in)
{
    char err[320];
    return torch_export_program(out, in->rep->pb, in->res->plan, err, sizeof err);
}

static int write_torch_schedule(FILE *out, const struct export_input *in)
{
    char err[320];
    return torch_export_schedule(out, in->rep->pb, in->res->plan, err, sizeof err);
}

/* ---- the table ---- */

static const struct export_format formats[] = {
    { "table", "the table solve prints", "txt", false, NULL, write_table, NULL },
    { "json", "JSON, as solve --json", "json", false, NULL, write_json, NULL },
    { "csv", "one row per layer", "csv", true, NULL, write_csv, NULL },
    { "plan", "plan file, read back by --plan", "plan", true, check_plan, write_plan, NULL },
    { "megatron", "Megatron-Core arguments", "args", true, check_megatron, write_megatron,
      network_megatron },
    { "deepspeed", "DeepSpeed parts list", "py", true, check_deepspeed, write_deepspeed, NULL },
    { "torch", "torch.distributed.pipelining stages", "py", true, check_torch, write_torch, NULL },
    { "torch-schedule", "torch schedule CSV (compute_only)", "csv", true, check_torch,
      write_torch_schedule, NULL },
};

#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

int export_count(void)
{
    return NFORMATS;
}

const struct export_format *export_format_at(int i)
{
    return i >= 0 && i < NFORMATS ? &formats[i] : NULL;
}

const struct export_format *export_find(const char *name)
{
    for (int i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

const char *export_names(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < NFORMATS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : i + 1 == NFORMATS
                              ? " or " : ", ", formats[i].name);
    return buf;
}

struct file_ctx {
    const struct export_format *f;
    const struct export_input *in;
};

static int file_writer(FILE *out, void *ctx)
{
    const struct file_ctx *c = ctx;
    return c->f->write(out, c->in);
}

int export_file(const char *path, bool force, const struct export_format *f,
                const struct export_input *in, char *err, size_t errlen)
{
    struct file_ctx ctx = { f, in };
    return fileio_write_atomic(path, force, file_writer, &ctx, err, errlen);
}
