/*
 * flightrec/events.h - structured events and spans (in the manner of TraceLogging, Linux
 * user_events with EventHeader, Rust's tracing).
 *
 *   #include <flightrec/events.h>
 *
 *   FR_PROVIDER_DEFINE(my_provider, "MyProvider");          // once, at file scope
 *   FR_PROVIDER_DEFINE_GROUP(other, "Other", "mygroup");    // with a provider group
 *
 *   int main(void) {
 *       FR_PROVIDER_REGISTER(my_provider);                  // all its events at once
 *       FR_EVENT(my_provider, "Hello", FR_LEVEL(4), FR_KEYWORD(0x1),
 *                FR_U32("count", n), FR_STR("msg", text));
 *       fr_span s;
 *       FR_SPAN_START(my_provider, &s, "Work", FR_LEVEL(4), FR_U64("job", job));
 *       ...                                  // events here carry the span's activity id
 *       FR_SPAN_STOP(my_provider, &s, "Work", FR_LEVEL(4));
 *       {
 *           FR_SPAN_SCOPE(my_provider, "Step", FR_LEVEL(4));   // stops at the '}', or
 *           ...                                // at a return, break, exception, longjmp
 *       }
 *       fr_provider_unregister(&my_provider);               // optional: also at exit
 *   }
 *
 * Each call site's metadata (event name, field names, encodings) is a static constant
 * built at compile time; a pointer to the call site's descriptor goes into the linker
 * section "fr_events", so FR_PROVIDER_REGISTER finds every event of the provider in the
 * calling module (executable or shared object) at once. A call site tests one word:
 * while the event is disabled it costs one load and one branch and evaluates none of
 * its arguments. An enabled event builds an iovec array on the stack (no allocation, no
 * copy of the values) and hands it to the enabled sinks.
 *
 * Encoding: EventHeader (see flightrec/eventheader.h), the same bytes for both sinks.
 * Tracepoint names: "Provider_L{level}K{keyword}[G{group}]" (level, keyword in hex).
 *
 * Sinks and enablement, decided per event (per provider, level and keyword):
 *   - Linux user_events (Linux 6.4+): every tracepoint is registered with the kernel
 *     through /sys/kernel/tracing/user_events_data (or /sys/kernel/debug/tracing/...);
 *     the kernel sets the event's enable bit while a tracer (perf, ftrace) listens, and
 *     events are written with writev. Where user_events is missing or not writable, the
 *     sink costs nothing and, by default, says nothing. FLIGHTREC_OPTIONS
 *     "user_events=on" makes it say so once per process on stderr (at the first
 *     registration); "user_events=off" keeps it away from the kernel altogether.
 *   - The flight recorder: while the recorder is initialized, events selected by the
 *     `events` option go into the trace file: each call site's static bytes (tracepoint
 *     name, EventHeader header, metadata) once, in the file's metadata block, and per
 *     event only the site's id, a time delta and the field values (docs/FORMAT.md,
 *     FR_TE_EVENT_RUN); `flightrec dump` and `flightrec convert` decode them.
 *
 * The `events` option (FLIGHTREC_OPTIONS or fr_init's string):
 *   events=SPEC[;SPEC...]     SPEC = PROVIDER[:LEVEL[:KEYWORDS]] (',' separates SPECs too)
 *     PROVIDER   a provider name, or * for every provider
 *     LEVEL      highest level recorded, 1 (critical) .. 5 (verbose, the default), or *
 *                for every level (events of levels above 5 too)
 *     KEYWORDS   keyword mask (decimal or 0x hex), or *; default * (all). An event is
 *                selected if it has no keyword (0) or shares a bit with the mask.
 *   e.g. events=MyProvider:4:0x3;Other:*   The first SPEC naming a provider wins over *.
 *   events=none records no events. Without the option: every provider, levels 1..5.
 *   A malformed value is a bad option value (fr_init: FR_ERR_OPTIONS; `flightrec
 *   record` refuses it before the program runs).
 *
 * Fields (name is a string literal; value expressions are evaluated only if enabled):
 *   FR_I8..FR_I64(name, v), FR_U8..FR_U64(name, v)    signed/unsigned integers
 *   FR_HEX8..FR_HEX64(name, v)                         unsigned, shown in hex
 *   FR_BOOL(name, v)  FR_FLOAT(name, v)  FR_DOUBLE(name, v)  FR_CHAR(name, c)
 *   FR_PTR(name, p)  FR_PID(name, pid)  FR_ERRNO(name, e)  FR_TIME(name, time_t)
 *   FR_UUID(name, const uint8_t[16])  FR_IPV4(name, uint32 network order)
 *   FR_IPV6(name, const uint8_t[16])  FR_PORT(name, uint16 network order)
 *   FR_STR(name, const char *)           NUL-terminated (NULL is written as "")
 *   FR_CSTR(name, const char *, len)     counted string (up to 65535 bytes)
 *   FR_BINARY(name, const void *, len)   bytes (up to 65535)
 *   FR_<T>_ARRAY(name, const T *, count) variable-length array, T one of I8..U64, HEX8..
 *                                        HEX64, FLOAT, DOUBLE (count up to 65535)
 *   FR_<T>_FIXED(name, const T *, N)     fixed-length array, N a constant (1..65535)
 *   FR_STRUCT(name, n)                   the next n fields form a struct (nests freely)
 *   FR_TAGGED(tag, field)                a field with a 16-bit field tag
 * Options (anywhere among the fields; constants except the activity ids):
 *   FR_LEVEL(n)       1 critical, 2 error, 3 warning, 4 information, 5 verbose (default)
 *   FR_KEYWORD(mask)  64-bit category mask (default 0)
 *   FR_OPCODE(op)     FR_EH_OPCODE_* (default 0, info)
 *   FR_ID(id, version)  stable event id and version (default 0, 0)
 *   FR_TAG(tag)       16-bit event tag
 *   FR_ACTIVITY(id)   explicit 16-byte activity id (default: the thread's current span)
 *   FR_RELATED_ACTIVITY(id)  explicit related (parent) activity id
 * At most 64 fields and options per event; a struct holds up to 127 fields.
 * Needs C99 or later, or C++11 or later, with gcc or clang (GNU attributes and builtins);
 * clean under -Wall -Wextra -Wpedantic in every one of those standards.
 *
 * Spans (activities): FR_SPAN_START writes an activity-start event (opcode 1) with a new
 * 16-byte activity id and, as related id, the id of the thread's current span; the span
 * becomes the thread's current span until FR_SPAN_STOP (opcode 2). Events written
 * meanwhile on the thread carry its id. For work that crosses threads:
 * FR_SPAN_START_CHILD names the parent explicitly (and leaves the thread's current span
 * alone), fr_span_id() gives a span's id to hand to another thread, and
 * fr_activity_enter()/fr_activity_leave() make an id current on a thread for a while.
 * A disabled FR_SPAN_START costs one load, one branch and one store (the span is marked
 * not started); a disabled FR_SPAN_STOP also tests whether its span was started.
 */
