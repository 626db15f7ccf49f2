/*
 * events_encode_test.c - the event macros and the user_events sink, through the sink's
 * seam: vectors A, B and C of shared/vectors/eventheader/vectors.md byte for byte
 * (registration commands, iovecs, event bytes) and decoded back; every field type
 * through encoder and decoder; spans and activity ids; a disabled call site evaluates
 * nothing; unregistration; provider GUIDs; the events= filter.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "flightrec/events.h"
#include "events_capture.h"
#include "eventheader_decode.h"

FR_PROVIDER_DEFINE(prov_a, "MyProviderName");
FR_PROVIDER_DEFINE_GROUP(prov_c, "MyProviderName", "mygroup");
FR_PROVIDER_DEFINE(prov_t, "TestTypes");
FR_PROVIDER_DEFINE(prov_s, "TestSpans");
FR_PROVIDER_DEFINE(prov_d, "TestDisabled");

#define COMMAND_TAIL " u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

/* The JSON the decoder makes of captured write w. */
static char *decode_json(const cap_write *w, const char *tracepoint)
{
    fr_eh_event ev;
    char err[256];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    if (fr_eh_decode(tracepoint, w->all, w->all_len, &ev, err, sizeof err) < 0 ||
        fr_eh_write_event_json(&ev, f, err, sizeof err) < 0)
        fail_msg("decode: %s", err);
    fclose(f);
    return text;
}

static void assert_bytes(const uint8_t *got, size_t got_len, const char *hex)
{
    uint8_t want[1024];
    size_t n = cap_hex(hex, want, sizeof want);
    if (got_len != n || memcmp(got, want, n)) {
        fprintf(stderr, "want %s\ngot ", hex);
        for (size_t i = 0; i < got_len; i++)
            fprintf(stderr, " %02x", got[i]);
        fprintf(stderr, "\n");
        fail_msg("bytes differ (%zu vs %zu)", got_len, n);
    }
}

static void emit_a(void)
{
    uint32_t count = 42;
    FR_EVENT(prov_a, "Hello", FR_U32("count", count), FR_STR("msg", "world"));
}

static void emit_b(void)
{
    const uint8_t arr[3] = {1, 2, 3};
    FR_EVENT(prov_a, "Hello", FR_LEVEL(4), FR_KEYWORD(1), FR_I32("i32", -5),
             FR_CSTR("cs", "hey", 3), FR_U8_ARRAY("arr", arr, 3));
}

static const uint8_t act_c[16] = {0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
                                  0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};
static const uint8_t rel_c[16] = {0xaa, 0xaa, 0xaa, 0xaa, 0xbb, 0xbb, 0xcc, 0xcc,
                                  0xdd, 0xdd, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee};
static void emit_c(void)
{
    FR_EVENT(prov_c, "Work", FR_OPCODE(FR_EH_OPCODE_ACTIVITY_START), FR_LEVEL(4), FR_KEYWORD(5),
             FR_TAG(0x1234), FR_ID(7, 2), FR_ACTIVITY(act_c), FR_RELATED_ACTIVITY(rel_c),
             FR_TAGGED(0x42, FR_U16("u16", 0x0102)));
}

