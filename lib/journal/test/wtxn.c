// SPDX-License-Identifier: LGPL-2.0
/*
 * wtxn.c: the journal writer's transactions, laid out the way a kernel
 * commit does (revoke blocks, descriptor and data blocks, commit block),
 * with a record of where each block went, and ej_writer_finish(), which
 * points the journal superblock at the log written.  Part of the test
 * library (lib/journal/test/); writer.c opens the writer.
 */
#include "writer_int.h"

static __u32 data_csum(const struct ej_writer *w, __u32 tid,
		       const void *data)
{
	__be32 seq = cpu_to_be32(tid);
	__u32 c;

	c = ej_crc32c(w->seed, &seq, sizeof(seq));
	return ej_crc32c(c, data, w->bs);
}

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
	ejw_tail_set(w, w->buf);
	return ejw_write(w, blk, w->buf);
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
			err = ejw_write(w, *blk, p->data);
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
	ejw_commit_csum_set(w, w->buf, crc);
	err = ejw_write(w, *blk, w->buf);
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
	err = ejw_write_jsb(w, 1);
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
