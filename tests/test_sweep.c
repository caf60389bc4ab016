/* sweep, sha256 and svg: the grid's order and shards, exact memory
 * ranges, the row key, CSV rows that round-trip, FIPS 180 digests, and
 * the chart's structure. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sha256.h"
#include "svg.h"
#include "sweep.h"

static void test_sha256_fips_vectors(void **state)
{
    (void)state;
    char hex[SHA256_HEX_LEN];
    /* FIPS 180-2, appendix B, and the empty message */
    assert_string_equal(sha256_hex("abc", 3, hex),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(sha256_hex("", 0, hex),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_string_equal(sha256_hex(two, strlen(two), hex),
                        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a', fed in uneven pieces across block boundaries */
    struct sha256 s;
    unsigned char d[32];
    char block[997];
    memset(block, 'a', sizeof block);
    sha256_init(&s);
    size_t left = 1000000;
    while (left > 0) {
        size_t n = left < sizeof block ? left : sizeof block;
        sha256_update(&s, block, n);
        left -= n;
    }
    sha256_final(&s, d);
    char got[65];
    for (int i = 0; i < 32; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    assert_string_equal(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* 55, 56 and 64 bytes: the padding's edge cases, against sha256sum */
    char x[64];
    memset(x, 'x', sizeof x);
    assert_string_equal(sha256_hex(x, 55, hex),
                        "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
    assert_string_equal(sha256_hex(x, 56, hex),
                        "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
    assert_string_equal(sha256_hex(x, 64, hex),
                        "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

static void test_memory_range_is_exact(void **state)
{
    (void)state;
    char err[200];
    struct sweep_grid *g = sweep_grid_new(1);
    assert_non_null(g);
    /* 40..141 by 10: 40, 50, ..., 140 (141 not reached), no float drift */
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, "40GB:141GB:10GB", err, sizeof err), 0);
    assert_int_equal(g->n[SWEEP_MEMORY], 11);
    for (int i = 0; i < 11; i++)
        assert_true(g->values[SWEEP_MEMORY][i] == (40 + 10 * i) * INT64_C(1000000000));
    /* 0.1 steps land exactly on STOP (0.1 + 0.2 != 0.3 in doubles) */
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, "0.1GB:0.3GB:0.1GB", err, sizeof err), 0);
    assert_int_equal(g->n[SWEEP_MEMORY], 3);
    assert_true(g->values[SWEEP_MEMORY][2] == 300000000);
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, "16GiB:16GiB:1GB", err, sizeof err), 0);
    assert_int_equal(g->n[SWEEP_MEMORY], 1);
    assert_true(g->values[SWEEP_MEMORY][0] == INT64_C(17179869184));
    /* refusals leave the axis as it was */
    static const char *const bad[][2] = {
        { "40GB:10GB:5GB", "START above STOP" },
        { "1GB:2GB:0GB", "STEP must be positive" },
        { "0GB:2GB:1GB", "START must be positive" },
        { "1GB:2GB", "expected START:STOP:STEP, e.g. 40GB:141GB:10GB" },
        { "1GB:2GB:1GB:1GB", "expected START:STOP:STEP, e.g. 40GB:141GB:10GB" },
        { "1:2:1", "START missing unit (expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)" },
        { "1B:1MB:1B", "more than 4096 values" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, bad[i][0], err, sizeof err), -1);
        assert_string_equal(err, bad[i][1]);
        assert_int_equal(g->n[SWEEP_MEMORY], 1);
    }
    sweep_grid_free(g);
}

static void test_lists(void **state)
{
    (void)state;
    char err[200];
    struct sweep_grid *g = sweep_grid_new(1);
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "4,8,16", err, sizeof err), 0);
    assert_int_equal(g->n[SWEEP_GPUS], 3);
    assert_true(g->values[SWEEP_GPUS][2] == 16);
    assert_int_equal(sweep_grid_set(g, SWEEP_SCHEDULE, "pipedream,1f1b", err, sizeof err), 0);
    assert_true(g->values[SWEEP_SCHEDULE][0] == 1 && g->values[SWEEP_SCHEDULE][1] == 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_LAYOUT, "contiguous", err, sizeof err), 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "", err, sizeof err), -1);
    assert_string_equal(err, "an empty list");
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "4,", err, sizeof err), -1);
    assert_string_equal(err, "an empty item");
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "4,0", err, sizeof err), -1);
    assert_int_equal(sweep_grid_set(g, SWEEP_MICRO_BATCHES, "8,8", err, sizeof err), -1);
    assert_string_equal(err, "a value given twice");
    assert_int_equal(sweep_grid_set(g, SWEEP_SCHEDULE, "gpipe", err, sizeof err), -1);
    assert_string_equal(err, "'gpipe' (expected 1f1b or pipedream)");
    assert_int_equal(g->n[SWEEP_GPUS], 3);
    sweep_grid_free(g);
}

