// SPDX-License-Identifier: LGPL-2.0
/*
 * image.c: the public ej_image API (e2journal.h) over the journal_t level.
 *
 * An ej_image is a filesystem opened with libext2fs plus what the caller
 * asked for (policy, external journal, overrides).  Each plan or replay
 * loads the journal afresh (a journal_t serves one recovery), runs
 * recovery.c on it and keeps it until the next one or the close, so that
 * its report can be read.  How recovery's result is read (a refusal, the
 * stop policy's e2fsprogs-compatible reset) is the same as in
 * "e2journal replay".
 */
#include "config.h"

#include "ej_int.h"

/* The public enums are recovery's values under other names. */
_Static_assert((int)EJ_POLICY_REPLAY_ALL == (int)JBD2_POLICY_REPLAY_ALL &&
	       (int)EJ_POLICY_STOP == (int)JBD2_POLICY_STOP &&
	       (int)EJ_POLICY_REFUSE == (int)JBD2_POLICY_REFUSE, "policy values");
_Static_assert((int)EJ_VERDICT_REPLAYED == (int)JBD2_BLOCK_REPLAYED &&
	       (int)EJ_VERDICT_REVOKED == (int)JBD2_BLOCK_REVOKED &&
	       (int)EJ_VERDICT_OUT_OF_RANGE == (int)JBD2_BLOCK_OUT_OF_RANGE &&
	       (int)EJ_VERDICT_USER_SKIP == (int)JBD2_BLOCK_USER_SKIP &&
	       (int)EJ_VERDICT_USER_SKIP + 1 == (int)JBD2_BLOCK_VERDICT_MAX,
	       "verdict values");
_Static_assert((int)EJ_COMMIT_OK == (int)JBD2_COMMIT_OK &&
	       (int)EJ_COMMIT_ASYNC_TAIL + 1 == (int)JBD2_COMMIT_STATUS_MAX,
	       "commit status values");
_Static_assert((int)EJ_FLAGGED_COMMIT_CSUM == (int)JBD2_CORRUPT_COMMIT_CSUM &&
	       (int)EJ_FLAGGED_IO_ERROR == (int)JBD2_CORRUPT_IO_ERROR &&
	       (int)EJ_FLAGGED_LOOP == (int)JBD2_CORRUPT_LOOP &&
	       (int)EJ_FLAGGED_FAST_COMMIT == (int)EJ_CORRUPT_FAST_COMMIT,
	       "corruption bits");

/* The first ej_options and ej_summary: what a program may pass at least. */
#define OPTIONS_V1_SIZE	(offsetof(struct ej_options, message_arg) + \
			 sizeof(void *))
#define SUMMARY_MIN_SIZE (offsetof(struct ej_summary, status) + sizeof(int))

struct ej_image {
	ext2_filsys		fs;
	char			*path;
	char			*journal_path;	/* NULL: internal */
	io_manager		io;		/* the caller's, or unix_io */
	char			*undo_file;	/* NULL: none */
	char			*journal_undo;	/* the external journal's */
	struct ej_options	opts;		/* size: ours, not the caller's */
	struct ej_override	*ovr;
	size_t			nr_ovr;
	journal_t		*journal;	/* of the last plan or replay */
	int			status;		/* its enum ej_status */
};

static void init_tables(void)
{
	/* both are no-ops when already done */
	initialize_ej_error_table();
	initialize_ext2_error_table();
}

int ej_api_version(void)
{
	return EJ_API_VERSION;
}

const char *ej_version(void)
{
	return PACKAGE_VERSION;
}

const char *ej_error_message(errcode_t code)
{
	init_tables();
	return error_message(code);
}

void ej_options_init(struct ej_options *opts, size_t size)
{
	struct ej_options d = {
		.size = size,
		.policy = EJ_POLICY_REPLAY_ALL,
	};

	if (!opts || size < sizeof(size_t))
		return;
	memset(opts, 0, size);
	memcpy(opts, &d, size < sizeof(d) ? size : sizeof(d));
}

