#!/bin/sh
# The explorer with your plan: --split at start shows the "your split"
# row; p loads a plan file into it; S takes a split typed; e offers the
# formats and writes one.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$TMP" || exit 1
NET="$PIPEPLAN_SRCDIR/data/networks/alexnet.ini"
PLAT="$PIPEPLAN_SRCDIR/data/platforms/v100-16gb-pcie-4.ini"

# the figures solve gives the same split
pp solve "$NET" "$PLAT" --planner user --split 0,6,12,18 --json >"$TMP/user.json"
period=$(jq -r '.plans[0].period_ms' "$TMP/user.json")
[ -n "$period" ] && [ "$period" != null ] && ok "solve judged the split" || not_ok "solve --split"

# ---- --split at start ----
tui_start sp 80 24 -- "$NET" "$PLAT" --split 0,6,12,18 --work-limit 20
expect_screen sp "--split: the row 'your split' with its figures" "^  your split +[0-9.]+ ms .* (fits|needs)"

# ---- p: load a plan file ----
pp solve "$NET" "$PLAT" --planner time --format plan -o "$TMP/time.plan"
keys sp p
expect_screen sp "p: asks for a plan file" "Load a plan file:" "Enter load"
keys_literal sp "$TMP/time.plan"
keys sp Enter
expect_screen sp "p: loaded, the row shows it" "loaded your plan from .*time\.plan" "^▶ your split "
keys sp p
keys sp C-u
keys_literal sp "$TMP/missing.plan"
keys sp Enter
expect_screen sp "p: a file that is not there says so" "missing\.plan: cannot open"
# a plan file written for other settings: loaded, judged for these, and
# said so (the message takes two lines, where the path decides; the word
# "pipedream;" is the note's alone)
pp solve "$NET" "$PLAT" --planner time --schedule pipedream --format plan -o "$TMP/pd.plan"
keys sp p
keys sp C-u
keys_literal sp "$TMP/pd.plan"
keys sp Enter
expect_screen sp "p: a plan written for pipedream, judged for 1f1b, says so" \
    "loaded your plan \(row \"your split\"\): " "pipedream;" "^▶ your split "

# ---- the GPUs' layers as solve and --split count them, from 0 ----
pp solve "$NET" "$PLAT" --planner user --split 0,6,12,18 >"$TMP/solve.txt"
if grep -qE '^0 .* 0-5$' "$TMP/solve.txt" && grep -qE '^3 .* 18-22$' "$TMP/solve.txt"; then
    ok "solve: your split's GPUs hold 0-5 .. 18-22"; else not_ok "solve's layer ranges"; cat "$TMP/solve.txt"; fi
tui_start dt 160 50 -- "$NET" "$PLAT" --split 0,6,12,18 --work-limit 20
expect_screen dt "your split at start" "^  your split +[0-9.]+ ms"
keys dt Down Down Down Down Down Down
expect_screen dt "the explorer's GPU table: the same ranges as solve's" "GPUs of your split" \
    "^  0 .* 0-5$" "^  3 .* 18-22$"
keys dt q

# ---- a tensor-parallel network: the export's name counts ranks ----
tui_start tp 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/llama3-70b.ini" \
    "$PIPEPLAN_SRCDIR/data/platforms/h100-ib-8nodes.ini" --work-limit 20
# (e once a plan is on show, and 2 once the chooser asks: under valgrind
# keys sent at once arrived before either)
expect_screen tp "llama3-70b on 8 ranks: a plan on show" " best$"
keys tp e
expect_screen tp "e: the format chooser" "Export as:"
keys tp 2
expect_screen tp "e json: the name says 8 ranks, not 8 GPUs (64 of them)" \
    "to: llama3-70b-tp8-8rank-[a-z]+\.json"
