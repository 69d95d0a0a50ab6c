// SPDX-License-Identifier: GPL-2.0
/*
 * ej_show_decode.c: what a filesystem block holds, for "e2journal show":
 * superblock, group descriptor and inode fields by name, directory
 * entries, extent tree nodes, bitmap counts; and, between the block on
 * disk and the version a transaction logged, which bytes, fields, bits,
 * inodes or directory entries differ.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ej_show.h"

/* How much of a long difference is printed. */
#define MAX_RANGES		16
#define MAX_ITEMS		32

/* ------------------------------------------------------------------ */
/* Little-endian fields of a raw block                                 */

static unsigned long long get_le(const void *p, unsigned int size)
{
	const unsigned char *c = p;
	unsigned long long v = 0;

	while (size--)
		v = (v << 8) | c[size];
	return v;
}

static unsigned int le16(const char *p)
{
	return (unsigned int)get_le(p, 2);
}

static unsigned int le32(const char *p)
{
	return (unsigned int)get_le(p, 4);
}

/* ------------------------------------------------------------------ */
/* Field tables: what a byte offset means in a superblock, descriptor,  */
/* inode                                                              */

#define F_DEC	0
#define F_HEX	1
#define F_OCT	2
#define F_RAW	3	/* arrays: say "changed" */

struct field {
	unsigned int	off;
	unsigned int	size;
	const char	*name;
	int		fmt;
};

#define SBF(m, f) { offsetof(struct ext2_super_block, m), \
		    sizeof(((struct ext2_super_block *)0)->m), #m, f }
static const struct field sb_fields[] = {
	SBF(s_inodes_count, F_DEC),
	SBF(s_blocks_count, F_DEC),
	SBF(s_r_blocks_count, F_DEC),
	SBF(s_free_blocks_count, F_DEC),
	SBF(s_free_inodes_count, F_DEC),
	SBF(s_first_data_block, F_DEC),
	SBF(s_log_block_size, F_DEC),
	SBF(s_log_cluster_size, F_DEC),
	SBF(s_blocks_per_group, F_DEC),
	SBF(s_clusters_per_group, F_DEC),
	SBF(s_inodes_per_group, F_DEC),
	SBF(s_mtime, F_DEC),
	SBF(s_wtime, F_DEC),
	SBF(s_mnt_count, F_DEC),
	SBF(s_max_mnt_count, F_DEC),
	SBF(s_magic, F_HEX),
	SBF(s_state, F_HEX),
	SBF(s_errors, F_DEC),
	SBF(s_minor_rev_level, F_DEC),
	SBF(s_lastcheck, F_DEC),
	SBF(s_checkinterval, F_DEC),
	SBF(s_creator_os, F_DEC),
	SBF(s_rev_level, F_DEC),
	SBF(s_def_resuid, F_DEC),
	SBF(s_def_resgid, F_DEC),
	SBF(s_first_ino, F_DEC),
	SBF(s_inode_size, F_DEC),
	SBF(s_block_group_nr, F_DEC),
	SBF(s_feature_compat, F_HEX),
	SBF(s_feature_incompat, F_HEX),
	SBF(s_feature_ro_compat, F_HEX),
	SBF(s_uuid, F_RAW),
	SBF(s_volume_name, F_RAW),
	SBF(s_last_mounted, F_RAW),
	SBF(s_algorithm_usage_bitmap, F_HEX),
	SBF(s_prealloc_blocks, F_DEC),
	SBF(s_prealloc_dir_blocks, F_DEC),
	SBF(s_reserved_gdt_blocks, F_DEC),
	SBF(s_journal_uuid, F_RAW),
	SBF(s_journal_inum, F_DEC),
	SBF(s_journal_dev, F_HEX),
	SBF(s_last_orphan, F_DEC),
	SBF(s_hash_seed, F_RAW),
	SBF(s_def_hash_version, F_DEC),
	SBF(s_jnl_backup_type, F_DEC),
	SBF(s_desc_size, F_DEC),
	SBF(s_default_mount_opts, F_HEX),
	SBF(s_first_meta_bg, F_DEC),
	SBF(s_mkfs_time, F_DEC),
	SBF(s_jnl_blocks, F_RAW),
	SBF(s_blocks_count_hi, F_DEC),
	SBF(s_r_blocks_count_hi, F_DEC),
	SBF(s_free_blocks_hi, F_DEC),
	SBF(s_min_extra_isize, F_DEC),
	SBF(s_want_extra_isize, F_DEC),
	SBF(s_flags, F_HEX),
	SBF(s_raid_stride, F_DEC),
	SBF(s_mmp_update_interval, F_DEC),
	SBF(s_mmp_block, F_DEC),
	SBF(s_raid_stripe_width, F_DEC),
	SBF(s_log_groups_per_flex, F_DEC),
	SBF(s_checksum_type, F_DEC),
	SBF(s_kbytes_written, F_DEC),
	SBF(s_error_count, F_DEC),
	SBF(s_first_error_time, F_DEC),
	SBF(s_last_error_time, F_DEC),
	SBF(s_overhead_clusters, F_DEC),
	SBF(s_lpf_ino, F_DEC),
	SBF(s_checksum_seed, F_HEX),
	SBF(s_orphan_file_inum, F_DEC),
	SBF(s_checksum, F_HEX),
};

