// SPDX-License-Identifier: LGPL-2.0
/*
 * report.c: what recovery decided, block by block, and the hooks through
 * which recovery.c tells it.
 *
 * recovery.c calls the jbd2_recovery_*() hooks below; they have each
 * block's final verdict decided (verdict.c), record every transaction,
 * revoke block and the verdict counts in journal->j_report, note the
 * latest replayed version of each filesystem block in the host's
 * final-version map (journal->j_final, finalmap.c), which says what it
 * supersedes, and hand replayed blocks to the host.  The entry of every
 * logged block (blocks[], 32 bytes each: the one thing that grows with
 * the log rather than with the distinct blocks) is kept only when the
 * caller asks (opts.keep_blocks); the host's map alone says what to
 * write.  The same file
 * serves the io_channel host (jglue.c) and the in-memory one of the unit
 * tests, so it does no I/O of its own.  The caller's callbacks are
 * registered through ej_report_on_message(), ej_report_on_block() and
 * ej_report_on_progress().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "ej_int.h"

#define EJ_NOT_KEPT	((size_t)-2)	/* noted, but blocks[] is not kept */

/* What hangs off ej_report.priv: the caller's overrides, sorted. */
struct ej_report_priv {
	struct ej_override	*ovr;		/* sorted for binary search */
	size_t			nr_ovr;
	const struct ej_override *ovr_src;	/* what ovr was built from */
	size_t			nr_ovr_src;
};

static const char *const verdict_names[JBD2_BLOCK_VERDICT_MAX] = {
	[JBD2_BLOCK_REPLAYED]		= "replayed",
	[JBD2_BLOCK_SUPERSEDED]		= "superseded",
	[JBD2_BLOCK_REVOKED]		= "revoked",
	[JBD2_BLOCK_BAD_CSUM]		= "bad_csum",
	[JBD2_BLOCK_UNTRUSTED_DESC]	= "untrusted_desc",
	[JBD2_BLOCK_OUT_OF_RANGE]	= "out_of_range",
	[JBD2_BLOCK_ASYNC_TAIL]		= "async_tail",
	[JBD2_BLOCK_NOT_REPLAYED]	= "not_replayed",
	[JBD2_BLOCK_IO_ERROR]		= "io_error",
	[JBD2_BLOCK_USER_SKIP]		= "user_skip",
};

static const char *const status_names[JBD2_COMMIT_STATUS_MAX] = {
	[JBD2_COMMIT_OK]		= "ok",
	[JBD2_COMMIT_BAD_CSUM]		= "bad_csum",
	[JBD2_COMMIT_GARBLED]		= "garbled",
	[JBD2_COMMIT_MISSING]		= "missing",
	[JBD2_COMMIT_STALE]		= "stale",
	[JBD2_COMMIT_ASYNC_TAIL]	= "async_tail",
};

