/* Tests for the torch and torch-schedule exports: the worked plans of
 * doc/model.md section 9 give hand-worked CSVs, the validator rejects
 * crafted bad schedules with exact messages, and every plan of random
 * problems (schedule builder and baselines) exports a schedule the
 * validator accepts and a program naming every layer once, in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "schedule.h"
#include "simulate.h"
#include "split.h"
#include "torch_export.h"

typedef int (*export_fn)(FILE *, const struct problem *, const struct plan *, char *, size_t);

/* Exports land here, so a failed assertion leaks nothing. */
static char text[1 << 18];

static const char *export_text(export_fn fn, const struct problem *pb, const struct plan *pl)
{
    char err[256] = "";
    FILE *f = fmemopen(text, sizeof text, "w");
    assert_non_null(f);
    int rc = fn(f, pb, pl, err, sizeof err);
    long len = ftell(f);
    fclose(f);
    if (rc != 0)
        fail_msg("export failed: %s", err);
    if (len < 0 || (size_t)len >= sizeof text - 1)
        fail_msg("export does not fit the test's buffer");
    text[len] = '\0';
    return text;
}

/* A plan owned by a tracked result, freed by the teardown on failure. */
static struct plan *tracked_plan(struct planner_result *res, int L, int P)
{
    memset(res, 0, sizeof *res);
    res->plan = plan_new(L, P);
    assert_non_null(res->plan);
    fx_track_result(res);
    return res->plan;
}

/* doc/model.md section 9: f = 1, b = 2, no transfers, two GPUs, T = 6. */
static struct problem *pb_worked(long m, enum spec_schedule sched)
{
    struct problem *pb = fx_problem(4, 2, 1, LAYOUT_ANY);
    for (int i = 0; i < 4; i++) {
        pb->f[i] = 1;
        pb->b[i] = 2;
        pb->s[i] = (4 - i) * GB;
        pb->cap[i % 2] = 100 * GB;
    }
    pb->m = m;
    pb->schedule = sched;
    return pb;
}

/* gpu[] and the starts of F0..F3 then B0..B3, checked by the simulator. */
static void plan_set(struct plan *pl, const struct problem *pb, const int *gpu,
                     const double *start)
{
    memcpy(pl->gpu, gpu, 4 * sizeof *gpu);
    memcpy(pl->start, start, 8 * sizeof *start);
    pl->T = 6;
    assert_int_equal(plan_evaluate(pl, pb), 0);
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) != SIM_OK)
        fail_msg("hand-made plan rejected: %s", rep.reason);
}

static void assert_valid(const char *csv, int S, int R, int m)
{
    char err[256] = "";
    if (torch_schedule_validate(csv, S, R, m, err, sizeof err) != 0)
        fail_msg("validator rejects:\n%s\n%s", csv, err);
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("missing \"%s\" in:\n%s", needle, hay);
}

/* {0,1 | 2,3}, starts F 0 1 2 3, B 10 8 6 4: the classic 1F1B order. */
static void test_schedule_contiguous(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 0, 1, 1 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(3, SPEC_SCHEDULE_1F1B);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    const char *csv = export_text(torch_export_schedule, pb, pl);
    assert_string_equal(csv, "0F0,0F1,0B0,0F2,0B1,0B2\n"
                             "1F0,1B0,1F1,1B1,1F2,1B2\n");
    assert_valid(csv, 2, 2, 3);
    assert_int_equal(torch_stage_count(pl), 2);
    assert_int_equal(torch_rank_count(pl), 2);
    fx_result_clear(&res);
}

/* {0,3 | 1,2}, starts F 0 1 2 3, B 13 11 9 4: a V (rank 0 holds layers 0
 * and 3, rank 1 the middle run 1-2), whose middle run is cut in two
 * stages, 1 and 2, where its compute halves: stages 0 and 3 on rank 0,
 * 1 and 2 on rank 1. Rank 0: F of stage 0 at 0 6 12, of stage 3 at 3 9
 * 15, B of stage 3 at 4 10 16, of stage 0 at 13 19 25; rank 1: F of
 * stage 1 at 1 7 13, of stage 2 at 2 8 14, B of stage 2 at 9 15 21, of
 * stage 1 at 11 17 23. */
