#!/bin/bash
# tests/e2e/instrument_generated.t -- the instrumenter is memory-safe on
# large files and keeps their behaviour.  The generated corpus
# (tests/instrument/gen_torture.py: thousands of loops, a deep nest, a huge
# switch, hundreds of libc/libm/MPI call statements, error and loop macros,
# K&R, GNU extensions, every inline spelling) plus the reproducers of the
# grown-candidate-array bug (200 sequential loops, 65 nested loops, 400 call
# statements) and the hand-written torture files are instrumented by the
# ASan+UBSan build of the command ($AA_SAN_BUILD, set by `make check`) in
# every mode: exit 0 and no sanitizer report.  The `--mode all` output of
# every generated program is built with gcc -Wall -Werror against the
# checking probe and run: same stdout and exit status as the original, every
# region closed.  valgrind memcheck (when installed) checks the release
# command on one large file.
. "$(dirname "$0")/lib.sh"

G="$TOP/tests/instrument/gen_torture.py"
D="$TOP/tests/instrument/torture"
command -v python3 >/dev/null || skip_all "no python3"
command -v gcc >/dev/null || skip_all "no gcc"
have_mpi=0; command -v mpicc >/dev/null && have_mpi=1

hdr() { sed -n "s|^[/ *]*$1: \\(.*\\)\$|\\1|p" "$2" | sed 's| *\*/$||'; }

mkdir -p "$T/gen"
ok "generator writes the corpus" python3 "$G" "$T/gen" loops calls gnu mpi seq200 nest65 calls400
is "$(python3 "$G" "$T/again" loops >/dev/null && cmp "$T/gen/loops.c" "$T/again/loops.c" && echo same)" \
   "same" "generator is deterministic"
gcc -c -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/checkprobe.o" || skip_all "checkprobe"
[ $have_mpi = 1 ] && mpicc -c -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/checkprobe-mpi.o"

