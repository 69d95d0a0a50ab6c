#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-kernel-fc.sh: the two ext4 fast-commit fixes of kernel/linux-fc/
# (issue 35), built into User-Mode Linux and booted on the images that
# show the bugs, the pristine kernel beside the patched one.
#
#   check-kernel-fc.sh [--kver 6.12] [--jobs N] BUILDDIR
#
# 1. unpacks /usr/src/linux-source-KVER.tar.xz (apt-get installs it when
#    missing and run as root) into BUILDDIR/kernel/.cache/fc-KVER/src;
# 2. runs checkpatch (the tree's, --no-tree) on each patch: no error and
#    no warning but the Signed-off-by the sender adds;
# 3. builds `linux` for ARCH=um from kernel/uml.config (KUnit left out)
#    three times: pristine (stock), with patch 1 only (p1) and with the
#    series (fc), applied with patch -p1 -F0 (no fuzz), all in one O=
#    directory so that each build after the first recompiles
#    fs/ext4/fast_commit.c only; each kernel is kept with a key (the
#    tarball, the configuration, the compiler, its patches) and not
#    built again while the key holds; fast_commit.o at W=1, pristine
#    and patched: no new warning;
# 4. makes the images (mkimages.py) and boots each kernel once per image
#    (mount, unmount, power off), then checks each result with dumpe2fs
#    and the host's e2fsck -fn.
#
# Expected: the pristine kernel refuses fc-6, fcmix-7 and fcmix-8 (an
# INODE of a file unlinked while open) and the three -torn1 images (the
# first fast commit's crc spoiled), "JBD2: journal recovery failed"; p1
# (patch 1 alone) mounts the first three and still refuses the -torn1
# ones; the patched kernel mounts all ten, leaves no needs_recovery,
# e2fsck -fn finds its results clean (but fcdir-1, where Linux's own
# short i_blocks shows after both kernels alike), the inodes left with
# no link are free, each -torn1 result equals the pristine kernel's on
# the -stale copy (the full commits alone) block for block but for the
# mount's clock (cmpimg.py), the -stale and fcdir-1 results equal the
# pristine kernel's, and, with BUILDDIR's e2fsck built, the fast
# commits' inodes and names equal our own replay's.
# The last line is `check-kernel-fc: N passed, M failed`; exit 0 when
# nothing failed, 77 when the kernel source or UML's user space is not
# available (0 under CI=true or E2J_ALLOW_SKIP=1).

set -u

kver=6.12
jobs=2
usage() {
	sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}
