// SPDX-License-Identifier: GPL-2.0
/*
 * e2journal.c: the e2journal command and its replay subcommand.
 *
 *   e2journal dump IMAGE ...		(ej_dump.c)
 *   e2journal replay IMAGE [-j JOURNAL] [--policy P] [--json] [--dry-run]
 *		[--skip TID:BLK]... [--force TID:BLK]... [--upto TID]
 *		[--from SAVED] [--undo FILE] [--yes]
 *   e2journal show IMAGE [TID:]BLOCK ...	(ej_show.c)
 *   e2journal save IMAGE OUT ...		(ej_save.c)
 *   e2journal plan IMAGE ...		(ej_plan.c)
 *   e2journal write|corrupt IMAGE ...	(ej_write.c)
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
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>
#include <uuid/uuid.h>

#include "e2journal_int.h"

const char *ej_prog = "e2journal";
unsigned int ej_io_flags;

errcode_t ej_open_image(const char *image, int flags, io_manager io,
			ext2_filsys *fs)
{
	errcode_t err;

	/* a no-op unless a test set E2JOURNAL_TEST_IO (see main) */
	io = ej_test_io_manager(io);
	err = ext2fs_open2(image, NULL, flags | EXT2_FLAG_64BITS |
			   EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0, io, fs);
	if (err)
		com_err(ej_prog, err, "while trying to open %s", image);
	return err;
}

int ej_policy_arg(const char *arg, int *policy)
{
	if (!ej_policy_parse(arg, policy))
		return 0;
	fprintf(stderr, "%s: unknown policy '%s' (replay-all, stop or refuse)\n",
		ej_prog, arg);
	return -1;
}

int ej_load_failure_exit(errcode_t err)
{
	switch (err) {
	case EJ_BAD_JOURNAL_INODE:
	case EJ_BAD_JSB:
	case EJ_UNSUPP_JSB_VERSION:
	case EJ_UNSUPP_FEATURE:
	case EJ_JOURNAL_TOO_SMALL:
		return EJ_EXIT_UNCORRECTED;
	}
	return EJ_EXIT_OPERATIONAL;
}

static const struct {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*what;
} commands[] = {
	{ "dump",	ej_cmd_dump,	"show the journal superblock and log" },
	{ "replay",	ej_cmd_replay,	"replay the journal into the filesystem" },
	{ "show",	ej_cmd_show,	"what a block is; what its log changes" },
	{ "save",	ej_cmd_save,	"keep a raw copy of the journal" },
	{ "plan",	ej_cmd_plan,	"say what replay would do; write nothing" },
	{ "write",	ej_cmd_write,	"log transactions into a journal (tests)" },
	{ "corrupt",	ej_cmd_corrupt,	"damage what write wrote (tests)" },
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
		"  -y, --yes            do not ask before --force writes\n"
		"      --from SAVED     replay the journal saved in SAVED by\n"
		"                       'e2journal save' (the journal on disk is\n"
		"                       not touched)\n"
		"      --undo FILE      keep what is overwritten in FILE, for\n"
		"                       e2undo (an external journal: FILE.journal)\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0 replayed cleanly or nothing to do, 1 replayed with\n"
		"corruption flagged (run e2fsck -f), 4 refused by --policy refuse,\n"
		"8 operational error, 16 usage error, 32 --force not confirmed.\n",
		ej_prog);
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

struct replay_out {
	FILE		*f;
	struct ej_bar	*bar;
};

static void print_msg(void *arg, const char *msg)
{
	struct replay_out *o = arg;

	if (o->bar)
		ej_bar_done(o->bar);
	fputs(msg, o->f);
}

/* needs_recovery set over an empty log: clear it, as e2fsck does. */
/*
 * Is the device at least as large as the filesystem on it?  Replaying
 * into a truncated image would write where the filesystem says blocks
 * are, past the end of what is there.  e2fsck refuses such a device too.
 */
static int device_holds_fs(ext2_filsys fs, const char *image)
{
	blk64_t dev_blocks = 0;
	errcode_t err;

	err = ext2fs_get_device_size2(image, fs->blocksize, &dev_blocks);
	if (err || !dev_blocks)
		return 1;	/* unknown: e2fsck goes on too */
	if (dev_blocks >= ext2fs_blocks_count(fs->super))
		return 1;
	fprintf(stderr,
		"%s: the filesystem size (according to the superblock) is %llu blocks, the physical size of %s is %llu blocks: a truncated image? nothing replayed\n",
		ej_prog, (unsigned long long)ext2fs_blocks_count(fs->super),
		image, (unsigned long long)dev_blocks);
	return 0;
}


