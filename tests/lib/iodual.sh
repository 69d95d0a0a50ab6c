#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iodual.sh PROGRAM NAME [ARGS...]: run one of our programs (e2fsck or
# e2journal) twice, first with the plain I/O engine (E2JOURNAL_IO=plain),
# then as asked (the fast engine unless the caller's E2JOURNAL_IO says
# otherwise), from the same starting state, and compare what they did.
#
# tests/io_engines.sh runs the whole j_* suite with this wrapper standing
# in for both programs (run_jtests.sh with EJ_IO_DUAL=1).  The files the
# command line names (images, external journals, block devices, and
# files a run creates under a name it was given, such as a report or a
# saved journal, or E2JOURNAL_TEST_IO's log) are copied before the first
# run; after it its results are put aside and the originals put back.
# After the second run, every such file, the exit status, stdout and
# stderr must be the same as after the first.  The second run is the one
# the test sees.  Both runs get NAME (the path the test called) as
# argv[0], so that messages name the program as they would without this
# wrapper.  A difference is written to $EJ_IODUAL_LOG as a line
# "DIFF <dir>: <command>: <what>"; every compared run adds "RUN <dir>:
# <command>".
#
# Only e2fsck and the e2journal commands that read a journal through the
# library (replay, plan, dump, show, save) are run twice.
#
# Time: both runs need the same clock, so when neither E2FSPROGS_FAKE_TIME
# nor E2FSCK_TIME is set, both are set to now, for both runs; e2journal,
# which reads only libext2fs' E2FSPROGS_FAKE_TIME, gets it set to now
# when only E2FSCK_TIME is (else the runs can straddle a second and leave
# superblocks whose s_wtime differs).
# Standard input, unless it is a terminal, is read once and given to both.
prog=$1
name=$2
shift 2
# e2journal's commands that never read a journal through the library's
# engine (write, corrupt, usage) run once, as they are
case ${prog##*/}:${1:-} in
e2journal:replay|e2journal:plan|e2journal:dump|e2journal:show|\
e2journal:save|e2fsck:*) ;;
*) exec -a "$name" "$prog" "$@" ;;
esac
case " $* " in
*" --help "*|*" -h "*) exec -a "$name" "$prog" "$@" ;;
esac
log=${EJ_IODUAL_LOG:-/dev/null}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iodual.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

if [ -z "${E2FSPROGS_FAKE_TIME:-}" ] && [ -z "${E2FSCK_TIME:-}" ]; then
	E2FSPROGS_FAKE_TIME=$(date +%s)
	E2FSCK_TIME=$E2FSPROGS_FAKE_TIME
	export E2FSPROGS_FAKE_TIME E2FSCK_TIME
elif [ -z "${E2FSPROGS_FAKE_TIME:-}" ] && [ "${prog##*/}" = e2journal ]; then
	E2FSPROGS_FAKE_TIME=$(date +%s)
	export E2FSPROGS_FAKE_TIME
fi
if [ -t 0 ]; then
	in=/dev/null
else
	in=$tmp/stdin
	cat >"$in"
fi

# copy FROM TO: a file (sparse as it was) or a block device's bytes; onto
# a block device in place
copy() {
	if [ -b "$1" ] || [ -b "$2" ]; then
		cat "$1" >"$2" 2>/dev/null
	else
		cp --sparse=always "$1" "$2" 2>/dev/null
	fi
}

# The candidate files: every argument, the part after '=' of "k=v"
# arguments, and the test io manager's log.
n=0
: >"$tmp/list"
add() {
	case $1 in
	''|-*) return ;;
	esac
	n=$((n + 1))
	if [ -f "$1" ] || [ -b "$1" ]; then
		copy "$1" "$tmp/orig.$n" || return
		echo "$n have $1" >>"$tmp/list"
	else
		echo "$n none $1" >>"$tmp/list"
	fi
}
for a in "$@"; do
	add "$a"
	case $a in
	*=*) add "${a##*=}" ;;
	esac
