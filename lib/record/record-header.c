/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stream's header, its counts and its trailer: what a recording says of itself. */
#include "record/writer-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/fpchain.h"
#include "base/hash.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "record/regions.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"
#include "symbols/symload.h"
#include "record/tpfields.h"
#include "record/tracefs.h"
#include <sys/utsname.h>

/*
 * What the kernel lost of each event and the rate it sampled at: the end of
 * the header, or of a live recording's stream (known once recording ended).
 */
int writer__write_counts(struct recorder *r, struct lp_writer *out, const struct record_stats *st)
{
	char buf[64];
	const char *v[2];
	int ret = 0;

	if (perf_opts__samples(&r->o.perf)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->lost);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
	}
	if (ret == 0 && r->offcpu) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->offcpu_drops);
		v[0] = "offcpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
	}
	for (size_t k = 0; ret == 0 && k < r->o.nevents; k++) {
		snprintf(buf, sizeof(buf), "%" PRIu64, k < RECORD_MAX_EVENTS ? st->custom_lost[k] : 0);
		v[0] = r->o.events[k].key;
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
		if (ret == 0 && k < RECORD_MAX_EVENTS && st->custom_doubt[k][0]) {
			v[0] = st->custom_doubt[k];
			ret = lp_writer__meta(out, "warning", v, 1);
		}
	}
	if (ret == 0 && perf_opts__samples(&r->o.perf)) {
		snprintf(buf, sizeof(buf), "%.0f", st->achieved_hz);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "achieved-hz", v, 2);
	}
	return ret;
}

/* The stream's header; its counts (write_counts) at its end, or in a live recording's trailer. */
int writer__write_header(struct recorder *r, struct lp_writer *out, const struct record_stats *st, bool live)
{
	struct utsname u;
	char buf[64];
	const char *v[3];
	int ret = 0;

	if (r->o.version) {
		v[0] = r->o.version;
		ret = lp_writer__meta(out, "version", v, 1);
	}
	if (ret == 0 && r->o.argv) {
		size_t n = 0;

		while (r->o.argv[n])
			n++;
		ret = lp_writer__meta(out, "command", (const char *const *)r->o.argv, n);
	}
	if (ret == 0 && uname(&u) == 0) {
		v[0] = u.nodename;
		ret = lp_writer__meta(out, "host", v, 1);
		if (ret == 0 && r->o.rank) {
			v[0] = r->o.rank;
			ret = lp_writer__meta(out, "rank", v, 1);
		}
		if (ret == 0 && r->o.job) {
			v[0] = r->o.job;
			ret = lp_writer__meta(out, "job", v, 1);
		}
		v[0] = u.release;
		if (ret == 0)
			ret = lp_writer__meta(out, "kernel", v, 1);
		v[0] = u.machine;
		if (ret == 0)
			ret = lp_writer__meta(out, "arch", v, 1);
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, r->start_ns);
	v[0] = buf;
	if (ret == 0)
		ret = lp_writer__meta(out, "start", v, 1);
	snprintf(buf, sizeof(buf), "%" PRIu64, r->start_realtime_ns);
	if (ret == 0)
		ret = lp_writer__meta(out, "realtime", v, 1);
	if (ret == 0 && perf_opts__samples(&r->o.perf))
		ret = lp_writer__sampling(out, "cpu", r->o.perf.system_wide ? "cpu-clock" : "task-clock",
					  r->o.perf.freq ? LP_SAMPLING_FREQ : LP_SAMPLING_PERIOD,
					  r->o.perf.freq ? r->o.perf.freq : r->o.perf.period);
	if (ret == 0 && r->offcpu)
		ret = lp_writer__sampling(out, "offcpu", "sched_switch",
					  r->o.offcpu_opts.freq > 0 ? LP_SAMPLING_FREQ : LP_SAMPLING_EVERY,
					  r->o.offcpu_opts.freq > 0 ? (uint64_t)r->o.offcpu_opts.freq : 0);
	for (size_t k = 0; ret == 0 && k < r->o.nevents; k++) {
		const struct event_spec *e = &r->o.events[k];
		const char *d[5] = { e->key, e->name, buf, e->title, e->unit };

		snprintf(buf, sizeof(buf), "%" PRIu64, e->period);
		ret = lp_writer__meta(out, "event", d, 5);
	}
	if (ret == 0 && !live)
		ret = writer__write_counts(r, out, st);
	return ret;
}

