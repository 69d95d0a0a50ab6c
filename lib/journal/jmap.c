// SPDX-License-Identifier: LGPL-2.0
/*
 * jmap.c: map a filesystem's journal, logical journal block to physical
 * block, and say which filesystem blocks replay must never write.
 *
 * The journal is the inode s_journal_inum (its blocks mapped once into a
 * sorted extent list; when the inode is unusable, the copy of its block
 * map kept in the superblock's s_jnl_blocks) or an external journal
 * device named by the caller (its ext2 superblock checked, its blocks
 * numbered as the device's).  Every block number read from disk is
 * checked before it is used: the journal is the part of the filesystem
 * most likely to be damaged after a crash.  jopen.c calls these when it
 * opens a journal; jsave.c for the journal a saved copy stands in for.
 */
#include "ej_int.h"

static const __u8 zero_uuid[16];

/* ------------------------------------------------------- block mapping */

struct map_ctx {
	ext2_filsys		fs;
	unsigned long long	want;	/* logical blocks to map */
	unsigned long long	next;	/* next logical block expected */
	struct ej_extent	*ext;
	size_t			nr_ext, max_ext;
	struct ej_extent	*meta;	/* the map's own blocks */
	size_t			nr_meta, max_meta;
	int			holes;	/* e2fsck's way with extent holes */
	unsigned long long	nr_holes;
};

/*
 * At most this many blocks of an extent-mapped journal may be holes
 * (EJ_OPEN_E2FSCK): each is a map entry of its own.
 */
#define EJ_MAX_HOLE_BLOCKS	65536ULL

static int phys_ok(ext2_filsys fs, unsigned long long pblk,
		   unsigned long long len)
{
	unsigned long long count = ext2fs_blocks_count(fs->super);

	/* block 0 is never a journal's (e2fsck stops at it too) */
	return len && pblk && pblk >= fs->super->s_first_data_block &&
	       pblk < count && len <= count - pblk;
}

static errcode_t push(struct ej_extent **arr, size_t *nr, size_t *max,
		      unsigned long long lblk, unsigned long long pblk,
		      unsigned long long len)
{
	struct ej_extent *x;

	if (*nr) {
		x = &(*arr)[*nr - 1];
		if (x->lblk + x->len == lblk && x->pblk + x->len == pblk) {
			x->len += len;
			return 0;
		}
	}
	if (ej_grow((void **)arr, max, *nr + 1, sizeof(**arr)))
		return EJ_NO_MEMORY;
	x = &(*arr)[(*nr)++];
	x->lblk = lblk;
	x->pblk = pblk;
	x->len = len;
	return 0;
}

static errcode_t map_data(struct map_ctx *m, unsigned long long pblk,
			  unsigned long long len)
{
	errcode_t err;

	if (len > m->want - m->next)
		len = m->want - m->next;
	if (!phys_ok(m->fs, pblk, len))
		return EJ_BAD_JOURNAL_INODE;
	err = push(&m->ext, &m->nr_ext, &m->max_ext, m->next, pblk, len);
	if (!err)
		m->next += len;
	return err;
}

static errcode_t map_meta(struct map_ctx *m, unsigned long long pblk)
{
	if (!phys_ok(m->fs, pblk, 1))
		return EJ_BAD_JOURNAL_INODE;
	return push(&m->meta, &m->nr_meta, &m->max_meta, pblk, pblk, 1);
}

/*
 * e2fsck takes an extent-mapped journal inode with holes in it (its
 * check counts the blocks up to the last one mapped) and reads each hole
 * as the filesystem's block 0 (what bmap gives for one): mapped so, one
 * entry a block, up to logical block @to.  Never written: block 0 is in
 * no extent that forbids writes (install_map).
 */
static errcode_t map_holes(struct map_ctx *m, unsigned long long to)
{
	errcode_t err;

	if (to > m->want)
		to = m->want;
	if (to - m->next > EJ_MAX_HOLE_BLOCKS - m->nr_holes)
		return EJ_BAD_JOURNAL_INODE;
	for (; m->next < to; m->next++, m->nr_holes++) {
		err = push(&m->ext, &m->nr_ext, &m->max_ext, m->next, 0, 1);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t map_extents(struct map_ctx *m, ext2_ino_t ino,
			     struct ext2_inode *inode)
{
	ext2_filsys fs = m->fs;
	int saved = fs->flags & EXT2_FLAG_IGNORE_CSUM_ERRORS;
	unsigned long long guard, limit = 4 * m->want + 1024;
	ext2_extent_handle_t handle;
	struct ext2fs_extent ex;
	int op = EXT2_EXTENT_ROOT;
	errcode_t err;

	/*
	 * The inode may be the one rebuilt from s_jnl_blocks, whose
	 * generation need not match what the tree blocks were summed
	 * with; every block the tree yields is range-checked instead.
	 */
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	err = ext2fs_extent_open2(fs, ino, inode, &handle);
	if (err)
		goto out;
	for (guard = 0; m->next < m->want; guard++, op = EXT2_EXTENT_NEXT) {
		err = ext2fs_extent_get(handle, op, &ex);
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err)
			break;
		if (guard > limit) {
			err = EJ_BAD_JOURNAL_INODE;
			break;
		}
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			if (!(ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT))
				err = map_meta(m, ex.e_pblk);
			if (err)
				break;
			continue;
		}
		if (ex.e_lblk > m->next && m->holes) {
			err = map_holes(m, ex.e_lblk);
			if (err)
				break;
		}
		if (ex.e_lblk != m->next) {
			/* a hole, or extents out of order: unusable */
			err = EJ_BAD_JOURNAL_INODE;
			break;
		}
		err = map_data(m, ex.e_pblk, ex.e_len);
		if (err)
			break;
	}
	ext2fs_extent_free(handle);
out:
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) | saved;
	return err;
}

