/*
 * stream_doorbell.c - how threads that leave a buffer tell the stream writer
 * (stream_doorbell.h): a counter that is also the futex word it sleeps on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/stream_doorbell.h"

uint32_t fr_stream_word;
uint32_t fr_stream_sleeping;
uint32_t fr_stream_batch = 1;

void fr_stream_wake(void)
{
    int saved = errno;   /* may run in a signal handler */
    syscall(SYS_futex, &fr_stream_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}
