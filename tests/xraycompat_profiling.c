/*
 * xraycompat_profiling.c - compiler-rt's profiling mode as its users drive it: select,
 * init, patch, calls on the main thread (two top-level calls: two roots) and on two
 * threads run one after the other (each thread's trie is handed over when it exits),
 * finalize, the profile blocks through __xray_log_process_buffers (paths and call counts
 * printed; times and thread ids are not compared), flush; then a second session whose
 * profile goes to the log file (with argument "file"). Built against compiler-rt
 * (-fxray-modes=xray-profiling) and flightrec; tests/xraycompat_run.py compares.
 */
#include <flightrec/xray.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;

TRACED long leaf(long x) { sink += x; return x * 2; }
TRACED long mid(long x) { return leaf(x) + leaf(x + 1); }
TRACED long top(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += mid(i);
    return s + leaf(9);
}
TRACED void *worker(void *a)
{
    sink += top((int)(long)a);
    sink += top(1);
    return NULL;
}

NEVER static void processor(const char *mode, XRayBuffer b)
{
    const uint8_t *p = b.Data;
    printf("buffer %s %zu bytes", mode, b.Size);
    if (b.Size == 32) {
        uint64_t magic, version;
        memcpy(&magic, p, 8);
        memcpy(&version, p + 8, 8);
        printf(": header %llx version %llx\n", (unsigned long long)magic,
               (unsigned long long)version);
        return;
    }
    uint32_t size, num;
    memcpy(&size, p, 4);
    memcpy(&num, p + 4, 4);
    printf(": block size %u number %u\n", size, num);
    for (size_t off = 16; off + 20 <= b.Size;) {
        printf("  path");
        int32_t id;
        do {
            memcpy(&id, p + off, 4);
            off += 4;
            if (id)
                printf(" %d", id);
        } while (id && off < b.Size);
        uint64_t count;
        memcpy(&count, p + off, 8);
        off += 16;
        printf(", %llu calls\n", (unsigned long long)count);
    }
}

NEVER static void session(const char *config)
{
    printf("init %d\n", __xray_log_init_mode("xray-profiling", config));
    printf("init again %d\n", __xray_log_init_mode("xray-profiling", config));
    printf("patch %d\n", __xray_patch());
    sink += top(2);
    sink += top(1);
    for (long i = 1; i <= 2; i++) {
        pthread_t t;
        pthread_create(&t, NULL, worker, (void *)i);
        pthread_join(t, NULL);
    }
    printf("unpatch %d\n", __xray_unpatch());
    printf("flush before finalize %d\n", __xray_log_flushLog());
    printf("finalize %d\n", __xray_log_finalize());
    printf("finalize again %d\n", __xray_log_finalize());
    printf("process %d\n", __xray_log_process_buffers(processor));
    printf("flush %d\n", __xray_log_flushLog());
    printf("process after flush %d\n", __xray_log_process_buffers(processor));
}

NEVER int main(int argc, char **argv)
{
    printf("init before select %d\n", __xray_log_init_mode("xray-profiling", ""));
    printf("select %d\n", __xray_log_select_mode("xray-profiling"));
    session("no_flush=true");
    if (argc > 1 && !strcmp(argv[1], "file"))
        session("");
    return 0;
}
