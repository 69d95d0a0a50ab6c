#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# runtest.sh: make check's LOG_COMPILER, so that "make -j N check" runs
# the tests/j_* directories side by side, each an automake test of its
# own (its log in tests/j_NAME.log).
#
# Usage: runtest.sh TEST [ARG...]
#   TEST a tests/j_* directory: io_engines.sh runs it with every run of
#        our e2fsck and e2journal made with both I/O engines, compared,
#        and the test's own checks made on the second (fast) run, so the
#        plain engine's results are checked through the comparison (a
#        directory with none of our programs to compare passes that
#        part).  run_jtests.sh runs it once more, alone, only where the
#        wrapped run cannot do everything: a directory skipped under it
#        (the power-cut tests count one run's writes) and the fuzz
#        directories, whose programs run under valgrind only there.
#        It fails if either fails, is skipped if both skip.
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
out=$(mktemp "${TMPDIR:-/tmp}/runtest.XXXXXX") || exit 99
trap 'rm -f "$out"' EXIT

# run SCRIPT: its status, 77 when every result it gave was a skip
run() {
	sh "$@" </dev/null >"$out" 2>&1
	rc=$?
	cat "$out"
	if [ $rc = 0 ] && grep -q '^0 passed, 0 failed$' "$out" &&
	   grep -q '^[0-9]* skipped$' "$out"; then
		rc=77
	fi
	return $rc
}

echo "== $name: io_engines.sh (plain I/O engine against the fast one)"
EJ_IODUAL_ALLOW_NONE=1 run "$top_srcdir/tests/io_engines.sh" "$name"
dual=$?
plain=77
alone=
if [ $dual = 77 ]; then
	alone="skipped under the wrapper"
elif grep -qs '^[[:space:]]*kind[[:space:]]*=[[:space:]]*fuzz' "$1/config" &&
     command -v valgrind >/dev/null 2>&1; then
	alone="its programs under valgrind"
fi
if [ -n "$alone" ]; then
	echo "== $name: run_jtests.sh ($alone)"
	run "$top_srcdir/tests/run_jtests.sh" "$name"
	plain=$?
fi
echo "== $name: $(($(date +%s) - start)) s"

for rc in $plain $dual; do
	case $rc in
	0|77) ;;
	*) exit 1 ;;
	esac
done
[ $plain = 77 ] && [ $dual = 77 ] && exit 77
exit 0
