// SPDX-License-Identifier: GPL-2.0
/*
 * test_recovery.c: recovery.c driven through memdev.c, fed by writer.c.
 *
 * Each healthy test writes transactions with the library's writer into an
 * in-memory journal, records the same transactions in a model that knows
 * nothing of the on-disk format (apply them in order; a revoke record
 * (B, T) keeps B from every transaction with tid <= T), replays with
 * jbd2_journal_recover() under every policy and compares every block of
 * the device with the model.  The robustness tests feed recovery garbage
 * and check only what must hold whatever the input: it returns, and it
 * never writes outside the filesystem or into the journal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rig.h"

#define TEST_TIMEOUT	300	/* seconds: a hang is a failure */

static const int all_policies[] = {
	JBD2_POLICY_REPLAY_ALL, JBD2_POLICY_STOP, JBD2_POLICY_REFUSE,
};

/* ------------------------------------------------------------------ */
/* Journal configurations                                              */

static const struct rig_cfg layouts[] = {
	{ "none_32", EJ_CSUM_NONE, 0, 8 },
	{ "none_64", EJ_CSUM_NONE, EJ_W_64BIT, 12 },
	{ "v1_32", EJ_CSUM_V1, 0, 8 },
	{ "v1_64_async", EJ_CSUM_V1, EJ_W_64BIT | EJ_W_ASYNC_COMMIT, 12 },
	{ "v2_32", EJ_CSUM_V2, 0, 10 },
	{ "v2_64", EJ_CSUM_V2, EJ_W_64BIT, 14 },
	{ "v3_32", EJ_CSUM_V3, 0, 16 },
	{ "v3_64", EJ_CSUM_V3, EJ_W_64BIT, 16 },
	{ "v3_64_async", EJ_CSUM_V3, EJ_W_64BIT | EJ_W_ASYNC_COMMIT, 16 },
};
#define NR_LAYOUTS	ARRAY_SIZE(layouts)

/* ------------------------------------------------------------------ */
/* Healthy journals                                                    */

/*
 * A healthy journal: under every policy recovery succeeds, flags nothing,
 * and leaves exactly the model's image.
 */
static void expect_healthy(struct rig *r, const char *what)
{
	unsigned char *img = model_expect(r);
	size_t live = model_nr_live(r), p;
	char name[128];
	journal_t *j;

	for (p = 0; p < ARRAY_SIZE(all_policies); p++) {
		snprintf(name, sizeof(name), "%s [%s]", what,
			 ej_policy_name(all_policies[p]));
		j = rig_recover(r, all_policies[p]);
		if (r->rc)
			fail_msg("%s: jbd2_journal_recover returned %d", name,
				 r->rc);
		if (j->j_replay_corrupt)
			fail_msg("%s: healthy journal flagged 0x%x", name,
				 j->j_replay_corrupt);
		if (j->j_failed_commit)
			fail_msg("%s: j_failed_commit %u", name,
				 j->j_failed_commit);
		if (live && !tid_gt(j->j_transaction_sequence,
				    r->tx[live - 1].tid))
			fail_msg("%s: next sequence %u not after the last committed tid %u",
				 name,
				 j->j_transaction_sequence,
				 r->tx[live - 1].tid);
		if (j->j_replay_nr_txns != live)
			fail_msg("%s: %u transactions replayed, %zu expected",
				 name, j->j_replay_nr_txns, live);
		check_image(r, img, name);
		rig_done(r, name);
	}
	free(img);
}

/* ------------------------------------------------------------------ */
/* Workloads                                                           */

/*
 * Four transactions touching every path of a healthy replay: escaped
 * blocks, a revoke that holds, a revoke overridden by a later log, a
 * revoke of a block never logged, enough tags for several descriptors
 * at 1 KiB, and enough revoke records for two revoke blocks.
 */
static void workload_basic(struct rig *r, int is64)
{
	unsigned long i;

	tx_begin(r);			/* A */
	for (i = 0; i < 6; i++)
		tx_add(r, rig_fsblk(r, 10 + i), i == 0 || i == 4);
	tx_commit(r);

	tx_begin(r);			/* B */
	tx_revoke(r, rig_fsblk(r, 11));	/* holds: not logged again */
	tx_revoke(r, rig_fsblk(r, 12));	/* logged again in C */
	tx_revoke(r, rig_fsblk(r, 700));	/* never logged */
	tx_add(r, rig_fsblk(r, 20), 1);
	tx_add(r, rig_fsblk(r, 21), 0);
	if (is64)	/* the same low bits, another block: must not hold */
		tx_revoke(r, (1ULL << 32) | rig_fsblk(r, 13));
	tx_commit(r);

	tx_begin(r);			/* C */
	tx_add(r, rig_fsblk(r, 12), 0);
	for (i = 0; i < 130; i++)
		tx_add(r, rig_fsblk(r, 100 + i), i % 37 == 0);
	tx_commit(r);

	tx_begin(r);			/* D */
	for (i = 0; i < 300; i++)
		tx_revoke(r, rig_fsblk(r, 300 + i));
	for (i = 0; i < 5; i++)
		tx_add(r, rig_fsblk(r, 100 + 3 * i), i == 2);
	tx_add(r, rig_fsblk(r, 14), 0);
	tx_commit(r);
}

/* Transactions logging blocks 0..nr-1 of a small pool, with revokes. */
static void workload_random(struct rig *r, unsigned int nr_tx,
			    unsigned long pool, int commit_last)
{
	unsigned int t, n, i;

	for (t = 0; t < nr_tx; t++) {
		tx_begin(r);
		n = rnd_below(&r->rnd, 12);
		for (i = 0; i < n; i++)
			tx_add(r, rig_fsblk(r, rnd_below(&r->rnd, pool)),
			       rnd_below(&r->rnd, 5) == 0);
		n = rnd_below(&r->rnd, 4);
		for (i = 0; i < n; i++)
			tx_revoke(r, rig_fsblk(r, rnd_below(&r->rnd, pool)));
		if (t + 1 < nr_tx || commit_last)
			tx_commit(r);
		else
			tx_uncommitted(r);
	}
}

/* ------------------------------------------------------------------ */
/* Writer self-checks: the journal as FORMAT.md describes it           */

/*
 * Parse what the writer wrote with this file's own reading of FORMAT.md
 * and compare with the layout the writer reports and the model.
 */
