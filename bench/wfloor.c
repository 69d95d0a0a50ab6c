// SPDX-License-Identifier: GPL-2.0
/*
 * wfloor.c - write the given runs into TARGET with O_DIRECT, DEPTH at a
 * time, and say how long it took: the write floor of bench/write-floor.sh.
 *
 * Reads "OFFSET LENGTH" lines (bytes) from stdin, writes zeros there
 * through Linux native AIO (io_submit; one thread, as replay's one
 * io_uring worker), keeping up to DEPTH writes in flight, then fsyncs.
 * Prints "writes S fsync S" (seconds, from the first submission).
 *
 * Usage: wfloor TARGET DEPTH < RUNS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <sys/syscall.h>

struct run {
	unsigned long long	off, len;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct iocb **free_cb;
static int nfree;

/* Wait for @min..@max writes to end; their control blocks become free. */
static int reap(aio_context_t ctx, long min, long max)
{
	struct io_event ev[256];
	long i, n;

	if (max > 256)
		max = 256;
	if (min > max)
		min = max;
	do {
		n = syscall(__NR_io_getevents, ctx, min, max, ev, NULL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		perror("wfloor: io_getevents");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		struct iocb *cb = (struct iocb *)(unsigned long)ev[i].obj;

		if (ev[i].res < 0 || (unsigned long long)ev[i].res != cb->aio_nbytes) {
			fprintf(stderr, "wfloor: a write ended with %lld\n",
				(long long)ev[i].res);
			exit(1);
		}
		free_cb[nfree++] = cb;
	}
	return (int)n;
}

int main(int argc, char **argv)
{
	struct run *runs = NULL;
	size_t nr = 0, max = 0, i;
	unsigned long long off, len, biggest = 0;
	aio_context_t ctx = 0;
	struct iocb *cbs, *cb;
	int fd, depth, inflight = 0;
	double t0, t1, t2;
	void *buf;

	if (argc != 3 || (depth = atoi(argv[2])) < 1 || depth > 4096) {
		fprintf(stderr, "usage: wfloor TARGET DEPTH < RUNS\n");
		return 2;
	}
	while (scanf("%llu %llu", &off, &len) == 2) {
		if (nr == max) {
			max = max ? 2 * max : 4096;
			runs = realloc(runs, max * sizeof(*runs));
			if (!runs)
				return 1;
		}
		runs[nr].off = off;
		runs[nr++].len = len;
		if (len > biggest)
			biggest = len;
	}
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (!biggest)
		biggest = 4096;
	if (posix_memalign(&buf, 4096, biggest))
		return 1;
	memset(buf, 0, biggest);
	cbs = calloc((size_t)depth, sizeof(*cbs));
	free_cb = calloc((size_t)depth, sizeof(*free_cb));
	if (!cbs || !free_cb)
		return 1;
	for (nfree = 0; nfree < depth; nfree++)
		free_cb[nfree] = &cbs[nfree];
	if (syscall(__NR_io_setup, depth, &ctx)) {
		perror("wfloor: io_setup");
		return 1;
	}
	t0 = now();
	for (i = 0; i < nr; i++) {
		struct iocb *one[1];

		if (!nfree)
			inflight -= reap(ctx, 1, depth);
		cb = free_cb[--nfree];
		memset(cb, 0, sizeof(*cb));
		cb->aio_fildes = fd;
		cb->aio_lio_opcode = IOCB_CMD_PWRITE;
		cb->aio_buf = (unsigned long)buf;
		cb->aio_nbytes = runs[i].len;
		cb->aio_offset = (long long)runs[i].off;
		one[0] = cb;
		if (syscall(__NR_io_submit, ctx, 1, one) != 1) {
			perror("wfloor: io_submit");
			return 1;
		}
		inflight++;
	}
	while (inflight)
		inflight -= reap(ctx, inflight, inflight);
	t1 = now();
	if (fsync(fd)) {
		perror("wfloor: fsync");
		return 1;
	}
	t2 = now();
	printf("writes %.4f fsync %.4f\n", t1 - t0, t2 - t1);
	syscall(__NR_io_destroy, ctx);
	close(fd);
	free(cbs);
	free(free_cb);
	free(buf);
	free(runs);
	return 0;
}
