/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_txnspec.h: the transactions "e2journal write" is asked to log
 * (ej_txnspec.c), as ej_write.c uses them.
 */
#ifndef E2JOURNAL_EJ_TXNSPEC_H
#define E2JOURNAL_EJ_TXNSPEC_H

#include "ej_layout.h"

/* Where a logged block's content comes from. */
enum src_kind {
	SRC_RANDOM,		/* pseudo-random: seed, tid and block number */
	SRC_FILL,		/* every byte the same */
	SRC_MAGIC,		/* journal magic, then a fill byte (escaped) */
	SRC_FILE,		/* block i of the list = block i of a file */
	SRC_IMAGE,		/* block N = block N of another image */
};

struct src {
	enum src_kind		kind;
	unsigned long long	arg;		/* seed or fill byte */
	char			*path;		/* SRC_FILE */
};

struct tblock {
	unsigned long long	fsblock;
	struct src		*src;		/* shared by a whole list */
	unsigned long		nth;		/* position in its list */
};

struct tspec {
	struct tblock		*blocks;
	size_t			nr_blocks, max_blocks;
	unsigned long long	*revokes;
	size_t			nr_revokes, max_revokes;
	int			nocommit;
	int			have_time;
	unsigned long long	sec;
};

struct tlist {
	struct tspec		*t;
	size_t			nr, max;
	struct src		**srcs;		/* owned, freed at the end */
	size_t			nr_srcs, max_srcs;
	struct ejw_fc		*fc;		/* fast commits (ej_write_fc.c) */
};

void ej_tlist_free(struct tlist *l);
/* A new, empty transaction at the end of @l; NULL when out of memory. */
struct tspec *ej_tlist_new(struct tlist *l);
/* --txn "ITEM;ITEM..." into @t; 0, or -1 after a message. */
int ej_txn_parse(struct tlist *l, struct tspec *t, const char *s);
/* --spec FILE: its transactions appended to @l; 0, or -1 after a message. */
int ej_txn_parse_file(struct tlist *l, const char *path);
/* Block @b's content in transaction @tid, @bs bytes into @buf. */
errcode_t ej_txn_make_block(const struct tblock *b, __u32 tid,
			    unsigned int bs, unsigned char *buf);

#endif /* E2JOURNAL_EJ_TXNSPEC_H */
