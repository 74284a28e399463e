#!/bin/bash
# bench/fortran_real.sh -- a real public Fortran MPI code through the
# Fortran instrumenter (issue 15): the Parallel Research Kernels' Fortran
# MPI kernels (github.com/ParRes/Kernels, directory FORTRAN/, free-form
# .F90 preprocessed sources, modules prk and prk_mpi, `use mpi_f08`),
# pinned to commit 04248b66.  Its code is not part of this repository.
#
#   git clone https://github.com/ParRes/Kernels /tmp/prk &&
#       git -C /tmp/prk checkout 04248b66
#   AA_BUILD=build bash bench/fortran_real.sh /tmp/prk
#
# For each kernel: build plainly (mpif90) and through the wrapper
# (autoanalyzer cc mpif90, default mode), the modules first as the
# project's Makefile does; count the regions and the regions left out
# (autoanalyzer instrument --map); run both with 4 ranks, compare stdout
# without the timing line ("Rate (MB/s) ... Avg time"), and report the
# average time of each (the kernel's own timer, minimum of 3 runs).
set -u
PRK=${1:?usage: bench/fortran_real.sh PRK-CHECKOUT}
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${AA_BUILD:-build}; case "$B" in /*) ;; *) B="$TOP/$B" ;; esac
export PATH="$B/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
KERNELS="nstream-mpi 20 2000000
transpose-a2a-mpi 10 1024
transpose-p2p-mpi 10 1024
transpose-get-mpi 10 1024
transpose-acc-mpi 10 1024"
for d in plain inst; do
    mkdir -p "$W/$d"; fc=mpif90; [ $d = inst ] && fc="autoanalyzer cc mpif90"
    (cd "$W/$d" && $fc -O3 -cpp -c "$PRK/FORTRAN/prk_mod.F90" -o prk_mod.o &&
        $fc -O3 -cpp -c "$PRK/FORTRAN/prk_mpi.F90" -o prk_mpi_mod.o) || echo "$d: modules do not build"
done
best() { # min of the "Avg time" over 3 runs
    for i in 1 2 3; do mpirun --oversubscribe -np 4 "$@" </dev/null 2>/dev/null | sed -n 's/.*Avg time (s):* *//p'; done |
        sort -g | head -1
}
printf '%-20s %-6s %-6s %-8s %-8s %-10s %-10s\n' kernel build output regions skipped plain_s inst_s
echo "$KERNELS" | while read -r name a1 a2; do
    st=ok
    for d in plain inst; do
        fc=mpif90; [ $d = inst ] && fc="autoanalyzer cc mpif90"
        (cd "$W/$d" && $fc -O3 -cpp "$PRK/FORTRAN/$name.F90" prk_mod.o prk_mpi_mod.o -o "$name") \
            >"$W/$d/$name.log" 2>&1 || st=FAIL
    done
    "$B/bin/autoanalyzer" instrument -q "$PRK/FORTRAN/$name.F90" -o "$W/x.F90" --map "$W/x.xml" -- -cpp -I"$W/inst"
    nreg=$(grep -c '<region ' "$W/x.xml"); nskip=$(grep -c 'instrumented="no"' "$W/x.xml")
    out=same
    for d in plain inst; do
        (cd "$W/$d" && mpirun --oversubscribe -np 4 "./$name" "$a1" "$a2" </dev/null 2>&1 | grep -v 'Avg time') >"$W/$d/$name.out"
    done
    cmp -s "$W/plain/$name.out" "$W/inst/$name.out" || out=DIFF
    tp=$(cd "$W/plain" && best "./$name" "$a1" "$a2"); ti=$(cd "$W/inst" && best "./$name" "$a1" "$a2")
    printf '%-20s %-6s %-6s %-8s %-8s %-10s %-10s\n' "$name" "$st" "$out" "$nreg" "$nskip" "$tp" "$ti"
done
