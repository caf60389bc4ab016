#!/bin/sh
# solve with your plan (--split, --plan) and the output formats
# (--format, -o, --force): the user row, round trips, atomic writes,
# errors with the option or FILE:LINE and exit 2.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$TMP" || exit 1
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; exit 1; }

# a transformer network as pipeplan gen transformer names its layers
{
    printf '[network]\nname = tiny-gpt\nmicro_batch = 4\ntensor_parallel = 2\n\n'
    printf '[layer tok_embeddings]\nforward = 1ms\nbackward = 2ms\nweights = 200MB\nactivation = 10MB\n\n'
    for i in 0 1 2 3 4 5 6 7; do
        printf '[layer layers.%d]\nforward = 3ms\nbackward = 6ms\nweights = 100MB\nactivation = 10MB\nstored = 60MB\n\n' "$i"
    done
    printf '[layer norm]\nforward = 0.5ms\nbackward = 1ms\nweights = 1MB\nactivation = 10MB\n\n'
    printf '[layer output]\nforward = 2ms\nbackward = 4ms\nweights = 200MB\nactivation = 1MB\n'
} >gpt.ini
printf '[platform]\nname = four\ngpus = 4\nmemory = 16GiB\nreserved = 1GiB\nbandwidth = 10GB/s\nlatency = 10us\n\n[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = adam\n' >four.ini

# ---- --split: the user row with its memory and fit ----
run solve gpt.ini four.ini --planner dp --split 0,3,6,8
expect_status 0 "--split list"
expect_stdout_has "your split       feasible" "--split: a 'your split' row"
expect_stdout_has "  your split: --split 0,3,6,8" "--split: the row says where it comes from"
run solve gpt.ini four.ini --planner dp --split 0,3,6,8 --memory 2GiB
expect_stdout_has "your split       no_fit" "--split under a small cap: no_fit"
if grep -q "^  your split: does not fit: rank [0-3] needs [0-9.]* GiB of its 2.00 GiB$" "$TMP/out"; then
    ok "--split that does not fit: which rank needs how much of its cap"; else
    not_ok "--split: the does-not-fit note"; cat "$TMP/out"; fi
expect_stdout_lacks "your split: its own memory rule" "--split: no memory rule is said of yours"
if grep -q "^your split .*needs [0-9.]* GiB" "$TMP/out"; then ok "--split: says the memory it needs"; else
    not_ok "--split: needs"; cat "$TMP/out"; fi
run solve gpt.ini four.ini --planner dp --split 0,3,6,8 --json
if jq -e '.plans | map(select(.planner == "user")) | length == 1 and (.[0] | .assignment ==
        [0,0,0,1,1,1,2,2,3,3,3] and .fits == true and (.gpus | length == 4)
        and .gpus[0].memory.total > 0)' "$TMP/out" >/dev/null; then
    ok "--split --json: the user plan, its allocation and memory per GPU"
else
    not_ok "--split --json"; cat "$TMP/out"
fi
run solve gpt.ini four.ini --planner dp --split 0,0x3
expect_stderr "pipeplan solve: bad --split '0,0x3': '0x3' is not a layer index (expected 0-based layer indices separated by commas, e.g. 0,12,24)" \
    "--split: a number that is not one"
long=$(seq -s, 0 3000)
run solve gpt.ini four.ini --planner dp --split "$long"
if grep -q "^pipeplan solve: bad --split '0,1,2,.*\.\.\.': " "$TMP/err" && [ "$(wc -c <"$TMP/err")" -lt 300 ]; then
    ok "--split: a long value is quoted in part"; else not_ok "--split long: $(head -c 300 "$TMP/err")"; fi
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --json
if jq -e '[.plans[].planner] == ["user"] and .plans[0].assignment == [0,0,1,2,3,0,1,2,3,3,3]' \
        "$TMP/out" >/dev/null; then
    ok "--split megatron: virtual stages round-robin over the GPUs"
else
    not_ok "--split megatron"; cat "$TMP/out" "$TMP/err"
fi

# ---- bad --split / --plan: one line, exit 2 ----
run solve gpt.ini four.ini --planner dp --split 0,5,3
expect_status 2 "bad --split"
expect_stderr "pipeplan solve: bad --split '0,5,3': layer 3 after 5 (expected strictly increasing layer indices)" \
    "bad --split: names the option and what was expected"
expect_stdout_empty "bad --split"
run solve gpt.ini four.ini --split 0,3,6,8,9
expect_stderr "pipeplan solve: bad --split '0,3,6,8,9': more than 4 stages (expected at most one stage per GPU, or per pipeline rank of a tensor-parallel network; --gpus changes them)" \
    "--split: more stages than GPUs"
run solve gpt.ini four.ini --split 0,30
expect_stderr "pipeplan solve: bad --split '0,30': layer 30 out of range (expected 0 to 10: the network has 11 layers)" \
    "--split: index out of range"
run solve gpt.ini four.ini --split 'megatron:Et*2|t*2|t*2|tL'
expect_status 2 "bad megatron layout"
expect_stderr "pipeplan solve: bad --split 'megatron:Et*2|t*2|t*2|tL': 7 transformer layers 't' (expected 8: the network has layers.0 .. layers.7)" \
    "megatron layout that does not match the network"
run solve "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" four.ini --split 'megatron:EtL'
expect_status 2 "megatron layout on a network that is no transformer"
if grep -q "^pipeplan solve: bad --split 'megatron:EtL': not a transformer network: layer 0 is " "$TMP/err"; then
    ok "megatron layout: not a transformer network"; else not_ok "not a transformer"; cat "$TMP/err"; fi
run solve gpt.ini four.ini --planner user
expect_stderr "pipeplan solve: --planner user needs your plan (expected --split SPEC or --plan FILE)" \
    "--planner user without a plan"
run solve gpt.ini four.ini --split 0 --plan x.plan
expect_status 2 "--split and --plan"

# ---- --plan round trip via --format plan -o ----
run solve gpt.ini four.ini --planner dp --format plan -o dp.plan
expect_status 0 "--format plan -o"
expect_stdout_empty "--format plan -o"
run solve gpt.ini four.ini --planner user --plan dp.plan --format plan -o back.plan
expect_status 0 "--plan reads it back"
if diff dp.plan back.plan | grep -v '^[<>] ; ' | grep -q '^[<>]'; then
    not_ok "plan round trip: files differ beyond the comment"; diff dp.plan back.plan | head
else
    ok "plan round trip: the same allocation, period and start times"
