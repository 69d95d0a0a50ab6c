#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jpoke.py: change fields of a journal superblock inside an image.

    jpoke.py IMG BLOCK BLOCKSIZE FIELD=VALUE... [csum] [badcsum]
    jpoke.py --ext2-csum FILE OFFSET

BLOCK is the physical block of the journal superblock (debugfs "bmap <8>
0", or the block after the ext2 superblock of a journal device).  FIELD is
one of the names below (big-endian 32-bit fields unless said otherwise),
or "u8@OFFSET" / "u32@OFFSET" for any byte or word.  "csum" recomputes the
superblock checksum afterwards (crc32c of the first 1024 bytes with the
checksum field zeroed, seed ~0), "badcsum" then spoils it.

The second form re-signs the ext2 superblock at byte OFFSET of FILE
(metadata_csum: crc32c of its first 1020 bytes, little-endian at 0x3FC).

Written for e2journal's e2fsck tests from the facts in FORMAT.md.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "gen"))
from jfmt import crc32c  # noqa: E402

FIELDS = {
    "magic": 0x00, "blocktype": 0x04, "sequence": 0x08,
    "blocksize": 0x0C, "maxlen": 0x10, "first": 0x14, "s_sequence": 0x18,
    "start": 0x1C, "errno": 0x20, "compat": 0x24, "incompat": 0x28,
    "rocompat": 0x2C, "nr_users": 0x40, "num_fc_blks": 0x54,
    "checksum": 0xFC,
}


def ext2_csum(path, off):
    with open(path, "r+b") as f:
        f.seek(off)
        sb = f.read(1024)
        f.seek(off + 0x3FC)
        f.write(struct.pack("<I", crc32c(0xFFFFFFFF, sb[:0x3FC])))


def main(argv):
    if argv and argv[0] == "--ext2-csum":
        ext2_csum(argv[1], int(argv[2], 0))
        return
    if len(argv) < 4:
        sys.exit(__doc__)
    img, block, bs = argv[0], int(argv[1]), int(argv[2])
    with open(img, "r+b") as f:
        f.seek(block * bs)
        sb = bytearray(f.read(1024))
        for arg in argv[3:]:
            if arg == "csum":
                sb[0xFC:0x100] = b"\0\0\0\0"
                sb[0xFC:0x100] = struct.pack(">I", crc32c(0xFFFFFFFF, sb))
                continue
            if arg == "badcsum":
                sb[0xFC] ^= 0xFF
                continue
            name, value = arg.split("=", 1)
            val = int(value, 0)
            if name.startswith("u8@"):
                sb[int(name[3:], 0)] = val & 0xFF
            elif name.startswith("u32@"):
                off = int(name[4:], 0)
                sb[off:off + 4] = struct.pack(">I", val & 0xFFFFFFFF)
            else:
                off = FIELDS[name]
                sb[off:off + 4] = struct.pack(">I", val & 0xFFFFFFFF)
        f.seek(block * bs)
        f.write(sb)


if __name__ == "__main__":
    main(sys.argv[1:])
