/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the symbolizer's files share: its processes, files and caches.
 * Private to lib/symbols/.
 *
 *   symbolizer.c   processes' address spaces, files read, frames named, chains cached
 *   unwind.c       unwinding a stack copy with CFI, and what CFI says of a frame
 */
#ifndef LP_SYMBOLIZER_INT_H
#define LP_SYMBOLIZER_INT_H

#include "symbols/symbolizer.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/cfi.h"
#include "symbols/elfsym.h"
#include "base/htab.h"
#include "symbols/kallsyms.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"
#include "base/strbuf.h"

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
	enum demangle_style demangle;
	struct htab rules;
	struct htab frames;
	struct strbuf cache_text;
	struct htab chains;
	char *chain_text;	/* CHAIN_CACHE_BYTES reserved at the first chain kept */
	size_t chain_text_len;
	size_t chain_text_ready;	/* faulted in, or given out to be (symbolizer__chain_text_ahead) */
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

struct process *symbolizer__process(struct symbolizer *s, pid_t pid, bool create);
struct cfi *symbolizer__file_cfi(struct symbolizer *s, struct file *f);
struct elfsym *symbolizer__file_symbols(struct symbolizer *s, struct file *f);
struct mapping *symbolizer__mapping_at(struct process *p, uint64_t addr);

#endif