static void test_schedule_noncontiguous(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 1, 1, 0 };
    static const double start[8] = { 0, 1, 2, 3, 13, 11, 9, 4 };
    struct problem *pb = pb_worked(3, SPEC_SCHEDULE_PIPEDREAM);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    const char *csv = export_text(torch_export_schedule, pb, pl);
    assert_string_equal(csv, "0F0,3F0,3B0,0F1,3F1,3B1,0F2,0B0,3F2,3B2,0B1,0B2\n"
                             "1F0,2F0,1F1,2F1,2B0,1B0,1F2,2F2,2B1,1B1,2B2,1B2\n");
    assert_valid(csv, 4, 2, 3);
    assert_int_equal(torch_stage_count(pl), 4);
    assert_int_equal(torch_rank_count(pl), 2);
    fx_result_clear(&res);
}

/* Stages are maximal runs, but for a V's middle run (runs s and 2R-2-s
 * on one GPU, R GPUs, 2R-1 runs), which counts two when it can be cut. */
static void test_stage_count_v(void **state)
{
    (void)state;
    static const struct {
        int gpu[4], stages;
    } cases[] = {
        { { 0, 1, 1, 0 }, 4 },      /* a V: its middle run cut */
        { { 1, 0, 0, 1 }, 4 },      /* the same on the other GPUs */
        { { 0, 1, 0, 1 }, 4 },      /* four runs, no V */
        { { 0, 1, 0, 0 }, 3 },      /* a V whose middle run is one layer */
        { { 0, 0, 1, 0 }, 3 },      /* likewise */
        { { 0, 1, 1, 1 }, 2 },      /* contiguous */
        { { 0, 0, 0, 0 }, 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct planner_result res;
        struct plan *pl = tracked_plan(&res, 4, 2);
        memcpy(pl->gpu, cases[k].gpu, sizeof cases[k].gpu);
        if (torch_stage_count(pl) != cases[k].stages)
            fail_msg("case %zu: %d stages, expected %d", k, torch_stage_count(pl),
                     cases[k].stages);
        fx_result_clear(&res);
    }
}

/* A V on two GPUs, layers 0 and 5 on GPU 0, 1-4 on GPU 1: the middle run
 * is cut where its compute halves (layer 1 holds 8 of its 14 ms: stages
 * {1} and {2, 3, 4}, not two layers each), and the program places the
 * four stages as torchtitan's V schedules do; torchtitan's own list for
 * the V placement reads back as the same plan and is written as it was
 * given. */
static void test_program_v(void **state)
{
    (void)state;
    static const int gpu[6] = { 0, 1, 1, 1, 1, 0 };
    struct problem *pb = fx_problem(6, 2, 4, LAYOUT_ANY);
    for (int i = 0; i < 6; i++) {
        pb->f[i] = i == 1 ? 4 : 1;
        pb->b[i] = pb->f[i];
        pb->cap[i % 2] = 100 * GB;
    }
    pb->m = 4;
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 6, 2);
    memcpy(pl->gpu, gpu, sizeof gpu);
    assert_int_equal(schedule_build(pl, pb), 0);
    const char *py = export_text(torch_export_program, pb, pl);
    assert_contains(py, "    [\"l0\"],  # stage 0: rank 0 (pipeplan GPU 0)\n"
                        "    [\"l1\"],  # stage 1: rank 1 (pipeplan GPU 1)\n"
                        "    [\"l2\", \"l3\", \"l4\"],  # stage 2: rank 1 (pipeplan GPU 1)\n"
                        "    [\"l5\"],  # stage 3: rank 0 (pipeplan GPU 0)\n]\n");
    assert_contains(py, "stage_to_rank = [0, 1, 1, 0]\n");
    assert_contains(py, "# pipeline_parallel_schedule = \"ZBVZeroBubble\"\n");
    const char *csv = export_text(torch_export_schedule, pb, pl);
    assert_valid(csv, 4, 2, 4);

    int back[6];
    char err[256] = "";
    if (split_torchtitan_parse("v:[[\"l0\"], [\"l1\"], [\"l2\", \"l3\", \"l4\"], [\"l5\"]]",
                               pb->names, 6, 2, back, err, sizeof err) != 2)
        fail_msg("%s", err);
    assert_memory_equal(back, gpu, sizeof gpu);
    fx_result_clear(&res);
}

