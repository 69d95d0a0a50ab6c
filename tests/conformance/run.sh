#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: run the journal conformance corpus (the tests of e2fsprogs'
# tests/j_*: image-based ones, and ones that build their image with mke2fs
# and debugfs) against an e2fsck-compatible program, the way e2fsprogs' own
# test suite runs them, and compare with the upstream expect files.  See
# README.md for the corpus and what each procedure does.
#
# usage: run.sh --fsck 'CMD' [--debugfs 'CMD'] [--dumpe2fs 'CMD']
#               [--mke2fs 'CMD'] [--only NAME]... [--keep] [--timeout SECS]
#               [--list]

HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd -P)
FILTER=$HERE/normalize.sed
MKE2FS_CONF=$HERE/mke2fs.conf
ORIG_PWD=$(pwd -P)

# name / procedure / description used when the test folder has no "name" file
TESTS=(
	"j_corrupt_commit_csum                 two_fsck_cat"
	"j_corrupt_commit_tid                  two_fsck_cat"
	"j_corrupt_descr_csum                  two_fsck_cat"
	"j_corrupt_descr_tid                   two_fsck_cat"
	"j_corrupt_ext_jnl_sb_block            ext_journal_1"
	"j_corrupt_ext_jnl_sb_csum             ext_journal_2"
	"j_corrupt_journal_block               two_fsck_cat_nl"
	"j_corrupt_revoke_block                two_fsck_cat"
	"j_corrupt_revoke_csum                 two_fsck_cat"
	"j_corrupt_revoke_rcount               default_two_logs"
	"j_corrupt_sb_csum                     two_fsck_cat"
	"j_corrupt_sb_magic                    two_fsck_cat"
	"j_ext_dumpe2fs                        fsck_dumpe2fs"
	"j_ext_long_revoke_trans               ext_trans"
	"j_ext_long_trans                      ext_trans"
	"j_long_revoke_trans                   trans"
	"j_long_revoke_trans_mcsum_32bit       trans"
	"j_long_revoke_trans_mcsum_64bit       trans"
	"j_long_trans                          trans"
	"j_long_trans_mcsum_32bit              trans"
	"j_long_trans_mcsum_64bit              trans"
	"j_recover_csum2_32bit                 two_logs_tail"
	"j_recover_csum2_64bit                 two_logs_tail"
	"j_recover_csum3_64bit                 two_logs_tail"
	"j_recover_fast_commit                 journal_only_debugfs replay fast commit journal"
	"j_short_revoke_trans                  trans"
	"j_short_revoke_trans_mcsum_64bit      trans"
	"j_short_trans                         trans"
	"j_short_trans_64bit                   trans"
	"j_short_trans_mcsum_64bit             trans"
	"j_short_trans_old_csum                trans"
	"j_short_trans_open_recover            trans_jr_open"
	"j_short_trans_recover                 trans_jr"
	"j_short_trans_recover_mcsum_64bit     trans_jr"
	"j_short_uncommitted_trans             trans"
	"j_short_uncommitted_trans_mcsum_64bit trans"
)

usage() {
	cat <<'EOF'
usage: run.sh --fsck 'CMD' [options]

  --fsck 'CMD'       program under test, run where e2fsprogs' tests run
                     $FSCK; CMD may carry extra words, e.g.
                     './e2fsck/e2fsck -E journal_policy=stop'
  --debugfs 'CMD'    debugfs used to inspect images and to write journals
                     (default /usr/sbin/debugfs)
  --dumpe2fs 'CMD'   dumpe2fs for j_ext_dumpe2fs and for reading the images
                     that tests build (default /usr/sbin/dumpe2fs)
  --mke2fs 'CMD'     mke2fs for the tests that build their image
                     (default /usr/sbin/mke2fs)
  --only NAME        run only this test; a shell pattern; may be repeated
  --keep             keep the work folder of each failed test and print the
                     path of its diff instead of the diff itself
  --timeout SECS     kill any one tool run after SECS seconds (default 300,
                     0 = never)
  --list             list the tests and exit

Prints "PASS name" or "FAIL name" per test, then "N passed, M failed".
Exits 0 iff no test failed (2 on a usage error).
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 2
}

