// SPDX-License-Identifier: GPL-2.0
/*
 * test_jsb.c: journal superblock checks and checksum.
 *
 * Starts from a healthy v2 superblock with csum v3 and breaks one field
 * at a time: each mutation must raise exactly the problem bit meant for
 * it.  The superblock lives in a heap block of exactly 1024 bytes so that
 * the sanitizer build catches any read past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ej_lib.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define BS		4096U
#define MAXLEN		32768U

static const struct ej_jsb_limits limits = {
	.fs_blocksize = BS,
	.max_blocks = 1ULL << 20,
};

static const unsigned char test_uuid[16] = {
	0x5e, 0x11, 0x0c, 0x3a, 0x9d, 0x42, 0x4b, 0x17,
	0x8e, 0x01, 0xa9, 0xc4, 0x33, 0x7f, 0x60, 0xd2,
};

static void fill_v2(journal_superblock_t *jsb)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	jsb->s_blocksize = cpu_to_be32(BS);
	jsb->s_maxlen = cpu_to_be32(MAXLEN);
	jsb->s_first = cpu_to_be32(1);
	jsb->s_sequence = cpu_to_be32(42);
	jsb->s_start = cpu_to_be32(0);
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE |
					      JBD2_FEATURE_INCOMPAT_64BIT |
					      JBD2_FEATURE_INCOMPAT_CSUM_V3);
	memcpy(jsb->s_uuid, test_uuid, sizeof(test_uuid));
	jsb->s_nr_users = cpu_to_be32(1);
	jsb->s_checksum_type = JBD2_CRC32C_CHKSUM_TYPE;
	ej_jsb_csum_set(jsb);
}

static void fill_v1(journal_superblock_t *jsb)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V1);
	jsb->s_blocksize = cpu_to_be32(BS);
	jsb->s_maxlen = cpu_to_be32(MAXLEN);
	jsb->s_first = cpu_to_be32(1);
	jsb->s_sequence = cpu_to_be32(7);
}

static unsigned int problems_of(const journal_superblock_t *jsb)
{
	unsigned int p = 0xdeadU;

	assert_int_equal(ej_jsb_check(jsb, &limits, &p), 0);
	return p;
}

static int setup_jsb(void **state)
{
	journal_superblock_t *jsb = malloc(sizeof(*jsb));

	if (!jsb)
		return -1;
	fill_v2(jsb);
	*state = jsb;
	return 0;
}

static int teardown_jsb(void **state)
{
	free(*state);
	return 0;
}

static void test_valid_v2_csum_v3(void **state)
{
	journal_superblock_t *jsb = *state;

	assert_int_equal(problems_of(jsb), 0);
	assert_int_equal(ej_jsb_csum_verify(jsb), 1);
	/* A journal that needs recovery, log starting mid-journal. */
	jsb->s_start = cpu_to_be32(MAXLEN - 1);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
	jsb->s_start = cpu_to_be32(1);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
	/* s_errno is state, not damage. */
	jsb->s_errno = cpu_to_be32((__u32)-5);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
	/* An unknown compat feature is harmless by definition. */
	jsb->s_feature_compat = cpu_to_be32(0x80);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
	/* Exactly the limit. */
	jsb->s_maxlen = cpu_to_be32((__u32)limits.max_blocks);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
}

static void test_valid_variants(void **state)
{
	journal_superblock_t *jsb = *state;

	/* csum v2 */
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE |
					      JBD2_FEATURE_INCOMPAT_CSUM_V2);
	ej_jsb_csum_set(jsb);
	assert_int_equal(problems_of(jsb), 0);
	/* No checksums: s_checksum and s_checksum_type are not looked at. */
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
	jsb->s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
	jsb->s_checksum = cpu_to_be32(0x12345678);
	jsb->s_checksum_type = 0;
	assert_int_equal(problems_of(jsb), 0);
	/* The smallest journal there is. */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS);
	assert_int_equal(problems_of(jsb), 0);
	/* A plain v1 superblock. */
	fill_v1(jsb);
	assert_int_equal(problems_of(jsb), 0);
}

static void expect_only(journal_superblock_t *jsb, unsigned int bit)
{
	assert_int_equal(problems_of(jsb), bit);
}

