#!/bin/bash
# bench/real_builds.sh -- real-application build benchmark (issue 10: "real
# builds never break: 100% of real C MPI code bases build through the
# wrapper unchanged and record every rank").
#
#   AA_BUILD=build-e AA_APPS_DIR=/tmp/aa-apps bash bench/real_builds.sh
#
# For every application below (public GitHub C MPI codes, pinned to one
# commit) the script
#   1. copies the pristine checkout into three scratch trees and builds it
#      plainly (mpicc), through the wrapper in the default mode, and through
#      the wrapper with AUTOANALYZER_MODE=all -- the way a user would:
#      make CC="autoanalyzer cc mpicc" (CC=autoanalyzer-mpicc when the
#      one-word wrapper exists in $AA_BUILD/bin), ./configure CC=..., or CMake
#      with CMAKE_C_COMPILER_LAUNCHER / CMAKE_C_LINKER_LAUNCHER;
#   2. records the build exit status, the wrapper's warnings, crashes
#      (exit 139/134, "signal", "crash", "Segmentation fault"), the files
#      compiled uninstrumented and the build-time ratio wrapped/plain;
#   3. runs a small problem (seconds) with 4 ranks (mpirun --oversubscribe
#      -np 4, OpenMPI environment of tests/e2e/lib.sh) plainly and
#      instrumented, compares stdout after masking timing lines (the mask of
#      each app is documented at its mask_* function) and exit status, and
#      checks with `autoanalyzer collect --json` that every experiment has
#      4 processes (ranks == nprocs == 4, no missing rank).
# It prints one row per app and the line
#   "N/M apps: build ok, output identical, all ranks recorded".
#
# Environment:
#   AA_APPS_DIR  directory holding the checked-out apps, one sub-directory
#                per app named as in APPS below (default /tmp/aa-apps); an
#                app that is not there is skipped with a line saying which
#                repository and commit to fetch.  To get one:
#                  git clone https://github.com/OWNER/NAME $AA_APPS_DIR/DIR
#                  git -C $AA_APPS_DIR/DIR checkout COMMIT
#   AA_BUILD     AutoAnalyzer build directory (default build), relative to
#                the repository root or absolute
#   AA_WORK      scratch directory (default a new /tmp/aa-real-builds.XXXXXX,
#                kept: logs are in AA_WORK/APP/VARIANT/{build,run}.log)
#   AA_ONLY      space-separated subset of app names
#   AA_JOBS      make -j (default 2)
#   AA_VARIANTS  wrapped variants (default "default all")
#
# Exit status: 0 when every present app passes, 1 otherwise.
# A full run of the ten apps takes 15-20 minutes on the 2-core VM (see
# bench/real_builds.md for the figures).

set -u
. "$(dirname "$0")/real_lib.sh"
real_setup real-builds
AA_JOBS=${AA_JOBS:-2}
AA_VARIANTS=${AA_VARIANTS:-"default all"}
NP=4
RUN_TIMEOUT=${AA_RUN_TIMEOUT:-300}
BUILD_TIMEOUT=${AA_BUILD_TIMEOUT:-1800}

