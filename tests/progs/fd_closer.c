/*
 * fd_closer.c - a program for tests/hostile_fd_close.sh: records through the public
 * API (recording from FLIGHTREC_OPTIONS: start=1 stream=1 ...), then does what a daemon
 * does at start-up: closes every descriptor above 2 (the recorder's among them), opens
 * files of its own (which take the lowest free numbers) and writes to them while it goes
 * on recording; optionally it first removes the streamed trace file (UNLINK), so that
 * the recorder cannot open it again. A fork child after the close checks the recorder
 * leaves the parent's files alone too.
 *
 * usage: fd_closer DATA_PREFIX PAIRS [UNLINK_PATH]
 * Writes DATA_PREFIX.N (N = 0..7), each "file N line K\n" for K = 0..99; prints
 * "made N" (enter/exit records asked for).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flightrec.h"

static void record_pairs(long n)
{
    for (long i = 0; i < n; i++) {
        fr_log_enter(1 + (uint32_t)(i & 3));
        fr_log_exit(1 + (uint32_t)(i & 3));
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long pairs = atol(argv[2]);
    record_pairs(pairs / 2);
    if (argc > 3)
        unlink(argv[3]);
    struct rlimit rl;
    int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
    for (int fd = 3; fd < top; fd++)
        close(fd);
    int fds[8];
    for (int f = 0; f < 8; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", argv[1], f);
        fds[f] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fds[f] < 0) {
            perror(path);
            return 1;
        }
    }
    for (int k = 0; k < 100; k++) {
        record_pairs(pairs / 200);
        for (int f = 0; f < 8; f++) {
            char line[64];
            int n = snprintf(line, sizeof line, "file %d line %d\n", f, k);
            if (write(fds[f], line, (size_t)n) != n)
                return 1;
        }
    }
    pid_t child = fork();
    if (child == 0) {
        record_pairs(1000);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    for (int f = 0; f < 8; f++)
        close(fds[f]);
    printf("made %ld\n", 2 * (pairs / 2 + 100 * (pairs / 200)));
    return 0;
}
