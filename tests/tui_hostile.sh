#!/bin/sh
# The explorer with hostile inputs (issue 12), through tmux at 80x24: names
# holding control characters and invalid UTF-8 are escaped on screen; a
# network file that disappears, is half written, turns into a directory or
# a FIFO while the explorer reloads it keeps the last good network and
# says why in one line; 1,024 GPUs draw without a crash.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
. "$PIPEPLAN_SRCDIR/tests/tui_lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

PLAT="$(pwd)/data/platforms/v100-16gb-pcie-4.ini"
set -f

layer() {   # layer NAME FORWARD BACKWARD WEIGHTS ACTIVATION
    printf '[layer %s]\nforward = %s\nbackward = %s\nweights = %s\nactivation = %s\n' "$@"
}

# ---- names with controls: escaped, never sent raw ----
{ printf '[network]\nname = n\033[31mRED\007\nmicro_batch = 8\n'
  layer "$(printf 'a\033[2J\377')" 1ms 2ms 1MB 9MB
  layer b 3ms 4ms 2MB 1MB; } >"$TMP/ctl.ini"
tui_start ctl 80 24 -- ctl.ini "$PLAT" --work-limit 20
expect_screen ctl "a network name with ESC and BEL: escaped" 'n\\x1B\[31mRED\\x07'
expect_screen ctl "the cursor's layer name: escaped, invalid UTF-8 too" 'a\\x1B\[2J\\xFF'
keys ctl q
expect_screen ctl "quits" "^EXITED:0$"

# ---- reload of a file that changes or disappears ----
{ printf '[network]\nname = good\nmicro_batch = 8\n'
  layer a 1ms 2ms 1MB 1MB; layer b 3ms 4ms 2MB 1MB; layer c 5ms 6ms 3MB 1MB; } >"$TMP/net.ini"
cp "$TMP/net.ini" "$TMP/net.good"
tui_start rl 80 24 -- net.ini "$PLAT" --work-limit 20
expect_screen rl "the network opens" "good"
# gone
rm "$TMP/net.ini"
keys rl r
expect_screen rl "reload of a removed file: says why, keeps the last good" \
    "^net\.ini: cannot open: No such file or directory \(kept the last good files\)" "good"
# half written: the file ends inside a layer
head -n 10 "$TMP/net.good" >"$TMP/net.ini"
keys rl r
expect_screen rl "reload of a half-written file: FILE:LINE, kept" \
    "^net\.ini:9: \[layer b\] has no 'backward'" "the last good files\)" "good"
# a directory
rm "$TMP/net.ini"
mkdir "$TMP/net.ini"
keys rl r
expect_screen rl "reload of a directory: says so, kept" \
    "^net\.ini: is a directory \(expected a file\) \(kept the last good files\)" "good"
# a FIFO nobody writes: no hang
rmdir "$TMP/net.ini"
mkfifo "$TMP/net.ini"
keys rl r
expect_screen rl "reload of a FIFO: no hang, kept" \
    "^net\.ini:1: empty file" "the last good files\)" "good"
# emptied
rm "$TMP/net.ini"
: >"$TMP/net.ini"
keys rl r
expect_screen rl "reload of an emptied file: kept" "^net\.ini:1: empty file" "good"
# back, changed: the new one is taken
sed 's/^name = good/name = better/' "$TMP/net.good" >"$TMP/net.ini"
keys rl r
expect_screen rl "reload of a good file again: taken" "reloaded net\.ini" "better"
keys rl q
expect_screen rl "reload session quits" "^EXITED:0$"

# ---- 1,024 GPUs at 80x24 ----
sed 's/^gpus = .*/gpus = 1024/' "$PLAT" >"$TMP/p1024.ini"
awk 'BEGIN { print "[network]\nname = wide\nmicro_batch = 1"
    for (i = 0; i < 40; i++)
        printf "[layer l%d]\nforward = %dus\nbackward = %dus\nweights = %dKB\nactivation = %dKB\n",
               i, 100 + i % 7, 200 + i % 5, 10 + i % 13, 1 + i % 11 }' >"$TMP/l40.ini"
# the ILP on 1,024 GPUs is beyond seconds today: the baselines are shown
tui_start wide 80 24 -- l40.ini p1024.ini --work-limit 1 --blocks 2
expect_screen wide "1,024 GPUs: the explorer draws" "GPUs 1024" "mem-aware DP"
keys wide j j j
expect_screen wide "1,024 GPUs: still drawing after keys" "GPUs 1024"
keys wide q
expect_screen wide "1,024 GPUs: quits" "^EXITED:0$"

# ---- 63 GPUs: the one past the letters is named as one GPU ----
sed 's/^gpus = 1024$/gpus = 63/' "$TMP/p1024.ini" >"$TMP/p63.ini"
tui_start g63 120 30 -- l40.ini p63.ini --work-limit 1 --blocks 2
expect_screen g63 "63 GPUs: the strip's legend names GPU 62 alone" "a-Z=GPU 10-61, \+=GPU 62  "
keys g63 q
expect_screen g63 "quits" "^EXITED:0$"

# ---- a GPU needing thousands of times its memory: the line keeps its width ----
{ printf '[network]\nname = huge\nmicro_batch = 8\n'
  layer a 1ms 2ms 1MB 10TB; layer b 3ms 4ms 2MB 1MB; } >"$TMP/huge.ini"
tui_start huge 80 24 -- huge.ini "$PLAT" --work-limit 20
# "46566/16.0 GiB" pushed the busy share's % past the edge
expect_screen huge "used memory of five digits: in its column, the % kept" \
    '^0 \[.*\] 5e4/16\.0 GiB ! +[·FB]+ +[0-9]+%$'
