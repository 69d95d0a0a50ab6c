// SPDX-License-Identifier: LGPL-2.0
/*
 * dio.c: the write phase's I/O, many operations to a system call.
 *
 * Replay's write phase rereads each final version from the log and writes
 * it to its home.  Done one pread and one pwrite at a time that is a few
 * hundred thousand system calls on a large journal, and the buffered
 * writes leave the real work to writeback: on an image file the host
 * filesystem allocates the blocks and the device writes them only when
 * replay flushes at the end, so that flush waits for all of it.
 *
 * Here two io_uring rings do the work instead:
 *
 *  - writes, with O_DIRECT on a descriptor of our own: they go to the
 *    device while replay reads the next final versions, up to
 *    EJ_DIO_DEPTH queued at a time, without copies into the page cache;
 *    the final flush then has little left to do;
 *  - reads of the log, buffered (its blocks are usually cached), a batch
 *    of them per io_uring_enter.
 *
 * The caller owns the buffers.  Each write names a buffer "tag"; a
 * buffer may be refilled once ej_dio_wait() says none of its writes is
 * still in flight.  A write the kernel refuses or cuts short (O_DIRECT
 * alignment on a device with larger sectors, a full disk, an I/O error)
 * is handed back to the caller's redo function, which writes it through
 * the io_channel and so reports the error the usual way, and every later
 * write goes there too.  Such buffered writes wait until no direct write
 * is in flight: with blocks smaller than a page, a buffered write reads
 * in the rest of its page, and must not read it before a direct write to
 * that page has landed.  A read that fails is left for the caller to do
 * again through its channel.
 *
 * It is used only on a plain unix_io channel, on the same file (checked
 * by reading the superblock back through the new descriptor), never on a
 * mounted filesystem, and only where the kernel offers io_uring; anything
 * else keeps the one-call-a-block path, which gives the same result.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "ej_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#if defined(__linux__) && defined(O_DIRECT) && \
	defined(__NR_io_uring_setup) && defined(HAVE_LINUX_IO_URING_H)
#include <linux/io_uring.h>
#define EJ_HAVE_DIO 1
#endif

/* Is byte 1024 of @fd this filesystem's superblock (no offset)? */
static int same_fs(int fd, const struct ext2_super_block *sb)
{
	struct ext2_super_block disk;

	if (pread(fd, &disk, sizeof(disk), 1024) != (ssize_t)sizeof(disk))
		return 0;
	/* @disk as it is on disk (little-endian), @sb in host order */
	return ext2fs_le16_to_cpu(disk.s_magic) == sb->s_magic &&
	       ext2fs_le32_to_cpu(disk.s_blocks_count) == sb->s_blocks_count &&
	       ext2fs_le32_to_cpu(disk.s_blocks_count_hi) ==
	       sb->s_blocks_count_hi &&
	       !memcmp(disk.s_uuid, sb->s_uuid, sizeof(sb->s_uuid));
}

/*
 * A second descriptor of @fs's device (regular file or block device),
 * checked to hold this filesystem at offset 0; -1 if it cannot be had.
 */
int ej_open_same(ext2_filsys fs, int flags)
{
	struct stat st;
	int fd;

	if (!fs->device_name)
		return -1;
	fd = open(fs->device_name, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) ||
	    !same_fs(fd, fs->super)) {
		close(fd);
		return -1;
	}
	return fd;
}

#ifdef EJ_HAVE_DIO

/*
 * Writes queued or in flight: room for every write from both halves of
 * the write batch (EJ_WRITE_BATCH_BYTES: 2 x 2,048 blocks of 1 KiB at
 * most), so that replay goes on reading the next final versions while
 * the device works through the last ones.  With 128, replay spent half
 * of bench image b's write phase waiting for a free slot (b: 1.76
 * against 1.47 s, with 16 MiB batches).
 */
#define EJ_DIO_DEPTH	4096
#define EJ_DIO_SQ	128	/* submission queue entries */
#define EJ_DIO_GROUP	16	/* writes queued before they are submitted */
#define EJ_DIO_RDEPTH	64	/* reads per io_uring_enter */
#ifndef EJ_DIO_WORKERS
#define EJ_DIO_WORKERS	1	/* kernel threads issuing the writes */
#endif

