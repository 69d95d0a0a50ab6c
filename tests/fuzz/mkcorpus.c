// SPDX-License-Identifier: GPL-2.0
/*
 * mkcorpus.c: seed inputs for fuzz_recovery, journals the library's
 * writer makes on the memory host, in the harness's input format (one
 * control byte, then the journal's blocks up to the last non-zero one).
 *
 * Usage: mkcorpus DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memdev.h"

#define MC_FS_BLOCKS	192
#define MC_JBASE	64

struct mc_cfg {
	const char	*name;
	unsigned int	bs;
	int		external;
	int		csum;
	unsigned int	flags;
	int		ntx;
	int		revokes;
	int		uncommitted;
	unsigned long	start_block;	/* 0: s_first; else near the end */
};

static const struct mc_cfg cfgs[] = {
	{ "none-1k", 1024, 0, EJ_CSUM_NONE, 0, 3, 0, 0, 0 },
	{ "v1-1k", 1024, 0, EJ_CSUM_V1, 0, 3, 1, 0, 0 },
	{ "v2-1k", 1024, 0, EJ_CSUM_V2, 0, 3, 1, 1, 0 },
	{ "v3-1k", 1024, 0, EJ_CSUM_V3, 0, 4, 1, 1, 0 },
	{ "v3-64-1k", 1024, 0, EJ_CSUM_V3, EJ_W_64BIT, 3, 1, 0, 0 },
	{ "v2-async-1k", 1024, 0, EJ_CSUM_V2, EJ_W_ASYNC_COMMIT, 2, 0, 0, 0 },
	{ "v3-ext-1k", 1024, 1, EJ_CSUM_V3, 0, 3, 1, 0, 0 },
	{ "v3-wrap-1k", 1024, 0, EJ_CSUM_V3, 0, 4, 1, 0, 54 },
	{ "v1sb-1k", 1024, 0, EJ_CSUM_NONE, EJ_W_V1_SUPER, 2, 0, 0, 0 },
	{ "v3-4k", 4096, 0, EJ_CSUM_V3, EJ_W_64BIT, 2, 1, 0, 0 },
	{ "none-4k", 4096, 1, EJ_CSUM_NONE, 0, 2, 1, 1, 0 },
};

static unsigned long long mc_fsblk(unsigned int i)
{
	/* the blocks around the internal journal, never inside it */
	i %= MC_FS_BLOCKS - 64 - 1;
	return i < MC_JBASE - 1 ? i + 1 : i + 64 + 1;
}

static int mc_make(const char *dir, const struct mc_cfg *c)
{
	unsigned long jlen = c->bs == 4096 ? 16 : 64;
	struct ej_writer_opts o;
	struct ej_writer *w;
	struct ej_jsink sink;
	struct memdev *fs, *jd;
	struct memhost h;
	unsigned char *blk, *jarea;
	unsigned long used;
	unsigned int i, t, n = 0;
	char path[4096];
	unsigned char ctl;
	FILE *f;

	fs = memdev_new(c->bs, MC_FS_BLOCKS);
	jd = c->external ? memdev_new(c->bs, jlen) : fs;
	blk = malloc(c->bs);
	if (!fs || !jd || !blk)
		return 1;
	if (memhost_init(&h, fs, c->external ? jd : NULL,
			 c->external ? 0 : MC_JBASE, jlen))
		return 1;
	memhost_sink(&h, &sink);
	memset(&o, 0, sizeof(o));
	o.flags = EJ_W_FORMAT | c->flags;
	if (!(c->flags & EJ_W_V1_SUPER))
		o.flags |= EJ_W_REVOKE;
	o.csum = c->csum;
	o.blocksize = c->bs;
	o.maxlen = jlen;
	o.start_block = c->start_block;
	if (ej_writer_open(&sink, &o, &w))
		return 1;
	for (t = 0; t < (unsigned int)c->ntx; t++) {
		if (ej_writer_begin(w, NULL))
			return 1;
		for (i = 0; i < 3 + t; i++, n++) {
			memset(blk, 0x11 * (n + 1), c->bs);
			if (n % 5 == 2)		/* needs escaping */
				memcpy(blk, "\xc0\x3b\x39\x98", 4);
			if (ej_writer_add_block(w, mc_fsblk(n * 7), blk))
				return 1;
		}
		if (c->revokes && t == 1 &&
		    ej_writer_revoke(w, mc_fsblk(0)))
			return 1;
		if (ej_writer_commit(w))
			return 1;
	}
	if (c->uncommitted) {
		if (ej_writer_begin(w, NULL) ||
		    ej_writer_add_block(w, mc_fsblk(3), blk) ||
		    ej_writer_end_uncommitted(w))
			return 1;
	}
	if (ej_writer_finish(w))
		return 1;
	ej_writer_free(w);

	jarea = memdev_block(jd, c->external ? 0 : MC_JBASE);
	for (used = jlen; used > 1; used--) {
		unsigned char *b = jarea + (used - 1) * c->bs;

		for (i = 0; i < c->bs && !b[i]; i++)
			;
		if (i < c->bs)
			break;
	}
	ctl = (c->bs == 4096 ? 0x01 : 0) | (c->external ? 0x02 : 0);
	snprintf(path, sizeof(path), "%s/%s", dir, c->name);
	f = fopen(path, "wb");
	if (!f || fwrite(&ctl, 1, 1, f) != 1 ||
	    fwrite(jarea, c->bs, used, f) != used || fclose(f)) {
		perror(path);
		return 1;
	}
	memhost_fini(&h);
	if (c->external)
		memdev_free(jd);
	memdev_free(fs);
	free(blk);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		if (mc_make(argv[1], &cfgs[i])) {
			fprintf(stderr, "mkcorpus: %s failed\n", cfgs[i].name);
			return 1;
		}
	}
	return 0;
}
