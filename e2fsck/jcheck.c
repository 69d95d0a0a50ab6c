// SPDX-License-Identifier: GPL-2.0
/*
 * jcheck.c: e2fsck's journal checks, in e2fsprogs 1.47's order: find
 * the journal (e2fsck_get_journal), load its superblock
 * (e2fsck_journal_load) and answer what is wrong with either
 * (e2fsck_check_ext3_journal), with e2fsck's questions and messages.
 * The journal phase (journal.c) runs them as a rehearsal
 * (rehearse_checks(), at the end), then for real; the replay (jreplay.c)
 * finds and loads the journal again through them, as e2fsck does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>
#include <uuid/uuid.h>

#include "e2fsck.h"
#include "test/ej_test.h"
#include "problem.h"
#include "jphase.h"

/* Fast-commit tag that opens every fast-commit block (ext4). */
#define EXT4_FC_TAG_HEAD	0x0009

/* The backup journal inode stands in for the real one while checking. */
static struct ext2_inode *stashed_inode;
static ext2_ino_t stashed_ino;

static errcode_t stashed_read_inode(ext2_filsys fs, ext2_ino_t ino,
				    struct ext2_inode *inode)
{
	if (!stashed_inode || ino != stashed_ino)
		return EXT2_ET_CALLBACK_NOTHANDLED;
	*inode = *stashed_inode;
	return 0;
}

static void use_stashed_inode(ext2_filsys fs, ext2_ino_t ino,
			      struct ext2_inode *inode)
{
	stashed_ino = ino;
	stashed_inode = inode;
	fs->read_inode = inode ? stashed_read_inode : NULL;
}

static int writable(struct e2fsck_ctx *ctx)
{
	return !ctx->rehearsal && !(ctx->options & E2F_OPT_READONLY);
}

int uuid_null(const __u8 *u)
{
	int i;

	for (i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

/*
 * Where the external journal is: -j, else, as e2fsck looks for it, the
 * device libblkid finds with its UUID, else the one with the device
 * number the superblock keeps (s_journal_dev).  Kept once found.
 */
const char *find_external(struct e2fsck_ctx *ctx)
{
	const struct ext2_super_block *sb = ctx->fs->super;
	char uuid[37];

	if (ctx->journal_name)
		return ctx->journal_name;
	uuid_unparse(sb->s_journal_uuid, uuid);
	ctx->journal_name = e2fsck_find_dev("UUID", uuid);
	if (!ctx->journal_name)
		ctx->journal_name = e2fsck_find_devno(sb->s_journal_dev);
	return ctx->journal_name;
}

/* ------------------------------------------------------------------ */
/* Finding the journal (e2fsck's e2fsck_get_journal)                   */

struct last_block {
	e2_blkcnt_t	last;
};

static int note_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct last_block *lb = priv;
	blk64_t b = *blocknr;

	if (!b || b < fs->super->s_first_data_block ||
	    b >= ext2fs_blocks_count(fs->super))
		return BLOCK_ABORT;
	if (blockcnt >= 0)
		lb->last = blockcnt;
	return 0;
}

/* A journal inode fit to hold a journal, as e2fsck judges it. */
static errcode_t check_inode(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_inode *in = &jc->inode;
	struct last_block lb = { -1 };

	switch (ej_jinode_validate(in, fs->blocksize)) {
	case 0:
		break;
	case EJ_JOURNAL_TOO_SMALL:
		return EXT2_ET_JOURNAL_TOO_SMALL;
	default:
		return EXT2_ET_NO_JOURNAL;
	}
	ext2fs_block_iterate3(fs, jc->ino, BLOCK_FLAG_HOLE, NULL, note_block,
			      &lb);
	if ((unsigned long long)(lb.last + 1) * fs->blocksize <
	    EXT2_I_SIZE(in))
		return EXT2_ET_JOURNAL_TOO_SMALL;
	return 0;
}

static errcode_t get_internal(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t pblk;
	errcode_t err;

	/* bounded before anything is read: the superblock is unchecked */
	if (!sb->s_journal_inum ||
	    sb->s_journal_inum > fs->group_desc_count * sb->s_inodes_per_group)
		return EXT2_ET_BAD_INODE_NUM;
	jc->ino = sb->s_journal_inum;
	err = ext2fs_read_inode(fs, jc->ino, &jc->inode);
	if (!err)
		err = check_inode(ctx, jc);
	if (err) {
		/* the superblock keeps a copy of the inode's block map */
		if (sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS)
			return err;
		memset(&jc->inode, 0, sizeof(jc->inode));
		memcpy(jc->inode.i_block, sb->s_jnl_blocks,
		       EXT2_N_BLOCKS * 4);
		jc->inode.i_size_high = sb->s_jnl_blocks[15];
		jc->inode.i_size = sb->s_jnl_blocks[16];
		jc->inode.i_links_count = 1;
		jc->inode.i_mode = LINUX_S_IFREG | 0600;
		jc->from_backup = 1;
		use_stashed_inode(fs, jc->ino, &jc->inode);
		err = check_inode(ctx, jc);
		if (err)
			goto out;
		if (writable(ctx)) {
			use_stashed_inode(fs, 0, NULL);
			err = ext2fs_write_inode(fs, jc->ino, &jc->inode);
			if (err)
				goto out;
			use_stashed_inode(fs, jc->ino, &jc->inode);
		}
	}
	jc->total_len = EXT2_I_SIZE(&jc->inode) / fs->blocksize;
	jc->io = fs->io;
	err = ext2fs_bmap2(fs, jc->ino, &jc->inode, NULL, 0, 0, NULL, &pblk);
	if (!err)
		jc->sb_blk = pblk;
out:
	use_stashed_inode(fs, 0, NULL);
	return err;
}

/* The crc32c of an ext2 superblock, as metadata_csum defines it. */
static __u32 ext2_sb_csum(const struct ext2_super_block *es)
{
	return ext2fs_crc32c_le(~0U, (const unsigned char *)es,
				offsetof(struct ext2_super_block, s_checksum));
}

/* A superblock read raw (little-endian) into host order, as fs->super. */
static void super_to_cpu(struct ext2_super_block *sb)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	ext2fs_swap_super(sb);
#else
	(void)sb;
#endif
}

