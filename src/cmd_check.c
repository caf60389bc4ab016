/* pipeplan check: validate spec files and print a one-screen summary. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"
#include "report.h"
#include "spec.h"
#include "text.h"
#include "torch_export.h"
#include "units.h"

enum file_kind { FILE_UNKNOWN, FILE_NETWORK, FILE_PLATFORM, FILE_SCHEDULE };

/* The first section header decides what a file is. */
static enum file_kind detect_kind(const char *text, int *line)
{
    *line = 1;
    for (const char *p = text_skip_bom(text); *p; (*line)++) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (*p == '[') {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (strncmp(p, "network", 7) == 0 || strncmp(p, "layer", 5) == 0)
                return FILE_NETWORK;
            if (strncmp(p, "platform", 8) == 0 || strncmp(p, "training", 8) == 0 ||
                strncmp(p, "gpu", 3) == 0)
                return FILE_PLATFORM;
            return FILE_UNKNOWN;
        }
        if (*p != ';' && *p != '#' && *p != '\n' && *p != '\0')
            return FILE_UNKNOWN;
        const char *nl = strchr(p, '\n');
        if (!nl || !nl[1])
            break;    /* the last line: no line after it to name */
        p = nl + 1;
    }
    return FILE_UNKNOWN;
}

static void summary_network(FILE *out, const char *label, const struct spec_network *net)
{
    char b1[32], b2[32], b3[32], e1[4 * SPEC_ERR_LEN], e2[4 * SPEC_ERR_LEN];
    double fwd = 0, bwd = 0;
    double stored = 0;      /* a uint64_t sum would wrap near 2^64 */
    uint64_t largest = 0;
    int largest_at = 0;
    for (int i = 0; i < net->nlayers; i++) {
        const struct spec_layer *l = &net->layers[i];
        fwd += l->forward_ms;
        bwd += l->backward_ms;
        stored += (double)l->stored;
        if (l->activation > largest) {
            largest = l->activation;
            largest_at = i;
        }
    }
    fprintf(out, "%s: network %s, %d layer%s, micro-batch of %ld sample%s\n",
            text_escape(label, e1, sizeof e1), text_escape(net->name, e2, sizeof e2),
            net->nlayers, report_s(net->nlayers), net->micro_batch,
            report_s(net->micro_batch));
    /* the figures are one GPU's share: 40.7 GiB of gpt3-175b's weights
     * read as the whole model's without this line */
    if (net->tensor_parallel > 1)
        fprintf(out, "  parallel     tensor, %ld GPUs a rank: times and "
                "sizes are one GPU's share\n", net->tensor_parallel);
    fprintf(out, "  compute      %s per micro-batch (forward %s, backward %s)\n",
            units_format_time(fwd + bwd, b1, sizeof b1), units_format_time(fwd, b2, sizeof b2),
            units_format_time(bwd, b3, sizeof b3));
    fprintf(out, "  weights      %s of parameters\n",
            units_format_size(spec_network_weights(net), b1, sizeof b1));
    fprintf(out, "  activations  largest %s (after %s), %s stored per micro-batch\n",
            units_format_size((double)largest, b1, sizeof b1),
            text_escape(net->layers[largest_at].name, e1, sizeof e1),
            units_format_size(stored, b2, sizeof b2));
    if (net->source)
        fprintf(out, "  source       %s\n", text_escape(net->source, e1, sizeof e1));
}

static void summary_platform(FILE *out, const char *label, const struct spec_platform *pl)
{
    char b1[32], b2[32], b3[32], e1[4 * SPEC_ERR_LEN], e2[4 * SPEC_ERR_LEN];
    fprintf(out, "%s: platform %s, %d GPU%s\n", text_escape(label, e1, sizeof e1),
            text_escape(pl->name, e2, sizeof e2), pl->gpus, report_s(pl->gpus));
    fprintf(out, "  memory       %s per GPU, %s reserved\n",
            units_format_size((double)pl->memory, b1, sizeof b1),
            units_format_size((double)pl->reserved, b2, sizeof b2));
    for (int g = 0; g < pl->gpus; g++)
        if (pl->gpu_memory[g] != pl->memory)
            fprintf(out, "  gpu %-8d %s (override)\n", g,
                    units_format_size((double)pl->gpu_memory[g], b1, sizeof b1));
    fprintf(out, "  links        %s, %s latency\n",
            units_format_bandwidth(pl->bandwidth, b1, sizeof b1),
            units_format_time(pl->latency_ms, b3, sizeof b3));
    if (pl->optimizer == SPEC_OPT_FACTOR)
        fprintf(out, "  training     %ld micro-batch%s, %s schedule, weight factor %g\n",
                pl->micro_batches, pl->micro_batches == 1 ? "" : "es", spec_schedule_name(pl->schedule), pl->weight_factor);
    else
        fprintf(out, "  training     %ld micro-batch%s, %s schedule, %s (weight factor %g)\n",
                pl->micro_batches, pl->micro_batches == 1 ? "" : "es", spec_schedule_name(pl->schedule),
                spec_optimizer_name(pl->optimizer), pl->weight_factor);
}

struct checked {
    enum file_kind kind;
    struct spec_network *net;
    struct spec_platform *plat;
    int stages, ranks, m;        /* FILE_SCHEDULE */
};

/* A sweep's CSV ("# pipeplan VERSION sweep" first): a comment line to the
 * spec reader, which then said "not a spec file" at its header row. */