/* One io_uring, as much of it as this file uses. */
struct ej_ring {
	int			fd;
	unsigned int		sq_entries;
	unsigned int		*sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int		*cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe	*sqes;
	struct io_uring_cqe	*cqes;
	unsigned int		tail;		/* our copy of *sq_tail */
	void			*sq_map, *cq_map;
	size_t			sq_len, cq_len, sqes_len;
};

struct ej_wslot {
	struct iovec		iov;
	unsigned long long	off;
	unsigned int		tag;
};

struct ej_dio {
	struct ej_ring		w;		/* O_DIRECT writes */
	struct ej_ring		r;		/* buffered reads; r.fd < 0: none */
	int			fd;		/* O_DIRECT, for w */
	int			rfd;		/* for r */
	int			refused;	/* every write goes to redo */
	int			dead;		/* lost track: buffers stay */
	errcode_t		err;		/* first error */
	ej_dio_redo_fn		redo;
	void			*arg;
	unsigned int		nfree;
	unsigned int		nfailed;	/* ended badly, to redo */
	unsigned int		busy[EJ_DIO_TAGS];
	unsigned int		free[EJ_DIO_DEPTH];
	unsigned int		failed[EJ_DIO_DEPTH];
	struct ej_wslot		slot[EJ_DIO_DEPTH];
	struct iovec		riov[EJ_DIO_RDEPTH];
};

/* ------------------------------------------------------------ the ring */

static void ring_unmap(struct ej_ring *q)
{
	if (q->sqes)
		munmap(q->sqes, q->sqes_len);
	if (q->cq_map && q->cq_map != q->sq_map)
		munmap(q->cq_map, q->cq_len);
	if (q->sq_map)
		munmap(q->sq_map, q->sq_len);
	if (q->fd >= 0)
		close(q->fd);
	memset(q, 0, sizeof(*q));
	q->fd = -1;
}

static int ring_init(struct ej_ring *q, unsigned int entries,
		     unsigned int cq_entries)
{
	struct io_uring_params p;
	char *sq, *cq;
	__u32 cq_flag = 0;

#ifdef IORING_SETUP_CQSIZE
	/* room for every completion: none is ever dropped or held back */
	if (cq_entries > 2 * entries)
		cq_flag = IORING_SETUP_CQSIZE;
#endif

	memset(q, 0, sizeof(*q));
	q->fd = -1;
#if HAVE_DECL_IORING_SETUP_DEFER_TASKRUN
	/*
	 * Only this thread uses the ring, and completions are wanted only
	 * when it waits for them: the kernel need not interrupt it to post
	 * each one (Linux 6.1; older kernels refuse the flags).
	 */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  cq_flag;
	p.cq_entries = cq_entries;
	q->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
#endif
	if (q->fd < 0) {
		memset(&p, 0, sizeof(p));
		p.flags = cq_flag;
		p.cq_entries = cq_entries;
		q->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	}
	if (q->fd < 0)
		return -1;
	if (p.cq_entries < cq_entries)
		goto fail;
	q->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	q->cq_len = p.cq_off.cqes +
		    p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (q->cq_len > q->sq_len)
			q->sq_len = q->cq_len;
		q->cq_len = q->sq_len;
	}
	q->sq_map = mmap(NULL, q->sq_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, q->fd, IORING_OFF_SQ_RING);
	if (q->sq_map == MAP_FAILED) {
		q->sq_map = NULL;
		goto fail;
	}
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		q->cq_map = q->sq_map;
	} else {
		q->cq_map = mmap(NULL, q->cq_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, q->fd,
				 IORING_OFF_CQ_RING);
		if (q->cq_map == MAP_FAILED) {
			q->cq_map = NULL;
			goto fail;
		}
	}
	q->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	q->sqes = mmap(NULL, q->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, q->fd, IORING_OFF_SQES);
	if (q->sqes == MAP_FAILED) {
		q->sqes = NULL;
		goto fail;
	}
	sq = q->sq_map;
	cq = q->cq_map;
	q->sq_head = (unsigned int *)(sq + p.sq_off.head);
	q->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	q->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	q->sq_array = (unsigned int *)(sq + p.sq_off.array);
	q->cq_head = (unsigned int *)(cq + p.cq_off.head);
	q->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	q->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	q->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	q->sq_entries = p.sq_entries;
	q->tail = *q->sq_tail;
	return 0;

