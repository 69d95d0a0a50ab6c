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
