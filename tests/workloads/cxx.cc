/* SPDX-License-Identifier: GPL-2.0-or-later */
// A C++ workload: samples land in a member function template of a class in a
// namespace, whose mangled name lp-record must demangle.
#include <cstdio>
#include <cstdlib>

namespace shapes {
template <typename T> struct Grid {
	volatile T sink = 0;
	__attribute__((noinline)) void fill(long n)
	{
		T x = sink;
		for (long i = 0; i < n; i++)
			x = x * 3 + static_cast<T>(i);
		sink = x;
	}
};
} // namespace shapes

int main(int argc, char **argv)
{
	shapes::Grid<unsigned long> g;
	long n = argc > 1 ? std::atol(argv[1]) : 300000000L;

	g.fill(n);
	std::printf("%lu\n", static_cast<unsigned long>(g.sink));
	return 0;
}
