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

/* What a v1 and a v2 superblock have: a valid header and geometry. */
static void fill_base(journal_superblock_t *jsb, __u32 blocktype,
		      __u32 sequence)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = cpu_to_be32(blocktype);
	jsb->s_blocksize = cpu_to_be32(BS);
	jsb->s_maxlen = cpu_to_be32(MAXLEN);
	jsb->s_first = cpu_to_be32(1);
	jsb->s_sequence = cpu_to_be32(sequence);
}

static void fill_v2(journal_superblock_t *jsb)
{
	fill_base(jsb, JBD2_SUPERBLOCK_V2, 42);
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
	fill_base(jsb, JBD2_SUPERBLOCK_V1, 7);
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

/* The same after a field changed: the checksum made valid again first. */
static void expect_sealed(journal_superblock_t *jsb, unsigned int bit)
{
	ej_jsb_csum_set(jsb);
	expect_only(jsb, bit);
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
	/* Byte-swapped magic (little-endian on disk), whatever the host. */
	jsb->s_header.h_magic = __builtin_bswap32(cpu_to_be32(JBD2_MAGIC_NUMBER));
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
	expect_sealed(jsb, EJ_JSB_BAD_BLOCKSIZE);
	/* stored little-endian, whatever the host */
	jsb->s_blocksize = __builtin_bswap32(cpu_to_be32(BS));
	expect_sealed(jsb, EJ_JSB_BAD_BLOCKSIZE);
}

static void test_bad_maxlen(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS - 1);
	expect_sealed(jsb, EJ_JSB_BAD_MAXLEN);
	jsb->s_maxlen = cpu_to_be32((__u32)limits.max_blocks + 1);
	expect_sealed(jsb, EJ_JSB_BAD_MAXLEN);
	jsb->s_maxlen = cpu_to_be32(0xffffffffU);
	expect_sealed(jsb, EJ_JSB_BAD_MAXLEN);
}

static void test_bad_first(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_first = cpu_to_be32(0);
	expect_sealed(jsb, EJ_JSB_BAD_FIRST);
	jsb->s_first = cpu_to_be32(MAXLEN);
	expect_sealed(jsb, EJ_JSB_BAD_FIRST);
	jsb->s_first = cpu_to_be32(0xffffffffU);
	expect_sealed(jsb, EJ_JSB_BAD_FIRST);
}

static void test_bad_start(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_start = cpu_to_be32(MAXLEN);
	expect_sealed(jsb, EJ_JSB_BAD_START);
	/* Before s_first: inside the area the log does not use. */
	jsb->s_first = cpu_to_be32(16);
	jsb->s_start = cpu_to_be32(15);
	expect_sealed(jsb, EJ_JSB_BAD_START);
	jsb->s_start = cpu_to_be32(16);
	expect_sealed(jsb, 0);
	/* In the fast-commit area, which is not part of the log. */
	jsb->s_feature_incompat |= cpu_to_be32(
					JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	jsb->s_start = cpu_to_be32(MAXLEN - JBD2_DEFAULT_FAST_COMMIT_BLOCKS);
	expect_sealed(jsb, EJ_JSB_BAD_START);
	jsb->s_start = cpu_to_be32(MAXLEN - JBD2_DEFAULT_FAST_COMMIT_BLOCKS -
				   1);
	expect_sealed(jsb, 0);
	/* The v1 log has no fast-commit area and its own bounds. */
	fill_v1(jsb);
	jsb->s_start = cpu_to_be32(MAXLEN + 5);
	expect_only(jsb, EJ_JSB_BAD_START);
}

static void test_unknown_features(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_feature_incompat |= cpu_to_be32(0x40);
	expect_sealed(jsb, EJ_JSB_UNKNOWN_INCOMPAT);
	jsb->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3 |
					      0x80000000U);
	expect_sealed(jsb, EJ_JSB_UNKNOWN_INCOMPAT);
	fill_v2(jsb);
	jsb->s_feature_ro_compat = cpu_to_be32(0x1);
	expect_sealed(jsb, EJ_JSB_UNKNOWN_ROCOMPAT);
}

