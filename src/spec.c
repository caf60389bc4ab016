/* spec: network and platform INI files.
 *
 * inih parses; a reader callback of ours feeds it one line at a time so we
 * always know the current line number (Debian's inih passes none to the
 * handler), can refuse lines longer than inih's buffer instead of letting
 * them be split, and can see section headers even when a section has no
 * keys (inih only reports keys). */
#include "spec.h"

#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "text.h"
#include "units.h"

enum kind { KIND_NETWORK, KIND_PLATFORM };

enum section_type {
    SEC_NONE, SEC_NETWORK, SEC_LAYER, SEC_PLATFORM, SEC_GPU, SEC_TRAINING
};

/* Keys seen in the current section, as bits of that section's key table. */
struct section {
    enum section_type type;
    int line;
    unsigned seen;
    int index;              /* layer index or GPU number */
};

struct parser {
    enum kind kind;
    const char *label;
    const char *text;
    size_t pos, len;
    int line;               /* line most recently handed to inih */
    bool line_indented;     /* it began with a blank (inih continuation) */
    char *err;
    size_t errlen;
    int err_line;           /* 0 = no error */
    int missing_to;         /* the error is a key missing from the section
                             * of lines err_line..missing_to, else 0 */

    struct section sec;
    /* whole-file state */
    int network_line, platform_line, training_line;
    int reserved_line;      /* where a rule on two keys points: the later one */
    unsigned network_seen, platform_seen, training_seen;
    struct spec_network *net;
    int layers_cap;
    int *name_slot;         /* open hash of layer names: index + 1, 0 empty */
    size_t name_slots;      /* a power of two, at least twice the layers */
    struct spec_platform *plat;
    int *gpu_lines;         /* header line of [gpu N] sections */
    uint64_t *gpu_mem;
    int *gpu_mem_line;
    int ngpu_sections, gpu_cap;
};

