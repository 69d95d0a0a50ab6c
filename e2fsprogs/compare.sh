#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# compare.sh - e2fsprogs' e2fsck with the series applied against ours, on
# damaged journals, under each policy (replay-all, stop, refuse).
#
# Both run the same recovery.c, so on a copy of the same image, with
# "-fy -N test_filesys -E journal_policy=P", they must
#   - exit with the same status,
#   - print the same report lines (the lines that start with the device
#     name, and e2fsprogs' own "Journal ..." lines; ours adds, under
#     refuse, the table of its journal report, which is not compared),
#   - leave the same bytes in the image (or, where they differ, the same
#     outside the superblocks, group descriptors and journal: the write
#     time, the kbytes-written count, and the random sequence a reset
#     journal gets).
#
# The images: every tests/j_*/image.gz of e2fsprogs' suite (--suite), and
# journals that "e2journal write" logs and "e2journal corrupt" damages,
# one per row of POLICY.md's decision table, in csum v1, v2 (32-bit), v3
# (64-bit) and v3 with async_commit.
#
# usage: compare.sh --ours E2FSCK --patched E2FSCK [--suite DIR]
#                   [--e2journal PROG] [--keep]
# The last line is "compare: N same, M different"; exit 0 when M is 0.
set -uo pipefail
export LC_ALL=C TZ=GMT0 E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null \
	E2FSPROGS_SKIP_PROGRESS=yes EXT2FS_NO_MTAB_OK=yes
unset E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH
# both take "now" from here: the times they write are the same
export E2FSCK_TIME=1700000000

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
ours=""
patched=""
suite=""
e2journal=""
keep=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--ours) ours=$2; shift 2 ;;
	--patched) patched=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--e2journal) e2journal=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "usage: compare.sh --ours E2FSCK --patched E2FSCK [--suite DIR] [--e2journal PROG] [--keep]" >&2
	   exit 16 ;;
	esac
done
[[ -x $ours && -x $patched ]] || { echo "compare: --ours and --patched must be programs" >&2; exit 16; }
if [[ -z $e2journal ]]; then
	e2journal=$(dirname "$(dirname "$ours")")/misc/e2journal
fi
: "${MKE2FS:=/sbin/mke2fs}"
MKE2FS_CONFIG=$top_srcdir/tests/lib/mke2fs.conf
export MKE2FS_CONFIG

