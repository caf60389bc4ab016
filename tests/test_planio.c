/* Plans in and out: --split lists, Megatron-Core layouts (read, written,
 * round trips), DeepSpeed parts, plan files (round trip, FILE:LINE
 * errors), csv columns, and the atomic write every export goes through.
 * The transformer network is written here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export.h"
#include "fileio.h"
#include "planfile.h"
#include "planner.h"
#include "schedule.h"
#include "simulate.h"
#include "spec.h"
#include "split.h"

/* tok_embeddings, layers.0 .. layers.7, norm, output: 11 layers. */
static char *transformer_text(int N)
{
    size_t cap = 4096 + (size_t)N * 200, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "[network]\nname = gpt-test\nmicro_batch = 2\n"
                          "tensor_parallel = 2\n\n[layer tok_embeddings]\nforward = 1ms\n"
                          "backward = 2ms\nweights = 200MB\nactivation = 10MB\n\n");
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(s + n, cap - n, "[layer layers.%d]\nforward = 3ms\nbackward = 6ms\n"
                              "weights = 100MB\nactivation = 10MB\nstored = 60MB\n\n", i);
    snprintf(s + n, cap - n, "[layer norm]\nforward = 0.5ms\nbackward = 1ms\nweights = 1MB\n"
             "activation = 10MB\n\n[layer output]\nforward = 2ms\nbackward = 4ms\n"
             "weights = 200MB\nactivation = 1MB\n");
    return s;
}

static const char platform_text[] =
    "[platform]\nname = four\ngpus = 4\nmemory = 16GiB\nreserved = 1GiB\nbandwidth = 10GB/s\n"
    "latency = 10us\n\n[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = adam\n";

static struct problem *transformer(int N, int P)
{
    char err[SPEC_ERR_LEN];
    char *text = transformer_text(N);
    struct spec_network *net = spec_network_parse(text, "gpt.ini", err, sizeof err);
    free(text);
    assert_non_null(net);
    struct spec_platform *plat = spec_platform_parse(platform_text, "four.ini", err, sizeof err);
    assert_non_null(plat);
    struct knobs k;
    knobs_init(&k);
    k.gpus = P;
    struct problem *pb = problem_create(net, plat, &k, err, sizeof err);
    spec_network_free(net);
    spec_platform_free(plat);
    assert_non_null(pb);
    return pb;
}

/* A parser of the list forms (split_parse_list, split_deepspeed_parse)
 * refuses text for L layers on P GPUs with the message want. */
static void expect_refused(int (*parse)(const char *, int, int, int *, char *, size_t),
                           const char *text, int L, int P, const char *want)
{
    int gpu[64];
    char err[320];
    assert_int_equal(parse(text, L, P, gpu, err, sizeof err), -1);
    assert_string_equal(err, want);
}

/* ... for 11 layers on 4 GPUs, the tests' shape */
static void list_refused(const char *text, const char *want)
{
    expect_refused(split_parse_list, text, 11, 4, want);
}

static void parts_refused(const char *text, const char *want)
{
    expect_refused(split_deepspeed_parse, text, 11, 4, want);
}

static void test_split_list(void **state)
{
    (void)state;
    int gpu[11];
    char err[320];
    assert_int_equal(split_parse_list("0,3,6,8", 11, 4, gpu, err, sizeof err), 0);
    const int want[11] = { 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 3 };
    assert_memory_equal(gpu, want, sizeof want);
    assert_int_equal(split_parse_list("0", 11, 4, gpu, err, sizeof err), 0);
    for (int i = 0; i < 11; i++)
        assert_int_equal(gpu[i], 0);
    /* blanks and line breaks at the commas (a list pasted over lines) */
    memset(gpu, -1, sizeof gpu);
    assert_int_equal(split_parse_list(" 0, 3 ,\n6,\t8\n", 11, 4, gpu, err, sizeof err), 0);
    assert_memory_equal(gpu, want, sizeof want);
    /* and # comments to the end of their line, as in the file pasted from */
    memset(gpu, -1, sizeof gpu);
    assert_int_equal(split_parse_list("# stages\n0, 3, # two\n6,\n8 # last\n", 11, 4, gpu, err,
                                      sizeof err), 0);
    assert_memory_equal(gpu, want, sizeof want);
    list_refused("0 3", "'3' after layer 0 (expected a comma and the next layer index)");
    list_refused("0, ", "', ' after layer 0 (expected a comma and the next layer index)");
    list_refused(" ", "empty (expected the first layer of each stage, e.g. 0,12,24)");
    list_refused("", "empty (expected the first layer of each stage, e.g. 0,12,24)");
    list_refused("1,4", "the first stage starts at layer 1 (expected 0: stage 0 "
                      "starts with the first layer)");
    list_refused("0,5,3", "layer 3 after 5 (expected strictly increasing layer "
                      "indices)");
    list_refused("0,5,5", "layer 5 after 5 (expected strictly increasing layer "
                      "indices)");
    list_refused("0,11", "layer 11 out of range (expected 0 to 10: the network has "
                      "11 layers)");
    list_refused("0,11,12", "layer 11 out of range (expected 0 to 10: the network has "
                 "11 layers)");
    list_refused("0,1,2,3,4", "more than 4 stages (expected at most one stage per "
                      "GPU, or per pipeline rank of a tensor-parallel network; --gpus "
                      "changes them)");
    list_refused("0,x", "'x' is not a layer index (expected 0-based layer indices "
                      "separated by commas, e.g. 0,12,24)");
    list_refused("0,", "',' after layer 0 (expected a comma and the next layer "
                      "index)");
    list_refused("0;4", "';4' after layer 0 (expected a comma and the next layer "
                      "index)");
    list_refused("-1", "'-1' is not a layer index (expected 0-based layer indices "
                      "separated by commas, e.g. 0,12,24)");
}

