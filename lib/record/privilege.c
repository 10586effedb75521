/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/privilege.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

bool privilege__has(int cap)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3 || syscall(SYS_capget, &header, data) != 0)
		return false;
	return data[cap / 32].effective >> (cap % 32) & 1;
}

bool privilege__may_profile(long paranoid)
{
	return paranoid <= 1 || privilege__has(CAP_PERFMON) || privilege__has(CAP_SYS_ADMIN);
}
