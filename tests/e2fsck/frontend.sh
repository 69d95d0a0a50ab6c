#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# frontend.sh: the front end against e2fsprogs' e2fsck, side by side on
# copies of the same image, where the journal phase used to differ:
#  - s_kbytes_written after a replay under journal_policy=stop (the whole
#    of dumpe2fs -h but the times and the checksum);
#  - a read-only image checked by an ordinary user ("You must have r/w
#    access", exit 8, nothing written);
#  - SIGINT during the replay (strace delivers it at a write call): the
#    replay finishes, no pass runs, exit 8;
#  - -F on an image file: refused before anything is written;
#  - -E journal_only on a journal the policy flags: no "forcing a full
#    check" when no full check follows.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup frontend
chmod 755 "$WORK"
REF=$WORK/ref.img

# both [-E KEYS] OPTS...: e2fsprogs' e2fsck on $REF, ours on $IMG (with
# journal_policy=stop added to KEYS), copies of the image as it is now
# (and of its external journal $JNL, given with -j); outputs in
# $WORK/ref.out and $WORK/out, statuses in $RRC and $RC.
both() {
	local keys= j=()
	if [ "$1" = -E ]; then
		keys=$2
		shift 2
	fi
	[ -n "$JNL" ] && j=(-j "$JNL") && cp "$JNL" "$JNL.orig"
	cp "$IMG" "$REF"
	"$E2FSCK_REF" "$@" ${keys:+-E "$keys"} "${j[@]}" "$REF" \
		>"$WORK/ref.out" 2>&1
	RRC=$?
	[ -n "$JNL" ] && cp "$JNL.orig" "$JNL"
	"$OURS" "$@" -E "${keys:+$keys,}journal_policy=stop" "${j[@]}" \
		"$IMG" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
}

# The superblock as dumpe2fs shows it, without what differs between two
# runs by design (times, and the checksum over them).
sb() {
	"$DUMPE2FS" -h "$1" 2>/dev/null |
		grep -v -e '^Last write time' -e '^Last checked' \
			-e '^Last mount time' -e '^Checksum:' \
			-e '^Journal checksum:'
}

same_sb() {
	if ! diff <(sb "$REF") <(sb "$IMG") >"$WORK/sb.diff"; then
		fail "superblock differs from e2fsprogs' ($*):"
		sed 's/^/    /' "$WORK/sb.diff" | head -20
	fi
}

kbytes() {
	"$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Lifetime writes: *//p'
}

# ------------------------------------------------ s_kbytes_written
make_image() {
	JNL=
	case $1 in
	v3_1k)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510 ;;
	v3_1k_many)
		mkfs has_journal,metadata_csum
		txn -c 1500-1700 ;;
	relogged_revoked)
		mkfs has_journal,metadata_csum
		printf '%s\n' 'jo -c' 'jw -b 1500-1505 /dev/zero' jc \
			jo 'jw -b 1500-1505 /dev/zero' jc \
			jo 'jw -b 1500-1503 /dev/zero' jc \
			jo 'jw -r 1500-1502' jc | dfs ;;
	ext3_4k)
		mkfs has_journal,^metadata_csum,^64bit 8192 4096 4
		txn "" 1500-1520 ;;
	bad_commit)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\njo\njw -b 1511-1515 /dev/zero\njc\n' | dfs
		spoil "$(logged_at 2 2)" 16 ;;
	external)
		ext_journal metadata_csum ;;
	relogged_near)
		# the same blocks in consecutive small transactions, as Linux
		# logs bitmaps: e2fsprogs' replay writes them through unix_io's
		# 8-block cache, which holds a block rewritten soon enough
		mkfs has_journal,metadata_csum
		relog -c 40 ;;
	relogged_blockmap)
		# the same with a journal inode mapped by indirect blocks, the
		# log long enough to need its double-indirect block
		mkfs has_journal,^extent,^64bit,^flex_bg,^metadata_csum
		relog "" 90 ;;
	esac
}

