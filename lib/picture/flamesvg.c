/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/flamesvg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picture/embed.h"
#include "base/json.h"
#include "picture/namerank.h"
#include "base/numparse.h"
#include "base/strbuf.h"
#include "base/xml.h"

/* Geometry, as in flamegraph.pl. */
struct layout {
	double width, height, xpad, ypad1, ypad2, framepad;
	double fh, fontsize, fontwidth;
	double minpx;
	double scale;		/* pixels per value unit */
	uint64_t scale_total;
	bool inverted;
};

struct writer {
	FILE *out;
	const struct flametree *t;
	const struct flamesvg_opts *o;
	struct layout l;
	uint32_t *name_color;	/* per name */
	uint64_t maxdelta;
	struct strbuf b;	/* scratch */
	int err;
};

static uint64_t width_value(const struct writer *w, const struct flame_node *n)
{
	return w->o->coloring == COLORING_DIFF ? n->total[1] : n->total[0] + n->total[1];
}

static void emit(struct writer *w, const char *s, size_t len)
{
	if (len && fwrite_unlocked(s, 1, len, w->out) != len)
		w->err = -EIO;
}

#define emit_lit(w, s) emit(w, s, sizeof(s) - 1)

static void emitf(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emitf(struct writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(w->out, fmt, ap) < 0)
		w->err = -EIO;
	va_end(ap);
}

static void emit_xml(struct writer *w, const char *s, size_t len)
{
	strbuf__reset(&w->b);
	if (xml__escape(&w->b, s, len) < 0) {
		w->err = -ENOMEM;
		return;
	}
	emit(w, w->b.s, w->b.len);
}

static size_t strip_annotation(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    strchr("kwij", s[len - 2]))
		return len - 4;
	return len;
}

/* A node's own values: its totals less its children's (the tree is in preorder: they are near). */
static uint64_t self_value(const struct flametree *t, uint32_t id, int col)
{
	const struct flame_node *n = flametree__node(t, id);
	uint64_t v = n->total[col];

	for (uint32_t c = n->first_child; c != FLAME_NONE; c = flametree__node(t, c)->next_sibling)
		v -= flametree__node(t, c)->total[col];
	return v;
}

/* Differential: how much the stacks ending in node id grew (second minus first profile). */
static int64_t self_delta(const struct writer *w, uint32_t id)
{
	return (int64_t)(self_value(w->t, id, 1) - self_value(w->t, id, 0));
}

static uint32_t frame_color(const struct writer *w, uint32_t id)
{
	const struct flame_node *n = flametree__node(w->t, id);
	size_t len;
	const char *name = flametree__name(w->t, n->name, &len);

	if (len == 2 && memcmp(name, "--", 2) == 0)
		return 0xa0a0a0;
	if (len == 1 && name[0] == '-')
		return 0xc8c8c8;
	if (w->o->coloring == COLORING_DIFF)
		return palette__diff_color(self_delta(w, id), w->maxdelta, w->o->negate);
	if (w->o->coloring == COLORING_ONOFF) {
		uint64_t all = n->total[0] + n->total[1];

		return palette__blend(w->name_color[n->name], all ? (double)n->total[1] / (double)all : 0);
	}
	return w->name_color[n->name];
}

static double frame_y(const struct layout *l, uint32_t depth)
{
	if (l->inverted)
		return l->ypad1 + depth * l->fh;
	return l->height - l->ypad2 - (depth + 1) * l->fh + l->framepad;
}

/* before, then v as "%.1f": where it ends (printf's own is a third of the drawing's time) */
static char *put_tenths(char *p, const char *before, double v)
{
	return numparse__format_tenths(stpcpy(p, before), v);
}

/* A colour as "%06x" */
static char *put_color(char *p, uint32_t color)
{
	static const char hex[] = "0123456789abcdef";

	if (color > 0xffffff)
		return p + sprintf(p, "%06" PRIx32, color);
	for (int i = 5; i >= 0; i--, color >>= 4)
		p[i] = hex[color & 15];
	return p + 6;
}

