# SPDX-License-Identifier: GPL-2.0
"""workload.py: the file-system work done inside User-Mode Linux while
crash.py waits for the moment to kill it.

Usage (as the init script runs it): workload.py MOUNTPOINT SEED KIND OPS

Every operation is drawn from random.Random(SEED), so a seed always asks
for the same work in the same order.  After each operation the script
prints "@@ N" (N counting from 1) on the console and flushes it: crash.py
counts these lines and kills the UML process group after the one its seed
chose.  KIND picks the mix:

  mixed   creates, appends, renames, unlinks, hard links, rm -rf of trees,
          truncates, xattrs, "dd conv=fsync"-style writes, some fsync/sync
  heavy   the same mix with more and bigger writes (small journals wrap)
  fsync   small appends, creates and xattrs each followed by fsync of the
          file (and now and then of its directory): fast-commit traffic
  fcdir   creates (long names) and small appends, each fsynced, in a few
          directories that grow past one block between full commits:
          fast commits that add names to a directory that has to grow
  fcmix   every fast-commit record: fsynced creates (long names in a few
          directories, which grow), appends, sparse writes, truncates,
          fallocate, hard links, renames, symlinks, mkdir, unlinks, and
          files unlinked while open then written and fsynced
"""

import os
import random
import shutil
import sys