#ifndef FLIGHTREC_EVENTS_H
#define FLIGHTREC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "flightrec/eventheader.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FR_API
#define FR_API __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------ providers */

struct fr_provider_state;
typedef struct fr_provider {
    const char *name;     /* no ' ' or ':'; best [A-Za-z0-9_] */
    const char *group;    /* NULL or lowercase letters and digits */
    struct fr_provider_state *state;   /* owned by the runtime */
} fr_provider;

#define FR_PROVIDER_DEFINE(var, name)              fr_provider var = {name, NULL, NULL}
#define FR_PROVIDER_DEFINE_GROUP(var, name, group) fr_provider var = {name, group, NULL}
#define FR_PROVIDER_DECLARE(var)                   extern fr_provider var

/* One call site. Written by the macros (static storage), completed at registration.
 * `enabled` is the only word a call site reads: bit FR_SITE_USER_EVENTS is the kernel's
 * enable bit (the kernel writes it), FR_SITE_RECORDER says the flight recorder wants it. */
#define FR_SITE_USER_EVENTS 0x1u
#define FR_SITE_RECORDER    0x2u
struct fr_tracepoint;
typedef struct fr_event_site {
    uint32_t      enabled;
    uint8_t       level, opcode, version;
    uint8_t       registered;      /* runtime: registered with user_events */
    uint16_t      id, tag;
    uint32_t      metadata_size;   /* the metadata extension, its 4-byte header included */
    uint64_t      keyword;
    fr_provider  *provider;
    const void   *metadata;
    struct fr_tracepoint *tracepoint;  /* set at registration */
    const uint8_t *recorder_prefix;    /* name NUL, header, metadata: built at registration */
    uint32_t      recorder_prefix_size;
    uint8_t       header[8];           /* the EventHeader, built at registration */
    uint32_t      recorder_site_id;    /* the flight recorder's id for compact events (0:
                                          none); in what was tail padding, so the size
                                          and layout of the struct are unchanged */
} fr_event_site;

/* Registers (with every sink) the events of `p` whose call sites lie in [first, last):
 * FR_PROVIDER_REGISTER passes the calling module's "fr_events" section. May be called
 * again for other modules' sections. Returns 0, or -1 if the provider's name or group is
 * invalid (reported on stderr). Thread-safe; not for signal handlers. */
FR_API int  fr_provider_register(fr_provider *p, fr_event_site *const *first,
                                 fr_event_site *const *last);
/* Disables the provider's events and unregisters them from the kernel. Also done for
 * every provider at exit and, in a forked child, at fork. */
FR_API void fr_provider_unregister(fr_provider *p);

extern fr_event_site *__start_fr_events[] __attribute__((weak, visibility("hidden")));
extern fr_event_site *__stop_fr_events[] __attribute__((weak, visibility("hidden")));
#define FR_PROVIDER_REGISTER(p) fr_provider_register(&(p), __start_fr_events, __stop_fr_events)

/* The provider id Windows ETW derives from a provider name (EventSource's algorithm:
 * SHA-1 of a fixed namespace and the upper-cased name in UTF-16BE), for tools that
 * correlate with ETW/TraceLogging. guid: the 16 bytes in GUID memory order
 * (Data1..Data3 little-endian); text: "b3864c38-4273-58c5-545b-8b3608343471". */
FR_API void fr_provider_guid(const char *name, uint8_t guid[16]);
FR_API void fr_provider_guid_string(const char *name, char text[37]);

/* ------------------------------------------------------------------ spans, activities */

#define FR_SPAN_ACTIVE   0x1u   /* started (its start event was enabled) */
#define FR_SPAN_PARENT   0x2u   /* has a parent id */
#define FR_SPAN_DETACHED 0x4u   /* not the thread's current span */
typedef struct fr_span {
    uint8_t  id[16];
    uint8_t  parent[16];
    uint32_t flags;
} fr_span;

static inline const uint8_t *fr_span_id(const fr_span *s)
{
    return (s->flags & FR_SPAN_ACTIVE) ? s->id : NULL;
}
/* A fresh activity id, unique within the process (and, with high probability, across
 * processes): a random per-process part, the thread id and a per-thread counter. */
FR_API void fr_activity_new_id(uint8_t id[16]);
/* Copies the thread's current activity id (innermost span) to id; false if none. */
FR_API bool fr_activity_current(uint8_t id[16]);
/* Makes `id` the thread's current activity until the matching fr_activity_leave (which
 * restores the previous one from `scope`): adopts on a worker a span started elsewhere.
 * A NULL id (fr_span_id of a span whose start was disabled) means no activity. */
typedef struct fr_activity_scope {
    uint8_t saved[16];
    bool    had_current;
} fr_activity_scope;
FR_API void fr_activity_enter(fr_activity_scope *scope, const uint8_t id[16]);
FR_API void fr_activity_leave(fr_activity_scope *scope);