fi
# over its cap the header rounds a GPU's total up, as the table's "needs"
# (101.36 GiB: "102 GiB", which fits as a cap; "101" did not)
run solve "$PIPEPLAN_SRCDIR/data/networks/llama3-8b.ini" "$PIPEPLAN_SRCDIR/data/platforms/a100-40gb-8.ini" \
    --gpus 1 --work-limit 300 --format plan
expect_status 1 "--format plan of a plan that does not fit"
expect_stdout_has "; GPU 0: 102 GiB of 40.0 GiB" "plan file: a total over its cap is rounded up"
# nothing fits: the export writes the row that needs the least memory at
# the cap given, not the plan the table shows at the least cap; one line
# says so, with that cap to paste, and at that cap a plan fits
a10="$PIPEPLAN_SRCDIR/data/platforms/a10-24gb-pcie-4.ini"
l8b="$PIPEPLAN_SRCDIR/data/networks/llama3-8b.ini"
least="pipeplan solve: nothing fits at 24.0 GiB: wrote param-balanced's plan, which needs 55.7 GiB; the mem-aware DP's plan for 28.7 GiB needs less: plan with --memory 28.7GiB to export a plan that fits in it"
run solve "$l8b" "$a10" --work-limit 300 --format plan
expect_status 1 "--format plan when nothing fits"
expect_stdout_has "; llama3-8b on 4 GPUs, plan: param-balanced" "nothing fits: the plan that needs the least memory is written"
expect_stderr "$least" "nothing fits: the plan written is not the one that fits at the least cap, said so"
run solve "$l8b" "$a10" --work-limit 300 --format megatron
expect_stderr "$least" "nothing fits: the megatron export says so too"
run solve "$l8b" "$a10" --work-limit 300 --format plan --memory 28.7GiB
expect_status 0 "the cap the line names fits"
run solve "$l8b" "$a10" --work-limit 300 --format plan --planner parameters
expect_stderr "" "nothing fits, the plan named by --planner: nothing to say"
run solve gpt.ini four.ini --planner dp --plan dp.plan --json
if jq -e '(.plans | map(select(.planner == "dp"))[0]) as $d | (.plans | map(select(.planner == "user"))[0]) as $u
        | $u.assignment == $d.assignment and $u.period_ms == $d.period_ms
        and $u.peak_memory == $d.peak_memory and ($u.gpus | map(.memory.total)) == ($d.gpus | map(.memory.total))' \
        "$TMP/out" >/dev/null; then
    ok "--plan: same allocation, period and memory as the plan written"
else
    not_ok "--plan round trip"; cat "$TMP/out"
fi
# the settings it was judged for travel with it: read under others, said
if grep -qx 'schedule = 1f1b' dp.plan && grep -qx 'micro_batches = 8' dp.plan &&
   grep -qx 'weight_factor = 4' dp.plan; then ok "plan file: the settings it was judged for"; else
    not_ok "plan file settings"; sed -n '/^\[plan\]/,/^$/p' dp.plan; fi
expect_stderr "" "--plan under the settings it was written for: nothing said"
run solve gpt.ini four.ini --planner user --plan dp.plan --schedule pipedream --micro-batches 2
expect_status 0 "--plan under other settings"
expect_stderr "pipeplan solve: dp.plan was written for 1f1b and 8 micro-batches; judged here for pipedream and 2 micro-batches" \
    "--plan under other settings: which, on stderr"
run solve gpt.ini four.ini --planner user --plan dp.plan --weight-factor 2.5
expect_stderr "pipeplan solve: dp.plan was written for weight factor 4; judged here for weight factor 2.5" \
    "--plan under another weight factor"
# a file of before these keys reads as ever, with nothing to say
grep -v -e '^schedule = ' -e '^micro_batches = ' -e '^weight_factor = ' dp.plan >old.plan
run solve gpt.ini four.ini --planner user --plan old.plan --schedule pipedream
expect_status 0 "a plan file without the settings"
expect_stderr "" "a plan file without the settings: no note"
for kv in "schedule = gpipe|bad schedule 'gpipe' (expected 1f1b or pipedream)" \
          "micro_batches = 0|micro_batches = 0 (expected at least 1)" \
          "weight_factor = x|bad weight_factor 'x': not a number (expected a number, e.g. 4)"; do
    key=${kv%% =*}
    line=$(grep -n "^$key = " dp.plan | cut -d: -f1)
    sed "s/^$key = .*/${kv%%|*}/" dp.plan >bad.plan
    run solve gpt.ini four.ini --plan bad.plan
    expect_stderr "bad.plan:$line: ${kv#*|}" "plan file, ${kv%%|*}: its line and what was expected"
done
sed 's/^gpus = 4/gpus = 8/' dp.plan >bad.plan
run solve gpt.ini four.ini --plan bad.plan
expect_status 2 "bad plan file"
# gpt.ini is tensor-parallel: its plan's GPUs are pipeline ranks, as
# --gpus counts them (the plan file said "the GPUs being planned")
expect_stderr "bad.plan:12: gpus = 8 (expected 4, the pipeline ranks being planned; --gpus changes them)" \
    "bad plan file: FILE:LINE and what was expected"
if grep -q '^; tiny-gpt on 4 ranks, plan: ' dp.plan && grep -q '^; rank 3: ' dp.plan &&
   ! grep -q '^; GPU' dp.plan; then
    ok "plan file of a tensor-parallel network: its comments count ranks"; else
    not_ok "plan file of a tensor-parallel network: its comments count ranks"; head -8 dp.plan; fi
expect_stdout_empty "bad plan file"
# times: decimal, with a unit, within range
line=$(grep -n '^period = ' dp.plan | cut -d: -f1)
for v in 1e20ms 0x1p4ms; do
    sed "s/^period = .*/period = $v/" dp.plan >bad.plan
    run solve gpt.ini four.ini --plan bad.plan
    expect_status 2 "plan file, period $v"
    case $v in
        1e20ms) want="bad.plan:$line: period = 1e20ms is out of range (expected at most 1e+15ms)" ;;
        *) want="bad.plan:$line: bad period '$v' (expected a time with its unit, e.g. 12.5ms)" ;;
    esac
    expect_stderr "$want" "plan file, period $v: FILE:LINE and why"
done
# a plan longer than a plan file holds is not written, so every file written reads back
sed 's|^bandwidth = .*|bandwidth = 0.000001B/s|; s|^memory = .*|memory = 4GiB|' four.ini >crawl.ini
run solve gpt.ini crawl.ini --planner dp --format plan -o crawl.plan
expect_status 2 "a period past what a plan file holds"
expect_stderr "pipeplan solve: cannot write plan mem-aware DP as plan: its period, 1e+13 s, is beyond the longest time a plan file holds (10^12 s)" \
    "a period past what a plan file holds: says so"
