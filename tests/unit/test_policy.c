// SPDX-License-Identifier: GPL-2.0
/*
 * test_policy.c: POLICY.md's decision table, row by row, under each policy.
 *
 * Every test builds journals with the library's writer on the in-memory
 * host, damages them in one place with ej_corrupt() (or an unreadable
 * block), and runs jbd2_journal_recover() under the three policies:
 *
 *  replay-all	the device must equal the model (tests/unit/rig.c) replaying
 *		the undamaged transactions one after the other, with exactly
 *		the blocks POLICY.md says to skip left out; the corruption
 *		flags, the first bad tid, the transaction's status and every
 *		logged block's verdict in the report must be what the row says;
 *  stop	what e2fsprogs 1.47.0 does with the same journal (POLICY.md's
 *		stop paragraph, doc/policy.md), worked out by hand for each
 *		row from its e2fsck/recovery.c: where replay ends, the return
 *		value, j_failed_commit;
 *  refuse	nothing written and -EFSCORRUPTED when replay-all would flag
 *		anything, the report still listing what was found; otherwise
 *		the same result as replay-all.
 *
 * Each row runs in every checksum mode it applies to (none, v1, v2, v3),
 * with and without async_commit, with 32- and 64-bit tags, at 1 KiB and
 * 4 KiB blocks.  A mismatch is printed with the row, variant, mode and
 * policy, and the test goes on to the next case, so one run shows every
 * case that fails; the test fails at its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rig.h"

#define TEST_TIMEOUT	600	/* seconds: a hang is a failure */
#define OLD_SEC		1600000000ULL	/* a commit time before the writer's */
#define TID0		2	/* the standard workload's first tid */

/* ------------------------------------------------------------------ */
/* Checksum modes                                                      */

static const struct rig_cfg modes[] = {
	{ "none_32", EJ_CSUM_NONE, 0, 8 },
	{ "none_64", EJ_CSUM_NONE, EJ_W_64BIT, 12 },
	{ "v1_32", EJ_CSUM_V1, 0, 8 },
	{ "v1_64", EJ_CSUM_V1, EJ_W_64BIT, 12 },
	{ "v1_32_async", EJ_CSUM_V1, EJ_W_ASYNC_COMMIT, 8 },
	{ "v1_64_async", EJ_CSUM_V1, EJ_W_64BIT | EJ_W_ASYNC_COMMIT, 12 },
	{ "v2_32", EJ_CSUM_V2, 0, 10 },
	{ "v2_64", EJ_CSUM_V2, EJ_W_64BIT, 14 },
	{ "v2_32_async", EJ_CSUM_V2, EJ_W_ASYNC_COMMIT, 10 },
	{ "v2_64_async", EJ_CSUM_V2, EJ_W_64BIT | EJ_W_ASYNC_COMMIT, 14 },
	{ "v3_32", EJ_CSUM_V3, 0, 16 },
	{ "v3_64", EJ_CSUM_V3, EJ_W_64BIT, 16 },
	{ "v3_32_async", EJ_CSUM_V3, EJ_W_ASYNC_COMMIT, 16 },
	{ "v3_64_async", EJ_CSUM_V3, EJ_W_64BIT | EJ_W_ASYNC_COMMIT, 16 },
};

static const unsigned int block_sizes[] = { 1024, 4096 };

/*
 * Small devices (the rows need some 30 journal blocks): internal, the
 * journal at blocks 128-383 of 512; external, 256 blocks each.
 */
static const struct rig_geom int_geom = { 512, 128, 256 };
static const struct rig_geom ext_geom = { 256, 0, 256 };

/* Which modes a row applies to. */
enum {
	A_ANY,		/* every mode */
	A_CSUM,		/* v1, v2, v3 */
	A_V23,		/* v2, v3 */
	A_NONE_V1,	/* none, v1 */
	A_ASYNC,	/* a checksum with async_commit */
	A_SYNC_CSUM,	/* a checksum without async_commit */
};

static int is_async(const struct rig_cfg *m)
{
	return !!(m->flags & EJ_W_ASYNC_COMMIT);
}

static int is_v23(const struct rig_cfg *m)
{
	return m->csum == EJ_CSUM_V2 || m->csum == EJ_CSUM_V3;
}

static int is64(const struct rig_cfg *m)
{
	return !!(m->flags & EJ_W_64BIT);
}

static int applies(const struct rig_cfg *m, int when)
{
	switch (when) {
	case A_CSUM:
		return m->csum != EJ_CSUM_NONE;
	case A_V23:
		return is_v23(m);
	case A_NONE_V1:
		return !is_v23(m);
	case A_ASYNC:
		return m->csum != EJ_CSUM_NONE && is_async(m);
	case A_SYNC_CSUM:
		return m->csum != EJ_CSUM_NONE && !is_async(m);
	}
	return 1;
}

/*
 * e2fsprogs 1.47.0 sets j_failed_commit for a bad commit unless
 * async_commit is on; with async_commit and v1 checksums it sets it too,
 * when it meets the next commit block (do_one_pass()'s "if
 * (info->end_transaction)" under the CHECKSUM feature).
 */
static __u32 stop_failed_commit(const struct rig_cfg *m, __u32 tid,
				int more_commits)
{
	if (!is_async(m))
		return tid;
	if (m->csum == EJ_CSUM_V1 && more_commits)
		return tid;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Soft failures: report every case, fail the test at its end          */

static unsigned int nr_failed;

static __printf(1, 2) void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_message(fmt, ap);
	va_end(ap);
	print_message("\n");
	nr_failed++;
}

/* ------------------------------------------------------------------ */
/* One case: a rig in one mode, and what each policy must do with it   */

struct pcase {
	struct rig		r;
	const struct rig_cfg	*m;
	unsigned int		bs;
	char			name[128];
};

/* What one policy must do; the plan on pc->r.tx says what is written. */
struct pexp {
	int		rc;
	unsigned int	must;		/* j_replay_corrupt bits required */
	unsigned int	may;		/* ... and allowed besides */
	__u32		first_bad;	/* when must != 0 (not under stop) */
	__u32		failed_commit;	/* stop only; 0 elsewhere */
	int		refused;	/* refuse: nothing written */

	int		st_check;	/* report status of transaction st_tid */
	__u32		st_tid;
	int		st[2];

	int		rev_check;	/* report entry of rev_tid's revoke */
	__u32		rev_tid;
	int		rev_csum_ok;
	unsigned int	rev_nr;
};

static __u32 fnv(const char *s)
{
	__u32 h = 2166136261U;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619U;
	return h;
}

static void pcase_open(struct pcase *pc, const char *row,
		       const struct rig_cfg *m, unsigned int bs, int external,
		       __u32 start_tid, unsigned int max_tags)
{
	struct ej_writer_opts o;

	memset(pc, 0, sizeof(*pc));
	pc->m = m;
	pc->bs = bs;
	snprintf(pc->name, sizeof(pc->name), "%s %s/%u%s", row, m->name, bs,
		 external ? "/ext" : "");
	rig_init_geom(&pc->r, bs, external, fnv(pc->name),
		      external ? &ext_geom : &int_geom);
	memset(&o, 0, sizeof(o));
	o.flags = EJ_W_SET_TID;
	o.start_tid = start_tid;
	o.max_tags = max_tags;
	rig_writer(&pc->r, m, &o);
}

static void pcase_close(struct pcase *pc)
{
	rig_free(&pc->r);
}

static unsigned long long B(struct pcase *pc, unsigned long i)
{
	return rig_fsblk(&pc->r, i);
}

