// SPDX-License-Identifier: GPL-2.0
/*
 * test_fc.c: the fast-commit scanner (fc_scan.c) on crafted areas, one
 * POLICY.md "Fast commits" row at a time, plus the record length rules
 * per tag.  The areas are built here record by record, crc32c computed
 * by the portable implementation (not the code under test's dispatch).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ej_int.h"
#include "ej_fc.h"

#define BS	1024
#define NBLK	8
#define TID	77u

/* An area being written, as ext4 writes one. */
struct area {
	unsigned char	buf[BS * NBLK];
	unsigned long	pos;
	__u32		crc;
};

static void put16(unsigned char *p, unsigned int v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(unsigned char *p, __u32 v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void init(struct area *a)
{
	memset(a, 0, sizeof(*a));
}

/* One record; PAD to the next block first when it does not fit. */
static void rec(struct area *a, unsigned int tag, const void *val,
		unsigned int len)
{
	unsigned char *p;

	if (a->pos % BS + 4 + len > BS) {
		unsigned int left = BS - a->pos % BS - 4;

		p = a->buf + a->pos;
		put16(p, EJ_FC_TAG_PAD);
		put16(p + 2, left);
		a->crc = ej_crc32c_sw(a->crc, p, BS - a->pos % BS);
		a->pos += BS - a->pos % BS;
	}
	p = a->buf + a->pos;
	put16(p, tag);
	put16(p + 2, len);
	if (val)
		memcpy(p + 4, val, len);
	a->crc = ej_crc32c_sw(a->crc, p, 4 + len);
	a->pos += 4 + len;
}

static void head(struct area *a, __u32 features, __u32 tid)
{
	unsigned char v[8];

	put32(v, features);
	put32(v + 4, tid);
	rec(a, EJ_FC_TAG_HEAD, v, 8);
}

static void inode_rec(struct area *a, __u32 ino, unsigned int raw)
{
	unsigned char v[4 + 256];

	memset(v, 0x11, sizeof(v));
	put32(v, ino);
	rec(a, EJ_FC_TAG_INODE, v, 4 + raw);
}

static void dentry(struct area *a, unsigned int tag, __u32 parent,
		   __u32 ino, const char *name)
{
	unsigned char v[8 + 256];
	size_t n = strlen(name);

	put32(v, parent);
	put32(v + 4, ino);
	memcpy(v + 8, name, n);
	rec(a, tag, v, 8 + n);
}

/* TAIL to the end of its block; @crc_delta spoils the crc. */
static void tail(struct area *a, __u32 tid, __u32 crc_delta)
{
	unsigned char *p;
	unsigned int len;

	if (a->pos % BS + 12 > BS)
		rec(a, EJ_FC_TAG_PAD, NULL, BS - a->pos % BS - 4);
	p = a->buf + a->pos;
	len = BS - a->pos % BS - 4;
	put16(p, EJ_FC_TAG_TAIL);
	put16(p + 2, len);
	put32(p + 4, tid);
	a->crc = ej_crc32c_sw(a->crc, p, 8);
	put32(p + 8, a->crc + crc_delta);
	a->crc = 0;
	a->pos += 4 + len;
}

/* A plain fast commit: an inode and a name for it. */
static void one_fc(struct area *a, __u32 ino, __u32 tid, __u32 crc_delta)
{
	inode_rec(a, ino, 160);
	dentry(a, EJ_FC_TAG_CREAT, 2, ino, "name");
	tail(a, tid, crc_delta);
}

static void scan(struct area *a, struct ej_fc_scan *s)
{
	assert_int_equal(ej_fc_scan(a->buf, NBLK, BS, TID, 256, s), 0);
}

/* Row 1: no HEAD in the first block: nothing to do. */
static void test_no_head(void **state)
{
	struct area a;
	struct ej_fc_scan s;

	(void)state;
	init(&a);
	one_fc(&a, 12, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_NONE);
	assert_int_equal(s.nr_fcs, 0);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
	/* all zeros */
	init(&a);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_NONE);
	ej_fc_scan_free(&s);
}

/* Row 2: HEAD of another tid: stale, ignored, not flagged. */
static void test_stale_head(void **state)
{
	struct area a;
	struct ej_fc_scan s;

	(void)state;
	init(&a);
	head(&a, 0, TID - 1);
	one_fc(&a, 12, TID - 1, 0);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_STALE);
	assert_int_equal(s.head_tid, TID - 1);
	assert_int_equal(s.nr_fcs, 0);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
}