#define GDF(m, f) { offsetof(struct ext4_group_desc, m), \
		    sizeof(((struct ext4_group_desc *)0)->m), #m, f }
static const struct field gd_fields[] = {
	GDF(bg_block_bitmap, F_DEC),
	GDF(bg_inode_bitmap, F_DEC),
	GDF(bg_inode_table, F_DEC),
	GDF(bg_free_blocks_count, F_DEC),
	GDF(bg_free_inodes_count, F_DEC),
	GDF(bg_used_dirs_count, F_DEC),
	GDF(bg_flags, F_HEX),
	GDF(bg_exclude_bitmap_lo, F_DEC),
	GDF(bg_block_bitmap_csum_lo, F_HEX),
	GDF(bg_inode_bitmap_csum_lo, F_HEX),
	GDF(bg_itable_unused, F_DEC),
	GDF(bg_checksum, F_HEX),
	GDF(bg_block_bitmap_hi, F_DEC),
	GDF(bg_inode_bitmap_hi, F_DEC),
	GDF(bg_inode_table_hi, F_DEC),
	GDF(bg_free_blocks_count_hi, F_DEC),
	GDF(bg_free_inodes_count_hi, F_DEC),
	GDF(bg_used_dirs_count_hi, F_DEC),
	GDF(bg_itable_unused_hi, F_DEC),
	GDF(bg_exclude_bitmap_hi, F_DEC),
	GDF(bg_block_bitmap_csum_hi, F_HEX),
	GDF(bg_inode_bitmap_csum_hi, F_HEX),
};

#define INF(m, n, f) { offsetof(struct ext2_inode_large, m), \
		       sizeof(((struct ext2_inode_large *)0)->m), n, f }
