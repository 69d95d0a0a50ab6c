// SPDX-License-Identifier: GPL-2.0
/*
 * ej_replay.c: "e2journal replay": the journal replayed into the
 * filesystem under a policy, with per-block overrides (--skip, --force),
 * --upto, a saved journal (--from), an undo file and a dry run.
 *
 *   e2journal replay IMAGE [-j JOURNAL] [--policy P] [--json] [--dry-run]
 *		[--skip TID:BLK]... [--force TID:BLK]... [--upto TID]
 *		[--from SAVED] [--undo FILE] [--yes]
 *
 * Exit codes follow fsck(8) (ej_util.h): 0 clean, 1 replayed with
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
	r->opts.overrides = skips;
	r->opts.nr_overrides = n;
	r->opts.upto_tid = want->opts.upto_tid;
	r->opts.upto_set = want->opts.upto_set;
	r->opts.keep_blocks = 1;	/* check_overrides() reads them */
	bar->report = r;
	ej_report_on_progress(r, ej_bar_progress, bar);
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

/* One "e2journal replay" run: its options and what it holds open. */
struct replay_cmd {
	struct ej_open_opts	opts;
	struct ej_override	*ovr;
	size_t			nr_ovr;
	int			json, per_block, dry_run, upto_set, yes;
	unsigned long long	upto;
	const char		*image, *from, *undo;
	char			*journal_undo;
	struct ej_saved_header	hdr;
	struct replay_out	rout;
	FILE			*msg_out;
	struct ej_bar		bar;
	ext2_filsys		fs;
	journal_t		*journal;
	char			*text;
};

static int add_override(struct replay_cmd *c, const char *arg, int force)
{
	struct ej_override *p;

	p = realloc(c->ovr, (c->nr_ovr + 1) * sizeof(*c->ovr));
	if (!p) {
		com_err(ej_prog, ENOMEM, "while parsing options");
		return EJ_EXIT_OPERATIONAL;
	}
	c->ovr = p;
	if (parse_override(arg, &c->ovr[c->nr_ovr], force)) {
		fprintf(stderr, "%s: '%s': expected TID:BLOCK\n", ej_prog, arg);
		return EJ_EXIT_USAGE;
	}
	c->nr_ovr++;
	return 0;
}

static int parse_upto(struct replay_cmd *c, const char *arg)
{
	char *end;

	errno = 0;
	c->upto = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || c->upto > 0xffffffffULL) {
		fprintf(stderr, "%s: '%s': expected a tid\n", ej_prog, arg);
		return EJ_EXIT_USAGE;
	}
	c->upto_set = 1;
	return 0;
}

/* The command line; -1 to go on, else the exit status. */
static int replay_args(struct replay_cmd *c, int argc, char **argv)
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
	int opt, ret = 0;

	optind = 0;
	while (!ret && (opt = getopt_long(argc, argv, "j:p:bnyh", longopts,
					  NULL)) != -1) {
		switch (opt) {
		case 'j':
			c->opts.ext_journal = optarg;
			break;
		case 'p':
			if (ej_policy_arg(optarg, &c->opts.policy))
				ret = EJ_EXIT_USAGE;
			break;
		case OPT_JSON:
			c->json = 1;
			break;
		case 'b':
			c->per_block = 1;
			break;
		case 'n':
			c->dry_run = 1;
			break;
		case 'y':
			c->yes = 1;
			break;
		case OPT_FROM:
			c->from = optarg;
			break;
		case OPT_UNDO:
			c->undo = optarg;
			break;
		case OPT_SKIP:
		case OPT_FORCE:
			ret = add_override(c, optarg, opt == OPT_FORCE);
			break;
		case OPT_UPTO:
			ret = parse_upto(c, optarg);
			break;
		case 'h':
			replay_usage(stdout);
			return EJ_EXIT_OK;
		default:
			ret = EJ_EXIT_USAGE;
		}
	}
	if (ret)
		return ret;
	if (optind != argc - 1)
		return EJ_EXIT_USAGE;
	c->image = argv[optind];
	if (c->undo && c->dry_run) {
		fprintf(stderr,
			"%s: --undo with --dry-run: a dry run writes nothing to undo\n",
			ej_prog);
		return EJ_EXIT_USAGE;
	}
	return -1;
}

