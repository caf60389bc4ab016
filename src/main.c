/* pipeplan: plan pipeline-parallel training over GPUs. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "text.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static const char help_text[] =
    "usage: pipeplan [NETWORK.ini [PLATFORM.ini]] [knob and ILP options]\n"
    "                 the live explorer (the built-in example without files)\n"
    "       " CLI_USAGE_CHECK "\n"
    "                 validate network and platform files (and torch schedule CSVs)\n"
    "       " CLI_USAGE_GEN "\n"
    "                 a network file computed from a transformer's shape\n"
    "       " CLI_USAGE_IMPORT_WRAPPED " [--note TEXT]...\n"
    "                 turn a PipeDream profile into a network file\n"
    "       " CLI_USAGE_SOLVE "\n"
    "                 every planner: a table, JSON or one plan (csv, plan file,\n"
    "                 megatron, deepspeed, torch, torch schedule)\n"
    "       " CLI_USAGE_SWEEP "\n"
    "                 every planner over a grid of settings, as CSV (resumable,\n"
    "                 in shards; --plot draws the frontier)\n"
    "       " CLI_USAGE_MERGE_WRAPPED "\n"
    "                 join the shards of a sweep\n"
    "       pipeplan --help [COMMAND] | --version\n"
    "\n"
    "Commands: check, gen, import, solve, sweep (each also takes --help). Any\n"
    "other first argument opens the explorer: an existing file is its network file.\n"
    "\n"
    "Knob options, for solve and the explorer (they override the files):\n"
    CLI_HELP_KNOBS
    "\n"
    "ILP options, for solve and the explorer:\n"
    CLI_HELP_ILP(CLI_SOLVE_DEFAULT_SECONDS " for solve, " CLI_EXPLORE_DEFAULT_SECONDS
                 " in the explorer")
    "\n"
    "Your plan, for solve and the explorer (the row \"your split\"):\n"
    CLI_HELP_YOURS
    "\n"
    "Options of solve only:\n"
    CLI_HELP_SOLVE_ONLY
    "\n"
    "Options of sweep (the ILP options above apply too, but --log):\n"
    CLI_HELP_SWEEP
    "\n"
    "Options of import:\n"
    CLI_HELP_IMPORT
    "\n"
    "Options of gen transformer:\n"
    CLI_HELP_GEN
    "\n"
    "In the explorer, press ? for its keys. Network files describe a chain of\n"
    "layers (time, weights, activation sizes); platform files the GPUs, links\n"
    "and training settings. Exit status: 0 success, 1 no plan fits (solve),\n"
    "2 bad input or usage (sweep: 1 settings absent from a merge, 129, 130 or\n"
    "143 stopped by SIGHUP, SIGINT or SIGTERM). See pipeplan(1).\n";

static const char *const commands[] = { "check", "gen", "import", "solve", "sweep", NULL };

/* Levenshtein distance, capped: anything above 3 is 3. */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 3;
    int row[33];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] < 3 ? row[lb] : 3;
}

/* A first argument that is no command, no option and no existing file, and
 * does not look like a path (no '/', no ".ini"), is a mistyped command:
 * say so in one line instead of "cannot open". Returns 1 if it said so. */
static int mistyped_command(const char *arg)
{
    struct stat st;
    size_t n = strlen(arg);
    if (arg[0] == '-' || strchr(arg, '/') || (n >= 4 && strcmp(arg + n - 4, ".ini") == 0) ||
        stat(arg, &st) == 0)
        return 0;
    const char *nearest = NULL;
    int best = 3;
    for (int c = 0; commands[c]; c++) {
        int d = edit_distance(arg, commands[c]);
        if (d < best) {
            best = d;
            nearest = commands[c];
        }
    }
    if (nearest)
        text_eprintf("pipeplan: '%s' is neither a command (check, gen, import, solve, sweep) nor a "
                "file; did you mean '%s'?\n", arg, nearest);
    else
        text_eprintf("pipeplan: '%s' is neither a command (check, gen, import, solve, sweep) nor a "
                "file (see pipeplan --help)\n", arg);
    return 1;
}

/* A command's own entry point, by name (NULL: not a command). */
static int (*command_entry(const char *name))(int, char **)
{
    static const struct { const char *name; int (*fn)(int, char **); } table[] = {
        { "check", cmd_check }, { "gen", cmd_gen }, { "import", cmd_import },
        { "solve", cmd_solve }, { "sweep", cmd_sweep },
    };
    for (size_t c = 0; c < sizeof table / sizeof table[0]; c++)
        if (strcmp(name, table[c].name) == 0)
            return table[c].fn;
    return NULL;
}

/* --version stands alone, and --help with at most a command's name (as
 * "git help commit"): "pipeplan --help extra" printed the whole help and
 * dropped the word without a sign. Returns 1 if there was a word it does
 * not take (and said so). */
static int extra_after(int argc, char **argv)
{
    if (argc < 3)
        return 0;
    if (strcmp(argv[1], "--version") == 0)
        text_eprintf("pipeplan: unexpected argument '%s' (expected pipeplan --version alone)\n",
                     argv[2]);
    else if (!command_entry(argv[2]))
        text_eprintf("pipeplan: '%s' is not a command (expected pipeplan %s alone, or with "
                     "check, gen, import, solve or sweep)\n", argv[2], argv[1]);
    else if (argc > 3)
        text_eprintf("pipeplan: unexpected argument '%s' (expected pipeplan %s %s alone)\n",
                     argv[3], argv[1], argv[2]);
    else
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    /* a write past the file size limit (ulimit -f) fails with EFBIG, which
     * the writers report, removing their temporary file, rather than
     * killing the process with it left behind */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2)
        return cmd_explore(argc, argv);
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (extra_after(argc, argv))
            return 2;
        if (argc == 3) {
            /* the command's own help, as "pipeplan CMD --help" gives it */
            static char flag[] = "--help";
            char *args[] = { argv[2], flag, NULL };
            return command_entry(argv[2])(2, args);
        }
        return cli_help(NULL, help_text);
    }
    if (strcmp(cmd, "--version") == 0) {
        if (extra_after(argc, argv))
            return 2;
        return cli_help(NULL, "pipeplan " PACKAGE_VERSION "\n");
    }
    int (*entry)(int, char **) = command_entry(cmd);
    if (entry)
        return entry(argc - 1, argv + 1);
    if (mistyped_command(cmd))
        return 2;
    /* anything else is the explorer's: files and knob flags */
    return cmd_explore(argc, argv);
}