static const struct field inode_fields[] = {
	INF(i_mode, "mode", F_OCT),
	INF(i_uid, "uid", F_DEC),
	INF(i_size, "size", F_DEC),
	INF(i_atime, "atime", F_DEC),
	INF(i_ctime, "ctime", F_DEC),
	INF(i_mtime, "mtime", F_DEC),
	INF(i_dtime, "dtime", F_DEC),
	INF(i_gid, "gid", F_DEC),
	INF(i_links_count, "links", F_DEC),
	INF(i_blocks, "blocks", F_DEC),
	INF(i_flags, "flags", F_HEX),
	INF(osd1, "version", F_DEC),
	INF(i_block, "block map/extent root", F_RAW),
	INF(i_generation, "generation", F_DEC),
	INF(i_file_acl, "file_acl", F_DEC),
	INF(i_size_high, "size_high", F_DEC),
	INF(i_faddr, "faddr", F_DEC),
	INF(osd2.linux2.l_i_blocks_hi, "blocks_hi", F_DEC),
	INF(osd2.linux2.l_i_file_acl_high, "file_acl_high", F_DEC),
	INF(osd2.linux2.l_i_uid_high, "uid_high", F_DEC),
	INF(osd2.linux2.l_i_gid_high, "gid_high", F_DEC),
	INF(osd2.linux2.l_i_checksum_lo, "checksum_lo", F_HEX),
	INF(i_extra_isize, "extra_isize", F_DEC),
	INF(i_checksum_hi, "checksum_hi", F_HEX),
	INF(i_ctime_extra, "ctime_extra", F_HEX),
	INF(i_mtime_extra, "mtime_extra", F_HEX),
	INF(i_atime_extra, "atime_extra", F_HEX),
	INF(i_crtime, "crtime", F_DEC),
	INF(i_crtime_extra, "crtime_extra", F_HEX),
	INF(i_version_hi, "version_hi", F_DEC),
	INF(i_projid, "projid", F_DEC),
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static void print_value(FILE *out, const char *p, const struct field *f)
{
	unsigned long long v = get_le(p, f->size);

	switch (f->fmt) {
	case F_HEX:
		fprintf(out, "0x%llx", v);
		break;
	case F_OCT:
		fprintf(out, v ? "0%llo" : "0", v);
		break;
	default:
		fprintf(out, "%llu", v);
	}
}

/*
 * Print the fields of a structure at @old/@new (both @len bytes long) that
 * differ, one line each under @prefix; returns how many differed.
 */
static int diff_fields(FILE *out, const char *prefix, const struct field *t,
		       size_t nr, const char *old, const char *new,
		       unsigned int len)
{
	unsigned int covered = 0;
	int n = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct field *f = &t[i];

		if (f->off + f->size > len)
			continue;
		if (f->off + f->size > covered)
			covered = f->off + f->size;
		if (!memcmp(old + f->off, new + f->off, f->size))
			continue;
		n++;
		fprintf(out, "%s%s: ", prefix, f->name);
		if (f->fmt == F_RAW || f->size > 8) {
			fprintf(out, "changed\n");
			continue;
		}
		print_value(out, old + f->off, f);
		fputs(" -> ", out);
		print_value(out, new + f->off, f);
		fputc('\n', out);
	}
	if (covered < len && memcmp(old + covered, new + covered,
				    len - covered)) {
		fprintf(out, "%sbytes %u-%u (no named field): changed\n",
			prefix, covered, len - 1);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

void show_describe_inode(struct show_ctx *c, const char *raw,
			 ext2_ino_t ino, const char *indent)
{
	unsigned int mode = le16(raw), flags = le32(raw + 0x20);
	unsigned long long size, blocks;
	const char *ib = raw + 0x28;
	FILE *out = c->out;

	size = le32(raw + 4) | ((unsigned long long)le32(raw + 0x6c) << 32);
	blocks = le32(raw + 0x1c) |
		 ((unsigned long long)le16(raw + 0x74) << 32);
	fprintf(out, "%sinode %u: ", indent, ino);
	if (!mode && !le16(raw + 0x1a)) {
		fprintf(out, "unused%s\n", le32(raw + 0x14) ?
			" (deleted)" : "");
		return;
	}
	fprintf(out,
		"mode 0%o (%s), links %u, size %llu, blocks %llu, flags 0x%x",
		mode, show_file_type(mode), le16(raw + 0x1a), size,
		blocks, flags);
	if (le32(raw + 0x14))
		fprintf(out, ", dtime %u", le32(raw + 0x14));
	if (flags & EXT4_INLINE_DATA_FL) {
		fputs(", inline data", out);
	} else if (flags & EXT4_EXTENTS_FL) {
		if (le16(ib) == EXT3_EXT_MAGIC)
			fprintf(out,
				", extent header: %u entries, max %u, depth %u",
				le16(ib + 2), le16(ib + 4),
				le16(ib + 6));
		else
			fprintf(out, ", extent header BAD magic 0x%04x",
				le16(ib));
	} else if (LINUX_S_ISLNK(mode) && !blocks) {
		fputs(", fast symlink", out);
	} else if (LINUX_S_ISREG(mode) || LINUX_S_ISDIR(mode) ||
		   LINUX_S_ISLNK(mode)) {
		fprintf(out, ", block[0] %u", le32(ib));
	}
	fputc('\n', out);
}

/* One directory entry as parsed from a block. */
struct dentry {
	unsigned int	ino;
	unsigned int	type;
	unsigned int	name_len;
	char		name[EXT2_NAME_LEN + 1];
};

/*
 * Parse the entries of directory block @b into *ents (malloc'ed);
 * returns how many, and sets *bad when the chain of rec_len breaks.
 */
static size_t parse_dir(struct show_ctx *c, const char *b,
			struct dentry **ents, int *bad)
{
	int filetype = ext2fs_has_feature_filetype(c->fs->super);
	unsigned int off = 0, rec_len;
	struct dentry *e = NULL;
	size_t n = 0, max = 0;

	*bad = 0;
	while (off + 8 <= c->bs) {
		unsigned int ino = le32(b + off), name_len;

		rec_len = le16(b + off + 4);
		/* 64 KiB blocks keep 65536 as 0 or 65535 */
		if (c->bs >= 65536 && (rec_len == 65535 || !rec_len))
			rec_len = c->bs;
		name_len = filetype ? (unsigned char)b[off + 6] :
				      le16(b + off + 6);
		if (rec_len < 8 || rec_len % 4 || off + rec_len > c->bs ||
		    name_len + 8 > rec_len) {
			*bad = 1;
			break;
		}
		if (ino && name_len) {
			if (n == max) {
				struct dentry *p;

				max = max ? max * 2 : 32;
				p = realloc(e, max * sizeof(*e));
				if (!p)
					break;
				e = p;
			}
			e[n].ino = ino;
			e[n].type = filetype ? (unsigned char)b[off + 7] : 0;
			e[n].name_len = name_len;
			memcpy(e[n].name, b + off + 8, name_len);
			e[n].name[name_len] = 0;
			n++;
		}
		off += rec_len;
	}
	*ents = e;
	return n;
}

static const char *dirent_type(unsigned int t)
{
	static const char *const names[] = {
		"unknown", "file", "dir", "chardev", "blockdev", "fifo",
		"socket", "symlink"
	};

	return t < NR(names) ? names[t] : "?";
}

static void print_name(FILE *out, const struct dentry *d)
{
	unsigned int i;

	fputc('"', out);
	for (i = 0; i < d->name_len; i++) {
		unsigned char ch = (unsigned char)d->name[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			fprintf(out, "\\x%02x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void describe_dir(struct show_ctx *c, const char *b, const char *what)
{
	struct dentry *e;
	size_t n, i;
	int bad;

	n = parse_dir(c, b, &e, &bad);
	fprintf(c->out, "Directory entries (%s): %zu%s\n", what, n,
		bad ? ", then a broken rec_len chain" : "");
	if (!n && le32(b) == 0 && le16(b + 4) == c->bs)
		fputs("  (an htree index node: one empty entry)\n", c->out);
	for (i = 0; i < n && i < MAX_ITEMS * 4; i++) {
		fprintf(c->out, "  %10u  %-8s ", e[i].ino,
			dirent_type(e[i].type));
		print_name(c->out, &e[i]);
		fputc('\n', c->out);
	}
	if (i < n)
		fprintf(c->out, "  ... %zu more\n", n - i);
	free(e);
}

static int dentry_in(const struct dentry *d, const struct dentry *set,
		     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (set[i].ino == d->ino && set[i].name_len == d->name_len &&
		    !memcmp(set[i].name, d->name, d->name_len))
			return 1;
	}
	return 0;
}

static void diff_dir(struct show_ctx *c)
{
	struct dentry *a, *b;
	size_t na, nb, i;
	int bad_a, bad_b, changes = 0;

	na = parse_dir(c, c->disk, &a, &bad_a);
	nb = parse_dir(c, c->logged, &b, &bad_b);
	fputs("Directory entries the logged version adds (+), removes (-):\n",
	      c->out);
	for (i = 0; i < nb; i++) {
		if (dentry_in(&b[i], a, na))
			continue;
		fprintf(c->out, "  + %10u  %-8s ", b[i].ino,
			dirent_type(b[i].type));
		print_name(c->out, &b[i]);
		fputc('\n', c->out);
		changes++;
	}
	for (i = 0; i < na; i++) {
		if (dentry_in(&a[i], b, nb))
			continue;
		fprintf(c->out, "  - %10u  %-8s ", a[i].ino,
			dirent_type(a[i].type));
		print_name(c->out, &a[i]);
		fputc('\n', c->out);
		changes++;
	}
	if (!changes)
		fputs("  none (only the layout or unused space differs)\n",
		      c->out);
	if (bad_b)
		fputs("  the logged version's rec_len chain is broken\n",
		      c->out);
	free(a);
	free(b);
}

static void describe_extent_block(struct show_ctx *c, const char *b,
				  const char *what)
{
	unsigned int magic = le16(b), entries = le16(b + 2);
	unsigned int max = le16(b + 4), depth = le16(b + 6), i;
	FILE *out = c->out;

	fprintf(out,
		"Extent node (%s): magic 0x%04x%s, %u entries, max %u, depth %u\n",
		what, magic, magic == EXT3_EXT_MAGIC ? "" :
		" (BAD)", entries, max, depth);
	if (magic != EXT3_EXT_MAGIC)
		return;
	for (i = 0; i < entries && 12 + (i + 1) * 12 <= c->bs; i++) {
		const char *x = b + 12 + i * 12;

		if (i == MAX_ITEMS) {
			fprintf(out, "  ... %u more\n", entries - i);
			break;
		}
		if (depth) {
			fprintf(out, "  index: logical %u -> node block %llu\n",
				le32(x), (unsigned long long)le32(x + 4) |
				((unsigned long long)le16(x + 8) << 32));
		} else {
			unsigned int len = le16(x + 4);

			fprintf(out,
				"  extent: logical %u, %u blocks -> %llu%s\n",
				le32(x), len > 32768 ? len - 32768 : len,
				(unsigned long long)le32(x + 8) |
				((unsigned long long)le16(x + 6) << 32),
				len > 32768 ? " (unwritten)" : "");
		}
	}
}

static void describe_superblock(struct show_ctx *c, const char *b)
{
	const char *s = b + c->sb_offset;

	fprintf(c->out,
		"Superblock: magic 0x%04x, %llu blocks, %llu free, %u inodes, %u free, state 0x%x, features 0x%x/0x%x/0x%x\n",
		le16(s + 0x38), (unsigned long long)le32(s + 4) |
		((unsigned long long)le32(s + 0x150) << 32),
		(unsigned long long)le32(s + 0xc) |
		((unsigned long long)le32(s + 0x158) << 32), le32(s),
		le32(s + 0x10), le16(s + 0x3a), le32(s + 0x5c),
		le32(s + 0x60), le32(s + 0x64));
}

static void describe_gdt(struct show_ctx *c, const char *b)
{
	unsigned int dsz = EXT2_DESC_SIZE(c->fs->super), i;
	unsigned long g;
	FILE *out = c->out;

	for (i = 0; i < c->bs / dsz; i++) {
		const char *d = b + i * dsz;

		g = c->first_desc + i;
		if (g >= c->fs->group_desc_count)
			break;
		if (i == MAX_ITEMS) {
			fputs("  ...\n", out);
			break;
		}
		fprintf(out,
			"  group %lu: block bitmap %u, inode bitmap %u, inode table %u, free blocks %u, free inodes %u, dirs %u, flags 0x%x\n",
			g, le32(d), le32(d + 4),
			le32(d + 8), le16(d + 12), le16(d + 14), le16(d + 16),
			le16(d + 18));
	}
}

static unsigned long count_bits(const char *b, unsigned long nbits)
{
	unsigned long i, n = 0;

	for (i = 0; i < nbits; i++)
		n += (b[i / 8] >> (i % 8)) & 1;
	return n;
}

/* Bits of a bitmap block that mean something. */
static unsigned long bitmap_bits(struct show_ctx *c)
{
	unsigned long n;

	if (c->kind == K_BLOCK_BITMAP)
		/* the last group may be short */
		n = EXT2FS_NUM_B2C(c->fs,
				   ext2fs_group_blocks_count(c->fs, c->group));
	else
		n = c->fs->super->s_inodes_per_group;
	if (n > (unsigned long)c->bs * 8)
		n = (unsigned long)c->bs * 8;
	return n;
}

static unsigned long long bit_item(struct show_ctx *c, unsigned long bit)
{
	struct ext2_super_block *sb = c->fs->super;

	if (c->kind == K_INODE_BITMAP)
		return (unsigned long long)c->group * sb->s_inodes_per_group +
		       bit + 1;
	return ext2fs_group_first_block2(c->fs, c->group) +
	       EXT2FS_C2B(c->fs, bit);
}

static void diff_bitmap(struct show_ctx *c)
{
	unsigned long nbits = bitmap_bits(c), i, set = 0, clr = 0;
	const char *what = c->kind == K_INODE_BITMAP ? "inode" : "block";
	int shown = 0;

	for (i = 0; i < nbits; i++) {
		int a = (c->disk[i / 8] >> (i % 8)) & 1;
		int b = (c->logged[i / 8] >> (i % 8)) & 1;

		if (a == b)
			continue;
		if (b)
			set++;
		else
			clr++;
		if (shown++ < MAX_ITEMS)
			fprintf(c->out, "  %c %s %llu\n", b ? '+' : '-', what,
				bit_item(c, i));
	}
	if (shown > MAX_ITEMS)
		fprintf(c->out, "  ... %d more\n", shown - MAX_ITEMS);
	fprintf(c->out,
		"  %lu %s%s marked in use (+), %lu freed (-) by the logged version\n",
		set, what, set == 1 ? "" : "s", clr);
}

static void diff_inodes(struct show_ctx *c)
{
	unsigned int isz = EXT2_INODE_SIZE(c->fs->super), i, n = 0;
	unsigned int len = isz;
	char prefix[32];

	if (len > sizeof(struct ext2_inode_large))
		len = sizeof(struct ext2_inode_large);
	for (i = 0; i < c->bs / isz; i++) {
		const char *a = c->disk + i * isz, *b = c->logged + i * isz;
		ext2_ino_t ino = c->first_ino + i;

		if (!memcmp(a, b, isz))
			continue;
		n++;
		fprintf(c->out, "  inode %u changed:\n", ino);
		show_describe_inode(c, a, ino, "    on disk: ");
		show_describe_inode(c, b, ino, "    logged:  ");
		snprintf(prefix, sizeof(prefix), "      ");
		diff_fields(c->out, prefix, inode_fields, NR(inode_fields),
			    a, b, len);
		if (isz > len && memcmp(a + len, b + len, isz - len))
			fprintf(c->out,
				"      in-inode extended attributes: changed\n");
	}
	if (!n)
		fputs("  no inode differs\n", c->out);
}

static void diff_gdt(struct show_ctx *c)
{
	unsigned int dsz = EXT2_DESC_SIZE(c->fs->super), i;
	char prefix[48];
	int n = 0;

	for (i = 0; i < c->bs / dsz; i++) {
		const char *a = c->disk + i * dsz, *b = c->logged + i * dsz;

		if (!memcmp(a, b, dsz))
			continue;
		snprintf(prefix, sizeof(prefix), "  group %lu: ",
			 c->first_desc + i);
		n += diff_fields(c->out, prefix, gd_fields, NR(gd_fields), a, b,
				 dsz);
	}
	if (!n)
		fputs("  no descriptor differs\n", c->out);
}

static void diff_extent(struct show_ctx *c)
{
	describe_extent_block(c, c->disk, "on disk");
	describe_extent_block(c, c->logged, "logged");
}

/* Byte ranges that differ, with the first bytes of each. */
static void diff_ranges(struct show_ctx *c)
{
	unsigned int i = 0, start, nr = 0, bytes = 0, k;
	FILE *out = c->out;

	while (i < c->bs) {
		if (c->disk[i] == c->logged[i]) {
			i++;
			continue;
		}
		start = i;
		/* gaps shorter than 4 equal bytes belong to the range */
		while (i < c->bs) {
			unsigned int j = i;

			while (j < c->bs && c->disk[j] != c->logged[j])
				j++;
			bytes += j - i;
			i = j;
			while (j < c->bs && j - i < 4 &&
			       c->disk[j] == c->logged[j])
				j++;
			if (j == c->bs || j - i >= 4)
				break;
			i = j;
		}
		if (nr++ >= MAX_RANGES)
			continue;
		fprintf(out, "  bytes 0x%04x-0x%04x (%u)\n", start, i - 1,
			i - start);
		fputs("    on disk:", out);
		for (k = start; k < i && k < start + 16; k++)
			fprintf(out, " %02x", (unsigned char)c->disk[k]);
		fputs(i - start > 16 ? " ...\n    logged: " : "\n    logged: ",
		      out);
		for (k = start; k < i && k < start + 16; k++)
			fprintf(out, " %02x", (unsigned char)c->logged[k]);
		fputs(i - start > 16 ? " ...\n" : "\n", out);
	}
	if (nr > MAX_RANGES)
		fprintf(out, "  ... %u more ranges\n", nr - MAX_RANGES);
	if (!nr)
		fputs("  none: the logged version equals the block on disk\n",
		      out);
	else
		fprintf(out, "  %u byte%s differ%s in %u range%s\n", bytes,
			bytes == 1 ? "" : "s", bytes == 1 ? "s" : "", nr,
			nr == 1 ? "" : "s");
}

/* What the block holds, decoded by type (one version). */
void show_describe(struct show_ctx *c, const char *b, const char *what)
{
	unsigned int isz, i;

	switch (c->kind) {
	case K_DATA:
	case K_FREE:
	case K_UNKNOWN:
	case K_BOOT:
	case K_RESERVED_GDT:
	case K_INDIRECT:
	case K_XATTR:
		return;
	case K_JOURNAL:
		if (be32_to_cpu(*(const __be32 *)b) != JBD2_MAGIC_NUMBER)
			return;
	}
	fputc('\n', c->out);
	switch (c->kind) {
	case K_SUPER:
	case K_BACKUP_SUPER:
		describe_superblock(c, b);
		break;
	case K_GDT:
		fprintf(c->out, "Group descriptors (%s):\n", what);
		describe_gdt(c, b);
		break;
	case K_BLOCK_BITMAP:
	case K_INODE_BITMAP:
		fprintf(c->out, "Bitmap (%s): %lu of %lu %ss in use\n", what,
			count_bits(b, bitmap_bits(c)), bitmap_bits(c),
			c->kind == K_INODE_BITMAP ? "inode" : "cluster");
		break;
	case K_INODE_TABLE:
		fprintf(c->out, "Inodes (%s):\n", what);
		isz = EXT2_INODE_SIZE(c->fs->super);
		for (i = 0; i < c->bs / isz; i++)
			show_describe_inode(c, b + i * isz, c->first_ino + i, "  ");
		break;
	case K_DIR:
		describe_dir(c, b, what);
		break;
	case K_EXTENT:
		describe_extent_block(c, b, what);
		break;
	case K_JOURNAL:
		if (be32_to_cpu(*(const __be32 *)b) == JBD2_MAGIC_NUMBER)
			fprintf(c->out,
				"Journal block (%s): type %u, sequence %u\n",
				what,
				be32_to_cpu(((const __be32 *)b)[1]),
				be32_to_cpu(((const __be32 *)b)[2]));
		break;
	}
}

void show_diff(struct show_ctx *c)
{
	FILE *out = c->out;

	fputs("\nDifferences, block on disk -> logged version:\n", out);
	diff_ranges(c);
	if (!memcmp(c->disk, c->logged, c->bs))
		return;
	switch (c->kind) {
	case K_SUPER:
	case K_BACKUP_SUPER:
		fputs("Superblock fields:\n", out);
		if (!diff_fields(out, "  ", sb_fields, NR(sb_fields),
				 c->disk + c->sb_offset,
				 c->logged + c->sb_offset, SUPERBLOCK_SIZE))
			fputs("  none (only bytes outside the superblock)\n",
			      out);
		break;
	case K_GDT:
		fputs("Group descriptor fields:\n", out);
		diff_gdt(c);
		break;
	case K_BLOCK_BITMAP:
	case K_INODE_BITMAP:
		fputs("Bitmap bits:\n", out);
		diff_bitmap(c);
		break;
	case K_INODE_TABLE:
		fputs("Inodes:\n", out);
		diff_inodes(c);
		break;
	case K_DIR:
		diff_dir(c);
		break;
	case K_EXTENT:
		diff_extent(c);
		break;
	}
}
