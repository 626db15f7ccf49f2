/*
 * name_simple.h - a demangled C++ name without its template arguments and parameter
 * lists: "ns::Box<long>::get(int) const" -> "ns::Box::get", what uftrace's default
 * (--demangle=simple) shows. The scope names, operators ("operator<<", "operator()"),
 * "(anonymous namespace)" and lambdas' numbers ("{lambda#1}") stay; a function template's
 * return type ("void f<int>(int)" -> "f") goes. Used by the CLI's
 * --demangle=simple (symbols.c): flame graphs and call views of template-heavy code stay
 * readable, at the cost of telling overloads and instantiations apart; and by the
 * runtime's patch= and exclude= patterns (name_pattern.c), which match C++ functions by such names.
 * libc only: it is compiled into the runtime too.
 */
#ifndef FLIGHTREC_NAME_SIMPLE_H
#define FLIGHTREC_NAME_SIMPLE_H
#include <stddef.h>

/* Simplifies name in place (the result is never longer) and returns its length. A name
 * whose brackets do not match is cut only up to the unmatched one (kept from there). */
size_t fr_name_simplify(char *name);

#endif
