// SPDX-License-Identifier: LGPL-2.0
/*
 * jsb.c: the journal superblock: sanity checks and its checksum.
 *
 * ej_jsb_check() reports every problem it sees as a bit rather than
 * stopping at the first, so that callers can tell "unreadable" (no
 * replay) from "checksum wrong but geometry sane" (replay with every block
 * checked); see POLICY.md.  Only the 1024 bytes of journal_superblock_t
 * are ever read.
 *
 * ej_jsb_validate() is the one definition of a usable superblock: it
 * takes those bits and the journal's surroundings (its length, where the
 * superblock sits, whose journal it is) and names the first check that
 * fails, in e2fsprogs 1.47's order, then the library's own geometry.
 * e2fsck's journal checks turn the reason into e2fsprogs' messages;
 * ej_journal_open() into its error.  ej_ext_sb_validate() does the same
 * for the ext2 superblock of an external journal device.
 */
#include <stddef.h>
#include <string.h>

#include "ej_lib.h"

#define JSB_CSUM_FEATURES	(JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
				 JBD2_FEATURE_INCOMPAT_CSUM_V3)

/* Does this superblock carry a v2/v3 checksum (as the kernel decides)? */
static int jsb_has_csum_v2or3(const journal_superblock_t *jsb)
{
	if (be32_to_cpu(jsb->s_header.h_blocktype) != JBD2_SUPERBLOCK_V2)
		return 0;
	return !!(be32_to_cpu(jsb->s_feature_incompat) & JSB_CSUM_FEATURES);
}

__u32 ej_jsb_csum(const journal_superblock_t *jsb)
{
	static const __u32 zero;
	const size_t off = offsetof(journal_superblock_t, s_checksum);
	const size_t rest = off + sizeof(jsb->s_checksum);
	__u32 crc;

	if (!jsb)
		return 0;
	/* The checksum field counts as zero; the caller's copy is const. */
	crc = ej_crc32c(~0U, jsb, off);
	crc = ej_crc32c(crc, &zero, sizeof(zero));
	return ej_crc32c(crc, (const char *)jsb + rest, sizeof(*jsb) - rest);
}

/* A superblock without v2/v3 checksums has nothing to verify: 1. */
int ej_jsb_csum_verify(const journal_superblock_t *jsb)
{
	if (!jsb)
		return 0;
	if (!jsb_has_csum_v2or3(jsb))
		return 1;
	return be32_to_cpu(jsb->s_checksum) == ej_jsb_csum(jsb);
}

/* Leaves a superblock without v2/v3 checksums untouched, like the kernel. */
void ej_jsb_csum_set(journal_superblock_t *jsb)
{
	if (!jsb || !jsb_has_csum_v2or3(jsb))
		return;
	jsb->s_checksum = cpu_to_be32(ej_jsb_csum(jsb));
}

__u32 ej_jsb_csum_seed(const journal_superblock_t *jsb)
{
	if (!jsb)
		return 0;
	return ej_crc32c(~0U, jsb->s_uuid, sizeof(jsb->s_uuid));
}

/*
 * e2fsck 1.47 (e2fsck_journal_load) treats a v1 superblock with any
 * feature word or s_nr_users set as carrying v2 fields and offers to wipe
 * everything past s_errno; the same fields decide here.
 */
static unsigned int jsb_check_v1(const journal_superblock_t *jsb)
{
	if (jsb->s_feature_compat || jsb->s_feature_incompat ||
	    jsb->s_feature_ro_compat || jsb->s_nr_users)
		return EJ_JSB_V1_WITH_V2;
	return 0;
}

