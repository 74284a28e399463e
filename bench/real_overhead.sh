#!/bin/bash
# bench/real_overhead.sh -- measurement overhead on real applications
# (issue 14: "under 2% by default on real applications").  For the
# compute-bound apps of bench/real_builds.sh (XSBench, graph500, CoMD,
# miniAMR, PRK PIC-static and Stencil, AMG) it builds each app plainly
# (mpicc) and through the wrapper in the default mode (autoanalyzer-mpicc,
# else "autoanalyzer cc mpicc"), then runs a problem of a few seconds with
# NP ranks, plain and instrumented interleaved (plain, inst, plain, ...;
# RUNS rounds), and prints per app the median and min-max wall time of
# mpirun on each side, the overhead of the medians and, at the end, the
# geometric mean of instrumented/plain.
#
#   AA_BUILD=build-j AA_APPS_DIR=/tmp/aa-apps bash bench/real_overhead.sh
#
# Environment:
#   AA_APPS_DIR  checked-out apps as for bench/real_builds.sh (repositories
#                and commits in bench/real_builds.md); default /tmp/aa-apps
#   AA_BUILD     AutoAnalyzer build directory (default build)
#   AA_WORK      scratch directory (default a new /tmp/aa-real-overhead.XXXXXX)
#   AA_ONLY      subset of apps (names as in APPS below)
#   AA_NP        ranks (default: the CPU count, at most 4)
#   AA_RUNS      interleaved rounds (default 5)
#   AA_PHASE     "build", "run" or "all" (default): "build" only builds
#                into AA_WORK/APP/{plain,default}; "run" only times the
#                programs already there (so that binaries built on one
#                machine can be timed on another with the same OS and MPI)
#   AA_VARIANTS  instrumented variants to time in the run phase (directories
#                AA_WORK/APP/VARIANT), e.g. "before default filter" to time
#                two instrumenter versions against the same plain runs;
#                AA_LIBPATH_<variant> is that variant's LD_LIBRARY_PATH
#                (binaries built on another machine: their runtime)
#   AA_FILTER_VARIANT=1  also build a "filter" variant with
#                AUTOANALYZER_FILTER from `autoanalyzer filter --from` on
#                one default-mode run (when the command exists)
#   AA_COUNT=0   skip the counting runs: by default, after the timed rounds
#                each variant runs once more with throttling off (probe
#                pairs per process: every visit of every region node) and
#                once with the default throttling (visits still timed, the
#                rest untimed), and the overhead they predict against the
#                plain median is printed ("pairs" and "throttled" lines) at
#                AA_PROBE_NS ns per timed pair (default 20, the development
#                VM's pair); of the untimed visits, those the probe counted
#                inline (process attribute gated_visits) at AA_GATED_NS
#                (default 0.4) and the others (the runtime's throttled frame
#                path) at AA_FRAME_NS (default 6.5); a runtime writing no
#                gated_visits: every untimed visit at AA_UNTIMED_NS_<variant>
#                (default AA_UNTIMED_NS, 0.3) -- figures the load of a shared
#                machine does not move (bench/probe_compare measures the ns);
#                AA_PLAIN_S_<app>: the plain seconds they are compared with
#                (default: this run's plain median; on a loaded machine, a
#                median taken when it was quiet)
set -u
. "$(dirname "$0")/real_lib.sh"
real_setup real-overhead
NCPU=$(nproc)
NP=${AA_NP:-$((NCPU < 4 ? NCPU : 4))}
RUNS=${AA_RUNS:-5}
PHASE=${AA_PHASE:-all}
JOBS=${AA_JOBS:-2}

# APP|directory in AA_APPS_DIR|program (relative to the build tree) and
# arguments.  Problem sizes: 3-5 s per plain run on the 2-core VM with 2
# ranks (XSBench with the nuclide grid: a binary search per nuclide and
# lookup, no 10-s unionized-grid set-up; the process grid of miniAMR and
# AMG follows AA_NP, so the work per rank stays the same).
APPS='
XSBench|XSBench|openmp-threading/XSBench -s small -G nuclide -l 500000 -m event -t 1
graph500|graph500|src/graph500_reference_bfs 13 16
CoMD|CoMD|bin/CoMD-mpi -i 2 -j 1 -k 1 -x 24 -y 24 -z 24 -N 20 -n 10
miniAMR|miniAMR|ref/miniAMR.x --npx 2 --npy 1 --npz 1 --nx 4 --ny 4 --nz 4 --num_tsteps 20 --num_refine 2 --max_blocks 2000 --num_objects 1 --object 2 0 -1.10 -1.10 -1.10 0.030 0.030 0.030 1.5 1.5 1.5 0.0 0.0 0.0 --checksum_freq 4 --stages_per_ts 10
PIC|Kernels|MPI1/PIC-static/pic 20 1000 1000000 0 1 GEOMETRIC 0.99
Stencil|Kernels|MPI1/Stencil/stencil 20 4000
AMG|AMG|test/amg -n 40 40 40 -P 2 1 1
'

