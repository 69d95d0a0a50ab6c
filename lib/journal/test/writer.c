// SPDX-License-Identifier: LGPL-2.0
/*
 * writer.c: open a journal writer on a sink (memory in the unit tests, or
 * the internal or external journal of a libext2fs image), format or load
 * the journal superblock, and move the writer's blocks to and from it.
 *
 * The tests of the recovery code need journals whose every block is known:
 * healthy ones in each tag layout and checksum mode, and ones broken in one
 * precise place.  wtxn.c lays transactions out the way a kernel commit
 * does and remembers where each block went; wfault.c uses that record to
 * flip exactly the byte a test names.  Part of the test library
 * (lib/journal/test/), not of libe2journal.so.
 */
#include "writer_int.h"
#include "ej_fcw.h"

static const unsigned char ej_w_default_uuid[JBD2_UUID_BYTES] = {
	0xe2, 0x10, 0x75, 0x4a, 0x0b, 0x3c, 0x4d, 0x5e,
	0x8f, 0x61, 0x72, 0x83, 0x94, 0xa5, 0xb6, 0xc7,
};

/* ------------------------------------------------------------------ */
/* Moving blocks                                                       */

/* Checksum in the last 4 bytes of a descriptor or revoke block. */
void ejw_tail_set(const struct ej_writer *w, unsigned char *blk)
{
	if (!w->tail_bytes)
		return;
	memset(blk + w->bs - w->tail_bytes, 0, w->tail_bytes);
	put_be32(blk + w->bs - w->tail_bytes, ej_crc32c(w->seed, blk, w->bs));
}

/* Commit checksum: @crc is the v1 crc32 of the transaction. */
void ejw_commit_csum_set(const struct ej_writer *w, unsigned char *blk,
			 __u32 crc)
{
	struct commit_header *ch = (struct commit_header *)blk;

	if (w->csum == EJ_CSUM_V1) {
		ch->h_chksum_type = JBD2_CRC32_CHKSUM;
		ch->h_chksum_size = JBD2_CRC32_CHKSUM_SIZE;
		put_be32(blk + EJ_W_COMMIT_CSUM_OFF, crc);
	} else if (w->csum == EJ_CSUM_V2 || w->csum == EJ_CSUM_V3) {
		put_be32(blk + EJ_W_COMMIT_CSUM_OFF, 0);
		put_be32(blk + EJ_W_COMMIT_CSUM_OFF,
			 ej_crc32c(w->seed, blk, w->bs));
	}
}

/* Every write of the writer comes here: a dry writer drops them. */
static errcode_t sink_write(struct ej_writer *w, unsigned long lblk,
			    const void *buf)
{
	if (w->dry)
		return 0;
	return w->sink.write(w->sink.arg, lblk, buf);
}

