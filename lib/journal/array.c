// SPDX-License-Identifier: LGPL-2.0
/*
 * array.c: growing a malloc'ed array by doubling, the one way the
 * library's files and the programs built with it (the writer, the report,
 * e2journal write's directive and layout lists) do it.
 */
#include "ej_lib.h"

#include <stdint.h>
#include <stdlib.h>

#define EJ_GROW_FIRST	16	/* elements in an array's first allocation */

errcode_t ej_grow(void **arr, size_t *max, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *max)
		return 0;
	n = *max ? *max : EJ_GROW_FIRST;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return EJ_NO_MEMORY;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return EJ_NO_MEMORY;
	p = realloc(*arr, n * elem);
	if (!p)
		return EJ_NO_MEMORY;
	*arr = p;
	*max = n;
	return 0;
}
