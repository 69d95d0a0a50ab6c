// SPDX-License-Identifier: LGPL-2.0
/*
 * jglue.c: the block layer recovery.c sees, over libext2fs io_channels.
 *
 * Reads of the journal device go through a read-ahead window that grows
 * while recovery reads sequentially (the replay pass) and stays at one
 * block while it hops from control block to control block (the scan and
 * revoke passes).  Blocks that carry the journal magic are kept in a
 * bounded cache, so the three passes read each of them from disk once.
 *
 * Replay is deferred: the replay op only notes that something is pending.
 * The report (report.c) already knows, for each filesystem block, which
 * journal block holds its final version; syncing the filesystem device
 * writes each block once, in ascending order, in large runs.  Memory
 * stays proportional to the number of logged blocks, never their bytes.
 *
 * The glue decides what is read and written, and in which order; the
 * engine chosen at open (h->io, ioeng.c) carries it out: the plain one
 * with one pread or pwrite per run, the fast one with the log read ahead
 * on a thread and the write phase through io_uring (or writeback started
 * behind buffered writes).  Both get the same requests.
 *
 * Cost: the channels' own block cache is switched off (unix_io copies
 * every read or write of up to four blocks through it); buffers are
 * allocated once per journal (by the engine: huge pages in the fast one),
 * and final versions are read straight into the write batch where they
 * can be.
 */
#include "ej_int.h"

#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#define EJ_RA_BYTES		(128 * 1024)	/* largest journal read */
#define EJ_CACHE_BYTES		(16 * 1024 * 1024)	/* control blocks */
#define EJ_READ_GAP		8	/* blocks read across to join reads */
#define EJ_SLAB_BYTES		(2 * 1024 * 1024)	/* cache copies */

/* A read-ahead window; retired ones live until their last reader goes. */
struct ej_window {
	char			*buf;
	unsigned long long	start;		/* physical block of buf[0] */
	unsigned int		len;		/* blocks held */
	unsigned int		refs;		/* buffer_heads pointing in */
	int			slot;		/* engine's chunk, or -1 */
	struct ej_window	*next_retired;
};

struct ej_cblock {
	unsigned long long	blk;		/* physical */
	char			*data;
};

/* Where cached control blocks are copied: never freed one by one. */
struct ej_slab {
	struct ej_slab		*next;
	size_t			used, cap;	/* blocks */
	char			*mem;
};

/* A buffer_head and what the glue needs to recycle it. */
struct ej_bh {
	struct buffer_head	bh;
	struct ej_window	*win;		/* b_data points into it */
	char			*own;		/* own copy, j_blocksize */
	struct ej_bh		*next;		/* free list / all list */
	struct ej_bh		*next_all;
};

struct ej_glue {
	struct ej_host		*h;
	const struct ej_io_ops	*io;		/* h->io */
	unsigned int		bs;
	struct ej_window	*win;		/* current window, or NULL */
	struct ej_window	*retired;	/* still referenced */
	struct ej_window	*spare;		/* idle, ready for reuse */
	unsigned long long	last_lblk;	/* logical block last served */
	int			have_last;
	unsigned int		ra;		/* next read-ahead, blocks */
	unsigned int		ra_max;
	unsigned long long	seq_run;	/* blocks read in order */

	/* the chunks the engine lends from its read-ahead */
	struct ej_window	pf_win[EJ_PF_SLOTS];

	struct ej_cblock	*cache;		/* sorted by blk */
	size_t			nr_cache, max_cache;
	struct ej_slab		*slab;

	struct ej_bh		*free_bh;
	struct ej_bh		*all_bh;

	int			dirty;		/* replay pending */
	int			flushed;	/* fs channel flushed at ... */
	unsigned long long	flushed_at;	/* ... this many bytes written */
	struct ej_glue_stats	st;
	unsigned long		prog_done;	/* log blocks reported read */
};

static int is_control(const void *data)
{
	__be32 magic;

	memcpy(&magic, data, sizeof(magic));
	return magic == cpu_to_be32(JBD2_MAGIC_NUMBER);
}

