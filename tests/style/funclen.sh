#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# funclen.sh: no function of lib/, e2fsck/ or misc/ is longer than
# FUNCLEN_MAX lines (150), counted from its opening brace to its closing
# one, both included.  The sources are in kernel style: a function's
# braces stand alone at the start of a line, so that is what is looked
# for (a brace at the end of the signature line is taken too).
#
# A function named in the allow-list (tests/style/funclen.allow, "FILE
# FUNCTION" a line, FILE relative to the top of the tree) may be longer,
# for the time its shortening takes; an entry that names no function
# over the limit fails too, so that the list only ever shrinks.
#
# Usage: funclen.sh [FILE...]  (default: lib/ e2fsck/ misc/ *.c and *.h
# of $top_srcdir, but the com_err tables compile_et generates)

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${FUNCLEN_MAX:=150}"
: "${FUNCLEN_ALLOW:=$top_srcdir/tests/style/funclen.allow}"

cd "$top_srcdir" || exit 99
if [ $# -eq 0 ]; then
	set -- $(find lib e2fsck misc -name '*.[ch]' ! -name 'ej_err.[ch]' |
		 LC_ALL=C sort)
fi
[ $# -gt 0 ] || { echo "funclen.sh: no sources under $top_srcdir" >&2; exit 99; }
[ -f "$FUNCLEN_ALLOW" ] || { echo "funclen.sh: no $FUNCLEN_ALLOW" >&2; exit 99; }

# one line a function: LENGTH FILE:LINE NAME
awk '
	FNR == 1 { sig = ""; start = 0 }
	# inside a function: count to the closing brace at column 0
	start {
		if ($0 ~ /^}/) {
			printf("%d %s:%d %s\n", FNR - start + 1, FILENAME,
			       start, name)
			start = 0
			sig = ""
		}
		next
	}
	# what ends a declaration at file scope starts a new signature
	/^[ \t]*$/ || /^#/ || /^}/ || /;[ \t]*$/ || /\*\/[ \t]*$/ {
		sig = ""
		next
	}
	{
		line = $0
		sub(/\/\/.*/, "", line)
		# attributes before the name: __printf(2, 3), __attribute__((x))
		gsub(/__attribute__[ \t]*\(\([^)]*\)\)/, "", line)
		gsub(/__[a-z_]+[ \t]*\([^()]*\)/, "", line)
		if (line ~ /^{/ || line ~ /^[A-Za-z_].*\)[ \t]*{[ \t]*$/) {
			text = sig " " line
			if (text ~ /\(/ && text !~ /=/ &&
			    match(text, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
				name = substr(text, RSTART, RLENGTH)
				sub(/[ \t]*\($/, "", name)
				start = FNR
				next
			}
		}
		sig = sig " " line
	}
' "$@" | LC_ALL=C sort -k1,1nr >"${TMPDIR:-/tmp}/funclen.$$" || exit 99
trap 'rm -f "${TMPDIR:-/tmp}/funclen.$$"' EXIT

awk -v max="$FUNCLEN_MAX" -v allowfile="$FUNCLEN_ALLOW" '
	BEGIN {
		while ((getline l < allowfile) > 0) {
			sub(/#.*/, "", l)
			if (split(l, w, " ") < 2)
				continue
			allow[w[1] " " w[2]] = 1
		}
	}
	{
		n++
		split($2, at, ":")
		key = at[1] " " $3
		if ($1 <= max)
			next
		if (key in allow) {
			printf("allowed: %s (%s) is %d lines\n", $3, $2, $1)
			used[key] = 1
			next
		}
		printf("FAIL: %s (%s) is %d lines, over %d\n", $3, $2, $1, max)
		bad++
	}
	END {
		for (key in allow) {
			if (key in used)
				continue
			printf("FAIL: %s is in %s but not over %d lines: take it out\n",
			       key, allowfile, max)
			bad++
		}
		if (bad) {
			printf("%d function(s) of %d over the limit\n", bad, n)
			exit 1
		}
		printf("funclen: %d functions, none over %d lines but the allowed\n",
		       n, max)
	}' "${TMPDIR:-/tmp}/funclen.$$"
