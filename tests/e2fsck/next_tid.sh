#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# next_tid.sh: one log, one "next transaction" (issue 32, item 5).  For a
# log holding tids 1-3 (healthy, tid 2's data damaged, tid 2's commit
# damaged), under each policy, these must say the same tid: e2journal
# plan (text and JSON), e2fsck -n's and e2fsck -y's journal_report= JSON,
# e2journal replay --json; and it is the sequence the journal holds after
# the replay (dumpe2fs), but under refuse, where the journal is kept and
# the report names the tid a replay would start.  Under stop (e2fsprogs'
# behaviour), the sequence is also the one e2fsprogs' own e2fsck leaves.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup nexttid
E2JOURNAL=$top_builddir/misc/e2journal

json_tid() {
	sed -n 's/.*"next_tid": \([0-9]*\).*/\1/p' "$1"
}
seq_of() {
	printf '%d\n' "$("$DUMPE2FS" -h "$1" 2>/dev/null |
		sed -n 's/^Journal sequence: *//p')"
}

make_log() {
	rm -f "$IMG.layout"
	"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -O metadata_csum,64bit \
		-J size=1 "$IMG" 16384 >/dev/null 2>&1 &&
	"$E2JOURNAL" write "$IMG" --csum v3 \
		--txn 'blocks=3000-3003:fill:0x11' \
		--txn 'blocks=3002-3005:fill:0x22' \
		--txn 'blocks=3100-3101:fill:0x33' >/dev/null || exit 1
	case $1 in
	data)	"$E2JOURNAL" corrupt "$IMG" data --tid 2 --index 1 ;;
	commit)	"$E2JOURNAL" corrupt "$IMG" commit-csum --tid 2 ;;
	esac >/dev/null || exit 1
	cp "$IMG" "$WORK/orig"
}

# damage, policy, expected next transaction
while read -r damage policy want; do
	NAME="$damage, $policy"
	make_log "$damage"
	: >"$WORK/out"
	got="plan=$("$E2JOURNAL" plan -p "$policy" "$IMG" 2>/dev/null |
		sed -n 's/.*next transaction //p')"
	"$E2JOURNAL" plan -p "$policy" --json "$IMG" >"$WORK/j" 2>/dev/null
	got="$got plan-json=$(json_tid "$WORK/j")"
	rm -f "$WORK/j"
	"$OURS" -n -E journal_report="$WORK/j",journal_policy="$policy" \
		"$IMG" >/dev/null 2>&1
	got="$got e2fsck-n=$(json_tid "$WORK/j")"
	rm -f "$WORK/j"
	"$OURS" -fy -E journal_report="$WORK/j",journal_policy="$policy" \
		"$IMG" >/dev/null 2>&1
	got="$got e2fsck-y=$(json_tid "$WORK/j")"
	[ "$policy" = refuse ] || got="$got e2fsck-disk=$(seq_of "$IMG")"
	cp "$WORK/orig" "$IMG"
	"$E2JOURNAL" replay -y -p "$policy" --json "$IMG" >"$WORK/j" 2>/dev/null
	got="$got replay-json=$(json_tid "$WORK/j")"
	[ "$policy" = refuse ] || got="$got replay-disk=$(seq_of "$IMG")"
	if [ "$policy" = stop ] && [ -x "$E2FSCK_REF" ]; then
		cp "$WORK/orig" "$IMG"
		"$E2FSCK_REF" -fy "$IMG" >/dev/null 2>&1
		got="$got e2fsprogs-disk=$(seq_of "$IMG")"
	fi
	checks=$((checks + 1))
	for v in $got; do
		if [ "${v#*=}" != "$want" ]; then
			echo "$got" >"$WORK/out"
			fail "next transaction: want $want everywhere"
			break
		fi
	done
done <<'EOF'
none replay-all 5
none stop 5
none refuse 5
data replay-all 5
data stop 1
data refuse 5
commit replay-all 5
commit stop 3
commit refuse 5
EOF

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
