#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# diff_engine.sh: our e2fsck, with -E journal_policy=stop, against
# e2fsprogs' e2fsck on the same images, one image per journal problem
# e2fsck checks for, under -fy, -y, -fn, -n, -p and -fp.  Both must print
# the same (stdout and stderr together), exit with the same status, and
# leave filesystems that dumpe2fs and a read-only e2fsck describe the same.
#
# usage: diff_engine.sh [--keep] [CASE...]
# Environment: top_srcdir, top_builddir (default: this tree), E2FSCK_REF
# (default E2FSCK_ENGINE, else /sbin/e2fsck), MKE2FS, DEBUGFS, DUMPE2FS.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

KEEP=0
if [ "${1:-}" = --keep ]; then
	KEEP=1
	shift
fi
ONLY=("$@")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2fsck-diff.XXXXXX") || exit 99
trap '[ $KEEP = 1 ] || rm -rf "$WORK"' EXIT
snapshot_ours "$WORK"

# ---- the cases ------------------------------------------------------
# Each builds $IMG; MODES may be narrowed; JNL names an external journal.

CASES=(
	healthy_clean healthy_recover_ext3 healthy_recover_v3
	healthy_recover_v2 uncommitted recover_empty_log
	data_but_no_recover_flag no_has_journal_with_recover
	no_has_journal_clean recover_set_no_journal inode_not_regular_backup
	inode_not_regular_backup_ext3
	inode_not_regular_nobackup inode_too_small bad_inode_number
	jsb_bad_magic jsb_bad_csum jsb_bad_csum_recover jsb_v1_v2_fields
	jsb_v1_v2_fields_recover jsb_unknown_incompat jsb_unknown_rocompat
	jsb_bad_blocksize jsb_too_long jsb_descriptor_type jsb_unknown_type
	jsb_errno_clean jsb_errno_recover jsb_multi_users
	jsb_csum_v2_and_v3 jsb_bad_csum_type commit_csum_bad_v3
	backup_sb_recover ext_recover ext_bad_uuid ext_not_journal
	ext_sb_csum_bad fast_commit_clean descr_csum_bad_v3 revoked_v3
	journal_only label_name undo_file args no_backup_recover
	no_backup_clean inode_size_wrong_backup logs_superblock_4k
	logs_superblock_1k recover_4k_64bit_v2 async_commit_ext3
)

