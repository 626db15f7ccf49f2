/*
 * stream_prog.c - a program for tests/crash_stream.sh (stream=1): THREADS threads each make
 * PAIRS enter/exit pairs through the public API, optionally pausing PAUSE_US every
 * EVERY records (a program slower than the disk), while short threads come and go.
 * Recording starts from FLIGHTREC_OPTIONS (start=1 stream=1 ...).
 *
 * usage: stream_prog THREADS PAIRS [PAUSE_US EVERY [WAITDIR [fork]]]
 * Prints "made N" (records asked for, the short threads' included) and "hwm_kib N"
 * (VmHWM). With WAITDIR: after the records, creates WAITDIR/ready and waits (at most
 * 30 s) for WAITDIR/go before exiting, so a reader can look at the live file. With
 * "fork": a child makes PAIRS pairs on one thread and exits (its own file), printing
 * "child made N"; the parent waits for it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "flightrec.h"

static long pairs, pause_us, every;
static long short_made;

static void pause_a_little(void)
{
    struct timespec ts = { pause_us / 1000000, (pause_us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < pairs; i++) {
        fr_log_enter(1 + (uint32_t)(i & 3));
        fr_log_exit(1 + (uint32_t)(i & 3));
        if (pause_us && every && (2 * (i + 1)) % every == 0)
            pause_a_little();
    }
    return NULL;
}

static void *short_one(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        fr_log_enter(9);
        fr_log_exit(9);
    }
    return NULL;
}

static long vm_hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            v = atol(line + 6);
    if (f)
        fclose(f);
    return v;
}

/* ASan's allocator (LLVM 14) keeps no lock across fork: a thread inside it when the
 * process forks leaves the child's allocator locked for good, and the child's first
 * allocation (its writer thread's start, LSan's check at exit) waits forever. The
 * parent's only other thread is the stream writer, which allocates only while it
 * starts (ASan's own thread setup): under ASan the fork waits until it has named
 * itself (after that setup). Without ASan the fork goes at once, the writer perhaps
 * still starting: glibc's malloc is fork-safe, and that case is worth testing. */
static void wait_for_writer_under_asan(void)
{
    int asan = 0;
#if defined(__SANITIZE_ADDRESS__)
    asan = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    asan = 1;
#endif
#endif
    for (int i = 0; asan && i < 1000; i++) {
        DIR *d = opendir("/proc/self/task");
        struct dirent *e;
        int named = 0;
        while (d && !named && (e = readdir(d))) {
            char path[300], comm[32] = "";
            snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
            FILE *f = fopen(path, "r");
            if (f && fgets(comm, sizeof comm, f))
                named = !strcmp(comm, "flightrec-strm\n");
            if (f)
                fclose(f);
        }
        if (d)
            closedir(d);
        if (named)
            return;
        usleep(10000);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s THREADS PAIRS [PAUSE_US EVERY [WAITDIR [fork]]]\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    pairs = atol(argv[2]);
    pause_us = argc > 3 ? atol(argv[3]) : 0;
    every = argc > 4 ? atol(argv[4]) : 0;
    const char *waitdir = argc > 5 && argv[5][0] ? argv[5] : NULL;
    int do_fork = argc > 6 && !strcmp(argv[6], "fork");
    if (threads < 1 || threads > 64)
        return 2;

    if (do_fork) {
        wait_for_writer_under_asan();
        pid_t c = fork();
        if (c == 0) {
            worker(NULL);
            printf("child made %ld\n", 2 * pairs);
            fflush(stdout);
            exit(0);   /* the child's file is finished at its exit */
        }
        int st;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 3;
    }

    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    /* threads that come and go meanwhile */
    for (int i = 0; i < 20; i++) {
        pthread_t s;
        pthread_create(&s, NULL, short_one, NULL);
        pthread_join(s, NULL);
        short_made += 200;
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("made %ld\n", 2 * pairs * threads + short_made);
    printf("hwm_kib %ld\n", vm_hwm_kib());
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    printf("sanitizer 1\n");   /* its shadow memory grows with what the program touches */
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
    printf("sanitizer 1\n");
#endif
#endif
    fflush(stdout);
    if (waitdir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ready", waitdir);
        close(open(path, O_CREAT | O_WRONLY, 0600));
        snprintf(path, sizeof path, "%s/go", waitdir);
        struct stat sb;
        for (int i = 0; i < 3000 && stat(path, &sb) != 0; i++)
            usleep(10000);
    }
    return 0;
}
