#!/bin/bash
# bench/overhead_counts.sh -- measurement overhead by figures the load of a
# shared machine does not move (issue 14), compiled-in cost included: the
# instructions each build executes under valgrind, plain against
# instrumented, for the real applications of bench/real_overhead.sh and the
# shape programs of bench/overhead.sh (built beforehand by those scripts'
# build phases).  Per program and variant, one MPI process (a singleton:
# no mpirun, no MPI waits), the per-process problem of the timed benchmarks:
#
#   Ir    instructions executed, `valgrind --tool=cachegrind --cache-sim=no`
#         (deterministic to ~0.01%: MPI_Init varies a little)
#   cyc   a cycle proxy, only with AA_CG_CACHE=1: cachegrind with its cache
#         simulation, Ir + 10 x L1 misses + 100 x LL misses (cachegrind's
#         own estimate) + AA_RDTSC_CYCLES (default 30) per clock read of
#         the runtime beyond its one instruction (two per timed visit, MPI
#         call or I/O call, from the run's own profile)
#         with the share of the extra instructions that the runtime
#         library's own code executed (the rest is compiled in: the probes
#         inline in the program's functions, calls, lost inlining)
#   cpu   min over AA_CPU_ROUNDS (default 7) interleaved native runs of user
#         + system CPU seconds (plain, default, filter, plain, ...): noisy
#         on a loaded machine, but less than wall time
#
# Valgrind runs the code 20-50 times slower, so a tiny function would look
# slow enough (10 us per visit) not to be throttled there.  The valgrind
# runs of instrumented builds therefore throttle at AA_VG_USEC (default:
# 10 us times the program's slowdown under valgrind, plain build, measured
# here), and each row shows the timed visits per process of a native run
# next to those under valgrind: they should agree.  The slowdown is measured
# on this machine's load, and with it the visits valgrind times: to compare
# two runtimes or builds instruction by instruction, fix the threshold per
# program (AA_VG_USEC_<name>, e.g. AA_VG_USEC_XSBench=50, the "x" column
# of an earlier run times 10).
#
#   AA_BUILD=build AA_WORK=/tmp/ovh3-real AA_OVH_KEEP=/tmp/ovh3-shapes \
#       bash bench/overhead_counts.sh
#
# Environment:
#   AA_WORK      real applications as built by `AA_PHASE=build bash
#                bench/real_overhead.sh` (AA_WORK/APP/{plain,default,filter});
#                unset: no real applications
#   AA_OVH_KEEP  shape programs as built by `AA_OVH_PHASE=build
#                AA_OVH_PARTS=2 sh bench/overhead.sh` (NAME.{plain,default,
#                filter}); unset: no shapes
#   AA_ONLY      subset of programs (names as in PROGS below)
#   AA_ARGS_<name>  other arguments for that program (a smaller problem)
#   AA_VARIANTS  instrumented variants (default: "default filter", those built)
#   AA_CG_CACHE=1  also the cycle proxy (cache simulation: about 2x slower)
#   AA_CG_TOP=N  also the N functions with the most extra instructions per
#                instrumented variant (the plain column "-": inlined there)
#   AA_VG=0      no valgrind runs (only the native counts and CPU rounds)
#   AA_NP=N      also N ranks under mpirun and callgrind: instructions per rank
#                but those of the MPI library's objects (AA_MPI_LIB_RE), with
#                AA_NP_ARGS_<name> as the arguments (default: the 1-process
#                ones; the apps with a process grid need theirs)
#   AA_VG_USEC, AA_VG_USEC_<name>  the valgrind runs' throttling threshold
#                (us; default 10 x the measured slowdown)
#   AA_CPU_ROUNDS  native timed rounds (0: none)
#   AA_SCRATCH   where runs write (default a new /tmp/aa-ovh-counts.XXXXXX)
#   AA_LIBDIR    the runtime libraries to run with (default AA_BUILD/lib): another
#                version's runtime against the same binaries
set -u
REAL=${AA_WORK:-}
. "$(dirname "$0")/real_lib.sh"
real_setup ovh-counts
[ -n "$REAL" ] || unset AA_WORK
command -v valgrind >/dev/null || { echo "overhead_counts: valgrind not found" >&2; exit 2; }
S=${AA_SCRATCH:-$(mktemp -d /tmp/aa-ovh-counts.XXXXXX)}
mkdir -p "$S"; S=$(cd "$S" && pwd)
ROUNDS=${AA_CPU_ROUNDS:-7}
NPV=${AA_NP:-1}
RDTSC=${AA_RDTSC_CYCLES:-30}
LIBP=${AA_LIBDIR:-$AA_BUILD/lib}

