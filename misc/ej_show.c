// SPDX-License-Identifier: GPL-2.0
/*
 * ej_show.c: e2journal show IMAGE [TID:]BLOCK [-j JOURNAL] [--from SAVED]
 *
 * Before a person forces or skips a logged block, they need to know what
 * it is: a superblock, group descriptors, a bitmap, part of the inode
 * table, a directory, an extent tree node, somebody's data, free space.
 * This command finds that out with libext2fs from the filesystem's own
 * metadata (the group descriptors for the fixed structures, a scan of the
 * inodes for owners), decodes the block, and with TID compares the
 * version logged in that transaction against the block on disk: which
 * bytes differ and, where the type is known, which fields, bits, inodes
 * or directory entries.
 *
 * The version is found the way replay would find it: a dry run of
 * recovery (nothing written) yields every logged block with its
 * transaction, journal block and verdict.  Nothing is ever written: the
 * image is opened read-only and the journal with EJ_OPEN_READONLY.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"

/* Owner scan: inodes looked at before giving up (the scan reads them all). */
#define SCAN_MAX_INODES		(4UL << 20)
/* How much of a long difference is printed. */
#define MAX_RANGES		16
#define MAX_ITEMS		32

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

/* ------------------------------------------------------------------ */
/* Little-endian fields of a raw block                                 */

static unsigned long long get_le(const void *p, unsigned int size)
{
	const unsigned char *c = p;
	unsigned long long v = 0;

	while (size--)
		v = (v << 8) | c[size];
	return v;
}

static unsigned int le16(const char *p)
{
	return (unsigned int)get_le(p, 2);
}

static unsigned int le32(const char *p)
{
	return (unsigned int)get_le(p, 4);
}

/* ------------------------------------------------------------------ */
/* Field tables: what a byte offset means in a superblock, descriptor,  */
/* inode                                                              */

#define F_DEC	0
#define F_HEX	1
#define F_OCT	2
#define F_RAW	3	/* arrays: say "changed" */

struct field {
	unsigned int	off;
	unsigned int	size;
	const char	*name;
	int		fmt;
};

#define SBF(m, f) { offsetof(struct ext2_super_block, m), \
		    sizeof(((struct ext2_super_block *)0)->m), #m, f }
static const struct field sb_fields[] = {
	SBF(s_inodes_count, F_DEC),
	SBF(s_blocks_count, F_DEC),
	SBF(s_r_blocks_count, F_DEC),
	SBF(s_free_blocks_count, F_DEC),
	SBF(s_free_inodes_count, F_DEC),
	SBF(s_first_data_block, F_DEC),
	SBF(s_log_block_size, F_DEC),
	SBF(s_log_cluster_size, F_DEC),
	SBF(s_blocks_per_group, F_DEC),
	SBF(s_clusters_per_group, F_DEC),
	SBF(s_inodes_per_group, F_DEC),
	SBF(s_mtime, F_DEC),
	SBF(s_wtime, F_DEC),
	SBF(s_mnt_count, F_DEC),
	SBF(s_max_mnt_count, F_DEC),
	SBF(s_magic, F_HEX),
	SBF(s_state, F_HEX),
	SBF(s_errors, F_DEC),
	SBF(s_minor_rev_level, F_DEC),
	SBF(s_lastcheck, F_DEC),
	SBF(s_checkinterval, F_DEC),
	SBF(s_creator_os, F_DEC),
	SBF(s_rev_level, F_DEC),
	SBF(s_def_resuid, F_DEC),
	SBF(s_def_resgid, F_DEC),
	SBF(s_first_ino, F_DEC),
	SBF(s_inode_size, F_DEC),
	SBF(s_block_group_nr, F_DEC),
	SBF(s_feature_compat, F_HEX),
	SBF(s_feature_incompat, F_HEX),
	SBF(s_feature_ro_compat, F_HEX),
	SBF(s_uuid, F_RAW),
	SBF(s_volume_name, F_RAW),
	SBF(s_last_mounted, F_RAW),
	SBF(s_algorithm_usage_bitmap, F_HEX),
	SBF(s_prealloc_blocks, F_DEC),
	SBF(s_prealloc_dir_blocks, F_DEC),
	SBF(s_reserved_gdt_blocks, F_DEC),
	SBF(s_journal_uuid, F_RAW),
	SBF(s_journal_inum, F_DEC),
	SBF(s_journal_dev, F_HEX),
	SBF(s_last_orphan, F_DEC),
	SBF(s_hash_seed, F_RAW),
	SBF(s_def_hash_version, F_DEC),
	SBF(s_jnl_backup_type, F_DEC),
	SBF(s_desc_size, F_DEC),
	SBF(s_default_mount_opts, F_HEX),
	SBF(s_first_meta_bg, F_DEC),
	SBF(s_mkfs_time, F_DEC),
	SBF(s_jnl_blocks, F_RAW),
	SBF(s_blocks_count_hi, F_DEC),
	SBF(s_r_blocks_count_hi, F_DEC),
	SBF(s_free_blocks_hi, F_DEC),
	SBF(s_min_extra_isize, F_DEC),
	SBF(s_want_extra_isize, F_DEC),
	SBF(s_flags, F_HEX),
	SBF(s_raid_stride, F_DEC),
	SBF(s_mmp_update_interval, F_DEC),
	SBF(s_mmp_block, F_DEC),
	SBF(s_raid_stripe_width, F_DEC),
	SBF(s_log_groups_per_flex, F_DEC),
	SBF(s_checksum_type, F_DEC),
	SBF(s_kbytes_written, F_DEC),
	SBF(s_error_count, F_DEC),
	SBF(s_first_error_time, F_DEC),
	SBF(s_last_error_time, F_DEC),
	SBF(s_overhead_clusters, F_DEC),
	SBF(s_lpf_ino, F_DEC),
	SBF(s_checksum_seed, F_HEX),
	SBF(s_orphan_file_inum, F_DEC),
	SBF(s_checksum, F_HEX),
};

