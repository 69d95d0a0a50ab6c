// SPDX-License-Identifier: GPL-2.0
/*
 * ej_write.c: e2journal write IMAGE [-j JOURNAL] [--csum MODE]
 *                             [--txn SPEC]...
 *
 * "write" logs transactions (--txn, --spec: ej_txnspec.c) into the
 * journal of an existing image through the test library's journal writer
 * (lib/journal/test/writer.c), sets needs_recovery, and saves the layout
 * of what it wrote (which journal block holds which descriptor, data,
 * revoke and commit block) in a sidecar file, IMAGE.layout (ej_layout.c),
 * which "e2journal corrupt" (ej_corrupt.c) reads.
 *
 * A test tool: it writes into the image in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>

#include "e2journal_int.h"
#include "ej_layout.h"
#include "ej_write_fc.h"
#include "ej_txnspec.h"

/* ------------------------------------------------------------------ */
/* e2journal write                                                     */

static void write_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s write [options] IMAGE\n\n"
		"Log transactions into the journal of the filesystem in IMAGE\n"
		"(a test tool: the image is changed in place) and set\n"
		"needs_recovery.  The layout of what was written is saved in\n"
		"IMAGE.layout for \"%s corrupt\".\n\n"
		"  -j, --journal DEV      external journal device or image\n"
		"  -c, --csum MODE        none, v1, v2 or v3 (default: v3 with\n"
		"                         metadata_csum, else none)\n"
		"      --async-commit     set the async_commit feature\n"
		"      --64bit, --32bit   journal block numbers (default: as the\n"
		"                         filesystem)\n"
		"      --first-tid N      tid of the first transaction (default:\n"
		"                         the journal superblock's sequence)\n"
		"      --start-block B    log block of the first transaction; the\n"
		"                         log wraps at the end of the journal\n"
		"      --max-tags N       tags per descriptor block\n"
		"      --commit-time SEC  first commit time (then one second more\n"
		"                         per transaction)\n"
		"  -t, --txn SPEC         one transaction (repeat for more):\n"
		"                         items separated by ';':\n"
		"                           blocks=LIST[:SOURCE]  log blocks\n"
		"                           revoke=LIST           revoke blocks\n"
		"                           time=SEC              commit time\n"
		"                           nocommit              no commit block\n"
		"  -f, --spec FILE        transactions from FILE, one directive a\n"
		"                         line: txn [ITEMS], block LIST SOURCE,\n"
		"                         revoke LIST, time SEC, commit, nocommit\n"
		"  -L, --layout FILE      save the layout here (default\n"
		"                         IMAGE.layout; a device needs -L)\n"
		"      --no-layout        do not save it\n"
		"      --unchecked        allow blocks outside the filesystem or\n"
		"                         inside the journal\n"
		"  -v, --verbose          print the layout\n"
		"  -h, --help             this text\n\n"
		"LIST: N or N-M, comma separated.  SOURCE: random[:SEED] (the\n"
		"default; bytes from SEED, the tid and the block number),\n"
		"fill:BYTE, zero, magic[:BYTE] (the journal magic, then BYTE: an\n"
		"escaped block), file:PATH (the n-th block of LIST gets the n-th\n"
		"block of PATH; a bare PATH too) or image:PATH (block N gets\n"
		"block N of the image PATH).\n", ej_prog, ej_prog);
	ejw_fc_usage(f);
}

/* Physical blocks of the internal journal inode, sorted. */
struct blist {
	blk64_t		*b;
	size_t		nr, max;
};

static int collect_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t cnt,
		      blk64_t ref_blk, int ref_offset, void *priv)
{
	struct blist *l = priv;

	if (ej_grow((void **)&l->b, &l->max, l->nr + 1, sizeof(*l->b)))
		return BLOCK_ABORT;
	l->b[l->nr++] = *blocknr;
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	blk64_t x = *(const blk64_t *)a, y = *(const blk64_t *)b;

	return x < y ? -1 : x > y;
}

static int in_blist(const struct blist *l, blk64_t v)
{
	return l->nr && bsearch(&v, l->b, l->nr, sizeof(*l->b), cmp_blk);
}

