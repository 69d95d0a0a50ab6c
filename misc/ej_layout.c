// SPDX-License-Identifier: GPL-2.0
/*
 * ej_layout.c: the layout sidecar of "e2journal write" (IMAGE.layout):
 * which journal block holds which descriptor, data, revoke and commit
 * block of each transaction it wrote.  "e2journal corrupt" reads it back
 * to find the place to damage.  With it, what the two commands share:
 * the image and its journal opened read-write, numbers and words parsed,
 * the names of checksum modes and logged block kinds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <et/com_err.h>

#include "ej_layout.h"

#define LAYOUT_MAGIC	"e2journal-layout"
#define LAYOUT_VERSION	1
#define LAYOUT_SUFFIX	".layout"

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

int ejw_parse_num(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *v > max)
		return -1;
	return 0;
}

/* The words of a line (spec file, layout), in place; how many. */
int ejw_split_words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#' || *p == '\n')
			break;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (!*p)
			break;
		*p++ = '\0';
	}
	return n;
}

errcode_t ejw_lines_open(struct ejw_lines *in, const char *path,
			 int dash_stdin)
{
	memset(in, 0, sizeof(*in));
	if (dash_stdin && !strcmp(path, "-")) {
		in->f = stdin;
		return 0;
	}
	in->f = fopen(path, "r");
	return in->f ? 0 : errno;
}

int ejw_lines_next(struct ejw_lines *in)
{
	while (fgets(in->line, sizeof(in->line), in->f)) {
		in->lineno++;
		in->n = ejw_split_words(in->line, in->w, EJW_MAX_WORDS);
		if (in->n)
			return 1;
	}
	in->n = 0;
	return 0;
}

void ejw_lines_close(struct ejw_lines *in)
{
	if (in->f && in->f != stdin)
		fclose(in->f);
	in->f = NULL;
}

int ejw_num_arg(const char *arg, unsigned long long min,
		unsigned long long max, unsigned long long *v)
{
	if (!ejw_parse_num(arg, max, v) && *v >= min)
		return 0;
	fprintf(stderr, "%s: '%s': expected a number\n", ej_prog, arg);
	return -1;
}