static void fail_at(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(struct parser *ps, int line, const char *fmt, ...)
{
    if (ps->err_line)
        return;
    char msg[SPEC_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps->err_line = line > 0 ? line : 1;
    snprintf(ps->err, ps->errlen, "%s:%d: %s", ps->label, ps->err_line, msg);
}

/* ---- key tables ---- */

struct key {
    const char *name;
    bool required;
};

static const struct key network_keys[] = {
    { "name", true }, { "micro_batch", true }, { "source", false },
    { "tensor_parallel", false }, { NULL, false }
};
static const struct key layer_keys[] = {
    { "forward", true }, { "backward", true }, { "weights", true },
    { "activation", true }, { "stored", false }, { NULL, false }
};
static const struct key platform_keys[] = {
    { "name", true }, { "gpus", true }, { "memory", true }, { "reserved", true },
    { "bandwidth", true }, { "latency", true }, { NULL, false }
};
static const struct key gpu_keys[] = { { "memory", true }, { NULL, false } };
static const struct key training_keys[] = {
    { "micro_batches", true }, { "schedule", true }, { "optimizer", false },
    { "weight_factor", false }, { NULL, false }
};

static const struct key *section_keys(enum section_type t)
{
    switch (t) {
    case SEC_NETWORK: return network_keys;
    case SEC_LAYER: return layer_keys;
    case SEC_PLATFORM: return platform_keys;
    case SEC_GPU: return gpu_keys;
    case SEC_TRAINING: return training_keys;
    default: return NULL;
    }
}

static const char *section_title(const struct parser *ps, char *buf, size_t len)
{
    switch (ps->sec.type) {
    case SEC_NETWORK: return "[network]";
    case SEC_PLATFORM: return "[platform]";
    case SEC_TRAINING: return "[training]";
    case SEC_GPU: snprintf(buf, len, "[gpu %d]", ps->sec.index); return buf;
    case SEC_LAYER:
        snprintf(buf, len, "[layer %s]", ps->net->layers[ps->sec.index].name);
        return buf;
    default: return "(no section)";
    }
}

/* "a, b, c or d" */
static void key_list(const struct key *keys, char *buf, size_t len)
{
    size_t n = 0;
    int count = 0;
    for (const struct key *k = keys; k->name; k++)
        count++;
    buf[0] = '\0';
    for (int i = 0; i < count && n < len; i++) {
        const char *sep = i == 0 ? "" : (i == count - 1 ? " or " : ", ");
        n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, keys[i].name);
    }
}

/* Report the first required key missing from a finished section. */
static void check_required(struct parser *ps, const struct key *keys, unsigned seen,
                           int line, const char *title)
{
    for (int i = 0; keys[i].name; i++) {
        if (keys[i].required && !(seen & (1u << i))) {
            bool first = !ps->err_line;
            fail_at(ps, line, "%s has no '%s' (expected a line '%s = ...')",
                    title, keys[i].name, keys[i].name);
            if (first)
                ps->missing_to = ps->line;
            return;
        }
    }
}

static void section_end(struct parser *ps)
{
    char buf[SPEC_MAX_LINE + 16];
    switch (ps->sec.type) {
    case SEC_LAYER: {
        struct spec_layer *l = &ps->net->layers[ps->sec.index];
        check_required(ps, layer_keys, ps->sec.seen, ps->sec.line,
                       section_title(ps, buf, sizeof buf));
        if (!(ps->sec.seen & (1u << 4)))
            l->stored = l->activation;
        break;
    }
    case SEC_GPU:
        check_required(ps, gpu_keys, ps->sec.seen, ps->sec.line,
                       section_title(ps, buf, sizeof buf));
        break;
    case SEC_NETWORK:
        ps->network_seen = ps->sec.seen;
        break;
    case SEC_PLATFORM:
        ps->platform_seen = ps->sec.seen;
        break;
    case SEC_TRAINING:
        ps->training_seen = ps->sec.seen;
        break;
    default:
        break;
    }
    ps->sec.type = SEC_NONE;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    memmove(s, s + i, n - i + 1);
}

/* Layer names are looked up in a hash table: a scan per [layer] header
 * made loading quadratic (15 s for the 100,000 layers allowed). */
static size_t name_hash(const char *name)
{
    uint64_t h = 14695981039346656037u;   /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 1099511628211u;
    return (size_t)h;
}

/* The index of the layer called name, or -1 with *at its free slot. */
static int name_find(const struct parser *ps, const char *name, size_t *at)
{
    *at = 0;
    if (!ps->name_slots)
        return -1;
    size_t mask = ps->name_slots - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
        int v = ps->name_slot[i];
        if (v == 0) {
            *at = i;
            return -1;
        }
        if (strcmp(ps->net->layers[v - 1].name, name) == 0)
            return v - 1;
    }
}

/* Record layer index at slot at (from name_find), growing the table
 * when half full; 0, or -1 when out of memory. */
static int name_add(struct parser *ps, size_t at, int index)
{
    if (2 * ((size_t)index + 1) >= ps->name_slots) {
        size_t n = ps->name_slots ? 2 * ps->name_slots : 256;
        int *t = calloc(n, sizeof *t);
        if (!t)
            return -1;
        free(ps->name_slot);
        ps->name_slot = t;
        ps->name_slots = n;
        /* refile every layer, the new one included */
        for (int i = 0; i <= index; i++) {
            size_t slot;
            name_find(ps, ps->net->layers[i].name, &slot);
            ps->name_slot[slot] = i + 1;
        }
        return 0;
    }
    ps->name_slot[at] = index + 1;
    return 0;
}

static void begin_layer(struct parser *ps, const char *name)
{
    struct spec_network *net = ps->net;
    if (name[0] == '\0') {
        fail_at(ps, ps->line, "layer without a name (expected [layer NAME])");
        return;
    }
    size_t at;
    int dup = name_find(ps, name, &at);
    if (dup >= 0) {
        fail_at(ps, ps->line, "duplicate layer '%s' (expected each name once; the first is "
                "on line %d)", name, net->layers[dup].line);
        return;
    }
    if (net->nlayers >= SPEC_MAX_LAYERS) {
        fail_at(ps, ps->line, "too many layers (expected at most %d)", SPEC_MAX_LAYERS);
        return;
    }
    if (net->nlayers == ps->layers_cap) {
        int cap = ps->layers_cap ? ps->layers_cap * 2 : 64;
        struct spec_layer *nl = realloc(net->layers, (size_t)cap * sizeof *nl);
        if (!nl) {
            fail_at(ps, ps->line, "out of memory");
            return;
        }
        net->layers = nl;
        ps->layers_cap = cap;
    }
    struct spec_layer *l = &net->layers[net->nlayers];
    memset(l, 0, sizeof *l);
    l->name = dup_str(name);
    if (!l->name) {
        fail_at(ps, ps->line, "out of memory");
        return;
    }
    l->line = ps->line;
    if (name_add(ps, at, net->nlayers) != 0) {
        free(l->name);
        fail_at(ps, ps->line, "out of memory");
        return;
    }
    ps->sec.index = net->nlayers++;
    ps->sec.type = SEC_LAYER;
}

