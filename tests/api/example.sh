#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# example.sh: doc/examples/plan-replay.c against the INSTALLED library.
#
# "make install" into a scratch DESTDIR, then the example is compiled with
# nothing but the installed headers and "pkg-config --cflags --libs
# e2journal" (and once statically, with --static) and run on a damaged
# image: a v3 journal of three transactions, one data block of the second
# with a bad checksum.  Under replay-all it must skip that block, flag the
# corruption, exit 1 and leave the image exactly as "e2journal replay"
# leaves a copy; under refuse it must write nothing and exit 4; run again
# on the replayed image it finds nothing to do.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MAKE:=make}" "${CC:=cc}" "${PKG_CONFIG:=pkg-config}"
: "${MKE2FS:=/sbin/mke2fs}" "${DUMPE2FS:=/sbin/dumpe2fs}"
E2JOURNAL=$top_builddir/misc/e2journal
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

if [ ! -f "$top_builddir/lib/journal/.libs/libe2journal.so" ]; then
	echo "SKIP: no shared library built (configure --disable-shared?)"
	exit 77
fi
command -v "$PKG_CONFIG" >/dev/null 2>&1 || { echo "SKIP: no pkg-config"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-example.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
dest=$work/inst

# MAKEFLAGS from "make check" would hand the jobserver of the outer make
# to this one; it has nothing to build, only files to copy.
if ! MAKEFLAGS= $MAKE -C "$top_builddir" install DESTDIR="$dest" \
		>"$work/install.log" 2>&1; then
	tail -20 "$work/install.log"
	echo "FAIL: make install DESTDIR=$dest"
	exit 1
fi
pc=$(find "$dest" -name e2journal.pc | head -1)
so=$(find "$dest" -name libe2journal.so.0 | head -1)
[ -n "$pc" ] && [ -n "$so" ] || { echo "FAIL: no e2journal.pc or libe2journal.so.0 installed"; exit 1; }
incdir=$(dirname "$(find "$dest" -name e2journal.h | head -1)")
echo "installed: $(cd "$incdir" && echo *)"
[ "$(cd "$incdir" && echo *)" = "e2journal.h ej_err.h" ] ||
	fail "installed headers are not e2journal.h and ej_err.h"

PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
flags=$($PKG_CONFIG --cflags --libs e2journal) || fail "pkg-config --cflags --libs e2journal"
sflags=$($PKG_CONFIG --static --cflags --libs e2journal) ||
	fail "pkg-config --static --cflags --libs e2journal"
echo "pkg-config: $flags"

# the public header alone, strict C89 and C++
printf '#include <e2journal.h>\nint main(void) { return ej_api_version() != EJ_API_VERSION; }\n' \
	>"$work/alone.c"
$CC -std=c89 -Wall -Wextra -pedantic -Werror -c "$work/alone.c" \
	-o "$work/alone.o" $($PKG_CONFIG --cflags e2journal) ||
	fail "e2journal.h does not compile alone with -std=c89 -pedantic"

$CC -Wall -Wextra -pedantic -Werror -o "$work/plan-replay" \
	"$top_srcdir/doc/examples/plan-replay.c" $flags ||
	fail "the example does not build against the installed library"
# the example as C89 (a program of any age may start from it)
$CC -std=c89 -Wall -Wextra -pedantic -Werror -c -o "$work/plan-replay89.o" \
	"$top_srcdir/doc/examples/plan-replay.c" $($PKG_CONFIG --cflags e2journal) ||
	fail "the example does not compile with -std=c89 -pedantic"
grep -q 'SPDX-License-Identifier: LGPL-2.0' "$top_srcdir/doc/examples/plan-replay.c" ||
	fail "the example is not under the library's licence (LGPL-2.0)"

# C++: the header, the example, and the com_err table (ej_err.h inside the
# header's extern "C", or initialize_ej_error_table is a C++ symbol that
# the library does not have)
: "${CXX:=c++}"
if command -v "$CXX" >/dev/null 2>&1; then
	cat >"$work/cxx.cc" <<'EOF2'
#include <e2journal.h>
#include <cstdio>
#include <cstring>

int main()
{
	initialize_ej_error_table();
	const char *msg = ej_error_message(EJ_NO_JOURNAL);
	std::printf("%s\n", msg);
	return ej_api_version() != EJ_API_VERSION || !std::strcmp(msg, "");
}
EOF2
	if $CXX -Wall -Wextra -pedantic -Werror -o "$work/cxx" "$work/cxx.cc" \
			$flags >"$work/cxx.log" 2>&1; then
		LD_LIBRARY_PATH=$(dirname "$so") "$work/cxx" >"$work/cxx.out" 2>&1 ||
			fail "the C++ program failed: $(cat "$work/cxx.out")"
	else
		cat "$work/cxx.log"
		fail "a C++ program calling initialize_ej_error_table() does not link"
	fi
	$CXX -Wall -Wextra -Werror -x c++ -o "$work/plan-replay-cxx" \
		"$top_srcdir/doc/examples/plan-replay.c" $flags ||
		fail "the example does not build as C++"
else
	echo "note: no C++ compiler ($CXX): C++ not checked"
fi

# the policies as the header and e2journal(3) state them: replay-all also
# replays transactions whose commit checksum failed (not "intact" ones)
for f in "$incdir/e2journal.h" "$top_srcdir/doc/e2journal.3"; do
	grep -qiE 'intact transaction|commit is intact' "$f" &&
		fail "$(basename "$f") says replay-all replays only intact commits"
done
# statically, where the toolchain can (libext2fs-dev etc. ship .a files)
static=
if $CC -static -o "$work/plan-replay-static" \
		"$top_srcdir/doc/examples/plan-replay.c" $sflags \
		>"$work/static.log" 2>&1; then
	static=$work/plan-replay-static
else
	fail "the example does not link with pkg-config --static"
	tail -5 "$work/static.log"
fi
[ $fails -eq 0 ] || exit 1

LD_LIBRARY_PATH=$(dirname "$so")
export LD_LIBRARY_PATH
ldd "$work/plan-replay" | grep -q "libe2journal.so.0 => $dest" ||
	fail "the example does not load the installed libe2journal.so.0"

# the damaged image
img=$work/img
. "$top_srcdir/tests/api/damaged.sh"
damaged_image "$img"

# expect NAME RC FILE LINE...: the run exited RC and printed each LINE
expect() {
	name=$1 want=$2 got=$3 out=$4
	shift 4
	[ "$got" = "$want" ] || fail "$name: exit $got, expected $want"
	for line in "$@"; do
		grep -qxF "$line" "$out" || fail "$name: no line '$line'"
	done
}

# libext2fs stamps the superblocks it writes with the time: the same for
# the example and "e2journal replay", or a second boundary between them
# makes the images differ
E2FSPROGS_FAKE_TIME=1700000000
export E2FSPROGS_FAKE_TIME
for prog in "$work/plan-replay" $static; do
	p=$(basename "$prog")
	cp "$img" "$work/a"
	cp "$img" "$work/ref"
	"$prog" "$work/a" replay-all >"$work/out" 2>&1
	expect "$p replay-all" 1 $? "$work/out" \
		"plan: replay 3 of 3 transactions, write 8 blocks, skip 1" \
		"Logged blocks: 10 (replayed 8, superseded 1, bad_csum 1)" \
		"$work/a: status 2, flagged 0x2"
	"$E2JOURNAL" replay "$work/ref" >/dev/null 2>&1
	cmp -s "$work/a" "$work/ref" ||
		fail "$p replay-all: the image differs from e2journal replay's"
	"$DUMPE2FS" -h "$work/a" 2>/dev/null | grep -q needs_recovery &&
		fail "$p replay-all: needs_recovery still set"

	"$prog" "$work/a" replay-all >"$work/out" 2>&1
	expect "$p again" 0 $? "$work/out" \
		"plan: replay 0 of 0 transactions, write 0 blocks, skip 0" \
		"$work/a: status 0, flagged 0x0"

	cp "$img" "$work/b"
	"$prog" "$work/b" refuse >"$work/out" 2>&1
	expect "$p refuse" 4 $? "$work/out" \
		"plan: replay 0 of 3 transactions, write 0 blocks, skip 10" \
		"$work/b: status 3, flagged 0x2"
	cmp -s "$work/b" "$img" || fail "$p refuse: the image was written"

	"$prog" "$work/nonexistent" stop >"$work/out" 2>&1
	expect "$p missing image" 8 $? "$work/out"
	[ $fails -eq 0 ] && echo "PASS: $p"
done
[ -n "$static" ] || echo "note: no static run"
[ $fails -eq 0 ] || exit 1
