#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kernel.sh - prove that e2fsck/recovery.c works inside Linux.
#
# Applies the generated series kernel/patches-KVER/ (KVER 6.1 or 6.12)
# with git am to a git tree of Debian's pristine linux-source-KVER,
# builds a User-Mode Linux kernel at every commit of the series (each
# must build without warnings, also at W=1 for fs/jbd2 and ext4's
# super.c), checks every patch with checkpatch, runs the series' KUnit
# tests on the last commit, whose fs/jbd2/recovery.c is the project's
# e2fsck/recovery.c byte for byte, then boots that kernel on copies of
# damaged and healthy journal images under each recovery policy and
# checks the mount outcome, the kernel messages, the error state left in
# the superblock, and that every filesystem block outside the
# superblocks, group descriptors and journal equals what
# `e2journal replay --policy P` makes of another copy.  The kernels of
# the steps before it (patches 2-11: the hooks, then recovery.c coming in
# step by step) boot on the same images beside the stock kernel, in the
# same run: every mount must give the stock kernel's result (outcome,
# superblock state, needs_recovery, blocks, messages) but for the rows a
# step has introduced so far (stock_differs below).
#
# Everything big (the source's git tree, the build directories, the
# images) lives under BUILDDIR/kernel/.cache, so a second run after a
# change to recovery.c only rebuilds what changed.  See kernel/README.md.
set -euo pipefail

usage() {
	cat <<'EOT'
Usage: check-kernel.sh [options] [BUILDDIR]

BUILDDIR is the project's build directory (misc/e2journal is taken from
it, kernel/.cache is created in it); default: the current directory.

Options:
  --kver V       the kernel version: 6.1 or 6.12 [$KVER, else 6.1]
  --stock        build and test the unpatched kernel instead, to record
                 what it does
  --last-only    build only the last commit of the series (a quick rerun;
                 the others are built when their tree has never been);
                 no image tests of the steps before it
  --no-steps     no image tests of the intermediate steps against the
                 stock kernel (see "stock_differs")
  --tests LIST   run only these tests (space-separated names; "list" lists)
  --jobs N       make -jN, and N boots at a time [2]
  --no-install   never run apt-get; fail if a tool is missing
  --no-kunit     skip the KUnit boot
  --no-w1        skip the W=1 builds
  --kernel FILE  test this UML kernel instead of building one (with
                 --stock: record what it does, expect nothing)
  --writer W     write the test journals with "e2journal" (write and
                 corrupt; the default when misc/e2journal has them) or
                 "debugfs" (jo/jw/jc, damaged by kernel/jtool.py)
  -h, --help     this text

Exit status 0 when every check passed.  The last line reads
"N passed, M failed".
EOT
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
builddir=.
kver=${KVER:-6.1}
stock=0
last_only=0
steps=1
only_tests=""
jobs=2
install=1
kunit=1
w1=1
writer=""
kernel_bin=""

while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--kver) kver=$2; shift 2 ;;
	--stock) stock=1; shift ;;
	--last-only) last_only=1; shift ;;
	--no-steps) steps=0; shift ;;
	--tests) only_tests=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--no-install) install=0; shift ;;
	--no-kunit) kunit=0; shift ;;
	--no-w1) w1=0; shift ;;
	--writer) writer=$2; shift 2 ;;
	--kernel) kernel_bin=$2; shift 2 ;;
	-*) echo "check-kernel: unknown option $1" >&2; exit 16 ;;
	*) builddir=$1; shift ;;
	esac
done
builddir=$(cd "$builddir" && pwd)
case $kver in
6.1|6.12) ;;
*) echo "check-kernel: KVER must be 6.1 or 6.12, not $kver" >&2; exit 16 ;;
esac

# kernel/.cache/KVER: this version's tree and builds; kernel/.cache/images:
# the test images and e2journal's replays of them, shared by the versions.
topcache=$builddir/kernel/.cache
cache=$topcache/$kver
tarball=/usr/src/linux-source-$kver.tar.xz
patches=$here/patches-$kver
recovery_c=$top_srcdir/e2fsck/recovery.c
e2journal=$builddir/misc/e2journal
jtool="python3 $here/jtool.py"
# Fixed identity and dates for git am, so that a rerun makes the same
# commits from the same series.
export GIT_COMMITTER_NAME="check-kernel" GIT_COMMITTER_EMAIL="check-kernel@invalid"
export GIT_COMMITTER_DATE="2026-12-04T10:00:00+00:00"

STEP_PROG=check-kernel
. "$top_srcdir/scripts/steps.sh"

# ------------------------------------------------------------ tools
# linux-source-6.12 is in bookworm-backports (and bookworm-security) on
# Debian 12; add backports to the sources when no archive offers it.
add_source() {
	local pkg=linux-source-$kver list=/etc/apt/sources.list.d/e2journal-backports.list
	if apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		return 0
	fi
	[[ $kver == 6.12 && $install -eq 1 && $(id -u) -eq 0 ]] || return 0
	. /etc/os-release
	if [[ ${VERSION_CODENAME:-} == bookworm && ! -e $list ]]; then
		log "adding bookworm-backports to the apt sources (for $pkg)"
		echo "deb http://deb.debian.org/debian bookworm-backports main" >"$list"
	fi
}

