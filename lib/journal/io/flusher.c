// SPDX-License-Identifier: LGPL-2.0
/*
 * flusher.c: start writeback of replayed blocks while replay goes on.
 *
 * Replay writes its blocks in ascending order and flushes once at the
 * end.  Left alone, the kernel starts writing them back only then (or
 * once the dirty threshold, gigabytes on a large machine, is reached),
 * so the final flush waits for all of them.  A second thread asks the
 * kernel, with sync_file_range(SYNC_FILE_RANGE_WRITE), to start writing
 * back each stretch below the replay's write position as it passes:
 * the device works while replay reads and writes the next stretch, and
 * the work of submitting writeback runs on another CPU.
 *
 * It is a hint and nothing more: it never waits for, orders or reports
 * anything, and the final flush still decides what is durable.  It uses
 * its own read-only descriptor on the filesystem's device and never
 * touches the io_channel, which stays with the caller's thread.  When
 * anything is missing (no such call, no thread, a device it cannot open)
 * there is no flusher and replay flushes everything at the end, as
 * before.
 */
#define _GNU_SOURCE
#include "ej_io.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#define EJ_FLUSH_STEP	(8ULL * 1024 * 1024)	/* bytes per hint */

struct ej_flusher {
	pthread_t		thread;
	pthread_mutex_t		lock;
	pthread_cond_t		wake;
	int			fd;
	int			stop;
	unsigned long long	mark;		/* written below this byte */
	unsigned long long	done;		/* hinted below this byte */
};

static void *flusher_main(void *arg)
{
	struct ej_flusher *f = arg;
	unsigned long long from, to;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->stop && f->mark - f->done < EJ_FLUSH_STEP)
			pthread_cond_wait(&f->wake, &f->lock);
		if (f->stop)
			break;
		from = f->done;
		to = f->mark;
		f->done = to;
		pthread_mutex_unlock(&f->lock);
#ifdef SYNC_FILE_RANGE_WRITE
		/* a hint: an error here changes nothing the flush decides */
		(void)sync_file_range(f->fd, (off_t)from, (off_t)(to - from),
				      SYNC_FILE_RANGE_WRITE);
#endif
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

struct ej_flusher *ej_flusher_start(const char *path)
{
	struct ej_flusher *f;

#ifndef SYNC_FILE_RANGE_WRITE
	return NULL;
#endif
	if (!path)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		goto fail;
	if (pthread_mutex_init(&f->lock, NULL))
		goto fail_fd;
	if (pthread_cond_init(&f->wake, NULL))
		goto fail_lock;
	if (pthread_create(&f->thread, NULL, flusher_main, f))
		goto fail_cond;
	return f;

fail_cond:
	pthread_cond_destroy(&f->wake);
fail_lock:
	pthread_mutex_destroy(&f->lock);
fail_fd:
	close(f->fd);
fail:
	free(f);
	return NULL;
}

/* Everything replay will write below byte @end has been written. */
void ej_flusher_mark(struct ej_flusher *f, unsigned long long end)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	if (end > f->mark) {
		f->mark = end;
		if (f->mark - f->done >= EJ_FLUSH_STEP)
			pthread_cond_signal(&f->wake);
	}
	pthread_mutex_unlock(&f->lock);
}

void ej_flusher_stop(struct ej_flusher *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	close(f->fd);
	free(f);
}
