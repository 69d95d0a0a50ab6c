// SPDX-License-Identifier: GPL-2.0
/*
 * ej_dump_log.c: the log as "e2journal dump" shows it: walked from
 * s_start the way recovery's first pass walks it (descriptor blocks and
 * their tags, revoke blocks, commit blocks, wrapping from the end of the
 * log back to s_first), every checksum verified and shown, up to the
 * first block that does not carry the journal magic and the expected
 * sequence (with -O, the old log past it too); with -i, only the logged
 * versions of one inode's blocks.  Every length, count and offset taken
 * from the journal is checked against the block before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ej_dump.h"

static const char *const tag_flag_names[32] = {
	"escape", "same_uuid", "deleted", "last_tag"
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

int ej_dump_cmp_blk(const void *a, const void *b)
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
		    ej_dump_cmp_blk))
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

void ej_dump_walk_log(struct dump_ctx *c)
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
