/* span_scope_cxx.cpp - span_scope.c built as C++ (exceptions instead of longjmp). */
#include "span_scope.c"
