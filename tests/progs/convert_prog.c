/*
 * convert_prog.c - a small XRay-instrumented program with known call counts, recorded by
 * tests/convert_record.sh: 3 threads, each calling leaf() 200 times through middle(), a
 * recursive countdown of depth 10, a function logging its argument, and one structured
 * event and one span per thread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <flightrec/events.h>

FR_PROVIDER_DEFINE(convert_prog_events, "ConvertProg");

static volatile uint64_t sink;

__attribute__((noinline)) static void leaf(int i) { sink += (uint64_t)i * 3; }

__attribute__((noinline)) static void middle(int i)
{
    leaf(i);
    sink ^= (uint64_t)i;
}

__attribute__((noinline)) static int countdown(int n)
{
    if (n == 0)
        return 0;
    int below = countdown(n - 1);
    sink += (uint64_t)below;   /* work after the call: no tail call, no loop */
    return below + 1;
}

/* clang honours xray_log_args only with an xray instrument attribute (without it the
 * sled is a plain function-enter and the argument is never logged). */
__attribute__((xray_always_instrument, xray_log_args(1), noinline))
static void with_arg(uint64_t v) { sink += v; }

__attribute__((noinline)) static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    fr_span span;
    FR_SPAN_START(convert_prog_events, &span, "Work", FR_LEVEL(4), FR_I32("worker", id));
    for (int i = 0; i < 200; i++)
        middle(i);
    sink += (uint64_t)countdown(10);
    with_arg(1000 + (uint64_t)id);
    FR_EVENT(convert_prog_events, "Done", FR_LEVEL(4), FR_I32("worker", id), FR_STR("state", "ok"));
    FR_SPAN_STOP(convert_prog_events, &span, "Work", FR_LEVEL(4));
    return NULL;
}

int main(void)
{
    FR_PROVIDER_REGISTER(convert_prog_events);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("convert_prog: %llu\n", (unsigned long long)sink);
    return 0;
}
