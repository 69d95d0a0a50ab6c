// SPDX-License-Identifier: GPL-2.0
/*
 * test_sweep.c: one flipped byte at a time, across every journal block.
 *
 * Journals of each checksum mode (none, v1, v2, v3) and block size (1 KiB,
 * 4 KiB) are written by the library's writer onto the memory host.  Then
 * one byte of the journal is xor'ed with 0xff -- every byte of the blocks
 * the writer used in the 1 KiB journals, a seeded sample in the 4 KiB
 * ones -- and the journal is recovered under each policy.  After every
 * recovery:
 *   - nothing outside the filesystem or inside the journal was written,
 *     and every block written is named by a tag of a descriptor that the
 *     damaged journal holds and whose checksum verifies (all descriptors
 *     when the damaged superblock has no v2/v3 checksums);
 *   - every buffer head was released;
 *   - under refuse, a journal flagged corrupt wrote nothing;
 *   - with v2/v3 checksums, a flip in a descriptor, revoke, commit
 *     header or (when its tag checksum changes) data block of a committed
 *     transaction other than the last was flagged under replay-all,
 *     flips in the body of such a commit block included (a commit that
 *     verifies only with a zero body is torn only at the end of the log);
 *     not counted: flips in a data block a later transaction revokes
 *     (never checksummed).
 * The counts are printed; crashes show as sanitizer reports (the _san
 * build) or as the test dying.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "memdev.h"

#define SW_FS_BLOCKS	256
#define SW_JBASE	128
#define SW_JLEN		40
#define SW_SAMPLE_4K	20000	/* positions per 4 KiB journal */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct sw_cfg {
	const char	*name;
	unsigned int	bs;
	int		csum;
	unsigned int	flags;
};

static const struct sw_cfg sw_cfgs[] = {
	{ "none-1k", 1024, EJ_CSUM_NONE, 0 },
	{ "v1-1k", 1024, EJ_CSUM_V1, 0 },
	{ "v2-1k", 1024, EJ_CSUM_V2, 0 },
	{ "v3-1k", 1024, EJ_CSUM_V3, EJ_W_64BIT },
	{ "none-4k", 4096, EJ_CSUM_NONE, EJ_W_64BIT },
	{ "v1-4k", 4096, EJ_CSUM_V1, 0 },
	{ "v2-4k", 4096, EJ_CSUM_V2, EJ_W_64BIT },
	{ "v3-4k", 4096, EJ_CSUM_V3, 0 },
};

static const int sw_policies[] = {
	JBD2_POLICY_REPLAY_ALL, JBD2_POLICY_STOP, JBD2_POLICY_REFUSE,
};

/* What each journal block was, as written. */
#define SW_K_FREE	0
#define SW_K_SB		1
#define SW_K_DETECT	2	/* any flip must be flagged (v2/v3) */
#define SW_K_DATA	3	/* flagged if its tag checksum changes */
#define SW_K_OTHER	4

struct sw_blk {
	int		kind;
	unsigned int	tag_offset;	/* data: its tag in the descriptor */
	unsigned long	desc;		/* data: journal block of the descr */
};

struct sw_totals {
	unsigned long	positions, runs, flagged, detectable, detected;
	unsigned long	stray, crashes;
};

static __u32 sw_rnd(__u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static __u32 sw_be32(const unsigned char *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) |
	       ((__u32)p[2] << 8) | p[3];
}

static unsigned long long sw_fsblk(unsigned int i)
{
	i %= SW_FS_BLOCKS - SW_JLEN - 1;
	return i < SW_JBASE - 1 ? i + 1 : i + SW_JLEN + 1;
}

/*
 * Mark in @ok every filesystem block a tag of a descriptor in journal
 * @j names, read the way recovery reads tags under superblock @j (block
 * 0): tag size and checksum from its features, descriptors whose tail
 * checksum fails left out when it has v2/v3 checksums.
 */
