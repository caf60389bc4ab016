/* svg: a line chart as an SVG document in a string (no plotting
 * dependency): axes with ticks, one polyline per series, a legend, and a
 * cross on each series' marked point. Pure C, no I/O. */
#ifndef PIPEPLAN_SVG_H
#define PIPEPLAN_SVG_H

struct svg_series {
    const char *label;           /* legend text */
    int n;
    const double *x, *y;         /* [n], finite, x increasing */
    int mark;                    /* index of the point to cross, or -1 */
    int colour;                  /* index into a palette of 10 */
    int dash;                    /* 0 solid, then 3 dash patterns (modulo 4) */
};

struct svg_chart {
    const char *title, *xlabel, *ylabel;
    int nseries;
    const struct svg_series *series;
    double xmin, xmax;           /* x range to show at least (when xmax > xmin) */
    const char *empty;           /* said where the plot would be when no series has
                                  * a point (NULL: "nothing to plot") */
};

/* The document (caller frees), or NULL when out of memory. Text is
 * escaped for XML; a chart with no points has no axes, only its title,
 * `empty` and the legend. */
char *svg_chart_render(const struct svg_chart *c);

#endif
