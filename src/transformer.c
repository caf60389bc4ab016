/* transformer: per-layer costs of a decoder-only transformer from its
 * shape (see include/transformer.h for what is modelled). */
#include "transformer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "units.h"

/* Published shapes. GPT-3: Brown et al. 2020, "Language Models are
 * Few-Shot Learners", Table 2.1, GPT-2's vocabulary of 50257 and its tied
 * embeddings. Llama: the config.json of each model on Hugging Face. */
static const struct transformer_shape presets[] = {
    { "gpt3-1.3b", 24, 2048, 16, 16, 8192, 50257, 2048, 2048, false, true,
      "GPT-3 paper Table 2.1 (GPT-3 XL): 24 layers, d_model 2048, d_head 128; its n_heads 24 do "
      "not divide 2048, so 16 heads of 128" },
    { "gpt3-175b", 96, 12288, 96, 96, 49152, 50257, 2048, 2048, false, true,
      "GPT-3 paper Table 2.1 (GPT-3 175B): 96 layers, d_model 12288, 96 heads of 128, d_ff 4 x "
      "d_model" },
    { "llama2-7b", 32, 4096, 32, 32, 11008, 32000, 0, 4096, true, false,
      "meta-llama/Llama-2-7b-hf config.json (Hugging Face)" },
    { "llama2-13b", 40, 5120, 40, 40, 13824, 32000, 0, 4096, true, false,
      "meta-llama/Llama-2-13b-hf config.json (Hugging Face)" },
    { "llama2-70b", 80, 8192, 64, 8, 28672, 32000, 0, 4096, true, false,
      "meta-llama/Llama-2-70b-hf config.json (Hugging Face)" },
    { "llama3-8b", 32, 4096, 32, 8, 14336, 128256, 0, 8192, true, false,
      "meta-llama/Meta-Llama-3-8B config.json (Hugging Face)" },
    { "llama3-70b", 80, 8192, 64, 8, 28672, 128256, 0, 8192, true, false,
      "meta-llama/Meta-Llama-3-70B config.json (Hugging Face)" },
    { "llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 0, 8192, true, false,
      "meta-llama/Llama-3.1-405B config.json (Hugging Face); 8192 is its pre-training length "
      "before the long-context stage" },
};
#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

const struct transformer_shape *transformer_preset(const char *name)
{
    for (int i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

int transformer_preset_count(void)
{
    return NPRESETS;
}

const struct transformer_shape *transformer_preset_at(int i)
{
    return i >= 0 && i < NPRESETS ? &presets[i] : NULL;
}

/* ---- names ---- */

static const char *const dtype_names[] = { "bf16", "fp16", "fp32" };
static const char *const recompute_names[] = { "none", "selective", "full" };
static const char *const attention_names[] = { "flash", "standard" };

/* Dense (no sparsity) tensor-core peaks in TFLOPS and NVLink bandwidth per
 * direction, from each vendor datasheet. */
static const struct gpu_info {
    const char *name;
    double bf16, fp16, fp32;      /* TFLOPS; 0: not supported */
    double nvlink;                /* GB/s per direction */
    const char *peak_source;
    const char *link_source;
} gpus[] = {
    { "V100", 0, 125, 15.7, 150,
      "NVIDIA Tesla V100 GPU datasheet, V100 SXM2: 125 TFLOPS fp16 tensor, 15.7 fp32; no bf16",
      "NVLink 2: 6 links x 25 GB/s = 150 GB/s per direction (300 GB/s total), "
      "NVIDIA Tesla V100 datasheet" },
    { "A100", 312, 312, 19.5, 300,
      "NVIDIA A100 Tensor Core GPU datasheet, A100 SXM: 312 TFLOPS bf16/fp16 dense, "
      "fp32 19.5 (not TF32's 156: PyTorch's default fp32 matmul)",
      "NVLink 3: 12 links x 25 GB/s = 300 GB/s per direction (600 GB/s total), "
      "NVIDIA A100 datasheet" },
    { "H100", 989, 989, 67, 450,
      "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: 1979 TFLOPS bf16/fp16 with sparsity, "
      "989 dense; fp32 67",
      "NVLink 4: 18 links x 25 GB/s = 450 GB/s per direction (900 GB/s total), "
      "NVIDIA H100 datasheet" },
    { "H200", 989, 989, 67, 450,
      "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: the H100 SXM's compute, 989 TFLOPS "
      "bf16/fp16 dense; fp32 67",
      "NVLink 4: 18 links x 25 GB/s = 450 GB/s per direction (900 GB/s total), "
      "NVIDIA H200 datasheet" },
};

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

int transformer_dtype_parse(const char *s)
{
    return find_name(dtype_names, 3, s);
}

int transformer_gpu_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(gpus[i].name, s) == 0)
            return i;
    return -1;
}