keys tp Escape
keys tp q
# 16 ranks at 200x60: every word a rank; the memory rows keep their layers
tui_start tw 200 60 -- "$PIPEPLAN_SRCDIR/data/networks/llama3-70b.ini" \
    "$PIPEPLAN_SRCDIR/data/platforms/h100-ib-8nodes.ini" --gpus 16 --work-limit 20
expect_screen tw "16 ranks: the strip's letters are ranks, as the help says" \
    "── layers → rank: .* a-f=rank 10-15 " "ILP optimal in"
if grep -q "GPU 1[0-5]" "$TMP/last"; then not_ok "16 ranks: no letter called a GPU"; show_last
else ok "16 ranks: no letter called a GPU"; fi
expect_screen tw "16 ranks, wide: the plans' table names the peak rank" "  T/T_lb  peak rank$"
expect_screen tw "16 ranks, wide: the table of the plan's ranks" "^rank +load +send +recv"
expect_screen tw "200 columns: a memory row's layers, two digits too" "^1[0-5] \[.*%  layers [0-9]+-[0-9]+$"
keys tw q

# ---- S: a split typed, judged as solve --split judges it ----
pp solve "$NET" "$PLAT" --planner user --split 'deepspeed:[0, 5, 10, 15, 23]' --json >"$TMP/ds.json"
ds_iter=$(jq -r '.plans[0].iteration_ms' "$TMP/ds.json")
ds_text=$(awk -v ms="$ds_iter" 'BEGIN { printf "%.1f ms", ms }')
keys sp S
expect_screen sp "S: asks for a split" "Your split \(as --split\):" "Enter judge"
keys sp C-u
keys_literal sp 'deepspeed:[0, 5, 10, 15, 23]'
keys sp Enter
expect_screen sp "S: judged, selected, at solve's iteration ($ds_text)" \
    "judging your split deepspeed:\[0, 5, 10, 15, 23\] \(selected\)" "^▶ your split .* $ds_text "
keys sp S
keys sp C-u
keys_literal sp 'deepspeed:[0, 5, 99]'
keys sp Enter
expect_screen sp "S: a bad split says why first, and the row stays" \
    "^bad split: boundary 99 out of range \(expected 0 to 23: the network has 23" \
    "^▶ your split .* $ds_text "
keys sp S
keys sp Escape
expect_screen sp "S, Esc: cancelled" "split cancelled"
# a paste over several lines (as DeepSpeed's log prints a long list) is
# taken whole: its newlines are blanks, its last one commits
keys sp S
keys sp C-u
printf 'deepspeed:[0, 5,\n 10, 15,\n 23]\n' | TM load-buffer -
TM paste-buffer -t sp
expect_screen sp "S: a pasted split of three lines, judged whole" \
    "judging your split deepspeed:\[0, 5,  10, 15,  23\] \(selected\)" "^▶ your split .* $ds_text "

# a paste longer than the prompt holds is not taken cut short: cut after
# its blanks, "0,5,10,<blanks>15" would be judged as the split 0,5,10
keys sp S
keys sp C-u
awk 'BEGIN { printf "0,5,10,"; for (i = 0; i < 4200; i++) printf " "; print "15" }' >"$TMP/long.txt"
TM load-buffer "$TMP/long.txt"
TM paste-buffer -t sp
expect_screen sp "S: a paste past the prompt's 4095 bytes is refused, not judged cut" \
    "^not taken: the line is longer than the 4095 bytes the prompt holds" \
    "^▶ your split .* $ds_text "

# the torch export's list as it is, its lines' "# stage s" comments and
# all (the newlines kept: a comment ends at its line), and a plain list
# over lines with blanks at its commas
pp solve "$NET" "$PLAT" --planner user --split 0,5,10,15 --format torch -o "$TMP/ta.py"
sed -n '/^module_fqns_per_model_part = \[/,/^\]/p' "$TMP/ta.py" |
    sed '1s/^module_fqns_per_model_part = /torchtitan:/' >"$TMP/tt.txt"