static size_t txi(struct pcase *pc, __u32 tid)
{
	size_t i;

	for (i = 0; i < pc->r.nr_tx; i++)
		if (pc->r.tx[i].tid == tid)
			return i;
	fail_msg("%s: no transaction %u in the model", pc->name, tid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Plans                                                               */

/*
 * Replay, with their revoke records, the transactions before @end that
 * were committed; the others are not written and their blocks get
 * @unreplayed.  No single block is left out.
 */
static void plan_upto(struct pcase *pc, __u32 end, int unreplayed)
{
	struct rig *r = &pc->r;
	size_t i, j;

	for (i = 0; i < r->nr_tx; i++) {
		struct mtxn *t = &r->tx[i];
		int in = t->committed && tid_gt(end, t->tid);

		t->replay = in;
		t->revokes = in;
		t->unreplayed = unreplayed;
		for (j = 0; j < t->nr_blk; j++)
			t->bv[j] = RIG_V_AUTO;
	}
}

static void plan_all(struct pcase *pc)
{
	rig_plan_committed(&pc->r);
}

/* Nothing replayed, nothing reported (stop ending before the replay). */
static void plan_nothing(struct pcase *pc)
{
	plan_upto(pc, pc->r.tx[0].tid, RIG_V_ANY);
}

static void plan_txn_out(struct pcase *pc, __u32 tid, int verdict)
{
	struct mtxn *t = &pc->r.tx[txi(pc, tid)];

	t->replay = 0;
	t->revokes = 0;
	t->unreplayed = verdict;
}

static void plan_skip(struct pcase *pc, __u32 tid, size_t j, int verdict)
{
	pc->r.tx[txi(pc, tid)].bv[j] = verdict;
}

/* ------------------------------------------------------------------ */
/* The model's verdicts                                                */

/* The verdict the report must give block @j of transaction @i. */
static int model_verdict(const struct rig *r, size_t i, size_t j,
			 int refused)
{
	const struct mtxn *t = &r->tx[i];
	size_t i2, j2;

	if (t->bv[j] != RIG_V_AUTO)
		return t->bv[j];
	if (!t->replay)
		return t->unreplayed;
	if (model_revoked(r, t->blk[j], t->tid))
		return JBD2_BLOCK_REVOKED;
	if (refused)
		return JBD2_BLOCK_NOT_REPLAYED;
	for (i2 = i; i2 < r->nr_tx; i2++) {
		const struct mtxn *u = &r->tx[i2];

		if (!u->replay)
			continue;
		for (j2 = i2 == i ? j + 1 : 0; j2 < u->nr_blk; j2++)
			if (u->blk[j2] == t->blk[j] &&
			    u->bv[j2] == RIG_V_AUTO &&
			    !model_revoked(r, u->blk[j2], u->tid))
				return JBD2_BLOCK_SUPERSEDED;
	}
	return JBD2_BLOCK_REPLAYED;
}

static int written(int verdict)
{
	return verdict == JBD2_BLOCK_REPLAYED ||
	       verdict == JBD2_BLOCK_SUPERSEDED;
}

/*
 * The report's entry for a logged block.  The block number is part of
 * the key: a descriptor whose tag list runs on reports phantom tags
 * (block 0) at the journal positions of the blocks after it.
 */
static const struct ej_block_entry *find_entry(const struct ej_report *rep,
					       __u32 tid, unsigned long jblock,
					       unsigned long long fsblock)
{
	size_t k;

	for (k = 0; k < rep->nr_blocks; k++)
		if (rep->blocks[k].tid == tid &&
		    rep->blocks[k].jblock == jblock &&
		    rep->blocks[k].fsblock == fsblock)
			return &rep->blocks[k];
	return NULL;
}

static const char *vname(int v)
{
	if (v == RIG_V_ANY)
		return "(not written)";
	return ej_verdict_name(v);
}

/* Every logged block's verdict, and the counts, against the model. */
static void check_report(struct pcase *pc, const struct ej_report *rep,
			 int refused, const char *what)
{
	struct rig *r = &pc->r;
	unsigned long want[JBD2_BLOCK_VERDICT_MAX] = { 0 };
	unsigned long tally[JBD2_BLOCK_VERDICT_MAX] = { 0 };
	size_t i, j, k;
	int v;

	for (i = 0; i < r->nr_tx; i++) {
		const struct mtxn *t = &r->tx[i];

		for (j = 0; j < t->nr_blk; j++) {
			unsigned long jb = rig_data_jblock(r, t->tid, j);
			const struct ej_block_entry *e;

			e = find_entry(rep, t->tid, jb, t->blk[j]);
			v = model_verdict(r, i, j, refused);
			if (v == RIG_V_ANY) {
				if (e && written(e->verdict))
					bad("%s: tid %u block %llu (journal %lu): verdict %s, expected it not written",
					    what, t->tid, t->blk[j], jb,
					    ej_verdict_name(e->verdict));
				continue;
			}
			want[v]++;
			if (!e) {
				bad("%s: tid %u block %llu (journal %lu): not in the report, expected %s",
				    what, t->tid, t->blk[j], jb, vname(v));
				continue;
			}
			if ((int)e->verdict != v)
				bad("%s: tid %u block %llu (journal %lu): verdict %s, expected %s",
				    what, t->tid, t->blk[j], jb,
				    ej_verdict_name(e->verdict), vname(v));
		}
	}
	for (k = 0; k < rep->nr_blocks; k++)
		if (rep->blocks[k].verdict < JBD2_BLOCK_VERDICT_MAX)
			tally[rep->blocks[k].verdict]++;
	for (k = 0; k < JBD2_BLOCK_VERDICT_MAX; k++)
		if (rep->counts[k] != tally[k])
			bad("%s: counts[%s] %lu, but %lu entries say so", what,
			    ej_verdict_name(k), rep->counts[k], tally[k]);
	for (k = JBD2_BLOCK_REPLAYED; k <= JBD2_BLOCK_SUPERSEDED; k++)
		if (rep->counts[k] != want[k])
			bad("%s: counts[%s] %lu, expected %lu", what,
			    ej_verdict_name(k), rep->counts[k], want[k]);
}

/* Blocks written per filesystem block, as the model writes them. */
static void check_writes(struct pcase *pc, int refused, const char *what)
{
	struct rig *r = &pc->r;
	unsigned long long b, nr = r->fs->nr_blocks;
	unsigned long *want = calloc(nr, sizeof(*want));
	unsigned int shown = 0;
	size_t i, j;

	assert_non_null(want);
	for (i = 0; i < r->nr_tx && !refused; i++)
		for (j = 0; j < r->tx[i].nr_blk; j++)
			if (written(model_verdict(r, i, j, 0)))
				want[r->tx[i].blk[j]]++;
	for (b = 0; b < nr; b++) {
		if (r->host.writes[b] == want[b])
			continue;
		if (shown++ < 4)
			bad("%s: block %llu written %lu time(s), expected %lu%s",
			    what, b, r->host.writes[b], want[b],
			    !r->external && b >= r->jbase &&
			    b < r->jbase + r->jlen ? " (inside the journal)" :
			    "");
		else
			nr_failed++;
	}
	if (r->host.bad_replays)
		bad("%s: replay asked to write %lu block(s) outside the filesystem or inside the journal (first %llu)",
		    what, r->host.bad_replays, r->host.first_bad);
	if (r->external && memcmp(r->jd->data, r->jd_pre,
				  (size_t)r->jd->nr_blocks * r->bs))
		bad("%s: recovery wrote into the external journal", what);
	free(want);
}

static unsigned int nr_planned(const struct rig *r)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < r->nr_tx; i++)
		n += !!r->tx[i].replay;
	return n;
}

