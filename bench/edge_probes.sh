#!/bin/bash
# bench/edge_probes.sh -- diagnosis on hand-written edge probes: small MPI
# programs, each with one documented shape the generated suite
# (tests/diagnosis/gen.py) does not write -- recursion, time off the CPU
# (a device wait, a slow start, every rank polling a device), a late
# sender in a ring of nonblocking messages, rank 0 taking the root's
# branch, a C++ class template called through a lambda, Fortran 77 with a
# COMMON block, MPI + OpenMP; and a second set written after the first was
# passed: an imbalance inside a sub-communicator, a kernel chosen through
# function pointers, an odd number of ranks with the remainder on the
# last one, an imbalance six calls deep, one kernel of forty, a C++
# virtual override, a dynamic imbalance that rotates over the ranks, rank
# 0 writing the output, a Fortran 90 module procedure; a third set: no
# time-step loop (one MPI_Reduce in main, where the set-up MPI is), one
# kernel called from a balanced and an imbalanced caller, a pipelined
# wavefront (waits that grow with the rank, work alike), no MPI call
# between MPI_Init and MPI_Finalize, old-style C (K&R definitions, loops
# and indexing through macros).  Each
# bench/edge_probes/NAME.{c,cpp,f,f90} says
# in its header what it does and what the analysis should find;
# NAME.json is that expectation in the suite's schema, scored by
# tests/diagnosis/score.py.
#
#   bash bench/edge_probes.sh                 all probes, once
#   REPS=3 AA_ONLY="device_wait late_ring" bash bench/edge_probes.sh
#   AA_BUILD=build AA_WORK=/tmp/probes ...    build tree, work directory
#
# Every probe is compiled through the wrapper as a user would
# (autoanalyzer-mpicc / -mpicxx / -mpif77 -O2), run with mpirun
# (--oversubscribe, the Open MPI settings of tests/e2e/lib.sh), analysed
# with `autoanalyzer analyze --json` and scored.  It prints one row per
# run and the last line "edge probes: N of M checks pass".
set -u
. "$(dirname "$0")/real_lib.sh"
real_setup edge-probes
REPS=${REPS:-1}
SRC="$TOP/bench/edge_probes"
SCORER="$TOP/tests/diagnosis/score.py"
command -v python3 >/dev/null || { echo "edge_probes: python3 not found" >&2; exit 2; }

# name | source | ranks | OpenMP threads | compiler flags
PROBES='
recursion|recursion.c|4|1|
device_wait|device_wait.c|4|1|
device_all|device_all.c|4|1|
slow_start|slow_start.c|4|1|
late_ring|late_ring.c|4|1|
root_branch|root_branch.c|4|1|
template_method|template_method.cpp|4|1|
common_block|common_block.f|4|1|
openmp_team|openmp_team.c|4|2|-fopenmp
subcomm_split|subcomm_split.c|6|1|
fnptr_dispatch|fnptr_dispatch.c|4|1|
odd_ranks|odd_ranks.c|5|1|
deep_chain|deep_chain.c|4|1|
many_regions|many_regions.c|6|1|
cxx_virtual|cxx_virtual.cpp|4|1|
rotating|rotating.c|4|1|
root_io|root_io.c|4|1|
f90_module|f90_module.f90|4|1|
final_reduce|final_reduce.c|4|1|
two_contexts|two_contexts.c|4|1|
wavefront|wavefront.c|4|1|
no_sync|no_sync.c|4|1|
knr_macros|knr_macros.c|4|1|
root_only|root_only.c|4|1|
split_roles|split_roles.c|4|1|
small_clear|small_clear.c|8|1|
master_worker|master_worker.c|4|1|
cxx_stl|cxx_stl.cpp|4|1|
'

wrapper_for() {
    case "$1" in
    *.cpp) echo autoanalyzer-mpicxx ;;
    *.f) echo autoanalyzer-mpif77 ;;
    *.f90) echo autoanalyzer-mpif90 ;;
    *) echo autoanalyzer-mpicc ;;
    esac
}

printf 'AutoAnalyzer edge probes: %s, work in %s, %s repetition(s)\n' \
    "$("$AA" version 2>/dev/null | head -1)" "$AA_WORK" "$REPS"
printf '%-16s | %-3s | %-22s | %-34s | %s\n' probe rep clusters "dissimilarity / disparity CCCRs" checks
n_pass=0; n_checks=0; failed=""
while IFS='|' read -r name src np threads flags; do
    [ -n "$name" ] || continue
    if [ -n "${AA_ONLY:-}" ] && ! printf ' %s ' "$AA_ONLY" | grep -q " $name "; then continue; fi
    d="$AA_WORK/$name"; rm -rf "$d"; mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! (cd "$d" && "$(wrapper_for "$src")" -O2 $flags "$SRC/$src" -o "$name") > "$d/build.log" 2>&1; then
        printf '%-16s | -   | NOT BUILT (%s)\n' "$name" "$d/build.log"
        failed="$failed $name"; continue
    fi
    for rep in $(seq 1 "$REPS"); do
        out="$d/exp-$rep"
        (cd "$d" && OMP_NUM_THREADS=$threads AUTOANALYZER_OUTPUT="$out" timeout 300 \
            mpirun -x OMP_NUM_THREADS -np "$np" "./$name") > "$d/run-$rep.log" 2>&1 </dev/null
        rc=$?
        if [ "$rc" != 0 ] || ! "$AA" analyze "$out" --json "$d/analysis-$rep.json" > "$d/analysis-$rep.txt" 2>&1; then
            printf '%-16s | %-3s | run exit %s, see %s\n' "$name" "$rep" "$rc" "$d"
            n_checks=$((n_checks + 1)); failed="$failed $name"; continue
        fi
        python3 "$SCORER" "$SRC/$name.json" "$d/analysis-$rep.json" > "$d/score-$rep.jsonl"
        python3 - "$d/analysis-$rep.json" "$d/score-$rep.jsonl" > "$d/row-$rep" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
cl = " ".join("{%s}" % ",".join(map(str, c["ranks"])) for c in a["dissimilarity"]["clusters"])
if a.get("excluded_ranks"):
    cl += " excl " + ",".join(map(str, a["excluded_ranks"]))
def names(kind):
    return ",".join(b["function"] + ("" if b["name"] == b["function"] else ":" + b["name"])
                    for b in a[kind]["bottlenecks"] if b.get("cccr")) or "-"
checks = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
ok = sum(c["pass"] for c in checks)
bad = ";".join(c["check"] + ": " + c["detail"] for c in checks if not c["pass"])
print("%s|%s / %s|%d|%d|%s" % (cl, names("dissimilarity"), names("disparity"), ok, len(checks), bad))
PY
        IFS='|' read -r cl cccrs p t bad < "$d/row-$rep"
        printf '%-16s | %-3s | %-22s | %-34s | %s/%s %s\n' "$name" "$rep" "$cl" "$cccrs" "$p" "$t" "$bad"
        n_pass=$((n_pass + p)); n_checks=$((n_checks + t))
        [ "$p" = "$t" ] || failed="$failed $name"
    done
done <<< "$PROBES"
[ -z "$failed" ] || echo "# probes with failed checks:$(printf '%s\n' $failed | sort -u | tr '\n' ' ')"
echo "edge probes: $n_pass of $n_checks checks pass"
[ "$n_pass" = "$n_checks" ]
