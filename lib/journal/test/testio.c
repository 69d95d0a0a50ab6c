// SPDX-License-Identifier: LGPL-2.0
/*
 * testio.c: a fault-injecting io manager for tests, in the spirit of
 * libext2fs' TEST_IO (part of the test library, not of libe2journal.so).
 * The programs wrap the io manager they open images with in
 * ej_test_io_manager(); unless they handed settings to ej_test_io_config()
 * (ours pass E2JOURNAL_TEST_IO from their environment) that returns the
 * manager unchanged.  Given settings, ej_test_io_config() also registers
 * it with the library's ej_io_wrap_set(), so what the library opens
 * itself (an external journal, the ej_image API) goes through it too.
 * The library reads no environment.
 *
 * The settings are a comma-separated list of:
 *
 *   cut=K       power loss after K written units: a unit is one block of
 *               a block write (a multi-block write is torn at the cut),
 *               or a run of write_byte calls into one block with nothing
 *               else written in between (libext2fs updates the superblock
 *               field by field that way; the device sees one dirty
 *               block).  The first K units reach the disk; what follows
 *               depends on mode.
 *   mode=M      drop (default): every later write and flush "succeeds"
 *               and does nothing, so the disk holds exactly the first K
 *               units, as after a power cut with a write-through cache;
 *               the program runs on, unaware, like the machine would
 *               have if the disk had died.
 *               reorder: as drop, and at the cut every unit written since
 *               the last successful flush, other than unit K itself, is
 *               undone: a volatile disk cache that lost what it held but
 *               had already destaged the newest write (so a missing flush
 *               before a write that must follow others shows up).
 *               fail: later writes and flushes fail with EIO (the program
 *               sees it; a disk that went away).
 *               kill: the process kills itself (SIGKILL) instead of
 *               writing unit K+1: nothing after the cut runs, not even a
 *               program e2fsck hands over to; what libext2fs' own cache
 *               held is lost with it, as a disk cache would be.
 *   rerr=A-B    reads that touch blocks A..B (the channel's block size)
 *               fail with EIO; may be given several times.
 *   rdev=S      rerr applies only to channels whose name contains S.
 *   log=FILE    append one line per unit written ("w NAME OFFSET BYTES"),
 *               per flush ("f NAME") and per dropped or failed write ("x
 *               ..."), so a test can count the units of a full run.
 *
 * It is a test hook: nothing here runs unless settings were given, and
 * the channel it opens below is the caller's own manager's.
 */
#include <signal.h>
#include <unistd.h>

#include "ej_int.h"
#include "ej_test.h"

#define EJ_TESTIO_MAX_RERR	16
#define EJ_TESTIO_MAX_BASES	2

enum testio_mode { TIO_DROP, TIO_REORDER, TIO_FAIL, TIO_KILL };

struct tio_range {
	unsigned long long	first, last;
};

/* A unit written since the last flush, kept to be undone (reorder). */
struct tio_undo {
	io_channel		real;
	unsigned long long	offset;		/* bytes */
	size_t			len;
	char			*old;
	struct tio_undo		*next;		/* newest first */
};

struct tio_config {
	int			parsed, active;
	int			have_cut;
	unsigned long long	cut;
	enum testio_mode	mode;
	struct tio_range	rerr[EJ_TESTIO_MAX_RERR];
	int			nr_rerr;
	char			rdev[256];
	char			log[4096];
};

static struct tio_config cfg;
static unsigned long long units_done;	/* over every channel */
static int cut_reached;
/* the write_byte unit still open: more bytes of its block join it */
static io_channel open_ch;
static unsigned long long open_blk;
static struct tio_undo *undo_list;

struct tio_private {
	io_channel		real;
	int			rerr_here;
};

struct tio_base {
	io_manager		base;
	struct struct_io_manager mgr;
};

static struct tio_base bases[EJ_TESTIO_MAX_BASES];

static int parse_ull(const char *s, unsigned long long *v, char **end)
{
	errno = 0;
	*v = strtoull(s, end, 0);
	return errno || *end == s;
}

