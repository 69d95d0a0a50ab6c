// SPDX-License-Identifier: GPL-2.0
/*
 * kbytes.c: s_kbytes_written, as e2fsprogs 1.47's e2fsck leaves it after
 * a replay.  Our replay writes each block once; e2fsprogs counts what its
 * replay wrote through unix_io's cache.  This file models that cache
 * and the reads that go through it, fed by the report's block hook
 * (ej_report_on_block()) as recovery decides each block (kb_start), and
 * adds up the bytes (count_replay_start, count_replayed) that
 * after_replay() adds to the superblock.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "e2fsck.h"
#include "jphase.h"

/* What @io has written so far (libext2fs' count), 0 if it cannot say. */
unsigned long long channel_bytes(io_channel io, int reset)
{
	io_stats stats = NULL;
	unsigned long long n;

	if (!io || !io->manager->get_stats ||
	    io->manager->get_stats(io, &stats) || !stats)
		return 0;
	n = stats->bytes_written;
	if (reset)
		stats->bytes_written = 0;
	return n;
}

/*
 * s_kbytes_written as e2fsprogs keeps it across a replay.  Its e2fsck
 * adds what the filesystem's channel wrote until the log was replayed
 * (the journal superblock e2fsck's checks wrote back, when the journal
 * is internal, and the replayed blocks), counted only when the field was
 * not 0, to the superblock it reads afresh.  The filesystem it reopens
 * then writes through unix_io's cache, which holds those writes until
 * the close has counted its channel's bytes: nothing more is added.
 */
void count_replay_start(struct e2fsck_ctx *ctx)
{
	ctx->count_kbytes = ctx->fs->super->s_kbytes_written != 0;
	ctx->replay_bytes = channel_bytes(ctx->fs->io, 0);
}

/*
 * What e2fsprogs' e2fsck writes when it flushes a filesystem its journal
 * checks changed, just before the replay (ext2fs_flush() with only the
 * primary superblock: its changed 16-bit words, and the primary group
 * descriptor blocks whole).  Ours writes the superblock whole and no
 * descriptors; s_kbytes_written counts e2fsprogs' bytes.
 */
unsigned long long flush_bytes(ext2_filsys fs)
{
	struct ext2_super_block sb;
	const unsigned char *a, *b;
	unsigned long long n = 0;
	unsigned int i;

	if (!fs->orig_super || !fs->io->manager->write_byte) {
		n = SUPERBLOCK_SIZE;
	} else {
		sb = *fs->super;
		sb.s_wtime = fs->now ? fs->now : time(NULL);
		sb.s_block_group_nr = 0;
#ifdef WORDS_BIGENDIAN
		ext2fs_swap_super(&sb);
#endif
		ext2fs_superblock_csum_set(fs, &sb);
		a = (const unsigned char *)fs->orig_super;
		b = (const unsigned char *)&sb;
		for (i = 0; i < SUPERBLOCK_SIZE; i += 2)
			if (a[i] != b[i] || a[i + 1] != b[i + 1])
				n += 2;
	}
	if (!ext2fs_has_feature_meta_bg(fs->super))
		n += (unsigned long long)fs->desc_blocks * fs->blocksize;
	return n;
}

/*
 * e2fsprogs replays one block at a time through unix_io, whose cache
 * holds the last UIO_CACHE_SLOTS blocks touched (read or written) and
 * writes a dirty one only when it is evicted (the least recently used
 * goes first) or flushed at the end of the replay.  A block the log
 * rewrites while it is still cached is written once.  Its channel
 * counts those writes only: wb_cache replays the same accesses and
 * counts the same.
 */
#define UIO_CACHE_SLOTS 8

struct wb_cache {
	unsigned long long	blk[UIO_CACHE_SLOTS];
	unsigned long		stamp[UIO_CACHE_SLOTS];
	unsigned char		used[UIO_CACHE_SLOTS];
	unsigned char		dirty[UIO_CACHE_SLOTS];
	unsigned long		clock;
	unsigned long		writes;
};

static void wb_touch(struct wb_cache *c, unsigned long long blk, int write)
{
	int i, victim = -1;

	for (i = 0; i < UIO_CACHE_SLOTS; i++) {
		if (!c->used[i]) {
			if (victim < 0 || c->used[victim])
				victim = i;
			continue;
		}
		if (c->blk[i] == blk) {
			c->stamp[i] = ++c->clock;
			c->dirty[i] |= write;
			return;
		}
		if (victim < 0 ||
		    (c->used[victim] && c->stamp[i] < c->stamp[victim]))
			victim = i;
	}
	if (c->used[victim] && c->dirty[victim])
		c->writes++;
	c->used[victim] = 1;
	c->blk[victim] = blk;
	c->dirty[victim] = write;
	c->stamp[victim] = ++c->clock;
}