need_pkgs() {
	local missing=()
	pkgs_missing <<'EOT'
gcc build-essential
make build-essential
bc bc
flex flex
bison bison
patch patch
perl perl
python3 python3
git git
xz xz-utils
mke2fs e2fsprogs
debugfs e2fsprogs
dumpe2fs e2fsprogs
cmp diffutils
timeout coreutils
EOT
	if [[ ! -f $tarball ]]; then
		add_source
		missing+=("linux-source-$kver")
	fi
	[[ ${#missing[@]} -eq 0 ]] && return 0
	pkgs_install "${missing[@]}"
	[[ -f $tarball ]] || die "$tarball missing after installing linux-source-$kver"
}

# ------------------------------------------------------------ source tree
# $cache/git: the unpacked tarball as a git repository whose first commit
# (tag "pristine") is the tarball; the kernels build from its work tree,
# which is checked out at the commit being built.  The series is applied
# with git am in a second, sparse work tree of the same repository
# ($cache/am: only the directories the series touches), so that applying
# it again does not touch the files the builds depend on.
tree=$cache/git
amtree=$cache/am

unpack() {
	local stamp=$cache/unpacked.stamp want
	want=$(stat -c '%s %Y' "$tarball")
	if [[ -d $tree/.git && -f $stamp && $(cat "$stamp") == "$want" ]]; then
		return 0
	fi
	rm -rf "$tree" "$amtree" "$cache"/build* "$cache"/built "$cache"/linux-*
	mkdir -p "$cache"
	log "unpacking $tarball into a git tree"
	tar -C "$cache" -xf "$tarball"
	[[ -f $cache/linux-source-$kver/Makefile ]] || die "unexpected layout in $tarball"
	mv "$cache/linux-source-$kver" "$tree"
	git -C "$tree" init -q
	git -C "$tree" add -A -f
	git -C "$tree" -c user.name=pristine -c user.email=pristine@invalid \
		commit -q -m "linux-source-$kver (Debian)"
	git -C "$tree" tag pristine
	printf '%s\n' "$want" >"$stamp"
}

series_patches() {
	local p
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		printf '%s\n' "$patches/$p"
	done <"$patches/series"
}

# Directories a patch touches (a/ and b/ sides of its diff headers).
patch_dirs() {
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "$@" |
		sed 's|/[^/]*$|/|' | sort -u
}

# The series must be what kernel/mkseries.py makes of the project's
# files (a stale series would test something else).
check_series() {
	if python3 "$here/mkseries.py" --check --full --git "$tree" "$kver"; then
		pass "kernel/patches-$kver agrees with e2fsck/recovery.c, jbd2_policy.h and kernel/series"
	else
		fail "kernel/patches-$kver is stale: run kernel/mkseries.py $kver"
		die "not testing a stale series"
	fi
}

# git am the series onto "pristine"; commits[] gets its commits in order.
apply_series() {
	local -a pats
	mapfile -t pats < <(series_patches)
	# (again when its .git names a repository that is gone: a cache
	# made through another path)
	if [[ ! -e $amtree/.git ]] ||
	   ! git -C "$amtree" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$amtree"
		git -C "$tree" worktree prune
		git -C "$tree" worktree add -q --no-checkout --detach "$amtree" pristine
		git -C "$amtree" sparse-checkout set --no-cone \
			$(patch_dirs "${pats[@]}" | sed 's|^|/|') >/dev/null
	fi
	git -C "$amtree" am --abort >/dev/null 2>&1 || true
	git -C "$amtree" checkout -q -f --detach pristine
	if ! git -C "$amtree" am -q --committer-date-is-author-date "${pats[@]}" \
	     >"$cache/am.log" 2>&1; then
		cat "$cache/am.log"
		fail "git am of kernel/patches-$kver onto linux-source-$kver"
		die "the series does not apply"
	fi
	mapfile -t commits < <(git -C "$amtree" rev-list --reverse pristine..HEAD)
	[[ ${#commits[@]} -eq ${#pats[@]} ]] ||
		die "git am made ${#commits[@]} commits of ${#pats[@]} patches"
	pass "git am: ${#pats[@]} patches apply to linux-source-$kver"
	if git -C "$amtree" show HEAD:fs/jbd2/recovery.c | cmp -s - "$recovery_c"; then
		pass "the series' fs/jbd2/recovery.c is e2fsck/recovery.c (cmp)"
	else
		fail "the series' fs/jbd2/recovery.c differs from e2fsck/recovery.c"
	fi
}

# ------------------------------------------------------------ builds
configure() {	# configure OUT [CONFIG_NAME=VALUE...]: olddefconfig for
	# the commit checked out, .config replaced only when it changes.
	local out=$1 line sym filter=""
	shift
	mkdir -p "$out"
	for line in "$@"; do
		sym=$(grep -oE 'CONFIG_[A-Z0-9_]+' <<<"$line")
		filter+="${filter:+|}^$sym="
	done
	mkdir -p "$out/.cfg"
	{ grep -vE "${filter:-^\$}" "$here/uml.config"; printf '%s\n' "$@"; } \
		>"$out/.cfg/.config"
	make -s -C "$tree" ARCH=um O="$out/.cfg" olddefconfig >/dev/null 2>&1 ||
		make -C "$tree" ARCH=um O="$out/.cfg" olddefconfig
	cmp -s "$out/.cfg/.config" "$out/.config" || cp "$out/.cfg/.config" "$out/.config"
}

# A commit's build is keyed by its tree (every byte of the source), the
# configuration and the compiler: a key built before is not built again
# (make's walk of the whole tree to find nothing to do takes 20-60 s).
build_key() {	# build_key COMMIT WHAT
	{
		printf '%s\n' "$2"
		git -C "$tree" rev-parse "$1^{tree}"
		cat "$here/uml.config"
		gcc --version | head -1
	} | cksum | tr ' ' '-'
}

checkout() {	# checkout COMMIT: the build tree at COMMIT; git rewrites
	# only the files that differ, so make rebuilds only what they reach.
	[[ $(git -C "$tree" rev-parse HEAD) == "$(git -C "$tree" rev-parse "$1")" ]] ||
		git -C "$tree" checkout -q -f --detach "$1"
}

build_commit() {	# build_commit COMMIT LABEL [BINARY]: build, W=1, keep BINARY
	local c=$1 label=$2 bin=${3:-} out=$cache/build key blog
	key=$(build_key "$c" linux)
	blog=$cache/build-${label//[^A-Za-z0-9.]/-}.log
	mkdir -p "$cache/built"
	if [[ -f $cache/built/$key && ( -z $bin || -x $bin && $(cat "$bin.key" 2>/dev/null) == "$key" ) ]]; then
		pass "$label builds (built before: this tree, config and compiler)"
	else
		checkout "$c"
		configure "$out"
		if ! make -C "$tree" ARCH=um O="$out" -j"$jobs" linux >"$blog" 2>&1; then
			tail -40 "$blog"
			fail "$label: kernel build failed (log: $blog)"
			return 1
		fi
		if grep -E '^(\.\./)?[^ ]*(fs/jbd2/|fs/ext4/super\.c|include/linux/jbd2\.h).*warning:' "$blog"; then
			# Rebuilt next time, so that the warnings show again.
			rm -f "$out"/fs/jbd2/*.o "$out/fs/ext4/super.o"
			fail "$label: warnings in fs/jbd2 or fs/ext4/super.c (log: $blog)"
			return 1
		fi
		: >"$cache/built/$key"
		if [[ -n $bin ]]; then
			cp "$out/linux" "$bin.new" && mv -f "$bin.new" "$bin"
			printf '%s\n' "$key" >"$bin.key"
		fi
		pass "$label builds ($(($(now) - t_build)) s)"
	fi
	[[ $w1 -eq 1 && $stock -eq 0 ]] || return 0
	build_w1 "$c" "$label"
}

# fs/jbd2 and ext4's super.o at W=1 (extra warnings and kernel-doc), in a
# build directory of their own so that the main build keeps its objects.
# Without the KUnit option recovery.c is built (and its kernel-doc
# checked) as itself, as in a production kernel; recovery_test.o is then
# built on its own where the commit has it.
build_w1() {	# build_w1 COMMIT LABEL
	local c=$1 label=$2 out=$cache/build-w1 key blog
	local -a targets=(fs/jbd2/ fs/ext4/super.o)
	key=$(build_key "$c" w1)
	blog=$cache/build-w1-${label//[^A-Za-z0-9.]/-}.log
	if [[ -f $cache/built/$key && -f $blog ]]; then
		pass "$label: W=1 fs/jbd2, fs/ext4/super.o: no warnings (built before)"
		return 0
	fi
	checkout "$c"
	configure "$out" "# CONFIG_JBD2_KUNIT_TEST is not set"
	[[ ! -e $tree/fs/jbd2/recovery_test.c ]] || targets+=(fs/jbd2/recovery_test.o)
	if ! make -C "$tree" ARCH=um O="$out" -j"$jobs" W=1 "${targets[@]}" \
	     >"$blog" 2>&1; then
		tail -40 "$blog"
		fail "$label: W=1 build failed (log: $blog)"
		return 1
	fi
	# Warnings count in the files the series has changed by this commit
	# (the stock files' own W=1 warnings are not the series').
	local changed
	changed=$(git -C "$tree" diff --name-only pristine "$c" |
		  grep -E '\.[ch]$' | sed 's/\./\\./g' | paste -sd '|' -)
	if [[ -n $changed ]] && grep -E 'warning:' "$blog" | grep -E "$changed"; then
		# Recompiled next time, so that the warnings show again.
		rm -f "$out"/fs/jbd2/*.o "$out/fs/ext4/super.o"
		fail "$label: W=1 fs/jbd2, fs/ext4/super.o: warnings (log: $blog)"
		return 1
	fi
	: >"$cache/built/$key"
	pass "$label: W=1 fs/jbd2, fs/ext4/super.o: no warnings"
}

# Every commit of the series, in order; the last one's kernel is kept as
# $cache/linux-patched for KUnit and the image tests, and those of the
# steps stock_differs names as $cache/linux-step-N (N: the patch).
build_series() {
	local i n=${#commits[@]} label bin
	kernel=$cache/linux-patched
	for ((i = 0; i < n; i++)); do
		label="patch $((i + 1))/$n"
		t_build=$(now)
		if [[ $((i + 1)) -lt $n ]]; then
			if [[ $last_only -eq 1 ]]; then
				log "  $label: not built (--last-only)"
				continue
			fi
			bin=""
			if [[ $steps -eq 1 && -n ${stock_differs[${step_names[$i]}]+set} ]]; then
				bin=$cache/linux-step-$((i + 1))
			fi
			build_commit "${commits[$i]}" "$label" $bin || true
		else
			build_commit "${commits[$i]}" "$label" "$kernel" ||
				die "the last commit does not build"
		fi
	done
}

# checkpatch from the tree itself: 0 errors and 0 warnings but for
# "does MAINTAINERS need updating?" on new files (fs/jbd2/ is covered).
checkpatch() {
	local p out rest
	for p in $(series_patches); do
		out=$(perl "$tree/scripts/checkpatch.pl" --no-tree -q \
		      --no-signoff "$p" 2>&1 || true)
		rest=$(grep -E '^(ERROR|WARNING)' <<<"$out" |
		       grep -v 'does MAINTAINERS need updating' || true)
		if [[ -z $rest ]]; then
			pass "checkpatch ${p##*/}"
		else
			printf '%s\n' "$out" | sed 's/^/    /'
			fail "checkpatch ${p##*/}"
		fi
	done
}

# ------------------------------------------------------------ results
npass=0
nfail=0
cur_step=""	# the step whose kernel run_one checks against stock
pass() { npass=$((npass + 1)); log "PASS $*"; }
fail() { nfail=$((nfail + 1)); log "FAIL $*"; }

# ------------------------------------------------------------ UML
boot() {	# boot KERNEL LOG IMAGE INIT [kernel args...]
	local kernel=$1 blog=$2 img=$3 init=$4 rc=0
	shift 4
	# The inner sh reports a kernel that died of a signal (a panic) into
	# the log, not onto the terminal.
	sh -c '"$@"; exit $?' sh timeout 300 "$kernel" mem=256M \
		ubd0="$img" root=/dev/root rootfstype=hostfs rootflags=/ rw \
		init="$init" con=null con0=fd:0,fd:1 "$@" \
		</dev/null >"$blog" 2>&1 || rc=$?
	sed -i 's/\r$//' "$blog"
	return $rc
}

run_kunit() {
	local blog=$cache/kunit.log init=$cache/run/halt.sh out
	mkdir -p "$cache/run"
	printf '#!/bin/sh\n/sbin/poweroff -f || poweroff -f\n' >"$init"
	chmod +x "$init"
	: >"$cache/run/empty.img"
	truncate -s 1M "$cache/run/empty.img"
	boot "$kernel" "$blog" "$cache/run/empty.img" "$init" \
		kunit.filter_glob='jbd2_recovery*' || true
	out=$(grep -E '^ *(not )?ok [0-9]+ ' "$blog" | sed 's/^ *//' || true)
	local n_ok n_bad
	n_ok=$(grep -cE '^ok [0-9]+ test_' <<<"$out" || true)
	n_bad=$(grep -cE '^not ok [0-9]+ test_' <<<"$out" || true)
	if [[ $n_ok -gt 0 && $n_bad -eq 0 ]] && grep -qE '^ok [0-9]+ jbd2_recovery' <<<"$out"; then
		pass "KUnit jbd2_recovery: $n_ok test cases passed"
	else
		grep -E 'jbd2_recovery|not ok|Expected|ASSERT|EXPECT' "$blog" | head -40 || true
		fail "KUnit jbd2_recovery: $n_ok ok, $n_bad not ok (log: $blog)"
	fi
}

# ------------------------------------------------------------ images
# Filesystem blocks the tests log start here; mke2fs leaves them free in
# the 64 MiB images (the journal and metadata end near block 2100).
B=12000

mkfs() {	# mkfs IMG BLOCKS JOURNAL_MB [mke2fs -O features]
	rm -f "$1"
	mke2fs -q -F -t ext4 -b 4096 -U 2e8a6b0c-1d3f-4e5a-9b7c-8d9e0f1a2b3c \
		-E lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0 \
		-J size="$3" ${4:+-O "$4"} "$1" "$2"
}

# mkdata FILE LABEL N: N 4 KiB blocks, each saying LABEL and its index.
mkdata() {
	local i
	for ((i = 0; i < $3; i++)); do
		printf '%-4095s\n' "$2 [$i]"
	done >"$1"
}

# Put N blocks of LABEL straight into the filesystem at BLOCK.
ondisk() {	# ondisk IMG BLOCK N LABEL
	mkdata "$work/ondisk" "$4" "$3"
	dd if="$work/ondisk" of="$1" bs=4096 seek="$2" conv=notrunc \
		status=none
}

# Journal writers.  Each recipe describes its transactions once, one a
# line: "b BLOCK,BLOCK,... LABEL" logs those blocks (content made by
# mkdata), "e BLOCK LABEL" logs one block whose data starts with the
# journal magic number (escaped in the log), "r BLOCK,..." revokes.
# jwrite IMG CSUM [first-tid=N] [async] <<lines writes them and
# jbreak IMG OP ARGS damages one place, with the project's own writer
# (e2journal write / corrupt) when misc/e2journal has it, else with
# debugfs (jo/jw/jc) and jtool.py.
pick_writer() {
	case $writer in
	e2journal|debugfs) return 0 ;;
	"") ;;
	*) die "--writer: e2journal or debugfs" ;;
	esac
	if "$e2journal" write --help >/dev/null 2>&1 &&
	   "$e2journal" corrupt --help >/dev/null 2>&1; then
		writer=e2journal
	else
		writer=debugfs
	fi
}

jwrite() {	# jwrite IMG CSUM [first-tid=N] [async] <<lines
	local img=$1 csum=$2 opt first="" async=0
	shift 2
	for opt in "$@"; do
		case $opt in
		first-tid=*) first=${opt#first-tid=} ;;
		async) async=1 ;;
		esac
	done
	if [[ $writer == e2journal ]]; then
		ej_write "$img" "$csum" "$first" "$async"
	else
		[[ -z $first ]] || $jtool "$img" set-sequence "$first"
		dfs_write "$img" "$csum"
		[[ $async -eq 0 ]] || $jtool "$img" set-async
	fi
}

# 5,6,7,9 -> 5-7,9 (spec file lines of e2journal write are short).
to_ranges() {
	tr ',' '\n' <<<"$1" | awk '
		NR == 1 { lo = hi = $1; next }
		$1 == hi + 1 { hi = $1; next }
		{ out = out (out ? "," : "") (lo == hi ? lo : lo "-" hi); lo = hi = $1 }
		END { print out (out ? "," : "") (lo == hi ? lo : lo "-" hi) }'
}

ej_write() {	# ej_write IMG CSUM FIRST_TID ASYNC <<lines
	local img=$1 kind blocks label n=0 spec=$work/spec
	local -a args=(--csum "$2")
	[[ -z $3 ]] || args+=(--first-tid "$3")
	[[ $4 -eq 0 ]] || args+=(--async-commit)
	while read -r kind blocks label; do
		[[ -z $kind ]] && continue
		n=$((n + 1))
		echo "txn"
		case $kind in
		b)
			mkdata "$work/d$n" "$label" \
				"$(tr ',' '\n' <<<"$blocks" | wc -l)"
			echo "block $(to_ranges "$blocks") file:$work/d$n" ;;
		e)	echo "block $blocks magic:0x20" ;;
		r)	echo "revoke $(to_ranges "$blocks")" ;;
		esac
		echo "commit"
	done >"$spec"
	"$e2journal" write "${args[@]}" -f "$spec" "$img" >"$work/write.log" 2>&1 || {
		cat "$work/write.log" >&2
		die "e2journal write failed on $img"
	}
}

