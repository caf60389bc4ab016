#!/bin/sh
# seed.sh PIPEPLAN: rebuild the seed corpora in fuzz/corpus/ from data/,
# the tests' fixtures and plans PIPEPLAN (a built pipeplan) writes. Run
# from the source tree; the result is committed (make fuzz works on a
# copy and never grows it). Each seed is named after where it comes from.
set -eu
pp=${1:?usage: fuzz/seed.sh PIPEPLAN}
c=fuzz/corpus
rm -rf "$c"
mkdir -p "$c/network" "$c/platform" "$c/units" "$c/import" "$c/planfile" "$c/split" \
    "$c/schedule" "$c/sweep"

# spec files without their comment headers (the readers skip comments;
# the seeds stay small)
strip() { grep -v '^;' "$1" | cat -s; }
for f in data/networks/*.ini fuzz/problem/network.ini; do
    strip "$f" >"$c/network/$(basename "$(dirname "$f")")-$(basename "$f" .ini)"
done
for f in data/platforms/*.ini fuzz/problem/platform.ini; do
    strip "$f" >"$c/platform/$(basename "$(dirname "$f")")-$(basename "$f" .ini)"
done
# tests/cli_check.sh's small good and bad files
net='[network]\nname = n\nmicro_batch = 8\n'
layer='[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n'
printf '%b' "$net$layer" >"$c/network/check-small"
printf '%b' "$net$layer"'colour = red\n' >"$c/network/check-unknown-key"
printf '%b' "$net$layer$layer" >"$c/network/check-dup-layer"
printf '%b' "$net"'tensor_parallel = 2\nsource = x\n[layer a]\nforward = 1us\n' \
    'backward = 0.5s\nweights = 0B\nactivation = 1KiB\nstored = 2MiB\n' >"$c/network/check-keys"
printf '%b' "$net"'[layer a]\nforward = -1ms\n' >"$c/network/check-negative"
printf '%b' '[platform]\nname = p\ngpus = 2\nmemory = 1GiB\nreserved = 2GiB\nbandwidth = 1GB/s\n' \
    'latency = 1us\n[training]\nmicro_batches = 2\nschedule = 1f1b\noptimizer = adam\n' \
    >"$c/platform/check-below-reserved"
printf '%b' '[platform]\nname = p\ngpus = 2\nmemory = 2GiB\nreserved = 1GiB\nbandwidth = 8Gbit/s\n' \
    'latency = 0.01ms\n[gpu 1]\nmemory = 3GiB\n[training]\nmicro_batches = 2\n' \
    'schedule = pipedream\nweight_factor = 2.5\n' >"$c/platform/check-gpu-factor"

# the values the data files hold (times, sizes, bandwidths, counts), one
# of each shape (digits aside), one per seed
i=0
{ sed -n 's/^[a-z_]* *= *//p' data/networks/*.ini data/platforms/*.ini | sort -u |
      awk '{ k = $0; gsub(/[0-9]+/, "9", k); if (!seen[k]++) print }'
  printf '%s\n' '0.5 s' ' 250us ' '+1.5KB' '37600B' '16GiB' '1TiB' '99999999999GB' '1e3ms' \
      '100Gbit/s' '800MB/s' '4' '2.5' '.5ms' '5.' '-1ms' '0.000000000000000000001B'
} | sort -u | while IFS= read -r v; do
    i=$((i + 1))
    printf '%s' "$v" >"$c/units/value-$i"
done

