#!/bin/sh
# Hostile and extreme inputs (issue 12): each gives a right answer or a
# clear FILE:LINE: error, never a crash, a hang, a leak or partial output.
# Big files are made here at run time, never committed.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

PLAT=data/platforms/v100-16gb-pcie-4.ini
# a command that may hang: killed after this many seconds. Only a hang
# guard, never a time check: 100,000 layers took over 60 s under make -j8
# with two busy loops on 2 cores (valgrind is slower still)
LIMIT=600
[ -n "$PIPEPLAN_WRAP" ] && LIMIT=1800
trun() {
    status=0
    timeout "$LIMIT" $PIPEPLAN_WRAP "$PIPEPLAN" "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
}

layer() {   # layer NAME FORWARD BACKWARD WEIGHTS ACTIVATION
    printf '[layer %s]\nforward = %s\nbackward = %s\nweights = %s\nactivation = %s\n' "$@"
}
net_head() { printf '[network]\nname = %s\nmicro_batch = 8\n' "${1:-n}"; }
{ net_head; layer a 1ms 2ms 1MB 1MB; layer b 3ms 4ms 2MB 1MB; } >"$TMP/ok.ini"

# A network of N layers named l0..l(N-1) with varied costs.
gen_net() {
    awk -v n="$1" 'BEGIN { print "[network]\nname = big\nmicro_batch = 1"
        for (i = 0; i < n; i++)
            printf "[layer l%d]\nforward = %dus\nbackward = %dus\nweights = %dKB\nactivation = %dKB\n",
                   i, 100 + i % 7, 200 + i % 5, 10 + i % 13, 1 + i % 11 }'
}

# bad FILE EXPECTED-STDERR: check rejects FILE with exactly that message.
bad() {
    trun check "$1"
    expect_status 2 "rejects ${1##*/}"
    expect_stdout_empty "${1##*/}"
    expect_stderr "$2" "message for ${1##*/}"
}

# ---- CRLF and a UTF-8 byte order mark: accepted, same summary ----
sed 's/$/\r/' "$TMP/ok.ini" >"$TMP/crlf.ini"
printf '\357\273\277' | cat - "$TMP/ok.ini" >"$TMP/bom.ini"
printf '\357\273\277' | cat - "$TMP/crlf.ini" >"$TMP/bomcrlf.ini"
sed 's/$/\r/' "$PLAT" >"$TMP/plat-crlf.ini"
printf '\357\273\277' | cat - "$TMP/plat-crlf.ini" >"$TMP/plat-bom.ini"
# "key: value" is the INI reader's other delimiter (the manual says so)
sed 's/ = /: /' "$TMP/ok.ini" >"$TMP/colon.ini"
pp check "$TMP/ok.ini" | sed 1d >"$TMP/want"
for f in crlf bom bomcrlf colon; do
    run check "$TMP/$f.ini"
    expect_status 0 "check accepts $f"
    expect_stdout_has "$TMP/$f.ini: network n, 2 layers, micro-batch of 8 samples" "$f: the summary"
    sed 1d "$TMP/out" | cmp -s - "$TMP/want" && ok "$f: same figures as plain LF" || not_ok "$f: figures differ"
done
run check "$TMP/plat-bom.ini"
expect_status 0 "check accepts a platform with a BOM and CRLF"
run solve "$TMP/bomcrlf.ini" "$TMP/plat-bom.ini" --planner dp --json
expect_status 0 "solve reads BOM + CRLF files"
expect_stdout_has '"period_ms": 7,' "BOM + CRLF: the DP's period"
pp solve "$TMP/ok.ini" "$PLAT" --planner dp --format plan >"$TMP/p.plan"
sed 's/$/\r/' "$TMP/p.plan" | { printf '\357\273\277'; cat; } >"$TMP/bom.plan"
run solve "$TMP/ok.ini" "$PLAT" --plan "$TMP/bom.plan" --planner user --json
expect_status 0 "a plan file with a BOM and CRLF is read"
expect_stdout_has '"planner": "user", "status": "feasible"' "BOM plan: judged"

# ---- NaN and infinity in every spelling: rejected at their line ----
SPELLINGS="nan NaN -nan NAN inf -inf Inf INF infinity Infinity 1e999 1e999ms nanms NaNms
    infms Infinityms 0x1p3ms 1e3ms"
