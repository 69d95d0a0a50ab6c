#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkrevoke-image.py - build a sparse ext4 image whose JBD2 journal (csum v3,
64-bit) holds committed, un-replayed transactions with a very large number of
revoke records, for timing journal replay.  See --help."""

import argparse
import ctypes
import ctypes.util
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

BS = 4096
JBD2_MAGIC = 0xC03B3998
T_DESCRIPTOR, T_COMMIT, T_SB_V2, T_REVOKE = 1, 2, 4, 5
F_SAME_UUID, F_LAST_TAG = 0x2, 0x8
INCOMPAT_REVOKE, INCOMPAT_64BIT, INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3 = 0x1, 0x2, 0x8, 0x10
TAIL = 4                                   # jbd2_journal_block_tail (csum v2/v3)
REVOKES_PER_BLOCK = (BS - 16 - TAIL) // 8  # 509 64-bit records
TAGS_PER_DESCRIPTOR = 250                  # 16-byte tag3 (+16-byte UUID after the first)
COMMIT_SEC0 = 1700000000                   # h_commit_sec of the first commit (+1 per txn)
SBIN = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")

DESCRIPTION = """\
Builds OUT.img: an ext4 file system (mke2fs -q -F -o Linux -b 4096
-O 64bit,has_journal,metadata_csum -T ext4 -J size=MiB) whose internal
journal holds T committed transactions written directly by this script
(csum v3, 64-bit, revoke), with needs_recovery set, so that the next
`e2fsck -y -E journal_only OUT.img` replays them.

Each transaction i (tid = first-tid + i) is laid out as the kernel writes
it: revoke blocks (509 eight-byte records each), descriptor block(s) with
csum-v3 tags, D data blocks, commit block (h_commit_sec increasing).
s_start = 1, s_sequence = first tid; the journal does not wrap.

Blocks: the "safe pool" is the free data blocks outside groups 0 and last
(from dumpe2fs), so nothing replayed or revoked touches metadata or the
journal.  A hot set of max(D*T/4, 5*D/4) pool blocks is logged, D distinct
ones per transaction, so blocks are logged several times; each data block
holds "mkrevoke tid=... blk=... |" repeated, and every hot block first gets
"mkrevoke ORIGINAL blk=... |" in place, so "not replayed" is visible.
The --revokes N records are spread evenly over the T transactions.  In
transaction i > 0, up to D/4 of them revoke hot blocks logged in earlier
transactions (never one logged in transaction i itself), so revokes really
suppress replays; the rest revoke cold pool blocks (never logged), distinct
while they last (a shuffled pool, reused cyclically once exhausted, or a
pool of --revoke-pool K blocks).  With --fs-size auto the fs is made large
enough for all records to name distinct blocks (2560 MiB holds ~320,000).

Checks: the journal is read back with `debugfs -R 'logdump'` and
`logdump -a` (transactions, descriptor/revoke/commit blocks, logged blocks,
revoke records, end of log must match the plan).  --verify then replays a
temporary copy with e2fsck -y -E journal_only (exit status 0/1, no
complaint, needs_recovery cleared), compares every hot block with the
expected content (last version logged after the block's last revoke, or
the ORIGINAL content when every version was revoked), checks that sampled
revoked cold blocks are untouched, and runs e2fsck -fn on the copy.
For an image replayed by another tool use verify-replay.sh ORIG REPLAYED.

crc32c comes from libext2fs (ctypes, ext2fs_crc32c_le) or, if that cannot
be loaded, a slow pure-Python table.  Temporary data (the --verify copy)
goes under a tempfile directory (set TMPDIR to move it); the image itself is
written as OUT.img.partial.PID next to OUT.img and renamed when complete.
"""

EPILOG = """\
Summary line (stdout): revoke records, distinct revoked blocks, records
that revoke logged blocks, logged versions, journal blocks used, fs size.

Example:
  bench/kit/mkrevoke-image.py r1m.img --revokes 1000000 --verify
  bench/kit/replay-bench.sh --runs 3 --warmup 0 --no-ref --no-floor \\
      --image r1m.img -- e2fsck -y -E journal_only {img}