# PipeDream's profiles, and tests/test_import.c's kind of small graph
for f in data/pipedream/*/graph.txt; do
    cp "$f" "$c/import/$(basename "$(dirname "$f")")"
done
printf '%s\n' \
    'node1 -- Input0 -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=100.0, parameter_size=0.000' \
    'node2 -- Conv2d(3, 64) -- forward_compute_time=1.5, backward_compute_time=2.5e0, activation_size=2E2, parameter_size=64' \
    'node3 -- ReLU -- forward_compute_time=0.5, backward_compute_time=0.5, activation_size=200, parameter_size=0' \
    'node4 -- Add -- forward_compute_time=0.1, backward_compute_time=0.1, activation_size=200, parameter_size=0' \
    '	node1 -- node2' '	node2 -- node3' '	node2 -- node4' '	node3 -- node4' >"$c/import/small-dag"

# plan files pipeplan writes for fuzz_problem.h's problems (every planner
# but the ILP, whose plan is one of theirs), and --split values
prob="fuzz/problem/network.ini fuzz/problem/platform.ini"
for planner in dp pipedream time parameters uniform; do
    for knob in "" "--schedule pipedream" "--gpus 3"; do
        tag=$(printf '%s' "$knob" | tr -d ' -')
        # shellcheck disable=SC2086
        "$pp" solve $prob $knob --planner "$planner" --format plan \
            >"$c/planfile/$planner${tag:+-$tag}" 2>/dev/null || rm -f "$c/planfile/$planner${tag:+-$tag}"
        # shellcheck disable=SC2086
        "$pp" solve $prob $knob --planner "$planner" --format megatron 2>/dev/null |
            sed -n 's/.*--pipeline-model-parallel-layout "\(.*\)"$/megatron:\1/p' |
            tr -d '\n' >"$c/split/megatron-$planner${tag:+-$tag}"
        # shellcheck disable=SC2086
        "$pp" solve $prob $knob --planner "$planner" --format deepspeed 2>/dev/null |
            sed -n 's/^parts = \[\(.*\), [0-9]*\]$/\1/p' | tr -d ' \n' >"$c/split/list-$planner${tag:+-$tag}"
    done
done
# tests/cli_planio.sh's kinds of --split
printf '%s' '0,3,6,8' >"$c/split/list-planio"
printf '%s' '0' >"$c/split/list-one"
printf '%s' 'megatron:Et|t|t|t|t|t|t|tL' >"$c/split/megatron-virtual"
printf '%s' 'megatron:E(t|)*7tL' >"$c/split/megatron-repeat"
printf '%s' 'megatron:Et*3,|t*3|(t|)*2L' >"$c/split/megatron-commas"
# DeepSpeed's parts and torchtitan's module lists, as the exports write them
for planner in dp uniform; do
    # shellcheck disable=SC2086
    "$pp" solve $prob --planner "$planner" --format deepspeed 2>/dev/null |
        sed -n 's/^parts = \(.*\)$/deepspeed:\1/p' | tr -d '\n' >"$c/split/deepspeed-$planner"
    # shellcheck disable=SC2086
    "$pp" solve $prob --planner "$planner" --format torch 2>/dev/null |
        sed -n '/^module_fqns_per_model_part = \[/,/^\]/p' |
        sed '1s/^module_fqns_per_model_part = /torchtitan:/' >"$c/split/torchtitan-$planner"
done
printf '%s' 'deepspeed:0,1,1,2' >"$c/split/deepspeed-empty-stage"
printf '%s' 'megatron:--decoder-first-pipeline-num-layers 1 --decoder-last-pipeline-num-layers=3' \
    >"$c/split/megatron-args-uneven"
printf '%s' "megatron:--num-layers 8 --pipeline-model-parallel-layout 'Et*4|t*4L'" \
    >"$c/split/megatron-args-layout"
printf '%s' 'megatron: --account-for-embedding-in-pipeline-split --num-virtual-stages-per-pipeline-rank 2' \
    >"$c/split/megatron-args-account"
printf '%s' "torchtitan:v:[['a'], ['b'] ,]" >"$c/split/torchtitan-v"
# torch-schedule CSVs as solve writes them (check reads them back): the
# README's AlexNet, and fuzz_problem.h's problems under a few planners;
# then small ones as written by hand (idle cells, CRLF, no last newline)
"$pp" solve data/networks/alexnet.ini data/platforms/v100-16gb-pcie-4.ini --work-limit 20 \
    --format torch-schedule >"$c/schedule/alexnet-v100" 2>/dev/null
for planner in dp parameters uniform; do
    for knob in "" "--schedule pipedream" "--gpus 3"; do
        tag=$(printf '%s' "$knob" | tr -d ' -')
        # shellcheck disable=SC2086
        "$pp" solve $prob $knob --planner "$planner" --format torch-schedule \
            >"$c/schedule/$planner${tag:+-$tag}" 2>/dev/null || rm -f "$c/schedule/$planner${tag:+-$tag}"
    done
done
printf '0F0,0B0\n' >"$c/schedule/one-rank"
printf '0F0,0F1,,1B0\r\n,1F0,1B0,0B0,1F1,1B1,0B1\r\n' >"$c/schedule/idle-crlf"
printf ' 0F0 ,0B0,1F0\n1F0' >"$c/schedule/short"

# sweep CSVs a sweep writes and reads back (resumed, merged): a small grid
# on fuzz_problem.h's problem, a shard of it, the last row cut short (a
# killed run), and saved again with a BOM and CRLF. The seconds column
# differs between runs.
tmp=$(mktemp -d)
# shellcheck disable=SC2086
"$pp" sweep $prob --gpus 3,4 --schedule 1f1b,pipedream --planner ilp,dp,uniform --work-limit 20 \
    -o "$tmp/all.csv" 2>/dev/null
# shellcheck disable=SC2086
"$pp" sweep $prob --gpus 3,4 --schedule 1f1b,pipedream --planner ilp,dp,uniform --work-limit 20 \
    --shard 1/2 -o "$tmp/shard.csv" 2>/dev/null
cp "$tmp/all.csv" "$c/sweep/grid"
cp "$tmp/shard.csv" "$c/sweep/shard-1-2"
head -c -40 "$tmp/all.csv" >"$c/sweep/partial-row"
{ printf '\357\273\277'; sed 's/$/\r/' "$tmp/shard.csv"; } >"$c/sweep/bom-crlf"
grep -v '^[0-9]' "$tmp/all.csv" >"$c/sweep/no-rows"
rm -rf "$tmp"
# identical seeds are one
for d in "$c"/*; do
    md5sum "$d"/* | sort | awk 'seen[$1]++ { print $2 }' | xargs -r rm -f
    find "$d" -type f -empty -delete
done
du -sh "$c"