# ---------------------------------------------------------------------------
# The applications: NAME|OWNER/REPO|COMMIT|build system|what is built and run
APPS='
XSBench|ANL-CESAR/XSBench|ba08e5221af6106252b866e50ea123c69d31a4e2|make|openmp-threading/ with MPI=yes; XSBench -s small -l 20000 -m event
graph500|graph500/graph500|f89d643ce4aaae9a823d310c6ab2dd10e3d2982c|make (compile+link in one command)|src/graph500_reference_bfs 10 8
CoMD|exmatex/CoMD|3d48396b77ca8caa3124bc2391f9139c3ffb556c|make (Makefile.vanilla, generated header)|src-mpi; CoMD-mpi -i 2 -j 2 -x 16 -y 16 -z 16 -N 20
miniAMR|Mantevo/miniAMR|635fef2f83558f09805725428daf366c32428d0c|make (CC and LD)|ref/miniAMR.x --npx 2 --npy 2 --nx 4 --ny 4 --nz 4 --num_tsteps 4
ior|hpc/ior|5fcf0ba995fd92164d50e344597e2d8203298c08|autotools (bootstrap, configure CC=)|src/ior -a POSIX -F; src/mdtest -n 20
Kernels|ParRes/Kernels|04248b66a03d7f5edba8d54c9ae7834dd718027a|make (make.defs, generated #include in loop bodies)|MPI1 Stencil Transpose Nstream Synch_p2p Reduce Sparse
AMG|LLNL/AMG|3ada8a128e311543e84d9d66344ece77924127a8|recursive make (hypre-style, 84 files, 81k lines, OpenMP)|test/amg -n 10 10 10 -P 2 2 1
mpiBench|LLNL/mpiBench|4c855b8d4d192b67dff1fbc37ec4bc82333f3c0b|make (single 1k-line file)|mpiBench -e 1K -i 50 Barrier Bcast Allreduce Alltoall
IMB|intel/mpi-benchmarks|46e8757a920c334abfea6340499f1c5deaefb834|make (src_c, macro-heavy C)|src_c IMB-MPI1 PingPong Allreduce Barrier Bcast
reprompi|hunsa/reprompi|4d93442faf04b64abc78f946fe910b8b3c81eaf1|CMake (C + C++ objects, C++ link)|bin/mpibenchmark MPI_Allreduce,MPI_Bcast
'
# Directory names in AA_APPS_DIR (the repository's name).
app_dir() {
    case $1 in IMB) echo mpi-benchmarks ;; *) echo "$1" ;; esac
}

# ---------------------------------------------------------------------------
# Per-app build, run and mask.  Build functions run in the scratch copy with
# $CCW (the C compiler command: "mpicc" or the wrapper) and $VARIANT
# (plain|default|all); run functions run in the scratch copy and call
# `launch TAG PROGRAM ARGS...` for every MPI program; mask functions filter
# stdout (stdin -> stdout) before the comparison.

mk() { make -j"$AA_JOBS" "$@"; }

# -- XSBench: Makefile; CC given on the command line wins over its
# "CC = mpicc" for MPI=yes.
build_XSBench() { mk -C openmp-threading MPI=yes CC="$CCW"; }
# XSBench exits 1 ("INVALID CHECKSUM") for any lookup count but the
# default's; the checksum itself is in the compared output.
run_XSBench() { EXPECT_RC=1 launch xsbench openmp-threading/XSBench -s small -l 20000 -m event -t 1; }
# masked: the "Runtime:" and "Lookups/s:" lines (timing) and the date line.
mask_XSBench() { grep -Ev 'Runtime:|Lookups/s|Date|time'; }

# -- graph500: every program is compiled and linked by one mpicc command.
# GCC >= 10 defaults to -fno-common, which this 2019 code needs (tentative
# definitions in headers): CFLAGS is the Makefile's plus -fcommon.
build_graph500() {
    mk -C src MPICC="$CCW" graph500_reference_bfs \
        CFLAGS="-Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI -DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon"
}
run_graph500() { launch bfs src/graph500_reference_bfs 10 8; }
# kept: the problem description (SCALE, edgefactor, NBFS, processes), the
# edge-count statistics (*_nedge) and the "== prog exit N" lines; dropped:
# graph_generation, construction, every *_time, *_TEPS and *_validate
# statistic (all timings).
mask_graph500() { grep -E '^(==|SCALE|edgefactor|NBFS|num_mpi_processes|[a-z_]*nedge:)'; }

# -- CoMD: Makefile.vanilla copied to Makefile (as its README says); the
# Makefile runs generate_info_header, which stores CC and flags in a header.
build_CoMD() { cp src-mpi/Makefile.vanilla src-mpi/Makefile && mk -C src-mpi CC="$CCW"; }
run_CoMD() { launch comd bin/CoMD-mpi -i 2 -j 2 -k 1 -x 16 -y 16 -z 16 -N 20 -n 10; }
# masked: everything from the "Timings for Rank" table on (timing), the
# lines stamped with the date ("Sun Nov 22 18:11:41 2026: Starting ..."),
# the build header (compiler path and version, flags, host, kernel), the
# yaml file name, and the last column ("Performance", us/atom) of the
# step table; energies, temperatures and atom counts are kept.
mask_CoMD() {
    sed -n '/Timings for Rank/q;p' |
    grep -Ev '^[A-Z][a-z][a-z] [A-Z][a-z][a-z] +[0-9]+ [0-9:]+ [0-9]+:|Date/Time|CompileDate|CC:|CFLAGS|LDFLAGS|Compiler|Version|Hostname|Host:|Kernel|Machine|yaml' |
    awk 'NF == 8 && $1 ~ /^[0-9]+$/ { $7 = "-" } { print }'
}