static void sw_allowed(const unsigned char *j, unsigned int bs,
		       unsigned char *ok)
{
	const journal_superblock_t *sb = (const void *)j;
	__u32 incompat = 0, seed = 0;
	unsigned int tag_bytes, end, off, flags;
	unsigned long b;
	int v2 = 0, v3 = 0, is64 = 0, csum;

	memset(ok, 0, SW_FS_BLOCKS);
	if (sw_be32(j) == JBD2_MAGIC_NUMBER &&
	    sw_be32(j + 4) == JBD2_SUPERBLOCK_V2)
		incompat = be32_to_cpu(sb->s_feature_incompat);
	v2 = !!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	v3 = !!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
	is64 = !!(incompat & JBD2_FEATURE_INCOMPAT_64BIT);
	csum = v2 || v3;
	if (v3) {
		tag_bytes = 16;
	} else {
		tag_bytes = 12 + (v2 ? 2 : 0);
		if (!is64)
			tag_bytes -= 4;
	}
	if (csum)
		seed = ej_jsb_csum_seed(sb);

	for (b = 1; b < SW_JLEN; b++) {
		const unsigned char *d = j + b * bs;

		if (sw_be32(d) != JBD2_MAGIC_NUMBER ||
		    sw_be32(d + 4) != JBD2_DESCRIPTOR_BLOCK)
			continue;
		end = bs;
		if (csum) {
			unsigned char *copy = malloc(bs);
			__u32 c;

			assert_non_null(copy);
			memcpy(copy, d, bs);
			memset(copy + bs - 4, 0, 4);
			c = ej_crc32c_sw(seed, copy, bs);
			free(copy);
			if (c != sw_be32(d + bs - 4))
				continue;
			end -= 4;
		}
		for (off = 12; off + tag_bytes <= end; ) {
			unsigned long long blk = sw_be32(d + off);

			if (v3) {
				flags = sw_be32(d + off + 4);
				if (is64)
					blk |= (unsigned long long)
						sw_be32(d + off + 8) << 32;
			} else {
				flags = ((unsigned int)d[off + 6] << 8) |
					d[off + 7];
				if (is64)
					blk |= (unsigned long long)
						sw_be32(d + off + 8) << 32;
			}
			if (blk < SW_FS_BLOCKS)
				ok[blk] = 1;
			off += tag_bytes;
			if (!(flags & JBD2_FLAG_SAME_UUID))
				off += 16;
			if (flags & JBD2_FLAG_LAST_TAG)
				break;
		}
	}
}

/* Does the tag checksum of data block @b change when byte @pos flips? */
static int sw_data_csum_changes(const unsigned char *j, unsigned int bs,
				int csum, const struct sw_blk *k,
				unsigned long b, unsigned int pos)
{
	const journal_superblock_t *sb = (const void *)j;
	const unsigned char *d = j + b * bs;
	const unsigned char *tag = j + k->desc * bs + k->tag_offset;
	unsigned char *copy;
	__u32 seq, c0, c1, s;

	seq = sw_be32(j + k->desc * bs + 8);
	seq = cpu_to_be32(seq);
	s = ej_crc32c_sw(ej_jsb_csum_seed(sb), &seq, 4);
	(void)tag;
	copy = malloc(bs);
	assert_non_null(copy);
	memcpy(copy, d, bs);
	c0 = ej_crc32c_sw(s, copy, bs);
	copy[pos] ^= 0xff;
	c1 = ej_crc32c_sw(s, copy, bs);
	free(copy);
	if (csum == EJ_CSUM_V2)
		return (c0 & 0xffff) != (c1 & 0xffff);
	return c0 != c1;
}

