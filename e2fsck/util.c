// SPDX-License-Identifier: GPL-2.0
/*
 * util.c: what every part of our e2fsck uses: its output (the banner,
 * log_out, log_err), its ways out (fatal_error, preenhalt), opening,
 * writing and closing the filesystem, SIGINT/SIGTERM before the engine
 * runs, and finding devices through libblkid.
 *
 * It calls nothing else of e2fsck/: the other files call into it, so
 * that the files of e2fsck/ depend on each other in one direction only
 * (tests/e2fsck/layers.sh).
 */
#include "config.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>
#include <blkid.h>

#include "e2fsck.h"
#include "test/ej_test.h"

/* ------------------------------------------------------------------ */
/* Output                                                              */

/*
 * e2fsck prints its version banner on stderr before anything else.  Ours
 * goes out just before the first thing the journal phase prints, so that
 * when the journal phase has nothing to say the engine's own banner is
 * the only one; once ours is out, the engine's is filtered away.
 */
void e2fsck_banner(struct e2fsck_ctx *ctx)
{
	const char *ver, *date;

	if (ctx->flags & E2F_FLAG_BANNER)
		return;
	ctx->flags |= E2F_FLAG_BANNER;
	if (ctx->options & E2F_OPT_PREEN)
		return;
	ext2fs_get_library_version(&ver, &date);
	fprintf(stderr, "e2fsck %s (%s)\n", ver, date);
}