static errcode_t get_external(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	ext2_filsys fs = ctx->fs;
	unsigned int bs = fs->blocksize;
	struct ext2_super_block *es, sb;
	enum ej_ext_reason reason;
	unsigned long long start, maxlen;
	const char *name;
	char *buf;
	int flags = 0;
	errcode_t err;

	jc->external = 1;
	name = find_external(ctx);
	if (!name) {
		fix_problem(ctx, PR_0_CANT_FIND_JOURNAL, 0);
		return EXT2_ET_LOAD_EXT_JOURNAL;
	}
	/* e2fsck opens it for writing even under -n; the rehearsal does not */
	if (!ctx->rehearsal)
		flags = IO_FLAG_RW | IO_FLAG_EXCLUSIVE;
	err = ej_test_io_manager(unix_io_manager)->open(name, flags, &jc->io);
	if (err)
		return err;
	jc->own_io = 1;
	io_channel_set_blksize(jc->io, bs);

	start = ext2fs_journal_sb_start(bs) - 1;
	buf = malloc(bs);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	err = io_channel_read_blk64(jc->io, start, 1, buf);
	if (err)
		goto out;
	/* @es as on disk (little-endian), @sb a host-order copy */
	es = (struct ext2_super_block *)(start ? buf : buf + SUPERBLOCK_OFFSET);
	memcpy(&sb, es, sizeof(sb));
	super_to_cpu(&sb);
	/* only what e2fsprogs checks (the library's rules, e2fsck's words) */
	if (ej_ext_sb_validate(&sb, fs->super->s_journal_uuid, bs, 0,
			       &reason)) {
		fix_problem(ctx, reason == EJ_EXTR_WRONG_FS ?
			    PR_0_JOURNAL_BAD_UUID : PR_0_EXT_JOURNAL_BAD_SUPER,
			    0);
		err = EXT2_ET_LOAD_EXT_JOURNAL;
		goto out;
	}
	if (ext2fs_has_feature_metadata_csum(&sb) &&
	    ext2fs_le32_to_cpu(es->s_checksum) != ext2_sb_csum(es) &&
	    fix_problem(ctx, PR_0_EXT_JOURNAL_SUPER_CSUM_INVALID, 0) &&
	    !ctx->rehearsal) {
		es->s_checksum = ext2fs_cpu_to_le32(ext2_sb_csum(es));
		err = io_channel_write_blk64(jc->io, start, 1, buf);
		if (err)
			goto out;
	}
	maxlen = ext2fs_blocks_count(&sb);
	jc->total_len = maxlen < (1ULL << 32) ? maxlen : (1ULL << 32) - 1;
	jc->sb_blk = start + 1;
out:
	free(buf);
	return err;
}

