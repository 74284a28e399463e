# tests/e2e/build_lib.sh -- sourced by tests/e2e/build_*.t (after lib.sh):
# a small MPI program in several files whose MPI calls all live in one
# static library (main.c never calls MPI), and a check that a 4-rank run
# of a program built through the wrapper is recorded as 4 processes.
#
#   build_project DIR      writes DIR/main.c, DIR/util.c, DIR/util.h,
#                          DIR/solver/solver.c, DIR/solver/solver.h
#   expect_4_ranks NAME PROG   runs PROG on 4 ranks, collects, checks
#                          nprocs 4, ranks 4 and that regions are known

export PATH="$AA_BUILD/bin:$PATH"
unset AUTOANALYZER_LIBDIR AUTOANALYZER_MAPDIR AUTOANALYZER_WRAPPER AUTOANALYZER_DISABLE

build_project() {
    mkdir -p "$1/solver"
    cat > "$1/util.h" <<'EOT'
double work(int rank, int n);
EOT
    cat > "$1/util.c" <<'EOT'
#include "util.h"
double work(int rank, int n)
{
    double s = 0;
    for (int i = 0; i < n * (rank + 1); i++)
        s += i * 0.5;
    return s;
}
EOT
    cat > "$1/solver/solver.h" <<'EOT'
int solve(int *argc, char ***argv, double (*f)(int, int));
EOT
    cat > "$1/solver/solver.c" <<'EOT'
#include <mpi.h>
#include <stdio.h>
#include "solver.h"
int solve(int *argc, char ***argv, double (*f)(int, int))
{
    int rank, size;
    double mine, total;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = f(rank, 20000);
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d total %.1f\n", size, total);
    MPI_Finalize();
    return 0;
}
EOT
    cat > "$1/main.c" <<'EOT'
#include "solver/solver.h"
#include "util.h"
int main(int argc, char **argv)
{
    return solve(&argc, &argv, work);
}
EOT
}

# expect_4_ranks NAME PROG
expect_4_ranks() {
    local name=$1 prog=$2 out="$T/out-$1" j
    rm -rf "$out"
    if ! AUTOANALYZER_OUTPUT="$out" mpirun -np 4 "$prog" > "$T/$name.run" 2>&1; then
        _tap_result 1 "$name: runs on 4 ranks"; sed 's/^/#   /' "$T/$name.run" | head -20
        return
    fi
    _tap_result 0 "$name: runs on 4 ranks"
    j=$("$AA" collect "$out" --json -o "$T/$name.xml" 2>"$T/$name.collect")
    like "$j" '"nprocs": 4,' "$name: the experiment has nprocs 4"
    like "$j" '"ranks": 4,' "$name: 4 processes recorded"
    like "$j" '"regions": [1-9]' "$name: the instrumented regions are known"
}