/* The last report entry for @o's transaction and block, or NULL. */
static const struct ej_block_entry *find_logged(const struct ej_report *r,
						const struct ej_override *o)
{
	const struct ej_block_entry *found = NULL;
	size_t i;

	for (i = 0; i < r->nr_blocks; i++) {
		if (r->blocks[i].tid == o->tid &&
		    r->blocks[i].fsblock == o->fsblock)
			found = &r->blocks[i];
	}
	return found;
}

/*
 * Hold the overrides against what the policy alone decides (@r, from a
 * dry run without the forced ones): each must name a logged block, and
 * a person forcing a block must be told why the policy skips it.  The
 * number of blocks --force would really add goes to *forced.
 */
static int check_overrides(const struct ej_report *r,
			   const struct ej_override *ovr, size_t nr,
			   unsigned int *forced)
{
	const struct ej_block_entry *e;
	const char *what;
	size_t i, j;
	int bad = 0;

	*forced = 0;
	for (i = 0; i < nr; i++) {
		const struct ej_override *o = &ovr[i];

		for (j = 0; j < i; j++) {
			if (ovr[j].tid == o->tid &&
			    ovr[j].fsblock == o->fsblock &&
			    ovr[j].force != o->force) {
				fprintf(stderr,
					"%s: %u:%llu is both skipped and forced\n",
					ej_prog, o->tid,
					o->fsblock);
				bad = 1;
			}
		}
		e = find_logged(r, o);
		if (!e) {
			fprintf(stderr,
				"%s: %s %u:%llu: transaction %u does not log block %llu (see '%s replay --dry-run --blocks')\n",
				ej_prog,
				o->force ? "--force" : "--skip", o->tid,
				o->fsblock, o->tid, o->fsblock, ej_prog);
			bad = 1;
			continue;
		}
		if (!o->force)
			continue;
		what = NULL;
		switch (e->verdict) {
		case JBD2_BLOCK_REPLAYED:
		case JBD2_BLOCK_SUPERSEDED:
			what = "the policy replays it already";
			break;
		case JBD2_BLOCK_REVOKED:
			what = "revoked (--force does not undo revokes)";
			break;
		case JBD2_BLOCK_OUT_OF_RANGE:
			what = "outside the filesystem or inside the journal";
			break;
		case JBD2_BLOCK_IO_ERROR:
			what = "it could not be read from the journal";
			break;
		case JBD2_BLOCK_USER_SKIP:
			what = "it is skipped too";
			break;
		}
		if (what) {
			fprintf(stderr, "%s: --force %u:%llu: not forced: %s\n",
				ej_prog, o->tid, o->fsblock, what);
			continue;
		}
		fprintf(stderr,
			"WARNING: --force %u:%llu writes journal block %lu over filesystem block %llu although the policy skips it (%s): its content may be garbage.\n",
			o->tid, o->fsblock, e->jblock, o->fsblock,
			ej_verdict_name(e->verdict));
		(*forced)++;
	}
	return bad ? EJ_EXIT_USAGE : 0;
}

/*
 * A dry run of the policy with the skips but without the forces, so that
 * the forces can be explained (and confirmed) before anything is written.
 */
