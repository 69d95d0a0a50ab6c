// SPDX-License-Identifier: GPL-2.0
/*
 * test_verdict.c: ej_verdict_decide() and ej_verdict_jsb(), input by input.
 *
 * Each rule that may change what recovery.c decided is held against
 * every verdict recovery.c can hand over: the overrides (skip and force,
 * with and without the log block's data), --upto (tid order wraps),
 * the host's range check, an unreadable log block and a journal
 * superblock that failed its checksum under each policy.  The expected
 * answers are spelled out here, not computed by the code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ej_int.h"

/* Inputs that change nothing: data read, block in range, no requests. */
static struct ej_verdict_in neutral(int verdict)
{
	struct ej_verdict_in in = {
		.policy_verdict	= verdict,
		.policy		= JBD2_POLICY_REPLAY_ALL,
		.tid		= 100,
		.have_data	= 1,
		.in_range	= 1,
	};

	return in;
}

static void expect(const struct ej_verdict_in *in, int verdict, int why,
		   unsigned int corrupt)
{
	struct ej_verdict_out out;

	memset(&out, 0xa5, sizeof(out));
	ej_verdict_decide(in, &out);
	if (out.verdict != verdict || out.why != why ||
	    out.corrupt != corrupt)
		fail_msg("recovery said %s (tid %u, data %d, range %d, skip %d, force %d, upto %d:%u, policy %d, jsb bad %d): got %s/%s/%#x, want %s/%s/%#x",
			 ej_verdict_name(in->policy_verdict), in->tid,
			 in->have_data, in->in_range, in->user_skip,
			 in->user_force, in->upto_set, in->upto_tid,
			 in->policy, in->jsb_bad_csum,
			 ej_verdict_name(out.verdict),
			 ej_verdict_why_name(out.why), out.corrupt,
			 ej_verdict_name(verdict), ej_verdict_why_name(why),
			 corrupt);
}

/* What a person may force: skipped by policy or checksum, never range. */
static int may_force(int v)
{
	switch (v) {
	case JBD2_BLOCK_BAD_CSUM:
	case JBD2_BLOCK_UNTRUSTED_DESC:
	case JBD2_BLOCK_ASYNC_TAIL:
	case JBD2_BLOCK_NOT_REPLAYED:
		return 1;
	}
	return 0;
}

static void test_policy_stands(void **state)
{
	struct ej_verdict_in in;
	int v;

	(void)state;
	for (v = 0; v < JBD2_BLOCK_VERDICT_MAX; v++) {
		in = neutral(v);
		expect(&in, v, EJ_WHY_POLICY, 0);
	}
	/* nothing recovery.c could mean is written */
	in = neutral(JBD2_BLOCK_VERDICT_MAX);
	expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_POLICY, 0);
	in = neutral(-1);
	expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_POLICY, 0);
}

static void test_overrides(void **state)
{
	struct ej_verdict_in in;
	int v;

	(void)state;
	for (v = 0; v < JBD2_BLOCK_VERDICT_MAX; v++) {
		/* skip: only a block that would be written */
		in = neutral(v);
		in.user_skip = 1;
		if (v == JBD2_BLOCK_REPLAYED)
			expect(&in, JBD2_BLOCK_USER_SKIP, EJ_WHY_USER_SKIP, 0);
		else
			expect(&in, v, EJ_WHY_POLICY, 0);

		/* force: only what may be forced, and only with its data */
		in = neutral(v);
		in.user_force = 1;
		if (may_force(v))
			expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_USER_FORCE, 0);
		else
			expect(&in, v, EJ_WHY_POLICY, 0);
		in.have_data = 0;
		if (v == JBD2_BLOCK_REPLAYED)
			expect(&in, JBD2_BLOCK_IO_ERROR, EJ_WHY_NO_DATA, 0);
		else
			expect(&in, v, EJ_WHY_POLICY, 0);

		/* both named: skip wins where the block would be written */
		in = neutral(v);
		in.user_skip = 1;
		in.user_force = 1;
		if (v == JBD2_BLOCK_REPLAYED)
			expect(&in, JBD2_BLOCK_USER_SKIP, EJ_WHY_USER_SKIP, 0);
		else if (may_force(v))
			expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_USER_FORCE, 0);
		else
			expect(&in, v, EJ_WHY_POLICY, 0);
	}
}

static void test_upto(void **state)
{
	struct ej_verdict_in in;
	int v;

	(void)state;
	in = neutral(JBD2_BLOCK_REPLAYED);
	in.upto_set = 1;
	in.upto_tid = 100;
	expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_POLICY, 0);
	in.tid = 99;
	expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_POLICY, 0);
	in.tid = 101;
	expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_UPTO, 0);
	/* unset, the same tid is written */
	in.upto_set = 0;
	expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_POLICY, 0);

	/* tids wrap: 5 comes after 0xfffffff0 */
	in = neutral(JBD2_BLOCK_REPLAYED);
	in.upto_set = 1;
	in.upto_tid = 0xfffffff0U;
	in.tid = 5;
	expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_UPTO, 0);
	in.tid = 0xffffffe0U;
	expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_POLICY, 0);

	/* a force override reaches past --upto */
	in = neutral(JBD2_BLOCK_REPLAYED);
	in.upto_set = 1;
	in.upto_tid = 50;
	in.user_force = 1;
	expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_USER_FORCE, 0);

	/* --upto never turns a skipped block into another verdict */
	for (v = 1; v < JBD2_BLOCK_VERDICT_MAX; v++) {
		in = neutral(v);
		in.upto_set = 1;
		in.upto_tid = 50;
		expect(&in, v, EJ_WHY_POLICY, 0);
	}
}

