#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-cross.sh ARCH: build e2journal for another Debian architecture
# (s390x: big-endian) with Debian's cross compiler, then run the unit tests
# and the tool-level tests (tests/run_jtests.sh and tests/e2fsck/*.sh)
# with every program of ours running under qemu-user.  "make check-cross
# ARCH=s390x" runs it; doc/testing.md says what it covers.
#
# Nothing is installed for the other architecture: its -dev packages (and
# e2fsprogs, for the engine) are fetched with "apt-get download" and
# unpacked into a sysroot.  Co-installing them as ARCH packages would need
# every Multi-Arch: same library at the very version the host has, which
# a bookworm host updated from bookworm-security does not have for
# s390x.  The engine, e2fsprogs' e2fsck for ARCH, runs under qemu too,
# through a small script our e2fsck is configured to exec.
#
# Environment: CROSS_DIR (work directory, default ./cross-ARCH, kept
# between runs: the packages are fetched once), JTESTS (patterns for
# run_jtests.sh, default all), MAKEFLAGS as usual.
set -eu

ARCH=${1:-s390x}
BIG=1
case $ARCH in
s390x)		TRIPLET=s390x-linux-gnu; QEMU=qemu-s390x-static ;;
ppc64)		TRIPLET=powerpc64-linux-gnu; QEMU=qemu-ppc64-static ;;
arm64)		TRIPLET=aarch64-linux-gnu; QEMU=qemu-aarch64-static; BIG= ;;
*)
	echo "check-cross: no recipe for ARCH=$ARCH (s390x, ppc64, arm64)" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
W=${CROSS_DIR:-$top/cross-$ARCH}
mkdir -p "$W"
W=$(cd "$W" && pwd)
SYSROOT=$W/sysroot
t0=$(date +%s)

say() {
	echo "check-cross: $*"
}

# ---- the toolchain and qemu (scripts/deps.sh installs them as root)
sh "$top/scripts/deps.sh" cross "$ARCH" "$TRIPLET"
command -v "$TRIPLET-gcc" >/dev/null && command -v "$QEMU" >/dev/null || {
	echo "check-cross: $TRIPLET-gcc or $QEMU missing" >&2
	exit 1
}

