# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# e2fsprogs_src.sh: e2fsprogs 1.47.0's source for the checks that build it
# (tests/e2fsprogs/check-e2fsprogs.sh, e2fsprogs/check-e2fsprogs-series.sh):
# the tools to build it, Debian's source package fetched (with a deb-src
# entry added when there is none) or a given tree copied, the suite's
# test_config turned to journal_policy = stop, and the test lists read.
#
# Sourced by bash after scripts/steps.sh (log, die, pkgs_*).  Reads the
# caller's $install (1: apt-get may run, as root) and $source_dir (a tree
# to copy instead of fetching, or empty).
# shellcheck disable=SC2154

e2src_version=1.47.0
e2src_debversion=1.47.0-2

# e2src_need_pkgs [COMMAND:PACKAGE]...: the tools to fetch and build
# e2fsprogs, and those named, installed when missing (or die).
e2src_need_pkgs() {
	local missing=()
	pkgs_missing <<'EOF'
gcc build-essential
make build-essential
dpkg-source dpkg-dev
pkg-config pkg-config
xz xz-utils
gzip gzip
cmp diffutils
EOF
	[[ $# -eq 0 ]] || pkgs_missing < <(printf '%s\n' "${@/:/ }")
	# e2fsprogs' own libuuid is built when this is missing; the system's
	# is what Debian builds with
	dpkg-query -W -f='${Status}' uuid-dev 2>/dev/null |
		grep -q "install ok installed" || missing+=(uuid-dev)
	pkgs_install "${missing[@]}"
}

# Is there a deb-src line or a "Types: deb-src" stanza anywhere?
e2src_have_deb_src() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] && grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f" &&
			return 0
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] &&
			grep -Eiq '^[[:space:]]*Types:.*deb-src' "$f" && return 0
	done
	return 1
}

e2src_add_deb_src() {
	local f=/etc/apt/sources.list.d/e2journal-src.sources
	[[ $install -eq 1 && $(id -u) -eq 0 ]] ||
		die "no deb-src entry for apt-get source (run as root, or add one, or use --source DIR)"
	cat >"$f" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	log "$STEP_PROG: no deb-src entry found; added $f (Debian 12 bookworm main sources)"
	apt-get update -q >/dev/null
}

# e2src_apt_source DIR LOG: apt-get source of e2fsprogs into DIR.
e2src_apt_source() {
	(cd "$1" && apt-get source -q "e2fsprogs=$e2src_debversion") \
		>"$2" 2>&1
}

# e2src_fetch DEST CACHE: e2fsprogs' source unpacked in DEST, made as
# DEST.part and renamed when whole: a copy of $source_dir when it is set,
# else Debian's source package (apt-get source in CACHE/download, logged
# in CACHE/source.log; tried again after an apt-get update when apt-get
# may run, as a new machine may never have read its source indexes).
e2src_fetch() {
	local dest=$1 dl=$2/download log=$2/source.log
	rm -rf "$dest.part"
	if [[ -n $source_dir ]]; then
		[[ -x $source_dir/configure && -d $source_dir/tests ]] ||
			die "$source_dir is not an e2fsprogs source tree"
		grep -q "\"$e2src_version\"" "$source_dir/version.h" ||
			die "$source_dir is not e2fsprogs $e2src_version"
		log "$STEP_PROG: copying $source_dir"
		cp -a "$source_dir" "$dest.part"
		mv "$dest.part" "$dest"
		return 0
	fi
	e2src_have_deb_src || e2src_add_deb_src
	rm -rf "$dl"
	mkdir -p "$dl"
	# apt-get source drops privileges to _apt for the download
	chmod 777 "$dl" 2>/dev/null || true
	if ! e2src_apt_source "$dl" "$log"; then
		if [[ $install -eq 1 && $(id -u) -eq 0 ]]; then
			log "$STEP_PROG: apt-get source failed; apt-get update and retry"
			apt-get update -q >/dev/null
		fi
		if [[ $install -ne 1 || $(id -u) -ne 0 ]] ||
			! e2src_apt_source "$dl" "$log"; then
			tail -n 20 "$log" >&2
			die "apt-get source e2fsprogs=$e2src_debversion failed (see $log)"
		fi
	fi
	[[ -d $dl/e2fsprogs-$e2src_version ]] ||
		die "apt-get source unpacked no e2fsprogs-$e2src_version"
	mv "$dl/e2fsprogs-$e2src_version" "$dest.part"
	rm -rf "$dl"
	mv "$dest.part" "$dest"
}

# e2src_stop_config CACHE TESTS: CACHE/e2fsck-stop.conf saying
# journal_policy = stop, and CACHE/test_config.stop: the suite's
# TESTS/test_config with its E2FSCK_CONFIG pointed at that file.
e2src_stop_config() {
	local cache=$1 tests=$2
	printf '[options]\n\tjournal_policy = stop\n' >"$cache/e2fsck-stop.conf"
	sed -e "s;^E2FSCK_CONFIG=.*;E2FSCK_CONFIG=$cache/e2fsck-stop.conf;" \
		"$tests/test_config" >"$cache/test_config.stop"
	grep -q "^E2FSCK_CONFIG=$cache/e2fsck-stop.conf\$" "$cache/test_config.stop" ||
		die "the suite's test_config sets no E2FSCK_CONFIG to replace"
}

# e2src_list FILE: the test names of a list (tests/e2fsprogs/*.list), one
# a line, in its order; comments, blanks and empty lines dropped.
e2src_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$1"
}