# under valgrind (slow to start) a few stand for all: parsing is the same
[ -n "$PIPEPLAN_WRAP" ] && SPELLINGS="NaN -inf Infinityms 1e999ms"
for v in $SPELLINGS '+inf ms'; do
    { net_head; printf '[layer a]\nforward = %s\n' "$v"; } >"$TMP/v.ini"
    run check "$TMP/v.ini"
    expect_status 2 "forward = $v rejected"
    grep -q "^$TMP/v.ini:5: bad forward '" "$TMP/err" && ok "forward = $v: FILE:LINE" ||
        not_ok "forward = $v: $(cat "$TMP/err")"
done
for v in nan inf 1e999 -1; do
    sed "s/^weight_factor.*//; s/^optimizer = .*/weight_factor = $v/" "$PLAT" >"$TMP/wf.ini"
    run check "$TMP/wf.ini"
    expect_status 2 "weight_factor = $v rejected"
    grep -q "^$TMP/wf.ini:[0-9]*: bad weight_factor '$v'" "$TMP/err" && ok "weight_factor = $v: FILE:LINE" ||
        not_ok "weight_factor = $v: $(cat "$TMP/err")"
done
for v in nan inf 1e999GB/s; do
    sed "s|^bandwidth = .*|bandwidth = $v|" "$PLAT" >"$TMP/bw.ini"
    run check "$TMP/bw.ini"
    expect_status 2 "bandwidth = $v rejected"
done
for knob in "--memory nan" "--memory infGiB" "--weight-factor nan" "--weight-factor inf" \
    "--time-limit nan" "--time-limit inf" "--time-limit 1e999"; do
    # shellcheck disable=SC2086
    run solve "$TMP/ok.ini" "$PLAT" --planner dp $knob
    expect_status 2 "knob $knob rejected"
    expect_stdout_empty "knob $knob"
done

# ---- sizes near 2^63 and 2^64, and their sums ----
{ net_head; layer a 1ms 2ms 9223372036854775807B 9223372036854775807B
  layer b 1ms 2ms 9223372036854775807B 9223372036854775807B
  layer c 1ms 2ms 18446744073709551615B 1B; } >"$TMP/huge.ini"
run check "$TMP/huge.ini"
expect_status 0 "sizes up to 2^64-1 load"
# 2^63 + 2^63 + 2^64 = 2^65 bytes = 32768 PiB: the sum does not wrap
expect_stdout_has "weights      32768 PiB of parameters" "the weights' sum does not wrap"
expect_stdout_has "16384 PiB stored per micro-batch" "the stored sum does not wrap"
run solve "$TMP/huge.ini" "$PLAT" --work-limit 50 --json
expect_status 1 "huge sizes: no plan fits, said by exit 1"
jq -e '[.plans[] | .fits] | all(. == false)' "$TMP/out" >/dev/null && ok "huge sizes: nothing fits" ||
    not_ok "huge sizes: a plan claims to fit"
jq -e '.problem.min_fitting_cap > 9e19' "$TMP/out" >/dev/null && ok "huge sizes: the cap needed is huge" ||
    not_ok "huge sizes: min_fitting_cap"
{ net_head; layer a 1ms 2ms 18446744073709551616B 1B; } >"$TMP/over.ini"
bad "$TMP/over.ini" "$TMP/over.ini:7: bad weights '18446744073709551616B': size does not fit in 64 bits (expected a size below 16384 PiB, e.g. 12.8MB)"
sed 's/^memory = .*/memory = 18446744073709551615B/' "$PLAT" >"$TMP/bigmem.ini"
run solve "$TMP/huge.ini" "$TMP/bigmem.ini" --work-limit 50
expect_status 1 "2^64 B GPUs: the table says what is needed"
run solve "$TMP/ok.ini" "$PLAT" --memory 18446744073709551615B --planner dp --json
expect_status 0 "--memory 2^64-1 B"

# ---- times of 0 and of 1e12 ms ----
{ printf '[network]\nname = z\nmicro_batch = 1\n'
  for i in 1 2 3 4 5 6; do layer "l$i" 0ms 0ms 1MB 0B; done; } >"$TMP/zero.ini"
