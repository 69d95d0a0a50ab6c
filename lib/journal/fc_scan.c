// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_scan.c: judge an ext4 fast-commit area, as POLICY.md "Fast commits"
 * says, before anything of it is replayed.
 *
 * Linux 6.2+ reads the area record by record from its first block: HEAD
 * (features known, tid the expected one, or the area is left alone),
 * then records whose lengths are checked per tag, each fast commit
 * closed by a TAIL whose tid and crc32c must match.  It stops at the
 * first fast commit that fails, and refuses all recovery when that is
 * the first one.  Here a fast commit that fails is not the end: parsing
 * resumes at the next block, and what follows decides what the failed
 * one was (never acknowledged when nothing verified follows, skipped and
 * flagged when something does).  A verified fast commit holding a record
 * of impossible length stops the replay there, flagged.
 *
 * No I/O: the caller reads the area; tests/unit/test_fc.c feeds crafted
 * buffers.
 */
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"
#include "ej_fc.h"

static unsigned int get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static __u32 get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

int ej_fc_len_ok(unsigned int tag, unsigned int len, unsigned int inode_size)
{
	if (inode_size < EJ_FC_GOOD_OLD_INODE)
		inode_size = EJ_FC_GOOD_OLD_INODE;
	switch (tag) {
	case EJ_FC_TAG_ADD_RANGE:
		return len == EJ_FC_ADD_RANGE_LEN;
	case EJ_FC_TAG_DEL_RANGE:
		return len == EJ_FC_DEL_RANGE_LEN;
	case EJ_FC_TAG_CREAT:
	case EJ_FC_TAG_LINK:
	case EJ_FC_TAG_UNLINK:
		return len > EJ_FC_DENTRY_LEN &&
		       len <= EJ_FC_DENTRY_LEN + EJ_FC_NAME_MAX;
	case EJ_FC_TAG_INODE:
		return len >= EJ_FC_INODE_LEN + EJ_FC_GOOD_OLD_INODE &&
		       len <= EJ_FC_INODE_LEN + inode_size;
	case EJ_FC_TAG_PAD:
		return 1;
	case EJ_FC_TAG_TAIL:
		return len >= EJ_FC_TAIL_LEN;
	case EJ_FC_TAG_HEAD:
		return len == EJ_FC_HEAD_LEN;
	}
	return 0;
}

static errcode_t add_rec(struct ej_fc_scan *s, unsigned int tag,
			 unsigned int len, unsigned long off, int len_ok)
{
	struct ej_fc_rec *r;

	if (ej_grow((void **)&s->recs, &s->max_recs, s->nr_recs + 1,
		    sizeof(*s->recs)))
		return EJ_NO_MEMORY;
	r = &s->recs[s->nr_recs++];
	r->tag = tag;
	r->len = len;
	r->off = off;
	r->len_ok = len_ok;
	return 0;
}

/*
 * Parse one fast commit from the start of block @blk into @c; *next is
 * the block to go on from.
 */
static errcode_t parse_one(struct ej_fc_scan *s, const unsigned char *area,
			   unsigned long nr_blks, unsigned int bs,
			   unsigned int inode_size, unsigned long blk,
			   struct ej_fc_commit *c, unsigned long *next)
{
	unsigned long pos = blk * (unsigned long)bs;
	unsigned long end = nr_blks * (unsigned long)bs;
	__u32 crc = 0;
	errcode_t err;

