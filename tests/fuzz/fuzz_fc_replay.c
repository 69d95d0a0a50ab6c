// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_fc_replay.c: libFuzzer harness for the fast-commit replay
 * (fc_replay.c, through ej_fc_check(), ej_fc_dry_check() and
 * ej_fc_replay()) on a real filesystem.
 *
 * The input is not the area's bytes (a crc would stop almost all of
 * them at the scanner, which fuzz_fc covers): it is a program that this
 * harness has the test library's fast-commit writer (test/fc_write.c)
 * turn into well-formed fast commits, so that the replay sees
 * records of every kind with fuzzed contents.  Each step reads a byte
 * choosing the tag, then the bytes of the value: inode numbers and
 * physical blocks are taken modulo a little more than the filesystem
 * has (so most name real inodes and blocks, some do not), names and
 * lengths as they come, and an INODE record's raw inode is an in-use
 * inode of the image with input bytes laid over it.  A byte of 0xff
 * closes the fast commit (HEAD tid, TAIL crc as ext4 writes them) and
 * starts another.  The area is at most 8 blocks.
 *
 * The image is made once (mke2fs and debugfs: a 4 MiB ext4 with
 * fast_commit, a directory, files, a symlink) and copied into a file
 * under $TMPDIR for every input.  The replay must not crash, may fail
 * only with an error code, must print nothing (libext2fs' com_err
 * messages, such as "Illegal block number" when a fast symlink's text
 * is taken for blocks, trap), must leave the file its size (nothing
 * written outside the filesystem), and the filesystem must open again
 * with its bitmaps readable.  tests/fuzz/fc_replay/ holds inputs that
 * once failed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ej_int.h"
#include "ej_fc.h"
#include "test/ej_fcw.h"
#include <et/com_err.h>

#define FZ_BS		1024
#define FZ_BLOCKS	4096
#define FZ_MAX_BLKS	8
#define FZ_TID		7

static char master_path[256], work_path[272];
static unsigned char *master;
static size_t master_len;
static __u32 nr_inodes, nr_blocks;
static unsigned int inode_size;
static unsigned char tmpl_inode[1024];

static int sh(const char *fmt, const char *a)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, a);
	return system(cmd);
}

/* The library never prints: any com_err message during a replay traps. */
static void no_message(const char *whoami, errcode_t code, const char *fmt,
		       va_list args)
{
	fprintf(stderr, "fuzz_fc_replay: a message from %s (%ld): ",
		whoami ? whoami : "?", (long)code);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	abort();
}

/* The image, once: made by mke2fs and debugfs, read into memory. */
static int setup(void)
{
	const char *tmp = getenv("TMPDIR");
	ext2_filsys fs;
	ext2_ino_t ino;
	FILE *f;

	if (master)
		return 0;
	snprintf(master_path, sizeof(master_path), "%s/fuzz_fc_replay.%d.img",
		 tmp ? tmp : "/tmp", (int)getpid());
	snprintf(work_path, sizeof(work_path), "%s.work", master_path);
	if (sh("mke2fs -q -F -t ext4 -O fast_commit,^resize_inode -b 1024 "
	       "-N 64 %s 4096 >/dev/null 2>&1", master_path) ||
	    sh("head -c 40000 /dev/zero | tr '\\0' x >%s.data; debugfs -w "
	       "-R 'mkdir d' %s >/dev/null 2>&1", master_path))
		return -1;
	if (sh("for n in f1 d/f2 d/f3; do debugfs -w -R \"write %s.data $n\" "
	       "%s; done >/dev/null 2>&1", master_path) ||
	    sh("debugfs -w -R 'symlink d/s /somewhere' %s >/dev/null 2>&1; "
	       "rm -f %s.data", master_path))
		return -1;
	if (ext2fs_open(master_path, 0, 0, 0, unix_io_manager, &fs))
		return -1;
	nr_inodes = fs->super->s_inodes_count;
	nr_blocks = ext2fs_blocks_count(fs->super);
	inode_size = EXT2_INODE_SIZE(fs->super);
	if (inode_size > sizeof(tmpl_inode) ||
	    ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "d/f2", &ino) ||
	    ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)tmpl_inode,
				   inode_size)) {
		ext2fs_close_free(&fs);
		return -1;
	}
	ext2fs_close_free(&fs);
	master_len = (size_t)FZ_BLOCKS * FZ_BS;
	master = malloc(master_len);
	f = fopen(master_path, "rb");
	if (!master || !f || fread(master, 1, master_len, f) != master_len)
		abort();
	fclose(f);
	unlink(master_path);
	return 0;
}

struct input {
	const uint8_t	*p;
	size_t		left;
};

