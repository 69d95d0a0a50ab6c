// SPDX-License-Identifier: GPL-2.0
/*
 * ej_show.c: e2journal show IMAGE [TID:]BLOCK [-j JOURNAL] [--from SAVED]
 *
 * Before a person forces or skips a logged block, they need to know what
 * it is: a superblock, group descriptors, a bitmap, part of the inode
 * table, a directory, an extent tree node, somebody's data, free space.
 * This command finds that out with libext2fs from the filesystem's own
 * metadata (the group descriptors for the fixed structures, a scan of the
 * inodes for owners), decodes the block, and with TID compares the
 * version logged in that transaction against the block on disk: which
 * bytes differ and, where the type is known, which fields, bits, inodes
 * or directory entries.
 *
 * What the block is comes from ej_show_type.c, what it holds and what
 * the log changes from ej_show_decode.c.  The version is found the way
 * replay would find it: a dry run of recovery (nothing written) yields
 * every logged block with its transaction, journal block and verdict.
 * Nothing is ever written: the image is opened read-only and the journal
 * with EJ_OPEN_READONLY.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "ej_show.h"

/* ------------------------------------------------------------------ */
/* The logged version                                                  */

/*
 * Find the version of c->blk logged in transaction @tid with a dry run of
 * recovery; read it into c->logged.  Returns an exit code (0: found).
 */
static int load_logged(struct show_ctx *c, const struct ej_open_opts *opts,
		       __u32 tid, const char *image)
{
	const struct ej_block_entry *e = NULL;
	struct ej_open_opts o = *opts;
	struct ej_report *r;
	struct ej_bar bar;
	journal_t *journal;
	errcode_t err;
	size_t i, others = 0;
	int ret = EJ_EXIT_OPERATIONAL;

	o.flags |= EJ_OPEN_READONLY;
	err = ej_journal_open(c->fs, &o, &journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		return ret;
	}
	if (!journal->j_superblock->s_start) {
		fprintf(stderr,
			"%s: the journal of %s is empty: nothing is logged (a copy kept by 'e2journal save' can be named with --from)\n",
			ej_prog,
			o.saved ? o.saved : image);
		goto out;
	}
	r = ej_journal_report(journal);
	r->opts.keep_blocks = 1;
	ej_bar_init(&bar, "reading");
	bar.report = r;
	ej_report_on_progress(r, ej_bar_progress, &bar);
	jbd2_journal_recover(journal);
	ej_bar_done(&bar);
	r = ej_journal_report(journal);
	for (i = 0; i < r->nr_blocks; i++) {
		if (r->blocks[i].fsblock != c->blk)
			continue;
		if (r->blocks[i].tid == tid)
			e = &r->blocks[i];
		else
			others++;
	}
	if (!e) {
		fprintf(stderr, "%s: transaction %u does not log block %llu",
			ej_prog, tid, (unsigned long long)c->blk);
		if (others) {
			fputs("; it is logged in", stderr);
			for (i = 0; i < r->nr_blocks; i++) {
				if (r->blocks[i].fsblock == c->blk)
					fprintf(stderr, " %u",
						r->blocks[i].tid);
			}
		}
		fputc('\n', stderr);
		goto out;
	}
	c->logged = malloc(c->bs);
	if (!c->logged) {
		com_err(ej_prog, ENOMEM, "while reading the journal");
		goto out;
	}
	err = ej_journal_read_block(journal, e->jblock, c->logged);
	if (err) {
		com_err(ej_prog, err, "while reading journal block %lu",
			e->jblock);
		free(c->logged);
		c->logged = NULL;
		goto out;
	}
	if (e->tag_flags & JBD2_FLAG_ESCAPE)
		*(__be32 *)c->logged = cpu_to_be32(JBD2_MAGIC_NUMBER);
	fprintf(c->out,
		"Logged in transaction %u at journal block %lu%s; replay (policy %s): %s\n",
		e->tid, e->jblock,
		e->tag_flags & JBD2_FLAG_ESCAPE ? " (escaped)" : "",
		ej_policy_name(o.policy), ej_verdict_name(e->verdict));
	if (others)
		fprintf(c->out, "Other transactions log it too:");
	for (i = 0; others && i < r->nr_blocks; i++) {
		const struct ej_block_entry *x = &r->blocks[i];

		if (x->fsblock == c->blk && x != e)
			fprintf(c->out, " %u (%s)", x->tid,
				ej_verdict_name(x->verdict));
	}
	if (others)
		fputc('\n', c->out);
	ret = 0;
out:
	ej_journal_close(journal);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

static void show_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s show [options] IMAGE [TID:]BLOCK\n\n"
		"Say what filesystem block BLOCK is (superblock, group\n"
		"descriptors, bitmap, inode table, directory, extent tree,\n"
		"file data, free space, the journal) and decode it.  With TID,\n"
		"compare the version logged in transaction TID with the block\n"
		"on disk.  Nothing is written.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"      --from SAVED     read the log from a copy made by\n"
		"                       'e2journal save'\n"
		"  -p, --policy P       the policy whose verdict is shown\n"
		"                       (replay-all, stop, refuse)\n"
		"  -h, --help           this text\n", ej_prog);
}