/* The caller's options as this library knows them, or EJ_BAD_ARG. */
static errcode_t copy_options(const struct ej_options *in,
			      struct ej_options *out)
{
	const unsigned char *extra;
	size_t i;

	ej_options_init(out, sizeof(*out));
	if (!in)
		return 0;
	if (in->size < OPTIONS_V1_SIZE)
		return EJ_BAD_ARG;
	/* a newer program: what we do not know of must be unused */
	extra = (const unsigned char *)in;
	for (i = sizeof(*out); i < in->size; i++)
		if (extra[i])
			return EJ_BAD_ARG;
	/* an older one: what it does not know of stays at the defaults */
	memcpy(out, in, in->size < sizeof(*out) ? in->size : sizeof(*out));
	out->size = sizeof(*out);
	if (out->flags & ~(unsigned int)(EJ_OPT_READONLY | EJ_OPT_UPTO |
					 EJ_OPT_CHECK_MOUNT))
		return EJ_BAD_ARG;
	/* an undo file is for what replay writes */
	if (out->undo_file && (out->flags & EJ_OPT_READONLY))
		return EJ_BAD_ARG;
	if (out->policy < EJ_POLICY_REPLAY_ALL ||
	    out->policy > EJ_POLICY_REFUSE)
		return EJ_BAD_ARG;
	return 0;
}

/* Copy what the image keeps of the caller's strings. */
static errcode_t keep_names(ej_image *img, const char *path)
{
	img->path = strdup(path);
	if (!img->path)
		return EJ_NO_MEMORY;
	if (img->opts.journal) {
		img->journal_path = strdup(img->opts.journal);
		if (!img->journal_path)
			return EJ_NO_MEMORY;
	}
	img->opts.journal = img->journal_path;
	if (img->opts.undo_file) {
		img->undo_file = strdup(img->opts.undo_file);
		img->journal_undo = malloc(strlen(img->undo_file) +
					   sizeof(".journal"));
		if (!img->undo_file || !img->journal_undo)
			return EJ_NO_MEMORY;
		sprintf(img->journal_undo, "%s.journal", img->undo_file);
	}
	img->opts.undo_file = img->undo_file;
	return 0;
}

/*
 * Written: nobody else's (mounted, or held with O_EXCL), and held with
 * O_EXCL from the open on.  Read: only with EJ_OPT_CHECK_MOUNT.
 */
static errcode_t check_mount(const ej_image *img, int *flags)
{
	errcode_t err = 0;

	if (!(img->opts.flags & EJ_OPT_READONLY)) {
		err = ej_check_mount(img->path, 0, NULL);
		*flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	} else if (img->opts.flags & EJ_OPT_CHECK_MOUNT) {
		err = ej_check_mount(img->path, 0, NULL);
	}
	return err;
}

/* The io_manager the filesystem is opened through (an undo file's). */
static errcode_t fs_io(const ej_image *img, io_manager *io)
{
	errcode_t err;

	*io = img->io;
	if (!img->undo_file)
		return 0;
	err = set_undo_io_backing_manager(img->io);
	if (!err)
		err = set_undo_io_backup_file(img->undo_file);
	if (!err)
		*io = undo_io_manager;
	return err;
}

errcode_t ej_image_open2(const char *path, const char *io_options,
			 const struct ej_options *opts, uint64_t superblock,
			 unsigned int block_size,
			 struct struct_io_manager *io, ej_image **ret)
{
	ej_image *img;
	io_manager fio;
	errcode_t err;
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS;

	init_tables();
	if (!ret)
		return EJ_BAD_ARG;
	*ret = NULL;
	if (!path || (superblock && !block_size) ||
	    (!superblock && block_size) || superblock > 0x7fffffffULL)
		return EJ_BAD_ARG;
	img = calloc(1, sizeof(*img));
	if (!img)
		return EJ_NO_MEMORY;
	err = copy_options(opts, &img->opts);
	if (!err)
		err = keep_names(img, path);
	if (!err)
		err = check_mount(img, &flags);
	if (err)
		goto fail;
	/* ej_io_wrap() is the manager itself unless a program registered one */
	img->io = ej_io_wrap(io ? io : unix_io_manager);
	err = fs_io(img, &fio);
	if (err)
		goto fail;
	err = ext2fs_open2(img->path, io_options, flags, (int)superblock,
			   block_size, fio, &img->fs);
	if (err) {
		img->fs = NULL;
		/* mounted or opened with O_EXCL since the check */
		if (err == EBUSY && (flags & EXT2_FLAG_EXCLUSIVE))
			err = EJ_BUSY;
		goto fail;
	}
	*ret = img;
	return 0;
fail:
	ej_image_close(img);
	return err;
}