static const struct {
	unsigned int	bit;
	const char	*name;
} corrupt_names[] = {
	{ JBD2_CORRUPT_COMMIT_CSUM,	"commit_csum" },
	{ JBD2_CORRUPT_DATA_CSUM,	"data_csum" },
	{ JBD2_CORRUPT_DESCR_CSUM,	"descr_csum" },
	{ JBD2_CORRUPT_REVOKE_CSUM,	"revoke_csum" },
	{ JBD2_CORRUPT_GARBLED,		"garbled" },
	{ JBD2_CORRUPT_OUT_OF_RANGE,	"out_of_range" },
	{ JBD2_CORRUPT_IO_ERROR,	"io_error" },
	{ JBD2_CORRUPT_REVOKE_COUNT,	"revoke_count" },
	{ JBD2_CORRUPT_SUPERBLOCK,	"superblock" },
	{ JBD2_CORRUPT_LOOP,		"loop" },
	{ EJ_CORRUPT_FAST_COMMIT,	"fast_commit" },
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define NR_CORRUPT_NAMES ARRAY_SIZE(corrupt_names)

static const char *const policy_names[] = {
	[JBD2_POLICY_REPLAY_ALL]	= "replay-all",
	[JBD2_POLICY_STOP]		= "stop",
	[JBD2_POLICY_REFUSE]		= "refuse",
};

const char *ej_verdict_name(unsigned int verdict)
{
	if (verdict >= JBD2_BLOCK_VERDICT_MAX)
		return "unknown";
	return verdict_names[verdict];
}

const char *ej_commit_status_name(unsigned int status)
{
	if (status >= JBD2_COMMIT_STATUS_MAX)
		return "unknown";
	return status_names[status];
}

const char *ej_policy_name(int policy)
{
	if (policy < 0 || policy > JBD2_POLICY_REFUSE)
		return "unknown";
	return policy_names[policy];
}

/* 0 and *policy set, or -1 when @name is not a policy. */
int ej_policy_parse(const char *name, int *policy)
{
	int i;

	if (!name || !policy)
		return -1;
	for (i = 0; i <= JBD2_POLICY_REFUSE; i++) {
		if (!strcmp(name, policy_names[i])) {
			*policy = i;
			return 0;
		}
	}
	/* the spelling -E options and JSON keys tend to use */
	if (!strcmp(name, "replay_all")) {
		*policy = JBD2_POLICY_REPLAY_ALL;
		return 0;
	}
	return -1;
}

errcode_t ej_policy_parse2(const char *name, int *policy)
{
	if (!name || !policy)
		return EJ_BAD_ARG;
	return ej_policy_parse(name, policy) ? EJ_UNKNOWN_POLICY : 0;
}

errcode_t ej_report_init(struct ej_report *r)
{
	if (!r)
		return EJ_BAD_ARG;
	memset(r, 0, sizeof(*r));
	r->policy = JBD2_POLICY_REPLAY_ALL;
	return 0;
}

void ej_report_on_message(struct ej_report *r, ej_msg_fn fn, void *arg)
{
	r->hooks.msg_fn = fn;
	r->hooks.msg_arg = fn ? arg : NULL;
}

void ej_report_on_block(struct ej_report *r, ej_block_fn fn, void *arg)
{
	r->hooks.block_fn = fn;
	r->hooks.block_arg = fn ? arg : NULL;
}

void ej_report_on_progress(struct ej_report *r, ej_progress_fn fn,
			   void *arg)
{
	r->hooks.progress_fn = fn;
	r->hooks.progress_arg = fn ? arg : NULL;
}

static void priv_free(struct ej_report_priv *p)
{
	if (!p)
		return;
	free(p->ovr);
	free(p);
}

void ej_report_free(struct ej_report *r)
{
	if (!r)
		return;
	free(r->txns);
	ej_big_free(r->blocks);
	free(r->revokes);
	priv_free(r->priv);
	r->txns = NULL;
	r->blocks = NULL;
	r->revokes = NULL;
	r->priv = NULL;
	r->nr_txns = r->max_txns = 0;
	r->nr_blocks = r->max_blocks = 0;
	r->nr_logged = 0;
	r->nr_revokes = r->max_revokes = 0;
	memset(r->counts, 0, sizeof(r->counts));
}

static struct ej_report_priv *priv_get(struct ej_report *r)
{
	if (!r->priv)
		r->priv = calloc(1, sizeof(struct ej_report_priv));
	return r->priv;
}

/*
 * The per-block array, which reaches millions of entries, is huge-page
 * backed (bigmem.c), so growing it costs a copy, not a page fault per
 * 4 KiB: move *arr's first @nr elements into a new array of @n.
 */
static int resize_big(void **arr, size_t *max, size_t nr, size_t n,
		      size_t size)
{
	void *p;

	if (n > ((size_t)-1) / size)
		return -ENOMEM;
	p = ej_big_zalloc(n * size);
	if (!p)
		return -ENOMEM;
	if (*arr)
		memcpy(p, *arr, nr * size);
	ej_big_free(*arr);
	*arr = p;
	*max = n;
	return 0;
}

/* Room for one more in the per-block array (huge-page backed). */
static int grow_big(void **arr, size_t *max, size_t nr, size_t size)
{
	size_t n;

	if (nr < *max)
		return 0;
	n = *max ? *max * 2 : 1024;
	if (n < *max)
		return -ENOMEM;
	return resize_big(arr, max, nr, n, size);
}

/*
 * Recovery reports its transactions before their blocks: size the block
 * array for every log block they span at once, so that a long log is not
 * copied (and its pages touched) once per doubling.  A hint: the array
 * still grows if more come.
 */
static void reserve_blocks(struct ej_report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_txns; i++)
		n += r->txns[i].nr_blocks;
	if (n > 1024 && n > r->max_blocks)
		resize_big((void **)&r->blocks, &r->max_blocks, r->nr_blocks,
			   n, sizeof(*r->blocks));
}

