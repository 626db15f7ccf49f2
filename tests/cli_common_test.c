/*
 * cli_common_test.c - the CLI's exact tick -> time conversion and duration parsing
 * (src/cli/cli_common.c), which every command that prints a time uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli_common.h"

static void test_time_format(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, 1234567, 1000000000, 6, 3), "1234.567");
    /* 2.1 GHz: 1 tick = 0.476190476... ns; one rounding only */
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, 1, 2100000000, 9, 3), "0.476");
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, 2100000001, 2100000000, 6, 3),
                        "1000000.000");
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, -5, 1000, 3, 0), "-5");
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, 7, 0, 6, 3), "7");
    /* beyond double precision: 2^62 ticks at 1 GHz */
    assert_string_equal(fr_cli_format_ticks(b, sizeof b, INT64_C(4611686018427387904),
                                            1000000000, 6, 3), "4611686018427387.904");
    assert_int_equal(fr_cli_ticks_to_ns(3, 2000000000), 2); /* 1.5 -> 2 */
    int64_t t;
    assert_int_equal(fr_cli_parse_duration("1.5ms", 2100000000, &t), 0);
    assert_int_equal(t, 3150000);
    assert_int_equal(fr_cli_parse_duration("20", 1000000, &t), 0);
    assert_int_equal(t, 20);
    assert_int_equal(fr_cli_parse_duration("100ns", 1000000000, &t), 0);
    assert_int_equal(t, 100);
    assert_int_equal(fr_cli_parse_duration("2s", 1000, &t), 0);
    assert_int_equal(t, 2000);
    assert_int_equal(fr_cli_parse_duration("2 s", 1000, &t), -1);
    assert_int_equal(fr_cli_parse_duration("ms", 1000, &t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