/* Run @policy on the case and compare everything with @e and the plan. */
static void run(struct pcase *pc, int policy, const struct pexp *e)
{
	struct rig *r = &pc->r;
	const struct ej_report *rep = &r->host.report;
	size_t sz = (size_t)r->fs->nr_blocks * r->bs, k;
	unsigned char *img;
	unsigned int c, nr;
	char what[192];
	journal_t *j;

	snprintf(what, sizeof(what), "%s [%s]", pc->name,
		 ej_policy_name(policy));
	if (e->refused) {
		img = malloc(sz);
		assert_non_null(img);
		memcpy(img, r->fs_pre, sz);
	} else {
		img = model_image(r);
	}
	j = rig_recover(r, policy);

	if (r->rc != e->rc)
		bad("%s: jbd2_journal_recover returned %d, expected %d", what,
		    r->rc, e->rc);
	c = j->j_replay_corrupt;
	if (policy == JBD2_POLICY_STOP) {
		/* the one flag "stop" shares with the others */
		if ((c & JBD2_CORRUPT_OUT_OF_RANGE) !=
		    (e->must & JBD2_CORRUPT_OUT_OF_RANGE))
			bad("%s: flags 0x%x; out-of-range flag expected %s",
			    what, c, e->must & JBD2_CORRUPT_OUT_OF_RANGE ?
			    "set" : "clear");
	} else {
		if ((c & e->must) != e->must || (c & ~(e->must | e->may)))
			bad("%s: flags 0x%x, expected 0x%x (and maybe 0x%x)",
			    what, c, e->must, e->may);
		if (e->must && j->j_replay_first_bad != e->first_bad)
			bad("%s: first bad tid %u, expected %u", what,
			    j->j_replay_first_bad, e->first_bad);
	}
	if (j->j_failed_commit !=
	    (policy == JBD2_POLICY_STOP ? e->failed_commit : 0))
		bad("%s: j_failed_commit %u, expected %u", what,
		    j->j_failed_commit,
		    policy == JBD2_POLICY_STOP ? e->failed_commit : 0);
	nr = e->refused ? 0 : nr_planned(r);
	if (j->j_replay_nr_txns != nr)
		bad("%s: %u transactions replayed, expected %u", what,
		    j->j_replay_nr_txns, nr);

	k = rig_image_diff(r, img, what);
	if (k)
		bad("%s: %zu blocks differ from the model", what, k);
	check_writes(pc, e->refused, what);
	check_report(pc, rep, e->refused, what);

	if (e->st_check) {
		const struct jbd2_txn_info *ti = NULL;

		for (k = 0; k < rep->nr_txns; k++)
			if (rep->txns[k].tid == e->st_tid)
				ti = &rep->txns[k];
		if (!ti)
			bad("%s: transaction %u not in the report", what,
			    e->st_tid);
		else if ((int)ti->status != e->st[0] &&
			 (int)ti->status != e->st[1])
			bad("%s: transaction %u status %s, expected %s%s%s",
			    what, e->st_tid,
			    ej_commit_status_name(ti->status),
			    ej_commit_status_name(e->st[0]),
			    e->st[1] != e->st[0] ? " or " : "",
			    e->st[1] != e->st[0] ?
			    ej_commit_status_name(e->st[1]) : "");
	}
	if (e->rev_check) {
		const struct ej_revoke_entry *re = NULL;

		for (k = 0; k < rep->nr_revokes; k++)
			if (rep->revokes[k].tid == e->rev_tid)
				re = &rep->revokes[k];
		if (!re)
			bad("%s: no revoke block of tid %u in the report",
			    what, e->rev_tid);
		else if (re->csum_ok != e->rev_csum_ok ||
			 re->nr_records != e->rev_nr)
			bad("%s: revoke block of tid %u: csum_ok %d, %u records; expected %d, %u",
			    what, e->rev_tid, re->csum_ok, re->nr_records,
			    e->rev_csum_ok, e->rev_nr);
	}
	free(img);
	r->host.bad_replays = 0;	/* counted above */
	rig_done(r, what);
}

/*
 * replay-all with the plan as it stands, then refuse: the same when
 * nothing is flagged, else nothing written and -EFSCORRUPTED.
 */
static void run_ra_refuse(struct pcase *pc, const struct pexp *ra)
{
	struct pexp rf = *ra;

	run(pc, JBD2_POLICY_REPLAY_ALL, ra);
	rf.refused = ra->must != 0;
	rf.rc = rf.refused ? -EFSCORRUPTED : ra->rc;
	run(pc, JBD2_POLICY_REFUSE, &rf);
}

static void expect_status(struct pexp *e, __u32 tid, int s0, int s1)
{
	e->st_check = 1;
	e->st_tid = tid;
	e->st[0] = s0;
	e->st[1] = s1;
}

/* ------------------------------------------------------------------ */
/* The standard workload: tids 2-6                                      */

/* Block roles (rig_fsblk() indices). */
enum { BA = 10, BB, BC, BD, BE, BF, BG, BH, BI, BK, BL };

#define W_T6_UNCOMMITTED	0x01	/* crash before tid 6's commit */
#define W_T4_OLD		0x02	/* tid 4 committed "before" tid 3 */
#define W_T6_OLD		0x04	/* tid 6 committed "before" tid 5 */
#define W_T6_REVOKE_ONLY	0x08	/* tid 6 logs nothing, revokes B */

/*
 * With three tags per descriptor:
 *  2: A B C | D(escaped)
 *  3: revoke C; B E		(C keeps its old content)
 *  4: revoke D; A(escaped) E G | K L	(D keeps its old content)
 *  5: B H
 *  6: revoke B; G I		(every version of B is revoked)
 * Tid 4 is the one most rows damage: its data indices are A 0, E 1,
 * G 2 (descriptor 0), K 3, L 4 (descriptor 1).
 */
static void std_workload(struct pcase *pc, unsigned int wf)
{
	struct rig *r = &pc->r;

	tx_begin(r);
	tx_add(r, B(pc, BA), 0);
	tx_add(r, B(pc, BB), 0);
	tx_add(r, B(pc, BC), 0);
	tx_add(r, B(pc, BD), 1);
	tx_commit(r);

	tx_begin(r);
	tx_revoke(r, B(pc, BC));
	tx_add(r, B(pc, BB), 0);
	tx_add(r, B(pc, BE), 0);
	tx_commit(r);

	tx_begin(r);
	tx_revoke(r, B(pc, BD));
	tx_add(r, B(pc, BA), 1);
	tx_add(r, B(pc, BE), 0);
	tx_add(r, B(pc, BG), 0);
	tx_add(r, B(pc, BK), 0);
	tx_add(r, B(pc, BL), 0);
	if (wf & W_T4_OLD)
		ej_writer_set_commit_time(r->w, OLD_SEC, 0);
	tx_commit(r);

	tx_begin(r);
	tx_add(r, B(pc, BB), 0);
	tx_add(r, B(pc, BH), 0);
	tx_commit(r);

	tx_begin(r);
	tx_revoke(r, B(pc, BB));
	if (!(wf & W_T6_REVOKE_ONLY)) {
		tx_add(r, B(pc, BG), 0);
		tx_add(r, B(pc, BI), 0);
	}
	if (wf & W_T6_OLD)
		ej_writer_set_commit_time(r->w, OLD_SEC, 0);
	if (wf & W_T6_UNCOMMITTED)
		tx_uncommitted(r);
	else
		tx_commit(r);
	rig_seal(r);
}