static void test_vectors_abc(void **state)
{
    (void)state;
    cap_reset(true);
    assert_int_equal(FR_PROVIDER_REGISTER(prov_a), 0);
    assert_int_equal(FR_PROVIDER_REGISTER(prov_c), 0);
    /* Registration commands: one per call site, exactly the reference's text. */
    int found_a = 0, found_b = 0, found_c = 0;
    for (int i = 0; i < cap.nreg; i++) {
        found_a += !strcmp(cap.commands[i], "MyProviderName_L5K0" COMMAND_TAIL);
        found_b += !strcmp(cap.commands[i], "MyProviderName_L4K1" COMMAND_TAIL);
        found_c += !strcmp(cap.commands[i], "MyProviderName_L4K5Gmygroup" COMMAND_TAIL);
    }
    assert_int_equal(found_a, 1);
    assert_int_equal(found_b, 1);
    assert_int_equal(found_c, 1);

    emit_a();
    emit_b();
    emit_c();
    assert_int_equal(cap.nwrites, 3);

    /* A: the iovecs themselves, as the reference writes them. */
    const cap_write *a = &cap.writes[0];
    assert_int_equal(a->iovcnt, 5);
    assert_bytes(a->bytes[1], a->len[1], "07 00 00 00 00 00 00 05");
    assert_bytes(a->bytes[2], a->len[2],
                 "12 00 01 00 48 65 6c 6c 6f 00 63 6f 75 6e 74 00 04 6d 73 67 00 07");
    assert_bytes(a->bytes[3], a->len[3], "2a 00 00 00");
    assert_bytes(a->bytes[4], a->len[4], "77 6f 72 6c 64 00");
    assert_bytes(a->all, a->all_len,
                 "07 00 00 00 00 00 00 05 12 00 01 00 48 65 6c 6c 6f 00 63 6f 75 6e 74 00 04 6d "
                 "73 67 00 07 2a 00 00 00 77 6f 72 6c 64 00");
    const cap_write *b = &cap.writes[1];
    assert_bytes(b->all, b->all_len,
                 "07 00 00 00 00 00 00 04 15 00 01 00 48 65 6c 6c 6f 00 69 33 32 00 84 02 63 73 "
                 "00 0a 61 72 72 00 42 fb ff ff ff 03 00 68 65 79 03 00 01 02 03");
    const cap_write *c = &cap.writes[2];
    assert_bytes(c->all, c->all_len,
                 "07 02 07 00 34 12 01 04 20 00 02 80 11 11 11 11 22 22 33 33 44 44 55 55 55 55 "
                 "55 55 aa aa aa aa bb bb cc cc dd dd ee ee ee ee ee ee 0d 00 01 00 57 6f 72 6b "
                 "00 75 31 36 00 83 80 42 00 02 01");
    /* Write indexes: the one each registration returned, distinct per tracepoint. */
    assert_int_not_equal(a->write_index, b->write_index);
    assert_int_not_equal(b->write_index, c->write_index);
    assert_true(a->write_index >= 7 && a->write_index <= 9);

    char *j = decode_json(a, "MyProviderName_L5K0");
    assert_string_equal(j, "{ \"n\": \"MyProviderName:Hello\", \"count\": 42, \"msg\": \"world\", "
                           "\"meta\": { \"level\": 5 } }");
    free(j);
    j = decode_json(b, "MyProviderName_L4K1");
    assert_string_equal(j, "{ \"n\": \"MyProviderName:Hello\", \"i32\": -5, \"cs\": \"hey\", "
                           "\"arr\": [ 1, 2, 3 ], \"meta\": { \"level\": 4, \"keyword\": \"0x1\" } }");
    free(j);
    j = decode_json(c, "MyProviderName_L4K5Gmygroup");
    assert_string_equal(j, "{ \"n\": \"MyProviderName:Work\", \"u16;tag=0x42\": 258, \"meta\": "
                           "{ \"id\": 7, \"version\": 2, \"level\": 4, \"keyword\": \"0x5\", "
                           "\"opcode\": 1, \"tag\": \"0x1234\", "
                           "\"activity\": \"11111111-2222-3333-4444-555555555555\", "
                           "\"relatedActivity\": \"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\" } }");
    free(j);

    /* Unregistering withdraws every call site from the kernel and stops the writes. */
    int nsites = cap.nreg;
    fr_provider_unregister(&prov_a);
    fr_provider_unregister(&prov_c);
    assert_int_equal(cap.nunreg, nsites);
    emit_a();
    emit_c();
    assert_int_equal(cap.nwrites, 3);
    fr_ue_set_backend(NULL);
}

/* ------------------------------------------------------------------ all field types */

