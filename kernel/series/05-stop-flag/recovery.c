// SPDX-License-Identifier: GPL-2.0+ OR LGPL-2.0
/*
 * recovery.c: replay a JBD2 journal.
 *
 * Written for e2journal in the shape of Linux's jbd2 recovery code, so
 * that the same file builds into the kernel and into e2fsck.  Recovery
 * runs in three passes over the log:
 *
 *  PASS_SCAN	walk the log once, learn where every transaction's
 *		descriptor, revoke and commit blocks are and whether their
 *		checksums hold, then decide which transactions are
 *		replayed and whose revoke records are honoured;
 *  PASS_REVOKE	load the revoke records of those transactions;
 *  PASS_REPLAY	hand every logged block of them to the host, with a
 *		verdict: replayed, revoked, or skipped and why.
 *
 * Recovery ends at the first bad commit exactly as e2fsprogs 1.47 does
 * (the policy "stop"), and raises a corruption flag for what it found.
 * A tag naming a block outside the filesystem or inside the journal is
 * never written.
 */

#ifndef __KERNEL__
#include "jfs_user.h"
#else
#include <linux/time.h>
#include <linux/fs.h>
#include <linux/jbd2.h>
#include <linux/errno.h>
#include <linux/crc32.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#endif

/* One control block found by the scan. */
struct ctl_block {
	unsigned long	lblk;
	unsigned int	type;		/* JBD2_*_BLOCK */
	unsigned int	count;		/* descriptor: tags */
	bool		csum_ok;
};

/* One transaction found by the scan. */
struct txn_rec {
	struct jbd2_txn_info	ti;
	unsigned int		first_ctl;	/* index into info->ctl */
	unsigned int		nr_ctl;
};

struct recovery_info {
	tid_t		start_transaction;
	tid_t		end_transaction;	/* first tid not replayed */

	int		nr_replays;
	int		nr_revokes;
	int		nr_revoke_hits;

	struct txn_rec	*txn;
	unsigned int	nr_txn, max_txn;
	struct ctl_block *ctl;
	unsigned int	nr_ctl, max_ctl;
};

/* Scan state carried from block to block. */
struct scan_state {
	tid_t		tid;		/* sequence expected next */
	unsigned long	next;		/* log block to look at next */
	unsigned long	walked;		/* log blocks consumed so far */
	int		cur;		/* index of the open transaction, or -1 */
	bool		need_check_commit_time;
	u64		last_commit_time;
	__u32		crc32_sum;	/* v1 checksum of the open transaction */
};

static const __u8 zero_bytes[64];

/* Raise the corruption flag for @why, remembering the first bad tid. */
static void flag(journal_t *journal, unsigned int why, tid_t tid)
{
	if (!journal->j_replay_corrupt)
		journal->j_replay_first_bad = tid;
	journal->j_replay_corrupt |= why;
}

