// SPDX-License-Identifier: GPL-2.0
/*
 * ej_dump.c: e2journal dump IMAGE [-j EXTERNAL_JOURNAL] [--json]
 *
 * Prints the journal superblock, then walks the log from s_start the way
 * recovery's first pass would (descriptor blocks and their tags, revoke
 * blocks, commit blocks, wrapping from the end of the log back to s_first)
 * and stops at the first block that does not carry the journal magic and
 * the expected sequence.  Every checksum the journal carries is verified
 * and shown, so that a person can see where a damaged log goes wrong
 * before deciding how to replay it.
 *
 * The journal is whatever is on the disk: every length, count and offset
 * taken from it is checked against the block before it is used.  Nothing
 * is ever written: the filesystem is opened read-only and the journal
 * with EJ_OPEN_READONLY.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <et/com_err.h>

#include "e2journal_int.h"

/* Checksum states shown for a block. */
#define CSUM_NONE	-1	/* the journal has no such checksum */
#define CSUM_BAD	0
#define CSUM_OK		1

struct dump_ctx {
	journal_t	*journal;
	const char	*saved;		/* a saved copy read instead */
	FILE		*out;
	int		json;
	unsigned int	bs;		/* journal block size */
	unsigned long	first;		/* first log block */
	unsigned long	last;		/* one past the last log block */
	unsigned int	tag_bytes;
	unsigned int	tail_bytes;	/* 4 with csum v2/v3, else 0 */
	int		csum_v1, csum_v23, csum_v3, is_64bit;
	__u32		seed;		/* v2/v3 checksum seed */
	char		*buf;		/* the control block being parsed */
	char		*data;		/* a data block */

	/* JSON writer state */
	int		jcomma;		/* a value precedes at this level */
	int		jdepth;

	/* the transaction being walked */
	int		txn_open;
	__u32		txn_tid;
	__u32		v1_crc;		/* running v1 checksum */
	int		v1_valid;	/* every block of it could be read */

	/* totals */
	unsigned long	nr_txns, nr_committed, nr_tags, nr_revoked;
	unsigned long	nr_bad_csum;
	int		read_error;

	/* -O: the old log too (past the end, or from s_first when empty) */
	int		old;
	/* -i: only the logged versions of an inode's blocks */
	ext2_ino_t	ino;
	blk64_t		ino_table_block;	/* holds the inode */
	unsigned int	ino_offset;		/* its offset in that block */
	blk64_t		*ino_blocks;		/* mapped blocks, sorted */
	size_t		nr_ino_blocks, ino_cap;
	unsigned long	nr_ino_hits;
	__u32		next_tid;	/* after the last committed one */
};

/* ------------------------------------------------------------------ */
/* Reading big-endian fields from a block                              */

static __u32 get_be32(const void *p)
{
	const unsigned char *c = p;

	return ((__u32)c[0] << 24) | ((__u32)c[1] << 16) |
	       ((__u32)c[2] << 8) | c[3];
}

static __u16 get_be16(const void *p)
{
	const unsigned char *c = p;

	return (__u16)((c[0] << 8) | c[1]);
}

static __u64 get_be64(const void *p)
{
	return ((__u64)get_be32(p) << 32) | get_be32((const char *)p + 4);
}

/* ------------------------------------------------------------------ */
/* A small JSON writer: it places the commas, the caller the values.   */

static void j_indent(struct dump_ctx *c)
{
	int i;

	fputc('\n', c->out);
	for (i = 0; i < c->jdepth; i++)
		fputs("  ", c->out);
}

/* A line break before the next member or item (which must follow). */
static void j_break(struct dump_ctx *c)
{
	if (c->jcomma)
		fputc(',', c->out);
	c->jcomma = 0;
	j_indent(c);
}

/* Start a value: the comma before it and, for a member, its key. */
static void j_key(struct dump_ctx *c, const char *key)
{
	if (c->jcomma)
		fputs(", ", c->out);
	c->jcomma = 1;
	if (key) {
		ej_json_string(c->out, key);
		fputs(": ", c->out);
	}
}

/* Open an object or array; items of arrays start on a line of their own. */
static void j_open(struct dump_ctx *c, const char *key, char bracket)
{
	if (!key && c->jdepth)
		j_break(c);
	j_key(c, key);
	fputc(bracket, c->out);
	c->jdepth++;
	c->jcomma = 0;
}

static void j_close(struct dump_ctx *c, char bracket)
{
	c->jdepth--;
	fputc(bracket, c->out);
	c->jcomma = 1;
}

/* Close on a line of its own. */
static void j_close_nl(struct dump_ctx *c, char bracket)
{
	c->jdepth--;
	j_indent(c);
	fputc(bracket, c->out);
	c->jcomma = 1;
}

static void j_uint(struct dump_ctx *c, const char *key, unsigned long long v)
{
	j_key(c, key);
	fprintf(c->out, "%llu", v);
}

static void j_int(struct dump_ctx *c, const char *key, long long v)
{
	j_key(c, key);
	fprintf(c->out, "%lld", v);
}

static void j_str(struct dump_ctx *c, const char *key, const char *s)
{
	j_key(c, key);
	if (s)
		ej_json_string(c->out, s);
	else
		fputs("null", c->out);
}

static void j_bool(struct dump_ctx *c, const char *key, int v)
{
	j_key(c, key);
	fputs(v ? "true" : "false", c->out);
}

static void j_csum(struct dump_ctx *c, int state)
{
	j_str(c, "csum", state == CSUM_OK ? "ok" :
	      state == CSUM_BAD ? "bad" : NULL);
}

/* Open the object of log block @b, of @type, in the current transaction. */
static void j_log_block(struct dump_ctx *c, unsigned long b,
			const char *type)
{
	j_open(c, NULL, '{');
	j_uint(c, "block", b);
	j_str(c, "type", type);
	j_uint(c, "sequence", c->txn_tid);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

static void format_uuid(const __u8 *u, char *str)
{
	static const char hex[] = "0123456789abcdef";
	int i, n = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			str[n++] = '-';
		str[n++] = hex[u[i] >> 4];
		str[n++] = hex[u[i] & 15];
	}
	str[n] = 0;
}

