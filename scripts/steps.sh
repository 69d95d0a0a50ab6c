# SPDX-License-Identifier: GPL-2.0
# steps.sh: log, die and timed steps for the long check scripts
# (kernel/check-kernel.sh, tests/e2fsprogs/check-e2fsprogs.sh), sourced
# by bash with STEP_PROG set to the script's name.

log() { printf '%s\n' "$*"; }
die() { printf '%s: error: %s\n' "$STEP_PROG" "$*" >&2; exit 1; }
now() { date +%s; }

t_start=$(now)
step_t=$t_start
# step TEXT: say TEXT with the time since the last step and in all.
step() {
	local t
	t=$(now)
	log "== $* (+$((t - step_t)) s, $((t - t_start)) s total)"
	step_t=$t
}

# pkgs_missing: read "COMMAND PACKAGE" lines on stdin and add to the
# caller's array "missing" each PACKAGE whose COMMAND is not on the PATH.
pkgs_missing() {
	local cmd pkg
	while read -r cmd pkg; do
		command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
	done
}

# pkgs_install PKG...: apt-get install them (each once) when allowed
# ($install is 1 and we are root); otherwise die naming them.
pkgs_install() {
	local pkgs
	[[ $# -eq 0 ]] && return 0
	mapfile -t pkgs < <(printf '%s\n' "$@" | sort -u)
	[[ $install -eq 1 && $(id -u) -eq 0 ]] ||
		die "missing packages: ${pkgs[*]} (apt-get install them as root)"
	log "installing: ${pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${pkgs[@]}" >/dev/null
}
