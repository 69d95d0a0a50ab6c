#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# api.sh: run tests/api/api_test (the public API through the shared
# library) on a damaged image it may replay.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MKE2FS:=/sbin/mke2fs}"
E2JOURNAL=$top_builddir/misc/e2journal
prog=$top_builddir/tests/api/api_test

[ -x "$prog" ] || { echo "SKIP: $prog not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-api.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

img=$work/img
"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -O metadata_csum,64bit -J size=1 \
	-E lazy_itable_init=1 "$img" 16384 >/dev/null 2>&1 || { echo "FAIL: mke2fs"; exit 1; }
"$E2JOURNAL" write "$img" --csum v3 \
	--txn 'blocks=3000-3003:fill:0x11' \
	--txn 'blocks=3002-3005:fill:0x22' \
	--txn 'blocks=3100-3101:fill:0x33' >/dev/null &&
	"$E2JOURNAL" corrupt "$img" data --tid 2 --index 1 >/dev/null ||
	{ echo "FAIL: e2journal write/corrupt"; exit 1; }
"$prog" "$img"
