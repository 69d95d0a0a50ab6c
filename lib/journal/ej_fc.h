/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_fc.h: ext4 fast commits: the on-disk records of the fast-commit
 * area, the scanner that judges them (fc_scan.c) and the replay through
 * libext2fs (fc_replay.c).  See POLICY.md "Fast commits" and
 * doc/policy.md.
 *
 * The area holds tag-length-value records, all little-endian: a 4-byte
 * {tag, len} then len bytes.  HEAD {features, tid} opens the area; each
 * fast commit ends with TAIL {tid, crc32c} whose value runs to the end of
 * its block.  The crc (seed 0, restarted after every TAIL) covers every
 * record of the fast commit, HEAD included, and the TAIL's {tag, len} and
 * tid.
 */
#ifndef EJ_FC_H
#define EJ_FC_H

#include <ext2fs/ext2fs.h>
#include <stddef.h>
#include "ej_err.h"

#define EJ_FC_TAG_ADD_RANGE	1
#define EJ_FC_TAG_DEL_RANGE	2
#define EJ_FC_TAG_CREAT		3
#define EJ_FC_TAG_LINK		4
#define EJ_FC_TAG_UNLINK	5
#define EJ_FC_TAG_INODE		6
#define EJ_FC_TAG_PAD		7
#define EJ_FC_TAG_TAIL		8
#define EJ_FC_TAG_HEAD		9

#define EJ_FC_TL_LEN		4	/* {__le16 tag, __le16 len} */
#define EJ_FC_HEAD_LEN		8	/* features, tid */
#define EJ_FC_TAIL_LEN		8	/* tid, crc (at least) */
#define EJ_FC_ADD_RANGE_LEN	16	/* ino, struct ext3_extent */
#define EJ_FC_DEL_RANGE_LEN	12	/* ino, lblk, len */
#define EJ_FC_DENTRY_LEN	8	/* parent ino, ino, then the name */
#define EJ_FC_INODE_LEN		4	/* ino, then the raw inode */
#define EJ_FC_NAME_MAX		255
#define EJ_FC_GOOD_OLD_INODE	128
/*
 * In journal->j_replay_corrupt beside the JBD2_CORRUPT_* bits (which
 * recovery.c and the kernel series own): a fast-commit row flagged.
 */
#define EJ_CORRUPT_FAST_COMMIT	0x0400

/* HEAD features this code knows (Linux knows none either) */
#define EJ_FC_KNOWN_FEATURES	0u

/* What the area as a whole is. */
enum ej_fc_area {
	EJ_FCA_NONE = 0,	/* no fast_commit, or no HEAD: nothing */
	EJ_FCA_STALE,		/* HEAD of another tid: superseded */
	EJ_FCA_FEATURES,	/* HEAD with unknown features: flagged */
	EJ_FCA_BAD_HEAD,	/* HEAD of an impossible length: flagged */
	EJ_FCA_LIVE,		/* HEAD of the expected tid */
	EJ_FCA_MAX
};

/* Each fast commit's verdict. */
enum ej_fc_verdict {
	EJ_FCV_VERIFIED = 0,	/* TAIL tid and crc match: replay */
	EJ_FCV_UNACKED,		/* fails, nothing verified after it */
	EJ_FCV_SKIPPED,		/* fails, a verified one follows: flagged */
	EJ_FCV_BAD_LENGTH,	/* verified, a record length impossible */
	EJ_FCV_AFTER_BAD,	/* verified, after a bad-length one */
	EJ_FCV_STALE,		/* TAIL of another tid, none verified after */
	EJ_FCV_MAX
};

/* What went wrong in a fast commit that does not verify. */
enum ej_fc_fail {
	EJ_FCF_NONE = 0,
	EJ_FCF_NO_TAIL,		/* the area ended first */
	EJ_FCF_BAD_TAG,		/* a tag this code does not know */
	EJ_FCF_PAST_BLOCK,	/* a record runs past its block */
	EJ_FCF_TAIL_TID,	/* TAIL names another tid */
	EJ_FCF_TAIL_CRC,	/* TAIL's crc does not match */
	EJ_FCF_MAX
};

