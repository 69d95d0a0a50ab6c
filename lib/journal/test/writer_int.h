/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * writer_int.h: what the journal writer's files (writer.c, wtxn.c,
 * wfault.c) share: the writer's state and the helpers that move its
 * blocks and seal them.  Private to lib/journal/test/.
 */
#ifndef E2JOURNAL_WRITER_INT_H
#define E2JOURNAL_WRITER_INT_H

#include <stdlib.h>
#include <string.h>

#include "ej_test.h"

#define EJ_W_DEFAULT_COMMIT_SEC	1700000000ULL
#define EJ_W_DEFAULT_TORN_AT	512

/* Bytes of the fixed part of a revoke block (header + r_count). */
#define EJ_W_REVOKE_HDR		sizeof(jbd2_journal_revoke_header_t)
/* Offset of h_chksum[0] in a commit block. */
#define EJ_W_COMMIT_CSUM_OFF	offsetof(struct commit_header, h_chksum)

/* A block of the open transaction, kept until it is written. */
struct ej_pending {
	unsigned long long	fsblock;
	unsigned int		flags;		/* JBD2_FLAG_ESCAPE or 0 */
	unsigned char		*data;		/* as it will sit in the journal */
};

struct ej_writer {
	struct ej_jsink		sink;
	journal_superblock_t	jsb;
	unsigned int		bs;
	unsigned long		sb_block;
	unsigned long		first;		/* first log block */
	unsigned long		last;		/* one past the last log block */
	unsigned long		maxlen;
	int			csum;		/* EJ_CSUM_* */
	int			is64;
	unsigned int		tag_bytes;
	unsigned int		tail_bytes;
	unsigned int		tags_per_desc;
	unsigned int		recs_per_revoke;
	__u32			seed;
	unsigned int		flags;		/* EJ_W_* given at open */

	/* where the next transaction goes */
	__u32			next_tid;
	unsigned long		next_block;
	unsigned long		used;		/* log blocks since next_block */
	int			have_start;
	unsigned long		start_block;
	__u32			start_tid;
	int			wrote_revoke;
	unsigned long long	next_sec;
	unsigned int		next_nsec;
	int			finished;

	/* the open transaction */
	int			in_txn;
	__u32			cur_tid;
	struct ej_pending	*pend;
	size_t			nr_pend, max_pend;
	unsigned long long	*revs;
	size_t			nr_revs, max_revs;

	/* what was written */
	struct ej_wtxn		*txns;
	size_t			nr_txns, max_txns;

	unsigned char		*buf;

	int			dry;		/* ej_writer_set_dry() */

	/* ej_writer_open_fs(): the image the journal belongs to */
	int			bound;
	ext2_filsys		fs;
	io_channel		ext_io;		/* external journal, or NULL */
	ext2_ino_t		ino;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static inline void put_be16(void *p, __u16 v)
{
	__be16 x = cpu_to_be16(v);

	memcpy(p, &x, sizeof(x));
}

static inline void put_be32(void *p, __u32 v)
{
	__be32 x = cpu_to_be32(v);

	memcpy(p, &x, sizeof(x));
}

static inline void put_be64(void *p, __u64 v)
{
	__be64 x = cpu_to_be64(v);

	memcpy(p, &x, sizeof(x));
}

static inline __u32 get_be32(const void *p)
{
	__be32 x;

	memcpy(&x, p, sizeof(x));
	return be32_to_cpu(x);
}

static inline unsigned long log_next(const struct ej_writer *w, unsigned long blk)
{
	blk++;
	if (blk >= w->last)
		blk = w->first;
	return blk;
}

static inline int sb_is_v2(const struct ej_writer *w)
{
	return be32_to_cpu(w->jsb.s_header.h_blocktype) == JBD2_SUPERBLOCK_V2;
}

/* Checksum in the last 4 bytes of a descriptor or revoke block. */
void ejw_tail_set(const struct ej_writer *w, unsigned char *blk);
/* Commit checksum: @crc is the v1 crc32 of the transaction. */
void ejw_commit_csum_set(const struct ej_writer *w, unsigned char *blk,
			 __u32 crc);
/* One logical journal block to and from the sink (a dry writer drops). */
errcode_t ejw_write(struct ej_writer *w, unsigned long lblk, const void *buf);
errcode_t ejw_read(struct ej_writer *w, unsigned long lblk, void *buf);
/* Write the in-memory superblock into the first 1024 bytes of its block. */
errcode_t ejw_write_jsb(struct ej_writer *w, int set_csum);

#endif /* E2JOURNAL_WRITER_INT_H */
