/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * jfs_user.h: life support for kernel-style journal code in userspace.
 *
 * recovery.c is written against the names Linux uses in fs/jbd2/ and
 * include/linux/jbd2.h.  This header supplies those names in userspace:
 * journal_t, struct buffer_head, __bread()/brelse()/sync_blockdev(),
 * jbd2_journal_bmap(), byte order and tid helpers, the feature tests and
 * the revoke table.  A host (lib/journal/jglue.c over a libext2fs
 * io_channel, or tests/unit/memdev.c over memory) implements the block
 * layer through struct jbd2_host_ops.  Nothing in recovery.c knows which
 * host it runs on.
 */
#ifndef E2JOURNAL_JFS_USER_H
#define E2JOURNAL_JFS_USER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_err.h>

#include "jbd2_fmt.h"
#include "jbd2_policy.h"

typedef __u32 tid_t;
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;
typedef int bool_t;

#ifndef __cplusplus
#include <stdbool.h>
#endif

/*
 * Filesystem corruption.  The kernel says EBADMSG and EUCLEAN; here, as in
 * e2fsprogs, the libext2fs codes, so that a message that prints one
 * ("JBD2: IO error %d ...") reads as e2fsprogs' does.
 */
#ifndef EFSBADCRC
#define EFSBADCRC	EXT2_ET_BAD_CRC
#endif
#ifndef EFSCORRUPTED
#define EFSCORRUPTED	EXT2_ET_FILESYSTEM_CORRUPTED
#endif

/*
 * Byte order.  JBD2's fields are big-endian, ext4's little-endian: every
 * on-disk word goes through one of these, so either kind of host reads
 * the same journal (make check-cross runs the tests on s390x).
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define be16_to_cpu(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define be32_to_cpu(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define be64_to_cpu(x)	((__u64)__builtin_bswap64((__u64)(x)))
#define cpu_to_be16(x)	((__be16)__builtin_bswap16((__u16)(x)))
#define cpu_to_be32(x)	((__be32)__builtin_bswap32((__u32)(x)))
#define cpu_to_be64(x)	((__be64)__builtin_bswap64((__u64)(x)))
#define le16_to_cpu(x)	((__u16)(x))
#define le32_to_cpu(x)	((__u32)(x))
#define le64_to_cpu(x)	((__u64)(x))
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define be16_to_cpu(x)	((__u16)(x))
#define be32_to_cpu(x)	((__u32)(x))
#define be64_to_cpu(x)	((__u64)(x))
#define cpu_to_be16(x)	((__be16)(x))
#define cpu_to_be32(x)	((__be32)(x))
#define cpu_to_be64(x)	((__be64)(x))
#define le16_to_cpu(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define le32_to_cpu(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define le64_to_cpu(x)	((__u64)__builtin_bswap64((__u64)(x)))
#else
#error "jfs_user.h: a host that is neither little- nor big-endian"
#endif

/* Memory. */
#define GFP_KERNEL	0
#define GFP_NOFS	0
#define kmalloc(size, flags)		malloc(size)
#define kzalloc(size, flags)		calloc(1, (size))
#define kmalloc_array(n, size, flags)	calloc((n), (size))
#define krealloc(p, size, flags)	realloc((p), (size))
#define kfree(p)			free(p)
/* large arrays: huge-page backed where possible (bigmem.c) */
void *ej_big_zalloc(size_t size);
void ej_big_free(void *p);
void ej_big_discard(void *p, size_t upto);
#define kvzalloc(size, flags)		ej_big_zalloc(size)
#define kvfree(p)			ej_big_free(p)

#define unlikely(x)	__builtin_expect(!!(x), 0)
#define likely(x)	__builtin_expect(!!(x), 1)
#define cond_resched()	do { } while (0)
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#ifndef min_t
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#endif

/* Transaction ids wrap at 2^32: compare them as signed differences. */
static inline int tid_gt(tid_t x, tid_t y)
{
	return (int32_t)(x - y) > 0;
}

static inline int tid_geq(tid_t x, tid_t y)
{
	return (int32_t)(x - y) >= 0;
}

struct block_device;
struct buffer_head;
typedef struct journal_s journal_t;

/* A block read from a device; the host owns b_data. */
struct buffer_head {
	struct block_device	*b_bdev;
	unsigned long long	b_blocknr;
	size_t			b_size;
	char			*b_data;
	void			*b_private;	/* host bookkeeping */
};