static void check_writer_format(struct rig *r, const struct rig_cfg *c)
{
	const journal_superblock_t *sb = ej_writer_jsb(r->w);
	__u32 seed = ej_crc32c(~0U, sb->s_uuid, 16);
	int v23 = c->csum == EJ_CSUM_V2 || c->csum == EJ_CSUM_V3;
	int is64 = !!(c->flags & EJ_W_64BIT);
	const struct ej_wtxn *txns, *t;
	size_t nr, i, k, data_i;
	unsigned char *save = malloc(r->bs);

	assert_non_null(save);
	txns = ej_writer_txns(r->w, &nr);
	assert_int_equal(nr, r->nr_tx);
	assert_int_equal(rd32(jblk(r, 0)), JBD2_MAGIC_NUMBER);
	assert_int_equal(rd32(jblk(r, 0) + 0x1c), txns[0].first_block);
	assert_int_equal(rd32(jblk(r, 0) + 0x18), txns[0].tid);
	if (v23) {
		memcpy(save, jblk(r, 0), 1024);
		memset(save + 0xfc, 0, 4);
		assert_int_equal(rd32(jblk(r, 0) + 0xfc),
				 ej_crc32c(~0U, save, 1024));
		assert_int_equal(jblk(r, 0)[0x50], JBD2_CRC32C_CHKSUM_TYPE);
	}
	for (i = 0; i < nr; i++) {
		__u32 crc = ~0U;

		t = &txns[i];
		assert_int_equal(t->tid, r->tx[i].tid);
		assert_int_equal(t->nr_data, r->tx[i].nr_blk);
		data_i = 0;
		for (k = 0; k < t->nr_blocks; k++) {
			const struct ej_wblock *b = &t->blocks[k];
			unsigned char *p = jblk(r, b->jblock);
			unsigned int flags;

			switch (b->kind) {
			case EJ_WB_DESCRIPTOR:
				assert_int_equal(rd32(p), JBD2_MAGIC_NUMBER);
				assert_int_equal(rd32(p + 4),
						 JBD2_DESCRIPTOR_BLOCK);
				assert_int_equal(rd32(p + 8), t->tid);
				if (v23) {
					memcpy(save, p, r->bs);
					memset(save + r->bs - 4, 0, 4);
					assert_int_equal(rd32(p + r->bs - 4),
						ej_crc32c(seed, save, r->bs));
				}
				/* first tag right after the header, UUID next */
				assert_int_equal(t->blocks[k + 1].tag_offset,
						 12);
				assert_memory_equal(p + 12 + c->tag_bytes,
						    sb->s_uuid, 16);
				if (b->count > 1)
					assert_int_equal(
						t->blocks[k + 2].tag_offset,
						12 + c->tag_bytes + 16);
				crc = ej_crc32_be(crc, p, r->bs);
				break;
			case EJ_WB_DATA: {
				unsigned char *d = jblk(r, b->desc_jblock) +
						   b->tag_offset;
				const unsigned char *want =
					r->tx[i].data[data_i];
				unsigned long long blk = rd32(d);
				__u32 csum;
				__be32 seq = cpu_to_be32(t->tid);

				if (c->csum == EJ_CSUM_V3) {
					flags = rd32(d + 4);
					if (is64)
						blk |= (unsigned long long)
							rd32(d + 8) << 32;
				} else {
					flags = rd16(d + 6);
					if (is64)
						blk |= (unsigned long long)
							rd32(d + 8) << 32;
				}
				assert_int_equal(blk, r->tx[i].blk[data_i]);
				assert_int_equal(flags, b->tag_flags);
				assert_int_equal(!!(flags & JBD2_FLAG_SAME_UUID),
						 b->tag_offset != 12);
				if (rd32(want) == JBD2_MAGIC_NUMBER) {
					assert_true(flags & JBD2_FLAG_ESCAPE);
					assert_int_equal(rd32(p), 0);
					assert_memory_equal(p + 4, want + 4,
							    r->bs - 4);
				} else {
					assert_false(flags & JBD2_FLAG_ESCAPE);
					assert_memory_equal(p, want, r->bs);
				}
				csum = ej_crc32c(seed, &seq, 4);
				csum = ej_crc32c(csum, p, r->bs);
				if (c->csum == EJ_CSUM_V3)
					assert_int_equal(rd32(d + 12), csum);
				if (c->csum == EJ_CSUM_V2)
					assert_int_equal(rd16(d + 4),
							 csum & 0xffff);
				crc = ej_crc32_be(crc, p, r->bs);
				data_i++;
				break;
			}
			case EJ_WB_REVOKE: {
				unsigned int rs = is64 ? 8 : 4;

				assert_int_equal(rd32(p + 4),
						 JBD2_REVOKE_BLOCK);
				assert_int_equal(rd32(p + 12),
						 16 + b->count * rs);
				assert_true(rd32(p + 12) <=
					    r->bs - (v23 ? 4 : 0));
				if (v23) {
					memcpy(save, p, r->bs);
					memset(save + r->bs - 4, 0, 4);
					assert_int_equal(rd32(p + r->bs - 4),
						ej_crc32c(seed, save, r->bs));
				}
				break;
			}
			case EJ_WB_COMMIT:
				assert_int_equal(rd32(p + 4),
						 JBD2_COMMIT_BLOCK);
				assert_int_equal(rd32(p + 8), t->tid);
				if (c->csum == EJ_CSUM_V1) {
					assert_int_equal(p[12],
							 JBD2_CRC32_CHKSUM);
					assert_int_equal(p[13], 4);
					assert_int_equal(rd32(p + 16), crc);
				} else if (v23) {
					assert_int_equal(p[12], 0);
					memcpy(save, p, r->bs);
					memset(save + 16, 0, 4);
					assert_int_equal(rd32(p + 16),
						ej_crc32c(seed, save, r->bs));
				}
				break;
			default:
				fail_msg("unknown block kind %u", b->kind);
			}
		}
		assert_int_equal(data_i, r->tx[i].nr_blk);
	}
	free(save);
}

/* Bytes of journal block @lblk in [lo, hi) that differ from @snap. */
static unsigned int diff_in(struct rig *r, const unsigned char *snap,
			    unsigned long lblk, unsigned int lo,
			    unsigned int hi)
{
	const unsigned char *a = snap + (r->jbase + lblk) * r->bs;
	const unsigned char *b = jblk(r, lblk);
	unsigned int i, n = 0;

	for (i = lo; i < hi; i++)
		n += a[i] != b[i];
	return n;
}

/* Bytes of the whole journal that differ from @snap. */
static unsigned int diff_all(struct rig *r, const unsigned char *snap)
{
	unsigned long b;
	unsigned int n = 0;

	for (b = 0; b < r->jlen; b++)
		n += diff_in(r, snap, b, 0, r->bs);
	return n;
}

/*
 * Each fault kind changes exactly what it names, and nothing else (the
 * resealing kinds: the checksums that cover the change as well).
 */
