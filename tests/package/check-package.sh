#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-package.sh SRCDIR [BUILDDIR]: "make check-package" (doc/packaging.md).
#
# As root on Debian 12, on a machine whose packages it may change (it
# installs and purges ours, and a kernel when none is there):
#  1. dpkg-buildpackage -b -us -uc in a clean clone of SRCDIR (its build
#     runs make check; E2J_PKG_NOCHECK=1 skips that);
#  2. lintian --pedantic on the result: no error, warning or pedantic tag;
#     debian/'s maintainer scripts in a dpkg sandbox (maintscripts.sh);
#  3. installs the packages beside e2fsprogs: e2fsprogs' files unchanged,
#     "dpkg -V e2fsprogs" clean, fsck.ext4 still e2fsprogs';
#  4. opts in (debconf + dpkg-reconfigure): the three diversions and links;
#  5. builds an initramfs with mkinitramfs, unpacks it with unmkinitramfs
#     and, chrooted into it, runs initramfs-tools' own _checkfs_once (the
#     boot-time "logsave ... fsck -a -T -t ext4 DEV") on a loop device
#     holding the demonstration image (scripts/demo-image.sh): all five
#     transactions replayed, the damage in the fsck log, fsck's exit 1;
#  6. opts out: e2fsprogs' files back byte for byte, dpkg -V clean;
#  7. opts in again and purges: the same.
# Prints each step's time; ends with "N passed, N failed".
set -u
src=$(cd "${1:?usage: check-package.sh SRCDIR [BUILDDIR]}" && pwd)
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export DEBIAN_FRONTEND=noninteractive

if [ "$(id -u)" != 0 ]; then
	echo "check-package: run as root (it installs packages)" >&2
	exit 77
fi
if ! [ -r /etc/debian_version ]; then
	echo "check-package: Debian only" >&2
	exit 77
fi

work=$(mktemp -d /var/tmp/e2j-package.XXXXXX)
passes=0
fails=0
loopdev=
kernel_pkg=
chroot_dir=
made_conf=no

