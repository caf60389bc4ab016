/* import: PipeDream graph.txt -> network chain (doc/model.md section 8). */
#include "import.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "units.h"

#define OP_MAX 48            /* keeps "[layer nodeN-Op]" far below a spec line */
#define NAME_MAX_LEN 64
#define TAIL_MAX 120         /* the path in `source` stays within a spec line */
#define MICRO_BATCH_MAX 1000000000L   /* what spec files accept */
#define EXP_CLAMP 100000L    /* beyond this every value is 0 or out of range */

static const char *const field_names[4] = {
    "forward_compute_time", "backward_compute_time", "activation_size", "parameter_size"
};

struct node {
    unsigned long id;        /* N of "nodeN" */
    int line;
    const char *desc;        /* points into the text, not NUL-terminated */
    size_t desclen;
    double forward_ms, backward_ms;
    uint64_t output;         /* all outputs summed: which one feeds whom is unknown */
    uint64_t params;
};

struct edge {
    unsigned long from_id, to_id;
    int from, to;            /* node indices once resolved */
    int line;
};

struct graph {
    const char *label;
    char *err;
    size_t errlen;
    char *note;              /* a surprise that is not an error, or NULL */
    size_t notelen;
    struct node *nodes;
    int nnodes, capnodes;
    struct edge *edges;
    int nedges, capedges;
};

/* Index arrays built from the parsed graph; freed together. */
struct work {
    int *out_start, *out_adj;    /* edges by source node, file order */
    int *in_start, *in_adj;      /* edges by target node, file order */
    int *indeg, *heap, *order, *pos, *last_use, *mark, *via;
    uint64_t *drop, *cut;
};

/* Quoted text in messages is cut short: a line may be huge. */
static int clip(const char *s, const char *end)
{
    return end - s > 60 ? 60 : (int)(end - s);
}

