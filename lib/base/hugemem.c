#include "hugemem.h"

#include <stdint.h>
#include <sys/mman.h>

static size_t whole_pages(size_t size)
{
	return (size + HUGEMEM_PAGE - 1) & ~(size_t)(HUGEMEM_PAGE - 1);
}

void *hugemem__alloc(size_t size)
{
	size_t len = whole_pages(size);
	/* a huge page must be aligned: map one more and trim both ends */
	char *m = mmap(NULL, len + HUGEMEM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	size_t head;

	if (m == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)m + HUGEMEM_PAGE - 1) & ~(uintptr_t)(HUGEMEM_PAGE - 1));
	head = (size_t)(p - m);
	if (head)
		munmap(m, head);
	munmap(p + len, HUGEMEM_PAGE - head);
	/* without transparent huge pages this fails, and 4 KB pages do */
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void hugemem__free(void *p, size_t size)
{
	if (p)
		munmap(p, whole_pages(size));
}
