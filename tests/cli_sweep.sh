#!/bin/sh
# pipeplan sweep: rows equal solve --json setting by setting; a stopped or
# killed run resumed equals one uninterrupted run; four shards run with GNU
# parallel and merged equal one unsharded run; a merge with a shard absent
# or given twice fails; bad grids, other inputs and unwritable files are
# refused without leaving a file; --plot writes a well-formed SVG.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; exit 1; }
command -v parallel >/dev/null || { echo "GNU parallel is needed (apt-get install parallel)"; exit 1; }

NET=tests/data/sweep/tiny.ini
PLAT=tests/data/sweep/four.ini
# 2 GPU counts x 2 caps x 2 schedules = 8 settings, 6 planners each; the
# ILP under a work limit answers the same on any machine (a whole sweep:
# 0.3 s natively, 7 s under valgrind)
GRID="--gpus 2,4 --memory 2500MB,8GB --schedule 1f1b,pipedream --work-limit 5"
# a CSV without its seconds column (the last one, which differs between runs)
noseconds() { sed 's/,[^,]*$//' "$1"; }
rows() { grep -vc '^#' "$1"; }
# untouched WHAT PATTERN FILE COPY: the refusal says PATTERN, FILE is COPY
untouched() {
    if grep -q "$2" "$TMP/err" && cmp -s "$3" "$4"; then
        ok "$1: says so, the file untouched"
    else
        not_ok "$1"; cat "$TMP/err"
    fi
}


# ---- one uninterrupted run ----
run sweep $NET $PLAT $GRID -o "$TMP/full.csv"
expect_status 0 "sweep over 8 settings"
if [ "$(rows "$TMP/full.csv")" -eq 49 ]; then ok "48 rows and the column line"; else
    not_ok "rows: $(rows "$TMP/full.csv")"; fi
if grep -q "^# input network sha256 $(sha256sum <$NET | cut -d' ' -f1) " "$TMP/full.csv" &&
   grep -q "^# input platform sha256 $(sha256sum <$PLAT | cut -d' ' -f1) " "$TMP/full.csv"; then
    ok "the header names each input with its sha256sum"; else not_ok "header hashes"; fi
if grep -q '^# grid networks=1 gpus=2,4 memory=2500000000,8000000000 micro_batches=files schedule=1f1b,pipedream layout=files planners=ilp,dp,pipedream,time,parameters,uniform$' "$TMP/full.csv"; then
    ok "the header names the grid"; else not_ok "grid line"; grep '^# grid' "$TMP/full.csv"; fi
if [ "$(grep -c 'pipeplan sweep: setting [0-7] ([1-8]/8)' "$TMP/err")" -eq 8 ]; then
    ok "one progress line per setting when stderr is no terminal"; else
    not_ok "progress lines"; cat "$TMP/err"; fi

# ---- 1. every row equals solve --json of its setting ----
# setting -> knobs, in grid order: gpus, memory, schedule (innermost)
s=0
mismatch=0
for g in 2 4; do for m in 2500MB 8GB; do for sch in 1f1b pipedream; do
    # the reference runs unwrapped: the sweep is what is under test
    "$PIPEPLAN" solve $NET $PLAT --gpus $g --memory $m --schedule $sch --work-limit 5 --json \
        >"$TMP/solve.json" 2>/dev/null
    jq -r '.plans[] | [.planner, .status, .period_ms, .iteration_ms, (.bound_ms // ""),
           .fits, .peak_memory] | @tsv' "$TMP/solve.json" >"$TMP/want"
    awk -F, -v s=$s 'BEGIN{OFS="\t"} $1 == s {print $9, $10, $11, $12, $14, $17, $18}' \
        "$TMP/full.csv" >"$TMP/got"
    # JSON has 10 significant digits, the CSV 17: equal within 1e-9 relative
    if ! awk -F'\t' 'NR == FNR {w[FNR] = $0; n = FNR; next}
        { split(w[FNR], a, "\t"); if (a[1] != $1 || a[2] != $2 || a[6] != $6 || a[7] != $7) bad = 1
          for (i = 3; i <= 5; i++) { d = a[i] - $i; if (d < 0) d = -d
            if ((a[i] == "") != ($i == "") || d > 1e-9 * (a[i] < 0 ? -a[i] : a[i])) bad = 1 } }
        END { exit bad || FNR != n || n != 6 }' "$TMP/want" "$TMP/got"; then
        mismatch=1; echo "  setting $s ($g GPUs, $m, $sch):"; paste "$TMP/want" "$TMP/got"
    fi
    s=$((s + 1))
done; done; done
if [ $mismatch -eq 0 ]; then ok "each of the 48 rows equals solve --json (status, period, iteration, bound, fits, peak)"; else
    not_ok "rows differ from solve --json"; fi
# the figures are not all alike: the grid does change the answers
if [ "$(awk -F, '$1 ~ /^[0-9]+$/ {print $10}' "$TMP/full.csv" | sort -u | wc -l)" -ge 3 ]; then
    ok "the grid holds several statuses"; else not_ok "one status everywhere"; fi

