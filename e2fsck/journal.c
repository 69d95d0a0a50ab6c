// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c: e2fsck's journal phase, which decides whether the journal
 * is ours to replay or the device goes to the engine untouched.
 *
 * The checks (jcheck.c) follow e2fsprogs 1.47's e2fsck step for step
 * (which problem is looked for first, what each answer leads to), so
 * that on the same filesystem the same messages come out in the same
 * order; the replay (jreplay.c) is done by libe2journal under the
 * corrupt-journal policy.  The checks run twice: first as a rehearsal on
 * the filesystem opened read-only, which prints and writes nothing and
 * finds out whether e2fsck's answers lead to a replay.  When they do
 * not, the device is handed to the engine untouched: the engine is
 * e2fsck, it finds the same problems and deals with them itself, later
 * steps included (it recreates a journal it deleted only if it deleted
 * it in the same run).  When they do, the checks run for real, the
 * journal is replayed, and the engine is started on the result, which
 * is what e2fsck itself does after a replay: it starts over on the
 * replayed filesystem.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>
#include <uuid/uuid.h>

#include "e2fsck.h"
#include "test/ej_test.h"
#include "problem.h"
#include "jphase.h"

/*
 * Copy the journal, block by block, as it is now, in the library's saved
 * format (E2JSAVE1, as "e2journal save" writes it), so that "e2journal
 * replay --from", "show --from" and "dump" read it.
 */
static errcode_t save_journal(struct e2fsck_ctx *ctx)
{
	struct ej_open_opts o = {
		.policy = JBD2_POLICY_REPLAY_ALL,
		.flags = EJ_OPEN_READONLY | EJ_OPEN_NO_CHECK,
	};
	struct ej_saved_stats st;
	unsigned long long i;
	journal_t *j = NULL;
	errcode_t err;

	if (!ctx->save_file)
		return 0;
	if (!uuid_null(ctx->fs->super->s_journal_uuid))
		o.ext_journal = find_external(ctx);
	err = EXT2_ET_LOAD_EXT_JOURNAL;
	if ((!uuid_null(ctx->fs->super->s_journal_uuid) && !o.ext_journal) ||
	    (err = ej_journal_open(ctx->fs, &o, &j))) {
		log_err(ctx, "%s: no journal to save in %s\n",
			ctx->device_name, ctx->save_file);
		/* no journal at all: nothing that a replay could lose */
		return err == EJ_NO_JOURNAL ? 0 : err;
	}
	err = ej_saved_write(j, ctx->save_file, 0, NULL, NULL, &st);
	for (i = 0; i < st.nr_bad && i < EJ_SAVED_BAD_LISTED; i++)
		log_err(ctx, "%s: journal block %llu unreadable; saved as zeros in %s\n",
			ctx->device_name, st.bad[i], ctx->save_file);
	if (err)
		e2f_com_err(ctx, ctx->program_name, err, "while writing %s",
			ctx->save_file);
	ej_journal_close(j);
	return err;
}

/* A journal_save= copy not made: stop before anything is written. */
static _Noreturn void no_save(struct e2fsck_ctx *ctx, const char *name)
{
	log_err(ctx, "%s: the journal was not saved; nothing written\n",
		name);
	if (ctx->fs)
		ext2fs_free(ctx->fs);
	ctx->fs = NULL;
	fatal_error(ctx, "Cannot continue, aborting.\n");
}

/* The copy journal_save= asks for, whoever goes on to replay. */
static void save_or_stop(struct e2fsck_ctx *ctx)
{
	if (save_journal(ctx))
		no_save(ctx, ctx->device_name);
}

/* Does the device hold the whole filesystem (as far as we can tell)? */
static int device_holds_fs(struct e2fsck_ctx *ctx)
{
	blk64_t dev_blocks = 0;

	if (ext2fs_get_device_size2(ctx->filesystem_name, ctx->fs->blocksize,
				    &dev_blocks) || !dev_blocks)
		return 1;
	return dev_blocks >= ext2fs_blocks_count(ctx->fs->super);
}

/* ------------------------------------------------------------------ */
/* The phase                                                           */

static void set_device_name(struct e2fsck_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;
	char *cp;

	if (!ctx->device_name && sb->s_volume_name[0]) {
		ctx->device_name = calloc(1, sizeof(sb->s_volume_name) + 1);
		if (ctx->device_name)
			memcpy(ctx->device_name, sb->s_volume_name,
			       sizeof(sb->s_volume_name));
	}
	if (!ctx->device_name)
		ctx->device_name = strdup(ctx->filesystem_name);
	for (cp = ctx->device_name; cp && *cp; cp++)
		if (isspace((unsigned char)*cp) || *cp == ':')
			*cp = '_';
}

static io_manager setup_undo(struct e2fsck_ctx *ctx)
{
	io_manager io = unix_io_manager;
	errcode_t err;

	if (!ctx->undo_file)
		return io;
	err = set_undo_io_backing_manager(io);
	if (!err)
		err = set_undo_io_backup_file((char *)ctx->undo_file);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err, "%s",
			"while trying to setup undo file\n");
		exit(FSCK_ERROR);
	}
	log_out(ctx,
		"Overwriting existing filesystem; this can be undone using the command:\n    e2undo %s %s\n\n",
		ctx->undo_file, ctx->filesystem_name);
	return undo_io_manager;
}