static void test_writer_corrupt(void **state)
{
	const unsigned int bs = 1024;
	const struct ej_wtxn *a, *b;
	unsigned char *snap, *tmp;
	unsigned long cblk;
	struct rig r, r2;
	__u32 seed, ta, tb;

	(void)state;
	rig_init(&r, bs, 0, 1200);
	rig_writer(&r, &layouts[7], NULL);
	ta = tx_begin(&r);
	tx_add(&r, rig_fsblk(&r, 1), 0);
	tx_add(&r, rig_fsblk(&r, 2), 0);
	tx_add(&r, rig_fsblk(&r, 3), 0);
	tx_revoke(&r, rig_fsblk(&r, 9));
	tx_commit(&r);
	tb = tx_begin(&r);
	tx_add(&r, rig_fsblk(&r, 4), 0);
	tx_add(&r, rig_fsblk(&r, 5), 0);
	tx_commit(&r);
	/* not sealed yet: the superblock kinds refuse */
	assert_int_not_equal(ej_corrupt(r.w, EJ_CORRUPT_JSB_CSUM, 0, 0, 0, 0),
			     0);
	rig_seal(&r);
	a = ej_writer_find_txn(r.w, ta);
	b = ej_writer_find_txn(r.w, tb);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->nr_revoke, 1);
	assert_int_equal(a->blocks[0].kind, EJ_WB_REVOKE);
	assert_int_equal(a->blocks[1].kind, EJ_WB_DESCRIPTOR);
	seed = ej_crc32c(~0U, ej_writer_jsb(r.w)->s_uuid, 16);
	snap = malloc((size_t)r.jd->nr_blocks * bs);
	tmp = malloc(bs);
	assert_non_null(snap);
	assert_non_null(tmp);

#define SNAP()	memcpy(snap, r.jd->data, (size_t)r.jd->nr_blocks * bs)
#define UNDO()	memcpy(r.jd->data, snap, (size_t)r.jd->nr_blocks * bs)
	cblk = a->commit_block;
	SNAP();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_COMMIT_CSUM, ta, 0, 2, 0),
			 0);
	assert_int_equal(diff_all(&r, snap), 1);
	assert_int_equal(diff_in(&r, snap, cblk, 18, 19), 1);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_COMMIT_HEADER, ta, 2, 3,
				    0), 0);
	assert_int_equal(diff_all(&r, snap), 1);
	assert_int_equal(rd32(jblk(&r, cblk) + 8), ta ^ 0xff);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_DATA, ta, 1, 100, 0x40),
			 0);
	assert_int_equal(diff_all(&r, snap), 1);
	assert_int_equal(diff_in(&r, snap, a->blocks[3].jblock, 100, 101), 1);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_DESCR_TAG, ta, 0, 5, 0),
			 0);
	assert_int_equal(diff_in(&r, snap, a->blocks[1].jblock, 17, 18), 1);
	assert_int_equal(diff_all(&r, snap), 1);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_DESCR_TAIL, ta, 0, 0, 0),
			 0);
	assert_int_equal(diff_in(&r, snap, a->blocks[1].jblock, bs - 4,
				 bs - 3), 1);
	assert_int_equal(diff_all(&r, snap), 1);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_REVOKE_TAIL, ta, 0, 1, 0),
			 0);
	assert_int_equal(diff_in(&r, snap, a->blocks[0].jblock, bs - 3,
				 bs - 2), 1);
	assert_int_equal(diff_all(&r, snap), 1);
	UNDO();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_REVOKE_COUNT, ta, 0, 0, 0),
			 0);
	assert_int_equal(rd32(jblk(&r, a->blocks[0].jblock) + 12), 2 * bs);
	assert_int_equal(diff_all(&r, snap),
			 diff_in(&r, snap, a->blocks[0].jblock, 12, 16));
	UNDO();

	/* torn: header intact, tail garbage, checksum of header + zeros */
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_TORN_COMMIT, ta, 0, 0, 7),
			 0);
	assert_int_equal(diff_in(&r, snap, cblk, 0, 512), 0);
	assert_true(diff_in(&r, snap, cblk, 512, bs) > 400);
	assert_int_equal(diff_all(&r, snap), diff_in(&r, snap, cblk, 0, bs));
	memset(tmp, 0, bs);
	memcpy(tmp, jblk(&r, cblk), sizeof(struct commit_header));
	memset(tmp + 16, 0, 4);
	assert_int_equal(rd32(jblk(&r, cblk) + 16), ej_crc32c(seed, tmp, bs));
	memcpy(tmp, jblk(&r, cblk), bs);
	memset(tmp + 16, 0, 4);
	assert_int_not_equal(rd32(jblk(&r, cblk) + 16),
			     ej_crc32c(seed, tmp, bs));
	UNDO();

	/* a tag out of range: descriptor and commit resealed, data intact */
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_TAG_RANGE, tb, 1, 0,
				    (5ULL << 32) | 77), 0);
	assert_int_equal(rd32(jblk(&r, b->blocks[0].jblock) +
			      b->blocks[2].tag_offset), 77);
	assert_int_equal(rd32(jblk(&r, b->blocks[0].jblock) +
			      b->blocks[2].tag_offset + 8), 5);
	assert_int_equal(diff_all(&r, snap),
			 diff_in(&r, snap, b->blocks[0].jblock, 0, bs) +
			 diff_in(&r, snap, b->commit_block, 0, bs));
	memcpy(tmp, jblk(&r, b->blocks[0].jblock), bs);
	memset(tmp + bs - 4, 0, 4);
	assert_int_equal(rd32(jblk(&r, b->blocks[0].jblock) + bs - 4),
			 ej_crc32c(seed, tmp, bs));
	memcpy(tmp, jblk(&r, b->commit_block), bs);
	memset(tmp + 16, 0, 4);
	assert_int_equal(rd32(jblk(&r, b->commit_block) + 16),
			 ej_crc32c(seed, tmp, bs));
	UNDO();

	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_RAW, 0, 600, 9, 0x10), 0);
	assert_int_equal(diff_all(&r, snap), 1);
	assert_int_equal(jblk(&r, 600)[9], snap[(r.jbase + 600) * bs + 9] ^
			 0x10);
	UNDO();

	/* the superblock kinds; only JSB_CSUM leaves the checksum wrong */
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_JSB_CSUM, 0, 0, 1, 0), 0);
	assert_int_equal(diff_all(&r, snap), 1);
	assert_int_equal(diff_in(&r, snap, 0, 0xfd, 0xfe), 1);
	SNAP();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_JSB_MAXLEN, 0, 0, 0, 5000),
			 0);
	assert_int_equal(rd32(jblk(&r, 0) + 0x10), 5000);
	assert_int_equal(diff_all(&r, snap),
			 diff_in(&r, snap, 0, 0x10, 0x14) +
			 diff_in(&r, snap, 0, 0xfc, 0x100));
	memcpy(tmp, jblk(&r, 0), 1024);
	memset(tmp + 0xfc, 0, 4);
	assert_int_equal(rd32(jblk(&r, 0) + 0xfc), ej_crc32c(~0U, tmp, 1024));
	SNAP();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_JSB_FIRST, 0, 0, 0, 0), 0);
	assert_int_equal(rd32(jblk(&r, 0) + 0x14), 0);
	SNAP();
	assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_JSB_MAGIC, 0, 0, 0, 0), 0);
	assert_int_not_equal(rd32(jblk(&r, 0)), JBD2_MAGIC_NUMBER);
	assert_int_equal(diff_all(&r, snap),
			 diff_in(&r, snap, 0, 0, 4) +
			 diff_in(&r, snap, 0, 0xfc, 0x100));
