/* SPDX-License-Identifier: GPL-2.0-or-later */
/* USDT probes from an ELF file's .note.stapsdt, and their arguments' operands. */
#include "symbols/sdt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/numparse.h"

enum { NT_STAPSDT = 3 };

/* The file offset of address addr: in the PT_LOAD segment that holds it. */
static int addr_to_offset(Elf *elf, uint64_t addr, uint64_t *offset)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	return -EINVAL;
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* One note's probe: 3 addresses of the file's class, then provider, name and arguments, each ending in 0. */
static int probe_of(Elf *elf, const char *desc, size_t size, int64_t base_shift, struct sdt_probe *p)
{
	size_t w = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8, at = 3 * w;
	uint64_t a[3] = { 0 };
	const char *strs[3];

	if (size < at)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		if (w == 8) {
			memcpy(&a[i], desc + i * w, 8);
		} else {
			uint32_t v;

			memcpy(&v, desc + i * w, 4);
			a[i] = v;
		}
	}
	for (int i = 0; i < 3; i++) {
		const char *end = memchr(desc + at, 0, size - at);

		if (!end)
			return -EINVAL;
		strs[i] = desc + at;
		at = (size_t)(end - desc) + 1;
	}
	p->provider = strs[0];
	p->name = strs[1];
	p->args = strs[2];
	p->semaphore = a[2] ? a[2] + (uint64_t)base_shift : 0;
	return addr_to_offset(elf, a[0] + (uint64_t)base_shift, &p->offset);
}

int sdt__each(const char *path, int (*fn)(void *ctx, const struct sdt_probe *p), void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf *elf = NULL;
	Elf_Scn *notes, *base;
	GElf_Shdr sh, bsh;
	Elf_Data *data;
	int64_t shift = 0;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto cleanup;
	}
	if (!(notes = section_named(elf, ".note.stapsdt", &sh)) || sh.sh_type != SHT_NOTE ||
	    !(data = elf_getdata(notes, NULL)))
		goto cleanup;
	/* the notes were written for .stapsdt.base where the linker put it; prelink may have moved it */
	base = section_named(elf, ".stapsdt.base", &bsh);
	for (size_t off = 0, name_off, desc_off; ret == 0;) {
		GElf_Nhdr nh;
		struct sdt_probe p;
		size_t next = gelf_getnote(data, off, &nh, &name_off, &desc_off);

		if (next == 0)
			break;
		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 || memcmp((char *)data->d_buf + name_off, "stapsdt", 8) != 0)
			continue;
		if (base && nh.n_descsz >= 16) {
			uint64_t note_base = 0;

			if (gelf_getclass(elf) == ELFCLASS32) {
				uint32_t v;

				memcpy(&v, (char *)data->d_buf + desc_off + 4, 4);
				note_base = v;
			} else {
				memcpy(&note_base, (char *)data->d_buf + desc_off + 8, 8);
			}
			shift = note_base ? (int64_t)(bsh.sh_addr - note_base) : 0;
		}
		if ((ret = probe_of(elf, (char *)data->d_buf + desc_off, nh.n_descsz, shift, &p)) < 0)
			break;
		ret = fn(ctx, &p);
	}
cleanup:
	elf_end(elf);
	close(fd);
	return ret;
}

/* ---- operands: "SIZE@OPERAND" ---- */

#if defined(__x86_64__)
/* perf's x86-64 register numbers, and each register's names in operands */
static const struct {
	const char *names[4];
	int reg;
} regs[] = {
	{ { "rax", "eax", "ax", "al" }, 0 }, { { "rbx", "ebx", "bx", "bl" }, 1 },
	{ { "rcx", "ecx", "cx", "cl" }, 2 }, { { "rdx", "edx", "dx", "dl" }, 3 },
	{ { "rsi", "esi", "si", "sil" }, 4 }, { { "rdi", "edi", "di", "dil" }, 5 },
	{ { "rbp", "ebp", "bp", "bpl" }, 6 }, { { "rsp", "esp", "sp", "spl" }, 7 },
	{ { "rip", "eip", NULL, NULL }, 8 },
};

