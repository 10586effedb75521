/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/numparse.h"
#include "tap.h"

int main(void)
{
	uint64_t u = 0;
	int64_t i = 0;

	{
		/* every power of ten and its neighbours, as printf writes them, and back */
		char buf[24], want[24], *p;
		int good = 1;

		for (uint64_t pow = 1;; pow *= 10) {
			const uint64_t v[] = { pow - 1, pow, pow + 1 };

			for (int k = 0; k < 3; k++) {
				p = numparse__format_u64(buf + sizeof(buf), v[k]);
				snprintf(want, sizeof(want), "%" PRIu64, v[k]);
				good &= (size_t)(buf + sizeof(buf) - p) == strlen(want) &&
					memcmp(p, want, strlen(want)) == 0 &&
					numparse__u64(p, (size_t)(buf + sizeof(buf) - p), &u) == 0 && u == v[k];
			}
			if (pow > UINT64_MAX / 10)
				break;
		}
		p = numparse__format_u64(buf + sizeof(buf), UINT64_MAX);
		good &= (size_t)(buf + sizeof(buf) - p) == 20 && memcmp(p, "18446744073709551615", 20) == 0;
		ok(good, "numparse__format_u64 writes what printf writes, up to UINT64_MAX");
	}
	{
		/* ties, their neighbours a bit either side, powers of ten, and what printf takes back */
		static const double edge[] = { 0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.95, 9.95, 99.95, 1199.95, 0.04999999999999999,
					       1e-300, 5e-324, 123456789.25, 1e14 - 0.05, 99999999999999.95, 1e14, 1e15, 1e300,
					       -0.0, -1.25, INFINITY, -INFINITY, NAN };
		char want[FORMAT_TENTHS_MAX + 1], got[FORMAT_TENTHS_MAX + 1];
		unsigned long long seed = 88172645463325252ULL;
		int bad = 0;

		for (size_t k = 0; k < sizeof(edge) / sizeof(edge[0]) + 1000000; k++) {
			double v;

			if (k < sizeof(edge) / sizeof(edge[0])) {
				v = edge[k];
			} else {
				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				/* a twentieth (a tie when odd) nudged by up to 2 ulps, or any double below 2^20 */
				if (k % 2) {
					v = (double)(seed % 40000000) / 20;
					for (long n = (long)(seed >> 40) % 5 - 2; n > 0; n--)
						v = nextafter(v, INFINITY);
					for (long n = (long)(seed >> 40) % 5 - 2; n < 0; n++)
						v = nextafter(v, 0);
				} else {
					v = ldexp((double)(seed >> 11), -33);
				}
			}
			snprintf(want, sizeof(want), "%.1f", v);
			*numparse__format_tenths(got, v) = 0;
			if (strcmp(want, got) != 0 && bad++ < 5)
				printf("# %.17g: printf %s, numparse__format_tenths %s\n", v, want, got);
		}
		ok(bad == 0, "numparse__format_tenths writes what printf's %.1f writes (24 edge values, 1M more)");
	}
	ok(numparse__u64("18446744073709551615", 20, &u) == 0 && u == UINT64_MAX, "u64 max");
	ok(numparse__u64("18446744073709551616", 20, &u) == -ERANGE, "u64 max + 1 is out of range");
	ok(numparse__u64("9999999999999999999", 19, &u) == 0 && u == 9999999999999999999ULL &&
	   numparse__u64("99999999999999999999", 20, &u) == -ERANGE && numparse__u64("123456789012345678x", 19, &u) == -EINVAL,
	   "19 nines (the most digits that cannot overflow), 20 nines out of range, junk at the 19th");
	ok(numparse__u64("", 0, &u) == -EINVAL, "empty is not a number");
	ok(numparse__u64("12a", 3, &u) == -EINVAL, "trailing junk");
	ok(numparse__u64(" 1", 2, &u) == -EINVAL, "leading space");
	ok(numparse__u64("-1", 2, &u) == -EINVAL, "sign refused for u64");
	ok(numparse__u64("007", 3, &u) == 0 && u == 7, "leading zeros");
	ok(numparse__i64("-9223372036854775808", 20, &i) == 0 && i == INT64_MIN, "i64 min");
	ok(numparse__i64("9223372036854775808", 19, &i) == -ERANGE, "i64 max + 1");
	ok(numparse__i64("-", 1, &i) == -EINVAL, "lone minus");
	double d = 0;
	ok(numparse__decimal("12.5", 4, &d) == 0 && d == 12.5, "a decimal");
	ok(numparse__decimal("77519603729", 11, &d) == 0 && d == 77519603729.0, "a whole decimal");
	ok(numparse__decimal("1.", 2, &d) == -EINVAL && numparse__decimal(".5", 2, &d) == -EINVAL, "digits both sides of the point");
	ok(numparse__decimal("1e5", 3, &d) == -EINVAL && numparse__decimal("-1", 2, &d) == -EINVAL, "no exponent, no sign");
	ok(numparse__decimal("inf", 3, &d) == -EINVAL && numparse__decimal("nan", 3, &d) == -EINVAL, "no inf, no nan");
	ok(numparse__decimal("15", 1, &d) == 0 && d == 1, "only len bytes are read");
	return tap_done();
}
