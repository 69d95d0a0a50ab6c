# SPDX-License-Identifier: GPL-2.0
"""mkwork.py MOUNT MODE SEED: the fsync-heavy work mkimages.sh does on a
fast_commit filesystem before it cuts it with the ext4 shutdown ioctl
(EXT4_IOC_SHUTDOWN, EXT4_GOING_FLAGS_NOLOGFLUSH)."""
import os, sys, fcntl, struct, random
mnt, mode, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(seed)
d = os.path.join(mnt, "d")
def fs(fd): os.fsync(fd)
def wr(p, n, sync=True):
    fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, bytes([random.randrange(256)]) * n)
    if sync: os.fsync(fd)
    return fd
keep = []
if mode in ("mixed", "plain"):
    for i in range(12):
        fd = wr(os.path.join(d, "f%03d" % i), random.randrange(1, 20000)); os.close(fd)
    os.link(os.path.join(d, "f000"), os.path.join(d, "hard0"))
    fd = os.open(os.path.join(d, "hard0"), os.O_RDONLY); os.fsync(fd); os.close(fd)
    os.unlink(os.path.join(d, "f001")); fd = os.open(d, os.O_RDONLY); os.fsync(fd); os.close(fd)
    os.rename(os.path.join(d, "f002"), os.path.join(d, "renamed2"))
    fd = os.open(os.path.join(d, "renamed2"), os.O_RDONLY); os.fsync(fd); os.close(fd)
    os.symlink("f003", os.path.join(d, "sym3"))
    fd = os.open(d, os.O_RDONLY); os.fsync(fd); os.close(fd)
    fd = os.open(os.path.join(d, "f004"), os.O_RDWR); os.ftruncate(fd, 100); os.fsync(fd); os.close(fd)
    fd = os.open(os.path.join(d, "f005"), os.O_RDWR); os.posix_fallocate(fd, 0, 65536); os.fsync(fd); os.close(fd)
    if mode == "mixed":
        fd = wr(os.path.join(d, "open6"), 9000); os.unlink(os.path.join(d, "open6"))
        os.fsync(fd); keep.append(fd)
    fd = os.open(os.path.join(d, "f007"), os.O_RDWR); os.lseek(fd, 200000, 0); os.write(fd, b"z" * 5000); os.fsync(fd); os.close(fd)
elif mode == "dir":
    for i in range(150):
        fd = wr(os.path.join(d, "n%04d-%s" % (i, "x" * 40)), 100); os.close(fd)
elif mode == "mkdir":
    for i in range(5):
        os.mkdir(os.path.join(d, "sub%d" % i))
        fd = wr(os.path.join(d, "sub%d" % i, "in"), 3000); os.close(fd)
        fd = os.open(os.path.join(d, "sub%d" % i), os.O_RDONLY); os.fsync(fd); os.close(fd)
        fd = os.open(d, os.O_RDONLY); os.fsync(fd); os.close(fd)
elif mode == "rand":
    # fsync after every operation, so most become fast commits
    names = ["base%d" % i for i in range(10)]
    def dsync():
        fd = os.open(d, os.O_RDONLY); os.fsync(fd); os.close(fd)
    for step in range(40):
        op = random.choice(["create", "append", "trunc", "falloc", "link",
                            "unlink", "rename", "symlink", "sparse",
                            "openunlink" if seed % 3 == 0 else "create"])
        p = os.path.join(d, random.choice(names)) if names else None
        try:
            if op == "create" or not names:
                n = "r%03d" % step
                fd = wr(os.path.join(d, n), random.randrange(1, 30000))
                os.close(fd); names.append(n)
            elif op == "append":
                fd = os.open(p, os.O_WRONLY | os.O_APPEND)
                os.write(fd, b"a" * random.randrange(1, 9000)); fs(fd); os.close(fd)
            elif op == "trunc":
                fd = os.open(p, os.O_RDWR)
                os.ftruncate(fd, random.randrange(0, 20000)); fs(fd); os.close(fd)
            elif op == "falloc":
                fd = os.open(p, os.O_RDWR)
                os.posix_fallocate(fd, random.randrange(0, 40000), 8192)
                fs(fd); os.close(fd)
            elif op == "sparse":
                fd = os.open(p, os.O_RDWR)
                os.lseek(fd, random.randrange(0, 400000), 0)
                os.write(fd, b"s" * 3000); fs(fd); os.close(fd)
            elif op == "link":
                n = "l%03d" % step
                os.link(p, os.path.join(d, n)); names.append(n)
                fd = os.open(p, os.O_RDONLY); fs(fd); os.close(fd)
            elif op == "unlink":
                os.unlink(p); names.remove(os.path.basename(p)); dsync()
            elif op == "rename":
                n = "m%03d" % step
                os.rename(p, os.path.join(d, n))
                names.remove(os.path.basename(p)); names.append(n)
                fd = os.open(os.path.join(d, n), os.O_RDONLY); fs(fd); os.close(fd)
            elif op == "symlink":
                os.symlink(random.choice(names), os.path.join(d, "y%03d" % step))
                dsync()
            elif op == "openunlink":
                fd = wr(os.path.join(d, "o%03d" % step), 5000)
                os.unlink(os.path.join(d, "o%03d" % step)); fs(fd)
                keep.append(fd)
        except OSError:
            pass
# cut: as a power failure, the log not flushed
fd = os.open(mnt, os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 2))
os.close(fd)