# ---- the sysroot: ARCH's libraries and headers, and its e2fsprogs
PKGS="libext2fs-dev libext2fs2 comerr-dev libcom-err2 uuid-dev libuuid1
libblkid-dev libcmocka-dev libcmocka0 e2fsprogs libblkid1 libss2"
# .done holds the list it was made from: a new package remakes it
if [ "$(cat "$SYSROOT/.done" 2>/dev/null)" != "$PKGS" ]; then
	rm -rf "$SYSROOT" "$W/debs"
	mkdir -p "$W/debs" "$SYSROOT"
	say "fetching $(echo $PKGS | wc -w) $ARCH packages"
	(cd "$W/debs" &&
	 apt-get download -q $(for p in $PKGS; do echo "$p:$ARCH"; done)) \
		>"$W/download.log" 2>&1 || {
		cat "$W/download.log" >&2
		exit 1
	}
	for d in "$W"/debs/*.deb; do
		dpkg-deb -x "$d" "$SYSROOT"
	done
	# absolute symlinks (libext2fs.so -> /lib/...) must stay inside
	find "$SYSROOT" -type l | while read -r l; do
		t=$(readlink "$l")
		case $t in
		/*) ln -sfn "$SYSROOT$t" "$l" ;;
		esac
	done
	printf '%s' "$PKGS" >"$SYSROOT/.done"
fi
LIBPATH=$SYSROOT/lib/$TRIPLET:$SYSROOT/usr/lib/$TRIPLET

# ---- wrappers: each program of ours, and the engine, under qemu.  A
# small native program rather than a script: it hands its own argv[0] on
# (qemu -0), so that messages name the program as the tests called it and
# our e2fsck's name reaches the engine it execs, as natively.
TB=$W/tb
mkdir -p "$TB/misc" "$TB/e2fsck"
cat >"$W/qwrap.c" <<'WRAP'
/* SPDX-License-Identifier: GPL-2.0 */
/* qwrap: run TARGET under QEMU with this program's argv[0] and args. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 10, sizeof(*av));
	int n = 0, i;

	if (!av)
		return 127;
	av[n++] = QEMU;
	av[n++] = "-L";
	av[n++] = PREFIX;
	av[n++] = "-E";
	av[n++] = "LD_LIBRARY_PATH=" LIBPATH;
	av[n++] = "-0";
	av[n++] = argv[0];
	av[n++] = TARGET;
	for (i = 1; i < argc; i++)
		av[n++] = argv[i];
	execvp(QEMU, av);
	fprintf(stderr, "qwrap: cannot run %s: %s\n", QEMU, strerror(errno));
	return 127;
}
WRAP
wrap() {	# wrap WRAPPER TARGET
	cc -O -Wall -DQEMU="\"$QEMU\"" -DPREFIX="\"/usr/$TRIPLET\"" \
		-DLIBPATH="\"$LIBPATH\"" -DTARGET="\"$2\"" \
		-o "$1" "$W/qwrap.c"
}
wrap "$TB/engine" "$SYSROOT/sbin/e2fsck"
wrap "$TB/misc/e2journal" "$W/src/misc/e2journal"
wrap "$TB/e2fsck/e2fsck" "$W/src/e2fsck/e2fsck"

# ---- the sources, as committed and as edited (tracked files only)
rm -rf "$W/src.new"
mkdir -p "$W/src.new"
(cd "$top" && git ls-files -z | xargs -0 cp -P --parents -t "$W/src.new")
if [ -d "$W/src" ] && [ -f "$W/src/Makefile" ]; then
	# keep the previous build's objects: copy only what changed
	(cd "$W/src.new" && find . -type f) | while read -r f; do
		cmp -s "$W/src.new/$f" "$W/src/$f" ||
			{ mkdir -p "$(dirname "$W/src/$f")" &&
			  cp -p "$W/src.new/$f" "$W/src/$f"; }
	done
	rm -rf "$W/src.new"
else
	rm -rf "$W/src"
	mv "$W/src.new" "$W/src"
fi

cd "$W/src"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
		[ Makefile.am -nt Makefile.in ]; then
	say "autoreconf"
	autoreconf -fi >"$W/autoreconf.log" 2>&1 ||
		{ cat "$W/autoreconf.log" >&2; exit 1; }
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
	say "configure --host=$TRIPLET"
	PKG_CONFIG_LIBDIR=$SYSROOT/usr/lib/$TRIPLET/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$SYSROOT \
	./configure --host="$TRIPLET" --disable-shared \
		--with-e2fsck-engine="$TB/engine" \
		CPPFLAGS="-I$SYSROOT/usr/include" \
		LDFLAGS="-L$SYSROOT/lib/$TRIPLET -L$SYSROOT/usr/lib/$TRIPLET -Wl,-rpath-link,$LIBPATH" \
		>"$W/configure.log" 2>&1 ||
		{ tail -30 "$W/configure.log" >&2; exit 1; }
fi
UNIT_TESTS=$(make -s cross-unit-tests)
say "building e2journal, e2fsck and the unit tests for $ARCH"
make -j2 misc/e2journal e2fsck/e2fsck $UNIT_TESTS >"$W/make.log" 2>&1 ||
	{ grep -E "error|Error" "$W/make.log" | head -30 >&2; exit 1; }
if grep -q "warning:" "$W/make.log"; then
	say "compiler warnings:"
	grep "warning:" "$W/make.log" | sort -u
fi
"$TB/misc/e2journal" --help >/dev/null 2>&1 || {
	echo "check-cross: misc/e2journal does not run under $QEMU" >&2
	exit 1
}
t1=$(date +%s)

# ---- the unit tests (cmocka), each under qemu
upass=0
ufail=0
for t in $UNIT_TESTS; do
	if $QEMU -L "/usr/$TRIPLET" -E "LD_LIBRARY_PATH=$LIBPATH" "./$t" \
			>"$W/$(basename "$t").log" 2>&1; then
		r=PASS
	else
		r=FAIL
	fi
	n=$(sed -n 's/^\[ *PASSED *\] \([0-9]*\) test.*/\1/p' \
		"$W/$(basename "$t").log" | tail -n 1)
	f=$(sed -n 's/^\[ *FAILED *\] \([0-9]*\) test.*/\1/p' \
		"$W/$(basename "$t").log" | tail -n 1)
	upass=$((upass + ${n:-0}))
	ufail=$((ufail + ${f:-0}))
	[ $r = PASS ] || [ -n "$f" ] || ufail=$((ufail + 1))
	echo "$r $t (${n:-0} passed${f:+, $f failed})"
	[ $r = PASS ] || tail -20 "$W/$(basename "$t").log"