mk() { make -j"$JOBS" "$@"; }
# The build commands are those of bench/real_builds.sh (CCW = C compiler).
build_XSBench() { mk -C openmp-threading MPI=yes CC="$CCW"; }
build_graph500() {
    mk -C src MPICC="$CCW" graph500_reference_bfs \
        CFLAGS="-Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon"
}
build_CoMD() { cp src-mpi/Makefile.vanilla src-mpi/Makefile && mk -C src-mpi CC="$CCW"; }
build_miniAMR() { mk -C ref CC="$CCW" LD="$CCW"; }
kernels_defs() { printf 'CC=mpicc -std=c99\nMPICC=%s -std=c99\nDEFAULT_OPT_FLAGS=-O3\nOPENMPFLAG=-fopenmp\n' "$CCW" > common/make.defs; }
build_PIC() { kernels_defs && make -C MPI1/PIC-static pic; }
build_Stencil() { kernels_defs && make -C MPI1/Stencil stencil; }
build_AMG() { make CC="$CCW"; }

# fix_args APP ARGS: the process grid of the apps that need one, for NP
# ranks (miniAMR --npx/--npy/--npz, AMG -P, CoMD -i/-j/-k: their product
# must be NP).
grid3() { # NP -> "x y z" with x*y*z = NP, as even as possible
    local n=$1 x=1 y=1 z=1 f=2
    while [ "$n" -gt 1 ]; do
        while [ $((n % f)) -ne 0 ]; do f=$((f + 1)); done
        n=$((n / f))
        if [ $x -le $y ] && [ $x -le $z ]; then x=$((x * f)); elif [ $y -le $z ]; then y=$((y * f)); else z=$((z * f)); fi
    done
    echo "$x $y $z"
}
fix_args() {
    local app=$1 args=$2 g
    g=($(grid3 "$NP"))
    case $app in
    miniAMR) args=$(echo "$args" | sed "s/--npx 2 --npy 1 --npz 1/--npx ${g[0]} --npy ${g[1]} --npz ${g[2]}/") ;;
    AMG) args=$(echo "$args" | sed "s/-P 2 1 1/-P ${g[0]} ${g[1]} ${g[2]}/") ;;
    CoMD) args=$(echo "$args" | sed "s/-i 2 -j 1 -k 1/-i ${g[0]} -j ${g[1]} -k ${g[2]}/") ;;
    esac
    echo "$args"
}

build_app() { # APP DIR VARIANT [FILTER]
    local app=$1 dir=$2 v=$3 filt=${4:-}
    local src="$AA_WORK/$app/$v"
    rm -rf "$src"; mkdir -p "$src"
    (cd "$AA_APPS_DIR/$dir" && tar cf - --exclude=.git .) | tar xf - -C "$src"
    if [ "$v" = plain ]; then CCW=mpicc; else CCW=$WRAP_CC; fi
    ( cd "$src" && export CCW JOBS && export -f mk kernels_defs "build_$app" &&
      if [ -n "$filt" ]; then export AUTOANALYZER_FILTER=$filt; fi &&
      bash -c "build_$app" ) >"$AA_WORK/$app/$v.build.log" 2>&1 </dev/null
}

stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'; }

run_once() { # APP VARIANT PROG ARGS... -> appends wall seconds
    local app=$1 v=$2; shift 2
    local rd="$AA_WORK/$app/run-$v" lp
    eval "lp=\${AA_LIBPATH_$v:-\${LD_LIBRARY_PATH:-}}"
    mkdir -p "$rd"
    ( cd "$rd" && export LD_LIBRARY_PATH="$lp" && AUTOANALYZER_OUTPUT="$rd/exp" /usr/bin/time -f '%e' -o "$rd/t" \
        timeout 300 mpirun --oversubscribe -np "$NP" "$AA_WORK/$app/$v/$@" >"$rd/stdout" 2>"$rd/stderr" ) </dev/null
    local rc=$?
    [ "$rc" = 0 ] || [ "$app:$rc" = XSBench:1 ] || echo "real_overhead $app: $v run exit $rc (see $rd/stderr)"
    tail -1 "$rd/t" >> "$AA_WORK/$app/times.$v"
}