# -- miniAMR: separate CC and LD.
build_miniAMR() { mk -C ref CC="$CCW" LD="$CCW"; }
run_miniAMR() { launch amr ref/miniAMR.x --npx 2 --npy 2 --npz 1 --nx 4 --ny 4 --nz 4 \
    --num_tsteps 4 --num_refine 2 --max_blocks 500 --num_objects 1 \
    --object 2 0 -1.10 -1.10 -1.10 0.030 0.030 0.030 1.5 1.5 1.5 0.0 0.0 0.0 --checksum_freq 2 --stages_per_ts 4; }
# kept (the rest is timing): block counts per level and timestep, comm
# partner counts, the "Timestep N time T" lines (simulated time), run
# layout, and from the report the message/byte/face counts, flop counts
# and block statistics.
mask_miniAMR() {
    grep -E '^(==|Number of blocks|Total number of blocks|comm partners|Timestep [0-9]|Run on|block size|Number of levels)|^ +(Messages|Bytes|Faces|Comm partners|Total floating point|Adds|Muls|Divides|Blocks/timestep|Max blocks|total blocks split|total blocks reformed|Total blocks moved) '
}

# -- ior: autotools.  ./bootstrap runs once (in the pristine copy's prep
# tree), configure gets CC=..., the build compiles ior and mdtest.
prep_ior() { ./bootstrap >/dev/null 2>&1; }
build_ior() { ./configure CC="$CCW" --without-gpfs --without-lustre >/dev/null && mk; }
run_ior() {
    launch ior src/ior -a POSIX -F -b 1m -t 256k -s 2 -i 1 -o "$RUNDIR/ior.dat"
    launch mdtest src/mdtest -n 20 -i 1 -d "$RUNDIR/mdtest"
}
# kept: the options block of ior (minus dates, paths and timings) and the
# mdtest process/file counts; every bandwidth/ops/s/time line is dropped.
mask_ior() {
    grep -E '^(api|access|type|segments|ordering|nodes|tasks|clients per node|repetitions|xfersize|blocksize|aggregate filesize|Command line|mdtest-|Path|FS|Nodemap|[0-9]+ tasks|Finished|Summary)' |
    grep -Evi 'Began|Finished|date|time|Path|FS:|Command line|mdtest-[0-9.]+ was launched|Nodemap'
}

# -- ParRes Kernels: common/make.defs written from make.defs.gcc style
# (MPICC=...), each kernel built by its own Makefile; Stencil generates
# loop bodies that are #included inside a function.
KERNELS='Stencil:stencil Transpose:transpose Nstream:nstream Synch_p2p:p2p Reduce:reduce Sparse:sparse'
build_Kernels() {
    printf 'CC=mpicc -std=c99\nMPICC=%s -std=c99\nDEFAULT_OPT_FLAGS=-O3\nOPENMPFLAG=-fopenmp\n' "$CCW" > common/make.defs
    local k rc=0
    for k in $KERNELS; do
        make -C "MPI1/${k%%:*}" "${k#*:}" || rc=1
    done
    return $rc
}
run_Kernels() {
    launch stencil MPI1/Stencil/stencil 4 200
    launch transpose MPI1/Transpose/transpose 4 256 16
    launch nstream MPI1/Nstream/nstream 4 100000 0
    launch p2p MPI1/Synch_p2p/p2p 4 200 200
    launch reduce MPI1/Reduce/reduce 4 10000
    launch sparse MPI1/Sparse/sparse 4 6 2
}
# masked: "Rate", "time", "MFlops", "MB/s" lines (timing) and the PRK
# version line.
mask_Kernels() { grep -Evi 'rate|time|mflops|MB/s|Parallel Research Kernels version'; }