sed 's/^latency = .*/latency = 0ms/' "$PLAT" >"$TMP/plat0.ini"
run solve "$TMP/zero.ini" "$TMP/plat0.ini" --work-limit 50
expect_status 0 "all times 0: solved"
expect_stdout_lacks "nan" "all times 0: no NaN in the table"
expect_stdout_lacks "inf" "all times 0: no inf in the table"
run solve "$TMP/zero.ini" "$TMP/plat0.ini" --work-limit 50 --json
expect_status 0 "all times 0: JSON"
jq -e '[.plans[] | .period_ms, .iteration_ms, .throughput] | all(type == "number" and . >= 0)' \
    "$TMP/out" >/dev/null && ok "all times 0: every figure a number" || not_ok "all times 0: figures"
{ printf '[network]\nname = t\nmicro_batch = 1\n'
  for i in 1 2 3 4 5 6; do layer "l$i" 1000000000000ms 1000000000000ms 1MB 1MB; done; } >"$TMP/tera.ini"
run solve "$TMP/tera.ini" "$PLAT" --work-limit 50 --json
expect_status 0 "times of 1e12 ms: solved"
# 12e12 ms of compute on 4 GPUs: no period below 3e12 ms, and the DP's
# split of six equal layers is 2+2+1+1, a period of 4e12 ms
jq -e '.plans[] | select(.planner == "dp") | .period_ms == 4e12' "$TMP/out" >/dev/null &&
    ok "1e12 ms: the DP's period is 4e12 ms" || not_ok "1e12 ms: DP period"
jq -e '[.plans[] | .period_ms] | all(. >= 3e12)' "$TMP/out" >/dev/null &&
    ok "1e12 ms: no period under the lower bound" || not_ok "1e12 ms: lower bound"
{ net_head; layer a 1000000000001ms 1ms 1B 1B; } >"$TMP/over-time.ini"
bad "$TMP/over-time.ini" "$TMP/over-time.ini:5: bad forward '1000000000001ms': time out of range (expected a time from 0 to 10^12 ms, e.g. 1.9ms)"

# ---- a 1 MB line, NUL bytes ----
{ printf '[network]\nname = '; awk 'BEGIN { while (n++ < 1048576) printf "x" }'; printf '\n'; } >"$TMP/mb.ini"
bad "$TMP/mb.ini" "$TMP/mb.ini:2: line too long (1048583 bytes; expected at most 199)"
{ net_head; printf '; '; awk 'BEGIN { while (n++ < 1048576) printf "x" }'; printf '\n'; layer a 1ms 1ms 1B 1B; } >"$TMP/mbc.ini"
# a comment line of any length is read (past 199 bytes it was refused)
run check "$TMP/mbc.ini"
expect_status 0 "a 1 MB comment line"
{ net_head; printf '   # '; awk 'BEGIN { while (n++ < 300) printf "y" }'; printf '\n'; layer a 1ms 1ms 1B 1B; } >"$TMP/c300.ini"
run check "$TMP/c300.ini"
expect_status 0 "an indented # comment of 300 bytes"
{ net_head; printf 'x ; '; awk 'BEGIN { while (n++ < 300) printf "y" }'; printf '\n'; layer a 1ms 1ms 1B 1B; } >"$TMP/nc300.ini"
bad "$TMP/nc300.ini" "$TMP/nc300.ini:4: line too long (304 bytes; expected at most 199)"
{ net_head; printf '[layer a]\nforward = 1\000ms\n'; } >"$TMP/nul.ini"
bad "$TMP/nul.ini" "$TMP/nul.ini:5: a NUL byte (expected a text file)"
printf '\000\000' >"$TMP/nul2.ini"
bad "$TMP/nul2.ini" "$TMP/nul2.ini:1: a NUL byte (expected a text file)"
{ net_head; layer a 1ms 1ms 1B 1B; printf 'x\000'; } >"$TMP/nul3.ini"
run solve "$TMP/nul3.ini" "$PLAT"
expect_status 2 "solve: NUL byte"
expect_stderr "$TMP/nul3.ini:9: a NUL byte (expected a text file)" "solve: NUL byte message"
expect_stdout_empty "solve: NUL byte"

# ---- a directory, a FIFO, /dev/zero: a clear error, no hang ----
mkdir "$TMP/dir.ini"
mkfifo "$TMP/fifo.ini"
bad "$TMP/dir.ini" "$TMP/dir.ini: is a directory (expected a file)"
bad /dev/zero "/dev/zero: is a device (expected a file)"
bad "$TMP/fifo.ini" "$TMP/fifo.ini:1: empty file (expected a network or a platform file)"
trun solve "$TMP/fifo.ini" "$PLAT"
expect_status 2 "solve: a FIFO nobody writes"
expect_stderr "$TMP/fifo.ini:1: empty file (expected a [network] section and [layer NAME] sections)" \
    "solve: FIFO message"
