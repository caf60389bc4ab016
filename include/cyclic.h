/* cyclic: the least span of one GPU's operations of a micro-batch (or of
 * several GPUs' together), when every micro-batch repeats them one period
 * T later and no two on one GPU may overlap modulo T (doc/model.md section
 * 5.5, "A GPU's own operations", "Two GPUs' operations together"). Pure C,
 * no I/O. */
#ifndef PIPEPLAN_CYCLIC_H
#define PIPEPLAN_CYCLIC_H

/* Operations the search takes at most (its memory is CYCLIC_DEPTH n^2
 * doubles). */
#define CYCLIC_OPS 48
#define CYCLIC_DEPTH 64

struct cyclic {
    double *D;                 /* [CYCLIC_DEPTH * CYCLIC_OPS^2] */
    long steps;                /* the last search's zones tried (its work) */
};

/* 0, or -1 out of memory. */
int cyclic_init(struct cyclic *cy);
void cyclic_free(struct cyclic *cy);

/* Operations 0..n-1 (n <= CYCLIC_OPS) of durations d[], in this order,
 * operation j + 1 starting at least g[j] after the end of j; any two, a
 * before b, start b - a apart with a value in [k T + d_a, (k + 1) T - d_b]
 * for some k >= 0 (they do not overlap modulo T) and some period T in
 * [t1, t2] (each pair its own: a relaxation over the range). Returns a
 * lower bound on the span, the start of 0 to the end of n-1: the least
 * span when it is below hi and the search ends within max_nodes; hi when
 * no span is below hi; otherwise what the bounds alone give. A tight hi
 * keeps the search short. */
double cyclic_span(struct cyclic *cy, int n, const double *d, const double *g,
                   double t1, double t2, double hi, long max_nodes);

/* The same for operations on several GPUs, op j on GPU grp[j], in the
 * order a micro-batch's trip visits them: only two on one GPU may not
 * overlap modulo T. */
double cyclic_span_groups(struct cyclic *cy, int n, const double *d, const double *g,
                          const int *grp, double t1, double t2, double hi, long max_nodes);

#endif
