/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rig.h: the test rig shared by test_recovery.c and test_policy.c.
 *
 * A rig is a filesystem device (and, for an external journal, a journal
 * device) in memory, the library's journal writer on it, and a model of
 * what was written that knows nothing of the on-disk format: per
 * transaction the blocks it logged (with their content) and the blocks it
 * revoked.  The model replays a plan (which transactions are written,
 * whose revoke records count, which single blocks stay out) into an
 * image; the tests compare the device after jbd2_journal_recover() with
 * it block by block.
 *
 * Include after <cmocka.h> and its prerequisites.
 */
#ifndef E2JOURNAL_TESTS_RIG_H
#define E2JOURNAL_TESTS_RIG_H

#include "memdev.h"

/* rig_init()'s geometry */
#define JNL_BLOCKS	1024	/* every test journal: 1024 blocks */
#define INT_FS_BLOCKS	2048	/* device with an internal journal */
#define INT_JBASE	512	/* ... at blocks 512-1535 */
#define EXT_FS_BLOCKS	1024	/* filesystem of an external journal */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Deterministic random numbers: a failure can be rerun. */
__u32 rnd_next(__u32 *s);
__u32 rnd_below(__u32 *s, __u32 n);
void rnd_fill(__u32 *s, void *buf, size_t len);

/* A journal configuration: checksum mode and writer flags. */
struct rig_cfg {
	const char	*name;
	int		csum;		/* EJ_CSUM_* */
	unsigned int	flags;		/* EJ_W_* */
	unsigned int	tag_bytes;	/* FORMAT.md's table */
};

/* mtxn.bv[]: the model writes the block (the usual case) */
#define RIG_V_AUTO	(-1)
/*
 * mtxn.unreplayed / bv[]: not written; reported with any verdict that
 * writes nothing, or not at all
 */
#define RIG_V_ANY	(-2)

/* One transaction as the model knows it. */
struct mtxn {
	__u32			tid;
	int			committed;
	size_t			nr_blk, max_blk;
	unsigned long long	*blk;
	unsigned char		**data;
	size_t			nr_rev, max_rev;
	unsigned long long	*rev;

	/* the plan model_image() follows (rig_plan_committed() sets it) */
	int			replay;		/* its blocks are written */
	int			revokes;	/* its revoke records count */
	int			unreplayed;	/* verdict of its blocks if not */
	/* per block: RIG_V_AUTO, or the verdict that keeps it out */
	int			*bv;
};

struct rig {
	unsigned int		bs;
	int			external;
	struct memdev		*fs;
	struct memdev		*jd;		/* == fs when internal */
	unsigned long long	jbase;
	unsigned long		jlen;
	struct memhost		host;
	struct ej_writer	*w;
	unsigned char		*fs_pre;	/* devices as written */
	unsigned char		*jd_pre;
	struct mtxn		*tx;
	size_t			nr_tx, max_tx;
	__u32			rnd;
	int			rc;		/* of the last recovery */
};

/*
 * A hang is a failure: rig_watchdog() (once, in main) makes SIGALRM print
 * "PROG: timeout: recovery looping?" and exit 2; rig_arm_timer(), each
 * test's cmocka setup, gives the test @seconds from its start.
 */
void rig_watchdog(const char *prog, unsigned int seconds);
int rig_arm_timer(void **state);

void *xrealloc(void *p, size_t n);
__u32 rd32(const unsigned char *p);
__u16 rd16(const unsigned char *p);

/* The i-th block a transaction may log (never one of the journal's). */
unsigned long long rig_fsblk(const struct rig *r, unsigned long i);
void rig_init(struct rig *r, unsigned int bs, int external, __u32 seed);

/* Device sizes other than rig_init()'s. */
struct rig_geom {
	unsigned long long	fs_blocks;	/* the filesystem device */
	unsigned long long	jbase;		/* internal: where the journal is */
	unsigned long		jlen;		/* journal blocks */
};

void rig_init_geom(struct rig *r, unsigned int bs, int external, __u32 seed,
		   const struct rig_geom *g);
/* Open the writer: a fresh, zeroed journal of JNL_BLOCKS unless told. */
void rig_writer(struct rig *r, const struct rig_cfg *c,
		struct ej_writer_opts *o);
void rig_free(struct rig *r);
/* Drop the writer and the model; the devices stay as they are. */
void rig_reset_model(struct rig *r);

__u32 tx_begin(struct rig *r);
/* Log fresh random content for @blk; @escape: it starts with the magic. */
void tx_add(struct rig *r, unsigned long long blk, int escape);
void tx_revoke(struct rig *r, unsigned long long blk);
/* A revoke record the model knows of but the writer did not write. */
void tx_model_revoke(struct rig *r, size_t i, unsigned long long blk);
void tx_commit(struct rig *r);
void tx_uncommitted(struct rig *r);

/* Write the journal superblock and remember the devices as written. */
void rig_seal(struct rig *r);
/* Take the devices as they are now as the "written" state. */
void rig_resnap(struct rig *r);
/* Rewrite the journal superblock in place (checksum made valid). */
void rig_patch_jsb(struct rig *r, __u32 start, __u32 seq, __u32 maxlen);
unsigned char *jblk(struct rig *r, unsigned long lblk);
/* Block @index of @kind (EJ_WB_*) in transaction @tid (fails if none). */
const struct ej_wblock *rig_wblock(const struct rig *r, __u32 tid,
				   unsigned int kind, unsigned int index);
/* Journal block of the @index-th data block of transaction @tid. */
unsigned long rig_data_jblock(const struct rig *r, __u32 tid,
			      unsigned int index);

/* Transactions a healthy recovery replays: up to the first uncommitted. */
size_t model_nr_live(const struct rig *r);
/* The plan of a healthy recovery: every live transaction, all blocks. */
void rig_plan_committed(struct rig *r);
/* Does a revoke record the plan honours keep @blk out of @tid? */
int model_revoked(const struct rig *r, unsigned long long blk, __u32 tid);
/* The filesystem device as it must be after replaying the plan. */
unsigned char *model_image(const struct rig *r);
/* rig_plan_committed(), then model_image(). */
unsigned char *model_expect(struct rig *r);

/* Which model transaction last logged @blk with this content (for logs). */
const char *describe(const struct rig *r, unsigned long long blk,
		     const unsigned char *content, char *out, size_t len);
/* Blocks of the device that differ from @expect, each printed (8 at most). */
unsigned long rig_image_diff(const struct rig *r,
			     const unsigned char *expect, const char *what);
/* The same as a hard failure; also fails if an external journal changed. */
void check_image(const struct rig *r, const unsigned char *expect,
		 const char *what);

/* Restore the written state, load, recover. */
journal_t *rig_recover(struct rig *r, int policy);
/* What must hold after any recovery, whatever the journal held. */
void rig_done(struct rig *r, const char *what);

#endif /* E2JOURNAL_TESTS_RIG_H */