# Split a command string the way the shell would, and make every word that
# names an existing file relative to the caller's directory absolute, since
# each test runs in its own temporary directory.  The program word itself is
# looked up in PATH when it has no slash.  Result in the array named by $1.
parse_cmd() {
	local -n _out=$1
	local _s=$2 _w _i
	local -a _words
	eval "_words=($_s)" 2>/dev/null || die "cannot parse command: $_s"
	[ ${#_words[@]} -gt 0 ] || die "empty command"
	for _i in "${!_words[@]}"; do
		_w=${_words[$_i]}
		case $_w in
		/* | -*) ;;
		*/*) [ -e "$ORIG_PWD/$_w" ] && _words[_i]=$ORIG_PWD/$_w ;;
		*) if [ "$_i" = 0 ]; then
			_w=$(type -P -- "$_w") && _words[0]=$_w
		   fi ;;
		esac
	done
	if [ ! -f "${_words[0]}" ] || [ ! -x "${_words[0]}" ]; then
		die "not an executable program: ${_words[0]}"
	fi
	_out=("${_words[@]}")
}

# Escape a string for use as a literal inside an ERE with ';' delimiters.
ere_quote() {
	printf '%s' "$1" | sed -e 's/[][\\.*^$+?(){}|;]/\\&/g'
}

FSCK_STR='' DEBUGFS_STR=/usr/sbin/debugfs DUMPE2FS_STR=/usr/sbin/dumpe2fs
MKE2FS_STR=/usr/sbin/mke2fs
ONLY=() KEEP=0 TIMEOUT=300 LIST=0
while [ $# -gt 0 ]; do
	case $1 in
	--fsck) [ $# -ge 2 ] || die "--fsck needs a value"; FSCK_STR=$2; shift ;;
	--fsck=*) FSCK_STR=${1#*=} ;;
	--debugfs) [ $# -ge 2 ] || die "--debugfs needs a value"; DEBUGFS_STR=$2; shift ;;
	--debugfs=*) DEBUGFS_STR=${1#*=} ;;
	--dumpe2fs) [ $# -ge 2 ] || die "--dumpe2fs needs a value"; DUMPE2FS_STR=$2; shift ;;
	--dumpe2fs=*) DUMPE2FS_STR=${1#*=} ;;
	--mke2fs) [ $# -ge 2 ] || die "--mke2fs needs a value"; MKE2FS_STR=$2; shift ;;
	--mke2fs=*) MKE2FS_STR=${1#*=} ;;
	--only) [ $# -ge 2 ] || die "--only needs a value"; ONLY+=("$2"); shift ;;
	--only=*) ONLY+=("${1#*=}") ;;
	--keep) KEEP=1 ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs a value"; TIMEOUT=$2; shift ;;
	--timeout=*) TIMEOUT=${1#*=} ;;
	--list) LIST=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
	shift
done

describe() {
	local name=$1 fallback=$2
	if [ -f "$HERE/$name/name" ]; then
		cat "$HERE/$name/name"
	else
		echo "$fallback"
	fi
}

if [ $LIST = 1 ]; then
	for entry in "${TESTS[@]}"; do
		read -r name proc desc <<<"$entry"
		printf '%-38s %-21s %s\n' "$name" "$proc" "$(describe "$name" "$desc")"
	done
	exit 0
fi

[ -n "$FSCK_STR" ] || { usage >&2; die "--fsck is required"; }
case $TIMEOUT in '' | *[!0-9]*) die "--timeout wants whole seconds" ;; esac
for tool in gzip bzip2 tar sed grep tr cmp diff mktemp head tail cut; do
	type -P "$tool" >/dev/null || die "missing tool: $tool"
done
if [ "$TIMEOUT" != 0 ] && ! type -P timeout >/dev/null; then
	echo "run.sh: no timeout(1); running without a time limit" >&2
	TIMEOUT=0
fi
[ -f "$FILTER" ] || die "missing $FILTER"
[ -f "$MKE2FS_CONF" ] || die "missing $MKE2FS_CONF"

parse_cmd FSCK "$FSCK_STR"
parse_cmd DEBUGFS "$DEBUGFS_STR"
parse_cmd DUMPE2FS "$DUMPE2FS_STR"
parse_cmd MKE2FS "$MKE2FS_STR"

