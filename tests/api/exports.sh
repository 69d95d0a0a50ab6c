#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# exports.sh: libe2journal.so exports exactly the API, nothing by accident.
#
# The dynamic symbols the built library defines (nm -D --defined-only) must
# be the list in lib/journal/libe2journal.map, every one of them declared
# in an installed header (e2journal.h, or the com_err table's ej_err.h),
# and the soname libe2journal.so.0.  Neither the shared nor the static
# library holds test code, not even as a local symbol: the journal writer,
# its fault injector and the test io manager are the test library's
# (lib/journal/test/), which the programs and tests link beside it.  The installed headers must name
# nothing of the kernel shim or recovery.c's internals.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
so=$top_builddir/lib/journal/.libs/libe2journal.so
map=$top_srcdir/lib/journal/libe2journal.map
pub=$top_srcdir/lib/journal/e2journal.h
err=$top_builddir/lib/journal/ej_err.h
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

if [ ! -f "$so" ]; then
	echo "SKIP: $so not built (configure --disable-shared?)"
	exit 77
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm (binutils)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-exports.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

# the map's global names (between "global:" and "local:")
sed -e 's|/\*.*\*/||' -e 's/#.*//' "$map" | tr -d ' \t' |
	awk '/^global:/ { g = 1; next } /^local:/ || /^}/ { g = 0 }
	     g && /;$/ { sub(/;$/, ""); print }' | sort >"$work/map"
# what the library defines, version suffixes and version nodes dropped
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$work/so"

if [ ! -s "$work/map" ]; then
	fail "no symbols read from $map"
fi
if ! cmp -s "$work/map" "$work/so"; then
	fail "exported symbols differ from libe2journal.map (-map +library):"
	diff "$work/map" "$work/so" | sed -n 's/^[<>]/    &/p'
fi
echo "$(wc -l <"$work/so") symbols exported"

# each exported name is declared in an installed header
while read -r sym; do
	if ! grep -Eq "[^A-Za-z0-9_]$sym(\(|;| *\()" "$pub" "$err"; then
		fail "$sym is exported but no installed header declares it"
	fi
done <"$work/so"

# no test code in what is shipped (nm: every symbol, local ones too)
testsyms='ej_writer_|ej_corrupt$|ej_corrupt_target$|ej_wtxn_|ejw_|ej_test_io_|tio_'
for lib in "$so" "$top_builddir/lib/journal/.libs/libe2journal.a"; do
	[ -f "$lib" ] || continue
	nm "$lib" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u >"$work/all"
	if ! grep -qx ej_journal_open "$work/all"; then
		echo "note: no symbol table in $lib (stripped?); test code not looked for"
		continue
	fi
	if grep -E "^($testsyms)" "$work/all" >"$work/test"; then
		fail "$lib holds test code: $(tr '\n' ' ' <"$work/test")"
	fi
done

soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libe2journal.so.0 ] || fail "soname is '$soname', not libe2journal.so.0"

# no kernel shim or recovery internals in what is installed (an I/O
# manager goes by its opaque struct struct_io_manager, which needs no
# libext2fs header)
bad='journal_t|journal_superblock_t|buffer_head|brelse|kfree|kmalloc|likely|\<u32\>|\<u64\>|\<u8\>|__u32|__u64|\<tid_t\>|jbd2_|JBD2_|jfs_user|ext2fs\.h|ext2_filsys|\<io_manager\>'
if grep -En "$bad" "$pub" "$err"; then
	fail "an installed header names kernel or libext2fs internals (above)"
fi

[ $fails -eq 0 ] || exit 1
echo "PASS: exports, soname and installed headers"
