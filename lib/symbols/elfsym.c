/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hugemem.h"

struct sym {
	uint64_t start, end;
	const char *name;	/* in names */
	int rank;		/* among aliases, lower is preferred */
};

/* The rank of PLT entries: made up here, kept when symbols come from a debug file. */
enum { PLT_RANK = 1000 };

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct elfsym {
	struct sym *syms;
	size_t n, syms_cap;
	char *names;
	size_t names_len, names_cap;
	struct segment *segs;
	size_t nsegs;
	int fp_share;		/* per cent of the biggest functions that set up a frame pointer, -1: unknown */
	uint8_t build_id[64];
	size_t build_id_len;
	char debuglink[256];
	uint64_t entry;		/* e_entry, 0 for none */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* prefer the sized, then the longer-named global alias, for stable output */
	if ((x->end > x->start) != (y->end > y->start))
		return x->end > x->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Reads segments, build id and debug link: what any ELF file tells about itself. */
static void read_layout(struct elfsym *e, Elf *elf)
{
	size_t phnum;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t shstrndx;

	if (gelf_getehdr(elf, &eh))
		e->entry = eh.e_entry;

	if (elf_getphdrnum(elf, &phnum) == 0) {
		e->segs = calloc(phnum ? phnum : 1, sizeof(*e->segs));
		for (size_t i = 0; e->segs && i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				e->segs[e->nsegs].offset = ph.p_offset;
				e->segs[e->nsegs].vaddr = ph.p_vaddr;
				e->segs[e->nsegs].filesz = ph.p_filesz;
				e->nsegs++;
			}
		}
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		/* only these two are read: the file is read, not mapped, section by section */
		if (!(sh.sh_type == SHT_NOTE && strcmp(name, ".note.gnu.build-id") == 0) &&
		    strcmp(name, ".gnu_debuglink") != 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t name_off, desc_off;

			if (gelf_getnote(d, 0, &nh, &name_off, &desc_off) > 0 && nh.n_type == NT_GNU_BUILD_ID &&
			    nh.n_descsz <= sizeof(e->build_id)) {
				memcpy(e->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
				e->build_id_len = nh.n_descsz;
			}
		} else if (strcmp(name, ".gnu_debuglink") == 0) {
			size_t n = strnlen(d->d_buf, d->d_size);

			if (n < sizeof(e->debuglink))
				memcpy(e->debuglink, d->d_buf, n), e->debuglink[n] = 0;
		}
	}
}

/*
 * Which of several names of one address to show: global before weak before
 * local, fewer leading underscores; as perf chooses.
 */
static int alias_rank(const char *name, int bind)
{
	int rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 10 : 20;
	for (const char *p = name; *p == '_' && p - name < 9; p++)
		rank++;
	return rank;
}

static void release_symbols(struct elfsym *e)
{
	hugemem__release(e->syms, e->syms_cap * sizeof(*e->syms));
	hugemem__release(e->names, e->names_cap);
}

/* Adds a symbol named by the len bytes at name; false when out of memory. */
static bool add_sym(struct elfsym *e, const char *name, size_t len, uint64_t start, uint64_t end, int rank)
{
	if (e->n == e->syms_cap) {
		size_t cap = e->syms_cap ? e->syms_cap * 2 : 256;
		/* a big program's symbols are MBs: in huge pages, not a page fault per 4 KB */
		struct sym *v = hugemem__grow(e->syms, e->syms_cap * sizeof(*v), cap * sizeof(*v));

		if (!v)
			return false;
		e->syms = v;
		e->syms_cap = cap;
	}
	if (e->names_len + len + 1 > e->names_cap) {
		size_t cap = e->names_cap ? e->names_cap * 2 : 4096;
		char *names;

		while (cap < e->names_len + len + 1)
			cap *= 2;
		if (!(names = hugemem__grow(e->names, e->names_cap, cap)))
			return false;
		e->names = names;
		e->names_cap = cap;
	}
	memcpy(e->names + e->names_len, name, len);
	e->names[e->names_len + len] = 0;
	/* offsets for now: names may still move */
	e->syms[e->n++] = (struct sym){ start, end, (const char *)(uintptr_t)e->names_len, rank };
	e->names_len += len + 1;
	return true;
}

/* Adds the function symbols of the symbol table of type type; the count added. */
static size_t read_symbols(struct elfsym *e, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t added = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym s;
			const char *name;
			size_t len;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_value == 0)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			/* memcpy@@GLIBC_2.14 is memcpy: the version is no part of the name */
			len = strcspn(name, "@") + 1;
			if (len == 1)
				continue;
			if (!add_sym(e, name, len - 1, s.st_value, s.st_value + s.st_size,
				     alias_rank(name, GELF_ST_BIND(s.st_info))))
				return added;
			added++;
		}
	}
	return added;
}