/* One frame: a rectangle and, when three characters fit, its name. */
static void draw(struct writer *w, double x, uint64_t value, uint32_t depth, uint32_t color,
		 const char *name, size_t len)
{
	const struct layout *l = &w->l;
	double x1 = l->xpad + x * l->scale, width = (double)value * l->scale;
	double y1 = frame_y(l, depth), h = l->fh - l->framepad;
	size_t chars = (size_t)(width / (l->fontsize * l->fontwidth));
	char buf[4 * FORMAT_TENTHS_MAX + 64], *p = buf;

	p = put_tenths(p, "<rect x=\"", x1);
	p = put_tenths(p, "\" y=\"", y1);
	p = put_tenths(p, "\" width=\"", width);
	p = put_tenths(p, "\" height=\"", h);
	p = put_color(stpcpy(p, "\" fill=\"#"), color);
	p = stpcpy(p, "\"/>");
	emit(w, buf, (size_t)(p - buf));
	len = strip_annotation(name, len);
	/* a label cut keeps three characters at least ("[x.." says nothing), or there is none */
	if (chars >= 3 && (len <= chars || chars >= 5)) {
		size_t n = len <= chars ? len : chars - 2;

		/* never cut a UTF-8 sequence */
		while (n > 0 && n < len && ((unsigned char)name[n] & 0xC0) == 0x80)
			n--;
		p = put_tenths(buf, "<text x=\"", x1 + 3);
		p = put_tenths(p, "\" y=\"", 3 + y1 + h / 2);
		p = stpcpy(p, "\">");
		emit(w, buf, (size_t)(p - buf));
		emit_xml(w, name, n);
		if (n < len)
			emit_lit(w, "..");
		emit_lit(w, "</text>");
	}
	emit_lit(w, "\n");
}

struct pending {
	uint32_t node;
	uint32_t depth;
	double x;
};