/* Parse the settings once; a malformed setting disables nothing. */
void ej_test_io_config(const char *env)
{
	char *copy, *tok, *save = NULL, *end;
	unsigned long long a, b;

	if (cfg.parsed)
		return;
	cfg.parsed = 1;
	if (!env || !*env)
		return;
	cfg.active = 1;
	ej_io_wrap_set(ej_test_io_manager);
	copy = strdup(env);
	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "cut=", 4)) {
			if (!parse_ull(tok + 4, &a, &end) && !*end) {
				cfg.cut = a;
				cfg.have_cut = 1;
			}
		} else if (!strcmp(tok, "mode=drop")) {
			cfg.mode = TIO_DROP;
		} else if (!strcmp(tok, "mode=reorder")) {
			cfg.mode = TIO_REORDER;
		} else if (!strcmp(tok, "mode=fail")) {
			cfg.mode = TIO_FAIL;
		} else if (!strcmp(tok, "mode=kill")) {
			cfg.mode = TIO_KILL;
		} else if (!strncmp(tok, "rerr=", 5) &&
			   cfg.nr_rerr < EJ_TESTIO_MAX_RERR) {
			if (parse_ull(tok + 5, &a, &end))
				continue;
			b = a;
			if (*end == '-' && parse_ull(end + 1, &b, &end))
				continue;
			if (*end || b < a)
				continue;
			cfg.rerr[cfg.nr_rerr].first = a;
			cfg.rerr[cfg.nr_rerr].last = b;
			cfg.nr_rerr++;
		} else if (!strncmp(tok, "rdev=", 5)) {
			snprintf(cfg.rdev, sizeof(cfg.rdev), "%s", tok + 5);
		} else if (!strncmp(tok, "log=", 4)) {
			snprintf(cfg.log, sizeof(cfg.log), "%s", tok + 4);
		}
	}
	free(copy);
}

static void log_line(const char *what, io_channel ch,
		     unsigned long long offset, unsigned long long len)
{
	FILE *f;

	if (!cfg.log[0])
		return;
	f = fopen(cfg.log, "a");
	if (!f)
		return;
	if (len)
		fprintf(f, "%s %s %llu %llu\n", what, ch->name, offset, len);
	else
		fprintf(f, "%s %s\n", what, ch->name);
	fclose(f);
}

static struct tio_private *priv(io_channel ch)
{
	return ch->private_data;
}

static errcode_t tio_open_with(io_manager base, io_manager self,
			       const char *name, int flags,
			       io_channel *channel)
{
	struct tio_private *p = NULL;
	io_channel ch = NULL;
	errcode_t err;

	ch = calloc(1, sizeof(*ch));
	p = calloc(1, sizeof(*p));
	if (!ch || !p) {
		err = EJ_NO_MEMORY;
		goto fail;
	}
	ch->name = strdup(name);
	if (!ch->name) {
		err = EJ_NO_MEMORY;
		goto fail;
	}
	err = base->open(name, flags, &p->real);
	if (err)
		goto fail;
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = self;
	ch->block_size = p->real->block_size;
	ch->refcount = 1;
	ch->flags = p->real->flags;
	ch->align = p->real->align;
	ch->private_data = p;
	p->rerr_here = cfg.nr_rerr &&
		       (!cfg.rdev[0] || strstr(name, cfg.rdev));
	*channel = ch;
	return 0;
fail:
	if (ch)
		free(ch->name);
	free(ch);
	free(p);
	return err;
}

static errcode_t tio_open0(const char *name, int flags, io_channel *channel)
{
	return tio_open_with(bases[0].base, &bases[0].mgr, name, flags,
			     channel);
}

static errcode_t tio_open1(const char *name, int flags, io_channel *channel)
{
	return tio_open_with(bases[1].base, &bases[1].mgr, name, flags,
			     channel);
}

static void drop_undo(void)
{
	struct tio_undo *u;

	while ((u = undo_list)) {
		undo_list = u->next;
		free(u->old);
		free(u);
	}
}

static errcode_t tio_close(io_channel ch)
{
	struct tio_private *p = priv(ch);
	struct tio_undo **pp, *u;
	errcode_t err;

	if (--ch->refcount > 0)
		return 0;
	if (open_ch == ch)
		open_ch = NULL;
	/* undo entries of this channel can no longer be undone */
	for (pp = &undo_list; (u = *pp);) {
		if (u->real == p->real) {
			*pp = u->next;
			free(u->old);
			free(u);
		} else {
			pp = &u->next;
		}
	}
	err = io_channel_close(p->real);
	free(ch->name);
	free(p);
	free(ch);
	return err;
}