errcode_t ej_image_open(const char *path, const struct ej_options *opts,
			ej_image **ret)
{
	return ej_image_open2(path, NULL, opts, 0, 0, NULL, ret);
}

static void drop_journal(ej_image *img)
{
	if (img->journal)
		ej_journal_close(img->journal);
	img->journal = NULL;
	img->status = EJ_STATUS_EMPTY;
}

errcode_t ej_image_close(ej_image *img)
{
	errcode_t err = 0;

	if (!img)
		return 0;
	drop_journal(img);
	if (img->fs)
		err = ej_fs_close(&img->fs);
	free(img->ovr);
	free(img->journal_undo);
	free(img->undo_file);
	free(img->journal_path);
	free(img->path);
	free(img);
	return err;
}

errcode_t ej_image_override(ej_image *img, uint32_t tid, uint64_t fsblock,
			    int force)
{
	struct ej_override *p;
	size_t i;

	if (!img)
		return EJ_BAD_ARG;
	for (i = 0; i < img->nr_ovr; i++) {
		p = &img->ovr[i];
		if (p->tid != tid || p->fsblock != fsblock)
			continue;
		if (p->force != !!force)
			return EJ_BAD_OVERRIDE;
		return 0;	/* said twice */
	}
	p = realloc(img->ovr, (img->nr_ovr + 1) * sizeof(*p));
	if (!p)
		return EJ_NO_MEMORY;
	img->ovr = p;
	p[img->nr_ovr].tid = tid;
	p[img->nr_ovr].fsblock = fsblock;
	p[img->nr_ovr].force = !!force;
	img->nr_ovr++;
	return 0;
}

/* The library's progress, in the API's terms. */
static void image_progress(void *arg, unsigned long done, unsigned long total)
{
	ej_image *img = arg;
	int pass = EJ_PASS_READ;

	if (img->journal &&
	    ej_journal_report(img->journal)->progress_pass ==
	    EJ_PROGRESS_WRITE)
		pass = EJ_PASS_WRITE;
	img->opts.progress_fn(img->opts.progress_arg, pass, done, total);
}

/* Load the journal for a plan (@plan) or a replay, with the caller's asks. */
static errcode_t load_journal(ej_image *img, int plan)
{
	struct ej_open_opts o = {
		.ext_journal = img->journal_path,
		.policy = img->opts.policy,
		.io = img->io,
	};
	struct ej_report *r;
	errcode_t err;

	drop_journal(img);
	if (plan)
		o.flags = EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN;
	/* what replay writes in an external journal: an undo file of its own */
	if (!plan && img->journal_path && img->journal_undo) {
		err = set_undo_io_backing_manager(img->io);
		if (!err)
			err = set_undo_io_backup_file(img->journal_undo);
		if (err)
			return err;
		o.io = undo_io_manager;
	}
	err = ej_journal_open(img->fs, &o, &img->journal);
	if (err) {
		img->journal = NULL;
		return err;
	}
	r = ej_journal_report(img->journal);
	ej_report_on_message(r, img->opts.message_fn, img->opts.message_arg);
	r->opts.overrides = img->ovr;
	r->opts.nr_overrides = img->nr_ovr;
	r->opts.upto_tid = img->opts.upto_tid;
	r->opts.upto_set = !!(img->opts.flags & EJ_OPT_UPTO);
	/* ej_image_block() and the reports list them */
	r->opts.keep_blocks = 1;
	if (img->opts.progress_fn)
		ej_report_on_progress(r, image_progress, img);
	return 0;
}

