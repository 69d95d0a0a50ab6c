#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what e2journal needs to build and test, with apt-get, when missing.
# Debian 12 (bookworm) as root; prints what it installs.
# Usage: deps.sh [fuzz]
set -e

PKGS="build-essential autoconf automake libtool pkg-config libext2fs-dev
comerr-dev uuid-dev libblkid-dev libcmocka-dev e2fsprogs python3 time strace xz-utils"
# "deps.sh fuzz": clang too, for make fuzz (libFuzzer) only
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang"

# "deps.sh cross ARCH TRIPLET" (scripts/check-cross.sh): the cross compiler
# and qemu-user, and ARCH known to apt so that "apt-get download
# PKG:ARCH" finds its packages (nothing of ARCH is installed).
if [ "${1:-}" = cross ]; then
	PKGS="gcc-$3 qemu-user-static"
	if ! dpkg --print-foreign-architectures | grep -qx "$2"; then
		if [ "$(id -u)" != 0 ]; then
			echo "deps.sh: run as root: dpkg --add-architecture $2; apt-get update" >&2
			exit 1
		fi
		echo "deps.sh: dpkg --add-architecture $2"
		dpkg --add-architecture "$2"
		apt-get update -q
	fi
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root or install them)" >&2
	exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q $missing