	memset(c, 0, sizeof(*c));
	c->first_blk = blk;
	c->first_rec = s->nr_recs;
	c->fail = EJ_FCF_NO_TAIL;
	while (pos < end) {
		unsigned long boff = pos % bs;
		unsigned int tag, len;
		const unsigned char *p = area + pos;

		if (boff + EJ_FC_TL_LEN > bs) {
			pos += bs - boff;	/* what is left is padding */
			continue;
		}
		tag = get16(p);
		len = get16(p + 2);
		if (tag < EJ_FC_TAG_ADD_RANGE || tag > EJ_FC_TAG_HEAD) {
			c->fail = EJ_FCF_BAD_TAG;
			break;
		}
		if (boff + EJ_FC_TL_LEN + len > bs) {
			c->fail = EJ_FCF_PAST_BLOCK;
			break;
		}
		if (tag == EJ_FC_TAG_TAIL && len < EJ_FC_TAIL_LEN) {
			c->fail = EJ_FCF_BAD_TAG;
			break;
		}
		err = add_rec(s, tag, len, pos,
			      ej_fc_len_ok(tag, len, inode_size));
		if (err)
			return err;
		c->nr_recs++;
		if (tag != EJ_FC_TAG_TAIL) {
			crc = ej_crc32c(crc, p, EJ_FC_TL_LEN + len);
			pos += EJ_FC_TL_LEN + len;
			continue;
		}
		crc = ej_crc32c(crc, p, EJ_FC_TL_LEN + 4);
		c->has_tail = 1;
		c->tail_tid = get32(p + EJ_FC_TL_LEN);
		if (c->tail_tid != s->expected_tid)
			c->fail = EJ_FCF_TAIL_TID;
		else if (get32(p + EJ_FC_TL_LEN + 4) != crc)
			c->fail = EJ_FCF_TAIL_CRC;
		else
			c->fail = EJ_FCF_NONE;
		break;
	}
	if (pos >= end) {
		*next = nr_blks;
		c->nr_blks = nr_blks - blk;
	} else {
		/* a fast commit ends, or fails, in this block */
		*next = pos / bs + 1;
		c->nr_blks = *next - blk;
	}
	return 0;
}

/* Verdicts once every fast commit's fate on its own is known. */
static void judge(struct ej_fc_scan *s)
{
	size_t i, r;
	int bad = 0, verified_after = 0;

	for (i = 0; i < s->nr_fcs; i++) {
		struct ej_fc_commit *c = &s->fcs[i];

		if (c->fail != EJ_FCF_NONE)
			continue;
		if (bad) {
			c->verdict = EJ_FCV_AFTER_BAD;
			continue;
		}
		for (r = 0; r < c->nr_recs; r++)
			if (!s->recs[c->first_rec + r].len_ok)
				break;
		if (r < c->nr_recs) {
			c->verdict = EJ_FCV_BAD_LENGTH;
			bad = 1;
			s->flagged = 1;
		} else {
			c->verdict = EJ_FCV_VERIFIED;
		}
	}
	for (i = s->nr_fcs; i-- > 0; ) {
		struct ej_fc_commit *c = &s->fcs[i];

		if (c->fail == EJ_FCF_NONE) {
			verified_after = 1;
		} else if (verified_after) {
			c->verdict = EJ_FCV_SKIPPED;
			s->flagged = 1;
		} else {
			c->verdict = c->fail == EJ_FCF_TAIL_TID ?
				     EJ_FCV_STALE : EJ_FCV_UNACKED;
		}
	}
}