/*
 * What recovery's return @rc means, as "e2journal replay" reads it: the
 * status, or an error to return (recovery could not run).  Under stop
 * e2fsprogs resets the journal whatever recovery said; elsewhere
 * -EFSCORRUPTED with corruption flagged means nothing was replayed.
 */
static errcode_t read_result(ej_image *img, int rc)
{
	const struct ej_report *r = ej_journal_report(img->journal);

	if (rc && img->opts.policy == EJ_POLICY_STOP)
		img->status = EJ_STATUS_FLAGGED;
	else if (rc == -EFSCORRUPTED && r->corrupt)
		img->status = EJ_STATUS_REFUSED;
	else if (rc && rc != -EFSBADCRC)
		return (errcode_t)-rc;
	else
		img->status = r->corrupt || rc ? EJ_STATUS_FLAGGED :
			EJ_STATUS_CLEAN;
	return 0;
}

static errcode_t fill_summary(const ej_image *img, int rc,
			      struct ej_summary *sum)
{
	struct ej_summary s;
	const struct ej_report *r;
	unsigned int v;
	size_t i, n;

	if (!sum)
		return 0;
	memset(&s, 0, sizeof(s));
	s.size = sum->size;
	s.status = img->status;
	s.policy = img->opts.policy;
	s.recover_error = rc < 0 ? (errcode_t)-rc : 0;
	if (img->journal) {
		r = ej_journal_report(img->journal);
		s.flagged = r->corrupt;
		s.start_tid = r->start_tid;
		s.next_tid = r->next_tid;
		s.nr_txns = r->nr_txns;
		for (i = 0; i < r->nr_txns; i++)
			if (r->txns[i].replay &&
			    img->status != EJ_STATUS_REFUSED)
				s.nr_txns_replayed++;
		s.blocks_written = r->counts[JBD2_BLOCK_REPLAYED];
		s.blocks_superseded = r->counts[JBD2_BLOCK_SUPERSEDED];
		s.blocks_revoked = r->counts[JBD2_BLOCK_REVOKED];
		for (v = 0; v < JBD2_BLOCK_VERDICT_MAX; v++)
			if (v != JBD2_BLOCK_REPLAYED &&
			    v != JBD2_BLOCK_SUPERSEDED &&
			    v != JBD2_BLOCK_REVOKED)
				s.blocks_skipped += r->counts[v];
	}
	n = sum->size < sizeof(s) ? sum->size : sizeof(s);
	memcpy(sum, &s, n);
	return 0;
}

/*
 * A plan or replay that could not be made: no report, and the summary
 * says whether the journal loaded (recovery itself failed: recover_error
 * is @err) or not (0).
 */
static errcode_t failed(ej_image *img, errcode_t err, int recovering,
			struct ej_summary *sum)
{
	drop_journal(img);
	fill_summary(img, 0, sum);
	if (sum && recovering && sum->size >= offsetof(struct ej_summary,
						      recover_error) +
	    sizeof(sum->recover_error))
		sum->recover_error = err;
	return err;
}

static errcode_t check_summary(const struct ej_summary *sum)
{
	if (sum && sum->size < SUMMARY_MIN_SIZE)
		return EJ_BAD_ARG;
	return 0;
}

errcode_t ej_image_plan(ej_image *img, struct ej_summary *summary)
{
	errcode_t err;
	int rc = 0;

	if (!img || check_summary(summary))
		return EJ_BAD_ARG;
	err = load_journal(img, 1);
	if (err)
		return failed(img, err, 0, summary);
	if (img->journal->j_superblock->s_start) {
		rc = jbd2_journal_recover(img->journal);
		/* what the report's next transaction depends on */
		ej_journal_set_recover_result(img->journal, rc);
		err = read_result(img, rc);
		if (err)
			return failed(img, err, 1, summary);
	}
	fill_summary(img, rc, summary);
	/* replay would keep the journal for e2fsck: say so here too */
	if (img->status != EJ_STATUS_REFUSED &&
	    ej_journal_fc_pending(img->journal))
		return EJ_FAST_COMMIT_PENDING;
	return 0;
}

