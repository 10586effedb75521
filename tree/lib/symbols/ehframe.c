/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/ehframe.h"

#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/arch.h"

/*
 * Every COARSE_STEP-th entry's initial location, in an array of its own: a
 * search through it stays in a few cache lines, and the one through the
 * table after it in one or two (cc1's table is 360 KB: a plain binary
 * search missed the cache at almost every one of its 16 steps).
 */
enum { COARSE_STEP = 16 };

struct eh_frame {
	const uint8_t *table;	/* .eh_frame_hdr's (initial location, FDE) pairs, sorted */
	size_t count;
	uint64_t *coarse;	/* initial locations of entries 0, COARSE_STEP, ... */
	size_t ncoarse;
	uint64_t hdr_addr;
	const uint8_t *eh;
	size_t eh_size;
	uint64_t eh_addr;
};

/* Bytes being read, with where they are in the image (for pc-relative pointers). */
struct cursor {
	const uint8_t *p, *end;
	uint64_t addr;		/* of p */
	bool bad;		/* read past the end, or what was read was out of range */
};

static void skip(struct cursor *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
	c->addr += n;
}

static uint64_t fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		skip(c, n);
		return 0;
	}
	/* little-endian, as on every machine lp records */
	for (size_t i = n; i-- > 0;)
		v = v << 8 | c->p[i];
	skip(c, n);
	return v;
}

/* A LEB128 number; signed, its last byte's bit 6 extended. */
static uint64_t leb128(struct cursor *c, bool is_signed)
{
	uint64_t v = 0;

	for (unsigned shift = 0;; shift += 7) {
		uint8_t b;

		if (c->p == c->end || shift >= 64) {
			c->bad = true;
			return 0;
		}
		b = *c->p;
		skip(c, 1);
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (is_signed && shift + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (shift + 7);
			return v;
		}
	}
}

static uint64_t uleb(struct cursor *c)
{
	return leb128(c, false);
}

static int64_t sleb(struct cursor *c)
{
	return (int64_t)leb128(c, true);
}

/*
 * A pointer in encoding enc (DW_EH_PE_*): pc-relative to where it is, or
 * relative to datarel; indirect and text- or function-relative ones are not
 * read (bad).
 */
static uint64_t pointer(struct cursor *c, uint8_t enc, uint64_t datarel)
{
	uint64_t at = c->addr, v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: v = fixed(c, 8); break;
	case DW_EH_PE_uleb128: v = uleb(c); break;
	case DW_EH_PE_udata2: v = fixed(c, 2); break;
	case DW_EH_PE_udata4: v = fixed(c, 4); break;
	case DW_EH_PE_udata8: v = fixed(c, 8); break;
	case DW_EH_PE_sleb128: v = (uint64_t)sleb(c); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case DW_EH_PE_sdata8: v = fixed(c, 8); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr: break;
	case DW_EH_PE_pcrel: v += at; break;
	case DW_EH_PE_datarel: v += datarel; break;
	default: c->bad = true; return 0;
	}
	if (enc & DW_EH_PE_indirect)
		c->bad = true;
	return v;
}

/* Field 0 (the initial location) or 1 (the FDE's address) of entry i of the table. */
static uint64_t table_loc(const struct eh_frame *f, size_t i, int field)
{
	const uint8_t *p = f->table + i * 8 + (size_t)field * 4;
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return f->hdr_addr + (uint64_t)(int64_t)(int32_t)v;
}

