// SPDX-License-Identifier: LGPL-2.0
/*
 * prefetch.c: read the log ahead on a second thread.
 *
 * The replay pass reads the whole log once, in order, and checks every
 * block's checksum.  On one CPU the copies out of the page cache and the
 * checks take turns; here a reader thread copies the next chunks of the
 * log (up to EJ_PF_SLOTS of them, each physically contiguous) while
 * recovery checks the current one.  The glue (jglue.c) lends each chunk
 * to recovery as a read window and gives it back when the window goes
 * idle.  Copying is the slower side (about 80 ms for a 920 MiB log here,
 * the checks some 50 ms), so when recovery finds the thread still
 * reading the chunk it wants, it reads the chunk after the thread's
 * latest itself instead of waiting.
 *
 * It is a cache and nothing more.  A chunk the thread could not read in
 * full is handed over marked as such, and the glue then reads those
 * blocks through the io_channel, which reports the error as it always
 * does.  The thread uses its own read-only descriptor of the journal's
 * file and never touches the io_channel.  Nothing writes the log while
 * recovery reads it; anything that rewrites a journal block halts the
 * thread first (ej_glue_invalidate).
 */
#define _GNU_SOURCE
#include "ej_io.h"

#include <pthread.h>
#include <unistd.h>

/*
 * Before sleeping, a side waits this many rounds of EJ_PF_PAUSES pauses
 * (some 100 us in all) with the lock dropped: the other side is usually
 * about to hand something over, and a sleep and a wakeup cost more here.
 */
#define EJ_PF_SPINS	64
#define EJ_PF_PAUSES	64

static void pf_pause(void)
{
	int i;

	for (i = 0; i < EJ_PF_PAUSES; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#else
		__asm__ __volatile__("" ::: "memory");
#endif
	}
}

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_HELD };

struct ej_pf_slot {
	char			*buf;
	int			state;
	unsigned long		seq;
	struct ej_pf_chunk	c;
};

struct ej_prefetch {
	int			fd;
	unsigned int		bs;
	unsigned int		chunk;		/* blocks per chunk */
	const struct ej_extent	*ext;		/* sorted by lblk */
	size_t			nr_ext;
	unsigned long long	first, last;	/* the log: [first, last) */
	char			*mem;		/* every slot's buffer */

	pthread_t		thread;
	int			running;
	pthread_mutex_t		lock;
	pthread_cond_t		to_reader;
	pthread_cond_t		to_user;
	int			reader_waits, user_waits;
	int			stop;
	int			exhausted;	/* read a whole lap */
	unsigned long long	next;		/* next logical block to read */
	unsigned long long	left;		/* blocks still to read */
	unsigned long		fill_seq;	/* chunks handed to the reader */
	unsigned long		want_seq;	/* next chunk the user takes */
	struct ej_pf_slot	slot[EJ_PF_SLOTS];
};

/*
 * Wait a little for the other side, the lock held: a round of pauses
 * with the lock dropped while *@spins allows, then a sleep on @cv (with
 * *@waits set, so the other side knows to signal it).
 */
static void pf_wait(struct ej_prefetch *pf, pthread_cond_t *cv, int *waits,
		    int *spins)
{
	if ((*spins)++ < EJ_PF_SPINS) {
		pthread_mutex_unlock(&pf->lock);
		pf_pause();
		pthread_mutex_lock(&pf->lock);
		return;
	}
	*waits = 1;
	pthread_cond_wait(cv, &pf->lock);
	*waits = 0;
}

/* The next chunk's place; 0 when the log has nothing more to give. */
static int next_chunk(struct ej_prefetch *pf, struct ej_pf_chunk *c)
{
	const struct ej_extent *x;
	unsigned long long n;

	if (!pf->left)
		return 0;
	if (pf->next >= pf->last)
		pf->next = pf->first;
	x = ej_extent_find(pf->ext, pf->nr_ext, pf->next, 0);
	if (!x)
		return 0;
	n = pf->chunk;
	if (n > x->lblk + x->len - pf->next)
		n = x->lblk + x->len - pf->next;
	if (n > pf->last - pf->next)
		n = pf->last - pf->next;
	if (n > pf->left)
		n = pf->left;
	c->lblk = pf->next;
	c->pblk = x->pblk + (pf->next - x->lblk);
	c->len = (unsigned int)n;
	c->err = 0;
	pf->next += n;
	pf->left -= n;
	return 1;
}

static int free_slot(const struct ej_prefetch *pf)
{
	int i;

	for (i = 0; i < EJ_PF_SLOTS; i++)
		if (pf->slot[i].state == SLOT_FREE)
			return i;
	return -1;
}