int transformer_recompute_parse(const char *s)
{
    return find_name(recompute_names, 3, s);
}

int transformer_attention_parse(const char *s)
{
    return find_name(attention_names, 2, s);
}

const char *transformer_dtype_name(enum transformer_dtype d)
{
    return dtype_names[d];
}

const char *transformer_gpu_name(enum transformer_gpu g)
{
    return gpus[g].name;
}

const char *transformer_recompute_name(enum transformer_recompute r)
{
    return recompute_names[r];
}

const char *transformer_attention_name(enum transformer_attention a)
{
    return attention_names[a];
}

int transformer_dtype_bytes(enum transformer_dtype d)
{
    return d == TRANSFORMER_FP32 ? 4 : 2;
}

double transformer_peak_flops(enum transformer_gpu g, enum transformer_dtype d)
{
    const struct gpu_info *gi = &gpus[g];
    double tf = d == TRANSFORMER_BF16 ? gi->bf16 : d == TRANSFORMER_FP16 ? gi->fp16 : gi->fp32;
    return tf * 1e12;
}

double transformer_nvlink_bandwidth(enum transformer_gpu g)
{
    return gpus[g].nvlink * 1e9;
}

/* ---- validation ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int transformer_validate(const struct transformer_shape *sh, const struct transformer_run *run,
                         char *err, size_t errlen)
{
    if (sh->hidden % sh->heads != 0)
        return fail(err, errlen, "--heads %ld does not divide --hidden %ld (expected a head "
                    "size H/A that is a whole number)", sh->heads, sh->hidden);
    if (sh->heads % sh->kv_heads != 0)
        return fail(err, errlen, "--kv-heads %ld does not divide --heads %ld (expected whole "
                    "groups of query heads)", sh->kv_heads, sh->heads);
    if (sh->positions > 0 && run->seq > sh->positions)
        return fail(err, errlen, "--seq %ld is longer than the %ld learned positions of %s "
                    "(expected at most %ld)", run->seq, sh->positions,
                    sh->name ? sh->name : "the model", sh->positions);
    long t = run->tp;
    if (sh->heads % t != 0 || sh->kv_heads % t != 0)
        return fail(err, errlen, "--tensor-parallel %ld does not divide the %ld heads and %ld kv "
                    "heads (expected a divisor of both: Megatron splits whole heads)",
                    t, sh->heads, sh->kv_heads);
    if (sh->ffn % t != 0)
        return fail(err, errlen, "--tensor-parallel %ld does not divide --ffn %ld (expected a "
                    "divisor)", t, sh->ffn);
    if (run->seq % t != 0)
        return fail(err, errlen, "--tensor-parallel %ld does not divide --seq %ld (expected a "
                    "divisor: sequence parallelism splits the sequence)", t, run->seq);
    if (transformer_peak_flops(run->gpu, run->dtype) <= 0)
        return fail(err, errlen, "--dtype %s is not supported by the %s (expected fp16 or fp32)",
                    dtype_names[run->dtype], gpus[run->gpu].name);
    /* times a network file holds, so that the file written reads back (the
     * largest shapes at a tiny --mfu passed 10^12 ms) */
    static const enum transformer_kind kinds[] = { TRANSFORMER_EMBED, TRANSFORMER_BLOCK,
                                                   TRANSFORMER_NORM, TRANSFORMER_OUTPUT };
    static const char *const kind_names[] = { "the embedding", "a transformer layer",
                                              "the final norm", "the output layer" };
    for (int i = 0; i < 4; i++) {
        double f = transformer_forward_ms(sh, run, kinds[i]);
        double b = transformer_backward_ms(sh, run, kinds[i]);
        if (!(f <= UNITS_MAX_MS && b <= UNITS_MAX_MS))
            /* with tensor parallelism the group's links may be the cause */
            return fail(err, errlen, "%s would take %.3g ms forward and %.3g ms backward, over "
                        "the %.0e ms a network file holds (expected a smaller shape or "
                        "micro-batch, or a higher --mfu%s)", kind_names[i], f, b, UNITS_MAX_MS,
                        t > 1 ? " or --tp-bandwidth" : "");
    }
    return 0;
}

long transformer_padded_vocab(const struct transformer_shape *sh, long tp)
{
    if (sh->vocab % tp == 0)
        return sh->vocab;
    long m = 128 * tp;
    return (sh->vocab + m - 1) / m * m;
}

