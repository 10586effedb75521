/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/eventspec.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/pfmload.h"

#include "base/numparse.h"
#include "record/tracefs.h"

struct named {
	const char *name;
	uint64_t config;
};

static const struct named hardware[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named software[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
};

static const struct named caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },        { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },     { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

/* each operation's name alone, counted ("loads"), and with -misses ("load-misses") */
static const struct {
	const char *op, *accesses;
	uint64_t config;
} cache_ops[] = {
	{ "load", "loads", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", "stores", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void event_counts__doubt(const char *name, uint64_t value, uint64_t enabled, uint64_t running, char *buf,
			 size_t size)
{
	if (running < enabled - enabled / 100)
		snprintf(buf, size, "event '%s' was multiplexed: it counted during %.2f of the time it was "
			 "enabled, and its samples cover only that", name,
			 enabled ? (double)running / (double)enabled : 0.0);
	else if (value >= 1ULL << 47)
		snprintf(buf, size, "event '%s' counted %llu, which no program does: its PMU is not to be "
			 "trusted here", name, (unsigned long long)value);
	else if (size)
		buf[0] = 0;
}

const char *event_kind__name(enum event_kind k)
{
	static const char *const names[] = { "hardware", "hardware cache", "software", "raw", "PMU",
					     "tracepoint", "PMU (libpfm4)" };

	return (size_t)k < COUNT(names) ? names[k] : "?";
}

void event_spec__each_generic(void (*fn)(void *ctx, const char *name, enum event_kind kind), void *ctx)
{
	char name[64];

	for (size_t i = 0; i < COUNT(hardware); i++)
		fn(ctx, hardware[i].name, EVENT_HARDWARE);
	for (size_t i = 0; i < COUNT(caches); i++)
		for (size_t j = 0; j < COUNT(cache_ops); j++) {
			snprintf(name, sizeof(name), "%s-%s", caches[i].name, cache_ops[j].accesses);
			fn(ctx, name, EVENT_CACHE);
			snprintf(name, sizeof(name), "%s-%s-misses", caches[i].name, cache_ops[j].op);
			fn(ctx, name, EVENT_CACHE);
		}
	for (size_t i = 0; i < COUNT(software); i++)
		fn(ctx, software[i].name, EVENT_SOFTWARE);
}

static bool find_named(const struct named *t, size_t n, const char *name, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			*config = t[i].config;
			return true;
		}
	return false;
}

/* L1-dcache-load-misses and the like: the perf_event_attr config of a cache event. */
static bool find_cache(const char *name, uint64_t *config)
{
	for (size_t i = 0; i < COUNT(caches); i++) {
		size_t n = strlen(caches[i].name);

		if (strncmp(name, caches[i].name, n) != 0 || name[n] != '-')
			continue;
		for (size_t j = 0; j < COUNT(cache_ops); j++) {
			const char *rest = name + n + 1;
			size_t m = strlen(cache_ops[j].op);
			uint64_t base = caches[i].config | cache_ops[j].config << 8;

			if (strcmp(rest, cache_ops[j].accesses) == 0) {
				*config = base | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16;
				return true;
			}
			if (strncmp(rest, cache_ops[j].op, m) == 0 && strcmp(rest + m, "-misses") == 0) {
				*config = base | (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
				return true;
			}
		}
	}
	return false;
}

/* A number as sysfs and perf users write them: decimal or 0x hexadecimal, the whole text. */
static int parse_number(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (size_t i = 2; i < len; i++) {
			int d = hex_digit((unsigned char)s[i]);

			if (d < 0 || x >> 60)
				return -EINVAL;
			x = x << 4 | (uint64_t)d;
		}
		*v = x;
		return 0;
	}
	return numparse__u64(s, len, v);
}

static char *read_line(const char *path, struct lp_error *err)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	int e;

	if (!f) {
		e = errno;
		lp_error__set(err, 0, "cannot open '%s': %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		lp_error__set(err, 0, "'%s' is empty", path);
		errno = EINVAL;
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

/*
 * Puts value into the bits of format ("config:0-7,32-35", "config1:3"),
 * lowest bits first.
 */
static int apply_format(struct event_spec *e, const char *format, uint64_t value, const char *term,
			struct lp_error *err)
{
	const char *colon = strchr(format, ':'), *p;
	uint64_t *target;
	unsigned used = 0;

	if (!colon)
		return lp_error__set(err, -EINVAL, "PMU term '%s' has a format '%s' lp-record does not know", term,
				     format);
	if ((size_t)(colon - format) == 6 && strncmp(format, "config", 6) == 0)
		target = &e->config;
	else if ((size_t)(colon - format) == 7 && strncmp(format, "config1", 7) == 0)
		target = &e->config1;
	else if ((size_t)(colon - format) == 7 && strncmp(format, "config2", 7) == 0)
		target = &e->config2;
	else
		return lp_error__set(err, -EINVAL, "PMU term '%s' has a format '%s' lp-record does not know", term,
				     format);
	for (p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return lp_error__set(err, -EINVAL, "bad format '%s' of PMU term '%s'", format, term);
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return lp_error__set(err, -EINVAL, "bad format '%s' of PMU term '%s'", format, term);
		}
		if (hi < lo || hi > 63)
			return lp_error__set(err, -EINVAL, "bad format '%s' of PMU term '%s'", format, term);
		for (unsigned long bit = lo; bit <= hi; bit++, used++)
			if (used < 64 && (value >> used & 1))
				*target |= 1ULL << bit;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return lp_error__set(err, -EINVAL, "bad format '%s' of PMU term '%s'", format, term);
	}
	if (used < 64 && value >> used)
		return lp_error__set(err, -EINVAL, "value %#llx of PMU term '%s' does not fit its %u bits",
				     (unsigned long long)value, term, used);
	return 0;
}

static int apply_terms(struct event_spec *e, const char *dir, const char *pmu, const char *terms, int depth,
		       struct lp_error *err);

/* One term: config=, a format term (event=0x3c), a flag (edge), or an event alias of the PMU. */
static int apply_term(struct event_spec *e, const char *dir, const char *pmu, const char *term, size_t len,
		      int depth, struct lp_error *err)
{
	char key[128], path[512], *format, *alias;
	const char *eq = memchr(term, '=', len);
	size_t klen = eq ? (size_t)(eq - term) : len;
	uint64_t value = 1;
	int ret;

	if (klen == 0 || klen >= sizeof(key) || memchr(term, '/', klen))
		return lp_error__set(err, -EINVAL, "bad PMU term '%.*s' in '%s'", (int)len, term, e->name);
	memcpy(key, term, klen);
	key[klen] = 0;
	if (eq && parse_number(eq + 1, len - klen - 1, &value) < 0)
		return lp_error__set(err, -EINVAL, "PMU term '%.*s' needs a number (decimal or 0x...)", (int)len,
				     term);
	if (strcmp(key, "config") == 0 || strcmp(key, "config1") == 0 || strcmp(key, "config2") == 0) {
		*(key[6] == '1' ? &e->config1 : key[6] == '2' ? &e->config2 : &e->config) |= value;
		return 0;
	}
	if (strcmp(key, "period") == 0) {
		e->period = value;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s/format/%s", dir, pmu, key);
	if ((format = read_line(path, NULL))) {
		ret = apply_format(e, format, value, key, err);
		free(format);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/%s/events/%s", dir, pmu, key);
	if (!eq && depth == 0 && (alias = read_line(path, NULL))) {
		ret = apply_terms(e, dir, pmu, alias, depth + 1, err);
		free(alias);
		return ret;
	}
	return lp_error__set(err, -EINVAL, "PMU '%s' has no term or event '%s' (see %s/%s/format and events)", pmu,
			     key, dir, pmu);
}

static int apply_terms(struct event_spec *e, const char *dir, const char *pmu, const char *terms, int depth,
		       struct lp_error *err)
{
	for (const char *p = terms; *p;) {
		size_t n = strcspn(p, ",");
		int ret;

		if (n && (ret = apply_term(e, dir, pmu, p, n, depth, err)) < 0)
			return ret;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* pmu/term,term/ */
static int resolve_pmu(struct event_spec *e, const struct event_env *env, struct lp_error *err)
{
	const char *dir = env && env->sysfs_pmus ? env->sysfs_pmus : "/sys/bus/event_source/devices";
	const char *slash = strchr(e->name, '/'), *close = slash ? strchr(slash + 1, '/') : NULL;
	char pmu[128], path[512], *type, *terms;
	uint64_t t;
	int ret;

	if (!close || close[1] || slash == e->name || (size_t)(slash - e->name) >= sizeof(pmu))
		return lp_error__set(err, -EINVAL, "bad PMU event '%s': write it PMU/TERM=VALUE,.../", e->name);
	memcpy(pmu, e->name, (size_t)(slash - e->name));
	pmu[slash - e->name] = 0;
	snprintf(path, sizeof(path), "%s/%s/type", dir, pmu);
	if (!(type = read_line(path, NULL)))
		return lp_error__set(err, -ENOENT, "no PMU '%s' on this machine (see %s)", pmu, dir);
	ret = numparse__u64(type, strlen(type), &t);
	free(type);
	if (ret < 0 || t > UINT32_MAX)
		return lp_error__set(err, -EINVAL, "cannot read the type of PMU '%s' from '%s'", pmu, path);
	e->kind = EVENT_PMU;
	e->type = (uint32_t)t;
	terms = strndup(slash + 1, (size_t)(close - slash - 1));
	if (!terms)
		return -ENOMEM;
	ret = apply_terms(e, dir, pmu, terms, 0, err);
	free(terms);
	return ret;
}

static bool is_tracepoint_name(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon || colon == s || !colon[1] || strchr(colon + 1, ':'))
		return false;
	for (const char *p = s; *p; p++)
		if (p != colon && !isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
	return true;
}

/* system:name; 1 when there is no such tracepoint (the name may be libpfm4's) */
static int resolve_tracepoint(struct event_spec *e, const struct event_env *env, struct lp_error *err)
{
	const char *dir = env && env->tracefs ? env->tracefs : tracefs__dir();
	const char *colon = strchr(e->name, ':');
	int id;

	if (!dir)
		return 1;
	e->tp_system = strndup(e->name, (size_t)(colon - e->name));
	e->tp_name = strdup(colon + 1);
	if (!e->tp_system || !e->tp_name)
		return -ENOMEM;
	id = tracefs__event_id(dir, e->tp_system, e->tp_name);
	if (id == -ENOENT)
		return 1;
	if (id < 0)
		return lp_error__set(err, id, "cannot read the id of tracepoint '%s' in '%s'", e->name, dir);
	e->kind = EVENT_TRACEPOINT;
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = (uint64_t)id;
	return 0;
}

/* A named PMU event of this CPU, by libpfm4; 1 when libpfm4 does not know it. */
static int resolve_pfm(struct event_spec *e, struct lp_error *err)
{
	static int initialized;
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	if (!initialized)
		initialized = pfmload__initialize() == PFM_SUCCESS ? 1 : -1;
	if (initialized < 0)
		return 1;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfmload__get_os_event_encoding(e->name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return 1;
	if (ret != PFM_SUCCESS)
		return lp_error__set(err, -EINVAL, "libpfm4 cannot encode '%s': %s", e->name, pfmload__strerror(ret));
	e->kind = EVENT_PFM;
	e->type = attr.type;
	e->config = attr.config;
	e->config1 = attr.config1;
	e->config2 = attr.config2;
	return 0;
}

static int resolve(struct event_spec *e, const struct event_env *env, struct lp_error *err)
{
	const char *n = e->name;
	int ret;

	if (strchr(n, '/'))
		return resolve_pmu(e, env, err);
	if (find_named(hardware, COUNT(hardware), n, &e->config)) {
		e->kind = EVENT_HARDWARE;
		e->type = PERF_TYPE_HARDWARE;
		return 0;
	}
	if (find_named(software, COUNT(software), n, &e->config)) {
		e->kind = EVENT_SOFTWARE;
		e->type = PERF_TYPE_SOFTWARE;
		return 0;
	}
	if (find_cache(n, &e->config)) {
		e->kind = EVENT_CACHE;
		e->type = PERF_TYPE_HW_CACHE;
		return 0;
	}
	if (n[0] == 'r' && n[1] && strspn(n + 1, "0123456789abcdefABCDEF") == strlen(n + 1) && strlen(n + 1) <= 16) {
		e->kind = EVENT_RAW;
		e->type = PERF_TYPE_RAW;
		e->config = strtoull(n + 1, NULL, 16);
		return 0;
	}
	if (is_tracepoint_name(n) && (ret = resolve_tracepoint(e, env, err)) <= 0)
		return ret;
	if ((ret = resolve_pfm(e, err)) <= 0)
		return ret;
	return lp_error__set(err, -EINVAL,
			     "unknown event '%s': not a perf event name, rNNNN, PMU/TERMS/, a tracepoint "
			     "SYSTEM:NAME in tracefs, nor an event libpfm4 knows for this CPU (see lp-record "
			     "--list-events)", n);
}

/* Events per sample when -e gives none: every tracepoint and most software events; about 1 kHz of clocks. */
static uint64_t default_period(const struct event_spec *e)
{
	switch (e->kind) {
	case EVENT_TRACEPOINT:
		return 1;
	case EVENT_SOFTWARE:
		return e->config == PERF_COUNT_SW_CPU_CLOCK || e->config == PERF_COUNT_SW_TASK_CLOCK ? 1000000 : 1;
	case EVENT_CACHE:
		return 10007;
	default:
		return 1000003;
	}
}

/* The EVENT name made a key lists can hold: no separators, no escapes. */
static char *key_of(const char *name)
{
	char *k = strdup(name);

	for (char *p = k; p && *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.:+-", *p))
			*p = '_';
	return k;
}

/* The end of EVENT in arg: PMU syntax keeps its commas between the slashes. */
size_t event_spec__name_length(const char *arg)
{
	const char *slash = strchr(arg, '/'), *comma = strchr(arg, ',');
	const char *close;

	if (slash && (!comma || slash < comma) && (close = strchr(slash + 1, '/')))
		return (size_t)(close + 1 - arg) + strcspn(close + 1, ",");
	return strcspn(arg, ",");
}

int event_spec__parse(struct event_spec *e, const char *arg, const struct event_env *env, struct lp_error *err)
{
	size_t n = event_spec__name_length(arg);
	const char *rest = arg + n, *title = NULL, *unit = NULL;
	char *period = NULL, *fields = NULL;
	uint64_t p = 0;
	int ret = 0;

	memset(e, 0, sizeof(*e));
	if (n == 0) {
		ret = lp_error__set(err, -EINVAL, "no event in '%s'", arg);
		goto cleanup;
	}
	if (!(e->name = strndup(arg, n)) || (*rest == ',' && !(fields = strdup(rest + 1)))) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if (fields) {
		char *c;

		period = fields;
		if ((c = strchr(period, ','))) {
			*c = 0;
			title = c + 1;
			if ((c = strchr(c + 1, ','))) {
				*c = 0;
				unit = c + 1;
			}
		}
		if (*period && (numparse__u64(period, strlen(period), &p) < 0 || p == 0)) {
			ret = lp_error__set(err, -EINVAL, "the period of '%s' must be a whole number of events from 1, got '%s'",
					    e->name, period);
			goto cleanup;
		}
		if (unit && (!*unit || strpbrk(unit, "\t\n\r"))) {
			ret = lp_error__set(err, -EINVAL, "bad unit '%s' for '%s'", unit, e->name);
			goto cleanup;
		}
		if (title && strpbrk(title, "\t\n\r")) {
			ret = lp_error__set(err, -EINVAL, "a title cannot hold tabs or line breaks");
			goto cleanup;
		}
	}
	if ((ret = resolve(e, env, err)) < 0)
		goto cleanup;
	if (!e->period)
		e->period = p ? p : default_period(e);
	else if (p)
		e->period = p;
	e->key = key_of(e->name);
	e->title = strdup(title && *title ? title : e->name);
	e->unit = strdup(unit ? unit :
			 e->kind == EVENT_SOFTWARE && (e->config == PERF_COUNT_SW_CPU_CLOCK ||
						       e->config == PERF_COUNT_SW_TASK_CLOCK) ? "ns" : "events");
	if (!e->key || !e->title || !e->unit)
		ret = -ENOMEM;
cleanup:
	free(fields);
	if (ret < 0)
		event_spec__release(e);
	return ret;
}

void event_spec__release(struct event_spec *e)
{
	if (!e)
		return;
	free(e->key);
	free(e->name);
	free(e->title);
	free(e->unit);
	free(e->tp_system);
	free(e->tp_name);
	memset(e, 0, sizeof(*e));
}
