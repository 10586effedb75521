/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Turning addresses into names, as processes were at the time: each process's
 * executable mappings (from MMAP2 records, copied at fork, cleared at exec),
 * ELF symbols cached per file, the kernel's symbols, JIT maps.
 */
#ifndef LP_SYMBOLIZER_H
#define LP_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"
#include "symbols/demangle.h"
#include "base/strbuf.h"

struct symbolizer;

/* Warnings (a missing JIT map, unreadable kernel symbols...), once each. */

struct symbolizer *symbolizer__new(lp_warn_fn warn, void *ctx);
void symbolizer__free(struct symbolizer *s);
/* How C++ names are shown (demangle.h; DEMANGLE_SHORT unless set): before the first frame is named. */
void symbolizer__set_demangle(struct symbolizer *s, enum demangle_style style);

/*
 * A mapping of path (its device and inode, 0 if unknown) into pid. Files are
 * cached by device and inode where known: one file under two names (a
 * hard link, /lib and /usr/lib) is read once.
 */
int symbolizer__mmap(struct symbolizer *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, uint64_t dev, uint64_t ino);
/*
 * Reads the symbols and CFI of the file a mapping maps (as symbolizer__mmap
 * names it) now, not at its first frame: 0 (a file that cannot be read is
 * as it would be then), or -ENOMEM.
 */
int symbolizer__load(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino);
/*
 * Holds the file a mapping maps open until it is read (at its first frame),
 * so that it is read even if it is deleted or copied over before then (a
 * live recording reads files late); the first few hundred files only. 0
 * (a file that cannot be opened is read by path as before), or -ENOMEM.
 */
int symbolizer__hold(struct symbolizer *s, const char *path, uint64_t dev, uint64_t ino);
/*
 * The key a file is known by where its inode is: into key (SYMBOLIZER_KEY_MAX
 * bytes), its length; 0 where ino is 0 (the file is known by its path).
 */
enum { SYMBOLIZER_KEY_MAX = 48 };
size_t symbolizer__file_key(char *key, uint64_t dev, uint64_t ino);
/*
 * Makes the cache of rendered chains ready for about n different ones now,
 * its memory faulted in, rather than page by page as symbolizer__chain
 * fills it: 0 or -ENOMEM.
 */
int symbolizer__expect_chains(struct symbolizer *s, size_t n);
/*
 * The part of the cache of rendered chains that its next ahead bytes will
 * fill, not faulted in and not given out before: for another thread to
 * fault in meanwhile (prefaulter.h). Its length, 0 for none (*p unset).
 */
size_t symbolizer__chain_text_ahead(struct symbolizer *s, size_t ahead, void **p);
int symbolizer__fork(struct symbolizer *s, pid_t parent, pid_t child);
int symbolizer__exec(struct symbolizer *s, pid_t pid);

/*
 * Appends the frame at ip to stack and locs (escaped list items). kernel: a
 * kernel address. precise: the sampled instruction itself rather than a
 * return address (which is looked up one byte back, inside the call).
 */
int symbolizer__frame(struct symbolizer *s, pid_t pid, uint64_t ip, bool kernel, bool precise,
		      struct strbuf *stack, struct strbuf *locs);

struct sym_frame {
	uint64_t ip;
	bool kernel, precise;
};

/*
 * The root frame of a stack whose unwinding could not go on: it reached an
 * address that is not code, a frame-pointer chain left the stack, or one
 * ended where CFI says no frame pointer is kept. A user frame at
 * SYM_STOPPED_IP asks symbolizer__chain for it.
 */
#define SYM_UNWIND_STOPPED "[unwind stopped]"
/*
 * The on-CPU time of a thread that no sample stands for (its exact time
 * less its samples'): a thread too short to be sampled, the time after its
 * last sample. Its only frame, so totals are the kernel's.
 */
#define SYM_NOT_SAMPLED "[not sampled]"
/* The leaf of an off-CPU stack whose kernel frames were asked for and never seen. */
#define SYM_KERNEL_UNSEEN "[kernel stack unseen]"
#define SYM_STOPPED_IP 0

/* What symbolizer__chain says of the stack it wrote */
enum {
	SYM_CHAIN_STOPPED = 1,		/* it starts at SYM_UNWIND_STOPPED */
	SYM_CHAIN_COMPLETED = 2,	/* roots put its first entry's callers in front */
	/* it starts at an entry whose callers roots has not seen yet */
	SYM_CHAIN_ROOT_PENDING = 4,
};

struct stack_roots;

/*
 * Writes a whole callchain, frames[n - 1] (the root) first and frames[0] (the
 * leaf) last, as symbolizer__frame would frame by frame, except that a
 * return address (a frame not precise) in no executable mapping of pid ends
 * the stack there: it and its callers become one SYM_UNWIND_STOPPED frame.
 * Then, with roots (the same for every call, or always NULL), completes it
 * as stack_roots__complete does: chains of callers are kept as completed.
 * SYM_CHAIN_* flags, or -errno.
 */
