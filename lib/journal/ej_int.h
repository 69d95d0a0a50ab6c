/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * ej_int.h: what the library's own files share and callers never see.
 *
 * The host keeps the final version of each replayed block (finalmap.c)
 * for its write phase (fsdev.c), and jopen.c builds the host that jglue.c
 * serves.  report.c and finalmap.c must stay free of io_channel I/O: the
 * unit tests link them with their in-memory host (tests/unit/memdev.c)
 * instead.
 */
#ifndef E2JOURNAL_EJ_INT_H
#define E2JOURNAL_EJ_INT_H

#include "ej_lib.h"
#include "ej_fc.h"

/*
 * An ext2 superblock read raw from a device is little-endian; libext2fs
 * keeps fs->super in host order.  Turn a raw copy into host order.
 */
static inline void ej_super_to_cpu(struct ext2_super_block *sb)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	ext2fs_swap_super(sb);
#else
	(void)sb;
#endif
}

/* And a host-order copy into disk order (the swap is its own inverse). */
static inline void ej_super_to_disk(struct ext2_super_block *sb)
{
	ej_super_to_cpu(sb);
}

/* ------------------------------------------------------------------ */
/* finalmap.c: the final-version map, owned by the host              */

/* The version of one fs block that replay must leave on disk. */
struct ej_final_block {
	unsigned long long	fsblock;
	unsigned long		jblock;		/* logical journal block */
	unsigned int		escape;		/* restore the magic */
};

struct ej_final_slot;

/* fs block -> its latest REPLAYED version; all zero when empty */
struct ej_final_map {
	struct ej_final_slot	*slots;
	size_t			cap;		/* power of two, or 0 */
	size_t			used;
	unsigned int		bits;
};

/* no entry: what ej_final_map_note() says when nothing is superseded */
#define EJ_FINAL_NONE	((size_t)-1)

/*
 * Note that @fsblock's latest REPLAYED version is journal block @jblock;
 * @entry, anything but EJ_FINAL_NONE, is the caller's (report.c: its
 * blocks[] index).  *older is the
 * entry of the version this one supersedes, or EJ_FINAL_NONE.  0, or
 * -ENOMEM with the map unchanged.
 */
int ej_final_map_note(struct ej_final_map *m, unsigned long long fsblock,
		      unsigned long jblock, int escape, size_t entry,
		      size_t *older);
/*
 * Every fs block whose latest logged version is REPLAYED, sorted by fs
 * block.  *out is malloc'ed (NULL when *nr is 0).
 */
errcode_t ej_final_map_blocks(const struct ej_final_map *m,
			      struct ej_final_block **out, size_t *nr);
void ej_final_map_free(struct ej_final_map *m);

/* ------------------------------------------------------------------ */
/* verdict.c: each logged block's final verdict, decided in one place  */

/* Why the final verdict is what it is. */
enum ej_verdict_why {
	EJ_WHY_POLICY = 0,	/* recovery.c's verdict stands */
	EJ_WHY_UPTO,		/* its transaction is after --upto's */
	EJ_WHY_USER_SKIP,	/* an override skips it */
	EJ_WHY_USER_FORCE,	/* an override writes it */
	EJ_WHY_RANGE,		/* outside the filesystem or in the journal */
	EJ_WHY_NO_DATA,		/* its log block could not be read */
	EJ_WHY_JSB,		/* the journal superblock is not trusted */
	EJ_WHY_MAX
};

struct ej_verdict_in {
	int		policy_verdict;	/* recovery.c's, enum jbd2_block_verdict */
	int		policy;		/* enum jbd2_replay_policy */
	__u32		tid;		/* its transaction */
	int		have_data;	/* its log block was read */
	int		in_range;	/* the host may write its fs block */
	int		user_skip;	/* an override {tid, block} says skip */
	int		user_force;	/* an override {tid, block} says write */
	int		upto_set;	/* --upto: no tid after upto_tid */
	__u32		upto_tid;
	int		jsb_bad_csum;	/* the journal superblock's csum failed */
};

struct ej_verdict_out {
	int		verdict;	/* enum jbd2_block_verdict */
	int		why;		/* enum ej_verdict_why */
	unsigned int	corrupt;	/* JBD2_CORRUPT_* this block raises */
};

void ej_verdict_decide(const struct ej_verdict_in *in,
		       struct ej_verdict_out *out);
const char *ej_verdict_why_name(int why);

/* What a journal superblock that failed its checksum means per policy. */
#define EJ_JSB_TRUSTED	0	/* used: replay as the log says */
#define EJ_JSB_SKIP	1	/* "stop": nothing replayed, log reset */
#define EJ_JSB_REFUSE	2	/* "refuse": nothing replayed, refused */
int ej_verdict_jsb(int policy, int jsb_bad_csum);

