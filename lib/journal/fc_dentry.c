// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_dentry.c: replay the name records of fast commits (CREAT, LINK,
 * UNLINK) and the link counts they change, with the results Linux gives
 * (POLICY.md "Fast commits").
 *
 * Link counts as Linux's replay leaves them: CREAT gives a file one
 * link, LINK adds one when it adds the name, UNLINK takes one away when
 * it removes the name, and an inode whose last link goes is deleted
 * there and then (its blocks released, free in the bitmap), as Linux's
 * eviction does; an INODE record after them sets the logged count.
 * Directories have no INODE record after their CREAT, so where Linux's
 * replay leaves counts short, here a new directory gets `.` and `..`, a
 * directory UNLINK that leaves it no other name removes it (rmdir), and
 * every directory that gained or lost a subdirectory has its link count
 * recounted from its entries at the end (ej_fc_recount_dirs()).
 *
 * A rerun after a power cut must end alike: UNLINK writes the inode
 * before it removes the name (a name left behind is removed without a
 * second decrement when its inode is already gone), and the directory
 * counts are recounted, not incremented.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ej_int.h"
#include "fc_int.h"

errcode_t ej_fc_release_blocks(struct ej_fcr *x, ext2_ino_t ino,
			       struct ext2_inode *in)
{
	ext2_filsys fs = x->fs;
	blk64_t acl = ext2fs_file_acl_block(fs, in);
	errcode_t err;

	if (ext2fs_inode_has_valid_blocks2(fs, in)) {
		err = ej_fc_punch(fs, ino, in, 0, 0xffffffffULL);
		if (err)
			return err;
	}
	if (in->i_flags & EXT4_EXTENTS_FL &&
	    !(in->i_flags & EXT4_INLINE_DATA_FL)) {
		struct ext3_extent_header *eh = (void *)in->i_block;

		/* an empty tree, without the stale slots a punch leaves */
		memset(in->i_block, 0, sizeof(in->i_block));
		eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
		eh->eh_max = ext2fs_cpu_to_le16((sizeof(in->i_block) -
				sizeof(*eh)) / sizeof(struct ext3_extent));
	}
	if (acl) {
		__u32 left = 1;

		/* a shared xattr block goes only with its last user */
		if (!ext2fs_adjust_ea_refcount3(fs, acl, NULL, -1, &left,
						ino) && !left)
			ej_fc_mark_block(fs, acl, 0);
		ext2fs_file_acl_block_set(fs, in, 0);
	}
	return ext2fs_iblk_set(fs, in, 0);
}

errcode_t ej_fc_drop_inode(struct ej_fcr *x, ext2_ino_t ino,
			   struct ext2_inode *in)
{
	ext2_filsys fs = x->fs;
	errcode_t err;

	err = ej_fc_release_blocks(x, ino, in);
	if (err)
		return err;
	in->i_links_count = 0;
	in->i_size = 0;
	in->i_size_high = 0;
	in->i_dtime = fs->now ? fs->now : time(NULL);
	err = ext2fs_write_inode(fs, ino, in);
	if (err)
		return err;
	ej_fc_mark_inode(fs, ino, 0, LINUX_S_ISDIR(in->i_mode));
	return 0;
}

/* A directory made by CREAT gets `.` and `..` when its block has none. */
static errcode_t init_dir(struct ej_fcr *x, ext2_ino_t dir, ext2_ino_t parent)
{
	ext2_filsys fs = x->fs;
	struct ext2_inode in;
	blk64_t blk = 0;
	char *buf = NULL;
	int flags = 0;
	errcode_t err;

	err = ext2fs_read_inode(fs, dir, &in);
	if (err || in.i_flags & EXT4_INLINE_DATA_FL)
		return err;
	err = ext2fs_bmap2(fs, dir, NULL, NULL, 0, 0, &flags, &blk);
	if (err)
		return err;
	if (blk) {
		struct ext2_dir_entry *de;

		err = ext2fs_get_mem(fs->blocksize, &buf);
		if (err)
			return err;
		err = ext2fs_read_dir_block4(fs, blk, buf, 0, dir);
		de = (struct ext2_dir_entry *)buf;
		if (!err && de->inode == dir &&
		    ext2fs_dirent_name_len(de) == 1 && de->name[0] == '.')
			goto out;
		ext2fs_free_mem(&buf);
	} else {
		err = ext2fs_new_block2(fs, ext2fs_find_inode_goal(fs, dir,
					&in, 0), NULL, &blk);
		if (err)
			return err;
	}
	err = ext2fs_new_dir_block(fs, dir, parent, &buf);
	if (!err)
		err = ext2fs_write_dir_block4(fs, blk, buf, 0, dir);
	if (!err)
		err = ext2fs_bmap2(fs, dir, NULL, NULL, BMAP_SET, 0, NULL,
				   &blk);
	if (err)
		goto out;
	ej_fc_mark_block(fs, blk, 1);
	err = ext2fs_read_inode(fs, dir, &in);
	if (!err && EXT2_I_SIZE(&in) < fs->blocksize) {
		ext2fs_inode_size_set(fs, &in, fs->blocksize);
		err = ext2fs_write_inode(fs, dir, &in);
	}
	if (!err)
		err = ej_fc_inos_add(&x->touched, dir);
out:
	ext2fs_free_mem(&buf);
	return err;
}

