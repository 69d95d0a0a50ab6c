// SPDX-License-Identifier: LGPL-2.0
/*
 * jopen.c: find a filesystem's journal, load its superblock, build the
 * journal_t that recovery.c runs on, and reset the journal afterwards.
 *
 * The journal is the inode s_journal_inum (its blocks mapped once into a
 * sorted extent list; when the inode is unusable, the copy of its block
 * map kept in the superblock's s_jnl_blocks) or an external journal
 * device named by the caller.  Every block number read from disk is
 * checked before it is used: the journal is the part of the filesystem
 * most likely to be damaged after a crash.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

static errcode_t open_internal(struct ej_host *h)
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

static errcode_t open_external(struct ej_host *h, const struct ej_open_opts *o)
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

/* ------------------------------------------------------ saved journals */

/* Little- and big-endian words of a buffer, whatever the host's order. */
static __u32 rd_be32(const unsigned char *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) |
	       ((__u32)p[2] << 8) | p[3];
}

static __u32 rd_le32(const unsigned char *p)
{
	return ((__u32)p[3] << 24) | ((__u32)p[2] << 16) |
	       ((__u32)p[1] << 8) | p[0];
}

static int valid_bs(__u32 bs)
{
	return bs >= EXT2_MIN_BLOCK_SIZE && bs <= EXT2_MAX_BLOCK_SIZE &&
	       !(bs & (bs - 1));
}

/* A JBD2 superblock (v1 or v2) of block size @bs at @p. */
static int is_jsb(const unsigned char *p, __u32 bs)
{
	__u32 type = rd_be32(p + offsetof(journal_header_t, h_blocktype));

	return rd_be32(p) == JBD2_MAGIC_NUMBER &&
	       (type == JBD2_SUPERBLOCK_V1 || type == JBD2_SUPERBLOCK_V2) &&
	       rd_be32(p + offsetof(journal_superblock_t, s_blocksize)) == bs;
}

/*
 * A plain copy of the journal's blocks (what "e2fsck -E journal_save="
 * wrote before E2JSAVE1, or dd of the journal inode): the journal
 * superblock at byte 0, or, for a copy of a whole external journal
 * device, an ext2 superblock with journal_dev at byte 1024 and the
 * journal superblock in the block after it.  Nothing in such a file says
 * whose journal it is: @fs_uuid stays zero.
 */
static errcode_t raw_header(FILE *f, struct ej_saved_header *hdr)
{
	unsigned char *buf;
	const unsigned char *es;
	unsigned long long size;
	__u32 bs, sb_blk;
	errcode_t err = EJ_BAD_SAVED;
	struct stat st;
	size_t got;

	if (fstat(fileno(f), &st) || st.st_size <= 0)
		return EJ_BAD_SAVED;
	size = (unsigned long long)st.st_size;
	buf = calloc(1, 2 * EXT2_MAX_BLOCK_SIZE);
	if (!buf)
		return EJ_NO_MEMORY;
	rewind(f);
	got = fread(buf, 1, 2 * EXT2_MAX_BLOCK_SIZE, f);

	memset(hdr, 0, sizeof(*hdr));
	bs = rd_be32(buf + offsetof(journal_superblock_t, s_blocksize));
	es = buf + SUPERBLOCK_OFFSET;
	if (got >= sizeof(journal_superblock_t) && valid_bs(bs) &&
	    is_jsb(buf, bs)) {
		sb_blk = 0;
		memcpy(hdr->journal_uuid,
		       buf + offsetof(journal_superblock_t, s_uuid), 16);
	} else if (got >= SUPERBLOCK_OFFSET + sizeof(struct ext2_super_block) &&
		   (es[offsetof(struct ext2_super_block, s_magic)] |
		    es[offsetof(struct ext2_super_block, s_magic) + 1] << 8) ==
		   EXT2_SUPER_MAGIC &&
		   (rd_le32(es + offsetof(struct ext2_super_block,
					   s_feature_incompat)) &
		    EXT3_FEATURE_INCOMPAT_JOURNAL_DEV) &&
		   rd_le32(es + offsetof(struct ext2_super_block,
					 s_log_block_size)) <= 6) {
		bs = EXT2_MIN_BLOCK_SIZE <<
		     rd_le32(es + offsetof(struct ext2_super_block,
					   s_log_block_size));
		sb_blk = SUPERBLOCK_OFFSET / bs + 1;
		if (!valid_bs(bs) || (size_t)(sb_blk + 1) * bs > got ||
		    !is_jsb(buf + (size_t)sb_blk * bs, bs))
			goto out;
		hdr->flags = EJ_SAVED_EXTERNAL;
		memcpy(hdr->journal_uuid,
		       es + offsetof(struct ext2_super_block, s_uuid), 16);
	} else {
		goto out;
	}
	memcpy(hdr->magic, EJ_SAVED_MAGIC, sizeof(hdr->magic));
	hdr->version = EJ_SAVED_VERSION;
	hdr->flags |= EJ_SAVED_RAW;
	hdr->header_size = 0;
	hdr->block_size = bs;
	hdr->nr_blocks = size / bs;
	if (hdr->nr_blocks > 0xffffffffULL)
		hdr->nr_blocks = 0xffffffffULL;
	hdr->sb_block = sb_blk;
	if (hdr->nr_blocks > sb_blk + 1)
		err = 0;
out:
	free(buf);
	return err;
}