/* Feature checks; *log_end becomes the end of the normal log. */
static unsigned int jsb_check_v2(const journal_superblock_t *jsb,
				 __u32 *log_end)
{
	__u32 compat = be32_to_cpu(jsb->s_feature_compat);
	__u32 incompat = be32_to_cpu(jsb->s_feature_incompat);
	__u32 rocompat = be32_to_cpu(jsb->s_feature_ro_compat);
	__u32 maxlen = be32_to_cpu(jsb->s_maxlen);
	__u32 csum = incompat & JSB_CSUM_FEATURES;
	unsigned int p = 0;
	__u32 fc;

	if (incompat & ~(__u32)JBD2_KNOWN_INCOMPAT_FEATURES)
		p |= EJ_JSB_UNKNOWN_INCOMPAT;
	if (rocompat & ~(__u32)JBD2_KNOWN_ROCOMPAT_FEATURES)
		p |= EJ_JSB_UNKNOWN_ROCOMPAT;

	/*
	 * The three checksum versions exclude each other; the kernel refuses
	 * to load v2 with v3 and v1 (compat CHECKSUM) with either.
	 */
	if (csum == JSB_CSUM_FEATURES ||
	    (csum && (compat & JBD2_FEATURE_COMPAT_CHECKSUM)))
		p |= EJ_JSB_BOTH_CSUM;
	if (csum) {
		if (jsb->s_checksum_type != JBD2_CRC32C_CHKSUM_TYPE)
			p |= EJ_JSB_BAD_CSUM_TYPE;
		if (be32_to_cpu(jsb->s_checksum) != ej_jsb_csum(jsb))
			p |= EJ_JSB_BAD_CSUM;
	}

	if (incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		fc = be32_to_cpu(jsb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		/* 64-bit sum: a huge s_num_fc_blks must not wrap around. */
		if ((__u64)fc + JBD2_MIN_JOURNAL_BLOCKS > maxlen)
			p |= EJ_JSB_BAD_FC;
		else
			*log_end = maxlen - fc;
	}
	return p;
}

errcode_t ej_jsb_check(const journal_superblock_t *jsb,
		       const struct ej_jsb_limits *lim, unsigned int *problems)
{
	__u32 type, maxlen, first, start, log_end;
	unsigned int p = 0;

	if (!jsb || !lim || !problems)
		return EJ_BAD_ARG;
	*problems = 0;

	type = be32_to_cpu(jsb->s_header.h_blocktype);
	if (be32_to_cpu(jsb->s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2)) {
		/* Not a journal superblock: no other field means anything. */
		*problems = EJ_JSB_BAD_MAGIC;
		return 0;
	}

	if (be32_to_cpu(jsb->s_blocksize) != lim->fs_blocksize)
		p |= EJ_JSB_BAD_BLOCKSIZE;

	maxlen = be32_to_cpu(jsb->s_maxlen);
	if (maxlen < JBD2_MIN_JOURNAL_BLOCKS || maxlen > lim->max_blocks)
		p |= EJ_JSB_BAD_MAXLEN;

	/* Block 0 is the superblock itself: the log cannot start there. */
	first = be32_to_cpu(jsb->s_first);
	if (first < 1 || first >= maxlen)
		p |= EJ_JSB_BAD_FIRST;

	log_end = maxlen;
	if (type == JBD2_SUPERBLOCK_V2)
		p |= jsb_check_v2(jsb, &log_end);
	else
		p |= jsb_check_v1(jsb);

	start = be32_to_cpu(jsb->s_start);
	if (start && (start < first || start >= log_end))
		p |= EJ_JSB_BAD_START;

	*problems = p;
	return 0;
}

/* The block types of the log itself: a superblock is never one of them. */
static int is_log_block(__u32 type)
{
	return type == JBD2_DESCRIPTOR_BLOCK || type == JBD2_COMMIT_BLOCK ||
	       type == JBD2_REVOKE_BLOCK;
}

/*
 * Does the users list of an external journal rule this filesystem out?
 * Only when it names other filesystems and not this one: e2fsck and Linux
 * replay a device whose list is empty (debugfs-attached journals have
 * none).
 */
static int users_exclude(const journal_superblock_t *jsb, const __u8 *uuid)
{
	static const __u8 zero[JBD2_UUID_BYTES];
	unsigned int i, n = be32_to_cpu(jsb->s_nr_users);
	int others = 0;

	if (n > JBD2_USERS_MAX)
		n = JBD2_USERS_MAX;
	for (i = 0; i < n; i++) {
		const __u8 *u = jsb->s_users + i * JBD2_UUID_BYTES;

		if (!memcmp(u, uuid, JBD2_UUID_BYTES))
			return 0;
		if (memcmp(u, zero, JBD2_UUID_BYTES))
			others = 1;
	}
	return others;
}

/* The checks e2fsprogs 1.47 makes, in its order; the first that fails. */
static enum ej_jsb_reason e2fsprogs_reason(const journal_superblock_t *jsb,
					   const struct ej_jsb_env *env,
					   unsigned int p, int format)
{
	if (format == 2 && be32_to_cpu(jsb->s_nr_users) > 1 &&
	    !(env->flags & EJ_JSBV_SHARED_OK))
		return EJ_JSBR_MULTI_USERS;
	if (p & EJ_JSB_UNKNOWN_INCOMPAT)
		return EJ_JSBR_INCOMPAT;
	if (p & EJ_JSB_UNKNOWN_ROCOMPAT)
		return EJ_JSBR_ROCOMPAT;
	if (p & EJ_JSB_BOTH_CSUM)
		return EJ_JSBR_BOTH_CSUM;
	if (p & EJ_JSB_BAD_CSUM_TYPE)
		return EJ_JSBR_CSUM_TYPE;
	if ((p & EJ_JSB_BAD_CSUM) && !(env->flags & EJ_JSBV_CSUM_OK))
		return EJ_JSBR_CSUM;
	if (p & EJ_JSB_BAD_BLOCKSIZE)
		return EJ_JSBR_BLOCKSIZE;
	if (be32_to_cpu(jsb->s_maxlen) > env->nr_blocks)
		return EJ_JSBR_TOO_LONG;
	if (p & EJ_JSB_BAD_FC)
		return EJ_JSBR_FAST_COMMIT;
	return EJ_JSBR_OK;
}

/* What the library's own journal_t needs on top (EJ_JSBV_GEOMETRY). */
static enum ej_jsb_reason geometry_reason(const journal_superblock_t *jsb,
					  const struct ej_jsb_env *env,
					  unsigned int p)
{
	__u32 first = be32_to_cpu(jsb->s_first);

	if (be32_to_cpu(jsb->s_maxlen) < JBD2_MIN_JOURNAL_BLOCKS)
		return EJ_JSBR_MAXLEN;
	/* the log must not cover the superblocks before it */
	if ((p & EJ_JSB_BAD_FIRST) || first <= env->sb_lblk)
		return EJ_JSBR_FIRST;
	if (p & EJ_JSB_BAD_START)
		return EJ_JSBR_START;
	if (env->fs_uuid && users_exclude(jsb, env->fs_uuid))
		return EJ_JSBR_NOT_USER;
	return EJ_JSBR_OK;
}

static errcode_t reason_error(const journal_superblock_t *jsb,
			      enum ej_jsb_reason reason)
{
	switch (reason) {
	case EJ_JSBR_OK:
		return 0;
	case EJ_JSBR_BAD_TYPE:
		/* a type past every known one: a newer format */
		if (be32_to_cpu(jsb->s_header.h_blocktype) > JBD2_FC_BLOCK)
			return EJ_UNSUPP_JSB_VERSION;
		return EJ_BAD_JSB;
	case EJ_JSBR_MULTI_USERS:
		return EJ_EXT_MULTI_USER;
	case EJ_JSBR_INCOMPAT:
	case EJ_JSBR_ROCOMPAT:
		return EJ_UNSUPP_FEATURE;
	case EJ_JSBR_CSUM:
		return EJ_JSB_CSUM;
	case EJ_JSBR_TOO_LONG:
		return EJ_JOURNAL_TOO_SMALL;
	case EJ_JSBR_NOT_USER:
		return EJ_EXT_WRONG_FS;
	default:
		return EJ_BAD_JSB;
	}
}

errcode_t ej_jsb_validate(const journal_superblock_t *jsb,
			  const struct ej_jsb_env *env,
			  struct ej_jsb_result *res)
{
	struct ej_jsb_limits lim;
	enum ej_jsb_reason reason;
	errcode_t err;
	__u32 type;

	if (!jsb || !env || !res)
		return EJ_BAD_ARG;
	memset(res, 0, sizeof(*res));
	lim.fs_blocksize = env->fs_blocksize;
	lim.max_blocks = env->nr_blocks;
	err = ej_jsb_check(jsb, &lim, &res->problems);
	if (err)
		return err;

	type = be32_to_cpu(jsb->s_header.h_blocktype);
	if (be32_to_cpu(jsb->s_header.h_magic) != JBD2_MAGIC_NUMBER)
		reason = EJ_JSBR_NO_MAGIC;
	else if (is_log_block(type))
		reason = EJ_JSBR_LOG_BLOCK;
	else if (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2)
		reason = EJ_JSBR_BAD_TYPE;
	else
		res->format = type == JBD2_SUPERBLOCK_V1 ? 1 : 2;

	if (res->format) {
		reason = e2fsprogs_reason(jsb, env, res->problems,
					  res->format);
		if (!reason && (env->flags & EJ_JSBV_GEOMETRY))
			reason = geometry_reason(jsb, env, res->problems);
	}
	res->reason = reason;
	return reason_error(jsb, reason);
}

errcode_t ej_ext_sb_validate(const struct ext2_super_block *es,
			     const __u8 *journal_uuid,
			     unsigned int fs_blocksize, int geometry,
			     enum ej_ext_reason *reason)
{
	unsigned long long sb_blk, count;

	if (!es || !reason)
		return EJ_BAD_ARG;
	*reason = EJ_EXTR_OK;
	if (es->s_magic != EXT2_SUPER_MAGIC ||
	    !(es->s_feature_incompat & EXT3_FEATURE_INCOMPAT_JOURNAL_DEV)) {
		*reason = EJ_EXTR_NOT_JOURNAL;
		return EJ_EXT_NOT_JOURNAL;
	}
	if (journal_uuid && memcmp(es->s_uuid, journal_uuid, 16)) {
		*reason = EJ_EXTR_WRONG_FS;
		return EJ_EXT_WRONG_FS;
	}
	if (!geometry)
		return 0;
	if (!fs_blocksize || es->s_log_block_size > 16 ||
	    (EXT2_MIN_BLOCK_SIZE << es->s_log_block_size) != fs_blocksize) {
		*reason = EJ_EXTR_BLOCKSIZE;
		return EJ_EXT_BAD_SB;
	}
	/* the journal superblock follows the block holding byte 1024 */
	sb_blk = SUPERBLOCK_OFFSET / fs_blocksize + 1;
	count = es->s_blocks_count;
	if (es->s_feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		count |= (unsigned long long)es->s_blocks_count_hi << 32;
	if (count <= sb_blk + 1) {
		*reason = EJ_EXTR_TOO_SMALL;
		return EJ_EXT_BAD_SB;
	}
	return 0;
}

errcode_t ej_jinode_validate(const struct ext2_inode *inode,
			     unsigned int blocksize)
{
	if (!inode || !blocksize)
		return EJ_BAD_ARG;
	if (!inode->i_links_count || !LINUX_S_ISREG(inode->i_mode) ||
	    (inode->i_flags & EXT4_ENCRYPT_FL))
		return EJ_BAD_JOURNAL_INODE;
	if (EXT2_I_SIZE(inode) / blocksize < JBD2_MIN_JOURNAL_BLOCKS)
		return EJ_JOURNAL_TOO_SMALL;
	/* its blocks cannot be mapped (e2fsprogs finds none: too small) */
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return EJ_BAD_JOURNAL_INODE;
	return 0;
}
