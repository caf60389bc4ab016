/* Tests for the PipeDream importer and `pipeplan import`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import.h"
#include "spec.h"

/* One node line of a graph.txt, as PipeDream writes it. */
#define NODE(id, desc, fwd, bwd, act, par)                                      \
    "node" #id " -- " desc " -- forward_compute_time=" fwd                      \
    ", backward_compute_time=" bwd ", activation_size=" act                     \
    ", parameter_size=" par "\n"
#define EDGE(a, b) "\tnode" #a " -- node" #b "\n"

static char err[SPEC_ERR_LEN];

static struct spec_network *import_text(const char *text)
{
    err[0] = '\0';
    return import_pipedream(text, "t.txt", 8, NULL, 0, err, sizeof err);
}

/* The import fails with "t.txt:LINE: ..." and the message says `what`. */
static void assert_fails(const char *text, int line, const char *what)
{
    char prefix[32];
    struct spec_network *net = import_text(text);
    if (net) {
        spec_network_free(net);
        fail_msg("import succeeded; expected an error on line %d about '%s'", line, what);
    }
    snprintf(prefix, sizeof prefix, "t.txt:%d: ", line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fail_msg("got '%s'; expected '%s...%s'", err, prefix, what);
}

static const struct spec_layer *layer(const struct spec_network *net, int k)
{
    assert_true(k >= 0 && k < net->nlayers);
    return &net->layers[k];
}

/* ---- a small DAG with a skip connection ----
 * node1 (input) -> node2 -> node3 -> node4 -> node5 (add), with node1 and
 * node2 also feeding node5, and a side branch node1 -> node6 -> node5. The
 * file lists node6 and its edges first, so only "smallest ready number
 * first" gives the order 1 2 3 4 6 5. */
static const char skip_dag[] =
    NODE(6, "Linear(in_features=4, out_features=4, bias=True)", "0.500", "0.700", "60.000", "80.000")
    NODE(1, "Input", "5.000", "0.000", "100.000", "0.000")
    NODE(3, "Conv2d(3, 8, kernel_size=(3, 3))", "1.000", "2.000", "300.000", "1000.000")
    NODE(2, "ReLU(inplace)", "0.250", "0.125", "200.000", "0.000")
    NODE(5, "Add", "0.010", "0.020", "500.000", "0.000")
    NODE(4, "BatchNorm2d(8, eps=1e-05)", "0.300", "0.400", "400.000", "64.000")
    EDGE(1, 6) EDGE(6, 5) EDGE(1, 2) EDGE(2, 3) EDGE(3, 4) EDGE(4, 5) EDGE(1, 5)
    EDGE(2, 5);

static void test_skip_dag_order_is_smallest_ready_node_first(void **state)
{
    (void)state;
    static const char *const names[] = {
        "node1-Input", "node2-ReLU", "node3-Conv2d", "node4-BatchNorm2d",
        "node6-Linear", "node5-Add"
    };
    static const int lines[] = { 2, 4, 3, 6, 1, 5 };
    struct spec_network *net = import_text(skip_dag);
    assert_non_null(net);
    assert_int_equal(net->nlayers, 6);
    for (int k = 0; k < 6; k++) {
        assert_string_equal(layer(net, k)->name, names[k]);
        assert_int_equal(layer(net, k)->line, lines[k]);
    }
    spec_network_free(net);
}

static void test_skip_dag_cuts_carry_every_output_needed_later(void **state)
{
    (void)state;
    /* after node1: node1 (read by 2, 5, 6); after node2: + node2 (read by 3,
     * 5); after node3: + node3; after node4: node3 is done, + node4; after
     * node6: + node6; the last layer's cut is its own output */
    static const uint64_t cut[] = { 100, 300, 600, 700, 760, 500 };
    static const uint64_t stored[] = { 100, 200, 300, 400, 60, 500 };
    static const uint64_t weights[] = { 0, 0, 1000, 64, 80, 0 };
    struct spec_network *net = import_text(skip_dag);
    assert_non_null(net);
    for (int k = 0; k < 6; k++) {
        assert_int_equal(layer(net, k)->activation, cut[k]);
        assert_int_equal(layer(net, k)->stored, stored[k]);
        assert_int_equal(layer(net, k)->weights, weights[k]);
    }
    spec_network_free(net);
}

static void test_skip_dag_times_and_zero_compute_input(void **state)
{
    (void)state;
    struct spec_network *net = import_text(skip_dag);
    assert_non_null(net);
    /* the profile gives Input 5 ms of data loading: not stage work */
    assert_true(layer(net, 0)->forward_ms == 0.0);
    assert_true(layer(net, 0)->backward_ms == 0.0);
    assert_true(layer(net, 1)->forward_ms == 0.25);
    assert_true(layer(net, 1)->backward_ms == 0.125);
    assert_true(layer(net, 2)->forward_ms == 1.0);
    assert_true(layer(net, 2)->backward_ms == 2.0);
    assert_true(layer(net, 4)->forward_ms == 0.5);
    assert_true(layer(net, 4)->backward_ms == 0.7);
    assert_true(layer(net, 5)->forward_ms == 0.01);
    assert_true(layer(net, 5)->backward_ms == 0.02);
    assert_int_equal(net->micro_batch, 8);
    spec_network_free(net);
}

static void test_times_convert_like_the_c_compiler(void **state)
{
    (void)state;
    struct spec_network *net = import_text(
        NODE(1, "Linear", "4.423", "0.539", "1.0", "0.0")
        NODE(2, "Linear", "635.902", "1.5e-3", "1.0", "0.0")
        NODE(3, "Linear", "0.000000000000000000000000123", "123456789012.345678901", "1.0", "0.0")
        EDGE(1, 2) EDGE(2, 3));
    assert_non_null(net);
    assert_true(layer(net, 0)->forward_ms == 4.423);
    assert_true(layer(net, 0)->backward_ms == 0.539);
    assert_true(layer(net, 1)->forward_ms == 635.902);
    assert_true(layer(net, 1)->backward_ms == 1.5e-3);
    assert_true(fabs(layer(net, 2)->forward_ms - 1.23e-25) < 1e-38);
    /* 21 digits, more than a double holds, below the longest time a
     * network file holds (UNITS_MAX_MS) */
    assert_true(fabs(layer(net, 2)->backward_ms / 123456789012.345678901 - 1.0) < 1e-15);
    spec_network_free(net);
}

/* ---- multi-output nodes ---- */

static void test_multi_output_node_counts_all_outputs(void **state)
{
    (void)state;
    /* node4 has no consumer: it is stored but crosses no cut */
    struct spec_network *net = import_text(
        NODE(1, "Input0", "0.000", "0.000", "0.0", "0.000")
        NODE(2, "LSTM(2048, 1024)", "3.190", "5.348", "[13107200.0; 524288.0]", "50364416.000")
        NODE(3, "__getitem__(0)", "0.000", "0.000", "13107200.0", "0.000")
        NODE(4, "__getitem__(1)", "0.000", "0.000", "524288.0", "0.000")
        NODE(5, "Dropout(p=0.2)", "0.077", "0.196", "13107200.0", "0.000")
        EDGE(1, 2) EDGE(2, 3) EDGE(2, 4) EDGE(3, 5));
    static const uint64_t cut[] = { 0, 13631488, 13631488 + 13107200, 13107200, 13107200 };
    assert_non_null(net);
    assert_int_equal(net->nlayers, 5);
    assert_string_equal(layer(net, 1)->name, "node2-LSTM");
    assert_string_equal(layer(net, 2)->name, "node3-__getitem__");
    assert_int_equal(layer(net, 1)->stored, 13631488);
    assert_int_equal(layer(net, 1)->weights, 50364416);
    for (int k = 0; k < 5; k++)
        assert_int_equal(layer(net, k)->activation, cut[k]);
    spec_network_free(net);
}

static void test_bracket_list_accepts_commas_and_stage_ids(void **state)
{
    (void)state;
    /* PipeDream's optimizer appends " -- stage_id=N"; Python may write
     * lists with commas */
    struct spec_network *net = import_text(
        "node1 -- Input -- forward_compute_time=1.000, backward_compute_time=0.000, "
        "activation_size=[1.0, 2.0; 3.0], parameter_size=0.000 -- stage_id=0\n"
        "node2 -- Linear -- parameter_size=7.000, activation_size=4.0, "
        "backward_compute_time=2.000, forward_compute_time=1.000\r\n"
        "\tnode1 -- node2");
    assert_non_null(net);
    assert_int_equal(layer(net, 0)->stored, 6);
    assert_int_equal(layer(net, 0)->activation, 6);
    assert_int_equal(layer(net, 1)->weights, 7);
    assert_int_equal(layer(net, 1)->activation, 4);
    spec_network_free(net);
}

/* ---- sizes convert exactly ---- */

static void test_sizes_convert_exactly_to_64_bits(void **state)
{
    (void)state;
    struct spec_network *net = import_text(
        NODE(1, "Linear", "0.0", "0.0", "1e+16", "18446744073709551615.000")
        NODE(2, "Linear", "0.0", "0.0", "2.5E3", "9007199254740993.000")
        NODE(3, "Linear", "0.0", "0.0", "-0.0", "12.50e1")
        EDGE(1, 2) EDGE(2, 3));
    assert_non_null(net);
    assert_int_equal(layer(net, 0)->stored, 10000000000000000ULL);
    assert_true(layer(net, 0)->weights == UINT64_MAX);
    assert_int_equal(layer(net, 1)->stored, 2500);
    /* 2^53 + 1: a double would round it */
    assert_true(layer(net, 1)->weights == 9007199254740993ULL);
    assert_int_equal(layer(net, 2)->stored, 0);
    assert_int_equal(layer(net, 2)->weights, 125);
    spec_network_free(net);
}

static void test_bad_sizes_are_rejected(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "100.5", "0.0"),
                 2, "not a whole number of bytes");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "-4.0", "0.0"), 1, "negative");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "1.0", "inf"), 1, "not a finite number");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "nan", "0.0"), 1, "not a finite number");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "1.0", "18446744073709551616.0"),
                 1, "too large");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "1e20", "0.0"), 1, "too large");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "1.0", "12abc"), 1, "not a number");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "[1.0; 2.5]", "0.0"), 1,
                 "not a whole number of bytes");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "[]", "0.0"), 1, "empty list");
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "[18446744073709551615.0; 1.0]", "0.0"),
                 1, "more than 2^64 - 1");
    assert_fails(NODE(1, "Linear", "-1.000", "0.0", "1.0", "0.0"), 1, "negative");
    assert_fails(NODE(1, "Linear", "0.0", "1e400", "1.0", "0.0"), 1, "not a finite number");
    /* fuzz_import: a time no network file holds was imported, and the
     * file written was one check refuses */
    assert_fails(NODE(1, "Linear", "0.0", "1e13", "1.0", "0.0"), 1,
                 "bad backward_compute_time '1e13' for node1: too large (at most "
                 "1000000000000 ms)");
    struct spec_network *net = import_text(NODE(1, "Linear", "1e12", "0.0", "1.0", "0.0"));
    assert_non_null(net);
    assert_true(layer(net, 0)->forward_ms == 1e12);
    spec_network_free(net);
    /* more digits than a double holds, rounded once, as a network file's
     * reader rounds them: just below the limit is the limit, not past it */
    net = import_text(NODE(1, "Linear", "999999999999.9999999", "0.0", "1.0", "0.0"));
    if (!net)
        fail_msg("%s", err);
    assert_true(layer(net, 0)->forward_ms == 1e12);
    spec_network_free(net);
    net = import_text(NODE(1, "Linear", "0.1000000000000000055511151231257827", "0.0", "1.0",
                           "0.0"));
    assert_non_null(net);
    assert_true(layer(net, 0)->forward_ms == 0.1);
    spec_network_free(net);
}

