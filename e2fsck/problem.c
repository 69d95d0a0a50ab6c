// SPDX-License-Identifier: GPL-2.0
/*
 * problem.c: asking about journal problems the way e2fsck asks.
 *
 * Only the problems of e2fsck's journal check are here: the rest of
 * e2fsck's problem table belongs to the engine.  The messages are
 * e2fsck's, already expanded, so that people and scripts that know
 * e2fsck read the same words; so are the answers each mode gives.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "e2fsck.h"
#include "problem.h"

/* The question asked after a message. */
enum prompt {
	PROMPT_NONE = 0,	/* a statement: nothing asked */
	PROMPT_FIX,
	PROMPT_CLEAR,
	PROMPT_ABORT,
	PROMPT_RECREATE,
	PROMPT_NULL,		/* the message is the question */
};

static const char *const prompt_word[] = {
	[PROMPT_NONE]		= "",
	[PROMPT_FIX]		= "Fix",
	[PROMPT_CLEAR]		= "Clear",
	[PROMPT_ABORT]		= "Abort",
	[PROMPT_RECREATE]	= "Recreate",
	[PROMPT_NULL]		= "",
};

/* What preen mode prints instead of asking. */
static const char *const preen_word[] = {
	[PROMPT_NONE]		= "(NONE)",
	[PROMPT_FIX]		= "FIXED",
	[PROMPT_CLEAR]		= "CLEARED",
	[PROMPT_ABORT]		= "ABORTED",
	[PROMPT_RECREATE]	= "WILL RECREATE",
	[PROMPT_NULL]		= "",
};

/* Problem flags, with e2fsck's meaning. */
#define PR_PREEN_OK	0x0001	/* preen mode may fix it */
#define PR_NO_OK	0x0002	/* answering no leaves the fs valid */
#define PR_FATAL	0x0004	/* e2fsck cannot go on */
#define PR_PREEN_NOMSG	0x0008	/* preen mode keeps quiet */
/* e2journal: a person's answer may lead to a replay (journal.c) */
#define PR_DECIDES	0x0100

struct problem {
	int		code;
	const char	*msg;		/* may take one %llu */
	enum prompt	prompt;
	unsigned int	flags;
};

static const struct problem problems[] = {
	{ PR_0_JOURNAL_BAD_INODE,
	  "Superblock has an invalid journal (inode %llu).\n",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_JOURNAL_UNSUPP_MULTIFS,
	  "External journal has multiple filesystem users (unsupported).\n",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_CANT_FIND_JOURNAL,
	  "Can't find external journal\n",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_EXT_JOURNAL_BAD_SUPER,
	  "External journal has bad superblock\n",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_JOURNAL_BAD_UUID,
	  "External journal does not support this filesystem\n",
	  PROMPT_NONE, PR_FATAL },
	{ PR_0_JOURNAL_BAD_SUPER,
	  "Journal superblock is corrupt.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_HAS_JOURNAL,
	  "Superblock has_journal flag is clear, but a journal is present.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_DECIDES },
	{ PR_0_JOURNAL_RECOVER_SET,
	  "Superblock needs_recovery flag is set, but no journal is present.\n",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_JOURNAL_RECOVERY_CLEAR,
	  "Superblock needs_recovery flag is clear, but journal has data.\n",
	  PROMPT_NONE, 0 },
	{ PR_0_JOURNAL_RESET_JOURNAL,
	  "Clear journal",
	  PROMPT_NULL, PR_PREEN_NOMSG },
	{ PR_0_JOURNAL_UNSUPP_ROCOMPAT,
	  "Journal superblock has an unknown read-only feature flag set.\n",
	  PROMPT_ABORT, 0 },
	{ PR_0_JOURNAL_UNSUPP_INCOMPAT,
	  "Journal superblock has an unknown incompatible feature flag set.\n",
	  PROMPT_ABORT, 0 },
	{ PR_0_JOURNAL_UNSUPP_VERSION,
	  "Journal version not supported by this e2fsck.\n",
	  PROMPT_ABORT, 0 },
	{ PR_0_CLEAR_V2_JOURNAL,
	  "Found invalid V2 journal superblock fields (from V1 journal).\n"
	  "Clearing fields beyond the V1 journal superblock...\n\n",
	  PROMPT_NONE, 0 },
	{ PR_0_JOURNAL_RUN,
	  "Run journal anyway",
	  PROMPT_NULL, 0 },
	{ PR_0_JOURNAL_RUN_DEFAULT,
	  "Recovery flag not set in backup superblock, so running journal anyway.\n",
	  PROMPT_NONE, 0 },
	{ PR_0_JNL_TXN_CORRUPT,
	  "Journal transaction %llu was corrupt, replay was aborted.\n",
	  PROMPT_NONE, 0 },
	{ PR_0_EXT_JOURNAL_SUPER_CSUM_INVALID,
	  "External journal superblock checksum does not match superblock.  ",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_6_RECREATE_JOURNAL,
	  "Recreate journal",
	  PROMPT_NULL, PR_PREEN_OK | PR_NO_OK },
};

static const struct problem *find_problem(int code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(problems); i++)
		if (problems[i].code == code)
			return &problems[i];
	return NULL;
}

