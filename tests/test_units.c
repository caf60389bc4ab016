/* Unit parsing is exact and strict; writing round-trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

static void test_time_units_scale_to_ms(void **state)
{
    (void)state;
    double ms;
    char err[128];
    assert_int_equal(units_parse_time("1.9ms", &ms, err, sizeof err), 0);
    assert_true(ms == 1.9);
    assert_int_equal(units_parse_time(" 250 us ", &ms, err, sizeof err), 0);
    assert_true(ms == 0.25);
    assert_int_equal(units_parse_time("2s", &ms, err, sizeof err), 0);
    assert_true(ms == 2000.0);
    assert_int_equal(units_parse_time("0ms", &ms, err, sizeof err), 0);
    assert_true(ms == 0.0);
}

static void test_time_rejects_bare_negative_and_nonfinite(void **state)
{
    (void)state;
    double ms;
    char err[128];
    assert_int_equal(units_parse_time("1.9", &ms, err, sizeof err), -1);
    assert_string_equal(err, "missing unit (expected us, ms or s)");
    assert_int_equal(units_parse_time("-1ms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "negative value");
    assert_int_equal(units_parse_time("infms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "not a number");
    assert_int_equal(units_parse_time("nan", &ms, err, sizeof err), -1);
    assert_int_equal(units_parse_time("1e3ms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "exponents are not accepted (write the number out in full)");
    assert_int_equal(units_parse_time("1.5E-05 ms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "exponents are not accepted (write the number out in full)");
    assert_int_equal(units_parse_time("1.5e+2ms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "exponents are not accepted (write the number out in full)");
    double x;
    assert_int_equal(units_parse_real("2.5e-1", &x, err, sizeof err), -1);
    assert_string_equal(err, "exponents are not accepted (write the number out in full)");
    assert_int_equal(units_parse_real("2.5", &x, err, sizeof err), 0);
    assert_true(x == 2.5);
    /* an "e" that begins no exponent is a unit, and an unknown one */
    assert_int_equal(units_parse_time("1ems", &ms, err, sizeof err), -1);
    assert_string_equal(err, "unknown unit 'ems' (expected us, ms or s)");
    assert_int_equal(units_parse_time("3 min", &ms, err, sizeof err), -1);
    assert_int_equal(units_parse_time("", &ms, err, sizeof err), -1);
    assert_int_equal(units_parse_time(".", &ms, err, sizeof err), -1);
    /* a number that goes on past one decimal point is no number, not a unit */
    assert_int_equal(units_parse_time("1.2.3ms", &ms, err, sizeof err), -1);
    assert_string_equal(err, "not a number (expected digits and one decimal point, then a "
                        "unit)");
}

static void test_size_decimal_and_binary_are_exact(void **state)
{
    (void)state;
    uint64_t b;
    char err[128];
    assert_int_equal(units_parse_size("37.6KB", &b, err, sizeof err), 0);
    assert_int_equal(b, 37600);
    assert_int_equal(units_parse_size("16GiB", &b, err, sizeof err), 0);
    assert_int_equal(b, 17179869184ULL);
    assert_int_equal(units_parse_size("1.5 GiB", &b, err, sizeof err), 0);
    assert_int_equal(b, 1610612736ULL);
    assert_int_equal(units_parse_size("0.000001GB", &b, err, sizeof err), 0);
    assert_int_equal(b, 1000);
    assert_int_equal(units_parse_size("512B", &b, err, sizeof err), 0);
    assert_int_equal(b, 512);
    /* what the screen writes past 1024 TiB reads back */
    assert_int_equal(units_parse_size("2 PiB", &b, err, sizeof err), 0);
    assert_int_equal(b, 1ULL << 51);
    assert_int_equal(units_parse_size("1.5PB", &b, err, sizeof err), 0);
    assert_int_equal(b, 1500000000000000ULL);
    /* 0.1 KiB is 102.4 bytes: rounds to the nearest byte */
    assert_int_equal(units_parse_size("0.1KiB", &b, err, sizeof err), 0);
    assert_int_equal(b, 102);
    assert_int_equal(units_parse_size("18446744073709551615B", &b, err, sizeof err), 0);
    assert_true(b == UINT64_MAX);
    /* halves round up, exactly */
    assert_int_equal(units_parse_size("0.5B", &b, err, sizeof err), 0);
    assert_int_equal(b, 1);
    assert_int_equal(units_parse_size("0.499999999999999999999999999999999999B", &b, err,
                                      sizeof err), 0);
    assert_int_equal(b, 0);
    /* fuzz_units: 36 digits whose product with the unit is just below
     * 2^128; adding the half for rounding wrapped it round to 0 bytes */
    assert_int_equal(units_parse_size("0.000000000309485009821345068724781055TiB", &b, err,
                                      sizeof err), 0);
    assert_int_equal(b, 340);
}