static void expect_layout(const struct problem *pb, const char *layout, const int *want)
{
    int gpu[64];
    char err[320] = "";
    int rc = split_megatron_parse(layout, pb->names, pb->L, pb->P, gpu, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", layout, err);
    assert_memory_equal(gpu, want, (size_t)pb->L * sizeof *want);
}

static void expect_layout_error(const struct problem *pb, const char *layout, const char *want)
{
    int gpu[64];
    char err[320] = "";
    assert_int_equal(split_megatron_parse(layout, pb->names, pb->L, pb->P, gpu, err, sizeof err),
                     -1);
    assert_string_equal(err, want);
}

static void test_megatron_parse(void **state)
{
    (void)state;
    struct problem *pb = transformer(8, 4);
    /* plain, repeats, commas */
    const int a[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    expect_layout(pb, "Et*2|t*2|t*2|t*2L", a);
    expect_layout(pb, "Ett|tt|tt|ttL", a);
    expect_layout(pb, "Et*2,|t*2|,t*2|t,tL", a);
    /* parenthesised repeats */
    expect_layout(pb, "Et*2|(t*2|)*2t*2L", a);
    expect_layout(pb, "Ett|(tt|)*2ttL", a);
    /* virtual stages: 8 stages on 4 ranks, stage k on rank k mod 4 */
    const int v[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    expect_layout(pb, "Et|t|t|t|t|t|t|tL", v);
    expect_layout(pb, "Et|(t|)*6tL", v);
    /* empty stages */
    const int e[11] = { 0, 0, 0, 0, 2, 2, 2, 2, 3, 3, 3 };
    expect_layout(pb, "Et*3||t*4|tL", e);
    /* errors */
    expect_layout_error(pb, "Et*2|t*2|t*2|t*2|L", "5 stages for 4 pipeline ranks (expected a "
                        "multiple of 4: stage k runs on pipeline rank k mod 4)");
    expect_layout_error(pb, "Et*2|t*2|t*2|tL", "7 transformer layers 't' (expected 8: the "
                        "network has layers.0 .. layers.7)");
    expect_layout_error(pb, "t*2E|t*2|t*2|t*2L", "the first stage does not start with E "
                        "(expected the embedding first: Megatron builds it on the first stage)");
    expect_layout_error(pb, "Et*2|t*2|t*2|t*2L|", "the last stage does not end with L (expected "
                        "the loss last: Megatron builds the output layer and loss on the last "
                        "stage)");
    expect_layout_error(pb, "Et*2|t*2|t*2|Lt*2", "the last stage does not end with L (expected "
                        "the loss last: Megatron builds the output layer and loss on the last "
                        "stage)");
    expect_layout_error(pb, "Et*2|t*2|t*2|t*2mL", "1 MTP layer 'm' (expected none: the network "
                        "has no MTP layer)");
    expect_layout_error(pb, "EEt*2|t*2|t*2|t*2L", "2 embeddings 'E' (expected exactly one)");
    expect_layout_error(pb, "Et*2|t*2|t*2|t*2", "0 losses 'L' (expected exactly one)");
    expect_layout_error(pb, "Et*2|x|t*2|t*2L", "unknown layer character 'x' (expected E "
                        "embedding, t transformer layer, L loss, m MTP layer, | stage boundary)");
    expect_layout_error(pb, "E((t|)*2)*3tL", "nested parentheses (expected at most one "
                        "level: Megatron does not unroll nested ones)");
    expect_layout_error(pb, "E(tt|)t*2L", "'(' left after unrolling repeats (expected \"x*n\" "
                        "or \"(stages)*n\" with a count)");
    expect_layout_error(pb, "Et*999999999L", "expands to more than 1000000 characters (expected "
                        "a layout of a real network)");
    /* a network that is not a transformer */
    char *names[3] = { "a", "b", "c" };
    int gpu[3];
    char err[320];
    assert_int_equal(split_megatron_parse("EtL", names, 3, 1, gpu, err, sizeof err), -1);
    assert_string_equal(err, "not a transformer network: layer 0 is 'a' (expected "
                        "'tok_embeddings': a transformer network made by pipeplan gen "
                        "transformer has tok_embeddings, layers.0 .. layers.N-1, norm, output)");
    problem_free(pb);
}

/* megatron -> allocation -> megatron, and allocation -> megatron ->
 * allocation up to the renumbering. */
static void expect_args(const struct problem *pb, const char *args, const int *want)
{
    int gpu[64];
    char err[512] = "";
    if (split_parse(args, pb, gpu, err, sizeof err) != pb->P)
        fail_msg("%s: %s", args, err);
    assert_memory_equal(gpu, want, (size_t)pb->L * sizeof *want);
}

static void expect_args_error(const struct problem *pb, const char *args, const char *want)
{
    int gpu[64];
    char err[512] = "";
    assert_int_equal(split_parse(args, pb, gpu, err, sizeof err), -1);
    assert_string_equal(err, want);
}

/* Megatron's other split arguments, counted as get_num_layers_to_build
 * counts them (worked by hand: 8 layers on 4 ranks; 10 with the
 * embedding and the loss accounted for, 12 / 4 = 3 a rank, 2 built on
 * the first and the last). */
static void test_megatron_args(void **state)
{
    (void)state;
    struct problem *pb = transformer(8, 4);   /* E l0..l7 norm output */
    const int even[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    expect_args(pb, "megatron:--num-layers 8 --pipeline-model-parallel-size 4", even);
    expect_args(pb, "megatron: --tensor-model-parallel-size=2", even);
    /* first 1, last 3: the 4 left over the 2 middle ranks */
    const int uneven[11] = { 0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3 };
    expect_args(pb, "megatron:--decoder-first-pipeline-num-layers 1 "
                "--decoder-last-pipeline-num-layers=3", uneven);
    /* two virtual stages a rank: stage k on rank k mod 4 */
    const int v[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    expect_args(pb, "megatron:--num-virtual-stages-per-pipeline-rank 2", v);
    expect_args(pb, "megatron:--num-layers-per-virtual-pipeline-stage 1", v);
    /* the layout, quoted as the export writes it */
    expect_args(pb, "megatron:--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
                "\"Et*2|t*2|t*2|t*2L\" --tensor-model-parallel-size 2", even);
    /* and sequence parallelism, which the export writes beside it */
    expect_args(pb, "megatron:--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "
                "\"Et*2|t*2|t*2|t*2L\" --tensor-model-parallel-size 2 --sequence-parallel", even);
    expect_args_error(pb, "megatron:--decoder-first-pipeline-num-layers 2 "
                      "--decoder-last-pipeline-num-layers 1", "5 layers left for 2 middle ranks "
                      "(expected the 8 transformer layers less the first and last stages' to "
                      "divide evenly over the other ranks)");
    /* each says what was accounted for (both were named for either) */
    expect_args_error(pb, "megatron:--account-for-embedding-in-pipeline-split", "9 layers with "
                      "the embedding accounted for on 4 ranks (expected a multiple of "
                      "the ranks: Megatron splits them evenly)");
    expect_args_error(pb, "megatron:--account-for-loss-in-pipeline-split", "9 layers with "
                      "the loss accounted for on 4 ranks (expected a multiple of "
                      "the ranks: Megatron splits them evenly)");
    expect_args_error(pb, "megatron:--decoder-first-pipeline-num-layers 2 "
                      "--account-for-loss-in-pipeline-split", "--decoder-first/last-pipeline-"
                      "num-layers with --account-for-embedding/loss-in-pipeline-split (expected "
                      "one or the other: Megatron does not support both)");
    /* this network is tensor-parallel (TP 2): --gpus counts its ranks */
    expect_args_error(pb, "megatron:--pipeline-model-parallel-size 8", "--pipeline-model-"
                      "parallel-size 8 (expected 4, the ranks; --gpus changes them)");
    pb->tp = 1;
    expect_args_error(pb, "megatron:--pipeline-model-parallel-size 8", "--pipeline-model-"
                      "parallel-size 8 (expected 4, the GPUs; --gpus changes them)");
    pb->tp = 2;
    expect_args_error(pb, "megatron:--num-layers 80", "--num-layers 80 (expected 8, the "
                      "network's transformer layers)");
    expect_args_error(pb, "megatron:--decoder-last-pipeline-num-layers", "--decoder-last-"
                      "pipeline-num-layers has no value (expected a whole number from 1 to "
                      "1000000)");
    /* Megatron-Core: "num_layers_in_first_pipeline_stage must be larger than 0" */
    expect_args_error(pb, "megatron:--decoder-first-pipeline-num-layers 0 "
                      "--decoder-last-pipeline-num-layers 2", "--decoder-first-pipeline-num-"
                      "layers '0' (expected a whole number from 1 to 1000000)");
    expect_args_error(pb, "megatron:--pipeline-model-parallel-layout", "--pipeline-model-"
                      "parallel-layout has no value (expected a layout, e.g. \"Et*8|t*8L\")");
    /* the flag quoted as a shell passes it */
    expect_args(pb, "megatron:'--pipeline-model-parallel-layout' 'Et*2|t*2|t*2|t*2L'", even);
    expect_args_error(pb, "megatron:--num-virtual-stages-per-pipeline-rank 2 "
                      "--num-layers-per-virtual-pipeline-stage 1", "--num-virtual-stages-per-"
                      "pipeline-rank with --num-layers-per-virtual-pipeline-stage (expected one "
                      "of them: Megatron refuses both)");
    /* a value is read whole, however long: not cut to another number */
    expect_args(pb, "megatron:--decoder-first-pipeline-num-layers 000000000000000000000000000"
                "00000000000000000000000000000000000000000000000002 "
                "--decoder-last-pipeline-num-layers 2", even);
    expect_args_error(pb, "megatron:--num-virtual-stages-per-pipeline-rank 4", "rank 0's 2 "
                      "layers over 4 virtual stages (expected a multiple of them)");
    expect_args_error(pb, "megatron:--pipeline-model-parallel-layout 'Et*8L", "a quote not "
                      "closed (expected arguments as a shell passes them)");
    expect_args_error(pb, "megatron:--pipeline-model-parallel-layout Et*8L "
                      "--num-virtual-stages-per-pipeline-rank 2", "--pipeline-model-parallel-"
                      "layout with other split arguments (expected the layout alone: Megatron "
                      "refuses the others beside it)");
    /* a flag with a value, as Megatron's argparse refuses it; an argument
     * no split depends on, named whole */
    expect_args_error(pb, "megatron:--account-for-loss-in-pipeline-split=true",
                      "--account-for-loss-in-pipeline-split=true: the flag takes no value "
                      "(expected --account-for-loss-in-pipeline-split alone)");
    expect_args_error(pb, "megatron:--sequence-parallel=1", "--sequence-parallel=1: the flag "
                      "takes no value (expected --sequence-parallel alone)");
    expect_args_error(pb, "megatron:--recompute-activations", "'--recompute-activations' is not read "
                      "(expected Megatron's pipeline split arguments: "
                      "--decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers, "
                      "--account-for-embedding-in-pipeline-split, "
                      "--account-for-loss-in-pipeline-split, "
                      "--num-virtual-stages-per-pipeline-rank, "
                      "--num-layers-per-virtual-pipeline-stage, --pipeline-model-parallel-layout, "
                      "and the sizes to check)");
    problem_free(pb);
    pb = transformer(10, 4);                  /* E l0..l9 norm output */
    const int acc[13] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3 };
    expect_args(pb, "megatron:--account-for-embedding-in-pipeline-split "
                "--account-for-loss-in-pipeline-split", acc);
    problem_free(pb);
}

static void test_megatron_round_trip(void **state)
{
    (void)state;
    struct problem *pb = transformer(8, 4);
    static const char *const layouts[] = {
        "Et*2|t*2|t*2|t*2L", "Et|t|t|t|t|t|t|tL", "Et*3||t*4|tL", "E|t*3|t*3|t*2L",
        "Et|t|t|t*2|t|t|t|L",
    };
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        int gpu[11], back[11];
        char err[320] = "";
        assert_int_equal(split_megatron_parse(layouts[k], pb->names, pb->L, pb->P, gpu, err,
                                              sizeof err), 0);
        struct split_megatron m;
        if (split_megatron_write(gpu, pb->names, pb->L, pb->P, pb->cap, pb->reserved, pb, &m,
                                 err, sizeof err) != 0)
            fail_msg("%s: %s", layouts[k], err);
        assert_int_equal(split_megatron_parse(m.layout, pb->names, pb->L, pb->P, back, err,
                                              sizeof err), 0);
        for (int i = 0; i < pb->L; i++)
            assert_int_equal(back[i], m.rank[gpu[i]]);
        assert_int_equal(m.stages % pb->P, 0);
        split_megatron_clear(&m);
    }
    /* the writer's own spelling */
    int gpu[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    struct split_megatron m;
    char err[320];
    assert_int_equal(split_megatron_write(gpu, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), 0);
    assert_string_equal(m.layout, "Et*2|t*2|t*2|t*2L");
    assert_int_equal(m.virtual_stages, 1);
    split_megatron_clear(&m);
    /* GPUs in another order are renumbered (equal caps): 2,0,1,3 */
    int perm[11] = { 2, 2, 2, 0, 0, 1, 1, 3, 3, 3, 3 };
    assert_int_equal(split_megatron_write(perm, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), 0);
    assert_string_equal(m.layout, "Et*2|t*2|t*2|t*2L");
    assert_int_equal(m.rank[2], 0);
    assert_int_equal(m.rank[0], 1);
    assert_int_equal(m.gpu[0], 2);
    split_megatron_clear(&m);
    /* a GPU holding two runs: virtual stages */
    int inter[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    assert_int_equal(split_megatron_write(inter, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), 0);
    assert_string_equal(m.layout, "Et|t|t|t|t|t|t|tL");
    assert_int_equal(m.virtual_stages, 2);
    split_megatron_clear(&m);
    /* the network is tensor-parallel (2): the plan's GPUs are pipeline
     * ranks, and the refusals name ranks (they said GPU 0, GPUs 2 and 0) */
    assert_int_equal(pb->tp, 2);
    /* embedding and loss on one rank */
    int same[11] = { 0, 1, 1, 1, 2, 2, 2, 3, 3, 0, 0 };
    assert_int_equal(split_megatron_write(same, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), -1);
    assert_string_equal(err, "the plan puts the embedding and the loss both on rank 0, but "
                        "Megatron builds the embedding on pipeline rank 0 and the loss on "
                        "rank 3");
    /* norm and output apart */
    int apart[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 2, 3 };
    assert_int_equal(split_megatron_write(apart, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), -1);
    assert_string_equal(err, "the plan puts norm on rank 2 and output on rank 3, but Megatron's "
                        "L holds both (it builds them together on the last stage)");
    /* caps differ: no renumbering */
    double cap[4] = { 16e9, 16e9, 32e9, 16e9 };
    assert_int_equal(split_megatron_write(perm, pb->names, pb->L, pb->P, cap, pb->reserved, pb,
                                          &m, err, sizeof err), -1);
    assert_string_equal(err, "the embedding is on rank 2, which Megatron runs as pipeline rank "
                        "0, and ranks 2 and 0 have different memory, so they cannot be "
                        "renumbered");
    /* the loss's rank: 0 and 3 differ, the embedding's rank 0 as is */
    double cap3[4] = { 16e9, 16e9, 16e9, 32e9 };
    int loss0[11] = { 1, 1, 1, 2, 2, 2, 3, 3, 0, 0, 0 };
    assert_int_equal(split_megatron_write(loss0, pb->names, pb->L, pb->P, cap3, pb->reserved,
                                          pb, &m, err, sizeof err), -1);
    assert_string_equal(err, "the loss is on rank 0, which Megatron runs as pipeline rank 3, "
                        "and ranks 0 and 3 have different memory, so they cannot be "
                        "renumbered");
    /* without tensor parallelism (or without a problem) they are GPUs */
    pb->tp = 1;
    assert_int_equal(split_megatron_write(same, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          pb, &m, err, sizeof err), -1);
    assert_string_equal(err, "the plan puts the embedding and the loss both on GPU 0, but "
                        "Megatron builds the embedding on pipeline rank 0 and the loss on "
                        "rank 3");
    assert_int_equal(split_megatron_write(apart, pb->names, pb->L, pb->P, pb->cap, pb->reserved,
                                          NULL, &m, err, sizeof err), -1);
    assert_string_equal(err, "the plan puts norm on GPU 2 and output on GPU 3, but Megatron's "
                        "L holds both (it builds them together on the last stage)");
    assert_int_equal(split_megatron_write(perm, pb->names, pb->L, pb->P, cap, pb->reserved, pb,
                                          &m, err, sizeof err), -1);
    assert_string_equal(err, "the embedding is on GPU 2, which Megatron runs as pipeline rank "
                        "0, and GPUs 2 and 0 have different memory, so they cannot be "
                        "renumbered");
    assert_int_equal(split_megatron_write(loss0, pb->names, pb->L, pb->P, cap3, pb->reserved,
                                          pb, &m, err, sizeof err), -1);
    assert_string_equal(err, "the loss is on GPU 0, which Megatron runs as pipeline rank 3, "
                        "and GPUs 0 and 3 have different memory, so they cannot be "
                        "renumbered");
    problem_free(pb);
}

static void test_deepspeed_parts(void **state)
{
    (void)state;
    int parts[5], rank[4];
    char err[320];
    int gpu[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    assert_int_equal(split_deepspeed_parts(gpu, 11, 4, NULL, NULL, NULL, parts, rank, err,
                                           sizeof err), 4);
    const int want[5] = { 0, 3, 5, 7, 11 };
    assert_memory_equal(parts, want, sizeof want);
    /* renumbered: stage order is chain order */
    int perm[11] = { 3, 3, 3, 1, 1, 2, 2, 0, 0, 0, 0 };
    assert_int_equal(split_deepspeed_parts(perm, 11, 4, NULL, NULL, NULL, parts, rank, err,
                                           sizeof err), 4);
    assert_memory_equal(parts, want, sizeof want);
    assert_int_equal(rank[3], 0);
    assert_int_equal(rank[0], 3);
    /* two GPUs used of four */
    int two[11] = { 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1 };
    assert_int_equal(split_deepspeed_parts(two, 11, 4, NULL, NULL, NULL, parts, rank, err,
                                           sizeof err), 2);
    assert_int_equal(parts[1], 5);
    assert_int_equal(parts[2], 11);
    assert_int_equal(rank[2], -1);
    /* not contiguous */
    int inter[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    assert_int_equal(split_deepspeed_parts(inter, 11, 4, NULL, NULL, NULL, parts, rank, err,
                                           sizeof err), -1);
    assert_string_equal(err, "GPU 0 holds layers 0 and 5 but not the layers between (expected a "
                        "contiguous plan: DeepSpeed's stages are one range of layers each)");
    /* caps differ */
    double cap[4] = { 16e9, 16e9, 16e9, 32e9 };
    assert_int_equal(split_deepspeed_parts(perm, 11, 4, cap, NULL, NULL, parts, rank, err,
                                           sizeof err), -1);
    assert_string_equal(err, "stage 3 is on GPU 0, which DeepSpeed runs as pipeline rank 3, and "
                        "GPUs 0 and 3 have different memory, so they cannot be renumbered");
    /* a tensor-parallel network's plan is on pipeline ranks: the refusals
     * name ranks (they said GPU 0, GPUs 0 and 3) */
    struct problem *pb = transformer(8, 4);
    assert_int_equal(pb->tp, 2);
    assert_int_equal(split_deepspeed_parts(inter, 11, 4, NULL, NULL, pb, parts, rank, err,
                                           sizeof err), -1);
    assert_string_equal(err, "rank 0 holds layers 0 and 5 but not the layers between (expected "
                        "a contiguous plan: DeepSpeed's stages are one range of layers each)");
    assert_int_equal(split_deepspeed_parts(perm, 11, 4, cap, NULL, pb, parts, rank, err,
                                           sizeof err), -1);
    assert_string_equal(err, "stage 3 is on rank 0, which DeepSpeed runs as pipeline rank 3, "
                        "and ranks 0 and 3 have different memory, so they cannot be "
                        "renumbered");
    /* and GPUs without it */
    pb->tp = 1;
    assert_int_equal(split_deepspeed_parts(inter, 11, 4, NULL, NULL, pb, parts, rank, err,
                                           sizeof err), -1);
    assert_string_equal(err, "GPU 0 holds layers 0 and 5 but not the layers between (expected a "
                        "contiguous plan: DeepSpeed's stages are one range of layers each)");
    problem_free(pb);
}

/* DeepSpeed's parts read back: the list test_deepspeed_parts writes gives
 * its allocation again; brackets and spaces optional; empty stages idle. */
static void test_deepspeed_parse(void **state)
{
    (void)state;
    int gpu[11];
    char err[320];
    const int want[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    /* and Python's comments, pasted from a script (they were read as
     * boundaries: "'# first ...' is not a layer boundary") */
    const char *forms[] = { "[0, 3, 5, 7, 11]", "0,3,5,7,11", " [0,3, 5 ,7,11] ",
                            "# parts\n[0,  # first\n 3, 5,\n 7, 11]  # the count\n" };
    for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
        memset(gpu, -1, sizeof gpu);
        assert_int_equal(split_deepspeed_parse(forms[k], 11, 4, gpu, err, sizeof err), 4);
        assert_memory_equal(gpu, want, sizeof want);
    }
    /* partition_uniform with more stages than layers: [0, 1, 2, 2] */
    int three[2];
    assert_int_equal(split_deepspeed_parse("[0, 1, 2, 2]", 2, 3, three, err, sizeof err), 3);
    assert_int_equal(three[0], 0);
    assert_int_equal(three[1], 1);
    /* an empty stage in the middle leaves GPU 1 idle */
    const int idle[11] = { 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2 };
    assert_int_equal(split_deepspeed_parse("[0, 5, 5, 11]", 11, 4, gpu, err, sizeof err), 3);
    assert_memory_equal(gpu, idle, sizeof idle);
    static const char ex[] = "expected DeepSpeed's parts: the first layer of each stage, then "
                             "the layer count, e.g. [0, 12, 24, 36]";
    char buf[320];
    parts_refused("[0, 3, 10]", "the last boundary is 10 (expected 11, the layer "
                       "count: DeepSpeed's parts end with it)");
    parts_refused("[0]", "the last boundary is 0 (expected 11, the layer count: "
                       "DeepSpeed's parts end with it)");
    parts_refused("[2, 11]", "the parts start at 2 (expected 0: stage 0 starts with "
                       "the first layer)");
    parts_refused("[0, 5, 3, 11]", "boundary 3 after 5 (expected non-decreasing "
                       "boundaries)");
    parts_refused("[0, 12]", "boundary 12 out of range (expected 0 to 11: the "
                       "network has 11 layers)");
    /* a number cut to 20 digits says so: without "..." it named another */
    parts_refused("[0, 99999999999999999999999, 11]", "boundary 99999999999999999999... out "
                  "of range (expected 0 to 11: the network has 11 layers)");
    parts_refused("[0, 1, 2, 3, 4, 11]", "more than 4 stages (expected at most one "
                       "stage per GPU, or per pipeline rank of a tensor-parallel network; "
                       "--gpus changes them)");
    snprintf(buf, sizeof buf, "no ']' after 11 (%s)", ex);
    parts_refused("[0, 11", buf);
    parts_refused("[0, 11] 4", "'4' after ']' (expected nothing more)");
    parts_refused("0, 11]", "']' after 11 (expected a comma and the next "
                       "boundary)");
    parts_refused("[0; 11]", "'; 11]' after 0 (expected a comma and the next "
                       "boundary, or the closing ']')");
    snprintf(buf, sizeof buf, "no boundary where one was due (%s)", ex);
    parts_refused("", buf);
    /* as Python allows and a pretty printer writes: a trailing comma,
     * newlines and tabs */
    assert_int_equal(split_deepspeed_parse("[0, 3,\n\t5, 7, 11,\n]\n", 11, 4, gpu, err,
                                           sizeof err), 4);
    assert_memory_equal(gpu, want, sizeof want);
    snprintf(buf, sizeof buf, "',]' is not a layer boundary (%s)", ex);
    parts_refused("[0, 11,,]", buf);
    snprintf(buf, sizeof buf, "'-1, 11]' is not a layer boundary (%s)", ex);
    parts_refused("[-1, 11]", buf);
    snprintf(buf, sizeof buf, "'1.5, 11]' is not a layer boundary (%s)", ex);
    parts_refused("[0, 1.5, 11]", buf);
}

/* torchtitan's module_fqns_per_model_part read back: loop and V
 * placements, quotes, comments and newlines as an export pastes. */
static void test_torchtitan_parse(void **state)
{
    (void)state;
    struct problem *pb = transformer(8, 4);  /* tok_embeddings, layers.0-7, norm, output */
    const int a[11] = { 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3 };
    expect_args(pb, "torchtitan:[[\"tok_embeddings\", \"layers.0\", \"layers.1\"], [\"layers.2\", "
                "\"layers.3\"], [\"layers.4\", \"layers.5\"], [\"layers.6\", \"layers.7\", "
                "\"norm\", \"output\"]]", a);
    expect_args(pb, "torchtitan:[\n    ['tok_embeddings','layers.0','layers.1'],  # stage 0\n"
                "    ['layers.2','layers.3'],\n    ['layers.4','layers.5'],\n"
                "    ['layers.6','layers.7','norm','output'],  # stage 3: rank 3\n]", a);
    /* 8 parts on 4 ranks: part s on rank s mod 4 */
    const int loop[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    expect_args(pb, "torchtitan:[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\"], "
                "[\"layers.2\"], "
                "[\"layers.3\"], [\"layers.4\"], [\"layers.5\"], [\"layers.6\"], "
                "[\"layers.7\", \"norm\", \"output\"],]", loop);
    /* the V placement: parts r and 7 - r on rank r */
    const int v[11] = { 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 0 };
    expect_args(pb, "torchtitan:v:[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\"], "
                "[\"layers.2\"], "
                "[\"layers.3\"], [\"layers.4\"], [\"layers.5\"], [\"layers.6\"], "
                "[\"layers.7\", \"norm\", \"output\"]]", v);
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\"], [\"layers.1\"]]", "'layers.1' in "
                      "part 1 "
                      "where 'layers.0' is due (expected every layer once, in the network's "
                      "order)");
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\", "
                      "\"tok_embeddings\"]]", "'tok_embeddings' in "
                      "part 0 where 'layers.0' is due (expected every layer once, in the "
                      "network's order)");
    expect_args_error(pb, "torchtitan:[[\"embed\"]]", "'embed' in part 0 is no layer of the "
                      "network "
                      "(expected its layers' names, e.g. 'tok_embeddings')");
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\"], []]", "part 1 is empty (expected the "
                      "modules of each part)");
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\", \"layers.0\"]]", "the parts end before "
                      "'layers.1' (expected every layer once, through 'output')");
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\" \"layers.0\"]]", "'\"layers.0\"]]' "
                      "after "
                      "'tok_embeddings' (expected a comma or the ']' closing part 0)");
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\"]", "nothing after part 0 (expected a "
                      "comma "
                      "or the ']' closing the list)");
    /* fewer parts than GPUs: a degree of 2, as the export of a plan on two
     * of the four GPUs writes it (it was refused, so the export did not
     * read back) */
    int gpu[11];
    char why[320];
    const int two[11] = { 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
    assert_int_equal(split_parse("torchtitan:[[\"tok_embeddings\", \"layers.0\", \"layers.1\"], "
                                 "[\"layers.2\", \"layers.3\", \"layers.4\", \"layers.5\", "
                                 "\"layers.6\", \"layers.7\", \"norm\", \"output\"]]", pb, gpu,
                                 why, sizeof why), 2);
    assert_memory_equal(gpu, two, sizeof two);
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\"], [\"layers.0\"], [\"layers.1\"], "
                      "[\"layers.2\"], [\"layers.3\"], [\"layers.4\", \"layers.5\", "
                      "\"layers.6\", \"layers.7\", \"norm\", \"output\"]]", "6 parts on 4 "
                      "pipeline ranks (expected at most 4, one a rank, or a multiple of 4: "
                      "torchtitan runs part s on pipeline rank s mod the degree; --gpus "
                      "changes them)");
    expect_args_error(pb, "torchtitan:v:[[\"tok_embeddings\", \"layers.0\", \"layers.1\"], "
                      "[\"layers.2\", "
                      "\"layers.3\"], [\"layers.4\", \"layers.5\"], [\"layers.6\", \"layers.7\", "
                      "\"norm\", \"output\"]]", "4 parts on 4 pipeline ranks (expected 8: the "
                      "V schedules put parts r and 7 - r on pipeline rank r)");
    static const char ex[] = "expected torchtitan's module_fqns_per_model_part, e.g. "
                             "[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\", \"norm\", "
                             "\"output\"]]";
    char buf[320];
    snprintf(buf, sizeof buf, "'tok_embeddings' where the list opens (%s)", ex);
    expect_args_error(pb, "torchtitan:tok_embeddings", buf);
    snprintf(buf, sizeof buf, "nothing in part 0 where a quoted module name is due (%s)", ex);
    expect_args_error(pb, "torchtitan:[[", buf);
    snprintf(buf, sizeof buf, "'\"norm]]' in part 0 where a quoted module name is due (%s)",
             ex);
    expect_args_error(pb, "torchtitan:[[\"norm]]", buf);
    expect_args_error(pb, "torchtitan:[[\"tok_embeddings\"]] x", "'x' after the list (expected "
                      "nothing "
                      "more)");
    problem_free(pb);
    /* names with quotes, backslashes and controls, escaped as the torch
     * export escapes them */
    char text[] = "[network]\nname = odd\nmicro_batch = 1\n"
                  "[layer q\"uo'te]\nforward = 1ms\nbackward = 1ms\nweights = 1B\nactivation = 1B\n"
                  "[layer b\\s]\nforward = 1ms\nbackward = 1ms\nweights = 1B\nactivation = 1B\n"
                  "[layer t\tab\xc3\xa9]\nforward = 1ms\nbackward = 1ms\nweights = 1B\n"
                  "activation = 1B\n";
    char err[SPEC_ERR_LEN];
    struct spec_network *net = spec_network_parse(text, "odd.ini", err, sizeof err);
    assert_non_null(net);
    struct spec_platform *plat = spec_platform_parse(platform_text, "four.ini", err, sizeof err);
    assert_non_null(plat);
    struct knobs k;
    knobs_init(&k);
    k.gpus = 2;
    pb = problem_create(net, plat, &k, err, sizeof err);
    spec_network_free(net);
    spec_platform_free(plat);
    assert_non_null(pb);
    const int odd[3] = { 0, 1, 1 };
    expect_args(pb, "torchtitan:[[\"q\\\"uo'te\"], ['b\\\\s', \"t\\u0009ab\\u00e9\"]]", odd);
    expect_args(pb, "torchtitan:[['q\"uo\\'te'], [\"b\\\\s\", 't\\x09ab\xc3\xa9']]", odd);
    /* \xe9 is the code point U+00E9, as Python reads it, not the byte */
    expect_args(pb, "torchtitan:[['q\"uo\\'te'], [\"b\\\\s\", 't\\x09ab\\xe9']]", odd);
    /* a NUL would end the name: it stays as written, and names no layer */
    expect_args_error(pb, "torchtitan:[['q\"uo\\'te\\u0000'], ['b\\\\s', 't\\tab\\xe9']]",
                      "'q\"uo'te\\u0000' in part 0 is no layer of the network (expected its "
                      "layers' names, e.g. 'q\"uo'te')");
    problem_free(pb);
}

/* Write a plan to memory with a writer. */
static char *write_mem(int (*w)(FILE *, void *), void *ctx)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(w(f, ctx), 0);
    long len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

struct pf_ctx {
    const struct problem *pb;
    const struct plan *pl;
};

static int pf_writer(FILE *f, void *ctx)
{
    struct pf_ctx *c = ctx;
    return planfile_write(f, c->pb, c->pl, "test");
}

static int csv_writer(FILE *f, void *ctx)
{
    struct pf_ctx *c = ctx;
    return export_csv(f, c->pb, c->pl);
}

/* plan file -> plan -> plan file, for a split and a baseline's plan */
static void test_planfile_round_trip(void **state)
{
    (void)state;
    struct problem *pb = transformer(8, 4);
    int gpu[11] = { 0, 0, 1, 2, 3, 0, 1, 2, 3, 3, 3 };
    struct planner_result res;
    assert_int_equal(planner_judge(pb, gpu, 0, NULL, "test", &res), 0);
    assert_true(planner_is_given(res.planner));
    assert_int_equal(simulate_plan(res.plan, pb, NULL), SIM_OK);
    struct pf_ctx c = { pb, res.plan };
    char *text = write_mem(pf_writer, &c);
    char err[SPEC_ERR_LEN] = "";
    struct plan *back = planfile_parse(text, "a.plan", pb, NULL, 0, err, sizeof err);
    if (!back)
        fail_msg("%s", err);
    assert_memory_equal(back->gpu, res.plan->gpu, sizeof gpu);
    assert_true(back->T == res.plan->T);
    assert_memory_equal(back->start, res.plan->start, 22 * sizeof(double));
    assert_true(back->peak_memory == res.plan->peak_memory);
    for (int p = 0; p < 4; p++)
        assert_true(back->gpus[p].total == res.plan->gpus[p].total);
    struct pf_ctx c2 = { pb, back };
    char *again = write_mem(pf_writer, &c2);
    assert_string_equal(text, again);
    free(again);
    plan_free(back);
    /* read under the settings it was written for: nothing to say; under
     * others: the same plan, judged for them, and a note of what differs */
    char note[256] = "x";
    back = planfile_parse(text, "a.plan", pb, note, sizeof note, err, sizeof err);
    assert_non_null(back);
    assert_string_equal(note, "");
    plan_free(back);
    long m = pb->m;
    pb->m = 1;
    pb->phi = 2.5;
    back = planfile_parse(text, "a.plan", pb, note, sizeof note, err, sizeof err);
    assert_non_null(back);
    assert_memory_equal(back->gpu, res.plan->gpu, sizeof gpu);
    assert_string_equal(note, "a.plan was written for 8 micro-batches and weight factor 4; "
                        "judged here for 1 micro-batch and weight factor 2.5");
    plan_free(back);
    pb->m = m;
    /* a weight factor of 10 or 1000 is written in full: "1e+01" was, and
     * the reader (no exponents, as in spec files) refused its own file */
    static const double factors[] = { 10, 1000, 999.5 };
    for (size_t k = 0; k < sizeof factors / sizeof factors[0]; k++) {
        pb->phi = factors[k];
        char *wtext = write_mem(pf_writer, &c);
        char line[64];
        snprintf(line, sizeof line, "\nweight_factor = %g\n", factors[k]);
        assert_non_null(strstr(wtext, line));
        back = planfile_parse(wtext, "a.plan", pb, note, sizeof note, err, sizeof err);
        if (!back)
            fail_msg("%s", err);
        assert_string_equal(note, "");
        plan_free(back);
        free(wtext);
    }
    pb->phi = 4;

    /* errors name the file and line */
    static const struct {
        const char *from, *to, *want;
    } edits[] = {
        { "gpus = 4", "gpus = 8", "a.plan:12: gpus = 8 (expected 4, the pipeline ranks being "
          "planned; --gpus changes them)" },
        { "network = gpt-test", "network = other", "a.plan:10: network 'other' (expected "
          "gpt-test, the network being planned)" },
        { "[layer layers.0]", "[layer layers.9]", "a.plan:23: [layer layers.9] (expected [layer "
          "layers.0], layer 1 of gpt-test)" },
        { "gpu = 1", "gpu = 7", "a.plan:29: bad gpu '7': out of range (expected 0 to 3)" },
        { "gpu = 1", "gpu = 4294967296", "a.plan:29: bad gpu '4294967296': out of range "
          "(expected 0 to 3)" },
        { "gpu = 1", "gpu = 1.5", "a.plan:29: bad gpu '1.5': not a whole number (expected a "
          "rank from 0 to 3)" },
        { "gpu = 1", "gpu = -1", "a.plan:29: bad gpu '-1': negative value (expected a rank from "
          "0 to 3)" },
        { "layers = ", "layers = -", "a.plan:11: bad layers '-11': negative value (expected a "
          "whole number)" },
        { "period = ", "periods = ", "a.plan:13: unknown key 'periods' in [plan] (expected "
          "network, layers, gpus, period, schedule, micro_batches or weight_factor)" },
        { "schedule = 1f1b", "schedule = 1F1B", "a.plan:14: bad schedule '1F1B' (expected 1f1b "
          "or pipedream)" },
        { "forward_start = 0ms", "forward_start = 0", "a.plan:20: bad forward_start '0' "
          "(expected a time with its unit, e.g. 12.5ms)" },
    };
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        char *bad = malloc(strlen(text) + 64);
        const char *at = strstr(text, edits[k].from);
        assert_non_null(at);
        size_t pre = (size_t)(at - text);
        memcpy(bad, text, pre);
        strcpy(bad + pre, edits[k].to);
        strcat(bad, at + strlen(edits[k].from));
        struct plan *pl = planfile_parse(bad, "a.plan", pb, NULL, 0, err, sizeof err);
        assert_null(pl);
        assert_string_equal(err, edits[k].want);
        free(bad);
    }
    /* the network is tensor-parallel: the plan's GPUs are its pipeline
     * ranks (the messages above said GPU); without tensor parallelism,
     * GPUs */
    pb->tp = 1;
    {
        char *one = strdup(text);
        assert_non_null(one);
        memcpy(strstr(one, "gpus = 4"), "gpus = 8", 8);
        assert_null(planfile_parse(one, "a.plan", pb, NULL, 0, err, sizeof err));
        assert_string_equal(err, "a.plan:12: gpus = 8 (expected 4, the GPUs being planned; "
                            "--gpus changes them)");
        free(one);
    }
    pb->tp = 2;
    /* a schedule that breaks a dependency (the last layer's forward at 0,
     * before the layers it follows): the simulator says so, at the line
     * of that start */
    char *bad = malloc(strlen(text) + 8);
    assert_non_null(bad);
    const char *fs = strstr(strstr(text, "[layer output]"), "forward_start = ");
    assert_non_null(fs);
    size_t head = (size_t)(fs - text) + strlen("forward_start = ");
    memcpy(bad, text, head);
    strcpy(bad + head, "0ms");
    strcat(bad, strchr(text + head, '\n'));
    struct plan *pl = planfile_parse(bad, "a.plan", pb, NULL, 0, err, sizeof err);
    assert_null(pl);
    int fs_line = 1;
    for (const char *q = text; q < fs; q++)
        fs_line += *q == '\n';
    char want[64];
    snprintf(want, sizeof want, "a.plan:%d: the schedule does not pass the simulator: ",
             fs_line);
    assert_true(fs_line > 13);
    assert_non_null(strstr(err, want));
    assert_non_null(strstr(err, "F10 of micro-batch 0 starts at 0 ms"));
    free(bad);
    /* cut short */
    char *cut = strdup(text);
    cut[strstr(cut, "[layer norm]") - cut] = '\0';
    assert_null(planfile_parse(cut, "a.plan", pb, NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "the file ends after 9 of 11 layers (expected [layer norm] "
                           "next)"));
    free(cut);

    /* csv: a header and one row per layer with these columns */
    char *csv = write_mem(csv_writer, &c);
    assert_true(strncmp(csv, "index,name,gpu,stage,forward_start_ms,backward_start_ms,in_flight,"
                        "stored_bytes\n", 79) == 0);
    int rows = 0;
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        int idx, g, st, n;
        char name[64];
        double f, b, bytes;
        assert_int_equal(sscanf(line, "%d,%63[^,],%d,%d,%lf,%lf,%d,%lf", &idx, name, &g, &st, &f,
                                &b, &n, &bytes), 8);
        assert_int_equal(idx, rows);
        assert_string_equal(name, pb->names[rows]);
        assert_int_equal(g, gpu[rows]);
        assert_true(f >= 0 && f < res.plan->T && b >= 0 && b < res.plan->T);
        assert_int_equal(n, res.plan->inflight[rows]);
        assert_true(bytes == pb->s[rows] * res.plan->copies[rows]);
        rows++;
    }
    assert_int_equal(rows, 11);
    /* stage: runs along the chain (0,0 | 1 | 2 | 3 | 4 | 5 | 6 | 7,7,7) */
    assert_non_null(strstr(csv, "\n10,output,3,7,"));
    free(csv);
    free(text);
    planner_result_clear(&res);
    problem_free(pb);
}

