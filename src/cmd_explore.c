/* pipeplan [NETWORK.ini [PLATFORM.ini]]: the live explorer. Everything
 * that can be wrong with the files or flags is reported here, before the
 * terminal is touched. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "planfile.h"
#include "split.h"
#include "problem.h"
#include "spec.h"
#include "text.h"
#include "tui.h"

static const char explore_usage[] =
    "usage: pipeplan [NETWORK.ini [PLATFORM.ini]] [options]\n"
    "  Opens the live explorer (the built-in example when no file is given;\n"
    "  the built-in platform when only a network is given).\n"
    CLI_HELP_KNOBS
    CLI_HELP_ILP(CLI_EXPLORE_DEFAULT_SECONDS)
    CLI_HELP_YOURS
    "  Press ? in the explorer for its keys.\n";

/* the help text's default is the explorer's */
_Static_assert((int)TUI_TIME_LIMIT == 30,
               "CLI_EXPLORE_DEFAULT_SECONDS must say TUI_TIME_LIMIT");

int cmd_explore(int argc, char **argv)
{
    struct tui_options opt;
    memset(&opt, 0, sizeof opt);
    knobs_init(&opt.knobs);
    struct ilp_args ilp = { TUI_TIME_LIMIT, 0, 1, -1, NULL };
    const char *files[2] = { NULL, NULL };
    int nfiles = 0;
    bool options_done = false;

    cli_set_command(NULL);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            int r = cli_parse_knob(argc, argv, &i, &opt.knobs);
            if (r == 0)
                r = cli_parse_ilp(argc, argv, &i, &ilp);
            if (r < 0)
                return 2;
            if (r > 0)
                continue;
            static const char *const yours[] = { "--split", "--plan", NULL };
            const char *v = NULL;
            int w = cli_flag_match(yours, argc, argv, &i, &v);
            if (w == -2)
                return 2;
            if (w >= 0) {
                if (opt.split || opt.plan_path) {
                    text_eprintf("pipeplan: %s after %s (expected one plan of yours: "
                            "--split or --plan, once)\n", yours[w],
                            opt.split ? "--split" : "--plan");
                    return 2;
                }
                if (w == 0)
                    opt.split = v;
                else
                    opt.plan_path = v;
                continue;
            }
            if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
                return cli_help(NULL, explore_usage);
            } else if (strcmp(arg, "--") == 0) {
                options_done = true;
            } else {
                return cli_unknown_option(arg);
            }
        } else if (nfiles < 2) {
            files[nfiles++] = arg;
        } else {
            text_eprintf("pipeplan: unexpected argument '%s' (expected "
                    "pipeplan [NETWORK.ini [PLATFORM.ini]] [options])\n", arg);
            return 2;
        }
    }
    opt.knobs.blocks = ilp.blocks;
    opt.time_limit = ilp.time_limit;
    opt.work_limit = ilp.work_limit;
    opt.threads = ilp.threads;
    opt.log_path = ilp.log_path;
    const char *const used[] = { files[0], files[1], opt.plan_path };
    const char *const used_as[] = { "the network file", "the platform file", "the plan file" };
    if (cli_check_log(ilp.log_path, used, used_as, 3) != 0)
        return 2;

    char err[SPEC_ERR_LEN];
    struct spec_network *net = files[0]
        ? spec_network_load(files[0], err, sizeof err)
        : spec_network_parse(default_network, default_network_path, err, sizeof err);
    if (!net) {
        text_eprintf("%s\n", err);
        return 2;
    }
    struct spec_platform *plat = files[1]
        ? spec_platform_load(files[1], err, sizeof err)
        : spec_platform_parse(default_platform, default_platform_path, err, sizeof err);
    if (!plat) {
        text_eprintf("%s\n", err);
        spec_network_free(net);
        return 2;
    }
    struct problem *pb = problem_create(net, plat, &opt.knobs, err, sizeof err);
    if (!pb) {
        text_eprintf("pipeplan: %s\n", err);
        spec_network_free(net);
        spec_platform_free(plat);
        return 2;
    }
    /* your plan is checked here too, before the terminal is touched */
    int bad = 0;
    if (opt.split) {
        int *gpu = malloc((size_t)pb->L * sizeof *gpu);
        if (!gpu || split_parse(opt.split, pb, gpu, err, sizeof err) < 0) {
            text_eprintf("pipeplan: bad --split '%s': %s\n", opt.split,
                    gpu ? err : "out of memory");
            bad = 1;
        }
        free(gpu);
    } else if (opt.plan_path) {
        struct plan *pl = planfile_load(opt.plan_path, pb, NULL, 0, err, sizeof err);
        if (!pl) {
            text_eprintf("%s\n", err);
            bad = 1;
        }
        plan_free(pl);
    }
    problem_free(pb);
    if (bad) {
        spec_network_free(net);
        spec_platform_free(plat);
        return 2;
    }

    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        text_eprintf("pipeplan: the explorer needs a terminal; use 'pipeplan solve "
                "NETWORK.ini PLATFORM.ini' for scripts\n");
        spec_network_free(net);
        spec_platform_free(plat);
        return 2;
    }
    opt.network_path = files[0];
    opt.platform_path = files[1];
    return tui_run(&opt, net, plat);
}
