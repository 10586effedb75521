/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demangle on names as g++ 12 and rustc 1.95 emit them (legacy and v0). The
 * v0 ones were checked against binutils' c++filt, which also shows crate
 * hashes (core[c1f1a4ba060b9bfa]) and const types (8: usize) that lp leaves out.
 */
#include <stdlib.h>

#include "symbols/demangle.h"
#include "tap.h"

static void is_demangled(const char *mangled, const char *want)
{
	char *got = demangle__name(mangled);

	is_str(got ? got : "(not mangled)", want, mangled);
	free(got);
}

int main(void)
{
	ok(demangle__name("main") == NULL, "a C name is not mangled");
	ok(demangle__name("_Zfoo") == NULL, "a name the demangler refuses is left alone");
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
	/* as perf shows them (binutils' demangler without parameters), whole, or not at all */
	{
		char *s = demangle__as("_ZN2v88internal15JsonStringifier10Serialize_ILb0EEENS1_6ResultENS0_6HandleINS0_6ObjectEEEbS6_",
				      DEMANGLE_SHORT);
		char *l = demangle__as("_ZZ4mainENKUliE_clEi", DEMANGLE_SHORT);
		char *f = demangle__as("_ZN6shapes4GridImE4fillEl", DEMANGLE_FULL);
		char *r = demangle__as("_ZN1r4main17h086b0cfd890a8ea9E", DEMANGLE_SHORT);

		is_str(s ? s : "(null)", "v8::internal::JsonStringifier::Serialize_<false>",
		       "short: no return type, no parameters, template arguments kept");
		is_str(l ? l : "(null)", "main::{lambda(int)#1}::operator()", "short: a lambda's call operator");
		is_str(f ? f : "(null)", "shapes::Grid<unsigned long>::fill(long)", "full: with the parameters");
		is_str(r ? r : "(null)", "r::main", "short: a Rust legacy name without its hash");
		ok(demangle__as("_ZN6shapes4GridImE4fillEl", DEMANGLE_NONE) == NULL, "none: the symbol as it is");
		ok(demangle__as("main", DEMANGLE_SHORT) == NULL, "short: a C name is not mangled");
		free(s);
		free(l);
		free(f);
		free(r);
	}
	/* a C++ name that merely ends like a hash keeps its dollars */
	is_demangled("_ZN3a$b1hE", "a$b::h");
	/* Rust, v0 */
	is_demangled("_RNvCs123_3std4main", "std::main");
	is_demangled("_RINvCslcjRCX3mt6M_2r23chrKc78_EB2_", "r2::chr::<'x'>");
	is_demangled("_RINvCslcjRCX3mt6M_2r23negKln7_EB2_", "r2::neg::<-7>");
	is_demangled("_RINvCslcjRCX3mt6M_2r24flagKb1_EB2_", "r2::flag::<true>");
	is_demangled("_RINvNtCsgEmfK2I1SDS_4core3ptr10swap_chunkKj8_ECslcjRCX3mt6M_2r2", "core::ptr::swap_chunk::<8>");
	is_demangled("_RNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPu13is_aligned_toCslcjRCX3mt6M_2r2",
		     "<*const ()>::is_aligned_to");
	is_demangled("_RNvXs1h_NtCsgEmfK2I1SDS_4core3fmtQShNtB6_5Debug3fmtCsgY6Mt91CT9J_14rustc_demangle",
		     "<&mut [u8] as core::fmt::Debug>::fmt");
	is_demangled("_RNvYFEuINtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_onceCslcjRCX3mt6M_2r2",
		     "<fn() as core::ops::function::FnOnce<()>>::call_once");
	is_demangled("_RINvMs4_NtCsgY6Mt91CT9J_14rustc_demangle2v0NtB6_7Printer9in_binderNCNvB2_10print_types_0EB8_",
		     "<rustc_demangle::v0::Printer>::in_binder::<<rustc_demangle::v0::Printer>::print_type::{closure#1}>");
	is_demangled("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_"
		     "3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4Sync"
		     "NtB2N_4SendEL_EEB1T_",
		     "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<"
		     "(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>");
	is_demangled("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxINtNtNtB4_3mem"
		     "12maybe_uninit11MaybeUninitAIBH_DNtCslcjRCX3mt6M_2r25ShapeNtNtB4_6marker4SendEL_Ej1_EEEB22_",
		     "core::ptr::drop_in_place::<alloc::boxed::Box<core::mem::maybe_uninit::MaybeUninit<"
		     "[alloc::boxed::Box<dyn r2::Shape + core::marker::Send>; 1]>>>");
	is_demangled("_RNvCs123_3std4main.llvm.1234", "std::main");
	/* broken v0 names stay as they are: a backref forward, truncation, overflow */
	ok(!demangle__name("_RNvB9_3std4main"), "a backref that does not point back is refused");
	ok(!demangle__name("_RINvCs123_3std4main"), "a truncated name is refused");
	ok(!demangle__name("_RNvCszzzzzzzzzzzzzzzzzzzz_3std4main"), "a base-62 number past 64 bits is refused");
	return tap_done();
}
