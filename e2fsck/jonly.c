// SPDX-License-Identifier: GPL-2.0
/*
 * jonly.c: whether a run under -E journal_only is over once the journal
 * is replayed, without starting the engine (journal_only_done()): the
 * superblock check e2fsprogs' e2fsck would run next has provably
 * nothing to do.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e2fsck.h"
#include "jphase.h"

/*
 * -E journal_only: e2fsck 1.47 restarts after its replay, checks the
 * journal and the superblock (check_super_block) and exits 0 without
 * passes 1-5.  Running it as the engine for that costs a second process,
 * another open and close of the filesystem and their fsyncs.  It is left
 * out only when its superblock check has provably nothing to do: every
 * condition under which that check changes or reports anything (orphans,
 * times in the future, a missing UUID or dirhash hint, quota, a journal
 * to move, feature combinations it repairs, group descriptors it fixes)
 * sends the run to the engine as before.
 */
static int out_of(unsigned long long v, unsigned long long lo,
		  unsigned long long hi)
{
	return v < lo || v > hi;
}

/*
 * The bounds e2fsck's superblock check holds the superblock's counts and
 * sizes to, those ext2fs_open2() lets through among them: outside any of
 * them e2fsck reports "Corruption found in superblock" and gives up.
 */
static int sb_values_sane(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	unsigned long long blocks = ext2fs_blocks_count(sb), blks_max;
	unsigned long long ipb = EXT2_INODES_PER_BLOCK(sb);
	unsigned long long ipg_max, cpg_max, bpg_max;
	unsigned int isz = EXT2_INODE_SIZE(sb);

	ipg_max = sb->s_blocks_per_group < 4 ? 0 :
		  min_t(unsigned long long,
			ipb * (sb->s_blocks_per_group - 4ULL),
			EXT2_MAX_INODES_PER_GROUP(sb));
	cpg_max = min_t(unsigned long long, 8ULL * EXT2_BLOCK_SIZE(sb),
			EXT2_MAX_CLUSTERS_PER_GROUP(sb));
	bpg_max = min_t(unsigned long long,
			8ULL * EXT2_BLOCK_SIZE(sb) * EXT2FS_CLUSTER_RATIO(fs),
			EXT2_MAX_BLOCKS_PER_GROUP(sb));
	blks_max = min_t(unsigned long long,
			 (1ULL << 32) * EXT2_MAX_BLOCKS_PER_GROUP(sb),
			 ext2fs_has_feature_64bit(sb) ? (1ULL << 48) - 1 :
			 (1ULL << 32) - 1);

	if (!sb->s_inodes_count || out_of(blocks, 1, blks_max) ||
	    sb->s_first_data_block > blocks ||
	    sb->s_log_block_size >
	    EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE ||
	    out_of(sb->s_log_cluster_size, sb->s_log_block_size,
		   EXT2_MAX_CLUSTER_LOG_SIZE - EXT2_MIN_CLUSTER_LOG_SIZE) ||
	    out_of(sb->s_clusters_per_group, 8, cpg_max) ||
	    out_of(sb->s_blocks_per_group, 8, bpg_max) ||
	    out_of(sb->s_inodes_per_group, ipb, ipg_max) ||
	    ext2fs_r_blocks_count(sb) > blocks / 2 ||
	    sb->s_reserved_gdt_blocks > fs->blocksize / sizeof(__u32) ||
	    sb->s_desc_size > EXT2_MAX_DESC_SIZE ||
	    (sb->s_desc_size & (sb->s_desc_size - 1)))
		return 0;
	if (sb->s_rev_level > EXT2_GOOD_OLD_REV &&
	    out_of(sb->s_first_ino, EXT2_GOOD_OLD_FIRST_INO,
		   sb->s_inodes_count))
		return 0;
	if (out_of(isz, EXT2_GOOD_OLD_INODE_SIZE, fs->blocksize) ||
	    (isz & (isz - 1)))
		return 0;
	return (unsigned long long)sb->s_blocks_per_group ==
	       (unsigned long long)sb->s_clusters_per_group *
	       EXT2FS_CLUSTER_RATIO(fs);
}

