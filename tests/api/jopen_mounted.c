// SPDX-License-Identifier: GPL-2.0
/*
 * jopen_mounted.c: the journal_t level (ej_lib.h, as e2fsck and e2journal
 * drive it) refuses to open a journal for writing when the filesystem is
 * not ours to write; tests/api/mounted.sh runs it.
 *
 *   jopen_mounted mounted|busy|free DEVICE
 *
 * The filesystem is opened read-only (allowed on a mounted one), then
 * ej_journal_open() in write mode must give EJ_MOUNTED, EJ_BUSY or 0,
 * while a read-only open of the journal is always let through.  Exit 0
 * when both are as expected.
 */
#include <stdio.h>
#include <string.h>

#include "ej_lib.h"

int main(int argc, char **argv)
{
	struct ej_open_opts o = { .policy = JBD2_POLICY_REPLAY_ALL };
	errcode_t want, err, err_ro;
	ext2_filsys fs = NULL;
	journal_t *j = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: %s mounted|busy|free DEVICE\n",
			argv[0]);
		return 99;
	}
	initialize_ej_error_table();
	want = !strcmp(argv[1], "mounted") ? EJ_MOUNTED :
	       !strcmp(argv[1], "busy") ? EJ_BUSY : 0;
	err = ext2fs_open2(argv[2], NULL, EXT2_FLAG_64BITS, 0, 0,
			   unix_io_manager, &fs);
	if (err) {
		com_err(argv[0], err, "while opening %s", argv[2]);
		return 99;
	}
	err = ej_journal_open(fs, &o, &j);
	ej_journal_close(j);
	j = NULL;
	o.flags = EJ_OPEN_READONLY;
	err_ro = ej_journal_open(fs, &o, &j);
	ej_journal_close(j);
	ext2fs_close_free(&fs);
	printf("write: %s; read-only: %s\n", err ? error_message(err) : "0",
	       err_ro ? error_message(err_ro) : "0");
	return err == want && !err_ro ? 0 : 1;
}
