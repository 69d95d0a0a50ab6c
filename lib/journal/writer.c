// SPDX-License-Identifier: LGPL-2.0
/*
 * writer.c: write JBD2 transactions into a journal, then damage them.
 *
 * The tests of the recovery code need journals whose every block is known:
 * healthy ones in each tag layout and checksum mode, and ones broken in one
 * precise place.  The writer lays transactions out the way a kernel commit
 * does (revoke blocks, descriptor + data blocks, commit block), remembers
 * where each block went, and the fault injector at the end of this file
 * uses that record to flip exactly the byte a test names.
 *
 * The core only talks to a struct ej_jsink, so the same code fills an
 * in-memory journal in the unit tests and, through ej_writer_open_fs(), the
 * internal or external journal of a real image.
 */
#include <stdlib.h>
#include <string.h>

#include "ej_lib.h"
#include "ej_fcw.h"

#define EJ_W_DEFAULT_COMMIT_SEC	1700000000ULL
#define EJ_W_DEFAULT_TORN_AT	512

/* Bytes of the fixed part of a revoke block (header + r_count). */
#define EJ_W_REVOKE_HDR		sizeof(jbd2_journal_revoke_header_t)
/* Offset of h_chksum[0] in a commit block. */
#define EJ_W_COMMIT_CSUM_OFF	offsetof(struct commit_header, h_chksum)

static const unsigned char ej_w_default_uuid[JBD2_UUID_BYTES] = {
	0xe2, 0x10, 0x75, 0x4a, 0x0b, 0x3c, 0x4d, 0x5e,
	0x8f, 0x61, 0x72, 0x83, 0x94, 0xa5, 0xb6, 0xc7,
};

/* A block of the open transaction, kept until it is written. */
struct ej_pending {
	unsigned long long	fsblock;
	unsigned int		flags;		/* JBD2_FLAG_ESCAPE or 0 */
	unsigned char		*data;		/* as it will sit in the journal */
};

struct ej_writer {
	struct ej_jsink		sink;
	journal_superblock_t	jsb;
	unsigned int		bs;
	unsigned long		sb_block;
	unsigned long		first;		/* first log block */
	unsigned long		last;		/* one past the last log block */
	unsigned long		maxlen;
	int			csum;		/* EJ_CSUM_* */
	int			is64;
	unsigned int		tag_bytes;
	unsigned int		tail_bytes;
	unsigned int		tags_per_desc;
	unsigned int		recs_per_revoke;
	__u32			seed;
	unsigned int		flags;		/* EJ_W_* given at open */

	/* where the next transaction goes */
	__u32			next_tid;
	unsigned long		next_block;
	unsigned long		used;		/* log blocks since next_block */
	int			have_start;
	unsigned long		start_block;
	__u32			start_tid;
	int			wrote_revoke;
	unsigned long long	next_sec;
	unsigned int		next_nsec;
	int			finished;

	/* the open transaction */
	int			in_txn;
	__u32			cur_tid;
	struct ej_pending	*pend;
	size_t			nr_pend, max_pend;
	unsigned long long	*revs;
	size_t			nr_revs, max_revs;

	/* what was written */
	struct ej_wtxn		*txns;
	size_t			nr_txns, max_txns;

	unsigned char		*buf;

	int			dry;		/* ej_writer_set_dry() */

