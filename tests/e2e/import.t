#!/usr/bin/env bash
# `autoanalyzer import --format tau`: TAU profiles (profile.N.C.T, written
# here by the documented layout: function lines, callpaths, aggregates and
# user events) become an experiment that analyze, report --baseline and the
# Program Space take like any other run; malformed profiles are bad input.
. "$(dirname "$0")/lib.sh"

# tau_profiles DIR FACTOR: two ranks, rank r doing (r+1)*FACTOR the work
tau_profiles() {
    mkdir -p "$1"
    for r in 0 1; do
        f=$(( (r + 1) * $2 ))
        cat > "$1/profile.$r.0.0" <<TAU
5 templated_functions_MULTI_TIME
# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name</name><value>TIME</value></attribute></metadata>
"int main(int, char **) C [{heat.c} {10,1}-{40,1}]" 1 2 100000 $((3100000 * f)) 0 GROUP="TAU_DEFAULT"
"void solve(void) C [{heat.c} {50,1}-{70,1}]" 10 1 $((1000000 * f)) $((3000000 * f)) 0 GROUP="TAU_USER"
"MPI_Allreduce()" 10 0 $((2000000 * f)) $((2000000 * f)) 0 GROUP="MPI"
"int main(int, char **) C [{heat.c} {10,1}-{40,1}] => void solve(void) C [{heat.c} {50,1}-{70,1}]" 10 1 $((1000000 * f)) $((3000000 * f)) 0 GROUP="TAU_USER | TAU_CALLPATH"
"int main(int, char **) C [{heat.c} {10,1}-{40,1}] => void solve(void) C [{heat.c} {50,1}-{70,1}] => MPI_Allreduce()" 10 0 $((2000000 * f)) $((2000000 * f)) 0 GROUP="MPI | TAU_CALLPATH"
0 aggregates
1 userevents
# eventname numevents max min mean sumsqr
"Message size for all-reduce" 10 8 8 8 640
TAU
    done
}
tau_profiles "$T/tau1" 1
tau_profiles "$T/tau2" 2

expect_status 0 "import TAU profiles" "$AA" import --format tau "$T/tau1" -o "$T/t1.xml"
like "$(cat "$T/.out")" "import: .*t1.xml \(2 processes, 4 regions\)" "says what it read"
expect_status 0 "the experiment exports" "$AA" export "$T/t1.xml" --format csv -o "$T/t1.csv"
csv=$(cat "$T/t1.csv")
like "$csv" '1,0,3,2,[0-9]+,MPI_Allreduce\(\),call,MPI_Allreduce\(\),,0,"int main\(int, char \*\*\)/void solve\(void\)/MPI_Allreduce\(\)",wall,s,4,4,0' \
    "rank 1: MPI_Allreduce under main/solve from the callpath, 4 s inclusive"
like "$csv" '0,0,2,1,[0-9]+,void solve\(void\),function,void solve\(void\),heat.c,50,' "file and line from TAU's [{file} {line,col}] suffix"
like "$csv" '0,0,2,1,[0-9]+,void solve\(void\),function,void solve\(void\),heat.c,50,"[^"]*",visits,count,10,10,0' "calls become visits"
is "$(grep -c 'Message size' "$T/t1.csv")" 0 "user events are not regions"
expect_status 0 "analyze the imported run" "$AA" analyze "$T/t1.xml"
like "$(cat "$T/.out")" "hotspot .* MPI_Allreduce\(\)" "the analysis finds the MPI hotspot"

# compared with another imported run: twice the work is 100% slower
"$AA" import --format tau "$T/tau2" -o "$T/t2.xml" > /dev/null
expect_status 0 "report --baseline between imported runs" "$AA" report "$T/t2.xml" --baseline "$T/t1.xml" -o "$T/r.html"
like "$(cat "$T/r.html")" 'This run is <b>100% slower</b>' "the comparison states the slowdown"
case "$("$AA" space --help 2>&1)" in
*"not built yet"*) echo "# Program Space not built: space add skipped" ;;
*)
    ok "stored in the Program Space" "$AA" space add "$T/t1.xml" --db "$T/s.db"
    ;;
esac

# bad input
mkdir -p "$T/bad1" "$T/bad2" "$T/empty"
printf '2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"main" 1 0 10 10 0 GROUP="X"\n"solve" 1 zero 5 5 0 GROUP="X"\n' > "$T/bad1/profile.0.0.0"
expect_status 3 "a malformed function line is bad input" "$AA" import --format tau "$T/bad1" -o "$T/b.xml"
like "$(cat "$T/.err")" 'bad1/profile.0.0.0:4: expected Calls Subrs Excl Incl' "the error names file and line"
ok "nothing written for bad input" test ! -e "$T/b.xml"
printf '3 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"main" 1 0 10 10 0 GROUP="X"\n' > "$T/bad2/profile.0.0.0"
expect_status 3 "a truncated profile is bad input" "$AA" import --format tau "$T/bad2" -o "$T/b.xml"
like "$(cat "$T/.err")" 'profile.0.0.0:[0-9]+: 3 function lines promised, 1 found' "truncation named"
expect_status 3 "no profile in the directory" "$AA" import --format tau "$T/empty" -o "$T/b.xml"
expect_status 4 "missing directory" "$AA" import --format tau "$T/nonexistent" -o "$T/b.xml"
expect_status 2 "no format" "$AA" import "$T/tau1" -o "$T/b.xml"
expect_status 2 "no output" "$AA" import --format tau "$T/tau1"
expect_status 2 "unknown format" "$AA" import --format hpctoolkit "$T/tau1" -o "$T/b.xml"
done_testing