errcode_t ej_fc_scan(const unsigned char *area, unsigned long nr_blks,
		     unsigned int bs, __u32 expected_tid,
		     unsigned int inode_size, struct ej_fc_scan *out)
{
	unsigned long blk = 0, next;
	struct ej_fc_commit c;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	out->expected_tid = expected_tid;
	if (!area || !nr_blks || bs < 64 ||
	    get16(area) != EJ_FC_TAG_HEAD)
		return 0;
	if (get16(area + 2) != EJ_FC_HEAD_LEN) {
		out->area = EJ_FCA_BAD_HEAD;
		out->flagged = 1;
		return 0;
	}
	out->head_features = get32(area + EJ_FC_TL_LEN);
	out->head_tid = get32(area + EJ_FC_TL_LEN + 4);
	if (out->head_features & ~EJ_FC_KNOWN_FEATURES) {
		out->area = EJ_FCA_FEATURES;
		out->flagged = 1;
		return 0;
	}
	if (out->head_tid != expected_tid) {
		out->area = EJ_FCA_STALE;
		return 0;
	}
	out->area = EJ_FCA_LIVE;
	while (blk < nr_blks) {
		struct ej_fc_commit *prev;

		err = parse_one(out, area, nr_blks, bs, inode_size, blk, &c,
				&next);
		if (err)
			goto fail;
		blk = next;
		prev = out->nr_fcs ? &out->fcs[out->nr_fcs - 1] : NULL;
		/* runs of blocks that hold nothing at all: one entry */
		if (!c.nr_recs && prev && !prev->nr_recs &&
		    prev->fail == c.fail) {
			prev->nr_blks += c.nr_blks;
			continue;
		}
		if (ej_grow((void **)&out->fcs, &out->max_fcs,
			    out->nr_fcs + 1, sizeof(*out->fcs))) {
			err = EJ_NO_MEMORY;
			goto fail;
		}
		out->fcs[out->nr_fcs++] = c;
	}
	judge(out);
	return 0;
fail:
	ej_fc_scan_free(out);
	return err;
}

void ej_fc_scan_free(struct ej_fc_scan *s)
{
	free(s->fcs);
	free(s->recs);
	s->fcs = NULL;
	s->recs = NULL;
	s->nr_fcs = s->nr_recs = s->max_fcs = s->max_recs = 0;
}

const char *ej_fc_tag_name(unsigned int tag)
{
	static const char *const names[] = {
		[EJ_FC_TAG_ADD_RANGE] = "add_range",
		[EJ_FC_TAG_DEL_RANGE] = "del_range",
		[EJ_FC_TAG_CREAT] = "create",
		[EJ_FC_TAG_LINK] = "link",
		[EJ_FC_TAG_UNLINK] = "unlink",
		[EJ_FC_TAG_INODE] = "inode",
		[EJ_FC_TAG_PAD] = "pad",
		[EJ_FC_TAG_TAIL] = "tail",
		[EJ_FC_TAG_HEAD] = "head",
	};

	if (tag >= EJ_FC_TAG_ADD_RANGE && tag <= EJ_FC_TAG_HEAD)
		return names[tag];
	return "unknown";
}

const char *ej_fc_verdict_name(int verdict)
{
	static const char *const names[EJ_FCV_MAX] = {
		[EJ_FCV_VERIFIED] = "verified",
		[EJ_FCV_UNACKED] = "never acknowledged",
		[EJ_FCV_SKIPPED] = "skipped (failed, a verified one follows)",
		[EJ_FCV_BAD_LENGTH] = "not replayed (bad record length)",
		[EJ_FCV_AFTER_BAD] = "not replayed (after a bad record length)",
		[EJ_FCV_STALE] = "stale (another transaction)",
	};

	return verdict >= 0 && verdict < EJ_FCV_MAX ? names[verdict] : "?";
}

const char *ej_fc_fail_name(int fail)
{
	static const char *const names[EJ_FCF_MAX] = {
		[EJ_FCF_NONE] = "none",
		[EJ_FCF_NO_TAIL] = "no tail",
		[EJ_FCF_BAD_TAG] = "unknown tag",
		[EJ_FCF_PAST_BLOCK] = "record past its block",
		[EJ_FCF_TAIL_TID] = "tail tid",
		[EJ_FCF_TAIL_CRC] = "tail crc",
	};

	return fail >= 0 && fail < EJ_FCF_MAX ? names[fail] : "?";
}

const char *ej_fc_area_name(int area)
{
	static const char *const names[EJ_FCA_MAX] = {
		[EJ_FCA_NONE] = "none",
		[EJ_FCA_STALE] = "stale",
		[EJ_FCA_FEATURES] = "unknown features",
		[EJ_FCA_BAD_HEAD] = "bad head",
		[EJ_FCA_LIVE] = "live",
	};

	return area >= 0 && area < EJ_FCA_MAX ? names[area] : "?";
}
