#!/bin/bash
# tests/e2e/build_static.t -- link integration of the compiler wrapper on
# hand-written builds: a program whose MPI calls all live in a static
# library (main.c never calls MPI), linked (a) by plain gcc naming
# .../libmpi.so as CMake's find_package(MPI) does, (b) by mpicc with an
# explicit -Wl,--as-needed and the library after the runtime, (c) through
# a shared library built with the wrapper, and (d) with plain mpicc and an
# uninstrumented shared library; (e) sources given in a response file;
# (f) AUTOANALYZER_WRAPPER=off builds a plain program.  Each instrumented
# program runs on 4 ranks and must be recorded as 4 processes.
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip_all "no MPI compiler"
[ -e "$AA_BUILD/lib/libautoanalyzer-mpi.so" ] || skip_all "MPI runtime not built"
. "$(dirname "$0")/build_lib.sh"

P="$T/p"; build_project "$P"; cd "$P" || exit 1
MPILIB=$(mpicc --showme:libdirs | awk '{print $1}')/libmpi.so
ok "compile through autoanalyzer-mpicc" sh -c 'autoanalyzer-mpicc -O1 -c main.c -o main.o && autoanalyzer-mpicc -O1 -c util.c -o util.o && autoanalyzer-mpicc -O1 -c solver/solver.c -o solver/solver.o'
ok "static library holding every MPI call" ar rcs libsolver.a solver/solver.o

# (a) plain gcc, MPI named by path
ok "(a) link: autoanalyzer-gcc ... .../libmpi.so" autoanalyzer-gcc main.o util.o libsolver.a -o app_a "$MPILIB"
like "$(readelf -d app_a | grep NEEDED | tr -d '\n')" "libautoanalyzer-mpi\\.so.*libautoanalyzer\\.so.*libmpi\\.so" "(a) DT_NEEDED: wrappers before libmpi"
expect_4_ranks a ./app_a

# (b) mpicc, --as-needed, the static library after the runtime's place
ok "(b) link: autoanalyzer-mpicc -Wl,--as-needed ... -L. -lsolver" autoanalyzer-mpicc -Wl,--as-needed main.o util.o -L. -lsolver -o app_b
expect_4_ranks b ./app_b

# (c) the MPI calls in a shared library built through the wrapper, the
# program linked by plain gcc through the wrapper (no MPI on its line)
ok "(c) shared library through autoanalyzer-mpicc" autoanalyzer-mpicc -shared -fPIC -O1 solver/solver.c -o libsolver_w.so
ok "(c) link: autoanalyzer-gcc main.o util.o -lsolver_w" autoanalyzer-gcc main.o util.o -L. -lsolver_w -Wl,-rpath,"$P" -o app_c
expect_4_ranks c ./app_c

# (d) an uninstrumented shared library, plain mpicc semantics, --as-needed
ok "(d) plain shared library" mpicc -shared -fPIC -O1 solver/solver.c -o libsolver_p.so
ok "(d) link: autoanalyzer-mpicc -Wl,--as-needed ... -lsolver_p" autoanalyzer-mpicc -Wl,--as-needed main.o util.o -L. -lsolver_p -Wl,-rpath,"$P" -o app_d
expect_4_ranks d ./app_d

# (e) a response file naming the sources (one-step compile and link)
printf '%s\n' -O1 main.c util.c libsolver.a > args.rsp
ok "(e) autoanalyzer-mpicc @args.rsp" autoanalyzer-mpicc @args.rsp -o app_e
like "$(readelf -p .autoanalyzer.regions app_e 2>/dev/null)" 'name="work"' "(e) the sources inside the response file were instrumented"
expect_4_ranks e ./app_e

# (f) switched off: the plain program, nothing recorded
ok "(f) AUTOANALYZER_WRAPPER=off build" env AUTOANALYZER_WRAPPER=off autoanalyzer-mpicc -O1 main.c util.c solver/solver.c -o app_f
like "$(ldd app_f 2>&1)" "libmpi" "(f) a dynamically linked MPI program"
is "$(ldd app_f | grep -c autoanalyzer)" 0 "(f) no runtime linked"
ok "(f) has a symbol table" readelf -s app_f
is "$(readelf -p .autoanalyzer.regions app_f 2>/dev/null | grep -c regionmap)" 0 "(f) nothing instrumented"
mkdir f && out=$(cd f && mpirun -np 4 ../app_f 2>&1)
like "$out" "^ranks 4 " "(f) runs on 4 ranks"
is "$(ls f | wc -l)" 0 "(f) and records nothing"
done_testing
