#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkimages.sh DIR NAME MODE SEED [BLOCKSIZE]: as root, a fast-commit image
# cut by the running kernel (DIR/NAME.img) and Linux's replay of a copy
# (DIR/NAME.linux.img, or DIR/NAME.linux.failed when the mount fails).
# MODE: plain (write+fsync, truncate, fallocate, sparse write, link,
# unlink, rename, symlink), mixed (plain and a file unlinked while open),
# dir (150 creates in one directory), mkdir, rand (40 random operations,
# each fsynced; a file unlinked while open when SEED is a multiple of 3).
# The images here:
#   plain-1 plain 1; dir-1 dir 1; mixed-1 mixed 1 (4096-byte blocks)
#   plain-1k plain 3 1024; dir-1k dir 4 1024; mixed-1k mixed 5 1024
#   rand-N rand N, blocks of 1024 bytes for even N, else 4096
#   reuse-1k: not made here, image fcmix1k-3 of a make check-crash-host
#   run (tests/crash/hostgen.py; UNLINKs whose inodes the fast commits
#   reuse for new files, issue 33), Linux's replay failed as noted
# then xz -9 each.  Only scratch files under /tmp are mounted.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
shift
name=$1 mode=$2 seed=$3 bs=${4:-4096}
out=$dir/$name
img=$out.work.img
mnt=$(mktemp -d /tmp/fcmnt.XXXXXX)
rm -f $img; truncate -s 12M $img
mkfs.ext4 -q -F -O fast_commit -b $bs -N 512 -J size=4 -E lazy_itable_init=0,lazy_journal_init=0 $img
mkdir -p $mnt
dev=$(losetup -f --show $img)
mount -o commit=600 $dev $mnt
mkdir $mnt/d
for i in $(seq 0 9); do yes base$i | head -c $((i*3072+1024)) > $mnt/d/base$i; done
sync
python3 "$here/mkwork.py" $mnt $mode $seed
umount $mnt
losetup -d $dev
cp $img $out.img
cp $img $out.linux.img
dev=$(losetup -f --show $out.linux.img)
if mount $dev $mnt; then umount $mnt; else echo "linux replay failed" > $out.linux.failed; rm -f $out.linux.img; fi
losetup -d $dev
rmdir "$mnt"
rm -f $img
