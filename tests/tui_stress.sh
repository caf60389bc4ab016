#!/bin/sh
# The explorer under a storm of keys: 500 knob changes sent by tmux as one
# string, as fast as it can, while solves start and are cancelled. It must
# not crash, and once the keys are handled the screen must show, for the
# knobs it ends on, exactly the baseline rows `pipeplan solve --json` gives.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1
set -f

NET=data/networks/resnet50.ini
PLAT=data/platforms/v100-16gb-pcie-4.ini
SEED=${PIPEPLAN_STRESS_SEED:-$$}
echo "# seed $SEED (PIPEPLAN_STRESS_SEED=$SEED repeats this run)"

# 100 columns: the knob line keeps its long labels whatever the values.
tui_start stress 100 30 --
expect_screen stress "explorer up" "time-balanced +[0-9.]+ m?s" "^ILP "

# every knob key, undo and GPU selection; M then m leave one uniform cap,
# which solve can be asked for
seq=$(LC_ALL=C awk -v seed="$SEED" 'BEGIN {
    srand(seed); k = "gGmMbBscu{}[]kKtT"
    for (i = 0; i < 500; i++) printf "%s", substr(k, int(rand() * length(k)) + 1, 1)
    printf "Mm"
}')
keys_literal stress "$seq"
# keys are handled in order: once the help shows, so has the storm
keys stress '?'
expect_screen stress "the 500 keys were handled" "pipeplan explorer: keys"
keys stress x

# The knobs it ends on, from the knob line (read again if the keys were
# still being handled).
knobs_re='^GPUs ([0-9]+)  cap ([0-9.]+) ([KMGT]iB)  micro-batches ([0-9]+)  schedule ([a-z0-9]+)  layout ([a-z]+)'
tries=0
while :; do
    tries=$((tries + 1))
    if ! wait_screen stress "$knobs_re"; then
        not_ok "knob line after 500 keys"; show_last; break
    fi
    line=$(grep -E "$knobs_re" "$TMP/last")
    flags=$(printf '%s\n' "$line" | sed -E "s/$knobs_re.*/--gpus \1 --memory \2\3 --micro-batches \4 --schedule \5 --layout \6/")
    echo "# final knobs: $flags"
    # shellcheck disable=SC2086
    plan_res "$NET" "$PLAT" $flags
    old=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    set -- $RES
    IFS=$old
    knob_re=$(printf '%s\n' "$line" | sed 's/[.()]/\\&/g; s/ *$//')
    if wait_screen stress "^$knob_re" "$@"; then
        ok "after 500 keys: every baseline row equals solve for the final knobs"
        break
    fi
    if [ $tries -ge 3 ]; then
        not_ok "after 500 keys: rows differ from solve"; show_last "$@"; break
    fi
done

if wait_file "$TMP/stress.pid" && kill -0 "$(cat "$TMP/stress.pid")" 2>/dev/null; then
    ok "still running after the storm"
else
    not_ok "the explorer died"
fi
keys stress q
expect_screen stress "q quits cleanly after the storm" "^EXITED:0$" "^SHELL-OK$"
finish
