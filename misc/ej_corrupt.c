// SPDX-License-Identifier: GPL-2.0
/*
 * ej_corrupt.c: e2journal corrupt IMAGE KIND [--tid T] [--index I]
 *                                 [--byte B] [--value V]
 *
 * Damages one precise place of a journal that "e2journal write" wrote,
 * with the library's fault injector.  The injector works on a writer that
 * knows the layout, so "corrupt" rebuilds one from the sidecar
 * (ej_layout.c): it replays the recorded transactions through a writer
 * whose writes are thrown away (placeholder data; only the positions
 * matter), checks that the positions it gets are the recorded ones, and
 * then lets the injector work on the real journal.  Reading the layout
 * from the sidecar rather than walking the log keeps it usable after an
 * earlier corruption has made the log unwalkable.
 *
 * A test tool: it writes into the image in place.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"
#include "ej_layout.h"

enum {
	OPT_TID = 256,
	OPT_INDEX,
	OPT_BYTE,
	OPT_VALUE,
};

/* ------------------------------------------------------------------ */
/* e2journal corrupt                                                   */

static const struct {
	const char	*name;
	int		kind;
	int		needs_tid;
	const char	*what;
} corrupt_kinds[] = {
	{ "commit-csum", EJ_CORRUPT_COMMIT_CSUM, 1,
	  "byte --byte (0-3) of the commit checksum" },
	{ "commit-header", EJ_CORRUPT_COMMIT_HEADER, 1,
	  "commit header field --index (0 magic, 1 type, 2 sequence)" },
	{ "data", EJ_CORRUPT_DATA, 1, "byte --byte of data block --index" },
	{ "descr-tag", EJ_CORRUPT_DESCR_TAG, 1,
	  "byte --byte of the tags of descriptor --index" },
	{ "descr-csum", EJ_CORRUPT_DESCR_TAIL, 1,
	  "the tail checksum of descriptor --index (v2/v3)" },
	{ "revoke-csum", EJ_CORRUPT_REVOKE_TAIL, 1,
	  "the tail checksum of revoke block --index (v2/v3)" },
	{ "revoke-rcount", EJ_CORRUPT_REVOKE_COUNT, 1,
	  "r_count of revoke block --index = --value (0: twice the block)" },
	{ "torn-commit", EJ_CORRUPT_TORN_COMMIT, 1,
	  "garbage in the commit from byte --byte (default 512) on" },
	{ "tag-out-of-range", EJ_CORRUPT_TAG_RANGE, 1,
	  "the tag of data block --index names block --value (default:\n"
	  "                    the filesystem's block count); resealed" },
	{ "tag-range", EJ_CORRUPT_TAG_RANGE, 1, NULL },
	{ "jsb-csum", EJ_CORRUPT_JSB_CSUM, 0,
	  "byte --byte of the journal superblock checksum" },
	{ "jsb-magic", EJ_CORRUPT_JSB_MAGIC, 0,
	  "byte --byte of the journal superblock magic" },
	{ "jsb-maxlen", EJ_CORRUPT_JSB_MAXLEN, 0,
	  "s_maxlen = --value (default 0)" },
	{ "jsb-geometry", EJ_CORRUPT_JSB_MAXLEN, 0, NULL },
	{ "jsb-first", EJ_CORRUPT_JSB_FIRST, 0,
	  "s_first = --value (default 0)" },
	{ "raw", EJ_CORRUPT_RAW, 0,
	  "byte --byte of journal block --index (no layout needed)" },
};


static void corrupt_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: %s corrupt [options] IMAGE KIND\n\n"
		"Damage the journal that \"%s write\" wrote into IMAGE in one\n"
		"place (a test tool).  The layout comes from IMAGE.layout.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"      --tid T          the transaction\n"
		"      --index I        which block of its kind in it (default 0)\n"
		"      --byte B         which byte (default 0)\n"
		"      --value V        xor mask for the byte kinds (default\n"
		"                       0xff), the new value for the others\n"
		"  -L, --layout FILE    the layout (default IMAGE.layout)\n"
		"  -h, --help           this text\n\nKinds:\n",
		ej_prog, ej_prog);
	for (i = 0; i < ARRAY_SIZE(corrupt_kinds); i++)
		if (corrupt_kinds[i].what)
			fprintf(f, "  %-17s %s\n", corrupt_kinds[i].name,
				corrupt_kinds[i].what);
}

/*
 * Walk a writer through the recorded transactions (writes dropped) and
 * check that it puts every block where the layout says it is.
 */