pp solve "$NET" "$PLAT" --planner user --split "$(cat "$TMP/tt.txt")" --json >"$TMP/tt.json"
tt_text=$(awk -v ms="$(jq -r '.plans[0].iteration_ms' "$TMP/tt.json")" 'BEGIN { printf "%.1f ms", ms }')
if grep -q '# stage 0' "$TMP/tt.txt" && [ "$(wc -l <"$TMP/tt.txt")" -eq 6 ]; then
    ok "the torch export's list, with a comment on each line"
else
    not_ok "the torch export's list"; cat "$TMP/tt.txt"
fi
keys sp S
keys sp C-u
TM load-buffer "$TMP/tt.txt"
TM paste-buffer -t sp
expect_screen sp "S: the torch export's list pasted as it is, comments and all" \
    "judging your split torchtitan:\[ +\[\"node1-Input\"" "^▶ your split .* $tt_text "
keys sp S
keys sp C-u
printf '0, 6,\n12 ,\n 18\n' | TM load-buffer -
TM paste-buffer -t sp
u_text=$(awk -v ms="$(jq -r '.plans[0].iteration_ms' "$TMP/user.json")" 'BEGIN { printf "%.1f ms", ms }')
expect_screen sp "S: a plain list pasted over lines, blanks at its commas" \
    "judging your split 0, 6, 12 ,  18 \(selected\)" "^▶ your split .* $u_text "

# ---- e: the format chooser, then the file ----
keys sp e
expect_screen sp "e: offers the formats, a digit for each" \
    "Export as: 1 table 2 json 3 csv 4 plan 5 megatron 6 deepspeed" "1-8 format"
keys sp 3
expect_screen sp "3: csv, then the file name" "Export your split \(csv\) to: .*\.csv" "Enter write"
keys sp C-u
keys_literal sp "$TMP/plan.csv"
keys sp Enter
expect_screen sp "e: exported" "exported the plan \(your split\) as csv to "
if wait_file "$TMP/plan.csv" && head -1 "$TMP/plan.csv" | grep -q '^index,name,gpu,stage,' &&
   [ "$(wc -l <"$TMP/plan.csv")" -eq "$(($(jq '.problem.layers' "$TMP/user.json") + 1))" ]; then
    ok "e csv: one row per layer"; else not_ok "e csv"; fi
# a name of its own for each format (csv and torch-schedule are both .csv)
keys sp e
keys sp 8
expect_screen sp "8: torch-schedule, a name of its own" "Export your split \(torch-schedule\) to: .*-user-torch-schedule\.csv"
keys sp Escape
# a directory is refused at once, not offered to be overwritten
keys sp e
keys sp 2
keys sp C-u
keys_literal sp "$TMP"
keys sp Enter
expect_screen sp "e to a directory: refused, no question" "a directory \(expected a file name\)"
if grep -q "Overwrite it" "$TMP/last"; then not_ok "e to a directory: asked to overwrite"; else
    ok "e to a directory: not asked to overwrite"; fi
keys sp e
keys sp 5
expect_screen sp "megatron on a network that is no transformer: says why" "cannot write plan your split as megatron: Megatron's layout needs a transformer"
# a long path: the reason and the question stay on the line (the path
# shortened in the middle), not pushed off by the path
long=$(printf 'a%.0s' $(seq 300))
keys sp e
keys sp 2
keys sp C-u
keys_literal sp "$long"
keys sp Enter
expect_screen sp "e to a name of 300 bytes: the reason shown" "^a{16}\.\.\.a{29}: cannot create a temporary"
mkdir -p "$TMP/a-directory-with-a-rather-long-name-for-the-prompt-test"
: >"$TMP/a-directory-with-a-rather-long-name-for-the-prompt-test/there.json"
keys sp e
keys sp 2
keys sp C-u
keys_literal sp "$TMP/a-directory-with-a-rather-long-name-for-the-prompt-test/there.json"
keys sp Enter
expect_screen sp "e over a file at a long path: the question shown" "\.\.\..*/there\.json exists\. Overwrite it\? \(y/n\)"
keys sp n
keys sp Escape
keys sp e
keys sp Escape
expect_screen sp "Esc: export cancelled" "export cancelled"
# a paste of a name and more lines: the name is taken, the rest is not
# run as keys (GG took two GPUs away)
keys sp e
keys sp 2
keys sp C-u
printf '%s\nGG\n' "$TMP/pasted.json" | TM load-buffer -
TM paste-buffer -t sp
expect_screen sp "e, a pasted name with lines after it: exported, the lines not run" \
    "exported the plan \(your split\) as json to .*pasted\.json" "^GPUs 4 "