# relog JO-FLAGS N: N transactions rewriting three blocks (with the log
# blocks between two versions, eight blocks: the cache's size), a few
# with a run of others (the rewrite then comes after an eviction).
relog() {
	local i
	for i in $(seq 1 "$2"); do
		printf 'jo %s\njw -b 1500-1502 /dev/zero\n' "$1"
		[ $((i % 5)) = 0 ] && printf 'jw -b %d-%d /dev/zero\n' \
			$((1600 + i)) $((1600 + i + i % 4))
		printf 'jc\n'
	done | dfs
}

for NAME in v3_1k v3_1k_many relogged_revoked ext3_4k bad_commit external \
	relogged_near relogged_blockmap; do
	for opts in "-E journal_only -y" -fy -p; do
		make_image $NAME
		before=$(kbytes "$IMG")
		both $opts
		[ "$RC" = "$RRC" ] || fail "$opts: exit $RC, e2fsprogs $RRC"
		[ "$(kbytes "$IMG")" != "$before" ] ||
			fail "$opts: s_kbytes_written not counted"
		same_sb "$opts"
	done
done
JNL=

# ------------------------------------------------ a read-only image
NAME="read-only image, ordinary user"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkfs has_journal,metadata_csum
	txn -c 1500-1510
	chmod 444 "$IMG"
	sum=$(img_sum)
	for opts in -y -fy -p; do
		cp -p "$IMG" "$REF"
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$E2FSCK_REF" $opts "$REF" >"$WORK/ref.out" 2>&1
		RRC=$?
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$OURS" $opts "$IMG" >"$WORK/out" 2>&1
		RC=$?
		checks=$((checks + 1))
		expect_rc 8
		[ "$RRC" = 8 ] || fail "e2fsprogs exit $RRC (the test is wrong)"
		expect_out "You must have r/w access to the filesystem or be root"
		grep -q "Filesystem still has errors" "$WORK/out" &&
			fail "$opts: says the filesystem has errors"
		expect_unchanged "$sum"
		# the same words, but for the program's name
		diff <(sed "s|$E2FSCK_REF|e2fsck|; s|$REF|IMG|" "$WORK/ref.out") \
		     <(sed "s|$OURS|e2fsck|; s|$IMG|IMG|" "$WORK/out") \
		     >/dev/null || fail "$opts: output differs from e2fsprogs'"
	done
	chmod 644 "$IMG"
else
	echo "SKIP $NAME: needs root and setpriv"
fi

# ------------------------------------------------ SIGINT during replay
NAME="SIGINT during replay"
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	for opts in -fy -y -p; do
		mkfs has_journal,metadata_csum
		txn -c 1500-1700
		cp "$IMG" "$REF"
		# SIGINT at the second pwrite64: the replay has begun
		strace -f -o /dev/null -e trace=pwrite64 \
			-e inject=pwrite64:signal=SIGINT:when=2 \
			"$E2FSCK_REF" $opts "$REF" >"$WORK/ref.out" 2>&1
		RRC=$?
		E2JOURNAL_IO=no-dio strace -f -o /dev/null -e trace=pwrite64 \
			-e inject=pwrite64:signal=SIGINT:when=2 \
			"$OURS" $opts -E journal_policy=stop "$IMG" \
			>"$WORK/out" 2>&1
		RC=$?
		checks=$((checks + 1))
		expect_rc 8
		[ "$RRC" = 8 ] || fail "e2fsprogs exit $RRC (the test is wrong)"
		grep -q "^Pass 1" "$WORK/out" && fail "$opts: passes ran"
		"$DUMPE2FS" -h "$IMG" 2>/dev/null | grep -q needs_recovery &&
			fail "$opts: replay not finished"
		same_sb "$opts"
		diff <(sed "s|$REF|IMG|" "$WORK/ref.out") \
		     <(sed "s|$IMG|IMG|" "$WORK/out") >/dev/null ||
			fail "$opts: output differs from e2fsprogs'"
	done