# e2fsprogs' tests run the checker as ../e2fsck/e2fsck, and e2fsck starts its
# error messages with argv[0]; so "<program path>: " at the start of a line
# from the program under test reads as "../e2fsck/e2fsck: ".  Any path ending
# in /e2fsck is treated the same (a front end may run e2fsck by its path).
# A bare "e2fsck: " (e2fsck's fixed-text messages) is left alone.
ARGV0_SED="s;^$(ere_quote "${FSCK[0]}"): ;../e2fsck/e2fsck: ;
s;^[^ :]*/e2fsck: ;../e2fsck/e2fsck: ;"

# The environment of e2fsprogs' test_config.  mke2fs reads its defaults
# (features, inode size and ratio, ...) from the test suite's own
# mke2fs.conf, kept here unchanged, never from the system's /etc/mke2fs.conf.
# test_config sets no clock: the expect files assume the real time, so
# overrides of it from the caller's environment are dropped too (a fake
# time in the future makes e2fsck fix "last write time is in the future").
unset LANG LANGUAGE LC_ADDRESS LC_ALL LC_COLLATE LC_CTYPE LC_IDENTIFICATION \
	LC_MEASUREMENT LC_MESSAGES LC_MONETARY LC_NAME LC_NUMERIC LC_PAPER \
	LC_TELEPHONE LC_TIME PAGER MKE2FS_FIRST_META_BG \
	E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH E2FSCK_TIME
export LC_ALL=C TZ=GMT0 E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null \
	E2FSPROGS_SKIP_PROGRESS=yes EXT2FS_NO_MTAB_OK=yes \
	E2FSPROGS_LIBMAGIC_SUPPRESS=yes MKE2FS_CONFIG=$MKE2FS_CONF

limit() {
	if [ "$TIMEOUT" != 0 ]; then
		timeout -k 10 "$TIMEOUT" "$@"
	else
		"$@"
	fi
}
fsck() { limit "${FSCK[@]}" "$@"; }
debugfs() { limit "${DEBUGFS[@]}" "$@"; }
dumpe2fs() { limit "${DUMPE2FS[@]}" "$@"; }
mke2fs() { limit "${MKE2FS[@]}" "$@"; }

# normalize FILE [extra sed -E args]: argv[0] rewrite, the corpus filter,
# then any per-test rewrite, to stdout.
normalize() {
	local f=$1
	shift
	sed -E -e "$ARGV0_SED" -f "$FILTER" "$@" "$f"
}

# compare EXPECT OUTPUT: 0 when identical; appends a unified diff to $FAILED.
compare() {
	if [ ! -f "$1" ]; then
		echo "missing expectation $1" >>"$FAILED"
		return 1
	fi
	cmp -s "$1" "$2" && return 0
	diff -u --label "${1##*/}" --label "${2##*/}" "$1" "$2" >>"$FAILED"
	return 1
}

# ---- procedures ---------------------------------------------------------
# Each runs in a fresh empty directory with $T = the test's corpus folder,
# $N = the test name, and returns 0 on a match.

# Image test with two checks into one log, then debugfs "cat /a":
# gunzip image; fsck -fy twice, each followed by "Exit status is N"; debugfs
# runs the commands "cat /a" and an empty line; all of it filtered with the
# image path -> test.img; compared with "expect".
proc_two_fsck_cat() {
	local img=$PWD/image
	gzip -d <"$T/image.gz" >"$img" || return 1
	fsck -fy -N test_filesys "$img" >"$N.log.new" 2>&1
	echo "Exit status is $?" >>"$N.log.new"
	fsck -fy -N test_filesys "$img" >>"$N.log.new" 2>&1
	echo "Exit status is $?" >>"$N.log.new"
	printf 'cat /a\n\n' >"$N.cmd"
	debugfs -f "$N.cmd" "$img" >>"$N.log.new" 2>&1
	normalize "$N.log.new" -e "s;$(ere_quote "$img");test.img;" >"$N.log"
	[ "$1" = nl ] && echo >>"$N.log"
	compare "$T/expect" "$N.log"
}

# Same, plus one empty line appended after filtering (j_corrupt_journal_block).
proc_two_fsck_cat_nl() { proc_two_fsck_cat nl; }