# ---- every size ----
for size in "60 15" "200 50"; do
    set -- $size
    TM resize-window -t sp -x "$1" -y "$2"
    expect_screen sp "${1}x$2: the row 'your split'" "your split"
done
expect_screen sp "200x50: the per-GPU panel names it" "^── GPUs of your split ─"
# tall enough for the help's first page to hold both lines (no paging
# that would depend on when the resize arrives)
TM resize-window -t sp -x 80 -y 60
keys sp '?'
expect_screen sp "help: p and e" "^ +p +load a plan file" "^ +e +export the plan on screen: pick a format"
keys sp x
keys sp q
expect_screen sp "q quits with status 0" "^EXITED:0$" "^SHELL-OK$"

# ---- a knob's re-plan judges your split in the worker with the
# baselines, not in the screen's loop (the schedule builder takes most of
# a second on a split that does not fit, and keys waited for it) ----
tui_start kn 80 24 "PIPEPLAN_TRACE=$TMP/kn.trace" -- "$NET" "$PLAT" --split 0,6,12,18 --work-limit 20
expect_screen kn "knob: your split at start" "^  your split +[0-9.]+ ms"
keys kn g
expect_screen kn "g: 3 GPUs, your split of 4 stages says so, cut at a word" "GPUs 3 " \
    "^  your split +error: bad split: more than 3 stages \(expected at most one…$"
keys kn Down Down Down Down Down Down
expect_screen kn "the message, whole over two lines, says which keys change the GPUs" \
    "^all  bad split: more than 3 stages" "; g and G change them\)$"
keys kn Up Up Up Up Up Up
keys kn G
expect_screen kn "G: 4 GPUs, your split judged again" "GPUs 4 " "^  your split +[0-9.]+ ms"
keys kn q
expect_screen kn "q quits" "^EXITED:0$"
n=$(grep -c '^result [0-9.]* [0-9]* user$' "$TMP/kn.trace")
if [ "$n" -eq 3 ]; then ok "your split judged by the worker at start and after each knob ($n)"
else not_ok "your split judged by the worker $n times, wanted 3"; grep '^result' "$TMP/kn.trace" | head; fi

# bad --split: one line before the terminal is touched
# ---- S: the screen while your split is judged ----
# It alone is judged again: every frame until its row has figures keeps
# the plan on show before (marked updating) with its GPUs' rows, and the
# baselines their gaps. It blanked the strip ("planning") and the GPUs'
# rows, and marked every baseline stale, for 20 to 170 ms.
tui_start fr 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/vgg16.ini" \
    "$PIPEPLAN_SRCDIR/data/platforms/dgx1-v100-32gb.ini" --work-limit 50
