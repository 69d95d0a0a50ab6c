/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * ej_lib.h: libe2journal's inside, for its own files, the programs built
 * with it and the unit tests (never installed).
 *
 * The library reads, checks, replays (through e2fsck/recovery.c, built
 * into it), reports on and writes JBD2 journals of ext3/ext4 filesystems
 * opened with libext2fs.  It never prints and never exits: functions
 * return errcode_t values (com_err table "ej", ej_err.h) and results land
 * in structures the caller reads.  What a program outside the tree may
 * use is e2journal.h (the ej_image API); this header adds the journal_t
 * level under it, which names the kernel shim's types (jfs_user.h).
 */
#ifndef E2JOURNAL_EJ_LIB_H
#define E2JOURNAL_EJ_LIB_H

#include <stdio.h>
#include <ext2fs/ext2fs.h>

#include "e2journal.h"
#include "jfs_user.h"
#include "ej_err.h"

/* ------------------------------------------------------------------ */
/* Checksums (crc32c.c)                                                */

/* Which crc32c implementation ej_crc32c() dispatches to. */
const char *ej_crc32c_impl(void);
/* The portable implementation, always available (for cross-checks). */
__u32 ej_crc32c_sw(__u32 crc, const void *buf, size_t len);
/* Tests: run the named implementation (NULL: the CPU's pick); -1: none. */
int ej_crc32c_use(const char *name);

/* ------------------------------------------------------------------ */
/* Arrays (array.c)                                                    */

/*
 * Make room for @need elements of @elem bytes in *arr, which has room for
 * *max: doubling *max (from 16), realloc'ing *arr.  EJ_NO_MEMORY, *arr
 * and *max unchanged, when that fails or would not fit in a size_t.
 */
errcode_t ej_grow(void **arr, size_t *max, size_t need, size_t elem);

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

/*
 * ej_jsb_validate(): the one definition of a usable journal superblock,
 * for e2fsck's journal checks and ej_journal_open() alike.  The checks
 * run in e2fsprogs 1.47's order (e2fsck_journal_load); the first that
 * fails is the reason.  @flags say which rules apply beyond e2fsprogs':
 */
#define EJ_JSBV_CSUM_OK		0x0001	/* a bad s_checksum is no reason */
#define EJ_JSBV_SHARED_OK	0x0002	/* s_nr_users > 1 is no reason */
#define EJ_JSBV_GEOMETRY	0x0004	/* check s_maxlen's minimum, s_first,
					 * s_start and the users list too */

/* Why a superblock is refused: the first failed check, in this order. */
enum ej_jsb_reason {
	EJ_JSBR_OK = 0,
	EJ_JSBR_NO_MAGIC,	/* not a journal block at all */
	EJ_JSBR_LOG_BLOCK,	/* a descriptor, commit or revoke block */
	EJ_JSBR_BAD_TYPE,	/* a block type no superblock has */
	EJ_JSBR_MULTI_USERS,	/* v2, s_nr_users > 1 */
	EJ_JSBR_INCOMPAT,	/* unknown incompat features */
	EJ_JSBR_ROCOMPAT,	/* unknown ro_compat features */
	EJ_JSBR_BOTH_CSUM,	/* two checksum versions at once */
	EJ_JSBR_CSUM_TYPE,	/* v2/v3 but not crc32c */
	EJ_JSBR_CSUM,		/* s_checksum does not verify */
	EJ_JSBR_BLOCKSIZE,	/* s_blocksize is not the filesystem's */
	EJ_JSBR_TOO_LONG,	/* s_maxlen beyond the journal's blocks */
	EJ_JSBR_FAST_COMMIT,	/* the fast-commit area does not fit */
	EJ_JSBR_MAXLEN,		/* s_maxlen below JBD2_MIN_JOURNAL_BLOCKS */
	EJ_JSBR_FIRST,		/* s_first on the superblock or past the end */
	EJ_JSBR_START,		/* s_start outside the log */
	EJ_JSBR_NOT_USER,	/* external: its users are other filesystems */
};

/* What the superblock is checked against. */
struct ej_jsb_env {
	unsigned int		fs_blocksize;	/* the filesystem's */
	unsigned long long	nr_blocks;	/* blocks the journal has */
	unsigned long long	sb_lblk;	/* the superblock's own block */
	const __u8		*fs_uuid;	/* external: users; or NULL */
	unsigned int		flags;		/* EJ_JSBV_* */
};

