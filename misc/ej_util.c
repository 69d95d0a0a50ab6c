// SPDX-License-Identifier: GPL-2.0
/*
 * ej_util.c: what the files of e2journal share (ej_util.h): the program's
 * name, the I/O switches main reads from the environment, and the steps
 * every command takes the same way.  The bottom layer of misc/: it uses
 * the library only, so that the commands and e2journal.c's main, which
 * calls them, depend on it and it on none of them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include <et/com_err.h>

#include "ej_util.h"
#include "test/ej_test.h"

const char *ej_prog = "e2journal";
unsigned int ej_io_flags;

int ej_say_not_ours(const char *path, errcode_t err)
{
	if (err != EJ_MOUNTED && err != EJ_BUSY)
		return 0;
	/* e2fsck's words, stdout and stderr as it splits them */
	printf("%s is %s.\n", path, err == EJ_MOUNTED ? "mounted" : "in use");
	fflush(stdout);
	fprintf(stderr, "%s: Cannot continue, aborting.\n\n\n", ej_prog);
	return 1;
}

errcode_t ej_check_writable(const char *path)
{
	errcode_t err = ej_check_mount(path, 0, NULL);

	ej_say_not_ours(path, err);
	return err;
}

errcode_t ej_open_image(const char *image, int flags, io_manager io,
			ext2_filsys *fs)
{
	errcode_t err;

	/* written: nobody else's, and held with O_EXCL from now on */
	if (flags & EXT2_FLAG_RW) {
		err = ej_check_writable(image);
		if (err)
			return err;
		flags |= EXT2_FLAG_EXCLUSIVE;
	}
	/* a no-op unless a test set E2JOURNAL_TEST_IO (see main) */
	io = ej_test_io_manager(io);
	err = ext2fs_open2(image, NULL, flags | EXT2_FLAG_64BITS |
			   EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0, io, fs);
	/* mounted or held since the check */
	if (err == EBUSY && (flags & EXT2_FLAG_EXCLUSIVE))
		err = EJ_BUSY;
	if (err && !ej_say_not_ours(image, err))
		com_err(ej_prog, err, "while trying to open %s", image);
	return err;
}

int ej_policy_arg(const char *arg, int *policy)
{
	if (!ej_policy_parse(arg, policy))
		return 0;
	fprintf(stderr, "%s: unknown policy '%s' (replay-all, stop or refuse)\n",
		ej_prog, arg);
	return -1;
}

int ej_load_failure_exit(errcode_t err)
{
	switch (err) {
	case EJ_BAD_JOURNAL_INODE:
	case EJ_BAD_JSB:
	case EJ_UNSUPP_JSB_VERSION:
	case EJ_UNSUPP_FEATURE:
	case EJ_JOURNAL_TOO_SMALL:
		return EJ_EXIT_UNCORRECTED;
	}
	return EJ_EXIT_OPERATIONAL;
}

int ej_usage_error(const char *cmd, const char *args)
{
	fprintf(stderr, "Usage: %s %s [options] %s (see %s %s --help)\n",
		ej_prog, cmd, args, ej_prog, cmd);
	return EJ_EXIT_USAGE;
}

void ej_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void ej_json_error(FILE *f, const char *image, errcode_t err,
		   const char *what, int exit_status)
{
	fputs("{\"image\": ", f);
	ej_json_string(f, image);
	fprintf(f, ", \"error\": {\"code\": %ld, \"message\": ", (long)err);
	ej_json_string(f, error_message(err));
	fputs(", \"while\": ", f);
	ej_json_string(f, what);
	fprintf(f, "}, \"exit\": %d}\n", exit_status);
}