# NAME|kind (real: AA_WORK/NAME/VARIANT/PATH, shape: AA_OVH_KEEP/NAME.VARIANT)|
# PATH|arguments.  One process doing what one of the two ranks of
# bench/real_overhead.sh does (XSBench and AMG: sizes per rank; CoMD,
# Stencil, PIC, graph500: half the global problem; miniAMR: its blocks
# per rank) and the shapes' default sizes.
PROGS='
XSBench|real|openmp-threading/XSBench|-s small -G nuclide -l 500000 -m event -t 1
graph500|real|src/graph500_reference_bfs|12 16
CoMD|real|bin/CoMD-mpi|-i 1 -j 1 -k 1 -x 24 -y 24 -z 12 -N 20 -n 10
miniAMR|real|ref/miniAMR.x|--npx 1 --npy 1 --npz 1 --nx 4 --ny 4 --nz 4 --num_tsteps 20 --num_refine 2 --max_blocks 2000 --num_objects 1 --object 2 0 -1.10 -1.10 -1.10 0.030 0.030 0.030 1.5 1.5 1.5 0.0 0.0 0.0 --checksum_freq 4 --stages_per_ts 10
PIC|real|MPI1/PIC-static/pic|20 1000 500000 0 1 GEOMETRIC 0.99
Stencil|real|MPI1/Stencil/stencil|20 2828
AMG|real|test/amg|-n 40 40 40 -P 1 1 1
xs_lookup|shape||
pic_push|shape||
md_force|shape||
bfs|shape||
lu_pivot|shape||
'

prog_path() { # NAME KIND PATH VARIANT
    if [ "$2" = real ]; then echo "$AA_WORK/$1/$4/$3"; else echo "$AA_OVH_KEEP/$1.$4"; fi
}

# timed_visits EXPERIMENT -> "timed untimed clockreads" per process: visits
# of every node but the root, untimed_visits, and the runtime's clock reads
# (2 per timed visit, MPI call and I/O call)
timed_visits() {
    awk '/<experiment / { if (match($0, /nprocs="[0-9]+"/)) np = substr($0, RSTART + 8, RLENGTH - 9) + 0 }
        /<metric name=/ { m++; if ($0 ~ /"visits"/) iv = m; if ($0 ~ /"untimed_visits"/) iu = m
                          if ($0 ~ /"mpi_calls"/) im = m; if ($0 ~ /"io_calls"/) ii = m }
        /<node / { match($0, / v="[^"]*/); n = split(substr($0, RSTART + 4, RLENGTH - 4), a, " ")
                   if ($0 !~ /region="0"/) { t += a[iv]; if (iu) u += a[iu] }
                   if (im && a[im] != "-") c += a[im]; if (ii && a[ii] != "-") c += a[ii] }
        END { if (np < 1) np = 1; printf "%.0f %.0f %.0f\n", t / np, u / np, 2 * (t + c) / np }' "$1"
}

# run_native NAME VARIANT PROG ARGS... -> the experiment of one native run
# with the default throttling (instrumented variants); CPU seconds in $S/cpu
run_native() {
    local n=$1 v=$2 d="$S/$1.$2.nat"; shift 2
    rm -rf "$d"; mkdir -p "$d"
    ( cd "$d" && AUTOANALYZER_OUTPUT="$d/exp" LD_LIBRARY_PATH="$LIBP" /usr/bin/time -f '%U %S %e' -o "$d/t" \
        "$@" >"$d/stdout" 2>"$d/stderr" ) </dev/null
    awk '{ print $1 + $2, $3 }' "$d/t" | tail -1 > "$S/cpu"
}

