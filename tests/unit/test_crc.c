// SPDX-License-Identifier: GPL-2.0
/*
 * test_crc.c: crc32c and crc32_be against known answers and libext2fs.
 *
 * ej_crc32c() is whatever this CPU dispatches to (SSE4.2 on most x86),
 * ej_crc32c_sw() the portable tables; both must agree bit for bit with
 * ext2fs_crc32c_le() for every length, alignment and seed, since journals
 * written by one are checked by the other.
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

#define MAX_LEN		9000
#define MAX_MISALIGN	16

static const char check_str[] = "123456789";

/* xorshift64*: reproducible data without touching rand()'s state. */
static __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static unsigned char *random_buf(size_t len, __u64 seed)
{
	unsigned char *buf = malloc(len);
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(rng_next(&seed) >> 56);
	return buf;
}

static void test_crc32c_known_answers(void **state)
{
	(void)state;
	/* The catalogued CRC-32C check value: seed ~0, inverted result. */
	assert_int_equal(ej_crc32c(~0U, check_str, 9) ^ ~0U, 0xe3069283U);
	assert_int_equal(ej_crc32c_sw(~0U, check_str, 9) ^ ~0U, 0xe3069283U);
	/* Raw register convention: the same as libext2fs. */
	assert_int_equal(ej_crc32c(~0U, check_str, 9),
			 ext2fs_crc32c_le(~0U, (const unsigned char *)check_str,
					  9));
	assert_int_equal(ej_crc32c(~0U, check_str, 9), 0x1cf96d7cU);
	/* No data: the register comes back untouched. */
	assert_int_equal(ej_crc32c(0x12345678U, NULL, 0), 0x12345678U);
	assert_int_equal(ej_crc32c_sw(0x12345678U, NULL, 0), 0x12345678U);
	/* A zero register stays zero over zero bytes (no pre-inversion). */
	{
		unsigned char zeros[4096] = { 0 };

		assert_int_equal(ej_crc32c(0, zeros, sizeof(zeros)), 0);
		assert_int_equal(ej_crc32c_sw(0, zeros, sizeof(zeros)), 0);
	}
	/* 32 bytes of 0xff, seed ~0, inverted (RFC 3720 B.4). */
	{
		unsigned char ones[32];

		memset(ones, 0xff, sizeof(ones));
		assert_int_equal(ej_crc32c(~0U, ones, 32) ^ ~0U, 0x62a8ab43U);
	}
}

static void test_crc32_be_known_answers(void **state)
{
	(void)state;
	/* CRC-32/MPEG-2 (seed ~0, no inversion) and CRC-32/BZIP2. */
	assert_int_equal(ej_crc32_be(~0U, check_str, 9), 0x0376e6e7U);
	assert_int_equal(ej_crc32_be(~0U, check_str, 9) ^ ~0U, 0xfc891918U);
	assert_int_equal(ej_crc32_be(~0U, check_str, 9),
			 ext2fs_crc32_be(~0U, (const unsigned char *)check_str,
					 9));
	assert_int_equal(ej_crc32_be(0xdeadbeefU, NULL, 0), 0xdeadbeefU);
}

static void test_crc32c_impl_name(void **state)
{
	const char *impl = ej_crc32c_impl();

	(void)state;
	assert_non_null(impl);
	assert_true(!strcmp(impl, "sse4.2") || !strcmp(impl, "sw") ||
		    !strcmp(impl, "vpclmulqdq"));
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2") &&
	    __builtin_cpu_supports("pclmul") &&
	    __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("vpclmulqdq"))
		assert_string_equal(impl, "vpclmulqdq");
	else
#endif
	if (__builtin_cpu_supports("sse4.2"))
		assert_string_equal(impl, "sse4.2");
	else
		assert_string_equal(impl, "sw");
#else
	assert_string_equal(impl, "sw");
#endif
	/* Stable across calls. */
	assert_string_equal(ej_crc32c_impl(), impl);
}

static void check_one(const unsigned char *p, size_t len, __u32 seed)
{
	__u32 ref = ext2fs_crc32c_le(seed, p, len);

	assert_int_equal(ej_crc32c(seed, p, len), ref);
	assert_int_equal(ej_crc32c_sw(seed, p, len), ref);
	assert_int_equal(ej_crc32_be(seed, p, len),
			 ext2fs_crc32_be(seed, p, len));
}

/* Every length across the 3-way stride boundaries, shifting alignment. */
static void test_crc_every_length(void **state)
{
	unsigned char *buf = random_buf(MAX_LEN + MAX_MISALIGN, 1);
	__u64 rng = 2;
	size_t len;

	(void)state;
	for (len = 0; len <= 4200; len++)
		check_one(buf + len % MAX_MISALIGN, len,
			  (__u32)rng_next(&rng));
	free(buf);
}

