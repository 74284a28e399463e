#!/bin/bash
# tests/e2e/runtime_stdio.t -- I/O counted at the stdio API and metadata
# calls measured (tests/runtime/rt_stdio): bytes written through fprintf,
# vfprintf, printf, fputs, puts, fputc, putc, putchar and fwrite match the
# kernel's wchar (/proc/self/io) within 1%, bytes read through fscanf,
# fgets and fread its rchar within 1%, nothing is counted twice, and the 11
# metadata calls (mkdir ... rmdir) are I/O calls with I/O time.  The
# program's output is the same as without measurement.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/runtime_lib.sh"
B="$AA_BUILD/tests"
[ -x "$B/rt_stdio" ] && [ -x "$RT_DUMP" ] || skip_all "runtime test programs not built (make runtime-test-progs)"
[ -r /proc/self/io ] || skip_all "/proc/self/io not readable"
cd "$T" || exit 1
mkdir -p files plain
AUTOANALYZER_OUTPUT="$T/o" "$B/rt_stdio" "$T/files" >"$T/stdout" 2>"$T/stderr"
is "$?" 0 "rt_stdio exits 0"
"$RT_DUMP" "$T/o/experiment.xml" >"$T/d" 2>&1
is "$?" 0 "profile reads back"
wchar=$(sed -n 's/^truth wchar=\([0-9]*\) .*/\1/p' "$T/stderr")
rchar=$(sed -n 's/^truth .*rchar=\([0-9]*\) .*/\1/p' "$T/stderr")
wb=$(rt_val "$T/d" ROOT/main/write_region io_write_bytes)
rb=$(rt_val "$T/d" ROOT/main/read_region io_read_bytes)
ok "stdio bytes written $wb = wchar $wchar within 1%" rt_num "$wchar > 800000 && $wb >= $wchar * 0.99 && $wb <= $wchar * 1.01"
ok "stdio bytes read $rb = rchar $rchar within 1%" rt_num "$rchar > 800000 && $rb >= $rchar * 0.99 && $rb <= $rchar * 1.01"
is "$(rt_val "$T/d" ROOT/main/write_region io_read_bytes)" 0 "write region read nothing"
is "$(rt_val "$T/d" ROOT/main/meta_region io_calls)" 11 "11 metadata calls counted as I/O calls"
is "$(rt_val "$T/d" ROOT/main/meta_region io_write_bytes)" 0 "metadata calls move no bytes"
ok "metadata calls have I/O time" rt_num "$(rt_val "$T/d" ROOT/main/meta_region io_time) > 0"
# 2 fopen + 20000 fprintf + 10000 vfprintf + 10000 fputs + 100000 fputc/putc
# + 2000 fwrite + fflush + fclose + 100 x (printf, puts, 2 putchar) + fflush
is "$(rt_val "$T/d" ROOT/main/write_region io_calls)" 142404 "every stdio call counted once (142,404)"
AUTOANALYZER_DISABLE=1 "$B/rt_stdio" "$T/plain" >"$T/stdout.plain" 2>/dev/null
ok "the program's output is unchanged" cmp "$T/stdout" "$T/stdout.plain"
ok "its files are unchanged" cmp "$T/files/stdio.txt" "$T/plain/stdio.txt"
done_testing
