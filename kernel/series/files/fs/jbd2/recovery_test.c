// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the pure parts of journal recovery: tag sizes and tag
 * walking per feature set, the checksums of data blocks, descriptor and
 * commit blocks, and the parsing of revoke records.
 *
 * recovery.c is shared verbatim with userspace tools and keeps its
 * helpers static, so this file includes it and is built in its place
 * when CONFIG_JBD2_KUNIT_TEST is set.  Expected checksums come from
 * lib/crc32's software __crc32c_le() and crc32_be(), not from the crypto
 * driver that recovery uses.
 */

#include "recovery.c"

#include <kunit/test.h>
#include <linux/crc32.h>

#define TEST_BLOCKSIZE	1024

struct recovery_test {
	journal_t		*journal;
	journal_superblock_t	*sb;
	char			*buf;
	char			*data;
	bool			revoke_table;
};

static int recovery_test_init(struct kunit *test)
{
	struct recovery_test *rt;
	int i;

	rt = kunit_kzalloc(test, sizeof(*rt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt);
	rt->journal = kunit_kzalloc(test, sizeof(*rt->journal), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->journal);
	rt->sb = kunit_kzalloc(test, sizeof(*rt->sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->sb);
	rt->buf = kunit_kzalloc(test, TEST_BLOCKSIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->buf);
	rt->data = kunit_kzalloc(test, TEST_BLOCKSIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->data);

	for (i = 0; i < 16; i++)
		rt->sb->s_uuid[i] = 0xa0 + i;
	for (i = 0; i < TEST_BLOCKSIZE; i++)
		rt->data[i] = i * 7 + 3;
	rt->journal->j_superblock = rt->sb;
	rt->journal->j_format_version = 2;
	rt->journal->j_blocksize = TEST_BLOCKSIZE;
	spin_lock_init(&rt->journal->j_revoke_lock);
	test->priv = rt;
	return 0;
}

static void recovery_test_exit(struct kunit *test)
{
	struct recovery_test *rt = test->priv;

	if (rt->revoke_table) {
		jbd2_journal_clear_revoke(rt->journal);
		jbd2_journal_destroy_revoke(rt->journal);
	}
	if (rt->journal->j_chksum_driver)
		crypto_free_shash(rt->journal->j_chksum_driver);
}

static void set_features(journal_t *journal, u32 incompat, u32 compat)
{
	journal->j_superblock->s_feature_incompat = cpu_to_be32(incompat);
	journal->j_superblock->s_feature_compat = cpu_to_be32(compat);
}

/* Turn on csum v2 or v3 (@incompat) the way journal load does. */
static void enable_csum(struct kunit *test, u32 incompat)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	struct crypto_shash *tfm;

	set_features(journal, incompat, 0);
	tfm = crypto_alloc_shash("crc32c", 0, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(tfm));
	journal->j_chksum_driver = tfm;
	journal->j_csum_seed = jbd2_chksum(journal, ~0,
					   journal->j_superblock->s_uuid, 16);
	/* The seed as lib/crc32 computes it, without the crypto driver. */
	KUNIT_ASSERT_EQ(test, journal->j_csum_seed,
			__crc32c_le(~0, journal->j_superblock->s_uuid, 16));
}

static void put_header(char *buf, u32 type, tid_t tid)
{
	journal_header_t *h = (journal_header_t *)buf;

	h->h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	h->h_blocktype = cpu_to_be32(type);
	h->h_sequence = cpu_to_be32(tid);
}

static void test_chksum_driver(struct kunit *test)
{
	struct recovery_test *rt = test->priv;

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	/* crc32c("123456789") is 0xe3069283; recovery keeps the raw register. */
	KUNIT_EXPECT_EQ(test, jbd2_chksum(rt->journal, ~0, "123456789", 9),
			~0xe3069283U);
}

static void test_tag_bytes(struct kunit *test)
{
	static const struct {
		u32 incompat;
		size_t bytes;
	} cases[] = {
		{ 0, 8 },
		{ JBD2_FEATURE_INCOMPAT_64BIT, 12 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V2, 10 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_64BIT, 14 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V3, 16 },
		{ JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_64BIT, 16 },
	};
	struct recovery_test *rt = test->priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		set_features(rt->journal, cases[i].incompat, 0);
		KUNIT_EXPECT_EQ_MSG(test, journal_tag_bytes(rt->journal),
				    cases[i].bytes, "incompat %#x",
				    cases[i].incompat);
	}

	/* A version 1 superblock has no features, whatever its fields say. */
	set_features(rt->journal, JBD2_FEATURE_INCOMPAT_CSUM_V3, 0);
	rt->journal->j_format_version = 1;
	KUNIT_EXPECT_EQ(test, journal_tag_bytes(rt->journal), (size_t)8);
}

