# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# (the variables set here are the sourcing script's)
# shellcheck disable=SC2034,SC2154
# lib.sh - what the bench scripts (run-bench.sh, scale.sh) share: the kit,
# the two e2fsck and the options that name them.  Sourced by bash after
# "top" (the project's directory) and "bench_name" (the script's name, for
# its messages) are set; the script sets its own "work", "runs" and
# "warmup" defaults, and a usage function, before calling bench_args.

kit="${BENCH_KIT:-$top/bench/kit}"
cand="$top/e2fsck/e2fsck"
ref="${REF_E2FSCK:-/usr/sbin/e2fsck}"

die() { echo "${bench_name:?}: error: $*" >&2; exit 2; }

# bench_args SPEC ARG...: the command line.  The options every bench
# script takes (--kit, --work, --runs, --warmup, --candidate, --ref, -h)
# and those of SPEC, words "--OPT:VAR" (VAR gets the next word) and
# "--OPT=VAR" (VAR gets 1), set their variables; then bench_ready.
bench_args() {
	local spec="--kit:kit --work:work --runs:runs --warmup:warmup
		    --candidate:cand --ref:ref $1" s n
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		esac
		n=0
		for s in $spec; do
			case "$s" in
			"$1:"*) printf -v "${s#*:}" '%s' "$2"; n=2 ;;
			"$1="*) printf -v "${s#*=}" 1; n=1 ;;
			esac
		done
		[ "$n" -gt 0 ] || die "unknown option $1 (see --help)"
		shift "$n"
	done
	bench_ready
}

# bench_ready: the kit and both e2fsck are there; the work directory made.
bench_ready() {
	[ -x "$kit/replay-bench.sh" ] || die "no replay-bench.sh in $kit (--kit)"
	[ -x "$cand" ] || die "$cand is not built (make -j2)"
	[ -x "$ref" ] || die "reference $ref not found (--ref)"
	mkdir -p "$work"
}