build() {
	case $1 in
	healthy_clean)
		mkfs has_journal,metadata_csum ;;
	healthy_recover_ext3)
		mkfs ^metadata_csum,^64bit,has_journal
		txn "" 1500-1510 ;;
	healthy_recover_v3)
		mkfs has_journal,metadata_csum
		txn -c 1500-1520 ;;
	healthy_recover_v2)
		mkfs has_journal,^metadata_csum
		txn "-c -v 2" 1500-1520 ;;
	uncommitted)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1505 -c /dev/zero\njc\n' | dfs ;;
	recover_empty_log)
		mkfs has_journal,metadata_csum
		echo "feature needs_recovery" | dfs ;;
	data_but_no_recover_flag)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "feature ^needs_recovery" | dfs
		# (declining both questions, or clearing the journal instead of
		# replaying it, is left out: see doc/e2jfsck.8, BUGS)
		EXTRA=("-f i:yyyyyyyy" "i:a") ;;
	no_has_journal_with_recover)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "feature ^has_journal" | dfs
		EXTRA=("-f i:nyyyyyyy") ;;
	no_has_journal_clean)
		mkfs has_journal,metadata_csum
		echo "feature ^has_journal" | dfs ;;
	recover_set_no_journal)
		mkfs ^has_journal,metadata_csum
		echo "feature needs_recovery" | dfs ;;
	inode_not_regular_backup)
		mkfs has_journal,^metadata_csum,^64bit
		txn "" 1500-1510
		echo "sif <8> mode 040600" | dfs ;;
	inode_not_regular_backup_ext3)
		# e2fsck 1.47 rebuilds only block-mapped journal inodes from
		# the backup (it leaves out the extents flag)
		mkfs has_journal,^extent,^flex_bg,^metadata_csum,^64bit
		txn "" 1500-1510
		echo "sif <8> mode 040600" | dfs ;;
	logs_superblock_4k | logs_superblock_1k)
		# the kernel logs the superblock: replay rewrites it (here
		# with another volume name), and what e2fsck does next is
		# read from the replayed copy
		local b=4096 blk=0 off=1144 mb=4
		if [ "$1" = logs_superblock_1k ]; then
			b=1024 blk=1 off=120 mb=1
		fi
		mkfs has_journal,metadata_csum 8192 $b $mb
		dd if="$IMG" of="$WORK/sb.$1" bs=$b skip=$blk count=1 2>/dev/null
		printf 'replayed-label\0' | dd of="$WORK/sb.$1" bs=1 seek=$off \
			conv=notrunc 2>/dev/null
		python3 "$HERE/jpoke.py" --ext2-csum "$WORK/sb.$1" \
			$((off - 120))
		printf 'jo -c\njw -b %s %s\njc\n' $blk "$WORK/sb.$1" | dfs ;;
	recover_4k_64bit_v2)
		mkfs has_journal,64bit,^metadata_csum 16384 4096 4
		txn "-c -v 2" 5000-5010 ;;
	async_commit_ext3)
		mkfs has_journal,^metadata_csum,^64bit
		printf 'jo\njw -b 1500-1505 /dev/zero\njc\n' | dfs
		poke incompat=0x5 ;;
	no_backup_recover)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "ssv jnl_backup_type 0" | dfs ;;
	no_backup_clean)
		mkfs has_journal,metadata_csum
		echo "ssv jnl_backup_type 0" | dfs ;;
	inode_size_wrong_backup)
		mkfs has_journal,^extent,^flex_bg,^metadata_csum,^64bit
		txn "" 1500-1510
		echo "sif <8> size 4096" | dfs ;;
	inode_not_regular_nobackup)
		mkfs has_journal,^metadata_csum,^64bit
		txn "" 1500-1510
		printf 'sif <8> mode 040600\nssv jnl_backup_type 0\n' | dfs ;;
	inode_too_small)
		mkfs has_journal,^metadata_csum
		printf 'sif <8> size 102400\nssv jnl_backup_type 0\n' | dfs ;;
	bad_inode_number)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		echo "ssv journal_inum 999999" | dfs ;;
	jsb_bad_magic)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke magic=0x12345678 ;;
	jsb_bad_csum)
		mkfs has_journal,metadata_csum
		echo "jo -c" | dfs
		poke badcsum ;;
	jsb_bad_csum_recover)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke badcsum
		EXTRA=("-f i:yyyyyyy" "-f i:nnnnnn") ;;
	jsb_v1_v2_fields)
		mkfs has_journal,^metadata_csum
		poke blocktype=3 nr_users=1 ;;
	jsb_v1_v2_fields_recover)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke blocktype=3 compat=0 ;;
	jsb_unknown_incompat)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke incompat=0x1001 ;;
	jsb_unknown_rocompat)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke rocompat=0x1 ;;
	jsb_bad_blocksize)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke blocksize=4096 ;;
	jsb_too_long)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke maxlen=4096 ;;
	jsb_descriptor_type)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke blocktype=1 ;;
	jsb_unknown_type)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke blocktype=9 ;;
	jsb_errno_clean)
		mkfs has_journal,metadata_csum
		echo "jo -c" | dfs
		poke errno=0xffffffea csum ;;
	jsb_errno_recover)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke errno=0xfffffffb csum ;;
	jsb_multi_users)
		mkfs has_journal,^metadata_csum
		txn "" 1500-1510
		poke nr_users=2 ;;
	jsb_csum_v2_and_v3)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke incompat=0x1b csum ;;
	jsb_bad_csum_type)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		poke u8@0x50=1 csum ;;
	commit_csum_bad_v3)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\n' | dfs
		# the second commit block: its checksum spoiled
		spoil "$(logged_at 2 2)" 16 ;;
	backup_sb_recover)
		mkfs has_journal,^metadata_csum,^64bit 32768
		txn "" 1500-1510
		MODES=("-fy -b 8193" "-fn -b 8193") ;;
	ext_*)
		ext_journal metadata_csum
		case $1 in
		ext_bad_uuid)
			echo "ssv journal_uuid 1db3f677-6832-4adb-bafc-8e4059c30a35" | dfs ;;
		ext_not_journal)
			: >"$JNL"
			"$MKE2FS" -q -F -o Linux -b 1024 -T ext4 "$JNL" 2048 \
				>/dev/null 2>&1 ;;
		ext_sb_csum_bad)
			printf '\x5a' | dd of="$JNL" bs=1 seek=$((1024 + 0x3fc)) \
				conv=notrunc 2>/dev/null
			EXTRA=("-f i:yyyyyyy" "-f i:nyyyyyyy") ;;
		esac ;;
	fast_commit_clean)
		mkfs has_journal,metadata_csum,fast_commit ;;
	descr_csum_bad_v3)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\n' | dfs
		# the second descriptor block: a tag byte spoiled
		spoil "$(logged_at 2 1)" 13 ;;
	revoked_v3)
		mkfs has_journal,metadata_csum
		printf 'jo -c\njw -b 1500-1510 /dev/zero\njc\njo\njw -r 1503-1505\njc\n' | dfs ;;
	journal_only)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		MODES=("-y -E journal_only" "-fy -E journal_only" "-p -E journal_only"
		       "-n -E journal_only" "-y -E journal_only -E fragcheck"
		       "-fy -E fragcheck,journal_only") ;;
	label_name)
		mkfs has_journal,metadata_csum
		echo "ssv volume_name my:label x" | dfs
		txn -c 1500-1510 ;;
	undo_file)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		MODES=("-fy -z undo") ;;
	args)
		mkfs has_journal,metadata_csum
		txn -c 1500-1510
		MODES=("-n -y" "-p -n" "-y -p" "-a -y" "-Q" "-fy -s" "-b foo"
		       "-n -D" "-n -c" "-n -l bb" "-C x" "-fy -E ea_ver=2"
		       "-D -E fixes_only -y" "-c -l bb -y" "-I x" "-fy -v"
		       "-fy -t" "-fy -C 0" "-fyd" "-yf -E discard") ;;
	*)
		echo "no such case: $1" >&2
		return 1 ;;
	esac
}