	/* ej_writer_open_fs(): the image the journal belongs to */
	int			bound;
	ext2_filsys		fs;
	io_channel		ext_io;		/* external journal, or NULL */
	ext2_ino_t		ino;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static void put_be16(void *p, __u16 v)
{
	__be16 x = cpu_to_be16(v);

	memcpy(p, &x, sizeof(x));
}

static void put_be32(void *p, __u32 v)
{
	__be32 x = cpu_to_be32(v);

	memcpy(p, &x, sizeof(x));
}

static void put_be64(void *p, __u64 v)
{
	__be64 x = cpu_to_be64(v);

	memcpy(p, &x, sizeof(x));
}

static __u32 get_be32(const void *p)
{
	__be32 x;

	memcpy(&x, p, sizeof(x));
	return be32_to_cpu(x);
}

static unsigned long log_next(const struct ej_writer *w, unsigned long blk)
{
	blk++;
	if (blk >= w->last)
		blk = w->first;
	return blk;
}

static int sb_is_v2(const struct ej_writer *w)
{
	return be32_to_cpu(w->jsb.s_header.h_blocktype) == JBD2_SUPERBLOCK_V2;
}

static __u32 data_csum(const struct ej_writer *w, __u32 tid,
		       const void *data)
{
	__be32 seq = cpu_to_be32(tid);
	__u32 c;

	c = ej_crc32c(w->seed, &seq, sizeof(seq));
	return ej_crc32c(c, data, w->bs);
}

/* Checksum in the last 4 bytes of a descriptor or revoke block. */
static void tail_set(const struct ej_writer *w, unsigned char *blk)
{
	if (!w->tail_bytes)
		return;
	memset(blk + w->bs - w->tail_bytes, 0, w->tail_bytes);
	put_be32(blk + w->bs - w->tail_bytes, ej_crc32c(w->seed, blk, w->bs));
}

/* Commit checksum: @crc is the v1 crc32 of the transaction. */
static void commit_csum_set(const struct ej_writer *w, unsigned char *blk,
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

static errcode_t jwrite(struct ej_writer *w, unsigned long lblk,
			const void *buf)
{
	if (lblk >= w->maxlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	return sink_write(w, lblk, buf);
}

static errcode_t jread(struct ej_writer *w, unsigned long lblk, void *buf)
{
	if (lblk >= w->maxlen)
		return EJ_BLOCK_OUT_OF_RANGE;
	return w->sink.read(w->sink.arg, lblk, buf);
}

/* Write the in-memory superblock into the first 1024 bytes of its block. */
static errcode_t write_jsb(struct ej_writer *w, int set_csum)
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
			err = jwrite(w, blk, w->buf);
			if (err)
				return err;
		}
	}
	/* A clean journal until ej_writer_finish() says otherwise. */
	w->jsb.s_start = 0;
	return write_jsb(w, 1);
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
/* Transactions                                                        */

errcode_t ej_writer_begin(struct ej_writer *w, __u32 *tid)
{
	if (!w || w->in_txn)
		return EJ_BAD_ARG;
	w->in_txn = 1;
	w->cur_tid = w->next_tid;
	w->nr_pend = 0;
	w->nr_revs = 0;
	if (tid)
		*tid = w->cur_tid;
	return 0;
}

/*
 * Can the open transaction of @w log or revoke @fsblock?  Not outside a
 * transaction, nor above 2^32 - 1 in a journal without 64-bit tags.
 */
static int txn_block_ok(const struct ej_writer *w,
			unsigned long long fsblock)
{
	return w && w->in_txn && (w->is64 || fsblock <= 0xffffffffULL);
}

errcode_t ej_writer_add_block(struct ej_writer *w, unsigned long long fsblock,
			      const void *data)
{
	struct ej_pending *p;
	errcode_t err;

	if (!txn_block_ok(w, fsblock) || !data)
		return EJ_BAD_ARG;
	err = ej_grow((void **)&w->pend, &w->max_pend, w->nr_pend + 1,
		      sizeof(*w->pend));
	if (err)
		return err;
	p = &w->pend[w->nr_pend];
	p->data = malloc(w->bs);
	if (!p->data)
		return EJ_NO_MEMORY;
	memcpy(p->data, data, w->bs);
	p->fsblock = fsblock;
	p->flags = 0;
	/*
	 * A data block that starts with the magic would look like a control
	 * block to a scan: store it with the magic zeroed and let the tag
	 * say so.
	 */
	if (get_be32(p->data) == JBD2_MAGIC_NUMBER) {
		memset(p->data, 0, sizeof(__u32));
		p->flags = JBD2_FLAG_ESCAPE;
	}
	w->nr_pend++;
	return 0;
}

errcode_t ej_writer_revoke(struct ej_writer *w, unsigned long long fsblock)
{
	errcode_t err;

	if (!txn_block_ok(w, fsblock))
		return EJ_BAD_ARG;
	err = ej_grow((void **)&w->revs, &w->max_revs, w->nr_revs + 1,
		      sizeof(*w->revs));
	if (err)
		return err;
	w->revs[w->nr_revs++] = fsblock;
	return 0;
}

void ej_writer_set_commit_time(struct ej_writer *w, unsigned long long sec,
			       unsigned int nsec)
{
	if (!w)
		return;
	w->next_sec = sec;
	w->next_nsec = nsec;
}

errcode_t ej_writer_set_next(struct ej_writer *w, unsigned long jblock,
			     __u32 tid)
{
	if (!w || w->in_txn || jblock < w->first || jblock >= w->last)
		return EJ_BAD_ARG;
	w->next_block = jblock;
	w->next_tid = tid;
	w->used = 0;
	return 0;
}

errcode_t ej_writer_set_log_start(struct ej_writer *w, unsigned long jblock,
				  __u32 tid)
{
	if (!w || jblock < w->first || jblock >= w->last)
		return EJ_BAD_ARG;
	w->have_start = 1;
	w->start_block = jblock;
	w->start_tid = tid;
	return 0;
}

static void put_tag(const struct ej_writer *w, unsigned char *t,
		    unsigned long long blk, unsigned int flags, __u32 csum)
{
	put_be32(t, (__u32)blk);
	if (w->csum == EJ_CSUM_V3) {
		put_be32(t + offsetof(journal_block_tag3_t, t_flags), flags);
		if (w->is64)
			put_be32(t + offsetof(journal_block_tag3_t,
					      t_blocknr_high), blk >> 32);
		put_be32(t + offsetof(journal_block_tag3_t, t_checksum), csum);
		return;
	}
	if (w->csum == EJ_CSUM_V2)
		put_be16(t + offsetof(journal_block_tag_t, t_checksum),
			 (__u16)csum);
	put_be16(t + offsetof(journal_block_tag_t, t_flags), flags);
	if (w->is64)
		put_be32(t + offsetof(journal_block_tag_t, t_blocknr_high),
			 blk >> 32);
}

static struct ej_wblock *layout_add(struct ej_wtxn *t, unsigned int kind,
				    unsigned int index, unsigned long jblock)
{
	struct ej_wblock *b = &t->blocks[t->nr_blocks++];

	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->index = index;
	b->jblock = jblock;
	return b;
}

/* Empty w->buf and give it the header of a log block of @type in @tid. */
static void log_header(struct ej_writer *w, __u32 type, __u32 tid)
{
	memset(w->buf, 0, w->bs);
	put_be32(w->buf, JBD2_MAGIC_NUMBER);
	put_be32(w->buf + 4, type);
	put_be32(w->buf + 8, tid);
}

/*
 * Start the next revoke or descriptor block of @t in w->buf: its header,
 * and how many of the @left records still to write it takes (@per fit).
 */
static unsigned int log_batch(struct ej_writer *w, __u32 type,
			      const struct ej_wtxn *t, size_t left,
			      unsigned int per)
{
	log_header(w, type, t->tid);
	return left < per ? (unsigned int)left : per;
}

/* Give w->buf its tail checksum (v2/v3) and write it at journal @blk. */
static errcode_t log_put(struct ej_writer *w, unsigned long blk)
{
	tail_set(w, w->buf);
	return jwrite(w, blk, w->buf);
}

static errcode_t write_revokes(struct ej_writer *w, struct ej_wtxn *t,
			       unsigned long *blk)
{
	unsigned int rs = w->is64 ? 8 : 4;
	size_t done = 0;
	unsigned int idx = 0, n, i;
	unsigned char *p;
	struct ej_wblock *b;
	errcode_t err;

	while (done < w->nr_revs) {
		n = log_batch(w, JBD2_REVOKE_BLOCK, t, w->nr_revs - done,
			      w->recs_per_revoke);
		put_be32(w->buf + 12, EJ_W_REVOKE_HDR + n * rs);
		p = w->buf + EJ_W_REVOKE_HDR;
		for (i = 0; i < n; i++, p += rs) {
			if (w->is64)
				put_be64(p, w->revs[done + i]);
			else
				put_be32(p, (__u32)w->revs[done + i]);
		}
		err = log_put(w, *blk);
		if (err)
			return err;
		b = layout_add(t, EJ_WB_REVOKE, idx++, *blk);
		b->count = n;
		t->nr_revoke++;
		*blk = log_next(w, *blk);
		done += n;
	}
	if (w->nr_revs)
		w->wrote_revoke = 1;
	return 0;
}

static errcode_t write_descriptors(struct ej_writer *w, struct ej_wtxn *t,
				   unsigned long *blk, __u32 *crc)
{
	size_t done = 0;
	unsigned int idx = 0, n, i, off, flags;
	unsigned long dblk;
	struct ej_pending *p;
	struct ej_wblock *b;
	errcode_t err;

	while (done < w->nr_pend) {
		n = log_batch(w, JBD2_DESCRIPTOR_BLOCK, t, w->nr_pend - done,
			      w->tags_per_desc);
		dblk = *blk;
		b = layout_add(t, EJ_WB_DESCRIPTOR, idx++, dblk);
		b->count = n;
		t->nr_descr++;

		/* Tags first, data blocks after: both records in order. */
		off = sizeof(journal_header_t);
		for (i = 0; i < n; i++) {
			p = &w->pend[done + i];
			flags = p->flags;
			if (i)
				flags |= JBD2_FLAG_SAME_UUID;
			if (i == n - 1)
				flags |= JBD2_FLAG_LAST_TAG;
			put_tag(w, w->buf + off, p->fsblock, flags,
				data_csum(w, t->tid, p->data));
			b = layout_add(t, EJ_WB_DATA, t->nr_data++, 0);
			b->fsblock = p->fsblock;
			b->desc_jblock = dblk;
			b->tag_offset = off;
			b->tag_flags = flags;
			off += w->tag_bytes;
			if (!i) {
				memcpy(w->buf + off, w->jsb.s_uuid,
				       JBD2_UUID_BYTES);
				off += JBD2_UUID_BYTES;
			}
		}
		err = log_put(w, dblk);
		if (err)
			return err;
		*crc = ej_crc32_be(*crc, w->buf, w->bs);
		*blk = log_next(w, *blk);

		for (i = 0; i < n; i++) {
			p = &w->pend[done + i];
			b = &t->blocks[t->nr_blocks - n + i];
			b->jblock = *blk;
			err = jwrite(w, *blk, p->data);
			if (err)
				return err;
			*crc = ej_crc32_be(*crc, p->data, w->bs);
			*blk = log_next(w, *blk);
		}
		done += n;
	}
	return 0;
}

static errcode_t write_commit(struct ej_writer *w, struct ej_wtxn *t,
			      unsigned long *blk, __u32 crc)
{
	struct commit_header *ch = (struct commit_header *)w->buf;
	errcode_t err;

	log_header(w, JBD2_COMMIT_BLOCK, t->tid);
	ch->h_commit_sec = cpu_to_be64(w->next_sec);
	ch->h_commit_nsec = cpu_to_be32(w->next_nsec);
	t->commit_sec = w->next_sec;
	t->commit_nsec = w->next_nsec;
	commit_csum_set(w, w->buf, crc);
	err = jwrite(w, *blk, w->buf);
	if (err)
		return err;
	layout_add(t, EJ_WB_COMMIT, 0, *blk);
	t->commit_block = *blk;
	t->committed = 1;
	*blk = log_next(w, *blk);
	w->next_sec++;
	w->next_nsec = 0;
	return 0;
}

static void drop_pending(struct ej_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_pend; i++)
		free(w->pend[i].data);
	w->nr_pend = 0;
	w->nr_revs = 0;
	w->in_txn = 0;
}