static int read_all(int fd, char *buf, size_t len, unsigned long long off)
{
	while (len) {
		ssize_t r = pread(fd, buf, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		len -= (size_t)r;
		off += (unsigned long long)r;
	}
	return 0;
}

/*
 * Read the next chunk into free slot @i, the lock held (and dropped
 * while reading); non-zero when the log has nothing more to give.
 */
static int fill_slot(struct ej_prefetch *pf, int i)
{
	struct ej_pf_slot *s = &pf->slot[i];

	if (!next_chunk(pf, &s->c)) {
		pf->exhausted = 1;
		if (pf->user_waits)
			pthread_cond_signal(&pf->to_user);
		return 1;
	}
	s->state = SLOT_FILLING;
	s->seq = pf->fill_seq++;
	pthread_mutex_unlock(&pf->lock);
	s->c.err = read_all(pf->fd, s->buf, (size_t)s->c.len * pf->bs,
			    s->c.pblk * pf->bs);
	pthread_mutex_lock(&pf->lock);
	s->state = SLOT_READY;
	if (pf->user_waits)
		pthread_cond_signal(&pf->to_user);
	return 0;
}

static void *reader_main(void *arg)
{
	struct ej_prefetch *pf = arg;
	int i, spins = 0;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		while (!pf->stop && !pf->exhausted &&
		       (i = free_slot(pf)) < 0) {
			pf_wait(pf, &pf->to_reader, &pf->reader_waits, &spins);
		}
		if (pf->stop || pf->exhausted || fill_slot(pf, i))
			break;
		spins = 0;
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

struct ej_prefetch *ej_prefetch_new(int fd, unsigned int bs,
				    unsigned int chunk,
				    const struct ej_extent *ext, size_t nr_ext,
				    unsigned long long first,
				    unsigned long long last)
{
	struct ej_prefetch *pf;
	int i;

	if (fd < 0 || !bs || !chunk || !nr_ext || first >= last)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->fd = fd;
	pf->bs = bs;
	pf->chunk = chunk;
	pf->ext = ext;
	pf->nr_ext = nr_ext;
	pf->first = first;
	pf->last = last;
	/* one mapping: as huge pages, the slots share them */
	pf->mem = ej_big_zalloc((size_t)EJ_PF_SLOTS * chunk * bs);
	if (!pf->mem)
		goto fail;
	for (i = 0; i < EJ_PF_SLOTS; i++)
		pf->slot[i].buf = pf->mem + (size_t)i * chunk * bs;
	if (pthread_mutex_init(&pf->lock, NULL))
		goto fail;
	if (pthread_cond_init(&pf->to_reader, NULL))
		goto fail_lock;
	if (pthread_cond_init(&pf->to_user, NULL))
		goto fail_cond;
	return pf;

fail_cond:
	pthread_cond_destroy(&pf->to_reader);
fail_lock:
	pthread_mutex_destroy(&pf->lock);
fail:
	ej_big_free(pf->mem);
	free(pf);
	return NULL;
}

int ej_prefetch_running(const struct ej_prefetch *pf)
{
	return pf && pf->running;
}

/* Start reading one lap of the log at logical block @lblk. */
int ej_prefetch_run(struct ej_prefetch *pf, unsigned long long lblk)
{
	if (!pf || pf->running || lblk < pf->first || lblk >= pf->last)
		return -1;
	pf->stop = pf->exhausted = 0;
	pf->next = lblk;
	pf->left = pf->last - pf->first;
	pf->want_seq = pf->fill_seq;
	if (pthread_create(&pf->thread, NULL, reader_main, pf))
		return -1;
	pf->running = 1;
	return 0;
}

/* Stop the thread; chunks not taken are dropped, held ones stay held. */
void ej_prefetch_halt(struct ej_prefetch *pf)
{
	int i;

	if (!pf || !pf->running)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = 1;
	if (pf->reader_waits)
		pthread_cond_signal(&pf->to_reader);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pf->running = 0;
	for (i = 0; i < EJ_PF_SLOTS; i++)
		if (pf->slot[i].state != SLOT_HELD)
			pf->slot[i].state = SLOT_FREE;
}

/*
 * Take the next chunk in log order (waiting for the thread to read it):
 * its slot, with *c and *buf set, or -1 when there is none.
 */
int ej_prefetch_next(struct ej_prefetch *pf, struct ej_pf_chunk *c,
		     char **buf)
{
	int i, j, found = -1, spins = 0;

	if (!pf || !pf->running)
		return -1;
	pthread_mutex_lock(&pf->lock);
	for (;;) {
		for (i = 0; i < EJ_PF_SLOTS; i++) {
			if (pf->slot[i].seq == pf->want_seq &&
			    (pf->slot[i].state == SLOT_READY ||
			     pf->slot[i].state == SLOT_FILLING))
				break;
		}
		if (i < EJ_PF_SLOTS && pf->slot[i].state == SLOT_READY) {
			found = i;
			break;
		}
		/*
		 * The thread is still reading it: rather than wait, read
		 * the chunk after the thread's latest here.
		 */
		if (i < EJ_PF_SLOTS && !pf->stop && !pf->exhausted &&
		    (j = free_slot(pf)) >= 0) {
			fill_slot(pf, j);
			continue;
		}
		/*
		 * Not handed to the reader yet, and never will be: it has
		 * read its lap, or every slot is held by the caller.
		 */
		if (i == EJ_PF_SLOTS &&
		    (pf->exhausted || pf->stop || free_slot(pf) < 0))
			break;
		pf_wait(pf, &pf->to_user, &pf->user_waits, &spins);
	}
	if (found >= 0) {
		pf->slot[found].state = SLOT_HELD;
		pf->want_seq++;
		*c = pf->slot[found].c;
		*buf = pf->slot[found].buf;
	}
	pthread_mutex_unlock(&pf->lock);
	return found;
}

/* Give back a chunk taken with ej_prefetch_next(). */
void ej_prefetch_release(struct ej_prefetch *pf, int slot)
{
	if (!pf || slot < 0 || slot >= EJ_PF_SLOTS)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->slot[slot].state = SLOT_FREE;
	if (pf->reader_waits)
		pthread_cond_signal(&pf->to_reader);
	pthread_mutex_unlock(&pf->lock);
}

void ej_prefetch_free(struct ej_prefetch *pf)
{
	if (!pf)
		return;
	ej_prefetch_halt(pf);
	pthread_cond_destroy(&pf->to_user);
	pthread_cond_destroy(&pf->to_reader);
	pthread_mutex_destroy(&pf->lock);
	ej_big_free(pf->mem);
	close(pf->fd);
	free(pf);
}
