/*
 * events_absent.c - on a kernel without user_events (this machine's): with
 * user_events=on the sink says so once on stderr, however many providers register (by
 * default, user_events=auto, it says nothing: events_absent quiet), and costs nothing
 * afterwards: no call site gets the user_events bit and writev is never called, while the
 * flight recorder still takes the events. Exits 77 (skip) where user_events_data exists.
 * usage: events_absent [quiet]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(one, "AbsentOne");
FR_PROVIDER_DEFINE(two, "AbsentTwo");

/* The runtime is linked statically: this definition takes the place of libc's. */
static int writev_calls;
ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    (void)fd; (void)iov; (void)iovcnt;
    writev_calls++;
    return -1;
}

static void emit(void)
{
    for (int i = 0; i < 1000; i++) {
        FR_EVENT(one, "Tick", FR_U32("i", (uint32_t)i));
        FR_EVENT(two, "Tock", FR_LEVEL(4), FR_STR("s", "x"));
    }
}

static int fail(const char *what)
{
    fprintf(stdout, "FAIL: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (!access("/sys/kernel/tracing/user_events_data", F_OK) ||
        !access("/sys/kernel/debug/tracing/user_events_data", F_OK)) {
        printf("user_events present: skipped\n");
        return 77;
    }
    int quiet = argc > 1 && !strcmp(argv[1], "quiet");
    setenv("FLIGHTREC_OPTIONS", quiet ? "" : "user_events=on", 1);
    char log[4096];
    snprintf(log, sizeof log, "%s%s.stderr", argv[0], quiet ? ".quiet" : "");
    FILE *err = freopen(log, "w+", stderr);
    if (!err)
        return fail("redirect stderr");

    char options[4200];
    snprintf(options, sizeof options, "output=%s%s.fr policy=discard buffer_size=1048576", argv[0],
             quiet ? ".quiet" : "");
    if (fr_init(options) != FR_OK)
        return fail("fr_init");
    if (FR_PROVIDER_REGISTER(one) || FR_PROVIDER_REGISTER(two))
        return fail("register");
    fr_provider_unregister(&one);
    if (FR_PROVIDER_REGISTER(one))   /* registering again: still one message */
        return fail("register again");
    emit();

    int sites = 0;
    for (fr_event_site *const *p = __start_fr_events; p < __stop_fr_events; p++) {
        sites++;
        if ((*p)->enabled & FR_SITE_USER_EVENTS)
            return fail("a call site has the user_events bit");
        if (!((*p)->enabled & FR_SITE_RECORDER))
            return fail("a call site lost the flight recorder bit");
    }
    if (sites != 2)
        return fail("expected 2 call sites in section fr_events");
    if (writev_calls)
        return fail("writev was called");
    fr_finalize();   /* per-thread totals are complete once recording stopped */
    fr_stats st;
    fr_get_stats(&st);
    if (st.records_written < 2000)
        { printf("written %llu dropped %llu\n", (unsigned long long)st.records_written, (unsigned long long)st.records_dropped); return fail("the flight recorder did not get the events"); }
    fr_finalize();

    fflush(stderr);
    rewind(err);
    char line[1024];
    int messages = 0, lines = 0;
    while (fgets(line, sizeof line, err)) {
        lines++;
        messages += strstr(line, "user_events unavailable") != NULL;
    }
    if (messages != !quiet || lines != !quiet) {
        printf("stderr had %d lines, %d about user_events\n", lines, messages);
        return fail(quiet ? "expected no message (user_events=auto)"
                          : "expected exactly one message (user_events=on)");
    }
    printf("ok: %s, %d sites without the user_events bit, no writev\n",
           quiet ? "no message" : "one message", sites);
    return 0;
}
