// SPDX-License-Identifier: GPL-2.0
/*
 * ej_write_fc.c: the fast commits of "e2journal write": --fc SPEC,
 * --fc-head SPEC and a spec file's "fc" ... "tail" lines, written after
 * the full transactions into the journal's fast-commit area by the
 * library's fast-commit writer (test/fc_write.c, test/ej_fcw.h).
 *
 * A fast commit belongs to the transaction after the last full commit:
 * its TAIL, and the area's HEAD, name that tid unless told otherwise.
 * An INODE record takes the inode as the image holds it now, with the
 * fields the spec names changed.  Nothing else is checked: the point is
 * to write what a test asks, impossible records included.
 */
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>

#include "e2journal_int.h"
#include "ej_write_fc.h"
#include "test/ej_fcw.h"

enum item_kind { IT_ADD, IT_DEL, IT_DENTRY, IT_INODE, IT_PAD, IT_RAW };

/* Inode fields an INODE record can change (debugfs's names). */
enum ifield {
	IF_MODE, IF_UID, IF_SIZE, IF_ATIME, IF_CTIME, IF_MTIME, IF_DTIME,
	IF_GID, IF_LINKS, IF_BLOCKS, IF_FLAGS, IF_GENERATION, IF_EXTRA,
	IF_MAX
};

static const char *const ifield_names[IF_MAX] = {
	"mode", "uid", "size", "atime", "ctime", "mtime", "dtime", "gid",
	"links_count", "blocks", "flags", "generation", "extra_isize",
};

#define MAX_FIELDS	16

struct fc_item {
	enum item_kind		kind;
	unsigned int		tag;		/* dentry, raw */
	unsigned long long	n[4];
	int			unwritten;
	unsigned char		*bytes;		/* name, raw value */
	unsigned int		nbytes;
	int			nf;
	int			fid[MAX_FIELDS];
	unsigned long long	fval[MAX_FIELDS];
};

struct fc_one {
	struct fc_item		*items;
	size_t			nr, max;
	int			notail;
	int			have_tid;
	__u32			tid;
	int			bad_crc;
};

struct ejw_fc {
	struct fc_one		*fcs;
	size_t			nr, max;
	int			open;		/* spec file: the last is open */
	int			head_given, head_none, have_head_tid;
	__u32			head_tid, features;
	/* what was written */
	struct ej_fcw		*a;
	unsigned long		first_jblock;
	unsigned int		bs;
	__u32			tid;
};

void ejw_fc_usage(FILE *f)
{
	fprintf(f,
		"\nFast commits, written after the transactions into the\n"
		"fast-commit area (the filesystem needs fast_commit; the journal\n"
		"gets the feature), for the transaction after the last one:\n"
		"      --fc SPEC          one fast commit (repeat for more); items\n"
		"                         separated by ';':\n"
		"                           add_range=INO,LBLK,LEN,PBLK[,unwritten]\n"
		"                           del_range=INO,LBLK,LEN\n"
		"                           create=DIR,INO,NAME  link=DIR,INO,NAME\n"
		"                           unlink=DIR,INO,NAME\n"
		"                           inode=INO[,FIELD=VALUE]...  the inode as\n"
		"                             the image holds it, FIELDs (mode, uid,\n"
		"                             gid, size, atime, ctime, mtime, dtime,\n"
		"                             links_count, blocks, flags, generation,\n"
		"                             extra_isize) changed\n"
		"                           pad=LEN, raw=TAG,HEX  any record\n"
		"                           tail=TID   the TAIL's tid\n"
		"                           bad-crc    a TAIL crc that fails\n"
		"                           notail     no TAIL (a torn fast commit)\n"
		"      --fc-head SPEC     the area's HEAD: tid=N;features=N, or none\n"
		"                         (default: the fast commits' tid, 0)\n"
		"In a --spec file: \"fc\", then a record a line (\"link DIR INO\n"
		"NAME\", \"inode INO links_count=2\", ...), then \"tail [TID]\n"
		"[bad-crc]\" or \"notail\"; \"fc_head [tid=N] [features=N] [none]\".\n"
		"With -v every record is listed with its journal block and byte.\n");
}

static struct ejw_fc *fc_get(struct ejw_fc **fc)
{
	if (!*fc)
		*fc = calloc(1, sizeof(**fc));
	return *fc;
}

