#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the images of the e2fsprogs tests that change the fast commit of
j_recover_fast_commit's image (tid 6, in journal block 1025, one block):
it creates a regular file "new" (inode 14: INODE tag, ADD_RANGE of its
one block, 1107, CREAT) and moves "old" to "data" (inode 13).

symlink       inode 14 becomes a slow symbolic link (mode 0120777 and size
              64 in both its INODE tags, a 64-byte target in block 1107);
              the TAIL's crc is made again, so that the fast commit
              verifies (j_recover_fast_commit_symlink);
short-dentry  the fast commit is replaced by HEAD, a CREAT tag 4 bytes long
              (shorter than the 8-byte parent and inode numbers it must
              hold) and a TAIL with a good crc
              (j_recover_fast_commit_short_dentry).

Usage: fc_craft.py symlink|short-dentry IN.img OUT.img
"""
import struct
import sys

BLOCK = 1024
FC_BLOCK = 1091          # journal block 1025 (inode 8: 17-1039 at 83-1105)
TAG_INODE, TAG_TAIL = 6, 8
DATA_BLOCK = 1107
TARGET = b"/" + b"e2fsprogs/j_recover_fast_commit_symlink/" * 2
TARGET = TARGET[:64]


def crc32c_raw(crc, data):
    # crc32c (Castagnoli, reflected 0x82F63B78) without pre/post
    # inversion, as ext2fs_crc32c_le() and jbd2_chksum() compute it
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def short_dentry(img):
    base = FC_BLOCK * BLOCK
    blk = bytearray(img[base:base + BLOCK])
    head = bytes(blk[0:12])
    if struct.unpack_from("<HHII", head) != (9, 8, 0, 6):
        sys.exit("fc_craft: not the j_recover_fast_commit image")
    creat = struct.pack("<HHI", 3, 4, 12)
    off = len(head) + len(creat)
    tail_tl = struct.pack("<HHI", TAG_TAIL, BLOCK - off - 4, 6)
    crc = crc32c_raw(crc32c_raw(crc32c_raw(0, head), creat), tail_tl)
    new = head + creat + tail_tl + struct.pack("<I", crc)
    img[base:base + BLOCK] = new + bytes(BLOCK - len(new))


def symlink(img):
    base = FC_BLOCK * BLOCK
    blk = img[base:base + BLOCK]
    crc, off, changed, done = 0, 0, 0, False
    while off < BLOCK - 4 and not done:
        tag, length = struct.unpack_from("<HH", blk, off)
        if tag == TAG_INODE and struct.unpack_from("<I", blk, off + 4)[0] == 14:
            struct.pack_into("<H", blk, off + 8, 0o120777)
            struct.pack_into("<I", blk, off + 8 + 4, len(TARGET))
            changed += 1
        if tag == TAG_TAIL:
            tid, old = struct.unpack_from("<II", blk, off + 4)
            crc = crc32c_raw(crc, bytes(blk[off:off + 8]))
            struct.pack_into("<I", blk, off + 8, crc)
            done = True
        else:
            crc = crc32c_raw(crc, bytes(blk[off:off + 4 + length]))
        off += 4 + length
    if changed != 2 or not done:
        sys.exit("fc_craft: not the j_recover_fast_commit image")
    img[base:base + BLOCK] = blk
    data = DATA_BLOCK * BLOCK
    img[data:data + BLOCK] = TARGET + bytes(BLOCK - len(TARGET))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("symlink", "short-dentry"):
        sys.exit("usage: fc_craft.py symlink|short-dentry IN.img OUT.img")
    img = bytearray(open(sys.argv[2], "rb").read())
    if sys.argv[1] == "symlink":
        symlink(img)
    else:
        short_dentry(img)
    open(sys.argv[3], "wb").write(img)


if __name__ == "__main__":
    main()
