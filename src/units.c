/* units: exact parsing and human formatting of times, sizes, bandwidths. */
#include "units.h"

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

#define MAX_DIGITS 36   /* keeps mantissa * unit below 2^128 */

struct number {
    u128 mantissa;      /* all digits, the decimal point removed */
    int decimals;       /* digits after the point */
    double value;
};

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Strict decimal: digits [. digits]; no sign, exponent, hex, inf or nan.
 * Returns the end of the number or NULL. */
static const char *parse_number(const char *p, struct number *num,
                                char *err, size_t errlen)
{
    const char *start = p;
    int digits = 0, decimals = 0, seen = 0;
    bool point = false;
    num->mantissa = 0;

    if (*p == '-') {
        set_err(err, errlen, "negative value");
        return NULL;
    }
    if (*p == '+')
        p++;
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            seen++;
            if (num->mantissa == 0 && *p == '0' && !point) {
                /* leading zeros do not count towards the digit limit */
            } else if (++digits > MAX_DIGITS) {
                set_err(err, errlen, "too many digits");
                return NULL;
            }
            num->mantissa = num->mantissa * 10 + (u128)(*p - '0');
            if (point)
                decimals++;
        } else if (*p == '.' && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (seen == 0) {
        set_err(err, errlen, "not a number");
        return NULL;
    }
    num->decimals = decimals;
    /* strtod on the digits alone: "1e400ms" must not read an exponent */
    char span[2 * MAX_DIGITS + 8];
    size_t n = (size_t)(p - start);
    if (n >= sizeof span) {
        set_err(err, errlen, "too many digits");
        return NULL;
    }
    memcpy(span, start, n);
    span[n] = '\0';
    num->value = strtod(span, NULL);
    if (!isfinite(num->value)) {
        set_err(err, errlen, "number out of range");
        return NULL;
    }
    return p;
}

/* Numbers are exact decimals: "1e-05", as a script may print, is refused
 * by name (p: just after the digits) rather than as a unit "e-05ms". */
static bool exponent_refused(const char *p, char *err, size_t errlen)
{
    const char *x = p + (*p == 'e' || *p == 'E');
    x += x > p && (*x == '+' || *x == '-');
    if (x > p && *x >= '0' && *x <= '9') {
        set_err(err, errlen, "exponents are not accepted (write the number out in full)");
        return true;
    }
    return false;
}

struct unit {
    const char *name;
    double factor;      /* to the module's base unit */
    uint64_t exact;     /* for sizes: bytes per unit */
};

static const struct unit *find_unit(const struct unit *units, const char *p)
{
    for (const struct unit *u = units; u->name; u++)
        if (strcmp(u->name, p) == 0)
            return u;
    return NULL;
}

/* The unit text with trailing blanks removed, in a small buffer. */
static int unit_text(const char *p, char *buf, size_t len)
{
    p = skip_blank(p);
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n >= len)
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 0;
}

static int parse_with_unit(const char *text, const struct unit *units,
                           const char *expected, struct number *num,
                           const struct unit **unit, char *err, size_t errlen)
{
    char ubuf[16], msg[128];
    const char *p = parse_number(skip_blank(text), num, err, errlen);
    if (!p)
        return -1;
    if (exponent_refused(p, err, errlen))
        return -1;
    if (*p == '.' || (*p >= '0' && *p <= '9')) {
        /* "1.2.3ms": the number goes on past what reads as one */
        set_err(err, errlen, "not a number (expected digits and one decimal point, then a "
                "unit)");
        return -1;
    }
    if (unit_text(p, ubuf, sizeof ubuf) < 0) {
        snprintf(msg, sizeof msg, "unknown unit (expected %s)", expected);
        set_err(err, errlen, msg);
        return -1;
    }
    if (ubuf[0] == '\0') {
        snprintf(msg, sizeof msg, "missing unit (expected %s)", expected);
        set_err(err, errlen, msg);
        return -1;
    }
    *unit = find_unit(units, ubuf);
    if (!*unit) {
        snprintf(msg, sizeof msg, "unknown unit '%s' (expected %s)", ubuf, expected);
        set_err(err, errlen, msg);
        return -1;
    }
    return 0;
}