/* --from: the saved journal must be this filesystem's, the disk's empty. */
static int replay_from_ok(struct replay_cmd *c)
{
	if (!saved_matches(c->fs, c->from, &c->hdr))
		return 0;
	switch (ondisk_log_pending(c->fs, c->opts.ext_journal)) {
	case 1:
		fprintf(stderr,
			"%s: the journal on %s still holds a log (needs_recovery is set): replay it first; replaying %s now and clearing needs_recovery would lose it\n",
			ej_prog, c->image, c->from);
		return 0;
	case 2:
		fprintf(stderr,
			"%s: %s needs recovery and its external journal was not named: give it with -j, so that a log still in it is not lost\n",
			ej_prog, c->image);
		return 0;
	}
	c->opts.saved = c->from;
	return 1;
}

/* The journal device gets an undo file of its own. */
static int replay_journal_undo(struct replay_cmd *c)
{
	errcode_t err;

	c->journal_undo = malloc(strlen(c->undo) + sizeof(".journal"));
	if (!c->journal_undo) {
		com_err(ej_prog, ENOMEM, "while setting up undo");
		return 0;
	}
	sprintf(c->journal_undo, "%s.journal", c->undo);
	err = set_undo_io_backup_file(c->journal_undo);
	if (err) {
		com_err(ej_prog, err, "while setting up the undo file %s",
			c->journal_undo);
		return 0;
	}
	c->opts.io = ej_test_io_manager(undo_io_manager);
	return 1;
}

/* Open the image (and undo files); 0 when it is ready to replay into. */
static int replay_setup(struct replay_cmd *c)
{
	io_manager io = unix_io_manager;
	errcode_t err;

	if (c->from) {
		err = ej_saved_read_header(c->from, &c->hdr);
		if (err) {
			com_err(ej_prog, err, "while reading %s", c->from);
			return 0;
		}
	}
	if (c->undo) {
		err = set_undo_io_backing_manager(unix_io_manager);
		if (!err)
			err = set_undo_io_backup_file((char *)c->undo);
		if (err) {
			com_err(ej_prog, err,
				"while setting up the undo file %s", c->undo);
			return 0;
		}
		io = undo_io_manager;
	}
	if (c->dry_run)
		c->opts.flags |= EJ_OPEN_DRY_RUN;
	if (ej_open_image(c->image, c->dry_run ? 0 : EXT2_FLAG_RW, io,
			  &c->fs))
		return 0;
	if (!c->dry_run && !device_holds_fs(c->fs, c->image))
		return 0;
	if (c->from) {
		if (!replay_from_ok(c))
			return 0;
	} else if (c->undo && c->opts.ext_journal) {
		if (!replay_journal_undo(c))
			return 0;
	}
	if (c->undo) {
		fprintf(c->msg_out,
			"Overwriting existing filesystem; this can be undone using the command:\n    e2undo %s %s\n",
			c->undo, c->image);
		if (c->journal_undo)
			fprintf(c->msg_out, "    e2undo %s %s\n",
				c->journal_undo, c->opts.ext_journal);
		fputc('\n', c->msg_out);
	}
	return 1;
}

/* --skip/--force: explained, and the forces confirmed; 0 to go on. */
static int replay_confirm(struct replay_cmd *c)
{
	struct ej_report want = {
		.opts.upto_tid = (__u32)c->upto,
		.opts.upto_set = c->upto_set,
	};
	unsigned int forced = 0;
	int ret;

	if (!c->nr_ovr)
		return 0;
	ret = replay_prepass(c->fs, &c->opts, c->ovr, c->nr_ovr, &want,
			     &c->bar, &forced);
	if (ret || !forced || c->dry_run || c->yes)
		return ret;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr,
			"%s: not forcing without --yes: standard input is not a terminal\n",
			ej_prog);
		return EJ_EXIT_CANCELLED;
	}
	if (!ej_ask_yes("Write the forced blocks?")) {
		fprintf(stderr, "%s: cancelled; nothing written\n", ej_prog);
		return EJ_EXIT_CANCELLED;
	}
	return 0;
}

