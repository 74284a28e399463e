# tests/e2e/runtime_lib.sh -- helpers for the runtime's end-to-end tests
# (sourced after lib.sh): dump a profile with runtime_dump and read values.
RT_DUMP="$AA_BUILD/tests/runtime_dump"

# rt_val DUMPFILE PATH METRIC [RANK] [THREAD] -> prints the value
rt_val() {
    awk -v p="$2" -v m="$3" -v r="${4:-0}" -v t="${5:-0}" '
        $1 == "node" && $2 == r && $3 == t && $4 == p {
            for (i = 5; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == m) print substr($i, n + 1) }
        }' "$1"
}
# rt_attr DUMPFILE RANK NAME -> process attribute value
rt_attr() {
    awk -v r="$2" -v n="$3" '$1 == "pattr" && $2 == r { k = index($3, "="); if (substr($3, 1, k - 1) == n) print substr($3, k + 1) }' "$1"
}
# rt_env DUMPFILE NAME -> experiment environment value
rt_env() {
    awk -v n="$2" '$1 == "env" { k = index($0, "="); if (substr($0, 5, k - 5) == n) print substr($0, k + 1) }' "$1"
}
# rt_num "EXPR" -> succeeds when the awk expression is true
rt_num() { awk "BEGIN { exit !($1) }"; }
