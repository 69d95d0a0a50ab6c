# SPDX-License-Identifier: GPL-2.0
# jtest.sh: shell helpers of e2journal's journal tests (sourced).
#
# The runner (tests/run_jtests.sh) sources this once; a test's own
# "script" may source it again to get the same environment and helpers.

# e2fsprogs' test environment: no host configuration, fixed language and
# zone, no progress bars, and no fake clock (a fake time in the future makes
# e2fsck complain about the superblock's write time).
LC_ALL=C
TZ=GMT0
E2FSCK_CONFIG=/dev/null
BLKID_FILE=/dev/null
E2FSPROGS_SKIP_PROGRESS=yes
EXT2FS_NO_MTAB_OK=yes
MKE2FS_CONFIG=$top_srcdir/tests/lib/mke2fs.conf
PYTHONDONTWRITEBYTECODE=1
export LC_ALL TZ E2FSCK_CONFIG BLKID_FILE E2FSPROGS_SKIP_PROGRESS \
	EXT2FS_NO_MTAB_OK MKE2FS_CONFIG PYTHONDONTWRITEBYTECODE
unset E2FSPROGS_FAKE_TIME SOURCE_DATE_EPOCH E2FSCK_TIME

: "${MKE2FS:=mke2fs}"
: "${DEBUGFS:=debugfs}"
: "${DUMPE2FS:=dumpe2fs}"
: "${E2FSCK_ENGINE:=e2fsck}"
: "${E2JOURNAL:=$top_builddir/misc/e2journal}"
: "${PYTHON:=python3}"
JGEN="$top_srcdir/tests/gen/jgen.py"
export MKE2FS DEBUGFS DUMPE2FS E2FSCK_ENGINE E2JOURNAL PYTHON JGEN

# jgen ARGS...: the image generator and checker (tests/gen/jgen.py).
jgen() {
	"$PYTHON" "$JGEN" "$@"
}

# probe_e2journal DIR: find out whether misc/e2journal can dump and replay
# yet; sets and exports EJ_HAVE_DUMP/EJ_HAVE_REPLAY (1 or 0) and, when 0,
# EJ_NO_DUMP/EJ_NO_REPLAY to the reason.  A command counts as there when
# it does its job on a small healthy journal, or when it answers a bare
# call with the usage status (16): then the tests run and show what fails,
# rather than being skipped.
probe_e2journal() {
	local dir=$1 rc
	EJ_HAVE_DUMP=0 EJ_HAVE_REPLAY=0
	EJ_NO_DUMP="e2journal dump not available"
	EJ_NO_REPLAY="e2journal replay not available"
	export EJ_HAVE_DUMP EJ_HAVE_REPLAY EJ_NO_DUMP EJ_NO_REPLAY
	if [ ! -x "$E2JOURNAL" ]; then
		EJ_NO_DUMP="$EJ_NO_DUMP: $E2JOURNAL not built"
		EJ_NO_REPLAY="$EJ_NO_REPLAY: $E2JOURNAL not built"
		return 0
	fi
	mkdir -p "$dir"
	cat >"$dir/spec" <<-EOF
	fs 1024 8192 ^64bit,^metadata_csum
	journal internal 1024
	open
	txn log=F0-F3
	EOF
	if ! jgen build --spec "$dir/spec" --work "$dir" >/dev/null \
			2>"$dir/build.log"; then
		EJ_NO_DUMP="$EJ_NO_DUMP: probe image failed"
		EJ_NO_REPLAY="$EJ_NO_REPLAY: probe image failed"
		return 0
	fi
	"$E2JOURNAL" dump "$dir/image" >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		"$E2JOURNAL" dump >/dev/null 2>&1
		[ $? -eq 16 ] && rc=0
	fi
	if [ $rc -eq 0 ]; then
		EJ_HAVE_DUMP=1
	else
		EJ_NO_DUMP="$EJ_NO_DUMP (exit $rc)"
	fi
	"$E2JOURNAL" replay "$dir/image" >/dev/null 2>&1
	rc=$?
	case $rc in
	0|1|4) EJ_HAVE_REPLAY=1 ;;
	*)
		"$E2JOURNAL" replay >/dev/null 2>&1
		if [ $? -eq 16 ]; then
			EJ_HAVE_REPLAY=1
		else
			EJ_NO_REPLAY="$EJ_NO_REPLAY (exit $rc)"
		fi
		;;
	esac
	# Make a missing command a failure rather than a skip.
	if [ "${EJ_REQUIRE:-0}" = 1 ]; then
		EJ_HAVE_DUMP=1 EJ_HAVE_REPLAY=1
	fi
	return 0
}

# result STATUS NAME [WHY]: one result line in the runner's protocol.
result() {
	echo "RESULT $1 $2${3:+: $3}"
}

# result_expect NAME: PASS when ./out is $T/expect, else FAIL with the
# diff in the log.
result_expect() {
	if diff -u "$T/expect" out >&2; then
		result PASS "$1"
	else
		result FAIL "$1" "output differs from expect (diff in the log)"
	fi
}

# need_ref147 NAME: skip NAME (and exit) unless the reference e2fsck is
# e2fsprogs 1.47: the expected outputs name it and quote its messages.
need_ref147() {
	if ! "$E2FSCK_ENGINE" -V 2>&1 | grep -q '^e2fsck 1\.47'; then
		result SKIP "$1" "($E2FSCK_ENGINE is not e2fsprogs 1.47)"
		exit 0
	fi
}

# build_image SPEC WORKDIR: the image of a recipe, or the script fails.
build_image() {
	jgen build --spec "$1" --work "$2" >"$2/model.json" || {
		echo "building the image of $1 failed" >&2
		exit 1
	}
}

# normalize_dump: make e2journal dump's text output comparable between
# runs: commit times (dates, UTC) are wall-clock times.
normalize_dump() {
	sed -e 's/time [0-9]*-[0-9]*-[0-9]* [0-9:.]* UTC/time T/'
}