/* GPU numbers are not ranks: the GPU holding layer 0 is rank 0. */
static void test_schedule_ranks_follow_stages(void **state)
{
    (void)state;
    static const int gpu[4] = { 1, 1, 0, 0 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(2, SPEC_SCHEDULE_1F1B);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    assert_string_equal(export_text(torch_export_schedule, pb, pl),
                        "0F0,0F1,0B0,0B1\n"
                        "1F0,1B0,1F1,1B1\n");
    assert_contains(export_text(torch_export_program, pb, pl),
                    "[\"l0\", \"l1\"],  # stage 0: rank 0 (pipeplan GPU 1)\n");
    assert_contains(text, "rank_gpu = [1, 0]\n");
    fx_result_clear(&res);
}

static void test_program_contiguous(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 0, 1, 1 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(3, SPEC_SCHEDULE_1F1B);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    const char *py = export_text(torch_export_program, pb, pl);
    assert_contains(py, "module_fqns_per_model_part = [\n"
                        "    [\"l0\", \"l1\"],  # stage 0: rank 0 (pipeplan GPU 0)\n"
                        "    [\"l2\", \"l3\"],  # stage 1: rank 1 (pipeplan GPU 1)\n"
                        "]\nnum_stages = 2\n");
    assert_contains(py, "stage_to_rank = [0, 1]\n");
    assert_contains(py, "pp_degree = 2  # pipeline ranks\nn_microbatches = 3  # per step()\n");
    assert_contains(py, "split_spec = {\n    \"l2\": SplitPoint.BEGINNING,\n}\n");
    assert_contains(py, "schedule_class = \"Schedule1F1B\"\n");
    assert_contains(py, "return Schedule1F1B(stages[0], n_microbatches=n_microbatches, "
                        "loss_fn=loss_fn)\n");
    assert_contains(py, "rename them where they differ");
    assert_contains(py, "torch's multi-stage schedules support no skip connections");
    assert_contains(py, "# pipeline_parallel_schedule = \"1F1B\"\n");
    assert_null(strstr(py, "pipeline_parallel_schedule_csv"));
    assert_null(strstr(py, "\"l0\": SplitPoint"));
    fx_result_clear(&res);
}

static void test_program_noncontiguous(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 1, 1, 0 };
    static const double start[8] = { 0, 1, 2, 3, 13, 11, 9, 4 };
    struct problem *pb = pb_worked(3, SPEC_SCHEDULE_PIPEDREAM);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    const char *py = export_text(torch_export_program, pb, pl);
    assert_contains(py, "stage_to_rank = [0, 1, 1, 0]\n");
    assert_contains(py, "split_spec = {\n    \"l1\": SplitPoint.BEGINNING,\n"
                        "    \"l2\": SplitPoint.BEGINNING,\n"
                        "    \"l3\": SplitPoint.BEGINNING,\n}\n");
    assert_contains(py, "schedule_class = \"_PipelineScheduleRuntime\"\n");
    assert_contains(py, "schedule._load_csv(schedule_csv)");
    /* a V is not stage s on rank s % 2, which torch before 2.7 assumed */
    assert_contains(py, "    # stage_index_to_group_rank=dict(enumerate(stage_to_rank)) to it above.\n"
                        "    schedule._load_csv(schedule_csv)");
    assert_contains(py, "This is a pipedream plan");
    assert_contains(py, "# pipeline_parallel_schedule = \"ZBVZeroBubble\"\n");
    fx_result_clear(&res);

    /* stages 0 and 2 on rank 0, 1 and 3 on rank 1: neither placement */
    static const int loop4[4] = { 0, 1, 0, 1 };
    pl = tracked_plan(&res, 4, 2);
    memcpy(pl->gpu, loop4, sizeof loop4);
    pl->T = 12;
    for (int o = 0; o < 8; o++)
        pl->start[o] = o < 4 ? o : 4 + 2 * (7 - o);
    py = export_text(torch_export_program, pb, pl);
    assert_contains(py, "stage_to_rank = [0, 1, 0, 1]\n");
    assert_contains(py, "# pipeline_parallel_schedule = \"Interleaved1F1B\"\n");
    /* the placement every torch release assumes: nothing to pass */
    assert_contains(py, "schedule._load_csv(schedule_csv)");
    assert_null(strstr(py, "stage_index_to_group_rank"));
    fx_result_clear(&res);
}

/* torchtitan's names, one stage per rank but fewer micro-batches than
 * stages: no rename note, the CSV and the torchtitan keys. */
