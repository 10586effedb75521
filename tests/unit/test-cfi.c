/*
 * CFI rules given as DWARF expressions: a lazy PLT entry's CFA depends on
 * where in the entry the sample is (before or after its push), which
 * x86-64's CFI says as rsp + 8 + ((rip & 15) >= 11) * 8. A sample there
 * must give the entry's caller, not stop the unwinding.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cfi.h"
#include "tap.h"

/* The file address of this program's section name, 0 when it has none. */
static uint64_t section_addr(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t addr = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name)) {
				addr = sh.sh_addr;
				*size = sh.sh_size;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

int main(void)
{
#if defined(__x86_64__)
	char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	uint64_t plt_size = 0, plt = 0, words[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	const uint64_t base = 0x7ffd0000;
	struct user_regs regs, caller;
	struct cfi *c;

	if (len > 0)
		path[len] = 0;
	if (len > 0)
		plt = section_addr(path, ".plt", &plt_size);
	if (!plt || plt_size < 32 || plt % 16) {
		printf("1..0 # SKIP this test program has no lazy PLT entries\n");
		return 0;
	}
	c = cfi__open(path);
	ok(c != NULL, "this program's CFI");
	/* the second entry (the first is the resolver's): at its jmp, then after its push */
	regs = (struct user_regs){ .ip = plt + 16 + 3, .sp = base, .bp = 0xb0 };
	ok(c && cfi__step(c, plt + 16 + 3, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x1111 && caller.sp == base + 8 && caller.bp == 0xb0,
	   "before its push: the return address on top of the stack");
	regs.ip = plt + 16 + 12;
	ok(c && cfi__step(c, plt + 16 + 12, &regs, (const uint8_t *)words, sizeof(words), base, &caller) == 0 &&
		   caller.ip == 0x2222 && caller.sp == base + 16,
	   "after it: the return address under the pushed index");
	cfi__free(c);
	return tap_done();
#else
	printf("1..0 # SKIP the PLT expression is x86-64's\n");
	return 0;
#endif
}
