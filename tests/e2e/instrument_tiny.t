#!/usr/bin/env bash
# The size rules of the instrumenter (docs/instrument.md, "Small regions"):
# static inline functions, tiny leaf functions, short functions, bisection
# loops and tiny constant-trip loops are left out by default and listed in the region map as
# instrumented="no" with the reason; the text of what is left out is
# byte-identical in the instrumented source (no probe, no attribute: the
# compiler inlines and vectorises it as before); `--mode ...,tiny`, `--mode
# all`, an --include naming the function, and AUTOANALYZER_MODE put them back.
. "$(dirname "$0")/lib.sh"
SRC="$TOP/tests/instrument/tiny/tiny.c"
cd "$T" || exit 1
cp "$SRC" tiny.c

expect_status 0 "default mode instruments" "$AA" instrument -q -o d.c tiny.c --
reason() { grep "name=\"$1\"" "$2" | sed -n 's/.*instrumented="no" reason="\([^"]*\)".*/\1/p'; }
is "$(reason sq d.c.regions.xml)" "static inline function" "static inline sq() left out, with its reason"
is "$(reason norm3 d.c.regions.xml)" "tiny leaf function" "norm3() (libm call only) is a tiny leaf function"
is "$(reason pick d.c.regions.xml)" "tiny leaf function" "pick() (3 statements) is a tiny leaf function"
is "$(reason say d.c.regions.xml)" "" "say() calls printf (may block): instrumented"
ok "say() is in the map as a region" grep -q 'name="say" function="say"[^>]*end-col="[0-9]*"/>' d.c.regions.xml
is "$(grep -c 'reason="tiny loop (constant trip count, straight-line body)"' d.c.regions.xml)" 3 \
    "three tiny constant-trip loops (NDIM macro, 0..7 inclusive, 10 down by 2) left out"
for l in 22 24; do
    ok "loop@$l (a call in the body / n iterations) instrumented" \
        sh -c "grep 'name=\"loop@$l\"' d.c.regions.xml | grep -vq instrumented="
done
ok "main is never a tiny function" sh -c "grep 'name=\"main\"' d.c.regions.xml | grep -vq instrumented="
# byte-identical text of what is left out
body() { sed -n '/^#line 1 /,$p' "$1" | tail -n +2 | sed -n "$2p"; }
for l in 8 9 10 16 17 18 19 20 21; do
    is "$(body d.c $l)" "$(sed -n "${l}p" tiny.c)" "line $l (left out) is byte-identical in the instrumented source"
done
ok "no probe in any left-out function" sh -c "body() { sed -n '/^#line 1 /,\$p' d.c | sed -n '9,11p'; }; ! body | grep -q AA_INSTRUMENT"
ok "instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -c -o d.o -x c d.c

# the rules compose: helpers calling only left-out functions (defined
# before or after them), or holding only tiny loops, are left out too
cp "$TOP/tests/instrument/tiny/compose.c" compose.c
expect_status 0 "composed rules: instrument" "$AA" instrument -q -o c.c compose.c --
is "$(reason vsub c.c.regions.xml)" "tiny leaf function" "vsub() (one tiny loop) is tiny"
is "$(reason scaled c.c.regions.xml)" "tiny leaf function" "scaled() (calls a static inline and a tiny function) is tiny"
is "$(reason later c.c.regions.xml)" "tiny leaf function" "later() calls a tiny function defined after it: tiny"
is "$(reason late_leaf c.c.regions.xml)" "tiny leaf function" "late_leaf() is tiny"
is "$(reason busy c.c.regions.xml)" "" "busy() (a tiny loop calling printf) is instrumented"
ok "composed: the instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -c -o c.o -x c c.c

SHORTLEAF="short leaf function (at most 24 statements per visit, no call that may wait)"
SHORTFN="short function (at most 24 statements per visit, at most 2 calls to functions of the program, no MPI or I/O)"
BISECT="bounded search function (bisection loop, at most 64 steps)"
SPAN="loop spanning the function body (measured by the function region)"