errcode_t ej_saved_read_header(const char *path, struct ej_saved_header *hdr)
{
	struct ej_saved_header raw;
	__u32 csum;
	size_t got;
	errcode_t err;
	FILE *f;

	if (!path || !hdr)
		return EJ_BAD_ARG;
	f = fopen(path, "rb");
	if (!f)
		return errno ? errno : EJ_BAD_SAVED;
	got = fread(&raw, 1, sizeof(raw), f);
	if (got < sizeof(raw.magic) ||
	    memcmp(raw.magic, EJ_SAVED_MAGIC, sizeof(raw.magic))) {
		/* no E2JSAVE1 header: maybe a plain copy of the journal */
		err = raw_header(f, hdr);
		fclose(f);
		return err;
	}
	fclose(f);
	if (got != sizeof(raw))
		return EJ_BAD_SAVED;
	csum = ext2fs_le32_to_cpu(raw.csum);
	raw.csum = 0;
	if (ej_crc32c(~0U, &raw, EJ_SAVED_HDR_BYTES) != csum)
		return EJ_BAD_SAVED;

	*hdr = raw;
	hdr->version = ext2fs_le32_to_cpu(raw.version);
	hdr->header_size = ext2fs_le32_to_cpu(raw.header_size);
	hdr->block_size = ext2fs_le32_to_cpu(raw.block_size);
	hdr->flags = ext2fs_le32_to_cpu(raw.flags) & ~EJ_SAVED_RAW;
	hdr->nr_blocks = ext2fs_le64_to_cpu(raw.nr_blocks);
	hdr->sb_block = ext2fs_le64_to_cpu(raw.sb_block);
	hdr->saved_time = ext2fs_le64_to_cpu(raw.saved_time);
	hdr->ino = ext2fs_le32_to_cpu(raw.ino);
	hdr->csum = csum;
	if (hdr->version != EJ_SAVED_VERSION ||
	    !valid_bs(hdr->block_size) ||
	    hdr->header_size < sizeof(raw) || hdr->header_size > (1U << 20) ||
	    !hdr->nr_blocks || hdr->nr_blocks > 0xffffffffULL ||
	    hdr->sb_block >= hdr->nr_blocks)
		return EJ_BAD_SAVED;
	return 0;
}

