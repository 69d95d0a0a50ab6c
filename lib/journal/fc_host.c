// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_host.c: the fast-commit phase of a replay by the library.
 *
 * recovery.c hands the fast-commit area to j_fc_replay_callback after
 * its scan pass and again after its replay pass, as Linux does.  Here
 * the scan pass collects the area and judges it (fc_scan.c, then the
 * records against the filesystem, fc_replay.c); a flagged row sets
 * EJ_CORRUPT_FAST_COMMIT in j_replay_corrupt before any block is
 * written, so that "refuse" refuses the journal as a whole.  The replay
 * pass only notes that recovery got that far: the full commits are still
 * in the glue's buffers then, and fast commits apply on top of them.
 * ej_fc_host_finish() replays them from ej_journal_finish(), after the
 * full commits are on disk and before the log is reset.
 *
 * Under "stop" no callback is installed: the fast-commit phase stays
 * e2fsprogs' (EJ_FAST_COMMIT_PENDING, as before).
 */
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"

static int fc_callback(journal_t *j, struct buffer_head *bh,
		       enum passtype pass, int off, tid_t expected)
{
	struct ej_host *h = ej_host_of(j);
	unsigned int bs = j->j_blocksize;
	errcode_t err;

	if (pass == PASS_REPLAY) {
		h->fc_replay = 1;
		return JBD2_FC_REPLAY_STOP;
	}
	if (pass != PASS_SCAN)
		return JBD2_FC_REPLAY_STOP;
	if (!h->fc_area) {
		if (j->j_fc_first >= j->j_total_len)
			return JBD2_FC_REPLAY_STOP;
		h->fc_nr = j->j_total_len - j->j_fc_first;
		h->fc_area = calloc(h->fc_nr, bs);
		if (!h->fc_area)
			return -ENOMEM;
		h->fc_got = 0;
	}
	if (off < 0 || (unsigned long)off != h->fc_got ||
	    h->fc_got >= h->fc_nr)
		return JBD2_FC_REPLAY_STOP;
	memcpy(h->fc_area + (size_t)off * bs, bh->b_data, bs);
	h->fc_got++;
	/* an area that does not open with HEAD holds nothing */
	if (h->fc_got == 1 && (bh->b_data[0] != EJ_FC_TAG_HEAD ||
			       bh->b_data[1] != 0))
		h->fc_nr = 1;
	if (h->fc_got < h->fc_nr)
		return JBD2_FC_REPLAY_CONTINUE;
	err = ej_fc_scan(h->fc_area, h->fc_nr, bs, expected,
			 EXT2_INODE_SIZE(h->fs->super), &h->fc);
	if (!err && h->fc.area == EJ_FCA_LIVE)
		err = ej_fc_check(h->fs, h->forbid, h->nr_forbid, h->fc_area,
				  &h->fc);
	if (err)
		return -ENOMEM;
	h->fc_scanned = 1;
	if (h->fc.flagged)
		j->j_replay_corrupt |= EJ_CORRUPT_FAST_COMMIT;
	return JBD2_FC_REPLAY_STOP;
}

void ej_fc_host_setup(struct ej_host *h)
{
	journal_t *j = &h->journal;

	if (j->j_replay_policy != JBD2_POLICY_STOP &&
	    jbd2_has_feature_fast_commit(j) && j->j_fc_first &&
	    j->j_fc_first < j->j_total_len)
		j->j_fc_replay_callback = fc_callback;
}

/* Does the scan leave anything to replay? */
static int fc_to_replay(const struct ej_host *h)
{
	size_t i;

	for (i = 0; i < h->fc.nr_recs; i++)
		if (h->fc.recs[i].verdict == EJ_FCR_PENDING)
			return 1;
	return 0;
}

int ej_fc_host_handles(const struct ej_host *h)
{
	return h->journal.j_fc_replay_callback && h->fc_scanned;
}

errcode_t ej_fc_host_finish(struct ej_host *h)
{
	ext2_filsys fs = NULL;
	errcode_t err, err2;

	if (!h->fc_scanned || !h->fc_replay || !fc_to_replay(h))
		return 0;
	/* a filesystem of its own, read after the full commits */
	err = ext2fs_open2(h->fs->device_name, NULL,
			   EXT2_FLAG_RW | EXT2_FLAG_64BITS |
			   EXT2_FLAG_IGNORE_CSUM_ERRORS |
			   EXT2_FLAG_MASTER_SB_ONLY, 0, h->fs->blocksize,
			   h->fs->io->manager, &fs);
	if (err)
		return err;
	/* the caller's clock (e2fsck's E2FSCK_TIME): a deleted inode's dtime */
	fs->now = h->fs->now;
	if (h->journal.j_replay_policy == JBD2_POLICY_REFUSE) {
		int would;

		/*
		 * A record the replay would flag can only be told once the
		 * full commits are on disk: refuse then replays nothing of
		 * the area, and says so (flagged).
		 */
		err = ej_fc_dry_check(fs, h->fc_area, &h->fc, &would);
		if (!err && would) {
			size_t i;

			for (i = 0; i < h->fc.nr_recs; i++)
				if (h->fc.recs[i].verdict == EJ_FCR_PENDING)
					h->fc.recs[i].verdict =
						EJ_FCR_NOT_REPLAYED;
			h->fc.flagged = 1;
			h->fc_refused = 1;
			h->journal.j_replay_corrupt |= EJ_CORRUPT_FAST_COMMIT;
			goto out;
		}
		if (err)
			goto out;
	}
	err = ej_fc_replay(fs, h->fc_area, &h->fc);
	if (h->fc.flagged)
		h->journal.j_replay_corrupt |= EJ_CORRUPT_FAST_COMMIT;
out:
	/* all on disk already; the superblock, if at all, in one write */
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY |
		       EXT2_FLAG_IB_DIRTY);
	err2 = ej_fs_close(&fs);
	return err ? err : err2;
}

void ej_fc_host_free(struct ej_host *h)
{
	ej_fc_scan_free(&h->fc);
	free(h->fc_area);
	h->fc_area = NULL;
}

errcode_t ej_fc_describe(journal_t *j, __u32 expected_tid, int as_json,
			 char **out)
{
	struct ej_host *h = ej_host_of(j);
	struct ej_fc_scan s;
	unsigned char *area;
	unsigned long nr, i;
	errcode_t err;

	*out = NULL;
	if (!jbd2_has_feature_fast_commit(j) || !j->j_fc_first ||
	    j->j_fc_first >= j->j_total_len)
		return 0;
	nr = j->j_total_len - j->j_fc_first;
	area = calloc(nr, j->j_blocksize);
	if (!area)
		return EJ_NO_MEMORY;
	for (i = 0; i < nr; i++) {
		err = ej_journal_read_block(j, j->j_fc_first + i,
					    area + i * j->j_blocksize);
		if (err)
			goto out;
	}
	err = ej_fc_scan(area, nr, j->j_blocksize, expected_tid,
			 EXT2_INODE_SIZE(h->fs->super), &s);
	if (err)
		goto out;
	if (s.area == EJ_FCA_LIVE)
		err = ej_fc_check(h->fs, h->forbid, h->nr_forbid, area, &s);
	if (!err)
		err = ej_fc_report(&s, area, as_json, out);
	ej_fc_scan_free(&s);
out:
	free(area);
	return err;
}
