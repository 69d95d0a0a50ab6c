// SPDX-License-Identifier: GPL-2.0
/*
 * ej_dump_out.c: how "e2journal dump" writes: a small JSON writer (it
 * places the commas and the indentation, the caller the values) and the
 * names the text and JSON output give block types, feature and flag bits
 * and checksum states.  ej_dump.c and ej_dump_log.c write through it.
 */
#include <stdio.h>
#include <string.h>

#include "ej_dump.h"

/* ------------------------------------------------------------------ */
/* A small JSON writer: it places the commas, the caller the values.   */

static void j_indent(struct dump_ctx *c)
{
	int i;

	fputc('\n', c->out);
	for (i = 0; i < c->jdepth; i++)
		fputs("  ", c->out);
}

/* A line break before the next member or item (which must follow). */
void j_break(struct dump_ctx *c)
{
	if (c->jcomma)
		fputc(',', c->out);
	c->jcomma = 0;
	j_indent(c);
}

/* Start a value: the comma before it and, for a member, its key. */
void j_key(struct dump_ctx *c, const char *key)
{
	if (c->jcomma)
		fputs(", ", c->out);
	c->jcomma = 1;
	if (key) {
		ej_json_string(c->out, key);
		fputs(": ", c->out);
	}
}

/* Open an object or array; items of arrays start on a line of their own. */
void j_open(struct dump_ctx *c, const char *key, char bracket)
{
	if (!key && c->jdepth)
		j_break(c);
	j_key(c, key);
	fputc(bracket, c->out);
	c->jdepth++;
	c->jcomma = 0;
}

void j_close(struct dump_ctx *c, char bracket)
{
	c->jdepth--;
	fputc(bracket, c->out);
	c->jcomma = 1;
}

/* Close on a line of its own. */
void j_close_nl(struct dump_ctx *c, char bracket)
{
	c->jdepth--;
	j_indent(c);
	fputc(bracket, c->out);
	c->jcomma = 1;
}

void j_uint(struct dump_ctx *c, const char *key, unsigned long long v)
{
	j_key(c, key);
	fprintf(c->out, "%llu", v);
}

void j_int(struct dump_ctx *c, const char *key, long long v)
{
	j_key(c, key);
	fprintf(c->out, "%lld", v);
}

void j_str(struct dump_ctx *c, const char *key, const char *s)
{
	j_key(c, key);
	if (s)
		ej_json_string(c->out, s);
	else
		fputs("null", c->out);
}

void j_bool(struct dump_ctx *c, const char *key, int v)
{
	j_key(c, key);
	fputs(v ? "true" : "false", c->out);
}

void j_csum(struct dump_ctx *c, int state)
{
	j_str(c, "csum", state == CSUM_OK ? "ok" :
	      state == CSUM_BAD ? "bad" : NULL);
}

/* Open the object of log block @b, of @type, in the current transaction. */
void j_log_block(struct dump_ctx *c, unsigned long b, const char *type)
{
	j_open(c, NULL, '{');
	j_uint(c, "block", b);
	j_str(c, "type", type);
	j_uint(c, "sequence", c->txn_tid);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

void format_uuid(const __u8 *u, char *str)
{
	static const char hex[] = "0123456789abcdef";
	int i, n = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			str[n++] = '-';
		str[n++] = hex[u[i] >> 4];
		str[n++] = hex[u[i] & 15];
	}
	str[n] = 0;
}

const char *block_type_name(__u32 type)
{
	switch (type) {
	case JBD2_DESCRIPTOR_BLOCK:
		return "descriptor";
	case JBD2_COMMIT_BLOCK:
		return "commit";
	case JBD2_SUPERBLOCK_V1:
		return "superblock v1";
	case JBD2_SUPERBLOCK_V2:
		return "superblock v2";
	case JBD2_REVOKE_BLOCK:
		return "revoke";
	case JBD2_FC_BLOCK:
		return "fast commit";
	}
	return "unknown";
}

/* The name of bit @bit of a 32-entry table, or its value in hex. */
static const char *bit_name(const char *const *names, int bit, char *tmp,
			    size_t len)
{
	if (names[bit])
		return names[bit];
	snprintf(tmp, len, "0x%x", 1U << bit);
	return tmp;
}

/* Names of the bits set in @mask, space-separated. */
void bit_names(__u32 mask, const char *const *names, char *str,
	       size_t len)
{
	size_t n = 0;
	int bit, w;

	str[0] = 0;
	for (bit = 0; bit < 32; bit++) {
		char tmp[16];

		if (!(mask & (1U << bit)))
			continue;
		w = snprintf(str + n, len - n, "%s%s", n ? " " : "",
			     bit_name(names, bit, tmp, sizeof(tmp)));
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += w;
	}
}

void j_names(struct dump_ctx *c, const char *key, __u32 mask,
	     const char *const *names)
{
	int bit;

	j_key(c, key);
	fputc('[', c->out);
	c->jcomma = 0;
	for (bit = 0; bit < 32; bit++) {
		char tmp[16];

		if (mask & (1U << bit))
			j_str(c, NULL, bit_name(names, bit, tmp, sizeof(tmp)));
	}
	fputc(']', c->out);
	c->jcomma = 1;
}

const char *csum_word(int state)
{
	return state == CSUM_OK ? "ok" : state == CSUM_BAD ? "BAD" : "none";
}
