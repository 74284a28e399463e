#!/bin/bash
# bench/real_npb_mz.sh -- one more real Fortran and one more real C++ MPI
# code through the instrumenters (issue 15): the NAS Parallel Benchmarks'
# BT-MZ (NPB3.3-MZ-MPI, MPI + OpenMP) in the Fortran 77 reference
# implementation (fixed form, COMMON blocks in headers, mpif.h, labelled
# loops, OpenMP directives) and its C++17 port BT-MZ-CXX (classes, a
# templated N-dimensional array, lambdas), both from
# github.com/devreal/npb3.3 pinned to commit b15a6826bb1a.  Their code is
# not part of this repository.
#
#   git clone https://github.com/devreal/npb3.3 /tmp/npb &&
#       git -C /tmp/npb checkout b15a6826bb1a9a418828f96c6f42cf9d6384ec16
#   AA_BUILD=build bash bench/real_npb_mz.sh /tmp/npb [CLASS]     (CLASS W by default)
#
# For each code: build plainly (mpif77 / mpicxx) and through the one-word
# wrappers (autoanalyzer-mpif77 / autoanalyzer-mpicxx, default mode, maps
# written with AUTOANALYZER_MAPDIR) with the suite's own Makefiles
# (gfortran 12 needs -fallow-argument-mismatch for the F77 code); count the
# regions instrumented and left out and the wrapper's warnings; run both
# with 4 ranks (OMP_NUM_THREADS=1) and compare stdout without the timing
# and build lines; report the benchmark's own "Time in seconds" (minimum of
# 3 interleaved runs of each) and the first finding of
# `autoanalyzer run --np 4` on the instrumented build.
set -u
NPB=${1:?usage: bench/real_npb_mz.sh NPB3.3-CHECKOUT [CLASS]}
CLASS=${2:-W}
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${AA_BUILD:-build}; case "$B" in /*) ;; *) B="$TOP/$B" ;; esac
export PATH="$B/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
NP=4
FFLAGS_="-O2 -fallow-argument-mismatch -fopenmp"

build() { # lang mode -> prints the binary path, or nothing
    local lang=$1 mode=$2 d="$W/$1-$2" fc=mpif77 cxx=mpicxx
    [ "$mode" = inst ] && fc=autoanalyzer-mpif77 cxx=autoanalyzer-mpicxx
    rm -rf "$d"; cp -r "$NPB" "$d"; mkdir -p "$d/bin" "$W/maps-$lang"
    if [ "$lang" = F ]; then
        (cd "$d" && AUTOANALYZER_MAPDIR="$W/maps-$lang" make bt-mz CLASS="$CLASS" NPROCS=$NP \
            F77="$fc" FFLAGS="$FFLAGS_" FLINKFLAGS="-O2 -fopenmp") >"$W/$lang-$mode.log" 2>&1 &&
            echo "$d/bin/bt-mz.$CLASS.$NP.F"
    else
        (cd "$d/BT-MZ-CXX" && AUTOANALYZER_MAPDIR="$W/maps-$lang" make CLASS="$CLASS" NPROCS=$NP \
            CXX="$cxx") >"$W/$lang-$mode.log" 2>&1 && echo "$d/bin/bt-mz.$CLASS.$NP.cxx"
    fi
}
output() { sed '/Compile options/,$d' | grep -v -E 'Time in seconds|Mop/s|Compile date'; }
seconds() { sed -n 's/.*Time in seconds = *//p'; }

printf '%-10s %-6s %-6s %-8s %-9s %-9s %-9s %-9s %s\n' code build output regions left_out warnings plain_s inst_s finding
for lang in F CXX; do
    plain=$(build "$lang" plain); inst=$(build "$lang" inst)
    st=ok; [ -n "$plain" ] && [ -n "$inst" ] || st=FAIL
    nreg=$(cat "$W/maps-$lang"/*.regions.xml 2>/dev/null | grep '<region ' | grep -vc 'instrumented="no"')
    nskip=$(cat "$W/maps-$lang"/*.regions.xml 2>/dev/null | grep -c 'instrumented="no"')
    nwarn=$(grep -c -E 'warning: autoanalyzer|autoanalyzer: warning' "$W/$lang-inst.log")
    out=-; tp=-; ti=-; finding=-
    if [ $st = ok ]; then
        (cd "$W" && mpirun --oversubscribe -np $NP "$plain" </dev/null 2>&1) | output >"$W/$lang.plain.out"
        (cd "$W" && mpirun --oversubscribe -np $NP "$inst" </dev/null 2>&1) | output >"$W/$lang.inst.out"
        out=same; cmp -s "$W/$lang.plain.out" "$W/$lang.inst.out" || out=DIFF
        grep -q 'Verification *= *SUCCESSFUL' "$W/$lang.inst.out" || out="$out,NOT-VERIFIED"
        tp=; ti=
        for i in 1 2 3; do
            tp="$tp $(cd "$W" && mpirun --oversubscribe -np $NP "$plain" </dev/null 2>/dev/null | seconds)"
            ti="$ti $(cd "$W" && mpirun --oversubscribe -np $NP "$inst" </dev/null 2>/dev/null | seconds)"
        done
        tp=$(echo $tp | tr ' ' '\n' | sort -g | head -1); ti=$(echo $ti | tr ' ' '\n' | sort -g | head -1)
        (cd "$W" && timeout 300 autoanalyzer run --np $NP --no-store --out "$W/run-$lang" -- "$inst") \
            >"$W/run-$lang.log" 2>&1
        finding=$(grep -m1 -E '^ *[0-9]+\. |imbalance|hotspot' "$W/run-$lang.log" | sed 's/^ *//' | cut -c1-110)
    fi
    printf '%-10s %-6s %-6s %-8s %-9s %-9s %-9s %-9s %s\n' "$lang" "$st" "$out" "$nreg" "$nskip" "$nwarn" \
        "$tp" "$ti" "$finding"
    if [ "${AA_BENCH_VERBOSE:-0}" = 1 ]; then
        grep -E 'warning: autoanalyzer|autoanalyzer: warning' "$W/$lang-inst.log" | sed 's/^[^ ]*: //' | sort | uniq -c | sort -rn | head -5
        grep -h -o 'reason="[^"]*"' "$W/maps-$lang"/*.regions.xml | sort | uniq -c | sort -rn
        sed -n '1,25p' "$W/run-$lang.log"
    fi
done
