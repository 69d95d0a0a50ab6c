// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_replay.c: replay the verified fast commits fc_scan.c found, through
 * libext2fs, after the full commits are on disk (POLICY.md "Fast
 * commits": the results Linux gives).
 *
 * Records are applied in order.  INODE copies the logged inode but its
 * block map (ADD_RANGE and DEL_RANGE rebuild that), first releasing the
 * blocks of a live file the inode number held before (another
 * i_generation); ADD_RANGE maps blocks, DEL_RANGE punches them; CREAT,
 * LINK and UNLINK edit names and link counts (fc_dentry.c).  Then the
 * directories whose subdirectories changed are recounted, orphans an
 * INODE record unhooked go back on the orphan list, each touched
 * inode's blocks are counted into i_blocks and marked in the block
 * bitmap, and libext2fs writes bitmaps, group descriptors and
 * superblock with their counts and checksums.  Records that name blocks
 * outside the filesystem, in its fixed metadata or in the journal, or
 * impossible inode numbers, are judged before anything is written
 * (ej_fc_check()), so that "refuse" can refuse the journal as a whole.
 */
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"
#include "fc_int.h"

static __u32 get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static unsigned int get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

/* Inode numbers a record may name; the root only as a directory. */
static int ino_ok(ext2_filsys fs, __u32 ino, int root_ok)
{
	if (root_ok && ino == EXT2_ROOT_INO)
		return 1;
	return ino >= EXT2_FIRST_INODE(fs->super) &&
	       ino <= fs->super->s_inodes_count;
}

/* Blocks no record may map: fixed metadata and the journal. */
static errcode_t fixed_map(ext2_filsys fs, const struct ej_extent *forbid,
			   size_t nr_forbid, ext2fs_block_bitmap *ret)
{
	ext2fs_block_bitmap map;
	dgrp_t g;
	size_t i;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(fs, "fast-commit fixed", &map);
	if (err)
		return err;
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t b = ext2fs_inode_table_loc(fs, g);

		ext2fs_reserve_super_and_bgd(fs, g, map);
		if (ext2fs_block_bitmap_loc(fs, g))
			ext2fs_mark_block_bitmap2(map,
					ext2fs_block_bitmap_loc(fs, g));
		if (ext2fs_inode_bitmap_loc(fs, g))
			ext2fs_mark_block_bitmap2(map,
					ext2fs_inode_bitmap_loc(fs, g));
		if (b && b + fs->inode_blocks_per_group <=
			 ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap_range2(map, b,
						fs->inode_blocks_per_group);
	}
	for (i = 0; i < nr_forbid; i++) {
		unsigned long long b = forbid[i].pblk, n = forbid[i].len;

		if (b >= ext2fs_blocks_count(fs->super))
			continue;
		if (b + n > ext2fs_blocks_count(fs->super))
			n = ext2fs_blocks_count(fs->super) - b;
		ext2fs_mark_block_bitmap_range2(map, b, n);
	}
	*ret = map;
	return 0;
}

/* The physical run an ADD_RANGE record maps. */
static void add_range(const unsigned char *v, __u32 *ino, __u32 *lblk,
		      unsigned long long *pblk, unsigned int *len, int *unwr)
{
	unsigned int n = get16(v + 8);

	*ino = get32(v);
	*lblk = get32(v + 4);
	*unwr = n > 32768;
	*len = *unwr ? n - 32768 : n;
	*pblk = (unsigned long long)get16(v + 10) << 32 | get32(v + 12);
}

static int range_ok(ext2_filsys fs, ext2fs_block_bitmap fixed, __u32 lblk,
		    unsigned long long pblk, unsigned int len)
{
	unsigned long long i;

	/* logical blocks past 2^32 - 1 do not exist */
	if ((unsigned long long)lblk + len > 0xffffffffULL)
		return 0;
	if (!len || pblk < fs->super->s_first_data_block ||
	    pblk + len > ext2fs_blocks_count(fs->super))
		return 0;
	for (i = 0; i < len; i++)
		if (ext2fs_test_block_bitmap2(fixed, pblk + i))
			return 0;
	return 1;
}

errcode_t ej_fc_check(ext2_filsys fs, const struct ej_extent *forbid,
		      size_t nr_forbid, const unsigned char *area,
		      struct ej_fc_scan *s)
{
	ext2fs_block_bitmap fixed;
	size_t i, r;
	errcode_t err;

	err = fixed_map(fs, forbid, nr_forbid, &fixed);
	if (err)
		return err;
	for (i = 0; i < s->nr_fcs; i++) {
		struct ej_fc_commit *c = &s->fcs[i];

		for (r = 0; r < c->nr_recs; r++) {
			struct ej_fc_rec *x = &s->recs[c->first_rec + r];
			const unsigned char *v = area + x->off + EJ_FC_TL_LEN;
			unsigned long long pblk;
			unsigned int len;
			__u32 ino, lblk;
			int unwr;

			if (!ej_fc_replayable(c)) {
				x->verdict = EJ_FCR_NOT_REPLAYED;
				continue;
			}
			x->verdict = EJ_FCR_PENDING;
			switch (x->tag) {
			case EJ_FC_TAG_ADD_RANGE:
				add_range(v, &ino, &lblk, &pblk, &len, &unwr);
				if (!ino_ok(fs, ino, 0))
					x->verdict = EJ_FCR_BAD_INO;
				else if (!range_ok(fs, fixed, lblk, pblk, len))
					x->verdict = EJ_FCR_BAD_BLOCK;
				break;
			case EJ_FC_TAG_DEL_RANGE:
			case EJ_FC_TAG_INODE:
				if (!ino_ok(fs, get32(v),
					    x->tag == EJ_FC_TAG_INODE))
					x->verdict = EJ_FCR_BAD_INO;
				break;
			case EJ_FC_TAG_CREAT:
			case EJ_FC_TAG_LINK:
			case EJ_FC_TAG_UNLINK:
				if (!ino_ok(fs, get32(v), 1) ||
				    !ino_ok(fs, get32(v + 4), 0))
					x->verdict = EJ_FCR_BAD_INO;
				break;
			default:
				x->verdict = EJ_FCR_NOTHING;
			}
			if (x->verdict == EJ_FCR_BAD_INO ||
			    x->verdict == EJ_FCR_BAD_BLOCK)
				s->flagged = 1;
		}
	}
	ext2fs_free_block_bitmap(fixed);
	return 0;
}

/* ---------------------------------------------------------------- */
/* The replay                                                        */

errcode_t ej_fc_inos_add(struct ej_fc_inos *set, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->v[i] == ino)
			return 0;
	if (ej_grow((void **)&set->v, &set->max, set->n + 1,
		    sizeof(*set->v)))
		return EJ_NO_MEMORY;
	set->v[set->n++] = ino;
	return 0;
}