if [ ! -e crawl.plan ]; then ok "a period past what a plan file holds: no file"; else not_ok "crawl.plan written"; fi
sed 's|^bandwidth = .*|bandwidth = 0.001B/s|; s|^memory = .*|memory = 4GiB|' four.ini >crawl.ini
run solve gpt.ini crawl.ini --planner dp --format plan -o crawl.plan
expect_status 0 "a long period within what a plan file holds"
run solve gpt.ini crawl.ini --planner user --plan crawl.plan
expect_status 0 "a long period within what a plan file holds: reads back"
run check dp.plan
expect_stderr "dp.plan:$(grep -n '^\[plan\]' dp.plan | cut -d: -f1): a plan file, which needs its network and GPUs (expected a network or a platform file; check a plan with pipeplan solve NETWORK.ini PLATFORM.ini --plan dp.plan)" \
    "check of a plan file: says how to check one"
# a negative start: refused on its own line, not by the simulator at the period's
line=$(grep -n '^backward_start = ' dp.plan | head -1 | cut -d: -f1)
sed "${line}s/^backward_start = .*/backward_start = -23ms/" dp.plan >bad.plan
run solve gpt.ini four.ini --plan bad.plan
expect_stderr "bad.plan:$line: backward_start = -23ms is negative (expected a time from 0)" \
    "plan file, a negative start: its own line"
# a start that breaks the schedule: the simulator's reason on that start's line
line=$(grep -n '^forward_start = ' dp.plan | tail -1 | cut -d: -f1)
sed "${line}s/^forward_start = .*/forward_start = 1ms/" dp.plan >bad.plan
run solve gpt.ini four.ini --plan bad.plan
if grep -q "^bad.plan:$line: the schedule does not pass the simulator: F10 of micro-batch 0 starts at 1 ms" "$TMP/err"; then
    ok "plan file, a start the simulator refuses: that start's line"; else
    not_ok "plan file, simulator: wanted line $line"; cat "$TMP/err"; fi
# a transfer not waited for: the simulator names the plan's ranks
line=$(grep -n '^forward_start = 8.01ms$' dp.plan | cut -d: -f1)
sed "${line}s/^forward_start = .*/forward_start = 7.5ms/" dp.plan >bad.plan
run solve gpt.ini four.ini --plan bad.plan
expect_stderr "bad.plan:$line: the schedule does not pass the simulator: F3 of micro-batch 0 starts at 7.5 ms on rank 1, before F2's output reaches it from rank 0 at 8.01 ms (F2 ends at 7, transfer 1.01 ms) (expected a valid periodic schedule, doc/model.md section 6)" \
    "plan file of a tensor-parallel network: the simulator says rank"
# a plan of two runs on one GPU read under --layout contiguous: the file named
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format plan -o two.plan
# the same split to Megatron: 2 virtual stages a rank, whose interleaved
# schedule refuses 6 micro-batches on 4 ranks; with 8 it says nothing
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format megatron \
    --micro-batches 6
expect_stdout_has "# warning: Megatron-Core's interleaved schedule refuses 6 micro-batches on 4 pipeline ranks (it takes a multiple of the ranks, its microbatch_group_size_per_vp_stage); plan with --micro-batches 8, or one stage a rank (--layout contiguous)" \
    "megatron: interleaved with a count Megatron refuses, said"
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format megatron \
    --micro-batches 8
expect_stdout_lacks "interleaved schedule refuses" "megatron: 8 micro-batches on 4 ranks, nothing to say"
expect_stdout_lacks "hold no layer" "megatron: no empty chunk, nothing to say"
# a pipedream plan: Megatron flushes, so its time is the split's as 1F1B,
# and no runtime runs the plan's asynchronous order
run solve gpt.ini four.ini --planner dp --schedule pipedream --format megatron
expect_stdout_has "# note: Megatron flushes every iteration: it runs this split as 1F1B, which pipeplan judges at an iteration of" \
    "megatron, pipedream plan: the flushed time"
expect_stdout_lacks "runs from the torch-schedule export" "megatron, pipedream plan: no claim that torch runs it"
# empty chunks: Megatron passes every micro-batch through them
run solve gpt.ini four.ini --planner user --split 'megatron:Et*2|t|t||t|t||t*2L' --format megatron \
    --micro-batches 8
expect_stdout_has "# warning: 2 of the 8 model chunks hold no layer; Megatron passes every micro-batch through each of them (a receive and a send each way), which the plan does not count" \
    "megatron: empty model chunks, said"
run solve gpt.ini four.ini --layout contiguous --plan two.plan
expect_status 2 "a plan file of two runs on a GPU, contiguous layout"
expect_stderr "two.plan: your plan: GPU 0 holds a second run of layers from layer 5: the contiguous layout gives a GPU one" \
    "a plan file the layout refuses: the file named"

# ---- formats ----
run solve gpt.ini four.ini --planner dp --format csv
expect_status 0 "--format csv"
if [ "$(head -1 "$TMP/out")" = "index,name,gpu,stage,forward_start_ms,backward_start_ms,in_flight,stored_bytes" ] &&
   [ "$(wc -l <"$TMP/out")" -eq 12 ]; then ok "csv: header and one row per layer"; else
    not_ok "csv"; cat "$TMP/out"; fi
# in_flight is the copies kept (at most the micro-batches with 1f1b),
# stored_bytes those copies of the layer's 60 MB: with 2 micro-batches
# GPU 0's layers have an in-flight count n of 4, and keep 2
run solve gpt.ini four.ini --planner uniform --micro-batches 2 --format csv
if awk -F, 'NR > 1 { if ($7 > 2 || ($2 ~ /^layers/ && $8 != $7 * 60000000)) bad = 1; if ($7 == 2) full = 1 }
            END { exit !(full && !bad) }' "$TMP/out"; then
    ok "csv: in_flight at most the micro-batches, stored_bytes that many copies"
else
    not_ok "csv: in_flight"; cat "$TMP/out"
fi
# a network Megatron cannot take is refused before any planner runs (it
# was refused after the whole solve, seconds of it)
run solve "$PIPEPLAN_SRCDIR/data/networks/vgg16.ini" four.ini --planner dp --format megatron \
    -o "$TMP/vgg.args"
expect_status 2 "megatron: a network that is no transformer"
expect_stderr "pipeplan solve: cannot write a plan of $PIPEPLAN_SRCDIR/data/networks/vgg16.ini as megatron: Megatron's layout needs a transformer network: layer 0 is 'node1-Input' (expected 'tok_embeddings': a transformer network made by pipeplan gen transformer has tok_embeddings, layers.0 .. layers.N-1, norm, output)" \
    "megatron: refused before planning, one line"
