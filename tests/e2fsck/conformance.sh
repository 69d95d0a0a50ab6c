#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# conformance.sh: e2fsprogs' journal tests (tests/conformance/)
# against our e2fsck with -E journal_policy=stop, whose results must be
# those of e2fsprogs 1.47.0: the runner's whole output is compared with
# reference-1.47.0.txt (29 passed, 7 failed; the 7 failures come from
# mke2fs and dumpe2fs 1.47.0, and their diffs must be the same too).
#
# The corpus is in the tree (tests/conformance/, its README says where it
# comes from); CONFORMANCE_DIR may name another copy.  A missing corpus is
# an error, not a skip: a clone runs every test.

HERE=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$HERE/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

CONF=${CONFORMANCE_DIR:-$top_srcdir/tests/conformance}
if [ ! -x "$CONF/run.sh" ] || [ ! -f "$CONF/reference-1.47.0.txt" ]; then
	echo "conformance.sh: no conformance corpus in $CONF" >&2
	exit 99
fi
if [ ! -x "$top_builddir/e2fsck/e2fsck" ]; then
	echo "conformance.sh: e2fsck/e2fsck not built" >&2
	exit 99
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/e2fsck-conf.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
out=$dir/out
# a copy: a rebuild in the tree while this runs must not pull it away
mkdir -p "$dir/e2fsck"
cp "$top_builddir/e2fsck/e2fsck" "$dir/e2fsck/e2fsck" || exit 99
# run.sh resolves relative words from the caller's directory
(cd "$dir" &&
 "$CONF/run.sh" --fsck './e2fsck/e2fsck -E journal_policy=stop') >"$out" 2>&1
if diff -u "$CONF/reference-1.47.0.txt" "$out"; then
	echo "conformance: $(tail -n 1 "$out"), as e2fsprogs 1.47.0"
	exit 0
fi
echo "conformance: results differ from reference-1.47.0.txt (above)"
exit 1
