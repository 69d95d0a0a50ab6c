#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# layers.sh: the files of each program (e2fsck/, misc/) depend on each
# other in one direction only.  File A depends on file B when A's object
# uses a symbol that B's defines (nm); a circle (A needs B, and B needs A,
# through any chain) fails the test, naming the files and the symbols of
# each step.  In e2fsck/, util.c is at the bottom (output, ways out,
# opening and closing the filesystem), unix.c at the top, and between
# them journal.c (the journal phase) over jreplay.c (the replay run),
# which calls jcheck.c (the checks), jonly.c and kbytes.c, none of which
# calls back up (doc/design.md draws them); in misc/, ej_util.c is at
# the bottom (the program's name, the exit codes, what every command
# does the same way), e2journal.c's main, which calls the commands, at
# the top.
#
# Usage: layers.sh [OBJECT...]  (default: the objects of our e2fsck in
# $top_builddir/e2fsck, one for each e2fsck/*.c but recovery.c, which is
# part of the library; then those of e2journal in $top_builddir/misc, one
# for each misc/*.c, checked apart)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
NM=${NM:-nm}
# under make check-cross the objects are in the cross build tree
objdir=${EJ_CROSS_BUILDDIR:-$top_builddir}

command -v "$NM" >/dev/null 2>&1 || { echo "SKIP: no $NM"; exit 77; }

# layers OBJECT...: the check on one program's objects (named FILE.o, or
# e2fsck-FILE.o as automake names e2fsck's)
layers() {
	# one line a symbol: FILE D|U SYMBOL
	for obj in "$@"; do
		name=$(basename "$obj" .o)
		name=${name#e2fsck-}.c
		"$NM" "$obj" | awk -v f="$name" '
			$1 == "U" { print f, "U", $2; next }
			NF == 3 && $2 ~ /^[A-Z]$/ { print f, "D", $3 }'
	done | awk '
		$2 == "D" { def[$3] = $1; files[$1] = 1; next }
		{ use[++n] = $1 " " $3; files[$1] = 1 }
		END {
			# the direct steps, with the symbols that make them
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				to = def[u[2]]
				if (to == "" || to == u[1])
					continue
				if (!((u[1], to) in edge))
					edge[u[1], to] = u[2]
				else if (length(edge[u[1], to]) < 60)
					edge[u[1], to] = edge[u[1], to] ", " u[2]
				reach[u[1], to] = 1
			}
			nf = 0
			for (f in files)
				name[++nf] = f
			# what each file reaches through any chain (Warshall)
			for (k = 1; k <= nf; k++)
				for (i = 1; i <= nf; i++)
					if ((name[i], name[k]) in reach)
						for (j = 1; j <= nf; j++)
							if ((name[k], name[j]) in reach)
								reach[name[i], name[j]] = 1
			bad = 0
			for (i = 1; i <= nf; i++)
				for (j = 1; j <= nf; j++) {
					a = name[i]; b = name[j]
					if (!((a, b) in edge) || !((b, a) in reach))
						continue
					printf("FAIL: %s -> %s (%s), and %s leads back to %s\n",
					       a, b, edge[a, b], b, a)
					bad++
				}
			for (i = 1; i <= nf; i++)
				for (j = 1; j <= nf; j++)
					if ((name[i], name[j]) in edge)
						steps++
			if (bad) {
				printf("%d step(s) of %d files in a circle\n", bad, nf)
				exit 1
			}
			printf("layers: %d files, %d steps, no circle\n", nf, steps)
			for (i = 1; i <= nf; i++)
				for (j = 1; j <= nf; j++)
					if ((name[i], name[j]) in edge)
						printf("  %s -> %s (%s)\n", name[i],
						       name[j], edge[name[i], name[j]])
		}'
}

# layers_of DIR PREFIX: the objects of DIR/*.c (but recovery.c), PREFIX
# before each object's name
layers_of() {
	dir=$1 prefix=$2
	set --
	for src in "$top_srcdir/$dir"/*.c; do
		name=$(basename "$src" .c)
		[ "$name" = recovery ] && continue
		obj=$objdir/$dir/$prefix$name.o
		if [ ! -f "$obj" ]; then
			echo "layers.sh: $obj not built (is $dir/$name.c in the program's _SOURCES?)" >&2
			exit 99
		fi
		set -- "$@" "$obj"
	done
	echo "$dir/:"
	layers "$@"
}

if [ $# -gt 0 ]; then
	layers "$@"
	exit
fi
status=0
layers_of e2fsck e2fsck- || status=1
layers_of misc "" || status=1
exit $status
