// SPDX-License-Identifier: GPL-2.0
/*
 * ej_plan.c: e2journal plan IMAGE [-j JOURNAL] [--policy P] [--json]
 *
 * Says what "e2journal replay" would do under a policy, block by block,
 * without writing a byte: the filesystem is opened read-only and the
 * journal with EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN, recovery runs its
 * scan, decision, revoke and replay passes, and every verdict lands in
 * the report instead of on the disk.  The exit status is the one replay
 * would have, so that a script can ask "would this journal be refused?"
 * before anything is changed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"

static void plan_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s plan [options] IMAGE\n\n"
		"Show what replaying the journal of IMAGE would do, block by\n"
		"block; nothing is written.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"  -p, --policy P       replay-all (default), stop or refuse\n"
		"      --json           print the report as JSON (the summary\n"
		"                       line then goes to standard error)\n"
		"  -h, --help           this text\n\n"
		"Exit status: what \"%s replay\" would exit with: 0 clean or\n"
		"nothing to do, 1 corruption flagged, 4 refused, 8 operational\n"
		"error, 16 usage error.\n", ej_prog, ej_prog);
}

static void plan_msg(void *arg, const char *msg)
{
	fputs(msg, (FILE *)arg);
}

/* One line that says it all, for people and for grep. */
static void plan_summary(FILE *f, const struct ej_report *r, int exit_code)
{
	unsigned long written = r->counts[JBD2_BLOCK_REPLAYED];
	unsigned long skipped = 0;
	size_t i, replayed = 0;
	unsigned int v;

	for (i = 0; i < r->nr_txns; i++)
		if (r->txns[i].replay && exit_code != EJ_EXIT_UNCORRECTED)
			replayed++;
	for (v = 0; v < JBD2_BLOCK_VERDICT_MAX; v++)
		if (v != JBD2_BLOCK_REPLAYED && v != JBD2_BLOCK_SUPERSEDED &&
		    v != JBD2_BLOCK_REVOKED)
			skipped += r->counts[v];
	fprintf(f, "Plan (policy %s): replay %zu of %zu transactions, ",
		ej_policy_name(r->policy), replayed, r->nr_txns);
	fprintf(f, "write %lu blocks (%lu superseded, %lu revoked, ",
		written, r->counts[JBD2_BLOCK_SUPERSEDED],
		r->counts[JBD2_BLOCK_REVOKED]);
	fprintf(f, "%lu not written); %s; replay would exit %d\n", skipped,
		r->corrupt ? "corruption flagged" : "no corruption", exit_code);
}

enum {
	OPT_JSON = 256,
};

int ej_cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument,	NULL, 'j' },
		{ "policy",	required_argument,	NULL, 'p' },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = {
		.policy = JBD2_POLICY_REPLAY_ALL,
		.flags = EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN,
	};
	const char *image = NULL;
	ext2_filsys fs = NULL;
	journal_t *journal = NULL;
	struct ej_report *r;
	FILE *msg_out;
	char *text = NULL;
	errcode_t err;
	int opt, rc, json = 0, ret = EJ_EXIT_OPERATIONAL;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'p':
			if (ej_policy_arg(optarg, &opts.policy))
				goto usage;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			plan_usage(stdout);
			return EJ_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	image = argv[optind];
	msg_out = json ? stderr : stdout;

	/* No EXT2_FLAG_RW: libext2fs itself then refuses any write. */
	if (ej_open_image(image, 0, unix_io_manager, &fs))
		goto out;
	err = ej_journal_open(fs, &opts, &journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		ret = ej_load_failure_exit(err);
		goto out;
	}
	r = ej_journal_report(journal);
	r->msg_fn = plan_msg;
	r->msg_arg = msg_out;

	if (!journal->j_superblock->s_start) {
		fprintf(msg_out, "%s: nothing to replay\n", image);
		ret = EJ_EXIT_OK;
		goto out;
	}

	rc = jbd2_journal_recover(journal);
	r = ej_journal_report(journal);
	/* The same reading of recovery's result as "e2journal replay". */
	if (rc && opts.policy == JBD2_POLICY_STOP) {
		if (rc == -EFSBADCRC)
			fprintf(msg_out, "Journal checksum error found in %s\n",
				image);
		else if (rc == -EFSCORRUPTED)
			fprintf(msg_out, "Journal corrupted in %s\n", image);
		else
			com_err(ej_prog, (errcode_t)-rc,
				"while recovering the journal of %s", image);
		ret = EJ_EXIT_FLAGGED;
	} else if (rc == -EFSCORRUPTED && r->corrupt) {
		ret = EJ_EXIT_UNCORRECTED;
	} else if (rc && rc != -EFSBADCRC) {
		com_err(ej_prog, (errcode_t)-rc, "while recovering the journal of %s", image);
		goto out;
	} else {
		ret = r->corrupt || rc ? EJ_EXIT_FLAGGED : EJ_EXIT_OK;
	}

	if (json)
		err = ej_report_json(r, &text);
	else
		err = ej_report_text(r, 1, &text);
	if (err) {
		com_err(ej_prog, err, "while writing the report");
		ret = EJ_EXIT_OPERATIONAL;
		goto out;
	}
	fputs(text, stdout);
	if (!json)
		fputc('\n', stdout);
	plan_summary(json ? stderr : stdout, r, ret);
out:
	free(text);
	if (journal)
		ej_journal_close(journal);
	if (fs)
		ext2fs_close_free(&fs);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
usage:
	fprintf(stderr, "Usage: %s plan [options] IMAGE (see %s plan --help)\n", ej_prog, ej_prog);
	return EJ_EXIT_USAGE;
}