/*
 * Three tags with 64-bit block numbers: the first carries a UUID, the
 * others share it, the last ends the list.  The walk must step over the
 * UUID and stop at LAST_TAG even though space is left.
 */
static void test_tag_walk(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	static const u64 blocks[] = { 0x123456789ULL, 42, 0x100000000ULL };
	unsigned int flags, i, off = sizeof(journal_header_t);
	unsigned long long blocknr;
	struct tag_iter it;
	size_t tag_bytes;
	bool last;

	set_features(journal, JBD2_FEATURE_INCOMPAT_64BIT, 0);
	tag_bytes = journal_tag_bytes(journal);
	put_header(rt->buf, JBD2_DESCRIPTOR_BLOCK, 7);
	for (i = 0; i < ARRAY_SIZE(blocks); i++) {
		journal_block_tag_t *tag = (void *)(rt->buf + off);
		u16 f = i ? JBD2_FLAG_SAME_UUID : 0;

		if (i == ARRAY_SIZE(blocks) - 1)
			f |= JBD2_FLAG_LAST_TAG;
		tag->t_blocknr = cpu_to_be32(lower_32_bits(blocks[i]));
		tag->t_blocknr_high = cpu_to_be32(upper_32_bits(blocks[i]));
		tag->t_flags = cpu_to_be16(f);
		off += tag_bytes + (i ? 0 : 16);
	}

	KUNIT_EXPECT_EQ(test, count_tags(journal, rt->buf, &last), 3U);
	KUNIT_EXPECT_TRUE(test, last);

	tag_iter_init(journal, &it, rt->buf);
	for (i = 0; i < ARRAY_SIZE(blocks); i++) {
		KUNIT_ASSERT_NOT_NULL(test, tag_next(journal, &it, &flags,
						     &blocknr));
		KUNIT_EXPECT_EQ(test, blocknr, blocks[i]);
	}
	KUNIT_EXPECT_NULL(test, tag_next(journal, &it, &flags, &blocknr));

	/* Without 64bit the high word is not part of the block number. */
	set_features(journal, 0, 0);
	memset(rt->buf + sizeof(journal_header_t), 0,
	       TEST_BLOCKSIZE - sizeof(journal_header_t));
	((journal_block_tag_t *)(rt->buf + 12))->t_blocknr = cpu_to_be32(9);
	((journal_block_tag_t *)(rt->buf + 12))->t_flags =
		cpu_to_be16(JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
	tag_iter_init(journal, &it, rt->buf);
	KUNIT_ASSERT_NOT_NULL(test, tag_next(journal, &it, &flags, &blocknr));
	KUNIT_EXPECT_EQ(test, blocknr, 9ULL);
}

/* A tag's checksum covers the sequence and the block as logged. */
static u32 data_csum(journal_t *journal, tid_t tid, const void *data)
{
	__be32 seq = cpu_to_be32(tid);
	u32 crc = __crc32c_le(journal->j_csum_seed, (void *)&seq, sizeof(seq));

	return __crc32c_le(crc, data, journal->j_blocksize);
}

static void test_tag_csum_v3(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	journal_block_tag3_t tag = { };

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	tag.t_checksum = cpu_to_be32(data_csum(journal, 5, rt->data));
	KUNIT_EXPECT_TRUE(test, block_tag_csum_ok(journal, (void *)&tag,
						  rt->data, 5));
	/* The same block logged in another transaction does not verify. */
	KUNIT_EXPECT_FALSE(test, block_tag_csum_ok(journal, (void *)&tag,
						   rt->data, 6));
	rt->data[TEST_BLOCKSIZE - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, block_tag_csum_ok(journal, (void *)&tag,
						   rt->data, 5));
}

static void test_tag_csum_v2(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	journal_block_tag_t tag = { };
	u32 csum;

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V2);
	csum = data_csum(journal, 5, rt->data);
	/* v2 keeps the low 16 bits. */
	tag.t_checksum = cpu_to_be16(csum);
	KUNIT_EXPECT_TRUE(test, block_tag_csum_ok(journal, (void *)&tag,
						  rt->data, 5));
	tag.t_checksum = cpu_to_be16(csum >> 16);
	if ((u16)csum != (u16)(csum >> 16))
		KUNIT_EXPECT_FALSE(test, block_tag_csum_ok(journal,
							   (void *)&tag,
							   rt->data, 5));
}

