// SPDX-License-Identifier: GPL-2.0
/*
 * test_outcome.c: ej_recovery_outcome(), the one reading of a recovery
 * result that e2fsck's journal phase and "e2journal replay" share.
 *
 * Each case is a result recovery.c gives (policy, return value,
 * corruption found, failed commit) and what both programs must make of
 * it: keep, refuse or reset the journal, what to say, whether the
 * filesystem is flagged and checked in full, and the exit status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ej_lib.h"

struct outcome_case {
	const char		*what;
	struct ej_recovery_result in;
	enum ej_outcome_action	action;
	unsigned int		msgs;
	int			flagged, check, exit_code;
	errcode_t		err;
};

#define RA	JBD2_POLICY_REPLAY_ALL
#define ST	JBD2_POLICY_STOP
#define RF	JBD2_POLICY_REFUSE
#define FIN	EJ_OUTCOME_FINISH

static const struct outcome_case cases[] = {
	/* clean logs */
	{ "replay-all, clean", { RA, 0, 0, 0 }, FIN, 0, 0, 0, 0, 0 },
	{ "stop, clean", { ST, 0, 0, 0 }, FIN, 0, 0, 0, 0, 0 },
	{ "refuse, clean", { RF, 0, 0, 0 }, FIN, 0, 0, 0, 0, 0 },
	/* replay-all replays what it can and flags the rest */
	{ "replay-all, bad commit", { RA, 0, JBD2_CORRUPT_COMMIT_CSUM, 0 },
	  FIN, EJ_MSG_REPLAYED_ANYWAY, 1, 1, 1, 0 },
	{ "replay-all, tags outside", { RA, 0, JBD2_CORRUPT_OUT_OF_RANGE, 0 },
	  FIN, EJ_MSG_REPLAYED_ANYWAY, 1, 1, 1, 0 },
	{ "replay-all, s_start outside the log",
	  { RA, -EFSCORRUPTED, JBD2_CORRUPT_SUPERBLOCK, 0 },
	  FIN, EJ_MSG_RC_CORRUPT | EJ_MSG_REPLAYED_ANYWAY, 1, 1, 1, 0 },
	/* no verdict on the journal: everything kept for another run */
	{ "replay-all, I/O error", { RA, -EIO, 0, 0 },
	  EJ_OUTCOME_KEEP, EJ_MSG_KEPT, 0, 0, 8, EIO },
	{ "refuse, out of memory", { RF, -ENOMEM, JBD2_CORRUPT_DATA_CSUM, 0 },
	  EJ_OUTCOME_KEEP, EJ_MSG_KEPT, 0, 0, 8, ENOMEM },
	/* refuse: a corrupt journal is left as it is */
	{ "refuse, bad data block",
	  { RF, -EFSCORRUPTED, JBD2_CORRUPT_DATA_CSUM, 0 },
	  EJ_OUTCOME_REFUSED, EJ_MSG_REFUSED, 0, 0, 4, 0 },
	{ "refuse, superblock checksum",
	  { RF, -EFSCORRUPTED, JBD2_CORRUPT_SUPERBLOCK, 0 },
	  EJ_OUTCOME_REFUSED, EJ_MSG_REFUSED, 0, 0, 4, 0 },
	/* stop: e2fsprogs 1.47, which resets the journal whatever happened */
	{ "stop, failed commit", { ST, 0, JBD2_CORRUPT_COMMIT_CSUM, 7 },
	  FIN, EJ_MSG_TXN_CORRUPT, 0, 1, 1, 0 },
	{ "stop, checksum error", { ST, -EFSBADCRC, JBD2_CORRUPT_DATA_CSUM, 0 },
	  FIN, EJ_MSG_RC_CSUM, 0, 1, 1, 0 },
	{ "stop, corrupted", { ST, -EFSCORRUPTED, JBD2_CORRUPT_GARBLED, 3 },
	  FIN, EJ_MSG_RC_CORRUPT, 0, 1, 1, 0 },
	{ "stop, I/O error", { ST, -EIO, JBD2_CORRUPT_IO_ERROR, 0 },
	  FIN, EJ_MSG_RC_ERROR, 0, 1, 1, EIO },
	/* ... except that it never writes outside the filesystem, and says */
	{ "stop, tags outside", { ST, 0, JBD2_CORRUPT_OUT_OF_RANGE, 0 },
	  FIN, EJ_MSG_OUT_OF_RANGE, 1, 1, 1, 0 },
};

static void test_cases(void **state)
{
	struct ej_outcome o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct outcome_case *c = &cases[i];

		print_message("%s\n", c->what);
		memset(&o, 0xa5, sizeof(o));
		ej_recovery_outcome(&c->in, &o);
		assert_int_equal(o.action, c->action);
		assert_int_equal(o.msgs, c->msgs);
		assert_int_equal(o.flagged, c->flagged);
		assert_int_equal(o.check, c->check);
		assert_int_equal(o.exit_code, c->exit_code);
		assert_int_equal(o.err, c->err);
	}
}

/* What the two programs print and exit with follows from these alone. */
static void test_exit_follows(void **state)
{
	static const int policies[] = { RA, ST, RF };
	static const int rcs[] = { 0, -EFSBADCRC, -EFSCORRUPTED, -EIO };
	static const unsigned int corrupt[] = {
		0, JBD2_CORRUPT_OUT_OF_RANGE, JBD2_CORRUPT_DATA_CSUM,
	};
	struct ej_recovery_result in = { 0 };
	struct ej_outcome o;
	size_t p, r, c;

	for (p = 0; p < 3; p++)
		for (r = 0; r < 4; r++)
			for (c = 0; c < 3; c++) {
				in.policy = policies[p];
				in.rc = rcs[r];
				in.corrupt = corrupt[c];
				ej_recovery_outcome(&in, &o);
				if (o.action == EJ_OUTCOME_KEEP)
					assert_int_equal(o.exit_code, 8);
				else if (o.action == EJ_OUTCOME_REFUSED)
					assert_int_equal(o.exit_code, 4);
				else
					assert_int_equal(o.exit_code,
							 o.check ? 1 : 0);
				/* flagged means checked */
				assert_true(!o.flagged || o.check);
				/* stop never keeps nor refuses */
				if (in.policy == ST)
					assert_int_equal(o.action,
							 EJ_OUTCOME_FINISH);
			}
}

static void test_null(void **state)
{
	struct ej_outcome o;

	ej_recovery_outcome(NULL, &o);
	assert_int_equal(o.action, EJ_OUTCOME_KEEP);
	assert_int_equal(o.err, EJ_BAD_ARG);
	assert_int_equal(o.exit_code, 8);
	ej_recovery_outcome(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_exit_follows),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