/* ---- parameters ---- */

static uint64_t kv_dim(const struct transformer_shape *sh)
{
    return (uint64_t)sh->kv_heads * (uint64_t)(sh->hidden / sh->heads);
}

/* Parameters of a layer with vocabulary v, every matrix divided by t and
 * the replicated parts (norms, row-parallel biases, positions) whole. */
static uint64_t params_split(const struct transformer_shape *sh, enum transformer_kind k,
                             uint64_t v, uint64_t t)
{
    uint64_t h = (uint64_t)sh->hidden, f = (uint64_t)sh->ffn, hk = kv_dim(sh);
    switch (k) {
    case TRANSFORMER_EMBED:
        return v * h / t + (uint64_t)sh->positions * h;
    case TRANSFORMER_NORM:
        return sh->gated ? h : 2 * h;
    case TRANSFORMER_OUTPUT:
        return sh->tied ? 0 : v * h / t;
    case TRANSFORMER_BLOCK:
    default:
        break;
    }
    /* wq, wo: H x H; wk, wv: H x (K*H/A) */
    uint64_t attn = (2 * h * h + 2 * h * hk) / t;
    if (sh->gated)   /* w1, w3: H x F, w2: F x H; two RMSNorms */
        return attn + 3 * h * f / t + 2 * h;
    /* biases: wq/wk/wv and w1 column-parallel (split), wo and w2 row-parallel
     * (whole); two LayerNorms of weight and bias */
    return attn + (h + 2 * hk) / t + h + 2 * h * f / t + f / t + h + 4 * h;
}

uint64_t transformer_layer_params(const struct transformer_shape *sh, enum transformer_kind k)
{
    return params_split(sh, k, (uint64_t)sh->vocab, 1);
}

uint64_t transformer_total_params(const struct transformer_shape *sh)
{
    return transformer_layer_params(sh, TRANSFORMER_EMBED) +
           (uint64_t)sh->layers * transformer_layer_params(sh, TRANSFORMER_BLOCK) +
           transformer_layer_params(sh, TRANSFORMER_NORM) +
           transformer_layer_params(sh, TRANSFORMER_OUTPUT);
}

uint64_t transformer_gpu_params(const struct transformer_shape *sh,
                                const struct transformer_run *run, enum transformer_kind k)
{
    return params_split(sh, k, (uint64_t)transformer_padded_vocab(sh, run->tp),
                        (uint64_t)run->tp);
}

/* ---- FLOPs and time ---- */

double transformer_core_flops(const struct transformer_shape *sh,
                              const struct transformer_run *run)
{
    /* QK^T and AV: 2 GEMMs of 2*B*A*S*S*(H/A) each. Causal: FlashAttention
     * skips the masked half; the standard path computes it and masks. */
    double s = (double)run->seq, full = 4.0 * (double)run->micro_batch * s * s * (double)sh->hidden;
    return run->attention == TRANSFORMER_FLASH ? full / 2 : full;
}

double transformer_forward_flops(const struct transformer_shape *sh,
                                 const struct transformer_run *run, enum transformer_kind k)
{
    double sb = (double)run->seq * (double)run->micro_batch, h = (double)sh->hidden;
    double f = (double)sh->ffn, hk = (double)kv_dim(sh);
    switch (k) {
    case TRANSFORMER_OUTPUT:
        return 2 * sb * h * (double)transformer_padded_vocab(sh, run->tp);
    case TRANSFORMER_BLOCK:
        return 2 * sb * (h * (h + 2 * hk) + h * h) + (sh->gated ? 6 : 4) * sb * h * f +
               transformer_core_flops(sh, run);
    default:
        return 0;   /* a gather and elementwise work: no GEMM */
    }
}

static double bandwidth(const struct transformer_run *run)
{
    return run->tp_bandwidth > 0 ? run->tp_bandwidth : transformer_nvlink_bandwidth(run->gpu);
}

double transformer_collective_ms(const struct transformer_shape *sh,
                                 const struct transformer_run *run)
{
    if (run->tp <= 1)
        return 0;
    double t = (double)run->tp;
    double bytes = (t - 1) / t * (double)run->seq * (double)run->micro_batch *
                   (double)sh->hidden * transformer_dtype_bytes(run->dtype);
    return bytes / bandwidth(run) * 1e3;
}

static double compute_ms(const struct transformer_run *run, double flops)
{
    return flops / (double)run->tp /
           (run->mfu * transformer_peak_flops(run->gpu, run->dtype)) * 1e3;
}

