/* SPDX-License-Identifier: GPL-2.0 */
/* e2journal.h's programs: commands of misc/e2journal, one file each. */
#ifndef E2JOURNAL_INT_H
#define E2JOURNAL_INT_H

#include "ej_lib.h"

/* fsck(8)-style exit codes used by e2journal. */
#define EJ_EXIT_OK		0	/* replayed cleanly, nothing to do */
#define EJ_EXIT_FLAGGED		1	/* replayed, corruption flagged */
#define EJ_EXIT_UNCORRECTED	4	/* refused or left uncorrected */
#define EJ_EXIT_OPERATIONAL	8	/* operational error */
#define EJ_EXIT_USAGE		16	/* usage error */
#define EJ_EXIT_CANCELLED	32	/* a person said no (or could not) */

extern const char *ej_prog;
/* EJ_IO_*: the engine replay moves blocks with (E2JOURNAL_IO) */
extern unsigned int ej_io_flags;

/*
 * The exit status when the journal cannot be loaded: a journal that is
 * itself unusable (its superblock, its inode) is left uncorrected (4);
 * anything else is an operational error (8).
 */
int ej_load_failure_exit(errcode_t err);

/*
 * Open the filesystem in @image (64-bit, checksum errors ignored, plus
 * @flags) through @io, saying why when it cannot be opened.
 */
errcode_t ej_open_image(const char *image, int flags, io_manager io,
			ext2_filsys *fs);
/* Parse a --policy argument, saying what is accepted when it is wrong. */
int ej_policy_arg(const char *arg, int *policy);

int ej_cmd_dump(int argc, char **argv);		/* ej_dump.c */
int ej_cmd_replay(int argc, char **argv);	/* e2journal.c */
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