static void test_size_rejects_overflow_and_bad_units(void **state)
{
    (void)state;
    uint64_t b;
    char err[128];
    assert_int_equal(units_parse_size("18446744073709551616B", &b, err, sizeof err), -1);
    assert_string_equal(err, "size does not fit in 64 bits");
    assert_int_equal(units_parse_size("20000000000GB", &b, err, sizeof err), -1);
    assert_string_equal(err, "size does not fit in 64 bits");
    assert_int_equal(units_parse_size("12", &b, err, sizeof err), -1);
    assert_string_equal(err, "missing unit (expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)");
    assert_int_equal(units_parse_size("12 gb", &b, err, sizeof err), -1);
    assert_string_equal(err, "unknown unit 'gb' (expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)");
    assert_int_equal(units_parse_size("-3MB", &b, err, sizeof err), -1);
    assert_int_equal(units_parse_size("1234567890123456789012345678901234567B", &b, err,
                                      sizeof err), -1);
}

static void test_bandwidth_units(void **state)
{
    (void)state;
    double bw;
    char err[128];
    assert_int_equal(units_parse_bandwidth("25GB/s", &bw, err, sizeof err), 0);
    assert_true(bw == 25e9);
    assert_int_equal(units_parse_bandwidth("100Gbit/s", &bw, err, sizeof err), 0);
    assert_true(bw == 12.5e9);
    assert_int_equal(units_parse_bandwidth("800 MB/s", &bw, err, sizeof err), 0);
    assert_true(bw == 800e6);
    assert_int_equal(units_parse_bandwidth("0GB/s", &bw, err, sizeof err), -1);
    assert_string_equal(err, "bandwidth must be positive");
    assert_int_equal(units_parse_bandwidth("25GB", &bw, err, sizeof err), -1);
    assert_int_equal(units_parse_bandwidth("25", &bw, err, sizeof err), -1);
}

static void test_counts_are_bare_and_in_range(void **state)
{
    (void)state;
    long v;
    char err[128];
    assert_int_equal(units_parse_count("8", 1, 64, &v, err, sizeof err), 0);
    assert_int_equal(v, 8);
    assert_int_equal(units_parse_count("0", 1, 64, &v, err, sizeof err), -1);
    assert_string_equal(err, "out of range (expected 1 to 64)");
    assert_int_equal(units_parse_count("99999999999999999999999", 1, 64, &v, err,
                                       sizeof err), -1);
    assert_string_equal(err, "out of range (expected 1 to 64)");
    assert_int_equal(units_parse_count("8GPUs", 1, 64, &v, err, sizeof err), -1);
    assert_string_equal(err, "not a whole number (a bare count takes no unit)");
    assert_int_equal(units_parse_count("2.5", 1, 64, &v, err, sizeof err), -1);
    assert_string_equal(err, "not a whole number");
    assert_int_equal(units_parse_count("-1", 1, 64, &v, err, sizeof err), -1);
    assert_string_equal(err, "negative value");
}

static void test_write_size_is_shortest_exact(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(units_write_size(37600, buf, sizeof buf), "37.6KB");
    assert_string_equal(units_write_size(205520896, buf, sizeof buf), "196MiB");
    assert_string_equal(units_write_size(0, buf, sizeof buf), "0B");
    assert_string_equal(units_write_size(4, buf, sizeof buf), "4B");
    assert_string_equal(units_write_size(1024, buf, sizeof buf), "1KiB");
    assert_string_equal(units_write_size(1000, buf, sizeof buf), "1KB");
    assert_string_equal(units_write_size(151011328, buf, sizeof buf), "151.011328MB");
}