static void open_std(struct pcase *pc, const char *row,
		     const struct rig_cfg *m, unsigned int bs, unsigned int wf)
{
	pcase_open(pc, row, m, bs, 0, TID0, 3);
	std_workload(pc, wf);
}

static void corrupt(struct pcase *pc, int kind, __u32 tid, unsigned int index,
		    unsigned int byte, unsigned long long value)
{
	assert_int_equal(ej_corrupt(pc->r.w, kind, tid, index, byte, value),
			 0);
}

/* Byte offset of data block @index's tag in its descriptor. */
static unsigned int tag_offset(struct pcase *pc, __u32 tid,
			       unsigned int index)
{
	return rig_wblock(&pc->r, tid, EJ_WB_DATA, index)->tag_offset;
}

static unsigned long kind_jblock(struct pcase *pc, __u32 tid,
				 unsigned int kind, unsigned int index)
{
	return rig_wblock(&pc->r, tid, kind, index)->jblock;
}

/* ------------------------------------------------------------------ */
/* Row cases                                                           */

typedef void (*case_fn)(const struct rig_cfg *m, unsigned int bs, int var);

struct rowtest {
	int		when;		/* A_* */
	int		nr_var;
	case_fn		fn;
};

/* A healthy journal: replayed in full under every policy, nothing flagged. */
static void row00_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp e = { 0 };

	open_std(&pc, "row00", m, bs, 0);
	plan_all(&pc);
	run_ra_refuse(&pc, &e);
	run(&pc, JBD2_POLICY_STOP, &e);
	pcase_close(&pc);
}

/*
 * Row 1: a bad commit checksum on tid 4 of 2-6.  replay-all replays it
 * and goes on; stop ends before it.  With v2/v3 each data block is still
 * checked on its own (1: K's tag checksum fails as well: not written).
 */
static void row01_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	if (var && !is_v23(m))
		return;
	open_std(&pc, var ? "row01/and_bad_data" : "row01", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 4, 0, 1, 0);
	if (var)
		corrupt(&pc, EJ_CORRUPT_DATA, 4, 3, 9, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	if (var)
		plan_skip(&pc, 4, 3, JBD2_BLOCK_BAD_CSUM);
	ra.must = JBD2_CORRUPT_COMMIT_CSUM |
		  (var ? JBD2_CORRUPT_DATA_CSUM : 0);
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_BAD_CSUM, JBD2_COMMIT_BAD_CSUM);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 4, RIG_V_ANY);
	st.failed_commit = stop_failed_commit(m, 4, 1);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 2: async_commit, the last commit's checksum fails: a torn final
 * commit.  Tid 6 is skipped with its revoke of B (B keeps tid 5's
 * version), nothing is flagged, refuse replays as replay-all does.
 */
static void row02_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, "row02", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 6, 0, 0, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	plan_txn_out(&pc, 6, JBD2_BLOCK_ASYNC_TAIL);
	expect_status(&ra, 6, JBD2_COMMIT_ASYNC_TAIL, JBD2_COMMIT_ASYNC_TAIL);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 6, RIG_V_ANY);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 3: the last transaction never committed: no commit block (0), its
 * commit's magic garbled (1), its commit's sequence garbled (2), nothing
 * valid after it.  Not replayed, its revoke of B not honoured, no flag.
 */
static void row03_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row03/no_commit", "row03/commit_magic", "row03/commit_seq",
	};
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs, var ? 0 : W_T6_UNCOMMITTED);
	if (var)
		corrupt(&pc, EJ_CORRUPT_COMMIT_HEADER, 6, var == 1 ? 0 : 2,
			3, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	plan_txn_out(&pc, 6, JBD2_BLOCK_NOT_REPLAYED);
	expect_status(&ra, 6, JBD2_COMMIT_MISSING, JBD2_COMMIT_MISSING);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 6, RIG_V_ANY);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/* Row 4: no async_commit, the last commit's checksum fails: replay it. */
static void row04_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, "row04", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 6, 0, 2, 0x10);
	rig_resnap(&pc.r);

	plan_all(&pc);
	ra.must = JBD2_CORRUPT_COMMIT_CSUM;
	ra.first_bad = 6;
	expect_status(&ra, 6, JBD2_COMMIT_BAD_CSUM, JBD2_COMMIT_BAD_CSUM);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 6, RIG_V_ANY);
	st.failed_commit = 6;
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 5: v2/v3, two data blocks of tid 4 fail their tag checksums: A
 * (tid 2 logged it: that version stays) and K (logged nowhere else: its
 * old content stays).  stop skips them too and returns -EFSBADCRC.
 */
static void row05_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, "row05", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_DATA, 4, 0, 100, 0);
	corrupt(&pc, EJ_CORRUPT_DATA, 4, 3, bs - 1, 0x01);
	rig_resnap(&pc.r);

	plan_all(&pc);
	plan_skip(&pc, 4, 0, JBD2_BLOCK_BAD_CSUM);
	plan_skip(&pc, 4, 3, JBD2_BLOCK_BAD_CSUM);
	ra.must = JBD2_CORRUPT_DATA_CSUM;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	run_ra_refuse(&pc, &ra);

	st.rc = -EFSBADCRC;
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 6: none/v1, a data block of tid 4 (K) damaged.  Without checksums
 * nothing can tell: the damaged block is replayed.  With v1 the
 * transaction's crc32 fails: row 1 (replayed, flagged; stop ends there).
 */
static void row06_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };
	struct mtxn *t;

	open_std(&pc, "row06", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_DATA, 4, 3, 100, 0x5a);
	rig_resnap(&pc.r);
	/* the model logs what the journal now holds */
	t = &pc.r.tx[txi(&pc, 4)];
	t->data[3][100] ^= 0x5a;

	plan_all(&pc);
	if (m->csum == EJ_CSUM_V1) {
		ra.must = JBD2_CORRUPT_COMMIT_CSUM;
		ra.first_bad = 4;
		expect_status(&ra, 4, JBD2_COMMIT_BAD_CSUM,
			      JBD2_COMMIT_BAD_CSUM);
	} else {
		expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	}
	run_ra_refuse(&pc, &ra);

	if (m->csum == EJ_CSUM_V1) {
		plan_upto(&pc, 4, RIG_V_ANY);
		st.failed_commit = stop_failed_commit(m, 4, 1);
	}
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 7: v2/v3, tid 4's first descriptor (A E G) fails its checksum.
 *  0 count_sane	its tail is damaged, the tags are intact: the next
 *			block is found by the tag count
 *  1 resync_no_last	the last tag lost LAST_TAG: the tag list runs on
 *			into the zeros, resynchronise on tid 4's next block
 *  2 resync_early_last	the first tag got LAST_TAG: the count points
 *			into the data blocks, resynchronise
 * replay-all writes none of its blocks and the rest of tid 4 (K L, the
 * revoke of D) as usual.  stop: a sane count leads it to tid 4's commit,
 * whose time is not older: -EFSBADCRC and nothing replayed; a broken
 * count leads it onto a block that is no header: the log ends silently
 * before tid 4.
 */
