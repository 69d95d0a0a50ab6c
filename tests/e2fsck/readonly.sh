#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# readonly.sh: "e2fsck -n" writes nothing.  For every image (each kind of
# journal trouble, and the conformance corpus' damaged journals when it is
# there), under each policy, with and without -f and a JSON report, the
# image (and its external journal) keeps its sha256.  journal_policy=refuse
# must not write either when it refuses, even under -y.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup ro

sums() {
	sha256sum "$IMG" ${JNL:+"$JNL"} | cut -d' ' -f1
}

# same_after CMD...: CMD must leave $IMG (and $JNL) as they were.
same_after() {
	local before after
	before=$(sums)
	"$@" >"$WORK/out" 2>&1
	after=$(sums)
	checks=$((checks + 1))
	if [ "$before" != "$after" ]; then
		echo "FAIL $NAME: changed by: ${*#$OURS}"
		sed 's/^/    /' "$WORK/out" | head -20
		fails=$((fails + 1))
	fi
}

check_image() {
	local p j=()
	[ -n "$JNL" ] && j=(-j "$JNL")
	for p in stop replay-all refuse; do
		same_after "$OURS" -n -E journal_policy=$p "${j[@]}" "$IMG"
		same_after "$OURS" -fn -E journal_policy=$p,journal_report="$WORK/r.json" \
			"${j[@]}" "$IMG"
	done
	same_after "$OURS" -n "${j[@]}" "$IMG"
	same_after "$OURS" -fn -E journal_only "${j[@]}" "$IMG"
}

IMG=$WORK/img JNL=
for NAME in recover_v3 recover_ext3 bad_commit_v3 bad_jsb_csum no_has_journal \
	    data_no_flag v1_v2_fields; do
	JNL=
	case $NAME in
	recover_v3)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510 ;;
	recover_ext3)
		mkfs has_journal,^metadata_csum,^64bit
		txn "" 1500-1510 ;;
	bad_commit_v3)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\n' | dfs
		spoil "$(logged_at 2 2)" 16 ;;
	bad_jsb_csum)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke badcsum ;;
	no_has_journal)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "feature ^has_journal" | dfs ;;
	data_no_flag)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "feature ^needs_recovery" | dfs ;;
	v1_v2_fields)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke blocktype=3 ;;
	esac
	check_image
	# refuse, replaying nothing from a damaged journal, writes nothing
	case $NAME in
	bad_commit_v3|bad_jsb_csum)
		same_after "$OURS" -fy -E journal_policy=refuse "$IMG"
		grep -q "nothing replayed" "$WORK/out" || {
			echo "FAIL $NAME: refuse did not say it refused"
			fails=$((fails + 1))
		} ;;
	esac
done

NAME=external
ext_journal metadata_csum
check_image

# The conformance corpus' damaged journals (tests/conformance/).
CONF=${CONFORMANCE_DIR:-$top_srcdir/tests/conformance}
n=0
for t in "$CONF"/j_corrupt_*/image.gz; do
	[ -f "$t" ] || continue
	NAME=$(basename "$(dirname "$t")") JNL=
	gzip -dc "$t" >"$IMG"
	check_image
	n=$((n + 1))
done
if [ $n = 0 ]; then
	echo "FAIL: no j_corrupt_*/image.gz in $CONF"
	fails=$((fails + 1))
fi

echo "$checks read-only runs, $fails changed an image"
[ $fails = 0 ]