while [[ $# -gt 0 ]]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[[ $# -eq 1 ]] || usage
builddir=$1

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
series=$here/patches-$kver
tarball=/usr/src/linux-source-$kver.tar.xz
uml_config=$top/kernel/uml.config

npass=0
nfail=0
log() { printf '%s\n' "$*"; }
pass() { npass=$((npass + 1)); log "PASS $*"; }
fail() { nfail=$((nfail + 1)); log "FAIL $*"; }
skip() {
	log "check-kernel-fc: SKIP, $*"
	[[ ${CI:-} == true || ${E2J_ALLOW_SKIP:-} == 1 ]] && exit 0
	exit 77
}
now() { date +%s; }
t_start=$(now)

[[ -d $series ]] || {
	log "check-kernel-fc: no series for Linux $kver" \
		"(kernel/linux-fc/patches-$kver); made for 6.12"
	exit 2
}
mapfile -t patches < <(ls "$series"/*.patch)

if [[ ! -f $tarball ]]; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		apt-get install -y "linux-source-$kver" >/dev/null 2>&1 ||
			(apt-get update >/dev/null 2>&1 &&
			 apt-get install -y "linux-source-$kver" >/dev/null 2>&1)
	fi
	[[ -f $tarball ]] || skip "no $tarball (apt-get install linux-source-$kver)"
fi

mkdir -p "$builddir/kernel/.cache/fc-$kver"
cache=$(cd "$builddir/kernel/.cache/fc-$kver" && pwd -P)
src=$cache/src
out=$cache/build

# ------------------------------------------------------------ source
step_t=$(now)
if [[ ! -f $src/.fc-unpacked ]]; then
	rm -rf "$src" "$cache/linux-source-$kver"
	tar xf "$tarball" -C "$cache" || { fail "unpack $tarball"; exit 1; }
	mv "$cache/linux-source-$kver" "$src"
	: >"$src/.fc-applied"
	touch "$src/.fc-unpacked"
fi
version=$(make -s -C "$src" kernelversion 2>/dev/null)
log "check-kernel-fc: Linux $version from $tarball ($(( $(now) - step_t )) s)"

# The patches applied to src, one name a line, in $src/.fc-applied.
unapply() {
	local p
	while read -r p; do
		patch -s -R -p1 -F0 -d "$src" <"$series/$p" || return 1
	done < <(tac "$src/.fc-applied")
	: >"$src/.fc-applied"
}
apply() {	# apply N: the first N patches of the series
	local p
	for p in "${patches[@]:0:$1}"; do
		patch -s -p1 -F0 -d "$src" <"$p" || return 1
		basename "$p" >>"$src/.fc-applied"
	done
}

# ------------------------------------------------------------ checkpatch
for p in "${patches[@]}"; do
	res=$(perl "$src/scripts/checkpatch.pl" --no-tree -q \
		--no-signoff "$p" 2>&1)
	if [[ -z $res ]]; then
		pass "checkpatch ${p##*/}: 0 errors, 0 warnings" \
			"(Signed-off-by left for the sender)"
	else
		log "$res"
		fail "checkpatch ${p##*/}"
	fi
done

# ------------------------------------------------------------ builds
# The kernels: stock (pristine), p1 (patch 1 only: each fix is shown on
# its own) and fc (the whole series).
declare -A napply=([stock]=0 [p1]=1 [fc]=${#patches[@]})
kernels="stock p1 fc"

key_of() {	# key_of KERNEL
	{
		echo "$1"
		stat -c '%n %s %Y' "$tarball"
		grep -v KUNIT "$uml_config"
		gcc --version | head -1
		[[ ${napply[$1]} -eq 0 ]] || cat "${patches[@]:0:${napply[$1]}}"
	} | sha256sum | cut -c1-16
}

# to_state KERNEL: src with that kernel's patches applied, the build
# directory configured
to_state() {
	local n=${napply[$1]}
	if [[ $(wc -l <"$src/.fc-applied") -ne $n ]]; then
		unapply || { fail "cannot take the patches out of $src"; return 1; }
		if ! apply "$n"; then
			fail "patches-$kver (1-$n) do not apply to Linux $version without fuzz"
			return 1
		fi
		[[ $n -eq 0 ]] ||
			pass "patches-$kver 1-$n apply to Linux $version (patch -p1 -F0)"
	fi
	mkdir -p "$out"
	grep -v KUNIT "$uml_config" >"$cache/config.fragment"
	if ! cmp -s "$cache/config.fragment" "$out/.fragment"; then
		cp "$cache/config.fragment" "$out/.config"
		make -s -C "$src" ARCH=um O="$out" olddefconfig >/dev/null 2>&1 ||
			{ fail "olddefconfig"; return 1; }
		cp "$cache/config.fragment" "$out/.fragment"
	fi
}

# w1 KERNEL: fs/ext4/fast_commit.o at W=1, its warnings into w1-KERNEL.txt
# (line numbers left out, to compare the kernels)
w1() {
	local key
	key=$(key_of "$1")
	[[ -f $cache/w1-$1.txt && $(cat "$cache/w1-$1.key" 2>/dev/null) == "$key" ]] &&
		return 0
	to_state "$1" || return 1
	nice -n 10 make -C "$src" ARCH=um O="$out" W=1 fs/ext4/fast_commit.o \
		>"$cache/w1-$1.log" 2>&1 || { fail "$1: W=1 build of fast_commit.o"; return 1; }
	grep -E 'fast_commit\.c:[0-9]+:[0-9]+: warning:' "$cache/w1-$1.log" |
		sed -E 's/:[0-9]+:[0-9]+:/:/' >"$cache/w1-$1.txt"
	echo "$key" >"$cache/w1-$1.key"
}

build() {	# build KERNEL
	local what=$1 key t0 blog=$cache/build-$1.log
	key=$(key_of "$what")
	if [[ -x $cache/linux-$what && $(cat "$cache/linux-$what.key" 2>/dev/null) == "$key" ]]; then
		pass "$what kernel built before (key $key)"
		return 0
	fi
	t0=$(now)
	to_state "$what" || return 1
	if ! nice -n 10 make -C "$src" ARCH=um O="$out" -j"$jobs" linux \
			>"$blog" 2>&1; then
		tail -30 "$blog"
		fail "$what kernel: build failed (log: $blog)"
		return 1
	fi
	if grep -E 'fs/ext4/[^ ]*: warning:' "$blog"; then
		fail "$what kernel: warnings in fs/ext4"
	fi
	cp "$out/linux" "$cache/linux-$what"
	echo "$key" >"$cache/linux-$what.key"
	pass "$what kernel built in $(( $(now) - t0 )) s" \
		"($(grep -c ' CC ' "$blog") files compiled)"
}

step_t=$(now)
for k in $kernels; do
	build "$k"
done
log "check-kernel-fc: builds $(( $(now) - step_t )) s"
step_t=$(now)
if w1 stock && w1 fc; then
	if cmp -s "$cache/w1-stock.txt" "$cache/w1-fc.txt"; then
		pass "fast_commit.c at W=1: no new warning" \
			"($(wc -l <"$cache/w1-fc.txt") before and after)"
	else
		diff "$cache/w1-stock.txt" "$cache/w1-fc.txt"
		fail "fast_commit.c at W=1: the warnings differ"
	fi
fi
to_state stock
log "check-kernel-fc: W=1 $(( $(now) - step_t )) s"
for k in $kernels; do
	[[ -x $cache/linux-$k ]] || {
		log "check-kernel-fc: $npass passed, $nfail failed"
		exit 1
	}
done

probe=$(python3 "$top/tests/crash/uml-probe.py" "$cache/linux-stock" 2>&1)
rc=$?
log "$probe"
[[ $rc -eq 0 ]] || {
	log "check-kernel-fc: $npass passed, $nfail failed (boot tests skipped)"
	[[ $nfail -eq 0 ]] || exit 1
	skip "UML's user space does not run on this host"
}

# ------------------------------------------------------------ images
step_t=$(now)
imgs=$cache/images
rm -rf "$imgs"
python3 "$here/mkimages.py" "$imgs" || { fail "mkimages.py"; exit 1; }
log "check-kernel-fc: images $(( $(now) - step_t )) s"

# ------------------------------------------------------------ boots
boot() {	# boot KERNEL IMAGE LOG: mount IMAGE as ubda, unmount, power off
	local kernel=$1 img=$2 blog=$3 init=$3.init mnt=$3.mnt
	mkdir -p "$mnt"
	cat >"$init" <<-EOF
	#!/bin/sh
	mount -t proc proc /proc
	mount -t devtmpfs dev /dev 2>/dev/null
	if mount -t ext4 /dev/ubda $mnt; then
	        echo '@@ mounted'
	        umount $mnt && echo '@@ unmounted'
	else
	        echo '@@ mount failed'
	fi
	poweroff -f
	EOF
	chmod +x "$init"
	setsid timeout 120 "$kernel" mem=128M ubd0="$img" root=/dev/root \
		rootfstype=hostfs rootflags=/ rw init="$init" con=null \
		con0=fd:0,fd:1 </dev/null >"$blog" 2>&1
	sed -i 's/\r$//' "$blog"
}

# bug1: an INODE with no link; torn: the first fast commit fails;
# control: what Linux mounts already
bug1="fc-6 fcmix-7 fcmix-8"
torn="fc-6-torn1 fcdir-1-torn1 fcmix-8-torn1"
control="fcdir-1 fc-6-stale fcdir-1-stale fcmix-8-stale"
names="$bug1 $torn $control"
step_t=$(now)
nboots=0
declare -A mounted fn
for k in $kernels; do
	run=$cache/run-$k
	rm -rf "$run"
	mkdir -p "$run"
	for n in $names; do
		cp "$imgs/$n.img" "$run/$n.img"
		boot "$cache/linux-$k" "$run/$n.img" "$run/$n.log"
		nboots=$((nboots + 1))
		if grep -q '^@@ unmounted' "$run/$n.log"; then
			mounted[$k.$n]=yes
		else
			mounted[$k.$n]=no
		fi
		/sbin/e2fsck -fn "$run/$n.img" >"$run/$n.fn" 2>&1
		fn[$k.$n]=$?
		msgs=$(grep -E 'JBD2:|EXT4-fs (error|\(ubda\): (error|recovery|[0-9]+ orphan))' \
			"$run/$n.log" | tr '\n' ';')
		log "  $k $n: mounted ${mounted[$k.$n]}, e2fsck -fn exit" \
			"${fn[$k.$n]}: ${msgs%;}"
	done
done
log "check-kernel-fc: $nboots boots $(( $(now) - step_t )) s"

expect_mount() {	# expect_mount KERNEL NAME yes|no WHY
	if [[ ${mounted[$1.$2]} == "$3" ]]; then
		pass "$1 $2: mounted $3 ($4)"
	else
		fail "$1 $2: mounted ${mounted[$1.$2]}, expected $3 ($4)"
	fi
}

for n in $bug1; do
	expect_mount stock "$n" no "INODE of inode $(paste -sd, "$imgs/$n.unlinked"), no link"
	expect_mount p1 "$n" yes "patch 1"
done
for n in $torn; do
	expect_mount stock "$n" no "the first fast commit fails its crc"
	expect_mount p1 "$n" no "patch 1 alone: the torn first fast commit still refused"
done
for n in $control; do
	expect_mount stock "$n" yes control
	expect_mount p1 "$n" yes "patch 1 alone: control"
done
for n in $names; do
	expect_mount fc "$n" yes patched
	if dumpe2fs -h "$cache/run-fc/$n.img" 2>/dev/null |
			grep -q '^Filesystem features:.*needs_recovery'; then
		fail "fc $n: needs_recovery left after the mount"
	fi
	# fcdir-1: below
	[[ $n == fcdir-1 ]] && continue
	if [[ ${fn[fc.$n]} -eq 0 ]]; then
		pass "fc $n: e2fsck -fn clean after the patched kernel's mount"
	else
		fail "fc $n: e2fsck -fn exit ${fn[fc.$n]} after the patched" \
			"kernel's mount ($cache/run-fc/$n.fn)"
	fi
done
# Each inode an INODE record leaves with no link is free after the
# patched kernel's mount: released by the replay of the UNLINK before it
# or by orphan cleanup.
for n in $bug1; do
	inuse=""
	while read -r i; do
		debugfs -R "testi <$i>" "$cache/run-fc/$n.img" 2>/dev/null |
			grep -q 'is not in use' || inuse+=" $i"
	done <"$imgs/$n.unlinked"
	if [[ -z $inuse ]]; then
		pass "fc $n: inode $(paste -sd, "$imgs/$n.unlinked") free after the mount"
	else
		fail "fc $n: inode$inuse still in use after the mount"
	fi
done
# fcdir-1: Linux's own fast-commit replay leaves a grown directory's
# i_blocks short (doc/testing.md): e2fsck -fn finds it after both
# kernels, unchanged by the patches.
if [[ ${fn[stock.fcdir-1]} -eq ${fn[fc.fcdir-1]} ]] &&
	cmp -s <(sed "1d; s|$cache/run-stock/||" "$cache/run-stock/fcdir-1.fn") \
		<(sed "1d; s|$cache/run-fc/||" "$cache/run-fc/fcdir-1.fn"); then
	pass "fcdir-1: e2fsck -fn says the same after both kernels" \
		"(exit ${fn[fc.fcdir-1]})"
else
	fail "fcdir-1: e2fsck -fn differs between the kernels"
fi
# cmpimg.py: the blocks that differ but for the mount's clock
same() {	# same A B WHAT
	local d
	d=$(python3 "$here/cmpimg.py" "$1" "$2")
	if [[ -z $d ]]; then
		pass "$3"
	else
		fail "$3: differ in blocks ${d:0:80}"
	fi
}
for t in $torn; do
	b=${t%-torn1}
	same "$cache/run-fc/$b-torn1.img" "$cache/run-stock/$b-stale.img" \
		"$b-torn1 (patched) = $b-stale (pristine): the full commits alone"
	same "$cache/run-fc/$b-stale.img" "$cache/run-stock/$b-stale.img" \
		"$b-stale: the same result from both kernels"
done
same "$cache/run-fc/fcdir-1.img" "$cache/run-stock/fcdir-1.img" \
	"fcdir-1: the same result from both kernels"

# The fast commits' inodes and names after the patched kernel's replay,
# against our own replay (e2fsck -E journal_only, replay-all): patch 1
# leaves out one record, the rest must be replayed as before.
ours=$builddir/e2fsck/e2fsck
if [[ -x $ours ]]; then
	mkdir -p "$cache/run-ours"
	for n in $bug1 fcdir-1; do
		cp "$imgs/$n.img" "$cache/run-ours/$n.img"
		"$ours" -p -E journal_only,journal_policy=replay-all \
			"$cache/run-ours/$n.img" >"$cache/run-ours/$n.log" 2>&1
		for k in fc stock; do
			[[ ${mounted[$k.$n]} == yes ]] || continue
			if res=$(python3 "$here/cmpimg.py" --fc "$imgs/$n.img" \
					"$cache/run-$k/$n.img" "$cache/run-ours/$n.img"); then
				pass "$k $n: the fast commits' inodes and names as" \
					"e2journal replays them (${res%%$'\n'*})"
			else
				log "$res"
				fail "$k $n: the fast commits' inodes and names differ" \
					"from e2journal's replay"
			fi
		done
	done
else
	log "check-kernel-fc: no $ours (sh scripts/build.sh): the" \
		"comparison with e2journal's replay left out"
fi

log "check-kernel-fc: $(( $(now) - t_start )) s in all"
log "check-kernel-fc: $npass passed, $nfail failed"
[[ $nfail -eq 0 ]]