/* Row 3: HEAD with unknown features: not replayed, flagged. */
static void test_unknown_features(void **state)
{
	struct area a;
	struct ej_fc_scan s;

	(void)state;
	init(&a);
	head(&a, 0x4, TID);
	one_fc(&a, 12, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_FEATURES);
	assert_int_equal(s.nr_fcs, 0);
	assert_true(s.flagged);
	ej_fc_scan_free(&s);
	/* a HEAD whose length is impossible: the same */
	init(&a);
	rec(&a, EJ_FC_TAG_HEAD, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_BAD_HEAD);
	assert_true(s.flagged);
	ej_fc_scan_free(&s);
}

/* Row 4: verified fast commits, in order, one block each or more. */
static void test_verified(void **state)
{
	struct area a;
	struct ej_fc_scan s;
	int i;

	(void)state;
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	/* the second spans three blocks (PAD at each block's end) */
	for (i = 0; i < 14; i++)
		inode_rec(&a, 13, 160);
	tail(&a, TID, 0);
	one_fc(&a, 14, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.area, EJ_FCA_LIVE);
	assert_int_equal(s.nr_fcs >= 3, 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(s.fcs[i].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[0].first_blk, 0);
	assert_int_equal(s.fcs[1].first_blk, 1);
	assert_int_equal(s.fcs[1].nr_blks, 3);
	assert_int_equal(s.fcs[2].first_blk, 4);
	/* HEAD, INODE, CREAT, TAIL */
	assert_int_equal(s.fcs[0].nr_recs, 4);
	assert_int_equal(s.recs[s.fcs[0].first_rec].tag, EJ_FC_TAG_HEAD);
	assert_int_equal(s.recs[s.fcs[0].first_rec + 2].tag, EJ_FC_TAG_CREAT);
	/* the rest of the area (zeros) was never written */
	for (i = 3; i < (int)s.nr_fcs; i++)
		assert_int_equal(s.fcs[i].verdict, EJ_FCV_UNACKED);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
}

/* Row 5: the last one fails (no TAIL, crc, tid): never acknowledged. */
static void test_unacked(void **state)
{
	struct area a;
	struct ej_fc_scan s;

	(void)state;
	/* crc */
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	one_fc(&a, 13, TID, 1);
	scan(&a, &s);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_UNACKED);
	assert_int_equal(s.fcs[1].fail, EJ_FCF_TAIL_CRC);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
	/* no TAIL at all: the records end in zeros */
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	inode_rec(&a, 13, 160);
	scan(&a, &s);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_UNACKED);
	assert_int_equal(s.fcs[1].fail, EJ_FCF_BAD_TAG);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
	/* an older tid's TAIL (left from before the last full commit) */
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	one_fc(&a, 13, TID - 3, 0);
	scan(&a, &s);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_STALE);
	assert_int_equal(s.fcs[1].fail, EJ_FCF_TAIL_TID);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
	/* the very first one torn: Linux refuses all, here nothing is lost */
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 5);
	scan(&a, &s);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_UNACKED);
	assert_false(s.flagged);
	ej_fc_scan_free(&s);
}

/* Row 6: a failed one followed by a verified one: skipped, flagged. */
static void test_skipped(void **state)
{
	struct area a;
	struct ej_fc_scan s;

	(void)state;
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	one_fc(&a, 13, TID, 9);		/* crc fails */
	one_fc(&a, 14, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_SKIPPED);
	assert_int_equal(s.fcs[2].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[2].first_blk, 2);
	assert_true(s.flagged);
	ej_fc_scan_free(&s);
	/* a record running past its block: parsing resumes after it */
	init(&a);
	head(&a, 0, TID);
	one_fc(&a, 12, TID, 0);
	inode_rec(&a, 13, 160);
	put16(a.buf + BS + 2, 2000);
	tail(&a, TID, 0);
	one_fc(&a, 14, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.fcs[1].fail, EJ_FCF_PAST_BLOCK);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_SKIPPED);
	assert_int_equal(s.fcs[2].verdict, EJ_FCV_VERIFIED);
	assert_true(s.flagged);
	ej_fc_scan_free(&s);
}