void log_out(struct e2fsck_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	e2fsck_banner(ctx);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void log_err(struct e2fsck_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	e2fsck_banner(ctx);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * As e2fsck's: say whether the filesystem was changed and whether it
 * still has errors, and exit 8 plus those bits.
 */
_Noreturn void fatal_error(struct e2fsck_ctx *ctx, const char *msg)
{
	ext2_filsys fs = ctx->fs;
	int exit_value = FSCK_ERROR;

	if (msg)
		log_err(ctx, "e2fsck: %s\n", msg);
	if (fs) {
		if (fs->io)
			io_channel_flush(fs->io);
		if (ext2fs_test_changed(fs)) {
			exit_value |= FSCK_NONDESTRUCT;
			log_out(ctx,
				"\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n",
				ctx->device_name);
		}
		if (!ext2fs_test_valid(fs)) {
			log_out(ctx,
				"\n%s: ********** WARNING: Filesystem still has errors **********\n\n",
				ctx->device_name);
			exit_value |= FSCK_UNCORRECTED;
			exit_value &= ~FSCK_NONDESTRUCT;
		}
	}
	exit(exit_value);
}

/* Preen mode met something it may not fix alone: e2fsck's words, exit 4. */
_Noreturn void preenhalt(struct e2fsck_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;

	log_err(ctx,
		"\n\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n\t(i.e., without -a or -p options)\n",
		ctx->device_name);
	if (fs) {
		fs->super->s_state |= EXT2_ERROR_FS;
		ext2fs_mark_super_dirty(fs);
		e2fsck_close_fs(ctx);
	}
	exit(FSCK_UNCORRECTED);
}

/* ------------------------------------------------------------------ */
/* Opening, writing and closing the filesystem                          */

/* (Re)open the filesystem as the journal phase opens it. */
errcode_t open_fs(struct e2fsck_ctx *ctx, int flags, io_manager io)
{
	unsigned long bs = ctx->blocksize;
	errcode_t err;

	if (ctx->superblock && !bs) {
		ext2_filsys fs;

		for (bs = EXT2_MIN_BLOCK_SIZE; bs <= EXT2_MAX_BLOCK_SIZE;
		     bs *= 2) {
			fs = NULL;
			err = ext2fs_open2(ctx->filesystem_name,
					   ctx->io_options, flags,
					   ctx->superblock, bs,
					   unix_io_manager, &fs);
			if (fs)
				ext2fs_free(fs);
			if (!err)
				break;
		}
		if (err)
			return err;
	}
	err = ext2fs_open2(ctx->filesystem_name, ctx->io_options, flags,
			   ctx->superblock, ctx->superblock ? bs : 0,
			   ej_test_io_manager(io), &ctx->fs);
	if (!err) {
		const char *clock = getenv("E2FSCK_TIME");

		ctx->fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
		/* e2fsprogs' test clock: its e2fsck sets fs->now from it */
		if (clock)
			ctx->fs->now = (time_t)strtoull(clock, NULL, 0);
	}
	return err;
}

int fs_open_flags(struct e2fsck_ctx *ctx)
{
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_NOFREE_ON_ERROR;

	if (!(ctx->options & E2F_OPT_READONLY))
		flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	return flags;
}

/*
 * Write the superblock as it stands in memory, as ext2fs_flush() would
 * but whole, in one write (ej_fs_write_super): libext2fs writes each
 * changed run of bytes on its own, and a power cut between two of them
 * leaves a superblock no e2fsck opens without -b.  When the backups must
 * change too (MASTER_SB_ONLY cleared), libext2fs writes them and the
 * group descriptors after; its own write of the primary then finds
 * nothing changed (its clock pinned to the time just written).
 */
errcode_t e2fsck_write_super(struct e2fsck_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	time_t now = fs->now;
	errcode_t err;

	fs->super->s_wtime = fs->now ? fs->now : time(NULL);
	err = ej_fs_write_super(fs, fs->super);
	if (err || (fs->flags & EXT2_FLAG_MASTER_SB_ONLY))
		return err;
	fs->now = fs->super->s_wtime;
	ext2fs_mark_super_dirty(fs);
	err = ext2fs_flush(fs);
	fs->now = now;
	return err;
}

/* ext2fs_close_free(), the superblock written by e2fsck_write_super(). */
errcode_t e2fsck_close_fs(struct e2fsck_ctx *ctx)
{
	errcode_t err = 0;

	/* the primary alone: ej_fs_close() writes it, statistics and all */
	if ((ctx->fs->flags & EXT2_FLAG_DIRTY) &&
	    (ctx->fs->flags & EXT2_FLAG_RW) &&
	    !(ctx->fs->flags & EXT2_FLAG_MASTER_SB_ONLY))
		err = e2fsck_write_super(ctx);
	if (err) {
		ext2fs_free(ctx->fs);
		ctx->fs = NULL;
		return err;
	}
	return ej_fs_close(&ctx->fs);
}

/* ------------------------------------------------------------------ */
/* SIGINT and SIGTERM before the engine                                 */

/*
 * SIGINT and SIGTERM before the engine starts: e2fsck notes them, lets
 * a replay under way finish, and exits 8 before pass 1 (its signal check
 * after the journal).  At a question they cancel it, as "^C" does
 * (ask_yn).  While the engine runs, they are the engine's.
 */
static atomic_int cancelled;	/* lock-free: set in a handler */
static int cancel_caught;

static void note_cancel(int sig)
{
	cancelled = sig;
}

/*
 * Interrupted system calls are restarted (the replay's threads may be
 * the ones interrupted), except while a question waits for its answer
 * (@at_question): then the read must give way.
 */
void e2fsck_catch_cancel(int at_question)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = note_cancel;
	sa.sa_flags = at_question ? 0 : SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cancel_caught = 1;
}

int e2fsck_cancelled(void)
{
	return cancelled != 0;
}

int e2fsck_cancel_caught(void)
{
	return cancel_caught;
}

/* ------------------------------------------------------------------ */
/* Devices                                                              */

/*
 * Devices named by tag (UUID=, LABEL=, PARTUUID=, PARTLABEL=) are found
 * as e2fsck finds them, through libblkid and its cache (BLKID_FILE, or
 * a probe of every device in /proc/partitions): no udev links needed.
 */
static blkid_cache blkid;
static int blkid_tried;

static blkid_cache get_blkid(void)
{
	if (!blkid_tried) {
		blkid_tried = 1;
		if (blkid_get_cache(&blkid, NULL))
			blkid = NULL;
	}
	return blkid;
}

/* The device whose tag @token has @value, malloc'ed; NULL if none. */
char *e2fsck_find_dev(const char *token, const char *value)
{
	blkid_cache c = get_blkid();

	return c ? blkid_get_devname(c, token, value) : NULL;
}

/* The device with number @devno, malloc'ed; NULL if none. */
char *e2fsck_find_devno(unsigned long devno)
{
	return devno ? blkid_devno_to_devname(devno) : NULL;
}

/* The libblkid cache, when one was opened, is given back. */
void e2fsck_put_blkid(void)
{
	if (blkid)
		blkid_put_cache(blkid);
	blkid = NULL;
	blkid_tried = 0;
}
