// SPDX-License-Identifier: GPL-2.0
/*
 * engine.c: running the engine, e2fsprogs' e2fsck, for passes 1-5:
 * refusing a copy of ourselves, handing it the whole run (exec), or
 * running it with its output relayed after ours (its banner dropped,
 * "FILE SYSTEM WAS MODIFIED" noted) and its signals forwarded.
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

/*
 * configure refuses an engine that carries this string, and so do we at
 * run time: it is how a copy of ourselves is recognised, whatever it is
 * called.  Looking for it in the engine keeps it in our own binary.
 */
static const char engine_marker[] = "e2journal_engine_marker";

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

void check_engine(struct e2fsck_ctx *ctx)
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
_Noreturn void exec_engine(struct e2fsck_ctx *ctx, char **argv)
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
int engine_said_modified;
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
int run_engine_relayed(struct e2fsck_ctx *ctx, char **argv)
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
