// SPDX-License-Identifier: LGPL-2.0
/*
 * outcome.c: what the result of jbd2_journal_recover() means for the
 * programs that drive it.
 *
 * e2fsck's journal phase and "e2journal replay" read a recovery result
 * the same way: under replay-all and refuse an error that is no verdict
 * on the journal (memory, I/O) leaves everything for another run; refuse
 * with a corrupt journal replays nothing and keeps the journal; anything
 * else resets the journal, and corruption the policy flags (under stop,
 * e2fsprogs 1.47's own handling applies except for tags outside the
 * filesystem) marks the filesystem for a full check.  The library only
 * says so; the programs print in their own words and exit.
 */
#include <string.h>

#include "ej_lib.h"

/* fsck(8) exit codes */
#define EXIT_FLAGGED		1
#define EXIT_UNCORRECTED	4
#define EXIT_OPERATIONAL	8

/* jbd2_journal_recover()'s results that are verdicts on the journal. */
static int rc_is_verdict(int rc)
{
	return !rc || rc == -EFSBADCRC || rc == -EFSCORRUPTED;
}

static void finish_msgs(const struct ej_recovery_result *in,
			struct ej_outcome *out)
{
	if (in->rc == -EFSBADCRC) {
		out->msgs |= EJ_MSG_RC_CSUM;
	} else if (in->rc == -EFSCORRUPTED) {
		out->msgs |= EJ_MSG_RC_CORRUPT;
	} else if (in->rc) {
		out->msgs |= EJ_MSG_RC_ERROR;
		out->err = -in->rc;
	}
	if (in->policy == JBD2_POLICY_STOP) {
		if (!in->rc && in->failed_commit)
			out->msgs |= EJ_MSG_TXN_CORRUPT;
		/* the rule that holds under every policy */
		if (in->corrupt & JBD2_CORRUPT_OUT_OF_RANGE) {
			out->msgs |= EJ_MSG_OUT_OF_RANGE;
			out->flagged = 1;
		}
	} else if (in->corrupt) {
		out->msgs |= EJ_MSG_REPLAYED_ANYWAY;
		out->flagged = 1;
	}
}

void ej_recovery_outcome(const struct ej_recovery_result *in,
			 struct ej_outcome *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!in) {
		out->action = EJ_OUTCOME_KEEP;
		out->msgs = EJ_MSG_KEPT;
		out->err = EJ_BAD_ARG;
		out->exit_code = EXIT_OPERATIONAL;
		return;
	}
	if (in->policy != JBD2_POLICY_STOP && !rc_is_verdict(in->rc)) {
		out->action = EJ_OUTCOME_KEEP;
		out->msgs = EJ_MSG_KEPT;
		out->err = -in->rc;
		out->exit_code = EXIT_OPERATIONAL;
		return;
	}
	/* refuse gives -EFSCORRUPTED for a corrupt journal, unwritten */
	if (in->policy == JBD2_POLICY_REFUSE && in->rc == -EFSCORRUPTED &&
	    in->corrupt) {
		out->action = EJ_OUTCOME_REFUSED;
		out->msgs = EJ_MSG_REFUSED;
		out->exit_code = EXIT_UNCORRECTED;
		return;
	}
	out->action = EJ_OUTCOME_FINISH;
	finish_msgs(in, out);
	out->check = out->flagged || in->rc || in->corrupt ||
		     in->failed_commit;
	out->exit_code = out->check ? EXIT_FLAGGED : 0;
}
