/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/symbolizer-int.h"

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

#include "base/arch.h"
#include "symbols/cfi.h"
#include "symbols/demangle.h"
#include "symbols/elfsym.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/hugemem.h"
#include "symbols/kallsyms.h"
#include "stream/lpstream.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"

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

void symbolizer__set_demangle(struct symbolizer *s, enum demangle_style style)
{
	s->demangle = style;
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

struct process *symbolizer__process(struct symbolizer *s, pid_t pid, bool create)
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
	struct process *p = symbolizer__process(s, pid, true);
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
	struct process *pp = symbolizer__process(s, parent, false), *c;
	size_t n;

	if (!pp)
		return 0;
	n = pp->n;
	c = symbolizer__process(s, child, true);
	if (!c)
		return -ENOMEM;
	pp = symbolizer__process(s, parent, false);	/* the array may have moved */
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
	struct process *p = symbolizer__process(s, pid, false);

	if (p) {
		p->n = 0;
		p->generation++;
	}
	return 0;
}

static void warn_once(struct symbolizer *s, const char *msg)
{
	lp_error__warn(s->warn, s->ctx, NULL, 0, "%s", msg);
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
static int emit(const struct symbolizer *s, const char *name, const char *loc, struct strbuf *stack,
		struct strbuf *locs)
{
	char *plain = demangle__as(name, s->demangle);
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

struct cfi *symbolizer__file_cfi(struct symbolizer *s, struct file *f)
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

struct elfsym *symbolizer__file_symbols(struct symbolizer *s, struct file *f)
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

/*
 * Bytes of rendered text a chain is expected to take in the cache (~730 on
 * bench/workload.c's 24 frames, ~1200 on its 54): what is faulted in ahead
 * is not faulted in by the write phase.
 */
enum { EXPECTED_CHAIN_BYTES = 1536 };

/* The chain cache's text, reserved whole at its first use and backed as it fills: 0 or -ENOMEM. */
static int chain_text_reserve(struct symbolizer *s)
{
	/* in huge pages: a cache grows by MBs, a fault per 4 KB otherwise */
	if (!s->chain_text && !(s->chain_text = hugemem__alloc(CHAIN_CACHE_BYTES)))
		return -ENOMEM;
	return 0;
}

/* The cache's text from what is ready up to upto (at most all of it), now counted ready: its length, or -ENOMEM. */
static ssize_t chain_text_claim(struct symbolizer *s, size_t upto, char **p)
{
	size_t from = s->chain_text_ready;

	if (upto > CHAIN_CACHE_BYTES)
		upto = CHAIN_CACHE_BYTES;
	if (upto <= from)
		return 0;
	if (chain_text_reserve(s) < 0)
		return -ENOMEM;
	*p = s->chain_text + from;
	s->chain_text_ready = upto;
	return (ssize_t)(upto - from);
}

int symbolizer__expect_chains(struct symbolizer *s, size_t n)
{
	ssize_t len;
	char *p = NULL;

	if (n > CHAIN_CACHE_ENTRIES)
		n = CHAIN_CACHE_ENTRIES;
	if ((len = chain_text_claim(s, n * EXPECTED_CHAIN_BYTES, &p)) < 0)
		return (int)len;
	hugemem__prefault(p, (size_t)len);
	return htab__expect(&s->chains, n);
}

size_t symbolizer__chain_text_ahead(struct symbolizer *s, size_t ahead, void **p)
{
	char *from = NULL;
	ssize_t len = chain_text_claim(s, hugemem__round_up(s->chain_text_len + ahead), &from);

	if (len <= 0)
		return 0;
	*p = from;
	return (size_t)len;
}

int symbolizer__load(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino)
{
	uint32_t id;
	int ret;

	if (anonymous(path))
		return 0;
	if ((ret = file_id(s, path, dev, ino, &id)) < 0)
		return ret;
	symbolizer__file_symbols(s, &s->files[id]);
	symbolizer__file_cfi(s, &s->files[id]);
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
struct mapping *symbolizer__mapping_at(struct process *p, uint64_t addr)
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

		e = symbolizer__file_symbols(s, f);
		if (!e || !elfsym__offset_to_addr(e, look - m->start + m->pgoff, &addr)) {
			dso_frame(name, sizeof(name), f->path);
			lp_loc__format(loc, sizeof(loc), f->path, ip - m->start + m->pgoff);
			return emit(s, name, loc, stack, locs);
		}
		sym = elfsym__lookup(e, addr);
		lp_loc__format(loc, sizeof(loc), f->path, addr + (ip - look));
		if (sym)
			python_hint(s, sym);
		if (!sym) {
			dso_frame(name, sizeof(name), f->path);
			sym = name;
		}
		return emit(s, sym, loc, stack, locs);
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
			char map[48];

			snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
			lp_loc__format(loc, sizeof(loc), map, ip);
			return emit(s, sym, loc, stack, locs);
		}
	}
	/*
	 * Code in anonymous memory without a symbol is one frame, [anon], as
	 * FlameGraph draws it ([perf-PID.map]): named by address, a JIT's
	 * thousands of code addresses would split every tower through it.
	 */
	if (in_anonymous)
		return emit(s, "[anon]", "-", stack, locs);
	snprintf(name, sizeof(name), "[0x%" PRIx64 "]", ip);
	ret = emit(s, name, "-", stack, locs);
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
		p = symbolizer__process(s, pid, false);
		m = p ? symbolizer__mapping_at(p, precise ? ip : ip - 1) : NULL;
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
	const struct process *p = symbolizer__process(s, pid, false);

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
	if (chain_text_reserve(s) < 0)
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
	char loc[320], dso[288];
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
	snprintf(dso, sizeof(dso), "[%s]", *module ? module : "kernel.kallsyms");
	lp_loc__format(loc, sizeof(loc), dso, ip);
	return emit(s, name ? name : "[kernel.kallsyms]", loc, stack, locs);
}

bool symbolizer__maps(struct symbolizer *s, pid_t pid, uint64_t addr)
{
	struct process *p = symbolizer__process(s, pid, false);

	return p && symbolizer__mapping_at(p, addr);
}

int symbolizer__frame_pointer_share(struct symbolizer *s, const char *path)
{
	uint32_t id;
	struct elfsym *e;

	if (file_id(s, path, 0, 0, &id) < 0 || !(e = symbolizer__file_symbols(s, &s->files[id])))
		return -1;
	return elfsym__frame_pointer_share(e);
}