void put_journal(struct jcheck *jc)
{
	if (jc->own_io && jc->io)
		io_channel_close(jc->io);
	free(jc->buf);
	memset(jc, 0, sizeof(*jc));
}

errcode_t get_journal(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	errcode_t err;

	memset(jc, 0, sizeof(*jc));
	if (uuid_null(ctx->fs->super->s_journal_uuid))
		err = get_internal(ctx, jc);
	else
		err = get_external(ctx, jc);
	if (!err) {
		jc->buf = malloc(ctx->fs->blocksize);
		if (!jc->buf)
			err = EXT2_ET_NO_MEMORY;
		jc->jsb = (journal_superblock_t *)jc->buf;
	}
	if (err)
		put_journal(jc);
	return err;
}

/* ------------------------------------------------------------------ */
/* Loading its superblock (e2fsck's e2fsck_journal_load)               */

#define V1_SB_SIZE	0x0024

/* load_journal(): no journal magic at all (a library code, never I/O's) */
#define JSB_NO_MAGIC	EJ_BAD_JSB

static int has_incompat(struct jcheck *jc, __u32 mask)
{
	return jc->format >= 2 &&
	       (be32_to_cpu(jc->jsb->s_feature_incompat) & mask);
}

/*
 * e2fsck clears the fields past a V1 superblock, feature words included,
 * before it replays the log.  When they were right (a V2 superblock whose
 * s_nr_users is damaged, one whose block type says V1) the log is then
 * read without its 64-bit tags or checksums, and replay writes its data
 * blocks to places the tags never named.  Under replay-all and refuse
 * the superblock stays as it is on disk until the log is replayed, which
 * reads it as Linux would, and is replayed only if it parses cleanly
 * (run_journal); the fields are cleared once the log is empty.
 */
static int clear_v2_fields(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	if (!ctx->jsb_v2_kept) {
		if (!fix_problem(ctx, PR_0_CLEAR_V2_JOURNAL, 0))
			return 0;
		ctx->flags |= E2F_FLAG_PROBLEMS_FIXED;
		if (!ctx->rehearsal && ctx->policy != JBD2_POLICY_STOP &&
		    ext2fs_has_feature_journal_needs_recovery(ctx->fs->super))
			ctx->jsb_v2_kept = 1;
	}
	memset(jc->buf + V1_SB_SIZE, 0, ctx->fs->blocksize - V1_SB_SIZE);
	return 1;
}

/* The superblock on disk must stay as it is for now (clear_v2_fields). */
static int keep_jsb(struct e2fsck_ctx *ctx)
{
	return ctx->jsb_v2_kept &&
	       ext2fs_has_feature_journal_needs_recovery(ctx->fs->super);
}

/* A superblock e2fsck gives up on after saying why (@fmt takes the name). */
static errcode_t corrupt_sb(struct e2fsck_ctx *ctx, const char *fmt)
{
	if (!ctx->rehearsal)
		e2f_com_err(ctx, ctx->program_name, EXT2_ET_CORRUPT_JOURNAL_SB,
			    fmt, ctx->device_name);
	return EXT2_ET_CORRUPT_JOURNAL_SB;
}

/* Check the superblock as e2fsprogs does (ej_jsb_validate()). */
static enum ej_jsb_reason jsb_reason(struct e2fsck_ctx *ctx, struct jcheck *jc,
				     struct ej_jsb_result *res)
{
	struct ej_jsb_env env = {
		.fs_blocksize = ctx->fs->blocksize,
		.nr_blocks = jc->total_len,
	};

	/*
	 * e2fsprogs resets a journal whose superblock checksum fails,
	 * unread.  Under replay-all and refuse a superblock whose only fault
	 * is its checksum is used (and the damage flagged): its log may hold
	 * the only copy of recent metadata.
	 */
	if (ctx->policy != JBD2_POLICY_STOP)
		env.flags |= EJ_JSBV_CSUM_OK;
	ej_jsb_validate(jc->jsb, &env, res);
	return res->reason;
}

