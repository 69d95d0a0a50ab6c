// SPDX-License-Identifier: LGPL-2.0
/*
 * ioeng.c: the two engines that move replay's blocks (struct ej_io_ops).
 *
 * The glue (jglue.c) decides what to read and what to write: windows
 * over the log for recovery's passes, the final version of each block in
 * ascending order for the write phase.  An engine only carries it out:
 * it reads runs of the log, writes runs of home blocks, flushes, and may
 * read ahead of recovery.  ej_open_opts.io_flags picks one:
 *
 *  - plain: every read one pread and every write one pwrite, through the
 *    io_channels, in the caller's thread, into malloc'ed buffers.  It is
 *    the reference the fast one is compared with (tests/io_engines.sh).
 *  - fast: on a log that is not in the page cache (a disk at boot), the
 *    kernel asked to read it ahead of recovery, tens of megabytes at a
 *    time (posix_fadvise), so that the device works at its queue depth
 *    while recovery hops from descriptor to commit block; the log read
 *    ahead on a second thread (prefetch.c) once recovery reads a large
 *    log in order; in the write phase io_uring,
 *    direct writes from one half of the batch while the other is filled
 *    and the log's rereads batched (dio.c), or, without io_uring,
 *    buffered writes with writeback started behind them (flusher.c);
 *    huge-page buffers (bigmem.c).  Each part falls back to what the
 *    plain engine does where it cannot run, and EJ_IO_NO_* switch them
 *    off one by one.
 *
 * Both leave the same bytes on disk: the glue hands them the same
 * writes, in the same order.
 */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "ej_io.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#define EJ_PF_CHUNK_BYTES	(512 * 1024)	/* read ahead by the thread */
#define EJ_PF_MIN_LOG_BYTES	(64ULL * 1024 * 1024)	/* worth a thread */
#define EJ_PF_MIN_RUN_BYTES	(4 * 1024 * 1024)	/* read in order */
#define EJ_FLUSHER_BYTES	(32ULL * 1024 * 1024)	/* worth a thread */
#define EJ_COLD_AHEAD_BYTES	(64ULL * 1024 * 1024)	/* asked for ahead */
#define EJ_COLD_STEP_BYTES	(8ULL * 1024 * 1024)	/* asked for at once */
#define EJ_COLD_PIECE_MIN	(128 * 1024)	/* per posix_fadvise call */

errcode_t ej_io_flags_parse(const char *spec, unsigned int *flags)
{
	static const struct {
		const char	*word;
		unsigned int	set;
	} words[] = {
		{ "fast", 0 },
		{ "plain", EJ_IO_PLAIN },
		{ "no-dio", EJ_IO_NO_DIO },
		{ "no-flusher", EJ_IO_NO_FLUSHER },
		{ "no-prefetch", EJ_IO_NO_PREFETCH },
		{ "no-cold", EJ_IO_NO_COLD },
		{ "prefetch-always", EJ_IO_PREFETCH_ALWAYS },
	};
	unsigned int f = 0;
	const char *p = spec, *end;
	size_t i, len;

	if (!flags)
		return EJ_BAD_ARG;
	while (p && *p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i].word) == len &&
			    !strncmp(words[i].word, p, len))
				break;
		if (len && i == sizeof(words) / sizeof(words[0]))
			return EJ_BAD_ARG;
		if (len)
			f |= words[i].set;
		p = end ? end + 1 : NULL;
	}
	*flags = f;
	return 0;
}

/* Read runs of the log through the journal's channel, one call each. */
static void channel_read(struct ej_host *h, struct ej_dio_io *io, size_t n)
{
	unsigned int bs = h->journal.j_blocksize;
	size_t i;

	for (i = 0; i < n; i++)
		io[i].err = io_channel_read_blk64(h->jio, io[i].off / bs,
						  (int)(io[i].len / bs),
						  io[i].buf);
}

static errcode_t channel_write(struct ej_host *h, const void *buf,
			       unsigned long long fsblock, size_t n)
{
	return io_channel_write_blk64(h->fs->io, fsblock, (int)n, buf);
}

static errcode_t channel_flush(struct ej_host *h)
{
	return io_channel_flush(h->fs->io);
}

/* ------------------------------------------------------------- plain */

static errcode_t plain_open(struct ej_host *h)
{
	h->eng = NULL;
	return 0;
}

static void plain_close(struct ej_host *h)
{
	(void)h;
}