/* ---- the cut's own overflow ---- */

static void test_cut_over_64_bits_is_an_error(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "18446744073709551615.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(3, "Add", "0.0", "0.0", "1.0", "0.0")
                 EDGE(1, 2) EDGE(2, 3) EDGE(1, 3),
                 2, "cut after node2 carries more than 2^64 - 1 bytes");
}

/* ---- names ---- */

static void test_layer_names_are_sanitised_and_unique(void **state)
{
    (void)state;
    struct spec_network *net = import_text(
        NODE(7, "weird:op[1](x)", "0.0", "0.0", "1.0", "0.0")
        NODE(8, "(no name)", "0.0", "0.0", "1.0", "0.0")
        NODE(9, "AVeryLongOperatorNameThatGoesOnAndOnWellPastAnyReasonableLength(1)",
             "0.0", "0.0", "1.0", "0.0")
        NODE(10, "Linear", "0.0", "0.0", "1.0", "0.0")
        NODE(100, "Linear", "0.0", "0.0", "1.0", "0.0")
        EDGE(7, 8) EDGE(8, 9) EDGE(9, 10) EDGE(10, 100));
    assert_non_null(net);
    assert_string_equal(layer(net, 0)->name, "node7-weird_op_1_");
    assert_string_equal(layer(net, 1)->name, "node8");
    assert_string_equal(layer(net, 2)->name,
                        "node9-AVeryLongOperatorNameThatGoesOnAndOnWellPastAnyR");
    assert_string_equal(layer(net, 3)->name, "node10-Linear");
    assert_string_equal(layer(net, 4)->name, "node100-Linear");
    spec_network_free(net);
}