/* ---------------------------------------------------------- overrides */

static int ovr_cmp(const void *a, const void *b)
{
	const struct ej_override *x = a, *y = b;

	if (x->fsblock != y->fsblock)
		return x->fsblock < y->fsblock ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->force != 0) - (y->force != 0);
}

/* Is there an override {tid, fsblock} with force == !!@force? */
static int ovr_match(struct ej_report *r, __u32 tid,
		     unsigned long long fsblock, int force)
{
	const struct ej_report_opts *ro = &r->opts;
	struct ej_report_priv *p;
	struct ej_override key;
	size_t lo, hi;

	if (!ro->overrides || !ro->nr_overrides)
		return 0;
	p = priv_get(r);
	if (!p)
		return 0;
	if (p->ovr_src != ro->overrides || p->nr_ovr_src != ro->nr_overrides) {
		struct ej_override *o;

		o = malloc(ro->nr_overrides * sizeof(*o));
		if (!o)
			return 0;
		memcpy(o, ro->overrides, ro->nr_overrides * sizeof(*o));
		qsort(o, ro->nr_overrides, sizeof(*o), ovr_cmp);
		free(p->ovr);
		p->ovr = o;
		p->nr_ovr = ro->nr_overrides;
		p->ovr_src = ro->overrides;
		p->nr_ovr_src = ro->nr_overrides;
	}
	key.fsblock = fsblock;
	key.tid = tid;
	key.force = !!force;
	lo = 0;
	hi = p->nr_ovr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = ovr_cmp(&p->ovr[mid], &key);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* --------------------------------------------------------------- hooks */

int jbd2_recovery_block_ok(journal_t *journal, unsigned long long blocknr)
{
	if (!journal->j_host_ops || !journal->j_host_ops->block_ok)
		return 0;
	return journal->j_host_ops->block_ok(journal, blocknr) ? 1 : 0;
}

static int host_replay(journal_t *journal, struct buffer_head *obh,
		       unsigned long long blocknr, int escape)
{
	if (!journal->j_host_ops || !journal->j_host_ops->replay)
		return 0;
	return journal->j_host_ops->replay(journal, obh, blocknr, escape);
}

int jbd2_recovery_block(journal_t *journal, struct buffer_head *obh,
			tid_t tid, unsigned long jblock,
			unsigned long long blocknr, unsigned int tag_flags,
			int verdict)
{
	struct ej_report *r = journal->j_report;
	int escape = !!(tag_flags & JBD2_FLAG_ESCAPE);
	struct ej_verdict_in in = {
		.policy_verdict	= verdict,
		.policy		= journal->j_replay_policy,
		.tid		= tid,
		.have_data	= obh != NULL,
		.in_range	= jbd2_recovery_block_ok(journal, blocknr),
	};
	struct ej_verdict_out out;
	struct ej_block_entry *e;
	size_t idx, older;
	int err;

	if (r) {
		in.user_skip = ovr_match(r, tid, blocknr, 0);
		in.user_force = ovr_match(r, tid, blocknr, 1);
		in.upto_set = r->opts.upto_set;
		in.upto_tid = r->opts.upto_tid;
		in.jsb_bad_csum = r->jsb_bad_csum;
	}
	ej_verdict_decide(&in, &out);
	verdict = out.verdict;

	if (!r) {
		if (verdict != JBD2_BLOCK_REPLAYED)
			return 0;
		return host_replay(journal, obh, blocknr, escape);
	}
	r->corrupt |= out.corrupt;

	idx = EJ_NOT_KEPT;
	if (r->opts.keep_blocks) {
		if (!r->max_blocks)
			reserve_blocks(r);
		if (grow_big((void **)&r->blocks, &r->max_blocks,
			     r->nr_blocks, sizeof(*r->blocks)))
			return -ENOMEM;
		idx = r->nr_blocks++;
		e = &r->blocks[idx];
		e->tid = tid;
		e->verdict = verdict;
		e->tag_flags = tag_flags;
		e->jblock = jblock;
		e->fsblock = blocknr;
	}
	r->nr_logged++;
	r->counts[verdict]++;
	if (r->hooks.block_fn)
		r->hooks.block_fn(r->hooks.block_arg, tid, jblock, blocknr,
				  verdict);
	if (verdict != JBD2_BLOCK_REPLAYED)
		return 0;

	/*
	 * The map holds REPLAYED versions only, so the older entry is marked
	 * without being read first: on a long log that read was a cache
	 * miss per block.  A host without a map supersedes nothing.
	 */
	if (journal->j_final) {
		if (ej_final_map_note(journal->j_final, blocknr, jblock,
				      escape, idx, &older))
			return -ENOMEM;
		if (older != EJ_FINAL_NONE) {
			if (older < r->nr_blocks)
				r->blocks[older].verdict =
					JBD2_BLOCK_SUPERSEDED;
			r->counts[JBD2_BLOCK_REPLAYED]--;
			r->counts[JBD2_BLOCK_SUPERSEDED]++;
		}
	}

	err = host_replay(journal, obh, blocknr, escape);
	return err > 0 ? -err : err;
}

void jbd2_recovery_txn(journal_t *journal, const struct jbd2_txn_info *ti)
{
	struct ej_report *r = journal->j_report;

	if (!r || !ti)
		return;
	if (ej_grow((void **)&r->txns, &r->max_txns, r->nr_txns + 1,
		    sizeof(*r->txns)))
		return;
	r->txns[r->nr_txns] = *ti;
	/* as its blocks: nothing is replayed from an untrusted journal */
	if (ej_verdict_jsb(journal->j_replay_policy, r->jsb_bad_csum) !=
	    EJ_JSB_TRUSTED)
		r->txns[r->nr_txns].replay = 0;
	r->nr_txns++;
}

void jbd2_recovery_revoke_block(journal_t *journal, tid_t tid,
				unsigned long jblock, unsigned int nr_records,
				int csum_ok)
{
	struct ej_report *r = journal->j_report;
	struct ej_revoke_entry *e;

	if (!r)
		return;
	if (ej_grow((void **)&r->revokes, &r->max_revokes,
		    r->nr_revokes + 1, sizeof(*r->revokes)))
		return;
	e = &r->revokes[r->nr_revokes++];
	e->tid = tid;
	e->jblock = jblock;
	e->nr_records = nr_records;
	e->csum_ok = !!csum_ok;
}

void jbd2_recovery_msg(journal_t *journal, const char *fmt, ...)
{
	struct ej_report *r = journal->j_report;
	char buf[512], *line = buf;
	va_list ap;
	int n;

	if (!r || !r->hooks.msg_fn || !fmt)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		line = malloc((size_t)n + 1);
		if (line) {
			va_start(ap, fmt);
			vsnprintf(line, (size_t)n + 1, fmt, ap);
			va_end(ap);
		} else {
			line = buf;	/* truncated beats nothing */
		}
	}
	r->hooks.msg_fn(r->hooks.msg_arg, line);
	if (line != buf)
		free(line);
}

