#include "symbolizer.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "cfi.h"
#include "demangle.h"
#include "elfsym.h"
#include "hash.h"
#include "htab.h"
#include "hugemem.h"
#include "kallsyms.h"
#include "lpstream.h"
#include "stackmap.h"
#include "stackroot.h"

struct mapping {
	uint64_t start, end, pgoff;
	uint32_t file;	/* index in files */
};

struct process {
	pid_t pid;
	uint32_t generation;	/* changes with the mappings: cached frames of older ones are stale */
	struct mapping *maps;
	size_t n, cap;
	size_t last_map;	/* the mapping mapping_at found last */
	struct symtab *perfmap;
	off_t perfmap_size;	/* of the file when it was read: a JIT adds to it as it compiles */
	uint64_t perfmap_read_ns;	/* when (CLOCK_MONOTONIC) */
	bool perfmap_tried;
};

/* cached_frame.pid of a file's frame */
#define FILE_FRAME ((pid_t)-1)

struct file {
	char *path;
	bool anonymous;		/* memory with no file behind it (JIT code, maybe) */
	struct elfsym *elf;
	bool tried;
	struct cfi *cfi;
	bool cfi_tried;
	uint64_t dev, ino;	/* as the mapping said, when it said */
	int fd;			/* the file held open until read (symbolizer__hold), or -1 */
};

/* Files held open at most (symbolizer__hold): the rest are read by path as before. */
enum { HELD_FILES_MAX = 256 };

/* A frame already resolved: its escaped name and location in the arena. */
struct cached_frame {
	struct htab_entry head;
	/*
	 * A file's frame is named the same in every process that maps the
	 * file: keyed by file (FILE_FRAME, the file's id) and offset in it,
	 * so a build's hundreds of compilers resolve (and demangle) each once.
	 * The kernel's by address (pid 0); the rest (JIT code, addresses in no
	 * mapping) by process, address and the state of its mappings.
	 */
	uint64_t ip;		/* or the offset in the file */
	pid_t pid;		/* or FILE_FRAME */
	uint32_t generation;	/* or the file's id */
	uint32_t flags;		/* bit 0: precise, bit 1: kernel */
	bool outside;		/* a user address in no executable mapping */
	uint32_t name_len, loc_len;
	size_t off;		/* in cache_text; name then loc */
};

/*
 * A rendered chain of callers (a sample's frames but its leaf): samples
 * repeat their callers far more often than their leaves, and the chain is
 * then copied whole instead of looked up a frame at a time. A chain is
 * known by two independent 64-bit hashes of its frames (head.hash and
 * check), not by its frames: comparing those read a few hundred bytes of
 * cold memory a sample (a tenth of lp-record's write phase), while two
 * chains that agree in 128 bits of hash are as unlikely as a git object ID
 * clash.
 */
struct cached_chain {
	struct htab_entry head;
	uint64_t check;
	pid_t pid;
	uint32_t generation;
	uint32_t n;		/* frames in the chain */
	int flags;		/* SYM_CHAIN_*: how the callers came out */
	size_t text_off;	/* in chain_text: the stack then the locations */
	uint32_t stack_len, locs_len;
};

/*
 * A cached chain starting at an entry whose callers were not known: it is
 * completed again each time (stack_roots__complete), until they are.
 */
enum { CHAIN_PENDING = 1 << 8 };

/* Bounds of the chain cache: past them chains are rendered a frame at a time. */
enum { CHAIN_CACHE_BYTES = 64 << 20, CHAIN_CACHE_ENTRIES = 1 << 20 };

/* A compiled CFI rule of one address of one file. */
struct cached_rule {
	struct htab_entry head;
	uint64_t addr;
	uint32_t file;
	int status;		/* of cfi__rule */
	struct cfi_rule rule;
};

/* An address of a process as unwinding sees it: its CFI, file address and compiled rule. */
struct code_place {
	struct cfi *cfi;	/* NULL: no CFI there */
	uint32_t file;
	uint64_t addr;
	int status;		/* of cfi__rule */
	struct cfi_rule rule;
};

struct symbolizer {
	struct htab rules;
	struct htab frames;
	struct strbuf cache_text;
	struct htab chains;
	char *chain_text;	/* CHAIN_CACHE_BYTES reserved at the first chain kept */
	size_t chain_text_len;
	size_t chain_text_ready;	/* faulted in by symbolizer__expect_chains */
	struct process *procs;
	size_t nprocs, procs_cap, last_proc;
	struct file *files;
	size_t nfiles, files_cap;
	struct stackmap *file_ids;	/* path -> index + 1 (in count[0]) */
	struct symtab *kernel;
	size_t held;		/* files held open */
	bool kernel_tried;
	bool python_hinted;
	lp_warn_fn warn;
	void *ctx;
};

struct symbolizer *symbolizer__new(lp_warn_fn warn, void *ctx)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->file_ids = stackmap__new();
	if (!s->file_ids) {
		free(s);
		return NULL;
	}
	s->rules = HTAB_INIT(struct cached_rule);
	s->frames = HTAB_INIT(struct cached_frame);
	s->chains = HTAB_INIT(struct cached_chain);
	s->warn = warn;
	s->ctx = ctx;
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		free(s->procs[i].maps);
		symtab__free(s->procs[i].perfmap);
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		elfsym__free(s->files[i].elf);
		cfi__free(s->files[i].cfi);
		if (s->files[i].fd >= 0)
			close(s->files[i].fd);
	}
	free(s->procs);
	free(s->files);
	stackmap__free(s->file_ids);
	symtab__free(s->kernel);
	strbuf__release(&s->cache_text);
	htab__release(&s->frames);
	hugemem__free(s->chain_text, CHAIN_CACHE_BYTES);
	htab__release(&s->chains);
	htab__release(&s->rules);
	free(s);
}