dfs_write() {	# dfs_write IMG CSUM <<lines
	local img=$1 csum=$2 kind blocks label n=0 cmds=$work/dfs.cmds
	{
		if [[ $csum == v3 ]]; then echo "jo -c"; else echo "jo"; fi
		while read -r kind blocks label; do
			[[ -z $kind ]] && continue
			n=$((n + 1))
			case $kind in
			b)
				mkdata "$work/d$n" "$label" \
					"$(tr ',' '\n' <<<"$blocks" | wc -l)"
				echo "jw -b $blocks $work/d$n" ;;
			e)
				{ printf '\xc0\x3b\x39\x98'; printf '%-4092s' "$label"; } \
					>"$work/d$n"
				echo "jw -b $blocks $work/d$n" ;;
			r)	echo "jw -r $blocks" ;;
			esac
		done
		echo "jc"
	} >"$cmds"
	debugfs -w -f "$cmds" "$img" >"$work/dfs.log" 2>&1 ||
		die "debugfs failed on $img"
	if grep -qiE 'error|not open|usage' "$work/dfs.log"; then
		cat "$work/dfs.log" >&2
		die "debugfs reported errors writing $img"
	fi
}

# jbreak IMG OP ARGS: commit-csum TID, commit-garble TID, commit-torn TID
# (garbage after the first sector), data-flip TID N, descr-csum TID,
# tag-block TID N BLOCK.
jbreak() {
	local img=$1 op=$2 tid=$3
	local -a c=("$e2journal" corrupt "$img")
	if [[ $writer != e2journal ]]; then
		[[ $op == descr-csum ]] && op=descr-flip
		$jtool "$img" "$op" "${@:3}"
		return
	fi
	case $op in
	commit-csum)	c+=(commit-csum --tid "$tid") ;;
	commit-garble)	c+=(commit-header --tid "$tid" --index 0) ;;
	commit-torn)	c+=(torn-commit --tid "$tid") ;;
	data-flip)	c+=(data --tid "$tid" --index "$4" --byte 2048) ;;
	descr-csum)	c+=(descr-csum --tid "$tid") ;;
	tag-block)	c+=(tag-out-of-range --tid "$tid" --index "$4" --value "$5") ;;
	*) die "jbreak: unknown operation $op" ;;
	esac
	"${c[@]}" >"$work/corrupt.log" 2>&1 || {
		cat "$work/corrupt.log" >&2
		die "e2journal corrupt $op failed on $img"
	}
}

