/*
 * exec_chain.c - processes that exec traced programs (issue 24), built with XRay:
 *   exec_chain before N   calls before() N times, then execs itself as "exec_chain after"
 *   exec_chain after      calls after() 3 times
 *   exec_chain spawn N    forks N children that each exec "exec_chain child" (which calls
 *                         child_work() twice), waits for them, then calls parent_work()
 * Used by record_exec.sh (the history before an exec under `flightrec record`) and
 * core_exec_children.sh (exec'd children and an output= without %p).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void before(int i) { sink += i; }
__attribute__((noinline)) void after(int i) { sink -= i; }
__attribute__((noinline)) void child_work(int i) { sink ^= i; }
__attribute__((noinline)) void parent_work(int i) { sink |= i; }

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "before")) {
        for (int i = 0; i < atoi(argv[2]); i++)
            before(i);
        execl("/proc/self/exe", argv[0], "after", (char *)NULL);
        perror("exec");
        return 1;
    }
    if (argc >= 2 && !strcmp(argv[1], "after")) {
        for (int i = 0; i < 3; i++)
            after(i);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "child")) {
        child_work(1);
        child_work(2);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "spawn")) {
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++) {
            pid_t p = fork();
            if (p == 0) {
                execl("/proc/self/exe", argv[0], "child", (char *)NULL);
                _exit(127);
            }
            int st;
            waitpid(p, &st, 0);   /* one after the other: each writes before the next runs */
        }
        parent_work(n);
        return 0;
    }
    fprintf(stderr, "usage: exec_chain before N | after | spawn N\n");
    return 2;
}