static errcode_t write_txn(struct ej_writer *w, int commit)
{
	size_t nr_rev, nr_desc, total;
	unsigned long blk;
	__u32 crc = ~0U;
	struct ej_wtxn *t;
	errcode_t err;

	if (!w || !w->in_txn)
		return EJ_BAD_ARG;
	nr_rev = (w->nr_revs + w->recs_per_revoke - 1) / w->recs_per_revoke;
	nr_desc = (w->nr_pend + w->tags_per_desc - 1) / w->tags_per_desc;
	total = nr_rev + nr_desc + w->nr_pend + (commit ? 1 : 0);
	if (w->used + total > w->last - w->first) {
		err = EXT2_ET_JOURNAL_TOO_SMALL;
		goto out;
	}
	err = ej_grow((void **)&w->txns, &w->max_txns, w->nr_txns + 1,
		      sizeof(*w->txns));
	if (err)
		goto out;
	t = &w->txns[w->nr_txns];
	memset(t, 0, sizeof(*t));
	t->tid = w->cur_tid;
	t->commit_block = ~0UL;
	t->first_block = w->next_block;
	t->blocks = calloc(total ? total : 1, sizeof(*t->blocks));
	if (!t->blocks) {
		err = EJ_NO_MEMORY;
		goto out;
	}
	w->nr_txns++;
	if (!w->have_start) {
		w->have_start = 1;
		w->start_block = w->next_block;
		w->start_tid = t->tid;
	}

	blk = w->next_block;
	err = write_revokes(w, t, &blk);
	if (!err)
		err = write_descriptors(w, t, &blk, &crc);
	if (!err && commit)
		err = write_commit(w, t, &blk, crc);
	w->next_block = blk;
	w->used += total;
	w->next_tid = w->cur_tid + 1;
out:
	drop_pending(w);
	return err;
}

