/* cmd_import: `pipeplan import pipedream GRAPH.txt --micro-batch N ...`,
 * a profiler's graph turned into a network file. */
#include "import.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fileio.h"
#include "report.h"
#include "spec.h"
#include "text.h"
#include "units.h"

#define TAIL_MAX 120    /* comment lines stay well inside a spec line */
#define MAX_NOTES 8

static const char help_text[] =
    "usage: " CLI_USAGE_IMPORT_WRAPPED " [--note TEXT]...\n"
    "Convert a PipeDream profile (graph.txt) into a pipeplan network file.\n"
    "\n"
    CLI_HELP_IMPORT
    "  --help                   show this help\n"
    "\n"
    "--micro-batch: for image models divide the Input node's activation_size by\n"
    "the bytes of one sample. The DAG is linearised in topological order\n"
    "(smallest node number first); each cut carries every output still needed\n"
    "later. Input nodes get no compute time (it is data loading).\n";

#define EXPECTED_USAGE " (expected " CLI_USAGE_IMPORT ")"

#define usage_error(...) cli_usage_error("import", __VA_ARGS__)

/* The last two path components, safe to put in a comment line. */
static void path_tail(const char *path, char *buf, size_t len)
{
    const char *end = path + strlen(path);
    while (end > path && end[-1] == '/')
        end--;
    const char *s = end;
    for (int slashes = 0; s > path; s--)
        if (s[-1] == '/' && ++slashes == 2)
            break;
    size_t n = (size_t)(end - s), o = 0;
    if (n > TAIL_MAX) {
        s += n - (TAIL_MAX - 3);
        n = TAIL_MAX - 3;
        o = (size_t)snprintf(buf, len, "...");
    }
    for (size_t i = 0; i < n && o + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = c < 0x20 || c == 0x7f ? '_' : (char)c;
    }
    buf[o] = '\0';
}

int cmd_import(int argc, char **argv)
{
    const char *positional[2] = { NULL, NULL }, *out = NULL, *mb_text = NULL;
    const char *notes[MAX_NOTES];
    int npos = 0, nnotes = 0;
    bool force = false, options_done = false;
    static const char *const value_flags[] = { "--micro-batch", "-o", "--output", NULL };
    static const char *const repeatable[] = { "--note", NULL };

    cli_set_command("import");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1] != '\0') {
            const char *v = NULL;
            int r;
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
                return cli_help("import", help_text);
            } else if (strcmp(a, "--force") == 0) {
                force = true;
            } else if (strcmp(a, "--") == 0) {
                options_done = true;
            } else if ((r = cli_flag_match(value_flags, argc, argv, &i, &v)) != -1) {
                if (r < 0)
                    return 2;
                if (r == 0)
                    mb_text = v;
                else
                    out = v;
            } else if ((r = cli_flag_match_repeatable(repeatable, argc, argv, &i, &v)) != -1) {
                if (r < 0)
                    return 2;
                if (nnotes == MAX_NOTES)
                    return usage_error("too many --note options (expected at most %d)",
                                       MAX_NOTES);
                if (strlen(v) > TAIL_MAX || strpbrk(v, "\n\r"))
                    return usage_error("bad --note (expected one line of at most %d bytes)",
                                       TAIL_MAX);
                notes[nnotes++] = v;
            } else {
                return cli_unknown_option(a);
            }
        } else if (npos < 2) {
            positional[npos++] = a;
        } else {
            return usage_error("unexpected argument '%s'" EXPECTED_USAGE, a);
        }
    }
    if (npos == 0)
        return usage_error("missing the profile format" EXPECTED_USAGE);
    if (strcmp(positional[0], "pipedream") != 0)
        return usage_error("unknown profile format '%s' (expected 'pipedream')",
                           positional[0]);
    if (npos < 2)
        return usage_error("missing GRAPH.txt, PipeDream's profile" EXPECTED_USAGE);
    if (!mb_text)
        return usage_error("missing --micro-batch N (expected the samples per batch the "
                           "profile was measured at)");
    long micro_batch;
    char why[SPEC_ERR_LEN];
    if (units_parse_count(mb_text, 1, 1000000000L, &micro_batch, why, sizeof why) < 0)
        return usage_error("bad --micro-batch '%s': %s%s", mb_text, why,
                           strstr(why, "(expected") ? "" : " (expected a count of samples)");

    if (force && !out)   /* as solve says: nothing would be overwritten */
        return usage_error("--force without -o FILE (expected -o FILE to overwrite)");
    const char *graph = positional[1];
    /* refuse before any work; fileio checks again when it renames */
    char perr[SPEC_ERR_LEN];
    if (out && fileio_probe(out, force, perr, sizeof perr) < 0) {
        text_eprintf("pipeplan import: %s\n", perr);
        return 2;
    }

    char err[SPEC_ERR_LEN];
    char *text = fileio_read(graph, NULL, err, sizeof err);
    if (!text) {
        text_eprintf("%s\n", err);
        return 2;
    }
    char note[SPEC_ERR_LEN];
    struct spec_network *net = import_pipedream(text, graph, micro_batch, note, sizeof note,
                                                err, sizeof err);
    free(text);
    if (!net) {
        text_eprintf("%s\n", err);
        return 2;
    }
    if (note[0])
        text_eprintf("%s\n", note);

    char tail[TAIL_MAX + 16], from[TAIL_MAX + 64], batch[96];
    path_tail(graph, tail, sizeof tail);
    snprintf(from, sizeof from, "source file: %s", tail);
    snprintf(batch, sizeof batch, "times and sizes refer to a micro-batch of %ld sample%s",
             micro_batch, report_s(micro_batch));
    const char *comments[8 + MAX_NOTES] = {
        "numbers measured by the PipeDream profiler (msr-fiddle/pipedream),",
        "MIT licence: see LICENSE.pipedream beside this file",
        from,
        batch,
        "the DAG was linearised in topological order, each cut carrying every",
        "output still needed later; Input nodes have no compute (data loading)",
    };
    for (int k = 0; k < nnotes; k++)
        comments[6 + k] = notes[k];
    comments[6 + nnotes] = NULL;
    int rc = cli_write_network("import", out, force, net, comments);
    spec_network_free(net);
    return rc;
}
