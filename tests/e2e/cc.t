#!/bin/bash
# tests/e2e/cc.t -- `autoanalyzer cc`, the compiler wrapper: two-step and
# one-step builds run like the original (regions checked by the checking
# probe built as a stand-in libautoanalyzer.so through AUTOANALYZER_LIBDIR,
# and with the real runtime when it is built), region maps next to objects
# or in AUTOANALYZER_MAPDIR, dependency files naming the real source,
# pass-through of -E and of files libclang cannot parse (never failing the
# build), already-instrumented input, the link line (runtime libraries
# before the user's, MPI wrappers for MPI programs), and the samples'
# Makefile with CC="autoanalyzer cc mpicc".
. "$(dirname "$0")/lib.sh"
TD="$TOP/tests/instrument/torture"

ok "--help" "$AA" cc --help
like "$("$AA" cc --help)" "CC=\"autoanalyzer cc mpicc\"" "help shows the make usage"
expect_status 2 "no compiler is a usage error" "$AA" cc

# a stand-in runtime: the checking probe as libautoanalyzer.so
mkdir -p "$T/lib" "$T/w"
gcc -shared -fPIC -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/lib/libautoanalyzer.so" -lpthread
export AUTOANALYZER_LIBDIR="$T/lib"
cd "$T/w" || exit 1
cp "$TD/early_exit.c" prog.c
gcc -Wall -Werror prog.c -o orig && ./orig > orig.out
ok "compile step" "$AA" cc gcc -Wall -Werror -O2 -c prog.c -o prog.o
ok "region map next to the object" test -s prog.o.regions.xml
ok "link step" "$AA" cc gcc prog.o -o inst
AA_CHECK_OUT=chk ./inst > inst.out; is $? 0 "instrumented program runs"
ok "same output" cmp orig.out inst.out
like "$(cat chk)" "find 3 3" "probes ran through the wrapper-linked runtime (find entered 3 times)"
ok "one-step build" "$AA" cc gcc -O1 prog.c -o inst1
AA_CHECK_OUT=chk1 ./inst1 > inst1.out && cmp -s orig.out inst1.out; is $? 0 "one-step build runs the same"
like "$(cat chk1)" "main 1 1" "one-step build is instrumented"
AUTOANALYZER_MODE=all "$AA" cc gcc -c prog.c -o all.o 2>/dev/null
like "$(cat all.o.regions.xml)" 'kind="call"' "AUTOANALYZER_MODE=all adds call sites"
mkdir maps
AUTOANALYZER_MAPDIR="$T/w/maps" "$AA" cc gcc -c prog.c -o m.o
ok "AUTOANALYZER_MAPDIR" test -s maps/prog.c.regions.xml

# dependency files name the real source, not the temporary copy
"$AA" cc gcc -MMD -MP -c prog.c -o dep.o
like "$(cat dep.d)" "^dep\\.o: prog\\.c" "-MMD dependency file names prog.c"
is "$(grep -c aa-cc dep.d)" "0" "no temporary path in the dependency file"

# -E passes straight through
gcc -E prog.c > e1.txt; "$AA" cc gcc -E prog.c > e2.txt
ok "-E is a pass-through" cmp e1.txt e2.txt
ok "--version passes through" "$AA" cc gcc --version

# a file libclang cannot parse (GNU nested function): compiled as it is
printf '#include <stdio.h>\nint main(void)\n{\n    int twice(int x) { return 2 * x; }\n    printf("%%d\\n", twice(21));\n    return 0;\n}\n' > nested.c
"$AA" cc gcc -c nested.c -o nested.o 2>nested.err; is $? 0 "unparsable file still builds"
like "$(cat nested.err)" "warning: .*nested\\.c:[0-9]+.*compiled uninstrumented" "with a warning naming file:line"
"$AA" cc gcc nested.o -o nested && is "$(./nested)" "42" "and runs"

# already instrumented input passes through
"$AA" instrument -q prog.c -o pre.c --
"$AA" cc gcc -c pre.c -o pre.o 2>pre.err; is $? 0 "already-instrumented input compiles"
is "$(grep -c 'already' pre.err)" "0" "quietly"

