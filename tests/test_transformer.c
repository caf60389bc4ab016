/* Tests for the transformer model behind `pipeplan gen transformer`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "transformer.h"

static const struct transformer_shape *preset(const char *name)
{
    const struct transformer_shape *sh = transformer_preset(name);
    if (!sh)
        fail_msg("no preset '%s'", name);
    return sh;
}

static struct transformer_run run_of(long seq, long mb, long tp)
{
    return (struct transformer_run){ .seq = seq, .micro_batch = mb, .tp = tp,
                                     .dtype = TRANSFORMER_BF16, .gpu = TRANSFORMER_H100,
                                     .mfu = 0.4 };
}

/* ---- parameter counts against the published sizes ---- */

static void test_llama_params_are_exact(void **state)
{
    (void)state;
    /* The totals Hugging Face lists for each checkpoint (safetensors
     * metadata of the meta-llama repositories). */
    static const struct { const char *name; uint64_t params; } cases[] = {
        { "llama2-7b", 6738415616ULL },
        { "llama2-13b", 13015864320ULL },
        { "llama2-70b", 68976648192ULL },
        { "llama3-8b", 8030261248ULL },
        { "llama3-70b", 70553706496ULL },
        { "llama3.1-405b", 405853388800ULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t got = transformer_total_params(preset(cases[i].name));
        if (got != cases[i].params)
            fail_msg("%s: %llu parameters, published %llu", cases[i].name,
                     (unsigned long long)got, (unsigned long long)cases[i].params);
    }
}

static void test_params_within_published_sizes(void **state)
{
    (void)state;
    /* Published sizes in billions and the tolerance they allow: 1%, or
     * for "1.3B", given to two figures, half its last digit. */
    static const struct { const char *name; double billions, tolerance; } cases[] = {
        { "llama2-7b", 6.74, 0.01 },  { "llama2-13b", 13.0, 0.01 },
        { "llama2-70b", 69.0, 0.01 }, { "llama3-8b", 8.03, 0.01 },
        { "llama3-70b", 70.6, 0.01 }, { "llama3.1-405b", 405, 0.01 },
        { "gpt3-175b", 175, 0.01 },   { "gpt3-1.3b", 1.3, 0.05 / 1.3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = (double)transformer_total_params(preset(cases[i].name)) / 1e9;
        double off = fabs(got - cases[i].billions) / cases[i].billions;
        if (off > cases[i].tolerance)
            fail_msg("%s: %.4f B parameters, published %.4g B (%.2f%% off)", cases[i].name,
                     got, cases[i].billions, off * 100);
    }
    /* GPT-3 XL by hand: 24 layers x (12 H^2 + 13 H), tied 50257 x H embedding,
     * 2048 x H positions, final LayerNorm 2H, H = 2048 */
    uint64_t h = 2048;
    assert_int_equal(transformer_total_params(preset("gpt3-1.3b")),
                     24 * (12 * h * h + 13 * h) + 50257 * h + 2048 * h + 2 * h);
}

static void test_tied_embeddings_counted_once(void **state)
{
    (void)state;
    struct transformer_shape sh = *preset("llama2-7b");
    uint64_t untied = transformer_total_params(&sh);
    sh.tied = true;
    uint64_t tied = transformer_total_params(&sh);
    assert_int_equal(untied - tied, 32000ULL * 4096);
    assert_int_equal(transformer_layer_params(&sh, TRANSFORMER_OUTPUT), 0);
    assert_int_equal(transformer_layer_params(&sh, TRANSFORMER_EMBED), 32000ULL * 4096);
    struct transformer_run run = run_of(4096, 1, 1);
    assert_int_equal(transformer_gpu_params(&sh, &run, TRANSFORMER_OUTPUT), 0);
}

static void test_tensor_parallel_splits_weights(void **state)
{
    (void)state;
    const struct transformer_shape *sh = preset("llama3-70b");
    struct transformer_run run = run_of(8192, 1, 8);
    uint64_t h = 8192;
    /* every matrix / 8, the two RMSNorms whole on each GPU */
    assert_int_equal(8 * transformer_gpu_params(sh, &run, TRANSFORMER_BLOCK),
                     transformer_layer_params(sh, TRANSFORMER_BLOCK) + 7 * 2 * h);
    assert_int_equal(8 * transformer_gpu_params(sh, &run, TRANSFORMER_EMBED),
                     transformer_layer_params(sh, TRANSFORMER_EMBED));
    assert_int_equal(transformer_gpu_params(sh, &run, TRANSFORMER_NORM), h);
    /* GPT-3's 50257 is not divisible by 8: padded to a multiple of 1024 */
    const struct transformer_shape *gpt = preset("gpt3-175b");
    assert_int_equal(transformer_padded_vocab(gpt, 1), 50257);
    assert_int_equal(transformer_padded_vocab(gpt, 8), 51200);
    assert_int_equal(transformer_padded_vocab(sh, 8), 128256);
    /* its learned positions are whole on every GPU */
    assert_int_equal(transformer_gpu_params(gpt, &run, TRANSFORMER_EMBED),
                     51200ULL * 12288 / 8 + 2048ULL * 12288);
}

/* ---- stored activations against Korthikanti et al. 2022 ---- */

/* A small GPT: H = 64, A = 4, F = 4H, S = 32, B = 2, fp16, standard
 * attention; the paper's terms, in bytes, are exact integers here. */
static void test_stored_reproduces_the_paper(void **state)
{
    (void)state;
    struct transformer_shape sh = { .name = NULL, .layers = 2, .hidden = 64, .heads = 4,
                                    .kv_heads = 4, .ffn = 256, .vocab = 1000, .positions = 32 };
    const uint64_t s = 32, b = 2, h = 64, a = 4;
    for (long t = 1; t <= 4; t *= 2) {
        struct transformer_run run = run_of((long)s, (long)b, t);
        run.dtype = TRANSFORMER_FP16;
        run.attention = TRANSFORMER_STANDARD;
        char err[256];
        assert_int_equal(transformer_validate(&sh, &run, err, sizeof err), 0);
        uint64_t ut = (uint64_t)t;
        /* no recomputation: sbh (34 + 5as/h) / t */
        run.recompute = TRANSFORMER_RECOMPUTE_NONE;
        assert_int_equal(transformer_stored(&sh, &run, TRANSFORMER_BLOCK),
                         (34 * s * b * h + 5 * a * s * s * b) / ut);
        /* selective: 34 sbh / t */
        run.recompute = TRANSFORMER_RECOMPUTE_SELECTIVE;
        assert_int_equal(transformer_stored(&sh, &run, TRANSFORMER_BLOCK), 34 * s * b * h / ut);
        /* full: the layer input, 2 sbh (a sequence-parallel shard: / t) */
        run.recompute = TRANSFORMER_RECOMPUTE_FULL;
        assert_int_equal(transformer_stored(&sh, &run, TRANSFORMER_BLOCK), 2 * s * b * h / ut);
        /* flash: no s x s tensor, only the fp32 log-sum-exp per head and token */
        run.recompute = TRANSFORMER_RECOMPUTE_NONE;
        run.attention = TRANSFORMER_FLASH;
        assert_int_equal(transformer_stored(&sh, &run, TRANSFORMER_BLOCK),
                         34 * s * b * h / ut + 4 * a * s * b / ut);
        /* the cut is the sequence-parallel hidden state */
        assert_int_equal(transformer_cut(&sh, &run, TRANSFORMER_BLOCK), 2 * s * b * h / ut);
        assert_int_equal(transformer_cut(&sh, &run, TRANSFORMER_OUTPUT), 0);
    }
}

static void test_stored_llama_terms(void **state)
{
    (void)state;
    /* Llama: no dropout masks, K and V with K heads, SwiGLU keeps 3 S*B*F:
     * p*S*B*(6H + 2*K*H/A + 3F)/T + flash statistics 4*A*S*B/T */
    const struct transformer_shape *sh = preset("llama3-70b");
    struct transformer_run run = run_of(8192, 1, 8);
    const uint64_t s = 8192, h = 8192, f = 28672, hk = 1024, a = 64;
    assert_int_equal(transformer_stored(sh, &run, TRANSFORMER_BLOCK),
                     2 * s * (6 * h + 2 * hk + 3 * f) / 8 + 4 * a * s / 8);
    run.attention = TRANSFORMER_STANDARD;   /* + the softmax output, 2*A*S*S*B/T */
    assert_int_equal(transformer_stored(sh, &run, TRANSFORMER_BLOCK),
                     2 * s * (6 * h + 2 * hk + 3 * f) / 8 + 2 * a * s * s / 8);
    /* output: its input, the logits and the fp32 softmax, (2 + 4) S*V/T */
    assert_int_equal(transformer_stored(sh, &run, TRANSFORMER_OUTPUT),
                     2 * s * h / 8 + 6 * s * 128256 / 8);
}

/* ---- FLOPs and times ---- */

static void test_flops_small_case_by_hand(void **state)
{
    (void)state;
    /* H = 8, A = 2, K = 1 (head size 4, K*H/A = 4), F = 16, gated, V = 10,
     * S = 4, B = 1:
     *   wq, wo: 2 x 2*S*B*H*H = 2 x 512 = 1024; wk, wv: 2 x 2*4*8*4 = 512
     *   w1, w3, w2: 3 x 2*4*8*16 = 3072
     *   core: QK^T + AV = 4*B*S*S*H = 512 non-causal; flash causal half 256
     *   forward (flash) = 1024 + 512 + 3072 + 256 = 4864; standard 5120
     *   output: 2*S*B*H*V = 640 */
    struct transformer_shape sh = { .layers = 1, .hidden = 8, .heads = 2, .kv_heads = 1,
                                    .ffn = 16, .vocab = 10, .gated = true };
    struct transformer_run run = run_of(4, 1, 1);
    run.gpu = TRANSFORMER_A100;
    run.mfu = 0.5;
    assert_true(transformer_forward_flops(&sh, &run, TRANSFORMER_BLOCK) == 4864);
    assert_true(transformer_forward_flops(&sh, &run, TRANSFORMER_OUTPUT) == 640);
    assert_true(transformer_forward_flops(&sh, &run, TRANSFORMER_EMBED) == 0);
    assert_true(transformer_forward_flops(&sh, &run, TRANSFORMER_NORM) == 0);
    run.attention = TRANSFORMER_STANDARD;
    assert_true(transformer_forward_flops(&sh, &run, TRANSFORMER_BLOCK) == 5120);
    assert_true(transformer_core_flops(&sh, &run) == 512);

    /* time: FLOPs / (0.5 x 312 TFLOPS), in ms; backward twice, plus what is
     * recomputed */
    double unit = 1e3 / (0.5 * 312e12);
    assert_float_equal(transformer_forward_ms(&sh, &run, TRANSFORMER_BLOCK), 5120 * unit, 1e-18);
    assert_float_equal(transformer_backward_ms(&sh, &run, TRANSFORMER_BLOCK), 10240 * unit,
                       1e-18);
    run.recompute = TRANSFORMER_RECOMPUTE_SELECTIVE;
    assert_float_equal(transformer_backward_ms(&sh, &run, TRANSFORMER_BLOCK),
                       (10240 + 512) * unit, 1e-18);
    run.recompute = TRANSFORMER_RECOMPUTE_FULL;
    assert_float_equal(transformer_backward_ms(&sh, &run, TRANSFORMER_BLOCK),
                       (10240 + 5120) * unit, 1e-18);
}

static void test_tensor_parallel_time_and_collectives(void **state)
{
    (void)state;
    /* Llama 3 70B, T = 8 on H100 (450 GB/s per direction): one collective
     * moves 7/8 x 8192*8192*2 B = 117440512 B: 0.26097891 ms */
    const struct transformer_shape *sh = preset("llama3-70b");
    struct transformer_run run = run_of(8192, 1, 8);
    double c = 117440512.0 / 450e9 * 1e3;
    assert_float_equal(transformer_collective_ms(sh, &run), c, 1e-12);
    double compute = transformer_forward_flops(sh, &run, TRANSFORMER_BLOCK) / 8 /
                     (0.4 * 989e12) * 1e3;
    assert_float_equal(transformer_forward_ms(sh, &run, TRANSFORMER_BLOCK), compute + 4 * c,
                       1e-9);
    assert_float_equal(transformer_backward_ms(sh, &run, TRANSFORMER_BLOCK),
                       2 * compute + 4 * c, 1e-9);
    assert_float_equal(transformer_forward_ms(sh, &run, TRANSFORMER_EMBED), c, 1e-12);
    assert_float_equal(transformer_forward_ms(sh, &run, TRANSFORMER_NORM), 0, 1e-12);
    run.tp_bandwidth = 100e9;
    assert_float_equal(transformer_collective_ms(sh, &run), 117440512.0 / 100e9 * 1e3, 1e-12);
    run.tp = 1;
    assert_float_equal(transformer_collective_ms(sh, &run), 0, 0);
}

/* ---- validation ---- */

static void expect_invalid(const struct transformer_shape *sh, const struct transformer_run *run,
                           const char *what)
{
    char err[256] = "";
    assert_int_equal(transformer_validate(sh, run, err, sizeof err), -1);
    if (!strstr(err, what) || strchr(err, '\n'))
        fail_msg("got '%s'; expected one line with '%s'", err, what);
}

static void test_validate_names_the_flag(void **state)
{
    (void)state;
    struct transformer_shape sh = *preset("llama3-70b");
    struct transformer_run run = run_of(8192, 1, 8);
    char err[256];
    assert_int_equal(transformer_validate(&sh, &run, err, sizeof err), 0);
    run.tp = 16;    /* does not divide the 8 kv heads */
    expect_invalid(&sh, &run, "--tensor-parallel 16");
    run.tp = 1;
    run.seq = 8191;
    run.tp = 8;     /* sequence parallelism splits the sequence */
    expect_invalid(&sh, &run, "--seq 8191");
    run.seq = 8192;
    run.gpu = TRANSFORMER_V100;
    expect_invalid(&sh, &run, "--dtype bf16");
    run.gpu = TRANSFORMER_H100;
    sh.heads = 48;
    expect_invalid(&sh, &run, "--heads 48");
    sh.heads = 64;
    sh.kv_heads = 3;
    expect_invalid(&sh, &run, "--kv-heads 3");
    struct transformer_shape gpt = *preset("gpt3-1.3b");
    struct transformer_run long_run = run_of(4096, 1, 1);
    expect_invalid(&gpt, &long_run, "--seq 4096");
}

/* ---- the network file ---- */

static char *write_text(const struct spec_network *net, char **header)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(spec_network_write(f, net, (const char *const *)header), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_network_loads_back(void **state)
{
    (void)state;
    const struct transformer_shape *sh = preset("gpt3-175b");
    struct transformer_run run = run_of(2048, 2, 8);
    run.recompute = TRANSFORMER_RECOMPUTE_SELECTIVE;
    char err[SPEC_ERR_LEN];
    assert_int_equal(transformer_validate(sh, &run, err, sizeof err), 0);
    struct spec_network *net = transformer_network(sh, &run, err, sizeof err);
    assert_non_null(net);
    assert_int_equal(net->nlayers, 96 + 3);
    assert_string_equal(net->layers[0].name, "tok_embeddings");
    assert_string_equal(net->layers[1].name, "layers.0");
    assert_string_equal(net->layers[96].name, "layers.95");
    assert_string_equal(net->layers[97].name, "norm");
    assert_string_equal(net->layers[98].name, "output");
    assert_string_equal(net->name, "gpt3-175b-tp8");
    char **header = transformer_header(sh, &run, "pipeplan gen transformer --preset gpt3-175b "
                                       "--seq 2048 --micro-batch 2 --tensor-parallel 8");
    assert_non_null(header);
    for (char **l = header; *l; l++)
        if (strlen(*l) + 2 > SPEC_MAX_LINE)
            fail_msg("header line of %zu bytes: %s", strlen(*l), *l);
    char *text = write_text(net, header);
    assert_non_null(strstr(text, "\n;   pipeplan gen transformer --preset gpt3-175b --seq 2048"));
    struct spec_network *back = spec_network_parse(text, "gen.ini", err, sizeof err);
    if (!back)
        fail_msg("the generated file does not load: %s", err);
    assert_int_equal(back->nlayers, net->nlayers);
    assert_int_equal(back->micro_batch, 2);
    assert_int_equal(back->tensor_parallel, 8);
    for (int i = 0; i < net->nlayers; i++) {
        const struct spec_layer *x = &net->layers[i], *y = &back->layers[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->weights, y->weights);
        assert_int_equal(x->activation, y->activation);
        assert_int_equal(x->stored, y->stored);
        /* times are written to the nanosecond */
        assert_float_equal(x->forward_ms, y->forward_ms, 5.1e-7);
        assert_float_equal(x->backward_ms, y->backward_ms, 5.1e-7);
    }
    /* weights per GPU add up to the model over the group, plus what every
     * GPU holds whole: 96 layers x (2 LayerNorms 4H + wo, w2 biases 2H),
     * the final LayerNorm 2H, the positions, the padded vocabulary rows */
    uint64_t h = 12288, sum = 0;
    for (int i = 0; i < net->nlayers; i++)
        sum += net->layers[i].weights;
    uint64_t replicated = 96 * 6 * h + 2 * h + 2048 * h;
    assert_int_equal(sum / 2 * 8,
                     transformer_total_params(sh) + 7 * replicated + (51200 - 50257) * h);
    free(text);
    transformer_header_free(header);
    spec_network_free(back);
    spec_network_free(net);
}

static void test_long_command_is_wrapped(void **state)
{
    (void)state;
    const struct transformer_shape *sh = preset("llama3-8b");
    struct transformer_run run = run_of(8192, 1, 1);
    char cmd[600] = "pipeplan gen transformer";
    while (strlen(cmd) < 500)
        strcat(cmd, " --layers 32");
    char **header = transformer_header(sh, &run, cmd);
    assert_non_null(header);
    int continued = 0;
    for (char **l = header; *l; l++) {
        assert_true(strlen(*l) + 2 <= SPEC_MAX_LINE);
        size_t n = strlen(*l);
        if (n > 2 && strcmp(*l + n - 2, " \\") == 0)
            continued++;
    }
    assert_true(continued >= 4);
    transformer_header_free(header);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_params_are_exact),
        cmocka_unit_test(test_params_within_published_sizes),
        cmocka_unit_test(test_tied_embeddings_counted_once),
        cmocka_unit_test(test_tensor_parallel_splits_weights),
        cmocka_unit_test(test_stored_reproduces_the_paper),
        cmocka_unit_test(test_stored_llama_terms),
        cmocka_unit_test(test_flops_small_case_by_hand),
        cmocka_unit_test(test_tensor_parallel_time_and_collectives),
        cmocka_unit_test(test_validate_names_the_flag),
        cmocka_unit_test(test_network_loads_back),
        cmocka_unit_test(test_long_command_is_wrapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