static void *plain_alloc(size_t size)
{
	return calloc(1, size);
}

static int plain_ahead_start(struct ej_host *h, unsigned long long lblk,
			     unsigned long long seq_run)
{
	(void)h;
	(void)lblk;
	(void)seq_run;
	return 0;
}

static int plain_ahead_take(struct ej_host *h, unsigned long long lblk,
			    unsigned long long blk, struct ej_io_chunk *c)
{
	(void)h;
	(void)lblk;
	(void)blk;
	(void)c;
	return 0;
}

static void plain_ahead_return(struct ej_host *h, int slot)
{
	(void)h;
	(void)slot;
}

static int plain_read_log(struct ej_host *h, struct ej_dio_io *io, size_t n)
{
	channel_read(h, io, n);
	return 0;
}

static unsigned int plain_write_begin(struct ej_host *h, size_t nblocks)
{
	(void)h;
	(void)nblocks;
	return 1;
}

static errcode_t plain_write_wait(struct ej_host *h, unsigned int tag)
{
	(void)h;
	(void)tag;
	return 0;
}

static errcode_t plain_write_home(struct ej_host *h, unsigned int tag,
				  const void *buf, unsigned long long fsblock,
				  size_t n)
{
	(void)tag;
	return channel_write(h, buf, fsblock, n);
}

static errcode_t plain_write_end(struct ej_host *h, int *keep)
{
	(void)h;
	*keep = 0;
	return 0;
}

const struct ej_io_ops ej_io_plain = {
	.name		= "plain",
	.open		= plain_open,
	.close		= plain_close,
	.alloc		= plain_alloc,
	.release	= free,
	.ahead_start	= plain_ahead_start,
	.ahead_take	= plain_ahead_take,
	.ahead_return	= plain_ahead_return,
	.ahead_stop	= plain_close,
	.read_log	= plain_read_log,
	.write_begin	= plain_write_begin,
	.write_wait	= plain_write_wait,
	.write_home	= plain_write_home,
	.write_end	= plain_write_end,
	.flush		= channel_flush,
};

/* -------------------------------------------------------------- fast */

struct ej_engine {
	unsigned int		flags;		/* EJ_IO_* */
	unsigned int		bs;

	/* the reader thread (prefetch.c) and the chunk it lends next */
	struct ej_prefetch	*pf;
	int			pf_tried;
	unsigned int		pf_chunk_blocks;
	unsigned long long	pf_min_run;	/* blocks in order first */
	unsigned long long	pf_min_log;	/* blocks of journal at least */
	int			pf_slot;	/* taken, not lent yet */
	char			*pf_buf;
	struct ej_pf_chunk	pf_chunk;

	/* a cold log, asked for ahead of recovery (posix_fadvise) */
	int			cold;		/* -1: unknown, 0: no, 1: yes */
	int			cold_fd;
	unsigned long long	cold_piece;	/* bytes per posix_fadvise */
	unsigned long long	cold_start;	/* logical block asked first */
	unsigned long long	cold_asked;	/* blocks asked from there */

	/* the write phase */
	struct ej_dio		*dio;
	unsigned long long	dio_bytes;	/* written around the channel */
	struct ej_flusher	*fl;
};

static errcode_t fast_open(struct ej_host *h)
{
	struct ej_engine *e;
	unsigned int bs = h->journal.j_blocksize;

	e = calloc(1, sizeof(*e));
	if (!e)
		return EJ_NO_MEMORY;
	e->flags = h->io_flags;
	e->bs = bs;
	e->cold = (e->flags & EJ_IO_NO_COLD) ? 0 : -1;
	e->cold_fd = -1;
	e->pf_slot = -1;
	e->pf_chunk_blocks = EJ_PF_CHUNK_BYTES / bs;
	if (!e->pf_chunk_blocks)
		e->pf_chunk_blocks = 1;
	e->pf_min_run = EJ_PF_MIN_RUN_BYTES / bs;
	e->pf_min_log = EJ_PF_MIN_LOG_BYTES / bs;
	if (e->flags & EJ_IO_NO_PREFETCH) {
		e->pf_tried = 1;
	} else if (e->flags & EJ_IO_PREFETCH_ALWAYS) {
		/* for tests: on every log, in chunks of four blocks */
		e->pf_chunk_blocks = 4;
		e->pf_min_run = 8;
		e->pf_min_log = 1;
	}
	h->eng = e;
	return 0;
}

