/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdev.h: the second host of recovery.c, entirely in memory.
 *
 * A struct memdev is a block device made of one malloc'ed array; a
 * struct memhost puts a filesystem and a journal on memdevs and hands
 * recovery.c a journal_t whose block layer (struct jbd2_bdev_ops) and
 * host hooks (struct jbd2_host_ops) are these few functions.  No
 * libext2fs I/O is involved, which is the point: if recovery.c works
 * here and over jglue.c, the shim is its only coupling.
 */
#ifndef E2JOURNAL_TESTS_MEMDEV_H
#define E2JOURNAL_TESTS_MEMDEV_H

#include "ej_int.h"
#include "test/ej_test.h"

#define MEMDEV_MAX_FAIL		16

struct memdev {
	struct block_device	bdev;		/* bd_private points here */
	unsigned int		blocksize;
	unsigned long long	nr_blocks;
	unsigned char		*data;
	unsigned long		reads;		/* bread calls that succeeded */
	unsigned long		failed_reads;
	unsigned long		syncs;
	long			live_bh;	/* bread minus brelse */
	unsigned long long	fail[MEMDEV_MAX_FAIL];	/* unreadable blocks */
	unsigned int		nr_fail;
};

struct memdev *memdev_new(unsigned int blocksize,
			  unsigned long long nr_blocks);
void memdev_free(struct memdev *d);
unsigned char *memdev_block(struct memdev *d, unsigned long long blk);
/* Make bread of physical block @blk fail with -EIO. */
int memdev_fail_read(struct memdev *d, unsigned long long blk);

/*
 * A filesystem device and its journal: internal (the journal's logical
 * block i is block jbase + i of @fs) or external (@jdev, jbase usually 0).
 */
struct memhost {
	struct memdev		*fs;
	struct memdev		*jdev;		/* == fs when internal */
	unsigned long long	jbase;
	unsigned long		jlen;		/* journal blocks on the device */
	int			external;

	/* what replay did */
	unsigned long		replays;	/* replay calls */
	unsigned long		bad_replays;	/* refused: not block_ok */
	unsigned long long	first_bad;	/* the first such block */
	unsigned long		*writes;	/* per fs block */

	struct ej_report	report;
	struct ej_final_map	final;		/* journal->j_final */
	journal_t		*journal;
};

/* Set up the host; the journal area is left as the device holds it. */
int memhost_init(struct memhost *h, struct memdev *fs, struct memdev *jdev,
		 unsigned long long jbase, unsigned long jlen);
/* A sink for the writer onto the host's journal. */
void memhost_sink(struct memhost *h, struct ej_jsink *sink);
/*
 * Build h->journal from journal block 0 as recovery's host would: the
 * superblock, j_first/j_last/j_fc_*, the checksum seed, the revoke table,
 * the report.  Returns 0 or a negative errno.
 */
int memhost_load(struct memhost *h, int policy);
/* Free h->journal and everything memhost_load() made. */
void memhost_unload(struct memhost *h);
/* Unload, then free what memhost_init() made (not the devices). */
void memhost_fini(struct memhost *h);

/* Is @blk (physical, on h->fs) one a replay may write? */
int memhost_block_ok(const struct memhost *h, unsigned long long blk);

#endif /* E2JOURNAL_TESTS_MEMDEV_H */
