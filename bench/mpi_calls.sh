#!/bin/sh
# bench/mpi_calls.sh BUILD [BASE_BUILD] -- the measured MPI call's cost:
# bench/mpi_calls.c built plainly, with BUILD's `autoanalyzer cc mpicc` and
# (optionally) with BASE_BUILD's, run on one rank interleaved AA_MC_RUNS
# times (default 5); prints each variant's median ns per MPI_Allreduce (a
# synchronizing call: it pairs steps) and per MPI_Iprobe.
set -e
B=${1:-build}
BASE=${2:-}
RUNS=${AA_MC_RUNS:-5}
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/aa-mpicalls.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpicc -O2 -o "$W/plain" "$TOP/bench/mpi_calls.c"
"$B/bin/autoanalyzer" cc mpicc -O2 -o "$W/this" "$TOP/bench/mpi_calls.c" >/dev/null
V="plain this"
if [ -n "$BASE" ]; then
    "$BASE/bin/autoanalyzer" cc mpicc -O2 -o "$W/base" "$TOP/bench/mpi_calls.c" >/dev/null
    V="plain base this"
fi
r=0
while [ $r -lt "$RUNS" ]; do
    for v in $V; do
        echo "$v $(cd "$W" && AUTOANALYZER_OUTPUT="$W/out-$v-$r" mpirun -np 1 "./$v" 2>/dev/null)"
    done
    r=$((r + 1))
done > "$W/times"
echo "# ns per call, median of $RUNS interleaved runs (one rank)"
for v in $V; do
    a=$(awk -v v="$v" '$1 == v { print $3 }' "$W/times" | sort -n | awk '{ x[NR] = $1 } END { print x[int((NR + 1) / 2)] }')
    i=$(awk -v v="$v" '$1 == v { print $5 }' "$W/times" | sort -n | awk '{ x[NR] = $1 } END { print x[int((NR + 1) / 2)] }')
    printf '%-6s MPI_Allreduce %6s  MPI_Iprobe %6s\n' "$v" "$a" "$i"
done