static const char *block_type_name(__u32 type)
{
	switch (type) {
	case JBD2_DESCRIPTOR_BLOCK:
		return "descriptor";
	case JBD2_COMMIT_BLOCK:
		return "commit";
	case JBD2_SUPERBLOCK_V1:
		return "superblock v1";
	case JBD2_SUPERBLOCK_V2:
		return "superblock v2";
	case JBD2_REVOKE_BLOCK:
		return "revoke";
	case JBD2_FC_BLOCK:
		return "fast commit";
	}
	return "unknown";
}

static const char *const compat_names[32] = { "checksum" };
static const char *const incompat_names[32] = {
	"revoke", "64bit", "async_commit", "csum_v2", "csum_v3", "fast_commit"
};
static const char *const tag_flag_names[32] = {
	"escape", "same_uuid", "deleted", "last_tag"
};
static const char *const jsb_problem_names[32] = {
	"bad_magic", "bad_blocksize", "bad_maxlen", "bad_first", "bad_start",
	"unknown_incompat", "unknown_ro_compat", "bad_csum_type", "bad_csum",
	"v1_with_v2_fields", "both_csum_v2_v3", "bad_fast_commit_area"
};

/* The name of bit @bit of a 32-entry table, or its value in hex. */
static const char *bit_name(const char *const *names, int bit, char *tmp,
			    size_t len)
{
	if (names[bit])
		return names[bit];
	snprintf(tmp, len, "0x%x", 1U << bit);
	return tmp;
}

/* Names of the bits set in @mask, space-separated. */
static void bit_names(__u32 mask, const char *const *names, char *str,
		      size_t len)
{
	size_t n = 0;
	int bit, w;

	str[0] = 0;
	for (bit = 0; bit < 32; bit++) {
		char tmp[16];

		if (!(mask & (1U << bit)))
			continue;
		w = snprintf(str + n, len - n, "%s%s", n ? " " : "",
			     bit_name(names, bit, tmp, sizeof(tmp)));
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += w;
	}
}

static void j_names(struct dump_ctx *c, const char *key, __u32 mask,
		    const char *const *names)
{
	int bit;

	j_key(c, key);
	fputc('[', c->out);
	c->jcomma = 0;
	for (bit = 0; bit < 32; bit++) {
		char tmp[16];

		if (mask & (1U << bit))
			j_str(c, NULL, bit_name(names, bit, tmp, sizeof(tmp)));
	}
	fputc(']', c->out);
	c->jcomma = 1;
}

static const char *csum_word(int state)
{
	return state == CSUM_OK ? "ok" : state == CSUM_BAD ? "BAD" : "none";
}

/* ------------------------------------------------------------------ */
/* The journal superblock                                              */

static void json_superblock(struct dump_ctx *c, int csum_state)
{
	const journal_superblock_t *jsb = c->journal->j_superblock;
	const struct ej_journal_info *info = ej_journal_info(c->journal);
	__u32 nr_users = be32_to_cpu(jsb->s_nr_users);
	char uuid[40];
	__u32 i;

	j_open(c, "superblock", '{');
	j_break(c);
	if (info) {
		j_bool(c, "external", info->external);
		if (!info->external) {
			j_uint(c, "inode", info->ino);
			j_bool(c, "from_backup", info->from_backup);
		}
		j_uint(c, "block", info->sb_block);
		j_names(c, "problems", info->jsb_problems, jsb_problem_names);
		j_break(c);
	}
	j_uint(c, "magic", be32_to_cpu(jsb->s_header.h_magic));
	j_uint(c, "blocktype", be32_to_cpu(jsb->s_header.h_blocktype));
	j_uint(c, "blocksize", be32_to_cpu(jsb->s_blocksize));
	j_uint(c, "maxlen", be32_to_cpu(jsb->s_maxlen));
	j_uint(c, "first", be32_to_cpu(jsb->s_first));
	j_uint(c, "sequence", be32_to_cpu(jsb->s_sequence));
	j_uint(c, "start", be32_to_cpu(jsb->s_start));
	j_int(c, "errno", (__s32)be32_to_cpu(jsb->s_errno));
	j_break(c);
	j_uint(c, "feature_compat", be32_to_cpu(jsb->s_feature_compat));
	j_uint(c, "feature_incompat", be32_to_cpu(jsb->s_feature_incompat));
	j_uint(c, "feature_ro_compat", be32_to_cpu(jsb->s_feature_ro_compat));
	j_names(c, "compat_names", be32_to_cpu(jsb->s_feature_compat),
		compat_names);
	j_names(c, "incompat_names", be32_to_cpu(jsb->s_feature_incompat),
		incompat_names);
	j_break(c);
	format_uuid(jsb->s_uuid, uuid);
	j_str(c, "uuid", uuid);
	j_uint(c, "nr_users", nr_users);
	j_key(c, "users");
	fputc('[', c->out);
	c->jcomma = 0;
	/* s_users holds 48 entries whatever s_nr_users claims. */
	for (i = 0; i < nr_users && i < JBD2_USERS_MAX; i++) {
		format_uuid(jsb->s_users + i * JBD2_UUID_BYTES, uuid);
		j_str(c, NULL, uuid);
	}
	fputc(']', c->out);
	c->jcomma = 1;
	j_break(c);
	j_uint(c, "max_transaction", be32_to_cpu(jsb->s_max_transaction));
	j_uint(c, "max_trans_data", be32_to_cpu(jsb->s_max_trans_data));
	j_uint(c, "checksum_type", jsb->s_checksum_type);
	j_uint(c, "num_fc_blks", be32_to_cpu(jsb->s_num_fc_blks));
	j_uint(c, "checksum", be32_to_cpu(jsb->s_checksum));
	j_csum(c, csum_state);
	j_break(c);
	j_uint(c, "tag_bytes", c->tag_bytes);
	j_uint(c, "log_first", c->first);
	j_uint(c, "log_last", c->last);
	j_close_nl(c, '}');
}

