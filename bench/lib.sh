# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# (the variables set here are the sourcing script's)
# shellcheck disable=SC2034
# lib.sh - what the bench scripts (run-bench.sh, scale.sh) share: the kit,
# the two e2fsck and the options that name them.  Sourced by bash after
# "top" (the project's directory) and "bench_name" (the script's name, for
# its messages) are set; the script sets its own "work", "runs" and
# "warmup" defaults, and a usage function, before bench_args.

kit="${BENCH_KIT:-$top/../shared/bench}"
cand="$top/e2fsck/e2fsck"
ref="${REF_E2FSCK:-/usr/sbin/e2fsck}"

die() { echo "${bench_name:?}: error: $*" >&2; exit 2; }

# bench_opt ARG...: one of the options every bench script takes, at $1;
# bench_shift: how many words it took (0: not one of them).  -h prints
# the script's usage and exits.
bench_opt() {
	bench_shift=2
	case "$1" in
	--kit) kit="$2" ;;
	--work) work="$2" ;;
	--runs) runs="$2" ;;
	--warmup) warmup="$2" ;;
	--candidate) cand="$2" ;;
	--ref) ref="$2" ;;
	-h|--help) usage; exit 0 ;;
	*) bench_shift=0 ;;
	esac
}

# bench_unknown ARG: an option no one takes.
bench_unknown() { die "unknown option $1 (see --help)"; }

# bench_ready: the kit and both e2fsck are there; the work directory made.
bench_ready() {
	[ -x "$kit/replay-bench.sh" ] || die "no replay-bench.sh in $kit (--kit)"
	[ -x "$cand" ] || die "$cand is not built (make -j2)"
	[ -x "$ref" ] || die "reference $ref not found (--ref)"
	mkdir -p "$work"
}
