#!/bin/bash
# tests/e2e/regionmap_embedded.t -- region maps that travel inside the
# program (docs/profile-format.md "Region maps inside objects and
# programs"): an instrumented MPI program is built with its map embedded
# (aa_regionmap_embed_asm text appended by a tiny helper, as the compiler
# wrapper does) and NO *.regions.xml file anywhere; `run` and `collect`
# still show the never-executed regions, from the executable the runtime
# recorded.  `collect --no-program-maps` leaves them out, a program changed
# since the run is not used (with a note), and a one-step
# `autoanalyzer cc mpicc -o prog a/x.c b/x.c` build (same base name twice)
# carries both maps.  Also: `run --np N` warns once when the program was
# linked without the MPI runtime and the experiment holds fewer processes.
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null 2>&1 || skip_all "mpicc not installed"
command -v mpirun >/dev/null 2>&1 || skip_all "mpirun not installed"
[ -f "$AA_BUILD/lib/libautoanalyzer-mpi.so" ] || skip_all "runtime not built"
case "$("$AA" instrument --help 2>&1)" in *usage*) ;; *) skip_all "instrumenter not built" ;; esac
cd "$T" || exit 1
L="$AA_BUILD/lib"

# the helper: map file -> embed text (what the wrapper appends)
cat > embed.c <<'EOF'
#include "profile/aa_profile.h"
#include <stdio.h>
int main(int argc, char **argv)
{
    aa_regionmap *m = NULL;
    aa_err err;
    aa_buf b;
    if (argc != 2 || aa_regionmap_read(argv[1], &m, &err))
        return fprintf(stderr, "embed: %s\n", argc == 2 ? err.msg : "usage"), 3;
    aa_buf_init(&b);
    if (aa_regionmap_embed_asm(m, &b, &err))
        return fprintf(stderr, "embed: %s\n", err.msg), 3;
    fwrite(b.data, 1, b.len, stdout);
    aa_buf_free(&b);
    aa_regionmap_free(m);
    return 0;
}
EOF
ok "embed helper builds" gcc -std=c11 -I"$TOP" -o embed embed.c "$L/libaa_profile.a" "$L/libaa_common.a" -lxml2 -lz -lm

cat > prog.c <<'EOF'
#include <mpi.h>
#include <stdio.h>

static double work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

static double never_called(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += i * 0.5;
    return s + work(n);
}

