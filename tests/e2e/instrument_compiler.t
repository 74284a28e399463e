#!/usr/bin/env bash
# The instrumenter parses a file as the real compiler sees it: gcc's
# predefined macros (no __clang__, its __GNUC__, __STRICT_ANSI__ for -std=c99,
# _OPENMP for -fopenmp, __OPTIMIZE__ for -O2) and the user's -D/-U, so the
# regions it instruments are the ones gcc compiles.  `--compiler none`
# keeps libclang's own view; a compiler that cannot be asked falls back to
# it.  The instrumented output compiles with gcc -Wall -Werror.
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || skip_all "gcc not installed"
SRC=$TOP/tests/data/instrument/compiler_view.c
MPIFLAGS=$(mpicc --showme:compile 2>/dev/null)
names() { grep -o 'kind="function" name="[^"]*"' "$1" | sed 's/.*name="//; s/"$//' | sort | tr '\n' ' '; }

run_view() { # tag compiler flags...
    local tag=$1 cc=$2; shift 2
    "$AA" instrument --compiler "$cc" "$SRC" -o "$T/$tag.c" -- $MPIFLAGS "$@" 2>"$T/$tag.err"
}

ok "instrument as gcc" run_view gcc gcc
is "$(names "$T/gcc.c.regions.xml")" "gnu_dialect gnuc_at_least_5 main seen_by_gcc " \
    "gcc view: gcc's branches, not clang's"
ok "instrumented output compiles with gcc -Wall -Werror" \
    gcc -Wall -Werror -I"$TOP/runtime" $MPIFLAGS -c "$T/gcc.c" -o "$T/gcc.o"

ok "instrument with libclang's own view" run_view clang none
is "$(names "$T/clang.c.regions.xml")" "gnu_dialect main seen_by_clang " \
    "--compiler none: clang's branches"

ok "instrument as gcc -std=c99 -O2 -fopenmp -DFLAVOUR=2" \
    run_view opts gcc -std=c99 -O2 -fopenmp -DFLAVOUR=2
is "$(names "$T/opts.c.regions.xml")" \
    "flavour_two gnuc_at_least_5 main optimized seen_by_gcc strict_ansi with_openmp " \
    "the flags' predefined macros and the user's -D are seen"
ok "instrument as gcc with -DFLAVOUR=2 -UFLAVOUR" run_view undef gcc -DFLAVOUR=2 -UFLAVOUR
is "$(names "$T/undef.c.regions.xml")" "gnu_dialect gnuc_at_least_5 main seen_by_gcc " \
    "-U after -D removes the macro, as in gcc"

ok "a compiler that cannot be asked: libclang's view" run_view nocc "$T/no-such-cc"
is "$(names "$T/nocc.c.regions.xml")" "gnu_dialect main seen_by_clang " \
    "fallback to libclang's own view"
ok "a compiler that fails: libclang's view" run_view false false
is "$(names "$T/false.c.regions.xml")" "gnu_dialect main seen_by_clang " \
    "a failing compiler query falls back too"

# default: $CC, else cc
( cd "$T" && CC=gcc "$AA" instrument "$SRC" -o "$T/env.c" -- $MPIFLAGS ) 2>/dev/null
is "$(names "$T/env.c.regions.xml")" "gnu_dialect gnuc_at_least_5 main seen_by_gcc " \
    "CC=gcc is the default compiler"

# a compiler that prints nothing sensible (not a C compiler) is not trusted
printf '#!/bin/sh\necho hello\n' > "$T/fakecc"; chmod +x "$T/fakecc"
ok "a program that is no compiler: libclang's view" run_view fake "$T/fakecc"
is "$(names "$T/fake.c.regions.xml")" "gnu_dialect main seen_by_clang " \
    "an answer without predefined macros is ignored"

# the compiler's own system directories are searched too (a compiler
# configured with another sysroot or extra system headers)
mkdir -p "$T/sysinc"
printf 'static inline int only_in_sysinc(void) { return 7; }\n' > "$T/sysinc/only_here.h"
printf '#!/bin/sh\nexec gcc -isystem "%s" "$@"\n' "$T/sysinc" > "$T/syscc"; chmod +x "$T/syscc"
printf '#include <only_here.h>\nint main(void) { return only_in_sysinc() - 7; }\n' > "$T/sys.c"
ok "headers from the compiler's system directories are found" \
    "$AA" instrument --compiler "$T/syscc" "$T/sys.c" -o "$T/sys.i.c" --
expect_status 3 "without the compiler's view they are not" \
    "$AA" instrument --compiler none "$T/sys.c" -o "$T/sys2.i.c" --

done_testing
