// SPDX-License-Identifier: GPL-2.0
/*
 * ej_save.c: e2journal save IMAGE OUT [-j EXTERNAL_JOURNAL]
 *
 * Keeps a raw copy of the journal before anything touches it: once the
 * journal is replayed and reset (or overwritten by the next mount), what
 * it held is gone, and with it any chance of deciding block by block
 * afterwards.  "e2journal replay IMAGE --from OUT" (and "show --from")
 * read the copy instead of the journal on disk.
 *
 * The copy (struct ej_saved_header in e2journal.h): a header block with
 * the magic "E2JSAVE1", the filesystem's UUID, the block size and the
 * number of journal blocks, then every block of the journal's space in
 * the journal's own numbering (block 0 is the journal superblock of an
 * internal journal).  The journal is saved however damaged it is: it is
 * opened with EJ_OPEN_NO_CHECK and nothing is written to the image.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>

#include "e2journal_int.h"

#define SAVE_BATCH	256	/* blocks per write() */

static void save_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s save [-j external_journal] IMAGE OUT\n\n"
		"Copy the whole journal of IMAGE, damaged or not, into the new\n"
		"file OUT, for 'replay --from OUT' or 'show --from OUT' after the\n"
		"journal on disk is reset or overwritten.\n\n"
		"  -j, --journal DEV    external journal device or image\n"
		"  -h, --help           this text\n", ej_prog);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ej_cmd_save(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal",	required_argument,	NULL, 'j' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ej_open_opts opts = { .policy = JBD2_POLICY_REPLAY_ALL };
	const struct ej_journal_info *info;
	const journal_superblock_t *jsb;
	struct ej_saved_header *hdr;
	journal_t *journal = NULL;
	ext2_filsys fs = NULL;
	const char *image, *out;
	unsigned long long nr, b, bad = 0;
	struct ej_bar bar;
	char *buf = NULL;
	unsigned int bs;
	size_t fill = 0;
	errcode_t err;
	int fd = -1, opt, ret = EJ_EXIT_OPERATIONAL;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.ext_journal = optarg;
			break;
		case 'h':
			save_usage(stdout);
			return EJ_EXIT_OK;
		default:
			save_usage(stderr);
			return EJ_EXIT_USAGE;
		}
	}
	if (optind != argc - 2) {
		save_usage(stderr);
		return EJ_EXIT_USAGE;
	}
	image = argv[optind];
	out = argv[optind + 1];

	if (ej_open_image(image, EXT2_FLAG_SKIP_MMP, unix_io_manager, &fs))
		return EJ_EXIT_OPERATIONAL;
	opts.flags = EJ_OPEN_READONLY | EJ_OPEN_NO_CHECK;
	err = ej_journal_open(fs, &opts, &journal);
	if (err) {
		com_err(ej_prog, err, "while loading the journal of %s", image);
		goto out;
	}
	info = ej_journal_info(journal);
	jsb = journal->j_superblock;
	bs = fs->blocksize;
	nr = info->nr_blocks;

	buf = calloc(SAVE_BATCH, bs);
	if (!buf) {
		com_err(ej_prog, ENOMEM, "while saving the journal");
		goto out;
	}
	/* never overwrite: the file may be the only copy of an old journal */
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		com_err(ej_prog, errno, "while creating %s", out);
		goto out;
	}

	hdr = (struct ej_saved_header *)buf;
	hdr->version = EJ_SAVED_VERSION;
	hdr->header_size = bs;
	hdr->block_size = bs;
	hdr->flags = info->external ? EJ_SAVED_EXTERNAL : 0;
	hdr->nr_blocks = nr;
	hdr->sb_block = info->external ? info->sb_block : 0;
	memcpy(hdr->fs_uuid, fs->super->s_uuid, sizeof(hdr->fs_uuid));
	memcpy(hdr->journal_uuid, jsb->s_uuid, sizeof(hdr->journal_uuid));
	hdr->saved_time = (__u64)time(NULL);
	hdr->ino = info->external ? 0 : info->ino;
	ej_saved_header_seal(hdr);
	if (write_all(fd, buf, bs)) {
		com_err(ej_prog, errno, "while writing %s", out);
		goto out;
	}
	memset(buf, 0, bs);

	ej_bar_init(&bar, "saving");
	for (b = 0; b < nr; b++) {
		char *dst = buf + fill * bs;

		if (ej_journal_read_block(journal, (unsigned long)b, dst)) {
			/* keep the place: later blocks stay where they were */
			memset(dst, 0, bs);
			if (!bad)
				ej_bar_done(&bar);
			if (bad < 10)
				fprintf(stderr,
					"%s: journal block %llu unreadable; saved as zeros\n",
					ej_prog, b);
			bad++;
		}
		if (++fill == SAVE_BATCH || b + 1 == nr) {
			if (write_all(fd, buf, fill * bs)) {
				ej_bar_done(&bar);
				com_err(ej_prog, errno, "while writing %s",
					out);
				goto out;
			}
			fill = 0;
			ej_bar_update(&bar, (unsigned long)(b + 1),
				      (unsigned long)nr);
		}
	}
	ej_bar_done(&bar);
	if (fsync(fd) || close(fd)) {
		fd = -1;
		com_err(ej_prog, errno, "while writing %s", out);
		goto out;
	}
	fd = -1;

	printf(
	       "Saved the journal of %s to %s: %llu blocks of %u bytes (%s journal, log start %u, sequence %u)\n",
	       image, out, nr,
	       bs, info->external ? "external" : "internal",
	       be32_to_cpu(jsb->s_start), be32_to_cpu(jsb->s_sequence));
	if (bad) {
		fprintf(stderr,
			"%s: %llu journal block%s could not be read and %s zeros in %s\n",
			ej_prog, bad,
			bad == 1 ? "" : "s", bad == 1 ? "is" : "are", out);
		goto out;
	}
	ret = EJ_EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (journal)
		ej_journal_close(journal);
	ext2fs_close_free(&fs);
	return ret;
}