static bool fail(struct graph *g, int line, const char *fmt, ...)
{
    if (!g->err || g->errlen == 0)
        return false;
    int n = snprintf(g->err, g->errlen, "%s:%d: ", g->label, line);
    if (n >= 0 && (size_t)n < g->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err + n, g->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* ---- numbers ----
 * Hand-parsed rather than strtod: sizes must convert exactly to 64 bits,
 * and strtod follows LC_NUMERIC, which a terminal program may have set. */

struct decimal {
    bool negative;
    const char *intp, *fracp;
    size_t nint, nfrac;
    long long exp;
};

static bool ci_equal(const char *s, size_t n, const char *word)
{
    size_t i;
    for (i = 0; i < n && word[i]; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return false;
    }
    return i == n && word[i] == '\0';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The whole of [s, end) must be [+-]digits[.digits][e[+-]digits]. Returns
 * NULL or the reason it is not a number. */
static const char *decimal_parse(const char *s, const char *end, struct decimal *d)
{
    memset(d, 0, sizeof *d);
    if (s < end && (*s == '-' || *s == '+')) {
        d->negative = *s == '-';
        s++;
    }
    size_t rest = (size_t)(end - s);
    if (ci_equal(s, rest, "inf") || ci_equal(s, rest, "infinity") || ci_equal(s, rest, "nan"))
        return "not a finite number";
    d->intp = s;
    while (s < end && is_digit(*s))
        s++;
    d->nint = (size_t)(s - d->intp);
    d->fracp = s;
    if (s < end && *s == '.') {
        d->fracp = ++s;
        while (s < end && is_digit(*s))
            s++;
        d->nfrac = (size_t)(s - d->fracp);
    }
    if (d->nint + d->nfrac == 0)
        return "not a number";
    if (s < end && (*s == 'e' || *s == 'E')) {
        bool neg = false;
        s++;
        if (s < end && (*s == '-' || *s == '+'))
            neg = *s++ == '-';
        if (s == end || !is_digit(*s))
            return "not a number";
        for (; s < end && is_digit(*s); s++)
            if (d->exp < EXP_CLAMP)
                d->exp = d->exp * 10 + (*s - '0');
        if (neg)
            d->exp = -d->exp;
    }
    return s == end ? NULL : "not a number";
}

static char decimal_digit(const struct decimal *d, size_t i)
{
    return i < d->nint ? d->intp[i] : d->fracp[i - d->nint];
}

/* Exact: every digit below the units place must be zero. */
static const char *decimal_to_bytes(const struct decimal *d, uint64_t *out)
{
    long long point = (long long)d->nint + d->exp;   /* digits before the point */
    size_t total = d->nint + d->nfrac;
    uint64_t v = 0;
    bool nonzero = false;
    for (size_t i = 0; i < total; i++) {
        unsigned c = (unsigned)(decimal_digit(d, i) - '0');
        nonzero = nonzero || c != 0;
        if ((long long)i < point) {
            if (v > (UINT64_MAX - c) / 10)
                return "too large (at most 2^64 - 1 bytes)";
            v = v * 10 + c;
        } else if (c != 0) {
            return d->negative ? "negative" : "not a whole number of bytes";
        }
    }
    if (d->negative && nonzero)
        return "negative";
    for (long long k = (long long)total; v != 0 && k < point; k++) {
        if (v > UINT64_MAX / 10)
            return "too large (at most 2^64 - 1 bytes)";
        v *= 10;
    }
    *out = v;
    return NULL;
}

static const char *decimal_to_ms(const struct decimal *d, double *out)
{
    static const double p10[] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    };
    long long point = (long long)d->nint + d->exp;
    size_t total = d->nint + d->nfrac;
    uint64_t m = 0;
    long long used = 0;
    /* 17 significant digits are more than a double holds */
    for (size_t i = 0; i < total && m < 10000000000000000ULL; i++) {
        m = m * 10 + (uint64_t)(decimal_digit(d, i) - '0');
        used = (long long)i + 1;
    }
    long long e10 = point - used;
    double v;
    if (m == 0)
        v = 0.0;
    else if (m <= (1ULL << 53) && e10 >= -22 && e10 <= 22)
        /* both operands exact, so the one rounding is the correct one */
        v = e10 >= 0 ? (double)m * p10[e10] : (double)m / p10[-e10];
    else {
        /* correctly rounded, as a network file's reader rounds it: 0.DIGITSeP
         * to strtod (the importer never sets LC_NUMERIC, so '.' is the point);
         * m x 10^e10 rounded twice, and 999999999999.9999999 passed 10^12 */
        char *buf = malloc(total + 32);
        if (!buf)
            return "out of memory";
        buf[0] = '0';
        buf[1] = '.';
        for (size_t i = 0; i < total; i++)
            buf[2 + i] = decimal_digit(d, i);
        snprintf(buf + 2 + total, 30, "e%lld", point);
        v = strtod(buf, NULL);
        free(buf);
    }
    if (!isfinite(v))
        return "not a finite number";
    if (d->negative && v != 0.0)
        return "negative";
    /* what a network file holds: the imported file must read back */
    if (v > UNITS_MAX_MS)
        return "too large (at most 1000000000000 ms)";
    *out = v;
    return NULL;
}

/* ---- lines ---- */

static const char *find_sep(const char *s, const char *end, const char *sep)
{
    size_t n = strlen(sep);
    for (; s + n <= end; s++)
        if (memcmp(s, sep, n) == 0)
            return s;
    return NULL;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && is_blank(*s))
        s++;
    return s;
}

static const char *trim_end(const char *s, const char *end)
{
    while (end > s && is_blank(end[-1]))
        end--;
    return end;
}

/* "nodeN" with N decimal; advances *p past it. */
static bool parse_node_id(const char **p, const char *end, unsigned long *id)
{
    const char *s = *p;
    if (end - s < 5 || memcmp(s, "node", 4) != 0 || !is_digit(s[4]))
        return false;
    unsigned long v = 0;
    for (s += 4; s < end && is_digit(*s); s++) {
        unsigned long c = (unsigned long)(*s - '0');
        if (v > (0xFFFFFFFFUL - c) / 10)     /* same limit on every platform */
            return false;
        v = v * 10 + c;
    }
    *p = s;
    *id = v;
    return true;
}

static bool parse_value(struct graph *g, struct node *nd, int field,
                        const char *v, const char *vend, int line)
{
    static const char *const expected[4] = {
        "milliseconds, e.g. 1.250", "milliseconds, e.g. 1.250",
        "bytes as a whole number, e.g. 205520896.000, or [BYTES; BYTES]",
        "bytes as a whole number, e.g. 4096.000"
    };
    struct decimal d;
    const char *why = NULL;
    if (field < 2) {
        double ms = 0;
        why = decimal_parse(v, vend, &d);
        if (!why)
            why = decimal_to_ms(&d, &ms);
        if (field == 0)
            nd->forward_ms = ms;
        else
            nd->backward_ms = ms;
    } else if (field == 3 || v == vend || *v != '[') {
        uint64_t b = 0;
        why = decimal_parse(v, vend, &d);
        if (!why)
            why = decimal_to_bytes(&d, &b);
        if (field == 3)
            nd->params = b;
        else
            nd->output = b;
    } else {
        /* a multi-output node: "[6291456.0; 131072.0]" */
        const char *s = v + 1, *close = vend - 1;
        uint64_t sum = 0;
        if (*close != ']')
            why = "list without ']'";
        else if (skip_blanks(s, close) == close)
            why = "empty list";
        while (!why && s <= close) {
            const char *item_end = s;
            while (item_end < close && *item_end != ';' && *item_end != ',')
                item_end++;
            const char *a = skip_blanks(s, item_end), *b = trim_end(a, item_end);
            uint64_t one = 0;
            why = decimal_parse(a, b, &d);
            if (!why)
                why = decimal_to_bytes(&d, &one);
            if (!why && one > UINT64_MAX - sum)
                why = "outputs sum to more than 2^64 - 1 bytes";
            sum += one;
            s = item_end + 1;
        }
        nd->output = sum;
    }
    if (why)
        return fail(g, line, "bad %s '%.*s' for node%lu: %s (expected %s)",
                    field_names[field], clip(v, vend), v, nd->id, why, expected[field]);
    return true;
}

/* "forward_compute_time=X, backward_compute_time=Y, activation_size=Z,
 * parameter_size=W", any order, each exactly once. */
static bool parse_fields(struct graph *g, struct node *nd, const char *p,
                         const char *end, int line)
{
    bool seen[4] = { false, false, false, false };
    p = skip_blanks(p, end);
    while (p < end) {
        const char *eq = p;
        while (eq < end && *eq != '=' && *eq != ',')
            eq++;
        if (eq == end || *eq != '=')
            return fail(g, line, "malformed measurement '%.*s' for node%lu "
                        "(expected NAME=VALUE, separated by commas)",
                        clip(p, eq), p, nd->id);
        const char *kend = trim_end(p, eq);
        int field = -1;
        for (int i = 0; i < 4; i++)
            if ((size_t)(kend - p) == strlen(field_names[i]) &&
                memcmp(p, field_names[i], (size_t)(kend - p)) == 0)
                field = i;
        if (field < 0)
            return fail(g, line, "unknown measurement '%.*s' for node%lu (expected "
                        "forward_compute_time, backward_compute_time, activation_size "
                        "or parameter_size)", clip(p, kend), p, nd->id);
        if (seen[field])
            return fail(g, line, "%s given twice for node%lu (expected each once)",
                        field_names[field], nd->id);
        seen[field] = true;
        const char *v = skip_blanks(eq + 1, end), *vend = v;
        if (vend < end && *vend == '[') {
            while (vend < end && *vend != ']')
                vend++;
            if (vend < end)
                vend++;
        }
        while (vend < end && *vend != ',')
            vend++;
        if (!parse_value(g, nd, field, v, trim_end(v, vend), line))
            return false;
        p = vend < end ? skip_blanks(vend + 1, end) : end;
        if (vend < end && p == end)
            return fail(g, line, "trailing comma after the measurements of node%lu "
                        "(expected another NAME=VALUE)", nd->id);
    }
    for (int i = 0; i < 4; i++)
        if (!seen[i])
            return fail(g, line, "node%lu has no %s (expected forward_compute_time, "
                        "backward_compute_time, activation_size and parameter_size)",
                        nd->id, field_names[i]);
    return true;
}

static bool parse_node_line(struct graph *g, const char *s, const char *end, int line)
{
    struct node nd;
    memset(&nd, 0, sizeof nd);
    nd.line = line;
    const char *p = s;
    if (!parse_node_id(&p, end, &nd.id) || end - p < 4 || memcmp(p, " -- ", 4) != 0)
        return fail(g, line, "malformed node line '%.*s%s' (expected 'nodeN -- "
                    "DESCRIPTION -- forward_compute_time=MS, backward_compute_time=MS, "
                    "activation_size=BYTES, parameter_size=BYTES', or a tab-indented edge)",
                    clip(s, end), s, end - s > 60 ? "..." : "");
    p += 4;
    const char *sep = find_sep(p, end, " -- ");
    if (!sep)
        return fail(g, line, "node%lu has no measurements (expected "
                    "' -- forward_compute_time=...' after the description)", nd.id);
    nd.desc = p;
    nd.desclen = (size_t)(sep - p);
    if (skip_blanks(p, sep) == sep)
        return fail(g, line, "node%lu has an empty description (expected the layer, "
                    "e.g. 'Conv2d(...)')", nd.id);
    p = sep + 4;
    const char *mend = find_sep(p, end, " -- ");
    if (mend) {
        /* PipeDream's optimizer appends the stage it chose; not ours to use */
        const char *t = mend + 4;
        bool ok = end - t > 9 && memcmp(t, "stage_id=", 9) == 0;
        for (t += 9; ok && t < end; t++)
            ok = is_digit(*t);
        if (!ok)
            return fail(g, line, "unexpected text after the measurements of node%lu "
                        "(expected nothing, or ' -- stage_id=N')", nd.id);
    } else {
        mend = end;
    }
    if (!parse_fields(g, &nd, p, mend, line))
        return false;
    if (g->nnodes >= SPEC_MAX_LAYERS)
        return fail(g, line, "too many nodes (at most %d)", SPEC_MAX_LAYERS);
    if (g->nnodes == g->capnodes) {
        int cap = g->capnodes ? g->capnodes * 2 : 64;
        struct node *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
        if (!nn)
            return fail(g, line, "out of memory");
        g->nodes = nn;
        g->capnodes = cap;
    }
    g->nodes[g->nnodes++] = nd;
    return true;
}

static bool parse_edge_line(struct graph *g, const char *s, const char *end, int line)
{
    struct edge e;
    memset(&e, 0, sizeof e);
    e.line = line;
    e.from = e.to = -1;
    const char *p = skip_blanks(s, end);
    bool ok = parse_node_id(&p, end, &e.from_id);
    if (ok) {
        const char *q = skip_blanks(p, end);
        ok = q > p && end - q >= 2 && q[0] == '-' && q[1] == '-';
        if (ok) {
            p = skip_blanks(q + 2, end);
            ok = p > q + 2 && parse_node_id(&p, end, &e.to_id) && p == end;
        }
    }
    if (!ok)
        return fail(g, line, "malformed edge line (expected a tab, then 'nodeA -- nodeB')");
    if (e.from_id == e.to_id)
        return fail(g, line, "edge node%lu -- node%lu joins a node to itself (expected "
                    "an edge between two different nodes)", e.from_id, e.to_id);
    if (g->nedges >= INT32_MAX / 2)
        return fail(g, line, "too many edges");
    if (g->nedges == g->capedges) {
        int cap = g->capedges ? g->capedges * 2 : 64;
        struct edge *ne = realloc(g->edges, (size_t)cap * sizeof *ne);
        if (!ne)
            return fail(g, line, "out of memory");
        g->edges = ne;
        g->capedges = cap;
    }
    g->edges[g->nedges++] = e;
    return true;
}

static bool parse_text(struct graph *g, const char *text)
{
    const char *p = text_skip_bom(text);
    int line = 0;
    /* old Mac line ends (a CR alone, no LF anywhere) make the file one
     * line, read as a node with text after its measurements: say what
     * it is, as the spec files' reader does */
    const char *cr = strchr(p, '\r');
    if (cr && cr[1] != '\0' && !strchr(p, '\n'))
        return fail(g, 1, "lines that end in a carriage return alone (expected LF or CRLF "
                    "line ends)");
    while (*p) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        const char *next = nl ? nl + 1 : end;
        if (line == INT32_MAX)
            return fail(g, line, "too many lines");
        line++;
        if (end > p && end[-1] == '\r')
            end--;
        end = trim_end(p, end);
        if (end > p) {
            bool ok = is_blank(*p) ? parse_edge_line(g, p, end, line)
                                   : parse_node_line(g, p, end, line);
            if (!ok)
                return false;
        }
        p = next;
    }
    return true;
}