/* Is the device at least as large as the filesystem on it? */
static int device_holds_fs(ext2_filsys fs, const char *path)
{
	blk64_t dev_blocks = 0;

	if (ext2fs_get_device_size2(path, fs->blocksize, &dev_blocks) ||
	    !dev_blocks)
		return 1;	/* unknown: e2fsck goes on too */
	return dev_blocks >= ext2fs_blocks_count(fs->super);
}


errcode_t ej_image_replay(ej_image *img, struct ej_summary *summary)
{
	errcode_t err;
	int rc;

	if (!img || check_summary(summary))
		return EJ_BAD_ARG;
	if (img->opts.flags & EJ_OPT_READONLY)
		return EJ_READ_ONLY;
	if (!device_holds_fs(img->fs, img->path))
		return EJ_TRUNCATED_IMAGE;
	err = load_journal(img, 0);
	if (err)
		return failed(img, err, 0, summary);
	if (!img->journal->j_superblock->s_start) {
		err = ej_fs_clear_recover(img->fs);
		if (err)
			return err;
		return fill_summary(img, 0, summary);
	}
	rc = jbd2_journal_recover(img->journal);
	ej_journal_set_recover_result(img->journal, rc);
	err = read_result(img, rc);
	if (err)
		return failed(img, err, 1, summary);
	if (img->status != EJ_STATUS_REFUSED) {
		err = ej_journal_finish(img->journal);
		if (err) {
			/* the report and summary say what was written */
			fill_summary(img, rc, summary);
			return err;
		}
	}
	return fill_summary(img, rc, summary);
}

static const struct ej_report *last_report(const ej_image *img)
{
	if (!img || !img->journal)
		return NULL;
	return ej_journal_report(img->journal);
}

errcode_t ej_image_report(const ej_image *img, int format, char **out)
{
	const struct ej_report *r = last_report(img);

	if (!out)
		return EJ_BAD_ARG;
	*out = NULL;
	if (!img)
		return EJ_BAD_ARG;
	if (!r)
		return EJ_NO_REPORT;
	switch (format) {
	case EJ_REPORT_TEXT:
		return ej_report_text(r, 0, out);
	case EJ_REPORT_TEXT_BLOCKS:
		return ej_report_text(r, 1, out);
	case EJ_REPORT_JSON:
		return ej_report_json(r, out);
	}
	return EJ_BAD_ARG;
}

size_t ej_image_nr_txns(const ej_image *img)
{
	const struct ej_report *r = last_report(img);

	return r ? r->nr_txns : 0;
}

errcode_t ej_image_txn(const ej_image *img, size_t i, struct ej_txn *txn)
{
	const struct ej_report *r = last_report(img);
	const struct jbd2_txn_info *t;

	if (!img || !txn)
		return EJ_BAD_ARG;
	if (!r)
		return EJ_NO_REPORT;
	if (i >= r->nr_txns)
		return EJ_BAD_ARG;
	t = &r->txns[i];
	memset(txn, 0, sizeof(*txn));
	txn->tid = t->tid;
	txn->status = (int)t->status;
	txn->replayed = t->replay && img->status != EJ_STATUS_REFUSED;
	txn->nr_blocks = t->nr_blocks;
	txn->first_block = t->first_block;
	txn->commit_sec = t->commit_sec;
	return 0;
}

size_t ej_image_nr_blocks(const ej_image *img)
{
	const struct ej_report *r = last_report(img);

	return r ? r->nr_blocks : 0;
}

errcode_t ej_image_block(const ej_image *img, size_t i,
			 struct ej_block *block)
{
	const struct ej_report *r = last_report(img);
	const struct ej_block_entry *b;

	if (!img || !block)
		return EJ_BAD_ARG;
	if (!r)
		return EJ_NO_REPORT;
	if (i >= r->nr_blocks)
		return EJ_BAD_ARG;
	b = &r->blocks[i];
	memset(block, 0, sizeof(*block));
	block->tid = b->tid;
	block->verdict = (int)b->verdict;
	block->jblock = b->jblock;
	block->fsblock = b->fsblock;
	return 0;
}