#define GDF(m, f) { offsetof(struct ext4_group_desc, m), \
		    sizeof(((struct ext4_group_desc *)0)->m), #m, f }
static const struct field gd_fields[] = {
	GDF(bg_block_bitmap, F_DEC),
	GDF(bg_inode_bitmap, F_DEC),
	GDF(bg_inode_table, F_DEC),
	GDF(bg_free_blocks_count, F_DEC),
	GDF(bg_free_inodes_count, F_DEC),
	GDF(bg_used_dirs_count, F_DEC),
	GDF(bg_flags, F_HEX),
	GDF(bg_exclude_bitmap_lo, F_DEC),
	GDF(bg_block_bitmap_csum_lo, F_HEX),
	GDF(bg_inode_bitmap_csum_lo, F_HEX),
	GDF(bg_itable_unused, F_DEC),
	GDF(bg_checksum, F_HEX),
	GDF(bg_block_bitmap_hi, F_DEC),
	GDF(bg_inode_bitmap_hi, F_DEC),
	GDF(bg_inode_table_hi, F_DEC),
	GDF(bg_free_blocks_count_hi, F_DEC),
	GDF(bg_free_inodes_count_hi, F_DEC),
	GDF(bg_used_dirs_count_hi, F_DEC),
	GDF(bg_itable_unused_hi, F_DEC),
	GDF(bg_exclude_bitmap_hi, F_DEC),
	GDF(bg_block_bitmap_csum_hi, F_HEX),
	GDF(bg_inode_bitmap_csum_hi, F_HEX),
};

#define INF(m, n, f) { offsetof(struct ext2_inode_large, m), \
		       sizeof(((struct ext2_inode_large *)0)->m), n, f }
