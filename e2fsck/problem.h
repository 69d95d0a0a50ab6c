/* SPDX-License-Identifier: GPL-2.0 */
/*
 * problem.h: the journal problems e2fsck can report, with e2fsck's codes,
 * wording, questions and answers under -p, -n, -y and on a terminal.
 */
#ifndef E2JOURNAL_PROBLEM_H
#define E2JOURNAL_PROBLEM_H

#include "e2fsck.h"

/* e2fsck's problem codes (problem.h of e2fsprogs), journal ones only. */
#define PR_0_JOURNAL_BAD_INODE			0x00000F
#define PR_0_JOURNAL_UNSUPP_MULTIFS		0x000010
#define PR_0_CANT_FIND_JOURNAL			0x000011
#define PR_0_EXT_JOURNAL_BAD_SUPER		0x000012
#define PR_0_JOURNAL_BAD_UUID			0x000013
#define PR_0_JOURNAL_BAD_SUPER			0x000015
#define PR_0_JOURNAL_HAS_JOURNAL		0x000016
#define PR_0_JOURNAL_RECOVER_SET		0x000017
#define PR_0_JOURNAL_RECOVERY_CLEAR		0x000018
#define PR_0_JOURNAL_RESET_JOURNAL		0x000019
#define PR_0_JOURNAL_UNSUPP_ROCOMPAT		0x000025
#define PR_0_JOURNAL_UNSUPP_INCOMPAT		0x000026
#define PR_0_JOURNAL_UNSUPP_VERSION		0x000027
#define PR_0_CLEAR_V2_JOURNAL			0x00002A
#define PR_0_JOURNAL_RUN			0x00002B
#define PR_0_JOURNAL_RUN_DEFAULT		0x00002C
#define PR_0_JNL_TXN_CORRUPT			0x00003A
#define PR_0_EXT_JOURNAL_SUPER_CSUM_INVALID	0x00004A
#define PR_6_RECREATE_JOURNAL			0x060001

/*
 * Ask about problem @code (its message takes @arg, if any) and return
 * the answer: 1 fix, 0 leave it.  Prints, prompts and halts exactly as
 * e2fsck does for the mode the command line chose.  During the journal
 * phase's rehearsal (ctx->rehearsal) nothing is printed and the answer is
 * the one the mode would give (and ctx->rehearsal notes whether a person
 * would be asked, or the run would stop).
 */
int fix_problem(struct e2fsck_ctx *ctx, int code, unsigned long long arg);

#endif /* E2JOURNAL_PROBLEM_H */