struct ej_jsb_result {
	enum ej_jsb_reason	reason;
	unsigned int		problems;	/* ej_jsb_check()'s bits */
	int			format;		/* 1, 2, or 0: not a jsb */
};

/*
 * Check @jsb against @env.  Returns 0 when it may be used, else the
 * library's error for res->reason (EJ_BAD_JSB, EJ_UNSUPP_JSB_VERSION,
 * EJ_UNSUPP_FEATURE, EJ_JOURNAL_TOO_SMALL, EJ_EXT_MULTI_USER,
 * EJ_EXT_WRONG_FS), or EJ_BAD_ARG.  Reads only the 1024 bytes of @jsb.
 */
errcode_t ej_jsb_validate(const journal_superblock_t *jsb,
			  const struct ej_jsb_env *env,
			  struct ej_jsb_result *res);
/* Why an external journal device's ext2 superblock is refused. */
enum ej_ext_reason {
	EJ_EXTR_OK = 0,
	EJ_EXTR_NOT_JOURNAL,	/* no ext2 magic, or no journal_dev */
	EJ_EXTR_WRONG_FS,	/* its UUID is not the one @journal_uuid */
	EJ_EXTR_BLOCKSIZE,	/* its block size is not the filesystem's */
	EJ_EXTR_TOO_SMALL,	/* no room for a log after the superblocks */
};

/*
 * Check the ext2 superblock of an external journal device (host order),
 * in e2fsprogs 1.47's order (e2fsck_get_journal).  @journal_uuid, when
 * not NULL, is the filesystem's s_journal_uuid; with @geometry 0 only
 * what e2fsprogs checks is checked.  Returns 0, EJ_EXT_NOT_JOURNAL,
 * EJ_EXT_WRONG_FS, EJ_EXT_BAD_SB or EJ_BAD_ARG; the reason in *reason.
 */
errcode_t ej_ext_sb_validate(const struct ext2_super_block *es,
			     const __u8 *journal_uuid,
			     unsigned int fs_blocksize, int geometry,
			     enum ej_ext_reason *reason);

/*
 * Is @inode fit to hold a journal of @blocksize-byte blocks, before its
 * blocks are mapped?  e2fsprogs' conditions (links, a regular file, not
 * encrypted; at least JBD2_MIN_JOURNAL_BLOCKS long), and no inline data.
 * Returns 0, EJ_BAD_JOURNAL_INODE, EJ_JOURNAL_TOO_SMALL or EJ_BAD_ARG.
 */
errcode_t ej_jinode_validate(const struct ext2_inode *inode,
			     unsigned int blocksize);

/* crc32c(~0, the 1024 bytes with s_checksum counted as zero). */
__u32 ej_jsb_csum(const journal_superblock_t *jsb);
/* 1 if s_checksum matches, or if the superblock has no v2/v3 checksum. */
int ej_jsb_csum_verify(const journal_superblock_t *jsb);
/* Store ej_jsb_csum() in s_checksum; no-op without v2/v3 checksums. */
void ej_jsb_csum_set(journal_superblock_t *jsb);
/* crc32c(~0, s_uuid): the seed of every v2/v3 journal checksum. */
__u32 ej_jsb_csum_seed(const journal_superblock_t *jsb);

/* ------------------------------------------------------------------ */
/* What a recovery's result means (outcome.c)                          */

/*
 * The one reading of jbd2_journal_recover()'s result that e2fsck's
 * journal phase and "e2journal replay" share: what to do with the
 * journal, what to say (the programs word it), how to exit.
 */
enum ej_outcome_action {
	EJ_OUTCOME_FINISH,	/* reset the journal; needs_recovery goes */
	EJ_OUTCOME_REFUSED,	/* nothing replayed; journal and flag kept */
	EJ_OUTCOME_KEEP,	/* no verdict (memory, I/O): all kept */
};