static const struct field inode_fields[] = {
	INF(i_mode, "mode", F_OCT),
	INF(i_uid, "uid", F_DEC),
	INF(i_size, "size", F_DEC),
	INF(i_atime, "atime", F_DEC),
	INF(i_ctime, "ctime", F_DEC),
	INF(i_mtime, "mtime", F_DEC),
	INF(i_dtime, "dtime", F_DEC),
	INF(i_gid, "gid", F_DEC),
	INF(i_links_count, "links", F_DEC),
	INF(i_blocks, "blocks", F_DEC),
	INF(i_flags, "flags", F_HEX),
	INF(osd1, "version", F_DEC),
	INF(i_block, "block map/extent root", F_RAW),
	INF(i_generation, "generation", F_DEC),
	INF(i_file_acl, "file_acl", F_DEC),
	INF(i_size_high, "size_high", F_DEC),
	INF(i_faddr, "faddr", F_DEC),
	INF(osd2.linux2.l_i_blocks_hi, "blocks_hi", F_DEC),
	INF(osd2.linux2.l_i_file_acl_high, "file_acl_high", F_DEC),
	INF(osd2.linux2.l_i_uid_high, "uid_high", F_DEC),
	INF(osd2.linux2.l_i_gid_high, "gid_high", F_DEC),
	INF(osd2.linux2.l_i_checksum_lo, "checksum_lo", F_HEX),
	INF(i_extra_isize, "extra_isize", F_DEC),
	INF(i_checksum_hi, "checksum_hi", F_HEX),
	INF(i_ctime_extra, "ctime_extra", F_HEX),
	INF(i_mtime_extra, "mtime_extra", F_HEX),
	INF(i_atime_extra, "atime_extra", F_HEX),
	INF(i_crtime, "crtime", F_DEC),
	INF(i_crtime_extra, "crtime_extra", F_HEX),
	INF(i_version_hi, "version_hi", F_DEC),
	INF(i_projid, "projid", F_DEC),
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static void print_value(FILE *out, const char *p, const struct field *f)
{
	unsigned long long v = get_le(p, f->size);

	switch (f->fmt) {
	case F_HEX:
		fprintf(out, "0x%llx", v);
		break;
	case F_OCT:
		fprintf(out, v ? "0%llo" : "0", v);
		break;
	default:
		fprintf(out, "%llu", v);
	}
}

/*
 * Print the fields of a structure at @old/@new (both @len bytes long) that
 * differ, one line each under @prefix; returns how many differed.
 */
static int diff_fields(FILE *out, const char *prefix, const struct field *t,
		       size_t nr, const char *old, const char *new,
		       unsigned int len)
{
	unsigned int covered = 0;
	int n = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct field *f = &t[i];

		if (f->off + f->size > len)
			continue;
		if (f->off + f->size > covered)
			covered = f->off + f->size;
		if (!memcmp(old + f->off, new + f->off, f->size))
			continue;
		n++;
		fprintf(out, "%s%s: ", prefix, f->name);
		if (f->fmt == F_RAW || f->size > 8) {
			fprintf(out, "changed\n");
			continue;
		}
		print_value(out, old + f->off, f);
		fputs(" -> ", out);
		print_value(out, new + f->off, f);
		fputc('\n', out);
	}
	if (covered < len && memcmp(old + covered, new + covered,
				    len - covered)) {
		fprintf(out, "%sbytes %u-%u (no named field): changed\n",
			prefix, covered, len - 1);
		n++;
	}
	return n;
}

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

static void classify(struct show_ctx *c)
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

static const char *file_type(unsigned int mode)
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
	fprintf(c->out, " (%s)", file_type(mode));
}

static void print_type(struct show_ctx *c)
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

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

static void describe_inode(struct show_ctx *c, const char *raw,
			   ext2_ino_t ino, const char *indent)
{
	unsigned int mode = le16(raw), flags = le32(raw + 0x20);
	unsigned long long size, blocks;
	const char *ib = raw + 0x28;
	FILE *out = c->out;

	size = le32(raw + 4) | ((unsigned long long)le32(raw + 0x6c) << 32);
	blocks = le32(raw + 0x1c) |
		 ((unsigned long long)le16(raw + 0x74) << 32);
	fprintf(out, "%sinode %u: ", indent, ino);
	if (!mode && !le16(raw + 0x1a)) {
		fprintf(out, "unused%s\n", le32(raw + 0x14) ?
			" (deleted)" : "");
		return;
	}
	fprintf(out,
		"mode 0%o (%s), links %u, size %llu, blocks %llu, flags 0x%x",
		mode, file_type(mode), le16(raw + 0x1a), size,
		blocks, flags);
	if (le32(raw + 0x14))
		fprintf(out, ", dtime %u", le32(raw + 0x14));
	if (flags & EXT4_INLINE_DATA_FL) {
		fputs(", inline data", out);
	} else if (flags & EXT4_EXTENTS_FL) {
		if (le16(ib) == EXT3_EXT_MAGIC)
			fprintf(out,
				", extent header: %u entries, max %u, depth %u",
				le16(ib + 2), le16(ib + 4),
				le16(ib + 6));
		else
			fprintf(out, ", extent header BAD magic 0x%04x",
				le16(ib));
	} else if (LINUX_S_ISLNK(mode) && !blocks) {
		fputs(", fast symlink", out);
	} else if (LINUX_S_ISREG(mode) || LINUX_S_ISDIR(mode) ||
		   LINUX_S_ISLNK(mode)) {
		fprintf(out, ", block[0] %u", le32(ib));
	}
	fputc('\n', out);
}

/* One directory entry as parsed from a block. */
struct dentry {
	unsigned int	ino;
	unsigned int	type;
	unsigned int	name_len;
	char		name[EXT2_NAME_LEN + 1];
};

/*
 * Parse the entries of directory block @b into *ents (malloc'ed);
 * returns how many, and sets *bad when the chain of rec_len breaks.
 */
static size_t parse_dir(struct show_ctx *c, const char *b,
			struct dentry **ents, int *bad)
{
	int filetype = ext2fs_has_feature_filetype(c->fs->super);
	unsigned int off = 0, rec_len;
	struct dentry *e = NULL;
	size_t n = 0, max = 0;