# ---- 2. stopped and resumed equals uninterrupted ----
status=0
PIPEPLAN_SWEEP_STOP_AFTER=10 pp sweep $NET $PLAT $GRID -o "$TMP/stop.csv" \
    >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 143 "SIGTERM after 10 rows: 128 + 15"
expect_stderr_has() { if grep -qF -- "$1" "$TMP/err"; then ok "$2"; else not_ok "$2"; cat "$TMP/err"; fi; }
expect_stderr_has "stopped by SIGTERM: 12 of 48 rows in $TMP/stop.csv; run the same command again to resume" \
    "says how many rows are done and how to resume"
if [ "$(rows "$TMP/stop.csv")" -eq 13 ] && [ "$(tail -c1 "$TMP/stop.csv" | od -An -c | tr -d ' ')" = '\n' ]; then
    ok "whole settings only: 12 rows, ending with a newline"; else not_ok "stopped file"; tail -2 "$TMP/stop.csv"; fi
run sweep $NET $PLAT $GRID -o "$TMP/stop.csv"
expect_status 0 "the same command again"
expect_stderr_has "resuming: 12 of 48 rows there, 6 settings to run" "resuming says what is there"
if [ "$(grep -c 'pipeplan sweep: setting' "$TMP/err")" -eq 6 ]; then ok "only the 6 missing settings ran"; else
    not_ok "settings run on resume"; cat "$TMP/err"; fi