trun solve "$TMP/ok.ini" /dev/zero
expect_status 2 "solve: /dev/zero platform"
trun solve "$TMP/ok.ini" "$PLAT" --plan /dev/zero
expect_status 2 "solve: --plan /dev/zero"
trun solve "$TMP/ok.ini" "$PLAT" --plan "$TMP/fifo.ini"
expect_status 2 "solve: --plan FIFO"
trun import pipedream /dev/zero --micro-batch 1
expect_status 2 "import: /dev/zero"
trun import pipedream "$TMP/fifo.ini" --micro-batch 1
expect_status 2 "import: a FIFO"
# a pipe that does have a writer is read to its end
status=0
cat "$TMP/ok.ini" | timeout "$LIMIT" $PIPEPLAN_WRAP "$PIPEPLAN" check /dev/stdin >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 0 "a pipe with a writer is read"
expect_stdout_has "network n, 2 layers" "the pipe's network"
# the log a FIFO nobody reads: the planners still run
trun solve "$TMP/ok.ini" "$PLAT" --planner ilp --work-limit 20 --log "$TMP/fifo.ini"
expect_status 0 "--log to a FIFO nobody reads: no hang"
# outputs: a device is written in place (never replaced), a FIFO nobody
# reads is an error, a directory is an error
trun solve "$TMP/ok.ini" "$PLAT" --planner dp -o /dev/null --force
expect_status 0 "-o /dev/null --force"
[ -c /dev/null ] && ok "/dev/null is still a device" || not_ok "/dev/null was replaced"
trun solve "$TMP/ok.ini" "$PLAT" --planner dp -o "$TMP/fifo.ini" --force
expect_status 2 "-o FIFO nobody reads"
expect_stderr "pipeplan solve: $TMP/fifo.ini: cannot write: nothing reads from it" "-o FIFO message"
[ -p "$TMP/fifo.ini" ] && ok "the FIFO is still a FIFO" || not_ok "the FIFO was replaced"
trun solve "$TMP/ok.ini" "$PLAT" --planner dp -o "$TMP/dir.ini" --force
expect_status 2 "-o a directory"
[ -d "$TMP/dir.ini" ] && ok "the directory stays" || not_ok "the directory was replaced"

# ---- control characters and invalid UTF-8 in names ----
ESC=$(printf '\033')
{ printf '[network]\nname = n\033[31mRED\007\nmicro_batch = 8\n'
  layer "$(printf 'a\033[2J\302\233')" 1ms 2ms 1MB 9MB
  layer "$(printf 'b\377\376\303')" 1ms 2ms 1MB 1MB
  layer "$(printf 'c\177\001"\\')" 1ms 2ms 1MB 1MB
  layer "$(printf 'd\345\261\244')" 1ms 2ms 1MB 1MB; } >"$TMP/ctl.ini"
run check "$TMP/ctl.ini"
expect_status 0 "names with controls and invalid UTF-8 load"
expect_stdout_has 'network n\x1B[31mRED\x07, 4 layers' "check: the name escaped"
expect_stdout_has '(after a\x1B[2J\xC2\x9B)' "check: a layer name escaped (C1 too)"
run solve "$TMP/ctl.ini" "$PLAT" --planner dp
expect_status 0 "solve: such names"
expect_stdout_has 'n\x1B[31mRED\x07 (4 layers)' "solve: the table escapes the name"
if grep -q "$ESC" "$TMP/out" "$TMP/err"; then not_ok "an ESC reached the terminal"; else ok "no raw ESC on the terminal"; fi
run solve "$TMP/ctl.ini" "$PLAT" --planner dp --json
jq -e '.problem.network == "n\u001b[31mRED\u0007"' "$TMP/out" >/dev/null && ok "JSON: controls as \\u escapes" ||
    not_ok "JSON: network name"