/* ---- linearising ---- */

static int node_cmp(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int node_find(const struct graph *g, unsigned long id)
{
    int lo = 0, hi = g->nnodes - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (g->nodes[mid].id == id)
            return mid;
        if (g->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static bool check_nodes(struct graph *g)
{
    if (g->nnodes > 1)
        qsort(g->nodes, (size_t)g->nnodes, sizeof *g->nodes, node_cmp);
    const struct node *dup = NULL, *orig = NULL;
    for (int i = 1; i < g->nnodes; i++)
        if (g->nodes[i].id == g->nodes[i - 1].id &&
            (!dup || g->nodes[i].line < dup->line)) {
            dup = &g->nodes[i];
            orig = &g->nodes[i - 1];
        }
    if (dup)
        return fail(g, dup->line, "node%lu defined twice (first on line %d; expected "
                    "one line per node)", dup->id, orig->line);
    return true;
}

static bool check_edges(struct graph *g)
{
    for (int i = 0; i < g->nedges; i++) {
        struct edge *e = &g->edges[i];
        e->from = node_find(g, e->from_id);
        e->to = node_find(g, e->to_id);
        if (e->from < 0 || e->to < 0)
            return fail(g, e->line, "edge node%lu -- node%lu names node%lu, which has "
                        "no node line (expected a 'node%lu -- ...' line)",
                        e->from_id, e->to_id, e->from < 0 ? e->from_id : e->to_id,
                        e->from < 0 ? e->from_id : e->to_id);
    }
    /* a repeated edge is no error: PipeDream's profiler writes an edge per
     * argument, so x + x, cat([x, x]) or attention(x, x, x) repeat one,
     * and its Graph.from_str reads them; the order and cuts count a
     * dependency once either way */
    return true;
}

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* One graph: every node joined to the others by edges (either way). A
 * file cut short keeps its node lines and loses edges: its activations
 * would be read as ending early, and the plans built on wrong figures. */
static bool check_connected(struct graph *g)
{
    if (g->nnodes < 2)
        return true;
    if (g->nedges == 0) {
        const struct node *last = &g->nodes[0];
        for (int i = 1; i < g->nnodes; i++)
            if (g->nodes[i].line > last->line)
                last = &g->nodes[i];
        return fail(g, last->line, "%d nodes and no edges (expected tab-indented 'nodeA -- "
                    "nodeB' edges after the nodes: is the file cut short?)", g->nnodes);
    }
    int *parent = malloc((size_t)g->nnodes * sizeof *parent);
    if (!parent)
        return fail(g, 1, "out of memory");
    for (int i = 0; i < g->nnodes; i++)
        parent[i] = i;
    for (int i = 0; i < g->nedges; i++) {
        int a = uf_find(parent, g->edges[i].from), b = uf_find(parent, g->edges[i].to);
        if (a != b)
            parent[a] = b;
    }
    /* the node the file names first is in the graph; the first line of
     * another part is the one named */
    int first = 0;
    for (int i = 1; i < g->nnodes; i++)
        if (g->nodes[i].line < g->nodes[first].line)
            first = i;
    int root = uf_find(parent, first), odd = -1;
    for (int i = 0; i < g->nnodes; i++)
        if (uf_find(parent, i) != root && (odd < 0 || g->nodes[i].line < g->nodes[odd].line))
            odd = i;
    bool lone = false;
    if (odd >= 0) {
        lone = true;
        for (int i = 0; i < g->nedges && lone; i++)
            lone = g->edges[i].from != odd && g->edges[i].to != odd;
    }
    free(parent);
    if (odd < 0)
        return true;
    if (lone)
        return fail(g, g->nodes[odd].line, "node%lu has no edge (expected every node to feed "
                    "or be fed by another: is the file cut short?)", g->nodes[odd].id);
    return fail(g, g->nodes[odd].line, "node%lu is not joined to node%lu by any path of "
                "edges (expected one graph: is the file cut short?)", g->nodes[odd].id,
                g->nodes[first].id);
}

static void heap_push(int *h, int *n, int v)
{
    int i = (*n)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (h[parent] <= v)
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = v;
}

static int heap_pop(int *h, int *n)
{
    int top = h[0], v = h[--*n], i = 0;
    if (*n == 0)
        return top;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
    return top;
}

static void work_free(struct work *w)
{
    free(w->out_start);
    free(w->out_adj);
    free(w->in_start);
    free(w->in_adj);
    free(w->indeg);
    free(w->heap);
    free(w->order);
    free(w->pos);
    free(w->last_use);
    free(w->mark);
    free(w->via);
    free(w->drop);
    free(w->cut);
}

static bool work_alloc(struct graph *g, struct work *w)
{
    size_t n = (size_t)g->nnodes, m = g->nedges ? (size_t)g->nedges : 1;
    memset(w, 0, sizeof *w);
    w->out_start = calloc(n + 1, sizeof(int));
    w->in_start = calloc(n + 1, sizeof(int));
    w->out_adj = malloc(m * sizeof(int));
    w->in_adj = malloc(m * sizeof(int));
    w->indeg = calloc(n, sizeof(int));
    w->heap = calloc(n, sizeof(int));
    w->order = calloc(n, sizeof(int));
    w->pos = calloc(n, sizeof(int));
    w->last_use = calloc(n, sizeof(int));
    w->mark = calloc(n, sizeof(int));
    w->via = calloc(n, sizeof(int));
    w->drop = calloc(n, sizeof(uint64_t));
    w->cut = calloc(n, sizeof(uint64_t));
    if (w->out_start && w->in_start && w->out_adj && w->in_adj && w->indeg && w->heap &&
        w->order && w->pos && w->last_use && w->mark && w->via && w->drop && w->cut)
        return true;
    work_free(w);
    memset(w, 0, sizeof *w);
    return fail(g, 1, "out of memory");
}

/* Edge lists per node, kept in file order so choices stay deterministic. */
static void build_adjacency(const struct graph *g, struct work *w)
{
    int n = g->nnodes;
    for (int i = 0; i < g->nedges; i++) {
        w->out_start[g->edges[i].from + 1]++;
        w->in_start[g->edges[i].to + 1]++;
    }
    for (int i = 0; i < n; i++) {
        w->out_start[i + 1] += w->out_start[i];
        w->in_start[i + 1] += w->in_start[i];
    }
    /* pos and mark serve as fill cursors here, reset below */
    memcpy(w->pos, w->out_start, (size_t)n * sizeof(int));
    memcpy(w->mark, w->in_start, (size_t)n * sizeof(int));
    for (int i = 0; i < g->nedges; i++) {
        w->out_adj[w->pos[g->edges[i].from]++] = i;
        w->in_adj[w->mark[g->edges[i].to]++] = i;
    }
    memset(w->pos, 0, (size_t)n * sizeof(int));
    memset(w->mark, 0, (size_t)n * sizeof(int));
}

/* Kahn's algorithm, smallest node number first. Returns how many nodes it
 * could order: fewer than all means a cycle. */
static int topo_sort(const struct graph *g, struct work *w)
{
    int n = g->nnodes, nheap = 0, k = 0;
    for (int i = 0; i < n; i++) {
        w->indeg[i] = w->in_start[i + 1] - w->in_start[i];
        if (w->indeg[i] == 0)
            heap_push(w->heap, &nheap, i);   /* index order is node-number order */
    }
    while (nheap > 0) {
        int u = heap_pop(w->heap, &nheap);
        w->order[k] = u;
        w->pos[u] = k++;
        for (int j = w->out_start[u]; j < w->out_start[u + 1]; j++) {
            int v = g->edges[w->out_adj[j]].to;
            if (--w->indeg[v] == 0)
                heap_push(w->heap, &nheap, v);
        }
    }
    return k;
}

/* Every node left unordered has an unordered predecessor, so walking
 * backwards from one must come round to a node seen before: that node is on
 * a cycle. The error names the cycle's edge that comes last in the file. */
static bool report_cycle(struct graph *g, struct work *w)
{
    int u = 0, step = 1;
    while (w->indeg[u] == 0)
        u++;
    while (!w->mark[u]) {
        w->mark[u] = step++;
        for (int j = w->in_start[u]; j < w->in_start[u + 1]; j++)
            if (w->indeg[g->edges[w->in_adj[j]].from] > 0) {
                w->via[u] = w->in_adj[j];
                break;
            }
        u = g->edges[w->via[u]].from;
    }
    /* the cycle backwards: arr[i+1] -> arr[i] is edge via[arr[i]] */
    int *arr = w->heap, len = 0, last = 0;
    int c = u;
    do {
        arr[len] = c;
        if (g->edges[w->via[c]].line > g->edges[w->via[arr[last]]].line)
            last = len;
        len++;
        c = g->edges[w->via[c]].from;
    } while (c != u);
    const struct edge *e = &g->edges[w->via[arr[last]]];
    char path[200];
    size_t off = 0;
    for (int i = 0; i <= len && off < sizeof path; i++) {
        int node = arr[((last - i) % len + len) % len];
        int n;
        if (i == 8 && len > 9) {
            n = snprintf(path + off, sizeof path - off, " -> ...");
            i = len - 2;    /* then the edge's source and back to its target */
        } else {
            n = snprintf(path + off, sizeof path - off, "%snode%lu", i ? " -> " : "",
                         g->nodes[node].id);
        }
        if (n < 0)
            break;
        off += (size_t)n;
    }
    return fail(g, e->line, "edge node%lu -- node%lu closes a cycle %s (expected an "
                "acyclic graph)", e->from_id, e->to_id, path);
}

/* Cut after position k = outputs of nodes at or before k with a consumer
 * after k; a node leaves the cut at its last consumer. */
static bool compute_cuts(struct graph *g, struct work *w)
{
    int n = g->nnodes;
    for (int u = 0; u < n; u++) {
        int last = -1;
        for (int j = w->out_start[u]; j < w->out_start[u + 1]; j++) {
            int p = w->pos[g->edges[w->out_adj[j]].to];
            if (p > last)
                last = p;
        }
        w->last_use[u] = last;
    }
    for (int u = 0; u < n; u++) {
        int k = w->last_use[u];
        if (k > w->pos[u]) {
            /* all of drop[k] was in the cut after k - 1 */
            if (g->nodes[u].output > UINT64_MAX - w->drop[k]) {
                const struct node *before = &g->nodes[w->order[k - 1]];
                return fail(g, before->line, "the cut after node%lu carries more than "
                            "2^64 - 1 bytes", before->id);
            }
            w->drop[k] += g->nodes[u].output;
        }
    }
    uint64_t running = 0;
    for (int k = 0; k < n; k++) {
        const struct node *nd = &g->nodes[w->order[k]];
        running -= w->drop[k];
        if (w->last_use[w->order[k]] > k) {
            if (nd->output > UINT64_MAX - running)
                return fail(g, nd->line, "the cut after node%lu carries more than "
                            "2^64 - 1 bytes", nd->id);
            running += nd->output;
        }
        w->cut[k] = running;
    }
    /* the last layer's output goes to the loss and its gradient comes back */
    w->cut[n - 1] = g->nodes[w->order[n - 1]].output;
    return true;
}

/* ---- names ---- */

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) ||
           c == '_' || c == '.' || c == '-';
}

static char *copy_sanitised(const char *s, size_t n, size_t max, const char *empty)
{
    if (n > max)
        n = max;
    if (n == 0) {
        s = empty;
        n = strlen(empty);
    }
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++)
        out[i] = is_name_char(s[i]) ? s[i] : '_';
    out[n] = '\0';
    return out;
}

