/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbolizer on this test's own executable: files are cached by device
 * and inode, so a mapping under another name (a hard link, /lib for
 * /usr/lib) still resolves, from the file first read.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/stackroot.h"
#include "symbols/symbolizer.h"
#include "tap.h"

int __attribute__((noinline)) marker_function(int x);
int __attribute__((noinline)) marker_function(int x)
{
	return x * 7 + 1;
}

/* Functions named as a thread's entry (musl's) and its callers, for chains completed by roots */
static volatile int sink;
#define FUNCTION(name)                                                     \
	void __attribute__((noinline)) name(void);                         \
	void __attribute__((noinline)) name(void)                          \
	{                                                                  \
		sink = sink * 3 + 1;                                       \
		sink = sink * 5 + 2;                                       \
	}
FUNCTION(outer_root)
FUNCTION(libc_start_main_stage2)
FUNCTION(caller_one)
FUNCTION(caller_two)
FUNCTION(caller_three)

static void ignore(void *ctx, const struct lp_error *msg)
{
	(void)ctx, (void)msg;
}

/* A chain rendered by a symbolizer that has seen nothing before: no cache. */
static void fresh_chain(pid_t pid, const char *path, uint64_t start, uint64_t end, uint64_t off, uint64_t dev,
			uint64_t ino, const struct sym_frame *frames, size_t n, struct strbuf *stack,
			struct strbuf *locs, int *ret)
{
	struct symbolizer *s = symbolizer__new(ignore, NULL);

	symbolizer__mmap(s, pid, start, end - start, off, path, dev, ino);
	*ret = symbolizer__chain(s, pid, frames, n, NULL, stack, locs);
	symbolizer__free(s);
}

/*
 * A copy of this program in a temporary file, deleted after the mapping of
 * it is given (held open or not, as hold says): how frame ip is named.
 */
static void frame_of_deleted_copy(uint64_t start, uint64_t end, uint64_t off, uintptr_t ip, bool hold,
				  struct strbuf *stack)
{
	char copy[] = "/tmp/test-symbolizer-copy.XXXXXX", buf[65536];
	struct symbolizer *s = symbolizer__new(ignore, NULL);
	struct strbuf locs = STRBUF_INIT;
	FILE *in = fopen("/proc/self/exe", "rb");
	int fd = mkstemp(copy);
	struct stat st;
	size_t n;

	while (in && fd >= 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (write(fd, buf, n) != (ssize_t)n)
			break;
	if (in)
		fclose(in);
	strbuf__reset(stack);
	if (fd >= 0 && fstat(fd, &st) == 0) {
		uint64_t dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);

		symbolizer__mmap(s, 700, start, end - start, off, copy, dev, st.st_ino);
		if (hold)
			symbolizer__hold(s, copy, dev, st.st_ino);
		unlink(copy);
		symbolizer__frame(s, 700, ip, false, true, stack, &locs);
	}
	if (fd >= 0)
		close(fd);
	strbuf__release(&locs);
	symbolizer__free(s);
}

/*
 * Whether return addresses a and b of this program's code are told to be in
 * one function, with the program's file, or a copy of it stripped of every
 * symbol (objcopy --strip-all keeps .eh_frame), mapped in their place.
 * -1 where the stripped copy could not be made.
 */