static errcode_t touch(struct ej_fcr *x, ext2_ino_t ino)
{
	return ej_fc_inos_add(&x->touched, ino);
}

void ej_fc_mark_block(ext2_filsys fs, blk64_t b, int used)
{
	if (b < fs->super->s_first_data_block ||
	    b >= ext2fs_blocks_count(fs->super))
		return;
	if (!!ext2fs_test_block_bitmap2(fs->block_map, b) != !!used)
		ext2fs_block_alloc_stats2(fs, b, used ? 1 : -1);
}

void ej_fc_mark_inode(ext2_filsys fs, ext2_ino_t ino, int used, int dir)
{
	if (!!ext2fs_test_inode_bitmap2(fs->inode_map, ino) != !!used)
		ext2fs_inode_alloc_stats2(fs, ino, used ? 1 : -1, dir);
}

/*
 * In use: linked, or unlinked while open (on the orphan list, i_dtime
 * then names the next orphan, not a time).
 */
int ej_fc_inode_used(ext2_filsys fs, const struct ext2_inode *in)
{
	return in->i_links_count ||
	       (in->i_mode && in->i_dtime <= fs->super->s_inodes_count);
}

/*
 * The inode on disk before an INODE record: a live file other than the
 * logged one (another i_generation: the inode number was freed and
 * reused since) gives up its blocks, as the UNLINK that deleted it
 * would have had them released; an orphan whose next-orphan link the
 * record changes leaves that next one to be put back on the list.
 */
