// SPDX-License-Identifier: LGPL-2.0
/*
 * jopen.c: open a journal and finish it: ej_journal_open() maps the
 * journal (jmap.c, or a saved copy: jsave.c), loads and checks its
 * superblock, and builds the journal_t recovery.c runs on;
 * ej_journal_finish() resets the journal after recovery and sets the
 * filesystem's state; in between, what the caller reads of the journal
 * and its report.
 */
#include "ej_int.h"

static const __u8 zero_uuid[16];

/* ------------------------------------------------- journal superblock */

static void sb_brelse(struct buffer_head *bh)
{
}

static struct buffer_head *sb_bread(struct block_device *bdev,
				    unsigned long long block,
				    unsigned int size, int *err)
{
	*err = -EINVAL;
	return NULL;
}

static int sb_sync(struct block_device *bdev)
{
	return 0;
}

/* j_sb_buffer belongs to the journal: brelse() on it does nothing. */
static const struct jbd2_bdev_ops sb_bdev_ops = {
	.bread	= sb_bread,
	.brelse	= sb_brelse,
	.sync	= sb_sync,
};

static errcode_t load_jsb(struct ej_host *h)
{
	journal_t *j = &h->journal;
	struct ej_jsb_result res;
	struct ej_jsb_env env;
	journal_superblock_t *jsb;
	unsigned long long phys;
	unsigned int problems = 0;
	__u32 type;
	errcode_t err;

	if (!h->info.external) {
		err = ej_glue_bmap(h, 0, &phys);
		if (err)
			return err;
		h->info.sb_block = phys;
	}
	phys = h->info.sb_block;
	h->sb_buf = malloc(h->fs->blocksize);
	if (!h->sb_buf)
		return EJ_NO_MEMORY;
	err = io_channel_read_blk64(h->jio, phys, 1, h->sb_buf);
	if (err)
		return err;
	jsb = (journal_superblock_t *)h->sb_buf;

	/* the superblock's own block in the journal's numbering */
	env.sb_lblk = h->info.external ? h->info.sb_block : 0;
	env.fs_blocksize = h->fs->blocksize;
	env.nr_blocks = h->mapped;
	env.fs_uuid = h->info.external ? h->fs->super->s_uuid : NULL;
	env.flags = EJ_JSBV_CSUM_OK | EJ_JSBV_SHARED_OK | EJ_JSBV_GEOMETRY;
	err = ej_jsb_validate(jsb, &env, &res);
	if (err == EJ_BAD_ARG)
		return err;
	problems = res.problems;
	h->info.jsb_problems = problems;
	h->info.nr_users = be32_to_cpu(jsb->s_nr_users);
	if (err && !(h->flags & EJ_OPEN_NO_CHECK))
		return err;

	type = be32_to_cpu(jsb->s_header.h_blocktype);
	j->j_format_version = type == JBD2_SUPERBLOCK_V1 ? 1 : 2;
	j->j_superblock = jsb;
	h->sbdev.bd_ops = &sb_bdev_ops;
	h->sbdev.bd_private = h;
	h->sb_bh.b_bdev = &h->sbdev;
	h->sb_bh.b_blocknr = phys;
	h->sb_bh.b_size = h->fs->blocksize;
	h->sb_bh.b_data = h->sb_buf;
	j->j_sb_buffer = &h->sb_bh;

	j->j_total_len = be32_to_cpu(jsb->s_maxlen);
	if (j->j_total_len > h->mapped)
		j->j_total_len = h->mapped;	/* only with NO_CHECK */
	j->j_first = be32_to_cpu(jsb->s_first);
	j->j_last = j->j_total_len;
	if (jbd2_has_feature_fast_commit(j)) {
		unsigned long nfc = be32_to_cpu(jsb->s_num_fc_blks);

		if (!nfc)
			nfc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (nfc < j->j_total_len) {
			j->j_last = j->j_total_len - nfc;
			/* as Linux and e2fsprogs place it: one block past */
			j->j_fc_first = j->j_last + 1;
			j->j_fc_last = j->j_total_len;
		} else if (!(h->flags & EJ_OPEN_NO_CHECK)) {
			return EJ_BAD_JSB;
		}
	}
	j->j_tail = be32_to_cpu(jsb->s_start);
	j->j_head = j->j_tail;
	j->j_tail_sequence = be32_to_cpu(jsb->s_sequence);
	j->j_transaction_sequence = j->j_tail_sequence;
	h->start_tid = j->j_tail_sequence;
	if (jbd2_journal_has_csum_v2or3(j))
		j->j_csum_seed = ej_jsb_csum_seed(jsb);
	if (problems & EJ_JSB_BAD_CSUM)
		j->j_replay_corrupt |= JBD2_CORRUPT_SUPERBLOCK;
	return 0;
}

