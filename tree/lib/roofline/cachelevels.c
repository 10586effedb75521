/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/cachelevels.h"

#include <math.h>
#include <stdlib.h>

/* Points within this of a plateau's first point are on it. */
#define PLATEAU_TOLERANCE 0.15
/* Plateaus closer than this in speed are one level: noise, not a level (DRAM wobbles by 20% on a busy host). */
#define SAME_LEVEL 0.85

struct plateau {
	size_t first, last;
	double bw;	/* median of its points */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_bw(const struct cache_sweep *s, size_t first, size_t last)
{
	double v[CACHE_SWEEP_MAX];
	size_t n = last - first + 1;

	for (size_t i = 0; i < n; i++)
		v[i] = s->bw[first + i];
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t cache_sweep__knees(const struct cache_sweep *s, uint64_t *knees, double *drops, size_t max)
{
	struct plateau p[CACHE_SWEEP_MAX];
	size_t np = 0, nk = 0;

	/* runs of two or more points near their first one's speed */
	for (size_t i = 0; i < s->n;) {
		size_t j = i + 1;

		while (j < s->n && fabs(s->bw[j] / s->bw[i] - 1) <= PLATEAU_TOLERANCE)
			j++;
		if (j - i >= 2 || (j == s->n && np == 0))
			p[np++] = (struct plateau){ i, j - 1, median_bw(s, i, j - 1) };
		i = j;
	}
	/* neighbours of about the same speed are one level */
	for (size_t i = 1; i < np;) {
		double lo = fmin(p[i - 1].bw, p[i].bw), hi = fmax(p[i - 1].bw, p[i].bw);

		if (lo >= SAME_LEVEL * hi) {
			p[i - 1].last = p[i].last;
			p[i - 1].bw = median_bw(s, p[i - 1].first, p[i - 1].last);
			for (size_t k = i + 1; k < np; k++)
				p[k - 1] = p[k];
			np--;
		} else {
			i++;
		}
	}
	/* a knee: the last size still above the two plateaus' geometric middle */
	for (size_t i = 1; i < np && nk < max; i++) {
		double mid;
		size_t k;

		if (p[i].bw >= p[i - 1].bw)
			continue;
		mid = sqrt(p[i - 1].bw * p[i].bw);
		for (k = p[i - 1].last; k + 1 < p[i].first && s->bw[k + 1] >= mid; k++)
			;
		if (drops)
			drops[nk] = p[i].bw / p[i - 1].bw;
		knees[nk++] = s->size[k];
	}
	return nk;
}

static double distance(uint64_t a, uint64_t b)
{
	return fabs(log2((double)a) - log2((double)b));
}

/* How far a knee is from what either source says of level l. */
static double level_distance(const uint64_t claimed[CARM_LEVELS], const uint64_t also[CARM_LEVELS], int l,
			     uint64_t knee)
{
	double d = distance(knee, claimed[l]);

	if (also && also[l] && distance(knee, also[l]) < d)
		d = distance(knee, also[l]);
	return d;
}

void cache_levels__resolve(const uint64_t claimed[CARM_LEVELS], const uint64_t also[CARM_LEVELS],
			   const uint64_t *knees, size_t nknees, struct cache_level out[CARM_LEVELS])
{
	int owner[CACHE_SWEEP_MAX];
	size_t next_free = 0;

	for (int l = 0; l < CARM_LEVELS; l++)
		out[l] = (struct cache_level){ .claimed = claimed[l] };
	/* each knee to the nearest claimed level not yet taken, in order of size */
	for (size_t k = 0; k < nknees; k++) {
		int best = -1;

		owner[k] = -1;
		for (int l = 0; l < CARM_LEVELS; l++) {
			if (!claimed[l] || out[l].measured)
				continue;
			/* knees come in increasing size: a level below one already matched is out */
			if (k > 0 && owner[k - 1] >= l)
				continue;
			if (best < 0 || level_distance(claimed, also, l, knees[k]) <
					 level_distance(claimed, also, best, knees[k]))
				best = l;
		}
		/* a knee far from every claim (more than 8x) belongs to a level nobody claimed */
		if (best >= 0 && level_distance(claimed, also, best, knees[k]) <= 3) {
			out[best].measured = knees[k];
			owner[k] = best;
		}
	}
	for (size_t k = 0; k < nknees; k++) {
		if (owner[k] >= 0)
			continue;
		/* unmatched: the first level above the previous knee's that has no knee */
		next_free = k > 0 && owner[k - 1] >= 0 ? (size_t)owner[k - 1] + 1 : next_free;
		while (next_free < CARM_LEVELS && out[next_free].measured)
			next_free++;
		if (next_free < CARM_LEVELS) {
			out[next_free].measured = knees[k];
			owner[k] = (int)next_free;
		}
	}
	for (int l = 0; l < CARM_LEVELS; l++) {
		struct cache_level *c = &out[l];

		if (c->claimed && c->measured) {
			c->verdict = distance(c->claimed, c->measured) <= 1 ? CACHE_CONFIRMED : CACHE_DISAGREES;
			c->size = c->verdict == CACHE_CONFIRMED ? c->claimed : c->measured;
		} else if (c->claimed) {
			c->verdict = CACHE_UNCONFIRMED;
			c->size = c->claimed;
		} else if (c->measured) {
			c->verdict = CACHE_MEASURED_ONLY;
			c->size = c->measured;
		} else {
			c->verdict = CACHE_UNKNOWN;
		}
	}
}

size_t cache_sweep__keep_strongest(uint64_t *knees, double *drops, size_t n, size_t keep)
{
	while (n > keep) {
		size_t weakest = 0;

		for (size_t i = 1; i < n; i++)
			if (drops[i] > drops[weakest])
				weakest = i;
		for (size_t i = weakest + 1; i < n; i++) {
			knees[i - 1] = knees[i];
			drops[i - 1] = drops[i];
		}
		n--;
	}
	return n;
}
