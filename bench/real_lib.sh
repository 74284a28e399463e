# bench/real_lib.sh -- sourced by the real-application scripts
# (real_builds.sh, real_diagnosis.sh, real_overhead.sh): locates the built
# command and its one-word wrapper, sets the Open MPI environment of
# tests/e2e/lib.sh, clears the AutoAnalyzer settings a caller's shell may
# carry, and makes the work directory.
#
#   . "$(dirname "$0")/real_lib.sh"
#   real_setup NAME          sets TOP AA_BUILD AA_BIN AA AA_APPS_DIR AA_WORK WRAP_CC

real_setup() { # NAME (used for messages and the default work directory)
    TOP=$(cd "$(dirname "$0")/.." && pwd)
    AA_BUILD=${AA_BUILD:-build}
    case "$AA_BUILD" in /*) ;; *) AA_BUILD="$TOP/$AA_BUILD" ;; esac
    AA_BIN="$AA_BUILD/bin"
    AA="$AA_BIN/autoanalyzer"
    AA_APPS_DIR=${AA_APPS_DIR:-/tmp/aa-apps}
    [ -x "$AA" ] || [ "${REAL_NO_AA:-}" = 1 ] || { echo "$1: $AA not built (make B=${AA_BUILD##*/})" >&2; exit 2; }
    command -v mpicc >/dev/null || { echo "$1: mpicc not found" >&2; exit 2; }

    # The same Open MPI settings as tests/e2e/lib.sh.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMP_NUM_THREADS=1
    export PATH="$AA_BIN:$PATH"
    unset AUTOANALYZER_MODE AUTOANALYZER_DISABLE AUTOANALYZER_QUIET AUTOANALYZER_OUTPUT \
        AUTOANALYZER_FILTER AUTOANALYZER_FILTER_FROM

    if [ -n "${AA_WORK:-}" ]; then mkdir -p "$AA_WORK"; else
        AA_WORK=$(mktemp -d "/tmp/aa-$1.XXXXXX"); fi
    AA_WORK=$(cd "$AA_WORK" && pwd)

    # The wrapper as a user would name it.
    if [ -x "$AA_BIN/autoanalyzer-mpicc" ]; then WRAP_CC="autoanalyzer-mpicc"
    else WRAP_CC="autoanalyzer cc mpicc"; fi
}
