#!/bin/sh
# The live explorer, driven through tmux at 80x24: it opens the built-in
# example and shows the plans; every knob key re-plans and the baseline
# rows then show exactly what `pipeplan solve --json` computes for the same
# knobs; resize redraws; a bad reload shows FILE:LINE and keeps the last
# good state; e exports valid JSON without clobbering; q, SIGTERM and a
# crash all give the terminal back; no colour and no Unicode still read.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

NET=data/networks/resnet50.ini
PLAT=data/platforms/v100-16gb-pcie-4.ini
set -f

# check_rows NAME DESCRIPTION KNOB-ERE [SOLVE FLAGS...]: the knob line
# matches and every baseline row equals solve's figures for the flags.
check_rows() {
    _cn=$1 _cd=$2 _ck=$3
    shift 3
    plan_res "$NET" "$PLAT" "$@"
    _old=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    set -- $RES
    IFS=$_old
    expect_screen "$_cn" "$_cd" "$_ck" "$@"
}

# ---- without a terminal, and with bad files: nothing touches the terminal ----
run </dev/null
expect_status 2 "no terminal"
if grep -q "needs a terminal" "$TMP/err"; then ok "no terminal: says why"; else
    not_ok "no terminal: message"; cat "$TMP/err"; fi
expect_stdout_empty "no terminal"

printf '[network]\nname = x\nmicro_batch = 1\n\n[layer a]\nforward = 1 parsec\n' >"$TMP/bad.ini"
run "$TMP/bad.ini" </dev/null
expect_status 2 "bad network file"
if grep -q "^$TMP/bad.ini:6: " "$TMP/err"; then ok "bad network file: names FILE:LINE"; else
    not_ok "bad network file: FILE:LINE"; cat "$TMP/err"; fi

run --gpus 0 </dev/null
expect_status 2 "bad knob flag"

# ---- the built-in example at 80x24 ----
tui_start main 80 24 --
check_rows main "default: plans shown, baselines as solve" \
    "GPUs 4  cap 16\.0 GiB  micro-batches 8  schedule 1f1b  layout any"
expect_screen main "default: layer strip, memory bars, period, plans and ILP line" \
    "layers .* GPU: " "^0 \[.*\] +[0-9.]+/16\.0 GiB" "period T = " "^ *plan +period +iteration" \
    "^ILP [0-9]+ blocks \(auto\), limit 30 s: "

keys main G
check_rows main "G: 5 GPUs" "GPUs 5  cap 16\.0 GiB" --gpus 5
keys main m
check_rows main "m: cap 15 GiB" "GPUs 5  cap 15\.0 GiB  micro-batches 8" --gpus 5 --memory 15GiB
keys main b
check_rows main "b: 7 micro-batches" "cap 15\.0 GiB  micro-batches 7  schedule 1f1b" \
    --gpus 5 --memory 15GiB --micro-batches 7
keys main B B
check_rows main "B B: 9 micro-batches" "micro-batches 9  schedule 1f1b" \
    --gpus 5 --memory 15GiB --micro-batches 9
keys main s
check_rows main "s: pipedream schedule" "micro-batches 9  schedule pipedream  layout any" \
    --gpus 5 --memory 15GiB --micro-batches 9 --schedule pipedream
keys main c
check_rows main "c: contiguous layout" "schedule pipedream  layout contiguous" \
    --gpus 5 --memory 15GiB --micro-batches 9 --schedule pipedream --layout contiguous
keys main u
check_rows main "u: undo brings back any layout" "schedule pipedream  layout any" \
    --gpus 5 --memory 15GiB --micro-batches 9 --schedule pipedream
keys main g M
check_rows main "g M: 4 GPUs, cap 16 GiB" "GPUs 4  cap 16\.0 GiB  micro-batches 9" \
    --gpus 4 --memory 16GiB --micro-batches 9 --schedule pipedream

# per-GPU cap: GPU 1 selected with ], its cap lowered with {
keys_literal main ']{{'
expect_screen main "] {{: GPU 1 alone at 14 GiB" "cap 14\.0 GiB-16\.0 GiB" \
    "^0 \[.*/16\.0 GiB" "^1 \[.*/14\.0 GiB" "^2 \[.*/16\.0 GiB"
keys main M
check_rows main "M: one cap again (17 GiB)" "GPUs 4  cap 17\.0 GiB" \
    --gpus 4 --memory 17GiB --micro-batches 9 --schedule pipedream

# the ILP's knobs
keys main K
expect_screen main "K: more ILP blocks, no longer automatic" "^ILP [0-9]+ blocks, limit 30 s: "
keys main t
expect_screen main "t: shorter ILP time limit" "^ILP [0-9]+ blocks, limit 15 s: "
keys main T T
expect_screen main "T T: longer ILP time limit" "^ILP [0-9]+ blocks, limit 60 s: "

# the cursor and the plan on show
keys main End
expect_screen main "End: the cursor on the last layer" "layer 176 of 177 ─" "^layer 176 of 177 "
keys main Down
expect_screen main "Down: another plan on show" "GPU: [A-Za-z -]+ \(selected\)"
keys main f
expect_screen main "f: back to the best plan" "GPU: [A-Za-z -]+ \(best"

