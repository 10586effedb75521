/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-count: a QEMU TCG plugin that counts, per thread and per block of guest
 * code, how often the block ran and the bytes its loads and stores moved;
 * each block's FP instructions are classified once, when QEMU translates it
 * (fpclass.h), so a FLOP costs nothing at run time. lp-roofline record
 * --emulate loads it into qemu-user and names the blocks' addresses with
 * lp's symbolizer afterwards (emucounts.h reads what this writes).
 *
 *   qemu-x86_64 -cpu max -plugin lp-count.so,out=PREFIX PROGRAM...
 *
 * Each process writes PREFIX.PID when it exits, and before an execve: a
 * program it execs runs natively, uncounted, and the file says so.
 * Counters are per thread (thread-local tables that only grow), so threads
 * running the same code lose no counts, as QEMU 7.2's inline counters would.
 *
 * Bytes come from QEMU's memory callbacks, a call for each access (of 8
 * bytes at most: a 32-byte load is four), which costs several times what
 * QEMU's own emulation does. So they teach learn.h what each instruction
 * moves a run, and 0.1, 1 and 10 seconds in, the plugin has QEMU translate
 * everything again (qemu_plugin_reset): an instruction that moved the same
 * bytes on every run is then counted by its block's one callback a run.
 * exact=1 keeps the memory callbacks throughout (the tests compare both).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "roofline/fpclass.h"
#include "learn.h"
#include "qemu-plugin-api.h"
#include "plugin-regions.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = LP_QEMU_PLUGIN_API;

/* What runs and moves in one block, in one thread */
struct counts {
	uint64_t execs, loaded, stored;
};

enum { CHUNK_SHIFT = 12, CHUNK = 1 << CHUNK_SHIFT, MAX_CHUNKS = 1 << 14 };

/* A thread's counts inside one context of code regions (regions.h; 0: outside any) */
struct thread_counts {
	pid_t tid;
	uint32_t context;
	struct counts *chunks[MAX_CHUNKS];	/* block id -> counts; chunks never move */
	struct thread_counts *next;		/* every thread's, every context's */
	struct thread_counts *next_own;		/* the same thread's other contexts */
};

/* What translation learned of a block */
struct block {
	uint64_t start, last;	/* its first and last instruction */
	uint32_t ninsns;
	int32_t map;		/* the mapping of its first instruction, -1 none */
	uint32_t first_fp, nfp;	/* its FP instructions in fps */
	uint32_t loaded, stored; /* a run's bytes of its instructions whose bytes are learned */
};

struct fp_insn {
	uint64_t addr;
	struct fp_op op;
};

struct mapping {
	uint64_t start, end, pgoff;	/* guest addresses */
	char *path;
};

struct note {
	uint64_t addr;
	const char *what;
};

static struct {
	enum fp_arch arch;
	const char *arch_name;
	const char *out;		/* PREFIX of PREFIX.PID */
	int64_t guest_base;		/* host address less guest address */
	bool base_known;
	pthread_mutex_t lock;		/* translation, thread tables, the dump */
	struct block *blocks;
	uint32_t nblocks, cap_blocks;
	struct fp_insn *fps;
	uint32_t nfps, cap_fps;
	struct mapping *maps;
	uint32_t nmaps;
	struct note *notes;		/* instructions whose FLOPs could not be counted */
	uint32_t nnotes;
	struct thread_counts *threads;
	uint64_t lost;			/* blocks not counted: no memory, or too many */
	char exec_path[PATH_MAX];	/* an execve on its way */
	int exec_syscall[2];
	int mem_fd;			/* /proc/self/mem: guest memory read without faulting */
	qemu_plugin_id_t id;
	bool exact;			/* memory callbacks throughout */
	int settles;			/* translations again with what was learned: at most 3 */
	struct timespec start;
	int settling;			/* a reset asked for and not done */
} lpc = { .lock = PTHREAD_MUTEX_INITIALIZER, .mem_fd = -1 };