/*
 * Stop the reader thread; a chunk taken but not yet lent goes back.
 * Chunks the glue still reads from stay with it until returned.
 */
static void fast_ahead_stop(struct ej_host *h)
{
	struct ej_engine *e = h->eng;

	if (!e || !e->pf)
		return;
	if (e->pf_slot >= 0) {
		ej_prefetch_release(e->pf, e->pf_slot);
		e->pf_slot = -1;
	}
	ej_prefetch_halt(e->pf);
}

static void fast_close(struct ej_host *h)
{
	struct ej_engine *e = h->eng;

	if (!e)
		return;
	fast_ahead_stop(h);
	ej_prefetch_free(e->pf);
	if (e->cold_fd >= 0)
		close(e->cold_fd);
	free(e);
	h->eng = NULL;
}

/*
 * Is the log at logical block @lblk out of the page cache?  A read that
 * must not wait says so (RWF_NOWAIT: EAGAIN), a megabyte on and halfway
 * round the log: the kernel's own read-ahead of the first reads does
 * not reach there.
 */
static int log_is_cold(struct ej_host *h, unsigned long long lblk)
{
	struct ej_engine *e = h->eng;
	journal_t *j = &h->journal;
	unsigned long long span = j->j_last - j->j_first, d[2], pblk;
	struct iovec iov;
	char *buf;
	int i, cold = 0;

#ifdef RWF_NOWAIT
	buf = malloc(e->bs);
	if (!buf)
		return 0;
	iov.iov_base = buf;
	iov.iov_len = e->bs;
	d[0] = (1024 * 1024) / e->bs;
	d[1] = span / 2;
	for (i = 0; i < 2 && !cold; i++) {
		if (d[i] >= span || ej_glue_bmap(h, j->j_first +
				(lblk - j->j_first + d[i]) % span, &pblk))
			continue;
		cold = preadv2(e->cold_fd, &iov, 1, pblk * e->bs,
			       RWF_NOWAIT) < 0 && errno == EAGAIN;
	}
	free(buf);
#else
	(void)e;
	(void)span;
	(void)d;
	(void)pblk;
	(void)iov;
	(void)buf;
	(void)i;
	(void)lblk;
#endif
	return cold;
}

/*
 * How much one posix_fadvise(WILLNEED) reads: the kernel cuts each call
 * to the device's read-ahead size (read_ahead_kb), so a larger range
 * goes in pieces of that size.  A file's device is not asked: 128 KiB.
 */
static unsigned long long advise_piece(int fd)
{
	unsigned long long piece = EJ_COLD_PIECE_MIN;
#ifdef BLKRAGET
	long sectors = 0;

	if (!ioctl(fd, BLKRAGET, &sectors) && sectors > 0 &&
	    (unsigned long long)sectors * 512 > piece)
		piece = (unsigned long long)sectors * 512;
#endif
	if (piece > EJ_COLD_STEP_BYTES)
		piece = EJ_COLD_STEP_BYTES;
	return piece;
}

/* Ask the kernel to read @n log blocks from logical block @lblk on. */
static void advise(struct ej_host *h, unsigned long long lblk,
		   unsigned long long n)
{
	struct ej_engine *e = h->eng;
	const struct ej_extent *x;
	unsigned long long len, off, end, piece = e->cold_piece;

	while (n) {
		x = ej_extent_find(h->ext, h->nr_ext, lblk, 0);
		if (!x)
			return;
		len = x->len - (lblk - x->lblk);
		if (len > n)
			len = n;
		off = (x->pblk + lblk - x->lblk) * e->bs;
		for (end = off + len * e->bs; off < end; off += piece)
			posix_fadvise(e->cold_fd, (off_t)off,
				      (off_t)(end - off < piece ? end - off :
					      piece), POSIX_FADV_WILLNEED);
		lblk += len;
		n -= len;
	}
}

/*
 * On a cold log, keep the kernel reading EJ_COLD_AHEAD_BYTES ahead of
 * recovery's read at logical block @lblk, one lap of the log at most,
 * starting where recovery first read.  Warm logs (the page cache holds
 * them) are left alone: asking would only cost time.
 */