static void test_network_name_and_source_come_from_the_label(void **state)
{
    (void)state;
    static const struct { const char *label, *name, *tail; } cases[] = {
        { "data/pipedream/resnet50/graph.txt", "resnet50", "resnet50/graph.txt" },
        { "vgg16/graph.txt", "vgg16", "vgg16/graph.txt" },
        { "graph.txt", "graph", "graph.txt" },
        { "./graph.txt", "graph", "./graph.txt" },
        { "/x/profiles/my net.v2.txt", "my_net.v2", "profiles/my net.v2.txt" },
        { "a/b;c/graph.txt", "b_c", "b_c/graph.txt" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char source[256];
        struct spec_network *net = import_pipedream(
            NODE(1, "Input", "0.0", "0.0", "1.0", "0.0"), cases[i].label, 1, NULL, 0, err,
            sizeof err);
        assert_non_null(net);
        snprintf(source, sizeof source,
                 "PipeDream profiler (msr-fiddle/pipedream, MIT licence): %s", cases[i].tail);
        assert_string_equal(net->name, cases[i].name);
        assert_string_equal(net->source, source);
        spec_network_free(net);
    }
}

/* ---- errors, each on its line ---- */

static void test_malformed_lines_are_errors(void **state)
{
    (void)state;
    const char *one = NODE(1, "Input", "0.0", "0.0", "1.0", "0.0");
    char text[1024];
    snprintf(text, sizeof text, "%s\nhello world\n", one);
    assert_fails(text, 3, "malformed node line 'hello world'");
    snprintf(text, sizeof text, "%snodeX -- Input -- forward_compute_time=1.0\n", one);
    assert_fails(text, 2, "malformed node line");
    snprintf(text, sizeof text, "%snode2 -- Input\n", one);
    assert_fails(text, 2, "node2 has no measurements");
    snprintf(text, sizeof text, "%snode2 --  -- forward_compute_time=1.0\n", one);
    assert_fails(text, 2, "node2 has an empty description");
    snprintf(text, sizeof text, "%s%s", one,
             "node2 -- Linear -- forward_compute_time=1.0, backward_compute_time=1.0, "
             "activation_size=1.0, parameter_size=1.0 -- colour=red\n");
    assert_fails(text, 2, "unexpected text after the measurements of node2");
    snprintf(text, sizeof text, "%s\tnode1 -> node2\n", one);
    assert_fails(text, 2, "malformed edge line");
    snprintf(text, sizeof text, "%s\tnode1 -- node2 -- node3\n", one);
    assert_fails(text, 2, "malformed edge line");
}

static void test_missing_unknown_and_repeated_fields_are_errors(void **state)
{
    (void)state;
    assert_fails("\n" "node4 -- Linear -- forward_compute_time=1.0, backward_compute_time=1.0, "
                 "activation_size=1.0\n", 2, "node4 has no parameter_size");
    assert_fails("node4 -- Linear -- forward_compute_time=1.0, backward_compute_time=1.0, "
                 "activation_size=1.0, parameter_size=1.0, colour=3\n", 1,
                 "unknown measurement 'colour' for node4");
    assert_fails("node4 -- Linear -- forward_compute_time=1.0, forward_compute_time=1.0\n",
                 1, "forward_compute_time given twice for node4");
    assert_fails("node4 -- Linear -- forward_compute_time=1.0, backward_compute_time\n",
                 1, "malformed measurement 'backward_compute_time' for node4");
    assert_fails("node4 -- Linear -- forward_compute_time=1.0, backward_compute_time=1.0, "
                 "activation_size=1.0, parameter_size=1.0,\n", 1, "trailing comma");
}

/* A file saved with old Mac line ends is one line to the reader; it was
 * called "unexpected text after the measurements of node1". */
static void test_carriage_return_line_ends_are_named(void **state)
{
    (void)state;
    assert_fails("node1 -- Input -- forward_compute_time=0.0, backward_compute_time=0.0, "
                 "activation_size=1.0, parameter_size=0.0\r"
                 "node2 -- Linear -- forward_compute_time=1.0, backward_compute_time=1.0, "
                 "activation_size=1.0, parameter_size=1.0\r\tnode1 -- node2\r",
                 1, "lines that end in a carriage return alone (expected LF or CRLF");
    /* one line ending in a CR alone is a line end like CRLF's */
    struct spec_network *net = import_text(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0"));
    assert_non_null(net);
    spec_network_free(net);
    net = import_text("node1 -- Input -- forward_compute_time=0.0, backward_compute_time=0.0, "
                      "activation_size=1.0, parameter_size=0.0\r");
    assert_non_null(net);
    spec_network_free(net);
}

static void test_duplicate_node_is_an_error(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(3, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(1, "Input", "0.0", "0.0", "1.0", "0.0"),
                 4, "node2 defined twice (first on line 2");
}

static void test_edge_to_unknown_node_is_an_error(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 EDGE(1, 2) EDGE(2, 9) EDGE(7, 1),
                 4, "edge node2 -- node9 names node9");
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0") EDGE(7, 1),
                 2, "edge node7 -- node1 names node7");
    /* edges without any node line */
    assert_fails("\n" EDGE(1, 2), 2, "names node1");
}