/* "[TID:]BLOCK" */
static int parse_target(const char *s, int *has_tid, __u32 *tid,
			blk64_t *blk)
{
	unsigned long long a, b;
	char *end;

	errno = 0;
	a = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (!*end) {
		*has_tid = 0;
		*blk = a;
		return 0;
	}
	if (*end != ':' || a > 0xffffffffULL)
		return -1;
	s = end + 1;
	b = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*has_tid = 1;
	*tid = (__u32)a;
	*blk = b;
	return 0;
}

int ej_cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument,	NULL, 'j' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "policy",	required_argument,	NULL, 'p' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = { .policy = JBD2_POLICY_REPLAY_ALL };
	struct show_ctx c = { 0 };
	const char *image;
	int opt, has_tid = 0, ret = EJ_EXIT_OPERATIONAL;
	__u32 tid = 0;
	errcode_t err;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:p:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'F':
			opts.saved = optarg;
			break;
		case 'p':
			if (ej_policy_arg(optarg, &opts.policy)) {
				show_usage(stderr);
				return EJ_EXIT_USAGE;
			}
			break;
		case 'h':
			show_usage(stdout);
			return EJ_EXIT_OK;
		default:
			show_usage(stderr);
			return EJ_EXIT_USAGE;
		}
	}
	if (optind != argc - 2 ||
	    parse_target(argv[optind + 1], &has_tid, &tid, &c.blk)) {
		show_usage(stderr);
		return EJ_EXIT_USAGE;
	}
	image = argv[optind];
	c.out = stdout;

	if (ej_open_image(image, EXT2_FLAG_SKIP_MMP, unix_io_manager, &c.fs))
		return EJ_EXIT_OPERATIONAL;
	c.bs = c.fs->blocksize;
	c.disk = malloc(c.bs);
	if (!c.disk) {
		com_err(ej_prog, ENOMEM, "while showing a block");
		goto out;
	}

	fprintf(c.out, "Block %llu of %s (block size %u)\n",
		(unsigned long long)c.blk, image, c.bs);
	if (has_tid) {
		ret = load_logged(&c, &opts, tid, image);
		if (ret)
			goto out;
		ret = EJ_EXIT_OPERATIONAL;
	}

	show_classify(&c);
	show_print_type(&c);
	if (c.kind == K_OUTSIDE) {
		ret = EJ_EXIT_OK;
		goto out;
	}
	if (c.in_use >= 0)
		fprintf(c.out, "Block bitmap: %s\n", c.in_use ? "in use" :
			"free");
	if (c.own.ino) {
		/* the scan's copy is in host order: little-endian hosts only */
		fputs("Owner: ", c.out);
		show_describe_inode(&c, (const char *)&c.own.inode, c.own.ino, "");
	}
	err = io_channel_read_blk64(c.fs->io, c.blk, 1, c.disk);
	if (err) {
		com_err(ej_prog, err, "while reading block %llu",
			(unsigned long long)c.blk);
		goto out;
	}
	show_describe(&c, c.disk, "on disk");
	if (c.logged) {
		/* long listings: the differences below say what changed */
		if (c.kind != K_INODE_TABLE && c.kind != K_GDT &&
		    memcmp(c.disk, c.logged, c.bs))
			show_describe(&c, c.logged, "logged");
		show_diff(&c);
	}
	ret = EJ_EXIT_OK;
out:
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error writing output\n", ej_prog);
		ret = EJ_EXIT_OPERATIONAL;
	}
	free(c.disk);
	free(c.logged);
	ext2fs_close_free(&c.fs);
	return ret;
}