static void row07_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row07/count_sane", "row07/resync_no_last",
		"row07/resync_early_last",
	};
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs, 0);
	if (var == 0)
		corrupt(&pc, EJ_CORRUPT_DESCR_TAIL, 4, 0, 2, 0);
	else if (var == 1)
		corrupt(&pc, EJ_CORRUPT_DESCR_TAG, 4, 0,
			tag_offset(&pc, 4, 2) - 12 + 7, JBD2_FLAG_LAST_TAG);
	else
		corrupt(&pc, EJ_CORRUPT_DESCR_TAG, 4, 0,
			tag_offset(&pc, 4, 0) - 12 + 7, JBD2_FLAG_LAST_TAG);
	rig_resnap(&pc.r);

	plan_all(&pc);
	plan_skip(&pc, 4, 0, JBD2_BLOCK_UNTRUSTED_DESC);
	/* a tag list cut short reports only the tags it has */
	plan_skip(&pc, 4, 1, var == 2 ? RIG_V_ANY : JBD2_BLOCK_UNTRUSTED_DESC);
	plan_skip(&pc, 4, 2, var == 2 ? RIG_V_ANY : JBD2_BLOCK_UNTRUSTED_DESC);
	ra.must = JBD2_CORRUPT_DESCR_CSUM;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	run_ra_refuse(&pc, &ra);

	if (var == 0) {
		plan_nothing(&pc);
		st.rc = -EFSBADCRC;
	} else {
		plan_upto(&pc, 4, RIG_V_ANY);
	}
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 8: tid 4's revoke block (revoking D, logged in tid 2).
 *  0 bad_tail		v2/v3: its checksum fails; the record is honoured
 *  1 count_bad_tail	v2/v3: r_count twice the block size, checksum
 *			not matching: honoured, read up to the block's end
 *  2 count_sealed	any mode: r_count twice the block size, checksums
 *			recomputed: honoured, read up to the block's end
 * The records past the real one are zeros: a revoke of block 0, which
 * no transaction logs.  stop: a failed revoke checksum gives -EFSBADCRC
 * at tid 4's commit, an r_count past the block -EINVAL in the revoke
 * pass, and nothing is replayed.
 */
static void row08_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row08/bad_tail", "row08/count_bad_tail",
		"row08/count_sealed",
	};
	unsigned int space = bs - (is_v23(m) ? 4 : 0);
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	if (var < 2 && !is_v23(m))
		return;
	open_std(&pc, names[var], m, bs, 0);
	if (var == 0) {
		corrupt(&pc, EJ_CORRUPT_REVOKE_TAIL, 4, 0, 3, 0);
	} else {
		corrupt(&pc, EJ_CORRUPT_REVOKE_COUNT, 4, 0, 0, 0);
		if (var == 2)
			assert_int_equal(ej_writer_reseal(pc.r.w, 4), 0);
		tx_model_revoke(&pc.r, txi(&pc, 4), 0);
	}
	rig_resnap(&pc.r);

	plan_all(&pc);
	ra.must = var == 0 ? JBD2_CORRUPT_REVOKE_CSUM :
		  var == 1 ? JBD2_CORRUPT_REVOKE_CSUM |
			     JBD2_CORRUPT_REVOKE_COUNT :
		  JBD2_CORRUPT_REVOKE_COUNT;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	ra.rev_check = 1;
	ra.rev_tid = 4;
	ra.rev_csum_ok = var == 2;
	ra.rev_nr = var == 0 ? 1 : (space - 16) / (is64(m) ? 8 : 4);
	run_ra_refuse(&pc, &ra);

	plan_nothing(&pc);
	st.rc = var == 2 ? -EINVAL : -EFSBADCRC;
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 9: a header garbled in the middle of the log, tid 5 intact after.
 *  0 commit_magic, 1 commit_seq	tid 4's commit block
 *  2 descr_magic, 3 descr_seq		tid 4's second descriptor (K L)
 * replay-all looks ahead, finds tid 5 (or tid 4's commit), replays tid 4
 * as far as it can be trusted (a garbled descriptor's blocks are not
 * written) and flags it.  stop: the log ends silently before tid 4.
 */
static void row09_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row09/commit_magic", "row09/commit_seq",
		"row09/descr_magic", "row09/descr_seq",
	};
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs, 0);
	if (var < 2)
		corrupt(&pc, EJ_CORRUPT_COMMIT_HEADER, 4, var ? 2 : 0, 3, 0);
	else
		corrupt(&pc, EJ_CORRUPT_RAW, 0,
			kind_jblock(&pc, 4, EJ_WB_DESCRIPTOR, 1),
			var == 2 ? 0 : 11, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	if (var >= 2) {
		plan_skip(&pc, 4, 3, RIG_V_ANY);
		plan_skip(&pc, 4, 4, RIG_V_ANY);
	}
	ra.must = JBD2_CORRUPT_GARBLED;
	ra.may = JBD2_CORRUPT_COMMIT_CSUM | JBD2_CORRUPT_DESCR_CSUM;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_GARBLED, JBD2_COMMIT_GARBLED);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 4, RIG_V_ANY);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 10: v2/v3, stale blocks of an earlier use of the journal after the
 * log's end: tid 6 with an older commit time, its commit, descriptor
 * and revoke checksums all failing (0: a revoke and a descriptor, 1: a
 * revoke only).  The end of the log: not replayed, not flagged, refuse
 * replays 2-5.  stop agrees (the commit's older time).
 */
static void row10_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row10/stale_descr_revoke", "row10/stale_revoke_only",
	};
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs,
		 W_T6_OLD | (var ? W_T6_REVOKE_ONLY : 0));
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 6, 0, 0, 0);
	corrupt(&pc, EJ_CORRUPT_REVOKE_TAIL, 6, 0, 0, 0);
	if (!var)
		corrupt(&pc, EJ_CORRUPT_DESCR_TAIL, 6, 0, 0, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	plan_txn_out(&pc, 6, RIG_V_ANY);
	/* the scan may stop at its descriptor or at its commit */
	expect_status(&ra, 6, JBD2_COMMIT_STALE,
		      var ? JBD2_COMMIT_STALE : JBD2_COMMIT_MISSING);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 6, RIG_V_ANY);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 10's counter-case: tid 4's commit fails its checksum and claims an
 * older time, but its descriptors and revoke block verify: a current
 * transaction with a damaged commit (row 1), not stale.  stop ends
 * silently before it (the time went backwards).
 */
static void row10b_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, "row10/old_commit_descr_ok", m, bs, W_T4_OLD);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 4, 0, 3, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	ra.must = JBD2_CORRUPT_COMMIT_CSUM;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_BAD_CSUM, JBD2_COMMIT_BAD_CSUM);
	run_ra_refuse(&pc, &ra);

	plan_upto(&pc, 4, RIG_V_ANY);
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Rows 11 and 11b: v2/v3, a commit block whose checksum holds only over
 * its header followed by zeros (header intact, the rest of the block
 * garbage).  Torn, and so complete, only as the last commit of a journal
 * without async_commit:
 * 0: tid 4, mid-log: not torn, its checksum failed (row 1: replayed,
 *    flagged);
 * 1: tid 6, the last: replayed, not flagged; with async_commit the
 *    async row (skipped with its revoke of B, not flagged);
 * 2: as 1, and tid 6's descriptor fails its checksum (row 7): the torn
 *    commit still commits tid 6, its revoke of B holds and its blocks are
 *    untrusted; with async_commit tid 6 is skipped whole.
 * e2fsprogs 1.47.0 does not know torn commits: under stop it is a bad
 * commit (row 1 / row 4 / async); on 2 stop fails on the descriptor.
 */
