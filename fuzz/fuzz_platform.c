/* fuzz_platform: the platform file reader (spec_platform_parse, what
 * pipeplan check / solve run on PLATFORM.ini). */
#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[SPEC_ERR_LEN];
    err[0] = '\0';
    struct spec_platform *pl = spec_platform_parse(text, "fuzz.ini", err, sizeof err);
    if (pl) {
        FUZZ_ASSERT(pl->gpus >= 1 && pl->gpus <= SPEC_MAX_GPUS, "%d GPUs", pl->gpus);
        FUZZ_ASSERT(pl->memory > pl->reserved, "memory");
        for (int g = 0; g < pl->gpus; g++)
            FUZZ_ASSERT(pl->gpu_memory[g] > pl->reserved, "GPU %d memory", g);
        FUZZ_ASSERT(pl->weight_factor >= 1, "weight factor %g", pl->weight_factor);
        spec_platform_free(pl);
    } else {
        FUZZ_ASSERT(strncmp(err, "fuzz.ini:", 9) == 0, "message '%s'", err);
    }
    free(text);
    return 0;
}
