#!/bin/bash
# tests/e2e/cc.t -- `autoanalyzer cc`, the compiler wrapper: two-step and
# one-step builds run like the original (regions checked by the checking
# probe built as a stand-in libautoanalyzer.so through AUTOANALYZER_LIBDIR,
# and with the real runtime when it is built), region maps embedded in the
# objects (section .autoanalyzer.regions) and, with AUTOANALYZER_MAPDIR,
# written there under names that never collide, dependency files naming the
# real source, pass-through of -E and of files libclang cannot parse (never
# failing the build), an instrumenter that crashes, aborts, exits or hangs
# (fault injection: AUTOANALYZER_TEST_CRASH), response files, the link line
# (runtime kept whatever --as-needed says, before the MPI library; MPI found
# by compiler name, -lmpi, a libmpi path, -Wl lists, an archive's symbols),
# configure checks, AUTOANALYZER_WRAPPER=off, the one-word
# autoanalyzer-<compiler> links, and the samples' Makefile.
. "$(dirname "$0")/lib.sh"
TD="$TOP/tests/instrument/torture"

ok "--help" "$AA" cc --help
like "$("$AA" cc --help)" "CC=\"autoanalyzer cc mpicc\"" "help shows the make usage"
expect_status 2 "no compiler is a usage error" "$AA" cc

# a stand-in runtime: the checking probe as libautoanalyzer.so
mkdir -p "$T/lib" "$T/w"
gcc -shared -fPIC -I"$TOP" "$TOP/tests/instrument/checkprobe.c" -o "$T/lib/libautoanalyzer.so" -lpthread
export AUTOANALYZER_LIBDIR="$T/lib"
touch "$T/lib/libautoanalyzer-mpi.so" "$T/lib/libautoanalyzer-mpi.a" "$T/lib/libautoanalyzer.a"
cd "$T/w" || exit 1
cp "$TD/early_exit.c" prog.c
gcc -Wall -Werror prog.c -o orig && ./orig > orig.out
ok "compile step" "$AA" cc gcc -Wall -Werror -O2 -c prog.c -o prog.o
has_map() { readelf -p .autoanalyzer.regions "$1" 2>/dev/null | grep -q '<regionmap'; }
ok "region map embedded in the object" has_map prog.o
is "$(ls *.regions.xml 2>/dev/null | wc -l)" 0 "no region map files next to the objects"
ok "link step" "$AA" cc gcc prog.o -o inst
AA_CHECK_OUT=chk ./inst > inst.out; is $? 0 "instrumented program runs"
ok "same output" cmp orig.out inst.out
like "$(cat chk)" "find 3 3" "probes ran through the wrapper-linked runtime (find entered 3 times)"
ok "one-step build" "$AA" cc gcc -O1 prog.c -o inst1
AA_CHECK_OUT=chk1 ./inst1 > inst1.out && cmp -s orig.out inst1.out; is $? 0 "one-step build runs the same"
like "$(cat chk1)" "main 1 1" "one-step build is instrumented"
ok "one-step build: map embedded in the program" has_map inst1
AUTOANALYZER_MODE=all "$AA" cc gcc -c prog.c -o all.o 2>/dev/null
like "$(readelf -p .autoanalyzer.regions all.o)" 'kind="call"' "AUTOANALYZER_MODE=all adds call sites"
# same base name in two folders, compiled and linked in one step
mkdir -p maps d1 d2
printf 'int one(void) { int s = 0; for (int i = 0; i < 3; i++) s += i; return s; }\n' > d1/same.c
printf 'int one(void);\nint main(void) { return one() == 3 ? 0 : 1; }\n' > d2/same.c
AUTOANALYZER_MAPDIR="$T/w/maps" "$AA" cc gcc d1/same.c d2/same.c -o same; is $? 0 "one-step build of two same.c files"
is "$(ls maps | grep -c '^same\.c-[0-9a-f]*\.regions\.xml$')" 2 "AUTOANALYZER_MAPDIR: one map per file, no collision"
like "$(cat maps/same.c-*)" 'name="one".*|name="main"' "the maps hold both files' regions"
like "$(readelf -p .autoanalyzer.regions same | grep -c '<regionmap')" '^2$' "both maps embedded in the program"
is "$(find d1 d2 -name '*.regions.xml' | wc -l)" 0 "no maps in the source folders"

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