#undef SNAP
#undef UNDO

	/* what cannot be done is refused */
	assert_int_not_equal(ej_corrupt(r.w, EJ_CORRUPT_DATA, 12345, 0, 0, 0),
			     0);
	assert_int_not_equal(ej_corrupt(r.w, EJ_CORRUPT_DATA, ta, 3, 0, 0), 0);
	assert_int_not_equal(ej_corrupt(r.w, EJ_CORRUPT_TORN_COMMIT, ta, 0, 59,
					0), 0);
	assert_int_not_equal(ej_corrupt(r.w, 0, ta, 0, 0, 0), 0);
	free(snap);
	free(tmp);
	rig_free(&r);

	rig_init(&r2, bs, 0, 1201);
	rig_writer(&r2, &layouts[0], NULL);
	tx_begin(&r2);
	tx_add(&r2, rig_fsblk(&r2, 1), 0);
	tx_uncommitted(&r2);
	rig_seal(&r2);
	/* no tails without v2/v3; no commit block to damage */
	assert_int_not_equal(ej_corrupt(r2.w, EJ_CORRUPT_DESCR_TAIL,
					r2.tx[0].tid, 0, 0, 0), 0);
	assert_int_not_equal(ej_corrupt(r2.w, EJ_CORRUPT_COMMIT_CSUM,
					r2.tx[0].tid, 0, 0, 0), 0);
	assert_int_equal(ej_writer_find_txn(r2.w, r2.tx[0].tid)->committed, 0);
	rig_free(&r2);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

struct layout_case {
	const struct rig_cfg	*cfg;
	unsigned int		bs;
};

static struct layout_case layout_cases[NR_LAYOUTS * 2];

static void test_writer_format(void **state)
{
	const struct layout_case *lc = *state;
	struct rig r;

	rig_init(&r, lc->bs, 0, 0x1234 + lc->bs);
	rig_writer(&r, lc->cfg, NULL);
	workload_basic(&r, !!(lc->cfg->flags & EJ_W_64BIT));
	rig_seal(&r);
	check_writer_format(&r, lc->cfg);
	rig_free(&r);
}

static void test_layout(void **state)
{
	const struct layout_case *lc = *state;
	char what[64];
	struct rig r;

	snprintf(what, sizeof(what), "layout %s/%u", lc->cfg->name, lc->bs);
	rig_init(&r, lc->bs, 0, 0xbeef + lc->bs);
	rig_writer(&r, lc->cfg, NULL);
	workload_basic(&r, !!(lc->cfg->flags & EJ_W_64BIT));
	rig_seal(&r);
	expect_healthy(&r, what);
	rig_free(&r);
}

/* Three tags per descriptor, and descriptors filled to the last byte. */
static void test_multi_descriptor(void **state)
{
	struct ej_writer_opts o;
	size_t c, bsi;
	unsigned int i, nr;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c++) {
		memset(&o, 0, sizeof(o));
		o.max_tags = 3;
		rig_init(&r, 1024, 0, 77 + c);
		rig_writer(&r, &layouts[c], &o);
		tx_begin(&r);
		for (i = 0; i < 20; i++)
			tx_add(&r, rig_fsblk(&r, 40 + i), i % 3 == 2);
		tx_commit(&r);
		rig_seal(&r);
		assert_int_equal(ej_writer_find_txn(r.w, r.tx[0].tid)->nr_descr,
				 7);
		snprintf(what, sizeof(what), "3 tags/descr %s",
			 layouts[c].name);
		expect_healthy(&r, what);
		rig_free(&r);
	}
	/* Natural overflow: exactly full descriptors, then one more tag. */
	for (c = 0; c < NR_LAYOUTS; c++) {
		for (bsi = 0; bsi < 2; bsi++) {
			unsigned int bs = bsi ? 4096 : 1024;
			unsigned int tail = layouts[c].csum >= EJ_CSUM_V2 ?
					    4 : 0;

			nr = (bs - 12 - tail - 16) / layouts[c].tag_bytes;
			rig_init(&r, bs, 0, 99 + c);
			rig_writer(&r, &layouts[c], NULL);
			tx_begin(&r);
			for (i = 0; i < nr + 1; i++)
				tx_add(&r, rig_fsblk(&r, i), i == nr - 1 ||
				       i == nr);
			tx_commit(&r);
			rig_seal(&r);
			assert_int_equal(ej_writer_find_txn(r.w,
					 r.tx[0].tid)->nr_descr, 2);
			snprintf(what, sizeof(what), "full descr %s/%u",
				 layouts[c].name, bs);
			expect_healthy(&r, what);
			rig_free(&r);
		}
	}
}

/* Revoke records, 32- and 64-bit, several revoke blocks per transaction. */
static void test_revoke(void **state)
{
	static const struct rig_cfg *pick[] = {
		&layouts[0], &layouts[1], &layouts[4], &layouts[6],
		&layouts[7],
	};
	unsigned int i, bsi;
	size_t c;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(pick); c++) {
		for (bsi = 0; bsi < 2; bsi++) {
			unsigned int bs = bsi ? 4096 : 1024;
			int is64 = !!(pick[c]->flags & EJ_W_64BIT);

			rig_init(&r, bs, 0, 5 + c);
			rig_writer(&r, pick[c], NULL);
			/* 2: log 0-39 */
			tx_begin(&r);
			for (i = 0; i < 40; i++)
				tx_add(&r, rig_fsblk(&r, i), 0);
			tx_commit(&r);
			/* 3: revoke evens (more than one revoke block) */
			tx_begin(&r);
			for (i = 0; i < 1100; i++)
				tx_revoke(&r, rig_fsblk(&r, 2 * i));
			if (is64)
				tx_revoke(&r, (7ULL << 32) | rig_fsblk(&r, 1));
			tx_add(&r, rig_fsblk(&r, 41), 0);
			tx_commit(&r);
			/* 4: relog 0, 4; revoke 3 (logged in 2); log+revoke 5 */
			tx_begin(&r);
			tx_add(&r, rig_fsblk(&r, 0), 0);
			tx_add(&r, rig_fsblk(&r, 4), 1);
			tx_revoke(&r, rig_fsblk(&r, 3));
			/* (5, 4) holds in tid 4 itself and in 2 */
			tx_add(&r, rig_fsblk(&r, 5), 0);
			tx_revoke(&r, rig_fsblk(&r, 5));
			tx_commit(&r);
			/* 5: revoke 4 again: its version from 4 goes too */
			tx_begin(&r);
			tx_revoke(&r, rig_fsblk(&r, 4));
			tx_commit(&r);
			rig_seal(&r);
			snprintf(what, sizeof(what), "revoke %s/%u",
				 pick[c]->name, bs);
			expect_healthy(&r, what);
			rig_free(&r);
		}
	}
}

