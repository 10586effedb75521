/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/roofline.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/lines.h"
#include "stream/lpstream.h"
#include "base/strbuf.h"
#include "base/xml.h"

struct roof {
	char *name, *isa, *label;
	bool memory;
	double value;
};

struct point {
	char *name;		/* frames joined by ';', unescaped */
	char *how;		/* its KEY=VALUE attributes, space-separated */
	bool emulated, pmu;	/* counts=emulated, counts=pmu: where its FLOPs and bytes came from */
	char *isa;		/* isa=: the ISA of most of its FLOPs (emulated counts say), or "" */
	uint64_t flops, bytes;
	double seconds;
};

struct roofline {
	struct roofline_opts o;
	struct roof *roofs;
	size_t nroofs, roofs_cap;
	struct point *points;
	size_t npoints, points_cap;
	char **isas;		/* in order of first appearance */
	size_t nisas;
	struct strbuf tmp;
};

struct roofline *roofline__new(const struct roofline_opts *o)
{
	struct roofline *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	return r;
}

void roofline__free(struct roofline *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nroofs; i++) {
		free(r->roofs[i].name);
		free(r->roofs[i].isa);
		free(r->roofs[i].label);
	}
	for (size_t i = 0; i < r->npoints; i++) {
		free(r->points[i].name);
		free(r->points[i].how);
		free(r->points[i].isa);
	}
	for (size_t i = 0; i < r->nisas; i++)
		free(r->isas[i]);
	free(r->roofs);
	free(r->points);
	free(r->isas);
	strbuf__release(&r->tmp);
	free(r);
}

static char *unescaped(struct roofline *r, struct lp_span s)
{
	strbuf__reset(&r->tmp);
	if (lp_span__unescape_to(&r->tmp, s) < 0 || strbuf__addc(&r->tmp, 0) < 0)
		return NULL;
	return strdup(r->tmp.s);
}

static char *attr(struct roofline *r, const struct lp_span *attrs, size_t n, const char *key)
{
	struct lp_span v;

	if (!lp_attrs__find(attrs, n, key, &v))
		return strdup("");
	return unescaped(r, v);
}

