/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/srcline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/stackmap.h"

/* One ELF file's line tables, through a libdwfl session of its own. */
struct dso_lines {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	const char *failed;	/* why it has no lines, or NULL */
	bool told;
};

struct dso_slot {
	struct htab_entry head;
	struct dso_lines *d;
};

struct addr_slot {
	struct htab_entry head;
	const struct dso_lines *d;
	uint64_t addr;
	const char *file;	/* NULL: no line */
	const char *path;
	int line;		/* -1: not looked up yet */
	int ninlined;		/* -1: not looked up yet */
	struct srcline *inlined;
};

struct srclines {
	struct htab dsos, addrs;
	struct stackmap *names;	/* file names, NUL-terminated keys */
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct srclines *srclines__new(void)
{
	struct srclines *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dsos = HTAB_INIT(struct dso_slot);
	s->addrs = HTAB_INIT(struct addr_slot);
	s->names = stackmap__new();
	if (!s->names) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void srclines__free(struct srclines *s)
{
	struct dso_slot *e;

	if (!s)
		return;
	for (size_t i = 0; (e = htab__next(&s->dsos, &i));) {
		if (e->d->dwfl)
			dwfl_end(e->d->dwfl);
		free(e->d->path);
		free(e->d);
	}
	htab__release(&s->dsos);
	{
		struct addr_slot *a;

		for (size_t i = 0; (a = htab__next(&s->addrs, &i));)
			free(a->inlined);
	}
	htab__release(&s->addrs);
	stackmap__free(s->names);
	free(s);
}

static void open_lines(struct dso_lines *d)
{
	struct stat st;

	/* a stream names the files: never a FIFO or a device that would block or never end */
	if (stat(d->path, &st) != 0) {
		d->failed = "cannot read it";
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		d->failed = "not a regular file";
		return;
	}
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl) {
		d->failed = "libdw cannot start";
		return;
	}
	d->mod = dwfl_report_offline(d->dwfl, d->path, d->path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->mod) {
		d->failed = "cannot read it";
		return;
	}
	/* where libdwfl placed the file: its addresses are the file's own plus the bias */
	if (!dwfl_module_getdwarf(d->mod, &d->bias))
		d->failed = "no debug information (install its -dbgsym package, or build with -g)";
}

static struct dso_lines *dso_of(struct srclines *s, const char *path, size_t len)
{
	uint64_t h = hash_bytes(path, len);
	struct dso_slot *e;

	if (htab__reserve(&s->dsos) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&s->dsos, i))->head.used; i++)
		if (e->head.hash == h && strlen(e->d->path) == len && memcmp(e->d->path, path, len) == 0)
			return e->d;
	e->d = calloc(1, sizeof(*e->d));
	if (!e->d || !(e->d->path = strndup(path, len))) {
		free(e->d);
		return NULL;
	}
	htab__insert(&s->dsos, e, h);
	/* "[vdso]", "[kernel.kallsyms]", JIT maps: no file to read */
	if (path[0] != '/')
		e->d->failed = "not a file";
	else
		open_lines(e->d);
	return e->d;
}

static const char *intern(struct srclines *s, const char *name)
{
	struct stack_entry *e = stackmap__add(s->names, name, strlen(name) + 1, 0, 0);

	return e ? e->key : NULL;
}

/* A line's file, to read: a relative name is relative to its compilation unit's directory. */
static const char *source_path(struct srclines *s, Dwfl_Line *l, const char *file)
{
	Dwarf_Die *cu = dwfl_linecu(l);
	Dwarf_Attribute a;
	const char *dir = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)) : NULL;
	char *joined;
	const char *interned;

	if (file[0] == '/' || !dir)
		return file;
	if (asprintf(&joined, "%s/%s", dir, file) < 0)
		return NULL;
	interned = intern(s, joined);
	free(joined);
	return interned;
}

/* The cache slot of addr in d, made empty (line and inline chain not looked up) if new; NULL: no memory. */
static struct addr_slot *slot_of(struct srclines *s, const struct dso_lines *d, uint64_t addr)
{
	uint64_t h = hash_mix(hash_word((uint64_t)(uintptr_t)d, addr));
	struct addr_slot *e;

