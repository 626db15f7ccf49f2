/*
 * events_record.c - writes a flight-recorder trace with structured events and spans:
 *   events_record OUTPUT [EVENTS_SPEC]
 * Main thread: "Hello" (level 5), "Warn" (level 3, keyword 0x2), an Outer/Inner span
 * pair with a "Step" inside, a "Verbose" event at level 6 (recorded only when the spec
 * allows it). A worker thread: a span started as a child of the main thread's Outer
 * span (passed explicitly), with one event under it. Used by events_recorder.sh.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "EventsApp");
FR_PROVIDER_DEFINE_GROUP(net, "EventsNet", "demo");

static const uint8_t *outer_id;

static void *worker(void *arg)
{
    (void)arg;
    fr_span job;
    FR_SPAN_START_CHILD(app, &job, outer_id, "Job", FR_LEVEL(4), FR_U32("worker", 1));
    fr_activity_scope scope;
    fr_activity_enter(&scope, fr_span_id(&job));
    FR_EVENT(net, "Packet", FR_LEVEL(4), FR_KEYWORD(0x1), FR_PORT("port", 0x5000),
             FR_U32("bytes", 1500));
    fr_activity_leave(&scope);
    FR_SPAN_STOP(app, &job, "Job", FR_LEVEL(4));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: events_record OUTPUT [EVENTS_SPEC]\n");
        return 2;
    }
    char options[8192];
    snprintf(options, sizeof options, "output=%s%s%s", argv[1], argc > 2 ? " events=" : "",
             argc > 2 ? argv[2] : "");
    fr_status st = fr_init(options);
    if (st != FR_OK) {
        fprintf(stderr, "fr_init: %s\n", fr_status_string(st));
        return 1;
    }
    if (FR_PROVIDER_REGISTER(app) || FR_PROVIDER_REGISTER(net))
        return 1;

    FR_EVENT(app, "Hello", FR_U32("count", 42), FR_STR("msg", "world"));
    FR_EVENT(app, "Warn", FR_LEVEL(3), FR_KEYWORD(0x2), FR_I32("code", -7));
    fr_span outer, inner;
    FR_SPAN_START(app, &outer, "Outer", FR_LEVEL(4), FR_STR("what", "request"));
    outer_id = fr_span_id(&outer);
    FR_SPAN_START(app, &inner, "Inner", FR_LEVEL(4));
    FR_EVENT(app, "Step", FR_LEVEL(4), FR_U64("i", 1), FR_DOUBLE("ratio", 0.25));
    FR_SPAN_STOP(app, &inner, "Inner", FR_LEVEL(4));
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    FR_SPAN_STOP(app, &outer, "Outer", FR_LEVEL(4));
    FR_EVENT(app, "Verbose", FR_LEVEL(6), FR_U8("x", 1));

    if (fr_finalize() != FR_OK || fr_flush() != FR_OK)
        return 1;
    return 0;
}