/* the given planner: in the registry by name, never run, never in "all" */
/* A writer that is killed halfway: it sends itself SIGTERM between its
 * two lines. */
static int killed_writer(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("part one\n", f);
    fflush(f);
    raise(SIGTERM);
    fputs("part two\n", f);
    return 0;
}

/* A kill while an export is being written leaves the file whole or
 * absent, and no temporary file beside it: the signal waits until the
 * file is renamed, then ends the program as it would have. */
static void test_atomic_write_signal(void **state)
{
    (void)state;
    char dir[] = "/tmp/pipeplan-atomic.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[256];
        fileio_write_atomic(path, false, killed_writer, NULL, err, sizeof err);
        _exit(0);      /* not reached: the held SIGTERM ends it first */
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    int files = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') {
            files++;
            assert_string_equal(e->d_name, "out.txt");
        }
    closedir(d);
    assert_int_equal(files, 1);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[64] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_string_equal(text, "part one\npart two\n");
    unlink(path);
    rmdir(dir);
}

static void test_given_registry(void **state)
{
    (void)state;
    assert_true(planner_exists(planner_given()));
    assert_string_equal(planner_title(planner_given()), "your split");
    for (int i = 0; i < planner_count(); i++)
        assert_false(planner_is_given(planner_name(i)));
    struct problem *pb = transformer(2, 2);
    struct planner_result res;
    assert_int_equal(planner_run(planner_given(), pb, &res), -1);
    int gpu[5] = { 0, 0, 1, 1, 3 };
    assert_int_equal(planner_judge(pb, gpu, 0, NULL, "x", &res), -1);
    assert_string_equal(res.message, "it uses GPU 3, but there are only 2 GPUs");
    assert_null(res.plan);
    assert_non_null(export_find("megatron"));
    assert_non_null(export_find("torch-schedule"));
    assert_null(export_find("xml"));
    problem_free(pb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_list),
        cmocka_unit_test(test_megatron_parse),
        cmocka_unit_test(test_megatron_round_trip),
        cmocka_unit_test(test_megatron_args),
        cmocka_unit_test(test_deepspeed_parts),
        cmocka_unit_test(test_deepspeed_parse),
        cmocka_unit_test(test_torchtitan_parse),
        cmocka_unit_test(test_planfile_round_trip),
        cmocka_unit_test(test_atomic_write_signal),
        cmocka_unit_test(test_given_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
