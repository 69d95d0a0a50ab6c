// SPDX-License-Identifier: LGPL-2.0
/*
 * bigmem.c: zeroed buffers of a megabyte and more, backed by huge pages
 * where the kernel allows it.
 *
 * Replay allocates a few large arrays per run (the revoke table, the
 * report, read windows, the write batch).  Taking them from malloc costs
 * one page fault per 4 KiB touched, and on virtual machines a fault can
 * cost tens of microseconds: for a 32 MiB journal that was most of the
 * CPU time.  Large buffers are instead mapped on a 2 MiB boundary and
 * marked MADV_HUGEPAGE, so a fault brings in 2 MiB at once; middling ones
 * are mapped with small pages (see mid_zalloc).  Small ones and
 * sanitizer builds use calloc.  A header in front of every buffer
 * says how it was obtained, so ej_big_free() needs only the pointer; for
 * a mapped buffer it sits in an ordinary page just below the huge ones,
 * so that a 2 MiB buffer takes one huge page, not two.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jfs_user.h"

#define EJ_MID_MIN	(64UL * 1024)		/* below: calloc */
#define EJ_BIG_MIN	(512UL * 1024)		/* below: small pages */
#define EJ_BIG_ALIGN	(2UL * 1024 * 1024)	/* huge page */
#define EJ_BIG_HDR	64			/* keeps 64-byte alignment */
#define EJ_BIG_PAGE	4096			/* holds a mapped one's header */

#if defined(__SANITIZE_ADDRESS__)
#define EJ_BIG_NO_MMAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define EJ_BIG_NO_MMAP 1
#endif
#endif

#ifdef MAP_POPULATE
#define EJ_MAP_POPULATE	MAP_POPULATE
#else
#define EJ_MAP_POPULATE	0
#endif

struct ej_big_hdr {
	size_t	map_len;	/* 0: calloc'ed; else from ptr - EJ_BIG_PAGE */
};

static void *small_zalloc(size_t size)
{
	char *p;

	if (size > SIZE_MAX - EJ_BIG_HDR)
		return NULL;
	p = calloc(1, size + EJ_BIG_HDR);
	if (!p)
		return NULL;
	((struct ej_big_hdr *)p)->map_len = 0;
	return p + EJ_BIG_HDR;
}

#if !defined(EJ_BIG_NO_MMAP) && defined(MAP_ANONYMOUS)
/*
 * Between the two: small pages, mapped afresh.  calloc would do too, but
 * once the process has freed a mapped chunk glibc serves such sizes from
 * the heap and zeroes them with memset, touching every page up front;
 * an anonymous mapping is zero already.  Its pages are brought in by
 * the mmap call (MAP_POPULATE) rather than by a fault each: these
 * buffers (read windows, the report's arrays on small journals, the
 * block map) are used whole, and on a virtual machine a fault costs
 * microseconds.  Bench image c: 51.8-51.9 against 53.4-54.1 ms
 * (medians of 21 and 31 alternating runs).
 */
static void *mid_zalloc(size_t size)
{
	size_t len = (size + EJ_BIG_PAGE - 1) & ~(size_t)(EJ_BIG_PAGE - 1);
	char *p;

	p = mmap(NULL, EJ_BIG_PAGE + len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | EJ_MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return small_zalloc(size);
	((struct ej_big_hdr *)(p + EJ_BIG_PAGE - EJ_BIG_HDR))->map_len =
		EJ_BIG_PAGE + len;
	return p + EJ_BIG_PAGE;
}
#endif

void *ej_big_zalloc(size_t size)
{
#if defined(EJ_BIG_NO_MMAP) || !defined(MAP_ANONYMOUS)
	return small_zalloc(size);
#else
	size_t len, map_len, head, tail;
	char *p, *start;

	if (size < EJ_MID_MIN)
		return small_zalloc(size);
	if (size > SIZE_MAX / 2)
		return NULL;
	if (size < EJ_BIG_MIN)
		return mid_zalloc(size);
	/* the payload in whole huge pages, one small page below it */
	len = (size + EJ_BIG_ALIGN - 1) & ~(EJ_BIG_ALIGN - 1);
	map_len = EJ_BIG_PAGE + len + EJ_BIG_ALIGN;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return small_zalloc(size);
	start = (char *)(((uintptr_t)p + EJ_BIG_PAGE + EJ_BIG_ALIGN - 1) &
			 ~(uintptr_t)(EJ_BIG_ALIGN - 1));
	head = (size_t)(start - EJ_BIG_PAGE - p);
	tail = map_len - head - EJ_BIG_PAGE - len;
	if (head)
		munmap(p, head);
	if (tail)
		munmap(start + len, tail);
#ifdef MADV_HUGEPAGE
	madvise(start, len, MADV_HUGEPAGE);	/* a hint: failure is fine */
#endif
	((struct ej_big_hdr *)(start - EJ_BIG_HDR))->map_len =
		EJ_BIG_PAGE + len;
	return start;
#endif
}

/*
 * Give back the memory of [ptr, ptr + @upto) early: its contents are no
 * longer needed (a table being rehashed into a bigger one).  Only whole
 * huge pages of mapped buffers are released; anything else is kept.
 */
void ej_big_discard(void *ptr, size_t upto)
{
#if !defined(EJ_BIG_NO_MMAP) && defined(MAP_ANONYMOUS) && defined(MADV_DONTNEED)
	size_t len, end;

	if (!ptr)
		return;
	len = ((struct ej_big_hdr *)((char *)ptr - EJ_BIG_HDR))->map_len;
	if (!len)
		return;
	end = upto & ~(EJ_BIG_ALIGN - 1);
	if (end > len - EJ_BIG_PAGE)
		end = len - EJ_BIG_PAGE;
	if (end)
		madvise(ptr, end, MADV_DONTNEED);
#else
	(void)ptr;
	(void)upto;
#endif
}

void ej_big_free(void *ptr)
{
	char *base;
	size_t len;

	if (!ptr)
		return;
	base = (char *)ptr - EJ_BIG_HDR;
	len = ((struct ej_big_hdr *)base)->map_len;
	if (!len)
		free(base);
	else
		munmap((char *)ptr - EJ_BIG_PAGE, len);
}