int ejw_path_arg(char **path, const char *arg)
{
	free(*path);
	*path = strdup(arg);
	return *path ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Opening the image and its journal                                   */

errcode_t ejw_img_open(struct img *im)
{
	errcode_t err;

	err = ej_open_image(im->path, EXT2_FLAG_RW, unix_io_manager, &im->fs);
	if (err)
		return err;
	if (!im->jpath)
		return 0;
	err = ej_check_writable(im->jpath);
	if (err)
		return err;
	err = unix_io_manager->open(im->jpath, IO_FLAG_RW | IO_FLAG_EXCLUSIVE,
				    &im->jio);
	if (err == EBUSY)
		err = EJ_BUSY;
	if (!err)
		err = io_channel_set_blksize(im->jio, im->fs->blocksize);
	if (err && !ej_say_not_ours(im->jpath, err))
		com_err(ej_prog, err, "while opening the journal %s",
			im->jpath);
	return err;
}

int ejw_img_close(struct img *im, int ret)
{
	errcode_t err = 0, err2;

	if (im->jio) {
		err = io_channel_flush(im->jio);
		io_channel_close(im->jio);
		im->jio = NULL;
	}
	if (im->fs) {
		/* Only the primary superblock changes, as under the kernel. */
		im->fs->flags |= EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_MASTER_SB_ONLY;
		err2 = ext2fs_close_free(&im->fs);
		if (!err)
			err = err2;
	}
	if (err && ret == EJ_EXIT_OK) {
		com_err(ej_prog, err, "while closing %s", im->path);
		ret = EJ_EXIT_OPERATIONAL;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

const char *ejw_csum_name(int csum)
{
	static const char *const names[] = { "none", "v1", "v2", "v3" };

	return csum >= 0 && csum <= EJ_CSUM_V3 ? names[csum] : "?";
}

const char *ejw_wb_name(unsigned int kind)
{
	switch (kind) {
	case EJ_WB_DESCRIPTOR:
		return "descriptor";
	case EJ_WB_DATA:
		return "data";
	case EJ_WB_REVOKE:
		return "revoke";
	case EJ_WB_COMMIT:
		return "commit";
	}
	return "?";
}

int ejw_csum_of_jsb(const journal_superblock_t *jsb)
{
	__u32 incompat = be32_to_cpu(jsb->s_feature_incompat);

	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return EJ_CSUM_V3;
	if (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		return EJ_CSUM_V2;
	if (be32_to_cpu(jsb->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM)
		return EJ_CSUM_V1;
	return EJ_CSUM_NONE;
}

/* ------------------------------------------------------------------ */
/* The layout sidecar                                                  */

/*
 * IMAGE.layout, beside a regular file.  A device has no such place (the
 * file would land in /dev, a tmpfs that forgets it): NULL, and the caller
 * asks for --layout.
 */
char *ejw_layout_default(const char *image)
{
	struct stat st;
	char *p;

	if (!stat(image, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"%s: %s is not a regular file: name the layout file with --layout FILE%s\n",
			ej_prog, image, " (write also takes --no-layout)");
		return NULL;
	}
	p = malloc(strlen(image) + sizeof(LAYOUT_SUFFIX));

	if (p) {
		strcpy(p, image);
		strcat(p, LAYOUT_SUFFIX);
	}
	return p;
}

/*
 * Text, one record a line:
 *   e2journal-layout 1
 *   journal internal|external
 *   blocksize BS
 *   csum none|v1|v2|v3
 *   features compat 0x.. incompat 0x..
 *   log FIRST LAST			(log blocks FIRST .. LAST-1)
 *   start-block B
 *   first-tid T
 *   max-tags N				(0: as many as fit)
 *   txn TID commit|nocommit first B commit-block B|- time SEC
 *     revoke INDEX JBLOCK records N
 *     descriptor INDEX JBLOCK tags N
 *     data INDEX JBLOCK fs FSBLOCK desc JBLOCK tag OFFSET flags 0xF
 *     commit 0 JBLOCK
 *   corrupt KIND tid T index I byte B value V	(appended by corrupt)
 */
int ejw_write_layout(const char *path, struct ej_writer *w, int external,
		     unsigned long start_block, __u32 first_tid,
		     unsigned int max_tags)
{
	const journal_superblock_t *jsb = ej_writer_jsb(w);
	const struct ej_wtxn *t;
	const struct ej_wblock *b;
	unsigned long first, last;
	size_t nr, i, j;
	FILE *f;

	f = fopen(path, "w");
	if (!f) {
		com_err(ej_prog, errno, "while writing %s", path);
		return -1;
	}
	ej_writer_log_bounds(w, &first, &last);
	fprintf(f, "# what \"e2journal write\" wrote; \"e2journal corrupt\" reads it\n");
	fprintf(f, "%s %d\n", LAYOUT_MAGIC, LAYOUT_VERSION);
	fprintf(f, "journal %s\n", external ? "external" : "internal");
	fprintf(f, "blocksize %u\n", be32_to_cpu(jsb->s_blocksize));
	fprintf(f, "csum %s\n", ejw_csum_name(ejw_csum_of_jsb(jsb)));
	fprintf(f, "features compat 0x%x incompat 0x%x\n",
		be32_to_cpu(jsb->s_feature_compat),
		be32_to_cpu(jsb->s_feature_incompat));
	fprintf(f, "log %lu %lu\n", first, last);
	fprintf(f, "start-block %lu\n", start_block);
	fprintf(f, "first-tid %u\n", first_tid);
	fprintf(f, "max-tags %u\n", max_tags);
	t = ej_writer_txns(w, &nr);
	for (i = 0; i < nr; i++, t++) {
		fprintf(f, "txn %u %s first %lu commit-block ", t->tid,
			t->committed ? "commit" : "nocommit", t->first_block);
		if (t->committed)
			fprintf(f, "%lu", t->commit_block);
		else
			fprintf(f, "-");
		fprintf(f, " time %llu\n", t->commit_sec);
		for (j = 0; j < t->nr_blocks; j++) {
			b = &t->blocks[j];
			fprintf(f, "  %s %u %lu", ejw_wb_name(b->kind), b->index,
				b->jblock);
			if (b->kind == EJ_WB_DATA)
				fprintf(f, " fs %llu desc %lu tag %u flags 0x%x",
					b->fsblock, b->desc_jblock,
					b->tag_offset, b->tag_flags);
			else if (b->kind == EJ_WB_DESCRIPTOR)
				fprintf(f, " tags %u", b->count);
			else if (b->kind == EJ_WB_REVOKE)
				fprintf(f, " records %u", b->count);
			fprintf(f, "\n");
		}
	}
	if (fclose(f)) {
		com_err(ej_prog, errno, "while writing %s", path);
		return -1;
	}
	return 0;
}

/*
 * Emptied as well as freed: a layout that fails to read is freed by
 * ejw_read_layout() and then again by its caller.
 */
void ejw_layout_free(struct layout *lo)
{
	size_t i;

	for (i = 0; i < lo->nr_txns; i++)
		free(lo->txns[i].blocks);
	free(lo->txns);
	memset(lo, 0, sizeof(*lo));
}

/* "KEY VALUE" pairs after the first words of a record. */
static int kv(char **w, int n, int from, const char *key,
	      unsigned long long *v)
{
	int i;

	for (i = from; i + 1 < n; i += 2)
		if (!strcmp(w[i], key))
			return ejw_parse_num(w[i + 1], ~0ULL, v);
	return -1;
}

static int layout_block(struct ltxn *t, char **w, int n)
{
	static const char *const kinds[] = {
		[EJ_WB_DESCRIPTOR] = "descriptor", [EJ_WB_DATA] = "data",
		[EJ_WB_REVOKE] = "revoke", [EJ_WB_COMMIT] = "commit",
	};
	struct ej_wblock *b;
	unsigned long long v;
	unsigned int k;

	for (k = EJ_WB_DESCRIPTOR; k <= EJ_WB_COMMIT; k++)
		if (!strcmp(w[0], kinds[k]))
			break;
	if (k > EJ_WB_COMMIT || n < 3)
		return -1;
	if (ej_grow((void **)&t->blocks, &t->max_blocks, t->nr_blocks + 1,
		    sizeof(*t->blocks)))
		return -1;
	b = &t->blocks[t->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->kind = k;
	if (ejw_parse_num(w[1], 0xffffffffULL, &v))
		return -1;
	b->index = v;
	if (ejw_parse_num(w[2], 0xffffffffULL, &v))
		return -1;
	b->jblock = v;
	switch (k) {
	case EJ_WB_DATA:
		if (kv(w, n, 3, "fs", &b->fsblock) ||
		    kv(w, n, 3, "desc", &v))
			return -1;
		b->desc_jblock = v;
		if (kv(w, n, 3, "tag", &v))
			return -1;
		b->tag_offset = v;
		break;
	case EJ_WB_DESCRIPTOR:
		if (kv(w, n, 3, "tags", &v))
			return -1;
		b->count = v;
		break;
	case EJ_WB_REVOKE:
		if (kv(w, n, 3, "records", &v))
			return -1;
		b->count = v;
		break;
	}
	return 0;
}

int ejw_read_layout(const char *path, struct layout *lo)
{
	struct ejw_lines in;
	char **w = in.w;
	unsigned long long v;
	struct ltxn *t = NULL;
	int n, seen_magic = 0, err;

	memset(lo, 0, sizeof(*lo));
	err = ejw_lines_open(&in, path, 0);
	if (err) {
		com_err(ej_prog, err,
			"while opening the layout %s (written by e2journal write)",
			path);
		return -1;
	}
	while (!err && ejw_lines_next(&in)) {
		n = in.n;
		if (!seen_magic) {
			if (n != 2 || strcmp(w[0], LAYOUT_MAGIC) ||
			    ejw_parse_num(w[1], 100, &v) || v != LAYOUT_VERSION)
				err = -1;
			seen_magic = 1;
		} else if (!strcmp(w[0], "journal") && n == 2) {
			lo->external = !strcmp(w[1], "external");
		} else if (!strcmp(w[0], "blocksize") && n == 2) {
			err = ejw_parse_num(w[1], 65536, &v);
			lo->blocksize = v;
		} else if (!strcmp(w[0], "start-block") && n == 2) {
			err = ejw_parse_num(w[1], 0xffffffffULL, &v);
			lo->start_block = v;
			lo->have_start = 1;
		} else if (!strcmp(w[0], "first-tid") && n == 2) {
			err = ejw_parse_num(w[1], 0xffffffffULL, &v);
			lo->first_tid = v;
			lo->have_tid = 1;
		} else if (!strcmp(w[0], "max-tags") && n == 2) {
			err = ejw_parse_num(w[1], 0xffffffffULL, &v);
			lo->max_tags = v;
		} else if (!strcmp(w[0], "txn") && n >= 3) {
			if (ej_grow((void **)&lo->txns, &lo->max_txns,
				    lo->nr_txns + 1, sizeof(*lo->txns))) {
				err = -1;
				break;
			}
			t = &lo->txns[lo->nr_txns++];
			memset(t, 0, sizeof(*t));
			err = ejw_parse_num(w[1], 0xffffffffULL, &v);
			t->tid = v;
			t->committed = !strcmp(w[2], "commit");
		} else if (!strcmp(w[0], "csum") || !strcmp(w[0], "features") ||
			   !strcmp(w[0], "log") || !strcmp(w[0], "corrupt")) {
			/* for people and scripts: rebuilt, not read */
		} else if (t) {
			err = layout_block(t, w, n);
		} else {
			err = -1;
		}
	}
	ejw_lines_close(&in);
	if (!err && (!seen_magic || !lo->have_start || !lo->have_tid ||
		     !lo->blocksize))
		err = -1;
	if (err) {
		fprintf(stderr,
			"%s: %s:%d: not a layout written by e2journal write\n",
			ej_prog, path, in.lineno);
		ejw_layout_free(lo);
	}
	return err;
}