static errcode_t before_inode(struct ej_fcr *x, ext2_ino_t ino,
			      struct ext2_inode *disk,
			      const struct ext2_inode *fc)
{
	ext2_filsys fs = x->fs;
	blk64_t acl = ext2fs_file_acl_block(fs, disk);
	errcode_t err;

	if (!disk->i_mode || !ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		return 0;
	if (!disk->i_links_count && disk->i_dtime != fc->i_dtime &&
	    disk->i_dtime >= EXT2_FIRST_INODE(fs->super) &&
	    disk->i_dtime <= fs->super->s_inodes_count) {
		err = ej_fc_inos_add(&x->orphans, disk->i_dtime);
		if (err)
			return err;
	}
	if (!ej_fc_inode_used(fs, disk) ||
	    disk->i_generation == fc->i_generation)
		return 0;
	/* the same xattr block in both stays */
	if (acl && acl == ext2fs_file_acl_block(fs, fc))
		ext2fs_file_acl_block_set(fs, disk, 0);
	err = ej_fc_release_blocks(x, ino, disk);
	if (!err)
		err = ext2fs_write_inode(fs, ino, disk);
	return err;
}

/*
 * An INODE record keeps the i_block on disk unless the inode has extents
 * (a bad tree root restarts empty) or holds its data there.  So a
 * block-mapped inode without extents keeps the disk's bytes as its block
 * numbers: they must have been a block map already (or nothing).  A
 * record that would turn an extent tree, a fast symlink's text or inline
 * data into block numbers is not applied.
 */
static int kept_map_ok(ext2_filsys fs, struct ext2_inode *disk,
		       struct ext2_inode *fc)
{
	static const __u32 none[EXT2_N_BLOCKS];

	if (fc->i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL) ||
	    !ext2fs_inode_has_valid_blocks2(fs, fc) ||
	    !memcmp(disk->i_block, none, sizeof(none)))
		return 1;
	return !(disk->i_flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) &&
	       ext2fs_inode_has_valid_blocks2(fs, disk);
}

/*
 * The xattr block an INODE record gives an inode that is not live on disk
 * (an UNLINK before it deleted the file, which released its xattr block:
 * the file unlinked while open) is a reference the block's count no
 * longer holds.  It is taken again, before the inode is written: a power
 * cut between the two leaves the count one too high (e2fsck lowers it),
 * never one too low, and a rerun finds the inode live and takes nothing.
 * A block that is no xattr block is left as it is.
 */
static void take_acl(struct ej_fcr *x, ext2_ino_t ino,
		     struct ext2_inode *disk, struct ext2_inode *fc)
{
	ext2_filsys fs = x->fs;
	blk64_t acl = ext2fs_file_acl_block(fs, fc);
	__u32 count;

	if (!acl || !fc->i_mode)
		return;
	if (disk->i_mode && ej_fc_inode_used(fs, disk) &&
	    ext2fs_test_inode_bitmap2(fs->inode_map, ino) &&
	    ext2fs_file_acl_block(fs, disk) == acl)
		return;
	if (!ext2fs_adjust_ea_refcount3(fs, acl, NULL, 1, &count, ino))
		ej_fc_mark_block(fs, acl, 1);
}

