// SPDX-License-Identifier: GPL-2.0
/*
 * e2journal.c: the e2journal command and its replay subcommand.
 *
 *   e2journal dump IMAGE ...		(ej_dump.c)
 *   e2journal replay IMAGE [-j JOURNAL] [--policy P] [--json] [--dry-run]
 *
 * Exit codes follow fsck(8) (e2journal_int.h): 0 clean, 1 replayed with
 * corruption flagged, 4 refused under --policy refuse, 8 operational
 * error, 16 usage error.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"

const char *ej_prog = "e2journal";

static const struct {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*what;
} commands[] = {
	{ "dump",	ej_cmd_dump,	"show the journal superblock and log" },
	{ "replay",	ej_cmd_replay,	"replay the journal into the filesystem" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: %s COMMAND [options] IMAGE\n"
		"       %s --help | -V\n\nCommands:\n", ej_prog, ej_prog);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'%s COMMAND --help' describes a command's options.\n",
		ej_prog);
}

static void replay_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s replay [options] IMAGE\n\n"
		"Replay the journal of the ext3/ext4 filesystem in IMAGE.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"  -p, --policy P       replay-all (default), stop or refuse\n"
		"      --json           print the report as JSON\n"
		"  -b, --blocks         list every logged block in the report\n"
		"  -n, --dry-run        decide and report, write nothing\n"
		"      --skip TID:BLK   do not write block BLK from transaction TID\n"
		"      --force TID:BLK  write block BLK of transaction TID even if\n"
		"                       skipped (bad checksum, not replayed)\n"
		"      --upto TID       replay no transaction after TID\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0 replayed cleanly or nothing to do, 1 replayed with\n"
		"corruption flagged (run e2fsck -f), 4 refused by --policy refuse,\n"
		"8 operational error, 16 usage error.\n", ej_prog);
}

/* "TID:BLOCK" */
static int parse_override(const char *s, struct ej_override *o, int force)
{
	unsigned long long tid, blk;
	char *end;

	errno = 0;
	tid = strtoull(s, &end, 0);
	if (errno || end == s || *end != ':' || tid > 0xffffffffULL)
		return -1;
	s = end + 1;
	blk = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	o->tid = (__u32)tid;
	o->fsblock = blk;
	o->force = force;
	return 0;
}

static void print_msg(void *arg, const char *msg)
{
	fputs(msg, (FILE *)arg);
}

/* needs_recovery set over an empty log: clear it, as e2fsck does. */
static errcode_t clear_recover_flag(ext2_filsys fs)
{
	if (!ext2fs_has_feature_journal_needs_recovery(fs->super))
		return 0;
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	fs->flags |= EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_MASTER_SB_ONLY;
	ext2fs_mark_super_dirty(fs);
	return ext2fs_flush(fs);
}

enum {
	OPT_JSON = 256,
	OPT_SKIP,
	OPT_FORCE,
	OPT_UPTO,
};

