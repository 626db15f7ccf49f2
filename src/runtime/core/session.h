/*
 * session.h - state of the current recorder session shared by the core's files
 * (lifecycle.c owns it; fork.c and the writers read it).
 */
#ifndef FLIGHTREC_SESSION_H
#define FLIGHTREC_SESSION_H

#include <pthread.h>
#include <stdint.h>
#include "core/options.h"
#include "flightrec.h"
#include "fr_format.h"
#include "core/visibility.h"


/* Serialises thread registration bookkeeping that is not lock-free (thread exit,
 * finalize's snapshot, reset, flush, fork). Never taken on a record path. */
extern FR_HIDDEN pthread_mutex_t fr_registry_lock;
extern FR_HIDDEN struct fr_options fr_opts;   /* options of the current session */
extern FR_HIDDEN int32_t fr_pid;              /* getpid() at init / in a fork child */
extern FR_HIDDEN char fr_output_path[];       /* output with %p expanded */

/* Process facts for FR_TE_PROCESS, read at init (so a crash-time writer needs no I/O
 * beyond the trace file itself). */
struct fr_process_info {
    uint32_t pid, ppid;
    uint16_t name_len, exe_len, cmdline_len;
    char name[16];
    char exe[1024];
    char cmdline[4096];
};
extern FR_HIDDEN struct fr_process_info fr_process;
FR_HIDDEN void fr_process_info_read(void);

/* Writes the whole trace (log_writer.c). Returns 0 or an errno value. */
FR_HIDDEN int fr_write_trace(const char *path);
/* The same into an open file (the caller closes it; XRay compatibility's log files and
 * in-memory image). Callers hold what fr_flush holds (fr_flush_fd does). With stream=1:
 * the stream's end is written (as fr_flush does), then the whole streamed file copied. */
FR_HIDDEN int fr_write_trace_fd(int fd);

/* Stopping from a signal handler (lifecycle.c, for crash_dump.c): 0 when the caller owns
 * the stop (FINALIZING) and must end it with fr_lifecycle_dump_done(path or NULL). */
FR_HIDDEN int fr_lifecycle_stop_for_dump(void);
FR_HIDDEN void fr_lifecycle_dump_done(const char *written);

/* Totals over every thread (metadata.c): exact once finalized. */
FR_HIDDEN void fr_meta_totals(uint64_t *written, uint64_t *dropped,
                              uint64_t *below, uint32_t *threads);
/* The session's drops by cause (enum fr_drop_cause). */
FR_HIDDEN void fr_meta_drop_causes(uint64_t cause[FR_DROP_NCAUSES]);

/* fork child: resets the lifecycle (lock, flush flag, unfinished INITIALIZING or
 * FINALIZING states); returns the state the child continues in (lifecycle.c). */
FR_HIDDEN fr_state fr_lifecycle_fork_child(void);

#endif
