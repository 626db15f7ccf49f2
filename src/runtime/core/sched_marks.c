/*
 * sched_marks.c - scheduling marks: when a recorded thread was switched out and back in.
 *
 * With sched=1 (`flightrec record --sched`) each thread, when it registers, opens a perf
 * event on itself that records only its own context switches (PERF_RECORD_SWITCH, with
 * the time on CLOCK_MONOTONIC, the clock the trace is anchored to) into a small ring it
 * maps. The kernel fills the ring while the thread is off the CPU; the thread reads it
 * at its next record (thread_writer.c): every stretch off the CPU lies between its last
 * record and this one, so it goes into the thread's history in time order, as an
 * FR_TE_SCHED record, without a lock, a system call or a copy on the record path (the
 * ring is memory; the test is one thread-local load while sched is off).
 *
 * The event counts nothing and samples nothing (a software "dummy" event, user space
 * only), so perf_event_paranoid 2 (the usual default) allows it for one's own threads;
 * where the kernel refuses (paranoid 3, seccomp, no perf), the first thread says so on
 * stderr and the process records without marks. A ring of 8 KiB holds about 170 switches;
 * if the thread is switched more often than it records, the kernel drops the oldest and
 * says how many (PERF_RECORD_LOST): the stretch in progress is then forgotten.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/sched_marks.h"
#include "fr_format.h"
#include "sched_perf.h"

#define FR_TLS __thread __attribute__((tls_model("initial-exec")))
#define RING_DATA_PAGES 2   /* a power of two */

FR_TLS void *fr_sched_ring;
static FR_TLS struct {
    int      fd;
    size_t   map_size;
    uint64_t out_ns;       /* the switch out not yet matched by a switch in (0: none) */
    uint32_t out_flags;
} me;
static int refused;        /* the kernel said no: said once, not asked again */

static void refuse(int err)
{
    int expected = 0;
    if (!__atomic_compare_exchange_n(&refused, &expected, 1, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
        return;
    char paranoid[16];
    fr_sched_paranoid(paranoid);
    fprintf(stderr, "flightrec: sched=1: the kernel refuses perf_event_open (%s; "
            "kernel.perf_event_paranoid=%s): recording without scheduling marks\n",
            strerror(err), paranoid);
}

void fr_sched_thread_start(void)
{
    if (fr_sched_ring || __atomic_load_n(&refused, __ATOMIC_RELAXED))
        return;
    int fd = fr_sched_perf_open();
    if (fd < 0) {
        refuse(errno);
        return;
    }
    size_t size = (size_t)(1 + RING_DATA_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        int err = errno;
        close(fd);
        refuse(err);
        return;
    }
    me.fd = fd;
    me.map_size = size;
    me.out_ns = 0;
    __atomic_store_n(&fr_sched_ring, m, __ATOMIC_RELEASE);
}

int fr_sched_pending(void)
{
    struct perf_event_mmap_page *pg = fr_sched_ring;
    return pg && __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) != pg->data_tail;
}

/* Copies n bytes at ring offset `at` (wrapping at the end of the data area). */
static void ring_copy(const struct perf_event_mmap_page *pg, uint64_t at, void *to, size_t n)
{
    const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
    uint64_t size = pg->data_size, off = at & (size - 1);
    size_t first = n < size - off ? n : (size_t)(size - off);
    memcpy(to, data + off, first);
    memcpy((uint8_t *)to + first, data, n - first);
}

int fr_sched_next(struct fr_sched_mark *m)
{
    struct perf_event_mmap_page *pg = fr_sched_ring;
    if (!pg)
        return 0;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    int found = 0;
    while (tail < head && !found) {
        struct perf_event_header h;
        ring_copy(pg, tail, &h, sizeof h);
        if (h.size < sizeof h || h.size > head - tail)
            break;   /* not a record: give up on what is left */
        if (h.type == PERF_RECORD_SWITCH && h.size >= sizeof h + 16) {
            uint64_t ns;   /* sample_id: pid, tid (u32 each), time */
            ring_copy(pg, tail + sizeof h + 8, &ns, sizeof ns);
            if (h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
                me.out_ns = ns;
                me.out_flags = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? FR_SCHED_PREEMPTED : 0;
            } else if (me.out_ns && ns >= me.out_ns) {
                *m = (struct fr_sched_mark){ me.out_ns, ns, me.out_flags };
                me.out_ns = 0;
                found = 1;
            }
        } else if (h.type == PERF_RECORD_LOST) {
            me.out_ns = 0;   /* its switch in may be among the lost */
        }
        tail += h.size;
    }
    if (!found)
        tail = head;
    __atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
    return found;
}

void fr_sched_thread_end(void)
{
    void *m = fr_sched_ring;
    if (!m)
        return;
    __atomic_store_n(&fr_sched_ring, NULL, __ATOMIC_RELEASE);
    munmap(m, me.map_size);
    close(me.fd);
    me.fd = -1;
}