static const struct unit time_units[] = {
    { "us", 1e-3, 0 }, { "ms", 1.0, 0 }, { "s", 1e3, 0 }, { NULL, 0, 0 }
};

int units_parse_time(const char *text, double *ms, char *err, size_t errlen)
{
    struct number num;
    const struct unit *u;
    if (parse_with_unit(text, time_units, "us, ms or s", &num, &u, err, errlen) < 0)
        return -1;
    *ms = num.value * u->factor;
    if (!isfinite(*ms) || *ms > UNITS_MAX_MS) {
        set_err(err, errlen, "time out of range");
        return -1;
    }
    return 0;
}

static const struct unit size_units[] = {
    { "B", 1, 1ULL },
    { "KB", 1e3, 1000ULL }, { "kB", 1e3, 1000ULL },
    { "MB", 1e6, 1000000ULL }, { "GB", 1e9, 1000000000ULL },
    { "TB", 1e12, 1000000000000ULL },
    { "KiB", 1024.0, 1ULL << 10 }, { "MiB", 1048576.0, 1ULL << 20 },
    { "GiB", 1073741824.0, 1ULL << 30 }, { "TiB", 1099511627776.0, 1ULL << 40 },
    /* what units_format_size writes past 1024 TiB reads back */
    { "PB", 1e15, 1000000000000000ULL }, { "PiB", 1125899906842624.0, 1ULL << 50 },
    { NULL, 0, 0 }
};

int units_parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen)
{
    struct number num;
    const struct unit *u;
    if (parse_with_unit(text, size_units, "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB",
                        &num, &u, err, errlen) < 0)
        return -1;
    /* exact: mantissa * unit / 10^decimals, rounded half up */
    u128 scale = 1;
    for (int i = 0; i < num.decimals; i++)
        scale *= 10;
    u128 limit = ~(u128)0 / u->exact;
    if (num.mantissa > limit) {
        set_err(err, errlen, "size does not fit in 64 bits");
        return -1;
    }
    /* (x + scale/2) / scale without the sum, which can pass 2^128 when x
     * is just below it (36 digits, most after the point) */
    u128 x = num.mantissa * u->exact;
    u128 v = x / scale + (x % scale >= scale - scale / 2 ? 1 : 0);
    if (v > (u128)UINT64_MAX) {
        set_err(err, errlen, "size does not fit in 64 bits");
        return -1;
    }
    *bytes = (uint64_t)v;
    return 0;
}

static const struct unit bw_units[] = {
    { "B/s", 1, 0 }, { "KB/s", 1e3, 0 }, { "MB/s", 1e6, 0 }, { "GB/s", 1e9, 0 },
    { "TB/s", 1e12, 0 }, { "KiB/s", 1024.0, 0 }, { "MiB/s", 1048576.0, 0 },
    { "GiB/s", 1073741824.0, 0 },
    { "Kbit/s", 1e3 / 8, 0 }, { "Mbit/s", 1e6 / 8, 0 }, { "Gbit/s", 1e9 / 8, 0 },
    { "Tbit/s", 1e12 / 8, 0 },
    { NULL, 0, 0 }
};

int units_parse_bandwidth(const char *text, double *bytes_per_s, char *err, size_t errlen)
{
    struct number num;
    const struct unit *u;
    if (parse_with_unit(text, bw_units, "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, "
                        "Kbit/s, Mbit/s, Gbit/s or Tbit/s", &num, &u, err, errlen) < 0)
        return -1;
    *bytes_per_s = num.value * u->factor;
    if (!isfinite(*bytes_per_s)) {
        set_err(err, errlen, "bandwidth out of range");
        return -1;
    }
    if (*bytes_per_s <= 0) {
        set_err(err, errlen, "bandwidth must be positive");
        return -1;
    }
    return 0;
}