static void text_superblock(struct dump_ctx *c, const char *ext_journal,
			    int csum_state)
{
	const journal_superblock_t *jsb = c->journal->j_superblock;
	const struct ej_journal_info *info = ej_journal_info(c->journal);
	__u32 type = be32_to_cpu(jsb->s_header.h_blocktype);
	__u32 compat = be32_to_cpu(jsb->s_feature_compat);
	__u32 incompat = be32_to_cpu(jsb->s_feature_incompat);
	__u32 nr_users = be32_to_cpu(jsb->s_nr_users);
	FILE *out = c->out;
	char uuid[40], names[256];
	__u32 i;

	fputs("Journal superblock", out);
	if (info && info->saved)
		fprintf(out, " (saved copy %s of an %s journal, block %llu)",
			c->saved, info->external ? "external" : "internal",
			info->external ? info->sb_block : 0ULL);
	else if (info && info->external)
		fprintf(out, " (external journal %s, block %llu)",
			ext_journal ? ext_journal : "", info->sb_block);
	else if (info)
		fprintf(out, " (inode %u%s, block %llu)", info->ino,
			info->from_backup ? ", through s_jnl_blocks" : "",
			info->sb_block);
	fputc('\n', out);
	fprintf(out, "  %-22s 0x%08x\n", "magic",
		be32_to_cpu(jsb->s_header.h_magic));
	fprintf(out, "  %-22s %u (%s)\n", "block type", type,
		block_type_name(type));
	fprintf(out, "  %-22s %u\n", "block size",
		be32_to_cpu(jsb->s_blocksize));
	fprintf(out, "  %-22s %u\n", "total blocks (maxlen)",
		be32_to_cpu(jsb->s_maxlen));
	fprintf(out, "  %-22s %u\n", "first log block",
		be32_to_cpu(jsb->s_first));
	fprintf(out, "  %-22s %u\n", "sequence", be32_to_cpu(jsb->s_sequence));
	fprintf(out, "  %-22s %u%s\n", "log start", be32_to_cpu(jsb->s_start),
		jsb->s_start ? "" : " (journal is empty)");
	fprintf(out, "  %-22s %d\n", "errno", (__s32)be32_to_cpu(jsb->s_errno));
	bit_names(compat, compat_names, names, sizeof(names));
	fprintf(out, "  %-22s 0x%08x%s%s\n", "compat features", compat,
		names[0] ? " " : "", names);
	bit_names(incompat, incompat_names, names, sizeof(names));
	fprintf(out, "  %-22s 0x%08x%s%s\n", "incompat features", incompat,
		names[0] ? " " : "", names);
	fprintf(out, "  %-22s 0x%08x\n", "ro_compat features",
		be32_to_cpu(jsb->s_feature_ro_compat));
	format_uuid(jsb->s_uuid, uuid);
	fprintf(out, "  %-22s %s\n", "uuid", uuid);
	fprintf(out, "  %-22s %u\n", "users", nr_users);
	for (i = 0; i < nr_users && i < JBD2_USERS_MAX; i++) {
		format_uuid(jsb->s_users + i * JBD2_UUID_BYTES, uuid);
		fprintf(out, "  %-22s %s\n", "", uuid);
	}
	fprintf(out, "  %-22s %u\n", "max transaction",
		be32_to_cpu(jsb->s_max_transaction));
	fprintf(out, "  %-22s %u\n", "max transaction data",
		be32_to_cpu(jsb->s_max_trans_data));
	fprintf(out, "  %-22s %u%s\n", "checksum type", jsb->s_checksum_type,
		jsb->s_checksum_type == JBD2_CRC32C_CHKSUM_TYPE ?
		" (crc32c)" : "");
	fprintf(out, "  %-22s 0x%08x (%s)\n", "checksum",
		be32_to_cpu(jsb->s_checksum), csum_word(csum_state));
	fprintf(out, "  %-22s %u\n", "fast-commit blocks",
		be32_to_cpu(jsb->s_num_fc_blks));
	fprintf(out, "  %-22s %u bytes\n", "tag size", c->tag_bytes);
	if (info && info->jsb_problems) {
		bit_names(info->jsb_problems, jsb_problem_names, names,
			  sizeof(names));
		fprintf(out, "  %-22s %s\n", "problems", names);
	}
	fputc('\n', out);
}

static void dump_superblock(struct dump_ctx *c, const char *image,
			    const char *ext_journal)
{
	const journal_superblock_t *jsb = c->journal->j_superblock;
	int csum_state = CSUM_NONE;

	if (c->csum_v23)
		csum_state = ej_jsb_csum_verify(jsb) ? CSUM_OK : CSUM_BAD;
	if (!c->json) {
		text_superblock(c, ext_journal, csum_state);
		return;
	}
	j_open(c, NULL, '{');
	j_break(c);
	j_str(c, "image", image);
	j_str(c, "external_journal", c->saved ? NULL : ext_journal);
	j_str(c, "saved", c->saved);
	j_break(c);
	json_superblock(c, csum_state);
}

/* ------------------------------------------------------------------ */
/* Walking the log                                                     */