/* What to say (bits of ej_outcome.msgs). */
#define EJ_MSG_RC_CSUM		0x0001	/* "Journal checksum error found" */
#define EJ_MSG_RC_CORRUPT	0x0002	/* "Journal corrupted" */
#define EJ_MSG_RC_ERROR		0x0004	/* @err while recovering */
#define EJ_MSG_KEPT		0x0008	/* @err; the journal is kept */
#define EJ_MSG_REFUSED		0x0010	/* the damage; nothing replayed */
#define EJ_MSG_TXN_CORRUPT	0x0020	/* stop: j_failed_commit's commit */
#define EJ_MSG_OUT_OF_RANGE	0x0040	/* stop: tags outside, not written */
#define EJ_MSG_REPLAYED_ANYWAY	0x0080	/* the damage; what was replayed */

struct ej_recovery_result {
	int		policy;		/* the policy recovery ran under */
	int		rc;		/* jbd2_journal_recover()'s return */
	unsigned int	corrupt;	/* the report's JBD2_CORRUPT_* */
	tid_t		failed_commit;	/* j_failed_commit */
};

struct ej_outcome {
	enum ej_outcome_action	action;
	unsigned int		msgs;		/* EJ_MSG_* */
	errcode_t		err;		/* for RC_ERROR and KEPT */
	int			flagged;	/* the policy flags the fs */
	int			check;		/* a full check is needed */
	int			exit_code;	/* fsck(8) status if last */
};

void ej_recovery_outcome(const struct ej_recovery_result *in,
			 struct ej_outcome *out);
/* The same for @journal, recovered under @policy with result @rc. */
void ej_journal_outcome(journal_t *journal, int policy, int rc,
			struct ej_outcome *out);

/* ------------------------------------------------------------------ */
/* May it be written? (mounted.c)                                      */

#define EJ_MOUNT_HELD		0x0001	/* we hold @path open with O_EXCL */
#define EJ_MOUNT_STRICT		0x0002	/* return the check's own failure */

/*
 * Before writing to @path (a device or an image file): EJ_MOUNTED when a
 * filesystem on it is mounted (a loop device's backing file counts),
 * EJ_BUSY when another program holds it open exclusively (not counted
 * with EJ_MOUNT_HELD: our own O_EXCL open looks the same), else 0, also
 * when libext2fs cannot tell (as e2fsck goes on; with EJ_MOUNT_STRICT
 * its error instead).  ext2fs_check_if_mounted()'s
 * EXT2_MF_* in *mount_flags when not NULL.  A writer then opens @path
 * with O_EXCL (EXT2_FLAG_EXCLUSIVE, IO_FLAG_EXCLUSIVE), as e2fsck does.
 */
errcode_t ej_check_mount(const char *path, unsigned int flags,
			 int *mount_flags);
/* The same for @fs's device (EJ_MOUNT_HELD if it was opened exclusive). */
errcode_t ej_fs_check_mount(ext2_filsys fs);

/* ------------------------------------------------------------------ */
/* Opening a journal (jopen.c, jmap.c, jsave.c, jglue.c, fsdev.c)     */

#define EJ_OPEN_READONLY	0x0001	/* never write anything */
#define EJ_OPEN_DRY_RUN		0x0002	/* replay decides but writes nothing */
#define EJ_OPEN_NO_CHECK	0x0004	/* load even if the superblock is bad */
/*
 * Map the journal as e2fsprogs 1.47's e2fsck does, for a program that has
 * run e2fsck's own checks on it: holes of an extent-mapped journal inode
 * read as the filesystem's block 0, an external device's ext2 block size
 * not held against it.
 */
#define EJ_OPEN_E2FSCK		0x0008

/*
 * How blocks move (struct ej_open_opts.io_flags; ioeng.c).  0 is the fast
 * engine with everything it can use: the log read ahead on a thread,
 * io_uring and O_DIRECT writes, writeback started behind buffered
 * writes, huge-page buffers.  EJ_IO_PLAIN is the reference path: one
 * pread or pwrite (through the io_channel) per run of blocks, no thread,
 * no io_uring, plain malloc.  Both leave the same image.  The EJ_IO_NO_*
 * bits switch off one part of the fast engine, for comparisons and tests.
 */