void ej_saved_header_seal(struct ej_saved_header *hdr)
{
	memcpy(hdr->magic, EJ_SAVED_MAGIC, sizeof(hdr->magic));
	hdr->version = ext2fs_cpu_to_le32(hdr->version);
	hdr->header_size = ext2fs_cpu_to_le32(hdr->header_size);
	hdr->block_size = ext2fs_cpu_to_le32(hdr->block_size);
	hdr->flags = ext2fs_cpu_to_le32(hdr->flags & ~EJ_SAVED_RAW);
	hdr->nr_blocks = ext2fs_cpu_to_le64(hdr->nr_blocks);
	hdr->sb_block = ext2fs_cpu_to_le64(hdr->sb_block);
	hdr->saved_time = ext2fs_cpu_to_le64(hdr->saved_time);
	hdr->ino = ext2fs_cpu_to_le32(hdr->ino);
	hdr->csum = 0;
	hdr->csum = ext2fs_cpu_to_le32(ej_crc32c(~0U, hdr,
						 EJ_SAVED_HDR_BYTES));
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

#define SAVE_BATCH	256	/* blocks per write() */

errcode_t ej_saved_write(journal_t *journal, const char *path,
			 unsigned int flags, ej_saved_progress_fn progress,
			 void *arg, struct ej_saved_stats *st)
{
	const struct ej_journal_info *info;
	struct ej_saved_header *hdr;
	struct ej_host *h;
	unsigned long long nr, b;
	unsigned int bs;
	size_t fill = 0;
	char *buf = NULL;
	errcode_t err = 0;
	int fd = -1, oflags = O_WRONLY | O_CREAT;

	if (!journal || !path || !st || !journal->j_superblock)
		return EJ_BAD_ARG;
	memset(st, 0, sizeof(*st));
	h = ej_host_of(journal);
	info = &h->info;
	bs = h->fs->blocksize;
	nr = info->nr_blocks;
	if (!nr)
		return EJ_BAD_ARG;
	st->nr_blocks = nr;

	buf = calloc(SAVE_BATCH, bs);
	if (!buf)
		return EJ_NO_MEMORY;
	oflags |= (flags & EJ_SAVE_EXCL) ? O_EXCL : O_TRUNC;
	fd = open(path, oflags, 0600);
	if (fd < 0) {
		err = errno;
		goto out;
	}

	hdr = (struct ej_saved_header *)buf;
	hdr->version = EJ_SAVED_VERSION;
	hdr->header_size = bs;
	hdr->block_size = bs;
	hdr->flags = info->external ? EJ_SAVED_EXTERNAL : 0;
	hdr->nr_blocks = nr;
	hdr->sb_block = info->external ? info->sb_block : 0;
	memcpy(hdr->fs_uuid, h->fs->super->s_uuid, sizeof(hdr->fs_uuid));
	memcpy(hdr->journal_uuid, journal->j_superblock->s_uuid,
	       sizeof(hdr->journal_uuid));
	/* libext2fs' clock, as for the superblock's write time */
	hdr->saved_time = (__u64)(h->fs->now ? h->fs->now : time(NULL));
	hdr->ino = info->external ? 0 : info->ino;
	ej_saved_header_seal(hdr);
	if (write_all(fd, buf, bs)) {
		err = errno ? errno : EIO;
		goto out;
	}
	memset(buf, 0, bs);

	for (b = 0; b < nr; b++) {
		char *dst = buf + fill * bs;

		if (ej_journal_read_block(journal, (unsigned long)b, dst)) {
			/* keep the place: later blocks stay where they were */
			memset(dst, 0, bs);
			if (st->nr_bad < EJ_SAVED_BAD_LISTED)
				st->bad[st->nr_bad] = b;
			st->nr_bad++;
		}
		if (++fill == SAVE_BATCH || b + 1 == nr) {
			if (write_all(fd, buf, fill * bs)) {
				err = errno ? errno : EIO;
				goto out;
			}
			fill = 0;
			if (progress)
				progress(arg, b + 1, nr);
		}
	}
	if (fsync(fd))
		err = errno;
out:
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	free(buf);
	return err;
}

/*
 * The journal's blocks come from a saved copy (read-only, the header
 * skipped by the channel's offset), so logical block = the copy's block.
 * What replay may not write is still decided by @fs: its own journal, if
 * it has one that maps, stays forbidden.
 */
static errcode_t open_saved(struct ej_host *h, const struct ej_open_opts *o)
{
	ext2_filsys fs = h->fs;
	struct ej_saved_header hdr;
	char opt[40], *buf;
	errcode_t err;

	err = ej_saved_read_header(o->saved, &hdr);
	if (err)
		return err;
	if (hdr.block_size != fs->blocksize ||
	    (!(hdr.flags & EJ_SAVED_RAW) &&
	     memcmp(hdr.fs_uuid, fs->super->s_uuid, sizeof(hdr.fs_uuid))))
		return EJ_BAD_SAVED;

	if (ext2fs_has_feature_journal(fs->super) &&
	    fs->super->s_journal_inum && !open_internal(h)) {
		free(h->ext);
		free(h->pext);
		h->ext = h->pext = NULL;
	} else {
		free(h->forbid);
		h->forbid = NULL;
		h->nr_forbid = 0;
	}
	memset(&h->info, 0, sizeof(h->info));
	h->info.fs_blocks = ext2fs_blocks_count(fs->super);
	h->info.saved = 1;
	h->info.external = !!(hdr.flags & EJ_SAVED_EXTERNAL);
	h->info.ino = hdr.ino;
	if (h->info.external)
		h->info.sb_block = hdr.sb_block;

	h->ext = malloc(sizeof(*h->ext));
	h->pext = malloc(sizeof(*h->pext));
	if (!h->ext || !h->pext)
		return EJ_NO_MEMORY;
	h->ext->lblk = h->ext->pblk = 0;
	h->ext->len = hdr.nr_blocks;
	*h->pext = *h->ext;
	h->nr_ext = 1;
	h->mapped = hdr.nr_blocks;

	err = unix_io_manager->open(o->saved, 0, &h->jio);
	if (err)
		return err;
	h->own_jio = 1;
	err = io_channel_set_blksize(h->jio, fs->blocksize);
	if (!err && hdr.header_size) {
		snprintf(opt, sizeof(opt), "offset=%u", hdr.header_size);
		err = io_channel_set_options(h->jio, opt);
	}
	if (err)
		return err;
	/* a truncated copy is not a journal with read errors */
	buf = malloc(fs->blocksize);
	if (!buf)
		return EJ_NO_MEMORY;
	if (io_channel_read_blk64(h->jio, hdr.nr_blocks - 1, 1, buf))
		err = EJ_BAD_SAVED;
	free(buf);
	return err;
}

/* ------------------------------------------------- journal superblock */

static void sb_brelse(struct buffer_head *bh)
{
}

static struct buffer_head *sb_bread(struct block_device *bdev,
				    unsigned long long block,
				    unsigned int size, int *err)
{
	*err = -EINVAL;
	return NULL;
}

static int sb_sync(struct block_device *bdev)
{
	return 0;
}

/* j_sb_buffer belongs to the journal: brelse() on it does nothing. */
static const struct jbd2_bdev_ops sb_bdev_ops = {
	.bread	= sb_bread,
	.brelse	= sb_brelse,
	.sync	= sb_sync,
};

static errcode_t load_jsb(struct ej_host *h)
{
	journal_t *j = &h->journal;
	struct ej_jsb_result res;
	struct ej_jsb_env env;
	journal_superblock_t *jsb;
	unsigned long long phys;
	unsigned int problems = 0;
	__u32 type;
	errcode_t err;

	if (!h->info.external) {
		err = ej_glue_bmap(h, 0, &phys);
		if (err)
			return err;
		h->info.sb_block = phys;
	}
	phys = h->info.sb_block;
	h->sb_buf = malloc(h->fs->blocksize);
	if (!h->sb_buf)
		return EJ_NO_MEMORY;
	err = io_channel_read_blk64(h->jio, phys, 1, h->sb_buf);
	if (err)
		return err;
	jsb = (journal_superblock_t *)h->sb_buf;

	/* the superblock's own block in the journal's numbering */
	env.sb_lblk = h->info.external ? h->info.sb_block : 0;
	env.fs_blocksize = h->fs->blocksize;
	env.nr_blocks = h->mapped;
	env.fs_uuid = h->info.external ? h->fs->super->s_uuid : NULL;
	env.flags = EJ_JSBV_CSUM_OK | EJ_JSBV_SHARED_OK | EJ_JSBV_GEOMETRY;
	err = ej_jsb_validate(jsb, &env, &res);
	if (err == EJ_BAD_ARG)
		return err;
	problems = res.problems;
	h->info.jsb_problems = problems;
	h->info.nr_users = be32_to_cpu(jsb->s_nr_users);
	if (err && !(h->flags & EJ_OPEN_NO_CHECK))
		return err;

	type = be32_to_cpu(jsb->s_header.h_blocktype);
	j->j_format_version = type == JBD2_SUPERBLOCK_V1 ? 1 : 2;
	j->j_superblock = jsb;
	h->sbdev.bd_ops = &sb_bdev_ops;
	h->sbdev.bd_private = h;
	h->sb_bh.b_bdev = &h->sbdev;
	h->sb_bh.b_blocknr = phys;
	h->sb_bh.b_size = h->fs->blocksize;
	h->sb_bh.b_data = h->sb_buf;
	j->j_sb_buffer = &h->sb_bh;

	j->j_total_len = be32_to_cpu(jsb->s_maxlen);
	if (j->j_total_len > h->mapped)
		j->j_total_len = h->mapped;	/* only with NO_CHECK */
	j->j_first = be32_to_cpu(jsb->s_first);
	j->j_last = j->j_total_len;
	if (jbd2_has_feature_fast_commit(j)) {
		unsigned long nfc = be32_to_cpu(jsb->s_num_fc_blks);

		if (!nfc)
			nfc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (nfc < j->j_total_len) {
			j->j_last = j->j_total_len - nfc;
			/* as Linux and e2fsprogs place it: one block past */
			j->j_fc_first = j->j_last + 1;
			j->j_fc_last = j->j_total_len;
		} else if (!(h->flags & EJ_OPEN_NO_CHECK)) {
			return EJ_BAD_JSB;
		}
	}
	j->j_tail = be32_to_cpu(jsb->s_start);
	j->j_head = j->j_tail;
	j->j_tail_sequence = be32_to_cpu(jsb->s_sequence);
	j->j_transaction_sequence = j->j_tail_sequence;
	h->start_tid = j->j_tail_sequence;
	if (jbd2_journal_has_csum_v2or3(j))
		j->j_csum_seed = ej_jsb_csum_seed(jsb);
	if (problems & EJ_JSB_BAD_CSUM)
		j->j_replay_corrupt |= JBD2_CORRUPT_SUPERBLOCK;
	return 0;
}

/* ---------------------------------------------------------- the API */

errcode_t ej_journal_open(ext2_filsys fs, const struct ej_open_opts *opts,
			  journal_t **ret)
{
	struct ext2_super_block *sb;
	struct ej_host *h;
	journal_t *j;
	unsigned long hash;
	errcode_t err;

	if (!fs || !opts || !ret)
		return EJ_BAD_ARG;
	*ret = NULL;
	if (opts->policy < JBD2_POLICY_REPLAY_ALL ||
	    opts->policy > JBD2_POLICY_REFUSE)
		return EJ_BAD_ARG;
	/* a mounted filesystem's journal belongs to the kernel */
	if (!(opts->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN))) {
		err = ej_fs_check_mount(fs);
		if (err)
			return err;
	}
	sb = fs->super;
	if (!opts->ext_journal && !opts->saved) {
		if (!ext2fs_has_feature_journal(sb) &&
		    !ext2fs_has_feature_journal_needs_recovery(sb))
			return EJ_NO_JOURNAL;
		/*
		 * A journal UUID means the journal is external, whatever
		 * s_journal_inum says (as e2fsck and Linux read it): an
		 * inode left over from an internal journal is not its log.
		 */
		if (memcmp(sb->s_journal_uuid, zero_uuid, 16))
			return EJ_EXT_JOURNAL_NEEDED;
		if (!sb->s_journal_inum)
			return EJ_NO_JOURNAL;
	}

	h = calloc(1, sizeof(*h));
	if (!h)
		return EJ_NO_MEMORY;
	j = &h->journal;
	h->fs = fs;
	h->flags = opts->flags;
	h->io_flags = opts->io_flags;
	h->info.fs_blocks = ext2fs_blocks_count(sb);
	j->j_host = h;
	j->j_host_ops = &ej_io_host_ops;
	j->j_blocksize = fs->blocksize;
	j->j_replay_policy = opts->policy;
	h->jdev.bd_ops = &ej_jdev_ops;
	h->jdev.bd_private = h;
	h->fsdev.bd_ops = &ej_fsdev_ops;
	h->fsdev.bd_private = h;
	j->j_dev = &h->jdev;
	j->j_fs_dev = &h->fsdev;
	err = ej_report_init(&h->report);
	if (err)
		goto fail;
	h->report.policy = opts->policy;
	j->j_report = &h->report;

	if (opts->saved)
		err = open_saved(h, opts);
	else if (opts->ext_journal)
		err = open_external(h, opts);
	else
		err = open_internal(h);
	h->info.nr_blocks = h->mapped;
	if (!err)
		err = ej_glue_init(h);
	if (!err)
		err = load_jsb(h);
	if (err)
		goto fail;
	ej_fc_host_setup(h);
	/* an input of every block's verdict (verdict.c) */
	h->report.jsb_bad_csum = !!(h->info.jsb_problems & EJ_JSB_BAD_CSUM);

	hash = j->j_total_len;
	if (hash > 0x7fffffffUL)
		hash = 0x7fffffffUL;
	if (jbd2_journal_init_revoke(j, (int)hash)) {
		err = EJ_NO_MEMORY;
		goto fail;
	}
	*ret = j;
	return 0;
fail:
	ej_journal_close(j);
	return err;
}