errcode_t ej_writer_commit(struct ej_writer *w)
{
	return write_txn(w, 1);
}

errcode_t ej_writer_end_uncommitted(struct ej_writer *w)
{
	return write_txn(w, 0);
}

errcode_t ej_writer_finish(struct ej_writer *w)
{
	errcode_t err;

	if (!w || w->in_txn)
		return EJ_BAD_ARG;
	if (sb_is_v2(w) && (w->wrote_revoke || (w->flags & EJ_W_REVOKE)))
		w->jsb.s_feature_incompat |=
			cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
	w->jsb.s_start = cpu_to_be32(w->have_start ? w->start_block : 0);
	w->jsb.s_sequence = cpu_to_be32(w->have_start ? w->start_tid :
					w->next_tid);
	err = write_jsb(w, 1);
	if (err)
		return err;
	w->finished = 1;
	if (!w->bound || w->dry)
		return 0;
	if (w->have_start) {
		ext2fs_set_feature_journal_needs_recovery(w->fs->super);
		ext2fs_mark_super_dirty(w->fs);
	}
	return io_channel_flush(w->ext_io ? w->ext_io : w->fs->io);
}

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
	return w && buf ? jwrite(w, jblock, buf) : EJ_BAD_ARG;
}

__u32 ej_writer_next_tid(const struct ej_writer *w)
{
	return w ? w->next_tid : 0;
}