static void test_both_csum(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
	expect_sealed(jsb, EJ_JSB_BOTH_CSUM);
	/* v1 transaction checksums together with v3. */
	fill_v2(jsb);
	jsb->s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
	expect_sealed(jsb, EJ_JSB_BOTH_CSUM);
}

static void test_bad_csum_type(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_checksum_type = JBD2_CRC32_CHKSUM;
	expect_sealed(jsb, EJ_JSB_BAD_CSUM_TYPE);
	jsb->s_checksum_type = 0;
	expect_sealed(jsb, EJ_JSB_BAD_CSUM_TYPE);
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
	expect_sealed(jsb, 0);
	/* Exactly JBD2_MIN_JOURNAL_BLOCKS of log left: still fine. */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS +
				    JBD2_DEFAULT_FAST_COMMIT_BLOCKS);
	expect_sealed(jsb, 0);
	/* One block less of log. */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS +
				    JBD2_DEFAULT_FAST_COMMIT_BLOCKS - 1);
	expect_sealed(jsb, EJ_JSB_BAD_FC);
	/* An explicit count that eats the log. */
	jsb->s_maxlen = cpu_to_be32(MAXLEN);
	jsb->s_num_fc_blks = cpu_to_be32(MAXLEN - JBD2_MIN_JOURNAL_BLOCKS + 1);
	expect_sealed(jsb, EJ_JSB_BAD_FC);
	jsb->s_num_fc_blks = cpu_to_be32(MAXLEN - JBD2_MIN_JOURNAL_BLOCKS);
	expect_sealed(jsb, 0);
	/* Huge counts must not wrap around. */
	jsb->s_num_fc_blks = cpu_to_be32(0xffffffffU);
	expect_sealed(jsb, EJ_JSB_BAD_FC);
	jsb->s_num_fc_blks = cpu_to_be32(0xfffffc00U);
	expect_sealed(jsb, EJ_JSB_BAD_FC);
	/* Without the feature the field means nothing. */
	jsb->s_feature_incompat &= ~cpu_to_be32(fc_on);
	expect_sealed(jsb, 0);
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

/* ------------------------------------------------- ej_jsb_validate() */

/* e2fsck's rules: e2fsprogs 1.47's checks only, a bad checksum fatal. */
static const struct ej_jsb_env e2fsck_env = {
	.fs_blocksize = BS,
	.nr_blocks = MAXLEN,
};

static const unsigned char fs_uuid[16] = {
	0xf5, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

/* ej_journal_open()'s rules for an external journal (block 2 is the jsb). */
static const struct ej_jsb_env lib_ext_env = {
	.fs_blocksize = BS,
	.nr_blocks = MAXLEN,
	.sb_lblk = 1,
	.fs_uuid = fs_uuid,
	.flags = EJ_JSBV_CSUM_OK | EJ_JSBV_SHARED_OK | EJ_JSBV_GEOMETRY,
};

/* Check @jsb under @env: the error must be @err and the reason @reason. */
static void expect_reason(const journal_superblock_t *jsb,
			  const struct ej_jsb_env *env, errcode_t err,
			  enum ej_jsb_reason reason)
{
	struct ej_jsb_result res;

	memset(&res, 0xa5, sizeof(res));
	assert_int_equal(ej_jsb_validate(jsb, env, &res), err);
	assert_int_equal(res.reason, reason);
}

/* A superblock both front ends accept, after each field is put back. */
static void fill_ext(journal_superblock_t *jsb)
{
	fill_v2(jsb);
	jsb->s_first = cpu_to_be32(2);
	memcpy(jsb->s_users, fs_uuid, sizeof(fs_uuid));
	ej_jsb_csum_set(jsb);
}

static void test_validate_ok(void **state)
{
	journal_superblock_t *jsb = *state;
	struct ej_jsb_result res;

	fill_ext(jsb);
	assert_int_equal(ej_jsb_validate(jsb, &e2fsck_env, &res), 0);
	assert_int_equal(res.reason, EJ_JSBR_OK);
	assert_int_equal(res.format, 2);
	assert_int_equal(res.problems, 0);
	expect_reason(jsb, &lib_ext_env, 0, EJ_JSBR_OK);
	fill_v1(jsb);
	jsb->s_first = cpu_to_be32(2);
	assert_int_equal(ej_jsb_validate(jsb, &lib_ext_env, &res), 0);
	assert_int_equal(res.format, 1);
	/* v1 with v2 fields: e2fsck offers to clear them, nobody refuses */
	jsb->s_nr_users = cpu_to_be32(3);
	assert_int_equal(ej_jsb_validate(jsb, &e2fsck_env, &res), 0);
	assert_int_equal(res.problems, EJ_JSB_V1_WITH_V2);
	/* a journal shorter than the space it has: e2fsck uses s_maxlen */
	fill_ext(jsb);
	jsb->s_maxlen = cpu_to_be32(MAXLEN / 2);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, 0, EJ_JSBR_OK);
	expect_reason(jsb, &lib_ext_env, 0, EJ_JSBR_OK);
}

