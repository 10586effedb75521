/* demangle on names as g++ 12 and rustc 1.95 (legacy scheme) emit them. */
#include <stdlib.h>

#include "demangle.h"
#include "tap.h"

static void is_demangled(const char *mangled, const char *want)
{
	char *got = demangle(mangled);

	is_str(got ? got : "(not mangled)", want, mangled);
	free(got);
}

int main(void)
{
	ok(demangle("main") == NULL, "a C name is not mangled");
	ok(demangle("_Zfoo") == NULL, "a name the demangler refuses is left alone");
	is_demangled("_ZN6shapes4GridImE4fillEl", "shapes::Grid<unsigned long>::fill(long)");
	is_demangled("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)");
	/* Rust, legacy: the hash goes, the escapes are undone */
	is_demangled("_ZN1r4main17h086b0cfd890a8ea9E", "r::main");
	is_demangled("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha86af84d9cc65291E",
		     "std::rt::lang_start::{{closure}}");
	is_demangled("_ZN44_$LT$$RF$T$u20$as$u20$core..fmt..Display$GT$3fmt17h6048d6f955a81c59E",
		     "<&T as core::fmt::Display>::fmt");
	is_demangled("_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17h42e08618e5619cfaE",
		     "core::ops::function::FnOnce::call_once{{vtable.shim}}");
	is_demangled("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE",
		     "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	/* a C++ name that merely ends like a hash keeps its dollars */
	is_demangled("_ZN3a$b1hE", "a$b::h");
	return tap_done();
}
