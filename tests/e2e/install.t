#!/usr/bin/env bash
# `make install`: into a staging DESTDIR with a non-system PREFIX, checks the
# installed files (command, one-word wrapper symlinks, headers, pkg-config
# files, CMake package, docs, sample sources, runtime libraries when they are
# built), that pkg-config finds both packages through PKG_CONFIG_PATH and
# prints the right flags, that the installed headers compile with those
# flags, that the installed MPI library finds the installed core library
# ($ORIGIN), and that the installed command runs.  Then a plain PREFIX
# install (no DESTDIR): an MPI program that includes
# <autoanalyzer/aa_runtime.h>, built with mpicc -Wl,--as-needed and
# `pkg-config --cflags --libs autoanalyzer-mpi`, runs on 4 ranks and records
# 4 processes in one experiment, with the I/O of its shared library; then
# `make uninstall` leaves nothing.
. "$(dirname "$0")/lib.sh"

case "$AA_BUILD" in "$TOP"/*) B=${AA_BUILD#"$TOP"/} ;; *) B=$AA_BUILD ;; esac
mk() { make --no-print-directory -s -C "$TOP" B="$B" "$@"; }

# root_metric EXPERIMENT.xml METRIC -> the whole-program value, one line per process
root_metric() {
    awk -v m="$2" '/<metric name=/ { n++; if (index($0, "name=\"" m "\"")) k = n }
        /<node region="0" parent="-1"/ { match($0, /v="[^"]*"/); split(substr($0, RSTART + 3, RLENGTH - 4), a, " "); print a[k] }' "$1"
}

P=/opt/aa-install-test
D="$T/stage"
ok "make install DESTDIR=... PREFIX=$P" mk install DESTDIR="$D" PREFIX="$P"
R="$D$P"

ok "bin/autoanalyzer is executable" test -x "$R/bin/autoanalyzer"
expect_status 0 "installed command runs 'version'" "$R/bin/autoanalyzer" version
like "$(cat "$T/.out")" "^autoanalyzer version [0-9]" "installed 'version' prints a version"

for h in aa_probe.h aa_runtime.h aa_user.h; do
    if [ -f "$TOP/runtime/$h" ]; then
        ok "header $h installed" test -f "$R/include/autoanalyzer/$h"
    fi
done
if grep -q '#include "[a-z_]*/aa_' "$R"/include/autoanalyzer/*.h 2>/dev/null; then
    _tap_result 1 "installed headers include each other without a component dir"
    grep -n '#include "[a-z_]*/aa_' "$R"/include/autoanalyzer/*.h | sed 's/^/#   /'
else
    _tap_result 0 "installed headers include each other without a component dir"
fi

# One-word wrappers: symlinks to the command (it dispatches on argv[0]).
for w in mpicc cc gcc clang mpicxx mpic++ c++ g++ mpif90 mpif77 mpifort gfortran; do
    is "$(readlink "$R/bin/autoanalyzer-$w" 2>&1)" autoanalyzer "bin/autoanalyzer-$w -> autoanalyzer"
done

# Every runtime library that was built is installed (symlinks kept).
for f in "$AA_BUILD"/lib/libautoanalyzer*.a "$AA_BUILD"/lib/libautoanalyzer*.so*; do
    [ -e "$f" ] || continue
    ok "library ${f##*/} installed" test -e "$R/lib/${f##*/}"
done

PC="$R/lib/pkgconfig/autoanalyzer.pc"
ok "pkg-config file installed" test -f "$PC"
like "$(cat "$PC")" "prefix=$P" "pkg-config file records PREFIX, not DESTDIR"
if grep -q "$D" "$PC"; then _tap_result 1 "no DESTDIR in the pkg-config file"
else _tap_result 0 "no DESTDIR in the pkg-config file"; fi
flags=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --cflags --libs autoanalyzer 2>&1)
is "$?" 0 "pkg-config --cflags --libs autoanalyzer succeeds"
like "$flags" "(^| )-I$P/include( |$)" "Cflags point at include (<autoanalyzer/aa_runtime.h>)"
like "$flags" "(^| )-I$P/include/autoanalyzer( |$)" "Cflags point at include/autoanalyzer"
like "$flags" "(^| )-DAUTOANALYZER=1( |$)" "Cflags define AUTOANALYZER (user-region macros on)"
like "$flags" "(^| )-L$P/lib( |$)" "Libs point at lib"
like "$flags" "(^| )-Wl,-rpath,$P/lib( |$)" "Libs set an rpath to lib"
like "$flags" "(^| )-lautoanalyzer( |$)" "Libs link libautoanalyzer"
like "$flags" "(^| )-Wl,--push-state,--no-as-needed,-lautoanalyzer,--pop-state( |$)" \
    "Libs link libautoanalyzer in a --no-as-needed fragment"