/* Collectives per direction: a transformer layer all-gathers before and
 * reduce-scatters after attention and MLP; the embedding reduce-scatters
 * its output, the output layer all-gathers its input. */
static int collectives(enum transformer_kind k)
{
    return k == TRANSFORMER_BLOCK ? 4 : k == TRANSFORMER_NORM ? 0 : 1;
}

double transformer_forward_ms(const struct transformer_shape *sh,
                              const struct transformer_run *run, enum transformer_kind k)
{
    return compute_ms(run, transformer_forward_flops(sh, run, k)) +
           collectives(k) * transformer_collective_ms(sh, run);
}

double transformer_backward_ms(const struct transformer_shape *sh,
                               const struct transformer_run *run, enum transformer_kind k)
{
    double ms = compute_ms(run, 2 * transformer_forward_flops(sh, run, k)) +
                collectives(k) * transformer_collective_ms(sh, run);
    if (k == TRANSFORMER_BLOCK) {
        if (run->recompute == TRANSFORMER_RECOMPUTE_FULL)
            ms += transformer_forward_ms(sh, run, k);
        else if (run->recompute == TRANSFORMER_RECOMPUTE_SELECTIVE)
            ms += compute_ms(run, transformer_core_flops(sh, run));
    }
    return ms;
}

/* ---- stored tensors ---- */

static void add(struct transformer_tensor *out, int *n, const char *what, const char *formula,
                uint64_t bytes)
{
    if (*n < TRANSFORMER_MAX_TENSORS)
        out[(*n)++] = (struct transformer_tensor){ what, formula, bytes };
}

int transformer_tensors(const struct transformer_shape *sh, const struct transformer_run *run,
                        enum transformer_kind k, struct transformer_tensor *out)
{
    uint64_t p = (uint64_t)transformer_dtype_bytes(run->dtype), t = (uint64_t)run->tp;
    uint64_t s = (uint64_t)run->seq, b = (uint64_t)run->micro_batch;
    uint64_t h = (uint64_t)sh->hidden, a = (uint64_t)sh->heads, f = (uint64_t)sh->ffn;
    uint64_t hk = kv_dim(sh), v = (uint64_t)transformer_padded_vocab(sh, run->tp);
    /* sequence-parallel shard of the hidden state: S/T x B x H (T divides S) */
    uint64_t shard = s / t * b * h;
    bool dropout = !sh->gated;
    int n = 0;
    switch (k) {
    case TRANSFORMER_EMBED:
        add(out, &n, "token ids (int64, every GPU of the group)", "8*S*B", 8 * s * b);
        if (dropout)
            add(out, &n, "embedding dropout mask", "(S/T)*B*H", shard);
        return n;
    case TRANSFORMER_NORM:
        add(out, &n, "norm input", "p*(S/T)*B*H", p * shard);
        return n;
    case TRANSFORMER_OUTPUT:
        add(out, &n, "output input (norm output)", "p*(S/T)*B*H", p * shard);
        add(out, &n, "logits (in the dtype)", "p*S*B*V/T", p * s * b * v / t);
        add(out, &n, "fp32 softmax kept by the cross-entropy", "4*S*B*V/T", 4 * s * b * v / t);
        return n;
    case TRANSFORMER_BLOCK:
    default:
        break;
    }
    if (run->recompute == TRANSFORMER_RECOMPUTE_FULL) {
        add(out, &n, "layer input (all else is recomputed)", "p*(S/T)*B*H", p * shard);
        return n;
    }
    /* Korthikanti et al. section 4.1, tensor by tensor; "(S/T)" tensors are
     * sequence-parallel shards (re-gathered in the backward pass), "/T"
     * ones are split by heads or by the MLP's columns. */
    add(out, &n, "attention_norm input", "p*(S/T)*B*H", p * shard);
    add(out, &n, "wq/wk/wv input (attention_norm output)", "p*(S/T)*B*H", p * shard);
    add(out, &n, "Q", "p*S*B*H/T", p * s * b * h / t);
    add(out, &n, "K (K heads)", "p*S*B*(K*H/A)/T", p * s * b * hk / t);
    add(out, &n, "V (K heads)", "p*S*B*(K*H/A)/T", p * s * b * hk / t);
    if (run->recompute == TRANSFORMER_RECOMPUTE_NONE) {
        if (run->attention == TRANSFORMER_STANDARD) {
            add(out, &n, "softmax output", "p*A*S*S*B/T", p * (a / t) * s * s * b);
            if (dropout) {
                add(out, &n, "attention dropout mask", "A*S*S*B/T", (a / t) * s * s * b);
                add(out, &n, "attention dropout output", "p*A*S*S*B/T",
                    p * (a / t) * s * s * b);
            }
        } else {
            add(out, &n, "softmax statistics (logsumexp, fp32)", "4*A*S*B/T", 4 * (a / t) * s * b);
        }
    }
    add(out, &n, "wo input (attention output)", "p*S*B*H/T", p * s * b * h / t);
    if (dropout)
        add(out, &n, "attention residual dropout mask", "(S/T)*B*H", shard);
    add(out, &n, "ffn_norm input", "p*(S/T)*B*H", p * shard);
    add(out, &n, "w1 input (ffn_norm output)", "p*(S/T)*B*H", p * shard);
    if (sh->gated) {
        /* a fused SwiGLU (Megatron-Core) keeps its two inputs and
         * recomputes SiLU in the backward pass */
        add(out, &n, "w1 output (SiLU input)", "p*S*B*F/T", p * s * b * f / t);
        add(out, &n, "w3 output", "p*S*B*F/T", p * s * b * f / t);
        add(out, &n, "w2 input (SiLU(w1 x) * w3 x)", "p*S*B*F/T", p * s * b * f / t);
    } else {
        add(out, &n, "GeLU input (w1 output)", "p*S*B*F/T", p * s * b * f / t);
        add(out, &n, "w2 input (GeLU output)", "p*S*B*F/T", p * s * b * f / t);
        add(out, &n, "MLP residual dropout mask", "(S/T)*B*H", shard);
    }
    return n;
}