static int check_blocks(struct img *im, const struct tlist *l, int is64)
{
	unsigned long long count = ext2fs_blocks_count(im->fs->super);
	struct blist jb = { 0 };
	unsigned long long v;
	size_t i, j, k;
	int bad = 0;

	if (!im->jpath && im->fs->super->s_journal_inum) {
		if (ext2fs_block_iterate3(im->fs,
					  im->fs->super->s_journal_inum,
					  BLOCK_FLAG_READ_ONLY, NULL,
					  collect_cb, &jb)) {
			free(jb.b);
			return -1;
		}
		qsort(jb.b, jb.nr, sizeof(*jb.b), cmp_blk);
	}
	for (i = 0; i < l->nr && !bad; i++) {
		const struct tspec *t = &l->t[i];

		for (j = 0; j < t->nr_blocks + t->nr_revokes && !bad; j++) {
			v = j < t->nr_blocks ? t->blocks[j].fsblock :
			    t->revokes[j - t->nr_blocks];
			if (!is64 && v > 0xffffffffULL) {
				fprintf(stderr,
					"%s: block %llu needs a 64bit journal\n",
					ej_prog, v);
				bad = 1;
			} else if (j < t->nr_blocks &&
				   (v >= count || in_blist(&jb, v))) {
				fprintf(stderr,
					"%s: block %llu is %s (use --unchecked to log it anyway)\n",
					ej_prog, v, v >= count ?
					"outside the filesystem" :
					"inside the journal");
				bad = 1;
			}
			for (k = 0; k < j && j < t->nr_blocks && !bad; k++) {
				if (t->blocks[k].fsblock != v)
					continue;
				fprintf(stderr,
					"%s: transaction #%zu logs block %llu twice\n",
					ej_prog, i + 1, v);
				bad = 1;
			}
		}
	}
	free(jb.b);
	return bad ? -1 : 0;
}

static errcode_t write_txns(struct ej_writer *w, const struct tlist *l,
			    unsigned int bs)
{
	unsigned char *buf;
	__u32 tid;
	size_t i, j;
	errcode_t err = 0;

	buf = malloc(bs);
	if (!buf)
		return EJ_NO_MEMORY;
	for (i = 0; i < l->nr && !err; i++) {
		const struct tspec *t = &l->t[i];

		err = ej_writer_begin(w, &tid);
		for (j = 0; j < t->nr_blocks && !err; j++) {
			err = ej_txn_make_block(&t->blocks[j], tid, bs, buf);
			if (err) {
				com_err(ej_prog, err, "while reading %s",
					t->blocks[j].src->path);
				break;
			}
			err = ej_writer_add_block(w, t->blocks[j].fsblock,
						  buf);
		}
		for (j = 0; j < t->nr_revokes && !err; j++)
			err = ej_writer_revoke(w, t->revokes[j]);
		if (err)
			break;
		if (t->have_time)
			ej_writer_set_commit_time(w, t->sec, 0);
		if (t->nocommit)
			err = ej_writer_end_uncommitted(w);
		else
			err = ej_writer_commit(w);
		if (err)
			com_err(ej_prog, err, "while writing transaction %u",
				tid);
	}
	free(buf);
	return err;
}

static void print_summary(FILE *out, const char *image, struct ej_writer *w,
			  int verbose)
{
	const journal_superblock_t *jsb = ej_writer_jsb(w);
	const struct ej_wtxn *t;
	size_t nr, i, j;

	t = ej_writer_txns(w, &nr);
	if (!nr) {
		fprintf(out, "%s: no transactions written\n", image);
		return;
	}
	fprintf(out,
		"%s: %zu transaction%s (tid %u-%u), csum %s%s%s, log from journal block %lu\n",
		image, nr, nr == 1 ? "" : "s",
		t[0].tid, t[nr - 1].tid, ejw_csum_name(ejw_csum_of_jsb(jsb)),
		(be32_to_cpu(jsb->s_feature_incompat) &
		 JBD2_FEATURE_INCOMPAT_64BIT) ? ", 64bit" : "",
		(be32_to_cpu(jsb->s_feature_incompat) &
		 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT) ? ", async_commit" : "",
		t[0].first_block);
	if (!verbose)
		return;
	for (i = 0; i < nr; i++, t++) {
		fprintf(out,
			"  transaction %u: %u data, %u descriptor, %u revoke block%s, ",
			t->tid, t->nr_data, t->nr_descr,
			t->nr_revoke, t->nr_revoke == 1 ? "" : "s");
		if (t->committed)
			fprintf(out, "commit at %lu\n", t->commit_block);
		else
			fprintf(out, "no commit\n");
		for (j = 0; j < t->nr_blocks; j++) {
			const struct ej_wblock *b = &t->blocks[j];

			fprintf(out, "    %10lu %-10s", b->jblock,
				ejw_wb_name(b->kind));
			if (b->kind == EJ_WB_DATA)
				fprintf(out, " fs block %llu%s", b->fsblock,
					(b->tag_flags & JBD2_FLAG_ESCAPE) ?
					" (escaped)" : "");
			fprintf(out, "\n");
		}
	}
}

enum {
	OPT_ASYNC = 256,
	OPT_64BIT,
	OPT_32BIT,
	OPT_FIRST_TID,
	OPT_START_BLOCK,
	OPT_MAX_TAGS,
	OPT_COMMIT_TIME,
	OPT_NO_LAYOUT,
	OPT_UNCHECKED,
	OPT_FC,
	OPT_FC_HEAD,
};

