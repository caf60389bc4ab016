#!/bin/sh
# pipeplan --help lists every command and every option the program parses,
# the same words as each command's own --help; every command-line mistake
# is one line on stderr saying what is wrong and what was expected, exit 2,
# nothing on stdout.
. "$PIPEPLAN_SRCDIR/tests/lib.sh"
cd "$PIPEPLAN_SRCDIR" || exit 1

run --help
expect_status 0 "--help"
cp "$TMP/out" "$TMP/help"
for word in "pipeplan check FILE" "pipeplan import pipedream GRAPH.txt" "pipeplan gen transformer" \
            "pipeplan solve NETWORK.ini PLATFORM.ini" "pipeplan [NETWORK.ini [PLATFORM.ini]]" \
            --gpus --memory --micro-batches --schedule --layout --weight-factor \
            --blocks --time-limit --work-limit --threads --log --planner --json \
            --micro-batch --output --force --note --version \
            "default 10 for solve, 30 in the explorer" "press ? for its keys"; do
    if grep -qF -- "$word" "$TMP/help"; then ok "--help says '$word'"; else
        not_ok "--help lacks '$word'"; fi
done

# Every long option the commands' sources parse is in --help.
for opt in $(grep -ohE '"--[a-z][a-z-]*' src/main.c src/cmd_*.c src/cli.h | tr -d '"' | grep -vx -e '--x' | sort -u); do
    if grep -qF -- "$opt" "$TMP/help"; then ok "$opt is documented"; else
        not_ok "$opt is parsed but not in --help"; fi
done

# Every long option in --help is documented in the man page and the README.
for opt in $(grep -oE -- '--[a-z][a-z-]*' "$TMP/help" | grep -vx -e '--help' | sort -u); do
    if grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" man/pipeplan.1; then
        ok "man page documents $opt"; else not_ok "man page lacks $opt"; fi
    if grep -qF -- "$opt" README.md; then ok "README mentions $opt"; else
        not_ok "README lacks $opt"; fi
done
# Each default time limit is stated for what it applies to.
if grep -qF "default 10 for" man/pipeplan.1 && grep -qF "30 in the explorer" man/pipeplan.1; then
    ok "man page: solve 10 s, explorer 30 s"; else not_ok "man page: the two default time limits"; fi
if grep -qF "10 s in \`solve\` (30 s in the explorer)" README.md; then
    ok "README: solve 10 s, explorer 30 s"; else not_ok "README: the two default time limits"; fi

# Each command's own help uses the same lines as the top-level help.
same_lines() {   # NAME: every option line of $TMP/out is in the top-level help
    missing=$(grep -E '^  -' "$TMP/out" | grep -v -e '--help ' | while IFS= read -r line; do
        grep -qxF -- "$line" "$TMP/help" || echo "$line"; done)
    if [ -z "$missing" ]; then ok "$1: option lines as in pipeplan --help"; else
        not_ok "$1: lines not in pipeplan --help:"; echo "$missing"; fi
}
run solve --help
expect_status 0 "solve --help"
same_lines "solve --help"
run import --help
expect_status 0 "import --help"
same_lines "import --help"
run gen --help
expect_status 0 "gen --help"
same_lines "gen --help"
run --gpus 2 --help
expect_status 0 "explorer --help"
same_lines "explorer --help"
expect_stdout_has "(default 30)" "explorer --help: its own time limit"
run solve --help
expect_stdout_has "(default 10)" "solve --help: its own time limit"
run check --help
expect_status 0 "check --help"
expect_stdout_has "usage: pipeplan check FILE..." "check --help"

# Every help fits an 80-column terminal.
for cmd in "" check gen import solve sweep; do
    # shellcheck disable=SC2086
    pp $cmd --help >"$TMP/help" 2>&1
    wide=$(awk 'length > 80' "$TMP/help")
    if [ -z "$wide" ]; then ok "${cmd:-pipeplan} --help: no line over 80 columns"; else
        not_ok "${cmd:-pipeplan} --help: lines over 80 columns"; echo "$wide"; fi
done

