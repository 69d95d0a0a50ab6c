// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c: e2fsck's journal phase, with the replay done by libe2journal
 * under the corrupt-journal policy.
 *
 * The checks follow e2fsprogs 1.47's e2fsck step for step (which problem
 * is looked for first, what each answer leads to), so that on the same
 * filesystem the same messages come out in the same order.  They run
 * twice: first as a rehearsal on the filesystem opened read-only, which
 * prints and writes nothing and finds out whether e2fsck's answers lead
 * to a replay.  When they do not, the device is handed to the engine
 * untouched: the engine is e2fsck, it finds the same problems and deals
 * with them itself, later steps included (it recreates a journal it
 * deleted only if it deleted it in the same run).  When they do, the
 * checks run for real, the journal is replayed, and the engine is started
 * on the result, which is what e2fsck itself does after a replay: it
 * starts over on the replayed filesystem.
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
#include "problem.h"

/* Fast-commit tag that opens every fast-commit block (ext4). */
#define EXT4_FC_TAG_HEAD	0x0009

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
	return !ctx->dry && !(ctx->options & E2F_OPT_READONLY);
}

static int uuid_null(const __u8 *u)
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
static const char *find_external(struct e2fsck_ctx *ctx)
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
	if (!ctx->dry)
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
	    !ctx->dry) {
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

static void put_journal(struct jcheck *jc)
{
	if (jc->own_io && jc->io)
		io_channel_close(jc->io);
	free(jc->buf);
	memset(jc, 0, sizeof(*jc));
}

static errcode_t get_journal(struct e2fsck_ctx *ctx, struct jcheck *jc)
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
		if (!ctx->dry && ctx->policy != JBD2_POLICY_STOP &&
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
	if (!ctx->dry)
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

static errcode_t load_journal(struct e2fsck_ctx *ctx, struct jcheck *jc)
{
	journal_superblock_t *jsb = jc->jsb;
	struct ej_jsb_result res;
	unsigned long maxlen, nfc;
	errcode_t err;

	err = io_channel_read_blk64(jc->io, jc->sb_blk, 1, jc->buf);
	if (err) {
		if (!ctx->dry)
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
static errcode_t release_journal(struct e2fsck_ctx *ctx, struct jcheck *jc,
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

static void clear_recover(struct e2fsck_ctx *ctx, int error)
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
			if (has_journal && sb->s_journal_inum && !ctx->dry)
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

/* What the checks leave for the replay to know. */
struct jstate {
	int		loaded;		/* the journal loaded */
	int		csum_bad;	/* its superblock sum failed */
	int		fast_commits;	/* it holds fast commits */
	__u32		sequence;	/* s_sequence */
};

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

static errcode_t check_journal(struct e2fsck_ctx *ctx, struct jstate *st)
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
		if (ctx->dry_stop)
			goto out;
		if (fix_problem(ctx, ctx->superblock ?
				PR_0_JOURNAL_RUN_DEFAULT : PR_0_JOURNAL_RUN,
				0)) {
			/* the engine gets -f, as e2fsck forces itself */
			ctx->flags |= E2F_FLAG_FORCE_ENGINE;
			ext2fs_set_feature_journal_needs_recovery(sb);
			ext2fs_mark_super_dirty(fs);
		} else if (!ctx->dry_stop &&
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

/* ------------------------------------------------------------------ */
/* The replay                                                          */

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
	r->msg_fn = recovery_msg;
	r->msg_arg = ctx;
	/* the JSON report lists every logged block; nothing else reads them */
	r->keep_blocks = ctx->report_file != NULL;
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

/*
 * Copy the journal, block by block, as it is now, in the library's saved
 * format (E2JSAVE1, as "e2journal save" writes it), so that "e2journal
 * replay --from", "show --from" and "dump" read it.
 */
static void save_journal(struct e2fsck_ctx *ctx)
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
		return;
	if (!uuid_null(ctx->fs->super->s_journal_uuid))
		o.ext_journal = find_external(ctx);
	if ((!uuid_null(ctx->fs->super->s_journal_uuid) && !o.ext_journal) ||
	    ej_journal_open(ctx->fs, &o, &j)) {
		log_err(ctx, "%s: no journal to save in %s\n",
			ctx->device_name, ctx->save_file);
		return;
	}
	err = ej_saved_write(j, ctx->save_file, 0, NULL, NULL, &st);
	for (i = 0; i < st.nr_bad && i < EJ_SAVED_BAD_LISTED; i++)
		log_err(ctx, "%s: journal block %llu unreadable; saved as zeros in %s\n",
			ctx->device_name, st.bad[i], ctx->save_file);
	if (err)
		e2f_com_err(ctx, ctx->program_name, err, "while writing %s",
			ctx->save_file);
	ej_journal_close(j);
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
static void report_dry_run(struct e2fsck_ctx *ctx, const struct jstate *st)
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
	if (ret && ret != -EFSCORRUPTED && ret != -EFSBADCRC && !quiet)
		e2f_com_err(ctx, ctx->program_name, -ret,
			"while reading the journal of %s", ctx->device_name);
	if (!quiet && !ej_report_text(ej_journal_report(j), 0, &text))
		log_out(ctx, "%s", text);
	free(text);
	write_report(ctx, j);
	ej_journal_close(j);
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

/* Reopen the filesystem as the journal phase opened it. */
static errcode_t open_fs(struct e2fsck_ctx *ctx, int flags, io_manager io)
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
	if (!err)
		ctx->fs->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	return err;
}

static int fs_open_flags(struct e2fsck_ctx *ctx)
{
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_NOFREE_ON_ERROR;

	if (!(ctx->options & E2F_OPT_READONLY))
		flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	return flags;
}

/*
 * -E journal_only: e2fsck 1.47 restarts after its replay, checks the
 * journal and the superblock (check_super_block) and exits 0 without
 * passes 1-5.  Running it as the engine for that costs a second process,
 * another open and close of the filesystem and their fsyncs.  It is left
 * out only when its superblock check has provably nothing to do: every
 * condition under which that check changes or reports anything (orphans,
 * times in the future, a missing UUID or dirhash hint, quota, a journal
 * to move, feature combinations it repairs, group descriptors it fixes)
 * sends the run to the engine as before.
 */
static int out_of(unsigned long long v, unsigned long long lo,
		  unsigned long long hi)
{
	return v < lo || v > hi;
}

/*
 * The bounds e2fsck's superblock check holds the superblock's counts and
 * sizes to, those ext2fs_open2() lets through among them: outside any of
 * them e2fsck reports "Corruption found in superblock" and gives up.
 */
static int sb_values_sane(ext2_filsys fs)
{
	struct ext2_super_block *sb = fs->super;
	unsigned long long blocks = ext2fs_blocks_count(sb), blks_max;
	unsigned long long ipb = EXT2_INODES_PER_BLOCK(sb);
	unsigned long long ipg_max, cpg_max, bpg_max;
	unsigned int isz = EXT2_INODE_SIZE(sb);

	ipg_max = sb->s_blocks_per_group < 4 ? 0 :
		  min_t(unsigned long long,
			ipb * (sb->s_blocks_per_group - 4ULL),
			EXT2_MAX_INODES_PER_GROUP(sb));
	cpg_max = min_t(unsigned long long, 8ULL * EXT2_BLOCK_SIZE(sb),
			EXT2_MAX_CLUSTERS_PER_GROUP(sb));
	bpg_max = min_t(unsigned long long,
			8ULL * EXT2_BLOCK_SIZE(sb) * EXT2FS_CLUSTER_RATIO(fs),
			EXT2_MAX_BLOCKS_PER_GROUP(sb));
	blks_max = min_t(unsigned long long,
			 (1ULL << 32) * EXT2_MAX_BLOCKS_PER_GROUP(sb),
			 ext2fs_has_feature_64bit(sb) ? (1ULL << 48) - 1 :
			 (1ULL << 32) - 1);

	if (!sb->s_inodes_count || out_of(blocks, 1, blks_max) ||
	    sb->s_first_data_block > blocks ||
	    sb->s_log_block_size >
	    EXT2_MAX_BLOCK_LOG_SIZE - EXT2_MIN_BLOCK_LOG_SIZE ||
	    out_of(sb->s_log_cluster_size, sb->s_log_block_size,
		   EXT2_MAX_CLUSTER_LOG_SIZE - EXT2_MIN_CLUSTER_LOG_SIZE) ||
	    out_of(sb->s_clusters_per_group, 8, cpg_max) ||
	    out_of(sb->s_blocks_per_group, 8, bpg_max) ||
	    out_of(sb->s_inodes_per_group, ipb, ipg_max) ||
	    ext2fs_r_blocks_count(sb) > blocks / 2 ||
	    sb->s_reserved_gdt_blocks > fs->blocksize / sizeof(__u32) ||
	    sb->s_desc_size > EXT2_MAX_DESC_SIZE ||
	    (sb->s_desc_size & (sb->s_desc_size - 1)))
		return 0;
	if (sb->s_rev_level > EXT2_GOOD_OLD_REV &&
	    out_of(sb->s_first_ino, EXT2_GOOD_OLD_FIRST_INO,
		   sb->s_inodes_count))
		return 0;
	if (out_of(isz, EXT2_GOOD_OLD_INODE_SIZE, fs->blocksize) ||
	    (isz & (isz - 1)))
		return 0;
	return (unsigned long long)sb->s_blocks_per_group ==
	       (unsigned long long)sb->s_clusters_per_group *
	       EXT2FS_CLUSTER_RATIO(fs);
}

static int journal_only_done(struct e2fsck_ctx *ctx)
{
	ext2_filsys fs = ctx->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t first = sb->s_first_data_block, last, dev_blocks = 0;
	unsigned int isz = EXT2_INODE_SIZE(sb), want, min_extra, max_extra;
	int csum = ext2fs_has_group_desc_csum(fs);
	struct ext2_inode jinode;
	time_t now = time(NULL);
	dgrp_t i;

	/* e2fsck checks in full under -f, -c or -l even with journal_only */
	if ((ctx->options & E2F_OPT_FORCE) || ctx->cflag ||
	    ctx->bad_blocks_file)
		return 0;
	if (getenv("E2FSCK_TIME") || getenv("E2FSCK_CONFIG") ||
	    (ctx->flags & (E2F_FLAG_FLAGGED | E2F_FLAG_PROBLEMS_FIXED |
			   E2F_FLAG_FORCE_ENGINE)) || ctx->exit_value)
		return 0;
	if (!(sb->s_state & EXT2_VALID_FS) || (sb->s_state & EXT2_ERROR_FS) ||
	    sb->s_rev_level == EXT2_GOOD_OLD_REV ||
	    sb->s_creator_os == EXT2_OS_HURD ||
	    (sb->s_flags & EXT2_FLAGS_TEST_FILESYS) ||
	    uuid_null(sb->s_uuid))
		return 0;
	if (!sb_values_sane(fs))
		return 0;
	if (sb->s_last_orphan || ext2fs_has_feature_orphan_file(sb) ||
	    ext2fs_has_feature_orphan_present(sb))
		return 0;
	if (sb->s_mtime > (__u32)now || sb->s_wtime > (__u32)now)
		return 0;
	if (ext2fs_has_feature_quota(sb) || sb->s_usr_quota_inum ||
	    sb->s_grp_quota_inum || sb->s_prj_quota_inum)
		return 0;
	if (!ext2fs_has_feature_journal(sb) ||
	    sb->s_journal_inum != EXT2_JOURNAL_INO ||
	    !uuid_null(sb->s_journal_uuid))
		return 0;
	/* the superblock's copy of the journal inode's map, to be made */
	if (sb->s_jnl_backup_type != EXT3_JNL_BACKUP_BLOCKS ||
	    ext2fs_read_inode(fs, sb->s_journal_inum, &jinode) ||
	    memcmp(jinode.i_block, sb->s_jnl_blocks, sizeof(jinode.i_block)))
		return 0;
	if (ext2fs_has_feature_dir_index(sb) &&
	    !(sb->s_flags & (EXT2_FLAGS_SIGNED_HASH |
			     EXT2_FLAGS_UNSIGNED_HASH)))
		return 0;
	if ((ext2fs_has_feature_metadata_csum(sb) &&
	     ext2fs_has_feature_gdt_csum(sb)) ||
	    (!ext2fs_has_feature_metadata_csum(sb) &&
	     ext2fs_has_feature_csum_seed(sb)) ||
	    (ext2fs_has_feature_64bit(sb) && !ext2fs_has_feature_extents(sb)) ||
	    (ext2fs_has_feature_meta_bg(sb) &&
	     sb->s_first_meta_bg > fs->desc_blocks) ||
	    (!ext2fs_has_feature_resize_inode(sb) &&
	     sb->s_reserved_gdt_blocks))
		return 0;
	if (sb->s_first_data_block !=
	    (sb->s_log_block_size == 0 && EXT2FS_CLUSTER_RATIO(fs) == 1 ?
	     1U : 0U) ||
	    sb->s_inodes_count !=
	    (__u64)sb->s_inodes_per_group * fs->group_desc_count)
		return 0;
	if (isz > EXT2_GOOD_OLD_INODE_SIZE) {
		/* i_extra_isize and i_checksum_hi, 4 bytes */
		min_extra = 4;
		max_extra = isz - EXT2_GOOD_OLD_INODE_SIZE;
		want = sb->s_min_extra_isize;
		if (want && (want < min_extra || want > max_extra || want & 3))
			return 0;
		want = sb->s_want_extra_isize;
		if (want && (want < min_extra || want > max_extra || want & 3))
			return 0;
	}
	if (ext2fs_get_device_size2(ctx->filesystem_name, fs->blocksize,
				    &dev_blocks) ||
	    dev_blocks < ext2fs_blocks_count(sb))
		return 0;

	last = ext2fs_blocks_count(sb) - 1;
	for (i = 0; i < fs->group_desc_count; i++) {
		blk64_t bb = ext2fs_block_bitmap_loc(fs, i);
		blk64_t ib = ext2fs_inode_bitmap_loc(fs, i);
		blk64_t it = ext2fs_inode_table_loc(fs, i);
		__u32 unused = ext2fs_bg_itable_unused(fs, i);

		if (!ext2fs_has_feature_flex_bg(sb)) {
			first = ext2fs_group_first_block2(fs, i);
			last = ext2fs_group_last_block2(fs, i);
		}
		if (bb < first || bb > last || ib < first || ib > last ||
		    it < first || it + fs->inode_blocks_per_group - 1 > last)
			return 0;
		if (!ext2fs_group_desc_csum_verify(fs, i))
			return 0;
		if (!csum &&
		    (ext2fs_bg_flags_test(fs, i, EXT2_BG_BLOCK_UNINIT) ||
		     ext2fs_bg_flags_test(fs, i, EXT2_BG_INODE_UNINIT) ||
		     unused))
			return 0;
		if (i == fs->group_desc_count - 1 &&
		    ext2fs_bg_flags_test(fs, i, EXT2_BG_BLOCK_UNINIT))
			return 0;
		if (csum && (unused > ext2fs_bg_free_inodes_count(fs, i) ||
			     unused > sb->s_inodes_per_group))
			return 0;
	}
	return 1;
}

/* What @io has written so far (libext2fs' count), 0 if it cannot say. */
static unsigned long long channel_bytes(io_channel io, int reset)
{
	io_stats stats = NULL;
	unsigned long long n;

	if (!io || !io->manager->get_stats ||
	    io->manager->get_stats(io, &stats) || !stats)
		return 0;
	n = stats->bytes_written;
	if (reset)
		stats->bytes_written = 0;
	return n;
}

/*
 * s_kbytes_written as e2fsprogs keeps it across a replay.  Its e2fsck
 * adds what the filesystem's channel wrote until the log was replayed
 * (the journal superblock e2fsck's checks wrote back, when the journal
 * is internal, and the replayed blocks), counted only when the field was
 * not 0, to the superblock it reads afresh.  The filesystem it reopens
 * then writes through unix_io's cache, which holds those writes until
 * the close has counted its channel's bytes: nothing more is added.
 */
static void count_replay_start(struct e2fsck_ctx *ctx)
{
	ctx->count_kbytes = ctx->fs->super->s_kbytes_written != 0;
	ctx->replay_bytes = channel_bytes(ctx->fs->io, 0);
}

/*
 * What e2fsprogs' e2fsck writes when it flushes a filesystem its journal
 * checks changed, just before the replay (ext2fs_flush() with only the
 * primary superblock: its changed 16-bit words, and the primary group
 * descriptor blocks whole).  Ours writes the superblock whole and no
 * descriptors; s_kbytes_written counts e2fsprogs' bytes.
 */
static unsigned long long flush_bytes(ext2_filsys fs)
{
	struct ext2_super_block sb;
	const unsigned char *a, *b;
	unsigned long long n = 0;
	unsigned int i;

	if (!fs->orig_super || !fs->io->manager->write_byte) {
		n = SUPERBLOCK_SIZE;
	} else {
		sb = *fs->super;
		sb.s_wtime = fs->now ? fs->now : time(NULL);
		sb.s_block_group_nr = 0;
#ifdef WORDS_BIGENDIAN
		ext2fs_swap_super(&sb);
#endif
		ext2fs_superblock_csum_set(fs, &sb);
		a = (const unsigned char *)fs->orig_super;
		b = (const unsigned char *)&sb;
		for (i = 0; i < SUPERBLOCK_SIZE; i += 2)
			if (a[i] != b[i] || a[i + 1] != b[i + 1])
				n += 2;
	}
	if (!ext2fs_has_feature_meta_bg(fs->super))
		n += (unsigned long long)fs->desc_blocks * fs->blocksize;
	return n;
}

/*
 * e2fsprogs replays one block at a time through unix_io, whose cache
 * holds the last UIO_CACHE_SLOTS blocks touched (read or written) and
 * writes a dirty one only when it is evicted (the least recently used
 * goes first) or flushed at the end of the replay.  A block the log
 * rewrites while it is still cached is written once.  Its channel
 * counts those writes only: wb_cache replays the same accesses and
 * counts the same.
 */
#define UIO_CACHE_SLOTS 8

struct wb_cache {
	unsigned long long	blk[UIO_CACHE_SLOTS];
	unsigned long		stamp[UIO_CACHE_SLOTS];
	unsigned char		used[UIO_CACHE_SLOTS];
	unsigned char		dirty[UIO_CACHE_SLOTS];
	unsigned long		clock;
	unsigned long		writes;
};

static void wb_touch(struct wb_cache *c, unsigned long long blk, int write)
{
	int i, victim = -1;

	for (i = 0; i < UIO_CACHE_SLOTS; i++) {
		if (!c->used[i]) {
			if (victim < 0 || c->used[victim])
				victim = i;
			continue;
		}
		if (c->blk[i] == blk) {
			c->stamp[i] = ++c->clock;
			c->dirty[i] |= write;
			return;
		}
		if (victim < 0 ||
		    (c->used[victim] && c->stamp[i] < c->stamp[victim]))
			victim = i;
	}
	if (c->used[victim] && c->dirty[victim])
		c->writes++;
	c->used[victim] = 1;
	c->blk[victim] = blk;
	c->dirty[victim] = write;
	c->stamp[victim] = ++c->clock;
}

static unsigned long wb_flush(struct wb_cache *c)
{
	int i;

	for (i = 0; i < UIO_CACHE_SLOTS; i++)
		if (c->used[i] && c->dirty[i])
			c->writes++;
	return c->writes;
}

/* The journal inode's blocks as e2fsprogs' bmap reads them. */
struct jmap {
	ext2_filsys		fs;
	ext2_extent_handle_t	handle;		/* NULL: not extent-mapped */
	ext2_ino_t		ino;
	struct ext2fs_extent	run;		/* the last extent found */
	int			have_run;
	blk64_t			path[8];	/* its tree nodes, leaf first */
	int			npath;
	struct ext2_inode	inode;
	blk64_t			ind_blk;	/* what ind_buf holds, or 0 */
	char			*ind_buf;
};

/* Entry @i of indirect block @blk, 0 if it cannot be read. */
static blk64_t ind_entry(struct jmap *m, blk64_t blk, unsigned long long i)
{
	if (!blk || blk >= ext2fs_blocks_count(m->fs->super))
		return 0;
	if (m->ind_blk != blk) {
		m->ind_blk = 0;
		if (io_channel_read_blk64(m->fs->io, blk, 1, m->ind_buf))
			return 0;
		m->ind_blk = blk;
	}
	return ext2fs_le32_to_cpu(((__le32 *)m->ind_buf)[i]);
}

/* A journal inode mapped by indirect blocks: each level read, top first. */
static blk64_t jmap_touch_ind(struct jmap *m, struct wb_cache *c,
			      unsigned long long lblk)
{
	unsigned long long apb = m->fs->blocksize / 4, span = 1;
	blk64_t blk;
	int depth = 0, slot;

	if (lblk < EXT2_NDIR_BLOCKS)
		return m->inode.i_block[lblk];
	lblk -= EXT2_NDIR_BLOCKS;
	for (depth = 1; depth <= 3; depth++) {
		span *= apb;
		if (lblk < span)
			break;
		lblk -= span;
	}
	if (depth > 3)
		return 0;
	slot = EXT2_IND_BLOCK + depth - 1;
	blk = m->inode.i_block[slot];
	while (blk && depth-- > 0) {
		wb_touch(c, blk, 0);
		span /= apb;
		blk = ind_entry(m, blk, (lblk / span) % apb);
	}
	return blk;
}

/*
 * Touch in @c what mapping logical journal block @lblk costs e2fsprogs
 * (the extent tree's nodes below the inode, root first) and return the
 * block's physical number, 0 if it has none.
 */
static blk64_t jmap_touch(struct jmap *m, struct wb_cache *c,
			  unsigned long long lblk)
{
	struct ext2_extent_info info;
	struct ext2fs_extent ext;
	int i;

	if (!m->handle)
		return jmap_touch_ind(m, c, lblk);
	/* within the last extent: the same nodes on the way down */
	if (!m->have_run || lblk < m->run.e_lblk ||
	    lblk - m->run.e_lblk >= m->run.e_len) {
		m->have_run = 0;
		m->npath = 0;
		if (ext2fs_extent_goto(m->handle, lblk) ||
		    ext2fs_extent_get(m->handle, EXT2_EXTENT_CURRENT,
				      &m->run))
			return 0;
		m->have_run = 1;
		/* each level's index entry names the node below it */
		while (m->npath < 8 &&
		       !ext2fs_extent_get_info(m->handle, &info) &&
		       info.curr_level > 0 &&
		       !ext2fs_extent_get(m->handle, EXT2_EXTENT_UP, &ext))
			m->path[m->npath++] = ext.e_pblk;
	}
	for (i = m->npath - 1; i >= 0; i--)
		wb_touch(c, m->path[i], 0);
	return m->run.e_pblk + (lblk - m->run.e_lblk);
}

static int jmap_open(struct jmap *m, ext2_filsys fs, ext2_ino_t ino)
{
	memset(m, 0, sizeof(*m));
	m->fs = fs;
	m->ino = ino;
	if (ext2fs_read_inode(fs, ino, &m->inode))
		return -1;
	if (m->inode.i_flags & EXT4_EXTENTS_FL)
		return ext2fs_extent_open2(fs, ino, &m->inode, &m->handle) ?
		       -1 : 0;
	return ext2fs_get_mem(fs->blocksize, &m->ind_buf) ? -1 : 0;
}

static void jmap_close(struct jmap *m)
{
	if (m->handle)
		ext2fs_extent_free(m->handle);
	ext2fs_free_mem(&m->ind_buf);
}

/*
 * The blocks e2fsprogs' replay pass writes to the filesystem's channel:
 * it reads every log block of the replayed transactions in order
 * (through the same cache when the journal is internal) and writes each
 * block it replays right after reading it, every version of it.  The
 * library reports each logged block as recovery decides it, in log
 * order, after all the transactions: the model follows along
 * (kb_block), so that no list of every logged block is kept for it.
 */
struct kb_model {
	journal_t		*j;
	struct wb_cache		c;
	struct jmap		m;
	int			internal;
	int			lost;		/* a block out of order: done */
	size_t			t;		/* the transaction followed */
	unsigned int		k;		/* its log blocks touched */
	unsigned long		b;		/* its next log block */
	unsigned long		last;		/* the last one touched */
};

/* Touch the next log block of transaction m->t. */
static void kb_step(struct kb_model *m)
{
	if (m->internal) {
		blk64_t pb = jmap_touch(&m->m, &m->c, m->b);

		if (pb)
			wb_touch(&m->c, pb, 0);
	}
	m->last = m->b;
	m->k++;
	if (++m->b >= m->j->j_last)
		m->b = m->j->j_first;
}

/* The rest of transaction m->t's log blocks, then on to the next. */
static void kb_next_txn(struct kb_model *m, const struct ej_report *r)
{
	const struct jbd2_txn_info *ti = &r->txns[m->t];

	while (ti->replay && m->k < ti->nr_blocks)
		kb_step(m);
	m->t++;
	m->k = 0;
	if (m->t < r->nr_txns)
		m->b = r->txns[m->t].first_block;
}

static void kb_block(void *arg, __u32 tid, unsigned long jblock,
		     unsigned long long fsblock, int verdict)
{
	struct kb_model *m = arg;
	const struct ej_report *r = ej_journal_report(m->j);
	const struct jbd2_txn_info *ti;

	if (m->lost)
		return;
	if (m->t == (size_t)-1) {
		m->t = 0;
		if (r->nr_txns)
			m->b = r->txns[0].first_block;
	}
	while (m->t < r->nr_txns && r->txns[m->t].tid != tid)
		kb_next_txn(m, r);
	if (m->t >= r->nr_txns) {
		m->lost = 1;
		return;
	}
	ti = &r->txns[m->t];
	if (!ti->replay)
		return;
	/* up to its log block; one not ahead ends the transaction's writes */
	if (!m->k || m->last != jblock) {
		while (m->k < ti->nr_blocks && m->b != jblock)
			kb_step(m);
		if (m->k >= ti->nr_blocks)
			return;
		kb_step(m);
	}
	/* SUPERSEDED later or not, this version is written */
	if (verdict == JBD2_BLOCK_REPLAYED)
		wb_touch(&m->c, fsblock, 1);
}

static void kb_start(struct e2fsck_ctx *ctx, journal_t *j,
		     struct kb_model *m)
{
	const struct ej_journal_info *ji = ej_journal_info(j);
	struct ej_report *r = ej_journal_report(j);

	memset(m, 0, sizeof(*m));
	if (!ctx->count_kbytes)
		return;
	m->j = j;
	m->t = (size_t)-1;
	m->internal = !ji->external && !ji->saved;
	if (m->internal && jmap_open(&m->m, ctx->fs, ji->ino))
		m->internal = 0;
	r->block_fn = kb_block;
	r->block_arg = m;
}

static void count_replayed(struct e2fsck_ctx *ctx, journal_t *j,
			   struct kb_model *m)
{
	struct ej_report *r = ej_journal_report(j);

	if (!ctx->count_kbytes)
		return;
	r->block_fn = NULL;
	if (m->t == (size_t)-1) {
		m->t = 0;
		if (r->nr_txns)
			m->b = r->txns[0].first_block;
	}
	while (m->t < r->nr_txns)
		kb_next_txn(m, r);
	if (m->internal)
		jmap_close(&m->m);
	ctx->replay_bytes += (unsigned long long)ctx->fs->blocksize *
			     wb_flush(&m->c);
}

/*
 * The journal was replayed: e2fsck's state after its replay, before it
 * starts over.  The replayed blocks may include the superblock, so the
 * filesystem is read afresh first.
 */
static errcode_t after_replay(struct e2fsck_ctx *ctx, io_manager io, int error)
{
	struct ext2_super_block saved_sb;
	unsigned int saved_opts;
	int saved_flags;
	struct jstate st;
	errcode_t err;
	int dry, quiet;

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
	dry = ctx->dry;
	saved_sb = *ctx->fs->super;
	saved_flags = ctx->fs->flags;
	saved_opts = ctx->options;
	ctx->dry = 1;
	ctx->dry_stop = 0;
	ctx->dry_asked = 0;
	err = check_journal(ctx, &st);
	quiet = !err && st.loaded && !ctx->dry_stop && !ctx->dry_asked;
	ctx->dry = dry;
	*ctx->fs->super = saved_sb;
	ctx->fs->flags = saved_flags;
	ctx->options = saved_opts;
	if (!err && st.loaded && !ctx->dry_stop &&
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

/* refuse (or a superblock in doubt): what was found, nothing replayed. */
static void say_refused(struct e2fsck_ctx *ctx, journal_t *j)
{
	char *text = NULL;

	say_damage(ctx, ej_journal_report(j)->corrupt);
	if (!ej_report_text(ej_journal_report(j), 0, &text))
		log_out(ctx, "%s", text);
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
static void run_journal(struct e2fsck_ctx *ctx, io_manager io)
{
	struct ej_outcome o = { .action = EJ_OUTCOME_FINISH };
	unsigned long long flushed = 0, wrote = 0;
	int dirty = !!(ctx->fs->flags & EXT2_FLAG_DIRTY);
	struct kb_model kb;
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
	kb_start(ctx, j, &kb);
	e2f_progress_start(ctx, ej_journal_report(j));
	ret = jbd2_journal_recover(j);
	e2f_progress_end(ctx);
	count_replayed(ctx, j, &kb);
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
	struct jstate st;
	int mount_flags = 0, usable;
	unsigned int options;
	io_manager io;
	errcode_t err;

	io_setup(ctx);

	/* a mounted filesystem's journal belongs to the kernel */
	if (ext2fs_check_if_mounted(ctx->filesystem_name, &mount_flags) ||
	    (mount_flags & (EXT2_MF_MOUNTED | EXT2_MF_BUSY)))
		return E2F_JOURNAL_DELEGATE;
	/* e2fsck makes up an undo file name itself: its business */
	if (ctx->undo_file && !ctx->undo_file[0])
		return E2F_JOURNAL_DELEGATE;

	/* The rehearsal. */
	err = open_fs(ctx, EXT2_FLAG_64BITS | EXT2_FLAG_NOFREE_ON_ERROR,
		      unix_io_manager);
	if (err) {
		/* e2fsck tries backups, prints what it found: its job */
		if (ctx->fs)
			ext2fs_free(ctx->fs);
		ctx->fs = NULL;
		return E2F_JOURNAL_DELEGATE;
	}
	/* a device smaller than the fs: e2fsck asks whether to abort first */
	if ((!ctx->superblock && !(ctx->options & E2F_OPT_PREEN) &&
	     ext2fs_check_desc(ctx->fs)) || !device_holds_fs(ctx) ||
	    ctx->fs->super->s_rev_level > EXT2_DYNAMIC_REV ||
	    ext2fs_has_feature_mmp(ctx->fs->super))
		goto delegate;
	set_device_name(ctx);

	ctx->dry = 1;
	ctx->dry_stop = 0;
	ctx->dry_asked = 0;
	options = ctx->options;
	err = check_journal(ctx, &st);
	ctx->options = options;
	ctx->flags &= ~(E2F_FLAG_PROBLEMS_FIXED | E2F_FLAG_FORCE_ENGINE);
	ctx->dry = 0;
	usable = !err && !ctx->dry_stop && st.loaded;

	/* before anyone (us or the engine) writes to the journal */
	save_journal(ctx);
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
	    !ctx->dry_asked)
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