static void test_bad_magic(void **state)
{
	journal_superblock_t *jsb = *state;
	static const __u32 bad_types[] = {
		0, JBD2_DESCRIPTOR_BLOCK, JBD2_COMMIT_BLOCK,
		JBD2_REVOKE_BLOCK, JBD2_FC_BLOCK, 7, 0x04000000,
	};
	size_t i;

	jsb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER ^ 1);
	expect_only(jsb, EJ_JSB_BAD_MAGIC);
	/* Byte-swapped magic. */
	jsb->s_header.h_magic = JBD2_MAGIC_NUMBER;
	expect_only(jsb, EJ_JSB_BAD_MAGIC);
	fill_v2(jsb);
	for (i = 0; i < ARRAY_SIZE(bad_types); i++) {
		jsb->s_header.h_blocktype = cpu_to_be32(bad_types[i]);
		expect_only(jsb, EJ_JSB_BAD_MAGIC);
	}
	/* All zeroes: what an unwritten journal block looks like. */
	memset(jsb, 0, sizeof(*jsb));
	expect_only(jsb, EJ_JSB_BAD_MAGIC);
}

static void test_bad_blocksize(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_blocksize = cpu_to_be32(1024);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_BLOCKSIZE);
	jsb->s_blocksize = BS;	/* not converted to big-endian */
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_BLOCKSIZE);
}

static void test_bad_maxlen(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS - 1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_MAXLEN);
	jsb->s_maxlen = cpu_to_be32((__u32)limits.max_blocks + 1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_MAXLEN);
	jsb->s_maxlen = cpu_to_be32(0xffffffffU);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_MAXLEN);
}

static void test_bad_first(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_first = cpu_to_be32(0);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FIRST);
	jsb->s_first = cpu_to_be32(MAXLEN);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FIRST);
	jsb->s_first = cpu_to_be32(0xffffffffU);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FIRST);
}

static void test_bad_start(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_start = cpu_to_be32(MAXLEN);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_START);
	/* Before s_first: inside the area the log does not use. */
	jsb->s_first = cpu_to_be32(16);
	jsb->s_start = cpu_to_be32(15);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_START);
	jsb->s_start = cpu_to_be32(16);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
	/* In the fast-commit area, which is not part of the log. */
	jsb->s_feature_incompat |= cpu_to_be32(
					JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	jsb->s_start = cpu_to_be32(MAXLEN - JBD2_DEFAULT_FAST_COMMIT_BLOCKS);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_START);
	jsb->s_start = cpu_to_be32(MAXLEN - JBD2_DEFAULT_FAST_COMMIT_BLOCKS -
				   1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
	/* The v1 log has no fast-commit area and its own bounds. */
	fill_v1(jsb);
	jsb->s_start = cpu_to_be32(MAXLEN + 5);
	expect_only(jsb, EJ_JSB_BAD_START);
}

static void test_unknown_features(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_feature_incompat |= cpu_to_be32(0x40);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_UNKNOWN_INCOMPAT);
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3 |
					      0x80000000U);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_UNKNOWN_INCOMPAT);
	fill_v2(jsb);
	jsb->s_feature_ro_compat = cpu_to_be32(0x1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_UNKNOWN_ROCOMPAT);
}

static void test_both_csum(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BOTH_CSUM);
	/* v1 transaction checksums together with v3. */
	fill_v2(jsb);
	jsb->s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BOTH_CSUM);
}

static void test_bad_csum_type(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_checksum_type = JBD2_CRC32_CHKSUM;
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_CSUM_TYPE);
	jsb->s_checksum_type = 0;
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_CSUM_TYPE);
}

