// SPDX-License-Identifier: GPL-2.0
/*
 * e2journal.c: main of the e2journal command, which runs one of its
 * commands, each in a file of its own:
 *
 *   e2journal dump IMAGE ...		(ej_dump.c)
 *   e2journal replay IMAGE ...		(ej_replay.c)
 *   e2journal show IMAGE [TID:]BLOCK ...	(ej_show.c)
 *   e2journal save IMAGE OUT ...		(ej_save.c)
 *   e2journal plan IMAGE ...		(ej_plan.c)
 *   e2journal write|corrupt IMAGE ...	(ej_write.c)
 *
 * Exit codes follow fsck(8) (ej_util.h): 0 clean, 1 replayed with
 * corruption flagged, 4 refused under --policy refuse, 8 operational
 * error, 16 usage error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"

static const struct {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*what;
} commands[] = {
	/* in the order of e2journal(8) */
	{ "dump",	ej_cmd_dump,	"show the journal superblock and log" },
	{ "plan",	ej_cmd_plan,	"say what replay would do; write nothing" },
	{ "replay",	ej_cmd_replay,	"replay the journal into the filesystem" },
	{ "show",	ej_cmd_show,	"what a block is; what its log changes" },
	{ "save",	ej_cmd_save,	"keep a raw copy of the journal" },
	{ "write",	ej_cmd_write,	"log transactions into a journal (tests)" },
	{ "corrupt",	ej_cmd_corrupt,	"damage what write wrote (tests)" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: %s COMMAND [options] IMAGE\n"
		"       %s --help | -V\n\nCommands:\n", ej_prog, ej_prog);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'%s COMMAND --help' describes a command's options.\n",
		ej_prog);
}

/*
 * The library reads no environment: the switches of its I/O come from
 * ours.  E2JOURNAL_IO picks the engine replay moves blocks with
 * (ej_io_flags_parse(): "plain", "fast", "no-dio", ...), E2JOURNAL_TEST_IO
 * sets up the test io manager (testio.c).
 */
static void io_setup(void)
{
	const char *spec = getenv("E2JOURNAL_IO");

	ej_test_io_config(getenv("E2JOURNAL_TEST_IO"));
	if (ej_io_flags_parse(spec, &ej_io_flags))
		fprintf(stderr, "%s: E2JOURNAL_IO=%s not understood; ignored\n",
			ej_prog, spec);
}

int main(int argc, char **argv)
{
	const char *lib_version = NULL;
	size_t i;

	initialize_ej_error_table();
	initialize_ext2_error_table();
	io_setup();

	if (argc < 2) {
		usage(stderr);
		return EJ_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EJ_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		ext2fs_get_library_version(&lib_version, NULL);
		printf("%s %s (libext2fs %s)\n", ej_prog, PACKAGE_VERSION,
		       lib_version ? lib_version : "?");
		return EJ_EXIT_OK;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		static char name[64];

		if (strcmp(argv[1], commands[i].name))
			continue;
		/* getopt's own messages say "e2journal replay: ..." */
		snprintf(name, sizeof(name), "%s %s", ej_prog,
			 commands[i].name);
		argv[1] = name;
		return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s'\n", ej_prog, argv[1]);
	usage(stderr);
	return EJ_EXIT_USAGE;
}
