/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * e2journal.h: the public interface of libe2journal (see e2journal(3)).
 *
 * Open an ext3/ext4 image and its journal (internal, or an external
 * journal device), plan a replay under a corrupt-journal policy with
 * per-block overrides, replay, and render the report as text or JSON.
 * The caller never sees the journal itself: an ej_image is opaque.
 *
 * Functions return 0 or an errcode_t: the library's own codes (EJ_*,
 * com_err table "ej", in ej_err.h), libext2fs' (EXT2_ET_*) or errno
 * values; ej_error_message() turns any of them into text.  The library
 * never prints and never exits.
 *
 * Build: cc prog.c $(pkg-config --cflags --libs e2journal)
 */
#ifndef E2JOURNAL_H
#define E2JOURNAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * ej_err.h (made by compile_et) declares initialize_ej_error_table() and
 * the error codes without a C++ linkage block of its own: it is included
 * inside ours, as libext2fs' header includes its error table, so that a
 * C++ program links the C symbols.
 */
#ifdef __cplusplus
extern "C" {
#endif

#include "ej_err.h"

/* The interface this header describes; ej_api_version() says the library's. */
#define EJ_API_VERSION		2

/*
 * What replay does with a corrupt journal (doc/policy.md, e2journal(3)).
 * REPLAY_ALL replays every committed transaction, those whose commit
 * checksum failed included (the last one of an async_commit journal
 * excepted: a torn commit), but writes no block known to be bad (a data
 * block whose tag checksum fails, the blocks of a descriptor that fails,
 * a block outside the filesystem), honours every revoke record and flags
 * what it found.  STOP ends before the first transaction whose commit
 * fails, as e2fsprogs 1.47.0 does.  REFUSE replays nothing when anything
 * is flagged, and replays a sound journal as REPLAY_ALL does.
 */
enum ej_policy {
	EJ_POLICY_REPLAY_ALL = 0,	/* every committed txn, no bad block */
	EJ_POLICY_STOP = 1,		/* end at the first bad commit (e2fsprogs) */
	EJ_POLICY_REFUSE = 2		/* replay nothing if anything is corrupt */
};

/* What became of one logged block. */
enum ej_verdict {
	EJ_VERDICT_REPLAYED = 0,	/* written (its final version) */
	EJ_VERDICT_SUPERSEDED,		/* a later version is written instead */
	EJ_VERDICT_REVOKED,		/* suppressed by a revoke record */
	EJ_VERDICT_BAD_CSUM,		/* skipped: its checksum failed */
	EJ_VERDICT_UNTRUSTED_DESC,	/* skipped: its descriptor failed */
	EJ_VERDICT_OUT_OF_RANGE,	/* skipped: outside the filesystem */
	EJ_VERDICT_ASYNC_TAIL,		/* skipped: torn last async commit */
	EJ_VERDICT_NOT_REPLAYED,	/* its transaction is not replayed */
	EJ_VERDICT_IO_ERROR,		/* skipped: unreadable in the journal */
	EJ_VERDICT_USER_SKIP		/* skipped by an override */
};

/* How one transaction's commit was found. */
enum ej_commit_status {
	EJ_COMMIT_OK = 0,
	EJ_COMMIT_BAD_CSUM,		/* the commit checksum failed */
	EJ_COMMIT_GARBLED,		/* commit missing or garbled mid-log */
	EJ_COMMIT_MISSING,		/* no commit at the end of the log */
	EJ_COMMIT_STALE,		/* left over from an earlier journal */
	EJ_COMMIT_ASYNC_TAIL		/* bad last commit with async_commit */
};

/* Why corruption was flagged (struct ej_summary.flagged, bits). */
#define EJ_FLAGGED_COMMIT_CSUM	0x0001
#define EJ_FLAGGED_DATA_CSUM	0x0002
#define EJ_FLAGGED_DESCR_CSUM	0x0004
#define EJ_FLAGGED_REVOKE_CSUM	0x0008
#define EJ_FLAGGED_GARBLED	0x0010
#define EJ_FLAGGED_OUT_OF_RANGE	0x0020
#define EJ_FLAGGED_IO_ERROR	0x0040
#define EJ_FLAGGED_REVOKE_COUNT	0x0080
#define EJ_FLAGGED_SUPERBLOCK	0x0100
#define EJ_FLAGGED_LOOP		0x0200
#define EJ_FLAGGED_FAST_COMMIT	0x0400	/* a fast-commit row says flag */

/* struct ej_options.flags */
#define EJ_OPT_READONLY		0x0001	/* open read-only: plan, never replay */
#define EJ_OPT_UPTO		0x0002	/* replay no transaction after upto_tid */
/*
 * Refuse a mounted or exclusively held filesystem even read-only (a plan
 * of a live journal is out of date as it is made).  Opened for writing,
 * it is always refused: EJ_MOUNTED, EJ_BUSY.  (API version 2)
 */
#define EJ_OPT_CHECK_MOUNT	0x0004

typedef void (*ej_message_fn)(void *arg, const char *msg);

/* ej_image_progress_fn's @pass */
#define EJ_PASS_READ		1	/* @done of @total log blocks read */
#define EJ_PASS_WRITE		2	/* @done of @total blocks written */
typedef void (*ej_image_progress_fn)(void *arg, int pass, uint64_t done,
				     uint64_t total);

/* libext2fs' I/O managers (unix_io_manager, ...), opaque here */
struct struct_io_manager;

/*
 * How to open an image.  Set it up with ej_options_init(&o, sizeof(o)),
 * then change what you need: @size lets a newer library know how much of
 * the structure an older program has.
 */
struct ej_options {
	size_t		size;		/* sizeof(struct ej_options) */
	unsigned int	flags;		/* EJ_OPT_* */
	int		policy;		/* enum ej_policy */
	const char	*journal;	/* external journal; NULL: the fs's own */
	uint32_t	upto_tid;	/* with EJ_OPT_UPTO */
	ej_message_fn	message_fn;	/* recovery's messages, or NULL */
	void		*message_arg;
	/* API version 2 (zero: none) */
	const char	*undo_file;	/* e2undo(8) file to write, or NULL */
	ej_image_progress_fn progress_fn; /* as the log is read and written */
	void		*progress_arg;
};

/* What a plan or a replay came to (struct ej_summary.status). */
enum ej_status {
	EJ_STATUS_EMPTY = 0,		/* the log is empty: nothing to do */
	EJ_STATUS_CLEAN,		/* replayed (would be), nothing corrupt */
	EJ_STATUS_FLAGGED,		/* replayed (would be), corruption flagged */
	EJ_STATUS_REFUSED		/* nothing replayed: the journal is kept */
};

/* Filled in by ej_image_plan() and ej_image_replay(). */
struct ej_summary {
	size_t		size;		/* set by the caller: sizeof(*summary) */
	int		status;		/* enum ej_status */
	int		policy;		/* enum ej_policy */
	unsigned int	flagged;	/* EJ_FLAGGED_* */
	errcode_t	recover_error;	/* recovery's error code, or 0 */
	uint32_t	start_tid;	/* first transaction in the log */
	uint32_t	next_tid;	/* the one after the log */
	size_t		nr_txns;	/* transactions in the log */
	size_t		nr_txns_replayed;
	unsigned long	blocks_written;	/* EJ_VERDICT_REPLAYED */
	unsigned long	blocks_superseded;
	unsigned long	blocks_revoked;
	unsigned long	blocks_skipped;	/* every other verdict */
};

/* One transaction of the last plan or replay. */
struct ej_txn {
	uint32_t		tid;
	int			status;		/* enum ej_commit_status */
	int			replayed;	/* 1: its blocks are replayed */
	unsigned int		nr_blocks;	/* log blocks, commit included */
	uint64_t		first_block;	/* journal block it starts at */
	uint64_t		commit_sec;	/* commit time, 0 if unknown */
};

/* One logged block of the last plan or replay. */
struct ej_block {
	uint32_t		tid;
	int			verdict;	/* enum ej_verdict */
	uint64_t		jblock;		/* journal block holding it */
	uint64_t		fsblock;	/* where it belongs */
};

/* Report formats for ej_image_report(). */
#define EJ_REPORT_TEXT		0	/* transactions and counts */
#define EJ_REPORT_TEXT_BLOCKS	1	/* ... and every logged block */
#define EJ_REPORT_JSON		2	/* doc/report-json.md */

typedef struct ej_image ej_image;

/* EJ_API_VERSION of the library at run time. */
int ej_api_version(void);
/* The package version, e.g. "0.1.0". */
const char *ej_version(void);
/* Text for any error code the library returns. */
const char *ej_error_message(errcode_t code);

/* Defaults: replay-all, the internal journal, read-write. */
void ej_options_init(struct ej_options *opts, size_t size);

/*
 * Open the filesystem in @path (read-write unless EJ_OPT_READONLY; then
 * never if it is mounted or held by another program, see below).
 * Its journal is loaded by each ej_image_plan() and ej_image_replay():
 * what is wrong with the journal comes back from those.
 */
errcode_t ej_image_open(const char *path, const struct ej_options *opts,
			ej_image **ret);
/*
 * ej_image_open() as ext2fs_open2() opens (API version 2): @io_options
 * (the I/O manager's, e.g. "offset=N"; or NULL), a backup @superblock
 * and its @block_size (0, 0: the primary), and libext2fs' I/O manager
 * @io (NULL: unix).
 * Opened for writing (no EJ_OPT_READONLY) by either call, a filesystem
 * that is mounted gives EJ_MOUNTED and one another program holds open
 * with O_EXCL EJ_BUSY; the device is then held with O_EXCL until
 * ej_image_close().  With opts->undo_file, what replay overwrites is kept
 * there for e2undo(8) (an external journal's in "<undo_file>.journal").
 */
errcode_t ej_image_open2(const char *path, const char *io_options,
			 const struct ej_options *opts, uint64_t superblock,
			 unsigned int block_size,
			 struct struct_io_manager *io, ej_image **ret);
/* Flush and close; returns what closing the filesystem returned. */
errcode_t ej_image_close(ej_image *img);

/*
 * A per-block override for the next plans and replays: write (@force 1)
 * or keep out (@force 0) the version of fs block @fsblock that
 * transaction @tid logs.  A forced block is written even though the
 * policy skips it (never a revoked one, nor one outside the filesystem).
 */
errcode_t ej_image_override(ej_image *img, uint32_t tid,
			    uint64_t fsblock, int force);

/*
 * Decide the replay without writing anything; fills @summary.  On an
 * error, summary->recover_error is that error when the journal loaded and
 * recovery failed, 0 when the journal could not be loaded.
 * EJ_FAST_COMMIT_PENDING is what ej_image_replay() would return (fast
 * commits left for e2fsck under the stop policy): the summary and the
 * report are then the plan's, as without it.
 */
errcode_t ej_image_plan(ej_image *img, struct ej_summary *summary);
/*
 * Replay: write the blocks the policy keeps, then mark the journal empty
 * and, when corruption is flagged, record an error in the filesystem.
 * A refusal (EJ_STATUS_REFUSED) writes nothing and returns 0.  Errors
 * as for ej_image_plan(), except one met after recovery (resetting the
 * journal; EJ_FAST_COMMIT_PENDING: replayed, fast commits kept for
 * e2fsck): the summary and report then say what was written.
 */
errcode_t ej_image_replay(ej_image *img, struct ej_summary *summary);

/* The last plan's or replay's report; *out is malloc'ed: free() it. */
errcode_t ej_image_report(const ej_image *img, int format, char **out);
/* Its transactions and logged blocks, by index. */
size_t ej_image_nr_txns(const ej_image *img);
errcode_t ej_image_txn(const ej_image *img, size_t i, struct ej_txn *txn);
size_t ej_image_nr_blocks(const ej_image *img);
errcode_t ej_image_block(const ej_image *img, size_t i,
			 struct ej_block *block);

/* Names as the report prints them; "?" for an unknown value. */
const char *ej_policy_name(int policy);
const char *ej_verdict_name(unsigned int verdict);
const char *ej_commit_status_name(unsigned int status);
/* "replay-all", "stop" or "refuse" into *policy; 0, or -1 if unknown. */
int ej_policy_parse(const char *name, int *policy);
/*
 * The same, as an errcode_t (API version 2): 0, EJ_UNKNOWN_POLICY
 * (*policy untouched) or EJ_BAD_ARG (a NULL pointer).
 */
errcode_t ej_policy_parse2(const char *name, int *policy);

#ifdef __cplusplus
}
#endif

#endif /* E2JOURNAL_H */
