# SPDX-License-Identifier: GPL-2.0
# jimage.sh: what the helpers of the corrupt-journal and hostile-input
# tests (jcorrupt.sh, jhostile.sh) share: the start of a test, ./out, a
# test's end on a broken step, and the images they make with mke2fs,
# "e2journal write" and "e2journal corrupt".  Sourced by those two, after
# jtest.sh.  J_NAME is the running test's name (j_begin sets it).

# the filesystems' UUID: one, so that outputs compare
J_FS_UUID=0c0ffee0-1234-4abc-8def-0123456789ab

# j_begin NAME COMMAND...: test NAME starts with an empty ./out; it is
# skipped unless e2journal replays and has every COMMAND, and unless the
# reference is e2fsprogs 1.47 (the expected outputs name it).
j_begin() {
	J_NAME=$1
	shift
	: >out
	_jb_what=
	_jb_ok=$EJ_HAVE_REPLAY
	for _jb_cmd in "$@"; do
		_jb_what=$_jb_what$_jb_cmd/
		[ "$_jb_ok" = 1 ] &&
			! "$E2JOURNAL" "$_jb_cmd" --help >/dev/null 2>&1 &&
			_jb_ok=0
	done
	if [ "$_jb_ok" != 1 ]; then
		result SKIP "$J_NAME" "(e2journal ${_jb_what}replay not available)"
		exit 0
	fi
	need_ref147 "$J_NAME"
}

say() {
	echo "$*" >>out
}

# die TEXT...: the test fails here (TEXT in the log and the result).
die() {
	echo "$*" >&2
	result FAIL "$J_NAME" "$*"
	exit 0
}

# mkimg IMG BS BLOCKS FEATURES: a new filesystem, internal journal of 1024
# blocks (the smallest mke2fs makes).
mkimg() {
	rm -f "$1" "$1".*
	"$MKE2FS" -F -q -o Linux -b "$2" -T ext4 -U "$J_FS_UUID" \
		-E lazy_itable_init=1 -O "$4" -J size=$(($2 / 1024)) \
		"$1" "$3" >&2 2>&1 || die "mke2fs $1 failed"
}

# ejw IMG ARGS...: e2journal write, or the test fails.
ejw() {
	"$E2JOURNAL" write "$@" >&2 || die "e2journal write $*: exit $?"
}

# ejc IMG KIND ARGS...: e2journal corrupt, or the test fails.
ejc() {
	"$E2JOURNAL" corrupt "$@" >&2 || die "e2journal corrupt $*: exit $?"
}