errcode_t load_journal(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	journal_superblock_t *jsb = jc->jsb;
	struct ej_jsb_result res;
	unsigned long maxlen, nfc;
	errcode_t err;

	err = io_channel_read_blk64(jc->io, jc->sb_blk, 1, jc->buf);
	if (err) {
		if (!ctx->rehearsal)
			e2f_com_err(ctx, ctx->device_name, err, "%s",
				"reading journal superblock\n");
		return err;
	}
	switch (jsb_reason(ctx, jc, &res)) {
	case EJ_JSBR_NO_MAGIC:
		return JSB_NO_MAGIC;
	case EJ_JSBR_LOG_BLOCK:
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	case EJ_JSBR_BAD_TYPE:
		return EXT2_ET_JOURNAL_UNSUPP_VERSION;
	case EJ_JSBR_MULTI_USERS:
		/* an internal journal has no users: the fields are wrong */
		if (uuid_null(ctx->fs->super->s_journal_uuid) &&
		    clear_v2_fields(ctx, jc) &&
		    jsb_reason(ctx, jc, &res) != EJ_JSBR_MULTI_USERS)
			break;
		fix_problem(ctx, PR_0_JOURNAL_UNSUPP_MULTIFS, 0);
		return EXT2_ET_JOURNAL_UNSUPP_VERSION;
	default:
		break;
	}
	jc->format = res.format;
	if (res.problems & EJ_JSB_V1_WITH_V2)
		clear_v2_fields(ctx, jc);

	switch (res.reason) {
	case EJ_JSBR_OK:
		break;
	case EJ_JSBR_INCOMPAT:
		return EXT2_ET_UNSUPP_FEATURE;
	case EJ_JSBR_ROCOMPAT:
		return EXT2_ET_RO_UNSUPP_FEATURE;
	case EJ_JSBR_BLOCKSIZE:
		return corrupt_sb(ctx, "%s: no valid journal superblock found\n");
	case EJ_JSBR_TOO_LONG:
		return corrupt_sb(ctx, "%s: journal too short\n");
	case EJ_JSBR_FAST_COMMIT:
		return corrupt_sb(ctx, "%s: incorrect fast commit blocks\n");
	default:
		/* two checksum versions, not crc32c, or (stop) a bad sum */
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	}
	jc->csum_bad = !!(res.problems & EJ_JSB_BAD_CSUM);

	maxlen = be32_to_cpu(jsb->s_maxlen);
	if (maxlen < jc->total_len)
		jc->total_len = maxlen;
	if (has_incompat(jc, JBD2_FEATURE_INCOMPAT_FAST_COMMIT)) {
		nfc = be32_to_cpu(jsb->s_num_fc_blks);
		if (!nfc)
			nfc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		jc->fc_first = maxlen - nfc + 1;
	}
	return 0;
}

/*
 * Let the journal go, writing its superblock back as e2fsck does unless
 * told to drop it: with the same sequence, and emptied if @reset.
 */
errcode_t release_journal(struct e2fsck_ctx *ctx, struct jcheck *jc,
			  int reset, int drop)
{
	journal_superblock_t *jsb = jc->jsb;
	errcode_t err = 0;

	/*
	 * A superblock whose checksum failed (replay-all, refuse) is kept as
	 * it is for the library to see and flag.
	 */
	if (!drop && writable(ctx) && !jc->csum_bad && !keep_jsb(ctx)) {
		if (reset)
			jsb->s_start = 0;
		if (has_incompat(jc, JBD2_FEATURE_INCOMPAT_CSUM_V2 |
				 JBD2_FEATURE_INCOMPAT_CSUM_V3))
			ej_jsb_csum_set(jsb);
		err = io_channel_write_blk64(jc->io, jc->sb_blk, 1, jc->buf);
		if (!err)
			err = io_channel_flush(jc->io);
	}
	put_journal(jc);
	return err;
}

/* ------------------------------------------------------------------ */
/* The checks (e2fsck's e2fsck_check_ext3_journal)                     */

void clear_recover(struct e2fsck_ctx *ctx, int error)
{
	struct ext2_super_block *sb = ctx->fs->super;

	ext2fs_clear_feature_journal_needs_recovery(sb);
	/* a replay that went wrong needs the full check */
	if (error)
		sb->s_state &= ~EXT2_VALID_FS;
	ext2fs_mark_super_dirty(ctx->fs);
}

