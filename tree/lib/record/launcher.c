/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/launcher.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "base/numparse.h"

static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK",	/* Open MPI's mpirun */
	"PMI_RANK",		/* MPICH's Hydra, Intel MPI */
	"PMIX_RANK",		/* any PMIx launcher, srun --mpi=pmix */
	"SLURM_PROCID",		/* srun */
};

static const char *const job_vars[] = { "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid" };

int launcher__detect(launcher_env_fn env, struct launcher_info *li, struct lp_error *err)
{
	memset(li, 0, sizeof(*li));
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && !li->rank; i++) {
		const char *v = env(rank_vars[i]);
		uint64_t n;

		if (!v || !*v)
			continue;
		if (numparse__u64(v, strlen(v), &n) < 0)
			return lp_error__set(err, -EINVAL, "%s='%s' is not a rank (a number)", rank_vars[i], v);
		li->rank = v;
		li->rank_var = rank_vars[i];
	}
	for (size_t i = 0; i < sizeof(job_vars) / sizeof(job_vars[0]) && !li->job; i++) {
		const char *v = env(job_vars[i]);

		if (v && *v)
			li->job = v;
	}
	return 0;
}

int output_template__expand(const char *tmpl, const struct output_vars *v, struct strbuf *out,
			    struct lp_error *err)
{
	int ret = 0;

	for (const char *p = tmpl; *p && ret == 0; p++) {
		if (*p != '%') {
			ret = strbuf__addc(out, *p);
			continue;
		}
		switch (*++p) {
		case '%':
			ret = strbuf__addc(out, '%');
			break;
		case 'h':
			ret = strbuf__add(out, v->host, strlen(v->host));
			break;
		case 'r':
			if (!v->rank)
				return lp_error__set(err, -EINVAL, "'%%r' in '%s' needs a rank, and no launcher says one "
						     "(OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID)", tmpl);
			ret = strbuf__add(out, v->rank, strlen(v->rank));
			break;
		case 'p':
			ret = strbuf__addf(out, "%" PRId64, v->pid);
			break;
		case 't': {
			time_t t = (time_t)v->start;
			struct tm tm;
			char buf[32];

			if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y%m%dT%H%M%S", &tm))
				return lp_error__set(err, -EINVAL, "'%%t' in '%s': no such time", tmpl);
			ret = strbuf__add(out, buf, strlen(buf));
			break;
		}
		case 0:
			return lp_error__set(err, -EINVAL, "'%s' ends in a lone '%%' (write '%%%%' for one)", tmpl);
		default:
			return lp_error__set(err, -EINVAL, "unknown '%%%c' in '%s' (%%h host, %%r rank, %%p pid, "
					     "%%t start time, %%%% a '%%')", *p, tmpl);
		}
	}
	return ret;
}