# Every transaction written must be in the log with its commit block.
check_log() {	# check_log IMG NTXNS
	local n
	n=$($jtool "$1" layout | grep -c 'commit [0-9]' || true)
	[[ $n -eq $2 ]] || {
		$jtool "$1" layout >&2
		die "$1: $n committed transactions in the log, want $2"
	}
}

seq_csv() { seq -s, "$1" "$2"; }

# The seeds' first scenario: transactions 2-6, commit 4 bad, csum v3.
img_seed_commit4() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 first-tid=2 <<EOF
b $B,$((B + 1)),$((B + 50)) T2
b $((B + 2)),$((B + 3)),$((B + 50)) T3
b $((B + 4)),$((B + 5)),$((B + 50)) T4
b $((B + 6)),$((B + 7)),$((B + 50)) T5
b $((B + 8)),$((B + 9)),$((B + 50)) T6
EOF
	check_log "$1" 5
	jbreak "$1" commit-csum 4
}

# The seeds' second scenario: T1 creates a file (logs its metadata
# blocks M1, M2), T2 deletes it and revokes M1, M2, T3 reuses M1, M2 for
# file data (written in place, not logged) and logs other metadata.
# T2's commit is bad: replaying T1 without honouring T2's revoke records
# would overwrite the new data with stale metadata.
img_seed_revoke() {
	local m=$((B + 100))
	mkfs "$1" 16384 4
	ondisk "$1" "$m" 2 "T3 DATA in a reused block"
	jwrite "$1" v3 <<EOF
b $m,$((m + 1)),$((B + 110)) T1 METADATA
r $m,$((m + 1))
b $((B + 110)),$((B + 111)) T3 METADATA
EOF
	check_log "$1" 3
	jbreak "$1" commit-csum 2
}

# T2's first data block fails its tag checksum; T1 logged the same block.
img_bad_data_csum() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 <<EOF
b $((B + 200)),$((B + 201)) T1
b $((B + 200)),$((B + 202)) T2
b $((B + 203)) T3
EOF
	check_log "$1" 3
	jbreak "$1" data-flip 2 0
}

# T2's descriptor block fails its checksum.
img_bad_descr_csum() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 <<EOF
b $((B + 300)),$((B + 301)) T1
b $((B + 301)),$((B + 302)) T2
b $((B + 303)) T3
EOF
	check_log "$1" 3
	jbreak "$1" descr-csum 2
}

# T2's commit block lost its magic number; T3 and T4 follow intact.
img_garbled_commit() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 <<EOF
b $((B + 400)),$((B + 401)) T1
b $((B + 401)),$((B + 402)) T2
b $((B + 403)) T3
b $((B + 404)) T4
EOF
	check_log "$1" 4
	jbreak "$1" commit-garble 2
}

# async_commit: the last commit block's checksum fails (a torn write of
# the block that was to commit the last transaction).
img_async_torn() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 async <<EOF
b $((B + 500)),$((B + 501)) T1
b $((B + 501)),$((B + 502)) T2
b $((B + 502)),$((B + 503)) T3
EOF
	check_log "$1" 3
	jbreak "$1" commit-csum 3
}

# No async_commit: the last commit block was torn after its first
# sector, so only its header is new; the checksum over the header and
# zeros still holds (Linux 6.11 accepts such a commit, 6.1 does not).
img_torn_commit() {
	mkfs "$1" 16384 4
	jwrite "$1" v3 <<EOF
b $((B + 550)),$((B + 551)) T1
b $((B + 551)),$((B + 552)) T2
b $((B + 552)),$((B + 553)) T3
EOF
	check_log "$1" 3
	jbreak "$1" commit-torn 3
}

# No checksums: T1's second tag names block 1,048,576 of a 16,384-block
# filesystem.
img_tag_past_end() {
	mkfs "$1" 16384 4 ^metadata_csum
	jwrite "$1" none <<EOF
b $((B + 600)),$((B + 601)),$((B + 602)) T1
b $((B + 603)) T2
EOF
	check_log "$1" 2
	jbreak "$1" tag-block 1 1 1048576
}

# No checksums: T1's second tag names a block of the journal itself.
img_tag_in_journal() {
	local jblk
	mkfs "$1" 16384 4 ^metadata_csum
	jwrite "$1" none <<EOF
b $((B + 700)),$((B + 701)),$((B + 702)) T1
b $((B + 703)) T2
EOF
	check_log "$1" 2
	jblk=$(debugfs -R "bmap <8> 600" "$1" 2>/dev/null)
	echo "$jblk" >"${1%.img}.jblock"
	jbreak "$1" tag-block 1 1 "$jblk"
}

# 100,000 revoke records in 100 transactions, between two transactions
# that log blocks: the first one's blocks are revoked, the last one's
# later versions of half of them are not.
img_revoke_100k() {
	local k lo
	mkfs "$1" 131072 16
	{
		echo "b $(seq_csv 100000 100019) T1 BEFORE REVOKE"
		for ((k = 0; k < 100; k++)); do
			lo=$((20000 + k * 1000))
			echo "r $(seq_csv $lo $((lo + 999)))"
		done
		echo "b $(seq_csv 100010 100014) T102 AFTER REVOKE"
	} | jwrite "$1" v3
	check_log "$1" 102
}

# A healthy journal: 400 transactions over 200 blocks, some revoked,
# one escaped block (its data starts with the journal magic number).
img_healthy_many() {
	local t n i blocks
	mkfs "$1" 16384 16
	{
		for ((t = 1; t <= 400; t++)); do
			n=$((1 + t % 5))
			blocks=""
			for ((i = 0; i < n; i++)); do
				blocks+="${blocks:+,}$((B + 800 + (t * 7 + i * 31) % 200))"
			done
			if ((t == 200)); then
				echo "e $((B + 1000)) T$t ESCAPED"
			elif ((t % 50 == 0)); then
				echo "r $((B + 800 + t % 200)),$((B + 801 + t % 200))"
			else
				echo "b $blocks T$t"
			fi
		done
	} | jwrite "$1" v3
	check_log "$1" 400
}

