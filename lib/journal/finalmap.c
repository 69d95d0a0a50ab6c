// SPDX-License-Identifier: LGPL-2.0
/*
 * finalmap.c: the final-version map, which journal block holds the
 * version of each filesystem block that replay must leave on disk.
 *
 * The host owns the map (struct ej_host for the io_channel host, which
 * jopen.c builds; tests/unit/memdev.c has its own) and lends it to
 * recovery through journal->j_final.  report.c's block hook notes each
 * REPLAYED version in it as recovery decides, learning which older one
 * it supersedes; the write phase (fsdev.c) reads it back sorted by
 * filesystem block.  An open-addressing hash table, at most half full:
 * one probe sequence per logged block, whatever the log's length.
 */
#include <stddef.h>

#include "ej_int.h"

/* One filesystem block's latest REPLAYED version. */
struct ej_final_slot {
	unsigned long long	fsblock;
	size_t			entry;		/* EJ_FINAL_NONE: free slot */
	__u32			jblock;		/* logical journal block */
	__u32			escape;		/* restore the magic */
};

static size_t final_hash(const struct ej_final_map *m,
			 unsigned long long fsblock)
{
	/* Fibonacci hashing: neighbouring blocks spread over the table. */
	return (size_t)((fsblock * 0x9e3779b97f4a7c15ULL) >> (64 - m->bits));
}

static struct ej_final_slot *final_slot(struct ej_final_map *m,
					unsigned long long fsblock)
{
	size_t i, mask = m->cap - 1;

	for (i = final_hash(m, fsblock);; i = (i + 1) & mask) {
		struct ej_final_slot *s = &m->slots[i];

		if (s->entry == EJ_FINAL_NONE || s->fsblock == fsblock)
			return s;
	}
}

/* Make room for one more key: the table stays at most half full. */
static int final_reserve(struct ej_final_map *m)
{
	struct ej_final_slot *old = m->slots;
	size_t i, old_cap = m->cap;
	unsigned int bits;
	size_t cap;

	if (m->cap && (m->used + 1) * 2 <= m->cap)
		return 0;
	bits = m->cap ? m->bits + 1 : 10;
	if (bits >= sizeof(size_t) * 8 - 5)
		return -ENOMEM;
	cap = (size_t)1 << bits;
	m->slots = ej_big_zalloc(cap * sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		m->slots[i].entry = EJ_FINAL_NONE;
	m->cap = cap;
	m->bits = bits;
	for (i = 0; i < old_cap; i++) {
		if (old[i].entry != EJ_FINAL_NONE)
			*final_slot(m, old[i].fsblock) = old[i];
	}
	ej_big_free(old);
	return 0;
}

int ej_final_map_note(struct ej_final_map *m, unsigned long long fsblock,
		      unsigned long jblock, int escape, size_t entry,
		      size_t *older)
{
	struct ej_final_slot *s;

	if (final_reserve(m))
		return -ENOMEM;
	s = final_slot(m, fsblock);
	if (s->entry == EJ_FINAL_NONE) {
		m->used++;
		*older = EJ_FINAL_NONE;
	} else {
		*older = s->entry;
	}
	s->fsblock = fsblock;
	s->entry = entry;
	s->jblock = (__u32)jblock;
	s->escape = !!escape;
	return 0;
}

static int final_cmp(const void *a, const void *b)
{
	const struct ej_final_block *x = a, *y = b;

	if (x->fsblock != y->fsblock)
		return x->fsblock < y->fsblock ? -1 : 1;
	return 0;
}

errcode_t ej_final_map_blocks(const struct ej_final_map *m,
			      struct ej_final_block **out, size_t *nr)
{
	struct ej_final_block *f, *tmp;
	size_t i, n = 0;

	if (!m || !out || !nr)
		return EJ_BAD_ARG;
	*out = NULL;
	*nr = 0;
	if (!m->used)
		return 0;
	f = malloc(m->used * sizeof(*f));
	if (!f)
		return EJ_NO_MEMORY;
	/* collect, then sort by radix: a few passes however many blocks */
	for (i = 0; i < m->cap; i++) {
		const struct ej_final_slot *s = &m->slots[i];

		if (s->entry == EJ_FINAL_NONE)
			continue;
		f[n].fsblock = s->fsblock;
		f[n].jblock = s->jblock;
		f[n].escape = s->escape;
		n++;
	}
	tmp = malloc(n * sizeof(*f));
	if (tmp)
		ej_radix_sort(f, tmp, n, sizeof(*f),
			      offsetof(struct ej_final_block, fsblock),
			      sizeof(f->fsblock));
	else
		qsort(f, n, sizeof(*f), final_cmp);
	free(tmp);
	*out = f;
	*nr = n;
	return 0;
}

void ej_final_map_free(struct ej_final_map *m)
{
	if (!m)
		return;
	ej_big_free(m->slots);
	memset(m, 0, sizeof(*m));
}