static void sweep(const struct sw_cfg *c, struct sw_totals *tot)
{
	struct memdev *fs = memdev_new(c->bs, SW_FS_BLOCKS);
	struct ej_writer_opts o;
	struct ej_writer *w;
	struct ej_jsink sink;
	struct memhost h;
	const struct ej_wtxn *tx;
	struct sw_blk kinds[SW_JLEN];
	unsigned char *snap, *blk, ok[SW_FS_BLOCKS], *j;
	unsigned long used = 0, npos, p, b, last_committed = 0;
	size_t nr_tx, t, i;
	unsigned int n = 0, pos;
	__u32 rnd = 0x5eed1234;
	struct sw_totals mine = { 0 };

	assert_non_null(fs);
	blk = malloc(c->bs);
	assert_non_null(blk);
	for (i = 0; i < (size_t)SW_FS_BLOCKS * c->bs; i++)
		fs->data[i] = (unsigned char)(i * 7 + 3);
	assert_int_equal(memhost_init(&h, fs, NULL, SW_JBASE, SW_JLEN), 0);
	memset(memdev_block(fs, SW_JBASE), 0, (size_t)SW_JLEN * c->bs);
	memhost_sink(&h, &sink);
	memset(&o, 0, sizeof(o));
	o.flags = EJ_W_FORMAT | EJ_W_REVOKE | c->flags;
	o.csum = c->csum;
	o.blocksize = c->bs;
	o.maxlen = SW_JLEN;
	assert_int_equal(ej_writer_open(&sink, &o, &w), 0);
	for (t = 0; t < 4; t++) {
		assert_int_equal(ej_writer_begin(w, NULL), 0);
		for (i = 0; i < 2 + t % 2; i++, n++) {
			memset(blk, 0x21 + n, c->bs);
			if (n == 3)
				memcpy(blk, "\xc0\x3b\x39\x98", 4);
			assert_int_equal(ej_writer_add_block(w,
					 sw_fsblk(n * 5), blk), 0);
		}
		if (t == 1)
			assert_int_equal(ej_writer_revoke(w, sw_fsblk(0)), 0);
		assert_int_equal(ej_writer_commit(w), 0);
	}
	assert_int_equal(ej_writer_finish(w), 0);

	/* Classify the blocks the writer used. */
	memset(kinds, 0, sizeof(kinds));
	kinds[0].kind = SW_K_SB;
	tx = ej_writer_txns(w, &nr_tx);
	for (t = 0; t < nr_tx; t++)
		if (tx[t].committed)
			last_committed = t;
	for (t = 0; t < nr_tx; t++) {
		int detect = (c->csum == EJ_CSUM_V2 || c->csum == EJ_CSUM_V3) &&
			     tx[t].committed && t != last_committed;

		for (i = 0; i < tx[t].nr_blocks; i++) {
			const struct ej_wblock *wb = &tx[t].blocks[i];
			struct sw_blk *k = &kinds[wb->jblock];

			if (wb->jblock >= SW_JLEN)
				continue;
			if (wb->jblock + 1 > used)
				used = wb->jblock + 1;
			if (getenv("SW_DEBUG"))
				print_message("%s: jblock %lu: txn %u kind %u\n",
					      c->name, wb->jblock, tx[t].tid,
					      wb->kind);
			if (!detect) {
				k->kind = SW_K_OTHER;
			} else if (wb->kind == EJ_WB_DATA && t < 1 &&
				   wb->fsblock == sw_fsblk(0)) {
				/*
				 * Revoked by the next transaction: recovery
				 * skips it before its checksum is looked at.
				 */
				k->kind = SW_K_OTHER;
			} else if (wb->kind == EJ_WB_DATA) {
				k->kind = SW_K_DATA;
				k->desc = wb->desc_jblock;
				k->tag_offset = wb->tag_offset;
			} else {
				k->kind = SW_K_DETECT;
			}
		}
	}
	ej_writer_free(w);
	assert_true(used > 8);

	snap = malloc((size_t)SW_FS_BLOCKS * c->bs);
	assert_non_null(snap);
	memcpy(snap, fs->data, (size_t)SW_FS_BLOCKS * c->bs);
	j = memdev_block(fs, SW_JBASE);

	npos = c->bs == 1024 ? used * c->bs : SW_SAMPLE_4K;
	for (p = 0; p < npos; p++) {
		unsigned long long off;
		int detectable = 0;
		size_t q;

		if (c->bs == 1024)
			off = p;
		else
			off = sw_rnd(&rnd) % ((unsigned long long)used * c->bs);
		b = off / c->bs;
		pos = off % c->bs;
		if (kinds[b].kind == SW_K_DETECT)
			detectable = 1;
		else if (kinds[b].kind == SW_K_DATA)
			detectable = sw_data_csum_changes(j, c->bs, c->csum,
							  &kinds[b], b, pos);
		j[off] ^= 0xff;
		sw_allowed(j, c->bs, ok);
		mine.positions++;
		if (detectable)
			mine.detectable++;

		for (q = 0; q < ARRAY_SIZE(sw_policies); q++) {
			unsigned long nwrites = 0;
			unsigned int corrupt;
			int bad = 0;

			memset(h.writes, 0, SW_FS_BLOCKS * sizeof(*h.writes));
			h.replays = 0;
			h.bad_replays = 0;
			/* the host refuses a block 0 that is no superblock */
			corrupt = 0;
			if (memhost_load(&h, sw_policies[q]) == 0) {
				jbd2_journal_recover(h.journal);
				corrupt = h.journal->j_replay_corrupt;
			}
			memhost_unload(&h);
			mine.runs++;
			if (fs->live_bh)
				fail_msg("%s: byte %llu, policy %d: %ld buffer heads never released",
					 c->name, off, sw_policies[q],
					 fs->live_bh);
			for (i = 0; i < SW_FS_BLOCKS; i++) {
				if (!h.writes[i])
					continue;
				nwrites++;
				if (!ok[i]) {
					bad = 1;
					print_message("%s: byte %llu (block %lu+%u), policy %d: stray write to block %zu\n",
						      c->name, off, b, pos,
						      sw_policies[q], i);
				}
				memcpy(memdev_block(fs, i),
				       snap + i * c->bs, c->bs);
			}
			if (h.bad_replays) {
				bad = 1;
				print_message("%s: byte %llu, policy %d: replay of block %llu outside the filesystem or in the journal\n",
					      c->name, off, sw_policies[q],
					      h.first_bad);
			}
			if (sw_policies[q] == JBD2_POLICY_REFUSE && corrupt &&
			    nwrites) {
				bad = 1;
				print_message("%s: byte %llu: refuse wrote %lu blocks of a journal flagged corrupt\n",
					      c->name, off, nwrites);
			}
			mine.stray += bad;
			if (sw_policies[q] != JBD2_POLICY_REPLAY_ALL)
				continue;
			if (corrupt)
				mine.flagged++;
			if (detectable && corrupt)
				mine.detected++;
			else if (detectable && (getenv("SW_DEBUG") ||
						    mine.detectable - mine.detected <= 8))
				print_message("%s: byte %llu (block %lu+%u, txn block kind %d) not flagged under replay-all\n",
					      c->name, off, b, pos,
					      kinds[b].kind);
		}
		j[off] ^= 0xff;
	}
	assert_memory_equal(fs->data, snap, (size_t)SW_FS_BLOCKS * c->bs);

	print_message("sweep %-8s: %lu journal blocks, %lu positions, %lu recoveries, %lu flagged (replay-all), %lu/%lu detectable flagged, %lu stray writes, %lu crashes\n",
		      c->name, used, mine.positions, mine.runs, mine.flagged,
		      mine.detected, mine.detectable, mine.stray,
		      mine.crashes);
	tot->positions += mine.positions;
	tot->runs += mine.runs;
	tot->flagged += mine.flagged;
	tot->detectable += mine.detectable;
	tot->detected += mine.detected;
	tot->stray += mine.stray;

	memhost_fini(&h);
	memdev_free(fs);
	free(snap);
	free(blk);
	assert_int_equal(mine.stray, 0);
	assert_int_equal(mine.detected, mine.detectable);
}

