#!/bin/bash
# tests/e2e/instrument_fortran.t -- the Fortran torture suite
# (tests/instrument/fortran/*.f, *.F, *.f90: one tricky construct each, in
# fixed and free form), in the shape of instrument_torture.t: build the
# original with gfortran and run it; instrument it (--mode all); build that
# against the checking probe (tests/instrument/checkprobe.c with the
# Fortran entry points of checkprobe_f.c, which abort on any mismatched
# region exit); run it and compare stdout and exit status; compare the enter
# counts of the file's EXPECT lines and the diagnostics of its WARN lines;
# check that every inserted line keeps fixed-form columns (1-72) or the
# free-form line length (132) and that every user line keeps its number.
# Then bad input: a file flang cannot parse is exit 3 with file:line and no
# output written.  Header lines: FLAGS, EXPECT: NAME COUNT, WARN: ERE,
# MPI: NP (build with mpif90, run under mpirun -np NP), DEFMAP: NAME REASON
# (the default mode's region map lists NAME left out with that reason, or
# instrumented when REASON is the word instrumented: the size rules).
. "$(dirname "$0")/lib.sh"

D="$TOP/tests/instrument/fortran"
command -v gfortran >/dev/null || skip_all "no gfortran"
ok "the Fortran parser bridge bin/aa-fparse is built" test -x "$AA_BUILD/bin/aa-fparse"
gcc -c -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/checkprobe.o" &&
    gcc -c -I"$TOP" "$TOP/tests/instrument/checkprobe_f.c" -o "$T/checkprobe_f.o" ||
    skip_all "checkprobe does not build"
have_mpi=0; command -v mpif90 >/dev/null && command -v mpirun >/dev/null && have_mpi=1

hdr() { sed -n "s/^[cC!*] *$1: \\(.*\\)\$/\\1/p" "$2"; }