expect_screen fr "vgg16 on 8 GPUs: up" "^GPUs 8 " "^  mem-aware DP .* fits " "q quit"
keys fr S
expect_screen fr "S: asks" "Your split \(as --split\):"
keys fr C-u
keys_literal fr '0,5,10,15,20,25,30,35'
keys fr Enter
bad=0 frames=0 end=$(($(date +%s) + DEADLINE))
: >"$TMP/frame"
while :; do
    mv "$TMP/frame" "$TMP/frame.before"
    screen fr >"$TMP/frame"
    frames=$((frames + 1))
    grep -Eq '^▶ your split +[0-9]' "$TMP/frame" && break
    # whole frames only: one the capture before repeats (tmux can be
    # caught in the middle of a frame)
    if same_frame "$TMP/frame.before" "$TMP/frame" && grep -q 'judging your split' "$TMP/frame" &&
       { ! grep -Eq '^3 \[' "$TMP/frame" || grep -q '^all +planning' "$TMP/frame" ||
         grep -Eq '^  (mem-aware DP|PipeDream|time-balanced|param-balanced|uniform) .*…' "$TMP/frame"; }; then
        bad=1
        cp "$TMP/frame" "$TMP/bad.frame"
    fi
    [ "$(date +%s)" -ge "$end" ] && { bad=2; break; }
done
if [ $bad -eq 0 ]; then ok "S: no frame blank or stale while your split is judged ($frames frames)"
else not_ok "S: a frame while judging ($bad)"; cat "$TMP/bad.frame" 2>/dev/null; fi
keys fr q

# ---- e past the torch exports' cap: 8 stages x a million micro-batches
# (16 million actions) is refused on choosing the format, with the count
# and what to change, before any of it is built; no file name asked ----
tui_start cap 80 24 -- "$NET" "$PIPEPLAN_SRCDIR/data/platforms/a100-40gb-8.ini" \
    --split 0,3,6,9,12,15,18,21 --micro-batches 1000000 --work-limit 20
# Up moves from the row on show: wait until it is the ILP's for good (while
# the baselines came in, under valgrind, it was the DP's, and Up gave the ILP)
expect_screen cap "a million micro-batches: your split judged, the ILP's plan settled" \
    "^  your split +[0-9.]+ ms " "^▶ ILP .* best$" "ILP optimal in"
keys cap Up
expect_screen cap "Up from the top: your split selected" "^▶ your split "
keys cap e
keys cap 8
expect_screen cap "e 8 past the cap: refused on screen, how many actions, what to change" \
    "cannot write plan your split as torch-schedule: the schedule would have 16000000" \
    "at most 625000 micro-batches on 8 stages, or fewer GPUs"
if grep -q "Export your split" "$TMP/last"; then not_ok "e 8 past the cap: asked for a file name"
else ok "e 8 past the cap: no file name asked"; fi
keys cap q

# ---- < and >: the previous / next change of GPU along the chain ----
# On the settled plan (proven under the work limit), from the last layer:
# < stops at the first layer of its run, then at each run's before it; >
# at the next change. Expected from the "all" strip, a GPU per layer.
tui_start jm 80 24 -- "$NET" "$PLAT" --work-limit 20
expect_screen jm "the ILP's plan settled" "ILP optimal in" "^all  "
strip=$(sed -n 's/^all  *//p' "$TMP/last" | tr -d ' ')
# the first layers of the last three runs, as "c3 c2 c1" (c1 the last)
set -- $(printf '%s\n' "$strip" | awk '{ n = split($0, g, ""); k = 0
    for (i = n; i >= 1 && k < 3; i--) if (i == 1 || g[i] != g[i - 1]) { c[++k] = i - 1 }
    print c[1], c[2], c[3] }')
L=${#strip}
keys jm End
expect_screen jm "End: the last layer" "layer $((L - 1)) of $L "
keys jm '<'
expect_screen jm "< from inside a run: its first layer ($1)" "layer $1 of $L "
keys jm '<'
expect_screen jm "< again: the first layer of the run before ($2)" "layer $2 of $L "
keys jm '<'
expect_screen jm "< again: the run before that ($3)" "layer $3 of $L "
keys jm '>'
expect_screen jm "> : the next change ($2)" "layer $2 of $L "
keys jm q

run "$NET" "$PLAT" --split 0,3,2
expect_status 2 "explorer: bad --split"
expect_stderr "pipeplan: bad --split '0,3,2': layer 2 after 3 (expected strictly increasing layer indices)" \
    "explorer: bad --split message"
finish
