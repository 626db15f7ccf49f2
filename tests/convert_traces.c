/*
 * convert_traces.c - writes the known traces the convert tests check, each as NAME.fr plus
 * NAME.json: the records exactly as written (thread, kind, function id, tsc), the clock
 * and the names, so convert_check.py computes the expected calls, stacks and timestamps
 * on its own, without flightrec's reader or call tracker.
 * Usage: convert_traces OUTDIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fr_format.h"
#include "trace_builder.h"
#include "eventheader_vectors.h"

struct spec {
    fr_tb *b;
    FILE *json;
    int32_t tid;
    int first;
};

static void spec_open(struct spec *s, const char *dir, const char *name, uint64_t tps)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    s->json = fopen(path, "w");
    if (!s->json) {
        perror(path);
        exit(1);
    }
    s->b = fr_tb_new(tps);
    s->first = 1;
    fprintf(s->json, "{\"ticks_per_second\": %llu, \"records\": [", (unsigned long long)tps);
}

static void rec(struct spec *s, const char *kind, uint32_t id, uint64_t tsc)
{
    fprintf(s->json, "%s\n  {\"tid\": %d, \"kind\": \"%s\", \"id\": %u, \"tsc\": %llu}", s->first ? "" : ",",
            s->tid, kind, id, (unsigned long long)tsc);
    s->first = 0;
}

static void block(struct spec *s, int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc)
{
    s->tid = tid;
    fr_tb_block(s->b, tid, pid, cpu, tsc);
}
static void enter(struct spec *s, uint32_t id, uint64_t tsc) { fr_tb_enter(s->b, id, tsc); rec(s, "enter", id, tsc); }
static void exit_(struct spec *s, uint32_t id, uint64_t tsc) { fr_tb_exit(s->b, id, tsc); rec(s, "exit", id, tsc); }
static void tail(struct spec *s, uint32_t id, uint64_t tsc) { fr_tb_tail_exit(s->b, id, tsc); rec(s, "tail", id, tsc); }
static void enter_arg(struct spec *s, uint32_t id, uint64_t arg, uint64_t tsc)
{
    fr_tb_enter_arg(s->b, id, arg, tsc);
    rec(s, "enter", id, tsc);
}

static void spec_close(struct spec *s, const char *dir, const char *name, const char *extra_json)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.fr", dir, name);
    fprintf(s->json, "\n]%s%s}\n", extra_json ? ", " : "", extra_json ? extra_json : "");
    fclose(s->json);
    if (fr_tb_write(s->b, path)) {
        perror(path);
        exit(1);
    }
    fr_tb_free(s->b);
}

/* ---------------------------------------------------------------- the traces */

#define TPS 2100000000ull           /* 2.1 GHz: tick -> ns conversions have remainders */
#define BASE 1000003ull

/* Calls on two threads with names, metadata, events and every unmatched case. */
static void calls_trace(const char *dir)
{
    struct spec s;
    spec_open(&s, dir, "calls", TPS);
    struct tb_buf b = {.n = 0};
    tb_put_u32(&b, 1); tb_put_u32(&b, FR_CLOCK_SOURCE_TSC); tb_put_u64(&b, TPS); tb_put_u64(&b, BASE);
    tb_put_u64(&b, 1700000000000000000ull); tb_put_u64(&b, 5000000000ull);
    fr_tb_meta_event(s.b, FR_TE_CLOCK, b.p, b.n);
    b.n = 0;
    tb_put_u32(&b, 4242); tb_put_u32(&b, 1); tb_put_str16(&b, "convtest"); tb_put_str16(&b, "/nonexistent/convtest");
    tb_put_str16(&b, "convtest");
    fr_tb_meta_event(s.b, FR_TE_PROCESS, b.p, b.n);
    const char *tnames[2] = {"worker-a", "worker \"b\""};
    for (int i = 0; i < 2; i++) {
        b.n = 0;
        tb_put_u32(&b, (uint32_t)(11 + i)); tb_put_u64(&b, 20); tb_put_u64(&b, 0); tb_put_u64(&b, 0); tb_put_u64(&b, 0);
        tb_put_str16(&b, tnames[i]);
        fr_tb_meta_event(s.b, FR_TE_THREAD_STATS, b.p, b.n);
    }
    const char *names[] = {NULL, "main", "parse", "lex", "eval", "odd;name <&> \"q\""};
    for (uint32_t id = 1; id <= 5; id++)
        fr_tb_function_name(s.b, id, names[id]);

    uint64_t t = BASE + 17;
    block(&s, 11, 4242, 0, t);
    enter(&s, 1, t + 3);
    enter(&s, 2, t + 1000);
    for (int i = 0; i < 3; i++) {
        enter(&s, 3, t + 2000 + 700 * i);
        exit_(&s, 3, t + 2333 + 700 * i);
    }
    fr_tb_custom(s.b, "hello world", 11, t + 4500);
    exit_(&s, 2, t + 5000);
    enter_arg(&s, 4, 99, t + 6001);
    fr_tb_typed(s.b, 7, "\x00\x01\x02", 3, t + 6100);
    eh_event(s.b, "MyProviderName_L5K0", EH_VECTOR_A, t + 6200);
    eh_event(s.b, "MyProviderName_L4K5Gmygroup", EH_VECTOR_C, t + 6300);
    enter(&s, 5, t + 7000);
    enter(&s, 3, t + 7100);
    exit_(&s, 5, t + 9999);      /* exits 5 while 3 is open: 3 closed by unwind */
    eh_event(s.b, "MyProviderName_L4K5Gmygroup", EH_VECTOR_C_STOP, t + 10500);
    tail(&s, 4, t + 11000);
    exit_(&s, 1, t + 2100000000ull + 12345);   /* main lasts a little over a second */

    t = BASE + 50;
    block(&s, 12, 4242, 1, t);
    exit_(&s, 3, t + 10);        /* an exit without its entry: dropped */
    enter(&s, 1, t + 100);
    enter(&s, 5, t + 200);
    enter(&s, 2, t + 300);
    exit_(&s, 2, t + 777);
    enter(&s, 2, t + 800);
    exit_(&s, 2, t + 1801);      /* 1 and 5 stay open: closed at the thread's end */
    spec_close(&s, dir, "calls",
               "\"base_tsc\": 1000003, \"pid\": 4242, \"process\": \"convtest\", "
               "\"threads\": {\"11\": \"worker-a\", \"12\": \"worker \\\"b\\\"\"}, "
               "\"names\": {\"1\": \"main\", \"2\": \"parse\", \"3\": \"lex\", \"4\": \"eval\", "
               "\"5\": \"odd;name <&> \\\"q\\\"\"}");
}