if iconv -f UTF-8 -t UTF-8 "$TMP/out" >/dev/null 2>&1; then ok "JSON: valid UTF-8"; else not_ok "JSON: invalid UTF-8"; fi
# a lone CR in the network's name ends no comment line of an export (in
# Python it would: the rest of the name would run when the file is imported)
{ printf '[network]\nname = x\rprint("INJECTED") #\nmicro_batch = 8\n'
  layer a 1ms 2ms 1MB 1MB; layer b 2ms 4ms 1MB 1MB; } >"$TMP/cr.ini"
for fmt in torch deepspeed plan; do
    run solve "$TMP/cr.ini" "$PLAT" --planner dp --format "$fmt"
    if [ "$(tr -cd '\r' <"$TMP/out" | wc -c)" -eq 0 ] && grep -q 'x\\x0Dprint' "$TMP/out"; then
        ok "$fmt: a CR in the network's name is escaped in its comment"; else
        not_ok "$fmt: raw CR written"; cat -A "$TMP/out" | head -5; fi
done
# plan files hold such names escaped, and read them back
run solve "$TMP/ctl.ini" "$PLAT" --planner dp --format plan -o "$TMP/ctl.plan"
run solve "$TMP/ctl.ini" "$PLAT" --planner user --plan "$TMP/ctl.plan" --json
if [ "$(tr -d -c '\001-\010\013-\037\177' <"$TMP/ctl.plan" | wc -c)" -eq 0 ] &&
   [ "$(jq -r '.plans[0].status' "$TMP/out")" = feasible ]; then
    ok "a plan file of names with controls: none raw, and it reads back"; else
    not_ok "plan file with control names"; cat "$TMP/err"; fi
# a name in an error message: escaped on stderr too
{ net_head; layer "$(printf 'x\033[2J\377')" 1ms 1ms 1B 1B; printf '[layer x\033[2J\377]\n'; } >"$TMP/dupctl.ini"
bad "$TMP/dupctl.ini" "$TMP/dupctl.ini:9: duplicate layer 'x\\x1B[2J\\xFF' (expected each name once; the first is on line 4)"
{ net_head; printf '[layer a]\nforward = 1\033[2Jms\n'; } >"$TMP/valctl.ini"
bad "$TMP/valctl.ini" "$TMP/valctl.ini:5: bad forward '1\\x1B[2Jms': unknown unit '\\x1B[2Jms' (expected us, ms or s)"
run solve "$TMP/ctl.ini" "$PLAT" --split "$(printf '0,\0331')"
expect_status 2 "a bad --split with an ESC"
if grep -q "$ESC" "$TMP/err"; then not_ok "--split: ESC echoed raw"; else ok "--split: ESC escaped on stderr"; fi
# a newline in the value (a list pasted over lines): the message stays one line
NL=$(printf '\nx'); NL=${NL%x}
run solve "$TMP/ctl.ini" "$PLAT" --split "0,1${NL}2"
expect_stderr "pipeplan solve: bad --split '0,1\\x0A2': '2' after layer 1 (expected a comma and the next layer index)" \
    "--split: a newline in the value is escaped, the message one line"

# ---- duplicate and empty layer names; text after a section header ----
{ net_head; layer a 1ms 1ms 1B 1B; layer b 1ms 1ms 1B 1B; layer a 1ms 1ms 1B 1B; } >"$TMP/dup.ini"
bad "$TMP/dup.ini" "$TMP/dup.ini:14: duplicate layer 'a' (expected each name once; the first is on line 4)"
{ net_head; printf '[layer   ]\n'; } >"$TMP/empty-name.ini"
bad "$TMP/empty-name.ini" "$TMP/empty-name.ini:4: layer without a name (expected [layer NAME])"
{ net_head; printf '[layer]\n'; } >"$TMP/empty-name2.ini"
bad "$TMP/empty-name2.ini" "$TMP/empty-name2.ini:4: layer without a name (expected [layer NAME])"
{ net_head; printf '[layer a]b\n'; } >"$TMP/after.ini"
bad "$TMP/after.ini" "$TMP/after.ini:4: text after ']' in a section header (expected [name])"
{ net_head; printf '[layer a] ; a comment\n'; printf 'forward = 1ms\nbackward = 1ms\nweights = 1B\nactivation = 1B\n'; } >"$TMP/after-ok.ini"
run check "$TMP/after-ok.ini"
expect_status 0 "a comment after a section header"

