#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jfsck.py: our e2fsck against e2fsprogs' e2fsck on damaged journals.

Each case is a random journal written by debugfs (jo/jw/jc, through
jgen.py's random recipes: 1 KiB and 4 KiB blocks, 32/64-bit, checksums
none/v1/v2/v3, internal and external journals, re-logged blocks, revokes,
an uncommitted tail, a log that wraps), damaged one known way:

    commit-csum    a byte of a commit block's checksum (v1/v2/v3)
    commit-header  a byte of a commit block's magic or sequence
    data           a byte of a logged data block (past its first four)
    descr-csum     a byte of a descriptor block's checksum tail (v2/v3)
    revoke-csum    a byte of a revoke block's checksum tail (v2/v3)
    jsb-csum       a byte of the journal superblock's checksum (v2/v3)
    descr-header   a byte of a descriptor block's magic or sequence
    revoke-rcount  a revoke block's r_count, some odd value
    zero           any block of the log zeroed
    flip           1-16 random bits of any block of the log
    tag-flags      one flag (escape, same UUID, last tag) of one tag of a
                   descriptor flipped
    jsb-field      one field of the journal superblock (magic, block type,
                   block size, length, s_first, s_sequence, s_start,
                   s_errno, feature words, s_nr_users,
                   s_max_transaction) set to an odd value, its checksum
                   (v2/v3) redone three times in four
    jsb-first      jsb-field on s_first alone (past s_start, past the end
                   of the journal, more often on a log that wraps)
    jsb-maxlen     jsb-field on s_maxlen alone, just past s_start (the log
                   wraps early, a descriptor's tags outnumber its blocks)

--broad draws six more kinds (BROAD_KINDS: doc/testing.md), and --broad
--more five beyond those (MORE_KINDS), damage outside the log and two
damages at once:

    jinode         the internal journal's inode 8 (i_size, i_blocks,
                   i_mode, i_links_count, i_dtime, i_flags, the extent
                   header or first extent), its backup in s_jnl_blocks
                   (or s_jnl_backup_type 0), or both
    fs-journal     the filesystem superblock's journal fields: has_journal
                   or needs_recovery toggled (needs_recovery over an empty
                   log too), journal_dev set, s_journal_inum 0, 1, 2, 7,
                   11, 12 or past the inodes, s_last_orphan, s_journal_uuid
                   set on an internal journal or cleared on an external one
    ext-dev        an external journal's identity: the filesystem's
                   s_journal_uuid, the device's ext2 superblock (magic,
                   journal_dev, UUID, block size, block count, checksum),
                   its user list (another filesystem, two users, 48), or
                   the device missing (-j names no file)
    fs-super       a superblock field e2fsck's superblock check (run after
                   the replay, -E journal_only too) looks at, set odd
                   (counts and sizes it rejects, free counts, times in the
                   future, error behaviour, extra isize, hash flags and
                   seed, creator OS, revision, ...), or a feature it
                   repairs (uninit_bg with metadata_csum, 64bit without
                   extent, csum_seed alone, quota, orphan_present)
    orphan         (--kinds only) one or two files on the orphan list,
                   deleted or to be truncated, as a crash leaves them
    double         two of the log kinds (the same kind twice too), merged:
                   predicted where they touch different transactions

These are e2fsck's journal and superblock checks' business before and
after any replay: under stop byte for byte as e2fsprogs; under replay-all
not predicted (a sane exit, e2fsprogs' exit and output where ours gives
up, a clean filesystem after, or what e2fsprogs' own run leaves).
--host-conf runs every e2fsck without E2FSCK_CONFIG=/dev/null: our -E
journal_only shortcut (no engine after the replay when e2fsprogs'
superblock check would have nothing to do) is only taken then.

Then, on copies of the damaged image:

 1. "e2fsck -E journal_policy=stop MODE" (ours) and e2fsprogs' "e2fsck
    MODE" (MODE -fy, -y, -p, -fp, -y -E journal_only, -n or -fn) print
    the same (-n included: what replay would do ours says only under
    the other policies), exit the
    same and leave the same filesystem: every block but the superblocks
    byte for byte, and the superblocks as dumpe2fs -h shows them, times
    aside.  The one difference POLICY.md allows: ours does not
    write a tag naming a block outside the filesystem or inside the
    journal (it says so).
 2. Ours under the default policy (replay-all), with -fy, -y or -p: every
    block the journal logs or revokes holds what POLICY.md's decision
    table says (worked out here from the recipe and the damage, not from
    any replay), needs_recovery is gone, the exit status says the
    filesystem was changed whenever the damage is one the policy flags (a
    bad data block is not, when a later transaction revokes it: as in
    Linux, a revoked version is never read), and e2fsprogs' "e2fsck -fn"
    then finds the filesystem clean; under "refuse" such flagged damage
    gives exit 4 with image and journal untouched; the run's JSON report
    (-E journal_report=) gives every version of a replayed transaction
    its verdict: replayed, superseded, revoked, bad_csum or
    untrusted_desc.  For the last five kinds neither content nor verdicts
    are predicted: only a sane exit status and a clean filesystem.
    For jsb-field: an internal journal's s_nr_users is predicted (the log
    is replayed as if undamaged, although e2fsck clears the superblock's
    V2 fields); otherwise e2fsck may give up on the superblock as
    e2fsprogs does (same exit and output), or, where the log's layout is
    in doubt and it does not parse cleanly, replay nothing (exit 4, image
    and journal untouched).

usage: jfsck.py --seed S --count N --name NAME --work DIR [--only I]
                [--kinds K,...]
