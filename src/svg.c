/* svg: line charts as SVG text. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "text.h"

struct buf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)w < b->cap - b->len) {
            b->len += (size_t)w;
            return;
        }
        size_t cap = 2 * b->cap + (size_t)w + 1;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
}

/* Text escaped for XML content and attributes. */
static void add_text(struct buf *b, const char *s)
{
    while (s && *s) {
        size_t n = text_utf8_len(s);
        switch (*s) {
        case '<': add(b, "&lt;"); break;
        case '>': add(b, "&gt;"); break;
        case '&': add(b, "&amp;"); break;
        case '"': add(b, "&quot;"); break;
        default:
            /* control characters are not XML 1.0; invalid UTF-8, U+FFFE
             * and U+FFFF make the whole document unreadable (a name's
             * bytes, or a label cut inside a character): U+FFFD */
            if (n == 0 || (n == 3 && memcmp(s, "\xEF\xBF\xBE", 3) == 0) ||
                (n == 3 && memcmp(s, "\xEF\xBF\xBF", 3) == 0))
                add(b, "\xEF\xBF\xBD");
            else if ((unsigned char)*s >= 0x20 || *s == '\t')
                add(b, "%.*s", (int)n, s);
        }
        s += n ? n : 1;
    }
}

/* A 1-2-5 tick step giving about `want` ticks over [lo, hi]. */
static double tick_step(double lo, double hi, int want)
{
    double raw = (hi - lo) / want;
    if (!(raw > 0))
        return 1;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Significant digits that tell ticks `step` apart over [lo, hi]: %g's 6
 * unless the values are many steps from zero (9.0072e+09 on every tick). */
static int tick_digits(double lo, double hi, double step)
{
    double ratio = fmax(fabs(lo), fabs(hi)) / step;
    return ratio < 1e5 ? 6 : (int)fmin(17, ceil(log10(ratio)) + 1);
}

static const char *const colours[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"
};
#define NCOLOURS (int)(sizeof colours / sizeof colours[0])
static const char *const dashes[4] = {
    "", " stroke-dasharray=\"8 4\"", " stroke-dasharray=\"2 3\"", " stroke-dasharray=\"8 3 2 3\""
};

char *svg_chart_render(const struct svg_chart *c)
{
    struct buf b = { malloc(4096), 0, 4096, false };
    if (!b.s)
        return NULL;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int s = 0; s < c->nseries; s++)
        for (int i = 0; i < c->series[s].n; i++) {
            x0 = fmin(x0, c->series[s].x[i]);
            x1 = fmax(x1, c->series[s].x[i]);
            y0 = fmin(y0, c->series[s].y[i]);
            y1 = fmax(y1, c->series[s].y[i]);
        }
    if (c->xmax > c->xmin) {
        x0 = fmin(x0, c->xmin);
        x1 = fmax(x1, c->xmax);
    }
    if (!(x0 <= x1)) {
        x0 = 0;
        x1 = 1;
    }
    if (!(y0 <= y1)) {
        y0 = 0;
        y1 = 1;
    }
    /* the y axis from zero: periods compare by ratio */
    y0 = fmin(0, y0);
    /* a span of 1e-12 of its values at least: caps of 9 EB a few KB
     * apart made a tick step below a double's resolution there, and the
     * tick loop never got past its first tick */
    if (x1 - x0 < fmax(1e-9, 1e-12 * fmax(fabs(x0), fabs(x1))))
        x1 = x0 + fmax(1, 1e-12 * fabs(x0));
    if (y1 - y0 < fmax(1e-9, 1e-12 * fmax(fabs(y0), fabs(y1))))
        y1 = y0 + fmax(1, 1e-12 * fabs(y0));
    double xs = tick_step(x0, x1, 8), ys = tick_step(y0, y1, 6);
    x0 = floor(x0 / xs) * xs;
    x1 = ceil(x1 / xs) * xs;
    y1 = ceil(y1 / ys) * ys;
    int xdigits = tick_digits(x0, x1, xs), ydigits = tick_digits(y0, y1, ys);
    int legend_rows = c->nseries;
    const double W = 860, left = 80, right = 20, top = 50, ph = 380;
    const double pw = W - left - right;
    double H = top + ph + 60 + 18.0 * legend_rows + 10;
#define PX(v) (left + ((v) - x0) / (x1 - x0) * pw)
#define PY(v) (top + ph - ((v) - y0) / (y1 - y0) * ph)
    add(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
        W, H, W, H);
    add(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    /* a long title (a sweep over several networks and schedules says so)
     * in a smaller font, and held to the width where even that is not
     * enough: a sans-serif glyph is about 0.55 of the font size */
    long glyphs = 0;
    for (const unsigned char *p = (const unsigned char *)c->title; *p; p++)
        glyphs += (*p & 0xc0) != 0x80;
    double room = W - 20, font = 15;
    if (glyphs * 0.55 * font > room)
        font = fmax(9, floor(room / (glyphs * 0.55)));
    add(&b, "<text class=\"title\" x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
        "font-size=\"%.0f\"", W / 2, font);
    if (glyphs * 0.55 * font > room)
        add(&b, " textLength=\"%.0f\" lengthAdjust=\"spacingAndGlyphs\"", room);
    add(&b, ">");
    add_text(&b, c->title);
    add(&b, "</text>\n");
    long points = 0;
    for (int s = 0; s < c->nseries; s++)
        points += c->series[s].n;
    if (points == 0) {
        /* no axes over a range nothing was measured on: say why instead */
        add(&b, "<text class=\"empty\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" "
            "font-size=\"14\">", W / 2, top + ph / 2);
        add_text(&b, c->empty ? c->empty : "nothing to plot");
        add(&b, "</text>\n");
        goto legend;
    }
    add(&b, "<g class=\"axes\" stroke=\"#444\" fill=\"none\">\n");
    add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left, top + ph,
        left + pw, top + ph);
    add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left, top, left,
        top + ph);
    add(&b, "</g>\n<g class=\"ticks\" fill=\"#222\">\n");
    /* ticks counted, not summed: each is its own multiple of the step */
    for (int t = 0; t <= 100 && x0 + t * xs <= x1 + xs / 1e6; t++) {
        double v = x0 + t * xs, px = PX(v);
        add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
            px, top + ph, px, top + ph + 5);
        add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
            px, top, px, top + ph);
        add(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*g</text>\n", px,
            top + ph + 18, xdigits, fabs(v) < xs / 1e6 ? 0 : v);
    }
    for (int t = 0; t <= 100 && y0 + t * ys <= y1 + ys / 1e6; t++) {
        double v = y0 + t * ys, py = PY(v);
        add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
            left - 5, py, left, py);
        add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
            left, py, left + pw, py);
        add(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*g</text>\n", left - 8,
            py + 4, ydigits, fabs(v) < ys / 1e6 ? 0 : v);
    }
    add(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", left + pw / 2,
        top + ph + 40);
    add_text(&b, c->xlabel);
    add(&b, "</text>\n<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 18 %.1f)\">", top + ph / 2, top + ph / 2);
    add_text(&b, c->ylabel);
    add(&b, "</text>\n</g>\n<g class=\"series\" fill=\"none\" stroke-width=\"2\">\n");
    for (int s = 0; s < c->nseries; s++) {
        const struct svg_series *se = &c->series[s];
        const char *col = colours[abs(se->colour) % NCOLOURS];
        const char *dash = dashes[abs(se->dash) % 4];
        add(&b, "<polyline stroke=\"%s\"%s points=\"", col, dash);
        for (int i = 0; i < se->n; i++)
            add(&b, "%s%.1f,%.1f", i ? " " : "", PX(se->x[i]), PY(se->y[i]));
        add(&b, "\"/>\n");
        for (int i = 0; i < se->n; i++)
            add(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" stroke=\"none\"/>\n",
                PX(se->x[i]), PY(se->y[i]), col);
        if (se->mark >= 0 && se->mark < se->n) {
            double px = PX(se->x[se->mark]), py = PY(se->y[se->mark]);
            add(&b, "<path class=\"mark\" stroke=\"%s\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f "
                "%.1f\"/>\n", col, px - 6, py - 6, px + 6, py + 6, px - 6, py + 6, px + 6,
                py - 6);
        }
    }
    add(&b, "</g>\n");
legend:
    add(&b, "<g class=\"legend\">\n");
    double ly = top + ph + 62;
    for (int s = 0; s < c->nseries; s++, ly += 18) {
        add(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"2\"%s/>\n", left, ly - 4, left + 30, ly - 4,
            colours[abs(c->series[s].colour) % NCOLOURS], dashes[abs(c->series[s].dash) % 4]);
        add(&b, "<text class=\"entry\" x=\"%.1f\" y=\"%.1f\">", left + 38, ly);
        add_text(&b, c->series[s].label);
        add(&b, "</text>\n");
    }
    add(&b, "</g>\n</svg>\n");
#undef PX
#undef PY
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