int units_parse_count(const char *text, long min, long max, long *value,
                      char *err, size_t errlen)
{
    const char *p = skip_blank(text);
    char msg[96];
    if (*p == '-') {
        set_err(err, errlen, "negative value");
        return -1;
    }
    p += *p == '+';    /* as every other number in the files */
    if (!isdigit((unsigned char)*p)) {
        set_err(err, errlen, "not a whole number");
        return -1;
    }
    long v = 0;
    bool over = false;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > (max - (*p - '0')) / 10)
            over = true;
        else
            v = v * 10 + (*p - '0');
    }
    p = skip_blank(p);
    if (*p == '.' || *p == ',') {
        set_err(err, errlen, "not a whole number");
        return -1;
    }
    if (*p != '\0') {
        set_err(err, errlen, "not a whole number (a bare count takes no unit)");
        return -1;
    }
    if (over || v < min || v > max) {
        snprintf(msg, sizeof msg, "out of range (expected %ld to %ld)", min, max);
        set_err(err, errlen, msg);
        return -1;
    }
    *value = v;
    return 0;
}

int units_parse_real(const char *text, double *value, char *err, size_t errlen)
{
    struct number num;
    const char *p = parse_number(skip_blank(text), &num, err, errlen);
    if (!p || exponent_refused(p, err, errlen))
        return -1;
    if (*skip_blank(p) != '\0') {
        set_err(err, errlen, "not a plain number");
        return -1;
    }
    *value = num.value;
    return 0;
}

/* the units sizes are shown in, by their power of 1024 */
static const char *const size_names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

/* bytes in its unit (*k: 0 for B .. 5 for PiB) and the decimals shown */
static double size_scaled(double bytes, int *k, int *decimals)
{
    double v = bytes;
    *k = 0;
    while (fabs(v) >= 1024.0 && *k < 5) {
        v /= 1024.0;
        (*k)++;
    }
    *decimals = *k == 0 ? 0 : fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0;
    return v;
}

char *units_format_size(double bytes, char *buf, size_t len)
{
    int k, d;
    double v = size_scaled(bytes, &k, &d);
    snprintf(buf, len, "%.*f %s", d, v, size_names[k]);
    return buf;
}

char *units_format_size_up(double bytes, char *buf, size_t len)
{
    int k, d;
    double v = size_scaled(bytes, &k, &d), scale = pow(10, d);
    double up = ceil(v * scale) / scale;
    /* rounding up may reach the next format ("9.999" -> "10.0"): that
     * value, in bytes, formats as itself */
    return units_format_size(isfinite(up) ? up * pow(1024, k) : bytes, buf, len);
}

char *units_format_size_up_below(double bytes, double below, char *buf, size_t len)
{
    int k, d;
    double v = size_scaled(bytes, &k, &d), unit = pow(1024, k);
    units_format_size_up(bytes, buf, len);
    if (!(below > bytes) || !isfinite(v))
        return buf;
    /* a digit more at a time, to a byte at most, while the text reaches
     * below (a byte is 10^-3.01k of the unit) */
    for (int e = d; e < 3 * k + 1; e++) {
        double at = ceil(v * pow(10, e)) / pow(10, e) * unit;
        if (!(at >= below) || at - bytes < 1)
            break;
        double up = ceil(v * pow(10, e + 1)) / pow(10, e + 1);
        snprintf(buf, len, "%.*f %s", e + 1, up, size_names[k]);
    }
    return buf;
}

char *units_format_time(double ms, char *buf, size_t len)
{
    double a = fabs(ms);
    /* below a microsecond "0 us" or "1 us" would say little: nanoseconds */
    if (a < 0.5e-6 && a > 0)
        snprintf(buf, len, "%.2g ns", ms * 1e6);
    else if (a < 0.9995e-3 && a > 0)
        snprintf(buf, len, "%.0f ns", ms * 1e6);
    else if (a < 1.0 && a > 0)
        snprintf(buf, len, "%.0f us", ms * 1e3);
    else if (a < 10.0)
        snprintf(buf, len, "%.2f ms", ms);
    else if (a < 1000.0)
        snprintf(buf, len, "%.1f ms", ms);
    else if (a < 1e7)
        snprintf(buf, len, "%.2f s", ms / 1e3);
    else if (a < 999999.5e3)   /* hours to days: whole seconds, as a table's column */
        snprintf(buf, len, "%.0f s", ms / 1e3);
    else    /* beyond (files allow 10^12 ms): a column's width */
        snprintf(buf, len, "%.3g s", ms / 1e3);
    return buf;
}