static int replay_prepass(ext2_filsys fs, const struct ej_open_opts *opts,
			  const struct ej_override *ovr, size_t nr_ovr,
			  const struct ej_report *want, struct ej_bar *bar,
			  unsigned int *forced)
{
	struct ej_open_opts o = *opts;
	struct ej_override *skips;
	struct ej_report *r;
	journal_t *journal;
	size_t i, n = 0;
	errcode_t err;
	int ret;

	skips = calloc(nr_ovr, sizeof(*skips));
	if (!skips) {
		com_err(ej_prog, ENOMEM, "while checking --skip/--force");
		return EJ_EXIT_OPERATIONAL;
	}
	for (i = 0; i < nr_ovr; i++) {
		if (!ovr[i].force)
			skips[n++] = ovr[i];
	}
	o.flags |= EJ_OPEN_DRY_RUN;
	o.io = NULL;
	err = ej_journal_open(fs, &o, &journal);
	if (err) {
		free(skips);
		com_err(ej_prog, err, "while loading the journal");
		return ej_load_failure_exit(err);
	}
	r = ej_journal_report(journal);
	r->overrides = skips;
	r->nr_overrides = n;
	r->upto_tid = want->upto_tid;
	r->upto_set = want->upto_set;
	bar->report = r;
	r->progress_fn = ej_bar_progress;
	r->progress_arg = bar;
	jbd2_journal_recover(journal);
	ej_bar_done(bar);
	r = ej_journal_report(journal);
	ret = check_overrides(r, ovr, nr_ovr, forced);
	ej_journal_close(journal);
	bar->report = NULL;
	free(skips);
	return ret;
}

/*
 * Does the journal on disk still hold a log?  Replaying a saved copy and
 * then clearing needs_recovery would throw that log away.  1: yes, 2:
 * needs_recovery is set and the journal cannot be looked at, 0: no.
 */
static int ondisk_log_pending(ext2_filsys fs, const char *ext_journal)
{
	struct ej_open_opts o = {
		.ext_journal = ext_journal,
		.policy = JBD2_POLICY_REPLAY_ALL,
		.flags = EJ_OPEN_READONLY | EJ_OPEN_NO_CHECK,
	};
	journal_t *j;
	int pending;

	if (!ext2fs_has_feature_journal_needs_recovery(fs->super))
		return 0;
	if (ej_journal_open(fs, &o, &j))
		return !fs->super->s_journal_inum && !ext_journal ? 2 : 0;
	pending = j->j_superblock->s_start != 0;
	ej_journal_close(j);
	return pending;
}

/* What became of each --skip/--force, for the final report. */
static void report_overrides(const struct ej_report *r,
			     const struct ej_override *ovr, size_t nr,
			     FILE *out)
{
	const struct ej_block_entry *e;
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *what;

		e = find_logged(r, &ovr[i]);
		if (!e)
			what = "not logged";
		else if (e->verdict == JBD2_BLOCK_REPLAYED)
			what = ovr[i].force ? "forced: written" : "written";
		else if (e->verdict == JBD2_BLOCK_USER_SKIP)
			what = "skipped: the block keeps its earlier content";
		else
			what = ej_verdict_name(e->verdict);
		fprintf(out, "  %s %u:%llu: %s\n",
			ovr[i].force ? "--force" : "--skip ", ovr[i].tid,
			ovr[i].fsblock, what);
	}
}

static int saved_matches(ext2_filsys fs, const char *from,
			 const struct ej_saved_header *hdr)
{
	char want[40], have[40];

	if (hdr->block_size != fs->blocksize) {
		fprintf(stderr,
			"%s: %s holds %u-byte blocks; the filesystem's are %u bytes\n",
			ej_prog, from, hdr->block_size,
			fs->blocksize);
		return 0;
	}
	if (hdr->flags & EJ_SAVED_RAW) {
		/*
		 * A plain copy does not say whose journal it is; an internal
		 * journal's superblock carries the filesystem's UUID (as
		 * mke2fs writes it), which is worth a warning when it differs.
		 */
		if (!(hdr->flags & EJ_SAVED_EXTERNAL) &&
		    memcmp(hdr->journal_uuid, fs->super->s_uuid,
			   sizeof(hdr->journal_uuid))) {
			uuid_unparse(hdr->journal_uuid, want);
			uuid_unparse(fs->super->s_uuid, have);
			fprintf(stderr,
				"%s: warning: %s is a plain journal copy with UUID %s; the filesystem's is %s\n",
				ej_prog, from, want, have);
		}
		return 1;
	}
	if (memcmp(hdr->fs_uuid, fs->super->s_uuid, sizeof(hdr->fs_uuid))) {
		uuid_unparse(hdr->fs_uuid, want);
		uuid_unparse(fs->super->s_uuid, have);
		fprintf(stderr,
			"%s: %s is the journal of filesystem %s, not of this one (%s): refusing to replay it\n",
			ej_prog,
			from, want, have);
		return 0;
	}
	return 1;
}

