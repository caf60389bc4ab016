/* split: --split lists, Megatron-Core layouts and DeepSpeed parts. */
#include "split.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the list form ---- */

/* Blanks, newlines and comments (# to the line's end, in Python and TOML
 * alike), so that the lines of an export paste as they are. */
static const char *skip_space(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '#')
            return p;
        while (*p && *p != '\n')
            p++;
    }
}

/* The list forms' refusal of more than P stages (the plain list and
 * DeepSpeed's parts): they have no problem to ask what P counts, so both
 * are named. */
static void too_many_stages(int P, char *err, size_t errlen)
{
    snprintf(err, errlen, "more than %d stage%s (expected at most one stage per GPU, or per "
             "pipeline rank of a tensor-parallel network; --gpus changes them)", P,
             P == 1 ? "" : "s");
}

int split_parse_list(const char *list, int L, int P, int *gpu, char *err, size_t errlen)
{
    long first[4097];
    int n = 0;
    /* blanks and comments (a list pasted over lines too) may surround
     * the commas */
    const char *p = skip_space(list);
    if (!*p) {
        snprintf(err, errlen, "empty (expected the first layer of each stage, e.g. 0,12,24)");
        return -1;
    }
    for (;;) {
        if (*p < '0' || *p > '9') {
            snprintf(err, errlen, "'%.20s' is not a layer index (expected 0-based layer "
                     "indices separated by commas, e.g. 0,12,24)", p);
            return -1;
        }
        errno = 0;
        char *end;
        long v = strtol(p, &end, 10);
        if (isalnum((unsigned char)*end) || *end == '.') {  /* 0x10, 12a, 1.5 */
            snprintf(err, errlen, "'%.20s' is not a layer index (expected 0-based layer "
                     "indices separated by commas, e.g. 0,12,24)", p);
            return -1;
        }
        if (errno || v >= L) {
            int digits = (int)(end - p);
            snprintf(err, errlen, "layer %.*s%s out of range (expected 0 to %d: the network has "
                     "%d layer%s)", digits > 20 ? 20 : digits, p, digits > 20 ? "..." : "",
                     L - 1, L, L == 1 ? "" : "s");
            return -1;
        }
        if (n == 0 && v != 0) {
            snprintf(err, errlen, "the first stage starts at layer %ld (expected 0: stage 0 "
                     "starts with the first layer)", v);
            return -1;
        }
        if (n > 0 && v <= first[n - 1]) {
            snprintf(err, errlen, "layer %ld after %ld (expected strictly increasing layer "
                     "indices)", v, first[n - 1]);
            return -1;
        }
        if (n >= P) {
            too_many_stages(P, err, errlen);
            return -1;
        }
        first[n++] = v;
        p = skip_space(end);
        if (*p == '\0')
            break;
        const char *comma = p;
        if (*p == ',')
            p = skip_space(p + 1);
        if (*comma != ',' || *p == '\0') {
            snprintf(err, errlen, "'%.20s' after layer %ld (expected a comma and the next "
                     "layer index)", comma, v);
            return -1;
        }
    }
    for (int s = 0; s < n; s++) {
        long stop = s + 1 < n ? first[s + 1] : L;
        for (long i = first[s]; i < stop; i++)
            gpu[i] = s;
    }
    return 0;
}

/* ---- transformer networks ---- */

int split_transformer_layers(char *const *names, int L, char *err, size_t errlen)
{
    int N = L - 3;
    const char *want = NULL;
    int at = -1;
    char buf[32];
    if (L < 3) {
        snprintf(err, errlen, "the network has %d layer%s (expected a transformer network made "
                 "by pipeplan gen transformer: tok_embeddings, layers.0 .. layers.N-1, norm, "
                 "output)", L, L == 1 ? "" : "s");
        return -1;
    }
    if (strcmp(names[0], "tok_embeddings") != 0) {
        want = "tok_embeddings";
        at = 0;
    }
    for (int i = 0; !want && i < N; i++) {
        snprintf(buf, sizeof buf, "layers.%d", i);
        if (strcmp(names[i + 1], buf) != 0) {
            want = buf;
            at = i + 1;
        }
    }
    if (!want && strcmp(names[L - 2], "norm") != 0) {
        want = "norm";
        at = L - 2;
    }
    if (!want && strcmp(names[L - 1], "output") != 0) {
        want = "output";
        at = L - 1;
    }
    if (want) {
        snprintf(err, errlen, "layer %d is '%.60s' (expected '%s': a transformer network made "
                 "by pipeplan gen transformer has tok_embeddings, layers.0 .. layers.N-1, norm, "
                 "output)", at, names[at], want);
        return -1;
    }
    return N;
}

/* ---- Megatron-Core layouts ---- */

struct buf {
    char *s;
    size_t len, cap;
    bool overflow;
};