uint64_t transformer_stored(const struct transformer_shape *sh,
                            const struct transformer_run *run, enum transformer_kind k)
{
    struct transformer_tensor ts[TRANSFORMER_MAX_TENSORS];
    int n = transformer_tensors(sh, run, k, ts);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += ts[i].bytes;
    return sum;
}

uint64_t transformer_cut(const struct transformer_shape *sh, const struct transformer_run *run,
                         enum transformer_kind k)
{
    if (k == TRANSFORMER_OUTPUT)
        return 0;   /* the loss is a scalar */
    return (uint64_t)transformer_dtype_bytes(run->dtype) * ((uint64_t)run->seq /
           (uint64_t)run->tp) * (uint64_t)run->micro_batch * (uint64_t)sh->hidden;
}

/* ---- the network ---- */

static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static void fill_layer(struct spec_layer *l, const struct transformer_shape *sh,
                       const struct transformer_run *run, enum transformer_kind k)
{
    uint64_t p = (uint64_t)transformer_dtype_bytes(run->dtype);
    l->forward_ms = transformer_forward_ms(sh, run, k);
    l->backward_ms = transformer_backward_ms(sh, run, k);
    l->weights = transformer_gpu_params(sh, run, k) * p;
    l->activation = transformer_cut(sh, run, k);
    l->stored = transformer_stored(sh, run, k);
}

struct spec_network *transformer_network(const struct transformer_shape *sh,
                                         const struct transformer_run *run,
                                         char *err, size_t errlen)
{
    struct spec_network *net = calloc(1, sizeof *net);
    if (!net)
        goto oom;
    int n = (int)sh->layers + 3;
    net->layers = calloc((size_t)n, sizeof *net->layers);
    if (!net->layers)
        goto oom;
    const char *base = sh->name ? sh->name : "transformer";
    net->name = run->tp > 1 ? dup_printf("%s-tp%ld", base, run->tp) : dup_printf("%s", base);
    net->source = dup_printf("pipeplan gen transformer (computed: GEMM FLOPs at an assumed MFU, "
                             "tensor sizes; see the header)");
    net->micro_batch = run->micro_batch;
    net->tensor_parallel = run->tp;
    if (!net->name || !net->source)
        goto oom;
    for (int i = 0; i < n; i++) {
        enum transformer_kind k = i == 0 ? TRANSFORMER_EMBED
                                : i == n - 2 ? TRANSFORMER_NORM
                                : i == n - 1 ? TRANSFORMER_OUTPUT : TRANSFORMER_BLOCK;
        struct spec_layer *l = &net->layers[i];
        l->name = k == TRANSFORMER_EMBED ? dup_printf("tok_embeddings")
                : k == TRANSFORMER_NORM ? dup_printf("norm")
                : k == TRANSFORMER_OUTPUT ? dup_printf("output")
                : dup_printf("layers.%d", i - 1);
        net->nlayers = i + 1;
        if (!l->name)
            goto oom;
        fill_layer(l, sh, run, k);
    }
    return net;
oom:
    spec_network_free(net);
    snprintf(err, errlen, "out of memory");
    return NULL;
}