static void test_validate_magic_type(void **state)
{
	journal_superblock_t *jsb = *state;

	jsb->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER + 1);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_NO_MAGIC);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_NO_MAGIC);
	fill_v2(jsb);
	jsb->s_header.h_blocktype = cpu_to_be32(JBD2_COMMIT_BLOCK);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_LOG_BLOCK);
	jsb->s_header.h_blocktype = cpu_to_be32(JBD2_REVOKE_BLOCK);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_LOG_BLOCK);
	jsb->s_header.h_blocktype = cpu_to_be32(JBD2_FC_BLOCK);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_BAD_TYPE);
	/* a type past every known one: a newer format */
	jsb->s_header.h_blocktype = cpu_to_be32(9);
	expect_reason(jsb, &lib_ext_env, EJ_UNSUPP_JSB_VERSION,
		      EJ_JSBR_BAD_TYPE);
}

static void test_validate_fields(void **state)
{
	journal_superblock_t *jsb = *state;

	fill_ext(jsb);
	jsb->s_blocksize = cpu_to_be32(BS / 2);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_BLOCKSIZE);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_BLOCKSIZE);

	fill_ext(jsb);
	jsb->s_maxlen = cpu_to_be32(MAXLEN + 1);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_JOURNAL_TOO_SMALL,
		      EJ_JSBR_TOO_LONG);
	expect_reason(jsb, &lib_ext_env, EJ_JOURNAL_TOO_SMALL,
		      EJ_JSBR_TOO_LONG);
	/* too small to be a journal: only the library's geometry says so */
	jsb->s_maxlen = cpu_to_be32(JBD2_MIN_JOURNAL_BLOCKS - 1);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, 0, EJ_JSBR_OK);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_MAXLEN);

	/* s_first: e2fsprogs never looks; on the superblock, or past it */
	fill_ext(jsb);
	jsb->s_first = cpu_to_be32(1);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, 0, EJ_JSBR_OK);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_FIRST);
	jsb->s_first = cpu_to_be32(MAXLEN);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_FIRST);

	fill_ext(jsb);
	jsb->s_start = cpu_to_be32(MAXLEN);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, 0, EJ_JSBR_OK);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_START);

	fill_ext(jsb);
	jsb->s_feature_incompat |= cpu_to_be32(0x100000);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_UNSUPP_FEATURE, EJ_JSBR_INCOMPAT);
	expect_reason(jsb, &lib_ext_env, EJ_UNSUPP_FEATURE,
		      EJ_JSBR_INCOMPAT);
	fill_ext(jsb);
	jsb->s_feature_ro_compat = cpu_to_be32(1);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_UNSUPP_FEATURE, EJ_JSBR_ROCOMPAT);
	fill_ext(jsb);
	jsb->s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_BOTH_CSUM);
	fill_ext(jsb);
	jsb->s_feature_incompat |=
		cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	jsb->s_num_fc_blks = cpu_to_be32(MAXLEN);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_FAST_COMMIT);
}