static unsigned long wb_flush(struct wb_cache *c)
{
	int i;

	for (i = 0; i < UIO_CACHE_SLOTS; i++)
		if (c->used[i] && c->dirty[i])
			c->writes++;
	return c->writes;
}

/* The journal inode's blocks as e2fsprogs' bmap reads them. */
struct jmap {
	ext2_filsys		fs;
	ext2_extent_handle_t	handle;		/* NULL: not extent-mapped */
	ext2_ino_t		ino;
	struct ext2fs_extent	run;		/* the last extent found */
	int			have_run;
	blk64_t			path[8];	/* its tree nodes, leaf first */
	int			npath;
	struct ext2_inode	inode;
	blk64_t			ind_blk;	/* what ind_buf holds, or 0 */
	char			*ind_buf;
};

/* Entry @i of indirect block @blk, 0 if it cannot be read. */
static blk64_t ind_entry(struct jmap *m, blk64_t blk, unsigned long long i)
{
	if (!blk || blk >= ext2fs_blocks_count(m->fs->super))
		return 0;
	if (m->ind_blk != blk) {
		m->ind_blk = 0;
		if (io_channel_read_blk64(m->fs->io, blk, 1, m->ind_buf))
			return 0;
		m->ind_blk = blk;
	}
	return ext2fs_le32_to_cpu(((__le32 *)m->ind_buf)[i]);
}

/* A journal inode mapped by indirect blocks: each level read, top first. */
static blk64_t jmap_touch_ind(struct jmap *m, struct wb_cache *c,
			      unsigned long long lblk)
{
	unsigned long long apb = m->fs->blocksize / 4, span = 1;
	blk64_t blk;
	int depth = 0, slot;

	if (lblk < EXT2_NDIR_BLOCKS)
		return m->inode.i_block[lblk];
	lblk -= EXT2_NDIR_BLOCKS;
	for (depth = 1; depth <= 3; depth++) {
		span *= apb;
		if (lblk < span)
			break;
		lblk -= span;
	}
	if (depth > 3)
		return 0;
	slot = EXT2_IND_BLOCK + depth - 1;
	blk = m->inode.i_block[slot];
	while (blk && depth-- > 0) {
		wb_touch(c, blk, 0);
		span /= apb;
		blk = ind_entry(m, blk, (lblk / span) % apb);
	}
	return blk;
}

/*
 * Touch in @c what mapping logical journal block @lblk costs e2fsprogs
 * (the extent tree's nodes below the inode, root first) and return the
 * block's physical number, 0 if it has none.
 */
static blk64_t jmap_touch(struct jmap *m, struct wb_cache *c,
			  unsigned long long lblk)
{
	struct ext2_extent_info info;
	struct ext2fs_extent ext;
	int i;

	if (!m->handle)
		return jmap_touch_ind(m, c, lblk);
	/* within the last extent: the same nodes on the way down */
	if (!m->have_run || lblk < m->run.e_lblk ||
	    lblk - m->run.e_lblk >= m->run.e_len) {
		m->have_run = 0;
		m->npath = 0;
		if (ext2fs_extent_goto(m->handle, lblk) ||
		    ext2fs_extent_get(m->handle, EXT2_EXTENT_CURRENT,
				      &m->run))
			return 0;
		m->have_run = 1;
		/* each level's index entry names the node below it */
		while (m->npath < 8 &&
		       !ext2fs_extent_get_info(m->handle, &info) &&
		       info.curr_level > 0 &&
		       !ext2fs_extent_get(m->handle, EXT2_EXTENT_UP, &ext))
			m->path[m->npath++] = ext.e_pblk;
	}
	for (i = m->npath - 1; i >= 0; i--)
		wb_touch(c, m->path[i], 0);
	return m->run.e_pblk + (lblk - m->run.e_lblk);
}

static int jmap_open(struct jmap *m, ext2_filsys fs, ext2_ino_t ino)
{
	memset(m, 0, sizeof(*m));
	m->fs = fs;
	m->ino = ino;
	if (ext2fs_read_inode(fs, ino, &m->inode))
		return -1;
	if (m->inode.i_flags & EXT4_EXTENTS_FL)
		return ext2fs_extent_open2(fs, ino, &m->inode, &m->handle) ?
		       -1 : 0;
	return ext2fs_get_mem(fs->blocksize, &m->ind_buf) ? -1 : 0;
}