/* ---- the header ---- */

/* Lines stay within a spec line with "; " in front of them. */
#define LINE_MAX_LEN (SPEC_MAX_LINE - 3)

struct lines {
    char **v;
    int n, cap;
    bool oom;
};

static void push(struct lines *ls, char *s)
{
    if (!s) {
        ls->oom = true;
        return;
    }
    if (ls->n + 2 > ls->cap) {
        int cap = ls->cap ? ls->cap * 2 : 64;
        char **nv = realloc(ls->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            free(s);
            ls->oom = true;
            return;
        }
        ls->v = nv;
        ls->cap = cap;
    }
    ls->v[ls->n++] = s;
    ls->v[ls->n] = NULL;
}

/* One line, wrapped at blanks (continuations indented) when too long. */
static void line(struct lines *ls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *s = buf;
    bool first = true;
    while (*s) {
        const char *indent = first ? "" : "    ";
        size_t room = LINE_MAX_LEN - strlen(indent), len = strlen(s);
        if (len > room) {
            len = room;
            while (len > 0 && s[len] != ' ')
                len--;
            if (len == 0)
                len = room;
        }
        push(ls, dup_printf("%s%.*s", indent, (int)len, s));
        s += len;
        while (*s == ' ')
            s++;
        first = false;
    }
}

/* The command, as shell lines joined by " \" (copy-pasteable): broken
 * only at a blank between words, never inside a quoted one ('300 GB/s');
 * a word longer than a line keeps a line of its own (cmd_gen refuses
 * words that would not fit a file's line). */
static void command_lines(struct lines *ls, const char *cmd)
{
    const size_t room = 100;
    const char *s = cmd;
    while (*s) {
        size_t len = strlen(s), cut = 0;
        bool quoted = false;
        for (size_t i = 0; i < len; i++) {
            if (s[i] == '\\' && !quoted)
                i++;    /* \' between two quoted pieces: a quote itself */
            else if (s[i] == '\'')
                quoted = !quoted;
            else if (s[i] == ' ' && !quoted && (i <= room || cut == 0)) {
                cut = i;
                if (i > room)
                    break;
            }
        }
        bool more = len > room && cut > 0;
        if (more)
            len = cut;
        push(ls, dup_printf("  %.*s%s", (int)len, s, more ? " \\" : ""));
        s += len;
        while (*s == ' ')
            s++;
    }
}

static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
    char human[32];
    units_format_size((double)bytes, human, sizeof human);
    snprintf(buf, len, "%" PRIu64 " B (%s)", bytes, human);
    return buf;
}

static void tensor_lines(struct lines *ls, const struct transformer_shape *sh,
                         const struct transformer_run *run, enum transformer_kind k,
                         const char *label)
{
    struct transformer_tensor ts[TRANSFORMER_MAX_TENSORS];
    char buf[64];
    int n = transformer_tensors(sh, run, k, ts);
    line(ls, "stored by %s, per GPU: %s", label,
         size_text(transformer_stored(sh, run, k), buf, sizeof buf));
    for (int i = 0; i < n; i++)
        line(ls, "  %s: %s = %" PRIu64 " B", ts[i].what, ts[i].formula, ts[i].bytes);
}

