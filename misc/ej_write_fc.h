/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_write_fc.h: the fast commits of "e2journal write" (ej_write_fc.c):
 * --fc, --fc-head and the spec file's fc lines parsed, then written
 * after the full transactions into the journal's fast-commit area
 * through the library's fast-commit writer (fc_write.c).
 */
#ifndef EJ_WRITE_FC_H
#define EJ_WRITE_FC_H

#include <stdio.h>

#include "ej_layout.h"

struct ejw_fc;

/* The fast-commit part of "write --help". */
void ejw_fc_usage(FILE *f);

/* --fc SPEC: one more fast commit; -1 (said why) when SPEC is wrong. */
int ejw_fc_option(struct ejw_fc **fc, const char *spec);
/* --fc-head SPEC */
int ejw_fc_head_option(struct ejw_fc **fc, const char *spec);
/*
 * A line of a spec file (@w, @n words): 1 when it is a fast-commit line
 * (fc, fc_head, or any line while a fast commit is open), 0 when it is
 * not, -1 (said why) when it is wrong.
 */
int ejw_fc_spec_line(struct ejw_fc **fc, char **w, int n);
/* The spec file ended: -1 (said why) when a fast commit is still open. */
int ejw_fc_spec_end(struct ejw_fc *fc, const char *path);
/* Any fast commits (or a HEAD) asked for? */
int ejw_fc_wanted(const struct ejw_fc *fc);
/*
 * Before the writer opens, with the journal superblock as it is (@jsb,
 * what "write" probed): the filesystem must have fast_commit; the
 * journal gets the feature (its s_num_fc_blks kept).  -1: said why.
 */
int ejw_fc_prepare(const struct ejw_fc *fc, const struct img *im,
		   const journal_superblock_t *jsb, struct ej_writer_opts *wo);
/* After the transactions: build the area and write it; 0 or said why. */
errcode_t ejw_fc_write(struct ejw_fc *fc, struct img *im,
		       struct ej_writer *w);
/* What was written (every record with -v). */
void ejw_fc_print(FILE *out, const struct ejw_fc *fc, int verbose);
void ejw_fc_free(struct ejw_fc *fc);

#endif
