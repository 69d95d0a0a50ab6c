# SPDX-License-Identifier: GPL-2.0
# jhostile.sh: helpers of the hostile-input tests (tests/j_hostile_*).
#
# Sourced after jtest.sh.  A test builds damaged images and calls "probe"
# on each: e2journal replay and dump, and e2fsck -n and -y, ours and
# e2fsprogs', each on a fresh copy.  What they do goes to ./out (compared
# with the test's "expect" by jh_end): exit status, the first line of the
# error output (image names replaced by IMG, JNL), whether the image was
# written, and for e2fsck whether ours ends where e2fsprogs' does.  Any
# crash (exit >= 128) fails the test whatever expect says.
#
# Exit statuses: e2journal 8 operational error, 4 nothing done, 16 usage;
# e2fsck the fsck codes (8 operational error, 4 uncorrected, 1 corrected).

: "${E2FSCK:=$top_builddir/e2fsck/e2fsck}"
# One fixed clock for every tool, so that e2fsck -y results compare.
E2FSPROGS_FAKE_TIME=1700000000
E2FSCK_TIME=1700000000
export E2FSPROGS_FAKE_TIME E2FSCK_TIME
. "$top_srcdir/tests/lib/jimage.sh"
JH_J_UUID=1db3f677-6832-4adb-bafc-00000000cafe
jh_crash=0

jh_begin() {
	j_begin "$1" write
}

jh_end() {
	if [ $jh_crash != 0 ]; then
		result FAIL "$J_NAME" "a program crashed (see the log)"
	else
		result_expect "$J_NAME"
	fi
}

# a standard log: three transactions, a revoke, csum mode $2
jh_log() {
	ejw "$1" --csum "$2" ${3:+$3} \
		--txn 'blocks=3000-3003:fill:0x11' \
		--txn 'blocks=3002-3005:fill:0x22;revoke=3100' \
		--txn 'blocks=3100-3101:fill:0x33'
}

# poke FILE OFFSET FORMAT VALUE: write a struct-packed value at OFFSET
poke() {
	"$PYTHON" - "$@" <<-'PY'
	import struct, sys
	path, off, fmt, val = sys.argv[1], int(sys.argv[2], 0), sys.argv[3], int(sys.argv[4], 0)
	with open(path, "r+b") as f:
	    f.seek(off)
	    f.write(struct.pack(fmt, val))
	PY
}

# jsb_off IMG: byte offset of the internal journal's superblock
jsb_off() {
	echo $(($("$DEBUGFS" -R "bmap <8> 0" "$1" 2>/dev/null) *
		$("$DUMPE2FS" -h "$1" 2>/dev/null |
		  sed -n 's/^Block size: *//p')))
}

_sum() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-16
}

# _first FILE: the first line of an error output, names made generic
_first() {
	sed -n -e "s|$PWD/||g" -e 's|c\.img|IMG|g' -e 's|c\.jnl|JNL|g' \
		-e '/^e2fsck 1\.47/d' -e '/^$/d' -e p "$1" | head -n 1
}

_crashed() {	# RC WHAT
	if [ "$1" -ge 128 ]; then
		jh_crash=1
		say "    CRASH: $2 (exit $1)"
	fi
}

# run_copy OUT CMD...: run CMD on fresh copies c.img (c.jnl); say its exit
# status, its first line of error output and whether it wrote.
run_copy() {
	_label=$1
	shift
	cp "$JH_IMG" c.img
	[ -n "$JH_JNL" ] && cp "$JH_JNL" c.jnl
	_b=$(_sum c.img ${JH_JNL:+c.jnl})
	"$@" >c.out 2>c.err
	_rc=$?
	{ echo "== $_label: $*"; cat c.out c.err; } >&2
	_crashed $_rc "$_label"
	_a=$(_sum c.img ${JH_JNL:+c.jnl})
	_w="nothing written"
	[ "$_a" != "$_b" ] && _w="WRITTEN"
	_msg=$(_first c.err)
	[ -z "$_msg" ] && _msg=$(_first c.out)
	say "  $_label: exit $_rc, $_w: $_msg"
}

# e2fsck_pair OPTS: ours and e2fsprogs' on fresh copies; exit statuses and
# whether the images end the same
e2fsck_pair() {
	rm -f o.img r.img o.jnl r.jnl
	cp "$JH_IMG" o.img
	cp "$JH_IMG" r.img
	[ -n "$JH_JNL" ] && cp "$JH_JNL" o.jnl 2>/dev/null &&
		cp "$JH_JNL" r.jnl
	_b=$(_sum o.img ${JH_JNL:+o.jnl})
	"$E2FSCK" $1 ${JH_JNL:+-j o.jnl} o.img >o.out 2>&1
	_ro=$?
	"$E2FSCK_ENGINE" $1 ${JH_JNL:+-j r.jnl} r.img >r.out 2>&1
	_rr=$?
	{ echo "== e2fsck $1: ours"; cat o.out;
	  echo "== e2fsck $1: e2fsprogs"; cat r.out; } >&2
	_crashed $_ro "e2fsck $1"
	# the same but for s_kbytes_written (a statistic) and so the checksum
	_same=same
	[ -n "$(cmp -l o.img r.img | awk '
		($1 < 1401 || $1 > 1408) && ($1 < 2045 || $1 > 2048)')" ] &&
		_same=DIFFERENT
	[ -f o.jnl ] && ! cmp -s o.jnl r.jnl && _same=DIFFERENT
	_w="nothing written"
	[ "$(_sum o.img ${JH_JNL:+o.jnl})" != "$_b" ] && _w="written"
	_m=$(sed -n -e 's|o\.img|IMG|g' -e 's|o\.jnl|JNL|g' \
		-e "s|^$E2FSCK:|e2fsck:|" \
		-e '/^e2fsck 1\.47/d' -e '/^$/d' -e p o.out | head -n 1)
	# the output, but for the name of the image
	_out=same
	sed -e 's|o\.img|IMG|g' -e 's|o\.jnl|JNL|g' \
		-e "s|^$E2FSCK:|e2fsck:|" o.out >o.norm
	sed -e 's|r\.img|IMG|g' -e 's|r\.jnl|JNL|g' \
		-e "s|^$E2FSCK_ENGINE:|e2fsck:|" r.out >r.norm
	cmp -s o.norm r.norm || _out=DIFFERENT
	say "  e2fsck $1: exit $_ro (e2fsprogs $_rr), $_w, output $_out, images $_same: $_m"
}

# probe TITLE IMG [JNL]: everything above on IMG (and external JNL)
probe() {
	say "== $1"
	JH_IMG=$2 JH_JNL=$3
	run_copy "e2journal replay" "$E2JOURNAL" replay ${JH_JNL:+-j c.jnl} \
		c.img
	run_copy "e2journal dump" "$E2JOURNAL" dump ${JH_JNL:+-j c.jnl} c.img
	e2fsck_pair -fn
	e2fsck_pair -fy
}