/* A GOT slot the dynamic linker fills with the address of a named function. */
struct got_slot {
	uint64_t addr;
	const char *name;	/* in the ELF's string table */
};

static int cmp_got_slot(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The GOT slots of functions (JUMP_SLOT, GLOB_DAT relocations), sorted; NULL if none. */
static struct got_slot *got_slots(Elf *elf, size_t *n)
{
	struct got_slot *slots = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, symsh;

	*n = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *symscn;
		Elf_Data *d, *symd;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    symsh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)) ||
		    !(symd = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrela(d, (int)i, &rela) ||
			    (GELF_R_TYPE(rela.r_info) != R_X86_64_JUMP_SLOT &&
			     GELF_R_TYPE(rela.r_info) != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(symd, (int)GELF_R_SYM(rela.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
				continue;
			if (*n == cap) {
				struct got_slot *v = realloc(slots, (cap = cap ? cap * 2 : 64) * sizeof(*v));

				if (!v)
					break;
				slots = v;
			}
			slots[(*n)++] = (struct got_slot){ rela.r_offset, name };
		}
	}
	if (*n)
		qsort(slots, *n, sizeof(*slots), cmp_got_slot);
	return slots;
}

/*
 * Names the entries of the PLT sections (.plt, .plt.sec, .plt.got) NAME@plt,
 * as perf does: no symbol table has them. Each entry jumps through a GOT slot
 * (jmp *disp(%rip), ff 25) whose relocation names the function; the lazy PLT's
 * first entry, and its entries when .plt.sec holds the jumps, have none.
 */
static void read_plt(struct elfsym *e, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx, nslots;
	struct got_slot *slots;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    !(slots = got_slots(elf, &nslots)))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *section;
		const unsigned char *code;
		Elf_Data *d;
		size_t entry;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(section = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(section, ".plt", 4) != 0 ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		code = d->d_buf;
		entry = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize : 16;
		for (size_t at = 0; at + entry <= sh.sh_size; at += entry) {
			for (size_t j = at; j + 6 <= at + entry; j++) {
				int32_t disp;
				struct got_slot key, *slot;
				char name[256];
				int len;

				if (code[j] != 0xff || code[j + 1] != 0x25)
					continue;
				memcpy(&disp, code + j + 2, 4);
				key.addr = sh.sh_addr + j + 6 + (uint64_t)(int64_t)disp;
				slot = bsearch(&key, slots, nslots, sizeof(*slots), cmp_got_slot);
				len = slot ? snprintf(name, sizeof(name), "%.*s@plt", (int)strcspn(slot->name, "@"),
						      slot->name) : 0;
				if (len > 0 && len < (int)sizeof(name))
					add_sym(e, name, (size_t)len, sh.sh_addr + at, sh.sh_addr + at + entry, PLT_RANK);
				break;
			}
		}
	}
	free(slots);
}

