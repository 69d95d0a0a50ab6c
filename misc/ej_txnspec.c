// SPDX-License-Identifier: GPL-2.0
/*
 * ej_txnspec.c: the transactions "e2journal write" logs: --txn strings
 * and --spec files read into a list of transactions (blocks with the
 * source of their content, revokes, commit time, commit or not), and the
 * content of each logged block made from its source (pseudo-random, a
 * fill byte, the journal magic, a file, another image).  ej_write.c hands
 * them to the test library's writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2journal_int.h"
#include "ej_txnspec.h"
#include "ej_write_fc.h"

void ej_tlist_free(struct tlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->t[i].blocks);
		free(l->t[i].revokes);
	}
	free(l->t);
	for (i = 0; i < l->nr_srcs; i++) {
		free(l->srcs[i]->path);
		free(l->srcs[i]);
	}
	free(l->srcs);
	ejw_fc_free(l->fc);
	memset(l, 0, sizeof(*l));
}

struct tspec *ej_tlist_new(struct tlist *l)
{
	if (ej_grow((void **)&l->t, &l->max, l->nr + 1, sizeof(*l->t)))
		return NULL;
	memset(&l->t[l->nr], 0, sizeof(l->t[0]));
	return &l->t[l->nr++];
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

/* "N", "N-M", comma separated; @fn is called for every number. */
static int parse_list(const char *s,
		      int (*fn)(void *arg, unsigned long long v), void *arg)
{
	unsigned long long lo, hi, v;
	const char *p = s;
	char *end;

	if (!*p)
		return -1;
	while (*p) {
		errno = 0;
		lo = strtoull(p, &end, 0);
		if (errno || end == p || *p == '-')
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtoull(p, &end, 0);
			if (errno || end == p || hi < lo || hi - lo > 0xffffff)
				return -1;
			p = end;
		}
		for (v = lo; ; v++) {
			if (fn(arg, v))
				return -1;
			if (v == hi)
				break;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* KIND[:=]ARG after @name; NULL when @s is not that kind. */
static const char *src_arg(const char *s, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(s, name, n))
		return NULL;
	if (!s[n])
		return s + n;
	if (s[n] == ':' || s[n] == '=')
		return s + n + 1;
	return NULL;
}

/*
 * random[:SEED], fill:BYTE, zero, magic[:BYTE], file:PATH, image:PATH, or
 * a bare path (file:).
 */
static struct src *parse_src(struct tlist *l, const char *s)
{
	struct src *src;
	const char *a;
	unsigned long long v = 0;

	if (ej_grow((void **)&l->srcs, &l->max_srcs, l->nr_srcs + 1,
		    sizeof(*l->srcs)))
		return NULL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return NULL;
	if (src_arg(s, "random")) {
		a = src_arg(s, "random");
		src->kind = SRC_RANDOM;
		if (*a && ejw_parse_num(a, ~0ULL, &v))
			goto bad;
	} else if (src_arg(s, "fill")) {
		src->kind = SRC_FILL;
		if (ejw_parse_num(src_arg(s, "fill"), 0xff, &v))
			goto bad;
	} else if (!strcmp(s, "zero")) {
		src->kind = SRC_FILL;
	} else if (src_arg(s, "magic")) {
		a = src_arg(s, "magic");
		src->kind = SRC_MAGIC;
		if (*a && ejw_parse_num(a, 0xff, &v))
			goto bad;
	} else {
		src->kind = SRC_FILE;
		a = src_arg(s, "file");
		if (!a) {
			a = src_arg(s, "image");
			if (a)
				src->kind = SRC_IMAGE;
		}
		src->path = strdup(a ? a : s);
		if (!src->path || !*src->path)
			goto bad;
	}
	src->arg = v;
	l->srcs[l->nr_srcs++] = src;
	return src;
bad:
	fprintf(stderr, "%s: '%s': expected a source (see write --help)\n",
		ej_prog, s);
	free(src->path);
	free(src);
	return NULL;
}

struct add_ctx {
	struct tspec	*t;
	struct src	*src;
	unsigned long	nth;
};

static int add_block_cb(void *arg, unsigned long long v)
{
	struct add_ctx *c = arg;
	struct tblock *b;

	if (ej_grow((void **)&c->t->blocks, &c->t->max_blocks,
		    c->t->nr_blocks + 1, sizeof(*c->t->blocks)))
		return -1;
	b = &c->t->blocks[c->t->nr_blocks++];
	b->fsblock = v;
	b->src = c->src;
	b->nth = c->nth++;
	return 0;
}

static int add_revoke_cb(void *arg, unsigned long long v)
{
	struct tspec *t = arg;

	if (ej_grow((void **)&t->revokes, &t->max_revokes, t->nr_revokes + 1,
		    sizeof(*t->revokes)))
		return -1;
	t->revokes[t->nr_revokes++] = v;
	return 0;
}

static int add_blocks(struct tlist *l, struct tspec *t, const char *list,
		      const char *srcspec)
{
	struct add_ctx c = { .t = t };

	c.src = parse_src(l, srcspec ? srcspec : "random");
	if (!c.src)
		return -1;
	if (parse_list(list, add_block_cb, &c)) {
		fprintf(stderr,
			"%s: '%s': expected block numbers N or N-M, comma separated\n",
			ej_prog, list);
		return -1;
	}
	return 0;
}

static int add_revokes(struct tspec *t, const char *list)
{
	if (parse_list(list, add_revoke_cb, t)) {
		fprintf(stderr,
			"%s: '%s': expected block numbers N or N-M, comma separated\n",
			ej_prog, list);
		return -1;
	}
	return 0;
}

/*
 * One item of a --txn string: blocks=LIST[:SOURCE], revoke=LIST,
 * time=SEC, commit, nocommit.
 */
static int parse_item(struct tlist *l, struct tspec *t, char *item)
{
	unsigned long long v;
	char *colon;

	while (*item == ' ' || *item == '\t')
		item++;
	if (!*item)
		return 0;
	if (!strncmp(item, "blocks=", 7) || !strncmp(item, "block=", 6)) {
		item = strchr(item, '=') + 1;
		colon = strchr(item, ':');
		if (colon)
			*colon++ = '\0';
		return add_blocks(l, t, item, colon);
	}
	if (!strncmp(item, "revoke=", 7))
		return add_revokes(t, item + 7);
	if (!strncmp(item, "time=", 5)) {
		if (ejw_parse_num(item + 5, ~0ULL, &v))
			goto bad;
		t->have_time = 1;
		t->sec = v;
		return 0;
	}
	if (!strcmp(item, "nocommit")) {
		t->nocommit = 1;
		return 0;
	}
	if (!strcmp(item, "commit")) {
		t->nocommit = 0;
		return 0;
	}
bad:
	fprintf(stderr,
		"%s: '%s': expected blocks=LIST[:SOURCE], revoke=LIST, time=SEC, commit or nocommit\n",
		ej_prog, item);
	return -1;
}

int ej_txn_parse(struct tlist *l, struct tspec *t, const char *s)
{
	char *copy, *item, *save = NULL;
	int err = 0;

	copy = strdup(s);
	if (!copy)
		return -1;
	for (item = strtok_r(copy, ";", &save); item && !err;
	     item = strtok_r(NULL, ";", &save))
		err = parse_item(l, t, item);
	free(copy);
	return err;
}

/*
 * A spec file: one directive a line.
 *   txn [ITEM...]		start a transaction (items as for --txn)
 *   block LIST SOURCE		log blocks
 *   revoke LIST		revoke blocks
 *   time SEC			commit time
 *   commit | nocommit		end the transaction, with or without commit
 */
int ej_txn_parse_file(struct tlist *l, const char *path)
{
	struct ejw_lines in;
	char **w = in.w;
	struct tspec *t = NULL;
	unsigned long long v;
	int i, n, err;

	err = ejw_lines_open(&in, path, 1);
	if (err) {
		com_err(ej_prog, err, "while opening %s", path);
		return -1;
	}
	while (!err && ejw_lines_next(&in)) {
		n = in.n;
		err = ejw_fc_spec_line(&l->fc, w, n);
		if (err) {
			if (err > 0) {
				err = 0;
				continue;
			}
		} else if (!strcmp(w[0], "txn")) {
			t = ej_tlist_new(l);
			if (!t)
				err = -1;
			for (i = 1; i < n && !err; i++)
				err = ej_txn_parse(l, t, w[i]);
		} else if (!t) {
			fprintf(stderr, "%s: %s:%d: '%s' outside a txn\n",
				ej_prog, path, in.lineno, w[0]);
			err = -1;
			break;
		} else if (!strcmp(w[0], "block") && (n == 2 || n == 3)) {
			err = add_blocks(l, t, w[1], n == 3 ? w[2] : NULL);
		} else if (!strcmp(w[0], "revoke") && n == 2) {
			err = add_revokes(t, w[1]);
		} else if (!strcmp(w[0], "time") && n == 2) {
			err = ejw_parse_num(w[1], ~0ULL, &v);
			t->have_time = 1;
			t->sec = v;
		} else if (!strcmp(w[0], "commit") && n == 1) {
			t = NULL;
		} else if (!strcmp(w[0], "nocommit") && n == 1) {
			t->nocommit = 1;
			t = NULL;
		} else {
			err = -1;
		}
		if (err)
			fprintf(stderr, "%s: %s:%d: cannot parse this line\n",
				ej_prog, path, in.lineno);
	}
	if (!err)
		err = ejw_fc_spec_end(l->fc, path);
	ejw_lines_close(&in);
	return err;
}

/* ------------------------------------------------------------------ */
/* Block content                                                       */

static __u64 splitmix(__u64 *x)
{
	__u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

errcode_t ej_txn_make_block(const struct tblock *b, __u32 tid,
			    unsigned int bs, unsigned char *buf)
{
	const struct src *s = b->src;
	__u64 x, r = 0;
	unsigned int i;
	off_t off;
	ssize_t got;
	int fd;

	switch (s->kind) {
	case SRC_RANDOM:
		x = s->arg ^ (b->fsblock * 0x100000001b3ULL) ^
		    ((__u64)tid << 40);
		for (i = 0; i < bs; i++) {
			if (!(i & 7))
				r = splitmix(&x);
			buf[i] = (unsigned char)(r >> (8 * (i & 7)));
		}
		return 0;
	case SRC_FILL:
		memset(buf, (int)s->arg, bs);
		return 0;
	case SRC_MAGIC:
		memset(buf, (int)s->arg, bs);
		buf[0] = (unsigned char)(JBD2_MAGIC_NUMBER >> 24);
		buf[1] = (unsigned char)(JBD2_MAGIC_NUMBER >> 16);
		buf[2] = (unsigned char)(JBD2_MAGIC_NUMBER >> 8);
		buf[3] = (unsigned char)JBD2_MAGIC_NUMBER;
		return 0;
	case SRC_FILE:
	case SRC_IMAGE:
		break;
	}
	off = (off_t)(s->kind == SRC_IMAGE ? b->fsblock : b->nth) * bs;
	memset(buf, 0, bs);
	fd = open(s->path, O_RDONLY);
	if (fd < 0)
		return errno;
	got = pread(fd, buf, bs, off);
	close(fd);
	return got < 0 ? errno : 0;
}