static void row11_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row11/torn_middle", "row11/torn_last",
		"row11/torn_last_after_bad_descr",
	};
	__u32 tid = var ? 6 : 4;
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_TORN_COMMIT, tid, 0, 0, 7 + var);
	if (var == 2)
		corrupt(&pc, EJ_CORRUPT_DESCR_TAIL, 6, 0, 1, 0);
	rig_resnap(&pc.r);

	plan_all(&pc);
	if (!var) {
		ra.must = JBD2_CORRUPT_COMMIT_CSUM;
		ra.first_bad = 4;
		expect_status(&ra, 4, JBD2_COMMIT_BAD_CSUM,
			      JBD2_COMMIT_BAD_CSUM);
	} else if (is_async(m)) {
		plan_txn_out(&pc, 6, JBD2_BLOCK_ASYNC_TAIL);
		expect_status(&ra, 6, JBD2_COMMIT_ASYNC_TAIL,
			      JBD2_COMMIT_ASYNC_TAIL);
	} else {
		if (var == 2) {
			plan_skip(&pc, 6, 0, JBD2_BLOCK_UNTRUSTED_DESC);
			plan_skip(&pc, 6, 1, JBD2_BLOCK_UNTRUSTED_DESC);
			ra.must = JBD2_CORRUPT_DESCR_CSUM;
			ra.first_bad = 6;
		}
		expect_status(&ra, 6, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	}
	run_ra_refuse(&pc, &ra);

	if (var == 2) {
		plan_nothing(&pc);
		st.rc = -EFSBADCRC;
	} else {
		plan_upto(&pc, tid, RIG_V_ANY);
		st.failed_commit = stop_failed_commit(m, tid, !var);
	}
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 12: a tag of tid 4 (E's) names, checksums valid, a block
 *  0 past the end of the filesystem
 *  1 inside the (internal) journal
 *  2 past the end through its high 32 bits (64-bit only)
 *  3 past the end of the filesystem of an external journal
 * Never written under any policy, flagged under every policy (E keeps
 * tid 3's version); refuse writes nothing.
 */
static void row12_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row12/past_fs_end", "row12/in_journal", "row12/high_bits",
		"row12/external",
	};
	unsigned long long target;
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	if (var == 2 && !is64(m))
		return;
	pcase_open(&pc, names[var], m, bs, var == 3, TID0, 3);
	std_workload(&pc, 0);
	switch (var) {
	case 1:
		target = pc.r.jbase + 3;
		break;
	case 2:
		target = (5ULL << 32) | B(&pc, BE);
		break;
	default:
		target = pc.r.fs->nr_blocks + 5;
		break;
	}
	corrupt(&pc, EJ_CORRUPT_TAG_RANGE, 4, 1, 0, target);
	rig_resnap(&pc.r);
	pc.r.tx[txi(&pc, 4)].blk[1] = target;

	plan_all(&pc);
	plan_skip(&pc, 4, 1, JBD2_BLOCK_OUT_OF_RANGE);
	ra.must = JBD2_CORRUPT_OUT_OF_RANGE;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_OK);
	run_ra_refuse(&pc, &ra);

	st.must = JBD2_CORRUPT_OUT_OF_RANGE;
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 13: a journal block of tid 4 cannot be read:
 *  0 data	E's data block: not written, E keeps tid 3's version
 *  1 descr	its first descriptor: A E G cannot be located, not written
 *  2 commit	its commit block
 * replay-all treats it as a failed checksum of that block and goes on.
 * stop: e2fsprogs fails the scan on an unreadable block (-EIO, nothing
 * replayed); a data block is only read in the scan with v1 (the log
 * then ends silently before tid 4), else in the replay (skipped, -EIO
 * at the end).
 */
static void row13_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const char *const names[] = {
		"row13/data", "row13/descr", "row13/commit",
	};
	unsigned long jb;
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	open_std(&pc, names[var], m, bs, 0);
	jb = var == 0 ? rig_data_jblock(&pc.r, 4, 1) :
	     var == 1 ? kind_jblock(&pc, 4, EJ_WB_DESCRIPTOR, 0) :
	     kind_jblock(&pc, 4, EJ_WB_COMMIT, 0);
	assert_int_equal(memdev_fail_read(pc.r.jd, pc.r.jbase + jb), 0);

	plan_all(&pc);
	ra.must = JBD2_CORRUPT_IO_ERROR;
	ra.first_bad = 4;
	if (var == 0) {
		plan_skip(&pc, 4, 1, JBD2_BLOCK_IO_ERROR);
		/* v1: the transaction's crc32 cannot be computed */
		ra.may = JBD2_CORRUPT_COMMIT_CSUM;
		expect_status(&ra, 4, JBD2_COMMIT_OK, JBD2_COMMIT_BAD_CSUM);
	} else {
		if (var == 1) {
			plan_skip(&pc, 4, 0, RIG_V_ANY);
			plan_skip(&pc, 4, 1, RIG_V_ANY);
			plan_skip(&pc, 4, 2, RIG_V_ANY);
		}
		ra.may = JBD2_CORRUPT_GARBLED | JBD2_CORRUPT_DESCR_CSUM |
			 JBD2_CORRUPT_COMMIT_CSUM;
		expect_status(&ra, 4, JBD2_COMMIT_GARBLED,
			      JBD2_COMMIT_BAD_CSUM);
	}
	run_ra_refuse(&pc, &ra);

	if (var == 0 && m->csum == EJ_CSUM_V1) {
		plan_upto(&pc, 4, RIG_V_ANY);
	} else if (var == 0) {
		plan_skip(&pc, 4, 1, JBD2_BLOCK_IO_ERROR);
		st.rc = -EIO;
	} else {
		plan_nothing(&pc);
		st.rc = -EIO;
	}
	run(&pc, JBD2_POLICY_STOP, &st);
	pcase_close(&pc);
}

/*
 * Row 14: the journal superblock's checksum fails, the rest of it is
 * sound.  Accepting such a superblock, setting JBD2_CORRUPT_SUPERBLOCK,
 * and what stop and refuse then do (reset without replay; refuse) are
 * the opener's and the host's job (jopen.c, jglue.c).  What recovery
 * must do under replay-all, given the superblock and the preset flag:
 * replay with every block checked (K's bad tag checksum still keeps it
 * out) and name tid 4 as the first bad one.
 */