void ej_journal_close(journal_t *journal)
{
	struct ej_host *h;

	if (!journal)
		return;
	h = ej_host_of(journal);
	if (journal->j_revoke)
		jbd2_journal_destroy_revoke(journal);
	ej_glue_free(h);
	ej_fc_host_free(h);
	ej_report_free(&h->report);
	if (h->own_jio && h->jio)
		io_channel_close(h->jio);
	free(h->ext);
	free(h->pext);
	free(h->forbid);
	free(h->sb_buf);
	free(h);
}

const struct ej_journal_info *ej_journal_info(journal_t *journal)
{
	return journal ? &ej_host_of(journal)->info : NULL;
}

/* What recovery found so far, as the report shows it. */
static unsigned int flagged(journal_t *j)
{
	struct ej_host *h = ej_host_of(j);
	unsigned int c = j->j_replay_corrupt;

	if (j->j_failed_commit)
		c |= JBD2_CORRUPT_COMMIT_CSUM;
	if (h->info.jsb_problems & EJ_JSB_BAD_CSUM)
		c |= JBD2_CORRUPT_SUPERBLOCK;
	return c;
}

/*
 * The tid the journal is reset to (or would be) after this recovery: one
 * definition for every report (e2journal plan, replay, e2fsck's JSON).
 * Recovery restarts the log one past the end it found (the kernel's
 * ++end_transaction: tids 1-3 committed, 5).  Under stop a recovery
 * error resets it where the log started, as e2fsprogs 1.47 does
 * (ej_journal_finish()).  A refused replay keeps the journal; its next
 * transaction is still the one a replay would start (recovery returns
 * before it says): one past the end of the last committed transaction
 * in the log, as decide() in recovery.c finds it.
 */