static errcode_t do_inode(struct ej_fcr *x, const unsigned char *v,
			  unsigned int len)
{
	ext2_filsys fs = x->fs;
	ext2_ino_t ino = get32(v);
	unsigned int rawlen = len - EJ_FC_INODE_LEN, copy;
	unsigned char *disk, *fc;
	struct ext2_inode *in;
	size_t ib = offsetof(struct ext2_inode, i_block);
	size_t gen = offsetof(struct ext2_inode, i_generation);
	errcode_t err;

	disk = calloc(2, x->isz);
	if (!disk)
		return EJ_NO_MEMORY;
	fc = disk + x->isz;
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)disk,
				     x->isz);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		goto out;
	copy = rawlen < x->isz ? rawlen : x->isz;
	memcpy(fc, v + EJ_FC_INODE_LEN, copy);
	if (x->isz > EXT2_GOOD_OLD_INODE_SIZE && copy > EXT2_GOOD_OLD_INODE_SIZE) {
		unsigned int extra = get16(fc + EXT2_GOOD_OLD_INODE_SIZE);

		if (EXT2_GOOD_OLD_INODE_SIZE + extra < copy)
			copy = EXT2_GOOD_OLD_INODE_SIZE + extra;
	}
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_inode_full(fs, (struct ext2_inode_large *)fc,
			       (struct ext2_inode_large *)fc, 0, x->isz);
#endif
	if (!kept_map_ok(fs, (struct ext2_inode *)disk,
			 (struct ext2_inode *)fc)) {
		err = EXT2_ET_INODE_CORRUPTED;	/* skipped and flagged */
		goto out;
	}
	take_acl(x, ino, (struct ext2_inode *)disk, (struct ext2_inode *)fc);
	err = before_inode(x, ino, (struct ext2_inode *)disk,
			   (struct ext2_inode *)fc);
	if (err)
		goto out;
	memcpy(disk, fc, ib);
	if (copy > gen)
		memcpy(disk + gen, fc + gen, copy - gen);
	in = (struct ext2_inode *)disk;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		struct ext3_extent_header *eh = (void *)in->i_block;

		if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC) {
			memset(in->i_block, 0, sizeof(in->i_block));
			eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
			eh->eh_max = ext2fs_cpu_to_le16((sizeof(in->i_block) -
					sizeof(*eh)) / sizeof(struct ext3_extent));
		}
	} else if (in->i_flags & EXT4_INLINE_DATA_FL ||
		   (LINUX_S_ISLNK(in->i_mode) && in->i_size <
		    sizeof(in->i_block))) {
		memcpy(in->i_block, ((struct ext2_inode *)fc)->i_block,
		       sizeof(in->i_block));
	}
	err = ext2fs_write_inode_full(fs, ino, in, x->isz);
	if (err)
		goto out;
	ej_fc_mark_inode(fs, ino, ej_fc_inode_used(fs, in),
			 LINUX_S_ISDIR(in->i_mode));
	/*
	 * Unlinked while open: Linux put it at the head of the orphan list,
	 * its i_dtime naming the old head, but the superblock is not in
	 * the fast commits.  Put it back there, so that the orphan list is
	 * handled as after any replay.
	 */
	if (!in->i_links_count && in->i_mode &&
	    !ext2fs_has_feature_orphan_file(fs->super) &&
	    fs->super->s_last_orphan != ino &&
	    in->i_dtime == fs->super->s_last_orphan) {
		fs->super->s_last_orphan = ino;
		ext2fs_mark_super_dirty(fs);
	}
	err = touch(x, ino);
out:
	free(disk);
	return err;
}