# e2fsprogs' default j_ procedure (no script of its own): gunzip image;
# fsck -yf, status line, filtered into log 1; fsck -yf again into log 2;
# compared with expect.1 and expect.2.
proc_default_two_logs() {
	local img=$PWD/image r=0
	gzip -d <"$T/image.gz" >"$img" || return 1
	fsck -yf -N test_filesys "$img" >"$N.1.log.new" 2>&1
	echo "Exit status is $?" >>"$N.1.log.new"
	normalize "$N.1.log.new" >"$N.1.log"
	fsck -yf -N test_filesys "$img" >"$N.2.log.new" 2>&1
	echo "Exit status is $?" >>"$N.2.log.new"
	normalize "$N.2.log.new" >"$N.2.log"
	compare "$T/expect.1" "$N.1.log" || r=1
	compare "$T/expect.2" "$N.2.log" || r=1
	return $r
}

# External journal: the tarball holds NAME.img and NAME.img.jnl; fsck -fy
# with -j NAME.img.jnl NAME.img (relative names, in the work directory), one
# or two times into one log; filtered; compared with "expect".
proc_ext_journal() {
	local passes=$1 i
	bzip2 -dc <"$T/image.tar.bz2" | tar -xf - --no-same-owner || return 1
	: >"$N.log.new"
	for ((i = 0; i < passes; i++)); do
		fsck -fy -N test_filesys -j "$N.img.jnl" "$N.img" >>"$N.log.new" 2>&1
		echo "Exit status is $?" >>"$N.log.new"
	done
	normalize "$N.log.new" >"$N.log"
	compare "$T/expect" "$N.log"
}
proc_ext_journal_1() { proc_ext_journal 1; }
proc_ext_journal_2() { proc_ext_journal 2; }

# The image is an external journal device: a header line, fsck -fy once with
# its status, a second header line, dumpe2fs of the image; filtered with the
# image path -> test.img; compared with "expect".
proc_fsck_dumpe2fs() {
	local img=$PWD/image
	gzip -d <"$T/image.gz" >"$img" || return 1
	echo "e2fsck external journal" >"$N.log.new"
	fsck -fy -N test_filesys "$img" >>"$N.log.new" 2>&1
	echo "Exit status is $?" >>"$N.log.new"
	echo "dumpe2fs external journal" >>"$N.log.new"
	dumpe2fs "$img" >>"$N.log.new" 2>&1
	normalize "$N.log.new" -e "s;$(ere_quote "$img");test.img;" >"$N.log"
	compare "$T/expect" "$N.log"
}

# bunzip2 image; twice: fsck -fy with stderr merged, piped through
# "head -n 1000 | tail -n +2" (drops the first line, the version banner),
# no other filtering; then "Exit status is $?" where $? is the pipeline's,
# i.e. tail's (upstream behaviour: fsck's own code is not recorded).
# Compared with expect.1 and expect.2.
proc_two_logs_tail() {
	local img=$PWD/image r=0 pass
	bzip2 -d <"$T/image.bz2" >"$img" || return 1
	for pass in 1 2; do
		fsck -fy -N test_filesys "$img" 2>&1 | sed -E -e "$ARGV0_SED" |
			head -n 1000 | tail -n +2 >"$N.$pass.log"
		echo "Exit status is $?" >>"$N.$pass.log"
	done
	compare "$T/expect.1" "$N.1.log" || r=1
	compare "$T/expect.2" "$N.2.log" || r=1
	return $r
}

# gunzip image; fsck -fy -E journal_only with stderr discarded, piped through
# "head -n 1000 | tail -n +2", "Exit status is $?" (tail's status); then
# debugfs -f <the test's commands file>, stderr discarded; no filtering;
# compared with "expect".
proc_journal_only_debugfs() {
	local img=$PWD/image
	gzip -d <"$T/image.gz" >"$img" || return 1
	fsck -fy -E journal_only -N test_filesys "$img" 2>/dev/null |
		head -n 1000 | tail -n +2 >"$N.log"
	echo "Exit status is $?" >>"$N.log"
	debugfs -f "$T/commands" "$img" >>"$N.log" 2>/dev/null
	compare "$T/expect" "$N.log"
}

# ---- tests that build their image ---------------------------------------
# Procedures J, E and R make a file system with mke2fs, let debugfs write
# transactions into its journal (jo/jw/jc), log "logdump -c", and check the
# file system with the program under test.  The image file is created empty
# before mke2fs runs (upstream's mktemp leaves it so), so that mke2fs does not
# report creating it.  The helpers below share IMG (the image), JNL (the
# external journal), LOG (the unfiltered log) and the settings of the test;
# each procedure runs in its own subshell.