/* The block layer as recovery.c sees it, implemented by a host. */
struct jbd2_bdev_ops {
	/* Read one block; NULL with *err set when it cannot be read. */
	struct buffer_head *(*bread)(struct block_device *bdev,
				     unsigned long long block,
				     unsigned int size, int *err);
	void (*brelse)(struct buffer_head *bh);
	/* Write out whatever the host holds for this device, then flush. */
	int (*sync)(struct block_device *bdev);
};

struct block_device {
	const struct jbd2_bdev_ops	*bd_ops;
	void				*bd_private;
};

/*
 * What a host knows about the journal's placement and what replay
 * writes.  See jglue.c and tests/unit/memdev.c.
 */
struct jbd2_host_ops {
	/* Logical journal block to physical block of j_dev. */
	int (*bmap)(journal_t *journal, unsigned long lblk,
		    unsigned long long *pblk);
	/* May a replayed block land at @blocknr (inside the fs, not the log)? */
	int (*block_ok)(journal_t *journal, unsigned long long blocknr);
	/* Make @blocknr hold @obh's data (with the magic restored if @escape). */
	int (*replay)(journal_t *journal, struct buffer_head *obh,
		      unsigned long long blocknr, int escape);
};

struct jbd2_revoke_table_s;
struct ej_report;
struct ej_final_map;

/* Recovery passes, as include/linux/jbd2.h names them. */
enum passtype { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

/* What a fast-commit replay callback returns. */
#define JBD2_FC_REPLAY_STOP	0
#define JBD2_FC_REPLAY_CONTINUE	1

/*
 * The journal.  Fields up to j_revoke carry the kernel's names and meaning;
 * the rest are e2journal's (the kernel patch series adds the policy ones).
 */
struct journal_s {
	unsigned long		j_flags;
	int			j_format_version;
	journal_superblock_t	*j_superblock;
	struct buffer_head	*j_sb_buffer;
	struct block_device	*j_dev;		/* holds the journal */
	struct block_device	*j_fs_dev;	/* holds the filesystem */
	unsigned int		j_blocksize;
	unsigned long		j_first;	/* first log block */
	unsigned long		j_last;		/* one past the last log block */
	unsigned long		j_fc_first;	/* fast-commit area, if any */
	unsigned long		j_fc_last;
	unsigned long		j_total_len;	/* s_maxlen */
	unsigned long		j_head;
	unsigned long		j_tail;
	tid_t			j_tail_sequence;
	tid_t			j_transaction_sequence;
	tid_t			j_failed_commit;
	__u32			j_csum_seed;
	struct jbd2_revoke_table_s *j_revoke;
	/* ext4's fast-commit replay; e2journal leaves it NULL. */
	int (*j_fc_replay_callback)(journal_t *journal, struct buffer_head *bh,
				    enum passtype pass, int off,
				    tid_t expected_commit_id);

	/* e2journal: the corrupt-journal policy and what it found. */
	int			j_replay_policy;	/* enum jbd2_replay_policy */
	unsigned int		j_replay_corrupt;	/* JBD2_CORRUPT_* */
	tid_t			j_replay_first_bad;	/* first flagged tid */
	tid_t			j_replay_last;		/* last tid replayed */
	unsigned int		j_replay_nr_txns;	/* transactions replayed */

