/*
 * session.h - the one state of the current recorder session that the core's files share:
 * its options, pid, output path, the registry lock and the process facts, in one struct
 * (session.c). lifecycle.c fills it at init, fork.c in a fork child; the writers read it.
 */
#ifndef FLIGHTREC_SESSION_H
#define FLIGHTREC_SESSION_H

#include <pthread.h>
#include <stdint.h>
#include "core/options.h"
#include "core/visibility.h"

/* Process facts for FR_TE_PROCESS, read at init (process_info.c), so a crash-time writer
 * needs no I/O beyond the trace file itself. */
struct fr_process_info {
    uint32_t pid, ppid;
    uint16_t name_len, exe_len, cmdline_len;
    char name[16];
    char exe[1024];
    char cmdline[4096];
};

struct fr_session {
    struct fr_options opts;                  /* options of the current session */
    int32_t pid;                             /* getpid() at init / in a fork child */
    char output_path[FR_OPTIONS_PATH_MAX];   /* output with %p expanded */
    /* Serialises thread registration bookkeeping that is not lock-free (thread exit,
     * finalize's snapshot, reset, flush, fork). Never taken on a record path. */
    pthread_mutex_t registry_lock;
    struct fr_process_info process;
    /* The session's files are written in compiler-rt's FDR layout (xray_layout.c): set
     * by xray-fdr's init after fr_init, cleared by every fr_init. */
    int xray_layout;
};

extern FR_HIDDEN struct fr_session fr_session;

/* Whether the session's files are written in compiler-rt's FDR layout (xray_layout.h). */
FR_HIDDEN void fr_xray_layout_set(int on);
FR_HIDDEN int fr_xray_layout_on(void);

#endif