static void emit_types(void)
{
    const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};
    const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    const int16_t i16s[2] = {-1, 2};
    const uint32_t u32f[3] = {7, 8, 9};
    const double ds[2] = {0.5, -2.25};
    const uint8_t blob[3] = {0xde, 0xad, 0x01};
    int x = 0;
    FR_EVENT(prov_t, "Types", FR_LEVEL(2), FR_KEYWORD(0xF0),
             FR_I8("i8", -8), FR_I16("i16", -16), FR_I32("i32", -32), FR_I64("i64", -64),
             FR_U8("u8", 200), FR_U16("u16", 60000), FR_U32("u32", 4000000000u),
             FR_U64("u64", 18000000000000000000ull), FR_HEX32("h32", 0xBEEF),
             FR_HEX64("h64", 0x123456789ull), FR_BOOL("b", 1), FR_FLOAT("f", 1.5f),
             FR_DOUBLE("d", 0.1), FR_CHAR("c", 'Z'), FR_PTR("p", (void *)0x1000),
             FR_PID("pid", 1234), FR_ERRNO("err", 2), FR_TIME("t", 86400),
             FR_UUID("uuid", uuid), FR_IPV4("ip4", 0x0100007f), FR_IPV6("ip6", ip6),
             FR_PORT("port", 0x5000), FR_STR("null", NULL), FR_BINARY("bin", blob, 3),
             FR_STRUCT("pt", 2), FR_I16_ARRAY("xs", i16s, 2), FR_U32_FIXED("fix", u32f, 3),
             FR_DOUBLE_ARRAY("ds", ds, 2), FR_STRUCT("outer", 1), FR_STRUCT("inner", 1),
             FR_U8("deep", (uint8_t)(x + 3)));
}

static void test_all_field_types(void **state)
{
    (void)state;
    cap_reset(true);
    assert_int_equal(FR_PROVIDER_REGISTER(prov_t), 0);
    assert_string_equal(cap.commands[0], "TestTypes_L2Kf0" COMMAND_TAIL);
    emit_types();
    assert_int_equal(cap.nwrites, 1);
    char *j = decode_json(&cap.writes[0], "TestTypes_L2Kf0");
    assert_string_equal(j,
        "{ \"n\": \"TestTypes:Types\", \"i8\": -8, \"i16\": -16, \"i32\": -32, \"i64\": -64, "
        "\"u8\": 200, \"u16\": 60000, \"u32\": 4000000000, \"u64\": 18000000000000000000, "
        "\"h32\": \"0xBEEF\", \"h64\": \"0x123456789\", \"b\": true, \"f\": 1.5, \"d\": 0.1, "
        "\"c\": \"Z\", \"p\": \"0x1000\", \"pid\": 1234, \"err\": \"ENOENT(2)\", "
        "\"t\": \"1970-01-02T00:00:00\", \"uuid\": \"01020304-0506-0708-0102-030405060708\", "
        "\"ip4\": \"127.0.0.1\", \"ip6\": \"2001:db8::1\", \"port\": 80, \"null\": \"\", "
        "\"bin\": \"de ad 01\", \"pt\": { \"xs\": [ -1, 2 ], \"fix\": [ 7, 8, 9 ] }, "
        "\"ds\": [ 0.5, -2.25 ], \"outer\": { \"inner\": { \"deep\": 3 } }, "
        "\"meta\": { \"level\": 2, \"keyword\": \"0xF0\" } }");
    free(j);
    fr_provider_unregister(&prov_t);
    fr_ue_set_backend(NULL);
}

/* ------------------------------------------------------------------ disabled sites */

static int evaluated;
static int side_effect(void) { return ++evaluated; }

static void emit_disabled(void)
{
    FR_EVENT(prov_d, "Off", FR_I32("v", side_effect()), FR_STR("s", (side_effect(), "x")));
}

static void test_disabled_evaluates_nothing(void **state)
{
    (void)state;
    evaluated = 0;
    emit_disabled();                      /* never registered */
    assert_int_equal(evaluated, 0);
    cap_reset(false);                     /* registered, but no tracer listens */
    assert_int_equal(FR_PROVIDER_REGISTER(prov_d), 0);
    emit_disabled();
    assert_int_equal(evaluated, 0);
    assert_int_equal(cap.nwrites, 0);
    /* A tracer attaches: the kernel sets the site's bit; arguments run once. */
    for (int i = 0; i < cap.nreg; i++)
        __atomic_fetch_or(cap.enable_words[i], 1u, __ATOMIC_RELAXED);
    emit_disabled();
    assert_int_equal(evaluated, 2);
    assert_int_equal(cap.nwrites, 1);
    fr_provider_unregister(&prov_d);
    emit_disabled();
    assert_int_equal(evaluated, 2);
    fr_ue_set_backend(NULL);
}

/* ------------------------------------------------------------------ spans */

