#!/usr/bin/env bash
# The installed CMake package (lib/cmake/AutoAnalyzer/, mk/pkg/*.cmake.in):
# installed into a PREFIX that is then moved elsewhere (the package must be
# relocatable), a CMake project does find_package(MPI) and
# find_package(AutoAnalyzer 0.1 REQUIRED COMPONENTS mpi), links
# `MPI::MPI_C AutoAnalyzer::mpi` (MPI first, the risky order) with
# -Wl,--as-needed forced, and the program records all 4 ranks of a mpirun
# in one experiment, with its AA_REGION_* region; a program whose MPI calls
# and I/O are all in a user shared library is measured completely (the
# link option keeps both runtime libraries), and so is a program linked
# with AutoAnalyzer::runtime that calls nothing of it; a last target is built
# through autoanalyzer_instrument() (the wrapper as compiler and linker
# launcher) and records its functions.  A too-new version, an unknown
# component and a version range that excludes the installed version are
# refused at configure time; a range that includes it is accepted.
. "$(dirname "$0")/lib.sh"

command -v cmake >/dev/null || skip_all "cmake is not installed"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip_all "MPI is not installed"
[ -f "$AA_BUILD/lib/libautoanalyzer-mpi.so" ] || skip_all "libautoanalyzer-mpi.so is not built"

