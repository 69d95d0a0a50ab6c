// SPDX-License-Identifier: LGPL-2.0
/*
 * jsave.c: saved journals, the E2JSAVE1 format (ej_lib.h, struct
 * ej_saved_header): write one from an open journal ("e2journal save",
 * "e2fsck -E journal_save="), read and check a header (E2JSAVE1, or a
 * plain copy of the journal's blocks), and open a saved copy as the
 * journal recovery reads ("replay --from"), the filesystem's own journal
 * still mapped (jmap.c) so that replay never writes it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ej_int.h"

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
errcode_t ej_jmap_saved(struct ej_host *h, const struct ej_open_opts *o)
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
	    fs->super->s_journal_inum && !ej_jmap_internal(h)) {
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