set_fs() { BS=$1 BLOCKS=$2 FEATURES=$3; }

# trans_settings: the settings of test $N.
#   set_fs BS BLOCKS FEATURES
#            mke2fs -F -o Linux -b BS -O FEATURES -T ext4 IMAGE BLOCKS
#   JF=1     log dumpe2fs' "Journal features:" line before and after the
#            journal is written
#   SUBST=1  the image path becomes test.img in the log
#   JW, JR   the debugfs commands (";" between them) of the transaction that
#            zeroes blocks and of an optional second one that revokes them;
#            {bitmaps} stands for the bitmap blocks that dumpe2fs lists, each
#            followed by a comma, {jnl} for the external journal file
trans_settings() {
	JF=0 SUBST=0 JW='' JR=''
	case $N in
	j_ext_long_trans)
		set_fs 1024 262144 ^has_journal
		JW='jo -f {jnl}; jw -b 259-4356 /dev/zero; jc' ;;
	j_ext_long_revoke_trans)
		set_fs 1024 262144 ^has_journal
		JW='jo -f {jnl}; jw -b 259-4356 /dev/zero; jc'
		JR='jo -f {jnl}; jw -r 259-4356 /dev/zero; jc' ;;
	j_long_trans)
		set_fs 1024 262144 has_journal
		SUBST=1
		JW='jo; jw -b 259-4356 /dev/zero; jc' ;;
	j_long_revoke_trans)
		set_fs 1024 262144 has_journal
		SUBST=1
		JW='jo; jw -b 259-4356 /dev/zero; jc'
		JR='jo; jw -r 259-4356; jc' ;;
	j_long_trans_mcsum_32bit)
		set_fs 1024 524288 ^64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b 260-4356 /dev/zero; jc' ;;
	j_long_revoke_trans_mcsum_32bit)
		set_fs 1024 524288 ^64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b 260-4356 /dev/zero; jc'
		JR='jo; jw -r 260-4356; jc' ;;
	j_long_trans_mcsum_64bit)
		set_fs 1024 524288 64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b 262-4358 /dev/zero; jc' ;;
	j_long_revoke_trans_mcsum_64bit)
		set_fs 1024 524288 64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b 262-4358 /dev/zero; jc'
		JR='jo; jw -r 262-4358; jc' ;;
	j_short_trans | j_short_trans_open_recover)
		set_fs 4096 65536 has_journal
		JW='jo; jw -b {bitmaps} /dev/zero; jc' ;;
	j_short_trans_64bit)
		set_fs 4096 65536 64bit,has_journal
		JF=1
		JW='jo; jw -b {bitmaps} /dev/zero; jc' ;;
	j_short_trans_mcsum_64bit)
		set_fs 4096 131072 64bit,has_journal,metadata_csum
		JF=1
		JW='jo -c; jw -b {bitmaps} /dev/zero; jc' ;;
	j_short_trans_old_csum)
		set_fs 4096 65536 has_journal
		JF=1
		JW='jo -c; jw -b {bitmaps} /dev/zero; jc' ;;
	j_short_revoke_trans)
		set_fs 4096 65536 has_journal
		SUBST=1
		JW='jo; jw -b {bitmaps} /dev/zero; jc'
		JR='jo; jw -r {bitmaps}; jc' ;;
	j_short_revoke_trans_mcsum_64bit)
		set_fs 4096 131072 64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b {bitmaps} /dev/zero; jc'
		JR='jo; jw -r {bitmaps}; jc' ;;
	j_short_uncommitted_trans)
		set_fs 4096 65536 has_journal
		JW='jo; jw -b {bitmaps} -c /dev/zero; jc' ;;
	j_short_uncommitted_trans_mcsum_64bit)
		set_fs 4096 131072 64bit,has_journal,metadata_csum
		JF=1
		JW='jo -c; jw -b {bitmaps} /dev/zero -c; jc' ;;
	j_short_trans_recover)
		set_fs 4096 65536 has_journal
		JW='jo; jw -b 333,{bitmaps} /dev/zero; jc'
		JR='jo; jw -r 333; jc' ;;
	j_short_trans_recover_mcsum_64bit)
		set_fs 4096 131072 64bit,has_journal,metadata_csum
		JF=1 SUBST=1
		JW='jo -c; jw -b 333,{bitmaps} /dev/zero; jc'
		JR='jo; jw -r 333; jc' ;;
	*)
		echo "no build settings for $N" >>"$FAILED"
		return 1 ;;
	esac
}