static char *layer_name(const struct node *nd)
{
    size_t n = 0;
    while (n < nd->desclen && nd->desc[n] != '(' && nd->desc[n] != ' ')
        n++;
    if (n > OP_MAX)
        n = OP_MAX;
    char buf[OP_MAX + 32];
    int len = snprintf(buf, sizeof buf, "node%lu%s", nd->id, n ? "-" : "");
    for (size_t i = 0; i < n; i++)
        buf[(size_t)len + i] = is_name_char(nd->desc[i]) ? nd->desc[i] : '_';
    buf[(size_t)len + n] = '\0';
    return copy_sanitised(buf, strlen(buf), sizeof buf, "node");
}

/* The last path component and the one before it (empty when absent). */
static void path_split(const char *s, const char **base, size_t *blen,
                       const char **dir, size_t *dlen)
{
    const char *end = s + strlen(s);
    while (end > s && end[-1] == '/')
        end--;
    const char *b = end;
    while (b > s && b[-1] != '/')
        b--;
    const char *dend = b;
    while (dend > s && dend[-1] == '/')
        dend--;
    const char *d = dend;
    while (d > s && d[-1] != '/')
        d--;
    *base = b;
    *blen = (size_t)(end - b);
    *dir = d;
    *dlen = (size_t)(dend - d);
}

