/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_dump.h: what the files of "e2journal dump" share: the state of one
 * dump (struct dump_ctx), the JSON writer and the names (ej_dump_out.c),
 * and the walk of the log (ej_dump_log.c) that ej_dump.c's command runs.
 */
#ifndef E2JOURNAL_EJ_DUMP_H
#define E2JOURNAL_EJ_DUMP_H

#include <stdio.h>

#include "e2journal_int.h"

/* Checksum states shown for a block. */
#define CSUM_NONE	-1	/* the journal has no such checksum */
#define CSUM_BAD	0
#define CSUM_OK		1

struct dump_ctx {
	journal_t	*journal;
	const char	*saved;		/* a saved copy read instead */
	FILE		*out;
	int		json;
	unsigned int	bs;		/* journal block size */
	unsigned long	first;		/* first log block */
	unsigned long	last;		/* one past the last log block */
	unsigned int	tag_bytes;
	unsigned int	tail_bytes;	/* 4 with csum v2/v3, else 0 */
	int		csum_v1, csum_v23, csum_v3, is_64bit;
	__u32		seed;		/* v2/v3 checksum seed */
	char		*buf;		/* the control block being parsed */
	char		*data;		/* a data block */

	/* JSON writer state */
	int		jcomma;		/* a value precedes at this level */
	int		jdepth;

	/* the transaction being walked */
	int		txn_open;
	__u32		txn_tid;
	__u32		v1_crc;		/* running v1 checksum */
	int		v1_valid;	/* every block of it could be read */

	/* totals */
	unsigned long	nr_txns, nr_committed, nr_tags, nr_revoked;
	unsigned long	nr_bad_csum;
	int		read_error;

	/* -O: the old log too (past the end, or from s_first when empty) */
	int		old;
	/* -i: only the logged versions of an inode's blocks */
	ext2_ino_t	ino;
	blk64_t		ino_table_block;	/* holds the inode */
	unsigned int	ino_offset;		/* its offset in that block */
	blk64_t		*ino_blocks;		/* mapped blocks, sorted */
	size_t		nr_ino_blocks, ino_cap;
	unsigned long	nr_ino_hits;
	__u32		next_tid;	/* after the last committed one */
};


/* ej_dump_out.c: the JSON writer; it places the commas, callers the values */
/* A line break before the next member or item (which must follow). */
void j_break(struct dump_ctx *c);
/* Start a value: the comma before it and, for a member, its key. */
void j_key(struct dump_ctx *c, const char *key);
/* Open an object or array; items of arrays start on a line of their own. */
void j_open(struct dump_ctx *c, const char *key, char bracket);
void j_close(struct dump_ctx *c, char bracket);
/* Close on a line of its own. */
void j_close_nl(struct dump_ctx *c, char bracket);
void j_uint(struct dump_ctx *c, const char *key, unsigned long long v);
void j_int(struct dump_ctx *c, const char *key, long long v);
void j_str(struct dump_ctx *c, const char *key, const char *s);
void j_bool(struct dump_ctx *c, const char *key, int v);
/* A checksum state (CSUM_*) as the member "csum". */
void j_csum(struct dump_ctx *c, int state);
/* Open the object of log block @b, of @type, in the current transaction. */
void j_log_block(struct dump_ctx *c, unsigned long b, const char *type);
/* The bits of @mask as an array of the names in @names (32 entries). */
void j_names(struct dump_ctx *c, const char *key, __u32 mask,
	     const char *const *names);

/* ej_dump_out.c: names */
/* @u as 36 characters and a NUL into @str. */
void format_uuid(const __u8 *u, char *str);
const char *block_type_name(__u32 type);
/* Names of the bits set in @mask, space-separated. */
void bit_names(__u32 mask, const char *const *names, char *str,
	       size_t len);
const char *csum_word(int state);

/* ej_dump_log.c: walk the log from s_start, as recovery's scan does */
void ej_dump_walk_log(struct dump_ctx *c);
/* Order of -i's sorted block list (blk64_t), for qsort and bsearch. */
int ej_dump_cmp_blk(const void *a, const void *b);

#endif /* E2JOURNAL_EJ_DUMP_H */