if printf '%s' "$flags" | grep -q -- '-lautoanalyzer-mpi'; then
    _tap_result 1 "the non-MPI package does not link the MPI wrappers"
else _tap_result 0 "the non-MPI package does not link the MPI wrappers"; fi

PCM="$R/lib/pkgconfig/autoanalyzer-mpi.pc"
ok "pkg-config file autoanalyzer-mpi.pc installed" test -f "$PCM"
mflags=$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --cflags --libs autoanalyzer-mpi 2>&1)
is "$?" 0 "pkg-config --cflags --libs autoanalyzer-mpi succeeds"
like "$mflags" "(^| )-Wl,--push-state,--no-as-needed,-lautoanalyzer-mpi,-lautoanalyzer,--pop-state( |$)" \
    "autoanalyzer-mpi links both libraries in one --no-as-needed fragment"
like "$mflags" "(^| )-I$P/include( |$)" "autoanalyzer-mpi Cflags point at include"
like "$mflags" "(^| )-DAUTOANALYZER=1( |$)" "autoanalyzer-mpi Cflags define AUTOANALYZER (from Requires)"
like "$mflags" "(^| )-Wl,-rpath,$P/lib( |$)" "autoanalyzer-mpi Libs set an rpath"
like "$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --print-requires autoanalyzer-mpi)" \
    "^autoanalyzer( |$)" "autoanalyzer-mpi Requires autoanalyzer"
is "$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --modversion autoanalyzer-mpi)" \
   "$("$AA" version | sed -n 's/^autoanalyzer version //p')" "autoanalyzer-mpi version = command version"
if grep -q "$D" "$PCM"; then _tap_result 1 "no DESTDIR in autoanalyzer-mpi.pc"
else _tap_result 0 "no DESTDIR in autoanalyzer-mpi.pc"; fi

# The CMake package (tests/e2e/install_cmake.t uses it).
for f in AutoAnalyzerConfig.cmake AutoAnalyzerConfigVersion.cmake; do
    ok "CMake $f installed" test -f "$R/lib/cmake/AutoAnalyzer/$f"
done
if grep -q -e "$D" -e "$P" "$R/lib/cmake/AutoAnalyzer/AutoAnalyzerConfig.cmake"; then
    _tap_result 1 "CMake package holds no absolute install path (relocatable)"
else _tap_result 0 "CMake package holds no absolute install path (relocatable)"; fi

# The installed MPI library finds the installed core library next to itself.
if [ -f "$AA_BUILD/lib/libautoanalyzer-mpi.so" ]; then
    like "$(readelf -d "$R/lib/libautoanalyzer-mpi.so")" '(RPATH|RUNPATH).*\[\$ORIGIN\]' \
        "installed libautoanalyzer-mpi.so has the \$ORIGIN rpath"
    like "$(ldd "$R/lib/libautoanalyzer-mpi.so" 2>&1)" "libautoanalyzer\.so => $R/lib/libautoanalyzer\.so" \
        "installed libautoanalyzer-mpi.so resolves the installed libautoanalyzer.so"
fi
is "$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --modversion autoanalyzer)" \
   "$("$AA" version | sed -n 's/^autoanalyzer version //p')" "pkg-config version = command version"

# The installed headers compile with the pkg-config flags (seen through the
# staging root).
if [ -f "$R/include/autoanalyzer/aa_runtime.h" ] || [ -f "$R/include/autoanalyzer/aa_probe.h" ]; then
    {
        [ -f "$R/include/autoanalyzer/aa_runtime.h" ] && echo '#include <aa_runtime.h>'
        [ -f "$R/include/autoanalyzer/aa_probe.h" ] && echo '#include <aa_probe.h>'
        echo '#include <autoanalyzer/aa_runtime.h>'
        echo '#include <autoanalyzer/aa_user.h>'
        echo 'int main(void) { return 0; }'
    } > "$T/use.c"
    cflags=$(PKG_CONFIG_SYSROOT_DIR="$D" PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --cflags autoanalyzer)
    # shellcheck disable=SC2086
    ok "installed headers compile with pkg-config --cflags" \
        cc -std=c11 -Wall -Wextra -Werror $cflags -c "$T/use.c" -o "$T/use.o"
fi

