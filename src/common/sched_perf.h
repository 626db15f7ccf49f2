/*
 * sched_perf.h - the perf event behind scheduling marks (sched=1, `record --sched`): one
 * thread's own context switches, timed on CLOCK_MONOTONIC. Shared by the runtime, which
 * opens one per recorded thread (src/runtime/core/sched_marks.c), and `flightrec record`,
 * which tries one first so that a refusal is said once, not by every process.
 */
#ifndef FLIGHTREC_SCHED_PERF_H
#define FLIGHTREC_SCHED_PERF_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's context-switch records (PERF_RECORD_SWITCH with its tid and time):
 * a "dummy" software event (it counts and samples nothing), user space only, which
 * perf_event_paranoid up to 2 allows for one's own threads. A descriptor, or -1 (errno). */
static inline int fr_sched_perf_open(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_DUMMY;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    a.sample_id_all = 1;
    a.context_switch = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

/* kernel.perf_event_paranoid as text ("2"), or "?" (for the refusal's message). */
static inline void fr_sched_paranoid(char text[16])
{
    strcpy(text, "?");
    int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, text, 15);
    text[n > 0 ? n : 1] = 0;
    text[strcspn(text, "\n")] = 0;
    close(fd);
}

#endif