static void test_validate_csum(void **state)
{
	journal_superblock_t *jsb = *state;
	struct ej_jsb_result res;

	fill_ext(jsb);
	jsb->s_checksum_type = 2;
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_BAD_JSB, EJ_JSBR_CSUM_TYPE);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_CSUM_TYPE);

	fill_ext(jsb);
	jsb->s_checksum ^= cpu_to_be32(1);
	expect_reason(jsb, &e2fsck_env, EJ_JSB_CSUM, EJ_JSBR_CSUM);
	/* replay-all, refuse and the library use it, and remember */
	assert_int_equal(ej_jsb_validate(jsb, &lib_ext_env, &res), 0);
	assert_int_equal(res.problems, EJ_JSB_BAD_CSUM);
	/* before the block size in e2fsprogs' order */
	jsb->s_blocksize = cpu_to_be32(BS / 2);
	expect_reason(jsb, &e2fsck_env, EJ_JSB_CSUM, EJ_JSBR_CSUM);
	expect_reason(jsb, &lib_ext_env, EJ_BAD_JSB, EJ_JSBR_BLOCKSIZE);
}

static void test_validate_users(void **state)
{
	journal_superblock_t *jsb = *state;
	struct ej_jsb_env shared = e2fsck_env;

	fill_ext(jsb);
	jsb->s_nr_users = cpu_to_be32(2);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_EXT_MULTI_USER,
		      EJ_JSBR_MULTI_USERS);
	/* before the features, as e2fsprogs checks */
	jsb->s_feature_incompat |= cpu_to_be32(0x100000);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &e2fsck_env, EJ_EXT_MULTI_USER,
		      EJ_JSBR_MULTI_USERS);
	shared.flags = EJ_JSBV_SHARED_OK;
	expect_reason(jsb, &shared, EJ_UNSUPP_FEATURE, EJ_JSBR_INCOMPAT);

	/* external: a users list that names others, not this filesystem */
	fill_ext(jsb);
	jsb->s_users[0] ^= 0xff;
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &lib_ext_env, EJ_EXT_WRONG_FS, EJ_JSBR_NOT_USER);
	/* this filesystem second in the list */
	jsb->s_nr_users = cpu_to_be32(2);
	memcpy(jsb->s_users + 16, fs_uuid, sizeof(fs_uuid));
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &lib_ext_env, 0, EJ_JSBR_OK);
	/* an empty list excludes nobody (debugfs-attached journals) */
	memset(jsb->s_users, 0, 32);
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &lib_ext_env, 0, EJ_JSBR_OK);
	/* a users count past the list's end reads no further than it */
	jsb->s_nr_users = cpu_to_be32(0xffffffffU);
	jsb->s_users[47 * 16] = 1;
	ej_jsb_csum_set(jsb);
	expect_reason(jsb, &lib_ext_env, EJ_EXT_WRONG_FS, EJ_JSBR_NOT_USER);
}

