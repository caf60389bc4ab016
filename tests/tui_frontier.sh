#!/bin/sh
# The explorer's frontier view (F), driven through tmux: on the built-in
# example the baselines' curves come in, with the objective and cap labels,
# the legend and the current cap marked; the panel's figures at a cap equal
# `pipeplan solve --memory CAP`; Home/Left/Right move the cursor and Enter applies its
# cap to the main view, whose new cap keeps the curves; a knob (G) computes
# it again; q leaves the view
# without quitting; the view
# redraws at the smallest size the explorer allows and at a large one; under
# LANG=C only ASCII shows, and Ctrl-C mid-computation gives the terminal
# back. The ILP runs under a work limit (deterministic).
#
# Under valgrind the view opens on alexnet (23 layers): the example's 177
# layers take the DP about 4 s a cap there, minutes for the whole curve.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1
set -f

NET=data/networks/resnet50.ini          # the built-in example's files
PLAT=data/platforms/v100-16gb-pcie-4.ini
ARGS="--work-limit 30"
case $PIPEPLAN_WRAP in
    valgrind*) NET=data/networks/alexnet.ini; ARGS="$PIPEPLAN_SRCDIR/$NET $ARGS" ;;
esac

# The objective as the screen writes it (units_format_time).
ftime_awk='
function ftime(ms,  a) {
    a = ms < 0 ? -ms : ms
    if (a < 1 && a > 0) return sprintf("%.0f us", ms * 1e3)
    if (a < 10) return sprintf("%.2f ms", ms)
    if (a < 1000) return sprintf("%.1f ms", ms)
    return sprintf("%.2f s", ms / 1e3)
}
function re(s) { gsub(/\./, "\\.", s); gsub(/ /, " +", s); return s }'

