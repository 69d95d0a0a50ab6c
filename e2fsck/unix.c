// SPDX-License-Identifier: GPL-2.0
/*
 * unix.c: e2journal's e2fsck: main and the command line, then the
 * journal phase (journal.c) and the hand-off to the engine (engine.c),
 * e2fsprogs' e2fsck, for passes 1-5.
 *
 * The engine is given the user's own options, so that whatever it prints
 * or returns is what e2fsprogs' e2fsck prints or returns on the same
 * filesystem once its journal is dealt with.  Our own -E keys are taken
 * out of what it sees.  It runs under our argv[0]: e2fsck names itself
 * by argv[0] in its messages.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <et/com_err.h>

#include "e2fsck.h"
#include "problem.h"

static const char getopt_string[] =
	"panyrcC:B:dE:fvtFVM:b:I:j:P:l:L:N:SsDkz:";

/* ------------------------------------------------------------------ */
/* The command line                                                    */

static void usage(struct e2fsck_ctx *ctx)
{
	fprintf(stderr,
		"Usage: %s [-panyrcdfktvDFV] [-b superblock] [-B blocksize]\n"
		"\t\t[-l|-L bad_blocks_file] [-C fd] [-j external_journal]\n"
		"\t\t[-E extended-options] [-z undo_file] device\n",
		ctx->program_name);
	fprintf(stderr, "\nEmergency help:\n"
		" -p                   Automatic repair (no questions)\n"
		" -n                   Make no changes to the filesystem\n"
		" -y                   Assume \"yes\" to all questions\n"
		" -c                   Check for bad blocks and add them to the badblock list\n"
		" -f                   Force checking even if filesystem is marked clean\n"
		" -v                   Be verbose\n"
		" -b superblock        Use alternative superblock\n"
		" -B blocksize         Force blocksize when looking for superblock\n"
		" -j external_journal  Set location of the external journal\n"
		" -l bad_blocks_file   Add to badblocks list\n"
		" -L bad_blocks_file   Set badblocks list\n"
		" -z undo_file         Create an undo file\n");
	exit(FSCK_USAGE);
}

