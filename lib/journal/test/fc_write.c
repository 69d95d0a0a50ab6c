// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_write.c: write ext4 fast commits, record by record, the way ext4
 * lays them out, into a fast-commit area and then into a writer's journal.
 *
 * A test facility, like writer.c (ej_fcw.h says what it promises): the
 * tests of fc_scan.c and fc_replay.c, and "e2journal write --fc", need
 * areas whose every byte is known, healthy ones and ones broken in one
 * place.  The area is built in memory; ej_fcw_put() writes it through the
 * writer's sink, so it goes wherever the writer's journal lives.
 */
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"
#include "ej_fcw.h"

struct ej_fcw {
	unsigned int		bs;
	unsigned long		nr_blks;
	unsigned char		*buf;
	size_t			size;
	size_t			pos;		/* next byte to fill */
	__u32			crc;		/* of the open fast commit */
	unsigned int		fc;		/* index of the open one */
	struct ej_fcw_rec	*recs;
	size_t			nr_recs, max_recs;
};

static void put16(unsigned char *p, unsigned int v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void put32(unsigned char *p, __u32 v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

errcode_t ej_fcw_new(unsigned int bs, unsigned long nr_blks,
		     struct ej_fcw **ret)
{
	struct ej_fcw *a;

	if (!ret || bs < 1024 || bs > 65536 || (bs & (bs - 1)) || !nr_blks ||
	    nr_blks > (1UL << 24) / (bs / 1024))
		return EJ_BAD_ARG;
	a = calloc(1, sizeof(*a));
	if (!a)
		return EJ_NO_MEMORY;
	a->bs = bs;
	a->nr_blks = nr_blks;
	a->size = (size_t)bs * nr_blks;
	a->buf = calloc(1, a->size);
	if (!a->buf) {
		free(a);
		return EJ_NO_MEMORY;
	}
	*ret = a;
	return 0;
}

void ej_fcw_free(struct ej_fcw *a)
{
	if (!a)
		return;
	free(a->buf);
	free(a->recs);
	free(a);
}

/* Write {tag, len} and the value at a->pos, into the crc; note it. */
static errcode_t emit(struct ej_fcw *a, unsigned int tag, const void *val,
		      unsigned int len, int added)
{
	unsigned char *p = a->buf + a->pos;
	struct ej_fcw_rec *r;

	if (ej_grow((void **)&a->recs, &a->max_recs, a->nr_recs + 1,
		    sizeof(*a->recs)))
		return EJ_NO_MEMORY;
	r = &a->recs[a->nr_recs++];
	r->fc = a->fc;
	r->tag = tag;
	r->len = len;
	r->off = a->pos;
	r->added = added;
	put16(p, tag);
	put16(p + 2, len);
	if (val)
		memcpy(p + EJ_FC_TL_LEN, val, len);
	else
		memset(p + EJ_FC_TL_LEN, 0, len);
	a->crc = ej_crc32c(a->crc, p, EJ_FC_TL_LEN + len);
	a->pos += EJ_FC_TL_LEN + len;
	return 0;
}

/*
 * Make room for @need bytes in the current block: they fit when what is
 * left after them is nothing or room for a PAD; else a PAD closes the
 * block and they go at the start of the next.
 */
static errcode_t make_room(struct ej_fcw *a, size_t need)
{
	size_t left = a->bs - a->pos % a->bs;
	errcode_t err;

	if (need > a->bs)
		return EJ_BAD_ARG;
	if (need > left || (left - need && left - need < EJ_FC_TL_LEN)) {
		if (left < a->bs) {
			/* left >= EJ_FC_TL_LEN: every record keeps it so */
			err = emit(a, EJ_FC_TAG_PAD, NULL,
				   left - EJ_FC_TL_LEN, 1);
			if (err)
				return err;
		}
	}
	if (a->pos + need > a->size)
		return EXT2_ET_JOURNAL_TOO_SMALL;
	return 0;
}

errcode_t ej_fcw_record(struct ej_fcw *a, unsigned int tag, const void *val,
			unsigned int len)
{
	errcode_t err;

	if (!a || tag > 0xffff || len > 0xffff)
		return EJ_BAD_ARG;
	err = make_room(a, EJ_FC_TL_LEN + (size_t)len);
	if (err)
		return err;
	return emit(a, tag, val, len, 0);
}

errcode_t ej_fcw_head(struct ej_fcw *a, __u32 features, __u32 tid)
{
	unsigned char v[EJ_FC_HEAD_LEN];

	put32(v, features);
	put32(v + 4, tid);
	return ej_fcw_record(a, EJ_FC_TAG_HEAD, v, sizeof(v));
}

errcode_t ej_fcw_add_range(struct ej_fcw *a, __u32 ino, __u32 lblk,
			   unsigned int len, unsigned long long pblk,
			   int unwritten)
{
	unsigned char v[EJ_FC_ADD_RANGE_LEN];

	/* struct ext3_extent: ee_block, ee_len, ee_start_hi, ee_start_lo */
	if (!len || len > 32768 || (unwritten && len == 32768) ||
	    pblk >> 48)
		return EJ_BAD_ARG;
	put32(v, ino);
	put32(v + 4, lblk);
	put16(v + 8, unwritten ? len + 32768 : len);
	put16(v + 10, (unsigned int)(pblk >> 32));
	put32(v + 12, (__u32)pblk);
	return ej_fcw_record(a, EJ_FC_TAG_ADD_RANGE, v, sizeof(v));
}

errcode_t ej_fcw_del_range(struct ej_fcw *a, __u32 ino, __u32 lblk,
			   __u32 len)
{
	unsigned char v[EJ_FC_DEL_RANGE_LEN];

	put32(v, ino);
	put32(v + 4, lblk);
	put32(v + 8, len);
	return ej_fcw_record(a, EJ_FC_TAG_DEL_RANGE, v, sizeof(v));
}

errcode_t ej_fcw_dentry(struct ej_fcw *a, unsigned int tag, __u32 parent,
			__u32 ino, const char *name, unsigned int namelen)
{
	unsigned char v[EJ_FC_DENTRY_LEN + EJ_FC_NAME_MAX];

	if (tag != EJ_FC_TAG_CREAT && tag != EJ_FC_TAG_LINK &&
	    tag != EJ_FC_TAG_UNLINK)
		return EJ_BAD_ARG;
	if (namelen > EJ_FC_NAME_MAX || (namelen && !name))
		return EJ_BAD_ARG;
	put32(v, parent);
	put32(v + 4, ino);
	if (namelen)
		memcpy(v + EJ_FC_DENTRY_LEN, name, namelen);
	return ej_fcw_record(a, tag, v, EJ_FC_DENTRY_LEN + namelen);
}

errcode_t ej_fcw_inode(struct ej_fcw *a, __u32 ino, const void *raw,
		       unsigned int size)
{
	unsigned char *v;
	errcode_t err;

	if (!raw || size > 0xffff - EJ_FC_INODE_LEN)
		return EJ_BAD_ARG;
	v = malloc(EJ_FC_INODE_LEN + size);
	if (!v)
		return EJ_NO_MEMORY;
	put32(v, ino);
	memcpy(v + EJ_FC_INODE_LEN, raw, size);
	err = ej_fcw_record(a, EJ_FC_TAG_INODE, v, EJ_FC_INODE_LEN + size);
	free(v);
	return err;
}

/* The next fast commit starts at the next block, with a fresh crc. */
static void next_fc(struct ej_fcw *a)
{
	a->pos = (a->pos + a->bs - 1) / a->bs * a->bs;
	a->crc = 0;
	a->fc++;
}

errcode_t ej_fcw_tail(struct ej_fcw *a, __u32 tid, __u32 crc_xor)
{
	size_t left;
	unsigned char *p;
	errcode_t err;

	if (!a)
		return EJ_BAD_ARG;
	err = make_room(a, EJ_FC_TL_LEN + EJ_FC_TAIL_LEN);
	if (err)
		return err;
	/* TAIL's value runs to the end of its block */
	left = a->bs - a->pos % a->bs;
	p = a->buf + a->pos;
	put16(p, EJ_FC_TAG_TAIL);
	put16(p + 2, left - EJ_FC_TL_LEN);
	put32(p + EJ_FC_TL_LEN, tid);
	a->crc = ej_crc32c(a->crc, p, EJ_FC_TL_LEN + 4);
	put32(p + EJ_FC_TL_LEN + 4, a->crc ^ crc_xor);
	err = ej_grow((void **)&a->recs, &a->max_recs, a->nr_recs + 1,
		      sizeof(*a->recs));
	if (err)
		return err;
	a->recs[a->nr_recs++] = (struct ej_fcw_rec) {
		.fc = a->fc, .tag = EJ_FC_TAG_TAIL,
		.len = left - EJ_FC_TL_LEN, .off = a->pos,
	};
	a->pos += left;
	next_fc(a);
	return 0;
}

errcode_t ej_fcw_end_torn(struct ej_fcw *a)
{
	if (!a)
		return EJ_BAD_ARG;
	next_fc(a);
	return 0;
}

const unsigned char *ej_fcw_area(const struct ej_fcw *a, size_t *bytes)
{
	if (bytes)
		*bytes = a ? a->size : 0;
	return a ? a->buf : NULL;
}

unsigned long ej_fcw_blocks(const struct ej_fcw *a)
{
	return a ? (a->pos + a->bs - 1) / a->bs : 0;
}

const struct ej_fcw_rec *ej_fcw_recs(const struct ej_fcw *a, size_t *nr)
{
	if (nr)
		*nr = a ? a->nr_recs : 0;
	return a ? a->recs : NULL;
}

errcode_t ej_fcw_put(struct ej_writer *w, const struct ej_fcw *a,
		     unsigned long *first_jblock)
{
	const journal_superblock_t *jsb = ej_writer_jsb(w);
	unsigned long last, maxlen, i;
	unsigned char *zero;
	errcode_t err = 0;

	if (!jsb || !a ||
	    be32_to_cpu(jsb->s_header.h_blocktype) != JBD2_SUPERBLOCK_V2 ||
	    !(be32_to_cpu(jsb->s_feature_incompat) &
	      JBD2_FEATURE_INCOMPAT_FAST_COMMIT) ||
	    be32_to_cpu(jsb->s_blocksize) != a->bs)
		return EJ_BAD_ARG;
	/*
	 * The log ends at "last"; Linux and e2fsprogs read the area from
	 * the block after it (j_fc_first = j_last + 1), so ext4 writes it
	 * there too.
	 */
	ej_writer_log_bounds(w, NULL, &last);
	last++;
	maxlen = be32_to_cpu(jsb->s_maxlen);
	if (last > maxlen || maxlen - last < ej_fcw_blocks(a))
		return EXT2_ET_JOURNAL_TOO_SMALL;
	zero = calloc(1, a->bs);
	if (!zero)
		return EJ_NO_MEMORY;
	for (i = 0; last + i < maxlen && !err; i++)
		err = ej_writer_put_block(w, last + i, i < a->nr_blks ?
					  a->buf + i * a->bs : zero);
	free(zero);
	if (!err && first_jblock)
		*first_jblock = last;
	return err;
}