static __u32 next_tid(journal_t *j, const struct ej_report *r)
{
	struct ej_host *h = ej_host_of(j);
	__u32 end = h->start_tid;
	size_t i;

	if (j->j_replay_policy == JBD2_POLICY_STOP && h->recover_err)
		return h->start_tid;
	if (j->j_replay_policy != JBD2_POLICY_REFUSE || !r->corrupt ||
	    !r->nr_txns)
		return j->j_transaction_sequence;
	for (i = 0; i < r->nr_txns; i++) {
		switch (r->txns[i].status) {
		case JBD2_COMMIT_OK:
		case JBD2_COMMIT_BAD_CSUM:
		case JBD2_COMMIT_GARBLED:
		case JBD2_COMMIT_ASYNC_TAIL:
			end = r->txns[i].tid + 1;
			break;
		}
	}
	return end + 1;
}

struct ej_report *ej_journal_report(journal_t *journal)
{
	struct ej_host *h;

	if (!journal)
		return NULL;
	h = ej_host_of(journal);
	h->report.policy = journal->j_replay_policy;
	h->report.corrupt |= flagged(journal);
	h->report.start_tid = h->start_tid;
	h->report.next_tid = next_tid(journal, &h->report);
	if (h->fc_scanned) {
		h->report.fc = &h->fc;
		h->report.fc_area = h->fc_area;
	}
	return &h->report;
}