static void translated(qemu_plugin_id_t plugin, struct qemu_plugin_tb *tb);
static void syscall_made(qemu_plugin_id_t plugin, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2,
			 uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
static void exiting(qemu_plugin_id_t plugin, void *data);

static __thread struct thread_counts *self;	/* the calling thread's, in its context now */
static __thread struct thread_counts *own;	/* the calling thread's, in every context */
static __thread uint32_t ticks;
/* where counts go that cannot be kept (out of memory): counted as lost instead */
static __thread struct counts spare;

/* The calling thread's counts in context, made when new */
static struct thread_counts *thread_in(uint32_t context)
{
	struct thread_counts *t;

	for (t = own; t; t = t->next_own)
		if (t->context == context)
			return t;
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	t->context = context;
	t->next_own = own;
	own = t;
	pthread_mutex_lock(&lpc.lock);
	t->next = lpc.threads;
	lpc.threads = t;
	pthread_mutex_unlock(&lpc.lock);
	return t;
}

static struct counts *counts_of(uint32_t id)
{
	struct thread_counts *t = self;
	struct counts *chunk;

	if (__builtin_expect(!t, 0) && !(t = self = thread_in(regions__current())))
		goto lost;
	chunk = t->chunks[id >> CHUNK_SHIFT];
	if (__builtin_expect(!chunk, 0)) {
		if (!(chunk = calloc(CHUNK, sizeof(*chunk))))
			goto lost;
		t->chunks[id >> CHUNK_SHIFT] = chunk;
	}
	return &chunk[id & (CHUNK - 1)];
lost:
	__atomic_fetch_add(&lpc.lost, 1, __ATOMIC_RELAXED);
	return &spare;
}

/* How often a block ran, in all threads (at a safe point: no thread runs) */
static uint64_t block_runs(uint32_t id)
{
	uint64_t n = 0;

	for (struct thread_counts *t = lpc.threads; t; t = t->next) {
		const struct counts *chunk = t->chunks[id >> CHUNK_SHIFT];

		if (chunk)
			n += chunk[id & (CHUNK - 1)].execs;
	}
	return n;
}

/* QEMU has dropped every translation: what was learned counts the bytes of the next ones */
static void settled(qemu_plugin_id_t plugin)
{
	pthread_mutex_lock(&lpc.lock);
	learn__settle(block_runs);
	pthread_mutex_unlock(&lpc.lock);
	lpc.settles++;
	qemu_plugin_register_vcpu_tb_trans_cb(plugin, translated);
	qemu_plugin_register_vcpu_syscall_cb(plugin, syscall_made);
	qemu_plugin_register_atexit_cb(plugin, exiting, NULL);
	__atomic_store_n(&lpc.settling, 0, __ATOMIC_RELEASE);
}

/* 0.1, 1 and 10 s into the run: translate again with what was learned */
static void maybe_settle(void)
{
	static const double at[] = { 0.1, 1, 10 };
	struct timespec now;
	double s;

	if (lpc.exact || lpc.settles >= 3 || __atomic_load_n(&lpc.settling, __ATOMIC_ACQUIRE))
		return;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	s = (double)(now.tv_sec - lpc.start.tv_sec) + (double)(now.tv_nsec - lpc.start.tv_nsec) / 1e9;
	if (s < at[lpc.settles] || __atomic_exchange_n(&lpc.settling, 1, __ATOMIC_ACQ_REL))
		return;
	qemu_plugin_reset(lpc.id, settled);
}

static void block_ran(unsigned int vcpu, void *id)
{
	(void)vcpu;
	counts_of((uint32_t)(uintptr_t)id)->execs++;
	/* the clock looked at every 64Ki runs of a thread */
	if (__builtin_expect((++ticks & 0xffff) == 0, 0))
		maybe_settle();
}

/* A thread passes the probe of a code region: its counts go on in its new context */
static void region_passed(unsigned int vcpu, void *probe)
{
	struct thread_counts *t;

	(void)vcpu;
	if ((t = thread_in(regions__pass((int)(intptr_t)probe))))
		self = t;
}

/* userdata of the memory callback: the block's id, and the instruction's record in learn.h (or none) */
static void *moved_data(uint32_t block, uint32_t record)
{
	return (void *)(uintptr_t)((uint64_t)record << 32 | block);
}

static void memory_moved(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *data)
{
	uint64_t packed = (uint64_t)(uintptr_t)data;
	uint32_t record = (uint32_t)(packed >> 32);
	struct counts *c = counts_of((uint32_t)packed);
	unsigned bytes = 1u << qemu_plugin_mem_size_shift(info);
	bool store = qemu_plugin_mem_is_store(info);

	(void)vcpu;
	(void)vaddr;
	if (store)
		c->stored += bytes;
	else
		c->loaded += bytes;
	if (record != UINT32_MAX)
		learn__access(record, bytes, store);
}

/* The mapping holding guest address addr: from the list, else from /proc/self/maps (lock held). */
static int32_t mapping_of(uint64_t addr)
{
	char line[PATH_MAX + 128];
	FILE *f;
	int32_t found = -1;

	for (uint32_t i = 0; i < lpc.nmaps; i++)
		if (addr >= lpc.maps[i].start && addr < lpc.maps[i].end)
			return (int32_t)i;
	if (!(f = fopen("/proc/self/maps", "re")))
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		int path_at = 0;
		struct mapping *v;
		char *nl;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &start, &end, &pgoff, &path_at) != 3 ||
		    !path_at || line[path_at] != '/')
			continue;
		start -= (uint64_t)lpc.guest_base;
		end -= (uint64_t)lpc.guest_base;
		if (addr < start || addr >= end)
			continue;
		if ((nl = strchr(line + path_at, '\n')))
			*nl = 0;
		v = realloc(lpc.maps, (lpc.nmaps + 1) * sizeof(*v));
		if (!v)
			break;
		lpc.maps = v;
		v[lpc.nmaps] = (struct mapping){ start, end, pgoff, strdup(line + path_at) };
		if (!v[lpc.nmaps].path)
			break;
		found = (int32_t)lpc.nmaps++;
		regions__scan(v[found].path, start, end, pgoff);
	}
	fclose(f);
	return found;
}