# vg NAME VARIANT TOOLOPTS USEC PROG ARGS... -> "Ir [I1m D1m LLm]" under cachegrind
vg() {
    local n=$1 v=$2 opts=$3 usec=$4 d="$S/$1.$2.vg" thr=; shift 4
    rm -rf "$d"; mkdir -p "$d"
    [ "$v" = plain ] || thr="100000,$usec"
    ( cd "$d" && AUTOANALYZER_OUTPUT="$d/exp" LD_LIBRARY_PATH="$LIBP" env ${thr:+AUTOANALYZER_THROTTLE=$thr} \
        /usr/bin/time -f '%U %S' -o "$d/t" valgrind --tool=cachegrind $opts --cachegrind-out-file="$d/cg.out" \
        "$@" >"$d/stdout" 2>"$d/stderr" ) </dev/null
    awk '/^summary:/ { if (NF >= 10) print $2, $3 + $6 + $9, $4 + $7 + $10; else print $2 }' "$d/cg.out"
}
# top_extra NAME VARIANT N: the N functions with the most extra instructions
# against the plain build ("-" in the plain column: not a function of its
# own there, i.e. inlined into its callers); the outlined body NAME__aa_body
# of an instrumented function is counted with its wrapper NAME
top_extra() {
    local f
    for f in plain "$2"; do
        cg_annotate --auto=no --show-percs=no --threshold=0.001 "$S/$1.$f.ir" 2>/dev/null |
            awk '$1 ~ /^[0-9,]+$/ && NF >= 2 { x = $1; gsub(",", "", x); f = $NF
                     if (match(f, /[^:]:[^:]+$/)) f = substr(f, RSTART + 2) # the function, not its build path
                     sub(/__aa_body/, "", f) # an outlined body counts as its function (docs/instrument.md)
                     s[f] += x } END { for (f in s) print f "\t" s[f] }' | LC_ALL=C sort > "$S/$1.$f.fns"
    done
    LC_ALL=C join -t "$(printf '\t')" -a 2 -e - -o 0,1.2,2.2 "$S/$1.plain.fns" "$S/$1.$2.fns" |
        awk -F '\t' '$1 != "TOTALS" && $1 != "???" { d = $3 - ($2 == "-" ? 0 : $2); if (d > 0) print d "\t" $2 "\t" $3 "\t" $1 }' |
        sort -g -r | head -"$3" | awk -F '\t' -v n="$1" -v v="$2" \
        '{ printf "counts %-10s %-7s   extra %12.0f  plain %12s  inst %12.0f  %s\n", n, v, $1, $2, $3, $4 }'
}
# rt_ir NAME VARIANT -> instructions of the runtime library's own code in
# the last cachegrind run (its source files: runtime/, generated wrappers)
rt_ir() {
    awk '/^fl=/ { rt = ($0 ~ /\/runtime\/[^\/]*$/) } /^[0-9]/ { if (rt) s += $2 } END { printf "%.0f\n", s }' "$S/$1.$2.vg/cg.out"
}

# vg_np NAME VARIANT USEC PROG ARGS... -> instructions per rank of AA_NP
# ranks under callgrind (mpirun), without those of the MPI library's own
# objects (MPI_LIB_RE): a rank waiting for another polls there, as long
# as the other is slow, so that part depends on the schedule, not on the
# program
MPI_LIB_RE=${AA_MPI_LIB_RE:-'libmpi|libopen-pal|libopen-rte|libpmix|mca_|libevent|libhwloc|libuc[pst]|libfabric|libpsm|libibverbs'}
vg_np() {
    local n=$1 v=$2 usec=$3 d="$S/$1.$2.np" thr=; shift 3
    rm -rf "$d"; mkdir -p "$d"
    [ "$v" = plain ] || thr="100000,$usec"
    ( cd "$d" && export AUTOANALYZER_OUTPUT="$d/exp" LD_LIBRARY_PATH="$LIBP" ${thr:+AUTOANALYZER_THROTTLE=$thr} &&
      timeout 3000 mpirun --oversubscribe -np "$NPV" valgrind --tool=callgrind --callgrind-out-file="$d/cl.%p" \
          "$@" >"$d/stdout" 2>"$d/stderr" ) </dev/null
    awk -v re="$MPI_LIB_RE" -v np="$NPV" '
        FNR == 1 { delete name }
        /^c?ob=/ { s = substr($0, index($0, "=") + 1); nm = s
                   if (match(s, /^\([0-9]+\)/)) { id = substr(s, 1, RLENGTH); nm = substr(s, RLENGTH + 2)
                       if (nm != "") name[id] = nm; else nm = name[id] }
                   if ($0 ~ /^ob=/) mpi = (nm ~ re); next }
        /^calls=/ { skip = 1; next }
        /^[0-9+*-]/ { if (skip) { skip = 0; next } if (mpi) m += $2; else a += $2; next }
        END { printf "%.0f %.0f\n", a / np, m / np }' "$d"/cl.*
}