static struct process *process(struct symbolizer *s, pid_t pid, bool create)
{
	struct process *p;

	/* the last one asked for (samples come in runs of a process), then the newest first */
	if (s->last_proc < s->nprocs && s->procs[s->last_proc].pid == pid)
		return &s->procs[s->last_proc];
	for (size_t i = s->nprocs; i-- > 0;)
		if (s->procs[i].pid == pid) {
			s->last_proc = i;
			return &s->procs[i];
		}
	if (!create)
		return NULL;
	if (s->nprocs == s->procs_cap) {
		size_t cap = s->procs_cap ? s->procs_cap * 2 : 64;

		if (!(p = realloc(s->procs, cap * sizeof(*p))))
			return NULL;
		s->procs = p;
		s->procs_cap = cap;
	}
	p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* Memory with no file behind it ("//anon", "[anon:...]", "/memfd:..."). */
static bool anonymous(const char *path)
{
	return strncmp(path, "//anon", 6) == 0 || strncmp(path, "/memfd:", 7) == 0 ||
	       strncmp(path, "/dev/zero", 9) == 0 ||
	       (path[0] != '/' && strcmp(path, "[vdso]") != 0);
}

size_t symbolizer__file_key(char *key, uint64_t dev, uint64_t ino)
{
	/* the control character keeps an inode's key apart from every path */
	int n = ino ? snprintf(key, SYMBOLIZER_KEY_MAX, "\001%" PRIx64 ":%" PRIu64, dev, ino) : 0;

	return n > 0 ? (size_t)n : 0;
}

/*
 * The file of a mapping, by device and inode where known, else by path; the
 * path names it too (the newest file of that name), for lookups by path.
 */
static int file_id(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino, uint32_t *id)
{
	char key[SYMBOLIZER_KEY_MAX];
	size_t n = symbolizer__file_key(key, dev, ino);
	struct stack_entry *by_path = stackmap__add(s->file_ids, path, strlen(path), 1, 0);
	struct stack_entry *by_inode = n > 0 && by_path ? stackmap__add(s->file_ids, key, n, 1, 0) : NULL;
	struct stack_entry *e = by_inode ? by_inode : by_path;

	if (!by_path || (n > 0 && !by_inode))
		return -ENOMEM;
	if (e->count[0] == 0) {
		if (s->nfiles == s->files_cap) {
			size_t cap = s->files_cap ? s->files_cap * 2 : 64;
			struct file *v = realloc(s->files, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			s->files = v;
			s->files_cap = cap;
		}
		memset(&s->files[s->nfiles], 0, sizeof(struct file));
		s->files[s->nfiles].path = strdup(path);
		if (!s->files[s->nfiles].path)
			return -ENOMEM;
		s->files[s->nfiles].anonymous = anonymous(path);
		s->files[s->nfiles].dev = dev;
		s->files[s->nfiles].ino = ino;
		s->files[s->nfiles].fd = -1;
		e->count[0] = ++s->nfiles;
	}
	by_path->count[0] = e->count[0];
	*id = (uint32_t)(e->count[0] - 1);
	return 0;
}

int symbolizer__mmap(struct symbolizer *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, uint64_t dev, uint64_t ino)
{
	struct process *p = process(s, pid, true);
	struct mapping m = { start, start + len, pgoff, 0 };
	size_t o = 0;
	int ret;

	if (!p)
		return -ENOMEM;
	p->generation++;
	if ((ret = file_id(s, path, dev, ino, &m.file)) < 0)
		return ret;
	/* a new mapping replaces what it overlaps */
	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].end <= m.start || p->maps[i].start >= m.end)
			p->maps[o++] = p->maps[i];
	p->n = o;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct mapping *v = realloc(p->maps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->maps = v;
		p->cap = cap;
	}
	p->maps[p->n++] = m;
	return 0;
}

