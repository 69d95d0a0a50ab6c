// SPDX-License-Identifier: GPL-2.0
/*
 * ej_show_type.c: what a filesystem block is, for "e2journal show": the
 * fixed metadata of its group (superblock, descriptors, bitmaps, inode
 * table) from the group descriptors, or which inode uses it and how
 * (data, directory, extent tree, indirect or xattr block) from a scan of
 * the inodes; and how that is said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ej_show.h"

/* Owner scan: inodes looked at before giving up (the scan reads them all). */
#define SCAN_MAX_INODES		(4UL << 20)

/* ------------------------------------------------------------------ */
/* What the block is                                                   */

/* The fixed metadata of group @g: superblocks, descriptors, bitmaps. */
static int classify_group(struct show_ctx *c, dgrp_t g)
{
	ext2_filsys fs = c->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t super, old_desc, new_desc, itable;
	unsigned long dpb = EXT2_DESC_PER_BLOCK(sb);
	blk64_t blk = c->blk, gdt_blocks;

	ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, NULL);
	if (ext2fs_bg_has_super(fs, g) && blk == super) {
		c->group = g;
		if (g == 0) {
			c->kind = K_SUPER;
			c->sb_offset = c->bs == 1024 ? 0 : SUPERBLOCK_OFFSET;
		} else {
			c->kind = K_BACKUP_SUPER;
			c->sb_offset = 0;
		}
		return 1;
	}
	if (old_desc) {
		gdt_blocks = ext2fs_has_feature_meta_bg(sb) ?
			     sb->s_first_meta_bg : fs->desc_blocks;
		if (blk >= old_desc && blk < old_desc + gdt_blocks) {
			c->kind = K_GDT;
			c->group = g;
			c->first_desc = (blk - old_desc) * dpb;
			return 1;
		}
		if (!ext2fs_has_feature_meta_bg(sb) && blk >= old_desc &&
		    blk < old_desc + gdt_blocks + sb->s_reserved_gdt_blocks) {
			c->kind = K_RESERVED_GDT;
			c->group = g;
			return 1;
		}
	}
	if (new_desc && blk == new_desc) {
		c->kind = K_GDT;
		c->group = g;
		c->first_desc = (g / dpb) * dpb;
		return 1;
	}
	if (blk == ext2fs_block_bitmap_loc(fs, g)) {
		c->kind = K_BLOCK_BITMAP;
		c->group = g;
		return 1;
	}
	if (blk == ext2fs_inode_bitmap_loc(fs, g)) {
		c->kind = K_INODE_BITMAP;
		c->group = g;
		return 1;
	}
	itable = ext2fs_inode_table_loc(fs, g);
	if (itable && blk >= itable &&
	    blk < itable + fs->inode_blocks_per_group) {
		c->kind = K_INODE_TABLE;
		c->group = g;
		c->first_ino = g * sb->s_inodes_per_group + 1 +
			       (ext2_ino_t)((blk - itable) *
					    (c->bs / EXT2_INODE_SIZE(sb)));
		return 1;
	}
	return 0;
}

struct ind_walk {
	blk64_t		want;
	e2_blkcnt_t	blockcnt;
	int		found;
};

static int ind_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		  blk64_t ref_blk, int ref_offset, void *priv)
{
	struct ind_walk *w = priv;

	if (*blocknr != w->want)
		return 0;
	w->found = 1;
	w->blockcnt = blockcnt;
	return BLOCK_ABORT;
}

/* Does inode @ino's extent tree hold @blk, as a node or as data? */
static int extent_owner(struct show_ctx *c, ext2_ino_t ino,
			struct ext2_inode *inode, struct owner *o)
{
	ext2_extent_handle_t h;
	struct ext2_extent_info info;
	struct ext2fs_extent ex;
	unsigned long guard;
	int op = EXT2_EXTENT_ROOT, found = 0;

	if (ext2fs_extent_open2(c->fs, ino, inode, &h))
		return 0;
	/* a damaged tree must not keep us here forever */
	for (guard = 0; guard < (1UL << 24); guard++, op = EXT2_EXTENT_NEXT) {
		if (ext2fs_extent_get(h, op, &ex))
			break;
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			if (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT ||
			    ex.e_pblk != c->blk)
				continue;
			o->kind = OWN_EXTENT;
			if (!ext2fs_extent_get_info(h, &info)) {
				o->level = info.curr_level + 1;
				o->max_depth = info.max_depth;
			}
			o->lblk = ex.e_lblk;
			found = 1;
			break;
		}
		if (c->blk >= ex.e_pblk && c->blk < ex.e_pblk + ex.e_len) {
			o->kind = OWN_DATA;
			o->lblk = ex.e_lblk + (c->blk - ex.e_pblk);
			o->uninit = !!(ex.e_flags & EXT2_EXTENT_FLAGS_UNINIT);
			found = 1;
			break;
		}
	}
	ext2fs_extent_free(h);
	return found;
}

