#!/bin/sh
# pipeplan import: data/networks is reproduced byte for byte from the
# PipeDream profiles; the output is atomic and never clobbered silently.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

mkdir "$TMP/nets"
# regenerate.sh runs "$1": a shim runs our binary, wrapped as the harness says
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$PIPEPLAN_WRAP" "$PIPEPLAN" >"$TMP/pp"
chmod +x "$TMP/pp"
status=0
data/networks/regenerate.sh "$TMP/pp" "$TMP/nets" >"$TMP/out" 2>"$TMP/err" || status=$?
if [ "$status" -ne 0 ]; then
    cat "$TMP/err"
fi
expect_status 0 "regenerate.sh runs the importer"
for f in alexnet vgg16 resnet50 gnmt; do
    if cmp -s "data/networks/$f.ini" "$TMP/nets/$f.ini"; then
        ok "data/networks/$f.ini reproduced byte for byte"
    else
        not_ok "data/networks/$f.ini differs from a fresh import"
        diff "data/networks/$f.ini" "$TMP/nets/$f.ini" | head -10
    fi
done

# An existing output is not replaced without --force, and stays intact.
echo "precious" >"$TMP/keep.ini"
run import pipedream data/pipedream/alexnet/graph.txt --micro-batch 256 -o "$TMP/keep.ini"
expect_status 2 "existing output is refused"
if [ "$(cat "$TMP/keep.ini")" = "precious" ]; then ok "existing output untouched"; else
    not_ok "existing output was changed"; fi
expect_stderr "pipeplan import: $TMP/keep.ini: already exists (use --force to overwrite)" \
    "refusal names the file"

# A bad profile leaves no output file and no temporary behind.
printf 'node1 -- Input -- forward_compute_time=1.0\n' >"$TMP/bad.txt"
run import pipedream "$TMP/bad.txt" --micro-batch 1 -o "$TMP/new.ini"
expect_status 2 "bad profile is rejected"
expect_stdout_empty "bad profile"
if ls "$TMP" | grep -q '^new\.ini'; then not_ok "partial output left behind"; else
    ok "no partial output file"; fi

# Writing into a directory that does not exist fails cleanly.
run import pipedream data/pipedream/alexnet/graph.txt --micro-batch 256 -o "$TMP/no/such/dir.ini"
expect_status 2 "unwritable output"
expect_stdout_empty "unwritable output"

# A real profile imports with nothing to say; the same cut before its last
# line (an edge lost) still imports, and the node left without its input
# is named: that cut misses the output it needed.
run import pipedream data/pipedream/resnet50/graph.txt --micro-batch 128
expect_status 0 "resnet50's whole profile"
expect_stderr "" "a whole profile: nothing said"
sed '$d' data/pipedream/resnet50/graph.txt >"$TMP/cut.txt"
line=$(grep -n '^node170 ' "$TMP/cut.txt" | cut -d: -f1)
run import pipedream "$TMP/cut.txt" --micro-batch 128
expect_status 0 "a profile cut before its last edge still imports"
expect_stderr "$TMP/cut.txt:$line: node170-Conv2d has no input edge (expected only Input nodes to start a graph: a file cut short?)" \
    "a node that works with no input edge is named"

run import pipedream data/pipedream/alexnet/graph.txt --micro-batch 256 --force
expect_status 2 "--force without -o"
expect_stderr "pipeplan import: --force without -o FILE (expected -o FILE to overwrite)" \
    "--force without -o: said, as solve says it"

finish