static void row14_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	struct pcase pc;
	struct pexp ra = { 0 };
	char what[160];
	unsigned char *img;
	journal_t *j;
	unsigned long k;

	open_std(&pc, "row14", m, bs, 0);
	corrupt(&pc, EJ_CORRUPT_JSB_CSUM, 0, 0, 1, 0);
	corrupt(&pc, EJ_CORRUPT_DATA, 4, 3, 5, 0);
	rig_resnap(&pc.r);
	assert_false(ej_jsb_csum_verify((journal_superblock_t *)
					jblk(&pc.r, 0)));

	plan_all(&pc);
	plan_skip(&pc, 4, 3, JBD2_BLOCK_BAD_CSUM);
	ra.must = JBD2_CORRUPT_DATA_CSUM;
	ra.may = JBD2_CORRUPT_SUPERBLOCK;
	ra.first_bad = 4;

	snprintf(what, sizeof(what), "%s [replay-all, SUPERBLOCK preset]",
		 pc.name);
	img = model_image(&pc.r);
	memcpy(pc.r.fs->data, pc.r.fs_pre,
	       (size_t)pc.r.fs->nr_blocks * bs);
	memset(pc.r.host.writes, 0,
	       pc.r.fs->nr_blocks * sizeof(*pc.r.host.writes));
	assert_int_equal(memhost_load(&pc.r.host, JBD2_POLICY_REPLAY_ALL), 0);
	j = pc.r.host.journal;
	j->j_replay_corrupt |= JBD2_CORRUPT_SUPERBLOCK;
	pc.r.rc = jbd2_journal_recover(j);
	if (pc.r.rc)
		bad("%s: returned %d", what, pc.r.rc);
	if (!(j->j_replay_corrupt & JBD2_CORRUPT_DATA_CSUM) ||
	    (j->j_replay_corrupt & ~(ra.must | ra.may)))
		bad("%s: flags 0x%x, expected 0x%x (and maybe 0x%x)", what,
		    j->j_replay_corrupt, ra.must, ra.may);
	if (j->j_replay_first_bad != 4)
		bad("%s: first bad tid %u, expected 4", what,
		    j->j_replay_first_bad);
	k = rig_image_diff(&pc.r, img, what);
	if (k)
		bad("%s: %lu blocks differ from the model", what, k);
	check_writes(&pc, 0, what);
	check_report(&pc, &pc.r.host.report, 0, what);
	free(img);
	pc.r.host.bad_replays = 0;
	rig_done(&pc.r, what);

	/* the same without the preset: the superblock plays no part */
	run(&pc, JBD2_POLICY_REPLAY_ALL, &ra);
	pcase_close(&pc);
}

/* ------------------------------------------------------------------ */
/* The seeds' two scenarios                                            */

/*
 * Transactions 2-6 each log X and Y (and one block of their own); tid
 * 4's commit checksum fails.  replay-all replays 2-6 and flags: X and Y
 * hold tid 6's versions.  stop replays 2-3: tid 3's versions.  refuse
 * writes nothing.
 */
static void seeds1_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	const unsigned long X = 40, Y = 41;
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };
	__u32 tid;
	size_t i6, i3;

	pcase_open(&pc, "seeds1", m, bs, 0, 2, 0);
	for (tid = 2; tid <= 6; tid++) {
		assert_int_equal(tx_begin(&pc.r), tid);
		tx_add(&pc.r, B(&pc, X), tid == 5);
		tx_add(&pc.r, B(&pc, Y), 0);
		tx_add(&pc.r, B(&pc, 50 + tid), 0);
		tx_commit(&pc.r);
	}
	rig_seal(&pc.r);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 4, 0, 0, 0);
	rig_resnap(&pc.r);
	i6 = txi(&pc, 6);
	i3 = txi(&pc, 3);

	plan_all(&pc);
	ra.must = JBD2_CORRUPT_COMMIT_CSUM;
	ra.first_bad = 4;
	expect_status(&ra, 4, JBD2_COMMIT_BAD_CSUM, JBD2_COMMIT_BAD_CSUM);
	run(&pc, JBD2_POLICY_REPLAY_ALL, &ra);
	if (memcmp(memdev_block(pc.r.fs, B(&pc, X)), pc.r.tx[i6].data[0], bs) ||
	    memcmp(memdev_block(pc.r.fs, B(&pc, Y)), pc.r.tx[i6].data[1], bs))
		bad("%s [replay-all]: X and Y do not hold tid 6's versions",
		    pc.name);
	ra.refused = 1;
	ra.rc = -EFSCORRUPTED;
	run(&pc, JBD2_POLICY_REFUSE, &ra);

	plan_upto(&pc, 4, RIG_V_ANY);
	st.failed_commit = stop_failed_commit(m, 4, 1);
	run(&pc, JBD2_POLICY_STOP, &st);
	if (memcmp(memdev_block(pc.r.fs, B(&pc, X)), pc.r.tx[i3].data[0], bs))
		bad("%s [stop]: X does not hold tid 3's version", pc.name);
	pcase_close(&pc);
}

/*
 * Ts'o's case.  Tid 1 logs metadata block M (a directory block) and the
 * bitmap; tid 2 frees M (revokes it, logs the bitmap) and its commit
 * checksum is damaged; tid 3 allocates M as a file's data, which is
 * written in place (data=ordered: M is not logged), and logs the bitmap
 * and the file's inode.  So the device holds tid 3's data in M before
 * replay.  replay-all honours tid 2's revoke: M keeps the file's data.
 * stop ends before tid 2 and writes tid 1's stale directory block over
 * the file's data: e2fsprogs 1.47's behaviour, kept for compatibility.
 * refuse writes nothing: M keeps the data too.
 */
static void seeds2_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	const unsigned long M = 60, BITMAP = 61, INODE = 62;
	unsigned char *file_data = malloc(bs);
	struct pcase pc;
	struct pexp ra = { 0 }, st = { 0 };

	assert_non_null(file_data);
	pcase_open(&pc, "seeds2", m, bs, 0, 1, 0);
	assert_int_equal(tx_begin(&pc.r), 1);
	tx_add(&pc.r, B(&pc, M), 0);
	tx_add(&pc.r, B(&pc, BITMAP), 0);
	tx_commit(&pc.r);
	assert_int_equal(tx_begin(&pc.r), 2);
	tx_revoke(&pc.r, B(&pc, M));
	tx_add(&pc.r, B(&pc, BITMAP), 0);
	tx_commit(&pc.r);
	assert_int_equal(tx_begin(&pc.r), 3);
	tx_add(&pc.r, B(&pc, BITMAP), 0);
	tx_add(&pc.r, B(&pc, INODE), 0);
	tx_commit(&pc.r);
	rig_seal(&pc.r);
	corrupt(&pc, EJ_CORRUPT_COMMIT_CSUM, 2, 0, 3, 0);
	/* tid 3's data block, written in place before the crash */
	rnd_fill(&pc.r.rnd, file_data, bs);
	memcpy(memdev_block(pc.r.fs, B(&pc, M)), file_data, bs);
	rig_resnap(&pc.r);

	plan_all(&pc);
	ra.must = JBD2_CORRUPT_COMMIT_CSUM;
	ra.first_bad = 2;
	expect_status(&ra, 2, JBD2_COMMIT_BAD_CSUM, JBD2_COMMIT_BAD_CSUM);
	run(&pc, JBD2_POLICY_REPLAY_ALL, &ra);
	if (memcmp(memdev_block(pc.r.fs, B(&pc, M)), file_data, bs))
		bad("%s [replay-all]: M lost the file's data (tid 2's revoke not honoured)",
		    pc.name);
	ra.refused = 1;
	ra.rc = -EFSCORRUPTED;
	run(&pc, JBD2_POLICY_REFUSE, &ra);
	if (memcmp(memdev_block(pc.r.fs, B(&pc, M)), file_data, bs))
		bad("%s [refuse]: M changed", pc.name);

	plan_upto(&pc, 2, RIG_V_ANY);
	st.failed_commit = stop_failed_commit(m, 2, 1);
	run(&pc, JBD2_POLICY_STOP, &st);
	if (memcmp(memdev_block(pc.r.fs, B(&pc, M)), pc.r.tx[0].data[0], bs))
		bad("%s [stop]: M does not hold tid 1's directory block, as e2fsprogs 1.47 leaves it",
		    pc.name);
	pcase_close(&pc);
	free(file_data);
}

/* ------------------------------------------------------------------ */
/* What no policy ever writes                                          */