static void begin_gpu(struct parser *ps, const char *arg)
{
    long n;
    char why[128];
    if (units_parse_count(arg, 0, SPEC_MAX_GPUS - 1, &n, why, sizeof why) < 0) {
        fail_at(ps, ps->line, "bad [gpu %s]: %s%s", arg, why,
                strstr(why, "(expected") ? "" : " (expected [gpu N], N from 0)");
        return;
    }
    for (int i = 0; i < ps->ngpu_sections; i++) {
        if (ps->gpu_lines[2 * i] == n) {
            fail_at(ps, ps->line, "duplicate [gpu %ld] (expected each GPU once; the first is "
                    "on line %d)", n, ps->gpu_lines[2 * i + 1]);
            return;
        }
    }
    if (ps->ngpu_sections == ps->gpu_cap) {
        int cap = ps->gpu_cap ? ps->gpu_cap * 2 : 8;
        int *gl = realloc(ps->gpu_lines, (size_t)cap * 2 * sizeof *gl);
        if (gl)
            ps->gpu_lines = gl;
        uint64_t *gm = realloc(ps->gpu_mem, (size_t)cap * sizeof *gm);
        if (gm)
            ps->gpu_mem = gm;
        int *gml = realloc(ps->gpu_mem_line, (size_t)cap * sizeof *gml);
        if (gml)
            ps->gpu_mem_line = gml;
        if (!gl || !gm || !gml) {
            fail_at(ps, ps->line, "out of memory");
            return;
        }
        ps->gpu_cap = cap;
    }
    int i = ps->ngpu_sections++;
    ps->gpu_lines[2 * i] = (int)n;
    ps->gpu_lines[2 * i + 1] = ps->line;
    ps->gpu_mem[i] = 0;
    ps->gpu_mem_line[i] = ps->line;
    ps->sec.type = SEC_GPU;
    ps->sec.index = (int)n;
}

/* Called by the reader for every "[...]" line, before inih sees it. */
static void section_begin(struct parser *ps, const char *raw)
{
    char name[SPEC_MAX_LINE + 1];
    const char *close = strchr(raw, ']');
    if (!close) {
        fail_at(ps, ps->line, "section header without ']' (expected [name])");
        return;
    }
    const char *rest = close + 1 + strspn(close + 1, " \t");
    if (*rest != '\0' && *rest != ';' && *rest != '#') {
        fail_at(ps, ps->line, "text after ']' in a section header (expected [name])");
        return;
    }
    size_t n = (size_t)(close - raw - 1);
    memcpy(name, raw + 1, n);
    name[n] = '\0';
    trim(name);
    section_end(ps);
    if (ps->err_line)
        return;
    ps->sec.line = ps->line;
    ps->sec.seen = 0;
    ps->sec.index = -1;

    if (ps->kind == KIND_NETWORK) {
        if (strcmp(name, "network") == 0) {
            if (ps->network_line) {
                fail_at(ps, ps->line, "second [network] section (expected one; the first is "
                        "on line %d)", ps->network_line);
                return;
            }
            ps->network_line = ps->line;
            ps->sec.type = SEC_NETWORK;
        } else if (strncmp(name, "layer", 5) == 0 &&
                   (name[5] == '\0' || name[5] == ' ' || name[5] == '\t')) {
            char *arg = name + 5;
            trim(arg);
            begin_layer(ps, arg);
        } else {
            fail_at(ps, ps->line, "unknown section [%s] (expected [network] or [layer NAME])",
                    name);
        }
        return;
    }
    if (strcmp(name, "platform") == 0) {
        if (ps->platform_line) {
            fail_at(ps, ps->line, "second [platform] section (expected one; the first is on "
                    "line %d)", ps->platform_line);
            return;
        }
        ps->platform_line = ps->line;
        ps->sec.type = SEC_PLATFORM;
    } else if (strcmp(name, "training") == 0) {
        if (ps->training_line) {
            fail_at(ps, ps->line, "second [training] section (expected one; the first is on "
                    "line %d)", ps->training_line);
            return;
        }
        ps->training_line = ps->line;
        ps->sec.type = SEC_TRAINING;
    } else if (strncmp(name, "gpu", 3) == 0 && (name[3] == ' ' || name[3] == '\t')) {
        char *arg = name + 3;
        trim(arg);
        begin_gpu(ps, arg);
    } else {
        fail_at(ps, ps->line,
                "unknown section [%s] (expected [platform], [training] or [gpu N])", name);
    }
}