static void test_grid_order_and_shards(void **state)
{
    (void)state;
    char err[200];
    struct sweep_grid *g = sweep_grid_new(2);
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "4,8", err, sizeof err), 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, "40GB,80GB,120GB", err, sizeof err), 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_SCHEDULE, "1f1b,pipedream", err, sizeof err), 0);
    assert_int_equal(sweep_grid_size(g), 2 * 2 * 3 * 2);
    struct sweep_setting s;
    /* the network outermost, the schedule innermost; untouched axes "as in the files" */
    sweep_grid_setting(g, 0, &s);
    assert_int_equal(s.network, 0);
    assert_int_equal(s.knobs.gpus, 4);
    assert_true(s.knobs.memory == 40000000000ULL);
    assert_int_equal(s.knobs.schedule, 0);
    assert_int_equal(s.knobs.micro_batches, 0);
    assert_int_equal(s.knobs.layout, -1);
    sweep_grid_setting(g, 1, &s);
    assert_int_equal(s.knobs.schedule, 1);
    sweep_grid_setting(g, 2, &s);
    assert_true(s.knobs.memory == 80000000000ULL);
    sweep_grid_setting(g, 6, &s);
    assert_int_equal(s.knobs.gpus, 8);
    sweep_grid_setting(g, 23, &s);
    assert_int_equal(s.network, 1);
    assert_int_equal(s.knobs.gpus, 8);
    assert_true(s.knobs.memory == 120000000000ULL);
    assert_int_equal(s.knobs.schedule, 1);
    /* every setting in exactly one of 5 shards */
    long count[5] = { 0 };
    for (long i = 0; i < 24; i++) {
        int in = 0;
        for (long k = 0; k < 5; k++)
            if (sweep_shard_has(i, k, 5)) {
                in++;
                count[k]++;
            }
        assert_int_equal(in, 1);
    }
    assert_int_equal(count[0], 5);
    assert_int_equal(count[4], 4);
    long shard, n;
    assert_int_equal(sweep_shard_parse("0/4", &shard, &n, err, sizeof err), 0);
    assert_true(shard == 0 && n == 4);
    assert_int_equal(sweep_shard_parse("3/4", &shard, &n, err, sizeof err), 0);
    assert_int_equal(sweep_shard_parse("4/4", &shard, &n, err, sizeof err), -1);
    assert_int_equal(sweep_shard_parse("1/0", &shard, &n, err, sizeof err), -1);
    assert_int_equal(sweep_shard_parse("1", &shard, &n, err, sizeof err), -1);
    assert_int_equal(sweep_shard_parse("-1/4", &shard, &n, err, sizeof err), -1);
    char line[400];
    g->nplanners = 2;
    g->planners[0] = "ilp";
    g->planners[1] = "dp";
    assert_string_equal(sweep_grid_describe(g, line, sizeof line),
                        "networks=2 gpus=4,8 memory=40000000000,80000000000,120000000000 "
                        "micro_batches=files schedule=1f1b,pipedream layout=files "
                        "planners=ilp,dp");
    /* 1f1b and any, given, are not "as in the files" */
    assert_int_equal(sweep_grid_set(g, SWEEP_SCHEDULE, "1f1b", err, sizeof err), 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_LAYOUT, "any", err, sizeof err), 0);
    assert_non_null(strstr(sweep_grid_describe(g, line, sizeof line),
                           " schedule=1f1b layout=any planners"));
    /* the row key: setting and planner, one to one */
    assert_int_equal(sweep_row_key(g, 0, "ilp"), 0);
    assert_int_equal(sweep_row_key(g, 0, "dp"), 1);
    assert_int_equal(sweep_row_key(g, 23, "dp"), 47);
    assert_int_equal(sweep_row_key(g, 5, "uniform"), -1);
    sweep_grid_free(g);
    /* the longest list of caps is described whole, in the size it asks */
    g = sweep_grid_new(1);
    char big[32 * 4096];
    size_t at = 0;
    for (int i = 0; i < 4096; i++)
        at += (size_t)snprintf(big + at, sizeof big - at, "%s%dPiB", i ? "," : "", 4000 + i);
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, big, err, sizeof err), 0);
    g->nplanners = 1;
    g->planners[0] = "parameters";
    size_t need = sweep_grid_describe_size(g);
    char *whole = malloc(need);
    assert_non_null(whole);
    sweep_grid_describe(g, whole, need);
    assert_true(strlen(whole) > 4096 * 19);
    assert_non_null(strstr(whole, ",9114159745891041280 micro_batches=files schedule=files "
                                  "layout=files planners=parameters"));
    free(whole);
    sweep_grid_free(g);
    /* a grid too large to number is refused, not wrapped */
    g = sweep_grid_new(1000);
    assert_int_equal(sweep_grid_set(g, SWEEP_GPUS, "1,2,3,4,5,6,7,8,9,10", err, sizeof err), 0);
    assert_int_equal(sweep_grid_set(g, SWEEP_MEMORY, "1GB:4096GB:1GB", err, sizeof err), 0);
    assert_int_equal(sweep_grid_size(g), -1);
    sweep_grid_free(g);
}

