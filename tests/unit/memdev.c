// SPDX-License-Identifier: GPL-2.0
/*
 * memdev.c: recovery.c's second host, a block device in memory.
 *
 * bread hands out a private copy (as a real buffer cache would hand out a
 * buffer that the caller must release), so a use after brelse or a leak
 * shows under AddressSanitizer and in live_bh.  Replay writes at once:
 * whatever order recovery.c writes in, the tests compare the final image.
 */
#include <stdlib.h>
#include <string.h>

#include "memdev.h"

#define MEMDEV_REVOKE_HASH	1024

/* ------------------------------------------------------------------ */
/* The block device                                                    */

static struct buffer_head *memdev_bread(struct block_device *bdev,
					unsigned long long block,
					unsigned int size, int *err)
{
	struct memdev *d = bdev->bd_private;
	struct buffer_head *bh;
	unsigned int i;

	if (size != d->blocksize || block >= d->nr_blocks) {
		d->failed_reads++;
		*err = -EIO;
		return NULL;
	}
	for (i = 0; i < d->nr_fail; i++) {
		if (d->fail[i] == block) {
			d->failed_reads++;
			*err = -EIO;
			return NULL;
		}
	}
	bh = calloc(1, sizeof(*bh));
	if (!bh) {
		*err = -ENOMEM;
		return NULL;
	}
	bh->b_data = malloc(size);
	if (!bh->b_data) {
		free(bh);
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(bh->b_data, memdev_block(d, block), size);
	bh->b_bdev = bdev;
	bh->b_blocknr = block;
	bh->b_size = size;
	d->reads++;
	d->live_bh++;
	*err = 0;
	return bh;
}

static void memdev_brelse(struct buffer_head *bh)
{
	struct memdev *d = bh->b_bdev->bd_private;

	d->live_bh--;
	free(bh->b_data);
	free(bh);
}

static int memdev_sync(struct block_device *bdev)
{
	struct memdev *d = bdev->bd_private;

	d->syncs++;
	return 0;
}

static const struct jbd2_bdev_ops memdev_bdev_ops = {
	.bread	= memdev_bread,
	.brelse	= memdev_brelse,
	.sync	= memdev_sync,
};

struct memdev *memdev_new(unsigned int blocksize,
			  unsigned long long nr_blocks)
{
	struct memdev *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->data = calloc(nr_blocks, blocksize);
	if (!d->data) {
		free(d);
		return NULL;
	}
	d->blocksize = blocksize;
	d->nr_blocks = nr_blocks;
	d->bdev.bd_ops = &memdev_bdev_ops;
	d->bdev.bd_private = d;
	return d;
}

void memdev_free(struct memdev *d)
{
	if (!d)
		return;
	free(d->data);
	free(d);
}

unsigned char *memdev_block(struct memdev *d, unsigned long long blk)
{
	if (blk >= d->nr_blocks)
		return NULL;
	return d->data + blk * d->blocksize;
}

int memdev_fail_read(struct memdev *d, unsigned long long blk)
{
	if (d->nr_fail >= MEMDEV_MAX_FAIL)
		return -1;
	d->fail[d->nr_fail++] = blk;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The host                                                            */

int memhost_block_ok(const struct memhost *h, unsigned long long blk)
{
	if (blk >= h->fs->nr_blocks)
		return 0;
	if (!h->external && blk >= h->jbase && blk < h->jbase + h->jlen)
		return 0;
	return 1;
}

static int memhost_bmap(journal_t *journal, unsigned long lblk,
			unsigned long long *pblk)
{
	struct memhost *h = journal->j_host;

	if (lblk >= h->jlen)
		return -EIO;
	*pblk = h->jbase + lblk;
	return 0;
}

static int memhost_host_block_ok(journal_t *journal,
				 unsigned long long blocknr)
{
	return memhost_block_ok(journal->j_host, blocknr);
}

static int memhost_replay(journal_t *journal, struct buffer_head *obh,
			  unsigned long long blocknr, int escape)
{
	struct memhost *h = journal->j_host;
	unsigned char *dst;
	__be32 magic = cpu_to_be32(JBD2_MAGIC_NUMBER);

	h->replays++;
	/* The one thing no policy may do: count it, refuse it. */
	if (!memhost_block_ok(h, blocknr)) {
		if (!h->bad_replays)
			h->first_bad = blocknr;
		h->bad_replays++;
		return -EIO;
	}
	if (!obh || obh->b_size != h->fs->blocksize)
		return -EINVAL;
	dst = memdev_block(h->fs, blocknr);
	memcpy(dst, obh->b_data, h->fs->blocksize);
	if (escape)
		memcpy(dst, &magic, sizeof(magic));
	h->writes[blocknr]++;
	return 0;
}

static const struct jbd2_host_ops memhost_ops = {
	.bmap		= memhost_bmap,
	.block_ok	= memhost_host_block_ok,
	.replay		= memhost_replay,
};

int memhost_init(struct memhost *h, struct memdev *fs, struct memdev *jdev,
		 unsigned long long jbase, unsigned long jlen)
{
	memset(h, 0, sizeof(*h));
	if (!fs)
		return -EINVAL;
	if (!jdev)
		jdev = fs;
	if (jdev->blocksize != fs->blocksize || jbase + jlen > jdev->nr_blocks)
		return -EINVAL;
	h->fs = fs;
	h->jdev = jdev;
	h->external = jdev != fs;
	h->jbase = jbase;
	h->jlen = jlen;
	h->writes = calloc(fs->nr_blocks, sizeof(*h->writes));
	if (!h->writes)
		return -ENOMEM;
	return 0;
}

static errcode_t memhost_sink_write(void *arg, unsigned long lblk,
				    const void *buf)
{
	struct memhost *h = arg;

	if (lblk >= h->jlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	memcpy(memdev_block(h->jdev, h->jbase + lblk), buf,
	       h->jdev->blocksize);
	return 0;
}

static errcode_t memhost_sink_read(void *arg, unsigned long lblk, void *buf)
{
	struct memhost *h = arg;

	if (lblk >= h->jlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	memcpy(buf, memdev_block(h->jdev, h->jbase + lblk),
	       h->jdev->blocksize);
	return 0;
}

void memhost_sink(struct memhost *h, struct ej_jsink *sink)
{
	sink->write = memhost_sink_write;
	sink->read = memhost_sink_read;
	sink->arg = h;
}

int memhost_load(struct memhost *h, int policy)
{
	journal_superblock_t *sb;
	struct buffer_head *bh;
	journal_t *j;
	unsigned long fc;
	int err = 0;

	if (h->journal)
		return -EBUSY;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->j_dev = &h->jdev->bdev;
	j->j_fs_dev = &h->fs->bdev;
	j->j_blocksize = h->fs->blocksize;
	j->j_host_ops = &memhost_ops;
	j->j_host = h;
	j->j_replay_policy = policy;
	h->journal = j;

	bh = jbd2_bread(j->j_dev, h->jbase, j->j_blocksize, &err);
	if (!bh)
		return err ? err : -EIO;
	j->j_sb_buffer = bh;
	sb = (journal_superblock_t *)bh->b_data;
	j->j_superblock = sb;

	if (be32_to_cpu(sb->s_header.h_magic) != JBD2_MAGIC_NUMBER)
		return -EINVAL;
	switch (be32_to_cpu(sb->s_header.h_blocktype)) {
	case JBD2_SUPERBLOCK_V1:
		j->j_format_version = 1;
		break;
	case JBD2_SUPERBLOCK_V2:
		j->j_format_version = 2;
		break;
	default:
		return -EINVAL;
	}
	j->j_total_len = be32_to_cpu(sb->s_maxlen);
	j->j_first = be32_to_cpu(sb->s_first);
	j->j_last = j->j_total_len;
	/* Like the kernel: the log ends where the fast-commit area begins. */
	if (jbd2_has_feature_fast_commit(j)) {
		fc = be32_to_cpu(sb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (fc >= j->j_total_len)
			return -EINVAL;
		j->j_fc_last = j->j_total_len;
		j->j_last = j->j_fc_last - fc;
		j->j_fc_first = j->j_last + 1;
	}
	j->j_tail = be32_to_cpu(sb->s_start);
	j->j_tail_sequence = be32_to_cpu(sb->s_sequence);
	j->j_transaction_sequence = j->j_tail_sequence;
	if (jbd2_journal_has_csum_v2or3(j))
		j->j_csum_seed = jbd2_chksum(j, ~0U, sb->s_uuid,
					     sizeof(sb->s_uuid));

	err = jbd2_journal_init_revoke(j, MEMDEV_REVOKE_HASH);
	if (err)
		return err;
	if (ej_report_init(&h->report))
		return -ENOMEM;
	h->report.policy = policy;
	h->report.opts.keep_blocks = 1;	/* the tests read every entry */
	j->j_report = &h->report;
	j->j_final = &h->final;
	return 0;
}

void memhost_unload(struct memhost *h)
{
	journal_t *j = h->journal;

	if (!j)
		return;
	if (j->j_revoke)
		jbd2_journal_destroy_revoke(j);
	if (j->j_report)
		ej_report_free(j->j_report);
	ej_final_map_free(&h->final);
	brelse(j->j_sb_buffer);
	free(j);
	h->journal = NULL;
}

void memhost_fini(struct memhost *h)
{
	memhost_unload(h);
	free(h->writes);
	h->writes = NULL;
}