static void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->overflow)
        return;
    if (b->len + n + 1 > SPLIT_MAX_EXPANDED) {
        b->overflow = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->overflow = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* "*123" at s: the count and where it ends, or -1. */
static long repeat_count(const char *s, const char **end)
{
    if (s[0] != '*' || s[1] < '0' || s[1] > '9')
        return -1;
    long n = 0;
    s++;
    while (*s >= '0' && *s <= '9') {
        if (n < SPLIT_MAX_EXPANDED)
            n = n * 10 + (*s - '0');
        s++;
    }
    *end = s;
    return n;
}

static void buf_repeat(struct buf *b, const char *s, size_t n, long times)
{
    if ((double)n * (double)times >= SPLIT_MAX_EXPANDED) {
        b->overflow = true;
        return;
    }
    for (long k = 0; k < times; k++)
        buf_put(b, s, n);
}

/* Megatron's two re.sub passes, then the characters left. Returns the
 * expanded string (malloc'd), or NULL with err. */
static char *layout_expand(const char *layout, char *err, size_t errlen)
{
    struct buf a = { 0 }, b = { 0 };
    for (const char *p = layout; *p; p++)
        if (*p != ',')
            buf_put(&a, p, 1);
    buf_put(&a, "", 0);
    /* r'\(([^)]+)\)\*(\d+)', left to right, without overlap */
    for (size_t i = 0; !a.overflow && i < a.len;) {
        if (a.s[i] == '(') {
            const char *close = strchr(a.s + i + 1, ')');
            const char *end;
            long n;
            if (close && close > a.s + i + 1 && (n = repeat_count(close + 1, &end)) >= 0) {
                if (memchr(a.s + i + 1, '(', (size_t)(close - a.s - i - 1))) {
                    snprintf(err, errlen, "nested parentheses (expected at most one level: "
                             "Megatron does not unroll nested ones)");
                    free(a.s);
                    free(b.s);
                    return NULL;
                }
                buf_repeat(&b, a.s + i + 1, (size_t)(close - a.s - i - 1), n);
                i = (size_t)(end - a.s);
                continue;
            }
        }
        buf_put(&b, a.s + i, 1);
        i++;
    }
    buf_put(&b, "", 0);
    /* r'(.)\*(\d+)' */
    a.len = 0;
    for (size_t i = 0; !a.overflow && !b.overflow && i < b.len;) {
        const char *end;
        long n = i + 1 < b.len ? repeat_count(b.s + i + 1, &end) : -1;
        if (n >= 0 && b.s[i] != '\n') {
            buf_repeat(&a, b.s + i, 1, n);
            i = (size_t)(end - b.s);
        } else {
            buf_put(&a, b.s + i, 1);
            i++;
        }
    }
    buf_put(&a, "", 0);
    bool overflow = a.overflow || b.overflow;
    free(b.s);
    if (overflow) {
        free(a.s);
        snprintf(err, errlen, "expands to more than %d characters (expected a layout of a "
                 "real network)", SPLIT_MAX_EXPANDED);
        return NULL;
    }
    for (const char *p = a.s; *p; p++) {
        if (!strchr("EtLm|", *p)) {
            if (*p == '(' || *p == ')' || *p == '*')
                snprintf(err, errlen, "'%c' left after unrolling repeats (expected \"x*n\" or "
                         "\"(stages)*n\" with a count)", *p);
            else
                snprintf(err, errlen, "unknown layer character '%c' (expected E embedding, t "
                         "transformer layer, L loss, m MTP layer, | stage boundary)", *p);
            free(a.s);
            return NULL;
        }
    }
    return a.s;
}

int split_megatron_parse(const char *layout, char *const *names, int L, int P, int *gpu,
                         char *err, size_t errlen)
{
    char why[256];
    int N = split_transformer_layers(names, L, why, sizeof why);
    if (N < 0) {
        snprintf(err, errlen, "not a transformer network: %s", why);
        return -1;
    }
    char *s = layout_expand(layout, err, errlen);
    if (!s)
        return -1;
    int stages = 1, ne = 0, nl = 0, nt = 0, nm = 0;
    for (const char *p = s; *p; p++) {
        stages += *p == '|';
        ne += *p == 'E';
        nl += *p == 'L';
        nt += *p == 't';
        nm += *p == 'm';
    }
    size_t len = strlen(s);
    int rc = -1;
    if (nm > 0)
        snprintf(err, errlen, "%d MTP layer%s 'm' (expected none: the network has no MTP "
                 "layer)", nm, nm == 1 ? "" : "s");
    else if (ne != 1)
        snprintf(err, errlen, "%d embedding%s 'E' (expected exactly one)", ne,
                 ne == 1 ? "" : "s");
    else if (nl != 1)
        snprintf(err, errlen, "%d loss%s 'L' (expected exactly one)", nl, nl == 1 ? "" : "es");
    else if (s[0] != 'E')
        snprintf(err, errlen, "the first stage does not start with E (expected the embedding "
                 "first: Megatron builds it on the first stage)");
    else if (len == 0 || s[len - 1] != 'L')
        snprintf(err, errlen, "the last stage does not end with L (expected the loss last: "
                 "Megatron builds the output layer and loss on the last stage)");
    else if (nt != N)
        snprintf(err, errlen, "%d transformer layer%s 't' (expected %d: the network has "
                 "layers.0 .. layers.%d)", nt, nt == 1 ? "" : "s", N, N - 1);
    else if (stages % P != 0)
        snprintf(err, errlen, "%d stage%s for %d pipeline rank%s (expected a multiple of %d: "
                 "stage k runs on pipeline rank k mod %d)", stages, stages == 1 ? "" : "s", P,
                 P == 1 ? "" : "s", P, P);
    else
        rc = 0;
    if (rc == 0) {
        int stage = 0, t = 0;
        for (const char *p = s; *p; p++) {
            int g = stage % P;
            switch (*p) {
            case '|': stage++; break;
            case 'E': gpu[0] = g; break;
            case 't': gpu[1 + t++] = g; break;
            case 'L': gpu[L - 2] = gpu[L - 1] = g; break;
            default: break;
            }
        }
    }
    free(s);
    return rc;
}

/* Interchangeable GPUs: same cap and reserved memory. */
static bool same_gpu(const double *cap, const double *reserved, int a, int b)
{
    return (!cap || cap[a] == cap[b]) && (!reserved || reserved[a] == reserved[b]);
}

/* Give GPU g the smallest free rank among the GPUs like it; prefer
 * `want` when it is free and like g. Returns the rank or -1. */
static int rank_take(int g, int want, int P, const double *cap, const double *reserved,
                     int *gpu_of_rank)
{
    if (want >= 0 && want < P && gpu_of_rank[want] < 0 && same_gpu(cap, reserved, g, want)) {
        gpu_of_rank[want] = g;
        return want;
    }
    for (int r = 0; r < P; r++)
        if (gpu_of_rank[r] < 0 && same_gpu(cap, reserved, g, r) && r != want) {
            gpu_of_rank[r] = g;
            return r;
        }
    return -1;
}

void split_megatron_clear(struct split_megatron *m)
{
    free(m->layout);
    free(m->rank);
    free(m->gpu);
    memset(m, 0, sizeof *m);
}

int split_megatron_write(const int *gpu, char *const *names, int L, int P, const double *cap,
                         const double *reserved, const struct problem *pb,
                         struct split_megatron *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    /* the plan's GPUs are pipeline ranks of a tensor-parallel network */
    const char *gpu_word = problem_gpu_word(pb, false), *gpus_word = problem_gpu_word(pb, true);
    char why[256];
    if (split_transformer_layers(names, L, why, sizeof why) < 0) {
        snprintf(err, errlen, "Megatron's layout needs a transformer network: %s", why);
        return -1;
    }
    if (gpu[L - 2] != gpu[L - 1]) {
        snprintf(err, errlen, "the plan puts norm on %s %d and output on %s %d, but "
                 "Megatron's L holds both (it builds them together on the last stage)",
                 gpu_word, gpu[L - 2], gpu_word, gpu[L - 1]);
        return -1;
    }
    int first = gpu[0], last = gpu[L - 1];
    if (P > 1 && first == last) {
        snprintf(err, errlen, "the plan puts the embedding and the loss both on %s %d, but "
                 "Megatron builds the embedding on pipeline rank 0 and the loss on rank %d",
                 gpu_word, first, P - 1);
        return -1;
    }
    out->rank = malloc((size_t)P * sizeof *out->rank);
    out->gpu = malloc((size_t)P * sizeof *out->gpu);
    if (!out->rank || !out->gpu) {
        split_megatron_clear(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int p = 0; p < P; p++)
        out->rank[p] = out->gpu[p] = -1;
    /* the embedding's GPU is rank 0, the loss's rank P-1, the others in
     * order of first use, then the idle ones */
    out->rank[first] = rank_take(first, 0, P, cap, reserved, out->gpu);
    if (out->rank[first] != 0) {
        if (out->rank[first] >= 0)
            out->gpu[out->rank[first]] = -1;
        snprintf(err, errlen, "the embedding is on %s %d, which Megatron runs as pipeline rank "
                 "0, and %s %d and 0 have different memory, so they cannot be renumbered",
                 gpu_word, first, gpus_word, first);
        split_megatron_clear(out);
        return -1;
    }
    if (P > 1) {
        out->rank[last] = rank_take(last, P - 1, P, cap, reserved, out->gpu);
        if (out->rank[last] != P - 1) {
            snprintf(err, errlen, "the loss is on %s %d, which Megatron runs as pipeline rank "
                     "%d, and %s %d and %d have different memory, so they cannot be "
                     "renumbered", gpu_word, last, P - 1, gpus_word, last, P - 1);
            split_megatron_clear(out);
            return -1;
        }
    }
    for (int i = 0; i < L; i++) {
        int g = gpu[i];
        if (g < 0 || g >= P) {
            snprintf(err, errlen, "layer %d on %s %d (expected 0 to %d)", i, gpu_word, g,
                     P - 1);
            split_megatron_clear(out);
            return -1;
        }
        if (out->rank[g] < 0)
            out->rank[g] = rank_take(g, -1, P, cap, reserved, out->gpu);
    }
    for (int g = 0; g < P; g++)
        if (out->rank[g] < 0)
            out->rank[g] = rank_take(g, -1, P, cap, reserved, out->gpu);
    for (int g = 0; g < P; g++)
        if (out->rank[g] < 0) {
            snprintf(err, errlen, "cannot renumber %s %d among %s of its memory", gpu_word, g,
                     gpus_word);
            split_megatron_clear(out);
            return -1;
        }

    /* runs of layers on one GPU become stages: stage k on rank k mod P */
    struct buf b = { 0 };
    int stage = 0, i = 0;
    while (i < L) {
        int g = gpu[i], r = out->rank[g];
        /* the next stage of rank r: stage == r (mod P), after the
         * current one (the first run takes stage 0 = rank 0) */
        int target = i == 0 ? 0 : stage + 1;
        while (target % P != r)
            target++;
        for (; stage < target; stage++)
            buf_put(&b, "|", 1);
        int j = i;
        while (j < L && gpu[j] == g)
            j++;
        /* layers i..j-1: E, t..., L (norm + output: one letter) */
        int nt = 0;
        bool e = false, l = false;
        for (int k = i; k < j; k++) {
            if (k == 0)
                e = true;
            else if (k >= L - 2)
                l = true;
            else
                nt++;
        }
        if (e)
            buf_put(&b, "E", 1);
        if (nt == 1)
            buf_put(&b, "t", 1);
        else if (nt > 1) {
            char num[24];
            int n = snprintf(num, sizeof num, "t*%d", nt);
            buf_put(&b, num, (size_t)n);
        }
        if (l)
            buf_put(&b, "L", 1);
        i = j;
    }
    buf_put(&b, "", 0);
    if (b.overflow) {
        free(b.s);
        split_megatron_clear(out);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    out->layout = b.s;
    out->stages = stage + 1;
    out->virtual_stages = out->stages / P;
    return 0;
}

/* ---- Megatron's arguments ---- */

/* The next argument of a command line into buf: blanks split, and a
 * value in single or double quotes (the export quotes the layout) is one
 * argument without them. Returns the text after it, or NULL at the end
 * or on a quote not closed (*bad set). */
static const char *next_arg(const char *p, char *buf, size_t len, bool *bad)
{
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return NULL;
    size_t n = 0;
    while (*p && !isspace((unsigned char)*p)) {
        if (*p == '"' || *p == '\'') {
            const char *end = strchr(p + 1, *p);
            if (!end) {
                *bad = true;
                return NULL;
            }
            for (const char *q = p + 1; q < end; q++)
                if (n + 1 < len)
                    buf[n++] = *q;
            p = end + 1;
        } else {
            if (n + 1 < len)
                buf[n++] = *p;
            p++;
        }
    }
    buf[n] = '\0';
    return p;
}

/* A whole number argument's value: the rest of "--flag=V", or the next
 * argument. Returns 0, or -1 with why in err. */
static int arg_count(const char *flag, const char *eq, const char **p, long lo, long *out,
                     char *err, size_t errlen)
{
    /* the next argument whole, however long (a cut one would read as
     * another number) */
    char *buf = malloc(strlen(*p) + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    bool bad = false;
    const char *v = eq;
    if (!v) {
        *p = next_arg(*p, buf, strlen(*p) + 1, &bad);
        v = *p ? buf : "";
    }
    int rc = -1;
    char *end;
    errno = 0;
    long n = *v ? strtol(v, &end, 10) : 0;
    if (!*v)
        snprintf(err, errlen, "%s has no value (expected a whole number from %ld to %d)", flag,
                 lo, SPLIT_MAX_EXPANDED);
    else if (*end || errno || n < lo || n > SPLIT_MAX_EXPANDED)
        snprintf(err, errlen, "%s '%.20s%s' (expected a whole number from %ld to %d)", flag, v,
                 strlen(v) > 20 ? "..." : "", lo, SPLIT_MAX_EXPANDED);
    else
        rc = 0;
    if (rc == 0)
        *out = n;
    free(buf);
    return rc;
}

/* The stages Megatron-Core's get_num_layers_to_build gives N transformer
 * layers on P ranks: the first (last) rank first (last) layers when given
 * (-1: not), the others an even share; or all an even share of N plus the
 * embedding and the loss when they are accounted for, the first (last)
 * virtual stage building one fewer; each rank's share split evenly over
 * its vp virtual stages (per_vp: layers per virtual stage instead),
 * stage k = v P + r. As a layout, read by split_megatron_parse. */
static int megatron_counts(int N, int P, long first, long last, bool emb, bool loss, long vp,
                           long per_vp, char *const *names, int L, int *gpu, char *err,
                           size_t errlen)
{
    bool uneven = first >= 0 || last >= 0;
    if (uneven && (emb || loss)) {
        snprintf(err, errlen, "--decoder-first/last-pipeline-num-layers with "
                 "--account-for-embedding/loss-in-pipeline-split (expected one or the other: "
                 "Megatron does not support both)");
        return -1;
    }
    if (uneven && P < 2) {
        snprintf(err, errlen, "an uneven first or last stage on 1 rank (expected 2 or more "
                 "ranks)");
        return -1;
    }
    long *share = malloc((size_t)P * sizeof *share);
    if (!share) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = -1;
    long even = 0;
    if (uneven) {
        long rest = N - (first >= 0 ? first : 0) - (last >= 0 ? last : 0);
        long left = P - (first >= 0) - (last >= 0);
        if (rest < 0 || (left == 0 && rest != 0) || (left > 0 && rest % left != 0)) {
            snprintf(err, errlen, "%ld layer%s left for %ld middle rank%s (expected the %d "
                     "transformer layers less the first and last stages' to divide evenly "
                     "over the other ranks)", rest, rest == 1 ? "" : "s", left,
                     left == 1 ? "" : "s", N);
            goto out;
        }
        even = left > 0 ? rest / left : 0;
    } else {
        long n = N + emb + loss;
        if (n % P != 0) {
            snprintf(err, errlen, "%ld layers%s on %d ranks (expected a multiple of the ranks: "
                     "Megatron splits them evenly)", n, emb && loss ? " with the embedding "
                     "and loss accounted for" : emb ? " with the embedding accounted for"
                     : loss ? " with the loss accounted for" : "", P);
            goto out;
        }
        even = n / P;
    }
    for (int r = 0; r < P; r++)
        share[r] = r == 0 && first >= 0 ? first : r == P - 1 && last >= 0 ? last : even;
    if (per_vp) {
        if (uneven || even % per_vp != 0) {
            snprintf(err, errlen, "--num-layers-per-virtual-pipeline-stage %ld (expected a "
                     "divisor of the %ld layers per rank, and no uneven stage beside it)",
                     per_vp, even);
            goto out;
        }
        vp = even / per_vp;
    }
    if (vp <= 0)
        vp = 1;
    for (int r = 0; r < P; r++)
        if (share[r] % vp != 0) {
            snprintf(err, errlen, "rank %d's %ld layers over %ld virtual stages (expected a "
                     "multiple of them)", r, share[r], vp);
            goto out;
        }
    /* the layout: E, then each stage's t, | between stages, L */
    long S = vp * P;
    if (S > SPLIT_MAX_EXPANDED || (long)N + S + 2 > SPLIT_MAX_EXPANDED) {
        snprintf(err, errlen, "%ld stages (expected fewer)", S);
        goto out;
    }
    char *lay = malloc((size_t)N + (size_t)S + 3);
    if (!lay) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    size_t at = 0;
    lay[at++] = 'E';
    for (long k = 0; k < S; k++) {
        long c = share[k % P] / vp;
        if (k == 0 && emb)
            c--;
        if (k == S - 1 && loss)
            c--;
        if (c < 0) {
            snprintf(err, errlen, "the %s virtual stage has no layer to give the %s (expected "
                     "more layers per stage)", k == 0 ? "first" : "last",
                     k == 0 ? "embedding" : "loss");
            free(lay);
            goto out;
        }
        if (k > 0)
            lay[at++] = '|';
        while (c-- > 0)
            lay[at++] = 't';
    }
    lay[at++] = 'L';
    lay[at] = '\0';
    rc = split_megatron_parse(lay, names, L, P, gpu, err, errlen);
    free(lay);
out:
    free(share);
    return rc;
}

/* Megatron's pipeline arguments (split_parse's "megatron:--..."): the
 * stages its get_num_layers_to_build gives, as a layout. */
static int megatron_args(const char *args, const struct problem *pb, int *gpu, char *err,
                         size_t errlen)
{
    char why[256];
    int N = split_transformer_layers(pb->names, pb->L, why, sizeof why);
    if (N < 0) {
        snprintf(err, errlen, "not a transformer network: %s", why);
        return -1;
    }
    long first = -1, last = -1, vp = 0, per_vp = 0, v;
    bool emb = false, loss = false, bad = false;
    char *layout = NULL;
    /* an argument is at most all of them: none is cut (a layout the
     * export wrote for thousands of GPUs is longer than any fixed buffer) */
    size_t size = strlen(args) + 1;
    char *arg = malloc(size), *val = malloc(size);
    if (!arg || !val) {
        free(arg);
        free(val);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (const char *p = next_arg(args, arg, size, &bad); p && rc == 0;
         p = next_arg(p, arg, size, &bad)) {
        char *eq = strchr(arg, '=');
        if (eq)
            *eq++ = '\0';
        bool is_emb = !strcmp(arg, "--account-for-embedding-in-pipeline-split");
        /* the export writes it beside the tensor-parallel size */
        bool is_sp = !strcmp(arg, "--sequence-parallel");
        bool is_loss = !strcmp(arg, "--account-for-loss-in-pipeline-split");
        if ((is_emb || is_loss || is_sp) && eq) {
            /* Megatron's argparse (store_true) refuses a value too */
            snprintf(err, errlen, "%s=%.20s: the flag takes no value (expected %s alone)",
                     arg, eq, arg);
            rc = -1;
        } else if (is_sp)
            continue;
        else if (is_emb)
            emb = true;
        else if (is_loss)
            loss = true;
        /* Megatron-Core refuses 0 for these ("must be larger than 0") */
        else if (!strcmp(arg, "--decoder-first-pipeline-num-layers"))
            rc = arg_count(arg, eq, &p, 1, &first, err, errlen);
        else if (!strcmp(arg, "--decoder-last-pipeline-num-layers"))
            rc = arg_count(arg, eq, &p, 1, &last, err, errlen);
        else if (!strcmp(arg, "--num-virtual-stages-per-pipeline-rank"))
            rc = arg_count(arg, eq, &p, 1, &vp, err, errlen);
        else if (!strcmp(arg, "--num-layers-per-virtual-pipeline-stage"))
            rc = arg_count(arg, eq, &p, 1, &per_vp, err, errlen);
        else if (!strcmp(arg, "--pipeline-model-parallel-size")) {
            if ((rc = arg_count(arg, eq, &p, 1, &v, err, errlen)) == 0 && v != pb->P) {
                snprintf(err, errlen, "--pipeline-model-parallel-size %ld (expected %d, the "
                         "%s; --gpus changes them)", v, pb->P, problem_gpu_word(pb, true));
                rc = -1;
            }
        } else if (!strcmp(arg, "--num-layers")) {
            if ((rc = arg_count(arg, eq, &p, 1, &v, err, errlen)) == 0 && v != N) {
                snprintf(err, errlen, "--num-layers %ld (expected %d, the network's "
                         "transformer layers)", v, N);
                rc = -1;
            }
        } else if (!strcmp(arg, "--tensor-model-parallel-size")) {
            if ((rc = arg_count(arg, eq, &p, 1, &v, err, errlen)) == 0 && v != pb->tp) {
                snprintf(err, errlen, "--tensor-model-parallel-size %ld (expected %d, the "
                         "network's tensor_parallel)", v, pb->tp);
                rc = -1;
            }
        } else if (!strcmp(arg, "--pipeline-model-parallel-layout")) {
            const char *from = eq;
            if (!from) {
                p = next_arg(p, val, size, &bad);
                from = p ? val : "";
            }
            if (!*from && !bad) {
                snprintf(err, errlen, "--pipeline-model-parallel-layout has no value (expected "
                         "a layout, e.g. \"Et*8|t*8L\")");
                rc = -1;
                break;
            }
            free(layout);
            layout = strdup(from);
            if (!layout) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
        } else {
            snprintf(err, errlen, "'%.60s' is not read (expected Megatron's pipeline split "
                     "arguments: --decoder-first-pipeline-num-layers, "
                     "--decoder-last-pipeline-num-layers, --account-for-embedding-in-pipeline-"
                     "split, --account-for-loss-in-pipeline-split, "
                     "--num-virtual-stages-per-pipeline-rank, "
                     "--num-layers-per-virtual-pipeline-stage, --pipeline-model-parallel-layout, "
                     "and the sizes to check)", arg);
            rc = -1;
        }
        if (!p)
            break;
    }
    free(arg);
    free(val);
    if (rc == 0 && bad) {
        snprintf(err, errlen, "a quote not closed (expected arguments as a shell passes them)");
        rc = -1;
    }
    if (rc == 0 && vp && per_vp) {
        snprintf(err, errlen, "--num-virtual-stages-per-pipeline-rank with "
                 "--num-layers-per-virtual-pipeline-stage (expected one of them: Megatron "
                 "refuses both)");
        rc = -1;
    }
    if (rc == 0 && layout) {
        if (first >= 0 || last >= 0 || emb || loss || vp || per_vp) {
            snprintf(err, errlen, "--pipeline-model-parallel-layout with other split arguments "
                     "(expected the layout alone: Megatron refuses the others beside it)");
            rc = -1;
        } else {
            rc = split_megatron_parse(layout, pb->names, pb->L, pb->P, gpu, err, errlen);
        }
        free(layout);
        return rc;
    }
    free(layout);
    if (rc != 0)
        return -1;
    return megatron_counts(N, pb->P, first, last, emb, loss, vp, per_vp, pb->names, pb->L, gpu,
                           err, errlen);
}

/* ---- DeepSpeed ---- */

int split_deepspeed_parts(const int *gpu, int L, int P, const double *cap,
                          const double *reserved, const struct problem *pb, int *parts,
                          int *rank, char *err, size_t errlen)
{
    const char *gpu_word = problem_gpu_word(pb, false), *gpus_word = problem_gpu_word(pb, true);
    for (int p = 0; p < P; p++)
        rank[p] = -1;
    int stages = 0;
    for (int i = 0; i < L; i++) {
        if (gpu[i] < 0 || gpu[i] >= P) {
            snprintf(err, errlen, "layer %d on %s %d (expected 0 to %d)", i, gpu_word, gpu[i],
                     P - 1);
            return -1;
        }
        if (i > 0 && gpu[i] == gpu[i - 1])
            continue;
        if (rank[gpu[i]] >= 0) {
            snprintf(err, errlen, "%s %d holds layers %d and %d but not the layers between "
                     "(expected a contiguous plan: DeepSpeed's stages are one range of layers "
                     "each)", gpu_word, gpu[i], parts[rank[gpu[i]]], i);
            return -1;
        }
        rank[gpu[i]] = stages;
        parts[stages++] = i;
    }
    parts[stages] = L;
    /* stage s runs on pipeline rank s: GPU s of the platform */
    for (int g = 0; g < P; g++)
        if (rank[g] >= 0 && !same_gpu(cap, reserved, g, rank[g])) {
            snprintf(err, errlen, "stage %d is on %s %d, which DeepSpeed runs as pipeline rank "
                     "%d, and %s %d and %d have different memory, so they cannot be "
                     "renumbered", rank[g], gpu_word, g, rank[g], gpus_word, g, rank[g]);
            return -1;
        }
    return stages;
}

/* "[0, 12, 24, 36]": see split.h. */
int split_deepspeed_parse(const char *text, int L, int P, int *gpu, char *err, size_t errlen)
{
    static const char expect[] = "expected DeepSpeed's parts: the first layer of each stage, "
                                 "then the layer count, e.g. [0, 12, 24, 36]";
    const char *p = skip_space(text);
    bool bracket = *p == '[';
    if (bracket)
        p++;
    long prev = -1;
    int n = 0;                    /* boundaries read; stage n - 1 ends at the last */
    for (;;) {
        p = skip_space(p);
        if (bracket && n > 0 && *p == ']') {
            /* a comma before the ']' (Python's lists allow one) */
            p = skip_space(p + 1);
            if (*p) {
                snprintf(err, errlen, "'%.20s' after ']' (expected nothing more)", p);
                return -1;
            }
            break;
        }
        if (!*p) {
            snprintf(err, errlen, "no boundary where one was due (%s)", expect);
            return -1;
        }
        if (*p < '0' || *p > '9') {
            snprintf(err, errlen, "'%.20s' is not a layer boundary (%s)", p, expect);
            return -1;
        }
        errno = 0;
        char *end;
        long v = strtol(p, &end, 10);
        if (isalnum((unsigned char)*end) || *end == '.') {
            snprintf(err, errlen, "'%.20s' is not a layer boundary (%s)", p, expect);
            return -1;
        }
        if (errno || v > L) {
            /* cut as the list form cuts it: "..." says the number goes on */
            int digits = (int)(end - p);
            snprintf(err, errlen, "boundary %.*s%s out of range (expected 0 to %d: the network "
                     "has %d layer%s)", digits > 20 ? 20 : digits, p, digits > 20 ? "..." : "",
                     L, L, L == 1 ? "" : "s");
            return -1;
        }
        if (n == 0 && v != 0) {
            snprintf(err, errlen, "the parts start at %ld (expected 0: stage 0 starts with the "
                     "first layer)", v);
            return -1;
        }
        if (v < prev) {
            snprintf(err, errlen, "boundary %ld after %ld (expected non-decreasing "
                     "boundaries)", v, prev);
            return -1;
        }
        if (n > P) {
            too_many_stages(P, err, errlen);
            return -1;
        }
        /* stage n - 1 is [prev, v) on GPU n - 1 */
        for (long i = prev < 0 ? v : prev; i < v; i++)
            gpu[i] = n - 1;
        prev = v;
        n++;
        p = skip_space(end);
        if (*p == ',') {
            p++;
            continue;
        }
        if (bracket && *p == ']') {
            p = skip_space(p + 1);
            if (*p) {
                snprintf(err, errlen, "'%.20s' after ']' (expected nothing more)", p);
                return -1;
            }
        } else if (bracket && !*p) {
            snprintf(err, errlen, "no ']' after %ld (%s)", v, expect);
            return -1;
        } else if (*p) {
            snprintf(err, errlen, "'%.20s' after %ld (expected a comma and the next "
                     "boundary%s)", p, v, bracket ? ", or the closing ']'" : "");
            return -1;
        }
        break;
    }
    if (prev != L) {
        snprintf(err, errlen, "the last boundary is %ld (expected %d, the layer count: "
                 "DeepSpeed's parts end with it)", prev, L);
        return -1;
    }
    return n - 1;
}

/* ---- torchtitan ---- */

/* What stands at p, for a message: "'text'" (cut) or "nothing". */
static const char *here(const char *p, char *buf, size_t n)
{
    if (!*p)
        return "nothing";
    snprintf(buf, n, "'%.20s'", p);
    return buf;
}

/* The closing quote of the string opening at p (backslash escapes
 * skipped), or NULL. */
static const char *quoted_end(const char *p)
{
    for (const char *c = p + 1; *c; c++) {
        if (*c == '\\' && c[1])
            c++;
        else if (*c == *p)
            return c;
    }
    return NULL;
}

/* UTF-8 of code point u into out (room for 4); its length. */
static size_t utf8_put(unsigned long u, char *out)
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xc0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xe0 | u >> 12);
        out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
        out[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (u >> 18 & 0x07));
    out[1] = (char)(0x80 | ((u >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((u >> 6) & 0x3f));
    out[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

/* The text of a Python or TOML string [s, end) with its escapes undone
 * (\\ \" \' \n \t \r \xNN \uNNNN \UNNNNNNNN, each a code point written
 * in UTF-8 as Python means it: "caf\xe9" is "café"; others, and a NUL
 * that would end the name, stay as written) into out (cut to fit len,
 * NUL-terminated); its length. */
static size_t unquote(const char *s, const char *end, char *out, size_t len)
{
    size_t n = 0;
    while (s < end && n + 5 < len) {
        if (*s != '\\' || s + 1 >= end) {
            out[n++] = *s++;
            continue;
        }
        char e = s[1];
        int hex = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (hex && end - (s + 2) >= hex) {
            unsigned long u = 0;
            int k = 0;
            for (; k < hex && isxdigit((unsigned char)s[2 + k]); k++)
                u = u * 16 + (unsigned long)(isdigit((unsigned char)s[2 + k]) ? s[2 + k] - '0'
                                             : (tolower((unsigned char)s[2 + k]) - 'a' + 10));
            if (k == hex && u <= 0x10ffff && u != 0) {
                n += utf8_put(u, out + n);
                s += 2 + hex;
                continue;
            }
        }
        const char *from = "\\\"'ntr", *to = "\\\"'\n\t\r";
        const char *at = strchr(from, e);
        if (e && at) {
            out[n++] = to[at - from];
            s += 2;
        } else {
            out[n++] = *s++;
        }
    }
    out[n] = '\0';
    return n;
}

/* module_fqns_per_model_part: see split.h. */
int split_torchtitan_parse(const char *text, char *const *names, int L, int P, int *gpu,
                           char *err, size_t errlen)
{
    static const char expect[] = "expected torchtitan's module_fqns_per_model_part, e.g. "
                                 "[[\"tok_embeddings\", \"layers.0\"], [\"layers.1\", "
                                 "\"norm\", \"output\"]]";
    char shown[32];
    const char *p = skip_space(text);
    bool v = p[0] == 'v' && p[1] == ':';    /* the V schedules' placement */
    if (v)
        p = skip_space(p + 2);
    if (*p != '[') {
        snprintf(err, errlen, "%s where the list opens (%s)", here(p, shown, sizeof shown), expect);
        return -1;
    }
    int next = 0, part = 0;      /* the layer due next; the part being read */
    for (p = skip_space(p + 1); *p != ']'; part++) {
        if (*p != '[') {
            if (*p)
                snprintf(err, errlen, "'%.20s' where part %d opens (%s)", p, part, expect);
            else
                snprintf(err, errlen, "no ']' closing the list (%s)", expect);
            return -1;
        }
        int first = next;
        for (p = skip_space(p + 1); *p != ']';) {
            char q = *p;
            const char *end = q == '"' || q == '\'' ? quoted_end(p) : NULL;
            if (!end) {
                snprintf(err, errlen, "%s in part %d where a quoted module name is due (%s)",
                         here(p, shown, sizeof shown), part, expect);
                return -1;
            }
            /* the export writes Python's escapes (\", \\, \u0009) */
            char name[1024];
            size_t n = unquote(p + 1, end, name, sizeof name);
            bool due = next < L && strlen(names[next]) == n && !strncmp(names[next], name, n);
            if (!due) {
                int at = -1;
                for (int i = 0; i < L && at < 0; i++)
                    if (strlen(names[i]) == n && !strncmp(names[i], name, n))
                        at = i;
                if (at < 0)
                    snprintf(err, errlen, "'%.*s' in part %d is no layer of the network "
                             "(expected its layers' names, e.g. '%.40s')", n > 40 ? 40 : (int)n,
                             name, part, names[next < L ? next : 0]);
                else if (next < L)
                    snprintf(err, errlen, "'%.40s' in part %d where '%.40s' is due (expected "
                             "every layer once, in the network's order)", names[at], part,
                             names[next]);
                else
                    snprintf(err, errlen, "'%.40s' in part %d after the last layer (expected "
                             "every layer once, in the network's order)", names[at], part);
                return -1;
            }
            gpu[next++] = !v ? part % P : part < P ? part : 2 * P - 1 - part;
            p = skip_space(end + 1);
            if (*p == ',')
                p = skip_space(p + 1);
            else if (*p != ']') {
                snprintf(err, errlen, "%s after '%.40s' (expected a comma or the ']' "
                         "closing part %d)", here(p, shown, sizeof shown), names[next - 1], part);
                return -1;
            }
        }
        if (next == first) {
            snprintf(err, errlen, "part %d is empty (expected the modules of each part)", part);
            return -1;
        }
        p = skip_space(p + 1);
        if (*p == ',')
            p = skip_space(p + 1);
        else if (*p != ']') {
            snprintf(err, errlen, "%s after part %d (expected a comma or the ']' closing "
                     "the list)", here(p, shown, sizeof shown), part);
            return -1;
        }
    }
    p = skip_space(p + 1);
    if (*p) {
        snprintf(err, errlen, "'%.20s' after the list (expected nothing more)", p);
        return -1;
    }
    if (next < L) {
        snprintf(err, errlen, "the parts end before '%.40s' (expected every layer once, "
                 "through '%.40s')", names[next], names[L - 1]);
        return -1;
    }
    if (v && part != 2 * P) {
        snprintf(err, errlen, "%d part%s on %d pipeline ranks (expected %d: the V schedules put "
                 "parts r and %d - r on pipeline rank r)", part, part == 1 ? "" : "s", P, 2 * P,
                 2 * P - 1);
        return -1;
    }
    /* fewer parts than GPUs: a degree of that many ranks, one part each
     * (the export of a plan that leaves GPUs idle writes so) */
    if (part > P && part % P) {
        snprintf(err, errlen, "%d parts on %d pipeline ranks (expected at most %d, one a rank, "
                 "or a multiple of %d: torchtitan runs part s on pipeline rank s mod the "
                 "degree; --gpus changes them)", part, P, P, P);
        return -1;
    }
    return part < P ? part : P;
}

/* ---- --split ---- */

/* The runtimes' prefixes of a --split value, as split_parse reads them. */
static const char prefix[] = "megatron:", ds[] = "deepspeed:", titan[] = "torchtitan:";

bool split_runtime_order(const char *spec)
{
    return strncmp(spec, prefix, sizeof prefix - 1) == 0 ||
           strncmp(spec, ds, sizeof ds - 1) == 0 || strncmp(spec, titan, sizeof titan - 1) == 0;
}

int split_parse(const char *spec, const struct problem *pb, int *gpu, char *err, size_t errlen)
{
    /* Megatron runs on every GPU (pipeline_model_parallel_size), torchtitan
     * and DeepSpeed on the ranks their parts name, the list on its own */
    int rc;
    if (strncmp(spec, prefix, sizeof prefix - 1) == 0) {
        const char *rest = spec + sizeof prefix - 1;
        while (isspace((unsigned char)*rest))
            rest++;
        /* arguments as a shell would quote them too: '--flag' VALUE */
        const char *arg = rest[0] == '\'' || rest[0] == '"' ? rest + 1 : rest;
        if (arg[0] == '-' && arg[1] == '-')
            rc = megatron_args(rest, pb, gpu, err, errlen);
        else
            rc = split_megatron_parse(spec + sizeof prefix - 1, pb->names, pb->L, pb->P, gpu,
                                      err, errlen);
        return rc < 0 ? -1 : pb->P;
    }
    if (strncmp(spec, ds, sizeof ds - 1) == 0)
        return split_deepspeed_parse(spec + sizeof ds - 1, pb->L, pb->P, gpu, err, errlen);
    if (strncmp(spec, titan, sizeof titan - 1) == 0)
        return split_torchtitan_parse(spec + sizeof titan - 1, pb->names, pb->L, pb->P, gpu,
                                      err, errlen);
    if (split_parse_list(spec, pb->L, pb->P, gpu, err, errlen) < 0)
        return -1;
    return gpu[pb->L - 1] + 1;
}