static errcode_t do_add(struct ej_fcr *x, const unsigned char *v)
{
	ext2_filsys fs = x->fs;
	struct ext2_inode in;
	unsigned long long pblk;
	unsigned int len, i;
	__u32 ino, lblk;
	int unwr;
	errcode_t err;

	add_range(v, &ino, &lblk, &pblk, &len, &unwr);
	/*
	 * No block map to add to (a fast symlink, inline data): its i_block
	 * would be read as block numbers.  Skipped and flagged.
	 */
	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (!ext2fs_inode_has_valid_blocks2(fs, &in))
		return EXT2_ET_INLINE_DATA_CANT_ITERATE;
	for (i = 0; i < len; i++) {
		blk64_t cur = 0, want = pblk + i;
		int flags = 0;

		err = ext2fs_bmap2(fs, ino, NULL, NULL, 0, lblk + i, &flags,
				   &cur);
		if (err)
			return err;
		if (cur == want &&
		    !!(flags & BMAP_RET_UNINIT) == !!unwr)
			continue;
		err = ext2fs_bmap2(fs, ino, NULL, NULL,
				   BMAP_SET | (unwr ? BMAP_UNINIT : 0),
				   lblk + i, NULL, &want);
		if (err)
			return err;
		if (cur && cur != want)
			ej_fc_mark_block(fs, cur, 0);
		ej_fc_mark_block(fs, want, 1);
	}
	return touch(x, ino);
}

errcode_t ej_fc_punch(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
		     blk64_t start, blk64_t end)
{
	struct ext2_inode own;
	blk64_t most = ext2fs_blocks_count(fs->super);
	unsigned int per = fs->blocksize / 512;
	errcode_t err;

	if (!in) {
		err = ext2fs_read_inode(fs, ino, &own);
		if (err && err != EXT2_ET_INODE_CSUM_INVALID)
			return err;
		in = &own;
	}
	/* a fast symlink's or inline data's i_block holds no block numbers */
	if (!ext2fs_inode_has_valid_blocks2(fs, in))
		return 0;
	/*
	 * libext2fs takes each freed block off i_blocks and fails when it
	 * would go below 0, as it does when an INODE record logged fewer
	 * blocks than a partial replay before a power cut left mapped.
	 * i_blocks is counted from the map at the end anyway.
	 */
	if (!ext2fs_has_feature_huge_file(fs->super) &&
	    most > 0xffffffffULL / per)
		most = 0xffffffffULL / per;
	err = ext2fs_iblk_set(fs, in, most);
	if (err)
		return err;
	return ext2fs_punch(fs, ino, in, NULL, start, end);
}

static errcode_t do_del(struct ej_fcr *x, const unsigned char *v)
{
	ext2_ino_t ino = get32(v);
	blk64_t start = get32(v + 4), len = get32(v + 8), end;
	errcode_t err;

	if (!len)
		return 0;
	end = start + len - 1;
	if (end > 0xffffffffULL)
		end = 0xffffffffULL;
	err = ej_fc_punch(x->fs, ino, NULL, start, end);
	if (err)
		return err;
	return touch(x, ino);
}

struct count {
	ext2_filsys	fs;
	blk64_t		n;
};

static int count_block(ext2_filsys fs, blk64_t *blk, e2_blkcnt_t bcnt,
		       blk64_t ref, int off, void *priv)
{
	struct count *c = priv;

	(void)bcnt; (void)ref; (void)off;
	ej_fc_mark_block(fs, *blk, 1);
	c->n++;
	return 0;
}

/* i_blocks from the map, every mapped block marked in use. */
static errcode_t settle(struct ej_fcr *x, ext2_ino_t ino)
{
	ext2_filsys fs = x->fs;
	struct ext2_inode in;
	struct count c = { fs, 0 };
	errcode_t err;

	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (!ej_fc_inode_used(fs, &in) || !ext2fs_inode_has_valid_blocks2(fs, &in))
		return 0;
	err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				    count_block, &c);
	if (err)
		return err == EXT2_ET_INLINE_DATA_CANT_ITERATE ? 0 : err;
	err = ext2fs_read_inode(fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	if (ext2fs_file_acl_block(fs, &in)) {
		ej_fc_mark_block(fs, ext2fs_file_acl_block(fs, &in), 1);
		c.n++;
	}
	err = ext2fs_iblk_set(fs, &in, c.n);
	if (!err)
		err = ext2fs_write_inode(fs, ino, &in);
	return err;
}

