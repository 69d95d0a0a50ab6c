// SPDX-License-Identifier: LGPL-2.0
/*
 * wfault.c: the fault injector: damage exactly the byte, field or block a
 * test names in what the journal writer wrote (its record of every
 * block, wtxn.c), or reseal a transaction whose blocks a test changed.
 * Part of the test library (lib/journal/test/).
 */
#include "writer_int.h"

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
		err = ejw_read(w, b->jblock, w->buf);
		if (err)
			return err;
		switch (b->kind) {
		case EJ_WB_DESCRIPTOR:
			ejw_tail_set(w, w->buf);
			crc = ej_crc32_be(crc, w->buf, w->bs);
			break;
		case EJ_WB_DATA:
			crc = ej_crc32_be(crc, w->buf, w->bs);
			continue;
		case EJ_WB_REVOKE:
			ejw_tail_set(w, w->buf);
			break;
		case EJ_WB_COMMIT:
			ejw_commit_csum_set(w, w->buf, crc);
			break;
		}
		err = ejw_write(w, b->jblock, w->buf);
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
		err = ejw_write_jsb(w, 1);
		if (err)
			return err;
		p = (unsigned char *)&w->jsb.s_checksum;
		p[byte] ^= mask;
		return ejw_write_jsb(w, 0);
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
	return ejw_write_jsb(w, 1);
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
	err = ejw_read(w, b->desc_jblock, w->buf);
	if (err)
		return err;
	tag = w->buf + b->tag_offset;
	put_be32(tag, (__u32)value);
	if (w->is64)
		put_be32(tag + (w->csum == EJ_CSUM_V3 ?
				offsetof(journal_block_tag3_t, t_blocknr_high) :
				offsetof(journal_block_tag_t, t_blocknr_high)),
			 value >> 32);
	err = ejw_write(w, b->desc_jblock, w->buf);
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
		err = ejw_read(w, jblock, w->buf);
		if (err)
			return err;
		put_be32(w->buf + offsetof(jbd2_journal_revoke_header_t,
					   r_count),
			 value ? (__u32)value : 2 * w->bs);
		return ejw_write(w, jblock, w->buf);
	case EJ_CORRUPT_TORN_COMMIT:
		/*
		 * Only the first sectors of the commit reached the disk: the
		 * header and its checksum (computed, as always, over the
		 * header and a zero tail) are there, the tail is stale.
		 */
		off = byte ? byte : EJ_W_DEFAULT_TORN_AT;
		if (off < sizeof(struct commit_header) || off >= w->bs)
			return EJ_BAD_ARG;
		err = ejw_read(w, jblock, w->buf);
		if (err)
			return err;
		fill_garbage(w->buf + off, w->bs - off, value);
		return ejw_write(w, jblock, w->buf);
	}
	return EJ_BAD_ARG;

flip:
	err = ejw_read(w, jblock, w->buf);
	if (err)
		return err;
	w->buf[off] ^= mask;
	return ejw_write(w, jblock, w->buf);
}