static void span_work(fr_span *outer, fr_span *inner)
{
    FR_SPAN_START(prov_s, outer, "Outer", FR_U32("n", 1));
    FR_SPAN_START(prov_s, inner, "Inner");
    FR_EVENT(prov_s, "Step", FR_U32("i", 5));
    FR_SPAN_STOP(prov_s, inner, "Inner");
    FR_SPAN_STOP(prov_s, outer, "Outer");
    FR_EVENT(prov_s, "After");
}

/* Activity extension of a captured write: 0, 16 or 32 id bytes copied to ids. */
static size_t activity_of(const cap_write *w, uint8_t ids[32])
{
    if (w->all_len < 12 || w->all[8 + 2] != FR_EH_EXT_ACTIVITY_ID)
        return 0;
    size_t n = w->all[8];
    memcpy(ids, w->all + 12, n);
    return n;
}

static void test_spans_nest(void **state)
{
    (void)state;
    cap_reset(true);
    assert_int_equal(FR_PROVIDER_REGISTER(prov_s), 0);
    fr_span outer, inner;
    span_work(&outer, &inner);
    assert_int_equal(cap.nwrites, 6);
    uint8_t ids[6][32];
    size_t n[6];
    for (int i = 0; i < 6; i++)
        n[i] = activity_of(&cap.writes[i], ids[i]);
    /* opcodes: start, start, info, stop, stop, info */
    const uint8_t opcodes[6] = {1, 1, 0, 2, 2, 0};
    for (int i = 0; i < 6; i++)
        assert_int_equal(cap.writes[i].all[6], opcodes[i]);
    assert_int_equal(n[0], 16);                         /* outer: no parent */
    assert_int_equal(n[1], 32);                         /* inner: parent = outer */
    assert_memory_equal(ids[1] + 16, ids[0], 16);
    assert_memory_not_equal(ids[1], ids[0], 16);
    assert_int_equal(n[2], 16);                         /* event inside inner */
    assert_memory_equal(ids[2], ids[1], 16);
    assert_int_equal(n[3], 16);
    assert_memory_equal(ids[3], ids[1], 16);            /* inner stops */
    assert_int_equal(n[4], 16);
    assert_memory_equal(ids[4], ids[0], 16);            /* outer stops */
    assert_int_equal(n[5], 0);                          /* no span any more */
    uint8_t cur[16];
    assert_false(fr_activity_current(cur));

    /* Cross-thread style: a child with an explicit parent leaves the thread's current
     * span alone; an adopted id becomes current for events until left. */
    cap.nwrites = 0;
    fr_span root, child;
    FR_SPAN_START(prov_s, &root, "Root");
    FR_SPAN_START_CHILD(prov_s, &child, fr_span_id(&root), "Child");
    assert_true(fr_activity_current(cur));
    assert_memory_equal(cur, root.id, 16);
    FR_SPAN_STOP(prov_s, &child, "Child");
    FR_SPAN_STOP(prov_s, &root, "Root");
    assert_int_equal(activity_of(&cap.writes[1], ids[0]), 32);
    assert_memory_equal(ids[0] + 16, root.id, 16);
    fr_activity_scope scope;
    fr_activity_enter(&scope, child.id);
    FR_EVENT(prov_s, "Adopted");
    fr_activity_leave(&scope);
    assert_int_equal(activity_of(&cap.writes[4], ids[0]), 16);
    assert_memory_equal(ids[0], child.id, 16);
    assert_false(fr_activity_current(cur));

    /* A span whose start was disabled leaves nothing behind when it stops. */
    fr_provider_unregister(&prov_s);
    fr_span off;
    FR_SPAN_START(prov_s, &off, "Off");
    assert_null(fr_span_id(&off));
    FR_SPAN_STOP(prov_s, &off, "Off");
    assert_false(fr_activity_current(cur));
    fr_ue_set_backend(NULL);
}

/* ------------------------------------------------------------------ fork and exit */

FR_PROVIDER_DEFINE(prov_f, "TestFork");
static void emit_fork(void) { FR_EVENT(prov_f, "Forked", FR_U8("v", 1)); }