static int dirent_type(const struct ext2_inode *in)
{
	switch (in->i_mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG:	return EXT2_FT_REG_FILE;
	case LINUX_S_IFDIR:	return EXT2_FT_DIR;
	case LINUX_S_IFCHR:	return EXT2_FT_CHRDEV;
	case LINUX_S_IFBLK:	return EXT2_FT_BLKDEV;
	case LINUX_S_IFIFO:	return EXT2_FT_FIFO;
	case LINUX_S_IFSOCK:	return EXT2_FT_SOCK;
	case LINUX_S_IFLNK:	return EXT2_FT_SYMLINK;
	}
	return EXT2_FT_UNKNOWN;
}

struct other {
	ext2_ino_t	ino;
	const char	*name;
	unsigned int	nlen;
	int		found;
};

static int other_proc(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		      int offset, int blocksize, char *buf, void *priv)
{
	struct other *o = priv;

	(void)dir; (void)offset; (void)blocksize; (void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE ||
	    de->inode != o->ino)
		return 0;
	if (ext2fs_dirent_name_len(de) == o->nlen &&
	    !memcmp(de->name, o->name, o->nlen))
		return 0;
	o->found = 1;
	return DIRENT_ABORT;
}

/*
 * Does @dir hold a name for @ino other than @name?  A directory renamed
 * within its parent (LINK of the new name, then UNLINK of the old: Linux
 * logs no other directory rename) still has one; one removed has none.
 */
static errcode_t other_name(ext2_filsys fs, ext2_ino_t dir, ext2_ino_t ino,
			    const char *name, unsigned int nlen, int *found)
{
	struct other o = { ino, name, nlen, 0 };
	errcode_t err;

	err = ext2fs_dir_iterate2(fs, dir, 0, NULL, other_proc, &o);
	*found = o.found;
	return err;
}

static errcode_t do_unlink(struct ej_fcr *x, ext2_ino_t parent,
			   ext2_ino_t ino, const char *name, unsigned int nlen,
			   int *verdict)
{
	ext2_filsys fs = x->fs;
	struct ext2_inode in;
	ext2_ino_t found = 0;
	errcode_t err;
	int other;

	if (ext2fs_lookup(fs, parent, name, nlen, NULL, &found) ||
	    found != ino) {
		*verdict = EJ_FCR_NOTHING;
		return 0;
	}
	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	/* an inode already gone (a rerun): only its name is left */
	if (in.i_mode && in.i_links_count &&
	    ext2fs_test_inode_bitmap2(fs->inode_map, ino)) {
		if (LINUX_S_ISDIR(in.i_mode)) {
			err = other_name(fs, parent, ino, name, nlen, &other);
			if (!err && !other)
				err = ej_fc_drop_inode(x, ino, &in);
			if (!err)
				err = ej_fc_inos_add(&x->recount, parent);
		} else if (in.i_links_count > 1) {
			in.i_links_count--;
			err = ext2fs_write_inode(fs, ino, &in);
		} else {
			err = ej_fc_drop_inode(x, ino, &in);
		}
		if (err)
			return err;
	}
	err = ext2fs_unlink(fs, parent, name, ino, 0);
	if (err)
		return err;
	*verdict = EJ_FCR_REPLAYED;
	return 0;
}

/* The link count CREAT or LINK leaves a file with (not a directory). */
static errcode_t file_links(ext2_filsys fs, ext2_ino_t ino, unsigned int tag,
			    int added)
{
	struct ext2_inode in;
	errcode_t err;
	__u16 want;

	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (tag == EJ_FC_TAG_CREAT)
		want = 1;
	else if (added && in.i_links_count < EXT2_LINK_MAX)
		want = in.i_links_count + 1;
	else
		return 0;
	if (in.i_links_count == want)
		return 0;
	in.i_links_count = want;
	return ext2fs_write_inode(fs, ino, &in);
}