# the instrumenter crashes, aborts, exits abnormally or hangs: the original is compiled
AUTOANALYZER_TEST_CRASH=1 "$AA" cc gcc -c prog.c -o crash.o 2>crash.err; is $? 0 "instrumenter crash: build goes on"
is "$(cat crash.err)" "autoanalyzer: warning: prog.c: instrumenter crashed (signal 11); compiled uninstrumented" "one warning names the file and the signal"
ok "crash: the object is the original's (no map)" sh -c '! readelf -p .autoanalyzer.regions crash.o 2>/dev/null | grep -q regionmap'
"$AA" cc gcc crash.o -o crash && ./crash > crash.out && cmp -s orig.out crash.out; is $? 0 "and the program runs the same"
AUTOANALYZER_TEST_CRASH=abort "$AA" cc gcc -c prog.c -o abort.o 2>abort.err; is $? 0 "instrumenter abort: build goes on"
like "$(cat abort.err)" "prog.c: instrumenter crashed \(signal 6\); compiled uninstrumented" "abort reported as signal 6"
AUTOANALYZER_TEST_CRASH=exit "$AA" cc gcc -c prog.c -o exit.o 2>exit.err; is $? 0 "instrumenter exits abnormally: build goes on"
like "$(cat exit.err)" "prog.c: instrumenter failed \(exit status 70\); compiled uninstrumented" "abnormal exit reported"
s0=$(date +%s)
AUTOANALYZER_TEST_CRASH=hang AUTOANALYZER_INSTRUMENT_TIMEOUT=1 "$AA" cc gcc -c prog.c -o hang.o 2>hang.err; is $? 0 "instrumenter hangs: build goes on"
like "$(cat hang.err)" "prog.c: instrumenter timed out after 1 s; compiled uninstrumented" "timeout reported"
ok "timeout kept (under 10 s)" test $(( $(date +%s) - s0 )) -lt 10
mkdir -p tmp
TMPDIR="$T/w/tmp" AUTOANALYZER_TEST_CRASH=1 "$AA" cc gcc -c prog.c -o tmp1.o 2>/dev/null
TMPDIR="$T/w/tmp" AUTOANALYZER_TEST_CRASH=hang AUTOANALYZER_INSTRUMENT_TIMEOUT=1 "$AA" cc gcc -c prog.c -o tmp2.o 2>/dev/null
TMPDIR="$T/w/tmp" "$AA" cc gcc prog.c -o tmp3 2>/dev/null
is "$(ls tmp | wc -l)" 0 "no temporary files left (crash, timeout, success)"
expect_status 2 "a bad time limit is a usage error" env AUTOANALYZER_INSTRUMENT_TIMEOUT=x "$AA" cc gcc -c prog.c -o x.o

# response files: gcc quoting, nested, sources inside
printf '#include <stdio.h>\nint main(void)\n{\n    for (int i = 0; i < 2; i++)\n        puts(MSG);\n    return 0;\n}\n' > rsp.c
printf -- "-O1 '-DMSG=\"hello world\"'\n@inner.rsp\n" > outer.rsp
printf 'rsp.c -o rsp\\ prog\n' > inner.rsp
"$AA" cc gcc @outer.rsp 2>rsp.err; is $? 0 "response files: build"
is "$(./'rsp prog' 2>/dev/null | head -1)" "hello world" "quoting and escapes kept"
ok "response files: the source inside was instrumented" has_map 'rsp prog'
printf '#!/bin/sh\nfor a; do case "$a" in @*) echo "@"; cat "${a#@}";; *) echo "$a";; esac; done\n' > rspfake; chmod +x rspfake
printf 'a.o -o app -lmpi\n' > q.rsp
line=$(AUTOANALYZER_LIBDIR="$T/lib" "$AA" cc "$T/w/rspfake" @q.rsp | tr '\n' ' ')
like "$line" "^@ a\.o -o app -Wl,--push-state,--no-as-needed .*/libautoanalyzer-mpi\.so .* -lmpi $" "a link through @file: the rewritten line in a response file, runtime before -lmpi"
# a device as dependency file stays a device (a private copy of /dev/null,
# so a regression cannot replace the machine's own)
if mknod -m 666 "$T/w/null" c 1 3 2>/dev/null; then
    "$AA" cc gcc -MMD -MF "$T/w/null" -c prog.c -o devnull.o; ok "-MF <device> stays a device" test -c "$T/w/null"