	if (htab__reserve(&s->addrs) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&s->addrs, i))->head.used; i++)
		if (e->head.hash == h && e->d == d && e->addr == addr)
			return e;
	htab__insert(&s->addrs, e, h);
	e->d = d;
	e->addr = addr;
	e->file = NULL;
	e->line = -1;
	e->ninlined = -1;
	e->inlined = NULL;
	return e;
}


int srclines__find(struct srclines *s, const char *path, size_t path_len, uint64_t addr, struct srcline *out,
		   const char **reason)
{
	struct dso_lines *d = dso_of(s, path, path_len);
	struct addr_slot *e;

	*reason = NULL;
	if (!d)
		return -ENOMEM;
	if (d->failed) {
		if (!d->told && strcmp(d->failed, "not a file") != 0)
			*reason = d->failed;
		d->told = true;
		return 0;
	}
	if (!(e = slot_of(s, d, addr)))
		return -ENOMEM;
	if (e->line < 0) {
		Dwfl_Line *l = dwfl_module_getsrc(d->mod, addr + d->bias);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;

		e->line = 0;
		if (file && line > 0) {
			if (!(e->file = intern(s, file)) || !(e->path = source_path(s, l, e->file)))
				return -ENOMEM;
			e->line = line;
		}
	}
	if (!e->file)
		return 0;
	out->file = e->file;
	out->path = e->path;
	out->line = e->line;
	return 1;
}

/* The inline chain's call sites at addr, innermost first, into out (room for max); how many. */
static int call_sites(struct srclines *s, const struct dso_lines *d, uint64_t addr, struct srcline *out, size_t max)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files;
	Dwarf_Addr cu_bias;
	size_t nfiles, n = 0;
	int nscopes;

	if (!(cu = dwfl_module_addrdie(d->mod, addr + d->bias, &cu_bias)) || dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		return 0;
	nscopes = dwarf_getscopes(cu, addr + d->bias - cu_bias, &scopes);
	for (int i = 0; i < nscopes && n < max; i++) {
		Dwarf_Attribute a;
		Dwarf_Word file, line;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &file) != 0 ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &line) != 0 || file >= nfiles ||
		    line == 0 || !(name = dwarf_filesrc(files, file, NULL, NULL)))
			continue;
		if (!(out[n].file = intern(s, name))) {
			free(scopes);
			return -ENOMEM;
		}
		out[n].path = out[n].file;
		out[n++].line = (int)line;
	}
	free(scopes);
	return (int)n;
}

int srclines__inlined_at(struct srclines *s, const char *path, size_t path_len, uint64_t addr, struct srcline *out,
			 size_t max)
{
	struct dso_lines *d = dso_of(s, path, path_len);
	struct srcline found[SRCLINE_MAX_INLINED];
	struct addr_slot *e;
	int n;

	if (!d)
		return -ENOMEM;
	if (d->failed)
		return 0;
	if (!(e = slot_of(s, d, addr)))
		return -ENOMEM;
	if (e->ninlined < 0) {
		if ((n = call_sites(s, d, addr, found, SRCLINE_MAX_INLINED)) < 0)
			return n;
		if (n) {
			if (!(e->inlined = malloc((size_t)n * sizeof(*found))))
				return -ENOMEM;
			memcpy(e->inlined, found, (size_t)n * sizeof(*found));
		}
		e->ninlined = n;
	}
	n = e->ninlined < (int)max ? e->ninlined : (int)max;
	if (n)
		memcpy(out, e->inlined, (size_t)n * sizeof(*out));
	return n;
}

int srclines__frame(struct srclines *s, const char *dso, size_t dso_len, uint64_t offset, bool leaf,
		    struct srcline *out, const char **reason)
{
	*reason = NULL;
	if (!dso_len || dso[0] == '[')
		return 0;
	return srclines__find(s, dso, dso_len, leaf || !offset ? offset : offset - 1, out, reason);
}
