#!/usr/bin/env bash
# `autoanalyzer import --format mpip`: mpiP reports (written here by
# tests/report/gen_mpip.sh following mpiP 3.5's documented layout) become an
# experiment that analyze, export and the Program Space take like any other
# run; the same code gets the same region ids whatever mpiP's callsite ids;
# malformed reports are bad input naming file and line, nothing written.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/report/gen_mpip.sh"
CHECK="$TOP/tests/report/check_export.py"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"

"$GEN" "$T/a.mpiP" 4 1
expect_status 0 "import an mpiP report" "$AA" import --format mpip "$T/a.mpiP" -o "$T/a.xml"
like "$(cat "$T/.out")" "import: .*a.xml \(4 processes, 7 regions\)" "says what it read"
expect_status 0 "the experiment exports" "$AA" export "$T/a.xml" --format csv -o "$T/a.csv"
res=$("$CHECK" csv "$T/a.csv")
like "$res" '^3,,wall=10$' "the whole program: AppTime"
like "$res" '3,,mpi_wall=0.47' "the whole program: MPITime"
like "$res" '3,main/exchange/MPI_Recv@63,wall=0.4$' "a call site: Count x Mean, in seconds"
like "$res" '3,main/exchange/MPI_Recv@63,visits=100' "a call site: Count as visits"
like "$res" '2,main/exchange/MPI_Send@57,mpi_bytes_sent=409600' "sent bytes from the message statistics"
like "$res" '1,main/exchange,mpi_wall=0.25' "a function: the MPI time of its calls"
like "$res" '0,__libc_start_main/main/MPI_Allreduce@130,wall=0.02' "the stack (level 1 an address) gives the calling context"
if printf '%s\n' "$res" | grep -q 'main/exchange,wall='; then r=1; else r=0; fi
is "$r" 0 "functions' wall time is not measured by mpiP (no value)"
like "$(grep -o 'host="[^"]*"' "$T/a.xml" | sort -u | tr '\n' ' ')" 'host="node0" host="node1"' "hosts from the task assignment"
like "$(cat "$T/a.xml")" '<attr name="imported_from">mpip</attr>' "the experiment says where it came from"
expect_status 0 "analyze the imported run" "$AA" analyze "$T/a.xml"

# The Program Space: the same code under other callsite ids is the same
# regions; a slower Recv shows in perfdiff; a stored run exports as CUBE.
"$GEN" "$T/b.mpiP" 4 1 1
"$GEN" "$T/c.mpiP" 4 3
"$AA" import --format mpip "$T/b.mpiP" -o "$T/b.xml" > /dev/null
"$AA" import --format mpip "$T/c.mpiP" -o "$T/c.xml" > /dev/null
ok "callsite ids renumbered: the same regions" cmp <(grep '<region ' "$T/a.xml") <(grep '<region ' "$T/b.xml")
for x in a b c; do "$AA" space add "$T/$x.xml" --db "$T/s.db" > /dev/null 2>&1; done
is "$("$AA" space diff 1 2 --db "$T/s.db" --json)" '{"only_in":{"1":[],"2":[]}}' "stored: no structural difference"
like "$("$AA" space perfdiff 1 3 --metric mpi_wall --threshold 0.5 --db "$T/s.db" --json)" \
    '"focus":\["/Code/heat.c/exchange/MPI_Recv@63","/Machine","/Process"\],"a":1,"b":3' "perfdiff finds the Recv that waits three times longer"
expect_status 0 "a stored mpiP run exports as CUBE" "$AA" export --from-space 1 --db "$T/s.db" --format cube -o "$T/a.cubex"
ok "its CUBE file holds the report's values" "$TOP/tests/report/check_cube.py" "$T/a.cubex" "$T/a.xml"

# bad input: FILE:LINE, exit 3, nothing written
bad() { # name file regex
    expect_status 3 "$1" "$AA" import --format mpip "$2" -o "$T/bad.xml"
    like "$(cat "$T/.err")" "$3" "$1: file and line named"
    ok "$1: nothing written" test ! -e "$T/bad.xml"
}
printf 'hello\n' > "$T/x1.mpiP"
bad "not an mpiP report" "$T/x1.mpiP" 'x1.mpiP:1: not an mpiP report'
n=$(grep -n '^Recv  *2  *1 ' "$T/a.mpiP" | cut -d: -f1)
sed "${n}s/^Recv  *2 /Recv  9 /" "$T/a.mpiP" > "$T/x2.mpiP"
bad "a statistic of an unknown callsite" "$T/x2.mpiP" "x2.mpiP:$n: callsite 9 is not in the Callsites section"
n=$(grep -n '^   2  ' "$T/a.mpiP" | head -1 | cut -d: -f1)
sed "${n}s/10/ten/" "$T/a.mpiP" > "$T/x3.mpiP"
bad "a malformed MPI Time line" "$T/x3.mpiP" "x3.mpiP:$n: AppTime, MPITime and MPI% are numbers"
n=$(grep -n '^@--- Callsites: 3' "$T/a.mpiP" | cut -d: -f1)
sed "${n}s/Callsites: 3/Callsites: 4/" "$T/a.mpiP" > "$T/x4.mpiP"
bad "fewer callsites than announced" "$T/x4.mpiP" "x4.mpiP:$n: the Callsites section announces 4 callsites, 3 are listed"
grep '^@ ' "$T/a.mpiP" > "$T/x5.mpiP"
bad "no MPI Time section" "$T/x5.mpiP" "x5.mpiP:[0-9]+: no '@--- MPI Time \(seconds\)' section"
n=$(grep -n '^Name  *Site Rank  Count' "$T/a.mpiP" | cut -d: -f1)
sed "${n}s/Count/Calls/" "$T/a.mpiP" > "$T/x6.mpiP"
bad "an unknown column header" "$T/x6.mpiP" "x6.mpiP:$n: expected the column header 'Name Site Rank Count"
n=$(grep -n '^  2   1 ' "$T/a.mpiP" | cut -d: -f1)
sed "${n}s/^  2   1 /  2   2 /" "$T/a.mpiP" > "$T/x7.mpiP"
bad "a stack level out of order" "$T/x7.mpiP" "x7.mpiP:$n: level 2 of callsite 2 does not follow its level 1"
printf '@ mpiP\n@ Command : a\0b\n' > "$T/x8.mpiP"
bad "a NUL byte" "$T/x8.mpiP" 'x8.mpiP:2: a NUL byte'
expect_status 4 "missing report" "$AA" import --format mpip "$T/nonexistent.mpiP" -o "$T/bad.xml"
expect_status 2 "no output" "$AA" import --format mpip "$T/a.mpiP"
done_testing