static struct sw_totals totals;

static void sw_put32(unsigned char *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * Found by fuzz_recovery: under replay-all, a descriptor whose tags
 * cover the whole log (1 + ntags == log length) ends on itself; the
 * scan counted the walk as zero blocks and went round for ever.  It
 * must stop with the log flagged as running round on itself.
 */
static void test_fuzz_full_lap(void **state)
{
	struct memdev *fs = memdev_new(1024, 192);
	unsigned char *j, *d;
	struct memhost h;
	unsigned int i, ntags = 62;
	size_t q;

	assert_non_null(fs);
	assert_int_equal(memhost_init(&h, fs, NULL, 64, 64), 0);
	j = memdev_block(fs, 64);
	sw_put32(j, JBD2_MAGIC_NUMBER);
	sw_put32(j + 4, JBD2_SUPERBLOCK_V2);
	sw_put32(j + 12, 1024);		/* s_blocksize */
	sw_put32(j + 16, 64);		/* s_maxlen */
	sw_put32(j + 20, 1);		/* s_first */
	sw_put32(j + 24, 1);		/* s_sequence */
	sw_put32(j + 28, 1);		/* s_start */
	sw_put32(j + 36, JBD2_FEATURE_COMPAT_CHECKSUM);
	sw_put32(j + 40, JBD2_FEATURE_INCOMPAT_REVOKE);
	d = j + 1024;
	sw_put32(d, JBD2_MAGIC_NUMBER);
	sw_put32(d + 4, JBD2_DESCRIPTOR_BLOCK);
	sw_put32(d + 8, 1);
	for (i = 0; i < ntags; i++) {
		unsigned char *tag = d + 12 + i * 8;

		sw_put32(tag, 1 + i);
		tag[7] = JBD2_FLAG_SAME_UUID |
			 (i == ntags - 1 ? JBD2_FLAG_LAST_TAG : 0);
	}
	alarm(60);
	for (q = 0; q < ARRAY_SIZE(sw_policies); q++) {
		assert_int_equal(memhost_load(&h, sw_policies[q]), 0);
		jbd2_journal_recover(h.journal);
		if (sw_policies[q] == JBD2_POLICY_REPLAY_ALL)
			assert_true(h.journal->j_replay_corrupt &
				    JBD2_CORRUPT_LOOP);
		memhost_unload(&h);
		assert_int_equal(h.bad_replays, 0);
		assert_int_equal(fs->live_bh, 0);
	}
	alarm(0);
	memhost_fini(&h);
	memdev_free(fs);
}

static void test_sweep_1k(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sw_cfgs); i++)
		if (sw_cfgs[i].bs == 1024)
			sweep(&sw_cfgs[i], &totals);
}

static void test_sweep_4k(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sw_cfgs); i++)
		if (sw_cfgs[i].bs == 4096)
			sweep(&sw_cfgs[i], &totals);
	print_message("sweep total: %lu positions, %lu recoveries, %lu flagged, %lu/%lu detectable flagged, %lu stray writes, 0 crashes\n",
		      totals.positions, totals.runs, totals.flagged,
		      totals.detected, totals.detectable, totals.stray);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_full_lap),
		cmocka_unit_test(test_sweep_1k),
		cmocka_unit_test(test_sweep_4k),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
