// SPDX-License-Identifier: LGPL-2.0
/*
 * fc_report.c: the fast-commit area in words, for the report (text and
 * JSON, report.c) and for `e2journal dump`: the HEAD, each fast commit
 * with its verdict and TAIL, each record with what it says and what
 * became of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ej_int.h"

static __u32 get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static unsigned int get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

/* A name as JSON and text both take it: printable ASCII, else \u00XX. */
static void put_name(FILE *f, const unsigned char *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' &&
		    p[i] != '\\')
			fputc(p[i], f);
		else
			fprintf(f, "\\u%04x", p[i]);
	}
}

/* What a record says, as "key": value pairs (JSON) or words (text). */
static void rec_fields(FILE *f, const struct ej_fc_rec *r,
		       const unsigned char *area, int json)
{
	const unsigned char *v = area + r->off + EJ_FC_TL_LEN;
	unsigned int n;

	if (!r->len_ok && r->tag != EJ_FC_TAG_PAD)
		return;
	switch (r->tag) {
	case EJ_FC_TAG_ADD_RANGE:
		n = get16(v + 8);
		fprintf(f, json ? ", \"ino\": %u, \"lblk\": %u, \"len\": %u, "
			"\"pblk\": %llu, \"unwritten\": %s" :
			" ino %u lblk %u len %u pblk %llu%s",
			get32(v), get32(v + 4), n > 32768 ? n - 32768 : n,
			(unsigned long long)get16(v + 10) << 32 | get32(v + 12),
			json ? (n > 32768 ? "true" : "false") :
			(n > 32768 ? " unwritten" : ""));
		break;
	case EJ_FC_TAG_DEL_RANGE:
		fprintf(f, json ? ", \"ino\": %u, \"lblk\": %u, \"len\": %u" :
			" ino %u lblk %u len %u",
			get32(v), get32(v + 4), get32(v + 8));
		break;
	case EJ_FC_TAG_CREAT:
	case EJ_FC_TAG_LINK:
	case EJ_FC_TAG_UNLINK:
		fprintf(f, json ? ", \"parent\": %u, \"ino\": %u, \"name\": \"" :
			" parent %u ino %u name \"", get32(v), get32(v + 4));
		put_name(f, v + EJ_FC_DENTRY_LEN, r->len - EJ_FC_DENTRY_LEN);
		fputc('"', f);
		break;
	case EJ_FC_TAG_INODE:
		fprintf(f, json ? ", \"ino\": %u, \"mode\": %u, \"links\": %u" :
			" ino %u mode 0%o links %u", get32(v),
			get16(v + EJ_FC_INODE_LEN),
			get16(v + EJ_FC_INODE_LEN + 0x1a));
		break;
	case EJ_FC_TAG_HEAD:
		fprintf(f, json ? ", \"features\": %u, \"tid\": %u" :
			" features 0x%x tid %u", get32(v), get32(v + 4));
		break;
	case EJ_FC_TAG_TAIL:
		fprintf(f, json ? ", \"tid\": %u, \"crc\": %u" :
			" tid %u crc 0x%08x", get32(v), get32(v + 4));
		break;
	}
}

static void text(FILE *f, const struct ej_fc_scan *s,
		 const unsigned char *area)
{
	size_t i, k;

	fprintf(f, "\nFast commits: area %s", ej_fc_area_name(s->area));
	if (s->area != EJ_FCA_NONE && s->area != EJ_FCA_BAD_HEAD)
		fprintf(f, ", HEAD tid %u features 0x%x", s->head_tid,
			s->head_features);
	fprintf(f, " (expected tid %u)%s\n", s->expected_tid,
		s->flagged ? ", flagged" : "");
	for (i = 0; i < s->nr_fcs; i++) {
		const struct ej_fc_commit *c = &s->fcs[i];

		fprintf(f, "  fast commit %zu: area blocks %lu-%lu, %s", i,
			c->first_blk, c->first_blk + c->nr_blks - 1,
			ej_fc_verdict_name(c->verdict));
		if (c->fail != EJ_FCF_NONE)
			fprintf(f, " (%s)", ej_fc_fail_name(c->fail));
		fprintf(f, "\n");
		for (k = 0; k < c->nr_recs; k++) {
			const struct ej_fc_rec *r = &s->recs[c->first_rec + k];

			if (r->tag == EJ_FC_TAG_PAD)
				continue;
			fprintf(f, "    %-9s", ej_fc_tag_name(r->tag));
			if (!r->len_ok)
				fprintf(f, " length %u impossible", r->len);
			rec_fields(f, r, area, 0);
			if (r->tag != EJ_FC_TAG_HEAD &&
			    r->tag != EJ_FC_TAG_TAIL)
				fprintf(f, ": %s",
					ej_fc_rec_verdict_name(r->verdict));
			fprintf(f, "\n");
		}
	}
}

static void json(FILE *f, const struct ej_fc_scan *s,
		 const unsigned char *area)
{
	size_t i, k;

	fprintf(f, "{\"area\": \"%s\", \"head_tid\": %u, "
		"\"head_features\": %u, \"expected_tid\": %u, "
		"\"flagged\": %s, \"commits\": [",
		ej_fc_area_name(s->area), s->head_tid, s->head_features,
		s->expected_tid, s->flagged ? "true" : "false");
	for (i = 0; i < s->nr_fcs; i++) {
		const struct ej_fc_commit *c = &s->fcs[i];

		fprintf(f, "%s\n      {\"first_block\": %lu, \"blocks\": %lu, "
			"\"verdict\": \"%s\", \"failure\": \"%s\", "
			"\"records\": [", i ? "," : "", c->first_blk,
			c->nr_blks, ej_fc_verdict_name(c->verdict),
			ej_fc_fail_name(c->fail));
		for (k = 0; k < c->nr_recs; k++) {
			const struct ej_fc_rec *r = &s->recs[c->first_rec + k];

			fprintf(f, "%s\n        {\"tag\": \"%s\", \"length\": %u, "
				"\"length_ok\": %s", k ? "," : "",
				ej_fc_tag_name(r->tag), r->len,
				r->len_ok ? "true" : "false");
			rec_fields(f, r, area, 1);
			fprintf(f, ", \"verdict\": \"%s\"}",
				ej_fc_rec_verdict_name(r->verdict));
		}
		fprintf(f, "%s]}", c->nr_recs ? "\n      " : "");
	}
	fprintf(f, "%s]}", s->nr_fcs ? "\n    " : "");
}

errcode_t ej_fc_report(const struct ej_fc_scan *s, const unsigned char *area,
		       int as_json, char **out)
{
	size_t len = 0;
	FILE *f;

	*out = NULL;
	f = open_memstream(out, &len);
	if (!f)
		return EJ_NO_MEMORY;
	if (as_json)
		json(f, s, area);
	else
		text(f, s, area);
	if (fclose(f) || !*out) {
		free(*out);
		*out = NULL;
		return EJ_NO_MEMORY;
	}
	return 0;
}