int main(int argc, char **argv)
{
    int rank;
    double s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    s = work(1000 * (rank + 1));
    if (argc > 5)
        s += never_called(argc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%g\n", s);
    MPI_Finalize();
    return 0;
}
EOF
"$AA" instrument -q prog.c -o inst.c --map "$T/prog.map" --compiler mpicc >inst.log 2>&1
is "$?" 0 "instrumented"
like "$(cat prog.map)" 'name="never_called"' "the map knows never_called"
./embed prog.map >> inst.c; is "$?" 0 "map appended as embed text"
rm -f prog.map
ok "instrumented program builds (mpicc, -pedantic, no warning)" \
    mpicc -Wall -Wextra -Werror -o prog inst.c -L"$L" -Wl,-rpath,"$L" -lautoanalyzer-mpi -lautoanalyzer
is "$(find "$T" -name '*.regions.xml' | wc -l)" 0 "no region map file anywhere"

# run: the never-executed regions come from the program
"$AA" run --np 2 --no-store --out "$T/r" -- ./prog >run.out 2>run.err
is "$?" 0 "autoanalyzer run --np 2"
X=$(cat r/experiment.xml)
like "$X" '<attr name="executable">'"$T"'/prog</attr>' "the experiment records the executable's absolute path"
like "$X" '<attr name="executable_size">[0-9]+</attr>' "and its size"
like "$X" 'kind="function" name="never_called"' "run: never-executed function from the embedded map"
like "$X" 'kind="loop" name="loop@15" function="never_called"' "run: and its never-executed loop"
is "$(grep -c 'autoanalyzer run: warning: --np' run.err)" 0 "no process-count warning for a real MPI run"

# collect from per-rank files
AUTOANALYZER_OUTPUT="$T/f" AUTOANALYZER_COLLECT=files mpirun -np 2 ./prog >/dev/null 2>f.err
is "$?" 0 "per-rank run"
"$AA" collect f -o a.xml --json >a.json 2>a.err
is "$?" 0 "collect"
like "$(tr -d ' \n' < a.json)" '"program_maps":\{"file":"'"$T"'/prog","maps":1\}' "JSON names the program and one embedded map"
like "$(tr -d ' \n' < a.json)" '"region_maps":\[\]' "and no region map files"
like "$(cat a.xml)" 'name="never_called"' "collect: never_called present"
"$AA" collect f -o b.xml >b.out 2>&1
like "$(cat b.out)" "1 region map embedded in $T/prog" "text summary names the program"
"$AA" collect f -o c.xml --no-program-maps >/dev/null 2>&1
is "$?" 0 "collect --no-program-maps"
is "$(grep -c never_called c.xml)" 0 "--no-program-maps: never_called absent"
like "$(grep -c '<region ' a.xml) $(grep -c '<region ' c.xml)" '^[0-9]+ [0-9]+$' "region counts"
ok "embedded maps add regions" test "$(grep -c '<region ' a.xml)" -gt "$(grep -c '<region ' c.xml)"

# a program rebuilt (or touched) since the run is not used
cp -p prog prog.keep
touch -d '2001-01-01' prog
"$AA" collect f -o d.xml >d.out 2>d.err
is "$?" 0 "collect with a changed program still merges"
like "$(cat d.err)" "note: $T/prog: changed since the run" "note says the program changed"
is "$(grep -c never_called d.xml)" 0 "changed program: its maps are not used"
rm -f prog
"$AA" collect f -o e.xml --json >e.json 2>e.err
is "$?" 0 "collect with the program gone"
like "$(tr -d ' \n' < e.json)" '"program_maps":null,"program_maps_note":"[^"]*prog:Nosuchfile' "JSON note: program gone"
mv prog.keep prog

# run --np N with a program linked without the MPI runtime
ok "program linked without libautoanalyzer-mpi" \
    mpicc -o prog_nompi inst.c -L"$L" -Wl,-rpath,"$L" -lautoanalyzer
"$AA" run --np 3 --no-store --out "$T/n" -- ./prog_nompi >n.out 2>n.err
is "$?" 0 "run --np 3 completes"
is "$(grep -c 'autoanalyzer run: warning: --np 3, but the experiment holds 1 process:' n.err)" 1 \
    "warned once: fewer processes than --np"
like "$(cat n.err)" "not linked with the MPI runtime" "the warning names the cause"

# one-step build through the wrapper: a/x.c and b/x.c, one program, both maps
mkdir -p w/a w/b
cat > w/a/x.c <<'EOF'
int a_unused(int n);
int a_used(int n);
int a_unused(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int a_used(int n) { return n + 1; }
EOF
cat > w/b/x.c <<'EOF'
#include <mpi.h>
int a_used(int n);
int b_unused(int n);
int b_unused(int n) { int s = 1; for (int i = 0; i < n; i++) s *= 2; return s; }
int main(int argc, char **argv)
{
    int r;
    MPI_Init(&argc, &argv);
    r = a_used(argc) > 100 ? b_unused(3) : 0;
    MPI_Finalize();
    return r;
}
EOF
(cd w && "$AA" cc mpicc -c a/x.c -o probe.o) >w.log 2>&1
ok "the wrapper embeds the region map in the object" sh -c "readelf -SW w/probe.o | grep -q autoanalyzer.regions"
(cd w && "$AA" cc mpicc -O1 -o prog2 a/x.c b/x.c) >w.log 2>&1
is "$?" 0 "autoanalyzer cc mpicc -o prog2 a/x.c b/x.c"
find w -name '*.regions.xml' -delete
"$AA" run --np 2 --no-store --out "$T/w2" -- w/prog2 >w2.out 2>w2.err
is "$?" 0 "run the one-step build"
W=$(cat w2/experiment.xml)
like "$W" 'name="a_unused"' "never-executed a_unused (a/x.c) present"
like "$W" 'name="b_unused"' "never-executed b_unused (b/x.c) present"

done_testing