static int parse_csum(const char *s, int *csum)
{
	static const char *const names[] = { "none", "v1", "v2", "v3" };
	int i;

	for (i = 0; i <= EJ_CSUM_V3; i++) {
		if (!strcmp(s, names[i])) {
			*csum = i;
			return 0;
		}
	}
	return -1;
}

/* What the command line of "e2journal write" asks for. */
struct write_args {
	struct img		im;
	struct tlist		l;
	struct ej_writer_opts	wo;
	char			*layout;	/* NULL: --no-layout */
	int			csum;		/* -1: as the filesystem */
	int			is64;		/* -1: as the filesystem */
	int			async, unchecked, verbose;
	unsigned long		start_block;
};

/*
 * Parse the command line into @a.  Returns -1 to go on, or the exit
 * status (usage said, --help printed, no memory).
 */
static int write_options(int argc, char **argv, struct write_args *a)
{
	static const struct option longopts[] = {
		{ "journal",	 required_argument, NULL, 'j' },
		{ "csum",	 required_argument, NULL, 'c' },
		{ "async-commit", no_argument,	    NULL, OPT_ASYNC },
		{ "64bit",	 no_argument,	    NULL, OPT_64BIT },
		{ "32bit",	 no_argument,	    NULL, OPT_32BIT },
		{ "first-tid",	 required_argument, NULL, OPT_FIRST_TID },
		{ "start-block", required_argument, NULL, OPT_START_BLOCK },
		{ "max-tags",	 required_argument, NULL, OPT_MAX_TAGS },
		{ "commit-time", required_argument, NULL, OPT_COMMIT_TIME },
		{ "txn",	 required_argument, NULL, 't' },
		{ "spec",	 required_argument, NULL, 'f' },
		{ "fc",		 required_argument, NULL, OPT_FC },
		{ "fc-head",	 required_argument, NULL, OPT_FC_HEAD },
		{ "layout",	 required_argument, NULL, 'L' },
		{ "no-layout",	 no_argument,	    NULL, OPT_NO_LAYOUT },
		{ "unchecked",	 no_argument,	    NULL, OPT_UNCHECKED },
		{ "verbose",	 no_argument,	    NULL, 'v' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_writer_opts *wo = &a->wo;
	unsigned long long v;
	int opt, no_layout = 0;
	struct tspec *t;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:c:t:f:L:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			a->im.jpath = optarg;
			break;
		case 'c':
			if (parse_csum(optarg, &a->csum)) {
				fprintf(stderr,
					"%s: '%s': expected none, v1, v2 or v3\n",
					ej_prog, optarg);
				goto usage;
			}
			break;
		case OPT_ASYNC:
			a->async = 1;
			break;
		case OPT_64BIT:
			a->is64 = 1;
			break;
		case OPT_32BIT:
			a->is64 = 0;
			break;
		case OPT_FIRST_TID:
			if (ejw_num_arg(optarg, 0, 0xffffffffULL, &v))
				goto usage;
			wo->flags |= EJ_W_SET_TID;
			wo->start_tid = v;
			break;
		case OPT_START_BLOCK:
			if (ejw_num_arg(optarg, 1, 0xffffffffULL, &v))
				goto usage;
			a->start_block = v;
			break;
		case OPT_MAX_TAGS:
			if (ejw_num_arg(optarg, 1, 0xffffffffULL, &v))
				goto usage;
			wo->max_tags = v;
			break;
		case OPT_COMMIT_TIME:
			if (ejw_num_arg(optarg, 1, ~0ULL, &v))
				goto usage;
			wo->commit_sec = v;
			break;
		case 't':
			t = ej_tlist_new(&a->l);
			if (!t || ej_txn_parse(&a->l, t, optarg))
				goto usage;
			break;
		case 'f':
			if (ej_txn_parse_file(&a->l, optarg))
				goto usage;
			break;
		case OPT_FC:
			if (ejw_fc_option(&a->l.fc, optarg))
				goto usage;
			break;
		case OPT_FC_HEAD:
			if (ejw_fc_head_option(&a->l.fc, optarg))
				goto usage;
			break;
		case 'L':
			if (ejw_path_arg(&a->layout, optarg))
				return EJ_EXIT_OPERATIONAL;
			break;
		case OPT_NO_LAYOUT:
			no_layout = 1;
			break;
		case OPT_UNCHECKED:
			a->unchecked = 1;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case 'h':
			write_usage(stdout);
			return EJ_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	a->im.path = argv[optind];
	if (!a->l.nr) {
		fprintf(stderr, "%s: no transactions (--txn or --spec)\n",
			ej_prog);
		goto usage;
	}
	if (!a->layout && !no_layout) {
		a->layout = ejw_layout_default(a->im.path);
		if (!a->layout)
			return EJ_EXIT_USAGE;	/* a device: --layout */
	}
	return -1;
usage:
	return ej_usage_error("write", "IMAGE");
}

/*
 * Look at the journal as it is before its features change: refuse a log
 * that still waits for replay, keep a fast-commit area where it is, and
 * give it one if fast commits are asked for (@fc).
 */
static int probe_journal(struct img *im, const struct ejw_fc *fc,
			 struct ej_writer_opts *wo)
{
	struct ej_writer_opts probe;
	struct ej_writer *w = NULL;
	const journal_superblock_t *jsb;
	errcode_t err;
	int ret = -1;

	memset(&probe, 0, sizeof(probe));
	err = ej_writer_open_fs(im->fs, im->jio, &probe, &w);
	if (err) {
		com_err(ej_prog, err, "while opening the journal of %s",
			im->path);
		return -1;
	}
	jsb = ej_writer_jsb(w);
	/*
	 * A new log over one that still waits for replay could run on into
	 * the old one's blocks, whose tids would follow ours.
	 */
	if (jsb->s_start) {
		fprintf(stderr,
			"%s: the journal of %s already holds a log: replay it first\n",
			ej_prog, im->path);
		goto out;
	}
	/* A fast-commit area stays where it is. */
	if (be32_to_cpu(jsb->s_header.h_blocktype) == JBD2_SUPERBLOCK_V2 &&
	    (be32_to_cpu(jsb->s_feature_incompat) &
	     JBD2_FEATURE_INCOMPAT_FAST_COMMIT)) {
		wo->flags |= EJ_W_FAST_COMMIT;
		wo->num_fc_blks = be32_to_cpu(jsb->s_num_fc_blks);
	}
	if (ejw_fc_prepare(fc, im, jsb, wo))
		goto out;
	ret = 0;
out:
	ej_writer_free(w);
	return ret;
}

int ej_cmd_write(int argc, char **argv)
{
	struct write_args a;
	struct img *im = &a.im;
	struct ej_writer_opts *wo = &a.wo;
	struct ej_writer *w = NULL;
	int ret;
	errcode_t err;

	memset(&a, 0, sizeof(a));
	a.csum = -1;
	a.is64 = -1;
	ret = write_options(argc, argv, &a);
	if (ret >= 0)
		goto done;
	ret = EJ_EXIT_OPERATIONAL;

	if (ejw_img_open(im))
		goto out;
	if (a.csum < 0)
		a.csum = ext2fs_has_feature_metadata_csum(im->fs->super) ?
			 EJ_CSUM_V3 : EJ_CSUM_NONE;
	if (a.is64 < 0)
		a.is64 = ext2fs_has_feature_64bit(im->fs->super);
	if (!a.unchecked && check_blocks(im, &a.l, a.is64))
		goto out;
	wo->flags |= EJ_W_SET_FEATURES;
	wo->csum = a.csum;
	if (probe_journal(im, a.l.fc, wo))
		goto out;

	if (a.is64)
		wo->flags |= EJ_W_64BIT;
	if (a.async)
		wo->flags |= EJ_W_ASYNC_COMMIT;
	wo->start_block = a.start_block;
	err = ej_writer_open_fs(im->fs, im->jio, wo, &w);
	if (err) {
		com_err(ej_prog, err, "while opening the journal of %s",
			im->path);
		if (err == EJ_BAD_ARG)
			fprintf(stderr,
				"%s: a start block outside the log, or features a v1 journal superblock cannot carry?\n",
				ej_prog);
		goto out;
	}
	err = write_txns(w, &a.l, im->fs->blocksize);
	if (err == EXT2_ET_JOURNAL_TOO_SMALL)
		fprintf(stderr, "%s: the transactions do not fit in the journal\n", ej_prog);
	if (!err)
		err = ejw_fc_write(a.l.fc, im, w);
	if (err)
		goto out;
	err = ej_writer_finish(w);
	if (err) {
		com_err(ej_prog, err, "while writing the journal superblock");
		goto out;
	}
	if (a.layout &&
	    ejw_write_layout(a.layout, w, im->jpath != NULL,
			     ej_writer_txns(w, NULL)->first_block,
			     ej_writer_txns(w, NULL)->tid, wo->max_tags))
		goto out;
	print_summary(stdout, im->path, w, a.verbose);
	ejw_fc_print(stdout, a.l.fc, a.verbose);
	ret = EJ_EXIT_OK;
out:
	ej_writer_free(w);
	ret = ejw_img_close(im, ret);
done:
	ej_tlist_free(&a.l);
	free(a.layout);
	return ret;
}