/* ------------------------------------------------------------------ */
/* Faults                                                              */

const struct ej_wblock *ej_wtxn_block(const struct ej_wtxn *t,
				      unsigned int kind, unsigned int index)
{
	size_t i;

	for (i = 0; t && i < t->nr_blocks; i++)
		if (t->blocks[i].kind == kind && t->blocks[i].index == index)
			return &t->blocks[i];
	return NULL;
}

const struct ej_wblock *ej_corrupt_target(const struct ej_writer *w,
					  int kind, __u32 tid,
					  unsigned int index)
{
	const struct ej_wtxn *t = ej_writer_find_txn(w, tid);

	switch (kind) {
	case EJ_CORRUPT_COMMIT_CSUM:
	case EJ_CORRUPT_COMMIT_HEADER:
	case EJ_CORRUPT_TORN_COMMIT:
		return ej_wtxn_block(t, EJ_WB_COMMIT, 0);
	case EJ_CORRUPT_DATA:
	case EJ_CORRUPT_TAG_RANGE:
		return ej_wtxn_block(t, EJ_WB_DATA, index);
	case EJ_CORRUPT_DESCR_TAG:
	case EJ_CORRUPT_DESCR_TAIL:
		return ej_wtxn_block(t, EJ_WB_DESCRIPTOR, index);
	case EJ_CORRUPT_REVOKE_TAIL:
	case EJ_CORRUPT_REVOKE_COUNT:
		return ej_wtxn_block(t, EJ_WB_REVOKE, index);
	}
	return NULL;
}