static bool is_sweep(const char *text)
{
    const char *p = text_skip_bom(text);
    if (strncmp(p, "# pipeplan ", 11) != 0)
        return false;
    size_t n = strcspn(p, "\r\n");
    return n >= 17 && strncmp(p + n - 6, " sweep", 6) == 0;
}

/* Load one file of either kind; on error print it and return -1. */
static int check_text(const char *text, const char *label, struct checked *c)
{
    char err[SPEC_ERR_LEN];
    int line;
    memset(c, 0, sizeof *c);
    if (is_sweep(text)) {
        text_eprintf("%s:1: a sweep's CSV (pipeplan sweep writes it; expected a network, a "
                     "platform or a torch schedule CSV)\n", label);
        return -1;
    }
    if (torch_schedule_is(text, label)) {
        c->kind = FILE_SCHEDULE;
        int rc = torch_schedule_read(text, &c->stages, &c->ranks, &c->m, &line, err,
                                     sizeof err);
        if (rc == -2)
            text_eprintf("pipeplan check: out of memory\n");
        else if (rc < 0 && line > 0)
            text_eprintf("%s:%d: %s\n", label, line, err);
        else if (rc < 0)
            text_eprintf("%s: %s\n", label, err);
        return rc < 0 ? -1 : 0;
    }
    c->kind = detect_kind(text, &line);
    if (c->kind == FILE_UNKNOWN) {
        if (strspn(text, " \t\r\n") == strlen(text))
            text_eprintf("%s:1: empty file (expected a network or a platform file)\n",
                    label);
        else if (strstr(text, "\n[plan]") || strncmp(text, "[plan]", 6) == 0)
            text_eprintf("%s:%d: a plan file, which needs its network and GPUs (expected "
                         "a network or a platform file; check a plan with pipeplan solve "
                         "NETWORK.ini PLATFORM.ini --plan %s)\n", label, line, label);
        else
            text_eprintf("%s:%d: not a spec file (expected a [network] or [platform] "
                    "section first)\n", label, line);
        return -1;
    }
    if (c->kind == FILE_NETWORK)
        c->net = spec_network_parse(text, label, err, sizeof err);
    else
        c->plat = spec_platform_parse(text, label, err, sizeof err);
    if (!c->net && !c->plat) {
        text_eprintf("%s\n", err);
        return -1;
    }
    return 0;
}

static void checked_print(FILE *out, const char *label, const struct checked *c)
{
    char e[4 * SPEC_ERR_LEN];
    if (c->kind == FILE_NETWORK)
        summary_network(out, label, c->net);
    else if (c->kind == FILE_PLATFORM)
        summary_platform(out, label, c->plat);
    else
        fprintf(out, "%s: torch schedule (compute_only CSV), %d stage%s on %d rank%s, %d "
                "micro-batch%s: each stage on one rank with one F and one B per micro-batch, "
                "and the rows run without deadlock\n", text_escape(label, e, sizeof e), c->stages, report_s(c->stages),
                c->ranks, report_s(c->ranks), c->m, c->m == 1 ? "" : "es");
}

static void checked_free(struct checked *c)
{
    spec_network_free(c->net);
    spec_platform_free(c->plat);
}

int cmd_check(int argc, char **argv)
{
    /* the files, in order: after "--" every argument is one, even one
     * starting with '-'; before it --help anywhere, as the other commands
     * take it, and any other option is unknown */
    const char **files = malloc((size_t)argc * sizeof *files);
    if (!files) {
        text_eprintf("pipeplan check: out of memory\n");
        return 2;
    }
    int n = 0, failed = 0;
    const char *unknown = NULL;
    bool help = false, options = true;
    for (int i = 1; i < argc; i++) {
        if (options && strcmp(argv[i], "--") == 0)
            options = false;
        else if (options && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0))
            help = true;
        else if (options && argv[i][0] == '-' && argv[i][1] != '\0')
            unknown = unknown ? unknown : argv[i];
        else
            files[n++] = argv[i];
    }
    if (help || unknown || n == 0) {
        free(files);
        if (help)
            return cli_help("check", "usage: " CLI_USAGE_CHECK "\n"
                            "Validate network and platform files and summarise them; a torch\n"
                            "schedule CSV (solve --format torch-schedule) is checked as\n"
                            "torch.distributed.pipelining would run it.\n");
        if (unknown)
            text_eprintf("pipeplan check: unknown option '%s' (see pipeplan check --help)\n", unknown);
        else
            text_eprintf("pipeplan check: missing FILE (expected " CLI_USAGE_CHECK ")\n");
        return 2;
    }
    struct checked *all = calloc((size_t)n, sizeof *all);
    if (!all) {
        free(files);
        text_eprintf("pipeplan check: out of memory\n");
        return 2;
    }
    /* Validate everything first: on any error, nothing goes to stdout. */
    for (int i = 0; i < n; i++) {
        char err[SPEC_ERR_LEN];
        char *text = fileio_read(files[i], NULL, err, sizeof err);
        if (!text) {
            text_eprintf("%s\n", err);
            failed++;
            continue;
        }
        if (check_text(text, files[i], &all[i]) < 0)
            failed++;
        free(text);
    }
    for (int i = 0; i < n && !failed; i++) {
        if (i > 0)
            fputc('\n', stdout);
        checked_print(stdout, files[i], &all[i]);
    }
    /* a summary that could not be written is not a success */
    if (!failed && (ferror(stdout) || fflush(stdout) != 0)) {
        text_eprintf("pipeplan check: write error on standard output\n");
        failed = 1;
    }
    for (int i = 0; i < n; i++)
        checked_free(&all[i]);
    free(all);
    free(files);
    return failed ? 2 : 0;
}