	*bad = 0;
	while (off + 8 <= c->bs) {
		unsigned int ino = le32(b + off), name_len;

		rec_len = le16(b + off + 4);
		/* 64 KiB blocks keep 65536 as 0 or 65535 */
		if (c->bs >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = c->bs;
		name_len = filetype ? (unsigned char)b[off + 6] :
				      le16(b + off + 6);
		if (rec_len < 8 || rec_len % 4 || off + rec_len > c->bs ||
		    name_len + 8 > rec_len) {
			*bad = 1;
			break;
		}
		if (ino && name_len) {
			if (n == max) {
				struct dentry *p;

				max = max ? max * 2 : 32;
				p = realloc(e, max * sizeof(*e));
				if (!p)
					break;
				e = p;
			}
			e[n].ino = ino;
			e[n].type = filetype ? (unsigned char)b[off + 7] : 0;
			e[n].name_len = name_len;
			memcpy(e[n].name, b + off + 8, name_len);
			e[n].name[name_len] = 0;
			n++;
		}
		off += rec_len;
	}
	*ents = e;
	return n;
}

static const char *dirent_type(unsigned int t)
{
	static const char *const names[] = {
		"unknown", "file", "dir", "chardev", "blockdev", "fifo",
		"socket", "symlink"
	};

	return t < NR(names) ? names[t] : "?";
}

static void print_name(FILE *out, const struct dentry *d)
{
	unsigned int i;

	fputc('"', out);
	for (i = 0; i < d->name_len; i++) {
		unsigned char ch = (unsigned char)d->name[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			fprintf(out, "\\x%02x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void describe_dir(struct show_ctx *c, const char *b, const char *what)
{
	struct dentry *e;
	size_t n, i;
	int bad;

	n = parse_dir(c, b, &e, &bad);
	fprintf(c->out, "Directory entries (%s): %zu%s\n", what, n,
		bad ? ", then a broken rec_len chain" : "");
	if (!n && le32(b) == 0 && le16(b + 4) == c->bs)
		fputs("  (an htree index node: one empty entry)\n", c->out);
	for (i = 0; i < n && i < MAX_ITEMS * 4; i++) {
		fprintf(c->out, "  %10u  %-8s ", e[i].ino,
			dirent_type(e[i].type));
		print_name(c->out, &e[i]);
		fputc('\n', c->out);
	}
	if (i < n)
		fprintf(c->out, "  ... %zu more\n", n - i);
	free(e);
}

static int dentry_in(const struct dentry *d, const struct dentry *set,
		     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (set[i].ino == d->ino && set[i].name_len == d->name_len &&
		    !memcmp(set[i].name, d->name, d->name_len))
			return 1;
	}
	return 0;
}

static void diff_dir(struct show_ctx *c)
{
	struct dentry *a, *b;
	size_t na, nb, i;
	int bad_a, bad_b, changes = 0;

	na = parse_dir(c, c->disk, &a, &bad_a);
	nb = parse_dir(c, c->logged, &b, &bad_b);
	fputs("Directory entries the logged version adds (+), removes (-):\n",
	      c->out);
	for (i = 0; i < nb; i++) {
		if (dentry_in(&b[i], a, na))
			continue;
		fprintf(c->out, "  + %10u  %-8s ", b[i].ino,
			dirent_type(b[i].type));
		print_name(c->out, &b[i]);
		fputc('\n', c->out);
		changes++;
	}
	for (i = 0; i < na; i++) {
		if (dentry_in(&a[i], b, nb))
			continue;
		fprintf(c->out, "  - %10u  %-8s ", a[i].ino,
			dirent_type(a[i].type));
		print_name(c->out, &a[i]);
		fputc('\n', c->out);
		changes++;
	}
	if (!changes)
		fputs("  none (only the layout or unused space differs)\n",
		      c->out);
	if (bad_b)
		fputs("  the logged version's rec_len chain is broken\n",
		      c->out);
	free(a);
	free(b);
}

static void describe_extent_block(struct show_ctx *c, const char *b,
				  const char *what)
{
	unsigned int magic = le16(b), entries = le16(b + 2);
	unsigned int max = le16(b + 4), depth = le16(b + 6), i;
	FILE *out = c->out;

	fprintf(out,
		"Extent node (%s): magic 0x%04x%s, %u entries, max %u, depth %u\n",
		what, magic, magic == EXT3_EXT_MAGIC ? "" :
		" (BAD)", entries, max, depth);
	if (magic != EXT3_EXT_MAGIC)
		return;
	for (i = 0; i < entries && 12 + (i + 1) * 12 <= c->bs; i++) {
		const char *x = b + 12 + i * 12;

		if (i == MAX_ITEMS) {
			fprintf(out, "  ... %u more\n", entries - i);
			break;
		}
		if (depth) {
			fprintf(out, "  index: logical %u -> node block %llu\n",
				le32(x), (unsigned long long)le32(x + 4) |
				((unsigned long long)le16(x + 8) << 32));
		} else {
			unsigned int len = le16(x + 4);

			fprintf(out,
				"  extent: logical %u, %u blocks -> %llu%s\n",
				le32(x), len > 32768 ? len - 32768 : len,
				(unsigned long long)le32(x + 8) |
				((unsigned long long)le16(x + 6) << 32),
				len > 32768 ? " (unwritten)" : "");
		}
	}
}

static void describe_superblock(struct show_ctx *c, const char *b)
{
	const char *s = b + c->sb_offset;

	fprintf(c->out,
		"Superblock: magic 0x%04x, %llu blocks, %llu free, %u inodes, %u free, state 0x%x, features 0x%x/0x%x/0x%x\n",
		le16(s + 0x38), (unsigned long long)le32(s + 4) |
		((unsigned long long)le32(s + 0x150) << 32),
		(unsigned long long)le32(s + 0xc) |
		((unsigned long long)le32(s + 0x158) << 32), le32(s),
		le32(s + 0x10), le16(s + 0x3a), le32(s + 0x5c),
		le32(s + 0x60), le32(s + 0x64));
}

static void describe_gdt(struct show_ctx *c, const char *b)
{
	unsigned int dsz = EXT2_DESC_SIZE(c->fs->super), i;
	unsigned long g;
	FILE *out = c->out;

	for (i = 0; i < c->bs / dsz; i++) {
		const char *d = b + i * dsz;

		g = c->first_desc + i;
		if (g >= c->fs->group_desc_count)
			break;
		if (i == MAX_ITEMS) {
			fputs("  ...\n", out);
			break;
		}
		fprintf(out,
			"  group %lu: block bitmap %u, inode bitmap %u, inode table %u, free blocks %u, free inodes %u, dirs %u, flags 0x%x\n",
			g, le32(d), le32(d + 4),
			le32(d + 8), le16(d + 12), le16(d + 14), le16(d + 16),
			le16(d + 18));
	}
}

static unsigned long count_bits(const char *b, unsigned long nbits)
{
	unsigned long i, n = 0;

	for (i = 0; i < nbits; i++)
		n += (b[i / 8] >> (i % 8)) & 1;
	return n;
}

/* Bits of a bitmap block that mean something. */
static unsigned long bitmap_bits(struct show_ctx *c)
{
	unsigned long n;

	if (c->kind == K_BLOCK_BITMAP)
		/* the last group may be short */
		n = EXT2FS_NUM_B2C(c->fs,
				   ext2fs_group_blocks_count(c->fs, c->group));
	else
		n = c->fs->super->s_inodes_per_group;
	if (n > (unsigned long)c->bs * 8)
		n = (unsigned long)c->bs * 8;
	return n;
}

static unsigned long long bit_item(struct show_ctx *c, unsigned long bit)
{
	struct ext2_super_block *sb = c->fs->super;

	if (c->kind == K_INODE_BITMAP)
		return (unsigned long long)c->group * sb->s_inodes_per_group +
		       bit + 1;
	return ext2fs_group_first_block2(c->fs, c->group) +
	       EXT2FS_C2B(c->fs, bit);
}

static void diff_bitmap(struct show_ctx *c)
{
	unsigned long nbits = bitmap_bits(c), i, set = 0, clr = 0;
	const char *what = c->kind == K_INODE_BITMAP ? "inode" : "block";
	int shown = 0;

	for (i = 0; i < nbits; i++) {
		int a = (c->disk[i / 8] >> (i % 8)) & 1;
		int b = (c->logged[i / 8] >> (i % 8)) & 1;

		if (a == b)
			continue;
		if (b)
			set++;
		else
			clr++;
		if (shown++ < MAX_ITEMS)
			fprintf(c->out, "  %c %s %llu\n", b ? '+' : '-', what,
				bit_item(c, i));
	}
	if (shown > MAX_ITEMS)
		fprintf(c->out, "  ... %d more\n", shown - MAX_ITEMS);
	fprintf(c->out,
		"  %lu %s%s marked in use (+), %lu freed (-) by the logged version\n",
		set, what, set == 1 ? "" : "s", clr);
}

static void diff_inodes(struct show_ctx *c)
{
	unsigned int isz = EXT2_INODE_SIZE(c->fs->super), i, n = 0;
	unsigned int len = isz;
	char prefix[32];

	if (len > sizeof(struct ext2_inode_large))
		len = sizeof(struct ext2_inode_large);
	for (i = 0; i < c->bs / isz; i++) {
		const char *a = c->disk + i * isz, *b = c->logged + i * isz;
		ext2_ino_t ino = c->first_ino + i;

		if (!memcmp(a, b, isz))
			continue;
		n++;
		fprintf(c->out, "  inode %u changed:\n", ino);
		describe_inode(c, a, ino, "    on disk: ");
		describe_inode(c, b, ino, "    logged:  ");
		snprintf(prefix, sizeof(prefix), "      ");
		diff_fields(c->out, prefix, inode_fields, NR(inode_fields),
			    a, b, len);
		if (isz > len && memcmp(a + len, b + len, isz - len))
			fprintf(c->out,
				"      in-inode extended attributes: changed\n");
	}
	if (!n)
		fputs("  no inode differs\n", c->out);
}

static void diff_gdt(struct show_ctx *c)
{
	unsigned int dsz = EXT2_DESC_SIZE(c->fs->super), i;
	char prefix[48];
	int n = 0;

	for (i = 0; i < c->bs / dsz; i++) {
		const char *a = c->disk + i * dsz, *b = c->logged + i * dsz;

		if (!memcmp(a, b, dsz))
			continue;
		snprintf(prefix, sizeof(prefix), "  group %lu: ",
			 c->first_desc + i);
		n += diff_fields(c->out, prefix, gd_fields, NR(gd_fields), a, b,
				 dsz);
	}
	if (!n)
		fputs("  no descriptor differs\n", c->out);
}

static void diff_extent(struct show_ctx *c)
{
	describe_extent_block(c, c->disk, "on disk");
	describe_extent_block(c, c->logged, "logged");
}

/* Byte ranges that differ, with the first bytes of each. */
static void diff_ranges(struct show_ctx *c)
{
	unsigned int i = 0, start, nr = 0, bytes = 0, k;
	FILE *out = c->out;

	while (i < c->bs) {
		if (c->disk[i] == c->logged[i]) {
			i++;
			continue;
		}
		start = i;
		/* gaps shorter than 4 equal bytes belong to the range */
		while (i < c->bs) {
			unsigned int j = i;

			while (j < c->bs && c->disk[j] != c->logged[j])
				j++;
			bytes += j - i;
			i = j;
			while (j < c->bs && j - i < 4 &&
			       c->disk[j] == c->logged[j])
				j++;
			if (j == c->bs || j - i >= 4)
				break;
			i = j;
		}
		if (nr++ >= MAX_RANGES)
			continue;
		fprintf(out, "  bytes 0x%04x-0x%04x (%u)\n", start, i - 1,
			i - start);
		fputs("    on disk:", out);
		for (k = start; k < i && k < start + 16; k++)
			fprintf(out, " %02x", (unsigned char)c->disk[k]);
		fputs(i - start > 16 ? " ...\n    logged: " : "\n    logged: ",
		      out);
		for (k = start; k < i && k < start + 16; k++)
			fprintf(out, " %02x", (unsigned char)c->logged[k]);
		fputs(i - start > 16 ? " ...\n" : "\n", out);
	}
	if (nr > MAX_RANGES)
		fprintf(out, "  ... %u more ranges\n", nr - MAX_RANGES);
	if (!nr)
		fputs("  none: the logged version equals the block on disk\n",
		      out);
	else
		fprintf(out, "  %u byte%s differ%s in %u range%s\n", bytes,
			bytes == 1 ? "" : "s", bytes == 1 ? "s" : "", nr,
			nr == 1 ? "" : "s");
}

/* What the block holds, decoded by type (one version). */
static void describe(struct show_ctx *c, const char *b, const char *what)
{
	unsigned int isz, i;

	switch (c->kind) {
	case K_DATA:
	case K_FREE:
	case K_UNKNOWN:
	case K_BOOT:
	case K_RESERVED_GDT:
	case K_INDIRECT:
	case K_XATTR:
		return;
	case K_JOURNAL:
		if (be32_to_cpu(*(const __be32 *)b) != JBD2_MAGIC_NUMBER)
			return;
	}
	fputc('\n', c->out);
	switch (c->kind) {
	case K_SUPER:
	case K_BACKUP_SUPER:
		describe_superblock(c, b);
		break;
	case K_GDT:
		fprintf(c->out, "Group descriptors (%s):\n", what);
		describe_gdt(c, b);
		break;
	case K_BLOCK_BITMAP:
	case K_INODE_BITMAP:
		fprintf(c->out, "Bitmap (%s): %lu of %lu %ss in use\n", what,
			count_bits(b, bitmap_bits(c)), bitmap_bits(c),
			c->kind == K_INODE_BITMAP ? "inode" : "cluster");
		break;
	case K_INODE_TABLE:
		fprintf(c->out, "Inodes (%s):\n", what);
		isz = EXT2_INODE_SIZE(c->fs->super);
		for (i = 0; i < c->bs / isz; i++)
			describe_inode(c, b + i * isz, c->first_ino + i, "  ");
		break;
	case K_DIR:
		describe_dir(c, b, what);
		break;
	case K_EXTENT:
		describe_extent_block(c, b, what);
		break;
	case K_JOURNAL:
		if (be32_to_cpu(*(const __be32 *)b) == JBD2_MAGIC_NUMBER)
			fprintf(c->out,
				"Journal block (%s): type %u, sequence %u\n",
				what,
				be32_to_cpu(((const __be32 *)b)[1]),
				be32_to_cpu(((const __be32 *)b)[2]));
		break;
	}
}

static void show_diff(struct show_ctx *c)
{
	FILE *out = c->out;

	fputs("\nDifferences, block on disk -> logged version:\n", out);
	diff_ranges(c);
	if (!memcmp(c->disk, c->logged, c->bs))
		return;
	switch (c->kind) {
	case K_SUPER:
	case K_BACKUP_SUPER:
		fputs("Superblock fields:\n", out);
		if (!diff_fields(out, "  ", sb_fields, NR(sb_fields),
				 c->disk + c->sb_offset,
				 c->logged + c->sb_offset, SUPERBLOCK_SIZE))
			fputs("  none (only bytes outside the superblock)\n",
			      out);
		break;
	case K_GDT:
		fputs("Group descriptor fields:\n", out);
		diff_gdt(c);
		break;
	case K_BLOCK_BITMAP:
	case K_INODE_BITMAP:
		fputs("Bitmap bits:\n", out);
		diff_bitmap(c);
		break;
	case K_INODE_TABLE:
		fputs("Inodes:\n", out);
		diff_inodes(c);
		break;
	case K_DIR:
		diff_dir(c);
		break;
	case K_EXTENT:
		diff_extent(c);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* The logged version                                                  */

/*
 * Find the version of c->blk logged in transaction @tid with a dry run of
 * recovery; read it into c->logged.  Returns an exit code (0: found).
 */
static int load_logged(struct show_ctx *c, const struct ej_open_opts *opts,
		       __u32 tid, const char *image)
{
	const struct ej_block_entry *e = NULL;
	struct ej_open_opts o = *opts;
	struct ej_report *r;
	struct ej_bar bar;
	journal_t *journal;
	errcode_t err;
	size_t i, others = 0;
	int ret = EJ_EXIT_OPERATIONAL;

	o.flags |= EJ_OPEN_READONLY;
	err = ej_journal_open(c->fs, &o, &journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		return ret;
	}
	if (!journal->j_superblock->s_start) {
		fprintf(stderr,
			"%s: the journal of %s is empty: nothing is logged (a copy kept by 'e2journal save' can be named with --from)\n",
			ej_prog,
			o.saved ? o.saved : image);
		goto out;
	}
	r = ej_journal_report(journal);
	r->keep_blocks = 1;
	ej_bar_init(&bar, "reading");
	bar.report = r;
	r->progress_fn = ej_bar_progress;
	r->progress_arg = &bar;
	jbd2_journal_recover(journal);
	ej_bar_done(&bar);
	r = ej_journal_report(journal);
	for (i = 0; i < r->nr_blocks; i++) {
		if (r->blocks[i].fsblock != c->blk)
			continue;
		if (r->blocks[i].tid == tid)
			e = &r->blocks[i];
		else
			others++;
	}
	if (!e) {
		fprintf(stderr, "%s: transaction %u does not log block %llu",
			ej_prog, tid, (unsigned long long)c->blk);
		if (others) {
			fputs("; it is logged in", stderr);
			for (i = 0; i < r->nr_blocks; i++) {
				if (r->blocks[i].fsblock == c->blk)
					fprintf(stderr, " %u",
						r->blocks[i].tid);
			}
		}
		fputc('\n', stderr);
		goto out;
	}
	c->logged = malloc(c->bs);
	if (!c->logged) {
		com_err(ej_prog, ENOMEM, "while reading the journal");
		goto out;
	}
	err = ej_journal_read_block(journal, e->jblock, c->logged);
	if (err) {
		com_err(ej_prog, err, "while reading journal block %lu",
			e->jblock);
		free(c->logged);
		c->logged = NULL;
		goto out;
	}
	if (e->tag_flags & JBD2_FLAG_ESCAPE)
		*(__be32 *)c->logged = cpu_to_be32(JBD2_MAGIC_NUMBER);
	fprintf(c->out,
		"Logged in transaction %u at journal block %lu%s; replay (policy %s): %s\n",
		e->tid, e->jblock,
		e->tag_flags & JBD2_FLAG_ESCAPE ? " (escaped)" : "",
		ej_policy_name(o.policy), ej_verdict_name(e->verdict));
	if (others)
		fprintf(c->out, "Other transactions log it too:");
	for (i = 0; others && i < r->nr_blocks; i++) {
		const struct ej_block_entry *x = &r->blocks[i];

		if (x->fsblock == c->blk && x != e)
			fprintf(c->out, " %u (%s)", x->tid,
				ej_verdict_name(x->verdict));
	}
	if (others)
		fputc('\n', c->out);
	ret = 0;
out:
	ej_journal_close(journal);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

static void show_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s show [options] IMAGE [TID:]BLOCK\n\n"
		"Say what filesystem block BLOCK is (superblock, group\n"
		"descriptors, bitmap, inode table, directory, extent tree,\n"
		"file data, free space, the journal) and decode it.  With TID,\n"
		"compare the version logged in transaction TID with the block\n"
		"on disk.  Nothing is written.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"      --from SAVED     read the log from a copy made by\n"
		"                       'e2journal save'\n"
		"  -p, --policy P       the policy whose verdict is shown\n"
		"                       (replay-all, stop, refuse)\n"
		"  -h, --help           this text\n", ej_prog);
}

/* "[TID:]BLOCK" */
static int parse_target(const char *s, int *has_tid, __u32 *tid,
			blk64_t *blk)
{
	unsigned long long a, b;
	char *end;

	errno = 0;
	a = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (!*end) {
		*has_tid = 0;
		*blk = a;
		return 0;
	}
	if (*end != ':' || a > 0xffffffffULL)
		return -1;
	s = end + 1;
	b = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*has_tid = 1;
	*tid = (__u32)a;
	*blk = b;
	return 0;
}

int ej_cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument,	NULL, 'j' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "policy",	required_argument,	NULL, 'p' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = { .policy = JBD2_POLICY_REPLAY_ALL };
	struct show_ctx c = { 0 };
	const char *image;
	int opt, has_tid = 0, ret = EJ_EXIT_OPERATIONAL;
	__u32 tid = 0;
	errcode_t err;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'F':
			opts.saved = optarg;
			break;
		case 'p':
			if (ej_policy_arg(optarg, &opts.policy)) {
				show_usage(stderr);
				return EJ_EXIT_USAGE;
			}
			break;
		case 'h':
			show_usage(stdout);
			return EJ_EXIT_OK;
		default:
			show_usage(stderr);
			return EJ_EXIT_USAGE;
		}
	}
	if (optind != argc - 2 ||
	    parse_target(argv[optind + 1], &has_tid, &tid, &c.blk)) {
		show_usage(stderr);
		return EJ_EXIT_USAGE;
	}
	image = argv[optind];
	c.out = stdout;

	if (ej_open_image(image, EXT2_FLAG_SKIP_MMP, unix_io_manager, &c.fs))
		return EJ_EXIT_OPERATIONAL;
	c.bs = c.fs->blocksize;
	c.disk = malloc(c.bs);
	if (!c.disk) {
		com_err(ej_prog, ENOMEM, "while showing a block");
		goto out;
	}

	fprintf(c.out, "Block %llu of %s (block size %u)\n",
		(unsigned long long)c.blk, image, c.bs);
	if (has_tid) {
		ret = load_logged(&c, &opts, tid, image);
		if (ret)
			goto out;
		ret = EJ_EXIT_OPERATIONAL;
	}

	classify(&c);
	print_type(&c);
	if (c.kind == K_OUTSIDE) {
		ret = EJ_EXIT_OK;
		goto out;
	}
	if (c.in_use >= 0)
		fprintf(c.out, "Block bitmap: %s\n", c.in_use ? "in use" :
			"free");
	if (c.own.ino) {
		/* the scan's copy is in host order: little-endian hosts only */
		fputs("Owner: ", c.out);
		describe_inode(&c, (const char *)&c.own.inode, c.own.ino, "");
	}
	err = io_channel_read_blk64(c.fs->io, c.blk, 1, c.disk);
	if (err) {
		com_err(ej_prog, err, "while reading block %llu",
			(unsigned long long)c.blk);
		goto out;
	}
	describe(&c, c.disk, "on disk");
	if (c.logged) {
		/* long listings: the differences below say what changed */
		if (c.kind != K_INODE_TABLE && c.kind != K_GDT &&
		    memcmp(c.disk, c.logged, c.bs))
			describe(&c, c.logged, "logged");
		show_diff(&c);
	}
	ret = EJ_EXIT_OK;
out:
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	free(c.disk);
	free(c.logged);
	ext2fs_close_free(&c.fs);
	return ret;
}
