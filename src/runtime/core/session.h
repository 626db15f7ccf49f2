/*
 * session.h - state of the current recorder session shared by the core's files
 * (lifecycle.c owns it; fork.c and the writers read it).
 */
#ifndef FLIGHTREC_SESSION_H
#define FLIGHTREC_SESSION_H

#include <pthread.h>
#include <stdint.h>
#include "core/options.h"

#define FR_HIDDEN_DATA __attribute__((visibility("hidden")))

/* Serialises thread registration bookkeeping that is not lock-free (thread exit,
 * finalize's snapshot, reset, flush, fork). Never taken on a record path. */
extern FR_HIDDEN_DATA pthread_mutex_t fr_registry_lock;
extern FR_HIDDEN_DATA struct fr_options fr_opts;   /* options of the current session */
extern FR_HIDDEN_DATA int32_t fr_pid;              /* getpid() at init / in a fork child */
extern FR_HIDDEN_DATA char fr_output_path[];       /* output with %p expanded */

/* Process facts for FR_TE_PROCESS, read at init (so a crash-time writer needs no I/O
 * beyond the trace file itself). */
struct fr_process_info {
    uint32_t pid, ppid;
    uint16_t name_len, exe_len, cmdline_len;
    char name[16];
    char exe[1024];
    char cmdline[4096];
};
extern FR_HIDDEN_DATA struct fr_process_info fr_process;
__attribute__((visibility("hidden"))) void fr_process_info_read(void);

/* Expands `pattern` ("%p" -> pid, "%%" -> "%") into out; when `force_pid` and the
 * pattern has no %p, appends ".PID" (fork children). Returns 0 or -1 (too long). */
__attribute__((visibility("hidden"))) int fr_expand_output(char *out, size_t cap, const char *pattern,
                                                           int32_t pid, int force_pid);

/* Writes the whole trace (log_writer.c). Returns 0 or an errno value. */
__attribute__((visibility("hidden"))) int fr_write_trace(const char *path);

/* Totals over every thread (metadata.c): exact once finalized. */
__attribute__((visibility("hidden"))) void fr_meta_totals(uint64_t *written, uint64_t *dropped,
                                                          uint64_t *below, uint32_t *threads);

/* Formats without stdio (async-signal-safe): appends to buf at *len. */
__attribute__((visibility("hidden"))) void fr_fmt_str(char *buf, size_t cap, size_t *len, const char *s);
__attribute__((visibility("hidden"))) void fr_fmt_u64(char *buf, size_t cap, size_t *len, uint64_t v);
__attribute__((visibility("hidden"))) void fr_write_stderr(const char *buf, size_t len);

#endif
