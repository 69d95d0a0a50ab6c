// SPDX-License-Identifier: GPL-2.0
/*
 * jreplay.c: the replay run, e2fsck's e2fsck_run_ext3_journal with the
 * library's replay under the corrupt-journal policy (run_journal): the
 * journal opened through libe2journal, recovered, reported, finished or
 * kept as the outcome says (outcome.c), and e2fsck's state after it
 * (after_replay).  Under -n, what the replay would do (report_dry_run).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2fsck.h"
#include "problem.h"
#include "jphase.h"

static void recovery_msg(void *arg, const char *msg)
{
	log_out(arg, "%s", msg);
}

static errcode_t open_library_journal(struct e2fsck_ctx *ctx, int policy,
				      unsigned int flags, journal_t **ret)
{
	/*
	 * The checks above are e2fsck's, and they have passed: the
	 * library's stricter ones (an external journal must list the
	 * filesystem among its users, which e2fsck never asks) would refuse
	 * journals e2fsck replays.  The journal is mapped as e2fsck maps
	 * it (EJ_OPEN_E2FSCK).
	 */
	struct ej_open_opts o = {
		.policy = policy,
		.flags = flags | EJ_OPEN_NO_CHECK | EJ_OPEN_E2FSCK,
		.io_flags = ctx->io_flags,
	};
	struct ej_report *r;
	errcode_t err;

	if (!uuid_null(ctx->fs->super->s_journal_uuid)) {
		o.ext_journal = find_external(ctx);
		if (!o.ext_journal)
			return EXT2_ET_LOAD_EXT_JOURNAL;
	}
	err = ej_journal_open(ctx->fs, &o, ret);
	if (err)
		return err;
	r = ej_journal_report(*ret);
	ej_report_on_message(r, recovery_msg, ctx);
	/* the JSON report lists every logged block; nothing else reads them */
	r->opts.keep_blocks = ctx->report_file != NULL;
	return 0;
}

static void write_report(struct e2fsck_ctx *ctx, journal_t *j)
{
	char *json = NULL;
	errcode_t err;
	FILE *f;

	if (!ctx->report_file)
		return;
	err = ej_report_json(ej_journal_report(j), &json);
	if (!err) {
		f = fopen(ctx->report_file, "w");
		if (!f) {
			err = errno;
		} else {
			fputs(json, f);
			if (fclose(f))
				err = errno;
		}
	}
	if (err)
		e2f_com_err(ctx, ctx->program_name, err, "while writing %s",
			ctx->report_file);
	free(json);
}

static const struct {
	unsigned int	bit;
	const char	*words;
} damage_words[] = {
	{ JBD2_CORRUPT_COMMIT_CSUM,	"a commit block checksum failed" },
	{ JBD2_CORRUPT_DATA_CSUM,	"a data block checksum failed" },
	{ JBD2_CORRUPT_DESCR_CSUM,
	  "a descriptor block checksum failed" },
	{ JBD2_CORRUPT_REVOKE_CSUM,	"a revoke block checksum failed" },
	{ JBD2_CORRUPT_GARBLED,		"a block header is garbled" },
	{ JBD2_CORRUPT_OUT_OF_RANGE,
	  "a block is logged for a place outside the filesystem" },
	{ JBD2_CORRUPT_IO_ERROR,	"a journal block could not be read" },
	{ JBD2_CORRUPT_REVOKE_COUNT,
	  "a revoke block overstates its size" },
	{ JBD2_CORRUPT_SUPERBLOCK,
	  "the journal superblock failed its checks" },
	{ JBD2_CORRUPT_LOOP,		"the log runs round onto itself" },
	{ EJ_FLAGGED_FAST_COMMIT,	"a fast commit failed its checks" },
};

