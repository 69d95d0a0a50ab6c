// SPDX-License-Identifier: GPL-2.0
/*
 * pcut.c: an LD_PRELOAD shim that cuts the power under a program.
 *
 * It numbers every write system call that reaches one of the files named
 * in PCUT_FILES (colon-separated paths; a file is recognised by device and
 * inode, whatever descriptor or name reaches it): write, pwrite, writev,
 * pwritev, pwritev2, fallocate, and each write queued to an io_uring
 * (IORING_OP_WRITE, WRITEV, WRITE_FIXED) when io_uring_enter submits it.
 * The count lives in the file PCUT_STATE (at least 4 KiB, zeros at the
 * start of a run), shared by every process of the run: the program and
 * whatever it runs (our e2fsck runs e2fsprogs' e2fsck) count together.
 *
 *   PCUT_LOG=FILE  appends one line a write ("w N PID KIND OFFSET BYTES")
 *                  and one a flush ("f PID KIND"), for a run's count.
 *   PCUT_CUT=K     the power cut, after write K (K >= 0).
 *   PCUT_MODE=M    drop (default): write K+1 and every later one, in any
 *                  process, "succeed" without reaching the file; flushes
 *                  after the cut do nothing; the programs run on, unaware.
 *                  kill: writes 1..K reach the file (io_uring writes up to
 *                  K are waited for); the process that is about to make
 *                  write K+1 kills itself with SIGKILL, and so does any
 *                  process that writes later.
 *
 * Only writes are cut: reads see the file as the cut left it.  It is a
 * test tool for Linux and glibc, built into a shared object by "make
 * check" and used by tests/j_powercut.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define PCUT_MAX_FILES	8
#define PCUT_MAX_RINGS	8

struct pcut_shared {
	unsigned long long	writes;		/* numbered so far */
	int			cut_hit;
};

struct pcut_ring {
	int			fd;
	struct io_uring_params	p;
	char			*sq;		/* the SQ ring mapping */
	char			*cq;		/* the CQ ring mapping */
	struct io_uring_sqe	*sqes;
	unsigned long long	submitted;	/* entries the kernel took */
};

static int inited;
static int active;
static struct pcut_shared *shared;
static dev_t tdev[PCUT_MAX_FILES];
static ino_t tino[PCUT_MAX_FILES];
static int ntargets;
static unsigned long long cut;
static int have_cut, kill_mode;
static char logpath[4096];
static struct pcut_ring rings[PCUT_MAX_RINGS];

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev64v2)(int, const struct iovec *, int, off64_t,
				   int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_fallocate64)(int, int, off64_t, off64_t);
static long (*real_syscall)(long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);

static void *sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void init(void)
{
	const char *files, *state, *s;
	char *copy, *tok, *save = NULL;
	struct stat st;
	int fd;

	if (inited)
		return;
	inited = 1;
	real_write = sym("write");
	real_pwrite = sym("pwrite");
	real_pwrite64 = sym("pwrite64");
	real_writev = sym("writev");
	real_pwritev = sym("pwritev");
	real_pwritev64 = sym("pwritev64");
	real_pwritev2 = sym("pwritev2");
	real_pwritev64v2 = sym("pwritev64v2");
	real_fsync = sym("fsync");
	real_fdatasync = sym("fdatasync");
	real_fallocate = sym("fallocate");
	real_fallocate64 = sym("fallocate64");
	real_syscall = sym("syscall");
	real_mmap = sym("mmap");
	real_mmap64 = sym("mmap64");

	files = getenv("PCUT_FILES");
	state = getenv("PCUT_STATE");
	if (!files || !state)
		return;
	fd = open(state, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	shared = real_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   0);
	close(fd);
	if (shared == MAP_FAILED) {
		shared = NULL;
		return;
	}
	copy = strdup(files);
	for (tok = copy ? strtok_r(copy, ":", &save) : NULL;
	     tok && ntargets < PCUT_MAX_FILES;
	     tok = strtok_r(NULL, ":", &save)) {
		if (stat(tok, &st))
			continue;
		tdev[ntargets] = st.st_dev;
		tino[ntargets] = st.st_ino;
		ntargets++;
	}
	free(copy);
	s = getenv("PCUT_CUT");
	if (s && *s) {
		cut = strtoull(s, NULL, 10);
		have_cut = 1;
	}
	s = getenv("PCUT_MODE");
	kill_mode = s && !strcmp(s, "kill");
	s = getenv("PCUT_LOG");
	if (s)
		snprintf(logpath, sizeof(logpath), "%s", s);
	active = ntargets > 0;
}