# -- AMG: top Makefile runs `(cd $dir; make)` in each directory; CC from the
# command line reaches the sub-makes through MAKEFLAGS.
build_AMG() { make CC="$CCW"; }
run_AMG() { launch amg test/amg -n 10 10 10 -P 2 2 1; }
# masked: every timing block line (wall/cpu clock, "time", MFLOPS) and the
# date line; iteration counts, residual norms and convergence are kept.
mask_AMG() { grep -Evi 'wall|cpu|time|MFLOP|seconds|date|FOM|\(sec\)|System Size \* Iterations'; }

# -- mpiBench: single file compiled and linked by one command.
build_mpiBench() { make CC="$CCW"; }
run_mpiBench() { launch mpibench ./mpiBench -e 1K -i 50 Barrier Bcast Allreduce Alltoall; }
# kept: benchmark name and byte count of each row (iterations, avg/min/max
# are timing-dependent); the "START/END mpiBench" and buffer lines.
mask_mpiBench() { sed -E 's/Iters:.*$//; s/Avg:.*$//' | grep -v 'Message buffers'; }

# -- Intel MPI Benchmarks, C version (src_c).
build_IMB() { mk -C src_c TARGET=MPI1 CC="$CCW"; }
run_IMB() { launch imb src_c/IMB-MPI1 -npmin 4 -iter 20 -msglog 0:3 -time 1 PingPong Allreduce Barrier Bcast; }
# kept: benchmark headers and the first column (#bytes, or #repetitions
# for Barrier) of every table row; dropped: the other columns (times,
# rates, repetitions cut by -time), date, machine, host, version and
# timing header lines, and the command line (it has the scratch path).
mask_IMB() {
    grep -Evi 'Date|Machine|System|Release|Version|Intel|Hostname|Minimum message|Global|MPI Version|time|IMB-MPI1|^# *$' |
    awk '/^ +[0-9]+ +[0-9]/ { print $1; next } { print }'
}

# -- reprompi: CMake.  Pinned to the last commit before FetchContent
# (later ones download a dependency at configure time).  The C objects are compiled through the launcher, the
# executables contain C++ objects and are linked by mpicxx, so the C++
# linker launcher is set too.
build_reprompi() {
    local launch=()
    if [ "$VARIANT" != plain ]; then
        launch=(-DCMAKE_C_COMPILER_LAUNCHER="autoanalyzer;cc" -DCMAKE_C_LINKER_LAUNCHER="autoanalyzer;cc"
                -DCMAKE_CXX_LINKER_LAUNCHER="autoanalyzer;cc")
    fi
    cmake -S . -B _build -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
        -DCMAKE_BUILD_TYPE=Release "${launch[@]}" >/dev/null &&
    cmake --build _build -j "$AA_JOBS"
}
run_reprompi() { launch repro _build/bin/mpibenchmark --calls-list=MPI_Allreduce,MPI_Bcast --msizes-list=8,1024 --nrep=20; }
# kept: the test/count/nrep columns of the result table; dropped: every
# "#@" header line (times, dates, clock settings) and the runtime columns.
mask_reprompi() { grep -v '^#' | awk '{ print $1, $2, $3 }'; }

# ---------------------------------------------------------------------------
# Machinery.

# [EXPECT_RC=N] launch TAG PROGRAM ARGS...: one mpirun with 4 ranks (its
# expected exit status N, default 0); stdout appended to
# $RUNDIR/stdout, stderr to $RUNDIR/stderr; the experiment (instrumented
# variants) goes to $RUNDIR/exp-TAG.
launch() {
    local tag=$1 rc; shift
    echo "== $tag: $*" >> "$RUNDIR/stdout"
    (cd "$RUNDIR" && AUTOANALYZER_OUTPUT="$RUNDIR/exp-$tag" \
        timeout "$RUN_TIMEOUT" mpirun --oversubscribe -np "$NP" "$SRC/$1" "${@:2}" \
        >>"$RUNDIR/stdout" 2>>"$RUNDIR/stderr") </dev/null
    rc=$?
    echo "== $tag exit $rc" >> "$RUNDIR/stdout"
    echo "$tag" >> "$RUNDIR/tags"
    [ "$rc" = "${EXPECT_RC:-0}" ] || RUN_RC=$rc
}

now() { date +%s.%N; }

