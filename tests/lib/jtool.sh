# SPDX-License-Identifier: GPL-2.0
# jtool.sh: helpers of the tests of e2journal's commands for people
# (tests/j_tool_*: show, save, replay --skip/--force/--undo/--from).
# Sourced after jtest.sh.  Images are made with mke2fs and debugfs, and
# blocks are logged with debugfs' jo/jw/jc, as e2fsprogs' own tests do.

# need_command CMD NAME: skip test NAME when e2journal has no CMD yet.
need_command() {
	"$E2JOURNAL" "$1" --help >/dev/null 2>&1 && return 0
	result SKIP "$2" "(e2journal $1 not available)"
	exit 0
}

# check NAME WHAT CONDITION...: one result line for a shell condition.
check() {
	local name=$1 what=$2
	shift 2
	if "$@"; then
		result PASS "$name: $what"
	else
		result FAIL "$name" "$what"
		FAILED=1
	fi
}

# mkfs IMG BS BLOCKS FEATURES
mkfs() {
	"$MKE2FS" -q -F -o Linux -b "$2" -O "$4" -T ext4 "$1" "$3" \
		>/dev/null 2>&1 || {
		echo "mke2fs $*: failed" >&2
		exit 1
	}
}

# dfs IMG REQUEST...: debugfs -w, one request each
dfs() {
	local img=$1 r
	shift
	for r in "$@"; do
		"$DEBUGFS" -w -R "$r" "$img" >/dev/null 2>&1 || {
			echo "debugfs $img: $r: failed" >&2
			exit 1
		}
	done
}

# dfs_out IMG REQUEST: what debugfs prints (read-only)
dfs_out() {
	"$DEBUGFS" -R "$2" "$1" 2>/dev/null
}

# bs_of IMG
bs_of() {
	"$DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p'
}

# block IMG BLK: the block's bytes on stdout
block() {
	dd if="$1" bs="$(bs_of "$1")" skip="$2" count=1 2>/dev/null
}

# block_sum IMG BLK
block_sum() {
	block "$1" "$2" | sha256sum | cut -d' ' -f1
}

file_sum() {
	sha256sum <"$1" | cut -d' ' -f1
}

# log_txn IMG DATAFILE "B1 B2 ..." [-c]: one committed transaction that
# logs blocks B1.. with DATAFILE's blocks as their content; -c: journal
# checksums (v3 with metadata_csum, else v1)
log_txn() {
	local img=$1 data=$2 list csum=${4:-}
	list=$(echo $3 | tr ' ' ',')
	printf 'jo %s\njw -b %s %s\njc\n' "$csum" "$list" "$data" |
		"$DEBUGFS" -w -f - "$img" >debugfs.log 2>&1
	if grep -q -i -e error -e illegal debugfs.log; then
		cat debugfs.log >&2
		echo "logging blocks $list into $img failed" >&2
		exit 1
	fi
}

# changed_blocks OLD NEW: the blocks that differ, one per line
changed_blocks() {
	local bs
	bs=$(bs_of "$1")
	cmp -l "$1" "$2" | awk -v bs="$bs" '{ print int(($1 - 1) / bs) }' |
		uniq
}

# log_changes BASE CHANGED [-c]: log in BASE's journal, as one
# transaction, every block in which CHANGED differs from BASE (with
# CHANGED's content): what a crash after the commit leaves behind
log_changes() {
	local base=$1 new=$2 b list=
	: >changes.bin
	for b in $(changed_blocks "$base" "$new"); do
		block "$new" "$b" >>changes.bin
		list="$list $b"
	done
	log_txn "$base" changes.bin "$list" "${3:-}"
	echo $list
}

# journal_pblock IMG JBLOCK: physical block of logical journal block
journal_pblock() {
	dfs_out "$1" "bmap <8> $2"
}

# same_except_super A B [SKIPFILE]: A and B are equal byte for byte, but
# for the two superblock fields that count the bytes a run wrote
# (s_kbytes_written and, with it, s_checksum) and the blocks listed in
# SKIPFILE; prints the offsets that differ otherwise
same_except_super() {
	"$PYTHON" - "$1" "$2" "${3:-/dev/null}" <<-'EOF'
	import struct, sys
	a = open(sys.argv[1], "rb").read()
	b = open(sys.argv[2], "rb").read()
	bs = 1024 << struct.unpack_from("<I", a, 1024 + 0x18)[0]
	skip = set(int(x) for x in open(sys.argv[3]).read().split())
	# s_kbytes_written at 0x178, s_checksum at 0x3fc of the superblock
	allowed = set(range(1024 + 0x178, 1024 + 0x180)) | \
	    set(range(1024 + 0x3fc, 1024 + 0x400))
	bad = [i for i in range(min(len(a), len(b)))
	       if a[i] != b[i] and i not in allowed and i // bs not in skip]
	if len(a) != len(b):
	    print("sizes differ: %d %d" % (len(a), len(b)))
	    sys.exit(1)
	for i in bad[:10]:
	    print("byte 0x%x differs" % i)
	sys.exit(1 if bad else 0)
	EOF
}

# A fixed clock for e2journal, so that two runs write the same s_wtime.
ej() {
	E2FSPROGS_FAKE_TIME=1700000000 "$E2JOURNAL" "$@"
}
