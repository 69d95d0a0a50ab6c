// SPDX-License-Identifier: GPL-2.0
/*
 * api_test.c: the public API, through libe2journal.so and e2journal.h
 * only (tests/api/api.sh makes the image: a v3 journal, transactions
 * 1-3 logging blocks 3000-3003, 3002-3005 and 3100-3101, and transaction
 * 2's copy of 3003 with a bad checksum).
 *
 * Options and summary sizes, the errors a caller can meet, plan and its
 * report read back block by block, forcing and skipping a block, and a
 * replay whose result is read from the image file itself.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2journal.h"

static int fails, checks;

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond);	\
		fails++;						\
	}								\
} while (0)

/* The verdict of @tid's copy of @fsblock in the last report, or -1. */
static int verdict_of(const ej_image *img, uint32_t tid, uint64_t fsblock)
{
	struct ej_block b;
	size_t i;
	int v = -1;

	for (i = 0; i < ej_image_nr_blocks(img); i++) {
		if (ej_image_block(img, i, &b))
			return -2;
		if (b.tid == tid && b.fsblock == fsblock)
			v = b.verdict;
	}
	return v;
}

/* The first byte of fs block @blk (1 KiB blocks) in file @path. */
static int byte_of(const char *path, unsigned long blk)
{
	unsigned char c;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &c, 1, (off_t)blk * 1024);
	close(fd);
	return n == 1 ? c : -1;
}

static void test_options(const char *path)
{
	struct big {
		struct ej_options o;
		unsigned char later[16];	/* a newer program's fields */
	} big;
	struct ej_options o;
	ej_image *img = (ej_image *)&o;

	CHECK(ej_api_version() == EJ_API_VERSION);
	CHECK(ej_version()[0] != '\0');
	ej_options_init(&o, sizeof(o));
	CHECK(o.size == sizeof(o) && o.policy == EJ_POLICY_REPLAY_ALL &&
	      !o.journal && !o.flags);

	/* smaller than the first version's */
	o.size = offsetof(struct ej_options, message_arg) + sizeof(void *) - 1;
	CHECK(ej_image_open(path, &o, &img) == EJ_BAD_ARG && !img);
	ej_options_init(&o, sizeof(o));
	o.policy = 7;
	CHECK(ej_image_open(path, &o, &img) == EJ_BAD_ARG);
	ej_options_init(&o, sizeof(o));
	o.flags = 0x8000;
	CHECK(ej_image_open(path, &o, &img) == EJ_BAD_ARG);
	CHECK(ej_image_open(NULL, NULL, &img) == EJ_BAD_ARG);
	CHECK(ej_image_open(path, NULL, NULL) == EJ_BAD_ARG);

	/* a newer program: accepted while it uses nothing we lack */
	ej_options_init(&big.o, sizeof(big));
	big.o.flags = EJ_OPT_READONLY;
	CHECK(ej_image_open(path, &big.o, &img) == 0 && img);
	CHECK(ej_image_close(img) == 0);
	big.later[3] = 1;
	CHECK(ej_image_open(path, &big.o, &img) == EJ_BAD_ARG);

	CHECK(ej_image_open("/nonexistent/image", NULL, &img) != 0 && !img);
	CHECK(ej_image_close(NULL) == 0);

	CHECK(!strcmp(ej_error_message(EJ_READ_ONLY),
		      "Image opened read-only; replay needs it read-write"));
	CHECK(ej_policy_parse("bogus", &o.policy) == -1);
	CHECK(ej_policy_parse("refuse", &o.policy) == 0 &&
	      o.policy == EJ_POLICY_REFUSE);
	CHECK(!strcmp(ej_policy_name(EJ_POLICY_STOP), "stop"));
	CHECK(!strcmp(ej_verdict_name(EJ_VERDICT_BAD_CSUM), "bad_csum"));
	CHECK(!strcmp(ej_commit_status_name(EJ_COMMIT_OK), "ok"));
}