static void extended_usage(void)
{
	static const char *const keys[] = {
		"ea_ver=<ea_version (1 or 2)>", "fragcheck", "journal_only",
		"discard", "nodiscard", "optimize_extents",
		"no_optimize_extents", "inode_count_fullmap",
		"no_inode_count_fullmap", "readahead_kb=<buffer size>",
		"bmap2extent", "unshare_blocks", "fixes_only",
		"check_encoding",
		"journal_policy=<replay-all, stop or refuse>",
		"journal_report=<file for the JSON replay report>",
		"journal_save=<file for a copy of the journal>",
	};
	size_t i;

	fputs("\nExtended options are separated by commas, and may take an argument which\n"
	      "is set off by an equals ('=') sign.  Valid extended options are:\n\n",
	      stderr);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		fprintf(stderr, "\t%s\n", keys[i]);
	fputc('\n', stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "e2fsck: out of memory\n");
		exit(FSCK_ERROR);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

/* Append "key[=arg]" to the engine's -E string. */
static void engine_key(struct e2fsck_ctx *ctx, const char *key, const char *arg)
{
	size_t old = ctx->engine_extended ? strlen(ctx->engine_extended) : 0;
	size_t len = old + strlen(key) + (arg ? strlen(arg) + 1 : 0) + 2;
	char *s = xmalloc(len);

	snprintf(s, len, "%s%s%s%s%s", old ? ctx->engine_extended : "",
		 old ? "," : "", key, arg ? "=" : "", arg ? arg : "");
	free(ctx->engine_extended);
	ctx->engine_extended = s;
}

/*
 * The last -E, checked as e2fsck checks it (it would otherwise fail only
 * after the journal phase has run).  e2fsck's own keys are kept for the
 * engine; ours are taken out.  e2fsck reads only the last -E; of an
 * earlier one (@ours_only) only our keys are read, so that
 * "-E journal_policy=stop ... -E journal_only" keeps its policy.
 */
static void parse_extended_opts(struct e2fsck_ctx *ctx, const char *opts,
				int ours_only)
{
	static const char *const plain[] = {
		"fragcheck", "discard", "nodiscard", "optimize_extents",
		"no_optimize_extents", "inode_count_fullmap",
		"no_inode_count_fullmap", "check_encoding",
	};
	char *buf = xstrdup(opts), *token, *next, *arg, *end;
	int bad = 0;
	size_t i;

	for (token = buf; token && *token; token = next) {
		next = strchr(token, ',');
		if (next)
			*next++ = 0;
		arg = strchr(token, '=');
		if (arg)
			*arg++ = 0;
		if (!strcmp(token, "journal_policy")) {
			if (!arg || ej_policy_parse(arg, &ctx->policy)) {
				fprintf(stderr,
					"Invalid journal policy: %s (replay-all, stop or refuse)\n",
					arg ? arg : "(none)");
				bad++;
			}
			ctx->policy_set = 1;
			continue;
		}
		if (!strcmp(token, "journal_report") ||
		    !strcmp(token, "journal_save")) {
			if (!arg || !*arg) {
				bad++;
				continue;
			}
			if (token[8] == 'r') {
				free(ctx->report_file);
				ctx->report_file = xstrdup(arg);
			} else {
				free(ctx->save_file);
				ctx->save_file = xstrdup(arg);
			}
			continue;
		}
		if (ours_only)
			continue;
		if (!strcmp(token, "ea_ver")) {
			unsigned long v = arg ? strtoul(arg, &end, 0) : 0;

			if (!arg) {
				bad++;
				continue;
			}
			if (*end || (v != 1 && v != 2)) {
				fprintf(stderr, "Invalid EA version.\n");
				bad++;
				continue;
			}
		} else if (!strcmp(token, "readahead_kb")) {
			if (!arg) {
				bad++;
				continue;
			}
			strtoull(arg, &end, 0);
			if (*end) {
				fprintf(stderr,
					"Invalid readahead buffer size.\n");
				bad++;
				continue;
			}
		} else if (!strcmp(token, "journal_only")) {
			if (arg) {
				bad++;
				continue;
			}
			ctx->options |= E2F_OPT_JOURNAL_ONLY;
		} else if (!strcmp(token, "log_filename") ||
			   !strcmp(token, "problem_log")) {
			if (!arg) {
				bad++;
				continue;
			}
		} else if (!strcmp(token, "bmap2extent")) {
			ctx->options |= E2F_OPT_CONVERT_BMAP;
		} else if (!strcmp(token, "fixes_only")) {
			ctx->options |= E2F_OPT_FIXES_ONLY;
		} else if (!strcmp(token, "unshare_blocks")) {
			ctx->options |= E2F_OPT_FORCE;
		} else {
			for (i = 0; i < ARRAY_SIZE(plain); i++)
				if (!strcmp(token, plain[i]))
					break;
			if (i == ARRAY_SIZE(plain)) {
				fprintf(stderr,
					"Unknown extended option: %s\n",
					token);
				bad++;
				continue;
			}
		}
		engine_key(ctx, token, arg);
	}
	free(buf);
	if (bad)
		extended_usage();
}

/*
 * A device as e2fsck takes it: a path as it is, a "TAG=value" looked up.
 * NULL if it cannot be found (the engine then says so, in e2fsck's words).
 */
static char *resolve_devname(const char *name)
{
	if (!strchr(name, '='))
		return xstrdup(name);
	return e2fsck_find_dev(name, NULL);
}

/* What the engine gets: the user's options minus -E, then ours. */
static void build_engine_argv(struct e2fsck_ctx *ctx, int nopts,
			      char *const *optc, char *const *optv)
{
	int i, n = 0, max = 2 * nopts + 10;
	char **v = xmalloc(max * sizeof(char *));
	char *opt = xmalloc(3 * nopts + 1);

	ctx->engine_flags = opt;
	v[n++] = (char *)ctx->program_name;
	for (i = 0; i < nopts; i++) {
		if (*optc[i] == 'E')
			continue;
		opt[0] = '-';
		opt[1] = *optc[i];
		opt[2] = 0;
		v[n++] = opt;
		opt += 3;
		if (optv[i])
			v[n++] = optv[i];
	}
	ctx->engine_argc = n;
	ctx->engine_argv = v;
	v[n] = NULL;
}

/* Finish the engine's argv once the journal phase has said its piece. */
static char **final_engine_argv(struct e2fsck_ctx *ctx)
{
	char **v = ctx->engine_argv;
	int n = ctx->engine_argc, force;

	if (ctx->engine_extended) {
		v[n++] = "-E";
		v[n++] = ctx->engine_extended;
	}
	/*
	 * A problem fixed before e2fsck's restart makes it check in full
	 * afterwards, as -f does; so does a journal the policy found damaged,
	 * unless only the journal was asked for (the error state it leaves
	 * forces the next check).
	 */
	force = ctx->flags & (E2F_FLAG_FORCE_ENGINE | E2F_FLAG_PROBLEMS_FIXED);
	if ((ctx->flags & E2F_FLAG_FLAGGED) &&
	    !(ctx->options & E2F_OPT_JOURNAL_ONLY))
		force = 1;
	if (force && !(ctx->options & E2F_OPT_FORCE))
		v[n++] = "-f";
	if (ctx->flags & E2F_FLAG_YES_TO_ALL)
		v[n++] = "-y";
	/*
	 * e2fsck names the device once, before its restart; a replay may
	 * have changed the label it took the name from.
	 */
	if ((ctx->flags & E2F_FLAG_ACTED) && !ctx->named && ctx->device_name) {
		v[n++] = "-N";
		v[n++] = ctx->device_name;
	}
	v[n++] = (char *)ctx->device_arg;
	v[n] = NULL;
	return v;
}

/*
 * A number where e2fsck reads one with sscanf(): leading blanks and a sign
 * allowed, anything after the digits ignored.
 */
static int number(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return end != s && !errno;
}

static void show_version(struct e2fsck_ctx *ctx)
{
	const char *ver, *date;

	ext2fs_get_library_version(&ver, &date);
	fprintf(stderr, "e2fsck %s (%s)\n", ver, date);
	fprintf(stderr, "\tUsing %s, %s\n", error_message(EXT2_ET_BASE),
		date);
	fprintf(stderr,
		"\tJournal phase: %s %s; passes 1-5: %s\n",
		PACKAGE_NAME, PACKAGE_VERSION, E2FSCK_ENGINE);
	exit(FSCK_OK);
}

/*
 * One option @c of the command line (its argument in optarg), as e2fsck
 * takes it; what e2fsck would refuse goes to the engine, which says so.
 * -E is read later, by parse_args().
 */
static void take_option(struct e2fsck_ctx *ctx, int c, char **argv,
			int *version)
{
	long long num;
	int fd;

	switch (c) {
	case 'C':
		if (!number(optarg, &num))
			exec_engine(ctx, argv);
		fd = num;
		if (fd < 0)
			fd = -fd;
		if (fd) {
			int d = dup(fd);

			if (d < 0)
				exec_engine(ctx, argv);
			close(d);
		}
		ctx->progress = 1;
		ctx->progress_fd = fd;
		break;
	case 'p':
	case 'a':
		if (ctx->options & (E2F_OPT_YES | E2F_OPT_NO))
			exec_engine(ctx, argv);
		ctx->options |= E2F_OPT_PREEN;
		break;
	case 'n':
		if (ctx->options & (E2F_OPT_YES | E2F_OPT_PREEN))
			exec_engine(ctx, argv);
		ctx->options |= E2F_OPT_NO;
		break;
	case 'y':
		if (ctx->options & (E2F_OPT_PREEN | E2F_OPT_NO))
			exec_engine(ctx, argv);
		ctx->options |= E2F_OPT_YES;
		break;
	case 'c':
		ctx->cflag++;
		break;
	case 'b':
		if (!number(optarg, &num))
			exec_engine(ctx, argv);
		ctx->superblock = num;
		break;
	case 'B':
		ctx->blocksize = atoi(optarg);
		break;
	case 'I':
	case 'P':
		if (!number(optarg, &num))
			exec_engine(ctx, argv);
		break;
	case 'j':
		ctx->journal_arg = optarg;
		free(ctx->journal_name);
		ctx->journal_name = resolve_devname(optarg);
		break;
	case 'L':
	case 'l':
		ctx->bad_blocks_file = 1;
		break;
	case 'f':
		ctx->options |= E2F_OPT_FORCE;
		break;
	case 'F':
		ctx->flush = 1;
		break;
	case 'V':
		*version = 1;
		break;
	case 'N':
		free(ctx->device_name);
		ctx->device_name = xstrdup(optarg);
		ctx->named = 1;
		break;
	case 'z':
		ctx->undo_file = optarg;
		break;
	case 'D':
		ctx->options |= E2F_OPT_COMPRESS_DIRS;
		break;
	case 'M':
	case 'S':
	case 's':
		/* e2fsck lists them but takes none of them */
		exec_engine(ctx, argv);
		break;
	default:
		break;
	}
}

/*
 * --help: e2fsck has none, so the engine says so and prints its usage
 * (its words, its exit status 16); then the -E keys of the journal phase,
 * which that usage cannot list.
 */
static _Noreturn void help_and_journal_keys(struct e2fsck_ctx *ctx,
					    char **argv)
{
	int status = 0;
	pid_t pid;

	check_engine(ctx);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execv(E2FSCK_ENGINE, argv);
		_exit(FSCK_ERROR);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		status = FSCK_ERROR;
	else
		status = WEXITSTATUS(status);
	fprintf(stderr, "\nJournal phase (e2jfsck(8), JOURNAL POLICIES):\n"
		" -E journal_policy=P  Damaged journal: replay-all (default),\n"
		"                      stop (as e2fsprogs 1.47) or refuse\n"
		" -E journal_report=F  Write the replay report to F as JSON\n"
		" -E journal_save=F    Save the journal to F before it is reset\n");
	exit(status);
}

/*
 * Parse the command line the way e2fsck does.  Any error e2fsck reports
 * before it reads -E is left to the engine, run with the very same
 * arguments, so that the message and exit code are e2fsck's.
 */
static void parse_args(struct e2fsck_ctx *ctx, int argc, char **argv)
{
	char **optc = xmalloc((argc + 1) * sizeof(char *));
	char **optv = xmalloc((argc + 1) * sizeof(char *));
	const char *extended = NULL;
	int nopts = 0, version = 0, c;
	char *name, *end;

	ctx->program_name = argc && argv[0] ? argv[0] : "e2fsck";
	if (!argc || !argv[0])
		usage(ctx);
	if (getenv("E2FSCK_FORCE_INTERACTIVE") || (isatty(0) && isatty(1)))
		ctx->interactive = 1;

	for (c = 1; c < argc && strcmp(argv[c], "--"); c++)
		if (!strcmp(argv[c], "--help"))
			help_and_journal_keys(ctx, argv);
	opterr = 0;
	while ((c = getopt(argc, argv, getopt_string)) != -1) {
		static const char letters[] = "panyrcCBdEfvtFVMbIjPlLNSsDkz";
		const char *letter = strchr(letters, c);

		if (c == '?' || c == ':' || !letter)
			exec_engine(ctx, argv);
		optc[nopts] = (char *)letter;
		optv[nopts++] = optarg;
		if (c == 'E')
			extended = optarg;
		else
			take_option(ctx, c, argv, &version);
	}
	if (version)
		show_version(ctx);
	if (optind != argc - 1)
		exec_engine(ctx, argv);
	if ((ctx->options & E2F_OPT_NO) &&
	    ((ctx->options & E2F_OPT_COMPRESS_DIRS) || ctx->cflag ||
	     ctx->bad_blocks_file))
		exec_engine(ctx, argv);
	if (ctx->options & E2F_OPT_NO)
		ctx->options |= E2F_OPT_READONLY;

	ctx->device_arg = argv[optind];
	name = xstrdup(argv[optind]);
	end = strchr(name, '?');
	if (end) {
		*end++ = 0;
		ctx->io_options = xstrdup(end);
	}
	ctx->filesystem_name = resolve_devname(name);
	free(name);
	if (!ctx->filesystem_name)
		exec_engine(ctx, argv);

	build_engine_argv(ctx, nopts, optc, optv);
	for (c = 0; c < nopts; c++)
		if (*optc[c] == 'E' && optv[c] != extended)
			parse_extended_opts(ctx, optv[c], 1);
	if (extended)
		parse_extended_opts(ctx, extended, 0);
	if (getenv("E2FSCK_FIXES_ONLY"))
		ctx->options |= E2F_OPT_FIXES_ONLY;
	if ((ctx->options & E2F_OPT_FIXES_ONLY) &&
	    (ctx->options & (E2F_OPT_COMPRESS_DIRS | E2F_OPT_CONVERT_BMAP)))
		exec_engine(ctx, final_engine_argv(ctx));
	if (ctx->cflag && ctx->bad_blocks_file)
		exec_engine(ctx, final_engine_argv(ctx));
	free(optc);
	free(optv);
}

/*
 * -F, as e2fsck does it before it opens the filesystem: flush the
 * device's buffers, and give up (exit 8) when that fails, as it does on
 * anything but a block device.  Nothing has been written yet.
 */
static void flush_device(struct e2fsck_ctx *ctx)
{
	errcode_t err;
	int fd;

	if (!ctx->flush)
		return;
	fd = open(ctx->filesystem_name, O_RDONLY);
	if (fd < 0) {
		com_err("open", errno, "while opening %s for flushing",
			ctx->filesystem_name);
		exit(FSCK_ERROR);
	}
	err = ext2fs_sync_device(fd, 1);
	close(fd);
	if (err) {
		com_err("ext2fs_sync_device", err,
			"while trying to flush %s", ctx->filesystem_name);
		exit(FSCK_ERROR);
	}
}

/* What the command line and the journal phase allocated. */
static void free_ctx(struct e2fsck_ctx *ctx)
{
	free(ctx->filesystem_name);
	free(ctx->io_options);
	free(ctx->device_name);
	free(ctx->journal_name);
	free(ctx->report_file);
	free(ctx->save_file);
	free(ctx->engine_argv);
	free(ctx->engine_flags);
	free(ctx->engine_extended);
	e2fsck_put_blkid();
	memset(ctx, 0, sizeof(*ctx));
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	struct e2fsck_ctx context;
	struct e2fsck_ctx *ctx = &context;
	enum e2f_journal_action action;
	int status;

	memset(ctx, 0, sizeof(*ctx));
	ctx->policy = JBD2_POLICY_REPLAY_ALL;
	setvbuf(stdout, NULL, _IONBF, BUFSIZ);
	setvbuf(stderr, NULL, _IONBF, BUFSIZ);
	add_error_table(&et_ext2_error_table);
	add_error_table(&et_ej_error_table);

	parse_args(ctx, argc, argv);
	check_engine(ctx);
	/* -E journal_policy= wins over e2fsck.conf */
	e2fsck_read_conf(ctx);
	if (ctx->conf_bad)
		exec_engine(ctx, final_engine_argv(ctx));

	/*
	 * Without -p, -n or -y e2fsck asks its questions on a terminal;
	 * without one it refuses to start.  Let it say so.
	 */
	if (!(ctx->options & (E2F_OPT_PREEN | E2F_OPT_NO | E2F_OPT_YES)) &&
	    !ctx->interactive)
		exec_engine(ctx, final_engine_argv(ctx));
	flush_device(ctx);

	e2fsck_catch_cancel(0);
	action = e2fsck_journal_phase(ctx);
	if (e2fsck_cancelled()) {
		/* e2fsck's check before pass 1: no word, exit 8 */
		e2fsck_banner(ctx);
		free_ctx(ctx);
		return FSCK_ERROR;
	}
	if (action == E2F_JOURNAL_DELEGATE && !(ctx->flags & E2F_FLAG_BANNER))
		exec_engine(ctx, final_engine_argv(ctx));
	if (action == E2F_JOURNAL_DONE)
		ctx->flags |= E2F_FLAG_ACTED;
	if (ctx->flags & E2F_FLAG_NO_ENGINE) {
		status = ctx->exit_value;
		free_ctx(ctx);
		return status;
	}

	status = run_engine_relayed(ctx, final_engine_argv(ctx));
	/*
	 * e2fsck adds "errors corrected" when a question was answered yes
	 * before its restart and the checked filesystem was then changed;
	 * bits the journal phase adds (the policy flagged corruption) stand
	 * unless the engine left errors uncorrected.
	 */
	if ((ctx->flags & E2F_FLAG_PROBLEMS_FIXED) && engine_said_modified)
		status |= FSCK_NONDESTRUCT;
	if (!(status & (FSCK_UNCORRECTED | FSCK_ERROR)))
		status |= ctx->exit_value;
	free_ctx(ctx);
	return status;
}
