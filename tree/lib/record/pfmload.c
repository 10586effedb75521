/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/pfmload.h"

#include <dlfcn.h>
#include <pthread.h>

/* (the soname of Debian's libpfm4, whose -dev package has the headers we build with) */
#define LIBPFM_SONAME "libpfm.so.4"

static struct {
	pfm_err_t (*initialize)(void);
	int (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
	const char *(*strerror)(int);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	int (*get_event_next)(int);
	pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
} pfm;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(LIBPFM_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&pfm.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&pfm.strerror = dlsym(h, "pfm_strerror");
	*(void **)&pfm.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&pfm.get_event_next = dlsym(h, "pfm_get_event_next");
	*(void **)&pfm.get_event_info = dlsym(h, "pfm_get_event_info");
	/* the gate of all the others: set only when every one is there */
	if (pfm.get_os_event_encoding && pfm.strerror && pfm.get_pmu_info && pfm.get_event_next && pfm.get_event_info)
		*(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
}

pfm_err_t pfmload__initialize(void)
{
	pthread_once(&loaded, load);
	return pfm.initialize ? pfm.initialize() : PFM_ERR_NOINIT;
}

/* The others are called after pfmload__initialize succeeded, as libpfm's own must be. */

int pfmload__get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args)
{
	return pfm.initialize ? pfm.get_os_event_encoding(str, dfl_plm, os, args) : PFM_ERR_NOINIT;
}

const char *pfmload__strerror(int code)
{
	return pfm.initialize ? pfm.strerror(code) : "libpfm4 (" LIBPFM_SONAME ") cannot be loaded";
}

pfm_err_t pfmload__get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *output)
{
	return pfm.initialize ? pfm.get_pmu_info(pmu, output) : PFM_ERR_NOINIT;
}

int pfmload__get_event_next(int idx)
{
	return pfm.initialize ? pfm.get_event_next(idx) : -1;
}

pfm_err_t pfmload__get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output)
{
	return pfm.initialize ? pfm.get_event_info(idx, os, output) : PFM_ERR_NOINIT;
}