keys huge q
expect_screen huge "quits" "^EXITED:0$"

# ---- caps in PiB: the memory column in PiB, the % kept ----
sed 's/^memory = .*/memory = 16000PiB/' "$PLAT" >"$TMP/pib.ini"
tui_start pib 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" pib.ini --work-limit 20
# "1.0/16384000 TiB" pushed the busy share's % past the edge
expect_screen pib "a cap of 16000 PiB: in PiB, in its column, the % kept" \
    '^0 \[.*\] (<0\.1|[0-9.]+)/16000 PiB +[·FB]+ +[0-9]+%$'
keys pib q
expect_screen pib "quits" "^EXITED:0$"

# ---- caps above the keys' largest (4 TiB): M and } never lower them ----
sed 's/^memory = .*/memory = 8TiB/' "$PLAT" >"$TMP/p8t.ini"
tui_start p8t 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" p8t.ini --work-limit 20
expect_screen p8t "8 TiB caps" "^GPUs 4  cap 8\.00 TiB "
# M took them all down to 4 TiB, } GPU 0's
keys p8t M
expect_screen p8t "M at 8 TiB: already at its largest, the cap kept" \
    "^memory cap: already at its largest" "^GPUs 4  cap 8\.00 TiB "
keys p8t '}'
expect_screen p8t "} at 8 TiB: already at its largest, the cap kept" \
    "^this GPU's cap: already at its largest" "^GPUs 4  cap 8\.00 TiB "
keys p8t q
expect_screen p8t "quits" "^EXITED:0$"

# ---- caps below the keys' smallest (1 GiB): m and { never raise them ----
sed 's/^memory = .*/memory = 512MiB/; s/^reserved = .*/reserved = 100MiB/' "$PLAT" >"$TMP/p512m.ini"
tui_start p512m 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" p512m.ini --work-limit 20
expect_screen p512m "512 MiB caps" "^GPUs 4  cap 512 MiB "
# m took them all up to 1 GiB
keys p512m m
expect_screen p512m "m at 512 MiB: already at its smallest, the cap kept" \
    "^memory cap: already at its smallest" "^GPUs 4  cap 512 MiB "
keys p512m '{'
expect_screen p512m "{ at 512 MiB: already at its smallest, the cap kept" \
    "^this GPU's cap: already at its smallest" "^GPUs 4  cap 512 MiB "
keys p512m q
expect_screen p512m "quits" "^EXITED:0$"

# ---- times of hours and beyond, below 80 columns: each in its column,
# a blank after the longest name and between ----
{ printf '[network]\nname = slow\nmicro_batch = 1\n'
  for i in 1 2 3 4 5 6; do layer "l$i" 5000s 9000s 1MB 1MB; done; } >"$TMP/slow.ini"
sed 's/^micro_batches = .*/micro_batches = 512/' "$PLAT" >"$TMP/p512.ini"
tui_start slow 79 24 -- slow.ini p512.ini --work-limit 10
expect_screen slow "79 columns: period and iteration apart" \
    '^  param-balanced  28000 s 1\.4e\+07 s  fits ' '^[ ▶] ILP             28000 s 1\.4e\+07 s  fits '
keys slow q
expect_screen slow "quits" "^EXITED:0$"

# ---- a name longer than the title's room ends in an ellipsis ----
sed 's/^name = .*/name = slow-huge-network-with-a-very-long-name-indeed-it-is/
      s/^\[layer node1-Input\]/[layer encoder.layers.12.self_attention.linear_qkv.input_tail]/' \
    "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" >"$TMP/longname.ini"
tui_start ln 60 15 -- longname.ini "$PLAT" --work-limit 20
expect_screen ln "60 columns: the long name cut with an ellipsis" \
    '^slow-huge-network-with-a-very-long-name-indeed(…|\.\.\.) +ILP '
keys ln q
expect_screen ln "quits" "^EXITED:0$"
# a layer's name too long for the cursor's line loses its middle, not
# its start: "encoder." and "_tail" both stay
tui_start lnl 80 24 -- longname.ini "$PLAT" --work-limit 20
expect_screen lnl "80 columns: a long layer name keeps both ends" \
    '^layer 0 of [0-9]+ encoder\.[^ ]*(…|~)[^ ]*_tail → '
keys lnl q
expect_screen lnl "quits" "^EXITED:0$"

# ---- Esc and the key behind it in one read (typed fast, or joined on a
# slow link): the Esc closes, the key acts; both were dropped ----
tui_start esc 80 24 -- "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" "$PLAT" --work-limit 20
expect_screen esc "starts" "GPUs 4 "
keys esc S
expect_screen esc "S: the prompt" "Your split"
keys esc Escape g
expect_screen esc "Esc g together: the prompt closes and g takes a GPU away" "GPUs 3 "
keys esc '?'
expect_screen esc "?: the help" "move the layer cursor"
keys esc Escape q
expect_screen esc "Esc q together: the help closes and q quits" "^EXITED:0$"

# ---- too small: the screen says only that, so no key acts unseen ----
tui_start tiny 40 10 -- "$PIPEPLAN_SRCDIR/data/networks/alexnet.ini" "$PLAT" --work-limit 20
expect_screen tiny "40x10: too small" "too small"
keys tiny g g M b
TM resize-window -t tiny -x 80 -y 24
expect_screen tiny "g g M b while too small: nothing changed" \
    "GPUs 4  cap 16\.0 GiB  micro-batches 8 "
TM resize-window -t tiny -x 40 -y 10
expect_screen tiny "40x10 again: too small" "too small"
keys tiny q
expect_screen tiny "q quits while too small" "^EXITED:0$"

finish