/* A scoped span: FR_SPAN_SCOPE(provider, "Name", fields and options...) starts a span
 * that stops when the enclosing scope is left: by return, break, goto, a C++ exception
 * (a destructor; in C, __attribute__((cleanup)), which runs during an unwind only in
 * code compiled with -fexceptions) or a longjmp past it (the runtime's longjmp stops it:
 * the stop event is written and the thread's current span restored). Frames are told
 * apart by stack address: a span in a function inlined into the frame that catches (or
 * called setjmp) is not stopped by the unwind (docs/DESIGN.md, "Spans and unwinding"). The stop event
 * has the start's name, level and keyword, and no fields. One FR_SPAN_SCOPE per line
 * of a block, as a statement (it declares a variable).
 *
 * Spans on the thread's stack that a C++ exception or a longjmp leaves behind (a
 * FR_SPAN_START whose FR_SPAN_STOP never ran) no longer stay the thread's current span:
 * the runtime restores the current span that was in place before them when the
 * exception is caught or the longjmp is taken. */
typedef struct fr_span_scope {
    fr_span        span;
    fr_event_site *stop;   /* the stop event's call site */
} fr_span_scope;

/* ------------------------------------------------------------------ what macros call */

/* Writes one enabled event to the sinks that want it. iov[0..2] are scratch slots, iov[3]
 * the metadata extension, iov[4..] the field values. activity/related: explicit ids or
 * NULL (for an event that is not a span start/stop: the thread's current span). */
FR_API void fr__event_write(fr_event_site *site, const uint8_t *activity,
                            const uint8_t *related, struct iovec *iov, int iovcnt);
FR_API void fr__span_begin(fr_span *s, const uint8_t *parent, bool detached,
                           const uint8_t **activity, const uint8_t **related);
FR_API void fr__span_end(fr_span *s);
FR_API void fr__span_scope_begin(fr_span_scope *g, const uint8_t **activity,
                                 const uint8_t **related);