# resize: the frame follows the window
TM resize-window -t main -x 110 -y 34
expect_screen main "resize to 110x34: redrawn wider" \
    "layout any  blocks [0-9]+  limit 60 s" "^── GPUs of the .* plan ─+$" "T/T_lb"
TM resize-window -t main -x 80 -y 24
expect_screen main "resize back to 80x24" "^GPUs 4  cap 17\.0 GiB  micro-batches 9  schedule pipedream  layout any *$"

TM resize-window -t main -x 50 -y 12
expect_screen main "resize to 50x12: says the terminal is too small" "terminal 50x12 is too small"
TM resize-window -t main -x 20 -y 5
expect_screen main "20x5: the notice in shorter words, none cut" "^ *20x5: too small *$" \
    "^needs 60x15, q quits$"
TM resize-window -t main -x 80 -y 24
expect_screen main "and back to 80x24" "^GPUs 4  cap 17\.0 GiB"

# help lists the keys, any key returns
keys main '?'
expect_screen main "?: help lists the keys" "g / G +fewer / more GPUs" "u +undo the last knob change"
keys main x
expect_screen main "a key leaves the help" "^GPUs 4  cap 17\.0 GiB"

# ---- export ----
keys main e
expect_screen main "e: offers the formats" "Export as: 1 table 2 json"
keys main Enter
expect_screen main "Enter: json, then asks for a file name" "Export the .* plan \(json\) to: "
keys main C-u
keys_literal main "$TMP/plan.json"
keys main Enter
expect_screen main "e: exported" "exported the plan \(.*\) as json to "
if wait_file "$TMP/plan.json" && jq -e '
    (.problem.gpus == 4) and (.problem.micro_batches == 9) and (.problem.schedule == "pipedream")
    and (.problem.memory == [18253611008, 18253611008, 18253611008, 18253611008])
    and (.problem.layers == 177) and (.plans | length == 1)
    and (.plans[0] | (.assignment | length == 177) and (.gpus | length == 4)
         and (.schedule | length == 354) and (.period_ms | type == "number")
         and (.status | type == "string"))' "$TMP/plan.json" >/dev/null; then
    ok "export: the solve --json shape, the knobs on screen"
else
    not_ok "export: JSON"; head -c 600 "$TMP/plan.json"; echo
fi
cp "$TMP/plan.json" "$TMP/plan.before"
keys main e Enter C-u
keys_literal main "$TMP/plan.json"
keys main Enter
expect_screen main "export to an existing file asks first" "plan\.json exists\. Overwrite it\? \(y/n\)"
keys main n
expect_screen main "n: back to the name" "Export the .* plan \(json\) to: "
keys main Escape
expect_screen main "Esc: export cancelled" "export cancelled"
if cmp -s "$TMP/plan.json" "$TMP/plan.before"; then ok "declined: file untouched"; else
    not_ok "declined: file changed"; fi
keys main G
check_rows main "G before overwriting" "^GPUs 5 " \
    --gpus 5 --memory 17GiB --micro-batches 9 --schedule pipedream
keys main e Enter C-u
keys_literal main "$TMP/plan.json"
keys main Enter
expect_screen main "overwrite question again" "Overwrite it\?"
keys main y
expect_screen main "y: overwritten" "exported the plan \(.*\) as json to "
if jq -e '.problem.gpus == 5' "$TMP/plan.json" >/dev/null; then ok "overwrite: new content"; else
    not_ok "overwrite: content"; fi
if [ -n "$(find "$TMP" -name 'plan.json.tmp*')" ]; then not_ok "export left a temporary file"; else
    ok "export: no temporary file left"; fi

# ---- q: the terminal comes back ----
keys main q
expect_screen main "q quits with status 0 and the shell runs" "^EXITED:0$" "^SHELL-OK$"
if grep -q "pipeplan  resnet50" "$TMP/last"; then not_ok "q: the explorer's screen is still there"; else
    ok "q: the alternate screen is gone"; fi
if wait_file "$TMP/main.stty" && grep -Eq '(^| )icanon( |$)' "$TMP/main.stty" &&
    grep -Eq '(^| )echo( |$)' "$TMP/main.stty"; then
    ok "q: terminal back in cooked mode with echo"
else
    not_ok "q: terminal modes"; cat "$TMP/main.stty"
fi

# ---- reload ----
cp data/networks/alexnet.ini "$TMP/net.ini"
tui_start rl 80 24 -- net.ini "$(pwd)/$PLAT" --gpus 3
NET_SAVED=$NET
NET="$TMP/net.ini"
check_rows rl "reload: opened a network file" "GPUs 3  cap 16\.0 GiB" --gpus 3
keys rl b
check_rows rl "reload: a knob changed first" "GPUs 3  cap 16\.0 GiB  micro-batches 7" --gpus 3 --micro-batches 7
cp "$TMP/net.ini" "$TMP/net.good"
echo "bogus = 1" >>"$TMP/net.ini"
line=$(wc -l <"$TMP/net.ini")
keys rl r
expect_screen rl "bad reload: FILE:LINE error on the status line" "^net\.ini:$line: unknown key 'bogus'"
cp "$TMP/net.ini" "$TMP/net.bad"
cp "$TMP/net.good" "$TMP/net.ini"
check_rows rl "bad reload: last good state and knobs kept" "GPUs 3  cap 16\.0 GiB  micro-batches 7" \
    --gpus 3 --micro-batches 7