static void test_self_loop_is_an_error(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 EDGE(1, 2) EDGE(2, 2),
                 4, "edge node2 -- node2 joins a node to itself");
    /* repeated, an edge still closes a cycle */
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 EDGE(1, 2) EDGE(2, 1) EDGE(1, 2) EDGE(1, 2),
                 4, "edge node2 -- node1 closes a cycle");
}

/* PipeDream's profiler writes an edge per argument: node5 = node2 + node2
 * (or attention(x, x, x)) repeats "node2 -- node5", and PipeDream reads it
 * back. The repeats change nothing. */
static void test_repeated_edge_is_one_dependency(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s%s", skip_dag, EDGE(2, 5), EDGE(2, 5), EDGE(1, 6));
    struct spec_network *once = import_text(skip_dag);
    assert_non_null(once);
    struct spec_network *net = import_text(text);
    if (!net)
        fail_msg("repeated edges refused: %s", err);
    assert_int_equal(net->nlayers, once->nlayers);
    for (int k = 0; k < net->nlayers; k++) {
        assert_string_equal(layer(net, k)->name, layer(once, k)->name);
        assert_int_equal(layer(net, k)->activation, layer(once, k)->activation);
        assert_int_equal(layer(net, k)->stored, layer(once, k)->stored);
    }
    spec_network_free(net);
    spec_network_free(once);
}

