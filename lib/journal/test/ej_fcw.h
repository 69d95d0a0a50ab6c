/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ej_fcw.h: the fast-commit writer (fc_write.c), a test facility beside
 * the journal writer (writer.c): build an ext4 fast-commit area record by
 * record, as ext4 lays one out, then put it into a writer's journal.
 *
 * Records go where ext4 puts them: a record that would not fit in what is
 * left of its block (leaving no room for the 4-byte PAD that closes a
 * block) is preceded by a PAD to the end of the block; every fast commit
 * ends with a TAIL {tid, crc32c} whose value runs to the end of its block.
 * The crc (seed 0) covers the fast commit's records, HEAD and PADs
 * included, and the TAIL's {tag, len} and tid, as ej_fc.h says.  Nothing
 * is checked against a filesystem: a record says what the caller asks,
 * so tests can write the impossible ones too.
 */
#ifndef EJ_FCW_H
#define EJ_FCW_H

#include "ej_test.h"
#include "ej_fc.h"

/* A record as placed, for listings and for faults aimed at one byte. */
struct ej_fcw_rec {
	unsigned int	fc;		/* which fast commit (0, 1, ...) */
	unsigned int	tag;
	unsigned int	len;		/* value bytes */
	unsigned long	off;		/* of its {tag, len} in the area */
	int		added;		/* a PAD the writer put in itself */
};

struct ej_fcw;

/* An empty area of @nr_blks blocks of @bs bytes. */
errcode_t ej_fcw_new(unsigned int bs, unsigned long nr_blks,
		     struct ej_fcw **ret);
void ej_fcw_free(struct ej_fcw *a);

/* HEAD {features, tid}: in the fast commit being built (the first). */
errcode_t ej_fcw_head(struct ej_fcw *a, __u32 features, __u32 tid);
/* Any record: @tag with @len value bytes (@val NULL: zeros). */
errcode_t ej_fcw_record(struct ej_fcw *a, unsigned int tag, const void *val,
			unsigned int len);
errcode_t ej_fcw_add_range(struct ej_fcw *a, __u32 ino, __u32 lblk,
			   unsigned int len, unsigned long long pblk,
			   int unwritten);
errcode_t ej_fcw_del_range(struct ej_fcw *a, __u32 ino, __u32 lblk,
			   __u32 len);
/* CREAT, LINK or UNLINK (@tag) of @name (@namelen bytes). */
errcode_t ej_fcw_dentry(struct ej_fcw *a, unsigned int tag, __u32 parent,
			__u32 ino, const char *name, unsigned int namelen);
/* INODE: @ino and @size bytes of its on-disk (little-endian) inode. */
errcode_t ej_fcw_inode(struct ej_fcw *a, __u32 ino, const void *raw,
		       unsigned int size);
/*
 * End the fast commit with a TAIL naming @tid, its crc xored with
 * @crc_xor (0: the right crc).  The next one starts at the next block.
 */
errcode_t ej_fcw_tail(struct ej_fcw *a, __u32 tid, __u32 crc_xor);
/* End it with no TAIL (torn); the next one starts at the next block. */
errcode_t ej_fcw_end_torn(struct ej_fcw *a);

/* The area as built (zeros after the last fast commit). */
const unsigned char *ej_fcw_area(const struct ej_fcw *a, size_t *bytes);
/* Blocks the fast commits take. */
unsigned long ej_fcw_blocks(const struct ej_fcw *a);
const struct ej_fcw_rec *ej_fcw_recs(const struct ej_fcw *a, size_t *nr);

/*
 * Put the area into @w's journal: its fast-commit area (the journal must
 * have the fast_commit feature), every block of it, the blocks after the
 * fast commits zeroed.  The area starts one block past the log's end, as
 * Linux and e2fsprogs read it: s_maxlen - s_num_fc_blks + 1, so it has
 * s_num_fc_blks - 1 blocks.  *first_jblock: the journal block of its
 * start.
 */
errcode_t ej_fcw_put(struct ej_writer *w, const struct ej_fcw *a,
		     unsigned long *first_jblock);

/* writer.c's hooks for the above */
/* Write one block at journal block @jblock (nothing while dry). */
errcode_t ej_writer_put_block(struct ej_writer *w, unsigned long jblock,
			      const void *buf);
/* The tid the next transaction gets: fast commits belong to it. */
__u32 ej_writer_next_tid(const struct ej_writer *w);

#endif /* EJ_FCW_H */
