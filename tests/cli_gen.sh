#!/bin/sh
# pipeplan gen transformer: every preset gives a file check accepts, the
# bundled files are reproduced byte for byte, the header's command
# reproduces its file, mistakes are one line with exit 2 and no output
# file, and what solve makes of a 70B model on 8 GPUs is what the numbers
# say.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

# transformers.sh runs "$1": a shim runs our binary, wrapped as the harness says
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$PIPEPLAN_WRAP" "$PIPEPLAN" >"$TMP/pp"
chmod +x "$TMP/pp"
mkdir "$TMP/nets"
status=0
data/networks/transformers.sh "$TMP/pp" "$TMP/nets" >"$TMP/out" 2>"$TMP/err" || status=$?
if [ "$status" -ne 0 ]; then
    cat "$TMP/err"
fi
expect_status 0 "transformers.sh runs the generator"
for f in llama3-8b llama3-70b gpt3-175b; do
    if cmp -s "data/networks/$f.ini" "$TMP/nets/$f.ini"; then
        ok "data/networks/$f.ini reproduced byte for byte"
    else
        not_ok "data/networks/$f.ini differs from a fresh gen"
        diff "data/networks/$f.ini" "$TMP/nets/$f.ini" | head -10
    fi
done

# Every preset: a file check accepts, every line within the reader's 199 bytes.
for p in gpt3-1.3b gpt3-175b llama2-7b llama2-13b llama2-70b llama3-8b llama3-70b llama3.1-405b; do
    run gen transformer --preset "$p" --gpu A100 -o "$TMP/$p.ini"
    expect_status 0 "gen --preset $p"
    run check "$TMP/$p.ini"
    expect_status 0 "check accepts the $p file"
    long=$(awk 'length($0) > 199' "$TMP/$p.ini" | wc -l)
    if [ "$long" -eq 0 ]; then ok "$p: no line over 199 bytes"; else
        not_ok "$p: $long lines over 199 bytes"; fi
done
run check "$TMP/llama3.1-405b.ini"
expect_stdout_has "network llama3.1-405b, 129 layers, micro-batch of 1 sample" \
    "405B: 126 transformer layers + embedding, norm, output"

# Standard output and -o give the same bytes; the header records the
# command without the output options, and running it gives the file again.
run gen transformer --preset llama3-8b --gpu H100 --seq 4096 --micro-batch 2 \
    --recompute selective --attention standard --mfu 0.5 --tp-bandwidth 200GB/s \
    --tensor-parallel 4
expect_status 0 "gen to standard output"
cp "$TMP/out" "$TMP/stdout.ini"
run gen transformer --preset llama3-8b --gpu H100 --seq 4096 --micro-batch 2 \
    --recompute selective --attention standard --mfu 0.5 --tp-bandwidth 200GB/s \
    --tensor-parallel 4 -o "$TMP/file.ini"
expect_status 0 "gen -o"
if cmp -s "$TMP/stdout.ini" "$TMP/file.ini"; then ok "-o writes what stdout gets"; else
    not_ok "-o and stdout differ"; fi
cp "$TMP/stdout.ini" "$TMP/out"
expect_stdout_has "; command (-o and --force left out; it writes the same file on standard output):" \
    "header introduces the command"
expect_stdout_has ";   pipeplan gen transformer --preset llama3-8b --gpu H100 --seq 4096 --micro-batch 2 --recompute \\" \
    "header holds the command line"
expect_stdout_has ";   selective --attention standard --mfu 0.5 --tp-bandwidth 200GB/s --tensor-parallel 4" \
    "a long command goes on over the next line"
expect_stdout_lacks "file.ini" "header leaves out -o"
expect_stdout_has "tensor_parallel = 4" "[network] says tensor_parallel"
expect_stdout_has "[layer layers.31]" "torchtitan's layer names"
# the command, joined back from its lines, run again
sed -n '/^; command/,/^; [^ ]/p' "$TMP/stdout.ini" | sed -n 's/^;   //p' | sed 's/ \\$//' |
    tr '\n' ' ' >"$TMP/cmd"
set -- $(cat "$TMP/cmd")
shift    # "pipeplan"
run "$@"
expect_status 0 "the recorded command runs"
if cmp -s "$TMP/out" "$TMP/stdout.ini"; then ok "the recorded command reproduces the file"; else
    not_ok "the recorded command gives another file"; diff "$TMP/out" "$TMP/stdout.ini" | head; fi

# A quoted argument where a line would end is not cut inside its quotes:
# the lines, joined as a shell joins them, give the file again.
run gen transformer --preset llama3-70b --gpu H100 --tensor-parallel 8 --tp-bandwidth '300 GB/s' \
    --kv-heads 8 --vocab 128256
