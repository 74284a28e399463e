#!/bin/bash
# tests/e2e/instrument_samples.t -- every sample (samples/*.c) instrumented
# in every mode builds with mpicc -Wall -Wextra -Werror; the default and
# `all` builds run under mpirun -np 4 and print exactly what the original
# prints with the same exit status: `all` against the checking probe
# (aborts on a mismatched region exit), the default mode against the real
# runtime when it is built.  AA_TEST_FULL=1 runs every mode.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
ls samples/*.c >/dev/null 2>&1 || skip_all "no samples yet"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip_all "no MPI"
MPIF=$(mpicc --showme:compile)
mpicc -c -I"$TOP" tests/instrument/checkprobe.c -o "$T/checkprobe.o" || skip_all "checkprobe"
have_rt=0; [ -e "$AA_BUILD/lib/libautoanalyzer-mpi.so" ] && have_rt=1
MODES="functions,outer-loops inner-loops mpi mathlib syscalls libc user all"

for f in samples/*.c; do
    n=$(basename "$f" .c)
    mkdir -p "$T/$n"; cd "$T/$n" || exit 1
    # shellcheck disable=SC2086
    mpicc -std=c11 -O2 "$TOP/$f" -o orig -lm || { _tap_result 1 "$n: original builds"; cd "$TOP"; continue; }
    mpirun -np 4 ./orig > orig.out 2>/dev/null; st0=$?
    for m in $MODES; do
        tag=${m//,/+}
        # shellcheck disable=SC2086
        if ! "$AA" instrument -q --mode "$m" "$TOP/$f" -o "$tag.c" -- -std=c11 $MPIF 2>"$tag.err"; then
            _tap_result 1 "$n [$m]: instruments"; sed 's/^/#   /' "$tag.err" | head -5; continue
        fi
        if ! mpicc -std=c11 -Wall -Wextra -Werror -O2 -c "$tag.c" -o "$tag.o" 2>"$tag.cc"; then
            _tap_result 1 "$n [$m]: builds with -Wall -Wextra -Werror"; head -10 "$tag.cc" | sed 's/^/#   /'; continue
        fi
        _tap_result 0 "$n [$m]: builds with -Wall -Wextra -Werror"
        run=0; lib=""
        if [ "$m" = all ]; then run=1; lib="checkprobe"
        elif [ "$m" = functions,outer-loops ] && [ $have_rt = 1 ]; then run=1; lib="runtime"
        elif [ "${AA_TEST_FULL:-0}" = 1 ]; then run=1; lib="checkprobe"; fi
        [ $run = 1 ] || continue
        if [ $lib = checkprobe ]; then
            mpicc "$tag.o" "$T/checkprobe.o" -o "$tag.exe" -lm -lpthread
        else
            mpicc "$tag.o" -o "$tag.exe" -L"$AA_BUILD/lib" -Wl,-rpath,"$AA_BUILD/lib" \
                -lautoanalyzer-mpi -lautoanalyzer -lm
        fi
        rm -rf chk; mkdir chk
        AA_CHECK_DIR="$PWD/chk" mpirun -np 4 "./$tag.exe" > "$tag.out" 2>"$tag.stderr"; st=$?
        is "$st" "$st0" "$n [$m, $lib]: same exit status under mpirun -np 4"
        if cmp -s orig.out "$tag.out"; then _tap_result 0 "$n [$m, $lib]: same output"
        else _tap_result 1 "$n [$m, $lib]: same output"; diff orig.out "$tag.out" | head -5 | sed 's/^/#   /'; fi
        if [ $lib = checkprobe ]; then
            if grep -q MISMATCH "$tag.stderr"; then _tap_result 1 "$n [$m]: regions close"; grep MISMATCH "$tag.stderr" | head -3 | sed 's/^/#   /'
            else _tap_result 0 "$n [$m]: regions close"; fi
            is "$(ls chk | wc -l)" "4" "$n [$m]: 4 processes reported"
            is "$(cat chk/* | awk '$1 != "open" && $3 != $4' | wc -l)" "0" "$n [$m]: every enter has its exit"
        fi
    done
    cd "$TOP" || exit 1
done
done_testing