else
    ok "# SKIP -MF <device>: cannot create a device node here (not root)" true
fi
ln -s real.d dlink.d
"$AA" cc gcc -MMD -MF dlink.d -c prog.c -o dlink.o
ok "-MF <symlink>: the link stays a link" test -L dlink.d
like "$(cat real.d 2>/dev/null)" "prog\.c" "-MF <symlink>: its target names the real source"
# every compile through the wrapper defines AUTOANALYZER (aa_user.h macros on),
# and the instrumenter sees it too
printf '#ifndef AUTOANALYZER\n#error not through the wrapper\n#endif\nint only_with_aa(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n' > aadef.c
ok "the wrapper defines AUTOANALYZER for the compile" "$AA" cc gcc -c aadef.c -o aadef.o
like "$(readelf -p .autoanalyzer.regions aadef.o 2>/dev/null)" 'only_with_aa' "the instrumenter parsed with AUTOANALYZER defined"


"$AA" instrument -q prog.c -o pre.c --
"$AA" cc gcc -c pre.c -o pre.o 2>pre.err; is $? 0 "already-instrumented input compiles"
is "$(grep -c 'already' pre.err)" "0" "quietly"

# the link line: runtime first, MPI wrappers for MPI programs
RT="-Wl,--push-state,--no-as-needed $T/lib/libautoanalyzer-mpi.so $T/lib/libautoanalyzer.so -Wl,--pop-state -Wl,-rpath,$T/lib"
RT1="-Wl,--push-state,--no-as-needed $T/lib/libautoanalyzer.so -Wl,--pop-state -Wl,-rpath,$T/lib"
mkdir -p bin
printf '#!/bin/sh\necho "$@"\n' > bin/mpifake; chmod +x bin/mpifake; cp bin/mpifake bin/ccfake
line=$("$AA" cc "$T/w/bin/mpifake" a.o b.o -o app -lm -lfoo)
is "$line" "a.o b.o -o app $RT -lm -lfoo" "MPI compiler: wrappers + core kept (--no-as-needed), before user libraries"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app -lm)
is "$line" "a.o -o app $RT1 -lm" "plain link: core only"
line=$("$AA" cc "$T/w/bin/ccfake" -Wl,--as-needed a.o -o app -lfoo -lmpi)
is "$line" "-Wl,--as-needed a.o -o app -lfoo $RT -lmpi" "-lmpi means MPI; the runtime goes right before it, --as-needed or not"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app /opt/mpi/lib/libmpi.so -lm)
is "$line" "a.o -o app $RT /opt/mpi/lib/libmpi.so -lm" "a libmpi.so path (CMake find_package(MPI)) means MPI"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app -Wl,--as-needed,-lmpich)
is "$line" "a.o -o app $RT -Wl,--as-needed,-lmpich" "-lmpich inside -Wl, means MPI"
line=$("$AA" cc "$T/w/bin/ccfake" a.o -o app -l mpi_mpifh -lmpi)
is "$line" "a.o -o app $RT -l mpi_mpifh -lmpi" "-l NAME (separate) is a library too"
line=$("$AA" cc "$T/w/bin/ccfake" -static a.o -o app -lmpi)
is "$line" "-static a.o -o app -Wl,--whole-archive $T/lib/libautoanalyzer-mpi.a $T/lib/libautoanalyzer.a -Wl,--no-whole-archive -lm -lpthread -ldl -lmpi" "-static: whole archives"
if command -v mpicc >/dev/null; then
    printf '#include <mpi.h>\nint sum(int x) { int y; MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); return y; }\n' > mpisum.c
    mpicc -c mpisum.c -o mpisum.o && ar rcs libmpisum.a mpisum.o && gcc -c -x c /dev/null -o empty.o && ar rcs libempty.a empty.o
    line=$("$AA" cc "$T/w/bin/ccfake" a.o libmpisum.a -o app)
    is "$line" "a.o libmpisum.a -o app $RT" "a static library calling MPI_ means MPI"
    "$AA" instrument -q mpisum.c -o mpisum_i.c; is $? 0 "autoanalyzer instrument finds the MPI include flags itself"
    line=$("$AA" cc "$T/w/bin/ccfake" a.o libempty.a -o app)
    is "$line" "a.o libempty.a -o app $RT1" "one that does not, does not"
