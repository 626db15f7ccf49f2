/* functrace_libcalls_prog.c - library calls for `record --libcalls`
 * (tests/functrace_libcalls.sh), built with gcc -finstrument-functions and clang XRay,
 * lazy and -z now:
 *   main: 1000 malloc (through get) and 1000 free; 5 getpid after a longjmp out of a
 *   qsort comparator (the qsort call must be closed, the getpid calls not under it);
 *   2 threads x 100 getppid; a child (fork) that calls getuid 10 times;
 *   arguments and results through the library-call stubs: snprintf with integer and
 *   floating-point arguments beyond the registers (on the stack), lldiv's two-register
 *   result, strtod's floating-point one ("args ok" when every value came through). */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NI __attribute__((noinline))

static jmp_buf out;
static volatile long sink;

NI void *get(size_t n) { return malloc(n); }

static int cmp_then_jump(const void *a, const void *b)
{
    (void)a; (void)b;
    longjmp(out, 1);
}

NI void sort_and_jump(void)
{
    int v[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    if (setjmp(out) == 0)
        qsort(v, 8, sizeof v[0], cmp_then_jump);
}

/* 12 integers and 12 doubles: more than the registers hold on x86-64 and aarch64 */
NI static int args_ok(void)
{
    static volatile int i0 = 1;
    static volatile double d0 = 0.5;
    int i = i0;
    double d = d0;
    char buf[256];
    snprintf(buf, sizeof buf, "%d %d %d %d %d %d %d %d %d %d %d %d "
             "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f",
             i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8, i + 9, i + 10, i + 11,
             d, d + 1, d + 2, d + 3, d + 4, d + 5, d + 6, d + 7, d + 8, d + 9, d + 10, d + 11);
    lldiv_t q = lldiv(1000000000007LL * i, 1000LL * i);
    double x = strtod("2.75", NULL);
    return !strcmp(buf, "1 2 3 4 5 6 7 8 9 10 11 12 "
                        "0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 9.5 10.5 11.5") &&
           q.quot == 1000000000 && q.rem == 7 && x == 2.75;
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        sink += getppid();
    return NULL;
}

int main(void)
{
    void *keep[1000];
    for (int i = 0; i < 1000; i++)
        keep[i] = get(16 + (size_t)i);
    for (int i = 0; i < 1000; i++)
        free(keep[i]);
    sort_and_jump();
    for (int i = 0; i < 5; i++)
        sink += getpid();
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < 10; i++)
            sink += getuid();
        exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    printf("libcalls %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    printf("args %s\n", args_ok() ? "ok" : "wrong");
    return 0;
}