all_tests="seed_commit4 seed_revoke bad_data_csum bad_descr_csum garbled_commit
async_torn torn_commit tag_past_end tag_in_journal revoke_100k healthy_many"

# ------------------------------------------------------------ expectations
# expect TEST POLICY MOUNT ERRSTATE PATTERN...
#   MOUNT: rw, ro or fail.  ERRSTATE: yes if dumpe2fs must show the
#   error state afterwards, no if it must not.  Each PATTERN is an
#   extended regexp that must match a line of the console log; a
#   PATTERN starting with ! must match none.
declare -A exp_mount exp_err exp_pat

expect() {
	local key="$1/$2"
	exp_mount[$key]=$3
	exp_err[$key]=$4
	shift 4
	local p pats=""
	for p in "$@"; do
		pats+="$p"$'\n'
	done
	exp_pat[$key]=$pats
}

corrupt_msg='EXT4-fs error \(device ubda\): ext4_journal_replay_error: journal is corrupt from transaction'
noflag="!EXT4-fs error|JBD2: .*corrupt"

expect seed_commit4 replay-all rw yes \
	'JBD2: ubda-8: transaction 4: bad commit block checksum' \
	"$corrupt_msg 4 on; replayed what could be trusted of 5 transactions up to 6" \
	'JBD2: journal on ubda-8 is corrupt \(bad commit block checksum, first in transaction 4\); replayed 5 transactions up to 6 under recovery_policy=replay-all'
expect seed_commit4 stop fail no \
	'JBD2: journal transaction 4 on ubda-8 is corrupt\.' \
	'EXT4-fs \(ubda\): error loading journal'
expect seed_commit4 refuse fail no \
	'JBD2: journal on ubda-8 is corrupt \(bad commit block checksum, first in transaction 4\); nothing replayed under recovery_policy=refuse' \
	'EXT4-fs \(ubda\): error loading journal'

expect seed_revoke replay-all rw yes \
	'JBD2: ubda-8: transaction 2: bad commit block checksum' \
	"$corrupt_msg 2 on; replayed what could be trusted of 3 transactions up to 3"
expect seed_revoke stop fail no \
	'JBD2: journal transaction 2 on ubda-8 is corrupt\.'
expect seed_revoke refuse fail no \
	'nothing replayed under recovery_policy=refuse'

expect bad_data_csum replay-all rw yes \
	"JBD2: Invalid checksum recovering data block $((B + 200)) in log" \
	"$corrupt_msg 2 on"
expect bad_data_csum stop fail no \
	"JBD2: Invalid checksum recovering data block $((B + 200)) in log" \
	'JBD2: (journal )?recovery failed'
expect bad_data_csum refuse fail no \
	'corrupt \(bad data block checksum, first in transaction 2\); nothing replayed'

expect bad_descr_csum replay-all rw yes \
	'JBD2: ubda-8: transaction 2: 1 of 1 descriptor blocks fail their checksum; the blocks they describe are not written' \
	"$corrupt_msg 2 on"
expect bad_descr_csum stop fail no 'JBD2: (journal )?recovery failed'
expect bad_descr_csum refuse fail no \
	'corrupt \(bad descriptor block checksum, first in transaction 2\); nothing replayed'

expect garbled_commit replay-all rw yes \
	'JBD2: ubda-8: transaction 2: garbled block in the middle of the log' \
	"$corrupt_msg 2 on; replayed what could be trusted of 4 transactions up to 4"
expect garbled_commit stop rw no "$noflag"
expect garbled_commit refuse fail no \
	'corrupt \(garbled block in the middle of the log, first in transaction 2\); nothing replayed'

for p in replay-all stop refuse; do
	expect revoke_100k $p rw no "$noflag"
	expect healthy_many $p rw no "$noflag"
done
# A torn last async commit is tolerated (replay-all, refuse); "stop"
# flags it as e2journal --policy stop does, where 6.1 says nothing.
for p in replay-all refuse; do
	expect async_torn $p rw no "$noflag" \
		'JBD2: ubda-8: transaction 3: last commit block torn \(async_commit\), transaction not replayed'
done
expect async_torn stop rw yes \
	'JBD2: journal on ubda-8 is corrupt \(bad commit block checksum, first in transaction 3\); replayed 2 transactions up to 2 under recovery_policy=stop' \
	"$corrupt_msg 3 on"
# A commit torn after its header: complete for replay-all and refuse;
# "stop" rejects it as e2fsprogs 1.47 and Linux 6.1 do.
for p in replay-all refuse; do
	expect torn_commit $p rw no "$noflag"
done
expect torn_commit stop fail no \
	'JBD2: journal transaction 3 on ubda-8 is corrupt\.'

outside="JBD2: block 1048576 logged in transaction 1 is outside the filesystem or inside the journal; not written"
for p in replay-all stop; do
	expect tag_past_end $p rw yes "$outside" "$corrupt_msg 1 on" \
		'JBD2: ubda-8: transaction 1 names block 1048576, past the end of the filesystem device \(16384 blocks\)' \
		'!Out of memory'
done
expect tag_past_end refuse fail no \
	'corrupt \(block outside the filesystem or inside the journal, first in transaction 1\); nothing replayed'
for p in replay-all stop; do
	expect tag_in_journal $p rw yes \
		'JBD2: block [0-9]+ logged in transaction 1 is outside the filesystem or inside the journal; not written' \
		'JBD2: ubda-8: transaction 1 names block [0-9]+, a block of the journal itself' \
		"$corrupt_msg 1 on"
done
expect tag_in_journal refuse fail no 'nothing replayed under recovery_policy=refuse'

# errors= behaviour, seed_commit4 under replay-all.
expect seed_commit4@remount-ro replay-all ro yes \
	"$corrupt_msg 4 on" 'EXT4-fs \(ubda\): mounting filesystem read-only'
expect seed_commit4@panic replay-all panic yes \
	"$corrupt_msg 4 on" 'Kernel panic - not syncing: EXT4-fs \(device ubda\): panic forced after error'

# ------------------------------------------------------------ steps
# The intermediate commits of the series boot on the same images as the
# stock kernel, each image under the three policies in one boot, and
# each mount must give what the stock kernel gives on that image
# (results-stock.tsv of the same run: mount outcome, superblock state,
# needs_recovery, which of e2journal's results the blocks match, the
# kernel's messages) but for the runs "TEST/POLICY" a step lists here:
# the rows it and the steps before it have introduced.  A step not
# listed is not image-tested (the last commit has its expectations
# above).  Patches 2-5 list nothing: no change in behaviour.
declare -A stock_differs
stock_differs[02-hooks]=""
stock_differs[03-helpers]=""
stock_differs[04-jread]=""
stock_differs[05-passes]=""
# Policy-blind steps (recovery.c does not read the parameter yet).
stock_differs[06-range]=$(echo {tag_past_end,tag_in_journal}/{replay-all,stop,refuse})
stock_differs[07-stop-flag]="${stock_differs[06-range]} $(echo async_torn/{replay-all,stop,refuse})"
# replay-all (and refuse, the same until 09) for commit blocks; under
# stop the "Invalid checksum found in transaction" line goes.
stock_differs[08-replay-all]="${stock_differs[07-stop-flag]} bad_descr_csum/stop"
stock_differs[08-replay-all]+=" $(echo {seed_commit4,seed_revoke,bad_data_csum,bad_descr_csum,torn_commit}/{replay-all,refuse})"
# 6.12: stop no longer takes a torn commit, and says "in log".
[[ $kver != 6.12 ]] ||
	stock_differs[08-replay-all]+=" torn_commit/stop bad_data_csum/stop"
stock_differs[09-garbled]="${stock_differs[08-replay-all]} garbled_commit/replay-all garbled_commit/refuse"
stock_differs[10-descriptors]=${stock_differs[09-garbled]}
stock_differs[11-refuse]=${stock_differs[10-descriptors]}
mapfile -t step_names < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/series/series")

