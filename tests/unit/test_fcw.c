// SPDX-License-Identifier: GPL-2.0
/*
 * test_fcw.c: the fast-commit writer (fc_write.c) against the scanner
 * (fc_scan.c): every record it places is where the scanner finds it,
 * whatever the lengths that meet the ends of blocks; a TAIL of another
 * tid, a crc that fails, a missing TAIL, HEAD variants give the verdicts
 * POLICY.md "Fast commits" names; ej_fcw_put() writes the area where
 * Linux and e2fsprogs read it (one block past the log).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ej_int.h"
#include "test/ej_fcw.h"

#define TID	41u
#define ISZ	256

static void scan(const struct ej_fcw *a, unsigned int bs,
		 unsigned long nr, struct ej_fc_scan *s)
{
	assert_int_equal(ej_fc_scan(ej_fcw_area(a, NULL), nr, bs, TID, ISZ,
				    s), 0);
}

/* Is every record the writer placed one the scanner read, in order? */
static void same_records(const struct ej_fcw *a, const struct ej_fc_scan *s,
			 unsigned int bs)
{
	const struct ej_fcw_rec *w = ej_fcw_recs(a, NULL);
	size_t nr, i;

	ej_fcw_recs(a, &nr);
	assert_int_equal(nr, s->nr_recs);
	for (i = 0; i < nr; i++) {
		assert_int_equal(w[i].tag, s->recs[i].tag);
		assert_int_equal(w[i].len, s->recs[i].len);
		assert_int_equal(w[i].off, s->recs[i].off);
		/* never across a block, never 1-3 bytes left behind */
		assert_true(w[i].off % bs + 4 + w[i].len <= bs);
		assert_true(bs - (w[i].off % bs + 4 + w[i].len) == 0 ||
			    bs - (w[i].off % bs + 4 + w[i].len) >= 4);
	}
}

/* One area: a name length @nl after a PAD of @shift bytes. */
static void boundary(unsigned int bs, unsigned int shift, unsigned int nl)
{
	char name[EJ_FC_NAME_MAX];
	struct ej_fc_scan s;
	struct ej_fcw *a;

	memset(name, 'n', sizeof(name));
	assert_int_equal(ej_fcw_new(bs, 64, &a), 0);
	assert_int_equal(ej_fcw_head(a, 0, TID), 0);
	assert_int_equal(ej_fcw_record(a, EJ_FC_TAG_PAD, NULL, shift), 0);
	while (ej_fcw_blocks(a) < 3)
		assert_int_equal(ej_fcw_dentry(a, EJ_FC_TAG_LINK, 12, 13,
					       name, nl), 0);
	assert_int_equal(ej_fcw_tail(a, TID, 0), 0);
	assert_int_equal(ej_fcw_del_range(a, 13, 5, 1), 0);
	assert_int_equal(ej_fcw_tail(a, TID, 0), 0);
	scan(a, bs, 64, &s);
	assert_int_equal(s.area, EJ_FCA_LIVE);
	assert_true(s.nr_fcs >= 2);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_VERIFIED);
	assert_false(s.flagged);
	same_records(a, &s, bs);
	ej_fc_scan_free(&s);
	ej_fcw_free(a);
}

/* Names of every length from every offset in the block. */
static void test_boundaries(void **state)
{
	unsigned int bs, shift, nl;

	(void)state;
	for (bs = 1024; bs <= 4096; bs *= 4)
		for (shift = 0; shift < 8; shift++)
			for (nl = 1; nl <= EJ_FC_NAME_MAX; nl += 7)
				boundary(bs, shift, nl);
}

/* One fast commit of a link; @how: 0 good, 1 bad crc, 2 tid, 3 torn. */
static void one(struct ej_fcw *a, int how)
{
	assert_int_equal(ej_fcw_dentry(a, EJ_FC_TAG_LINK, 12, 13, "x", 1), 0);
	if (how == 3)
		assert_int_equal(ej_fcw_end_torn(a), 0);
	else
		assert_int_equal(ej_fcw_tail(a, how == 2 ? TID + 1 : TID,
					     how == 1), 0);
}

static void verdicts(int first, int second, int v0, int v1, int flagged)
{
	struct ej_fc_scan s;
	struct ej_fcw *a;

	assert_int_equal(ej_fcw_new(1024, 8, &a), 0);
	assert_int_equal(ej_fcw_head(a, 0, TID), 0);
	one(a, first);
	if (second >= 0)
		one(a, second);
	scan(a, 1024, 8, &s);
	assert_int_equal(s.area, EJ_FCA_LIVE);
	assert_int_equal(s.fcs[0].verdict, v0);
	if (second >= 0)
		assert_int_equal(s.fcs[1].verdict, v1);
	assert_int_equal(s.flagged, flagged);
	ej_fc_scan_free(&s);
	ej_fcw_free(a);
}

static void test_tails(void **state)
{
	(void)state;
	verdicts(0, 0, EJ_FCV_VERIFIED, EJ_FCV_VERIFIED, 0);
	verdicts(0, 1, EJ_FCV_VERIFIED, EJ_FCV_UNACKED, 0);
	verdicts(0, 2, EJ_FCV_VERIFIED, EJ_FCV_STALE, 0);
	verdicts(0, 3, EJ_FCV_VERIFIED, EJ_FCV_UNACKED, 0);
	verdicts(1, 0, EJ_FCV_SKIPPED, EJ_FCV_VERIFIED, 1);
	verdicts(3, 0, EJ_FCV_SKIPPED, EJ_FCV_VERIFIED, 1);
	verdicts(1, -1, EJ_FCV_UNACKED, 0, 0);
}