/* Row 7: a verified one holding an impossible length: it and later not. */
static void test_bad_length(void **state)
{
	static const unsigned int lens[][2] = {
		{ EJ_FC_TAG_ADD_RANGE, 12 },
		{ EJ_FC_TAG_DEL_RANGE, 16 },
		{ EJ_FC_TAG_CREAT, 8 },
		{ EJ_FC_TAG_LINK, 8 + 256 },
		{ EJ_FC_TAG_UNLINK, 4 },
		{ EJ_FC_TAG_INODE, 4 + 127 },
		{ EJ_FC_TAG_INODE, 4 + 257 },
		{ EJ_FC_TAG_HEAD, 4 },
	};
	unsigned char zero[300];
	struct area a;
	struct ej_fc_scan s;
	size_t i;

	(void)state;
	memset(zero, 0, sizeof(zero));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		init(&a);
		head(&a, 0, TID);
		one_fc(&a, 12, TID, 0);
		inode_rec(&a, 13, 160);
		rec(&a, lens[i][0], zero, lens[i][1]);
		tail(&a, TID, 0);
		one_fc(&a, 14, TID, 0);
		scan(&a, &s);
		assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
		assert_int_equal(s.fcs[1].verdict, EJ_FCV_BAD_LENGTH);
		assert_int_equal(s.fcs[2].verdict, EJ_FCV_AFTER_BAD);
		assert_true(s.flagged);
		ej_fc_scan_free(&s);
	}
}

/* The lengths Linux 6.2+ accepts, tag by tag. */
static void test_len_rules(void **state)
{
	(void)state;
	assert_true(ej_fc_len_ok(EJ_FC_TAG_ADD_RANGE, 16, 256));
	assert_false(ej_fc_len_ok(EJ_FC_TAG_ADD_RANGE, 17, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_DEL_RANGE, 12, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_CREAT, 9, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_LINK, 263, 256));
	assert_false(ej_fc_len_ok(EJ_FC_TAG_UNLINK, 264, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_INODE, 132, 128));
	assert_false(ej_fc_len_ok(EJ_FC_TAG_INODE, 133, 128));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_INODE, 260, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_PAD, 0, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_TAIL, 900, 256));
	assert_false(ej_fc_len_ok(EJ_FC_TAG_TAIL, 7, 256));
	assert_true(ej_fc_len_ok(EJ_FC_TAG_HEAD, 8, 256));
	assert_false(ej_fc_len_ok(0, 8, 256));
	assert_false(ej_fc_len_ok(10, 8, 256));
	assert_string_equal(ej_fc_tag_name(EJ_FC_TAG_LINK), "link");
	assert_string_equal(ej_fc_tag_name(42), "unknown");
}

/* Linux before 6.6 ends TAIL and PAD one byte short of the block. */
static void test_old_tail(void **state)
{
	struct area a;
	struct ej_fc_scan s;
	unsigned char *p;

	(void)state;
	init(&a);
	head(&a, 0, TID);
	inode_rec(&a, 12, 160);
	p = a.buf + a.pos;
	put16(p, EJ_FC_TAG_TAIL);
	put16(p + 2, BS - a.pos - 4 - 1);
	put32(p + 4, TID);
	put32(p + 8, ej_crc32c_sw(a.crc, p, 8));
	a.crc = 0;
	a.pos = BS;
	one_fc(&a, 13, TID, 0);
	scan(&a, &s);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].first_blk, 1);
	ej_fc_scan_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_head),
		cmocka_unit_test(test_stale_head),
		cmocka_unit_test(test_unknown_features),
		cmocka_unit_test(test_verified),
		cmocka_unit_test(test_unacked),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_len_rules),
		cmocka_unit_test(test_old_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