# ------------------------------------------------------------ comparing
# Blocks whose content may legitimately differ between the kernel's
# result and e2journal's: superblocks, group descriptors (with reserved
# GDT blocks) and the journal.
excluded_blocks() {	# excluded_blocks IMG
	{
		dumpe2fs "$1" 2>/dev/null | sed -n \
			-e 's/.*superblock at \([0-9]*\), Group descriptors at \([0-9]*\)-\([0-9]*\).*/\1 \1\n\2 \3/p' \
			-e 's/.*Reserved GDT blocks at \([0-9]*\)-\([0-9]*\).*/\1 \2/p'
		debugfs -R "blocks <8>" "$1" 2>/dev/null | tr ' ' '\n' |
			sed -n 's/^\([0-9][0-9]*\)$/\1 \1/p'
	} | awk '{ for (b = $1; b <= $2; b++) print b }' | sort -u
}

# Filesystem blocks that differ between two images, minus excluded ones.
diff_blocks() {	# diff_blocks A B EXCLUDED_FILE
	cmp -l "$1" "$2" 2>/dev/null | awk '{ print int(($1 - 1) / 4096) }' |
		uniq | sort -u | comm -23 - "$3" | sort -n | head -20 || true
}

fs_state() {	# fs_state IMG: "clean", "clean with errors", ...
	dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem state: *//p'
}

needs_recovery() {
	dumpe2fs -h "$1" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery' &&
		echo yes || echo no
}