static void test_write_then_parse_round_trips(void **state)
{
    (void)state;
    char buf[64], err[128];
    uint64_t vals[] = { 0, 1, 999, 1000, 1023, 1025, 602112, 154140672, 44302336,
                        17179869184ULL, 123456789012345ULL, UINT64_MAX };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint64_t back;
        units_write_size(vals[i], buf, sizeof buf);
        assert_int_equal(units_parse_size(buf, &back, err, sizeof err), 0);
        assert_true(back == vals[i]);
    }
    double times[] = { 0, 0.001, 1.9, 22.316, 635.902, 1e-6 };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        double back;
        units_write_time(times[i], buf, sizeof buf);
        assert_int_equal(units_parse_time(buf, &back, err, sizeof err), 0);
        assert_true(back == times[i]);
    }
    assert_string_equal(units_write_time(1.9, buf, sizeof buf), "1.9ms");
    assert_string_equal(units_write_time(0, buf, sizeof buf), "0ms");
}

/* The fewest digits that read back exactly, from the digits asked. */
static void test_write_exact(void **state)
{
    (void)state;
    char buf[40];
    assert_string_equal(units_write_exact(28.721, 6, buf, sizeof buf), "28.721");
    assert_string_equal(units_write_exact(0.1 + 0.2, 6, buf, sizeof buf), "0.30000000000000004");
    assert_string_equal(units_write_exact(1e7, 6, buf, sizeof buf), "1e+07");
    assert_string_equal(units_write_exact(1e7, 10, buf, sizeof buf), "10000000");
    assert_string_equal(units_write_exact(1600000.0000005, 10, buf, sizeof buf),
                        "1600000.0000005");
}