fail:
	ring_unmap(q);
	return -1;
}

/*
 * Writes that allocate (into holes of an image file) cannot be issued
 * without blocking, so io_uring hands them to worker threads, and they
 * all queue for the same inode lock.  One worker keeps the device busy
 * and leaves the other CPU to replay: bench image b took 1.24 s with
 * one, 1.79 s with two and 1.51 s with the kernel's default.  Kernels
 * before 5.15 refuse the limit and start workers as they see fit.
 */
static void ring_limit_workers(struct ej_ring *q)
{
#if HAVE_DECL_IORING_REGISTER_IOWQ_MAX_WORKERS
	unsigned int max[2] = { EJ_DIO_WORKERS, EJ_DIO_WORKERS };

	(void)syscall(__NR_io_uring_register, q->fd,
		      IORING_REGISTER_IOWQ_MAX_WORKERS, max, 2);
#else
	(void)q;
#endif
}

/* Queue one vectored read or write of @iov at byte @off of @fd. */
static void ring_queue(struct ej_ring *q, int op, int fd,
		       const struct iovec *iov, unsigned long long off,
		       unsigned long long data, unsigned int flags)
{
	unsigned int idx = q->tail & *q->sq_mask;
	struct io_uring_sqe *sqe = &q->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = (__u8)op;
	sqe->flags = (__u8)flags;
	sqe->fd = fd;
	sqe->addr = (unsigned long)iov;
	sqe->len = 1;
	sqe->off = off;
	sqe->user_data = data;
	q->sq_array[idx] = idx;
	q->tail++;
	__atomic_store_n(q->sq_tail, q->tail, __ATOMIC_RELEASE);
}

/* Entries queued that the kernel has not taken yet. */
static unsigned int ring_unsubmitted(const struct ej_ring *q)
{
	return q->tail - __atomic_load_n(q->sq_head, __ATOMIC_ACQUIRE);
}

/*
 * Submit what is queued and wait for @wait completions.  0, or -1 when
 * the ring cannot be used any more.
 */