done
say "unit tests on $ARCH: $upass passed, $ufail failed"
t2=$(date +%s)

# ---- the tool-level tests, with our programs and the engine under qemu
export top_srcdir="$W/src" top_builddir="$TB"
# EJ_EMULATOR: qemu-user has no io_uring (tests/j_dio expects none)
export E2FSCK_ENGINE="$TB/engine" EJ_VALGRIND=0 EJ_EMULATOR=$QEMU
# tests/crash/crashcheck.py compares with this host's e2fsprogs; on a
# big-endian ARCH e2fsprogs' own e2fsck writes cleared extent inodes'
# i_block byte-swapped (doc/testing.md): where that is the only
# difference, ours must equal this engine's result byte for byte instead
[ -z "$BIG" ] || export EJ_BE_ENGINE="$TB/engine"
# tests/e2fsck/install.sh: "make install" in the cross build tree (not
# in $TB, the wrappers), and the installed programs run under qemu
export EJ_CROSS_BUILDDIR="$W/src"
export EJ_CROSS_RUN="$QEMU -L /usr/$TRIPLET -E LD_LIBRARY_PATH=$LIBPATH"
: "${MKE2FS:=/sbin/mke2fs}" "${DEBUGFS:=/sbin/debugfs}"
: "${DUMPE2FS:=/sbin/dumpe2fs}"
export MKE2FS DEBUGFS DUMPE2FS
# e2fsprogs' test images, where "make check-e2fsprogs" fetched them
if [ -d "$top/.cache/e2fsprogs/e2fsprogs-1.47.0/tests" ]; then
	export E2FSPROGS_TESTS="$top/.cache/e2fsprogs/e2fsprogs-1.47.0/tests"
fi
set +e
# shellcheck disable=SC2086
sh tests/run_jtests.sh ${JTESTS:-} >"$W/jtests.log" 2>&1
jrc=$?
grep -E "^(FAIL|SKIP)" "$W/jtests.log"
jline=$(tail -n 1 "$W/jtests.log")
say "journal tests on $ARCH: $jline"
t3=$(date +%s)
epass=0
efail=0
if [ -z "${JTESTS:-}" ]; then
	for t in tests/e2fsck/*.sh; do
		case $t in
		*/lib.sh) continue ;;
		esac
		# as make check runs them: by their #! line (some are bash)
		interp=$(sed -n '1s/^#! *//p' "$t")
		${interp:-sh} "$t" >"$W/$(basename "$t").log" 2>&1
		rc=$?
		case $rc in
		0)	epass=$((epass + 1)); echo "PASS $t" ;;
		77)	echo "SKIP $t" ;;
		*)	efail=$((efail + 1)); echo "FAIL $t"
			tail -20 "$W/$(basename "$t").log" ;;
		esac
	done
	say "e2fsck tests on $ARCH: $epass passed, $efail failed"
fi
t4=$(date +%s)

say "times: build $((t1 - t0)) s, unit $((t2 - t1)) s, journal tests $((t3 - t2)) s, e2fsck tests $((t4 - t3)) s, total $((t4 - t0)) s"
jpass=$(echo "$jline" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
jfail=$(echo "$jline" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
npass=$((upass + ${jpass:-0} + epass))
nfail=$((ufail + ${jfail:-1} + efail))
echo "check-cross $ARCH: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ $jrc -eq 0 ]