struct eh_frame *eh_frame__new(const uint8_t *hdr, size_t hdr_size, uint64_t hdr_addr, const uint8_t *eh,
			       size_t eh_size, uint64_t eh_addr)
{
	struct cursor c = { hdr, hdr + hdr_size, hdr_addr, false };
	uint8_t version = (uint8_t)fixed(&c, 1), ptr_enc = (uint8_t)fixed(&c, 1);
	uint8_t count_enc = (uint8_t)fixed(&c, 1), table_enc = (uint8_t)fixed(&c, 1);
	uint64_t count;
	struct eh_frame *f;

	if (c.bad || version != 1 || ptr_enc == DW_EH_PE_omit || count_enc == DW_EH_PE_omit ||
	    table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4)) {
		errno = ENOTSUP;
		return NULL;
	}
	pointer(&c, ptr_enc, hdr_addr);
	count = pointer(&c, count_enc, hdr_addr);
	if (c.bad || count > (size_t)(c.end - c.p) / 8) {
		errno = ENOTSUP;
		return NULL;
	}
	if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	*f = (struct eh_frame){ .table = c.p, .count = (size_t)count, .hdr_addr = hdr_addr, .eh = eh,
				.eh_size = eh_size, .eh_addr = eh_addr };
	f->ncoarse = (f->count + COARSE_STEP - 1) / COARSE_STEP;
	if (f->ncoarse && !(f->coarse = malloc(f->ncoarse * sizeof(*f->coarse)))) {
		free(f);
		return NULL;
	}
	for (size_t i = 0; i < f->ncoarse; i++)
		f->coarse[i] = table_loc(f, i * COARSE_STEP, 0);
	return f;
}

struct eh_frame *eh_frame__from_elf(Elf *elf)
{
	const Elf_Data *hdr = NULL, *eh = NULL;
	uint64_t hdr_addr = 0, eh_addr = 0;
	Elf_Scn *scn = NULL;
	size_t names;

	if (elf_getshdrstrndx(elf, &names) != 0) {
		errno = ENOENT;
		return NULL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		/* LLVM's linker types them as x86-64's unwind tables */
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_X86_64_UNWIND) ||
		    !(name = elf_strptr(elf, names, sh.sh_name)))
			continue;
		if (strcmp(name, ".eh_frame_hdr") == 0) {
			hdr = elf_rawdata(scn, NULL);
			hdr_addr = sh.sh_addr;
		} else if (strcmp(name, ".eh_frame") == 0) {
			eh = elf_rawdata(scn, NULL);
			eh_addr = sh.sh_addr;
		}
	}
	if (!hdr || !eh || !hdr->d_buf || !eh->d_buf) {
		errno = ENOENT;
		return NULL;
	}
	return eh_frame__new(hdr->d_buf, hdr->d_size, hdr_addr, eh->d_buf, eh->d_size, eh_addr);
}

void eh_frame__free(struct eh_frame *f)
{
	if (!f)
		return;
	free(f->coarse);
	free(f);
}

/*
 * A cursor over the body of the CIE or FDE at offset off of .eh_frame (past
 * its length, which sets where it ends): 0, or -ENOTSUP (64-bit lengths are
 * not read).
 */
static int open_record(const struct eh_frame *f, uint64_t off, struct cursor *c)
{
	uint64_t len;

	if (off >= f->eh_size)
		return -ENOTSUP;
	*c = (struct cursor){ f->eh + off, f->eh + f->eh_size, f->eh_addr + off, false };
	len = fixed(c, 4);
	if (c->bad || len == 0 || len == 0xffffffff || len > (size_t)(c->end - c->p))
		return -ENOTSUP;
	c->end = c->p + len;
	return 0;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool augmented;		/* 'z': FDEs have augmentation data to skip */
	bool signal;
	struct cursor insns;
};