/* The external device's ext2 superblock (host order). */
static void test_ext_sb(void **state)
{
	struct ext2_super_block es;
	enum ej_ext_reason why;

	memset(&es, 0, sizeof(es));
	es.s_magic = EXT2_SUPER_MAGIC;
	ext2fs_set_feature_journal_dev(&es);
	es.s_log_block_size = 2;		/* 4096 */
	ext2fs_blocks_count_set(&es, MAXLEN);
	memcpy(es.s_uuid, fs_uuid, sizeof(fs_uuid));
	assert_int_equal(ej_ext_sb_validate(&es, fs_uuid, BS, 1, &why), 0);
	assert_int_equal(why, EJ_EXTR_OK);
	/* the UUID the filesystem names, only when it names one */
	es.s_uuid[3] ^= 1;
	assert_int_equal(ej_ext_sb_validate(&es, fs_uuid, BS, 0, &why),
			 EJ_EXT_WRONG_FS);
	assert_int_equal(why, EJ_EXTR_WRONG_FS);
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 1, &why), 0);
	/* block size and room: the library's rules, not e2fsprogs' */
	es.s_log_block_size = 0;
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 0, &why), 0);
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 1, &why),
			 EJ_EXT_BAD_SB);
	assert_int_equal(why, EJ_EXTR_BLOCKSIZE);
	es.s_log_block_size = 40;
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 1, &why),
			 EJ_EXT_BAD_SB);
	es.s_log_block_size = 2;
	ext2fs_blocks_count_set(&es, 2);
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 1, &why),
			 EJ_EXT_BAD_SB);
	assert_int_equal(why, EJ_EXTR_TOO_SMALL);
	/* not a journal device: first, whatever else is wrong */
	ext2fs_clear_feature_journal_dev(&es);
	assert_int_equal(ej_ext_sb_validate(&es, fs_uuid, BS, 1, &why),
			 EJ_EXT_NOT_JOURNAL);
	assert_int_equal(why, EJ_EXTR_NOT_JOURNAL);
	ext2fs_set_feature_journal_dev(&es);
	es.s_magic = 0;
	assert_int_equal(ej_ext_sb_validate(&es, NULL, BS, 0, &why),
			 EJ_EXT_NOT_JOURNAL);
	assert_int_equal(ej_ext_sb_validate(NULL, NULL, BS, 0, &why),
			 EJ_BAD_ARG);
}

/* The journal inode, before its blocks are mapped. */
static void test_jinode(void **state)
{
	struct ext2_inode in;

	memset(&in, 0, sizeof(in));
	in.i_links_count = 1;
	in.i_mode = LINUX_S_IFREG | 0600;
	in.i_size = JBD2_MIN_JOURNAL_BLOCKS * BS;
	assert_int_equal(ej_jinode_validate(&in, BS), 0);
	in.i_size -= 1;
	assert_int_equal(ej_jinode_validate(&in, BS), EJ_JOURNAL_TOO_SMALL);
	/* i_size_high counts: a 4 GiB journal */
	in.i_size = 0;
	in.i_size_high = 1;
	assert_int_equal(ej_jinode_validate(&in, BS), 0);
	in.i_links_count = 0;
	assert_int_equal(ej_jinode_validate(&in, BS), EJ_BAD_JOURNAL_INODE);
	in.i_links_count = 1;
	in.i_mode = LINUX_S_IFDIR | 0700;
	assert_int_equal(ej_jinode_validate(&in, BS), EJ_BAD_JOURNAL_INODE);
	in.i_mode = LINUX_S_IFREG | 0600;
	in.i_flags = EXT4_ENCRYPT_FL;
	assert_int_equal(ej_jinode_validate(&in, BS), EJ_BAD_JOURNAL_INODE);
	in.i_flags = EXT4_INLINE_DATA_FL;
	assert_int_equal(ej_jinode_validate(&in, BS), EJ_BAD_JOURNAL_INODE);
	in.i_flags = EXT4_EXTENTS_FL;
	assert_int_equal(ej_jinode_validate(&in, BS), 0);
	assert_int_equal(ej_jinode_validate(NULL, BS), EJ_BAD_ARG);
	assert_int_equal(ej_jinode_validate(&in, 0), EJ_BAD_ARG);
}

static void test_validate_null_args(void **state)
{
	journal_superblock_t *jsb = *state;
	struct ej_jsb_result res;

	assert_int_equal(ej_jsb_validate(NULL, &e2fsck_env, &res),
			 EJ_BAD_ARG);
	assert_int_equal(ej_jsb_validate(jsb, NULL, &res), EJ_BAD_ARG);
	assert_int_equal(ej_jsb_validate(jsb, &e2fsck_env, NULL),
			 EJ_BAD_ARG);
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
		JSB_TEST(test_validate_ok),
		JSB_TEST(test_validate_magic_type),
		JSB_TEST(test_validate_fields),
		JSB_TEST(test_validate_csum),
		JSB_TEST(test_validate_users),
		JSB_TEST(test_validate_null_args),
		JSB_TEST(test_ext_sb),
		JSB_TEST(test_jinode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