static void test_cycle_names_an_edge_on_it(void **state)
{
    (void)state;
    /* cycle 2 -> 3 -> 4 -> 2; its edge listed last is node3 -- node4 */
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(3, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(4, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(5, "Linear", "0.0", "0.0", "1.0", "0.0")
                 EDGE(4, 2) EDGE(1, 2) EDGE(2, 3) EDGE(3, 4) EDGE(4, 5),
                 9, "edge node3 -- node4 closes a cycle node4 -> node2 -> node3 -> node4");
    /* node1 waits on the cycle 5 <-> 6 but is not on it */
    assert_fails(NODE(1, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(5, "Linear", "0.0", "0.0", "1.0", "0.0")
                 NODE(6, "Linear", "0.0", "0.0", "1.0", "0.0")
                 EDGE(6, 1) EDGE(6, 5) EDGE(5, 6),
                 6, "edge node5 -- node6 closes a cycle node6 -> node5 -> node6");
}

static void test_long_cycle_message_is_shortened(void **state)
{
    (void)state;
    char text[8192];
    size_t o = 0;
    for (int i = 1; i <= 20; i++)
        o += (size_t)snprintf(text + o, sizeof text - o,
                              "node%d -- Linear -- forward_compute_time=1.0, "
                              "backward_compute_time=1.0, activation_size=1.0, "
                              "parameter_size=1.0\n", i);
    for (int i = 1; i <= 20; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "\tnode%d -- node%d\n",
                              i, i % 20 + 1);
    /* edge 20 -> 1 is on line 40 */
    assert_fails(text, 40, "edge node20 -- node1 closes a cycle node1 -> node2 -> node3 -> "
                 "node4 -> node5 -> node6 -> node7 -> node8 -> ... -> node20 -> node1 ");
}

/* A graph cut short keeps its nodes and loses edges: no edges, a node
 * with none, or two parts are errors, not a network of wrong activations
 * (the first 41 lines of vgg16's graph.txt imported without a word). */
static void test_graph_cut_short_is_an_error(void **state)
{
    (void)state;
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "1.0", "2.0", "1.0", "0.0")
                 NODE(3, "ReLU", "1.0", "2.0", "1.0", "0.0"),
                 3, "3 nodes and no edges");
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "1.0", "2.0", "1.0", "0.0")
                 NODE(3, "ReLU", "1.0", "2.0", "1.0", "0.0")
                 EDGE(1, 2),
                 3, "node3 has no edge");
    assert_fails(NODE(1, "Input", "0.0", "0.0", "1.0", "0.0")
                 NODE(2, "Linear", "1.0", "2.0", "1.0", "0.0")
                 NODE(3, "ReLU", "1.0", "2.0", "1.0", "0.0")
                 NODE(4, "ReLU", "1.0", "2.0", "1.0", "0.0")
                 EDGE(1, 2) EDGE(3, 4),
                 3, "node3 is not joined to node1 by any path of edges");
    /* one node alone is a network of one layer */
    struct spec_network *net = import_text(NODE(1, "Linear", "1.0", "2.0", "1.0", "0.0"));
    assert_non_null(net);
    assert_int_equal(net->nlayers, 1);
    spec_network_free(net);
}

static void test_empty_graph_is_an_error(void **state)
{
    (void)state;
    assert_fails("", 1, "no nodes");
    assert_fails("\n  \n\t\n", 1, "no nodes");
}

static void test_micro_batch_must_be_positive(void **state)
{
    (void)state;
    const char *one = NODE(1, "Input", "0.0", "0.0", "1.0", "0.0");
    assert_null(import_pipedream(one, "t.txt", 0, NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "micro-batch 0 out of range"));
    assert_null(import_pipedream(one, "t.txt", -3, NULL, 0, err, sizeof err));
    struct spec_network *net = import_pipedream(one, "t.txt", 1, NULL, 0, err, sizeof err);
    assert_non_null(net);
    assert_int_equal(net->micro_batch, 1);
    spec_network_free(net);
}

/* ---- the four real profiles ----
 * Checked against an independent reading of the file: totals, per-node
 * numbers, and every cut recomputed by brute force from the edges. */

struct pnode {
    unsigned long id;
    bool input;
    double fwd, bwd;
    double out, params;
};

struct profile {
    struct pnode *nodes;
    int n;
    unsigned long (*edges)[2];
    int nedges;
};

static char *read_profile(const char *model, char *path, size_t len)
{
    const char *dir = getenv("PIPEPLAN_SRCDIR");
    snprintf(path, len, "%s/data/pipedream/%s/graph.txt", dir && *dir ? dir : ".", model);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (set PIPEPLAN_SRCDIR to the source tree)", path);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static double field_value(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    assert_non_null(p);
    p += strlen(key);
    if (*p != '[')
        return strtod(p, NULL);
    double sum = 0;
    for (p++; *p != ']'; p++) {
        char *end;
        sum += strtod(p, &end);
        p = end;
        if (*p == ']')
            break;
    }
    return sum;
}

static struct profile profile_parse(char *text)
{
    struct profile pr = { calloc(2000, sizeof(struct pnode)), 0,
                          calloc(4000, sizeof(unsigned long[2])), 0 };
    assert_non_null(pr.nodes);
    assert_non_null(pr.edges);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '\t') {
            assert_int_equal(sscanf(line, "\tnode%lu -- node%lu", &pr.edges[pr.nedges][0],
                                    &pr.edges[pr.nedges][1]), 2);
            pr.nedges++;
            continue;
        }
        struct pnode *nd = &pr.nodes[pr.n++];
        assert_int_equal(sscanf(line, "node%lu", &nd->id), 1);
        nd->input = strncmp(strstr(line, " -- ") + 4, "Input", 5) == 0;
        nd->fwd = field_value(line, "forward_compute_time=");
        nd->bwd = field_value(line, "backward_compute_time=");
        nd->out = field_value(line, "activation_size=");
        nd->params = field_value(line, "parameter_size=");
    }
    return pr;
}

