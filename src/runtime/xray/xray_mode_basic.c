/*
 * xray_mode_basic.c - mode "xray-basic", compiler-rt's naive log: each thread keeps
 * fixed-size 32-byte records (llvm-xray's "basic mode" log, version 3: XRayRecord with
 * tsc, cpu, tid and pid; an ARG_PAYLOAD record after a log-args entry) in a buffer of
 * thread_buffer_size records, written to the log file whenever it fills, when the thread
 * exits, and at process exit. The file (compiler-rt's name, xray_logfile.c) is created at
 * the first record, with its 32-byte header.
 *
 * Options (compiler-rt's): XRAY_BASIC_OPTIONS then the init string;
 * func_duration_threshold_us (default 5): an exit that closes a call shorter than this,
 * on the same CPU, removes the call's entry record instead of writing an exit;
 * max_stack_depth (default 64): deeper calls are not recorded; thread_buffer_size
 * (default 1024 records). When XRAY_BASIC_OPTIONS is empty, XRAY_OPTIONS' deprecated
 * xray_naive_log_* flags give the three values, as in compiler-rt.
 *
 * Timestamps: the TSC where it is invariant (the header's cycle frequency is
 * flightrec's calibration; the CPU is the one the record was made on), else
 * CLOCK_REALTIME nanoseconds with frequency 1e9 and CPU 0, which is what compiler-rt
 * writes on machines where it cannot use the TSC.
 *
 * Hot path: no lock, no system call except when a thread's buffer is full (one write,
 * under the file's lock, as compiler-rt); a thread's buffers are allocated (mmap) at its
 * first record. A recursion guard drops records of a handler re-entered by a signal.
 * fork: the child keeps the parent's log file and its own call stack, and starts with an
 * empty buffer (the parent's records are the parent's to write); records carry the pid.
 * Differences with compiler-rt (docs/XRAY_COMPAT.md): at exit the buffers of every
 * thread still running are written (compiler-rt writes the exiting thread's only, and
 * only when the mode was started by XRAY_OPTIONS); a failed write is counted and
 * reported.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"
#include "flightrec.h"
#include "core/clock.h"
#include "core/cpu_id.h"
#include "core/fd_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RECORD_SIZE 32

struct stack_entry {
    int32_t id;
    uint16_t type;
    uint8_t cpu;
    uint8_t pad;
    uint64_t tsc;
};

struct thread_log {
    struct thread_log *next;       /* every thread that logged (exit and fork walk it) */
    uint8_t *records;
    size_t capacity;               /* records */
    size_t used;                   /* records */
    struct stack_entry *stack;
    size_t stack_size;
    size_t depth;
    int alive;
    int guard;
    uint32_t tid;
};

static __thread struct thread_log *self;
static struct thread_log *starter;   /* the thread that started the mode from XRAY_OPTIONS */
static __thread int self_guard;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;   /* file writes, list */
static struct thread_log *threads;
static int log_fd = -1;            /* kept open for the run, checked before each write */
static dev_t log_dev;              /* ...against the file's device and inode (fd_guard.h) */
static ino_t log_ino;
static char log_path[XR_BASE_MAX + 512];
static int log_failed;            /* the file could not be created: log nothing */
static int initialized;           /* compiler-rt's BasicInitialized */
static int ever_initialized;
static pthread_key_t exit_key;
static uint64_t threshold_ticks;   /* in clock ticks */
static int opt_threshold_us = 5, opt_max_depth = 64, opt_buffer_size = 1024;
static int cfg_max_depth, cfg_buffer_size;
static uint64_t write_errors;

static int use_tsc;
static uint64_t ticks_per_second = 1000000000u;
static uint32_t cached_pid;   /* getpid() is a system call; fork updates it */