# ---- running and comparing ------------------------------------------

# run DIR PROGRAM OPTS: in DIR, on "img" (same name for both programs).
# OPTS "i:KEYS" is a person at a terminal typing KEYS (y, n, a...).
run() {
	local dir=$1 prog=$2 opts=$3 keys=
	local jopt=()
	[ -n "$JNL" ] && jopt=(-j img.jnl)
	case $opts in
	*i:*)
		keys=${opts#*i:}
		opts=${opts%%i:*} ;;
	esac
	if [ -n "$keys" ]; then
		(cd "$dir" && printf '%s' "$keys" |
		 E2FSCK_FORCE_INTERACTIVE=1 $prog $opts "${jopt[@]}" img \
			>out 2>&1
		 echo "exit $?" >>out)
	else
		(cd "$dir" && $prog $opts "${jopt[@]}" img >out 2>&1 </dev/null
		 echo "exit $?" >>out)
	fi
	# -n: our e2fsck says what replay would do (the engine then skips
	# the replay, as e2fsck does); not part of the comparison
	sed -i -e "s;^$prog:;e2fsck:;" -e "s;^[^ ]*/e2fsck:;e2fsck:;" \
		-e "s;^Usage: [^ ]*;Usage: e2fsck;" \
		-e '/^Memory used:/d' -e '/^I\/O read:/d' \
		-e '/: the journal needs recovery, but nothing is written under -n/,/^Revoke blocks:/d' \
		"$dir/out"
	# -C 0: our bar for the journal phase (e2fsprogs draws none), and
	# the blanks that clear it
	perl -0pi -e 's/(\x01[^\x02]*: journal \|[^\x02]*\x02)+\x01 *\r\x02//g' \
		"$dir/out"
}

# What the resulting filesystem looks like, times and UUIDs aside.
describe() {
	local dir=$1
	(cd "$dir" &&
	 "$DUMPE2FS" -h img 2>&1 | grep -v -E \
		'time|Last|created|UUID|Lifetime|Checksum|Next check|Journal sequence' &&
	 "$E2FSCK_REF" -fn img 2>&1 | tail -n +2)
}

fails=0 passes=0
for c in "${CASES[@]}"; do
	if [ ${#ONLY[@]} -gt 0 ]; then
		hit=0
		for p in "${ONLY[@]}"; do
			# shellcheck disable=SC2053
			[[ $c == $p ]] && hit=1
		done
		[ $hit = 1 ] || continue
	fi
	d=$WORK/$c
	mkdir -p "$d"
	IMG=$d/base.img JNL=
	MODES=("-fy" "-y" "-fn" "-n" "-p" "-fp")
	EXTRA=()
	if ! build "$c" || [ ! -s "$IMG" ]; then
		echo "FAIL $c: could not build its image"
		fails=$((fails + 1))
		continue
	fi
	ok=1
	for m in "${MODES[@]}" "${EXTRA[@]}"; do
		for who in ref ours; do
			mkdir -p "$d/$who"
			cp "$IMG" "$d/$who/img"
			[ -n "$JNL" ] && cp "$JNL" "$d/$who/img.jnl"
		done
		run "$d/ref" "$E2FSCK_REF" "$m"
		run "$d/ours" "$OURS" "-E journal_policy=stop $m"
		describe "$d/ref" >"$d/ref/state"
		describe "$d/ours" >"$d/ours/state"
		if ! diff -u "$d/ref/out" "$d/ours/out" >"$d/diff" ||
		   ! diff -u "$d/ref/state" "$d/ours/state" >>"$d/diff"; then
			echo "FAIL $c ($m)"
			sed 's/^/    /' "$d/diff" | head -40
			ok=0
		fi
	done
	if [ $ok = 1 ]; then
		echo "PASS $c"
		passes=$((passes + 1))
	else
		fails=$((fails + 1))
	fi
done
echo "$passes passed, $fails failed"
[ $fails = 0 ]
