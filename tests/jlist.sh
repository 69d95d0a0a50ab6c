#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# jlist.sh: every tests/j_* directory is in make check's J_TESTS
# (Makefile.am), and every name there is a directory: a test added
# without its line in Makefile.am would otherwise never run.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

[ -n "$J_TESTS" ] || { echo "jlist.sh: J_TESTS not set (run it from make check)"; exit 99; }
listed=$(for t in $J_TESTS; do basename "$t"; done | sort)
found=$(cd "$top_srcdir/tests" && for d in j_*/; do echo "${d%/}"; done | sort)
missing=$(printf '%s\n' "$found" | grep -vxF "$listed")
stale=$(printf '%s\n' "$listed" | grep -vxF "$found")
[ -n "$missing" ] && echo "FAIL: not in J_TESTS (Makefile.am):" $missing
[ -n "$stale" ] && echo "FAIL: in J_TESTS, no such directory:" $stale
[ -z "$missing$stale" ] || exit 1
echo "jlist: $(printf '%s\n' "$found" | wc -l) j_* directories, all in J_TESTS"