static char *network_name(const char *label)
{
    const char *base, *dir;
    size_t blen, dlen;
    path_split(label, &base, &blen, &dir, &dlen);
    bool dot_dir = (dlen == 1 && dir[0] == '.') || (dlen == 2 && memcmp(dir, "..", 2) == 0);
    /* PipeDream keeps each model's profile in <model>/graph.txt */
    if (blen == 9 && memcmp(base, "graph.txt", 9) == 0 && dlen > 0 && !dot_dir)
        return copy_sanitised(dir, dlen, NAME_MAX_LEN, "network");
    size_t n = blen;
    while (n > 0 && base[n - 1] != '.')
        n--;
    n = n > 1 ? n - 1 : blen;
    return copy_sanitised(base, n, NAME_MAX_LEN, "network");
}

static char *network_source(const char *label)
{
    static const char prefix[] = "PipeDream profiler (msr-fiddle/pipedream, MIT licence): ";
    const char *base, *dir;
    size_t blen, dlen;
    path_split(label, &base, &blen, &dir, &dlen);
    const char *tail = dlen ? dir : base;
    size_t n = (size_t)(base + blen - tail);
    bool cut = n > TAIL_MAX;
    if (cut) {
        tail += n - (TAIL_MAX - 3);
        n = TAIL_MAX - 3;
    }
    char *out = malloc(sizeof prefix + 3 + n);
    if (!out)
        return NULL;
    size_t o = sizeof prefix - 1;
    memcpy(out, prefix, o);
    if (cut) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tail[i];
        /* ';' and '#' would start a comment in the spec file */
        out[o++] = c < 0x20 || c == 0x7f || c == ';' || c == '#' ? '_' : (char)c;
    }
    out[o] = '\0';
    return out;
}