/* ------------------------------------------------------------------ */
/* jopen.c, jmap.c, jglue.c, fsdev.c: the io_channel host             */

/* A run of journal blocks: logical lblk.. maps to physical pblk.. */
struct ej_extent {
	unsigned long long	lblk;
	unsigned long long	pblk;
	unsigned long long	len;
};

/*
 * The extent of @arr (@n of them, sorted by the key searched) holding
 * block @blk: logical, or physical when @physical.  NULL if none.  Inline:
 * replay looks up every journal block it reads.
 */
static inline const struct ej_extent *
ej_extent_find(const struct ej_extent *arr, size_t n, unsigned long long blk,
	       int physical)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ej_extent *x = &arr[mid];
		unsigned long long start = physical ? x->pblk : x->lblk;

		if (blk < start)
			hi = mid;
		else if (blk - start >= x->len)
			lo = mid + 1;
		else
			return x;
	}
	return NULL;
}

/* Read-ahead, control-block cache and deferred writes (jglue.c). */
struct ej_glue;

/* What the glue did, for tests and benchmarks. */
struct ej_glue_stats {
	unsigned long		reads;		/* io_channel reads (journal) */
	unsigned long		blocks_read;
	unsigned long		cache_hits;	/* control blocks from memory */
	unsigned long		writes;		/* io_channel writes (replay) */
	unsigned long		blocks_written;
};

struct ej_io_ops;
struct ej_engine;

struct ej_host {
	journal_t		journal;	/* journal->j_host == this */
	ext2_filsys		fs;
	io_channel		jio;		/* fs->io, or the external one */
	int			own_jio;
	unsigned int		flags;		/* EJ_OPEN_* */
	struct ej_journal_info	info;

	/* journal blocks mapped by the journal inode or the device */
	struct ej_extent	*ext;		/* sorted by lblk */
	size_t			nr_ext;
	struct ej_extent	*pext;		/* same, sorted by pblk */
	unsigned long long	mapped;		/* logical blocks mapped */
	/* physical ranges replay must never write (internal journal) */
	struct ej_extent	*forbid;	/* sorted by pblk, merged */
	size_t			nr_forbid;

	struct block_device	jdev;
	struct block_device	fsdev;
	struct block_device	sbdev;		/* j_sb_buffer's: no I/O */
	struct buffer_head	sb_bh;
	__u32			start_tid;	/* s_sequence at open */
	int			recover_err;	/* jbd2_journal_recover()'s */
	char			*sb_buf;	/* j_blocksize bytes */
	struct ej_report	report;
	/* what the write phase writes (fsdev.c): journal.j_final */
	struct ej_final_map	final;
	/* the fast-commit area (fc_host.c) */
	unsigned char		*fc_area;
	unsigned long		fc_nr;		/* its blocks */
	unsigned long		fc_got;		/* read by the scan pass */
	int			fc_scanned;	/* fc holds the verdicts */
	int			fc_replay;	/* recovery reached replay */
	int			fc_refused;	/* refuse: a record would flag */
	struct ej_fc_scan	fc;
	struct ej_glue		*glue;
	/* the engine that moves the blocks (ioeng.c), chosen at open */
	unsigned int		io_flags;	/* EJ_IO_* */
	const struct ej_io_ops	*io;
	struct ej_engine	*eng;		/* its state */
};

static inline struct ej_host *ej_host_of(journal_t *journal)
{
	return (struct ej_host *)journal->j_host;
}

extern const struct jbd2_bdev_ops ej_jdev_ops;
extern const struct jbd2_bdev_ops ej_fsdev_ops;
extern const struct jbd2_host_ops ej_io_host_ops;

/* fc_host.c: the fast-commit phase (ours under replay-all and refuse) */
void ej_fc_host_setup(struct ej_host *h);
int ej_fc_host_handles(const struct ej_host *h);
errcode_t ej_fc_host_finish(struct ej_host *h);
void ej_fc_host_free(struct ej_host *h);

/*
 * The journal's map in @h (ext, pext, forbid, mapped, jio): its inode, or
 * the superblock's backup of its block map (jmap.c), an external journal
 * device (jmap.c), or a saved copy (jsave.c).
 */
errcode_t ej_jmap_internal(struct ej_host *h);
errcode_t ej_jmap_external(struct ej_host *h, const struct ej_open_opts *o);
errcode_t ej_jmap_saved(struct ej_host *h, const struct ej_open_opts *o);

