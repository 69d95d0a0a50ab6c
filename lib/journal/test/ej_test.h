/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * ej_test.h: the test library's interface (lib/journal/test/, built as
 * the non-installed libejtest, which e2journal, our e2fsck and the tests
 * link beside libe2journal): the journal writer and its fault injector
 * (writer.c, wtxn.c, wfault.c) and the fault-injecting io manager
 * (testio.c).  None of it is in the shipped libe2journal.so
 * (tests/api/exports.sh checks with nm).
 */
#ifndef E2JOURNAL_EJ_TEST_H
#define E2JOURNAL_EJ_TEST_H

#include "ej_lib.h"

/* ------------------------------------------------------------------ */
/* Journal writer (writer.c, wtxn.c) and fault injector (wfault.c)   */

/*
 * Where the writer's blocks go: @write and @read move one journal block
 * (logical block @lblk, the writer's block size) to and from wherever the
 * journal lives.  ej_writer_open() takes any sink (the unit tests write
 * into memory); ej_writer_open_fs() supplies one for a libext2fs image.
 */
struct ej_jsink {
	errcode_t	(*write)(void *arg, unsigned long lblk,
				 const void *buf);
	errcode_t	(*read)(void *arg, unsigned long lblk, void *buf);
	void		*arg;
};

/* Checksum modes (struct ej_writer_opts.csum). */
#define EJ_CSUM_NONE		0
#define EJ_CSUM_V1		1	/* compat CHECKSUM: crc32_be per commit */
#define EJ_CSUM_V2		2	/* incompat CSUM_V2 (16-bit tag csum) */
#define EJ_CSUM_V3		3	/* incompat CSUM_V3 */

/* struct ej_writer_opts.flags */
#define EJ_W_FORMAT		0x0001	/* write a fresh journal superblock */
#define EJ_W_SET_FEATURES	0x0002	/* existing jsb: apply csum/64bit/.. */
#define EJ_W_64BIT		0x0004
#define EJ_W_ASYNC_COMMIT	0x0008
#define EJ_W_FAST_COMMIT	0x0010	/* num_fc_blks at the end of the log */
#define EJ_W_SET_TID		0x0020	/* first tid is start_tid */
#define EJ_W_ZERO_LOG		0x0040	/* format: zero every log block */
#define EJ_W_V1_SUPER		0x0080	/* format: v1 superblock, no features */
#define EJ_W_REVOKE		0x0100	/* set REVOKE even without revokes */

struct ej_writer_opts {
	unsigned int	flags;		/* EJ_W_* */
	int		csum;		/* EJ_CSUM_* */
	unsigned int	blocksize;	/* journal block size (required) */
	unsigned long	maxlen;		/* format: s_maxlen */
	unsigned long	first;		/* format: s_first; 0 means sb_block+1 */
	unsigned long	sb_block;	/* logical block of the jsb (usually 0) */
	unsigned long	num_fc_blks;	/* with FAST_COMMIT; 0: the default 256 */
	const unsigned char *uuid;	/* format: s_uuid; NULL: a fixed one */
	__u32		start_tid;	/* with EJ_W_SET_TID */
	unsigned long	start_block;	/* first log block used; 0: s_first */
	unsigned int	max_tags;	/* tags per descriptor; 0: all that fit */
	unsigned long long commit_sec;	/* first commit time; 0: a fixed one */
};

/* Kinds of journal block in the layout. */
#define EJ_WB_DESCRIPTOR	1
#define EJ_WB_DATA		2
#define EJ_WB_REVOKE		3
#define EJ_WB_COMMIT		4

/* One journal block the writer wrote. */
struct ej_wblock {
	unsigned int		kind;		/* EJ_WB_* */
	unsigned int		index;		/* n-th block of its kind in the txn */
	unsigned long		jblock;		/* logical journal block */
	unsigned long long	fsblock;	/* data: where its tag points */
	unsigned long		desc_jblock;	/* data: its descriptor */
	unsigned int		tag_offset;	/* data: byte offset of its tag */
	unsigned int		tag_flags;	/* data: JBD2_FLAG_* written */
	unsigned int		count;		/* descriptor: tags; revoke: records */
};