static int same_function_in(bool stripped, uint64_t start, uint64_t end, uint64_t off, const char *path,
			    uint64_t dev, uint64_t ino, uintptr_t a, uintptr_t b)
{
	char copy[] = "/tmp/test-symbolizer-strip.XXXXXX", cmd[4200];
	struct symbolizer *s = symbolizer__new(ignore, NULL);
	struct stat st;
	int fd = -1, ret = -1;

	if (stripped) {
		if ((fd = mkstemp(copy)) < 0)
			goto cleanup;
		/* (not /proc/self/exe: in the shell's objcopy that is objcopy) */
		snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' %s 2>/dev/null", path, copy);
		if (system(cmd) != 0 || stat(copy, &st) != 0)
			goto cleanup;
		path = copy;
		dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
		ino = st.st_ino;
	}
	symbolizer__mmap(s, 800, start, end - start, off, path, dev, ino);
	ret = symbolizer__same_function(s, 800, a, b);
cleanup:
	if (fd >= 0) {
		close(fd);
		unlink(copy);
	}
	symbolizer__free(s);
	return ret;
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

	/* the same file at another address in another process: the same names, its own address's */
	{
		uint64_t moved = start + 0x40000000;

		symbolizer__mmap(s, 600, moved, end - start, off, path, dev, ino);
		strbuf__reset(&stack);
		strbuf__reset(&locs);
		symbolizer__frame(s, 600, ip - start + moved, false, true, &stack, &locs);
		symbolizer__frame(s, 600, ip - start + moved + 0x10000000, false, true, &stack, &locs);
		ok(stack.len > 16 && memcmp(stack.s, "marker_function;", 16) == 0 &&
		   memcmp(stack.s + 16, "[0x", 3) == 0,
		   "a file mapped elsewhere in another process: its frame named, an address past it not");
	}

	/* without an inode, a name is a file of its own */
	symbolizer__mmap(s, 300, start, end - start, off, "/nonexistent/other", 0, 0);
	strbuf__reset(&stack);
	strbuf__reset(&locs);
	symbolizer__frame(s, 300, ip, false, true, &stack, &locs);
	is_mem(stack.s, stack.len, "[other]", 7, "an unknown inode and a missing file: [DSO]");

	/* code of the vdso in none of its symbols (its ELF header): [vdso], not [[vdso]] */
	{
		uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
		uint64_t vstart, vend, voff, vdev, vino;
		char vpath[4096];

		if (vdso && own_mapping(vdso + 1, &vstart, &vend, &voff, &vdev, &vino, vpath, sizeof(vpath)) == 0) {
			symbolizer__mmap(s, 500, vstart, vend - vstart, voff, vpath, 0, 0);
			strbuf__reset(&stack);
			strbuf__reset(&locs);
			symbolizer__frame(s, 500, vdso + 1, false, true, &stack, &locs);
			is_mem(stack.s, stack.len, "[vdso]", 6, "code of the vdso outside its symbols: [vdso]");
		} else {
			ok(1, "# SKIP no vdso mapped here");
		}
	}

	/*
	 * Chains: callers repeat under other leaves, in other processes, and
	 * stop at an address outside every mapping; each comes out as a
	 * symbolizer that never saw the others renders it.
	 */
	{
		uint64_t main_ip = (uint64_t)(uintptr_t)&main + 8, outside = 0x10;
		const struct sym_frame chains[][4] = {
			{ { ip, false, true }, { main_ip, false, false }, { main_ip + 1, false, false } },
			{ { main_ip, false, true }, { main_ip, false, false }, { main_ip + 1, false, false } },
			{ { ip, false, true }, { main_ip, false, false }, { outside, false, false } },
			{ { main_ip, false, true }, { main_ip, false, false }, { outside, false, false } },
			{ { ip, false, true }, { main_ip, false, false }, { SYM_STOPPED_IP, false, false } },
		};
		const pid_t pids[] = { 100, 300, 100 };
		const char *paths[] = { path, "/nonexistent/other", path };
		struct strbuf want = STRBUF_INIT, want_locs = STRBUF_INIT;
		int good = 1;

		for (size_t round = 0; round < 3; round++)
			for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
				int got_ret, want_ret;

				strbuf__reset(&stack);
				strbuf__reset(&locs);
				got_ret = symbolizer__chain(s, pids[round], chains[c], 3, NULL, &stack, &locs);
				fresh_chain(pids[round], paths[round], start, end, off, round == 1 ? 0 : dev,
					    round == 1 ? 0 : ino, chains[c], 3, &want, &want_locs, &want_ret);
				if (got_ret != want_ret || stack.len != want.len || locs.len != want_locs.len ||
				    memcmp(stack.s, want.s, want.len) || memcmp(locs.s, want_locs.s, want_locs.len)) {
					printf("# chain %zu of pid %d: '%.*s' (%d), want '%.*s' (%d)\n", c,
					       (int)pids[round], (int)stack.len, stack.s, got_ret, (int)want.len,
					       want.s, want_ret);
					good = 0;
				}
			}
		ok(good, "chains whose callers were seen before come out as if they were not");
		strbuf__reset(&stack);
		strbuf__reset(&locs);
		symbolizer__chain(s, 100, chains[2], 3, NULL, &stack, &locs);
		ok(stack.len > 3 && memcmp(stack.s, SYM_UNWIND_STOPPED, strlen(SYM_UNWIND_STOPPED)) == 0 &&
		   stack.s[stack.len - 15 - 1] == ';' && memcmp(stack.s + stack.len - 15, "marker_function", 15) == 0,
		   "a caller outside every mapping restarts the stack at the marker, leaf last");
		strbuf__release(&want);
		strbuf__release(&want_locs);
	}

	/*
	 * With roots: a chain that starts at an entry whose callers are not
	 * known yet is not kept as it came out, and is completed once they are.
	 */
	{
		struct stack_roots *roots = stack_roots__new();
		uint64_t stage2 = (uint64_t)(uintptr_t)&libc_start_main_stage2 + 8;
		const struct sym_frame from_entry[] = {
			{ ip, false, true }, { (uint64_t)(uintptr_t)&caller_one + 8, false, false },
			{ (uint64_t)(uintptr_t)&caller_two + 8, false, false },
			{ (uint64_t)(uintptr_t)&caller_three + 8, false, false }, { stage2, false, false },
		};
		const struct sym_frame whole[] = {
			{ ip, false, true }, { (uint64_t)(uintptr_t)&caller_one + 8, false, false },
			{ (uint64_t)(uintptr_t)&caller_two + 8, false, false }, { stage2, false, false },
			{ (uint64_t)(uintptr_t)&outer_root + 8, false, false },
		};
		const char not_yet[] = "libc_start_main_stage2;caller_three;caller_two;caller_one;marker_function";
		const char done[] = "outer_root;libc_start_main_stage2;caller_three;caller_two;caller_one;marker_function";
		int flags[4];

		for (int round = 0; round < 2; round++) {
			flags[round] = symbolizer__chain(s, 100, from_entry, 5, roots, &stack, &locs);
			is_mem(stack.s, stack.len, not_yet, strlen(not_yet), "an entry's unknown callers are left out");
		}
		ok(flags[0] == SYM_CHAIN_ROOT_PENDING && flags[1] == SYM_CHAIN_ROOT_PENDING,
		   "and the stack is said to wait for its root, not to be completed, from the cache too");
		symbolizer__chain(s, 100, whole, 5, roots, &stack, &locs);
		for (int round = 2; round < 4; round++) {
			flags[round] = symbolizer__chain(s, 100, from_entry, 5, roots, &stack, &locs);
			is_mem(stack.s, stack.len, done, strlen(done), "once a whole stack showed them, they are put in front");
		}
		ok(flags[2] == SYM_CHAIN_COMPLETED && flags[3] == SYM_CHAIN_COMPLETED,
		   "and it is said to be completed, from the cache too");
		stack_roots__free(roots);
	}

	/*
	 * Two places in one function are one function, two functions are two:
	 * by their symbols, and by their FDEs in a file without symbols (what
	 * completes a stack cut short inside a stripped library).
	 */
	{
		uintptr_t one = (uintptr_t)&caller_one, two = (uintptr_t)&caller_two;
		int by_symbol[2], by_fde[2];

		strbuf__reset(&stack);
		strbuf__reset(&locs);
		by_symbol[0] = same_function_in(false, start, end, off, path, dev, ino, one + 4, one + 9);
		by_symbol[1] = same_function_in(false, start, end, off, path, dev, ino, one + 4, two + 4);
		ok(by_symbol[0] == 1 && by_symbol[1] == 0, "one function by its symbol, two by theirs");
		by_fde[0] = same_function_in(true, start, end, off, path, dev, ino, one + 4, one + 9);
		by_fde[1] = same_function_in(true, start, end, off, path, dev, ino, one + 4, two + 4);
		if (by_fde[0] < 0)
			ok(1, "# SKIP objcopy could not strip a copy of this program");
		else
			ok(by_fde[0] == 1 && by_fde[1] == 0, "stripped of its symbols: one function by its FDE, two by theirs");
	}

	symbolizer__free(s);

	/* a file deleted before its first frame: read through the descriptor held from its mapping */
	frame_of_deleted_copy(start, end, off, ip, true, &stack);
	is_mem(stack.s, stack.len, "marker_function", 15, "a held file deleted before it is read still resolves");
	frame_of_deleted_copy(start, end, off, ip, false, &stack);
	ok(stack.len > 0 && stack.s[0] == '[', "not held, it is [DSO]");
	strbuf__release(&stack);
	strbuf__release(&locs);
	symbolizer__free(NULL);
	return tap_done();
}
