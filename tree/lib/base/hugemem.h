/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Big buffers in huge pages, where the kernel has transparent huge pages in
 * "madvise" mode (Debian's default) or "always". Each first touch of a 4 KB
 * page is a page fault, and in the VMs these tools run in one costs 10-15 us
 * (a host fault behind the guest's): lp-record's records and caches are tens
 * of MB, thousands of faults. A huge page's one fault covers 2 MB
 * (tests/bench: 14 us against 0.3 us per 4 KB). Where a 4 KB fault is cheap
 * (2 us on other days of the same VMs) a fresh huge page (0.2-5 ms) costs
 * more than the 4 KB pages used of it: hugemem__worth_it times a few at its
 * first call, and below 5 us a fault the memory here is in 4 KB pages.
 */
#ifndef LP_HUGEMEM_H
#define LP_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>

/* Whether huge pages are used: a 4 KB page's first touch costs 5 us or more here. */
bool hugemem__worth_it(void);

/* The size of a huge page, or of its alignment: allocations are whole ones. */
enum { HUGEMEM_PAGE = 2 << 20 };

/* n (a size or an address) rounded up to a whole number of huge pages */
static inline size_t hugemem__round_up(size_t n)
{
	return (n + HUGEMEM_PAGE - 1) & ~(size_t)(HUGEMEM_PAGE - 1);
}

/* size bytes of zeroed memory aligned to HUGEMEM_PAGE, size rounded up to it; NULL+errno. */
void *hugemem__alloc(size_t size);
/*
 * p (from hugemem__alloc or hugemem__realloc with old_size; NULL: none) made
 * new_size bytes, its contents kept and the rest zeroed: its pages are moved,
 * not copied. NULL+errno, p untouched, when there is no memory.
 */
void *hugemem__realloc(void *p, size_t old_size, size_t new_size);
/*
 * For arrays that may stay small: below HUGEMEM_FROM bytes they are malloc's
 * (a huge page each would be MBs for many small ones), from there on in huge
 * pages. hugemem__grow makes p (of old_size: NULL and 0 for none) new_size
 * bytes, contents kept (the rest not zeroed below HUGEMEM_FROM); NULL+errno
 * with p untouched. hugemem__release frees it, given its size.
 */
enum { HUGEMEM_FROM = 256 << 10 };
void *hugemem__grow(void *p, size_t old_size, size_t new_size);
void hugemem__release(void *p, size_t size);

/*
 * Faults the pages of [p, p + len) in now, their contents as they are: memory
 * a thread prepares while there is time, so that its first use later does
 * not wait. A fresh page is the dearest part of a table in a VM whose host
 * took the memory back (about 5 ms a huge page here, against 0.15 ms for one
 * the process held before).
 */
void hugemem__prefault(void *p, size_t len);

/*
 * Grows malloc's heap by size bytes (at most HUGEMEM_HEAP_MAX) in huge pages,
 * for the process's next allocations to be carved from: what a library
 * mallocs bit by bit (libdw's CFI caches, the demangler) then faults 2 MB at
 * a time, not 4 KB (lp-record's write phase of a build: -30%). For the main
 * thread's allocations; it changes how malloc takes and gives back memory
 * for the whole process (mallopt), so it is a program's choice, not a
 * library's. 0, or -ENOMEM.
 */
enum { HUGEMEM_HEAP_MAX = 30 << 20 };
int hugemem__heap(size_t size);

/* Frees what hugemem__alloc(size) gave, with the same size; NULL is a no-op. */
void hugemem__free(void *p, size_t size);

#endif
