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
 * The copy is written by the library's ej_saved_write() (the format,
 * E2JSAVE1, is struct ej_saved_header in e2journal.h), as "e2fsck -E
 * journal_save=" writes it: a header block with the filesystem's UUID,
 * the block size and the number of journal blocks, then every block of
 * the journal's space in the journal's own numbering.  The journal is
 * saved however damaged it is: it is opened with EJ_OPEN_NO_CHECK and
 * nothing is written to the image.
 */
#include <getopt.h>
#include <stdio.h>

#include <et/com_err.h>

#include "e2journal_int.h"

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

static void save_progress(void *arg, unsigned long long done,
			  unsigned long long total)
{
	ej_bar_update(arg, (unsigned long)done, (unsigned long)total);
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
	struct ej_saved_stats st;
	journal_t *journal = NULL;
	ext2_filsys fs = NULL;
	const char *image, *out;
	unsigned long long nr, b, bad = 0;
	struct ej_bar bar;
	unsigned int bs;
	errcode_t err;
	int opt, ret = EJ_EXIT_OPERATIONAL;

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

	ej_bar_init(&bar, "saving");
	/* never overwrite: the file may be the only copy of an old journal */
	err = ej_saved_write(journal, out, EJ_SAVE_EXCL, save_progress, &bar,
			     &st);
	ej_bar_done(&bar);
	for (b = 0; b < st.nr_bad && b < EJ_SAVED_BAD_LISTED; b++)
		fprintf(stderr,
			"%s: journal block %llu unreadable; saved as zeros\n",
			ej_prog, st.bad[b]);
	if (err) {
		com_err(ej_prog, err, "while writing %s", out);
		goto out;
	}
	bad = st.nr_bad;

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
	if (journal)
		ej_journal_close(journal);
	ext2fs_close_free(&fs);
	return ret;
}
