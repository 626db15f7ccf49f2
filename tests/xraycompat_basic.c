/*
 * xraycompat_basic.c - a program that knows nothing of XRay, traced by compiler-rt's
 * basic mode from the environment alone (XRAY_OPTIONS=patch_premain=true
 * xray_mode=xray-basic, XRAY_BASIC_OPTIONS): calls with an argument logged, recursion
 * deeper than max_stack_depth, a thread, and with argument "fork" a fork whose child
 * calls too. Built against
 * compiler-rt and against flightrec; tests/xraycompat_run.py compares the logs.
 * With arguments "closefds PREFIX" (tests/xraycompat_basic_fds.sh, flightrec's build
 * only): then closes every descriptor above 2 as a daemon does (the log file's among
 * them), opens PREFIX.0..3 (which take the freed numbers), and calls leaf 5000 times
 * while writing 100 lines to each.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACED __attribute__((noinline, xray_always_instrument))
static volatile long sink;

TRACED long leaf(long x) { sink += x; return x * 2; }
TRACED __attribute__((xray_log_args(1))) long witharg(long x) { return leaf(x) + 1; }
TRACED long deep(int n) { return n ? deep(n - 1) + 1 : leaf(n); }
TRACED void *worker(void *arg) { sink += witharg((long)arg); return NULL; }
TRACED void child_work(void) { sink += leaf(40) + witharg(41); }

int main(int argc, char **argv)
{
    for (int i = 0; i < 3; i++)
        sink += witharg(i);
    sink += deep(6);
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)7L);
    pthread_join(t, NULL);
    if (argc > 2 && !strcmp(argv[1], "closefds")) {
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        int fds[4];
        for (int f = 0; f < 4; f++) {
            char path[4096];
            snprintf(path, sizeof path, "%s.%d", argv[2], f);
            if ((fds[f] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
                return 1;
        }
        for (int k = 0; k < 100; k++) {
            for (int i = 0; i < 50; i++)
                sink += leaf(i);
            for (int f = 0; f < 4; f++) {
                char line[64];
                int n = snprintf(line, sizeof line, "file %d line %d\n", f, k);
                if (write(fds[f], line, (size_t)n) != n)
                    return 1;
            }
        }
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "fork"))
        return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child_work();
        return 0;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