static void test_tag_csum_none(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_block_tag_t tag = { };

	/* Without v2/v3 there is no tag checksum: every block passes. */
	set_features(rt->journal, JBD2_FEATURE_INCOMPAT_64BIT, 0);
	KUNIT_EXPECT_TRUE(test, block_tag_csum_ok(rt->journal, (void *)&tag,
						  rt->data, 5));
}

/* A commit block as the commit code writes it with csum v2/v3. */
static void make_commit(journal_t *journal, char *buf, tid_t tid)
{
	struct commit_header *h = (struct commit_header *)buf;

	memset(buf, 0, journal->j_blocksize);
	put_header(buf, JBD2_COMMIT_BLOCK, tid);
	h->h_commit_sec = cpu_to_be64(1700000000);
	h->h_commit_nsec = cpu_to_be32(12345);
	h->h_chksum[0] = cpu_to_be32(__crc32c_le(journal->j_csum_seed, buf,
						 journal->j_blocksize));
}

static void test_commit_csum(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	struct commit_header *h = (struct commit_header *)rt->buf;

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	make_commit(journal, rt->buf, 9);
	KUNIT_EXPECT_TRUE(test, commit_csum_ok(journal, rt->buf));
	KUNIT_EXPECT_TRUE(test, header_ok(journal, rt->buf, 9, true));
	KUNIT_EXPECT_FALSE(test, header_ok(journal, rt->buf, 10, true));

	h->h_commit_nsec = cpu_to_be32(12346);
	KUNIT_EXPECT_FALSE(test, commit_csum_ok(journal, rt->buf));
	KUNIT_EXPECT_FALSE(test, commit_torn_ok(journal, rt->buf));
	KUNIT_EXPECT_FALSE(test, header_ok(journal, rt->buf, 9, true));
}

/*
 * A commit block torn after its first sector: the header is what was
 * written, the rest is old data.  Its checksum still holds over the
 * header followed by zeros.
 */
static void test_commit_torn(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	make_commit(journal, rt->buf, 9);
	memset(rt->buf + 512, 0x5a, TEST_BLOCKSIZE - 512);
	KUNIT_EXPECT_FALSE(test, commit_csum_ok(journal, rt->buf));
	KUNIT_EXPECT_TRUE(test, commit_torn_ok(journal, rt->buf));
	KUNIT_EXPECT_TRUE(test, header_ok(journal, rt->buf, 9, true));
}

