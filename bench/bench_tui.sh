#!/bin/sh
# Explorer latency while the ILP runs, from the explorer's own trace
# (PIPEPLAN_TRACE=FILE: key arrivals, frame flushes, re-plans):
#   key to redraw         a key's arrival to the next full frame on the
#                         terminal; target p99 < 50 ms
#   cancel to new plan    a knob key's arrival (the running solve is
#                         killed) to the first frame showing a plan for the
#                         new knobs; target p99 < 200 ms
# A key's arrival is when the event loop wakes for it; "work" is how long
# one pass of the loop kept it from noticing a key, so its maximum bounds
# the part of the latency the trace cannot see.
#
# usage: bench/bench_tui.sh            (from the source tree, after make)
#        PIPEPLAN=BINARY bench/bench_tui.sh
# Exit status 1 when a target is missed. Needs tmux and jq.
: "${PIPEPLAN_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PIPEPLAN:=$PIPEPLAN_SRCDIR/src/pipeplan}"
# the script changes directory: a relative binary path must not break
case $PIPEPLAN in /*) ;; *) PIPEPLAN=$(pwd)/$PIPEPLAN ;; esac
export PIPEPLAN PIPEPLAN_SRCDIR
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

REDRAW_KEYS=${BENCH_REDRAW_KEYS:-300}
KNOB_KEYS=${BENCH_KNOB_KEYS:-40}
TRACE="$TMP/trace"

# a long ILP limit, so a solve is running whenever a key comes
tui_start bench 100 30 "PIPEPLAN_TRACE=$TRACE" -- --time-limit 600
if ! wait_screen bench "^ILP .*: running"; then
    echo "the explorer did not start solving"; show_last; exit 1
fi

# key to redraw: cursor moves, sorts of knobs the ILP alone uses (each
# restarts the solve) and plan selection, one key at a time
i=0
while [ $i -lt "$REDRAW_KEYS" ]; do
    case $((i % 10)) in
        0 | 1 | 2 | 3) k=l ;;
        4 | 5) k=h ;;
        6) k=Tab ;;
        7) k=BTab ;;
        8) k=K ;;
        *) k=k ;;
    esac
    keys bench "$k"
    sleep 0.02
    i=$((i + 1))
done

# cancel to new plan: knob changes while the ILP runs, each one planned
# from scratch (baselines first)
i=0
while [ $i -lt "$KNOB_KEYS" ]; do
    case $((i % 4)) in
        0) k=G ;;
        1) k=b ;;
        2) k=g ;;
        *) k=B ;;
    esac
    wait_screen bench "^ILP .*: running" >/dev/null
    keys bench "$k"
    sleep 0.4
    i=$((i + 1))
done
keys bench q
wait_screen bench "^EXITED:" >/dev/null

LC_ALL=C awk -v redraw_target=50 -v plan_target=200 '
function pct(a, n, p,  k) { k = int(p * n + 0.999999); if (k < 1) k = 1; if (k > n) k = n; return a[k] }
function sort(a, n,  i, j, x) {
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
}
$1 == "key" { pending[++np] = $2 }
$1 == "frame" {
    for (i = 1; i <= np; i++) if (pending[i] <= $2) lat[++nl] = $2 - pending[i]
    np = 0
}
$1 == "work" { w = $3 - $2; if (w > maxwork) maxwork = w; nwork++ }
$1 == "shown" && $4 > 0 { plan[++npl] = $2 - $4 }
END {
    sort(lat, nl); sort(plan, npl)
    printf "key to redraw       %4d keys   p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms  (target p99 < %d ms)\n",
        nl, pct(lat, nl, .5), pct(lat, nl, .99), lat[nl], redraw_target
    printf "cancel to new plan  %4d plans  p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms  (target p99 < %d ms)\n",
        npl, pct(plan, npl, .5), pct(plan, npl, .99), plan[npl], plan_target
    printf "longest loop pass   %6.2f ms over %d passes (bounds the wait before a key is seen)\n",
        maxwork, nwork
    bad = nl == 0 || npl == 0 || pct(lat, nl, .99) >= redraw_target || pct(plan, npl, .99) >= plan_target
    exit bad
}' "$TRACE"