# do { } while (0) macros, longer straight-line helpers, and a loop that
# is the whole function body
cp "$TOP/tests/instrument/tiny/more.c" more.c
expect_status 0 "more rules: instrument" "$AA" instrument -q -o m.c more.c --
is "$(reason visit m.c.regions.xml)" "tiny leaf function" "visit() (a do { } while (0) macro) is a tiny leaf"
is "$(reason sort3 m.c.regions.xml)" "tiny leaf function" "sort3() (7 statements written, 19 expanded) is tiny"
is "$(reason coulomb m.c.regions.xml)" "tiny leaf function" "coulomb() (12 straight-line statements) is tiny"
is "$(reason coulomb13 m.c.regions.xml)" "$SHORTLEAF" "coulomb13() (13 statements) is a short leaf, not a tiny one"
for f in halve search; do
    is "$(reason $f m.c.regions.xml)" "$BISECT" "$f() (a bisection loop) is a bounded search function"
    is "$(grep "function=\"$f\"" m.c.regions.xml | grep 'kind="loop"' | sed -n 's/.*reason="\([^"]*\)".*/\1/p')" \
        "in a short function" "the loop of $f() goes with it"
done
is "$(grep 'function="two"' m.c.regions.xml | grep 'kind="loop"' | grep -c instrumented=)" 0 "two(): both loops instrumented"
is "$(grep 'function="noisy"' m.c.regions.xml | grep 'kind="loop"' | grep -c instrumented=)" 0 \
    "noisy() (printf beside the loop): loop instrumented"
is "$(grep 'function="show"' m.c.regions.xml | grep 'kind="loop"' | grep -c instrumented=)" 0 \
    "show() (its whole body a loop calling printf): loop instrumented"
is "$(grep 'function="macro"' m.c.regions.xml | grep 'name="loop@' | grep -c "$SPAN")" 1 \
    "macro(): the loop beside a tiny loop, calling a tiny helper, spans the body (left out)"
is "$(grep 'function="pick12"' m.c.regions.xml | grep 'name="loop@' | sed -n 's/.*reason="\([^"]*\)".*/\1/p')" "$SPAN" \
    "pick12(): the loop beside 14 straight-line statements spans the body (left out)"