int symbolizer__fork(struct symbolizer *s, pid_t parent, pid_t child)
{
	struct process *pp = process(s, parent, false), *c;
	size_t n;

	if (!pp)
		return 0;
	n = pp->n;
	c = process(s, child, true);
	if (!c)
		return -ENOMEM;
	pp = process(s, parent, false);	/* the array may have moved */
	c->n = 0;
	if (n > c->cap) {
		struct mapping *v = realloc(c->maps, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->maps = v;
		c->cap = n;
	}
	if (n)
		memcpy(c->maps, pp->maps, n * sizeof(*c->maps));
	c->n = n;
	c->generation++;
	return 0;
}

int symbolizer__exec(struct symbolizer *s, pid_t pid)
{
	struct process *p = process(s, pid, false);

	if (p) {
		p->n = 0;
		p->generation++;
	}
	return 0;
}

static void warn_once(struct symbolizer *s, const char *msg)
{
	lp_warn(s->warn, s->ctx, NULL, 0, "%s", msg);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The frame of code in a file but in none of its symbols: [DSO], or the kernel's [vdso] as it is. */
static void dso_frame(char *name, size_t size, const char *path)
{
	const char *base = basename_of(path);
	size_t len = strlen(base);

	if (len > 1 && base[0] == '[' && base[len - 1] == ']')
		snprintf(name, size, "%.52s", base);
	else
		snprintf(name, size, "[%.50s]", base);
}

/* Adds name (demangled if mangled) and loc to the lists. */
static int emit(const char *name, const char *loc, struct strbuf *stack, struct strbuf *locs)
{
	char *plain = demangle(name);
	int ret = lp_list__append(stack, plain ? plain : name, strlen(plain ? plain : name));

	free(plain);
	if (ret == 0)
		ret = lp_list__append(locs, loc, strlen(loc));
	return ret;
}

static const Elf64_Ehdr *own_vdso(size_t *size)
{
	const Elf64_Ehdr *vdso = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);

	/* its section headers come last: they give the image's size */
	if (!vdso || memcmp(vdso->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	*size = vdso->e_shoff + (size_t)vdso->e_shnum * vdso->e_shentsize;
	return vdso;
}

/* Whether st is of the file a mapping names by dev (major << 32 | minor, as perf's MMAP2) and ino. */
static bool same_file(const struct stat *st, uint64_t dev, uint64_t ino)
{
	return ((uint64_t)major(st->st_dev) << 32 | minor(st->st_dev)) == dev && st->st_ino == ino;
}

/*
 * Where f is read: its path, or, when it is held open and its path names
 * another file now or none (deleted, or a copy over it), its descriptor.
 */
static const char *path_to_read(const struct file *f, char *buf, size_t size)
{
	struct stat st;

	if (f->fd < 0 || (stat(f->path, &st) == 0 && same_file(&st, f->dev, f->ino)))
		return f->path;
	snprintf(buf, size, "/proc/self/fd/%d", f->fd);
	return buf;
}

/* Closes f's descriptor once both its symbols and CFI were read. */
static void let_go_read(struct symbolizer *s, struct file *f)
{
	if (f->fd >= 0 && f->tried && f->cfi_tried) {
		close(f->fd);
		f->fd = -1;
		s->held--;
	}
}

static struct cfi *file_cfi(struct symbolizer *s, struct file *f)
{
	size_t size;
	const Elf64_Ehdr *vdso;
	char buf[32];

	if (!f->cfi_tried) {
		f->cfi_tried = true;
		if (strcmp(f->path, "[vdso]") == 0 && (vdso = own_vdso(&size)))
			f->cfi = cfi__open_memory(vdso, size);
		else if (f->path[0] == '/')
			f->cfi = cfi__open(path_to_read(f, buf, sizeof(buf)));
		let_go_read(s, f);
	}
	return f->cfi;
}

static struct elfsym *file_symbols(struct symbolizer *s, struct file *f)
{
	char buf[32];

	if (!f->tried) {
		f->tried = true;
		if (strcmp(f->path, "[vdso]") == 0) {
			/* the same kernel: our own vdso is the one the workload had */
			size_t size;
			const Elf64_Ehdr *vdso = own_vdso(&size);

			if (vdso)
				f->elf = elfsym__load_memory(vdso, size);
		} else if (f->path[0] == '/') {
			f->elf = elfsym__load(path_to_read(f, buf, sizeof(buf)), "/usr/lib/debug");
		}
		let_go_read(s, f);
	}
	return f->elf;
}

/* Whether process p maps a file whose name starts with prefix (a runtime's program or library: python3.11). */
static bool maps_file(const struct symbolizer *s, const struct process *p, const char *prefix)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < p->n; i++)
		if (strncmp(basename_of(s->files[p->maps[i].file].path), prefix, n) == 0)
			return true;
	return false;
}

/* /tmp/perf-PID.map's symbols, and its size then; NULL+errno (EINVAL: err says where it is not one). */
static struct symtab *load_perfmap(const char *path, off_t *size, struct lp_error *err)
{
	struct stat st;

	*size = stat(path, &st) == 0 ? st.st_size : 0;
	return perfmap__load(path, err);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether p's perf map was read again, having grown since it was last read:
 * not more than ten times a second (a JVM warming up compiles thousands of
 * methods, each a miss, and its map is megabytes).
 */
static bool reload_perfmap(struct process *p, pid_t pid)
{
	char path[64];
	struct lp_error err;
	struct symtab *t;
	struct stat st;
	uint64_t now = now_ns();

	if (now - p->perfmap_read_ns < 100000000u)
		return false;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	if (stat(path, &st) != 0 || st.st_size <= p->perfmap_size)
		return false;
	p->perfmap_read_ns = now;
	if (!(t = perfmap__load(path, &err)))
		return false;
	symtab__free(p->perfmap);
	p->perfmap = t;
	/* what it grows by while being read is read again at the next miss */
	p->perfmap_size = st.st_size;
	return true;
}

/* How the runtime that made a process's JIT code is told to write /tmp/perf-PID.map. */
static const char *jit_remedy(const struct symbolizer *s, const struct process *p)
{
	if (maps_file(s, p, "node"))
		return "run node with --perf-basic-prof";
	if (maps_file(s, p, "libjvm.so"))
		return "load a perf map agent into the JVM (e.g. perf-map-agent), or run java with -XX:+DumpPerfMapAtExit";
	if (maps_file(s, p, "python3") || maps_file(s, p, "libpython3"))
		return "run Python 3.12 or later with -X perf";
	return "the JIT must write it (node --perf-basic-prof, python3.12 -X perf, a JVM perf map agent)";
}

/* Once: CPython before 3.12 runs every Python function in this one C function. */
static void python_hint(struct symbolizer *s, const char *sym)
{
	if (s->python_hinted || strcmp(sym, "_PyEval_EvalFrameDefault") != 0)
		return;
	s->python_hinted = true;
	warn_once(s, "Python functions show as _PyEval_EvalFrameDefault: the interpreter runs them all "
		     "there; Python 3.12 or later run with -X perf (or PYTHONPERFSUPPORT=1) names them");
}

/* Bytes of rendered text a chain is expected to take in the cache (~730 on bench/workload.c's 24 frames) */
enum { EXPECTED_CHAIN_BYTES = 1024 };

int symbolizer__expect_chains(struct symbolizer *s, size_t n)
{
	size_t bytes;

	if (n > CHAIN_CACHE_ENTRIES)
		n = CHAIN_CACHE_ENTRIES;
	bytes = n * EXPECTED_CHAIN_BYTES < CHAIN_CACHE_BYTES ? n * EXPECTED_CHAIN_BYTES : CHAIN_CACHE_BYTES;
	if (!s->chain_text && !(s->chain_text = hugemem__alloc(CHAIN_CACHE_BYTES)))
		return -ENOMEM;
	if (bytes > s->chain_text_ready) {
		hugemem__prefault(s->chain_text + s->chain_text_ready, bytes - s->chain_text_ready);
		s->chain_text_ready = bytes;
	}
	return htab__expect(&s->chains, n);
}

int symbolizer__load(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino)
{
	uint32_t id;
	int ret;

	if (anonymous(path))
		return 0;
	if ((ret = file_id(s, path, dev, ino, &id)) < 0)
		return ret;
	file_symbols(s, &s->files[id]);
	file_cfi(s, &s->files[id]);
	return 0;
}

int symbolizer__hold(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino)
{
	struct file *f;
	struct stat st;
	uint32_t id;
	int ret, fd;

	if (anonymous(path) || path[0] != '/' || !ino || s->held >= HELD_FILES_MAX)
		return 0;
	if ((ret = file_id(s, path, dev, ino, &id)) < 0)
		return ret;
	f = &s->files[id];
	if (f->fd >= 0 || (f->tried && f->cfi_tried))
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	/* already another file by that name: the mapped one is gone */
	if (fstat(fd, &st) != 0 || !same_file(&st, dev, ino)) {
		close(fd);
		return 0;
	}
	f->fd = fd;
	s->held++;
	return 0;
}

/*
 * The mapping of p that holds addr, or NULL (mappings do not overlap):
 * the one found last first, as a stack's frames stay in few files.
 */
static struct mapping *mapping_at(struct process *p, uint64_t addr)
{
	const struct mapping *hint = p->last_map < p->n ? &p->maps[p->last_map] : NULL;

	if (hint && addr >= hint->start && addr < hint->end)
		return &p->maps[p->last_map];
	for (size_t i = 0; i < p->n; i++) {
		if (addr >= p->maps[i].start && addr < p->maps[i].end) {
			p->last_map = i;
			return &p->maps[i];
		}
	}
	return NULL;
}

/*
 * Appends a user frame of pid, at mapping m of process p (either NULL where
 * there is none); 1 (not 0) when ip lies in no executable mapping of pid.
 */
static int user_frame(struct symbolizer *s, pid_t pid, struct process *p, const struct mapping *m, uint64_t ip,
		      bool precise, struct strbuf *stack, struct strbuf *locs)
{
	int ret;
	uint64_t look = precise ? ip : ip - 1;
	char loc[4200], name[64];
	/* JIT code, maybe: see the perf map below */
	bool in_anonymous = m && s->files[m->file].anonymous;

	if (m && !in_anonymous) {
		struct file *f = &s->files[m->file];
		struct elfsym *e;
		uint64_t addr;
		const char *sym;

		e = file_symbols(s, f);
		if (!e || !elfsym__offset_to_addr(e, look - m->start + m->pgoff, &addr)) {
			dso_frame(name, sizeof(name), f->path);
			snprintf(loc, sizeof(loc), "%s+0x%" PRIx64, f->path, ip - m->start + m->pgoff);
			return emit(name, loc, stack, locs);
		}
		sym = elfsym__lookup(e, addr);
		snprintf(loc, sizeof(loc), "%s+0x%" PRIx64, f->path, addr + (ip - look));
		if (sym)
			python_hint(s, sym);
		if (!sym) {
			dso_frame(name, sizeof(name), f->path);
			sym = name;
		}
		return emit(sym, loc, stack, locs);
	}
	/* JIT symbols: /tmp/perf-PID.map */
	if (p && !p->perfmap_tried && in_anonymous) {
		char path[64];
		struct lp_error err;

		p->perfmap_tried = true;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
		p->perfmap = load_perfmap(path, &p->perfmap_size, &err);
		p->perfmap_read_ns = now_ns();
		if (!p->perfmap && errno == EINVAL) {
			snprintf(loc, sizeof(loc), "cannot read JIT symbols: '%s' line %ld is not 'START SIZE NAME'",
				 path, err.line);
			warn_once(s, loc);
		} else if (!p->perfmap) {
			snprintf(loc, sizeof(loc), "samples in anonymous memory of process %d and no JIT "
				 "symbols for them: cannot read '%s' (%s); %s", (int)pid, path, strerror(errno),
				 jit_remedy(s, p));
			warn_once(s, loc);
		}
	}
	if (p && p->perfmap) {
		const char *sym = symtab__lookup(p->perfmap, look, NULL);

		/* code compiled since the map was read (while the process still runs): read it again */
		if (!sym && in_anonymous && reload_perfmap(p, pid))
			sym = symtab__lookup(p->perfmap, look, NULL);
		if (sym) {
			snprintf(loc, sizeof(loc), "/tmp/perf-%d.map+0x%" PRIx64, (int)pid, ip);
			return emit(sym, loc, stack, locs);
		}
	}
	/*
	 * Code in anonymous memory without a symbol is one frame, [anon], as
	 * FlameGraph draws it ([perf-PID.map]): named by address, a JIT's
	 * thousands of code addresses would split every tower through it.
	 */
	if (in_anonymous)
		return emit("[anon]", "-", stack, locs);
	snprintf(name, sizeof(name), "[0x%" PRIx64 "]", ip);
	ret = emit(name, "-", stack, locs);
	return ret < 0 ? ret : 1;
}

static int kernel_frame(struct symbolizer *s, uint64_t ip, bool precise, struct strbuf *stack, struct strbuf *locs);

static uint64_t frame_hash(uint64_t ip, pid_t pid, uint32_t generation, uint32_t flags)
{
	return hash_mix(ip ^ ((uint64_t)(uint32_t)pid << 32) ^ ((uint64_t)generation << 48) ^ flags);
}

/* Appends an escaped item to a list (the hot path: one capacity check, one copy). */
static inline int append_item(struct strbuf *list, const char *escaped, size_t len)
{
	size_t sep = list->len > 0;
	int ret;

	if (list->cap - list->len <= len + sep && (ret = strbuf__grow(list, len + sep)) < 0)
		return ret;
	list->s[list->len] = ';';
	list->len += sep;
	memcpy(list->s + list->len, escaped, len);
	list->len += len;
	return 0;
}

/*
 * Frames repeat: each distinct one is resolved once (per state of its
 * process's mappings). 1 for a user address outside every executable mapping.
 */
static int frame(struct symbolizer *s, pid_t pid, uint32_t generation, uint64_t ip, bool kernel, bool precise,
		 struct strbuf *stack, struct strbuf *locs)
{
	uint32_t flags = (uint32_t)precise | (uint32_t)kernel << 1;
	struct cached_frame *e;
	size_t stack_at = stack->len, locs_at = locs->len;
	/* whose frame it is: the kernel's, a file's (the same in every process mapping it), or pid's own */
	pid_t whose = kernel ? 0 : pid;
	uint32_t version = kernel ? 0 : generation;
	uint64_t at = ip, h;
	struct process *p = NULL;
	struct mapping *m = NULL;
	int ret;

	if (!kernel) {
		p = process(s, pid, false);
		m = p ? mapping_at(p, precise ? ip : ip - 1) : NULL;
		if (m && !s->files[m->file].anonymous) {
			whose = FILE_FRAME;
			version = m->file;
			at = ip - m->start + m->pgoff;
		}
	}
	if ((ret = htab__reserve(&s->frames)) < 0)
		return ret;
	h = frame_hash(at, whose, version, flags);
	for (size_t i = h; (e = htab__at(&s->frames, i))->head.used; i++) {
		if (e->head.hash == h && e->ip == at && e->pid == whose && e->generation == version &&
		    e->flags == flags) {
			const char *text = s->cache_text.s + e->off;

			if ((ret = append_item(stack, text, e->name_len)) < 0 ||
			    (ret = append_item(locs, text + e->name_len, e->loc_len)) < 0)
				return ret;
			return e->outside;
		}
	}
	ret = kernel ? kernel_frame(s, ip, precise, stack, locs) : user_frame(s, pid, p, m, ip, precise, stack, locs);
	if (ret < 0)
		return ret;
	e->outside = ret == 1;
	/* what the frame appended, without the separators */
	stack_at += stack_at > 0;
	locs_at += locs_at > 0;
	htab__insert(&s->frames, e, h);
	e->ip = at;
	e->pid = whose;
	e->generation = version;
	e->flags = flags;
	e->off = s->cache_text.len;
	e->name_len = (uint32_t)(stack->len - stack_at);
	e->loc_len = (uint32_t)(locs->len - locs_at);
	if ((ret = strbuf__add(&s->cache_text, stack->s + stack_at, e->name_len)) < 0 ||
	    (ret = strbuf__add(&s->cache_text, locs->s + locs_at, e->loc_len)) < 0)
		return ret;
	return e->outside;
}

static uint32_t generation_of(struct symbolizer *s, pid_t pid)
{
	const struct process *p = process(s, pid, false);

	return p ? p->generation : 0;
}

int symbolizer__frame(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel, bool precise,
		      struct strbuf *stack, struct strbuf *locs)
{
	int ret = frame(s, pid, generation_of(s, pid), ip, kernel, precise, stack, locs);

	return ret < 0 ? ret : 0;
}

/*
 * Adds frame f to the chain in stack and locs, or restarts it at the marker
 * (*stopped = 1); *items counts the chain's items.
 */
static int chain_step(struct symbolizer *s, pid_t pid, uint32_t generation, const struct sym_frame *f,
		      struct strbuf *stack, struct strbuf *locs, int *stopped, size_t *items)
{
	bool stop = !f->kernel && f->ip == SYM_STOPPED_IP;
	int ret;

	if (!stop) {
		ret = frame(s, pid, generation, f->ip, f->kernel, f->precise, stack, locs);
		if (ret < 0)
			return ret;
		/*
		 * A return address outside the process's code is stack data
		 * that unwinding took for one: it and everything rootward of
		 * it are made up.
		 */
		stop = ret == 1 && !f->precise;
	}
	/* the stack starts again from the marker */
	if (stop) {
		strbuf__reset(stack);
		strbuf__reset(locs);
		if ((ret = lp_list__append(stack, SYM_UNWIND_STOPPED, sizeof(SYM_UNWIND_STOPPED) - 1)) < 0 ||
		    (ret = lp_list__append(locs, "-", 1)) < 0)
			return ret;
		*stopped = 1;
		*items = 0;
	}
	++*items;
	return 0;
}

static uint64_t frame_word(const struct sym_frame *f)
{
	return (uint64_t)f->kernel | (uint64_t)f->precise << 1;
}

/* Two independent hashes of a chain: different mixing, seeds and multipliers. */
static uint64_t chain_hash(pid_t pid, uint32_t generation, const struct sym_frame *frames, size_t n,
			   uint64_t *check)
{
	uint64_t h = hash_mix(((uint64_t)(uint32_t)pid << 32 | generation) ^ n);
	uint64_t c = hash_mix(h ^ 0x9e3779b97f4a7c15ULL);

	for (size_t i = 0; i < n; i++) {
		h = hash_word(h, frames[i].ip ^ frame_word(&frames[i]) << 62);
		c = hash_mum(c ^ frames[i].ip, 0xa0761d6478bd642fULL + 2 * frame_word(&frames[i]));
	}
	*check = hash_mix(c ^ n);
	return hash_mix(h);
}

static bool same_chain(const struct cached_chain *e, pid_t pid, uint32_t generation, size_t n, uint64_t check)
{
	return e->check == check && e->pid == pid && e->generation == generation && e->n == n;
}

/* The kept chain of callers[0..n) of pid, or the free slot it would take (head.used false); its hashes. */
static struct cached_chain *chain_slot(struct symbolizer *s, pid_t pid, uint32_t generation,
				       const struct sym_frame *callers, size_t n, uint64_t *h, uint64_t *check)
{
	struct cached_chain *e;

	*h = chain_hash(pid, generation, callers, n, check);
	for (size_t i = *h; (e = htab__at(&s->chains, i))->head.used; i++)
		if (e->head.hash == *h && same_chain(e, pid, generation, n, *check))
			break;
	return e;
}

/* Keeps the rendered callers frames[0..n) for the next sample with the same ones. */
static int remember_chain(struct symbolizer *s, struct cached_chain *e, uint64_t h, uint64_t check, pid_t pid,
			  uint32_t generation, size_t n, const struct strbuf *stack, const struct strbuf *locs,
			  int flags)
{
	size_t text_off = s->chain_text_len;

	if (s->chains.n >= CHAIN_CACHE_ENTRIES || text_off + stack->len + locs->len > CHAIN_CACHE_BYTES)
		return 0;
	/* reserved whole, backed as it fills, in huge pages: a cache grows by MBs, a fault per 4 KB otherwise */
	if (!s->chain_text && !(s->chain_text = hugemem__alloc(CHAIN_CACHE_BYTES)))
		return -ENOMEM;
	if (stack->len)
		memcpy(s->chain_text + text_off, stack->s, stack->len);
	if (locs->len)
		memcpy(s->chain_text + text_off + stack->len, locs->s, locs->len);
	s->chain_text_len += stack->len + locs->len;
	/* in the table only once whole */
	htab__insert(&s->chains, e, h);
	e->check = check;
	e->pid = pid;
	e->generation = generation;
	e->n = (uint32_t)n;
	e->flags = flags;
	e->text_off = text_off;
	e->stack_len = (uint32_t)stack->len;
	e->locs_len = (uint32_t)locs->len;
	return 0;
}

int symbolizer__chain(struct symbolizer *s, pid_t pid, const struct sym_frame *frames, size_t n,
		      struct stack_roots *roots, struct strbuf *stack, struct strbuf *locs)
{
	uint32_t generation = generation_of(s, pid);
	const struct sym_frame *callers = frames + 1;
	struct cached_chain *e = NULL;
	size_t ncallers = n > 0 ? n - 1 : 0, items = 0;
	int ret, stopped = 0, flags = 0;
	bool completed = !roots;
	uint64_t h = 0, check = 0;

	strbuf__reset(stack);
	strbuf__reset(locs);
	if (ncallers > 0) {
		if ((ret = htab__reserve(&s->chains)) < 0)
			return ret;
		e = chain_slot(s, pid, generation, callers, ncallers, &h, &check);
		if (e->head.used) {
			const char *text = s->chain_text + e->text_off;

			if ((ret = strbuf__add(stack, text, e->stack_len)) < 0 ||
			    (ret = strbuf__add(locs, text + e->stack_len, e->locs_len)) < 0)
				return ret;
			flags = e->flags & ~CHAIN_PENDING;
			completed = !roots || !(e->flags & CHAIN_PENDING);
			ncallers = 0;
		}
	}
	/* the callers rootward first, when not cached */
	if (ncallers > 0) {
		for (size_t i = ncallers; i-- > 0;)
			if ((ret = chain_step(s, pid, generation, &callers[i], stack, locs, &stopped, &items)) < 0)
				return ret;
		flags = stopped ? SYM_CHAIN_STOPPED : 0;
		/*
		 * Completion reads the first items only: where the callers have as
		 * many, it is the stack's, and the callers are kept completed;
		 * while their root may yet be learned, kept as they are.
		 */
		if (roots && items >= STACK_ROOTS_ITEMS) {
			if ((ret = stack_roots__complete(roots, pid, stack, locs)) < 0)
				return ret;
			flags |= ret == STACK_ROOTS_COMPLETED ? SYM_CHAIN_COMPLETED : 0;
			completed = ret != STACK_ROOTS_NOT_YET;
		}
		if ((completed || items >= STACK_ROOTS_ITEMS) &&
		    (ret = remember_chain(s, e, h, check, pid, generation, ncallers, stack, locs,
					  flags | (completed ? 0 : CHAIN_PENDING))) < 0)
			return ret;
	}
	if (n > 0) {
		int leaf_stopped = 0;

		if ((ret = chain_step(s, pid, generation, &frames[0], stack, locs, &leaf_stopped, &items)) < 0)
			return ret;
		/* a leaf that is no code (not one sampled) leaves the marker alone */
		if (leaf_stopped)
			flags = SYM_CHAIN_STOPPED;
	}
	if (!completed) {
		if ((ret = stack_roots__complete(roots, pid, stack, locs)) < 0)
			return ret;
		flags |= ret == STACK_ROOTS_COMPLETED ? SYM_CHAIN_COMPLETED :
			 ret == STACK_ROOTS_NOT_YET ? SYM_CHAIN_ROOT_PENDING : 0;
	}
	return flags;
}

int symbolizer__cached_callers(struct symbolizer *s, pid_t pid, const struct sym_frame *frames, size_t n,
			       const char **stack, size_t *stack_len, const char **locs, size_t *locs_len)
{
	uint64_t h, check;
	const struct cached_chain *e;

	if (n < 2 || !s->chains.n)
		return -ENOENT;
	e = chain_slot(s, pid, generation_of(s, pid), frames + 1, n - 1, &h, &check);
	if (!e->head.used || e->flags & CHAIN_PENDING)
		return -ENOENT;
	*stack = s->chain_text + e->text_off;
	*stack_len = e->stack_len;
	*locs = *stack + e->stack_len;
	*locs_len = e->locs_len;
	return e->flags;
}

static int kernel_frame(struct symbolizer *s, uint64_t ip, bool precise, struct strbuf *stack, struct strbuf *locs)
{
	char loc[320];
	const char *name, *module = "";

	if (!s->kernel_tried) {
		s->kernel_tried = true;
		s->kernel = kallsyms__load(NULL);
		if (!s->kernel)
			warn_once(s, errno == ENODATA ?
				  "kernel symbols are hidden (kernel.kptr_restrict): kernel frames show as [kernel.kallsyms]; run as root or set sysctl kernel.kptr_restrict=0" :
				  "cannot read /proc/kallsyms: kernel frames show as [kernel.kallsyms]");
	}
	name = s->kernel ? symtab__lookup(s->kernel, precise ? ip : ip - 1, &module) : NULL;
	snprintf(loc, sizeof(loc), "[%s]+0x%" PRIx64, *module ? module : "kernel.kallsyms", ip);
	return emit(name ? name : "[kernel.kallsyms]", loc, stack, locs);
}

/*
 * Whether file address addr of file is in the stub at its entry point that
 * calls into the program or the loader: the first frame of every process.
 * The dynamic loader's _start has no CFI (its RTLD_START is bare assembly),
 * so unwinding from a sample in the loader ends there without CFI saying
 * "outermost"; its entry point says it.
 */
static bool at_entry(struct symbolizer *s, uint32_t file, uint64_t addr)
{
	struct elfsym *e = file_symbols(s, &s->files[file]);
	uint64_t entry = e ? elfsym__entry(e) : 0;

	/*
	 * x86-64's stub calls _dl_start at +3 and _dl_init at +0x2b and ends by
	 * +0x40, where the next function's CFI starts: a return address without
	 * CFI that close to the entry is in it.
	 */
	return entry && addr >= entry && addr < entry + 64;
}

/* The CFI, the file and the file address of ip in pid, or NULL. */
static struct cfi *cfi_at(struct symbolizer *s, pid_t pid, uint64_t ip, uint64_t *addr, uint32_t *file)
{
	struct process *p = process(s, pid, false);
	struct mapping *m = p ? mapping_at(p, ip) : NULL;
	struct file *f;
	struct elfsym *e;
	struct cfi *c;

	if (!m)
		return NULL;
	f = &s->files[m->file];
	e = file_symbols(s, f);
	c = file_cfi(s, f);
	if (!e || !c || !elfsym__offset_to_addr(e, ip - m->start + m->pgoff, addr))
		return NULL;
	*file = m->file;
	return c;
}

/* The rule at addr of file, compiled once; NULL when out of memory. */
static const struct cached_rule *rule_at(struct symbolizer *s, struct cfi *c, uint32_t file, uint64_t addr)
{
	struct cached_rule *e;
	uint64_t h = hash_mix(addr ^ ((uint64_t)file << 48));

	if (htab__reserve(&s->rules) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&s->rules, i))->head.used; i++)
		if (e->head.hash == h && e->addr == addr && e->file == file)
			return e;
	htab__insert(&s->rules, e, h);
	e->addr = addr;
	e->file = file;
	e->status = cfi__rule(c, addr, &e->rule);
	return e;
}

