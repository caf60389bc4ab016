/* Spec files: what loads, and the exact message for each kind of bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "spec.h"

#define NET_HEAD "[network]\nname = tiny\nmicro_batch = 32\n"
#define LAYER_A "[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 1KB\nactivation = 4MB\n"
#define PLAT_HEAD "[platform]\nname = box\ngpus = 2\nmemory = 16GiB\nreserved = 1GiB\n" \
                  "bandwidth = 25GB/s\nlatency = 10us\n"
#define TRAINING "[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = adam\n"

static void test_network_loads_with_units_and_defaults(void **state)
{
    (void)state;
    char err[SPEC_ERR_LEN];
    const char *text =
        "; a comment\n"
        "[network]\n"
        "name = tiny net\n"
        "micro_batch = 32          ; samples\n"
        "source = hand made\n"
        "\n"
        "[layer conv1]\n"
        "forward = 1.9ms\n"
        "backward = 3100us\n"
        "weights = 37.6KB\n"
        "activation = 12.8MB\n"
        "  [layer fc]      ; indented: a header all the same, not more of the value above\n"
        "forward = 0.5ms\r\n"
        "backward = 1ms\n"
        "weights = 4MiB\n"
        "activation = 4KB\n"
        "stored = 8KB\n";
    struct spec_network *net = spec_network_parse(text, "t.ini", err, sizeof err);
    assert_non_null(net);
    assert_string_equal(net->name, "tiny net");
    assert_string_equal(net->source, "hand made");
    assert_int_equal(net->micro_batch, 32);
    assert_int_equal(net->nlayers, 2);
    assert_string_equal(net->layers[0].name, "conv1");
    assert_true(net->layers[0].forward_ms == 1.9);
    assert_true(net->layers[0].backward_ms == 3.1);
    assert_int_equal(net->layers[0].weights, 37600);
    assert_int_equal(net->layers[0].activation, 12800000);
    assert_int_equal(net->layers[0].stored, 12800000);   /* defaults to activation */
    assert_int_equal(net->layers[0].line, 7);
    assert_int_equal(net->layers[1].weights, 4194304);
    assert_int_equal(net->layers[1].stored, 8000);
    assert_true(spec_network_compute_ms(net) == 1.9 + 3.1 + 0.5 + 1.0);
    assert_int_equal(spec_network_weights(net), 37600 + 4194304);
    spec_network_free(net);
}

/* A + before a count, as before every other number in the files. */
static void test_counts_take_a_plus(void **state)
{
    (void)state;
    char err[SPEC_ERR_LEN];
    struct spec_platform *pl = spec_platform_parse(
        "[platform]\nname = box\ngpus = +2\nmemory = +16GiB\nreserved = 1GiB\n"
        "bandwidth = 25GB/s\nlatency = 10us\n[training]\nmicro_batches = +8\n"
        "schedule = 1f1b\noptimizer = adam\n", "p.ini", err, sizeof err);
    if (!pl)
        fail_msg("%s", err);
    assert_int_equal(pl->gpus, 2);
    assert_int_equal(pl->micro_batches, 8);
    spec_platform_free(pl);
}

