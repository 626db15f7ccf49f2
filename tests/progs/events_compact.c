/*
 * events_compact.c - structured events in the flight recorder file, compact
 * (FR_TE_EVENT_RUN: the site's metadata once, an id and the values per event), for
 * tests/events_compact.py.
 *   events_compact MODE OUTPUT [ARG]
 *   sample N     N events "Sample" of 2 u32 and a 5-character string, one thread
 *   stream N     `sample N` with stream=1 and 64 buffers of 4 KiB (the file grows
 *                block by block; nothing is lost)
 *   stream-kill  stream=1, 4 KiB buffers: a worker writes 3000 Sample events while the
 *                main thread, once the worker is 1000 in, writes 300 "Late" events (a
 *                site first used by another thread, later in the file); then, once the
 *                writer had time to append the full buffers, SIGKILL (no end written)
 *   stream-abort the same with crash_dump=1, ended by abort() (the crash dump appends
 *                the rest through the streamed path)
 *   killed BACK  1000 Sample events into backing file BACK, then SIGKILL (the provider
 *                registered while recording)
 *   killed-early BACK  the same, the provider registered before fr_init
 *   killed-small BACK   `killed` with a sites region of 100 bytes (a test seam): one
 *                site fits, the others turn compact events off (written in full)
 *   killed-fork BACK   10 Sample events, then fork: the child (backing file BACK.PID,
 *                its pid printed) writes 1000 Sample events and is SIGKILLed; the
 *                parent waits for it and exits normally
 *   mixed        a fixed set of events (every kind of field, explicit activity ids,
 *                function records between them, two threads): deterministic but for
 *                timestamps and thread ids
 *   MODE-full    any of these with every site without an id: the full FR_TE_EVENT
 *                records that were the only encoding before compact events
 *   overwrite    overwrite policy, 2 small buffers: site "Early" fires first, then
 *                20000 "Sample" events overwrite its buffer, then "Early" once more
 *   snapshot N   N snapshots (OUTPUT.0 ...) while a thread writes Sample events
 *   dlopen LIB   LIB (events_compact_lib) registers its provider, emits 3 events, is
 *                dlclose'd; then the main program emits one event and flushes
 * With EVENTS_COMPACT_KILL set in the environment, a mode that would finalize and flush
 * raises SIGKILL instead (backing= given in FLIGHTREC_OPTIONS: flightrec recover).
 * Prints nothing; exits non-zero on a failure of the runtime's API.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flightrec.h"
#include "flightrec/events.h"

FR_PROVIDER_DEFINE(app, "CompactApp");

/* Test seam (event_site_table.c): sites registered from now on get no id. */
void fr__event_sites_off_for_test(void);
/* Test seam (backing_meta.c): the backing file's sites region holds only CAP bytes. */
void fr__backing_sites_cap_for_test(uint64_t cap);

static void sample(uint32_t i)
{
    FR_EVENT(app, "Sample", FR_LEVEL(4), FR_U32("a", i), FR_U32("b", i * 3), FR_STR("s", "hello"));
}

static const uint8_t act1[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t act2[16] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
                                 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf};

static void *mixed_worker(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < 3; i++)
        sample(100 + i);
    FR_EVENT(app, "Worker", FR_ACTIVITY(act2), FR_RELATED_ACTIVITY(act1), FR_I64("n", -5));
    return NULL;
}

static atomic_int stop_writer, worker_done;
static void *stream_worker(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < 3000; i++) {
        sample(i);
        atomic_store(&worker_done, (int)i + 1);
    }
    return NULL;
}

/* stream-kill / stream-abort: two threads, the second site first used late by the
 * main thread while the writer appends the worker's buffers. */
static int stream_end(const char *how)
{
    pthread_t t;
    if (pthread_create(&t, NULL, stream_worker, NULL))
        return 1;
    while (atomic_load(&worker_done) < 1000)
        sched_yield();
    for (uint32_t i = 0; i < 300; i++) {
        FR_EVENT(app, "Late", FR_U32("i", i), FR_STR("what", "a site first used late"));
        if (i % 16 == 0)
            sched_yield();
    }
    if (pthread_join(t, NULL))
        return 1;
    struct timespec wait = { 0, 300 * 1000 * 1000 };   /* the writer wakes every 50 ms */
    nanosleep(&wait, NULL);
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    abort();
}

static atomic_int stop_writer;
static void *snapshot_writer(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; !atomic_load(&stop_writer); i++)
        sample(i);
    return NULL;
}

/* Snapshots while a thread appends to its event run: each file must end its runs at
 * whole entries (snapshot.c cuts a run that grew after the thread's position was read). */
static int snapshots(const char *out, int n)
{
    pthread_t t;
    if (pthread_create(&t, NULL, snapshot_writer, NULL))
        return 1;
    char path[4096];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s.%d", out, i);
        if (fr_snapshot(path) != FR_OK)
            return 1;
    }
    atomic_store(&stop_writer, 1);
    return pthread_join(t, NULL) != 0;
}