static struct fc_one *fc_new(struct ejw_fc *fc)
{
	if (ej_grow((void **)&fc->fcs, &fc->max, fc->nr + 1, sizeof(*fc->fcs)))
		return NULL;
	memset(&fc->fcs[fc->nr], 0, sizeof(fc->fcs[0]));
	return &fc->fcs[fc->nr++];
}

static struct fc_item *item_new(struct fc_one *o, enum item_kind kind)
{
	struct fc_item *it;

	if (ej_grow((void **)&o->items, &o->max, o->nr + 1, sizeof(*o->items)))
		return NULL;
	it = &o->items[o->nr++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	return it;
}

/* Split @args at commas into up to @max numbers; how many, -1 if bad. */
static int numbers(char *args, unsigned long long *v, int max, char **rest)
{
	int n = 0;
	char *p = args, *c;

	while (p && n < max) {
		c = strchr(p, ',');
		if (c)
			*c++ = '\0';
		if (rest && !strcmp(p, "unwritten")) {
			*rest = p;
			return c ? -1 : n;
		}
		if (ejw_parse_num(p, ~0ULL, &v[n++]))
			return -1;
		p = c;
	}
	if (rest)
		*rest = p;
	else if (p)
		return -1;
	return n;
}

static int hex_bytes(struct fc_item *it, const char *s)
{
	size_t n = strlen(s), i;
	unsigned int x;

	if (n % 2 || n / 2 > 0xffff)
		return -1;
	it->bytes = malloc(n / 2 + 1);
	if (!it->bytes)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &x) != 1 ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			return -1;
		it->bytes[i] = (unsigned char)x;
	}
	it->nbytes = n / 2;
	return 0;
}

static int parse_inode(struct fc_item *it, char *args)
{
	char *p = args, *c, *eq;
	int i;

	c = strchr(p, ',');
	if (c)
		*c++ = '\0';
	if (ejw_parse_num(p, 0xffffffffULL, &it->n[0]))
		return -1;
	for (p = c; p; p = c) {
		c = strchr(p, ',');
		if (c)
			*c++ = '\0';
		eq = strchr(p, '=');
		if (!eq || it->nf == MAX_FIELDS)
			return -1;
		*eq++ = '\0';
		for (i = 0; i < IF_MAX && strcmp(p, ifield_names[i]); i++)
			;
		if (i == IF_MAX || ejw_parse_num(eq, ~0ULL,
						 &it->fval[it->nf]))
			return -1;
		it->fid[it->nf++] = i;
	}
	return 0;
}

static const struct {
	const char	*name;
	unsigned int	tag;
} dentry_tags[] = {
	{ "create", EJ_FC_TAG_CREAT },
	{ "link", EJ_FC_TAG_LINK },
	{ "unlink", EJ_FC_TAG_UNLINK },
};

/* NAME=ARGS of a fast commit into @o; -1 if it is not one. */
static int parse_record(struct fc_one *o, const char *name, char *args)
{
	struct fc_item *it;
	char *rest = NULL;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(dentry_tags); i++) {
		if (strcmp(name, dentry_tags[i].name))
			continue;
		it = item_new(o, IT_DENTRY);
		if (!it || !args)
			return -1;
		it->tag = dentry_tags[i].tag;
		/* PARENT,INO,NAME: the name is the rest, commas and all */
		n = numbers(args, it->n, 2, &rest);
		if (n != 2 || !rest || strlen(rest) > EJ_FC_NAME_MAX)
			return -1;
		it->bytes = (unsigned char *)strdup(rest);
		it->nbytes = strlen(rest);
		return it->bytes ? 0 : -1;
	}
	if (!args)
		return -1;
	if (!strcmp(name, "add_range")) {
		it = item_new(o, IT_ADD);
		if (!it)
			return -1;
		n = numbers(args, it->n, 4, &rest);
		if (n != 4)
			return -1;
		it->unwritten = rest != NULL;
		return rest && strcmp(rest, "unwritten") ? -1 : 0;
	}
	if (!strcmp(name, "del_range")) {
		it = item_new(o, IT_DEL);
		return it && numbers(args, it->n, 3, NULL) == 3 ? 0 : -1;
	}
	if (!strcmp(name, "inode")) {
		it = item_new(o, IT_INODE);
		return it ? parse_inode(it, args) : -1;
	}
	if (!strcmp(name, "pad")) {
		it = item_new(o, IT_PAD);
		return it && numbers(args, it->n, 1, NULL) == 1 ? 0 : -1;
	}
	if (!strcmp(name, "raw")) {
		it = item_new(o, IT_RAW);
		if (!it || numbers(args, it->n, 1, &rest) != 1 ||
		    it->n[0] > 0xffff)
			return -1;
		it->tag = it->n[0];
		return hex_bytes(it, rest ? rest : "");
	}
	return -1;
}

