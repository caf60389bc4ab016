#!/bin/sh
# pipeplan solve: every planner on every network x platform in data/,
# JSON in the documented shape, no plan rejected by the simulator, exit
# codes 0 (something fits), 1 (nothing fits), 2 (bad input).
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; exit 1; }

# The documented shape, checked key by key with types. JSON numbers have 10
# significant digits: figures recomputed from them compare with a tolerance.
SHAPE='
def num: type == "number";
def numornull: type == "number" or type == "null";
def int: type == "number" and . == floor;
def gpu_ok: (.gpu|int) and (.load_ms|num)
    and (.memory | (.weights|int) and (.activations|int) and (.buffers|int)
         and (.reserved|int) and (.total|int) and (.cap|int));
def op_ok: (.op == "F" or .op == "B") and (.layer|int) and (.gpu|int) and (.start_ms|num);
def plan_ok: (.planner|type == "string")
    and ([.status] | inside(["optimal","block_optimal","feasible","no_fit","infeasible","timeout","error"]))
    and (.fits|type == "boolean") and (.period_ms|num) and (.latency_ms|num)
    and (.iteration_ms|num) and (.throughput|num) and (.bound_ms|numornull)
    and (.objective_ms|num)
    and (.gap|numornull)
    and (.solve_seconds|num)
    and (.assignment|type == "array" and all(.[]; int))
    and (.gpus|type == "array" and all(.[]; gpu_ok))
    and (.schedule|type == "array" and all(.[]; op_ok));
def problem_ok: (.network|type == "string") and (.layers|int) and (.blocks|int)
    and (.gpus|int) and (.memory|type == "array" and all(.[]; int))
    and (.micro_batches|int) and (.schedule == "1f1b" or .schedule == "pipedream")
    and (.layout == "any" or .layout == "contiguous") and (.lower_bound_ms|num);
.problem.lower_bound_ms as $lb
| .problem.objective as $obj
| .problem.micro_batches as $m
| .problem.micro_batch as $mb
| .problem.schedule as $sched
| (if $sched == "1f1b" then ($m - 1) * $lb + .problem.compute_ms else $lb end) as $bound
| (.problem|problem_ok)
and (.problem.memory|length) == .problem.gpus
and (.plans|type == "array" and length > 0)
and all(.plans[]; plan_ok)
and all(.plans[]; (.assignment|length) == $layers and (.gpus|length) == $gpus
        and (.schedule|length) == 2 * $layers)
and all(.plans[]; .status != "error")
and all(.plans[]; .fits == all(.gpus[]; .memory.total <= .memory.cap))
and all(.plans[]; .period_ms >= $lb * 0.999999)
and all(.plans[]; .bound_ms >= $bound * 0.999999)
and all(.plans[]; .gap == null or ((.gap - (.objective_ms - .bound_ms) / .objective_ms) | fabs) < 1e-9)
and all(.plans[]; (.throughput * .iteration_ms / 1000 - $m * $mb | fabs) < 1e-6 * $m * $mb)
and all(.plans[]; if $obj == "period" then .objective_ms == .period_ms
                  else .objective_ms == .iteration_ms end)
and all(.plans[]; if $sched == "pipedream" then ((.iteration_ms - $m * .period_ms) | fabs) < 1e-6 * .iteration_ms
                  else ((.iteration_ms - (($m - 1) * .period_ms + .latency_ms)) | fabs) < 1e-6 * .iteration_ms end)
and ([.plans[].bound_ms] | unique | length) == 1
and all(.plans[] | select(.fits); .bound_ms <= .objective_ms * 1.000000001)
and all(.plans[] | select(.status == "block_optimal");
        .proven_for_blocks < $layers and (.block_bound_ms|num))'