static int ring_enter(struct ej_ring *q, unsigned int wait)
{
	long r;

	for (;;) {
		r = syscall(__NR_io_uring_enter, q->fd, ring_unsubmitted(q),
			    wait, wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
		if (r >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		/* no room for completions yet: the caller reaps, then retries */
		if (errno == EAGAIN || errno == EBUSY)
			return 1;
		return -1;
	}
}

/* Call @fn on each completion there is; how many. */
static unsigned int ring_reap(struct ej_ring *q,
			      void (*fn)(void *, unsigned long long, int),
			      void *arg)
{
	unsigned int head = *q->cq_head, tail, n = 0;

	tail = __atomic_load_n(q->cq_tail, __ATOMIC_ACQUIRE);
	while (head != tail) {
		struct io_uring_cqe *cqe = &q->cqes[head & *q->cq_mask];

		fn(arg, cqe->user_data, cqe->res);
		head++;
		n++;
	}
	__atomic_store_n(q->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

/* ------------------------------------------------------------ writes */

static void redo(struct ej_dio *d, const void *buf, size_t len,
		 unsigned long long off)
{
	errcode_t err = d->redo(d->arg, buf, len, off);

	if (err && !d->err)
		d->err = err;
}

static void release(struct ej_dio *d, unsigned int i)
{
	d->busy[d->slot[i].tag]--;
	d->free[d->nfree++] = i;
}

/* A write has ended with @res (bytes, or -errno). */
static void write_done(void *arg, unsigned long long data, int res)
{
	struct ej_dio *d = arg;
	struct ej_wslot *s = &d->slot[data];

	if (res >= 0 && (size_t)res == s->iov.iov_len) {
		release(d, (unsigned int)data);
		return;
	}
	/* kept, buffer and all, until it is redone (settle) */
	d->refused = 1;
	d->failed[d->nfailed++] = (unsigned int)data;
}

/* Writes queued or in flight (not ended, not waiting to be redone). */
static unsigned int live(const struct ej_dio *d)
{
	return EJ_DIO_DEPTH - d->nfree - d->nfailed;
}

/* Submit the queued writes; with @wait, until at least one has ended. */
static void write_step(struct ej_dio *d, int wait)
{
	int r = ring_enter(&d->w, wait ? 1 : 0);

	if (r < 0) {
		/*
		 * Neither submitted nor waited for: what is in flight may
		 * still read from the caller's buffers, so they must stay
		 * (ej_dio_finish says so), and the write phase ends here.
		 */
		d->dead = d->refused = 1;
		if (!d->err)
			d->err = errno ? errno : EIO;
		return;
	}
	ring_reap(&d->w, write_done, d);
}

/* Once nothing is in flight: redo the writes that ended badly. */
static void settle(struct ej_dio *d)
{
	struct ej_wslot *s;
	unsigned int i;

	if (live(d) || d->dead)
		return;
	while (d->nfailed) {
		i = d->failed[--d->nfailed];
		s = &d->slot[i];
		redo(d, s->iov.iov_base, s->iov.iov_len, s->off);
		release(d, i);
	}
}

/*
 * Free at least one slot: wait for a write in flight to end or, when
 * none is, redo the ones that failed (through the caller's channel).
 */
static void step(struct ej_dio *d)
{
	if (live(d))
		write_step(d, 1);
	else
		settle(d);
}

/* Wait for every write in flight, then redo what failed. */
static void drain(struct ej_dio *d)
{
	while ((live(d) || d->nfailed) && !d->dead)
		step(d);
}

errcode_t ej_dio_write(struct ej_dio *d, unsigned int tag, const void *buf,
		       size_t len, unsigned long long off)
{
	struct ej_wslot *s;
	unsigned int i;

	if (d->dead)
		return d->err;
	if (d->refused || tag >= EJ_DIO_TAGS) {
		drain(d);
		if (!d->dead)
			redo(d, buf, len, off);
		return d->err;
	}
	/* a free slot, and room in the submission queue */
	while (!d->nfree || ring_unsubmitted(&d->w) >= d->w.sq_entries) {
		step(d);
		if (d->dead)
			return d->err;
	}
	i = d->free[--d->nfree];
	s = &d->slot[i];
	s->iov.iov_base = (void *)buf;
	s->iov.iov_len = len;
	s->off = off;
	s->tag = tag;
	d->busy[tag]++;
	/*
	 * Straight to the worker: tried inline first, a write that allocates
	 * only fails with EAGAIN after costing this thread the attempt.
	 * (Kernels before 5.6 reject the flag, and the writes then go through
	 * the channel.)
	 */
	ring_queue(&d->w, IORING_OP_WRITEV, d->fd, &s->iov, off, i,
		   IOSQE_ASYNC);
	if (ring_unsubmitted(&d->w) >= EJ_DIO_GROUP)
		write_step(d, 0);
	return d->err;
}

errcode_t ej_dio_wait(struct ej_dio *d, unsigned int tag)
{
	if (!d->dead && ring_unsubmitted(&d->w))
		write_step(d, 0);
	while (tag < EJ_DIO_TAGS && d->busy[tag] && !d->dead)
		step(d);
	return d->err;
}

errcode_t ej_dio_finish(struct ej_dio *d, int *keep_buffers)
{
	errcode_t err;

	*keep_buffers = 0;
	if (!d)
		return 0;
	drain(d);
	*keep_buffers = d->dead;
	ring_unmap(&d->w);
	ring_unmap(&d->r);
	close(d->fd);
	if (d->rfd >= 0)
		close(d->rfd);
	err = d->err;
	free(d);
	return err;
}

/* ------------------------------------------------------------ reads */

int ej_dio_can_read(const struct ej_dio *d)
{
	return d && d->r.fd >= 0 && !d->dead;
}

static void read_done(void *arg, unsigned long long data, int res)
{
	struct ej_dio_io *x = (struct ej_dio_io *)arg + data;

	x->err = res >= 0 && (size_t)res == x->len ? 0 :
		 res < 0 ? -res : EIO;
}

/*
 * Buffered reads of cached log blocks finish inside io_uring_enter, so
 * a batch costs one system call rather than one pread each.  Every entry
 * gets its own result.
 */
void ej_dio_read(struct ej_dio *d, struct ej_dio_io *io, size_t n)
{
	size_t i, k, want, got;
	int r;

	for (i = 0; i < n; i++)
		io[i].err = EIO;	/* until it is seen to end */
	for (i = 0; i < n && !d->dead; i += want) {
		want = n - i;
		if (want > EJ_DIO_RDEPTH)
			want = EJ_DIO_RDEPTH;
		for (k = 0; k < want; k++) {
			d->riov[k].iov_base = io[i + k].buf;
			d->riov[k].iov_len = io[i + k].len;
			ring_queue(&d->r, IORING_OP_READV, d->rfd, &d->riov[k],
				   io[i + k].off, k, 0);
		}
		for (got = 0; got < want; ) {
			r = ring_enter(&d->r, (unsigned int)(want - got));
			if (r < 0) {
				/* reads may still land in the caller's buffers */
				d->dead = d->refused = 1;
				if (!d->err)
					d->err = errno ? errno : EIO;
				break;
			}
			got += ring_reap(&d->r, read_done, io + i);
		}
	}
}

/* ------------------------------------------------------------ setup */

struct ej_dio *ej_dio_start(ext2_filsys fs, int reads, ej_dio_redo_fn fn,
			    void *arg)
{
	struct ej_dio *d;
	unsigned int i;
	int flags, mflags = 0;

	if (!fs->device_name || fs->io->manager != unix_io_manager ||
	    fs->blocksize % 512)
		return NULL;
	/*
	 * A mounted filesystem (a read-only root checked at boot) keeps its
	 * own buffers of the device: direct writes could not invalidate
	 * them, and the kernel would then fail the final flush.
	 */
	if (ext2fs_check_if_mounted(fs->device_name, &mflags) ||
	    (mflags & EXT2_MF_MOUNTED))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->w.fd = d->r.fd = d->rfd = -1;
	d->fd = ej_open_same(fs, O_RDWR);
	if (d->fd < 0)
		goto fail;
	flags = fcntl(d->fd, F_GETFL);
	if (flags < 0 || fcntl(d->fd, F_SETFL, flags | O_DIRECT) < 0)
		goto fail_fd;
	if (ring_init(&d->w, EJ_DIO_SQ, EJ_DIO_DEPTH) ||
	    d->w.sq_entries < EJ_DIO_SQ)
		goto fail_ring;
	ring_limit_workers(&d->w);
	/* the log's reads: the same file, through the page cache */
	if (reads) {
		d->rfd = ej_open_same(fs, O_RDONLY);
		if (d->rfd >= 0 && (ring_init(&d->r, EJ_DIO_RDEPTH,
					      2 * EJ_DIO_RDEPTH) ||
				    d->r.sq_entries < EJ_DIO_RDEPTH)) {
			ring_unmap(&d->r);
			close(d->rfd);
			d->rfd = -1;
		}
	}
	d->redo = fn;
	d->arg = arg;
	for (i = 0; i < EJ_DIO_DEPTH; i++)
		d->free[i] = i;
	d->nfree = EJ_DIO_DEPTH;
	return d;

fail_ring:
	ring_unmap(&d->w);
fail_fd:
	close(d->fd);
fail:
	free(d);
	return NULL;
}

#else /* !EJ_HAVE_DIO */

struct ej_dio *ej_dio_start(ext2_filsys fs, int reads, ej_dio_redo_fn fn,
			    void *arg)
{
	(void)fs;
	(void)reads;
	(void)fn;
	(void)arg;
	return NULL;
}

errcode_t ej_dio_write(struct ej_dio *d, unsigned int tag, const void *buf,
		       size_t len, unsigned long long off)
{
	(void)d;
	(void)tag;
	(void)buf;
	(void)len;
	(void)off;
	return EXT2_ET_UNIMPLEMENTED;
}

errcode_t ej_dio_wait(struct ej_dio *d, unsigned int tag)
{
	(void)d;
	(void)tag;
	return 0;
}

errcode_t ej_dio_finish(struct ej_dio *d, int *keep_buffers)
{
	(void)d;
	*keep_buffers = 0;
	return 0;
}

int ej_dio_can_read(const struct ej_dio *d)
{
	(void)d;
	return 0;
}

void ej_dio_read(struct ej_dio *d, struct ej_dio_io *io, size_t n)
{
	size_t i;

	(void)d;
	for (i = 0; i < n; i++)
		io[i].err = EIO;
}

#endif
