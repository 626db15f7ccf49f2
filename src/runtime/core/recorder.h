/*
 * recorder.h - what the front ends (sled trampolines, -finstrument-functions hooks,
 * structured-event sinks) call to put records into the flight recorder. Internal to
 * libflightrec. Implemented by the core (thread_writer.c & co).
 */
#ifndef FLIGHTREC_RECORDER_H
#define FLIGHTREC_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "flightrec.h"
#include "fr_format.h"

#include "core/visibility.h"

/* Hot path. No lock, no system call, no allocation; a thread-local recursion guard makes
 * them safe from signal handlers (a nested call while a record is being written is
 * dropped and counted). `kind` is enum fr_xray_function_kind. */
FR_HIDDEN void fr_record_function(uint32_t function_id, unsigned kind);
FR_HIDDEN void fr_record_function_arg(uint32_t function_id, uint64_t arg);
FR_HIDDEN void fr_record_custom(const void *data, size_t size);
FR_HIDDEN void fr_record_typed(uint16_t type, const void *data, size_t size);
/* Gather form for payloads built in pieces (EventHeader events): no copy to a temporary. */
FR_HIDDEN void fr_record_typed_iov(uint16_t type, const struct iovec *iov, int iovcnt);
/* One of our records (FR_TE_* type, e.g. FR_TE_EVENT) in the thread's history: written
 * as a custom event with the envelope of fr_format.h, never as a typed event. */
FR_HIDDEN void fr_record_ours_iov(uint16_t type, const struct iovec *iov, int iovcnt);
/* One compact structured event (an entry of FR_TE_EVENT_RUN, fr_format.h): site id, the
 * activity extension (ext, ext_len bytes; none if 0) and the values. Appended to the
 * thread's last record when that is a run on the same CPU, else a new run begins. */
FR_HIDDEN void fr_record_event_entry(uint32_t site_id, const void *ext, size_t ext_len,
                                     const struct iovec *values, int nvalues);

/* Nonzero while the recorder is INITIALIZED: front ends may test it to skip work. */
extern FR_HIDDEN volatile int fr_recording;

/* fr_flush into an open file, for XRay compatibility (compiler-rt's log file created at
 * flush, and in-memory iteration of the buffers). Returns FR_OK, or FR_ERR_STATE when the
 * recorder is not FINALIZED, FR_ERR_IO (lifecycle.c). */
FR_HIDDEN fr_status fr_flush_fd(int fd);

/* Metadata sources. At flush the writer emits the metadata block (see fr_format.h);
 * parts of the runtime that know something for it (the sled runtime's object and
 * function tables, the gcc hooks' id table) register a callback that calls
 * fr_meta_emit once per record (an FR_TE_* type and its payload, laid out as
 * fr_format.h's struct for the type). Callbacks run at flush time, never on a hot path,
 * and must be async-signal-safe if crash_dump is on (no malloc, no stdio). */
typedef struct fr_meta_writer fr_meta_writer;
typedef void (*fr_meta_source_fn)(fr_meta_writer *w, void *ctx);
FR_HIDDEN int  fr_meta_register_source(fr_meta_source_fn fn, void *ctx);
FR_HIDDEN void fr_meta_emit(fr_meta_writer *w, uint16_t type, const void *payload, size_t size);
/* The same, the payload gathered from pieces. */
FR_HIDDEN void fr_meta_emit_iov(fr_meta_writer *w, uint16_t type, const struct iovec *iov,
                                int iovcnt);
/* A payload made of a fixed part (the type's struct in fr_format.h) and one str16 (`str`,
 * at most `max` bytes of it; NULL is empty). */
FR_HIDDEN void fr_meta_emit_str16(fr_meta_writer *w, uint16_t type, const void *fixed,
                                  size_t fixed_size, const char *str, size_t max);

/* Structured events' call sites (FR_TE_EVENT_SITE), for a file written in pieces
 * (stream=1, stream_writer.c), which must hold a site before the first block that uses
 * it: the site table (event_site_table.c) registers a lookup by id (1, 2, ...) that
 * returns 1 and the record's payload after the site id (`bytes`, `size`) if the site
 * fired, 0 if not, -1 past the last id. fr_meta_site calls it (-1 if none registered).
 * Lock-free and async-signal-safe: a crash dump's end of a streamed file calls it. */
typedef int (*fr_meta_site_fn)(uint32_t id, const void **bytes, uint32_t *size);
FR_HIDDEN void fr_meta_register_sites(fr_meta_site_fn fn);
FR_HIDDEN int  fr_meta_site(uint32_t id, const void **bytes, uint32_t *size);

/* Parsed options, read by front ends (e.g. patch=, threshold_us=). Valid after init. */
struct fr_options;
FR_HIDDEN const struct fr_options *fr_current_options(void);

/* Hooks the lifecycle calls so front ends act at the right moment (e.g. patch sleds
 * after init when start=1/patch=..., unpatch at finalize). Registered once, at load. */
typedef struct fr_lifecycle_hooks {
    void (*after_init)(const struct fr_options *opts);
    void (*before_finalize)(void);
} fr_lifecycle_hooks;
FR_HIDDEN void fr_lifecycle_register_hooks(const fr_lifecycle_hooks *hooks);

#endif
