#!/bin/bash
# tests/e2e/instrument_selfhost.t -- a real program: AutoAnalyzer's own
# common/ and profile/ libraries, every file instrumented with --mode all,
# built with -Wall -Wextra -Werror against the checking probe, linked with
# the unchanged unit tests test_common and test_profile_write, which must
# still pass with no mismatched region exit.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
CF="-std=c11 -D_GNU_SOURCE -DAA_VERSION=\"0\" -I. $(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)"
gcc -c -I. tests/instrument/checkprobe.c -o "$T/checkprobe.o" || skip_all "checkprobe"
objs=()
for f in common/*.c profile/*.c; do
    o="$T/$(echo "$f" | tr / _)"
    # shellcheck disable=SC2086
    gcc $CF -fsyntax-only "$f" 2>/dev/null || { echo "# $f does not build as it is; skipped"; continue; }
    # shellcheck disable=SC2086
    if "$AA" instrument -q --mode all "$f" -o "$o" -- $CF && gcc $CF -Wall -Wextra -Werror -iquote "$(dirname "$f")" -c "$o" -o "$o.o"; then
        objs+=("$o.o")
    else
        _tap_result 1 "$f: instruments and builds with -Wall -Wextra -Werror"
    fi
done
_tap_result 0 "${#objs[@]} library files instrumented and built"
for t in test_common test_profile_write; do
    [ -f "tests/unit/$t.c" ] || continue
    # shellcheck disable=SC2086
    if gcc $CF -o "$T/$t" "tests/unit/$t.c" "${objs[@]}" "$T/checkprobe.o" -lxml2 -lz -lm -lpthread 2>"$T/$t.err"; then
        (cd "$T" && AA_CHECK_OUT="$T/$t.chk" "./$t" > "$T/$t.out" 2>"$T/$t.stderr"); st=$?
        is "$st" 0 "$t passes with instrumented libraries"
        is "$(grep -c '^not ok' "$T/$t.out")" "0" "$t: no failing check"
        is "$(grep -c MISMATCH "$T/$t.stderr")" "0" "$t: every region closed in order"
        like "$(awk '$1 != "open" { n += $3 } END { print n }' "$T/$t.chk")" "^[1-9][0-9]*$" "$t: regions were entered"
    else
        _tap_result 1 "$t links"; head -5 "$T/$t.err" | sed 's/^/#   /'
    fi
done
done_testing