	/* userspace only */
	const struct jbd2_host_ops *j_host_ops;
	void			*j_host;
	struct ej_report	*j_report;
	/* the host's final-version map (finalmap.c), or NULL */
	struct ej_final_map	*j_final;
};

/* Feature tests. */
#define JBD2_HAS_COMPAT(j, mask) \
	((j)->j_format_version >= 2 && \
	 (be32_to_cpu((j)->j_superblock->s_feature_compat) & (mask)))
#define JBD2_HAS_INCOMPAT(j, mask) \
	((j)->j_format_version >= 2 && \
	 (be32_to_cpu((j)->j_superblock->s_feature_incompat) & (mask)))

/* jbd2_has_feature_NAME(j): is MASK set in the TEST feature word? */
#define JBD2_FEATURE_TEST(name, test, mask)				\
static inline int jbd2_has_feature_##name(journal_t *j)			\
{									\
	return test(j, mask);						\
}

JBD2_FEATURE_TEST(checksum, JBD2_HAS_COMPAT, JBD2_FEATURE_COMPAT_CHECKSUM)
JBD2_FEATURE_TEST(revoke, JBD2_HAS_INCOMPAT, JBD2_FEATURE_INCOMPAT_REVOKE)
JBD2_FEATURE_TEST(64bit, JBD2_HAS_INCOMPAT, JBD2_FEATURE_INCOMPAT_64BIT)
JBD2_FEATURE_TEST(async_commit, JBD2_HAS_INCOMPAT,
		  JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT)
JBD2_FEATURE_TEST(csum2, JBD2_HAS_INCOMPAT, JBD2_FEATURE_INCOMPAT_CSUM_V2)
JBD2_FEATURE_TEST(csum3, JBD2_HAS_INCOMPAT, JBD2_FEATURE_INCOMPAT_CSUM_V3)
JBD2_FEATURE_TEST(fast_commit, JBD2_HAS_INCOMPAT,
		  JBD2_FEATURE_INCOMPAT_FAST_COMMIT)

static inline int jbd2_journal_has_csum_v2or3(journal_t *j)
{
	return jbd2_has_feature_csum2(j) || jbd2_has_feature_csum3(j);
}

/* Bytes one tag takes in a descriptor block, UUID not counted. */
static inline size_t journal_tag_bytes(journal_t *j)
{
	size_t sz;

	if (jbd2_has_feature_csum3(j))
		return sizeof(journal_block_tag3_t);
	sz = sizeof(journal_block_tag_t);
	if (jbd2_has_feature_csum2(j))
		sz += sizeof(__u16);
	if (jbd2_has_feature_64bit(j))
		return sz;
	return sz - sizeof(__u32);
}

/* Checksums (crc32c.c). */
__u32 ej_crc32c(__u32 crc, const void *buf, size_t len);
__u32 ej_crc32_be(__u32 crc, const void *buf, size_t len);

static inline __u32 jbd2_chksum(journal_t *j, __u32 crc, const void *buf,
				size_t len)
{
	(void)j;
	return ej_crc32c(crc, buf, len);
}

#define crc32_be(crc, buf, len)	ej_crc32_be((crc), (buf), (len))

/* The block layer. */
static inline struct buffer_head *jbd2_bread(struct block_device *bdev,
					     unsigned long long block,
					     unsigned int size, int *err)
{
	return bdev->bd_ops->bread(bdev, block, size, err);
}

static inline void brelse(struct buffer_head *bh)
{
	if (bh)
		bh->b_bdev->bd_ops->brelse(bh);
}

static inline int sync_blockdev(struct block_device *bdev)
{
	return bdev->bd_ops->sync(bdev);
}

static inline int jbd2_journal_bmap(journal_t *journal, unsigned long blocknr,
				    unsigned long long *retp)
{
	return journal->j_host_ops->bmap(journal, blocknr, retp);
}

/* Revoke table (revoke.c). */
int jbd2_journal_init_revoke(journal_t *journal, int hash_size);
void jbd2_journal_destroy_revoke(journal_t *journal);
int jbd2_journal_set_revoke(journal_t *journal, unsigned long long blocknr,
			    tid_t sequence);
int jbd2_journal_test_revoke(journal_t *journal, unsigned long long blocknr,
			     tid_t sequence);
void jbd2_journal_clear_revoke(journal_t *journal);

/*
 * Recovery's hooks into its host (report.c in userspace; the kernel patch
 * series implements them in fs/jbd2/journal.c).
 */
int jbd2_recovery_block_ok(journal_t *journal, unsigned long long blocknr);
int jbd2_recovery_block(journal_t *journal, struct buffer_head *obh,
			tid_t tid, unsigned long jblock,
			unsigned long long blocknr, unsigned int tag_flags,
			int verdict);
void jbd2_recovery_txn(journal_t *journal, const struct jbd2_txn_info *ti);
void jbd2_recovery_revoke_block(journal_t *journal, tid_t tid,
				unsigned long jblock, unsigned int nr_records,
				int csum_ok);
__printf(2, 3) void jbd2_recovery_msg(journal_t *journal,
				      const char *fmt, ...);

/* recovery.c */
int jbd2_journal_recover(journal_t *journal);
int jbd2_journal_skip_recovery(journal_t *journal);

#endif /* E2JOURNAL_JFS_USER_H */