/* ej_recovery_outcome() with the result read from @journal's report. */
void ej_journal_outcome(journal_t *journal, int policy, int rc,
			struct ej_outcome *out)
{
	struct ej_recovery_result in = { .policy = policy, .rc = rc };

	if (journal) {
		in.corrupt = ej_journal_report(journal)->corrupt;
		in.failed_commit = journal->j_failed_commit;
	}
	ej_recovery_outcome(journal ? &in : NULL, out);
}

errcode_t ej_journal_read_block(journal_t *journal, unsigned long lblk,
				void *buf)
{
	struct ej_host *h;
	unsigned long long phys;
	errcode_t err;

	if (!journal || !buf)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	if (lblk >= h->mapped)
		return EJ_BLOCK_OUT_OF_RANGE;
	err = ej_glue_bmap(h, lblk, &phys);
	if (err)
		return err;
	return io_channel_read_blk64(h->jio, phys, 1, buf);
}

/* Write the journal superblock; flush it too unless @flush is 0. */
static errcode_t write_sb(journal_t *journal, int flush)
{
	struct ej_host *h;
	errcode_t err;

	if (!journal)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	if (h->flags & EJ_OPEN_READONLY)
		return EXT2_ET_RO_FILSYS;
	/* a saved copy is evidence: it is never changed */
	if ((h->flags & EJ_OPEN_DRY_RUN) || h->info.saved)
		return 0;
	if (jbd2_journal_has_csum_v2or3(journal))
		ej_jsb_csum_set(journal->j_superblock);
	err = io_channel_write_blk64(h->jio, h->info.sb_block, 1, h->sb_buf);
	ej_glue_invalidate(h, h->info.sb_block);
	if (!err && flush)
		err = io_channel_flush(h->jio);
	return err;
}

