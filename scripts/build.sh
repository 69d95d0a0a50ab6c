#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Configure (once) and build e2journal in the source tree.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
		[ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
	./configure
fi
make -j"$(nproc)"
