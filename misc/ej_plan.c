// SPDX-License-Identifier: GPL-2.0
/*
 * ej_plan.c: e2journal plan IMAGE [-j JOURNAL] [--policy P] [--json]
 *
 * Says what "e2journal replay" would do under a policy, block by block,
 * without writing a byte.  It is a program of the public API
 * (e2journal.h, e2journal(3)): the image is opened with EJ_OPT_READONLY
 * and ej_image_plan() runs recovery's scan, decision, revoke and replay
 * passes with every verdict landing in the report instead of on the disk.  The exit status is the one replay
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
		"nothing to do, 1 corruption flagged, 4 refused (or, under stop,\n"
		"fast commits left for e2fsck), 8 operational\n"
		"error, 16 usage error.\n", ej_prog, ej_prog);
}

static void plan_msg(void *arg, const char *msg)
{
	fputs(msg, (FILE *)arg);
}

/* One line that says it all, for people and for grep. */
static void plan_summary(FILE *f, const struct ej_summary *sum, int exit_code)
{
	fprintf(f, "Plan (policy %s): replay %zu of %zu transactions, ",
		ej_policy_name(sum->policy), sum->nr_txns_replayed,
		sum->nr_txns);
	fprintf(f, "write %lu blocks (%lu superseded, %lu revoked, ",
		sum->blocks_written, sum->blocks_superseded,
		sum->blocks_revoked);
	fprintf(f, "%lu not written); %s; replay would exit %d\n",
		sum->blocks_skipped,
		sum->flagged ? "corruption flagged" : "no corruption",
		exit_code);
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
	struct ej_summary sum = { .size = sizeof(sum) };
	struct ej_options opts;
	const char *image = NULL;
	ej_image *img = NULL;
	char *text = NULL;
	errcode_t err;
	int opt, json = 0, fc_pending = 0, ret = EJ_EXIT_OPERATIONAL;

	/* read-only: libext2fs itself then refuses any write */
	ej_options_init(&opts, sizeof(opts));
	opts.flags = EJ_OPT_READONLY;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.journal = optarg;
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
	opts.message_fn = plan_msg;
	opts.message_arg = json ? stderr : stdout;

	err = ej_image_open(image, &opts, &img);
	if (err) {
		com_err(ej_prog, err, "while trying to open %s", image);
		if (json)
			ej_json_error(stdout, image, err, "opening the image",
				      ret);
		goto out;
	}
	err = ej_image_plan(img, &sum);
	/* replay's status then (it keeps the journal): the plan stands */
	fc_pending = err == EJ_FAST_COMMIT_PENDING;
	if (fc_pending)
		err = 0;
	if (err && sum.recover_error) {
		com_err(ej_prog, err, "while recovering the journal of %s",
			image);
		if (json)
			ej_json_error(stdout, image, err,
				      "recovering the journal", ret);
		goto out;
	} else if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		ret = ej_load_failure_exit(err);
		if (json)
			ej_json_error(stdout, image, err, "loading the journal",
				      ret);
		goto out;
	}

	switch (sum.status) {
	case EJ_STATUS_EMPTY:
		fprintf(opts.message_arg, "%s: nothing to replay\n", image);
		ret = EJ_EXIT_OK;
		goto out;
	case EJ_STATUS_REFUSED:
		ret = EJ_EXIT_UNCORRECTED;
		break;
	case EJ_STATUS_FLAGGED:
		ret = EJ_EXIT_FLAGGED;
		break;
	default:
		ret = EJ_EXIT_OK;
	}
	if (fc_pending) {
		fprintf(opts.message_arg, "%s: the journal holds fast commits, "
			"which only e2fsck replays: replay would keep it\n",
			image);
		ret = EJ_EXIT_UNCORRECTED;
	}
	/* what "stop" says, as e2fsprogs does, when recovery ends early */
	if (sum.policy == EJ_POLICY_STOP && sum.recover_error) {
		if (sum.recover_error == EXT2_ET_BAD_CRC)
			fprintf(opts.message_arg,
				"Journal checksum error found in %s\n", image);
		else if (sum.recover_error == EXT2_ET_FILESYSTEM_CORRUPTED)
			fprintf(opts.message_arg, "Journal corrupted in %s\n",
				image);
		else
			com_err(ej_prog, sum.recover_error,
				"while recovering the journal of %s", image);
	}

	err = ej_image_report(img, json ? EJ_REPORT_JSON :
			      EJ_REPORT_TEXT_BLOCKS, &text);
	if (err) {
		com_err(ej_prog, err, "while writing the report");
		ret = EJ_EXIT_OPERATIONAL;
		goto out;
	}
	fputs(text, stdout);
	if (!json)
		fputc('\n', stdout);
	plan_summary(json ? stderr : stdout, &sum, ret);
out:
	free(text);
	ej_image_close(img);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
usage:
	return ej_usage_error("plan", "IMAGE");
}
