// SPDX-License-Identifier: GPL-2.0
/* plan-replay IMAGE POLICY: plan, then replay, an image's journal. */
#include <stdio.h>
#include <stdlib.h>
#include <e2journal.h>

int main(int argc, char **argv)
{
	static const int exit_code[] = { 0, 0, 1, 4 };	/* by ej_status */
	struct ej_summary sum = { .size = sizeof(sum) };
	struct ej_options opts;
	ej_image *img = NULL;
	char *text = NULL;
	errcode_t err;

	ej_options_init(&opts, sizeof(opts));
	if (argc != 3 || ej_policy_parse(argv[2], &opts.policy)) {
		fprintf(stderr, "usage: %s IMAGE replay-all|stop|refuse\n", argv[0]);
		return 16;
	}
	err = ej_image_open(argv[1], &opts, &img);
	if (!err && !(err = ej_image_plan(img, &sum)))
		printf("plan: replay %zu of %zu transactions, write %lu blocks, skip %lu\n",
		       sum.nr_txns_replayed, sum.nr_txns, sum.blocks_written, sum.blocks_skipped);
	if (!err && sum.status != EJ_STATUS_EMPTY)
		err = ej_image_replay(img, &sum);
	if (!err && !(err = ej_image_report(img, EJ_REPORT_TEXT, &text)))
		fputs(text, stdout);
	free(text);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], ej_error_message(err));
		ej_image_close(img);
		return 8;
	}
	printf("%s: status %d, flagged 0x%x\n", argv[1], sum.status, sum.flagged);
	return ej_image_close(img) ? 8 : exit_code[sum.status];
}