static void jmap_close(struct jmap *m)
{
	if (m->handle)
		ext2fs_extent_free(m->handle);
	ext2fs_free_mem(&m->ind_buf);
}

/*
 * The blocks e2fsprogs' replay pass writes to the filesystem's channel:
 * it reads every log block of the replayed transactions in order
 * (through the same cache when the journal is internal) and writes each
 * block it replays right after reading it, every version of it.  The
 * library reports each logged block as recovery decides it, in log
 * order, after all the transactions: the model follows along
 * (kb_block), so that no list of every logged block is kept for it.
 */
struct kb_model {
	journal_t		*j;
	struct wb_cache		cache;		/* unix_io's, as e2fsprogs' */
	struct jmap		map;		/* an internal journal's */
	int			internal;
	int			lost;		/* a block out of order: done */
	size_t			txn;		/* the one followed (txns[]) */
	unsigned int		touched;	/* its log blocks touched */
	unsigned long		next_jblk;	/* its next log block */
	unsigned long		last_jblk;	/* the last one touched */
};

/* The replay being counted: one a run. */
static struct kb_model replay_model;

/* Touch the next log block of transaction m->txn. */
static void kb_step(struct kb_model *m)
{
	if (m->internal) {
		blk64_t pb = jmap_touch(&m->map, &m->cache, m->next_jblk);

		if (pb)
			wb_touch(&m->cache, pb, 0);
	}
	m->last_jblk = m->next_jblk;
	m->touched++;
	if (++m->next_jblk >= m->j->j_last)
		m->next_jblk = m->j->j_first;
}

/* The rest of transaction m->txn's log blocks, then on to the next. */
static void kb_next_txn(struct kb_model *m, const struct ej_report *r)
{
	const struct jbd2_txn_info *ti = &r->txns[m->txn];

	while (ti->replay && m->touched < ti->nr_blocks)
		kb_step(m);
	m->txn++;
	m->touched = 0;
	if (m->txn < r->nr_txns)
		m->next_jblk = r->txns[m->txn].first_block;
}

static void kb_block(void *arg, __u32 tid, unsigned long jblock,
		     unsigned long long fsblock, int verdict)
{
	struct kb_model *m = arg;
	const struct ej_report *r = ej_journal_report(m->j);
	const struct jbd2_txn_info *ti;

	if (m->lost)
		return;
	if (m->txn == (size_t)-1) {
		m->txn = 0;
		if (r->nr_txns)
			m->next_jblk = r->txns[0].first_block;
	}
	while (m->txn < r->nr_txns && r->txns[m->txn].tid != tid)
		kb_next_txn(m, r);
	if (m->txn >= r->nr_txns) {
		m->lost = 1;
		return;
	}
	ti = &r->txns[m->txn];
	if (!ti->replay)
		return;
	/* up to its log block; one not ahead ends the transaction's writes */
	if (!m->touched || m->last_jblk != jblock) {
		while (m->touched < ti->nr_blocks && m->next_jblk != jblock)
			kb_step(m);
		if (m->touched >= ti->nr_blocks)
			return;
		kb_step(m);
	}
	/* SUPERSEDED later or not, this version is written */
	if (verdict == JBD2_BLOCK_REPLAYED)
		wb_touch(&m->cache, fsblock, 1);
}

void kb_start(struct e2fsck_ctx *ctx, journal_t *j)
{
	struct kb_model *m = &replay_model;
	const struct ej_journal_info *ji = ej_journal_info(j);
	struct ej_report *r = ej_journal_report(j);

	memset(m, 0, sizeof(*m));
	if (!ctx->count_kbytes)
		return;
	m->j = j;
	m->txn = (size_t)-1;
	m->internal = !ji->external && !ji->saved;
	if (m->internal && jmap_open(&m->map, ctx->fs, ji->ino))
		m->internal = 0;
	ej_report_on_block(r, kb_block, m);
}

void count_replayed(struct e2fsck_ctx *ctx, journal_t *j)
{
	struct kb_model *m = &replay_model;
	struct ej_report *r = ej_journal_report(j);

	if (!ctx->count_kbytes)
		return;
	ej_report_on_block(r, NULL, NULL);
	if (m->txn == (size_t)-1) {
		m->txn = 0;
		if (r->nr_txns)
			m->next_jblk = r->txns[0].first_block;
	}
	while (m->txn < r->nr_txns)
		kb_next_txn(m, r);
	if (m->internal)
		jmap_close(&m->map);
	ctx->replay_bytes += (unsigned long long)ctx->fs->blocksize *
			     wb_flush(&m->cache);
}