/* ---------------------------------------------------------- the API */

errcode_t ej_journal_open(ext2_filsys fs, const struct ej_open_opts *opts,
			  journal_t **ret)
{
	struct ext2_super_block *sb;
	struct ej_host *h;
	journal_t *j;
	unsigned long hash;
	errcode_t err;

	if (!fs || !opts || !ret)
		return EJ_BAD_ARG;
	*ret = NULL;
	if (opts->policy < JBD2_POLICY_REPLAY_ALL ||
	    opts->policy > JBD2_POLICY_REFUSE)
		return EJ_BAD_ARG;
	/* a mounted filesystem's journal belongs to the kernel */
	if (!(opts->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN))) {
		err = ej_fs_check_mount(fs);
		if (err)
			return err;
	}
	sb = fs->super;
	if (!opts->ext_journal && !opts->saved) {
		if (!ext2fs_has_feature_journal(sb) &&
		    !ext2fs_has_feature_journal_needs_recovery(sb))
			return EJ_NO_JOURNAL;
		/*
		 * A journal UUID means the journal is external, whatever
		 * s_journal_inum says (as e2fsck and Linux read it): an
		 * inode left over from an internal journal is not its log.
		 */
		if (memcmp(sb->s_journal_uuid, zero_uuid, 16))
			return EJ_EXT_JOURNAL_NEEDED;
		if (!sb->s_journal_inum)
			return EJ_NO_JOURNAL;
	}

	h = calloc(1, sizeof(*h));
	if (!h)
		return EJ_NO_MEMORY;
	j = &h->journal;
	h->fs = fs;
	h->flags = opts->flags;
	h->io_flags = opts->io_flags;
	h->info.fs_blocks = ext2fs_blocks_count(sb);
	j->j_host = h;
	j->j_host_ops = &ej_io_host_ops;
	j->j_blocksize = fs->blocksize;
	j->j_replay_policy = opts->policy;
	h->jdev.bd_ops = &ej_jdev_ops;
	h->jdev.bd_private = h;
	h->fsdev.bd_ops = &ej_fsdev_ops;
	h->fsdev.bd_private = h;
	j->j_dev = &h->jdev;
	j->j_fs_dev = &h->fsdev;
	err = ej_report_init(&h->report);
	if (err)
		goto fail;
	h->report.policy = opts->policy;
	j->j_report = &h->report;
	j->j_final = &h->final;

	if (opts->saved)
		err = ej_jmap_saved(h, opts);
	else if (opts->ext_journal)
		err = ej_jmap_external(h, opts);
	else
		err = ej_jmap_internal(h);
	h->info.nr_blocks = h->mapped;
	if (!err)
		err = ej_glue_init(h);
	if (!err)
		err = load_jsb(h);
	if (err)
		goto fail;
	ej_fc_host_setup(h);
	/* an input of every block's verdict (verdict.c) */
	h->report.jsb_bad_csum = !!(h->info.jsb_problems & EJ_JSB_BAD_CSUM);

	hash = j->j_total_len;
	if (hash > 0x7fffffffUL)
		hash = 0x7fffffffUL;
	if (jbd2_journal_init_revoke(j, (int)hash)) {
		err = EJ_NO_MEMORY;
		goto fail;
	}
	*ret = j;
	return 0;