static void test_platform_loads_overrides_and_presets(void **state)
{
    (void)state;
    char err[SPEC_ERR_LEN];
    const char *text = PLAT_HEAD "[gpu 1]\nmemory = 32GiB\n" TRAINING;
    struct spec_platform *pl = spec_platform_parse(text, "p.ini", err, sizeof err);
    assert_non_null(pl);
    assert_string_equal(pl->name, "box");
    assert_int_equal(pl->gpus, 2);
    assert_int_equal(pl->memory, 17179869184ULL);
    assert_int_equal(pl->gpu_memory[0], 17179869184ULL);
    assert_int_equal(pl->gpu_memory[1], 34359738368ULL);
    assert_int_equal(pl->reserved, 1073741824ULL);
    assert_true(pl->bandwidth == 25e9);
    assert_true(pl->latency_ms == 0.01);
    assert_int_equal(pl->micro_batches, 8);
    assert_int_equal(pl->schedule, SPEC_SCHEDULE_1F1B);
    assert_int_equal(pl->optimizer, SPEC_OPT_ADAM);
    assert_true(pl->weight_factor == 4);
    spec_platform_free(pl);

    text = PLAT_HEAD "[training]\nmicro_batches = 4\nschedule = pipedream\nweight_factor = 2.5\n";
    pl = spec_platform_parse(text, "p.ini", err, sizeof err);
    assert_non_null(pl);
    assert_int_equal(pl->schedule, SPEC_SCHEDULE_PIPEDREAM);
    assert_int_equal(pl->optimizer, SPEC_OPT_FACTOR);
    assert_true(pl->weight_factor == 2.5);
    spec_platform_free(pl);

    text = PLAT_HEAD "[training]\nmicro_batches = 4\nschedule = 1f1b\noptimizer = sgd\n";
    pl = spec_platform_parse(text, "p.ini", err, sizeof err);
    assert_non_null(pl);
    assert_true(pl->weight_factor == 2);
    spec_platform_free(pl);
}

struct bad_case {
    const char *text;
    const char *message;
};

static void expect_network_error(const struct bad_case *c)
{
    char err[SPEC_ERR_LEN];
    struct spec_network *net = spec_network_parse(c->text, "n.ini", err, sizeof err);
    if (net || strcmp(err, c->message) != 0)
        print_error("input:\n%s\nexpected: %s\n     got: %s\n", c->text, c->message,
                    net ? "(accepted)" : err);
    assert_null(net);
    assert_string_equal(err, c->message);
}

static void expect_platform_error(const struct bad_case *c)
{
    char err[SPEC_ERR_LEN];
    struct spec_platform *pl = spec_platform_parse(c->text, "p.ini", err, sizeof err);
    if (pl || strcmp(err, c->message) != 0)
        print_error("input:\n%s\nexpected: %s\n     got: %s\n", c->text, c->message,
                    pl ? "(accepted)" : err);
    assert_null(pl);
    assert_string_equal(err, c->message);
}

/* Names live in a hash table that grows: a duplicate is found after many
 * growths, and 1,000 distinct names (colliding prefixes) all load. */
static void test_network_many_layers_and_a_late_duplicate(void **state)
{
    (void)state;
    enum { N = 1000, PER = 80 };
    char *text = malloc((size_t)(N + 1) * PER + 64);
    assert_non_null(text);
    size_t len = (size_t)sprintf(text, NET_HEAD);
    for (int i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "[layer l%d]\nforward = 1ms\nbackward = 1ms\n"
                               "weights = 1B\nactivation = 1B\n", i);
    char err[SPEC_ERR_LEN] = "";
    struct spec_network *net = spec_network_parse(text, "n.ini", err, sizeof err);
    if (!net)
        fail_msg("%s", err);
    assert_int_equal(net->nlayers, N);
    assert_string_equal(net->layers[N - 1].name, "l999");
    spec_network_free(net);
    /* l7's header is on line 4 + 5 * 7; the copy comes after 5 N lines */
    sprintf(text + len, "[layer l7]\n");
    net = spec_network_parse(text, "n.ini", err, sizeof err);
    assert_null(net);
    assert_string_equal(err, "n.ini:5004: duplicate layer 'l7' (expected each name once; the first is on line 39)");
    free(text);
}