printf 'overhead_counts: %s, runtime %s, 1 process per program, valgrind %s, scratch %s\n' \
    "$("$AA" version 2>/dev/null | head -1)" "$LIBP" "$(valgrind --version)" "$S"
: > "$S/geo"
while IFS='|' read -r name kind path args; do
    [ -n "$name" ] || continue
    if [ -n "${AA_ONLY:-}" ] && ! printf ' %s ' "$AA_ONLY" | grep -q " $name "; then continue; fi
    if [ "$kind" = real ] && [ -z "${AA_WORK:-}" ]; then continue; fi
    if [ "$kind" = shape ] && [ -z "${AA_OVH_KEEP:-}" ]; then continue; fi
    eval "ov=\${AA_ARGS_$name:-}"; [ -z "$ov" ] || args=$ov
    variants=${AA_VARIANTS:-"default filter"}
    vs=""
    for v in plain $variants; do [ -x "$(prog_path "$name" "$kind" "$path" "$v")" ] && vs="$vs $v"; done
    case "$vs" in " plain "*) ;; *) echo "overhead_counts $name: no plain build"; continue ;; esac
    [ "$vs" != " plain" ] || { echo "overhead_counts $name: no instrumented build"; continue; }
    # native: the counts with the default throttling and the CPU rounds
    for v in $vs; do : > "$S/$name.$v.cpus"; done
    r=0; while [ "$r" -lt "$ROUNDS" ] || [ "$r" = 0 ]; do r=$((r + 1))
        for v in $vs; do
            run_native "$name" "$v" $(prog_path "$name" "$kind" "$path" "$v") $args
            cut -d' ' -f1 "$S/cpu" >> "$S/$name.$v.cpus"
        done
    done
    pwall=$(cut -d' ' -f2 "$S/cpu")
    # valgrind: plain first (its slowdown sets the throttling there)
    if [ "${AA_VG:-1}" = 0 ]; then pir=-; echo 0 0 > "$S/vgt"
    else set -- $(vg "$name" plain --cache-sim=no 10 $(prog_path "$name" "$kind" "$path" plain) $args)
         pir=$1; cp "$S/$name.plain.vg/t" "$S/vgt"; cp "$S/$name.plain.vg/cg.out" "$S/$name.plain.ir"; fi
    slow=$(awk -v a="$(tail -1 "$S/vgt" | awk '{ print $1 + $2 }')" -v b="$(sort -g "$S/$name.plain.cpus" | head -1)" \
        'BEGIN { s = b > 0 ? a / b : 30; if (s < 1) s = 1; printf "%.0f", s }')
    eval "usec=\${AA_VG_USEC_$name:-\${AA_VG_USEC:-$((10 * slow))}}"
    pcyc=
    if [ "${AA_CG_CACHE:-0}" = 1 ] && [ "$pir" != - ]; then
        set -- $(vg "$name" plain "--cache-sim=yes --LL=33554432,16,64" "$usec" $(prog_path "$name" "$kind" "$path" plain) $args)
        pcyc=$(echo "$@" | awk '{ printf "%.0f", $1 + 10 * ($2 + $3) + 100 * $4 }')
    fi
    pcpu=$(sort -g "$S/$name.plain.cpus" | head -1)
    pnp=-
    if [ "$NPV" -gt 1 ]; then
        eval "npargs=\${AA_NP_ARGS_$name:-\$args}"
        set -- $(vg_np "$name" plain "$usec" $(prog_path "$name" "$kind" "$path" plain) $npargs); pnp=$1
    fi
    for v in ${vs# plain}; do
        nat=$(timed_visits "$S/$name.$v.nat/exp/experiment.xml" 2>/dev/null || echo "- - -")
        ir=- vgc="- - -" rtir=-
        if [ "$pir" != - ]; then
            set -- $(vg "$name" "$v" --cache-sim=no "$usec" $(prog_path "$name" "$kind" "$path" "$v") $args)
            ir=$1
            vgc=$(timed_visits "$S/$name.$v.vg/exp/experiment.xml" 2>/dev/null || echo "- - -")
            rtir=$(rt_ir "$name" "$v")
            cp "$S/$name.$v.vg/cg.out" "$S/$name.$v.ir"
        fi
        cyc=
        if [ -n "$pcyc" ]; then
            set -- $(vg "$name" "$v" "--cache-sim=yes --LL=33554432,16,64" "$usec" $(prog_path "$name" "$kind" "$path" "$v") $args)
            reads=$(timed_visits "$S/$name.$v.vg/exp/experiment.xml" | cut -d' ' -f3)
            cyc=$(echo "$@ $reads" | awk -v r="$RDTSC" '{ printf "%.0f", $1 + 10 * ($2 + $3) + 100 * $4 + (r - 1) * $5 }')
        fi
        cpu=$(sort -g "$S/$name.$v.cpus" | head -1)
        if [ "${AA_CG_TOP:-0}" -gt 0 ] && [ "$ir" != - ]; then top_extra "$name" "$v" "$AA_CG_TOP"; fi
        if [ "$pnp" != - ]; then
            set -- $(vg_np "$name" "$v" "$usec" $(prog_path "$name" "$kind" "$path" "$v") $npargs)
            echo "$pnp $1" | awk -v n="$name" -v v="$v" -v np="$NPV" -v geo="$S/geo" '{
                printf "counts %-10s %-7s Ir/rank at %d ranks, MPI library left out %14.0f -> %14.0f %+7.2f%%\n", n, v, np, $1, $2, ($2 / $1 - 1) * 100
                print v, "ir" np, $2 / $1 >> geo }'
        fi
        echo "$pir $ir ${pcyc:--} ${cyc:--} $pcpu $cpu $nat $vgc $rtir" | awk -v n="$name" -v v="$v" -v s="$slow" -v geo="$S/geo" '
            function pct(a, b) { return (a == "-" || b == "-" || a <= 0) ? "      -" : sprintf("%+7.2f%%", (b / a - 1) * 100) }
            { rt = ($13 == "-" || $1 == "-" || $2 <= $1) ? "-" : sprintf("%.0f%%", $13 / ($2 - $1) * 100)
              printf "counts %-10s %-7s Ir %14s -> %14s %s (runtime library: %s of the extra)  cyc %s  cpu %6.2f -> %6.2f s %s  timed/proc native %.0f vg %.0f (x%d)\n",
                     n, v, $1, $2, pct($1, $2), rt, pct($3, $4), $5, $6, pct($5, $6), $7, $10, s
              if ($1 != "-") print v, "ir", $2 / $1 >> geo
              if ($3 != "-" && $4 != "-") print v, "cyc", $4 / $3 >> geo
              if ($5 > 0) print v, "cpu", $6 / $5 >> geo }'
    done
done <<EOF
$PROGS
EOF
[ -s "$S/geo" ] && awk '{ k = $1 " " $2; s[k] += log($3); n[k]++; if ($3 > mx[k]) mx[k] = $3 }
    END { for (k in s) { split(k, a, " ")
        printf "counts geometric mean (%s, %s): %+.2f%% over %d programs, max %+.2f%%\n",
               a[1], a[2], (exp(s[k] / n[k]) - 1) * 100, n[k], (mx[k] - 1) * 100 } }' "$S/geo" | sort
