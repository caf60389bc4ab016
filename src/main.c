/* pipeplan: plan pipeline-parallel training over GPUs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static void usage(FILE *out)
{
    fprintf(out,
        "usage: pipeplan [NETWORK.ini [PLATFORM.ini]] [knobs]\n"
        "                                     the live explorer (built-in example without files)\n"
        "       pipeplan check FILE...        validate network and platform files\n"
        "       pipeplan import pipedream GRAPH.txt --micro-batch N [-o OUT.ini] [--force]\n"
        "                                     turn a PipeDream profile into a network file\n"
        "       pipeplan solve NETWORK.ini PLATFORM.ini [--gpus N] [--memory SIZE]\n"
        "                      [--micro-batches M] [--schedule 1f1b|pipedream]\n"
        "                      [--layout any|contiguous] [--weight-factor PHI]\n"
        "                      [--planner NAME[,NAME...]|all] [--json]\n"
        "                                     plan with every planner, print a table or JSON\n"
        "       pipeplan --help | --version\n"
        "\n"
        "Network files describe a chain of layers (time, weights, activation sizes);\n"
        "platform files the GPUs, links and training settings. See pipeplan(1).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cmd_explore(argc, argv);
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pipeplan %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (strcmp(cmd, "solve") == 0)
        return cmd_solve(argc - 1, argv + 1);
    /* anything else is the explorer's: files and knob flags */
    return cmd_explore(argc, argv);
}