static void test_unregistered_in_child_and_at_exit(void **state)
{
    (void)state;
    cap_reset(true);
    assert_int_equal(FR_PROVIDER_REGISTER(prov_f), 0);
    int sites = cap.nreg;
    assert_true(sites >= 1);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The child withdrew the inherited registrations at fork: the bits are clear. */
        int before = cap.nwrites;
        emit_fork();
        _exit(cap.nunreg == sites && cap.nwrites == before ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    emit_fork();                                  /* the parent's stay registered */
    assert_int_equal(cap.nwrites, 1);
    assert_int_equal(cap.nunreg, 0);

    /* At exit every provider is unregistered: a child that exits normally reports it
     * through the pipe (its fork-time withdrawal happened before the pipe was set). */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        cap_reset(true);
        FR_PROVIDER_REGISTER(prov_f);             /* a fresh registration in the child */
        cap.unreg_pipe = fds[1];
        exit(0);
    }
    close(fds[1]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char buf[64];
    ssize_t n = read(fds[0], buf, sizeof buf);
    close(fds[0]);
    assert_true(n >= 1);
    fr_provider_unregister(&prov_f);
    fr_ue_set_backend(NULL);
}

/* ------------------------------------------------------------------ ids, filter */

static void test_provider_guid(void **state)
{
    (void)state;
    char text[37];
    fr_provider_guid_string("MyProvider", text);
    assert_string_equal(text, "b3864c38-4273-58c5-545b-8b3608343471");
    fr_provider_guid_string("TestProviderC", text);
    assert_string_equal(text, "0da7a945-e9b1-510f-0ccf-ab1af0bc095b");
    fr_provider_guid_string("MyProviderName", text);
    assert_string_equal(text, "b7aa4d18-240c-5f41-5852-817dbf477472");
    fr_provider_guid_string("myprovidername", text);   /* names are case-insensitive */
    assert_string_equal(text, "b7aa4d18-240c-5f41-5852-817dbf477472");
    uint8_t g[16];
    fr_provider_guid("MyProvider", g);
    assert_int_equal(g[0], 0x38);                       /* Data1 little-endian */
    assert_int_equal(g[7] >> 4, 5);                     /* version 5 */
}

static void test_filter(void **state)
{
    (void)state;
    fr_event_filter *f = fr_event_filter_parse("MyProvider:4:0x3;Other:*;*:1");
    assert_non_null(f);
    assert_true(fr_event_filter_match(f, "MyProvider", 4, 0x1));
    assert_true(fr_event_filter_match(f, "MyProvider", 4, 0));      /* no keyword: any */
    assert_false(fr_event_filter_match(f, "MyProvider", 5, 0x1));   /* too verbose */
    assert_false(fr_event_filter_match(f, "MyProvider", 4, 0x4));   /* keyword not selected */
    assert_true(fr_event_filter_match(f, "Other", 200, 0x80));
    assert_true(fr_event_filter_match(f, "Third", 1, 0));
    assert_false(fr_event_filter_match(f, "Third", 2, 0));
    fr_event_filter_free(f);

    f = fr_event_filter_parse(NULL);                                /* default: all */
    assert_true(fr_event_filter_match(f, "X", 5, 0xFFFF));
    assert_false(fr_event_filter_match(f, "X", 6, 0));
    fr_event_filter_free(f);
    f = fr_event_filter_parse("none");
    assert_false(fr_event_filter_match(f, "X", 1, 0));
    fr_event_filter_free(f);
    /* ',' separates SPECs as ';' does (FLIGHTREC_OPTIONS="events=A:4,B:*,start=1") */
    f = fr_event_filter_parse("MyProvider:4:0x3,Other:*");
    assert_non_null(f);
    assert_true(fr_event_filter_match(f, "MyProvider", 4, 0x1));
    assert_false(fr_event_filter_match(f, "MyProvider", 5, 0x1));
    assert_true(fr_event_filter_match(f, "Other", 200, 0x80));
    assert_false(fr_event_filter_match(f, "Third", 1, 0));
    fr_event_filter_free(f);
    assert_null(fr_event_filter_parse("P:0"));                      /* level 0 invalid */
    assert_null(fr_event_filter_parse("P:5:zz"));
    assert_null(fr_event_filter_parse(":5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors_abc),
        cmocka_unit_test(test_all_field_types),
        cmocka_unit_test(test_disabled_evaluates_nothing),
        cmocka_unit_test(test_spans_nest),
        cmocka_unit_test(test_unregistered_in_child_and_at_exit),
        cmocka_unit_test(test_provider_guid),
        cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
