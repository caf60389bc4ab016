/* spec: network and platform INI files (the file format contract).
 *
 * Loading validates everything and reports the first problem as
 * "FILE:LINE: what is wrong (what was expected)". The structs are plain
 * data owned by this module: create with spec_*_load/parse, free with
 * spec_*_free. */
#ifndef PIPEPLAN_SPEC_H
#define PIPEPLAN_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* room for a path as long as Linux allows (PATH_MAX, 4096) and the message */
#define SPEC_ERR_LEN 4608
#define SPEC_MAX_LINE 199      /* Debian's inih reads at most this many bytes */
#define SPEC_MAX_LAYERS 100000
#define SPEC_MAX_GPUS 4096

struct spec_layer {
    char *name;
    double forward_ms;
    double backward_ms;
    uint64_t weights;       /* parameter bytes */
    uint64_t activation;    /* bytes crossing the cut after this layer */
    uint64_t stored;        /* bytes kept from F start to B end */
    int line;               /* line of the [layer NAME] header */
};

struct spec_network {
    char *name;
    char *source;           /* may be NULL */
    long micro_batch;       /* samples the costs refer to */
    long tensor_parallel;   /* GPUs per pipeline rank the costs are for
                               (one GPU's share of each layer); 1 if unset */
    int nlayers;
    struct spec_layer *layers;
};

enum spec_schedule { SPEC_SCHEDULE_1F1B = 0, SPEC_SCHEDULE_PIPEDREAM = 1 };
enum spec_optimizer { SPEC_OPT_ADAM, SPEC_OPT_SGD, SPEC_OPT_NONE, SPEC_OPT_FACTOR };

struct spec_platform {
    char *name;
    int gpus;
    uint64_t memory;        /* default per-GPU memory, bytes */
    uint64_t *gpu_memory;   /* [gpus]: memory per GPU after [gpu N] overrides */
    uint64_t reserved;      /* per GPU, bytes */
    double bandwidth;       /* bytes per second */
    double latency_ms;
    long micro_batches;
    enum spec_schedule schedule;
    enum spec_optimizer optimizer;
    double weight_factor;   /* phi: from the optimizer preset or explicit */
};

/* Load from a file. On error returns NULL and writes the message to err. */
struct spec_network *spec_network_load(const char *path, char *err, size_t errlen);
struct spec_platform *spec_platform_load(const char *path, char *err, size_t errlen);

/* Parse from memory; `label` is the name used in messages. */
struct spec_network *spec_network_parse(const char *text, const char *label,
                                        char *err, size_t errlen);
struct spec_platform *spec_platform_parse(const char *text, const char *label,
                                          char *err, size_t errlen);

void spec_network_free(struct spec_network *net);
void spec_platform_free(struct spec_platform *plat);

/* Write a network file in the canonical form (header comment lines are
 * written first, each prefixed "; "). Returns 0, or -1 on a stream error. */
int spec_network_write(FILE *out, const struct spec_network *net,
                       const char *const *comment_lines);

/* Names for enums, as written in files. */
const char *spec_schedule_name(enum spec_schedule s);
const char *spec_optimizer_name(enum spec_optimizer o);
/* phi for a preset optimizer. */
double spec_optimizer_factor(enum spec_optimizer o);

/* Totals for summaries. */
double spec_network_compute_ms(const struct spec_network *net);
double spec_network_weights(const struct spec_network *net);

#endif
