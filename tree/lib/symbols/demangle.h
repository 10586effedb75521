/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names as the source spells them: C++ (Itanium ABI), Rust's legacy and v0 schemes. */
#ifndef LP_DEMANGLE_H
#define LP_DEMANGLE_H

/*
 * How much of a C++ name is shown: as perf shows it (the qualified name with
 * its template arguments: v8::internal::JsonStringifier::Serialize_<false>),
 * whole (with the return type and the parameter list), or as the symbol is.
 */
enum demangle_style { DEMANGLE_SHORT, DEMANGLE_FULL, DEMANGLE_NONE };

/* s demangled into a malloc'ed string, or NULL if s is not mangled (or out of memory). Whole. */
char *demangle__name(const char *s);
/* The same in a style; NULL for DEMANGLE_NONE. Rust names have no parameter lists: the same in both. */
char *demangle__as(const char *s, enum demangle_style style);

/* The same for Rust's v0 names (_R...) alone. */
char *demangle__rust_v0(const char *s);

#endif
