/*
 * event_site_table.c - the flight recorder's call-site ids for compact events
 * (FR_TE_EVENT_RUN, docs/FORMAT.md): a site gets an id when its provider registers it,
 * and the table keeps a copy of the site's static bytes (tracepoint name NUL, 8-byte
 * header, metadata extension: the prefix built by event_provider.c, owned by the
 * runtime and never freed). At flush, the metadata block gets one FR_TE_EVENT_SITE
 * record for every site that fired; a streamed file gets each one before the first
 * block that uses it (lookup_site, for stream_writer.c); a backing file gets each site
 * enabled for the recorder before it is enabled (fr_event_site_to_backing), so that
 * `flightrec recover` finds it after SIGKILL.
 *
 * Why the copy and not the site: a site lives in its module's static storage, and a
 * library dlclose'd before the flush takes it away; its events stay in the buffers and
 * must still decode. Why the metadata block and not the thread's buffer: under the
 * overwrite policy the buffer holding a site's first event may be overwritten while
 * later events of the site survive; the metadata block is written with every file
 * (flush, crash dump, snapshot) and never overwritten.
 *
 * Ids are assigned under the registry lock (registration is never on a hot path); the
 * table is read without a lock by the hot path (the "fired" mark) and by the flush,
 * which may run in a signal handler (crash dump): chunks are published with a release
 * store and never freed or moved, and an id is published only once its slot is complete.
 * Past FR_EVENT_SITE_MAX sites, or without memory for a chunk, a site gets no id and its
 * events are written in full (FR_TE_EVENT), as before compact events; that fallback is
 * said once on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "events/events_internal.h"
#include "core/backing_file.h"
#include "core/log_writer.h"

struct fr_site_slot *fr_site_chunks[FR_SITE_NCHUNKS];
static uint32_t next_id = 1;      /* registry lock */
static uint32_t published = 1;    /* ids below this have complete slots */
static int off_for_test;          /* fr__event_sites_off_for_test */

uint32_t fr_event_site_table_add(const uint8_t *bytes, uint32_t size)
{
    uint32_t id = next_id;
    if (off_for_test)
        return 0;
    if (id > FR_EVENT_SITE_MAX) {
        static int said;
        if (!said++)
            fprintf(stderr, "flightrec: more than %u event call sites: the events of the "
                    "others are recorded in full (larger records)\n", FR_EVENT_SITE_MAX);
        return 0;
    }
    struct fr_site_slot *chunk = fr_site_chunks[id >> FR_SITE_CHUNK_BITS];
    if (!chunk) {
        chunk = calloc(FR_SITE_CHUNK, sizeof *chunk);
        if (!chunk)
            return 0;
        __atomic_store_n(&fr_site_chunks[id >> FR_SITE_CHUNK_BITS], chunk, __ATOMIC_RELEASE);
    }
    struct fr_site_slot *slot = &chunk[id & (FR_SITE_CHUNK - 1)];
    slot->bytes = bytes;
    slot->size = size;
    next_id = id + 1;
    __atomic_store_n(&published, id + 1, __ATOMIC_RELEASE);
    return id;
}

/* Metadata source: FR_TE_EVENT_SITE for each site that fired. Async-signal-safe. */
static void emit_sites(fr_meta_writer *w, void *ctx)
{
    (void)ctx;
    uint32_t n = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
    for (uint32_t id = 1; id < n; id++) {
        struct fr_site_slot *chunk =
            __atomic_load_n(&fr_site_chunks[id >> FR_SITE_CHUNK_BITS], __ATOMIC_ACQUIRE);
        if (!chunk)
            continue;
        struct fr_site_slot *slot = &chunk[id & (FR_SITE_CHUNK - 1)];
        if (!__atomic_load_n(&slot->fired, __ATOMIC_RELAXED))
            continue;
        struct fr_te_event_site fixed = { .site = id };
        struct iovec v[2] = { { &fixed, sizeof fixed }, { (void *)slot->bytes, slot->size } };
        fr_meta_emit_iov(w, FR_TE_EVENT_SITE, v, 2);
    }
}

int fr_event_site_to_backing(uint32_t id)
{
    uint32_t gen = fr_backing_generation();
    if (!gen || !id || id >= published)
        return 0;
    struct fr_site_slot *slot = &fr_site_chunks[id >> FR_SITE_CHUNK_BITS][id & (FR_SITE_CHUNK - 1)];
    if (slot->backing_gen == gen)
        return 0;
    int r = fr_backing_add_site(id, slot->bytes, slot->size);
    if (r == 0)
        slot->backing_gen = gen;
    return r < 0 ? -1 : 0;
}

/* The lookup a streamed file's writer uses (recorder.h, fr_meta_register_sites): a
 * site's bytes if it fired. Async-signal-safe. */
static int lookup_site(uint32_t id, const void **bytes, uint32_t *size)
{
    if (id == 0 || id >= __atomic_load_n(&published, __ATOMIC_ACQUIRE))
        return -1;
    struct fr_site_slot *chunk =
        __atomic_load_n(&fr_site_chunks[id >> FR_SITE_CHUNK_BITS], __ATOMIC_ACQUIRE);
    if (!chunk)
        return 0;
    struct fr_site_slot *slot = &chunk[id & (FR_SITE_CHUNK - 1)];
    if (!__atomic_load_n(&slot->fired, __ATOMIC_RELAXED))
        return 0;
    *bytes = slot->bytes;
    *size = slot->size;
    return 1;
}

__attribute__((constructor)) static void register_site_source(void)
{
    fr_meta_register_source(emit_sites, NULL);
    fr_meta_register_sites(lookup_site);
}

/* Test seam (tests/progs/events_compact.c): sites registered from now on get no id, so
 * their events are written as full FR_TE_EVENT records, the encoding of files written
 * before compact events; the test compares what both decode to. */
FR_HIDDEN void fr__event_sites_off_for_test(void);
void fr__event_sites_off_for_test(void)
{
    off_for_test = 1;
}