if [ "$(noseconds "$TMP/stop.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "stopped + resumed equals one uninterrupted run"; else not_ok "resumed differs";
    diff "$TMP/stop.csv" "$TMP/full.csv" | head; fi
run sweep $NET $PLAT $GRID -o "$TMP/stop.csv"
expect_status 0 "a complete file again"
expect_stderr_has "48 rows (0 new)" "nothing runs twice"
# under --work-limit the ILP runs on one thread whatever --threads says
run sweep $NET $PLAT $GRID --threads 2 -o "$TMP/stop.csv"
expect_status 0 "--threads 2 under the same work limit resumes the file"
expect_stderr_has "48 rows (0 new)" "--threads under a work limit changes no row"
# stopped in its first setting: the header and the column line, no row
awk '/^#/ {print; next} !c++' "$TMP/full.csv" >"$TMP/empty.csv"
run sweep $NET $PLAT $GRID -o "$TMP/empty.csv"
expect_status 0 "resume of a file of no rows"
if [ "$(noseconds "$TMP/empty.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "a file of no rows resumed equals one uninterrupted run"; else not_ok "resumed from no rows"; fi
# a killed machine: 44 whole rows and a partial one without its newline
head -n 52 "$TMP/full.csv" >"$TMP/kill.csv"
sed -n 53p "$TMP/full.csv" | head -c 30 >>"$TMP/kill.csv"
run sweep $NET $PLAT $GRID -o "$TMP/kill.csv"
expect_status 0 "resume after a kill"
expect_stderr_has "$TMP/kill.csv:53: dropped a partial last row" "the partial row is dropped, with its line"
if [ "$(noseconds "$TMP/kill.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "killed + resumed equals one uninterrupted run"; else not_ok "resumed after kill differs"; fi
# a partial row that ends in a newline but lacks fields
head -n 52 "$TMP/full.csv" >"$TMP/kill2.csv"
echo "7,tiny,four,4" >>"$TMP/kill2.csv"
run sweep $NET $PLAT $GRID -o "$TMP/kill2.csv"
expect_status 0 "resume after a short last row"
if [ "$(noseconds "$TMP/kill2.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "a short last row is dropped too"; else not_ok "short last row"; fi
# a bad row in the middle is no interruption: refused with its line
{ head -n 12 "$TMP/full.csv"; echo "1,tiny,four"; sed -n '13,$p' "$TMP/full.csv"; } >"$TMP/bad.csv"
cp "$TMP/bad.csv" "$TMP/bad.before"
run sweep $NET $PLAT $GRID -o "$TMP/bad.csv"
expect_status 2 "a broken row in the middle"
expect_stderr "pipeplan sweep: $TMP/bad.csv:13: 3 fields (expected 21) (use --force to start over)" \
    "FILE:LINE for a broken row"
if cmp -s "$TMP/bad.csv" "$TMP/bad.before"; then ok "the broken file is left alone"; else not_ok "broken file changed"; fi
{ head -n 12 "$TMP/full.csv"; sed -n '13s/$/,x,y/p' "$TMP/full.csv"; sed -n '14,$p' "$TMP/full.csv"; } >"$TMP/wide.csv"
run sweep $NET $PLAT $GRID -o "$TMP/wide.csv"
expect_stderr "pipeplan sweep: $TMP/wide.csv:13: more than 21 fields, or a quote not closed (expected 21 fields) (use --force to start over)" \
    "a row of too many fields: said so, not '0 fields'"
# the same as the last row: no kill leaves a whole line longer than a row
last=$(wc -l <"$TMP/full.csv")
sed "${last}s/\$/,x,y/" "$TMP/full.csv" >"$TMP/wide.csv"
cp "$TMP/wide.csv" "$TMP/wide.before"
run sweep $NET $PLAT $GRID -o "$TMP/wide.csv"
expect_status 2 "a last row of too many fields"
expect_stderr "pipeplan sweep: $TMP/wide.csv:$last: more than 21 fields, or a quote not closed (expected 21 fields) (use --force to start over)" \
    "a last row of too many fields: an error on its line, not a partial row dropped"
if cmp -s "$TMP/wide.csv" "$TMP/wide.before"; then ok "a last row of too many fields: the file is left alone"; else
    not_ok "wide last row: file changed"; fi
# a row whose figures no run writes: refused with its line, not carried on
awk -F, -v OFS=, 'NR == 13 { $10 = "bogus" } { print }' "$TMP/full.csv" >"$TMP/bogus.csv"
run sweep $NET $PLAT $GRID -o "$TMP/bogus.csv"
expect_stderr "pipeplan sweep: $TMP/bogus.csv:13: status 'bogus' (expected one a planner reports) (use --force to start over)" \
    "a row of an unknown status: FILE:LINE and why"
awk -F, -v OFS=, 'NR == 13 { $11 = "nan" } { print }' "$TMP/full.csv" >"$TMP/nan.csv"
run sweep $NET $PLAT $GRID -o "$TMP/nan.csv"
expect_stderr "pipeplan sweep: $TMP/nan.csv:13: period_ms 'nan' (expected a number from 0, or nothing) (use --force to start over)" \
    "a row of a period nan: FILE:LINE and why"
# saved again by a spreadsheet: a BOM and CRLF line ends, half the rows
{ printf '\357\273\277'; head -n 32 "$TMP/full.csv" | sed 's/$/\r/'; } >"$TMP/crlf.csv"
run sweep $NET $PLAT $GRID -o "$TMP/crlf.csv"
expect_status 0 "resume of a file with a BOM and CRLF"
if [ "$(noseconds "$TMP/crlf.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "BOM + CRLF resumed equals one uninterrupted run"; else not_ok "BOM + CRLF resume"; cat "$TMP/err"; fi

# ---- 3. four shards with GNU parallel, merged ----
parallel -j2 "$PIPEPLAN_WRAP $PIPEPLAN sweep $NET $PLAT $GRID --shard {}/4 -o $TMP/shard{}.csv 2>/dev/null" \
    ::: 0 1 2 3
status=$?
expect_status 0 "four shards under GNU parallel"
if [ "$(rows "$TMP/shard3.csv")" -eq 13 ] && grep -q '^# shard 3/4$' "$TMP/shard3.csv" &&
   [ "$(awk -F, '$1 ~ /^[0-9]+$/ {print $1}' "$TMP/shard3.csv" | sort -u | tr '\n' ' ')" = "3 7 " ]; then
    ok "shard 3/4 holds settings 3 and 7"; else not_ok "shard 3/4"; cat "$TMP/shard3.csv"; fi
run sweep --merge "$TMP/shard2.csv" "$TMP/shard0.csv" "$TMP/shard3.csv" "$TMP/shard1.csv" -o "$TMP/merged.csv"
expect_status 0 "merge of four shards"
if [ "$(noseconds "$TMP/merged.csv")" = "$(noseconds "$TMP/full.csv")" ]; then
    ok "merged shards equal one unsharded run (header and rows, in grid order)"; else
    not_ok "merged differs"; diff "$TMP/merged.csv" "$TMP/full.csv" | head; fi
run sweep --merge "$TMP/shard0.csv" "$TMP/shard1.csv" "$TMP/shard2.csv" -o "$TMP/part.csv"
expect_status 1 "merge with shard 3 absent"
expect_stderr "pipeplan sweep: 2 of 8 settings absent: 3, 7 (settings are numbered from 0; shard I/N holds those equal to I mod N); nothing written" \
    "names the absent settings"
if [ ! -e "$TMP/part.csv" ]; then ok "no partial merge written"; else not_ok "partial merge written"; fi
run sweep --merge "$TMP/shard0.csv" "$TMP/shard1.csv" "$TMP/shard1.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" -o "$TMP/dup.csv"
expect_status 2 "a shard given twice"
expect_stderr "pipeplan sweep: shard 1/4 given twice: $TMP/shard1.csv and $TMP/shard1.csv" "says which shard"
# the options of a run are refused with --merge, not ignored (--planner dp
# merged every planner's rows)
for opt in "--planner dp" "--shard 1/4" "--work-limit=7" "--gpus 2"; do
    run sweep --merge "$TMP/shard0.csv" "$TMP/shard1.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" \
        $opt -o "$TMP/opt.csv"
    expect_status 2 "--merge with $opt"
    expect_stderr "pipeplan sweep: --merge takes CSV files, -o, --force and --plot only (the grid is in the files), not ${opt%%[ =]*}" \
        "--merge with $opt: names it"
done
if [ ! -e "$TMP/opt.csv" ]; then ok "--merge with options of a run: nothing written"; else
    not_ok "--merge with options of a run: a file written"; fi
# a file whose row disagrees with another file's row for the same setting
# more shards than settings: shard 1/2 of one setting has no rows (a
# file of no rows once read an array that was never made)
ONE="--gpus 2 --memory 8GB --schedule 1f1b --work-limit 5"
run sweep $NET $PLAT $ONE -o "$TMP/one.csv"
for i in 0 1; do run sweep $NET $PLAT $ONE --shard $i/2 -o "$TMP/one$i.csv"; done
expect_status 0 "shard 1/2 of a grid of one setting"
if [ "$(rows "$TMP/one1.csv")" -eq 1 ]; then ok "that shard holds the column line only"; else
    not_ok "rows of the empty shard: $(rows "$TMP/one1.csv")"; fi
run sweep --merge "$TMP/one0.csv" "$TMP/one1.csv" -o "$TMP/one-merged.csv"
expect_status 0 "merge with a shard of no rows"
if [ "$(noseconds "$TMP/one-merged.csv")" = "$(noseconds "$TMP/one.csv")" ]; then
    ok "merged with an empty shard equals the unsharded run"; else not_ok "merge with an empty shard";
    diff "$TMP/one-merged.csv" "$TMP/one.csv" | head; fi
sed -e 's|^# shard 1/4$|# shard 1/2|' -e 's/^\(1,tiny,four,2,2500000000,4,pipedream,any,dp,[a-z_]*,\)[0-9.]*/\1999/' "$TMP/shard1.csv" >"$TMP/other1.csv"
run sweep --merge "$TMP/shard1.csv" "$TMP/other1.csv" "$TMP/shard0.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" -o "$TMP/dis.csv"
expect_status 2 "rows that disagree"
expect_stderr "pipeplan sweep: setting 1, planner dp: $TMP/shard1.csv and $TMP/other1.csv disagree" \
    "names the setting and the files"

# ---- 4. error paths ----
for bad in "--memory 40GB:10GB:5GB|bad --memory '40GB:10GB:5GB': START above STOP" \
           "--memory 1GB:2GB:0GB|bad --memory '1GB:2GB:0GB': STEP must be positive" \
           "--memory 1GB:2GB:-1GB|bad --memory '1GB:2GB:-1GB': STEP must be positive" \
           "--memory -1GB:2GB:1GB|bad --memory '-1GB:2GB:1GB': START must be positive" \
           "--memory 0B|bad --memory '0B': '0B': must be positive" \
           "--gpus 2,4:8|bad --gpus '2,4:8': '4:8': a range START:STOP:STEP is for --memory; list the counts, e.g. 2,4,8" \
           "--micro-batches 4:16:4|bad --micro-batches '4:16:4': '4:16:4': a range START:STOP:STEP is for --memory; list the counts, e.g. 2,4,8" \
           "--memory 18446744073709551615B|bad --memory '18446744073709551615B': '18446744073709551615B': above the most a sweep takes (8192 PiB)" \
           "--memory 1GB:2GB|bad --memory '1GB:2GB': expected START:STOP:STEP, e.g. 40GB:141GB:10GB" \
           "--gpus 2,,4|bad --gpus '2,,4': an empty item" \
           "--gpus 2,2|bad --gpus '2,2': a value given twice" \
           "--schedule 1f1b,gpipe|bad --schedule '1f1b,gpipe': 'gpipe' (expected 1f1b or pipedream)" \
           "--shard -1/2|bad --shard '-1/2': I: negative value (expected I/N with I in 0..N-1, e.g. 0/4)" \
           "--shard 4/4|bad --shard '4/4': I is 4, N 4 (expected I in 0..N-1: shards count from 0; from a Slurm array numbered 1..N pass \$((SLURM_ARRAY_TASK_ID - 1))/N)" \
           "--planner user|--planner user is your own plan, which a sweep does not take" \
           "--planner dp,|bad --planner 'dp,': an empty item (expected NAME[,NAME...] or all)" \
           "--planner foo|unknown planner 'foo' (expected ilp, dp, pipedream, time, parameters, uniform, or all)" \
           "--blocks -1|bad --blocks '-1': negative value (see pipeplan sweep --help)" \
           "--memory 4GiB --memory 8GiB|--memory given twice (expected it once)"; do
    args=${bad%%|*}
    run sweep $NET $PLAT $args -o "$TMP/err.csv"
    expect_status 2 "refused: $args"
    expect_stderr "pipeplan sweep: ${bad#*|}" "message for $args"
done
run sweep $NET $PLAT --gpus "" -o "$TMP/err.csv"
expect_stderr "pipeplan sweep: bad --gpus '': an empty list" "an empty list"
if [ ! -e "$TMP/err.csv" ]; then ok "no output file after a usage error"; else not_ok "output left"; fi
# a cap at or below the platform's reserve (100 MB) anywhere in the list:
# refused before any setting runs (the second cap stopped the run after
# the first setting's rows were written)
run sweep $NET $PLAT --gpus 2 --memory 8GB,50MB --work-limit 5 -o "$TMP/err.csv"
expect_status 2 "a second cap below the reserve"
expect_stderr "pipeplan sweep: --memory 47.7 MiB is not above the 95.4 MiB the platform reserves per GPU (expected more)" \
    "a second cap below the reserve: says so"
if [ ! -e "$TMP/err.csv" ]; then ok "a second cap below the reserve: no output file"; else
    not_ok "a second cap below the reserve: output left"; fi
run sweep $NET $PLAT --gpus 9999 -o "$TMP/err.csv"
expect_status 2 "more GPUs than a spec allows"
run sweep $NET -o "$TMP/err.csv"
expect_status 2 "a network without a platform"
run sweep $NET $PLAT
expect_stderr "pipeplan sweep: missing -o FILE.csv (expected pipeplan sweep NETWORK.ini... PLATFORM.ini [grid options] -o FILE.csv)" "-o is required"
printf '[network]\nname = x\nmicro_batch = 1\n\n[layer a]\nforward = 1ms\nbackward = 1parsec\n' >"$TMP/broken.ini"
run sweep "$TMP/broken.ini" $PLAT -o "$TMP/err.csv"
expect_status 2 "a broken network file"
if grep -q "^$TMP/broken.ini:7: " "$TMP/err"; then ok "FILE:LINE for a broken input"; else not_ok "FILE:LINE"; cat "$TMP/err"; fi
if [ ! -e "$TMP/err.csv" ]; then ok "no output file after bad input"; else not_ok "output left"; fi
# two networks of one name: the rows and the plot could not tell them
# apart (one zigzag line through both); refused before anything is written
sed 's/^forward = 2ms$/forward = 20ms/' $NET >"$TMP/tiny2.ini"
run sweep $NET "$TMP/tiny2.ini" $PLAT --gpus 2 --planner dp --work-limit 5 -o "$TMP/same.csv" \
    --plot "$TMP/same.svg"
expect_status 2 "two networks of one name"
expect_stderr "pipeplan sweep: $NET and $TMP/tiny2.ini both name their network 'tiny' (expected one name per network: the rows name it)" \
    "names both files and the name"
if [ ! -e "$TMP/same.csv" ] && [ ! -e "$TMP/same.svg" ]; then ok "two networks of one name: nothing written"; else
    not_ok "two networks of one name: a file left"; fi
run sweep $NET $PLAT $GRID -o "$TMP/no/such/dir/out.csv"
expect_status 2 "an unwritable -o"
if grep -q "^pipeplan sweep: $TMP/no/such/dir/out.csv: cannot write: no directory $TMP/no/such/dir " "$TMP/err"; then
    ok "says why it cannot write"; else not_ok "unwritable message"; cat "$TMP/err"; fi
# other inputs: the same file name, another platform inside
sed 's/^bandwidth = 10GB\/s/bandwidth = 20GB\/s/' $PLAT >"$TMP/four.ini"
cp "$TMP/full.csv" "$TMP/other.csv"
run sweep $NET "$TMP/four.ini" $GRID -o "$TMP/other.csv"
expect_status 2 "a file from other inputs"
if grep -q "^pipeplan sweep: $TMP/other.csv was made from other inputs or settings: it has '# input platform sha256 $(sha256sum <$PLAT | cut -d' ' -f1) .*' (use --force to start over)$" "$TMP/err" &&
   cmp -s "$TMP/other.csv" "$TMP/full.csv"; then
    ok "refused, the file untouched"; else not_ok "other inputs"; cat "$TMP/err"; fi
# under --work-limit the seconds are not used: another --time-limit resumes
cp "$TMP/full.csv" "$TMP/tl.csv"
run sweep $NET $PLAT $GRID --time-limit 3 -o "$TMP/tl.csv"
expect_status 0 "another --time-limit under the same --work-limit resumes"
if cmp -s "$TMP/tl.csv" "$TMP/full.csv"; then ok "resumed: nothing left to do"; else not_ok "resume with --time-limit"; fi
run sweep $NET $PLAT $(echo "$GRID" | sed 's/--work-limit 5/--work-limit 6/') -o "$TMP/tl.csv"
expect_status 2 "another --work-limit is refused"
if grep -q "it has '# ilp work_limit=5 blocks=" "$TMP/err"; then ok "another --work-limit: says so"; else not_ok "work limit message"; cat "$TMP/err"; fi
run sweep $NET $PLAT --gpus 2 --work-limit 5 -o "$TMP/other.csv"
expect_status 2 "a file from another grid"
# the grid is named, not a row beyond this grid's settings
if grep -q "^pipeplan sweep: $TMP/other.csv was made from other inputs or settings: it has '# grid networks=1 gpus=2,4 " "$TMP/err"; then
    ok "another grid: says so"; else not_ok "another grid message"; cat "$TMP/err"; fi
# a grid of 4096 caps: its header line is whole, so a resume with another
# schedule is refused (the line was cut at 7000 bytes, before the
# schedules, and the pipedream rows went on after the 1f1b ones)
LONG="--gpus 2 --memory 1GB:4096GB:1GB --planner dp --work-limit 5"
status=0
PIPEPLAN_SWEEP_STOP_AFTER=1 pp sweep $NET $PLAT $LONG --schedule 1f1b -o "$TMP/long.csv" \
    >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 143 "a grid of 4096 caps, stopped after its first setting"
if grep -q '^# grid networks=1 gpus=2 memory=1000000000,.*,4096000000000 micro_batches=files schedule=1f1b layout=files planners=dp$' "$TMP/long.csv"; then
    ok "the header names every cap of a long grid, and what follows them"; else
    not_ok "long grid line"; grep '^# grid' "$TMP/long.csv" | tail -c 200; fi
cp "$TMP/long.csv" "$TMP/long.before"
run sweep $NET $PLAT $LONG --schedule pipedream -o "$TMP/long.csv"
expect_status 2 "a long grid resumed with another schedule"
untouched "a long grid resumed with another schedule" \
    "long.csv was made from other inputs or settings: it has '# grid .* schedule=1f1b layout=files planners=dp'" \
    "$TMP/long.csv" "$TMP/long.before"
: >"$TMP/empty0.csv"
run sweep $NET $PLAT --gpus 2 --work-limit 5 -o "$TMP/empty0.csv"
expect_status 2 "an empty file as -o"
expect_stderr "pipeplan sweep: $TMP/empty0.csv: an empty file (expected a pipeplan sweep CSV) (use --force to start over)" \
    "an empty file: says so (no line 0)"
run sweep $NET "$TMP/four.ini" --gpus 2 --memory 3GB --work-limit 5 --force -o "$TMP/other.csv"
expect_status 0 "--force starts over"
if [ "$(rows "$TMP/other.csv")" -eq 7 ]; then ok "--force: only the new rows"; else not_ok "--force rows"; fi
run sweep --merge "$TMP/full.csv" "$TMP/other.csv" -o "$TMP/mix.csv"
expect_status 2 "merge of files from other inputs"

# ---- quoting: a name with a comma and quotes (RFC 4180) ----
sed 's/^name = tiny$/name = tiny, "six"/' $NET >"$TMP/quoted.ini"
run sweep "$TMP/quoted.ini" $PLAT --gpus 2 --planner dp -o "$TMP/q.csv"
if grep -q '^0,"tiny, ""six""",four,2,4000000000,4,1f1b,any,dp,' "$TMP/q.csv"; then
    ok "a name with a comma and quotes is quoted"; else not_ok "quoting"; cat "$TMP/q.csv"; fi
run sweep "$TMP/quoted.ini" $PLAT --gpus 2,4 --planner dp -o "$TMP/q.csv"
expect_status 2 "another grid over the quoted file"
run sweep "$TMP/quoted.ini" $PLAT --gpus 2 --planner dp -o "$TMP/q.csv"
expect_status 0 "the quoted rows read back on resume"

# ---- --plot ----
run sweep $NET $PLAT --gpus 2,4 --memory 1GB:8GB:1GB --schedule pipedream --planner dp,uniform \
    -o "$TMP/plot.csv" --plot "$TMP/plot.svg"
expect_status 0 "sweep with --plot"
svg="$TMP/plot.svg"
# 2 planners x 2 GPU counts: four lines, four legend entries
if [ "$(grep -c '<polyline ' "$svg")" -eq 4 ] && [ "$(grep -c '<text class="entry"' "$svg")" -eq 4 ]; then
    ok "one polyline and legend entry per planner and GPU count"; else not_ok "polylines"; grep -c '<polyline' "$svg"; fi
for label in "mem-aware DP, 2 GPUs" "mem-aware DP, 4 GPUs"; do
    if grep -qF ">$label</text>" "$svg"; then ok "legend: $label"; else not_ok "legend: $label"; fi
done
if grep -qF 'tiny on four, pipedream: best period against the memory cap' "$svg" &&
   grep -qF '>memory cap per GPU (GB)</text>' "$svg" && grep -qF '>period (ms)</text>' "$svg"; then
    ok "title and axis units"; else not_ok "title/axes"; fi
# each of the four stops fitting below some cap: a cross there
if [ "$(grep -c '<path class="mark"' "$svg")" -eq 4 ]; then ok "where a planner stops fitting is marked"; else
    not_ok "marks: $(grep -c '<path class="mark"' "$svg")"; fi
run sweep $NET $PLAT --gpus 2 --memory 1GB,2GB --planner dp -o "$TMP/none.csv" --plot "$TMP/none.svg"
if grep -qF '>mem-aware DP, 2 GPUs (fits at no cap)</text>' "$TMP/none.svg" &&
   [ "$(grep -c '<path class="mark"' "$TMP/none.svg")" -eq 0 ]; then
    ok "a planner that fits nowhere says so in the legend"; else not_ok "fits nowhere"; fi
# nothing fits at any cap: no axes made up (they ran 0 to 1 GB and 0 to
# 1 ms), the reason where the plot would be
if grep -qF '>nothing to plot: no plan fits at any cap swept</text>' "$TMP/none.svg" &&
   ! grep -q 'class="axes"' "$TMP/none.svg"; then
    ok "nothing fits: the plot says so, no axes"; else not_ok "nothing fits: plot"; fi
# no row with one cap on every GPU: nothing to plot, said so (the title
# read "no rows with a memory cap on , : best period ...")
cp "$PLAT" "$TMP/uneven.ini"
printf '[gpu 1]\nmemory = 1GB\n' >>"$TMP/uneven.ini"
run sweep $NET "$TMP/uneven.ini" --gpus 2 --planner dp -o "$TMP/uneven.csv" --plot "$TMP/uneven.svg"
if grep -qF '>nothing to plot: no row has one cap on every GPU (its memory column is empty)</text>' \
        "$TMP/uneven.svg" && ! grep -qF ' on , ' "$TMP/uneven.svg"; then
    ok "no uniform cap: the plot says so"; else not_ok "no uniform cap: plot"; cat "$TMP/err"; fi
# well-formed XML: python3's parser where there is one, else tags balanced
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg"; then
        ok "the SVG is well-formed XML (python3)"; else not_ok "python3 rejects the SVG"; fi
fi
if tr '>' '\n' <"$svg" | awk '
    /<[a-z]/ { t = $0; sub(/.*</, "", t); sub(/[ \t].*/, "", t); if ($0 !~ /\/$/) st[++n] = t }
    /<\// { t = $0; sub(/.*<\//, "", t); if (n == 0 || st[n] != t) bad = 1; n-- }
    END { exit bad || n != 0 }'; then ok "every SVG tag is closed in order"; else not_ok "unbalanced SVG"; fi
# names not ASCII in the legend: one of 40 é (its 60th byte inside an é:
# the label was cut there) and one with a byte that is no UTF-8; the SVG
# is UTF-8 all the same, so XML parsers read it
e40=$(printf 'é%.0s' $(seq 40))
sed "s/^name = tiny\$/name = a$e40/" $NET >"$TMP/utf8.ini"
sed "s/^name = tiny\$/name = b$(printf '\377')c/" $NET >"$TMP/byte.ini"
run sweep "$TMP/utf8.ini" "$TMP/byte.ini" $PLAT --gpus 2 --memory 4GB,8GB --planner dp \
    --work-limit 5 -o "$TMP/names.csv" --plot "$TMP/names.svg"
expect_status 0 "a plot of names not ASCII"
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$TMP/names.svg"; then
        ok "names not ASCII: the SVG is well-formed XML (python3)"; else not_ok "python3 rejects the SVG of names not ASCII"; fi
fi
if grep -qF ">mem-aware DP, 2 GPUs, a$e40</text>" "$TMP/names.svg" &&
   grep -qF '>mem-aware DP, 2 GPUs, b\xFFc</text>' "$TMP/names.svg"; then
    ok "the legend names them whole, a byte not UTF-8 as \\xNN"; else not_ok "legend of names not ASCII"; grep entry "$TMP/names.svg"; fi
# two networks alike in their first 90 bytes: two lines, each named (the
# series were told apart by the first 60 bytes, and were one line)
x90=$(printf 'x%.0s' $(seq 90))
sed "s/^name = tiny\$/name = ${x90}A/" $NET >"$TMP/longa.ini"
sed -e "s/^name = tiny\$/name = ${x90}B/" -e 's/^forward = 2ms$/forward = 20ms/' $NET >"$TMP/longb.ini"
run sweep "$TMP/longa.ini" "$TMP/longb.ini" $PLAT --gpus 2 --memory 5GB,8GB --planner dp \
    --work-limit 5 -o "$TMP/longn.csv" --plot "$TMP/longn.svg"
if [ "$(grep -c '<polyline ' "$TMP/longn.svg")" -eq 2 ] &&
   grep -qF ">mem-aware DP, 2 GPUs, ${x90}A</text>" "$TMP/longn.svg" &&
   grep -qF ">mem-aware DP, 2 GPUs, ${x90}B</text>" "$TMP/longn.svg"; then
    ok "networks alike in their first 90 bytes: a line each, named whole"; else
    not_ok "networks of long names alike"; grep -c '<polyline ' "$TMP/longn.svg"; fi
# caps of 9 EB 5 KB apart: the ticks' step was below a double's
# resolution there and the plot never ended (timeout: a hang guard only)
status=0
timeout 600 $PIPEPLAN_WRAP "$PIPEPLAN" sweep $NET $PLAT --gpus 2 --planner dp --work-limit 5 \
    --memory 9007199254740992000B:9007199254740997000B:5000B -o "$TMP/eb.csv" \
    --plot "$TMP/eb.svg" >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 0 "a plot of caps of 9 EB a few KB apart"
if [ "$(grep -c '<circle ' "$TMP/eb.svg")" -eq 2 ] &&
   [ "$(sed -n 's/.*text-anchor="middle">\([0-9.e+]*\)<.*/\1/p' "$TMP/eb.svg" | sort | uniq -d)" = "" ]; then
    ok "its two points are drawn, no two ticks read alike"; else not_ok "a plot of 9 EB caps"; fi
# -o and --plot one file by two spellings: the plot was written over the
# rows (exit 0), and the next run refused the file
run sweep $NET $PLAT --gpus 2 --planner dp --work-limit 5 -o "$TMP/both.svg" --plot "$TMP/./both.svg"
expect_status 2 "-o and --plot one new file by two spellings"
expect_stderr "pipeplan sweep: --plot and -o name the same file" "-o and --plot by two spellings: says so"
if [ ! -e "$TMP/both.svg" ]; then ok "-o and --plot by two spellings: nothing written"; else
    not_ok "-o and --plot by two spellings: a file written"; fi
run sweep $NET $PLAT --gpus 2 -o "$TMP/p.csv" --plot "$TMP/p.png"
expect_status 2 "--plot wants .svg"
# a plot it cannot write is refused before anything runs or is written: a
# merge that wrote its CSV first refused the same command with a good path
run sweep $NET $PLAT --gpus 2 -o "$TMP/p.csv" --plot "$TMP/no/such/dir/p.svg"
expect_status 2 "sweep with an unwritable --plot"
expect_stderr "pipeplan sweep: $TMP/no/such/dir/p.svg: cannot write: no directory $TMP/no/such/dir (expected an existing one)" \
    "says why it cannot write the plot"
if [ ! -e "$TMP/p.csv" ]; then ok "no CSV after an unwritable --plot"; else not_ok "CSV left"; fi
run sweep --merge "$TMP/shard0.csv" "$TMP/shard1.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" \
    -o "$TMP/pm.csv" --plot "$TMP/no/such/dir/pm.svg"
expect_status 2 "merge with an unwritable --plot"
if [ ! -e "$TMP/pm.csv" ] && ! ls "$TMP"/pm.csv.tmp* >/dev/null 2>&1; then
    ok "no merged CSV after an unwritable --plot"; else not_ok "merged CSV left"; fi
run sweep --merge "$TMP/shard0.csv" "$TMP/shard1.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" \
    -o "$TMP/pm.csv" --plot "$TMP/pm.svg"
expect_status 0 "the same merge with a good --plot"

# a planner's message (why it failed) is in its row, as solve --json has it
# (a work limit that reaches the first MIP, where the fault strikes: the
# local search and the chain bound take the first units; on 3 GPUs, where
# the first plans are not proven optimal before any MIP)
env PIPEPLAN_FAULT=fail $PIPEPLAN_WRAP "$PIPEPLAN" sweep $NET $PLAT --gpus 3 --memory 8GB \
    --planner ilp,dp --work-limit 20 -o "$TMP/msg.csv" 2>/dev/null
want=$(env PIPEPLAN_FAULT=fail "$PIPEPLAN" solve $NET $PLAT --gpus 3 --memory 8GB --planner ilp \
    --work-limit 20 --json 2>/dev/null | jq -r '.plans[0].message')
if [ -n "$want" ] && [ "$want" != null ] &&
   grep -qF ",ilp,error," "$TMP/msg.csv" && grep -qF ",$want," "$TMP/msg.csv" &&
   [ "$(grep ',dp,' "$TMP/msg.csv" | awk -F, '{print $(NF-1)}')" = "" ]; then
    ok "an error row carries its message (the dp's row none)"
else
    not_ok "message column"; grep -v '^#' "$TMP/msg.csv"; echo "want: $want"
fi

# -o naming an input file: refused, even with --force (which replaced the
# platform with the CSV), and the file is left as it was
cp "$PLAT" "$TMP/plat-in.ini"
run sweep "$NET" "$TMP/plat-in.ini" --work-limit 5 -o "$TMP/plat-in.ini" --force
expect_status 2 "-o the platform file: refused"
untouched "-o the platform file" "^pipeplan sweep: -o '.*plat-in\.ini' is the input file" \
    "$TMP/plat-in.ini" "$PLAT"

# two sweeps on one -o: the second is refused while the first holds the
# file (both appended their rows, and the file no longer read back); the
# lock is held here by flock(1) on the CSV, as a running sweep holds it
run sweep "$NET" "$PLAT" --gpus 1,2 --work-limit 5 -o "$TMP/locked.csv"
expect_status 0 "a sweep to lock"
cp "$TMP/locked.csv" "$TMP/locked.before"
status=0
flock "$TMP/locked.csv" $PIPEPLAN_WRAP "$PIPEPLAN" sweep "$NET" "$PLAT" --gpus 1,2 --work-limit 5 \
    -o "$TMP/locked.csv" >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 2 "a sweep on a CSV another holds: refused"
untouched "a sweep on a CSV another holds" "locked\.csv: another sweep is writing it" \
    "$TMP/locked.csv" "$TMP/locked.before"
run sweep "$NET" "$PLAT" --gpus 1,2 --work-limit 5 -o "$TMP/locked.csv"
expect_status 0 "once it is free: resumed"

finish