static uint64_t now(uint8_t *cpu)
{
    if (use_tsc) {
        *cpu = (uint8_t)fr_cpu_raw();
        return fr_arch_rdtsc();
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *cpu = 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* flightrec's clock: calibrated here unless the recorder runs (it calibrated it then;
 * recalibrating would move its time base). */
static void choose_clock(void)
{
    if (fr_get_state() == FR_STATE_UNINITIALIZED) {
        fr_cpu_init();
        fr_clock_init(FR_CLOCK_AUTO);
    }
    use_tsc = fr_clock_use_tsc;
    ticks_per_second = fr_clock.ticks_per_second;
}

/* log_fd, if it still leads to the log file: a program that closed every descriptor
 * it did not open (a daemon's start-up) may have its own file at that number now, which
 * a write would corrupt (fd_guard.h). Then the file is opened again by its path (no link
 * followed, the same inode), or, if it cannot be, nothing more is logged. Called with
 * log_lock held. */
static int checked_log_fd(void)
{
    if (log_fd < 0 || fr_fd_is(log_fd, log_dev, log_ino))
        return log_fd;
    int fd = fr_fd_reopen(log_path, O_WRONLY | O_APPEND, log_dev, log_ino);
    if (fd < 0) {
        log_fd = -1;
        log_failed = 1;
        xr_report("flightrec: xray-basic: the program closed the log file's descriptor and "
                  "%s cannot be opened again; not logging events.\n", log_path);
        return -1;
    }
    log_fd = fr_fd_move_high(fd);
    return log_fd;
}

static void write_all(const uint8_t *p, size_t len)
{
    if (checked_log_fd() < 0) {
        write_errors++;
        return;
    }
    while (len) {
        ssize_t n = write(log_fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            write_errors++;
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

/* Creates the file and writes its header, once (called with log_lock held). */
static int open_log_locked(void)
{
    if (log_fd >= 0)
        return 0;
    if (log_failed)
        return -1;
    log_fd = xr_open_logfile(log_path, sizeof log_path);
    if (log_fd >= 0)   /* kept above the program's own open()s (fd_guard.h) */
        log_fd = fr_fd_keep(log_fd, &log_dev, &log_ino);
    if (log_fd < 0) {
        log_failed = 1;
        return -1;
    }
    uint8_t header[32] = {0};
    uint16_t version = 3, type = 0;   /* NAIVE_LOG */
    uint64_t frequency = ticks_per_second;
    memcpy(header, &version, 2);
    memcpy(header + 2, &type, 2);
    header[4] = 0x3;                  /* constant and nonstop TSC bits, as compiler-rt */
    memcpy(header + 8, &frequency, 8);
    write_all(header, sizeof header);
    return 0;
}

static void write_thread_locked(struct thread_log *t)
{
    if (t->used && open_log_locked() == 0)
        write_all(t->records, t->used * RECORD_SIZE);
    t->used = 0;
}

/* A thread's end (its exit, or the process's for the thread that started the mode), with
 * compiler-rt's messages. */
static void retire(struct thread_log *t)
{
    pthread_mutex_lock(&log_lock);
    size_t used = t->used;
    if (used && t->alive)
        write_thread_locked(t);
    t->alive = 0;
    pthread_mutex_unlock(&log_lock);
    if (!used && xr_verbose())
        xr_report("Skipping buffer for TID: %u; Offset = %zu\n", t->tid, used);
    if (xr_verbose())
        xr_report("Cleaned up log for TID: %u\n", t->tid);
}

static void thread_exit(void *p)
{
    retire(p);
}

/* The calling thread's log, made at its first record (NULL when it cannot be). */
static struct thread_log *thread_log(void)
{
    struct thread_log *t = self;
    if (t)
        return t;
    if (cfg_buffer_size <= 0) {
        if (xr_verbose())
            xr_report("Not initializing TLD since ThreadBufferSize == 0.\n");
        return NULL;
    }
    size_t rec_bytes = (size_t)cfg_buffer_size * RECORD_SIZE;
    size_t stack_bytes = (size_t)(cfg_max_depth > 0 ? cfg_max_depth : 0) * sizeof(struct stack_entry);
    size_t total = sizeof *t + rec_bytes + stack_bytes;
    void *mem = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    t = mem;
    t->records = (uint8_t *)mem + sizeof *t;
    t->capacity = (size_t)cfg_buffer_size;
    t->stack = cfg_max_depth > 0 ? (struct stack_entry *)(t->records + rec_bytes) : NULL;
    t->stack_size = cfg_max_depth > 0 ? (size_t)cfg_max_depth : 0;
    if (!t->stack && xr_verbose())
        xr_report("Not initializing the ShadowStack since MaxStackDepth == 0.\n");
    t->tid = (uint32_t)gettid();
    t->alive = 1;
    pthread_mutex_lock(&log_lock);
    t->next = threads;
    threads = t;
    open_log_locked();   /* as compiler-rt: the log exists once a thread has a buffer */
    pthread_mutex_unlock(&log_lock);
    pthread_setspecific(exit_key, t);
    self = t;
    return t;
}

static void put_record(struct thread_log *t, const uint8_t rec[RECORD_SIZE])
{
    memcpy(t->records + t->used * RECORD_SIZE, rec, RECORD_SIZE);
    if (++t->used == t->capacity) {
        pthread_mutex_lock(&log_lock);
        write_thread_locked(t);
        pthread_mutex_unlock(&log_lock);
        t->depth = 0;   /* as compiler-rt: a written buffer can no longer be rewound */
    }
}

static void log_function(struct thread_log *t, int32_t id, enum XRayEntryType type)
{
    uint8_t cpu;
    uint64_t tsc = now(&cpu);
    switch (type) {
    case ENTRY:
    case LOG_ARGS_ENTRY:
        if (t->depth++ >= t->stack_size)
            return;
        t->stack[t->depth - 1] = (struct stack_entry){id, (uint16_t)type, cpu, 0, tsc};
        break;
    case EXIT:
    case TAIL:
        if (t->depth == 0)
            break;
        if (--t->depth >= t->stack_size)
            return;
        {
            struct stack_entry top = t->stack[t->depth];
            if (top.id == id && top.cpu == cpu && top.tsc < tsc && tsc - top.tsc < threshold_ticks) {
                /* A short call: take back its entry (and argument) record. */
                size_t back = top.type == ENTRY ? 1 : 2;
                t->used = t->used >= back ? t->used - back : 0;
                return;
            }
        }
        break;
    default:
        return;
    }
    uint8_t rec[RECORD_SIZE] = {0};
    uint16_t record_type = 0;   /* NORMAL */
    uint32_t tid = t->tid, pid = cached_pid;
    memcpy(rec, &record_type, 2);
    rec[2] = cpu;
    rec[3] = (uint8_t)type;
    memcpy(rec + 4, &id, 4);
    memcpy(rec + 8, &tsc, 8);
    memcpy(rec + 16, &tid, 4);
    memcpy(rec + 20, &pid, 4);
    put_record(t, rec);
}

static void basic_handle_arg0(int32_t id, enum XRayEntryType type)
{
    if (self_guard)   /* compiler-rt's handlers log until replaced, finalize or not */
        return;
    self_guard = 1;
    struct thread_log *t = thread_log();
    if (t && !log_failed)
        log_function(t, id, type);
    self_guard = 0;
}

static void basic_handle_arg1(int32_t id, enum XRayEntryType type, uint64_t arg)
{
    if (self_guard)   /* compiler-rt's handlers log until replaced, finalize or not */
        return;
    self_guard = 1;
    struct thread_log *t = thread_log();
    if (t && !log_failed) {
        /* The entry and its argument must be consecutive: make room for both first. */
        if (t->used + 2 > t->capacity) {
            pthread_mutex_lock(&log_lock);
            write_thread_locked(t);
            pthread_mutex_unlock(&log_lock);
            t->depth = 0;
        }
        log_function(t, id, type);
        uint8_t rec[RECORD_SIZE] = {0};
        uint16_t record_type = 1;   /* ARG_PAYLOAD */
        uint32_t tid = t->tid, pid = cached_pid;
        memcpy(rec, &record_type, 2);
        memcpy(rec + 4, &id, 4);
        memcpy(rec + 8, &tid, 4);
        memcpy(rec + 12, &pid, 4);
        memcpy(rec + 16, &arg, 8);
        put_record(t, rec);
    }
    self_guard = 0;
}

/* ---------------------------------------------------------------- fork, exit */

static void fork_prepare(void) { pthread_mutex_lock(&log_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&log_lock); }
static void fork_child(void)
{
    /* Only the forking thread lives on; its records so far are the parent's to write. */
    for (struct thread_log *t = threads; t; t = t->next) {
        if (t != self)
            t->alive = 0;
        t->used = 0;
    }
    if (self)
        self->tid = (uint32_t)gettid();
    cached_pid = (uint32_t)getpid();
    if (starter != self)
        starter = NULL;
    pthread_mutex_unlock(&log_lock);
}

void xr_basic_start_thread(void)
{
    starter = thread_log();
}

void xr_basic_exit_flush(void)
{
    if (!__atomic_load_n(&ever_initialized, __ATOMIC_ACQUIRE))
        return;
    if (starter && starter->alive)
        retire(starter);
    pthread_mutex_lock(&log_lock);
    for (struct thread_log *t = threads; t; t = t->next)
        if (t->alive)
            write_thread_locked(t);
    if (checked_log_fd() >= 0)
        fsync(log_fd);
    uint64_t errors = write_errors;
    pthread_mutex_unlock(&log_lock);
    if (errors)
        xr_report("flightrec: xray-basic: %llu writes to the log failed; records lost\n",
                  (unsigned long long)errors);
}

static void setup_once(void)
{
    pthread_key_create(&exit_key, thread_exit);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    atexit(xr_basic_exit_flush);
    cached_pid = (uint32_t)getpid();
    choose_clock();
}

/* ---------------------------------------------------------------- the mode */

static enum XRayLogInitStatus basic_init(size_t buffer_size, size_t max_buffers, void *options,
                                         size_t options_size)
{
    (void)buffer_size;
    (void)max_buffers;
    (void)options_size;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&initialized, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        if (xr_verbose())
            xr_report("Basic logging already initialized.\n");
        return XRAY_LOG_INITIALIZED;
    }
    xr_flags_init();
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_once);

    int threshold = 5, depth = 64, size = 1024;
    const struct xr_flag table[] = {
        {"func_duration_threshold_us", XR_FLAG_INT, &threshold, 0},
        {"max_stack_depth", XR_FLAG_INT, &depth, 0},
        {"thread_buffer_size", XR_FLAG_INT, &size, 0},
    };
    const size_t n = sizeof table / sizeof table[0];
    const char *env = secure_getenv("XRAY_BASIC_OPTIONS");
    xr_parse_flags(env, "XRAY_BASIC_OPTIONS", table, n, NULL, NULL, 0);
    if (!env || !*env) {
        threshold = xr_flags.xray_naive_log_func_duration_threshold_us;
        depth = xr_flags.xray_naive_log_max_stack_depth;
        size = xr_flags.xray_naive_log_thread_buffer_size;
    }
    if (options && xr_parse_flags((const char *)options, "xray-basic options", table, n, NULL,
                                  NULL, 0) < 0) {
        __atomic_store_n(&initialized, 0, __ATOMIC_RELEASE);
        return XRAY_LOG_UNINITIALIZED;
    }
    opt_threshold_us = threshold;
    opt_max_depth = depth;
    opt_buffer_size = size;
    /* Threads already logging keep their buffers; new ones use the new sizes. */
    cfg_max_depth = opt_max_depth;
    cfg_buffer_size = opt_buffer_size;
    threshold_ticks = opt_threshold_us > 0
                       ? (uint64_t)((unsigned __int128)opt_threshold_us * ticks_per_second / 1000000u)
                       : 0;
    __atomic_store_n(&ever_initialized, 1, __ATOMIC_RELEASE);
    __xray_set_handler_arg1(basic_handle_arg1);
    __xray_set_handler(basic_handle_arg0);
    /* compiler-rt's basic mode records no events. */
    __xray_remove_customevent_handler();
    __xray_remove_typedevent_handler();
    return XRAY_LOG_INITIALIZED;
}

static enum XRayLogInitStatus basic_finalize(void)
{
    int expected = 1;
    if (!__atomic_compare_exchange_n(&initialized, &expected, 0, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE) && xr_verbose())
        xr_report("Basic logging already finalized.\n");
    return XRAY_LOG_FINALIZED;
}

/* As compiler-rt: buffers are written when full, at thread exit and at exit. */
static enum XRayLogFlushStatus basic_flush(void)
{
    return XRAY_LOG_FLUSHED;
}

static void basic_handle_empty(int32_t id, enum XRayEntryType type)
{
    (void)id;
    (void)type;
}

FR_HIDDEN const struct XRayLogImpl xr_basic_impl = {basic_init, basic_finalize,
                                                    basic_handle_empty, basic_flush};