static void say_damage(struct e2fsck_ctx *ctx, unsigned int bits)
{
	const char *sep = "";
	size_t i;

	log_out(ctx, "%s: journal is damaged: ", ctx->device_name);
	for (i = 0; i < ARRAY_SIZE(damage_words); i++) {
		if (bits & damage_words[i].bit) {
			log_out(ctx, "%s%s", sep, damage_words[i].words);
			sep = "; ";
		}
	}
	log_out(ctx, ".\n");
}

static unsigned long skipped_blocks(const struct ej_report *r)
{
	return r->counts[JBD2_BLOCK_BAD_CSUM] +
	       r->counts[JBD2_BLOCK_UNTRUSTED_DESC] +
	       r->counts[JBD2_BLOCK_OUT_OF_RANGE] +
	       r->counts[JBD2_BLOCK_IO_ERROR];
}

/*
 * What becomes of a flagged filesystem: the full check now, or, under
 * journal_only (which checks in full only with -f, -c or -l), the error
 * state that makes the next e2fsck check it in full.
 */
static const char *full_check_words(struct e2fsck_ctx *ctx)
{
	if ((ctx->options & E2F_OPT_JOURNAL_ONLY) &&
	    !(ctx->options & E2F_OPT_FORCE) && !ctx->cflag &&
	    !ctx->bad_blocks_file)
		return "marked with errors: the next e2fsck checks it in full (journal_only)";
	return "forcing a full check";
}

/* replay-all: say in plain words what was replayed despite the damage. */
static void say_replayed_anyway(struct e2fsck_ctx *ctx, journal_t *j)
{
	const struct ej_report *r = ej_journal_report(j);
	tid_t bad = j->j_replay_first_bad;
	unsigned int later = 0, replayed = 0;
	int bad_known = 0, bad_replayed = 0;
	size_t i;

	say_damage(ctx, r->corrupt);
	for (i = 0; i < r->nr_txns; i++) {
		const struct jbd2_txn_info *t = &r->txns[i];

		replayed += t->replay;
		if (t->tid == bad && r->corrupt & ~JBD2_CORRUPT_SUPERBLOCK) {
			bad_known = 1;
			bad_replayed = t->replay;
		} else if (bad_known && tid_gt(t->tid, bad)) {
			later += t->replay;
		}
	}
	if (bad_known)
		log_out(ctx,
			"%s: journal transaction %u was corrupt; %s and %u later transaction(s), skipped %lu bad block(s); %s\n",
			ctx->device_name, bad,
			bad_replayed ? "replayed it" :
				       "did not replay it, replayed",
			later, skipped_blocks(r), full_check_words(ctx));
	else
		log_out(ctx,
			"%s: replayed %u transaction(s) despite the damage, skipped %lu bad block(s); %s\n",
			ctx->device_name, replayed, skipped_blocks(r),
			full_check_words(ctx));
}

/*
 * -n: nothing is written, but say what the replay would do.  e2fsck then
 * skips the replay and checks the filesystem as it stands.  Under "stop"
 * the output is e2fsprogs' own, which says nothing here: the rehearsal is
 * then only made for a report file (-E journal_report=).
 */
void report_dry_run(struct e2fsck_ctx *ctx, const struct jstate *st)
{
	int quiet = ctx->policy == JBD2_POLICY_STOP;
	journal_t *j;
	char *text = NULL;
	errcode_t err;
	int ret;

	if (quiet && !ctx->report_file)
		return;
	if (st->fast_commits) {
		if (quiet)
			return;
		log_out(ctx,
			"%s: the journal holds fast commits, which only e2fsprogs' e2fsck replays\n",
			ctx->device_name);
		return;
	}
	err = open_library_journal(ctx, ctx->policy,
				   EJ_OPEN_READONLY | EJ_OPEN_DRY_RUN,
				   &j);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err,
			"while reading the journal of %s", ctx->device_name);
		return;
	}
	/* before the rehearsal, so that what it prints comes under it */
	if (!quiet)
		log_out(ctx,
			"%s: the journal needs recovery, but nothing is written under -n; this is what replay (journal_policy=%s) would do:\n",
			ctx->device_name, ej_policy_name(ctx->policy));
	ret = jbd2_journal_recover(j);
	ej_journal_set_recover_result(j, ret);	/* the report's next tid */
	if (ret && ret != -EFSCORRUPTED && ret != -EFSBADCRC && !quiet)
		e2f_com_err(ctx, ctx->program_name, -ret,
			"while reading the journal of %s", ctx->device_name);
	if (!quiet && !ej_report_text(ej_journal_report(j), 0, &text))
		log_out(ctx, "%s", text);
	free(text);
	write_report(ctx, j);
	ej_journal_close(j);
}