/* Summary counts from the groups' counts. */
static void sum_counts(ext2_filsys fs)
{
	blk64_t fb = 0;
	__u32 fi = 0;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		fb += ext2fs_bg_free_blocks_count(fs, g);
		fi += ext2fs_bg_free_inodes_count(fs, g);
	}
	ext2fs_free_blocks_count_set(fs->super, EXT2FS_C2B(fs, fb));
	fs->super->s_free_inodes_count = fi;
	ext2fs_mark_super_dirty(fs);
}

/* Is @ino on the orphan list the superblock heads? */
static int on_orphan_list(ext2_filsys fs, ext2_ino_t ino)
{
	ext2_ino_t cur = fs->super->s_last_orphan;
	struct ext2_inode in;
	unsigned int steps;

	/* a list too long or looping is e2fsck's to clear: leave it */
	for (steps = 0; cur && steps < 65536; steps++) {
		if (cur == ino)
			return 1;
		if (cur < EXT2_FIRST_INODE(fs->super) ||
		    cur > fs->super->s_inodes_count)
			return 0;
		if (ext2fs_read_inode(fs, cur, &in))
			return 1;
		cur = in.i_dtime;
	}
	return cur != 0;
}

/*
 * An orphan whose place in the list an INODE record took away (the one
 * before it logged with another next-orphan link: the file that held
 * it closed and was freed, which no record says) goes back at the head
 * of the list, so that it is released as after any replay.
 */
static errcode_t keep_orphans(struct ej_fcr *x)
{
	ext2_filsys fs = x->fs;
	size_t i;

	if (ext2fs_has_feature_orphan_file(fs->super))
		return 0;
	for (i = 0; i < x->orphans.n; i++) {
		ext2_ino_t ino = x->orphans.v[i];
		struct ext2_inode in;
		errcode_t err;

		err = ext2fs_read_inode(fs, ino, &in);
		if (err && err != EXT2_ET_INODE_CSUM_INVALID)
			return err;
		if (!in.i_mode || in.i_links_count ||
		    !ext2fs_test_inode_bitmap2(fs->inode_map, ino) ||
		    on_orphan_list(fs, ino))
			continue;
		in.i_dtime = fs->super->s_last_orphan;
		err = ext2fs_write_inode(fs, ino, &in);
		if (err)
			return err;
		fs->super->s_last_orphan = ino;
		ext2fs_mark_super_dirty(fs);
	}
	return 0;
}

static errcode_t replay_all(struct ej_fcr *x)
{
	struct ej_fc_scan *s = x->s;
	size_t i, r;
	errcode_t err;

	/* the blocks ADD_RANGE maps are taken before any tree grows */
	for (i = 0; i < s->nr_recs; i++) {
		struct ej_fc_rec *q = &s->recs[i];
		unsigned long long pblk;
		unsigned int len, k;
		__u32 ino, lblk;
		int unwr;

		if (q->tag != EJ_FC_TAG_ADD_RANGE ||
		    q->verdict != EJ_FCR_PENDING)
			continue;
		add_range(x->area + q->off + EJ_FC_TL_LEN, &ino, &lblk, &pblk,
			  &len, &unwr);
		for (k = 0; k < len; k++)
			ej_fc_mark_block(x->fs, pblk + k, 1);
	}
	for (i = 0; i < s->nr_fcs; i++) {
		struct ej_fc_commit *c = &s->fcs[i];

		if (!ej_fc_replayable(c))
			continue;
		for (r = 0; r < c->nr_recs; r++) {
			struct ej_fc_rec *q = &s->recs[c->first_rec + r];
			const unsigned char *v = x->area + q->off +
						 EJ_FC_TL_LEN;
			int verdict = EJ_FCR_REPLAYED;

			if (q->verdict != EJ_FCR_PENDING)
				continue;
			switch (q->tag) {
			case EJ_FC_TAG_INODE:
				err = do_inode(x, v, q->len);
				break;
			case EJ_FC_TAG_ADD_RANGE:
				err = do_add(x, v);
				break;
			case EJ_FC_TAG_DEL_RANGE:
				err = do_del(x, v);
				break;
			default:
				err = ej_fc_dentry(x, q->tag, v, q->len,
						&verdict);
			}
			/*
			 * What libext2fs cannot apply (a verified record
			 * that makes no sense on this filesystem) is
			 * skipped and flagged: failing here would fail every
			 * rerun the same way.
			 */
			if (err == EJ_NO_MEMORY || err == EXT2_ET_NO_MEMORY)
				return err;
			if (err)
				verdict = EJ_FCR_FAILED;
			q->verdict = verdict;
			if (verdict == EJ_FCR_BAD_PARENT ||
			    verdict == EJ_FCR_NOT_IN_USE ||
			    verdict == EJ_FCR_FAILED)
				s->flagged = 1;
		}
	}
	err = ej_fc_recount_dirs(x);
	if (!err)
		err = keep_orphans(x);
	for (i = 0; !err && i < x->touched.n; i++)
		err = settle(x, x->touched.v[i]);
	if (err)
		return err;
	sum_counts(x->fs);
	return 0;
}