FR_API void fr__span_scope_end(fr_span_scope *g);
#ifdef __cplusplus
} /* extern "C" */
extern "C++" {
struct fr__span_guard : fr_span_scope {
    explicit fr__span_guard(fr_event_site *stop_site)
    {
        span.flags = 0;
        stop = stop_site;
    }
    ~fr__span_guard() { fr__span_scope_end(this); }
    fr__span_guard(const fr__span_guard &) = delete;
    fr__span_guard &operator=(const fr__span_guard &) = delete;
};
}
extern "C" {
#define FR__SCOPE_DECL(var, stop_site) fr__span_guard var(&(stop_site))
#else
static inline void fr__span_scope_cleanup(fr_span_scope *g) { fr__span_scope_end(g); }
#define FR__SCOPE_DECL(var, stop_site) \
    fr_span_scope var __attribute__((cleanup(fr__span_scope_cleanup))) = \
        {{{0}, {0}, 0}, &(stop_site)}
#endif
static inline const char *fr__zstr(const char *s) { return s ? s : ""; }

/* ------------------------------------------------------------------ fields */
/* A field is a tuple (F, shape, name, encoding, format, tag, count, data, x, y, z):
 *   shape  which descriptor bytes follow the name: S0 encoding; S1 + format;
 *          S2 + format + tag; S0C/S1C/S2C the same + constant array length
 *   data   how the value reaches the payload: SCALAR (x type, y value), ZSTR (y),
 *          COUNTED (x element type, y pointer, z count), FIXED (x type, y pointer,
 *          count), BYTES16 (y pointer), NONE
 * An option is (O, (site initializers,), (statements;)). */
#define FR__SCALAR(name, enc, type, v)       (F, S0, name, enc, 0, 0, 0, SCALAR, type, v, 0)
#define FR__SCALARF(name, enc, fmt, type, v) (F, S1, name, (enc) | FR_EH_ENC_CHAIN, fmt, 0, 0, SCALAR, type, v, 0)

#define FR_I8(name, v)     FR__SCALARF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_SIGNED, int8_t,  v)
#define FR_I16(name, v)    FR__SCALARF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_SIGNED, int16_t, v)
#define FR_I32(name, v)    FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_SIGNED, int32_t, v)
#define FR_I64(name, v)    FR__SCALARF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_SIGNED, int64_t, v)
#define FR_U8(name, v)     FR__SCALAR(name, FR_EH_ENC_VALUE8,  uint8_t,  v)
#define FR_U16(name, v)    FR__SCALAR(name, FR_EH_ENC_VALUE16, uint16_t, v)
#define FR_U32(name, v)    FR__SCALAR(name, FR_EH_ENC_VALUE32, uint32_t, v)
#define FR_U64(name, v)    FR__SCALAR(name, FR_EH_ENC_VALUE64, uint64_t, v)
#define FR_HEX8(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_HEX_INT, uint8_t,  v)
#define FR_HEX16(name, v)  FR__SCALARF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_HEX_INT, uint16_t, v)
#define FR_HEX32(name, v)  FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_HEX_INT, uint32_t, v)
#define FR_HEX64(name, v)  FR__SCALARF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_HEX_INT, uint64_t, v)
#define FR_BOOL(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_BOOLEAN, uint8_t, (v) ? 1 : 0)
#define FR_FLOAT(name, v)  FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_FLOAT, float,  v)
#define FR_DOUBLE(name, v) FR__SCALARF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_FLOAT, double, v)
#define FR_CHAR(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_STRING8, char, v)
#define FR_PTR(name, v)    FR__SCALARF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_HEX_INT, uintptr_t, (uintptr_t)(v))
#define FR_PID(name, v)    FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_PID,   int32_t, v)
#define FR_ERRNO(name, v)  FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_ERRNO, int32_t, v)
#define FR_TIME(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_TIME,  int64_t, v)
#define FR_IPV4(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_IP_ADDRESS, uint32_t, v)
#define FR_PORT(name, v)   FR__SCALARF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_PORT,  uint16_t, v)
#define FR_UUID(name, p) \
    (F, S1, name, FR_EH_ENC_VALUE128 | FR_EH_ENC_CHAIN, FR_EH_FMT_UUID, 0, 0, BYTES16, 0, p, 0)
#define FR_IPV6(name, p) \
    (F, S1, name, FR_EH_ENC_VALUE128 | FR_EH_ENC_CHAIN, FR_EH_FMT_IP_ADDRESS_OLD, 0, 0, BYTES16, 0, p, 0)
#define FR_STR(name, s)    (F, S0, name, FR_EH_ENC_ZSTRING8, 0, 0, 0, ZSTR, 0, s, 0)
#define FR_CSTR(name, s, len) (F, S0, name, FR_EH_ENC_STRING16_8, 0, 0, 0, COUNTED, char, s, len)
#define FR_BINARY(name, p, len) \
    (F, S1, name, FR_EH_ENC_STRING16_8 | FR_EH_ENC_CHAIN, FR_EH_FMT_HEX_BYTES, 0, 0, COUNTED, uint8_t, p, len)
#define FR_STRUCT(name, nfields) \
    (F, S1, name, FR_EH_ENC_STRUCT | FR_EH_ENC_CHAIN, (nfields) & FR_EH_FMT_VALUE_MASK, 0, 0, NONE, 0, 0, 0)

/* Arrays: variable (count in the payload) and fixed (count in the metadata). */
#define FR__VARRAY(name, enc, type, p, n)       (F, S0, name, (enc) | FR_EH_ENC_VARRAY, 0, 0, 0, COUNTED, type, p, n)
#define FR__VARRAYF(name, enc, fmt, type, p, n) (F, S1, name, (enc) | FR_EH_ENC_VARRAY | FR_EH_ENC_CHAIN, fmt, 0, 0, COUNTED, type, p, n)
#define FR__CARRAY(name, enc, type, p, n)       (F, S0C, name, (enc) | FR_EH_ENC_CARRAY, 0, 0, n, FIXED, type, p, 0)
#define FR__CARRAYF(name, enc, fmt, type, p, n) (F, S1C, name, (enc) | FR_EH_ENC_CARRAY | FR_EH_ENC_CHAIN, fmt, 0, n, FIXED, type, p, 0)
#define FR_I8_ARRAY(name, p, n)     FR__VARRAYF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_SIGNED, int8_t,  p, n)
#define FR_I16_ARRAY(name, p, n)    FR__VARRAYF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_SIGNED, int16_t, p, n)
#define FR_I32_ARRAY(name, p, n)    FR__VARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_SIGNED, int32_t, p, n)
#define FR_I64_ARRAY(name, p, n)    FR__VARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_SIGNED, int64_t, p, n)
#define FR_U8_ARRAY(name, p, n)     FR__VARRAY(name, FR_EH_ENC_VALUE8,  uint8_t,  p, n)
#define FR_U16_ARRAY(name, p, n)    FR__VARRAY(name, FR_EH_ENC_VALUE16, uint16_t, p, n)
#define FR_U32_ARRAY(name, p, n)    FR__VARRAY(name, FR_EH_ENC_VALUE32, uint32_t, p, n)
#define FR_U64_ARRAY(name, p, n)    FR__VARRAY(name, FR_EH_ENC_VALUE64, uint64_t, p, n)
#define FR_HEX8_ARRAY(name, p, n)   FR__VARRAYF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_HEX_INT, uint8_t,  p, n)
#define FR_HEX16_ARRAY(name, p, n)  FR__VARRAYF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_HEX_INT, uint16_t, p, n)
#define FR_HEX32_ARRAY(name, p, n)  FR__VARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_HEX_INT, uint32_t, p, n)
#define FR_HEX64_ARRAY(name, p, n)  FR__VARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_HEX_INT, uint64_t, p, n)
#define FR_FLOAT_ARRAY(name, p, n)  FR__VARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_FLOAT, float,  p, n)
#define FR_DOUBLE_ARRAY(name, p, n) FR__VARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_FLOAT, double, p, n)
#define FR_I8_FIXED(name, p, n)     FR__CARRAYF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_SIGNED, int8_t,  p, n)
#define FR_I16_FIXED(name, p, n)    FR__CARRAYF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_SIGNED, int16_t, p, n)
#define FR_I32_FIXED(name, p, n)    FR__CARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_SIGNED, int32_t, p, n)
#define FR_I64_FIXED(name, p, n)    FR__CARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_SIGNED, int64_t, p, n)
#define FR_U8_FIXED(name, p, n)     FR__CARRAY(name, FR_EH_ENC_VALUE8,  uint8_t,  p, n)
#define FR_U16_FIXED(name, p, n)    FR__CARRAY(name, FR_EH_ENC_VALUE16, uint16_t, p, n)
#define FR_U32_FIXED(name, p, n)    FR__CARRAY(name, FR_EH_ENC_VALUE32, uint32_t, p, n)
#define FR_U64_FIXED(name, p, n)    FR__CARRAY(name, FR_EH_ENC_VALUE64, uint64_t, p, n)
#define FR_HEX8_FIXED(name, p, n)   FR__CARRAYF(name, FR_EH_ENC_VALUE8,  FR_EH_FMT_HEX_INT, uint8_t,  p, n)
#define FR_HEX16_FIXED(name, p, n)  FR__CARRAYF(name, FR_EH_ENC_VALUE16, FR_EH_FMT_HEX_INT, uint16_t, p, n)
#define FR_HEX32_FIXED(name, p, n)  FR__CARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_HEX_INT, uint32_t, p, n)
#define FR_HEX64_FIXED(name, p, n)  FR__CARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_HEX_INT, uint64_t, p, n)
#define FR_FLOAT_FIXED(name, p, n)  FR__CARRAYF(name, FR_EH_ENC_VALUE32, FR_EH_FMT_FLOAT, float,  p, n)
#define FR_DOUBLE_FIXED(name, p, n) FR__CARRAYF(name, FR_EH_ENC_VALUE64, FR_EH_FMT_FLOAT, double, p, n)

/* A field tag: the descriptor gains a format byte (if it had none) and the tag. */
#define FR_TAGGED(tag, field) FR__TAGGED(tag, FR__UNPAREN field)
#define FR__TAGGED(...) FR__TAGGED_(__VA_ARGS__)
#define FR__TAGGED_(tag, K, shape, name, enc, fmt, t, cnt, dk, x, y, z) \
    (F, FR__CAT(FR__TAGSHAPE_, shape), name, (enc) | FR_EH_ENC_CHAIN, (fmt) | FR_EH_FMT_CHAIN, \
     tag, cnt, dk, x, y, z)
#define FR__TAGSHAPE_S0  S2
#define FR__TAGSHAPE_S1  S2
#define FR__TAGSHAPE_S2  S2
#define FR__TAGSHAPE_S0C S2C
#define FR__TAGSHAPE_S1C S2C
#define FR__TAGSHAPE_S2C S2C

/* ------------------------------------------------------------------ options */
#define FR_LEVEL(n)        (O, (FR__SI(level, n)), ())
#define FR_KEYWORD(k)      (O, (FR__SI(keyword, k)), ())
#define FR_OPCODE(op)      (O, (FR__SI(opcode, op)), ())
#define FR_ID(id_, ver)    (O, (FR__SI(id, id_) FR__SI(version, ver)), ())
#define FR_TAG(t)          (O, (FR__SI(tag, t)), ())
#define FR_ACTIVITY(p)     (O, (), (fr__act = (p);))
#define FR_RELATED_ACTIVITY(p) (O, (), (fr__rel = (p);))

/* ------------------------------------------------------------------ events */

#define FR_EVENT(...) FR__EVENT((), 1, (), (), __VA_ARGS__)

#define FR_SPAN_START(provider, span, ...) \
    FR__EVENT((FR__SI(opcode, FR_EH_OPCODE_ACTIVITY_START)), \
              (fr__span_begin((span), NULL, false, &fr__act, &fr__rel), 1), (), \
              ((span)->flags = 0;), provider, __VA_ARGS__)
#define FR_SPAN_START_CHILD(provider, span, parent_id, ...) \
    FR__EVENT((FR__SI(opcode, FR_EH_OPCODE_ACTIVITY_START)), \
              (fr__span_begin((span), (parent_id), true, &fr__act, &fr__rel), 1), (), \
              ((span)->flags = 0;), provider, __VA_ARGS__)
#define FR_SPAN_STOP(provider, span, ...) \
    FR__EVENT((FR__SI(opcode, FR_EH_OPCODE_ACTIVITY_STOP)), \
              ((span)->flags & FR_SPAN_ACTIVE ? (fr__act = (span)->id, 1) : 0), \
              (fr__span_end(span);), \
              (if ((span)->flags & FR_SPAN_ACTIVE) fr__span_end(span);), provider, __VA_ARGS__)

#define FR_SPAN_SCOPE(...) FR__SPAN_SCOPE(FR__CAT(fr__scope_, __COUNTER__), __VA_ARGS__)
#define FR__SPAN_SCOPE(var, ...) \
    FR__STOP_SITE(FR__CAT(var, _meta), FR__CAT(var, _stop), FR__CAT(var, _ref), __VA_ARGS__) \
    FR__SCOPE_DECL(var, FR__CAT(var, _stop)); \
    FR__EVENT((FR__SI(opcode, FR_EH_OPCODE_ACTIVITY_START)), \
              (fr__span_scope_begin(&(var), &fr__act, &fr__rel), 1), (), (), __VA_ARGS__)
/* The stop event of a scoped span: the start's name and options, no fields. */
#define FR__STOP_SITE(meta, site, ref, ...) \
    typedef struct __attribute__((packed)) { \
        uint16_t size, kind; \
        char name[sizeof(FR__ARG2(__VA_ARGS__, ~))]; \
    } FR__CAT(meta, _t); \
    static const FR__CAT(meta, _t) meta = { \
        sizeof(FR__CAT(meta, _t)) - 4, FR_EH_EXT_METADATA, FR__ARG2(__VA_ARGS__, ~)}; \
    static fr_event_site site = FR__SITE_INIT(FR__ARG1(__VA_ARGS__), meta, \
        FR__SI(opcode, FR_EH_OPCODE_ACTIVITY_STOP) FR__FOREACH(FR__P_SITE, __VA_ARGS__)); \
    static fr_event_site *ref __attribute__((section("fr_events"), used)) = &site; \
    (void)ref;

/* site_init: extra designated initializers; when: a condition evaluated once enabled;
 * after: statements after the write; otherwise: statements when disabled; then the
 * provider, the event name and the fields and options. (The provider and the name travel
 * in the variadic part so that an event without fields never leaves "..." empty: ISO C
 * before C2x and C++ before C++20 require an argument there, -Wpedantic says so.) */
#define FR__EVENT(site_init, when, after, otherwise, ...) \
    FR__EVENT_(FR__ARG1(__VA_ARGS__), FR__ARG2(__VA_ARGS__, ~), site_init, when, after, \
               otherwise, __VA_ARGS__)
#define FR__EVENT_(prov_, evname, site_init, when, after, otherwise, ...) \
    do { \
        typedef struct __attribute__((packed)) { \
            uint16_t size, kind; \
            char name[sizeof(evname)]; \
            FR__FOREACH(FR__P_MDECL, __VA_ARGS__) \
        } fr__meta_t; \
        static const fr__meta_t fr__meta = { \
            sizeof(fr__meta_t) - 4, FR_EH_EXT_METADATA, evname, \
            FR__FOREACH(FR__P_MINIT, __VA_ARGS__) \
        }; \
        static fr_event_site fr__site = FR__SITE_INIT(prov_, fr__meta, \
            FR__UNPAREN site_init FR__FOREACH(FR__P_SITE, __VA_ARGS__)); \
        static fr_event_site *fr__site_ref __attribute__((section("fr_events"), used)) = &fr__site; \
        (void)fr__site_ref; \
        if (__builtin_expect(__atomic_load_n(&fr__site.enabled, __ATOMIC_RELAXED) != 0, 0)) { \
            const uint8_t *fr__act = NULL, *fr__rel = NULL; \
            if (when) { \
                FR__FOREACH(FR__P_VDECL, __VA_ARGS__) \
                struct iovec fr__iov[] = { \
                    {NULL, 0}, {NULL, 0}, {NULL, 0}, {(void *)&fr__meta, sizeof fr__meta}, \
                    FR__FOREACH(FR__P_VIOV, __VA_ARGS__) \
                }; \
                fr__event_write(&fr__site, fr__act, fr__rel, fr__iov, \
                                (int)(sizeof fr__iov / sizeof fr__iov[0])); \
                FR__UNPAREN after \
            } \
        } else { \
            FR__UNPAREN otherwise \
        } \
    } while (0)

/* ------------------------------------------------------------------ macro machinery */
/* The call site's static descriptor, with the options' fields (FR__SI items, each with
 * a trailing comma). C: designated initializers, in any order. C++ (C++11 on, g++ and
 * clang++): g++ takes designators only in declaration order, and options come in the
 * user's order, so each field is picked from the option list by a constexpr function
 * (the last setting wins, as with repeated designators) and the descriptor is
 * initialized positionally: still a constant initialization, done before any code runs,
 * so FR_PROVIDER_REGISTER sees the fields. */
#ifdef __cplusplus
#define FR__SI(field, v) fr__opt{FR__K_##field, (uint64_t)(v)},
#define FR__SITE_PICK(field, ...) fr__pick(FR__K_##field, 0, __VA_ARGS__ fr__opt{0, 0})
#define FR__SITE_INIT(prov_, meta_, ...) { \
        0, (uint8_t)FR__SITE_PICK(level, __VA_ARGS__), (uint8_t)FR__SITE_PICK(opcode, __VA_ARGS__), \
        (uint8_t)FR__SITE_PICK(version, __VA_ARGS__), 0, (uint16_t)FR__SITE_PICK(id, __VA_ARGS__), \
        (uint16_t)FR__SITE_PICK(tag, __VA_ARGS__), (uint32_t)sizeof meta_, \
        FR__SITE_PICK(keyword, __VA_ARGS__), &(prov_), &meta_, NULL, NULL, 0, {0}, 0 }
