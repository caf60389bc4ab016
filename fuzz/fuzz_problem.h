/* fuzz_problem: the problem the plan-file and --split harnesses read
 * against: a small transformer (pipeplan gen transformer --layers 8
 * --hidden 512 --heads 8 --ffn 2048 --vocab 1000 --seq 128 --gpu A100,
 * 11 layers, Megatron's layout applies) on 4 GPUs (fuzz/problem/), under
 * 1F1B and PipeDream, and on 3 GPUs. Built once; the harnesses never
 * free it. */
#ifndef PIPEPLAN_FUZZ_PROBLEM_H
#define PIPEPLAN_FUZZ_PROBLEM_H

#include "fuzz.h"
#include "problem.h"
#include "spec.h"

/* fuzz/problem/network.ini and platform.ini, embedded by src/embed.sh */
extern const char fuzz_network_text[];
extern const char fuzz_platform_text[];

#define FUZZ_PROBLEMS 3

/* Problem k < FUZZ_PROBLEMS: 0 as in the files, 1 with the PipeDream
 * schedule, 2 on 3 GPUs. */
static inline const struct problem *fuzz_problem(int k)
{
    static struct problem *pbs[FUZZ_PROBLEMS];
    if (!pbs[k]) {
        char err[SPEC_ERR_LEN];
        struct spec_network *net = spec_network_parse(fuzz_network_text, "net", err, sizeof err);
        FUZZ_ASSERT(net, "%s", err);
        struct spec_platform *plat = spec_platform_parse(fuzz_platform_text, "plat", err,
                                                         sizeof err);
        FUZZ_ASSERT(plat, "%s", err);
        struct knobs kn;
        knobs_init(&kn);
        if (k == 1)
            kn.schedule = SPEC_SCHEDULE_PIPEDREAM;
        if (k == 2)
            kn.gpus = 3;
        pbs[k] = problem_create(net, plat, &kn, err, sizeof err);
        FUZZ_ASSERT(pbs[k], "%s", err);
        spec_network_free(net);
        spec_platform_free(plat);
    }
    return pbs[k];
}

#endif
