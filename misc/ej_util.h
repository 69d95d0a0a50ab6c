/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_util.h: what every file of e2journal uses (ej_util.c), at the bottom
 * of misc/'s layers: the exit codes, the program's name, the I/O switches
 * from the environment, and the small steps the commands share (opening
 * the image, reading --policy, the usage line).  It calls no command and
 * nothing of e2journal.c.
 */
#ifndef EJ_UTIL_H
#define EJ_UTIL_H

#include "ej_lib.h"

/* fsck(8)-style exit codes used by e2journal. */
#define EJ_EXIT_OK		0	/* replayed cleanly, nothing to do */
#define EJ_EXIT_FLAGGED		1	/* replayed, corruption flagged */
#define EJ_EXIT_UNCORRECTED	4	/* refused or left uncorrected */
#define EJ_EXIT_OPERATIONAL	8	/* operational error */
#define EJ_EXIT_USAGE		16	/* usage error */
#define EJ_EXIT_CANCELLED	32	/* a person said no (or could not) */

extern const char *ej_prog;
/* EJ_IO_*: the engine replay moves blocks with (E2JOURNAL_IO; main) */
extern unsigned int ej_io_flags;

/*
 * The exit status when the journal cannot be loaded: a journal that is
 * itself unusable (its superblock, its inode) is left uncorrected (4);
 * anything else is an operational error (8).
 */
int ej_load_failure_exit(errcode_t err);

/*
 * Open the filesystem in @image (64-bit, checksum errors ignored, plus
 * @flags) through @io, saying why when it cannot be opened.  With
 * EXT2_FLAG_RW it must not be mounted or held by another program
 * (ej_check_writable()), and is opened with O_EXCL.
 */
errcode_t ej_open_image(const char *image, int flags, io_manager io,
			ext2_filsys *fs);
/*
 * EJ_MOUNTED or EJ_BUSY (the library's ej_check_mount()) said as e2fsck
 * says it ("PATH is mounted." on stdout, "Cannot continue, aborting." on
 * stderr); 1 if @err was one of them, 0 (nothing said) otherwise.
 */
int ej_say_not_ours(const char *path, errcode_t err);
/* Before writing to @path: 0, or EJ_MOUNTED / EJ_BUSY, said. */
errcode_t ej_check_writable(const char *path);
/* Parse a --policy argument, saying what is accepted when it is wrong. */
int ej_policy_arg(const char *arg, int *policy);
/*
 * "Usage: e2journal CMD [options] ARGS (see e2journal CMD --help)" on
 * stderr; returns EJ_EXIT_USAGE.
 */
int ej_usage_error(const char *cmd, const char *args);
/* @s as a JSON string, quotes and escapes included. */
void ej_json_string(FILE *f, const char *s);
/*
 * --json when there is no report to print: one JSON object on @f,
 * {"image": ..., "error": {"code": N, "message": ..., "while": ...},
 * "exit": N}, so that a consumer of standard output always gets JSON.
 */
void ej_json_error(FILE *f, const char *image, errcode_t err,
		   const char *what, int exit_status);

#endif