enum { FR__K_level = 1, FR__K_opcode, FR__K_version, FR__K_id, FR__K_tag, FR__K_keyword };
struct fr__opt {
    int kind;
    uint64_t value;
};
} /* extern "C" */
extern "C++" {
constexpr uint64_t fr__pick(int, uint64_t found, fr__opt) { return found; }
template <typename... Rest>
constexpr uint64_t fr__pick(int kind, uint64_t found, fr__opt o, fr__opt next, Rest... rest)
{
    return fr__pick(kind, o.kind == kind ? o.value : found, next, rest...);
}
}
extern "C" {
#else
#define FR__SI(field, v) .field = (v),
#define FR__SITE_INIT(prov_, meta_, ...) { \
        .provider = &(prov_), .metadata = &meta_, .metadata_size = sizeof meta_, \
        __VA_ARGS__ }
#endif
#define FR__CAT(a, b) FR__CAT_(a, b)
#define FR__CAT_(a, b) a##b
#define FR__UNPAREN(...) __VA_ARGS__
#define FR__CALL(m, args) m args
#define FR__APPLY(m, args) m args
#define FR__ARG1(a, ...) a
#define FR__ARG2(a, b, ...) b
#define FR__DROP2(a, b, ...) __VA_ARGS__
/* m over the fields and options of an event's (provider, name, items...): the items and a
 * terminating ~, so that every FR__FE_n has at least one argument in its "...". */