pass() { passes=$((passes + 1)); echo "PASS: $*"; }
fail() { fails=$((fails + 1)); echo "FAIL: $*"; }
check() { # check WHAT CMD...
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
step() { printf '\n=== %s\n' "$*"; t0=$(date +%s.%N); }
took() { awk -v a="$t0" -v b="$(date +%s.%N)" -v w="$1" \
	'BEGIN { printf "    (%s: %.1f s)\n", w, b - a }'; }

our_pkgs="e2journal libe2journal0 libe2journal-dev"

cleanup() {
	set +e
	if [ -n "$chroot_dir" ] && mountpoint -q "$chroot_dir/proc"; then
		umount "$chroot_dir/proc"
	fi
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	for p in $our_pkgs e2journal-dbgsym libe2journal0-dbgsym; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
			apt-get purge -y -q "$p" >/dev/null 2>&1
		fi
	done
	[ "$made_conf" = yes ] && rm -f /etc/e2fsck.conf
	if [ -n "$kernel_pkg" ] && [ "${E2J_PKG_KEEP_KERNEL:-0}" != 1 ]; then
		echo "check-package: purging $kernel_pkg (installed for the test)"
		# shellcheck disable=SC2086
		apt-get purge -y -q $kernel_pkg >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# e2fsprogs' files as they are: each path with its sha256 (regular
# files) or its link target (symlinks), and the diversions.
e2fsprogs_state() {
	local f
	dpkg-query -L e2fsprogs | sort | while read -r f; do
		if [ -L "$f" ]; then
			echo "$f -> $(readlink "$f")"
		elif [ -f "$f" ]; then
			echo "$f $(sha256sum <"$f" | cut -d' ' -f1)"
		fi
	done
	dpkg-divert --list | grep -e fsck -e e2journal | sort
}
dpkg_v_clean() {
	local out
	out=$(dpkg -V e2fsprogs 2>&1)
	[ -z "$out" ] || { echo "$out" | sed 's/^/    /'; return 1; }
}
same_state() { # same_state FILE: e2fsprogs' files are as FILE recorded
	e2fsprogs_state >"$work/state.now"
	diff -u "$1" "$work/state.now" | sed 's/^/    /'
	cmp -s "$1" "$work/state.now"
}
fsck_is_ours() {
	local t
	for t in ext2 ext3 ext4; do
		[ "$(readlink -f /sbin/fsck.$t)" = /usr/sbin/e2jfsck ] || return 1
		[ "$(dpkg-divert --listpackage /sbin/fsck.$t)" = e2journal ] ||
			return 1
		[ "$(readlink /sbin/fsck.$t.e2fsprogs)" = e2fsck ] || return 1
	done
}
fsck_is_e2fsprogs() {
	local t
	for t in ext2 ext3 ext4; do
		[ "$(readlink /sbin/fsck.$t)" = e2fsck ] || return 1
		[ -z "$(dpkg-divert --listpackage /sbin/fsck.$t)" ] || return 1
		[ ! -e /sbin/fsck.$t.e2fsprogs ] || return 1
	done
}
opt() { # opt true|false
	echo "e2journal e2journal/fsck-links boolean $1" | debconf-set-selections
	dpkg-reconfigure -f noninteractive e2journal >"$work/reconf.log" 2>&1
}

step "Tools: debhelper, lintian, initramfs-tools, fakeroot, dpkg-dev"
need=""
for p in debhelper lintian initramfs-tools fakeroot dpkg-dev git \
		build-essential; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		need="$need $p"
done
if [ -n "$need" ]; then
	echo "installing$need"
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $need >/dev/null
fi
sh "$src/scripts/deps.sh"
took tools

step "dpkg-buildpackage -b -us -uc in a clean clone"
if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
	git clone -q "$src" "$work/e2journal"
	echo "clone of $(git -C "$src" rev-parse --short HEAD) (uncommitted changes are not in it)"
else
	cp -a "$src" "$work/e2journal"
fi
dbo=${DEB_BUILD_OPTIONS:-}
[ "${E2J_PKG_NOCHECK:-0}" = 1 ] && dbo="$dbo nocheck"
if (cd "$work/e2journal" && DEB_BUILD_OPTIONS=$dbo dpkg-buildpackage -b -us -uc) \
		>"$work/build.log" 2>&1; then
	pass "dpkg-buildpackage"
else
	fail "dpkg-buildpackage (last lines of its log:)"
	tail -40 "$work/build.log" | sed 's/^/    /'
	exit 1
fi
took dpkg-buildpackage
grep -E '^(# )?(PASS|FAIL|TOTAL|# TOTAL|# PASS|# FAIL)' "$work/build.log" |
	grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR)' | sed 's/^/    make check: /'
ls "$work"/*.deb | sed 's|.*/|    |'
for p in $our_pkgs; do
	check "package $p built" sh -c "ls '$work/${p}_'*.deb >/dev/null"
done
check "libe2journal0 has a symbols file" \
	sh -c "dpkg-deb --ctrl-tarfile $work/libe2journal0_*.deb | tar -t | grep -q symbols"

step "maintainer scripts in a dpkg sandbox"
# a local diversion made before opting in, dpkg-reconfigure in and out
# (db_stop before update-initramfs), postrm remove
if top_srcdir=$work/e2journal sh "$work/e2journal/tests/package/maintscripts.sh" \
		>"$work/maint.txt" 2>&1; then
	pass "maintainer scripts: prior local diversion, reconfigure, remove"
else
	fail "maintainer scripts (tests/package/maintscripts.sh:)"
fi
sed 's/^/    /' "$work/maint.txt"
took "maintainer scripts"

step "lintian"
lintian --pedantic --fail-on none "$work"/*.changes >"$work/lintian.txt" 2>&1
sed 's/^/    /' "$work/lintian.txt"
nerr=$(grep -c '^E: ' "$work/lintian.txt")
nwarn=$(grep -c '^W: ' "$work/lintian.txt")
nped=$(grep -c '^P: ' "$work/lintian.txt")
echo "    lintian --pedantic: $nerr error(s), $nwarn warning(s), $nped pedantic tag(s)"
check "lintian --pedantic: 0 errors, 0 warnings, 0 pedantic tags" \
	test "$nerr$nwarn$nped" = 000
took lintian

step "install beside e2fsprogs"
e2fsprogs_state >"$work/state.before"
check "dpkg -V e2fsprogs clean before" dpkg_v_clean
check "fsck.ext2/3/4 are e2fsprogs' before" fsck_is_e2fsprogs
# a kernel for mkinitramfs, installed before our packages so that its
# own initramfs is built without them
kver=$(ls /lib/modules 2>/dev/null | sort -V | tail -1)
if [ -z "$kver" ]; then
	kernel_pkg=linux-image-$(dpkg --print-architecture)
	echo "no kernel in /lib/modules: installing $kernel_pkg for the test"
	t1=$(date +%s)
	apt-get install -y -q --no-install-recommends "$kernel_pkg" \
		>"$work/kernel.log" 2>&1 || { tail "$work/kernel.log"; fail "install $kernel_pkg"; exit 1; }
	echo "    ($kernel_pkg: $(($(date +%s) - t1)) s)"
	kver=$(ls /lib/modules | sort -V | tail -1)
	# the image package itself too: apt never autoremoves a kernel
	kernel_pkg="$kernel_pkg linux-image-$kver"
	e2fsprogs_state >"$work/state.before"
fi
echo "kernel version for mkinitramfs: $kver"
if [ ! -e /etc/e2fsck.conf ]; then
	printf '[options]\n\tjournal_policy = replay-all\n' >/etc/e2fsck.conf
	made_conf=yes
fi
if apt-get install -y -q "$work"/e2journal_*.deb "$work"/libe2journal0_*.deb \
		"$work"/libe2journal-dev_*.deb >"$work/install.log" 2>&1; then
	pass "apt-get install our packages"
else
	fail "apt-get install our packages"
	tail -20 "$work/install.log" | sed 's/^/    /'
	exit 1
fi
check "e2jfsck installed and runs" /usr/sbin/e2jfsck -V
check "e2fsprogs' files unchanged by the install" same_state "$work/state.before"
check "dpkg -V e2fsprogs clean after install" dpkg_v_clean
check "fsck.ext2/3/4 still e2fsprogs' (not opted in)" fsck_is_e2fsprogs
took install

step "opt in (debconf e2journal/fsck-links = true, dpkg-reconfigure)"
check "dpkg-reconfigure (opt in)" opt true
check "fsck.ext2/3/4 are e2jfsck, e2fsprogs' diverted aside" fsck_is_ours
check "dpkg -V e2fsprogs clean while opted in" dpkg_v_clean
dpkg-divert --list | grep e2journal | sed 's/^/    /'
took "opt in"

step "mkinitramfs, unmkinitramfs"
conf=$work/initramfs-conf
cp -a /etc/initramfs-tools "$conf"
# the root file system's type as the fsck hook would read it from
# fstab (this machine's may be a container's); only the modules listed
sed -i -e 's/^FSTYPE=.*/FSTYPE=ext4/' -e 's/^MODULES=.*/MODULES=list/' \
	"$conf/initramfs.conf"
if mkinitramfs -d "$conf" -o "$work/initrd.img" "$kver" >"$work/mkinitramfs.log" 2>&1; then
	pass "mkinitramfs"
else
	fail "mkinitramfs"
	sed 's/^/    /' "$work/mkinitramfs.log"
fi
sed 's/^/    /' "$work/mkinitramfs.log"
took mkinitramfs
t0=$(date +%s.%N)
unmkinitramfs "$work/initrd.img" "$work/unpacked"
root=$work/unpacked
[ -d "$root/main" ] && root=$root/main
took unmkinitramfs
for f in bin/sh sbin/fsck sbin/logsave sbin/fsck.ext4 usr/sbin/e2jfsck \
		sbin/e2fsck etc/e2fsck.conf scripts/functions; do
	check "initramfs holds /$f" test -e "$root/$f"
done
# (the initramfs has no readlink: its links are relative, ln -rs)
check "initramfs: fsck.ext4 is e2jfsck" \
	test "$(readlink -f "$root/sbin/fsck.ext4")" = \
		"$(readlink -f "$root")/usr/sbin/e2jfsck"
check "initramfs: the engine is e2fsprogs' e2fsck" \
	cmp -s "$root/sbin/e2fsck" /sbin/e2fsck

step "boot-time fsck in the initramfs (initramfs-tools' _checkfs_once) on a loop device"
img=$work/demo.img
sh "$src/scripts/demo-image.sh" "$img" | sed 's/^/    /'
cp --sparse=always "$img" "$work/stock.img"
loopdev=$(losetup -f --show "$img")
echo "    $img on $loopdev"
chroot_dir=$root
cp -a "$loopdev" "$root/dev/" 2>/dev/null || {
	mkdir -p "$root/dev" && cp -a "$loopdev" "$root/dev/"; }
mkdir -p "$root/proc" "$root/run/initramfs"
mount -t proc proc "$root/proc"
t0=$(date +%s.%N)
# the boot scripts' settings for an ordinary boot (quiet, no fsck.mode)
chroot "$root" /bin/sh -c '
	. /scripts/functions
	quiet=y fastboot=n forcefsck=n fsckfix= debug=
	_checkfs_once "$1" / ext4
	echo "checkfs returned $? FSCKCODE=$FSCKCODE"
	echo "--- /run/initramfs/fsck.log:"
	cat /run/initramfs/fsck.log
	[ -e /run/initramfs/fsck-root ] && echo "stamp /run/initramfs/fsck-root written"
' sh "$loopdev" >"$work/boot.log" 2>&1
took "fsck in the initramfs"
sed 's/^/    /' "$work/boot.log"
umount "$root/proc"
losetup -d "$loopdev"
loopdev=
check "boot fsck exit code 1 (errors corrected, boot goes on)" \
	grep -q "FSCKCODE=1$" "$work/boot.log"
check "boot fsck ran e2jfsck: the damage is in the fsck log" \
	grep -q "journal transaction 3 was corrupt; replayed it and 2 later" "$work/boot.log"
check "boot fsck wrote the stamp file" grep -q "stamp .* written" "$work/boot.log"
notes=$(debugfs -R 'cat /notes.txt' "$img" 2>/dev/null | tr -d '\0')
echo "    notes.txt now says: $notes"
check "all five transactions replayed (notes.txt from transaction 5)" \
	test "$notes" = "version from transaction 5"
check "a second e2fsck -fn finds the file system clean" \
	sh -c "/sbin/e2fsck -fn '$img' >'$work/second.log' 2>&1"
# e2fsprogs' e2fsck on the same image, for comparison
rc=0
/sbin/e2fsck -a "$work/stock.img" >"$work/stock.log" 2>&1 || rc=$?
echo "    for comparison, e2fsprogs' e2fsck -a: exit $rc, notes.txt says:" \
	"$(debugfs -R 'cat /notes.txt' "$work/stock.img" 2>/dev/null | tr -d '\0')"

step "opt out"
check "dpkg-reconfigure (opt out)" opt false
check "fsck.ext2/3/4 are e2fsprogs' again" fsck_is_e2fsprogs
check "e2fsprogs' files back byte for byte after opting out" \
	same_state "$work/state.before"
check "dpkg -V e2fsprogs clean after opting out" dpkg_v_clean
took "opt out"

step "opt in again, then purge"
check "dpkg-reconfigure (opt in again)" opt true
check "fsck.ext4 is e2jfsck again" fsck_is_ours
if apt-get purge -y -q $our_pkgs >"$work/purge.log" 2>&1; then
	pass "apt-get purge our packages"
else
	fail "apt-get purge our packages"
	tail -20 "$work/purge.log" | sed 's/^/    /'
fi
check "fsck.ext2/3/4 are e2fsprogs' after the purge" fsck_is_e2fsprogs
check "e2fsprogs' files back byte for byte after the purge" \
	same_state "$work/state.before"
check "dpkg -V e2fsprogs clean after the purge" dpkg_v_clean
check "the debconf answer is gone with the purge" \
	sh -c '! debconf-show e2journal 2>/dev/null | grep -q fsck-links'
took purge

echo
echo "check-package: $passes passed, $fails failed"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
