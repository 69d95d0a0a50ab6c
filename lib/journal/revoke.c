// SPDX-License-Identifier: LGPL-2.0
/*
 * revoke.c: the revoke table recovery fills during its scan pass.
 *
 * A revoke record (block B, tid T) forbids replaying B from any
 * transaction with tid <= T.  A large or corrupt journal can carry
 * millions of records, so instead of a chained hash with one allocation
 * per record the table is a single open-addressing array of (block, tid)
 * slots, probed linearly and doubled when 70% full: lookups stay short,
 * memory is 12 bytes a slot (a million records fit in 24 MiB, 36 MiB
 * while doubling), and a failed allocation leaves the table as it was and
 * reports -ENOMEM.
 *
 * Behind the slots sits a filter of 8 bits a slot (one more byte a slot),
 * set from further bits of the same hash: replay asks about every logged
 * block, nearly always for a block no record names, and the filter
 * answers that from a small array that stays in cache, where the slots
 * (their lines evicted by the data being checksummed) missed.
 */
#include "jfs_user.h"

/* @key is the block number plus one; 0 marks an empty slot. */
struct jbd2_revoke_slot {
	u64	key;
	tid_t	tid;
} __attribute__((packed));

struct jbd2_revoke_table_s {
	struct jbd2_revoke_slot	*slots;
	unsigned int		shift;		/* 2^shift slots */
	unsigned int		init_shift;	/* size to shrink back to */
	size_t			count;		/* records held */
	size_t			limit;		/* grow before holding more */
	int			has_last;	/* block ~0 (no key) revoked */
	tid_t			last_tid;	/* ... up to this tid */
};

#define REVOKE_MIN_SHIFT	6
/* hash_size is a hint (often the journal length); growth is cheap. */
#define REVOKE_MAX_INIT_SHIFT	14
/* Keeps 2^shift * sizeof(slot) well inside size_t. */
#define REVOKE_MAX_SHIFT	(sizeof(size_t) * 8 - 6)

static inline size_t revoke_slots(unsigned int shift)
{
	return (size_t)1 << shift;
}

/* The filter behind 2^shift slots: 2^(shift + 3) bits. */
static inline u8 *revoke_filter(struct jbd2_revoke_slot *slots,
				unsigned int shift)
{
	return (u8 *)(slots + revoke_slots(shift));
}

static inline size_t revoke_bytes(unsigned int shift)
{
	return revoke_slots(shift) * (sizeof(struct jbd2_revoke_slot) + 1);
}

static inline size_t revoke_filter_bit(u64 block, unsigned int shift)
{
	return (size_t)((block * 0x9e3779b97f4a7c15ULL) >> (64 - shift - 3));
}

static inline void revoke_filter_set(struct jbd2_revoke_slot *slots,
				     unsigned int shift, u64 block)
{
	size_t bit = revoke_filter_bit(block, shift);

	revoke_filter(slots, shift)[bit >> 3] |= (u8)(1U << (bit & 7));
}

static inline int revoke_filter_test(struct jbd2_revoke_slot *slots,
				     unsigned int shift, u64 block)
{
	size_t bit = revoke_filter_bit(block, shift);

	return revoke_filter(slots, shift)[bit >> 3] & (1U << (bit & 7));
}

/* Fibonacci hashing: sequential block numbers land far apart. */
static inline size_t revoke_hash(u64 block, unsigned int shift)
{
	return (size_t)((block * 0x9e3779b97f4a7c15ULL) >> (64 - shift));
}

/*
 * The slot holding @block, or the empty slot where it would go.  The
 * table is never full (count <= limit < slots), so the probe ends.
 */
static struct jbd2_revoke_slot *
revoke_find(struct jbd2_revoke_slot *slots, unsigned int shift, u64 block)
{
	size_t mask = revoke_slots(shift) - 1;
	size_t i = revoke_hash(block, shift);
	u64 key = block + 1;

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & mask;
	return &slots[i];
}

static struct jbd2_revoke_slot *revoke_alloc_slots(unsigned int shift)
{
	return kvzalloc(revoke_bytes(shift), GFP_NOFS);
}

static void revoke_set_shift(struct jbd2_revoke_table_s *table,
			     struct jbd2_revoke_slot *slots,
			     unsigned int shift)
{
	table->slots = slots;
	table->shift = shift;
	table->limit = revoke_slots(shift) / 10 * 7;
}