#define FR__FOREACH(m, ...) \
    FR__APPLY(FR__CAT(FR__FE_, FR__NITEMS(__VA_ARGS__)), (m, FR__DROP2(__VA_ARGS__, ~)))

/* Passes over one argument (i = its position, unique within the event). */
#define FR__P_MDECL(i, K, ...) FR__CAT(FR__MDECL_, K)(i, __VA_ARGS__)
#define FR__P_MINIT(i, K, ...) FR__CAT(FR__MINIT_, K)(i, __VA_ARGS__)
#define FR__P_SITE(i, K, ...)  FR__CAT(FR__SITE_, K)(i, __VA_ARGS__)
#define FR__P_VDECL(i, K, ...) FR__CAT(FR__VDECL_, K)(i, __VA_ARGS__)
#define FR__P_VIOV(i, K, ...)  FR__CAT(FR__VIOV_, K)(i, __VA_ARGS__)

/* Options contribute site initializers and statements, nothing else. */
#define FR__MDECL_O(i, site, stmt)
#define FR__MINIT_O(i, site, stmt)
#define FR__SITE_O(i, site, stmt)  FR__UNPAREN site
#define FR__VDECL_O(i, site, stmt) FR__UNPAREN stmt
#define FR__VIOV_O(i, site, stmt)
#define FR__SITE_F(i, ...)

/* Field descriptors: members of the metadata struct, and their initializers. */
#define FR__MDECL_F(i, shape, name, enc, fmt, tag, cnt, dk, x, y, z) \
    FR__CAT(FR__MD_, shape)(i, name)
#define FR__MD_S0(i, name)  char n##i[sizeof(name)]; uint8_t e##i;
#define FR__MD_S1(i, name)  char n##i[sizeof(name)]; uint8_t e##i; uint8_t f##i;
#define FR__MD_S2(i, name)  char n##i[sizeof(name)]; uint8_t e##i; uint8_t f##i; uint16_t t##i;
#define FR__MD_S0C(i, name) FR__MD_S0(i, name) uint16_t c##i;
#define FR__MD_S1C(i, name) FR__MD_S1(i, name) uint16_t c##i;
#define FR__MD_S2C(i, name) FR__MD_S2(i, name) uint16_t c##i;
#define FR__MINIT_F(i, shape, name, enc, fmt, tag, cnt, dk, x, y, z) \
    FR__CAT(FR__MI_, shape)(name, enc, fmt, tag, cnt)
#define FR__MI_S0(name, enc, fmt, tag, cnt)  name, enc,
#define FR__MI_S1(name, enc, fmt, tag, cnt)  name, enc, fmt,
#define FR__MI_S2(name, enc, fmt, tag, cnt)  name, enc, fmt, tag,
#define FR__MI_S0C(name, enc, fmt, tag, cnt) name, enc, cnt,
#define FR__MI_S1C(name, enc, fmt, tag, cnt) name, enc, fmt, cnt,
#define FR__MI_S2C(name, enc, fmt, tag, cnt) name, enc, fmt, tag, cnt,

