/*
 * events_internal.h - what the structured-event parts of the runtime share: tracepoints,
 * the provider registry, the sinks' entry points. Internal to libflightrec.
 *
 *   event_provider.c         registry: providers, their call sites and tracepoints
 *   event_write.c            hot path: one enabled event to the sinks
 *   event_sink_user_events.c Linux user_events (registration, writev, test seam)
 *   event_sink_recorder.c    the flight recorder (lifecycle hooks, FR_TE_EVENT records)
 *   event_site_table.c       the flight recorder's site ids (compact FR_TE_EVENT_RUN events)
 *   event_enable.c           the `events=` option: which events the recorder takes
 *   event_span.c             activity ids and the thread's current span
 *   span_unwind.c            spans left by an exception or a longjmp; FR_SPAN_SCOPE
 *   provider_guid.c, sha1.c  ETW-style provider ids
 */
#ifndef FLIGHTREC_EVENTS_INTERNAL_H
#define FLIGHTREC_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "flightrec/events.h"
#include "core/recorder.h"

/* One tracepoint: a provider's (level, keyword) pair, shared by its call sites. */
struct fr_tracepoint {
    struct fr_tracepoint *next;       /* in the provider's list */
    uint64_t keyword;
    uint8_t  level;
    uint32_t write_index;             /* user_events: from the kernel's registration */
    size_t   name_len;
    char     name[FR_EH_NAME_MAX];    /* "Provider_L5K0[Ggroup]" */
};

/* ------------------------------------------------------------------ registry */
/* Calls fn for every registered call site, under the registry lock. */
FR_HIDDEN void fr_events_for_each_site(void (*fn)(fr_event_site *site, void *ctx), void *ctx);

/* ------------------------------------------------------------------ flight recorder sink */
FR_HIDDEN bool fr_events_recorder_wants(const fr_event_site *site);   /* by `events=` */
/* Registry lock held: gives the site its recorder bit if `events=` wants it, after its
 * bytes went into the backing file if there is one (compact events, see
 * event_sink_recorder.c). */
FR_HIDDEN void fr_events_recorder_enable(fr_event_site *site);
/* Hot path: iov spells the whole payload (tracepoint name NUL-terminated, event bytes). */
FR_HIDDEN void fr_events_recorder_write(const struct iovec *iov, int iovcnt);
/* Whether this session writes compact events (all but a backing file's session whose
 * sites region filled up: event_sink_recorder.c). Read on the hot path. */
extern FR_HIDDEN int fr_events_compact;
/* Hot path, a site with an id: one compact event (site id, activity extension `ext` of
 * ext_len bytes or none, the field values). */
FR_HIDDEN void fr_events_recorder_write_compact(uint32_t site_id, const void *ext,
                                                size_t ext_len, const struct iovec *values,
                                                int nvalues);

/* ------------------------------------------------------------------ site ids */
/* Each site registered for the flight recorder gets an id (1..FR_EVENT_SITE_MAX) and a
 * slot holding its static bytes (runtime-owned, never freed: they outlive a dlclose'd
 * library) and whether it fired (FR_TE_EVENT_SITE at flush). Chunks of slots, published
 * once, never freed. */
struct fr_site_slot {
    const uint8_t *bytes;   /* tracepoint name NUL, header, metadata extension */
    uint32_t size;
    uint32_t fired;
    uint32_t backing_gen;   /* fr_backing_generation() of the backing file holding it */
};
#define FR_SITE_CHUNK_BITS 10
#define FR_SITE_CHUNK      (1u << FR_SITE_CHUNK_BITS)
#define FR_SITE_NCHUNKS    ((FR_EVENT_SITE_MAX >> FR_SITE_CHUNK_BITS) + 1)
extern FR_HIDDEN struct fr_site_slot *fr_site_chunks[FR_SITE_NCHUNKS];
/* Under the registry lock: an id for a site whose static bytes are `bytes` (kept), or 0
 * when the table is full (the site's events are then written in full). */
FR_HIDDEN uint32_t fr_event_site_table_add(const uint8_t *bytes, uint32_t size);
/* Registry lock held, before the site is enabled for the recorder: puts the site into the
 * backing file if there is one and it is not there yet. 0, or -1 when the file has no
 * room left for it. */