if [ ! -e "$TMP/vgg.args" ]; then ok "megatron refused: no file"; else not_ok "megatron refused: a file"; fi
run solve gpt.ini four.ini --planner dp --format megatron
expect_stdout_has '--pipeline-model-parallel-size 4 --pipeline-model-parallel-layout "' "megatron: the arguments"
# with sequence parallelism, which the network's shards assume and Megatron
# leaves off unless asked (the export ran tensor parallelism without it)
expect_stdout_has '--tensor-model-parallel-size 2 --sequence-parallel' "megatron: tensor and sequence parallel from the network"
layout=$(sed -n 's/.*--pipeline-model-parallel-layout "\([^"]*\)".*/\1/p' "$TMP/out")
run solve gpt.ini four.ini --planner dp --json
dp_assign=$(jq -c '.plans[0].assignment' "$TMP/out")
run solve gpt.ini four.ini --planner user --split "megatron:$layout" --json
if [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "$dp_assign" ]; then
    ok "megatron round trip: the layout read back gives the same allocation"; else
    not_ok "megatron round trip ($layout)"; fi
# the export's whole argument line, quotes and sizes too
run solve gpt.ini four.ini --planner dp --format megatron
args=$(grep '^--pipeline-model-parallel-size' "$TMP/out")
run solve gpt.ini four.ini --planner user --split "megatron:$args" --json
if [ -n "$args" ] && [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "$dp_assign" ]; then
    ok "megatron round trip of the argument line"; else not_ok "megatron argument line ($args)"; fi
# Megatron's uneven first and last stages: 1 and 3 of the 8 layers, 2 each between
run solve gpt.ini four.ini --planner user --json --split \
    'megatron:--decoder-first-pipeline-num-layers 1 --decoder-last-pipeline-num-layers 3'
if [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "[0,0,1,1,2,2,3,3,3,3,3]" ]; then
    ok "megatron's first/last stage arguments"; else not_ok "megatron first/last"; cat "$TMP/err"; fi
run solve gpt.ini four.ini --planner user --format megatron --split \
    'megatron:--decoder-first-pipeline-num-layers 1 --decoder-last-pipeline-num-layers 3'
expect_stdout_has "# the same split in the arguments of Megatron before the layout: --pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 1 --decoder-last-pipeline-num-layers 3" \
    "megatron export: the same split in first/last stage arguments"
# a tensor-parallel network: the comment's arguments carry its size too,
# and read back as the same split
run solve "$PIPEPLAN_SRCDIR/data/networks/llama3-70b.ini" "$PIPEPLAN_SRCDIR/data/platforms/dgx-h100.ini" \
    --planner user --format megatron --split \
    'megatron:--decoder-first-pipeline-num-layers 8 --decoder-last-pipeline-num-layers 6'
expect_stdout_has "# the same split in the arguments of Megatron before the layout: --pipeline-model-parallel-size 8 --decoder-first-pipeline-num-layers 8 --decoder-last-pipeline-num-layers 6 --tensor-model-parallel-size 8" \
    "megatron export, TP8: the first/last stage arguments with the tensor size"
tpargs=$(sed -n 's/^# the same split in the arguments of Megatron before the layout: //p' "$TMP/out")
run solve "$PIPEPLAN_SRCDIR/data/networks/llama3-70b.ini" "$PIPEPLAN_SRCDIR/data/platforms/dgx-h100.ini" \
    --planner user --format megatron --split "megatron:$tpargs"
expect_status 0 "megatron, TP8: the comment's arguments read back"
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format megatron
expect_stdout_has '"Et|t|t|t|t|t|t|tL"' "megatron: virtual stages written back"
# Megatron's interleaved 1F1B warms up (P - r - 1) * 2 + (V - 1) * P chunk
# forwards: 11 in flight on rank 0 of 4 with 2 stages each (8 micro-batches)
if grep -q "^# warning: on rank 0 the plan keeps [0-9]* chunk-micro-batches in flight (its 2 stages together) where Megatron's interleaved 1F1B keeps up to 11:" "$TMP/out"; then
    ok "megatron, virtual stages: warns where the interleaved 1F1B keeps more in flight"; else
    not_ok "megatron interleaved warning"; cat "$TMP/out"; fi
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format deepspeed
expect_status 2 "deepspeed: a plan that is not contiguous"
# the network is tensor-parallel: the plan's GPUs are pipeline ranks
if grep -q "^pipeplan solve: cannot write plan your split as deepspeed: rank 0 holds layers 0 and 5 but not the layers between" "$TMP/err"; then
    ok "deepspeed: says why, naming a pipeline rank"; else not_ok "deepspeed message"; cat "$TMP/err"; fi
sed '/^tensor_parallel = /d' gpt.ini >gpt1.ini
run solve gpt1.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format deepspeed
if grep -q "^pipeplan solve: cannot write plan your split as deepspeed: GPU 0 holds layers 0 and 5 but not the layers between" "$TMP/err"; then
    ok "deepspeed: says why, naming a GPU without tensor parallelism"; else not_ok "deepspeed message, TP 1"; cat "$TMP/err"; fi
run solve gpt.ini four.ini --planner user --split 0,3,6,8 --format deepspeed
expect_stdout_has "parts = [0, 3, 6, 8, 11]" "deepspeed: parts"
expect_stdout_has "_partition_layers" "deepspeed: says how PipelineModule takes it"
# the network's tensor parallelism (2) goes with every export, not only megatron's:
# run unsharded, each GPU would hold twice the weights planned
expect_stdout_has "# tensor parallel 2: each stage is a group of 2 GPUs; pass topology=PipeModelDataParallelTopology(num_pp=4, num_mp=2, num_dp=...)" \
    "deepspeed: the tensor-parallel topology"
run solve gpt.ini four.ini --planner user --split 0,3,8 --format deepspeed
expect_stdout_has "# 3 of the 4 pipeline ranks hold layers: launch on 6 ranks (or a multiple of 6, the rest data parallel), as DeepSpeed needs num_stages to divide the world size" \
    "deepspeed: fewer stages than pipeline ranks: the world size it needs"
run solve gpt1.ini four.ini --planner user --split 0,3,8 --format deepspeed
expect_stdout_has "# 3 of the 4 GPUs hold layers: launch on 3 ranks (or a multiple of 3, the rest data parallel), as DeepSpeed needs num_stages to divide the world size" \
    "deepspeed, TP 1: fewer stages than GPUs: the world size it needs"