/* One item of a --fc string. */
static int parse_fc_item(struct fc_one *o, char *item)
{
	unsigned long long v;
	char *eq;

	while (*item == ' ' || *item == '\t')
		item++;
	if (!*item)
		return 0;
	if (!strcmp(item, "notail") || !strcmp(item, "no-tail")) {
		o->notail = 1;
		return 0;
	}
	if (!strcmp(item, "bad-crc")) {
		o->bad_crc = 1;
		return 0;
	}
	eq = strchr(item, '=');
	if (eq)
		*eq++ = '\0';
	if (!strcmp(item, "tail") && eq) {
		if (ejw_parse_num(eq, 0xffffffffULL, &v))
			return -1;
		o->have_tid = 1;
		o->tid = v;
		return 0;
	}
	return parse_record(o, item, eq);
}

static int fc_string(struct fc_one *o, const char *spec)
{
	char *copy, *item, *save = NULL;
	int err = 0;

	copy = strdup(spec);
	if (!copy)
		return -1;
	for (item = strtok_r(copy, ";", &save); item && !err;
	     item = strtok_r(NULL, ";", &save)) {
		err = parse_fc_item(o, item);
		if (err)
			fprintf(stderr,
				"%s: '%s': not a fast-commit item (see write --help)\n",
				ej_prog, item);
	}
	free(copy);
	return err;
}

int ejw_fc_option(struct ejw_fc **fc, const char *spec)
{
	struct fc_one *o;

	if (!fc_get(fc))
		return -1;
	o = fc_new(*fc);
	return o ? fc_string(o, spec) : -1;
}

static int head_item(struct ejw_fc *fc, char *item)
{
	unsigned long long v;
	char *eq;

	while (*item == ' ' || *item == '\t')
		item++;
	if (!*item)
		return 0;
	fc->head_given = 1;
	if (!strcmp(item, "none")) {
		fc->head_none = 1;
		return 0;
	}
	eq = strchr(item, '=');
	if (!eq)
		return -1;
	*eq++ = '\0';
	if (ejw_parse_num(eq, 0xffffffffULL, &v))
		return -1;
	if (!strcmp(item, "tid")) {
		fc->have_head_tid = 1;
		fc->head_tid = v;
	} else if (!strcmp(item, "features")) {
		fc->features = v;
	} else {
		return -1;
	}
	return 0;
}

int ejw_fc_head_option(struct ejw_fc **fc, const char *spec)
{
	char *copy, *item, *save = NULL;
	int err = 0;

	if (!fc_get(fc))
		return -1;
	copy = strdup(spec);
	if (!copy)
		return -1;
	(*fc)->head_given = 1;
	for (item = strtok_r(copy, ";", &save); item && !err;
	     item = strtok_r(NULL, ";", &save)) {
		err = head_item(*fc, item);
		if (err)
			fprintf(stderr,
				"%s: '%s': expected tid=N, features=N or none\n",
				ej_prog, item);
	}
	free(copy);
	return err;
}

/* "tail [TID] [bad-crc]" or "notail" closes the open fast commit. */
static int spec_close(struct fc_one *o, char **w, int n)
{
	unsigned long long v;
	int i;

	if (!strcmp(w[0], "notail") && n == 1) {
		o->notail = 1;
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (!strcmp(w[i], "bad-crc")) {
			o->bad_crc = 1;
		} else if (!ejw_parse_num(w[i], 0xffffffffULL, &v)) {
			o->have_tid = 1;
			o->tid = v;
		} else {
			return -1;
		}
	}
	return 0;
}

