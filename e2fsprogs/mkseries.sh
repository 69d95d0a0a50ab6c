#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseries.sh - generate e2journal's patch series for e2fsprogs 1.47.0.
#
# The series is made, never edited by hand: a pristine e2fsprogs 1.47.0
# tree (Debian's source package, unpacked) is put under git, and each
# step of e2fsprogs/steps/NNNN-slug/ becomes one commit:
#
#   edits.diff   the step's hand-written changes (our code), applied with
#                patch -p1;
#   gen_NNNN     (a function below, if the step has one) what the step
#                takes from the project's files: step 0001 copies
#                e2fsck/recovery.c and writes the policy definitions of
#                lib/journal/jbd2_policy.h into lib/ext2fs/kernel-jbd.h;
#   message      the commit message.
#
# git format-patch then writes e2fsprogs/patches/ (a cover letter from
# steps/cover, one patch per step, and "series").  Dates and author are
# fixed and the commit ids zeroed, so the same inputs give the same bytes.
#
# The other way round, --save-edits TREE takes a tree made by --keep-tree
# in which the commits after the first were changed (git commit --amend,
# rebase -i) and writes each step's edits.diff back, without what the
# gen_NNNN functions generate.
#
# --policy-block prints the kernel-jbd.h block made from jbd2_policy.h
# (check-series.sh compares it with the one in the patch).
#
# --series master makes the other series, e2fsprogs/master/: bug fixes
# against e2fsprogs' master at the commit master/README.md names, one
# per step of master/steps/NNNN-slug/, whose edits.diff is "git diff
# --binary" output (tests carry small images) applied with git apply;
# no step has a generator function.  The source must be that commit:
# the files the steps change must have the blob ids master/base-blobs
# lists (mkseries.sh --series master --base-blobs DIR writes it).
#
# --series master-policy makes the third, e2fsprogs/master-policy/: the
# policy series of e2fsprogs/steps rebased on the same master commit
# (master-policy/README.md names it; master-policy/base-blobs): its
# steps are made as the 1.47.0 series' are (patch -p1, gen_NNNN), from a
# tree of that commit as --series master takes it.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
steps_dir=$here/steps
policy_h=$top_srcdir/lib/journal/jbd2_policy.h
recovery_c=$top_srcdir/e2fsck/recovery.c
version=1.47.0
series=1.47.0
master_dir=$here/master

GIT_AUTHOR_NAME="e2journal developer"
GIT_AUTHOR_EMAIL=dev@e2journal.invalid
GIT_AUTHOR_DATE="2026-12-04 12:00:00 +0000"
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
# no user or system git configuration changes what is written
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

usage() {
	cat <<'EOF'
Usage: mkseries.sh [--series master] --source DIR [--out DIR] [--keep-tree DIR]
       mkseries.sh [--series master] --save-edits TREE
       mkseries.sh --series master --base-blobs DIR
       mkseries.sh --policy-block

  --source DIR      a pristine e2fsprogs 1.47.0 tree (apt-get source
                    e2fsprogs=1.47.0-2, unpacked; its .pc/ is ignored)
  --out DIR         where the patches and "series" go
                    [e2fsprogs/patches next to this script]
  --keep-tree DIR   leave the git tree the series was made in at DIR
  --save-edits TREE write steps/*/edits.diff from the commits of TREE
  --policy-block    print the policy block kernel-jbd.h gets
  --series master   the bug-fix series for e2fsprogs master
                    (e2fsprogs/master/; --source is a tree of the commit
                    master/README.md names, e.g. a git checkout of it)
  --series master-policy
                    the policy series on that commit
                    (e2fsprogs/master-policy/; --source as for master)
  --base-blobs DIR  write master/base-blobs (master-policy/base-blobs)
                    from the tree DIR
EOF
}

die() {
	echo "mkseries: $*" >&2
	exit 1
}

# policy_block: the definitions of jbd2_policy.h between its include
# guard, under a comment that says where they come from.
policy_block() {
	[[ -f $policy_h ]] || die "$policy_h not found"
	printf '/*\n'
	printf ' * The corrupt-journal recovery policy: what recovery.c decides and\n'
	printf " * reports.  Generated from e2journal's lib/journal/jbd2_policy.h.\n"
	printf ' */\n'
	sed -n '/^#define E2JOURNAL_JBD2_POLICY_H/,/^#endif/p' "$policy_h" |
		sed -e '1d' -e '$d' | sed -e '1{/^$/d;}'
	printf '/* end of the corrupt-journal recovery policy */\n\n'
}

# strip_policy_block FILE: FILE without the block policy_block() wrote.
strip_policy_block() {
	awk '
		/^ \* The corrupt-journal recovery policy: what recovery.c decides and$/ &&
		    prev == "/*" { skip = 1; held = 0; next }
		skip && /^\/\* end of the corrupt-journal recovery policy \*\/$/ {
			skip = 2; next
		}
		skip == 2 && /^$/ { skip = 0; next }
		skip == 1 { next }
		{
			if (held) print prev
			prev = $0; held = 1
		}
		END { if (held) print prev }
	' "$1"
}

