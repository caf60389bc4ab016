/* fuzz_units: the unit parsers every spec value goes through. Each input
 * is tried as a time, a size, a bandwidth, a count and a real; a parsed
 * size must equal the number with its unit (an independent strtod
 * reading) and survive the writers' round trip. */
#include <limits.h>
#include <math.h>

#include "fuzz.h"
#include "units.h"

/* The value of a size the units parser accepted, read with strtod (the
 * parser accepted it, so it is plain digits, a unit and blanks). */
static double size_oracle(const char *text)
{
    static const struct { const char *name; double factor; } units[] = {
        { "B", 1 }, { "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
        { "TB", 1e12 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
        { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 }, { "PB", 1e15 },
        { "PiB", 1125899906842624.0 }
    };
    char *end;
    double x = strtod(text, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    size_t n = strlen(end);
    while (n > 0 && (end[n - 1] == ' ' || end[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncmp(units[i].name, end, n) == 0)
            return x * units[i].factor;
    FUZZ_ASSERT(0, "size '%s' has no unit the oracle knows", text);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[160], buf[96], back_err[160];
    double ms, bw, real;
    uint64_t bytes;
    long count;

    if (units_parse_time(text, &ms, err, sizeof err) == 0) {
        FUZZ_ASSERT(isfinite(ms) && ms >= 0, "time %g", ms);
        double back;
        units_write_time(ms, buf, sizeof buf);
        FUZZ_ASSERT(units_parse_time(buf, &back, back_err, sizeof back_err) == 0,
                    "'%s' written as '%s' does not read back: %s", text, buf, back_err);
        FUZZ_ASSERT(fabs(back - ms) <= 1e-6, "'%s' -> %.17g -> '%s' -> %.17g", text, ms, buf,
                    back);
        units_format_time(ms, buf, sizeof buf);
    }
    if (units_parse_size(text, &bytes, err, sizeof err) == 0) {
        double want = size_oracle(text);
        FUZZ_ASSERT(fabs((double)bytes - want) <= 0.5 + 1e-12 * want,
                    "'%s' read as %llu bytes, strtod says %.17g", text,
                    (unsigned long long)bytes, want);
        uint64_t back;
        units_write_size(bytes, buf, sizeof buf);
        FUZZ_ASSERT(units_parse_size(buf, &back, back_err, sizeof back_err) == 0 && back == bytes,
                    "%llu bytes written as '%s' do not read back", (unsigned long long)bytes,
                    buf);
        units_format_size((double)bytes, buf, sizeof buf);
    }
    if (units_parse_bandwidth(text, &bw, err, sizeof err) == 0) {
        FUZZ_ASSERT(isfinite(bw) && bw > 0, "bandwidth %g", bw);
        units_format_bandwidth(bw, buf, sizeof buf);
    }
    if (units_parse_count(text, 0, LONG_MAX, &count, err, sizeof err) == 0)
        FUZZ_ASSERT(count >= 0, "count %ld", count);
    if (units_parse_count(text, 1, 1000, &count, err, sizeof err) == 0)
        FUZZ_ASSERT(count >= 1 && count <= 1000, "count %ld", count);
    if (units_parse_real(text, &real, err, sizeof err) == 0)
        FUZZ_ASSERT(isfinite(real) && real >= 0, "real %g", real);
    free(text);
    return 0;
}