/* Why the samples of event k do not stand for its exact count (value), in words, or "". */
static void count_strayed(const struct recorder *r, const struct record_stats *st, size_t k, uint64_t value,
			  char *buf, size_t size)
{
	const struct event_spec *e = &r->o.events[k];
	uint64_t sampled = st->custom_weight[k], d = sampled > value ? sampled - value : value - sampled;

	buf[0] = 0;
	/* a period's worth short per thread and CPU is what sampling every PERIOD-th occurrence leaves */
	if (d * 100 <= (uint64_t)r->o.time_tolerance * value || d < e->period)
		return;
	snprintf(buf, size, "the samples of '%s' stand for %" PRIu64 " occurrences, its exact count is %" PRIu64
		 "%s", e->name, sampled, value,
		 st->custom_lost[k] ? ": samples were lost" : sampled < value ? ": a smaller period samples more of them" : "");
}

int writer__write_event_counts(struct writer *w)
{
	struct recorder *r = w->r;
	const char *v[1];
	int ret = 0;

	if (!r->o.argv || r->o.npids || r->o.perf.system_wide || !r->exited)
		return 0;
	for (size_t k = 0; ret == 0 && k < r->o.nevents && k < RECORD_MAX_EVENTS; k++) {
		const typeof(r->custom_times[0]) *t = &r->custom_times[k];
		bool counted = t->known && t->running && !w->stats->custom_doubt[k][0];

		if (!t->known)
			continue;
		ret = lp_writer__count(&w->out, r->end_ns, -1, -1, NULL, r->o.events[k].key,
				       counted ? LP_COUNT_COUNTED : LP_COUNT_NOT_COUNTED, t->value, t->enabled_sum,
				       t->running);
		if (ret == 0)
			ret = lp_writer__end(&w->out);
		if (ret == 0 && counted)
			count_strayed(r, w->stats, k, t->value, w->stats->custom_strayed[k],
				      sizeof(w->stats->custom_strayed[k]));
		if (ret == 0 && w->stats->custom_strayed[k][0]) {
			v[0] = w->stats->custom_strayed[k];
			ret = lp_writer__meta(&w->out, "warning", v, 1);
		}
	}
	return ret;
}

/* What is known only once every stack is unwound, then the stream's last line. */
int writer__write_trailer(struct lp_writer *out, const struct record_stats *st)
{
	char buf[24];
	const char *v[2] = { "cpu", buf };
	int ret = 0;

	if (st->truncated) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->truncated);
		ret = lp_writer__meta(out, "truncated", v, 2);
	}
	if (ret == 0 && st->unwind_stopped) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->unwind_stopped);
		v[0] = buf;
		ret = lp_writer__meta(out, "unwind-stopped", v, 1);
	}
	if (ret == 0 && st->stopped_copy_short) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->stopped_copy_short);
		v[0] = buf;
		ret = lp_writer__meta(out, "copy-cut", v, 1);
	}
	return ret ?: lp_writer__trailer(out);
}

/* The losses and rates the kernel's counts give, known once recording ended. */
void writer__count_losses(struct recorder *r, struct record_stats *stats)
{
	stats->offcpu_drops = r->offcpu_drops;
	stats->offcpu_drop_causes = r->offcpu_drop_causes;
	stats->lost = event_rings__lost(r->session, PERF_SESSION_CLOCK);
	stats->task_records_lost = event_rings__lost(r->session, PERF_SESSION_LIFE);
	stats->regions_lost = event_rings__lost(r->session, PERF_SESSION_REGIONS);
	stats->region_probes = region_probes__count(r->regions);
	snprintf(stats->regions_off, sizeof(stats->regions_off), "%s", r->regions_off);
	/* counts a PMU shared with other events, or made up, are not data: say so */
	for (size_t k = 0; k < r->o.nevents && k < RECORD_MAX_EVENTS; k++) {
		const typeof(r->custom_times[0]) *t = &r->custom_times[k];

		stats->custom_lost[k] = event_rings__lost(r->session, (int)k);
		/* the kernel's own count: drops whose LOST record never came (no sample after them) too */
		if (t->known && t->lost > stats->custom_lost[k])
			stats->custom_lost[k] = t->lost;
		if (t->known)
			event_counts__doubt(r->o.events[k].name, t->value, t->enabled, t->running,
					    stats->custom_doubt[k], sizeof(stats->custom_doubt[k]));
	}
	/*
	 * Samples kept per second of the command's CPU time; lost ones are not
	 * there to count. Attached to a process, whose CPU time is not known,
	 * per second of the time the kept samples stand for.
	 */
	if (r->child_cpu_ns && !r->o.perf.system_wide)
		stats->achieved_hz = r->counts.samples / (r->child_cpu_ns / 1e9);
	else if (r->counts.sample_ns)
		stats->achieved_hz = r->counts.samples / (r->counts.sample_ns / 1e9);
}