# ------------------------------------------------------------ generated parts
# gen_NNNN TREE: what step NNNN takes from the project's files.
gen_0001() {
	local kj=$1/lib/ext2fs/kernel-jbd.h block

	cp "$recovery_c" "$1/e2fsck/recovery.c"
	block=$(mktemp)
	policy_block >"$block"
	grep -q '^#endif	/\* _LINUX_JBD_H \*/$' "$kj" ||
		die "kernel-jbd.h has no closing #endif to put the policy before"
	awk -v f="$block" '
		/^#endif\t\/\* _LINUX_JBD_H \*\/$/ {
			while ((getline l < f) > 0) print l
		}
		{ print }
	' "$kj" >"$kj.new"
	mv "$kj.new" "$kj"
	rm -f "$block"
}

# strip_NNNN OLD NEW FILE: undo in NEW/FILE what gen_NNNN generated (so
# that the rest is the step's edits); return 1 to leave FILE out.
strip_0001() {
	case $3 in
	e2fsck/recovery.c) return 1 ;;
	lib/ext2fs/kernel-jbd.h)
		strip_policy_block "$2/$3" >"$2/$3.stripped"
		mv "$2/$3.stripped" "$2/$3"
		;;
	esac
	return 0
}

# ------------------------------------------------------------ master
# base_name: the commit the master series is made on, as
# master/README.md's "Base:" line names it.
base_name() {
	local c
	c=$(sed -n -e 's/^Base: e2fsprogs master \([0-9a-f]*\) .*$/\1/p' \
		"$master_dir/README.md")
	[[ -n $c ]] || die "master/README.md has no \"Base: e2fsprogs master\" line"
	echo "e2fsprogs master $c"
}

# base_files: the files the master series' steps change (before them).
base_files() {
	cat "$master_dir"/steps/[0-9][0-9][0-9][0-9]-*/edits.diff |
		sed -n -e 's|^--- a/\(.*\)$|\1|p' | sort -u
}

# check_base_blobs DIR: do DIR's files that the series changes have the
# blob ids of the base commit (master/base-blobs)?
check_base_blobs() {
	local f want got bad=0
	[[ -s $master_dir/base-blobs ]] || die "no master/base-blobs"
	while read -r want f; do
		got=$(git hash-object "$1/$f" 2>/dev/null || echo missing)
		if [[ $got != "$want" ]]; then
			echo "mkseries: $1/$f is $got, not $want" >&2
			bad=1
		fi
	done <"$master_dir/base-blobs"
	return $bad
}

# write_base_blobs DIR: master/base-blobs from DIR.
write_base_blobs() {
	local f
	base_files | while read -r f; do
		echo "$(git hash-object "$1/$f") $f"
	done >"$master_dir/base-blobs"
	echo "mkseries: ${master_dir#"$here"/}/base-blobs: $(wc -l <"$master_dir/base-blobs") file(s)"
}

# copy_source DIR TREE: DIR's source files (its git index's when DIR is a
# git work tree, so that build products stay behind) into TREE.
copy_source() {
	mkdir -p "$2"
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$1" && git ls-files -z | tar --null -T - -cf -) |
			(cd "$2" && tar -xf -)
	else
		cp -a "$1/." "$2"
		rm -rf "$2/.pc" "$2/.git"
	fi
}

# ------------------------------------------------------------ making it
steps() {
	find "$steps_dir" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9][0-9][0-9]-*' |
		sort
}

