/*
 * record_children.c - a process tree for `flightrec record -o FILE` (issue 15 item 4):
 * the recorded process calls leaf() 100 times, then starts a child that execs this
 * program again ("exec" mode: leaf() 300 times) and a forked child that does not exec
 * (leaf() 200 times), and waits for both. Each process's calls must land in its own
 * trace: FILE for the recorded process, FILE.PID for the children.
 * Built by tests/install_record_norelink.sh with clang -fxray-instrument (no runtime).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void leaf(long i) { sink += i; }

__attribute__((noinline)) static void calls(int n)
{
    for (int i = 0; i < n; i++)
        leaf(i);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        calls(300);
        return 0;
    }
    calls(100);
    pid_t exec_child = fork();
    if (exec_child == 0) {
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(127);
    }
    pid_t fork_child = fork();
    if (fork_child == 0) {
        calls(200);
        exit(0);   /* exit, not _exit: the trace is written at exit */
    }
    int st1, st2;
    if (exec_child < 0 || fork_child < 0 || waitpid(exec_child, &st1, 0) < 0 ||
        waitpid(fork_child, &st2, 0) < 0 || st1 != 0 || st2 != 0) {
        fprintf(stderr, "record_children: a child failed\n");
        return 1;
    }
    printf("record_children: parent %d exec %d fork %d\n", (int)getpid(),
           (int)exec_child, (int)fork_child);
    return 0;
}