/* The CIE at offset off of .eh_frame: 0, or -ENOTSUP. */
static int read_cie(const struct eh_frame *f, uint64_t off, struct cie *cie)
{
	struct cursor c;
	uint64_t ra;
	uint8_t version;
	const char *aug;

	if (open_record(f, off, &c) < 0)
		return -ENOTSUP;
	if (fixed(&c, 4) != 0)
		return -ENOTSUP;	/* an FDE where its CIE should be */
	version = (uint8_t)fixed(&c, 1);
	aug = (const char *)c.p;
	if (c.bad || (version != 1 && version != 3) || !memchr(aug, '\0', (size_t)(c.end - c.p)))
		return -ENOTSUP;
	skip(&c, strlen(aug) + 1);
	*cie = (struct cie){ .fde_enc = DW_EH_PE_absptr };
	cie->code_align = uleb(&c);
	cie->data_align = sleb(&c);
	ra = version == 1 ? fixed(&c, 1) : uleb(&c);
	if (c.bad || ra != LP_DWARF_RA)
		return -ENOTSUP;
	if (aug[0] == 'z') {
		uint64_t aug_len = uleb(&c);
		struct cursor data = c;

		if (c.bad || aug_len > (size_t)(c.end - c.p))
			return -ENOTSUP;
		data.end = c.p + aug_len;
		skip(&c, aug_len);
		cie->augmented = true;
		for (const char *a = aug + 1; *a; a++) {
			if (*a == 'R') {
				cie->fde_enc = (uint8_t)fixed(&data, 1);
			} else if (*a == 'L') {
				fixed(&data, 1);
			} else if (*a == 'P') {
				pointer(&data, (uint8_t)fixed(&data, 1) & ~DW_EH_PE_indirect, 0);
			} else if (*a == 'S') {
				cie->signal = true;
			} else if (*a != 'B') {
				return -ENOTSUP;
			}
		}
		if (data.bad)
			return -ENOTSUP;
	} else if (aug[0]) {
		return -ENOTSUP;
	}
	cie->insns = c;
	return 0;
}

/* A register's rule, as far as the simple ones go. */
enum rule_kind { RULE_SAME, RULE_UNDEFINED, RULE_OFFSET, RULE_OTHER };

struct reg_rule {
	enum rule_kind kind;
	int64_t off;
};

struct row {
	uint64_t cfa_reg;
	int64_t cfa_off;
	bool cfa_defined, cfa_expression;
	struct reg_rule ra, bp, alt;
};

enum { STATES_REMEMBERED = 16 };

struct machine {
	struct row row, initial;	/* initial: after the CIE's instructions, for DW_CFA_restore */
	struct row remembered[STATES_REMEMBERED];
	size_t nremembered;
	const struct cie *cie;
	uint64_t loc, pc;	/* the row's address, the one asked for */
};

static void set_rule(struct machine *m, uint64_t reg, enum rule_kind kind, int64_t off)
{
	if (reg == LP_DWARF_RA)
		m->row.ra = (struct reg_rule){ kind, off };
	else if (reg == LP_DWARF_FP)
		m->row.bp = (struct reg_rule){ kind, off };
	else if (reg == LP_DWARF_ALT)
		m->row.alt = (struct reg_rule){ kind, off };
}

static void restore_rule(struct machine *m, uint64_t reg)
{
	if (reg == LP_DWARF_RA)
		m->row.ra = m->initial.ra;
	else if (reg == LP_DWARF_FP)
		m->row.bp = m->initial.bp;
	else if (reg == LP_DWARF_ALT)
		m->row.alt = m->initial.alt;
}

/* v times the data alignment factor, wrapping: malformed values are caught by the range check at the end */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

/* Whether the row moves past pc: then the rules at pc are the current ones. */
static bool advance(struct machine *m, uint64_t delta)
{
	uint64_t to = m->loc + delta * m->cie->code_align;

	/* one that wraps around the address space is past it too */
	if (to > m->pc || to < m->loc)
		return true;
	m->loc = to;
	return false;
}

/*
 * Runs instructions until they are done or move past pc: 0, or -ENOTSUP.
 * in_cie: the CIE's initial instructions, which may not advance.
 */