/* Whether line (n bytes, not terminated) is a comment from its start:
 * blanks, then ; or # (after a byte order mark on the first line). */
static bool whole_line_comment(const char *line, size_t n, bool first)
{
    size_t i = first ? text_bom_len(line, n) : 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    return i < n && (line[i] == ';' || line[i] == '#');
}

/* inih's reader: hand over one line, refusing overlong ones but for
 * comments. */
static char *reader(char *str, int num, void *stream)
{
    struct parser *ps = stream;
    if (ps->err_line || ps->pos >= ps->len)
        return NULL;
    const char *start = ps->text + ps->pos;
    const char *nl = memchr(start, '\n', ps->len - ps->pos);
    size_t n = nl ? (size_t)(nl - start) : ps->len - ps->pos;
    ps->pos += n + (nl ? 1 : 0);
    ps->line++;
    if (n > 0 && start[n - 1] == '\r')
        n--;
    size_t limit = (size_t)num - 1 < SPEC_MAX_LINE ? (size_t)num - 1 : SPEC_MAX_LINE;
    if (n > limit && whole_line_comment(start, n, ps->line == 1)) {
        /* a comment says nothing to inih: any length (a pasted URL or
         * the command that made the file was refused past 199 bytes) */
        n = 1;
        start = ";";
    }
    if (n > limit) {
        fail_at(ps, ps->line, "line too long (%zu bytes; expected at most %zu)", n, limit);
        return NULL;
    }
    memcpy(str, start, n);
    str[n] = '\0';
    ps->line_indented = n > 0 && (str[0] == ' ' || str[0] == '\t');

    const char *p = ps->line == 1 ? text_skip_bom(str) : str;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '[') {
        section_begin(ps, p);
        /* inih would take an indented header after a key for more of
         * that key's value, while we have opened the section: it is a
         * header either way, as inih reads it unindented */
        if (p != str) {
            memmove(str, p, strlen(p) + 1);
            ps->line_indented = false;
        }
    }
    return str;
}

static int key_index(const struct key *keys, const char *name)
{
    for (int i = 0; keys[i].name; i++)
        if (strcmp(keys[i].name, name) == 0)
            return i;
    return -1;
}

/* what, unless the reason why already says what to write instead (in
 * parentheses, as "(expected ...)" or "(write the number out in full)") */
static const char *expected_or(const char *why, const char *what)
{
    return strchr(why, '(') ? "" : what;
}

/* Value parsers that report "bad value" with what was expected. */
static bool val_time(struct parser *ps, const char *key, const char *v, double *out)
{
    char why[160];
    if (units_parse_time(v, out, why, sizeof why) < 0) {
        fail_at(ps, ps->line, "bad %s '%s': %s%s", key, v, why,
                expected_or(why, " (expected a time from 0 to 10^12 ms, e.g. 1.9ms)"));
        return false;
    }
    return true;
}

static bool val_size(struct parser *ps, const char *key, const char *v, uint64_t *out)
{
    char why[160];
    if (units_parse_size(v, out, why, sizeof why) < 0) {
        fail_at(ps, ps->line, "bad %s '%s': %s%s", key, v, why,
                expected_or(why, " (expected a size below 16384 PiB, e.g. 12.8MB)"));
        return false;
    }
    return true;
}