errcode_t ej_writer_reseal(struct ej_writer *w, __u32 tid)
{
	const struct ej_wtxn *t = ej_writer_find_txn(w, tid);
	const struct ej_wblock *b;
	__u32 crc = ~0U;
	size_t i;
	errcode_t err;

	if (!t)
		return EJ_BAD_ARG;
	for (i = 0; i < t->nr_blocks; i++) {
		b = &t->blocks[i];
		err = jread(w, b->jblock, w->buf);
		if (err)
			return err;
		switch (b->kind) {
		case EJ_WB_DESCRIPTOR:
			tail_set(w, w->buf);
			crc = ej_crc32_be(crc, w->buf, w->bs);
			break;
		case EJ_WB_DATA:
			crc = ej_crc32_be(crc, w->buf, w->bs);
			continue;
		case EJ_WB_REVOKE:
			tail_set(w, w->buf);
			break;
		case EJ_WB_COMMIT:
			commit_csum_set(w, w->buf, crc);
			break;
		}
		err = jwrite(w, b->jblock, w->buf);
		if (err)
			return err;
	}
	return 0;
}

/* Fill @len bytes with garbage that is never all zero. */
static void fill_garbage(unsigned char *p, size_t len, unsigned long long s)
{
	__u64 x = s * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)(x >> 24) | 1;
	}
}

static errcode_t corrupt_jsb(struct ej_writer *w, int kind, unsigned int byte,
			     unsigned char mask, unsigned long long value)
{
	unsigned char *p;
	errcode_t err;

	if (!w->finished)
		return EJ_BAD_ARG;
	switch (kind) {
	case EJ_CORRUPT_JSB_CSUM:
		if (byte >= sizeof(w->jsb.s_checksum))
			return EJ_BAD_ARG;
		err = write_jsb(w, 1);
		if (err)
			return err;
		p = (unsigned char *)&w->jsb.s_checksum;
		p[byte] ^= mask;
		return write_jsb(w, 0);
	case EJ_CORRUPT_JSB_MAGIC:
		p = (unsigned char *)&w->jsb.s_header.h_magic;
		p[byte % 4] ^= mask;
		break;
	case EJ_CORRUPT_JSB_MAXLEN:
		w->jsb.s_maxlen = cpu_to_be32((__u32)value);
		break;
	case EJ_CORRUPT_JSB_FIRST:
		w->jsb.s_first = cpu_to_be32((__u32)value);
		break;
	}
	return write_jsb(w, 1);
}

/* @b: the data block whose tag is to name @value, in transaction @tid. */
static errcode_t corrupt_tag_range(struct ej_writer *w, __u32 tid,
				   struct ej_wblock *b,
				   unsigned long long value)
{
	unsigned char *tag;
	errcode_t err;

	if (!w->is64 && value > 0xffffffffULL)
		return EJ_BAD_ARG;
	err = jread(w, b->desc_jblock, w->buf);
	if (err)
		return err;
	tag = w->buf + b->tag_offset;
	put_be32(tag, (__u32)value);
	if (w->is64)
		put_be32(tag + (w->csum == EJ_CSUM_V3 ?
				offsetof(journal_block_tag3_t, t_blocknr_high) :
				offsetof(journal_block_tag_t, t_blocknr_high)),
			 value >> 32);
	err = jwrite(w, b->desc_jblock, w->buf);
	if (err)
		return err;
	b->fsblock = value;
	return ej_writer_reseal(w, tid);
}

