#!/bin/sh
# Faults, injected through the test hooks PIPEPLAN_FAULT and PIPEPLAN_GRACE
# (src/worker.c, src/fileio.c): a solver that fails, exits, aborts or hangs
# is one line and the other plans stay; an export that cannot be written
# leaves the old file and no temporary; the explorer's terminal going away
# leaves no process behind.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$TMP" || exit 1
# fpp FAULT ARG...: pipeplan with the fault injected
fpp() { _f=$1; shift; env PIPEPLAN_FAULT="$_f" PIPEPLAN_GRACE=1 $PIPEPLAN_WRAP "$PIPEPLAN" "$@"; }
NET="$PIPEPLAN_SRCDIR/data/networks/alexnet.ini"
PLAT="$PIPEPLAN_SRCDIR/data/platforms/v100-16gb-pcie-4.ini"
# on 3 GPUs, 6 blocks and 12 micro-batches the search needs its MIPs, where
# the faults strike (with 8 micro-batches the packed chain proves its first
# plan optimal for the network before any MIP; on 4 GPUs the first plans are)
KNOBS="--gpus 3 --blocks 6 --micro-batches 12"

# ---- solve: the solver fails, exits, aborts, hangs ----
# fault, the reason's words, extra flags (the hang needs time mode: its
# deadline is the time limit plus the grace)
for case in "fail|the MIP solver failed; kept its best plan before that|--work-limit 300" \
            "exit|the solver process exited with status|--work-limit 300" \
            "abort|the solver process crashed (Aborted, signal 6)|--work-limit 300" \
            "hang|the solver did not stop within 1 s of its 0.5 s time limit and was killed|--time-limit 0.5"; do
    fault=${case%%|*} rest=${case#*|}
    why=${rest%%|*} flags=${rest#*|}
    status=0
    fpp "$fault" solve "$NET" "$PLAT" $KNOBS $flags --json \
        >"$TMP/out" 2>"$TMP/err" || status=$?
    # the baselines' plans fit: still exit 0
    expect_status 0 "solve, solver $fault"
    if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF "pipeplan solve: ILP (CBC): $why" "$TMP/err"; then
        ok "solve, solver $fault: one line says why"
    else
        not_ok "solve, solver $fault: stderr"; cat "$TMP/err"
    fi
    if jq -e --arg why "$why" '.plans[0].planner == "ilp" and .plans[0].status == "error" and
            (.plans[0].message | startswith($why)) and
            ([.plans[1:][] | select(.status == "feasible")] | length) == 5' "$TMP/out" >/dev/null &&
        [ "$(jq -r '.plans[] | select(.planner == "dp") | .status' "$TMP/out")" = feasible ]; then
        ok "solve, solver $fault: status error with the reason, the baselines' plans kept"
    else
        not_ok "solve, solver $fault: json"; jq -c '.plans[] | [.planner, .status, .message]' "$TMP/out"
    fi
done
# a sweep's line for a failed solver names the sweep, as solve's names solve
status=0
fpp fail sweep "$NET" "$PLAT" $KNOBS --work-limit 300 --planner ilp,dp -o "$TMP/fail.csv" \
    >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 0 "sweep, solver fail"
if grep -qxF "pipeplan sweep: ILP (CBC): the MIP solver failed; kept its best plan before that" \
        "$TMP/err"; then
    ok "sweep, solver fail: the line names the sweep"
else
    not_ok "sweep, solver fail: stderr"; cat "$TMP/err"
fi
# the plan the ILP had before it died is shown (it fits, the simulator
# accepted it) and competes like any other: here it ties the DP's and comes
# first; alone, it is the best plan, and a plan fits (exit 0)
fpp abort solve "$NET" "$PLAT" $KNOBS --work-limit 300 >"$TMP/out" 2>"$TMP/err"
if grep -Eq '^ILP \(CBC\) +error +[0-9.]+ ms' "$TMP/out" && grep -q '^Best plan: ILP (CBC)$' "$TMP/out"; then
    ok "solve table: the ILP's kept plan on its row, and the best"
else
    not_ok "solve table"; cat "$TMP/out"
fi
status=0
fpp abort solve "$NET" "$PLAT" $KNOBS --work-limit 300 --planner ilp >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 0 "solve --planner ilp, solver aborts after a plan"
if grep -q '^Best plan: ILP (CBC)$' "$TMP/out" && ! grep -q 'No plan fits' "$TMP/out"; then
    ok "solve --planner ilp: the kept plan is the best plan, not \"no plan fits\""
else
    not_ok "solve --planner ilp, kept plan"; cat "$TMP/out"
fi

# CBC aborting inside a solve, as Debian's Clp does on a failed assertion:
# the MIP is solved again from a copy, the ILP answers as if nothing happened
pp solve "$NET" "$PLAT" $KNOBS --work-limit 300 --json >"$TMP/calm" 2>/dev/null
status=0
fpp clp-abort solve "$NET" "$PLAT" $KNOBS --work-limit 300 --json --log "$TMP/clp.log" \
    >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 0 "solve, CBC aborts inside a solve"
if [ ! -s "$TMP/err" ] &&
   grep -q "CBC aborted (an assertion in Clp) on this MIP: a copy was solved again with Dantzig pricing" \
       "$TMP/clp.log" &&
   [ "$(jq -c '.plans[0] | [.planner, .status, .objective_ms]' "$TMP/out")" = \
     "$(jq -c '.plans[0] | [.planner, .status, .objective_ms]' "$TMP/calm")" ] &&
   [ "$(jq -r '.plans[0].status' "$TMP/out")" != error ]; then
    ok "solve, CBC aborts inside a solve: solved again, the same answer, nothing on stderr"
else
    not_ok "solve, CBC aborts inside a solve"; cat "$TMP/err"; grep -c "CBC aborted" "$TMP/clp.log"
    jq -c '.plans[0] | [.planner, .status, .objective_ms]' "$TMP/out" "$TMP/calm"
fi

# ---- exports: read-only, full, failing, vanished ----
echo "old contents" >"$TMP/plan.json"
for fault in create-erofs create-enoent write-enospc write-eio rename-enospc rename-eio; do
    case $fault in
        create-erofs) want="pipeplan solve: plan.json: cannot create a temporary file: Read-only file system" ;;
        # a directory that is there but makes no files (/proc): not "no directory"
        create-enoent) want="pipeplan solve: plan.json: cannot write: . takes no new files" ;;
        *-enospc) want="pipeplan solve: plan.json: write failed: No space left on device" ;;
        *-eio) want="pipeplan solve: plan.json: write failed: Input/output error" ;;
    esac
    status=0
    fpp "$fault" solve "$NET" "$PLAT" --planner dp --json -o plan.json --force \
        >"$TMP/out" 2>"$TMP/err" || status=$?
    expect_status 2 "export, $fault"
    expect_stderr "$want" "export, $fault: one line"
    if [ "$(cat plan.json)" = "old contents" ] && [ -z "$(ls -a | grep '^plan\.json\.tmp')" ]; then
        ok "export, $fault: old file intact, no temporary left"
    else
        not_ok "export, $fault: files"; ls -la
    fi