static void test_human_formats(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(units_format_size(11.2 * 1073741824.0, buf, sizeof buf), "11.2 GiB");
    assert_string_equal(units_format_size(512, buf, sizeof buf), "512 B");
    assert_string_equal(units_format_size(1536, buf, sizeof buf), "1.50 KiB");
    /* rounded up in the last digit: the stress run's least cap, 8,884,126,720 B
     * (8.2740 GiB), was shown as 8.27 GiB, at which nothing fits */
    assert_string_equal(units_format_size(8884126720.0, buf, sizeof buf), "8.27 GiB");
    assert_string_equal(units_format_size_up(8884126720.0, buf, sizeof buf), "8.28 GiB");
    uint64_t back = 0;
    assert_int_equal(units_parse_size("8.28 GiB", &back, buf, sizeof buf), 0);
    assert_true(back >= 8884126720ULL);
    assert_string_equal(units_format_size_up(8.0 * 1073741824.0, buf, sizeof buf), "8.00 GiB");
    assert_string_equal(units_format_size_up(11.21 * 1073741824.0, buf, sizeof buf), "11.3 GiB");
    assert_string_equal(units_format_size_up(9.999 * 1073741824.0, buf, sizeof buf), "10.0 GiB");
    assert_string_equal(units_format_size_up(1023.5 * 1024.0, buf, sizeof buf), "1.00 MiB");
    assert_string_equal(units_format_size_up(512, buf, sizeof buf), "512 B");
    assert_string_equal(units_format_size_up(511.5, buf, sizeof buf), "512 B");
    /* as many more digits as keep a least cap below the next plan's need:
     * 1,076,391,344 B read "1.01 GiB", where a plan needing 1,079,327,316 B
     * fits too */
    assert_string_equal(units_format_size_up_below(1076391344.0, 1079327316.0, buf, sizeof buf),
                        "1.003 GiB");
    assert_string_equal(units_format_size_up_below(1076391344.0, INFINITY, buf, sizeof buf),
                        "1.01 GiB");
    assert_string_equal(units_format_size_up_below(1076391344.0, 1076391344.0, buf, sizeof buf),
                        "1.01 GiB");
    assert_string_equal(units_format_size_up_below(512, 513, buf, sizeof buf), "512 B");
    /* typed back, never below the cap, and below the need when a byte apart */
    for (double x = 1000; x < 1e15; x *= 3.7) {
        double c = floor(x), need[] = { c + 1, c + 1e3, c * 1.001, c * 1.05 };
        for (int j = 0; j < 4; j++) {
            units_format_size_up_below(c, need[j], buf, sizeof buf);
            char err[128];
            assert_int_equal(units_parse_size(buf, &back, err, sizeof err), 0);
            if ((double)back < c || (need[j] >= c + 2 && (double)back >= need[j]))
                fail_msg("%.0f B below %.0f B: '%s' reads %llu B", c, need[j], buf,
                         (unsigned long long)back);
        }
    }
    assert_string_equal(units_format_time(61.25, buf, sizeof buf), "61.2 ms");
    assert_string_equal(units_format_time(0.25, buf, sizeof buf), "250 us");
    assert_string_equal(units_format_time(0.0005, buf, sizeof buf), "500 ns");
    assert_string_equal(units_format_time(0.001, buf, sizeof buf), "1 us");
    assert_string_equal(units_format_time(0.00042, buf, sizeof buf), "420 ns");
    assert_string_equal(units_format_time(1e-6, buf, sizeof buf), "1 ns");
    assert_string_equal(units_format_time(2.5e-8, buf, sizeof buf), "0.025 ns");
    assert_string_equal(units_format_time(1500, buf, sizeof buf), "1.50 s");
    assert_string_equal(units_format_time(9999990, buf, sizeof buf), "9999.99 s");
    assert_string_equal(units_format_time(2e12, buf, sizeof buf), "2e+09 s");
    /* written for files: six significant digits below a millisecond, no
     * exponent (time files refuse one), read back to within them */
    assert_string_equal(units_write_time(1.9, buf, sizeof buf), "1.9ms");
    assert_string_equal(units_write_time(0.001, buf, sizeof buf), "0.001ms");
    assert_string_equal(units_write_time(8.2e-7, buf, sizeof buf), "0.00000082ms");
    assert_string_equal(units_write_time(1.234567891e-4, buf, sizeof buf), "0.000123457ms");
    double ms_back;
    char why[128];
    assert_int_equal(units_parse_time(units_write_time(8.2e-7, buf, sizeof buf), &ms_back, why,
                                      sizeof why), 0);
    assert_true(fabs(ms_back - 8.2e-7) < 1e-18);
    /* hours to days in whole seconds, as the explorer's table shows them */
    assert_string_equal(units_format_time(2.934584e8, buf, sizeof buf), "293458 s");
    assert_string_equal(units_format_time(999999.4e3, buf, sizeof buf), "999999 s");
    assert_string_equal(units_format_time(999999.6e3, buf, sizeof buf), "1e+06 s");
    assert_string_equal(units_format_bandwidth(25e9, buf, sizeof buf), "25 GB/s");
    assert_string_equal(units_format_rate(542.44, buf, sizeof buf), "542.4");
    assert_string_equal(units_format_rate(3.2e12, buf, sizeof buf), "3.200e+12");
    assert_string_equal(units_format_rate(NAN, buf, sizeof buf), "-");
    assert_string_equal(units_format_rate(4.4e-5, buf, sizeof buf), "4.4e-05");
    /* below 1, two digits that count in every row of a column */
    assert_string_equal(units_format_rate(0.02, buf, sizeof buf), "0.020");
    assert_string_equal(units_format_rate(0.0194, buf, sizeof buf), "0.019");
    assert_string_equal(units_format_rate(0.51, buf, sizeof buf), "0.51");
    assert_string_equal(units_format_rate(0.06, buf, sizeof buf), "0.060");
    /* the samples/s column holds ten characters: past 9,999,999.9 in three digits */
    assert_string_equal(units_format_rate(9999999.9, buf, sizeof buf), "9999999.9");
    assert_string_equal(units_format_rate(12345678, buf, sizeof buf), "1.235e+07");
    /* T/T_lb in five characters at most, whatever a plan file's period */
    assert_string_equal(units_format_ratio(1.05944, buf, sizeof buf), "1.059");
    assert_string_equal(units_format_ratio(9.9996, buf, sizeof buf), "10.00");
    assert_string_equal(units_format_ratio(12.5, buf, sizeof buf), "12.50");
    assert_string_equal(units_format_ratio(123.44, buf, sizeof buf), "123.4");
    assert_string_equal(units_format_ratio(12345.4, buf, sizeof buf), "12345");
    assert_string_equal(units_format_ratio(99999.6, buf, sizeof buf), "1e+05");
    assert_string_equal(units_format_ratio(5947645847428.0, buf, sizeof buf), "6e+12");
    assert_string_equal(units_format_ratio(NAN, buf, sizeof buf), "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_units_scale_to_ms),
        cmocka_unit_test(test_write_exact),
        cmocka_unit_test(test_time_rejects_bare_negative_and_nonfinite),
        cmocka_unit_test(test_size_decimal_and_binary_are_exact),
        cmocka_unit_test(test_size_rejects_overflow_and_bad_units),
        cmocka_unit_test(test_bandwidth_units),
        cmocka_unit_test(test_counts_are_bare_and_in_range),
        cmocka_unit_test(test_write_size_is_shortest_exact),
        cmocka_unit_test(test_write_then_parse_round_trips),
        cmocka_unit_test(test_human_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