static bool is_input(const struct node *nd)
{
    return nd->desclen >= 5 && memcmp(nd->desc, "Input", 5) == 0;
}

static struct spec_network *build_network(struct graph *g, const struct work *w,
                                          long micro_batch)
{
    struct spec_network *net = calloc(1, sizeof *net);
    if (!net) {
        fail(g, 1, "out of memory");
        return NULL;
    }
    net->micro_batch = micro_batch;
    net->name = network_name(g->label);
    net->source = network_source(g->label);
    net->layers = calloc((size_t)g->nnodes, sizeof *net->layers);
    bool ok = net->name && net->source && net->layers;
    if (net->layers)
        net->nlayers = g->nnodes;
    for (int k = 0; ok && k < g->nnodes; k++) {
        const struct node *nd = &g->nodes[w->order[k]];
        struct spec_layer *l = &net->layers[k];
        l->name = layer_name(nd);
        ok = l->name != NULL;
        /* the input node's time is data loading, not work a stage does */
        l->forward_ms = is_input(nd) ? 0.0 : nd->forward_ms;
        l->backward_ms = is_input(nd) ? 0.0 : nd->backward_ms;
        l->weights = nd->params;
        l->activation = w->cut[k];
        l->stored = nd->output;
        l->line = nd->line;
    }
    if (!ok) {
        spec_network_free(net);
        fail(g, 1, "out of memory");
        return NULL;
    }
    return net;
}