/*
 * PREFIX.PID.unsupported, at once: a program that dies of the instruction
 * (SIGILL) writes no counts, and this file still names it.
 */
static void write_unsupported(uint64_t addr, const char *what, int32_t map)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d.unsupported", lpc.out, (int)getpid());
	if (!(f = fopen(path, "we")))
		return;
	fprintf(f, "lp-count 1 %s\npid %d\n", lpc.arch_name, (int)getpid());
	if (map >= 0)
		fprintf(f, "map %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n", lpc.maps[map].start, lpc.maps[map].end,
			lpc.maps[map].pgoff, lpc.maps[map].path);
	fprintf(f, "unsupported %" PRIx64 " %s\nend\n", addr, what);
	fclose(f);
}

static void note(uint64_t addr, const char *what)
{
	struct note *v;

	for (uint32_t i = 0; i < lpc.nnotes; i++)
		if (strcmp(lpc.notes[i].what, what) == 0)
			return;	/* once each */
	if (!(v = realloc(lpc.notes, (lpc.nnotes + 1) * sizeof(*v))))
		return;
	lpc.notes = v;
	v[lpc.nnotes++] = (struct note){ addr, what };
	if (strcmp(what, "avx512") == 0)
		write_unsupported(addr, what, mapping_of(addr));
}

/* x86-64: an EVEX prefix (AVX-512), which QEMU 7.2 does not emulate: the program will die of SIGILL */
static bool evex(const struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i = 0;

	while (i < n && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e ||
			 b[i] == 0x36 || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65))
		i++;
	return i < n && b[i] == 0x62;
}

static bool grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 1024;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if (!(p = realloc(*v, (size_t)n * size)))
		return false;
	*v = p;
	*cap = n;
	return true;
}

