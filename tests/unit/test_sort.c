// SPDX-License-Identifier: GPL-2.0
/*
 * test_sort.c: ej_radix_sort() against qsort; ej_grow(), which grows the
 * arrays of the library and the programs.
 *
 * The write phase relies on it twice: final versions by filesystem block
 * (one per block, so any order of equals would do) and, per batch, log
 * positions whose equal keys must keep their order (the batch slots).
 * Every case here sorts records that carry their original index, and
 * compares byte for byte with qsort ordering by (key, index): that is
 * the stable order, so any slip in a pass, the prefix sums or the final
 * copy shows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ej_int.h"

struct rec8 {				/* like struct ej_final_block */
	unsigned long long	key;
	unsigned int		idx;
	unsigned char		pad[12];
};

struct rec4 {				/* a 4-byte key, not first */
	unsigned int		pad;
	unsigned int		key;
	unsigned int		idx;
};

static unsigned long long rng_next(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static int cmp8(const void *a, const void *b)
{
	const struct rec8 *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp4(const void *a, const void *b)
{
	const struct rec4 *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Record i with a key below @range (0: any key of its size). */
static void fill8(void *r, size_t i, unsigned long long k,
		  unsigned long long range)
{
	struct rec8 *x = r;

	x->key = range ? k % range : k;
	x->idx = (unsigned int)i;
	memset(x->pad, (int)(k >> 56), sizeof(x->pad));
}

static void fill4(void *r, size_t i, unsigned long long k,
		  unsigned long long range)
{
	struct rec4 *x = r;
	unsigned int k32 = (unsigned int)(k >> 32);

	x->key = range ? k32 % (unsigned int)range : k32;
	x->idx = (unsigned int)i;
	x->pad = ~k32;
}

struct kind {
	size_t		size, key_off, key_size;
	void		(*fill)(void *, size_t, unsigned long long,
				unsigned long long);
	int		(*cmp)(const void *, const void *);
};

static const struct kind k8 = {
	sizeof(struct rec8), offsetof(struct rec8, key),
	sizeof(((struct rec8 *)0)->key), fill8, cmp8
};
static const struct kind k4 = {
	sizeof(struct rec4), offsetof(struct rec4, key),
	sizeof(((struct rec4 *)0)->key), fill4, cmp4
};

/* n random records of kind @k: the radix sort must equal qsort's order */
static void check(const struct kind *k, size_t n, unsigned long long range,
		  unsigned long long seed)
{
	unsigned char *a = calloc(n ? n : 1, k->size);
	unsigned char *b = calloc(n ? n : 1, k->size);
	unsigned char *tmp = calloc(n ? n : 1, k->size);
	unsigned long long s = seed;
	size_t i;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(tmp);
	for (i = 0; i < n; i++)
		k->fill(a + i * k->size, i, rng_next(&s), range);
	memcpy(b, a, n * k->size);
	ej_radix_sort(a, tmp, n, k->size, k->key_off, k->key_size);
	qsort(b, n, k->size, k->cmp);
	assert_memory_equal(a, b, n * k->size);
	free(a);
	free(b);
	free(tmp);
}

static void check8(size_t n, unsigned long long range, unsigned long long seed)
{
	check(&k8, n, range, seed);
}

static void check4(size_t n, unsigned int range, unsigned long long seed)
{
	check(&k4, n, range, seed);
}

static void test_empty_and_one(void **state)
{
	(void)state;
	check8(0, 0, 1);
	check8(1, 0, 2);
	check4(0, 0, 3);
	check4(1, 0, 4);
}

/* all keys equal: nothing may move (and no pass is made for key 0) */
static void test_equal_keys(void **state)
{
	(void)state;
	check8(1000, 1, 5);
	check4(1000, 1, 6);
}

/* block numbers of a small and a large filesystem, many repeats */
static void test_block_numbers(void **state)
{
	(void)state;
	check8(4096, 2048, 7);			/* one digit */
	check8(146582, 655360, 8);		/* b's size: two digits */
	check8(100000, 1ULL << 40, 9);		/* four */
	check4(2048, 262144, 10);		/* log positions */
	check4(50000, 1000, 11);
}

/* the whole 64 (and 32) bits: every pass, up to the top digit */
static void test_full_range(void **state)
{
	(void)state;
	check8(20000, 0, 12);
	check4(20000, 0, 13);
}

/* ej_grow(): doubling from 16, contents kept, a size that cannot be refused */
static void test_grow(void **state)
{
	unsigned int *a = NULL, *was;
	size_t max = 0, i;

	(void)state;
	assert_int_equal(ej_grow((void **)&a, &max, 1, sizeof(*a)), 0);
	assert_int_equal(max, 16);
	for (i = 0; i < max; i++)
		a[i] = i * 7;
	was = a;
	assert_int_equal(ej_grow((void **)&a, &max, 16, sizeof(*a)), 0);
	assert_ptr_equal(a, was);
	assert_int_equal(max, 16);
	assert_int_equal(ej_grow((void **)&a, &max, 17, sizeof(*a)), 0);
	assert_int_equal(max, 32);
	assert_int_equal(ej_grow((void **)&a, &max, 1000, sizeof(*a)), 0);
	assert_int_equal(max, 1024);
	for (i = 16; i < max; i++)
		a[i] = i * 7;
	/* more elements than a size_t counts, then more bytes */
	was = a;
	assert_int_equal(ej_grow((void **)&a, &max, SIZE_MAX / 2 + 2,
				 sizeof(*a)), EJ_NO_MEMORY);
	assert_int_equal(ej_grow((void **)&a, &max, 2048, SIZE_MAX / 2048 + 2),
			 EJ_NO_MEMORY);
	assert_ptr_equal(a, was);
	assert_int_equal(max, 1024);
	for (i = 0; i < max; i++)
		assert_int_equal(a[i], i * 7);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_equal_keys),
		cmocka_unit_test(test_block_numbers),
		cmocka_unit_test(test_full_range),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