static int mixed(void)
{
    static const uint16_t arr[3] = {7, 8, 9};
    static const uint8_t bin[4] = {0xde, 0xad, 0xbe, 0xef};
    fr_log_enter(1);
    sample(1);
    FR_EVENT(app, "Kinds", FR_LEVEL(2), FR_KEYWORD(0x30), FR_I8("i8", -8), FR_U16("u16", 16),
             FR_HEX32("h32", 0xbeef), FR_BOOL("b", 1), FR_DOUBLE("d", 0.5), FR_CHAR("c", 'x'),
             FR_CSTR("cs", "counted", 7), FR_BINARY("bin", bin, 4),
             FR_U16_ARRAY("arr", arr, 3), FR_STRUCT("st", 2), FR_U8("x", 1), FR_U8("y", 2));
    fr_log_enter(2);
    FR_EVENT(app, "InSpan", FR_ACTIVITY(act1), FR_STR("what", "explicit activity"));
    fr_log_exit(2);
    sample(2);
    FR_EVENT(app, "Empty");
    sample(3);
    pthread_t t;
    if (pthread_create(&t, NULL, mixed_worker, NULL) || pthread_join(t, NULL))
        return 1;
    sample(4);
    fr_log_exit(1);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: events_compact MODE OUTPUT [ARG]\n");
        return 2;
    }
    const char *mode = argv[1];
    char options[4096];
    snprintf(options, sizeof options, "output=%s%s", argv[2],
             !strcmp(mode, "overwrite")  ? " buffer_size=4096 buffers=2 policy=overwrite"
             : !strcmp(mode, "snapshot") ? " buffer_size=524288 buffers=2 policy=overwrite"
             : !strcmp(mode, "stream")   ? " stream=1 buffer_size=4096 buffers=64"
             : !strcmp(mode, "stream-kill") ? " stream=1 buffer_size=4096 buffers=64 policy=discard"
             : !strcmp(mode, "stream-abort") ? " stream=1 buffer_size=4096 buffers=64 policy=discard"
                                               " crash_dump=1" : "");
    if (!strncmp(mode, "killed", 6) && argc > 3)   /* backing file ARG, then SIGKILL */
        snprintf(options + strlen(options), sizeof options - strlen(options), " backing=%s", argv[3]);
    if (!strcmp(mode, "killed-early") && FR_PROVIDER_REGISTER(app))
        return 1;
    if (fr_init(options) != FR_OK)
        return 1;
    size_t ml = strlen(mode);
    if (ml > 5 && !strcmp(mode + ml - 5, "-full")) {
        fr__event_sites_off_for_test();
        ((char *)mode)[ml - 5] = 0;
    }
    if (!strcmp(mode, "killed-small"))
        fr__backing_sites_cap_for_test(100);
    if (strcmp(mode, "killed-early") && FR_PROVIDER_REGISTER(app))
        return 1;

    if ((!strcmp(mode, "sample") || !strcmp(mode, "stream")) && argc > 3) {
        long n = atol(argv[3]);
        for (long i = 0; i < n; i++)
            sample((uint32_t)i);
    } else if (!strncmp(mode, "stream-", 7)) {
        return stream_end(mode + 7);
    } else if (!strcmp(mode, "mixed")) {
        if (mixed())
            return 1;
    } else if ((!strcmp(mode, "killed") || !strcmp(mode, "killed-early") ||
                !strcmp(mode, "killed-small")) && argc > 3) {
        for (uint32_t i = 0; i < 1000; i++)
            sample(i);
        raise(SIGKILL);   /* no trace: flightrec recover writes it from the backing file */
    } else if (!strcmp(mode, "killed-fork") && argc > 3) {
        for (uint32_t i = 0; i < 10; i++)
            sample(i);
        pid_t child = fork();
        if (child < 0)
            return 1;
        if (child == 0) {
            for (uint32_t i = 0; i < 1000; i++)
                sample(i);
            raise(SIGKILL);
        }
        printf("child %d\n", (int)child);
        int status;
        if (waitpid(child, &status, 0) != child || !WIFSIGNALED(status))
            return 1;
    } else if (!strcmp(mode, "snapshot") && argc > 3) {
        if (snapshots(argv[2], atoi(argv[3])))
            return 1;
    } else if (!strcmp(mode, "overwrite")) {
        FR_EVENT(app, "Early", FR_U32("when", 0));
        for (uint32_t i = 0; i < 20000; i++)
            sample(i);
        FR_EVENT(app, "Early", FR_U32("when", 1));
    } else if (!strcmp(mode, "dlopen") && argc > 3) {
        void *lib = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        int (*emit)(void) = (int (*)(void))dlsym(lib, "events_compact_lib_emit");
        if (!emit || emit() != 0)
            return 1;
        if (dlclose(lib) != 0)
            return 1;
        /* the library's pages are gone: whatever the flush reads of it must be a copy */
        Dl_info info;
        if (dladdr((void *)emit, &info) != 0)
            fprintf(stderr, "note: the library is still mapped after dlclose\n");
        sample(7);
    } else {
        fprintf(stderr, "events_compact: unknown mode %s\n", mode);
        return 2;
    }
    if (getenv("EVENTS_COMPACT_KILL"))
        raise(SIGKILL);   /* with backing= in FLIGHTREC_OPTIONS: for flightrec recover */
    if (fr_finalize() != FR_OK || fr_flush() != FR_OK)
        return 1;
    return 0;
}
