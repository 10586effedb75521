// SPDX-License-Identifier: GPL-2.0-or-later
#include "stat/statprint.h"

#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

enum { COUNTS_LEN = 18, UNIT_LEN = 4, NAME_LEN = 32, METRIC_UNIT_LEN = 23 };

enum stat_role stat_role__of(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_TASK_CLOCK)
		return STAT_ROLE_TASK_CLOCK;
	if (type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_CPU_CLOCK)
		return STAT_ROLE_CPU_CLOCK;
	if (type != PERF_TYPE_HARDWARE)
		return STAT_ROLE_OTHER;
	switch (config) {
	case PERF_COUNT_HW_CPU_CYCLES: return STAT_ROLE_CYCLES;
	case PERF_COUNT_HW_INSTRUCTIONS: return STAT_ROLE_INSTRUCTIONS;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return STAT_ROLE_BRANCHES;
	case PERF_COUNT_HW_BRANCH_MISSES: return STAT_ROLE_BRANCH_MISSES;
	case PERF_COUNT_HW_CACHE_REFERENCES: return STAT_ROLE_CACHE_REFS;
	case PERF_COUNT_HW_CACHE_MISSES: return STAT_ROLE_CACHE_MISSES;
	default: return STAT_ROLE_OTHER;
	}
}

static bool is_clock(enum stat_role r)
{
	return r == STAT_ROLE_TASK_CLOCK || r == STAT_ROLE_CPU_CLOCK;
}

/* The first counted line of role, or NULL. */
static const struct stat_line *find(const struct stat_line *lines, size_t n, enum stat_role role)
{
	for (size_t i = 0; i < n; i++)
		if (lines[i].role == role && lines[i].state == COUNTER_COUNTED)
			return &lines[i];
	return NULL;
}

static const struct stat_line *find_clock(const struct stat_line *lines, size_t n)
{
	const struct stat_line *c = find(lines, n, STAT_ROLE_TASK_CLOCK);

	return c ? c : find(lines, n, STAT_ROLE_CPU_CLOCK);
}

struct metric {
	const char *fmt;	/* of the value; NULL: none */
	double value;
	char unit[32];
};

/* A count a second of CPU time, in perf's steps (K/sec, M/sec, G/sec). */
static void rate(struct metric *m, double count, double clock_ns)
{
	double r = count * 1e9 / clock_ns;
	const char *prefix = "";

	if (r > 1e9) {
		r /= 1e9;
		prefix = "G";
	} else if (r > 1e6) {
		r /= 1e6;
		prefix = "M";
	} else if (r > 1e3) {
		r /= 1e3;
		prefix = "K";
	}
	m->fmt = "%8.3f";
	m->value = r;
	snprintf(m->unit, sizeof(m->unit), "%s/sec", prefix);
}

static void ratio(struct metric *m, const char *fmt, double value, const char *unit)
{
	m->fmt = fmt;
	m->value = value;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
}

/* The metric perf derives for line l from the others, if any. */
static struct metric metric_of(const struct stat_print *p, const struct stat_line *lines, size_t n,
			       const struct stat_line *l)
{
	const struct stat_line *clock = find_clock(lines, n), *base;
	struct metric m = { 0 };

	if (l->state != COUNTER_COUNTED)
		return m;
	switch (l->role) {
	case STAT_ROLE_TASK_CLOCK:
	case STAT_ROLE_CPU_CLOCK:
		if (p->elapsed_ns > 0)
			ratio(&m, "%8.3f", l->value / p->elapsed_ns, "CPUs utilized");
		return m;
	case STAT_ROLE_CYCLES:
		if (clock && clock->value > 0)
			ratio(&m, "%8.3f", l->value / clock->value, "GHz");
		return m;
	case STAT_ROLE_INSTRUCTIONS:
		if ((base = find(lines, n, STAT_ROLE_CYCLES)) && base->value > 0)
			ratio(&m, "%7.2f ", l->value / base->value, " insn per cycle");
		return m;
	case STAT_ROLE_BRANCH_MISSES:
		if ((base = find(lines, n, STAT_ROLE_BRANCHES)) && base->value > 0)
			ratio(&m, "%7.2f%%", 100 * l->value / base->value, "of all branches");
		return m;
	case STAT_ROLE_CACHE_MISSES:
		if ((base = find(lines, n, STAT_ROLE_CACHE_REFS)) && base->value > 0)
			ratio(&m, "%8.3f %%", 100 * l->value / base->value, "of all cache refs");
		return m;
	default:
		if (clock && clock->value > 0)
			rate(&m, l->value, clock->value);
		return m;
	}
}

static const char *bad_count(const struct stat_line *l)
{
	return l->state == COUNTER_NOT_SUPPORTED ? "<not supported>" : "<not counted>";
}

static double running_pct(const struct stat_line *l)
{
	return l->enabled > 0 ? 100.0 * l->running / l->enabled : 100.0;
}