/*
 * The journal was replayed: e2fsck's state after its replay, before it
 * starts over.  The replayed blocks may include the superblock, so the
 * filesystem is read afresh first.
 */
static errcode_t after_replay(struct e2fsck_ctx *ctx, io_manager io, int error)
{
	struct e2f_rehearsal rh;
	struct jstate st;
	errcode_t err;
	int quiet;

	ext2fs_free(ctx->fs);
	ctx->fs = NULL;
	err = open_fs(ctx, fs_open_flags(ctx), io);
	if (err) {
		e2f_com_err(ctx, ctx->program_name, err,
			    "while trying to re-open %s", ctx->device_name);
		fatal_error(ctx, NULL);
	}
	if (ctx->count_kbytes)
		ctx->fs->super->s_kbytes_written += ctx->replay_bytes >> 10;
	clear_recover(ctx, error);
	if (ctx->flags & E2F_FLAG_FLAGGED)
		ctx->fs->super->s_state |= EXT2_ERROR_FS;

	/*
	 * e2fsck looks at the journal once more here, to turn a journal
	 * error into a filesystem error.  Anything else it could find now
	 * (replay may have rewritten the journal inode) is left to the
	 * engine, which finds and fixes it in full; a silent rehearsal says
	 * whether the journal is sound enough for this step.
	 */
	err = rehearse_checks(ctx, &st, &rh, 1);
	quiet = !err && st.loaded && !rh.stop && !rh.asked;
	if (!err && st.loaded && !rh.stop &&
	    ext2fs_has_feature_journal(ctx->fs->super)) {
		struct jcheck jc;

		if (!get_journal(ctx, &jc)) {
			/*
			 * The error state reaches the disk before the
			 * journal's record of it is cleared: power lost in
			 * between must not leave a clean-looking filesystem.
			 */
			if (!load_journal(ctx, &jc) && jc.jsb->s_errno) {
				ctx->fs->super->s_state |= EXT2_ERROR_FS;
				if (!e2fsck_write_super(ctx))
					jc.jsb->s_errno = 0;
			}
			release_journal(ctx, &jc, 0, 0);
		}
	}
	if ((ctx->options & E2F_OPT_JOURNAL_ONLY) && !error && quiet &&
	    journal_only_done(ctx))
		ctx->flags |= E2F_FLAG_NO_ENGINE;
	ext2fs_mark_super_dirty(ctx->fs);
	/* counted above as e2fsprogs counts them (count_replay_start) */
	channel_bytes(ctx->fs->io, 1);
	err = e2fsck_close_fs(ctx);
	if (err)
		e2f_com_err(ctx, ctx->program_name, err, "while closing %s",
			ctx->device_name);
	return err;
}

/*
 * The report's text; under -p every line carries "DEVICE: ", as each of
 * e2fsck's preen messages does, so that parallel checks stay apart.
 */
static void log_report(struct e2fsck_ctx *ctx, const char *text)
{
	const char *nl;

	if (!(ctx->options & E2F_OPT_PREEN)) {
		log_out(ctx, "%s", text);
		return;
	}
	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl) {
			log_out(ctx, "%s: %s\n", ctx->device_name, text);
			break;
		}
		if (nl > text)
			log_out(ctx, "%s: %.*s\n", ctx->device_name,
				(int)(nl - text), text);
	}
}