for f in "$D"/*.f "$D"/*.F "$D"/*.f90; do
    [ -e "$f" ] || continue
    b=$(basename "$f"); n=${b%.*}; ext=${b##*.}
    flags=$(hdr FLAGS "$f" | head -1)
    np=$(hdr MPI "$f" | head -1)
    fc=gfortran; run=""
    if [ -n "$np" ]; then
        if [ $have_mpi = 0 ]; then echo "ok - # SKIP $n: no MPI"; continue; fi
        fc=mpif90; run="mpirun --oversubscribe -np $np"
    fi
    mkdir -p "$T/$n.o" "$T/$n.i"
    # shellcheck disable=SC2086
    if ! (cd "$T/$n.o" && $fc $flags -I"$D" "$f" -o "$T/$n.orig") >"$T/$n.occ" 2>&1; then
        _tap_result 1 "$n: original builds"; sed 's/^/#   /' "$T/$n.occ" | head; continue
    fi
    (cd "$T/$n.o" && $run "$T/$n.orig" >"$T/$n.orig.out" 2>/dev/null); st_orig=$?
    # shellcheck disable=SC2086
    if ! "$AA" instrument --mode all --compiler $fc "$f" -o "$T/$n.i/$b" -- $flags -I"$D" 2>"$T/$n.warn"; then
        _tap_result 1 "$n: instruments"; sed 's/^/#   /' "$T/$n.warn"; continue
    fi
    _tap_result 0 "$n: instruments"
    # shellcheck disable=SC2086
    if ! (cd "$T/$n.i" && $fc $flags -I"$D" "$T/$n.i/$b" "$T/checkprobe_f.o" "$T/checkprobe.o" \
            -o "$T/$n.inst" -lpthread) >"$T/$n.icc" 2>&1; then
        _tap_result 1 "$n: instrumented builds"; sed 's/^/#   /' "$T/$n.icc" | head -20; continue
    fi
    _tap_result 0 "$n: instrumented builds"
    rm -rf "$T/chk"; mkdir "$T/chk"
    (cd "$T/$n.i" && AA_CHECK_DIR="$T/chk" $run "$T/$n.inst" >"$T/$n.inst.out" 2>"$T/$n.inst.err"); st=$?
    is "$st" "$st_orig" "$n: same exit status"
    if cmp -s "$T/$n.orig.out" "$T/$n.inst.out"; then _tap_result 0 "$n: same output"; else
        _tap_result 1 "$n: same output"; diff "$T/$n.orig.out" "$T/$n.inst.out" | sed 's/^/#   /' | head; fi
    if grep -q MISMATCH "$T/$n.inst.err"; then
        _tap_result 1 "$n: regions close properly"; sed 's/^/#   /' "$T/$n.inst.err" | head -5
    else
        _tap_result 0 "$n: regions close properly"
    fi
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
    # inserted lines keep the form's columns
    case "$ext" in f|F) max=72 ;; *) max=132 ;; esac
    long=$(grep -n 'aa_runtime_\|^ *end if$\|then$' "$T/$n.i/$b" | awk -F: -v m="$max" '{ l = $0; sub(/^[0-9]+:/, "", l); if (length(l) > m) print $1 }' | head -3)
    is "$long" "" "$n: inserted lines fit in $max columns"
    # every user line keeps its number: the line markers say where each
    # original line is, and the text there is the original's
    bad=$(awk -v orig="$f" '
        BEGIN { while ((getline l < orig) > 0) o[++n] = l }
        /^# [0-9]+ "/ { ln = $2; split_ = 0; next }
        NR == 1 { next }
        split_ { if ($0 ~ /^ *end if/) split_ = 0; next }
        /aa_runtime_/ || /^     &'"'"'/ { next }
        /then$/ && o[ln] != $0 { split_ = 1; next }
        { if ((ln in o) && o[ln] != $0 && index(o[ln], substr($0, 7)) == 0) { print ln; exit } ln++ }' "$T/$n.i/$b")
    is "$bad" "" "$n: user lines keep their numbers"
    # the default mode builds too
    # shellcheck disable=SC2086
    if "$AA" instrument -q --compiler $fc "$f" -o "$T/$n.i/def.$ext" -- $flags -I"$D" &&
       (cd "$T/$n.i" && $fc -fsyntax-only $flags -I"$D" "def.$ext") >/dev/null 2>&1; then
        _tap_result 0 "$n: default mode builds"
    else
        _tap_result 1 "$n: default mode builds"
    fi
    hdr DEFMAP "$f" | while read -r name reason; do
        r=$(grep -o "<region [^>]*name=\"$name\"[^>]*>" "$T/$n.i/def.$ext.regions.xml" | head -1)
        if [ "$reason" = instrumented ]; then
            case "$r" in *'instrumented="no"'*|'') echo "not ok - $n: $name instrumented by default  # ${r:-absent}" ;;
                *) echo "ok - $n: $name instrumented by default" ;; esac
        else
            case "$r" in *"instrumented=\"no\" reason=\"$reason\""*) echo "ok - $n: $name left out by default: $reason" ;;
                *) echo "not ok - $n: $name left out by default: $reason  # ${r:-absent}" ;; esac
        fi
    done > "$T/$n.dm"
    while read -r line; do
        case "$line" in ok*) _tap_result 0 "${line#ok - }" ;; *) _tap_result 1 "${line#not ok - }" ;; esac
    done < "$T/$n.dm"
done

# bad input: flang's message with file:line, exit 3, nothing written
printf '      PROGRAM BAD\n      X = = 1\n      END\n' > "$T/bad.f"
"$AA" instrument "$T/bad.f" -o "$T/bad.out.f" 2>"$T/bad.err"; st=$?
is "$st" 3 "bad Fortran: exit status 3"
like "$(cat "$T/bad.err")" "bad\\.f:2:[0-9]+: " "bad Fortran: the message names file:line"
ok "bad Fortran: no output written" test ! -e "$T/bad.out.f"
# an instrumented file is refused
"$AA" instrument "$D/labelled.f" -o "$T/twice.f" 2>/dev/null &&
    "$AA" instrument "$T/twice.f" -o "$T/thrice.f" 2>"$T/twice.err"; st=$?
is "$st" 3 "already instrumented Fortran: exit status 3"
done_testing
