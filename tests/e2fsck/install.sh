#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh: "make install" never writes a file another package owns
# (e2fsprogs' e2fsck, its man page, fsck.ext*), and every installed
# program and man page follows --program-prefix/--program-transform-name.
# Installs into a scratch DESTDIR with prefix /usr (and /sbin, the path
# e2fsprogs uses on Debian 12) and asks dpkg who owns each path.
# Under make check-cross, top_builddir holds qemu wrappers, not a build
# tree: EJ_CROSS_BUILDDIR names the cross build tree to install from and
# EJ_CROSS_RUN the emulator command the installed programs run under.

: "${top_builddir:?}"
builddir=${EJ_CROSS_BUILDDIR:-$top_builddir}
command -v dpkg-query >/dev/null 2>&1 || { echo "SKIP: no dpkg-query"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/e2j-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
checks=0

# install_to DIR [make variables...]
install_to() {
	local d=$1
	shift
	if ! make -s -C "$builddir" install DESTDIR="$d" prefix=/usr \
			"$@" >"$work/log" 2>&1; then
		echo "FAIL: make install $*"
		sed 's/^/    /' "$work/log" | tail -20
		exit 1
	fi
}

for sbindir in /usr/sbin /sbin; do
	d=$work/root$((checks))
	install_to "$d" sbindir="$sbindir"
	while read -r f; do
		p=${f#"$d"}
		checks=$((checks + 1))
		# /sbin is /usr/sbin on a merged-/usr system: ask for both.
		for q in "$p" "${p#/usr}" "/usr${p}"; do
			if owner=$(dpkg-query -S "$q" 2>/dev/null); then
				echo "FAIL: make install writes $p, owned by ${owner%%:*}"
				fails=$((fails + 1))
			fi
		done
	done < <(find "$d" \( -type f -o -type l \))
	for want in "$sbindir/e2jfsck" /usr/bin/e2journal \
			/usr/share/man/man8/e2jfsck.8 /usr/share/man/man8/e2journal.8; do
		checks=$((checks + 1))
		if [ ! -e "$d$want" ]; then
			echo "FAIL: make install did not install $want"
			fails=$((fails + 1))
		fi
	done
done

# The program names go through the transform, man pages too.
d=$work/prefixed
install_to "$d" program_transform_name='s,^,ej-,'
for want in /usr/sbin/ej-e2jfsck /usr/bin/ej-e2journal \
		/usr/share/man/man8/ej-e2jfsck.8 /usr/share/man/man8/ej-e2journal.8; do
	checks=$((checks + 1))
	if [ ! -e "$d$want" ]; then
		echo "FAIL: with --program-prefix=ej-, no $want"
		fails=$((fails + 1))
	fi
done
checks=$((checks + 1))
if [ -e "$d/usr/sbin/e2jfsck" ] || [ -e "$d/usr/bin/e2journal" ]; then
	echo "FAIL: with --program-prefix=ej-, an untransformed name is installed"
	fails=$((fails + 1))
fi
# The installed e2jfsck runs (a libtool relink, if any, went right).
checks=$((checks + 1))
# shellcheck disable=SC2086
if ! LD_LIBRARY_PATH="$work/root0/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		${EJ_CROSS_RUN:-} "$work/root0/usr/sbin/e2jfsck" -V \
		>"$work/v" 2>&1; then
	echo "FAIL: the installed e2jfsck -V fails"
	sed 's/^/    /' "$work/v"
	fails=$((fails + 1))
fi

echo "install: $checks checks, $fails failed"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
