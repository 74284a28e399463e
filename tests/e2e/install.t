#!/usr/bin/env bash
# `make install`: into a staging DESTDIR with a non-system PREFIX, checks the
# installed files (command, headers, pkg-config file, docs, sample sources,
# runtime libraries when they are built), that pkg-config finds the package
# through PKG_CONFIG_PATH and prints the right flags, that the installed
# headers compile with those flags, and that the installed command runs.
# Then a plain PREFIX install (no DESTDIR) and `make uninstall`.
. "$(dirname "$0")/lib.sh"

case "$AA_BUILD" in "$TOP"/*) B=${AA_BUILD#"$TOP"/} ;; *) B=$AA_BUILD ;; esac
mk() { make --no-print-directory -s -C "$TOP" B="$B" "$@"; }

P=/opt/aa-install-test
D="$T/stage"
ok "make install DESTDIR=... PREFIX=$P" mk install DESTDIR="$D" PREFIX="$P"
R="$D$P"

ok "bin/autoanalyzer is executable" test -x "$R/bin/autoanalyzer"
expect_status 0 "installed command runs 'version'" "$R/bin/autoanalyzer" version
like "$(cat "$T/.out")" "^autoanalyzer version [0-9]" "installed 'version' prints a version"

for h in aa_probe.h aa_runtime.h; do
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
like "$flags" "(^| )-I$P/include/autoanalyzer( |$)" "Cflags point at include/autoanalyzer"
like "$flags" "(^| )-L$P/lib( |$)" "Libs point at lib"
like "$flags" "(^| )-lautoanalyzer[-a-z]*( |$)" "Libs link the autoanalyzer library"
is "$(PKG_CONFIG_PATH="$R/lib/pkgconfig" pkg-config --modversion autoanalyzer)" \
   "$("$AA" version | sed -n 's/^autoanalyzer version //p')" "pkg-config version = command version"

# The installed headers compile with the pkg-config flags (seen through the
# staging root).
if [ -f "$R/include/autoanalyzer/aa_runtime.h" ] || [ -f "$R/include/autoanalyzer/aa_probe.h" ]; then
    {
        [ -f "$R/include/autoanalyzer/aa_runtime.h" ] && echo '#include <aa_runtime.h>'
        [ -f "$R/include/autoanalyzer/aa_probe.h" ] && echo '#include <aa_probe.h>'
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
ok "make uninstall PREFIX=$P2" mk uninstall PREFIX="$P2"
is "$(find "$P2" -type f | wc -l)" 0 "uninstall removes every installed file"

done_testing
