#!/bin/bash
# tests/e2e/instrument_torture.t -- the instrumenter's torture suite
# (tests/instrument/torture/*.c, one tricky construct each).  For every
# file: build the original with -Wall -Werror and run it; instrument it in
# every mode (--mode all); build that with gcc -Wall -Werror against the
# checking probe (tests/instrument/checkprobe.c, which aborts on any
# mismatched region exit) and check with clang that no jump enters a
# cleanup scope; run it and compare stdout and exit status; compare the
# enter counts named by the file's EXPECT lines and the diagnostics named by
# its WARN lines; check that a broad warning set (-Wshadow -Wconversion
# -Wpedantic -Wunused-macros ...) finds no new kind of warning.  The default
# mode is also built (-fsyntax-only).
# Header lines understood: FLAGS, CLANGFLAGS, EXPECT: NAME COUNT, WARN: ERE,
# MPI: NP (build with mpicc, run under mpirun -np NP).
. "$(dirname "$0")/lib.sh"

D="$TOP/tests/instrument/torture"
command -v gcc >/dev/null || skip_all "no gcc"
gcc -c -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/checkprobe.o" || skip_all "checkprobe does not build"
have_clang=0; command -v clang >/dev/null && have_clang=1
have_mpi=0; command -v mpicc >/dev/null && command -v mpirun >/dev/null && have_mpi=1

hdr() { sed -n "s|^[/ *]*$1: \\(.*\\)\$|\\1|p" "$2" | sed 's| *\*/$||'; }

