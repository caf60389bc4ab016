#!/bin/sh
# A cmocka test that fails half-way reports its failure and nothing else:
# the fixture's teardown frees its objects, so neither LeakSanitizer (the
# ASan build) nor valgrind adds leak reports to the failure.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
build=$(dirname "$(dirname "$PIPEPLAN")")
case "$PIPEPLAN" in
    *_asan) bin="$build/tests/asan/test_ilp.asan" ;;
    *) bin="$build/tests/test_ilp" ;;
esac
status=0
PIPEPLAN_DELIBERATE_FAILURE=1 $PIPEPLAN_WRAP "$bin" deliberate_failure_frees_its_objects \
    >"$TMP/out" 2>&1 || status=$?
if [ "$status" -ne 0 ] && grep -q "deliberate failure after a solve (period 6)" "$TMP/out"; then
    ok "the failure is reported (exit $status)"
else
    not_ok "no failure reported (exit $status)"; cat "$TMP/out"
fi
if grep -q "LeakSanitizer\|definitely lost\|indirectly lost" "$TMP/out"; then
    not_ok "leaks reported with the failure"; grep -A5 "LeakSanitizer\|lost" "$TMP/out" | head -20
else
    ok "no leak reported with the failure"
fi
finish
