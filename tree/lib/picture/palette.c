/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "picture/palette.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picture/flametree.h"

static const char *const palettes[] = {
	"hot", "mem", "io", "wakeup", "java", "js", "perl", "red", "green", "blue",
	"aqua", "yellow", "purple", "orange", "chain",
};

bool palette__valid(const char *name)
{
	for (size_t i = 0; i < sizeof(palettes) / sizeof(palettes[0]); i++)
		if (strcmp(name, palettes[i]) == 0)
			return true;
	return false;
}

static uint32_t rgb(int r, int g, int b)
{
	return (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* flamegraph.pl's namehash: the first characters, each weighing less. */
static double vector_hash(const unsigned char *name, size_t len, bool reverse)
{
	unsigned char s[3];
	double vector = 0, weight = 1, max = 1;
	size_t start = 0, n = 0;
	int mod = 10;

	/* s/.(.*?)`// drops a "module`" prefix (of the reversed name too) */
	for (size_t i = 1; i < len; i++) {
		if (name[reverse ? len - 1 - i : i] == '`') {
			start = i + 1;
			break;
		}
	}
	for (size_t i = start; i < len && n < 3; i++)
		s[n++] = name[reverse ? len - 1 - i : i];
	for (size_t k = 0; k < n; k++) {
		int i = s[k] % mod;

		vector += ((double)i / (mod++ - 1)) * weight;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

/* flamegraph.pl's random_namehash: Perl's srand(sum of bytes) and rand(), which are drand48. */
static double random_hash(const unsigned char *s, size_t len)
{
	uint32_t sum = 0;
	struct drand48_data state;
	double v;

	for (size_t i = 0; i < len; i++)
		sum += s[i];
	srand48_r(sum, &state);
	drand48_r(&state, &v);
	return v;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool has(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

static bool java_name(const char *s, size_t len)
{
	static const char *const prefixes[] = { "java/", "javax/", "jdk/", "net/", "org/",
						"com/", "io/", "sun/" };

	if (len > 0 && s[0] == 'L')
		s++, len--;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (len >= strlen(prefixes[i]) && memcmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The multi palettes pick a plain palette from the name. */
static const char *resolve(const char *type, const char *s, size_t len)
{
	if (strcmp(type, "java") == 0) {
		if (ends_with(s, len, "_[j]") || java_name(s, len) || has(s, len, ":::"))
			return "green";
		if (ends_with(s, len, "_[i]"))
			return "aqua";
		if (has(s, len, "::"))
			return "yellow";
		if (ends_with(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (strcmp(type, "perl") == 0) {
		if (has(s, len, "::"))
			return "yellow";
		if (has(s, len, "Perl") || has(s, len, ".pl"))
			return "green";
		if (ends_with(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (strcmp(type, "js") == 0) {
		const char *slash = memchr(s, '/', len);

		if (ends_with(s, len, "_[j]"))
			return slash ? "green" : "aqua";
		if (has(s, len, "::"))
			return "yellow";
		if (slash && has(slash, len - (size_t)(slash - s), ".js"))
			return "green";
		if (memchr(s, ':', len))
			return "aqua";
		if (len == 1 && s[0] == ' ')
			return "green";
		if (has(s, len, "_[k]"))
			return "orange";
		return "red";
	}
	if (strcmp(type, "wakeup") == 0)
		return "aqua";
	if (strcmp(type, "chain") == 0)
		return has(s, len, "_[w]") ? "aqua" : "blue";
	return type;
}

uint32_t palette__color(const char *palette, enum palette_hash hash, const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	double v1, v2, v3;
	const char *type;

	if (hash == HASH_NAME_VECTOR) {
		v1 = vector_hash(s, len, false);
		v2 = v3 = vector_hash(s, len, true);
	} else if (hash == HASH_RANDOM) {
		v1 = drand48();
		v2 = drand48();
		v3 = drand48();
	} else {
		v1 = v2 = v3 = random_hash(s, len);
	}
	if (strcmp(palette, "hot") == 0)
		return rgb(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
	if (strcmp(palette, "mem") == 0)
		return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
	if (strcmp(palette, "io") == 0)
		return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1), 190 + (int)(55 * v2));
	type = resolve(palette, name, len);
	if (strcmp(type, "red") == 0)
		return rgb(200 + (int)(55 * v1), 50 + (int)(80 * v1), 50 + (int)(80 * v1));
	if (strcmp(type, "green") == 0)
		return rgb(50 + (int)(60 * v1), 200 + (int)(55 * v1), 50 + (int)(60 * v1));
	if (strcmp(type, "blue") == 0)
		return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1), 205 + (int)(50 * v1));
	if (strcmp(type, "yellow") == 0)
		return rgb(175 + (int)(55 * v1), 175 + (int)(55 * v1), 50 + (int)(20 * v1));
	if (strcmp(type, "purple") == 0)
		return rgb(190 + (int)(65 * v1), 80 + (int)(60 * v1), 190 + (int)(65 * v1));
	if (strcmp(type, "aqua") == 0)
		return rgb(50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
	if (strcmp(type, "orange") == 0)
		return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	return 0;
}

uint32_t palette__diff_color(int64_t delta, uint64_t maxdelta, bool negate)
{
	int r = 255, g = 255, b = 255;
	double max = maxdelta ? (double)maxdelta : 1;

	if (negate)
		delta = -delta;
	if (delta > 0)
		g = b = (int)(210 * (max - (double)delta) / max);
	else if (delta < 0)
		r = g = (int)(210 * (max + (double)delta) / max);
	return rgb(r, g, b);
}

uint32_t palette__blend(uint32_t warm, double off)
{
	/* the off-CPU end is flamegraph.pl's blue */
	static const int blue[3] = { 90, 110, 230 };
	int c[3] = { (int)(warm >> 16 & 255), (int)(warm >> 8 & 255), (int)(warm & 255) };

	if (off < 0)
		off = 0;
	if (off > 1)
		off = 1;
	for (int i = 0; i < 3; i++)
		c[i] = (int)(c[i] + (blue[i] - c[i]) * off + 0.5);
	return rgb(c[0], c[1], c[2]);
}

bool palette__background(const char *bg, char top[8], char bottom[8])
{
	static const struct {
		const char *name, *top, *bottom;
	} themes[] = {
		{ "yellow", "#eeeeee", "#eeeeb0" },
		{ "blue", "#eeeeee", "#e0e0ff" },
		{ "green", "#eef2ee", "#e0ffe0" },
		{ "grey", "#f8f8f8", "#e8e8e8" },
	};

	for (size_t i = 0; i < sizeof(themes) / sizeof(themes[0]); i++) {
		if (strcmp(bg, themes[i].name) == 0) {
			memcpy(top, themes[i].top, 8);
			memcpy(bottom, themes[i].bottom, 8);
			return true;
		}
	}
	if (strlen(bg) == 7 && bg[0] == '#' && strspn(bg + 1, "0123456789abcdefABCDEF") == 6) {
		memcpy(top, bg, 8);
		memcpy(bottom, bg, 8);
		return true;
	}
	return false;
}

const char *palette__default_background(const char *palette)
{
	if (strcmp(palette, "mem") == 0)
		return "green";
	if (strcmp(palette, "io") == 0 || strcmp(palette, "wakeup") == 0 ||
	    strcmp(palette, "chain") == 0)
		return "blue";
	if (strcmp(palette, "red") == 0 || strcmp(palette, "green") == 0 ||
	    strcmp(palette, "blue") == 0 || strcmp(palette, "aqua") == 0 ||
	    strcmp(palette, "yellow") == 0 || strcmp(palette, "purple") == 0 ||
	    strcmp(palette, "orange") == 0)
		return "grey";
	return "yellow";
}

struct stackmap *palette_map__load(const char *path, struct lp_error *err)
{
	struct stackmap *m = stackmap__new();
	FILE *f = m ? fopen(path, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;

	lp_error__clear(err);
	if (!m)
		return NULL;
	if (!f) {
		if (errno == ENOENT)
			return m;
		lp_error__set(err, 0, "cannot read '%s': %s", path, strerror(errno));
		stackmap__free(m);
		return NULL;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *arrow;
		int r, g, b, end = 0;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		arrow = strstr(line, "->rgb(");
		if (!arrow || sscanf(arrow, "->rgb(%d,%d,%d)%n", &r, &g, &b, &end) != 3 ||
		    arrow[end] != 0 || r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255) {
			err->file = path;
			err->line = lineno;
			lp_error__set(err, 0, "expected 'NAME->rgb(R,G,B)'");
			free(line);
			fclose(f);
			stackmap__free(m);
			errno = EINVAL;
			return NULL;
		}
		if (palette_map__put(m, line, (size_t)(arrow - line), rgb(r, g, b)) < 0) {
			free(line);
			fclose(f);
			stackmap__free(m);
			errno = ENOMEM;
			return NULL;
		}
	}
	free(line);
	fclose(f);
	return m;
}

bool palette_map__get(struct stackmap *m, const char *name, size_t len, uint32_t *color)
{
	/* the count is the colour plus one */
	struct stack_entry *e = stackmap__find(m, name, len);

	if (!e || e->count[0] == 0)
		return false;
	*color = (uint32_t)(e->count[0] - 1);
	return true;
}

int palette_map__put(struct stackmap *m, const char *name, size_t len, uint32_t color)
{
	struct stack_entry *e = stackmap__add(m, name, len, 1, 0);

	if (!e)
		return -ENOMEM;
	e->count[0] = (uint64_t)color + 1;
	return 0;
}

int palette_map__save(struct stackmap *m, const char *path)
{
	struct stack_entry **sorted = stackmap__sorted(m);
	FILE *f;
	int ret = 0;

	if (!sorted)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (size_t i = 0; i < stackmap__size(m); i++) {
		uint32_t c;

		if (sorted[i]->count[0] == 0)
			continue;
		c = (uint32_t)(sorted[i]->count[0] - 1);
		fprintf(f, "%.*s->rgb(%u,%u,%u)\n", (int)sorted[i]->len, sorted[i]->key,
			c >> 16 & 255, c >> 8 & 255, c & 255);
	}
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}

int palette_map__remember(struct stackmap *m, const struct flametree *t, const char *palette,
			  enum palette_hash hash)
{
	for (size_t i = 0; i < flametree__names(t); i++) {
		size_t len;
		const char *name = flametree__name(t, (uint32_t)i, &len);
		uint32_t rgb;

		if (!palette_map__get(m, name, len, &rgb) &&
		    palette_map__put(m, name, len, palette__color(palette, hash, name, len)) < 0)
			return -ENOMEM;
	}
	return 0;
}
