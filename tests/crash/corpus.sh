# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# corpus.sh: what check-crash.sh and check-crash-host.sh share (sourced).

# skip_corpus LINE: print LINE and skip the target, exit 0 under CI=true
# or E2J_ALLOW_SKIP=1, else 77; never a pass of checks that did not run.
skip_corpus() {
	echo "$1"
	if [ "${CI:-}" = true ] || [ "${E2J_ALLOW_SKIP:-0}" = 1 ]; then
		exit 0
	fi
	exit 77
}

# corpus_specs CONFIG...: " CONFIG:1 ... CONFIG:N" for each, N from the
# caller's seeds_of CONFIG.
corpus_specs() {
	for c in "$@"; do
		n=$(seeds_of "$c")
		i=1
		while [ "$i" -le "$n" ]; do
			printf ' %s:%d' "$c" "$i"
			i=$((i + 1))
		done
	done
}
