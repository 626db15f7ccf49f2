/*
 * reader_name_simple_test.c - fr_name_simplify (src/reader/name_simple.c), what
 * --demangle=simple shows: demangled C++ names of every shape __cxa_demangle writes
 * (templates nesting function types, operators whose '<' and "()" are not brackets,
 * lambdas, the anonymous namespace, qualifiers, clones) against their simple form; and
 * input it must not damage (unmatched brackets, C names, the empty name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "name_simple.h"

static const char *const cases[][2] = {
    {"ns::Box<long>::get(int) const", "ns::Box::get"},
    {"main::{lambda(int)#1}::operator()(int) const", "main::{lambda#1}::operator()"},
    {"std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::$_0> > >::_M_run()",
     "std::thread::_State_impl::_M_run"},
    {"(anonymous namespace)::helper(int)", "(anonymous namespace)::helper"},
    /* a function template's return type (the demangler writes it first) is dropped */
    {"void foo<int>(int)", "foo"},
    {"std::vector<int, std::allocator<int> > ns::make<int>(unsigned long)", "ns::make"},
    {"unsigned long const* lookup<char, 4>(char const*)", "lookup"},
    {"auto std::begin<int>(std::initializer_list<int>)", "std::begin"},
    {"void (*get_handler<int>())(int)", "get_handler"},
    {"S<int>::operator int<int>() const", "S::operator int"},
    {"call(void (*)(int))", "call"},
    {"std::function<void (int)>::operator()(int) const", "std::function::operator()"},
    {"operator<<(std::ostream&, Foo const&)", "operator<<"},
    {"bool operator< <int>(A<int> const&, A<int> const&)", "operator<"},
    {"void f<int>(int) [clone .cold]", "f [clone .cold]"},
    {"A::operator->() const", "A::operator->"},
    {"A::operator->*(int)", "A::operator->*"},
    {"A::operator int() const", "A::operator int"},
    {"A::operator new[](unsigned long)", "A::operator new[]"},
    {"A::operator[](unsigned long) &", "A::operator[]"},
    {"S::operator<=>(S const&) const", "S::operator<=>"},
    {"A::operator,(A)", "A::operator,"},
    /* an operator template's arguments follow its token with no space unless the token
     * ends in '<' (gcc's std::vector iterators compare with these) */
    {"bool __gnu_cxx::operator!=<ns::Box<long> const*, std::vector<ns::Box<long>, "
     "std::allocator<ns::Box<long> > > >(__gnu_cxx::__normal_iterator<ns::Box<long> const*, "
     "std::vector<ns::Box<long>, std::allocator<ns::Box<long> > > > const&)",
     "__gnu_cxx::operator!="},
    {"bool operator<=<int>(A<int> const&, A<int> const&)", "operator<="},
    {"bool operator><int>(A<int> const&, A<int> const&)", "operator>"},
    {"void operator>><int>(A<int> const&)", "operator>>"},
    {"void operator<< <int>(A<int> const&)", "operator<<"},
    {"void operator<=><int>(A<int> const&, A<int> const&)", "operator<=>"},
    {"void operator-><int>(A<int> const&)", "operator->"},
    {"void operator=<int>(A<int> const&)", "operator="},
    {"bool operator==<int>(A<int> const&, A<int> const&)", "operator=="},
    {"operator\"\" _km(unsigned long long)", "operator\"\" _km"},
    {"f(int) &&", "f"},
    {"g() volatile noexcept", "g"},
    {"x<(1>2)>::y()", "x::y"},
    {"std::vector<int, std::allocator<int> >::push_back(int const&) [clone .cold]",
     "std::vector::push_back [clone .cold]"},
    {"foo()::bar", "foo::bar"},
    {"operator_helper(int)", "operator_helper"},
    {"my_operator<int>(int)", "my_operator"},
    {"square", "square"},
    {"#42", "#42"},
    {"", ""},
    /* unmatched brackets: cut up to the unmatched one, the rest kept */
    {"broken<int(", "broken<int("},
    {"f(int)::g<a", "f::g<a"},
    {"h)(", "h)("},
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256];
        strcpy(buf, cases[i][0]);
        size_t n = fr_name_simplify(buf);
        if (strcmp(buf, cases[i][1]))
            fail_msg("'%s' -> '%s', expected '%s'", cases[i][0], buf, cases[i][1]);
        assert_int_equal(n, strlen(buf));
    }
}

/* Every prefix of every case: never longer than its input, always terminated, no read
 * past it (ASan), and a simple name is its own simple form. */
static void test_prefixes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i][0]);
        for (size_t k = 0; k <= len; k++) {
            char *buf = test_malloc(k + 1);
            memcpy(buf, cases[i][0], k);
            buf[k] = 0;
            size_t n = fr_name_simplify(buf);
            assert_true(n <= k);
            assert_int_equal(n, strlen(buf));
            test_free(buf);
        }
        char again[256];
        strcpy(again, cases[i][1]);
        if (!strchr(again, '<') && !strchr(again, '(')) {
            fr_name_simplify(again);
            assert_string_equal(again, cases[i][1]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