static unsigned int byte(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static __u32 word(struct input *in)
{
	__u32 v = byte(in);

	v |= byte(in) << 8;
	v |= byte(in) << 16;
	return v | (__u32)byte(in) << 24;
}

static __u32 an_ino(struct input *in)
{
	return word(in) % (nr_inodes + 4);
}

/* One record from the input into the area; nonzero when it is full. */
static int record(struct ej_fcw *a, struct input *in, unsigned int tag)
{
	unsigned char v[EJ_FC_INODE_LEN + sizeof(tmpl_inode)];
	__u32 ino, ino2, lblk;
	unsigned int len, i;
	errcode_t err;

	switch (tag) {
	case EJ_FC_TAG_ADD_RANGE: {
		unsigned long long pblk = word(in) % (nr_blocks + 64);

		ino = an_ino(in);
		lblk = word(in) % 4096;
		len = byte(in);
		err = ej_fcw_add_range(a, ino, lblk, len, pblk, byte(in) & 1);
		break;
	}
	case EJ_FC_TAG_DEL_RANGE:
		ino = an_ino(in);
		lblk = word(in) % 4096;
		len = byte(in);
		err = ej_fcw_del_range(a, ino, lblk, len | byte(in) << 8);
		break;
	case EJ_FC_TAG_CREAT:
	case EJ_FC_TAG_LINK:
	case EJ_FC_TAG_UNLINK:
		ino = an_ino(in);
		ino2 = an_ino(in);
		len = byte(in) % 24;
		for (i = 0; i < len; i++)
			v[i] = byte(in);
		err = ej_fcw_dentry(a, tag, ino, ino2, (const char *)v, len);
		break;
	case EJ_FC_TAG_INODE:
		ino = an_ino(in);
		memcpy(v, tmpl_inode, inode_size);
		/* up to 8 overlays of one byte at an offset of the input's */
		for (i = byte(in) % 9; i > 0; i--) {
			unsigned int off = byte(in) % inode_size;

			v[off] = byte(in);
		}
		err = ej_fcw_inode(a, ino, v, inode_size);
		break;
	default:				/* raw: tag, length, bytes */
		len = byte(in) % 64;
		for (i = 0; i < len; i++)
			v[i] = byte(in);
		err = ej_fcw_record(a, tag, v, len);
		break;
	}
	return err != 0;
}

/*
 * The fast commits the input describes, written by the test library's
 * fast-commit writer (test/fc_write.c: PADs where a record does not fit,
 * each TAIL's tid and crc as ext4 writes them).
 */
static struct ej_fcw *build(const uint8_t *data, size_t size)
{
	static const unsigned int tags[] = {
		EJ_FC_TAG_ADD_RANGE, EJ_FC_TAG_DEL_RANGE, EJ_FC_TAG_CREAT,
		EJ_FC_TAG_LINK, EJ_FC_TAG_UNLINK, EJ_FC_TAG_INODE,
		EJ_FC_TAG_PAD,
	};
	struct input in = { data, size };
	struct ej_fcw *a;
	int open = 0;

	if (ej_fcw_new(FZ_BS, FZ_MAX_BLKS, &a))
		abort();
	if (ej_fcw_head(a, 0, FZ_TID))
		abort();
	open = 1;
	while (in.left) {
		unsigned int b = byte(&in);

		if (b == 0xff) {
			if (ej_fcw_tail(a, FZ_TID, 0))
				break;
			open = 0;
			continue;
		}
		if (record(a, &in, tags[b % 7]))
			break;
		open = 1;
	}
	/* without room for its TAIL, the last fast commit stays open */
	if (open)
		ej_fcw_tail(a, FZ_TID, 0);
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *area;
	struct ej_fcw *a;
	struct ej_fc_scan s;
	unsigned long nblk;
	ext2_filsys fs = NULL;
	struct stat st;
	int flag = 0;
	FILE *f;

	if (setup())
		abort();
	a = build(data, size);
	area = ej_fcw_area(a, NULL);
	nblk = ej_fcw_blocks(a);
	f = fopen(work_path, "wb");
	if (!f || fwrite(master, 1, master_len, f) != master_len || fclose(f))
		abort();
	if (ej_fc_scan(area, nblk, FZ_BS, FZ_TID, inode_size, &s))
		abort();
	if (s.area != EJ_FCA_LIVE)
		abort();		/* the harness wrote a live HEAD */
	if (ext2fs_open(work_path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
			unix_io_manager, &fs))
		abort();
	set_com_err_hook(no_message);
	if (!ej_fc_check(fs, NULL, 0, area, &s) &&
	    !ej_fc_dry_check(fs, area, &s, &flag))
		ej_fc_replay(fs, area, &s);	/* an error code is allowed */
	ext2fs_close_free(&fs);
	reset_com_err_hook();
	ej_fc_scan_free(&s);
	ej_fcw_free(a);
	if (stat(work_path, &st) || (size_t)st.st_size != master_len)
		abort();		/* written outside the filesystem */
	if (ext2fs_open(work_path, EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			&fs))
		abort();
	if (ext2fs_read_bitmaps(fs))
		abort();
	ext2fs_close_free(&fs);
	return 0;
}