for f in "$D"/*.c; do
    n=$(basename "$f" .c)
    flags=$(hdr FLAGS "$f" | head -1)
    cflags=$(hdr CLANGFLAGS "$f" | head -1)
    np=$(hdr MPI "$f" | head -1)
    cc=gcc; run=""
    if [ -n "$np" ]; then
        if [ $have_mpi = 0 ]; then echo "ok - # SKIP $n: no MPI"; continue; fi
        cc=mpicc; run="mpirun -np $np"; flags="$flags $(mpicc --showme:compile)"
    fi
    # shellcheck disable=SC2086
    if ! $cc -Wall -Werror $flags -I"$D" "$f" -o "$T/$n.orig" -lm; then
        _tap_result 1 "$n: original builds"; continue
    fi
    $run "$T/$n.orig" >"$T/$n.orig.out" 2>/dev/null; st_orig=$?
    # shellcheck disable=SC2086
    if ! "$AA" instrument --mode all "$f" -o "$T/$n.all.c" -- $flags -I"$D" 2>"$T/$n.warn"; then
        _tap_result 1 "$n: instruments"; sed 's/^/#   /' "$T/$n.warn"; continue
    fi
    # shellcheck disable=SC2086
    if ! $cc -Wall -Werror $flags -iquote "$D" "$T/$n.all.c" "$T/checkprobe.o" -o "$T/$n.inst" -lm -lpthread 2>"$T/$n.cc"; then
        _tap_result 1 "$n: instrumented builds with -Wall -Werror"; sed 's/^/#   /' "$T/$n.cc" | head -20; continue
    fi
    _tap_result 0 "$n: instrumented builds with -Wall -Werror"
    if [ $have_clang = 1 ] && [ -z "$np" ]; then
        # shellcheck disable=SC2086
        if clang -fsyntax-only -w $flags $cflags -iquote "$D" "$T/$n.all.c" 2>"$T/$n.clang"; then
            _tap_result 0 "$n: clang accepts it (no jump into a region scope)"
        else
            _tap_result 1 "$n: clang accepts it"; sed 's/^/#   /' "$T/$n.clang" | head -10
        fi
    fi
    rm -rf "$T/chk"; mkdir "$T/chk"
    AA_CHECK_DIR="$T/chk" $run "$T/$n.inst" >"$T/$n.inst.out" 2>"$T/$n.inst.err"; st=$?
    is "$st" "$st_orig" "$n: same exit status"
    if cmp -s "$T/$n.orig.out" "$T/$n.inst.out"; then _tap_result 0 "$n: same output"; else
        _tap_result 1 "$n: same output"; diff "$T/$n.orig.out" "$T/$n.inst.out" | sed 's/^/#   /' | head; fi
    if grep -q MISMATCH "$T/$n.inst.err"; then
        _tap_result 1 "$n: regions close properly"; sed 's/^/#   /' "$T/$n.inst.err" | head -5
    else
        _tap_result 0 "$n: regions close properly"
    fi
    nchk=$(ls "$T/chk" | wc -l)
    [ "$nchk" -ge 1 ] || _tap_result 1 "$n: probe report written"
    hdr EXPECT "$f" | while read -r name count; do
        bad=0
        for c in "$T"/chk/check.*; do
            got=$(awk -v n="$name" '$2 == n { print $3; exit }' "$c")
            [ "$got" = "$count" ] || { bad=1; echo "#   $c: $name entered ${got:-0} times, want $count"; }
        done
        [ $bad = 0 ] && echo "ok - $n: $name entered $count times" || echo "not ok - $n: $name entered $count times"
    done > "$T/$n.expect"
    while read -r line; do
        case "$line" in
            ok*) _tap_result 0 "${line#ok - }" ;;
            not*) _tap_result 1 "${line#not ok - }" ;;
            *) echo "$line" ;;
        esac
    done < "$T/$n.expect"
    hdr WARN "$f" | while read -r re; do
        if grep -Eq -- "$re" "$T/$n.warn"; then echo "ok - $n: diagnostic /$re/"; else echo "not ok - $n: diagnostic /$re/"; fi
    done > "$T/$n.w2"
    while read -r line; do
        case "$line" in ok*) _tap_result 0 "${line#ok - }" ;; *) _tap_result 1 "${line#not ok - }"; sed 's/^/#   /' "$T/$n.warn" | head -5 ;; esac
    done < "$T/$n.w2"
    # warnings in GCC's format: file:line:col: warning: autoanalyzer: ...
    if [ -s "$T/$n.warn" ]; then
        like "$(head -1 "$T/$n.warn")" "^[^ ]*$n\\.c:[0-9]+:[0-9]+: warning: autoanalyzer: " \
             "$n: diagnostics say file:line:col: warning: autoanalyzer:"
    fi
    # no new warning kinds under a broad warning set
    if [ -z "$np" ]; then
        W="-Wall -Wextra -Wshadow -Wdeclaration-after-statement -Wmissing-prototypes -Wstrict-prototypes
           -Wredundant-decls -Wnested-externs -Wcast-qual -Wconversion -Wpedantic -Wmissing-declarations
           -Wold-style-definition -Wjump-misses-init -Wunused-macros -Wvla -Wc++-compat"
        # shellcheck disable=SC2086
        wo=$(gcc -fsyntax-only $W $flags -I"$D" "$f" 2>&1 | grep -o '\[-W[a-z0-9=+-]*\]' | sort -u)
        # shellcheck disable=SC2086
        wi=$(gcc -fsyntax-only $W $flags -iquote "$D" "$T/$n.all.c" 2>&1 | grep -o '\[-W[a-z0-9=+-]*\]' | sort -u)
        is "$wi" "$wo" "$n: no new kind of warning (-Wshadow -Wconversion -Wpedantic -Wunused-macros ...)"
    fi
    # default mode builds too
    # shellcheck disable=SC2086
    if "$AA" instrument -q "$f" -o "$T/$n.def.c" -- $flags -I"$D" &&
       $cc -fsyntax-only -Wall -Werror $flags -iquote "$D" "$T/$n.def.c"; then
        _tap_result 0 "$n: default mode builds"
    else
        _tap_result 1 "$n: default mode builds"
    fi
done
done_testing
