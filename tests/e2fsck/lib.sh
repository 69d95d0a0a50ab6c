# SPDX-License-Identifier: GPL-2.0
# lib.sh: what the e2fsck tests share (sourced): the environment of
# e2fsprogs' test suite, the programs, and helpers that build images.
# Helpers act on $IMG.

HERE=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$HERE/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${E2FSCK_ENGINE:=/sbin/e2fsck}"
: "${E2FSCK_REF:=$E2FSCK_ENGINE}"
: "${MKE2FS:=/sbin/mke2fs}"
: "${DEBUGFS:=/sbin/debugfs}"
: "${DUMPE2FS:=/sbin/dumpe2fs}"
# E2FSCK_UNDER_TEST: another e2fsck in ours' place (check-e2fsprogs-series
# runs diff_engine.sh on e2fsprogs' e2fsck with e2fsprogs/patches applied)
OURS=${E2FSCK_UNDER_TEST:-$top_builddir/e2fsck/e2fsck}
POKE="python3 $HERE/jpoke.py"

LC_ALL=C TZ=GMT0 E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null
E2FSPROGS_SKIP_PROGRESS=yes EXT2FS_NO_MTAB_OK=yes
MKE2FS_CONFIG=$top_srcdir/tests/lib/mke2fs.conf
export LC_ALL TZ E2FSCK_CONFIG BLKID_FILE E2FSPROGS_SKIP_PROGRESS \
	EXT2FS_NO_MTAB_OK MKE2FS_CONFIG
unset E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH E2FSCK_TIME

if [ ! -x "$OURS" ]; then
	echo "$(basename "$0"): $OURS not built" >&2
	exit 99
fi

# snapshot_ours DIR: test a copy of our e2fsck, so that a rebuild in the
# tree while the tests run does not pull it away from under them.
snapshot_ours() {
	mkdir -p "$1/bin" && cp "$OURS" "$1/bin/e2fsck" && OURS=$1/bin/e2fsck
}

# check_setup NAME: a work directory $WORK (removed at exit) holding a
# copy of our e2fsck, $IMG in it, and the counters fail() and run use.
check_setup() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2fsck-$1.XXXXXX") || exit 99
	trap 'rm -rf "$WORK"' EXIT
	snapshot_ours "$WORK"
	IMG=$WORK/img JNL=
	fails=0 checks=0
}

fail() {
	echo "FAIL $NAME: $*"
	sed 's/^/    /' "$WORK/out" | head -30
	fails=$((fails + 1))
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "exit $RC, expected $1"
}

expect_out() {
	grep -q -e "$1" "$WORK/out" || fail "no \"$1\" in the output"
}

# img_sum: a digest of $IMG; expect_unchanged SUM: fail unless $IMG
# still has digest SUM.
img_sum() {
	sha256sum <"$IMG"
}
expect_unchanged() {
	[ "$(img_sum)" = "$1" ] || fail "image changed"
}

# same_image A B: the same bytes but for the superblock's clocks (write,
# mount and check times, kbytes written) and the checksum over them.
same_image() {
	python3 - "$1" "$2" <<'PY'
import sys
def masked(path):
    b = bytearray(open(path, "rb").read())
    for off, n in ((0x2C, 8), (0x40, 4), (0x178, 8), (0x274, 4), (0x3FC, 4)):
        b[1024 + off:1024 + off + n] = bytes(n)
    return b
sys.exit(0 if masked(sys.argv[1]) == masked(sys.argv[2]) else 1)
PY
}

# mkfs FEATURES [BLOCKS [BS [JOURNAL_MB]]]
mkfs() {
	: >"$IMG"
	"$MKE2FS" -q -F -o Linux -b "${3:-1024}" -O "$1" -J size="${4:-1}" \
		-T ext4 "$IMG" "${2:-8192}" >/dev/null 2>&1
}

# debugfs -w, commands on stdin
dfs() {
	"$DEBUGFS" -w -f - "$IMG" >/dev/null 2>&1
}

bs() {
	"$DUMPE2FS" -h "$IMG" 2>/dev/null | sed -n 's/^Block size: *//p'
}

# The physical block of logical journal block $1 (internal journal).
jblk() {
	"$DEBUGFS" -R "bmap <8> $1" "$IMG" 2>/dev/null
}

# poke FIELD=VALUE... [csum] [badcsum]: change the journal superblock.
poke() {
	$POKE "$IMG" "$(jblk 0)" "$(bs)" "$@"
}

# txn [CSUM] BLOCKS: one committed transaction logging BLOCKS (zeroes),
# written by debugfs; leaves needs_recovery set.  Blocks 1500-1520 of the
# default 8192-block filesystem are free and outside its journal.
txn() {
	printf 'jo %s\njw -b %s /dev/zero\njc\n' "$1" "$2" | dfs
}

# ab_files: $WORK/a and $WORK/b, six 1 KiB blocks of the letter each:
# recognisable data for logged_txns.
ab_files() {
	local c
	for c in a b; do
		head -c 6144 /dev/zero | tr '\0' "$c" >"$WORK/$c"
	done
}

# logged_txns RANGE FILE...: a fresh metadata_csum filesystem whose
# journal holds one committed transaction (csum v3, by debugfs) per RANGE
# FILE pair, logging RANGE from FILE; leaves needs_recovery set.
logged_txns() {
	local open="jo -c"
	mkfs has_journal,metadata_csum
	while [ $# -ge 2 ]; do
		printf '%s\njw -b %s %s\njc\n' "$open" "$1" "$2"
		open=jo
		shift 2
	done | dfs
}

# The journal block where logdump found transaction $1's block of type $2
# (1 descriptor, 2 commit, 5 revoke).
logged_at() {
	"$DEBUGFS" -R "logdump" "$IMG" 2>/dev/null |
		sed -n "s/.*sequence $1, type $2 ([a-z ]*) at block \([0-9]*\).*/\1/p" |
		head -n 1
}

# spoil LBLK OFFSET: change a byte of journal block LBLK (xor 0x55).
spoil() {
	local p b
	if [ -z "$1" ]; then
		echo "spoil: no such journal block" >&2
		return 1
	fi
	p=$(($(jblk "$1") * $(bs) + $2))
	# xor, so that the byte always changes
	b=$(od -An -tu1 -j "$p" -N 1 "$IMG" | tr -d ' ')
	printf "\\$(printf %03o $((b ^ 0x55)))" |
		dd of="$IMG" bs=1 seek="$p" conv=notrunc 2>/dev/null
}

# ext_journal FSFEATURES: a journal device $IMG.jnl (fixed UUID) and a
# filesystem $IMG attached to it as e2fsprogs' tests do it; then a
# transaction in the external journal.
EXT_UUID=1db3f677-6832-4adb-bafc-8e4059c30a34
ext_journal() {
	JNL=$IMG.jnl
	: >"$JNL"
	"$MKE2FS" -q -F -o Linux -b 1024 -O journal_dev -T ext4 \
		-U "$EXT_UUID" "$JNL" 2048 >/dev/null 2>&1
	mkfs "^has_journal,$1"
	printf '%s\n' "feature has_journal" "ssv journal_dev 0x9999" \
		"ssv journal_uuid $EXT_UUID" | dfs
	printf 'jo -f %s\njw -b 1500-1510 /dev/zero\njc\n' "$JNL" | dfs
}
