/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * .eh_frame read without libdw against libdw's reading, address by address
 * through the code of real files: this test binary, the C library, the
 * dynamic loader, gcc's cc1 (no frame pointers, thousands of FDEs) and
 * LLVM's libclang-cpp (linked by lld) where they are installed. Every rule
 * the own reading gives must be libdw's; and it must give most of them, or
 * cfi__rule is libdw again with extra steps.
 * LP_TEST_EHFRAME_STRIDE=1 checks every byte (minutes; 7 by default).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/cfi.h"
#include "symbols/ehframe.h"
#include "tap.h"

/* ok() with a formatted name */
#define okf(cond, ...)                                          \
	do {                                                    \
		char name_[512];                                \
		snprintf(name_, sizeof(name_), __VA_ARGS__);    \
		tap_ok(!!(cond), name_, __FILE__, __LINE__);    \
	} while (0)

static bool same_rule(const struct cfi_rule *a, const struct cfi_rule *b)
{
	return a->simple == b->simple && a->cfa_reg == b->cfa_reg && a->bp_saved == b->bp_saved &&
	       a->outermost == b->outermost && a->signal == b->signal && a->cfa_off == b->cfa_off &&
	       (a->outermost || a->ra_off == b->ra_off) && (!a->bp_saved || a->bp_off == b->bp_off) &&
	       a->alt_saved == b->alt_saved && (a->alt_saved != 1 || a->alt_off == b->alt_off);
}

struct section {
	uint64_t addr, size;
};

struct image {
	int fd;
	Elf *elf;
	struct eh_frame *eh;
	struct section code[16];
	size_t ncode;
};

static bool open_image(const char *path, struct image *im)
{
	Elf_Scn *scn = NULL;

	memset(im, 0, sizeof(*im));
	elf_version(EV_CURRENT);
	if ((im->fd = open(path, O_RDONLY)) < 0)
		return false;
	if (!(im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL)))
		return false;
	while ((scn = elf_nextscn(im->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && im->ncode < 16)
			im->code[im->ncode++] = (struct section){ sh.sh_addr, sh.sh_size };
	}
	im->eh = eh_frame__from_elf(im->elf);
	return im->eh != NULL;
}

static void close_image(struct image *im)
{
	eh_frame__free(im->eh);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
}

static void compare(const char *path, uint64_t stride)
{
	struct image im;
	struct cfi *c = cfi__open(path);
	size_t addresses = 0, simple = 0, own = 0, wrong = 0, combined_wrong = 0, starts = 0, starts_wrong = 0;
	uint64_t first_wrong = 0;

	if (!c || !open_image(path, &im)) {
		okf(false, "%s: its .eh_frame and .eh_frame_hdr are read", path);
		cfi__free(c);
		return;
	}
	for (size_t s = 0; s < im.ncode; s++) {
		for (uint64_t pc = im.code[s].addr; pc < im.code[s].addr + im.code[s].size; pc += stride) {
			struct cfi_rule ref, mine, both;
			int ref_ret = cfi__rule_reference(c, pc, &ref);
			int mine_ret = eh_frame__rule(im.eh, pc, &mine);
			int both_ret = cfi__rule(c, pc, &both);

			uint64_t start, again;
			int start_ret = eh_frame__function_start(im.eh, pc, &start);

			addresses++;
			simple += ref_ret == 0 && ref.simple;
			/* where an FDE holds pc, it starts at or before pc, and holds its own start */
			if (start_ret == 0) {
				starts++;
				starts_wrong += start > pc || eh_frame__function_start(im.eh, start, &again) != 0 || again != start ||
						cfi__function_start(c, pc, &again) != 0 || again != start;
			} else if (start_ret == -ENOENT) {
				starts_wrong += ref_ret != -ENOENT;
			}
			if (mine_ret == 0) {
				own++;
				if (ref_ret != 0 || !same_rule(&mine, &ref)) {
					if (!wrong++)
						first_wrong = pc;
				}
			}
			if (both_ret != ref_ret || (both_ret == 0 && (both.simple != ref.simple || both.signal != ref.signal ||
								      (ref.simple && !same_rule(&both, &ref)))))
				combined_wrong++;
		}
	}
	okf(wrong == 0, "%s: every rule read without libdw is libdw's (%zu addresses, %zu rules read so, %zu wrong, the first at 0x%llx)",
	   path, addresses, own, wrong, (unsigned long long)first_wrong);
	okf(combined_wrong == 0, "%s: cfi__rule gives libdw's rule at every address (%zu differ)", path, combined_wrong);
	okf(own * 100 >= simple * 95, "%s: most simple rules are read without libdw (%zu of %zu)", path, own, simple);
	okf(starts >= own && starts_wrong == 0,
	    "%s: the function an FDE describes starts at or before each of its addresses, no FDE where libdw has none (%zu starts, %zu wrong)",
	    path, starts, starts_wrong);
	close_image(&im);
	cfi__free(c);
}

