#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-series.sh - does e2fsprogs/patches/ carry the project's files as
# they are?  Cheap (no e2fsprogs source needed), run by "make check".
#
#  1. The e2fsck/recovery.c that the series' patches leave, read from
#     their "+" lines (patch 1 rewrites the file whole, format-patch -B;
#     a later patch that touches it fails the check: recovery.c enters
#     the series once), must be e2fsck/recovery.c byte for byte.
#  2. The policy block patch 1 adds to lib/ext2fs/kernel-jbd.h must be
#     what mkseries.sh --policy-block makes from lib/journal/jbd2_policy.h.
#  3. series lists every patch, one per steps/NNNN-*/, in order, and each
#     patch's subject is the first line of its step's message.
#
# master-policy/patches, the same series on e2fsprogs master, is checked
# as e2fsprogs/patches is (1. to 3.).
#
# The bug-fix series for e2fsprogs master (master/patches) is checked the
# same cheap way:
#  4. master/patches/series lists one patch per master/steps/NNNN-*/, in
#     order, each patch's subject is its step's, and each adds a test
#     (a file under tests/) and carries no Signed-off-by;
#  5. master/base-blobs names exactly the files the steps change, and
#     no patch says "Binary files ... differ" (format-patch --binary).
#
# A failure says to run "make e2fsprogs-series" (mkseries.sh), which
# needs the e2fsprogs 1.47.0 source (for the master series, mkseries.sh
# --series master and a checkout of its base).  Exit 0 pass, 1 fail.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
patches=$here/patches
work=$(mktemp -d "${TMPDIR:-/tmp}/check-series.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fails=0

fail() {
	echo "FAIL e2fsprogs series: $*"
	fails=$((fails + 1))
}

# file_section PATCH PATH: the lines of PATCH's diff of PATH.
file_section() {
	awk -v path="$2" '
		/^diff --git / { on = ($3 == "a/" path) ; next }
		/^-- $/ { on = 0 }
		on { print }
	' "$1"
}

# check_policy_series LABEL PATCHES STEPS: 1. to 3. above, for the 1.47.0
# series (LABEL empty) or the same series on master ("master-policy: ").
check_policy_series() {
	local label=$1 patches=$2 steps_dir=$3 p i step want got nrec
	local -a listed steps

	mapfile -t listed < <(sed -e '/^#/d' -e '/^$/d' "$patches/series" 2>/dev/null)
	mapfile -t steps < <(cd "$steps_dir" && ls -d [0-9][0-9][0-9][0-9]-* 2>/dev/null)
	if [[ ${#listed[@]} -ne ${#steps[@]} ]]; then
		fail "${label}series lists ${#listed[@]} patch(es), steps/ has ${#steps[@]}"
	fi
	i=0
	for p in "${listed[@]}"; do
		i=$((i + 1))
		if [[ ! -f $patches/$p ]]; then
			fail "${label}series names $p, which is not in patches/"
			continue
		fi
		[[ $p == $(printf '%04d' $i)-* ]] || fail "$label$p is not patch $i"
		step=${steps[$((i - 1))]:-}
		[[ -n $step ]] || continue
		want=$(head -n 1 "$steps_dir/$step/message")
		got=$(sed -n '/^Subject: /,/^$/p' "$patches/$p" | sed -e '$d' |
			tr -d '\n' | sed -e 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //')
		[[ $got == "$want" ]] ||
			fail "$label$p: subject \"$got\", steps/$step/message says \"$want\""
	done

	# 1. recovery.c
	nrec=0
	for p in "${listed[@]}"; do
		[[ -f $patches/$p ]] || continue
		if grep -q '^diff --git a/e2fsck/recovery.c ' "$patches/$p"; then
			nrec=$((nrec + 1))
			file_section "$patches/$p" e2fsck/recovery.c >"$work/rec.diff"
			grep -q '^dissimilarity index' "$work/rec.diff" ||
				fail "$label$p changes e2fsck/recovery.c without rewriting it whole"
			sed -n -e '/^@@/,$p' "$work/rec.diff" | sed -n -e 's/^+//p' \
				>"$work/recovery.c"
		fi
	done
	if [[ $nrec -ne 1 ]]; then
		fail "${label}e2fsck/recovery.c is written by $nrec patches, not 1"
	elif ! cmp -s "$work/recovery.c" "$top_srcdir/e2fsck/recovery.c"; then
		fail "${label}the series' e2fsck/recovery.c is not the project's:"
		diff -u "$work/recovery.c" "$top_srcdir/e2fsck/recovery.c" |
			head -n 20 | sed -e 's/^/    /'
	fi

	# 2. the policy block in kernel-jbd.h
	"$here/mkseries.sh" --policy-block >"$work/block.want" ||
		fail "mkseries.sh --policy-block failed"
	: >"$work/block.got"
	for p in "${listed[@]}"; do
		[[ -f $patches/$p ]] || continue
		file_section "$patches/$p" lib/ext2fs/kernel-jbd.h |
			sed -n -e 's/^+//p' | sed -e '/^++ b\//d' | awk '
				/^\/\*$/ { held = $0; next }
				held != "" && /^ \* The corrupt-journal recovery policy: what recovery.c decides and$/ {
					on = 1
				}
				held != "" { if (on) print held; held = "" }
				on { print }
				on && /^\/\* end of the corrupt-journal recovery policy \*\/$/ {
					on = 2; next
				}
				on == 2 && /^$/ { on = 0 }
			' >>"$work/block.got"
	done
	if [[ ! -s $work/block.got ]]; then
		fail "${label}no patch adds the policy block to lib/ext2fs/kernel-jbd.h"
	elif ! cmp -s "$work/block.got" "$work/block.want"; then
		fail "${label}kernel-jbd.h's policy block is not lib/journal/jbd2_policy.h's:"
		diff -u "$work/block.got" "$work/block.want" | head -n 20 |
			sed -e 's/^/    /'
	fi
	npolicy=${#listed[@]}
}

check_policy_series "" "$patches" "$here/steps"
n147=$npolicy
check_policy_series "master-policy: " "$here/master-policy/patches" \
	"$here/master-policy/steps"
nmp=$npolicy

# 4. and 5. the master series
master=$here/master
mapfile -t mlisted < <(sed -e '/^#/d' -e '/^$/d' "$master/patches/series" 2>/dev/null)
mapfile -t msteps < <(cd "$master/steps" && ls -d [0-9][0-9][0-9][0-9]-* 2>/dev/null)
if [[ ${#mlisted[@]} -eq 0 || ${#mlisted[@]} -ne ${#msteps[@]} ]]; then
	fail "master/patches/series lists ${#mlisted[@]} patch(es), master/steps/ has ${#msteps[@]}"
fi
i=0
for p in "${mlisted[@]}"; do
	i=$((i + 1))
	f=$master/patches/$p
	if [[ ! -f $f ]]; then
		fail "master series names $p, which is not in master/patches/"
		continue
	fi
	[[ $p == $(printf '%04d' $i)-* ]] || fail "master: $p is not patch $i"
	step=${msteps[$((i - 1))]:-}
	if [[ -n $step ]]; then
		want=$(head -n 1 "$master/steps/$step/message")
		got=$(sed -n '/^Subject: /,/^$/p' "$f" | sed -e '$d' |
			tr -d '\n' | sed -e 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //')
		[[ $got == "$want" ]] ||
			fail "master: $p: subject \"$got\", steps/$step/message says \"$want\""
	fi
	grep -q '^diff --git a/tests/[^ ]* b/tests/' "$f" ||
		fail "master: $p adds no test under tests/"
	grep -qi '^Signed-off-by:' "$f" &&
		fail "master: $p carries a Signed-off-by (left to whoever sends it)"
	grep -q '^Binary files .* differ$' "$f" &&
		fail "master: $p has a binary file without its contents (format-patch --binary)"
done
cat "$master"/steps/[0-9][0-9][0-9][0-9]-*/edits.diff 2>/dev/null |
	sed -n -e 's|^--- a/\(.*\)$|\1|p' | sort -u >"$work/master.files"
awk '{ print $2 }' "$master/base-blobs" 2>/dev/null | sort >"$work/master.blobs"
cmp -s "$work/master.files" "$work/master.blobs" ||
	fail "master/base-blobs does not name the files the steps change: $(diff "$work/master.blobs" "$work/master.files" | grep '^[<>]' | tr '\n' ' ')"

if [[ $fails -ne 0 ]]; then
	echo "the e2fsprogs series disagree with the project's files or their steps: run \"make e2fsprogs-series\" (1.47.0) or \"e2fsprogs/mkseries.sh --series master --source DIR\" (master; --series master-policy for master-policy); see e2fsprogs/README.md and e2fsprogs/master/README.md"
	exit 1
fi
echo "PASS e2fsprogs series: ${n147} patch(es) agree with e2fsck/recovery.c and lib/journal/jbd2_policy.h, and so do master-policy's ${nmp}; master: ${#mlisted[@]} patch(es), one test each"
exit 0