fail:
	ej_journal_close(j);
	return err;
}

void ej_journal_close(journal_t *journal)
{
	struct ej_host *h;

	if (!journal)
		return;
	h = ej_host_of(journal);
	if (journal->j_revoke)
		jbd2_journal_destroy_revoke(journal);
	ej_glue_free(h);
	ej_fc_host_free(h);
	ej_report_free(&h->report);
	ej_final_map_free(&h->final);
	if (h->own_jio && h->jio)
		io_channel_close(h->jio);
	free(h->ext);
	free(h->pext);
	free(h->forbid);
	free(h->sb_buf);
	free(h);
}

const struct ej_journal_info *ej_journal_info(journal_t *journal)
{
	return journal ? &ej_host_of(journal)->info : NULL;
}

/* What recovery found so far, as the report shows it. */
static unsigned int flagged(journal_t *j)
{
	struct ej_host *h = ej_host_of(j);
	unsigned int c = j->j_replay_corrupt;

	if (j->j_failed_commit)
		c |= JBD2_CORRUPT_COMMIT_CSUM;
	if (h->info.jsb_problems & EJ_JSB_BAD_CSUM)
		c |= JBD2_CORRUPT_SUPERBLOCK;
	return c;
}

/*
 * The tid the journal is reset to (or would be) after this recovery: one
 * definition for every report (e2journal plan, replay, e2fsck's JSON).
 * Recovery restarts the log one past the end it found (the kernel's
 * ++end_transaction: tids 1-3 committed, 5).  Under stop a recovery
 * error resets it where the log started, as e2fsprogs 1.47 does
 * (ej_journal_finish()).  A refused replay keeps the journal; its next
 * transaction is still the one a replay would start (recovery returns
 * before it says): one past the end of the last committed transaction
 * in the log, as decide() in recovery.c finds it.
 */
static __u32 next_tid(journal_t *j, const struct ej_report *r)
{
	struct ej_host *h = ej_host_of(j);
	__u32 end = h->start_tid;
	size_t i;

	if (j->j_replay_policy == JBD2_POLICY_STOP && h->recover_err)
		return h->start_tid;
	if (j->j_replay_policy != JBD2_POLICY_REFUSE || !r->corrupt ||
	    !r->nr_txns)
		return j->j_transaction_sequence;
	for (i = 0; i < r->nr_txns; i++) {
		switch (r->txns[i].status) {
		case JBD2_COMMIT_OK:
		case JBD2_COMMIT_BAD_CSUM:
		case JBD2_COMMIT_GARBLED:
		case JBD2_COMMIT_ASYNC_TAIL:
			end = r->txns[i].tid + 1;
			break;
		}
	}
	return end + 1;
}

struct ej_report *ej_journal_report(journal_t *journal)
{
	struct ej_host *h;

	if (!journal)
		return NULL;
	h = ej_host_of(journal);
	h->report.policy = journal->j_replay_policy;
	h->report.corrupt |= flagged(journal);
	h->report.start_tid = h->start_tid;
	h->report.next_tid = next_tid(journal, &h->report);
	if (h->fc_scanned) {
		h->report.fc = &h->fc;
		h->report.fc_area = h->fc_area;
	}
	return &h->report;
}

/* ej_recovery_outcome() with the result read from @journal's report. */
void ej_journal_outcome(journal_t *journal, int policy, int rc,
			struct ej_outcome *out)
{
	struct ej_recovery_result in = { .policy = policy, .rc = rc };

	if (journal) {
		in.corrupt = ej_journal_report(journal)->corrupt;
		in.failed_commit = journal->j_failed_commit;
	}
	ej_recovery_outcome(journal ? &in : NULL, out);
}

errcode_t ej_journal_read_block(journal_t *journal, unsigned long lblk,
				void *buf)
{
	struct ej_host *h;
	unsigned long long phys;
	errcode_t err;

	if (!journal || !buf)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	if (lblk >= h->mapped)
		return EJ_BLOCK_OUT_OF_RANGE;
	err = ej_glue_bmap(h, lblk, &phys);
	if (err)
		return err;
	return io_channel_read_blk64(h->jio, phys, 1, buf);
}