# put_cmds FILE LIST...: the commands of each LIST (";" between them) into
# FILE, one a line, with {bitmaps} and {jnl} filled in.
put_cmds() {
	local file=$1 list c
	local -a cmds
	shift
	: >"$file"
	for list in "$@"; do
		IFS=';' read -ra cmds <<<"$list"
		for c in "${cmds[@]}"; do
			read -r c <<<"$c"
			c=${c//\{bitmaps\}/"$BITMAPS"}
			echo "${c//\{jnl\}/"$JNL"}" >>"$file"
		done
	done
}

# fsck_log ARGS...: the program under test, its output and then its exit
# status appended to $LOG.
fsck_log() {
	fsck "$@" >>"$LOG" 2>&1
	echo "Exit status is $?" >>"$LOG"
}

# bitmap_blocks: the block numbers of dumpe2fs' "... bitmap at N" lines for
# $IMG, in order, each followed by a comma (trailing one included).
bitmap_blocks() {
	dumpe2fs "$IMG" 2>&1 | grep 'bitmap at' |
		sed -e 's/.*bitmap at \([0-9]*\).*/\1/' | tr '\n' ','
}

# The "Journal features:" line of dumpe2fs for $IMG, appended to $LOG.
journal_features() {
	dumpe2fs "$IMG" 2>&1 | grep '^Journal features:' >>"$LOG"
}

# The steps J and R share, up to the logdump: mke2fs (its output starts the
# log); check -fy and log the status; find the bitmap blocks if a command
# needs them; the journal features if JF=1; the header "debugfs write
# journal"; "debugfs -w" runs JW then JR, stdout discarded, stderr logged;
# the journal features again if JF=1; "debugfs -f" with the one command
# "logdump -c", all logged.
trans_build() {
	trans_settings || return 1
	IMG=$PWD/image LOG=$N.log.new BITMAPS=
	: >"$IMG"
	mke2fs -F -o Linux -b "$BS" -O "$FEATURES" -T ext4 "$IMG" "$BLOCKS" \
		>"$LOG" 2>&1
	fsck_log -fy -N test_filesys "$IMG"
	case $JW$JR in
	*'{bitmaps}'*) BITMAPS=$(bitmap_blocks) ;;
	esac
	[ "$JF" = 1 ] && journal_features
	echo "debugfs write journal" >>"$LOG"
	put_cmds "$N.cmd" "$JW" ${JR:+"$JR"}
	debugfs -w -f "$N.cmd" "$IMG" 2>>"$LOG" >/dev/null
	[ "$JF" = 1 ] && journal_features
	echo "logdump -c" >"$N.cmd"
	debugfs -f "$N.cmd" "$IMG" >>"$LOG" 2>&1
	return 0
}

# The last check (-fy, status logged), then the log, filtered (image path ->
# test.img when SUBST=1), against "expect".
trans_check() {
	fsck_log -fy -N test_filesys "$IMG"
	if [ "$SUBST" = 1 ]; then
		normalize "$LOG" -e "s;$(ere_quote "$IMG");test.img;" >"$N.log"
	else
		normalize "$LOG" >"$N.log"
	fi
	compare "$T/expect" "$N.log"
}

# J: a transaction (and maybe a revoking one) written by debugfs into the
# internal journal; the program under test replays it.
proc_trans() {
	trans_build || return 1
	trans_check
}

# R: as J, then before the last check debugfs itself recovers the journal:
# the header "debugfs recover journal" and "jr" alone (stdout discarded,
# stderr logged); or, with "open", the header "debugfs can't recover open
# journal" and "jo", "jr", "jc" (all output logged), where jr must refuse.
proc_trans_jr() {
	trans_build || return 1
	if [ "$1" = open ]; then
		echo "debugfs can't recover open journal" >>"$LOG"
		printf 'jo\njr\njc\n' >"$N.cmd"
		debugfs -w -f "$N.cmd" "$IMG" >>"$LOG" 2>&1
	else
		echo "debugfs recover journal" >>"$LOG"
		echo jr >"$N.cmd"
		debugfs -w -f "$N.cmd" "$IMG" 2>>"$LOG" >/dev/null
	fi
	trans_check
}
proc_trans_jr_open() { proc_trans_jr open; }

