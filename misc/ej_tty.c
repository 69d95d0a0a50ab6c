// SPDX-License-Identifier: GPL-2.0
/*
 * ej_tty.c: what e2journal says to a person at a terminal: a progress bar
 * while a large journal is read or replayed blocks are written, and a
 * yes/no question before it writes what the policy would not.
 *
 * The bar is drawn on standard error, and only when that is a terminal:
 * pipes and logs get the report and nothing else.  E2FSPROGS_SKIP_PROGRESS
 * turns it off, as it does e2fsprogs' bars.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2journal_int.h"

#define BAR_WIDTH	40

void ej_bar_init(struct ej_bar *b, const char *label)
{
	memset(b, 0, sizeof(*b));
	b->label = label;
	b->permille = -1;
	b->on = isatty(STDERR_FILENO) && !getenv("E2FSPROGS_SKIP_PROGRESS");
}

static const char *pass_name(const struct ej_bar *b)
{
	switch (b->pass) {
	case EJ_PROGRESS_READ:
		return "reading the log";
	case EJ_PROGRESS_WRITE:
		return "writing blocks";
	}
	return b->label;
}

void ej_bar_update(struct ej_bar *b, unsigned long done, unsigned long total)
{
	char bar[BAR_WIDTH + 1];
	int permille, fill;

	if (!b->on || !total)
		return;
	if (done > total)
		done = total;
	permille = (int)((unsigned long long)done * 1000 / total);
	if (permille == b->permille)
		return;
	b->permille = permille;
	fill = permille * BAR_WIDTH / 1000;
	memset(bar, '=', fill);
	memset(bar + fill, ' ', BAR_WIDTH - fill);
	bar[BAR_WIDTH] = 0;
	fprintf(stderr, "\r%-16s |%s| %3d.%d%%", pass_name(b), bar,
		permille / 10, permille % 10);
	fflush(stderr);
	b->drawn = 1;
}

void ej_bar_progress(void *arg, unsigned long done, unsigned long total)
{
	struct ej_bar *b = arg;
	unsigned int pass = b->report ? b->report->progress_pass : 0;

	if (pass != b->pass) {
		/* a new pass starts its own bar */
		b->pass = pass;
		b->permille = -1;
	}
	ej_bar_update(b, done, total);
}

void ej_bar_done(struct ej_bar *b)
{
	if (!b->on || !b->drawn)
		return;
	fprintf(stderr, "\r%*s\r", BAR_WIDTH + 28, "");
	fflush(stderr);
	b->drawn = 0;
	b->permille = -1;
}

int ej_ask_yes(const char *question)
{
	char line[64];

	if (!isatty(STDIN_FILENO))
		return 0;
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}