/*
 * Tid 3's first descriptor fails its checksum (v2/v3) with one of its
 * tags pointing elsewhere (a flipped block number bit); tid 4's tags
 * name a block past the filesystem and one inside the journal (or past
 * the end again, external).  Under every policy, none of these blocks
 * is written, nor is any block outside the filesystem asked for: only
 * blocks named by trusted descriptors in range may be written (0 on an
 * internal journal, 1 on an external one).
 */
static void nowrite_case(const struct rig_cfg *m, unsigned int bs, int var)
{
	static const int policies[] = {
		JBD2_POLICY_REPLAY_ALL, JBD2_POLICY_STOP, JBD2_POLICY_REFUSE,
	};
	unsigned long long nr, b, allowed[8];
	unsigned int nr_allowed = 0, i, p;
	unsigned int off;
	struct pcase pc;
	char what[160];

	pcase_open(&pc, var ? "nowrite/ext" : "nowrite", m, bs, var, TID0, 3);
	nr = pc.r.fs->nr_blocks;
	tx_begin(&pc.r);			/* 2 */
	tx_add(&pc.r, B(&pc, 70), 0);
	tx_add(&pc.r, B(&pc, 71), 1);
	tx_commit(&pc.r);
	tx_begin(&pc.r);			/* 3 */
	tx_add(&pc.r, B(&pc, 100), 0);
	tx_add(&pc.r, B(&pc, 110), 1);
	tx_add(&pc.r, B(&pc, 120), 0);
	tx_add(&pc.r, B(&pc, 130), 0);
	tx_commit(&pc.r);
	tx_begin(&pc.r);			/* 4 */
	tx_add(&pc.r, B(&pc, 140), 0);
	tx_add(&pc.r, B(&pc, 150), 0);
	tx_add(&pc.r, B(&pc, 160), 0);
	tx_commit(&pc.r);
	tx_begin(&pc.r);			/* 5 */
	tx_add(&pc.r, B(&pc, 170), 0);
	tx_commit(&pc.r);
	rig_seal(&pc.r);

	corrupt(&pc, EJ_CORRUPT_TAG_RANGE, 4, 0, 0, nr + 5);
	corrupt(&pc, EJ_CORRUPT_TAG_RANGE, 4, 1, 0,
		var ? nr + 1000 : pc.r.jbase + 7);
	allowed[nr_allowed++] = B(&pc, 70);
	allowed[nr_allowed++] = B(&pc, 71);
	allowed[nr_allowed++] = B(&pc, 160);
	allowed[nr_allowed++] = B(&pc, 170);
	allowed[nr_allowed++] = B(&pc, 130);	/* tid 3's second descriptor */
	if (is_v23(m)) {
		/* tag 1 (block 110) now names block 111 */
		off = tag_offset(&pc, 3, 1) - 12 + 3;
		corrupt(&pc, EJ_CORRUPT_DESCR_TAG, 3, 0, off, 0x01);
		assert_int_equal(B(&pc, 111), B(&pc, 110) + 1);
	} else {
		allowed[nr_allowed++] = B(&pc, 100);
		allowed[nr_allowed++] = B(&pc, 110);
		allowed[nr_allowed++] = B(&pc, 120);
	}
	rig_resnap(&pc.r);

	for (p = 0; p < ARRAY_SIZE(policies); p++) {
		snprintf(what, sizeof(what), "%s [%s]", pc.name,
			 ej_policy_name(policies[p]));
		rig_recover(&pc.r, policies[p]);
		for (b = 0; b < nr; b++) {
			int ok = 0;

			for (i = 0; i < nr_allowed; i++)
				ok |= allowed[i] == b;
			if (pc.r.host.writes[b] && !ok)
				bad("%s: block %llu written (rc %d)", what, b,
				    pc.r.rc);
		}
		if (pc.r.host.bad_replays)
			bad("%s: replay asked to write %lu block(s) outside the filesystem or inside the journal (first %llu)",
			    what, pc.r.host.bad_replays,
			    pc.r.host.first_bad);
		if (!(pc.r.host.journal->j_replay_corrupt &
		      JBD2_CORRUPT_OUT_OF_RANGE) &&
		    !(policies[p] == JBD2_POLICY_STOP && pc.r.rc))
			bad("%s: out-of-range tags not flagged (0x%x)", what,
			    pc.r.host.journal->j_replay_corrupt);
		if (pc.r.external && memcmp(pc.r.jd->data, pc.r.jd_pre,
					    (size_t)pc.r.jd->nr_blocks * bs))
			bad("%s: recovery wrote into the external journal",
			    what);
		pc.r.host.bad_replays = 0;
		rig_done(&pc.r, what);
	}
	pcase_close(&pc);
}

/* ------------------------------------------------------------------ */

static void each_mode(const struct rowtest *rt)
{
	size_t mi, bi;
	int v;

	for (mi = 0; mi < ARRAY_SIZE(modes); mi++) {
		if (!applies(&modes[mi], rt->when))
			continue;
		for (bi = 0; bi < ARRAY_SIZE(block_sizes); bi++)
			for (v = 0; v < rt->nr_var; v++)
				rt->fn(&modes[mi], block_sizes[bi], v);
	}
}

static void test_row(void **state)
{
	const struct rowtest *rt = *state;

	nr_failed = 0;
	each_mode(rt);
	if (nr_failed)
		fail_msg("%u check(s) failed", nr_failed);
}

#define ROW(name, when, nr_var, fn)					\
	{ name, { when, nr_var, fn } }

static const struct {
	const char	*name;
	struct rowtest	rt;
} rows[] = {
	ROW("row00_healthy_journal", A_ANY, 1, row00_case),
	ROW("row01_bad_commit_csum_not_last", A_CSUM, 2, row01_case),
	ROW("row02_bad_last_commit_async", A_ASYNC, 1, row02_case),
	ROW("row03_last_txn_no_commit", A_ANY, 3, row03_case),
	ROW("row04_bad_last_commit_sync", A_SYNC_CSUM, 1, row04_case),
	ROW("row05_bad_data_tag_csum", A_V23, 1, row05_case),
	ROW("row06_data_block_v1_none", A_NONE_V1, 1, row06_case),
	ROW("row07_bad_descriptor_csum", A_V23, 3, row07_case),
	ROW("row08_bad_revoke_csum", A_ANY, 3, row08_case),
	ROW("row09_garbled_header_mid_journal", A_ANY, 4, row09_case),
	ROW("row10_stale_commit_lazy_init", A_V23, 2, row10_case),
	ROW("row10_old_commit_descriptors_verify_is_row01", A_V23, 1,
	    row10b_case),
	ROW("row11_torn_commit", A_V23, 3, row11_case),
	ROW("row12_tag_out_of_range", A_ANY, 4, row12_case),
	ROW("row13_read_error", A_ANY, 3, row13_case),
	ROW("row14_jsb_csum_only", A_V23, 1, row14_case),
	ROW("seeds1_txn2to6_commit4_bad", A_CSUM, 1, seeds1_case),
	ROW("seeds2_revoke_protects_reused_blocks", A_CSUM, 1, seeds2_case),
	ROW("no_policy_writes_untrusted_or_outside", A_ANY, 2, nowrite_case),
};

int main(void)
{
	static struct CMUnitTest tests[ARRAY_SIZE(rows)];
	size_t i;

	rig_watchdog("test_policy", TEST_TIMEOUT);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		tests[i] = (struct CMUnitTest){ rows[i].name, test_row,
						rig_arm_timer, NULL,
						(void *)&rows[i].rt };
	return _cmocka_run_group_tests("test_policy", tests, ARRAY_SIZE(rows),
				       NULL, NULL);
}