static int run(struct machine *m, struct cursor c, bool in_cie)
{
	int64_t daf = m->cie->data_align;

	while (c.p < c.end) {
		uint8_t op = (uint8_t)fixed(&c, 1), low = op & 0x3f;
		uint64_t reg, delta = 0;
		bool moves = false;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			delta = low;
			moves = true;
			break;
		case DW_CFA_offset:
			set_rule(m, low, RULE_OFFSET, scaled(uleb(&c), daf));
			break;
		case DW_CFA_restore:
			restore_rule(m, low);
			break;
		default:
			switch (op) {
			case DW_CFA_nop:
				break;
			case DW_CFA_advance_loc1: delta = fixed(&c, 1); moves = true; break;
			case DW_CFA_advance_loc2: delta = fixed(&c, 2); moves = true; break;
			case DW_CFA_advance_loc4: delta = fixed(&c, 4); moves = true; break;
			case DW_CFA_offset_extended:
				reg = uleb(&c);
				set_rule(m, reg, RULE_OFFSET, scaled(uleb(&c), daf));
				break;
			case DW_CFA_offset_extended_sf:
				reg = uleb(&c);
				set_rule(m, reg, RULE_OFFSET, scaled((uint64_t)sleb(&c), daf));
				break;
			case DW_CFA_GNU_negative_offset_extended:
				reg = uleb(&c);
				set_rule(m, reg, RULE_OFFSET, scaled(-uleb(&c), daf));
				break;
			case DW_CFA_restore_extended:
				restore_rule(m, uleb(&c));
				break;
			case DW_CFA_undefined:
				set_rule(m, uleb(&c), RULE_UNDEFINED, 0);
				break;
			case DW_CFA_same_value:
				set_rule(m, uleb(&c), RULE_SAME, 0);
				break;
			case DW_CFA_register:
			case DW_CFA_val_offset:
			case DW_CFA_val_offset_sf:
				reg = uleb(&c);
				/* the operand, signed or not, is skipped: a LEB128's bytes are the same either way */
				uleb(&c);
				set_rule(m, reg, RULE_OTHER, 0);
				break;
			case DW_CFA_expression:
			case DW_CFA_val_expression:
				reg = uleb(&c);
				skip(&c, uleb(&c));
				set_rule(m, reg, RULE_OTHER, 0);
				break;
			case DW_CFA_remember_state:
				if (m->nremembered == STATES_REMEMBERED)
					return -ENOTSUP;
				m->remembered[m->nremembered++] = m->row;
				break;
			case DW_CFA_restore_state:
				if (m->nremembered == 0)
					return -ENOTSUP;
				m->row = m->remembered[--m->nremembered];
				break;
			case DW_CFA_def_cfa:
				m->row.cfa_reg = uleb(&c);
				m->row.cfa_off = (int64_t)uleb(&c);
				m->row.cfa_defined = true;
				m->row.cfa_expression = false;
				break;
			case DW_CFA_def_cfa_sf:
				m->row.cfa_reg = uleb(&c);
				m->row.cfa_off = scaled((uint64_t)sleb(&c), daf);
				m->row.cfa_defined = true;
				m->row.cfa_expression = false;
				break;
			case DW_CFA_def_cfa_register:
				if (!m->row.cfa_defined || m->row.cfa_expression)
					return -ENOTSUP;
				m->row.cfa_reg = uleb(&c);
				break;
			case DW_CFA_def_cfa_offset:
				if (!m->row.cfa_defined || m->row.cfa_expression)
					return -ENOTSUP;
				m->row.cfa_off = (int64_t)uleb(&c);
				break;
			case DW_CFA_def_cfa_offset_sf:
				if (!m->row.cfa_defined || m->row.cfa_expression)
					return -ENOTSUP;
				m->row.cfa_off = scaled((uint64_t)sleb(&c), daf);
				break;
			case DW_CFA_def_cfa_expression:
				skip(&c, uleb(&c));
				m->row.cfa_defined = m->row.cfa_expression = true;
				break;
			case DW_CFA_GNU_args_size:
				uleb(&c);
				break;
			default:
				return -ENOTSUP;	/* DW_CFA_set_loc, vendor extensions */
			}
		}
		if (c.bad)
			return -ENOTSUP;
		if (moves && (in_cie || advance(m, delta)))
			return in_cie ? -ENOTSUP : 0;
	}
	return 0;
}