done
case ${E2JOURNAL_TEST_IO:-} in
*log=*)
	l=${E2JOURNAL_TEST_IO##*log=}
	add "${l%%,*}"
	;;
esac

# stdout and stderr kept together when they are one file (a test's
# ">log 2>&1"), so that the order of their lines stays
joined=0
[ /proc/$$/fd/1 -ef /proc/$$/fd/2 ] && joined=1
if [ "$joined" = 1 ]; then
	(E2JOURNAL_IO=plain exec -a "$name" "$prog" "$@") <"$in" \
		>"$tmp/out.plain" 2>&1
else
	(E2JOURNAL_IO=plain exec -a "$name" "$prog" "$@") <"$in" \
		>"$tmp/out.plain" 2>"$tmp/err.plain"
fi
rc_plain=$?
while read -r i what f; do
	if [ "$what" = have ]; then
		copy "$f" "$tmp/plain.$i"
		copy "$tmp/orig.$i" "$f"
	elif [ -e "$f" ]; then
		mv "$f" "$tmp/plain.$i"
	fi
done <"$tmp/list"

if [ "$joined" = 1 ]; then
	(exec -a "$name" "$prog" "$@") <"$in" >"$tmp/out.fast" 2>&1
	rc=$?
	cat "$tmp/out.fast"
else
	(exec -a "$name" "$prog" "$@") <"$in" >"$tmp/out.fast" \
		2>"$tmp/err.fast"
	rc=$?
	cat "$tmp/out.fast"
	cat "$tmp/err.fast" >&2
fi

# same A B: the files are equal, but for what a journal reset draws at
# random (e2fsck gives a recreated journal a random s_sequence, from
# uuid_generate): the sequence and checksum fields of a journal
# superblock (JBD2 magic, block type 3 or 4, at a multiple of 1 KiB).
same() {
	cmp -s "$1" "$2" && return 0
	python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
if len(a) != len(b):
    sys.exit(1)
magic = bytes.fromhex("c03b3998")
def next_diff(i):
    while i < len(a):
        j = min(len(a), (i // 65536 + 1) * 65536)
        if a[i:j] != b[i:j]:
            return next(k for k in range(i, j) if a[k] != b[k])
        i = j
    return None
i = 0
while True:
    i = next_diff(i)
    if i is None:
        sys.exit(0)
    start = i - i % 1024
    ok = False
    while start >= 0 and i - start < 65536 and not ok:
        hdr = (a[start:start + 4] == magic and b[start:start + 4] == magic
               and a[start + 4:start + 8] in (bytes(3) + b"\3",
                                              bytes(3) + b"\4"))
        ok = hdr and (0x18 <= i - start < 0x1c or 0xfc <= i - start < 0x100)
        start -= 1024
    if not ok:
        sys.exit(1)
    i += 1
PY
}

diffs=
while read -r i what f; do
	if [ -e "$tmp/plain.$i" ] && [ -e "$f" ]; then
		same "$tmp/plain.$i" "$f" || diffs="$diffs; $f differs"
	elif [ -e "$tmp/plain.$i" ] || [ -e "$f" ]; then
		diffs="$diffs; $f made by one run only"
	fi
done <"$tmp/list"
[ "$rc" = "$rc_plain" ] || diffs="$diffs; exit $rc_plain plain, $rc fast"
cmp -s "$tmp/out.plain" "$tmp/out.fast" || diffs="$diffs; stdout differs"
[ "$joined" = 1 ] ||
	cmp -s "$tmp/err.plain" "$tmp/err.fast" || diffs="$diffs; stderr differs"
echo "RUN $PWD: ${prog##*/} $*" >>"$log"
[ -z "$diffs" ] || echo "DIFF $PWD: ${prog##*/} $*: ${diffs#; }" >>"$log"
exit "$rc"