make_series() {
	local source=$1 out=$2 keep=$3 work tree step n

	[[ -x $source/configure && -f $source/e2fsck/recovery.c ]] ||
		die "$source is not an e2fsprogs source tree"
	work=$(mktemp -d "${TMPDIR:-/tmp}/mkseries.XXXXXX")
	if [[ $series != 1.47.0 ]]; then
		check_base_blobs "$source" || die "$source is not $(base_name)"
		tree=$work/e2fsprogs-master
		copy_source "$source" "$tree"
	else
		grep -q "\"$version\"" "$source/version.h" ||
			die "$source is not e2fsprogs $version"
		tree=$work/e2fsprogs-$version
		cp -a "$source" "$tree"
		rm -rf "$tree/.pc" "$tree/.git"
	fi
	(
		cd "$tree"
		git init -q
		git add -A
		if [[ $series != 1.47.0 ]]; then
			git commit -q --no-verify -m "$(base_name)"
		else
			git commit -q --no-verify -m "e2fsprogs $version (Debian 1.47.0-2)"
		fi
	)
	while read -r step; do
		n=$(basename "$step" | cut -c1-4)
		[[ -f $step/message ]] || die "$step has no message"
		if [[ $series == master && -s $step/edits.diff ]]; then
			(cd "$tree" && git apply --binary "$step/edits.diff") ||
				die "$step/edits.diff does not apply"
		elif [[ -s $step/edits.diff ]]; then
			(cd "$tree" && patch -p1 -s --no-backup-if-mismatch \
				-F0 <"$step/edits.diff") ||
				die "$step/edits.diff does not apply"
		fi
		if [[ $series != master ]] && declare -F "gen_$n" >/dev/null; then
			"gen_$n" "$tree"
		fi
		(
			cd "$tree"
			git add -A
			git commit -q --no-verify -F "$step/message"
		)
	done < <(steps)

	mkdir -p "$out"
	rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch "$out/series"
	(
		cd "$tree"
		binary=()
		[[ $series != master ]] || binary=(--binary)
		git format-patch -q --zero-commit --no-signature -B \
			"${binary[@]}" --cover-letter -o "$out" \
			HEAD~"$(steps | wc -l)"
	)
	cover "$out"/0000-cover-letter.patch
	(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$out/series"
	if [[ -n $keep ]]; then
		rm -rf "$keep"
		mv "$tree" "$keep"
	fi
	rm -rf "$work"
}

# cover FILE: put steps/cover into format-patch's cover letter template.
cover() {
	local subject body
	subject=$(head -n 1 "$steps_dir/cover")
	body=$(tail -n +3 "$steps_dir/cover")
	awk -v subject="$subject" -v body="$body" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { print body; next }
		{ print }
	' "$1" >"$1.new"
	mv "$1.new" "$1"
}

# save_edits TREE: each commit after TREE's first as steps/*/edits.diff.
save_edits() {
	local tree=$1 commits step n c f work
	commits=$(git -C "$tree" rev-list --reverse HEAD | tail -n +2)
	[[ $(printf '%s\n' "$commits" | wc -l) -eq $(steps | wc -l) ]] ||
		die "$tree has not one commit per step after its first"
	work=$(mktemp -d)
	paste -d' ' <(printf '%s\n' "$commits") <(steps) |
	while read -r c step; do
		n=$(basename "$step" | cut -c1-4)
		rm -rf "$work/a" "$work/b"
		mkdir -p "$work/a" "$work/b"
		: >"$step/edits.diff.new"
		if [[ $series == master ]]; then
			git -C "$tree" diff --binary "$c~1" "$c" \
				>"$step/edits.diff.new"
		fi
		[[ $series == master ]] ||
		git -C "$tree" diff --name-only "$c~1" "$c" | sort |
		while read -r f; do
			mkdir -p "$work/a/$(dirname "$f")" "$work/b/$(dirname "$f")"
			git -C "$tree" show "$c~1:$f" >"$work/a/$f" 2>/dev/null ||
				rm -f "$work/a/$f"
			git -C "$tree" show "$c:$f" >"$work/b/$f" 2>/dev/null ||
				rm -f "$work/b/$f"
			if [[ $series != master ]] &&
			   declare -F "strip_$n" >/dev/null; then
				"strip_$n" "$work/a" "$work/b" "$f" || continue
			fi
			(cd "$work" &&
				diff -uN --label "a/$f" --label "b/$f" "a/$f" "b/$f") \
				>>"$step/edits.diff.new" || true
		done
		mv "$step/edits.diff.new" "$step/edits.diff"
		git -C "$tree" log -1 --format=%B "$c" | sed -e '${/^$/d;}' \
			>"$step/message"
		echo "mkseries: $(basename "$step"): $(grep -c '^@@' "$step/edits.diff") hunk(s)"
	done
	rm -rf "$work"
}

source_dir=""
out=$here/patches
keep=""
mode=make
while [[ $# -gt 0 ]]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--source) source_dir=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--keep-tree) keep=$2; shift 2 ;;
	--save-edits) mode=save; source_dir=$2; shift 2 ;;
	--policy-block) mode=block; shift ;;
	--series)
		[[ $2 == master || $2 == master-policy || $2 == 1.47.0 ]] ||
			die "no series $2"
		series=$2; shift 2 ;;
	--base-blobs) mode=blobs; source_dir=$2; shift 2 ;;
	*) usage >&2; exit 16 ;;
	esac
done
if [[ $series == master-policy ]]; then
	master_dir=$here/master-policy
fi
if [[ $series != 1.47.0 ]]; then
	steps_dir=$master_dir/steps
	[[ $out != "$here/patches" ]] || out=$master_dir/patches
fi

case $mode in
block) policy_block ;;
blobs)
	[[ $series != 1.47.0 ]] ||
		die "--base-blobs is for --series master or master-policy"
	write_base_blobs "$(cd "$source_dir" && pwd)"
	;;
save) save_edits "$(cd "$source_dir" && pwd)" ;;
make)
	[[ -n $source_dir ]] || { usage >&2; exit 16; }
	mkdir -p "$out"
	make_series "$(cd "$source_dir" && pwd)" "$(cd "$out" && pwd)" "$keep"
	;;
esac
