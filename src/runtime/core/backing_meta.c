/*
 * backing_meta.c - what a backing file holds besides the pool (backing_file.h): the header
 * that describes the pool's layout, the metadata block's fixed records, the structured
 * events' call sites. The mapping itself: backing_map.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "core/backing_file.h"
#include "core/buffer_pool.h"
#include "core/clock.h"
#include "core/metadata.h"
#include "core/session.h"
#include "core/trace_out.h"
#include "fr_backing.h"
#include "fr_format.h"

/* The runtime's descriptors are the file's (fr_backing.h): same sizes, same offsets. */
_Static_assert(sizeof(struct fr_buffer_desc) == sizeof(struct fr_backing_buffer_desc), "buffer desc");
_Static_assert(offsetof(struct fr_buffer_desc, used) == offsetof(struct fr_backing_buffer_desc, used), "used");
_Static_assert(sizeof(struct fr_thread_desc) == sizeof(struct fr_backing_thread_desc), "thread desc");
_Static_assert(offsetof(struct fr_thread_desc, dropped) == offsetof(struct fr_backing_thread_desc, dropped), "dropped");
_Static_assert(offsetof(struct fr_thread_desc, taken_records) == offsetof(struct fr_backing_thread_desc, taken_records), "taken");
_Static_assert(offsetof(struct fr_thread_desc, name) == offsetof(struct fr_backing_thread_desc, name), "name");

void fr_backing_set_fork_entries(uint32_t n)
{
    struct fr_backing_map m = fr_backing_map();
    if (m.base)
        ((struct fr_backing_header *)m.base)->fork_entries = n;
}

void fr_backing_fill_header(uint32_t session)
{
    struct fr_backing_map m = fr_backing_map();
    if (!m.base)
        return;
    struct fr_backing_header *h = (struct fr_backing_header *)m.base;
    memset(h, 0, sizeof *h);
    h->version = FR_BACKING_VERSION;
    h->header_size = sizeof *h;
    h->map_size = m.size;
    h->data_off = (uint64_t)((uint8_t *)fr_pool.data - m.base);
    h->bufs_off = (uint64_t)((uint8_t *)fr_pool.bufs - m.base);
    h->threads_off = (uint64_t)((uint8_t *)fr_pool.threads - m.base);
    h->meta_off = m.size;
    h->buffer_size = fr_pool.buffer_size;
    h->buffers = fr_pool.nbuf;
    h->max_threads = FR_MAX_THREADS;
    h->buffer_desc_size = sizeof(struct fr_buffer_desc);
    h->thread_desc_size = sizeof(struct fr_thread_desc);
    h->policy = (uint32_t)fr_pool.policy;
    h->state = FR_BACKING_RECORDING;
    h->pid = fr_session.process.pid;
    h->ppid = fr_session.process.ppid;
    h->clock_flags = fr_clock.flags;
    h->session = session;
    h->ticks_per_second = fr_clock.ticks_per_second;
    h->threshold_ticks = fr_session.opts.threshold_us ? fr_clock_us_to_ticks(fr_session.opts.threshold_us) : 0;
    h->realtime_ns = fr_clock.realtime_ns;
    h->exe_len = fr_session.process.exe_len <= sizeof h->exe ? fr_session.process.exe_len : sizeof h->exe;
    memcpy(h->exe, fr_session.process.exe, h->exe_len);
    h->sites_off = FR_BACKING_SITES_OFF;
    h->sites_cap = FR_BACKING_SITES_CAP;
    h->small_per_buffer = fr_pool.small_per;
    h->small_size = (uint32_t)fr_pool.small_size;
    h->sites_len = m.carried;
    /* the magic last: a reader that sees it sees a whole header */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(h->magic, FR_BACKING_MAGIC, 8);
}

static uint64_t sites_cap_for_test;   /* fr__backing_sites_cap_for_test */

int fr_backing_add_site(uint32_t id, const void *bytes, uint32_t size)
{
    struct fr_backing_map m = fr_backing_map();
    if (!m.ours)
        return 1;
    struct fr_backing_header *h = (struct fr_backing_header *)m.base;
    uint64_t len = h->sites_len;   /* only we (under the caller's lock) change it */
    struct fr_te_event_site fixed = { .site = id };
    uint64_t record = FR_ENVELOPED_SIZE(sizeof fixed + size);
    uint64_t cap = sites_cap_for_test ? sites_cap_for_test : FR_BACKING_SITES_CAP;
    if (len > cap || record > cap - len)
        return -1;
    uint8_t *p = m.base + FR_BACKING_SITES_OFF + len;
    fr_te_header_put(p, FR_TE_EVENT_SITE, sizeof fixed + size, 0);
    memcpy(p + FR_ENVELOPED_HEADER_SIZE, &fixed, sizeof fixed);
    memcpy(p + FR_ENVELOPED_HEADER_SIZE + sizeof fixed, bytes, size);
    /* the length after the bytes: a recovery never reads a record half written */
    __atomic_store_n(&h->sites_len, len + record, __ATOMIC_RELEASE);
    return 0;
}

/* Test seam (tests/progs/events_compact.c): the sites region holds only `cap` bytes from
 * now on, so that a test fills it with a few sites. */
FR_HIDDEN void fr__backing_sites_cap_for_test(uint64_t cap);
void fr__backing_sites_cap_for_test(uint64_t cap)
{
    sites_cap_for_test = cap < FR_BACKING_SITES_CAP ? cap : FR_BACKING_SITES_CAP;
}

void fr_backing_write_meta(void)
{
    static int busy;   /* one writer at a time (init, a late hook, a dlopen) */
    struct fr_backing_map m = fr_backing_map();
    if (!m.ours || !fr_backing_path[0] || __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
        return;
    struct fr_backing_header *h = (struct fr_backing_header *)m.base;
    static uint8_t buf[16 * 1024];
    /* the metadata sources keep scratch state that a flush uses too (functrace) */
    pthread_mutex_lock(&fr_session.registry_lock);
    int fd = fr_backing_reopen();
    /* meta_len 0 while the bytes change: a reader never takes half old, half new */
    __atomic_store_n(&h->meta_len, 0, __ATOMIC_RELEASE);
    if (fd >= 0 && lseek(fd, (off_t)h->meta_off, SEEK_SET) == (off_t)h->meta_off) {
        struct fr_out o = { .fd = fd, .buf = buf, .cap = sizeof buf };
        struct fr_meta_writer w = { .out = &o };
        fr_meta_emit_start(&w);
        fr_out_flush(&o);
        if (!o.error && o.offset <= FR_BACKING_META_MAX)
            __atomic_store_n(&h->meta_len, o.offset, __ATOMIC_RELEASE);
        else
            fr_backing_say("cannot write the metadata (a recovered trace will lack names)", fr_backing_path,
                o.error);
    } else {
        fr_backing_say("cannot reopen it for the metadata (a recovered trace will lack names)",
            fr_backing_path, fd < 0 ? errno : 0);
    }
    if (fd >= 0)
        close(fd);
    pthread_mutex_unlock(&fr_session.registry_lock);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}
