/* Names as the source spells them: C++ (Itanium ABI) and Rust's legacy scheme. */
#ifndef LP_DEMANGLE_H
#define LP_DEMANGLE_H

/* s demangled into a malloc'ed string, or NULL if s is not mangled (or out of memory). */
char *demangle(const char *s);

#endif