SAN=""
if [ -n "${AA_SAN_BUILD:-}" ]; then
    case "$AA_SAN_BUILD" in /*) SAN="$AA_SAN_BUILD" ;; *) SAN="$TOP/$AA_SAN_BUILD" ;; esac
    SAN="$SAN/bin/autoanalyzer"
    [ -x "$SAN" ]; is $? 0 "the sanitizer build has the command ($SAN)"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# instruments $1 (flags $2) in mode $3 with the sanitizer build; no report, exit 0
san_check() {
    local f=$1 flags=$2 m=$3 tag st
    tag="$T/san.$(basename "$f" .c).$m"
    # shellcheck disable=SC2086
    "$SAN" instrument -q --mode "$m" "$f" -o "$tag.c" -- $flags -I"$(dirname "$f")" 2>"$tag.err"; st=$?
    if [ "$st" = 0 ] && ! grep -Eq 'Sanitizer|runtime error:' "$tag.err"; then
        echo "ok"
    else
        echo "not ok $(basename "$f") --mode $m: exit $st"
        grep -E -m3 -A4 'ERROR|runtime error:' "$tag.err" | sed 's/^/#   /'
    fi
}

MODES="default functions outer-loops inner-loops mpi mathlib syscalls libc user all"
flags_of() {
    case "$(basename "$1")" in
        gnu.c) echo "-std=gnu99" ;;
        mpi.c) mpicc --showme:compile ;;
        *) hdr FLAGS "$1" | head -1; [ -n "$(hdr MPI "$1")" ] && mpicc --showme:compile ;;
    esac
}

if [ -n "$SAN" ]; then
    # every mode on two mixed files; --mode all on the large ones, the
    # reproducers and every hand-written torture file
    python3 "$G" "$T/small" --scale 0.25 calls >/dev/null
    for f in "$T"/gen/gnu.c "$T"/small/calls.c "$T"/gen/*.c "$D"/*.c; do
        n=$(basename "$f" .c)
        case "$f" in
            "$T"/gen/gnu.c) [ -z "${done_gnu:-}" ] || continue; done_gnu=1; ms=$MODES ;;
            "$T"/small/calls.c) ms=$MODES ;;
            *) ms=all ;;
        esac
        if [ $have_mpi = 0 ] && { [ "$n" = mpi ] || [ -n "$(hdr MPI "$f")" ]; }; then continue; fi
        fl=$(flags_of "$f")
        bad=""
        for m in $ms; do
            r=$(san_check "$f" "$fl" "$m")
            [ "$r" = ok ] || bad="$bad$r"$'\n'
        done
        if [ -z "$bad" ]; then _tap_result 0 "$n: sanitizer build instruments it ($(echo $ms | wc -w) modes)"
        else _tap_result 1 "$n: sanitizer build instruments it"; printf '%s' "$bad" | sed 's/^not ok/#  /'; fi
    done
else
    echo "# AA_SAN_BUILD not set: sanitizer runs skipped"
fi

# behaviour: original vs --mode all, same output and status, regions closed
for n in seq200 nest65 calls400 loops calls gnu mpi; do
    f="$T/gen/$n.c"; cc=gcc; probe="$T/checkprobe.o"
    if [ $n = mpi ]; then
        [ $have_mpi = 1 ] || { echo "ok - # SKIP $n: no MPI"; continue; }
        cc=mpicc; probe="$T/checkprobe-mpi.o"
    fi
    fl=$(flags_of "$f"); [ $n = mpi ] && fl=""
    # shellcheck disable=SC2086
    if ! $cc -Wall -Werror $fl "$f" -o "$T/$n.orig" -lm 2>"$T/$n.occ"; then
        _tap_result 1 "$n: original builds"; sed 's/^/#   /' "$T/$n.occ" | head; continue
    fi
    "$T/$n.orig" >"$T/$n.orig.out" 2>/dev/null; st_orig=$?
    # shellcheck disable=SC2086
    if ! "$AA" instrument --mode all "$f" -o "$T/$n.all.c" -- $(flags_of "$f") 2>"$T/$n.warn"; then
        _tap_result 1 "$n: instruments"; sed 's/^/#   /' "$T/$n.warn" | head; continue
    fi
    # shellcheck disable=SC2086
    if ! $cc -Wall -Werror $fl "$T/$n.all.c" "$probe" -o "$T/$n.inst" -lm -lpthread 2>"$T/$n.cc"; then
        _tap_result 1 "$n: instrumented builds with -Wall -Werror"; sed 's/^/#   /' "$T/$n.cc" | head -20; continue
    fi
    AA_CHECK_OUT="$T/$n.chk" "$T/$n.inst" >"$T/$n.inst.out" 2>"$T/$n.inst.err"; st=$?
    is "$st" "$st_orig" "$n: same exit status"
    if cmp -s "$T/$n.orig.out" "$T/$n.inst.out" && [ -s "$T/$n.orig.out" ]; then _tap_result 0 "$n: same output"
    else _tap_result 1 "$n: same output"; diff "$T/$n.orig.out" "$T/$n.inst.out" | sed 's/^/#   /' | head -5; fi
    nreg=$(grep -vc '^open ' "$T/$n.chk" 2>/dev/null)
    like "${nreg:-0} $(grep '^open ' "$T/$n.chk" 2>/dev/null)" "^[1-9][0-9]* open 0\$" "$n: $nreg regions entered, all closed"
done
# the reproducers really are large: every loop / call is a region
is "$(grep -c 'kind="loop"' "$T/seq200.all.c.regions.xml")" 200 "seq200: 200 loop regions"
is "$(grep -c 'kind="loop"' "$T/nest65.all.c.regions.xml")" 65 "nest65: 65 loop regions"
is "$(grep -c 'kind="call".*name="\(memset\|sqrt\)@' "$T/calls400.all.c.regions.xml")" 400 "calls400: 400 call regions"
# inline functions with external linkage are never touched
for fn in c99_inline gnu_inline_kw gnu_inline_kw2 later_def ext_inline gnu_attr_inline macro_inline; do
    is "$(grep -c "function=\"$fn\"" "$T/gnu.all.c.regions.xml")" 0 "gnu: non-static inline $fn has no region"
done
like "$(grep -c 'function="sq"' "$T/gnu.all.c.regions.xml")" "^[1-9]" "gnu: static inline sq is instrumented"

if command -v valgrind >/dev/null; then
    python3 "$G" "$T/vg" --scale 0.25 loops >/dev/null
    valgrind -q --error-exitcode=99 --leak-check=no "$AA" instrument -q --mode all "$T/vg/loops.c" \
        -o "$T/vg/loops.all.c" -- 2>"$T/vg.err"; st=$?
    is "$st" 0 "valgrind memcheck: release command on a $(wc -l <"$T/vg/loops.c")-line file, no error"
    [ "$st" = 0 ] || sed 's/^/#   /' "$T/vg.err" | head -20
else
    echo "# valgrind not installed: memcheck run skipped"
fi
done_testing
