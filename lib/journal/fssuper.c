// SPDX-License-Identifier: LGPL-2.0
/*
 * fssuper.c: the filesystem's primary superblock, written so that a power
 * cut cannot tear it.
 *
 * libext2fs writes the primary superblock by comparing it with the copy it
 * read and writing each changed run of bytes on its own (one write call
 * a run), the checksum among them.  A power cut between two of those calls
 * leaves a superblock whose checksum fails, and every e2fsck after it
 * stops with exit 8 until someone names a backup with -b.  Here the whole
 * superblock (SUPERBLOCK_SIZE bytes at SUPERBLOCK_OFFSET, its checksum
 * computed over what is written) goes to the disk in one write call, so
 * the disk holds either the old superblock or the new one; then the
 * channel is flushed, so that what the caller writes next comes after it.
 */
#include <time.h>

#include "ej_int.h"

/* One write call of the SUPERBLOCK_SIZE bytes at @buf to their place. */
static errcode_t write_whole(ext2_filsys fs, const void *buf)
{
	errcode_t err;

	/*
	 * unix_io: one write of the range (its cache is written out first).
	 * Channels opened for direct I/O have no byte writes; a 1 KiB
	 * "block" write is then one write too, bounced through an aligned
	 * buffer when the channel needs one.
	 */
	if (fs->io->manager->write_byte) {
		err = io_channel_write_byte(fs->io, SUPERBLOCK_OFFSET,
					    SUPERBLOCK_SIZE, buf);
		if (err != EXT2_ET_UNIMPLEMENTED)
			return err;
	}
	err = io_channel_set_blksize(fs->io, SUPERBLOCK_OFFSET);
	if (err)
		return err;
	err = io_channel_write_blk64(fs->io, 1, -SUPERBLOCK_SIZE, buf);
	io_channel_set_blksize(fs->io, fs->blocksize);
	return err;
}

errcode_t ej_fs_write_super(ext2_filsys fs, const struct ext2_super_block *sb)
{
	struct ext2_super_block *disk;
	errcode_t err;

	if (!fs || !sb)
		return EJ_BAD_ARG;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	disk = malloc(SUPERBLOCK_SIZE);
	if (!disk)
		return EJ_NO_MEMORY;
	memcpy(disk, sb, SUPERBLOCK_SIZE);
	/* the primary copy says it is the primary copy */
	disk->s_block_group_nr = 0;
	ej_super_to_disk(disk);
	err = ext2fs_superblock_csum_set(fs, disk);
	if (!err)
		err = write_whole(fs, disk);
	if (!err)
		err = io_channel_flush(fs->io);
	if (!err) {
		/*
		 * What is on disk now is what libext2fs compares with: a
		 * later ext2fs_flush() of the same contents writes nothing.
		 */
		if (fs->super != sb)
			memcpy(fs->super, sb, SUPERBLOCK_SIZE);
		fs->super->s_block_group_nr = 0;
		fs->super->s_checksum = ext2fs_le32_to_cpu(disk->s_checksum);
		if (fs->orig_super)
			memcpy(fs->orig_super, disk, SUPERBLOCK_SIZE);
		fs->flags &= ~EXT2_FLAG_DIRTY;
	}
	free(disk);
	return err;
}

/*
 * ext2fs_close_free() with the superblock written whole.  Like libext2fs,
 * the bytes written through @fs's channel are added to s_kbytes_written
 * when that statistic is kept, and the write time is set when anything is
 * written.  Only the primary superblock is written: the callers change
 * nothing else that ext2fs_close() would write (group descriptors are
 * written by e2fsck's passes, backups by e2fsck at the end of a check).
 * @fs is freed and *@fsp cleared whatever happens.
 */
errcode_t ej_fs_close(ext2_filsys *fsp)
{
	struct ext2_super_block sb;
	ext2_filsys fs = fsp ? *fsp : NULL;
	io_stats stats = NULL;
	int write = 0;
	errcode_t err = 0;

	if (!fs)
		return EJ_BAD_ARG;
	if (fs->flags & EXT2_FLAG_RW) {
		sb = *fs->super;
		if (sb.s_kbytes_written && fs->io->manager->get_stats &&
		    !fs->io->manager->get_stats(fs->io, &stats) && stats &&
		    stats->bytes_written) {
			sb.s_kbytes_written += stats->bytes_written >> 10;
			write = 1;
		}
		if (fs->flags & EXT2_FLAG_DIRTY)
			write = 1;
		if (write) {
			sb.s_wtime = fs->now ? fs->now : time(NULL);
			err = ej_fs_write_super(fs, &sb);
		}
	}
	/* nothing else is written: no ext2fs_close() */
	ext2fs_free(fs);
	*fsp = NULL;
	return err;
}

/*
 * needs_recovery over an empty log: clear it, as e2fsck does, with the
 * superblock written whole.
 */
errcode_t ej_fs_clear_recover(ext2_filsys fs)
{
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super))
		return 0;
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	fs->super->s_wtime = fs->now ? fs->now : time(NULL);
	return ej_fs_write_super(fs, fs->super);
}
