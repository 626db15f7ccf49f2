/*
 * functrace_xray_stream.c - compiler-rt's FDR API driven as its users drive it (select,
 * init with a flag string, patch, calls on two threads, finalize, in-memory iteration of
 * the buffers, flush), for tests/functrace_xray_stream.sh, which turns on stream=1 (in
 * FLIGHTREC_OPTIONS, the init string or XRAY_FDR_OPTIONS).
 * usage: functrace_xray_stream CALLS INIT_STRING IMAGE_FILE
 * Each thread makes CALLS calls of leaf() from one call of worker(). Prints the status of
 * each API call and "made N" (function records made); writes what
 * __xray_log_process_buffers handed out, concatenated, to IMAGE_FILE.
 */
#include <flightrec/xray.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
#define NEVER __attribute__((xray_never_instrument))
static volatile long sink;
static FILE *image;

TRACED long leaf(long x) { sink += x; return x * 2; }
TRACED void *worker(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        leaf(i);
        if (i % 128 == 127) {   /* slower than the disk: the stream keeps every record */
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

NEVER static void processor(const char *mode, XRayBuffer b)
{
    (void)mode;
    fwrite(b.Data, 1, b.Size, image);
}

NEVER int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long n = atol(argv[1]);
    image = fopen(argv[3], "wb");
    if (!image)
        return 2;
    printf("select %d\n", __xray_log_select_mode("xray-fdr"));
    printf("init %d\n", __xray_log_init_mode("xray-fdr", argv[2]));
    printf("patch %d\n", __xray_patch());
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)n);
    worker((void *)n);
    pthread_join(t, NULL);
    printf("unpatch %d\n", __xray_unpatch());
    printf("finalize %d\n", __xray_log_finalize());
    printf("process %d\n", __xray_log_process_buffers(processor));
    fclose(image);
    printf("flush %d\n", __xray_log_flushLog());
    printf("made %ld\n", 2 * 2 * (n + 1));
    return 0;
}