static void cold_ahead(struct ej_host *h, unsigned long long lblk)
{
	struct ej_engine *e = h->eng;
	journal_t *j = &h->journal;
	unsigned long long span, pos, ahead, step, n, at;

	if (!e->cold || lblk < j->j_first || lblk >= j->j_last)
		return;
	span = j->j_last - j->j_first;
	if (e->cold < 0) {
		e->cold = 0;
		if (h->jio != h->fs->io || !h->fs->device_name ||
		    h->fs->io->manager != unix_io_manager)
			return;
		e->cold_fd = ej_open_same(h->fs, O_RDONLY);
		if (e->cold_fd < 0 || !log_is_cold(h, lblk))
			return;
		e->cold = 1;
		e->cold_start = lblk;
		e->cold_piece = advise_piece(e->cold_fd);
	}
	ahead = EJ_COLD_AHEAD_BYTES / e->bs;
	step = EJ_COLD_STEP_BYTES / e->bs;
	pos = (lblk - j->j_first + span - (e->cold_start - j->j_first)) % span;
	while (e->cold_asked < span && pos + ahead > e->cold_asked) {
		at = j->j_first + (e->cold_start - j->j_first + e->cold_asked) %
		     span;
		n = step;
		if (n > span - e->cold_asked)
			n = span - e->cold_asked;
		if (n > j->j_last - at)
			n = j->j_last - at;	/* the rest after the wrap */
		advise(h, at, n);
		e->cold_asked += n;
	}
}

/*
 * After a long run of reads in order, on a large log of a plain file or
 * device: start the reader thread (if not running) at logical block
 * @lblk.  1 when it runs.
 */
static int fast_ahead_start(struct ej_host *h, unsigned long long lblk,
			    unsigned long long seq_run)
{
	struct ej_engine *e = h->eng;
	journal_t *j = &h->journal;
	int fd;

	cold_ahead(h, lblk);
	if (ej_prefetch_running(e->pf))
		return 1;
	if (seq_run < e->pf_min_run)
		return 0;
	if (!e->pf) {
		if (e->pf_tried)
			return 0;
		e->pf_tried = 1;
		if (h->jio != h->fs->io || !h->fs->device_name ||
		    h->fs->io->manager != unix_io_manager ||
		    j->j_last <= j->j_first ||
		    j->j_last - j->j_first < e->pf_min_log)
			return 0;
		fd = ej_open_same(h->fs, O_RDONLY);
		if (fd < 0)
			return 0;
		e->pf = ej_prefetch_new(fd, e->bs, e->pf_chunk_blocks,
					h->ext, h->nr_ext, j->j_first,
					j->j_last);
		if (!e->pf) {
			close(fd);
			return 0;
		}
	}
	return !ej_prefetch_run(e->pf, lblk);
}

/*
 * The reader thread's chunk holding logical block @lblk (physical @blk),
 * lent in *@c.  Chunks before it that recovery skipped are given back;
 * anything else (a read behind, far ahead, a chunk the thread could not
 * read) stops the thread, and 0 sends the read the usual way.
 */
static int fast_ahead_take(struct ej_host *h, unsigned long long lblk,
			   unsigned long long blk, struct ej_io_chunk *out)
{
	struct ej_engine *e = h->eng;
	journal_t *j = &h->journal;
	const struct ej_pf_chunk *c = &e->pf_chunk;
	unsigned long long span, d, horizon;

	if (lblk < j->j_first || lblk >= j->j_last)
		goto stop;
	span = j->j_last - j->j_first;
	horizon = (unsigned long long)EJ_PF_SLOTS * e->pf_chunk_blocks;
	for (;;) {
		if (e->pf_slot < 0) {
			e->pf_slot = ej_prefetch_next(e->pf, &e->pf_chunk,
						      &e->pf_buf);
			if (e->pf_slot < 0)
				goto stop;
		}
		if (c->err)
			goto stop;
		d = (lblk + span - c->lblk) % span;
		if (d < c->len) {
			if (c->pblk + d != blk)
				goto stop;
			break;
		}
		if (d >= c->len + horizon)
			goto stop;
		/* recovery went past it */
		ej_prefetch_release(e->pf, e->pf_slot);
		e->pf_slot = -1;
	}
	out->buf = e->pf_buf;
	out->pblk = c->pblk;
	out->len = c->len;
	out->slot = e->pf_slot;
	e->pf_slot = -1;
	return 1;

stop:
	fast_ahead_stop(h);
	return 0;
}

static void fast_ahead_return(struct ej_host *h, int slot)
{
	struct ej_engine *e = h->eng;

	ej_prefetch_release(e->pf, slot);
}