FR_HIDDEN int fr_event_site_to_backing(uint32_t id);
/* Hot path: marks the site as fired (its FR_TE_EVENT_SITE goes into the file). */
static inline void fr_event_site_fired(uint32_t id)
{
    struct fr_site_slot *slot =
        &__atomic_load_n(&fr_site_chunks[id >> FR_SITE_CHUNK_BITS], __ATOMIC_RELAXED)
             [id & (FR_SITE_CHUNK - 1)];
    if (!__atomic_load_n(&slot->fired, __ATOMIC_RELAXED))
        __atomic_store_n(&slot->fired, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ `events=` option */
typedef struct fr_event_filter fr_event_filter;
/* Parses SPEC[;SPEC...] (see events.h). NULL spec: everything. Returns NULL and reports
 * on stderr if the text is malformed. */
FR_HIDDEN fr_event_filter *fr_event_filter_parse(const char *spec);
FR_HIDDEN void fr_event_filter_free(fr_event_filter *f);
FR_HIDDEN bool fr_event_filter_match(const fr_event_filter *f, const char *provider,
                                     uint8_t level, uint64_t keyword);

/* ------------------------------------------------------------------ user_events sink */
/* The kernel interface (linux/user_events.h, Linux 6.4+), spelled out because build
 * machines may have older headers. */
struct fr_user_reg {
    uint32_t size;
    uint8_t  enable_bit;
    uint8_t  enable_size;
    uint16_t flags;
    uint64_t enable_addr;
    uint64_t name_args;
    uint32_t write_index;
} __attribute__((packed));
struct fr_user_unreg {
    uint32_t size;
    uint8_t  disable_bit;
    uint8_t  reserved;
    uint16_t reserved2;
    uint64_t disable_addr;
} __attribute__((packed));

/* Where the sink's system calls go: the kernel, or a test's capture (the seam). */
typedef struct fr_ue_backend {
    int     (*open_data)(void *ctx);                 /* fd, or -1 with errno */
    int     (*reg)(void *ctx, int fd, struct fr_user_reg *reg);
    int     (*unreg)(void *ctx, int fd, struct fr_user_unreg *unreg);
    ssize_t (*writev)(void *ctx, int fd, const struct iovec *iov, int iovcnt);
    void    *ctx;
} fr_ue_backend;
/* Test seam: routes the sink to `b` (NULL: back to the kernel) and forgets whether
 * user_events was found, so the next registration probes again. */
FR_HIDDEN void fr_ue_set_backend(const fr_ue_backend *b);

/* Registers one call site's enable word with the kernel for tracepoint tp (nothing if it
 * is registered already). Returns 0, or -1 if user_events is unavailable (reported once
 * per process on stderr). */
FR_HIDDEN int  fr_ue_register_site(fr_event_site *site, struct fr_tracepoint *tp);
FR_HIDDEN void fr_ue_unregister_site(fr_event_site *site);
/* Hot path: iov[0] is filled with the write index. */
FR_HIDDEN void fr_ue_write(struct fr_tracepoint *tp, struct iovec *iov, int iovcnt);
/* In a forked child: the registrations were inherited; drop them and the descriptor. */
FR_HIDDEN void fr_ue_forget_after_fork(void);

/* ------------------------------------------------------------------ spans */
/* The thread's current activity (innermost span), read inline by the writer. */
struct fr_current_activity {
    uint8_t id[16];
    bool    set;
};
extern FR_HIDDEN __thread struct fr_current_activity fr_current_activity
    __attribute__((tls_model("initial-exec")));
FR_HIDDEN void fr_activity_after_fork_child(void);

/* ------------------------------------------------------------------ ids */
FR_HIDDEN void fr_sha1(const void *data, size_t size, uint8_t digest[20]);
typedef struct fr_sha1_ctx {
    uint32_t h[5];
    uint64_t total;
    uint8_t  block[64];
    size_t   used;
} fr_sha1_ctx;
FR_HIDDEN void fr_sha1_init(fr_sha1_ctx *c);
FR_HIDDEN void fr_sha1_update(fr_sha1_ctx *c, const void *data, size_t size);
FR_HIDDEN void fr_sha1_final(fr_sha1_ctx *c, uint8_t digest[20]);

#endif
