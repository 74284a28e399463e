#!/bin/bash
# tests/e2e/instrument_torture_cxx.t -- the instrumenter's C++ torture suite
# (tests/instrument/torture_cxx/*.cpp, one family of constructs each), in
# the shape of the C one (instrument_torture.t).  For every file: build the
# original with g++ -Wall -Werror and run it; instrument it (--mode all);
# build that with g++ -Wall -Werror against the checking probe
# (tests/instrument/checkprobe.c: aborts on any mismatched region exit, so
# an exception that leaves a region without closing it fails here); check
# that clang++ accepts it; compare stdout and exit status; compare the
# enter counts of the file's EXPECT lines, the region map with its MAP
# lines (--mode all) and DEFMAP lines (default mode: what is left out and
# why); check that a broad warning set finds no new kind of warning; the
# default mode builds too.  Then: a file that does not parse is exit 3 with
# file:line:col; the compiler wrapper (`autoanalyzer cc g++ / clang++`,
# `autoanalyzer-mpicxx` under mpirun) instruments C++ with the same output
# and exit status, passing -std=c++20 through to the parse.
# Header lines: FLAGS, EXPECT: NAME COUNT, MAP: ERE, DEFMAP: ERE.
. "$(dirname "$0")/lib.sh"

D="$TOP/tests/instrument/torture_cxx"
command -v g++ >/dev/null || skip_all "no g++"
gcc -c -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/checkprobe.o" || skip_all "checkprobe does not build"
have_clang=0; command -v clang++ >/dev/null && have_clang=1

hdr() { sed -n "s|^// $1: \\(.*\\)\$|\\1|p" "$2"; }