#define EJ_IO_PLAIN		0x0001	/* the plain pread/pwrite engine */
#define EJ_IO_NO_DIO		0x0002	/* no io_uring, no O_DIRECT writes */
#define EJ_IO_NO_FLUSHER	0x0004	/* no writeback thread */
#define EJ_IO_NO_PREFETCH	0x0008	/* no read-ahead thread */
#define EJ_IO_PREFETCH_ALWAYS	0x0010	/* tests: read ahead on any log, in
					   chunks of four blocks */
#define EJ_IO_NO_COLD		0x0020	/* no asking the kernel to read a
					   cold log ahead */

/*
 * Parse an engine setting, as programs take it from their environment
 * (E2JOURNAL_IO): a comma-separated list of "fast", "plain", "no-dio",
 * "no-flusher", "no-prefetch", "no-cold", "prefetch-always"; NULL or ""
 * is "fast".
 * EJ_BAD_ARG on an unknown word (*flags is then left alone).
 */
errcode_t ej_io_flags_parse(const char *spec, unsigned int *flags);

struct ej_open_opts {
	const char	*ext_journal;	/* path of an external journal, or NULL */
	int		policy;		/* enum jbd2_replay_policy */
	unsigned int	flags;		/* EJ_OPEN_* */
	io_manager	io;		/* for the external journal; NULL: unix */
	/*
	 * A journal kept by "e2journal save" (struct ej_saved_header): its
	 * blocks are read from this file, never written; the filesystem
	 * side (what replay may write, and where) stays @fs.  Overrides
	 * @ext_journal.
	 */
	const char	*saved;
	unsigned int	io_flags;	/* EJ_IO_*: which engine moves blocks */
};

/* Where the journal lives, as found by ej_journal_open(). */
struct ej_journal_info {
	int		external;	/* 1: external device */
	ext2_ino_t	ino;		/* internal: the journal inode */
	int		from_backup;	/* internal: s_jnl_blocks used */
	unsigned long long sb_block;	/* physical block of the jsb */
	unsigned int	jsb_problems;	/* EJ_JSB_* found at load */
	unsigned long long fs_blocks;	/* filesystem size in blocks */
	unsigned int	nr_users;	/* jsb s_nr_users (>1: shared device) */
	int		saved;		/* 1: blocks come from a saved copy */
	unsigned long long nr_blocks;	/* journal blocks readable */
};

/*
 * A saved journal (jsave.c): one header of @header_size bytes (the
 * filesystem block size), then journal blocks 0 .. nr_blocks - 1 as the
 * journal numbers them, raw.  Integers are little-endian.  @csum is
 * crc32c(~0, the first EJ_SAVED_HDR_BYTES bytes with @csum zero); the
 * rest of the header block is zero.
 */
#define EJ_SAVED_MAGIC		"E2JSAVE1"
#define EJ_SAVED_VERSION	1
#define EJ_SAVED_EXTERNAL	0x0001	/* flags: from an external device */
#define EJ_SAVED_RAW		0x0100	/* read only: a plain copy, no header */
#define EJ_SAVED_HDR_BYTES	128	/* what the checksum covers */

struct ej_saved_header {
	char	magic[8];		/* EJ_SAVED_MAGIC, no NUL */
	__u32	version;		/* EJ_SAVED_VERSION */
	__u32	header_size;		/* bytes before journal block 0 */
	__u32	block_size;		/* journal = filesystem block size */
	__u32	flags;			/* EJ_SAVED_* */
	__u64	nr_blocks;		/* journal blocks that follow */
	__u64	sb_block;		/* journal block of the jsb */
	__u8	fs_uuid[16];		/* s_uuid of the filesystem */
	__u8	journal_uuid[16];	/* the jsb's s_uuid when saved */
	__u64	saved_time;		/* seconds since the epoch */
	__u32	ino;			/* internal: the journal inode */
	__u32	csum;
	__u8	reserved[40];		/* zero */
};

/*
 * Read and check the header of saved journal @path (host byte order).  A
 * file without one that is a plain copy of a journal (its superblock at
 * byte 0, or a whole external journal device) is described as if it had
 * one: EJ_SAVED_RAW set, @header_size 0, @fs_uuid zero (unknown).
 */
errcode_t ej_saved_read_header(const char *path, struct ej_saved_header *hdr);
/* Fill in @hdr's checksum and convert it to disk byte order, in place. */
void ej_saved_header_seal(struct ej_saved_header *hdr);