errcode_t ej_fc_dentry(struct ej_fcr *x, unsigned int tag,
		       const unsigned char *v, unsigned int len, int *verdict)
{
	ext2_filsys fs = x->fs;
	ext2_ino_t parent = ej_fc_get32(v), ino = ej_fc_get32(v + 4);
	ext2_ino_t found = 0;
	unsigned int nlen = len - EJ_FC_DENTRY_LEN;
	struct ext2_inode pin, in;
	char name[EJ_FC_NAME_MAX + 1];
	errcode_t err;
	int tries, added = 0;

	memcpy(name, v + EJ_FC_DENTRY_LEN, nlen);
	name[nlen] = 0;
	err = ext2fs_read_inode(fs, parent, &pin);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (!LINUX_S_ISDIR(pin.i_mode) || !pin.i_links_count ||
	    !ext2fs_test_inode_bitmap2(fs->inode_map, parent)) {
		*verdict = EJ_FCR_BAD_PARENT;
		return 0;
	}
	if (tag == EJ_FC_TAG_UNLINK)
		return do_unlink(x, parent, ino, name, nlen, verdict);
	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (tag == EJ_FC_TAG_LINK &&
	    (!ext2fs_test_inode_bitmap2(fs->inode_map, ino) || !in.i_mode)) {
		*verdict = EJ_FCR_NOT_IN_USE;
		return 0;
	}
	if (!ext2fs_lookup(fs, parent, name, nlen, NULL, &found)) {
		if (found == ino) {
			*verdict = EJ_FCR_NOTHING;
			goto counts;
		}
		err = ext2fs_unlink(fs, parent, name, found, 0);
		if (err)
			return err;
	}
	for (tries = 0; ; tries++) {
		err = ext2fs_link(fs, parent, name, ino, dirent_type(&in));
		if (err != EXT2_ET_DIR_NO_SPACE || tries)
			break;
		err = ext2fs_expand_dir(fs, parent);
		if (err)
			return err;
		err = ej_fc_inos_add(&x->touched, parent);
		if (err)
			return err;
	}
	if (!err)
		err = ej_fc_dx_clear(fs, parent, &pin);
	if (err)
		return err;
	added = 1;
	*verdict = EJ_FCR_REPLAYED;
counts:
	if (!LINUX_S_ISDIR(in.i_mode))
		return file_links(fs, ino, tag, added);
	/* a directory renamed within its parent changes no count */
	if (tag != EJ_FC_TAG_CREAT)
		return 0;
	err = init_dir(x, ino, parent);
	if (!err)
		err = ej_fc_inos_add(&x->recount, ino);
	if (!err)
		err = ej_fc_inos_add(&x->recount, parent);
	return err;
}

struct subdirs {
	ext2_filsys	fs;
	__u32		n;
	errcode_t	err;
};

static int subdir_proc(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		       int offset, int blocksize, char *buf, void *priv)
{
	struct subdirs *c = priv;
	struct ext2_inode in;
	errcode_t err;

	(void)dir; (void)offset; (void)blocksize; (void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE ||
	    !de->inode)
		return 0;
	if (ext2fs_has_feature_filetype(c->fs->super)) {
		if (ext2fs_dirent_file_type(de) == EXT2_FT_DIR)
			c->n++;
		return 0;
	}
	if (de->inode > c->fs->super->s_inodes_count)
		return 0;
	err = ext2fs_read_inode(c->fs, de->inode, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID) {
		c->err = err;
		return DIRENT_ABORT;
	}
	if (LINUX_S_ISDIR(in.i_mode))
		c->n++;
	return 0;
}

errcode_t ej_fc_recount_dirs(struct ej_fcr *x)
{
	ext2_filsys fs = x->fs;
	size_t i;

	for (i = 0; i < x->recount.n; i++) {
		ext2_ino_t dir = x->recount.v[i];
		struct subdirs c = { fs, 0, 0 };
		struct ext2_inode in;
		errcode_t err;
		__u32 want;

		err = ext2fs_read_inode(fs, dir, &in);
		if (err && err != EXT2_ET_INODE_CSUM_INVALID)
			return err;
		if (!LINUX_S_ISDIR(in.i_mode) || !in.i_links_count ||
		    !ext2fs_test_inode_bitmap2(fs->inode_map, dir))
			continue;
		err = ext2fs_dir_iterate2(fs, dir, 0, NULL, subdir_proc, &c);
		if (!err)
			err = c.err;
		/* a directory libext2fs cannot read keeps its count */
		if (err == EJ_NO_MEMORY || err == EXT2_ET_NO_MEMORY)
			return err;
		if (err)
			continue;
		want = 2 + c.n;
		if (want >= EXT2_LINK_MAX) {
			if (!ext2fs_has_feature_dir_nlink(fs->super))
				continue;
			want = 1;
		}
		if (in.i_links_count == want)
			continue;
		in.i_links_count = want;
		err = ext2fs_write_inode(fs, dir, &in);
		if (err)
			return err;
	}
	return 0;
}
