# tests/e2e/lib.sh -- sourced by the end-to-end TAP scripts: locates the
# built command, gives each script a private temporary directory (removed
# at exit), and provides TAP helpers.
#
#   . "$(dirname "$0")/lib.sh"
#   ok "name" cmd args...          passes when cmd exits 0
#   expect_status N "name" cmd...  passes when cmd exits with N
#   is "got" "want" "name"
#   done_testing

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AA_BUILD=${AA_BUILD:-build}
case "$AA_BUILD" in /*) ;; *) AA_BUILD="$TOP/$AA_BUILD" ;; esac
AA="$AA_BUILD/bin/autoanalyzer"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Quiet OpenMPI on machines without high-speed networks.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
T=$(mktemp -d "${TMPDIR:-/tmp}/aa-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
_tap_n=0
_tap_failed=0

_tap_result() { # status name
    _tap_n=$((_tap_n + 1))
    if [ "$1" = 0 ]; then
        echo "ok $_tap_n - $2"
    else
        echo "not ok $_tap_n - $2"
        _tap_failed=$((_tap_failed + 1))
    fi
}

ok() {
    local name=$1; shift
    if "$@" >"$T/.out" 2>&1; then _tap_result 0 "$name"; else
        _tap_result 1 "$name"; sed 's/^/#   /' "$T/.out" | head -40 >&2; fi
}

expect_status() {
    local want=$1 name=$2 st; shift 2
    "$@" >"$T/.out" 2>"$T/.err"; st=$?
    if [ "$st" = "$want" ]; then _tap_result 0 "$name"; else
        _tap_result 1 "$name"; echo "#   exit status $st, want $want" >&2
        sed 's/^/#   /' "$T/.err" | head -20 >&2; fi
}

is() {
    if [ "$1" = "$2" ]; then _tap_result 0 "$3"; else
        _tap_result 1 "$3"; printf '#   got:  %s\n#   want: %s\n' "$1" "$2" >&2; fi
}

like() { # text regex name
    if printf '%s' "$1" | grep -Eq -- "$2"; then _tap_result 0 "$3"; else
        _tap_result 1 "$3"; printf '#   %s\n#   does not match: %s\n' "$(printf '%s' "$1" | head -5)" "$2" >&2; fi
}

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

done_testing() {
    echo "1..$_tap_n"
    [ "$_tap_failed" = 0 ]
}
