/*
 * ue_collect.c - a small collector of user_events, the kernel tests' own, with
 * perf_event_open: one tracepoint event per CPU for each name given (system-wide), raw
 * samples read from the ring buffers and decoded with flightrec's EventHeader decoder.
 *
 *   ue_collect [-g GAP_MS] [-r READY_FILE] -o OUT NAME...    (until SIGTERM or SIGINT)
 *
 * Each sample becomes one line of OUT:
 *   {"tp": "NAME", "pid": P, "tid": T, "cpu": C, "time": NS, "event": {decoded}}
 * and a lost-sample record {"lost": N}. The events are opened disabled and enabled once
 * all are open and mapped; READY_FILE is created after that, so a program that waits for
 * it loses nothing. -g waits GAP_MS between opening (the moment the kernel sets the
 * programs' enable bits) and enabling: the gap in which events written are lost.
 * Exit status 0, 1 on a failure (message on stderr), 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "eventheader_decode.h"

#define MAX_FDS 64
#define RING_PAGES 64          /* data pages per ring (256 KiB) */

struct ring {
    int fd;
    const char *name;          /* tracepoint name */
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t size;
};

static struct ring rings[MAX_FDS];
static int nrings;
static volatile sig_atomic_t stop;
static FILE *out;
static long long samples, lost, undecoded;

static void on_signal(int sig) { (void)sig; stop = 1; }

static int tracepoint_id(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "/sys/kernel/tracing/events/user_events/%s/id", name);
    FILE *f = fopen(path, "re");
    int id = -1;
    if (!f || fscanf(f, "%d", &id) != 1)
        id = -1;
    if (f)
        fclose(f);
    return id;
}

static int open_ring(const char *name, int id, int cpu)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = (uint64_t)id;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
    a.disabled = 1;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "ue_collect: perf_event_open %s cpu %d: %s\n", name, cpu, strerror(errno));
        return -1;
    }
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)page * (1 + RING_PAGES);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "ue_collect: mmap %s: %s\n", name, strerror(errno));
        return -1;
    }
    struct ring *r = &rings[nrings++];
    r->fd = fd;
    r->name = name;
    r->meta = m;
    r->data = (uint8_t *)m + page;
    r->size = (size_t)page * RING_PAGES;
    return 0;
}

static void copy_out(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
    size_t off = (size_t)(pos % r->size);
    size_t first = n < r->size - off ? n : r->size - off;
    memcpy(dst, r->data + off, first);
    memcpy((uint8_t *)dst + first, r->data, n - first);
}

static void emit_sample(const struct ring *r, const uint8_t *rec, size_t size)
{
    /* PERF_SAMPLE_TID, TIME, CPU, RAW in this order after the 8-byte header */
    if (size < 8 + 8 + 8 + 8 + 4)
        return;
    uint32_t pid, tid, cpu, raw_size;
    uint64_t time;
    memcpy(&pid, rec + 8, 4);
    memcpy(&tid, rec + 12, 4);
    memcpy(&time, rec + 16, 8);
    memcpy(&cpu, rec + 24, 4);
    memcpy(&raw_size, rec + 32, 4);
    const uint8_t *raw = rec + 36;
    if (36 + (size_t)raw_size > size || raw_size < 8)
        return;
    /* The raw data: the 8 bytes of common fields (type, flags, preempt count, pid), then
     * what the program wrote after the write index: the EventHeader event. */
    fr_eh_event ev;
    char err[256];
    samples++;
    fprintf(out, "{\"tp\": \"%s\", \"pid\": %u, \"tid\": %u, \"cpu\": %u, \"time\": %llu, "
            "\"raw_size\": %u, \"event\": ", r->name, pid, tid, cpu, (unsigned long long)time,
            raw_size);
    if (fr_eh_decode(r->name, raw + 8, raw_size - 8, &ev, err, sizeof err) != 0 ||
        fr_eh_write_event_json(&ev, out, err, sizeof err) != 0) {
        undecoded++;
        fprintf(out, "null, \"error\": \"");
        for (const char *p = err; *p; p++)
            fputc(*p == '"' || *p == '\\' ? '\'' : *p, out);
        fputc('"', out);
    }
    fputs("}\n", out);
}

static void drain(struct ring *r)
{
    uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->meta->data_tail;
    static uint8_t rec[65536];   /* a record is at most 65535 bytes (u16 size) */
    while (tail < head) {
        struct perf_event_header h;
        copy_out(r, tail, &h, sizeof h);
        if (h.size < sizeof h)
            break;
        copy_out(r, tail, rec, h.size);
        if (h.type == PERF_RECORD_SAMPLE) {
            emit_sample(r, rec, h.size);
        } else if (h.type == PERF_RECORD_LOST) {
            uint64_t n;
            memcpy(&n, rec + 16, 8);
            lost += (long long)n;
            fprintf(out, "{\"lost\": %llu}\n", (unsigned long long)n);
        }
        tail += h.size;
    }
    __atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    const char *ready = NULL, *output = NULL;
    int gap_ms = 0, opt;
    while ((opt = getopt(argc, argv, "g:r:o:")) != -1) {
        if (opt == 'g')
            gap_ms = atoi(optarg);
        else if (opt == 'r')
            ready = optarg;
        else if (opt == 'o')
            output = optarg;
        else
            return 2;
    }
    if (!output || optind >= argc) {
        fprintf(stderr, "usage: ue_collect [-g GAP_MS] [-r READY_FILE] -o OUT NAME...\n");
        return 2;
    }
    out = fopen(output, "we");
    if (!out) {
        fprintf(stderr, "ue_collect: %s: %s\n", output, strerror(errno));
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = optind; i < argc; i++) {
        int id = tracepoint_id(argv[i]);
        if (id < 0) {
            fprintf(stderr, "ue_collect: no tracepoint user_events/%s\n", argv[i]);
            return 1;
        }
        for (int cpu = 0; cpu < ncpu; cpu++)
            if (nrings == MAX_FDS || open_ring(argv[i], id, cpu) != 0)
                return 1;
    }
    if (gap_ms > 0)
        usleep((useconds_t)gap_ms * 1000);
    for (int i = 0; i < nrings; i++)
        ioctl(rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
    if (ready) {
        int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
    struct pollfd pfd[MAX_FDS];
    for (int i = 0; i < nrings; i++)
        pfd[i] = (struct pollfd){.fd = rings[i].fd, .events = POLLIN};
    while (!stop) {
        poll(pfd, (nfds_t)nrings, 50);
        for (int i = 0; i < nrings; i++)
            drain(&rings[i]);
    }
    for (int i = 0; i < nrings; i++) {
        ioctl(rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
        drain(&rings[i]);
    }
    fprintf(stderr, "ue_collect: %lld samples, %lld lost, %lld not decoded\n", samples, lost,
            undecoded);
    return fclose(out) == 0 && lost == 0 && undecoded == 0 ? 0 : 1;
}
