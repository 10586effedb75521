/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names as the source spells them: C++ (Itanium ABI), Rust's legacy and v0 schemes. */
#ifndef LP_DEMANGLE_H
#define LP_DEMANGLE_H

/* s demangled into a malloc'ed string, or NULL if s is not mangled (or out of memory). */
char *demangle(const char *s);

/* The same for Rust's v0 names (_R...) alone. */
char *demangle_rust_v0(const char *s);

#endif