/* Write the journal superblock; flush it too unless @flush is 0. */
static errcode_t write_sb(journal_t *journal, int flush)
{
	struct ej_host *h;
	errcode_t err;

	if (!journal)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	if (h->flags & EJ_OPEN_READONLY)
		return EXT2_ET_RO_FILSYS;
	/* a saved copy is evidence: it is never changed */
	if ((h->flags & EJ_OPEN_DRY_RUN) || h->info.saved)
		return 0;
	if (jbd2_journal_has_csum_v2or3(journal))
		ej_jsb_csum_set(journal->j_superblock);
	err = io_channel_write_blk64(h->jio, h->info.sb_block, 1, h->sb_buf);
	ej_glue_invalidate(h, h->info.sb_block);
	if (!err && flush)
		err = io_channel_flush(h->jio);
	return err;
}

errcode_t ej_journal_write_sb(journal_t *journal)
{
	return write_sb(journal, 1);
}

/*
 * Replay may have rewritten the filesystem superblock (ext4 logs it), so
 * the copy libext2fs read at open is stale: reload it from disk before
 * changing flags in it.
 */
static errcode_t reload_super(ext2_filsys fs)
{
	unsigned int bs = fs->blocksize;
	struct ext2_super_block *es;
	char *buf;
	errcode_t err;

	buf = malloc(bs);
	if (!buf)
		return EJ_NO_MEMORY;
	err = io_channel_read_blk64(fs->io, SUPERBLOCK_OFFSET / bs, 1, buf);
	if (err)
		goto out;
	es = (struct ext2_super_block *)(buf + SUPERBLOCK_OFFSET % bs);
	if (ext2fs_le16_to_cpu(es->s_magic) != EXT2_SUPER_MAGIC) {
		err = EXT2_ET_BAD_MAGIC;
		goto out;
	}
	/* as ext2fs_open() keeps them: orig_super as on disk, super in
	 * host order */
	memcpy(fs->super, es, SUPERBLOCK_SIZE);
	ej_super_to_cpu(fs->super);
	if (fs->orig_super)
		memcpy(fs->orig_super, es, SUPERBLOCK_SIZE);
out:
	free(buf);
	return err;
}

/*
 * Does the fast-commit area hold commits that follow the log just
 * replayed?  Only e2fsprogs' e2fsck (and Linux) replay them; resetting
 * the journal would throw them away.  A head whose tid is not the one
 * after the log is left over from before the last full commit.
 */
static int fc_pending(journal_t *j)
{
	unsigned char *b;
	int pending = 1;	/* what cannot be read cannot be dropped */

	if (!jbd2_has_feature_fast_commit(j) || !j->j_fc_first ||
	    j->j_fc_first >= j->j_fc_last)
		return 0;
	b = malloc(j->j_blocksize);
	if (!b)
		return 1;
	if (!ej_journal_read_block(j, j->j_fc_first, b)) {
		unsigned int tag = b[0] | b[1] << 8, len = b[2] | b[3] << 8;
		__u32 tid = b[8] | b[9] << 8 | b[10] << 16 | (__u32)b[11] << 24;

		pending = tag == EJ_FC_TAG_HEAD && len >= 8 &&
			  tid == j->j_transaction_sequence - 1;
	}
	free(b);
	return pending;
}

int ej_journal_fc_pending(journal_t *journal)
{
	return journal && journal->j_tail &&
	       !ej_fc_host_handles(ej_host_of(journal)) &&
	       fc_pending(journal);
}

void ej_journal_set_recover_result(journal_t *journal, int err)
{
	if (journal)
		ej_host_of(journal)->recover_err = err;
}