static errcode_t rebuild(struct ej_writer *w, const struct layout *lo,
			 unsigned int bs)
{
	const struct ej_wtxn *wt;
	unsigned char *zero;
	size_t i, j;
	__u32 tid;
	errcode_t err = 0;

	zero = calloc(1, bs);
	if (!zero)
		return EJ_NO_MEMORY;
	for (i = 0; i < lo->nr_txns && !err; i++) {
		const struct ltxn *t = &lo->txns[i];

		err = ej_writer_begin(w, &tid);
		if (!err && tid != t->tid)
			err = EJ_BAD_SAVED;
		for (j = 0; j < t->nr_blocks && !err; j++) {
			const struct ej_wblock *b = &t->blocks[j];
			unsigned int r;

			if (b->kind == EJ_WB_DATA)
				err = ej_writer_add_block(w, b->fsblock, zero);
			for (r = 0; b->kind == EJ_WB_REVOKE && r < b->count &&
			     !err; r++)
				err = ej_writer_revoke(w, r);
		}
		if (err)
			break;
		err = t->committed ? ej_writer_commit(w) :
		      ej_writer_end_uncommitted(w);
		if (err)
			break;
		wt = ej_writer_find_txn(w, tid);
		if (!wt || wt->nr_blocks != t->nr_blocks) {
			err = EJ_BAD_SAVED;
			break;
		}
		for (j = 0; j < t->nr_blocks; j++) {
			const struct ej_wblock *a = &wt->blocks[j];
			const struct ej_wblock *b = &t->blocks[j];

			if (a->kind != b->kind || a->index != b->index ||
			    a->jblock != b->jblock ||
			    (a->kind == EJ_WB_DATA &&
			     (a->desc_jblock != b->desc_jblock ||
			      a->tag_offset != b->tag_offset))) {
				err = EJ_BAD_SAVED;
				break;
			}
		}
	}
	if (!err)
		err = ej_writer_finish(w);
	free(zero);
	return err;
}

/* What the command line of "e2journal corrupt" asks for. */
struct corrupt_args {
	struct img		im;
	char			*layout;	/* -L, or NULL */
	const char		*kname;		/* KIND as written */
	size_t			k;		/* its corrupt_kinds[] entry */
	unsigned long long	tid, index, byte, value;
	int			have_tid, have_value;
};

/*
 * Parse the command line into @a.  Returns -1 to go on, or the exit
 * status (usage said, --help printed, no memory).
 */
static int corrupt_options(int argc, char **argv, struct corrupt_args *a)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument, NULL, 'j' },
		{ "tid",	required_argument, NULL, OPT_TID },
		{ "index",	required_argument, NULL, OPT_INDEX },
		{ "byte",	required_argument, NULL, OPT_BYTE },
		{ "value",	required_argument, NULL, OPT_VALUE },
		{ "layout",	required_argument, NULL, 'L' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:L:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			a->im.jpath = optarg;
			break;
		case OPT_TID:
			if (ejw_num_arg(optarg, 0, 0xffffffffULL, &a->tid))
				goto usage;
			a->have_tid = 1;
			break;
		case OPT_INDEX:
			if (ejw_num_arg(optarg, 0, 0xffffffffULL, &a->index))
				goto usage;
			break;
		case OPT_BYTE:
			if (ejw_num_arg(optarg, 0, 0xffffffffULL, &a->byte))
				goto usage;
			break;
		case OPT_VALUE:
			if (ejw_num_arg(optarg, 0, ~0ULL, &a->value))
				goto usage;
			a->have_value = 1;
			break;
		case 'L':
			if (ejw_path_arg(&a->layout, optarg))
				return EJ_EXIT_OPERATIONAL;
			break;
		case 'h':
			corrupt_usage(stdout);
			return EJ_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (optind != argc - 2)
		goto usage;
	a->im.path = argv[optind];
	a->kname = argv[optind + 1];
	for (a->k = 0; a->k < ARRAY_SIZE(corrupt_kinds); a->k++)
		if (!strcmp(a->kname, corrupt_kinds[a->k].name))
			break;
	if (a->k == ARRAY_SIZE(corrupt_kinds)) {
		fprintf(stderr,
			"%s: unknown kind '%s' (see %s corrupt --help)\n",
			ej_prog, a->kname, ej_prog);
		goto usage;
	}
	if (corrupt_kinds[a->k].needs_tid && !a->have_tid) {
		fprintf(stderr, "%s: %s needs --tid\n", ej_prog, a->kname);
		goto usage;
	}
	return -1;
usage:
	return ej_usage_error("corrupt", "IMAGE KIND");
}

/*
 * A writer on the journal of the open image; with a layout @lo, walked
 * dry (writing nothing) through the recorded transactions, which must be
 * where @lo says.  -1: said why.
 */
static int open_writer(struct corrupt_args *a, const struct layout *lo,
		       struct ej_writer **w)
{
	struct img *im = &a->im;
	const journal_superblock_t *jsb;
	struct ej_writer_opts wo;
	errcode_t err;

