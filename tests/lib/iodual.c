// SPDX-License-Identifier: GPL-2.0
/*
 * iodual.c: run one of our programs twice, with the plain I/O engine and
 * with the fast one, from the same files, and compare what each did.
 *
 * Usage: iodual PROGRAM NAME [ARGS...]
 *
 * tests/io_engines.sh runs the j_* suite with this standing in for both
 * programs (run_jtests.sh with EJ_IO_DUAL=1 writes a two-line wrapper per
 * program that execs it).  The first run has E2JOURNAL_IO=plain (one
 * pread or pwrite per run of blocks, no thread, no io_uring), the second
 * the caller's environment (the fast engine unless it says otherwise).
 *
 * The files the command line names (every argument not starting with
 * '-', the part after the last '=' of "k=v" arguments, and the log of
 * E2JOURNAL_TEST_IO's "log=") are copied before the first run when they
 * are regular files or block devices.  After it, what it left is put
 * aside and the originals put back; a named file the run created is
 * moved aside.  After the second run, every such file, the exit status,
 * stdout and stderr must be as after the first.  The second run is the
 * one the caller sees.  Both runs get NAME (the path the test called) as
 * argv[0], so that messages name the program as they would without the
 * wrapper.  Each compared run adds a line "RUN <dir>: <command>" to
 * $EJ_IODUAL_LOG, and each difference a line
 * "DIFF <dir>: <command>: <what>".
 *
 * Only e2fsck and the e2journal commands that read a journal through the
 * library (replay, plan, dump, show, save) are run twice; anything else,
 * and any --help or -h, is exec'ed as it is.
 *
 * Two files are the same when their bytes are, but for what a journal
 * reset draws at random (e2fsck gives a recreated journal a random
 * s_sequence): the sequence and checksum fields of a journal superblock
 * (JBD2 magic and block type 3 or 4, at a multiple of 1 KiB).
 *
 * Time: both runs need the same clock, so when neither E2FSPROGS_FAKE_TIME
 * nor E2FSCK_TIME is set, both are set to now; e2journal, which reads only
 * libext2fs' E2FSPROGS_FAKE_TIME, gets it set to now when only
 * E2FSCK_TIME is.  Standard input, unless it is a terminal, is read once
 * and given to both runs.
 *
 * This was a shell script; in C it saves the dozen forks of cp, cmp,
 * mktemp and cat a run cost, on the ~3,000 runs make check compares.
 * It reads with read(), never pread64: tests trace their program's
 * pread64 calls (j_prefetch), and strace follows this process too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK		(1 << 20)
#define MAX_FILES	256

struct named {
	const char	*path;
	int		have;		/* a copy of it was made before */
};

static char tmp[PATH_MAX / 2];	/* the work directory: short enough for its names */
static struct named files[MAX_FILES];
static int nfiles;
static char diffs[8192];

static void tmp_path(char *buf, const char *what, int i)
{
	if (i >= 0)
		snprintf(buf, PATH_MAX, "%s/%s.%d", tmp, what, i);
	else
		snprintf(buf, PATH_MAX, "%s/%s", tmp, what);
}

static void add_diff(const char *fmt, const char *arg)
{
	size_t len = strlen(diffs);

	snprintf(diffs + len, sizeof(diffs) - len, "; ");
	len = strlen(diffs);
	snprintf(diffs + len, sizeof(diffs) - len, fmt, arg);
}

static int is_dev(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode);
}

/* Write @len bytes at @off of @fd, however many calls it takes. */
static int pwrite_all(int fd, const char *p, size_t len, off_t off)
{
	ssize_t n;

	for (; len; p += n, len -= n, off += n) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n <= 0)
			return -1;
	}
	return 0;
}

/*
 * Read up to @len bytes at @off: lseek and read, never pread64, so that a
 * test tracing its program's pread64 calls (j_prefetch counts the read
 * thread's large ones) sees none of ours.
 */