static int indirect_owner(struct show_ctx *c, ext2_ino_t ino,
			  struct owner *o)
{
	struct ind_walk w = { .want = c->blk };

	if (ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				  ind_cb, &w) || !w.found)
		return 0;
	if (w.blockcnt >= 0) {
		o->kind = OWN_DATA;
		o->lblk = (blk64_t)w.blockcnt;
	} else {
		o->kind = OWN_INDIRECT;
		o->level = w.blockcnt == BLOCK_COUNT_IND ? 1 :
			   w.blockcnt == BLOCK_COUNT_DIND ? 2 : 3;
	}
	return 1;
}

/* Which inode, if any, uses the block: scan the inode table. */
static void find_owner(struct show_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct owner *o = &c->own;
	struct ext2_inode_large large;
	struct ext2_inode *inode = (struct ext2_inode *)&large;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	int isize = sizeof(large);

	memset(o, 0, sizeof(*o));
	if (EXT2_INODE_SIZE(fs->super) < isize)
		isize = EXT2_INODE_SIZE(fs->super);
	if (ext2fs_open_inode_scan(fs, 0, &scan))
		return;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	for (;;) {
		errcode_t err;

		memset(&large, 0, sizeof(large));
		err = ext2fs_get_next_inode_full(scan, &ino, inode, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err || !ino)
			break;
		if (++o->scanned > SCAN_MAX_INODES) {
			o->capped = 1;
			break;
		}
		if (ino >= EXT2_FIRST_INO(fs->super) &&
		    (!inode->i_links_count || inode->i_dtime))
			continue;
		if (!ext2fs_get_stat_i_blocks(fs, inode))
			continue;
		if (ext2fs_file_acl_block(fs, inode) == c->blk) {
			o->kind = OWN_XATTR;
		} else if (inode->i_flags & EXT4_INLINE_DATA_FL ||
			   (!LINUX_S_ISREG(inode->i_mode) &&
			    !LINUX_S_ISDIR(inode->i_mode) &&
			    !LINUX_S_ISLNK(inode->i_mode) &&
			    ino != EXT2_BAD_INO) ||
			   ext2fs_is_fast_symlink(inode)) {
			continue;
		} else if (inode->i_flags & EXT4_EXTENTS_FL) {
			if (!extent_owner(c, ino, inode, o))
				continue;
		} else if (!indirect_owner(c, ino, o)) {
			continue;
		}
		o->ino = ino;
		o->inode = large;
		break;
	}
	ext2fs_close_inode_scan(scan);
}