# build_variant APP VARIANT: copies the prep tree, builds; sets B_RC B_TIME.
build_variant() {
    local app=$1 v=$2 t0 t1
    SRC="$AA_WORK/$app/$v/src"
    rm -rf "$AA_WORK/$app/$v"; mkdir -p "$AA_WORK/$app/$v"
    cp -a "$AA_WORK/$app/prep" "$SRC"
    VARIANT=$v
    if [ "$v" = plain ]; then CCW=mpicc; else CCW=$WRAP_CC; fi
    t0=$(now)
    ( cd "$SRC" && if [ "$v" = plain ]; then unset AUTOANALYZER_MODE
      elif [ "$v" = all ]; then export AUTOANALYZER_MODE=all; fi
      export CCW VARIANT AA_JOBS KERNELS; export -f mk "build_$app"
      timeout "$BUILD_TIMEOUT" bash -c "build_$app" ) >"$AA_WORK/$app/$v/build.log" 2>&1 </dev/null
    B_RC=$?
    t1=$(now)
    B_TIME=$(echo "$t1 - $t0" | bc)
}

# run_variant APP VARIANT: sets R_RC; leaves masked stdout in run.out.
run_variant() {
    local app=$1 v=$2
    SRC="$AA_WORK/$app/$v/src"
    RUNDIR="$AA_WORK/$app/$v/run"
    rm -rf "$RUNDIR"; mkdir -p "$RUNDIR"; : > "$RUNDIR/stdout"; : > "$RUNDIR/tags"
    RUN_RC=0
    "run_$app"
    R_RC=$RUN_RC
    "mask_$app" < "$RUNDIR/stdout" > "$AA_WORK/$app/$v/run.out"
}

# ranks_ok APP VARIANT: every experiment of the run has NP processes;
# prints "ok" or what is wrong; writes the number of regions (sum over
# the experiments) to run/regions.
ranks_check() {
    local app=$1 v=$2 tag dir js r n m bad="" reg=0
    RUNDIR="$AA_WORK/$app/$v/run"
    while read -r tag; do
        dir="$RUNDIR/exp-$tag"
        if [ ! -d "$dir" ]; then bad="$bad $tag:no-exp"; continue; fi
        js=$("$AA" collect "$dir" --json -o "$RUNDIR/exp-$tag.xml" 2>"$RUNDIR/collect-$tag.err")
        r=$(printf '%s\n' "$js" | sed -n 's/^  "ranks": \([0-9]*\),*/\1/p')
        n=$(printf '%s\n' "$js" | sed -n 's/^  "nprocs": \([0-9]*\),*/\1/p')
        m=$(printf '%s\n' "$js" | grep -c '^  "missing": \[\]')
        reg=$((reg + $(printf '%s\n' "$js" | sed -n 's/^  "regions": \([0-9]*\),*/\1/p' | head -1)))
        if [ "$r" != "$NP" ] || [ "$n" != "$NP" ] || [ "$m" != 1 ]; then
            bad="$bad $tag:ranks=${r:-?}/${n:-?}"; fi
    done < "$RUNDIR/tags"
    echo "$reg" > "$RUNDIR/regions"
    if [ -z "$bad" ]; then echo ok; else echo "${bad# }"; fi
}

count() { grep -Eci -- "$1" "$2" 2>/dev/null; true; }

ratio() { echo "scale=2; $1 / $2" | bc 2>/dev/null | sed 's/^\./0./'; }

printf 'AutoAnalyzer real-application builds: %s, wrapper "%s", apps in %s, work in %s\n' \
    "$($AA version 2>/dev/null | head -1)" "$WRAP_CC" "$AA_APPS_DIR" "$AA_WORK"
printf '%-9s | %-14s | %-9s | %-7s | %-7s | %-11s | %-9s | %-9s | %-11s | %s\n' \
    app "build p/d/a" "warn d/a" "uninst" crash "time d/a" "run p/d/a" output ranks regions