/* ---------------------------------------------------------- rendering */

struct sbuf {
	char	*s;
	size_t	len, cap;
	int	failed;
};

static __printf(2, 3) void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		{
			size_t cap = b->cap ? b->cap : 4096;
			char *p;

			while (cap - b->len <= (size_t)n)
				cap *= 2;
			p = realloc(b->s, cap);
			if (!p) {
				b->failed = 1;
				return;
			}
			b->s = p;
			b->cap = cap;
		}
	}
}

static errcode_t sb_finish(struct sbuf *b, char **out)
{
	if (!b->failed && !b->s)
		sb_printf(b, "%s", "");
	if (b->failed) {
		free(b->s);
		*out = NULL;
		return EJ_NO_MEMORY;
	}
	*out = b->s;
	return 0;
}

static const char *json_bool(int v)
{
	return v ? "true" : "false";
}

/* The members after the first of one JSON object: ", \"name\": value" */
static void js_num(struct sbuf *b, const char *name, unsigned long long v)
{
	sb_printf(b, ", \"%s\": %llu", name, v);
}

static void js_str(struct sbuf *b, const char *name, const char *v)
{
	sb_printf(b, ", \"%s\": \"%s\"", name, v);
}

static void js_bool(struct sbuf *b, const char *name, int v)
{
	sb_printf(b, ", \"%s\": %s", name, json_bool(v));
}