/*
 * Where ip of pid is, for unwinding. Not cached by address: the rule is
 * (per file), and a table per process address grew with every short-lived
 * process of a build and made the write phase slower, not faster.
 */
static void place_at(struct symbolizer *s, pid_t pid, uint64_t ip, struct code_place *p)
{
	const struct cached_rule *rule;

	*p = (struct code_place){ .status = -ENOENT };
	p->cfi = cfi_at(s, pid, ip, &p->addr, &p->file);
	if (p->cfi) {
		rule = rule_at(s, p->cfi, p->file, p->addr);
		/* without room to keep the rule, it is evaluated afresh (status 0, not simple) */
		p->status = rule ? rule->status : 0;
		if (rule)
			p->rule = rule->rule;
	}
}

/* One unwinding step at a place with CFI. */
static int step(const struct code_place *p, const struct user_regs *r, const uint8_t *stack, size_t size,
		uint64_t base, struct user_regs *caller)
{
	if (p->status < 0)
		return p->status;
	if (p->rule.simple)
		return cfi_rule__step(&p->rule, r, stack, size, base, caller);
	return cfi__step(p->cfi, p->addr, r, stack, size, base, caller);
}

/* Whether CFI covers ip of pid (a return address: the call before it). */
static bool cfi_covers(struct symbolizer *s, pid_t pid, uint64_t ip)
{
	struct code_place p;

	place_at(s, pid, ip - 1, &p);
	return p.cfi && p.status != -ENOENT;
}

