#!/bin/sh
# bench/analyze_mpi.sh -- the analysis as an MPI job on synthetic runs
# (autoanalyzer-analyze-mpi --synth: each rank generates its share of the
# run 256 processes at a time on each pass of the analysis, so it holds one
# such block of profiles besides the reduced values): time, CPU time, peak
# memory per rank and collective traffic from --stats, for each
# "RANKS PROCESSES REGIONS" configuration.
#   sh bench/analyze_mpi.sh [BUILD] ["RANKS PROCS REGIONS" ...]
# Default configurations: 16,384 x 500 on 4 ranks, 131,072 x 500 on 8
# ranks.  Ranks beyond the cores are oversubscribed: their wall time
# is mostly waiting for a core, so the CPU time is the figure to compare.
# Figures before/after and the serial analysis: bench/analyze_scale.md.
set -u
B=${1:-build}; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "4 16384 500" "8 131072 500"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none
status=0
for cfg in "$@"; do
    set -- $cfg
    echo "analyze-mpi: $1 ranks, $2 processes x $3 regions (slow-group)"
    mpirun -np "$1" "$B/bin/autoanalyzer-analyze-mpi" -q --stats \
        --synth slow-group --procs "$2" --regions "$3" || status=1
done
exit $status