errcode_t ej_glue_init(struct ej_host *h);
void ej_glue_free(struct ej_host *h);
/* Forget what the glue read from physical block @blk (it was rewritten). */
void ej_glue_invalidate(struct ej_host *h, unsigned long long blk);
/* Logical journal block -> physical; 0 or EJ_BLOCK_OUT_OF_RANGE. */
errcode_t ej_glue_bmap(struct ej_host *h, unsigned long long lblk,
		       unsigned long long *pblk);
/* Write out what replay decided (once; no-op when nothing is pending). */
errcode_t ej_glue_write_replayed(struct ej_host *h);
/* 0 when the replayed blocks are flushed and nothing was written since. */
int ej_glue_needs_flush(struct ej_host *h);
void ej_glue_get_stats(struct ej_host *h, struct ej_glue_stats *st);

/*
 * sort.c: stable sort of @n records of @size bytes by the unsigned key of
 * @key_size bytes (4 or 8) at @key_off; @tmp holds n records.
 */
void ej_radix_sort(void *base, void *tmp, size_t n, size_t size,
		   size_t key_off, size_t key_size);

/* ------------------------------------------------------------------ */
/* io/: the engines behind the glue (io/ioeng.c, private: io/ej_io.h)  */

/*
 * The write phase's buffers, both halves together.  4 MiB rather than
 * 16: the device starts on the first half sooner, and every byte of a
 * new buffer is a page the kernel zeroes first (bench image c: 27.6
 * against 30.5 ms, median of 21 alternating runs; peak RSS 7.4 against
 * 17.6 MiB).
 */
#define EJ_WRITE_BATCH_BYTES	(4 * 1024 * 1024)

/* Chunks of read-ahead an engine lends the glue at most at once. */
#define EJ_PF_SLOTS	4

/* Log blocks an engine read ahead, lent to the glue until returned. */
struct ej_io_chunk {
	char			*buf;
	unsigned long long	pblk;		/* physical block of buf[0] */
	unsigned int		len;		/* blocks */
	int			slot;		/* for ahead_return */
};

/* Reads of the log at byte offsets of its device, each with its result. */
struct ej_dio_io {
	void			*buf;
	size_t			len;
	unsigned long long	off;
	errcode_t		err;	/* 0, or read it again another way */
};

/*
 * How blocks move.  The glue (jglue.c) decides what is read and written
 * and in which order; an engine carries it out.  Every op takes the host
 * whose h->eng the engine set up in open().
 */
struct ej_io_ops {
	const char	*name;
	errcode_t	(*open)(struct ej_host *h);
	void		(*close)(struct ej_host *h);
	/* zeroed buffers for the log and the write batch */
	void		*(*alloc)(size_t size);
	void		(*release)(void *ptr);

	/*
	 * Read ahead of recovery: ahead_start says (1) that the engine
	 * reads ahead from logical block @lblk, after @seq_run blocks read
	 * in order; ahead_take then lends the chunk holding @lblk (physical
	 * @blk), or returns 0 (the glue reads it itself); ahead_return gives
	 * a chunk back; ahead_stop ends reading ahead (lent chunks stay).
	 */
	int		(*ahead_start)(struct ej_host *h, unsigned long long lblk,
				       unsigned long long seq_run);
	int		(*ahead_take)(struct ej_host *h, unsigned long long lblk,
				      unsigned long long blk,
				      struct ej_io_chunk *c);
	void		(*ahead_return)(struct ej_host *h, int slot);
	void		(*ahead_stop)(struct ej_host *h);

	/*
	 * Read runs of the journal device (byte offsets, whole blocks),
	 * each with its own result.  1 when they went a way that can fail
	 * where the channel would not (worth a retry through it).
	 */
	int		(*read_log)(struct ej_host *h, struct ej_dio_io *io,
				    size_t n);

	/*
	 * The write phase: write_begin for @nblocks final versions returns
	 * how many buffers (tags, 1 or EJ_DIO_TAGS) the glue alternates;
	 * write_wait(tag) before a buffer is refilled; write_home writes
	 * @n blocks from buffer @tag to fs block @fsblock on (ascending);
	 * write_end waits for them all (*keep: the buffers may still be in
	 * the kernel's hands and must never be freed); flush makes them
	 * durable.
	 */
	unsigned int	(*write_begin)(struct ej_host *h, size_t nblocks);
	errcode_t	(*write_wait)(struct ej_host *h, unsigned int tag);
	errcode_t	(*write_home)(struct ej_host *h, unsigned int tag,
				      const void *buf,
				      unsigned long long fsblock, size_t n);
	errcode_t	(*write_end)(struct ej_host *h, int *keep);
	errcode_t	(*flush)(struct ej_host *h);
};

extern const struct ej_io_ops ej_io_plain;
extern const struct ej_io_ops ej_io_fast;

#endif /* E2JOURNAL_EJ_INT_H */