static int find_pnode(const struct profile *pr, unsigned long id)
{
    for (int i = 0; i < pr->n; i++)
        if (pr->nodes[i].id == id)
            return i;
    fail_msg("node%lu not in the profile", id);
    return -1;
}

static void check_profile(const char *model, long micro_batch, int nodes, int edges)
{
    char path[4096];
    char *text = read_profile(model, path, sizeof path);
    struct spec_network *net = import_pipedream(text, path, micro_batch, NULL, 0, err, sizeof err);
    if (!net)
        fail_msg("%s", err);
    struct profile pr = profile_parse(text);
    assert_int_equal(pr.n, nodes);
    assert_int_equal(pr.nedges, edges);
    assert_int_equal(net->nlayers, pr.n);
    assert_string_equal(net->name, model);
    assert_int_equal(net->micro_batch, micro_batch);

    /* totals: compute without Input nodes, parameter bytes */
    double want_ms = 0, got_ms = 0;
    uint64_t want_w = 0, got_w = 0;
    for (int i = 0; i < pr.n; i++) {
        if (!pr.nodes[i].input)
            want_ms += pr.nodes[i].fwd + pr.nodes[i].bwd;
        want_w += (uint64_t)pr.nodes[i].params;
    }
    for (int k = 0; k < net->nlayers; k++) {
        got_ms += net->layers[k].forward_ms + net->layers[k].backward_ms;
        got_w += net->layers[k].weights;
    }
    assert_true(want_ms > 0);
    assert_true(fabs(got_ms - want_ms) <= 1e-9 * want_ms);
    assert_true(want_w > 0);
    assert_true(got_w == want_w);

    /* layer k is which node: from its name */
    int *at = calloc((size_t)pr.n, sizeof(int));   /* profile index of layer k */
    int *pos = calloc((size_t)pr.n, sizeof(int));  /* layer of profile index */
    assert_non_null(at);
    assert_non_null(pos);
    for (int k = 0; k < net->nlayers; k++) {
        unsigned long id;
        assert_int_equal(sscanf(net->layers[k].name, "node%lu-", &id), 1);
        at[k] = find_pnode(&pr, id);
        pos[at[k]] = k;
        for (int j = 0; j < k; j++)
            assert_string_not_equal(net->layers[j].name, net->layers[k].name);
        const struct pnode *nd = &pr.nodes[at[k]];
        const struct spec_layer *l = &net->layers[k];
        assert_true(l->forward_ms == (nd->input ? 0.0 : nd->fwd));
        assert_true(l->backward_ms == (nd->input ? 0.0 : nd->bwd));
        assert_true((double)l->weights == nd->params);
        assert_true((double)l->stored == nd->out);
    }

    /* topological, and the smallest ready node number first */
    for (int e = 0; e < pr.nedges; e++)
        assert_true(pos[find_pnode(&pr, pr.edges[e][0])] < pos[find_pnode(&pr, pr.edges[e][1])]);
    for (int k = 0; k < net->nlayers; k++)
        for (int i = 0; i < pr.n; i++) {
            if (pos[i] <= k || pr.nodes[i].id > pr.nodes[at[k]].id)
                continue;
            /* a smaller node placed later must have waited on a predecessor */
            bool waiting = false;
            for (int e = 0; e < pr.nedges; e++)
                if (pr.edges[e][1] == pr.nodes[i].id &&
                    pos[find_pnode(&pr, pr.edges[e][0])] >= k)
                    waiting = true;
            assert_true(waiting);
        }

    /* every cut by brute force; the last one is the last layer's output */
    for (int k = 0; k + 1 < net->nlayers; k++) {
        double want = 0;
        for (int i = 0; i < pr.n; i++) {
            if (pos[i] > k)
                continue;
            for (int e = 0; e < pr.nedges; e++)
                if (pr.edges[e][0] == pr.nodes[i].id &&
                    pos[find_pnode(&pr, pr.edges[e][1])] > k) {
                    want += pr.nodes[i].out;
                    break;
                }
        }
        assert_true((double)net->layers[k].activation == want);
    }
    const struct spec_layer *last = &net->layers[net->nlayers - 1];
    assert_true(last->activation > 0);
    assert_true((double)last->activation == pr.nodes[at[net->nlayers - 1]].out);

    /* the spec writer and parser take it back unchanged */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    static const char *const comments[] = { "round trip", NULL };
    assert_int_equal(spec_network_write(mem, net, comments), 0);
    assert_int_equal(fclose(mem), 0);
    struct spec_network *back = spec_network_parse(buf, "roundtrip.ini", err, sizeof err);
    if (!back)
        fail_msg("%s", err);
    assert_string_equal(back->name, net->name);
    assert_string_equal(back->source, net->source);
    assert_int_equal(back->nlayers, net->nlayers);
    for (int k = 0; k < net->nlayers; k++) {
        assert_string_equal(back->layers[k].name, net->layers[k].name);
        assert_true(fabs(back->layers[k].forward_ms - net->layers[k].forward_ms) < 1e-9);
        assert_true(fabs(back->layers[k].backward_ms - net->layers[k].backward_ms) < 1e-9);
        assert_true(back->layers[k].weights == net->layers[k].weights);
        assert_true(back->layers[k].activation == net->layers[k].activation);
        assert_true(back->layers[k].stored == net->layers[k].stored);
    }
    spec_network_free(back);
    free(buf);
    free(at);
    free(pos);
    free(pr.nodes);
    free(pr.edges);
    spec_network_free(net);
    free(text);
}