# E: external journal.  mke2fs makes the journal device IMAGE.jnl (-O
# journal_dev and a fixed UUID, same -b and size), then the file system
# (-O ^has_journal); the header "debugfs add journal device/UUID" and
# "debugfs -w -f -" with, on stdin, "feature has_journal", "ssv journal_dev
# 0x9999" and "ssv journal_uuid UUID" (all output logged); check with -j
# IMAGE.jnl; write the journal as in J; log "logdump -c -f IMAGE.jnl"; the
# header "debugfs fsck" and the last check, again with -j.  The filter turns
# the echoed logdump command into "logdump -c" (no image path rewrite).
proc_ext_trans() {
	local uuid=1db3f677-6832-4adb-bafc-8e4059c30a34
	trans_settings || return 1
	IMG=$PWD/image JNL=$PWD/image.jnl LOG=$N.log.new
	: >"$IMG"
	: >"$JNL"
	mke2fs -F -o Linux -b "$BS" -O journal_dev -T ext4 -U "$uuid" "$JNL" \
		"$BLOCKS" >"$LOG" 2>&1
	mke2fs -F -o Linux -b "$BS" -O "$FEATURES" -T ext4 "$IMG" "$BLOCKS" \
		>>"$LOG" 2>&1
	echo "debugfs add journal device/UUID" >>"$LOG"
	printf '%s\n' "feature has_journal" "ssv journal_dev 0x9999" \
		"ssv journal_uuid $uuid" | debugfs -w -f - "$IMG" >>"$LOG" 2>&1
	fsck_log -fy -N test_filesys -j "$JNL" "$IMG"
	echo "debugfs write journal" >>"$LOG"
	put_cmds "$N.cmd" "$JW" ${JR:+"$JR"}
	debugfs -w -f "$N.cmd" "$IMG" 2>>"$LOG" >/dev/null
	echo "logdump -c -f $JNL" >"$N.cmd"
	debugfs -f "$N.cmd" "$IMG" >>"$LOG" 2>&1
	echo "debugfs fsck" >>"$LOG"
	fsck_log -fy -N test_filesys -j "$JNL" "$IMG"
	normalize "$LOG" -e 's/logdump -c -f.*/logdump -c/g' >"$N.log"
	compare "$T/expect" "$N.log"
}

# ---- main ---------------------------------------------------------------

selected() {
	local p
	[ ${#ONLY[@]} -eq 0 ] && return 0
	for p in "${ONLY[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $p ]] && return 0
	done
	return 1
}

for p in "${ONLY[@]}"; do
	hit=0
	for entry in "${TESTS[@]}"; do
		read -r name _ <<<"$entry"
		# shellcheck disable=SC2053
		[[ $name == $p ]] && hit=1
	done
	[ $hit = 1 ] || die "no test matches --only $p (see --list)"
done

WORK=
trap '[ -n "$WORK" ] && [ $KEEP = 0 ] && rm -rf -- "$WORK"; exit 130' INT TERM HUP

passed=0 failed=0
for entry in "${TESTS[@]}"; do
	read -r N proc _ <<<"$entry"
	selected "$N" || continue
	T=$HERE/$N
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/jconf-$N.XXXXXX") || die "mktemp failed"
	FAILED=$WORK/$N.failed
	if [ ! -d "$T" ]; then
		echo "missing corpus folder $T" >"$FAILED"
		rc=1
	else
		(cd "$WORK" && "proc_$proc")
		rc=$?
	fi
	if [ $rc = 0 ] && [ ! -s "$FAILED" ]; then
		echo "PASS $N"
		passed=$((passed + 1))
		rm -rf -- "$WORK"
	else
		echo "FAIL $N"
		failed=$((failed + 1))
		[ -s "$FAILED" ] || echo "(no diff: could not unpack the image)" >"$FAILED"
		if [ $KEEP = 1 ]; then
			echo "    diff: $FAILED"
		else
			total=$(wc -l <"$FAILED")
			head -n 40 "$FAILED" | cut -c1-160 | sed 's/^/    /'
			[ "$total" -gt 40 ] &&
				echo "    ... $((total - 40)) more diff lines (use --keep)"
			rm -rf -- "$WORK"
		fi
	fi
	WORK=
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