static void test_heads(void **state)
{
	struct ej_fc_scan s;
	struct ej_fcw *a;
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		assert_int_equal(ej_fcw_new(1024, 4, &a), 0);
		if (k == 1)
			assert_int_equal(ej_fcw_head(a, 0, TID - 1), 0);
		if (k == 2)
			assert_int_equal(ej_fcw_head(a, 4, TID), 0);
		one(a, 0);
		scan(a, 1024, 4, &s);
		assert_int_equal(s.area, k == 0 ? EJ_FCA_NONE :
				 k == 1 ? EJ_FCA_STALE : EJ_FCA_FEATURES);
		assert_int_equal(s.flagged, k == 2);
		ej_fc_scan_free(&s);
		ej_fcw_free(a);
	}
}

/* An empty name, a record of impossible length, crc and all right. */
static void test_bad_length(void **state)
{
	struct ej_fc_scan s;
	struct ej_fcw *a;

	(void)state;
	assert_int_equal(ej_fcw_new(1024, 4, &a), 0);
	assert_int_equal(ej_fcw_head(a, 0, TID), 0);
	one(a, 0);
	assert_int_equal(ej_fcw_dentry(a, EJ_FC_TAG_UNLINK, 12, 13, "", 0), 0);
	assert_int_equal(ej_fcw_tail(a, TID, 0), 0);
	scan(a, 1024, 4, &s);
	assert_int_equal(s.fcs[0].verdict, EJ_FCV_VERIFIED);
	assert_int_equal(s.fcs[1].verdict, EJ_FCV_BAD_LENGTH);
	assert_true(s.flagged);
	ej_fc_scan_free(&s);
	ej_fcw_free(a);
}

static void test_full(void **state)
{
	struct ej_fcw *a;
	int i;
	errcode_t err = 0;

	(void)state;
	assert_int_equal(ej_fcw_new(1024, 2, &a), 0);
	for (i = 0; i < 1000 && !err; i++)
		err = ej_fcw_del_range(a, 13, i, 1);
	assert_int_equal(err, EXT2_ET_JOURNAL_TOO_SMALL);
	assert_int_equal(ej_fcw_record(a, EJ_FC_TAG_PAD, NULL, 2000),
			 EJ_BAD_ARG);
	assert_int_equal(ej_fcw_add_range(a, 13, 0, 0, 9, 0), EJ_BAD_ARG);
	ej_fcw_free(a);
}

/* A journal in memory, 64 blocks of 1 KiB, 8 of them fast-commit. */
#define JB	1024
#define JLEN	64
static unsigned char jmem[JB * JLEN];

static errcode_t mem_write(void *arg, unsigned long b, const void *buf)
{
	(void)arg;
	if (b >= JLEN)
		return EJ_BLOCK_OUT_OF_RANGE;
	memcpy(jmem + b * JB, buf, JB);
	return 0;
}

static errcode_t mem_read(void *arg, unsigned long b, void *buf)
{
	(void)arg;
	if (b >= JLEN)
		return EJ_BLOCK_OUT_OF_RANGE;
	memcpy(buf, jmem + b * JB, JB);
	return 0;
}

static void test_put(void **state)
{
	struct ej_jsink sink = { mem_write, mem_read, NULL };
	struct ej_writer_opts o;
	struct ej_writer *w;
	struct ej_fcw *a;
	unsigned long first = 0;
	unsigned char junk[JB];

	(void)state;
	memset(jmem, 0xee, sizeof(jmem));
	memset(&o, 0, sizeof(o));
	o.flags = EJ_W_FORMAT | EJ_W_FAST_COMMIT;
	o.blocksize = JB;
	o.maxlen = JLEN;
	o.num_fc_blks = 8;
	assert_int_equal(ej_writer_open(&sink, &o, &w), 0);
	assert_int_equal(ej_writer_begin(w, NULL), 0);
	memset(junk, 0x11, sizeof(junk));
	assert_int_equal(ej_writer_add_block(w, 100, junk), 0);
	assert_int_equal(ej_writer_commit(w), 0);
	assert_int_equal(ej_writer_next_tid(w), 2);
	assert_int_equal(ej_fcw_new(JB, 7, &a), 0);
	assert_int_equal(ej_fcw_head(a, 0, 2), 0);
	one(a, 0);
	assert_int_equal(ej_fcw_put(w, a, &first), 0);
	/* the log is blocks 1-55, the area 57-63 */
	assert_int_equal(first, JLEN - 8 + 1);
	assert_memory_equal(jmem + first * JB, ej_fcw_area(a, NULL), JB);
	assert_int_equal(jmem[(first + 1) * JB], 0);
	assert_int_equal(jmem[(first - 1) * JB], 0xee);
	assert_int_equal(ej_writer_finish(w), 0);
	ej_fcw_free(a);
	/* a larger area than the journal's does not go in */
	assert_int_equal(ej_fcw_new(JB, 9, &a), 0);
	assert_int_equal(ej_fcw_head(a, 0, 2), 0);
	while (ej_fcw_blocks(a) < 9)
		assert_int_equal(ej_fcw_del_range(a, 13, 0, 1), 0);
	assert_int_equal(ej_fcw_put(w, a, NULL), EXT2_ET_JOURNAL_TOO_SMALL);
	ej_fcw_free(a);
	ej_writer_free(w);

	/* no fast_commit feature: nowhere to put it */
	o.flags = EJ_W_FORMAT;
	assert_int_equal(ej_writer_open(&sink, &o, &w), 0);
	assert_int_equal(ej_fcw_new(JB, 7, &a), 0);
	assert_int_equal(ej_fcw_put(w, a, NULL), EJ_BAD_ARG);
	ej_fcw_free(a);
	ej_writer_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_tails),
		cmocka_unit_test(test_heads),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
