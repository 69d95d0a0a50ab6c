// SPDX-License-Identifier: GPL-2.0
/*
 * test_revoke.c: the revoke table.
 *
 * A record (B, T) suppresses B in every transaction with tid <= T, tids
 * compared modulo 2^32.  Getting this wrong either replays stale metadata
 * over reused blocks or drops a legitimate write.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "jfs_user.h"

static int setup_journal(void **state)
{
	journal_t *j = calloc(1, sizeof(*j));

	if (!j)
		return -1;
	if (jbd2_journal_init_revoke(j, 1024)) {
		free(j);
		return -1;
	}
	*state = j;
	return 0;
}

static int teardown_journal(void **state)
{
	journal_t *j = *state;

	jbd2_journal_destroy_revoke(j);
	assert_null(j->j_revoke);
	free(j);
	return 0;
}

static void test_set_and_test(void **state)
{
	journal_t *j = *state;

	assert_int_equal(jbd2_journal_test_revoke(j, 100, 1), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, 100, 10), 0);
	/* Revoked for every transaction up to and including tid 10. */
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 10), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 9), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 1), 1);
	/* Later transactions may write the block again. */
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 11), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 1000), 0);
	/* Neighbours are untouched. */
	assert_int_equal(jbd2_journal_test_revoke(j, 99, 1), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 101, 1), 0);
	/* Setting the same record again changes nothing. */
	assert_int_equal(jbd2_journal_set_revoke(j, 100, 10), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 10), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 100, 11), 0);
}

static void test_raise_tid(void **state)
{
	journal_t *j = *state;

	assert_int_equal(jbd2_journal_set_revoke(j, 7, 5), 0);
	/* An older record never lowers the stored tid. */
	assert_int_equal(jbd2_journal_set_revoke(j, 7, 3), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 7, 5), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 7, 6), 0);
	/* A newer one raises it. */
	assert_int_equal(jbd2_journal_set_revoke(j, 7, 9), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 7, 9), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 7, 10), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, 7, 8), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 7, 9), 1);
}

static void test_tid_wrap(void **state)
{
	journal_t *j = *state;

	/* A record just before the wrap. */
	assert_int_equal(jbd2_journal_set_revoke(j, 1, 0xfffffff0U), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 1, 0xffffff00U), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 1, 0xfffffff0U), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 1, 0xfffffff1U), 0);
	/* Transactions after the wrap are newer than the record. */
	assert_int_equal(jbd2_journal_test_revoke(j, 1, 0), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 1, 5), 0);

	/* A record after the wrap covers the transactions before it. */
	assert_int_equal(jbd2_journal_set_revoke(j, 2, 5), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 2, 0xfffffffeU), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 2, 0xffffffffU), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 2, 0), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 2, 5), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 2, 6), 0);

	/* Raising across the wrap: tid 2 is newer than 0xffffffff. */
	assert_int_equal(jbd2_journal_set_revoke(j, 3, 0xffffffffU), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, 3, 2), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 1), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 2), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 3), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 0xfffffff0U), 1);
	/* ...and the pre-wrap tid does not lower it again. */
	assert_int_equal(jbd2_journal_set_revoke(j, 3, 0xfffffffeU), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 2), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 3, 3), 0);
}

static void test_clear(void **state)
{
	journal_t *j = *state;
	unsigned long long b;

	for (b = 0; b < 5000; b++)
		assert_int_equal(jbd2_journal_set_revoke(j, b, 100), 0);
	jbd2_journal_clear_revoke(j);
	assert_non_null(j->j_revoke);
	for (b = 0; b < 5000; b++)
		assert_int_equal(jbd2_journal_test_revoke(j, b, 1), 0);
	/* Still usable afterwards, and grows again. */
	for (b = 0; b < 5000; b++)
		assert_int_equal(jbd2_journal_set_revoke(j, b * 3, 7), 0);
	for (b = 0; b < 15000; b++)
		assert_int_equal(jbd2_journal_test_revoke(j, b, 7),
				 b % 3 == 0);
	jbd2_journal_clear_revoke(j);
	jbd2_journal_clear_revoke(j);
	assert_int_equal(jbd2_journal_test_revoke(j, 0, 0), 0);
}

