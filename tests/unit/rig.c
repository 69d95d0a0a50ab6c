// SPDX-License-Identifier: GPL-2.0
/*
 * rig.c: devices, writer and replay model shared by the recovery tests.
 *
 * The model is deliberately naive: a transaction is a list of (block,
 * content) pairs and a list of revoked blocks, and replaying means
 * copying contents in transaction order, skipping a block when an
 * honoured revoke record (B, T) with T >= its tid names it.  It never
 * looks at the journal, so it cannot share a mistake with recovery.c.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rig.h"

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */

__u32 rnd_next(__u32 *s)
{
	__u32 x = *s ? *s : 0x9e3779b9U;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

__u32 rnd_below(__u32 *s, __u32 n)
{
	return n ? rnd_next(s) % n : 0;
}

void rnd_fill(__u32 *s, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(rnd_next(s) >> 11);
}

/* ------------------------------------------------------------------ */
/* Watchdog                                                            */

static unsigned int wd_seconds;
static char wd_msg[96];
static size_t wd_len;

/* Only write() and _exit() here: both are async-signal-safe. */
static void wd_fire(int sig)
{
	(void)sig;
	if (write(2, wd_msg, wd_len) < 0)
		_exit(2);
	_exit(2);
}

void rig_watchdog(const char *prog, unsigned int seconds)
{
	snprintf(wd_msg, sizeof(wd_msg), "%s: timeout: recovery looping?\n",
		 prog);
	wd_len = strlen(wd_msg);
	wd_seconds = seconds;
	signal(SIGALRM, wd_fire);
}

int rig_arm_timer(void **state)
{
	(void)state;
	alarm(wd_seconds);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	assert_non_null(p);
	return p;
}

__u32 rd32(const unsigned char *p)
{
	__be32 x;

	memcpy(&x, p, 4);
	return be32_to_cpu(x);
}

__u16 rd16(const unsigned char *p)
{
	__be16 x;

	memcpy(&x, p, 2);
	return be16_to_cpu(x);
}

unsigned char *jblk(struct rig *r, unsigned long lblk)
{
	return memdev_block(r->jd, r->jbase + lblk);
}

const struct ej_wblock *rig_wblock(const struct rig *r, __u32 tid,
				   unsigned int kind, unsigned int index)
{
	static const struct ej_wblock none;
	const struct ej_wblock *b;

	b = ej_wtxn_block(ej_writer_find_txn(r->w, tid), kind, index);
	if (b)
		return b;
	fail_msg("tid %u has no block of kind %u index %u", tid, kind, index);
	return &none;	/* not reached: fail_msg() leaves the test */
}

unsigned long rig_data_jblock(const struct rig *r, __u32 tid,
			      unsigned int index)
{
	return rig_wblock(r, tid, EJ_WB_DATA, index)->jblock;
}

/* ------------------------------------------------------------------ */
/* Devices and writer                                                  */

unsigned long long rig_fsblk(const struct rig *r, unsigned long i)
{
	unsigned long long n = r->fs->nr_blocks;

	if (!r->external)
		n -= r->jlen;
	i %= n;
	if (!r->external && i >= r->jbase)
		i += r->jlen;
	return i;
}

void rig_init_geom(struct rig *r, unsigned int bs, int external, __u32 seed,
		   const struct rig_geom *g)
{
	unsigned long long b;

	memset(r, 0, sizeof(*r));
	r->bs = bs;
	r->external = external;
	r->rnd = seed;
	r->jlen = g->jlen;
	if (external) {
		r->fs = memdev_new(bs, g->fs_blocks);
		r->jd = memdev_new(bs, g->jlen);
		r->jbase = 0;
	} else {
		assert_true(g->jbase + g->jlen <= g->fs_blocks);
		r->fs = memdev_new(bs, g->fs_blocks);
		r->jd = r->fs;
		r->jbase = g->jbase;
	}
	assert_non_null(r->fs);
	assert_non_null(r->jd);
	/* The filesystem's blocks hold something; the journal starts zeroed. */
	for (b = 0; b < r->fs->nr_blocks; b++)
		if (external || b < r->jbase || b >= r->jbase + r->jlen)
			rnd_fill(&r->rnd, memdev_block(r->fs, b), bs);
	assert_int_equal(memhost_init(&r->host, r->fs,
				      external ? r->jd : NULL, r->jbase,
				      r->jlen), 0);
}

void rig_init(struct rig *r, unsigned int bs, int external, __u32 seed)
{
	static const struct rig_geom ext = { EXT_FS_BLOCKS, 0, JNL_BLOCKS };
	static const struct rig_geom in = {
		INT_FS_BLOCKS, INT_JBASE, JNL_BLOCKS,
	};

	rig_init_geom(r, bs, external, seed, external ? &ext : &in);
}

void rig_writer(struct rig *r, const struct rig_cfg *c,
		struct ej_writer_opts *o)
{
	struct ej_writer_opts def;
	struct ej_jsink sink;

	if (!o) {
		memset(&def, 0, sizeof(def));
		o = &def;
	}
	o->blocksize = r->bs;
	if (c) {
		o->csum = c->csum;
		o->flags |= c->flags;
	}
	o->flags |= EJ_W_FORMAT | EJ_W_ZERO_LOG;
	if (!o->maxlen)
		o->maxlen = r->jlen;
	memhost_sink(&r->host, &sink);
	assert_int_equal(ej_writer_open(&sink, o, &r->w), 0);
}

static void free_mtxn(struct mtxn *t)
{
	size_t j;

	for (j = 0; j < t->nr_blk; j++)
		free(t->data[j]);
	free(t->data);
	free(t->blk);
	free(t->bv);
	free(t->rev);
	memset(t, 0, sizeof(*t));
}

void rig_reset_model(struct rig *r)
{
	ej_writer_free(r->w);
	r->w = NULL;
	while (r->nr_tx)
		free_mtxn(&r->tx[--r->nr_tx]);
}

void rig_free(struct rig *r)
{
	memhost_fini(&r->host);
	rig_reset_model(r);
	free(r->tx);
	free(r->fs_pre);
	free(r->jd_pre);
	if (r->jd != r->fs)
		memdev_free(r->jd);
	memdev_free(r->fs);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* Transactions: the writer and the model in step                      */

__u32 tx_begin(struct rig *r)
{
	struct mtxn *t;
	__u32 tid;

	assert_int_equal(ej_writer_begin(r->w, &tid), 0);
	if (r->nr_tx == r->max_tx) {
		r->max_tx = r->max_tx ? 2 * r->max_tx : 16;
		r->tx = xrealloc(r->tx, r->max_tx * sizeof(*r->tx));
	}
	t = &r->tx[r->nr_tx++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->unreplayed = JBD2_BLOCK_NOT_REPLAYED;
	return tid;
}

void tx_add(struct rig *r, unsigned long long blk, int escape)
{
	struct mtxn *t = &r->tx[r->nr_tx - 1];
	__be32 magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	unsigned char *d = malloc(r->bs);

	assert_non_null(d);
	rnd_fill(&r->rnd, d, r->bs);
	if (escape)
		memcpy(d, &magic, sizeof(magic));
	else if (!memcmp(d, &magic, sizeof(magic)))
		d[0] ^= 1;
	assert_int_equal(ej_writer_add_block(r->w, blk, d), 0);
	if (t->nr_blk == t->max_blk) {
		t->max_blk = t->max_blk ? 2 * t->max_blk : 16;
		t->blk = xrealloc(t->blk, t->max_blk * sizeof(*t->blk));
		t->data = xrealloc(t->data, t->max_blk * sizeof(*t->data));
		t->bv = xrealloc(t->bv, t->max_blk * sizeof(*t->bv));
	}
	t->blk[t->nr_blk] = blk;
	t->bv[t->nr_blk] = RIG_V_AUTO;
	t->data[t->nr_blk++] = d;
}

void tx_model_revoke(struct rig *r, size_t i, unsigned long long blk)
{
	struct mtxn *t = &r->tx[i];

	if (t->nr_rev == t->max_rev) {
		t->max_rev = t->max_rev ? 2 * t->max_rev : 16;
		t->rev = xrealloc(t->rev, t->max_rev * sizeof(*t->rev));
	}
	t->rev[t->nr_rev++] = blk;
}

void tx_revoke(struct rig *r, unsigned long long blk)
{
	assert_int_equal(ej_writer_revoke(r->w, blk), 0);
	tx_model_revoke(r, r->nr_tx - 1, blk);
}

void tx_commit(struct rig *r)
{
	assert_int_equal(ej_writer_commit(r->w), 0);
	r->tx[r->nr_tx - 1].committed = 1;
}

void tx_uncommitted(struct rig *r)
{
	assert_int_equal(ej_writer_end_uncommitted(r->w), 0);
}

void rig_seal(struct rig *r)
{
	size_t fs_sz = (size_t)r->fs->nr_blocks * r->bs;
	size_t jd_sz = (size_t)r->jd->nr_blocks * r->bs;

	assert_int_equal(ej_writer_finish(r->w), 0);
	free(r->fs_pre);
	free(r->jd_pre);
	r->fs_pre = malloc(fs_sz);
	r->jd_pre = malloc(jd_sz);
	assert_non_null(r->fs_pre);
	assert_non_null(r->jd_pre);
	memcpy(r->fs_pre, r->fs->data, fs_sz);
	memcpy(r->jd_pre, r->jd->data, jd_sz);
}

void rig_resnap(struct rig *r)
{
	memcpy(r->fs_pre, r->fs->data, (size_t)r->fs->nr_blocks * r->bs);
	memcpy(r->jd_pre, r->jd->data, (size_t)r->jd->nr_blocks * r->bs);
}

void rig_patch_jsb(struct rig *r, __u32 start, __u32 seq, __u32 maxlen)
{
	journal_superblock_t *sb;

	sb = (journal_superblock_t *)memdev_block(r->jd, r->jbase);
	sb->s_start = cpu_to_be32(start);
	sb->s_sequence = cpu_to_be32(seq);
	if (maxlen)
		sb->s_maxlen = cpu_to_be32(maxlen);
	if (be32_to_cpu(sb->s_feature_incompat) &
	    (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		sb->s_checksum = 0;
		sb->s_checksum = cpu_to_be32(ej_crc32c(~0U, sb, sizeof(*sb)));
	}
}

/* ------------------------------------------------------------------ */
/* The model                                                           */

size_t model_nr_live(const struct rig *r)
{
	size_t n = 0;

	while (n < r->nr_tx && r->tx[n].committed)
		n++;
	return n;
}

void rig_plan_committed(struct rig *r)
{
	size_t live = model_nr_live(r), i, j;

	for (i = 0; i < r->nr_tx; i++) {
		struct mtxn *t = &r->tx[i];

		t->replay = i < live;
		t->revokes = i < live;
		t->unreplayed = JBD2_BLOCK_NOT_REPLAYED;
		for (j = 0; j < t->nr_blk; j++)
			t->bv[j] = RIG_V_AUTO;
	}
}

int model_revoked(const struct rig *r, unsigned long long blk, __u32 tid)
{
	size_t i, j;

	for (i = 0; i < r->nr_tx; i++) {
		if (!r->tx[i].revokes)
			continue;
		for (j = 0; j < r->tx[i].nr_rev; j++)
			if (r->tx[i].rev[j] == blk &&
			    tid_geq(r->tx[i].tid, tid))
				return 1;
	}
	return 0;
}

unsigned char *model_image(const struct rig *r)
{
	size_t sz = (size_t)r->fs->nr_blocks * r->bs;
	unsigned char *img = malloc(sz);
	size_t i, j;

	assert_non_null(img);
	memcpy(img, r->fs_pre, sz);
	for (i = 0; i < r->nr_tx; i++) {
		const struct mtxn *t = &r->tx[i];

		if (!t->replay)
			continue;
		for (j = 0; j < t->nr_blk; j++) {
			if (t->bv[j] != RIG_V_AUTO ||
			    model_revoked(r, t->blk[j], t->tid))
				continue;
			assert_true(t->blk[j] < r->fs->nr_blocks);
			memcpy(img + t->blk[j] * r->bs, t->data[j], r->bs);
		}
	}
	return img;
}

unsigned char *model_expect(struct rig *r)
{
	rig_plan_committed(r);
	return model_image(r);
}

const char *describe(const struct rig *r, unsigned long long blk,
		     const unsigned char *content, char *out, size_t len)
{
	size_t i, j;

	if (!memcmp(content, r->fs_pre + blk * r->bs, r->bs)) {
		snprintf(out, len, "its old content");
		return out;
	}
	for (i = r->nr_tx; i > 0; i--)
		for (j = 0; j < r->tx[i - 1].nr_blk; j++)
			if (r->tx[i - 1].blk[j] == blk &&
			    !memcmp(content, r->tx[i - 1].data[j], r->bs)) {
				snprintf(out, len, "tid %u's version",
					 r->tx[i - 1].tid);
				return out;
			}
	snprintf(out, len, "unknown content");
	return out;
}

unsigned long rig_image_diff(const struct rig *r,
			     const unsigned char *expect, const char *what)
{
	unsigned long long b;
	unsigned long bad = 0;
	char e[64], g[64];

	for (b = 0; b < r->fs->nr_blocks; b++) {
		const unsigned char *got = memdev_block(r->fs, b);

		if (!memcmp(got, expect + b * r->bs, r->bs))
			continue;
		if (bad++ < 8)
			print_message("%s: block %llu holds %s, expected %s\n",
				      what, b, describe(r, b, got, g, sizeof(g)),
				      describe(r, b, expect + b * r->bs, e,
					       sizeof(e)));
	}
	return bad;
}

void check_image(const struct rig *r, const unsigned char *expect,
		 const char *what)
{
	unsigned long bad = rig_image_diff(r, expect, what);

	if (bad)
		fail_msg("%s: %lu blocks differ from the model", what, bad);
	if (r->external && memcmp(r->jd->data, r->jd_pre,
				  (size_t)r->jd->nr_blocks * r->bs))
		fail_msg("%s: recovery wrote into the external journal", what);
}

/* ------------------------------------------------------------------ */
/* Running recovery                                                    */

journal_t *rig_recover(struct rig *r, int policy)
{
	memcpy(r->fs->data, r->fs_pre, (size_t)r->fs->nr_blocks * r->bs);
	/* an internal journal's snapshot is the same device's */
	if (r->jd != r->fs)
		memcpy(r->jd->data, r->jd_pre,
		       (size_t)r->jd->nr_blocks * r->bs);
	memset(r->host.writes, 0, r->fs->nr_blocks * sizeof(*r->host.writes));
	r->host.replays = 0;
	r->host.bad_replays = 0;
	assert_int_equal(memhost_load(&r->host, policy), 0);
	r->rc = jbd2_journal_recover(r->host.journal);
	return r->host.journal;
}

void rig_done(struct rig *r, const char *what)
{
	if (r->host.bad_replays)
		fail_msg("%s: replay called for %lu block(s) outside the filesystem or inside the journal (first: %llu)",
			 what, r->host.bad_replays, r->host.first_bad);
	memhost_unload(&r->host);
	if (r->fs->live_bh || r->jd->live_bh)
		fail_msg("%s: %ld buffer heads never released", what,
			 r->fs->live_bh + (r->jd != r->fs ? r->jd->live_bh : 0));
}