/* One transaction as written. */
struct ej_wtxn {
	__u32			tid;
	int			committed;	/* 0: written without a commit */
	unsigned long		first_block;
	unsigned long		commit_block;	/* ~0UL when not committed */
	unsigned long long	commit_sec;
	unsigned int		commit_nsec;
	unsigned int		nr_data;
	unsigned int		nr_descr;
	unsigned int		nr_revoke;
	struct ej_wblock	*blocks;	/* journal order */
	size_t			nr_blocks;
};

struct ej_writer;

/*
 * Open a writer on @sink.  Without EJ_W_FORMAT the journal superblock at
 * opts->sb_block is read and kept (geometry, UUID, features unless
 * EJ_W_SET_FEATURES); transactions then start at tid s_sequence.
 */
errcode_t ej_writer_open(const struct ej_jsink *sink,
			 const struct ej_writer_opts *opts,
			 struct ej_writer **ret);
/*
 * The same on the journal of @fs: its internal journal inode when
 * @journal_io is NULL, else the external journal device @journal_io (the
 * jsb in the block after the ext2 superblock).  ej_writer_finish() then
 * also sets needs_recovery in @fs's superblock (marked dirty: the caller
 * closes or flushes @fs).
 */
errcode_t ej_writer_open_fs(ext2_filsys fs, io_channel journal_io,
			    const struct ej_writer_opts *opts,
			    struct ej_writer **ret);
/*
 * While @dry, the writer writes nothing, journal superblock included, and
 * ej_writer_finish() leaves the filesystem alone: it only learns where each
 * block goes (e2journal corrupt walks the transactions a layout records,
 * then injects a fault at a known place).
 */
void ej_writer_set_dry(struct ej_writer *w, int dry);
void ej_writer_free(struct ej_writer *w);

/* Start a transaction; its tid goes to *tid when @tid is not NULL. */
errcode_t ej_writer_begin(struct ej_writer *w, __u32 *tid);
/* Log @data (one block) for filesystem block @fsblock. */
errcode_t ej_writer_add_block(struct ej_writer *w, unsigned long long fsblock,
			      const void *data);
/* Revoke @fsblock in the current transaction. */
errcode_t ej_writer_revoke(struct ej_writer *w, unsigned long long fsblock);
/* Write the transaction: revoke blocks, descriptors + data, commit. */
errcode_t ej_writer_commit(struct ej_writer *w);
/* Write the transaction without its commit block (a crash before it). */
errcode_t ej_writer_end_uncommitted(struct ej_writer *w);
/* Commit time of the next commit (later ones go on from it). */
void ej_writer_set_commit_time(struct ej_writer *w, unsigned long long sec,
			       unsigned int nsec);
/* Next transaction at log block @jblock with tid @tid (stale-log tests). */
errcode_t ej_writer_set_next(struct ej_writer *w, unsigned long jblock,
			     __u32 tid);
/* s_start/s_sequence ej_writer_finish() writes (default: first txn). */
errcode_t ej_writer_set_log_start(struct ej_writer *w, unsigned long jblock,
				  __u32 tid);
/* Write the journal superblock (s_start, s_sequence, features). */
errcode_t ej_writer_finish(struct ej_writer *w);

const struct ej_wtxn *ej_writer_txns(const struct ej_writer *w, size_t *nr);
const struct ej_wtxn *ej_writer_find_txn(const struct ej_writer *w,
					 __u32 tid);
/* Block @index of @kind (EJ_WB_*) in @t; NULL if none (or @t is NULL). */
const struct ej_wblock *ej_wtxn_block(const struct ej_wtxn *t,
				      unsigned int kind, unsigned int index);
/* The journal superblock as the writer keeps it (on-disk byte order). */
const journal_superblock_t *ej_writer_jsb(const struct ej_writer *w);
/* The first log block and one past the last (the log wraps there). */
void ej_writer_log_bounds(const struct ej_writer *w, unsigned long *first,
			  unsigned long *last);