# Every network x platform with every planner (the ILP on a short leash:
# its baselines, bounds and first search are what the shape checks), the
# two schedules in turn so that each network and each platform meets both.
# Under valgrind, a corner of the matrix: it is ~30x slower.
nets=$(ls data/networks/*.ini)
plats=$(ls data/platforms/*.ini)
if [ -n "$PIPEPLAN_WRAP" ]; then
    nets="data/networks/alexnet.ini data/networks/gnmt.ini"
    plats="data/platforms/v100-16gb-pcie-4.ini data/platforms/dgx-h100.ini"
fi
n=0 i=0
for net in $nets; do
    i=$((i + 1)) j=0
    for plat in $plats; do
        j=$((j + 1))
        # network i, platform j: 1f1b when i + j is even (both under valgrind)
        scheds="1f1b pipedream"
        [ -z "$PIPEPLAN_WRAP" ] && { [ $(((i + j) % 2)) -eq 0 ] && scheds=1f1b || scheds=pipedream; }
        for sched in $scheds; do
            n=$((n + 1))
            status=0
            pp solve "$net" "$plat" --schedule $sched --work-limit 5 --blocks 8 --json \
                >"$TMP/out" 2>"$TMP/err" || status=$?
            name="$(basename "$net" .ini) on $(basename "$plat" .ini) ($sched)"
            if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
                not_ok "$name: exit $status"; cat "$TMP/err"; continue
            fi
            layers=$(jq '.problem.layers' "$TMP/out")
            gpus=$(jq '.problem.gpus' "$TMP/out")
            if jq -e --argjson layers "$layers" --argjson gpus "$gpus" "$SHAPE" "$TMP/out" >/dev/null; then
                ok "$name: JSON shape, every plan simulated"
            else
                not_ok "$name: JSON shape or a plan rejected"
                jq -c '.plans[] | {planner, status, message}' "$TMP/out" | head -5
            fi
            # exit status agrees with the plans
            fits=$(jq '[.plans[] | select(.fits)] | length' "$TMP/out")
            if { [ "$fits" -gt 0 ] && [ "$status" -eq 0 ]; } || { [ "$fits" -eq 0 ] && [ "$status" -eq 1 ]; }; then
                ok "$name: exit $status matches $fits fitting plans"
            else
                not_ok "$name: exit $status but $fits plans fit"
            fi
        done
    done
done
echo "# $n instances"

# The readable table.
run solve data/networks/resnet50.ini data/platforms/dgx1-v100-32gb.ini --work-limit 5
expect_status 0 "table for resnet50 on a DGX-1"
expect_stdout_has "mem-aware DP" "table lists the memory-aware DP"
expect_stdout_has "Best plan:" "table shows the best plan"

# Nothing fits: exit 1 and the smallest cap that would, with the plan
# that fits there. The proof runs under a work limit: the same on any
# machine, under any load, with or without valgrind.
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 4GiB --work-limit 100000
expect_status 1 "vgg16 in 4 GiB does not fit"
# 8,884,126,720 B (8.274 GiB), shown rounded up: at 8.27 GiB nothing fits
expect_stdout_has "No plan fits. The smallest uniform cap at which a baseline's plan fits: 8.28 GiB per GPU (mem-aware DP plan)." "names the cap it needs"
expect_stdout_has "Plan that fits at 8.28 GiB per GPU: mem-aware DP" "shows the plan that fits at that cap"
expect_stdout_lacks "Best plan:" "no plan that does not fit is shown as the best"
expect_stdout_lacks "ILP (CBC): its own memory rule" "the ILP has no memory rule of its own"
# the chain bound's rules at a long period prove it for the layers
expect_stdout_has "ILP (CBC): no plan of the 41 layers fits: proven infeasible; its row shows the memory-aware DP's split, which does not fit either" \
    "infeasibility proven for the layers, not only the 12 blocks; the plan on its row is named"
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 4GiB --json \
    --work-limit 100000
expect_status 1 "no fit, JSON"
if jq -e '.problem.min_fitting_cap > 4294967296
          and all(.plans[]; .fits == false)
          and all(.plans[] | select(.planner != "ilp"); .status == "no_fit")
          and (.plans[] | select(.planner == "ilp") | .status == "infeasible"
               and (has("proven_for_blocks") | not))' \
      "$TMP/out" >/dev/null; then
    ok "JSON says no_fit, infeasible for the ILP, and the fitting cap"; else not_ok "JSON no_fit fields"; fi
if jq -e '[.plans[] | select(.planner == "ilp" or .planner == "dp") | .assignment] | .[0] == .[1]' \
      "$TMP/out" >/dev/null; then
    ok "the infeasible ILP's row shows the DP's split, as its message says"; else
    not_ok "the infeasible ILP's row"; fi
# the plan that fits at the least cap runs far slower than the rows that do
# not fit (216.4 ms, 2.81 s): its heading and the JSON give its own figures
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 6GiB --work-limit 300
expect_status 1 "vgg16 in 6 GiB does not fit"
expect_stdout_has "Plan that fits at 8.28 GiB per GPU: mem-aware DP, period 1.03 s, iteration 8.26 s, 124.0 samples/s" \
    "the plan that fits at the least cap: its period, iteration and samples/s"
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 6GiB --work-limit 300 --json
if jq -e '.problem as $p | $p.min_fitting_plan | .planner == $p.min_fitting_cap_planner
          and .cap == $p.min_fitting_cap and (.period_ms - 1032.26 | fabs) < 0.01
          and (.iteration_ms - 8258.05 | fabs) < 0.01 and (.throughput - 124.0 | fabs) < 0.01' \
      "$TMP/out" >/dev/null; then
    ok "JSON: min_fitting_plan has the plan's planner, cap, period, iteration and throughput"; else
    not_ok "JSON min_fitting_plan"; jq -c .problem "$TMP/out"; fi
# stopped by the work limit: its message names that limit, not the clock's
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 8884126719B \
    --planner ilp --work-limit 100
expect_status 1 "vgg16 at 1 B under the cap the DP needs, 100 units of work"
expect_stdout_has "ILP (CBC): no fitting plan found before the work limit; its row shows" \
    "a work limit is named as such"
# the cap named, typed back, fits; the same rounded to the nearest would not
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 8.28GiB --planner dp
expect_status 0 "the cap named (8.28 GiB) fits when typed back"
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 8.27GiB --planner dp
expect_status 1 "8.27 GiB, the cap rounded to the nearest, does not"
# resnet50 in 6.6 GiB: the chain's rules pass, yet no plan of the 12
# blocks fits; that is said of the blocks only.
run solve data/networks/resnet50.ini data/platforms/v100-16gb-pcie-4.ini --memory 6.6GiB \
    --planner ilp --json --work-limit 100000
expect_status 1 "resnet50 in 6.6 GiB: no plan of the blocks fits"
if jq -e '.plans[0].status == "no_fit" and .plans[0].proven_for_blocks == 12
          and (.plans[0].message | test("proven for the blocks, not the layers"))' \
      "$TMP/out" >/dev/null; then
    ok "no fit for the blocks is said of the blocks"; else not_ok "no fit for the blocks"; jq -c '.plans[0] | {status, message}' "$TMP/out"; fi
# On its own layers the same proof is a proof: infeasible.
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --memory 2GiB --gpus 2 \
    --planner ilp --blocks 0 --json --work-limit 100000
expect_status 1 "no fit on the layers"
if jq -e '.plans[0].status == "infeasible" and (.plans[0] | has("proven_for_blocks") | not)' \
      "$TMP/out" >/dev/null; then
    ok "infeasible on the layers"; else not_ok "infeasible on the layers"; jq -c '.plans[0] | {status, message}' "$TMP/out"; fi

# Knobs reach the problem.
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 3 --micro-batches 5 \
    --layout contiguous --planner dp,uniform,ilp --work-limit 300 --json
expect_status 0 "knobs and planner list"
if jq -e '.problem.gpus == 3 and .problem.micro_batches == 5 and .problem.layout == "contiguous"
          and ([.plans[].planner] == ["dp", "uniform", "ilp"]) and all(.plans[]; (.gpus|length) == 3)
          and all(.plans[]; .fits) and (.plans[2].period_ms <= .plans[0].period_ms * 1.000001)' \
      "$TMP/out" >/dev/null; then ok "knobs in the JSON"; else not_ok "knobs in the JSON"; fi

# a plan a byte over its cap: what it needs is rounded up, never shown as the cap
printf '[network]\nname = one\nmicro_batch = 1\n[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n' >"$TMP/one.ini"
printf '[platform]\nname = p\ngpus = 1\nmemory = 16GiB\nreserved = 1GiB\nbandwidth = 12GB/s\nlatency = 10us\n[training]\nmicro_batches = 8\nschedule = 1f1b\noptimizer = adam\n' >"$TMP/p1.ini"
run solve "$TMP/one.ini" "$TMP/p1.ini" --memory 1078741823B --planner dp
expect_stdout_has "needs 1.01 GiB" "a byte over a cap of 1.00 GiB: needs 1.01 GiB, rounded up"

run solve data/networks/alexnet.ini data/platforms/v100-16gb-pcie-4.ini --memory 1GiB
expect_status 2 "--memory at the platform's reserve"
expect_stderr "pipeplan solve: --memory 1.00 GiB is not above the 1.00 GiB the platform reserves per GPU (expected more)" \
    "--memory at the platform's reserve: names the option"

# Bad input: exit 2, nothing on stdout.
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 0
expect_status 2 "zero GPUs"
expect_stdout_empty "zero GPUs"
expect_stderr "pipeplan solve: bad --gpus '0': out of range (expected 1 to 4096)" "zero GPUs message"
# a value flag given twice: refused, whichever way it is spelt, in every command
for twice in "--gpus 4 --gpus=5|--gpus" "--memory 8GiB --memory 80GiB|--memory" \
             "--time-limit 1 --time-limit 2|--time-limit" "--planner dp --planner uniform|--planner" \
             "-o $TMP/a.json --output $TMP/b.json|-o/--output" "--split 0,5 --split 0,6|--split"; do
    # shellcheck disable=SC2086
    run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini ${twice%%|*}
    expect_status 2 "${twice%%|*}"
    expect_stderr "pipeplan solve: ${twice#*|} given twice (expected it once)" "${twice%%|*}: says so"
    expect_stdout_empty "${twice%%|*}"
done
if [ ! -e "$TMP/a.json" ] && [ ! -e "$TMP/b.json" ]; then ok "-o given twice: no file"; else not_ok "-o twice wrote"; fi
run sweep data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 2 --gpus 4 -o "$TMP/twice.csv"
expect_stderr "pipeplan sweep: --gpus given twice (expected it once)" "sweep: a grid axis given twice"
run data/networks/gnmt.ini data/platforms/dgx-h100.ini --work-limit 5 --work-limit=6
expect_stderr "pipeplan: --work-limit given twice (expected it once)" "explorer: a flag given twice"
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --planner magic
expect_status 2 "unknown planner"
expect_stdout_empty "unknown planner"
# a list as the other list options read it: no empty list or item, no name twice
for bad in "|an empty list" ",|an empty item" "dp,|an empty item" "dp,,time|an empty item" \
           "dp,dp|'dp' given twice" "all,dp|'all' names every planner: give it alone"; do
    run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --planner "${bad%%|*}"
    expect_status 2 "--planner '${bad%%|*}'"
    expect_stderr "pipeplan solve: bad --planner '${bad%%|*}': ${bad#*|} (expected NAME[,NAME...] or all)" \
        "--planner '${bad%%|*}': says why"
done
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --memory 16
expect_status 2 "memory without a unit"
expect_stderr "pipeplan solve: bad --memory '16': missing unit (expected B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB or PiB)" \
    "memory without a unit message"
printf '[network]\nname = x\nmicro_batch = 1\n[layer a]\nforward = 1ms\n' >"$TMP/bad.ini"
run solve "$TMP/bad.ini" data/platforms/dgx-h100.ini
expect_status 2 "bad network file"
expect_stdout_empty "bad network file"
expect_stderr "$TMP/bad.ini:4: [layer a] has no 'backward' (expected a line 'backward = ...')" \
    "bad network file message"
run solve data/networks/gnmt.ini
expect_status 2 "missing platform"
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --time-limit 0
expect_status 2 "zero time limit"

# The ILP proves the small, pipedream case optimal for its 8 blocks and
# never loses to a baseline; what it proves holds for the blocks, and the
# network keeps its own bound. (A plan may do better than the block
# bound: the local search with exact schedules cuts inside blocks.)
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 4 --schedule pipedream \
    --blocks 8 --work-limit 1000000 --json
expect_status 0 "gnmt, 4 GPUs, ILP"
if jq -e '(.plans[] | select(.planner == "ilp")) as $ilp
          | $ilp.status == "block_optimal" and $ilp.proven_for_blocks == 8
          and all(.plans[] | select(.fits); $ilp.period_ms <= .period_ms * 1.000001)
          and $ilp.period_ms <= $ilp.block_bound_ms * 1.000001
          and $ilp.bound_ms >= .problem.lower_bound_ms
          and $ilp.bound_ms <= $ilp.period_ms * 1.000001' "$TMP/out" >/dev/null; then
    ok "ILP optimal for 8 blocks and no worse than any fitting baseline"
else
    not_ok "ILP status or objective"; jq -c '.plans[] | {planner, status, period_ms, bound_ms, block_bound_ms, fits}' "$TMP/out"
fi
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 4 --schedule pipedream \
    --blocks 8 --work-limit 1000000
expect_stdout_has "ILP (CBC)        optimal for 8 blocks" "the table says optimal for 8 blocks"
expect_stdout_has "ILP (CBC): optimal for 8 blocks; the period is at least 22.4 ms for the network's own layers (gap 8.08%)" \
    "the table gives the network's bound and the gap to it"
expect_stdout_has "ILP (CBC): for the network cut into 8 blocks it is at least 24.3 ms (block bound)" \
    "the block bound is named as such"
# Where the plan meets the network's own bound, the proof holds for the
# network: optimal, even on blocks.
run solve data/networks/alexnet.ini data/platforms/dgx-h100.ini --gpus 4 --schedule pipedream \
    --blocks 8 --work-limit 1000000 --planner ilp --json
if jq -e '.plans[0].status == "optimal" and .plans[0].gap == 0' "$TMP/out" >/dev/null; then
    ok "optimal where the network's bound is met"; else not_ok "alexnet status"; fi
# --blocks 1: the one-block plan is optimal for 1 block, not for the network.
run solve data/networks/resnet50.ini data/platforms/v100-16gb-pcie-4.ini --blocks 1 \
    --planner ilp --work-limit 20 --json
if jq -e '.plans[0].status == "block_optimal" and .plans[0].proven_for_blocks == 1
          and .plans[0].bound_ms >= (.problem.micro_batches - 1) * .problem.lower_bound_ms + .problem.compute_ms
          and .plans[0].bound_ms < .plans[0].block_bound_ms
          and .plans[0].gap > 0.1' "$TMP/out" >/dev/null; then
    ok "--blocks 1 is not called optimal"; else not_ok "--blocks 1 status"; jq -c '.plans[0] | {status, bound_ms, block_bound_ms, gap}' "$TMP/out"; fi

# The same inputs under a work limit give the same answer (run twice).
run solve data/networks/vgg16.ini data/platforms/dgx1-v100-32gb.ini --planner ilp --blocks 8 \
    --work-limit 300 --json
jq -c '.plans[0] | del(.solve_seconds)' "$TMP/out" >"$TMP/first"
run solve data/networks/vgg16.ini data/platforms/dgx1-v100-32gb.ini --planner ilp --blocks 8 \
    --work-limit 300 --json
jq -c '.plans[0] | del(.solve_seconds)' "$TMP/out" >"$TMP/second"
if cmp -s "$TMP/first" "$TMP/second"; then ok "work limit: same plan, status and bound twice"
else not_ok "work limit: runs differ"; fi

# A network whose layers take no time: the ILP's plan of 0 ms meets its
# bound of 0 ms, so it is optimal with a gap of 0; the throughput of an
# iteration of no time is not a number (it was "feasible", a gap of NaN
# and 0 samples/s).
run solve tests/data/networks/zero.ini data/platforms/dgx1-v100-32gb.ini --gpus 2 --micro-batches 1 \
    --planner ilp --work-limit 50 --json
if jq -e '.plans[0].status == "optimal" and .plans[0].objective_ms == 0 and .plans[0].gap == 0
          and .plans[0].throughput == null' "$TMP/out" >/dev/null; then
    ok "no compute at all: optimal, gap 0, no throughput"
else not_ok "no compute at all"; jq -c '.plans[0] | {status, objective_ms, bound_ms, gap, throughput}' "$TMP/out"; fi
run solve tests/data/networks/zero.ini data/platforms/dgx1-v100-32gb.ini --gpus 2 --micro-batches 1 \
    --planner ilp --work-limit 50
if grep -q "gap 0.00%" "$TMP/out" && ! grep -qi "nan" "$TMP/out"; then
    ok "no compute at all: the table has no NaN"; else not_ok "no compute table"; cat "$TMP/out"; fi
# with more micro-batches the period counts, and a shorter one always does
# better: no plan is the best, and the bound is 0 (it was the 1 us of the
# plan found, called optimal, which a plan file at 0.1 us beat)
run solve tests/data/networks/zero.ini data/platforms/dgx1-v100-32gb.ini --gpus 2 --micro-batches 8 \
    --planner ilp --work-limit 50 --json
if jq -e '.plans[0].status == "feasible" and .plans[0].bound_ms == 0 and .plans[0].objective_ms > 0
          and (.plans[0].message | test("none is the best"))' "$TMP/out" >/dev/null; then
    ok "no compute, 8 micro-batches: no plan called optimal, bound 0"
else not_ok "no compute, 8 micro-batches"; jq -c '.plans[0] | {status, objective_ms, bound_ms, message}' "$TMP/out"; fi

# The search for the least cap that fits stops at --work-limit (caps
# tried; no clock), and says how far from the smallest it may be. The
# shape is a stress run's: activations of 4 to 64 GB over 1 MB/s, so the
# links set a period of days beside layers of milliseconds (its 3,000
# layers searched for more than 900 s); 3 caps leave terabytes open.
awk 'BEGIN { s = 12345; print "[network]\nname = links\nmicro_batch = 1"
             for (i = 0; i < 300; i++) {
                 s = (s * 1103515245 + 12345) % 2147483648; f = 1 + s % 40
                 s = (s * 1103515245 + 12345) % 2147483648; b = 1 + s % 100
                 s = (s * 1103515245 + 12345) % 2147483648; a = 4 + s % 61
                 printf "[layer l%d]\nforward = %dms\nbackward = %dms\nweights = 1MB\nactivation = %dGB\n", i, f, b, a } }' \
    > "$TMP/links.ini"
printf '[platform]\nname = slow\ngpus = 3\nmemory = 80GiB\nreserved = 1GiB\nbandwidth = 1MB/s\nlatency = 5us\n[training]\nmicro_batches = 64\nschedule = 1f1b\noptimizer = none\n' \
    > "$TMP/slow.ini"
run solve "$TMP/links.ini" "$TMP/slow.ini" --layout contiguous --planner dp,pipedream \
    --work-limit 3 --json
expect_status 1 "least cap under a work limit: nothing fits"
cp "$TMP/out" "$TMP/cap3.json"
if jq -e '.problem.min_fitting_cap_within > 1e12
          and .problem.min_fitting_cap_within < .problem.min_fitting_cap
          and (.problem.min_fitting_cap_planner == "dp"
               or .problem.min_fitting_cap_planner == "pipedream")' "$TMP/cap3.json" >/dev/null
then ok "the least cap's search stops after 3 caps and says how far it may be"
else not_ok "least cap under a work limit"; jq -c '.problem' "$TMP/cap3.json"; fi
run solve "$TMP/links.ini" "$TMP/slow.ini" --layout contiguous --planner dp,pipedream \
    --work-limit 3
expect_stdout_has "the smallest such cap may be up to" "the table says the cap is not the smallest"
run solve "$TMP/links.ini" "$TMP/slow.ini" --layout contiguous --planner dp,pipedream --json
if jq -e --slurpfile c "$TMP/cap3.json" '.problem.min_fitting_cap_within <= 1048576
          and .problem.min_fitting_cap <= $c[0].problem.min_fitting_cap
          and .problem.min_fitting_cap >= $c[0].problem.min_fitting_cap
                                          - $c[0].problem.min_fitting_cap_within' \
      "$TMP/out" >/dev/null
then ok "without the limit the search ends within 1 MiB, inside the limited one's range"
else not_ok "least cap without a limit"; jq -c '.problem' "$TMP/out"; fi

# Every plan refused by the simulator (micro-batch 0 spans too many
# periods to replay: 8,000 layers on 4,096 GPUs): memory is not what
# failed, so no least cap is searched for (that search ran every baseline
# on 4,096 GPUs and named a cap for a plan the simulator refuses too).
awk 'BEGIN { print "[network]\nname = long\nmicro_batch = 1"
             for (i = 0; i < 8000; i++)
                 printf "[layer l%d]\nforward = 100us\nbackward = 200us\nweights = 1KB\nactivation = 1KB\n", i }' \
    > "$TMP/long.ini"
printf '[platform]\nname = many\ngpus = 4096\nmemory = 1GiB\nreserved = 0B\nbandwidth = 100GB/s\nlatency = 50us\n[training]\nmicro_batches = 4\nschedule = 1f1b\noptimizer = adam\n' \
    > "$TMP/many.ini"
run solve "$TMP/long.ini" "$TMP/many.ini" --planner uniform --json
expect_status 1 "every plan refused by the simulator: exit 1"
if jq -e '.problem.min_fitting_cap == null and .plans[0].status == "error"
          and (.plans[0].message | test("too long to replay"))' "$TMP/out" >/dev/null; then
    ok "every plan refused by the simulator: no cap is named"
else not_ok "refused plans and the least cap"; jq -c '.problem.min_fitting_cap, .plans[0].message' "$TMP/out"; fi
# and a refused plan has no figures beside its error ("fits": true and a
# gap were shown as if they held)
if jq -e '.plans[0] | .fits == false and .gap == null and .period_ms == null' "$TMP/out" >/dev/null
then ok "a plan refused by the simulator: no fit, gap or period shown"
else not_ok "refused plan's figures"; jq -c '.plans[0] | {fits, gap, period_ms}' "$TMP/out"; fi

# --log carries CBC's log and the search's own trace.
rm -f "$TMP/log"
# (gnmt on 3 GPUs: its first plans are not proven before the masters)
run solve data/networks/gnmt.ini data/platforms/dgx-h100.ini --gpus 3 --planner ilp \
    --blocks 6 --work-limit 1000 --log "$TMP/log"
if grep -q "pipeplan ilp: .*master 1 on T in" "$TMP/log" && grep -q "pipeplan ilp: .*end after" "$TMP/log" \
   && grep -qi "cbc\|coin" "$TMP/log"; then
    ok "--log has the search trace and CBC's log"; else not_ok "--log content"; head -5 "$TMP/log"; fi

# layers of no compute, more of them than the blocks: the search for the
# network's bound made CBC fail, which made the ILP's row an error whose
# plan was neither counted (exit 1) nor exported
{ printf '[network]\nname = z\nmicro_batch = 1\n'
  for i in 0 1 2 3 4 5 6 7 8 9 10 11 12; do
      printf '[layer l%s]\nforward = 0ms\nbackward = 0ms\nweights = 0B\nactivation = 0B\n' $i
  done; } >"$TMP/zero.ini"
printf '[platform]\nname = p\ngpus = 1\nmemory = 1GB\nreserved = 0B\nbandwidth = 1GB/s\nlatency = 0us\n[training]\nmicro_batches = 2\nschedule = 1f1b\noptimizer = adam\n' >"$TMP/one.ini"
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 200 --planner ilp --json
expect_status 0 "no compute: a plan fits"
if [ "$(jq -r '.plans[0].status' "$TMP/out")" != error ]; then
    ok "no compute: the ILP's row is no error"; else not_ok "no compute: $(jq -r '.plans[0].message' "$TMP/out")"; fi
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 200 --planner ilp --format plan
expect_status 0 "no compute: its plan exports"

# a --log that cannot be written is refused at once, not dropped by the
# worker without a word (a directory, a path under a file)
for log in "$TMP" /etc/passwd/x; do
    run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 5 --log "$log"
    expect_status 2 "--log $log: refused"
    if grep -q "^pipeplan solve: bad --log '$log': cannot open for writing: " "$TMP/err" &&
       [ ! -s "$TMP/out" ]; then
        ok "--log $log: says why, nothing else"; else not_ok "--log $log"; cat "$TMP/err"; fi
done
# a new --log file is made when the solve starts: a mistake after it on
# the command line leaves none behind, nor does a log given twice
rm -f "$TMP/new.log" "$TMP/new2.log"
run solve "$TMP/zero.ini" "$TMP/one.ini" --log "$TMP/new.log" --gpus x
expect_status 2 "--log, then a bad --gpus"
run solve "$TMP/zero.ini" "$TMP/one.ini" --log "$TMP/new.log" --log "$TMP/new2.log"
expect_status 2 "--log given twice"
if [ ! -e "$TMP/new.log" ] && [ ! -e "$TMP/new2.log" ]; then ok "refused: no log file left"; else
    not_ok "refused, yet a log file was made"; fi
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 5 --log "$TMP/nodir/x.log"
expect_status 2 "--log into a directory that is not there"
expect_stderr "pipeplan solve: bad --log '$TMP/nodir/x.log': no directory $TMP/nodir (expected an existing one)" \
    "--log, no directory: one line"
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 5 --planner dp --log "$TMP/new.log"
expect_status 0 "--log into a new file"
if [ -e "$TMP/new.log" ]; then ok "--log: the file is made when the solve runs"; else
    not_ok "--log: no file made"; fi
# a --log that is a file the command reads or writes is refused before
# any planner runs: the trace appended to the network file broke it, and
# -o on a new log was refused only after the solve, leaving the log
cp "$TMP/zero.ini" "$TMP/keep.ini"
run solve "$TMP/keep.ini" "$TMP/one.ini" --work-limit 5 --log "$TMP/keep.ini"
expect_status 2 "--log on the network file"
expect_stderr "pipeplan solve: --log '$TMP/keep.ini' is the network file '$TMP/keep.ini' (expected another name for the log)" \
    "--log on the network file: one line"
if cmp -s "$TMP/zero.ini" "$TMP/keep.ini"; then ok "--log on the network file: the file kept"; else
    not_ok "--log on the network file: the file changed"; fi
cp "$TMP/one.ini" "$TMP/keep1.ini"
run solve "$TMP/zero.ini" "$TMP/keep1.ini" --work-limit 5 --log "$TMP/./keep1.ini"
expect_stderr "pipeplan solve: --log '$TMP/./keep1.ini' is the platform file '$TMP/keep1.ini' (expected another name for the log)" \
    "--log on the platform file, by another path"
rm -f "$TMP/both.out"
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 5 --json --log "$TMP/both.out" -o "$TMP/both.out"
expect_status 2 "--log and -o on one new file"
if [ ! -e "$TMP/both.out" ]; then ok "--log and -o on one file: nothing left"; else
    not_ok "--log and -o on one file: a file left"; fi
run solve "$TMP/zero.ini" "$TMP/one.ini" --work-limit 5 --planner dp --log /dev/null -o /dev/null
expect_status 0 "--log and -o on one device: written in place"

# The dp's split, scheduled, needed 8.26 GiB under a cap of 8.25 (its
# wait-free counts are a lower bound): it plans again on smaller rooms and
# keeps a split that fits; the first try shrinks the room by under 1/32,
# which the retries once skipped. 128 equal transformer layers on 128
# GPUs: seconds, so not under valgrind.
if [ -z "$PIPEPLAN_WRAP" ]; then
    run gen transformer --layers 125 --hidden 1024 --heads 16 --ffn 4096 --vocab 32000 \
        --seq 2048 --gpu H100 -o "$TMP/t128.ini"
    expect_status 0 "gen: 128 transformer layers"
    printf '[platform]\nname = p\ngpus = 128\nmemory = 8.25GiB\nreserved = 1GiB\nbandwidth = 100GB/s\nlatency = 5us\n[training]\nmicro_batches = 128\nschedule = 1f1b\noptimizer = adam\n' >"$TMP/p128.ini"
    run solve "$TMP/t128.ini" "$TMP/p128.ini" --planner dp --json
    expect_status 0 "dp on 128 GPUs of 8.25 GiB: a plan that fits"
    if [ "$(jq -r '.plans[0].status + " " + (.plans[0].fits|tostring)' "$TMP/out")" = "feasible true" ] &&
       jq -e '.plans[0].peak_memory <= 8.25 * 1073741824' "$TMP/out" >/dev/null; then
        ok "dp: planned again, fits"; else not_ok "dp: $(jq -c '.plans[0]' "$TMP/out" | head -c 300)"; fi
fi

# GPUs of different memory: the header gives the range of their caps
# (it gave GPU 0's and "(varies)")
printf '[platform]\nname = mixed\ngpus = 3\nmemory = 16GiB\nreserved = 1GiB\nbandwidth = 10GB/s\nlatency = 10us\n[gpu 1]\nmemory = 80GiB\n[gpu 2]\nmemory = 40GiB\n[training]\nmicro_batches = 4\nschedule = 1f1b\noptimizer = adam\n' >"$TMP/mixed3.ini"
run solve "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" "$TMP/mixed3.ini" --planner uniform
expect_stdout_has "alexnet (23 layers) on 3 GPUs x 16.0 GiB to 80.0 GiB, 10 GB/s" "mixed caps: their range in the header"
run solve "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" "$TMP/mixed3.ini" --planner uniform --gpus 1
expect_stdout_has "alexnet (23 layers) on 1 GPU x 16.0 GiB, 10 GB/s" "one GPU of the mixed platform: its cap alone"

# a weight factor of 3.5 on weights of odd bytes: half bytes, and each part
# rounded on its own came to a byte less than the total in the JSON
printf '[network]\nname = odd\nmicro_batch = 1\n[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 3B\nactivation = 1B\n[layer b]\nforward = 2ms\nbackward = 1ms\nweights = 5B\nactivation = 1B\n[layer c]\nforward = 1ms\nbackward = 1ms\nweights = 7B\nactivation = 1B\n' >"$TMP/odd.ini"
printf '[platform]\nname = p\ngpus = 2\nmemory = 2GiB\nreserved = 1GiB\nbandwidth = 12GB/s\nlatency = 10us\n[training]\nmicro_batches = 4\nschedule = 1f1b\nweight_factor = 3.5\n' >"$TMP/half.ini"
run solve "$TMP/odd.ini" "$TMP/half.ini" --work-limit 50 --json
if jq -e '[.plans[] | .gpus[] | .memory | .weights + .activations + .buffers + .reserved == .total]
          | length > 0 and all' "$TMP/out" >/dev/null; then
    ok "half bytes: every GPU's parts add up to its total"
else not_ok "half bytes: $(jq -c '[.plans[] | .gpus[] | .memory]' "$TMP/out" | head -c 400)"; fi

# --blocks 0 on 1,003 layers and 64 GPUs: a master of 537,648 rows, far
# beyond what the work limit lets it start. It is counted, not built (it
# took 550 MB and, on 2,051 layers and 128 GPUs, 15 s past a 10 s limit,
# to be refused after building). Seconds: not under valgrind.
if [ -z "$PIPEPLAN_WRAP" ]; then
    run gen transformer --layers 1000 --hidden 1024 --heads 16 --ffn 4096 --vocab 32000 \
        --seq 2048 --gpu H100 -o "$TMP/t1k.ini"
    printf '[platform]\nname = p\ngpus = 64\nmemory = 80GiB\nreserved = 2GiB\nbandwidth = 40GB/s\nlatency = 10us\n[training]\nmicro_batches = 128\nschedule = 1f1b\noptimizer = adam\n' >"$TMP/p64.ini"
    run solve "$TMP/t1k.ini" "$TMP/p64.ini" --planner ilp --blocks 0 --work-limit 2000 \
        --log "$TMP/b0.log" --json
    expect_status 0 "--blocks 0 on 1,003 layers and 64 GPUs"
    if grep -q "a MIP of 537648 rows not started (nor built)" "$TMP/b0.log" &&
       [ "$(jq -r '.plans[0].status' "$TMP/out")" = timeout ]; then
        ok "a master too large for the work left is not built"
    else not_ok "large master: $(grep 'not started' "$TMP/b0.log" | head -2)"; fi
fi

# Far more GPUs than blocks: the search runs on the 16 roomiest, and the
# best baseline, on all of them, beats it. The search ended with its
# blocks' plan proven, so the row is block_optimal with why, not a bare
# "feasible" that could as well mean it stopped early.
run solve data/networks/llama3-70b.ini data/platforms/h100-ib-8nodes.ini --gpus 100 \
    --work-limit 300 --planner ilp --json
expect_status 0 "100 ranks, 16 blocks"
if [ "$(jq -r '.plans[0].status' "$TMP/out")" = block_optimal ] &&
   [ "$(jq -r '.plans[0].message' "$TMP/out")" = "the search ended; the best baseline's plan, on all 100 GPUs, beats its plan on the 16 with the most memory" ]; then
    ok "a baseline beats the search on a subset: block_optimal, and why"
else not_ok "subset beaten: $(jq -c '.plans[0] | [.status, .message]' "$TMP/out")"; fi

# Far more GPUs than blocks and nothing fits: the ILP's row shows the
# memory-aware DP's split, as its message says, on all the GPUs (it showed
# the DP's split of the 2 roomiest: 370.9 ms a period beside the DP's
# 274.0 ms), whether the DP's result is handed to it or it runs the DP.
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --gpus 12 --blocks 2 \
    --memory 2GiB --work-limit 50 --planner ilp,dp --json
expect_status 1 "12 GPUs, 2 blocks, nothing fits"
cp "$TMP/out" "$TMP/subset_dp.json"
if jq -e '.plans[0] as $i | .plans[1] as $d | $i.planner == "ilp" and $d.planner == "dp"
          and ($i.message | endswith("its row shows the memory-aware DP'"'"'s split, which does not fit either"))
          and $i.assignment == $d.assignment and $i.period_ms == $d.period_ms
          and $i.iteration_ms == $d.iteration_ms and ($i.fits | not)' "$TMP/subset_dp.json" >/dev/null
then ok "nothing fits on a subset: the ILP's row is the DP's row"
else not_ok "subset, DP's split: $(jq -c '[.plans[] | [.planner, .period_ms, .message]]' "$TMP/subset_dp.json")"; fi
run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --gpus 12 --blocks 2 \
    --memory 2GiB --work-limit 50 --planner ilp --json
expect_status 1 "12 GPUs, 2 blocks, the ILP alone"
if jq -e --slurpfile a "$TMP/subset_dp.json" '.plans[0].assignment == $a[0].plans[1].assignment
          and .plans[0].period_ms == $a[0].plans[1].period_ms' "$TMP/out" >/dev/null
then ok "nothing fits on a subset, the ILP alone: the DP's split on all the GPUs"
else not_ok "subset, the ILP alone: $(jq -c '.plans[0] | [.period_ms, .message]' "$TMP/out")"; fi

# One micro-batch: the latency is the objective and the period is free;
# the ILP's plan shows the least its loads allow (it showed 91.5 ms beside
# an iteration of 89.4 ms: every layer on one GPU, whose load is 89.4 ms).
# vgg16: the loads' period does not replay with the same start times; the
# latency always does (it showed 742.4 ms beside 674.7 ms)
for net in gnmt vgg16; do
    run solve "$PIPEPLAN_SRCDIR/data/networks/$net.ini" "$PIPEPLAN_SRCDIR/data/platforms/v100-16gb-pcie-4.ini" \
        --micro-batches 1 --work-limit 200 --planner ilp --json
    expect_status 0 "$net, one micro-batch"
    if jq -e '.plans[0] | .status == "optimal" and .period_ms <= .iteration_ms' "$TMP/out" >/dev/null; then
        ok "$net, one micro-batch: the period is no longer than the iteration"
    else not_ok "$net, one micro-batch: $(jq -c '.plans[0] | [.status, .period_ms, .iteration_ms]' "$TMP/out")"; fi
done
# Layers of nanoseconds: the ILP's period stops at the schedulers' floor of
# 1 us, and its row says so (a gap of 96% and a timeout said nothing)
awk 'BEGIN { print "[network]\nname = tiny\nmicro_batch = 1"
             for (i = 0; i < 12; i++)
                 printf "[layer l%d]\nforward = 0.000001ms\nbackward = 0.000002ms\nweights = 1KB\nactivation = 1KB\n", i }' \
    > "$TMP/tiny.ini"
run solve "$TMP/tiny.ini" data/platforms/a100-40gb-8.ini --planner ilp --work-limit 5 --json
expect_status 0 "nanosecond layers: exit 0"
if jq -e '.plans[0] | .period_ms == 0.001 and (.message | test("the schedulers. least, 1 us"))' \
    "$TMP/out" >/dev/null; then
    ok "nanosecond layers: the period floor is named"
else not_ok "nanosecond layers: $(jq -c '.plans[0] | [.period_ms, .message]' "$TMP/out")"; fi
finish
