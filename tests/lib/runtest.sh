#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# runtest.sh: make check's LOG_COMPILER, so that "make -j N check" runs
# the tests/j_* directories side by side, each an automake test of its
# own (its log in tests/j_NAME.log).
#
# Usage: runtest.sh TEST [ARG...]
#   TEST a tests/j_* directory: run_jtests.sh runs it, then io_engines.sh
#        runs it again with every run of our e2fsck and e2journal made
#        with both I/O engines and compared.  It fails if either fails,
#        is skipped if both skip.
#   anything else (a unit test, a *.sh script): run as it is.
# Each test's log ends with its wall time ("== NAME: N s"), which
# tests/README.md's minutes come from.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
export top_srcdir
start=$(date +%s)

if [ ! -d "$1" ]; then
	"$@"
	rc=$?
	echo "== $1: $(($(date +%s) - start)) s"
	exit $rc
fi
name=$(basename "$1")

echo "== $name: run_jtests.sh"
sh "$top_srcdir/tests/run_jtests.sh" "$name" </dev/null
plain=$?
echo "== $name: io_engines.sh (plain I/O engine against the fast one)"
sh "$top_srcdir/tests/io_engines.sh" "$name" </dev/null
dual=$?
echo "== $name: $(($(date +%s) - start)) s"

for rc in $plain $dual; do
	case $rc in
	0|77) ;;
	*) exit 1 ;;
	esac
done
[ $plain = 77 ] && [ $dual = 77 ] && exit 77
exit 0