# the exports name the plan's GPUs as ranks for a tensor-parallel network
# (they said 'rank r is pipeplan GPU r'), and the refusals too: a plan
# with ranks 1 and 2 (or 0 and 2) swapped, renumbered by the writers
run solve gpt.ini four.ini --planner user --split 0,3,6,8 --format plan -o tp.plan
sed 's/^gpu = 1$/gpu = 9/; s/^gpu = 2$/gpu = 1/; s/^gpu = 9$/gpu = 2/' tp.plan >swap12.plan
sed 's/^gpu = 0$/gpu = 9/; s/^gpu = 2$/gpu = 0/; s/^gpu = 9$/gpu = 2/' tp.plan >swap02.plan
run solve gpt.ini four.ini --planner user --split 0,3,6,8 --format megatron
expect_stdout_has "# rank r is pipeplan rank r" "megatron, TP 2: ranks are pipeplan's ranks"
run solve gpt1.ini four.ini --planner user --split 0,3,6,8 --format megatron
expect_stdout_has "# rank r is pipeplan GPU r" "megatron, TP 1: ranks are pipeplan's GPUs"
run solve gpt.ini four.ini --planner user --plan swap12.plan --format megatron
expect_stdout_has "# ranks renumbered (only among ranks of equal memory): rank 0 = pipeplan rank 0, rank 1 = pipeplan rank 2, rank 2 = pipeplan rank 1, rank 3 = pipeplan rank 3" \
    "megatron, TP 2: the renumbering names pipeplan's ranks"
run solve gpt.ini four.ini --planner user --plan swap12.plan --format deepspeed
expect_stdout_has "# ranks renumbered (only among ranks of equal memory): stage 0 = pipeplan rank 0, stage 1 = pipeplan rank 2, stage 2 = pipeplan rank 1, stage 3 = pipeplan rank 3" \
    "deepspeed, TP 2: the renumbering names pipeplan's ranks"
run solve gpt.ini four.ini --planner user --plan swap12.plan --format torch
expect_stdout_has '    ["layers.2", "layers.3", "layers.4"],  # stage 1: rank 1 (pipeplan rank 2)' \
    "torch, TP 2: a stage's comment names pipeplan's rank"
expect_stdout_has "# The pipeline rank holding each stage; rank r runs on pipeplan's rank" \
    "torch, TP 2: rank_gpu holds pipeplan's ranks"
expect_stdout_has "# rank_gpu[r] (the plan's memory figures are for each GPU of its group)." \
    "torch, TP 2: the memory figures are a GPU's of the group"
run solve gpt.ini four.ini --split 0,3,6,10 --planner user --format megatron
expect_stderr "pipeplan solve: cannot write plan your split as megatron: the plan puts norm on rank 2 and output on rank 3, but Megatron's L holds both (it builds them together on the last stage)" \
    "megatron, TP 2: norm and output apart, on ranks"
{ cat four.ini; printf '\n[gpu 2]\nmemory = 32GiB\n'; } >mixed4.ini
run solve gpt.ini mixed4.ini --planner user --plan swap02.plan --format megatron
expect_stderr "pipeplan solve: cannot write plan your split as megatron: the embedding is on rank 2, which Megatron runs as pipeline rank 0, and ranks 2 and 0 have different memory, so they cannot be renumbered" \
    "megatron, TP 2: the embedding's rank of other memory"
run solve gpt.ini mixed4.ini --planner user --plan swap12.plan --format deepspeed
expect_stderr "pipeplan solve: cannot write plan your split as deepspeed: stage 2 is on rank 1, which DeepSpeed runs as pipeline rank 2, and ranks 1 and 2 have different memory, so they cannot be renumbered" \
    "deepspeed, TP 2: a stage's rank of other memory"
run solve gpt.ini four.ini --planner user --split 0,3,6,8 --format torch
expect_stdout_has "tp_degree = 2  # tensor parallel: each pipeline rank is a group of 2 GPUs;" \
    "torch: the tensor-parallel degree"
expect_stdout_has "# tensor_parallel_degree = 2" "torchtitan: tensor_parallel_degree in its TOML"
# the parts read back, as DeepSpeed prints them: the dp's allocation again
run solve gpt.ini four.ini --planner dp --format deepspeed
parts=$(sed -n 's/^parts = //p' "$TMP/out")
run solve gpt.ini four.ini --planner user --split "deepspeed:$parts" --json
if [ -n "$parts" ] && [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "$dp_assign" ]; then
    ok "deepspeed round trip: the parts read back give the same allocation"; else
    not_ok "deepspeed round trip ($parts)"; fi
# torchtitan's module_fqns_per_model_part pasted from the torch export,
# comments and all: the same interleaved allocation
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format torch
fqns=$(sed -n '/^module_fqns_per_model_part = \[/,/^\]/p' "$TMP/out" | sed 's/^module_fqns_per_model_part = //')
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --json
interleaved=$(jq -c '.plans[0].assignment' "$TMP/out")
run solve gpt.ini four.ini --planner user --split "torchtitan:$fqns" --json
if [ -n "$fqns" ] && [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "$interleaved" ]; then
    ok "torchtitan round trip: the module lists read back give the same allocation"; else
    not_ok "torchtitan round trip ($fqns)"; fi
# a plan on two of the four GPUs: two parts, a degree of 2, read back on
# the same four GPUs (it was refused: "2 parts on 4 GPUs")
run solve gpt.ini four.ini --planner user --split 'deepspeed:[0, 5, 11]' --format torch
fqns=$(sed -n '/^module_fqns_per_model_part = \[/,/^\]/p' "$TMP/out" | sed 's/^module_fqns_per_model_part = //')
run solve gpt.ini four.ini --planner user --split "torchtitan:$fqns" --json
if [ -n "$fqns" ] && [ "$(jq -c '.plans[0].assignment' "$TMP/out")" = "[0,0,0,0,0,1,1,1,1,1,1]" ]; then
    ok "torchtitan round trip of a plan on 2 of the 4 GPUs"; else
    not_ok "torchtitan 2 of 4 ($fqns)"; cat "$TMP/err"; fi
# the V schedules' placement: the middle two parts share a GPU and make one
# run, which the export cuts where its compute halves, so the list comes
# back as it was given, with torchtitan's V schedule named
vparts='[["tok_embeddings", "layers.0"], ["layers.1"], ["layers.2"], ["layers.3"], ["layers.4"], ["layers.5"], ["layers.6"], ["layers.7", "norm", "output"]]'
run solve gpt.ini four.ini --planner user --split "torchtitan:v:$vparts" --format torch
expect_status 0 "torchtitan V parts: exported"
titan=$(sed -n '/^# module_fqns_per_model_part = \[/,/^# \]/p' "$TMP/out" | sed 's/^# *//; s/^module_fqns_per_model_part = //' | tr -d ' \n' | sed 's/,]/]/g')
if [ "$titan" = "$(printf '%s' "$vparts" | tr -d ' ')" ]; then
    ok "torchtitan V round trip: the export writes the eight parts given"; else
    not_ok "torchtitan V round trip: got $titan"; fi