# panel_res CAP: one ERE per baseline, its line in the frontier's panel at
# CAP (e.g. 12.0GiB) as solve computes it: title, objective (iteration time
# for 1f1b) or "-", "fits" or "no fit".
panel_res() {
    pp solve "$NET" "$PLAT" --memory "$1" --planner dp,pipedream,time,parameters,uniform \
        --json >"$TMP/fsolve.json" 2>"$TMP/fsolve.err"
    RES=$(jq -r '.plans[] | [.planner, .objective_ms, (if .fits then 1 else 0 end)] | @tsv' \
        "$TMP/fsolve.json" | LC_ALL=C awk -F '\t' "$ftime_awk"'
        BEGIN { t["dp"] = "mem-aware DP"; t["pipedream"] = "PipeDream"; t["time"] = "time-balanced"
                t["parameters"] = "param-balanced"; t["uniform"] = "uniform" }
        { printf "%s +%s +%s\n", re(t[$1]), $3 == 1 ? re(ftime($2)) : "-", $3 == 1 ? "fits" : "no fit" }')
    [ -n "$RES" ]
}

# expect_panel NAME DESCRIPTION CAP-SHOWN CAP-FOR-SOLVE
expect_panel() {
    if ! panel_res "$4"; then
        not_ok "$2: solve --memory $4 failed"; cat "$TMP/fsolve.err"; return
    fi
    _old=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    set -- "$1" "$2" "$3" $RES
    IFS=$_old
    _n=$1 _d=$2 _c=$3
    shift 3
    expect_screen "$_n" "$_d" "^cap $_c " "$@"
}

# Only bytes below 128 in a capture (escape sequences included).
expect_ascii() {
    TM capture-pane -e -p -t "$1" >"$TMP/$1.esc"
    if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TMP/$1.esc"; then
        not_ok "$2"; LC_ALL=C grep -n "$(printf '[\200-\377]')" "$TMP/$1.esc" | head -3
    else
        ok "$2"
    fi
}

# ---- UTF-8 at 80x24 ----
# shellcheck disable=SC2086
tui_start fr 80 24 -- $ARGS
expect_screen fr "explorer up" "^ *plan +period +iteration"
keys fr F
# the title says what it computes (the baselines' caps done, then the
# ILP's); a point not computed is not drawn, nothing is said not to fit
expect_screen fr "F: the first curves, axes, caps, legend" \
    "^.* frontier .*(computing [0-9]+/[0-9]+|ILP [0-9]+/[0-9]+|done) .$" \
    "^ *[0-9.]+ (us|ms|s) │" "^ +└─*▲" \
    "^ +[0-9.]+ [KMGT]?i?B .*(│|◀|▶) cap 16\.0 GiB" \
    "^I ILP  M (mem-aware DP|dp)  P (PipeDream|pipedream)  T (time-balanced|time)" \
    "Left/Right cap  Enter apply .* Esc/F/q back"
if LC_ALL=C grep -q "$(printf '\342[\240-\243]')" "$TMP/last"; then
    ok "F: curves drawn in braille"
else
    not_ok "F: no braille on screen"; show_last
fi
grep -q "nothing fits\|no plan fits" "$TMP/last" && { not_ok "F: says nothing fits"; show_last; }
# the cursor starts at the cap nearest the current one
cur=$(sed -n 's/^cap \([0-9.]*\) \([KMGT]\)iB .*/\1\2iB/p' "$TMP/last")
if [ -n "$cur" ]; then ok "F: panel at cap $cur"; else not_ok "F: no panel"; show_last; fi
[ -n "$cur" ] && expect_panel fr "F: the panel at $cur is solve's" "$(echo "$cur" | sed 's/\([KMGT]\)iB/ \1iB/; s/\./\\./')" "$cur"

# Home: the cursor on the smallest cap (the axis' first label); Right: the
# next one (the first other cap the panel shows, one key pending); the
# panel's figures there are solve's
first=$(sed -n 's/^ *\([0-9.]*\) \([KMGT]\)iB .*/\1 \2iB/p' "$TMP/last" | head -n 1)
keys fr Home
expect_screen fr "Home: the cursor on the first cap, $first" \
    "^cap $(echo "$first" | sed 's/\./\\./') +\((Enter applies it|the current cap)\)"
keys fr Right
to="" _end=$(($(date +%s) + DEADLINE))
while wait_screen fr "^cap [0-9.]+ [KMGT]iB  \(Enter applies it\)"; do
    to=$(sed -n 's/^cap \([0-9.]*\) \([KMGT]\)iB  (Enter.*/\1 \2iB/p' "$TMP/last")
    [ "$to" != "$first" ] || [ "$(date +%s)" -ge "$_end" ] && break
    sleep 0.1
done
if [ -n "$to" ] && [ "$to" != "$first" ]; then ok "Right: the cursor on the next cap, $to"; else
    not_ok "Right: the cursor did not move"; show_last; fi
to=$(echo "$to" | tr -d ' ')
[ -n "$to" ] && expect_panel fr "Right: the panel at $to is solve's" "$(echo "$to" | sed 's/\([KMGT]\)iB/ \1iB/; s/\./\\./')" "$to"
# Left back to the first, Right to the next again
keys fr Left
expect_screen fr "Left: back on $first" "^cap $(echo "$first" | sed 's/\./\\./') "
keys fr Right
expect_screen fr "Right: on $to again" "^cap $(echo "$to" | sed 's/\([KMGT]\)iB/ \1iB/; s/\./\\./') "

# Enter: the main view plans with that cap (its knob line writes sizes as
# the panel does)
knob=$(echo "$to" | sed 's/\([KMGT]\)iB/ \1iB/; s/\./\\./')
keys fr Enter
plan_res "$NET" "$PLAT" --memory "$to"
_old=$IFS
IFS='
'
# shellcheck disable=SC2086
set -- $RES
IFS=$_old
expect_screen fr "Enter: the main view's cap is $to, its plans solve's" \
    "GPUs 4  cap $knob  micro-batches 8" "^ *plan +period" "$@"

# F again: what was computed stands (only the cap changed: the curves do
# not depend on it), the cursor on the new cap; q leaves the view only
keys fr F
# the panel's line and the view's keys, not the knob line (under make -j8
# and two busy loops a capture caught the view's title over the main
# screen, whose "cap 8.00 GiB" matched, and found no curves in it)
expect_screen fr "F again: the view, at the new cap" "^.* frontier " "^cap $knob " \
    "Left/Right cap  Enter apply"
if grep -q "computing the range" "$TMP/last" || ! LC_ALL=C grep -q "$(printf '\342[\240-\243]')" "$TMP/last"; then
    not_ok "F again: computed anew for a cap change"; show_last
else
    ok "F again: the curves kept across the cap change"
fi
keys fr q
expect_screen fr "q in the view: back to the plans, still running" "^ *plan +period" "GPUs 4  cap $knob"
if grep -q "^EXITED" "$TMP/last"; then not_ok "q in the view quit the explorer"; fi

# the smallest size the explorer allows, and a large one: the view redraws whole
keys fr F
TM resize-window -t fr -x 60 -y 15
expect_screen fr "60x15: title, plot, legend, panel, keys" "^.* frontier " \
    "^ *[0-9.]+ (us|ms|s) │" "^I ILP  M dp" "^cap [0-9.]+ [KMGT]iB" "^Left/Right cap  Enter apply"
TM resize-window -t fr -x 160 -y 50
expect_screen fr "160x50: title, plot, legend with the marks, panel" "^.* frontier .*by memory cap" \
    "^ *[0-9.]+ (us|ms|s) │" "^I ILP  M mem-aware DP .*● optimal ○ best found × stops fitting" \
    "^I ILP +([0-9.]+ (us|ms|s)|-|computing)"
# a knob in the view: computed again for it
keys fr G
expect_screen fr "G in the view: the frontier for 5 GPUs" "^.* frontier +[^ ]+ +5 GPUs "
keys fr Escape
expect_screen fr "Esc: back to the plans" "^ *plan +period" "GPUs 5  cap $knob"
keys fr q
expect_screen fr "q quits" "^EXITED:0$" "^SHELL-OK$"
if wait_file "$TMP/fr.stty" && grep -Eq '(^| )icanon( |$)' "$TMP/fr.stty" &&
    grep -Eq '(^| )echo( |$)' "$TMP/fr.stty"; then
    ok "q: terminal modes restored"
else
    not_ok "q: terminal modes"; cat "$TMP/fr.stty"
fi

# ---- LANG=C: ASCII only; Ctrl-C while the frontier computes ----
# shellcheck disable=SC2086
tui_start asc 80 24 LANG=C LC_ALL=C -- $ARGS
expect_screen asc "C locale: explorer up" "^ *plan +period +iteration"
keys asc F
expect_screen asc "C locale: the frontier's first curves" "^-- frontier " \
    "^ *[0-9.]+ (us|ms|s) \|" "^ +\+-*\^" "^I ILP  M"
expect_ascii asc "C locale: only ASCII in the frontier view"
keys asc C-c
expect_screen asc "Ctrl-C in the view quits with status 0" "^EXITED:0$" "^SHELL-OK$"
if wait_file "$TMP/asc.stty" && grep -Eq '(^| )icanon( |$)' "$TMP/asc.stty"; then
    ok "Ctrl-C: terminal modes restored"
else
    not_ok "Ctrl-C: terminal modes"; cat "$TMP/asc.stty"
fi

# ---- a frontier past the largest cap the explorer sets: Enter says so ----
printf '[network]\nname = huge\nmicro_batch = 1\n[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 18446744073709551615B\nactivation = 1MB\n[layer b]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n' >"$TMP/huge.ini"
tui_start big 100 30 -- "$TMP/huge.ini" "$PIPEPLAN_SRCDIR/$PLAT" --work-limit 20
expect_screen big "a network no cap of 4 TiB fits: explorer up" "ILP infeasible"
keys big F
expect_screen big "its frontier reaches past 64 bits of bytes" "65536 PiB *$" " done "
keys big Enter
expect_screen big "Enter on such a cap: said so, the view kept" \
    "^a cap of 65536 PiB is beyond the largest the explorer sets \(4 TiB\)" "^.. frontier "
keys big C-c
expect_screen big "quits" "^EXITED:0$"

# ---- the current cap past the axis: the top cap still named ----
# (vgg16 on 4 of the DGX-1's GPUs: caps to 29 GiB, the cap 32 GiB; the
# axis read "8.00 GiB ... > cap 32.0 GiB", 29 GiB nowhere)
tui_start top 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/vgg16.ini" \
    "$PIPEPLAN_SRCDIR/data/platforms/dgx1-v100-32gb.ini" --gpus 4 --work-limit 30
expect_screen top "vgg16 on 4 GPUs: up" "^GPUs 4 " "q quit"
keys top F
expect_screen top "the axis names its top cap beside the cap past it" \
    "^ +8\.00 GiB +29\.0 GiB (▶|>) cap 32\.0 GiB$"
keys top q q
expect_screen top "quits" "^EXITED:0$"

# ---- one GPU: "1 GPU" in the title, not "1 GPUs" ----
tui_start one 100 30 -- --gpus 1 --work-limit 20
keys one F
expect_screen one "one GPU: the title says 1 GPU, the micro-batches and the layout" \
    "frontier +resnet50 +1 GPU +1f1b +(8 micro-batches|m 8) +any layout"
# c and b redraw the curves: the title says for what
keys one c
expect_screen one "c in the frontier: the title says contiguous" "frontier +resnet50 +1 GPU +1f1b +(8 micro-batches|m 8) +contiguous"
keys one b
expect_screen one "b in the frontier: the title says 7 micro-batches" "frontier +resnet50 +1 GPU +1f1b +(7 micro-batches|m 7) +contiguous"
keys one q q
expect_screen one "quits" "^EXITED:0$"

# ---- the current cap just past the first: the first cap's label whole
# or not at all, never "8.| cap 9.00 GiB" ----
tui_start near 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/vgg16.ini" \
    "$PIPEPLAN_SRCDIR/data/platforms/v100-16gb-pcie-4.ini" --memory 9GiB --work-limit 20
keys near F
expect_screen near "the cap's label beside the axis's start: no number cut" \
    "^ +(8\.00 GiB +)?(│|\|) cap 9\.00 GiB +[0-9.]+ GiB$"
keys near q q

# ---- a network that needs no memory (no weights, activations or
# reserve): its plans fit any cap, the curve is drawn, never "no plan
# fits at any cap" ----
{ printf '[network]\nname = nomem\nmicro_batch = 1\n'
  for i in 0 1 2 3; do
      printf '[layer l%d]\nforward = 1ms\nbackward = 2ms\nweights = 0B\nactivation = 0B\n' $i
  done; } >"$TMP/nomem.ini"
sed 's/^reserved = .*/reserved = 0B/' "$PIPEPLAN_SRCDIR/$PLAT" >"$TMP/nores.ini"
tui_start nomem 80 24 -- nomem.ini nores.ini --work-limit 20
expect_screen nomem "no memory needed: up, the plans fit" "^  mem-aware DP .* fits "
keys nomem F
expect_screen nomem "no memory needed: the frontier is computed, the baselines fit" \
    "frontier +nomem .* done ─" "mem-aware DP +[0-9.]+ ms +fits"
if grep -q "no plan fits" "$TMP/last"; then not_ok "no memory needed: 'no plan fits' said"; fi
keys nomem q q
expect_screen nomem "quits" "^EXITED:0$"

finish