/*
 * One key from the terminal, raw, as e2fsck reads it; SIGINT or SIGTERM
 * while it waits is a "^C".
 */
static int read_key(void)
{
	unsigned char c;
	ssize_t n;

	for (;;) {
		if (e2fsck_cancelled())
			return 3;
		n = read(0, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		return n == 1 ? c : EOF;
	}
}

/*
 * Ask on the terminal.  'y' yes, 'n' no, 'a' yes to this and every later
 * question (the engine then gets -y), Enter, space or Escape the default,
 * ^C cancels (no).
 */
static int ask_yn(struct e2fsck_ctx *ctx, const char *question, int def)
{
	struct termios saved, raw;
	int have_tty = !tcgetattr(0, &saved);
	int c, answer = def;

	if (have_tty) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(0, TCSANOW, &raw);
	}
	log_out(ctx, "%s%s? ", question, def ? "<y>" : "<n>");
	if (e2fsck_cancel_caught())
		e2fsck_catch_cancel(1);
	for (;;) {
		c = read_key();
		if (c == EOF)
			break;
		if (c == 3) {
			if (have_tty)
				tcsetattr(0, TCSANOW, &saved);
			if (e2fsck_cancel_caught())
				e2fsck_catch_cancel(0);
			log_out(ctx, "cancelled!\n");
			return 0;
		}
		if (strchr("yY", c)) {
			answer = 1;
			break;
		}
		if (strchr("nN", c)) {
			answer = 0;
			break;
		}
		if (strchr("aA", c)) {
			answer = 2;
			break;
		}
		if (c == 27 || c == ' ' || c == '\n')
			break;
	}
	if (answer == 2) {
		ctx->options |= E2F_OPT_YES;
		ctx->flags |= E2F_FLAG_YES_TO_ALL;
		log_out(ctx, "yes to all\n");
		answer = 1;
	} else {
		log_out(ctx, "%s\n", answer ? "yes" : "no");
	}
	if (have_tty)
		tcsetattr(0, TCSANOW, &saved);
	if (e2fsck_cancel_caught())
		e2fsck_catch_cancel(0);
	return answer;
}

static int ask(struct e2fsck_ctx *ctx, const char *question, int def)
{
	if (ctx->options & E2F_OPT_NO) {
		log_out(ctx, "%s? no\n\n", question);
		return 0;
	}
	if (ctx->options & E2F_OPT_YES) {
		log_out(ctx, "%s? yes\n\n", question);
		return 1;
	}
	if (ctx->options & E2F_OPT_PREEN) {
		log_out(ctx, "%s? %s\n\n", question, def ? "yes" : "no");
		return def;
	}
	return ask_yn(ctx, question, def);
}

/* The rehearsal: the answer the mode gives, and whether it would stop. */
static int rehearse(struct e2fsck_ctx *ctx, const struct problem *p, int def)
{
	int preen = ctx->options & E2F_OPT_PREEN;

	if (p->flags & PR_FATAL) {
		ctx->rehearsal->stop = 1;
		return 0;
	}
	if (p->prompt == PROMPT_NONE)
		return def;
	if (preen && !(p->flags & PR_PREEN_OK)) {
		ctx->rehearsal->stop = 1;
		return 0;
	}
	if (!(ctx->options & (E2F_OPT_YES | E2F_OPT_NO | E2F_OPT_PREEN)) &&
	    (p->flags & PR_DECIDES))
		ctx->rehearsal->asked = 1;
	if (p->prompt == PROMPT_ABORT && def)
		ctx->rehearsal->stop = 1;
	return def;
}

int fix_problem(struct e2fsck_ctx *ctx, int code, unsigned long long arg)
{
	const struct problem *p = find_problem(code);
	int preen = ctx->options & E2F_OPT_PREEN;
	int def = !(ctx->options & E2F_OPT_NO);
	int quiet = preen && (p->flags & PR_PREEN_NOMSG);
	int answer;

	if (ctx->rehearsal)
		return rehearse(ctx, p, def);

	if (!quiet) {
		if (preen)
			log_out(ctx, "%s: ", ctx->device_name);
		log_out(ctx, p->msg, arg);
	}
	if (p->prompt != PROMPT_NONE && !(p->flags & PR_PREEN_OK))
		if (preen)
			preenhalt(ctx);
	if (p->flags & PR_FATAL)
		fatal_error(ctx, NULL);

	if (p->prompt == PROMPT_NONE)
		return def;

	if (preen) {
		answer = def;
		if (!quiet)
			log_out(ctx, "%s.\n",
				answer ? preen_word[p->prompt] : "IGNORED");
	} else {
		answer = ask(ctx, prompt_word[p->prompt], def);
	}
	if (!answer && !(p->flags & PR_NO_OK) && ctx->fs)
		ext2fs_unmark_valid(ctx->fs);
	if (p->prompt == PROMPT_ABORT && answer)
		fatal_error(ctx, NULL);
	if (answer)
		ctx->flags |= E2F_FLAG_PROBLEMS_FIXED;
	return answer;
}