for f in "$D"/*.cpp; do
    n=$(basename "$f" .cpp)
    flags=$(hdr FLAGS "$f" | head -1)
    # shellcheck disable=SC2086
    if ! g++ -Wall -Werror $flags "$f" -o "$T/$n.orig"; then
        _tap_result 1 "$n: original builds"; continue
    fi
    "$T/$n.orig" >"$T/$n.orig.out" 2>/dev/null; st_orig=$?
    # shellcheck disable=SC2086
    if ! "$AA" instrument --mode all "$f" -o "$T/$n.all.cpp" -- $flags 2>"$T/$n.warn"; then
        _tap_result 1 "$n: instruments"; sed 's/^/#   /' "$T/$n.warn"; continue
    fi
    # shellcheck disable=SC2086
    if ! g++ -Wall -Werror $flags "$T/$n.all.cpp" "$T/checkprobe.o" -o "$T/$n.inst" -lpthread 2>"$T/$n.cc"; then
        _tap_result 1 "$n: instrumented builds with -Wall -Werror"; sed 's/^/#   /' "$T/$n.cc" | head -20; continue
    fi
    _tap_result 0 "$n: instrumented builds with -Wall -Werror"
    if [ $have_clang = 1 ]; then
        # shellcheck disable=SC2086
        if clang++ -fsyntax-only -w $flags "$T/$n.all.cpp" 2>"$T/$n.clang"; then
            _tap_result 0 "$n: clang++ accepts it"
        else
            _tap_result 1 "$n: clang++ accepts it"; sed 's/^/#   /' "$T/$n.clang" | head -10
        fi
    fi
    AA_CHECK_OUT="$T/$n.chk" "$T/$n.inst" >"$T/$n.inst.out" 2>"$T/$n.inst.err"; st=$?
    is "$st" "$st_orig" "$n: same exit status"
    if cmp -s "$T/$n.orig.out" "$T/$n.inst.out"; then _tap_result 0 "$n: same output"; else
        _tap_result 1 "$n: same output"; diff "$T/$n.orig.out" "$T/$n.inst.out" | sed 's/^/#   /' | head; fi
    if grep -q MISMATCH "$T/$n.inst.err"; then
        _tap_result 1 "$n: regions close properly"; sed 's/^/#   /' "$T/$n.inst.err" | head -5
    else
        _tap_result 0 "$n: regions close properly (exceptions included)"
    fi
    while read -r name count; do
        got=$(awk -v n="$name" '$2 == n { print $3; exit }' "$T/$n.chk" 2>/dev/null)
        is "${got:-0}" "$count" "$n: $name entered $count times"
    done < <(hdr EXPECT "$f")
    while read -r re; do
        if grep -Eq -- "$re" "$T/$n.all.cpp.regions.xml"; then _tap_result 0 "$n: map /$re/"; else
            _tap_result 1 "$n: map /$re/"; fi
    done < <(hdr MAP "$f")
    # no new warning kinds under a broad warning set
    W="-Wall -Wextra -Wshadow -Wconversion -Wpedantic -Wunused-macros -Wredundant-decls
       -Wmissing-declarations -Wcast-qual -Wnon-virtual-dtor -Wzero-as-null-pointer-constant"
    # shellcheck disable=SC2086
    wo=$(g++ -fsyntax-only $W $flags "$f" 2>&1 | grep -o '\[-W[a-z0-9=+-]*\]' | sort -u)
    # shellcheck disable=SC2086
    wi=$(g++ -fsyntax-only $W $flags "$T/$n.all.cpp" 2>&1 | grep -o '\[-W[a-z0-9=+-]*\]' | sort -u)
    is "$wi" "$wo" "$n: no new kind of warning (-Wshadow -Wconversion -Wpedantic ...)"
    # default mode builds too, and lists what it leaves out
    # shellcheck disable=SC2086
    if "$AA" instrument -q "$f" -o "$T/$n.def.cpp" -- $flags &&
       g++ -fsyntax-only -Wall -Werror $flags "$T/$n.def.cpp"; then
        _tap_result 0 "$n: default mode builds"
    else
        _tap_result 1 "$n: default mode builds"
    fi
    while read -r re; do
        if grep -Eq -- "$re" "$T/$n.def.cpp.regions.xml"; then _tap_result 0 "$n: default map /$re/"; else
            _tap_result 1 "$n: default map /$re/"; fi
    done < <(hdr DEFMAP "$f")
done

# bad input: file:line:col and exit 3, nothing written
printf 'struct A {\n  int f() { return 1 }\n};\n' >"$T/bad.cpp"
expect_status 3 "a C++ file that does not parse: exit 3" "$AA" instrument "$T/bad.cpp" -o "$T/bad.out.cpp"
like "$(cat "$T/.err")" "^autoanalyzer: .*bad\\.cpp:2:[0-9]+: " "the message names file:line:col"
ok "no output written" test ! -e "$T/bad.out.cpp"

# the compiler wrapper
cp "$D/exceptions.cpp" "$T/w.cpp"
ok "autoanalyzer cc g++ builds C++" env AUTOANALYZER_MAPDIR="$T/maps" "$AA" cc g++ -O2 "$T/w.cpp" -o "$T/w.g++"
ok "the source was instrumented" grep -q 'name="middle"' "$T"/maps/w.cpp-*.regions.xml
(cd "$T" && AUTOANALYZER_DIR="$T/p1" ./w.g++ >"$T/w.g++.out" 2>/dev/null); is "$?" "0" "wrapped program: exit status 0"
ok "wrapped program: same output" cmp "$T/w.g++.out" "$T/exceptions.orig.out"
if command -v clang++ >/dev/null; then
    ok "autoanalyzer cc clang++ builds C++" "$AA" cc clang++ -std=c++17 -c "$T/w.cpp" -o "$T/w.o"
    ok "its object carries the region map" sh -c "objdump -h '$T/w.o' | grep -q autoanalyzer.regions"
fi
# g++ compiles a .c file as C++: it is instrumented as C++ (a C prelude
# would leave the probes' names mangled and the link broken)
printf '#include <stdio.h>\nstatic int sq(int x) { int s = 0; for (int i = 0; i < x; i++) s += x; printf("%%d\\n", s); return s; }\nint main(void) { return sq(3) - 9; }\n' >"$T/both.c"
ok "autoanalyzer cc g++ file.c builds (C++ driver: parsed as C++)" "$AA" cc g++ "$T/both.c" -o "$T/both"
is "$(cd "$T" && "$T/both" 2>/dev/null; echo "rc $?")" "9
rc 0" "... and runs with the same output and exit status"
rm -rf "$T/maps"
cp "$D/constexpr.cpp" "$T/c20.cpp"
ok "-std=c++20 reaches the parse (consteval)" env AUTOANALYZER_MAPDIR="$T/maps" "$AA" cc g++ -std=c++20 -c "$T/c20.cpp" -o "$T/c20.o"
ok "... and the file is instrumented" grep -q 'name="Matrix::trace"' "$T"/maps/c20.cpp-*.regions.xml
if command -v mpicxx >/dev/null && command -v mpirun >/dev/null; then
    cat >"$T/ring.cpp" <<'CPP'
#include <mpi.h>
#include <cstdio>
#include <vector>
template <typename T> struct Ring {
    std::vector<T> buf;
    T pass(int rank, int size) {
        T out = static_cast<T>(rank), in = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++) buf.push_back(in + i);
        return in;
    }
};
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Ring<int> r;
    auto sum = [&]() { int s = 0; for (int x : r.buf) s += x; return s; };
    int got = r.pass(rank, size);
    int total = 0, mine = sum();
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("got %d total %d\n", got, total);
    MPI_Finalize();
    return rank == 0 ? 0 : 0;
}
CPP
    ok "mpicxx: original builds" mpicxx "$T/ring.cpp" -o "$T/ring.orig"
    ok "autoanalyzer-mpicxx builds" env AUTOANALYZER_MAPDIR="$T/maps" "$AA_BUILD/bin/autoanalyzer-mpicxx" "$T/ring.cpp" -o "$T/ring.inst"
    ok "... instrumented, names qualified" grep -q 'name="Ring&lt;T&gt;::pass"' "$T"/maps/ring.cpp-*.regions.xml
    mpirun -np 2 "$T/ring.orig" >"$T/ring.orig.out" 2>/dev/null
    (cd "$T" && AUTOANALYZER_DIR="$T/rp" mpirun -np 2 "$T/ring.inst" >"$T/ring.inst.out" 2>/dev/null); is "$?" "0" "mpicxx program under mpirun: exit 0"
    ok "mpicxx program: same output" cmp "$T/ring.orig.out" "$T/ring.inst.out"
fi
done_testing