"""


def die(msg):
    sys.stderr.write("mkrevoke-image: error: %s\n" % msg)
    sys.exit(1)


def note(msg):
    sys.stderr.write("mkrevoke-image: %s\n" % msg)
    sys.stderr.flush()


def tool(name):
    path = shutil.which(name)
    if path:
        return path
    for d in SBIN:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    die("%s not found (install e2fsprogs)" % name)


def run(cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        die("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode,
                                         p.stderr.decode(errors="replace")[-500:]))
    return p


# ---------------------------------------------------------------- crc32c ---
def make_crc32c():
    """Return (crc, backend): crc(seed, data) is the raw crc32c register
    (start from seed, no final inversion), as ext2fs_crc32c_le/jbd2_chksum."""
    names = []
    found = ctypes.util.find_library("ext2fs")
    if found:
        names.append(found)
    names.append("libext2fs.so.2")
    for name in names:
        try:
            fn = ctypes.CDLL(name).ext2fs_crc32c_le
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_uint32
        fn.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]

        def crc(seed, data, fn=fn):
            data = bytes(data)
            return fn(seed & 0xFFFFFFFF, data, len(data))
        if crc(0xFFFFFFFF, b"123456789") == 0x1CF96D7C:
            return crc, "libext2fs"
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)

    def crc(seed, data, table=table):
        c = seed & 0xFFFFFFFF
        for b in bytes(data):
            c = table[(c ^ b) & 0xFF] ^ (c >> 8)
        return c
    assert crc(0xFFFFFFFF, b"123456789") == 0x1CF96D7C
    return crc, "python (slow)"


# ------------------------------------------------------------ fs helpers ---
def safe_pool(img):
    """Free blocks of groups 1 .. last-1 (ascending), from dumpe2fs."""
    out = run([tool("dumpe2fs"), img]).stdout.decode()
    groups = []
    for line in out.splitlines():
        m = re.match(r"^Group (\d+):", line)
        if m:
            groups.append([])
            continue
        m = re.match(r"^\s+Free blocks: (.*)$", line)
        if m and groups:
            for item in m.group(1).split(","):
                item = item.strip()
                if item:
                    a, _, b = item.partition("-")
                    groups[-1].append((int(a), int(b or a)))
    if len(groups) < 3:
        die("file system too small (need 3 block groups)")
    pool = []
    for rs in groups[1:-1]:
        for a, b in rs:
            pool.extend(range(a, b + 1))
    pool.sort()
    return pool


def journal_map(img):
    """Physical fs block of every journal block, from the extent list (or
    block map) of `debugfs -R 'stat <8>'`; ETB/IND entries are skipped."""
    out = run([tool("debugfs"), "-R", "stat <8>", img]).stdout.decode()
    runs = []
    for m in re.finditer(r"\((\d+)(?:-(\d+))?(?:\[u\])?\):(\d+)(?:-(\d+))?", out):
        l0 = int(m.group(1))
        l1 = int(m.group(2) or l0)
        p0 = int(m.group(3))
        runs.append((l0, l1, p0))
    runs.sort()
    jmap = []
    for l0, l1, p0 in runs:
        if l0 != len(jmap):
            die("journal inode has a hole or overlap at logical block %d" % l0)
        jmap.extend(range(p0, p0 + l1 - l0 + 1))
    if not jmap:
        die("cannot read the journal's block map")
    # cross-check with debugfs bmap
    probe = sorted({0, 1, len(jmap) // 2, len(jmap) - 1})
    cmds = "\n".join("bmap <8> %d" % n for n in probe) + "\n"
    p = subprocess.run([tool("debugfs"), "-f", "-", img], input=cmds.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = [int(x) for x in re.findall(r"^(\d+)$", p.stdout.decode(), re.M)]
    if got != [jmap[n] for n in probe]:
        die("journal map disagrees with debugfs bmap: %s vs %s"
            % (got, [jmap[n] for n in probe]))
    return jmap


def pread(f, blk):
    f.seek(blk * BS)
    return f.read(BS)


def pwrite(f, blk, data):
    assert len(data) == BS
    f.seek(blk * BS)
    f.write(data)


def unit_fill(unit):
    return (unit * (BS // len(unit) + 1))[:BS]


def data_payload(tid, blk):
    return unit_fill(b"mkrevoke tid=%010d blk=%012d |\n" % (tid, blk))


def orig_payload(blk):
    return unit_fill(b"mkrevoke ORIGINAL blk=%012d |\n" % blk)


# ------------------------------------------------------------------ plan ---
def make_plan(args, pool, rng):
    T, D, N = args.txns, args.data_blocks, args.revokes
    hot_n = max((D * T) // 4, (5 * D) // 4 + 1)
    if hot_n + 1 > len(pool):
        die("safe pool has %d blocks, need more than %d hot blocks; lower "
            "--data-blocks/--txns or raise --fs-size" % (len(pool), hot_n))
    hot = rng.sample(pool, hot_n)
    hot_set = set(hot)
    cold = [b for b in pool if b not in hot_set]
    rng.shuffle(cold)
    if args.revoke_pool:
        cold = cold[:args.revoke_pool]
    per_logged = max(1, D // 4)
    txns = []
    logged_list, logged_seen = [], set()
    ci = draws = 0
    for i in range(T):
        tid = (args.first_tid + i) & 0xFFFFFFFF
        r = N // T + (1 if i < N % T else 0)
        data = rng.sample(hot, D)
        dset = set(data)
        nl = 0
        revs = []
        if i > 0 and r > 0:
            cand = [b for b in logged_list if b not in dset]
            nl = min(r, per_logged, len(cand))
            revs = rng.sample(cand, nl)
        for _ in range(r - nl):
            revs.append(cold[ci])
            ci += 1
            draws += 1
            if ci == len(cold):
                ci = 0
        rng.shuffle(revs)
        txns.append({"i": i, "tid": tid, "data": data, "revokes": revs,
                     "n_logged_revokes": nl})
        for b in data:
            if b not in logged_seen:
                logged_seen.add(b)
                logged_list.append(b)
    return txns, hot, cold[:min(draws, len(cold))]


def expected_state(txns):
    """For every logged block: ('orig', None) if every version is revoked
    (revoke in txn j suppresses versions logged in txns <= j), else
    ('tid', tid) of the last surviving version; plus a category."""
    last_rev = {}
    versions = {}
    for t in txns:
        for b in t["revokes"]:
            last_rev[b] = t["i"]
        for b in t["data"]:
            versions.setdefault(b, []).append((t["i"], t["tid"]))
    exp, cat = {}, {"never revoked": 0, "revoked, re-logged later": 0,
                    "revoked, no later version": 0}
    for b, vs in versions.items():
        lr = last_rev.get(b, -1)
        alive = [v for v in vs if v[0] > lr]
        if alive:
            exp[b] = alive[-1][1]
            cat["never revoked" if lr < 0 else "revoked, re-logged later"] += 1
        else:
            exp[b] = None
            cat["revoked, no later version"] += 1
    return exp, cat


# --------------------------------------------------------------- journal ---
def write_journal(f, jmap, txns, crc, uuid, seed):
    """Write all transactions from journal block 1; return (end block,
    counts of revoke/descriptor/data/commit blocks)."""
    maxlen = len(jmap)
    jb = 1
    cnt = {"revoke": 0, "descriptor": 0, "data": 0, "commit": 0}

    def put(block):
        nonlocal jb
        if jb >= maxlen - 1:
            die("journal full: %d blocks; fewer --revokes/--txns/--data-blocks"
                % maxlen)
        pwrite(f, jmap[jb], bytes(block))
        jb += 1

    for t in txns:
        tid = t["tid"]
        recs = t["revokes"]
        for k in range(0, len(recs), REVOKES_PER_BLOCK):
            chunk = recs[k:k + REVOKES_PER_BLOCK]
            blk = bytearray(BS)
            struct.pack_into(">IIII", blk, 0, JBD2_MAGIC, T_REVOKE, tid, 16 + 8 * len(chunk))
            struct.pack_into(">%dQ" % len(chunk), blk, 16, *chunk)
            struct.pack_into(">I", blk, BS - TAIL, crc(seed, blk))
            put(blk)
            cnt["revoke"] += 1
        tid_seed = crc(seed, struct.pack(">I", tid))
        data = t["data"]
        for k in range(0, len(data), TAGS_PER_DESCRIPTOR):
            chunk = data[k:k + TAGS_PER_DESCRIPTOR]
            payloads = [data_payload(tid, b) for b in chunk]
            blk = bytearray(BS)
            struct.pack_into(">III", blk, 0, JBD2_MAGIC, T_DESCRIPTOR, tid)
            off = 12
            for j, b in enumerate(chunk):
                flags = (F_SAME_UUID if j else 0) | (F_LAST_TAG if j == len(chunk) - 1 else 0)
                struct.pack_into(">IIII", blk, off, b & 0xFFFFFFFF, flags, b >> 32,
                                 crc(tid_seed, payloads[j]))
                off += 16
                if j == 0:
                    blk[off:off + 16] = uuid
                    off += 16
            assert off <= BS - TAIL
            struct.pack_into(">I", blk, BS - TAIL, crc(seed, blk))
            put(blk)
            cnt["descriptor"] += 1
            for p in payloads:
                put(p)
                cnt["data"] += 1
        blk = bytearray(BS)
        struct.pack_into(">III", blk, 0, JBD2_MAGIC, T_COMMIT, tid)
        struct.pack_into(">QI", blk, 48, COMMIT_SEC0 + t["i"], (t["i"] * 1000) % 1000000000)
        struct.pack_into(">I", blk, 16, crc(seed, blk))
        put(blk)
        cnt["commit"] += 1
    pwrite(f, jmap[jb], bytes(BS))          # end of log: no magic
    return jb, cnt


def update_jsb(f, jmap, first_tid, crc):
    sb = bytearray(pread(f, jmap[0]))
    magic, btype = struct.unpack_from(">II", sb, 0)
    if magic != JBD2_MAGIC or btype != T_SB_V2:
        die("journal superblock: magic %#x type %d (want v2 superblock)" % (magic, btype))
    jbs, maxlen, first = struct.unpack_from(">III", sb, 0x0C)
    if jbs != BS or maxlen != len(jmap) or first != 1:
        die("journal superblock: blocksize %d maxlen %d first %d (inode has %d blocks)"
            % (jbs, maxlen, first, len(jmap)))
    struct.pack_into(">II", sb, 0x18, first_tid, 1)          # s_sequence, s_start
    struct.pack_into(">I", sb, 0x20, 0)                       # s_errno
    incompat = struct.unpack_from(">I", sb, 0x28)[0]
    incompat = (incompat | INCOMPAT_REVOKE | INCOMPAT_64BIT | INCOMPAT_CSUM_V3) & ~INCOMPAT_CSUM_V2
    struct.pack_into(">I", sb, 0x28, incompat)
    compat = struct.unpack_from(">I", sb, 0x24)[0]
    struct.pack_into(">I", sb, 0x24, compat & ~0x1)          # no v1 COMPAT_CHECKSUM
    sb[0x50] = 4                                              # JBD2_CRC32C_CHKSUM
    struct.pack_into(">I", sb, 0xFC, 0)
    struct.pack_into(">I", sb, 0xFC, crc(0xFFFFFFFF, sb[:1024]))
    pwrite(f, jmap[0], bytes(sb))
    uuid = bytes(sb[0x30:0x40])
    return uuid, crc(0xFFFFFFFF, uuid), bytes(sb)


def check_logdump(img, txns, jend, cnt):
    debugfs = tool("debugfs")
    out = run([debugfs, "-R", "logdump", img]).stdout.decode()
    types = {1: 0, 2: 0, 5: 0}
    for m in re.finditer(r"^Found expected sequence \d+, type (\d+) ", out, re.M):
        t = int(m.group(1))
        types[t] = types.get(t, 0) + 1
    m = re.search(r"No magic number at block (\d+): end of journal", out)
    end = int(m.group(1)) if m else None
    want = {1: cnt["descriptor"], 2: cnt["commit"], 5: cnt["revoke"]}
    if types != want or end != jend:
        die("logdump disagrees: block types %s (want %s), end %s (want %d)"
            % (types, want, end, jend))
    p = subprocess.Popen([debugfs, "-R", "logdump -a", img], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    n_rev = n_log = 0
    for line in p.stdout:
        if line.startswith(b"  Revoke FS block "):
            n_rev += 1
        elif line.startswith(b"  FS block ") and b" logged at " in line:
            n_log += 1
    p.wait()
    want_rev = sum(len(t["revokes"]) for t in txns)
    want_log = sum(len(t["data"]) for t in txns)
    if (n_rev, n_log) != (want_rev, want_log):
        die("logdump -a disagrees: %d revoke records (want %d), %d logged blocks (want %d)"
            % (n_rev, want_rev, n_log, want_log))
    return types


def verify_replay(img, args, txns, cold_used, rng):
    e2fsck = args.e2fsck or tool("e2fsck")
    exp, cat = expected_state(txns)
    with tempfile.TemporaryDirectory(prefix="mkrevoke.") as tmp:
        copy = os.path.join(tmp, "replay.img")
        run(["cp", "--sparse=always", img, copy])
        t0 = time.time()
        p = run([e2fsck, "-y", "-E", "journal_only", copy], check=False)
        dt = time.time() - t0
        text = (p.stdout + p.stderr).decode(errors="replace")
        bad = [l for l in text.splitlines()
               if re.search(r"corrupt|invalid|error|abort|bad|illegal|unable", l, re.I)]
        if p.returncode not in (0, 1) or bad:
            die("e2fsck exit %d, output:\n%s" % (p.returncode, text))
        sbtxt = run([tool("dumpe2fs"), "-h", copy]).stdout.decode()
        if re.search(r"^Filesystem features:.*needs_recovery", sbtxt, re.M):
            die("needs_recovery still set after e2fsck replay")
        wrong = []
        with open(copy, "rb") as f:
            for b, tid in sorted(exp.items()):
                want = orig_payload(b) if tid is None else data_payload(tid, b)
                if pread(f, b) != want:
                    wrong.append((b, tid))
            sample = rng.sample(cold_used, min(200, len(cold_used)))
            zero = bytes(BS)
            cold_bad = [b for b in sample if pread(f, b) != zero]
        if wrong or cold_bad:
            die("replay result wrong: %d logged blocks (first: %s), %d revoked cold "
                "blocks changed" % (len(wrong), wrong[:3], len(cold_bad)))
        fsck = run([e2fsck, "-fn", copy], check=False)
        if fsck.returncode != 0:
            die("e2fsck -fn after replay: exit %d\n%s"
                % (fsck.returncode, fsck.stdout.decode(errors="replace")[-1000:]))
    note("verify: e2fsck -y -E journal_only exit %d in %.2f s; %d logged blocks "
         "checked (%s), %d revoked cold blocks untouched; e2fsck -fn clean"
         % (p.returncode, dt, len(exp),
            ", ".join("%s %d" % kv for kv in cat.items()), len(sample)))


# ------------------------------------------------------------------ main ---
def auto_fs_mib(need, journal_mib):
    mib = max(2560, 2 * journal_mib + 512)
    jblocks = journal_mib * (1 << 20) // BS
    while True:
        blocks = mib * (1 << 20) // BS
        if int(blocks * 0.97) - jblocks - 2 * 32768 >= need * 1.02 + 1000:
            return mib
        mib += 512


def main():
    ap = argparse.ArgumentParser(
        prog="mkrevoke-image.py", usage="%(prog)s OUT.img --revokes N [options]",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", metavar="OUT.img", help="image to create")
    ap.add_argument("--revokes", type=int, required=True, metavar="N",
                    help="total revoke records, spread over the transactions")
    ap.add_argument("--txns", type=int, default=100, metavar="T",
                    help="transactions (default 100)")
    ap.add_argument("--data-blocks", type=int, default=100, metavar="D",
                    help="fs blocks logged per transaction (default 100)")
    ap.add_argument("--seed", type=int, default=1, metavar="S",
                    help="random seed for block choice (default 1)")
    ap.add_argument("--first-tid", type=int, default=1000, metavar="TID",
                    help="tid of the first transaction = s_sequence (default 1000)")
    ap.add_argument("--fs-size", default="auto", metavar="MiB|auto",
                    help="fs size in MiB; auto: 2560, or more if needed for "
                         "every random revoke record to name a distinct block")
    ap.add_argument("--journal-mb", type=int, default=1024, metavar="MiB",
                    help="journal size, mke2fs -J size= (default 1024)")
    ap.add_argument("--revoke-pool", type=int, default=0, metavar="K",
                    help="draw the random (cold) revoke targets from only K "
                         "blocks, reused cyclically (default: all distinct)")
    ap.add_argument("--verify", action="store_true",
                    help="replay a temporary copy with e2fsck -y -E journal_only "
                         "and check the result (see above)")
    ap.add_argument("--e2fsck", metavar="PATH",
                    help="e2fsck used by --verify (default: e2fsck from PATH or /usr/sbin)")
    ap.add_argument("--force", action="store_true", help="overwrite OUT.img")
    args = ap.parse_args()

    if args.revokes < 0 or args.txns < 1 or args.data_blocks < 1 or args.revoke_pool < 0:
        die("--revokes >= 0, --txns >= 1, --data-blocks >= 1, --revoke-pool >= 0")
    if not 0 <= args.first_tid <= 0xFFFFFFFF:
        die("--first-tid must fit in 32 bits")
    if os.path.exists(args.out) and not args.force:
        die("%s exists (use --force)" % args.out)
    crc, backend = make_crc32c()
    if backend != "libext2fs":
        note("libext2fs not loadable; using %s crc32c" % backend)

    T, D, N = args.txns, args.data_blocks, args.revokes
    hot_n = max((D * T) // 4, (5 * D) // 4 + 1)
    n_cold = max(0, N - (T - 1) * max(1, D // 4)) if N else 0
    need = hot_n + (min(n_cold, args.revoke_pool) if args.revoke_pool else n_cold)
    auto = args.fs_size == "auto"
    if auto:
        fs_mib = auto_fs_mib(need, args.journal_mb)
    elif re.fullmatch(r"\d+", args.fs_size):
        fs_mib = int(args.fs_size)
    else:
        die("--fs-size must be a number of MiB or auto")

    partial = "%s.partial.%d" % (args.out, os.getpid())
    t_start = time.time()
    try:
        for attempt in range(4):
            run([tool("mke2fs"), "-q", "-F", "-o", "Linux", "-b", str(BS), "-O",
                 "64bit,has_journal,metadata_csum", "-T", "ext4", "-J",
                 "size=%d" % args.journal_mb, partial, "%dM" % fs_mib])
            pool = safe_pool(partial)
            if not auto or len(pool) >= need + 16:
                break
            fs_mib += 1024
        if len(pool) < need + 16 and not args.revoke_pool:
            note("safe pool has %d blocks < %d needed: cold revoke targets repeat"
                 % (len(pool), need))
        jmap = journal_map(partial)
        rng = random.Random(args.seed)
        txns, hot, cold_used = make_plan(args, pool, rng)
        with open(partial, "r+b") as f:
            for b in hot:
                pwrite(f, b, orig_payload(b))
            uuid, seed, jsb = update_jsb(f, jmap, args.first_tid, crc)
            jend, cnt = write_journal(f, jmap, txns, crc, uuid, seed)
            f.flush()
            os.fsync(f.fileno())
        run([tool("debugfs"), "-w", "-R", "feature needs_recovery", partial])
        sbtxt = run([tool("dumpe2fs"), "-h", partial]).stdout.decode()
        if not re.search(r"^Filesystem features:.*needs_recovery", sbtxt, re.M):
            die("needs_recovery did not get set")
        with open(partial, "rb") as f:
            if pread(f, jmap[0]) != jsb:
                die("journal superblock changed by debugfs -w")
        check_logdump(partial, txns, jend, cnt)
        os.replace(partial, args.out)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    build_s = time.time() - t_start

    n_rec = sum(len(t["revokes"]) for t in txns)
    distinct = len({b for t in txns for b in t["revokes"]})
    n_lrev = sum(t["n_logged_revokes"] for t in txns)
    n_log = sum(len(t["data"]) for t in txns)
    n_hot_logged = len({b for t in txns for b in t["data"]})
    print("mkrevoke-image: %s: fs %d MiB, journal %d blocks, tids %d-%d, safe pool %d blocks"
          % (args.out, fs_mib, len(jmap), txns[0]["tid"], txns[-1]["tid"], len(pool)))
    print("mkrevoke-image: transactions=%d revoke_records=%d distinct_revoked=%d "
          "revokes_of_logged=%d logged_versions=%d distinct_logged=%d "
          "journal_blocks_used=%d (revoke %d, descriptor %d, data %d, commit %d) "
          "build_s=%.1f crc32c=%s"
          % (len(txns), n_rec, distinct, n_lrev, n_log, n_hot_logged, jend - 1,
             cnt["revoke"], cnt["descriptor"], cnt["data"], cnt["commit"], build_s, backend))
    sys.stdout.flush()
    if args.verify:
        verify_replay(args.out, args, txns, cold_used, random.Random(args.seed + 1))


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # run finally/cleanup
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