# the link line: runtime first, MPI wrappers for MPI programs
mkdir -p bin
printf '#!/bin/sh\necho "$@"\n' > bin/mpifake; chmod +x bin/mpifake; cp bin/mpifake bin/ccfake
line=$("$AA" cc "$T/w/bin/mpifake" a.o b.o -o app -lm -lfoo)
like "$line" "^a\\.o b\\.o -o app -L.* -lautoanalyzer-mpi -lautoanalyzer -lm -lfoo$" "MPI link: wrappers + core before user libraries"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app -lm)
like "$line" "-lautoanalyzer -lm$" "plain link: core only"
is "$(echo "$line" | grep -c autoanalyzer-mpi)" "0" "no MPI wrappers for a non-MPI link"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app -lmpi)
like "$line" "-lautoanalyzer-mpi -lautoanalyzer -lmpi$" "-lmpi on the link line means MPI"
like "$line" "-Wl,-rpath,$T/lib" "rpath to the runtime"
line=$("$AA" cc "$T/w/bin/ccfake" -c a.c -o a.o 2>/dev/null)
is "$(echo "$line" | grep -c lautoanalyzer)" "0" "no runtime on compile-only steps"

# CMake: compiler and linker launchers
if command -v cmake >/dev/null; then
    mkdir -p "$T/cm/src"
    cp "$TD/early_exit.c" "$T/cm/src/main.c"
    printf 'cmake_minimum_required(VERSION 3.21)\nproject(t C)\nadd_executable(app main.c)\n' > "$T/cm/src/CMakeLists.txt"
    if (cd "$T/cm" && cmake -S src -B b -DCMAKE_C_COMPILER_LAUNCHER="$AA;cc" \
            -DCMAKE_C_LINKER_LAUNCHER="$AA;cc" >cm.log 2>&1 && cmake --build b >>cm.log 2>&1); then
        _tap_result 0 "CMake build with CMAKE_C_COMPILER_LAUNCHER / CMAKE_C_LINKER_LAUNCHER"
    else
        _tap_result 1 "CMake build with the launchers"; tail -15 "$T/cm/cm.log" | sed 's/^/#   /'
    fi
    ok "CMake: region map next to the object" test -s "$T/cm/b/CMakeFiles/app.dir/main.c.o.regions.xml"
    (cd "$T/cm" && AA_CHECK_OUT=chk ./b/app >/dev/null)
    like "$(cat "$T/cm/chk" 2>/dev/null)" "loop_break 1 1" "CMake-built program is instrumented and linked with the runtime"
fi

# the samples' Makefile through the wrapper, with the real runtime
unset AUTOANALYZER_LIBDIR
if [ -f "$TOP/samples/Makefile" ] && command -v mpicc >/dev/null && [ -e "$AA_BUILD/lib/libautoanalyzer-mpi.so" ]; then
    cp -r "$TOP/samples" "$T/s"; rm -f "$T"/s/*.o
    for x in "$T"/s/*.c; do b=$(basename "$x" .c); rm -f "$T/s/$b"; done
    if make -s -C "$T/s" CC="$AA cc mpicc" >"$T/make.out" 2>&1; then _tap_result 0 "make -C samples CC=\"autoanalyzer cc mpicc\""
    else _tap_result 1 "make -C samples CC=\"autoanalyzer cc mpicc\""; tail -20 "$T/make.out" | sed 's/^/#   /'; fi
    ok "sample maps written" test -s "$T/s/imbalance.o.regions.xml"
    like "$(ldd "$T/s/imbalance" 2>/dev/null)" "libautoanalyzer-mpi" "sample linked with the MPI runtime"
    mkdir -p "$T/run"; cd "$T/run" || exit 1
    mpirun -np 4 "$AA_BUILD/samples/imbalance" > orig.out 2>/dev/null
    mpirun -np 4 "$T/s/imbalance" > inst.out 2>inst.err; is $? 0 "instrumented sample runs on 4 ranks"
    ok "same output as the original" cmp orig.out inst.out
else
    echo "ok - # SKIP samples Makefile / MPI runtime not available"
fi
done_testing