else
	echo "SKIP $NAME: strace cannot trace here"
fi

# ------------------------------------------------ SIGINT at a question
# A question of the journal phase (has_journal clear, a journal that
# needs recovery), asked on a FIFO (E2FSCK_FORCE_INTERACTIVE) that never
# answers; SIGINT once the question is out.  e2fsprogs says "cancelled!",
# takes it as no, replays and exits 8 before pass 1.
NAME="SIGINT at a question"
# asked PROG OUT IMAGE: PROG -f on IMAGE, interrupted at its question
asked() {
	local fifo=$WORK/fifo holder pid i
	rm -f "$fifo"
	mkfifo "$fifo"
	sleep 60 >"$fifo" &
	holder=$!
	E2FSCK_FORCE_INTERACTIVE=1 "$1" -f "$3" <"$fifo" >"$2" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q '?' "$2" 2>/dev/null && break
		sleep 0.1
	done
	kill -INT $pid
	wait $pid
	ASKED_RC=$?
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
}
mkfs has_journal,metadata_csum
txn -c 1500-1510
echo "feature ^has_journal" | dfs
cp "$IMG" "$REF"
asked "$E2FSCK_REF" "$WORK/ref.out" "$REF"
RRC=$ASKED_RC
asked "$OURS" "$WORK/out" "$IMG"
RC=$ASKED_RC
checks=$((checks + 1))
expect_rc 8
[ "$RRC" = 8 ] || fail "e2fsprogs exit $RRC (the test is wrong)"
expect_out "cancelled!"
grep -q "^Pass 1" "$WORK/out" && fail "passes ran"
diff <(sed "s|$REF|IMG|" "$WORK/ref.out") <(sed "s|$IMG|IMG|" "$WORK/out") \
	>/dev/null || fail "output differs from e2fsprogs'"
same_sb "at a question"

# ------------------------------------------------ -F on an image file
NAME="-F on an image file"
for opts in -fy -p -n; do
	mkfs has_journal,metadata_csum
	txn -c 1500-1510
	sum=$(img_sum)
	both -F $opts
	expect_rc 8
	[ "$RRC" = 8 ] || fail "e2fsprogs exit $RRC (the test is wrong)"
	expect_unchanged "$sum"
	expect_out "ext2fs_sync_device: .* while trying to flush $IMG"
	grep -q "recovering journal" "$WORK/out" && fail "$opts: replayed"
done

# ------------------------------------------------ journal_only, flagged
NAME="journal_only on a flagged journal"
for p in replay-all stop; do
	mkfs has_journal,metadata_csum
	printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\njo\njw -b 1511-1515 /dev/zero\njc\n' | dfs
	spoil "$(logged_at 2 2)" 16
	cp "$IMG" "$REF"
	"$OURS" -y -E journal_only,journal_policy=$p "$IMG" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
	grep -q "^Pass 1" "$WORK/out" && fail "$p: passes ran"
	grep -q "forcing a full check" "$WORK/out" &&
		fail "$p: says it forces a full check, runs none"
	"$DUMPE2FS" -h "$IMG" 2>/dev/null |
		grep -q "^Filesystem state: *clean with errors" ||
		fail "$p: no error state for the next check"
	if [ $p = replay-all ]; then
		expect_out "the next e2fsck checks it in full (journal_only)"
	fi
	# with -f the full check does follow, and says so
	cp "$REF" "$IMG"
	"$OURS" -fy -E journal_only,journal_policy=$p "$IMG" >"$WORK/out" 2>&1
	grep -q "^Pass 1" "$WORK/out" || fail "$p: -f ran no passes"
	if [ $p = replay-all ]; then
		expect_out "forcing a full check"
	fi
done

echo "frontend.sh: $checks runs, $fails failures"
[ "$fails" = 0 ]