static int target(int fd)
{
	struct stat st;
	int i;

	init();
	if (!active || fd < 0 || fstat(fd, &st))
		return 0;
	for (i = 0; i < ntargets; i++)
		if (st.st_dev == tdev[i] && st.st_ino == tino[i])
			return 1;
	return 0;
}

static void log_line(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	if (!logpath[0])
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0)
		(void)!real_write(fd, line, (size_t)n);
	close(fd);
}

static void ring_quiesce(struct pcut_ring *r);

/* The power goes: what is in flight lands first, nothing after it. */
static void die_now(void)
{
	int i;

	shared->cut_hit = 1;
	for (i = 0; i < PCUT_MAX_RINGS; i++)
		if (rings[i].sq)
			ring_quiesce(&rings[i]);
	kill(getpid(), SIGKILL);
	for (;;)
		pause();
}

/*
 * Number one write to a target file: 1 if it may go through, 0 if the cut
 * drops it.  In kill mode the process dies here instead of dropping.
 */
static int one_write(const char *kind, long long off, size_t len)
{
	unsigned long long n;

	n = __atomic_add_fetch(&shared->writes, 1, __ATOMIC_SEQ_CST);
	if (have_cut && n > cut) {
		if (kill_mode)
			die_now();
		shared->cut_hit = 1;
		log_line("x %llu %d %s %lld %zu\n", n, (int)getpid(), kind,
			 off, len);
		return 0;
	}
	log_line("w %llu %d %s %lld %zu\n", n, (int)getpid(), kind, off, len);
	return 1;
}

/* A flush of a target file: 1 if it is done. */
static int one_flush(const char *kind)
{
	if (have_cut && shared->cut_hit) {
		if (kill_mode)
			die_now();
		return 0;
	}
	log_line("f %d %s\n", (int)getpid(), kind);
	return 1;
}

