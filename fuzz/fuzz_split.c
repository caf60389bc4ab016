/* fuzz_split: --split (split_parse: the list of first layers,
 * "megatron:LAYOUT", "deepspeed:PARTS" and "torchtitan:FQNS"), against
 * three problems. An allocation it accepts has its layers on the ranks it
 * names, and is written as a Megatron layout and as DeepSpeed parts; each
 * written must read back as the same allocation, its GPUs renumbered as
 * the writer says. */
#include "fuzz.h"
#include "fuzz_problem.h"
#include "split.h"

static void check(const struct problem *pb, const int *gpu)
{
    char err[512];
    int L = pb->L, P = pb->P;
    struct split_megatron m;
    if (split_megatron_write(gpu, pb->names, L, P, pb->cap, pb->reserved, pb, &m, err,
                             sizeof err) == 0) {
        int *again = malloc((size_t)L * sizeof *again);
        FUZZ_ASSERT(again, "malloc");
        FUZZ_ASSERT(split_megatron_parse(m.layout, pb->names, L, P, again, err, sizeof err) == 0,
                    "layout '%s' written does not read back: %s", m.layout, err);
        for (int i = 0; i < L; i++)
            FUZZ_ASSERT(again[i] == m.rank[gpu[i]], "layout '%s': layer %d on rank %d, "
                        "expected %d", m.layout, i, again[i], m.rank[gpu[i]]);
        for (int g = 0; g < P; g++)
            FUZZ_ASSERT(m.gpu[m.rank[g]] == g, "GPU %d renumbering", g);
        free(again);
        split_megatron_clear(&m);
    }
    int *parts = malloc((size_t)(P + 1) * sizeof *parts);
    int *rank = malloc((size_t)P * sizeof *rank);
    FUZZ_ASSERT(parts && rank, "malloc");
    int stages = split_deepspeed_parts(gpu, L, P, pb->cap, pb->reserved, pb, parts, rank, err,
                                       sizeof err);
    if (stages >= 0) {
        FUZZ_ASSERT(stages >= 1 && stages <= P && parts[0] == 0 && parts[stages] == L,
                    "%d stages", stages);
        for (int s = 0; s < stages; s++)
            FUZZ_ASSERT(parts[s] < parts[s + 1], "parts %d", s);
        /* read back as DeepSpeed prints it: stage s on GPU s */
        size_t cap = 16 * ((size_t)stages + 2), n = 0;
        char *text = malloc(cap);
        int *again = malloc((size_t)L * sizeof *again);
        FUZZ_ASSERT(text && again, "malloc");
        n += (size_t)snprintf(text + n, cap - n, "[");
        for (int s = 0; s <= stages; s++)
            n += (size_t)snprintf(text + n, cap - n, "%s%d", s ? ", " : "", parts[s]);
        snprintf(text + n, cap - n, "]");
        FUZZ_ASSERT(split_deepspeed_parse(text, L, P, again, err, sizeof err) == stages,
                    "parts '%s' written do not read back as %d stages: %s", text, stages, err);
        for (int i = 0; i < L; i++)
            FUZZ_ASSERT(again[i] == rank[gpu[i]], "parts '%s': layer %d on GPU %d, expected %d",
                        text, i, again[i], rank[gpu[i]]);
        free(text);
        free(again);
    }
    free(parts);
    free(rank);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    for (int k = 0; k < FUZZ_PROBLEMS; k++) {
        const struct problem *pb = fuzz_problem(k);
        char err[512];
        int *gpu = malloc((size_t)pb->L * sizeof *gpu);
        FUZZ_ASSERT(gpu, "malloc");
        for (int i = 0; i < pb->L; i++)
            gpu[i] = -1;
        int ranks = split_parse(text, pb, gpu, err, sizeof err);
        if (ranks >= 0) {
            /* the ranks it runs on, every layer on one of them */
            FUZZ_ASSERT(ranks >= 1 && ranks <= pb->P, "%d ranks on %d GPUs", ranks, pb->P);
            for (int i = 0; i < pb->L; i++)
                FUZZ_ASSERT(gpu[i] >= 0 && gpu[i] < ranks, "layer %d on GPU %d of %d ranks", i,
                            gpu[i], ranks);
            check(pb, gpu);
        } else {
            FUZZ_ASSERT(err[0], "no message");
        }
        free(gpu);
    }
    free(text);
    return 0;
}