/*
 * Recompute transaction @tid's descriptor and revoke tails, its v1 crc and
 * its commit checksum from the blocks now in the journal (tag checksums of
 * data blocks are left alone).
 */
errcode_t ej_writer_reseal(struct ej_writer *w, __u32 tid);

/*
 * Fault kinds for ej_corrupt().  @index picks the n-th block of its kind in
 * transaction @tid; the byte kinds xor one byte with the mask.
 *
 * COMMIT_CSUM	byte @byte (0-3) of h_chksum[0]
 * COMMIT_HEADER	field @index (0 magic, 1 type, 2 sequence), byte @byte
 * DATA		data block @index, byte @byte
 * DESCR_TAG	descriptor @index, byte @byte of the tag area (after the
 *		header)
 * DESCR_TAIL	descriptor @index, byte @byte of the tail checksum
 * REVOKE_TAIL	revoke block @index, byte @byte of the tail checksum
 * REVOKE_COUNT	revoke block @index: r_count = @value (0: twice the block)
 * JSB_CSUM	byte @byte of s_checksum
 * JSB_MAGIC	byte @byte of h_magic
 * JSB_MAXLEN	s_maxlen = @value
 * JSB_FIRST	s_first = @value
 * TORN_COMMIT	the commit's bytes from @byte (0: 512; at least 60) on hold
 *		garbage seeded by @value; its checksum, computed over the
 *		header and a zero tail, is kept (a partly written commit)
 * TAG_RANGE	the tag of data block @index names block @value; the
 *		transaction is resealed so only the range is wrong
 * RAW		logical journal block @index, byte @byte
 */
enum ej_corrupt_kind {
	EJ_CORRUPT_COMMIT_CSUM = 1,
	EJ_CORRUPT_COMMIT_HEADER,
	EJ_CORRUPT_DATA,
	EJ_CORRUPT_DESCR_TAG,
	EJ_CORRUPT_DESCR_TAIL,
	EJ_CORRUPT_REVOKE_TAIL,
	EJ_CORRUPT_REVOKE_COUNT,
	EJ_CORRUPT_JSB_CSUM,
	EJ_CORRUPT_JSB_MAGIC,
	EJ_CORRUPT_JSB_MAXLEN,
	EJ_CORRUPT_JSB_FIRST,
	EJ_CORRUPT_TORN_COMMIT,
	EJ_CORRUPT_TAG_RANGE,
	EJ_CORRUPT_RAW,
	EJ_CORRUPT_KIND_MAX
};

/*
 * Damage what the writer wrote, in the journal itself.  @value is the xor
 * mask for the byte kinds (0: 0xff) and the new value for the others.
 * Only EJ_CORRUPT_JSB_CSUM leaves the journal superblock's checksum wrong;
 * the superblock kinds need ej_writer_finish() first.
 */
errcode_t ej_corrupt(struct ej_writer *w, int kind, __u32 tid,
		     unsigned int index, unsigned int byte,
		     unsigned long long value);
/*
 * The logged block ej_corrupt() damages for @kind, @tid and @index (the
 * commit for the commit kinds); NULL when @tid has no such block or @kind
 * damages none (the superblock and raw kinds).
 */
const struct ej_wblock *ej_corrupt_target(const struct ej_writer *w,
					  int kind, __u32 tid,
					  unsigned int index);

/* ------------------------------------------------------------------ */
/* The fault-injecting io manager (testio.c)                           */

/*
 * A test hook, as libext2fs' TEST_IO.  A program hands the settings to
 * ej_test_io_config() once, before it opens anything (ours take them
 * from E2JOURNAL_TEST_IO); after that, ej_test_io_manager() is an io
 * manager over @base that injects the faults they name (power loss after
 * the k-th write, read errors; testio.c).  Without settings it is @base;
 * with them, ej_test_io_config() also registers it with ej_io_wrap_set().
 */
void ej_test_io_config(const char *settings);
io_manager ej_test_io_manager(io_manager base);

#endif /* E2JOURNAL_EJ_TEST_H */