#define EJ_SAVE_EXCL		0x0001	/* never replace an existing file */
#define EJ_SAVED_BAD_LISTED	10

struct ej_saved_stats {
	unsigned long long	nr_blocks;	/* journal blocks written */
	unsigned long long	nr_bad;		/* unreadable: saved as zeros */
	unsigned long long	bad[EJ_SAVED_BAD_LISTED]; /* the first ones */
};

typedef void (*ej_saved_progress_fn)(void *arg, unsigned long long done,
				     unsigned long long total);

/*
 * Save every block of @journal's space (opened by ej_journal_open(),
 * EJ_OPEN_READONLY | EJ_OPEN_NO_CHECK will do) to the new file @path
 * with an E2JSAVE1 header: the one saved-journal format, which "replay
 * --from", "show --from" and "dump" read.  @flags: EJ_SAVE_*; without
 * EJ_SAVE_EXCL an existing file is truncated.  Unreadable blocks are
 * saved as zeros and counted in @st; @progress (may be NULL) is called
 * after each batch.  Returns 0, or why the file could not be written.
 */
errcode_t ej_saved_write(journal_t *journal, const char *path,
			 unsigned int flags, ej_saved_progress_fn progress,
			 void *arg, struct ej_saved_stats *st);

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

/*
 * Read journal block @lblk (logical) into @buf (j_blocksize bytes): any
 * block of the journal's space (info->nr_blocks), whatever s_maxlen says.
 */
errcode_t ej_journal_read_block(journal_t *journal, unsigned long lblk,
				void *buf);
/* Write the in-memory journal superblock back (checksum updated). */
errcode_t ej_journal_write_sb(journal_t *journal);

/*
 * Write @sb (CPU byte order; @fs->super itself may be passed) as @fs's
 * primary superblock: all of it, its checksum computed, in one write call,
 * then flush @fs's channel.  libext2fs writes each changed run of bytes on
 * its own, so a power cut in between can leave a superblock whose checksum
 * fails; this cannot.  On success @fs->super holds @sb (checksum and
 * s_block_group_nr as written) and @fs is clean: a later ext2fs_flush()
 * of the same contents writes no superblock bytes.
 */
errcode_t ej_fs_write_super(ext2_filsys fs, const struct ext2_super_block *sb);
/*
 * ext2fs_close_free() for a filesystem whose superblock is all that was
 * changed: s_kbytes_written and s_wtime updated as libext2fs would, the
 * superblock written by ej_fs_write_super() when anything changed, then
 * @fs freed and *@fsp cleared (also on error).
 */
errcode_t ej_fs_close(ext2_filsys *fsp);
/* needs_recovery cleared (over an empty log), written by ej_fs_write_super(). */
errcode_t ej_fs_clear_recover(ext2_filsys fs);

/*
 * After jbd2_journal_recover(): write every replayed block (once, in
 * ascending order), flush, then mark the journal empty (s_start 0,
 * s_sequence the next tid, s_errno set when corruption was flagged),
 * clear needs_recovery, and when flagged set EXT2_ERROR_FS.  Nothing is
 * reset before the replayed blocks are on disk.
 */
errcode_t ej_journal_finish(journal_t *journal);
/*
 * Would ej_journal_finish() (after recovery) return EJ_FAST_COMMIT_PENDING:
 * live fast commits this journal_t does not replay itself (stop)?  Asked
 * of a dry run, so that its status is the replay's.
 */
int ej_journal_fc_pending(journal_t *journal);
/*
 * The fast-commit area of @journal judged against @expected_tid, in
 * words (text, or a JSON object): for `e2journal dump`.  *out NULL when
 * the journal has no fast-commit area; free it.
 */
errcode_t ej_fc_describe(journal_t *journal, __u32 expected_tid, int as_json,
			 char **out);
/*
 * Tell the library what jbd2_journal_recover() returned, before
 * ej_journal_finish(): under the stop policy the reset then leaves the
 * journal and filesystem superblocks as e2fsprogs 1.47 does.
 */
void ej_journal_set_recover_result(journal_t *journal, int err);

/*
 * The io manager the library opens images and journal devices with:
 * @base, or what the function a program registered with ej_io_wrap_set()
 * makes of it (iowrap.c).  The test library registers its fault injector
 * this way (lib/journal/test/testio.c); the library holds no test code.
 * Register before opening anything; NULL unregisters.
 */
