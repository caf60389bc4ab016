# Shared helpers for the shell tests. PIPEPLAN (the binary), PIPEPLAN_SRCDIR
# (the source tree) and optionally PIPEPLAN_WRAP (e.g. valgrind) come from
# the test harness.
set -u
: "${PIPEPLAN:?PIPEPLAN must name the binary under test}"
: "${PIPEPLAN_SRCDIR:=.}"
: "${PIPEPLAN_WRAP:=}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pipeplan-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

pp() { $PIPEPLAN_WRAP "$PIPEPLAN" "$@"; }

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }

# expect_status WANT NAME: compare $status with WANT.
expect_status() {
    if [ "$status" -eq "$1" ]; then ok "$2 (exit $1)"; else not_ok "$2: exit $status, wanted $1"; fi
}

# run CMD...: capture stdout, stderr and status of pipeplan.
run() {
    status=0
    pp "$@" >"$TMP/out" 2>"$TMP/err" || status=$?
}

expect_stderr() {
    if [ "$(cat "$TMP/err")" = "$1" ]; then ok "$2"; else
        not_ok "$2"; echo "  wanted: $1"; echo "  got:    $(cat "$TMP/err")"; fi
}

expect_stdout_empty() {
    if [ ! -s "$TMP/out" ]; then ok "$1: nothing on stdout"; else
        not_ok "$1: stdout not empty"; head -5 "$TMP/out"; fi
}

expect_stdout_has() {
    if grep -qF -- "$1" "$TMP/out"; then ok "$2"; else
        not_ok "$2: '$1' not in stdout"; head -20 "$TMP/out"; fi
}

expect_stdout_lacks() {
    if ! grep -qF -- "$1" "$TMP/out"; then ok "$2"; else
        not_ok "$2: '$1' in stdout"; grep -F -- "$1" "$TMP/out" | head -5; fi
}

# A test's own checks to run last (tui_lib.sh has some).
finish_extra() { :; }

finish() {
    finish_extra
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