int symbolizer__chain(struct symbolizer *s, pid_t pid, const struct sym_frame *frames, size_t n,
		      struct stack_roots *roots, struct strbuf *stack, struct strbuf *locs);

/*
 * The callers frames[1..n) of a chain as symbolizer__chain with roots kept
 * them, completed: their STACK and LOCS text in its cache (valid while s
 * is), to be joined with the leaf's (symbolizer__frame) by ';'. Their
 * SYM_CHAIN_* flags, or -ENOENT when they are not kept so (symbolizer__chain
 * writes the chain then).
 */
int symbolizer__cached_callers(struct symbolizer *s, pid_t pid, const struct sym_frame *frames, size_t n,
			       const char **stack, size_t *stack_len, const char **locs, size_t *locs_len);

/*
 * What the function at ip of pid does with %rbp there, by its CFI: ip a
 * return address (the call before it is looked at), or with sampled the
 * instruction a sample interrupted.
 */
enum sym_frame_kind {
	SYM_FRAME_UNKNOWN,	/* no CFI, or rules too complex to say */
	/*
	 * In the stub at its file's entry point (the dynamic loader's _start
	 * has no CFI): the first frame of the process, so the stack is whole.
	 */
	SYM_FRAME_ENTRY,
	SYM_FRAME_POINTER,	/* its frame is found from %rbp: a frame record */
	/*
	 * Its frame is found from %rsp and %rbp is left alone: %rbp is still
	 * some caller's frame pointer, if any. A frame-pointer walk that ends
	 * here lost this function's callers: they are unknown, not absent.
	 */
	SYM_FRAME_NONE,
	/*
	 * Its frame is found from %rsp and it saved %rbp to use it as any
	 * register (gcc's cc1, Debian's make): what %rbp held as it called is
	 * no frame record, and a walk from there reads stack data.
	 */
	SYM_FRAME_SCRATCH,
};
enum sym_frame_kind symbolizer__frame_kind(struct symbolizer *s, pid_t pid, uint64_t ip, bool sampled);

/* Whether user address addr lies in a mapping of pid (code or not). */
bool symbolizer__maps(struct symbolizer *s, pid_t pid, uint64_t addr);

/*
 * Whether return addresses a and b of pid return into one function: by its
 * symbol, or where no symbol names either (a stripped file) by its FDE.
 */
bool symbolizer__same_function(struct symbolizer *s, pid_t pid, uint64_t a, uint64_t b);

/* elfsym__frame_pointer_share of a file, or -1. */
int symbolizer__frame_pointer_share(struct symbolizer *s, const char *path);

struct user_regs;

/* Why unwinding ended. */
enum sym_unwind_end {
	SYM_UNWIND_OUTERMOST = 1,	/* the last caller has none: the whole stack */
	SYM_UNWIND_PAST_COPY,		/* a frame's return address is beyond the stack copied */
	SYM_UNWIND_JOINED,		/* met the frame-pointer chain, right from there */
	SYM_UNWIND_NO_RULE,		/* no CFI, a rule not evaluated, a bad address */
	SYM_UNWIND_MAX,			/* max callers found: there may be more (symbolizer__unwind_on) */
};

/*
 * Unwinds by CFI from regs while the stack snapshot lasts: the return
 * addresses found (callers of regs->ip, nearest first), at most max (64 at
 * most). The count, and in *end why it stopped; bit i of *exact_ras set
 * where ras[i] is no return address but an address to name as it is (a
 * signal handler's trampoline and the instruction the signal interrupted).
 * Stops once two return addresses in a row are two in a row of known (the
 * frame-pointer chain): from there that chain is right. cfas, unless NULL,
 * gets each caller's stack pointer (where its callee's frame ended): which
 * frame of the stack each return address was read from. last_bp, unless
 * NULL, gets the last caller's %rbp: with its return address and stack
 * pointer, where symbolizer__unwind_on goes on from after SYM_UNWIND_MAX.
 */
size_t symbolizer__unwind(struct symbolizer *s, pid_t pid, const struct user_regs *regs,
			  const uint8_t *stack, size_t size, uint64_t *ras, size_t max, uint64_t *exact_ras,
			  enum sym_unwind_end *end, const uint64_t *known, size_t nknown, uint64_t *cfas,
			  uint64_t *last_bp);

/*
 * symbolizer__unwind from a caller's frame: ra the return address into it
 * (one past the instruction where it is an exact address), sp its stack
 * pointer once its callee returned, bp its %rbp then (a frame-pointer walk
 * found it: what the callee's record saved; or symbolizer__unwind's
 * last_bp); stack the bytes from sp. The callers of that frame, as
 * symbolizer__unwind's.
 */
size_t symbolizer__unwind_on(struct symbolizer *s, pid_t pid, uint64_t ra, uint64_t sp, uint64_t bp,
			     const uint8_t *stack, size_t size, uint64_t *ras, size_t max, uint64_t *exact_ras,
			     enum sym_unwind_end *end, uint64_t *cfas, uint64_t *last_bp);

#endif