done
run solve "$NET" "$PLAT" --planner dp --json -o "$TMP/gone/plan.json"
expect_status 2 "export into a directory that is not there"
expect_stderr "pipeplan solve: $TMP/gone/plan.json: cannot write: no directory $TMP/gone (expected an existing one)" \
    "export, vanished directory: one line"
# every command that writes: an output it cannot write is exit 2, one line
for cmd in import gen check; do
    case $cmd in
        import) set -- import pipedream "$PIPEPLAN_SRCDIR/data/pipedream/alexnet/graph.txt" \
                    --micro-batch 8 ;;
        gen) set -- gen transformer --preset llama3-8b --gpu H100 ;;
        check) set -- check "$NET" ;;
    esac
    if [ "$cmd" != check ]; then
        run "$@" -o "$TMP/gone/x.ini"
        expect_status 2 "$cmd into a directory that is not there"
        expect_stderr "pipeplan $cmd: $TMP/gone/x.ini: cannot write: no directory $TMP/gone (expected an existing one)" \
            "$cmd, vanished directory: one line"
    fi
    if [ -w /dev/full ]; then
        status=0
        pp "$@" >/dev/full 2>"$TMP/err" || status=$?
        expect_status 2 "$cmd, standard output full"
        grep -q "^pipeplan $cmd: .*write" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
            ok "$cmd, standard output full: one line" || not_ok "$cmd, full: $(cat "$TMP/err")"
    fi