static errcode_t tio_set_blksize(io_channel ch, int blksize)
{
	errcode_t err = io_channel_set_blksize(priv(ch)->real, blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

static int rerr_hit(io_channel ch, unsigned long long block, int count)
{
	unsigned long long last;
	int i;

	if (!priv(ch)->rerr_here)
		return 0;
	if (count < 0)	/* bytes */
		last = block + ((unsigned long long)-count - 1) /
			       ch->block_size;
	else
		last = block + (count ? count : 1) - 1;
	for (i = 0; i < cfg.nr_rerr; i++)
		if (block <= cfg.rerr[i].last && last >= cfg.rerr[i].first)
			return 1;
	return 0;
}

static errcode_t tio_read_blk64(io_channel ch, unsigned long long block,
				int count, void *data)
{
	size_t size;

	if (rerr_hit(ch, block, count)) {
		size = count < 0 ? (size_t)-count :
				   (size_t)count * ch->block_size;
		if (ch->read_error)
			return ch->read_error(ch, block, count, data, size, 0,
					      EIO);
		return EIO;
	}
	return io_channel_read_blk64(priv(ch)->real, block, count, data);
}

static errcode_t tio_read_blk(io_channel ch, unsigned long block, int count,
			      void *data)
{
	return tio_read_blk64(ch, block, count, data);
}

/* Remember what @len bytes at @offset hold, to undo a write there. */
static errcode_t save_undo(io_channel real, unsigned long long offset,
			   size_t len)
{
	struct tio_undo *u;
	errcode_t err;
	int bs = real->block_size;
	unsigned long long first = offset / bs;
	unsigned long long last = (offset + len - 1) / bs;
	char *buf;

	buf = malloc((size_t)(last - first + 1) * bs);
	u = calloc(1, sizeof(*u));
	if (!buf || !u) {
		free(buf);
		free(u);
		return EJ_NO_MEMORY;
	}
	err = io_channel_read_blk64(real, first, (int)(last - first + 1), buf);
	if (err) {
		free(buf);
		free(u);
		return err;
	}
	u->old = malloc(len);
	if (!u->old) {
		free(buf);
		free(u);
		return EJ_NO_MEMORY;
	}
	memcpy(u->old, buf + (offset - first * bs), len);
	free(buf);
	u->real = real;
	u->offset = offset;
	u->len = len;
	u->next = undo_list;
	undo_list = u;
	return 0;
}

/* reorder: undo every unflushed unit, newest first. */
static void undo_unflushed(void)
{
	struct tio_undo *u;

	for (u = undo_list; u; u = u->next) {
		if (u->real->manager->write_byte)
			io_channel_write_byte(u->real, u->offset, (int)u->len,
					      u->old);
	}
	drop_undo();
}

/* Write one unit (@len bytes at byte @offset) through, or not. */
static errcode_t unit_write(io_channel ch, unsigned long long offset,
			    size_t len, const void *data, int by_byte)
{
	io_channel real = priv(ch)->real;
	int bs = ch->block_size;
	errcode_t err;

	if (by_byte && open_ch == ch && offset / bs == open_blk &&
	    (offset + len - 1) / bs == open_blk) {
		/* more of the unit just written */
		if (cfg.have_cut && cfg.mode == TIO_REORDER &&
		    units_done != cfg.cut) {
			err = save_undo(real, offset, len);
			if (err)
				return err;
		}
		log_line("w+", ch, offset, len);
		return io_channel_write_byte(real, offset, (int)len, data);
	}
	open_ch = NULL;
	if (cfg.have_cut && units_done >= cfg.cut) {
		log_line("x", ch, offset, len);
		if (cfg.mode == TIO_KILL)
			kill(getpid(), SIGKILL);
		return cfg.mode == TIO_FAIL ? EIO : 0;
	}
	if (cfg.have_cut && cfg.mode == TIO_REORDER) {
		if (units_done + 1 == cfg.cut) {
			undo_unflushed();
		} else {
			err = save_undo(real, offset, len);
			if (err)
				return err;
		}
	}
	units_done++;
	log_line("w", ch, offset, len);
	if (by_byte) {
		if ((offset + len - 1) / bs == offset / bs) {
			open_ch = ch;
			open_blk = offset / bs;
		}
		return io_channel_write_byte(real, offset, (int)len, data);
	}
	return io_channel_write_blk64(real, offset / bs, 1, data);
}

static errcode_t tio_write_blk64(io_channel ch, unsigned long long block,
				 int count, const void *data)
{
	const char *p = data;
	errcode_t err;
	int i;

	if (count < 0)	/* -count bytes at block */
		return unit_write(ch, block * ch->block_size, (size_t)-count,
				  data, 1);
	for (i = 0; i < count; i++) {
		err = unit_write(ch, (block + i) * ch->block_size,
				 ch->block_size, p + (size_t)i * ch->block_size,
				 0);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t tio_write_blk(io_channel ch, unsigned long block, int count,
			       const void *data)
{
	return tio_write_blk64(ch, block, count, data);
}

static errcode_t tio_write_byte(io_channel ch, unsigned long offset,
				int count, const void *data)
{
	if (!priv(ch)->real->manager->write_byte)
		return EXT2_ET_UNIMPLEMENTED;
	return unit_write(ch, offset, (size_t)count, data, 1);
}

static errcode_t tio_flush(io_channel ch)
{
	errcode_t err;

	open_ch = NULL;
	if (cfg.have_cut && units_done >= cfg.cut) {
		if (cfg.mode == TIO_KILL)
			kill(getpid(), SIGKILL);
		if (!cut_reached)
			log_line("x", ch, 0, 0);
		cut_reached = 1;
		return cfg.mode == TIO_FAIL ? EIO : 0;
	}
	err = io_channel_flush(priv(ch)->real);
	if (!err) {
		drop_undo();
		log_line("f", ch, 0, 0);
	}
	return err;
}

static errcode_t tio_set_option(io_channel ch, const char *option,
				const char *arg)
{
	io_channel real = priv(ch)->real;

	return real->manager->set_option(real, option, arg);
}

static errcode_t tio_get_stats(io_channel ch, io_stats *stats)
{
	io_channel real = priv(ch)->real;

	if (!real->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return real->manager->get_stats(real, stats);
}

static errcode_t tio_discard(io_channel ch, unsigned long long block,
			     unsigned long long count)
{
	/* a discard changes what reads return: not before a cut */
	if (cfg.have_cut)
		return EXT2_ET_UNIMPLEMENTED;
	return io_channel_discard(priv(ch)->real, block, count);
}

static errcode_t tio_cache_readahead(io_channel ch, unsigned long long block,
				     unsigned long long count)
{
	io_channel real = priv(ch)->real;

	if (!real->manager->cache_readahead)
		return EXT2_ET_UNIMPLEMENTED;
	return real->manager->cache_readahead(real, block, count);
}

static errcode_t tio_zeroout(io_channel ch, unsigned long long block,
			     unsigned long long count)
{
	char *zero;
	errcode_t err = 0;
	unsigned long long i;

	if (!cfg.have_cut)
		return io_channel_zeroout(priv(ch)->real, block, count);
	/* counted block by block, like any other write */
	zero = calloc(1, ch->block_size);
	if (!zero)
		return EJ_NO_MEMORY;
	for (i = 0; !err && i < count; i++)
		err = tio_write_blk64(ch, block + i, 1, zero);
	free(zero);
	return err;
}

static void fill_manager(struct struct_io_manager *m, io_manager base,
			 int slot)
{
	m->magic = EXT2_ET_MAGIC_IO_MANAGER;
	m->name = "e2journal test I/O manager";
	m->open = slot ? tio_open1 : tio_open0;
	m->close = tio_close;
	m->set_blksize = tio_set_blksize;
	m->read_blk = tio_read_blk;
	m->write_blk = tio_write_blk;
	m->flush = tio_flush;
	m->write_byte = base->write_byte ? tio_write_byte : NULL;
	m->set_option = base->set_option ? tio_set_option : NULL;
	m->get_stats = tio_get_stats;
	m->read_blk64 = tio_read_blk64;
	m->write_blk64 = tio_write_blk64;
	m->discard = base->discard ? tio_discard : NULL;
	m->cache_readahead = tio_cache_readahead;
	m->zeroout = base->zeroout ? tio_zeroout : NULL;
}

io_manager ej_test_io_manager(io_manager base)
{
	int i;

	if (!cfg.active || !base)
		return base;
	for (i = 0; i < EJ_TESTIO_MAX_BASES; i++) {
		if (bases[i].base == base)
			return &bases[i].mgr;
		if (!bases[i].base) {
			bases[i].base = base;
			fill_manager(&bases[i].mgr, base, i);
			return &bases[i].mgr;
		}
	}
	return base;	/* more bases than slots: no faults there */
}