static void json_txn(struct sbuf *b, const struct jbd2_txn_info *t)
{
	sb_printf(b, "{\"tid\": %u", t->tid);
	js_num(b, "first_block", t->first_block);
	if (t->commit_block == ~0UL)
		sb_printf(b, ", \"commit_block\": null");
	else
		js_num(b, "commit_block", t->commit_block);
	js_num(b, "blocks", t->nr_blocks);
	js_num(b, "descriptor_blocks", t->nr_descr);
	js_num(b, "revoke_blocks", t->nr_revoke);
	js_num(b, "bad_descriptor_blocks", t->nr_bad_descr);
	js_num(b, "bad_revoke_blocks", t->nr_bad_revoke);
	js_str(b, "status", ej_commit_status_name(t->status));
	js_bool(b, "replayed", t->replay);
	js_bool(b, "revokes_honoured", t->revokes);
	js_num(b, "commit_sec", t->commit_sec);
	sb_printf(b, "}");
}

static void json_block(struct sbuf *b, const struct ej_block_entry *e)
{
	sb_printf(b, "{\"tid\": %u", e->tid);
	js_num(b, "journal_block", e->jblock);
	js_num(b, "fs_block", e->fsblock);
	js_str(b, "verdict", ej_verdict_name(e->verdict));
	js_bool(b, "escaped", e->tag_flags & JBD2_FLAG_ESCAPE);
	sb_printf(b, "}");
}

static void json_revoke(struct sbuf *b, const struct ej_revoke_entry *e)
{
	sb_printf(b, "{\"tid\": %u", e->tid);
	js_num(b, "journal_block", e->jblock);
	js_num(b, "records", e->nr_records);
	js_bool(b, "csum_ok", e->csum_ok);
	sb_printf(b, "}");
}

errcode_t ej_report_json(const struct ej_report *r, char **out)
{
	struct sbuf b = { 0 };
	const char *sep;
	size_t i;

	if (!r || !out)
		return EJ_BAD_ARG;

	sb_printf(&b, "{\n  \"policy\": \"%s\",\n", ej_policy_name(r->policy));
	sb_printf(&b, "  \"corrupt\": %s,\n  \"corrupt_reasons\": [",
		  json_bool(r->corrupt != 0));
	sep = "";
	for (i = 0; i < NR_CORRUPT_NAMES; i++) {
		if (r->corrupt & corrupt_names[i].bit) {
			sb_printf(&b, "%s\"%s\"", sep, corrupt_names[i].name);
			sep = ", ";
		}
	}
	sb_printf(&b, "],\n  \"start_tid\": %u,\n  \"next_tid\": %u,\n",
		  r->start_tid, r->next_tid);

	sb_printf(&b, "  \"transactions\": [");
	for (i = 0; i < r->nr_txns; i++) {
		sb_printf(&b, "%s\n    ", i ? "," : "");
		json_txn(&b, &r->txns[i]);
	}
	sb_printf(&b, "%s],\n", r->nr_txns ? "\n  " : "");

	sb_printf(&b, "  \"blocks\": [");
	for (i = 0; i < r->nr_blocks; i++) {
		sb_printf(&b, "%s\n    ", i ? "," : "");
		json_block(&b, &r->blocks[i]);
	}
	sb_printf(&b, "%s],\n", r->nr_blocks ? "\n  " : "");

	sb_printf(&b, "  \"revoke_blocks\": [");
	for (i = 0; i < r->nr_revokes; i++) {
		sb_printf(&b, "%s\n    ", i ? "," : "");
		json_revoke(&b, &r->revokes[i]);
	}
	sb_printf(&b, "%s],\n", r->nr_revokes ? "\n  " : "");

	if (r->fc) {
		char *fc;

		if (ej_fc_report(r->fc, r->fc_area, 1, &fc)) {
			b.failed = 1;
		} else {
			sb_printf(&b, "  \"fast_commits\": %s,\n", fc);
			free(fc);
		}
	}
	sb_printf(&b, "  \"counts\": {");
	for (i = 0; i < JBD2_BLOCK_VERDICT_MAX; i++)
		sb_printf(&b, "%s\"%s\": %lu", i ? ", " : "",
			  verdict_names[i], r->counts[i]);
	sb_printf(&b, "}\n}\n");
	return sb_finish(&b, out);
}

