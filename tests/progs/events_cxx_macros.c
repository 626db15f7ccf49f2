/*
 * events_cxx_macros.c - every kind of event macro of flightrec/events.h, in a file that
 * is both C and C++: events_cxx_macros.sh builds it as C99/C11/C17 (gcc and clang) and as
 * C++11/C++17/C++20 (g++ and clang++), -Wpedantic and warnings as errors, runs each build
 * and requires the same recorded events from all (issue 10: g++ could not compile the
 * macros; issue 24: __VA_OPT__ and an empty "..." gave 142 -Wpedantic warnings with gcc).
 *   events_cxx_macros OUTPUT
 */
#include <stdio.h>
#include <stdint.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DECLARE(app);
FR_PROVIDER_DEFINE(app, "CxxMacros");
FR_PROVIDER_DEFINE_GROUP(grp, "CxxGroup", "g1");

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: events_cxx_macros OUTPUT\n");
        return 2;
    }
    char options[4200];
    snprintf(options, sizeof options, "output=%s", argv[1]);
    if (fr_init(options) != FR_OK || FR_PROVIDER_REGISTER(app) || FR_PROVIDER_REGISTER(grp))
        return 1;
    static const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t bytes[3] = {0xde, 0xad, 0x01};
    static const int8_t i8s[2] = {-1, 2};
    static const int16_t i16s[2] = {-300, 300};
    static const int32_t i32s[3] = {-70000, 0, 70000};
    static const int64_t i64s[1] = {-5000000000LL};
    static const uint8_t u8s[2] = {1, 255};
    static const uint16_t u16s[2] = {2, 65535};
    static const uint32_t u32s[2] = {3, 4000000000u};
    static const uint64_t u64s[2] = {4, 18000000000000000000ull};
    static const float fs[2] = {0.5f, -1.5f};
    static const double ds[2] = {0.25, 1e100};
    int local = 5;

    /* Scalars, with options in both orders. */
    FR_EVENT(app, "Scalars", FR_LEVEL(4), FR_KEYWORD(0x10), FR_I8("i8", -8), FR_I16("i16", -16),
             FR_I32("i32", -32), FR_I64("i64", -64), FR_U8("u8", 8), FR_U16("u16", 16),
             FR_U32("u32", 32), FR_U64("u64", 64), FR_HEX8("h8", 0x8), FR_HEX16("h16", 0x16),
             FR_HEX32("h32", 0x32), FR_HEX64("h64", 0x64), FR_BOOL("b", local > 2),
             FR_FLOAT("f", 1.5f), FR_DOUBLE("d", 2.25), FR_CHAR("c", 'x'));
    FR_EVENT(app, "Kinds", FR_KEYWORD(0x20), FR_OPCODE(11), FR_ID(7, 2), FR_TAG(0x123), FR_LEVEL(2),
             FR_PTR("p", (void *)0x1234), FR_PID("pid", 42), FR_ERRNO("err", 2),
             FR_TIME("t", 1700000000), FR_IPV4("ip", 0x0100007f), FR_PORT("port", 0x5000),
             FR_UUID("uuid", uuid), FR_IPV6("ip6", uuid));
    FR_EVENT(app, "Strings", FR_LEVEL(5), FR_STR("s", "zero-terminated"),
             FR_CSTR("cs", "counted!", 7), FR_BINARY("bin", bytes, 3));
    FR_EVENT(app, "Arrays", FR_LEVEL(5), FR_I8_ARRAY("a8", i8s, 2), FR_I16_ARRAY("a16", i16s, 2),
             FR_I32_ARRAY("a32", i32s, 3), FR_I64_ARRAY("a64", i64s, 1),
             FR_U8_ARRAY("b8", u8s, 2), FR_U16_ARRAY("b16", u16s, 2), FR_U32_ARRAY("b32", u32s, 2),
             FR_U64_ARRAY("b64", u64s, 2), FR_HEX8_ARRAY("x8", u8s, 2),
             FR_HEX16_ARRAY("x16", u16s, 2), FR_HEX32_ARRAY("x32", u32s, 2),
             FR_HEX64_ARRAY("x64", u64s, 2), FR_FLOAT_ARRAY("fa", fs, 2),
             FR_DOUBLE_ARRAY("da", ds, 2));
    FR_EVENT(app, "Fixed", FR_LEVEL(5), FR_I8_FIXED("a8", i8s, 2), FR_I16_FIXED("a16", i16s, 2),
             FR_I32_FIXED("a32", i32s, 3), FR_I64_FIXED("a64", i64s, 1),
             FR_U8_FIXED("b8", u8s, 2), FR_U16_FIXED("b16", u16s, 2), FR_U32_FIXED("b32", u32s, 2),
             FR_U64_FIXED("b64", u64s, 2), FR_HEX8_FIXED("x8", u8s, 2),
             FR_HEX16_FIXED("x16", u16s, 2), FR_HEX32_FIXED("x32", u32s, 2),
             FR_HEX64_FIXED("x64", u64s, 2), FR_FLOAT_FIXED("fa", fs, 2),
             FR_DOUBLE_FIXED("da", ds, 2));
    FR_EVENT(grp, "Nested", FR_LEVEL(3), FR_STRUCT("pt", 2), FR_I32("x", 1), FR_I32("y", -1),
             FR_TAGGED(0x42, FR_U32("tagged", 9)));
    FR_EVENT(app, "Bare");

    fr_span outer, inner;
    FR_SPAN_START(app, &outer, "Outer", FR_LEVEL(4), FR_STR("what", "request"));
    FR_SPAN_START_CHILD(app, &inner, fr_span_id(&outer), "Inner", FR_LEVEL(4), FR_U32("num", 1));
    fr_activity_scope scope;
    fr_activity_enter(&scope, fr_span_id(&inner));
    FR_EVENT(app, "InSpan", FR_LEVEL(4), FR_ACTIVITY(fr_span_id(&inner)),
             FR_RELATED_ACTIVITY(fr_span_id(&outer)), FR_U32("k", 3));
    fr_activity_leave(&scope);
    FR_SPAN_STOP(app, &inner, "Inner", FR_LEVEL(4));
    FR_SPAN_STOP(app, &outer, "Outer", FR_LEVEL(4), FR_U32("status", 200));
    for (int i = 0; i < 3; i++) {
        FR_SPAN_SCOPE(app, "Scoped", FR_LEVEL(4), FR_KEYWORD(0x1), FR_I32("i", i));
        if (i == 0)
            break;
    }
    return 0;   /* the normal exit writes the trace */
}