/* The log wraps from its last block to s_first mid-transaction. */
static void test_wrap(void **state)
{
	struct ej_writer_opts o;
	unsigned long first, last;
	size_t c;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c++) {
		memset(&o, 0, sizeof(o));
		o.start_block = JNL_BLOCKS - 4;
		o.max_tags = 2;
		rig_init(&r, 1024, 0, 300 + c);
		rig_writer(&r, &layouts[c], &o);
		workload_random(&r, 8, 40, 1);
		rig_seal(&r);
		ej_writer_log_bounds(r.w, &first, &last);
		assert_true(ej_writer_txns(r.w, NULL)[r.nr_tx - 1].commit_block
			    < JNL_BLOCKS - 4);
		snprintf(what, sizeof(what), "wrap %s", layouts[c].name);
		expect_healthy(&r, what);
		rig_free(&r);
	}
}

/*
 * Fast commit: the log wraps at maxlen - num_fc_blks.  A decoy transaction
 * with the next tid sits right after the log's end: a recovery that wraps
 * at s_maxlen instead replays it.
 */
static void fc_case(unsigned int bs, unsigned long fc, const struct rig_cfg *c)
{
	unsigned long nfc = fc ? fc : JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
	unsigned long end = JNL_BLOCKS - nfc, blk;
	struct ej_writer_opts o, d;
	struct ej_writer *decoy;
	struct memhost scratch;
	struct memdev *sd;
	struct ej_jsink sink;
	unsigned char *buf = malloc(bs);
	char what[64];
	struct rig r;
	__u32 tid;
	int i;

	assert_non_null(buf);
	memset(&o, 0, sizeof(o));
	o.flags = EJ_W_FAST_COMMIT;
	o.num_fc_blks = fc;
	o.start_block = end - 5;
	o.max_tags = 2;
	rig_init(&r, bs, 0, 400 + fc);
	rig_writer(&r, c, &o);
	for (i = 0; i < 3; i++) {
		tx_begin(&r);
		tx_add(&r, rig_fsblk(&r, 50 + i), 0);
		tx_add(&r, rig_fsblk(&r, 60 + i), i == 1);
		tx_add(&r, rig_fsblk(&r, 70), 0);
		tx_commit(&r);
	}
	rig_seal(&r);
	tid = r.tx[2].tid + 1;

	/* The decoy: same UUID and checksums, laid out in a scratch journal. */
	sd = memdev_new(bs, JNL_BLOCKS);
	assert_non_null(sd);
	assert_int_equal(memhost_init(&scratch, sd, NULL, 0, JNL_BLOCKS), 0);
	memhost_sink(&scratch, &sink);
	memset(&d, 0, sizeof(d));
	d.flags = EJ_W_FORMAT | EJ_W_SET_TID | c->flags;
	d.csum = c->csum;
	d.blocksize = bs;
	d.maxlen = JNL_BLOCKS;
	d.start_tid = tid;
	d.start_block = end;
	d.uuid = ej_writer_jsb(r.w)->s_uuid;
	assert_int_equal(ej_writer_open(&sink, &d, &decoy), 0);
	assert_int_equal(ej_writer_begin(decoy, NULL), 0);
	memset(buf, 0xdd, bs);
	assert_int_equal(ej_writer_add_block(decoy, rig_fsblk(&r, 70), buf), 0);
	assert_int_equal(ej_writer_commit(decoy), 0);
	for (blk = end; blk < end + 3; blk++)
		memcpy(jblk(&r, blk), memdev_block(sd, blk), bs);
	ej_writer_free(decoy);
	memhost_fini(&scratch);
	memdev_free(sd);
	rig_resnap(&r);

	snprintf(what, sizeof(what), "fast commit %lu/%s/%u", fc, c->name, bs);
	expect_healthy(&r, what);
	rig_free(&r);
	free(buf);
}

static void test_fast_commit(void **state)
{
	(void)state;
	fc_case(1024, 0, &layouts[0]);
	fc_case(1024, 100, &layouts[7]);
	fc_case(4096, 0, &layouts[6]);
	fc_case(4096, 37, &layouts[4]);
}

/* tids 0xfffffffe, 0xffffffff, 0, 1 with revokes across the wrap. */
static void test_tid_wrap(void **state)
{
	struct ej_writer_opts o;
	unsigned long long X, Y, Z, W, V;
	unsigned int bsi;
	size_t c;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c++) {
		for (bsi = 0; bsi < 2; bsi++) {
			unsigned int bs = bsi ? 4096 : 1024;

			memset(&o, 0, sizeof(o));
			o.flags = EJ_W_SET_TID;
			o.start_tid = 0xfffffffeU;
			rig_init(&r, bs, 0, 500 + c);
			rig_writer(&r, &layouts[c], &o);
			X = rig_fsblk(&r, 1);
			Y = rig_fsblk(&r, 2);
			Z = rig_fsblk(&r, 3);
			W = rig_fsblk(&r, 4);
			V = rig_fsblk(&r, 5);

			assert_int_equal(tx_begin(&r), 0xfffffffeU);
			tx_add(&r, X, 0);
			tx_add(&r, W, 0);
			tx_add(&r, V, 1);
			tx_revoke(&r, Z);	/* earlier: Z of 0xffffffff stays */
			tx_commit(&r);
			assert_int_equal(tx_begin(&r), 0xffffffffU);
			tx_add(&r, X, 1);
			tx_add(&r, Z, 0);
			tx_commit(&r);
			assert_int_equal(tx_begin(&r), 0);
			tx_revoke(&r, X);	/* kills both versions of X */
			tx_revoke(&r, W);	/* W is logged again in 1 */
			tx_add(&r, Y, 0);
			tx_commit(&r);
			assert_int_equal(tx_begin(&r), 1);
			tx_revoke(&r, Y);	/* Y of tid 0 goes */
			tx_add(&r, W, 0);
			tx_commit(&r);
			rig_seal(&r);
			snprintf(what, sizeof(what), "tid wrap %s/%u",
				 layouts[c].name, bs);
			expect_healthy(&r, what);
			rig_free(&r);
		}
	}
}

/*
 * A crash before the last commit: that transaction never happened, its
 * revoke records included.
 */
static void test_uncommitted_tail(void **state)
{
	size_t c;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c++) {
		rig_init(&r, 1024, 0, 600 + c);
		rig_writer(&r, &layouts[c], NULL);
		tx_begin(&r);
		tx_add(&r, rig_fsblk(&r, 1), 0);
		tx_add(&r, rig_fsblk(&r, 2), 0);
		tx_commit(&r);
		tx_begin(&r);
		tx_revoke(&r, rig_fsblk(&r, 1));
		tx_add(&r, rig_fsblk(&r, 2), 0);
		tx_add(&r, rig_fsblk(&r, 3), 0);
		tx_uncommitted(&r);
		rig_seal(&r);
		snprintf(what, sizeof(what), "uncommitted tail %s",
			 layouts[c].name);
		expect_healthy(&r, what);
		rig_free(&r);
	}
}

