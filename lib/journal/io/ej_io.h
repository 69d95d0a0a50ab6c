/* SPDX-License-Identifier: LGPL-2.0 */
/*
 * ej_io.h: what the I/O engines' files (lib/journal/io/) share and no
 * other file of the library sees: the log read ahead on a thread
 * (prefetch.c), writeback started behind the write phase (flusher.c) and
 * the write phase through io_uring (dio.c), which the fast engine
 * (ioeng.c) drives.  The engines' interface to the glue, struct
 * ej_io_ops, is in ej_int.h.
 */
#ifndef E2JOURNAL_EJ_IO_H
#define E2JOURNAL_EJ_IO_H

#include "ej_int.h"

/* prefetch.c: the log read ahead on a second thread (a cache only). */
struct ej_prefetch;
struct ej_pf_chunk {
	unsigned long long	lblk, pblk;	/* first block, both ways */
	unsigned int		len;		/* blocks */
	int			err;		/* not read in full */
};
/* Owns @fd; @ext (sorted by lblk) must outlive it. */
struct ej_prefetch *ej_prefetch_new(int fd, unsigned int bs,
				    unsigned int chunk,
				    const struct ej_extent *ext, size_t nr_ext,
				    unsigned long long first,
				    unsigned long long last);
int ej_prefetch_running(const struct ej_prefetch *pf);
int ej_prefetch_run(struct ej_prefetch *pf, unsigned long long lblk);
void ej_prefetch_halt(struct ej_prefetch *pf);
int ej_prefetch_next(struct ej_prefetch *pf, struct ej_pf_chunk *c,
		     char **buf);
void ej_prefetch_release(struct ej_prefetch *pf, int slot);
void ej_prefetch_free(struct ej_prefetch *pf);

/* flusher.c: writeback started behind replay's writes (a hint only). */
struct ej_flusher;
struct ej_flusher *ej_flusher_start(const char *path);
/* Everything replay will write below byte @end has been written. */
void ej_flusher_mark(struct ej_flusher *f, unsigned long long end);
void ej_flusher_stop(struct ej_flusher *f);

/* dio.c: the write phase's I/O through io_uring (NULL: not here). */
#define EJ_DIO_TAGS	2	/* buffers a caller alternates between */
struct ej_dio;
/* Write @len bytes at byte @off the ordinary way; an error to report. */
typedef errcode_t (*ej_dio_redo_fn)(void *arg, const void *buf, size_t len,
				    unsigned long long off);
/*
 * A second descriptor of @fs's device (regular file or block device),
 * checked to hold this filesystem at offset 0; -1 if it cannot be had.
 */
int ej_open_same(ext2_filsys fs, int flags);
/* @reads: the journal is on the filesystem's device; batch its reads too */
struct ej_dio *ej_dio_start(ext2_filsys fs, int reads, ej_dio_redo_fn fn,
			    void *arg);
/* Queue a write from buffer @tag; the buffer must stay until ej_dio_wait. */
errcode_t ej_dio_write(struct ej_dio *d, unsigned int tag, const void *buf,
		       size_t len, unsigned long long off);
/* Wait until no write from buffer @tag is in flight. */
errcode_t ej_dio_wait(struct ej_dio *d, unsigned int tag);
/*
 * Wait for everything, free @d (NULL is fine); the first error.  With
 * *keep_buffers set the kernel may still use the caller's buffers, which
 * must then never be freed or reused.
 */
errcode_t ej_dio_finish(struct ej_dio *d, int *keep_buffers);
int ej_dio_can_read(const struct ej_dio *d);
void ej_dio_read(struct ej_dio *d, struct ej_dio_io *io, size_t n);

#endif /* E2JOURNAL_EJ_IO_H */