static bool val_count(struct parser *ps, const char *key, const char *v, long min,
                      long max, long *out)
{
    char why[160];
    if (units_parse_count(v, min, max, out, why, sizeof why) < 0) {
        char range[96];
        snprintf(range, sizeof range, " (expected a whole number from %ld to %ld)", min, max);
        fail_at(ps, ps->line, "bad %s '%s': %s%s", key, v, why, expected_or(why, range));
        return false;
    }
    return true;
}

static bool val_string(struct parser *ps, const char *key, const char *v, char **out)
{
    if (v[0] == '\0') {
        fail_at(ps, ps->line, "empty %s (expected a name)", key);
        return false;
    }
    free(*out);
    *out = dup_str(v);
    if (!*out) {
        fail_at(ps, ps->line, "out of memory");
        return false;
    }
    return true;
}

static void network_key(struct parser *ps, int k, const char *v)
{
    struct spec_network *net = ps->net;
    if (ps->sec.type == SEC_NETWORK) {
        if (k == 0)
            val_string(ps, "name", v, &net->name);
        else if (k == 1)
            val_count(ps, "micro_batch", v, 1, 1000000000L, &net->micro_batch);
        else if (k == 2)
            val_string(ps, "source", v, &net->source);
        else
            val_count(ps, "tensor_parallel", v, 1, SPEC_MAX_GPUS, &net->tensor_parallel);
        return;
    }
    struct spec_layer *l = &net->layers[ps->sec.index];
    switch (k) {
    case 0: val_time(ps, "forward", v, &l->forward_ms); break;
    case 1: val_time(ps, "backward", v, &l->backward_ms); break;
    case 2: val_size(ps, "weights", v, &l->weights); break;
    case 3: val_size(ps, "activation", v, &l->activation); break;
    default: val_size(ps, "stored", v, &l->stored); break;
    }
}

static void platform_key(struct parser *ps, int k, const char *v)
{
    struct spec_platform *pl = ps->plat;
    char why[160];
    long n;
    switch (ps->sec.type) {
    case SEC_PLATFORM:
        switch (k) {
        case 0: val_string(ps, "name", v, &pl->name); break;
        case 1:
            if (val_count(ps, "gpus", v, 1, SPEC_MAX_GPUS, &n))
                pl->gpus = (int)n;
            break;
        case 2:
            if (val_size(ps, "memory", v, &pl->memory) && pl->memory == 0)
                fail_at(ps, ps->line, "memory %s (expected a size above 0)", v);
            break;
        case 3:
            val_size(ps, "reserved", v, &pl->reserved);
            ps->reserved_line = ps->line;
            break;
        case 4:
            if (units_parse_bandwidth(v, &pl->bandwidth, why, sizeof why) < 0)
                fail_at(ps, ps->line, "bad bandwidth '%s': %s%s", v, why,
                        expected_or(why, " (expected a rate above 0, e.g. 20GB/s)"));
            break;
        default: val_time(ps, "latency", v, &pl->latency_ms); break;
        }
        break;
    case SEC_GPU: {
        int i = ps->ngpu_sections - 1;
        if (val_size(ps, "memory", v, &ps->gpu_mem[i])) {
            ps->gpu_mem_line[i] = ps->line;
            if (ps->gpu_mem[i] == 0)
                fail_at(ps, ps->line, "memory %s (expected a size above 0)", v);
        }
        break;
    }
    default: /* training */
        switch (k) {
        case 0: val_count(ps, "micro_batches", v, 1, 1000000L, &pl->micro_batches); break;
        case 1:
            if (strcmp(v, "1f1b") == 0)
                pl->schedule = SPEC_SCHEDULE_1F1B;
            else if (strcmp(v, "pipedream") == 0)
                pl->schedule = SPEC_SCHEDULE_PIPEDREAM;
            else
                fail_at(ps, ps->line, "bad schedule '%s' (expected 1f1b or pipedream)", v);
            break;
        case 2:
            if (strcmp(v, "adam") == 0)
                pl->optimizer = SPEC_OPT_ADAM;
            else if (strcmp(v, "sgd") == 0)
                pl->optimizer = SPEC_OPT_SGD;
            else if (strcmp(v, "none") == 0)
                pl->optimizer = SPEC_OPT_NONE;
            else
                fail_at(ps, ps->line, "bad optimizer '%s' (expected adam, sgd or none)", v);
            break;
        default:
            if (units_parse_real(v, &pl->weight_factor, why, sizeof why) < 0)
                fail_at(ps, ps->line, "bad weight_factor '%s': %s (expected a number >= 1)",
                        v, why);
            else if (pl->weight_factor < 1 || pl->weight_factor > 1000)
                fail_at(ps, ps->line, "weight_factor %s out of range (expected 1 to 1000)", v);
            break;
        }
        break;
    }
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    struct parser *ps = user;
    char tbuf[SPEC_MAX_LINE + 16], list[160];
    (void)section;
    if (ps->err_line)
        return 1;
    if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]) {
        fail_at(ps, ps->line, "not an INI line (expected [section], key = value or a ; comment)");
        return 1;
    }
    if (ps->sec.type == SEC_NONE) {
        fail_at(ps, ps->line, "'%s' outside any section (expected a [%s] header first)",
                name, ps->kind == KIND_NETWORK ? "network" : "platform");
        return 1;
    }
    const struct key *keys = section_keys(ps->sec.type);
    int k = key_index(keys, name);
    const char *title = section_title(ps, tbuf, sizeof tbuf);
    if (k < 0) {
        key_list(keys, list, sizeof list);
        fail_at(ps, ps->line, "unknown key '%s' in %s (expected %s)", name, title, list);
        return 1;
    }
    if (ps->sec.seen & (1u << k)) {
        if (ps->line_indented)
            fail_at(ps, ps->line, "indented line continues '%s' (continuation lines are "
                    "not allowed; expected key = value)", name);
        else
            fail_at(ps, ps->line, "'%s' given twice in %s (expected it once)", name, title);
        return 1;
    }
    ps->sec.seen |= 1u << k;
    if (value[0] == '\0') {
        fail_at(ps, ps->line, "'%s' has no value (expected %s = VALUE)", name, name);
        return 1;
    }
    if (ps->kind == KIND_NETWORK)
        network_key(ps, k, value);
    else
        platform_key(ps, k, value);
    return 1;
}