ok "docs installed" test -f "$R/share/doc/autoanalyzer/README.md"
for f in "$TOP"/docs/*.md; do
    [ -e "$f" ] || continue
    ok "doc ${f##*/} installed" test -f "$R/share/doc/autoanalyzer/${f##*/}"
done
for f in imbalance.c master_worker.c Makefile README.md; do
    ok "sample $f installed" test -f "$R/share/autoanalyzer/samples/$f"
done
is "$(ls "$R/share/autoanalyzer/samples/"*.c | wc -l)" "$(ls "$TOP"/samples/*.c | wc -l)" \
   "all sample sources installed"

# A plain install into a writable PREFIX, then uninstall.
P2="$T/prefix"
ok "make install PREFIX=$P2" mk install PREFIX="$P2"
expect_status 0 "command from PREFIX runs 'version'" "$P2/bin/autoanalyzer" version
expect_status 0 "installed autoanalyzer-gcc passes --version through to gcc" "$P2/bin/autoanalyzer-gcc" --version
like "$(head -1 "$T/.out")" "gcc" "autoanalyzer-gcc --version prints gcc's version"

# An MPI program built the pkg-config way, with --as-needed forced.  Its
# MPI calls and its I/O are in a shared library of the user's (libwork.so),
# and main() references nothing of the runtime: only the --no-as-needed
# fragment keeps libautoanalyzer.so before libc, so that write() inside
# libwork.so is measured.  All 4 ranks are one experiment (MPI_Init binds
# to the wrapper) with exactly the 1000 bytes each rank writes.
if command -v mpicc >/dev/null && command -v mpirun >/dev/null \
    && [ -f "$P2/lib/libautoanalyzer-mpi.so" ]; then
    cat > "$T/work.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int work_run(int argc, char **argv)
{
    int rank, size, sum = 0;
    char buf[1000] = {0};
    FILE *f;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    f = tmpfile();
    if (!f || write(fileno(f), buf, sizeof buf) != (ssize_t)sizeof buf)
        return 1;
    fclose(f);
    if (rank == 0)
        printf("size %d sum %d\n", size, sum);
    MPI_Finalize();
    return 0;
}
EOF
    cat > "$T/mpiapp.c" <<'EOF'
#include <autoanalyzer/aa_runtime.h>
int work_run(int argc, char **argv);
int main(int argc, char **argv)
{
    return work_run(argc, argv);
}
EOF
    ok "user library libwork.so builds" \
        mpicc -std=c11 -D_GNU_SOURCE -shared -fPIC -o "$T/libwork.so" "$T/work.c"
    pcf=$(PKG_CONFIG_PATH="$P2/lib/pkgconfig" pkg-config --cflags --libs autoanalyzer-mpi)
    # shellcheck disable=SC2086
    ok "MPI program builds with mpicc -Wl,--as-needed \$(pkg-config --cflags --libs autoanalyzer-mpi)" \
        mpicc -std=c11 -Wall -Wextra -Werror -Wl,--as-needed -o "$T/mpiapp" "$T/mpiapp.c" \
        -L"$T" -Wl,-rpath,"$T" -lwork $pcf
    needed=$(readelf -d "$T/mpiapp" 2>&1 | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    like "$needed" "libautoanalyzer-mpi\.so libautoanalyzer\.so .*libc\.so" \
        "the program needs libautoanalyzer-mpi.so and libautoanalyzer.so (before libc)"
    ok "it runs on 4 ranks (found through the rpath)" \
        env AUTOANALYZER_OUTPUT="$T/mpiout" mpirun -np 4 "$T/mpiapp"
    is "$(cat "$T/.out")" "size 4 sum 6" "its output is unchanged"
    X="$T/mpiout/experiment.xml"
    like "$(head -3 "$X" 2>&1)" 'nprocs="4"' "the experiment records nprocs 4"
    is "$(grep -c '<process ' "$X" 2>/dev/null)" 4 "the experiment holds 4 processes"
    is "$(root_metric "$X" io_write_bytes | tr '\n' ' ')" "1013 1000 1000 1000 " \
        "the write() in libwork.so is measured on every rank (rank 0: + its 13-byte printf)"
fi

# A program that calls nothing of the runtime, linked with the non-MPI
# package: the runtime is kept (Debian's gcc links --as-needed by default)
# and measures the program as a whole.
printf '#include <stdio.h>\nint main(void)\n{\n    puts("whole");\n    return 0;\n}\n' > "$T/whole.c"
# shellcheck disable=SC2046
ok "program without runtime calls builds with -Wl,--as-needed \$(pkg-config --libs autoanalyzer)" \
    cc -Wl,--as-needed -o "$T/whole" "$T/whole.c" $(PKG_CONFIG_PATH="$P2/lib/pkgconfig" pkg-config --cflags --libs autoanalyzer)
ok "it runs" env AUTOANALYZER_OUTPUT="$T/wholeout" "$T/whole"
is "$(cat "$T/.out")" whole "its output is unchanged"
ok "it is measured (experiment.xml written)" test -f "$T/wholeout/experiment.xml"

ok "make uninstall PREFIX=$P2" mk uninstall PREFIX="$P2"
is "$(find "$P2" -type f | wc -l)" 0 "uninstall removes every installed file"
is "$(find "$P2" -type l | wc -l)" 0 "uninstall removes every installed symlink"

done_testing