/* Reload @fs's superblock, set its state (and clear needs_recovery). */
static errcode_t set_fs_state(ext2_filsys fs, int error_fs, int not_valid,
			      int recovered)
{
	errcode_t err;

	err = reload_super(fs);
	if (err)
		return err;
	if (recovered)
		ext2fs_clear_feature_journal_needs_recovery(fs->super);
	if (error_fs)
		fs->super->s_state |= EXT2_ERROR_FS;
	if (not_valid)
		fs->super->s_state &= ~EXT2_VALID_FS;
	/* as ext2fs_flush() would, but in one write (fssuper.c) */
	fs->super->s_wtime = fs->now ? fs->now : time(NULL);
	return ej_fs_write_super(fs, fs->super);
}

/*
 * The group descriptors libext2fs holds may be stale after replay too:
 * only the primary superblock is written here, and a caller that goes on
 * using @fs's metadata should reopen it (as e2fsck does).
 */
errcode_t ej_journal_finish(journal_t *journal)
{
	journal_superblock_t *jsb;
	struct ej_host *h;
	ext2_filsys fs;
	unsigned int bad;
	int error_fs, not_valid = 0;
	errcode_t err;

	if (!journal)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	fs = h->fs;
	ej_journal_report(journal);
	if (h->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN))
		return 0;

	/* every replayed block on disk before the log is let go */
	err = ej_glue_write_replayed(h);
	if (!err && ej_glue_needs_flush(h))
		err = io_channel_flush(fs->io);
	if (err)
		return err;
	if (h->journal.j_tail && ej_fc_host_handles(h)) {
		/* ours: on disk before the log that holds it is let go */
		err = ej_fc_host_finish(h);
		if (err)
			return err;
		/* what the records themselves flagged */
		ej_journal_report(journal);
	} else if (ej_journal_fc_pending(journal)) {
		return EJ_FAST_COMMIT_PENDING;
	}

	bad = flagged(journal);
	jsb = journal->j_superblock;
	/* an aborted journal (s_errno) means the fs had errors: keep that */
	error_fs = jsb->s_errno != 0;
	jsb->s_start = 0;
	if (journal->j_replay_policy == JBD2_POLICY_STOP) {
		/*
		 * e2fsprogs 1.47: a failed commit becomes the error state and
		 * s_errno is cleared; a recovery error leaves the sequence
		 * where the log started and the filesystem not clean.  Tags
		 * outside the filesystem, which it would have written, are
		 * this policy's one difference and are flagged.  A superblock
		 * that failed its checksum: reset, nothing replayed, not clean.
		 */
		if (journal->j_failed_commit ||
		    (bad & JBD2_CORRUPT_OUT_OF_RANGE))
			error_fs = 1;
		jsb->s_errno = 0;
		if (h->info.jsb_problems & EJ_JSB_BAD_CSUM)
			not_valid = 1;	/* reset without replay (jglue.c) */
		if (h->recover_err) {
			jsb->s_sequence = cpu_to_be32(h->start_tid);
			not_valid = 1;
		} else {
			jsb->s_sequence =
				cpu_to_be32(journal->j_transaction_sequence);
		}
	} else {
		if (bad)
			error_fs = 1;
		jsb->s_errno = bad ? cpu_to_be32((__u32)-EINVAL) : 0;
		/*
		 * An empty log (a run that lost power between the reset and
		 * the superblock write left needs_recovery set) keeps its
		 * sequence: every tid it held is already below it, and the
		 * rerun then ends exactly where the first run would have.
		 */
		if (journal->j_tail)
			jsb->s_sequence =
				cpu_to_be32(journal->j_transaction_sequence);
	}
	/*
	 * The error state goes to disk before the journal that explains it
	 * is let go: power lost in between must not leave an empty journal
	 * and a filesystem that looks clean.  (Power lost before the reset
	 * replays everything again, to the same end.)
	 */
	if (error_fs || not_valid) {
		err = set_fs_state(fs, error_fs, not_valid, 0);
		if (err)
			return err;
	}
	/*
	 * The reset log is on disk before needs_recovery goes (a flush of
	 * its own: the superblock write below flushes only after it).
	 */
	err = write_sb(journal, 1);
	if (err)
		return err;
	return set_fs_state(fs, error_fs, not_valid, 1);
}
