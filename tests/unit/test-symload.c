/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loader reads a file while it is there: a copy of this program, read
 * through the loader and then deleted, still names this program's
 * functions; read only at its first frame, after it is deleted, it cannot.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/recorder-int.h"
#include "symbols/symbolizer.h"
#include "symbols/symload.h"
#include "tap.h"

int __attribute__((noinline)) loaded_marker(int x);
int __attribute__((noinline)) loaded_marker(int x)
{
	return x * 5 + 3;
}

static void ignore(void *ctx, const struct lp_error *msg)
{
	(void)ctx, (void)msg;
}

/* This program's executable mapping that holds addr: start, end, offset. */
static int own_mapping(uintptr_t addr, uint64_t *start, uint64_t *end, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400], perms[8];
	int found = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;

		if (sscanf(line, "%llx-%llx %7s %llx", &s, &e, perms, &o) == 4 && perms[2] == 'x' && addr >= s &&
		    addr < e) {
			*start = s, *end = e, *off = o;
			found = 0;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* A copy of this program at path: its device (as MMAP2 records give it) and inode. */
static int copy_self(const char *path, uint64_t *dev, uint64_t *ino)
{
	int in = open("/proc/self/exe", O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	struct stat st;
	int ret = -1;

	if (in >= 0 && out >= 0 && fstat(in, &st) == 0 && sendfile(out, in, NULL, (size_t)st.st_size) == st.st_size &&
	    fstat(out, &st) == 0) {
		*dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
		*ino = st.st_ino;
		ret = 0;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/* The name the frame at ip gets from s, the copy at path mapped where this program is. */
static void name_at(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino, uintptr_t ip,
		    struct strbuf *stack)
{
	struct strbuf locs = STRBUF_INIT;
	uint64_t start = 0, end = 0, off = 0;

	strbuf__reset(stack);
	if (own_mapping(ip, &start, &end, &off) == 0) {
		symbolizer__mmap(s, 100, start, end - start, off, path, dev, ino);
		symbolizer__frame(s, 100, ip, false, true, stack, &locs);
	}
	strbuf__release(&locs);
}

int main(void)
{
	char dir[] = "/tmp/lp-symload.XXXXXX", path[64];
	uintptr_t ip = (uintptr_t)&loaded_marker + 4;
	struct strbuf stack = STRBUF_INIT;
	struct symbolizer *read_ahead = symbolizer__new(ignore, NULL), *read_late = symbolizer__new(ignore, NULL);
	struct sym_loader *l;
	uint64_t dev = 0, ino = 0;

	loaded_marker(1);
	sym_loader__free(NULL);
	if (!ok(read_ahead && read_late && mkdtemp(dir), "a directory for the copy"))
		return tap_done();
	snprintf(path, sizeof(path), "%s/copy", dir);
	if (!ok(copy_self(path, &dev, &ino) == 0, "this program copied"))
		return tap_done();

	l = sym_loader__new(read_ahead);
	ok(l != NULL, "a loader starts");
	ok(sym_loader__add(l, path, dev, ino) == 0 && sym_loader__add(l, path, dev, ino) == 0 &&
	   sym_loader__add(l, "//anon", 0, 0) == 0 && sym_loader__expect_chains(l, 5000) == 0,
	   "files asked for, one twice, anonymous memory, and caches for 5000 chains");
	sym_loader__free(l);
	unlink(path);
	rmdir(dir);

	name_at(read_ahead, path, dev, ino, ip, &stack);
	is_mem(stack.s, stack.len, "loaded_marker", 13, "a file read by the loader names its functions once deleted");
	{
		const struct sym_frame frames[] = { { ip, false, true }, { ip + 1, false, false } };
		struct strbuf locs = STRBUF_INIT;

		ok(symbolizer__chain(read_ahead, 100, frames, 2, NULL, &stack, &locs) == 0 &&
		   stack.len == 27 && memcmp(stack.s, "loaded_marker;loaded_marker", 27) == 0,
		   "chains go into caches made ready for them");
		strbuf__release(&locs);
	}
	name_at(read_late, path, dev, ino, ip, &stack);
	is_mem(stack.s, stack.len, "[copy]", 6, "read at its first frame, once deleted, it cannot");

	/*
	 * A recorder whose mappings were kept, and some spilled, before the
	 * loader started (an attached process's): a spilled entry holds an
	 * offset in the spill file until the write phase, not a record.
	 */
	{
		struct record_opts o = { .spill_after = 1 << 20, .spill_dir = "/tmp" };
		struct recorder *r = recorder__new(&o);
		char file[4000], buf[8 + 64 + 4096 + 64];
		struct perf_mmap2 m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 4096, .path = file };
		struct perf_event_header *h;
		int bad = 0;

		memset(file, 'a', sizeof(file) - 1);
		file[0] = '/';
		file[sizeof(file) - 1] = 0;
		for (int i = 0; r && i < 600; i++) {
			m.ino = (uint64_t)i + 1;
			bad |= !(h = perf_mmap2__encode(buf, sizeof(buf), &m, (uint64_t)i)) || recorder__keep(r, h) != 0;
		}
		ok(r && !bad && recorder__spilled_bytes(r) > 0, "600 mappings kept, some of them spilled");
		ok(r && recorder__load_symbols(r) == 0, "the loader starts on the mappings in memory, past the spilled ones");
		recorder__free(r);
	}

	strbuf__release(&stack);
	symbolizer__free(read_ahead);
	symbolizer__free(read_late);
	return tap_done();
}