done
# every --help and --version too (they said nothing and exited 0)
if [ -w /dev/full ]; then
    for args in --help --version "solve --help" "sweep --help" "check --help" "gen --help" \
                "import --help" "x.ini --help"; do
        status=0
        # (the words split on purpose; none holds a glob character)
        pp $args >/dev/full 2>"$TMP/err" || status=$?
        expect_status 2 "$args, standard output full"
        cmd=${args%% *}
        case $cmd in solve | sweep | check | gen | import) who="pipeplan $cmd" ;; *) who=pipeplan ;; esac
        expect_stderr "$who: write error on standard output" "$args, standard output full: one line"
    done
fi
# root writes into a read-only directory all the same: only a user can see it
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$TMP/ro" && echo "old contents" >"$TMP/ro/plan.json" && chmod 555 "$TMP/ro"
    run solve "$NET" "$PLAT" --planner dp --json -o "$TMP/ro/plan.json" --force
    expect_status 2 "export into a read-only directory"
    expect_stderr "pipeplan solve: $TMP/ro/plan.json: cannot create a temporary file: Permission denied" \
        "export, read-only directory: one line"
    [ "$(cat "$TMP/ro/plan.json")" = "old contents" ] && [ "$(ls "$TMP/ro")" = plan.json ] &&
        ok "export, read-only directory: old file intact" || not_ok "export, read-only directory: files"
    chmod 755 "$TMP/ro"
fi

# The children of PID (the explorer's solver), one a line.
kids() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '; }
# gone PID...: every one has exited (within the deadline).
gone() {
    _end=$(($(date +%s) + DEADLINE))
    for _p in "$@"; do
        while kill -0 "$_p" 2>/dev/null; do
            [ "$(date +%s)" -ge "$_end" ] && return 1
            sleep 0.1
        done
    done
}

# ---- explorer: the solver aborts; one line, plans kept, a knob change restarts it ----
tui_start ab 100 30 PIPEPLAN_FAULT=abort "PIPEPLAN_TRACE=$TMP/ab.trace" -- "$NET" "$PLAT" --work-limit 300
expect_screen ab "explorer, solver aborts: one line says why, the baselines stay" \
    "ILP \(CBC\): the solver process crashed \(Aborted, signal 6\); kept its best plan" \
    "mem-aware DP +[0-9.]+ ms" "^ILP .*error"
# the ILP line's reason goes on over its second line, cut at a word
expect_screen ab "explorer, solver aborts: the ILP line's reason whole over two lines" \
    "^ILP 12 blocks \(auto\), limit work 300: error: the solver process crashed \(Aborted, signal 6\); kept$" \
    "^    its best plan before that$"
keys ab B
if wait_screen ab "micro-batches 9" && wait_file "$TMP/ab.trace" &&
   _end=$(($(date +%s) + DEADLINE)) &&
   while [ "$(grep -c '^result .* ilp$' "$TMP/ab.trace")" -lt 2 ] && [ "$(date +%s)" -lt "$_end" ]; do
       sleep 0.1; done &&
   [ "$(grep -c '^replan .* ilp' "$TMP/ab.trace")" -ge 2 ] &&
   [ "$(grep '^result .* ilp$' "$TMP/ab.trace" | awk '{print $3}' | sort -u | wc -l)" -ge 2 ]; then
    ok "explorer: a knob change starts a fresh solver"
else
    not_ok "explorer: a knob change starts a fresh solver"; show_last; cat "$TMP/ab.trace" 2>/dev/null | grep -v '^frame\|^work'
fi
keys ab q
expect_screen ab "explorer quits after the crashes" "^EXITED:0$"

# ---- explorer: the solver hangs; killed at its time limit plus the grace ----
tui_start hg 100 30 PIPEPLAN_FAULT=hang PIPEPLAN_GRACE=1 -- "$NET" "$PLAT" --time-limit 1
expect_screen hg "explorer, solver hangs: killed, one line says why, the baselines stay" \
    "ILP \(CBC\): the solver did not stop within 1 s of its 1 s time limit and was killed" \
    "mem-aware DP +[0-9.]+ ms"
