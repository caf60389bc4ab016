#!/bin/sh
# Counts of one read in the singular: "1 layer", "1 GPU", "1 block",
# "1 micro-batch", "1 sample" (check and solve on a one-layer network and a
# one-GPU platform; the ILP proves a single layer optimal at once).
. "$PIPEPLAN_SRCDIR/tests/lib.sh"

printf '[network]\nname = one\nmicro_batch = 1\n[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n' \
    >"$TMP/one.ini"
printf '[platform]\nname = solo\ngpus = 1\nmemory = 16GiB\nreserved = 1GiB\nbandwidth = 10GB/s\nlatency = 5us\n[training]\nmicro_batches = 1\nschedule = 1f1b\noptimizer = adam\n' \
    >"$TMP/solo.ini"

run check "$TMP/one.ini" "$TMP/solo.ini"
expect_status 0 "check one layer, one GPU"
expect_stdout_has "one.ini: network one, 1 layer, micro-batch of 1 sample" "check: 1 layer, 1 sample"
expect_stdout_has "solo.ini: platform solo, 1 GPU" "check: 1 GPU"
expect_stdout_has "training     1 micro-batch, 1f1b schedule" "check: 1 micro-batch"

run solve "$TMP/one.ini" "$TMP/solo.ini" --work-limit 1000
expect_status 0 "solve one layer on one GPU"
expect_stdout_has "one (1 layer) on 1 GPU x 16.0 GiB" "solve: 1 layer on 1 GPU"
expect_stdout_has "1 micro-batch of 1, 1f1b schedule" "solve: 1 micro-batch"
printf '[layer b]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n' | cat "$TMP/one.ini" - >"$TMP/two.ini"
run solve "$TMP/two.ini" "$TMP/solo.ini" --blocks 1 --planner ilp --work-limit 1000
expect_stdout_has "ILP (CBC): for the network cut into 1 block it is at least" "solve: 1 block"

# a tensor-parallel network on one pipeline rank: "the one pipeline rank"
sed 's/^micro_batch = 1$/micro_batch = 1\ntensor_parallel = 8/' "$TMP/one.ini" >"$TMP/tp.ini"
run solve "$TMP/tp.ini" "$TMP/solo.ini" --planner uniform
expect_stdout_has "tensor parallel 8: the one pipeline rank is a group of 8 GPUs; memory and times are per GPU of the group" \
    "solve: one pipeline rank of tensor parallelism"
# its plan's rows are pipeline ranks, and so called
expect_stdout_has "peak rank" "solve: the planners' table names the peak rank"
expect_stdout_has "rank      load      send" "solve: the plan's table has a row per rank"
if grep -q "peak GPU\|^GPU " "$TMP/out"; then not_ok "no column says GPU for a rank"; else ok "no column says GPU for a rank"; fi
run solve "$TMP/one.ini" "$TMP/solo.ini" --planner uniform
expect_stdout_has "GPU       load      send" "solve: without tensor parallelism, a row per GPU"

# and the plural stays plural
run solve "$TMP/one.ini" "$TMP/solo.ini" --gpus 2 --micro-batches 2 --planner uniform
expect_stdout_has "one (1 layer) on 2 GPUs x 16.0 GiB" "solve: 2 GPUs"
expect_stdout_has "2 micro-batches of 1," "solve: 2 micro-batches"

run check "$TMP/one.ini" "$TMP/solo.ini"
cp "$TMP/out" "$TMP/all"
run solve "$TMP/one.ini" "$TMP/solo.ini" --work-limit 1000
cat "$TMP/out" >>"$TMP/all"
run solve "$TMP/two.ini" "$TMP/solo.ini" --blocks 1 --work-limit 1000
cat "$TMP/out" >>"$TMP/all"
for word in "1 layers" "1 GPUs" "1 blocks" "1 micro-batches" "1 samples"; do
    if grep -qF -- "$word" "$TMP/all"; then not_ok "'$word' printed"; else ok "no '$word'"; fi
done

finish
