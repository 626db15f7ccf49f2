/*
 * convert_fork_prog.c - a process that forks 3 children, for the merge test
 * (tests/convert_merge.py): the parent calls before_fork() 5 times, forks, each child i
 * calls child_work() 100 * (i + 1) times and exits, the parent waits for all of them and
 * calls after_wait() 5 times. So every child's calls happen after the parent's last
 * before_fork() and before its first after_wait(), on any clock.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void before_fork(int i) { sink += (uint64_t)i; }
__attribute__((noinline)) static void child_work(int i) { sink += (uint64_t)i * 7; }
__attribute__((noinline)) static void after_wait(int i) { sink ^= (uint64_t)i; }

int main(void)
{
    for (int i = 0; i < 5; i++)
        before_fork(i);
    pid_t kids[3];
    for (int k = 0; k < 3; k++) {
        kids[k] = fork();
        if (kids[k] < 0)
            return 1;
        if (kids[k] == 0) {
            for (int i = 0; i < 100 * (k + 1); i++)
                child_work(i);
            exit(0);    /* exit, not _exit: the child's trace is written at exit */
        }
    }
    for (int k = 0; k < 3; k++) {
        int status;
        if (waitpid(kids[k], &status, 0) != kids[k] || !WIFEXITED(status) || WEXITSTATUS(status))
            return 1;
    }
    for (int i = 0; i < 5; i++)
        after_wait(i);
    return 0;
}