static int revoke_grow(struct jbd2_revoke_table_s *table)
{
	unsigned int shift = table->shift + 1;
	struct jbd2_revoke_slot *slots, *old = table->slots, *s;
	size_t i, n = revoke_slots(table->shift);

	if (shift > REVOKE_MAX_SHIFT)
		return -ENOMEM;
	slots = revoke_alloc_slots(shift);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* what is rehashed is let go: old and new never both whole */
		if (!(i & 0xffff))
			ej_big_discard(old, i * sizeof(*old));
		if (!old[i].key)
			continue;
		s = revoke_find(slots, shift, old[i].key - 1);
		*s = old[i];
		revoke_filter_set(slots, shift, old[i].key - 1);
	}
	kvfree(old);
	revoke_set_shift(table, slots, shift);
	return 0;
}

/*
 * Userspace recovery creates the table once per journal; calling this
 * again just empties the existing table.
 */
int jbd2_journal_init_revoke(journal_t *journal, int hash_size)
{
	struct jbd2_revoke_table_s *table;
	struct jbd2_revoke_slot *slots;
	unsigned int shift = REVOKE_MIN_SHIFT;

	if (journal->j_revoke) {
		jbd2_journal_clear_revoke(journal);
		return 0;
	}
	while (shift < REVOKE_MAX_INIT_SHIFT && hash_size > 0 &&
	       revoke_slots(shift) < (size_t)hash_size)
		shift++;

	table = kzalloc(sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	slots = revoke_alloc_slots(shift);
	if (!slots) {
		kfree(table);
		return -ENOMEM;
	}
	revoke_set_shift(table, slots, shift);
	table->init_shift = shift;
	journal->j_revoke = table;
	return 0;
}

void jbd2_journal_destroy_revoke(journal_t *journal)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;

	if (!table)
		return;
	kvfree(table->slots);
	kfree(table);
	journal->j_revoke = NULL;
}

int jbd2_journal_set_revoke(journal_t *journal, unsigned long long blocknr,
			    tid_t sequence)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;
	struct jbd2_revoke_slot *s;
	int err;

	if (!table)
		return -EINVAL;
	/* the one block number with no key of its own */
	if (blocknr == ~0ULL) {
		if (!table->has_last || tid_gt(sequence, table->last_tid))
			table->last_tid = sequence;
		if (!table->has_last)
			table->count++;
		table->has_last = 1;
		return 0;
	}
	s = revoke_find(table->slots, table->shift, blocknr);
	if (s->key) {
		if (tid_gt(sequence, s->tid))
			s->tid = sequence;
		return 0;
	}
	if (table->count >= table->limit) {
		err = revoke_grow(table);
		if (err)
			return err;
		s = revoke_find(table->slots, table->shift, blocknr);
	}
	s->key = (u64)blocknr + 1;
	s->tid = sequence;
	revoke_filter_set(table->slots, table->shift, blocknr);
	table->count++;
	return 0;
}

/* 1 if @blocknr must not be replayed from transaction @sequence. */
int jbd2_journal_test_revoke(journal_t *journal, unsigned long long blocknr,
			     tid_t sequence)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;
	struct jbd2_revoke_slot *s;

	if (!table || !table->count)
		return 0;
	if (blocknr == ~0ULL)
		return table->has_last && !tid_gt(sequence, table->last_tid);
	if (!revoke_filter_test(table->slots, table->shift, blocknr))
		return 0;
	s = revoke_find(table->slots, table->shift, blocknr);
	if (!s->key)
		return 0;
	return !tid_gt(sequence, s->tid);
}

/*
 * Empty the table.  After a huge journal, give the memory back by
 * returning to the initial size; if that allocation fails, keep the big
 * array and just wipe it.
 */
void jbd2_journal_clear_revoke(journal_t *journal)
{
	struct jbd2_revoke_table_s *table = journal->j_revoke;
	struct jbd2_revoke_slot *slots;

	if (!table)
		return;
	table->count = 0;
	table->has_last = 0;
	if (table->shift > table->init_shift) {
		slots = revoke_alloc_slots(table->init_shift);
		if (slots) {
			kvfree(table->slots);
			revoke_set_shift(table, slots, table->init_shift);
			return;
		}
	}
	memset(table->slots, 0, revoke_bytes(table->shift));
}
