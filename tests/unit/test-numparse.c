#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "numparse.h"
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
				p = format_u64(buf + sizeof(buf), v[k]);
				snprintf(want, sizeof(want), "%" PRIu64, v[k]);
				good &= (size_t)(buf + sizeof(buf) - p) == strlen(want) &&
					memcmp(p, want, strlen(want)) == 0 &&
					parse_u64(p, (size_t)(buf + sizeof(buf) - p), &u) == 0 && u == v[k];
			}
			if (pow > UINT64_MAX / 10)
				break;
		}
		p = format_u64(buf + sizeof(buf), UINT64_MAX);
		good &= (size_t)(buf + sizeof(buf) - p) == 20 && memcmp(p, "18446744073709551615", 20) == 0;
		ok(good, "format_u64 writes what printf writes, up to UINT64_MAX");
	}
	ok(parse_u64("18446744073709551615", 20, &u) == 0 && u == UINT64_MAX, "u64 max");
	ok(parse_u64("18446744073709551616", 20, &u) == -ERANGE, "u64 max + 1 is out of range");
	ok(parse_u64("9999999999999999999", 19, &u) == 0 && u == 9999999999999999999ULL &&
	   parse_u64("99999999999999999999", 20, &u) == -ERANGE && parse_u64("123456789012345678x", 19, &u) == -EINVAL,
	   "19 nines (the most digits that cannot overflow), 20 nines out of range, junk at the 19th");
	ok(parse_u64("", 0, &u) == -EINVAL, "empty is not a number");
	ok(parse_u64("12a", 3, &u) == -EINVAL, "trailing junk");
	ok(parse_u64(" 1", 2, &u) == -EINVAL, "leading space");
	ok(parse_u64("-1", 2, &u) == -EINVAL, "sign refused for u64");
	ok(parse_u64("007", 3, &u) == 0 && u == 7, "leading zeros");
	ok(parse_i64("-9223372036854775808", 20, &i) == 0 && i == INT64_MIN, "i64 min");
	ok(parse_i64("9223372036854775808", 19, &i) == -ERANGE, "i64 max + 1");
	ok(parse_i64("-", 1, &i) == -EINVAL, "lone minus");
	double d = 0;
	ok(parse_decimal("12.5", 4, &d) == 0 && d == 12.5, "a decimal");
	ok(parse_decimal("77519603729", 11, &d) == 0 && d == 77519603729.0, "a whole decimal");
	ok(parse_decimal("1.", 2, &d) == -EINVAL && parse_decimal(".5", 2, &d) == -EINVAL, "digits both sides of the point");
	ok(parse_decimal("1e5", 3, &d) == -EINVAL && parse_decimal("-1", 2, &d) == -EINVAL, "no exponent, no sign");
	ok(parse_decimal("inf", 3, &d) == -EINVAL && parse_decimal("nan", 3, &d) == -EINVAL, "no inf, no nan");
	ok(parse_decimal("15", 1, &d) == 0 && d == 1, "only len bytes are read");
	return tap_done();
}