errcode_t ejw_write(struct ej_writer *w, unsigned long lblk, const void *buf)
{
	if (lblk >= w->maxlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	return sink_write(w, lblk, buf);
}

errcode_t ejw_read(struct ej_writer *w, unsigned long lblk, void *buf)
{
	if (lblk >= w->maxlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	return w->sink.read(w->sink.arg, lblk, buf);
}

/* Write the in-memory superblock into the first 1024 bytes of its block. */
errcode_t ejw_write_jsb(struct ej_writer *w, int set_csum)
{
	errcode_t err;

	if (set_csum && sb_is_v2(w) &&
	    (be32_to_cpu(w->jsb.s_feature_incompat) &
	     (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3))) {
		w->jsb.s_checksum = 0;
		w->jsb.s_checksum = cpu_to_be32(ej_crc32c(~0U, &w->jsb,
							  sizeof(w->jsb)));
	}
	err = w->sink.read(w->sink.arg, w->sb_block, w->buf);
	if (err)
		return err;
	memcpy(w->buf, &w->jsb, sizeof(w->jsb));
	return sink_write(w, w->sb_block, w->buf);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */

static errcode_t set_features(struct ej_writer *w,
			      const struct ej_writer_opts *o)
{
	__u32 compat, incompat;

	if (o->csum < EJ_CSUM_NONE || o->csum > EJ_CSUM_V3)
		return EJ_BAD_ARG;
	if (!sb_is_v2(w)) {
		if (o->csum != EJ_CSUM_NONE ||
		    (o->flags & (EJ_W_64BIT | EJ_W_ASYNC_COMMIT |
				 EJ_W_FAST_COMMIT | EJ_W_REVOKE)))
			return EJ_BAD_ARG;
		return 0;
	}
	compat = be32_to_cpu(w->jsb.s_feature_compat);
	incompat = be32_to_cpu(w->jsb.s_feature_incompat);
	compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
	incompat &= ~(JBD2_FEATURE_INCOMPAT_64BIT |
		      JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT |
		      JBD2_FEATURE_INCOMPAT_CSUM_V2 |
		      JBD2_FEATURE_INCOMPAT_CSUM_V3 |
		      JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	if (o->csum == EJ_CSUM_V1)
		compat |= JBD2_FEATURE_COMPAT_CHECKSUM;
	if (o->csum == EJ_CSUM_V2)
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V2;
	if (o->csum == EJ_CSUM_V3)
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
	if (o->flags & EJ_W_64BIT)
		incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (o->flags & EJ_W_ASYNC_COMMIT)
		incompat |= JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT;
	if (o->flags & EJ_W_REVOKE)
		incompat |= JBD2_FEATURE_INCOMPAT_REVOKE;
	if (o->flags & EJ_W_FAST_COMMIT) {
		incompat |= JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
		w->jsb.s_num_fc_blks = cpu_to_be32(o->num_fc_blks);
	}
	w->jsb.s_feature_compat = cpu_to_be32(compat);
	w->jsb.s_feature_incompat = cpu_to_be32(incompat);
	w->jsb.s_checksum_type = (o->csum == EJ_CSUM_V2 ||
				  o->csum == EJ_CSUM_V3) ?
				 JBD2_CRC32C_CHKSUM_TYPE : 0;
	return 0;
}

static errcode_t format_jsb(struct ej_writer *w,
			    const struct ej_writer_opts *o)
{
	journal_superblock_t *sb = &w->jsb;
	unsigned long first = o->first ? o->first : w->sb_block + 1;

	if (!o->maxlen || first >= o->maxlen || o->maxlen > 0xffffffffUL)
		return EJ_BAD_ARG;
	memset(sb, 0, sizeof(*sb));
	sb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	sb->s_header.h_blocktype = cpu_to_be32((o->flags & EJ_W_V1_SUPER) ?
					       JBD2_SUPERBLOCK_V1 :
					       JBD2_SUPERBLOCK_V2);
	sb->s_blocksize = cpu_to_be32(w->bs);
	sb->s_maxlen = cpu_to_be32(o->maxlen);
	sb->s_first = cpu_to_be32(first);
	sb->s_sequence = cpu_to_be32((o->flags & EJ_W_SET_TID) ?
				     o->start_tid : 1);
	memcpy(sb->s_uuid, o->uuid ? o->uuid : ej_w_default_uuid,
	       JBD2_UUID_BYTES);
	sb->s_nr_users = cpu_to_be32(1);
	return set_features(w, o);
}

static errcode_t load_jsb(struct ej_writer *w, const struct ej_writer_opts *o)
{
	__u32 type;
	errcode_t err;

	err = w->sink.read(w->sink.arg, w->sb_block, w->buf);
	if (err)
		return err;
	memcpy(&w->jsb, w->buf, sizeof(w->jsb));
	type = be32_to_cpu(w->jsb.s_header.h_blocktype);
	if (be32_to_cpu(w->jsb.s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2) ||
	    be32_to_cpu(w->jsb.s_blocksize) != w->bs)
		return EJ_BAD_JSB;
	if (o->flags & EJ_W_SET_FEATURES)
		return set_features(w, o);
	return 0;
}

/* Everything the layout needs, from the superblock as it now stands. */
static errcode_t derive_geometry(struct ej_writer *w,
				 const struct ej_writer_opts *o)
{
	__u32 compat = 0, incompat = 0;
	unsigned long fc = 0;
	unsigned int space, n;

	if (sb_is_v2(w)) {
		compat = be32_to_cpu(w->jsb.s_feature_compat);
		incompat = be32_to_cpu(w->jsb.s_feature_incompat);
	}
	if (incompat & ~JBD2_KNOWN_INCOMPAT_FEATURES)
		return EJ_UNSUPP_FEATURE;

	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		w->csum = EJ_CSUM_V3;
	else if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		w->csum = EJ_CSUM_V2;
	else if (compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		w->csum = EJ_CSUM_V1;
	else
		w->csum = EJ_CSUM_NONE;
	w->is64 = !!(incompat & JBD2_FEATURE_INCOMPAT_64BIT);

	w->maxlen = be32_to_cpu(w->jsb.s_maxlen);
	w->first = be32_to_cpu(w->jsb.s_first);
	if (incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		fc = be32_to_cpu(w->jsb.s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
	}
	if (fc >= w->maxlen)
		return EJ_BAD_JSB;
	w->last = w->maxlen - fc;
	if (w->first <= w->sb_block || w->first + 2 > w->last)
		return EJ_BAD_JSB;

	if (w->csum == EJ_CSUM_V3) {
		w->tag_bytes = sizeof(journal_block_tag3_t);
	} else {
		w->tag_bytes = sizeof(journal_block_tag_t);
		if (w->csum == EJ_CSUM_V2)
			w->tag_bytes += sizeof(__u16);
		if (!w->is64)
			w->tag_bytes -= sizeof(__u32);
	}
	w->tail_bytes = (w->csum == EJ_CSUM_V2 || w->csum == EJ_CSUM_V3) ?
			sizeof(struct jbd2_journal_block_tail) : 0;

	/* The first tag carries the UUID, the others SAME_UUID. */
	space = w->bs - sizeof(journal_header_t) - w->tail_bytes;
	n = 1 + (space - w->tag_bytes - JBD2_UUID_BYTES) / w->tag_bytes;
	if (o->max_tags && o->max_tags < n)
		n = o->max_tags;
	w->tags_per_desc = n;
	w->recs_per_revoke = (w->bs - EJ_W_REVOKE_HDR - w->tail_bytes) /
			     (w->is64 ? 8 : 4);
	w->seed = ej_crc32c(~0U, w->jsb.s_uuid, JBD2_UUID_BYTES);
	return 0;
}

static errcode_t writer_setup(struct ej_writer *w,
			      const struct ej_writer_opts *o)
{
	unsigned int bs = o->blocksize;
	unsigned long blk;
	errcode_t err;

	if (bs < 1024 || bs > 65536 || (bs & (bs - 1)))
		return EJ_BAD_ARG;
	w->bs = bs;
	w->flags = o->flags;
	w->sb_block = o->sb_block;
	w->buf = malloc(bs);
	if (!w->buf)
		return EJ_NO_MEMORY;

	if (o->flags & EJ_W_FORMAT)
		err = format_jsb(w, o);
	else
		err = load_jsb(w, o);
	if (err)
		return err;
	err = derive_geometry(w, o);
	if (err)
		return err;

	w->next_tid = (o->flags & EJ_W_SET_TID) ? o->start_tid :
		      be32_to_cpu(w->jsb.s_sequence);
	w->next_block = o->start_block ? o->start_block : w->first;
	if (w->next_block < w->first || w->next_block >= w->last)
		return EJ_BAD_ARG;
	w->next_sec = o->commit_sec ? o->commit_sec : EJ_W_DEFAULT_COMMIT_SEC;

	if (!(o->flags & EJ_W_FORMAT))
		return 0;
	if (o->flags & EJ_W_ZERO_LOG) {
		memset(w->buf, 0, bs);
		for (blk = w->first; blk < w->maxlen; blk++) {
			err = ejw_write(w, blk, w->buf);
			if (err)
				return err;
		}
	}
	/* A clean journal until ej_writer_finish() says otherwise. */
	w->jsb.s_start = 0;
	return ejw_write_jsb(w, 1);
}

errcode_t ej_writer_open(const struct ej_jsink *sink,
			 const struct ej_writer_opts *opts,
			 struct ej_writer **ret)
{
	struct ej_writer *w;
	errcode_t err;

	if (!sink || !sink->read || !sink->write || !opts || !ret)
		return EJ_BAD_ARG;
	*ret = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return EJ_NO_MEMORY;
	w->sink = *sink;
	err = writer_setup(w, opts);
	if (err) {
		ej_writer_free(w);
		return err;
	}
	*ret = w;
	return 0;
}

void ej_writer_free(struct ej_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_pend; i++)
		free(w->pend[i].data);
	free(w->pend);
	free(w->revs);
	for (i = 0; i < w->nr_txns; i++)
		free(w->txns[i].blocks);
	free(w->txns);
	free(w->buf);
	free(w);
}

/* ------------------------------------------------------------------ */
/* What the writer knows                                               */

void ej_writer_set_dry(struct ej_writer *w, int dry)
{
	if (w)
		w->dry = dry;
}

const struct ej_wtxn *ej_writer_txns(const struct ej_writer *w, size_t *nr)
{
	if (nr)
		*nr = w ? w->nr_txns : 0;
	return w ? w->txns : NULL;
}

const struct ej_wtxn *ej_writer_find_txn(const struct ej_writer *w,
					 __u32 tid)
{
	size_t i;

	if (!w)
		return NULL;
	/* The latest one wins: a stale-log test may reuse a tid. */
	for (i = w->nr_txns; i > 0; i--)
		if (w->txns[i - 1].tid == tid)
			return &w->txns[i - 1];
	return NULL;
}

const journal_superblock_t *ej_writer_jsb(const struct ej_writer *w)
{
	return w ? &w->jsb : NULL;
}

void ej_writer_log_bounds(const struct ej_writer *w, unsigned long *first,
			  unsigned long *last)
{
	if (first)
		*first = w->first;
	if (last)
		*last = w->last;
}

/* fc_write.c's hooks (ej_fcw.h): fast commits go through the sink too. */
errcode_t ej_writer_put_block(struct ej_writer *w, unsigned long jblock,
			      const void *buf)
{
	return w && buf ? ejw_write(w, jblock, buf) : EJ_BAD_ARG;
}

__u32 ej_writer_next_tid(const struct ej_writer *w)
{
	return w ? w->next_tid : 0;
}

/* ------------------------------------------------------------------ */
/* A journal of a libext2fs image                                      */

static errcode_t fs_map(struct ej_writer *w, unsigned long lblk,
			blk64_t *pblk)
{
	blk64_t p = 0;
	errcode_t err;

	/* External journals number their blocks as the device does. */
	if (w->ext_io) {
		*pblk = lblk;
		return 0;
	}
	err = ext2fs_bmap2(w->fs, w->ino, NULL, NULL, 0, lblk, NULL, &p);
	if (err)
		return err;
	if (!p || p >= ext2fs_blocks_count(w->fs->super))
		return EJ_BLOCK_OUT_OF_RANGE;
	*pblk = p;
	return 0;
}

static errcode_t fs_sink_read(void *arg, unsigned long lblk, void *buf)
{
	struct ej_writer *w = arg;
	blk64_t pblk;
	errcode_t err;

	err = fs_map(w, lblk, &pblk);
	if (err)
		return err;
	return io_channel_read_blk64(w->ext_io ? w->ext_io : w->fs->io, pblk,
				     1, buf);
}

static errcode_t fs_sink_write(void *arg, unsigned long lblk,
			       const void *buf)
{
	struct ej_writer *w = arg;
	blk64_t pblk;
	errcode_t err;

	err = fs_map(w, lblk, &pblk);
	if (err)
		return err;
	return io_channel_write_blk64(w->ext_io ? w->ext_io : w->fs->io,
				      pblk, 1, buf);
}

errcode_t ej_writer_open_fs(ext2_filsys fs, io_channel journal_io,
			    const struct ej_writer_opts *opts,
			    struct ej_writer **ret)
{
	struct ej_writer_opts o;
	struct ext2_inode inode;
	struct ej_writer *w;
	errcode_t err;

	if (!fs || !opts || !ret)
		return EJ_BAD_ARG;
	*ret = NULL;
	if (opts->blocksize && opts->blocksize != fs->blocksize)
		return EJ_BAD_ARG;
	o = *opts;
	o.blocksize = fs->blocksize;

	w = calloc(1, sizeof(*w));
	if (!w)
		return EJ_NO_MEMORY;
	w->bound = 1;
	w->fs = fs;
	w->ext_io = journal_io;
	w->sink.read = fs_sink_read;
	w->sink.write = fs_sink_write;
	w->sink.arg = w;

	if (journal_io) {
		err = io_channel_set_blksize(journal_io, fs->blocksize);
		if (err)
			goto fail;
		o.sb_block = ext2fs_journal_sb_start(fs->blocksize);
	} else {
		if (!ext2fs_has_feature_journal(fs->super)) {
			err = EJ_NO_JOURNAL;
			goto fail;
		}
		if (!fs->super->s_journal_inum) {
			err = EJ_EXT_JOURNAL_NEEDED;
			goto fail;
		}
		w->ino = fs->super->s_journal_inum;
		o.sb_block = 0;
		if ((o.flags & EJ_W_FORMAT) && !o.maxlen) {
			err = ext2fs_read_inode(fs, w->ino, &inode);
			if (err)
				goto fail;
			o.maxlen = EXT2_I_SIZE(&inode) / fs->blocksize;
		}
		if (!o.uuid)
			o.uuid = fs->super->s_uuid;
	}

	err = writer_setup(w, &o);
	if (err)
		goto fail;
	/* An external journal names the filesystems it serves. */
	if (journal_io && (o.flags & EJ_W_FORMAT)) {
		memcpy(w->jsb.s_users, fs->super->s_uuid, JBD2_UUID_BYTES);
		err = ejw_write_jsb(w, 1);
		if (err)
			goto fail;
	}
	*ret = w;
	return 0;
fail:
	ej_writer_free(w);
	return err;
}
