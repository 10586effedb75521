/*
 * Unwinding by a file's call frame information (.eh_frame), from the user
 * registers and a snapshot of the stack taken with the sample. This recovers the caller that
 * frame-pointer walking loses when the sampled function has no frame of its
 * own (leaf functions, Debian's libc).
 */
#ifndef LP_CFI_H
#define LP_CFI_H

#include <stddef.h>
#include <stdint.h>

struct cfi;

/* NULL+errno if path has no usable call frame information. */
struct cfi *cfi__open(const char *path);
/* The same for an ELF image in memory (the vdso). */
struct cfi *cfi__open_memory(const void *image, size_t size);
void cfi__free(struct cfi *c);

struct user_regs {
	uint64_t ip, sp, bp;
};

/*
 * One step of unwinding the frame at pc (an address of the file, as symbols
 * use), with regs its registers and stack the bytes from stack_base: the
 * caller's registers (ip = the return address, sp = the CFA, bp restored if
 * the frame saved it). 0, or -ENOENT (no rule covers pc), -ERANGE (a saved
 * value is outside the snapshot), -ENOTSUP (a rule this does not evaluate),
 * -ENODATA at the outermost frame (its return address is undefined).
 */
int cfi__step(struct cfi *c, uint64_t pc, const struct user_regs *regs, const uint8_t *stack,
	      size_t size, uint64_t stack_base, struct user_regs *caller);

#endif