static bool text_is_blank(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            return false;
    return true;
}

/* Run inih over the text; afterwards ps->err_line says whether it failed. */
static void parse_text(struct parser *ps)
{
    /* old Mac line ends (a CR alone, no LF anywhere) make the whole file
     * one line, whose first header then seems to run on: say what it is
     * (a lone CR in a name of a file with LFs stays part of the name) */
    const char *cr = memchr(ps->text, '\r', ps->len);
    if (cr && (size_t)(cr - ps->text) + 1 < ps->len && !memchr(ps->text, '\n', ps->len)) {
        fail_at(ps, 1, "lines that end in a carriage return alone (expected LF or CRLF line "
                "ends)");
        return;
    }
    int rc = ini_parse_stream(reader, ps, handler, ps);
    if (!ps->err_line)
        section_end(ps);
    /* a line inih cannot read in a section is why a key is missing there
     * ("forward 1ms"): that line is the one to name */
    bool inside = ps->missing_to && rc > ps->err_line && rc <= ps->missing_to;
    if (rc > 0 && (!ps->err_line || rc < ps->err_line || inside)) {
        ps->err_line = 0;
        fail_at(ps, rc, "not an INI line (expected [section], key = value or a ; comment)");
    } else if (rc < 0 && !ps->err_line) {
        fail_at(ps, 1, "out of memory");
    }
}

static void parser_init(struct parser *ps, enum kind kind, const char *text,
                        const char *label, char *err, size_t errlen)
{
    memset(ps, 0, sizeof *ps);
    ps->kind = kind;
    ps->text = text;
    ps->len = strlen(text);
    ps->label = label;
    ps->err = err;
    ps->errlen = errlen;
}

