/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_layout.h: what "e2journal write" (ej_write.c) and "e2journal
 * corrupt" (ej_corrupt.c) share (ej_layout.c): the layout sidecar, in
 * which write records where it put each logged block and from which
 * corrupt finds them again, the image and journal both open read-write,
 * and the parsing both do.
 */
#ifndef EJ_LAYOUT_H
#define EJ_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

#include "ej_util.h"
#include "test/ej_test.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The image, and its journal when that is external (-j). */
struct img {
	const char	*path;
	const char	*jpath;
	ext2_filsys	fs;
	io_channel	jio;		/* external journal, or NULL */
};

errcode_t ejw_img_open(struct img *im);
/*
 * Close @im (only the primary superblock is written, as under the
 * kernel) at the end of a command that exits with @ret: returns @ret, or
 * EJ_EXIT_OPERATIONAL (said why) when @ret was success and closing fails.
 */
int ejw_img_close(struct img *im, int ret);

/* A transaction as the sidecar records it. */
struct ltxn {
	__u32			tid;
	int			committed;
	struct ej_wblock	*blocks;
	size_t			nr_blocks, max_blocks;
};

struct layout {
	int			external;
	unsigned int		blocksize;
	unsigned long		start_block;
	__u32			first_tid;
	unsigned int		max_tags;
	int			have_start, have_tid;
	struct ltxn		*txns;
	size_t			nr_txns, max_txns;
};

/* IMAGE.layout, malloc'ed */
char *ejw_layout_default(const char *image);
/* Record what @w wrote; -1 (said why) when @path cannot be written. */
int ejw_write_layout(const char *path, struct ej_writer *w, int external,
		     unsigned long start_block, __u32 first_tid,
		     unsigned int max_tags);
/* Read @path into @lo; -1 (said why) when it is not a layout. */
int ejw_read_layout(const char *path, struct layout *lo);
void ejw_layout_free(struct layout *lo);

/* A whole unsigned number up to @max (0x.. and 0.. too); -1 if not. */
int ejw_parse_num(const char *s, unsigned long long max,
		  unsigned long long *v);
/* Up to @max blank-separated words of @line, in place, to a '#'. */
int ejw_split_words(char *line, char **w, int max);

#define EJW_MAX_WORDS	16

/*
 * A text file of directives (a --spec file, the layout) read a line at a
 * time, each split into its words by ejw_split_words().  A line longer
 * than the buffer is read as several.
 */
struct ejw_lines {
	FILE		*f;
	int		lineno;		/* of the line in w[] */
	int		n;		/* how many words it has */
	char		*w[EJW_MAX_WORDS];
	char		line[4096];
};

/* Open @path ("-": standard input, if @dash_stdin); errno if it fails. */
errcode_t ejw_lines_open(struct ejw_lines *in, const char *path,
			 int dash_stdin);
/* The next line with any words in in->w[]; 0 at the end of the file. */
int ejw_lines_next(struct ejw_lines *in);
void ejw_lines_close(struct ejw_lines *in);

/*
 * An option's number, @min to @max; -1 (said "expected a number") when
 * @arg is not one.
 */
int ejw_num_arg(const char *arg, unsigned long long min,
		unsigned long long max, unsigned long long *v);
/* *@path = a copy of @arg (the old one freed); -1: no memory. */
int ejw_path_arg(char **path, const char *arg);
/* "none", "v1", "v2", "v3" */
const char *ejw_csum_name(int csum);
/* "descriptor", "data", "revoke", "commit" */
const char *ejw_wb_name(unsigned int kind);
/* The EJ_CSUM_* mode a journal superblock's features say. */
int ejw_csum_of_jsb(const journal_superblock_t *jsb);

#endif