/* Thousands of random lengths, misalignments and seeds. */
static void test_crc_random(void **state)
{
	unsigned char *buf = random_buf(MAX_LEN + MAX_MISALIGN, 3);
	__u64 rng = 4, r;
	int i;

	(void)state;
	for (i = 0; i < 4000; i++) {
		r = rng_next(&rng);
		check_one(buf + (r >> 60), (size_t)(r % (MAX_LEN + 1)),
			  (__u32)(r >> 20));
	}
	free(buf);
}

/* Blocks the journal actually checksums, at their usual alignment. */
static void test_crc_block_sizes(void **state)
{
	static const size_t sizes[] = { 16, 1024, 2048, 4096, 8192, 65536 };
	unsigned char *buf = random_buf(65536 + 8, 5);
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		check_one(buf, sizes[i], ~0U);
		check_one(buf + 8, sizes[i], 0);
		check_one(buf + 3, sizes[i] - 3, 0xa5a5a5a5U);
	}
	free(buf);
}

/* crc(A B) == crc(crc(A), B): the journal chains over several blocks. */
static void test_crc_chaining(void **state)
{
	unsigned char *buf = random_buf(MAX_LEN, 6);
	__u64 rng = 7, r;
	size_t len, cut;
	__u32 whole;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		r = rng_next(&rng);
		len = (size_t)(r % (MAX_LEN + 1));
		cut = len ? (size_t)((r >> 32) % (len + 1)) : 0;
		whole = ej_crc32c(~0U, buf, len);
		assert_int_equal(ej_crc32c(ej_crc32c(~0U, buf, cut),
					   buf + cut, len - cut), whole);
		assert_int_equal(ej_crc32c_sw(ej_crc32c_sw(~0U, buf, cut),
					      buf + cut, len - cut), whole);
		whole = ej_crc32_be(~0U, buf, len);
		assert_int_equal(ej_crc32_be(ej_crc32_be(~0U, buf, cut),
					     buf + cut, len - cut), whole);
	}
	free(buf);
}

/* A single flipped bit anywhere in a 4 KiB block changes the crc. */
static void test_crc_detects_bit_flips(void **state)
{
	unsigned char *buf = random_buf(4096, 8);
	__u32 good = ej_crc32c(~0U, buf, 4096);
	size_t bit;

	(void)state;
	for (bit = 0; bit < 4096 * 8; bit += 61) {
		buf[bit / 8] ^= 1 << (bit % 8);
		assert_int_not_equal(ej_crc32c(~0U, buf, 4096), good);
		buf[bit / 8] ^= 1 << (bit % 8);
	}
	assert_int_equal(ej_crc32c(~0U, buf, 4096), good);
	free(buf);
}

/*
 * Every implementation this CPU can run, not only the one it picks: the
 * crc32 streams stay checked on CPUs that fold with VPCLMULQDQ.
 */
static void test_crc_each_impl(void **state)
{
	static const char *const names[] = { "sw", "sse4.2", "vpclmulqdq" };
	unsigned char *buf = random_buf(MAX_LEN + MAX_MISALIGN, 9);
	const char *best = ej_crc32c_impl();
	__u64 rng = 10, r;
	size_t i, len;
	int k, ran = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (ej_crc32c_use(names[i]))
			continue;
		ran++;
		assert_string_equal(ej_crc32c_impl(), names[i]);
		for (len = 0; len <= 4200; len += 7)
			check_one(buf + len % MAX_MISALIGN, len,
				  (__u32)rng_next(&rng));
		for (k = 0; k < 500; k++) {
			r = rng_next(&rng);
			check_one(buf + (r >> 60), (size_t)(r % (MAX_LEN + 1)),
				  (__u32)(r >> 20));
		}
		check_one(buf, 65536 > MAX_LEN ? MAX_LEN : 65536, ~0U);
	}
	assert_int_equal(ej_crc32c_use(NULL), 0);
	assert_string_equal(ej_crc32c_impl(), best);
	assert_int_equal(ej_crc32c_use("no-such"), -1);
	assert_string_equal(ej_crc32c_impl(), best);
	/* the portable one at least, and the one picked */
	assert_true(ran >= (strcmp(best, "sw") ? 2 : 1));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_known_answers),
		cmocka_unit_test(test_crc32_be_known_answers),
		cmocka_unit_test(test_crc32c_impl_name),
		cmocka_unit_test(test_crc_every_length),
		cmocka_unit_test(test_crc_random),
		cmocka_unit_test(test_crc_block_sizes),
		cmocka_unit_test(test_crc_chaining),
		cmocka_unit_test(test_crc_detects_bit_flips),
		cmocka_unit_test(test_crc_each_impl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