expect_stdout_has '# pipeline_parallel_schedule = "ZBVZeroBubble"' "torchtitan V: names the V schedule"
expect_stdout_has 'stage_to_rank = [0, 1, 2, 3, 3, 2, 1, 0]' "torchtitan V: rank r holds stages r and 7-r"
# a GPU of two runs is no plan of the contiguous layout: refused, not shown
# as feasible beside an ILP that rules such plans out
run solve gpt.ini four.ini --planner dp --split "torchtitan:v:$vparts" --layout contiguous
expect_status 2 "a V plan under --layout contiguous"
expect_stderr "pipeplan solve: your split: GPU 2 holds a second run of layers from layer 6: the contiguous layout gives a GPU one" \
    "a V plan under --layout contiguous: names the GPU and the layer"
run solve gpt.ini four.ini --planner user --split 'torchtitan:[["tok_embeddings"], ["layers.1"]]'
expect_status 2 "torchtitan parts out of order"
expect_stderr "pipeplan solve: bad --split 'torchtitan:[[\"tok_embeddings\"], [\"layers.1\"]]': 'layers.1' in part 1 where 'layers.0' is due (expected every layer once, in the network's order)" \
    "torchtitan parts: says which module and what was due"
run solve gpt.ini four.ini --planner user --split 'deepspeed:[0, 3, 6, 12]'
expect_status 2 "deepspeed parts past the layer count"
expect_stderr "pipeplan solve: bad --split 'deepspeed:[0, 3, 6, 12]': boundary 12 out of range (expected 0 to 11: the network has 11 layers)" \
    "deepspeed parts: says which boundary and why"
# a rank with no layer: Megatron still relays every micro-batch through it
run solve gpt.ini four.ini --planner user --split 'megatron:Et*3|t*3||t*2L' --format megatron
expect_stdout_has "# warning: ranks holding no layer: 2; Megatron passes every micro-batch through it" \
    "megatron: an idle rank in the pipeline is named"
expect_stdout_has '# the same split on the 3 ranks that hold layers: --pipeline-model-parallel-size 3 --pipeline-model-parallel-layout "Et*3|t*3|t*2L"' \
    "megatron: the same split without the idle rank"
# and counts it as a stage of its 1F1B: rank 0 does 3 warm-up forwards,
# so keeps 4 micro-batches in flight, not the 3 of the layout on 3 ranks,
# and takes longer (read back, it was judged as that layout, and a plan
# that fitted so did not in Megatron)
run solve gpt.ini four.ini --planner user --split 'megatron:Et*3|t*3||t*2L' --json
it4=$(jq '.plans[0].iteration_ms' "$TMP/out")
run solve gpt.ini four.ini --planner user --split 'megatron:Et*3|t*3||t*2L' --format csv
fl4=$(awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "in_flight") c = k } NR == 2 { print $c }' "$TMP/out")
run solve gpt.ini four.ini --gpus 3 --planner user --split 'megatron:Et*3|t*3|t*2L' --json
it3=$(jq '.plans[0].iteration_ms' "$TMP/out")
run solve gpt.ini four.ini --gpus 3 --planner user --split 'megatron:Et*3|t*3|t*2L' --format csv
fl3=$(awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "in_flight") c = k } NR == 2 { print $c }' "$TMP/out")
if [ "$fl4" = 4 ] && [ "$fl3" = 3 ] && awk -v a="$it4" -v b="$it3" 'BEGIN { exit !(a > b) }'; then
    ok "an idle rank is a stage of Megatron's 1F1B: 4 in flight on rank 0, not 3; longer"
else not_ok "idle rank: in flight $fl4 (3 ranks: $fl3), iteration $it4 (3 ranks: $it3)"; fi
# DeepSpeed's empty stage likewise
run solve gpt.ini four.ini --planner user --split 'deepspeed:[0, 4, 4, 11]' --format csv
fl=$(awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "in_flight") c = k } NR == 2 { print $c }' "$TMP/out")
if [ "$fl" = 3 ]; then ok "deepspeed: an empty stage counts in stage 0's in-flight micro-batches"
else not_ok "deepspeed empty stage: $fl in flight on stage 0"; fi
# the ILP's schedule beats the 1F1B order a runtime runs the split in: the
# export says what that order takes, as the split read back is judged
run gen transformer --preset gpt3-1.3b --gpu A100 -o g13.ini
a100="$PIPEPLAN_SRCDIR/data/platforms/dgx-a100-80gb.ini"
run solve g13.ini "$a100" --gpus 12 --layout contiguous --micro-batches 4 --planner ilp --work-limit 50 \
    --format megatron
note=$(grep '^# note: Megatron runs this split in its own ' "$TMP/out")
layout=$(sed -n 's/^--pipeline-model-parallel-size .* --pipeline-model-parallel-layout "\([^"]*\)"$/\1/p' "$TMP/out")
run solve g13.ini "$a100" --gpus 12 --layout contiguous --micro-batches 4 --planner user \
    --split "megatron:$layout"
judged=$(awk '$1 == "your" {print $6, $7}' "$TMP/out")
if [ -n "$note" ] && [ -n "$judged" ] && echo "$note" | grep -qF "judges at an iteration of $judged;"; then
    ok "megatron: the note gives the runtime order's time, as the layout read back is judged ($judged)"
else
    not_ok "runtime note"; echo "note: $note"; echo "judged: $judged"
fi
# a pipedream plan of the ILP's: the note gives the split's flushed
# iteration, which is what Megatron runs, not a period beside the plan's
run solve g13.ini "$a100" --schedule pipedream --planner ilp --work-limit 50 --format megatron
note=$(grep '^# note: Megatron flushes every iteration' "$TMP/out")
if echo "$note" | grep -qE 'judges at an iteration of [0-9.]+ m?s \(--schedule 1f1b\)'; then
    ok "runtime note of a pipedream plan: the flushed iteration"
