/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * e2journal.h: the public interface of libe2journal.
 *
 * The library reads, checks, replays (through recovery.c, which the
 * programs build in), reports on and writes JBD2 journals of ext3/ext4
 * filesystems opened with libext2fs.  It never prints and never exits:
 * functions return errcode_t values (com_err table "ej", ej_err.h) and
 * results land in structures the caller reads.
 */
#ifndef E2JOURNAL_E2JOURNAL_H
#define E2JOURNAL_E2JOURNAL_H

#include <stdio.h>
#include <ext2fs/ext2fs.h>

#include "jfs_user.h"
#include "ej_err.h"

/* ------------------------------------------------------------------ */
/* Checksums (crc32c.c)                                                */

/* Which crc32c implementation ej_crc32c() dispatches to. */
const char *ej_crc32c_impl(void);
/* The portable implementation, always available (for cross-checks). */
__u32 ej_crc32c_sw(__u32 crc, const void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Journal superblock (jsb.c)                                          */

/* Problems ej_jsb_check() can find (bits of *problems). */
#define EJ_JSB_BAD_MAGIC	0x0001	/* magic or block type wrong */
#define EJ_JSB_BAD_BLOCKSIZE	0x0002	/* s_blocksize != fs block size */
#define EJ_JSB_BAD_MAXLEN	0x0004	/* s_maxlen too small or too large */
#define EJ_JSB_BAD_FIRST	0x0008	/* s_first outside the journal */
#define EJ_JSB_BAD_START	0x0010	/* s_start outside the log */
#define EJ_JSB_UNKNOWN_INCOMPAT	0x0020	/* incompat features we do not know */
#define EJ_JSB_UNKNOWN_ROCOMPAT	0x0040	/* ro_compat features we do not know */
#define EJ_JSB_BAD_CSUM_TYPE	0x0080	/* v2/v3 but s_checksum_type not crc32c */
#define EJ_JSB_BAD_CSUM		0x0100	/* s_checksum does not verify */
#define EJ_JSB_V1_WITH_V2	0x0200	/* v1 superblock with v2 fields set */
#define EJ_JSB_BOTH_CSUM	0x0400	/* both CSUM_V2 and CSUM_V3 */
#define EJ_JSB_BAD_FC		0x0800	/* fast-commit area does not fit */

struct ej_jsb_limits {
	unsigned int		fs_blocksize;	/* the filesystem's block size */
	unsigned long long	max_blocks;	/* blocks the journal may span */
};

/*
 * Check a journal superblock (1024 bytes, on-disk byte order).  Returns 0
 * and sets *problems (0 when healthy); never reads outside @jsb.  With
 * EJ_JSB_BAD_MAGIC (not a journal superblock) no other bit is set.
 */
errcode_t ej_jsb_check(const journal_superblock_t *jsb,
		       const struct ej_jsb_limits *lim, unsigned int *problems);
/* crc32c(~0, the 1024 bytes with s_checksum counted as zero). */
__u32 ej_jsb_csum(const journal_superblock_t *jsb);
/* 1 if s_checksum matches, or if the superblock has no v2/v3 checksum. */
int ej_jsb_csum_verify(const journal_superblock_t *jsb);
/* Store ej_jsb_csum() in s_checksum; no-op without v2/v3 checksums. */
void ej_jsb_csum_set(journal_superblock_t *jsb);
/* crc32c(~0, s_uuid): the seed of every v2/v3 journal checksum. */
__u32 ej_jsb_csum_seed(const journal_superblock_t *jsb);

/* ------------------------------------------------------------------ */
/* Opening a journal (jopen.c, jglue.c)                                */

#define EJ_OPEN_READONLY	0x0001	/* never write anything */
#define EJ_OPEN_DRY_RUN		0x0002	/* replay decides but writes nothing */
#define EJ_OPEN_NO_CHECK	0x0004	/* load even if the superblock is bad */

struct ej_open_opts {
	const char	*ext_journal;	/* path of an external journal, or NULL */
	int		policy;		/* enum jbd2_replay_policy */
	unsigned int	flags;		/* EJ_OPEN_* */
	io_manager	io;		/* for the external journal; NULL: unix */
};

/* Where the journal lives, as found by ej_journal_open(). */
struct ej_journal_info {
	int		external;	/* 1: external device */
	ext2_ino_t	ino;		/* internal: the journal inode */
	int		from_backup;	/* internal: s_jnl_blocks used */
	unsigned long long sb_block;	/* physical block of the jsb */
	unsigned int	jsb_problems;	/* EJ_JSB_* found at load */
	unsigned long long fs_blocks;	/* filesystem size in blocks */
};

/*
 * Open and load the journal of @fs (opened read-write unless the caller
 * only reads).  On success *ret is a journal_t ready for
 * jbd2_journal_recover() (with a report attached: ej_journal_report()).
 */
errcode_t ej_journal_open(ext2_filsys fs, const struct ej_open_opts *opts,
			  journal_t **ret);
void ej_journal_close(journal_t *journal);
const struct ej_journal_info *ej_journal_info(journal_t *journal);
struct ej_report *ej_journal_report(journal_t *journal);

/* Read journal block @lblk (logical) into @buf (j_blocksize bytes). */
errcode_t ej_journal_read_block(journal_t *journal, unsigned long lblk,
				void *buf);
/* Write the in-memory journal superblock back (checksum updated). */
errcode_t ej_journal_write_sb(journal_t *journal);

/*
 * After jbd2_journal_recover(): write every replayed block (once, in
 * ascending order), flush, then mark the journal empty (s_start 0,
 * s_sequence the next tid, s_errno set when corruption was flagged),
 * clear needs_recovery, and when flagged set EXT2_ERROR_FS.  Nothing is
 * reset before the replayed blocks are on disk.
 */
errcode_t ej_journal_finish(journal_t *journal);

/* ------------------------------------------------------------------ */
/* The report (report.c)                                               */

struct ej_block_entry {
	__u32			tid;
	unsigned int		verdict;	/* enum jbd2_block_verdict */
	unsigned int		tag_flags;	/* JBD2_FLAG_* of its tag */
	unsigned long		jblock;		/* logical journal block */
	unsigned long long	fsblock;	/* where it belongs */
};

struct ej_revoke_entry {
	__u32			tid;
	unsigned long		jblock;
	unsigned int		nr_records;
	int			csum_ok;
};

/* Per-block override from a person (e2journal replay --skip/--force). */
struct ej_override {
	__u32			tid;
	unsigned long long	fsblock;
	int			force;		/* 1: write even if skipped */
};

typedef void (*ej_msg_fn)(void *arg, const char *msg);
typedef void (*ej_progress_fn)(void *arg, unsigned long done,
			       unsigned long total);

struct ej_report {
	int			policy;
	unsigned int		corrupt;	/* JBD2_CORRUPT_* */
	__u32			start_tid;	/* first tid in the log */
	__u32			next_tid;	/* tid after the log */
	struct jbd2_txn_info	*txns;
	size_t			nr_txns, max_txns;
	struct ej_block_entry	*blocks;
	size_t			nr_blocks, max_blocks;
	struct ej_revoke_entry	*revokes;
	size_t			nr_revokes, max_revokes;
	unsigned long		counts[JBD2_BLOCK_VERDICT_MAX];

	/* what the caller asked for */
	ej_msg_fn		msg_fn;		/* recovery's messages */
	void			*msg_arg;
	const struct ej_override *overrides;
	size_t			nr_overrides;
	__u32			upto_tid;	/* replay no tid after this */
	int			upto_set;

	/* replay bookkeeping: fs block -> index of its latest entry */
	void			*map;
};

errcode_t ej_report_init(struct ej_report *r);
void ej_report_free(struct ej_report *r);
const char *ej_verdict_name(unsigned int verdict);
const char *ej_commit_status_name(unsigned int status);
const char *ej_policy_name(int policy);
int ej_policy_parse(const char *name, int *policy);
/* Render the report; *out is malloc'ed, NUL-terminated. */
errcode_t ej_report_json(const struct ej_report *r, char **out);
errcode_t ej_report_text(const struct ej_report *r, int per_block,
			 char **out);

#endif /* E2JOURNAL_E2JOURNAL_H */