expect_status 0 "gen with a quoted argument"
cp "$TMP/out" "$TMP/quoted.ini"
expect_stdout_has ";   pipeplan gen transformer --preset llama3-70b --gpu H100 --tensor-parallel 8 --tp-bandwidth \\" \
    "the line ends before the quoted word"
sed -n '/^; command/,/^; [^ ]/p' "$TMP/quoted.ini" | sed -n 's/^;   //p' >"$TMP/cmd.sh"
eval "set -- $(cat "$TMP/cmd.sh")"
shift
run "$@"
if cmp -s "$TMP/out" "$TMP/quoted.ini"; then ok "the recorded command, quotes and all, reproduces the file"; else
    not_ok "the quoted command gives another file"; cat "$TMP/cmd.sh"; fi
run gen transformer --preset llama3-8b --gpu H100 --seq "$(printf '0%.0s' $(seq 1 170))8192"
expect_status 2 "an argument longer than a header line"
expect_stderr "pipeplan gen: an argument too long to record in the file's header (expected at most 160 bytes each)" \
    "an argument longer than a header line: refused rather than recorded cut in two"

# --force with nothing to overwrite is refused, as solve refuses it; a
# flag that repeats the preset's value leaves the name alone; a preset's
# value that clashes with a flag is named as the preset's
run gen transformer --preset llama3-8b --gpu H100 --force
expect_status 2 "--force without -o"
expect_stderr "pipeplan gen: --force without -o FILE (expected -o FILE to overwrite)" "--force without -o: said"
run gen transformer --preset llama3-8b --gpu H100 --layers 32 --kv-heads 8
expect_stdout_has "name = llama3-8b" "the preset's own values: the preset's name"
run gen transformer --preset llama3-8b --gpu H100 --layers 30
expect_stdout_has "name = llama3-8b-modified" "a value of its own: NAME-modified"
run gen transformer --preset llama3-8b --gpu H100 --heads 4
expect_stderr "pipeplan gen: the preset's 8 kv heads are more than --heads 4 (expected --kv-heads at most the query heads)" \
    "the preset's kv heads are named as the preset's"

# Mistakes: exit 2, nothing on stdout, one line on stderr, no output file.
mistake() {   # mistake NAME EXPECTED-STDERR ARGS...
    name=$1 want=$2
    shift 2
    run gen "$@" -o "$TMP/bad.ini" </dev/null
    expect_status 2 "$name"
    expect_stdout_empty "$name"
    expect_stderr "pipeplan gen: $want" "$name: message"
    if [ -e "$TMP/bad.ini" ]; then not_ok "$name: an output file was written"; else
        ok "$name: no output file"; fi
}
H='(see pipeplan gen --help)'
mistake "no family" "missing the model family (expected 'transformer') $H"
mistake "unknown family" "unknown model family 'mlp' (expected 'transformer')" mlp
mistake "no shape" "missing --layers, --hidden, --heads, --ffn, --vocab, --seq (expected --preset NAME, or all of --layers, --hidden, --heads, --ffn, --vocab and --seq)" \
    transformer --gpu H100
mistake "shape incomplete" "missing --vocab, --seq (expected --preset NAME, or all of --layers, --hidden, --heads, --ffn, --vocab and --seq)" \
    transformer --layers 2 --hidden 64 --heads 4 --ffn 256 --gpu H100
mistake "unknown preset" "unknown --preset 'llama4' (expected one of gpt3-1.3b, gpt3-175b, llama2-7b, llama2-13b, llama2-70b, llama3-8b, llama3-70b, llama3.1-405b)" \
    transformer --preset llama4 --gpu H100
mistake "no gpu" "missing --gpu (expected V100, A100, H100 or H200)" transformer --preset llama3-8b
mistake "unknown gpu" "bad --gpu 'B200' (expected V100, A100, H100 or H200)" \
    transformer --preset llama3-8b --gpu B200
mistake "bf16 on V100" "--dtype bf16 is not supported by the V100 (expected fp16 or fp32)" \
    transformer --preset llama3-8b --gpu V100 --dtype bf16
mistake "bad dtype" "bad --dtype 'int8' (expected bf16, fp16 or fp32)" \
    transformer --preset llama3-8b --gpu H100 --dtype int8
mistake "zero seq" "bad --seq '0': out of range (expected 1 to 1048576)" \
    transformer --preset llama3-8b --gpu H100 --seq 0
mistake "huge micro-batch" "bad --micro-batch '5000': out of range (expected 1 to 1024)" \
    transformer --preset llama3-8b --gpu H100 --micro-batch 5000
mistake "mfu above 1" "bad --mfu '1.5' (expected a fraction of the peak, 0 < X <= 1)" \
    transformer --preset llama3-8b --gpu H100 --mfu 1.5
