// SPDX-License-Identifier: LGPL-2.0
/*
 * jglue.c: the journal device recovery.c reads, over a libext2fs
 * io_channel, and the host ops that map its blocks and defer replay.
 *
 * Reads of the journal device go through a read-ahead window that grows
 * while recovery reads sequentially (the replay pass) and stays at one
 * block while it hops from control block to control block (the scan and
 * revoke passes).  Blocks that carry the journal magic are kept in a
 * bounded cache, so the three passes read each of them from disk once.
 *
 * Replay is deferred: the replay op only notes that something is pending.
 * The host's final-version map (finalmap.c, filled by report.c's hook)
 * already knows, for each filesystem block, which journal block holds its
 * final version; syncing the filesystem device
 * (fsdev.c) writes each block once, in ascending order, in large runs.
 * Memory stays proportional to the number of logged blocks, never their
 * bytes.
 *
 * The glue decides what is read and written, and in which order; the
 * engine chosen at open (h->io, io/ioeng.c) carries it out: the plain one
 * with one pread or pwrite per run, the fast one with the log read ahead
 * on a thread and the write phase through io_uring (or writeback started
 * behind buffered writes).  Both get the same requests.
 *
 * Cost: the channels' own block cache is switched off (unix_io copies
 * every read or write of up to four blocks through it); buffers are
 * allocated once per journal (by the engine: huge pages in the fast one).
 */
#include "jglue.h"

#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

static int is_control(const void *data)
{
	__be32 magic;

	memcpy(&magic, data, sizeof(magic));
	return magic == cpu_to_be32(JBD2_MAGIC_NUMBER);
}

/* io_channel error -> -errno for recovery.c */
int ej_glue_errno(errcode_t err)
{
	if (err > 0 && err < 4096)
		return -(int)err;
	return -EIO;
}

errcode_t ej_glue_init(struct ej_host *h)
{
	struct ej_glue *g;
	unsigned int bs = h->journal.j_blocksize;
	errcode_t err;

	if (!bs)
		return EJ_BAD_ARG;
	g = calloc(1, sizeof(*g));
	if (!g)
		return EJ_NO_MEMORY;
	h->io = (h->io_flags & EJ_IO_PLAIN) ? &ej_io_plain : &ej_io_fast;
	err = h->io->open(h);
	if (err) {
		free(g);
		return err;
	}
	g->h = h;
	g->io = h->io;
	g->bs = bs;
	g->ra_max = EJ_RA_BYTES / bs;
	if (!g->ra_max)
		g->ra_max = 1;
	g->max_cache = EJ_CACHE_BYTES / bs;
	h->glue = g;
	/*
	 * unix_io copies reads of up to four blocks through its cache; the
	 * glue reads each block once and keeps what it rereads itself.
	 * Managers without the option keep their cache.
	 */
	io_channel_set_options(h->jio, "cache=off");
	return 0;
}

/* Does window @w (or NULL) hold physical block @blk? */
static int win_holds(const struct ej_window *w, unsigned long long blk)
{
	return w && blk >= w->start && blk - w->start < w->len;
}

static void win_free(struct ej_glue *g, struct ej_window *w)
{
	if (!w || w->slot >= 0)
		return;
	g->io->release(w->buf);
	free(w);
}

/* An idle window: keep one for reuse, free the rest. */
void ej_glue_win_idle(struct ej_glue *g, struct ej_window *w)
{
	if (w->slot >= 0) {
		/* a chunk lent by the engine goes back to it */
		g->io->ahead_return(g->h, w->slot);
		return;
	}
	if (!g->spare) {
		w->len = 0;
		g->spare = w;
	} else {
		win_free(g, w);
	}
}

void ej_glue_free(struct ej_host *h)
{
	struct ej_glue *g = h->glue;
	struct ej_window *w;
	struct ej_bh *b;

	if (!g)
		return;
	h->io->ahead_stop(h);
	win_free(g, g->win);
	win_free(g, g->spare);
	while ((w = g->retired)) {
		g->retired = w->next_retired;
		win_free(g, w);
	}
	while (g->slab) {
		struct ej_slab *sl = g->slab;

		g->slab = sl->next;
		g->io->release(sl->mem);
		free(sl);
	}
	free(g->cache);
	while ((b = g->all_bh)) {
		g->all_bh = b->next_all;
		free(b->own);
		free(b);
	}
	free(g);
	h->glue = NULL;
	h->io->close(h);
}

void ej_glue_get_stats(struct ej_host *h, struct ej_glue_stats *st)
{
	if (h->glue)
		*st = h->glue->st;
	else
		memset(st, 0, sizeof(*st));
}

/* ------------------------------------------------------------ mapping */