# ---- 100,000 layers: loads fast; a big network's ILP works on blocks ----
gen_net 100000 >"$TMP/l100k.ini"
trun check "$TMP/l100k.ini"
expect_status 0 "100,000 layers load"
expect_stdout_has "network big, 100000 layers" "100,000 layers: the summary"
if [ -z "$PIPEPLAN_WRAP" ]; then
    gen_net 100001 >"$TMP/l100k1.ini"
    bad "$TMP/l100k1.ini" "$TMP/l100k1.ini:500004: too many layers (expected at most 100000)"
fi
# Every baseline plans 100,000 layers (about 12 s natively; under
# valgrind, 2,000 layers stand in); the ILP's size is bounded by its
# blocks (12 on 4 GPUs), whatever the layers: 100 layers show it.
big=100000
[ -n "$PIPEPLAN_WRAP" ] && { big=2000; gen_net $big >"$TMP/l100k.ini"; }
trun solve "$TMP/l100k.ini" "$PLAT" --planner dp,pipedream,time,parameters,uniform --json
expect_status 0 "$big layers: every baseline solved"
jq -e --argjson n $big '.problem.layers == $n and ([.plans[] | .status] | all(. == "feasible")) and
    ([.plans[] | .fits] | all) and (.plans | length) == 5' "$TMP/out" >/dev/null &&
    ok "$big layers: every baseline answers with a plan that fits" ||
    not_ok "$big layers: $(jq -c '[.plans[] | {planner, status, fits}]' "$TMP/out" | head -c 300)"
gen_net 100 >"$TMP/l100.ini"
trun solve "$TMP/l100.ini" "$PLAT" --work-limit 5 --json
expect_status 0 "100 layers: solved"
jq -e '[.plans[] | .status] | all(. != "error")' "$TMP/out" >/dev/null && ok "100 layers: every planner answers" ||
    not_ok "100 layers: $(jq -c '[.plans[] | .status]' "$TMP/out")"
jq -e '.problem.blocks == 12 and .problem.layers == 100' "$TMP/out" >/dev/null &&
    ok "100 layers: the ILP works on 12 blocks" || not_ok "100 layers: blocks $(jq .problem.blocks "$TMP/out")"
jq -e '[.plans[] | .fits] | all' "$TMP/out" >/dev/null && ok "100 layers: every plan fits" ||
    not_ok "100 layers: a plan does not fit"

# ---- 1,024 GPUs: the baselines answer ----
sed 's/^gpus = .*/gpus = 1024/' "$PLAT" >"$TMP/p1024.ini"
gen_net 40 >"$TMP/l40.ini"
trun solve "$TMP/l40.ini" "$TMP/p1024.ini" --planner dp,pipedream,time,parameters,uniform --json
expect_status 0 "1,024 GPUs: solved"
jq -e '.problem.gpus == 1024 and ([.plans[] | .fits] | all)' "$TMP/out" >/dev/null &&
    ok "1,024 GPUs: every baseline fits" || not_ok "1,024 GPUs: $(head -c 300 "$TMP/out")"
# 40 layers, each on a GPU of its own at best: the period is the longest layer
jq -e '.plans[] | select(.planner == "dp") | .period_ms == 0.31' "$TMP/out" >/dev/null &&
    ok "1,024 GPUs: the DP's period is the longest layer's" || not_ok "1,024 GPUs: DP period"
# the ILP on 1,024 GPUs works on the roomiest 40 (a plan of 40 layers uses
# no more) and its plan comes back on the platform's GPUs
trun solve "$TMP/l40.ini" "$TMP/p1024.ini" --planner ilp --work-limit 5 --json
expect_status 0 "1,024 GPUs: the ILP solved"
jq -e '.plans[0] | .status != "error" and .fits and (.gpus | length) == 1024' "$TMP/out" >/dev/null &&
    ok "1,024 GPUs: the ILP's plan fits, on 1,024 GPUs" ||
    not_ok "1,024 GPUs: ILP $(jq -c '.plans[0] | {status, fits}' "$TMP/out")"

# a file name with a newline: the message stays one line, the newline
# shown as \x0A as other controls are
nl_name="$TMP/$(printf 'a\nb').ini"
run check "$nl_name"
expect_status 2 "a missing file whose name holds a newline"
if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'a\\x0Ab\.ini: cannot open' "$TMP/err"; then
    ok "its message is one line, the newline escaped"; else not_ok "a newline in a file name"; cat "$TMP/err"; fi

finish