static void test_commit_v1(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	struct commit_header *h = (struct commit_header *)rt->buf;
	u32 sum = crc32_be(~0, rt->data, TEST_BLOCKSIZE);

	set_features(rt->journal, 0, JBD2_FEATURE_COMPAT_CHECKSUM);
	put_header(rt->buf, JBD2_COMMIT_BLOCK, 3);
	h->h_chksum_type = JBD2_CRC32_CHKSUM;
	h->h_chksum_size = JBD2_CRC32_CHKSUM_SIZE;
	h->h_chksum[0] = cpu_to_be32(sum);
	KUNIT_EXPECT_TRUE(test, commit_v1_ok(rt->buf, sum));
	KUNIT_EXPECT_FALSE(test, commit_v1_ok(rt->buf, sum ^ 1));

	/* A commit that carries no checksum at all is accepted. */
	memset(rt->buf, 0, TEST_BLOCKSIZE);
	put_header(rt->buf, JBD2_COMMIT_BLOCK, 3);
	KUNIT_EXPECT_TRUE(test, commit_v1_ok(rt->buf, sum));
}

static void test_descr_csum(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	size_t tail_off = TEST_BLOCKSIZE - sizeof(struct jbd2_journal_block_tail);
	struct jbd2_journal_block_tail *tail = (void *)(rt->buf + tail_off);

	enable_csum(test, JBD2_FEATURE_INCOMPAT_CSUM_V3);
	put_header(rt->buf, JBD2_DESCRIPTOR_BLOCK, 4);
	rt->buf[100] = 0x11;
	tail->t_checksum = cpu_to_be32(__crc32c_le(journal->j_csum_seed,
						   rt->buf, TEST_BLOCKSIZE));
	KUNIT_EXPECT_TRUE(test, descr_csum_ok(journal, rt->buf));
	rt->buf[100] = 0x12;
	KUNIT_EXPECT_FALSE(test, descr_csum_ok(journal, rt->buf));
}

static void setup_revoke(struct kunit *test, u32 incompat, int policy)
{
	struct recovery_test *rt = test->priv;

	set_features(rt->journal, incompat, 0);
	rt->journal->j_replay_policy = policy;
	KUNIT_ASSERT_EQ(test, jbd2_journal_init_revoke(rt->journal, 64), 0);
	rt->revoke_table = true;
}

/* A revoke block holding @n records from @blocks, r_count saying so. */
static void make_revoke(journal_t *journal, char *buf, tid_t tid,
			const u64 *blocks, unsigned int n)
{
	jbd2_journal_revoke_header_t *rh = (void *)buf;
	unsigned int off = sizeof(*rh), i;

	memset(buf, 0, journal->j_blocksize);
	put_header(buf, JBD2_REVOKE_BLOCK, tid);
	for (i = 0; i < n; i++) {
		if (jbd2_has_feature_64bit(journal)) {
			*(__be64 *)(buf + off) = cpu_to_be64(blocks[i]);
			off += 8;
		} else {
			*(__be32 *)(buf + off) = cpu_to_be32(blocks[i]);
			off += 4;
		}
	}
	rh->r_count = cpu_to_be32(off);
}

