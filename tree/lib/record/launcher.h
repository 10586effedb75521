/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a recording stands in a parallel job, from what its launcher put in
 * the environment (Open MPI, MPICH/Hydra, PMIx, Slurm), and what its output
 * file is called: "run.%h.%r.lp" gives each rank of a job a stream of its own.
 */
#ifndef LP_LAUNCHER_H
#define LP_LAUNCHER_H

#include <stdint.h>

#include "base/error.h"
#include "base/strbuf.h"

/* A getenv: the tests pass their own environments. */
typedef const char *(*launcher_env_fn)(const char *name);

struct launcher_info {
	const char *rank;	/* NULL when no launcher says */
	const char *rank_var;	/* the variable that said */
	const char *job;	/* NULL when the launcher gives no job id */
};

/*
 * Reads the rank (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID,
 * the first set) and the job id (SLURM_JOB_ID, PMIX_NAMESPACE,
 * OMPI_MCA_ess_base_jobid). -EINVAL naming the variable when a rank is not a
 * number.
 */
int launcher__detect(launcher_env_fn env, struct launcher_info *li, struct lp_error *err);

struct output_vars {
	const char *host;
	const char *rank;	/* NULL: "%r" is an error */
	int64_t pid;
	int64_t start;		/* seconds since the epoch */
};

/*
 * Appends tmpl with %h (host), %r (rank), %p (pid), %t (start time, UTC,
 * 20261123T201233) and %% replaced. -EINVAL for an unknown or missing
 * conversion, or %r without a rank, with the message naming the template.
 */
int output_template__expand(const char *tmpl, const struct output_vars *v, struct strbuf *out,
			    struct lp_error *err);

#endif