static int opens_rw(const char *name)
{
	int fd = open(name, O_RDWR);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * The library reads no environment: the switches of its I/O come from
 * ours.  E2JOURNAL_IO picks the engine replay moves blocks with
 * (ej_io_flags_parse(): "plain", "fast", "no-dio", ...), E2JOURNAL_TEST_IO
 * sets up the test io manager (testio.c).
 */
static void io_setup(struct e2fsck_ctx *ctx)
{
	const char *spec = getenv("E2JOURNAL_IO");

	ej_test_io_config(getenv("E2JOURNAL_TEST_IO"));
	if (ej_io_flags_parse(spec, &ctx->io_flags))
		log_err(ctx, "%s: E2JOURNAL_IO=%s not understood; ignored\n",
			ctx->program_name, spec);
}

enum e2f_journal_action e2fsck_journal_phase(struct e2fsck_ctx *ctx)
{
	struct e2f_rehearsal rh;
	struct jstate st;
	int usable;
	io_manager io;
	errcode_t err;

	io_setup(ctx);

	/*
	 * A mounted filesystem's journal belongs to the kernel: the library's
	 * one check, and e2fsprogs' e2fsck words the refusal (or warns).
	 */
	if (ej_check_mount(ctx->filesystem_name, EJ_MOUNT_STRICT, NULL))
		return E2F_JOURNAL_DELEGATE;
	/* The rehearsal. */
	err = open_fs(ctx, EXT2_FLAG_64BITS | EXT2_FLAG_NOFREE_ON_ERROR,
		      unix_io_manager);
	if (err) {
		/* e2fsck tries backups, prints what it found: its job */
		if (ctx->fs)
			ext2fs_free(ctx->fs);
		ctx->fs = NULL;
		/* ... and would replay a journal we could not save first */
		if (ctx->save_file)
			no_save(ctx, ctx->filesystem_name);
		return E2F_JOURNAL_DELEGATE;
	}
	/*
	 * e2fsck makes up an undo file name itself: its business.  A device
	 * smaller than the fs: e2fsck asks whether to abort first.  Either
	 * way the copy journal_save= asks for is made before it runs.
	 */
	if ((ctx->undo_file && !ctx->undo_file[0]) ||
	    (!ctx->superblock && !(ctx->options & E2F_OPT_PREEN) &&
	     ext2fs_check_desc(ctx->fs)) || !device_holds_fs(ctx) ||
	    ctx->fs->super->s_rev_level > EXT2_DYNAMIC_REV ||
	    ext2fs_has_feature_mmp(ctx->fs->super)) {
		set_device_name(ctx);
		save_or_stop(ctx);
		goto delegate;
	}
	set_device_name(ctx);

	err = rehearse_checks(ctx, &st, &rh, 0);
	ctx->flags &= ~(E2F_FLAG_PROBLEMS_FIXED | E2F_FLAG_FORCE_ENGINE);
	usable = !err && !rh.stop && st.loaded;

	/* before anyone (us or the engine) writes to the journal */
	save_or_stop(ctx);
	if (!usable)
		goto delegate;
	if (ctx->options & E2F_OPT_READONLY) {
		if (ext2fs_has_feature_journal_needs_recovery(ctx->fs->super))
			report_dry_run(ctx, &st);
		goto delegate;
	}
	if (st.fast_commits) {
		log_err(ctx,
			"%s: the journal holds fast commits; leaving its replay to %s\n",
			ctx->device_name, E2FSCK_ENGINE);
		goto delegate;
	}
	if (!ext2fs_has_feature_journal_needs_recovery(ctx->fs->super) &&
	    !rh.asked)
		goto delegate;
	/*
	 * Not ours to write (a read-only image, an ordinary user): e2fsck
	 * says so in its words ("You must have r/w access...") and exits 8
	 * before it prints or writes anything else.
	 */
	if (!opens_rw(ctx->filesystem_name))
		goto delegate;
	ext2fs_free(ctx->fs);
	ctx->fs = NULL;

	/* For real. */
	e2fsck_banner(ctx);
	io = setup_undo(ctx);
	err = open_fs(ctx, fs_open_flags(ctx), io);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err,
			    "while trying to open %s", ctx->filesystem_name);
		fatal_error(ctx, NULL);
	}
	err = check_journal(ctx, &st);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err,
			    "while checking journal for %s", ctx->device_name);
		fatal_error(ctx, "Cannot proceed with file system check");
	}
	if (ext2fs_has_feature_journal_needs_recovery(ctx->fs->super)) {
		run_journal(ctx, io);
		return E2F_JOURNAL_DONE;
	}
	err = e2fsck_close_fs(ctx);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err, "while closing %s",
			ctx->device_name);
		fatal_error(ctx, NULL);
	}
	return E2F_JOURNAL_DONE;

delegate:
	ext2fs_free(ctx->fs);
	ctx->fs = NULL;
	return E2F_JOURNAL_DELEGATE;
}