def text(rnd, n):
    """@n bytes of compressible text (the corpus is kept xz-compressed)."""
    word = "%08x " % rnd.getrandbits(32)
    line = (word * 8)[:71] + "\n"
    return (line * (n // len(line) + 1))[:n].encode()


class Work:
    def __init__(self, root, seed, kind):
        self.root = root
        self.rnd = random.Random(seed)
        self.kind = kind
        self.files = []
        self.dirs = [root]
        if kind in ("fcdir", "fcmix"):
            for i in range(2):
                d = os.path.join(root, "big%d" % i)
                os.mkdir(d)
                self.dirs.append(d)
        self.trees = []
        self.serial = 0
        self.keep_open = []

    def name(self, d=None):
        self.serial += 1
        return os.path.join(d or self.rnd.choice(self.dirs),
                            "f%05d" % self.serial)

    def size(self):
        big = 256 if self.kind == "heavy" else 64
        if self.kind in ("fsync", "fcdir", "fcmix"):
            big = 8
        return self.rnd.choice([0, 100, 1000, 4096, 5000, 20000,
                                big * 1024])

    def write(self, path, data, flags, sync):
        fd = os.open(path, flags, 0o644)
        try:
            os.write(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    FSYNCED = ("fsync", "fcdir", "fcmix")

    def fsync_path(self, p):
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def op_create(self):
        p = self.name()
        if self.kind in ("fcdir", "fcmix") and \
                (self.kind == "fcdir" or self.rnd.random() < 0.5):
            p = os.path.join(self.rnd.choice(self.dirs[:3]),
                             "n%06d-%s" % (self.serial, "x" * 40))
        self.write(p, text(self.rnd, self.size()),
                   os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                   self.kind in self.FSYNCED or
                   self.rnd.random() < 0.15)
        self.files.append(p)

    def op_append(self):
        if not self.files:
            return self.op_create()
        p = self.rnd.choice(self.files)
        fsy = self.kind in self.FSYNCED
        n = self.rnd.choice([10, 200, 3000]) if fsy else self.size()
        self.write(p, text(self.rnd, n), os.O_WRONLY | os.O_APPEND,
                   fsy or self.rnd.random() < 0.2)

    def op_dd(self):
        # what "dd if=... of=p bs=4k count=n conv=fsync" does
        p = self.name()
        n = self.rnd.randint(1, 64 if self.kind == "heavy" else 16)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            for _ in range(n):
                os.write(fd, text(self.rnd, 4096))
            os.fsync(fd)
        finally:
            os.close(fd)
        self.files.append(p)

    def op_rename(self):
        if not self.files:
            return
        i = self.rnd.randrange(len(self.files))
        q = self.name()
        os.rename(self.files[i], q)
        self.files[i] = q

    def op_unlink(self):
        if not self.files:
            return
        p = self.files.pop(self.rnd.randrange(len(self.files)))
        if self.rnd.random() < 0.2:
            # unlinked while open: an orphan until closed
            self.keep_open.append(os.open(p, os.O_RDONLY))
            if len(self.keep_open) > 4:
                os.close(self.keep_open.pop(0))
        os.unlink(p)

    def op_link(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        q = self.name()
        os.link(p, q)
        self.files.append(q)

    def op_truncate(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        os.truncate(p, self.rnd.choice([0, 1, 4095, 4096, 10000, 70000]))

    def op_xattr(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        n = self.rnd.choice([8, 100, 600, 2000])
        try:
            os.setxattr(p, "user.k%d" % self.rnd.randrange(6),
                        text(self.rnd, n))
        except OSError:
            pass            # no room for it: still a logged attempt
        if self.kind == "fsync":
            fd = os.open(p, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)

    def op_mkdir(self):
        d = self.name()
        os.mkdir(d)
        self.dirs.append(d)
        if self.kind == "fcmix":
            self.fsync_path(d)

    # fcmix: each operation fsynced, so that it becomes a fast commit
    def op_frename(self):
        self.op_rename()
        if self.files:
            self.fsync_path(self.files[-1] if self.rnd.random() < 0.5
                            else self.rnd.choice(self.files))

    def op_flink(self):
        self.op_link()
        if self.files:
            self.fsync_path(self.files[-1])

    def op_funlink(self):
        if not self.files:
            return
        p = self.files.pop(self.rnd.randrange(len(self.files)))
        os.unlink(p)
        self.fsync_path(os.path.dirname(p))

    def op_symlink(self):
        if not self.files:
            return
        q = self.name()
        os.symlink(os.path.basename(self.rnd.choice(self.files)), q)
        self.fsync_path(os.path.dirname(q))

    def op_ftruncate(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        fd = os.open(p, os.O_RDWR)
        try:
            os.ftruncate(fd, self.rnd.choice([0, 1, 4095, 4096, 10000,
                                              70000]))
            os.fsync(fd)
        finally:
            os.close(fd)

    def op_fallocate(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        fd = os.open(p, os.O_RDWR)
        try:
            os.posix_fallocate(fd, self.rnd.randrange(0, 64) * 4096,
                               self.rnd.choice([4096, 8192, 65536]))
            os.fsync(fd)
        finally:
            os.close(fd)

    def op_sparse(self):
        if not self.files:
            return
        p = self.rnd.choice(self.files)
        fd = os.open(p, os.O_WRONLY)
        try:
            os.pwrite(fd, text(self.rnd, 3000),
                      self.rnd.randrange(0, 400000))
            os.fsync(fd)
        finally:
            os.close(fd)

    def op_openunlink(self):
        # unlinked while open, then written and fsynced: an INODE record
        # of an inode with no links (an orphan)
        p = self.name()
        fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
        os.write(fd, text(self.rnd, self.rnd.choice([100, 5000])))
        os.fsync(fd)
        os.unlink(p)
        os.write(fd, text(self.rnd, 3000))
        os.fsync(fd)
        self.keep_open.append(fd)
        if len(self.keep_open) > 4:
            os.close(self.keep_open.pop(0))

    def op_tree(self):
        t = self.name(self.root)
        os.mkdir(t)
        for i in range(self.rnd.randint(1, 4)):
            sub = os.path.join(t, "d%d" % i)
            os.mkdir(sub)
            for k in range(self.rnd.randint(2, 25)):
                with open(os.path.join(sub, "g%d" % k), "wb") as f:
                    f.write(text(self.rnd, self.rnd.choice([0, 50, 3000])))
        self.trees.append(t)

    def op_rmtree(self):
        if not self.trees:
            return self.op_tree()
        t = self.trees.pop(self.rnd.randrange(len(self.trees)))
        shutil.rmtree(t)

    def op_sync(self):
        os.sync()

    def op_fsync_dir(self):
        d = self.rnd.choice(self.dirs)
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(fd)
        os.close(fd)

    MIX = {
        "mixed": [("create", 16), ("append", 12), ("dd", 4), ("rename", 8),
                  ("unlink", 8), ("link", 3), ("truncate", 6), ("xattr", 6),
                  ("mkdir", 2), ("tree", 4), ("rmtree", 4), ("sync", 2),
                  ("fsync_dir", 1)],
        "heavy": [("create", 14), ("append", 12), ("dd", 8), ("rename", 6),
                  ("unlink", 8), ("link", 2), ("truncate", 5), ("xattr", 5),
                  ("mkdir", 2), ("tree", 8), ("rmtree", 6), ("sync", 1)],
        "fcdir": [("create", 30), ("append", 6), ("fsync_dir", 2),
                  ("unlink", 1)],
        "fcmix": [("create", 20), ("append", 14), ("sparse", 4),
                  ("ftruncate", 4), ("fallocate", 4), ("flink", 4),
                  ("frename", 5), ("symlink", 4), ("mkdir", 2),
                  ("funlink", 4), ("openunlink", 2), ("fsync_dir", 2)],
        "fsync": [("create", 12), ("append", 30), ("rename", 4),
                  ("unlink", 4), ("link", 3), ("truncate", 4),
                  ("xattr", 6), ("mkdir", 2), ("fsync_dir", 4),
                  ("dd", 2)],
    }

    def step(self):
        ops, weights = zip(*self.MIX[self.kind])
        op = self.rnd.choices(ops, weights)[0]
        getattr(self, "op_" + op)()


def main():
    root, seed, kind, nops = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        int(sys.argv[4])
    w = Work(root, seed, kind)
    for n in range(1, nops + 1):
        try:
            w.step()
        except OSError as e:
            print("@@ error %s" % e, flush=True)
        print("@@ %d" % n, flush=True)
    print("@@ end", flush=True)


if __name__ == "__main__":
    main()
