/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_show.h: the parts of "e2journal show" (ej_show.c): what a block is
 * and who owns it (ej_show_type.c), and what it holds, decoded by type,
 * and what a logged version changes in it (ej_show_decode.c).
 */
#ifndef EJ_SHOW_H
#define EJ_SHOW_H

#include <stdio.h>

#include "e2journal_int.h"

enum kind {
	K_OUTSIDE,
	K_BOOT,
	K_SUPER,
	K_BACKUP_SUPER,
	K_GDT,
	K_RESERVED_GDT,
	K_BLOCK_BITMAP,
	K_INODE_BITMAP,
	K_INODE_TABLE,
	K_DIR,
	K_EXTENT,
	K_INDIRECT,
	K_XATTR,
	K_DATA,
	K_JOURNAL,
	K_FREE,
	K_UNKNOWN,
};

/* Who owns a block, as the inode scan found it. */
enum own_kind {
	OWN_NONE,
	OWN_DATA,
	OWN_EXTENT,
	OWN_INDIRECT,
	OWN_XATTR,
};

struct owner {
	int			kind;		/* OWN_* */
	ext2_ino_t		ino;
	struct ext2_inode_large	inode;
	blk64_t			lblk;		/* data: logical block */
	/* extent node: depth from the root; indirect: 1 .. 3 (triple) */
	int			level;
	int			max_depth;	/* extent tree depth */
	int			uninit;		/* unwritten extent */
	unsigned long		scanned;	/* inodes looked at */
	int			capped;		/* scan cut short */
};

struct show_ctx {
	ext2_filsys	fs;
	unsigned int	bs;
	blk64_t		blk;
	int		kind;		/* K_* */
	dgrp_t		group;
	unsigned int	sb_offset;	/* where the superblock starts */
	unsigned long	first_desc;	/* GDT: first group described */
	ext2_ino_t	first_ino;	/* inode table: first inode here */
	struct owner	own;
	int		in_use;		/* bitmap: 1, 0, -1 unknown */
	char		*disk;		/* the block on disk */
	char		*logged;	/* the journal's version, or NULL */
	FILE		*out;
};

/* ej_show_type.c: what the block is */
/* Find c->kind (and group, owner, bitmap state) of c->blk. */
void show_classify(struct show_ctx *c);
/* "Type: ..." */
void show_print_type(struct show_ctx *c);
/* "regular file", "directory", ... for an inode's mode */
const char *show_file_type(unsigned int mode);

/* ej_show_decode.c: what it holds */
/* Inode @ino from its raw on-disk bytes @raw, on a line after @indent. */
void show_describe_inode(struct show_ctx *c, const char *raw,
			 ext2_ino_t ino, const char *indent);
/* What block @b holds, decoded by type; @what: "on disk", "logged". */
void show_describe(struct show_ctx *c, const char *b, const char *what);
/* What c->logged changes in c->disk: bytes, then fields by type. */
void show_diff(struct show_ctx *c);

#endif
