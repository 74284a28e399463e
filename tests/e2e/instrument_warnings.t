#!/bin/bash
# tests/e2e/instrument_warnings.t -- the diagnostics users read.  A loop or
# call written entirely in a macro's replacement text (MPI_CHECK-style
# do { } while (0) error macros) is not a region: no warning, no region,
# and it does not shift the ids of the regions after it.  The others are
# printed in GCC's format with a tool prefix (file:line:col: warning:
# autoanalyzer: ...), in source order, each distinct reason once per file
# with its first location and a count; -v prints every one.  Fortran
# sources the same.
. "$(dirname "$0")/lib.sh"

cd "$T" || exit 1
cat > w.c <<'SRC'
#include <stdio.h>
#include <string.h>
#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "error\n"); return 1; } } while (0)
#define SUM(n, a) do { for (int q_ = 0; q_ < (n); q_++) (a) += q_; } while (0)

int work(int n)
{
    int s = 0;
    char buf[8];
    /*EXTRA*/
    for (int i = 0; i < n; i++)
        s += i;
    CHECK(snprintf(buf, sizeof buf, "%d", n));
    CHECK(snprintf(buf, sizeof buf, "%d", s));
    SUM(n, s);
    SUM(n, s);
    for (int i = 0; i < n; i++) {
#if 1
        s++;
    }
#else
        s--;
    }
#endif
    for (int i = 0; i < n; i++) {
#if 1
        s++;
    }
#else
        s--;
    }
#endif
    for (int i = 0; i < n; i++) {
#ifdef NOPE
        s++;
    }
#else
        s--;
    }
#endif
    while (n-- > 0)
        s += 2;
    return s;
}

int main(void)
{
    printf("%d\n", work(3));
    return 0;
}
SRC

"$AA" instrument w.c -o w1.c -- 2>def.err; is $? 0 "instruments"
is "$(cat def.err)" \
   "w.c:17:5: warning: autoanalyzer: loop not instrumented: the region crosses a preprocessor conditional (and 2 more like it in this file)" \
   "default mode: error macros are silent; one summary line per reason, GCC format"
is "$(grep -c 'kind="loop"' w1.c.regions.xml)" 2 "macro-made loops are not regions"
is "$(grep -c 'q_\|loop@1[56]' w1.c.regions.xml)" 0 "no region at the macro lines"

"$AA" instrument -v w.c -o w2.c -- 2>v.err
is "$(grep -c 'warning: autoanalyzer: loop not instrumented: the region crosses' v.err)" 3 "-v: every diagnostic"
is "$(grep -o '^w\.c:[0-9]*:[0-9]*' v.err | tr '\n' ' ')" "w.c:17:5 w.c:25:5 w.c:33:5 " "-v: in source order, with columns"

"$AA" instrument --mode all w.c -o w3.c -- 2>all.err
like "$(cat all.err)" "^w\\.c:13:11: warning: autoanalyzer: call to snprintf not instrumented: the call is part of a larger expression.*\\(and 1 more like it in this file\\)" \
     "calls written in a macro's arguments are user calls: reported once"
is "$(grep -c 'fprintf' all.err)" 0 "calls in the macro's own text: silent"
is "$(grep -c 'name="fprintf' w3.c.regions.xml)" 0 "calls in the macro's own text: no region"
is "$(wc -l < all.err)" 2 "--mode all: two lines for two reasons"

# ids: a new macro-made loop before the loops changes none of their ids
ids() { sed -n 's/.*id="\([0-9]*\)" kind="loop".*/\1/p' "$1" | sort | tr '\n' ' '; }
sed 's|/\*EXTRA\*/|SUM(n, s); CHECK(snprintf(buf, sizeof buf, "x"));|' w.c > w.c.new && mv w.c.new w.c
"$AA" instrument --mode all w.c -o w4.c -- 2>/dev/null
is "$(ids w4.c.regions.xml)" "$(ids w3.c.regions.xml)" "loop ids stable when a macro-made loop is added before them"
is "$(grep -c 'kind="loop"' w4.c.regions.xml)" "$(grep -c 'kind="loop"' w3.c.regions.xml)" "same loops"

"$AA" instrument -q --mode all w.c -o w5.c -- 2>q.err
is "$(cat q.err)" "" "-q: silent"

# Fortran the same: three loops under OpenMP directives, one line
if command -v gfortran >/dev/null 2>&1; then
    cat > omp3.f90 <<'SRC'
program p
  integer :: i, j
  real :: a(100)
!$omp parallel do
  do i = 1, 100
    a(i) = i
  end do
!$omp parallel do
  do j = 1, 100
    a(j) = a(j) * 2
  end do
!$omp parallel do
  do i = 1, 100
    a(i) = a(i) + 1
  end do
  print *, a(1)
end program
SRC
    "$AA" instrument -o f1.f90 omp3.f90 -- gfortran -fopenmp 2>f.err; is $? 0 "Fortran: instruments"
    is "$(cat f.err)" \
       "omp3.f90:5:3: warning: autoanalyzer: loop not instrumented: loop under a directive (OpenMP, !DIR\$, !GCC\$) (and 2 more like it in this file)" \
       "Fortran: one summary line per reason, GCC format"
    "$AA" instrument -v -o f2.f90 omp3.f90 -- gfortran -fopenmp 2>fv.err
    is "$(grep -o '^omp3\.f90:[0-9]*:[0-9]*' fv.err | tr '\n' ' ')" "omp3.f90:5:3 omp3.f90:9:3 omp3.f90:13:3 " \
       "Fortran -v: every one, in source order"
    "$AA" instrument -q -o f3.f90 omp3.f90 -- gfortran -fopenmp 2>fq.err
    is "$(cat fq.err)" "" "Fortran -q: silent"
else
    ok "gfortran not installed: Fortran warnings not tested # SKIP" true
fi
done_testing
