#!/usr/bin/env bash
# The command table: help, version, unknown commands, exit statuses.
. "$(dirname "$0")/lib.sh"

expect_status 0 "--help exits 0" "$AA" --help
like "$(cat "$T/.out")" "^usage: autoanalyzer" "--help prints usage"
expect_status 2 "no command is a usage error" "$AA"
expect_status 0 "version" "$AA" version
like "$(cat "$T/.out")" "^autoanalyzer version [0-9]" "version prints a version"
expect_status 0 "--version" "$AA" --version
expect_status 2 "unknown option" "$AA" --bogus
expect_status 2 "unknown command" "$AA" anlyze
like "$(cat "$T/.err")" "analyze" "typo suggests the right command"
expect_status 2 "far-off command gets no suggestion" "$AA" zzzzzzzzzz
like "$(cat "$T/.err")" "not an autoanalyzer command" "unknown command is named"
for c in instrument cc run collect analyze report space cluster roughset nightly export import version help; do
    expect_status 0 "$c --help" "$AA" help "$c"
    like "$(cat "$T/.out")" "usage: autoanalyzer $c" "$c has usage text"
done
expect_status 0 "collect --help" "$AA" collect --help
expect_status 2 "help of unknown command" "$AA" help nosuch
expect_status 2 "version with junk" "$AA" version --junk
done_testing