static void test_plan(const char *path)
{
	struct ej_summary sum = { .size = sizeof(sum) };
	struct ej_options o;
	struct ej_txn t;
	ej_image *img;
	char *text = NULL, *blocks = NULL;
	size_t i;

	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	CHECK(ej_image_open(path, &o, &img) == 0);
	if (!img)
		return;
	CHECK(ej_image_report(img, EJ_REPORT_TEXT, &text) == EJ_NO_REPORT);
	CHECK(ej_image_nr_txns(img) == 0);

	CHECK(ej_image_plan(img, &sum) == 0);
	CHECK(sum.status == EJ_STATUS_FLAGGED);
	CHECK(sum.flagged == EJ_FLAGGED_DATA_CSUM);
	CHECK(sum.nr_txns == 3 && sum.nr_txns_replayed == 3);
	CHECK(sum.blocks_written == 8 && sum.blocks_superseded == 1 &&
	      sum.blocks_skipped == 1 && sum.blocks_revoked == 0);
	CHECK(sum.start_tid == 1 && sum.recover_error == 0);
	CHECK(ej_image_nr_txns(img) == 3);
	for (i = 0; i < 3; i++) {
		CHECK(ej_image_txn(img, i, &t) == 0);
		CHECK(t.tid == i + 1 && t.replayed &&
		      t.status == EJ_COMMIT_OK);
	}
	CHECK(ej_image_txn(img, 3, &t) == EJ_BAD_ARG);
	CHECK(ej_image_nr_blocks(img) == 10);
	CHECK(verdict_of(img, 2, 3003) == EJ_VERDICT_BAD_CSUM);
	CHECK(verdict_of(img, 1, 3003) == EJ_VERDICT_REPLAYED);
	CHECK(verdict_of(img, 1, 3002) == EJ_VERDICT_SUPERSEDED);

	CHECK(ej_image_report(img, EJ_REPORT_TEXT, &text) == 0);
	CHECK(ej_image_report(img, EJ_REPORT_TEXT_BLOCKS, &blocks) == 0);
	CHECK(text && blocks && strlen(blocks) > strlen(text));
	free(text);
	free(blocks);
	CHECK(ej_image_report(img, EJ_REPORT_JSON, &text) == 0);
	CHECK(text && text[0] == '{' && strstr(text, "\"bad_csum\""));
	free(text);
	CHECK(ej_image_report(img, 99, &text) == EJ_BAD_ARG);

	/* a summary of an older program's size is filled that far only */
	{
		struct ej_summary s2;

		memset(&s2, 0xa5, sizeof(s2));
		s2.size = offsetof(struct ej_summary, flagged);
		CHECK(ej_image_plan(img, &s2) == 0);
		CHECK(s2.status == EJ_STATUS_FLAGGED &&
		      s2.flagged == 0xa5a5a5a5u);
		s2.size = 1;
		CHECK(ej_image_plan(img, &s2) == EJ_BAD_ARG);
	}

	/* forcing the bad block: the policy's skip is overridden */
	CHECK(ej_image_override(img, 2, 3003, 1) == 0);
	CHECK(ej_image_override(img, 2, 3003, 1) == 0);
	CHECK(ej_image_override(img, 2, 3003, 0) == EJ_BAD_OVERRIDE);
	CHECK(ej_image_plan(img, &sum) == 0);
	CHECK(verdict_of(img, 2, 3003) == EJ_VERDICT_REPLAYED);
	CHECK(verdict_of(img, 1, 3003) == EJ_VERDICT_SUPERSEDED);
	CHECK(sum.blocks_skipped == 0 && sum.blocks_written == 8);

	/* read-only: plans only */
	CHECK(ej_image_replay(img, &sum) == EJ_READ_ONLY);
	CHECK(ej_image_close(img) == 0);

	/* refuse: nothing would be replayed */
	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	o.policy = EJ_POLICY_REFUSE;
	CHECK(ej_image_open(path, &o, &img) == 0);
	CHECK(ej_image_plan(img, &sum) == 0);
	CHECK(sum.status == EJ_STATUS_REFUSED && sum.nr_txns_replayed == 0);
	CHECK(ej_image_txn(img, 0, &t) == 0 && !t.replayed);
	ej_image_close(img);

	/* upto: transaction 3 is not replayed */
	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY | EJ_OPT_UPTO;
	o.upto_tid = 2;
	CHECK(ej_image_open(path, &o, &img) == 0);
	CHECK(ej_image_plan(img, &sum) == 0);
	CHECK(verdict_of(img, 3, 3100) == EJ_VERDICT_NOT_REPLAYED);
	ej_image_close(img);

	/* an external journal that is not one: a load error */
	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	o.journal = "/dev/null";
	CHECK(ej_image_open(path, &o, &img) == 0);
	sum.recover_error = 12345;
	CHECK(ej_image_plan(img, &sum) != 0);
	CHECK(sum.recover_error == 0);
	CHECK(ej_image_report(img, EJ_REPORT_TEXT, &text) == EJ_NO_REPORT);
	ej_image_close(img);
}

