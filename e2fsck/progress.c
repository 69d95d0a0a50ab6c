// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c: e2fsck's -C during the journal phase.
 *
 * e2fsprogs' e2fsck says nothing while it replays a journal; on a
 * journal of a gigabyte at boot that is seconds of silence.  Ours reports
 * the replay the way e2fsck reports its passes:
 *   -C 0   a bar on standard output, redrawn in place ("\r"), between
 *          the \001 and \002 that logsave leaves out of its log, as
 *          e2fsck draws its own;
 *   -C fd  completion lines "PASS CURRENT MAX DEVICE" on the descriptor,
 *          as fsck(8) and systemd-fsck read them.  The journal phase is
 *          pass 0 (e2fsck's passes are 1-5, which the engine reports
 *          itself afterwards); CURRENT and MAX are in thousandths of the
 *          phase: reading the log is the first half, writing the replayed
 *          blocks the second.
 * At most one update every PROGRESS_TICK_MS, and always the last one.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2fsck.h"

#define PROGRESS_TICK_MS	100
#define PROGRESS_MAX		1000
#define PROGRESS_BAR_WIDTH	40

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return;		/* a closed pipe is no reason to stop */
		buf += n;
		len -= (size_t)n;
	}
}

static void draw(struct e2fsck_ctx *ctx, unsigned int permille)
{
	char line[256];
	int fill = (int)(permille * PROGRESS_BAR_WIDTH / PROGRESS_MAX);
	int n;

	if (ctx->progress_fd) {
		n = snprintf(line, sizeof(line), "0 %u %u %s\n", permille,
			     PROGRESS_MAX, ctx->device_name);
		if (n > 0 && (size_t)n < sizeof(line))
			put_all(ctx->progress_fd, line, (size_t)n);
		return;
	}
	/*
	 * As e2fsck draws its bars: between \001 and \002, which logsave
	 * leaves out of its log, the cursor back at the start after it.
	 */
	n = snprintf(line, sizeof(line), "\001%s: journal |%.*s%*s| %5.1f%%   \r\002",
		     ctx->device_name, fill,
		     "========================================", /* 40 */
		     PROGRESS_BAR_WIDTH - fill, "", permille / 10.0);
	if (n > 0 && (size_t)n < sizeof(line))
		put_all(STDOUT_FILENO, line, (size_t)n);
	ctx->progress_drawn = 1;
}

/* The library's callback: @done of @total in the current pass. */
static void journal_progress(void *arg, unsigned long done,
			     unsigned long total)
{
	struct e2fsck_ctx *ctx = arg;
	const struct ej_report *r = ctx->progress_report;
	unsigned int permille, half = PROGRESS_MAX / 2;
	long long t;

	if (!total)
		return;
	if (done > total)
		done = total;
	permille = (unsigned int)((unsigned long long)done * half / total);
	if (r->progress_pass == EJ_PROGRESS_WRITE)
		permille += half;
	if (permille <= ctx->progress_last && ctx->progress_last != ~0U)
		return;
	t = now_ms();
	if (permille < PROGRESS_MAX && ctx->progress_last != ~0U &&
	    t - ctx->progress_time < PROGRESS_TICK_MS)
		return;
	ctx->progress_last = permille;
	ctx->progress_time = t;
	draw(ctx, permille);
}

void e2f_progress_start(struct e2fsck_ctx *ctx, struct ej_report *r)
{
	if (!ctx->progress || ctx->rehearsal)
		return;
	ctx->progress_report = r;
	ctx->progress_last = ~0U;
	ctx->progress_time = 0;
	ej_report_on_progress(r, journal_progress, ctx);
}

void e2f_progress_end(struct e2fsck_ctx *ctx)
{
	struct ej_report *r = ctx->progress_report;
	char blank[256];
	size_t len;

	if (!r)
		return;
	/* the phase is over, whatever the passes reported */
	if (ctx->progress_last != PROGRESS_MAX)
		draw(ctx, PROGRESS_MAX);
	ej_report_on_progress(r, NULL, NULL);
	ctx->progress_report = NULL;
	if (!ctx->progress_drawn)
		return;
	/* as e2fsck clears its bar: blanks over it, back to the start */
	len = strlen(ctx->device_name) + PROGRESS_BAR_WIDTH + 24;
	if (len > sizeof(blank) - 4)
		len = sizeof(blank) - 4;
	blank[0] = '\001';
	memset(blank + 1, ' ', len);
	blank[len + 1] = '\r';
	blank[len + 2] = '\002';
	put_all(STDOUT_FILENO, blank, len + 3);
	ctx->progress_drawn = 0;
}