struct spec_network *spec_network_parse(const char *text, const char *label,
                                        char *err, size_t errlen)
{
    struct parser ps;
    parser_init(&ps, KIND_NETWORK, text, label, err, errlen);
    ps.net = calloc(1, sizeof *ps.net);
    if (!ps.net) {
        snprintf(err, errlen, "%s: out of memory", label);
        return NULL;
    }
    ps.net->tensor_parallel = 1;
    if (text_is_blank(text, ps.len)) {
        fail_at(&ps, 1, "empty file (expected a [network] section and [layer NAME] sections)");
        goto fail;
    }
    parse_text(&ps);
    free(ps.name_slot);
    if (ps.err_line)
        goto fail;
    if (!ps.network_line) {
        fail_at(&ps, 1, "no [network] section (expected [network] with name and micro_batch)");
        goto fail;
    }
    check_required(&ps, network_keys, ps.network_seen, ps.network_line, "[network]");
    if (ps.err_line)
        goto fail;
    if (ps.net->nlayers == 0) {
        fail_at(&ps, ps.network_line, "network '%s' has no layers (expected [layer NAME] "
                "sections)", ps.net->name);
        goto fail;
    }
    return ps.net;
fail:
    spec_network_free(ps.net);
    return NULL;
}

struct spec_platform *spec_platform_parse(const char *text, const char *label,
                                          char *err, size_t errlen)
{
    struct parser ps;
    parser_init(&ps, KIND_PLATFORM, text, label, err, errlen);
    struct spec_platform *pl = ps.plat = calloc(1, sizeof *pl);
    if (!pl) {
        snprintf(err, errlen, "%s: out of memory", label);
        return NULL;
    }
    pl->schedule = SPEC_SCHEDULE_1F1B;
    if (text_is_blank(text, ps.len)) {
        fail_at(&ps, 1, "empty file (expected [platform] and [training] sections)");
        goto fail;
    }
    parse_text(&ps);
    if (ps.err_line)
        goto fail;
    if (!ps.platform_line) {
        fail_at(&ps, 1, "no [platform] section (expected [platform] with name, gpus, "
                "memory, reserved, bandwidth and latency)");
        goto fail;
    }
    check_required(&ps, platform_keys, ps.platform_seen, ps.platform_line, "[platform]");
    if (ps.err_line)
        goto fail;
    if (!ps.training_line) {
        fail_at(&ps, ps.platform_line, "no [training] section (expected [training] with "
                "micro_batches, schedule and optimizer or weight_factor)");
        goto fail;
    }
    check_required(&ps, training_keys, ps.training_seen, ps.training_line, "[training]");
    if (ps.err_line)
        goto fail;
    bool has_opt = ps.training_seen & (1u << 2), has_factor = ps.training_seen & (1u << 3);
    if (has_opt && has_factor) {
        fail_at(&ps, ps.training_line, "[training] has both optimizer and weight_factor "
                "(expected one of them)");
        goto fail;
    }
    if (!has_opt && !has_factor) {
        fail_at(&ps, ps.training_line, "[training] has no optimizer (expected optimizer = "
                "adam, sgd or none, or weight_factor = N)");
        goto fail;
    }
    if (has_factor)
        pl->optimizer = SPEC_OPT_FACTOR;
    else
        pl->weight_factor = spec_optimizer_factor(pl->optimizer);
    if (pl->memory <= pl->reserved) {
        fail_at(&ps, ps.reserved_line ? ps.reserved_line : ps.platform_line,
                "memory is not above reserved (expected memory > reserved)");
        goto fail;
    }
    pl->gpu_memory = malloc((size_t)pl->gpus * sizeof *pl->gpu_memory);
    if (!pl->gpu_memory) {
        fail_at(&ps, 1, "out of memory");
        goto fail;
    }
    for (int g = 0; g < pl->gpus; g++)
        pl->gpu_memory[g] = pl->memory;
    for (int i = 0; i < ps.ngpu_sections; i++) {
        int g = ps.gpu_lines[2 * i];
        if (g >= pl->gpus) {
            fail_at(&ps, ps.gpu_lines[2 * i + 1], "[gpu %d] but the platform has %d GPU%s "
                    "(expected N from 0 to %d)", g, pl->gpus, pl->gpus == 1 ? "" : "s",
                    pl->gpus - 1);
            goto fail;
        }
        if (ps.gpu_mem[i] <= pl->reserved) {
            fail_at(&ps, ps.gpu_mem_line[i], "memory of GPU %d is not above reserved "
                    "(expected memory > reserved)", g);
            goto fail;
        }
        pl->gpu_memory[g] = ps.gpu_mem[i];
    }
    free(ps.gpu_lines);
    free(ps.gpu_mem);
    free(ps.gpu_mem_line);
    return pl;
fail:
    free(ps.gpu_lines);
    free(ps.gpu_mem);
    free(ps.gpu_mem_line);
    spec_platform_free(pl);
    return NULL;
}