char **transformer_header(const struct transformer_shape *sh, const struct transformer_run *run,
                          const char *command)
{
    struct lines ls = { 0 };
    const struct gpu_info *gi = &gpus[run->gpu];
    int p = transformer_dtype_bytes(run->dtype);
    long t = run->tp, vp = transformer_padded_vocab(sh, t);
    char b1[64], b2[64], b3[64];

    line(&ls, "generated by pipeplan gen transformer: every figure is computed from the shape "
         "below, none is measured");
    line(&ls, "command (-o and --force left out; it writes the same file on standard output):");
    command_lines(&ls, command);

    /* inputs */
    line(&ls, "model: %s, %s family, %ld layers, H = %ld hidden, A = %ld heads, K = %ld kv heads, "
         "F = %ld ffn, V = %ld vocab, %s embeddings%s",
         sh->name ? sh->name : "explicit shape", sh->gated ? "Llama" : "GPT", sh->layers,
         sh->hidden, sh->heads, sh->kv_heads, sh->ffn, sh->vocab, sh->tied ? "tied" : "untied",
         sh->positions ? ", learned positions" : "");
    if (sh->source)
        line(&ls, "shape source: %s", sh->source);
    if (sh->gated)
        line(&ls, "Llama family: RMSNorm, SwiGLU MLP (w1, w3: H x F, w2: F x H), RoPE, no "
             "biases, no dropout");
    else
        line(&ls, "GPT family: LayerNorm, GeLU MLP (w1: H x F, w2: F x H) with biases, biases on "
             "wq/wk/wv/wo, dropout, %ld learned positions", sh->positions);
    line(&ls, "run: S = %ld sequence, B = %ld micro-batch (sequences), %s (p = %d bytes), %s, "
         "T = %ld tensor parallel, MFU %g, recompute %s, attention %s",
         run->seq, run->micro_batch, dtype_names[run->dtype], p, gi->name, t, run->mfu,
         recompute_names[run->recompute], attention_names[run->attention]);
    line(&ls, "parameters: %" PRIu64 " (exact count as published: vocabulary unpadded, tied "
         "embeddings once, in tok_embeddings)", transformer_total_params(sh));
    line(&ls, "layers: tok_embeddings, layers.0 .. layers.%ld, norm, output (torchtitan's "
         "module names)", sh->layers - 1);

    /* weights */
    line(&ls, "weights = parameters x p bytes, the weights alone (gradients and optimizer state "
         "are the platform's weight_factor)");
    if (t > 1) {
        line(&ls, "tensor parallelism (Megatron-LM, with sequence parallelism): every figure is "
             "one GPU's share of its group of T = %ld ([network] tensor_parallel)", t);
        line(&ls, "weights per GPU: each matrix / T (column- and row-parallel; embedding and "
             "output vocabulary-parallel); norms, row-parallel biases and positions are whole");
    }
    /* Megatron-LM pads every vocabulary to a multiple of 128*T
     * (--make-vocab-size-divisible-by 128); torchtitan pads none: pad only
     * where T must divide it, and say what Megatron would have */
    long mp = (sh->vocab + 128 * t - 1) / (128 * t) * (128 * t);
    if (vp != sh->vocab)
        line(&ls, "vocabulary: T does not divide V = %ld: padded to %ld, a multiple of 128*T, as "
             "Megatron-LM pads it (the padded rows are in the weights and the output FLOPs)",
             sh->vocab, vp);
    else if (mp != sh->vocab)
        line(&ls, "vocabulary: V = %ld, not padded (T divides it; Megatron-LM pads every "
             "vocabulary to a multiple of 128*T, here %ld: --make-vocab-size-divisible-by)",
             sh->vocab, mp);
    else
        line(&ls, "vocabulary: V = %ld, not padded (T divides it)", sh->vocab);
    if (sh->tied)
        line(&ls, "tied embeddings: counted once, in tok_embeddings; output has no weights of its "
             "own (a pipeline that puts it on another GPU keeps a copy there, not counted)");

    /* time */
    line(&ls, "time = GEMM FLOPs / T / (MFU x peak) + collectives; GEMM of m x k by k x n: "
         "2*m*n*k FLOPs; backward = 2 x forward FLOPs");
    line(&ls, "peak: %s %s %g TFLOPS dense (%s)", gi->name, dtype_names[run->dtype],
         transformer_peak_flops(run->gpu, run->dtype) / 1e12, gi->peak_source);
    line(&ls, "MFU %g is an assumption (default %g), not a measurement: give --mfu a measured "
         "figure", run->mfu, TRANSFORMER_DEFAULT_MFU);
    line(&ls, "transformer layer forward: 2*S*B*(2*H*H + 2*H*(K*H/A)) (wq, wk, wv, wo) + %s + "
         "attention core", sh->gated ? "6*S*B*H*F (w1, w3, w2)" : "4*S*B*H*F (w1, w2)");
    line(&ls, "attention core (QK^T and AV): 4*B*S*S*H non-causal; %s",
         run->attention == TRANSFORMER_FLASH
         ? "flash: causal, half of it, 2*B*S*S*H (FlashAttention skips the masked blocks)"
         : "standard: all of it, 4*B*S*S*H (causal, but the masked half is computed)");
    if (run->attention == TRANSFORMER_FLASH)
        line(&ls, "FlashAttention's backward recomputes QK^T inside the kernel (2.5 x its forward "
             "FLOPs): not counted, 2 x is used for every GEMM");
    line(&ls, "output forward: 2*S*B*H*V; tok_embeddings (a gather), norms, softmax, "
         "activations, residuals and the loss: no GEMM, counted as 0");
    if (run->recompute == TRANSFORMER_RECOMPUTE_FULL)
        line(&ls, "recompute full: each transformer layer's backward adds one forward of the "
             "layer (its GEMMs and collectives)");
    else if (run->recompute == TRANSFORMER_RECOMPUTE_SELECTIVE)
        line(&ls, "recompute selective: each transformer layer's backward adds the attention "
             "core's forward FLOPs");
    else
        line(&ls, "recompute none: nothing is recomputed");
    if (t > 1) {
        line(&ls, "collectives (sequence parallelism): a transformer layer all-gathers before and "
             "reduce-scatters after attention and MLP: 4 forward, 4 backward");
        line(&ls, "tok_embeddings reduce-scatters its output, output all-gathers its input: 1 "
             "forward, 1 backward each");
        line(&ls, "each moves (T-1)/T x S*B*H*p = %s per GPU, at %s per direction: %.6f ms",
             size_text((uint64_t)(t - 1) * (uint64_t)(run->seq / t) *
                       (uint64_t)run->micro_batch * (uint64_t)sh->hidden * (uint64_t)p,
                       b1, sizeof b1),
             units_format_bandwidth(bandwidth(run), b2, sizeof b2),
             transformer_collective_ms(sh, run));
        if (run->tp_bandwidth > 0)
            line(&ls, "bandwidth: given by --tp-bandwidth");
        else
            line(&ls, "bandwidth: the vendor peak, %s; measured collectives reach about 80%% of "
                 "it (--tp-bandwidth to change)", gi->link_source);
        if (t > 8 && run->tp_bandwidth <= 0)
            line(&ls, "warning: T > 8 spans more than one 8-GPU NVLink node; the NVLink figure is "
                 "then optimistic (give --tp-bandwidth)");
        line(&ls, "not counted: the backward re-gathers of stored shards (overlapped with compute "
             "in Megatron) and the loss's per-token all-reduces");
    }

    /* memory */
    line(&ls, "stored = bytes each layer keeps from its forward to its backward pass, tensor by "
         "tensor, after Korthikanti et al., \"Reducing Activation");
    line(&ls, "  Recomputation in Large Transformer Models\" (MLSys 2023): per transformer layer "
         "with standard attention at 16 bits, S*B*H*(34 + 5*A*S/H)/T");
    line(&ls, "  with no recomputation, 34*S*B*H/T selective, 2*S*B*H/T full (the layer input, a "
         "sequence-parallel shard); the GPT family reproduces these exactly");
    line(&ls, "  the Llama family follows from the same tensors: no dropout masks, SwiGLU keeps 3 "
         "x S*B*F, K and V kept with K heads (GQA-native kernels)");
    line(&ls, "  flash attention keeps no S x S tensor, only its fp32 softmax statistics; "
         "per-token norm statistics are not counted, as in the paper");
    line(&ls, "  output: the loss keeps the logits in the dtype and an fp32 softmax for its "
         "backward ((p + 4)*S*B*V/T; the paper counts the fp32 part, 4*S*B*V/T)");
    tensor_lines(&ls, sh, run, TRANSFORMER_EMBED, "tok_embeddings");
    char label[64];
    snprintf(label, sizeof label, "each of layers.0 .. layers.%ld", sh->layers - 1);
    tensor_lines(&ls, sh, run, TRANSFORMER_BLOCK, label);
    tensor_lines(&ls, sh, run, TRANSFORMER_NORM, "norm");
    tensor_lines(&ls, sh, run, TRANSFORMER_OUTPUT, "output");
    line(&ls, "activation (the cut after a layer) = p*(S/T)*B*H = %s, the hidden state%s; 0 "
         "after output (the loss is a scalar)",
         size_text(transformer_cut(sh, run, TRANSFORMER_BLOCK), b1, sizeof b1),
         t > 1 ? ", a sequence-parallel shard" : "");
    line(&ls, "per transformer layer: forward %.6f ms, backward %.6f ms, weights %s, stored %s",
         transformer_forward_ms(sh, run, TRANSFORMER_BLOCK),
         transformer_backward_ms(sh, run, TRANSFORMER_BLOCK),
         size_text(transformer_gpu_params(sh, run, TRANSFORMER_BLOCK) * (uint64_t)p,
                   b2, sizeof b2),
         size_text(transformer_stored(sh, run, TRANSFORMER_BLOCK), b3, sizeof b3));
    if (ls.oom) {
        transformer_header_free(ls.v);
        return NULL;
    }
    return ls.v;
}

void transformer_header_free(char **lines)
{
    if (!lines)
        return;
    for (char **l = lines; *l; l++)
        free(*l);
    free(lines);
}