else not_ok "runtime note of a pipedream plan ($note)"; fi
run solve "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" four.ini --planner dp --format megatron
expect_status 2 "megatron on a network that is no transformer"
run solve gpt.ini four.ini --planner dp --format xml
expect_stderr "pipeplan solve: bad --format 'xml' (expected table, json, csv, plan, megatron, deepspeed, torch or torch-schedule)" "bad --format"
# torch and torch-schedule: every planner's plan (the ILP under a work
# limit), contiguous or not, as a schedule `pipeplan check` accepts
# (torch's compute_only rules), with the stages the program names
# (under valgrind, slow to start, three planners stand for all: the ILP's
# own plans, a baseline's and the user's split go through the same writer)
planners="ilp dp pipedream time parameters uniform user"
[ -n "$PIPEPLAN_WRAP" ] && planners="ilp dp user"
for pl in $planners; do
    for net in gpt.ini "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini"; do
        run solve "$net" four.ini --planner "$pl" --split 0,3,6,8 --work-limit 300 \
            --format torch-schedule -o "sched-$pl.csv" --force
        st=$status
        run solve "$net" four.ini --planner "$pl" --split 0,3,6,8 --work-limit 300 --format torch
        stages=$(sed -n 's/^num_stages = \([0-9]*\)$/\1/p' "$TMP/out")
        fqns=$(grep -c '^    \[".*\],  # stage' "$TMP/out")
        run check "sched-$pl.csv"
        if [ "$st" -le 1 ] && [ "$status" -eq 0 ] && [ -n "$stages" ] && [ "$stages" = "$fqns" ] &&
            grep -q ", $stages stages\? on " "$TMP/out"; then
            ok "torch-schedule of $pl on ${net##*/}: valid, $stages stages as the program says"
        else
            not_ok "torch-schedule of $pl on ${net##*/} (solve $st, check $status, $stages/$fqns stages)"
            cat "$TMP/out" "$TMP/err" "sched-$pl.csv" | head -20
        fi
    done
done
# several stages per rank (virtual stages): 8 stages on 4 ranks
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' \
    --format torch-schedule -o virt.csv --force
run check virt.csv
expect_stdout_has "8 stages on 4 ranks, 8 micro-batches" "torch-schedule with virtual stages: valid"
run solve gpt.ini four.ini --planner user --split 'megatron:Et|t|t|t|t|t|t|tL' --format torch
expect_stdout_has "_PipelineScheduleRuntime" "several stages per rank: the CSV runtime, not Schedule1F1B"
# an iteration past the exports' cap of ten million actions: 128 stages of
# a million micro-batches (an order of some 4 GB unrolled) is refused
# before any of it is built, exit 2 as for other refusals, no file left
{
    printf '[network]\nname = chain128\nmicro_batch = 1\n\n'
    i=0
    while [ "$i" -lt 128 ]; do
        printf '[layer L%d]\nforward = 1ms\nbackward = 2ms\nweights = 64kB\nactivation = 128kB\n\n' "$i"
        i=$((i + 1))
    done
} >chain128.ini
sed 's/^gpus = 4$/gpus = 128/' four.ini >gpus128.ini
big="the schedule would have 256000000 actions (2 x 128 stages x 1000000 micro-batches, in 128 rank rows), more than 10000000: plan at most 39062 micro-batches on 128 stages, or fewer GPUs"
for f in torch-schedule torch; do
    run solve chain128.ini gpus128.ini --planner uniform --micro-batches 1000000 --format "$f" \
        -o "big-$f.out"
    expect_status 2 "$f of 128 stages x 1000000 micro-batches: refused"
    expect_stderr "pipeplan solve: cannot write plan uniform as $f: $big" \
        "$f over the cap: how many actions, and what to change"
    if ls "big-$f".out* >/dev/null 2>&1; then
        not_ok "$f over the cap: a file left"; ls "big-$f".out*
    else ok "$f over the cap: no file, no temporary file"; fi
done
run solve chain128.ini gpus128.ini --planner uniform --micro-batches 1000000 --format torch-schedule
expect_status 2 "torch-schedule over the cap to standard output: refused"
expect_stdout_empty "torch-schedule over the cap to standard output"
# a tensor-parallel network's --gpus counts pipeline ranks: fewer of those
{ printf '[network]\ntensor_parallel = 2\n'; sed 1d chain128.ini; } >chain128-tp.ini
run solve chain128-tp.ini gpus128.ini --planner uniform --micro-batches 1000000 --format torch
expect_stderr "pipeplan solve: cannot write plan uniform as torch: ${big%GPUs}ranks" \
    "torch over the cap, TP 2: plan fewer ranks"
# under it the same stages export (39062 micro-batches would be the most;
# a few keep the suite quick)
run solve chain128.ini gpus128.ini --planner uniform --micro-batches 3 --format torch-schedule \
    -o small128.csv
run check small128.csv
expect_stdout_has "128 stages on 128 ranks, 3 micro-batches" "torch-schedule of 128 stages under the cap: valid"
# Llama 3 70B, TP8, micro-batch 4 on 8 ranks of 80 GB: the even split
# fits only with a period stretched so that fewer micro-batches are in
# flight than Megatron's 1F1B keeps (its export says so, rank by rank);
# given as Megatron's layout it is judged in Megatron's order, which
# keeps 8 on rank 0 whatever the period: it does not fit. The split the
# ILP finds fits at the load bound, read back from its layout with the
# same period
run gen transformer --preset llama3-70b --tensor-parallel 8 --gpu H100 --micro-batch 4 -o l70.ini
ib="$PIPEPLAN_SRCDIR/data/platforms/h100-ib-8nodes.ini"
even='megatron:Et*10|t*10|t*10|t*10|t*10|t*10|t*10|t*10L'
run solve l70.ini "$ib" --planner user --split 0,11,21,31,41,51,61,71
expect_stdout_has "your split       feasible                  1.02 s    38.40 s" \
    "even split: fits at a stretched period (1.02 s)"
run solve l70.ini "$ib" --planner user --split 0,11,21,31,41,51,61,71 --format megatron
expect_stdout_has "# warning: on rank 0 the plan keeps 6 micro-batches in flight where Megatron's 1F1B keeps 8" \
    "megatron export of it: warns that Megatron keeps more in flight"
run solve l70.ini "$ib" --planner user --split "$even"
expect_stdout_has "your split       no_fit                  724.1 ms    28.18 s" \
    "even split as Megatron's layout: Megatron's order, no stretch: does not fit"
expect_stdout_has "  your split: does not fit: rank 0 needs 95.0 GiB of its 80.0 GiB" \
    "even split as Megatron's layout: rank 0's 8 micro-batches need 95.0 GiB (94.9x)"
expect_stdout_has "(judged in the runtime's 1F1B order)" "even split as Megatron's layout: says in which order"
run solve l70.ini "$ib" --planner user --split 'megatron:Et*8|t*9|t*10|t*11|t*11|t*11|t*11|t*9L'
expect_stdout_has "your split       feasible                725.0 ms    28.08 s" \
    "the ILP's layout read back: fits at 725.0 ms"