/* One indirect block of @level (1: its entries are data blocks). */
static errcode_t map_ind(struct map_ctx *m, blk_t blk, int level)
{
	unsigned int per = m->fs->blocksize / sizeof(__u32), i;
	errcode_t err;
	__u32 *buf;

	if (m->next >= m->want)
		return 0;
	if (!blk)
		return EJ_BAD_JOURNAL_INODE;
	err = map_meta(m, blk);
	if (err)
		return err;
	buf = malloc(m->fs->blocksize);
	if (!buf)
		return EJ_NO_MEMORY;
	err = io_channel_read_blk64(m->fs->io, blk, 1, buf);
	for (i = 0; !err && i < per && m->next < m->want; i++) {
		blk_t b = ext2fs_le32_to_cpu(buf[i]);

		if (level > 1)
			err = map_ind(m, b, level - 1);
		else if (!b)
			err = EJ_BAD_JOURNAL_INODE;
		else
			err = map_data(m, b, 1);
	}
	free(buf);
	return err;
}

static errcode_t map_indirect(struct map_ctx *m, struct ext2_inode *inode)
{
	errcode_t err = 0;
	int i;

	for (i = 0; !err && i < EXT2_NDIR_BLOCKS && m->next < m->want; i++) {
		if (!inode->i_block[i])
			return EJ_BAD_JOURNAL_INODE;
		err = map_data(m, inode->i_block[i], 1);
	}
	if (!err)
		err = map_ind(m, inode->i_block[EXT2_IND_BLOCK], 1);
	if (!err)
		err = map_ind(m, inode->i_block[EXT2_DIND_BLOCK], 2);
	if (!err)
		err = map_ind(m, inode->i_block[EXT2_TIND_BLOCK], 3);
	return err;
}

static int cmp_pblk(const void *a, const void *b)
{
	const struct ej_extent *x = a, *y = b;

	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	return 0;
}

/* Install @m's map in @h: by lblk, by pblk, and what replay must avoid. */
static errcode_t install_map(struct ej_host *h, struct map_ctx *m)
{
	size_t i, n = 0, total = m->nr_ext + m->nr_meta;
	struct ej_extent *f;

	h->pext = malloc((m->nr_ext ? m->nr_ext : 1) * sizeof(*h->pext));
	f = malloc((total ? total : 1) * sizeof(*f));
	if (!h->pext || !f) {
		free(f);
		free(h->pext);
		h->pext = NULL;
		return EJ_NO_MEMORY;
	}
	if (m->nr_ext) {
		memcpy(h->pext, m->ext, m->nr_ext * sizeof(*h->pext));
		qsort(h->pext, m->nr_ext, sizeof(*h->pext), cmp_pblk);
	}
	/* the holes (block 0) are read, not the journal's: not forbidden */
	total = 0;
	for (i = 0; i < m->nr_ext; i++)
		if (m->ext[i].pblk)
			f[total++] = m->ext[i];
	if (m->nr_meta)
		memcpy(f + total, m->meta, m->nr_meta * sizeof(*f));
	total += m->nr_meta;
	qsort(f, total, sizeof(*f), cmp_pblk);
	for (i = 0; i < total; i++) {
		if (n && f[i].pblk <= f[n - 1].pblk + f[n - 1].len) {
			unsigned long long end = f[i].pblk + f[i].len;

			if (end > f[n - 1].pblk + f[n - 1].len)
				f[n - 1].len = end - f[n - 1].pblk;
			continue;
		}
		f[n++] = f[i];
	}
	h->ext = m->ext;
	h->nr_ext = m->nr_ext;
	h->mapped = m->next;
	h->forbid = f;
	h->nr_forbid = n;
	m->ext = NULL;
	return 0;
}

/* Map @inode as the journal; 0 when every block it needs is sane. */
static errcode_t try_inode(struct ej_host *h, ext2_ino_t ino,
			   struct ext2_inode *inode)
{
	struct map_ctx m = { .fs = h->fs };
	unsigned long long size = EXT2_I_SIZE(inode);
	errcode_t err;

