/* SPDX-License-Identifier: GPL-2.0 */
/* e2journal.h's programs: commands of misc/e2journal, one file each. */
#ifndef E2JOURNAL_INT_H
#define E2JOURNAL_INT_H

#include "e2journal.h"

/* fsck(8)-style exit codes used by e2journal. */
#define EJ_EXIT_OK		0	/* replayed cleanly, nothing to do */
#define EJ_EXIT_FLAGGED		1	/* replayed, corruption flagged */
#define EJ_EXIT_UNCORRECTED	4	/* refused or left uncorrected */
#define EJ_EXIT_OPERATIONAL	8	/* operational error */
#define EJ_EXIT_USAGE		16	/* usage error */

extern const char *ej_prog;

int ej_cmd_dump(int argc, char **argv);		/* ej_dump.c */
int ej_cmd_replay(int argc, char **argv);	/* e2journal.c */

#endif