# a valid edit: slower first conv layer
sed '0,/^forward = /s/^forward = .*/forward = 40ms/' "$TMP/net.good" >"$TMP/net.ini"
keys rl r
expect_screen rl "good reload: says so" "reloaded net\.ini"
check_rows rl "good reload: new figures, knobs kept" "GPUs 3  cap 16\.0 GiB  micro-batches 7" \
    --gpus 3 --micro-batches 7
NET=$NET_SAVED

# ---- signals: the terminal comes back ----
keys rl q
expect_screen rl "reload session quits" "^EXITED:0$"
# (USR1 and ALRM end a process too: they left the alternate screen on and
# the terminal raw)
for sig in TERM HUP SEGV USR1 ALRM; do
    tui_start "sig$sig" 80 24 -- --time-limit 5
    if wait_screen "sig$sig" "^ILP " && wait_file "$TMP/sig$sig.pid"; then
        kill -"$sig" "$(cat "$TMP/sig$sig.pid")"
        case $sig in
            TERM) want="^EXITED:143$" ;;
            HUP) want="^EXITED:129$" ;;
            USR1) want="^EXITED:138$" ;;
            ALRM) want="^EXITED:142$" ;;
            *) want="^EXITED:[1-9][0-9]*$" ;;
        esac
        expect_screen "sig$sig" "SIG$sig: exits" "$want" "^SHELL-OK$"
        if wait_file "$TMP/sig$sig.stty" && grep -Eq '(^| )icanon( |$)' "$TMP/sig$sig.stty" &&
            grep -Eq '(^| )echo( |$)' "$TMP/sig$sig.stty" &&
            [ "$(TM display -p -t "sig$sig" '#{alternate_on}')" = 0 ]; then
            ok "SIG$sig: terminal restored"
        else
            not_ok "SIG$sig: terminal modes"; cat "$TMP/sig$sig.stty"
        fi
    else
        not_ok "SIG$sig: explorer did not start"; show_last
    fi
done

# ---- a terminal that cannot place the cursor: refused, one line ----
# (TERM=dumb drew every frame onto one line. An unknown TERM is refused
# too, but not tested here: ncurses' failed newterm leaks its screen,
# which check-asan and check-valgrind would report.)
tui_start termdumb 100 10 "TERM=dumb" -- --work-limit 20
expect_screen termdumb "TERM=dumb: refused with why, exit 2" "^pipeplan: .*TERM=dumb" "^EXITED:2$"

# ---- no colour, no Unicode ----
# The parameters of every SGR sequence (ESC [ ... m) of a capture, one a line.
sgr_params() {
    grep -o "$(printf '\033')\[[0-9;]*m" "$1" | sed 's/^.\[//; s/m$//' | tr ';' '\n'
}
tui_start mono 80 24 NO_COLOR=1 LANG=C LC_ALL=C --
expect_screen mono "NO_COLOR + C locale: plans shown" "time-balanced +[0-9.]+ ms" "^ILP "
TM capture-pane -e -p -t mono >"$TMP/mono.esc"
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TMP/mono.esc"; then
    not_ok "C locale: only ASCII on screen"; LC_ALL=C grep -n "$(printf '[\200-\377]')" "$TMP/mono.esc" | head -3
else
    ok "C locale: only ASCII on screen"
fi
if sgr_params "$TMP/mono.esc" | grep -Eqx '3[0-8]|4[0-8]|9[0-7]|10[0-7]'; then
    not_ok "NO_COLOR: no colour codes"; sgr_params "$TMP/mono.esc" | sort -u | tr '\n' ' '; echo
else
    ok "NO_COLOR: no colour codes"
fi
if sgr_params "$TMP/mono.esc" | grep -qx 7; then
    ok "NO_COLOR: reverse video marks the selection"
else
    not_ok "NO_COLOR: no reverse video"
fi
keys mono C-c
expect_screen mono "Ctrl-C quits with status 0" "^EXITED:0$" "^SHELL-OK$"

tui_start colour 80 24 --
expect_screen colour "colour + UTF-8: plans shown" "time-balanced +[0-9.]+ ms"
TM capture-pane -e -p -t colour >"$TMP/colour.esc"
if grep -q "$(printf '\342\224\200')" "$TMP/colour.esc"; then ok "UTF-8: box drawing used"; else
    not_ok "UTF-8: no box drawing"; fi
if sgr_params "$TMP/colour.esc" | grep -Eqx '3[0-7]|4[0-7]|38|48'; then
    ok "colour terminal: colours used"
else
    not_ok "colour terminal: no colours"
fi
keys colour q
expect_screen colour "colour session quits" "^EXITED:0$"

finish
