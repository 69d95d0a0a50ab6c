#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# maintscripts.sh: debian/e2journal.postinst and postrm in a dpkg sandbox
# (DPKG_ROOT and DPKG_ADMINDIR, which dpkg-divert honours and dpkg sets
# for maintainer scripts under --root/--instdir): nothing of this machine
# is touched, no root needed.  debconf is a stub that answers the
# question from $answer and logs db_stop; update-initramfs is a stub that
# logs its run.  The cases:
#  1. the administrator already diverted /sbin/fsck.ext4 by hand (the
#     README's "dpkg-divert --local --rename --add"): opting in must not
#     fail; that diversion and its file are left as they are (and it says
#     so), fsck.ext2/3 are diverted and linked;
#  2. dpkg-reconfigure, opting in then out: db_stop before
#     update-initramfs; out gives back e2fsprogs' files byte for byte;
#  3. postrm remove after opting in: the same.
# Run by make check and by make check-package.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v dpkg-divert >/dev/null 2>&1 || { echo "SKIP: no dpkg-divert (not Debian)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/e2j-maint.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }

# the scripts, with debconf's confmodule replaced by the stub
for s in postinst postrm; do
	sed "s#^\. /usr/share/debconf/confmodule\$#. $work/confmodule#" \
		"$top_srcdir/debian/e2journal.$s" >"$work/$s"
done
cat >"$work/confmodule" <<'STUB'
db_get() { RET=$answer; }
db_stop() { echo db_stop >>"$log"; }
db_input() { :; }
db_go() { :; }
STUB
mkdir -p "$work/bin"
cat >"$work/bin/update-initramfs" <<'STUB'
#!/bin/sh
echo "update-initramfs $*" >>"$log"
STUB
chmod 755 "$work/bin/update-initramfs"

root=$work/root
log=$work/log
export log
# fresh: e2fsprogs' three fsck links (here: files of known content)
fresh() {
	rm -rf "$root"
	mkdir -p "$root/sbin" "$root/var/lib/dpkg"
	: >"$root/var/lib/dpkg/diversions"
	for t in ext2 ext3 ext4; do
		echo "e2fsprogs fsck.$t" >"$root/sbin/fsck.$t"
	done
	(cd "$root/sbin" && cat fsck.ext2 fsck.ext3 fsck.ext4) >"$work/orig"
	: >"$log"
}
# maint SCRIPT ARGS...: run it as dpkg would below $root
maint() {
	s=$1
	shift
	DPKG_ROOT=$root DPKG_ADMINDIR=$root/var/lib/dpkg \
		PATH=$work/bin:$PATH answer=$answer \
		sh "$work/$s" "$@" >"$work/out" 2>&1
}
divert() {
	DPKG_ROOT=$root DPKG_ADMINDIR=$root/var/lib/dpkg dpkg-divert "$@"
}
by() { divert --listpackage "$1"; }
linked() { [ -L "$root$1" ] && [ "$(readlink "$root$1")" = /usr/sbin/e2jfsck ]; }
restored() {
	(cd "$root/sbin" && cat fsck.ext2 fsck.ext3 fsck.ext4 2>/dev/null) |
		cmp -s - "$work/orig"
}

# 1. a local diversion of fsck.ext4 made by hand, then opting in
fresh
divert --local --rename --add /sbin/fsck.ext4 >/dev/null
echo "the admin's own" >"$root/sbin/fsck.ext4"
answer=true
maint postinst configure
rc=$?
[ $rc = 0 ] || { fail "opt in over a local diversion: exit $rc"; cat "$work/out"; }
[ "$(by /sbin/fsck.ext4)" = LOCAL ] || fail "the local diversion of fsck.ext4 was changed"
[ "$(cat "$root/sbin/fsck.ext4")" = "the admin's own" ] ||
	fail "the admin's fsck.ext4 was changed"
grep -q "fsck.ext4 is already diverted (a local diversion)" "$work/out" ||
	fail "the postinst did not say it left fsck.ext4 alone"
for t in ext2 ext3; do
	[ "$(by /sbin/fsck.$t)" = e2journal ] && linked /sbin/fsck.$t ||
		fail "fsck.$t not diverted and linked beside a local fsck.ext4"
done
[ $fails = 0 ] && pass "opting in beside a local diversion of fsck.ext4"
# and out again: ext2/3 back, the local diversion still there
answer=false
maint postinst configure || fail "opt out: exit $?"
[ "$(by /sbin/fsck.ext4)" = LOCAL ] || fail "opting out removed the local diversion"
[ "$(cat "$root/sbin/fsck.ext2")" = "e2fsprogs fsck.ext2" ] ||
	fail "opting out did not give fsck.ext2 back"

# 2. dpkg-reconfigure: in (initramfs rebuilt after db_stop), then out
n=$fails
fresh
answer=true
DEBCONF_RECONFIGURE=1 maint postinst configure || fail "reconfigure in: exit $?"
for t in ext2 ext3 ext4; do
	[ "$(by /sbin/fsck.$t)" = e2journal ] && linked /sbin/fsck.$t ||
		fail "reconfigure in: fsck.$t not diverted and linked"
	[ "$(cat "$root/sbin/fsck.$t.e2fsprogs")" = "e2fsprogs fsck.$t" ] ||
		fail "reconfigure in: e2fsprogs' fsck.$t not kept aside"
done
[ "$(cat "$log")" = "db_stop
update-initramfs -u" ] || fail "reconfigure in: want db_stop then update-initramfs, got: $(cat "$log")"
: >"$log"
answer=false
DEBCONF_RECONFIGURE=1 maint postinst configure || fail "reconfigure out: exit $?"
for t in ext2 ext3 ext4; do
	[ -z "$(by /sbin/fsck.$t)" ] || fail "reconfigure out: fsck.$t still diverted"
done
restored || fail "reconfigure out: e2fsprogs' files not back byte for byte"
[ "$(cat "$log")" = "db_stop
update-initramfs -u" ] || fail "reconfigure out: want db_stop then update-initramfs, got: $(cat "$log")"
# configure again with no change: no initramfs rebuild
: >"$log"
DEBCONF_RECONFIGURE=1 maint postinst configure || fail "reconfigure, no change: exit $?"
[ "$(cat "$log")" = db_stop ] || fail "reconfigure with no change ran: $(cat "$log")"
[ $fails = $n ] && pass "dpkg-reconfigure in and out, db_stop before update-initramfs"

# 3. opted in, then the package removed
n=$fails
fresh
answer=true
maint postinst configure || fail "opt in: exit $?"
maint postrm remove || fail "postrm remove: exit $?"
for t in ext2 ext3 ext4; do
	[ -z "$(by /sbin/fsck.$t)" ] || fail "postrm: fsck.$t still diverted"
done
restored || fail "postrm: e2fsprogs' files not back byte for byte"
[ $fails = $n ] && pass "postrm remove gives e2fsprogs' links back"

echo "maintscripts: $fails failed"
[ $fails = 0 ]