static void test_network_errors_name_the_line(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        { "", "n.ini:1: empty file (expected a [network] section and [layer NAME] sections)" },
        { "\n  \n", "n.ini:1: empty file (expected a [network] section and [layer NAME] sections)" },
        { "; only a comment\n" LAYER_A,
          "n.ini:1: no [network] section (expected [network] with name and micro_batch)" },
        { NET_HEAD, "n.ini:1: network 'tiny' has no layers (expected [layer NAME] sections)" },
        { "\n" NET_HEAD "[layer a]\nforward = 1ms\n",
          "n.ini:5: [layer a] has no 'backward' (expected a line 'backward = ...')" },
        { "[network]\nname = x\n" LAYER_A,
          "n.ini:1: [network] has no 'micro_batch' (expected a line 'micro_batch = ...')" },
        { NET_HEAD LAYER_A "[layer a]\nforward = 1ms\n",
          "n.ini:9: duplicate layer 'a' (expected each name once; the first is on line 4)" },
        { NET_HEAD "[layer a]\nforwad = 1ms\n",
          "n.ini:5: unknown key 'forwad' in [layer a] (expected forward, backward, weights, "
          "activation or stored)" },
        { NET_HEAD "[layers a]\n",
          "n.ini:4: unknown section [layers a] (expected [network] or [layer NAME])" },
        { NET_HEAD "[layer]\n", "n.ini:4: layer without a name (expected [layer NAME])" },
        { NET_HEAD "[layer a]\nforward = 1.9\n",
          "n.ini:5: bad forward '1.9': missing unit (expected us, ms or s)" },
        { NET_HEAD "[layer a]\nforward = -1ms\n", "n.ini:5: bad forward '-1ms': negative value (expected a time from 0 to 10^12 ms, e.g. 1.9ms)" },
        { NET_HEAD "[layer a]\nforward = nanms\n", "n.ini:5: bad forward 'nanms': not a number (expected a time from 0 to 10^12 ms, e.g. 1.9ms)" },
        { NET_HEAD "[layer a]\nforward = 1ms\nbackward = 1e400ms\n",
          "n.ini:6: bad backward '1e400ms': exponents are not accepted (write the number out in full)" },
        { NET_HEAD "[layer a]\nweights = 20000000000GB\n",
          "n.ini:5: bad weights '20000000000GB': size does not fit in 64 bits (expected a size below 16384 PiB, e.g. 12.8MB)" },
        { NET_HEAD "[layer a]\nweights = 12\n",
          "n.ini:5: bad weights '12': missing unit (expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)" },
        { NET_HEAD "[layer a]\nforward = 1ms\nforward = 2ms\n",
          "n.ini:6: 'forward' given twice in [layer a] (expected it once)" },
        { NET_HEAD "[layer a]\nforward = 1ms\n   2ms\n",
          "n.ini:6: indented line continues 'forward' (continuation lines are not allowed; "
          "expected key = value)" },
        { "name = x\n" NET_HEAD,
          "n.ini:1: 'name' outside any section (expected a [network] header first)" },
        { NET_HEAD "micro_batch = 4\n", "n.ini:4: 'micro_batch' given twice in [network] (expected it once)" },
        { "[network]\nname = x\nmicro_batch = 0\n",
          "n.ini:3: bad micro_batch '0': out of range (expected 1 to 1000000000)" },
        { "[network]\nname =\n", "n.ini:2: 'name' has no value (expected name = VALUE)" },
        { NET_HEAD "tensor_parallel = 0\n",
          "n.ini:4: bad tensor_parallel '0': out of range (expected 1 to 4096)" },
        { "[network]\nname = x\nmicro_batch = 4\n" "[network]\n",
          "n.ini:4: second [network] section (expected one; the first is on line 1)" },
        { "{\"network\": \"json\"}\n",
          "n.ini:1: not an INI line (expected [section], key = value or a ; comment)" },
        { NET_HEAD "[layer a\n", "n.ini:4: section header without ']' (expected [name])" },
        { NET_HEAD LAYER_A "this is not ini\n",
          "n.ini:9: not an INI line (expected [section], key = value or a ; comment)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_network_error(&cases[i]);
}

static void test_overlong_line_is_rejected_not_split(void **state)
{
    (void)state;
    char text[1024], err[SPEC_ERR_LEN];
    /* exactly 199 bytes is fine */
    char name[200];
    memset(name, 'x', sizeof name);
    name[199 - 7] = '\0';      /* "name = " + 192 */
    snprintf(text, sizeof text, "[network]\nname = %s\nmicro_batch = 1\n" LAYER_A, name);
    struct spec_network *net = spec_network_parse(text, "n.ini", err, sizeof err);
    assert_non_null(net);
    assert_int_equal(strlen(net->name), 192);
    spec_network_free(net);
    name[199 - 6] = '\0';
    memset(name, 'x', 193);
    snprintf(text, sizeof text, "[network]\nname = %s\nmicro_batch = 1\n" LAYER_A, name);
    net = spec_network_parse(text, "n.ini", err, sizeof err);
    assert_null(net);
    assert_string_equal(err, "n.ini:2: line too long (200 bytes; expected at most 199)");
}

static void test_platform_errors_name_the_line(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        { "", "p.ini:1: empty file (expected [platform] and [training] sections)" },
        { TRAINING, "p.ini:1: no [platform] section (expected [platform] with name, gpus, "
                    "memory, reserved, bandwidth and latency)" },
        { PLAT_HEAD, "p.ini:1: no [training] section (expected [training] with "
                     "micro_batches, schedule and optimizer or weight_factor)" },
        { "[platform]\nname = box\ngpus = 0\n",
          "p.ini:3: bad gpus '0': out of range (expected 1 to 4096)" },
        { "[platform]\nname = box\ngpus = 8\nmemory = 1GiB\nreserved = 2GiB\n"
          "bandwidth = 1GB/s\nlatency = 0us\n" TRAINING,
          "p.ini:5: memory is not above reserved (expected memory > reserved)" },
        { PLAT_HEAD "[gpu 2]\nmemory = 8GiB\n" TRAINING,
          "p.ini:8: [gpu 2] but the platform has 2 GPUs (expected N from 0 to 1)" },
        { PLAT_HEAD "[gpu 1]\nmemory = 512MiB\n" TRAINING,
          "p.ini:9: memory of GPU 1 is not above reserved (expected memory > reserved)" },
        { PLAT_HEAD "[gpu 1]\n" TRAINING,
          "p.ini:8: [gpu 1] has no 'memory' (expected a line 'memory = ...')" },
        { PLAT_HEAD "[gpu x]\n", "p.ini:8: bad [gpu x]: not a whole number (expected "
                                 "[gpu N], N from 0)" },
        { PLAT_HEAD "[gpu 4096]\n", "p.ini:8: bad [gpu 4096]: out of range (expected 0 to "
                                    "4095)" },
        { PLAT_HEAD "[gpu 0]\nmemory = 2GiB\n[gpu 0]\n",
          "p.ini:10: duplicate [gpu 0] (expected each GPU once; the first is on line 8)" },
        { PLAT_HEAD "[training]\nmicro_batches = 8\nschedule = gpipe\n",
          "p.ini:10: bad schedule 'gpipe' (expected 1f1b or pipedream)" },
        { PLAT_HEAD "[training]\nmicro_batches = 8\nschedule = 1f1b\n",
          "p.ini:8: [training] has no optimizer (expected optimizer = adam, sgd or none, or "
          "weight_factor = N)" },
        { PLAT_HEAD "[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = adam\n"
          "weight_factor = 3\n",
          "p.ini:8: [training] has both optimizer and weight_factor (expected one of them)" },
        { PLAT_HEAD "[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = lamb\n",
          "p.ini:11: bad optimizer 'lamb' (expected adam, sgd or none)" },
        { PLAT_HEAD "[training]\nmicro_batches = 8\nschedule = 1f1b\nweight_factor = 0.5\n",
          "p.ini:11: weight_factor 0.5 out of range (expected 1 to 1000)" },
        { "[platform]\nname = box\ngpus = 2\nmemory = 16GiB\nreserved = 1GiB\n"
          "bandwidth = 25GB\n",
          "p.ini:6: bad bandwidth '25GB': unknown unit 'GB' (expected B/s, KB/s, MB/s, GB/s, "
          "TB/s, KiB/s, MiB/s, GiB/s, Kbit/s, Mbit/s, Gbit/s or Tbit/s)" },
        { "[platform]\nname = box\ngpus = 2\nmemory = 16GiB\nreserved = 1GiB\n"
          "bandwidth = 25GB/s\n" TRAINING,
          "p.ini:1: [platform] has no 'latency' (expected a line 'latency = ...')" },
        { PLAT_HEAD "[extras]\n",
          "p.ini:8: unknown section [extras] (expected [platform], [training] or [gpu N])" },
        { PLAT_HEAD "colour = red\n",
          "p.ini:8: unknown key 'colour' in [platform] (expected name, gpus, memory, "
          "reserved, bandwidth or latency)" },
        { "[platform]\nmemory = 0B\n", "p.ini:2: memory 0B (expected a size above 0)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_platform_error(&cases[i]);
}

static void test_write_then_parse_round_trips(void **state)
{
    (void)state;
    char err[SPEC_ERR_LEN];
    const char *text = NET_HEAD "source = test\ntensor_parallel = 8\n" LAYER_A
        "[layer b]\nforward = 0.001ms\nbackward = 22.316ms\nweights = 151011328B\n"
        "activation = 196MiB\nstored = 3B\n";
    struct spec_network *net = spec_network_parse(text, "n.ini", err, sizeof err);
    assert_non_null(net);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    const char *comments[] = { "first", "second", NULL };
    assert_int_equal(spec_network_write(out, net, comments), 0);
    fclose(out);
    assert_non_null(strstr(buf, "; first\n; second\n\n[network]\n"));
    assert_non_null(strstr(buf, "weights = 151.011328MB\n"));
    struct spec_network *back = spec_network_parse(buf, "w.ini", err, sizeof err);
    assert_non_null(back);
    assert_int_equal(back->nlayers, 2);
    assert_int_equal(back->tensor_parallel, 8);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(back->layers[i].name, net->layers[i].name);
        assert_true(back->layers[i].forward_ms == net->layers[i].forward_ms);
        assert_true(back->layers[i].backward_ms == net->layers[i].backward_ms);
        assert_true(back->layers[i].weights == net->layers[i].weights);
        assert_true(back->layers[i].activation == net->layers[i].activation);
        assert_true(back->layers[i].stored == net->layers[i].stored);
    }
    /* and writing again gives the same bytes */
    char *buf2 = NULL;
    size_t len2 = 0;
    out = open_memstream(&buf2, &len2);
    spec_network_write(out, back, comments);
    fclose(out);
    assert_string_equal(buf, buf2);
    free(buf);
    free(buf2);
    spec_network_free(back);
    spec_network_free(net);
}

static void test_load_reports_missing_file(void **state)
{
    (void)state;
    char err[SPEC_ERR_LEN];
    assert_null(spec_network_load("/nonexistent/dir/x.ini", err, sizeof err));
    assert_string_equal(err, "/nonexistent/dir/x.ini: cannot open: No such file or directory");
}

/* A NUL byte is reported with the file and line, like every other error. */
static void test_nul_byte_names_the_line(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    char path[200];
    snprintf(path, sizeof path, "%.150s/pipeplan-nul-XXXXXX", base && *base ? base : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] = NET_HEAD "[layer a]\nforward = 1\0ms\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char err[SPEC_ERR_LEN], want[SPEC_ERR_LEN];
    snprintf(want, sizeof want, "%s:5: a NUL byte (expected a text file)", path);
    assert_null(spec_network_load(path, err, sizeof err));
    assert_string_equal(err, want);
    assert_null(spec_platform_load(path, err, sizeof err));
    assert_string_equal(err, want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_network_loads_with_units_and_defaults),
        cmocka_unit_test(test_counts_take_a_plus),
        cmocka_unit_test(test_platform_loads_overrides_and_presets),
        cmocka_unit_test(test_network_errors_name_the_line),
        cmocka_unit_test(test_network_many_layers_and_a_late_duplicate),
        cmocka_unit_test(test_overlong_line_is_rejected_not_split),
        cmocka_unit_test(test_platform_errors_name_the_line),
        cmocka_unit_test(test_write_then_parse_round_trips),
        cmocka_unit_test(test_load_reports_missing_file),
        cmocka_unit_test(test_nul_byte_names_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