/* PipeDream's graphs start at their Input nodes (gnmt's `hidden`, a
 * state of no size and no time, too): a node with work and no input edge
 * is most likely one whose edge was lost, the file cut short, and its
 * cut then misses that output. Said, not refused. */
static void note_lost_inputs(struct graph *g, const struct work *w,
                             const struct spec_network *net)
{
    int first = -1, count = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const struct node *nd = &g->nodes[i];
        if (w->in_start[i + 1] > w->in_start[i] || is_input(nd) ||
            !(nd->forward_ms > 0 || nd->backward_ms > 0 || nd->params > 0 || nd->output > 0))
            continue;
        if (first < 0 || nd->line < g->nodes[first].line)
            first = i;
        count++;
    }
    if (first < 0 || !g->note || !g->notelen)
        return;
    const struct node *nd = &g->nodes[first];
    char others[64] = "";
    if (count > 1)
        snprintf(others, sizeof others, ", nor have %d other node%s that work", count - 1,
                 count == 2 ? "" : "s");
    snprintf(g->note, g->notelen, "%s:%d: %s has no input edge%s (expected only Input "
             "nodes to start a graph: a file cut short?)", g->label, nd->line,
             net->layers[w->pos[first]].name, others);
}

static struct spec_network *linearise(struct graph *g, long micro_batch)
{
    struct work w;
    struct spec_network *net = NULL;
    if (!work_alloc(g, &w))
        return NULL;
    build_adjacency(g, &w);
    if (topo_sort(g, &w) < g->nnodes)
        report_cycle(g, &w);
    else if (compute_cuts(g, &w) && (net = build_network(g, &w, micro_batch)))
        note_lost_inputs(g, &w, net);
    work_free(&w);
    return net;
}

