// SPDX-License-Identifier: GPL-2.0
/*
 * unix.c: e2journal's e2fsck: the command line, the journal phase, and
 * the hand-off to the engine (e2fsprogs' e2fsck) for passes 1-5.
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

/*
 * configure refuses an engine that carries this string, and so do we at
 * run time: it is how a copy of ourselves is recognised, whatever it is
 * called.  Looking for it in the engine keeps it in our own binary.
 */
static const char engine_marker[] = "e2journal_engine_marker";

static const char getopt_string[] =
	"panyrcC:B:dE:fvtFVM:b:I:j:P:l:L:N:SsDkz:";

/* ------------------------------------------------------------------ */
/* The engine                                                          */

/* Does the file at @path carry our marker (is it one of us)? */
static int carries_marker(const char *path)
{
	size_t n = sizeof(engine_marker) - 1, keep = 0;
	char buf[65536 + sizeof(engine_marker)];
	int fd, found = 0;
	ssize_t got;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	while (!found && (got = read(fd, buf + keep, 65536)) > 0) {
		size_t len = keep + got;

		found = memmem(buf, len, engine_marker, n) != NULL;
		keep = len < n - 1 ? len : n - 1;
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return found;
}

/* 0 if E2FSCK_ENGINE may run, else a message saying why not. */
static const char *engine_refused(void)
{
	struct stat eng, self;

	if (access(E2FSCK_ENGINE, X_OK))
		return "is not an executable program";
	if (stat(E2FSCK_ENGINE, &eng))
		return "cannot be examined";
	if (!stat("/proc/self/exe", &self) && eng.st_dev == self.st_dev &&
	    eng.st_ino == self.st_ino)
		return "is this program itself";
	if (carries_marker(E2FSCK_ENGINE))
		return "is e2journal's own e2fsck, not e2fsprogs'";
	return NULL;
}

static void check_engine(struct e2fsck_ctx *ctx)
{
	const char *why = engine_refused();

	if (!why)
		return;
	log_err(ctx, "%s: the full-check engine %s %s; cannot check %s\n",
		ctx->program_name, E2FSCK_ENGINE, why,
		ctx->device_arg ? ctx->device_arg : "the filesystem");
	exit(FSCK_ERROR);
}

/* Hand the whole run to the engine: it prints and returns everything. */
static _Noreturn void exec_engine(struct e2fsck_ctx *ctx, char **argv)
{
	check_engine(ctx);
	fflush(NULL);
	execv(E2FSCK_ENGINE, argv);
	log_err(ctx, "%s: cannot run %s: %s\n", ctx->program_name,
		E2FSCK_ENGINE, strerror(errno));
	exit(FSCK_ERROR);
}

/*
 * What the relay looks for in the engine's output: its banner (dropped,
 * ours came first) and whether it reported a modified filesystem.
 */
struct relay {
	int		in;		/* from the engine; -1: EOF */
	int		out;		/* where it goes */
	int		drop_banner;	/* first line not judged yet */
	char		line[256];	/* the first line, while judged */
	size_t		line_len;
	int		watch;		/* look for "MODIFIED" */
	char		tail[64];	/* last bytes seen, across reads */
	size_t		tail_len;
};

static const char modified_msg[] = "***** FILE SYSTEM WAS MODIFIED *****";
static int engine_said_modified;
static pid_t engine_pid;	/* read by forward_signal() */

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= n;
	}
}

static int is_banner(const char *line, size_t len)
{
	return len > 9 && !strncmp(line, "e2fsck ", 7) &&
	       memchr(line, '(', len) && line[len - 2] == ')';
}

static void relay_watch(struct relay *r, const char *buf, size_t len)
{
	size_t keep = sizeof(modified_msg) - 2;
	char joined[sizeof(r->tail) + 4096];

	while (len) {
		size_t n = len < 4096 ? len : 4096, tot = r->tail_len + n;

		memcpy(joined, r->tail, r->tail_len);
		memcpy(joined + r->tail_len, buf, n);
		if (memmem(joined, tot, modified_msg, sizeof(modified_msg) - 1))
			engine_said_modified = 1;
		r->tail_len = tot < keep ? tot : keep;
		memcpy(r->tail, joined + tot - r->tail_len, r->tail_len);
		buf += n;
		len -= n;
	}
}

