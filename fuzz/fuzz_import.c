/* fuzz_import: the PipeDream importer (import_pipedream, what pipeplan
 * import pipedream runs on graph.txt). A network it returns is written
 * the way `import` writes it and must read back as a valid network file
 * with the same layers. */
#include "fuzz.h"
#include "import.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char err[SPEC_ERR_LEN];
    err[0] = '\0';
    struct spec_network *net = import_pipedream(text, "fuzz/graph.txt", 32, NULL, 0, err, sizeof err);
    if (!net) {
        FUZZ_ASSERT(strncmp(err, "fuzz/graph.txt:", 15) == 0, "message '%s'", err);
        free(text);
        return 0;
    }
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_ASSERT(f, "open_memstream");
    static const char *const comment[] = { "imported by fuzz_import", NULL };
    FUZZ_ASSERT(spec_network_write(f, net, comment) == 0, "write");
    FUZZ_ASSERT(fclose(f) == 0, "fclose");
    struct spec_network *back = spec_network_parse(out, "written.ini", err, sizeof err);
    FUZZ_ASSERT(back, "the imported network does not read back: %s", err);
    FUZZ_ASSERT(back->nlayers == net->nlayers, "%d layers, %d read back", net->nlayers,
                back->nlayers);
    for (int i = 0; i < net->nlayers; i++) {
        FUZZ_ASSERT(strcmp(back->layers[i].name, net->layers[i].name) == 0, "layer %d name", i);
        FUZZ_ASSERT(back->layers[i].weights == net->layers[i].weights &&
                    back->layers[i].activation == net->layers[i].activation &&
                    back->layers[i].stored == net->layers[i].stored, "layer %d sizes", i);
    }
    spec_network_free(back);
    spec_network_free(net);
    free(out);
    free(text);
    return 0;
}