int ej_cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument,	NULL, 'j' },
		{ "policy",	required_argument,	NULL, 'p' },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "blocks",	no_argument,		NULL, 'b' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "skip",	required_argument,	NULL, OPT_SKIP },
		{ "force",	required_argument,	NULL, OPT_FORCE },
		{ "upto",	required_argument,	NULL, OPT_UPTO },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = { .policy = JBD2_POLICY_REPLAY_ALL };
	struct ej_override *ovr = NULL;
	size_t nr_ovr = 0;
	int json = 0, per_block = 0, dry_run = 0, upto_set = 0;
	unsigned long long upto = 0;
	const char *image = NULL;
	ext2_filsys fs = NULL;
	journal_t *journal = NULL;
	struct ej_report *r;
	FILE *msg_out;
	char *text = NULL, *end;
	errcode_t err;
	int opt, rc, flags, refused, ret = EJ_EXIT_OPERATIONAL;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:bnh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'p':
			if (ej_policy_parse(optarg, &opts.policy)) {
				fprintf(stderr, "%s: unknown policy '%s' "
					"(replay-all, stop or refuse)\n",
					ej_prog, optarg);
				goto usage;
			}
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'b':
			per_block = 1;
			break;
		case 'n':
			dry_run = 1;
			break;
		case OPT_SKIP:
		case OPT_FORCE: {
			struct ej_override *p;

			p = realloc(ovr, (nr_ovr + 1) * sizeof(*ovr));
			if (!p) {
				com_err(ej_prog, ENOMEM, "while parsing options");
				goto out;
			}
			ovr = p;
			if (parse_override(optarg, &ovr[nr_ovr],
					   opt == OPT_FORCE)) {
				fprintf(stderr, "%s: '%s': expected TID:BLOCK\n",
					ej_prog, optarg);
				goto usage;
			}
			nr_ovr++;
			break;
		}
		case OPT_UPTO:
			errno = 0;
			upto = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end ||
			    upto > 0xffffffffULL) {
				fprintf(stderr, "%s: '%s': expected a tid\n",
					ej_prog, optarg);
				goto usage;
			}
			upto_set = 1;
			break;
		case 'h':
			replay_usage(stdout);
			ret = EJ_EXIT_OK;
			goto out;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	image = argv[optind];
	/* keep stdout clean for the JSON document */
	msg_out = json ? stderr : stdout;

	flags = EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS;
	if (!dry_run)
		flags |= EXT2_FLAG_RW;
	else
		opts.flags |= EJ_OPEN_DRY_RUN;
	err = ext2fs_open2(image, NULL, flags, 0, 0, unix_io_manager, &fs);
	if (err) {
		com_err(ej_prog, err, "while trying to open %s", image);
		goto out;
	}

	err = ej_journal_open(fs, &opts, &journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		goto out;
	}
	r = ej_journal_report(journal);
	r->msg_fn = print_msg;
	r->msg_arg = msg_out;
	r->overrides = ovr;
	r->nr_overrides = nr_ovr;
	r->upto_tid = (__u32)upto;
	r->upto_set = upto_set;

	if (!journal->j_superblock->s_start) {
		fprintf(msg_out, "%s: nothing to replay\n", image);
		if (!dry_run) {
			err = clear_recover_flag(fs);
			if (err) {
				com_err(ej_prog, err,
					"while clearing needs_recovery on %s",
					image);
				goto out;
			}
		}
		ret = EJ_EXIT_OK;
		goto out;
	}

	rc = jbd2_journal_recover(journal);
	r = ej_journal_report(journal);
	/*
	 * Under "stop" e2fsprogs 1.47 resets the journal whatever recovery
	 * returned (the replayed blocks are on disk first): say what it says
	 * and go on.  Otherwise -EFSCORRUPTED with corruption flagged means
	 * nothing was replayed (refuse, or a log that cannot be walked) and
	 * the journal is left for a person to look at.
	 */
	refused = 0;
	if (rc && opts.policy == JBD2_POLICY_STOP) {
		if (rc == -EFSBADCRC)
			fprintf(msg_out, "Journal checksum error found in %s\n",
				image);
		else if (rc == -EFSCORRUPTED)
			fprintf(msg_out, "Journal corrupted in %s\n", image);
		else
			com_err(ej_prog, (errcode_t)-rc,
				"while recovering the journal of %s", image);
	} else if (rc == -EFSCORRUPTED && r->corrupt) {
		refused = 1;
	} else if (rc && rc != -EFSBADCRC) {
		com_err(ej_prog, (errcode_t)-rc, "while recovering the journal "
			"of %s", image);
		goto out;
	}

	if (json)
		err = ej_report_json(r, &text);
	else
		err = ej_report_text(r, per_block, &text);
	if (err) {
		com_err(ej_prog, err, "while writing the report");
		goto out;
	}
	fputs(text, stdout);

	if (refused) {
		/* the journal and needs_recovery stay as they were */
		fprintf(msg_out, "%s: journal is corrupt; nothing replayed%s\n",
			image, opts.policy == JBD2_POLICY_REFUSE ?
			" (policy refuse)" : "");
		ret = EJ_EXIT_UNCORRECTED;
		goto out;
	}

	ej_journal_set_recover_result(journal, rc);
	err = ej_journal_finish(journal);
	if (err == EJ_FAST_COMMIT_PENDING) {
		/* replayed, but the journal and needs_recovery are kept */
		fprintf(msg_out, "%s: the journal holds fast commits, which "
			"only e2fsck replays: run e2fsck\n", image);
		ret = EJ_EXIT_UNCORRECTED;
		goto out;
	}
	if (err) {
		com_err(ej_prog, err, "while resetting the journal of %s",
			image);
		goto out;
	}
	r = ej_journal_report(journal);
	if (dry_run)
		fprintf(msg_out, "%s: dry run, nothing written\n", image);
	ret = r->corrupt || rc ? EJ_EXIT_FLAGGED : EJ_EXIT_OK;
out:
	free(text);
	if (journal)
		ej_journal_close(journal);
	if (fs) {
		err = ext2fs_close_free(&fs);
		if (err && ret != EJ_EXIT_OPERATIONAL) {
			com_err(ej_prog, err, "while closing %s", image);
			ret = EJ_EXIT_OPERATIONAL;
		}
	}
	free(ovr);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
usage:
	fprintf(stderr, "Usage: %s replay [options] IMAGE (see %s replay "
		"--help)\n", ej_prog, ej_prog);
	free(ovr);
	return EJ_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *lib_version = NULL;
	size_t i;

	initialize_ej_error_table();
	initialize_ext2_error_table();

	if (argc < 2) {
		usage(stderr);
		return EJ_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EJ_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		ext2fs_get_library_version(&lib_version, NULL);
		printf("%s %s (libext2fs %s)\n", ej_prog, PACKAGE_VERSION,
		       lib_version ? lib_version : "?");
		return EJ_EXIT_OK;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s'\n", ej_prog, argv[1]);
	usage(stderr);
	return EJ_EXIT_USAGE;
}