	if (lo && lo->blocksize != im->fs->blocksize) {
		fprintf(stderr, "%s: %s is not the layout of %s\n", ej_prog,
			a->layout, im->path);
		return -1;
	}
	if (lo && lo->external != (im->jpath != NULL)) {
		fprintf(stderr, "%s: the layout is of an %s journal%s\n",
			ej_prog, lo->external ? "external" : "internal",
			lo->external ? ": name it with -j" : "");
		return -1;
	}
	if (!im->jpath && !im->fs->super->s_journal_inum) {
		com_err(ej_prog, EJ_EXT_JOURNAL_NEEDED, "for %s", im->path);
		return -1;
	}
	memset(&wo, 0, sizeof(wo));
	if (lo) {
		wo.flags = EJ_W_SET_TID;
		wo.start_tid = lo->first_tid;
		wo.start_block = lo->start_block;
		wo.max_tags = lo->max_tags;
	}
	err = ej_writer_open_fs(im->fs, im->jio, &wo, w);
	if (err) {
		com_err(ej_prog, err, "while loading the journal superblock of %s", im->path);
		return -1;
	}
	if (!lo)
		return 0;
	/* Acting on a journal that was replayed since would be wrong. */
	jsb = ej_writer_jsb(*w);
	if (be32_to_cpu(jsb->s_start) != lo->start_block ||
	    be32_to_cpu(jsb->s_sequence) != lo->first_tid) {
		fprintf(stderr,
			"%s: the journal of %s no longer starts where %s says (replayed since?)\n",
			ej_prog, im->path, a->layout);
		return -1;
	}
	ej_writer_set_dry(*w, 1);
	err = rebuild(*w, lo, im->fs->blocksize);
	if (err) {
		fprintf(stderr,
			"%s: the journal of %s does not match %s: %s\n",
			ej_prog, im->path, a->layout, error_message(err));
		return -1;
	}
	return 0;
}

int ej_cmd_corrupt(int argc, char **argv)
{
	struct corrupt_args a;
	struct img *im = &a.im;
	struct layout lo;
	struct ej_writer *w = NULL;
	const struct ej_wblock *b = NULL;
	int kind, have_layout = 0, ret;
	FILE *f;
	errcode_t err;

	memset(&a, 0, sizeof(a));
	memset(&lo, 0, sizeof(lo));
	ret = corrupt_options(argc, argv, &a);
	if (ret >= 0)
		goto done;
	ret = EJ_EXIT_OPERATIONAL;
	kind = corrupt_kinds[a.k].kind;
	if (kind != EJ_CORRUPT_RAW) {
		if (!a.layout)
			a.layout = ejw_layout_default(im->path);
		if (!a.layout || ejw_read_layout(a.layout, &lo))
			goto done;
		have_layout = 1;
	}

	if (ejw_img_open(im) ||
	    open_writer(&a, have_layout ? &lo : NULL, &w))
		goto out;
	switch (kind) {
	case EJ_CORRUPT_TAG_RANGE:
		if (!a.have_value)
			a.value = ext2fs_blocks_count(im->fs->super);
		break;
	case EJ_CORRUPT_JSB_MAXLEN:
	case EJ_CORRUPT_JSB_FIRST:
	case EJ_CORRUPT_REVOKE_COUNT:
		if (!a.have_value)
			a.value = 0;
		break;
	}
	if (corrupt_kinds[a.k].needs_tid) {
		b = ej_corrupt_target(w, kind, a.tid, a.index);
		if (!b) {
			fprintf(stderr,
				"%s: transaction %llu has no such block (see %s)\n",
				ej_prog, a.tid, a.layout);
			goto out;
		}
	}
	ej_writer_set_dry(w, 0);
	err = ej_corrupt(w, kind, a.tid, a.index, a.byte, a.value);
	if (err) {
		com_err(ej_prog, err, "while corrupting %s (%s)", im->path,
			a.kname);
		goto out;
	}
	printf("%s: %s", im->path, a.kname);
	if (b)
		printf(" in transaction %llu, journal block %lu", a.tid,
		       b->jblock);
	else if (kind == EJ_CORRUPT_RAW)
		printf(" in journal block %llu", a.index);
	printf("\n");
	if (have_layout) {
		f = fopen(a.layout, "a");
		if (!f || fprintf(f,
				  "corrupt %s tid %llu index %llu byte %llu value 0x%llx\n",
				  a.kname, a.tid, a.index, a.byte,
				  a.value) < 0 || fclose(f)) {
			com_err(ej_prog, errno, "while writing %s", a.layout);
			goto out;
		}
	}
	ret = EJ_EXIT_OK;
out:
	ej_writer_free(w);
	ret = ejw_img_close(im, ret);
done:
	ejw_layout_free(&lo);
	free(a.layout);
	return ret;
}