/* Field values: locals on the stack, and the iovecs that point at them. */
#define FR__VDECL_F(i, shape, name, enc, fmt, tag, cnt, dk, x, y, z) \
    FR__CAT(FR__VD_, dk)(i, x, y, z)
#define FR__VD_SCALAR(i, type, v, z)  type fr__v##i = (type)(v);
#define FR__VD_ZSTR(i, x, s, z)       const char *fr__v##i = fr__zstr(s);
#define FR__VD_COUNTED(i, type, p, n) uint16_t fr__n##i = (uint16_t)(n); const type *fr__v##i = (p);
#define FR__VD_FIXED(i, type, p, z)   const type *fr__v##i = (p);
#define FR__VD_BYTES16(i, x, p, z)    const uint8_t *fr__v##i = (const uint8_t *)(p);
#define FR__VD_NONE(i, x, y, z)
#define FR__VIOV_F(i, shape, name, enc, fmt, tag, cnt, dk, x, y, z) \
    FR__CAT(FR__VI_, dk)(i, x, cnt)
#define FR__VI_SCALAR(i, type, cnt)  {(void *)&fr__v##i, sizeof fr__v##i},
#define FR__VI_ZSTR(i, x, cnt)       {(void *)fr__v##i, __builtin_strlen(fr__v##i) + 1},
#define FR__VI_COUNTED(i, type, cnt) {(void *)&fr__n##i, 2}, {(void *)fr__v##i, (size_t)fr__n##i * sizeof(type)},
#define FR__VI_FIXED(i, type, cnt)   {(void *)fr__v##i, (size_t)(cnt) * sizeof(type)},
#define FR__VI_BYTES16(i, x, cnt)    {(void *)fr__v##i, 16},
#define FR__VI_NONE(i, x, cnt)

