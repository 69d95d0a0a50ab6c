#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""corpus_stats.py: the counts of a crash corpus (crashgen.py's .json
files), per configuration, and whether the corpus is what check-crash
promises: at least 60 images, every configuration represented, the log
wrapping in most images of each small-journal configuration, at least 5
images with fast-commit blocks (--min-fc N: N; check-crash-host asks for
60).  Exit 1 when it is not."""

import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crashgen  # noqa: E402


def main(corpus, min_fc=5):
    rows = {}
    for p in sorted(glob.glob(os.path.join(corpus, "*.json"))):
        with open(p) as f:
            m = json.load(f)
        r = rows.setdefault(m["config"], {"images": 0, "wraps": 0, "fc": 0,
                                          "fc_blocks": 0, "commits": 0,
                                          "attempts": 0})
        r["images"] += 1
        r["wraps"] += bool(m["wraps"])
        r["fc"] += m["fc_blocks"] > 0
        r["fc_blocks"] += m["fc_blocks"]
        r["commits"] += m["committed"]
        r["attempts"] += len(m["tries"])
    bad = []
    print("%-8s %6s %8s %6s %10s %9s %9s" % ("config", "images", "attempts",
          "wraps", "fc-images", "fc-blocks", "commits"))
    for name in crashgen.CORPUS + sorted(set(rows) - set(crashgen.CORPUS)):
        r = rows.get(name)
        if not r:
            bad.append("no image of configuration " + name)
            continue
        print("%-8s %6d %8d %6d %10d %9d %9d" % (
            name, r["images"], r["attempts"], r["wraps"], r["fc"],
            r["fc_blocks"], r["commits"]))
        if name.startswith("wrap") and 2 * r["wraps"] <= r["images"]:
            bad.append("%s: the log wraps in %d of %d images" % (
                name, r["wraps"], r["images"]))
    total = sum(r["images"] for r in rows.values())
    fc = sum(r["fc"] for r in rows.values())
    print("%d images, %d with fast-commit blocks" % (total, fc))
    if total < 60:
        bad.append("%d images, fewer than 60" % total)
    if fc < min_fc:
        bad.append("%d images with fast-commit blocks, fewer than %d" %
                   (fc, min_fc))
    for b in bad:
        print("CORPUS FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    n = 5
    if args[:1] == ["--min-fc"]:
        n = int(args[1])
        args = args[2:]
    sys.exit(main(args[0] if args else ".", n))
