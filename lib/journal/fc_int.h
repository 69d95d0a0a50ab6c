/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * fc_int.h: what the fast-commit replay's files share (fc_replay.c: the
 * records on inodes and blocks and the phase as a whole; fc_dentry.c:
 * the records on names and the link counts they change).  Private.
 */
#ifndef EJ_FC_INT_H
#define EJ_FC_INT_H

#include "ej_fc.h"

/* An inode set that grows: touched inodes, directories to recount... */
struct ej_fc_inos {
	ext2_ino_t	*v;
	size_t		n, max;
};

struct ej_fcr {
	ext2_filsys		fs;
	struct ej_fc_scan	*s;
	const unsigned char	*area;
	struct ej_fc_inos	touched;	/* i_blocks counted at the end */
	struct ej_fc_inos	recount;	/* directories: links recounted */
	struct ej_fc_inos	orphans;	/* may have left the orphan list */
	unsigned int		isz;
};

static inline __u32 ej_fc_get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static inline unsigned int ej_fc_get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

/* Add @ino to @set once; 0 or EJ_NO_MEMORY. */
errcode_t ej_fc_inos_add(struct ej_fc_inos *set, ext2_ino_t ino);
/* Block @b in use or free in the bitmap and the group counts. */
void ej_fc_mark_block(ext2_filsys fs, blk64_t b, int used);
/* Inode @ino in use or free in the bitmap and the group counts. */
void ej_fc_mark_inode(ext2_filsys fs, ext2_ino_t ino, int used, int dir);
/* Linked, or unlinked while open (on the orphan list). */
int ej_fc_inode_used(ext2_filsys fs, const struct ext2_inode *in);
/*
 * Delete inode @ino (@in, as read) as Linux does when its last link
 * goes: its blocks and xattr block released, no links, size 0, i_dtime
 * set, free in the inode bitmap.  Written.
 */
errcode_t ej_fc_drop_inode(struct ej_fcr *x, ext2_ino_t ino,
			   struct ext2_inode *in);
/*
 * ext2fs_punch() of logical blocks @start..@end of inode @ino (@in, or
 * read when NULL) that cannot fail on an i_blocks too small for the map.
 */
errcode_t ej_fc_punch(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
		      blk64_t start, blk64_t end);
/* Its blocks (map and xattr block) released, the inode not written. */
errcode_t ej_fc_release_blocks(struct ej_fcr *x, ext2_ino_t ino,
			       struct ext2_inode *in);
/* CREAT, LINK, UNLINK (fc_dentry.c).  *verdict: what became of it. */
errcode_t ej_fc_dentry(struct ej_fcr *x, unsigned int tag,
		       const unsigned char *v, unsigned int len, int *verdict);
/* The link count of every directory in x->recount from its entries. */
errcode_t ej_fc_recount_dirs(struct ej_fcr *x);

#endif /* EJ_FC_INT_H */
