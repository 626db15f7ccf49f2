/* core_options_test.c - parsing FLIGHTREC_OPTIONS / fr_init strings (white box). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "core/options.h"
#include "core/clock.h"
#include "arch/port.h"
#include "fr_format.h"

static void test_defaults(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    assert_string_equal(o.output, "flightrec-%p.fr");
    assert_int_equal(o.policy, FR_POLICY_OVERWRITE);
    assert_string_equal(o.patch, "all");
    assert_int_equal(o.threshold_us, 0);
    assert_false(o.start);
    assert_false(o.crash_dump);
    assert_string_equal(o.events, "");
    assert_true(o.buffer_size >= 1024 && o.buffers >= 1);
}

static void test_separators_and_values(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    assert_int_equal(fr_options_parse(&o, " output=/tmp/t-%p.fr,buffer_size=16k  buffers=3,"
                                          "policy=discard threshold_us=25 start=1 patch=foo* "
                                          "crash_dump=false clock=monotonic", "test"), 0);
    assert_string_equal(o.output, "/tmp/t-%p.fr");
    assert_int_equal(o.buffer_size, 16384);
    assert_int_equal(o.buffers, 3);
    assert_int_equal(o.policy, FR_POLICY_DISCARD);
    assert_int_equal(o.threshold_us, 25);
    assert_true(o.start);
    assert_string_equal(o.patch, "foo*");
    assert_false(o.crash_dump);
    /* the record-time filters (issue 24): exclude= and max_depth=; malformed patterns and
     * depths are refused, not ignored */
    assert_string_equal(o.exclude, "");
    assert_int_equal(o.max_depth, 0);
    assert_int_equal(fr_options_parse(&o, "exclude=ns::Box*:leaf_? max_depth=7", "test"), 0);
    assert_string_equal(o.exclude, "ns::Box*:leaf_?");
    assert_int_equal(o.max_depth, 7);
    assert_int_not_equal(fr_options_parse(&o, "max_depth=0", NULL), 0);
    assert_int_not_equal(fr_options_parse(&o, "max_depth=65536", NULL), 0);
    assert_int_equal(o.max_depth, 7);
    assert_int_not_equal(fr_options_parse(&o, "exclude=9-3", NULL), 0);
    assert_int_not_equal(fr_options_parse(&o, "patch=fn:7-2", NULL), 0);
    assert_string_equal(o.patch, "all");   /* a refused pattern selects as the default */
    assert_int_equal(fr_options_parse(&o, "patch=none", NULL), 0);
    assert_int_equal(fr_options_parse(&o, "patch=foo*", NULL), 0);
    /* libcalls=1: taken where the port has library-call stubs (x86-64, aarch64), refused
     * elsewhere (never accepted to do nothing); libcalls=0 is taken everywhere */
    assert_false(o.libcalls);
#ifdef FR_ARCH_JUMP_SLOT_RELOC
    assert_int_equal(fr_options_parse(&o, "libcalls=1", NULL), 0);
    assert_true(o.libcalls);
#else
    assert_int_not_equal(fr_options_parse(&o, "libcalls=1", NULL), 0);
    assert_false(o.libcalls);
#endif
    assert_int_equal(fr_options_parse(&o, "libcalls=0", NULL), 0);
    assert_false(o.libcalls);
    /* crash dumps and the termination-signal flush are built: both accepted (tests/crash_*) */
    assert_false(o.signal_flush);
    assert_int_equal(fr_options_parse(&o, "crash_dump=1 signal_flush=1", "test"), 0);
    assert_true(o.crash_dump);
    assert_true(o.signal_flush);
    assert_int_not_equal(fr_options_parse(&o, "crash_dump=maybe", "test"), 0);
    /* snapshot_signal: SIGUSR1/2 and real-time signals only (never one that kills or crashes) */
    assert_int_equal(fr_options_parse(&o, "snapshot_signal=SIGUSR2", "test"), 0);
    assert_int_equal(o.snapshot_signal, SIGUSR2);
    assert_int_equal(fr_options_parse(&o, "snapshot_signal=USR1", "test"), 0);
    assert_int_equal(o.snapshot_signal, SIGUSR1);
    assert_int_equal(fr_options_parse(&o, "snapshot_signal=SIGRTMIN+2", "test"), 0);
    assert_int_equal(o.snapshot_signal, SIGRTMIN + 2);
    assert_int_equal(fr_options_parse(&o, "snapshot_signal=12", "test"), 0);
    assert_int_equal(o.snapshot_signal, 12);
    assert_int_not_equal(fr_options_parse(&o, "snapshot_signal=SIGSEGV", "test"), 0);
    assert_int_not_equal(fr_options_parse(&o, "snapshot_signal=15", "test"), 0);
    assert_int_not_equal(fr_options_parse(&o, "snapshot_signal=SIGRTMAX+1", "test"), 0);
    assert_int_equal(fr_options_parse(&o, "snapshot_signal=0 snapshot_output=s-%n.fr", "test"), 0);
    assert_int_equal(o.snapshot_signal, 0);
    assert_string_equal(o.snapshot_output, "s-%n.fr");
    assert_int_equal(o.clock, FR_CLOCK_MONO);
    /* buffer sizes are rounded up to 8 bytes; M suffix */
    assert_int_equal(fr_options_parse(&o, "buffer_size=2001", "test"), 0);
    assert_int_equal(o.buffer_size, 2008);
    assert_int_equal(fr_options_parse(&o, "buffer_size=1M", "test"), 0);
    assert_int_equal(o.buffer_size, 1 << 20);
    /* XRay FDR names */
    assert_int_equal(fr_options_parse(&o, "buffer_max=9 func_duration_threshold_us=7 "
                                          "grace_period_ms=100 no_file_flush=1", "test"), 0);
    assert_int_equal(o.buffers, 9);
    assert_int_equal(o.threshold_us, 7);
    assert_true(o.no_file_flush);
}