/* refuse (or a superblock in doubt): what was found, nothing replayed. */
static void say_refused(struct e2fsck_ctx *ctx, journal_t *j)
{
	char *text = NULL;

	say_damage(ctx, ej_journal_report(j)->corrupt);
	if (!ej_report_text(ej_journal_report(j), 0, &text))
		log_report(ctx, text);
	free(text);
	log_out(ctx,
		"%s: nothing replayed%s; the journal and the needs_recovery flag are left as they were\n",
		ctx->device_name,
		ctx->policy == JBD2_POLICY_REFUSE ?
		" (journal_policy=refuse)" :
		": the journal superblock's V2 fields are invalid and the log does not parse cleanly");
}

/*
 * Let the recovered journal go: under stop as e2fsprogs 1.47 does (its
 * own bookkeeping, bit for bit; it stores -EINVAL unswapped, and any
 * non-zero s_errno means the same), otherwise through the library.
 */
static errcode_t finish_journal(struct e2fsck_ctx *ctx, journal_t *j,
				const struct ej_outcome *o, int ret)
{
	journal_superblock_t *jsb = j->j_superblock;
	errcode_t err;

	if (ctx->policy != JBD2_POLICY_STOP) {
		unsigned int before = ej_journal_report(j)->corrupt;

		err = ej_journal_finish(j);
		if (o->msgs & EJ_MSG_REPLAYED_ANYWAY)
			say_replayed_anyway(ctx, j);
		/* what the fast-commit replay itself skipped (issue 33) */
		if (!err && !(before & EJ_FLAGGED_FAST_COMMIT) &&
		    (ej_journal_report(j)->corrupt & EJ_FLAGGED_FAST_COMMIT))
			say_damage(ctx, EJ_FLAGGED_FAST_COMMIT);
		return err;
	}
	if (o->msgs & EJ_MSG_TXN_CORRUPT) {
		fix_problem(ctx, PR_0_JNL_TXN_CORRUPT, j->j_failed_commit);
		jsb->s_errno = ext2fs_cpu_to_le32((__u32)-EINVAL);
	}
	if (ret)
		jsb->s_sequence = cpu_to_be32(j->j_tail_sequence);
	else
		jsb->s_sequence = cpu_to_be32(j->j_transaction_sequence);
	jsb->s_start = 0;
	err = ej_journal_write_sb(j);
	if (o->msgs & EJ_MSG_OUT_OF_RANGE)
		log_out(ctx,
			"%s: %lu logged block(s) name a place outside the filesystem or inside the journal; not written\n",
			ctx->device_name,
			ej_journal_report(j)->counts[JBD2_BLOCK_OUT_OF_RANGE]);
	return err;
}

