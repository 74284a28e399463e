#!/usr/bin/env bash
# The user-region macros of <autoanalyzer/aa_user.h> (runtime/aa_user.h),
# used from an installed PREFIX: AA_REGION_BEGIN/END, AA_REGION_SCOPE (C
# cleanup form with an early return, C++ RAII form with an exception) and
# AA_PAUSE/AA_RESUME.  Without AUTOANALYZER the program builds with no
# AutoAnalyzer library and references no AutoAnalyzer symbol (nm), also
# with the documented fallback when the header is not installed at all;
# with `pkg-config --cflags --libs autoanalyzer` (which defines AUTOANALYZER)
# the regions are in the profile with exact visits, the paused one is not,
# no exit is mismatched, and the output is the same as the plain build's.
. "$(dirname "$0")/lib.sh"

case "$AA_BUILD" in "$TOP"/*) B=${AA_BUILD#"$TOP"/} ;; *) B=$AA_BUILD ;; esac
P="$T/prefix"
ok "make install PREFIX=$P" make --no-print-directory -s -C "$TOP" B="$B" install PREFIX="$P"
export PKG_CONFIG_PATH="$P/lib/pkgconfig"

# region_visits EXPERIMENT.xml NAME -> total visits of the user region NAME
region_visits() {
    awk -v n="$2" '
        /<region / && index($0, "kind=\"user\" name=\"" n "\"") { match($0, /id="[0-9]+"/); id = substr($0, RSTART + 4, RLENGTH - 5) }
        /<node / && id != "" && index($0, "region=\"" id "\"") { match($0, /v="[0-9]+/); s += substr($0, RSTART + 3, RLENGTH - 3); f = 1 }
        END { print f ? s : "none" }' "$1"
}
# region_nodes EXPERIMENT.xml NAME -> number of calling contexts of the region
region_nodes() {
    awk -v n="$2" '
        /<region / && index($0, "kind=\"user\" name=\"" n "\"") { match($0, /id="[0-9]+"/); id = substr($0, RSTART + 4, RLENGTH - 5) }
        /<node / && id != "" && index($0, "region=\"" id "\"") { c++ }
        END { print c + 0 }' "$1"
}
# attr_sum EXPERIMENT.xml NAME -> sum of a process attribute over processes
attr_sum() {
    awk -v n="$2" 'index($0, "<attr name=\"" n "\">") { sub(/.*">/, ""); sub(/<.*/, ""); s += $0; f = 1 }
        END { print f ? s : "none" }' "$1"
}

cat > "$T/prog.c" <<'EOF'
#include <autoanalyzer/aa_user.h>
#include <stdio.h>

static double step(int i)
{
    AA_REGION_SCOPE("step");
    if (i % 2)
        return i * 0.5; /* early return: the scope closes the region */
    return i * 0.25;
}

int main(void)
{
    double s = 0;
    int i;
    AA_REGION_BEGIN("phase");
    for (i = 0; i < 10; i++)
        s += step(i);
    AA_REGION_END("phase");
    AA_PAUSE();
    AA_REGION_BEGIN("hidden");
    AA_REGION_END("hidden");
    AA_RESUME();
    printf("%.2f\n", s);
    return 0;
}
EOF

# --- measurement off ---------------------------------------------------------
ok "without AUTOANALYZER: builds with the header only, no library" \
    cc -std=c11 -Wall -Wextra -Werror -pedantic -I"$P/include" -o "$T/off" "$T/prog.c"
is "$(nm "$T/off" | grep -c 'aa_')" 0 "without AUTOANALYZER: no AutoAnalyzer symbol referenced (nm)"
expect_status 0 "without AUTOANALYZER: runs" env AUTOANALYZER_OUTPUT="$T/out-off" "$T/off"
want=$(cat "$T/.out")
is "$want" "17.50" "without AUTOANALYZER: output"
ok "without AUTOANALYZER: no profile written" test ! -e "$T/out-off"