errcode_t ej_report_text(const struct ej_report *r, int per_block,
			 char **out)
{
	struct sbuf b = { 0 };
	unsigned long records = 0, bad = 0;
	const char *sep;
	size_t i;

	if (!r || !out)
		return EJ_BAD_ARG;

	sb_printf(&b, "Journal recovery (policy %s)\n",
		  ej_policy_name(r->policy));
	sb_printf(&b, "  log starts at transaction %u, next transaction %u\n",
		  r->start_tid, r->next_tid);
	sb_printf(&b, "  corruption: ");
	if (!r->corrupt) {
		sb_printf(&b, "none\n");
	} else {
		sep = "";
		for (i = 0; i < NR_CORRUPT_NAMES; i++) {
			if (r->corrupt & corrupt_names[i].bit) {
				sb_printf(&b, "%s%s", sep,
					  corrupt_names[i].name);
				sep = ", ";
			}
		}
		sb_printf(&b, "\n");
	}

	sb_printf(&b, "\nTransactions: %zu\n", r->nr_txns);
	if (r->nr_txns)
		sb_printf(&b, "  %10s %10s %10s %7s %-11s %-8s %s\n", "tid",
			  "first", "commit", "blocks", "status", "replayed",
			  "revokes");
	for (i = 0; i < r->nr_txns; i++) {
		const struct jbd2_txn_info *t = &r->txns[i];
		char commit[24];

		if (t->commit_block == ~0UL)
			snprintf(commit, sizeof(commit), "-");
		else
			snprintf(commit, sizeof(commit), "%lu",
				 t->commit_block);
		sb_printf(&b, "  %10u %10lu %10s %7u %-11s %-8s %s\n", t->tid,
			  t->first_block, commit, t->nr_blocks,
			  ej_commit_status_name(t->status),
			  t->replay ? "yes" : "no",
			  t->revokes ? "honoured" : "ignored");
	}

	sb_printf(&b, "\nLogged blocks: %zu", r->nr_logged);
	sep = " (";
	for (i = 0; i < JBD2_BLOCK_VERDICT_MAX; i++) {
		if (!r->counts[i])
			continue;
		sb_printf(&b, "%s%s %lu", sep, verdict_names[i],
			  r->counts[i]);
		sep = ", ";
	}
	sb_printf(&b, "%s\n", *sep == ',' ? ")" : "");

	for (i = 0; i < r->nr_revokes; i++) {
		records += r->revokes[i].nr_records;
		if (!r->revokes[i].csum_ok)
			bad++;
	}
	sb_printf(&b, "Revoke blocks: %zu (%lu records", r->nr_revokes,
		  records);
	if (bad)
		sb_printf(&b, ", %lu with a bad checksum", bad);
	sb_printf(&b, ")\n");

	if (r->fc) {
		char *fc;

		if (ej_fc_report(r->fc, r->fc_area, 0, &fc)) {
			b.failed = 1;
		} else {
			sb_printf(&b, "%s", fc);
			free(fc);
		}
	}
	if (per_block && r->nr_blocks) {
		sb_printf(&b, "\n  %10s %12s %14s  %-15s %s\n", "tid",
			  "jblock", "fsblock", "verdict", "flags");
		for (i = 0; i < r->nr_blocks; i++) {
			const struct ej_block_entry *e = &r->blocks[i];

			sb_printf(&b, "  %10u %12lu %14llu  %-15s %s\n",
				  e->tid, e->jblock, e->fsblock,
				  ej_verdict_name(e->verdict),
				  e->tag_flags & JBD2_FLAG_ESCAPE ?
				  "escaped" : "");
		}
	}
	return sb_finish(&b, out);
}