static errcode_t fix_bad_inode(struct e2fsck_ctx *ctx)
{
	struct ext2_super_block *sb = ctx->fs->super;
	int recover = ext2fs_has_feature_journal_needs_recovery(sb);
	int has_journal = ext2fs_has_feature_journal(sb);

	if (has_journal || sb->s_journal_inum) {
		if (fix_problem(ctx, PR_0_JOURNAL_BAD_INODE,
				sb->s_journal_inum)) {
			if (has_journal && sb->s_journal_inum &&
			    !ctx->rehearsal)
				log_out(ctx,
					"*** journal has been deleted ***\n\n");
			ext2fs_clear_feature_journal(sb);
			sb->s_journal_inum = 0;
			memset(sb->s_jnl_blocks, 0, sizeof(sb->s_jnl_blocks));
			ctx->fs->flags &= ~EXT2_FLAG_MASTER_SB_ONLY;
			clear_recover(ctx, 1);
			return 0;
		}
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	} else if (recover) {
		if (fix_problem(ctx, PR_0_JOURNAL_RECOVER_SET, 0)) {
			clear_recover(ctx, 1);
			return 0;
		}
		return EXT2_ET_UNSUPP_FEATURE;
	}
	return 0;
}

static errcode_t fix_corrupt_super(struct e2fsck_ctx *ctx)
{
	if (ext2fs_has_feature_journal(ctx->fs->super)) {
		/*
		 * e2fsck resets the journal superblock here.  The journal
		 * phase never gets this far for real: a journal that ends up
		 * here is not replayed, so the rehearsal hands it to the
		 * engine, which resets it itself.
		 */
		fix_problem(ctx, PR_0_JOURNAL_BAD_SUPER, 0);
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	}
	if (fix_bad_inode(ctx))
		return EXT2_ET_CORRUPT_JOURNAL_SB;
	return 0;
}

static int holds_fast_commits(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	unsigned long long pblk;
	unsigned char *buf;
	int found = 0;

	if (!jc->fc_first || jc->fc_first >= jc->total_len ||
	    !ext2fs_has_feature_fast_commit(ctx->fs->super))
		return 0;
	if (jc->external) {
		pblk = jc->fc_first;
	} else {
		blk64_t p;

		if (ext2fs_bmap2(ctx->fs, jc->ino, &jc->inode, NULL, 0,
				 jc->fc_first, NULL, &p))
			return 1;	/* cannot tell: leave it to e2fsck */
		pblk = p;
	}
	buf = malloc(ctx->fs->blocksize);
	if (!buf)
		return 1;
	if (io_channel_read_blk64(jc->io, pblk, 1, buf))
		found = 1;
	else
		found = (buf[0] | buf[1] << 8) == EXT4_FC_TAG_HEAD;
	free(buf);
	return found;
}