# the documented fallback, where AutoAnalyzer is not installed at all
{
    echo '#ifdef AUTOANALYZER'
    echo '#include <autoanalyzer/aa_user.h>'
    echo '#else'
    sed -n 's/^ \*   \(#define AA_[A-Z_]*(.*\)$/\1/p' "$TOP/runtime/aa_user.h"
    echo '#endif'
    sed 1d "$T/prog.c"
} > "$T/fallback.c"
is "$(grep -c '^#define AA_' "$T/fallback.c")" 5 "aa_user.h documents a fallback for all five macros"
ok "the documented fallback builds without any AutoAnalyzer file" \
    cc -std=c11 -Wall -Wextra -Werror -pedantic -o "$T/fallback" "$T/fallback.c"

# --- measurement on (pkg-config defines AUTOANALYZER=1) ----------------------
# shellcheck disable=SC2046
ok "with pkg-config autoanalyzer: builds" \
    cc -std=c11 -Wall -Wextra -Werror -pedantic -o "$T/on" "$T/prog.c" \
    $(pkg-config --cflags --libs autoanalyzer)
like "$(nm "$T/on")" "U aa_runtime_user_begin" "with AUTOANALYZER: the runtime is called"
expect_status 0 "with AUTOANALYZER: runs" env AUTOANALYZER_OUTPUT="$T/out-on" "$T/on"
is "$(cat "$T/.out")" "$want" "with AUTOANALYZER: output unchanged"
X="$T/out-on/experiment.xml"
is "$(region_visits "$X" phase)" 1 "AA_REGION_BEGIN/END region recorded once"
is "$(region_visits "$X" step)" 10 "AA_REGION_SCOPE region recorded 10 times"
is "$(region_nodes "$X" step)" 1 "AA_REGION_SCOPE closed at every early return (one context, not nested)"
is "$(region_visits "$X" hidden)" none "region between AA_PAUSE and AA_RESUME not recorded"
is "$(attr_sum "$X" mismatched_exits)" 0 "no mismatched exits"

# --- C++: RAII scope, closed by an exception ----------------------------------
if command -v c++ >/dev/null; then
    cat > "$T/prog.cc" <<'EOF'
#include <autoanalyzer/aa_user.h>
#include <cstdio>
#include <stdexcept>

static int check(int i)
{
    AA_REGION_SCOPE("check");
    if (i == 2)
        throw std::runtime_error("two");
    return i;
}

int main()
{
    int s = 0;
    for (int i = 0; i < 3; i++) {
        try {
            s += check(i);
        } catch (const std::exception &) {
            s += 100;
        }
    }
    std::printf("%d\n", s);
    return 0;
}
EOF
    ok "C++ without AUTOANALYZER: builds" \
        c++ -std=c++11 -Wall -Wextra -Werror -I"$P/include" -o "$T/offxx" "$T/prog.cc"
    is "$(nm "$T/offxx" | grep -c 'aa_')" 0 "C++ without AUTOANALYZER: no AutoAnalyzer symbol"
    # shellcheck disable=SC2046
    ok "C++ with pkg-config autoanalyzer: builds" \
        c++ -std=c++11 -Wall -Wextra -Werror -o "$T/onxx" "$T/prog.cc" \
        $(pkg-config --cflags --libs autoanalyzer)
    expect_status 0 "C++ with AUTOANALYZER: runs" env AUTOANALYZER_OUTPUT="$T/out-xx" "$T/onxx"
    is "$(cat "$T/.out")" 101 "C++ with AUTOANALYZER: output"
    is "$(region_visits "$T/out-xx/experiment.xml" check)" 3 "C++ scoped region recorded 3 times"
    is "$(region_nodes "$T/out-xx/experiment.xml" check)" 1 "C++ scoped region closed each time (one context)"
    is "$(attr_sum "$T/out-xx/experiment.xml" mismatched_exits)" 0 \
        "C++: the exception closed the region (no mismatched exits)"
fi

done_testing
