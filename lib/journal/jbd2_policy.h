/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * jbd2_policy.h: what recovery.c decides and reports.
 *
 * Shared by recovery.c (through jfs_user.h in userspace, through
 * include/linux/jbd2.h in the kernel patch series) and by the library's
 * report.  See doc/policy.md and POLICY.md for the meaning of each value.
 */
#ifndef E2JOURNAL_JBD2_POLICY_H
#define E2JOURNAL_JBD2_POLICY_H

/* journal->j_replay_policy */
enum jbd2_replay_policy {
	JBD2_POLICY_REPLAY_ALL = 0,	/* default: replay everything committed */
	JBD2_POLICY_STOP = 1,		/* end at the first bad commit (e2fsprogs 1.47) */
	JBD2_POLICY_REFUSE = 2,		/* replay nothing if anything is corrupt */
};

/* Commit status of one transaction. */
enum jbd2_commit_status {
	JBD2_COMMIT_OK = 0,
	JBD2_COMMIT_BAD_CSUM,		/* commit checksum failed */
	JBD2_COMMIT_GARBLED,		/* commit missing or garbled mid-log */
	JBD2_COMMIT_MISSING,		/* no commit at the end of the log */
	JBD2_COMMIT_STALE,		/* stale block from an earlier journal */
	JBD2_COMMIT_ASYNC_TAIL,		/* bad last commit with async_commit */
	JBD2_COMMIT_STATUS_MAX
};

/* Verdict on one logged block (one tag). */
enum jbd2_block_verdict {
	JBD2_BLOCK_REPLAYED = 0,	/* written (final version) */
	JBD2_BLOCK_SUPERSEDED,		/* a later version is written instead */
	JBD2_BLOCK_REVOKED,		/* suppressed by a revoke record */
	JBD2_BLOCK_BAD_CSUM,		/* skipped: tag checksum failed */
	JBD2_BLOCK_UNTRUSTED_DESC,	/* skipped: descriptor checksum failed */
	JBD2_BLOCK_OUT_OF_RANGE,	/* skipped: outside the fs or in the journal */
	JBD2_BLOCK_ASYNC_TAIL,		/* skipped: torn last async commit */
	JBD2_BLOCK_NOT_REPLAYED,	/* transaction not replayed (policy) */
	JBD2_BLOCK_IO_ERROR,		/* skipped: journal block unreadable */
	JBD2_BLOCK_USER_SKIP,		/* skipped on the user's request */
	JBD2_BLOCK_VERDICT_MAX
};

/* journal->j_replay_corrupt: why the corruption flag is raised (bits). */
#define JBD2_CORRUPT_COMMIT_CSUM	0x0001	/* a commit checksum failed */
#define JBD2_CORRUPT_DATA_CSUM		0x0002	/* a data block checksum failed */
#define JBD2_CORRUPT_DESCR_CSUM		0x0004	/* a descriptor checksum failed */
#define JBD2_CORRUPT_REVOKE_CSUM	0x0008	/* a revoke block checksum failed */
#define JBD2_CORRUPT_GARBLED		0x0010	/* a garbled header mid-log */
#define JBD2_CORRUPT_OUT_OF_RANGE	0x0020	/* a tag outside the filesystem */
#define JBD2_CORRUPT_IO_ERROR		0x0040	/* a journal block unreadable */
#define JBD2_CORRUPT_REVOKE_COUNT	0x0080	/* r_count larger than the block */
#define JBD2_CORRUPT_SUPERBLOCK		0x0100	/* journal superblock checksum */
#define JBD2_CORRUPT_LOOP		0x0200	/* the log ran round on itself */

/*
 * One transaction as the scan found it, handed to the host once the
 * policy has decided about it.
 */
struct jbd2_txn_info {
	__u32		tid;
	unsigned long	first_block;	/* first log block of the transaction */
	unsigned long	commit_block;	/* log block of its commit, or ~0UL */
	unsigned int	nr_blocks;	/* log blocks it spans, commit included */
	unsigned int	nr_descr;	/* descriptor blocks */
	unsigned int	nr_revoke;	/* revoke blocks */
	unsigned int	nr_bad_descr;	/* ... of which failed their checksum */
	unsigned int	nr_bad_revoke;
	unsigned int	status;		/* enum jbd2_commit_status */
	unsigned int	replay;		/* 1: its blocks are replayed */
	unsigned int	revokes;	/* 1: its revoke records are honoured */
	unsigned long long commit_sec;
};

#endif /* E2JOURNAL_JBD2_POLICY_H */
