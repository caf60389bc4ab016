#!/bin/sh
# run.sh SECONDS TIMEOUT CORPUS BUILD NAME...: run each harness BUILD/fuzz_NAME
# for SECONDS over a copy of CORPUS/NAME in BUILD/run/NAME (the committed
# seeds are never grown), one after the other; then a table of executions
# and coverage (libFuzzer's final cov: edges, ft: features). An input that
# crashed, hung (TIMEOUT seconds) or leaked is left in BUILD/run/NAME/;
# the exit status is 1 if any harness found one.
set -u
seconds=$1 timeout=$2 corpus=$3 build=$4
shift 4
table=$build/run/table
mkdir -p "$build/run"
printf '%-10s %8s %12s %8s %6s %7s %7s  %s\n' harness seconds executions exec/s cov ft corpus result >"$table"
status=0
for name in "$@"; do
    dir=$build/run/$name
    rm -rf "$dir"
    mkdir -p "$dir/corpus"
    cp "$corpus/$name"/* "$dir/corpus/"
    echo "fuzz_$name: $seconds s over $(ls "$dir/corpus" | wc -l) seeds"
    rc=0
    "$build/fuzz_$name" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" \
        >"$dir/log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$dir/log" | tail -n 1)
    cov=$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    units=$(ls "$dir/corpus" | wc -l)
    if [ "$rc" -eq 0 ]; then
        result=ok
    else
        status=1
        found=$(ls "$dir" | grep -E '^(crash|timeout|leak|oom|slow-unit)-' | head -n 1)
        result="FAILED (exit $rc${found:+, input $dir/$found})"
        echo "==== fuzz_$name failed; the end of $dir/log:"
        grep -v -E '^#[0-9]+' "$dir/log" | tail -n 40
    fi
    printf '%-10s %8s %12s %8s %6s %7s %7s  %s\n' "$name" "$seconds" "${execs:--}" "${speed:--}" \
        "${cov:--}" "${ft:--}" "$units" "$result" >>"$table"
done
cat "$table"
exit "$status"