/* e2fsck's e2fsck_run_ext3_journal, with the library's replay. */
void run_journal(struct e2fsck_ctx *ctx, io_manager io)
{
	struct ej_outcome o = { .action = EJ_OUTCOME_FINISH };
	unsigned long long flushed = 0, wrote = 0;
	int dirty = !!(ctx->fs->flags & EXT2_FLAG_DIRTY);
	struct jcheck jc;
	journal_t *j = NULL;
	unsigned int oflags;
	int policy = ctx->policy;
	errcode_t err, ferr;
	int ret = 0;

	/* a log whose layout is in doubt is replayed only if it parses */
	if (ctx->jsb_v2_kept && policy == JBD2_POLICY_REPLAY_ALL)
		policy = JBD2_POLICY_REFUSE;
	log_out(ctx, "%s: recovering journal\n", ctx->device_name);
	if (ctx->fs->flags & EXT2_FLAG_DIRTY) {
		flushed = flush_bytes(ctx->fs);
		wrote = channel_bytes(ctx->fs->io, 0);
		e2fsck_write_super(ctx);
		wrote = channel_bytes(ctx->fs->io, 0) - wrote;
	}
	count_replay_start(ctx);
	/* e2fsprogs' flush counted in place of ours */
	ctx->replay_bytes = ctx->replay_bytes - wrote + flushed;

	/* as e2fsck: the journal is found and loaded again first */
	err = get_journal(ctx, &jc);
	if (err)
		goto done;
	err = load_journal(ctx, &jc);
	if (err) {
		release_journal(ctx, &jc, 1, 0);
		goto done;
	}
	/*
	 * An empty log (s_start 0): e2fsprogs' recovery returns before the
	 * sync that ends a replay, and with nothing flushed before it the
	 * journal superblock its checks wrote back is still in unix_io's
	 * cache when the channel's bytes are counted: none are.
	 */
	if (!dirty && !jc.jsb->s_start)
		ctx->replay_bytes = 0;
	oflags = 0;
	/* refused whatever else it holds: nothing may be written */
	if (policy == JBD2_POLICY_REFUSE && jc.csum_bad)
		oflags = EJ_OPEN_DRY_RUN;
	put_journal(&jc);

	err = open_library_journal(ctx, policy, oflags, &j);
	if (err && ctx->policy != JBD2_POLICY_STOP) {
		/* better e2fsprogs' replay than none (e2fsck would drop it) */
		e2f_com_err(ctx, ctx->program_name, err,
			    "while opening the journal of %s; leaving its replay to %s",
			    ctx->device_name, E2FSCK_ENGINE);
		e2fsck_close_fs(ctx);
		return;
	}
	if (err)
		goto done;
	/*
	 * A superblock whose checksum failed is used under replay-all (its
	 * blocks are checked one by one) and is reason enough to refuse.
	 */
	kb_start(ctx, j);
	e2f_progress_start(ctx, ej_journal_report(j));
	ret = jbd2_journal_recover(j);
	ej_journal_set_recover_result(j, ret);	/* the report's next tid */
	e2f_progress_end(ctx);
	count_replayed(ctx, j);
	write_report(ctx, j);
	ej_journal_outcome(j, policy, ret, &o);
	err = -ret;

	switch (o.action) {
	case EJ_OUTCOME_KEEP:
		e2f_com_err(ctx, ctx->program_name, o.err,
			    "while recovering journal of %s; the journal is kept",
			    ctx->device_name);
		break;
	case EJ_OUTCOME_REFUSED:
		say_refused(ctx, j);
		break;
	case EJ_OUTCOME_FINISH:
		ferr = finish_journal(ctx, j, &o, ret);
		if (ferr && !err)
			err = ferr;
		/*
		 * Flagged only by the fast-commit replay, after the plan:
		 * the library marked the filesystem with errors (the engine
		 * checks it in full); the status says it was changed.
		 */
		if (!ferr && ctx->policy != JBD2_POLICY_STOP &&
		    (ej_journal_report(j)->corrupt & EJ_FLAGGED_FAST_COMMIT))
			ctx->exit_value |= FSCK_NONDESTRUCT;
		break;
	}
	ctx->exit_value |= o.exit_code & ~FSCK_NONDESTRUCT;
	if (o.flagged) {
		ctx->flags |= E2F_FLAG_FLAGGED;
		ctx->exit_value |= FSCK_NONDESTRUCT;
	}
done:
	if (j)
		ej_journal_close(j);
	if (o.action != EJ_OUTCOME_FINISH) {
		/* nothing is reset, nothing is checked */
		ext2fs_free(ctx->fs);
		ctx->fs = NULL;
		ctx->flags |= E2F_FLAG_NO_ENGINE;
		return;
	}
	after_replay(ctx, io, err != 0);

	if (err == EFSBADCRC)
		log_out(ctx, "Journal checksum error found in %s\n",
			ctx->device_name);
	else if (err == EFSCORRUPTED)
		log_out(ctx, "Journal corrupted in %s\n", ctx->device_name);
	else if (err)
		e2f_com_err(ctx, ctx->program_name, err,
			"while recovering journal of %s", ctx->device_name);
}
