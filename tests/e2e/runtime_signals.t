#!/bin/bash
# tests/e2e/runtime_signals.t -- fatal signals with the runtime: SIGTERM
# sent 40 times to a 2-thread program that allocates without pause
# (tests/runtime/rt_sigterm) never hangs (the handler does only
# async-signal-safe work) and ends the program exactly as without the
# runtime (killed by SIGTERM), with a readable profile; a second signal
# during the handler's work ends it as without the runtime too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_sigterm" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
cd "$T" || exit 1

# run_once DIR DELAY: start, wait for "ready", sleep DELAY, SIGTERM; prints the exit status
run_once() {
    local dir=$1 delay=$2 pid st
    rm -rf "$dir"
    AUTOANALYZER_OUTPUT="$dir" timeout -s KILL 20 "$B/rt_sigterm" >"$dir.out" 2>"$dir.err" &
    pid=$!
    for _ in $(seq 200); do grep -q ready "$dir.out" 2>/dev/null && break; sleep 0.01; done
    sleep "$delay"
    pkill -TERM -P "$pid" rt_sigterm 2>/dev/null
    wait "$pid"; st=$?
    echo "$st"
}

hung=0 other=0 unreadable=0
for i in $(seq 40); do
    st=$(run_once "$T/r$i" "0.0$((i % 10))")
    case "$st" in
    143) ;;                       # killed by SIGTERM, as without the runtime
    137) hung=$((hung + 1)) ;;    # timeout had to SIGKILL it
    *) other=$((other + 1)); echo "# try $i: exit status $st" ;;
    esac
    "$RT_DUMP" "$T/r$i/rank-0.xml" >/dev/null 2>&1 || unreadable=$((unreadable + 1))
done
is "$hung" 0 "40 SIGTERMs on a 2-thread program in malloc: none hangs"
is "$other" 0 "every try ends killed by SIGTERM (status 143), as without the runtime"
is "$unreadable" 0 "every try leaves a readable profile"
"$RT_DUMP" "$T/r1/rank-0.xml" >"$T/r1.dump" 2>&1
like "$(rt_env "$T/r1.dump" incomplete)" '^signal 15 \(Terminated\)$' "the profile says why it is incomplete"
is "$(rt_attr "$T/r1.dump" 0 threads)" 2 "both threads in the profile"
ok "the busy region has time" rt_num "$(rt_val "$T/r1.dump" ROOT/main/churn/loop@35 wall 0 0) > 0"
ls "$T"/r*/ | grep -q '\.tmp' && tmpleft=1 || tmpleft=0
is "$tmpleft" 0 "no temporary file left"

# plain: the same program without measurement ends the same way
AUTOANALYZER_DISABLE=1 run_once "$T/plain" 0.05 > "$T/plain.st"
is "$(cat "$T/plain.st")" 143 "without measurement: status 143 too"
done_testing
