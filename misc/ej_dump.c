// SPDX-License-Identifier: GPL-2.0
/*
 * ej_dump.c: e2journal dump IMAGE [-j EXTERNAL_JOURNAL] [--json]: the
 * command, and the journal superblock and summary it prints.
 *
 * Prints the journal superblock, then the log (ej_dump_log.c: walked from
 * s_start the way recovery's first pass would, up to the first block that
 * does not carry the journal magic and the expected sequence), then what
 * it found.  Every checksum the journal carries is verified and shown, so
 * that a person can see where a damaged log goes wrong before deciding
 * how to replay it.
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

#include "ej_dump.h"

static const char *const compat_names[32] = { "checksum" };
static const char *const incompat_names[32] = {
	"revoke", "64bit", "async_commit", "csum_v2", "csum_v3", "fast_commit"
};
static const char *const jsb_problem_names[32] = {
	"bad_magic", "bad_blocksize", "bad_maxlen", "bad_first", "bad_start",
	"unknown_incompat", "unknown_ro_compat", "bad_csum_type", "bad_csum",
	"v1_with_v2_fields", "both_csum_v2_v3", "bad_fast_commit_area"
};

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
		      ej_dump_cmp_blk);
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
	ej_dump_walk_log(&c);
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
