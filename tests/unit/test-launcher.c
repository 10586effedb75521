/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "record/launcher.h"
#include "tap.h"

/* An environment of NAME=VALUE strings, as a launcher would leave it. */
static const char *const *environment;

static const char *env(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = environment; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static const char *expand(const char *tmpl, const struct output_vars *v, int *ret, struct lp_error *err)
{
	static struct strbuf out;

	strbuf__reset(&out);
	*ret = output_template__expand(tmpl, v, &out, err);
	strbuf__addc(&out, 0);
	return out.s;
}

int main(void)
{
	static const char *const ompi[] = { "OMPI_COMM_WORLD_RANK=3", "OMPI_MCA_ess_base_jobid=2839216129", NULL };
	static const char *const hydra[] = { "PMI_RANK=5", NULL };
	static const char *const pmix[] = { "PMIX_RANK=7", "PMIX_NAMESPACE=prterun-node-1234@1", NULL };
	static const char *const slurm[] = { "SLURM_PROCID=12", "SLURM_JOB_ID=4711", "SLURM_NTASKS=16", NULL };
	/* srun --mpi=pmix sets both: the PMIx rank is the MPI rank */
	static const char *const srun_pmix[] = { "SLURM_PROCID=1", "PMIX_RANK=1", "SLURM_JOB_ID=9", NULL };
	static const char *const bad[] = { "PMI_RANK=x1", NULL };
	static const char *const empty[] = { "OMPI_COMM_WORLD_RANK=", "SLURM_PROCID=2", NULL };
	struct launcher_info li;
	struct lp_error err;
	struct output_vars v = { .host = "node7", .rank = "3", .pid = 4242, .start = 1795467153 };
	int ret;

	environment = ompi;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank, "3") == 0 &&
	   strcmp(li.rank_var, "OMPI_COMM_WORLD_RANK") == 0 && strcmp(li.job, "2839216129") == 0,
	   "Open MPI: rank and job id");
	environment = hydra;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank, "5") == 0 && !li.job, "MPICH Hydra: rank, no job id");
	environment = pmix;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank, "7") == 0 &&
	   strcmp(li.job, "prterun-node-1234@1") == 0, "PMIx: rank and namespace");
	environment = slurm;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank, "12") == 0 && strcmp(li.rank_var, "SLURM_PROCID") == 0 &&
	   strcmp(li.job, "4711") == 0, "Slurm: task rank and job id");
	environment = srun_pmix;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank_var, "PMIX_RANK") == 0 && strcmp(li.job, "9") == 0,
	   "srun with PMIx: PMIx's rank, Slurm's job");
	environment = empty;
	ok(launcher__detect(env, &li, &err) == 0 && strcmp(li.rank, "2") == 0, "an empty variable says nothing");
	environment = bad;
	ok(launcher__detect(env, &li, &err) == -EINVAL && strcmp(err.msg, "PMI_RANK='x1' is not a rank (a number)") == 0,
	   "a rank that is not a number is named");
	environment = NULL;
	ok(launcher__detect(env, &li, &err) == 0 && !li.rank && !li.job, "no launcher");

	ok(strcmp(expand("run.%h.%r.lp", &v, &ret, &err), "run.node7.3.lp") == 0 && ret == 0, "%h and %r");
	ok(strcmp(expand("%p-%t-100%%.lp", &v, &ret, &err), "4242-20261123T205233-100%.lp") == 0 && ret == 0,
	   "%p, %t (UTC) and %%");
	ok(strcmp(expand("plain.lp", &v, &ret, &err), "plain.lp") == 0 && ret == 0, "no conversion");
	expand("run.%x.lp", &v, &ret, &err);
	ok(ret == -EINVAL && strcmp(err.msg, "unknown '%x' in 'run.%x.lp' (%h host, %r rank, %p pid, %t start time, "
				    "%% a '%')") == 0, "unknown conversion named");
	expand("run.lp%", &v, &ret, &err);
	ok(ret == -EINVAL && strcmp(err.msg, "'run.lp%' ends in a lone '%' (write '%%' for one)") == 0, "lone %");
	v.rank = NULL;
	expand("run.%r.lp", &v, &ret, &err);
	ok(ret == -EINVAL && strstr(err.msg, "'%r' in 'run.%r.lp' needs a rank, and no launcher says one") == err.msg,
	   "%r without a rank");
	ok(strcmp(expand("run.%h.lp", &v, &ret, &err), "run.node7.lp") == 0 && ret == 0, "no rank needed without %r");
	return tap_done();
}