/* Counting and a for-each over up to 64 macro arguments (fields and options). */
/* The number of items after the provider and the name (2 to 66 arguments in all). */
#define FR__NITEMS(...) FR__NITEMS_(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define FR__NITEMS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, _65, _66, n, ...) n
#define FR__FE_0(m, ...)
#define FR__FE_1(m, a, ...) FR__CALL(m, (1, FR__UNPAREN a)) FR__FE_0(m, __VA_ARGS__)
#define FR__FE_2(m, a, ...) FR__CALL(m, (2, FR__UNPAREN a)) FR__FE_1(m, __VA_ARGS__)
#define FR__FE_3(m, a, ...) FR__CALL(m, (3, FR__UNPAREN a)) FR__FE_2(m, __VA_ARGS__)
#define FR__FE_4(m, a, ...) FR__CALL(m, (4, FR__UNPAREN a)) FR__FE_3(m, __VA_ARGS__)
#define FR__FE_5(m, a, ...) FR__CALL(m, (5, FR__UNPAREN a)) FR__FE_4(m, __VA_ARGS__)
#define FR__FE_6(m, a, ...) FR__CALL(m, (6, FR__UNPAREN a)) FR__FE_5(m, __VA_ARGS__)
#define FR__FE_7(m, a, ...) FR__CALL(m, (7, FR__UNPAREN a)) FR__FE_6(m, __VA_ARGS__)
#define FR__FE_8(m, a, ...) FR__CALL(m, (8, FR__UNPAREN a)) FR__FE_7(m, __VA_ARGS__)
#define FR__FE_9(m, a, ...) FR__CALL(m, (9, FR__UNPAREN a)) FR__FE_8(m, __VA_ARGS__)
#define FR__FE_10(m, a, ...) FR__CALL(m, (10, FR__UNPAREN a)) FR__FE_9(m, __VA_ARGS__)
#define FR__FE_11(m, a, ...) FR__CALL(m, (11, FR__UNPAREN a)) FR__FE_10(m, __VA_ARGS__)
#define FR__FE_12(m, a, ...) FR__CALL(m, (12, FR__UNPAREN a)) FR__FE_11(m, __VA_ARGS__)
#define FR__FE_13(m, a, ...) FR__CALL(m, (13, FR__UNPAREN a)) FR__FE_12(m, __VA_ARGS__)
#define FR__FE_14(m, a, ...) FR__CALL(m, (14, FR__UNPAREN a)) FR__FE_13(m, __VA_ARGS__)
#define FR__FE_15(m, a, ...) FR__CALL(m, (15, FR__UNPAREN a)) FR__FE_14(m, __VA_ARGS__)
#define FR__FE_16(m, a, ...) FR__CALL(m, (16, FR__UNPAREN a)) FR__FE_15(m, __VA_ARGS__)
#define FR__FE_17(m, a, ...) FR__CALL(m, (17, FR__UNPAREN a)) FR__FE_16(m, __VA_ARGS__)
#define FR__FE_18(m, a, ...) FR__CALL(m, (18, FR__UNPAREN a)) FR__FE_17(m, __VA_ARGS__)
#define FR__FE_19(m, a, ...) FR__CALL(m, (19, FR__UNPAREN a)) FR__FE_18(m, __VA_ARGS__)
#define FR__FE_20(m, a, ...) FR__CALL(m, (20, FR__UNPAREN a)) FR__FE_19(m, __VA_ARGS__)
#define FR__FE_21(m, a, ...) FR__CALL(m, (21, FR__UNPAREN a)) FR__FE_20(m, __VA_ARGS__)
#define FR__FE_22(m, a, ...) FR__CALL(m, (22, FR__UNPAREN a)) FR__FE_21(m, __VA_ARGS__)
#define FR__FE_23(m, a, ...) FR__CALL(m, (23, FR__UNPAREN a)) FR__FE_22(m, __VA_ARGS__)
#define FR__FE_24(m, a, ...) FR__CALL(m, (24, FR__UNPAREN a)) FR__FE_23(m, __VA_ARGS__)
#define FR__FE_25(m, a, ...) FR__CALL(m, (25, FR__UNPAREN a)) FR__FE_24(m, __VA_ARGS__)
#define FR__FE_26(m, a, ...) FR__CALL(m, (26, FR__UNPAREN a)) FR__FE_25(m, __VA_ARGS__)
#define FR__FE_27(m, a, ...) FR__CALL(m, (27, FR__UNPAREN a)) FR__FE_26(m, __VA_ARGS__)
#define FR__FE_28(m, a, ...) FR__CALL(m, (28, FR__UNPAREN a)) FR__FE_27(m, __VA_ARGS__)
#define FR__FE_29(m, a, ...) FR__CALL(m, (29, FR__UNPAREN a)) FR__FE_28(m, __VA_ARGS__)
#define FR__FE_30(m, a, ...) FR__CALL(m, (30, FR__UNPAREN a)) FR__FE_29(m, __VA_ARGS__)
#define FR__FE_31(m, a, ...) FR__CALL(m, (31, FR__UNPAREN a)) FR__FE_30(m, __VA_ARGS__)
#define FR__FE_32(m, a, ...) FR__CALL(m, (32, FR__UNPAREN a)) FR__FE_31(m, __VA_ARGS__)
#define FR__FE_33(m, a, ...) FR__CALL(m, (33, FR__UNPAREN a)) FR__FE_32(m, __VA_ARGS__)
#define FR__FE_34(m, a, ...) FR__CALL(m, (34, FR__UNPAREN a)) FR__FE_33(m, __VA_ARGS__)
#define FR__FE_35(m, a, ...) FR__CALL(m, (35, FR__UNPAREN a)) FR__FE_34(m, __VA_ARGS__)
#define FR__FE_36(m, a, ...) FR__CALL(m, (36, FR__UNPAREN a)) FR__FE_35(m, __VA_ARGS__)
#define FR__FE_37(m, a, ...) FR__CALL(m, (37, FR__UNPAREN a)) FR__FE_36(m, __VA_ARGS__)
#define FR__FE_38(m, a, ...) FR__CALL(m, (38, FR__UNPAREN a)) FR__FE_37(m, __VA_ARGS__)
#define FR__FE_39(m, a, ...) FR__CALL(m, (39, FR__UNPAREN a)) FR__FE_38(m, __VA_ARGS__)
#define FR__FE_40(m, a, ...) FR__CALL(m, (40, FR__UNPAREN a)) FR__FE_39(m, __VA_ARGS__)
#define FR__FE_41(m, a, ...) FR__CALL(m, (41, FR__UNPAREN a)) FR__FE_40(m, __VA_ARGS__)
#define FR__FE_42(m, a, ...) FR__CALL(m, (42, FR__UNPAREN a)) FR__FE_41(m, __VA_ARGS__)
#define FR__FE_43(m, a, ...) FR__CALL(m, (43, FR__UNPAREN a)) FR__FE_42(m, __VA_ARGS__)
#define FR__FE_44(m, a, ...) FR__CALL(m, (44, FR__UNPAREN a)) FR__FE_43(m, __VA_ARGS__)
#define FR__FE_45(m, a, ...) FR__CALL(m, (45, FR__UNPAREN a)) FR__FE_44(m, __VA_ARGS__)
#define FR__FE_46(m, a, ...) FR__CALL(m, (46, FR__UNPAREN a)) FR__FE_45(m, __VA_ARGS__)
#define FR__FE_47(m, a, ...) FR__CALL(m, (47, FR__UNPAREN a)) FR__FE_46(m, __VA_ARGS__)
#define FR__FE_48(m, a, ...) FR__CALL(m, (48, FR__UNPAREN a)) FR__FE_47(m, __VA_ARGS__)
#define FR__FE_49(m, a, ...) FR__CALL(m, (49, FR__UNPAREN a)) FR__FE_48(m, __VA_ARGS__)
#define FR__FE_50(m, a, ...) FR__CALL(m, (50, FR__UNPAREN a)) FR__FE_49(m, __VA_ARGS__)
#define FR__FE_51(m, a, ...) FR__CALL(m, (51, FR__UNPAREN a)) FR__FE_50(m, __VA_ARGS__)
#define FR__FE_52(m, a, ...) FR__CALL(m, (52, FR__UNPAREN a)) FR__FE_51(m, __VA_ARGS__)
#define FR__FE_53(m, a, ...) FR__CALL(m, (53, FR__UNPAREN a)) FR__FE_52(m, __VA_ARGS__)
#define FR__FE_54(m, a, ...) FR__CALL(m, (54, FR__UNPAREN a)) FR__FE_53(m, __VA_ARGS__)
#define FR__FE_55(m, a, ...) FR__CALL(m, (55, FR__UNPAREN a)) FR__FE_54(m, __VA_ARGS__)
#define FR__FE_56(m, a, ...) FR__CALL(m, (56, FR__UNPAREN a)) FR__FE_55(m, __VA_ARGS__)
#define FR__FE_57(m, a, ...) FR__CALL(m, (57, FR__UNPAREN a)) FR__FE_56(m, __VA_ARGS__)
#define FR__FE_58(m, a, ...) FR__CALL(m, (58, FR__UNPAREN a)) FR__FE_57(m, __VA_ARGS__)
#define FR__FE_59(m, a, ...) FR__CALL(m, (59, FR__UNPAREN a)) FR__FE_58(m, __VA_ARGS__)
#define FR__FE_60(m, a, ...) FR__CALL(m, (60, FR__UNPAREN a)) FR__FE_59(m, __VA_ARGS__)
#define FR__FE_61(m, a, ...) FR__CALL(m, (61, FR__UNPAREN a)) FR__FE_60(m, __VA_ARGS__)
#define FR__FE_62(m, a, ...) FR__CALL(m, (62, FR__UNPAREN a)) FR__FE_61(m, __VA_ARGS__)
#define FR__FE_63(m, a, ...) FR__CALL(m, (63, FR__UNPAREN a)) FR__FE_62(m, __VA_ARGS__)
#define FR__FE_64(m, a, ...) FR__CALL(m, (64, FR__UNPAREN a)) FR__FE_63(m, __VA_ARGS__)
#ifdef __cplusplus
}
#endif
#endif