static int find_library(struct dl_phdr_info *info, size_t size, void *data)
{
	char **found = data;

	(void)size;
	if (strstr(info->dlpi_name, "/libc.so"))
		found[0] = strdup(info->dlpi_name);
	else if (strstr(info->dlpi_name, "/ld-linux"))
		found[1] = strdup(info->dlpi_name);
	return 0;
}

static void malformed(void)
{
	static const uint8_t bad_version[] = { 2, 0x1b, 0x03, 0x3b, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t other_table[] = { 1, 0x1b, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0 };
	/* one table entry whose FDE is past the end of a 4-byte .eh_frame */
	static const uint8_t past_end[] = { 1, 0x1b, 0x03, 0x3b, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0 };
	static const uint8_t eh[4] = { 0 };
	struct eh_frame *f;
	struct cfi_rule r;

	errno = 0;
	ok(!eh_frame__new(bad_version, sizeof(bad_version), 0x1000, eh, sizeof(eh), 0x2000) && errno == ENOTSUP,
	   "a table of another version is not read");
	errno = 0;
	ok(!eh_frame__new(other_table, sizeof(other_table), 0x1000, eh, sizeof(eh), 0x2000) && errno == ENOTSUP,
	   "a table in another encoding is not read");
	errno = 0;
	ok(!eh_frame__new(past_end, 10, 0x1000, eh, sizeof(eh), 0x2000) && errno == ENOTSUP,
	   "a table longer than its section is not read");
	f = eh_frame__new(past_end, sizeof(past_end), 0x1000, eh, sizeof(eh), 0x2000);
	ok(f && eh_frame__rule(f, 0x1000, &r) == -ENOTSUP, "an FDE outside .eh_frame is -ENOTSUP, not a read past it");
	ok(f && eh_frame__rule(f, 0xfff, &r) == -ENOENT, "an address before the first FDE has none");
	eh_frame__free(f);
	eh_frame__free(NULL);
}

int main(void)
{
	const char *env = getenv("LP_TEST_EHFRAME_STRIDE");
	uint64_t stride = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 7;
	char *libs[2] = { NULL, NULL };
	const char *cc1 = NULL;
	static const char *const cc1s[] = { "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/lib/gcc/x86_64-linux-gnu/13/cc1",
					     "/usr/lib/gcc/x86_64-linux-gnu/14/cc1" };

	malformed();
#if defined(__x86_64__)
	dl_iterate_phdr(find_library, libs);
	compare("/proc/self/exe", 1);
	if (libs[0])
		compare(libs[0], stride);
	else
		ok(false, "the C library is found");
	if (libs[1])
		compare(libs[1], 1);
	else
		ok(false, "the dynamic loader is found");
	for (size_t i = 0; i < sizeof(cc1s) / sizeof(cc1s[0]) && !cc1; i++)
		if (access(cc1s[i], R_OK) == 0)
			cc1 = cc1s[i];
	if (cc1)
		compare(cc1, stride * 13);
	else
		ok(1, "# SKIP gcc's cc1 is not installed");
	/* linked by LLVM's lld: its unwind tables are sections of type SHT_X86_64_UNWIND */
	if (access("/usr/lib/llvm-14/lib/libclang-cpp.so.14", R_OK) == 0)
		compare("/usr/lib/llvm-14/lib/libclang-cpp.so.14", stride * 29);
	else
		ok(1, "# SKIP LLVM 14's libclang-cpp is not installed");
#else
	ok(1, "# SKIP the own reading of .eh_frame is x86-64's");
#endif
	free(libs[0]);
	free(libs[1]);
	return tap_done();
}