static void print_csv(const struct stat_print *p, const struct stat_line *l, const struct metric *m)
{
	const char *s = p->sep;
	char buf[64];

	if (p->prefix)
		fprintf(p->out, "%s%s", p->prefix, s);
	if (l->state != COUNTER_COUNTED)
		fprintf(p->out, "%s", bad_count(l));
	else if (is_clock(l->role))
		fprintf(p->out, "%.2f", l->value / 1e6);
	else
		fprintf(p->out, "%.0f", l->value);
	fprintf(p->out, "%s%s%s%s", s, is_clock(l->role) ? "msec" : "", s, l->name);
	if (p->runs > 1)
		fprintf(p->out, "%s%.2f%%", s, l->stderr_pct);
	fprintf(p->out, "%s%.0f%s%.2f%s", s, l->state == COUNTER_NOT_SUPPORTED ? 0.0 : l->running, s,
		running_pct(l), s);
	if (m->fmt) {
		const char *v = buf, *u = m->unit;

		snprintf(buf, sizeof(buf), m->fmt, m->value);
		while (*v == ' ')
			v++;
		while (*u == ' ')
			u++;
		fprintf(p->out, "%s%s%s", v, s, u);
	} else {
		fprintf(p->out, "%s", s);
	}
	fputc('\n', p->out);
}

static void print_human(const struct stat_print *p, const struct stat_line *l, const struct metric *m)
{
	FILE *out = p->out;

	if (p->prefix)
		fprintf(out, "%s ", p->prefix);
	if (l->state != COUNTER_COUNTED)
		fprintf(out, "%*s", COUNTS_LEN, bad_count(l));
	else if (is_clock(l->role))
		fprintf(out, "%*.2f", COUNTS_LEN, l->value / 1e6);
	else
		fprintf(out, "%*.0f", COUNTS_LEN, l->value);
	fprintf(out, " %-*s %-*s", UNIT_LEN, is_clock(l->role) ? "msec" : "", NAME_LEN, l->name);
	if (l->state != COUNTER_COUNTED) {
		fprintf(out, "%28s", "");
	} else if (m->fmt) {
		fputs(" # ", out);
		fprintf(out, m->fmt, m->value);
		fprintf(out, " %-*s", METRIC_UNIT_LEN, m->unit);
	} else {
		fprintf(out, "%35s", "");
	}
	/* (perf leaves out a spread of exactly 0) */
	if (p->runs > 1 && l->state == COUNTER_COUNTED && l->stderr_pct != 0)
		fprintf(out, "  ( +-%6.2f%% )", l->stderr_pct);
	if (l->state == COUNTER_COUNTED && l->running < l->enabled - l->enabled / 1e4)
		fprintf(out, "  (%.2f%%)", running_pct(l));
	fputc('\n', out);
}

void stat_print__line(const struct stat_print *p, const struct stat_line *lines, size_t n, size_t i)
{
	struct metric m = metric_of(p, lines, n, &lines[i]);

	if (p->sep)
		print_csv(p, &lines[i], &m);
	else
		print_human(p, &lines[i], &m);
}

void stat_print__header(const struct stat_print *p, const char *target)
{
	if (p->sep)
		return;
	fprintf(p->out, "\n Performance counter stats for %s", target);
	if (p->runs > 1)
		fprintf(p->out, " (%u runs)", p->runs);
	fputs(":\n\n", p->out);
}

void stat_print__interval_header(const struct stat_print *p, bool per_thread)
{
	if (p->sep)
		return;
	if (per_thread)
		fprintf(p->out, "#           time             comm-tid                counts unit events\n");
	else
		fprintf(p->out, "#           time             counts unit events\n");
}

/* perf's digits for a spread: enough to show its first two. */
static int precision_of(double sd)
{
	return sd >= 1 ? 2 : (int)ceil(-log10(sd)) + 2;
}

void stat_print__footer(const struct stat_print *p, double elapsed_stderr_ns, const double *user_sys)
{
	FILE *out = p->out;
	double secs = p->elapsed_ns / 1e9, sd = elapsed_stderr_ns / 1e9;

	if (p->sep)
		return;
	fputc('\n', out);
	if (p->runs > 1 && sd > 0) {
		int prec = precision_of(sd);

		fprintf(out, " %17.*f +- %.*f seconds time elapsed", prec, secs, prec, sd);
		fprintf(out, "  ( +-%6.2f%% )\n", secs > 0 ? 100 * sd / secs : 0.0);
	} else {
		fprintf(out, " %17.9f seconds time elapsed\n", secs);
	}
	fputc('\n', out);
	if (user_sys && p->runs <= 1)
		fprintf(out, " %17.9f seconds user\n %17.9f seconds sys\n\n\n", user_sys[0], user_sys[1]);
}

void run_stats__add(struct run_stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

double run_stats__stderr(const struct run_stats *s)
{
	return s->n < 2 ? 0 : sqrt(s->m2 / (s->n - 1) / s->n);
}