errcode_t ej_journal_write_sb(journal_t *journal)
{
	return write_sb(journal, 1);
}

/*
 * Replay may have rewritten the filesystem superblock (ext4 logs it), so
 * the copy libext2fs read at open is stale: reload it from disk before
 * changing flags in it.
 */
static errcode_t reload_super(ext2_filsys fs)
{
	unsigned int bs = fs->blocksize;
	struct ext2_super_block *es;
	char *buf;
	errcode_t err;

	buf = malloc(bs);
	if (!buf)
		return EJ_NO_MEMORY;
	err = io_channel_read_blk64(fs->io, SUPERBLOCK_OFFSET / bs, 1, buf);
	if (err)
		goto out;
	es = (struct ext2_super_block *)(buf + SUPERBLOCK_OFFSET % bs);
	if (ext2fs_le16_to_cpu(es->s_magic) != EXT2_SUPER_MAGIC) {
		err = EXT2_ET_BAD_MAGIC;
		goto out;
	}
	/* as ext2fs_open() keeps them: orig_super as on disk, super in
	 * host order */
	memcpy(fs->super, es, SUPERBLOCK_SIZE);
	ej_super_to_cpu(fs->super);
	if (fs->orig_super)
		memcpy(fs->orig_super, es, SUPERBLOCK_SIZE);
out:
	free(buf);
	return err;
}

/*
 * Does the fast-commit area hold commits that follow the log just
 * replayed?  Only e2fsprogs' e2fsck (and Linux) replay them; resetting
 * the journal would throw them away.  A head whose tid is not the one
 * after the log is left over from before the last full commit.
 */
static int fc_pending(journal_t *j)
{
	unsigned char *b;
	int pending = 1;	/* what cannot be read cannot be dropped */

	if (!jbd2_has_feature_fast_commit(j) || !j->j_fc_first ||
	    j->j_fc_first >= j->j_fc_last)
		return 0;
	b = malloc(j->j_blocksize);
	if (!b)
		return 1;
	if (!ej_journal_read_block(j, j->j_fc_first, b)) {
		unsigned int tag = b[0] | b[1] << 8, len = b[2] | b[3] << 8;
		__u32 tid = b[8] | b[9] << 8 | b[10] << 16 | (__u32)b[11] << 24;

		pending = tag == EJ_FC_TAG_HEAD && len >= 8 &&
			  tid == j->j_transaction_sequence - 1;
	}
	free(b);
	return pending;
}

int ej_journal_fc_pending(journal_t *journal)
{
	return journal && journal->j_tail &&
	       !ej_fc_host_handles(ej_host_of(journal)) &&
	       fc_pending(journal);
}

void ej_journal_set_recover_result(journal_t *journal, int err)
{
	if (journal)
		ej_host_of(journal)->recover_err = err;
}

