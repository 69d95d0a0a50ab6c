#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# io_engines.sh: the plain I/O engine and the fast one leave the same
# images (issue 24).  Runs every j_* test (tests/run_jtests.sh) with each
# run of our e2fsck and e2journal made twice by tests/lib/iodual: once
# with E2JOURNAL_IO=plain (one pread or pwrite per run of blocks, no
# thread, no io_uring), once as the test asks (the fast engine), from the
# same files.  Passes when the suite passes, at least one run was
# compared, and no run left a different file, exit status or output.
# Arguments are run_jtests.sh's (test name patterns).
# EJ_IODUAL_ALLOW_NONE=1 (make check's tests/lib/runtest.sh, which runs
# one directory at a time) lets a test pass with no run to compare: one
# that calls none of our programs, or skips under the wrapper.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

log=$(mktemp "${TMPDIR:-/tmp}/io_engines.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT
# valgrind would watch the wrapper's shell, not our program: run_jtests.sh
# runs the fuzz tests under it without the wrapper
EJ_IO_DUAL=1 EJ_IODUAL_LOG=$log EJ_VALGRIND=0 \
	sh "$top_srcdir/tests/run_jtests.sh" "$@" </dev/null
rc=$?
runs=$(grep -c '^RUN ' "$log")
diffs=$(grep -c '^DIFF ' "$log")
echo "io_engines: $runs runs compared (plain against fast), $diffs differ"
if [ "$diffs" -gt 0 ]; then
	grep '^DIFF ' "$log" | sed -e 's/^/    /' | head -n 40
	rc=1
fi
if [ "$runs" -eq 0 ] && [ "$rc" -ne 77 ]; then
	echo "io_engines: no run went through tests/lib/iodual"
	[ "${EJ_IODUAL_ALLOW_NONE:-0}" = 1 ] || rc=1
fi
exit "$rc"