/* The primary group descriptors, checksums set, block by block. */
static errcode_t write_gdt(ext2_filsys fs)
{
	unsigned long i;
	dgrp_t g;
	errcode_t err;

#ifdef WORDS_BIGENDIAN
	return ext2fs_flush(fs);	/* descriptors kept in host order */
#endif
	for (g = 0; g < fs->group_desc_count; g++)
		ext2fs_group_desc_csum_set(fs, g);
	for (i = 0; i < fs->desc_blocks; i++) {
		blk64_t b = ext2fs_descriptor_block_loc2(fs,
					fs->super->s_first_data_block, i);

		err = io_channel_write_blk64(fs->io, b, 1,
				(char *)fs->group_desc + i * fs->blocksize);
		if (err)
			return err;
	}
	return 0;
}

errcode_t ej_fc_replay(ext2_filsys fs, const unsigned char *area,
		       struct ej_fc_scan *s)
{
	struct ej_fcr x;
	errcode_t err;

	memset(&x, 0, sizeof(x));
	x.fs = fs;
	x.s = s;
	x.area = area;
	x.isz = EXT2_INODE_SIZE(fs->super);
	err = ext2fs_read_bitmaps(fs);
	if (err)
		return err;
	/* a power cut from here on replays again at the next run */
	fs->super->s_state |= EXT4_FC_REPLAY;
	err = ej_fs_write_super(fs, fs->super);
	if (err)
		return err;
	err = replay_all(&x);
	free(x.touched.v);
	free(x.recount.v);
	free(x.orphans.v);
	if (err)
		return err;
	/*
	 * Bitmaps, then group descriptors, on disk before the superblock,
	 * which goes in one write: libext2fs would write each changed run
	 * of its bytes on its own, and a power cut in between would leave
	 * a superblock that fails its checksum.
	 */
	fs->super->s_state &= ~EXT4_FC_REPLAY;
	ext2fs_mark_bb_dirty(fs);
	ext2fs_mark_ib_dirty(fs);
	err = ext2fs_write_bitmaps(fs);
	if (!err)
		err = write_gdt(fs);
	if (!err)
		err = io_channel_flush(fs->io);
	if (!err)
		err = ej_fs_write_super(fs, fs->super);
	return err;
}

/* ---------------------------------------------------------------- */
/* What the replay would flag, worked out before it writes anything  */

struct sim_ino {
	ext2_ino_t	ino;
	__u16		mode;
	int		used;
};

struct sim {
	ext2_filsys	fs;
	struct sim_ino	*v;
	size_t		n, max;
};

