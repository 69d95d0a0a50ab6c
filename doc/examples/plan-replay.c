/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * plan-replay IMAGE POLICY: plan, then replay, an image's journal.
 * Under the library's licence, so that any program linking it may start
 * from this one; C89 and C++ compile it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <e2journal.h>

int main(int argc, char **argv)
{
	struct ej_summary sum;
	struct ej_options opts;
	ej_image *img = NULL;
	char *text = NULL;
	errcode_t err;

	memset(&sum, 0, sizeof(sum));
	sum.size = sizeof(sum);
	ej_options_init(&opts, sizeof(opts));
	if (argc != 3 || ej_policy_parse(argv[2], &opts.policy)) {
		fprintf(stderr, "usage: plan-replay IMAGE replay-all|stop|refuse\n");
		return 16;
	}
	if (!(err = ej_image_open(argv[1], &opts, &img)) && !(err = ej_image_plan(img, &sum)))
		printf("plan: replay %lu of %lu transactions, write %lu blocks, skip %lu\n",
		       (unsigned long)sum.nr_txns_replayed,
		       (unsigned long)sum.nr_txns, sum.blocks_written,
		       sum.blocks_skipped);
	if (!err && sum.status != EJ_STATUS_EMPTY)
		err = ej_image_replay(img, &sum);
	if (!err && !(err = ej_image_report(img, EJ_REPORT_TEXT, &text)))
		fputs(text, stdout);
	free(text);
	if (err)
		fprintf(stderr, "%s: %s\n", argv[1], ej_error_message(err));
	else
		printf("%s: status %d, flagged 0x%x\n", argv[1], sum.status, sum.flagged);
	if (ej_image_close(img) || err)
		return 8;
	return sum.status == EJ_STATUS_REFUSED ? 4 : sum.status == EJ_STATUS_FLAGGED;
}
