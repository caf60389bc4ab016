/* cmd_gen: `pipeplan gen transformer ...`, a network file computed from a
 * transformer's shape (the model is src/transformer.c). */
#include "text.h"
#include "transformer.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"
#include "spec.h"
#include "units.h"

static const char help_text[] =
    "usage: " CLI_USAGE_GEN "\n"
    "Write a network file for a decoder-only transformer (GPT-3 or Llama style):\n"
    "layers tok_embeddings, layers.0 .. layers.N-1, norm, output, each with its\n"
    "forward and backward time, weights, stored activations and cut size.\n"
    "\n"
    CLI_HELP_GEN
    "  --help                   show this help\n"
    "\n"
    "Without --preset, --layers, --hidden, --heads, --ffn, --vocab and --seq are\n"
    "required. Times are GEMM FLOPs at MFU x the GPU's dense peak, plus the\n"
    "tensor-parallel group's collectives; stored activations follow Korthikanti\n"
    "et al. 2022. The file's header records the command, every formula and its\n"
    "sources. See pipeplan(1).\n";

#define SEE_HELP " (see pipeplan gen --help)"

/* Limits keep every byte count inside 64 bits (S*S*A*B*p < 2^63). */
#define MAX_HIDDEN 262144L
#define MAX_HEADS 1024L
#define MAX_FFN 1048576L
#define MAX_VOCAB 16777216L
#define MAX_SEQ 1048576L
#define MAX_MICRO_BATCH 1024L
#define MAX_COMMAND 2048
#define MAX_WORD 160           /* quoted, behind "; " and two blanks, within SPEC_MAX_LINE */

#define usage_error(...) cli_usage_error("gen", __VA_ARGS__)

/* A count flag: its text and where the value goes. */
struct count_flag {
    const char *flag;
    long min, max;
    const char *what;        /* "(expected ...)" text */
    const char *text;        /* NULL: not given */
    long value;
};

enum { F_LAYERS, F_HIDDEN, F_HEADS, F_KV, F_FFN, F_VOCAB, F_SEQ, F_MB, F_TP, NCOUNT };

struct gen_args {
    struct count_flag counts[NCOUNT];
    const char *preset, *dtype, *gpu, *tp_bandwidth, *mfu, *recompute, *attention, *out;
    bool gated, tied, force;
};

static int parse_args(int argc, char **argv, struct gen_args *g)
{
    /* the value flags: these strings, then the counts in g->counts' order */
    const char **strs[] = { &g->preset, &g->dtype, &g->gpu, &g->tp_bandwidth, &g->mfu,
                            &g->recompute, &g->attention, &g->out, &g->out };
    enum { NSTR = sizeof strs / sizeof strs[0] };
    const char *names[NSTR + NCOUNT + 1] = { "--preset", "--dtype", "--gpu", "--tp-bandwidth",
                                             "--mfu", "--recompute", "--attention", "-o",
                                             "--output" };
    for (int k = 0; k < NCOUNT; k++)
        names[NSTR + k] = g->counts[k].flag;
    names[NSTR + NCOUNT] = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return cli_help("gen", help_text);
        }
        if (strcmp(a, "--gated") == 0) {
            g->gated = true;
            continue;
        }
        if (strcmp(a, "--tied-embeddings") == 0) {
            g->tied = true;
            continue;
        }
        if (strcmp(a, "--force") == 0) {
            g->force = true;
            continue;
        }
        const char *v = NULL;
        int r = cli_flag_match(names, argc, argv, &i, &v);
        if (r == -2)
            return 2;
        if (r >= NSTR)
            g->counts[r - NSTR].text = v;
        else if (r >= 0)
            *strs[r] = v;
        else if (a[0] == '-')
            return cli_unknown_option(a);
        else
            return usage_error("unexpected argument '%s'" SEE_HELP, a);
    }
    return -1;   /* go on */
}

/* The command line as run, without the output options, quoted for a
 * shell where needed. */