/* Tags of 10 and 14 bytes leave later fields unaligned: load bytewise. */
static inline __u32 load_be32(const void *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline __u16 load_be16(const void *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static inline unsigned long log_len(journal_t *journal)
{
	return journal->j_last - journal->j_first;
}

/*
 * Advance a log position by @n blocks, wrapping at the end of the log
 * as e2fsprogs' wrap() does it: once, back to s_first.  That is the same
 * as long as a step is shorter than the log, and where it is not (a
 * damaged s_maxlen or s_first), the read that follows fails or ends the
 * log as e2fsprogs' does; a log that starts before s_first (read from
 * s_start, see jbd2_journal_recover()) goes on at s_first.
 */
static unsigned long log_advance(journal_t *journal, unsigned long blk,
				 unsigned long n)
{
	unsigned long next = blk + n;

	if (next >= journal->j_last)
		next = next - journal->j_last +
		       be32_to_cpu(journal->j_superblock->s_first);
	return next;
}

/*
 * As log_advance(), but as e2fsprogs gets there one block at a time,
 * wrapping at each (its v1 checksum walk and its replay): that goes
 * round [s_first, j_last) however long the step.
 */
static unsigned long log_step(journal_t *journal, unsigned long blk,
			      unsigned long n)
{
	unsigned long s_first = be32_to_cpu(journal->j_superblock->s_first);

	if (blk < journal->j_last &&
	    blk + n >= journal->j_last && s_first < journal->j_last)
		return s_first +
			(blk + n - journal->j_last) % (journal->j_last - s_first);
	return log_advance(journal, blk, n);
}

/* Read log block @blk; NULL and *err on failure. */
static struct buffer_head *jread(journal_t *journal, unsigned long blk,
				 int *err)
{
	unsigned long long pblk;
	struct buffer_head *bh;

	if (blk >= journal->j_total_len) {
		jbd2_recovery_msg(journal,
				  "JBD2: corrupted journal superblock\n");
		*err = -EFSCORRUPTED;
		return NULL;
	}
	*err = jbd2_journal_bmap(journal, blk, &pblk);
	if (*err) {
		jbd2_recovery_msg(journal, "JBD2: bad block at offset %lu\n",
				  blk);
		return NULL;
	}
	bh = jbd2_bread(journal->j_dev, pblk, journal->j_blocksize, err);
	if (!bh) {
		jbd2_recovery_msg(journal,
				  "JBD2: Failed to read block at offset %lu\n",
				  blk);
		if (!*err)
			*err = -EIO;
	}
	return bh;
}

/* crc32c of a whole block with the 4 bytes at @off taken as zero. */
static __u32 csum_hole(journal_t *journal, const char *buf, size_t off)
{
	__u32 crc;

	crc = jbd2_chksum(journal, journal->j_csum_seed, buf, off);
	crc = jbd2_chksum(journal, crc, zero_bytes, 4);
	return jbd2_chksum(journal, crc, buf + off + 4,
			   journal->j_blocksize - off - 4);
}

static bool descr_csum_ok(journal_t *journal, const char *buf)
{
	size_t off = journal->j_blocksize - sizeof(struct jbd2_journal_block_tail);
	const struct jbd2_journal_block_tail *tail = (const void *)(buf + off);

	if (!jbd2_journal_has_csum_v2or3(journal))
		return true;
	return be32_to_cpu(tail->t_checksum) == csum_hole(journal, buf, off);
}

static bool commit_csum_ok(journal_t *journal, const char *buf)
{
	const struct commit_header *h = (const void *)buf;

	if (!jbd2_journal_has_csum_v2or3(journal))
		return true;
	return be32_to_cpu(h->h_chksum[0]) ==
		csum_hole(journal, buf, offsetof(struct commit_header, h_chksum));
}

/* The v1 (compat CHECKSUM) commit test, as Linux and e2fsprogs make it. */
static bool commit_v1_ok(const char *buf, __u32 crc32_sum)
{
	const struct commit_header *h = (const void *)buf;
	__u32 found = be32_to_cpu(h->h_chksum[0]);

	if (h->h_chksum_type == JBD2_CRC32_CHKSUM &&
	    h->h_chksum_size == JBD2_CRC32_CHKSUM_SIZE && found == crc32_sum)
		return true;
	/* A commit that carries no checksum at all is accepted. */
	return h->h_chksum_type == 0 && h->h_chksum_size == 0 && found == 0;
}

static bool block_tag_csum_ok(journal_t *journal, const char *tagp,
			      const void *data, tid_t sequence)
{
	__be32 seq = cpu_to_be32(sequence);
	__u32 csum;

	if (!jbd2_journal_has_csum_v2or3(journal))
		return true;
	csum = jbd2_chksum(journal, journal->j_csum_seed, &seq, sizeof(seq));
	csum = jbd2_chksum(journal, csum, data, journal->j_blocksize);
	if (jbd2_has_feature_csum3(journal))
		return load_be32(tagp + offsetof(journal_block_tag3_t,
						 t_checksum)) == csum;
	return load_be16(tagp + offsetof(journal_block_tag_t, t_checksum)) ==
		(csum & 0xffff);
}

/* Bytes of a descriptor or revoke block that hold tags or records. */
static unsigned int block_space(journal_t *journal)
{
	unsigned int size = journal->j_blocksize;

	if (jbd2_journal_has_csum_v2or3(journal))
		size -= sizeof(struct jbd2_journal_block_tail);
	return size;
}

/*
 * Tag iteration.  Every layout keeps the block number at offset 0, the
 * high word (64bit) at 8 and the low 16 flag bits at 6 (the v3 tag's
 * 32-bit flags are big-endian, so their low half sits there too).
 */
struct tag_iter {
	const char	*buf;
	unsigned int	off;		/* of the next tag */
	unsigned int	space;
	unsigned int	tag_bytes;
	bool		done;
};

static void tag_iter_init(journal_t *journal, struct tag_iter *it,
			  const char *buf)
{
	it->buf = buf;
	it->off = sizeof(journal_header_t);
	it->space = block_space(journal);
	it->tag_bytes = journal_tag_bytes(journal);
	it->done = false;
}

/* Next tag, or NULL; sets *flags and *blocknr. */
static const char *tag_next(journal_t *journal, struct tag_iter *it,
			    unsigned int *flags, unsigned long long *blocknr)
{
	const char *tagp;

	if (it->done || it->off + it->tag_bytes > it->space)
		return NULL;
	tagp = it->buf + it->off;
	*flags = load_be16(tagp + offsetof(journal_block_tag_t, t_flags));
	*blocknr = load_be32(tagp);
	if (jbd2_has_feature_64bit(journal))
		*blocknr |= (u64)load_be32(tagp +
			offsetof(journal_block_tag_t, t_blocknr_high)) << 32;
	it->off += it->tag_bytes;
	if (!(*flags & JBD2_FLAG_SAME_UUID))
		it->off += JBD2_UUID_BYTES;
	if (*flags & JBD2_FLAG_LAST_TAG)
		it->done = true;
	return tagp;
}

/* Number of tags in a descriptor; *last is set when LAST_TAG ended it. */
static unsigned int count_tags(journal_t *journal, const char *buf,
			       bool *last)
{
	struct tag_iter it;
	unsigned long long blocknr;
	unsigned int flags, nr = 0;

	tag_iter_init(journal, &it, buf);
	while (tag_next(journal, &it, &flags, &blocknr))
		nr++;
	if (last)
		*last = it.done;
	return nr;
}

static int grow(void **arr, unsigned int *max, unsigned int nr, size_t size)
{
	unsigned int nmax;
	void *p;

	if (nr < *max)
		return 0;
	nmax = *max ? *max * 2 : 16;
	p = krealloc(*arr, (size_t)nmax * size, GFP_NOFS);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*max = nmax;
	return 0;
}

/* The transaction @ss->tid, opened at @first if it is not open yet. */
static int open_txn(struct recovery_info *info, struct scan_state *ss,
		    unsigned long first)
{
	struct txn_rec *t;
	int err;

	if (ss->cur >= 0)
		return 0;
	err = grow((void **)&info->txn, &info->max_txn, info->nr_txn,
		   sizeof(*info->txn));
	if (err)
		return err;
	t = &info->txn[info->nr_txn];
	memset(t, 0, sizeof(*t));
	t->ti.tid = ss->tid;
	t->ti.first_block = first;
	t->ti.commit_block = ~0UL;
	t->ti.status = JBD2_COMMIT_MISSING;
	t->first_ctl = info->nr_ctl;
	ss->cur = info->nr_txn++;
	ss->crc32_sum = ~0U;
	return 0;
}

static int add_ctl(struct recovery_info *info, struct scan_state *ss,
		   unsigned int type, bool csum_ok, unsigned int count)
{
	struct txn_rec *t = &info->txn[ss->cur];
	struct ctl_block *c;
	int err;

	err = grow((void **)&info->ctl, &info->max_ctl, info->nr_ctl,
		   sizeof(*info->ctl));
	if (err)
		return err;
	c = &info->ctl[info->nr_ctl++];
	c->lblk = ss->next;
	c->type = type;
	c->csum_ok = csum_ok;
	c->count = count;
	t->nr_ctl++;
	if (type == JBD2_DESCRIPTOR_BLOCK) {
		t->ti.nr_descr++;
		if (!csum_ok)
			t->ti.nr_bad_descr++;
	} else if (type == JBD2_REVOKE_BLOCK) {
		t->ti.nr_revoke++;
		if (!csum_ok)
			t->ti.nr_bad_revoke++;
	}
	return 0;
}

/* Close the open transaction with @status; its blocks end before @end. */
static void close_txn(journal_t *journal, struct recovery_info *info,
		      struct scan_state *ss, unsigned int status,
		      unsigned long end)
{
	struct txn_rec *t = &info->txn[ss->cur];

	t->ti.status = status;
	t->ti.nr_blocks = (end - t->ti.first_block + log_len(journal)) %
		log_len(journal);
	if (!t->ti.nr_blocks && status != JBD2_COMMIT_MISSING)
		t->ti.nr_blocks = log_len(journal);
	ss->cur = -1;
}

/*
 * v1: add the descriptor and its data blocks to the running crc32.  On
 * a read error *@used is the number of data blocks it got to, the
 * unreadable one included.
 */
static int calc_chksums(journal_t *journal, struct scan_state *ss,
			const char *buf, unsigned int ntags,
			unsigned int *used)
{
	unsigned int i;
	int err;

	ss->crc32_sum = crc32_be(ss->crc32_sum, (void *)buf,
				 journal->j_blocksize);
	for (i = 0; i < ntags; i++) {
		unsigned long blk = log_step(journal, ss->next, 1 + i);
		struct buffer_head *obh = jread(journal, blk, &err);

		if (!obh) {
			jbd2_recovery_msg(journal,
				"JBD2: IO error %d recovering block %lu in log\n",
				err, blk);
			*used = i + 1;
			return err;
		}
		ss->crc32_sum = crc32_be(ss->crc32_sum, (void *)obh->b_data,
					 journal->j_blocksize);
		brelse(obh);
	}
	return 0;
}

/* Scan outcomes besides errors. */
#define SCAN_NEXT	0	/* go on with the next block */
#define SCAN_END	1	/* the log ends here */

/* A commit block, judged the way e2fsprogs 1.47 and Linux 6.1 judge it. */
static int scan_commit_strict(journal_t *journal, struct recovery_info *info,
			      struct scan_state *ss, const char *buf)
{
	const struct commit_header *h = (const void *)buf;
	u64 commit_time = be64_to_cpu(h->h_commit_sec);
	struct txn_rec *t = &info->txn[ss->cur];

	t->ti.commit_block = ss->next;
	t->ti.commit_sec = commit_time;
	if (ss->need_check_commit_time) {
		/*
		 * A descriptor or revoke block of this transaction failed its
		 * checksum.  An older commit time says the blocks are stale
		 * leftovers of an earlier journal: the log ends.  Otherwise
		 * the journal is corrupt and nothing is replayed at all.
		 */
		if (commit_time >= ss->last_commit_time) {
			jbd2_recovery_msg(journal,
				"JBD2: Invalid checksum found in transaction %u\n",
				t->ti.tid);
			if (t->ti.nr_bad_descr)
				journal->j_replay_corrupt |=
					JBD2_CORRUPT_DESCR_CSUM;
			if (t->ti.nr_bad_revoke)
				journal->j_replay_corrupt |=
					JBD2_CORRUPT_REVOKE_CSUM;
			journal->j_replay_first_bad = t->ti.tid;
			close_txn(journal, info, ss, JBD2_COMMIT_BAD_CSUM,
				  log_advance(journal, ss->next, 1));
			return -EFSBADCRC;
		}
		close_txn(journal, info, ss, JBD2_COMMIT_STALE, ss->next);
		return SCAN_END;
	}
	if (jbd2_has_feature_checksum(journal)) {
		if (info->end_transaction) {
			/* Another commit after a failed async one. */
			journal->j_failed_commit = info->end_transaction;
			close_txn(journal, info, ss, JBD2_COMMIT_OK,
				  log_advance(journal, ss->next, 1));
			return SCAN_END;
		}
		if (!commit_v1_ok(buf, ss->crc32_sum))
			goto bad;
		ss->crc32_sum = ~0U;
	}
	if (!commit_csum_ok(journal, buf))
		goto bad;
	goto good;
bad:
	if (commit_time < ss->last_commit_time) {
		/* Stale commit from an earlier journal: end of log. */
		close_txn(journal, info, ss, JBD2_COMMIT_STALE, ss->next);
		return SCAN_END;
	}
	if (!journal->j_replay_corrupt)
		journal->j_replay_first_bad = ss->tid;
	journal->j_replay_corrupt |= JBD2_CORRUPT_COMMIT_CSUM;
	info->end_transaction = ss->tid;
	if (!jbd2_has_feature_async_commit(journal)) {
		journal->j_failed_commit = ss->tid;
		close_txn(journal, info, ss, JBD2_COMMIT_BAD_CSUM,
			  log_advance(journal, ss->next, 1));
		return SCAN_END;
	}
	close_txn(journal, info, ss, JBD2_COMMIT_BAD_CSUM,
		  log_advance(journal, ss->next, 1));
	goto next;
good:
	close_txn(journal, info, ss, JBD2_COMMIT_OK,
		  log_advance(journal, ss->next, 1));
next:
	ss->last_commit_time = commit_time;
	ss->tid++;
	return SCAN_NEXT;
}

static int scan_descriptor(journal_t *journal, struct recovery_info *info,
			   struct scan_state *ss, const char *buf)
{
	bool csum_ok = descr_csum_ok(journal, buf);
	unsigned int ntags = count_tags(journal, buf, NULL);
	unsigned int used;
	int err;

	err = add_ctl(info, ss, JBD2_DESCRIPTOR_BLOCK, csum_ok, ntags);
	if (err)
		return err;

	if (!csum_ok)
		ss->need_check_commit_time = true;
	/*
	 * e2fsprogs and Linux go on with the block after one they could not
	 * read (and so, past the end of the journal, fail).
	 */
	if (jbd2_has_feature_checksum(journal) &&
	    !ss->need_check_commit_time && !info->end_transaction) {
		if (!calc_chksums(journal, ss, buf, ntags, &used))
			used = ntags;
		ss->walked += 1 + used;
		ss->next = log_step(journal, ss->next, 1 + used);
		return SCAN_NEXT;
	}
	ss->walked += 1 + ntags;
	ss->next = log_advance(journal, ss->next, 1 + ntags);
	return SCAN_NEXT;
}

static int do_scan(journal_t *journal, struct recovery_info *info)
{
	journal_superblock_t *sb = journal->j_superblock;
	struct scan_state ss = {
		.tid = be32_to_cpu(sb->s_sequence),
		.next = be32_to_cpu(sb->s_start),
		.cur = -1,
		.crc32_sum = ~0U,
	};
	unsigned long lap;
	int ret = 0;

	/*
	 * The walk wraps as e2fsprogs' does (log_advance()), which has no
	 * limit: it ends the log where a block of the lap it went round does
	 * not follow on, or fails to read past the journal.  Room for that
	 * one more step, however long a descriptor makes it; only a walk
	 * that goes round in a circle ends here.
	 */
	lap = log_len(journal) + journal->j_total_len + journal->j_blocksize;
	info->start_transaction = ss.tid;
	for (;;) {
		const journal_header_t *hdr;
		struct buffer_head *bh;
		unsigned int type;
		int err;

		cond_resched();
		if (ss.walked >= lap) {
			/* The log ran all the way round: it cannot be longer. */
			flag(journal, JBD2_CORRUPT_LOOP, ss.tid);
			break;
		}
		bh = jread(journal, ss.next, &err);
		if (!bh)
			return err;
		hdr = (const journal_header_t *)bh->b_data;
		type = be32_to_cpu(hdr->h_blocktype);
		if (be32_to_cpu(hdr->h_magic) != JBD2_MAGIC_NUMBER ||
		    be32_to_cpu(hdr->h_sequence) != ss.tid ||
		    (type != JBD2_DESCRIPTOR_BLOCK &&
		     type != JBD2_COMMIT_BLOCK && type != JBD2_REVOKE_BLOCK)) {
			/* Not what the log needs next: it ends here. */
			brelse(bh);
			break;
		}
		err = open_txn(info, &ss, ss.next);
		if (err) {
			brelse(bh);
			return err;
		}

		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			ret = scan_descriptor(journal, info, &ss, bh->b_data);
			break;
		case JBD2_REVOKE_BLOCK: {
			bool ok = descr_csum_ok(journal, bh->b_data);

			if (!ok)
				ss.need_check_commit_time = true;
			ret = add_ctl(info, &ss, JBD2_REVOKE_BLOCK, ok, 0);
			ss.walked++;
			ss.next = log_advance(journal, ss.next, 1);
			break;
		}
		case JBD2_COMMIT_BLOCK:
			ss.walked++;
			ret = add_ctl(info, &ss, JBD2_COMMIT_BLOCK, true, 0);
			if (ret)
				break;
			ret = scan_commit_strict(journal, info, &ss,
						 bh->b_data);
			if (ret == SCAN_NEXT)
				ss.next = log_advance(journal, ss.next, 1);
			break;
		}
		brelse(bh);
		if (ret < 0)
			return ret;
		if (ret == SCAN_END)
			break;
	}
	if (ss.cur >= 0)
		close_txn(journal, info, &ss,
			  info->txn[ss.cur].ti.status, ss.next);
	if (!info->end_transaction)
		info->end_transaction = ss.tid;
	return 0;
}

/*
 * Decide, transaction by transaction, what is replayed and whose revoke
 * records count.
 */
static void decide(struct recovery_info *info)
{
	unsigned int i;

	/* Everything before end_transaction, as e2fsprogs. */
	for (i = 0; i < info->nr_txn; i++) {
		struct txn_rec *t = &info->txn[i];
		bool in = tid_gt(info->end_transaction, t->ti.tid);

		t->ti.replay = in;
		t->ti.revokes = in;
	}
}

/* Load the revoke records of one revoke block. */
static int scan_revoke_records(journal_t *journal, struct buffer_head *bh,
			       tid_t sequence, struct recovery_info *info,
			       unsigned int *nr)
{
	const jbd2_journal_revoke_header_t *header = (const void *)bh->b_data;
	unsigned int record_len = jbd2_has_feature_64bit(journal) ? 8 : 4;
	unsigned int offset = sizeof(jbd2_journal_revoke_header_t);
	unsigned int space = block_space(journal);
	__u32 rcount = be32_to_cpu(header->r_count);

	*nr = 0;
	if (rcount > space) {
		flag(journal, JBD2_CORRUPT_REVOKE_COUNT, sequence);
		return -EINVAL;
	}
	while (offset + record_len <= rcount) {
		unsigned long long blocknr;
		int err;

		blocknr = load_be32(bh->b_data + offset);
		if (record_len == 8)
			blocknr = blocknr << 32 |
				load_be32(bh->b_data + offset + 4);
		offset += record_len;
		err = jbd2_journal_set_revoke(journal, blocknr, sequence);
		if (err)
			return err;
		++info->nr_revokes;
		++*nr;
	}
	return 0;
}

static int do_revoke(journal_t *journal, struct recovery_info *info)
{
	unsigned int i, j;

	for (i = 0; i < info->nr_txn; i++) {
		struct txn_rec *t = &info->txn[i];

		if (!t->ti.revokes)
			continue;
		for (j = t->first_ctl; j < t->first_ctl + t->nr_ctl; j++) {
			struct ctl_block *c = &info->ctl[j];
			struct buffer_head *bh;
			unsigned int nr;
			int err;

			if (c->type != JBD2_REVOKE_BLOCK)
				continue;
			bh = jread(journal, c->lblk, &err);
			if (!bh)
				return err;
			err = scan_revoke_records(journal, bh, t->ti.tid, info,
						  &nr);
			brelse(bh);
			if (err)
				return err;
			c->count = nr;
			jbd2_recovery_revoke_block(journal, t->ti.tid, c->lblk,
						   nr, c->csum_ok);
		}
	}
	return 0;
}

/* Report the tags of a descriptor that is not replayed. */
static void report_unreplayed(journal_t *journal, struct txn_rec *t,
			      struct ctl_block *c, int verdict)
{
	struct buffer_head *bh;
	struct tag_iter it;
	unsigned long long blocknr;
	unsigned int flags, i = 0;
	int err;

	bh = jread(journal, c->lblk, &err);
	if (!bh)
		return;
	tag_iter_init(journal, &it, bh->b_data);
	while (i < c->count && tag_next(journal, &it, &flags, &blocknr))
		jbd2_recovery_block(journal, NULL, t->ti.tid,
				    log_step(journal, c->lblk, 1 + i++),
				    blocknr, flags, verdict);
	brelse(bh);
}

/*
 * Replay the tags of one trusted descriptor block.  Returns 0, or an
 * error that must end recovery (host write failures, out of memory).
 * *soft collects errors e2fsprogs reports only at the end.
 */
static int replay_descriptor(journal_t *journal, struct recovery_info *info,
			     struct txn_rec *t, struct ctl_block *c,
			     const char *buf, int *soft)
{
	struct tag_iter it;
	unsigned long long blocknr;
	unsigned int flags, i = 0;
	const char *tagp;
	int err;

	tag_iter_init(journal, &it, buf);
	while (i < c->count &&
	       (tagp = tag_next(journal, &it, &flags, &blocknr))) {
		unsigned long io_block = log_step(journal, c->lblk, 1 + i++);
		struct buffer_head *obh;
		int verdict;

		obh = jread(journal, io_block, &err);
		if (!obh) {
			/* Recover what we can, but report failure at the end. */
			jbd2_recovery_msg(journal,
				"JBD2: IO error %d recovering block %lu in log\n",
				err, io_block);
			*soft = err;
			flag(journal, JBD2_CORRUPT_IO_ERROR, t->ti.tid);
			verdict = JBD2_BLOCK_IO_ERROR;
		} else if (!jbd2_recovery_block_ok(journal, blocknr)) {
			/* Never write outside the filesystem or into the log. */
			jbd2_recovery_msg(journal,
				"JBD2: block %llu logged in transaction %u is outside the filesystem or inside the journal; not written\n",
				blocknr, t->ti.tid);
			flag(journal, JBD2_CORRUPT_OUT_OF_RANGE, t->ti.tid);
			verdict = JBD2_BLOCK_OUT_OF_RANGE;
		} else if (jbd2_journal_test_revoke(journal, blocknr,
						    t->ti.tid)) {
			++info->nr_revoke_hits;
			verdict = JBD2_BLOCK_REVOKED;
		} else if (!block_tag_csum_ok(journal, tagp, obh->b_data,
					      t->ti.tid)) {
			jbd2_recovery_msg(journal,
				"JBD2: Invalid checksum recovering data block %llu in log\n",
				blocknr);
			*soft = -EFSBADCRC;
			flag(journal, JBD2_CORRUPT_DATA_CSUM, t->ti.tid);
			verdict = JBD2_BLOCK_BAD_CSUM;
		} else {
			verdict = JBD2_BLOCK_REPLAYED;
		}

		err = jbd2_recovery_block(journal, obh, t->ti.tid, io_block,
					  blocknr, flags, verdict);
		if (verdict == JBD2_BLOCK_REPLAYED && !err)
			++info->nr_replays;
		brelse(obh);
		if (err) {
			jbd2_recovery_msg(journal,
					  "JBD2: Out of memory during recovery.\n");
			return err;
		}
	}
	return 0;
}

static int do_replay(journal_t *journal, struct recovery_info *info)
{
	int soft = 0;
	unsigned int i, j;

	for (i = 0; i < info->nr_txn; i++) {
		struct txn_rec *t = &info->txn[i];
		int unreplayed = JBD2_BLOCK_NOT_REPLAYED;

		if (t->ti.status == JBD2_COMMIT_STALE)
			continue;
		if (t->ti.status == JBD2_COMMIT_ASYNC_TAIL)
			unreplayed = JBD2_BLOCK_ASYNC_TAIL;

		for (j = t->first_ctl; j < t->first_ctl + t->nr_ctl; j++) {
			struct ctl_block *c = &info->ctl[j];
			struct buffer_head *bh;
			int err;

			if (c->type != JBD2_DESCRIPTOR_BLOCK)
				continue;
			if (!t->ti.replay) {
				report_unreplayed(journal, t, c, unreplayed);
				continue;
			}
			bh = jread(journal, c->lblk, &err);
			if (!bh)
				return err;
			err = replay_descriptor(journal, info, t, c, bh->b_data,
						&soft);
			brelse(bh);
			if (err)
				return err;
		}
	}
	return soft;
}

/*
 * Hand the fast-commit area to the filesystem's replay callback, as
 * Linux does after its scan and replay passes.  Without a callback (as
 * in e2journal, which leaves fast commits to e2fsck) there is nothing
 * to do.
 */
static int fc_pass(journal_t *journal, struct recovery_info *info,
		   enum passtype pass)
{
	unsigned long blk;
	int err = 0;

	if (!jbd2_has_feature_fast_commit(journal) ||
	    !journal->j_fc_replay_callback)
		return 0;
	for (blk = journal->j_fc_first; blk < journal->j_total_len; blk++) {
		struct buffer_head *bh = jread(journal, blk, &err);

		if (!bh)
			break;
		err = journal->j_fc_replay_callback(journal, bh, pass,
						    blk - journal->j_fc_first,
						    info->end_transaction);
		brelse(bh);
		if (err < 0 || err == JBD2_FC_REPLAY_STOP)
			break;
		err = 0;
	}
	return err < 0 ? err : 0;
}

/* Count the transactions replayed, and the last of them. */
static void report_txns(journal_t *journal, struct recovery_info *info)
{
	unsigned int i;

	for (i = 0; i < info->nr_txn; i++) {
		const struct jbd2_txn_info *ti = &info->txn[i].ti;

		if (ti->replay) {
			journal->j_replay_last = ti->tid;
			journal->j_replay_nr_txns++;
		}
	}
}

static void free_info(struct recovery_info *info)
{
	kfree(info->txn);
	kfree(info->ctl);
}

/**
 * jbd2_journal_recover - replay the journal
 * @journal: the journal, loaded, with s_start non-zero if there is a log
 *
 * Returns 0 or a negative errno.  Afterwards j_transaction_sequence is
 * the tid the next transaction must use, j_failed_commit names the bad
 * commit where recovery ended, and j_replay_corrupt says why (if at all)
 * the filesystem must be checked in full.
 */
int jbd2_journal_recover(journal_t *journal)
{
	journal_superblock_t *sb = journal->j_superblock;
	struct recovery_info info;
	unsigned long start = be32_to_cpu(sb->s_start);
	unsigned long first = journal->j_first;
	unsigned int i;
	int err, err2;

	memset(&info, 0, sizeof(info));
	journal->j_replay_corrupt = 0;
	journal->j_replay_first_bad = 0;
	journal->j_replay_last = 0;
	journal->j_replay_nr_txns = 0;
	journal->j_failed_commit = 0;

	if (!start) {
		journal->j_transaction_sequence = be32_to_cpu(sb->s_sequence) + 1;
		return 0;
	}
	/*
	 * A log that starts before s_first: e2fsprogs reads it from s_start
	 * on all the same (see log_advance()).
	 */
	if (start < first)
		journal->j_first = start;
	if (journal->j_last <= journal->j_first ||
	    start < journal->j_first || start >= journal->j_last) {
		jbd2_recovery_msg(journal,
				  "JBD2: corrupted journal superblock\n");
		flag(journal, JBD2_CORRUPT_SUPERBLOCK, 0);
		journal->j_first = first;
		return -EFSCORRUPTED;
	}

	err = do_scan(journal, &info);
	if (!err) {
		decide(&info);
		err = fc_pass(journal, &info, PASS_SCAN);
	}
	if (!err)
		err = do_revoke(journal, &info);
	if (err) {
		/* A failed scan or revoke pass ("stop") replays nothing. */
		for (i = 0; i < info.nr_txn; i++)
			info.txn[i].ti.replay = 0;
	}
	report_txns(journal, &info);
	if (err)
		/* Nothing is replayed; still give every block its verdict. */
		do_replay(journal, &info);
	else
		err = do_replay(journal, &info);
	if (!err)
		err = fc_pass(journal, &info, PASS_REPLAY);

	/* Restart the log after every tid it holds, so none is replayed twice. */
	journal->j_transaction_sequence = ++info.end_transaction;

	jbd2_journal_clear_revoke(journal);
	err2 = sync_blockdev(journal->j_fs_dev);
	if (!err)
		err = err2;
	free_info(&info);
	journal->j_first = first;
	return err;
}

/**
 * jbd2_journal_skip_recovery - find the end of the log without replaying
 * @journal: the journal
 */
int jbd2_journal_skip_recovery(journal_t *journal)
{
	struct recovery_info info;
	int err;

	memset(&info, 0, sizeof(info));
	err = do_scan(journal, &info);
	if (!err)
		decide(&info);
	if (err)
		++journal->j_transaction_sequence;
	else
		journal->j_transaction_sequence = ++info.end_transaction;
	journal->j_tail = 0;
	free_info(&info);
	return err;
}
