#!/bin/bash
# tests/e2e/build_cmake.t -- CMake builds through the compiler wrapper, the
# MPI calls all in a static library target: (1) CC=autoanalyzer-mpicc with
# the Makefile generator, configure-time checks (check_symbol_exists and a
# check_c_source_runs program) passing through and leaving no
# autoanalyzer-* result directories; (2) plain cc with find_package(MPI)
# (the link names .../libmpi.so) through CMAKE_C_COMPILER_LAUNCHER and
# CMAKE_C_LINKER_LAUNCHER, Ninja with forced response files.  Each program
# runs on 4 ranks and must be recorded as 4 processes.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null || skip_all "cmake not installed"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip_all "no MPI compiler"
[ -e "$AA_BUILD/lib/libautoanalyzer-mpi.so" ] || skip_all "MPI runtime not built"
. "$(dirname "$0")/build_lib.sh"

has_map() { readelf -p .autoanalyzer.regions "$1" 2>/dev/null | grep -q '<regionmap'; }
P="$T/src"; build_project "$P"

# ---- (1) CC=autoanalyzer-mpicc ---------------------------------------------------
cat > "$P/CMakeLists.txt" <<'EOT'
cmake_minimum_required(VERSION 3.16)
project(wrapped C)
include(CheckSymbolExists)
include(CheckCSourceRuns)
check_symbol_exists(printf stdio.h HAVE_PRINTF)
check_c_source_runs("int main(void) { return 0; }" PROGRAM_RUNS)
if(NOT HAVE_PRINTF OR NOT PROGRAM_RUNS)
  message(FATAL_ERROR "configure checks failed through the wrapper")
endif()
if(USE_FIND_MPI)
  find_package(MPI REQUIRED COMPONENTS C)
endif()
add_library(solver STATIC solver/solver.c)
if(USE_FIND_MPI)
  target_link_libraries(solver PUBLIC MPI::MPI_C)
endif()
add_executable(app main.c util.c)
target_link_libraries(app solver)
EOT
if (cd "$T" && CC=autoanalyzer-mpicc cmake -S src -B b1 -DCMAKE_BUILD_TYPE=Release >cm1.log 2>&1 &&
    cmake --build b1 >>cm1.log 2>&1); then
    _tap_result 0 "CMake, CC=autoanalyzer-mpicc: configure and build"
else
    _tap_result 1 "CMake, CC=autoanalyzer-mpicc: configure and build"; tail -20 "$T/cm1.log" | sed 's/^/#   /'
fi
like "$(grep CMAKE_C_COMPILER: "$T/b1/CMakeCache.txt")" "autoanalyzer-mpicc" "CMake uses the one-word wrapper"
ok "CMake (1): objects instrumented" has_map "$T/b1/CMakeFiles/app.dir/main.c.o"
ok "CMake (1): the static library's object instrumented" has_map "$T/b1/CMakeFiles/solver.dir/solver/solver.c.o"
is "$(find "$T" -name 'autoanalyzer-*' -type d | wc -l)" 0 "configure checks left no autoanalyzer-* directories"
expect_4_ranks cmake-cc "$T/b1/app"

# ---- (2) launchers, plain cc, find_package(MPI), Ninja, response files ------------------
if command -v ninja >/dev/null; then gen=Ninja; else gen="Unix Makefiles"; fi
if (cd "$T" && CC=cc cmake -S src -B b2 -G "$gen" -DUSE_FIND_MPI=ON \
        -DCMAKE_C_COMPILER_LAUNCHER="$AA;cc" -DCMAKE_C_LINKER_LAUNCHER="$AA;cc" \
        -DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON -DCMAKE_C_USE_RESPONSE_FILE_FOR_OBJECTS=ON \
        -DCMAKE_C_USE_RESPONSE_FILE_FOR_LIBRARIES=ON >cm2.log 2>&1 &&
    cmake --build b2 -v >>cm2.log 2>&1); then
    _tap_result 0 "CMake, launchers + find_package(MPI) + $gen: configure and build"
else
    _tap_result 1 "CMake, launchers + find_package(MPI) + $gen: configure and build"; tail -20 "$T/cm2.log" | sed 's/^/#   /'
fi
if [ "$gen" = Ninja ]; then
    like "$(grep -E ' -o app( |$)' "$T/cm2.log")" "@CMakeFiles/app\\.rsp" "the link goes through a response file"
    like "$(grep -A3 '^build app:' "$T/b2/build.ninja")" "LINK_LIBRARIES = .*/libmpi\\.so" "whose libraries (.../libmpi.so) are only inside it"
fi
ok "CMake (2): objects instrumented" has_map "$T/b2/CMakeFiles/app.dir/main.c.o"
like "$(readelf -d "$T/b2/app" | grep NEEDED | tr -d '\n')" "libautoanalyzer-mpi\\.so.*libmpi\\.so" "CMake (2): MPI wrappers before libmpi"
is "$(find "$T" -name 'autoanalyzer-*' -type d | wc -l)" 0 "no autoanalyzer-* directories after configuring"
expect_4_ranks cmake-launcher "$T/b2/app"
done_testing