# root_metric EXPERIMENT.xml METRIC -> the whole-program value, one line per process
root_metric() {
    awk -v m="$2" '/<metric name=/ { n++; if (index($0, "name=\"" m "\"")) k = n }
        /<node region="0" parent="-1"/ { match($0, /v="[^"]*"/); split(substr($0, RSTART + 3, RLENGTH - 4), a, " "); print a[k] }' "$1"
}

case "$AA_BUILD" in "$TOP"/*) B=${AA_BUILD#"$TOP"/} ;; *) B=$AA_BUILD ;; esac
ok "make install PREFIX=$T/prefix" make --no-print-directory -s -C "$TOP" B="$B" install PREFIX="$T/prefix"
mv "$T/prefix" "$T/moved"
P="$T/moved"
version=$("$AA" version | sed -n 's/^autoanalyzer version //p')

mkdir -p "$T/proj"
cat > "$T/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(aa_cmake_test C)
find_package(MPI REQUIRED COMPONENTS C)
find_package(AutoAnalyzer 0.1 REQUIRED COMPONENTS mpi)
message(STATUS "AA version=${AutoAnalyzer_VERSION}")
message(STATUS "AA includes=${AutoAnalyzer_INCLUDE_DIRS}")
add_executable(app app.c)
target_link_libraries(app PRIVATE MPI::MPI_C AutoAnalyzer::mpi)
add_library(work SHARED work.c)
target_link_libraries(work PRIVATE MPI::MPI_C)
add_executable(app2 main2.c)
target_link_libraries(app2 PRIVATE work AutoAnalyzer::mpi)
add_executable(whole whole.c)
target_link_libraries(whole PRIVATE AutoAnalyzer::runtime)
add_executable(inst inst.c)
autoanalyzer_instrument(inst)
EOF
printf '#include <stdio.h>\nint main(void)\n{\n    puts("whole");\n    return 0;\n}\n' > "$T/proj/whole.c"
cat > "$T/proj/work.c" <<'EOF'
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int work_run(int argc, char **argv)
{
    char buf[1000] = {0};
    FILE *f;
    MPI_Init(&argc, &argv);
    f = tmpfile();
    if (!f || write(fileno(f), buf, sizeof buf) != (ssize_t)sizeof buf)
        return 1;
    fclose(f);
    MPI_Finalize();
    return 0;
}
EOF
printf 'int work_run(int argc, char **argv);\nint main(int argc, char **argv) { return work_run(argc, argv); }\n' \
    > "$T/proj/main2.c"
cat > "$T/proj/app.c" <<'EOF'
#include <autoanalyzer/aa_runtime.h>
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        AA_REGION_SCOPE("reduce");
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("size %d sum %d\n", size, sum);
    MPI_Finalize();
    return 0;
}
EOF
cat > "$T/proj/inst.c" <<'EOF'
#include <stdio.h>
static double kernel(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}
int main(void)
{
    printf("%g\n", kernel(1000));
    return 0;
}
EOF

ok "cmake configures (find_package(AutoAnalyzer 0.1 REQUIRED COMPONENTS mpi))" \
    cmake -S "$T/proj" -B "$T/proj/b" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed
like "$(cat "$T/.out")" "AA version=$version" "AutoAnalyzer_VERSION is the installed version"
like "$(cat "$T/.out")" "AA includes=$P/include;$P/include/autoanalyzer" \
    "AutoAnalyzer_INCLUDE_DIRS point into the moved prefix"
ok "cmake --build" cmake --build "$T/proj/b"
app="$T/proj/b/app"
needed=$(readelf -d "$app" 2>&1 | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
like "$needed" "^libautoanalyzer-mpi\.so libautoanalyzer\.so .*libmpi" \
    "app needs libautoanalyzer-mpi.so and libautoanalyzer.so before libmpi despite --as-needed"
ok "app runs on 4 ranks" env AUTOANALYZER_OUTPUT="$T/out" mpirun -np 4 "$app"
is "$(cat "$T/.out")" "size 4 sum 6" "app output unchanged"
X="$T/out/experiment.xml"
like "$(head -3 "$X" 2>&1)" 'nprocs="4"' "the experiment records nprocs 4"
is "$(grep -c '<process ' "$X" 2>/dev/null)" 4 "the experiment holds 4 processes"
is "$(grep -c 'kind="user" name="reduce"' "$X" 2>/dev/null)" 1 "the AA_REGION_SCOPE region is recorded"

# app2: MPI and I/O only in the user's libwork.so, main() references nothing
# of the runtime; the link option keeps libautoanalyzer.so (before libc).
ok "app2 runs on 4 ranks" env AUTOANALYZER_OUTPUT="$T/out3" mpirun -np 4 "$T/proj/b/app2"
is "$(grep -c '<process ' "$T/out3/experiment.xml" 2>/dev/null)" 4 "app2: 4 processes"
is "$(root_metric "$T/out3/experiment.xml" io_write_bytes | tr '\n' ' ')" "1000 1000 1000 1000 " \
    "app2: the write() in libwork.so is measured on every rank"

# whole: calls nothing of the runtime, linked with AutoAnalyzer::runtime.
ok "whole (AutoAnalyzer::runtime, no runtime calls) runs" env AUTOANALYZER_OUTPUT="$T/out4" "$T/proj/b/whole"
ok "whole is measured despite --as-needed (experiment.xml written)" test -f "$T/out4/experiment.xml"

ok "autoanalyzer_instrument target runs" env AUTOANALYZER_OUTPUT="$T/out2" "$T/proj/b/inst"
is "$(cat "$T/.out")" "499500" "its output is unchanged"
like "$(cat "$T/out2/experiment.xml" 2>&1)" 'kind="function" name="kernel"' \
    "the instrumented function kernel() is recorded"

# Version and component checks at configure time.
fp() { # status name find_package-arguments
    mkdir -p "$T/r$_tap_n"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(r C)\nfind_package(AutoAnalyzer %s REQUIRED)\n' \
        "$3" > "$T/r$_tap_n/CMakeLists.txt"
    expect_status "$1" "$2" cmake -S "$T/r$_tap_n" -B "$T/r$_tap_n/b" -DCMAKE_PREFIX_PATH="$P"
}
fp 1 "find_package(AutoAnalyzer 99.0) fails" "99.0"
like "$(cat "$T/.err")" "version: $version" "the message names the installed version"
fp 0 "find_package(AutoAnalyzer 0.1...<1.0) succeeds" "0.1...<1.0"
fp 1 "find_package(AutoAnalyzer 0.0.1...0.0.9) fails" "0.0.1...0.0.9"
fp 1 "an unknown component fails" "COMPONENTS nosuch"
like "$(cat "$T/.err")" "unknown component nosuch" "the message names the component"

done_testing
