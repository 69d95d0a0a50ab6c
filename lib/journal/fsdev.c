// SPDX-License-Identifier: LGPL-2.0
/*
 * fsdev.c: the filesystem device recovery.c sees, and the write phase
 * its sync starts: each filesystem block replay decided to write, once,
 * with its final version (the host's map, finalmap.c), in ascending
 * order, in large runs, the versions read from the journal straight into
 * the write batch where they can be, an escaped magic number restored.
 * It decides nothing: under a journal superblock verdict.c does not
 * trust, it writes nothing.  The engine (io/ioeng.c) carries the reads
 * and writes out; jglue.c is the journal device.
 */
#include "jglue.h"

#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

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
	b = ej_glue_bh_get(h, bdev, blk);
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = io_channel_read_blk64(h->fs->io, blk, 1, b->own);
	if (ret) {
		ej_glue_brelse(&b->bh);
		*err = ej_glue_errno(ret);
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
		ej_glue_win_idle(g, c->spare);
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
		if (!ej_glue_block_ok(h, f[a].fsblock)) {
			e = a + 1;
			continue;
		}
		for (e = a + 1; e < cnt; e++) {
			if (f[e].fsblock != f[e - 1].fsblock + 1 ||
			    !ej_glue_block_ok(h, f[e].fsblock))
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
			ej_glue_win_drop(g);
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
	err = ej_final_map_blocks(&h->final, &f, &n);
	if (err)
		return err;
	if (n)
		err = write_prepare(h, n, &c);
	/* ascending, a batch to a buffer, the buffers in turn */
	for (i = 0; !err && i < n; i += cnt, tag = (tag + 1) % c.tags) {
		cnt = n - i < c.step ? n - i : c.step;
		err = write_batch(h, f + i, cnt, tag, &c);
		if (!err)
			ej_glue_progress(h, EJ_PROGRESS_WRITE, i + cnt, n);
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
	return err ? ej_glue_errno(err) : 0;
}

const struct jbd2_bdev_ops ej_fsdev_ops = {
	.bread	= fsdev_bread,
	.brelse	= ej_glue_brelse,
	.sync	= fsdev_sync,
};
