#!/usr/bin/env bash
# The runtime's warning for a multi-rank launch measured without the MPI
# library (runtime/probe.c): an MPI program linked with -lautoanalyzer only
# and run by mpirun -np 2 prints `autoanalyzer: warning:` exactly once (rank
# 0 of the launch), names the fix, and still exits 0 with the same stdout as
# the program built without the runtime; linked with libautoanalyzer-mpi it
# prints nothing.  The launchers' variables are also checked one by one with
# a serial program (Open MPI, MPICH/Intel MPI hydra, srun; rank != 0 and
# size 1 stay quiet; AUTOANALYZER_DISABLE stays quiet).
. "$(dirname "$0")/lib.sh"

command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip_all "MPI is not installed"
L="$AA_BUILD/lib"
[ -f "$L/libautoanalyzer-mpi.so" ] || skip_all "the runtime is not built"

# Both programs call the runtime (a user region), so that a linker that
# defaults to --as-needed keeps -lautoanalyzer, as it would for an
# instrumented program.
cat > "$T/mpiprog.c" <<'EOF'
#include "runtime/aa_runtime.h"
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    AA_REGION_BEGIN("reduce");
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    AA_REGION_END("reduce");
    printf("rank %d of %d sum %d\n", rank, size, sum);
    MPI_Finalize();
    return 0;
}
EOF
cat > "$T/serial.c" <<'EOF'
#include "runtime/aa_runtime.h"
#include <stdio.h>
int main(void)
{
    AA_REGION_BEGIN("print");
    puts("serial");
    AA_REGION_END("print");
    return 0;
}
EOF
W='^autoanalyzer: warning: '

ok "MPI program builds without the runtime" mpicc -I"$TOP" -o "$T/plain" "$T/mpiprog.c"
ok "MPI program builds with -lautoanalyzer only" \
    mpicc -I"$TOP" -DAUTOANALYZER -o "$T/core" "$T/mpiprog.c" -L"$L" -Wl,-rpath,"$L" -lautoanalyzer
ok "MPI program builds with -lautoanalyzer-mpi -lautoanalyzer" \
    mpicc -I"$TOP" -DAUTOANALYZER -o "$T/full" "$T/mpiprog.c" -L"$L" -Wl,-rpath,"$L" \
    -lautoanalyzer-mpi -lautoanalyzer
ok "serial program builds with -lautoanalyzer" \
    cc -I"$TOP" -DAUTOANALYZER -o "$T/serial" "$T/serial.c" -L"$L" -Wl,-rpath,"$L" -lautoanalyzer

expect_status 0 "plain build runs on 2 ranks" mpirun -np 2 "$T/plain"
want=$(sort "$T/.out")

expect_status 0 "-lautoanalyzer only: exits 0 under mpirun -np 2" \
    env AUTOANALYZER_OUTPUT="$T/o1" mpirun -np 2 "$T/core"
is "$(sort "$T/.out")" "$want" "-lautoanalyzer only: stdout unchanged"
is "$(grep -c "$W" "$T/.err")" 1 "-lautoanalyzer only: exactly one warning for the job"
like "$(grep "$W" "$T/.err")" "core runs as 2 processes" "the warning names the program and the launch size"
like "$(grep "$W" "$T/.err")" "covers that process only" "the warning says the profile covers one process"
like "$(grep "$W" "$T/.err")" "autoanalyzer-mpi" "the warning says how to fix it"
is "$(grep -vc "$W" "$T/.err")" 0 "nothing else on stderr"

expect_status 0 "with libautoanalyzer-mpi: exits 0 under mpirun -np 2" \
    env AUTOANALYZER_OUTPUT="$T/o2" mpirun -np 2 "$T/full"
is "$(grep -c "$W" "$T/.err")" 0 "with libautoanalyzer-mpi: no warning"
is "$(grep -c '<process ' "$T/o2/experiment.xml" 2>/dev/null)" 2 "with libautoanalyzer-mpi: 2 processes"

# The launchers' variables, one by one (serial program, no MPI at all).
quiet() { env -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u PMI_SIZE -u PMI_RANK \
    -u SLURM_STEP_NUM_TASKS -u SLURM_PROCID -u SLURM_NTASKS AUTOANALYZER_OUTPUT="$T/o3" "$@"; }
check() { # want-warnings name env...
    local want=$1 name=$2; shift 2
    expect_status 0 "$name: exits 0" quiet "$@" "$T/serial"
    is "$(cat "$T/.out")" serial "$name: stdout unchanged"
    is "$(grep -c "$W" "$T/.err")" "$want" "$name: $want warning(s)"
}
check 0 "no launcher"
check 1 "Open MPI rank 0 of 4" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4
check 0 "Open MPI rank 3 of 4" OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4
check 0 "Open MPI rank 0 of 1" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1
check 1 "hydra rank 0 of 3" PMI_RANK=0 PMI_SIZE=3
check 0 "hydra rank 2 of 3" PMI_RANK=2 PMI_SIZE=3
check 1 "srun task 0 of 8" SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=8
check 0 "sbatch script (SLURM_NTASKS without a step)" SLURM_PROCID=0 SLURM_NTASKS=8
check 0 "AUTOANALYZER_DISABLE=1" AUTOANALYZER_DISABLE=1 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4

done_testing