errcode_t ej_glue_bmap(struct ej_host *h, unsigned long long lblk,
		       unsigned long long *pblk)
{
	const struct ej_extent *x;

	if (lblk >= h->mapped)
		return EJ_BLOCK_OUT_OF_RANGE;
	x = ej_extent_find(h->ext, h->nr_ext, lblk, 0);
	if (!x)
		return EJ_BLOCK_OUT_OF_RANGE;
	*pblk = x->pblk + (lblk - x->lblk);
	return 0;
}

/* The journal extent holding physical block @blk, or NULL. */
static const struct ej_extent *pext_find(const struct ej_host *h,
					 unsigned long long blk)
{
	return ej_extent_find(h->pext, h->nr_ext, blk, 1);
}

static int forbidden(const struct ej_host *h, unsigned long long blk)
{
	size_t lo = 0, hi = h->nr_forbid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ej_extent *x = &h->forbid[mid];

		if (blk < x->pblk)
			hi = mid;
		else if (blk >= x->pblk + x->len)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

int ej_glue_block_ok(const struct ej_host *h, unsigned long long blk)
{
	return blk < ext2fs_blocks_count(h->fs->super) && !forbidden(h, blk);
}

/* ------------------------------------------------- control-block cache */

/* Index of the first cached block >= @blk. */
static size_t cache_lower(const struct ej_glue *g, unsigned long long blk)
{
	size_t lo = 0, hi = g->nr_cache;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->cache[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ej_cblock *cache_find(struct ej_glue *g, unsigned long long blk)
{
	size_t i = cache_lower(g, blk);

	if (i < g->nr_cache && g->cache[i].blk == blk)
		return &g->cache[i];
	return NULL;
}

/* Room for one block's copy. */
static char *slab_get(struct ej_glue *g)
{
	struct ej_slab *sl = g->slab;

	if (!sl || sl->used == sl->cap) {
		/* 16 blocks first, doubling: a short log needs few */
		size_t cap = sl ? sl->cap * 2 : 16;

		if (cap > EJ_SLAB_BYTES / g->bs)
			cap = EJ_SLAB_BYTES / g->bs;
		if (!cap)
			cap = 1;
		sl = calloc(1, sizeof(*sl));
		if (!sl)
			return NULL;
		sl->mem = g->io->alloc(cap * g->bs);
		if (!sl->mem) {
			free(sl);
			return NULL;
		}
		sl->cap = cap;
		sl->next = g->slab;
		g->slab = sl;
	}
	return sl->mem + sl->used++ * (size_t)g->bs;
}

static void cache_insert(struct ej_glue *g, unsigned long long blk,
			 const char *data)
{
	size_t i;
	char *copy;

	if (g->nr_cache >= g->max_cache)
		return;		/* full: later blocks are simply reread */
	i = cache_lower(g, blk);
	if (i < g->nr_cache && g->cache[i].blk == blk)
		return;
	if (!g->cache) {
		/* the cap is small enough to allocate at once */
		g->cache = malloc(g->max_cache * sizeof(*g->cache));
		if (!g->cache)
			return;
	}
	copy = slab_get(g);
	if (!copy)
		return;
	memcpy(copy, data, g->bs);
	/* the scan walks the log forwards, so this is nearly always an append */
	memmove(&g->cache[i + 1], &g->cache[i],
		(g->nr_cache - i) * sizeof(*g->cache));
	g->cache[i].blk = blk;
	g->cache[i].data = copy;
	g->nr_cache++;
}

static void cache_remove(struct ej_glue *g, unsigned long long blk)
{
	size_t i = cache_lower(g, blk);

	if (i >= g->nr_cache || g->cache[i].blk != blk)
		return;
	/* its slab slot stays allocated until the glue goes */
	memmove(&g->cache[i], &g->cache[i + 1],
		(g->nr_cache - i - 1) * sizeof(*g->cache));
	g->nr_cache--;
}

/* ------------------------------------------------------------ windows */

static void win_put(struct ej_glue *g, struct ej_window *w)
{
	struct ej_window **pp;

	if (--w->refs || w == g->win)
		return;
	for (pp = &g->retired; *pp; pp = &(*pp)->next_retired) {
		if (*pp == w) {
			*pp = w->next_retired;
			ej_glue_win_idle(g, w);
			return;
		}
	}
}

/* Stop using the current window; free it unless someone still reads it. */
void ej_glue_win_drop(struct ej_glue *g)
{
	struct ej_window *w = g->win;

	if (!w)
		return;
	g->win = NULL;
	if (w->refs) {
		w->next_retired = g->retired;
		g->retired = w;
	} else {
		ej_glue_win_idle(g, w);
	}
}

/* A window to read @n blocks into: the current one when nobody holds it. */
static struct ej_window *win_get(struct ej_glue *g)
{
	struct ej_window *w = g->win;

	if (w && !w->refs && w->slot < 0) {
		w->len = 0;
		return w;
	}
	ej_glue_win_drop(g);
	if (g->spare) {
		w = g->spare;
		g->spare = NULL;
		g->win = w;
		return w;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->slot = -1;
	w->buf = g->io->alloc((size_t)g->ra_max * g->bs);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	g->win = w;
	return w;
}

/* Read @n log blocks at physical @blk into @buf through the engine. */
static errcode_t read_run(struct ej_host *h, unsigned long long blk,
			  unsigned int n, char *buf)
{
	struct ej_dio_io io = {
		.buf = buf,
		.len = (size_t)n * h->glue->bs,
		.off = blk * h->glue->bs,
	};

	h->io->read_log(h, &io, 1);
	h->glue->st.reads++;
	return io.err;
}

static errcode_t win_fill(struct ej_host *h, unsigned long long blk,
			  unsigned int n)
{
	struct ej_glue *g = h->glue;
	struct ej_window *w;
	errcode_t err;

	w = win_get(g);
	if (!w)
		return EJ_NO_MEMORY;
	err = read_run(h, blk, n, w->buf);
	if (err && n > 1) {
		/* one bad block must not hide its neighbours */
		n = 1;
		err = read_run(h, blk, 1, w->buf);
	}
	if (err) {
		w->len = 0;
		return err;
	}
	g->st.blocks_read += n;
	w->start = blk;
	w->len = n;
	return 0;
}

/*
 * When the engine reads the log ahead of recovery, its chunk holding
 * logical block @lblk (physical @blk) made the current window; else the
 * current window (NULL when the engine gave up: read it the usual way).
 */
static struct ej_window *ahead_window(struct ej_host *h,
				      unsigned long long lblk,
				      unsigned long long blk)
{
	struct ej_glue *g = h->glue;
	struct ej_io_chunk c;
	struct ej_window *w;

	if (!h->io->ahead_start(h, lblk, g->seq_run))
		return g->win;
	/* the current window may be a chunk the engine needs back */
	ej_glue_win_drop(g);
	if (!h->io->ahead_take(h, lblk, blk, &c))
		return NULL;
	w = &g->pf_win[c.slot];
	memset(w, 0, sizeof(*w));
	w->buf = c.buf;
	w->start = c.pblk;
	w->len = c.len;
	w->slot = c.slot;
	g->win = w;
	g->st.reads++;
	g->st.blocks_read += w->len;
	return w;
}

/* ------------------------------------------------------- buffer heads */

struct ej_bh *ej_glue_bh_get(struct ej_host *h, struct block_device *bdev,
			     unsigned long long blk)
{
	struct ej_glue *g = h->glue;
	struct ej_bh *b = g->free_bh;

	if (b) {
		g->free_bh = b->next;
	} else {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
		b->own = malloc(g->bs);
		if (!b->own) {
			free(b);
			return NULL;
		}
		b->next_all = g->all_bh;
		g->all_bh = b;
	}
	b->next = NULL;
	b->win = NULL;
	b->bh.b_bdev = bdev;
	b->bh.b_blocknr = blk;
	b->bh.b_size = g->bs;
	b->bh.b_data = b->own;
	b->bh.b_private = NULL;
	return b;
}

void ej_glue_brelse(struct buffer_head *bh)
{
	struct ej_host *h = bh->b_bdev->bd_private;
	struct ej_glue *g = h->glue;
	struct ej_bh *b = (struct ej_bh *)bh;

	if (b->win) {
		win_put(g, b->win);
		b->win = NULL;
	}
	b->next = g->free_bh;
	g->free_bh = b;
}

/* ----------------------------------------------------------- progress */

void ej_glue_progress(struct ej_host *h, unsigned int pass,
		      unsigned long done, unsigned long total)
{
	struct ej_report *r = h->journal.j_report;

	if (!r || !r->hooks.progress_fn)
		return;
	r->progress_pass = pass;
	r->hooks.progress_fn(r->hooks.progress_arg, done, total);
}

/*
 * How far into the log recovery has read: the distance from s_start, as
 * a high-water mark (the later passes reread what the scan already saw),
 * reported every 1/256 of the log.
 */
static void progress_read(struct ej_host *h, unsigned long long lblk)
{
	journal_t *j = &h->journal;
	struct ej_glue *g = h->glue;
	unsigned long span, done;

	if (!j->j_report || !j->j_report->hooks.progress_fn ||
	    j->j_last <= j->j_first || lblk < j->j_first ||
	    lblk >= j->j_last || j->j_tail < j->j_first)
		return;
	span = j->j_last - j->j_first;
	done = (unsigned long)((lblk - j->j_first + span -
				(j->j_tail - j->j_first)) % span) + 1;
	if (done <= g->prog_done || (done - g->prog_done < span / 256 + 1 &&
				     done != span))
		return;
	g->prog_done = done;
	ej_glue_progress(h, EJ_PROGRESS_READ, done, span);
}

/* ----------------------------------------------------- journal device */

static struct buffer_head *jdev_bread(struct block_device *bdev,
				      unsigned long long blk,
				      unsigned int size, int *err)
{
	struct ej_host *h = bdev->bd_private;
	struct ej_glue *g = h->glue;
	const struct ej_extent *x;
	struct ej_window *w;
	struct ej_cblock *c;
	unsigned long long lblk;
	struct ej_bh *b;
	int seq;
	char *data;

	if (size != g->bs) {
		*err = -EINVAL;
		return NULL;
	}
	/* recovery only reads what bmap gave it: anything else is a bug */
	x = pext_find(h, blk);
	if (!x) {
		*err = -EIO;
		return NULL;
	}
	lblk = x->lblk + (blk - x->pblk);
	progress_read(h, lblk);
	seq = g->have_last && lblk == g->last_lblk + 1;
	/* in order, but for control blocks recovery no longer reads */
	if (g->have_last && lblk > g->last_lblk &&
	    lblk - g->last_lblk <= EJ_READ_GAP)
		g->seq_run++;
	else
		g->seq_run = 0;
	g->last_lblk = lblk;
	g->have_last = 1;

	b = ej_glue_bh_get(h, bdev, blk);
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}

	c = cache_find(g, blk);
	if (c) {
		/* a copy: recovery may scribble on it (checksum fields) */
		memcpy(b->own, c->data, g->bs);
		g->st.cache_hits++;
		return &b->bh;
	}

	w = g->win;
	if (!win_holds(w, blk))
		w = ahead_window(h, lblk, blk);
	if (!win_holds(w, blk)) {
		unsigned long long n, room;
		size_t i;
		errcode_t ret;

		if (seq)
			g->ra = g->ra >= 4 ? g->ra * 2 : 4;
		else
			g->ra = 1;
		if (g->ra > g->ra_max)
			g->ra = g->ra_max;
		n = g->ra;
		room = x->pblk + x->len - blk;
		if (n > room)
			n = room;
		/* never reread a control block already in memory */
		i = cache_lower(g, blk + 1);
		if (i < g->nr_cache && g->cache[i].blk < blk + n)
			n = g->cache[i].blk - blk;
		ret = win_fill(h, blk, (unsigned int)n);
		if (ret) {
			ej_glue_brelse(&b->bh);
			*err = ej_glue_errno(ret);
			return NULL;
		}
		w = g->win;
	}

	data = w->buf + (size_t)(blk - w->start) * g->bs;
	if (is_control(data))
		cache_insert(g, blk, data);
	b->win = w;
	w->refs++;
	b->bh.b_data = data;
	return &b->bh;
}

static int jdev_sync(struct block_device *bdev)
{
	return 0;
}

void ej_glue_invalidate(struct ej_host *h, unsigned long long blk)
{
	struct ej_glue *g = h->glue;

	if (!g)
		return;
	cache_remove(g, blk);
	h->io->ahead_stop(h);
	if (win_holds(g->win, blk))
		ej_glue_win_drop(g);
}

const struct jbd2_bdev_ops ej_jdev_ops = {
	.bread	= jdev_bread,
	.brelse	= ej_glue_brelse,
	.sync	= jdev_sync,
};

/* ------------------------------------------------------------ host ops */

static int host_bmap(journal_t *journal, unsigned long lblk,
		     unsigned long long *pblk)
{
	return ej_glue_bmap(ej_host_of(journal), lblk, pblk) ? -EIO : 0;
}

static int host_block_ok(journal_t *journal, unsigned long long blocknr)
{
	return ej_glue_block_ok(ej_host_of(journal), blocknr);
}

/* Deferred: the final-version map says what to write at the fs's sync. */
static int host_replay(journal_t *journal, struct buffer_head *obh,
		       unsigned long long blocknr, int escape)
{
	struct ej_host *h = ej_host_of(journal);

	if (!ej_glue_block_ok(h, blocknr))
		return -EFSCORRUPTED;
	h->glue->dirty = 1;
	return 0;
}

const struct jbd2_host_ops ej_io_host_ops = {
	.bmap		= host_bmap,
	.block_ok	= host_block_ok,
	.replay		= host_replay,
};