static void finish(struct elfsym *e)
{
	for (size_t i = 0; i < e->n; i++)
		e->syms[i].name = e->names + (uintptr_t)e->syms[i].name;
	if (e->n)
		qsort(e->syms, e->n, sizeof(*e->syms), cmp_sym);
	/* unsized symbols end where the next one starts */
	for (size_t i = 0; i < e->n; i++)
		if (e->syms[i].end <= e->syms[i].start)
			e->syms[i].end = i + 1 < e->n ? e->syms[i + 1].start : e->syms[i].start + 1;
}

/* Does the code at a function's start set up a frame pointer: [endbr64;] push %rbp; mov %rsp,%rbp? */
static bool fp_prologue(const unsigned char *c, size_t n)
{
	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		c += 4, n -= 4;
	if (n < 4 || c[0] != 0x55)
		return false;
	/* push %rbp, then mov %rsp,%rbp, which GCC may schedule a few instructions later */
	for (size_t i = 1; i + 3 <= n && i < 24; i++)
		if (c[i] == 0x48 && c[i + 1] == 0x89 && c[i + 2] == 0xe5)
			return true;
	return false;
}

static int cmp_size_desc(const void *a, const void *b)
{
	const GElf_Sym *x = a, *y = b;

	return (x->st_size < y->st_size) - (x->st_size > y->st_size);
}

/* The bytes of function sym, read alone (not its whole section: cc1's .text is 20 MB), or NULL. */
static const unsigned char *function_bytes(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *code = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;
	Elf_Data *d;
	uint64_t off;

	if (!code || !gelf_getshdr(code, &sh) || sh.sh_type != SHT_PROGBITS || sym->st_value < sh.sh_addr)
		return NULL;
	off = sym->st_value - sh.sh_addr;
	if (off > sh.sh_size || sym->st_size > sh.sh_size - off ||
	    !(d = elf_getdata_rawchunk(elf, (int64_t)(sh.sh_offset + off), sym->st_size, ELF_T_BYTE)) ||
	    !d->d_buf || d->d_size < sym->st_size)
		return NULL;
	return d->d_buf;
}

/* The share of the 50 biggest non-leaf functions of .symtab that set up a frame pointer. */
static int frame_pointer_share(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym *funcs = NULL;
	size_t n = 0, cap = 0, with = 0, checked = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_size < 16)
				continue;
			if (n == cap) {
				GElf_Sym *v = realloc(funcs, (cap = cap ? cap * 2 : 256) * sizeof(*v));

				if (!v)
					break;
				funcs = v;
			}
			funcs[n++] = sym;
		}
	}
	if (n)
		qsort(funcs, n, sizeof(*funcs), cmp_size_desc);
	for (size_t i = 0; i < n && checked < 50; i++) {
		const unsigned char *body = function_bytes(elf, &funcs[i]);

		if (!body)
			continue;
		/* leaves may go without a frame even when built with frame pointers: count callers (a call opcode) */
		if (!memchr(body, 0xe8, funcs[i].st_size))
			continue;
		checked++;
		with += fp_prologue(body, funcs[i].st_size);
	}
	free(funcs);
	return checked >= 2 ? (int)(100 * with / checked) : -1;
}

static int load_symbols_from(struct elfsym *e, const char *path, bool debug)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	size_t n;

	if (fd < 0)
		return -errno;
	/* read, not mapped: a file cut short while it is read (cp over it) would SIGBUS lp-record */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	if (!debug) {
		read_layout(e, elf);
		e->fp_share = frame_pointer_share(elf);
	}
	n = read_symbols(e, elf, SHT_SYMTAB);
	if (n == 0 && !debug)
		n = read_symbols(e, elf, SHT_DYNSYM);
	if (!debug)
		read_plt(e, elf);
	elf_end(elf);
	close(fd);
	return (int)n;
}