typedef io_manager (*ej_io_wrap_fn)(io_manager base);
void ej_io_wrap_set(ej_io_wrap_fn fn);
io_manager ej_io_wrap(io_manager base);

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

#define EJ_PROGRESS_READ	1
#define EJ_PROGRESS_WRITE	2

typedef void (*ej_msg_fn)(void *arg, const char *msg);
typedef void (*ej_progress_fn)(void *arg, unsigned long done,
			       unsigned long total);
/* A logged block's final verdict, as it is decided. */
typedef void (*ej_block_fn)(void *arg, __u32 tid, unsigned long jblock,
			    unsigned long long fsblock, int verdict);

struct ej_fc_scan;

/* What the caller asks of a report: set before recovery runs. */
struct ej_report_opts {
	const struct ej_override *overrides;
	size_t			nr_overrides;
	__u32			upto_tid;	/* replay no tid after this */
	int			upto_set;
	/*
	 * Keep blocks[] (ej_report_json lists it, ej_report_text's per-block
	 * table prints it); without it the report takes memory for the
	 * distinct blocks replayed, not for every version the log holds.
	 */
	int			keep_blocks;
};

/*
 * The caller's callbacks, each registered (or, with NULL, removed) by its
 * function below, never set by hand.
 */
struct ej_report_hooks {
	ej_msg_fn		msg_fn;		/* recovery's messages */
	void			*msg_arg;
	ej_block_fn		block_fn;
	void			*block_arg;
	ej_progress_fn		progress_fn;
	void			*progress_arg;
};

/*
 * What recovery found and decided (the results), with what the caller
 * asked for (opts), its callbacks (hooks) and what the host knows.
 */
struct ej_report {
	int			policy;
	unsigned int		corrupt;	/* JBD2_CORRUPT_* */
	__u32			start_tid;	/* first tid in the log */
	__u32			next_tid;	/* tid after the log */
	struct jbd2_txn_info	*txns;
	size_t			nr_txns, max_txns;
	/* every logged block, in log order: only with opts.keep_blocks */
	struct ej_block_entry	*blocks;
	size_t			nr_blocks, max_blocks;
	size_t			nr_logged;	/* logged blocks, kept or not */
	struct ej_revoke_entry	*revokes;
	size_t			nr_revokes, max_revokes;
	unsigned long		counts[JBD2_BLOCK_VERDICT_MAX];
	/* the fast-commit area as judged (fc_scan.c), or NULL */
	const struct ej_fc_scan	*fc;
	const unsigned char	*fc_area;
	/* during a progress call: EJ_PROGRESS_READ or EJ_PROGRESS_WRITE */
	unsigned int		progress_pass;

	struct ej_report_opts	opts;
	struct ej_report_hooks	hooks;
	/* what the host knows: the journal superblock failed its checksum */
	int			jsb_bad_csum;

	/* report.c's own: the overrides, sorted for its look-ups */
	void			*priv;
};

/* Recovery's messages, one line a call. */
void ej_report_on_message(struct ej_report *r, ej_msg_fn fn, void *arg);
/*
 * Each logged block's final verdict as it is decided (a later version
 * may still supersede a replayed one).
 */
void ej_report_on_block(struct ej_report *r, ej_block_fn fn, void *arg);
/*
 * Called by the libext2fs host as recovery reads the log (pass
 * EJ_PROGRESS_READ: @done of @total log blocks, from s_start; it never
 * goes back) and as replayed blocks are written (EJ_PROGRESS_WRITE:
 * @done of @total blocks).  progress_pass says which, during the call.
 */
void ej_report_on_progress(struct ej_report *r, ej_progress_fn fn,
			   void *arg);

errcode_t ej_report_init(struct ej_report *r);
void ej_report_free(struct ej_report *r);
/* ej_verdict_name() and the other names: e2journal.h */
/* Render the report; *out is malloc'ed, NUL-terminated. */
errcode_t ej_report_json(const struct ej_report *r, char **out);
errcode_t ej_report_text(const struct ej_report *r, int per_block,
			 char **out);

#endif /* E2JOURNAL_EJ_LIB_H */