static int command_text(int argc, char **argv, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "pipeplan");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--force") == 0)
            continue;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            i++;
            continue;
        }
        if (strncmp(a, "--output=", 9) == 0 || strncmp(a, "-o=", 3) == 0)
            continue;
        bool plain = a[0] != '\0';
        for (const char *c = a; *c; c++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=/:+-",
                        *c))
                plain = false;
        if (o + strlen(a) + 4 >= len)
            return -1;
        /* a word keeps a header line of its own: within the line a file may have */
        if (strlen(a) > MAX_WORD)
            return -2;
        if (plain) {
            o += (size_t)snprintf(buf + o, len - o, " %s", a);
            continue;
        }
        buf[o++] = ' ';
        buf[o++] = '\'';
        for (const char *c = a; *c && o + 6 < len; c++) {
            unsigned char u = (unsigned char)*c;
            if (u == '\'') {
                memcpy(buf + o, "'\\''", 4);
                o += 4;
            } else {
                buf[o++] = u < 0x20 || u == 0x7f ? '?' : (char)u;
            }
        }
        buf[o++] = '\'';
        buf[o] = '\0';
    }
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    struct gen_args g = {
        .counts = {
            [F_LAYERS] = { "--layers", 1, SPEC_MAX_LAYERS - 3, "a count of transformer layers",
                           NULL, 0 },
            [F_HIDDEN] = { "--hidden", 1, MAX_HIDDEN, "the hidden size", NULL, 0 },
            [F_HEADS] = { "--heads", 1, MAX_HEADS, "a count of attention heads", NULL, 0 },
            [F_KV] = { "--kv-heads", 1, MAX_HEADS, "a count of key/value heads", NULL, 0 },
            [F_FFN] = { "--ffn", 1, MAX_FFN, "the MLP's inner size", NULL, 0 },
            [F_VOCAB] = { "--vocab", 1, MAX_VOCAB, "the vocabulary size", NULL, 0 },
            [F_SEQ] = { "--seq", 1, MAX_SEQ, "a sequence length in tokens", NULL, 0 },
            [F_MB] = { "--micro-batch", 1, MAX_MICRO_BATCH, "sequences per micro-batch", NULL,
                       0 },
            [F_TP] = { "--tensor-parallel", 1, SPEC_MAX_GPUS, "GPUs per tensor-parallel group",
                       NULL, 0 },
        },
    };
    cli_set_command("gen");
    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") != 0 &&
                      strcmp(argv[1], "-h") != 0))
        return usage_error("missing the model family (expected 'transformer')" SEE_HELP);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        return cli_help("gen", help_text);
    }
    if (strcmp(argv[1], "transformer") != 0)
        return usage_error("unknown model family '%s' (expected 'transformer')", argv[1]);
    int rc = parse_args(argc, argv, &g);
    if (rc >= 0)
        return rc;

    /* numbers first: each range-checked, naming the flag */
    char why[SPEC_ERR_LEN];
    for (int k = 0; k < NCOUNT; k++) {
        struct count_flag *c = &g.counts[k];
        if (c->text && units_parse_count(c->text, c->min, c->max, &c->value, why,
                                         sizeof why) < 0)
            return usage_error("bad %s '%s': %s%s", c->flag, c->text, why,
                               strstr(why, "(expected") ? "" : " (expected a whole number)");
    }

    /* the shape: a preset, overridden by explicit flags */
    struct transformer_shape sh = { 0 };
    char name[64];
    char source[256];
    const struct transformer_shape *preset = NULL;
    if (g.preset) {
        preset = transformer_preset(g.preset);
        if (!preset) {
            char list[256] = "";
            for (int i = 0; i < transformer_preset_count(); i++) {
                strcat(list, i ? ", " : "");
                strcat(list, transformer_preset_at(i)->name);
            }
            return usage_error("unknown --preset '%s' (expected one of %s)", g.preset, list);
        }
        sh = *preset;
    } else {
        char missing[160] = "";
        const int required[] = { F_LAYERS, F_HIDDEN, F_HEADS, F_FFN, F_VOCAB, F_SEQ };
        for (int i = 0; i < 6; i++)
            if (!g.counts[required[i]].text) {
                strcat(missing, missing[0] ? ", " : "");
                strcat(missing, g.counts[required[i]].flag);
            }
        if (missing[0])
            return usage_error("missing %s (expected --preset NAME, or all of --layers, "
                               "--hidden, --heads, --ffn, --vocab and --seq)", missing);
    }
    long *fields[] = { &sh.layers, &sh.hidden, &sh.heads, &sh.kv_heads, &sh.ffn, &sh.vocab };
    for (int k = F_LAYERS; k <= F_VOCAB; k++)
        if (g.counts[k].text)
            *fields[k] = g.counts[k].value;
    /* without --kv-heads: a grouped preset keeps its groups, else one per head */
    if (!g.counts[F_KV].text)
        sh.kv_heads = preset && preset->kv_heads != preset->heads ? preset->kv_heads : sh.heads;
    if (g.gated)
        sh.gated = true;
    if (g.tied)
        sh.tied = true;
    if (sh.kv_heads > sh.heads && !g.counts[F_KV].text)
        return usage_error("the preset's %ld kv heads are more than --heads %ld (expected "
                           "--kv-heads at most the query heads)", sh.kv_heads, sh.heads);
    if (sh.kv_heads > sh.heads)
        return usage_error("--kv-heads %ld is more than --heads %ld (expected at most the "
                           "query heads)", sh.kv_heads, sh.heads);

    struct transformer_run run = {
        .seq = g.counts[F_SEQ].text ? g.counts[F_SEQ].value : sh.seq,
        .micro_batch = g.counts[F_MB].text ? g.counts[F_MB].value : 1,
        .tp = g.counts[F_TP].text ? g.counts[F_TP].value : 1,
        .mfu = TRANSFORMER_DEFAULT_MFU,
    };
    if (sh.gated)
        sh.positions = 0;                   /* RoPE */
    else if (!preset || preset->gated)
        sh.positions = run.seq;             /* learned, one row per position */
    /* a flag that repeats the preset's own value changes nothing */
    bool overridden = preset && (sh.layers != preset->layers || sh.hidden != preset->hidden ||
                                 sh.heads != preset->heads || sh.kv_heads != preset->kv_heads ||
                                 sh.ffn != preset->ffn || sh.vocab != preset->vocab ||
                                 sh.gated != preset->gated || sh.tied != preset->tied);
    if (overridden) {
        snprintf(name, sizeof name, "%s-modified", preset->name);
        snprintf(source, sizeof source, "%s; shape flags of the command override it",
                 preset->source);
        sh.name = name;
        sh.source = source;
    } else if (!preset) {
        sh.name = NULL;
        sh.source = NULL;
    }

    if (!g.gpu)
        return usage_error("missing --gpu (expected V100, A100, H100 or H200)");
    int v = transformer_gpu_parse(g.gpu);
    if (v < 0)
        return usage_error("bad --gpu '%s' (expected V100, A100, H100 or H200)", g.gpu);
    run.gpu = (enum transformer_gpu)v;
    run.dtype = run.gpu == TRANSFORMER_V100 ? TRANSFORMER_FP16 : TRANSFORMER_BF16;
    if (g.dtype) {
        if ((v = transformer_dtype_parse(g.dtype)) < 0)
            return usage_error("bad --dtype '%s' (expected bf16, fp16 or fp32)", g.dtype);
        run.dtype = (enum transformer_dtype)v;
    }
    if (g.recompute) {
        if ((v = transformer_recompute_parse(g.recompute)) < 0)
            return usage_error("bad --recompute '%s' (expected none, selective or full)",
                               g.recompute);
        run.recompute = (enum transformer_recompute)v;
    }
    if (g.attention) {
        if ((v = transformer_attention_parse(g.attention)) < 0)
            return usage_error("bad --attention '%s' (expected flash or standard)",
                               g.attention);
        run.attention = (enum transformer_attention)v;
    }
    if (g.mfu && units_parse_real(g.mfu, &run.mfu, why, sizeof why) < 0)
        return usage_error("bad --mfu '%s': %s (expected a fraction of the peak, 0 < X <= 1)",
                           g.mfu, why);
    if (g.mfu && (run.mfu <= 0 || run.mfu > 1))
        return usage_error("bad --mfu '%s' (expected a fraction of the peak, 0 < X <= 1)",
                           g.mfu);
    if (g.tp_bandwidth && (units_parse_bandwidth(g.tp_bandwidth, &run.tp_bandwidth, why,
                                                 sizeof why) < 0 || run.tp_bandwidth <= 0))
        return usage_error("bad --tp-bandwidth '%s' (expected a bandwidth above 0 with a "
                           "unit, e.g. 300GB/s)", g.tp_bandwidth);
    /* without a group there are no collectives for it to time: a typo
     * for --tensor-parallel left out, not a setting to drop in silence */
    if (g.tp_bandwidth && run.tp <= 1)
        return usage_error("--tp-bandwidth '%s' without --tensor-parallel (expected "
                           "--tensor-parallel T > 1: the bandwidth is the group's)",
                           g.tp_bandwidth);

    char err[SPEC_ERR_LEN];
    if (transformer_validate(&sh, &run, err, sizeof err) < 0)
        return usage_error("%s", err);

    char command[MAX_COMMAND];
    int ct = command_text(argc, argv, command, sizeof command);
    if (ct == -2)
        return usage_error("an argument too long to record in the file's header (expected "
                           "at most %d bytes each)", MAX_WORD);
    if (ct < 0)
        return usage_error("command line too long to record (expected at most %d bytes)",
                           MAX_COMMAND - 16);

    if (g.force && !g.out)   /* as solve says: nothing would be overwritten */
        return usage_error("--force without -o FILE (expected -o FILE to overwrite)");
    /* refuse before any work; fileio checks again when it renames */
    if (g.out && fileio_probe(g.out, g.force, err, sizeof err) < 0) {
        text_eprintf("pipeplan gen: %s\n", err);
        return 2;
    }

    struct spec_network *net = transformer_network(&sh, &run, err, sizeof err);
    char **header = net ? transformer_header(&sh, &run, command) : NULL;
    if (!net || !header) {
        text_eprintf("pipeplan gen: out of memory\n");
        spec_network_free(net);
        return 1;
    }
    rc = cli_write_network("gen", g.out, g.force, net, (const char *const *)header);
    transformer_header_free(header);
    spec_network_free(net);
    return rc;
}