errcode_t ej_corrupt(struct ej_writer *w, int kind, __u32 tid,
		     unsigned int index, unsigned int byte,
		     unsigned long long value)
{
	unsigned char mask = value ? (unsigned char)value : 0xff;
	struct ej_wblock *b;
	unsigned long jblock;
	unsigned int off;
	errcode_t err;

	if (!w || kind <= 0 || kind >= EJ_CORRUPT_KIND_MAX)
		return EJ_BAD_ARG;
	switch (kind) {
	case EJ_CORRUPT_JSB_CSUM:
	case EJ_CORRUPT_JSB_MAGIC:
	case EJ_CORRUPT_JSB_MAXLEN:
	case EJ_CORRUPT_JSB_FIRST:
		return corrupt_jsb(w, kind, byte, mask, value);
	case EJ_CORRUPT_RAW:
		if (index >= w->maxlen || byte >= w->bs)
			return EJ_BAD_ARG;
		jblock = index;
		off = byte;
		goto flip;
	}

	/* the writer's own record: the tag-range kind updates it */
	b = (struct ej_wblock *)ej_corrupt_target(w, kind, tid, index);
	if (!b)
		return EJ_BAD_ARG;
	jblock = b->jblock;

	switch (kind) {
	case EJ_CORRUPT_COMMIT_CSUM:
		if (byte >= sizeof(__u32))
			return EJ_BAD_ARG;
		off = EJ_W_COMMIT_CSUM_OFF + byte;
		goto flip;
	case EJ_CORRUPT_COMMIT_HEADER:
		if (index > 2)
			return EJ_BAD_ARG;
		off = index * sizeof(__u32) + byte % sizeof(__u32);
		goto flip;
	case EJ_CORRUPT_DATA:
		if (byte >= w->bs)
			return EJ_BAD_ARG;
		off = byte;
		goto flip;
	case EJ_CORRUPT_DESCR_TAG:
		off = sizeof(journal_header_t) + byte;
		if (off >= w->bs - w->tail_bytes)
			return EJ_BAD_ARG;
		goto flip;
	case EJ_CORRUPT_DESCR_TAIL:
	case EJ_CORRUPT_REVOKE_TAIL:
		if (!w->tail_bytes || byte >= w->tail_bytes)
			return EJ_BAD_ARG;
		off = w->bs - w->tail_bytes + byte;
		goto flip;
	case EJ_CORRUPT_TAG_RANGE:
		return corrupt_tag_range(w, tid, b, value);
	case EJ_CORRUPT_REVOKE_COUNT:
		err = jread(w, jblock, w->buf);
		if (err)
			return err;
		put_be32(w->buf + offsetof(jbd2_journal_revoke_header_t,
					   r_count),
			 value ? (__u32)value : 2 * w->bs);
		return jwrite(w, jblock, w->buf);
	case EJ_CORRUPT_TORN_COMMIT:
		/*
		 * Only the first sectors of the commit reached the disk: the
		 * header and its checksum (computed, as always, over the
		 * header and a zero tail) are there, the tail is stale.
		 */
		off = byte ? byte : EJ_W_DEFAULT_TORN_AT;
		if (off < sizeof(struct commit_header) || off >= w->bs)
			return EJ_BAD_ARG;
		err = jread(w, jblock, w->buf);
		if (err)
			return err;
		fill_garbage(w->buf + off, w->bs - off, value);
		return jwrite(w, jblock, w->buf);
	}
	return EJ_BAD_ARG;

flip:
	err = jread(w, jblock, w->buf);
	if (err)
		return err;
	w->buf[off] ^= mask;
	return jwrite(w, jblock, w->buf);
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
		err = write_jsb(w, 1);
		if (err)
			goto fail;
	}
	*ret = w;
	return 0;
fail:
	ej_writer_free(w);
	return err;
}