static bool fits(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * The FDE whose code holds pc: its CIE, where its code begins, and c at
 * its instructions. 0; -ENOENT where no FDE holds pc; -ENOTSUP.
 */
static int fde_at(const struct eh_frame *f, uint64_t pc, struct cie *cie, uint64_t *begin, struct cursor *c)
{
	size_t lo = 0, hi = f->ncoarse;
	uint64_t fde_off, cie_field, cie_id, range;
	int ret;

	/* the last FDE starting at or before pc: its group of COARSE_STEP, then in the table */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->coarse[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	hi = lo * COARSE_STEP < f->count ? lo * COARSE_STEP : f->count;
	lo = (lo - 1) * COARSE_STEP + 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (table_loc(f, mid, 0) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	fde_off = table_loc(f, lo - 1, 1) - f->eh_addr;
	if ((ret = open_record(f, fde_off, c)) < 0)
		return ret;
	cie_field = fde_off + 4;
	cie_id = fixed(c, 4);
	if (c->bad || cie_id == 0 || cie_id > cie_field)
		return -ENOTSUP;
	if ((ret = read_cie(f, cie_field - cie_id, cie)) < 0)
		return ret;
	*begin = pointer(c, cie->fde_enc, 0);
	range = pointer(c, cie->fde_enc & 0x0f, 0);
	if (cie->augmented)
		skip(c, uleb(c));
	if (c->bad)
		return -ENOTSUP;
	if (pc < *begin || pc - *begin >= range)
		return -ENOENT;
	return 0;
}

int eh_frame__function_start(const struct eh_frame *f, uint64_t pc, uint64_t *start)
{
	struct cursor c;
	struct cie cie;

	return fde_at(f, pc, &cie, start, &c);
}

int eh_frame__rule(const struct eh_frame *f, uint64_t pc, struct cfi_rule *rule)
{
	uint64_t begin;
	struct cursor c;
	struct cie cie;
	struct machine m;
	int ret;

	if ((ret = fde_at(f, pc, &cie, &begin, &c)) < 0)
		return ret;
	memset(&m, 0, sizeof(m));
	m.cie = &cie;
	m.pc = pc;
	m.loc = begin;
	/* the ABI's: callee-saved registers and the return address column keep their values */
	m.row.ra.kind = m.row.bp.kind = m.row.alt.kind = RULE_SAME;
	if ((ret = run(&m, cie.insns, true)) < 0)
		return ret;
	m.initial = m.row;
	if ((ret = run(&m, c, false)) < 0)
		return ret;

	if (!m.row.cfa_defined || m.row.cfa_expression ||
	    (m.row.cfa_reg != LP_DWARF_SP && m.row.cfa_reg != LP_DWARF_FP && m.row.cfa_reg != LP_DWARF_ALT) ||
	    !fits(m.row.cfa_off))
		return -ENOTSUP;
	memset(rule, 0, sizeof(*rule));
	rule->signal = cie.signal;
	rule->cfa_reg = (uint8_t)m.row.cfa_reg;
	rule->cfa_off = (int32_t)m.row.cfa_off;
	if (m.row.ra.kind == RULE_UNDEFINED)
		rule->outermost = 1;
	else if (m.row.ra.kind == RULE_OFFSET && fits(m.row.ra.off))
		rule->ra_off = (int32_t)m.row.ra.off;
	else
		return -ENOTSUP;
	if (m.row.bp.kind == RULE_OFFSET && fits(m.row.bp.off)) {
		rule->bp_saved = 1;
		rule->bp_off = (int32_t)m.row.bp.off;
	} else if (m.row.bp.kind != RULE_SAME) {
		return -ENOTSUP;
	}
	if (m.row.alt.kind == RULE_OFFSET && fits(m.row.alt.off)) {
		rule->alt_saved = 1;
		rule->alt_off = (int32_t)m.row.alt.off;
	} else if (m.row.alt.kind == RULE_OTHER) {	/* undefined counts as the same: see cfi__step */
		rule->alt_saved = CFI_ALT_LOST;
	}
	rule->simple = 1;
	return 0;
}