# count_run APP VARIANT off|default ARGS... -> the experiment file of one
# untimed run (throttling off, or the default throttling)
count_run() {
    local app=$1 v=$2 thr=$3; shift 3
    local rd="$AA_WORK/$app/cnt-$v-$thr" lp
    eval "lp=\${AA_LIBPATH_$v:-\${LD_LIBRARY_PATH:-}}"
    rm -rf "$rd"; mkdir -p "$rd"
    ( cd "$rd" && export LD_LIBRARY_PATH="$lp" &&
      if [ "$thr" = off ]; then export AUTOANALYZER_THROTTLE=off; else unset AUTOANALYZER_THROTTLE; fi &&
      AUTOANALYZER_OUTPUT="$rd/exp" timeout 600 mpirun --oversubscribe -np "$NP" "$AA_WORK/$app/$v/$@" \
          >"$rd/stdout" 2>"$rd/stderr" ) </dev/null
    [ -s "$rd/exp/experiment.xml" ] || "$AA" collect "$rd/exp" -o "$rd/exp/experiment.xml" >/dev/null 2>&1
    [ -s "$rd/exp/experiment.xml" ] && echo "$rd/exp/experiment.xml"
}
# gated_count EXPERIMENT -> visits counted at the probe per process ("-"
# when the runtime does not write them)
gated_count() {
    awk '/<experiment / { if (match($0, /nprocs="[0-9]+"/)) np = substr($0, RSTART + 8, RLENGTH - 9) + 0 }
        /<attr name="gated_visits">/ { if (match($0, />[0-9]+</)) { g += substr($0, RSTART + 1, RLENGTH - 2); n++ } }
        END { if (np < 1) np = 1; if (n) printf "%.0f\n", g / np; else print "-" }' "$1"
}
# pairs_count EXPERIMENT -> visits of every node but the roots, per process
pairs_count() {
    awk '/<experiment / { if (match($0, /nprocs="[0-9]+"/)) np = substr($0, RSTART + 8, RLENGTH - 9) + 0 }
        /<node / && !/region="0"/ { if (match($0, / v="[^ "]*/)) t += substr($0, RSTART + 4, RLENGTH - 4) }
        END { if (np < 1) np = 1; printf "%.0f\n", t / np }' "$1"
}
PROBE_NS=${AA_PROBE_NS:-20}
count_app() { # APP VARIANT PLAIN_MEDIAN ARGS...
    local app=$1 v=$2 pm=$3 off dflt p t g uns ref; shift 3
    eval "ref=\${AA_PLAIN_S_$app:-}"; [ -z "$ref" ] || pm=$ref
    off=$(count_run "$app" "$v" off "$@") || { echo "real_overhead $app: $v count run failed"; return; }
    dflt=$(count_run "$app" "$v" default "$@") || { echo "real_overhead $app: $v throttled count run failed"; return; }
    p=$(pairs_count "$off"); t=$(pairs_count "$dflt"); g=$(gated_count "$dflt")
    eval "uns=\${AA_UNTIMED_NS_$v:-\${AA_UNTIMED_NS:-0.3}}"
    echo "$p $t $g" | awk -v n="$app" -v v="$v" -v pm="$pm" -v ns="$PROBE_NS" -v uns="$uns" \
        -v gns="${AA_GATED_NS:-0.4}" -v fns="${AA_FRAME_NS:-6.5}" \
        -v g1="$AA_WORK/geo.pairs" -v g2="$AA_WORK/geo.thr" '
        { o = $1 * ns * 1e-9 / pm; u = $1 - $2; if (u < 0) u = 0
          if ($3 == "-") { c = ($2 * ns + u * uns) * 1e-9 / pm; how = uns " ns" }
          else { gv = $3 > u ? u : $3; c = ($2 * ns + gv * gns + (u - gv) * fns) * 1e-9 / pm
                 how = sprintf("%.0f of them gated at %s ns, the rest at %s ns", gv, gns, fns) }
          printf "pairs         %-8s %-7s %12.0f probe pairs per process  predicts %+7.2f%% at %s ns\n", n, v, $1, o * 100, ns
          printf "throttled     %-8s %-7s %12.0f timed + %12.0f untimed   predicts %+7.2f%% at %s ns + %s\n", n, v, $2, u, c * 100, ns, how
          print v, 1 + o >> g1; print v, 1 + c >> g2 }'
}