Environment as jgen.py, and E2FSCK_OURS (our e2fsck).  Results are lines
"RESULT PASS|FAIL name[: why]"; details go to stderr.
"""

import argparse
import json
import os
import random
import re
import shutil
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jfmt  # noqa: E402
import jgen  # noqa: E402

ENV = jgen.ENV
REF = jgen.E2FSCK
OURS = ENV.get("E2FSCK_OURS", "")
KINDS = ["commit-csum", "commit-header", "data", "descr-csum",
         "revoke-csum", "jsb-csum", "descr-header", "revoke-rcount", "zero",
         "flip", "jsb-field", "tag-flags", "jsb-first", "jsb-maxlen"]
# drawn by --broad too (not by default: the committed seeds of the tests
# that use the list above keep drawing what they drew)
BROAD_KINDS = KINDS + ["commit-tid", "descr-tid", "commit-torn",
                       "commit-zero", "data-zero", "tag-range"]
# drawn by --broad --more too (not by --broad alone: its seeds, pinned by
# tests/j_e2fsck_kbytes_flush, keep drawing what they drew)
MORE_KINDS = ["jinode", "fs-journal", "ext-dev", "double", "fs-super"]
# drawn only when --kinds names them
NAMED_KINDS = ["orphan"]
# damage outside the log: the journal inode, the filesystem superblock's
# journal fields, an external journal device's identity (e2fsck's journal
# checks decide, before any replay)
FS_KINDS = {"jinode", "fs-journal", "ext-dev", "fs-super", "orphan"}
# what "double" combines: two of these (the same kind twice too), in any
# transactions
DOUBLE_KINDS = ["commit-csum", "commit-header", "data", "descr-csum",
                "revoke-csum", "descr-header", "revoke-rcount", "zero",
                "flip", "tag-flags", "commit-tid", "descr-tid",
                "commit-torn", "commit-zero", "data-zero", "tag-range"]
CSUM_ONLY = {"commit-csum"}                     # not with csum none
V23_ONLY = {"descr-csum", "revoke-csum", "jsb-csum", "commit-torn"}
# how e2fsck is run: boot (-p), rescue (-fy), test suites (-y -E ...)
STOP_MODES = [["-fy"], ["-y"], ["-p"], ["-fp"], ["-y", "-E", "journal_only"],
              ["-n"], ["-fn"]]
# what ours adds under -n: what replay would do (e2fsck says nothing)
DRY_RUN_FROM = ": the journal needs recovery, but nothing is written under -n"
DRY_RUN_TO = "Revoke blocks:"
ALL_MODES = [["-fy"], ["-y"], ["-p"]]
OUT_OF_RANGE = "outside the filesystem or inside the journal"
FSCK_TIMEOUT = 30       # seconds, our e2fsck (a hang is a failure)
# e2fsprogs' e2fsck follows some damaged logs round in a circle for ever
# (j_e2fsck_maxlen has two); its runs here take well under a second, so
# one still going after REF_TIMEOUT is taken to be looping and killed
# (the case is then not compared, and says so in the log)
REF_TIMEOUT = 5
E2JOURNAL = ENV.get("E2JOURNAL", "")
STRICT_SB = False       # --broad: superblocks byte for byte (clock aside)
TALLY = {}              # axis -> value -> cases, for the closing summary
REPLAY_JSB = False      # --replay-jsb: check 4 on journal superblock damage


def log(msg):
    sys.stderr.write(msg.rstrip("\n") + "\n")


def revoked(blk, tid, txns):
    """Whether a transaction of @txns revokes @blk for transaction @tid."""
    return any(blk in r["revoke"] and jfmt.tid_le(tid, r["tid"])
               for r in txns)


class Damage:
    """What was done to the journal, and what replay-all must make of it:
    transactions left out (by recipe number), versions not written,
    versions written with a byte changed, and whether it is flagged."""

    def __init__(self, kind):
        self.kind = kind
        self.what = kind
        self.excluded = set()
        self.skipped = set()            # (txn no, index)
        self.flips = {}                 # (txn no, index) -> (byte, xor)
        self.replaced = {}              # (txn no, index) -> data written
        self.moved = {}                 # (txn no, index) -> new fs block
        self.flagged = False
        self.predictable = True
        self.jsb = False
        self.untrusted = set()          # (txn no, index), descr-csum's
        self.missing = False            # the external journal not there


def xor_byte(j, blk, off, mask):
    raw = bytearray(j.read(blk))
    raw[off] ^= mask
    j.write(blk, bytes(raw))


def descriptor_of(walked_txn):
    """For each tag of a walked transaction, the descriptor holding it."""
    out, cur = [], None
    for jb, kind in walked_txn["blocks"].items():
        if kind == "descriptor":
            cur = jb
        elif kind == "data":
            out.append(cur)
    return out


def choose_kind(rnd, csum, b, kinds):
    """A kind of @kinds, at random, that the journal's checksum mode and
    contents allow."""
    txns = b.txns if b.walked[0] else []
    ok = []
    for k in kinds:
        if k in V23_ONLY and csum not in ("v2", "v3"):
            continue
        if k in CSUM_ONLY and csum == "none":
            continue
        if k in ("commit-csum", "commit-header", "commit-tid",
                 "commit-torn", "commit-zero") and \
                not any(t["committed"] for t in txns):
            continue
        if k in ("data", "descr-csum", "descr-header", "tag-flags",
                 "descr-tid", "data-zero", "tag-range") and \
                not any(t["log"] for t in txns):
            continue
        if k in ("revoke-csum", "revoke-rcount") and \
                not any(t["revoke"] for t in txns):
            continue
        if k == "jinode" and b.jnl:
            continue
        if k == "ext-dev" and not b.jnl:
            continue
        if k == "double" and not choose_kind(random.Random(0), csum, b,
                                             DOUBLE_KINDS):
            continue
        if k not in ("jsb-csum", "jsb-field", "jsb-first",
                     "jsb-maxlen") and k not in FS_KINDS and not txns:
            continue
        ok.append(k)
    if not ok:
        return None
    return rnd.choice(ok)


def jsb_field(rnd, j, csum, wraps, only=None):
    """Set one field of the journal superblock (@only, or one at random)
    to an odd value, its checksum (v2/v3) recomputed or, one time in
    four, not: (the field, what was done).  @wraps: the log runs past the
    end of the journal (e2fsprogs then goes on at s_first, even where
    that lies past s_start or outside the journal)."""
    raw = bytearray(j.read(j.sb_block))
    get = lambda off: struct.unpack(">I", raw[off:off + 4])[0]
    maxlen, first, start = get(0x10), get(0x14), get(0x1C)
    firsts = [0, 2, first + 1, maxlen - 1, maxlen]
    if only == "first" and start:
        firsts += [start + 1, maxlen + 1, maxlen * 2]
        if wraps:
            firsts = [v for v in firsts if v > start] * 3 + firsts
    maxlens = [0, 1, first, first + 1, maxlen - 1, maxlen + 1, maxlen * 2,
               0xFFFFFFFF]
    if only == "maxlen" and start:
        maxlens = [first + 1, start + 1, start + 2,
                   start + rnd.randint(3, 64)]
    choices = {
        "magic": (0x00, [0, 0xC03B3999, rnd.getrandbits(32)]),
        "blocktype": (0x04, [0, 1, 2, 5, 3 if get(0x04) == 4 else 4]),
        "blocksize": (0x0C, [0, 512, j.bs // 2, j.bs * 2, 65536]),
        "maxlen": (0x10, maxlens),
        "first": (0x14, firsts),
        "sequence": (0x18, [(get(0x18) + 1) & 0xFFFFFFFF,
                            (get(0x18) - 1) & 0xFFFFFFFF,
                            rnd.getrandbits(32)]),
        "start": (0x1C, [0, first, (start + 1) if start else first + 1,
                         maxlen - 1, maxlen, maxlen + 10,
                         rnd.randrange(1, max(2, maxlen))]),
        "errno": (0x20, [0xFFFFFFFB, 0xFFFFFFE4, 1]),
        "compat": (0x24, [get(0x24) ^ 1, get(0x24) | 2]),
        # unknown bits, and known ones toggled (revoke, 64bit, async
        # commit, checksum v2/v3): the log is then read in another layout
        "incompat": (0x28, [get(0x28) | 0x100, get(0x28) | 0x8000,
                            get(0x28) ^ 0x2, get(0x28) ^ 0x4,
                            get(0x28) ^ 0x8, get(0x28) ^ 0x10]),
        "ro_compat": (0x2C, [get(0x2C) | 1, get(0x2C) | 0x80]),
        "nr_users": (0x40, [0, 2, 48, 49, 0xFFFFFFFF]),
        "max_transaction": (0x48, [1, 0xFFFFFFFF]),
    }
    name = only or rnd.choice(sorted(choices))
    off, vals = choices[name]
    val = rnd.choice(vals)
    raw[off:off + 4] = struct.pack(">I", val & 0xFFFFFFFF)
    resum = csum in ("v2", "v3") and rnd.random() < 0.75
    if resum:
        jfmt.jsb_set_checksum(raw)
    j.write(j.sb_block, bytes(raw))
    return name, "jsb %s = %#x%s" % (name, val, " (checksum redone)"
                                     if resum else "")


def csum_seed(j):
    """JBD2's checksum seed: crc32c of the journal's UUID."""
    return jfmt.crc32c(0xFFFFFFFF, j.jsb.uuid)


def resum_tail(j, raw):
    """Redo the v2/v3 tail checksum of a descriptor or revoke block."""
    raw[-4:] = bytes(4)
    raw[-4:] = struct.pack(">I", jfmt.crc32c(csum_seed(j), bytes(raw)))


def commit_csum(j, raw, body_zero=False):
    """The v2/v3 checksum of commit block @raw (its h_chksum[0] taken as
    zero; with @body_zero everything past the 60-byte header too)."""
    x = bytearray(raw)
    x[16:20] = bytes(4)
    if body_zero:
        x[60:] = bytes(len(x) - 60)
    return jfmt.crc32c(csum_seed(j), bytes(x))


def commit_after(walked, k):
    """Whether anything of the log (a later transaction, committed or
    not) follows transaction @k's commit block."""
    return k + 1 < len(walked)


