// SPDX-License-Identifier: LGPL-2.0
/*
 * mounted.c: may this device or image be written?  The one check that
 * every writer of the library and of its programs makes before it opens
 * a filesystem or a journal for writing (ej_image_open(), the journal_t
 * level in write mode, e2journal replay, write and corrupt).
 *
 * A mounted filesystem belongs to the kernel: replaying its journal or
 * writing into its log under it corrupts both.  A device another program
 * holds open with O_EXCL (a mounted filesystem's external journal, mkfs,
 * a RAID or LVM layer, another fsck) is not ours either.  libext2fs finds
 * both (ext2fs_check_if_mounted(): /proc/mounts, loop devices backed by
 * an image file, and an O_EXCL probe of a block device); the writer then
 * opens the device with O_EXCL itself (EXT2_FLAG_EXCLUSIVE,
 * IO_FLAG_EXCLUSIVE), as e2fsck does, so that nobody mounts it between
 * the check and the writes.
 */
#include "config.h"

#include "ej_int.h"

errcode_t ej_check_mount(const char *path, unsigned int flags,
			 int *mount_flags)
{
	errcode_t err;
	int mf = 0;

	if (mount_flags)
		*mount_flags = 0;
	if (!path)
		return EJ_BAD_ARG;
	/*
	 * e2fsck goes on when the check itself fails (it warns): a path
	 * the check cannot make sense of is refused by the open anyway.
	 */
	err = ext2fs_check_if_mounted(path, &mf);
	if (err)
		return (flags & EJ_MOUNT_STRICT) ? err : 0;
	if (mount_flags)
		*mount_flags = mf;
	if (mf & EXT2_MF_MOUNTED)
		return EJ_MOUNTED;
	/* our own O_EXCL open makes the probe say busy: not another's */
	if ((mf & EXT2_MF_BUSY) && !(flags & EJ_MOUNT_HELD))
		return EJ_BUSY;
	return 0;
}

errcode_t ej_fs_check_mount(ext2_filsys fs)
{
	unsigned int flags = 0;

	if (!fs)
		return EJ_BAD_ARG;
	if (!fs->device_name)
		return 0;
	if (fs->flags & EXT2_FLAG_EXCLUSIVE)
		flags |= EJ_MOUNT_HELD;
	return ej_check_mount(fs->device_name, flags, NULL);
}