/* events= takes a comma-separated list; the next key=value still ends it. */
static void test_events_list(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    assert_int_equal(fr_options_parse(&o, "events=MyProv:5:0xff,Other:4,output=x.fr start=1",
                                      "test"), 0);
    assert_string_equal(o.events, "MyProv:5:0xff,Other:4");
    assert_string_equal(o.output, "x.fr");
    assert_true(o.start);
    assert_int_equal(fr_options_parse(&o, "events=A:1 policy=discard", "test"), 0);
    assert_string_equal(o.events, "A:1");
}

static void test_bad_input(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    const char *bad[] = {
        "bogus=1", "buffer_size=abc", "buffer_size=100", "buffer_size=-5", "buffers=0",
        "policy=both", "start=maybe", "threshold_us=1e3", "output=", "novalue", "clock=sundial",
        "buffers=99999999999999999999",
        /* events= rules that select nothing the user meant (events.h's syntax) */
        "events=::::", "events=P:0", "events=P:5:zz", "events=:5", "events=P:256",
        "events=Foo:99", "events=P:6", "start=2", /* a level past 5 (* selects every level) */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(fr_options_parse(&o, bad[i], NULL), -1);
    /* valid pairs around a bad one still apply; the result says "bad" */
    assert_int_equal(fr_options_parse(&o, "buffers=5 bogus=1 policy=discard", NULL), -1);
    assert_int_equal(o.buffers, 5);
    assert_int_equal(o.policy, FR_POLICY_DISCARD);
    assert_int_equal(fr_options_parse(&o, NULL, NULL), 0);
    assert_int_equal(fr_options_parse(&o, "  ,, ", NULL), 0);
}

/* Quoted values hold spaces and commas: a path under a directory named "My Traces, old"
 * (`flightrec record` quotes such paths; without quotes the runtime refused to start). */
static void test_quoted_values(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    assert_int_equal(fr_options_parse(&o, "output=\"/tmp/My Traces, old/t.fr\" policy=discard",
                                      "test"), 0);
    assert_string_equal(o.output, "/tmp/My Traces, old/t.fr");
    assert_int_equal(o.policy, FR_POLICY_DISCARD);
    assert_int_equal(fr_options_parse(&o, "backing='/a \"b\"/%p.bk',buffers=7", "test"), 0);
    assert_string_equal(o.backing, "/a \"b\"/%p.bk");
    assert_int_equal(o.buffers, 7);
    assert_int_equal(fr_options_parse(&o, "output=\"\" start=1", NULL), -1);   /* empty */
    /* unterminated, or more after the closing quote: refused, the rest still applies */
    assert_int_equal(fr_options_parse(&o, "output=\"/x y buffers=9", NULL), -1);
    assert_int_equal(fr_options_parse(&o, "output=\"a\"b buffers=9", NULL), -1);
    assert_int_equal(o.buffers, 9);
    assert_string_equal(o.output, "/tmp/My Traces, old/t.fr");   /* (unchanged) */
}

/* Which keys a string gave, by key (issue 25: a substring test took snapshot_output= for
 * output=); an alias sets its key's bit; a refused pair none. */
static void test_given_keys(void **state)
{
    (void)state;
    struct fr_options o;
    fr_options_defaults(&o);
    assert_int_equal(o.given, 0);
    assert_int_equal(fr_options_parse(&o, "snapshot_output=my_output=x.fr,mystream=1", NULL), -1);
    assert_int_equal(o.given, FR_OPT_SNAPSHOT_OUTPUT);
    assert_string_equal(o.snapshot_output, "my_output=x.fr");
    assert_int_equal(fr_options_parse(&o, "buffer_max=3 func_duration_threshold_us=0", NULL), 0);
    assert_int_equal(o.given, FR_OPT_SNAPSHOT_OUTPUT | FR_OPT_BUFFERS | FR_OPT_THRESHOLD_US);
    assert_int_equal(fr_options_parse(&o, "stream=yes policy=bogus patch=none", NULL), -1);
    assert_true(o.stream);
    assert_int_equal(o.given & (FR_OPT_STREAM | FR_OPT_POLICY | FR_OPT_PATCH),
                     FR_OPT_STREAM | FR_OPT_PATCH);
}

/* FLIGHTREC_OPTIONS as the runtime reads it: parsed again when its value changes. */
static void test_from_env(void **state)
{
    (void)state;
    struct fr_options o;
    unsetenv("FLIGHTREC_OPTIONS");
    assert_int_equal(fr_options_from_env(&o, NULL), 0);
    assert_int_equal(o.given, 0);
    setenv("FLIGHTREC_OPTIONS", "buffers=5 snapshot_output=s.fr", 1);
    assert_int_equal(fr_options_from_env(&o, NULL), 0);
    assert_int_equal(o.buffers, 5);
    assert_int_equal(o.given, FR_OPT_BUFFERS | FR_OPT_SNAPSHOT_OUTPUT);
    setenv("FLIGHTREC_OPTIONS", "buffers=6 nonsense=1", 1);
    assert_int_equal(fr_options_from_env(&o, NULL), -1);
    assert_int_equal(o.buffers, 6);
    assert_int_equal(o.given, FR_OPT_BUFFERS);
    unsetenv("FLIGHTREC_OPTIONS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_separators_and_values),
        cmocka_unit_test(test_events_list),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_quoted_values),
        cmocka_unit_test(test_given_keys),
        cmocka_unit_test(test_from_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