def damage_broad(rnd, b, j, kind, csum, d):
    """The kinds only --broad draws (BROAD_KINDS): fills in @d."""
    walked = b.walked[0]
    txns = b.txns
    bs = j.bs
    v23 = csum in ("v2", "v3")
    committed = [k for k, t in enumerate(txns) if t["committed"]]
    if kind in ("commit-tid", "commit-torn", "commit-zero"):
        # half the time the last commit of the log: a torn or missing
        # final commit is what a crash leaves
        k = committed[-1] if rnd.random() < 0.5 else rnd.choice(committed)
        cb = [jb for jb, x in walked[k]["blocks"].items()
              if x == "commit"][0]
        raw = bytearray(j.read(cb))
        last = k == len(txns) - 1
        tid = txns[k]["tid"]
        if kind == "commit-tid":
            new = rnd.choice([tid ^ 0x10000, tid ^ 0x80000000,
                              rnd.getrandbits(32)]) & 0xFFFFFFFF
            raw[8:12] = struct.pack(">I", new)
            resum = v23 and rnd.random() < 0.5
            if resum:
                raw[16:20] = struct.pack(">I", commit_csum(j, raw))
            # as commit-header: a garbled commit
            if last:
                d.excluded.add(txns[k]["no"])
            d.flagged = not last
            d.what = "commit-tid of txn %d: tid %d -> %d%s" % (
                txns[k]["no"], tid, new, " (checksum redone)" if resum
                else "")
        elif kind == "commit-zero":
            raw = bytearray(bs)
            if last:
                d.excluded.add(txns[k]["no"])
            d.flagged = not last
            d.what = "commit-zero: commit block %d of txn %d (tid %d)%s" % (
                cb, txns[k]["no"], tid, ", the last" if last else "")
        else:
            # a power cut wrote the commit's first sector only: the rest
            # is what the block held before (here: random bytes)
            raw[512:] = rnd.randbytes(bs - 512)
            if commit_csum(j, raw) == struct.unpack(">I", raw[16:20])[0]:
                return None
            if commit_csum(j, raw, True) != \
                    struct.unpack(">I", raw[16:20])[0]:
                raise RuntimeError("commit-torn: the checksum of block %d "
                                   "does not hold over header + zeros" % cb)
            # torn only as the last commit (without async_commit), else
            # a failed commit checksum (row 1): replayed either way.  With
            # an uncommitted tail after it, whether that counts as a
            # valid transaction following is not predicted (not flagged)
            d.flagged = k != committed[-1]
            d.what = "commit-torn: commit block %d of txn %d (tid %d)%s" % (
                cb, txns[k]["no"], tid, ", the last" if last else "")
        j.write(cb, bytes(raw))
        return d
    if kind == "descr-tid":
        k = rnd.choice([k for k, t in enumerate(txns) if t["log"]])
        desc = rnd.choice(sorted(set(descriptor_of(walked[k]))))
        raw = bytearray(j.read(desc))
        tid = txns[k]["tid"] or 0
        new = rnd.choice([tid + 1, tid - 1, tid ^ 0x100,
                          rnd.getrandbits(32)]) & 0xFFFFFFFF
        raw[8:12] = struct.pack(">I", new)
        resum = v23 and rnd.random() < 0.5
        if resum:
            resum_tail(j, raw)
        j.write(desc, bytes(raw))
        d.predictable = False
        d.what = "descr-tid: descriptor %d of txn %d: tid %d -> %d%s" % (
            desc, txns[k]["no"], tid, new, " (checksum redone)" if resum
            else "")
        return d
    cand = [(k, i) for k, t in enumerate(txns) for i in range(len(t["log"]))]
    if kind == "data-zero":
        cand = [(k, i) for k, i in cand
                if any(j.read(walked[k]["tags"][i][1]))]
        if not cand:
            return None
        k, i = rnd.choice(cand)
        jb = walked[k]["tags"][i][1]
        j.write(jb, bytes(bs))
        no = txns[k]["no"]
        if v23:
            d.skipped.add((no, i))
            d.flagged = txns[k]["committed"] and not revoked(
                txns[k]["log"][i], txns[k]["tid"],
                [r for r in txns if r["committed"]])
        else:
            # escaped: replay puts the magic back in the first 4 bytes
            esc = walked[k]["tags"][i][2] & jfmt.F_ESCAPE
            d.replaced[(no, i)] = (struct.pack(">I", jfmt.MAGIC)
                                   if esc else bytes(4)) + bytes(bs - 4)
            d.flagged = csum == "v1" and txns[k]["committed"]
        d.what = "data-zero: data %d of txn %d (block %d), journal block " \
                 "%d" % (i, no, txns[k]["log"][i], jb)
        return d
    # tag-range: one tag names a block outside the filesystem or, on an
    # internal journal, one of the journal's own blocks
    k, i = rnd.choice(cand)
    owners = descriptor_of(walked[k])
    desc = owners[i]
    nth = i - owners.index(desc)
    raw = bytearray(j.read(desc))
    off = [o for o, _, _ in jfmt.tags(j.jsb, bs, raw)][nth]
    nblocks = b.spec.blocks
    choices = [nblocks, nblocks + rnd.randrange(1, 4096)]
    if j.jsb.is_64:
        choices.append((1 << 32) + rnd.randrange(nblocks))
    else:
        choices.append(0xFFFFFFFF)
    if b.jblocks:
        choices += [rnd.choice(sorted(b.jblocks))] * 2
    new = rnd.choice(choices)
    raw[off:off + 4] = struct.pack(">I", new & 0xFFFFFFFF)
    if j.jsb.is_64:
        raw[off + 8:off + 12] = struct.pack(">I", new >> 32)
    if v23:
        resum_tail(j, raw)
    j.write(desc, bytes(raw))
    no = txns[k]["no"]
    d.moved[(no, i)] = new
    d.flagged = txns[k]["committed"]
    d.what = "tag-range: tag %d of txn %d (block %d) -> block %d" % (
        i, no, txns[k]["log"][i], new)
    return d


def debugfs_w(img, cmds):
    """Run debugfs -w commands @cmds on @img (it redoes the checksums of
    what it changes)."""
    rc, out, err = jfmt.run([jgen.DEBUGFS, "-w", "-f", "-", img], ENV,
                            ("\n".join(cmds) + "\n").encode())
    bad = [l for l in (out + err).splitlines()
           if "rror" in l or "not open" in l or "Unknown" in l or
           "nvalid" in l or "sage" in l]
    if rc != 0 or bad:
        raise RuntimeError("debugfs %s: %s" % (cmds, "; ".join(bad)))


def ext2_sb_resum(sb):
    """Redo the metadata_csum checksum of a 1024-byte ext2 superblock."""
    if struct.unpack("<I", sb[0x64:0x68])[0] & 0x400:
        sb[0x3FC:0x400] = struct.pack("<I", jfmt.crc32c(0xFFFFFFFF,
                                                        bytes(sb[:0x3FC])))