static void test_range_and_data(void **state)
{
	struct ej_verdict_in in;
	int v;

	(void)state;
	in = neutral(JBD2_BLOCK_REPLAYED);
	in.in_range = 0;
	expect(&in, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_RANGE,
	       JBD2_CORRUPT_OUT_OF_RANGE);
	/* a forced block is held to the range too */
	in = neutral(JBD2_BLOCK_BAD_CSUM);
	in.user_force = 1;
	in.in_range = 0;
	expect(&in, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_RANGE,
	       JBD2_CORRUPT_OUT_OF_RANGE);
	/* recovery's own out-of-range verdict cannot be forced */
	in = neutral(JBD2_BLOCK_OUT_OF_RANGE);
	in.user_force = 1;
	in.in_range = 0;
	expect(&in, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_POLICY, 0);
	/* a block not written raises nothing, wherever it points */
	for (v = 1; v < JBD2_BLOCK_VERDICT_MAX; v++) {
		in = neutral(v);
		in.in_range = 0;
		expect(&in, v, EJ_WHY_POLICY, 0);
	}
	/* written, but its log block was not read */
	in = neutral(JBD2_BLOCK_REPLAYED);
	in.have_data = 0;
	expect(&in, JBD2_BLOCK_IO_ERROR, EJ_WHY_NO_DATA, 0);
	/* range comes first */
	in.in_range = 0;
	expect(&in, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_RANGE,
	       JBD2_CORRUPT_OUT_OF_RANGE);
}

static void test_superblock_trust(void **state)
{
	static const struct {
		int	policy;
		int	bad;
		int	jsb;		/* ej_verdict_jsb() */
	} rows[] = {
		{ JBD2_POLICY_REPLAY_ALL, 0, EJ_JSB_TRUSTED },
		{ JBD2_POLICY_REPLAY_ALL, 1, EJ_JSB_TRUSTED },
		{ JBD2_POLICY_STOP, 0, EJ_JSB_TRUSTED },
		{ JBD2_POLICY_STOP, 1, EJ_JSB_SKIP },
		{ JBD2_POLICY_REFUSE, 0, EJ_JSB_TRUSTED },
		{ JBD2_POLICY_REFUSE, 1, EJ_JSB_REFUSE },
	};
	struct ej_verdict_in in;
	size_t i;
	int v;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int trusted = rows[i].jsb == EJ_JSB_TRUSTED;

		assert_int_equal(ej_verdict_jsb(rows[i].policy, rows[i].bad),
				 rows[i].jsb);
		in = neutral(JBD2_BLOCK_REPLAYED);
		in.policy = rows[i].policy;
		in.jsb_bad_csum = rows[i].bad;
		if (trusted)
			expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_POLICY, 0);
		else
			expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_JSB, 0);
		/* nor does forcing write into an untrusted journal's fs */
		in = neutral(JBD2_BLOCK_NOT_REPLAYED);
		in.policy = rows[i].policy;
		in.jsb_bad_csum = rows[i].bad;
		in.user_force = 1;
		if (trusted)
			expect(&in, JBD2_BLOCK_REPLAYED, EJ_WHY_USER_FORCE, 0);
		else
			expect(&in, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_JSB, 0);
		/* range and unread blocks keep their own verdicts */
		in = neutral(JBD2_BLOCK_REPLAYED);
		in.policy = rows[i].policy;
		in.jsb_bad_csum = rows[i].bad;
		in.in_range = 0;
		expect(&in, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_RANGE,
		       JBD2_CORRUPT_OUT_OF_RANGE);
		in.in_range = 1;
		in.have_data = 0;
		expect(&in, JBD2_BLOCK_IO_ERROR, EJ_WHY_NO_DATA, 0);
		/* skipped blocks stay as they are */
		for (v = 1; v < JBD2_BLOCK_VERDICT_MAX; v++) {
			in = neutral(v);
			in.policy = rows[i].policy;
			in.jsb_bad_csum = rows[i].bad;
			expect(&in, v, EJ_WHY_POLICY, 0);
		}
	}
}

static void test_why_names(void **state)
{
	int w;

	(void)state;
	for (w = 0; w < EJ_WHY_MAX; w++)
		assert_string_not_equal(ej_verdict_why_name(w), "unknown");
	assert_string_equal(ej_verdict_why_name(EJ_WHY_MAX), "unknown");
	assert_string_equal(ej_verdict_why_name(-1), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_stands),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_upto),
		cmocka_unit_test(test_range_and_data),
		cmocka_unit_test(test_superblock_trust),
		cmocka_unit_test(test_why_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
