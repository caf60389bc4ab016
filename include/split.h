/* split: the allocations people write by hand or hand to a framework:
 * --split's list of first layers, Megatron-Core's pipeline layout string
 * (read and written) and DeepSpeed's `parts` boundary list. Only the
 * allocation (layer -> GPU); schedule.h turns it into a plan.
 * Pure C, no I/O. */
#ifndef PIPEPLAN_SPLIT_H
#define PIPEPLAN_SPLIT_H

#include <stddef.h>
#include "problem.h"

/* Longest layout string split_megatron_parse expands (Megatron itself
 * has no limit; this one keeps a typo like t*999999999 harmless). */
#define SPLIT_MAX_EXPANDED 1000000

/* Whether a --split value is in a runtime's own terms (megatron:,
 * deepspeed:, torchtitan:): that runtime runs the split in its 1F1B
 * order, and it is judged so (planner_judge_1f1b). */
bool split_runtime_order(const char *spec);

/* A --split value: "0,12,24,36" (the first layer of each stage, 0-based,
 * strictly increasing, the first 0; stage i on GPU i), "megatron:LAYOUT",
 * "megatron:--ARG ..." (Megatron's other pipeline arguments, counted as
 * its get_num_layers_to_build counts them), "deepspeed:PARTS" or
 * "torchtitan:FQNS". Fills gpu[pb->L]. Returns the pipeline ranks the
 * split runs on, those with no layer counted (pb->P for Megatron and
 * torchtitan, DeepSpeed's stages, the list's own), or -1 with the reason
 * in err, which says what was expected ("layer indices must increase
 * (expected ...)"), without the option's name. */
int split_parse(const char *spec, const struct problem *pb, int *gpu, char *err, size_t errlen);

/* The list form alone, for L layers on P GPUs. */
int split_parse_list(const char *list, int L, int P, int *gpu, char *err, size_t errlen);

/* A network made by `pipeplan gen transformer`: layers tok_embeddings,
 * layers.0 .. layers.N-1, norm, output, in that order. Returns N, or -1
 * with what differs in err. */
int split_transformer_layers(char *const *names, int L, char *err, size_t errlen);

/* Megatron-Core's --pipeline-model-parallel-layout, expanded the way its
 * PipelineParallelLayerLayout.parse_str_to_list does (commas dropped,
 * "(X)*n" then "x*n" unrolled, stages split at '|'), then checked as
 * validate_layer_layout does, plus where Megatron builds the embedding
 * and the loss: E opens the first stage, L ends the last. Stage k runs
 * on pipeline rank k mod P (P = pipeline_model_parallel_size = the
 * GPUs), so the stage count must be a multiple of P. E is tok_embeddings,
 * each t the next layers.i, L covers norm and output. Fills gpu[L]. */
int split_megatron_parse(const char *layout, char *const *names, int L, int P, int *gpu,
                         char *err, size_t errlen);

/* An allocation as a Megatron layout. */
struct split_megatron {
    char *layout;            /* malloc'd, e.g. "Et*3|t*4|t*4|t*3L" */
    int stages;              /* P x virtual */
    int virtual_stages;      /* stages per pipeline rank */
    int *rank;               /* [P] the Megatron rank of each pipeplan GPU */
    int *gpu;                /* [P] the pipeplan GPU of each rank */
};

/* Write gpu[L] (a transformer network, see above) as a layout: the runs
 * of consecutive layers on one GPU become stages, stage k on rank k mod
 * P, with empty stages where a rank has nothing to run before the next
 * run's rank comes round. GPUs are renumbered (in order of first use,
 * the loss's GPU last) only among GPUs of equal cap and reserved memory
 * (cap and reserved may be NULL: all equal). Returns 0, or -1 with why
 * Megatron cannot run it in err, which names a GPU of the plan as
 * problem_gpu_word(pb) does (a rank for a tensor-parallel network; pb
 * may be NULL: a GPU). Clear *out with split_megatron_clear. */
int split_megatron_write(const int *gpu, char *const *names, int L, int P, const double *cap,
                         const double *reserved, const struct problem *pb,
                         struct split_megatron *out, char *err, size_t errlen);
void split_megatron_clear(struct split_megatron *m);

/* DeepSpeed PipelineModule's `parts`: parts[s] is the first layer of
 * stage s, parts[stages] = L. One stage per GPU that holds layers, in
 * chain order; contiguous plans only. rank[p] gets the stage of GPU p
 * (-1 for a GPU without layers); GPUs are renumbered only among equal
 * caps (cap, reserved may be NULL). parts has room for P+1 entries.
 * Returns the stage count, or -1 with why in err, which names the plan's
 * GPUs as split_megatron_write's does (pb may be NULL). */
int split_deepspeed_parts(const int *gpu, int L, int P, const double *cap,
                          const double *reserved, const struct problem *pb, int *parts,
                          int *rank, char *err, size_t errlen);

/* torchtitan's module_fqns_per_model_part, as the torch export writes it
 * (a list of lists of module names in single or double quotes, e.g.
 * [["tok_embeddings", "layers.0"], ["layers.1", "norm", "output"]]):
 * part s holds the layers named, which must be the network's layers in
 * order, each once, no part empty; stage s runs on GPU s mod P, as
 * torchtitan's looped schedules place it, so the parts must be a
 * multiple of P, or fewer than P (a degree of that many ranks, part s on
 * GPU s). With "v:" before the list, the V schedules' placement: 2P
 * parts, r and 2P-1-r on GPU r. Fills gpu[L]. Returns the pipeline ranks
 * (the degree), or -1 with what was expected in err. */
int split_torchtitan_parse(const char *text, char *const *names, int L, int P, int *gpu,
                           char *err, size_t errlen);

/* The other way: a `parts` list as DeepSpeed prints it or the deepspeed
 * export writes it, "[0, 12, 24, 36]" (or without the brackets, or with
 * no spaces): the first layer of each stage, then L; non-decreasing (an
 * empty stage, as partition_uniform makes with fewer layers than stages,
 * leaves its GPU idle), the first 0; stage s on GPU s (pipeline rank s).
 * Fills gpu[L]. Returns the stages (empty ones counted), or -1 with what
 * was expected in err. */
int split_deepspeed_parse(const char *parts, int L, int P, int *gpu, char *err, size_t errlen);

#endif