static int add_isa(struct roofline *r, const char *isa)
{
	char **v;

	for (size_t i = 0; i < r->nisas; i++)
		if (strcmp(r->isas[i], isa) == 0)
			return 0;
	v = realloc(r->isas, (r->nisas + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->isas = v;
	if (!(v[r->nisas] = strdup(isa)))
		return -ENOMEM;
	r->nisas++;
	return 0;
}

static int add_roof(struct roofline *r, const struct lp_roof *in)
{
	struct roof *f;
	char *op;

	if (r->nroofs == r->roofs_cap) {
		size_t cap = r->roofs_cap ? 2 * r->roofs_cap : 16;
		struct roof *v = realloc(r->roofs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->roofs = v;
		r->roofs_cap = cap;
	}
	f = &r->roofs[r->nroofs];
	*f = (struct roof){ .memory = in->kind == LP_ROOF_MEMORY, .value = in->value };
	f->name = unescaped(r, in->name);
	f->isa = attr(r, in->attrs, in->nattrs, "isa");
	op = attr(r, in->attrs, in->nattrs, "op");
	/* a compute roof's label: its operation where it says, else its name */
	f->label = op && *op ? op : (free(op), f->name ? strdup(f->name) : NULL);
	if (!f->name || !f->isa || !f->label) {
		free(f->name);
		free(f->isa);
		free(f->label);
		return -ENOMEM;
	}
	r->nroofs++;
	return add_isa(r, f->isa);
}

static int add_point(struct roofline *r, const struct lp_point *in)
{
	struct point *p;
	struct strbuf how = STRBUF_INIT;
	int ret = 0;

	if (r->npoints == r->points_cap) {
		size_t cap = r->points_cap ? 2 * r->points_cap : 16;
		struct point *v = realloc(r->points, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->points = v;
		r->points_cap = cap;
	}
	for (size_t i = 0; ret == 0 && i < in->nattrs; i++) {
		if (i)
			ret = strbuf__addc(&how, ' ');
		ret = ret ?: lp_span__unescape_to(&how, in->attrs[i]);
	}
	ret = ret ?: strbuf__addc(&how, 0);
	p = &r->points[r->npoints];
	*p = (struct point){ .flops = in->flops, .bytes = in->bytes, .seconds = in->seconds };
	{
		struct lp_span counts;

		if (lp_attrs__find(in->attrs, in->nattrs, "counts", &counts)) {
			p->emulated = lp_span__eq(counts, "emulated", 8);
			p->pmu = lp_span__eq(counts, "pmu", 3);
		}
	}
	p->isa = attr(r, in->attrs, in->nattrs, "isa");
	strbuf__reset(&r->tmp);
	ret = ret ?: lp_span__unescape_to(&r->tmp, in->name) ?: strbuf__addc(&r->tmp, 0);
	if (ret == 0) {
		p->name = strdup(r->tmp.s);
		p->how = strdup(how.s);
	}
	strbuf__release(&how);
	if (ret < 0 || !p->name || !p->how || !p->isa) {
		free(p->name);
		free(p->how);
		free(p->isa);
		return ret < 0 ? ret : -ENOMEM;
	}
	r->npoints++;
	return 0;
}

static int read_roof(void *ctx, struct lp_reader *rd, const struct lp_roof *roof)
{
	(void)rd;
	return add_roof(ctx, roof);
}

static int read_point(void *ctx, struct lp_reader *rd, const struct lp_point *q)
{
	(void)rd;
	return add_point(ctx, q);
}

int roofline__read(struct roofline *r, int fd, const char *name, struct lp_error *err)
{
	static const struct lp_reader_ops ops = { .roof = read_roof, .point = read_point };
	struct lp_reader_opts ro = { .name = name, .strict = r->o.strict, .warn = r->o.warn, .warn_ctx = r->o.ctx };
	struct lines *in = lines__new(fd);
	int ret;

	lp_error__clear(err);
	err->file = name;
	if (!in)
		return lp_error__set(err, -ENOMEM, "out of memory");
	ret = lp_reader__read(&ro, in, &ops, r, err);
	lines__free(in);
	return ret;
}

/* ---- drawing ---- */

struct axes {
	double x0, x1, y0, y1;		/* log10 of the range shown */
	double left, top, width, height;	/* the plot area in pixels */
};

static double px_x(const struct axes *a, double ai)
{
	return a->left + (log10(ai) - a->x0) / (a->x1 - a->x0) * a->width;
}

static double px_y(const struct axes *a, double perf)
{
	return a->top + a->height - (log10(perf) - a->y0) / (a->y1 - a->y0) * a->height;
}

/* The ISA's highest compute roof, which its memory roofs run up to; 0 when it has none. */
static double top_of(const struct roofline *r, const char *isa)
{
	double top = 0;

	for (size_t i = 0; i < r->nroofs; i++)
		if (!r->roofs[i].memory && strcmp(r->roofs[i].isa, isa) == 0 && r->roofs[i].value > top)
			top = r->roofs[i].value;
	return top;
}

/* The fastest memory roof of an ISA (where compute roofs start). */
static double fastest_of(const struct roofline *r, const char *isa)
{
	double best = 0;

	for (size_t i = 0; i < r->nroofs; i++)
		if (r->roofs[i].memory && strcmp(r->roofs[i].isa, isa) == 0 && r->roofs[i].value > best)
			best = r->roofs[i].value;
	return best;
}

static bool plottable(const struct point *p)
{
	return p->flops > 0 && p->bytes > 0 && p->seconds > 0;
}

static void ranges(const struct roofline *r, struct axes *a)
{
	double ai_lo = 1.0 / 16, ai_hi = 64, p_lo = INFINITY, p_hi = 0;

	for (size_t i = 0; i < r->nroofs; i++) {
		const struct roof *f = &r->roofs[i];

		if (f->memory) {
			double top = top_of(r, f->isa);

			if (top > 0 && top / f->value * 4 > ai_hi)
				ai_hi = top / f->value * 4;
			if (f->value * ai_lo < p_lo)
				p_lo = f->value * ai_lo;
		} else {
			p_hi = fmax(p_hi, f->value);
			p_lo = fmin(p_lo, f->value / 4);
		}
	}
	for (size_t i = 0; i < r->npoints; i++) {
		const struct point *p = &r->points[i];
		double ai, perf;

		if (!plottable(p))
			continue;
		ai = (double)p->flops / p->bytes;
		perf = p->flops / p->seconds;
		ai_lo = fmin(ai_lo, ai / 2);
		ai_hi = fmax(ai_hi, ai * 2);
		p_lo = fmin(p_lo, perf / 2);
		p_hi = fmax(p_hi, perf * 2);
	}
	if (!isfinite(p_lo) || p_lo <= 0)
		p_lo = p_hi > 0 ? p_hi / 1e4 : 1e6;
	if (p_hi <= p_lo)
		p_hi = p_lo * 1e4;
	a->x0 = floor(log10(ai_lo));
	a->x1 = ceil(log10(ai_hi));
	a->y0 = floor(log10(p_lo));
	a->y1 = ceil(log10(p_hi * 1.5));
}

/* 12.3 G, 950 M: a FLOP/s or B/s figure for a label. */
static void si(struct strbuf *b, double v)
{
	static const char *const prefix[] = { "", "k", "M", "G", "T", "P" };
	int k = 0;

	while (v >= 1000 && k < 5) {
		v /= 1000;
		k++;
	}
	strbuf__addf(b, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, prefix[k]);
}

static void text_escaped(struct strbuf *b, const char *s)
{
	xml__escape(b, s, strlen(s));
}

static const char *const level_colours[] = { "#1b7837", "#5aae61", "#2166ac", "#762a83" };

static int level_index(const char *name)
{
	return strcmp(name, "L1") == 0 ? 0 : strcmp(name, "L2") == 0 ? 1 : strcmp(name, "L3") == 0 ? 2 : 3;
}

static const char *memory_colour(const char *name)
{
	if (strcmp(name, "L1") == 0)
		return level_colours[0];
	if (strcmp(name, "L2") == 0)
		return level_colours[1];
	if (strcmp(name, "L3") == 0)
		return level_colours[2];
	return level_colours[3];
}

static void draw_axes(struct strbuf *b, const struct axes *a)
{
	strbuf__addf(b, "<clipPath id=\"plot-clip\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n"
			"<g id=\"axes\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"plot\"/>\n",
		     a->left, a->top, a->width, a->height, a->left, a->top, a->width, a->height);
	for (double e = a->x0; e <= a->x1 + 1e-9; e++) {
		double x = a->left + (e - a->x0) / (a->x1 - a->x0) * a->width;

		strbuf__addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			     x, a->top, x, a->top + a->height, x, a->top + a->height + 16, pow(10, e));
	}
	for (double e = a->y0; e <= a->y1 + 1e-9; e++) {
		double y = a->top + a->height - (e - a->y0) / (a->y1 - a->y0) * a->height;

		strbuf__addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			     a->left, y, a->left + a->width, y, a->left - 6, y + 4);
		si(b, pow(10, e));
		strbuf__addf(b, "FLOP/s</text>\n");
	}
	strbuf__addf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			"Arithmetic intensity (FLOP/byte)</text>\n</g>\n",
		     a->left + a->width / 2, a->top + a->height + 40);
}

static void draw_isa(struct strbuf *b, const struct roofline *r, const struct axes *a, const char *isa, bool shown)
{
	double top = top_of(r, isa), fastest = fastest_of(r, isa);
	double xmin = pow(10, a->x0), xmax = pow(10, a->x1), ymin = pow(10, a->y0);

	strbuf__addf(b, "<g class=\"isa\" data-isa=\"");
	text_escaped(b, isa);
	strbuf__addf(b, "\" clip-path=\"url(#plot-clip)\"%s>\n", shown ? "" : " display=\"none\"");
	for (size_t i = 0; i < r->nroofs; i++) {
		const struct roof *f = &r->roofs[i];
		double x_start, x_end, y_end;

		if (strcmp(f->isa, isa) != 0)
			continue;
		if (f->memory) {
			/* y = bandwidth * x, from the bottom or left edge to the top compute roof (or the right edge) */
			x_start = fmax(xmin, ymin / f->value);
			x_end = top > 0 ? fmin(xmax, top / f->value) : xmax;
			y_end = f->value * x_end;
			if (x_end <= x_start)
				continue;
			/* the ends in data units too, for the script to place them when zoomed */
			strbuf__addf(b, "<line class=\"roof memory\" stroke=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
					"y2=\"%.1f\" data-x1=\"%.17g\" data-y1=\"%.17g\" data-x2=\"%.17g\" data-y2=\"%.17g\"><title>",
				     memory_colour(f->name), px_x(a, x_start), px_y(a, f->value * x_start), px_x(a, x_end),
				     px_y(a, y_end), x_start, f->value * x_start, x_end, y_end);
			text_escaped(b, f->name);
			strbuf__addf(b, ": ");
			si(b, f->value);
			strbuf__addf(b, "B/s</title></line>\n");
			{
				/* the label along the slope, each level further up so that close slopes' labels do not meet */
				double along = 0.12 + 0.18 * level_index(f->name);
				double lx = exp(log(x_start) + (log(x_end) - log(x_start)) * along);
				double ang = atan2(px_y(a, y_end) - px_y(a, f->value * x_start),
						   px_x(a, x_end) - px_x(a, x_start)) * 180 / M_PI;

				strbuf__addf(b, "<text class=\"roof-label\" style=\"fill:%s\" transform=\"translate(%.1f,%.1f) "
						"rotate(%.1f)\" y=\"-5\" data-along=\"%g\">",
					     memory_colour(f->name), px_x(a, lx), px_y(a, f->value * lx), ang, along);
				text_escaped(b, f->name);
				strbuf__addf(b, " ");
				si(b, f->value);
				strbuf__addf(b, "B/s</text>\n");
			}
		} else {
			double x0 = fastest > 0 ? fmax(xmin, f->value / fastest) : xmin, label_y = px_y(a, f->value) - 5;

			/* a roof just below another one (add and mul often tie) has its label under its line */
			for (size_t k = 0; k < r->nroofs; k++) {
				const struct roof *g = &r->roofs[k];

				if (g != f && !g->memory && strcmp(g->isa, isa) == 0 &&
				    (g->value > f->value || (g->value == f->value && k < i)) &&
				    px_y(a, f->value) - px_y(a, g->value) < 14)
					label_y = px_y(a, f->value) + 14;
			}

			strbuf__addf(b, "<line class=\"roof compute\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					"data-x1=\"%.17g\" data-y1=\"%.17g\" data-x2=\"%.17g\" data-y2=\"%.17g\"><title>",
				     px_x(a, x0), px_y(a, f->value), px_x(a, xmax), px_y(a, f->value), x0, f->value, xmax,
				     f->value);
			text_escaped(b, f->name);
			strbuf__addf(b, ": ");
			si(b, f->value);
			strbuf__addf(b, "FLOP/s</title></line>\n<text class=\"roof-label compute\" x=\"%.1f\" y=\"%.1f\" "
					"text-anchor=\"end\" data-dy=\"%.1f\">",
				     px_x(a, xmax) - 4, label_y, label_y - px_y(a, f->value));
			text_escaped(b, f->label);
			strbuf__addf(b, " ");
			si(b, f->value);
			strbuf__addf(b, "FLOP/s</text>\n");
		}
	}
	strbuf__addf(b, "</g>\n");
}

static const char *leaf_of(const char *name)
{
	const char *semi = strrchr(name, ';');

	return semi ? semi + 1 : name;
}

static void draw_points(struct strbuf *b, const struct roofline *r, const struct axes *a)
{
	double most = 0;

	for (size_t i = 0; i < r->npoints; i++)
		if (plottable(&r->points[i]))
			most = fmax(most, r->points[i].seconds);
	strbuf__addf(b, "<g id=\"points\" clip-path=\"url(#plot-clip)\">\n");
	for (size_t i = 0; i < r->npoints; i++) {
		const struct point *p = &r->points[i];
		double ai, perf, x, y, radius;

		if (!plottable(p))
			continue;
		ai = (double)p->flops / p->bytes;
		perf = p->flops / p->seconds;
		x = px_x(a, ai);
		y = px_y(a, perf);
		radius = 4 + 14 * sqrt(p->seconds / most);
		strbuf__addf(b, "<g class=\"point\" data-i=\"%zu\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/><title>", i, x,
			     y, radius);
		text_escaped(b, p->name);
		strbuf__addf(b, "\n%" PRIu64 " FLOPs, %" PRIu64 " bytes: %.4g FLOP/byte, ", p->flops, p->bytes, ai);
		si(b, perf);
		strbuf__addf(b, "FLOP/s in %.4g s", p->seconds);
		if (p->emulated || p->pmu)
			strbuf__addf(b, "\n%s", p->emulated ? "counted exactly by emulation (QEMU)" :
							       "counted by the PMU's counters (sampled)");
		if (*p->how) {
			strbuf__addf(b, "\n");
			text_escaped(b, p->how);
		}
		strbuf__addf(b, "</title><text x=\"%.1f\" y=\"%.1f\">", x + radius + 3, y + 4);
		text_escaped(b, leaf_of(p->name));
		strbuf__addf(b, "</text></g>\n");
	}
	strbuf__addf(b, "</g>\n");
}

/* The ISA drawn first: the one of most of the drawn points' time, else the widest */
static const char *isa_shown(const struct roofline *r)
{
	const char *best = r->isas[r->nisas - 1];
	double most = 0;

	for (size_t i = 0; i < r->nisas; i++) {
		double n = 0;

		for (size_t k = 0; k < r->npoints; k++)
			if (*r->isas[i] && plottable(&r->points[k]) && strcmp(r->points[k].isa, r->isas[i]) == 0)
				n += r->points[k].seconds;
		if (n > most) {
			most = n;
			best = r->isas[i];
		}
	}
	return best;
}

/* Where the points' FLOPs and bytes came from, in words ("" when the points do not say) */
static const char *counts_said(const struct roofline *r)
{
	size_t emulated = 0, pmu = 0;

	for (size_t i = 0; i < r->npoints; i++) {
		emulated += r->points[i].emulated;
		pmu += r->points[i].pmu;
	}
	if (emulated && pmu)
		return "FLOPs and bytes: some counted by emulation (QEMU), some by the PMU's counters. ";
	if (emulated)
		return "FLOPs and bytes counted exactly by emulation (QEMU); time sampled on the CPU. ";
	if (pmu)
		return "FLOPs and bytes from the PMU's counters (sampled). ";
	return "";
}

/* What the script needs: the roofs per ISA and each point's numbers. */
static void data_json(struct strbuf *b, const struct roofline *r, const struct axes *a)
{
	strbuf__addf(b, "{\"axes\":{\"x0\":%g,\"x1\":%g,\"y0\":%g,\"y1\":%g,\"left\":%g,\"top\":%g,"
			"\"width\":%g,\"height\":%g},\"roofs\":[", a->x0, a->x1, a->y0, a->y1, a->left, a->top, a->width,
		     a->height);
	for (size_t i = 0; i < r->nroofs; i++) {
		const struct roof *f = &r->roofs[i];

		strbuf__addf(b, "%s{\"name\":", i ? "," : "");
		json__string(b, f->name, strlen(f->name));
		strbuf__addf(b, ",\"isa\":");
		json__string(b, f->isa, strlen(f->isa));
		strbuf__addf(b, ",\"memory\":%s,\"value\":%.17g}", f->memory ? "true" : "false", f->value);
	}
	strbuf__addf(b, "],\"points\":[");
	for (size_t i = 0; i < r->npoints; i++) {
		const struct point *p = &r->points[i];

		strbuf__addf(b, "%s{\"name\":", i ? "," : "");
		json__string(b, p->name, strlen(p->name));
		strbuf__addf(b, ",\"how\":");
		json__string(b, p->how, strlen(p->how));
		strbuf__addf(b, ",\"flops\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"seconds\":%.17g}", p->flops, p->bytes,
			     p->seconds);
	}
	strbuf__addf(b, "]}");
}

int roofline__write(struct roofline *r, FILE *out, struct lp_error *err)
{
	const struct roofline_opts *o = &r->o;
	struct strbuf b = STRBUF_INIT, json = STRBUF_INIT;
	struct axes a;
	size_t skipped = 0;
	const char *shown;
	int ret = 0;

	lp_error__clear(err);
	if (r->nroofs == 0)
		return lp_error__set(err, -EINVAL, "no R records: nothing to draw the points against (lp-roofline roofs makes them)");
	ranges(r, &a);
	a.left = 90;
	a.top = 60;
	a.width = o->width - a.left - 30;
	a.height = o->height - a.top - 110;
	/* the widest ISA (the last one measured) is shown first */
	shown = isa_shown(r);
	strbuf__addf(&b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			 "<svg version=\"1.1\" id=\"roofline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			 "xmlns=\"http://www.w3.org/2000/svg\">\n<style type=\"text/css\"><![CDATA[\n%.*s\ntext { font-family: ",
		     o->width, o->height, o->width, o->height, (int)o->csslen, o->css);
	text_escaped(&b, o->fonttype);
	strbuf__addf(&b, "; font-size: %gpx; }\n]]></style>\n", o->fontsize);
	data_json(&json, r, &a);
	if (memmem(o->js, o->jslen, "]]>", 3) || (json.s && strstr(json.s, "]]>"))) {
		ret = lp_error__set(err, -EINVAL, "the script would end its CDATA section");
		goto cleanup;
	}
	strbuf__addf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fcfcfa\"/>\n"
			 "<text id=\"title\" x=\"%.1f\" y=\"24\" text-anchor=\"middle\">",
		     o->width, o->height, o->width / 2.0);
	text_escaped(&b, o->title);
	strbuf__addf(&b, "</text>\n<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
			 "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"46\" text-anchor=\"end\" display=\"none\">"
			 "Reset zoom</text>\n<g id=\"legend\">",
		     o->width - 12, o->width - 12);
	for (size_t i = 0; i < r->nisas; i++) {
		strbuf__addf(&b, "<text class=\"button isa-button%s\" data-isa=\"", strcmp(r->isas[i], shown) ? "" : " on");
		text_escaped(&b, r->isas[i]);
		strbuf__addf(&b, "\" x=\"%.1f\" y=\"46\">", a.left + 90.0 * i);
		text_escaped(&b, *r->isas[i] ? r->isas[i] : "roofs");
		strbuf__addf(&b, "</text>");
	}
	strbuf__addf(&b, "</g>\n");
	draw_axes(&b, &a);
	for (size_t i = 0; i < r->nisas; i++)
		draw_isa(&b, r, &a, r->isas[i], strcmp(r->isas[i], shown) == 0);
	draw_points(&b, r, &a);
	for (size_t i = 0; i < r->npoints; i++)
		skipped += !plottable(&r->points[i]);
	strbuf__addf(&b, "<text id=\"details\" x=\"%.1f\" y=\"%.1f\">", a.left, a.top + a.height + 62);
	strbuf__addf(&b, "%s", counts_said(r));
	if (skipped)
		strbuf__addf(&b, "Not drawn: %zu region%s without FLOPs, bytes or time.", skipped, skipped == 1 ? "" : "s");
	strbuf__addf(&b, "</text>\n<text id=\"details2\" x=\"%.1f\" y=\"%.1f\"></text>\n", a.left,
		     a.top + a.height + 82);
	/* last, so that what it works on is there when it runs */
	strbuf__addf(&b, "<script type=\"text/ecmascript\"><![CDATA[\nvar lpRooflineData = %s;\n%.*s\n]]></script>\n</svg>\n",
		     json.s, (int)o->jslen, o->js);
	if (!b.s) {
		ret = lp_error__set(err, -ENOMEM, "out of memory");
		goto cleanup;
	}
	if (fwrite(b.s, 1, b.len, out) != b.len)
		ret = -EIO;
cleanup:
	strbuf__release(&b);
	strbuf__release(&json);
	return ret;
}