mistake "mfu with an exponent" "bad --mfu '1e-3': exponents are not accepted (write the number out in full) (expected a fraction of the peak, 0 < X <= 1)" \
    transformer --preset llama3-8b --gpu H100 --mfu 1e-3
mistake "bandwidth without unit" "bad --tp-bandwidth '300' (expected a bandwidth above 0 with a unit, e.g. 300GB/s)" \
    transformer --preset llama3-8b --gpu H100 --tp-bandwidth 300
# with no group it had nothing to time, and went unused without a word
mistake "group bandwidth with no group" "--tp-bandwidth '300GB/s' without --tensor-parallel (expected --tensor-parallel T > 1: the bandwidth is the group's)" \
    transformer --preset llama3-8b --gpu H100 --tp-bandwidth 300GB/s
mistake "bad recompute" "bad --recompute 'some' (expected none, selective or full)" \
    transformer --preset llama3-8b --gpu H100 --recompute some
mistake "bad attention" "bad --attention 'sparse' (expected flash or standard)" \
    transformer --preset llama3-8b --gpu H100 --attention sparse
mistake "heads do not divide hidden" "--heads 48 does not divide --hidden 4096 (expected a head size H/A that is a whole number)" \
    transformer --preset llama3-8b --gpu H100 --heads 48 --kv-heads 8
mistake "kv heads do not divide heads" "--kv-heads 3 does not divide --heads 32 (expected whole groups of query heads)" \
    transformer --preset llama3-8b --gpu H100 --kv-heads 3
mistake "tp does not divide kv heads" "--tensor-parallel 16 does not divide the 32 heads and 8 kv heads (expected a divisor of both: Megatron splits whole heads)" \
    transformer --preset llama3-8b --gpu H100 --tensor-parallel 16
mistake "sequence past the positions" "--seq 4096 is longer than the 2048 learned positions of gpt3-175b (expected at most 2048)" \
    transformer --preset gpt3-175b --gpu A100 --seq 4096
mistake "twice" "--preset given twice (expected it once)" \
    transformer --preset llama3-8b --preset llama3-70b --gpu H100
run gen transformer --preset llama3-8b --gpu
expect_status 2 "value missing"
expect_stderr "pipeplan gen: --gpu needs a value $H" "value missing: message"
# gen reads its flags as solve, sweep and import do: -o and --output are
# one flag, and a flag given again is "given twice" even without a value
mistake "-o and --output" "-o/--output given twice (expected it once)" \
    transformer --preset llama3-8b --gpu H100 --output "$TMP/other.ini"
if [ -e "$TMP/other.ini" ]; then not_ok "-o and --output: a file was written"; else
    ok "-o and --output: no file"; fi
mistake "-o twice" "-o/--output given twice (expected it once)" \
    transformer --preset llama3-8b --gpu H100 -o "$TMP/other.ini"
run gen transformer --preset llama3-8b --gpu H100 --seq=512 --seq
expect_status 2 "twice, the second without a value"
expect_stderr "pipeplan gen: --seq given twice (expected it once)" \
    "twice, the second without a value: message"
mistake "unknown option" "unknown option '--layer' $H" transformer --preset llama3-8b --layer 3
mistake "stray argument" "unexpected argument 'extra' $H" transformer --preset llama3-8b extra
mistake "times over the files' limit" "a transformer layer would take 4.42e+13 ms forward and 8.85e+13 ms backward, over the 1e+12 ms a network file holds (expected a smaller shape or micro-batch, or a higher --mfu)" \
    transformer --gpu H100 --preset llama3.1-405b --seq 1048576 --micro-batch 1024 --mfu 0.000001
# with tensor parallelism a slow group link is a cause too, and the message names it
mistake "times over the limit from the group's link" "the embedding would take 5.87e+13 ms forward and 5.87e+13 ms backward, over the 1e+12 ms a network file holds (expected a smaller shape or micro-batch, or a higher --mfu or --tp-bandwidth)" \
    transformer --gpu H100 --preset llama3-8b --tensor-parallel 8 --tp-bandwidth 0.001B/s

# An explicit shape without a preset; GPT family unless --gated.
run gen transformer --layers 2 --hidden 64 --heads 4 --ffn 256 --vocab 1000 --seq 32 --gpu A100
expect_status 0 "explicit shape"
expect_stdout_has "model: explicit shape, GPT family, 2 layers" "explicit shape is GPT family"
expect_stdout_has "name = transformer" "explicit shape's name"
run gen transformer --preset llama3-8b --layers 4 --gpu H100
expect_status 0 "preset with an override"
expect_stdout_has "name = llama3-8b-modified" "an overridden preset is not called by its name"