# Mistakes: exit 2, nothing on stdout, exactly this one line on stderr.
mistake() {   # mistake NAME EXPECTED-STDERR ARGS...
    name=$1 want=$2
    shift 2
    run "$@" </dev/null
    expect_status 2 "$name"
    expect_stdout_empty "$name"
    expect_stderr "$want" "$name: message"
}
net=data/networks/alexnet.ini
plat=data/platforms/dgx-h100.ini
S='(expected pipeplan solve NETWORK.ini PLATFORM.ini [options])'
I='(expected pipeplan import pipedream GRAPH.txt --micro-batch N [-o OUT.ini] [--force])'
H='(see pipeplan --help)'
HS='(see pipeplan solve --help)'
mistake "solve without files" "pipeplan solve: missing NETWORK.ini and PLATFORM.ini $S" solve
mistake "solve with one file" "pipeplan solve: missing PLATFORM.ini after 'a.ini' $S" solve a.ini
mistake "solve with three files" "pipeplan solve: unexpected argument 'c.ini' $S" solve a.ini b.ini c.ini
mistake "solve, unknown option" "pipeplan solve: unknown option '--frob' $HS" solve $net $plat --frob
mistake "solve, option without value" "pipeplan solve: --gpus needs a value $HS" solve $net $plat --gpus
mistake "solve, bad count" "pipeplan solve: bad --threads 'x': not a whole number $HS" solve $net $plat --threads x
mistake "mistyped solve" "pipeplan: 'slove' is neither a command (check, gen, import, solve, sweep) nor a file; did you mean 'solve'?" slove $net $plat
mistake "mistyped check" "pipeplan: 'chek' is neither a command (check, gen, import, solve, sweep) nor a file; did you mean 'check'?" chek $net
mistake "mistyped import" "pipeplan: 'improt' is neither a command (check, gen, import, solve, sweep) nor a file; did you mean 'import'?" improt pipedream
mistake "unknown word" "pipeplan: 'frobnicate' is neither a command (check, gen, import, solve, sweep) nor a file $H" frobnicate
mistake "mistyped sweep" "pipeplan: 'sweeep' is neither a command (check, gen, import, solve, sweep) nor a file; did you mean 'sweep'?" sweeep $net $plat
# --version stands alone and --help takes at most a command's name (that
# command's own help): a word after them was dropped in silence
A='(expected pipeplan'
mistake "--version, a word after it" "pipeplan: unexpected argument 'extra' $A --version alone)" \
    --version extra
mistake "--version, a command after it" "pipeplan: unexpected argument 'solve' $A --version alone)" \
    --version solve
mistake "--version, --help after it" "pipeplan: unexpected argument '--help' $A --version alone)" \
    --version --help
C='check, gen, import, solve or sweep)'
mistake "--help, a word after it" "pipeplan: 'extra' is not a command $A --help alone, or with $C" \
    --help extra
mistake "-h, a word after it" "pipeplan: 'extra' is not a command $A -h alone, or with $C" -h extra
mistake "help, a word after it" "pipeplan: 'extra' is not a command $A help alone, or with $C" \
    help extra
mistake "--help solve, a word after it" "pipeplan: unexpected argument 'x' $A --help solve alone)" \
    --help solve x
for c in check gen import solve sweep; do
    for h in --help -h help; do
        run $h $c </dev/null
        expect_status 0 "$h $c"
        cp "$TMP/out" "$TMP/own"
        run $c --help </dev/null
        if cmp -s "$TMP/out" "$TMP/own" && [ -s "$TMP/own" ]; then
            ok "$h $c is $c's own help"
        else
            not_ok "$h $c is $c's own help"
        fi
    done
done
mistake "missing network file" "nosuch.ini: cannot open: No such file or directory" nosuch.ini
mistake "missing file in a directory" "data/nosuch: cannot open: No such file or directory" data/nosuch
mistake "explorer, unknown option" "pipeplan: unknown option '--frob' $H" --frob
mistake "explorer, unknown option after files" "pipeplan: unknown option '--frob' $H" $net $plat --frob
mistake "explorer, three files" \
    "pipeplan: unexpected argument 'c.ini' (expected pipeplan [NETWORK.ini [PLATFORM.ini]] [options])" \
    $net $plat c.ini
mistake "check without files" "pipeplan check: missing FILE (expected pipeplan check FILE...)" check
mistake "check, unknown option" "pipeplan check: unknown option '--frob' (see pipeplan check --help)" check --frob $net
mistake "import without arguments" "pipeplan import: missing the profile format $I" import
mistake "import, unknown format" "pipeplan import: unknown profile format 'onnx' (expected 'pipedream')" \
    import onnx x.txt --micro-batch 1
mistake "import without graph" "pipeplan import: missing GRAPH.txt, PipeDream's profile $I" \
    import pipedream --micro-batch 1
mistake "import without --micro-batch" \
    "pipeplan import: missing --micro-batch N (expected the samples per batch the profile was measured at)" \
    import pipedream x.txt
mistake "import, bad --micro-batch" \
    "pipeplan import: bad --micro-batch 'lots': not a whole number (expected a count of samples)" \
    import pipedream x.txt --micro-batch lots
# import's mistakes point at its own help, as gen's and sweep's do
HI='(see pipeplan import --help)'
mistake "import, unknown option" "pipeplan import: unknown option '--bogus' $HI" \
    import pipedream x.txt --micro-batch 1 --bogus
mistake "import, --note without value" "pipeplan import: --note needs a value $HI" \
    import pipedream x.txt --micro-batch 1 --note
