#include <errno.h>

#include "numparse.h"
#include "tap.h"

int main(void)
{
	uint64_t u = 0;
	int64_t i = 0;

	ok(parse_u64("18446744073709551615", 20, &u) == 0 && u == UINT64_MAX, "u64 max");
	ok(parse_u64("18446744073709551616", 20, &u) == -ERANGE, "u64 max + 1 is out of range");
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
