# Helpers for the explorer's tests and benchmark, sourced after lib.sh: a
# private tmux server, pipeplan started in a session of a given size, the
# screen polled against a deadline (never a bare sleep), and the figures
# `pipeplan solve --json` gives, written the way the screen writes them.
command -v tmux >/dev/null || { echo "tmux is needed (apt-get install tmux)"; exit 1; }
command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)"; exit 1; }

SOCK="pipeplan-test-$$"
# lib.sh's own clean-up, plus the tmux server (whatever runs in it, and
# its socket), also when the test itself is interrupted
tui_cleanup() {
    tmux -L "$SOCK" kill-server >/dev/null 2>&1
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
    rm -rf "$TMP"
}
trap tui_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM
TM() { tmux -L "$SOCK" "$@"; }

# The solver runs in a forked child; under valgrind its report at exit
# would land on the explorer's screen. valgrind's own reports go to a file
# per process, never onto the screen under test: finish() fails the test
# on any of them.
case $PIPEPLAN_WRAP in
    valgrind*) PIPEPLAN_WRAP="$PIPEPLAN_WRAP --log-file=$TMP/valgrind.%p" ;;
esac

# Before finish's count, once every explorer started has exited:
# valgrind's reports (written at exit) count as failures.
finish_extra() {
    # the globs below must expand even in a script that ran set -f
    case $- in *f*) _noglob=1 ;; *) _noglob=0 ;; esac
    set +f
    for _pid in "$TMP"/*.pid; do
        [ -s "$_pid" ] || continue
        _p=$(cat "$_pid")
        _end=$(($(date +%s) + DEADLINE))
        while kill -0 "$_p" 2>/dev/null && [ "$(date +%s)" -lt "$_end" ]; do sleep 0.2; done
    done
    for _vg in "$TMP"/valgrind.*; do
        [ -s "$_vg" ] || continue
        not_ok "valgrind: ${_vg##*/}"
        sed 's/^/  | /' "$_vg" | head -n 60
    done
    [ $_noglob -eq 1 ] && set -f
    return 0
}

# Seconds to wait for a screen; a loaded 2-core machine or valgrind is slow.
DEADLINE=${PIPEPLAN_TUI_DEADLINE:-60}
[ -n "$PIPEPLAN_WRAP" ] && DEADLINE=${PIPEPLAN_TUI_DEADLINE:-400}

# One shell word, quoted for a script.
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# tui_start NAME COLS ROWS [VAR=VALUE...] -- [ARG...]: run pipeplan ARGS in
# a new session NAME. The pane then records the exit status ("EXITED:N"),
# saves `stty -a` to $TMP/NAME.stty and prints SHELL-OK, so a test sees
# what the terminal is like once pipeplan is gone. $TMP/NAME.pid holds
# pipeplan's pid.
tui_start() {
    _name=$1 _cols=$2 _rows=$3
    shift 3
    _env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL="
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        _env="$_env $(shq "$1")"
        shift
    done
    [ "${1:-}" = "--" ] && shift
    _args=""
    for _a in "$@"; do _args="$_args $(shq "$_a")"; done
    rm -f "$TMP/$_name.pid" "$TMP/$_name.stty"
    cat >"$TMP/$_name.run.sh" <<EOF
# Ctrl-C reaches the whole pane: this shell must outlive it (a handler,
# not an ignore, so pipeplan starts with the default)
trap : INT
cd $(shq "$TMP") || exit 1
env $_env sh -c 'echo \$\$ >"\$0"; exec "\$@"' $(shq "$TMP/$_name.pid") $PIPEPLAN_WRAP $(shq "$PIPEPLAN") $_args
echo "EXITED:\$?"
stty -a >$(shq "$TMP/$_name.stty") 2>&1
echo SHELL-OK
exec sleep 3600
EOF
    TM -f /dev/null new-session -d -s "$_name" -x "$_cols" -y "$_rows" "sh $(shq "$TMP/$_name.run.sh")" \; \
        set-option -g status off
}

screen() { TM capture-pane -p -t "$1" 2>/dev/null; }

# Two captures show the same frame: equal but for the solver's clock
# ("running 257.8 s" ticks every tenth of a second; on a loaded machine a
# capture takes longer than that, and no two would ever be equal).
same_frame() {
    [ "$(sed -E 's/running [0-9]+(\.[0-9]+)? s/running # s/g' "$1")" = \
      "$(sed -E 's/running [0-9]+(\.[0-9]+)? s/running # s/g' "$2")" ]
}

