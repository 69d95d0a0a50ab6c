// SPDX-License-Identifier: GPL-2.0
/*
 * How journal recovery reaches the filesystem device and the kernel log.
 *
 * recovery.c decides, under the corrupt-journal policy, what is replayed;
 * it writes nothing itself.  For every logged block it asks
 * jbd2_recovery_block_ok() whether the block may land where its tag says
 * and hands it to jbd2_recovery_block() with a verdict, and it reports
 * each transaction and revoke block it found.  Keeping the block layer
 * and the messages here lets the same recovery code run in e2fsck.
 */

#include <linux/fs.h>
#include <linux/jbd2.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static const char * const jbd2_policy_names[] = {
	[JBD2_POLICY_REPLAY_ALL]	= "replay-all",
	[JBD2_POLICY_STOP]		= "stop",
	[JBD2_POLICY_REFUSE]		= "refuse",
};

static int jbd2_recovery_policy = JBD2_POLICY_REPLAY_ALL;

static int jbd2_policy_set(const char *val, const struct kernel_param *kp)
{
	int policy = sysfs_match_string(jbd2_policy_names, val);

	if (policy < 0)
		return policy;
	WRITE_ONCE(*(int *)kp->arg, policy);
	return 0;
}

static int jbd2_policy_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n",
			 jbd2_policy_names[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops jbd2_policy_ops = {
	.set	= jbd2_policy_set,
	.get	= jbd2_policy_get,
};

module_param_cb(recovery_policy, &jbd2_policy_ops, &jbd2_recovery_policy,
		0644);
MODULE_PARM_DESC(recovery_policy,
		 "What recovery does with a corrupt journal: replay-all (default), stop or refuse");

/**
 * jbd2_default_replay_policy() - the policy new journals start with
 *
 * Return: the value of the recovery_policy module parameter.
 */
enum jbd2_replay_policy jbd2_default_replay_policy(void)
{
	return READ_ONCE(jbd2_recovery_policy);
}

static const char *jbd2_policy_name(journal_t *journal)
{
	unsigned int policy = journal->j_replay_policy;

	if (policy >= ARRAY_SIZE(jbd2_policy_names))
		return "unknown";
	return jbd2_policy_names[policy];
}

/* What each JBD2_CORRUPT_* bit means, lowest bit first. */
static const char * const jbd2_corrupt_names[] = {
	"bad commit block checksum",
	"bad data block checksum",
	"bad descriptor block checksum",
	"bad revoke block checksum",
	"garbled block in the middle of the log",
	"block outside the filesystem or inside the journal",
	"unreadable journal block",
	"revoke block with an impossible record count",
	"bad journal superblock",
	"log runs round onto itself",
};

/**
 * jbd2_recovery_report() - say in the kernel log what recovery found
 * @journal: the journal just recovered, with j_replay_corrupt set
 *
 * One line names every kind of corruption found, the first transaction
 * it was found in and what the policy made of the log.
 */
void jbd2_recovery_report(journal_t *journal)
{
	unsigned long corrupt = journal->j_replay_corrupt;
	char why[256];
	size_t len = 0;
	unsigned int bit;

	why[0] = '\0';
	for_each_set_bit(bit, &corrupt, BITS_PER_LONG) {
		const char *name = bit < ARRAY_SIZE(jbd2_corrupt_names) ?
			jbd2_corrupt_names[bit] : "unknown damage";

		len += scnprintf(why + len, sizeof(why) - len, "%s%s",
				 len ? ", " : "", name);
	}

	if (journal->j_replay_policy == JBD2_POLICY_REFUSE) {
		pr_err("JBD2: journal on %s is corrupt (%s, first in transaction %u); nothing replayed under recovery_policy=refuse\n",
		       journal->j_devname, why, journal->j_replay_first_bad);
		return;
	}
	pr_err("JBD2: journal on %s is corrupt (%s, first in transaction %u); replayed %u transactions up to %u under recovery_policy=%s\n",
	       journal->j_devname, why, journal->j_replay_first_bad,
	       journal->j_replay_nr_txns, journal->j_replay_last,
	       jbd2_policy_name(journal));
}

/* Size of the filesystem device in journal blocks. */
static u64 jbd2_fs_dev_blocks(journal_t *journal)
{
	return bdev_nr_bytes(journal->j_fs_dev) >> ilog2(journal->j_blocksize);
}

/*
 * Is @blocknr one of the blocks of an internal journal?  mke2fs and
 * tune2fs allocate the journal file in one pass, so its blocks ascend
 * with their logical number, mostly in a single extent; a binary search
 * over the logical blocks then finds @blocknr in O(log n) lookups.  On a
 * journal whose blocks are out of order the search may miss a block that
 * a corrupt tag names (and that block gets written, as it would without
 * this check); it never refuses a block outside the journal.
 */
static bool jbd2_block_in_journal(journal_t *journal,
				  unsigned long long blocknr)
{
	unsigned long lo = 0, hi = journal->j_total_len - 1;
	unsigned long long first, last;

	/* Unmappable: the journal is being aborted, write nothing. */
	if (jbd2_journal_bmap(journal, lo, &first) ||
	    jbd2_journal_bmap(journal, hi, &last))
		return true;
	if (blocknr < first || blocknr > last)
		return false;
	if (last - first == hi)
		return true;	/* one contiguous extent */

	while (lo <= hi) {
		unsigned long mid = lo + (hi - lo) / 2;
		unsigned long long pblk;

		if (jbd2_journal_bmap(journal, mid, &pblk))
			return true;
		if (pblk == blocknr)
			return true;
		if (pblk < blocknr)
			lo = mid + 1;
		else if (mid > 0)
			hi = mid - 1;
		else
			break;
	}
	return false;
}

/**
 * jbd2_recovery_block_ok() - may recovery write a logged block here?
 * @journal: the journal being recovered
 * @blocknr: the filesystem block a tag names
 *
 * jbd2 does not know the filesystem's block count, so the end of the
 * filesystem device stands in for it.
 *
 * Return: false if @blocknr lies past the end of the filesystem device
 * or, for a journal inside the filesystem, in the journal itself.
 */
bool jbd2_recovery_block_ok(journal_t *journal, unsigned long long blocknr)
{
	if (blocknr >= jbd2_fs_dev_blocks(journal))
		return false;
	if (journal->j_inode && journal->j_dev == journal->j_fs_dev)
		return !jbd2_block_in_journal(journal, blocknr);
	return true;
}

static const char * const jbd2_verdict_names[] = {
	[JBD2_BLOCK_REPLAYED]		= "replayed",
	[JBD2_BLOCK_SUPERSEDED]		= "superseded",
	[JBD2_BLOCK_REVOKED]		= "revoked",
	[JBD2_BLOCK_BAD_CSUM]		= "bad checksum",
	[JBD2_BLOCK_UNTRUSTED_DESC]	= "bad descriptor",
	[JBD2_BLOCK_OUT_OF_RANGE]	= "out of range",
	[JBD2_BLOCK_ASYNC_TAIL]		= "torn async commit",
	[JBD2_BLOCK_NOT_REPLAYED]	= "not replayed",
	[JBD2_BLOCK_IO_ERROR]		= "unreadable",
	[JBD2_BLOCK_USER_SKIP]		= "skipped",
};

/**
 * jbd2_recovery_block() - write one logged block, or note why not
 * @journal: the journal being recovered
 * @obh: the block as logged (NULL when it was not read)
 * @tid: its transaction
 * @jblock: where it is in the log
 * @blocknr: the filesystem block it belongs to
 * @tag_flags: its tag's JBD2_FLAG_* bits
 * @verdict: an enum jbd2_block_verdict; only JBD2_BLOCK_REPLAYED writes
 *
 * recovery.c has already said in the kernel log why a block it does not
 * write is bad; for a block outside the filesystem or inside the journal
 * this says which of the two.  The other verdicts are only traced.
 *
 * Return: 0, or -ENOMEM if no buffer could be had for the block.
 */
int jbd2_recovery_block(journal_t *journal, struct buffer_head *obh,
			tid_t tid, unsigned long jblock,
			unsigned long long blocknr, unsigned int tag_flags,
			int verdict)
{
	struct buffer_head *nbh;

	if (verdict == JBD2_BLOCK_OUT_OF_RANGE) {
		/* recovery.c cannot tell which of the two it was: say it. */
		if (blocknr >= jbd2_fs_dev_blocks(journal))
			pr_err("JBD2: %s: transaction %u names block %llu, past the end of the filesystem device (%llu blocks)\n",
			       journal->j_devname, tid, blocknr,
			       jbd2_fs_dev_blocks(journal));
		else
			pr_err("JBD2: %s: transaction %u names block %llu, a block of the journal itself\n",
			       journal->j_devname, tid, blocknr);
		return 0;
	}
	if (verdict != JBD2_BLOCK_REPLAYED) {
		jbd2_debug(3, "JBD2: block %llu of transaction %u at log block %lu: %s\n",
			   blocknr, tid, jblock,
			   (unsigned int)verdict < ARRAY_SIZE(jbd2_verdict_names) ?
			   jbd2_verdict_names[verdict] : "?");
		return 0;
	}

	nbh = __getblk(journal->j_fs_dev, blocknr, journal->j_blocksize);
	if (!nbh)
		return -ENOMEM;

	lock_buffer(nbh);
	memcpy(nbh->b_data, obh->b_data, journal->j_blocksize);
	/* The log zeroed the magic number a data block started with. */
	if (tag_flags & JBD2_FLAG_ESCAPE)
		*(__be32 *)nbh->b_data = cpu_to_be32(JBD2_MAGIC_NUMBER);
	set_buffer_uptodate(nbh);
	mark_buffer_dirty(nbh);
	unlock_buffer(nbh);
	brelse(nbh);
	return 0;
}

/**
 * jbd2_recovery_txn() - report one transaction found in the log
 * @journal: the journal being recovered
 * @ti: what the scan found and what the policy decided
 *
 * Under the "stop" policy jbd2 reports a bad commit as it always did,
 * when the load fails; the other policies say here, transaction by
 * transaction, what was damaged.
 */
void jbd2_recovery_txn(journal_t *journal, const struct jbd2_txn_info *ti)
{
	const char *dev = journal->j_devname;

	jbd2_debug(2, "JBD2: transaction %u: log blocks %lu+%u, status %u, replay %u\n",
		   ti->tid, ti->first_block, ti->nr_blocks, ti->status,
		   ti->replay);
	if (journal->j_replay_policy == JBD2_POLICY_STOP)
		return;

	switch (ti->status) {
	case JBD2_COMMIT_BAD_CSUM:
		pr_err("JBD2: %s: transaction %u: bad commit block checksum\n",
		       dev, ti->tid);
		break;
	case JBD2_COMMIT_GARBLED:
		pr_err("JBD2: %s: transaction %u: garbled block in the middle of the log\n",
		       dev, ti->tid);
		break;
	case JBD2_COMMIT_ASYNC_TAIL:
		pr_warn("JBD2: %s: transaction %u: last commit block torn (async_commit), transaction not replayed\n",
			dev, ti->tid);
		break;
	default:
		break;
	}
	if (ti->nr_bad_descr)
		pr_err("JBD2: %s: transaction %u: %u of %u descriptor blocks fail their checksum; the blocks they describe are not written\n",
		       dev, ti->tid, ti->nr_bad_descr, ti->nr_descr);
	if (ti->nr_bad_revoke)
		pr_err("JBD2: %s: transaction %u: %u of %u revoke blocks fail their checksum; their records are honoured\n",
		       dev, ti->tid, ti->nr_bad_revoke, ti->nr_revoke);
}

/**
 * jbd2_recovery_revoke_block() - trace one revoke block
 * @journal: the journal being recovered
 * @tid: its transaction
 * @jblock: where it is in the log
 * @nr_records: how many records were loaded from it
 * @csum_ok: whether its checksum holds
 */
void jbd2_recovery_revoke_block(journal_t *journal, tid_t tid,
				unsigned long jblock, unsigned int nr_records,
				int csum_ok)
{
	jbd2_debug(2, "JBD2: transaction %u: revoke block at log block %lu, %u records%s\n",
		   tid, jblock, nr_records, csum_ok ? "" : ", bad checksum");
}

/**
 * jbd2_recovery_msg() - print a recovery message
 * @journal: the journal being recovered
 * @fmt: printf format of a whole line, "JBD2: " prefix included
 */
void jbd2_recovery_msg(journal_t *journal, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("%pV", &vaf);
	va_end(args);
}