printf 'AutoAnalyzer real-application overhead: %s, wrapper "%s", %d ranks, %d interleaved runs, %d CPUs, work in %s\n' \
    "$("$AA" version 2>/dev/null | head -1)" "$WRAP_CC" "$NP" "$RUNS" "$NCPU" "$AA_WORK"
: > "$AA_WORK/geo"; : > "$AA_WORK/geo.pairs"; : > "$AA_WORK/geo.thr"
while IFS='|' read -r app dir cmd; do
    [ -n "$app" ] || continue
    if [ -n "${AA_ONLY:-}" ] && ! printf ' %s ' "$AA_ONLY" | grep -q " $app "; then continue; fi
    variants="default"
    if [ "$PHASE" != run ]; then
        [ -d "$AA_APPS_DIR/$dir" ] || { echo "real_overhead $app: $AA_APPS_DIR/$dir missing (see bench/real_builds.md)"; continue; }
        mkdir -p "$AA_WORK/$app"
        build_app "$app" "$dir" plain || { echo "real_overhead $app: plain build failed"; continue; }
        build_app "$app" "$dir" default || { echo "real_overhead $app: default build failed (see $AA_WORK/$app/default.build.log)"; continue; }
        if [ "${AA_FILTER_VARIANT:-0}" = 1 ] && "$AA" filter --help 2>&1 | grep -q -- --from; then
            args=$(fix_args "$app" "$cmd")
            run_once "$app" default $args
            e="$AA_WORK/$app/run-default/exp"
            if { "$AA" filter --from "$e" -o "$AA_WORK/$app/filter.txt" ||
                 { "$AA" collect "$e" -o "$e.xml" && "$AA" filter --from "$e.xml" -o "$AA_WORK/$app/filter.txt"; }; } \
                   >"$AA_WORK/$app/filter.log" 2>&1 &&
               build_app "$app" "$dir" filter "$AA_WORK/$app/filter.txt"; then :
            else echo "real_overhead $app: filter variant failed"; fi
            rm -f "$AA_WORK/$app/times.default"
        fi
    fi
    [ -d "$AA_WORK/$app/filter" ] && variants="default filter"
    [ -z "${AA_VARIANTS:-}" ] || variants=$AA_VARIANTS
    [ "$PHASE" = build ] && { echo "real_overhead $app: built ($variants)"; continue; }
    args=$(fix_args "$app" "$cmd")
    rm -f "$AA_WORK/$app"/times.*
    for r in $(seq "$RUNS"); do
        for v in plain $variants; do run_once "$app" "$v" $args; done
    done
    p=$(stats "$AA_WORK/$app/times.plain")
    for v in $variants; do
        i=$(stats "$AA_WORK/$app/times.$v")
        echo "$p $i" | awk -v n="$app" -v v="$v" '{
            printf "real_overhead %-8s %-7s plain %7.2f s [%.2f-%.2f]  inst %7.2f s [%.2f-%.2f]  %+6.1f%%\n",
                   n, v, $1, $2, $3, $4, $5, $6, ($4 / $1 - 1) * 100 }'
        echo "$p $i" | awk -v v="$v" '{ print v, $4 / $1 }' >> "$AA_WORK/geo"
    done
    if [ "${AA_COUNT:-1}" != 0 ]; then
        for v in $variants; do count_app "$app" "$v" "${p%% *}" $args; done
    fi
done <<EOF
$APPS
EOF
if [ -s "$AA_WORK/geo" ]; then
    awk '{ s[$1] += log($2); n[$1]++ } END { for (v in s)
        printf "real_overhead geometric mean (%s): %+.1f%% over %d apps\n", v, (exp(s[v] / n[v]) - 1) * 100, n[v] }' "$AA_WORK/geo"
fi
for g in pairs thr; do
    [ -s "$AA_WORK/geo.$g" ] || continue
    awk -v g="$g" '{ s[$1] += log($2); n[$1]++ } END { for (v in s)
        printf "%-13s geometric mean (%s): %+.2f%% predicted over %d apps\n", g == "thr" ? "throttled" : "pairs", v, (exp(s[v] / n[v]) - 1) * 100, n[v] }' "$AA_WORK/geo.$g"
done