int ejw_fc_spec_line(struct ejw_fc **fc, char **w, int n)
{
	struct fc_one *o;
	char args[4096];
	int i;

	if (!strcmp(w[0], "fc_head")) {
		if (!fc_get(fc))
			return -1;
		(*fc)->head_given = 1;
		for (i = 1; i < n; i++)
			if (head_item(*fc, w[i]))
				return -1;
		return 1;
	}
	if (!strcmp(w[0], "fc")) {
		if (!fc_get(fc) || (*fc)->open)
			return -1;
		o = fc_new(*fc);
		if (!o)
			return -1;
		(*fc)->open = 1;
		for (i = 1; i < n; i++)
			if (fc_string(o, w[i]))
				return -1;
		return 1;
	}
	if (!*fc || !(*fc)->open)
		return 0;
	o = &(*fc)->fcs[(*fc)->nr - 1];
	if (!strcmp(w[0], "tail") || !strcmp(w[0], "notail")) {
		(*fc)->open = 0;
		return spec_close(o, w, n) ? -1 : 1;
	}
	/* "link 12 13 name" is --fc's "link=12,13,name" */
	args[0] = '\0';
	for (i = 1; i < n; i++) {
		if (strlen(args) + strlen(w[i]) + 2 > sizeof(args))
			return -1;
		if (i > 1)
			strcat(args, ",");
		strcat(args, w[i]);
	}
	return parse_record(o, w[0], n > 1 ? args : NULL) ? -1 : 1;
}

int ejw_fc_spec_end(struct ejw_fc *fc, const char *path)
{
	if (!fc || !fc->open)
		return 0;
	fprintf(stderr, "%s: %s: a fast commit without its tail or notail\n",
		ej_prog, path);
	return -1;
}

int ejw_fc_wanted(const struct ejw_fc *fc)
{
	return fc && (fc->nr || fc->head_given);
}

int ejw_fc_prepare(const struct ejw_fc *fc, const struct img *im,
		   const journal_superblock_t *jsb, struct ej_writer_opts *wo)
{
	if (!ejw_fc_wanted(fc))
		return 0;
	if (!ext2fs_has_feature_fast_commit(im->fs->super)) {
		fprintf(stderr,
			"%s: %s has no fast_commit feature (tune2fs -O fast_commit)\n",
			ej_prog, im->path);
		return -1;
	}
	/* as ext4 at mount: the journal's feature, its area kept */
	if (be32_to_cpu(jsb->s_header.h_blocktype) != JBD2_SUPERBLOCK_V2) {
		fprintf(stderr,
			"%s: a v1 journal superblock has no fast-commit area\n",
			ej_prog);
		return -1;
	}
	wo->flags |= EJ_W_FAST_COMMIT;
	wo->num_fc_blks = be32_to_cpu(jsb->s_num_fc_blks);
	return 0;
}

static void set_field(struct ext2_inode_large *in, int id,
		      unsigned long long v)
{
	switch (id) {
	case IF_MODE:
		in->i_mode = v;
		break;
	case IF_UID:
		in->i_uid = v;
		in->osd2.linux2.l_i_uid_high = v >> 16;
		break;
	case IF_SIZE:
		in->i_size = v;
		in->i_size_high = v >> 32;
		break;
	case IF_ATIME:
		in->i_atime = v;
		break;
	case IF_CTIME:
		in->i_ctime = v;
		break;
	case IF_MTIME:
		in->i_mtime = v;
		break;
	case IF_DTIME:
		in->i_dtime = v;
		break;
	case IF_GID:
		in->i_gid = v;
		in->osd2.linux2.l_i_gid_high = v >> 16;
		break;
	case IF_LINKS:
		in->i_links_count = v;
		break;
	case IF_BLOCKS:
		in->i_blocks = v;
		in->osd2.linux2.l_i_blocks_hi = v >> 32;
		break;
	case IF_FLAGS:
		in->i_flags = v;
		break;
	case IF_GENERATION:
		in->i_generation = v;
		break;
	case IF_EXTRA:
		in->i_extra_isize = v;
		break;
	}
}

/*
 * The INODE record of @it: the inode as @fs holds it, fields changed, as
 * long as ext4 logs it (128 bytes and the extra part).
 */