jc() {
	python3 "$top_srcdir/tests/gen/jcorrupt.py" "$@"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/e2fsprogs-compare.XXXXXX") || exit 99
[[ $keep -eq 1 ]] || trap 'rm -rf "$work"' EXIT
# copies: a rebuild while this runs must not pull them away
cp "$ours" "$work/ours"
cp "$patched" "$work/patched"
same=0
different=0

# report_lines FILE: what is compared of an e2fsck's output.
report_lines() {
	grep -E '^(test_filesys: |Journal (transaction|checksum|corrupted|superblock)|Pass [0-9])' "$1" |
		grep -v 'the journal holds fast commits; leaving its replay to' ||
		true
}

# compare_one NAME IMAGE: both e2fscks under each policy on copies.
compare_one() {
	local name=$1 img=$2 p rc_o rc_p why
	for p in replay-all stop refuse; do
		cp "$img" "$work/o.img"
		cp "$img" "$work/p.img"
		"$work/ours" -fy -N test_filesys -E journal_policy=$p \
			"$work/o.img" >"$work/o.out" 2>&1
		rc_o=$?
		"$work/patched" -fy -N test_filesys -E journal_policy=$p \
			"$work/p.img" >"$work/p.out" 2>&1
		rc_p=$?
		why=""
		[[ $rc_o -eq $rc_p ]] || why="exit $rc_o (ours) vs $rc_p (patched); "
		report_lines "$work/o.out" >"$work/o.rep"
		report_lines "$work/p.out" >"$work/p.rep"
		cmp -s "$work/o.rep" "$work/p.rep" || why="${why}report lines differ; "
		if cmp -s "$work/o.img" "$work/p.img"; then
			how="byte for byte"
		elif [[ $(jc cmp "$work/o.img" "$work/o.img" "$work/p.img" 2>&1) == same ]]; then
			# the superblock's write time and kbytes written, the
			# journal superblock's new sequence after a reset
			how="outside the superblocks, group descriptors and journal"
		else
			why="${why}images differ: $(jc cmp "$work/o.img" "$work/o.img" "$work/p.img" 2>&1); "
		fi
		if [[ -z $why ]]; then
			same=$((same + 1))
			echo "SAME $name $p: exit $rc_o, images $how"
		else
			different=$((different + 1))
			echo "DIFF $name $p: ${why%; }"
			diff -u "$work/o.rep" "$work/p.rep" | sed -e 's/^/    /' | head -n 20
		fi
	done
}

# ---------------------------------------------------------------- suite
if [[ -n $suite ]]; then
	for t in "$suite"/j_*/image.gz; do
		[[ -f $t ]] || continue
		name=$(basename "$(dirname "$t")")
		gzip -dc "$t" >"$work/src.img" || continue
		compare_one "$name" "$work/src.img"
	done
fi

# ---------------------------------------------------------------- generated
if [[ -x $e2journal ]] && "$e2journal" corrupt --help >/dev/null 2>&1; then
	# gen MODE BITS [--async-commit]: a fresh image with four transactions
	gen() {
		local f
		case $1 in
		v2|v3) f=metadata_csum ;;
		*) f=^metadata_csum ;;
		esac
		if [[ $2 == 64 ]]; then f=$f,64bit; else f=$f,^64bit; fi
		rm -f "$work/g.img" "$work/g.img.layout"
		"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -E lazy_itable_init=1 \
			-O "$f" -J size=1 "$work/g.img" 16384 >/dev/null 2>&1 &&
		"$e2journal" write "$work/g.img" --csum "$1" ${3:+"$3"} \
			--txn 'blocks=3000-3003:fill:0x11' \
			--txn 'blocks=3002-3005:fill:0x22;revoke=3100' \
			--txn 'blocks=3004-3007:fill:0x33' \
			--txn 'blocks=3100-3101:fill:0x44' >/dev/null 2>&1
	}
	# damage NAME ARGS...: e2journal corrupt ARGS on a copy, compared
	damage() {
		local name=$1
		shift
		cp "$work/g.img" "$work/d.img"
		cp "$work/g.img.layout" "$work/d.img.layout"
		if [[ $# -gt 0 ]] &&
		   ! "$e2journal" corrupt "$work/d.img" "$@" >/dev/null 2>&1; then
			echo "SKIP $name: e2journal corrupt $* failed"
			return
		fi
		compare_one "$name" "$work/d.img"
	}
	for m in "v1 32" "v2 32" "v3 64" "v3 64 --async-commit"; do
		set -- $m
		tag="$1-$2${3:+-async}"
		if ! gen "$@"; then
			echo "SKIP $tag: the image could not be made"
			continue
		fi
		damage "$tag-healthy"
		damage "$tag-commit-csum-mid" commit-csum --tid 2 --byte 1
		damage "$tag-commit-csum-last" commit-csum --tid 4 --byte 1
		damage "$tag-commit-garbled-mid" commit-header --tid 2 --index 0
		damage "$tag-tag-out-of-range" tag-out-of-range --tid 3 --index 0
		damage "$tag-revoke-rcount" revoke-rcount --tid 2 --index 0
		if [[ $1 != v1 ]]; then
			damage "$tag-data-csum" data --tid 2 --index 1 --byte 7
			damage "$tag-descr-csum" descr-csum --tid 2 --index 0
			damage "$tag-revoke-csum" revoke-csum --tid 2 --index 0
			damage "$tag-torn-commit-last" torn-commit --tid 4
			damage "$tag-jsb-csum" jsb-csum --byte 1
		fi
	done
else
	echo "SKIP generated journals: no e2journal corrupt ($e2journal)"
fi

echo "compare: $same same, $different different"
[[ $different -eq 0 ]]
