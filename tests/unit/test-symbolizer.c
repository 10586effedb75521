/*
 * The symbolizer on this test's own executable: files are cached by device
 * and inode, so a mapping under another name (a hard link, /lib for
 * /usr/lib) still resolves, from the file first read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbolizer.h"
#include "tap.h"

int __attribute__((noinline)) marker_function(int x);
int __attribute__((noinline)) marker_function(int x)
{
	return x * 7 + 1;
}

static void ignore(void *ctx, const struct lp_error *msg)
{
	(void)ctx, (void)msg;
}

/* The executable mapping of this program that holds addr: start, end, offset, device, inode, path. */
static int own_mapping(uintptr_t addr, uint64_t *start, uint64_t *end, uint64_t *off, uint64_t *dev,
		       uint64_t *ino, char *path, size_t pathlen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400], perms[8], file[4096];
	int found = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o, i;
		unsigned maj, min;

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &s, &e, perms, &o, &maj, &min, &i,
			   file) == 8 && perms[2] == 'x' && addr >= s && addr < e) {
			*start = s, *end = e, *off = o, *dev = makedev(maj, min), *ino = i;
			snprintf(path, pathlen, "%s", file);
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	uintptr_t ip = (uintptr_t)&marker_function + 4;
	uint64_t start = 0, end = 0, off = 0, dev = 0, ino = 0;
	char path[4096];
	struct strbuf stack = STRBUF_INIT, locs = STRBUF_INIT;
	struct symbolizer *s = symbolizer__new(ignore, NULL);

	marker_function(1);
	if (!ok(s && own_mapping(ip, &start, &end, &off, &dev, &ino, path, sizeof(path)) == 0,
		"this program's code mapping is found"))
		return tap_done();
	/* the kernel's device number as MMAP2 records give it: major << 32 | minor */
	dev = (uint64_t)major(dev) << 32 | minor(dev);
	symbolizer__mmap(s, 100, start, end - start, off, path, dev, ino);
	symbolizer__frame(s, 100, ip, false, true, &stack, &locs);
	is_mem(stack.s, stack.len, "marker_function", 15, "a mapping under its own name resolves");

	/* the same file under a name that does not exist */
	symbolizer__mmap(s, 200, start, end - start, off, "/nonexistent/alias", dev, ino);
	strbuf__reset(&stack);
	strbuf__reset(&locs);
	symbolizer__frame(s, 200, ip, false, true, &stack, &locs);
	is_mem(stack.s, stack.len, "marker_function", 15, "the same device and inode under another name resolves");
	ok(locs.len > strlen(path) && memcmp(locs.s, path, strlen(path)) == 0,
	   "its location names the file as first read");

	/* without an inode, a name is a file of its own */
	symbolizer__mmap(s, 300, start, end - start, off, "/nonexistent/other", 0, 0);
	strbuf__reset(&stack);
	strbuf__reset(&locs);
	symbolizer__frame(s, 300, ip, false, true, &stack, &locs);
	is_mem(stack.s, stack.len, "[other]", 7, "an unknown inode and a missing file: [DSO]");

	strbuf__release(&stack);
	strbuf__release(&locs);
	symbolizer__free(s);
	symbolizer__free(NULL);
	return tap_done();
}
