// SPDX-License-Identifier: LGPL-2.0
/*
 * verdict.c: the one place where a logged block's fate is settled.
 *
 * recovery.c judges each tag by the journal alone (policy, checksums,
 * revokes, its own range check) and hands that verdict to report.c's
 * hook.  What the person asked for (per-block overrides, --upto) and
 * what the host knows (whether it may write the block, whether the log
 * block could be read, whether the journal superblock is trusted) can
 * still change it: ej_verdict_decide() applies them, in a fixed order,
 * and says why the final verdict is what it is.  report.c records the
 * answer; jglue.c, e2fsck and e2journal only carry it out.
 *
 * No I/O and no state: every input is in struct ej_verdict_in, so the
 * unit test (tests/unit/test_verdict.c) can hold each rule on its own.
 */
#include "ej_int.h"

int ej_verdict_jsb(int policy, int jsb_bad_csum)
{
	/*
	 * A superblock whose checksum failed is used under replay-all
	 * (every block is still checked on its own); "stop" resets such a
	 * journal without replaying it, as e2fsprogs 1.47 does, and
	 * "refuse" refuses it.
	 */
	if (!jsb_bad_csum || policy == JBD2_POLICY_REPLAY_ALL)
		return EJ_JSB_TRUSTED;
	return policy == JBD2_POLICY_REFUSE ? EJ_JSB_REFUSE : EJ_JSB_SKIP;
}

/* Skipped blocks a person may still have written (never OUT_OF_RANGE). */
static int forceable(int verdict)
{
	return verdict == JBD2_BLOCK_BAD_CSUM ||
	       verdict == JBD2_BLOCK_UNTRUSTED_DESC ||
	       verdict == JBD2_BLOCK_ASYNC_TAIL ||
	       verdict == JBD2_BLOCK_NOT_REPLAYED;
}

static void set(struct ej_verdict_out *out, int verdict, int why)
{
	out->verdict = verdict;
	out->why = why;
}

void ej_verdict_decide(const struct ej_verdict_in *in,
		       struct ej_verdict_out *out)
{
	int v = in->policy_verdict;

	out->corrupt = 0;
	if (v < 0 || v >= JBD2_BLOCK_VERDICT_MAX)
		v = JBD2_BLOCK_NOT_REPLAYED;
	set(out, v, EJ_WHY_POLICY);

	/* what the person asked for: --upto, then the overrides */
	if (v == JBD2_BLOCK_REPLAYED && in->upto_set &&
	    tid_gt(in->tid, in->upto_tid))
		set(out, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_UPTO);
	if (out->verdict == JBD2_BLOCK_REPLAYED && in->user_skip)
		set(out, JBD2_BLOCK_USER_SKIP, EJ_WHY_USER_SKIP);
	else if (forceable(out->verdict) && in->have_data && in->user_force)
		set(out, JBD2_BLOCK_REPLAYED, EJ_WHY_USER_FORCE);

	if (out->verdict != JBD2_BLOCK_REPLAYED)
		return;
	/*
	 * recovery.c checks the range itself; this catches a forced block
	 * and anything it missed, so that no host ever writes there.
	 */
	if (!in->in_range) {
		set(out, JBD2_BLOCK_OUT_OF_RANGE, EJ_WHY_RANGE);
		out->corrupt |= JBD2_CORRUPT_OUT_OF_RANGE;
	} else if (!in->have_data) {
		set(out, JBD2_BLOCK_IO_ERROR, EJ_WHY_NO_DATA);
	} else if (ej_verdict_jsb(in->policy, in->jsb_bad_csum) !=
		   EJ_JSB_TRUSTED) {
		set(out, JBD2_BLOCK_NOT_REPLAYED, EJ_WHY_JSB);
	}
}

const char *ej_verdict_why_name(int why)
{
	static const char *const names[EJ_WHY_MAX] = {
		[EJ_WHY_POLICY]		= "policy",
		[EJ_WHY_UPTO]		= "upto",
		[EJ_WHY_USER_SKIP]	= "user_skip",
		[EJ_WHY_USER_FORCE]	= "user_force",
		[EJ_WHY_RANGE]		= "range",
		[EJ_WHY_NO_DATA]	= "no_data",
		[EJ_WHY_JSB]		= "superblock",
	};

	if (why < 0 || why >= EJ_WHY_MAX)
		return "unknown";
	return names[why];
}