static void test_64bit_blocks(void **state)
{
	journal_t *j = *state;
	const unsigned long long lo = 0x1234ULL;
	const unsigned long long hi = lo | (1ULL << 32);

	/* Blocks that differ only above bit 31 are different blocks. */
	assert_int_equal(jbd2_journal_set_revoke(j, hi, 4), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, hi, 4), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, lo, 4), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, lo, 2), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, lo, 3), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, hi, 3), 1);

	/* The extremes of the block number range. */
	assert_int_equal(jbd2_journal_set_revoke(j, 0, 1), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, ~0ULL, 1), 0);
	assert_int_equal(jbd2_journal_set_revoke(j, 1ULL << 63, 1), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, 0, 1), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, ~0ULL, 1), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, 1ULL << 63, 1), 1);
	assert_int_equal(jbd2_journal_test_revoke(j, ~0ULL - 1, 1), 0);
	assert_int_equal(jbd2_journal_test_revoke(j, (1ULL << 63) + 1, 1), 0);
}

static unsigned long long mix64(unsigned long long x)
{
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

#define NR_BIG	1000000ULL

/* Growth from a small table to a million records, none lost. */
static void test_million_records(void **state)
{
	journal_t *j = *state;
	unsigned long long i, b;
	tid_t t;

	for (i = 0; i < NR_BIG; i++) {
		/* Half sequential runs (real revokes), half scattered 64-bit. */
		b = (i & 1) ? mix64(i) : 1000000000ULL + i;
		assert_int_equal(jbd2_journal_set_revoke(j, b, (tid_t)i), 0);
	}
	for (i = 0; i < NR_BIG; i++) {
		b = (i & 1) ? mix64(i) : 1000000000ULL + i;
		t = (tid_t)i;
		if (!jbd2_journal_test_revoke(j, b, t) ||
		    jbd2_journal_test_revoke(j, b, t + 1))
			fail_msg("record %llu (block %llu) wrong", i, b);
	}
	/* Blocks never revoked are not found. */
	for (i = 0; i < 100000; i++) {
		b = 2000000000ULL + i;
		if (jbd2_journal_test_revoke(j, b, 0))
			fail_msg("block %llu revoked but never set", b);
	}
	/* Raising tids in the big table. */
	for (i = 0; i < NR_BIG; i += 997) {
		b = (i & 1) ? mix64(i) : 1000000000ULL + i;
		assert_int_equal(jbd2_journal_set_revoke(j, b,
						(tid_t)i + 10), 0);
		assert_int_equal(jbd2_journal_test_revoke(j, b,
						(tid_t)i + 10), 1);
	}
	jbd2_journal_clear_revoke(j);
	for (i = 0; i < NR_BIG; i += 1009) {
		b = (i & 1) ? mix64(i) : 1000000000ULL + i;
		assert_int_equal(jbd2_journal_test_revoke(j, b, 0), 0);
	}
}

static void test_lifecycle(void **state)
{
	journal_t j;

	(void)state;
	memset(&j, 0, sizeof(j));
	/* No table: nothing is revoked and records cannot be added. */
	assert_int_equal(jbd2_journal_test_revoke(&j, 1, 1), 0);
	assert_int_equal(jbd2_journal_set_revoke(&j, 1, 1), -EINVAL);
	jbd2_journal_clear_revoke(&j);
	jbd2_journal_destroy_revoke(&j);

	/* Odd size hints are only hints. */
	assert_int_equal(jbd2_journal_init_revoke(&j, -5), 0);
	assert_int_equal(jbd2_journal_set_revoke(&j, 9, 9), 0);
	/* A second init empties the table rather than leaking it. */
	assert_int_equal(jbd2_journal_init_revoke(&j, 1 << 30), 0);
	assert_int_equal(jbd2_journal_test_revoke(&j, 9, 9), 0);
	jbd2_journal_destroy_revoke(&j);
	assert_null(j.j_revoke);
	jbd2_journal_destroy_revoke(&j);

	assert_int_equal(jbd2_journal_init_revoke(&j, 0), 0);
	assert_int_equal(jbd2_journal_set_revoke(&j, 9, 9), 0);
	assert_int_equal(jbd2_journal_test_revoke(&j, 9, 9), 1);
	jbd2_journal_destroy_revoke(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_and_test,
						setup_journal,
						teardown_journal),
		cmocka_unit_test_setup_teardown(test_raise_tid, setup_journal,
						teardown_journal),
		cmocka_unit_test_setup_teardown(test_tid_wrap, setup_journal,
						teardown_journal),
		cmocka_unit_test_setup_teardown(test_clear, setup_journal,
						teardown_journal),
		cmocka_unit_test_setup_teardown(test_64bit_blocks,
						setup_journal,
						teardown_journal),
		cmocka_unit_test_setup_teardown(test_million_records,
						setup_journal,
						teardown_journal),
		cmocka_unit_test(test_lifecycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
