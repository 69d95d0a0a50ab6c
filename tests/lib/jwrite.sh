# SPDX-License-Identifier: GPL-2.0
# jwrite.sh: helpers of the write-phase tests (j_flusher, j_dio), which
# compare our e2fsck's replay of one image made several ways, with each
# other and with e2fsprogs' (sourced after jtest.sh; they append to ./out
# and set fail=1 on a failed check).

fail=0

# bad TEXT...: record a failed check
bad() {
	echo "FAIL: $*" >>out
	fail=1
}

# replay_ours IMG SRC [ENV=VAL]: our e2fsck -y -E journal_only on IMG, a
# fresh copy of SRC, with ENV set; its exit status goes to ./out
replay_ours() {
	cp --sparse=always "$2" "$1"
	env ${3:+"$3"} "$E2FSCK" -y -E journal_only "$1" >"$1.log" 2>&1
	echo "$1: exit $?" >>out
}

# replay_ref IMG SRC: the same with e2fsprogs' e2fsck
replay_ref() {
	cp --sparse=always "$2" "$1"
	"$E2FSCK_ENGINE" -y -E journal_only "$1" >"$1.log" 2>&1
	echo "$1: exit $?" >>out
}

# exit_zero IMG...: each replay exited 0, as e2fsprogs does after a
# clean replay under -E journal_only
exit_zero() {
	for _img in "$@"; do
		grep -q "^$_img: exit 0$" out || bad "$_img: exit status not 0"
	done
}

# same_logged OURS REF BS FIRST COUNT: blocks FIRST.. (COUNT of BS bytes),
# the logged ones, equal in both
same_logged() {
	for _img in "$1" "$2"; do
		dd if="$_img" of="$_img.data" bs="$3" skip="$4" count="$5" \
			status=none
	done
	cmp "$1.data" "$2.data" >>out 2>&1 ||
		bad "$1: logged blocks differ from e2fsprogs' replay"
}

# finish NAME: show the log, then PASS or FAIL
finish() {
	cat out >&2
	if [ $fail = 0 ]; then
		result PASS "$1"
	else
		result FAIL "$1" "see the log"
	fi
}