int journal_only_done(struct e2fsck_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t first = sb->s_first_data_block, last, dev_blocks = 0;
	unsigned int isz = EXT2_INODE_SIZE(sb), want, min_extra, max_extra;
	int csum = ext2fs_has_group_desc_csum(fs);
	struct ext2_inode jinode;
	time_t now = time(NULL);
	dgrp_t i;

	/* e2fsck checks in full under -f, -c or -l even with journal_only */
	if ((ctx->options & E2F_OPT_FORCE) || ctx->cflag ||
	    ctx->bad_blocks_file)
		return 0;
	if (getenv("E2FSCK_TIME") || getenv("E2FSCK_CONFIG") ||
	    (ctx->flags & (E2F_FLAG_FLAGGED | E2F_FLAG_PROBLEMS_FIXED |
			   E2F_FLAG_FORCE_ENGINE)) || ctx->exit_value)
		return 0;
	if (!(sb->s_state & EXT2_VALID_FS) || (sb->s_state & EXT2_ERROR_FS) ||
	    sb->s_rev_level == EXT2_GOOD_OLD_REV ||
	    sb->s_creator_os == EXT2_OS_HURD ||
	    (sb->s_flags & EXT2_FLAGS_TEST_FILESYS) ||
	    uuid_null(sb->s_uuid))
		return 0;
	if (!sb_values_sane(fs))
		return 0;
	if (sb->s_last_orphan || ext2fs_has_feature_orphan_file(sb) ||
	    ext2fs_has_feature_orphan_present(sb))
		return 0;
	if (sb->s_mtime > (__u32)now || sb->s_wtime > (__u32)now)
		return 0;
	if (ext2fs_has_feature_quota(sb) || sb->s_usr_quota_inum ||
	    sb->s_grp_quota_inum || sb->s_prj_quota_inum)
		return 0;
	if (!ext2fs_has_feature_journal(sb) ||
	    sb->s_journal_inum != EXT2_JOURNAL_INO ||
	    !uuid_null(sb->s_journal_uuid))
		return 0;
	/* the superblock's copy of the journal inode's map, to be made */
	if (sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS ||
	    ext2fs_read_inode(fs, sb->s_journal_inum, &jinode) ||
	    memcmp(jinode.i_block, sb->s_jnl_blocks, sizeof(jinode.i_block)))
		return 0;
	if (ext2fs_has_feature_dir_index(sb) &&
	    !(sb->s_flags & (EXT2_FLAGS_SIGNED_HASH |
			     EXT2_FLAGS_UNSIGNED_HASH)))
		return 0;
	if ((ext2fs_has_feature_metadata_csum(sb) &&
	     ext2fs_has_feature_gdt_csum(sb)) ||
	    (!ext2fs_has_feature_metadata_csum(sb) &&
	     ext2fs_has_feature_csum_seed(sb)) ||
	    (ext2fs_has_feature_64bit(sb) && !ext2fs_has_feature_extents(sb)) ||
	    (ext2fs_has_feature_meta_bg(sb) &&
	     sb->s_first_meta_bg > fs->desc_blocks) ||
	    (!ext2fs_has_feature_resize_inode(sb) &&
	     sb->s_reserved_gdt_blocks))
		return 0;
	if (sb->s_first_data_block !=
	    (sb->s_log_block_size == 0 && EXT2FS_CLUSTER_RATIO(fs) == 1 ?
	     1U : 0U) ||
	    sb->s_inodes_count !=
	    (__u64)sb->s_inodes_per_group * fs->group_desc_count)
		return 0;
	if (isz > EXT2_GOOD_OLD_INODE_SIZE) {
		/* i_extra_isize and i_checksum_hi, 4 bytes */
		min_extra = 4;
		max_extra = isz - EXT2_GOOD_OLD_INODE_SIZE;
		want = sb->s_min_extra_isize;
		if (want && (want < min_extra || want > max_extra || want & 3))
			return 0;
		want = sb->s_want_extra_isize;
		if (want && (want < min_extra || want > max_extra || want & 3))
			return 0;
	}
	if (ext2fs_get_device_size2(ctx->filesystem_name, fs->blocksize,
				    &dev_blocks) ||
	    dev_blocks < ext2fs_blocks_count(sb))
		return 0;

	last = ext2fs_blocks_count(sb) - 1;
	for (i = 0; i < fs->group_desc_count; i++) {
		blk64_t bb = ext2fs_block_bitmap_loc(fs, i);
		blk64_t ib = ext2fs_inode_bitmap_loc(fs, i);
		blk64_t it = ext2fs_inode_table_loc(fs, i);
		__u32 unused = ext2fs_bg_itable_unused(fs, i);

		if (!ext2fs_has_feature_flex_bg(sb)) {
			first = ext2fs_group_first_block2(fs, i);
			last = ext2fs_group_last_block2(fs, i);
		}
		if (bb < first || bb > last || ib < first || ib > last ||
		    it < first || it + fs->inode_blocks_per_group - 1 > last)
			return 0;
		if (!ext2fs_group_desc_csum_verify(fs, i))
			return 0;
		if (!csum &&
		    (ext2fs_bg_flags_test(fs, i, EXT2_BG_BLOCK_UNINIT) ||
		     ext2fs_bg_flags_test(fs, i, EXT2_BG_INODE_UNINIT) ||
		     unused))
			return 0;
		if (i == fs->group_desc_count - 1 &&
		    ext2fs_bg_flags_test(fs, i, EXT2_BG_BLOCK_UNINIT))
			return 0;
		if (csum && (unused > ext2fs_bg_free_inodes_count(fs, i) ||
			     unused > sb->s_inodes_per_group))
			return 0;
	}
	return 1;
}
