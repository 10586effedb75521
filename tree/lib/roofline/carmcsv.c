/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/carmcsv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"

/* The buffer's text NUL-terminated (adding leaves room for the NUL). */
static const char *cstr(struct strbuf *b)
{
	if (!b->s)
		return "";
	b->s[b->len] = 0;
	return b->s;
}

/* The shortest digits that read back as v (Python's repr): digits in d, v = 0.d * 10^(exp + 1). */
static void shortest(double v, char *d, size_t size, int *exp)
{
	char buf[64];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
		if (strtod(buf, NULL) == v || prec == 17)
			break;
	}
	/* "d.ddde[+-]XX" */
	{
		char *e = strchr(buf, 'e');
		size_t n = 0;

		*exp = atoi(e + 1);
		for (char *p = buf; p < e && n + 1 < size; p++)
			if (*p != '.')
				d[n++] = *p;
		while (n > 1 && d[n - 1] == '0')
			n--;
		d[n] = 0;
	}
}

static const char *python_repr(double v, char *buf, size_t size)
{
	char d[32];
	int e;
	size_t n;
	struct strbuf s = STRBUF_INIT;

	shortest(v, d, sizeof(d), &e);
	n = strlen(d);
	if (e < -4 || e >= 16) {
		strbuf__addf(&s, "%c", d[0]);
		if (n > 1)
			strbuf__addf(&s, ".%s", d + 1);
		strbuf__addf(&s, "e%c%02d", e < 0 ? '-' : '+', abs(e));
	} else if (e >= 0) {
		for (int i = 0; i <= e; i++)
			strbuf__addc(&s, (size_t)i < n ? d[i] : '0');
		strbuf__addc(&s, '.');
		if ((size_t)e + 1 < n)
			strbuf__addf(&s, "%s", d + e + 1);
		else
			strbuf__addc(&s, '0');
	} else {
		strbuf__addf(&s, "0.");
		for (int i = 0; i < -e - 1; i++)
			strbuf__addc(&s, '0');
		strbuf__addf(&s, "%s", d);
	}
	snprintf(buf, size, "%s", cstr(&s));
	strbuf__release(&s);
	return buf;
}

/* Python's round(v, digits): the correctly rounded decimal, read back. */
static double python_round(double v, int digits)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%.*f", digits, v);
	return strtod(buf, NULL);
}

const char *carm_csv__number(double v, char *buf, size_t size)
{
	int zeros = 0;

	if (v == 0) {
		snprintf(buf, size, "0");
		return buf;
	}
	if (fabs(v) < 1) {
		char d[32];
		int e;

		/* zeros between the point and the first digit of its shortest form */
		shortest(fabs(v), d, sizeof(d), &e);
		zeros = -e - 1;
	}
	return python_repr(python_round(v, 4 + zeros), buf, size);
}

static int make_dir(const char *path)
{
	return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -errno;
}

static void add_cell(struct strbuf *row, const char *cell)
{
	if (row->len)
		strbuf__addc(row, ',');
	strbuf__addf(row, "%s", cell);
}

static void add_number(struct strbuf *row, double v)
{
	char buf[64];

	add_cell(row, carm_csv__number(v, buf, sizeof(buf)));
}

static void add_uint(struct strbuf *row, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	add_cell(row, buf);
}

int carm_csv__append(const char *dir, const char *name, time_t when, const struct roofs_opts *o,
		     const struct roofs *r, struct lp_error *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, row = STRBUF_INIT;
	struct stat st;
	char date[32];
	struct tm tm;
	FILE *f = NULL;
	int ret;

	if ((ret = make_dir(dir)) < 0 || (strbuf__addf(&path, "%s/roofline", dir), (ret = make_dir(path.s)) < 0)) {
		ret = lp_error__set(err, ret, "cannot make '%s': %s", path.len ? path.s : dir, strerror(-ret));
		goto cleanup;
	}
	strbuf__addf(&path, "/%s_roofline.csv", name);
	if (stat(path.s, &st) != 0) {
		const char *levels[] = { "L1", "L1", "L2", "L2", "L3", "L3", "DRAM", "DRAM", "FP", "FP", "FP FMA", "FP_FMA" };
		const char *heads[] = { "Date", "ISA", "Precision", "Threads", "Loads", "Stores", "Interleaved", "DRAM Bytes",
					"FP Inst.", "GB/s", "I/Cycle", "GB/s", "I/Cycle", "GB/s", "I/Cycle", "GB/s",
					"I/Cycle", "Gflop/s", "I/Cycle", "Gflop/s", "I/Cycle" };

		add_cell(&row, "Name:");
		add_cell(&row, name);
		for (int l = 0; l < CARM_LEVELS; l++) {
			char label[32];

			snprintf(label, sizeof(label), "L%d Size:", l + 1);
			add_cell(&row, label);
			add_uint(&row, r->levels[l].size >> 10);
		}
		add_cell(&row, "");
		for (size_t i = 0; i < sizeof(levels) / sizeof(*levels); i++)
			add_cell(&row, levels[i]);
		strbuf__addf(&text, "%s\r\n", cstr(&row));
		strbuf__reset(&row);
		for (size_t i = 0; i < sizeof(heads) / sizeof(*heads); i++)
			add_cell(&row, heads[i]);
		strbuf__addf(&text, "%s\r\n", cstr(&row));
	}
	localtime_r(&when, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	for (size_t i = 0; i < r->nisa; i++) {
		const struct roofs_isa *m = &r->isa[i];

		strbuf__reset(&row);
		add_cell(&row, date);
		add_cell(&row, carm_isa__name(m->isa));
		add_cell(&row, carm_precision__name(o->precision));
		add_uint(&row, o->threads);
		add_uint(&row, o->loads);
		add_uint(&row, o->stores);
		add_cell(&row, o->interleaved ? "Yes" : "No");
		add_uint(&row, (unsigned long long)(r->test_size[ROOF_DRAM] * o->threads >> 10));
		add_cell(&row, "add");
		for (int l = 0; l < ROOF_NMEM; l++) {
			add_number(&row, m->has_mem[l] ? m->mem[l].per_second / 1e9 : 0);
			add_number(&row, m->has_mem[l] ? m->mem[l].instructions_per_second / r->hz : 0);
		}
		add_number(&row, m->has_fp[CARM_ADD] ? m->fp[CARM_ADD].per_second / 1e9 : 0);
		add_number(&row, m->has_fp[CARM_ADD] ? m->fp[CARM_ADD].instructions_per_second / r->hz : 0);
		add_number(&row, m->has_fp[CARM_FMA] ? m->fp[CARM_FMA].per_second / 1e9 : 0);
		add_number(&row, m->has_fp[CARM_FMA] ? m->fp[CARM_FMA].instructions_per_second / r->hz : 0);
		strbuf__addf(&text, "%s\r\n", cstr(&row));
	}
	if (!text.s) {
		ret = -ENOMEM;
		goto cleanup;
	}
	f = fopen(path.s, "ae");
	if (!f || fwrite(text.s, 1, text.len, f) != text.len || fflush(f) != 0) {
		ret = lp_error__set(err, -errno, "cannot write '%s': %s", path.s, strerror(errno));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (f && fclose(f) != 0 && ret == 0)
		ret = lp_error__set(err, -errno, "cannot write '%s': %s", path.s, strerror(errno));
	strbuf__release(&path);
	strbuf__release(&text);
	strbuf__release(&row);
	return ret;
}