/* Reload @fs's superblock, set its state (and clear needs_recovery). */
static errcode_t set_fs_state(ext2_filsys fs, int error_fs, int not_valid,
			      int recovered)
{
	errcode_t err;

	err = reload_super(fs);
	if (err)
		return err;
	if (recovered)
		ext2fs_clear_feature_journal_needs_recovery(fs->super);
	if (error_fs)
		fs->super->s_state |= EXT2_ERROR_FS;
	if (not_valid)
		fs->super->s_state &= ~EXT2_VALID_FS;
	/* as ext2fs_flush() would, but in one write (fssuper.c) */
	fs->super->s_wtime = fs->now ? fs->now : time(NULL);
	return ej_fs_write_super(fs, fs->super);
}

/*
 * The group descriptors libext2fs holds may be stale after replay too:
 * only the primary superblock is written here, and a caller that goes on
 * using @fs's metadata should reopen it (as e2fsck does).
 */
errcode_t ej_journal_finish(journal_t *journal)
{
	journal_superblock_t *jsb;
	struct ej_host *h;
	ext2_filsys fs;
	unsigned int bad;
	int error_fs, not_valid = 0;
	errcode_t err;

	if (!journal)
		return EJ_BAD_ARG;
	h = ej_host_of(journal);
	fs = h->fs;
	ej_journal_report(journal);
	if (h->flags & (EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN))
		return 0;

	/* every replayed block on disk before the log is let go */
	err = ej_glue_write_replayed(h);
	if (!err && ej_glue_needs_flush(h))
		err = io_channel_flush(fs->io);
	if (err)
		return err;
	if (h->journal.j_tail && ej_fc_host_handles(h)) {
		/* ours: on disk before the log that holds it is let go */
		err = ej_fc_host_finish(h);
		if (err)
			return err;
		/* what the records themselves flagged */
		ej_journal_report(journal);
	} else if (ej_journal_fc_pending(journal)) {
		return EJ_FAST_COMMIT_PENDING;
	}

	bad = flagged(journal);
	jsb = journal->j_superblock;
	/* an aborted journal (s_errno) means the fs had errors: keep that */
	error_fs = jsb->s_errno != 0;
	jsb->s_start = 0;
	if (journal->j_replay_policy == JBD2_POLICY_STOP) {
		/*
		 * e2fsprogs 1.47: a failed commit becomes the error state and
		 * s_errno is cleared; a recovery error leaves the sequence
		 * where the log started and the filesystem not clean.  Tags
		 * outside the filesystem, which it would have written, are
		 * this policy's one difference and are flagged.  A superblock
		 * that failed its checksum: reset, nothing replayed, not clean.
		 */
		if (journal->j_failed_commit ||
		    (bad & JBD2_CORRUPT_OUT_OF_RANGE))
			error_fs = 1;
		jsb->s_errno = 0;
		if (h->info.jsb_problems & EJ_JSB_BAD_CSUM)
			not_valid = 1;	/* reset without replay (jglue.c) */
		if (h->recover_err) {
			jsb->s_sequence = cpu_to_be32(h->start_tid);
			not_valid = 1;
		} else {
			jsb->s_sequence =
				cpu_to_be32(journal->j_transaction_sequence);
		}
	} else {
		if (bad)
			error_fs = 1;
		jsb->s_errno = bad ? cpu_to_be32((__u32)-EINVAL) : 0;
		/*
		 * An empty log (a run that lost power between the reset and
		 * the superblock write left needs_recovery set) keeps its
		 * sequence: every tid it held is already below it, and the
		 * rerun then ends exactly where the first run would have.
		 */
		if (journal->j_tail)
			jsb->s_sequence =
				cpu_to_be32(journal->j_transaction_sequence);
	}
	/*
	 * The error state goes to disk before the journal that explains it
	 * is let go: power lost in between must not leave an empty journal
	 * and a filesystem that looks clean.  (Power lost before the reset
	 * replays everything again, to the same end.)
	 */
	if (error_fs || not_valid) {
		err = set_fs_state(fs, error_fs, not_valid, 0);
		if (err)
			return err;
	}
	/*
	 * The reset log is on disk before needs_recovery goes (a flush of
	 * its own: the superblock write below flushes only after it).
	 */
	err = write_sb(journal, 1);
	if (err)
		return err;
	return set_fs_state(fs, error_fs, not_valid, 1);
}