static void test_bad_csum(void **state)
{
	journal_superblock_t *jsb = *state;
	unsigned char *raw = (unsigned char *)jsb;
	size_t off;

	/*
	 * A flipped bit from s_uuid on (the fields before it have checks of
	 * their own) is caught; s_checksum_type has its own bit too.
	 */
	for (off = offsetof(journal_superblock_t, s_uuid); off < sizeof(*jsb);
	     off += 37) {
		if (off == offsetof(journal_superblock_t, s_checksum_type) ||
		    (off >= offsetof(journal_superblock_t, s_checksum) &&
		     off < offsetof(journal_superblock_t, s_checksum) + 4))
			continue;
		fill_v2(jsb);
		raw[off] ^= 0x10;
		expect_only(jsb, EJ_JSB_BAD_CSUM);
	}
	fill_v2(jsb);
	raw[sizeof(*jsb) - 1] ^= 1;	/* last byte of s_users */
	expect_only(jsb, EJ_JSB_BAD_CSUM);
	fill_v2(jsb);
	jsb->s_checksum ^= cpu_to_be32(1);
	expect_only(jsb, EJ_JSB_BAD_CSUM);
	jsb->s_checksum = 0;
	expect_only(jsb, EJ_JSB_BAD_CSUM);
	/* csum v2 is checked the same way. */
	fill_v2(jsb);
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
	ej_jsb_csum_set(jsb);
	jsb->s_sequence = cpu_to_be32(43);
	expect_only(jsb, EJ_JSB_BAD_CSUM);
}

static void test_bad_fc(void **state)
{
	journal_superblock_t *jsb = *state;
	const __u32 fc_on = JBD2_FEATURE_INCOMPAT_FAST_COMMIT;

	jsb->s_feature_incompat |= cpu_to_be32(fc_on);
	/* 0 means the default 256 blocks: fits in 32768. */
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
	/* Exactly JBD2_MIN_JOURNAL_BLOCKS of log left: still fine. */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS +
				    JBD2_DEFAULT_FAST_COMMIT_BLOCKS);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
	/* One block less of log. */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS +
				    JBD2_DEFAULT_FAST_COMMIT_BLOCKS - 1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FC);
	/* An explicit count that eats the log. */
	jsb->s_maxlen = cpu_to_be32(MAXLEN);
	jsb->s_num_fc_blks = cpu_to_be32(MAXLEN - JBD2_MIN_JOURNAL_BLOCKS + 1);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FC);
	jsb->s_num_fc_blks = cpu_to_be32(MAXLEN - JBD2_MIN_JOURNAL_BLOCKS);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
	/* Huge counts must not wrap around. */
	jsb->s_num_fc_blks = cpu_to_be32(0xffffffffU);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FC);
	jsb->s_num_fc_blks = cpu_to_be32(0xfffffc00U);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, EJ_JSB_BAD_FC);
	/* Without the feature the field means nothing. */
	jsb->s_feature_incompat &= ~cpu_to_be32(fc_on);
	ej_jsb_csum_set(jsb);
	expect_only(jsb, 0);
}

static void test_v1_with_v2_fields(void **state)
{
	journal_superblock_t *jsb = *state;

	fill_v1(jsb);
	jsb->s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
	expect_only(jsb, EJ_JSB_V1_WITH_V2);
	fill_v1(jsb);
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
	expect_only(jsb, EJ_JSB_V1_WITH_V2);
	fill_v1(jsb);
	jsb->s_feature_ro_compat = cpu_to_be32(0x100);
	expect_only(jsb, EJ_JSB_V1_WITH_V2);
	fill_v1(jsb);
	jsb->s_nr_users = cpu_to_be32(1);
	expect_only(jsb, EJ_JSB_V1_WITH_V2);
	/*
	 * e2fsck looks only at the feature words and s_nr_users; a v1
	 * superblock's checksum fields are never read, so garbage there is
	 * neither a checksum error nor "v2 fields".
	 */
	fill_v1(jsb);
	jsb->s_checksum_type = JBD2_CRC32C_CHKSUM_TYPE;
	jsb->s_checksum = cpu_to_be32(0xbadc0de);
	assert_int_equal(ej_jsb_csum_verify(jsb), 1);
	expect_only(jsb, 0);
	/* A v1 superblock with v2's incompat bits: not "unknown features". */
	fill_v1(jsb);
	jsb->s_feature_incompat = cpu_to_be32(0xffffffffU);
	expect_only(jsb, EJ_JSB_V1_WITH_V2);
}

static void test_several_problems(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_blocksize = cpu_to_be32(BS * 2);
	jsb->s_first = cpu_to_be32(0);
	jsb->s_feature_ro_compat = cpu_to_be32(0x2);
	/* checksum left stale */
	expect_only(jsb, EJ_JSB_BAD_BLOCKSIZE | EJ_JSB_BAD_FIRST |
			 EJ_JSB_UNKNOWN_ROCOMPAT | EJ_JSB_BAD_CSUM);
}

