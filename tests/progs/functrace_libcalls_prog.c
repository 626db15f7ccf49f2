/* functrace_libcalls_prog.c - library calls for `record --libcalls`
 * (tests/functrace_libcalls.sh), built with gcc -finstrument-functions and clang XRay,
 * lazy and -z now:
 *   main: 1000 malloc (through get) and 1000 free; 5 getpid after a longjmp out of a
 *   qsort comparator (the qsort call must be closed, the getpid calls not under it);
 *   2 threads x 100 getppid; a child (fork) that calls getuid 10 times. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
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
    return 0;
}