run solve l70.ini "$ib" --planner user --split 'megatron:Et*8|t*9|t*10|t*11|t*11|t*11|t*11|t*9L' --format megatron
expect_stdout_lacks "warning" "its megatron export: in flight as Megatron's 1F1B"
printf '0F0,0B0,0F1,0B1\n1F0,1B1,1B0,1F1\n' >bad.csv
run check bad.csv
expect_status 2 "check: a torch schedule whose order cannot run"
expect_stderr "bad.csv: rank 1, column 1: 1B1 before 1F1 (rank 1, column 3)" "check: names the rank, column and action"
printf '0F0,0B0\n' >short.csv
run check short.csv
expect_status 0 "check: a one-rank schedule"
printf '0F0,0B0\n0F1,0B1\n' >tworanks.csv
run check tworanks.csv
expect_status 2 "check: a stage on two ranks"
expect_stderr "tworanks.csv: rank 1, column 0: 0F1 puts stage 0 on rank 1, it is on rank 0" \
    "check: says which stage is on two ranks"
# a micro-batch number far past the cells: said before any table is sized
printf '0F99999999\n' >far.csv
run check far.csv
expect_status 2 "check: a micro-batch number no file of its size completes"
expect_stderr "far.csv: 1 action for 1 stage and 100000000 micro-batches (expected an F and a B for each stage and micro-batch: 200000000)" \
    "check: counts the actions against what the numbers need"
# torch's _load_csv opens the file as plain UTF-8 and makes a rank of
# every csv.reader row: an editor's byte order mark or a blank line at
# the end is a schedule torch refuses; CRLF line ends and the last line
# break are not
printf '0F0,0B0\n1F0,1B0\r\n' >crlf.csv
run check crlf.csv
expect_status 0 "check: CRLF line ends and the last line break"
expect_stdout_has "2 stages on 2 ranks, 1 micro-batch" "check: those read as two ranks"
printf '\357\273\2770F0,0B0\n1F0,1B0\n' >bom.csv
run check bom.csv
expect_status 2 "check: a byte order mark"
expect_stderr "bom.csv:1: a byte order mark before the first action, which torch's _load_csv reads as part of it (expected the file saved without one)" \
    "check: a byte order mark, which torch cannot read"
printf '0F0,0B0\n1F0,1B0\r\n\n' >blankend.csv
run check blankend.csv
expect_status 2 "check: a blank line at the end"
expect_stderr "blankend.csv:3: a blank line, which torch's _load_csv reads as a rank of no action (expected one row per rank and no other line)" \
    "check: a blank line at the end, which torch reads as a third rank"
# I and W actions torch reads: said so, not 'cannot read'
printf '0F0,0I0,0W0\n' >iw.csv
run check iw.csv
expect_stderr 'iw.csv: rank 0, column 1: "0I0" is a backward-input (I) action, which torch reads but this check does not (it checks schedules of F and B, as pipeplan writes them)' \
    "check: an I action named as one"
printf '4294967296F0,4294967296B0\n' >huge.csv
run check huge.csv
expect_status 2 "check: no cell reads as an action"
expect_stderr 'huge.csv: rank 0, column 0: cannot read "4294967296F0" (expected stage, F or B, micro-batch, e.g. 2F0)' \
    "check: the first cell that does not read, by rank and column"
# a cell that does not read is named before the count it upsets
printf '0F99999999999999999999,0B0\n1F0,1B0\n' >cell.csv
run check cell.csv
expect_status 2 "check: an unreadable cell among readable ones"
expect_stderr 'cell.csv: rank 0, column 0: cannot read "0F99999999999999999999" (expected stage, F or B, micro-batch, e.g. 2F0)' \
    "check: the unreadable cell named, not a count of actions"
printf '0F0,0B0\n1F0,"1B0"\n' >quoted.csv
run check quoted.csv
expect_stderr 'quoted.csv: rank 1, column 1: quoted cells are not read (expected stage, F or B, micro-batch, e.g. 2F0)' \
    "check: a quoted cell named, not a count of actions"
printf '\n\n' >blank.csv
run check blank.csv
expect_stderr "blank.csv:1: a blank line, which torch's _load_csv reads as a rank of no action (expected one row per rank and no other line)" \
    "check: a schedule of blank lines"
printf ',,\n' >commas.csv
run check commas.csv
expect_stderr "commas.csv:1: no action in the schedule (expected rows of cells such as 0F0 or 1B3, one row per rank)" \
    "check: a schedule of empty cells"

run solve gpt.ini four.ini --planner dp --json --format csv
expect_status 2 "--json with another format"

# ---- atomic writes ----
echo keep >exists.txt
run solve gpt.ini four.ini --planner dp --format csv -o exists.txt
expect_status 2 "-o on an existing file without --force"
expect_stderr "pipeplan solve: exists.txt: already exists (use --force to overwrite)" "-o: refuses to clobber"
if [ "$(cat exists.txt)" = keep ]; then ok "-o: the file is intact"; else not_ok "-o: file changed"; fi
run solve gpt.ini four.ini --planner dp --format csv -o exists.txt --force
expect_status 0 "--force"
if head -1 exists.txt | grep -q '^index,'; then ok "--force: replaced"; else not_ok "--force"; fi
mkdir ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
    run solve gpt.ini four.ini --planner dp --format plan -o ro/x.plan
    expect_status 2 "-o in a read-only directory"
    if [ -z "$(ls -A ro)" ]; then ok "read-only directory: no file, no temporary left"; else
        not_ok "read-only directory: left $(ls -A ro)"; fi
else
    ok "read-only directory: skipped as root (root writes anywhere)"
fi
chmod 755 ro
# a rename that fails (the target is a directory) leaves no temporary either
mkdir -p target.csv/inside
run solve gpt.ini four.ini --planner dp --format csv -o target.csv --force
expect_status 2 "-o onto a directory"
if [ "$(ls -A . | grep -c 'target.csv')" -eq 1 ] && [ -d target.csv/inside ]; then
    ok "failed rename: no temporary file left, the directory intact"; else
    not_ok "failed rename: left $(ls -A .)"; fi
# a write past the file size limit (ulimit -f, in KiB: 2) fails with its
# message and exit 2, not killed by SIGXFSZ with the temporary left behind
mkdir small
status=0
(ulimit -f 2; pp solve gpt.ini four.ini --planner dp --json -o small/x.json) >"$TMP/out" 2>"$TMP/err" ||
    status=$?
expect_status 2 "-o past the file size limit"
expect_stderr "pipeplan solve: small/x.json: write failed: File too large" "file size limit: the message names the file"
if [ -z "$(ls -A small)" ]; then ok "file size limit: no file, no temporary left"; else
    not_ok "file size limit: left $(ls -A small)"; fi
finish
