/* SPDX-License-Identifier: GPL-2.0 */
/*
 * e2journal_int.h: the entry points of e2journal's commands, one file
 * each, which e2journal.c's main calls, and ej_tty.c's progress bar and
 * question; ej_util.h sits below them all.
 */
#ifndef E2JOURNAL_INT_H
#define E2JOURNAL_INT_H

#include "ej_util.h"
#include "test/ej_test.h"

int ej_cmd_dump(int argc, char **argv);		/* ej_dump.c */
int ej_cmd_replay(int argc, char **argv);	/* ej_replay.c */
int ej_cmd_show(int argc, char **argv);		/* ej_show.c */
int ej_cmd_save(int argc, char **argv);		/* ej_save.c */
int ej_cmd_write(int argc, char **argv);	/* ej_write.c */
int ej_cmd_corrupt(int argc, char **argv);	/* ej_corrupt.c */
int ej_cmd_plan(int argc, char **argv);		/* ej_plan.c */

/* ej_tty.c: a progress bar on a terminal, and asking a person. */
struct ej_bar {
	const char	*label;
	int		on;		/* stderr is a terminal */
	int		drawn;		/* something is on the line */
	unsigned int	pass;		/* EJ_PROGRESS_* last drawn */
	int		permille;	/* last drawn */
	struct ej_report *report;	/* whose progress_pass to read */
};

void ej_bar_init(struct ej_bar *b, const char *label);
void ej_bar_update(struct ej_bar *b, unsigned long done,
		   unsigned long total);
/* ej_progress_fn for ej_report.progress_fn (arg: a struct ej_bar). */
void ej_bar_progress(void *arg, unsigned long done, unsigned long total);
/* Erase the bar, so that what is printed next starts a clean line. */
void ej_bar_done(struct ej_bar *b);
/* 1 when a person at the terminal answers yes to @question. */
int ej_ask_yes(const char *question);

#endif