static ssize_t read_at(int fd, char *p, size_t len, off_t off)
{
	size_t got = 0;
	ssize_t n;

	if (lseek(fd, off, SEEK_SET) < 0)
		return -1;
	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static int all_zero(const char *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * Copy bytes [from, to) of @in to the same place in @out, leaving 4 KiB
 * pieces that are all zero unwritten when @sparse.
 */
static int copy_range(int in, int out, off_t from, off_t to, char *buf,
		      int sparse)
{
	while (from < to) {
		size_t want = to - from > CHUNK ? CHUNK : to - from;
		ssize_t n = read_at(in, buf, want, from);
		size_t at = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		while (at < (size_t)n) {
			size_t piece = n - at > 4096 ? 4096 : n - at;

			if ((!sparse || !all_zero(buf + at, piece)) &&
			    pwrite_all(out, buf + at, piece, from + at))
				return -1;
			at += piece;
		}
		from += n;
	}
	return 0;
}

/*
 * copy FROM TO: a regular file, sparse where it is zero (as cp
 * --sparse=always); a block device's bytes, or onto a block device in
 * place (as cat).
 */
static int copy(const char *from, const char *to)
{
	int in, out, dev, ret = -1;
	struct stat st;
	off_t pos = 0, size, data, hole;
	char *buf;

	dev = is_dev(from) || is_dev(to);
	in = open(from, O_RDONLY);
	if (in < 0)
		return -1;
	if (fstat(in, &st)) {
		close(in);
		return -1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 07777);
	buf = malloc(CHUNK);
	if (out < 0 || !buf)
		goto out;
	size = dev && S_ISBLK(st.st_mode) ? lseek(in, 0, SEEK_END) : st.st_size;
	while (pos < size) {
		data = dev ? pos : lseek(in, pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0)
			data = pos;
		hole = dev ? size : lseek(in, data, SEEK_HOLE);
		if (hole < 0 || hole > size)
			hole = size;
		if (copy_range(in, out, data, hole, buf, !dev))
			goto out;
		pos = hole;
	}
	if (!dev && ftruncate(out, size))
		goto out;
	ret = 0;
out:
	free(buf);
	if (out >= 0 && close(out))
		ret = -1;
	close(in);
	return ret;
}

static int move(const char *from, const char *to)
{
	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV || copy(from, to))
		return -1;
	return unlink(from);
}

/* Is the byte at @i inside a journal superblock's s_sequence or checksum? */
static int random_field(int a, int b, off_t i)
{
	static const unsigned char magic[4] = { 0xc0, 0x3b, 0x39, 0x98 };
	unsigned int at = i % 1024;
	unsigned char ha[8], hb[8];

	if (!((at >= 0x18 && at < 0x1c) || (at >= 0xfc && at < 0x100)))
		return 0;
	if (read_at(a, (char *)ha, 8, i - at) != 8 ||
	    read_at(b, (char *)hb, 8, i - at) != 8)
		return 0;
	return !memcmp(ha, magic, 4) && !memcmp(hb, magic, 4) &&
	       !memcmp(ha + 4, "\0\0\0", 3) && !memcmp(hb + 4, "\0\0\0", 3) &&
	       (ha[7] == 3 || ha[7] == 4) && (hb[7] == 3 || hb[7] == 4);
}

static off_t region_end(int fd, off_t pos, off_t size)
{
	off_t d = lseek(fd, pos, SEEK_DATA), e;

	if (d < 0 && errno == ENXIO)
		return size;		/* a hole to the end */
	if (d < 0)
		return size;		/* no holes known: all data */
	e = d > pos ? d : lseek(fd, pos, SEEK_HOLE);
	return e < 0 || e > size ? size : e;
}

static off_t next_data(int fd, off_t pos, off_t size)
{
	off_t d = lseek(fd, pos, SEEK_DATA);

	if (d < 0)
		return errno == ENXIO ? size : pos;
	return d;
}

static int compare_range(int a, int b, off_t from, off_t to, char *ba,
			 char *bb, int strict)
{
	while (from < to) {
		size_t want = to - from > CHUNK ? CHUNK : to - from;
		ssize_t na = read_at(a, ba, want, from);
		ssize_t nb = read_at(b, bb, want, from);
		ssize_t k;

		if (na != nb || na <= 0)
			return -1;
		if (memcmp(ba, bb, na)) {
			for (k = 0; k < na; k++)
				if (ba[k] != bb[k] && (strict ||
				    !random_field(a, b, from + k)))
					return -1;
		}
		from += na;
	}
	return 0;
}

/*
 * Are files @x and @y the same: byte for byte when @strict, else as the
 * header comment says?
 */
static int same(const char *x, const char *y, int strict)
{
	int a = open(x, O_RDONLY), b = open(y, O_RDONLY), ret = 0;
	off_t size, pos = 0, e, eb;
	char *ba = malloc(CHUNK), *bb = malloc(CHUNK);

	if (a < 0 || b < 0 || !ba || !bb)
		goto out;
	size = lseek(a, 0, SEEK_END);
	if (size < 0 || size != lseek(b, 0, SEEK_END))
		goto out;
	while (pos < size) {
		/* where either has data, compare; where both have holes, skip */
		off_t na = next_data(a, pos, size), nb = next_data(b, pos, size);

		pos = na < nb ? na : nb;
		if (pos >= size)
			break;
		e = region_end(a, pos, size);
		eb = region_end(b, pos, size);
		if (eb < e)
			e = eb;
		if (e <= pos)
			e = size;
		if (compare_range(a, b, pos, e, ba, bb, strict))
			goto out;
		pos = e;
	}
	ret = 1;
out:
	free(ba);
	free(bb);
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return ret;
}

static void add(const char *path)
{
	char orig[PATH_MAX];
	struct stat st;

	if (!*path || *path == '-' || nfiles == MAX_FILES)
		return;
	files[nfiles].path = path;
	files[nfiles].have = 0;
	if (stat(path, &st) == 0 && (S_ISREG(st.st_mode) ||
				     S_ISBLK(st.st_mode))) {
		tmp_path(orig, "orig", nfiles);
		if (copy(path, orig))
			return;		/* not compared */
		files[nfiles].have = 1;
	}
	nfiles++;
}

/* Run the program; its exit status as the shell gives it. */
static int run(const char *prog, char **argv, const char *in,
	       const char *out, const char *err, int plain)
{
	pid_t pid;
	int status, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 126;
	if (pid == 0) {
		if (plain)
			setenv("E2JOURNAL_IO", "plain", 1);
		fd = open(in, O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0)
			_exit(126);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		if (err)
			fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(prog, argv);
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 126;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Pass file @path on to @to (our stdout or stderr). */
static void cat(const char *path, FILE *to)
{
	FILE *in = fopen(path, "rb");
	char buf[65536];
	size_t n;

	if (!in)
		return;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			break;
	fclose(in);
	fflush(to);
}

static int joined_out(void)
{
	struct stat a, b;

	return fstat(1, &a) == 0 && fstat(2, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int needs_two(const char *prog, int argc, char **argv)
{
	static const char * const cmds[] = {
		"replay", "plan", "dump", "show", "save",
	};
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	int i, two = 0;

	if (!strcmp(base, "e2fsck"))
		two = 1;
	for (i = 0; !two && argc > 0 && i < 5; i++)
		if (!strcmp(base, "e2journal") && !strcmp(argv[0], cmds[i]))
			two = 1;
	for (i = 0; two && i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			two = 0;
	return two;
}

static void set_clock(const char *prog)
{
	const char *f = getenv("E2FSPROGS_FAKE_TIME");
	const char *e = getenv("E2FSCK_TIME");
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	char now[32];

	snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
	if ((!f || !*f) && (!e || !*e)) {
		setenv("E2FSPROGS_FAKE_TIME", now, 1);
		setenv("E2FSCK_TIME", now, 1);
	} else if ((!f || !*f) && !strcmp(base, "e2journal")) {
		setenv("E2FSPROGS_FAKE_TIME", now, 1);
	}
}

static void log_run(const char *prog, int argc, char **argv)
{
	const char *log = getenv("EJ_IODUAL_LOG");
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	char cwd[PATH_MAX];
	FILE *f;
	int pass, i;

	if (!log || !*log)
		return;
	f = fopen(log, "a");
	if (!f)
		return;
	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "?");
	for (pass = 0; pass < (diffs[0] ? 2 : 1); pass++) {
		fprintf(f, "%s %s: %s", pass ? "DIFF" : "RUN", cwd, base);
		for (i = 0; i < argc; i++)
			fprintf(f, " %s", argv[i]);
		if (pass)
			fprintf(f, ": %s", diffs + 2);
		fputc('\n', f);
	}
	fclose(f);
}

static void rm_tmp(void)
{
	char p[PATH_MAX];
	static const char * const names[] = {
		"stdin", "out.plain", "err.plain", "out.fast", "err.fast",
	};
	int i;

	for (i = 0; i < nfiles; i++) {
		tmp_path(p, "orig", i);
		unlink(p);
		tmp_path(p, "plain", i);
		unlink(p);
	}
	for (i = 0; i < 5; i++) {
		tmp_path(p, names[i], -1);
		unlink(p);
	}
	rmdir(tmp);
}

/* Stdin for both runs: what ours is, read once, unless a terminal. */
static int save_stdin(char *in)
{
	int fd;
	char buf[65536];
	ssize_t n;
	off_t at = 0;

	if (isatty(0)) {
		strcpy(in, "/dev/null");
		return 0;
	}
	tmp_path(in, "stdin", -1);
	fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	while ((n = read(0, buf, sizeof(buf))) > 0) {
		if (pwrite_all(fd, buf, n, at))
			break;
		at += n;
	}
	return close(fd);
}

/* Put the first run's files aside and the originals back. */
static void swap_back(void)
{
	char orig[PATH_MAX], plain[PATH_MAX];
	int i;

	for (i = 0; i < nfiles; i++) {
		tmp_path(orig, "orig", i);
		tmp_path(plain, "plain", i);
		if (files[i].have) {
			copy(files[i].path, plain);
			copy(orig, files[i].path);
		} else if (access(files[i].path, F_OK) == 0) {
			move(files[i].path, plain);
		}
	}
}

static void compare_files(void)
{
	char plain[PATH_MAX];
	int i, p, f;

	for (i = 0; i < nfiles; i++) {
		tmp_path(plain, "plain", i);
		p = access(plain, F_OK) == 0;
		f = access(files[i].path, F_OK) == 0;
		if (p && f && !same(plain, files[i].path, 0))
			add_diff("%s differs", files[i].path);
		else if (p != f)
			add_diff("%s made by one run only", files[i].path);
	}
}

int main(int argc, char **argv)
{
	char in[PATH_MAX], op[PATH_MAX], ep[PATH_MAX], of[PATH_MAX];
	char ef[PATH_MAX], rcs[64];
	const char *prog, *t, *io;
	int i, joined, rc_plain, rc;
	char **args;

	if (argc < 3) {
		fprintf(stderr, "usage: iodual PROGRAM NAME [ARGS...]\n");
		return 99;
	}
	prog = argv[1];
	args = argv + 2;		/* args[0] is NAME, the argv[0] */
	if (!needs_two(prog, argc - 3, argv + 3)) {
		execv(prog, args);
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		return 127;
	}
	set_clock(prog);
	t = getenv("TMPDIR");
	snprintf(tmp, sizeof(tmp), "%s/iodual.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp) || save_stdin(in)) {
		perror("iodual: temporary files");
		return 99;
	}
	for (i = 3; i < argc; i++) {
		const char *eq = strrchr(argv[i], '=');

		add(argv[i]);
		if (eq)
			add(eq + 1);
	}
	io = getenv("E2JOURNAL_TEST_IO");
	if (io && strstr(io, "log=")) {
		static char l[PATH_MAX];
		const char *s = io, *n;

		while ((n = strstr(s, "log=")))
			s = n + 4;
		snprintf(l, sizeof(l), "%.*s", (int)strcspn(s, ","), s);
		add(l);
	}

	joined = joined_out();
	tmp_path(op, "out.plain", -1);
	tmp_path(ep, "err.plain", -1);
	tmp_path(of, "out.fast", -1);
	tmp_path(ef, "err.fast", -1);
	rc_plain = run(prog, args, in, op, joined ? NULL : ep, 1);
	swap_back();
	rc = run(prog, args, in, of, joined ? NULL : ef, 0);
	cat(of, stdout);
	if (!joined)
		cat(ef, stderr);

	compare_files();
	if (rc != rc_plain) {
		snprintf(rcs, sizeof(rcs), "exit %d plain, %d fast", rc_plain,
			 rc);
		add_diff("%s", rcs);
	}
	if (!same(op, of, 1))
		add_diff("%s", "stdout differs");
	if (!joined && !same(ep, ef, 1))
		add_diff("%s", "stderr differs");
	log_run(prog, argc - 3, argv + 3);
	rm_tmp();
	return rc;
}