static void test_rows_round_trip(void **state)
{
    (void)state;
    struct sweep_row r = {
        .setting = 12, .network = "tiny, \"six\"", .platform = "h200", .gpus = 8,
        .memory = 141000000000ULL, .micro_batches = 16, .schedule = "1f1b", .layout = "any",
        .planner = "ilp", .status = "optimal", .has_plan = true, .period = 0.1 + 0.2,
        .iteration = 1234.5678901234567, .throughput = 1e-300, .bound = NAN,
        .block_bound = 3, .gap = 0, .fits = true, .peak_memory = 140999999999.0,
        .peak_gpu = 7, .seconds = 2.5,
    };
    char line[1024];
    int n = sweep_row_format(&r, line, sizeof line);
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(line));
    assert_int_equal(line[n - 1], '\n');
    assert_string_equal(line, "12,\"tiny, \"\"six\"\"\",h200,8,141000000000,16,1f1b,any,ilp,"
                        "optimal,0.30000000000000004,1234.5678901234567,1e-300,,"
                        "3,0,true,140999999999,7,,2.5\n");
    line[n - 1] = '\0';
    char *f[SWEEP_NCOLUMNS + 1];
    assert_int_equal(sweep_csv_split(line, f, SWEEP_NCOLUMNS + 1), SWEEP_NCOLUMNS);
    assert_string_equal(f[SWEEP_COL_NETWORK], "tiny, \"six\"");
    assert_true(strtod(f[SWEEP_COL_PERIOD], NULL) == 0.1 + 0.2);
    assert_true(strtod(f[SWEEP_COL_ITERATION], NULL) == 1234.5678901234567);
    assert_true(strtod(f[SWEEP_COL_THROUGHPUT], NULL) == 1e-300);
    assert_string_equal(f[SWEEP_COL_BOUND], "");
    assert_string_equal(f[SWEEP_COL_MESSAGE], "");
    /* no plan: every plan column empty; a message quoted when it must be */
    r.has_plan = false;
    r.network = "a\nb";
    r.status = "error";
    r.message = "CBC said \"no\", then\nstopped";
    n = sweep_row_format(&r, line, sizeof line);
    assert_string_equal(line, "12,a b,h200,8,141000000000,16,1f1b,any,ilp,error,,,,,3,0,,,,"
                        "\"CBC said \"\"no\"\", then stopped\",2.5\n");
    line[n - 1] = '\0';
    assert_int_equal(sweep_csv_split(line, f, SWEEP_NCOLUMNS + 1), SWEEP_NCOLUMNS);
    assert_string_equal(f[SWEEP_COL_MESSAGE], "CBC said \"no\", then stopped");
    assert_string_equal(f[SWEEP_COL_SECONDS], "2.5");
    r.message = NULL;
    r.status = "optimal";
    n = sweep_row_format(&r, line, sizeof line);
    assert_string_equal(line, "12,a b,h200,8,141000000000,16,1f1b,any,ilp,optimal,,,,,3,0,,,,,2.5\n");
    assert_int_equal(sweep_row_format(&r, line, 20), -1);
    /* bad quoting is refused */
    char bad1[] = "1,\"open", bad2[] = "1,\"a\"b,2", bad3[] = "a\"b", ok[] = "\"\",,\"x\"";
    assert_int_equal(sweep_csv_split(bad1, f, 4), -1);
    assert_int_equal(sweep_csv_split(bad2, f, 4), -1);
    assert_int_equal(sweep_csv_split(bad3, f, 4), -1);
    assert_int_equal(sweep_csv_split(ok, f, 4), 3);
    assert_string_equal(f[2], "x");
    char many[] = "1,2,3,4,5";
    assert_int_equal(sweep_csv_split(many, f, 4), -1);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_svg_structure(void **state)
{
    (void)state;
    double x1[] = { 40, 60, 80 }, y1[] = { 30, 20, 10 }, x2[] = { 80 }, y2[] = { 12 };
    struct svg_series s[] = {
        { "mem-aware DP, 4 GPUs", 3, x1, y1, 0, 1, 0 },
        { "a <b> & \"c\"", 1, x2, y2, -1, 1, 1 },
        { "never fits", 0, NULL, NULL, -1, 12, 2 },
    };
    struct svg_chart c = { "t & t", "memory cap per GPU (GB)", "period (ms)", 3, s, 0, 0, NULL };
    char *doc = svg_chart_render(&c);
    assert_non_null(doc);
    assert_int_equal(count(doc, "<polyline "), 3);
    assert_int_equal(count(doc, "<text class=\"entry\""), 3);
    assert_int_equal(count(doc, "<path class=\"mark\""), 1);
    assert_int_equal(count(doc, "<svg "), 1);
    /* colour per planner, dash per group: the first two share a colour */
    assert_int_equal(count(doc, "stroke=\"#d62728\""), 2 * 2 + 1);
    assert_int_equal(count(doc, "stroke-dasharray=\"8 4\""), 2);
    assert_int_equal(count(doc, "</svg>"), 1);
    assert_non_null(strstr(doc, ">a &lt;b&gt; &amp; &quot;c&quot;</text>"));
    assert_non_null(strstr(doc, ">t &amp; t</text>"));
    /* x ticks every 10 GB from 40 to 80, y from 0 */
    assert_non_null(strstr(doc, ">40</text>"));
    assert_non_null(strstr(doc, ">80</text>"));
    assert_non_null(strstr(doc, "text-anchor=\"end\">0</text>"));
    assert_null(strstr(doc, "nan"));
    assert_null(strstr(doc, ">100</text>"));
    free(doc);
    /* the caps swept where nothing fits are on the axis all the same */
    c.xmin = 20;
    c.xmax = 100;
    doc = svg_chart_render(&c);
    assert_non_null(strstr(doc, ">20</text>"));
    assert_non_null(strstr(doc, ">100</text>"));
    free(doc);
    /* no point at all: no axes over a range nothing was measured on (they
     * ran from 0 to 1 GB and 0 to 1 ms), the reason instead, and the
     * legend of what never fits */
    struct svg_chart empty = { "none", "x", "y", 0, NULL, 0, 0, NULL };
    doc = svg_chart_render(&empty);
    assert_non_null(doc);
    assert_int_equal(count(doc, "<polyline "), 0);
    assert_int_equal(count(doc, "class=\"axes\""), 0);
    assert_non_null(strstr(doc, "<text class=\"empty\""));
    assert_non_null(strstr(doc, ">nothing to plot</text>"));
    free(doc);
    struct svg_chart none_fit = { "none", "x", "y", 1, &s[2], 0, 0, "no plan fits & more" };
    doc = svg_chart_render(&none_fit);
    assert_int_equal(count(doc, "class=\"axes\""), 0);
    assert_non_null(strstr(doc, ">no plan fits &amp; more</text>"));
    assert_int_equal(count(doc, "<text class=\"entry\""), 1);
    free(doc);
    /* bytes that are no UTF-8 (a name's, or one cut inside a character)
     * and U+FFFF are no XML: U+FFFD; valid characters stay */
    struct svg_series odd = { "a\xff b\xc3 c\xef\xbf\xbf \xc3\xa9", 0, NULL, NULL, -1, 0, 0 };
    struct svg_chart odd_chart = { "t\xe2\x82", "x", "y", 1, &odd, 0, 0, NULL };
    doc = svg_chart_render(&odd_chart);
    assert_non_null(strstr(doc, ">a\xef\xbf\xbd b\xef\xbf\xbd c\xef\xbf\xbd \xc3\xa9</text>"));
    assert_non_null(strstr(doc, ">t\xef\xbf\xbd\xef\xbf\xbd</text>"));
    free(doc);
    /* a title of 139 characters fits the 860 of the picture: a smaller
     * font (10: 139 x 0.55 x 10 <= 840), none past the width; one longer
     * than 9-point glyphs hold is held to the width */
    static const struct { int len; const char *attrs; } titles[] = {
        { 139, "font-size=\"10\">" },
        { 399, "font-size=\"9\" textLength=\"840\" lengthAdjust=\"spacingAndGlyphs\">" },
    };
    for (size_t k = 0; k < sizeof titles / sizeof titles[0]; k++) {
        char title[400], want[200];
        memset(title, 'x', (size_t)titles[k].len);
        title[titles[k].len] = '\0';
        c.title = title;
        doc = svg_chart_render(&c);
        snprintf(want, sizeof want, "<text class=\"title\" x=\"430\" y=\"24\" "
                 "text-anchor=\"middle\" %sxxx", titles[k].attrs);
        assert_non_null(strstr(doc, want));
        free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_fips_vectors),
        cmocka_unit_test(test_memory_range_is_exact),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_grid_order_and_shards),
        cmocka_unit_test(test_rows_round_trip),
        cmocka_unit_test(test_svg_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
