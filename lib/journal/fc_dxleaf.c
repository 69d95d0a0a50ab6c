// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_dxleaf.c: zero the bytes libext2fs leaves unset in a split htree
 * leaf, after a fast-commit LINK or CREAT.
 *
 * When ext2fs_link() finds the leaf of an indexed directory full, its
 * dx_split_leaf() (libext2fs 1.47.0, unchanged in master) repacks the
 * leaf's entries into two blocks built in a buffer it never clears: past
 * the last entry's name, up to the checksum tail, each of the two blocks
 * holds whatever the heap held before.  Those bytes reach the disk and
 * the block's checksum, so two runs of one replay (replay-all and
 * refuse, or a rerun) write different blocks, and process memory lands
 * in the filesystem.  After a link that grew such a directory, the
 * replay zeroes that slack in the new leaf and in the leaf it split.
 */
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"
#include "ej_fc.h"

/* The index entries start here in the root block (after `.`, `..`). */
#define DX_ROOT_INFO	24
/* and here in an interior node (after its empty dirent) */
#define DX_NODE_ENTRIES	8
#define DX_MAX_DEPTH	3

static errcode_t read_lblk(ext2_filsys fs, ext2_ino_t dir,
			   struct ext2_inode *in, blk64_t lblk, blk64_t *pblk,
			   void *buf)
{
	errcode_t err;

	err = ext2fs_bmap2(fs, dir, in, NULL, 0, lblk, NULL, pblk);
	if (err)
		return err;
	if (!*pblk)
		return EXT2_ET_DIR_CORRUPTED;
	return io_channel_read_blk64(fs->io, *pblk, 1, buf);
}

/*
 * Below the index node @buf (entries at @off, @depth levels above the
 * leaves), the leaf pointed to just before the pointer to @target: the
 * leaf a split moved entries from into @target (libext2fs inserts the
 * new pointer right after the old one).  *@prev stays 0 when none is.
 */
static errcode_t split_from(ext2_filsys fs, ext2_ino_t dir,
			    struct ext2_inode *in, const unsigned char *buf,
			    unsigned int off, unsigned int depth,
			    __u32 target, __u32 *prev)
{
	const struct ext2_dx_countlimit *cl;
	const struct ext2_dx_entry *e;
	unsigned char *child = NULL;
	unsigned int i, count;
	errcode_t err = 0;
	blk64_t pblk;

	if (off + sizeof(*cl) > fs->blocksize)
		return 0;
	cl = (const struct ext2_dx_countlimit *)(buf + off);
	e = (const struct ext2_dx_entry *)(buf + off);
	count = ext2fs_le16_to_cpu(cl->count);
	if (off + count * sizeof(*e) > fs->blocksize)
		return 0;
	for (i = 0; i < count && !*prev; i++) {
		__u32 b = ext2fs_le32_to_cpu(e[i].block) & 0x0fffffff;

		if (!depth) {
			if (b == target && i)
				*prev = ext2fs_le32_to_cpu(e[i - 1].block) &
					0x0fffffff;
			continue;
		}
		if (!child) {
			err = ext2fs_get_mem(fs->blocksize, &child);
			if (err)
				return err;
		}
		err = read_lblk(fs, dir, in, b, &pblk, child);
		if (err)
			break;
		err = split_from(fs, dir, in, child, DX_NODE_ENTRIES,
				 depth - 1, target, prev);
		if (err)
			break;
	}
	ext2fs_free_mem(&child);
	return err;
}

/* Zero the slack after the last entry's name in leaf @lblk. */
static errcode_t clear_slack(ext2_filsys fs, ext2_ino_t dir,
			     struct ext2_inode *in, blk64_t lblk,
			     unsigned char *buf)
{
	unsigned int end = fs->blocksize, off, rec_len = 0, used, i;
	struct ext2_dir_entry *de = NULL;
	blk64_t pblk;
	errcode_t err;

	if (ext2fs_has_feature_metadata_csum(fs->super))
		end -= sizeof(struct ext2_dir_entry_tail);
	err = read_lblk(fs, dir, in, lblk, &pblk, buf);
	if (err)
		return err;
	for (off = 0; off < end; off += rec_len) {
		de = (struct ext2_dir_entry *)(buf + off);
		if (ext2fs_get_rec_len(fs, de, &rec_len) || rec_len < 8 ||
		    off + rec_len > end)
			return 0;	/* an index node, or not a leaf we wrote */
		if (off + rec_len == end)
			break;
	}
	/* an index node's empty entry, or a leaf that ends empty */
	if (off >= end || !de->inode)
		return 0;
	used = off + ((8 + ext2fs_dirent_name_len(de) + 3) & ~3U);
	for (i = used; i < end && !buf[i]; i++)
		;
	if (i >= end)
		return 0;
	memset(buf + used, 0, end - used);
	return ext2fs_write_dir_block4(fs, pblk, buf, 0, dir);
}

errcode_t ej_fc_dx_clear(ext2_filsys fs, ext2_ino_t dir,
			 const struct ext2_inode *before)
{
	unsigned int bs = fs->blocksize, depth, info_len;
	struct ext2_inode in;
	unsigned char *buf = NULL, *root = NULL;
	blk64_t lblk, pblk;
	__u32 prev;
	errcode_t err;

	if (!(before->i_flags & EXT2_INDEX_FL))
		return 0;
	err = ext2fs_read_inode(fs, dir, &in);
	if (err)
		return err;
	if (!(in.i_flags & EXT2_INDEX_FL) ||
	    EXT2_I_SIZE(&in) / bs <= EXT2_I_SIZE(before) / bs)
		return 0;
	err = ext2fs_get_mem(bs, &buf);
	if (!err)
		err = ext2fs_get_mem(bs, &root);
	if (!err)
		err = read_lblk(fs, dir, &in, 0, &pblk, root);
	if (err)
		goto out;
	info_len = root[DX_ROOT_INFO + 5];
	depth = root[DX_ROOT_INFO + 6];
	if (depth >= DX_MAX_DEPTH)
		goto out;
	for (lblk = EXT2_I_SIZE(before) / bs; lblk < EXT2_I_SIZE(&in) / bs;
	     lblk++) {
		err = clear_slack(fs, dir, &in, lblk, buf);
		if (err)
			break;
		prev = 0;
		err = split_from(fs, dir, &in, root, DX_ROOT_INFO + info_len,
				 depth, lblk, &prev);
		if (!err && prev)
			err = clear_slack(fs, dir, &in, prev, buf);
		if (err)
			break;
	}
out:
	ext2fs_free_mem(&buf);
	ext2fs_free_mem(&root);
	return err;
}