static unsigned int nr_msgs;

static void count_msg(void *arg, const char *msg)
{
	(void)arg;
	if (strstr(msg, "3003"))
		nr_msgs++;
}

static unsigned long nr_read, nr_write;

static void count_progress(void *arg, int pass, uint64_t done, uint64_t total)
{
	(void)arg;
	if (done > total)
		nr_read = nr_write = 1000000;	/* fails the checks */
	else if (pass == EJ_PASS_READ)
		nr_read++;
	else if (pass == EJ_PASS_WRITE)
		nr_write++;
}

/* API version 2: ej_image_open2(), ej_policy_parse2(), older options. */
static void test_api2(const char *path)
{
	struct ej_summary sum = { .size = sizeof(sum) };
	struct ej_options o;
	ej_image *img = NULL;
	int policy = EJ_POLICY_STOP;

	CHECK(EJ_API_VERSION == 2);
	CHECK(ej_policy_parse2("bogus", &policy) == EJ_UNKNOWN_POLICY &&
	      policy == EJ_POLICY_STOP);
	CHECK(ej_policy_parse2(NULL, &policy) == EJ_BAD_ARG);
	CHECK(ej_policy_parse2("refuse", NULL) == EJ_BAD_ARG);
	CHECK(ej_policy_parse2("replay-all", &policy) == 0 &&
	      policy == EJ_POLICY_REPLAY_ALL);
	CHECK(!strcmp(ej_error_message(EJ_MOUNTED),
		      "Filesystem is mounted; it cannot be written"));

	/* a program built against API version 1: its smaller options */
	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	o.size = offsetof(struct ej_options, message_arg) + sizeof(void *);
	CHECK(ej_image_open(path, &o, &img) == 0 && img);
	ej_image_close(img);

	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	CHECK(ej_image_open2(path, NULL, &o, 8193, 0, NULL, &img) ==
	      EJ_BAD_ARG && !img);
	CHECK(ej_image_open2(path, NULL, &o, 0, 1024, NULL, &img) ==
	      EJ_BAD_ARG && !img);
	o.undo_file = "/nonexistent/undo";	/* undo: for writing only */
	CHECK(ej_image_open2(path, NULL, &o, 0, 0, NULL, &img) ==
	      EJ_BAD_ARG && !img);
	o.undo_file = NULL;
	/* the backup superblock of group 1, as e2fsck -b 8193 -B 1024 */
	o.progress_fn = count_progress;
	CHECK(ej_image_open2(path, NULL, &o, 8193, 1024, NULL, &img) == 0);
	if (!img)
		return;
	CHECK(ej_image_plan(img, &sum) == 0 && sum.nr_txns == 3);
	CHECK(nr_read > 0 && nr_read < 1000000 && nr_write == 0);
	ej_image_close(img);
}

