/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jphase.h: what the files of e2fsck's journal phase share: the
 * journal as the checks see it (jcheck.c), what the checks leave for the
 * replay (jreplay.c), whether a journal_only run is done (jonly.c) and
 * the s_kbytes_written model (kbytes.c).  journal.c, the phase itself,
 * sits on top of them.
 */
#ifndef E2JOURNAL_E2FSCK_JPHASE_H
#define E2JOURNAL_E2FSCK_JPHASE_H

#include "e2fsck.h"

/* e2fsck's journal, as its checks see it. */
struct jcheck {
	int			external;
	ext2_ino_t		ino;
	struct ext2_inode	inode;		/* maybe the backup's */
	int			from_backup;
	io_channel		io;		/* fs->io or its own */
	int			own_io;
	unsigned long long	sb_blk;		/* the jsb, on io */
	char			*buf;		/* the jsb block */
	journal_superblock_t	*jsb;
	unsigned long		total_len;
	int			format;		/* 1 or 2 */
	int			csum_bad;	/* the policy allows it */
	unsigned long		fc_first;	/* fast commits, or 0 */
};

/* What the checks leave for the replay to know. */
struct jstate {
	int		loaded;		/* the journal loaded */
	int		csum_bad;	/* its superblock sum failed */
	int		fast_commits;	/* it holds fast commits */
	__u32		sequence;	/* s_sequence */
};

/* jcheck.c */
int uuid_null(const __u8 *u);
const char *find_external(struct e2fsck_ctx *ctx);
errcode_t get_journal(struct e2fsck_ctx *ctx, struct jcheck *jc);
void put_journal(struct jcheck *jc);
errcode_t load_journal(struct e2fsck_ctx *ctx, struct jcheck *jc);
errcode_t release_journal(struct e2fsck_ctx *ctx, struct jcheck *jc,
			  int reset, int drop);
void clear_recover(struct e2fsck_ctx *ctx, int error);
errcode_t check_journal(struct e2fsck_ctx *ctx, struct jstate *st);
errcode_t rehearse_checks(struct e2fsck_ctx *ctx, struct jstate *st,
			  struct e2f_rehearsal *rh, int put_fs_back);

/* jreplay.c */
void report_dry_run(struct e2fsck_ctx *ctx, const struct jstate *st);
void run_journal(struct e2fsck_ctx *ctx, io_manager io);

/* jonly.c */
int journal_only_done(struct e2fsck_ctx *ctx);

/* kbytes.c: s_kbytes_written across the replay */
unsigned long long channel_bytes(io_channel io, int reset);
void count_replay_start(struct e2fsck_ctx *ctx);
unsigned long long flush_bytes(ext2_filsys fs);
void kb_start(struct e2fsck_ctx *ctx, journal_t *j);
void count_replayed(struct e2fsck_ctx *ctx, journal_t *j);

#endif /* E2JOURNAL_E2FSCK_JPHASE_H */