/* Load the journal with the overrides; -1 to go on, else exit status. */
static int replay_load(struct replay_cmd *c)
{
	struct ej_report *r;
	errcode_t err;

	err = ej_journal_open(c->fs, &c->opts, &c->journal);
	if (err) {
		if (ej_say_not_ours(c->opts.ext_journal && !c->from ?
				    c->opts.ext_journal : c->image, err))
			return EJ_EXIT_OPERATIONAL;
		if (err == EJ_BAD_SAVED && c->from)
			com_err(ej_prog, err,
				"while loading %s (truncated, or not of this filesystem)",
				c->from);
		else
			com_err(ej_prog, err, "while loading the journal of %s",
				c->image);
		if (c->json)
			ej_json_error(stdout, c->image, err,
				      "loading the journal",
				      ej_load_failure_exit(err));
		return ej_load_failure_exit(err);
	}
	r = ej_journal_report(c->journal);
	ej_report_on_message(r, print_msg, &c->rout);
	r->opts.overrides = c->ovr;
	r->opts.nr_overrides = c->nr_ovr;
	r->opts.upto_tid = (__u32)c->upto;
	r->opts.upto_set = c->upto_set;
	/* what the report prints and the overrides' explanation read */
	r->opts.keep_blocks = c->json || c->per_block || c->nr_ovr;
	c->bar.report = r;
	ej_report_on_progress(r, ej_bar_progress, &c->bar);

	if (c->journal->j_superblock->s_start)
		return -1;
	fprintf(c->msg_out, "%s: nothing to replay\n",
		c->from ? c->from : c->image);
	if (!c->dry_run) {
		err = ej_fs_clear_recover(c->fs);
		if (err) {
			com_err(ej_prog, err,
				"while clearing needs_recovery on %s", c->image);
			return EJ_EXIT_OPERATIONAL;
		}
	}
	return EJ_EXIT_OK;
}

/* What the recovery result says (ej_journal_outcome()), in our words. */
static void say_outcome(struct replay_cmd *c, const struct ej_outcome *o)
{
	if (o->msgs & EJ_MSG_RC_CSUM)
		fprintf(c->msg_out, "Journal checksum error found in %s\n",
			c->image);
	else if (o->msgs & EJ_MSG_RC_CORRUPT)
		fprintf(c->msg_out, "Journal corrupted in %s\n", c->image);
	else if (o->msgs & (EJ_MSG_RC_ERROR | EJ_MSG_KEPT))
		com_err(ej_prog, o->err, "while recovering the journal of %s",
			c->image);
}

/* After the replay: the journal reset, and what became of it said. */
static int replay_finish(struct replay_cmd *c, int rc,
			 const struct ej_outcome *o)
{
	unsigned int before = ej_journal_report(c->journal)->corrupt;
	errcode_t err;

	ej_journal_set_recover_result(c->journal, rc);
	err = ej_journal_finish(c->journal);
	ej_bar_done(&c->bar);
	if (err == EJ_FAST_COMMIT_PENDING) {
		/* replayed, but the journal and needs_recovery are kept */
		fprintf(c->msg_out, "%s: the journal holds fast commits, which "
			"only e2fsck replays: run e2fsck\n", c->image);
		return EJ_EXIT_UNCORRECTED;
	}
	if (err) {
		com_err(ej_prog, err, "while resetting the journal of %s",
			c->image);
		return EJ_EXIT_OPERATIONAL;
	}
	if (!(before & EJ_FLAGGED_FAST_COMMIT) &&
	    (ej_journal_report(c->journal)->corrupt &
	     EJ_FLAGGED_FAST_COMMIT)) {
		/* found by the fast-commit replay itself, after the report */
		fprintf(c->msg_out, "%s: fast-commit records were skipped "
			"(corruption flagged): run e2fsck -f\n", c->image);
		if (o->exit_code == EJ_EXIT_OK)
			return EJ_EXIT_FLAGGED;
	}
	if (c->nr_ovr) {
		fprintf(c->msg_out, "\nPer-block decisions:\n");
		report_overrides(ej_journal_report(c->journal), c->ovr,
				 c->nr_ovr, c->msg_out);
	}
	if (c->from && !c->dry_run)
		fprintf(c->msg_out,
			"%s: replayed from the saved journal %s; the journal on disk was left as it is\n",
			c->image, c->from);
	if (c->dry_run)
		fprintf(c->msg_out, "%s: dry run, nothing written\n", c->image);
	if (c->undo)
		fprintf(c->msg_out, "%s: what replay overwrote is in %s%s%s\n",
			c->image, c->undo, c->journal_undo ? " and " : "",
			c->journal_undo ? c->journal_undo : "");
	return o->exit_code;
}