/* Text columns: journal block, type, sequence, what the block holds. */
static void text_row(struct dump_ctx *c, unsigned long b, const char *type,
		     const char *fmt, ...)
{
	va_list ap;

	if (type)
		fprintf(c->out, "  %8lu  %-10s %10u  ", b, type, c->txn_tid);
	else
		fprintf(c->out, "  %8s  %-10s %10s  ", "", "", "");
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

/* -i in text: only the rows of the inode's blocks and the end. */
static int quiet(const struct dump_ctx *c)
{
	return c->ino && !c->json;
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

/* 1: @blk is the inode table block of the -i inode; 2: one it maps. */
static int ino_match(const struct dump_ctx *c, blk64_t blk)
{
	if (!c->ino)
		return 0;
	if (blk == c->ino_table_block)
		return 1;
	if (c->nr_ino_blocks &&
	    bsearch(&blk, c->ino_blocks, c->nr_ino_blocks, sizeof(blk64_t),
		    cmp_blk))
		return 2;
	return 0;
}

static unsigned long next_block(struct dump_ctx *c, unsigned long b)
{
	b++;
	if (b >= c->last)
		b = c->first + (b - c->last);
	return b;
}

static int read_block(struct dump_ctx *c, unsigned long b, void *buf)
{
	if (ej_journal_read_block(c->journal, b, buf)) {
		c->read_error = 1;
		return -1;
	}
	return 0;
}

/* Called for every control block with the expected sequence. */
static void txn_begin(struct dump_ctx *c, __u32 tid, unsigned long b)
{
	if (c->txn_open)
		return;
	c->txn_open = 1;
	c->txn_tid = tid;
	c->v1_crc = ~0U;
	c->v1_valid = 1;
	c->nr_txns++;
	if (!c->json) {
		if (!quiet(c))
			fprintf(c->out, "Transaction %u\n", tid);
		return;
	}
	j_open(c, NULL, '{');
	j_uint(c, "tid", tid);
	j_uint(c, "first_block", b);
	j_open(c, "blocks", '[');
}

static void txn_end(struct dump_ctx *c, int committed)
{
	if (!c->txn_open)
		return;
	c->txn_open = 0;
	if (committed) {
		c->nr_committed++;
		/* -O's old log holds older tids: keep the newest */
		if (c->nr_committed == 1 ||
		    (__s32)(c->txn_tid + 1 - c->next_tid) > 0)
			c->next_tid = c->txn_tid + 1;
	}
	if (!c->json) {
		if (!committed && !quiet(c))
			fprintf(c->out, "  (transaction %u has no commit block)\n",
				c->txn_tid);
		return;
	}
	j_close(c, ']');
	j_bool(c, "committed", committed);
	j_close(c, '}');
}

/* Checksum state of a descriptor or revoke block's tail. */
static int tail_csum_state(struct dump_ctx *c)
{
	char saved[4];
	__u32 calc;

	if (!c->csum_v23)
		return CSUM_NONE;
	memcpy(saved, c->buf + c->bs - 4, 4);
	memset(c->buf + c->bs - 4, 0, 4);
	calc = ej_crc32c(c->seed, c->buf, c->bs);
	/* Put it back: the tags may still be read after this. */
	memcpy(c->buf + c->bs - 4, saved, 4);
	return calc == get_be32(saved) ? CSUM_OK : CSUM_BAD;
}

/* One tag of a descriptor block. */
struct tag_info {
	unsigned long long	fsblock;
	__u32			flags;
	__u32			csum;
};

/* @p points at tag_bytes bytes inside the block (checked by the caller). */
static void parse_tag(struct dump_ctx *c, const char *p, struct tag_info *t)
{
	t->fsblock = get_be32(p);
	if (c->csum_v3) {
		t->flags = get_be32(p + 4);
		t->csum = get_be32(p + 12);
	} else {
		t->csum = get_be16(p + 4);
		t->flags = get_be16(p + 6);
	}
	if (c->is_64bit)
		t->fsblock |= (__u64)get_be32(p + 8) << 32;
}

static int data_csum_state(struct dump_ctx *c, const struct tag_info *t,
			   __u32 tid)
{
	__be32 seq = cpu_to_be32(tid);
	__u32 csum;

	if (!c->csum_v23)
		return CSUM_NONE;
	csum = ej_crc32c(c->seed, &seq, sizeof(seq));
	csum = ej_crc32c(csum, c->data, c->bs);
	/* v2 keeps the low 16 bits of the crc in the tag. */
	if (!c->csum_v3)
		csum &= 0xffff;
	return csum == t->csum ? CSUM_OK : CSUM_BAD;
}

/* Tags in the descriptor in c->buf, counted the way recovery counts. */
static unsigned int count_tags(struct dump_ctx *c)
{
	unsigned int space = c->bs - c->tail_bytes;
	unsigned int off = sizeof(journal_header_t), nr = 0;
	struct tag_info t;

	while (off + c->tag_bytes <= space) {
		parse_tag(c, c->buf + off, &t);
		nr++;
		off += c->tag_bytes;
		if (!(t.flags & JBD2_FLAG_SAME_UUID))
			off += JBD2_UUID_BYTES;
		if (t.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return nr;
}

static void show_tag(struct dump_ctx *c, unsigned long jb,
		     const struct tag_info *t, const char *uuid,
		     int readable, int state)
{
	char names[64];
	int m = ino_match(c, t->fsblock);

	if (m)
		c->nr_ino_hits++;
	if (c->json) {
		j_open(c, NULL, '{');
		j_uint(c, "journal_block", jb);
		j_uint(c, "fs_block", t->fsblock);
		if (m)
			j_str(c, "inode_block", m == 1 ? "inode_table" :
			      "mapped");
		j_uint(c, "flags", t->flags);
		j_names(c, "flag_names", t->flags, tag_flag_names);
		if (c->csum_v23)
			j_uint(c, "checksum", t->csum);
		if (uuid)
			j_str(c, "uuid", uuid);
		if (readable)
			j_csum(c, state);
		else
			j_bool(c, "read_error", 1);
		j_close(c, '}');
		return;
	}
	if (quiet(c) && !m)
		return;
	bit_names(t->flags, tag_flag_names, names, sizeof(names));
	text_row(c, jb, "  data", "fs block %llu%s, flags 0x%x%s%s%s%s%s",
		 t->fsblock, !m ? "" : m == 1 ?
		 " (inode table block of the inode)" : " (mapped by the inode)",
		 t->flags, names[0] ? " (" : "", names,
		 names[0] ? ")" : "",
		 !readable ? ", unreadable" : state != CSUM_NONE ? ", csum " :
		 "", readable && state != CSUM_NONE ? csum_word(state) : "");
}

/*
 * The descriptor block at @b (in c->buf) and its data blocks.  Returns the
 * journal block after its last data block; *used is the number of log
 * blocks it took.
 */
static unsigned long walk_descriptor(struct dump_ctx *c, unsigned long b,
				     unsigned long *used)
{
	unsigned int nr = count_tags(c), off = sizeof(journal_header_t), i;
	int dstate = tail_csum_state(c);
	unsigned long jb = b;

	if (dstate == CSUM_BAD)
		c->nr_bad_csum++;
	if (c->json) {
		j_log_block(c, b, "descriptor");
		j_uint(c, "nr_tags", nr);
		j_csum(c, dstate);
		j_open(c, "tags", '[');
	} else if (!quiet(c)) {
		text_row(c, b, "descriptor", "%u tag%s%s%s", nr,
			 nr == 1 ? "" : "s",
			 dstate != CSUM_NONE ? ", csum " : "",
			 dstate != CSUM_NONE ? csum_word(dstate) : "");
	}

	if (c->csum_v1 && c->v1_valid)
		c->v1_crc = ej_crc32_be(c->v1_crc, c->buf, c->bs);

	for (i = 0; i < nr; i++) {
		struct tag_info t;
		int state = CSUM_NONE, readable;
		char uuid[40];
		const char *has_uuid = NULL;

		parse_tag(c, c->buf + off, &t);
		off += c->tag_bytes;
		if (!(t.flags & JBD2_FLAG_SAME_UUID)) {
			/* The last tag's UUID may run off a garbled block. */
			if (off + JBD2_UUID_BYTES <= c->bs) {
				format_uuid((const __u8 *)c->buf + off, uuid);
				has_uuid = uuid;
			}
			off += JBD2_UUID_BYTES;
		}
		jb = next_block(c, jb);

		readable = read_block(c, jb, c->data) == 0;
		if (readable) {
			state = data_csum_state(c, &t, c->txn_tid);
			if (c->csum_v1 && c->v1_valid)
				c->v1_crc = ej_crc32_be(c->v1_crc, c->data,
							c->bs);
		} else {
			c->v1_valid = 0;
		}
		if (state == CSUM_BAD)
			c->nr_bad_csum++;
		c->nr_tags++;
		show_tag(c, jb, &t, has_uuid, readable, state);
	}
	if (c->json) {
		j_close(c, ']');
		j_close(c, '}');
	}
	*used = 1 + nr;
	return next_block(c, jb);
}

static void walk_revoke(struct dump_ctx *c, unsigned long b)
{
	unsigned int rec = c->is_64bit ? 8 : 4;
	unsigned int space = c->bs - c->tail_bytes;
	__u32 r_count = get_be32(c->buf + sizeof(journal_header_t));
	unsigned int end, off, nr;
	int state = tail_csum_state(c);

	if (state == CSUM_BAD)
		c->nr_bad_csum++;
	/* r_count counts bytes from the block start; never past the block. */
	end = r_count < space ? r_count : space;
	off = sizeof(jbd2_journal_revoke_header_t);
	nr = end > off ? (end - off) / rec : 0;

	if (c->json) {
		j_log_block(c, b, "revoke");
		j_uint(c, "r_count", r_count);
		j_bool(c, "r_count_ok", r_count <= space);
		j_csum(c, state);
		j_key(c, "records");
		fputc('[', c->out);
		c->jcomma = 0;
	} else if (!quiet(c)) {
		text_row(c, b, "revoke", "%u record%s, r_count %u%s%s%s", nr,
			 nr == 1 ? "" : "s", r_count,
			 r_count > space ? " (larger than the block)" : "",
			 state != CSUM_NONE ? ", csum " : "",
			 state != CSUM_NONE ? csum_word(state) : "");
	}
	for (; off + rec <= end; off += rec) {
		unsigned long long blk = rec == 8 ? get_be64(c->buf + off) :
				       get_be32(c->buf + off);

		c->nr_revoked++;
		if (c->json)
			j_uint(c, NULL, blk);
		else if (!quiet(c) || ino_match(c, blk))
			text_row(c, 0, NULL, "revoke fs block %llu", blk);
	}
	if (c->json) {
		fputc(']', c->out);
		c->jcomma = 1;
		j_close(c, '}');
	}
}

/*
 * A commit time as a date, UTC: "2023-11-14 22:13:20.000000000 UTC" for
 * people (@iso 0) or "2023-11-14T22:13:20.000000000Z" (@iso 1, for JSON).
 * 0: no time (writers other than Linux may leave it zero) or one that is
 * no date: the caller shows the raw number.
 */
static int commit_date(__u64 sec, __u32 nsec, int iso, char *out,
		       size_t size)
{
	struct tm tm;
	time_t t = (time_t)sec;
	char day[48];

	if (!sec || (__u64)t != sec || t < 0 || nsec > 999999999U ||
	    !gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
		return 0;
	strftime(day, sizeof(day), iso ? "%Y-%m-%dT%H:%M:%S" :
		 "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(out, size, "%s.%09u%s", day, nsec, iso ? "Z" : " UTC");
	return 1;
}

static void walk_commit(struct dump_ctx *c, unsigned long b)
{
	struct commit_header ch;
	int state = CSUM_NONE;
	const char *kind = "";
	char date[112];
	__u64 sec;
	__u32 nsec;
	int high;

	memcpy(&ch, c->buf, sizeof(ch));
	if (c->csum_v23) {
		memset(c->buf + offsetof(struct commit_header, h_chksum), 0, 4);
		state = ej_crc32c(c->seed, c->buf, c->bs) ==
			be32_to_cpu(ch.h_chksum[0]) ? CSUM_OK : CSUM_BAD;
		kind = "v2/v3 ";
	} else if (c->csum_v1) {
		kind = "v1 ";
		state = c->v1_valid &&
			ch.h_chksum_type == JBD2_CRC32_CHKSUM &&
			ch.h_chksum_size == JBD2_CRC32_CHKSUM_SIZE &&
			be32_to_cpu(ch.h_chksum[0]) == c->v1_crc ?
			CSUM_OK : CSUM_BAD;
	}
	if (state == CSUM_BAD)
		c->nr_bad_csum++;

	sec = be64_to_cpu(ch.h_commit_sec);
	nsec = be32_to_cpu(ch.h_commit_nsec);
	/*
	 * debugfs (e2fsprogs 1.47) stores the seconds as a 32-bit big-endian
	 * word at the start of the 64-bit field: they read as sec << 32.  No
	 * other writer leaves the low word zero with a date in the high one.
	 */
	high = !(sec & 0xffffffffULL) && (sec >> 32) &&
	       commit_date(sec >> 32, nsec, 0, date, sizeof(date));
	if (quiet(c))
		return;
	if (!c->json) {
		if (high)
			snprintf(date + strlen(date), sizeof(date) - strlen(date),
				 " (debugfs' layout: seconds in the high word)");
		else if (!commit_date(sec, nsec, 0, date, sizeof(date)))
			snprintf(date, sizeof(date), "%llu.%09u%s",
				 (unsigned long long)sec, nsec,
				 sec ? " (not a date)" : " (not set)");
		text_row(c, b, "commit", "time %s%s%s%s%s", date,
			 state != CSUM_NONE ? ", " : "",
			 state != CSUM_NONE ? kind : "",
			 state != CSUM_NONE ? "csum " : "",
			 state != CSUM_NONE ? csum_word(state) : "");
		return;
	}
	j_log_block(c, b, "commit");
	j_uint(c, "chksum_type", ch.h_chksum_type);
	j_uint(c, "chksum_size", ch.h_chksum_size);
	j_uint(c, "chksum", be32_to_cpu(ch.h_chksum[0]));
	j_uint(c, "commit_sec", sec);
	j_uint(c, "commit_nsec", nsec);
	j_str(c, "commit_time",
	      commit_date(high ? sec >> 32 : sec, nsec, 1, date,
			  sizeof(date)) ? date : NULL);
	if (high)
		j_bool(c, "commit_sec_high_word", 1);
	j_csum(c, state);
	j_close(c, '}');
}

static void walk_end(struct dump_ctx *c, unsigned long b, const char *fmt,
		     ...)
{
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);

	txn_end(c, 0);
	if (!c->json) {
		fprintf(c->out, "  %8lu  %-10s %10s  %s\n", b, "end", "", why);
		return;
	}
	j_close(c, ']');
	j_break(c);
	j_open(c, "end", '{');
	j_uint(c, "block", b);
	j_str(c, "reason", why);
	j_close(c, '}');
}

static void walk_log(struct dump_ctx *c)
{
	const journal_superblock_t *jsb = c->journal->j_superblock;
	unsigned long b = be32_to_cpu(jsb->s_start);
	__u32 expect = be32_to_cpu(jsb->s_sequence);
	unsigned long walked = 0, limit;

	if (c->json) {
		j_break(c);
		j_uint(c, "log_start", b);
		j_uint(c, "log_sequence", expect);
		j_break(c);
		j_open(c, "transactions", '[');
	} else {
		fprintf(c->out, "Log from journal block %lu, sequence %u\n", b,
			expect);
		fprintf(c->out, "  %8s  %-10s %10s  %s\n", "jblock", "type",
			"sequence", "contents");
	}

	if (b == 0 && !c->old) {
		walk_end(c, 0, "journal is empty (log start 0)");
		return;
	}
	if (c->first == 0 || c->first >= c->last) {
		walk_end(c, b, "first log block %lu outside the journal",
			 c->first);
		return;
	}
	if (b == 0) {
		/* -O on an empty journal: the old log from its first block */
		b = c->first;
		if (!read_block(c, b, c->buf))
			expect = be32_to_cpu(((const journal_header_t *)
					      c->buf)->h_sequence);
		if (!c->json)
			fprintf(c->out, "  (journal is empty: its old log from block %lu, sequence %u)\n",
				b, expect);
	}
	if (b < c->first || b >= c->last) {
		walk_end(c, b, "log start outside the log (%lu-%lu)",
			 c->first, c->last - 1);
		return;
	}

	/*
	 * A log of garbage can lead back onto itself (a descriptor whose
	 * tags take the walk once around): stop after one full circle.
	 */
	limit = c->last - c->first;
	for (;;) {
		const journal_header_t *h = (const journal_header_t *)c->buf;
		unsigned long used;
		__u32 magic, type, seq;

		if (walked > limit) {
			walk_end(c, b, "the log ran round on itself");
			return;
		}
		if (read_block(c, b, c->buf)) {
			walk_end(c, b, "journal block %lu unreadable", b);
			return;
		}
		magic = be32_to_cpu(h->h_magic);
		type = be32_to_cpu(h->h_blocktype);
		seq = be32_to_cpu(h->h_sequence);
		if (magic != JBD2_MAGIC_NUMBER) {
			walk_end(c, b, "no journal magic");
			return;
		}
		if (seq != expect && !c->old) {
			walk_end(c, b, "sequence %u, expected %u", seq, expect);
			return;
		}
		if (seq != expect) {
			/* -O: an older log goes on here; follow it */
			txn_end(c, 0);
			if (!quiet(c))
				text_row(c, b, "old log", "sequence %u, expected %u: older log",
					 seq, expect);
			expect = seq;
		}

		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			txn_begin(c, seq, b);
			b = walk_descriptor(c, b, &used);
			walked += used;
			continue;
		case JBD2_REVOKE_BLOCK:
			txn_begin(c, seq, b);
			walk_revoke(c, b);
			break;
		case JBD2_COMMIT_BLOCK:
			txn_begin(c, seq, b);
			walk_commit(c, b);
			txn_end(c, 1);
			expect++;
			break;
		default:
			walk_end(c, b, "unexpected block type %u (%s)", type,
				 block_type_name(type));
			return;
		}
		walked++;
		b = next_block(c, b);
	}
}

static void dump_summary(struct dump_ctx *c)
{
	char *fc = NULL;

	/* the fast-commit area, judged as replay would (fc_report.c) */
	if (ej_fc_describe(c->journal, c->next_tid, c->json, &fc))
		c->read_error = 1;
	if (!c->json) {
		fprintf(c->out, "\n%lu transaction%s (%lu committed), ",
			c->nr_txns, c->nr_txns == 1 ? "" : "s",
			c->nr_committed);
		fprintf(c->out, "%lu tag%s, %lu revoke record%s, ",
			c->nr_tags, c->nr_tags == 1 ? "" : "s",
			c->nr_revoked, c->nr_revoked == 1 ? "" : "s");
		fprintf(c->out, "%lu bad checksum%s\n", c->nr_bad_csum,
			c->nr_bad_csum == 1 ? "" : "s");
		if (c->ino)
			fprintf(c->out, "%lu logged version%s of inode %u's blocks\n",
				c->nr_ino_hits,
				c->nr_ino_hits == 1 ? "" : "s", c->ino);
		if (fc)
			fputs(fc, c->out);
		free(fc);
		return;
	}
	j_break(c);
	j_open(c, "summary", '{');
	j_uint(c, "transactions", c->nr_txns);
	j_uint(c, "committed", c->nr_committed);
	j_uint(c, "tags", c->nr_tags);
	j_uint(c, "revoke_records", c->nr_revoked);
	j_uint(c, "bad_checksums", c->nr_bad_csum);
	j_bool(c, "read_error", c->read_error);
	if (c->ino)
		j_uint(c, "inode_versions", c->nr_ino_hits);
	j_close(c, '}');
	if (fc) {
		j_break(c);
		j_key(c, "fast_commits");
		fputs(fc, c->out);
		free(fc);
	}
	j_close_nl(c, '}');
	fputc('\n', c->out);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s dump [options] IMAGE\n\n"
		"Show the journal superblock of IMAGE's journal, then its log block\n"
		"by block: each transaction's descriptor, data, revoke and commit\n"
		"blocks with their checksums, as debugfs' logdump does.  Reads only.\n\n"
		"  -j, --journal FILE   the external journal (device, image or a\n"
		"                       saved copy) instead of the internal one\n"
		"      --from SAVED     a journal kept by 'e2journal save'\n"
		"  -O, --old            also the old log: past the log's end, and on\n"
		"                       an empty (replayed) journal from its first\n"
		"                       block (logdump -O)\n"
		"  -i, --inode INODE    only the logged versions of INODE's blocks:\n"
		"                       its inode table block and the blocks it maps\n"
		"                       (logdump -i); INODE as a number or <number>\n"
		"      --json           one JSON document (doc/report-json.md)\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0 shown, 8 operational error (no journal, unreadable\n"
		"block), 16 usage error.\n",
		ej_prog);
}

/* -i: where the inode lies, and the blocks it maps, sorted. */
static int collect_blocks(ext2_filsys fs, blk64_t *blocknr,
			  e2_blkcnt_t blockcnt, blk64_t ref_blk, int ref_offset,
			  void *priv)
{
	struct dump_ctx *c = priv;

	(void)fs;
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	if (c->nr_ino_blocks == c->ino_cap) {
		size_t cap = c->ino_cap ? 2 * c->ino_cap : 64;
		blk64_t *n = realloc(c->ino_blocks, cap * sizeof(*n));

		if (!n)
			return BLOCK_ABORT;
		c->ino_blocks = n;
		c->ino_cap = cap;
	}
	c->ino_blocks[c->nr_ino_blocks++] = *blocknr;
	return 0;
}

static int inode_setup(struct dump_ctx *c, ext2_filsys fs)
{
	unsigned long ipg = fs->super->s_inodes_per_group;
	unsigned int isize = EXT2_INODE_SIZE(fs->super);
	unsigned long group, index;
	struct ext2_inode inode;
	errcode_t err;

	if (c->ino < 1 || c->ino > fs->super->s_inodes_count) {
		fprintf(stderr, "%s: dump: inode %u is not in the filesystem (1-%u)\n",
			ej_prog, c->ino, fs->super->s_inodes_count);
		return EJ_EXIT_USAGE;
	}
	group = (c->ino - 1) / ipg;
	index = (c->ino - 1) % ipg;
	c->ino_table_block = ext2fs_inode_table_loc(fs, group) +
			     index * isize / fs->blocksize;
	c->ino_offset = index * isize % fs->blocksize;
	/* the blocks it maps now: data, indirect, extent tree */
	err = ext2fs_read_inode(fs, c->ino, &inode);
	if (!err && ext2fs_inode_has_valid_blocks2(fs, &inode))
		err = ext2fs_block_iterate3(fs, c->ino, BLOCK_FLAG_READ_ONLY,
					    NULL, collect_blocks, c);
	if (err) {
		com_err(ej_prog, err, "while reading inode %u", c->ino);
		return EJ_EXIT_OPERATIONAL;
	}
	if (c->nr_ino_blocks)
		qsort(c->ino_blocks, c->nr_ino_blocks, sizeof(blk64_t),
		      cmp_blk);
	if (c->json) {
		j_break(c);
		j_open(c, "inode", '{');
		j_uint(c, "number", c->ino);
		j_uint(c, "group", group);
		j_uint(c, "inode_table_block", c->ino_table_block);
		j_uint(c, "offset", c->ino_offset);
		j_uint(c, "mapped_blocks", c->nr_ino_blocks);
		j_close(c, '}');
	} else {
		fprintf(c->out, "Inode %u: group %lu, inode table block %llu, offset %u; it maps %zu block%s\n",
			c->ino, group,
			(unsigned long long)c->ino_table_block, c->ino_offset,
			c->nr_ino_blocks, c->nr_ino_blocks == 1 ? "" : "s");
	}
	return 0;
}

static void setup_ctx(struct dump_ctx *c)
{
	journal_t *j = c->journal;
	const journal_superblock_t *jsb = j->j_superblock;
	unsigned long maxlen = be32_to_cpu(jsb->s_maxlen);
	unsigned long fc = 0;

	c->bs = j->j_blocksize;
	c->csum_v1 = jbd2_has_feature_checksum(j);
	c->csum_v3 = jbd2_has_feature_csum3(j);
	c->csum_v23 = jbd2_journal_has_csum_v2or3(j);
	c->is_64bit = jbd2_has_feature_64bit(j);
	c->tag_bytes = journal_tag_bytes(j);
	c->tail_bytes = c->csum_v23 ? sizeof(struct jbd2_journal_block_tail) :
			0;
	if (c->csum_v23)
		c->seed = ej_jsb_csum_seed(jsb);
	/* Where recovery wraps: before the fast-commit area, if any. */
	if (jbd2_has_feature_fast_commit(j)) {
		fc = be32_to_cpu(jsb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
	}
	c->first = be32_to_cpu(jsb->s_first);
	c->last = maxlen > fc ? maxlen - fc : 0;
	c->next_tid = be32_to_cpu(jsb->s_sequence);
}

int ej_cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "journal", required_argument, NULL, 'j' },
		{ "from", required_argument, NULL, 'F' },
		{ "old", no_argument, NULL, 'O' },
		{ "inode", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *ino_arg = NULL;
	struct ej_open_opts opts = { 0 };
	struct dump_ctx c = { 0 };
	ext2_filsys fs = NULL;
	const char *image;
	errcode_t err;
	int opt, ret = EJ_EXIT_OPERATIONAL;

	/* Full reset: the dispatcher may have run getopt already. */
	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:hOi:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'O':
			c.old = 1;
			break;
		case 'i':
			ino_arg = optarg;
			break;
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'J':
			c.json = 1;
			break;
		case 'F':
			c.saved = optarg;
			break;
		case 'h':
			dump_usage(stdout);
			return EJ_EXIT_OK;
		default:
			dump_usage(stderr);
			return EJ_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		dump_usage(stderr);
		return EJ_EXIT_USAGE;
	}
	image = argv[optind];
	c.out = stdout;
	if (ino_arg) {
		char *end;
		unsigned long v;
		const char *p = ino_arg + (ino_arg[0] == '<');

		errno = 0;
		v = strtoul(p, &end, 10);
		if (ino_arg[0] == '<' && *end == '>')
			end++;
		if (errno || end == p || *end || !v || v > 0xffffffffUL) {
			fprintf(stderr, "%s: dump: '%s': expected an inode number\n",
				ej_prog, ino_arg);
			return EJ_EXIT_USAGE;
		}
		c.ino = v;
	}
	if (c.saved && opts.ext_journal) {
		fprintf(stderr, "%s: dump: -j and --from name two journals\n",
			ej_prog);
		return EJ_EXIT_USAGE;
	}
	/*
	 * -j FILE may name a saved journal (E2JSAVE1, or a plain copy whose
	 * block 0 is the journal superblock): read it as --from would.  A
	 * whole external journal device is read as the device it is.
	 */
	if (opts.ext_journal) {
		struct ej_saved_header hdr;

		if (!ej_saved_read_header(opts.ext_journal, &hdr) &&
		    !((hdr.flags & EJ_SAVED_RAW) &&
		      (hdr.flags & EJ_SAVED_EXTERNAL)))
			c.saved = opts.ext_journal;
	}
	if (c.saved) {
		opts.saved = c.saved;
		opts.ext_journal = NULL;
	}

	if (ej_open_image(image, EXT2_FLAG_SKIP_MMP, unix_io_manager, &fs))
		return EJ_EXIT_OPERATIONAL;

	opts.flags = EJ_OPEN_READONLY | EJ_OPEN_NO_CHECK;
	opts.policy = JBD2_POLICY_REPLAY_ALL;
	err = ej_journal_open(fs, &opts, &c.journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		goto out;
	}
	if (!c.journal->j_superblock || c.journal->j_blocksize < 1024 ||
	    c.journal->j_blocksize > EXT2_MAX_BLOCK_SIZE) {
		fprintf(stderr, "%s: journal of %s has no usable superblock\n",
			ej_prog, image);
		goto out;
	}
	setup_ctx(&c);
	c.buf = malloc(c.bs);
	c.data = malloc(c.bs);
	if (!c.buf || !c.data) {
		com_err(ej_prog, ENOMEM, "while dumping the journal");
		goto out;
	}

	dump_superblock(&c, image, opts.ext_journal);
	if (c.ino) {
		ret = inode_setup(&c, fs);
		if (ret)
			goto out;
		ret = EJ_EXIT_OPERATIONAL;
	}
	walk_log(&c);
	dump_summary(&c);
	if (fflush(c.out) || ferror(c.out)) {
		fprintf(stderr, "%s: error writing the dump\n", ej_prog);
		goto out;
	}
	/* An unreadable journal block means the dump is incomplete. */
	ret = c.read_error ? EJ_EXIT_OPERATIONAL : EJ_EXIT_OK;
out:
	free(c.buf);
	free(c.data);
	free(c.ino_blocks);
	if (c.journal)
		ej_journal_close(c.journal);
	ext2fs_close_free(&fs);
	return ret;
}