void show_classify(struct show_ctx *c)
{
	ext2_filsys fs = c->fs;
	dgrp_t g;

	c->in_use = -1;
	if (c->blk >= ext2fs_blocks_count(fs->super)) {
		c->kind = K_OUTSIDE;
		return;
	}
	if (c->blk < fs->super->s_first_data_block) {
		c->kind = K_BOOT;
		return;
	}
	for (g = 0; g < fs->group_desc_count; g++) {
		if (classify_group(c, g))
			return;
	}
	if (!ext2fs_read_block_bitmap(fs))
		c->in_use = !!ext2fs_test_block_bitmap2(fs->block_map,
							c->blk);
	find_owner(c);
	switch (c->own.kind) {
	case OWN_EXTENT:
		c->kind = K_EXTENT;
		break;
	case OWN_INDIRECT:
		c->kind = K_INDIRECT;
		break;
	case OWN_XATTR:
		c->kind = K_XATTR;
		break;
	case OWN_DATA:
		if (c->own.ino == fs->super->s_journal_inum)
			c->kind = K_JOURNAL;
		else if (LINUX_S_ISDIR(c->own.inode.i_mode))
			c->kind = K_DIR;
		else
			c->kind = K_DATA;
		break;
	default:
		c->kind = c->in_use == 0 ? K_FREE : K_UNKNOWN;
	}
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

const char *show_file_type(unsigned int mode)
{
	switch (mode & LINUX_S_IFMT) {
	case LINUX_S_IFREG:
		return "regular file";
	case LINUX_S_IFDIR:
		return "directory";
	case LINUX_S_IFLNK:
		return "symlink";
	case LINUX_S_IFCHR:
		return "character device";
	case LINUX_S_IFBLK:
		return "block device";
	case LINUX_S_IFIFO:
		return "fifo";
	case LINUX_S_IFSOCK:
		return "socket";
	case 0:
		return "unused";
	}
	return "unknown type";
}

static const char *special_inode(ext2_filsys fs, ext2_ino_t ino)
{
	if (ino == fs->super->s_journal_inum)
		return "the journal";
	switch (ino) {
	case EXT2_BAD_INO:
		return "the bad blocks inode";
	case EXT2_ROOT_INO:
		return "/";
	case EXT4_USR_QUOTA_INO:
		return "user quota";
	case EXT4_GRP_QUOTA_INO:
		return "group quota";
	case EXT2_BOOT_LOADER_INO:
		return "boot loader";
	case EXT2_UNDEL_DIR_INO:
		return "undelete directory";
	case EXT2_RESIZE_INO:
		return "the resize inode";
	}
	if (ino == fs->super->s_orphan_file_inum)
		return "the orphan file";
	return NULL;
}

/* "inode 12 (/a/dir, directory)" */
static void print_inode_name(struct show_ctx *c, ext2_ino_t ino,
			     unsigned int mode)
{
	const char *special = special_inode(c->fs, ino);
	char *path = NULL;

	fprintf(c->out, "inode %u", ino);
	if (special) {
		fprintf(c->out, " (%s)", special);
		return;
	}
	/* a directory knows its own name through ".."; a file does not */
	if (LINUX_S_ISDIR(mode) &&
	    !ext2fs_get_pathname(c->fs, ino, 0, &path) && path) {
		fprintf(c->out, " (%s)", path);
		ext2fs_free_mem(&path);
		return;
	}
	fprintf(c->out, " (%s)", show_file_type(mode));
}

void show_print_type(struct show_ctx *c)
{
	struct ext2_super_block *sb = c->fs->super;
	struct owner *o = &c->own;
	FILE *out = c->out;
	unsigned long last;

	fputs("Type: ", out);
	switch (c->kind) {
	case K_OUTSIDE:
		fprintf(out, "outside the filesystem (%llu blocks)\n",
			(unsigned long long)ext2fs_blocks_count(sb));
		return;
	case K_BOOT:
		fputs("boot block (before the superblock)\n", out);
		return;
	case K_SUPER:
		fprintf(out, "superblock (primary, at byte %u of the block)\n",
			c->sb_offset);
		return;
	case K_BACKUP_SUPER:
		fprintf(out, "superblock (backup, group %u)\n", c->group);
		return;
	case K_GDT:
		last = c->first_desc + EXT2_DESC_PER_BLOCK(sb) - 1;
		if (last >= c->fs->group_desc_count)
			last = c->fs->group_desc_count - 1;
		fprintf(out,
			"group descriptors of groups %lu-%lu (%s copy in group %u)\n",
			c->first_desc, last,
			c->group ? "backup" : "primary", c->group);
		return;
	case K_RESERVED_GDT:
		fprintf(out,
			"reserved GDT block (for online resize; group %u)\n",
			c->group);
		return;
	case K_BLOCK_BITMAP:
		fprintf(out, "block bitmap of group %u\n", c->group);
		return;
	case K_INODE_BITMAP:
		fprintf(out, "inode bitmap of group %u\n", c->group);
		return;
	case K_INODE_TABLE:
		fprintf(out, "inode table block of group %u (inodes %u-%u)\n",
			c->group, c->first_ino, c->first_ino +
			c->bs / EXT2_INODE_SIZE(sb) - 1);
		return;
	case K_DIR:
		fputs("directory block of ", out);
		print_inode_name(c, o->ino, o->inode.i_mode);
		fprintf(out, ", logical block %llu\n",
			(unsigned long long)o->lblk);
		return;
	case K_EXTENT:
		fputs("extent tree block of ", out);
		print_inode_name(c, o->ino, o->inode.i_mode);
		fprintf(out, ", level %d of %d, from logical block %llu\n",
			o->level, o->max_depth, (unsigned long long)o->lblk);
		return;
	case K_INDIRECT:
		fprintf(out, "%s indirect block of ", o->level == 1 ? "single" :
			o->level == 2 ? "double" : "triple");
		print_inode_name(c, o->ino, o->inode.i_mode);
		fputc('\n', out);
		return;
	case K_XATTR:
		fputs("extended attribute block of ", out);
		print_inode_name(c, o->ino, o->inode.i_mode);
		fputc('\n', out);
		return;
	case K_DATA:
		fputs("data block of ", out);
		print_inode_name(c, o->ino, o->inode.i_mode);
		fprintf(out, ", logical block %llu%s\n",
			(unsigned long long)o->lblk,
			o->uninit ? " (unwritten extent)" : "");
		return;
	case K_JOURNAL:
		fprintf(out, "the journal (inode %u), journal block %llu\n",
			o->ino, (unsigned long long)o->lblk);
		return;
	case K_FREE:
		fputs("free space (not in use in the block bitmap)\n", out);
		return;
	}
	fprintf(out, "in use, owner not found (%lu inodes scanned%s)\n",
		o->scanned, o->capped ? ", scan capped" : "");
}