static void relay_chunk(struct relay *r, char *buf, size_t len)
{
	if (r->watch)
		relay_watch(r, buf, len);
	while (r->drop_banner && len) {
		char c = *buf++;

		len--;
		if (r->line_len < sizeof(r->line))
			r->line[r->line_len++] = c;
		if (c != '\n' && r->line_len < sizeof(r->line))
			continue;
		r->drop_banner = 0;
		if (!is_banner(r->line, r->line_len))
			write_all(r->out, r->line, r->line_len);
	}
	if (len)
		write_all(r->out, buf, len);
}

static void relay_flush(struct relay *r)
{
	if (r->drop_banner && r->line_len)
		write_all(r->out, r->line, r->line_len);
	r->drop_banner = 0;
}

static void forward_signal(int sig)
{
	if (engine_pid > 0)
		kill(engine_pid, sig);
}

static int same_file(int a, int b)
{
	struct stat sa, sb;

	if (fstat(a, &sa) || fstat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Run the engine as a child whose output goes through us: its banner is
 * dropped (ours is out already) and its stdout is watched for the
 * "MODIFIED" line.  When our stdout and stderr are one file, the child
 * gets one pipe for both, so that the order of its lines is kept.  A
 * terminal on stdout stays the child's own: e2fsck asks questions only
 * when stdin and stdout are terminals.
 */
static int run_engine_relayed(struct e2fsck_ctx *ctx, char **argv)
{
	struct relay rel[2];
	int nrel = 0, merged, out_is_tty = isatty(1);
	int pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	struct sigaction sa, old_int, old_quit;
	int sigs[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	int status, i;
	pid_t pid;

	check_engine(ctx);
	merged = !out_is_tty && same_file(1, 2);
	if (pipe(perr) || (!out_is_tty && !merged && pipe(pout))) {
		log_err(ctx, "%s: pipe: %s\n", ctx->program_name,
			strerror(errno));
		exit(FSCK_ERROR);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		log_err(ctx, "%s: fork: %s\n", ctx->program_name,
			strerror(errno));
		exit(FSCK_ERROR);
	}
	if (pid == 0) {
		if (merged) {
			dup2(perr[1], 1);
		} else if (pout[1] >= 0) {
			dup2(pout[1], 1);
			close(pout[0]);
			close(pout[1]);
		}
		dup2(perr[1], 2);
		close(perr[0]);
		close(perr[1]);
		execv(E2FSCK_ENGINE, argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", ctx->program_name,
			E2FSCK_ENGINE, strerror(errno));
		_exit(FSCK_ERROR);
	}
	engine_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < (int)ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);

	memset(rel, 0, sizeof(rel));
	close(perr[1]);
	rel[nrel].in = perr[0];
	rel[nrel].out = merged ? 1 : 2;
	rel[nrel].drop_banner = !(ctx->options & E2F_OPT_PREEN);
	rel[nrel].watch = merged;
	nrel++;
	if (pout[0] >= 0) {
		close(pout[1]);
		rel[nrel].in = pout[0];
		rel[nrel].out = 1;
		rel[nrel].watch = 1;
		nrel++;
	}
	for (;;) {
		struct pollfd pfd[2];
		int n = 0, map[2];

		for (i = 0; i < nrel; i++) {
			if (rel[i].in < 0)
				continue;
			pfd[n].fd = rel[i].in;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
		if (!n)
			break;
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			struct relay *r = &rel[map[i]];
			char buf[4096];
			ssize_t got;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(r->in, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				relay_flush(r);
				close(r->in);
				r->in = -1;
				continue;
			}
			relay_chunk(r, buf, got);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	engine_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	log_err(ctx, "%s: %s was killed by signal %d\n", ctx->program_name,
		E2FSCK_ENGINE, WTERMSIG(status));
	return FSCK_ERROR;
}

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
