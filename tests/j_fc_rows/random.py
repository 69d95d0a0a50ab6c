# SPDX-License-Identifier: GPL-2.0
"""j_fc_rows, random part: fast commits of random records (inode numbers
in and out of range, mangled raw inodes, ranges anywhere, names into any
parent), their crcs right (a tenth spoiled), over the same kernel-cut
image as rows.py; `e2journal replay` under replay-all and refuse must
end with a verdict (exit 0, 1 or 4: never 8 or a signal), and stock
e2fsck -fy must then open the image (exit below 8).  FC_RANDOM_SEED and
FC_RANDOM_RUNS (default 1 and 12) choose the journals; a larger run is
recorded in doc/testing.md.
"""

import os
import random
import shutil
import struct
import sys

from rows import G, setup, image, result  # its base image, RESULT lines
from fctest import EJ, REF, Area, run


def rino():
    return random.choice([0, 1, 2, 11, 12, 13, 14, 20, 23, 27, 30, 40, 100,
                          511, 512, 513, 1 << 31, random.randrange(1 << 32)])


def journal(a, t):
    a.head(t)
    for f in range(random.randrange(1, 4)):
        for r in range(random.randrange(1, 12)):
            k = random.randrange(7)
            if k == 0:
                raw = bytearray(G["raw"])
                for _ in range(random.randrange(0, 6)):
                    raw[random.randrange(len(raw))] = random.randrange(256)
                if random.random() < 0.3:
                    raw[0:2] = struct.pack("<H", random.choice(
                        [0o40755, 0o120777, 0o100644, 0]))
                a.rec(6, struct.pack("<I", rino()) + bytes(raw))
            elif k == 1:
                ln = random.randrange(0, 65536) if random.random() < 0.2 \
                    else random.randrange(1, 40)
                a.rec(1, struct.pack("<IIHHI", rino(), random.choice(
                    [0, 1, 5, 100, random.randrange(1 << 32)]), ln, 0,
                    random.randrange(0, 4000)))
            elif k == 2:
                a.rec(2, struct.pack("<III", rino(), random.randrange(200),
                                     random.choice([1, 5, 0x7fffffff, 0])))
            else:
                name = "".join(random.choice("abcxyz/.")
                               for _ in range(random.randrange(1, 30)))
                a.dentry(random.choice([3, 4, 5]),
                         random.choice([12, 13, 2, rino()]), rino(), name)
        a.tail(t, spoil=1 if random.random() < 0.1 else 0)


def rmain():
    seed = int(os.environ.get("FC_RANDOM_SEED", "1"))
    runs = int(os.environ.get("FC_RANDOM_RUNS", "12"))
    random.seed(seed)
    setup()
    bad = 0
    for it in range(runs):
        a = Area(G["bs"])
        journal(a, G["tid"])
        image(a, "r.img")
        for pol in ("replay-all", "refuse"):
            shutil.copy("r.img", "g.img")
            rc, out = run([EJ, "replay", "-p", pol, "g.img"])
            if rc not in (0, 1, 4):
                bad += 1
                shutil.copy("r.img", "bad-%d-%d.img" % (seed, it))
                print("journal %d, %s: exit %d\n%s" % (it, pol, rc, out))
                continue
            rc, out = run([REF, "-fy", "g.img"])
            if rc >= 8:
                bad += 1
                print("journal %d, %s: e2fsck -fy exit %d\n%s" %
                      (it, pol, rc, out))
    result(bad == 0, "%d random journals (seed %d) under replay-all and "
           "refuse: a verdict each, e2fsck opens every result" %
           (runs, seed), "%d failures" % bad)
    return 1 if bad else 0


sys.exit(rmain())
