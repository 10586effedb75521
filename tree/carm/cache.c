/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "carm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* The first line of a sysfs file, without its newline; -errno. */
static int read_line(const char *root, int index, const char *name, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu0/cache/index%d/%s", root, index, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return ret;
}

/* "32K", "512K", "32768K", "1M": bytes, 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'K':
		return end[1] ? 0 : v << 10;
	case 'M':
		return end[1] ? 0 : v << 20;
	case 'G':
		return end[1] ? 0 : v << 30;
	case 0:
		return v;
	default:
		return 0;
	}
}

/* "0-1,4,6-7": how many CPUs, 0 when malformed. */
static unsigned count_cpus(const char *list)
{
	unsigned n = 0;
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return 0;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				return 0;
		}
		n += (unsigned)(b - a + 1);
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		p = end;
	}
	return n;
}

int carm_cache__sysfs(const char *root, struct carm_cache levels[CARM_LEVELS])
{
	char buf[256];
	int found = 0, ret;

	memset(levels, 0, CARM_LEVELS * sizeof(*levels));
	for (int i = 0; i < 16; i++) {
		long level;

		if ((ret = read_line(root, i, "level", buf, sizeof(buf))) < 0) {
			if (ret == -ENOENT)
				break;
			return ret;
		}
		level = strtol(buf, NULL, 10);
		found++;
		if (level < 1 || level > CARM_LEVELS)
			continue;
		if (read_line(root, i, "type", buf, sizeof(buf)) < 0 || strcmp(buf, "Instruction") == 0)
			continue;
		if (read_line(root, i, "size", buf, sizeof(buf)) == 0)
			levels[level - 1].size = parse_size(buf);
		if (read_line(root, i, "shared_cpu_list", buf, sizeof(buf)) == 0)
			levels[level - 1].shared_by = count_cpus(buf);
	}
	return found ? 0 : -ENOENT;
}

#if defined(__x86_64__)
/*
 * AMD's older leaves: L1d in 0x80000005 ECX[31:24] KiB, L2 in 0x80000006
 * ECX[31:16] KiB, L3 in EDX[31:18] 512 KiB units (what a VM's host has, often:
 * the sweep judges it). No sharing said.
 */
static int amd_legacy(struct carm_cache levels[CARM_LEVELS])
{
	unsigned a, b, c, d;

	if ((unsigned)__get_cpuid_max(0x80000000, NULL) < 0x80000006)
		return -ENOTSUP;
	__cpuid(0x80000005, a, b, c, d);
	levels[0].size = (uint64_t)(c >> 24) << 10;
	__cpuid(0x80000006, a, b, c, d);
	levels[1].size = (uint64_t)(c >> 16) << 10;
	levels[2].size = (uint64_t)(d >> 18) << 19;
	return 0;
}
#endif

int carm_cache__cpuid(struct carm_cache levels[CARM_LEVELS])
{
#if defined(__x86_64__)
	unsigned a, b, c, d, leaf;
	char vendor[13];

	memset(levels, 0, CARM_LEVELS * sizeof(*levels));
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -ENOTSUP;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (strcmp(vendor, "GenuineIntel") == 0)
		leaf = 4;
	else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
		leaf = 0x8000001d;
	else
		return -ENOTSUP;
	if ((unsigned)__get_cpuid_max(leaf & 0x80000000, NULL) < leaf)
		return leaf == 4 ? -ENOTSUP : amd_legacy(levels);
	/* without TopologyExtensions (some VMs hide it) leaf 0x8000001d is all zeros */
	if (leaf == 0x8000001d) {
		__cpuid(0x80000001, a, b, c, d);
		if (!(c & (1u << 22)))
			return amd_legacy(levels);
	}
	for (unsigned i = 0; i < 16; i++) {
		unsigned type, level;

		__cpuid_count(leaf, i, a, b, c, d);
		type = a & 0x1f;
		level = (a >> 5) & 7;
		if (type == 0)
			break;
		if (type == 2 || level < 1 || level > CARM_LEVELS)
			continue;
		levels[level - 1].size = (uint64_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
					 ((uint64_t)c + 1);
		levels[level - 1].shared_by = ((a >> 14) & 0xfff) + 1;
	}
	return 0;
#else
	memset(levels, 0, CARM_LEVELS * sizeof(*levels));
	return -ENOTSUP;
#endif
}
