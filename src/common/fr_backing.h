/*
 * fr_backing.h - the layout of a backing file (option backing=PATH, docs/BACKING.md): the
 * recorder's pool, its descriptors and the metadata a trace needs, in a file that a
 * separate process (`flightrec recover`) turns into a trace after the recorded process
 * died without writing one (SIGKILL, the OOM killer, _exit).
 *
 * The runtime maps the file MAP_SHARED and records into it exactly as into its private
 * pool; this header is the one description of the bytes, shared by the runtime
 * (src/runtime/core/backing_meta.c, whose structs are checked against these offsets)
 * and the recovering side (src/reader/backing_recover.c), which treats every field as
 * hostile input. All integers are little-endian (x86-64 native).
 *
 *   [0, 4096)                         struct fr_backing_header
 *   [sites_off, sites_off + sites_len) structured events' call sites: FR_TE_EVENT_SITE
 *                                     records, appended while recording (version 2)
 *   [FR_BACKING_POOL_OFFSET, +pool)   buffers, then buffer descriptors, then thread
 *                                     descriptors (offsets in the header)
 *   [meta_off, meta_off + meta_len)   the metadata block's fixed records (CLOCK,
 *                                     PROCESS, OBJECT, FUNCTION...), written at init
 */
#ifndef FLIGHTREC_FR_BACKING_H
#define FLIGHTREC_FR_BACKING_H

#include <stddef.h>
#include <stdint.h>
#include "fr_format.h"

#define FR_BACKING_MAGIC        "FRBACKv1"   /* 8 bytes, no NUL (every version) */
/* 2: the event sites region (sites_off, sites_cap, sites_len). 3: small buffers
 * (small_per_buffer, small_size: descriptors after the buffers' own, bytes inside the
 * buffer lent to them; a lent buffer's state is FR_BACKING_BUF_PACK), up to 32768 thread
 * slots and 4194304 buffers. 4: fork_entries. A reader takes versions 1 to 3 too: their
 * headers are version 4's up to `exe` (FR_BACKING_HEADER_V1_SIZE bytes, no sites), up to
 * `small_per_buffer` (FR_BACKING_HEADER_V2_SIZE, no small buffers) or up to
 * `fork_entries` (FR_BACKING_HEADER_V3_SIZE, none). */
#define FR_BACKING_VERSION      4
#define FR_BACKING_HEADER_V1_SIZE 1168u
#define FR_BACKING_HEADER_V2_SIZE 1192u
#define FR_BACKING_HEADER_V3_SIZE 1200u
#define FR_BACKING_MAX_BUFFERS  (1u << 22)
#define FR_BACKING_MAX_THREADS  32768u
#define FR_BACKING_HEADER_SIZE  4096u
/* The pool starts 2 MiB into the file, so that it can sit on 2 MiB pages (file offset
 * and address both aligned); the bytes between the header and the pool hold the event
 * sites (sites_off, sites_cap). */
#define FR_BACKING_POOL_OFFSET  (2u << 20)
#define FR_BACKING_META_MAX     (64u << 20)  /* what a reader accepts as metadata */

/* header.state */
enum {
    FR_BACKING_RECORDING = 1, /* the process was recording (or died doing so) */
    FR_BACKING_STOPPED   = 2, /* recording was finalized; no trace written (yet) */
    FR_BACKING_WRITTEN   = 3, /* the process wrote its trace (the file is normally removed) */
};