/* What became of a record (fc_replay.c). */
enum ej_fc_rec_verdict {
	EJ_FCR_NOT_REPLAYED = 0, /* its fast commit is not replayed */
	EJ_FCR_PENDING,		/* to be replayed */
	EJ_FCR_REPLAYED,
	EJ_FCR_NOTHING,		/* nothing to do (idempotent, or PAD...) */
	EJ_FCR_BAD_INO,		/* inode number 0, too big, reserved: flag */
	EJ_FCR_BAD_BLOCK,	/* outside the fs, metadata, journal: flag */
	EJ_FCR_BAD_PARENT,	/* parent not a directory in use: flag */
	EJ_FCR_NOT_IN_USE,	/* LINK to an inode not in use: flag */
	EJ_FCR_FAILED,		/* libext2fs could not apply it: flag */
	EJ_FCR_MAX
};

struct ej_fc_rec {
	unsigned int	tag;
	unsigned int	len;		/* value bytes */
	unsigned long	off;		/* of its {tag, len} in the area */
	int		len_ok;		/* the length is possible for the tag */
	int		verdict;	/* enum ej_fc_rec_verdict */
};

struct ej_fc_commit {
	unsigned long	first_blk;	/* area block it starts in */
	unsigned long	nr_blks;
	__u32		tail_tid;	/* when it has a TAIL */
	int		has_tail;
	int		verdict;	/* enum ej_fc_verdict */
	int		fail;		/* enum ej_fc_fail */
	size_t		first_rec;	/* its records in ej_fc_scan.recs */
	size_t		nr_recs;
};

struct ej_fc_scan {
	int		area;		/* enum ej_fc_area */
	__u32		head_tid;
	__u32		head_features;
	__u32		expected_tid;
	int		flagged;	/* a row says flag */
	struct ej_fc_commit *fcs;
	size_t		nr_fcs;
	struct ej_fc_rec *recs;
	size_t		nr_recs;
	size_t		max_fcs, max_recs;
};

/*
 * Judge the fast-commit area @area (@nr_blks blocks of @bs bytes) against
 * @expected_tid, the transaction after the last full commit.
 * @inode_size bounds INODE records.  0 or EJ_NO_MEMORY; free with
 * ej_fc_scan_free().
 */
errcode_t ej_fc_scan(const unsigned char *area, unsigned long nr_blks,
		     unsigned int bs, __u32 expected_tid,
		     unsigned int inode_size, struct ej_fc_scan *out);
void ej_fc_scan_free(struct ej_fc_scan *s);
/* Is @len a possible value length for @tag? */
int ej_fc_len_ok(unsigned int tag, unsigned int len, unsigned int inode_size);
const char *ej_fc_tag_name(unsigned int tag);
const char *ej_fc_verdict_name(int verdict);
const char *ej_fc_fail_name(int fail);
const char *ej_fc_area_name(int area);
struct ej_extent;
/*
 * Judge each record of the fast commits to replay against @fs before
 * anything is written: inode numbers, and blocks outside the fs, in its
 * fixed metadata or in @forbid (the journal).  Sets rec->verdict and
 * s->flagged.
 */
errcode_t ej_fc_check(ext2_filsys fs, const struct ej_extent *forbid,
		      size_t nr_forbid, const unsigned char *area,
		      struct ej_fc_scan *s);
/*
 * Replay the records ej_fc_check() left pending into @fs (opened
 * read-write, the full commits already on disk), EXT4_FC_REPLAY set in
 * s_state while it runs; flushed when it returns 0.
 */
errcode_t ej_fc_replay(ext2_filsys fs, const unsigned char *area,
		       struct ej_fc_scan *s);
/*
 * Would ej_fc_replay() flag a record (a parent that is not a directory
 * in use, a LINK to an inode not in use)?  Worked out on @fs as the full
 * commits left it, with the INODE records before each record applied in
 * memory; nothing is written.  "refuse" asks before replaying.
 */
errcode_t ej_fc_dry_check(ext2_filsys fs, const unsigned char *area,
			  const struct ej_fc_scan *s, int *would_flag);
const char *ej_fc_rec_verdict_name(int verdict);
/*
 * After a link into @dir, which was @before: zero what libext2fs left
 * unset in the leaves it split (fc_dxleaf.c).
 */
errcode_t ej_fc_dx_clear(ext2_filsys fs, ext2_ino_t dir,
			 const struct ext2_inode *before);
/* The area in words (fc_report.c): text, or a JSON object; free *out. */
errcode_t ej_fc_report(const struct ej_fc_scan *s, const unsigned char *area,
		       int as_json, char **out);

/* Fast commits the scan says to replay. */
static inline int ej_fc_replayable(const struct ej_fc_commit *c)
{
	return c->verdict == EJ_FCV_VERIFIED;
}

#endif /* EJ_FC_H */