static void test_csum_round_trip(void **state)
{
	journal_superblock_t *jsb = *state;
	journal_superblock_t *copy = malloc(sizeof(*copy));
	__u32 stored;

	assert_non_null(copy);
	assert_int_equal(ej_jsb_csum_verify(jsb), 1);
	stored = be32_to_cpu(jsb->s_checksum);
	assert_int_equal(ej_jsb_csum(jsb), stored);

	/* The value is crc32c(~0) over the block with s_checksum zeroed. */
	memcpy(copy, jsb, sizeof(*copy));
	copy->s_checksum = 0;
	assert_int_equal(stored,
			 ext2fs_crc32c_le(~0U, (unsigned char *)copy,
					  sizeof(*copy)));
	/* ...whatever the field held before. */
	copy->s_checksum = 0xffffffffU;
	assert_int_equal(ej_jsb_csum(copy), stored);

	/* Setting touches only s_checksum. */
	memcpy(copy, jsb, sizeof(*copy));
	copy->s_sequence = cpu_to_be32(1000);
	assert_int_equal(ej_jsb_csum_verify(copy), 0);
	ej_jsb_csum_set(copy);
	assert_int_equal(ej_jsb_csum_verify(copy), 1);
	assert_int_not_equal(be32_to_cpu(copy->s_checksum), stored);
	copy->s_checksum = jsb->s_checksum;
	copy->s_sequence = jsb->s_sequence;
	assert_memory_equal(copy, jsb, sizeof(*copy));

	/* No v2/v3 checksum: verify says yes, set leaves the field alone. */
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
	jsb->s_checksum = cpu_to_be32(0x11111111U);
	assert_int_equal(ej_jsb_csum_verify(jsb), 1);
	ej_jsb_csum_set(jsb);
	assert_int_equal(be32_to_cpu(jsb->s_checksum), 0x11111111U);
	free(copy);
}

static void test_csum_seed(void **state)
{
	journal_superblock_t *jsb = *state;

	assert_int_equal(ej_jsb_csum_seed(jsb),
			 ej_crc32c(~0U, test_uuid, sizeof(test_uuid)));
	assert_int_equal(ej_jsb_csum_seed(jsb),
			 ext2fs_crc32c_le(~0U, test_uuid, sizeof(test_uuid)));
	jsb->s_uuid[15] ^= 1;
	assert_int_not_equal(ej_jsb_csum_seed(jsb),
			     ej_crc32c(~0U, test_uuid, sizeof(test_uuid)));
}

static void test_null_args(void **state)
{
	journal_superblock_t *jsb = *state;
	unsigned int p = 0;

	assert_int_equal(ej_jsb_check(NULL, &limits, &p), EJ_BAD_ARG);
	assert_int_equal(ej_jsb_check(jsb, NULL, &p), EJ_BAD_ARG);
	assert_int_equal(ej_jsb_check(jsb, &limits, NULL), EJ_BAD_ARG);
	assert_int_equal(ej_jsb_csum_verify(NULL), 0);
	ej_jsb_csum_set(NULL);
}

#define JSB_TEST(fn) \
	cmocka_unit_test_setup_teardown(fn, setup_jsb, teardown_jsb)

int main(void)
{
	const struct CMUnitTest tests[] = {
		JSB_TEST(test_valid_v2_csum_v3),
		JSB_TEST(test_valid_variants),
		JSB_TEST(test_bad_magic),
		JSB_TEST(test_bad_blocksize),
		JSB_TEST(test_bad_maxlen),
		JSB_TEST(test_bad_first),
		JSB_TEST(test_bad_start),
		JSB_TEST(test_unknown_features),
		JSB_TEST(test_both_csum),
		JSB_TEST(test_bad_csum_type),
		JSB_TEST(test_bad_csum),
		JSB_TEST(test_bad_fc),
		JSB_TEST(test_v1_with_v2_fields),
		JSB_TEST(test_several_problems),
		JSB_TEST(test_csum_round_trip),
		JSB_TEST(test_csum_seed),
		JSB_TEST(test_null_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