# ------------------------------------------------------------ running
# What a test image depends on: its recipe and the helpers recipes use,
# the writer (for e2journal: the sources of its write and corrupt
# commands, lib/journal and misc, which do not include recovery.c; for
# debugfs: jtool.py, the jfmt.py it imports, and the e2fsprogs version),
# mke2fs.
image_key() {	# image_key TEST
	{
		declare -f "img_$1" mkfs mkdata ondisk jwrite to_ranges ej_write \
			dfs_write jbreak check_log seq_csv excluded_blocks
		printf 'B=%s writer=%s\n' "$B" "$writer"
		mke2fs -V 2>&1 | head -1
		if [[ $writer == e2journal ]]; then
			cat "$top_srcdir"/lib/journal/*.[ch] "$top_srcdir"/misc/*.[ch]
		else
			debugfs -V 2>&1 | head -1
			cat "$here/jtool.py" "$top_srcdir/tests/gen/jfmt.py"
		fi
	} | cksum
}

# What e2journal's replay does depends on its code, not on its debug
# information or build ID (which change with a comment in recovery.c).
code_key() {	# code_key BINARY
	local tmp=$cache/code.$$
	if objcopy --strip-debug --remove-section=.note.gnu.build-id \
	   "$1" "$tmp" 2>/dev/null; then
		cksum <"$tmp"
	else
		cksum <"$1"
	fi
	rm -f "$tmp"
}

# Make each test image, with e2journal's result under each policy beside
# it.  An image is remade only when its key changes, and the results
# only when the image or e2journal's code changes, so a run after an
# edit of recovery.c replays the images again but does not rewrite them.
prepare_images() {
	local t p rc ikey rkey ekey made=0 replayed=0 t0
	pick_writer
	mkdir -p "$imgdir"
	rm -f "$imgdir/made.stamp"	# the single key of older versions
	ekey=$(code_key "$e2journal")
	for t in $tests; do
		t0=$(now)
		ikey=$(image_key "$t")
		if [[ $(cat "$imgdir/$t.key" 2>/dev/null) != "$ikey" ]]; then
			rm -rf "${imgdir:?}/$t".*
			work=$imgdir/$t.work
			mkdir -p "$work"
			"img_$t" "$imgdir/$t.img" >"$work/mkfs.log"
			excluded_blocks "$imgdir/$t.img" >"$imgdir/$t.excl"
			rm -rf "$work"
			printf '%s\n' "$ikey" >"$imgdir/$t.key"
			made=$((made + 1))
		fi
		rkey="$ikey $ekey"
		if [[ $(cat "$imgdir/$t.refkey" 2>/dev/null) != "$rkey" ]]; then
			rm -f "$imgdir/$t.refkey"
			for p in replay-all stop refuse; do
				cp --sparse=always "$imgdir/$t.img" "$imgdir/$t.ref-$p.img"
				rc=0
				"$e2journal" replay --policy "$p" "$imgdir/$t.ref-$p.img" \
					>"$imgdir/$t.ref-$p.txt" 2>&1 || rc=$?
				echo "$rc" >"$imgdir/$t.ref-$p.rc"
			done
			printf '%s\n' "$rkey" >"$imgdir/$t.refkey"
			replayed=$((replayed + 1))
		fi
		[[ $(now) -eq $t0 ]] || log "  $t: $(($(now) - t0)) s"
	done
	log "  $made images made ($writer), $replayed replayed by e2journal, the others unchanged"
}

# The init script the UML kernel runs: for each disk, in turn, set the
# recovery policy (the first comes from the kernel command line, the
# others are written to /sys/module/jbd2/parameters/recovery_policy, which
# a journal reads when it is created), mount, report, unmount; then halt.
# Markers "@@ begin K" and "@@ end K" delimit what mount K printed.
write_init() {	# write_init FILE MNT "DEV OPTS POLICY"...
	local file=$1 mnt=$2 e dev opts pol k=0
	local param=/sys/module/jbd2/parameters/recovery_policy
	shift 2
	{
		cat <<EOF
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
EOF
		for e in "$@"; do
			read -r dev opts pol <<<"$e"
			echo "echo '@@ begin $k'"
			[[ $k -eq 0 || $stock -eq 1 ]] || echo "echo $pol >$param"
			cat <<EOF
echo "@@ policy \$(cat $param 2>/dev/null || echo stock)"
if mount -t ext4 -o $opts /dev/$dev $mnt; then
	echo "@@ mount \$(awk '\$1 == "/dev/$dev" { split(\$4, o, ","); print o[1] }' /proc/mounts)"
	umount $mnt || echo "@@ umount failed"
else
	echo "@@ mount fail"
fi
echo "@@ done"
echo '@@ end $k'
EOF
			k=$((k + 1))
		done
		echo "poweroff -f"
	} >"$file"
	chmod +x "$file"
}

# One boot for the runs of one image: "TEST[@ERRORS] POLICY;..." (the
# same TEST), each on its own copy of the image (ubda, ubdb, ...), then
# the checks of each run on the part of the console log between its
# markers, where the disk is renamed ubda so that every run is checked
# against the same messages.
run_boot() {	# run_boot "SPEC POLICY;SPEC POLICY;..."
	local -a members args=() entries=()
	local m spec policy t errors opts img k=0 rc=0 t0 secs
	local letters=abcdefgh
	IFS=';' read -ra members <<<"$1"
	read -r spec policy <<<"${members[0]}"
	local base=$rundir/${spec//@/-}.$policy
	local blog=$base.boot.log init=$base.init mnt=$base.mnt
	for m in "${members[@]}"; do
		read -r spec policy <<<"$m"
		t=${spec%@*}
		errors=""
		[[ $spec == *@* ]] && errors=${spec#*@}
		opts=noatime,noinit_itable${errors:+,errors=$errors}
		img=$rundir/${spec//@/-}.$policy.img
		cp --sparse=always "$imgdir/$t.img" "$img"
		[[ $k -eq 0 ]] || args+=("ubd$k=$img")
		entries+=("ubd${letters:k:1} $opts $policy")
		k=$((k + 1))
	done
	mkdir -p "$mnt"
	write_init "$init" "$mnt" "${entries[@]}"
	read -r spec policy <<<"${members[0]}"
	t0=$(date +%s%N)
	boot "$kernel" "$blog" "$rundir/${spec//@/-}.$policy.img" "$init" \
		kunit.enable=0 jbd2.recovery_policy="$policy" "${args[@]}" || rc=$?
	secs=$(( ($(date +%s%N) - t0) / 1000000 ))
	secs=$((secs / 1000)).$(printf '%03d' $((secs % 1000)))
	secs+=" s"
	[[ $k -eq 1 ]] || secs+=" for $k mounts"
	k=0
	for m in "${members[@]}"; do
		read -r spec policy <<<"$m"
		awk -v k="$k" '$0 == "@@ begin " k { on = 1 } on { print }
			$0 == "@@ end " k { on = 0 }' "$blog" |
			sed -E 's/\bubd[b-h]\b/ubda/g' \
			>"$rundir/${spec//@/-}.$policy.log"
		run_one "$spec" "$policy" "$rc" "$secs"
		k=$((k + 1))
	done
}

# run_one TEST[@ERRORS] POLICY RC SECS: check everything about one
# mount, once its boot (run_boot) is over.
run_one() {
	local spec=$1 policy=$2 t=${1%@*} key="$1/$2" name rc=$3 secs=$4
	name="$spec/$policy"
	local img=$rundir/${spec//@/-}.$policy.img
	local blog=$rundir/${spec//@/-}.$policy.log
	local got state nr bad p diffs okref

	got=$(sed -n 's/^@@ mount //p' "$blog" | tail -1)
	if grep -q 'Kernel panic - not syncing' "$blog"; then
		got=panic
	elif ! grep -q '^@@ done' "$blog"; then
		got="no-end(rc=$rc)"
	fi
	state=$(fs_state "$img")
	nr=$(needs_recovery "$img")

	if [[ $stock -eq 1 || -n $cur_step ]]; then
		# Which of e2journal's results (or none) the blocks match.
		okref=""
		for p in replay-all stop refuse; do
			diffs=$(diff_blocks "$img" "$imgdir/$t.ref-$p.img" "$imgdir/$t.excl")
			[[ -z $diffs ]] && okref+="${okref:+,}$p"
		done
		[[ -z $(diff_blocks "$img" "$imgdir/$t.img" "$imgdir/$t.excl") ]] &&
			okref+="${okref:+,}original"
		record "$name" "$got" "$state" "$nr" "${okref:-none}" "$blog"
	fi
	if [[ $stock -eq 1 ]]; then
		# Record what the stock kernel does; nothing is expected of it.
		pass "$name: recorded (mount $got, state '$state', blocks = ${okref:-none}, boot ${secs})"
		return 0
	fi
	if [[ -n $cur_step ]]; then
		step_compare "$name" "$t" "$policy" "$(tail -1 "$results" | cut -f2-)"
		return 0
	fi

	bad=""
	[[ -n ${exp_mount[$key]:-} ]] || { fail "$name: no expectation"; return 0; }
	[[ $(sed -n 's/^@@ policy //p' "$blog") == "$policy" ]] ||
		bad+="recovery_policy was not $policy; "
	[[ $got == "${exp_mount[$key]}" ]] ||
		bad+="mount: got $got, want ${exp_mount[$key]}; "
	if [[ ${exp_err[$key]} == yes ]]; then
		[[ $state == *error* ]] || bad+="state '$state' lacks errors; "
	else
		[[ $state != *error* ]] || bad+="state '$state' has errors; "
	fi
	if [[ $got == fail ]]; then
		[[ $nr == yes ]] || bad+="needs_recovery cleared after a failed mount; "
	elif [[ $got == rw || $got == ro ]]; then
		[[ $nr == no ]] || bad+="needs_recovery still set; "
	fi
	while IFS= read -r p; do
		[[ -z $p ]] && continue
		if [[ $p == !* ]]; then
			if grep -qE -- "${p#!}" "$blog"; then
				bad+="unexpected message /${p#!}/: $(grep -E -m1 -- "${p#!}" "$blog"); "
			fi
		elif ! grep -qE -- "$p" "$blog"; then
			bad+="missing message /$p/; "
		fi
	done <<<"${exp_pat[$key]}"

	# What e2journal did under the same policy must match, block for block.
	local refrc
	refrc=$(cat "$imgdir/$t.ref-$policy.rc")
	case "$refrc/${exp_err[$key]}/$got" in
	0/no/*|1/yes/*|4/no/fail|1/no/fail) ;;
	*) bad+="e2journal --policy $policy exited $refrc; " ;;
	esac
	diffs=$(diff_blocks "$img" "$imgdir/$t.ref-$policy.img" "$imgdir/$t.excl")
	[[ -z $diffs ]] ||
		bad+="blocks differ from e2journal --policy $policy: $(echo $diffs); "

	check_extra "$t" "$policy" "$img" || bad+="$extra_bad"

	record "$name" "$got" "$state" "$nr" "e2journal" "$blog"
	if [[ -z $bad ]]; then
		pass "$name: mount $got, state '$state' (boot ${secs})"
	else
		fail "$name: $bad(log: $blog)"
	fi
}

# Run every boot given ("SPEC POLICY;..." as run_boot takes), up to $jobs
# at a time (a boot spends much of its time waiting).  Each runs in a
# subshell that writes its PASS/FAIL lines and its results lines to files
# of its own; they are shown and counted in order.
run_all() {
	local -a runs=("$@")
	local n=$# next=0 shown=0 running=0
	while ((shown < n)); do
		while ((next < n && running < jobs)); do
			(
				results=$rundir/rec.$next
				: >"$results"
				run_boot "${runs[$next]}"
				: >"$rundir/done.$next"
			) >"$rundir/out.$next" 2>&1 &
			next=$((next + 1))
			running=$((running + 1))
		done
		wait -n || true
		running=$((running - 1))
		while ((shown < next)); do
			# A run that died (die, a signal) leaves no done file:
			# once nothing is running, show it as failed.
			[[ -e $rundir/done.$shown ]] || ((running == 0 && next == n)) ||
				break
			show_run "$shown" "${runs[$shown]}"
			shown=$((shown + 1))
		done
	done
}

show_run() {	# show_run INDEX "SPEC POLICY;..."
	local out=$rundir/out.$1 n
	cat "$out"
	n=$(grep -c '^PASS ' "$out" || true)
	npass=$((npass + n))
	n=$(grep -c '^FAIL ' "$out" || true)
	nfail=$((nfail + n))
	[[ -e $rundir/done.$1 ]] || fail "${2//;/, }: the boot did not finish"
	cat "$rundir/rec.$1" >>"$results" 2>/dev/null || true
	rm -f "$out" "$rundir/rec.$1" "$rundir/done.$1"
}

# Checks of block content that say what the scenario is about, beyond
# agreeing with e2journal.
extra_bad=""
block_says() {	# block_says IMG BLOCK TEXT
	dd if="$1" bs=4096 skip="$2" count=1 status=none | head -c 200 |
		grep -qF -- "$3"
}
check_extra() {	# check_extra TEST POLICY IMG
	local t=$1 p=$2 img=$3
	extra_bad=""
	case "$t/$p" in
	seed_revoke/replay-all)
		block_says "$img" $((B + 100)) "T3 DATA in a reused block" ||
			extra_bad+="the reused block lost its data; "
		block_says "$img" $((B + 111)) "T3 METADATA" ||
			extra_bad+="T3 was not replayed; " ;;
	seed_revoke/stop)
		# What stopping early costs: T1's stale metadata over the data.
		block_says "$img" $((B + 100)) "T1 METADATA" ||
			extra_bad+="stop did not replay T1; " ;;
	seed_commit4/replay-all)
		block_says "$img" $((B + 50)) "T6 [2]" ||
			extra_bad+="the last version of the shared block is not T6's; " ;;
	bad_data_csum/replay-all)
		block_says "$img" $((B + 200)) "T1 [0]" ||
			extra_bad+="the bad block did not keep T1's version; " ;;
	tag_in_journal/*)
		local jb
		jb=$(cat "$imgdir/$t.jblock")
		cmp -s <(dd if="$img" bs=4096 skip="$jb" count=1 status=none) \
		       <(dd if="$imgdir/$t.img" bs=4096 skip="$jb" count=1 status=none) ||
			extra_bad+="journal block $jb was overwritten; " ;;
	healthy_many/*)
		dd if="$img" bs=4096 skip=$((B + 1000)) count=1 status=none |
			head -c 4 | od -An -tx1 | grep -q 'c0 3b 39 98' ||
			extra_bad+="the escaped block lacks its magic number; " ;;
	esac
	[[ -z $extra_bad ]]
}

# A step's mount against the stock kernel's mount of the same image.
step_compare() {	# step_compare NAME TEST POLICY "FIELDS 2-6 OF ITS RECORD"
	local name="$cur_step: $1" want
	want=$(awk -F'\t' -v n="$2/replay-all" '$1 == n' "$stock_results" | cut -f2-)
	if [[ -z $want ]]; then
		fail "$name: the stock kernel's result is missing"
	elif [[ " $(echo ${stock_differs[$cur_step]}) " == *" $2/$3 "* ]]; then
		if [[ $4 == "$want" ]]; then
			pass "$name: as stock (the step may change it)"
		else
			pass "$name: changed by the series so far, as listed: $(cut -f1-4 <<<"$4" | tr '\t' ' ')"
		fi
	elif [[ $4 == "$want" ]]; then
		pass "$name: as stock ($(cut -f1-4 <<<"$4" | tr '\t' ' '))"
	else
		fail "$name: differs from stock: got [$4], stock [$want] (log: $rundir/${2}.$3.log)"
	fi
}

# One line per run in $results, for kernel/README.md's table.
record() {	# record NAME MOUNT STATE NEEDS_RECOVERY BLOCKS LOG
	local msgs
	msgs=$(grep -E 'JBD2:|EXT4-fs (error|\(ubda\): (error|mounting|recovery))|Kernel panic' "$6" |
		grep -vE '^\[|^@@' | sed 's/ *$//' | sort -u | head -6 | paste -sd '|' - || true)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$msgs" >>"$results"
}

# The stock kernel, then each step stock_differs names, on every image:
# the stock kernel once per image (it has no policy), a step under each
# policy in one boot.
run_steps() {
	local i t k n=${#commits[@]} w1=0
	local -a sruns=() runs=()
	stock_results=$cache/results-stock.tsv
	t_build=$(now)
	build_commit pristine "stock $kver" "$cache/linux-stock" ||
		{ fail "the stock kernel does not build: no step tests"; return 0; }
	for t in $tests; do
		sruns+=("$t replay-all")
		runs+=("$t replay-all;$t stop;$t refuse")
	done
	kernel=$cache/linux-stock rundir=$cache/run-stock results=$stock_results stock=1
	rm -rf "$rundir"
	mkdir -p "$rundir"
	: >"$results"
	run_all "${sruns[@]}"
	stock=0
	step "stock kernel's results (results: $stock_results)"
	for ((i = 0; i < n - 1; i++)); do
		cur_step=${step_names[$i]}
		[[ -n ${stock_differs[$cur_step]+set} ]] || continue
		k=$cache/linux-step-$((i + 1))
		if [[ ! -x $k || $(cat "$k.key" 2>/dev/null) != "$(build_key "${commits[$i]}" linux)" ]]; then
			fail "patch $((i + 1)) ($cur_step): no kernel built of it"
			continue
		fi
		kernel=$k rundir=$cache/run-step-$((i + 1))
		results=$cache/results-step-$((i + 1)).tsv
		rm -rf "$rundir"
		mkdir -p "$rundir"
		: >"$results"
		run_all "${runs[@]}"
		step "patch $((i + 1)) ($cur_step) against stock (results: $results)"
	done
	cur_step=""
}

# ------------------------------------------------------------ the probe
# uml_probe KERNEL: can this host run KERNEL's user space?  (Not on AMX
# hosts: UML 6.1 and 6.12 hand ptrace a 2696-byte FPU buffer, see
# doc/testing.md.)  Prints tests/crash/uml-probe.py's one line; where the
# answer is no, the boot tests are skipped: the counts so far are
# printed and the script exits, 1 when a check failed, else 0 when
# CI=true or E2J_ALLOW_SKIP=1, else 77.  Never a pass of a boot that did
# not run.
uml_probe() {
	local line rc=0
	line=$(python3 "$top_srcdir/tests/crash/uml-probe.py" "$1") || rc=$?
	log "$line"
	[[ $rc -eq 0 ]] && return 0
	log "check-kernel: SKIP the boot tests on damaged images: this host does not run the kernel's user space"
	echo "$npass passed, $nfail failed (boot tests skipped: ${line#uml-probe: })"
	[[ $nfail -eq 0 ]] || exit 1
	if [[ ${CI:-} == true || ${E2J_ALLOW_SKIP:-0} == 1 ]]; then
		exit 0
	fi
	exit 77
}

# ------------------------------------------------------------ main
# All in one function, read whole before it runs: editing this file
# while it runs does not change what a running check does.
main() {
	if [[ $only_tests == list ]]; then
		echo $all_tests
		return 0
	fi
	# a given kernel: nothing to build, the boots are all there is
	[[ -z $kernel_bin ]] || uml_probe "$kernel_bin"
	need_pkgs
	[[ -x $e2journal ]] || die "$e2journal not built (make misc/e2journal)"
	mkdir -p "$cache"
	# Kernel build directories record absolute paths (build*/source,
	# every .cmd file): follow a symlinked cache to where it really is,
	# so that reaching it by another path does not rebuild everything.
	topcache=$(cd "$topcache" && pwd -P)
	cache=$topcache/$kver
	tree=$cache/git
	amtree=$cache/am
	log "Linux $kver: $tarball"
	step "tools ready"
	unpack
	step "source unpacked"

	if [[ -n $kernel_bin ]]; then
		kernel=$(cd "$(dirname "$kernel_bin")" && pwd)/$(basename "$kernel_bin")
		[[ -x $kernel ]] || die "$kernel_bin: not an executable kernel"
		log "testing $kernel"
	elif [[ $stock -eq 1 ]]; then
		kernel=$cache/linux-stock
		t_build=$(now)
		build_commit pristine "stock $kver" "$kernel" ||
			die "the stock kernel does not build"
		step "stock kernel built"
	else
		check_series
		apply_series
		step "series applied"
		checkpatch
		step "checkpatch run"
		build_series
		step "every commit built"
		if [[ $kunit -eq 1 ]]; then
			run_kunit
			step "KUnit run"
		fi
	fi

	# the builds, checkpatch and KUnit (no user space) ran; the boots
	# below need the kernel's user space
	uml_probe "$kernel"
	step "user space probed"

	tests=${only_tests:-$all_tests}
	imgdir=$topcache/images
	rundir=$cache/run-$([[ $stock -eq 1 ]] && echo stock || echo patched)
	results=$cache/results-$([[ $stock -eq 1 ]] && echo stock || echo patched).tsv
	rm -rf "$rundir"
	mkdir -p "$rundir"
	: >"$results"
	prepare_images
	step "test images made"

	local -a runs=()
	for t in $tests; do
		if [[ $stock -eq 1 ]]; then
			runs+=("$t replay-all")
			continue
		fi
		# One boot mounts the image under each policy, on three
		# copies; errors=panic needs a boot of its own.
		if [[ $t == seed_commit4 ]]; then
			runs+=("$t replay-all;$t stop;$t refuse;$t@remount-ro replay-all")
			runs+=("seed_commit4@panic replay-all")
		else
			runs+=("$t replay-all;$t stop;$t refuse")
		fi
	done
	run_all "${runs[@]}"
	step "tests run (results: $results)"

	if [[ $stock -eq 0 && -z $kernel_bin && $steps -eq 1 && $last_only -eq 0 ]]; then
		run_steps
	fi

	echo "$npass passed, $nfail failed"
	[[ $nfail -eq 0 ]]
}

main "$@"; exit $?