static void test_program_torchtitan(void **state)
{
    (void)state;
    static const char *names[4] = { "tok_embeddings", "layers.0", "norm", "output" };
    static const int gpu[4] = { 0, 0, 1, 1 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(1, SPEC_SCHEDULE_1F1B);
    for (int i = 0; i < 4; i++)
        snprintf(pb->names[i], 16, "%s", names[i]);
    pb->micro_batch = 8;
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    const char *py = export_text(torch_export_program, pb, pl);
    assert_null(strstr(py, "rename them"));
    assert_contains(py, "Schedule1F1B needs at least as many micro-batches as stages");
    assert_contains(py, "# [parallelism]\n# pipeline_parallel_degree = 2\n"
                        "# pipeline_parallel_schedule = \"1F1B\"\n"
                        "# pipeline_parallel_schedule_csv = \"schedule.csv\"\n"
                        "# pipeline_parallel_microbatch_size = 8\n"
                        "# module_fqns_per_model_part = [\n"
                        "#    [\"tok_embeddings\", \"layers.0\"],\n"
                        "#    [\"norm\", \"output\"],\n# ]\n");
    assert_contains(py, "# local_batch_size = 8 ");
    assert_contains(py, "releases from August 2026 give the\n# batch in tokens");
    fx_result_clear(&res);
}

/* Quotes and control bytes in names stay one string literal. */
static void test_program_quotes_names(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 0, 0, 0 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(1, SPEC_SCHEDULE_1F1B);
    snprintf(pb->names[1], 16, "a\"b\\c\td");
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    memcpy(pl->gpu, gpu, sizeof gpu);
    memcpy(pl->start, start, sizeof start);
    pl->T = 12;
    assert_int_equal(plan_evaluate(pl, pb), 0);
    assert_contains(export_text(torch_export_program, pb, pl),
                    "[\"l0\", \"a\\\"b\\\\c\\u0009d\", \"l2\", \"l3\"],");
    assert_string_equal(export_text(torch_export_schedule, pb, pl), "0F0,0B0\n");
    fx_result_clear(&res);
}

static void test_export_refuses(void **state)
{
    (void)state;
    struct problem *pb = pb_worked(2, SPEC_SCHEDULE_1F1B);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    char err[256];
    FILE *f = fmemopen(text, sizeof text, "w");
    assert_non_null(f);
    pl->T = 6;
    pl->gpu[2] = 2;
    assert_int_equal(torch_export_schedule(f, pb, pl, err, sizeof err), -1);
    assert_string_equal(err, "malformed plan: no layers, or a layer on no GPU");
    pl->gpu[2] = 1;
    pl->T = 0;
    assert_int_equal(torch_export_schedule(f, pb, pl, err, sizeof err), -1);
    assert_string_equal(err, "malformed plan: no positive period or a start time that is "
                             "not a number");
    pl->T = 6;
    free(pb->names[3]);
    pb->names[3] = NULL;
    assert_int_equal(torch_export_program(f, pb, pl, err, sizeof err), -1);
    assert_string_equal(err, "layer 3 has no name");
    fclose(f);
    fx_result_clear(&res);
}

/* The cap of ten million actions: 2 stages x 2500000 micro-batches x F
 * and B is at it, one more micro-batch over it, refused by the size check
 * and by the writers before they allocate (2 x 2 x 1e9 actions would be
 * some 68 GB). Only the size is asked at the cap: building it takes
 * seconds. */
static void test_export_cap(void **state)
{
    (void)state;
    static const int gpu[4] = { 0, 0, 1, 1 };
    static const double start[8] = { 0, 1, 2, 3, 10, 8, 6, 4 };
    struct problem *pb = pb_worked(3, SPEC_SCHEDULE_1F1B);
    struct planner_result res;
    struct plan *pl = tracked_plan(&res, 4, 2);
    plan_set(pl, pb, gpu, start);
    char err[256] = "";
    pb->m = 2500000;
    assert_int_equal(torch_schedule_size(pb, pl, err, sizeof err), 0);
    pb->m = 2500001;
    assert_int_equal(torch_schedule_size(pb, pl, err, sizeof err), -1);
    assert_string_equal(err, "the schedule would have 10000004 actions (2 x 2 stages x 2500001 "
                             "micro-batches, in 2 rank rows), more than 10000000: plan at most "
                             "2500000 micro-batches on 2 stages, or fewer GPUs");
    pb->m = 1000000000;
    FILE *f = fmemopen(text, sizeof text, "w");
    assert_non_null(f);
    err[0] = '\0';
    assert_int_equal(torch_export_schedule(f, pb, pl, err, sizeof err), -1);
    assert_contains(err, "the schedule would have 4000000000 actions");
    err[0] = '\0';
    assert_int_equal(torch_export_program(f, pb, pl, err, sizeof err), -1);
    assert_contains(err, "the schedule would have 4000000000 actions");
    assert_int_equal(ftell(f), 0);
    fclose(f);
    fx_result_clear(&res);
}

/* ---- the validator ---------------------------------------------------- */

static void assert_rejects(const char *csv, int S, int R, int m, const char *want)
{
    char err[256] = "";
    if (torch_schedule_validate(csv, S, R, m, err, sizeof err) == 0)
        fail_msg("validator accepts:\n%s", csv);
    if (strcmp(err, want) != 0)
        fail_msg("for:\n%s\nmessage \"%s\", expected \"%s\"", csv, err, want);
}

static void test_validate_accepts(void **state)
{
    (void)state;
    /* Idle cells, spaces, CRLF and no final newline are all as csv reads them. */
    assert_valid("0F0,,0F1, 0B0 ,0B1\r\n1F0,1B0,1F1,1B1", 2, 2, 2);
    /* Order only: GPipe's all-forwards-first is a valid order too. */
    assert_valid("0F0,0F1,0B0,0B1\n1F0,1F1,1B1,1B0\n", 2, 2, 2);
    /* Two neighbouring stages on one rank. */
    assert_valid("0F0,1F0,1B0,0B0\n", 2, 1, 1);
}

static void test_validate_rejects(void **state)
{
    (void)state;
    assert_rejects("0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n", 2, 2, 2,
                   "stage 0 has no B for micro-batch 1 (rank 0)");
    assert_rejects("0F0,0F0,0B0,0F1,0B1\n1F0,1B0,1F1,1B1\n", 2, 2, 2,
                   "rank 0, column 1: 0F0 repeats column 0");
    assert_rejects("0F0,0B0,0F1,0B1\n1F0,1F1,1B0,1B1\n", 2, 2, 2,
                   "rank 0, column 1: 0B0 before 1B0 (rank 1, column 2)");
    assert_rejects("0B0,0F0,0F1,0B1\n1F0,1B0,1F1,1B1\n", 2, 2, 2,
                   "rank 0, column 0: 0B0 before 0F0 (rank 0, column 1)");
    assert_rejects("1F0,0F0,0B0\n1B0\n", 2, 2, 1,
                   "rank 1, column 0: 1B0 puts stage 1 on rank 1, it is on rank 0");
    assert_rejects("0F0,0X1\n", 1, 1, 2,
                   "rank 0, column 1: cannot read \"0X1\" (expected stage, F or B, "
                   "micro-batch, e.g. 2F0)");
    assert_rejects("0F0,0W0\n", 1, 1, 1,
                   "rank 0, column 1: \"0W0\" is a backward-weight (W) action, which torch "
                   "reads but this check does not (it checks schedules of F and B, as pipeplan "
                   "writes them)");
    assert_rejects("0F0,0F\n", 1, 1, 1,
                   "rank 0, column 1: cannot read \"0F\" (expected stage, F or B, "
                   "micro-batch, e.g. 2F0)");
    assert_rejects("0F0,\"0B0\"\n", 1, 1, 1,
                   "rank 0, column 1: quoted cells are not read (expected stage, F or B, "
                   "micro-batch, e.g. 2F0)");
    assert_rejects("0F0,2B0\n", 2, 1, 1,
                   "rank 0, column 1: 2B0 names stage 2, there are 2 (0..1)");
    assert_rejects("0F0,0B3\n", 1, 1, 2,
                   "rank 0, column 1: 0B3 names micro-batch 3, there are 2 (0..1)");
    assert_rejects("0F0,1F0,1B0,0B0\n", 2, 2, 1, "the schedule has 1 row, expected 2 (one per rank)");
    assert_rejects("0F0,0B0\n\n", 1, 1, 1, "the schedule has more rows than ranks (1)");
    assert_rejects("0F0,0B0\n , \n", 2, 2, 1, "rank 1 has no actions");
    assert_rejects("0F0,0B0\n1F0,1B0\n", 3, 2, 1, "stage 2 is on no rank");
    assert_rejects("0F99999999999\n", 1, 1, 1,
                   "rank 0, column 0: cannot read \"0F99999999999\" (expected stage, F or B, "
                   "micro-batch, e.g. 2F0)");
    assert_rejects("", 1, 0, 1, "cannot check 1 stage on 0 ranks with 1 micro-batch");
    /* more rows than stages: the cell says what is wrong */
    assert_rejects("0F0,0B0\n0F1,0B1\n", 1, 2, 2,
                   "rank 1, column 0: 0F1 puts stage 0 on rank 1, it is on rank 0");
}

/* ---- every plan of random problems ------------------------------------ */

/* Random chains: weights 0..1 GB, transfers 0..1.5 ms, phi 1..4, m 1..6,
 * either schedule. */
static const struct fx_spread torch_spread = { 1, LAYOUT_ANY, 2, 0.5, 4, 4, 6, 1 };

/* The program lists each layer's quoted name once, in chain order, inside
 * module_fqns_per_model_part. */
static void assert_names_once(const char *py, const struct problem *pb)
{
    const char *from = strstr(py, "module_fqns_per_model_part = [\n");
    assert_non_null(from);
    const char *to = strstr(from, "\n]\n");
    assert_non_null(to);
    const char *at = from;
    for (int i = 0; i < pb->L; i++) {
        char q[40];
        snprintf(q, sizeof q, "\"%s\"", pb->names[i]);
        const char *hit = strstr(from, q);
        if (!hit || hit > to || hit < at)
            fail_msg("layer %d (%s) missing or out of order in:\n%s", i, q, py);
        const char *again = strstr(hit + 1, q);
        if (again && again < to)
            fail_msg("layer %d (%s) listed twice in:\n%s", i, q, py);
        at = hit;
    }
}

static void check_plan(const struct problem *pb, const struct plan *pl, const char *who)
{
    struct sim_report rep;
    if (simulate_plan(pl, pb, &rep) != SIM_OK)
        fail_msg("%s: plan rejected by the simulator: %s", who, rep.reason);
    assert_names_once(export_text(torch_export_program, pb, pl), pb);
    const char *csv = export_text(torch_export_schedule, pb, pl);
    char err[256] = "";
    if (torch_schedule_validate(csv, torch_stage_count(pl), torch_rank_count(pl),
                                (int)pb->m, err, sizeof err) != 0)
        fail_msg("%s: exported schedule rejected: %s\n%s", who, err, csv);
}

static void test_random_plans(void **state)
{
    (void)state;
    fx_seed(10);
    for (int round = 0; round < 300; round++) {
        int L = 1 + (int)fx_rnd(9), P = 1 + (int)fx_rnd(4);
        struct problem *pb = fx_random(L, P, &torch_spread);
        for (int p = 0; p < P; p++)
            pb->cap[p] = 1000 * GB;

        /* Any allocation, through the schedule builder. */
        struct planner_result res;
        struct plan *pl = tracked_plan(&res, L, P);
        for (int i = 0; i < L; i++)
            pl->gpu[i] = (int)fx_rnd((unsigned)P);
        assert_int_equal(schedule_build(pl, pb), 0);
        check_plan(pb, pl, "schedule_build");
        fx_result_clear(&res);

        /* The baselines, every few rounds (the ILP is not run here). */
        if (round % 5 != 0)
            goto next;
        for (int k = 0; k < planner_count(); k++) {
            const char *name = planner_name(k);
            if (planner_is_solver(name))
                continue;
            assert_int_equal(planner_run(name, pb, &res), 0);
            fx_track_result(&res);
            if (res.plan)
                check_plan(pb, res.plan, name);
            fx_result_clear(&res);
        }
next:
        fx_problem_free(pb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_schedule_contiguous),
        FX_TEST(test_schedule_noncontiguous),
        FX_TEST(test_stage_count_v),
        FX_TEST(test_program_v),
        FX_TEST(test_schedule_ranks_follow_stages),
        FX_TEST(test_program_contiguous),
        FX_TEST(test_program_noncontiguous),
        FX_TEST(test_program_torchtitan),
        FX_TEST(test_program_quotes_names),
        FX_TEST(test_export_refuses),
        FX_TEST(test_export_cap),
        FX_TEST(test_validate_accepts),
        FX_TEST(test_validate_rejects),
        FX_TEST(test_random_plans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
