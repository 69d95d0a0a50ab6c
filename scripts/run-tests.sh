#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install dependencies, build, and run every test (make check).
set -e
cd "$(dirname "$0")/.."
sh scripts/build.sh
make -j"$(nproc)" check || {
	cat test-suite.log 2>/dev/null | tail -n 200
	exit 1
}