struct spec_network *spec_network_load(const char *path, char *err, size_t errlen)
{
    char *text = fileio_read(path, NULL, err, errlen);
    if (!text)
        return NULL;
    struct spec_network *net = spec_network_parse(text, path, err, errlen);
    free(text);
    return net;
}

struct spec_platform *spec_platform_load(const char *path, char *err, size_t errlen)
{
    char *text = fileio_read(path, NULL, err, errlen);
    if (!text)
        return NULL;
    struct spec_platform *pl = spec_platform_parse(text, path, err, errlen);
    free(text);
    return pl;
}

void spec_network_free(struct spec_network *net)
{
    if (!net)
        return;
    for (int i = 0; i < net->nlayers; i++)
        free(net->layers[i].name);
    free(net->layers);
    free(net->name);
    free(net->source);
    free(net);
}

void spec_platform_free(struct spec_platform *plat)
{
    if (!plat)
        return;
    free(plat->name);
    free(plat->gpu_memory);
    free(plat);
}

int spec_network_write(FILE *out, const struct spec_network *net,
                       const char *const *comment_lines)
{
    char t1[64], t2[64], s1[64], s2[64], s3[64];
    for (const char *const *c = comment_lines; c && *c; c++)
        fprintf(out, "; %s\n", *c);
    if (comment_lines && *comment_lines)
        fputc('\n', out);
    fprintf(out, "[network]\nname = %s\nmicro_batch = %ld\n", net->name, net->micro_batch);
    if (net->source)
        fprintf(out, "source = %s\n", net->source);
    if (net->tensor_parallel > 1)
        fprintf(out, "tensor_parallel = %ld\n", net->tensor_parallel);
    for (int i = 0; i < net->nlayers; i++) {
        const struct spec_layer *l = &net->layers[i];
        fprintf(out, "\n[layer %s]\nforward = %s\nbackward = %s\nweights = %s\n"
                "activation = %s\n", l->name,
                units_write_time(l->forward_ms, t1, sizeof t1),
                units_write_time(l->backward_ms, t2, sizeof t2),
                units_write_size(l->weights, s1, sizeof s1),
                units_write_size(l->activation, s2, sizeof s2));
        if (l->stored != l->activation)
            fprintf(out, "stored = %s\n", units_write_size(l->stored, s3, sizeof s3));
    }
    return ferror(out) ? -1 : 0;
}

const char *spec_schedule_name(enum spec_schedule s)
{
    return s == SPEC_SCHEDULE_PIPEDREAM ? "pipedream" : "1f1b";
}

const char *spec_optimizer_name(enum spec_optimizer o)
{
    switch (o) {
    case SPEC_OPT_ADAM: return "adam";
    case SPEC_OPT_SGD: return "sgd";
    case SPEC_OPT_NONE: return "none";
    default: return "weight_factor";
    }
}

/* Bytes per parameter byte: Adam keeps weights, gradients and two moments;
 * plain SGD weights and gradients; "none" the weights alone. */
double spec_optimizer_factor(enum spec_optimizer o)
{
    switch (o) {
    case SPEC_OPT_ADAM: return 4;
    case SPEC_OPT_SGD: return 2;
    default: return 1;
    }
}

double spec_network_compute_ms(const struct spec_network *net)
{
    double t = 0;
    for (int i = 0; i < net->nlayers; i++)
        t += net->layers[i].forward_ms + net->layers[i].backward_ms;
    return t;
}

double spec_network_weights(const struct spec_network *net)
{
    double w = 0;    /* 64-bit sizes near 2^64 would wrap in a uint64_t sum */
    for (int i = 0; i < net->nlayers; i++)
        w += (double)net->layers[i].weights;
    return w;
}
