/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * jglue.h: what the two halves of the libext2fs host share: the glue's
 * state (read-ahead windows, control-block cache, buffer heads, what the
 * write phase owes) and the helpers both use.  jglue.c is the journal
 * device and the host ops; fsdev.c the filesystem device and its write
 * phase.  Private to those two files.
 */
#ifndef E2JOURNAL_JGLUE_H
#define E2JOURNAL_JGLUE_H

#include "ej_int.h"

#define EJ_RA_BYTES		(128 * 1024)	/* largest journal read */
#define EJ_CACHE_BYTES		(16 * 1024 * 1024)	/* control blocks */
#define EJ_READ_GAP		8	/* blocks read across to join reads */
#define EJ_SLAB_BYTES		(2 * 1024 * 1024)	/* cache copies */

/* A read-ahead window; retired ones live until their last reader goes. */
struct ej_window {
	char			*buf;
	unsigned long long	start;		/* physical block of buf[0] */
	unsigned int		len;		/* blocks held */
	unsigned int		refs;		/* buffer_heads pointing in */
	int			slot;		/* engine's chunk, or -1 */
	struct ej_window	*next_retired;
};

struct ej_cblock {
	unsigned long long	blk;		/* physical */
	char			*data;
};

/* Where cached control blocks are copied: never freed one by one. */
struct ej_slab {
	struct ej_slab		*next;
	size_t			used, cap;	/* blocks */
	char			*mem;
};

/* A buffer_head and what the glue needs to recycle it. */
struct ej_bh {
	struct buffer_head	bh;
	struct ej_window	*win;		/* b_data points into it */
	char			*own;		/* own copy, j_blocksize */
	struct ej_bh		*next;		/* free list / all list */
	struct ej_bh		*next_all;
};

struct ej_glue {
	struct ej_host		*h;
	const struct ej_io_ops	*io;		/* h->io */
	unsigned int		bs;
	struct ej_window	*win;		/* current window, or NULL */
	struct ej_window	*retired;	/* still referenced */
	struct ej_window	*spare;		/* idle, ready for reuse */
	unsigned long long	last_lblk;	/* logical block last served */
	int			have_last;
	unsigned int		ra;		/* next read-ahead, blocks */
	unsigned int		ra_max;
	unsigned long long	seq_run;	/* blocks read in order */

	/* the chunks the engine lends from its read-ahead */
	struct ej_window	pf_win[EJ_PF_SLOTS];

	struct ej_cblock	*cache;		/* sorted by blk */
	size_t			nr_cache, max_cache;
	struct ej_slab		*slab;

	struct ej_bh		*free_bh;
	struct ej_bh		*all_bh;

	int			dirty;		/* replay pending */
	int			flushed;	/* fs channel flushed at ... */
	unsigned long long	flushed_at;	/* ... this many bytes written */
	struct ej_glue_stats	st;
	unsigned long		prog_done;	/* log blocks reported read */
};

/* io_channel error -> -errno for recovery.c */
int ej_glue_errno(errcode_t err);
/* May replay write filesystem block @blk (in range, not the journal's)? */
int ej_glue_block_ok(const struct ej_host *h, unsigned long long blk);
/* An idle window: keep one for reuse, free the rest. */
void ej_glue_win_idle(struct ej_glue *g, struct ej_window *w);
/* Stop using the current window; free it unless someone still reads it. */
void ej_glue_win_drop(struct ej_glue *g);
/* A buffer_head of @bdev for block @blk, its data the glue's own copy. */
struct ej_bh *ej_glue_bh_get(struct ej_host *h, struct block_device *bdev,
			     unsigned long long blk);
void ej_glue_brelse(struct buffer_head *bh);
/* Tell the report's progress callback, if any, how far @pass has come. */
void ej_glue_progress(struct ej_host *h, unsigned int pass,
		      unsigned long done, unsigned long total);

#endif /* E2JOURNAL_JGLUE_H */
