#!/bin/sh
# pipeplan check: accepts every bundled file, rejects bad ones with
# FILE:LINE, exit 2 and nothing on stdout.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

for f in data/networks/*.ini data/platforms/*.ini; do
    run check "$f"
    expect_status 0 "check accepts $f"
done

run check data/networks/resnet50.ini data/platforms/dgx1-v100-32gb.ini
expect_status 0 "check takes several files"
expect_stdout_has "data/networks/resnet50.ini: network resnet50, 177 layers, micro-batch of 128 samples" \
    "network summary names layers and micro-batch"
expect_stdout_has "data/platforms/dgx1-v100-32gb.ini: platform dgx1-v100-32gb, 8 GPUs" \
    "platform summary names the GPUs"

# A tensor-parallel network's figures are one GPU's share: said, so that
# gpt3-175b's 40.7 GiB are not read as the whole model's weights.
run check data/networks/gpt3-175b.ini data/networks/vgg16.ini
expect_status 0 "check a tensor-parallel network"
expect_stdout_has "  parallel     tensor, 8 GPUs a rank: times and sizes are one GPU's share" \
    "tensor-parallel network: figures per GPU"
if [ "$(grep -c '^  parallel' "$TMP/out")" -eq 1 ]; then ok "only the tensor-parallel one says so"; else
    not_ok "parallel lines: $(grep -c '^  parallel' "$TMP/out")"; fi
# after "--" a file named -h is a file, wherever the "--" is
cp data/networks/alexnet.ini "$TMP/-h"
(cd "$TMP" && pp check "$PIPEPLAN_SRCDIR/data/platforms/a10-24gb-pcie-4.ini" -- -h) >"$TMP/out" 2>"$TMP/err"
if grep -q '^-h: network alexnet' "$TMP/out"; then ok "check FILE -- -h checks the file -h"; else
    not_ok "check FILE -- -h: $(head -1 "$TMP/out")"; fi
# --help after a file, as the other commands take it
run check data/networks/vgg16.ini -h
expect_status 0 "check FILE -h"
expect_stdout_has "usage: pipeplan check FILE..." "check FILE -h prints the help"

# The built-in default opens the explorer, which needs a terminal: here it
# says so and points at solve (tests/tui.sh drives it in tmux).
status=0
pp </dev/null >"$TMP/out" 2>"$TMP/err" || status=$?
expect_status 2 "no terminal, no explorer"
expect_stdout_empty "no terminal"
expect_stderr "pipeplan: the explorer needs a terminal; use 'pipeplan solve NETWORK.ini PLATFORM.ini' for scripts" \
    "no terminal message"
run no-such-command
expect_status 2 "an unknown word is no command and no file"
expect_stderr "pipeplan: 'no-such-command' is neither a command (check, gen, import, solve, sweep) nor a file (see pipeplan --help)" \
    "unknown word message"

# Each kind of bad input: exact message, exit 2, empty stdout.
bad() {   # bad NAME CONTENT EXPECTED-STDERR
    printf '%b' "$2" >"$TMP/$1"
    run check "$TMP/$1"
    expect_status 2 "rejects $1"
    expect_stdout_empty "$1"
    expect_stderr "$(printf '%s' "$3" | sed "s|@|$TMP/|")" "message for $1"
}
net='[network]\nname = n\nmicro_batch = 8\n'
layer='[layer a]\nforward = 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n'
bad empty.ini '' '@empty.ini:1: empty file (expected a network or a platform file)'
bad json.ini '{"a": 1}\n' '@json.ini:1: not a spec file (expected a [network] or [platform] section first)'
# a sweep's CSV read as a spec file past its comment lines: "not a spec
# file" at its header row, where the man page says a .csv is a schedule
bad sweep.csv '# pipeplan 0.1.0 sweep\n# input network sha256 0 n.ini\nnetwork,platform\n' \
    "@sweep.csv:1: a sweep's CSV (pipeplan sweep writes it; expected a network, a platform or a torch schedule CSV)"
bad unknown-key.ini "$net$layer"'colour = red\n' \
    "@unknown-key.ini:9: unknown key 'colour' in [layer a] (expected forward, backward, weights, activation or stored)"
# a key written without its '=': that line is named, not the section's
# header for the key it lacks, in the last layer and in one before another
bad no-equals.ini "$net"'[layer a]\nforward 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n' \
    "@no-equals.ini:5: not an INI line (expected [section], key = value or a ; comment)"
bad no-equals2.ini "$net"'[layer a]\nforward 1ms\nbackward = 2ms\nweights = 1MB\nactivation = 1MB\n'"$layer" \
    "@no-equals2.ini:5: not an INI line (expected [section], key = value or a ; comment)"
bad dup-layer.ini "$net$layer$layer" "@dup-layer.ini:9: duplicate layer 'a' (expected each name once; the first is on line 4)"
bad no-layers.ini "$net" "@no-layers.ini:1: network 'n' has no layers (expected [layer NAME] sections)"
bad negative.ini "$net"'[layer a]\nforward = -1ms\n' "@negative.ini:5: bad forward '-1ms': negative value (expected a time from 0 to 10^12 ms, e.g. 1.9ms)"
bad bare.ini "$net"'[layer a]\nforward = 1\n' "@bare.ini:5: bad forward '1': missing unit (expected us, ms or s)"
bad huge.ini "$net"'[layer a]\nweights = 99999999999GB\n' "@huge.ini:5: bad weights '99999999999GB': size does not fit in 64 bits (expected a size below 16384 PiB, e.g. 12.8MB)"
bad zero-gpus.ini '[platform]\nname = p\ngpus = 0\n' "@zero-gpus.ini:3: bad gpus '0': out of range (expected 1 to 4096)"
bad below-reserved.ini '[platform]\nname = p\ngpus = 2\nmemory = 1GiB\nreserved = 2GiB\nbandwidth = 1GB/s\nlatency = 1us\n[training]\nmicro_batches = 2\nschedule = 1f1b\noptimizer = adam\n' \
    '@below-reserved.ini:5: memory is not above reserved (expected memory > reserved)'
long=$(printf 'x%.0s' $(seq 1 200))
bad nul.ini "$net"'[layer a]\nforward = 1\0ms\n' '@nul.ini:5: a NUL byte (expected a text file)'
bad nul-platform.ini '[platform]\0\n' '@nul-platform.ini:1: a NUL byte (expected a text file)'
bad long.ini "[network]\nname = $long\n" '@long.ini:2: line too long (207 bytes; expected at most 199)'
# files from other systems: said as such, not as a broken header or a NUL
bad utf16.ini '\377\376[\0n\0e\0t\0w\0o\0r\0k\0]\0\n\0' '@utf16.ini:1: UTF-16 text (expected UTF-8: save the file as UTF-8)'
bad utf16be.ini '\0[\0n\0e\0t' '@utf16be.ini:1: UTF-16 text (expected UTF-8: save the file as UTF-8)'
bad mac.ini '[network]\rname = n\rmicro_batch = 8\r' '@mac.ini:1: lines that end in a carriage return alone (expected LF or CRLF line ends)'
# a file of comments alone: its last line, not one past it
bad comments.ini '; one\n; two\n' '@comments.ini:2: not a spec file (expected a [network] or [platform] section first)'

run check "$TMP/does-not-exist.ini"
expect_status 2 "missing file"
expect_stderr "$TMP/does-not-exist.ini: cannot open: No such file or directory" "missing file message"
# a network file named .csv is still a network file
cp data/networks/alexnet.ini "$TMP/alexnet.csv"
run check "$TMP/alexnet.csv"
expect_status 0 "a network file named .csv"
expect_stdout_has "network alexnet, 23 layers" "a network file named .csv: read as one"
run check ''
expect_status 2 "an empty file name"
expect_stderr "'': an empty file name (expected the path of a file)" "an empty file name: said so"

# one bad file among good ones: nothing on stdout at all
run check data/networks/resnet50.ini "$TMP/empty.ini"
expect_status 2 "a bad file fails the whole check"
expect_stdout_empty "mixed good and bad"

run check
expect_status 2 "check without files is a usage error"

finish