/*
 * The sampled instruction is in code no CFI describes: glibc ends clone3's
 * FDE before its syscall, as the child's unwind information would be wrong,
 * so a thread's spawn stack is taken there. Such code has no frame of its
 * own: the return address is on top of the stack. Believed only when CFI
 * covers the call it returns to.
 */
static int frameless_step(struct symbolizer *s, pid_t pid, const struct user_regs *r, const uint8_t *stack,
			  size_t size, uint64_t base, struct user_regs *caller)
{
	uint64_t ra;

	if (r->sp < base || r->sp - base + 8 > size)
		return -ERANGE;
	memcpy(&ra, stack + (r->sp - base), 8);
	if (ra < 4096 || !cfi_covers(s, pid, ra))
		return -ENOENT;
	*caller = (struct user_regs){ .ip = ra, .sp = r->sp + 8, .bp = r->bp, .link = CFI_LINK_UNKNOWN };
	return 0;
}

size_t symbolizer__unwind(struct symbolizer *s, pid_t pid, const struct user_regs *regs,
			  const uint8_t *stack, size_t size, uint64_t *ras, size_t max, uint64_t *exact_ras,
			  enum sym_unwind_end *end, const uint64_t *known, size_t nknown)
{
	struct user_regs r = *regs, caller;
	bool exact = true;	/* r.ip is where its function was interrupted, not a return address */
	size_t n = 0;