/* For the YAML comparison: no flightrec metadata, many threads (llvm-xray's DenseMap
 * grows), equal timestamps across threads, time going back within a thread (a CPU
 * change), arguments, tail exits, custom events whose bytes exercise YAML quoting. */
static void yaml_trace(const char *dir)
{
    struct spec s;
    spec_open(&s, dir, "yaml", 1000000000ull);
    static const char *const payloads[] = {
        "plain", "123", "-12.5e3", "true", "Null", "~", "0x1F", "0o17", ".5", ".inf", "1e", "a b",
        " lead", "trail ", "x:y", "a/b", "#hash", "it's", "say \"hi\"", "tab\there", "line\nbreak",
        "caf\xc3\xa9", "\xe2\x80\xa8", "\xc2\x85", "\xc2\xa0", "bad\xffutf8", "del\x7f", "bell\a",
        "-", "?q", "[x]", "{y}", "a,b", "back\\slash", "@at", "`tick", "%pct", "!bang", "*star",
        "&amp", "|pipe", ">gt", "'quote",
        /* code points LLVM's YAML writer escapes as not printable (C1 control, combining
         * grapheme joiner, unassigned, private use, noncharacter) and printable ones */
        "c1\xc2\x91", "cgj\xcd\x8f", "un\xcd\xb8", "pua\xee\x80\x80", "nc\xf4\x8f\xbf\xbf",
        "emoji\xf0\x9f\x98\x80", "cjk\xe4\xb8\xad",
    };
    uint64_t t0 = 5000;
    for (int th = 0; th < 70; th++) {
        uint64_t t = t0 + 10;
        block(&s, 1000 + th * 7, 77, (uint16_t)(th % 3), t);
        enter(&s, 1, t0 + 100);               /* the same tsc on every thread */
        enter_arg(&s, 2, 0xFFFFFFFFFFull + (uint64_t)th, t0 + 200 + (uint64_t)th);
        if (th % 5 == 0) {
            size_t k = (size_t)th / 5 % (sizeof payloads / sizeof payloads[0]);
            fr_tb_custom(s.b, payloads[k], strlen(payloads[k]), t0 + 250);
        }
        if (th % 7 == 0)
            fr_tb_typed(s.b, (uint16_t)(3 + th), "xy", 2, t0 + 260);
        tail(&s, 2, t0 + 300);
        exit_(&s, 1, t0 + 400);
        if (th == 3) {
            fr_tb_new_cpu(s.b, 2, t0 + 150);  /* back in time: a new sorted run */
            enter(&s, 3, t0 + 160);
            exit_(&s, 3, t0 + 170);
        }
    }
    /* Every payload once more on one thread, so each quoting rule is checked. */
    block(&s, 5, 77, 0, 9000);
    for (size_t k = 0; k < sizeof payloads / sizeof payloads[0]; k++)
        fr_tb_custom(s.b, payloads[k], strlen(payloads[k]), 9000 + k);
    /* Blocks of different threads meeting at one tsc: the tie follows llvm-xray's thread
     * order, not the file's (some of these pairs are in the other order there). */
    for (int th = 0; th < 8; th++) {
        block(&s, 7 + th, 77, 0, 20000 + (uint64_t)th * 10);
        enter(&s, 4, 20000 + (uint64_t)th * 10);
        exit_(&s, 4, 20010 + (uint64_t)th * 10);
    }
    spec_close(&s, dir, "yaml", NULL);
}

/* No records at all: every format must still write a complete, valid file. */
static void empty_trace(const char *dir)
{
    struct spec s;
    spec_open(&s, dir, "empty", 1000000000ull);
    block(&s, 5, 6, 0, 100);
    spec_close(&s, dir, "empty", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    calls_trace(argv[1]);
    yaml_trace(argv[1]);
    empty_trace(argv[1]);
    return 0;
}
