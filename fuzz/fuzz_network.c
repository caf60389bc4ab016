/* fuzz_network: the network file reader (spec_network_parse, what
 * pipeplan check / solve run on NETWORK.ini). */
#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[SPEC_ERR_LEN];
    err[0] = '\0';
    struct spec_network *net = spec_network_parse(text, "fuzz.ini", err, sizeof err);
    if (net) {
        FUZZ_ASSERT(net->nlayers >= 1 && net->nlayers <= SPEC_MAX_LAYERS, "%d layers",
                    net->nlayers);
        FUZZ_ASSERT(net->name && net->micro_batch >= 1 && net->tensor_parallel >= 1, "header");
        for (int i = 0; i < net->nlayers; i++)
            FUZZ_ASSERT(net->layers[i].name && net->layers[i].name[0], "layer %d name", i);
        spec_network_free(net);
    } else {
        /* every rejection names the file and a line */
        FUZZ_ASSERT(strncmp(err, "fuzz.ini:", 9) == 0, "message '%s'", err);
    }
    free(text);
    return 0;
}
