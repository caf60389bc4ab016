#!/bin/sh
# The inputs the libFuzzer harnesses (fuzz/, make fuzz) found a fault
# with, kept in tests/data/fuzz-regress/ and fed through the program the
# normal way: each gives its exact message and status, no crash, no file.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1
R=tests/data/fuzz-regress

# fuzz_import: a time no network file holds (1e40 ms) was imported, and
# `check` refused the file `import` had written.
f=$R/import-time-too-large.txt
run import pipedream "$f" --micro-batch 32 -o "$TMP/imported.ini"
expect_status 2 "import refuses a time a network file cannot hold"
expect_stderr "$f:1: bad backward_compute_time '9999999999999999999999999999999999999918.335' for node11: too large (at most 1000000000000 ms) (expected milliseconds, e.g. 1.250)" \
    "import: the time's message"
if [ ! -e "$TMP/imported.ini" ]; then ok "import: no file written"; else not_ok "import: a file written"; fi

# fuzz_units: a 36-digit size whose rounding wrapped past 2^128 read as 0
# bytes instead of 340.
printf '[network]\nname = n\nmicro_batch = 1\n[layer a]\nforward = 1ms\nbackward = 1ms\nweights = %s\nactivation = 0B\n' \
    "$(cat $R/units-size-round-wrap.txt)" >"$TMP/wrap.ini"
run check "$TMP/wrap.ini"
expect_status 0 "check reads the 36-digit size"
expect_stdout_has "weights      340 B of parameters" "the 36-digit size is 340 bytes"

finish