	m.holes = !!(h->flags & EJ_OPEN_E2FSCK);
	err = ej_jinode_validate(inode, h->fs->blocksize);
	if (err)
		return err;
	m.want = size / h->fs->blocksize;
	if (m.want > 0xffffffffULL)
		m.want = 0xffffffffULL;	/* journal blocks are 32-bit */
	if (inode->i_flags & EXT4_EXTENTS_FL)
		err = map_extents(&m, ino, inode);
	else
		err = map_indirect(&m, inode);
	if (!err && m.next < m.want)
		err = EJ_JOURNAL_TOO_SMALL;
	if (!err)
		err = install_map(h, &m);
	free(m.ext);
	free(m.meta);
	return err;
}

errcode_t ej_jmap_internal(struct ej_host *h)
{
	ext2_filsys fs = h->fs;
	struct ext2_super_block *sb = fs->super;
	ext2_ino_t ino = sb->s_journal_inum;
	struct ext2_inode inode;
	errcode_t err;

	h->info.ino = ino;
	h->jio = fs->io;
	if (!ino || ino > sb->s_inodes_count)
		err = EXT2_ET_BAD_INODE_NUM;
	else
		err = ext2fs_read_inode(fs, ino, &inode);
	if (!err)
		err = try_inode(h, ino, &inode);
	if (!err || sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS)
		return err;

	/* The inode is damaged; the superblock kept a copy of its map. */
	memset(&inode, 0, sizeof(inode));
	memcpy(inode.i_block, sb->s_jnl_blocks, sizeof(inode.i_block));
	inode.i_size_high = sb->s_jnl_blocks[15];
	inode.i_size = sb->s_jnl_blocks[16];
	inode.i_links_count = 1;
	inode.i_mode = LINUX_S_IFREG | 0600;
	if (!ext2fs_extent_header_verify(inode.i_block,
					 sizeof(inode.i_block)))
		inode.i_flags |= EXT4_EXTENTS_FL;
	if (!ino || ino > sb->s_inodes_count)
		ino = EXT2_JOURNAL_INO;
	if (try_inode(h, ino, &inode))
		return err;	/* the inode's own problem says more */
	h->info.from_backup = 1;
	return 0;
}

errcode_t ej_jmap_external(struct ej_host *h, const struct ej_open_opts *o)
{
	ext2_filsys fs = h->fs;
	unsigned int bs = fs->blocksize;
	io_manager io = o->io ? o->io : ej_io_wrap(unix_io_manager);
	const __u8 *want_uuid = NULL;
	enum ej_ext_reason reason;
	struct ext2_super_block sb;
	unsigned long long count;
	struct map_ctx m = { .fs = fs };
	char *buf;
	int flags = IO_FLAG_RW;
	errcode_t err;

	h->info.external = 1;
	if (h->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN)) {
		flags = 0;
	} else {
		/* its filesystem mounted, the kernel holds it: not ours */
		err = ej_check_mount(o->ext_journal, 0, NULL);
		if (err)
			return err;
		flags |= IO_FLAG_EXCLUSIVE;
	}
	err = io->open(o->ext_journal, flags, &h->jio);
	if (err == EBUSY && (flags & IO_FLAG_EXCLUSIVE))
		err = EJ_BUSY;
	if (err)
		return err;
	h->own_jio = 1;
	err = io_channel_set_blksize(h->jio, bs);
	if (err)
		return err;

	buf = malloc(bs);
	if (!buf)
		return EJ_NO_MEMORY;
	/* the device's ext2 superblock sits at byte 1024, as on any ext2 */
	err = io_channel_read_blk64(h->jio, SUPERBLOCK_OFFSET / bs, 1, buf);
	if (err)
		goto out;
	/* a host-order copy: the device's superblock is little-endian */
	memcpy(&sb, buf + SUPERBLOCK_OFFSET % bs, sizeof(sb));
	ej_super_to_cpu(&sb);
	if (!(h->flags & EJ_OPEN_NO_CHECK) &&
	    memcmp(fs->super->s_journal_uuid, zero_uuid, 16))
		want_uuid = fs->super->s_journal_uuid;
	err = ej_ext_sb_validate(&sb, want_uuid, bs, 1, &reason);
	/*
	 * The block size the device's ext2 superblock gives is not what
	 * e2fsck or Linux go by (the journal superblock's s_blocksize is):
	 * opened for e2fsck, a device whose field was changed is read in the
	 * filesystem's block size.
	 */
	if (err && reason == EJ_EXTR_BLOCKSIZE &&
	    (h->flags & EJ_OPEN_E2FSCK))
		err = 0;
	if (err)
		goto out;
	count = ext2fs_blocks_count(&sb);
	if (count > 0xffffffffULL)
		count = 0xffffffffULL;
	h->info.sb_block = SUPERBLOCK_OFFSET / bs + 1;
	/* the journal's block numbers are the device's */
	m.want = count;
	err = push(&m.ext, &m.nr_ext, &m.max_ext, 0, 0, count);
	if (!err) {
		m.next = count;
		err = install_map(h, &m);
	}
	free(m.ext);
	/* replay never writes the journal device: nothing to forbid */
	free(h->forbid);
	h->forbid = NULL;
	h->nr_forbid = 0;
out:
	free(buf);
	return err;
}