def damage_jinode(rnd, b, dimg, d):
    """jinode: the internal journal's inode (8), its backup in the
    superblock's s_jnl_blocks, or both."""
    bs = b.spec.bs
    size = b.spec.jsize * bs
    fields = [
        ("size", [0, size - bs, size + bs, size * 2, size - 1,
                  1023 * bs]),
        ("blocks", [0, size // 512 + 2, 2]),
        ("mode", ["040700", "0120777", "0", "0100644"]),
        ("links_count", [0, 2]),
        ("dtime", [0x5F000000]),
        ("flags", [0, 0x80000 | 0x10]),
        # the extent header and first extent: magic, entries, depth;
        # ee_block, ee_len (and ee_start_hi), ee_start_lo
        ("block[0]", [0, 0x0001F30B, 0x0005F30A]),
        ("block[1]", [0x00010004, 0x00000000]),
        ("block[3]", [1, 0x10]),
        ("block[4]", [1, 0x8000, rnd.randrange(1, 0x8000)]),
        ("block[5]", [0, 1, rnd.randrange(b.spec.blocks),
                      b.spec.blocks + 5]),
    ]
    name, vals = rnd.choice(fields)
    val = rnd.choice(vals)
    ival = val if isinstance(val, str) else "%d" % val
    inode = ["sif <8> %s %s" % (name, ival)]
    k = rnd.randrange(17)
    bval = rnd.choice([0, 1, rnd.getrandbits(32)])
    backup = [rnd.choice(["ssv jnl_blocks[%d] %d" % (k, bval),
                          "ssv jnl_backup_type 0"])]
    how = rnd.choice(["inode", "inode", "inode+backup", "backup"])
    cmds = (inode if "inode" in how else []) + \
        (backup if "backup" in how else [])
    debugfs_w(dimg, cmds)
    d.what = "jinode: %s" % "; ".join(cmds)


def damage_fs_journal(rnd, b, dimg, d):
    """fs-journal: the journal fields of the filesystem superblock."""
    with open(dimg, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    inodes = struct.unpack("<I", sb[0:4])[0]
    recover = struct.unpack("<I", sb[0x60:0x64])[0] & jgen.RECOVER
    choices = [
        ["feature ^has_journal"],
        ["feature %sneeds_recovery" % ("^" if recover else "")],
        ["feature %sneeds_recovery" % ("^" if recover else "")],
        ["ssv journal_inum %d" % rnd.choice([0, 1, 2, 7, 11, 12,
                                             inodes + 1])],
        ["ssv last_orphan %d" % rnd.choice([11, 12, 13, inodes + 5])],
        ["ssv journal_uuid %s" % ("null" if b.jnl else "random")],
    ]
    if rnd.random() < 0.15:
        choices.append(["feature journal_dev"])
    if b.jnl:
        choices.append(["ssv journal_inum 8"])
    cmds = rnd.choice(choices)
    debugfs_w(dimg, cmds)
    d.what = "fs-journal: %s" % "; ".join(cmds)


def damage_fs_super(rnd, b, dimg, d):
    """fs-super: one field of the filesystem superblock that e2fsck's
    superblock check (run after the replay, -E journal_only too) looks
    at, or a feature combination it repairs, set to an odd value."""
    with open(dimg, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    blocks = struct.unpack("<I", sb[4:8])[0]
    inodes = struct.unpack("<I", sb[0:4])[0]
    future = int(time.time()) + rnd.choice([3600, 86400 * 3])
    choices = [
        "r_blocks_count %d" % rnd.choice([blocks // 2, blocks // 2 + 1,
                                          blocks * 2]),
        "first_ino %d" % rnd.choice([0, 5, 10, 11, inodes, inodes + 1]),
        "reserved_gdt_blocks %d" % rnd.choice([0, 255, 256, 257, 1025,
                                               5000]),
        "desc_size %d" % rnd.choice([0, 12, 32, 48, 64, 128, 2048]),
        "log_cluster_size %d" % rnd.choice([0, 1, 2, 9]),
        "free_blocks_count %d" % rnd.choice([0, 100, blocks + 1]),
        "free_inodes_count %d" % rnd.choice([0, 3, inodes + 1]),
        "mtime %d" % future, "wtime %d" % future,
        "lastcheck %d" % future,
        "checkinterval %d" % rnd.choice([0, 1, 86400]),
        "errors %d" % rnd.choice([0, 2, 3, 9]),
        "max_mnt_count %d" % rnd.choice([1, 0xFFFF]),
        "mnt_count %d" % rnd.choice([0, 500]),
        "min_extra_isize %d" % rnd.choice([0, 3, 4, 32, 200]),
        "want_extra_isize %d" % rnd.choice([0, 3, 4, 32, 200]),
        "flags %d" % rnd.choice([0, 1, 2, 4]),
        "state %d" % rnd.choice([0, 2, 3]),
        "creator_os %d" % rnd.choice([1, 3]),
        "rev_level 0",
        "hash_seed null",
        "default_mount_opts 0",
        "def_hash_version %d" % rnd.choice([0, 1, 2, 6]),
        "last_orphan %d" % rnd.choice([0, 11, 12]),
        "kbytes_written 0",
    ]
    if struct.unpack("<I", sb[0x64:0x68])[0] & 0x400:
        # without metadata_csum e2fsck gives it a random UUID
        choices.append("uuid null")
    cmds = ["ssv " + rnd.choice(choices)]
    if rnd.random() < 0.2:
        cmds = [rnd.choice(["feature uninit_bg", "feature ^extent",
                            "feature metadata_csum_seed",
                            "feature ^dir_index", "feature quota",
                            "feature orphan_present"])]
    try:
        debugfs_w(dimg, cmds)
    except RuntimeError:
        return False
    d.what = "fs-super: %s" % "; ".join(cmds)
    return True


def damage_orphan(rnd, b, dimg, d):
    """orphan: files on the orphan list, as a crash leaves them: inode 12
    (and 13) written, unlinked, and chained from s_last_orphan, deleted
    (no links) or to be truncated (one link, i_size cut)."""
    src = os.path.join(b.work, "debugfs.cmd")
    cmds, nxt = [], 0
    for ino in range(12, 12 + rnd.randint(1, 2)):
        name = "orph%d" % ino
        cmds += ["write %s %s" % (src, name), "unlink %s" % name]
        if rnd.random() < 0.5:
            cmds.append("sif <%d> links_count 0" % ino)
        else:
            cmds.append("sif <%d> size %d" % (ino, rnd.choice([0, 1, 100])))
        cmds.append("sif <%d> dtime %d" % (ino, nxt))
        nxt = ino
    cmds.append("ssv last_orphan %d" % nxt)
    debugfs_w(dimg, cmds)
    d.what = "orphan: %s" % "; ".join(c for c in cmds
                                      if not c.startswith("write"))


def damage_ext_dev(rnd, b, djnl, d):
    """ext-dev: an external journal device's identity: the filesystem's
    s_journal_uuid, the device's ext2 superblock, its user list, or the
    device missing (-j names a file that is not there)."""
    bs = b.spec.bs
    what = rnd.choice(["fs-uuid", "magic", "journal_dev", "uuid",
                       "blocksize", "blocks", "sb-csum", "users", "users",
                       "missing"])
    if what == "missing":
        d.missing = True
        d.what = "ext-dev: the journal device is missing"
        return
    if what == "fs-uuid":
        debugfs_w(d.paths[0], ["ssv journal_uuid random"])
        d.what = "ext-dev: the filesystem's s_journal_uuid changed"
        return
    with open(djnl, "r+b") as f:
        f.seek(1024)
        sb = bytearray(f.read(1024))
        if what == "users":
            jb = jfmt.ext_journal_sb_block(bs) * bs
            f.seek(jb)
            jsb = bytearray(f.read(1024))
            me = bytes(jsb[0x100:0x110])
            other = rnd.randbytes(16)
            how = rnd.choice(["other", "second", "first", "many"])
            n = {"other": 1, "second": 2, "first": 2, "many": 48}[how]
            users = {"other": other, "second": other + me,
                     "first": me + other,
                     "many": me + other * 47}[how]
            jsb[0x40:0x44] = struct.pack(">I", n)
            jsb[0x100:0x100 + len(users)] = users
            if struct.unpack(">I", jsb[0x28:0x2C])[0] & 0x18:
                jfmt.jsb_set_checksum(jsb)
            f.seek(jb)
            f.write(jsb)
            d.what = "ext-dev: s_users %s (s_nr_users %d)" % (how, n)
            return
        if what == "magic":
            sb[0x38:0x3A] = struct.pack("<H", 0xEF51)
        elif what == "journal_dev":
            sb[0x60] &= ~0x08
        elif what == "uuid":
            sb[0x68:0x78] = rnd.randbytes(16)
        elif what == "blocksize":
            lg = struct.unpack("<I", sb[0x18:0x1C])[0]
            sb[0x18:0x1C] = struct.pack("<I", lg + 1 if lg < 2 else lg - 1)
        elif what == "blocks":
            n = struct.unpack("<I", sb[0x04:0x08])[0]
            sb[0x04:0x08] = struct.pack("<I", rnd.choice([n - 1, n // 2,
                                                         0]))
        if what != "sb-csum":
            ext2_sb_resum(sb)
        else:
            sb[0x3FC] ^= 0x55
        f.seek(1024)
        f.write(sb)
    d.what = "ext-dev: the device's ext2 superblock: %s" % what


def log_blocks(b, j):
    """The content of every block of the log, by journal block."""
    return {jb: j.read(jb) for t in b.walked[0] for jb in t["blocks"]}


def damage_double(rnd, b, j, csum, d):
    """double: two damages of DOUBLE_KINDS in one journal, merged.  Which
    transactions each touched is found from the blocks it changed."""
    parts, touched = [], []
    before = log_blocks(b, j)
    for _ in range(2):
        kind = choose_kind(rnd, csum, b, DOUBLE_KINDS)
        p = damage(rnd, b, j, kind, csum)
        if p is None:
            return None
        after = log_blocks(b, j)
        nos = {b.txns[k]["no"] for k, t in enumerate(b.walked[0])
               for jb in t["blocks"] if before[jb] != after[jb]}
        before = after
        parts.append(p)
        touched.append(nos)
    p, q = parts
    for x in parts:
        d.excluded |= x.excluded
        d.skipped |= x.skipped
        if x.kind == "descr-csum":
            d.untrusted |= x.skipped
        d.flips.update(x.flips)
        d.replaced.update(x.replaced)
        d.moved.update(x.moved)
    d.predictable = p.predictable and q.predictable and \
        not (touched[0] & touched[1])
    for x, mine, other in ((p, touched[0], q), (q, touched[1], p)):
        # damage to a transaction the other left out does not count; a
        # torn commit may have become the last one
        if mine and mine <= other.excluded:
            continue
        if x.kind == "commit-torn" and other.excluded:
            continue
        d.flagged = d.flagged or x.flagged
    d.what = "double: %s + %s" % (p.what, q.what)
    d.parts = [p.kind, q.kind]
    return d


def damage(rnd, b, j, kind, csum):
    """Damage journal @j (a copy of build @b's) one way of @kind."""
    d = Damage(kind)
    if kind in FS_KINDS:
        d.paths = j.paths
        d.jsb = True
        d.predictable = False
        if kind == "jinode":
            damage_jinode(rnd, b, j.paths[0], d)
        elif kind == "fs-journal":
            damage_fs_journal(rnd, b, j.paths[0], d)
        elif kind == "orphan":
            damage_orphan(rnd, b, j.paths[0], d)
        elif kind == "fs-super":
            if not damage_fs_super(rnd, b, j.paths[0], d):
                return None
        else:
            damage_ext_dev(rnd, b, j.paths[1], d)
        return d
    if kind == "double":
        return damage_double(rnd, b, j, csum, d)
    if kind not in KINDS:
        return damage_broad(rnd, b, j, kind, csum, d)
    walked = b.walked[0]
    txns = b.txns
    bs = j.bs
    committed = [k for k, t in enumerate(txns) if t["committed"]]
    if kind in ("commit-csum", "commit-header"):
        k = rnd.choice(committed)
        cb = [jb for jb, x in walked[k]["blocks"].items() if x == "commit"][0]
        if kind == "commit-csum":
            xor_byte(j, cb, 16 + rnd.randrange(4), rnd.randint(1, 255))
        else:
            # the magic, or the sequence's top byte (never the next tid)
            xor_byte(j, cb, rnd.choice([0, 1, 2, 3, 8]), rnd.randint(1, 255))
            # garbled: a transaction of the next sequence after it makes
            # it one whose commit failed; else it never committed
            if k == len(txns) - 1:
                d.excluded.add(txns[k]["no"])
        d.flagged = kind == "commit-csum" or k != len(txns) - 1
        d.what = "%s of txn %d (tid %d)" % (kind, txns[k]["no"],
                                           txns[k]["tid"])
    elif kind == "data":
        cand = [(k, i) for k, t in enumerate(txns) for i in range(len(t["log"]))]
        k, i = rnd.choice(cand)
        jb = walked[k]["tags"][i][1]
        off, mask = 4 + rnd.randrange(bs - 4), rnd.randint(1, 255)
        xor_byte(j, jb, off, mask)
        no = txns[k]["no"]
        if csum in ("v2", "v3"):
            d.skipped.add((no, i))
            # as in Linux, a revoked version is never read, so never
            # found bad
            d.flagged = txns[k]["committed"] and not revoked(
                txns[k]["log"][i], txns[k]["tid"],
                [r for r in txns if r["committed"]])
        else:
            d.flips[(no, i)] = (off, mask)
            d.flagged = csum == "v1" and txns[k]["committed"]
        d.what = "data %d of txn %d (block %d), byte %d ^ 0x%02x" % (
            i, no, txns[k]["log"][i], off, mask)
    elif kind == "descr-csum":
        cand = [k for k, t in enumerate(txns) if t["log"]]
        k = rnd.choice(cand)
        owners = descriptor_of(walked[k])
        desc = rnd.choice(sorted(set(owners)))
        xor_byte(j, desc, bs - 4 + rnd.randrange(4), rnd.randint(1, 255))
        for i, o in enumerate(owners):
            if o == desc:
                d.skipped.add((txns[k]["no"], i))
        d.flagged = txns[k]["committed"]
        d.what = "descriptor %d of txn %d: checksum" % (desc, txns[k]["no"])
    elif kind == "revoke-csum":
        k = rnd.choice([k for k, t in enumerate(txns) if t["revoke"]])
        rb = rnd.choice([jb for jb, x in walked[k]["blocks"].items()
                         if x == "revoke"])
        xor_byte(j, rb, bs - 4 + rnd.randrange(4), rnd.randint(1, 255))
        d.flagged = txns[k]["committed"]
        d.what = "revoke block %d of txn %d: checksum" % (rb, txns[k]["no"])
    elif kind == "jsb-csum":
        raw = bytearray(j.read(j.sb_block))
        raw[0xFC + rnd.randrange(4)] ^= rnd.randint(1, 255)
        j.write(j.sb_block, bytes(raw))
        # with nothing to recover e2fsck's own check fixes it, under
        # every policy, as e2fsprogs does
        d.flagged = any(t["committed"] and t["tid"] is not None
                        for t in txns)
    elif kind in ("descr-header", "revoke-rcount", "zero"):
        want = {"descr-header": ("descriptor",), "revoke-rcount": ("revoke",),
                "zero": ("descriptor", "data", "revoke", "commit")}[kind]
        blk, what = rnd.choice([(jb, x) for t in walked
                                for jb, x in t["blocks"].items()
                                if x in want])
        raw = bytearray(j.read(blk))
        if kind == "descr-header":
            raw[rnd.choice([0, 1, 2, 3, 8])] ^= rnd.randint(1, 255)
        elif kind == "revoke-rcount":
            raw[12:16] = struct.pack(">I", rnd.choice(
                [0, 1, 15, 17, bs - 1, bs + 8, 0x7FFFFFFF, 0xFFFFFFFF,
                 rnd.getrandbits(32)]))
        else:
            raw = bytearray(bs)
        j.write(blk, bytes(raw))
        d.predictable = False
        d.what = "%s: %s block %d" % (kind, what, blk)
    elif kind == "tag-flags":
        # one flag of one tag: escape, same-UUID or last-tag
        k = rnd.choice([k for k, t in enumerate(txns) if t["log"]])
        desc = rnd.choice(sorted(set(descriptor_of(walked[k]))))
        raw = bytearray(j.read(desc))
        at = rnd.choice([off for off, _, _ in
                         jfmt.tags(jfmt.JSB(j.read(j.sb_block)), bs, raw)])
        bit = rnd.choice([1, 2, 8])
        raw[at + 7] ^= bit          # the flags' low byte, in every layout
        j.write(desc, bytes(raw))
        d.predictable = False
        d.what = "tag-flags: descriptor %d of txn %d, tag at byte %d, " \
                 "flag %d flipped" % (desc, txns[k]["no"], at, bit)
    elif kind in ("jsb-field", "jsb-first", "jsb-maxlen"):
        raw = j.read(j.sb_block)
        start = struct.unpack(">I", raw[0x1C:0x20])[0]
        wraps = any(jb < start for t in walked for jb in t["blocks"])
        name, d.what = jsb_field(rnd, j, csum, wraps,
                                 kind[4:] if kind != "jsb-field" else None)
        # an internal journal's s_nr_users says nothing about its log,
        # which replay-all must then replay as if it were undamaged
        d.predictable = name == "nr_users" and not b.jnl
        d.jsb = True
    else:
        blocks = sorted({jb for t in walked for jb in t["blocks"]})
        blk = rnd.choice(blocks)
        raw = bytearray(j.read(blk))
        n = rnd.randint(1, 16)
        for _ in range(n):
            raw[rnd.randrange(len(raw))] ^= 1 << rnd.randrange(8)
        j.write(blk, bytes(raw))
        d.predictable = False
        d.what = "%d bit flips in log block %d (%s)" % (
            n, blk, [t["blocks"][blk] for t in walked
                     if blk in t["blocks"]][0])
    return d


def model(b, d):
    """What replay-all must do, from the recipe and the damage: (fs block
    -> the content it leaves there, absent: as before; (tid, fs block) ->
    the verdicts the report may give that version of a transaction it
    replays)."""
    live = [t for t in b.txns if t["committed"] and t["tid"] is not None
            and t["no"] not in d.excluded]
    final, verdicts, last = {}, {}, {}
    for t in live:
        for i, (blk, data) in enumerate(zip(t["log"], t["data"])):
            if (t["no"], i) in d.moved:
                # never written, under any policy
                verdicts[(t["tid"], d.moved[(t["no"], i)])] = \
                    {"out_of_range"}
                continue
            key = (t["tid"], blk)
            gone = revoked(blk, t["tid"], live)
            if (t["no"], i) in d.skipped:
                if d.kind == "descr-csum" or (t["no"], i) in d.untrusted:
                    # its tags are not trusted, revoked or not
                    verdicts[key] = {"untrusted_desc", "revoked"}
                else:
                    verdicts[key] = {"revoked" if gone else "bad_csum"}
                continue
            if gone:
                verdicts[key] = {"revoked"}
                continue
            if blk in last:
                verdicts[last[blk]] = {"superseded"}
            last[blk] = key
            verdicts[key] = {"replayed"}
            if (t["no"], i) in d.replaced:
                data = d.replaced[(t["no"], i)]
            if (t["no"], i) in d.flips:
                off, mask = d.flips[(t["no"], i)]
                data = bytearray(data)
                data[off] ^= mask
                data = bytes(data)
            final[blk] = data
    return final, verdicts


def check_report(want, path, where):
    """The JSON report of the replay-all run against the verdicts @want
    (model())."""
    if not want and not os.path.exists(path):
        return []               # nothing to recover: no replay, no report
    try:
        with open(path) as f:
            rep = json.load(f)
    except (IOError, ValueError) as e:
        return ["replay-all: no report (%s); %s" % (e, where)]
    got = {}
    for e in rep.get("blocks", []):
        got[(e["tid"], e["fs_block"])] = e["verdict"]
    bad = []
    for key, ok in sorted(want.items()):
        if got.get(key) not in ok:
            bad.append("tid %d block %d: %s, not %s" % (
                key[0], key[1], got.get(key), "/".join(sorted(ok))))
    if bad:
        return ["replay-all: report verdicts %s%s; %s" % (
            "; ".join(bad[:4]), " (%d in all)" % len(bad)
            if len(bad) > 4 else "", where)]
    return []


def superblocks(img):
    rc, out, err = jfmt.run([jgen.DUMPE2FS, img], ENV)
    return {int(m) for m in re.findall(r"[Ss]uperblock at (\d+)", out)}


def fsck(d, prog, args, has_jnl, timeout=None):
    """Run @prog ARGS on "img" in directory @d: (exit, normalised
    output); exit None if it ran longer than @timeout seconds."""
    argv = [prog] + args + (["-j", "img.jnl"] if has_jnl else []) + ["img"]
    rc, out, _ = jfmt.run(argv, ENV, b"", cwd=d, merge=True,
                          timeout=timeout)
    text, skip = [], False
    # under stop ours prints e2fsprogs' output alone, -n included
    stop = "journal_policy=stop" in args
    for line in out.splitlines():
        if DRY_RUN_FROM in line and not stop:
            skip = True
        if skip:
            skip = not line.startswith(DRY_RUN_TO)
            continue
        if line.startswith("Memory used:") or line.startswith("I/O read:"):
            continue
        if line.startswith(prog + ":"):
            line = "e2fsck:" + line[len(prog) + 1:]
        text.append(line)
    return rc, text


def sb_view(d, random_seq=False):
    """dumpe2fs -h of "img", times and checksums aside (and the journal's
    sequence when @random_seq)."""
    rc, out, err = jfmt.run([jgen.DUMPE2FS, "-h", os.path.join(d, "img")],
                            ENV)
    skip = re.compile(r"time|Last|created|Lifetime|Checksum:|Next check|"
                      r"Journal checksum:")
    return [l for l in out.splitlines() if not skip.search(l) and
            not (random_seq and l.startswith("Journal sequence:"))]


def setup(b, dmg_img, dmg_jnl, d):
    os.makedirs(d, exist_ok=True)
    jgen.sparse_copy(dmg_img, os.path.join(d, "img"))
    if dmg_jnl:
        jgen.sparse_copy(dmg_jnl, os.path.join(d, "img.jnl"))


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d: %r / %r" % (i + 1, x, y)
    return "line %d: one output ends" % (min(len(a), len(b)) + 1)


def same_but_clock(x, y, lo, hi):
    """Whether blocks @x and @y differ only in 32-bit words that hold, on
    both sides, a time between @lo and @hi (the runs' own clock: e2fsck
    stamps a journal inode it recreates, and the two runs may straddle a
    second)."""
    for off in range(0, len(x) - 3, 4):
        a, b = x[off:off + 4], y[off:off + 4]
        if a == b:
            continue
        ta, tb = struct.unpack("<I", a)[0], struct.unpack("<I", b)[0]
        if not (lo <= ta <= hi and lo <= tb <= hi):
            return False
    return True


def diff_offsets(x, y):
    """The first few offsets at which @x and @y differ."""
    return [i for i in range(min(len(x), len(y))) if x[i] != y[i]][:6]


# the REF's "-y -E journal_only" lines that say it only replayed
REPLAY_ONLY = re.compile(r"^(e2fsck [0-9.]+ \(|\S+: recovering journal$|"
                         r"Journal checksum error found in |"
                         r"\S+ was not cleanly unmounted|$)")


def compare_replay(b, dmg, dimg, djnl, work, where):
    """Check 4: "e2journal replay --policy stop" against e2fsprogs' "e2fsck
    -y -E journal_only", where the latter only replays (asks nothing):
    the image and journal byte for byte but for the superblock's
    s_kbytes_written and so its checksum, and e2fsprogs' superblock state
    and error fields, which e2fsck sets and e2journal reports instead."""
    if not E2JOURNAL or (dmg.jsb and not REPLAY_JSB):
        # a journal superblock the opener finds unusable: e2journal
        # refuses it (POLICY.md), e2fsck's own checks decide before any
        # replay
        return []
    dirs = []
    for who in ("cref", "cours"):
        dirs.append(os.path.join(work, who))
        setup(b, dimg, djnl, dirs[-1])
    lo = int(time.time()) - 1
    rr, rout = fsck(dirs[0], REF, ["-y", "-E", "journal_only"], b.jnl,
                    REF_TIMEOUT)
    argv = [E2JOURNAL, "replay", "--policy", "stop", "img"] + \
        (["-j", "img.jnl"] if b.jnl else [])
    orc, oout, _ = jfmt.run(argv, ENV, b"", cwd=dirs[1], merge=True,
                            timeout=FSCK_TIMEOUT)
    if orc is None or orc >= 128 or orc < 0:
        return ["replay: e2journal replay --policy stop died or hung "
                "(exit %s); %s" % (orc, where)]
    hi = int(time.time()) + 1
    if rr is None or rr not in (0, 1) or \
            not all(REPLAY_ONLY.match(l) for l in rout):
        return []               # e2fsprogs did more than replay
    if OUT_OF_RANGE in oout:
        return []
    bs = b.spec.bs
    bad = []
    for name in ("img", "img.jnl"):
        if name == "img.jnl" and (not b.jnl or dmg.missing):
            continue
        x, y = [open(os.path.join(dd, name), "rb").read() for dd in dirs]
        if len(x) != len(y):
            bad.append("replay: %s size %d, e2fsprogs %d; %s" % (
                name, len(y), len(x), where))
            continue
        x, y = bytearray(x), bytearray(y)
        if name == "img":
            for v in (x, y):
                # s_kbytes_written, s_checksum; s_state, s_errors-time
                # fields: e2fsck marks an fs whose journal failed
                v[1024 + 0x178:1024 + 0x180] = bytes(8)
                v[1024 + 0x3FC:1024 + 0x400] = bytes(4)
        if x != y and name == "img" and x[2048:] == y[2048:] and \
                same_but_clock(x[:2048], y[:2048], lo, hi):
            continue
        if x != y:
            off = diff_offsets(x, y)
            bad.append("replay: %s block %d (byte %d) differs from "
                       "e2fsprogs' -E journal_only (ours exit %d, "
                       "e2fsprogs %d); %s" % (name, off[0] // bs,
                                              off[0] % bs, orc, rr, where))
    return bad


def compare_stop(b, d, work, where, mode):
    """Check 1: returns a list of problems."""
    bad = []
    bs = b.spec.bs
    lo = int(time.time()) - 1
    rr, rout = fsck(os.path.join(work, "ref"), REF, mode, b.jnl,
                    REF_TIMEOUT)
    orc, oout = fsck(os.path.join(work, "stop"), OURS,
                     ["-E", "journal_policy=stop"] + mode, b.jnl,
                     FSCK_TIMEOUT)
    hi = int(time.time()) + 1
    if orc is None:
        return ["stop: our e2fsck ran for more than %d s; %s" %
                (FSCK_TIMEOUT, where)]
    if orc >= 128 or orc < 0:
        return ["stop: our e2fsck died (exit %d); %s" % (orc, where)]
    if rr is None:
        # e2fsprogs 1.47 follows descriptors that lead round in a circle
        # for ever; ours stops after a lap
        log("  e2fsprogs ran for more than %d s (ours: exit %d); %s" %
            (REF_TIMEOUT, orc, where))
        return []
    if any(OUT_OF_RANGE in l for l in oout):
        return []               # POLICY.md's one allowed difference
    if rr != orc:
        bad.append("stop: exit %d, e2fsprogs %d; %s" % (orc, rr, where))
    if rout != oout:
        bad.append("stop: output differs from e2fsprogs' at %s; %s" %
                   (first_diff(oout, rout), where))
    sbs = superblocks(os.path.join(work, "ref", "img"))
    # e2fsprogs gives a journal it resets for a bad superblock a random
    # sequence: that field (and so the checksum) may differ
    random_seq = any("Journal superblock is corrupt" in l for l in rout)
    jname = "img.jnl" if b.jnl else "img"
    for name in ("img", "img.jnl"):
        if name == "img.jnl" and not b.jnl:
            continue
        there = [os.path.exists(os.path.join(work, who, name))
                 for who in ("ref", "stop")]
        if there != [True, True]:
            if there[0] != there[1]:
                bad.append("stop: %s there %s, e2fsprogs' %s; %s" % (
                    name, there[1], there[0], where))
            continue
        imgs = []
        for who in ("ref", "stop"):
            p = os.path.join(work, who, name)
            with open(p, "rb") as f:
                raw = bytearray(f.read())
            if random_seq and name == jname:
                j = b.open_journal(p if name == "img" else None,
                                   p if name == "img.jnl" else None)
                off = j.phys(j.sb_block) * bs
                raw[off + 0x18:off + 0x1C] = bytes(4)
                raw[off + 0xFC:off + 0x100] = bytes(4)
            imgs.append(raw)
        x, y = imgs
        if len(x) != len(y):
            bad.append("stop: %s size %d, e2fsprogs %d; %s" % (
                name, len(y), len(x), where))
            continue
        for n in range(len(x) // bs):
            xb, yb = x[n * bs:(n + 1) * bs], y[n * bs:(n + 1) * bs]
            if xb != yb and name == "img" and n in sbs:
                if STRICT_SB:
                    # byte for byte but for the clock (and so the
                    # checksum, s_checksum at 0x3FC of the superblock)
                    at = 1024 if n == 0 and bs > 1024 else 0
                    xb, yb = bytearray(xb), bytearray(yb)
                    xb[at + 0x3FC:at + 0x400] = bytes(4)
                    yb[at + 0x3FC:at + 0x400] = bytes(4)
                    if not same_but_clock(xb, yb, lo, hi):
                        bad.append("stop: %s superblock block %d differs "
                                   "from e2fsprogs' (bytes %s); %s" % (
                                       name, n, diff_offsets(xb, yb),
                                       where))
                        break
                continue
            if xb != yb and not same_but_clock(xb, yb, lo, hi):
                bad.append("stop: %s block %d differs from e2fsprogs'; %s"
                           % (name, n, where))
                break
    va, vb = sb_view(os.path.join(work, "ref"), random_seq), \
        sb_view(os.path.join(work, "stop"), random_seq)
    if va != vb:
        bad.append("stop: superblock differs from e2fsprogs' at %s; %s" %
                   (first_diff(vb, va), where))
    return bad


def changed(d, dimg, djnl):
    """Which of "img" and "img.jnl" in @d differ from @dimg and @djnl."""
    return [name for src, name in ((dimg, "img"), (djnl, "img.jnl"))
            if src and os.path.exists(os.path.join(d, name)) and
            jgen.sha(src) != jgen.sha(os.path.join(d, name))]


def check_all(b, dmg, pre_img, work, where, mode):
    """Check 2: returns a list of problems."""
    bad = []
    bs = b.spec.bs
    d = os.path.join(work, "all")
    report = os.path.join(d, "report.json")
    rc, out = fsck(d, OURS, mode + ["-E", "journal_report=" + report],
                   b.jnl, FSCK_TIMEOUT)
    if rc is None:
        return ["replay-all: our e2fsck ran for more than %d s; %s" %
                (FSCK_TIMEOUT, where)]
    pre_jnl = pre_img + ".jnl" if b.jnl and not dmg.missing else None
    if dmg.jsb and any("nothing replayed" in l for l in out):
        # a log whose layout is in doubt, which does not parse cleanly:
        # nothing written
        bad = []
        if rc != 4:
            bad.append("replay-all: nothing replayed, exit %d; %s" %
                       (rc, where))
        for name in changed(d, pre_img, pre_jnl):
            bad.append("replay-all: exit 4 but %s changed; %s" %
                       (name, where))
        return bad
    if rc not in (0, 1) and dmg.jsb:
        # a journal superblock e2fsck gives up on: as e2fsprogs does
        r = os.path.join(work, "allref")
        setup(b, pre_img, pre_jnl, r)
        forced = dmg.kind in FS_KINDS and "-f" not in mode and \
            any("forcing a full check" in l for l in out)
        if forced:
            # damage found through a damaged journal inode makes ours run
            # the full check, which may find what e2fsprogs' own full
            # check finds: the exit as e2fsprogs' -f gives
            mode = ["-f"] + mode
        rr, rout = fsck(r, REF, mode, b.jnl, REF_TIMEOUT)
        if forced and rr is not None:
            if rr != rc:
                return ["replay-all: exit %d, e2fsprogs %s %d; %s" % (
                    rc, " ".join(mode), rr, where)]
            return []
        if rr is not None and (rr, rout) != (rc, out):
            return ["replay-all: exit %d, e2fsprogs %d%s; %s" % (
                rc, rr, "" if rout == out else ", output differs at " +
                first_diff(out, rout), where)]
        return []
    if rc not in (0, 1):
        return ["replay-all: exit %d; %s\n    %s" % (rc, where,
                                                     "\n    ".join(out))]
    if dmg.flagged and rc != 1:
        bad.append("replay-all: exit %d on flagged damage; %s" % (rc, where))
    if dmg.flagged and mode == ["-y"] and \
            not any(l.startswith("Pass 5:") for l in out):
        bad.append("replay-all: flagged damage, but -y ran no full check; "
                   "%s" % where)
    img = os.path.join(d, "img")
    state = jgen.fs_state(img)
    if state[1] & jgen.RECOVER:
        bad.append("replay-all: needs_recovery still set; %s" % where)
    if dmg.predictable:
        final, verdicts = model(b, dmg)
        touched = {x for t in b.txns for x in t["log"] + t["revoke"]}
        wrong = []
        for blk in sorted(touched):
            want = final.get(blk)
            if want is None:
                want = jgen.read_block(pre_img, bs, blk)
            if jgen.read_block(img, bs, blk) != want:
                wrong.append(blk)
        if wrong:
            bad.append("replay-all: blocks %s differ from the policy's "
                       "model; %s" % (wrong[:8], where))
        bad += check_report(verdicts, report, where)
    rc2, out2 = fsck(d, REF, ["-fn"], b.jnl)
    if rc2 != 0 and dmg.kind in FS_KINDS:
        # e2fsprogs' own run may leave what its -fn finds (its pass 1
        # clears a journal inode's bad extent, the journal stays)
        r = os.path.join(work, "allref")
        setup(b, pre_img, pre_jnl, r)
        rr, _ = fsck(r, REF, mode, b.jnl, REF_TIMEOUT)
        rr2, _ = fsck(r, REF, ["-fn"], b.jnl)
        if rr2 != 0:
            rc2 = 0
    if rc2 != 0:
        bad.append("replay-all: e2fsprogs' -fn afterwards exits %d; %s\n"
                   "    %s" % (rc2, where, "\n    ".join(out2[-8:])))
    return bad


def check_refuse(b, dimg, djnl, work, where, mode):
    """Check 3: damage replay-all flags makes refuse replay nothing: exit
    4, image and journal untouched."""
    d = os.path.join(work, "refuse")
    setup(b, dimg, djnl, d)
    rc, out = fsck(d, OURS, ["-E", "journal_policy=refuse"] + mode, b.jnl,
                   FSCK_TIMEOUT)
    bad = []
    if rc != 4:
        bad.append("refuse: exit %d, not 4; %s" % (rc, where))
    for name in changed(d, dimg, djnl):
        bad.append("refuse: %s changed; %s" % (name, where))
    return bad


BROAD_FS = {1024: [8192, 16384, 32768, 65536],
            2048: [4096, 8192, 16384, 32768],
            4096: [3072, 4096, 8192, 16384]}


def broad_header(rnd, index):
    """jgen.random_header, drawn more widely: 2 KiB blocks too, journal
    sizes 1024-4096 blocks, and a first tid anywhere (near the wrap of
    tids too)."""
    bs = [1024, 2048, 4096][index % 3]
    blocks = rnd.choice(BROAD_FS[bs])
    b64 = rnd.random() < 0.5
    mcsum = rnd.random() < 0.5
    feats = ["64bit" if b64 else "^64bit",
             "metadata_csum" if mcsum else "^metadata_csum"]
    csum = rnd.choice(["v3", "v2", "none"] if mcsum else ["v1", "none"])
    external = rnd.random() < 0.3
    if external:
        jsize = rnd.choice([1024, 1536, 2048, 3000, 4096])
    else:
        jsize = rnd.choice([n for n in (1024, 2048, 4096)
                            if n <= blocks // 4] or [1024])
    lines = ["# broad recipe %d" % index,
             "fs %d %d %s" % (bs, blocks, ",".join(feats)),
             "journal %s %d%s" % ("external" if external else "internal",
                                  jsize, " nousers" if external and
                                  rnd.random() < 0.2 else ""),
             "csum %s" % csum,
             "seed %d" % rnd.getrandbits(32)]
    if csum == "v1" and rnd.random() < 0.5:
        # debugfs' own v1 commit checksums, as a test made with debugfs
        # alone has them: a transaction with revoke blocks fails its
        # commit checksum (debugfs counts them in, Linux does not)
        lines.append("v1fix off")
    r = rnd.random()
    if r < 0.5:
        seq = rnd.choice([rnd.getrandbits(32), 0xFFFFFFFF - rnd.randrange(6),
                          0x7FFFFFFF - rnd.randrange(3), 0x80000000,
                          rnd.randrange(2, 100)])
        lines.append("sequence %#x" % seq)
    return lines, bs, jsize, b64, csum


def run_case(seed, i, work, kinds, broad=False):
    rnd = random.Random("jfsck/%s/%d" % (seed, i))
    if broad:
        head, bs, jsize, b64, csum = broad_header(rnd, i)
    else:
        head, bs, jsize, b64, csum = jgen.random_header(rnd, i)
    sub = os.path.join(work, "%03d" % i)
    if os.path.isdir(sub):
        shutil.rmtree(sub)
    os.makedirs(sub)
    probe = jgen.Build(jgen.Spec("\n".join(head) + "\n"), sub)
    probe.mkfs()
    probe.layout()
    body = jgen.random_body(rnd, bs, jsize, b64, csum, len(probe.lay.free))
    text = "\n".join(head + body) + "\n"
    b = jgen.Build(jgen.Spec(text), sub)
    b.build()
    kind = choose_kind(rnd, csum, b, kinds)
    for axis, val in (("csum", csum), ("block", "%dk" % (bs // 1024)),
                      ("tags", "64bit" if b64 else "32bit"),
                      ("journal", "external" if b.jnl else "internal"),
                      ("damage", kind or "(empty journal)")):
        TALLY.setdefault(axis, {}).setdefault(val, 0)
        TALLY[axis][val] += 1
    desc = "case %d (%s %dk %s %s%s)" % (i, csum, bs // 1024,
                                         "64bit" if b64 else "32bit",
                                         "external" if b.jnl else "internal",
                                         "" if kind else ", empty journal")
    if not kind:
        return desc, []
    dimg = os.path.join(sub, "damaged")
    djnl = os.path.join(sub, "damaged.jnl") if b.jnl else None
    jgen.sparse_copy(b.img, dimg)
    if djnl:
        jgen.sparse_copy(b.jnl, djnl)
    j = b.open_journal(dimg, djnl)
    j.paths = (dimg, djnl)
    dmg = damage(rnd, b, j, kind, csum)
    if dmg is None:
        return desc + ", no %s damage possible" % kind, []
    if dmg.missing:
        # -j names a file that is not there
        djnl = None
    for part in getattr(dmg, "parts", []):
        TALLY.setdefault("double of", {}).setdefault(part, 0)
        TALLY["double of"][part] += 1
    if b.spec.v1fix == "off" and csum == "v1":
        # debugfs' v1 checksum of a transaction with revoke blocks fails
        # (row 1 of the decision table: replayed, flagged); a damaged
        # journal superblock has its own rules (see check_all)
        desc += ", debugfs v1 checksums"
        if not dmg.jsb and any(t["committed"] and t["revoke"] and
                               t["tid"] is not None and
                               t["no"] not in dmg.excluded
                               for t in b.txns):
            dmg.flagged = True
    where = "seed %s %s: %s" % (seed, desc, dmg.what)
    for who in ("ref", "stop", "all"):
        setup(b, dimg, djnl, os.path.join(sub, who))
    smode = rnd.choice(STOP_MODES)
    amode = rnd.choice(ALL_MODES)
    for axis, val in (("stop mode", " ".join(smode)),
                      ("replay-all mode", " ".join(amode)),
                      ("flagged", str(dmg.flagged)),
                      ("predicted", str(dmg.predictable))):
        TALLY.setdefault(axis, {}).setdefault(val, 0)
        TALLY[axis][val] += 1
    where += " (stop %s, replay-all %s)" % (" ".join(smode), " ".join(amode))
    bad = compare_stop(b, dmg, sub, where, smode)
    if bad and all(" block " in x for x in bad):
        # e2fsck stamps an inode it creates (and its checksum) with the
        # time: once more, in case the two runs straddled a second
        for who in ("ref", "stop"):
            setup(b, dimg, djnl, os.path.join(sub, who))
        bad = compare_stop(b, dmg, sub, where, smode)
    if broad and smode != ["-fy"]:
        # e2fsck -fy, the rescue run, every time
        for who in ("ref", "stop"):
            setup(b, dimg, djnl, os.path.join(sub, who))
        fy = compare_stop(b, dmg, sub, where + " [-fy]", ["-fy"])
        if fy and all(" block " in x for x in fy):
            for who in ("ref", "stop"):
                setup(b, dimg, djnl, os.path.join(sub, who))
            fy = compare_stop(b, dmg, sub, where + " [-fy]", ["-fy"])
        bad += fy
    if broad:
        bad += compare_replay(b, dmg, dimg, djnl, sub, where)
    bad += check_all(b, dmg, dimg, sub, where, amode)
    if dmg.flagged:
        bad += check_refuse(b, dimg, djnl, sub, where, amode)
    return where, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--name", default="jfsck")
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", type=int)
    ap.add_argument("--kinds", help="comma-separated damage kinds to draw "
                    "from (default: all)")
    ap.add_argument("--broad", action="store_true",
                    help="the broad campaign: 2 KiB blocks, more journal "
                    "sizes and first tids, the kinds of BROAD_KINDS, -fy "
                    "always compared, superblocks byte for byte and "
                    "e2journal replay --policy stop against -E "
                    "journal_only")
    ap.add_argument("--more", action="store_true",
                    help="with --broad: the kinds of MORE_KINDS too "
                    "(damage outside the log, two damages in one "
                    "journal)")
    ap.add_argument("--host-conf", action="store_true",
                    help="run every e2fsck without E2FSCK_CONFIG=/dev/null "
                    "(the host's /etc/e2fsck.conf, as on a real system; "
                    "our e2fsck's -E journal_only shortcut is taken only "
                    "then)")
    ap.add_argument("--replay-jsb", action="store_true",
                    help="compare e2journal replay --policy stop with "
                    "e2fsck -E journal_only on journal superblock damage "
                    "too (counted: e2journal refuses what its opener finds "
                    "unusable, e2fsprogs may replay it)")
    a = ap.parse_args()
    global STRICT_SB, REPLAY_JSB
    if a.host_conf:
        ENV.pop("E2FSCK_CONFIG", None)
    STRICT_SB = a.broad
    REPLAY_JSB = a.replay_jsb
    kinds = a.kinds.split(",") if a.kinds else \
        (BROAD_KINDS + (MORE_KINDS if a.more else []) if a.broad
         else KINDS)
    known = set(BROAD_KINDS + MORE_KINDS + NAMED_KINDS)
    if set(kinds) - known:
        print("RESULT FAIL %s: unknown damage kinds %s" %
              (a.name, sorted(set(kinds) - known)))
        return 1
    if not OURS or not os.access(OURS, os.X_OK):
        print("RESULT FAIL %s: E2FSCK_OURS (%r) is not a program" %
              (a.name, OURS))
        return 1
    nbad = ncase = 0
    for i in range(a.count):
        if a.only is not None and i != a.only:
            continue
        try:
            where, bad = run_case(a.seed, i, a.work, kinds, a.broad)
        except (jgen.SpecError, RuntimeError, IOError) as e:
            where, bad = "case %d" % i, ["could not build: %s" % e]
        ncase += 1
        log("%s: %s" % (where, "ok" if not bad else "MISMATCH"))
        for x in bad:
            log("  " + x)
        if bad:
            nbad += 1
            if not a.only:
                print("RESULT FAIL %s/%03d: %s" % (a.name, i, bad[0]))
        elif not ENV.get("EJ_KEEP"):
            shutil.rmtree(os.path.join(a.work, "%03d" % i),
                          ignore_errors=True)
    for axis in sorted(TALLY):
        log("%s: %s" % (axis, ", ".join("%s %d" % kv for kv in
                                         sorted(TALLY[axis].items()))))
    log("%d cases, %d with a difference (seed %s)" % (ncase, nbad, a.seed))
    if a.only is not None and nbad:
        print("RESULT FAIL %s: case %d" % (a.name, a.only))
    elif not nbad:
        print("RESULT PASS %s: %d damaged journals, ours as e2fsprogs "
              "under stop and as POLICY.md under replay-all" %
              (a.name, ncase))
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())