	*end = SYM_UNWIND_NO_RULE;
	*exact_ras = 0;
	while (n < max) {
		/* return addresses point after the call: look up the call itself */
		struct code_place p;

		place_at(s, pid, exact ? r.ip : r.ip - 1, &p);
		int ret = p.cfi ? step(&p, &r, stack, size, regs->sp, &caller) : -ENOENT;

		if (ret == -ENOENT && p.cfi && n == 0)
			ret = frameless_step(s, pid, &r, stack, size, regs->sp, &caller);
		if (ret == -ENOENT && p.cfi && n > 0 && at_entry(s, p.file, p.addr))
			ret = -ENODATA;
		if (ret == -ENODATA)
			*end = SYM_UNWIND_OUTERMOST;
		/* with rbp unknown (CFI_BP_UNKNOWN) it may not be: a bigger copy would not have rbp either */
		else if (ret == -ERANGE && r.bp != CFI_BP_UNKNOWN)
			*end = SYM_UNWIND_PAST_COPY;
		/*
		 * The stack pointer only grows toward the callers, but a leaf whose
		 * return address is in a register (vfork's in rdi, arm64's in x30)
		 * leaves it as it is.
		 */
		if (ret < 0 || caller.ip < 4096 || caller.sp < r.sp || (caller.sp == r.sp && n > 0))
			break;
		/*
		 * Through a signal frame: the trampoline the handler returned to
		 * (its CFI starts a byte early, its symbol does not) and the
		 * interrupted instruction are both named by their own address.
		 */
		if (p.rule.signal && n < 64)
			*exact_ras |= (n > 0 ? 3ull << (n - 1) : 1);
		ras[n++] = caller.ip;
		/*
		 * Two callers in a row where that chain has them: it is right from
		 * there, if it goes on. Where it ends there (a caller without a frame
		 * pointer, as libc's __libc_start_call_main), CFI goes on alone, so
		 * every thread's stacks have the same root.
		 */
		for (size_t i = 1; n >= 2 && i + 1 < nknown; i++)
			if (known[i] == caller.ip && known[i - 1] == ras[n - 2]) {
				*end = SYM_UNWIND_JOINED;
				return n;
			}
		r = caller;
		/* past a signal frame (libc's __restore_rt), the interrupted code */
		exact = p.rule.signal;
	}
	return n;
}

enum sym_frame_kind symbolizer__frame_kind(struct symbolizer *s, pid_t pid, uint64_t ip, bool sampled)
{
	struct code_place p;

	place_at(s, pid, sampled ? ip : ip - 1, &p);
	if (!p.cfi)
		return SYM_FRAME_UNKNOWN;
	if (p.status == -ENOENT && at_entry(s, p.file, p.addr))
		return SYM_FRAME_ENTRY;
	if (p.status != 0 || !p.rule.simple || p.rule.outermost)
		return SYM_FRAME_UNKNOWN;
	if (p.rule.cfa_reg != LP_DWARF_SP)
		return SYM_FRAME_POINTER;
	return p.rule.bp_saved ? SYM_FRAME_SCRATCH : SYM_FRAME_NONE;
}

bool symbolizer__maps(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct process *p = process(s, pid, false);

	return p && mapping_at(p, addr);
}

int symbolizer__frame_pointer_share(struct symbolizer *s, const char *path)
{
	uint32_t id;
	struct elfsym *e;

	if (file_id(s, path, 0, 0, &id) < 0 || !(e = file_symbols(s, &s->files[id])))
		return -1;
	return elfsym__frame_pointer_share(e);
}