# the vocabulary: padded only where T must divide it; the header says what
# Megatron-LM (which pads every vocabulary to a multiple of 128*T) would have
run gen transformer --preset llama3-8b --gpu H100 --tensor-parallel 8
expect_stdout_has "; vocabulary: V = 128256, not padded (T divides it; Megatron-LM pads every vocabulary to a multiple of 128*T, here 129024: --make-vocab-size-divisible-by)" \
    "T divides V: not padded, Megatron's padding named"
run gen transformer --preset gpt3-175b --gpu A100 --tensor-parallel 8
expect_stdout_has "; vocabulary: T does not divide V = 50257: padded to 51200, a multiple of 128*T, as Megatron-LM pads it" \
    "T does not divide V: padded"

# -o never clobbers without --force, and --force replaces.
echo "precious" >"$TMP/keep.ini"
run gen transformer --preset llama3-8b --gpu H100 -o "$TMP/keep.ini"
expect_status 2 "existing output is refused"
expect_stderr "pipeplan gen: $TMP/keep.ini: already exists (use --force to overwrite)" \
    "refusal names the file"
if [ "$(cat "$TMP/keep.ini")" = "precious" ]; then ok "existing output untouched"; else
    not_ok "existing output was changed"; fi
run gen transformer --preset llama3-8b --gpu H100 -o "$TMP/keep.ini" --force
expect_status 0 "--force replaces"
if cmp -s "$TMP/keep.ini" data/networks/llama3-8b.ini; then ok "--force wrote the file"; else
    not_ok "--force did not write the file"; fi
run gen transformer --preset llama3-8b --gpu H100 -o "$TMP/no/such/dir.ini"
expect_status 2 "unwritable output"
expect_stdout_empty "unwritable output"
# a device replaces nothing: no --force needed; a directory or an empty
# name is no output, whatever --force says
run gen transformer --preset llama3-8b --gpu H100 -o /dev/null
expect_status 0 "-o /dev/null without --force"
mkdir "$TMP/adir"
for force in "" --force; do
    run gen transformer --preset llama3-8b --gpu H100 -o "$TMP/adir" $force
    expect_stderr "pipeplan gen: $TMP/adir: a directory (expected a file name)" "-o a directory $force"
done
run gen transformer --preset llama3-8b --gpu H100 -o ""
expect_status 2 "-o ''"
expect_stderr "pipeplan gen: an empty file name (expected a file to write)" "-o '': says so"

# Llama 3 70B on 8x H100-80GB. Without tensor parallelism no split fits:
# the weights alone with Adam (phi = 4) fill ~70 GiB of each GPU.
plat=data/platforms/dgx-h100.ini
run solve data/networks/llama3-70b.ini "$plat" --planner dp
expect_status 0 "TP8 file: 8 pipeline ranks of 8 GPUs (64 GPUs) fit"
expect_stdout_has "tensor parallel 8: each of the 8 pipeline ranks is a group of 8 GPUs (64 GPUs in all)" \
    "the table says a GPU of the plan is a TP8 group"
run solve data/networks/llama3-70b.ini "$plat" --planner uniform --json
if jq -e '.problem.tensor_parallel == 8 and .problem.gpus == 8' "$TMP/out" >/dev/null; then
    ok "JSON: tensor_parallel 8, gpus 8 (ranks)"; else not_ok "JSON: tensor_parallel"; fi
run solve data/networks/vgg16.ini "$plat" --planner uniform --json
if jq -e '.problem.tensor_parallel == 1' "$TMP/out" >/dev/null; then
    ok "JSON: tensor_parallel 1 for a profiled network"; else not_ok "JSON: tensor_parallel 1"; fi
run gen transformer --preset llama3-70b --gpu H100 -o "$TMP/l70.ini"
run solve "$TMP/l70.ini" "$plat" --planner dp,ilp --work-limit 20
expect_status 1 "70B without TP on 8x80GB: nothing fits"
expect_stdout_has "No plan fits." "solve says nothing fits"
# The same 8 GPUs as one TP8 group (one pipeline rank): 65.7 GiB of weight
# state + 21.7 GiB of stored activations per GPU do not fit either ...
run solve data/networks/llama3-70b.ini "$plat" --gpus 1 --planner dp
expect_status 1 "one TP8 group of 8x80GB, no recomputation: nothing fits"
expect_stdout_has "needs 89.5 GiB" "it needs 89.5 GiB per GPU (89.4x, rounded up)"
# ... but with full recomputation they do (2 GiB of activations).
run gen transformer --preset llama3-70b --gpu H100 --tensor-parallel 8 --recompute full \
    -o "$TMP/l70full.ini"
run solve "$TMP/l70full.ini" "$plat" --gpus 1 --planner dp
expect_status 0 "one TP8 group with full recomputation fits"
# On 8x H200-141GB the 70B fits without tensor parallelism.
run solve "$TMP/l70.ini" data/platforms/hgx-h200.ini --planner dp
expect_status 0 "70B without TP on 8x H200: fits"

finish
