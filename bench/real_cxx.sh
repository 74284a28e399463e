#!/bin/bash
# bench/real_cxx.sh -- a real public C++ MPI code through the C++
# instrumenter (issue 15): LULESH 2.0 (LLNL/LULESH, C++ with MPI, one
# Domain class, templated helpers, `static inline` kernels), pinned below.
#
#   AA_BUILD=build AA_APPS_DIR=/tmp/aa-apps bash bench/real_cxx.sh
#
# Needs the checkout in $AA_APPS_DIR/LULESH:
#   git clone https://github.com/LLNL/LULESH $AA_APPS_DIR/LULESH
#   git -C $AA_APPS_DIR/LULESH checkout 3e01c40b3281aadb7f996525cdd4a3354f6d3801
# Builds it three times with its own Makefile -- plain (mpicxx), through the
# wrapper in the default mode (MPICXX="autoanalyzer cc mpicxx"), and with
# AUTOANALYZER_MODE=default,tiny (its kernels are `static inline`, which the
# size rules leave out by default) -- and reports for each: build status,
# new compiler warnings, regions instrumented / listed as left out (region
# maps, AUTOANALYZER_MAPDIR), output identical to the plain build on 8 ranks
# (the timing lines masked), the run time of 1 rank (-s 20 -i 40, best of
# AA_REPS interleaved runs), and what `autoanalyzer run --np 8` finds.
# Prints one line per variant.  Exit status 0 when every variant builds and
# prints the same results.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
AA_BUILD=${AA_BUILD:-build}
case "$AA_BUILD" in /*) ;; *) AA_BUILD="$TOP/$AA_BUILD" ;; esac
AA="$AA_BUILD/bin/autoanalyzer"
SRC=${AA_APPS_DIR:-/tmp/aa-apps}/LULESH
REPS=${AA_REPS:-3}
W=${AA_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/aa-real-cxx.XXXXXX")}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$W"
[ -f "$SRC/lulesh.cc" ] || { echo "LULESH not found in $SRC (see the header for the clone)"; exit 1; }
# masked: elapsed/grind time and FOM (timing)
mask() { grep -Evi 'elapsed time|grind time|FOM'; }
flags='CXXFLAGS=-g -O3 -I. -Wall'
fail=0
build() { # variant compiler-command [env]
    local v=$1 cxx=$2; shift 2
    rm -rf "${W:?}/$v" && cp -r "$SRC" "$W/$v" && rm -rf "$W/$v/.git"
    (cd "$W/$v" && env "$@" AUTOANALYZER_MAPDIR="$W/$v/maps" make -j2 MPICXX="$cxx -DUSE_MPI=1" \
        "$flags" LDFLAGS="-g -O3" >build.log 2>&1)
}
build plain mpicxx || fail=1
build default "$AA cc mpicxx" || fail=1
build tiny "$AA cc mpicxx" AUTOANALYZER_MODE=default,tiny || fail=1
best() { sort -n | head -1; }
for r in $(seq "$REPS"); do
    for v in plain default tiny; do
        s=$(date +%s.%N)
        (cd "$W/$v" && mpirun -np 1 ./lulesh2.0 -s 20 -i 40 >run1.out 2>&1)
        echo "$(echo "$(date +%s.%N) - $s" | bc)" >>"$W/$v.times"
    done
done
(cd "$W/plain" && mpirun -np 8 ./lulesh2.0 -s 8 -i 40 | mask >run8.out)
base=$(best <"$W/plain.times")
printf '%-8s %-6s %-9s %-10s %-9s %-9s %s\n' variant build warnings regions same-out time-1rk overhead
for v in plain default tiny; do
    st=ok; [ -x "$W/$v/lulesh2.0" ] || { st=FAIL; fail=1; }
    nw=$(grep -v autoanalyzer "$W/$v/build.log" | grep -c 'warning:')
    regs=-; same=-
    if [ "$v" != plain ]; then
        regs="$(cat "$W/$v"/maps/*.xml | grep '<region' | grep -vc 'instrumented="no"')/$(cat "$W/$v"/maps/*.xml | grep -c 'instrumented="no"')"
        (cd "$W/$v" && mpirun -np 8 ./lulesh2.0 -s 8 -i 40 | mask >run8.out)
        if cmp -s "$W/plain/run8.out" "$W/$v/run8.out"; then same=yes; else same=NO; fail=1; fi
    fi
    t=$(best <"$W/$v.times")
    printf '%-8s %-6s %-9s %-10s %-9s %-9s %s\n' "$v" "$st" "$nw" "$regs" "$same" "$t" \
        "$(echo "scale=3; $t / $base" | bc)x"
done
for v in default tiny; do
    (cd "$W/$v" && "$AA" run --np 8 --no-store --name "lulesh-$v" --out "$W/$v/run" -- ./lulesh2.0 -s 8 -i 40 \
        >"$W/$v/aa.log" 2>&1)
    echo "== $v: autoanalyzer run --np 8 (exit $?), findings:"
    sed -n '/^Findings by impact/,/^[A-Z]/p' "$W/$v/aa.log" | grep '^ *[0-9]\.' | head -5
done
echo "work directory: $W"
exit $fail
