# SPDX-License-Identifier: GPL-2.0
# jcorrupt.sh: shell helpers of the corrupt-journal tests (tests/j_corrupt_*).
#
# Sourced by a test's script after jtest.sh.  The script builds images with
# mke2fs, "e2journal write" and "e2journal corrupt", replays copies under
# each policy, and writes what it finds into ./out with "say"; jc_end
# compares ./out with the test's "expect".  Everything noisy (the tools'
# own output) goes to the log (standard error).
#
# Conventions: data logged by transaction k of a recipe is "fill:0xkk"
# where it matters, so that "jc content" shows which transaction's version
# a block holds (11 = the first transaction's, 00 = never written).

JCORRUPT=$top_srcdir/tests/gen/jcorrupt.py
# The interpreter itself, not a version manager's shim: it runs often.
_py=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null) &&
	[ -x "$_py" ] && PYTHON=$_py
. "$top_srcdir/tests/lib/jimage.sh"
JC_FS_UUID=$J_FS_UUID

jc() {
	"$PYTHON" "$JCORRUPT" "$@"
}

# jc_begin NAME: skip unless e2journal can write, corrupt, plan and replay
# and the reference is e2fsprogs 1.47 (the expected outputs name it).
jc_begin() {
	j_begin "$1" write corrupt plan
}

jc_end() {
	result_expect "$J_NAME"
}

# mkimg_for MODE BITS IMG: 1 KiB blocks, 16384 of them; metadata_csum with
# csum v2/v3 (as the kernel pairs them), 64bit when BITS is 64.
mkimg_for() {
	case $1 in
	v2|v3) f=metadata_csum ;;
	*) f=^metadata_csum ;;
	esac
	if [ "$2" = 64 ]; then
		f=$f,64bit
	else
		f=$f,^64bit
	fi
	mkimg "$3" 1024 16384 "$f"
}

# replay_copy POLICY IMG [JOURNAL]: replay IMG.POLICY (a fresh copy of IMG,
# and JOURNAL.POLICY of an external journal) under POLICY, and say what
# the JSON report says.  Exit 4 must leave the copies as they were.
replay_copy() {
	_p=$1 _img=$2 _j=$3
	cp "$_img" "$_img.$_p"
	[ -n "$_j" ] && cp "$_j" "$_j.$_p"
	_before=$(cat "$_img.$_p" ${_j:+"$_j.$_p"} | sha256sum)
	"$E2JOURNAL" replay --policy "$_p" --json "$_img.$_p" \
		${_j:+-j "$_j.$_p"} >"$_img.$_p.json" 2>"$_img.$_p.err"
	_rc=$?
	cat "$_img.$_p.err" >&2
	say "  $_p:"
	# a report, or the one-line error object of a journal not loaded
	if [ -s "$_img.$_p.json" ] &&
	   ! grep -q '^{"image": .*, "error": {"code": ' "$_img.$_p.json"; then
		jc summary "$_img.$_p.json" --rc $_rc | sed 's/^/    /' >>out
	else
		say "    exit $_rc: $(sed -n -e "s|$_img.$_p|IMG|g" \
			-e "s|$_j.$_p|JOURNAL|g" -e '1p' "$_img.$_p.err")"
	fi
	if [ $_rc = 4 ] &&
	   [ "$_before" != "$(cat "$_img.$_p" ${_j:+"$_j.$_p"} | sha256sum)" ]
	then
		say "    REFUSED BUT THE IMAGE CHANGED"
	fi
	return 0
}

# ref_copy IMG [JOURNAL]: e2fsprogs' replay of IMG.ref (and JOURNAL.ref).
ref_copy() {
	cp "$1" "$1.ref"
	[ -n "$2" ] && cp "$2" "$2.ref"
	"$E2FSCK_ENGINE" -y -E journal_only ${2:+-j "$2.ref"} "$1.ref" \
		>"$1.ref.log" 2>&1
	echo $? >"$1.ref.rc"
	cat "$1.ref.log" >&2
}

# vs_ref IMG POLICY: does IMG.POLICY equal e2fsprogs' IMG.ref outside the
# superblocks, group descriptors and journal?
vs_ref() {
	say "    e2fsprogs 1.47 (exit $(cat "$1.ref.rc")) vs $2: $(jc cmp "$1" \
		"$1.ref" "$1.$2")"
}

# content IMG BLOCKS...: what the blocks hold, as "jc content" says.
content() {
	_img=$1
	shift
	say "    content: $(jc content "$_img" "$@")"
}

# policies IMG "BLOCKS" [JOURNAL]: e2fsprogs' replay, then ours under
# replay-all, stop and refuse, each with the content of BLOCKS; stop is
# compared with e2fsprogs.
policies() {
	ref_copy "$1" "$3"
	for _pol in replay-all stop refuse; do
		replay_copy $_pol "$1" "$3"
		content "$1.$_pol" $2
	done
	vs_ref "$1" stop
}

# layout_jblock IMG TID KIND INDEX: the journal block "e2journal write"
# put the INDEX-th KIND block (descriptor, data, revoke, commit) of TID.
layout_jblock() {
	awk -v tid="$2" -v kind="$3" -v idx="$4" '
		$1 == "txn" { cur = $2; next }
		cur == tid && $1 == kind && $2 == idx { print $3; exit }
	' "$1.layout"
}