struct fr_backing_header {
    char     magic[8];          /* FR_BACKING_MAGIC */
    uint32_t version;           /* FR_BACKING_VERSION */
    uint32_t header_size;       /* sizeof(struct fr_backing_header) */
    uint64_t map_size;          /* bytes the process mapped: FR_BACKING_POOL_OFFSET + pool */
    uint64_t data_off;          /* buffers: `buffers` x `buffer_size` bytes */
    uint64_t bufs_off;          /* struct fr_backing_buffer_desc[buffers] */
    uint64_t threads_off;       /* struct fr_backing_thread_desc[max_threads] */
    uint64_t meta_off;          /* the metadata records (after the mapped part) */
    uint64_t meta_len;          /* their bytes; 0 until written (stored last) */
    uint64_t buffer_size;
    uint32_t buffers;
    uint32_t max_threads;
    uint32_t buffer_desc_size;  /* sizeof(struct fr_backing_buffer_desc) */
    uint32_t thread_desc_size;  /* sizeof(struct fr_backing_thread_desc) */
    uint32_t policy;            /* FR_POLICY_* (fr_format.h) */
    uint32_t state;             /* FR_BACKING_* */
    uint32_t pid;
    uint32_t ppid;
    uint32_t clock_flags;       /* the trace file header's flags */
    uint32_t session;
    uint64_t ticks_per_second;  /* the trace file header's cycle frequency */
    uint64_t threshold_ticks;   /* threshold_us in ticks (0: none) */
    int64_t  realtime_ns;       /* CLOCK_REALTIME at tick 0 */
    uint16_t exe_len;
    char     exe[1024];         /* /proc/self/exe at init (exe_len bytes, no NUL) */
    /* Version 2. The call sites of structured events whose events this session writes
     * compact (FR_TE_EVENT_RUN entries name a site by id): FR_TE_EVENT_SITE records as
     * in a trace's metadata block (an XRay custom event with our envelope), each appended
     * before the site's first event can be written; sites_len is stored (release) after
     * the record's bytes, so [sites_off, sites_off + sites_len) is whole records. */
    uint64_t sites_off;         /* in the mapped part, between the header and the pool */
    uint64_t sites_cap;         /* bytes there for them */
    uint64_t sites_len;         /* bytes of whole records */
    /* Version 3. Small buffers: descriptor buffers + b * small_per_buffer + k describes
     * the bytes [k * small_size, +small_size) of buffer b (0: none). */
    uint32_t small_per_buffer;
    uint32_t small_size;
    /* Version 4. A fork child's records made at its start: the entries of the calls open
     * at the fork (docs/FUNCTRACE.md), so that `flightrec record` keeps no image of a
     * child that exec'd having recorded nothing else. 0 in a process that is no such
     * child. */
    uint32_t fork_entries;
    uint32_t reserved;
};   /* natural alignment, no padding before `exe` (the offsets are asserted) */
_Static_assert(sizeof(struct fr_backing_header) <= FR_BACKING_HEADER_SIZE, "backing header");
_Static_assert(offsetof(struct fr_backing_header, map_size) == 16, "backing map_size");
_Static_assert(offsetof(struct fr_backing_header, meta_len) == 56, "backing meta_len");
_Static_assert(offsetof(struct fr_backing_header, buffers) == 72, "backing buffers");
_Static_assert(offsetof(struct fr_backing_header, state) == 92, "backing state");
_Static_assert(offsetof(struct fr_backing_header, ticks_per_second) == 112, "backing tps");
_Static_assert(offsetof(struct fr_backing_header, exe) == 138, "backing exe");
_Static_assert(offsetof(struct fr_backing_header, sites_off) == FR_BACKING_HEADER_V1_SIZE,
               "backing sites_off: version 1's header is a prefix of version 2's");
_Static_assert(offsetof(struct fr_backing_header, sites_len) == 1184, "backing sites_len");
_Static_assert(offsetof(struct fr_backing_header, small_per_buffer) == FR_BACKING_HEADER_V2_SIZE,
               "backing small_per_buffer: version 2's header is a prefix of version 3's");
_Static_assert(offsetof(struct fr_backing_header, fork_entries) == FR_BACKING_HEADER_V3_SIZE,
               "backing fork_entries: version 3's header is a prefix of version 4's");
_Static_assert(sizeof(struct fr_backing_header) == 1208, "backing header v4");

/* A buffer's descriptor (the runtime's struct fr_buffer_desc, docs/BUFFERS.md). `used`
 * and `records` are exact for FULL and RETIRED buffers; a CURRENT buffer's length lives
 * in its thread's registers and TLS, so a reader finds its end by parsing (the runtime
 * zeroes a buffer before it reuses it, docs/BACKING.md). */
struct fr_backing_buffer_desc {
    uint64_t own;       /* state (8 bits) | owner slot (24 bits) << 8 | generation << 32 */
    uint64_t seq;       /* hand-out order */
    uint64_t used;
    uint64_t records;
};
_Static_assert(sizeof(struct fr_backing_buffer_desc) == 32, "backing buffer desc");
#define FR_BACKING_OWN_STATE(w) ((uint32_t)((w) & 0xff))
#define FR_BACKING_OWN_SLOT(w)  ((uint32_t)(((w) >> 8) & 0xffffff))
enum { FR_BACKING_BUF_FREE = 0, FR_BACKING_BUF_CURRENT = 1, FR_BACKING_BUF_FULL = 2,
       FR_BACKING_BUF_RETIRED = 3, FR_BACKING_BUF_WRITING = 4 /* stream=1: complete, being
                                                                 appended to the output */,
       FR_BACKING_BUF_PACK = 5 /* lent to small buffers: no records of its own */ };

/* A thread slot (the runtime's struct fr_thread_desc). A live thread publishes its
 * counters and name here each time it changes buffers (with backing= only), an exited
 * one at its exit. */
struct fr_backing_thread_desc {
    uint32_t state;             /* 0 unused, 1 live, 2 exited */
    int32_t  tid;
    uint32_t refs;
    uint32_t readers;
    uint64_t live;              /* a pointer in the recorded process: meaningless here */
    uint64_t pthread;
    uint64_t dropped[FR_DROP_NCAUSES]; /* enum fr_drop_cause (thread_desc_size changes
                                          with their number: a reader checks it) */
    uint64_t bytes_dropped;
    uint64_t calls_below_threshold;
    uint64_t taken_records;     /* its records in buffers other threads took */
    uint64_t taken_bytes;
    uint64_t streamed;          /* stream=1: its records already in the output file */
    uint64_t reserved;          /* 0 (was overwritten_own, which no version counted) */
    char     name[16];
};
_Static_assert(sizeof(struct fr_backing_thread_desc) == 96 + 8 * FR_DROP_NCAUSES, "backing thread desc");

#endif
