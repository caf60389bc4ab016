/* transformer: an analytic network file for a decoder-only transformer
 * (GPT-3 or Llama style), trained with tensor + sequence parallelism as in
 * Megatron-LM.
 *
 * The chain is the one torchtitan builds, with its module names:
 * tok_embeddings, layers.0 .. layers.N-1, norm, output. Per layer it
 * computes the exact parameter count, the GEMM FLOPs, the bytes of every
 * tensor kept from the forward to the backward pass (after Korthikanti et
 * al. 2022, "Reducing Activation Recomputation in Large Transformer
 * Models") and the hidden state crossing a cut. With a tensor-parallel
 * group of T GPUs the figures are one GPU's share. Pure C, no I/O. */
#ifndef PIPEPLAN_TRANSFORMER_H
#define PIPEPLAN_TRANSFORMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spec_network;

/* The architecture. gated selects the Llama family (SwiGLU MLP of three
 * H x F matrices, RMSNorm, RoPE, no biases, no dropout); otherwise the GPT
 * family (GeLU MLP of two matrices with biases, LayerNorm, biases,
 * dropout, learned position embeddings of `positions` rows). */
struct transformer_shape {
    const char *name;       /* preset name, or NULL for an explicit shape */
    long layers;
    long hidden;            /* H */
    long heads;             /* A */
    long kv_heads;          /* K: grouped-query attention when K < A */
    long ffn;               /* F */
    long vocab;             /* V */
    long positions;         /* learned position rows (GPT), 0 with RoPE */
    long seq;               /* the preset's training sequence length, 0 if none */
    bool gated;
    bool tied;              /* output projection shares the embedding */
    const char *source;     /* where a preset's shape is published */
};

enum transformer_dtype { TRANSFORMER_BF16, TRANSFORMER_FP16, TRANSFORMER_FP32 };
enum transformer_gpu { TRANSFORMER_V100, TRANSFORMER_A100, TRANSFORMER_H100,
                       TRANSFORMER_H200 };
enum transformer_recompute { TRANSFORMER_RECOMPUTE_NONE, TRANSFORMER_RECOMPUTE_SELECTIVE,
                             TRANSFORMER_RECOMPUTE_FULL };
enum transformer_attention { TRANSFORMER_FLASH, TRANSFORMER_STANDARD };

#define TRANSFORMER_DEFAULT_MFU 0.4

/* How the model is trained and on what. */
struct transformer_run {
    long seq;               /* S */
    long micro_batch;       /* B, sequences per micro-batch */
    long tp;                /* T, GPUs per tensor-parallel group */
    enum transformer_dtype dtype;
    enum transformer_gpu gpu;
    double mfu;             /* share of the dense peak the GEMMs reach */
    double tp_bandwidth;    /* bytes/s per direction; 0: the GPU's NVLink */
    enum transformer_recompute recompute;
    enum transformer_attention attention;
};

/* The kinds of layer in the chain. */
enum transformer_kind { TRANSFORMER_EMBED, TRANSFORMER_BLOCK, TRANSFORMER_NORM,
                        TRANSFORMER_OUTPUT };

/* Presets: NULL for an unknown name. */
const struct transformer_shape *transformer_preset(const char *name);
int transformer_preset_count(void);
const struct transformer_shape *transformer_preset_at(int i);

/* Names as written on the command line; -1 when unknown. */
int transformer_dtype_parse(const char *s);
int transformer_gpu_parse(const char *s);
int transformer_recompute_parse(const char *s);
int transformer_attention_parse(const char *s);
const char *transformer_dtype_name(enum transformer_dtype d);
const char *transformer_gpu_name(enum transformer_gpu g);
const char *transformer_recompute_name(enum transformer_recompute r);
const char *transformer_attention_name(enum transformer_attention a);
int transformer_dtype_bytes(enum transformer_dtype d);

/* The GPU's dense peak for the dtype in FLOP/s (0: not supported) and its
 * NVLink bandwidth per direction in bytes/s. */
double transformer_peak_flops(enum transformer_gpu g, enum transformer_dtype d);
double transformer_nvlink_bandwidth(enum transformer_gpu g);

/* Checks that shape and run make sense together (divisibility, dtype on
 * the GPU, ...). Returns 0, or -1 with one line in err naming the flag. */
int transformer_validate(const struct transformer_shape *sh, const struct transformer_run *run,
                         char *err, size_t errlen);

/* The vocabulary the GPUs hold: V when T divides it, else V rounded up to
 * a multiple of 128*T as Megatron pads it. */
long transformer_padded_vocab(const struct transformer_shape *sh, long tp);

/* Exact parameters of one layer of the kind, of the whole model (T = 1,
 * vocabulary as published, tied embeddings once). */
uint64_t transformer_layer_params(const struct transformer_shape *sh, enum transformer_kind k);
uint64_t transformer_total_params(const struct transformer_shape *sh);

/* Parameters one GPU of the group holds for a layer of the kind. */
uint64_t transformer_gpu_params(const struct transformer_shape *sh,
                                const struct transformer_run *run, enum transformer_kind k);

/* Forward GEMM FLOPs of a whole layer (all GPUs of the group together);
 * the backward pass is twice that. `core` only: the attention core
 * (QK^T and AV) of a transformer layer. */
double transformer_forward_flops(const struct transformer_shape *sh,
                                 const struct transformer_run *run, enum transformer_kind k);
double transformer_core_flops(const struct transformer_shape *sh,
                              const struct transformer_run *run);

/* Milliseconds of one GPU of the group for the layer's forward and
 * backward (recomputation and the group's collectives included). */
double transformer_forward_ms(const struct transformer_shape *sh,
                              const struct transformer_run *run, enum transformer_kind k);
double transformer_backward_ms(const struct transformer_shape *sh,
                               const struct transformer_run *run, enum transformer_kind k);
/* One all-gather or reduce-scatter of the hidden state, in ms. */
double transformer_collective_ms(const struct transformer_shape *sh,
                                 const struct transformer_run *run);

/* One tensor a layer keeps from its forward to its backward pass. */
struct transformer_tensor {
    const char *what;       /* e.g. "attention_norm input" */
    const char *formula;    /* e.g. "p*(S/T)*B*H" */
    uint64_t bytes;         /* per GPU */
};
#define TRANSFORMER_MAX_TENSORS 24

/* The tensors a layer of the kind keeps, per GPU, for the run's
 * recomputation and attention modes; returns how many (at most
 * TRANSFORMER_MAX_TENSORS). */
int transformer_tensors(const struct transformer_shape *sh, const struct transformer_run *run,
                        enum transformer_kind k, struct transformer_tensor *out);
/* Their sum: the layer's stored bytes per GPU. */
uint64_t transformer_stored(const struct transformer_shape *sh,
                            const struct transformer_run *run, enum transformer_kind k);
/* Bytes per GPU crossing the cut after the layer (0 after the output). */
uint64_t transformer_cut(const struct transformer_shape *sh, const struct transformer_run *run,
                         enum transformer_kind k);

/* The network file's contents (validate first). NULL with a message in
 * err only when out of memory. Free with spec_network_free. */
struct spec_network *transformer_network(const struct transformer_shape *sh,
                                         const struct transformer_run *run,
                                         char *err, size_t errlen);

/* The file's header: comment lines (without "; "), NULL-terminated, each
 * short enough for a spec line. `command` is the command line to record;
 * it is wrapped over several lines when long. NULL when out of memory.
 * Free with transformer_header_free. */
char **transformer_header(const struct transformer_shape *sh, const struct transformer_run *run,
                          const char *command);
void transformer_header_free(char **lines);

#endif