/* The picture without scripts: every frame at least minwidth wide, narrower ones as blocks. */
static int draw_frames(struct writer *w)
{
	const struct flametree *t = w->t;
	struct pending *stack = malloc(sizeof(*stack) * (flametree__max_depth(t) + 2) * 2);
	size_t top = 0, cap = (flametree__max_depth(t) + 2) * 2;
	size_t len;
	const char *name;

	if (!stack)
		return -ENOMEM;
	stack[top++] = (struct pending){ 0, 0, 0 };
	while (top > 0 && w->err == 0) {
		struct pending p = stack[--top];
		const struct flame_node *n = flametree__node(t, p.node);
		double x = p.x, run_x = 0;
		uint64_t run = 0;
		uint32_t run_count = 0;

		name = flametree__name(t, n->name, &len);
		draw(w, p.x, width_value(w, n), p.depth, frame_color(w, p.node), name, len);
		for (uint32_t c = n->first_child;; c = flametree__node(t, c)->next_sibling) {
			const struct flame_node *child = c == FLAME_NONE ? NULL : flametree__node(t, c);
			uint64_t v = child ? width_value(w, child) : 0;
			bool wide = child && (double)v * w->l.scale >= w->l.minpx;

			if ((wide || !child) && run_count > 0) {
				if ((double)run * w->l.scale >= w->l.minpx)
					draw(w, run_x, run, p.depth + 1, 0xbebebe, "(compressed)", 12);
				run = 0;
				run_count = 0;
			}
			if (!child)
				break;
			if (wide) {
				if (top == cap) {
					struct pending *s = realloc(stack, (cap *= 2) * sizeof(*s));

					if (!s) {
						free(stack);
						return -ENOMEM;
					}
					stack = s;
				}
				stack[top++] = (struct pending){ c, p.depth + 1, x };
			} else if (v > 0) {
				if (run_count++ == 0)
					run_x = x;
				run += v;
			}
			x += (double)v;
		}
	}
	free(stack);
	return w->err;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static const char *coloring_name(enum flame_coloring c)
{
	return c == COLORING_DIFF ? "diff" : c == COLORING_ONOFF ? "onoff" : "palette";
}

/*
 * The columns of the node data (see node_columns). Small codes are packed
 * several to a byte: deflate then has a quarter of the bytes to search for
 * repeats, which made it ~15 times faster at level 6 on 3.5 million frames
 * and the output a sixth smaller than a byte a code.
 */
enum {
	COL_RANK,	/* 2 bits a frame but the root: rank 1-3, or 3 for one in RARE */
	COL_RARE,	/* varints: a rank of 0 (a new name) or 4 and more */
	COL_NEWNAME,	/* varints: the name ids of rank 0 */
	COL_SHAPE,	/* 4 bits a frame: children 0-2 or 3 for one in KIDS, self0 != 0, self1 != 0 */
	COL_KIDS,	/* varints: children counts of 3 and more */
	COL_SELF0,	/* varints: the self values that are not 0, divided by g */
	COL_SELF1,
	NCOLS
};

struct packer {
	struct strbuf *to;
	unsigned acc, used;
};

static int pack(struct packer *p, unsigned code, unsigned width)
{
	p->acc |= code << p->used;
	p->used += width;
	if (p->used < 8)
		return 0;
	p->used = 0;
	code = p->acc;
	p->acc = 0;
	return strbuf__addc(p->to, (char)code);
}

static int pack_finish(struct packer *p)
{
	return p->used ? strbuf__addc(p->to, (char)p->acc) : 0;
}

/*
 * The nodes in preorder, a column per field so that deflate finds its
 * repeats within each. A name is its rank among the names seen under the
 * parent's name (namerank.h): functions call few others, so it is mostly
 * 1, 2 or 3; where new there, its id follows in a column of its own.
 */
static int node_columns(struct writer *w, uint64_t g, struct strbuf cols[NCOLS])
{
	const struct flametree *t = w->t;
	size_t count = flametree__count(t);
	struct namerank *ranks = namerank__new(flametree__names(t));
	struct packer rank_codes = { &cols[COL_RANK], 0, 0 }, shapes = { &cols[COL_SHAPE], 0, 0 };
	int ret = ranks ? 0 : -ENOMEM;

	/* node ids are the preorder (flametree.h) */
	for (uint32_t id = 0; ret == 0 && id < count; id++) {
		const struct flame_node *n = flametree__node(t, id);
		uint64_t self0 = self_value(t, id, 0) / g, self1 = self_value(t, id, 1) / g;
		uint32_t rank = 0;
		size_t kids = 0;

		for (uint32_t c = n->first_child; c != FLAME_NONE; c = flametree__node(t, c)->next_sibling)
			kids++;
		if (id != 0) {
			ret = namerank__rank(ranks, flametree__node(t, n->parent)->name, n->name, &rank);
			if (ret == 0)
				ret = pack(&rank_codes, rank >= 1 && rank <= 3 ? rank - 1 : 3, 2);
			if (ret == 0 && !(rank >= 1 && rank <= 3))
				ret = embed__varint(&cols[COL_RARE], rank);
			if (ret == 0 && rank == 0)
				ret = embed__varint(&cols[COL_NEWNAME], n->name);
		}
		if (ret == 0)
			ret = pack(&shapes, (kids < 3 ? (unsigned)kids : 3) | (self0 ? 4 : 0) | (self1 ? 8 : 0), 4);
		if (ret == 0 && kids >= 3)
			ret = embed__varint(&cols[COL_KIDS], kids);
		if (ret == 0 && self0)
			ret = embed__varint(&cols[COL_SELF0], self0);
		if (ret == 0 && self1)
			ret = embed__varint(&cols[COL_SELF1], self1);
	}
	if (ret == 0)
		ret = pack_finish(&rank_codes);
	if (ret == 0)
		ret = pack_finish(&shapes);
	namerank__free(ranks);
	return ret;
}

/*
 * Everything the script needs to redraw any part at full detail: a 4-byte
 * little-endian length, a JSON header of that length (layout, names,
 * colours, node count, the columns' lengths), then the node columns.
 */
static int data_json(struct writer *w, struct strbuf *j, struct embed *z)
{
	const struct flametree *t = w->t;
	const struct flamesvg_opts *o = w->o;
	size_t count = flametree__count(t), names = flametree__names(t), len;
	struct strbuf cols[NCOLS] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				      STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	uint64_t g = 0;
	int ret = 0;

	for (size_t i = 0; i < count && g != 1; i++)
		g = gcd(g, gcd(self_value(t, (uint32_t)i, 0), self_value(t, (uint32_t)i, 1)));
	if (g == 0)
		g = 1;
	if ((ret = node_columns(w, g, cols)) < 0)
		goto cleanup;
	ret = strbuf__addf(j, "{\"v\":4,\"cfg\":{\"width\":%.0f,\"height\":%.0f,\"fh\":%.0f,\"fs\":%g,\"fw\":%g,"
		   "\"minpx\":%g,\"xpad\":%.0f,\"ypad1\":%.0f,\"ypad2\":%.0f,\"inverted\":%s,"
		   "\"chart\":%s,\"coloring\":\"%s\",\"negate\":%s,\"total\":%" PRIu64 ","
		   "\"scale\":%" PRIu64 ",\"maxdelta\":%" PRIu64 ",\"unit\":",
		   w->l.width, w->l.height, w->l.fh, w->l.fontsize, w->l.fontwidth, w->l.minpx,
		   w->l.xpad, w->l.ypad1, w->l.ypad2, o->inverted ? "true" : "false",
		   o->flamechart ? "true" : "false", coloring_name(o->coloring),
		   o->negate ? "true" : "false", w->l.scale_total, g, w->maxdelta);
	if (ret == 0)
		ret = o->unit ? json__string(j, o->unit, strlen(o->unit)) : strbuf__add(j, "null", 4);
	if (ret == 0)
		ret = strbuf__add(j, ",\"countname\":", 13);
	if (ret == 0)
		ret = json__string(j, o->countname, strlen(o->countname));
	if (ret == 0)
		ret = strbuf__add(j, ",\"nametype\":", 12);
	if (ret == 0)
		ret = json__string(j, o->nametype, strlen(o->nametype));
	if (ret == 0)
		ret = strbuf__add(j, "},\"names\":[", 11);
	for (size_t i = 0; ret == 0 && i < names; i++) {
		const char *name = flametree__name(t, (uint32_t)i, &len);

		if (i)
			ret = strbuf__addc(j, ',');
		if (ret == 0)
			ret = json__string(j, name, len);
	}
	if (ret == 0)
		ret = strbuf__add(j, "],\"colors\":[", 12);
	for (size_t i = 0; ret == 0 && i < names; i++)
		ret = strbuf__addf(j, i ? ",%" PRIu32 : "%" PRIu32, w->name_color[i]);
	if (ret == 0)
		ret = strbuf__add(j, "],\"notes\":{", 11);
	for (size_t i = 0; ret == 0 && i < o->nframe_notes; i++) {
		if (i)
			ret = strbuf__addc(j, ',');
		if (ret == 0)
			ret = json__string(j, o->frame_note_names[i], strlen(o->frame_note_names[i]));
		if (ret == 0)
			ret = strbuf__addc(j, ':');
		if (ret == 0)
			ret = json__string(j, o->frame_notes[i], strlen(o->frame_notes[i]));
	}
	if (ret == 0)
		ret = strbuf__addf(j, "},\"count\":%zu,\"cols\":[", count);
	for (int c = 0; ret == 0 && c < NCOLS; c++)
		ret = strbuf__addf(j, c ? ",%zu" : "%zu", cols[c].len);
	if (ret == 0)
		ret = strbuf__add(j, "]}", 2);
	if (ret == 0) {
		unsigned char len4[4] = { (unsigned char)j->len, (unsigned char)(j->len >> 8),
					  (unsigned char)(j->len >> 16), (unsigned char)(j->len >> 24) };

		ret = embed__write(z, len4, 4);
		if (ret == 0)
			ret = embed__write(z, j->s, j->len);
		strbuf__reset(j);
	}
	for (int c = 0; ret == 0 && c < NCOLS; c++)
		ret = embed__write(z, cols[c].s ? cols[c].s : "", cols[c].len);
cleanup:
	for (int c = 0; c < NCOLS; c++)
		strbuf__release(&cols[c]);
	return ret;
}

static int emit_data(struct writer *w)
{
	struct embed z;
	struct strbuf json = STRBUF_INIT;
	int ret;

	if (embed__start(&z, w->out, 6) < 0)
		return -ENOMEM;
	emit_lit(w, "<metadata id=\"lp-data\">\n");
	ret = data_json(w, &json, &z);
	if (ret == 0)
		ret = embed__write(&z, json.s ? json.s : "", json.len);
	if (ret == 0)
		ret = embed__finish(&z);
	else
		embed__abort(&z);
	if (ret == 0) {
		emit_lit(w, "</metadata>\n");
		ret = w->err;
	}
	strbuf__release(&json);
	return ret;
}

static void emit_text(struct writer *w, const char *attrs, const char *s)
{
	emitf(w, "<text %s>", attrs);
	emit_xml(w, s, strlen(s));
	emit_lit(w, "</text>\n");
}

static int setup(struct writer *w)
{
	const struct flamesvg_opts *o = w->o;
	const struct flametree *t = w->t;
	struct layout *l = &w->l;
	const struct flame_node *root = flametree__node(t, 0);
	size_t names = flametree__names(t), len;

	l->width = o->width;
	l->fh = o->frameheight;
	l->fontsize = o->fontsize;
	l->fontwidth = o->fontwidth;
	l->framepad = 1;
	l->xpad = 10;
	l->ypad1 = o->fontsize * 3 + (o->subtitle ? o->fontsize * 2 : 0);
	l->ypad2 = o->fontsize * 2 + 10;
	l->inverted = o->inverted;
	l->height = (flametree__max_depth(t) + 1) * l->fh + l->ypad1 + l->ypad2;
	l->scale_total = width_value(w, root);
	if (o->total > l->scale_total)
		l->scale_total = o->total;
	l->scale = l->scale_total ? (l->width - 2 * l->xpad) / (double)l->scale_total : 0;
	l->minpx = o->minwidth_fraction ? o->minwidth * (l->width - 2 * l->xpad) : o->minwidth;

	w->name_color = malloc(sizeof(*w->name_color) * (names ? names : 1));
	if (!w->name_color)
		return -ENOMEM;
	srand48(1);	/* --random is reproducible */
	for (size_t i = 0; i < names; i++) {
		const char *name = flametree__name(t, (uint32_t)i, &len);

		if (!o->mapped_color || !o->mapped_color(o->ctx, name, len, &w->name_color[i]))
			w->name_color[i] = palette__color(o->palette, o->hash, name, len);
	}
	/* the scale of a differential graph's colours */
	for (size_t i = 0; o->coloring == COLORING_DIFF && i < flametree__count(t); i++) {
		int64_t d = self_delta(w, (uint32_t)i);
		uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;

		if (a > w->maxdelta)
			w->maxdelta = a;
	}
	if (w->maxdelta == 0)
		w->maxdelta = 1;
	return 0;
}

int flamesvg__write(FILE *out, const struct flametree *t, const struct flamesvg_opts *o,
		    const struct flamesvg_assets *a)
{
	struct writer w = { .out = out, .t = t, .o = o };
	const struct layout *l = &w.l;
	char top[8], bottom[8], attrs[256];
	const char *bg = o->bgcolors ? o->bgcolors : palette__default_background(o->palette);
	int ret;

	if (memmem(a->js, a->jslen, "]]>", 3) || memmem(a->css, a->csslen, "]]>", 3) ||
	    !palette__background(bg, top, bottom))
		return -EINVAL;
	if ((ret = setup(&w)) < 0)
		goto cleanup;

	emitf(&w, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		  "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		  "xmlns=\"http://www.w3.org/2000/svg\">\n",
	      l->width, l->height, l->width, l->height);
	emit_lit(&w, "<desc>");
	emit_xml(&w, o->notes ? o->notes : "", o->notes ? strlen(o->notes) : 0);
	emit_lit(&w, "</desc>\n");
	emitf(&w, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		  "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
		  "</linearGradient></defs>\n", top, bottom);
	emit_lit(&w, "<style type=\"text/css\"><![CDATA[\n");
	emit(&w, a->css, a->csslen);
	emit_lit(&w, "text { font-family: ");
	emit_xml(&w, o->fonttype, strlen(o->fonttype));
	emitf(&w, "; font-size: %gpx; }\n]]></style>\n", o->fontsize);
	emit_lit(&w, "<script type=\"text/ecmascript\"><![CDATA[\n");
	emit(&w, a->js, a->jslen);
	emit_lit(&w, "]]></script>\n");
	emitf(&w, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n",
	      l->width, l->height);
	snprintf(attrs, sizeof(attrs), "id=\"title\" x=\"%.1f\" y=\"%.0f\"", l->width / 2, o->fontsize * 2);
	emit_text(&w, attrs, o->title);
	if (o->subtitle) {
		snprintf(attrs, sizeof(attrs), "id=\"subtitle\" x=\"%.1f\" y=\"%.0f\"", l->width / 2,
			 o->fontsize * 4);
		emit_text(&w, attrs, o->subtitle);
	}
	snprintf(attrs, sizeof(attrs), "id=\"details\" x=\"%.0f\" y=\"%.0f\"", l->xpad,
		 l->height - l->ypad2 / 2);
	emit_text(&w, attrs, " ");
	snprintf(attrs, sizeof(attrs), "id=\"unzoom\" class=\"hide\" x=\"%.0f\" y=\"%.0f\"", l->xpad,
		 o->fontsize * 2);
	emit_text(&w, attrs, "Reset Zoom");
	snprintf(attrs, sizeof(attrs), "id=\"search\" x=\"%.0f\" y=\"%.0f\"", l->width - l->xpad - 100,
		 o->fontsize * 2);
	emit_text(&w, attrs, "Search");
	snprintf(attrs, sizeof(attrs), "id=\"ignorecase\" x=\"%.0f\" y=\"%.0f\"", l->width - l->xpad - 16,
		 o->fontsize * 2);
	emit_text(&w, attrs, "ic");
	snprintf(attrs, sizeof(attrs), "id=\"matched\" x=\"%.0f\" y=\"%.0f\"", l->width - l->xpad - 100,
		 l->height - l->ypad2 / 2);
	emit_text(&w, attrs, " ");
	emit_lit(&w, "<g id=\"frames\">\n");
	if ((ret = draw_frames(&w)) < 0)
		goto cleanup;
	emit_lit(&w, "</g>\n");
	if ((ret = emit_data(&w)) < 0)
		goto cleanup;
	emit_lit(&w, "</svg>\n");
	ret = w.err;
cleanup:
	free(w.name_color);
	strbuf__release(&w.b);
	return ret;
}