static void test_alexnet_profile(void **state) { (void)state; check_profile("alexnet", 256, 23, 23); }
static void test_vgg16_profile(void **state) { (void)state; check_profile("vgg16", 128, 41, 41); }
static void test_resnet50_profile(void **state) { (void)state; check_profile("resnet50", 128, 177, 193); }
static void test_gnmt_profile(void **state) { (void)state; check_profile("gnmt", 32, 48, 58); }

/* The micro-batch sizes we state for the profiles follow from their data:
 * one 3x224x224 fp32 image is 602112 bytes; GNMT's LSTM state is
 * (1, batch, 1024) fp32. */
static void test_profile_batch_sizes_follow_from_the_data(void **state)
{
    (void)state;
    static const struct { const char *model, *node; double unit; long batch; } cases[] = {
        { "alexnet", "Input", 3 * 224 * 224 * 4, 256 },
        { "vgg16", "Input", 3 * 224 * 224 * 4, 128 },
        { "resnet50", "Input", 3 * 224 * 224 * 4, 128 },
        { "gnmt", "LSTM(1024, 1024)", 1024 * 4, 32 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[4096];
        char *text = read_profile(cases[c].model, path, sizeof path);
        char key[64];
        snprintf(key, sizeof key, " -- %s -- ", cases[c].node);
        const char *line = strstr(text, key);
        assert_non_null(line);
        const char *act = strstr(line, "activation_size=") + 16;
        double bytes = strtod(act + (*act == '[' ? 1 : 0), NULL);
        if (*act == '[')   /* LSTM outputs: sequence, then h and c */
            bytes = strtod(strchr(act, ';') + 1, NULL);
        assert_true(bytes == cases[c].unit * (double)cases[c].batch);
        free(text);
    }
}

/* ---- the command ---- */

static char tmpdir[512];

static int setup_tmpdir(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/pipeplan-import-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmpdir(void **state)
{
    (void)state;
    char path[1024];
    static const char *const names[] = { "graph.txt", "out.ini", "stdout", "stderr" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
    return rmdir(tmpdir);
}

static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Runs cmd_import with stdout and stderr captured in files. */
static int run(const char *const *args)
{
    char *argv[16];
    int argc = 0;
    char out_path[1024], err_path[1024];
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    snprintf(out_path, sizeof out_path, "%s/stdout", tmpdir);
    snprintf(err_path, sizeof err_path, "%s/stderr", tmpdir);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved_out >= 0 && saved_err >= 0 && fo >= 0 && fe >= 0);
    dup2(fo, 1);
    dup2(fe, 2);
    int rc = cmd_import(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(fo);
    close(fe);
    close(saved_out);
    close(saved_err);
    return rc;
}

static void assert_output(const char *name, bool empty, const char *contains)
{
    char *s = slurp(name);
    assert_non_null(s);
    if (empty && s[0] != '\0')
        fail_msg("%s should be empty, has '%s'", name, s);
    if (contains && !strstr(s, contains))
        fail_msg("%s lacks '%s': '%s'", name, contains, s);
    free(s);
}

static void test_cmd_import_writes_the_network_to_stdout(void **state)
{
    (void)state;
    char graph[1024];
    write_file("graph.txt", skip_dag);
    snprintf(graph, sizeof graph, "%s/graph.txt", tmpdir);
    const char *args[] = { "import", "pipedream", graph, "--micro-batch", "4", NULL };
    assert_int_equal(run(args), 0);
    assert_output("stderr", true, NULL);
    char *text = slurp("stdout");
    assert_non_null(text);
    assert_non_null(strstr(text, "; times and sizes refer to a micro-batch of 4 samples\n"));
    assert_non_null(strstr(text, "msr-fiddle/pipedream"));
    assert_non_null(strstr(text, "LICENSE.pipedream"));
    assert_non_null(strstr(text, "topological order"));
    char tail[1024];
    snprintf(tail, sizeof tail, "; source file: %s/graph.txt\n", strrchr(tmpdir, '/') + 1);
    assert_non_null(strstr(text, tail));
    struct spec_network *net = spec_network_parse(text, "stdout", err, sizeof err);
    if (!net)
        fail_msg("%s", err);
    assert_int_equal(net->micro_batch, 4);
    assert_int_equal(net->nlayers, 6);
    assert_string_equal(net->layers[4].name, "node6-Linear");
    assert_int_equal(net->layers[4].activation, 760);
    assert_int_equal(net->layers[4].stored, 60);
    spec_network_free(net);
    free(text);
}

static void test_cmd_import_output_file_needs_force_to_replace(void **state)
{
    (void)state;
    char graph[1024], out[1024];
    write_file("graph.txt", skip_dag);
    snprintf(graph, sizeof graph, "%s/graph.txt", tmpdir);
    snprintf(out, sizeof out, "%s/out.ini", tmpdir);
    unlink(out);
    const char *args[] = { "import", "pipedream", graph, "--micro-batch=2", "-o", out, NULL };
    assert_int_equal(run(args), 0);
    assert_output("stdout", true, NULL);
    assert_output("out.ini", false, "micro_batch = 2\n");

    write_file("out.ini", "keep me\n");
    assert_int_equal(run(args), 2);
    assert_output("stdout", true, NULL);
    assert_output("stderr", false, "already exists");
    assert_output("out.ini", false, "keep me\n");

    const char *forced[] = { "import", "pipedream", graph, "--micro-batch", "2", "-o", out,
                             "--force", NULL };
    assert_int_equal(run(forced), 0);
    assert_output("out.ini", false, "[layer node6-Linear]");
}

static void test_cmd_import_usage_and_input_errors(void **state)
{
    (void)state;
    char graph[1024], missing[1024];
    write_file("graph.txt", NODE(1, "Input", "0.0", "0.0", "1.0", "0.0") EDGE(1, 1));
    snprintf(graph, sizeof graph, "%s/graph.txt", tmpdir);
    snprintf(missing, sizeof missing, "%s/nothing.txt", tmpdir);
    static const char *const usage_cases[][8] = {
        { "import", NULL },
        { "import", "onnx", "x.txt", "--micro-batch", "1", NULL },
        { "import", "pipedream", "--micro-batch", "1", NULL },
        { "import", "pipedream", "x.txt", NULL },
        { "import", "pipedream", "x.txt", "--micro-batch", "0", NULL },
        { "import", "pipedream", "x.txt", "--micro-batch", "lots", NULL },
        { "import", "pipedream", "x.txt", "--micro-batch", NULL },
        { "import", "pipedream", "x.txt", "--micro-batch", "1", "--bogus", NULL },
    };
    for (size_t i = 0; i < sizeof usage_cases / sizeof usage_cases[0]; i++) {
        assert_int_equal(run(usage_cases[i]), 2);
        assert_output("stdout", true, NULL);
        /* one line: what is wrong and what was expected */
        char *line = slurp("stderr");
        assert_non_null(line);
        if (strncmp(line, "pipeplan import: ", 17) != 0 || !strchr(line, '(') ||
            strchr(line, '\n') != line + strlen(line) - 1)
            fail_msg("case %zu: not one 'pipeplan import: ... (...)' line: '%s'", i, line);
        free(line);
    }
    const char *bad_graph[] = { "import", "pipedream", graph, "--micro-batch", "1", NULL };
    assert_int_equal(run(bad_graph), 2);
    assert_output("stdout", true, NULL);
    assert_output("stderr", false, "graph.txt:2: edge node1 -- node1 joins a node to itself");
    const char *no_file[] = { "import", "pipedream", missing, "--micro-batch", "1", NULL };
    assert_int_equal(run(no_file), 2);
    assert_output("stdout", true, NULL);
    assert_output("stderr", false, "nothing.txt");
    const char *help[] = { "import", "--help", NULL };
    assert_int_equal(run(help), 0);
    assert_output("stdout", false, "usage: pipeplan import pipedream");
    assert_output("stderr", true, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skip_dag_order_is_smallest_ready_node_first),
        cmocka_unit_test(test_skip_dag_cuts_carry_every_output_needed_later),
        cmocka_unit_test(test_skip_dag_times_and_zero_compute_input),
        cmocka_unit_test(test_times_convert_like_the_c_compiler),
        cmocka_unit_test(test_multi_output_node_counts_all_outputs),
        cmocka_unit_test(test_bracket_list_accepts_commas_and_stage_ids),
        cmocka_unit_test(test_sizes_convert_exactly_to_64_bits),
        cmocka_unit_test(test_bad_sizes_are_rejected),
        cmocka_unit_test(test_cut_over_64_bits_is_an_error),
        cmocka_unit_test(test_layer_names_are_sanitised_and_unique),
        cmocka_unit_test(test_network_name_and_source_come_from_the_label),
        cmocka_unit_test(test_malformed_lines_are_errors),
        cmocka_unit_test(test_missing_unknown_and_repeated_fields_are_errors),
        cmocka_unit_test(test_carriage_return_line_ends_are_named),
        cmocka_unit_test(test_duplicate_node_is_an_error),
        cmocka_unit_test(test_edge_to_unknown_node_is_an_error),
        cmocka_unit_test(test_self_loop_is_an_error),
        cmocka_unit_test(test_repeated_edge_is_one_dependency),
        cmocka_unit_test(test_cycle_names_an_edge_on_it),
        cmocka_unit_test(test_long_cycle_message_is_shortened),
        cmocka_unit_test(test_graph_cut_short_is_an_error),
        cmocka_unit_test(test_empty_graph_is_an_error),
        cmocka_unit_test(test_micro_batch_must_be_positive),
        cmocka_unit_test(test_alexnet_profile),
        cmocka_unit_test(test_vgg16_profile),
        cmocka_unit_test(test_resnet50_profile),
        cmocka_unit_test(test_gnmt_profile),
        cmocka_unit_test(test_profile_batch_sizes_follow_from_the_data),
        cmocka_unit_test(test_cmd_import_writes_the_network_to_stdout),
        cmocka_unit_test(test_cmd_import_output_file_needs_force_to_replace),
        cmocka_unit_test(test_cmd_import_usage_and_input_errors),
    };
    return cmocka_run_group_tests_name("import", tests, setup_tmpdir, teardown_tmpdir);
}