static size_t iov_len(const struct iovec *iov, int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	init();
	if (target(fd)) {
		long long off = lseek(fd, 0, SEEK_CUR);

		if (!one_write("write", off, len)) {
			lseek(fd, (off_t)len, SEEK_CUR);
			return (ssize_t)len;
		}
	}
	return real_write(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	init();
	if (target(fd) && !one_write("pwrite", off, len))
		return (ssize_t)len;
	return real_pwrite(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	init();
	if (target(fd) && !one_write("pwrite", off, len))
		return (ssize_t)len;
	return real_pwrite64(fd, buf, len, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	size_t len;

	init();
	if (target(fd)) {
		long long off = lseek(fd, 0, SEEK_CUR);

		len = iov_len(iov, n);
		if (!one_write("writev", off, len)) {
			lseek(fd, (off_t)len, SEEK_CUR);
			return (ssize_t)len;
		}
	}
	return real_writev(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	init();
	if (target(fd) && !one_write("pwritev", off, iov_len(iov, n)))
		return (ssize_t)iov_len(iov, n);
	return real_pwritev(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
	init();
	if (target(fd) && !one_write("pwritev", off, iov_len(iov, n)))
		return (ssize_t)iov_len(iov, n);
	return real_pwritev64(fd, iov, n, off);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int fl)
{
	init();
	if (target(fd) && !one_write("pwritev2", off, iov_len(iov, n)))
		return (ssize_t)iov_len(iov, n);
	return real_pwritev2(fd, iov, n, off, fl);
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off64_t off,
		    int fl)
{
	init();
	if (target(fd) && !one_write("pwritev2", off, iov_len(iov, n)))
		return (ssize_t)iov_len(iov, n);
	return real_pwritev64v2(fd, iov, n, off, fl);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	init();
	if (target(fd) && !one_write("fallocate", off, (size_t)len))
		return 0;
	return real_fallocate(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	init();
	if (target(fd) && !one_write("fallocate", off, (size_t)len))
		return 0;
	return real_fallocate64(fd, mode, off, len);
}

int fsync(int fd)
{
	init();
	if (target(fd) && !one_flush("fsync"))
		return 0;
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	init();
	if (target(fd) && !one_flush("fdatasync"))
		return 0;
	return real_fdatasync(fd);
}

/* ------------------------------------------------------------ io_uring */

static struct pcut_ring *ring_of(int fd)
{
	int i;

	for (i = 0; i < PCUT_MAX_RINGS; i++)
		if (rings[i].fd == fd && rings[i].sq)
			return &rings[i];
	return NULL;
}

static void note_mmap(void *p, int fd, long long off)
{
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < PCUT_MAX_RINGS; i++) {
		struct pcut_ring *r = &rings[i];

		if (r->fd != fd || !r->p.sq_entries)
			continue;
		if (off == IORING_OFF_SQ_RING) {
			r->sq = p;
			if (r->p.features & IORING_FEAT_SINGLE_MMAP)
				r->cq = p;
		} else if (off == IORING_OFF_CQ_RING) {
			r->cq = p;
		} else if (off == (long long)IORING_OFF_SQES) {
			r->sqes = p;
		}
	}
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	init();
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (fd >= 0)
		note_mmap(p, fd, off);
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
	     off64_t off)
{
	void *p;

	init();
	p = real_mmap64(addr, len, prot, flags, fd, off);
	if (fd >= 0)
		note_mmap(p, fd, off);
	return p;
}

int munmap(void *addr, size_t len)
{
	static int (*real_munmap)(void *, size_t);
	int i;

	if (!real_munmap)
		real_munmap = sym("munmap");
	/* a ring going away: forget it before its memory is reused */
	for (i = 0; i < PCUT_MAX_RINGS; i++) {
		struct pcut_ring *r = &rings[i];

		if (addr && (addr == r->sq || addr == r->cq ||
			     addr == (void *)r->sqes))
			memset(r, 0, sizeof(*r));
	}
	return real_munmap(addr, len);
}

static unsigned int load32(const char *base, unsigned int off)
{
	return __atomic_load_n((const unsigned int *)(base + off),
			       __ATOMIC_ACQUIRE);
}

/* Wait until the kernel has ended every write this ring was given. */
static void ring_quiesce(struct pcut_ring *r)
{
	struct timespec ts = { 0, 100000 };
	int tries;

	if (!r->cq || !r->submitted)
		return;
	for (tries = 0; tries < 50000; tries++) {
		if (load32(r->cq, r->p.cq_off.tail) == (unsigned int)r->submitted)
			return;
		/* completions may wait for this task to enter the kernel */
		real_syscall(__NR_io_uring_enter, (long)r->fd, 0L, 0L,
			     (long)IORING_ENTER_GETEVENTS, NULL, 0L);
		nanosleep(&ts, NULL);
	}
}

static int is_write_op(unsigned int op)
{
	return op == IORING_OP_WRITEV || op == IORING_OP_WRITE ||
	       op == IORING_OP_WRITE_FIXED;
}

static long uring_enter(long a[6])
{
	struct pcut_ring *r = ring_of((int)a[0]);
	unsigned int to_submit = (unsigned int)a[1], head, mask, i;
	const unsigned int *array;
	long ret;

	if (!r || !r->sqes || !to_submit)
		goto real;
	head = load32(r->sq, r->p.sq_off.head);
	mask = load32(r->sq, r->p.sq_off.ring_mask);
	array = (const unsigned int *)(r->sq + r->p.sq_off.array);
	for (i = 0; i < to_submit; i++) {
		struct io_uring_sqe *sqe = &r->sqes[array[(head + i) & mask]];

		if (!is_write_op(sqe->opcode) ||
		    (sqe->flags & IOSQE_FIXED_FILE) || !target(sqe->fd))
			continue;
		if (have_cut && kill_mode && shared->writes >= cut) {
			/* writes 1..cut reach the file, then the power goes */
			if (i) {
				ret = real_syscall(__NR_io_uring_enter, a[0],
						   (long)i, 0L, 0L, NULL, 0L);
				if (ret > 0)
					r->submitted += (unsigned long long)ret;
			}
			ring_quiesce(r);
			die_now();
		}
		if (!one_write("uring", (long long)sqe->off,
			       sqe->opcode == IORING_OP_WRITEV ?
			       iov_len((const struct iovec *)(uintptr_t)sqe->addr,
				       (int)sqe->len) : sqe->len))
			sqe->opcode = IORING_OP_NOP;	/* ends with res 0 */
	}
real:
	ret = real_syscall(__NR_io_uring_enter, a[0], a[1], a[2], a[3], a[4],
			   a[5]);
	if (r && ret > 0)
		r->submitted += (unsigned long long)ret;
	return ret;
}

long syscall(long nr, ...)
{
	va_list ap;
	long a[6], ret;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	init();
	if (active && nr == __NR_io_uring_enter)
		return uring_enter(a);
	ret = real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (active && nr == __NR_io_uring_setup && ret >= 0) {
		for (i = 0; i < PCUT_MAX_RINGS; i++) {
			if (!rings[i].p.sq_entries || rings[i].fd == (int)ret) {
				memset(&rings[i], 0, sizeof(rings[i]));
				rings[i].fd = (int)ret;
				memcpy(&rings[i].p, (void *)a[1],
				       sizeof(rings[i].p));
				break;
			}
		}
	}
	return ret;
}