T_START=$(now)
n_apps=0; n_pass=0; failures=""
while IFS='|' read -r app repo commit system what; do
    [ -n "$app" ] || continue
    if [ -n "${AA_ONLY:-}" ] && ! printf ' %s ' "$AA_ONLY" | grep -q " $app "; then continue; fi
    d="$AA_APPS_DIR/$(app_dir "$app")"
    if [ ! -d "$d" ]; then
        printf '%-9s | SKIPPED: %s not present; fetch github:%s and check out %s\n' "$app" "$d" "$repo" "$commit"
        continue
    fi
    have=$(git -C "$d" rev-parse HEAD 2>/dev/null || echo unknown)
    [ "$have" = "$commit" ] || echo "# $app: $d is at $have, the benchmark expects $commit"
    n_apps=$((n_apps + 1))
    rm -rf "$AA_WORK/$app"; mkdir -p "$AA_WORK/$app/prep"
    (cd "$d" && tar cf - --exclude=.git .) | tar xf - -C "$AA_WORK/$app/prep"
    if declare -F "prep_$app" >/dev/null; then (cd "$AA_WORK/$app/prep" && "prep_$app"); fi

    brc=""; warn=""; unin=""; crash=0; times=""; rrc=""; outs=""; ranks=""; regs=""
    build_variant "$app" plain; prc=$B_RC; ptime=$B_TIME; brc=$prc
    [ "$prc" = 0 ] && { run_variant "$app" plain; rrc=$R_RC; } || rrc="-"
    ok=1; why=""
    [ "$prc" = 0 ] || { ok=0; why="$why plain build failed ($prc);"; }
    for v in $AA_VARIANTS; do
        build_variant "$app" "$v"
        log="$AA_WORK/$app/$v/build.log"
        brc="$brc/$B_RC"
        w=$(count 'autoanalyzer[^ ]*: warning|warning: autoanalyzer:|warning: .*not instrumented' "$log")
        u=$(count 'compiled uninstrumented|compiled unchanged|linked without the runtime' "$log")
        c=$(count 'signal [0-9]|crash|Segmentation fault|core dumped|Aborted' "$log")
        case $B_RC in 134|139) c=$((c + 1)) ;; esac
        warn="$warn/$w"; unin="$unin/$u"; crash=$((crash + c))
        times="$times/$(ratio "$B_TIME" "$ptime")"
        [ "$B_RC" = 0 ] || { ok=0; why="$why $v build failed ($B_RC);"; }
        [ "$c" = 0 ] || { ok=0; why="$why $v build crash ($c);"; }
        [ "$u" = 0 ] || { ok=0; why="$why $v $u file(s) uninstrumented;"; }
        if [ "$B_RC" = 0 ] && [ "$prc" = 0 ]; then
            run_variant "$app" "$v"; rrc="$rrc/$R_RC"
            if cmp -s "$AA_WORK/$app/plain/run.out" "$AA_WORK/$app/$v/run.out"; then outs="$outs/same"
            else outs="$outs/DIFF"; ok=0; why="$why $v output differs;"; fi
            [ "$R_RC" = "$RUN_RC" ] || true
            rk=$(ranks_check "$app" "$v"); ranks="$ranks/$rk"; regs="$regs/$(cat "$AA_WORK/$app/$v/run/regions")"
            [ "$rk" = ok ] || { ok=0; why="$why $v ranks: $rk;"; }
        else
            rrc="$rrc/-"; outs="$outs/-"; ranks="$ranks/-"; regs="$regs/-"
        fi
    done
    # the plain run must succeed too and every instrumented run exit as it did
    case "$rrc" in *[1-9]*) ok=0; why="$why run exit status $rrc;" ;; esac
    printf '%-9s | %-14s | %-9s | %-7s | %-7s | %-11s | %-9s | %-9s | %-11s | %s\n' \
        "$app" "$brc" "${warn#/}" "${unin#/}" "$crash" "${times#/}" "$rrc" "${outs#/}" "${ranks#/}" "${regs#/}"
    if [ "$ok" = 1 ]; then n_pass=$((n_pass + 1)); else failures="$failures$app:$why
"; fi
done <<EOF
$APPS
EOF
T_END=$(now)
[ -z "$failures" ] || printf 'failures:\n%s' "$failures" | sed '/^$/d; s/^/  /'
printf '%d/%d apps: build ok, output identical, all ranks recorded (%.0f s; logs in %s)\n' \
    "$n_pass" "$n_apps" "$(echo "$T_END - $T_START" | bc)" "$AA_WORK"
[ "$n_pass" = "$n_apps" ]