mistake "import, -o without value" "pipeplan import: -o needs a value $HI" \
    import pipedream x.txt --micro-batch 1 -o
# a flag given again is "given twice", its value there or not, as in solve
mistake "import, --micro-batch again without value" \
    "pipeplan import: --micro-batch given twice (expected it once)" \
    import pipedream x.txt --micro-batch 1 --micro-batch
mistake "import, extra argument" "pipeplan import: unexpected argument 'y.txt' $I" \
    import pipedream x.txt y.txt --micro-batch 1
mistake "time limit over a day" \
    "pipeplan solve: bad --time-limit '100000': out of range (expected seconds, more than 0 and at most 86400)" \
    solve $net $plat --time-limit 100000
if pp --help | grep -qF "Options of sweep (the ILP options above apply too, but --log)"; then
    ok "--help: sweep takes no --log"; else not_ok "--help: sweep and --log"; fi
# An option word where a value belongs is a forgotten value: said so, and
# no file named after the option ("-o --json" wrote the table to --json).
V='(a value that starts with -- is written'
mistake "--gpus, its value forgotten" \
    "pipeplan solve: --gpus needs a value, not the option '--memory' $V --gpus=--memory)" \
    solve $net $plat --gpus --memory 16GiB
mistake "-o, its file forgotten" "pipeplan solve: -o needs a value, not the option '--json' $V -o=--json)" \
    solve $net $plat -o --json
mistake "--log, its file forgotten" \
    "pipeplan solve: --log needs a value, not the option '--gpus' $V --log=--gpus)" solve $net $plat --log --gpus 4
mistake "sweep --gpus, its value forgotten" \
    "pipeplan sweep: --gpus needs a value, not the option '--memory' $V --gpus=--memory)" \
    sweep $net $plat --gpus --memory 4GB -o "$TMP/s.csv"
mistake "gen -o, its file forgotten" \
    "pipeplan gen: -o needs a value, not the option '--force' $V -o=--force)" \
    gen transformer --preset llama3-8b --gpu H100 -o --force
mistake "import -o, its file forgotten" \
    "pipeplan import: -o needs a value, not the option '--force' $V -o=--force)" \
    import pipedream data/pipedream/alexnet/graph.txt --micro-batch 8 -o --force
# ... and the '=' form the message offers is taken by every command
run import pipedream data/pipedream/alexnet/graph.txt --micro-batch=8 "--note=--x" "-o=$TMP/eq.ini"
expect_status 0 "import takes --note=, -o= and --micro-batch="
if grep -q '^; --x$' "$TMP/eq.ini"; then ok "import --note=--x: the note is --x"; else
    not_ok "import --note=--x: $(grep -c . "$TMP/eq.ini") lines"; fi
run import pipedream data/pipedream/alexnet/graph.txt --micro-batch 8 "--output=$TMP/eq.ini" --force
expect_status 0 "import takes --output="
mistake "import -o and --output" "pipeplan import: -o/--output given twice (expected it once)" \
    import pipedream data/pipedream/alexnet/graph.txt --micro-batch 8 -o "$TMP/a.ini" "--output=$TMP/b.ini"
for f in --json --force --gpus; do
    if [ -e "$f" ] || [ -e "$TMP/$f" ]; then not_ok "a file named $f was made"; rm -f -- "$f"; else
        ok "no file named $f"; fi
done

# A word that names an existing file is the explorer's network file, even
# one that looks like a command's typo.
cp "$net" "$TMP/slove"
status=0
(cd "$TMP" && $PIPEPLAN_WRAP "$PIPEPLAN" slove </dev/null >"$TMP/out" 2>"$TMP/err") || status=$?
expect_status 2 "an existing file named like a typo"
expect_stderr "pipeplan: the explorer needs a terminal; use 'pipeplan solve NETWORK.ini PLATFORM.ini' for scripts" \
    "an existing file is the network file"

# Every key solve --json prints is in the man page's schema: a row with a
# message and blocks, and a problem where nothing fits (the smallest cap).
schema=$(sed -n '/^{"problem"/,/^\.fi/p' man/pipeplan.1)
# (each case: the exit status wanted, 1 when nothing fits, then the arguments)
for args in "0 --split 0,10,20,30" "1 --memory 2GiB --planner dp,uniform"; do
    # shellcheck disable=SC2086
    run solve data/networks/vgg16.ini data/platforms/v100-16gb-pcie-4.ini --work-limit 20 --json ${args#* }
    expect_status "${args%% *}" "solve --json ${args#* }"
    for key in $(grep -oE '"[a-z_]+":' "$TMP/out" | tr -d '":' | sort -u); do
        if printf '%s\n' "$schema" | grep -qF "\"$key\""; then ok "man page's JSON schema has $key"; else
            not_ok "man page's JSON schema lacks $key (${args#* })"; fi
    done
done

finish
