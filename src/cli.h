/* cli: the subcommands of the pipeplan binary. Each takes the argv slice
 * starting at its own name and returns the process exit status:
 * 0 success, 1 "no plan fits" (solve) or "settings absent" (sweep --merge),
 * 2 bad input or usage, 128+N stopped by signal N (sweep). */
#ifndef PIPEPLAN_CLI_H
#define PIPEPLAN_CLI_H

#include <signal.h>
#include <stdbool.h>

int cmd_check(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_explore(int argc, char **argv);   /* argv[0]: the program */

struct knobs;
/* Knob flags shared by solve and the explorer (--gpus, --memory, ...).
 * Returns 1 if argv[*i] was one (its value consumed), 0 if not, -1 after
 * printing a message for a bad value. */
int cli_parse_knob(int argc, char **argv, int *i, struct knobs *k);

/* The ILP's flags: --blocks N, --time-limit S, --work-limit N,
 * --threads N, --log FILE. */
struct ilp_args {
    double time_limit;
    long work_limit;         /* 0: none (seconds rule) */
    int threads;
    int blocks;              /* -1: automatic */
    const char *log_path;    /* NULL: CBC's log is discarded */
};
int cli_parse_ilp(int argc, char **argv, int *i, struct ilp_args *a);
/* --log FILE against the files the command reads or writes (NULL entries
 * skipped; what[k] names files[k] in the message, "the network file"):
 * 0, or 2 after saying that the log is one of them. */
int cli_check_log(const char *log, const char *const *files, const char *const *what, int n);

/* Start reading a command line: `cmd` ("sweep") is the command whose
 * options cli_parse_knob, cli_parse_ilp and cli_flag_match read, for
 * their messages' "pipeplan sweep:" and "(see pipeplan sweep --help)";
 * NULL (pipeplan's own) for the explorer. The flags seen before are
 * forgotten. Each command calls it before its first option. */
void cli_set_command(const char *cmd);
/* That command (NULL: pipeplan's own), for the messages printed while it
 * runs: "pipeplan solve: ILP (CBC): ...". */
const char *cli_command(void);

/* Which of `names` argv[*i] is ("--x VALUE" or "--x=VALUE"): its index
 * with *value set (the next argument consumed if need be), -1 for none,
 * -2 after saying that the value is missing or is an option word, or that
 * the flag was given before on this command line (-o and --output are one
 * flag). */
int cli_flag_match(const char *const *names, int argc, char **argv, int *i,
                   const char **value);
/* The same for a flag that may be given again (import's --note): no
 * "given twice", and not counted as seen for cli_flag_match. */
int cli_flag_match_repeatable(const char *const *names, int argc, char **argv, int *i,
                              const char **value);

/* "pipeplan[ CMD]: bad NAME 'VALUE': why", with the help hint when `why`
 * does not say what was expected. */
void cli_bad_value(const char *name, const char *value, const char *why);

/* "pipeplan[ CMD]: unknown option 'ARG' (see pipeplan[ CMD] --help)";
 * returns 2, the usage exit status. */
int cli_unknown_option(const char *arg);

struct problem;
struct planner_result;
/* Run the planners `order` (registry names, none the user's) on pb as
 * solve does, in a worker process, and fill results[0..nrun-1] in that
 * order (each to free with planner_result_clear). With `stop`, a nonzero
 * *stop (a signal handler's flag) cancels the run. Returns 0, or -1 (after
 * saying why, unless stopped) with nothing to free. */
int cli_run_planners(const struct problem *pb, const char *const *order, int nrun,
                     const struct ilp_args *ilp, struct planner_result *results,
                     const volatile sig_atomic_t *stop);
/* What solve does with the results before showing them: the best bound
 * proven for the network given to every result, and every plan checked
 * by the simulator (status error when it disagrees). Returns the elements
 * the ILP worked on (pb->L if none). */
int cli_finish_results(const struct problem *pb, struct planner_result *results, int n);

/* Print a command's help (cmd: NULL for pipeplan's own) and say whether
 * it reached standard output: 0, or 2 with a message (a full disk). */
int cli_help(const char *cmd, const char *text);

/* Whether the word after a flag is an option ("--gpus"), not its value:
 * "--log --gpus 4" forgot the log's name, and "-o --json" wrote the
 * table to a file named --json. Such a value goes after '='. */
bool cli_value_is_option(const char *v);
#define CLI_OPTION_AS_VALUE \
    "%s needs a value, not the option '%s' (a value that starts with -- is written %s=%s)"

/* "pipeplan CMD: message" on stderr; returns 2, the usage exit status. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct spec_network;
/* A network file, its comment lines first: written atomically to path
 * (force: over an existing file), or to standard output when path is
 * NULL. 0, or 2 after "pipeplan CMD: why" on stderr. */
int cli_write_network(const char *cmd, const char *path, bool force,
                      const struct spec_network *net, const char *const *comments);

/* "all" or "ilp,dp,...": fills out[] with static names; count or -1
 * (after printing why). */
int cli_parse_planners(const char *cmd, const char *list, const char **out, int max);


/* Help text shared by `pipeplan --help` and the commands' own --help, so
 * that they cannot drift apart. Each is whole lines of "  --flag  what". */
#define CLI_HELP_KNOBS \
    "  --gpus N                 number of GPUs\n" \
    "  --memory SIZE            uniform memory cap per GPU, with a unit (e.g. 16GiB)\n" \
    "  --micro-batches M        micro-batches per iteration (mini-batch)\n" \
    "  --schedule 1f1b|pipedream  flushed 1F1B or asynchronous PipeDream\n" \
    "  --layout any|contiguous  may a GPU hold several ranges of layers\n" \
    "  --weight-factor PHI      bytes of weight state per parameter byte\n"

/* SECONDS: the default time limit, as text ("10" for solve, "30" for the
 * explorer). */
#define CLI_HELP_ILP(SECONDS) \
    "  --blocks N               blocks the ILP works on (0: every layer;\n" \
    "                           default 12 up to 4 GPUs, 16 above)\n" \
    "  --time-limit SECONDS     time for the ILP's whole search, at most 86400\n" \
    "                           (default " SECONDS ")\n" \
    "  --work-limit N           deterministic work limit for the ILP: CBC\n" \
    "                           branch-and-bound nodes summed over the search's\n" \
    "                           MIPs (plus one per MIP; a larger MIP's nodes\n" \
    "                           count more, see the manual); when given, the seconds\n" \
    "                           limit is not used and the same inputs give the\n" \
    "                           same plan, status and bound on any machine\n" \
    "  --threads N              threads CBC may use (default 1; one under\n" \
    "                           --work-limit, whose search must be reproducible)\n" \
    "  --log FILE               append CBC's log and the ILP's trace to FILE\n"

/* Your own plan, for solve and the explorer. */
#define CLI_HELP_YOURS \
    "  --split 0,12,24,36       your split, judged beside the planners (row \"your\n" \
    "                           split\", planner name user): the first layer of\n" \
    "                           each stage, 0-based, stage i on GPU i\n" \
    "  --split megatron:LAYOUT  the same as Megatron-Core's pipeline layout, e.g.\n" \
    "                           \"Et*3|t*4|t*4|t*3L\" (transformer networks), or\n" \
    "                           its arguments: \"megatron:--decoder-first-pipeline-\n" \
    "                           num-layers 7 --decoder-last-pipeline-num-layers 7\"\n" \
    "  --split deepspeed:PARTS  the same as DeepSpeed's PipelineModule parts,\n" \
    "                           e.g. \"[0, 12, 24, 36, 48]\" (the layer count last)\n" \
    "  --split torchtitan:FQNS  the same as torchtitan's module_fqns_per_model_part,\n" \
    "                           e.g. '[[\"tok_embeddings\", \"layers.0\"], ...]'\n" \
    "                           (v:[...] for the V schedules' placement)\n" \
    "  --plan FILE              your plan from a plan file (--format plan writes one)\n"

#define CLI_HELP_SOLVE_ONLY \
    "  --planner NAME[,NAME...]|all  planners to run (default all: ilp, dp,\n" \
    "                           pipedream, time, parameters, uniform; user is\n" \
    "                           your --split or --plan, shown whenever given)\n" \
    "  --format FMT             what to write: table (default), json, csv (one row\n" \
    "                           per layer), plan (a plan file), megatron or\n" \
    "                           deepspeed (their arguments), torch (a\n" \
    "                           torch.distributed.pipelining program) or\n" \
    "                           torch-schedule (its schedule CSV); the plan formats\n" \
    "                           write the best plan, or the one --planner NAME names\n" \
    "  --json                   the same as --format json\n" \
    "  -o, --output FILE        write to FILE (atomically) instead of standard output\n" \
    "  --force                  replace an existing FILE\n"

#define CLI_HELP_SWEEP \
    "  --gpus LIST              GPU counts, e.g. 4,8,16\n" \
    "  --memory LIST|START:STOP:STEP  caps per GPU, e.g. 40GB,80GB or\n" \
    "                           40GB:141GB:10GB (exact bytes; STOP when a step\n" \
    "                           lands on it)\n" \
    "  --micro-batches LIST     micro-batches per iteration, e.g. 8,16\n" \
    "  --schedule LIST          1f1b, pipedream or both: 1f1b,pipedream\n" \
    "  --layout LIST            any, contiguous or both: any,contiguous\n" \
    "                           (a knob not given is as in the files)\n" \
    "  --planner NAME[,NAME...]|all  planners per setting (default all)\n" \
    "  --time-limit, --work-limit, --blocks, --threads  the ILP's, as for solve\n" \
    "  --shard I/N              only settings numbered I mod N (I from 0 to N-1)\n" \
    "  -o, --output FILE.csv    the rows; an existing FILE from the same inputs\n" \
    "                           and grid is resumed, another one refused\n" \
    "  --force                  start FILE over\n" \
    "  --plot FILE.svg          the memory/period frontier of FILE's rows\n" \
    "                           (rewritten on every run)\n" \
    "  --merge A.csv B.csv...   join shards into -o FILE (nothing written and\n" \
    "                           exit 1 when a setting is absent)\n"

#define CLI_HELP_IMPORT \
    "  --micro-batch N          samples per batch the profile was measured at\n" \
    "                           (required; the profile does not say)\n" \
    "  -o, --output OUT.ini     write to OUT.ini instead of standard output\n" \
    "  --force                  replace an existing OUT.ini\n" \
    "  --note TEXT              add TEXT as a comment line of the header (repeatable)\n"

#define CLI_HELP_GEN \
    "  --preset NAME            a published shape: gpt3-1.3b, gpt3-175b, llama2-7b,\n" \
    "                           llama2-13b, llama2-70b, llama3-8b, llama3-70b,\n" \
    "                           llama3.1-405b (shape flags override its fields)\n" \
    "  --layers N               transformer layers\n" \
    "  --hidden H               hidden size\n" \
    "  --heads A                attention heads (A divides H)\n" \
    "  --kv-heads K             key/value heads, grouped-query attention\n" \
    "                           (K divides A; default A, or the preset's)\n" \
    "  --ffn F                  MLP inner size\n" \
    "  --gated                  Llama family: SwiGLU, RMSNorm, RoPE, no biases\n" \
    "                           (default: GPT family, GeLU, LayerNorm, biases)\n" \
    "  --vocab V                vocabulary size\n" \
    "  --tied-embeddings        the output projection shares the embedding\n" \
    "  --seq S                  sequence length (default the preset's)\n" \
    "  --micro-batch B          sequences per micro-batch (default 1)\n" \
    "  --dtype bf16|fp16|fp32   weights and activations (default bf16; fp16 on V100)\n" \
    "  --gpu V100|A100|H100|H200  the GPU whose dense peak sets the times (required)\n" \
    "  --tensor-parallel T      GPUs per tensor-parallel group, with sequence\n" \
    "                           parallelism; the file is one GPU's share (default 1)\n" \
    "  --tp-bandwidth BW        the group's bandwidth per direction, e.g. 300GB/s\n" \
    "                           (default the GPU's NVLink peak)\n" \
    "  --mfu X                  share of the peak the GEMMs reach, 0 < X <= 1\n" \
    "                           (default 0.4)\n" \
    "  --recompute none|selective|full  activation recomputation (default none)\n" \
    "  --attention flash|standard  attention kernel (default flash)\n" \
    "  -o, --output OUT.ini     write to OUT.ini instead of standard output\n" \
    "  --force                  replace an existing OUT.ini\n"

#define CLI_EXPLORE_DEFAULT_SECONDS "30"   /* TUI_TIME_LIMIT in tui.h */
#define CLI_SOLVE_DEFAULT_SECONDS "10"

#define CLI_USAGE_SOLVE "pipeplan solve NETWORK.ini PLATFORM.ini [options]"
#define CLI_USAGE_SWEEP "pipeplan sweep NETWORK.ini... PLATFORM.ini [grid options] -o FILE.csv"
/* One line, for error messages; the _WRAPPED forms, for the help texts,
 * break where a line would pass 80 columns. */
#define CLI_USAGE_MERGE_A "pipeplan sweep --merge A.csv B.csv... -o FILE.csv"
#define CLI_USAGE_MERGE_B "[--force] [--plot FILE.svg]"
#define CLI_USAGE_MERGE CLI_USAGE_MERGE_A " " CLI_USAGE_MERGE_B
#define CLI_USAGE_MERGE_WRAPPED CLI_USAGE_MERGE_A "\n                      " CLI_USAGE_MERGE_B
#define CLI_USAGE_CHECK "pipeplan check FILE..."
#define CLI_USAGE_GEN "pipeplan gen transformer (--preset NAME | --layers N --hidden H --heads A\n" \
    "                    --ffn F --vocab V --seq S) --gpu GPU [options]\n" \
    "                    [-o OUT.ini] [--force]"
#define CLI_USAGE_IMPORT_A "pipeplan import pipedream GRAPH.txt --micro-batch N"
#define CLI_USAGE_IMPORT_B "[-o OUT.ini] [--force]"
#define CLI_USAGE_IMPORT CLI_USAGE_IMPORT_A " " CLI_USAGE_IMPORT_B
#define CLI_USAGE_IMPORT_WRAPPED CLI_USAGE_IMPORT_A "\n                      " CLI_USAGE_IMPORT_B

/* The embedded default spec files (generated from data/ at build time). */
extern const char default_network[], default_network_path[];
extern const char default_platform[], default_platform_path[];

#endif
