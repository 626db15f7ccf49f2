/*
 * sched_prog.c - a program that is off the CPU inside known calls, for `record --sched`
 * (issue 24 item 4; tests/sched_check.py). Built with XRay instrumentation.
 *   main: sleeper() three times, then joins a thread that calls sleeper() twice; each
 *   sleeper() sleeps 2 ms (nanosleep: at least one switch out and back in), around
 *   work() calls that stay on the CPU. Output: nothing; exit 0.
 */
#include <pthread.h>
#include <time.h>

__attribute__((noinline)) int work(int n)
{
    volatile int x = 0;
    for (int i = 0; i < n; i++)
        x += i;
    return x;
}

__attribute__((noinline)) void sleeper(void)
{
    work(1000);
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    work(1000);
}

static void *thread_main(void *arg)
{
    (void)arg;
    sleeper();
    sleeper();
    return NULL;
}

int main(void)
{
    pthread_t th;
    for (int i = 0; i < 3; i++)
        sleeper();
    if (pthread_create(&th, NULL, thread_main, NULL) == 0)
        pthread_join(th, NULL);
    return 0;
}