static void translated(qemu_plugin_id_t plugin, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;
	uint32_t id;

	(void)plugin;
	if (!n)
		return;
	pthread_mutex_lock(&lpc.lock);
	if (lpc.nblocks >= (uint32_t)MAX_CHUNKS * CHUNK ||
	    !grow((void **)&lpc.blocks, &lpc.cap_blocks, lpc.nblocks + 1, sizeof(*lpc.blocks))) {
		lpc.lost++;
		pthread_mutex_unlock(&lpc.lock);
		return;
	}
	id = lpc.nblocks++;
	b = &lpc.blocks[id];
	*b = (struct block){ .ninsns = (uint32_t)n, .first_fp = lpc.nfps };
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		char *text = qemu_plugin_insn_disas(insn);
		struct fp_op op;
		int fp = fpclass__classify(lpc.arch, text, &op);
		uint64_t hash = learn__hash(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));
		bool varies = learn__may_vary(lpc.arch, text);
		uint32_t loaded, stored, record;
		int probe;

		if (i == 0) {
			if (!lpc.base_known) {
				lpc.guest_base = (int64_t)((uint64_t)(uintptr_t)qemu_plugin_insn_haddr(insn) - addr);
				lpc.base_known = true;
			}
			b->start = addr;
			b->map = mapping_of(addr);
		}
		b->last = addr;
		if ((probe = regions__probe_at(addr)) >= 0) {
			if (regions__unnamed(probe))
				note(addr, "region-function");
			else
				qemu_plugin_register_vcpu_insn_exec_cb(insn, region_passed, QEMU_PLUGIN_CB_NO_REGS,
								       (void *)(intptr_t)probe);
		}
		if (fp < 0)
			note(addr, "sve");
		else if (lpc.arch == FP_X86_64 && evex(insn))
			note(addr, "avx512");
		if (fp > 0 && grow((void **)&lpc.fps, &lpc.cap_fps, lpc.nfps + 1, sizeof(*lpc.fps))) {
			lpc.fps[lpc.nfps++] = (struct fp_insn){ addr, op };
			b->nfp++;
		}
		free(text);
		if (!lpc.exact && !varies && learn__fixed(addr, hash, &loaded, &stored)) {
			b->loaded += loaded;
			b->stored += stored;
			continue;
		}
		record = lpc.exact || varies ? UINT32_MAX : learn__add(addr, hash, id);
		qemu_plugin_register_vcpu_mem_cb(insn, memory_moved, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
						 moved_data(id, record));
	}
	pthread_mutex_unlock(&lpc.lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_ran, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)id);
}

static bool counted(uint32_t id)
{
	for (struct thread_counts *t = lpc.threads; t; t = t->next) {
		const struct counts *chunk = t->chunks[id >> CHUNK_SHIFT];

		if (chunk && chunk[id & (CHUNK - 1)].execs)
			return true;
	}
	return false;
}

static void write_counts(FILE *f)
{
	fprintf(f, "lp-count 1 %s\npid %d\n", lpc.arch_name, (int)getpid());
	for (uint32_t i = 0; i < lpc.nmaps; i++)
		fprintf(f, "map %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n", lpc.maps[i].start, lpc.maps[i].end,
			lpc.maps[i].pgoff, lpc.maps[i].path);
	for (uint32_t id = 0; id < lpc.nblocks; id++) {
		const struct block *b = &lpc.blocks[id];

		if (!counted(id))
			continue;
		fprintf(f, "block %" PRIu32 " %" PRIx64 " %" PRIx64 " %" PRIu32 " %" PRId32 "\n", id, b->start, b->last,
			b->ninsns, b->map);
		for (uint32_t k = b->first_fp; k < b->first_fp + b->nfp; k++)
			fprintf(f, "fp %" PRIu32 " %" PRIx64 " %u %s %s\n", id, lpc.fps[k].addr, lpc.fps[k].op.flops,
				fp_width__isa(lpc.fps[k].op.width, lpc.arch),
				fp_precision__name(lpc.fps[k].op.precision));
	}
	for (uint32_t c = 1; c < regions__ncontexts(); c++)
		fprintf(f, "context %" PRIu32 " %s\n", c, regions__context(c));
	for (struct thread_counts *t = lpc.threads; t; t = t->next) {
		fprintf(f, "thread %d %" PRIu32 "\n", (int)t->tid, t->context);
		for (uint32_t c = 0; c < MAX_CHUNKS; c++) {
			const struct counts *chunk = t->chunks[c];

			for (uint32_t k = 0; chunk && k < CHUNK; k++)
				if (chunk[k].execs || chunk[k].loaded || chunk[k].stored) {
					const struct block *b = &lpc.blocks[c * CHUNK + k];

					fprintf(f, "count %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
						c * CHUNK + k, chunk[k].execs, chunk[k].loaded + chunk[k].execs * b->loaded,
						chunk[k].stored + chunk[k].execs * b->stored);
				}
		}
	}
	for (uint32_t i = 0; i < lpc.nnotes; i++)
		fprintf(f, "unsupported %" PRIx64 " %s\n", lpc.notes[i].addr, lpc.notes[i].what);
	if (lpc.exec_path[0])
		fprintf(f, "exec %s\n", lpc.exec_path);
	if (lpc.lost)
		fprintf(f, "lost %" PRIu64 "\n", lpc.lost);
	fprintf(f, "end\n");
}