static int reg_named(const char *s, size_t len)
{
	char buf[8];

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int k = 0; k < 4; k++)
			if (regs[i].names[k] && strcmp(buf, regs[i].names[k]) == 0)
				return regs[i].reg;
	/* r8..r15, with b, w or d */
	if (buf[0] == 'r' && isdigit((unsigned char)buf[1])) {
		char *end;
		long n = strtol(buf + 1, &end, 10);

		if (n >= 8 && n <= 15 && (*end == 0 || ((*end == 'b' || *end == 'w' || *end == 'd') && end[1] == 0)))
			return (int)(16 + n - 8);
	}
	return -1;
}

/* %reg, $imm, disp(%reg) */
static int operand(const char *s, size_t len, struct sdt_arg *a)
{
	const char *paren = memchr(s, '(', len);
	int64_t v = 0;

	if (len > 1 && s[0] == '%') {
		a->kind = SDT_ARG_REG;
		return (a->reg = reg_named(s + 1, len - 1)) < 0 ? -EINVAL : 0;
	}
	if (len > 1 && s[0] == '$') {
		a->kind = SDT_ARG_CONST;
		return numparse__i64(s + 1, len - 1, &a->value) < 0 ? -EINVAL : 0;
	}
	if (!paren || s[len - 1] != ')' || paren[1] != '%')
		return -EINVAL;
	if (paren > s && numparse__i64(s, (size_t)(paren - s), &v) < 0)
		return -EINVAL;
	a->kind = SDT_ARG_MEM;
	a->value = v;
	return (a->reg = reg_named(paren + 2, (size_t)(s + len - 1 - (paren + 2)))) < 0 ? -EINVAL : 0;
}
#elif defined(__aarch64__)
/* x0..x30 (w too), sp; perf's numbers: xN N, sp 31 */
static int reg_named(const char *s, size_t len)
{
	uint64_t n;

	if (len == 2 && memcmp(s, "sp", 2) == 0)
		return 31;
	if (len >= 2 && (s[0] == 'x' || s[0] == 'w') && numparse__u64(s + 1, len - 1, &n) == 0 && n <= 30)
		return (int)n;
	return -1;
}

/* xN, #imm or N, [reg], [reg, disp] */
static int operand(const char *s, size_t len, struct sdt_arg *a)
{
	const char *comma;

	if (len > 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
		a->kind = SDT_ARG_MEM;
		a->value = 0;
		if ((comma = memchr(s, ',', len))) {
			const char *d = comma + 1;

			while (*d == ' ')
				d++;
			if (numparse__i64(d, (size_t)(s + len - d), &a->value) < 0)
				return -EINVAL;
			len = (size_t)(comma - s);
		}
		return (a->reg = reg_named(s, len)) < 0 ? -EINVAL : 0;
	}
	if ((a->reg = reg_named(s, len)) >= 0) {
		a->kind = SDT_ARG_REG;
		return 0;
	}
	a->kind = SDT_ARG_CONST;
	if (len && s[0] == '#') {
		s++;
		len--;
	}
	return numparse__i64(s, len, &a->value) < 0 ? -EINVAL : 0;
}
#else
static int operand(const char *s, size_t len, struct sdt_arg *a)
{
	(void)s;
	(void)len;
	(void)a;
	return -EINVAL;
}
#endif

int sdt_arg__parse(const char *args, int n, struct sdt_arg *a)
{
	const char *s = args, *at, *end;
	int64_t size;

	for (int i = 0;; i++) {
		while (*s == ' ')
			s++;
		if (!*s)
			return -ENOENT;
		/* an operand may hold a space ("[sp, 8]"): it ends at the next " SIZE@" */
		end = s;
		for (;;) {
			end = strchr(end, ' ');
			if (!end) {
				end = s + strlen(s);
				break;
			}
			{
				const char *t = end + 1;

				if (*t == '-')
					t++;
				while (isdigit((unsigned char)*t))
					t++;
				if (t > end + 1 && *t == '@')
					break;
			}
			end++;
		}
		if (i == n)
			break;
		s = end;
	}
	if (!(at = memchr(s, '@', (size_t)(end - s))) || numparse__i64(s, (size_t)(at - s), &size) < 0 || size == 0 ||
	    size < -8 || size > 8)
		return -EINVAL;
	a->size = (int)size;
	return operand(at + 1, (size_t)(end - at - 1), a);
}