char *units_format_rate(double samples_per_s, char *buf, size_t len)
{
    if (!isfinite(samples_per_s))
        snprintf(buf, len, "-");
    else if (samples_per_s > 0 && samples_per_s < 1)
        /* two digits that count, zeros kept: "0.020" beside "0.019",
         * "0.51" (not "0.0" or "0.5") */
        snprintf(buf, len, "%#.2g", samples_per_s);
    else
        snprintf(buf, len, samples_per_s < 9999999.95 ? "%.1f" : "%.3e", samples_per_s);
    return buf;
}

char *units_format_ratio(double ratio, char *buf, size_t len)
{
    /* four significant digits while they fit in five characters */
    if (!isfinite(ratio) || ratio < 0)
        snprintf(buf, len, "-");
    else if (ratio < 9.9995)
        snprintf(buf, len, "%.3f", ratio);
    else if (ratio < 99.995)
        snprintf(buf, len, "%.2f", ratio);
    else if (ratio < 999.95)
        snprintf(buf, len, "%.1f", ratio);
    else if (ratio < 99999.5)
        snprintf(buf, len, "%.0f", ratio);
    else
        snprintf(buf, len, "%.0e", ratio);
    return buf;
}

char *units_format_bandwidth(double bytes_per_s, char *buf, size_t len)
{
    if (bytes_per_s >= 1e9)
        snprintf(buf, len, "%.4g GB/s", bytes_per_s / 1e9);
    else if (bytes_per_s >= 1e6)
        snprintf(buf, len, "%.4g MB/s", bytes_per_s / 1e6);
    else
        snprintf(buf, len, "%.4g KB/s", bytes_per_s / 1e3);
    return buf;
}

/* bytes / 10^(3k) as an exact decimal with trailing zeros trimmed. */
static void write_decimal(uint64_t bytes, int k, const char *unit, char *buf, size_t len)
{
    uint64_t div = 1;
    for (int i = 0; i < k; i++)
        div *= 1000;
    uint64_t whole = bytes / div, frac = bytes % div;
    if (frac == 0) {
        snprintf(buf, len, "%llu%s", (unsigned long long)whole, unit);
        return;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%0*llu", 3 * k, (unsigned long long)frac);
    size_t n = strlen(digits);
    while (n > 0 && digits[n - 1] == '0')
        digits[--n] = '\0';
    snprintf(buf, len, "%llu.%s%s", (unsigned long long)whole, digits, unit);
}

/* Written in its natural unit (the largest one it reaches), decimal or, if
 * that is exact and shorter, binary: 37600 -> "37.6KB", 205520896 -> "196MiB". */
char *units_write_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *dec[] = { "B", "KB", "MB", "GB" };
    static const char *bin[] = { "B", "KiB", "MiB", "GiB" };
    char best[96], cand[96];
    int k = 0;
    while (k < 3 && bytes >= (uint64_t)pow(1000, k + 1))
        k++;
    write_decimal(bytes, k, dec[k], best, sizeof best);
    k = 0;
    while (k < 3 && bytes >= (1ULL << (10 * (k + 1))))
        k++;
    if (k > 0 && bytes % (1ULL << (10 * k)) == 0) {
        snprintf(cand, sizeof cand, "%llu%s", (unsigned long long)(bytes >> (10 * k)), bin[k]);
        if (strlen(cand) <= strlen(best))
            strcpy(best, cand);
    }
    snprintf(buf, len, "%s", best);
    return buf;
}

char *units_write_time(double ms, char *buf, size_t len)
{
    char tmp[64];
    /* six decimals, and below a millisecond six significant digits
     * (a layer of 0.82 ns was written 0.000001ms, 22% more); no
     * exponent, which time files refuse */
    int decimals = 6;
    if (ms > 0 && ms < 0.1)
        decimals = 5 + (int)fmin(-floor(log10(ms)), 13.0);
    snprintf(tmp, sizeof tmp, "%.*f", decimals, ms);
    size_t n = strlen(tmp);
    while (n > 0 && tmp[n - 1] == '0')
        tmp[--n] = '\0';
    if (n > 0 && tmp[n - 1] == '.')
        tmp[--n] = '\0';
    snprintf(buf, len, "%sms", tmp);
    return buf;
}

char *units_write_exact(double v, int min_digits, char *buf, size_t len)
{
    for (int prec = min_digits; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}