/*
 * Recover, then carry out what the result means: under "stop" e2fsprogs
 * 1.47 resets the journal whatever recovery returned (the replayed
 * blocks are on disk first); refuse leaves a corrupt journal as it was.
 */
static int replay_run(struct replay_cmd *c)
{
	struct ej_outcome o;
	struct ej_report *r;
	errcode_t err;
	int rc;

	rc = jbd2_journal_recover(c->journal);
	/* the report's next transaction depends on it */
	ej_journal_set_recover_result(c->journal, rc);
	ej_bar_done(&c->bar);
	ej_journal_outcome(c->journal, c->opts.policy, rc, &o);
	say_outcome(c, &o);
	if (o.action == EJ_OUTCOME_KEEP)
		return o.exit_code;

	r = ej_journal_report(c->journal);
	if (c->json)
		err = ej_report_json(r, &c->text);
	else
		err = ej_report_text(r, c->per_block, &c->text);
	if (err) {
		com_err(ej_prog, err, "while writing the report");
		return EJ_EXIT_OPERATIONAL;
	}
	fputs(c->text, stdout);

	if (o.action == EJ_OUTCOME_REFUSED) {
		/* the journal and needs_recovery stay as they were */
		fprintf(c->msg_out, "%s: journal is corrupt; nothing replayed%s\n",
			c->image, c->opts.policy == JBD2_POLICY_REFUSE ?
			" (policy refuse)" : "");
		return o.exit_code;
	}
	return replay_finish(c, rc, &o);
}

static int replay_close(struct replay_cmd *c, int ret)
{
	errcode_t err;

	ej_bar_done(&c->bar);
	free(c->text);
	if (c->journal)
		ej_journal_close(c->journal);
	if (c->fs) {
		err = ej_fs_close(&c->fs);
		if (err && ret != EJ_EXIT_OPERATIONAL) {
			com_err(ej_prog, err, "while closing %s", c->image);
			ret = EJ_EXIT_OPERATIONAL;
		}
	}
	free(c->journal_undo);
	free(c->ovr);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
}

int ej_cmd_replay(int argc, char **argv)
{
	struct replay_cmd c = {
		.opts = {
			.policy = JBD2_POLICY_REPLAY_ALL,
			.io_flags = ej_io_flags,
		},
	};
	int ret;

	ej_bar_init(&c.bar, "replay");
	ret = replay_args(&c, argc, argv);
	if (ret == EJ_EXIT_USAGE) {
		free(c.ovr);
		return ej_usage_error("replay", "IMAGE");
	}
	if (ret >= 0)
		return replay_close(&c, ret);
	/* keep stdout clean for the JSON document */
	c.msg_out = c.json ? stderr : stdout;
	c.rout.f = c.msg_out;
	c.rout.bar = &c.bar;

	if (!replay_setup(&c))
		return replay_close(&c, EJ_EXIT_OPERATIONAL);
	ret = replay_confirm(&c);
	if (!ret)
		ret = replay_load(&c);
	if (ret < 0)
		ret = replay_run(&c);
	return replay_close(&c, ret);
}