static errcode_t put_inode(struct ej_fcw *a, ext2_filsys fs,
			   const struct fc_item *it)
{
	unsigned int isz = EXT2_INODE_SIZE(fs->super), len;
	struct ext2_inode_large *in;
	errcode_t err;
	int i;

	if (!it->n[0] || it->n[0] > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	in = calloc(1, isz > sizeof(*in) ? isz : sizeof(*in));
	if (!in)
		return EJ_NO_MEMORY;
	err = ext2fs_read_inode_full(fs, it->n[0], (struct ext2_inode *)in,
				     isz);
	if (err)
		goto out;
	for (i = 0; i < it->nf; i++)
		set_field(in, it->fid[i], it->fval[i]);
	len = EXT2_GOOD_OLD_INODE_SIZE;
	if (isz > len)
		len += in->i_extra_isize < isz - len ? in->i_extra_isize :
		       isz - len;
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_inode_full(fs, in, in, 1, isz);
#endif
	err = ej_fcw_inode(a, it->n[0], in, len);
out:
	free(in);
	return err;
}

static errcode_t put_item(struct ej_fcw *a, ext2_filsys fs,
			  const struct fc_item *it)
{
	switch (it->kind) {
	case IT_ADD:
		if (it->n[0] > 0xffffffffULL || it->n[1] > 0xffffffffULL)
			return EJ_BAD_ARG;
		return ej_fcw_add_range(a, it->n[0], it->n[1], it->n[2],
					it->n[3], it->unwritten);
	case IT_DEL:
		if (it->n[0] > 0xffffffffULL || it->n[1] > 0xffffffffULL ||
		    it->n[2] > 0xffffffffULL)
			return EJ_BAD_ARG;
		return ej_fcw_del_range(a, it->n[0], it->n[1], it->n[2]);
	case IT_DENTRY:
		if (it->n[0] > 0xffffffffULL || it->n[1] > 0xffffffffULL)
			return EJ_BAD_ARG;
		return ej_fcw_dentry(a, it->tag, it->n[0], it->n[1],
				     (const char *)it->bytes, it->nbytes);
	case IT_INODE:
		return put_inode(a, fs, it);
	case IT_PAD:
		if (it->n[0] > 0xffff)
			return EJ_BAD_ARG;
		return ej_fcw_record(a, EJ_FC_TAG_PAD, NULL, it->n[0]);
	case IT_RAW:
		return ej_fcw_record(a, it->tag, it->bytes, it->nbytes);
	}
	return EJ_BAD_ARG;
}

static errcode_t build(struct ejw_fc *fc, ext2_filsys fs)
{
	const struct fc_one *o;
	size_t i, k;
	errcode_t err = 0;

	if (!fc->head_none)
		err = ej_fcw_head(fc->a, fc->features, fc->have_head_tid ?
				  fc->head_tid : fc->tid);
	for (i = 0; i < fc->nr && !err; i++) {
		o = &fc->fcs[i];
		for (k = 0; k < o->nr && !err; k++) {
			err = put_item(fc->a, fs, &o->items[k]);
			if (err)
				com_err(ej_prog, err,
					"in record %zu of fast commit %zu",
					k + 1, i);
		}
		if (err)
			break;
		if (o->notail)
			err = ej_fcw_end_torn(fc->a);
		else
			err = ej_fcw_tail(fc->a, o->have_tid ? o->tid : fc->tid,
					  o->bad_crc ? 1 : 0);
	}
	/* a HEAD alone: an area with a fast commit begun, nothing more */
	if (!err && !fc->nr)
		err = ej_fcw_end_torn(fc->a);
	return err;
}

errcode_t ejw_fc_write(struct ejw_fc *fc, struct img *im,
		       struct ej_writer *w)
{
	const journal_superblock_t *jsb = ej_writer_jsb(w);
	unsigned long last;
	errcode_t err;

	if (!ejw_fc_wanted(fc))
		return 0;
	ej_writer_log_bounds(w, NULL, &last);
	fc->tid = ej_writer_next_tid(w);
	fc->bs = im->fs->blocksize;
	/* the area starts one block past the log (ej_fcw.h) */
	err = ej_fcw_new(im->fs->blocksize,
			 be32_to_cpu(jsb->s_maxlen) - last - 1, &fc->a);
	if (!err)
		err = build(fc, im->fs);
	if (err == EXT2_ET_JOURNAL_TOO_SMALL)
		fprintf(stderr,
			"%s: the fast commits do not fit in the fast-commit area\n",
			ej_prog);
	else if (!err)
		err = ej_fcw_put(w, fc->a, &fc->first_jblock);
	if (err && err != EXT2_ET_JOURNAL_TOO_SMALL)
		com_err(ej_prog, err, "while writing the fast commits");
	return err;
}

static __u32 le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

static unsigned int le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

/* One record in the words "e2journal dump" uses for it. */
static void print_rec(FILE *out, const struct ej_fcw_rec *r,
		      const unsigned char *v)
{
	unsigned int n, i;

	fprintf(out, "    %-9s", ej_fc_tag_name(r->tag));
	if (r->tag < EJ_FC_TAG_ADD_RANGE || r->tag > EJ_FC_TAG_HEAD ||
	    (r->tag != EJ_FC_TAG_PAD && !ej_fc_len_ok(r->tag, r->len, 65535))) {
		fprintf(out, " tag %u length %u", r->tag, r->len);
		return;
	}
	switch (r->tag) {
	case EJ_FC_TAG_ADD_RANGE:
		n = le16(v + 8);
		fprintf(out, " ino %u lblk %u len %u pblk %llu%s", le32(v),
			le32(v + 4), n > 32768 ? n - 32768 : n,
			(unsigned long long)le16(v + 10) << 32 | le32(v + 12),
			n > 32768 ? " unwritten" : "");
		break;
	case EJ_FC_TAG_DEL_RANGE:
		fprintf(out, " ino %u lblk %u len %u", le32(v), le32(v + 4),
			le32(v + 8));
		break;
	case EJ_FC_TAG_CREAT:
	case EJ_FC_TAG_LINK:
	case EJ_FC_TAG_UNLINK:
		fprintf(out, " parent %u ino %u name \"", le32(v), le32(v + 4));
		for (i = EJ_FC_DENTRY_LEN; i < r->len; i++)
			if (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '"' &&
			    v[i] != '\\')
				fputc(v[i], out);
			else
				fprintf(out, "\\u%04x", v[i]);
		fputc('"', out);
		break;
	case EJ_FC_TAG_INODE:
		fprintf(out, " ino %u mode 0%o links %u", le32(v),
			le16(v + EJ_FC_INODE_LEN),
			le16(v + EJ_FC_INODE_LEN + 0x1a));
		break;
	case EJ_FC_TAG_PAD:
		fprintf(out, " length %u%s", r->len, r->added ? " (added)" : "");
		break;
	case EJ_FC_TAG_TAIL:
		fprintf(out, " tid %u crc 0x%08x", le32(v), le32(v + 4));
		break;
	case EJ_FC_TAG_HEAD:
		fprintf(out, " features 0x%x tid %u", le32(v), le32(v + 4));
		break;
	}
}

void ejw_fc_print(FILE *out, const struct ejw_fc *fc, int verbose)
{
	const struct ej_fcw_rec *r;
	const unsigned char *area;
	size_t nr, i;
	long cur = -1;

	if (!fc || !fc->a)
		return;
	r = ej_fcw_recs(fc->a, &nr);
	area = ej_fcw_area(fc->a, NULL);
	fprintf(out,
		"fast commits: %zu (tid %u) in journal blocks %lu-%lu, the fast-commit area from %lu\n",
		fc->nr, fc->tid, fc->first_jblock,
		fc->first_jblock + ej_fcw_blocks(fc->a) - 1, fc->first_jblock);
	if (!verbose || !nr)
		return;
	for (i = 0; i < nr; i++) {
		if ((long)r[i].fc != cur) {
			cur = r[i].fc;
			fprintf(out, "  fast commit %ld\n", cur);
		}
		print_rec(out, &r[i], area + r[i].off + EJ_FC_TL_LEN);
		/* where a fault aimed at it goes (e2journal corrupt raw) */
		fprintf(out, "  @ jblock %lu byte %lu\n",
			fc->first_jblock + r[i].off / fc->bs,
			r[i].off % fc->bs);
	}
}

void ejw_fc_free(struct ejw_fc *fc)
{
	size_t i, k;

	if (!fc)
		return;
	for (i = 0; i < fc->nr; i++) {
		for (k = 0; k < fc->fcs[i].nr; k++)
			free(fc->fcs[i].items[k].bytes);
		free(fc->fcs[i].items);
	}
	free(fc->fcs);
	ej_fcw_free(fc->a);
	free(fc);
}