struct spec_network *import_pipedream(const char *text, const char *label,
                                      long micro_batch, char *note, size_t notelen,
                                      char *err, size_t errlen)
{
    struct graph g;
    memset(&g, 0, sizeof g);
    g.label = label ? label : "graph.txt";
    g.err = err;
    g.errlen = errlen;
    g.note = note;
    g.notelen = notelen;
    if (note && notelen)
        note[0] = '\0';
    if (err && errlen)
        err[0] = '\0';
    if (micro_batch < 1 || micro_batch > MICRO_BATCH_MAX) {
        if (err && errlen)
            snprintf(err, errlen, "%s: micro-batch %ld out of range (expected 1 to %ld "
                     "samples)", g.label, micro_batch, MICRO_BATCH_MAX);
        return NULL;
    }
    struct spec_network *net = NULL;
    if (parse_text(&g, text ? text : "") && check_nodes(&g) && check_edges(&g) &&
        check_connected(&g)) {
        if (g.nnodes == 0)
            fail(&g, 1, "no nodes (expected a PipeDream graph.txt: 'nodeN -- ...' "
                 "lines, then tab-indented 'nodeA -- nodeB' edges)");
        else
            net = linearise(&g, micro_batch);
    }
    free(g.nodes);
    free(g.edges);
    return net;
}