# wait_screen NAME ERE... : poll until one capture matches every ERE and
# the next capture is the same frame (tmux can be caught in the middle of a
# frame: a line half rewritten is not what the explorer shows).
# Returns 1 at the deadline; the last capture stays in $TMP/last.
wait_screen() {
    _name=$1
    shift
    _end=$(($(date +%s) + DEADLINE))
    while :; do
        screen "$_name" >"$TMP/last"
        _all=1
        for _re in "$@"; do
            grep -Eq -- "$_re" "$TMP/last" || { _all=0; break; }
        done
        if [ $_all -eq 1 ]; then
            screen "$_name" >"$TMP/last.again"
            same_frame "$TMP/last" "$TMP/last.again" && return 0
        fi
        [ "$(date +%s)" -ge "$_end" ] && return 1
        sleep 0.1
    done
}

# wait_file FILE: poll until FILE exists and is not empty.
wait_file() {
    _end=$(($(date +%s) + DEADLINE))
    while [ ! -s "$1" ]; do
        [ "$(date +%s)" -ge "$_end" ] && return 1
        sleep 0.1
    done
}

keys() { _n=$1; shift; TM send-keys -t "$_n" "$@"; }
keys_literal() { TM send-keys -t "$1" -l -- "$2"; }

show_last() {
    echo "  --- screen ---"
    sed 's/^/  | /' "$TMP/last"
    [ $# -gt 0 ] && { echo "  --- wanted ---"; printf '  %s\n' "$@"; }
}

# expect_screen NAME DESCRIPTION ERE...: ok when the screen comes to match.
expect_screen() {
    _n=$1 _d=$2
    shift 2
    if wait_screen "$_n" "$@"; then ok "$_d"; else not_ok "$_d"; show_last "$@"; fi
}

# plan_res NETWORK PLATFORM [SOLVE FLAGS...]: one ERE per baseline row, in
# $RES (newline-separated), each the row the screen must show: the
# planner's title, then period, iteration, samples/s and fit exactly as
# the explorer writes them (units_format_time / units_format_size).
plan_res() {
    _st=0
    pp solve "$@" --planner dp,pipedream,time,parameters,uniform --json >"$TMP/solve.json" 2>"$TMP/solve.err" || _st=$?
    if [ "$_st" -gt 1 ]; then
        echo "  solve $* failed: $(cat "$TMP/solve.err")"
        RES="solve-failed"
        return 1
    fi
    RES=$(jq -r '.plans[] | [.planner, .period_ms, .iteration_ms, .throughput,
                            (if .fits then 1 else 0 end), .peak_memory] | @tsv' "$TMP/solve.json" |
        LC_ALL=C awk -F '\t' '
        function ftime(ms,  a) {
            a = ms < 0 ? -ms : ms
            if (a < 1 && a > 0) return sprintf("%.0f us", ms * 1e3)
            if (a < 10) return sprintf("%.2f ms", ms)
            if (a < 1000) return sprintf("%.1f ms", ms)
            return sprintf("%.2f s", ms / 1e3)
        }
        function fsize(b,  k, v) {
            split("B KiB MiB GiB TiB PiB", u, " ")
            k = 1; v = b
            while ((v >= 1024 || v <= -1024) && k < 6) { v /= 1024; k++ }
            if (k == 1) return sprintf("%.0f B", v)
            if (v < 10 && v > -10) return sprintf("%.2f %s", v, u[k])
            if (v < 100 && v > -100) return sprintf("%.1f %s", v, u[k])
            return sprintf("%.0f %s", v, u[k])
        }
        # what a plan needs is rounded up (units_format_size_up)
        function fsize_up(b,  k, v, d, x, up) {
            k = 0; v = b
            while (v >= 1024 && k < 5) { v /= 1024; k++ }
            d = k == 0 ? 1 : v < 10 ? 100 : v < 100 ? 10 : 1
            x = v * d
            up = (x > int(x) ? int(x) + 1 : int(x)) / d
            return fsize(up * 1024 ^ k)
        }
        function re(s) { gsub(/\./, "\\.", s); gsub(/ /, " +", s); return s }
        BEGIN { t["dp"] = "mem-aware DP"; t["pipedream"] = "PipeDream"; t["time"] = "time-balanced"
                t["parameters"] = "param-balanced"; t["uniform"] = "uniform" }
        {
            fit = $5 == 1 ? "fits" : "needs " fsize_up($6)
            printf "%s +%s +%s +%s +%s\n", re(t[$1]), re(ftime($2)), re(ftime($3)),
                   re(sprintf("%.1f", $4)), re(fit)
        }')
}

# The rows of $RES as arguments for wait_screen.
res_args() { printf '%s\n' "$RES"; }
