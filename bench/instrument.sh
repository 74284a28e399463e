#!/bin/bash
# bench/instrument.sh -- instrumenter speed against `clang -fsyntax-only`
# on the same files and flags (SPEC §8 target: within 1.5x).  Files: the
# samples, the torture suite and a generated 40,000-line file.  Each command
# is timed REPS times (default 5) and the minimum is kept; prints the ratio
# per group and for the big file, parsing as gcc sees the files (one gcc
# query per file) and with libclang's own view (--compiler none).  Usage: bench/instrument.sh [REPS]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
AA=${AA:-$TOP/build/bin/autoanalyzer}
REPS=${1:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/aa-bench-instr.XXXXXX")
trap 'rm -rf "$T"' EXIT
CLANG=$(command -v clang || command -v clang-14) || { echo "no clang"; exit 0; }
MPIF=$(mpicc --showme:compile 2>/dev/null)

# generated file: 2,000 functions with nested loops, libm and libc calls
{
    echo '#include <math.h>'; echo '#include <stdio.h>'; echo '#include <string.h>'
    for i in $(seq 1 2000); do
        cat <<EOC
double fn_$i(double *v, int n)
{
    double s = 0;
    char buf[32];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            s += sqrt(v[j] * v[i]) + $i;
        if (s > 1e9)
            break;
    }
    memset(buf, 0, sizeof buf);
    while (s > 100.0) s /= 2;
    snprintf(buf, sizeof buf, "%g", s);
    return s + (double)strlen(buf);
}
EOC
    done
} > "$T/big.c"

# timing: python3 (min of REPS runs per command)
python3 - "$AA" "$CLANG" "$REPS" "$T" "$MPIF" "$TOP" <<'EOPY'
import glob, os, subprocess, sys, time
aa, clang, reps, tmp, mpif, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5].split(), sys.argv[6]
def best(cmd):
    b = 1e9
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        b = min(b, time.perf_counter() - t0)
    return b
def group(name, mode, files):
    ta = tn = tc = 0.0
    for f in files:
        flags = ["-I" + os.path.dirname(f)] + mpif + ["-fopenmp"]
        cmd = [aa, "instrument", "-q", "--mode", mode, f, "-o", tmp + "/out.c"]
        ta += best(cmd + ["--compiler", "gcc", "--"] + flags)
        tn += best(cmd + ["--compiler", "none", "--"] + flags)
        tc += best([clang, "-fsyntax-only", "-w"] + flags + [f])
    print("%-28s %3d files  instrument %7.3f s (libclang's own view %7.3f s)  clang -fsyntax-only %7.3f s  ratio %.2fx (%.2fx)"
          % (name + " [" + mode + "]", len(files), ta, tn, tc, ta / tc, tn / tc))
print("instrumenter vs clang -fsyntax-only (min of %d runs each; target <= 1.5x)" % reps)
samples = sorted(glob.glob(top + "/samples/*.c"))
if samples:
    group("samples", "default", samples)
    group("samples", "all", samples)
group("torture", "all", sorted(glob.glob(top + "/tests/instrument/torture/*.c")))
group("big.c (40k lines)", "default", [tmp + "/big.c"])
group("big.c (40k lines)", "all", [tmp + "/big.c"])
EOPY
