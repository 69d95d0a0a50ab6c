/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * jbd2_fmt.h: the JBD2 journal's on-disk format.
 *
 * Written for e2journal from the facts in FORMAT.md (the kernel's ext4
 * "Journal (jbd2)" documentation).  The type and field names are the ones
 * Linux uses in include/linux/jbd2.h, so that recovery.c compiles against
 * either.  Every field is big-endian on disk.
 */
#ifndef E2JOURNAL_JBD2_FMT_H
#define E2JOURNAL_JBD2_FMT_H

#include <stdint.h>

#ifndef __KERNEL__
/* The same types libext2fs's ext2_types.h uses, so both can be included. */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
#endif

#define JBD2_MAGIC_NUMBER		0xc03b3998U

/* Block types (h_blocktype). */
#define JBD2_DESCRIPTOR_BLOCK		1
#define JBD2_COMMIT_BLOCK		2
#define JBD2_SUPERBLOCK_V1		3
#define JBD2_SUPERBLOCK_V2		4
#define JBD2_REVOKE_BLOCK		5
#define JBD2_FC_BLOCK			6

/* Every control block starts with this. */
typedef struct journal_header_s {
	__be32		h_magic;
	__be32		h_blocktype;
	__be32		h_sequence;
} journal_header_t;

/* Commit checksum types (h_chksum_type), v1 checksums only. */
#define JBD2_CRC32_CHKSUM		1
#define JBD2_MD5_CHKSUM			2
#define JBD2_SHA1_CHKSUM		3
#define JBD2_CRC32C_CHKSUM		4
#define JBD2_CRC32_CHKSUM_SIZE		4
#define JBD2_CHECKSUM_BYTES		(32 / sizeof(__u32))

struct commit_header {
	__be32		h_magic;
	__be32		h_blocktype;
	__be32		h_sequence;
	unsigned char	h_chksum_type;
	unsigned char	h_chksum_size;
	unsigned char	h_padding[2];
	__be32		h_chksum[JBD2_CHECKSUM_BYTES];
	__be64		h_commit_sec;
	__be32		h_commit_nsec;
} __attribute__((packed));

/* Tag with CSUM_V3: always 16 bytes. */
typedef struct journal_block_tag3_s {
	__be32		t_blocknr;
	__be32		t_flags;
	__be32		t_blocknr_high;
	__be32		t_checksum;
} journal_block_tag3_t;

/* Tag without CSUM_V3: 8, 10 (v2), 12 (64bit) or 14 (v2 + 64bit) bytes. */
typedef struct journal_block_tag_s {
	__be32		t_blocknr;
	__be16		t_checksum;
	__be16		t_flags;
	__be32		t_blocknr_high;
} journal_block_tag_t;

/* Tail of descriptor and revoke blocks with CSUM_V2/V3. */
struct jbd2_journal_block_tail {
	__be32		t_checksum;
};

typedef struct jbd2_journal_revoke_header_s {
	journal_header_t r_header;
	__be32		 r_count;
} jbd2_journal_revoke_header_t;

/* Tag flags. */
#define JBD2_FLAG_ESCAPE		1
#define JBD2_FLAG_SAME_UUID		2
#define JBD2_FLAG_DELETED		4
#define JBD2_FLAG_LAST_TAG		8

#define JBD2_UUID_BYTES			16
#define JBD2_USERS_MAX			48
#define JBD2_USERS_SIZE			(JBD2_UUID_BYTES * JBD2_USERS_MAX)
#define JBD2_MIN_JOURNAL_BLOCKS		1024
#define JBD2_DEFAULT_FAST_COMMIT_BLOCKS	256

typedef struct journal_superblock_s {
	journal_header_t s_header;			/* 0x00 */
	__be32	s_blocksize;				/* 0x0C */
	__be32	s_maxlen;				/* 0x10 */
	__be32	s_first;				/* 0x14 */
	__be32	s_sequence;				/* 0x18 */
	__be32	s_start;				/* 0x1C */
	__be32	s_errno;				/* 0x20 */
	__be32	s_feature_compat;			/* 0x24 */
	__be32	s_feature_incompat;			/* 0x28 */
	__be32	s_feature_ro_compat;			/* 0x2C */
	__u8	s_uuid[16];				/* 0x30 */
	__be32	s_nr_users;				/* 0x40 */
	__be32	s_dynsuper;				/* 0x44 */
	__be32	s_max_transaction;			/* 0x48 */
	__be32	s_max_trans_data;			/* 0x4C */
	__u8	s_checksum_type;			/* 0x50 */
	__u8	s_padding2[3];
	__be32	s_num_fc_blks;				/* 0x54 */
	__be32	s_head;					/* 0x58 */
	__u32	s_padding[40];
	__be32	s_checksum;				/* 0xFC */
	__u8	s_users[JBD2_USERS_SIZE];		/* 0x100 */
} journal_superblock_t;

/* Journal superblock checksum type. */
#define JBD2_CRC32C_CHKSUM_TYPE		4

#define JBD2_FEATURE_COMPAT_CHECKSUM		0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE		0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT		0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2		0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3		0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020

#define JBD2_KNOWN_COMPAT_FEATURES	JBD2_FEATURE_COMPAT_CHECKSUM
#define JBD2_KNOWN_ROCOMPAT_FEATURES	0
#define JBD2_KNOWN_INCOMPAT_FEATURES	(JBD2_FEATURE_INCOMPAT_REVOKE | \
					 JBD2_FEATURE_INCOMPAT_64BIT | \
					 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | \
					 JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
					 JBD2_FEATURE_INCOMPAT_CSUM_V3 | \
					 JBD2_FEATURE_INCOMPAT_FAST_COMMIT)

#ifndef __KERNEL__
_Static_assert(sizeof(journal_header_t) == 12, "journal header");
_Static_assert(sizeof(struct commit_header) == 60, "commit header");
_Static_assert(sizeof(journal_block_tag3_t) == 16, "tag3");
_Static_assert(sizeof(journal_block_tag_t) == 12, "tag");
_Static_assert(sizeof(jbd2_journal_revoke_header_t) == 16, "revoke header");
_Static_assert(sizeof(journal_superblock_t) == 1024, "journal superblock");
#endif

#endif /* E2JOURNAL_JBD2_FMT_H */
