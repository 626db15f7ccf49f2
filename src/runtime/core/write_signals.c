/*
 * write_signals.c - SIGXFSZ and SIGPIPE kept from killing the program while we write a
 * file (write_signals.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include "core/write_signals.h"

void fr_write_signals_block(struct fr_write_signals *w)
{
    sigset_t set, pending;
    sigemptyset(&pending);
    sigpending(&pending);
    w->xfsz_pending = sigismember(&pending, SIGXFSZ) == 1;
    w->pipe_pending = sigismember(&pending, SIGPIPE) == 1;
    sigemptyset(&set);
    sigaddset(&set, SIGXFSZ);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &w->old);
}

void fr_write_signals_restore(struct fr_write_signals *w)
{
    sigset_t ours;
    sigemptyset(&ours);
    if (!w->xfsz_pending)
        sigaddset(&ours, SIGXFSZ);
    if (!w->pipe_pending)
        sigaddset(&ours, SIGPIPE);
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&ours, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &w->old, NULL);
}
