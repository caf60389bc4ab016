/* units: exact parsing and human formatting of times, sizes and bandwidths.
 *
 * Spec files always write units; parsing is exact for decimal sizes
 * (37.6KB is 37600 bytes) and rejects anything that would not fit in 64
 * bits. Pure C, no I/O. */
#ifndef PIPEPLAN_UNITS_H
#define PIPEPLAN_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each parser returns 0 on success, or -1 with a short reason in err
 * (e.g. "missing unit", "negative value") that the caller wraps with the
 * file and line. Leading/trailing blanks are allowed, a blank between the
 * number and the unit too. */

/* The longest time a spec file holds, ms (about 31 years): writers that
 * take times from elsewhere (import) refuse longer ones. */
#define UNITS_MAX_MS 1e12

/* "1.9ms", "250us", "0.5 s" -> milliseconds, at most UNITS_MAX_MS. */
int units_parse_time(const char *text, double *ms, char *err, size_t errlen);

/* "37.6KB", "16GiB", "512B" -> bytes; fractional bytes round to nearest. */
int units_parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen);

/* "25GB/s", "100Gbit/s", "800MB/s" -> bytes per second. */
int units_parse_bandwidth(const char *text, double *bytes_per_s, char *err, size_t errlen);

/* A bare non-negative integer count ("8"), in [min, max]. */
int units_parse_count(const char *text, long min, long max, long *value,
                      char *err, size_t errlen);

/* A bare non-negative finite real ("4", "2.5"). */
int units_parse_real(const char *text, double *value, char *err, size_t errlen);

/* Human formatting into buf; returns buf. Sizes in binary units
 * ("11.2 GiB", "37.6 KiB", "512 B"), times in s/ms/us/ns. */
char *units_format_size(double bytes, char *buf, size_t len);
/* The same, rounded up in its last digit rather than to the nearest: a cap
 * named as one that fits still fits when typed back ("8.28 GiB" for
 * 8.274 GiB, where "8.27 GiB" would not). */
char *units_format_size_up(double bytes, char *buf, size_t len);
/* The same with as many more digits as keep it below `below` (when above
 * bytes): a cap named for one plan must not be one that another plan fits
 * in too ("1.01 GiB" for 1.0025 GiB beside a plan needing 1.0052 GiB:
 * "1.003 GiB"). */
char *units_format_size_up_below(double bytes, double below, char *buf, size_t len);
char *units_format_time(double ms, char *buf, size_t len);
char *units_format_bandwidth(double bytes_per_s, char *buf, size_t len);
/* A throughput in samples/s ("542.4"; "-" when not a number, as for a
 * network with no time at all). */
char *units_format_rate(double samples_per_s, char *buf, size_t len);
/* A ratio such as T/T_lb in at most five characters ("1.059", "12.50",
 * "123.4", "12345", "6e+12"; "-" when not a number). */
char *units_format_ratio(double ratio, char *buf, size_t len);

/* Exact spec-file spelling: the shortest of B, KB, MB, GB (x1000) or KiB,
 * MiB, GiB (x1024) that writes bytes without loss, e.g. "37600B" ->
 * "37.6KB". Used by writers so files round-trip byte for byte. */
char *units_write_size(uint64_t bytes, char *buf, size_t len);
/* Milliseconds with up to 6 decimals, or 6 significant digits below a
 * millisecond (down to 10^-12 ms), trailing zeros trimmed ("1.9ms",
 * "0.00000082ms"); never an exponent. */
char *units_write_time(double ms, char *buf, size_t len);
/* v ("%.Ng") with the fewest digits N, from min_digits up to 17, that
 * read back (strtod) to v exactly: for writers whose numbers are read
 * again (plan files, JSON). */
char *units_write_exact(double v, int min_digits, char *buf, size_t len);

#endif
