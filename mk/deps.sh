#!/bin/sh
# Dependency step of the build: checks that the Debian packages AutoAnalyzer
# builds and tests with are installed.  As root on a machine without them it
# runs `apt-get update` and installs what is missing; otherwise it prints the
# exact `apt-get install` line and fails, so the build stops with a clear
# message instead of a wall of compiler errors.
#
# Usage: mk/deps.sh [--check]   (--check: report only, never install)
set -u

PKGS="make gcc clang llvm libclang-dev libclang-rt-dev libpapi-dev papi-tools \
libopenmpi-dev openmpi-bin libxml2-dev libxml2-utils zlib1g-dev libgsl-dev \
libsqlite3-dev sqlite3 libpq-dev postgresql gfortran pkg-config perl python3 \
chromium cmake autoconf automake ninja-build valgrind binutils \
flang-19 libflang-19-dev llvm-19-dev g++"

missing=""
for p in $PKGS; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
    case "$st" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done

[ -z "$missing" ] && exit 0

if [ "${1:-}" = "--check" ]; then
    echo "autoanalyzer: missing Debian packages:$missing" >&2
    exit 1
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "autoanalyzer: installing missing Debian packages:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q </dev/null || exit 1
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing </dev/null || exit 1
    exit 0
fi

echo "autoanalyzer: these Debian packages are missing:$missing" >&2
echo "install them with:" >&2
echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
exit 1