/* An external journal on its own device. */
static void test_external(void **state)
{
	size_t c;
	char what[64];
	struct rig r;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c += 3) {
		rig_init(&r, 4096, 1, 700 + c);
		rig_writer(&r, &layouts[c], NULL);
		workload_basic(&r, !!(layouts[c].flags & EJ_W_64BIT));
		rig_seal(&r);
		snprintf(what, sizeof(what), "external %s", layouts[c].name);
		expect_healthy(&r, what);
		rig_free(&r);
	}
}

/* s_start 0: a clean journal is not replayed, whatever the log holds. */
static void test_clean_journal(void **state)
{
	struct rig r;
	journal_t *j;

	(void)state;
	rig_init(&r, 1024, 0, 800);
	rig_writer(&r, &layouts[6], NULL);
	workload_basic(&r, 0);
	rig_seal(&r);
	rig_patch_jsb(&r, 0, r.tx[0].tid, 0);
	rig_resnap(&r);
	j = rig_recover(&r, JBD2_POLICY_REPLAY_ALL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(j->j_replay_corrupt, 0);
	assert_int_equal(r.host.replays, 0);
	check_image(&r, r.fs_pre, "clean journal");
	rig_done(&r, "clean journal");
	rig_free(&r);
}

struct hook_count {
	unsigned long	calls, replayed;
};

static void count_block(void *arg, __u32 tid, unsigned long jblock,
			unsigned long long fsblock, int verdict)
{
	struct hook_count *hc = arg;

	hc->calls++;
	if (verdict == JBD2_BLOCK_REPLAYED)
		hc->replayed++;
}

/*
 * A block hook registered with ej_report_on_block() sees each logged
 * block's final verdict once; registering NULL removes it and its arg.
 */
static void test_report_hooks(void **state)
{
	struct hook_count hc = { 0 };
	struct ej_report *rep;
	struct rig r;

	(void)state;
	rig_init(&r, 1024, 0, 801);
	rig_writer(&r, &layouts[6], NULL);
	workload_basic(&r, 0);
	rig_seal(&r);
	assert_int_equal(memhost_load(&r.host, JBD2_POLICY_REPLAY_ALL), 0);
	rep = r.host.journal->j_report;
	ej_report_on_block(rep, count_block, &hc);
	r.rc = jbd2_journal_recover(r.host.journal);
	assert_int_equal(r.rc, 0);
	assert_true(hc.calls > 0);
	assert_int_equal(hc.calls, rep->nr_logged);
	assert_true(hc.replayed > 0);
	ej_report_on_block(rep, NULL, &hc);
	assert_null(rep->hooks.block_fn);
	assert_null(rep->hooks.block_arg);
	rig_done(&r, "report hooks");
	rig_free(&r);
}

/* v3 without 64BIT: t_blocknr_high is not part of the block number. */
static void test_v3_32bit_high_ignored(void **state)
{
	const struct ej_wtxn *t;
	struct rig r;

	(void)state;
	rig_init(&r, 1024, 0, 900);
	rig_writer(&r, &layouts[6], NULL);
	tx_begin(&r);
	tx_add(&r, rig_fsblk(&r, 8), 0);
	tx_add(&r, rig_fsblk(&r, 9), 0);
	tx_commit(&r);
	rig_seal(&r);
	t = ej_writer_find_txn(r.w, r.tx[0].tid);
	assert_non_null(t);
	/* blocks[0] is the descriptor, blocks[1] the first data block */
	jblk(&r, t->blocks[0].jblock)[t->blocks[1].tag_offset + 11] = 1;
	assert_int_equal(ej_writer_reseal(r.w, r.tx[0].tid), 0);
	rig_resnap(&r);
	expect_healthy(&r, "v3/32 with t_blocknr_high set");
	rig_free(&r);
}

/* Random healthy journals: any layout, start block, tid, block size. */
static void test_random_healthy(void **state)
{
	struct ej_writer_opts o;
	unsigned int iter;
	char what[96];
	struct rig r;
	__u32 s = 0xc0ffee;

	(void)state;
	for (iter = 0; iter < 60; iter++) {
		const struct rig_cfg *c = &layouts[rnd_below(&s, NR_LAYOUTS)];
		unsigned int bs = rnd_below(&s, 4) ? 1024 : 4096;

		memset(&o, 0, sizeof(o));
		o.flags = EJ_W_SET_TID;
		o.start_tid = rnd_below(&s, 2) ? rnd_next(&s) :
			      0xffffffffU - rnd_below(&s, 6);
		o.start_block = 1 + rnd_below(&s, JNL_BLOCKS - 1);
		o.max_tags = rnd_below(&s, 3) ? 0 : 1 + rnd_below(&s, 4);
		if (rnd_below(&s, 4) == 0) {
			o.flags |= EJ_W_FAST_COMMIT;
			o.num_fc_blks = rnd_below(&s, 300);
			o.start_block %= JNL_BLOCKS - (o.num_fc_blks ?
					 o.num_fc_blks : 256);
			if (!o.start_block)
				o.start_block = 1;
		}
		rig_init(&r, bs, rnd_below(&s, 5) == 0, rnd_next(&s));
		rig_writer(&r, c, &o);
		workload_random(&r, 1 + rnd_below(&s, 25), 64,
				rnd_below(&s, 3) != 0);
		rig_seal(&r);
		snprintf(what, sizeof(what),
			 "random %u: %s/%u tid %u start %lu fc %lu", iter,
			 c->name, bs, o.start_tid, o.start_block,
			 (o.flags & EJ_W_FAST_COMMIT) ? o.num_fc_blks : 0);
		expect_healthy(&r, what);
		rig_free(&r);
	}
}

/* ------------------------------------------------------------------ */
/* Robustness: recovery must return and must never write where it may not */

static void run_all_policies_safely(struct rig *r, const char *what)
{
	size_t p;

	for (p = 0; p < ARRAY_SIZE(all_policies); p++) {
		rig_recover(r, all_policies[p]);
		rig_done(r, what);
	}
}

/* A random block that looks like one of ours to a scanner. */
static void lure_block(__u32 *s, unsigned char *p, unsigned int bs,
		       __u32 seq)
{
	static const __u32 types[] = {
		JBD2_DESCRIPTOR_BLOCK, JBD2_COMMIT_BLOCK, JBD2_REVOKE_BLOCK,
		JBD2_DESCRIPTOR_BLOCK, 0, 7,
	};
	__be32 v;

	rnd_fill(s, p, bs);
	v = cpu_to_be32(JBD2_MAGIC_NUMBER);
	memcpy(p, &v, 4);
	v = cpu_to_be32(types[rnd_below(s, 6)]);
	memcpy(p + 4, &v, 4);
	v = cpu_to_be32(seq + rnd_below(s, 3));
	memcpy(p + 8, &v, 4);
	if (rnd_below(s, 2)) {	/* a small r_count or a small block number */
		v = cpu_to_be32(rnd_below(s, 2 * bs));
		memcpy(p + 12, &v, 4);
	}
}

static void test_garbage_journal(void **state)
{
	unsigned long first, last, b;
	unsigned int iter, k, n;
	char what[64];
	struct rig r;
	__u32 s = 0xdead;

	(void)state;
	for (iter = 0; iter < 40; iter++) {
		const struct rig_cfg *c = &layouts[iter % NR_LAYOUTS];
		__u32 seq;

		rig_init(&r, 1024, iter % 7 == 6, rnd_next(&s));
		rig_writer(&r, c, NULL);
		workload_random(&r, 4, 64, 1);
		rig_seal(&r);
		ej_writer_log_bounds(r.w, &first, &last);
		seq = r.tx[0].tid;
		n = 1 + rnd_below(&s, 60);
		for (k = 0; k < n; k++) {
			b = first + rnd_below(&s, 60);
			if (rnd_below(&s, 3))
				lure_block(&s, jblk(&r, b), r.bs, seq + k % 4);
			else
				rnd_fill(&s, jblk(&r, b), r.bs);
		}
		rig_patch_jsb(&r, rnd_below(&s, 4) ? first + rnd_below(&s, 8) :
			      first + rnd_below(&s, last - first),
			      rnd_below(&s, 2) ? seq : rnd_next(&s), 0);
		rig_resnap(&r);
		snprintf(what, sizeof(what), "garbage %u (%s)", iter, c->name);
		run_all_policies_safely(&r, what);
		rig_free(&r);
	}
}

/*
 * Valid transactions whose tags (block numbers, flags) and revoke counts
 * are random, checksums made to match: only range checks stand between
 * them and the disk.
 */
static void test_random_tags(void **state)
{
	const struct ej_wtxn *txns;
	unsigned int iter, k;
	size_t nr, i;
	char what[64];
	struct rig r;
	__u32 s = 0xfeed;

	(void)state;
	for (iter = 0; iter < 60; iter++) {
		const struct rig_cfg *c = &layouts[iter % NR_LAYOUTS];

		rig_init(&r, iter & 1 ? 4096 : 1024, iter % 5 == 4,
			 rnd_next(&s));
		rig_writer(&r, c, NULL);
		workload_random(&r, 5, 64, 1);
		rig_seal(&r);
		txns = ej_writer_txns(r.w, &nr);
		for (i = 0; i < nr; i++) {
			for (k = 0; k < txns[i].nr_blocks; k++) {
				const struct ej_wblock *b = &txns[i].blocks[k];
				unsigned char *p;
				__u32 v;

				if (rnd_below(&s, 3) == 0)
					continue;
				if (b->kind == EJ_WB_REVOKE) {
					p = jblk(&r, b->jblock);
					v = rnd_below(&s, 3) ?
					    rnd_below(&s, 2 * r.bs) :
					    rnd_next(&s);
					v = cpu_to_be32(v);
					memcpy(p + 12, &v, 4);
					continue;
				}
				if (b->kind != EJ_WB_DATA)
					continue;
				p = jblk(&r, b->desc_jblock) + b->tag_offset;
				switch (rnd_below(&s, 4)) {
				case 0:	/* anywhere: fs, journal, beyond */
					v = cpu_to_be32(rnd_below(&s, 4 *
						r.fs->nr_blocks));
					memcpy(p, &v, 4);
					break;
				case 1:	/* into the journal itself */
					v = cpu_to_be32(r.external ?
						r.fs->nr_blocks :
						r.jbase + rnd_below(&s,
								    r.jlen));
					memcpy(p, &v, 4);
					break;
				case 2:	/* random flags (low byte, both layouts) */
					p[7] = rnd_next(&s);
					break;
				case 3:	/* random high bits */
					if (c->flags & EJ_W_64BIT)
						p[11] = rnd_next(&s);
					break;
				}
			}
			assert_int_equal(ej_writer_reseal(r.w, txns[i].tid),
					 0);
		}
		rig_resnap(&r);
		snprintf(what, sizeof(what), "random tags %u (%s)", iter,
			 c->name);
		run_all_policies_safely(&r, what);
		rig_free(&r);
	}
}

/* A healthy log read from a random s_start / s_sequence / s_maxlen. */
static void test_random_start(void **state)
{
	unsigned long first, last;
	unsigned int iter;
	char what[64];
	struct rig r;
	__u32 s = 0x5eed;

	(void)state;
	for (iter = 0; iter < 60; iter++) {
		const struct rig_cfg *c = &layouts[iter % NR_LAYOUTS];
		__u32 start, seq, maxlen = 0;

		rig_init(&r, 1024, 0, rnd_next(&s));
		rig_writer(&r, c, NULL);
		workload_random(&r, 12, 64, 1);
		rig_seal(&r);
		ej_writer_log_bounds(r.w, &first, &last);
		switch (rnd_below(&s, 4)) {
		case 0:
			start = rnd_next(&s);
			break;
		default:
			start = first + rnd_below(&s, 40);
			break;
		}
		seq = rnd_below(&s, 2) ? r.tx[rnd_below(&s, r.nr_tx)].tid :
		      rnd_next(&s);
		/* a journal shorter than its superblock claims */
		if (rnd_below(&s, 4) == 0)
			maxlen = r.jlen + 1 + rnd_below(&s, 3 * r.jlen);
		rig_patch_jsb(&r, start, seq, maxlen);
		rig_resnap(&r);
		snprintf(what, sizeof(what), "random start %u (%s)", iter,
			 c->name);
		run_all_policies_safely(&r, what);
		rig_free(&r);
	}
}

/*
 * A tag naming a block outside the filesystem, or one of the journal's own
 * blocks, checksums valid: never written, flagged, the rest replayed.
 */
static void test_tag_out_of_range(void **state)
{
	static const int policies[] = {
		JBD2_POLICY_REPLAY_ALL, JBD2_POLICY_STOP,
	};
	unsigned long long target[2];
	unsigned int t, p;
	size_t c;
	char what[96];
	unsigned char *img;
	struct rig r;
	journal_t *j;

	(void)state;
	for (c = 0; c < NR_LAYOUTS; c++) {
		rig_init(&r, 1024, 0, 1000 + c);
		target[0] = r.fs->nr_blocks + 5;
		target[1] = r.jbase + 3;
		for (t = 0; t < 2; t++) {
			rig_writer(&r, &layouts[c], NULL);
			tx_begin(&r);
			tx_add(&r, rig_fsblk(&r, 30), 0);
			tx_add(&r, rig_fsblk(&r, 31), 0);
			tx_add(&r, rig_fsblk(&r, 32), 0);
			tx_commit(&r);
			tx_begin(&r);
			tx_add(&r, rig_fsblk(&r, 33), 0);
			tx_commit(&r);
			rig_seal(&r);
			/* the model: tag 1 of the first transaction is gone */
			assert_int_equal(ej_corrupt(r.w, EJ_CORRUPT_TAG_RANGE,
						    r.tx[0].tid, 1, 0,
						    target[t]), 0);
			r.tx[0].blk[1] = r.tx[0].blk[0];
			memcpy(r.tx[0].data[1], r.tx[0].data[0], r.bs);
			rig_resnap(&r);
			img = model_expect(&r);
			for (p = 0; p < 2; p++) {
				snprintf(what, sizeof(what),
					 "tag -> %llu, %s [%s]", target[t],
					 layouts[c].name,
					 ej_policy_name(policies[p]));
				j = rig_recover(&r, policies[p]);
				if (!(j->j_replay_corrupt &
				      JBD2_CORRUPT_OUT_OF_RANGE))
					fail_msg("%s: not flagged (0x%x, rc %d)",
						 what, j->j_replay_corrupt,
						 r.rc);
				check_image(&r, img, what);
				rig_done(&r, what);
			}
			free(img);
			/* start over on the same devices */
			rig_reset_model(&r);
			memcpy(r.fs->data, r.fs_pre,
			       (size_t)r.fs->nr_blocks * r.bs);
		}
		rig_free(&r);
	}
}

/* The transaction journal block @lblk belongs to. */
static __u32 owner_tid(const struct rig *r, unsigned long lblk, int *found)
{
	const struct ej_wtxn *txns;
	size_t nr, i, k;

	txns = ej_writer_txns(r->w, &nr);
	for (i = 0; i < nr; i++)
		for (k = 0; k < txns[i].nr_blocks; k++)
			if (txns[i].blocks[k].jblock == lblk) {
				*found = 1;
				return txns[i].tid;
			}
	*found = 0;
	return 0;
}

/*
 * Every journal block in turn unreadable: recovery returns, writes nothing
 * outside the filesystem, and writes no content that no transaction logged
 * for that block.
 */
static void test_read_errors(void **state)
{
	const struct ej_wtxn *t;
	unsigned long b, last_blk;
	unsigned long long fb;
	size_t p;
	char what[64], g[64];
	struct rig r;
	journal_t *j;
	__u32 owner;
	int found;

	(void)state;
	rig_init(&r, 1024, 0, 1100);
	rig_writer(&r, &layouts[7], NULL);
	workload_random(&r, 6, 32, 1);
	rig_seal(&r);
	t = &ej_writer_txns(r.w, NULL)[r.nr_tx - 1];
	last_blk = t->commit_block;
	for (b = 0; b <= last_blk; b++) {
		for (p = 0; p < 3; p++) {
			r.fs->nr_fail = 0;
			memdev_fail_read(r.jd, r.jbase + b);
			snprintf(what, sizeof(what), "read error at %lu [%s]",
				 b, ej_policy_name(all_policies[p]));
			if (b == 0) {
				/* no superblock: the host cannot even load */
				r.fs->nr_fail = 0;
				continue;
			}
			j = rig_recover(&r, all_policies[p]);
			owner = owner_tid(&r, b, &found);
			/* POLICY.md: a read error is flagged, as its txn's */
			if (all_policies[p] == JBD2_POLICY_REPLAY_ALL && found &&
			    (!(j->j_replay_corrupt & JBD2_CORRUPT_IO_ERROR) ||
			     j->j_replay_first_bad != owner))
				fail_msg("%s: flags 0x%x, first bad tid %u; expected IO_ERROR and tid %u",
					 what,
					 j->j_replay_corrupt,
					 j->j_replay_first_bad, owner);
			for (fb = 0; fb < r.fs->nr_blocks; fb++) {
				describe(&r, fb, memdev_block(r.fs, fb), g,
					 sizeof(g));
				if (!strcmp(g, "unknown content"))
					fail_msg("%s: block %llu holds content no transaction logged",
						 what, fb);
			}
			rig_done(&r, what);
		}
	}
	r.fs->nr_fail = 0;
	rig_free(&r);
}

/* ------------------------------------------------------------------ */

#define NR_FIXED	17

int main(void)
{
	static struct CMUnitTest tests[2 * NR_LAYOUTS * 2 + NR_FIXED];
	static char names[2 * NR_LAYOUTS * 2][64];
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} fixed[NR_FIXED] = {
		{ "writer_corrupt_kinds", test_writer_corrupt },
		{ "multi_descriptor", test_multi_descriptor },
		{ "revoke_32_64", test_revoke },
		{ "wrap_log_end", test_wrap },
		{ "fast_commit_area_excluded", test_fast_commit },
		{ "tid_wrap", test_tid_wrap },
		{ "uncommitted_tail", test_uncommitted_tail },
		{ "external_journal", test_external },
		{ "clean_journal_not_replayed", test_clean_journal },
		{ "report_block_hook", test_report_hooks },
		{ "v3_32bit_blocknr_high_ignored", test_v3_32bit_high_ignored },
		{ "random_healthy", test_random_healthy },
		{ "robust_garbage_journal", test_garbage_journal },
		{ "robust_random_tags", test_random_tags },
		{ "robust_random_start", test_random_start },
		{ "robust_read_errors", test_read_errors },
		{ "tag_out_of_range_never_written", test_tag_out_of_range },
	};
	size_t n = 0, i, b;

	rig_watchdog("test_recovery", TEST_TIMEOUT);
	for (i = 0; i < NR_LAYOUTS; i++) {
		for (b = 0; b < 2; b++) {
			struct layout_case *lc = &layout_cases[2 * i + b];

			lc->cfg = &layouts[i];
			lc->bs = b ? 4096 : 1024;
		}
	}
	for (i = 0; i < 2 * NR_LAYOUTS; i++) {
		snprintf(names[n], sizeof(names[n]), "writer_format_%s_%u",
			 layout_cases[i].cfg->name, layout_cases[i].bs);
		tests[n] = (struct CMUnitTest){ names[n], test_writer_format,
						rig_arm_timer, NULL,
						&layout_cases[i] };
		n++;
	}
	for (i = 0; i < 2 * NR_LAYOUTS; i++) {
		snprintf(names[n], sizeof(names[n]), "healthy_layout_%s_%u",
			 layout_cases[i].cfg->name, layout_cases[i].bs);
		tests[n] = (struct CMUnitTest){ names[n], test_layout,
						rig_arm_timer, NULL,
						&layout_cases[i] };
		n++;
	}
	for (i = 0; i < NR_FIXED; i++)
		tests[n++] = (struct CMUnitTest){ fixed[i].name, fixed[i].fn,
						  rig_arm_timer, NULL, NULL };
	return _cmocka_run_group_tests("test_recovery", tests, n, NULL, NULL);
}
