// SPDX-License-Identifier: LGPL-2.0
/*
 * jsb.c: the journal superblock: sanity checks and its checksum.
 *
 * ej_jsb_check() reports every problem it sees as a bit rather than
 * stopping at the first, so that callers can tell "unreadable" (no
 * replay) from "checksum wrong but geometry sane" (replay with every block
 * checked); see POLICY.md.  Only the 1024 bytes of journal_superblock_t
 * are ever read.
 */
#include <stddef.h>

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
