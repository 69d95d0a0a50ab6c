// SPDX-License-Identifier: LGPL-2.0
/*
 * sort.c: a stable radix sort for the write phase's arrays.
 *
 * The write phase sorts the final versions by filesystem block (146,582
 * of them on bench image b) and, batch by batch, their log positions.
 * qsort's comparisons through a function pointer and its merge buffer
 * cost about 40 ms of b's replay; block numbers are small unsigned
 * integers, so a least-significant-digit radix sort does the same in a
 * few passes over the array.
 */
#include "ej_int.h"

#include <string.h>

#define EJ_RADIX_BITS	11
#define EJ_RADIX	(1U << EJ_RADIX_BITS)

static unsigned long long key_of(const unsigned char *rec, size_t key_off,
				 size_t key_size)
{
	if (key_size == sizeof(unsigned long long)) {
		unsigned long long k;

		memcpy(&k, rec + key_off, sizeof(k));
		return k;
	} else {
		unsigned int k;

		memcpy(&k, rec + key_off, sizeof(k));
		return k;
	}
}

void ej_radix_sort(void *base, void *tmp, size_t n, size_t size,
		   size_t key_off, size_t key_size)
{
	size_t count[EJ_RADIX];
	unsigned char *src = base, *dst = tmp, *t;
	unsigned long long max = 0;
	unsigned int shift;
	size_t i, sum, c;

	for (i = 0; i < n; i++) {
		unsigned long long k = key_of(src + i * size, key_off, key_size);

		if (k > max)
			max = k;
	}
	for (shift = 0; shift < 64 && (max >> shift); shift += EJ_RADIX_BITS) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(key_of(src + i * size, key_off, key_size) >>
			       shift) & (EJ_RADIX - 1)]++;
		for (i = 0, sum = 0; i < EJ_RADIX; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			const unsigned char *rec = src + i * size;
			size_t d = (key_of(rec, key_off, key_size) >> shift) &
				   (EJ_RADIX - 1);

			memcpy(dst + count[d]++ * size, rec, size);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * size);
}