/* PREFIX.PID, whole or not at all (written aside, then renamed) */
static void dump(void)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d", lpc.out, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	pthread_mutex_lock(&lpc.lock);
	f = fopen(tmp, "we");
	if (f) {
		write_counts(f);
		if (fclose(f) != 0 || rename(tmp, path) != 0)
			f = NULL;
	}
	if (!f) {
		fprintf(stderr, "lp-count: cannot write '%s': %s\n", path, strerror(errno));
		unlink(tmp);
	}
	pthread_mutex_unlock(&lpc.lock);
}

static void exiting(qemu_plugin_id_t plugin, void *data)
{
	(void)plugin;
	(void)data;
	dump();
}

/* An execve replaces this QEMU with the program, natively: what was counted is written first. */
static void syscall_made(qemu_plugin_id_t plugin, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2,
			 uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	uint64_t path = num == lpc.exec_syscall[1] ? a2 : a1;
	ssize_t n = -1;

	(void)plugin, (void)vcpu, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
	if (num != lpc.exec_syscall[0] && num != lpc.exec_syscall[1])
		return;
	if (lpc.mem_fd >= 0)
		n = pread(lpc.mem_fd, lpc.exec_path, sizeof(lpc.exec_path) - 1, (off_t)(path + (uint64_t)lpc.guest_base));
	lpc.exec_path[n > 0 ? strnlen(lpc.exec_path, (size_t)n) : 0] = 0;
	if (!lpc.exec_path[0])
		strcpy(lpc.exec_path, "?");
	dump();
	/* if the execve fails, the program goes on: the file is written again at its exit */
	lpc.exec_path[0] = 0;
}

/* A forked child counts from zero: what its parent counted is the parent's. */
static void forked_child(void)
{
	for (struct thread_counts *t = lpc.threads; t; t = t->next)
		for (uint32_t c = 0; c < MAX_CHUNKS; c++)
			if (t->chunks[c])
				memset(t->chunks[c], 0, CHUNK * sizeof(struct counts));
	for (struct thread_counts *t = own; t; t = t->next_own)
		t->tid = (pid_t)syscall(SYS_gettid);
	lpc.lost = 0;
}

/* QEMU is told no, and the user why */
__attribute__((format(printf, 1, 2))) static int refuse(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lp-count: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	if (info->version.min > LP_QEMU_PLUGIN_API || info->version.cur < LP_QEMU_PLUGIN_API)
		return refuse("this QEMU takes plugins of API versions %d to %d; lp-count is built for version 1 "
			      "(QEMU 7.2, Debian 12's qemu-user)", info->version.min, info->version.cur);
	if (info->system_emulation)
		return refuse("counts programs under qemu-user, not a system under qemu-system");
	if (strcmp(info->target_name, "x86_64") == 0) {
		lpc.arch = FP_X86_64;
		lpc.exec_syscall[0] = 59, lpc.exec_syscall[1] = 322;
	} else if (strcmp(info->target_name, "aarch64") == 0) {
		lpc.arch = FP_ARM64;
		lpc.exec_syscall[0] = 221, lpc.exec_syscall[1] = 281;
	} else {
		return refuse("cannot count code of '%s': x86_64 and aarch64 only", info->target_name);
	}
	lpc.arch_name = lpc.arch == FP_ARM64 ? "aarch64" : "x86_64";
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4) == 0 && argv[i][4])
			lpc.out = argv[i] + 4;
		else if (strcmp(argv[i], "exact=1") == 0)
			lpc.exact = true;
		else if (strcmp(argv[i], "exact=0") != 0)
			return refuse("unknown argument '%s' (out=PREFIX, exact=0|1)", argv[i]);
	}
	if (!lpc.out)
		return refuse("needs out=PREFIX: where each process writes PREFIX.PID");
	lpc.mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	lpc.id = id;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &lpc.start);
	pthread_atfork(NULL, NULL, forked_child);
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_made);
	qemu_plugin_register_atexit_cb(id, exiting, NULL);
	return 0;
}