/*
 * @path is mounted (@want EJ_MOUNTED) or held with O_EXCL by another
 * program (EJ_BUSY): no open for writing, by either call; read-only
 * only without EJ_OPT_CHECK_MOUNT.
 */
static void test_not_ours(const char *path, errcode_t want)
{
	struct ej_options o;
	ej_image *img = NULL;

	CHECK(ej_image_open(path, NULL, &img) == want && !img);
	ej_options_init(&o, sizeof(o));
	o.undo_file = "/nonexistent/undo";
	CHECK(ej_image_open2(path, NULL, &o, 0, 0, NULL, &img) == want &&
	      !img);
	ej_options_init(&o, sizeof(o));
	o.flags = EJ_OPT_READONLY;
	CHECK(ej_image_open(path, &o, &img) == 0 && img);
	ej_image_close(img);
	img = NULL;
	o.flags |= EJ_OPT_CHECK_MOUNT;
	CHECK(ej_image_open(path, &o, &img) == want && !img);
}

static void test_replay(const char *path, const char *undo)
{
	struct ej_summary sum = { .size = sizeof(sum) };
	struct ej_options o;
	ej_image *img;

	ej_options_init(&o, sizeof(o));
	o.message_fn = count_msg;
	/* what replay overwrites kept for e2undo (api.sh runs it) */
	o.undo_file = undo;
	o.progress_fn = count_progress;
	nr_read = nr_write = 0;
	CHECK(ej_image_open2(path, NULL, &o, 0, 0, NULL, &img) == 0);
	if (!img)
		return;
	/* keep transaction 3's 3100 out */
	CHECK(ej_image_override(img, 3, 3100, 0) == 0);
	CHECK(ej_image_replay(img, &sum) == 0);
	CHECK(sum.status == EJ_STATUS_FLAGGED);
	CHECK(nr_msgs >= 1);	/* recovery said what it skipped */
	CHECK(verdict_of(img, 3, 3100) == EJ_VERDICT_USER_SKIP);
	CHECK(sum.blocks_written == 7);
	CHECK(nr_read > 0 && nr_write > 0 && nr_write < 1000000);
	CHECK(ej_image_close(img) == 0);

	CHECK(byte_of(path, 3000) == 0x11);
	CHECK(byte_of(path, 3003) == 0x11);	/* tid 2's copy is bad */
	CHECK(byte_of(path, 3004) == 0x22);
	CHECK(byte_of(path, 3100) == 0x00);	/* skipped */
	CHECK(byte_of(path, 3101) == 0x33);

	/* replayed: nothing left */
	CHECK(ej_image_open(path, NULL, &img) == 0);
	CHECK(ej_image_plan(img, &sum) == 0);
	CHECK(sum.status == EJ_STATUS_EMPTY && sum.nr_txns == 0);
	CHECK(ej_image_replay(img, NULL) == 0);
	CHECK(ej_image_close(img) == 0);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--not-ours")) {
		/* tests/api/mounted.sh */
		test_not_ours(argv[3], !strcmp(argv[2], "mounted") ?
			      EJ_MOUNTED : EJ_BUSY);
		printf("%d checks, %d failed\n", checks, fails);
		return fails ? 1 : 0;
	}
	if (argc != 3) {
		fprintf(stderr,
			"usage: %s IMAGE UNDO|- (it is replayed)\n       %s --not-ours mounted|busy DEVICE\n",
			argv[0], argv[0]);
		return 99;
	}
	test_options(argv[1]);
	test_api2(argv[1]);
	test_plan(argv[1]);
	/* "-": no undo file (libext2fs 1.47's undo_io leaks under ASan) */
	test_replay(argv[1], strcmp(argv[2], "-") ? argv[2] : NULL);
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
