#!/bin/sh
# Install what e2journal needs to build and test, with apt-get, when missing.
# Debian 12 (bookworm) as root; prints what it installs.
set -e

PKGS="build-essential autoconf automake libtool pkg-config libext2fs-dev
comerr-dev uuid-dev libcmocka-dev e2fsprogs python3 time strace xz-utils"

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