/* The separate debug file, by build id, then by debug link. */
static int load_debug_file(struct elfsym *e, const char *path, const char *root)
{
	char file[4096];
	int ret = -ENOENT;

	if (e->build_id_len > 1) {
		int o = snprintf(file, sizeof(file), "%s/.build-id/%02x/", root, e->build_id[0]);

		for (size_t i = 1; i < e->build_id_len && o < (int)sizeof(file) - 8; i++)
			o += snprintf(file + o, sizeof(file) - (size_t)o, "%02x", e->build_id[i]);
		snprintf(file + o, sizeof(file) - (size_t)o, ".debug");
		ret = load_symbols_from(e, file, true);
	}
	if (ret <= 0 && e->debuglink[0]) {
		const char *slash = strrchr(path, '/');
		int dir = slash ? (int)(slash - path) : 0;

		snprintf(file, sizeof(file), "%s%.*s/%s", root, dir, path, e->debuglink);
		ret = load_symbols_from(e, file, true);
		if (ret <= 0) {
			snprintf(file, sizeof(file), "%.*s/.debug/%s", dir, path, e->debuglink);
			ret = load_symbols_from(e, file, true);
		}
	}
	return ret;
}

struct elfsym *elfsym__load(const char *path, const char *debug_root)
{
	struct elfsym *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return NULL;
	elf_version(EV_CURRENT);
	ret = load_symbols_from(e, path, false);
	if (ret < 0) {
		elfsym__free(e);
		errno = -ret;
		return NULL;
	}
	/* a stripped file: its .symtab may be in a debug file (dynsym has only exports) */
	if (debug_root) {
		struct elfsym d = { 0 };

		memcpy(d.build_id, e->build_id, sizeof(e->build_id));
		d.build_id_len = e->build_id_len;
		memcpy(d.debuglink, e->debuglink, sizeof(e->debuglink));
		if (load_debug_file(&d, path, debug_root) > 0) {
			for (size_t i = 0; i < e->n; i++)
				if (e->syms[i].rank == PLT_RANK)
					add_sym(&d, e->names + (uintptr_t)e->syms[i].name,
						strlen(e->names + (uintptr_t)e->syms[i].name), e->syms[i].start,
						e->syms[i].end, PLT_RANK);
			release_symbols(e);
			e->syms = d.syms;
			e->n = d.n;
			e->syms_cap = d.syms_cap;
			e->names = d.names;
			e->names_len = d.names_len;
			e->names_cap = d.names_cap;
		} else {
			release_symbols(&d);
		}
	}
	finish(e);
	return e;
}

struct elfsym *elfsym__load_memory(const void *image, size_t size)
{
	struct elfsym *e = calloc(1, sizeof(*e));
	Elf *elf;

	if (!e)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		free(e);
		errno = ENOEXEC;
		return NULL;
	}
	read_layout(e, elf);
	if (read_symbols(e, elf, SHT_SYMTAB) == 0)
		read_symbols(e, elf, SHT_DYNSYM);
	elf_end(elf);
	finish(e);
	return e;
}

void elfsym__free(struct elfsym *e)
{
	if (!e)
		return;
	release_symbols(e);
	free(e->segs);
	free(e);
}

bool elfsym__offset_to_addr(const struct elfsym *e, uint64_t offset, uint64_t *addr)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct segment *s = &e->segs[i];

		if (offset >= s->offset && offset < s->offset + s->filesz) {
			*addr = offset - s->offset + s->vaddr;
			return true;
		}
	}
	*addr = 0;
	return false;
}

const char *elfsym__lookup(const struct elfsym *e, uint64_t addr)
{
	size_t lo = 0, hi = e->n;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* among equal starts the first sorted is preferred */
	for (size_t i = lo - 1;; i--) {
		if (i == 0 || e->syms[i - 1].start != e->syms[lo - 1].start) {
			return addr < e->syms[i].end ? e->syms[i].name : NULL;
		}
	}
}

int elfsym__frame_pointer_share(const struct elfsym *e)
{
	return e->fp_share;
}

uint64_t elfsym__entry(const struct elfsym *e)
{
	return e->entry;
}