/* The inode as the records before this one leave it: mode, in use. */
static errcode_t sim_get(struct sim *m, ext2_ino_t ino, __u16 *mode,
			 int *used)
{
	struct ext2_inode in;
	errcode_t err;
	size_t i;

	for (i = m->n; i-- > 0; ) {
		if (m->v[i].ino == ino) {
			*mode = m->v[i].mode;
			*used = m->v[i].used;
			return 0;
		}
	}
	err = ext2fs_read_inode(m->fs, ino, &in);
	if (err && err != EXT2_ET_INODE_CSUM_INVALID)
		return err;
	*mode = in.i_mode;
	*used = in.i_links_count &&
		ext2fs_test_inode_bitmap2(m->fs->inode_map, ino);
	return 0;
}

static errcode_t sim_set(struct sim *m, const unsigned char *raw)
{
	ext2_ino_t ino = get32(raw);
	__u16 mode = get16(raw + EJ_FC_INODE_LEN);
	__u16 links = get16(raw + EJ_FC_INODE_LEN + 0x1a);
	__u32 dtime = get32(raw + EJ_FC_INODE_LEN + 0x14);

	if (ej_grow((void **)&m->v, &m->max, m->n + 1, sizeof(*m->v)))
		return EJ_NO_MEMORY;
	m->v[m->n].ino = ino;
	m->v[m->n].mode = mode;
	m->v[m->n].used = links ||
			  (mode && dtime <= m->fs->super->s_inodes_count);
	m->n++;
	return 0;
}

errcode_t ej_fc_dry_check(ext2_filsys fs, const unsigned char *area,
			  const struct ej_fc_scan *s, int *would_flag)
{
	struct sim m = { fs, NULL, 0, 0 };
	errcode_t err;
	size_t i;

	*would_flag = 0;
	err = ext2fs_read_bitmaps(fs);
	if (err)
		return err;
	for (i = 0; i < s->nr_recs && !*would_flag; i++) {
		const struct ej_fc_rec *q = &s->recs[i];
		const unsigned char *v = area + q->off + EJ_FC_TL_LEN;
		__u16 mode;
		int used;

		if (q->verdict != EJ_FCR_PENDING)
			continue;
		if (q->tag == EJ_FC_TAG_INODE) {
			err = sim_set(&m, v);
			if (err)
				break;
			continue;
		}
		if (q->tag != EJ_FC_TAG_CREAT && q->tag != EJ_FC_TAG_LINK &&
		    q->tag != EJ_FC_TAG_UNLINK)
			continue;
		err = sim_get(&m, get32(v), &mode, &used);
		if (err)
			break;
		if (!LINUX_S_ISDIR(mode) || !used) {
			*would_flag = 1;
			break;
		}
		if (q->tag != EJ_FC_TAG_LINK)
			continue;
		err = sim_get(&m, get32(v + 4), &mode, &used);
		if (err)
			break;
		if (!mode || !used)
			*would_flag = 1;
	}
	free(m.v);
	return err;
}

const char *ej_fc_rec_verdict_name(int v)
{
	static const char *const names[EJ_FCR_MAX] = {
		[EJ_FCR_NOT_REPLAYED] = "not replayed",
		[EJ_FCR_PENDING] = "to replay",
		[EJ_FCR_REPLAYED] = "replayed",
		[EJ_FCR_NOTHING] = "nothing to do",
		[EJ_FCR_BAD_INO] = "skipped (bad inode number)",
		[EJ_FCR_BAD_BLOCK] =
			"skipped (block outside the filesystem, in its metadata or the journal)",
		[EJ_FCR_BAD_PARENT] = "skipped (parent not a directory)",
		[EJ_FCR_NOT_IN_USE] = "skipped (inode not in use)",
		[EJ_FCR_FAILED] = "skipped (cannot be applied)",
	};

	return v >= 0 && v < EJ_FCR_MAX ? names[v] : "?";
}
