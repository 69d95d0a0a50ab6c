#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# api.sh: run tests/api/api_test (the public API through the shared
# library) on a damaged image it may replay, then api_test_san (the same
# over the library's sources under ASan/UBSan) on a fresh copy.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MKE2FS:=/sbin/mke2fs}"
E2JOURNAL=$top_builddir/misc/e2journal
prog=$top_builddir/tests/api/api_test

[ -x "$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-api.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

img=$work/img
. "$top_srcdir/tests/api/damaged.sh"
damaged_image "$img"
cp "$img" "$work/orig"
"$prog" "$img" "$work/undo" || exit 1
# the undo file the replay wrote (ej_image_open2) takes the image back
: "${E2UNDO:=/sbin/e2undo}"
if [ -x "$E2UNDO" ]; then
	"$E2UNDO" "$work/undo" "$img" >/dev/null 2>&1 ||
		{ echo "FAIL: e2undo of the API's undo file"; exit 1; }
	cmp -s "$img" "$work/orig" ||
		{ echo "FAIL: e2undo did not restore the image"; exit 1; }
fi
# the ASan/UBSan build, on a fresh copy of the damaged image
san=$top_builddir/tests/api/api_test_san
if [ -x "$san" ]; then
	# no undo file: libext2fs' undo_io_manager leaks what ASan reports
	cp "$work/orig" "$img" && "$san" "$img" - || exit 1
fi