errcode_t check_journal(struct e2fsck_ctx *ctx, struct jstate *st)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_super_block *sb = fs->super;
	int recover = ext2fs_has_feature_journal_needs_recovery(sb);
	int reset = 0, force_fsck;
	struct jcheck jc;
	errcode_t err;

	memset(st, 0, sizeof(*st));
	if (!ext2fs_has_feature_journal(sb) && !recover &&
	    !sb->s_journal_inum && !sb->s_journal_dev &&
	    uuid_null(sb->s_journal_uuid))
		return 0;

	err = get_journal(ctx, &jc);
	if (err) {
		if (err == EXT2_ET_BAD_INODE_NUM ||
		    err == EXT2_ET_BAD_BLOCK_NUM ||
		    err == EXT2_ET_JOURNAL_TOO_SMALL ||
		    err == EXT2_ET_NO_JOURNAL)
			return fix_bad_inode(ctx);
		return err;
	}

	err = load_journal(ctx, &jc);
	if (err == JSB_NO_MAGIC) {
		/* no magic at all: most likely the wrong inode */
		err = fix_bad_inode(ctx);
		release_journal(ctx, &jc, 0, 1);
		return err;
	}
	if (err) {
		if (err == EXT2_ET_CORRUPT_JOURNAL_SB ||
		    (err == EXT2_ET_UNSUPP_FEATURE &&
		     !fix_problem(ctx, PR_0_JOURNAL_UNSUPP_INCOMPAT, 0)) ||
		    (err == EXT2_ET_RO_UNSUPP_FEATURE &&
		     !fix_problem(ctx, PR_0_JOURNAL_UNSUPP_ROCOMPAT, 0)) ||
		    (err == EXT2_ET_JOURNAL_UNSUPP_VERSION &&
		     !fix_problem(ctx, PR_0_JOURNAL_UNSUPP_VERSION, 0)))
			err = fix_corrupt_super(ctx);
		release_journal(ctx, &jc, 0, 1);
		return err;
	}

	/*
	 * needs_recovery is never left set with has_journal clear.  The
	 * loop ends under -y, -n and -p; only a person can keep it going.
	 */
	while (!ext2fs_has_feature_journal(sb)) {
		recover = ext2fs_has_feature_journal_needs_recovery(sb);
		if (fix_problem(ctx, PR_0_JOURNAL_HAS_JOURNAL, 0)) {
			if (recover &&
			    !fix_problem(ctx, PR_0_JOURNAL_RECOVER_SET, 0))
				continue;
			/* a journal on a reserved inode goes: full check */
			force_fsck = recover ||
				sb->s_journal_inum < EXT2_FIRST_INODE(sb);
			sb->s_journal_inum = 0;
			sb->s_journal_dev = 0;
			memset(sb->s_journal_uuid, 0,
			       sizeof(sb->s_journal_uuid));
			clear_recover(ctx, force_fsck);
		} else if (!(ctx->options & E2F_OPT_READONLY)) {
			ext2fs_set_feature_journal(sb);
			fs->flags &= ~EXT2_FLAG_MASTER_SB_ONLY;
			ext2fs_mark_super_dirty(fs);
		}
		break;
	}

	if (ext2fs_has_feature_journal(sb) &&
	    !ext2fs_has_feature_journal_needs_recovery(sb) &&
	    jc.jsb->s_start) {
		fix_problem(ctx, PR_0_JOURNAL_RECOVERY_CLEAR, 0);
		if (ctx->rehearsal && ctx->rehearsal->stop)
			goto out;
		if (fix_problem(ctx, ctx->superblock ?
				PR_0_JOURNAL_RUN_DEFAULT : PR_0_JOURNAL_RUN,
				0)) {
			/* the engine gets -f, as e2fsck forces itself */
			ctx->flags |= E2F_FLAG_FORCE_ENGINE;
			ext2fs_set_feature_journal_needs_recovery(sb);
			ext2fs_mark_super_dirty(fs);
		} else if (!(ctx->rehearsal && ctx->rehearsal->stop) &&
			   fix_problem(ctx, PR_0_JOURNAL_RESET_JOURNAL, 0)) {
			/*
			 * A "no" leaves the log alone: replaying over valid
			 * data would be worse than skipping a doubtful log.
			 */
			reset = 1;
			sb->s_state &= ~EXT2_VALID_FS;
			ext2fs_mark_super_dirty(fs);
		}
	}

	/* With nothing to replay, a journal error makes a filesystem error. */
	if (!ext2fs_has_feature_journal_needs_recovery(sb) &&
	    jc.jsb->s_errno) {
		sb->s_state |= EXT2_ERROR_FS;
		ext2fs_mark_super_dirty(fs);
		jc.jsb->s_errno = 0;
	}

	st->loaded = 1;
	st->csum_bad = jc.csum_bad;
	st->sequence = be32_to_cpu(jc.jsb->s_sequence);
	/* ours under replay-all and refuse (issue 33); stop: e2fsprogs' */
	st->fast_commits = ctx->policy == JBD2_POLICY_STOP &&
			   ext2fs_has_feature_journal_needs_recovery(sb) &&
			   holds_fast_commits(ctx, &jc);
out:
	return release_journal(ctx, &jc, reset, 0);
}

/*
 * The checks as a rehearsal, which prints and writes nothing; what it
 * found goes in @rh.  The options the checks change are put back, and
 * with @put_fs_back the superblock in memory and the filesystem's flags
 * too; ctx->flags stays as the checks left it.
 */
errcode_t rehearse_checks(struct e2fsck_ctx *ctx, struct jstate *st,
			  struct e2f_rehearsal *rh, int put_fs_back)
{
	struct e2f_rehearsal *outer = ctx->rehearsal;
	struct ext2_super_block saved_sb = *ctx->fs->super;
	int saved_flags = ctx->fs->flags;
	unsigned int saved_opts = ctx->options;
	errcode_t err;

	memset(rh, 0, sizeof(*rh));
	ctx->rehearsal = rh;
	err = check_journal(ctx, st);
	ctx->rehearsal = outer;
	ctx->options = saved_opts;
	if (put_fs_back) {
		*ctx->fs->super = saved_sb;
		ctx->fs->flags = saved_flags;
	}
	return err;
}