fi
line=$("$AA" cc "$T/w/bin/ccfake" -shared a.o -o libx.so)
is "$line" "-shared a.o -o libx.so $RT1" "shared libraries carry the runtime too"
line=$("$AA" cc "$T/w/bin/ccfake" -c a.c -o a.o 2>/dev/null)
is "$line" "-DAUTOANALYZER=1 -c a.c -o a.o" "a file that cannot be instrumented compiles as it is (AUTOANALYZER defined)"
for args in "-E a.c" "-r a.o b.o -o c.o" "-o conftest conftest.c" "--version" "-dumpmachine" "a.o -o /dev/null"; do
    # shellcheck disable=SC2086
    line=$("$AA" cc "$T/w/bin/ccfake" $args 2>/dev/null)
    is "$line" "$args" "passed through unchanged: $args"
done
mkdir -p CMakeFiles/CMakeScratch/TryCompile-x
line=$(cd CMakeFiles/CMakeScratch/TryCompile-x && "$AA" cc "$T/w/bin/ccfake" CMakeFiles/cmTC_1.dir/src.c.o -o cmTC_1)
is "$line" "CMakeFiles/cmTC_1.dir/src.c.o -o cmTC_1" "CMake try_compile link: no runtime"
line=$(AUTOANALYZER_WRAPPER=off "$AA" cc "$T/w/bin/mpifake" a.o -o app -lmpi)
is "$line" "a.o -o app -lmpi" "AUTOANALYZER_WRAPPER=off: plain pass-through"
line=$(AUTOANALYZER_DISABLE=1 "$AA" cc "$T/w/bin/mpifake" a.o -o app)
is "$line" "a.o -o app" "AUTOANALYZER_DISABLE=1 still works"

# one-word wrappers: autoanalyzer-<compiler> is `autoanalyzer cc <compiler>`
for w in mpicc cc gcc clang mpicxx mpic++ c++ g++ mpif90 mpif77 mpifort gfortran; do
    [ -L "$AA_BUILD/bin/autoanalyzer-$w" ] || { _tap_result 1 "autoanalyzer-$w link in the build"; continue; }
done
ln -s "$AA" bin/autoanalyzer-mpifake
line=$(PATH="$T/w/bin:$PATH" autoanalyzer-mpifake a.o -o app)
is "$line" "a.o -o app $RT" "autoanalyzer-mpifake runs mpifake through the wrapper"
"$AA_BUILD/bin/autoanalyzer-gcc" -c prog.c -o oneword.o; is $? 0 "autoanalyzer-gcc compiles"
ok "autoanalyzer-gcc instruments" has_map oneword.o

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
    ok "CMake: region map embedded in the object" has_map "$T/cm/b/CMakeFiles/app.dir/main.c.o"
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
    ok "sample maps embedded" has_map "$T/s/imbalance"
    like "$(ldd "$T/s/imbalance" 2>/dev/null)" "libautoanalyzer-mpi" "sample linked with the MPI runtime"
    mkdir -p "$T/run"; cd "$T/run" || exit 1
    mpirun -np 4 "$AA_BUILD/samples/imbalance" > orig.out 2>/dev/null
    mpirun -np 4 "$T/s/imbalance" > inst.out 2>inst.err; is $? 0 "instrumented sample runs on 4 ranks"
    ok "same output as the original" cmp orig.out inst.out
else
    echo "ok - # SKIP samples Makefile / MPI runtime not available"
fi
ok "/dev/null is still a device" test -c /dev/null
done_testing