/* io_channel error -> -errno for recovery.c */
static int neg_errno(errcode_t err)
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
static void win_idle(struct ej_glue *g, struct ej_window *w)
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

static int fs_block_ok(const struct ej_host *h, unsigned long long blk)
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
			win_idle(g, w);
			return;
		}
	}
}

/* Stop using the current window; free it unless someone still reads it. */
static void win_drop(struct ej_glue *g)
{
	struct ej_window *w = g->win;

	if (!w)
		return;
	g->win = NULL;
	if (w->refs) {
		w->next_retired = g->retired;
		g->retired = w;
	} else {
		win_idle(g, w);
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
	win_drop(g);
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
	win_drop(g);
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

static struct ej_bh *bh_get(struct ej_host *h, struct block_device *bdev,
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

static void glue_brelse(struct buffer_head *bh)
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

static void progress(struct ej_host *h, unsigned int pass, unsigned long done,
		     unsigned long total)
{
	struct ej_report *r = h->journal.j_report;

	if (!r || !r->progress_fn)
		return;
	r->progress_pass = pass;
	r->progress_fn(r->progress_arg, done, total);
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

	if (!j->j_report || !j->j_report->progress_fn ||
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
	progress(h, EJ_PROGRESS_READ, done, span);
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

	b = bh_get(h, bdev, blk);
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
			glue_brelse(&b->bh);
			*err = neg_errno(ret);
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
		win_drop(g);
}

const struct jbd2_bdev_ops ej_jdev_ops = {
	.bread	= jdev_bread,
	.brelse	= glue_brelse,
	.sync	= jdev_sync,
};

/* -------------------------------------------------- filesystem device */

static struct buffer_head *fsdev_bread(struct block_device *bdev,
				       unsigned long long blk,
				       unsigned int size, int *err)
{
	struct ej_host *h = bdev->bd_private;
	struct ej_bh *b;
	errcode_t ret;

	if (size != h->glue->bs || blk >= ext2fs_blocks_count(h->fs->super)) {
		*err = -EINVAL;
		return NULL;
	}
	b = bh_get(h, bdev, blk);
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = io_channel_read_blk64(h->fs->io, blk, 1, b->own);
	if (ret) {
		glue_brelse(&b->bh);
		*err = neg_errno(ret);
		return NULL;
	}
	return &b->bh;
}

struct ej_rd {
	unsigned long	jblock;
	size_t		slot;		/* index in the batch */
};

/* One read of the write phase: a run of the log, maybe with gaps. */
struct ej_span {
	size_t			first, end;	/* its entries: rd[first..end) */
	unsigned long		j0;		/* first log block read */
	unsigned long long	p0;		/* its physical block */
	size_t			len;		/* blocks read */
	char			*dst;		/* in place, or a slice of rbuf */
	int			direct;
};

/* What the write phase works with; the arrays hold a batch each. */
struct ej_rdctx {
	struct ej_rd		*rd;
	struct ej_rd		*rtmp;		/* for sorting rd */
	struct ej_span		*sp;
	struct ej_dio_io	*io;
	char			*rbuf;		/* ra_max blocks */
	struct ej_window	*spare;		/* rbuf's window, or NULL */
	char			*buf;		/* tags x step blocks */
	size_t			step;		/* blocks per buffer */
	unsigned int		tags;		/* buffers alternated */
};

/* Read spans sp[0..ns) and put their final versions in place in @buf. */
static errcode_t read_spans(struct ej_host *h, const struct ej_final_block *f,
			    char *buf, struct ej_rdctx *c, size_t ns)
{
	struct ej_glue *g = h->glue;
	unsigned int bs = g->bs;
	int batched;
	size_t s, k;
	errcode_t err;

	for (s = 0; s < ns; s++) {
		c->io[s].buf = c->sp[s].dst;
		c->io[s].len = c->sp[s].len * bs;
		c->io[s].off = c->sp[s].p0 * bs;
	}
	batched = h->io->read_log(h, c->io, ns);
	for (s = 0; s < ns; s++) {
		struct ej_span *sp = &c->sp[s];

		err = c->io[s].err;
		g->st.reads++;
		if (err && !batched && sp->len == 1)
			return err;
		if (err) {
			/*
			 * Through the channel, and only the blocks needed: a
			 * block in a gap may be one recovery could not read
			 * (and did not replay).
			 */
			for (k = sp->first; k < sp->end; k++) {
				size_t off = c->rd[k].jblock - sp->j0;

				err = io_channel_read_blk64(h->jio, sp->p0 + off,
							    1, sp->dst + off * bs);
				g->st.reads++;
				if (err)
					return err;
			}
			g->st.blocks_read += sp->end - sp->first;
		} else {
			g->st.blocks_read += sp->len;
		}
		for (k = sp->first; k < sp->end; k++) {
			char *dst = buf + c->rd[k].slot * (size_t)bs;

			if (!sp->direct)
				memcpy(dst, sp->dst + (c->rd[k].jblock - sp->j0) *
					    (size_t)bs, bs);
			if (f[c->rd[k].slot].escape) {
				__be32 magic = cpu_to_be32(JBD2_MAGIC_NUMBER);

				memcpy(dst, &magic, sizeof(magic));
			}
		}
	}
	return 0;
}

/* Fill buf[0..n) with the final versions f[0..n), reading the journal. */
static errcode_t read_finals(struct ej_host *h, const struct ej_final_block *f,
			     size_t n, char *buf, struct ej_rdctx *c)
{
	struct ej_glue *g = h->glue;
	struct ej_rd *rd = c->rd;
	unsigned int bs = g->bs;
	size_t i, j, k, ns = 0, rused = 0;
	errcode_t err;

	for (i = 0; i < n; i++) {
		rd[i].jblock = f[i].jblock;
		rd[i].slot = i;
	}
	/* by log block; stable, so equal ones stay in slot order */
	ej_radix_sort(rd, c->rtmp, n, sizeof(*rd),
		      offsetof(struct ej_rd, jblock), sizeof(rd->jblock));

	/*
	 * The final versions of a batch often sit close together in the log:
	 * read across small gaps rather than issue a read per block.
	 */
	for (i = 0; i < n; i = j) {
		unsigned long j0 = rd[i].jblock;
		unsigned long long p0, p;
		struct ej_span *sp;
		size_t span;
		int direct;

		err = ej_glue_bmap(h, j0, &p0);
		if (err)
			return err;
		for (j = i + 1; j < n; j++) {
			if (rd[j].jblock - rd[j - 1].jblock > EJ_READ_GAP ||
			    rd[j].jblock - j0 >= g->ra_max)
				break;
			if (ej_glue_bmap(h, rd[j].jblock, &p) ||
			    p != p0 + (rd[j].jblock - j0))
				break;
		}
		span = rd[j - 1].jblock - j0 + 1;
		/*
		 * A run that is consecutive both in the log and in the batch
		 * (one block, or blocks logged in ascending order) is read
		 * straight into place; anything else into a slice of rbuf,
		 * which is read out once it is full.
		 */
		direct = span == j - i;
		for (k = i + 1; direct && k < j; k++)
			direct = rd[k].slot == rd[k - 1].slot + 1;
		if (!direct && rused + span > g->ra_max) {
			err = read_spans(h, f, buf, c, ns);
			if (err)
				return err;
			ns = rused = 0;
		}
		sp = &c->sp[ns++];
		sp->first = i;
		sp->end = j;
		sp->j0 = j0;
		sp->p0 = p0;
		sp->len = span;
		sp->direct = direct;
		if (direct) {
			sp->dst = buf + rd[i].slot * (size_t)bs;
		} else {
			sp->dst = c->rbuf + rused * (size_t)bs;
			rused += span;
		}
	}
	return read_spans(h, f, buf, c, ns);
}

/* What the fs channel has written so far, or ~0 when it cannot say. */
static unsigned long long fs_bytes_written(struct ej_host *h)
{
	io_stats stats = NULL;

	if (!h->fs->io->manager->get_stats ||
	    h->fs->io->manager->get_stats(h->fs->io, &stats) || !stats)
		return ~0ULL;
	return stats->bytes_written;
}

/*
 * 1 unless the replayed blocks were flushed and nothing has been written
 * through the fs channel since: then another flush (an fsync) is moot.
 */
int ej_glue_needs_flush(struct ej_host *h)
{
	struct ej_glue *g = h->glue;
	unsigned long long now;

	if (!g || !g->flushed)
		return 1;
	now = fs_bytes_written(h);
	return now == ~0ULL || now != g->flushed_at;
}

/*
 * Buffers for the write phase over @n final versions, and the engine
 * started: c->tags buffers of c->step blocks each.
 */
static errcode_t write_prepare(struct ej_host *h, size_t n,
			       struct ej_rdctx *c)
{
	struct ej_glue *g = h->glue;
	size_t batch = EJ_WRITE_BATCH_BYTES / g->bs;

	if (!batch)
		batch = 1;
	if (batch > n)
		batch = n;
	c->buf = g->io->alloc(batch * g->bs);
	c->rd = malloc(batch * sizeof(*c->rd));
	c->rtmp = malloc(batch * sizeof(*c->rtmp));
	c->sp = malloc(batch * sizeof(*c->sp));
	c->io = malloc(batch * sizeof(*c->io));
	if (!c->buf || !c->rd || !c->rtmp || !c->sp || !c->io)
		return EJ_NO_MEMORY;
	/* recovery has stopped reading: an idle read window serves */
	if (g->win && !g->win->refs) {
		c->spare = g->win;
		g->win = NULL;
	} else if (g->spare) {
		c->spare = g->spare;
		g->spare = NULL;
	}
	if (c->spare) {
		c->rbuf = c->spare->buf;
	} else {
		c->rbuf = g->io->alloc((size_t)g->ra_max * g->bs);
		if (!c->rbuf)
			return EJ_NO_MEMORY;
	}
	/* as for the journal (ej_glue_init): no copies through its cache */
	io_channel_set_options(h->fs->io, "cache=off");
	c->tags = h->io->write_begin(h, n);
	c->step = batch / c->tags;
	return 0;
}

/* Give back what write_prepare() took; with @keep the buffers stay. */
static void write_release(struct ej_host *h, struct ej_rdctx *c, int keep)
{
	struct ej_glue *g = h->glue;

	free(c->rd);
	free(c->rtmp);
	free(c->sp);
	free(c->io);
	if (keep)
		return;	/* the kernel may still use them: never freed */
	g->io->release(c->buf);
	if (c->spare) {
		c->spare->len = 0;
		win_idle(g, c->spare);
	} else {
		g->io->release(c->rbuf);
	}
}

/*
 * One batch: the final versions f[0..@cnt) read into buffer @tag and
 * written home in runs of consecutive blocks.
 */
static errcode_t write_batch(struct ej_host *h, const struct ej_final_block *f,
			     size_t cnt, unsigned int tag, struct ej_rdctx *c)
{
	struct ej_glue *g = h->glue;
	unsigned int bs = g->bs;
	char *part = c->buf + tag * c->step * (size_t)bs;
	size_t a, e;
	errcode_t err;

	err = h->io->write_wait(h, tag);
	if (err)
		return err;
	err = read_finals(h, f, cnt, part, c);
	if (err)
		return err;
	for (a = 0; a < cnt; a = e) {
		/* last line of defence: never outside the fs */
		if (!fs_block_ok(h, f[a].fsblock)) {
			e = a + 1;
			continue;
		}
		for (e = a + 1; e < cnt; e++) {
			if (f[e].fsblock != f[e - 1].fsblock + 1 ||
			    !fs_block_ok(h, f[e].fsblock))
				break;
		}
		err = h->io->write_home(h, tag, part + a * (size_t)bs,
					f[a].fsblock, e - a);
		g->st.writes++;
		if (err)
			return err;
		g->st.blocks_written += e - a;
	}
	return 0;
}

errcode_t ej_glue_write_replayed(struct ej_host *h)
{
	struct ej_glue *g = h->glue;
	struct ej_final_block *f = NULL;
	struct ej_rdctx c = { 0 };
	unsigned int tag = 0;
	size_t n, i, cnt;
	int keep = 0, jsb;
	errcode_t err, err2;

	if (g) {
		/* recovery has stopped reading: so does the read-ahead */
		h->io->ahead_stop(h);
		if (g->win && g->win->slot >= 0)
			win_drop(g);
	}
	/*
	 * verdict.c gave no block of an untrusted journal a write; recovery.c
	 * started from a clean slate of corruption flags, so the reason is
	 * raised here, and "refuse" refuses.
	 */
	jsb = ej_verdict_jsb(h->journal.j_replay_policy,
			     !!(h->info.jsb_problems & EJ_JSB_BAD_CSUM));
	if (g && jsb != EJ_JSB_TRUSTED) {
		h->journal.j_replay_corrupt |= JBD2_CORRUPT_SUPERBLOCK;
		g->dirty = 0;
		return jsb == EJ_JSB_REFUSE ? EJ_REPLAY_REFUSED : 0;
	}
	if (!g || !g->dirty)
		return 0;
	if (h->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN)) {
		g->dirty = 0;
		return 0;
	}
	err = ej_report_final_blocks(h->journal.j_report, &f, &n);
	if (err)
		return err;
	if (n)
		err = write_prepare(h, n, &c);
	/* ascending, a batch to a buffer, the buffers in turn */
	for (i = 0; !err && i < n; i += cnt, tag = (tag + 1) % c.tags) {
		cnt = n - i < c.step ? n - i : c.step;
		err = write_batch(h, f + i, cnt, tag, &c);
		if (!err)
			progress(h, EJ_PROGRESS_WRITE, i + cnt, n);
	}
	/* buffers stay until no write from them is in flight */
	err2 = h->io->write_end(h, &keep);
	if (!err)
		err = err2;
	if (!err)
		err = h->io->flush(h);
	if (!err) {
		g->dirty = 0;
		g->flushed = 1;
		g->flushed_at = fs_bytes_written(h);
	}
	free(f);
	if (n)
		write_release(h, &c, keep);
	return err;
}

static int fsdev_sync(struct block_device *bdev)
{
	struct ej_host *h = bdev->bd_private;
	errcode_t err;

	err = ej_glue_write_replayed(h);
	if (err == EJ_REPLAY_REFUSED)
		return -EFSCORRUPTED;
	return err ? neg_errno(err) : 0;
}

const struct jbd2_bdev_ops ej_fsdev_ops = {
	.bread	= fsdev_bread,
	.brelse	= glue_brelse,
	.sync	= fsdev_sync,
};

/* ------------------------------------------------------------ host ops */

static int host_bmap(journal_t *journal, unsigned long lblk,
		     unsigned long long *pblk)
{
	return ej_glue_bmap(ej_host_of(journal), lblk, pblk) ? -EIO : 0;
}

static int host_block_ok(journal_t *journal, unsigned long long blocknr)
{
	return fs_block_ok(ej_host_of(journal), blocknr);
}

/* Deferred: the report's map says what to write when the fs is synced. */
static int host_replay(journal_t *journal, struct buffer_head *obh,
		       unsigned long long blocknr, int escape)
{
	struct ej_host *h = ej_host_of(journal);

	if (!fs_block_ok(h, blocknr))
		return -EFSCORRUPTED;
	h->glue->dirty = 1;
	return 0;
}

const struct jbd2_host_ops ej_io_host_ops = {
	.bmap		= host_bmap,
	.block_ok	= host_block_ok,
	.replay		= host_replay,
};