enum {
	OPT_JSON = 256,
	OPT_SKIP,
	OPT_FORCE,
	OPT_UPTO,
	OPT_FROM,
	OPT_UNDO,
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
		{ "from",	required_argument,	NULL, OPT_FROM },
		{ "undo",	required_argument,	NULL, OPT_UNDO },
		{ "yes",	no_argument,		NULL, 'y' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = {
		.policy = JBD2_POLICY_REPLAY_ALL,
		.io_flags = ej_io_flags,
	};
	struct ej_override *ovr = NULL;
	struct ej_saved_header hdr;
	struct replay_out rout;
	struct ej_bar bar;
	size_t nr_ovr = 0;
	int json = 0, per_block = 0, dry_run = 0, upto_set = 0, yes = 0;
	unsigned long long upto = 0;
	unsigned int forced = 0;
	const char *image = NULL, *from = NULL, *undo = NULL;
	char *journal_undo = NULL;
	io_manager io = unix_io_manager;
	ext2_filsys fs = NULL;
	journal_t *journal = NULL;
	struct ej_report *r;
	FILE *msg_out;
	char *text = NULL, *end;
	errcode_t err;
	int opt, rc, flags, refused, ret = EJ_EXIT_OPERATIONAL;

	ej_bar_init(&bar, "replay");
	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:bnyh", longopts,
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
		case 'b':
			per_block = 1;
			break;
		case 'n':
			dry_run = 1;
			break;
		case 'y':
			yes = 1;
			break;
		case OPT_FROM:
			from = optarg;
			break;
		case OPT_UNDO:
			undo = optarg;
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
	if (undo && dry_run) {
		fprintf(stderr,
			"%s: --undo with --dry-run: a dry run writes nothing to undo\n",
			ej_prog);
		goto usage;
	}
	/* keep stdout clean for the JSON document */
	msg_out = json ? stderr : stdout;
	rout.f = msg_out;
	rout.bar = &bar;

	if (from) {
		err = ej_saved_read_header(from, &hdr);
		if (err) {
			com_err(ej_prog, err, "while reading %s", from);
			goto out;
		}
	}
	if (undo) {
		err = set_undo_io_backing_manager(unix_io_manager);
		if (!err)
			err = set_undo_io_backup_file((char *)undo);
		if (err) {
			com_err(ej_prog, err,
				"while setting up the undo file %s", undo);
			goto out;
		}
		io = undo_io_manager;
	}

	flags = 0;
	if (!dry_run)
		flags |= EXT2_FLAG_RW;
	else
		opts.flags |= EJ_OPEN_DRY_RUN;
	if (ej_open_image(image, flags, io, &fs))
		goto out;
	if (!dry_run && !device_holds_fs(fs, image))
		goto out;

	if (from) {
		if (!saved_matches(fs, from, &hdr))
			goto out;
		switch (ondisk_log_pending(fs, opts.ext_journal)) {
		case 1:
			fprintf(stderr,
				"%s: the journal on %s still holds a log (needs_recovery is set): replay it first; replaying %s now and clearing needs_recovery would lose it\n",
				ej_prog, image, from);
			goto out;
		case 2:
			fprintf(stderr,
				"%s: %s needs recovery and its external journal was not named: give it with -j, so that a log still in it is not lost\n",
				ej_prog, image);
			goto out;
		}
		opts.saved = from;
	} else if (undo && opts.ext_journal) {
		/* the journal device gets an undo file of its own */
		journal_undo = malloc(strlen(undo) + sizeof(".journal"));
		if (!journal_undo) {
			com_err(ej_prog, ENOMEM, "while setting up undo");
			goto out;
		}
		sprintf(journal_undo, "%s.journal", undo);
		err = set_undo_io_backup_file(journal_undo);
		if (err) {
			com_err(ej_prog, err,
				"while setting up the undo file %s",
				journal_undo);
			goto out;
		}
		opts.io = ej_test_io_manager(undo_io_manager);
	}
	if (undo) {
		fprintf(msg_out,
			"Overwriting existing filesystem; this can be undone using the command:\n    e2undo %s %s\n",
			undo, image);
		if (journal_undo)
			fprintf(msg_out, "    e2undo %s %s\n", journal_undo,
				opts.ext_journal);
		fputc('\n', msg_out);
	}

	if (nr_ovr) {
		struct ej_report want = {
			.upto_tid = (__u32)upto,
			.upto_set = upto_set,
		};

		ret = replay_prepass(fs, &opts, ovr, nr_ovr, &want, &bar,
				     &forced);
		if (ret)
			goto out;
		ret = EJ_EXIT_OPERATIONAL;
		if (forced && !dry_run && !yes) {
			if (!isatty(STDIN_FILENO)) {
				fprintf(stderr,
					"%s: not forcing without --yes: standard input is not a terminal\n",
					ej_prog);
				ret = EJ_EXIT_CANCELLED;
				goto out;
			}
			if (!ej_ask_yes("Write the forced blocks?")) {
				fprintf(stderr,
					"%s: cancelled; nothing written\n",
					ej_prog);
				ret = EJ_EXIT_CANCELLED;
				goto out;
			}
		}
	}

	err = ej_journal_open(fs, &opts, &journal);
	if (err) {
		if (err == EJ_BAD_SAVED && from)
			com_err(ej_prog, err,
				"while loading %s (truncated, or not of this filesystem)",
				from);
		else
			com_err(ej_prog, err, "while loading the journal of %s",
				image);
		ret = ej_load_failure_exit(err);
		goto out;
	}
	r = ej_journal_report(journal);
	r->msg_fn = print_msg;
	r->msg_arg = &rout;
	r->overrides = ovr;
	r->nr_overrides = nr_ovr;
	r->upto_tid = (__u32)upto;
	r->upto_set = upto_set;
	bar.report = r;
	r->progress_fn = ej_bar_progress;
	r->progress_arg = &bar;

	if (!journal->j_superblock->s_start) {
		fprintf(msg_out, "%s: nothing to replay\n",
			from ? from : image);
		if (!dry_run) {
			err = ej_fs_clear_recover(fs);
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
	ej_bar_done(&bar);
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
		com_err(ej_prog, (errcode_t)-rc,
			"while recovering the journal of %s", image);
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
	ej_bar_done(&bar);
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
	if (nr_ovr) {
		fprintf(msg_out, "\nPer-block decisions:\n");
		report_overrides(r, ovr, nr_ovr, msg_out);
	}
	if (from && !dry_run)
		fprintf(msg_out,
			"%s: replayed from the saved journal %s; the journal on disk was left as it is\n",
			image, from);
	if (dry_run)
		fprintf(msg_out, "%s: dry run, nothing written\n", image);
	if (undo)
		fprintf(msg_out, "%s: what replay overwrote is in %s%s%s\n",
			image, undo, journal_undo ? " and " : "",
			journal_undo ? journal_undo : "");
	ret = r->corrupt || rc ? EJ_EXIT_FLAGGED : EJ_EXIT_OK;
out:
	ej_bar_done(&bar);
	free(text);
	if (journal)
		ej_journal_close(journal);
	if (fs) {
		err = ej_fs_close(&fs);
		if (err && ret != EJ_EXIT_OPERATIONAL) {
			com_err(ej_prog, err, "while closing %s", image);
			ret = EJ_EXIT_OPERATIONAL;
		}
	}
	free(journal_undo);
	free(ovr);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
usage:
	fprintf(stderr,
		"Usage: %s replay [options] IMAGE (see %s replay --help)\n",
		ej_prog, ej_prog);
	free(ovr);
	return EJ_EXIT_USAGE;
}

/*
 * The library reads no environment: the switches of its I/O come from
 * ours.  E2JOURNAL_IO picks the engine replay moves blocks with
 * (ej_io_flags_parse(): "plain", "fast", "no-dio", ...), E2JOURNAL_TEST_IO
 * sets up the test io manager (testio.c).
 */
static void io_setup(void)
{
	const char *spec = getenv("E2JOURNAL_IO");

	ej_test_io_config(getenv("E2JOURNAL_TEST_IO"));
	if (ej_io_flags_parse(spec, &ej_io_flags))
		fprintf(stderr, "%s: E2JOURNAL_IO=%s not understood; ignored\n",
			ej_prog, spec);
}

int main(int argc, char **argv)
{
	const char *lib_version = NULL;
	size_t i;

	initialize_ej_error_table();
	initialize_ext2_error_table();
	io_setup();

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