static void test_revoke_records_32(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	static const u64 blocks[] = { 100, 200, 0xfffffffeULL };
	struct buffer_head bh = { .b_data = rt->buf };
	struct recovery_info info = { };
	unsigned int nr;

	setup_revoke(test, 0, JBD2_POLICY_REPLAY_ALL);
	make_revoke(journal, rt->buf, 20, blocks, ARRAY_SIZE(blocks));
	KUNIT_ASSERT_EQ(test, scan_revoke_records(journal, &bh, 20, &info,
						  &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 3U);
	KUNIT_EXPECT_EQ(test, info.nr_revokes, 3);
	KUNIT_EXPECT_EQ(test, journal->j_replay_corrupt, 0U);

	/* A record for tid 20 suppresses the block up to tid 20 only. */
	KUNIT_EXPECT_TRUE(test, jbd2_journal_test_revoke(journal, 200, 19));
	KUNIT_EXPECT_TRUE(test, jbd2_journal_test_revoke(journal, 200, 20));
	KUNIT_EXPECT_FALSE(test, jbd2_journal_test_revoke(journal, 200, 21));
	KUNIT_EXPECT_TRUE(test, jbd2_journal_test_revoke(journal,
							 0xfffffffeULL, 20));
	KUNIT_EXPECT_FALSE(test, jbd2_journal_test_revoke(journal, 300, 1));
}

static void test_revoke_records_64(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	static const u64 blocks[] = { 0x100000005ULL, 5 };
	struct buffer_head bh = { .b_data = rt->buf };
	struct recovery_info info = { };
	unsigned int nr;

	setup_revoke(test, JBD2_FEATURE_INCOMPAT_64BIT, JBD2_POLICY_REPLAY_ALL);
	make_revoke(journal, rt->buf, 30, blocks, 1);
	KUNIT_ASSERT_EQ(test, scan_revoke_records(journal, &bh, 30, &info,
						  &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 1U);
	KUNIT_EXPECT_TRUE(test, jbd2_journal_test_revoke(journal, blocks[0],
							 30));
	/* The high word counts: block 5 itself was not revoked. */
	KUNIT_EXPECT_FALSE(test, jbd2_journal_test_revoke(journal, blocks[1],
							  30));
}

/*
 * An r_count larger than the block: "stop" rejects the block as jbd2
 * always did; the other policies read the records that fit (a revoke can
 * only suppress a write) and flag the journal.
 */
static void test_revoke_bad_count(struct kunit *test)
{
	struct recovery_test *rt = test->priv;
	journal_t *journal = rt->journal;
	jbd2_journal_revoke_header_t *rh = (void *)rt->buf;
	static const u64 blocks[] = { 7, 8 };
	struct buffer_head bh = { .b_data = rt->buf };
	struct recovery_info info = { };
	unsigned int nr;

	setup_revoke(test, 0, JBD2_POLICY_STOP);
	make_revoke(journal, rt->buf, 40, blocks, ARRAY_SIZE(blocks));
	rh->r_count = cpu_to_be32(TEST_BLOCKSIZE + 4);
	KUNIT_EXPECT_EQ(test, scan_revoke_records(journal, &bh, 40, &info,
						  &nr), -EINVAL);

	journal->j_replay_policy = JBD2_POLICY_REPLAY_ALL;
	KUNIT_ASSERT_EQ(test, scan_revoke_records(journal, &bh, 40, &info,
						  &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, (TEST_BLOCKSIZE - 16U) / 4);
	KUNIT_EXPECT_TRUE(test, jbd2_journal_test_revoke(journal, 8, 40));
	KUNIT_EXPECT_EQ(test, journal->j_replay_corrupt,
			(unsigned int)JBD2_CORRUPT_REVOKE_COUNT);
	KUNIT_EXPECT_EQ(test, journal->j_replay_first_bad, 40U);
}

static struct kunit_case recovery_test_cases[] = {
	KUNIT_CASE(test_chksum_driver),
	KUNIT_CASE(test_tag_bytes),
	KUNIT_CASE(test_tag_walk),
	KUNIT_CASE(test_tag_csum_v3),
	KUNIT_CASE(test_tag_csum_v2),
	KUNIT_CASE(test_tag_csum_none),
	KUNIT_CASE(test_commit_csum),
	KUNIT_CASE(test_commit_torn),
	KUNIT_CASE(test_commit_v1),
	KUNIT_CASE(test_descr_csum),
	KUNIT_CASE(test_revoke_records_32),
	KUNIT_CASE(test_revoke_records_64),
	KUNIT_CASE(test_revoke_bad_count),
	{}
};

static struct kunit_suite recovery_test_suite = {
	.name = "jbd2_recovery",
	.init = recovery_test_init,
	.exit = recovery_test_exit,
	.test_cases = recovery_test_cases,
};

kunit_test_suite(recovery_test_suite);