ok "macro() itself instrumented" sh -c "grep 'name=\"macro\"' m.c.regions.xml | grep -vq instrumented="
ok "more: the instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -c -o m.o -x c m.c
expect_status 0 "--mode outer-loops (no function region)" "$AA" instrument -q --mode outer-loops -o o.c more.c --
is "$(grep 'function="search"' o.c.regions.xml | grep 'kind="loop"' | sed -n 's/.*reason="\([^"]*\)".*/\1/p')" \
    "in a short function" "without the function region the loop of search() stays left out with its function"
expect_status 0 "--include search" "$AA" instrument -q --include search --include main -o s.c more.c --
is "$(grep 'function="search"' s.c.regions.xml | grep -c instrumented=)" 0 "an INCLUDE naming search() puts its loop back"
expect_status 0 "--mode default,tiny" "$AA" instrument -q --mode default,tiny -o mt.c more.c --
is "$(grep -c 'instrumented="no"' mt.c.regions.xml)" 0 "mode tiny: nothing of more.c left out"

# the short-function rule (a cost model: statements per visit, calls that
# may wait, calls to the program's functions) and bisection loops
cp "$TOP/tests/instrument/tiny/short.c" "$TOP/tests/instrument/tiny/short.h" .
expect_status 0 "short functions: instrument" "$AA" instrument -q -o sh.c short.c --
for f in wrap1 wrap_ext via_ptr ext_a ext_b; do
    is "$(reason $f sh.c.regions.xml)" "$SHORTFN" "$f() (a few statements, one call to a function of the program) is short"
done
is "$(reason alloc_or_die sh.c.regions.xml)" "$SHORTLEAF" "alloc_or_die() (malloc, an error path that reports and exits) is short"
is "$(reason box_of sh.c.regions.xml)" "$SHORTLEAF" "box_of() (two asserts: calls that do not return) is short"
is "$(reason grow sh.c.regions.xml)" "$SHORTLEAF" "grow() (a branch calling cheap static inline functions of a header) is short"
is "$(reason branches sh.c.regions.xml)" "$SHORTLEAF" "branches() (30 statements, 16 on its longest path) is short"
is "$(reason bs_shift sh.c.regions.xml)" "$BISECT" "bs_shift() (mid = (lo + hi) >> 1) is a bounded search"
is "$(reason halve_loop sh.c.regions.xml)" "$BISECT" "halve_loop() (x /= 2) is a bounded search"
for f in wrap_hdr wrap_mpi wrap_io three ctx_a mpi_path long25 omp_wrap not_bs kernel solo; do
    ok "$f() instrumented" sh -c "grep 'name=\"$f\"' sh.c.regions.xml | grep -vq instrumented="
done
is "$(grep 'function="not_bs"' sh.c.regions.xml | grep 'kind="loop"' | sed -n 's/.*reason="\([^"]*\)".*/\1/p')" \
    "$SPAN" "not_bs(): a linear loop indexing a halving is no bisection (left out only as the function's body)"
ok "short: the instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -fopenmp -c -o sh.o -x c sh.c
expect_status 0 "short: --mode default,tiny" "$AA" instrument -q --mode default,tiny -o sht.c short.c --
is "$(grep -c 'instrumented="no"' sht.c.regions.xml)" 0 "mode tiny: nothing of short.c left out"
expect_status 0 "short: --include wrap1" "$AA" instrument -q --include wrap1 --include main -o shi.c short.c --
ok "an INCLUDE naming wrap1() instruments it" sh -c "grep 'name=\"wrap1\"' shi.c.regions.xml | grep -vq instrumented="

# tiny loop nests: for loops whose trip counts are bounded once the
# enclosing loops' variables take their values, at most 192 statements
NEST="tiny loop nest (bounded trip counts, at most 192 statements executed)"
cp "$TOP/tests/instrument/tiny/nest.c" nest.c
expect_status 0 "nests: instrument" "$AA" instrument -q -o n.c nest.c --
is "$(reason tri_pick n.c.regions.xml)" "$SHORTLEAF" "tri_pick() (a 12-entry triangular table search) is a short leaf"
is "$(grep 'function="tri_pick"' n.c.regions.xml | grep 'kind="loop"' | sed -n 's/.*reason="\([^"]*\)".*/\1/p')" \
    "in a short function" "its nest goes with it"
for l in 48 52; do
    is "$(reason loop@$l n.c.regions.xml)" "$NEST" "report(): loop@$l (a lower triangle / 12 iterations) is a tiny nest"
done
for l in 55 59 63 70 74; do
    ok "report(): loop@$l (273 statements / a parameter bound / the variable changed / printf / shadowed) instrumented" \
        sh -c "grep 'name=\"loop@$l\"' n.c.regions.xml | grep -vq instrumented="
done
ok "report() itself instrumented" sh -c "grep 'name=\"report\"' n.c.regions.xml | grep -vq instrumented="
expect_status 0 "nests: parsed with -fopenmp" "$AA" instrument -q -o no.c nest.c -- -fopenmp
ok "par_report() (an OpenMP region calling report()) instrumented" \
    sh -c "grep 'name=\"par_report\"' no.c.regions.xml | grep -vq instrumented="
ok "par_reports(): its 12 calls of par_report() are no tiny nest" \
    sh -c "grep 'function=\"par_reports\"' no.c.regions.xml | grep 'kind=\"loop\"' | grep -vq instrumented="
expect_status 0 "nests: --mode default,inner-loops" "$AA" instrument -q --mode default,inner-loops -o ni.c nest.c --
is "$(reason loop@49 ni.c.regions.xml)" "$NEST" "the inner loop of a tiny nest (j <= i) is tiny too"
is "$(reason loop@56 ni.c.regions.xml)" "$NEST" "the inner loop of the 16 x 16 nest (16 iterations, 17 statements) is tiny alone"
ok "the inner loop of the parameter-bound nest is instrumented" sh -c "grep 'name=\"loop@60\"' ni.c.regions.xml | grep -vq instrumented="
ok "nests: the instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -fopenmp -c -o n.o -x c n.c
expect_status 0 "nests: --mode default,tiny" "$AA" instrument -q --mode default,tiny -o nt.c nest.c --
is "$(grep -c 'instrumented="no"' nt.c.regions.xml)" 0 "mode tiny: no nest left out"

# loops that at least halve their controlling integer: a for loop whose
# step shifts an unsigned integer by a byte, a while loop dividing by 10
cp "$TOP/tests/instrument/tiny/shift.c" shift.c
expect_status 0 "shifts: instrument" "$AA" instrument -q -o sf.c shift.c --
for f in by_bytes digits; do
    is "$(reason $f sf.c.regions.xml)" "$BISECT" "$f() (x >>= 8 in the step / n /= 10) is a bounded search function"
done
for f in signed_shift grows init_half; do
    ok "$f() (a signed shift / the body writes x / a halving in the initialisation) instrumented" \
        sh -c "grep 'name=\"$f\"' sf.c.regions.xml | grep -vq instrumented="
done
ok "shifts: the instrumented source builds with -Wall -Werror" gcc -O2 -Wall -Werror -c -o sf.o -x c sf.c

# overrides
expect_status 0 "--mode default,tiny" "$AA" instrument -q --mode default,tiny -o t.c tiny.c --
is "$(grep -c 'instrumented="no"' t.c.regions.xml)" 0 "mode tiny: nothing left out"
is "$(grep -c '<region ' t.c.regions.xml)" 11 "mode tiny: 6 functions + 5 loops"
expect_status 0 "--mode all" "$AA" instrument -q --mode all -o a.c tiny.c --
is "$(grep -c 'instrumented="no"' a.c.regions.xml)" 0 "mode all includes tiny"
expect_status 0 "--include pick" "$AA" instrument -q --include pick -o i.c tiny.c --
ok "an INCLUDE naming pick() instruments it" sh -c "grep 'name=\"pick\"' i.c.regions.xml | grep -vq instrumented="
is "$(reason sq i.c.regions.xml)" "static inline function" "the others stay left out"
expect_status 0 "--include 'p*' (a glob) does not force" "$AA" instrument -q --include 'p*' -o g.c tiny.c --
is "$(reason pick g.c.regions.xml)" "tiny leaf function" "a wildcard INCLUDE names nothing"
printf 'SCOREP_REGION_NAMES_BEGIN\n  INCLUDE sq\nSCOREP_REGION_NAMES_END\n' > inc.filt
expect_status 0 "filter file INCLUDE sq" "$AA" instrument -q --filter inc.filt -o f.c tiny.c --
ok "filter-file INCLUDE naming sq() instruments it" sh -c "grep 'name=\"sq\"' f.c.regions.xml | grep -vq instrumented="
expect_status 0 "instrument -v" sh -c "'$AA' instrument -v -o v.c tiny.c -- 2> v.err"
like "$(cat v.err)" "tiny.c:9: function norm3 not instrumented: tiny leaf function" "-v notes each left-out region"
if command -v gcc >/dev/null; then
    expect_status 0 "cc with AUTOANALYZER_MODE=default,tiny" env AUTOANALYZER_MODE=default,tiny \
        AUTOANALYZER_MAPDIR="$T/maps" "$AA" cc gcc -O2 -c -o w.o tiny.c
    ok "the wrapper's map has no left-out region" sh -c "! grep -rq 'instrumented=\"no\"' '$T/maps'"
fi
done_testing