keys hg q
expect_screen hg "explorer quits after the hang" "^EXITED:0$"

# ---- explorer: back to knobs planned before, the baselines slow ----
# The solver's plan for them comes from the cache and fits: it is shown
# while the baselines come in, not the plan held from the knobs before
# (three GPUs' bars under "GPUs 4").
tui_start sl 100 30 PIPEPLAN_FAULT=slow-baselines -- "$NET" "$PLAT" --work-limit 300
expect_screen sl "slow baselines: the ILP ends on 4 GPUs" "^ILP 12 blocks \(auto\), limit work 300: optimal" \
    "^3 \[" "uniform .* fits"
# a cap never planned: the plan held (the ILP's) is on show, marked, and
# the marker is on the ILP's row, not on a baseline's stale one
keys sl m
expect_screen sl "a new cap, the DP to come: the marker on the row of the plan held" \
    "cap 15\.0 GiB" "^── layers → GPU: ILP \(updating…\)" "^  mem-aware DP .*…" "^▶ ILP "
keys sl M
expect_screen sl "slow baselines: back on 16 GiB" "cap 16\.0 GiB" "uniform .* fits"
keys sl g
expect_screen sl "slow baselines: the ILP ends on 3 GPUs" "^GPUs 3 " \
    "^ILP 12 blocks \(auto\), limit work 300: optimal" "uniform .* fits"
keys sl G
expect_screen sl "back on 4 GPUs, the DP to come: the ILP's plan from the cache on show" \
    "^GPUs 4 " "^  mem-aware DP .*…" "^▶ ILP .* best" "^3 \["
keys sl q
expect_screen sl "explorer quits after the slow baselines" "^EXITED:0$"

# ---- explorer: e into a full disk ----
echo "old contents" >"$TMP/x.csv"
tui_start ex 100 30 PIPEPLAN_FAULT=write-enospc -- "$NET" "$PLAT" --work-limit 300
wait_screen ex "mem-aware DP +[0-9.]+ ms" >/dev/null
keys ex e
keys ex 3
expect_screen ex "e: asks for the file" "\(csv\) to: "
keys ex C-u
keys_literal ex "$TMP/x.csv"
keys ex Enter
expect_screen ex "e: asks to overwrite" "x\.csv"
keys ex y
expect_screen ex "e, disk full: one line says why" "x\.csv: write failed: No space left on device"
if [ "$(cat "$TMP/x.csv")" = "old contents" ] && [ -z "$(ls -a "$TMP" | grep '^x\.csv\.tmp')" ]; then
    ok "e, disk full: old file intact, no temporary left"
else
    not_ok "e, disk full: files"; ls -la "$TMP"
fi
keys ex q
expect_screen ex "explorer quits" "^EXITED:0$"

# ---- the terminal goes away under a running solve: nothing is left ----
# SIGHUP to the explorer alone, SIGKILL to it alone (its solver must not
# outlive it), and the whole session closed. vgg16 on the V100s: its
# search runs to the time limit (the network's gap is not closed), where
# alexnet's is proven optimal in a tenth of a second.
for how in hup kill close; do
    tui_start "t$how" 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/vgg16.ini" "$PLAT" --time-limit 600
    if wait_screen "t$how" "running [0-9.]+ s" && wait_file "$TMP/t$how.pid"; then
        pid=$(cat "$TMP/t$how.pid")
        solver=$(kids "$pid")
        if [ -z "$solver" ]; then
            not_ok "$how: no solver process found under $pid"
            continue
        fi
        case $how in
            hup) kill -HUP "$pid" ;;
            kill) kill -KILL "$pid" ;;
            close) TM kill-session -t "t$how" ;;
        esac
        if gone "$pid" $solver; then
            ok "$how: the explorer and its solver are gone"
        else
            not_ok "$how: still running:"; ps -o pid,ppid,stat,args -p "$pid" $solver
            kill -KILL "$pid" $solver 2>/dev/null
        fi
    else
        not_ok "$how: the solve did not start"; show_last
    fi
done

finish