/* Batched through io_uring while the write phase runs, else the channel. */
static int fast_read_log(struct ej_host *h, struct ej_dio_io *io, size_t n)
{
	struct ej_engine *e = h->eng;

	if (!ej_dio_can_read(e->dio)) {
		channel_read(h, io, n);
		return 0;
	}
	ej_dio_read(e->dio, io, n);
	return 1;
}

/* dio.c's way back for a write it could not do: the io_channel. */
static errcode_t write_through_channel(void *arg, const void *buf, size_t len,
				       unsigned long long off)
{
	struct ej_host *h = arg;
	unsigned int bs = h->fs->blocksize;

	/* the channel counts it: not one of dio's own */
	h->eng->dio_bytes -= len;
	return io_channel_write_blk64(h->fs->io, off / bs, (int)(len / bs),
				      buf);
}

/*
 * Direct writes from two buffers, one filled while the other's writes
 * are in flight; or else buffered writes, with writeback started behind
 * them on large replays.  How many buffers the glue alternates between.
 */
static unsigned int fast_write_begin(struct ej_host *h, size_t nblocks)
{
	struct ej_engine *e = h->eng;
	size_t batch = EJ_WRITE_BATCH_BYTES / e->bs;

	if (batch > nblocks)
		batch = nblocks;
	if (batch >= EJ_DIO_TAGS && !(e->flags & EJ_IO_NO_DIO))
		e->dio = ej_dio_start(h->fs, h->jio == h->fs->io,
				      write_through_channel, h);
	if (e->dio)
		return EJ_DIO_TAGS;
	if ((unsigned long long)nblocks * e->bs >= EJ_FLUSHER_BYTES &&
	    !(e->flags & EJ_IO_NO_FLUSHER))
		e->fl = ej_flusher_start(h->fs->device_name);
	return 1;
}

static errcode_t fast_write_wait(struct ej_host *h, unsigned int tag)
{
	struct ej_engine *e = h->eng;

	return e->dio ? ej_dio_wait(e->dio, tag) : 0;
}

static errcode_t fast_write_home(struct ej_host *h, unsigned int tag,
				 const void *buf, unsigned long long fsblock,
				 size_t n)
{
	struct ej_engine *e = h->eng;
	errcode_t err;

	if (e->dio) {
		e->dio_bytes += n * (unsigned long long)e->bs;
		return ej_dio_write(e->dio, tag, buf, n * (size_t)e->bs,
				    fsblock * (unsigned long long)e->bs);
	}
	err = channel_write(h, buf, fsblock, n);
	/* ascending: everything below this write's end is written */
	if (!err)
		ej_flusher_mark(e->fl, (fsblock + n) *
				       (unsigned long long)h->fs->blocksize);
	return err;
}

/*
 * The bytes written around the fs channel, added to its count, as if
 * they had gone through it: libext2fs adds that count to
 * s_kbytes_written (ej_fs_close), and the plain engine's writes are in it.
 */
static void count_dio_bytes(struct ej_host *h)
{
	struct ej_engine *e = h->eng;
	io_stats stats = NULL;

	if (e->dio_bytes && h->fs->io->manager->get_stats &&
	    !h->fs->io->manager->get_stats(h->fs->io, &stats) && stats)
		stats->bytes_written += e->dio_bytes;
	e->dio_bytes = 0;
}

static errcode_t fast_write_end(struct ej_host *h, int *keep)
{
	struct ej_engine *e = h->eng;
	errcode_t err;

	err = ej_dio_finish(e->dio, keep);
	e->dio = NULL;
	count_dio_bytes(h);
	ej_flusher_stop(e->fl);
	e->fl = NULL;
	return err;
}

const struct ej_io_ops ej_io_fast = {
	.name		= "fast",
	.open		= fast_open,
	.close		= fast_close,
	.alloc		= ej_big_zalloc,
	.release	= ej_big_free,
	.ahead_start	= fast_ahead_start,
	.ahead_take	= fast_ahead_take,
	.ahead_return	= fast_ahead_return,
	.ahead_stop	= fast_ahead_stop,
	.read_log	= fast_read_log,
	.write_begin	= fast_write_begin,
	.write_wait	= fast_write_wait,
	.write_home	= fast_write_home,
	.write_end	= fast_write_end,
	.flush		= channel_flush,
};
