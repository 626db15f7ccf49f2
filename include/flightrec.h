/*
 * flightrec.h - the flight recorder's public C API.
 *
 * Every thread writes compact records into its own in-memory buffers; the trace is
 * written as an XRay FDR v5 file (readable by llvm-xray and by `flightrec`) on flush,
 * at exit, on a signal or on a crash. Link with -lflightrec (pkg-config flightrec).
 *
 * Options (FLIGHTREC_OPTIONS or the string given to fr_init): key=value pairs separated
 * by spaces or commas:
 *   output=PATH        trace file, "%p" expands to the pid (default flightrec-%p.fr)
 *   buffer_size=BYTES  size of one buffer
 *   buffers=N          number of buffers in the pool
 *   policy=overwrite|discard   when a thread's buffers are full: keep newest / oldest
 *   threshold_us=N     calls shorter than N microseconds leave no records
 *   start=1            initialise (and patch) at program start-up
 *   patch=all|none|PATTERN     which instrumented functions to patch
 *   events=SPEC[;SPEC]  structured events the recorder keeps (flightrec/events.h)
 * Recording functions are safe from any thread and from signal handlers; they take no
 * lock, make no system call and allocate nothing.
 */
#ifndef FLIGHTREC_H
#define FLIGHTREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FR_API __attribute__((visibility("default")))
#else
#define FR_API
#endif

/* Lifecycle states, the same as XRay's. */
typedef enum fr_state {
    FR_STATE_UNINITIALIZED = 0,
    FR_STATE_INITIALIZING  = 1,
    FR_STATE_INITIALIZED   = 2,
    FR_STATE_FINALIZING    = 3,
    FR_STATE_FINALIZED     = 4,
} fr_state;

/* Results of lifecycle calls. A call in the wrong state returns FR_ERR_STATE and
 * changes nothing. */
typedef enum fr_status {
    FR_OK           = 0,
    FR_ERR_STATE    = 1, /* wrong state for this call */
    FR_ERR_OPTIONS  = 2, /* bad option string (reported on stderr) */
    FR_ERR_NOMEM    = 3, /* could not allocate the buffer pool */
    FR_ERR_IO       = 4, /* could not write the trace file */
} fr_status;

FR_API fr_status fr_init(const char *options);  /* UNINITIALIZED/FINALIZED -> INITIALIZED */
FR_API fr_status fr_finalize(void);             /* INITIALIZED -> FINALIZED: recording stops */
FR_API fr_status fr_flush(void);                /* FINALIZED: write the trace file */
FR_API fr_status fr_reset(void);                /* FINALIZED -> UNINITIALIZED, buffers freed */
FR_API fr_state  fr_get_state(void);
FR_API const char *fr_status_string(fr_status status);
/* Path of the last trace file written by fr_flush, or NULL. */
FR_API const char *fr_last_output_path(void);

/* Records. Each is a no-op unless the recorder is INITIALIZED. */
FR_API void fr_log_enter(uint32_t function_id);
FR_API void fr_log_exit(uint32_t function_id);
FR_API void fr_log_tail_exit(uint32_t function_id);
FR_API void fr_log_enter_arg(uint32_t function_id, uint64_t arg);
FR_API void fr_log_custom_event(const void *data, size_t size);
FR_API void fr_log_typed_event(uint16_t type, const void *data, size_t size);

/* Totals since init. Drops are also reported at flush on stderr and in the file. */
typedef struct fr_stats {
    uint64_t records_written;
    uint64_t records_dropped;
    uint64_t calls_below_threshold;
    uint32_t threads;
} fr_stats;
FR_API void fr_get_stats(fr_stats *out);

#ifdef __cplusplus
}
#endif
#endif
