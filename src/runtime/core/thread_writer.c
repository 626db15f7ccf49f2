/*
 * thread_writer.c - the record paths (fr_record_* of recorder.h and the public fr_log_*),
 * the slow path that changes buffers, thread registration and thread exit.
 *
 * Which buffer a thread writes next is the pool's policy (buffer_pool.c fr_pool_next,
 * documented in include/flightrec.h); the protocol between writers, thread exit and the
 * stopper is docs/BUFFERS.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "flightrec.h"
#include "core/thread_writer.h"
#include "core/clock.h"
#include "core/cpu_id.h"
#include "core/session.h"
#include "core/text_out.h"
#include "core/buffer_records.h"
#include "core/signal_stack.h"
#include "core/stream_doorbell.h"
#include "core/recorder.h"
#include "core/buffer_pool.h"
#include "core/fast_record.h"
#include "core/sched_marks.h"

__thread struct fr_thread fr_tls __attribute__((tls_model("initial-exec"), aligned(FR_CACHE_LINE)));
/* Current recorder session number (incremented by each init, reset, and in a fork
 * child). While recording, fr_recording (recorder.h) holds the same number. */
static uint32_t session_number;
volatile int fr_recording;

static pthread_key_t exit_key;

/* What the architecture's fast path reads and writes (core/fast_record.h). */
_Static_assert(offsetof(struct fr_thread, pos) == FR_THREAD_OFF_POS, "fast path: pos");
_Static_assert(offsetof(struct fr_thread, end) == FR_THREAD_OFF_END, "fast path: end");
_Static_assert(offsetof(struct fr_thread, last_tsc) == FR_THREAD_OFF_LAST_TSC, "fast path: last_tsc");
_Static_assert(offsetof(struct fr_thread, cpu) == FR_THREAD_OFF_CPU, "fast path: cpu");
_Static_assert(offsetof(struct fr_thread, busy) == FR_THREAD_OFF_BUSY, "fast path: busy");
_Static_assert(offsetof(struct fr_thread, records) == FR_THREAD_OFF_RECORDS, "fast path: records");
_Static_assert(offsetof(struct fr_thread, fast_session) == FR_THREAD_OFF_FAST_SESSION,
               "fast path: fast_session");
_Static_assert(FR_FAST_MAX_FUNCTION_ID == FR_XRAY_MAX_FUNCTION_ID, "fast path: id range");

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RETRY_AFTER_DROPS 64

/* ------------------------------------------------------------------ record bytes */

static inline void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* ------------------------------------------------------------------ buffers */

static void drop(struct fr_thread *t, int cause, size_t bytes)
{
    t->dropped[cause]++;
    t->dropped_bytes += bytes;
    if (fr_pool.backed && t->slot >= 0) {
        /* A backing file outlives SIGKILL, the TLS does not: a thread without a buffer
         * (the pool full, the stream writer behind) may drop until it dies, and those
         * drops must be in what `flightrec recover` counts (its own slot: no one else
         * writes these two). A dropped record's path, not the record path. */
        struct fr_thread_desc *d = &fr_pool.threads[t->slot];
        __atomic_store_n(&d->dropped[cause], t->dropped[cause], __ATOMIC_RELAXED);
        __atomic_store_n(&d->bytes_dropped, t->dropped_bytes, __ATOMIC_RELAXED);
    }
}

static uint64_t used_of(const struct fr_thread *t)
{
    return t->hold.idx < 0 ? 0 : (uint64_t)(t->pos - fr_pool_buffer((uint32_t)t->hold.idx));
}

static void detach(struct fr_thread *t)
{
    t->hold.idx = -1;
    t->pos = t->end = NULL;
    t->records = 0;
    t->run_hdr = t->run_end = NULL;
}

/* A thread stopped inside fr_record_event_entry (a signal handler's dump interrupted it)
 * may have counted an entry in its run's size before advancing pos past it: the size is
 * set back to what lies before pos. Only for the thread itself (others finished their
 * record). */
static void close_own_run(struct fr_thread *t)
{
    if (t->run_hdr && t->run_end == t->pos) {
        fr_md_set_event_size(t->run_hdr, (int32_t)(t->pos - (t->run_hdr + FR_XRAY_METADATA_SIZE)));
    }
}

static void start_buffer(struct fr_thread *t, uint64_t tsc, uint32_t cpu)
{
    uint8_t *start = fr_pool_buffer((uint32_t)t->hold.idx);
    fr_buffer_put_preamble(start, t->tid, fr_cpu_number(cpu), tsc);
    t->pos = start + FR_BUFFER_PREAMBLE;
    /* compiler-rt's FDR mode moves to a new buffer when a function record and a metadata
     * record no longer both fit: its buffers end 16 bytes short. An xray-fdr session's
     * buffers do the same, so that they fill as compiler-rt's (xray_layout.h). */
    t->end = start + fr_pool_capacity((uint32_t)t->hold.idx) -
             (fr_xray_layout_on() ? FR_XRAY_METADATA_SIZE : 0);
    t->last_tsc = tsc;
    t->cpu = cpu;
    t->records = 0;
    t->enter_run = 0;
    t->run_hdr = t->run_end = NULL;
}

static void publish_counters(struct fr_thread *t, struct fr_thread_desc *d);

/* Leaves the current buffer and starts the one the pool's policy gives; 0 or -1 (no
 * buffer: caller drops). A thread's first buffer is a small one when the record that
 * asks (`need` bytes, a metadata record besides) fits in it: a short thread then costs
 * an eighth of a buffer. */
static int switch_buffer(struct fr_thread *t, uint64_t tsc, uint32_t cpu, size_t need)
{
    int left = t->hold.idx >= 0;
    /* (not in an xray-fdr session: its buffers are compiler-rt's, all of one size) */
    int small = !t->had_buffer && fr_pool.small_size && !fr_xray_layout_on() &&
                need + FR_XRAY_METADATA_SIZE + FR_BUFFER_PREAMBLE <= fr_pool.small_size;
    int r = fr_pool_next((uint32_t)t->slot, &t->hold, used_of(t), t->records, small);
    if (fr_pool.stream && left)
        fr_stream_kick();   /* a FULL buffer for the stream writer */
    if (fr_pool.backed) {
        /* A backing file outlives SIGKILL, the TLS does not: the counters and the name
         * as of this buffer change are what `flightrec recover` will know. */
        struct fr_thread_desc *d = &fr_pool.threads[t->slot];
        publish_counters(t, d);
        prctl(PR_GET_NAME, d->name, 0, 0, 0);
        d->name[15] = 0;
    }
    if (r < 0) {
        detach(t);
        /* stream=1: the writer gives buffers back as it writes them: ask again later */
        if (fr_pool.policy == FR_POLICY_DISCARD && !fr_pool.stream)
            t->exhausted = 1;
        else
            t->retry_countdown = RETRY_AFTER_DROPS;
        return -1;
    }
    t->had_buffer = 1;
    start_buffer(t, tsc, cpu);
    return 0;
}

/* ------------------------------------------------------------------ registration */

/* Threads between "saw recording" and "visible in a slot" (fr_writer_stop_threads waits
 * for them), and threads inside their exit work (stop and reset wait for them). */
static uint32_t registering, exiting;

#define KEPT(f) (offsetof(struct fr_thread, f) >= offsetof(struct fr_thread, key_set))
_Static_assert(offsetof(struct fr_thread, session) == offsetof(struct fr_thread, busy) + 4 &&
               !KEPT(run_tsc) && KEPT(exited) && KEPT(call_depth) && KEPT(depth_session) &&
               KEPT(nested_session) && KEPT(nested_drops),
               "reset_thread_state clears around busy and up to key_set");
#undef KEPT

/* Forgets the state of an earlier session, in place. The thread is inside its first
 * record of this session (busy set), and a signal handler may land anywhere in here: it
 * reads busy, which must stay 1 throughout (a handler that saw 0 registered the thread
 * into the state being wiped: docs/BUFFERS.md point 4), and counts its drop in nested_*.
 * So busy and the fields from key_set on are never written. */
static void reset_thread_state(struct fr_thread *t, uint32_t session)
{
    memset(t, 0, offsetof(struct fr_thread, busy));
    memset(&t->session, 0, offsetof(struct fr_thread, key_set) - offsetof(struct fr_thread, session));
    t->hold.idx = -1;
    t->slot = -1;
    t->session = session;
    t->threshold_ticks = fr_session.opts.threshold_us ? fr_clock_us_to_ticks(fr_session.opts.threshold_us) : 0;
    t->rewind_enabled = t->threshold_ticks != 0;
    /* The fast path writes only what fr_record_function's own fast case would: TSC
     * records, the CPU word of fr_cpu_fast_offset (rseq's, or a 0 without rseq, as
     * fr_cpu_raw), no rewind (fast_record.h), no max_depth count (the C path keeps it). */
    /* (sched=1: every record goes the C path, which writes the scheduling marks first) */
    t->fast_session = fr_clock_use_tsc && !t->rewind_enabled && !fr_session.opts.sched &&
                      !fr_session.opts.max_depth
                          ? session : 0;
}

/* Claims a thread slot (lock-free). 0; -1 when the recorder stopped meanwhile; -2 when
 * every slot is taken. */
static int register_thread(struct fr_thread *t)
{
    /* Dekker with fr_writer_stop_threads: announce, then look at fr_recording again.
     * Either the stopper waits for us to become visible, or we see it stopped. */
    __atomic_fetch_add(&registering, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&fr_recording, __ATOMIC_SEQ_CST) != (int)t->session) {
        __atomic_fetch_sub(&registering, 1, __ATOMIC_RELEASE);
        return -1;
    }
    if (!t->tid)
        t->tid = (int32_t)gettid();
    int slot = fr_pool_claim_slot(t->tid, (uint64_t)pthread_self());
    if (slot < 0) {
        __atomic_fetch_sub(&registering, 1, __ATOMIC_RELEASE);
        return -2;
    }
    t->slot = slot;
    __atomic_store_n(&fr_pool.threads[slot].live, t, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&registering, 1, __ATOMIC_RELEASE);
    if (!t->key_set) {
        pthread_setspecific(exit_key, t);
        t->key_set = 1;
        fr_signals_thread_start(); /* crash_dump: this thread's alternate signal stack */
    }
    if (fr_session.opts.sched)
        fr_sched_thread_start();
    return 0;
}

/* Copies t's counters into its slot's descriptor (t quiescent, slot detached from t). */
static void publish_counters(struct fr_thread *t, struct fr_thread_desc *d)
{
    for (int c = 0; c < FR_DROP_NCAUSES; c++)
        __atomic_store_n(&d->dropped[c], fr_thread_dropped(t, c), __ATOMIC_RELAXED);
    __atomic_store_n(&d->bytes_dropped, t->dropped_bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&d->calls_below_threshold, t->below_threshold, __ATOMIC_RELAXED);
}

/* Waits until no reader holds a pin on the slot (they read our TLS). */
static void wait_unpinned(struct fr_thread_desc *d)
{
    while (__atomic_load_n(&d->readers, __ATOMIC_SEQ_CST))
        sched_yield();
}

/* Thread exit (pthread key destructor): hand the buffers back with their data. No lock:
 * an exiting thread never waits for a flush. */
static void thread_exit(void *arg)
{
    struct fr_thread *t = arg;
    __atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
    t->exited = 1;
    __atomic_fetch_add(&exiting, 1, __ATOMIC_SEQ_CST);
    /* fr_reset bumps the session before it waits for `exiting`: a state of another
     * session must not touch the pool (it may be unmapped). */
    if (t->slot >= 0 && t->session == __atomic_load_n(&session_number, __ATOMIC_SEQ_CST) && fr_pool.map) {
        struct fr_thread_desc *d = &fr_pool.threads[t->slot];
        struct fr_thread *me = t;
        /* Whoever takes `live` away (we, or a stopper) publishes this thread. */
        if (__atomic_compare_exchange_n(&d->live, &me, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
            fr_pool_leave((uint32_t)t->slot, &t->hold, used_of(t), t->records, 1);
            publish_counters(t, d);
            prctl(PR_GET_NAME, d->name, 0, 0, 0);
            d->name[15] = 0;
            fr_pool_retire_slot((uint32_t)t->slot);
            if (fr_pool.stream)
                fr_stream_kick();
        }
        wait_unpinned(d);
    }
    detach(t);
    t->slot = -1;
    fr_sched_thread_end();
    __atomic_fetch_sub(&exiting, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

int fr_writer_setup_key(void)
{
    static int err = -1;
    if (err < 0)
        err = pthread_key_create(&exit_key, thread_exit);
    return err;
}

/* The key at load time, before the program makes its own: on glibc a key below 32
 * (PTHREAD_KEY_2NDLEVEL_SIZE) is set by a plain store into the thread's own array, so
 * the registration of a thread whose first record is in a signal handler allocates
 * nothing. */
__attribute__((constructor)) static void create_key_early(void)
{
    fr_writer_setup_key();
}

uint32_t fr_writer_new_session(void)
{
    uint32_t s = __atomic_load_n(&session_number, __ATOMIC_RELAXED) + 1;
    if (s == 0)
        s = 1;
    __atomic_store_n(&session_number, s, __ATOMIC_SEQ_CST);
    return s;
}

/* /proc/self/task/TID/comm into name (async-signal-safe; pthread_getname_np is not). */
static void read_thread_name(int32_t tid, char name[16])
{
    char path[64];
    size_t len = 0;
    fr_fmt_str(path, sizeof path, &len, "/proc/self/task/");
    fr_fmt_u64(path, sizeof path, &len, (uint64_t)(uint32_t)tid);
    fr_fmt_str(path, sizeof path, &len, "/comm");
    path[len] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[17];
    ssize_t n = read(fd, buf, 16);
    close(fd);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
        n--;
    if (n <= 0)
        return;
    memset(name, 0, 16);
    memcpy(name, buf, (size_t)(n < 15 ? n : 15));
}

static void wait_zero(uint32_t *counter, uint32_t max_yields)
{
    for (uint32_t i = 0; __atomic_load_n(counter, __ATOMIC_ACQUIRE) && i < max_yields; i++)
        sched_yield();
}

uint32_t fr_writer_stop_threads(uint32_t max_yields)
{
    uint32_t left = 0;
    wait_zero(&registering, max_yields);
    uint32_t nt = __atomic_load_n(&fr_pool.nthreads, __ATOMIC_SEQ_CST);
    for (uint32_t s = 0; s < nt && s < FR_MAX_THREADS; s++) {
        struct fr_thread_desc *d = &fr_pool.threads[s];
        struct fr_thread *t = fr_pool_pin(s);
        if (!t)
            continue;
        uint32_t i = 0;
        /* Our own thread may be inside a record (a signal handler interrupted it): its
         * pos is the end of whole records, and it cannot move while we run. */
        while (t != &fr_tls && __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE) && i++ < max_yields)
            sched_yield();
        struct fr_thread *expect = t;
        if (__atomic_compare_exchange_n(&d->live, &expect, NULL, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
            if (t != &fr_tls && __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) {
                /* Still inside a record: never read or change its state. Its current
                 * buffer stays CURRENT (not written), its records counted lost. */
                __atomic_fetch_add(&fr_pool.stuck, 1, __ATOMIC_SEQ_CST);
                __atomic_fetch_add(&d->dropped[FR_DROP_UNFINISHED],
                                   __atomic_load_n(&t->records, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
                left++;
            } else {
                if (t == &fr_tls)
                    close_own_run(t);
                fr_pool_leave(s, &t->hold, used_of(t), t->records, 0);
                publish_counters(t, d);
                detach(t);
            }
            read_thread_name(d->tid, d->name);
        }
        fr_pool_unpin(s);
    }
    wait_zero(&exiting, max_yields);
    return left;
}

void fr_writer_wait_exits(void)
{
    while (__atomic_load_n(&exiting, __ATOMIC_SEQ_CST))
        sched_yield();
}

void fr_writer_forget_self(void)
{
    struct fr_thread *t = &fr_tls;
    detach(t);
    t->slot = -1;
    t->session = 0; /* stale: the next record registers in the child's session */
    t->fast_session = 0;
}

void fr_writer_after_fork(void)
{
    registering = 0;
    exiting = 0;
    fr_sched_thread_end();   /* the ring was the parent thread's: the child opens its own */
    fr_writer_forget_self();
}

/* ------------------------------------------------------------------ slow path */

/* Why a record found no buffer: the pool is full (discard policy), or, when streaming,
 * every buffer is waiting for the stream writer. */
static int no_buffer_cause(void)
{
    return fr_pool.stream && fr_pool.policy == FR_POLICY_DISCARD ? FR_DROP_STREAM_BEHIND
                                                                  : FR_DROP_FULL;
}

/* Makes the bytes before P part of the thread's records: a snapshot taken by another
 * thread copies up to pos (fr_writer_position loads it with acquire). A release store: a
 * plain mov on x86-64, whose stores stay in order anyway; on aarch64 (stlr) it keeps the
 * record's bytes from becoming visible after pos. */
static inline void publish_pos(struct fr_thread *t, uint8_t *p)
{
    __atomic_store_n(&t->pos, p, __ATOMIC_RELEASE);
}

/* Makes room for a record of `need` bytes at (tsc, cpu): registers the thread, starts
 * a buffer, writes NewCPUId or TSCWrap as needed. `max_delta` is the largest delta the
 * record can carry; `rec` is fr_recording as read by guard_enter. Returns where to
 * write, or NULL if the record is dropped (counted). */
static uint8_t *reserve_slow(struct fr_thread *t, uint64_t tsc, uint32_t cpu, size_t need,
                             uint64_t max_delta, uint32_t rec)
{
    if (UNLIKELY(t->session != rec))
        reset_thread_state(t, rec);   /* a state of an earlier session: forget it */
    if (UNLIKELY(t->exited)) {
        fr_writer_drop_unowned(FR_DROP_AFTER_EXIT);
        return NULL;
    }
    if (t->slot < 0) {
        if (t->slot == -2 && t->retry_countdown && --t->retry_countdown) {
            fr_writer_drop_unowned(FR_DROP_THREAD_LIMIT);
            return NULL;
        }
        int r = register_thread(t);
        if (r < 0) {
            if (r == -2) {
                t->slot = -2;   /* every slot taken: retry after a while */
                t->retry_countdown = RETRY_AFTER_DROPS;
                fr_writer_drop_unowned(FR_DROP_THREAD_LIMIT);
            }
            return NULL;
        }
    }
    if (UNLIKELY(need > fr_pool.buffer_size - FR_BUFFER_PREAMBLE)) {
        drop(t, FR_DROP_TOO_LARGE, need);
        return NULL;
    }
    if (UNLIKELY(t->exhausted)) {
        drop(t, no_buffer_cause(), need);
        return NULL;
    }
    if (t->hold.idx < 0) {
        if (t->retry_countdown && --t->retry_countdown) {
            drop(t, no_buffer_cause(), need);
            return NULL;
        }
        if (switch_buffer(t, tsc, cpu, need) < 0) {
            drop(t, no_buffer_cause(), need);
            return NULL;
        }
    }
    size_t extra = (cpu != t->cpu || tsc - t->last_tsc > max_delta) ? FR_XRAY_METADATA_SIZE : 0;
    if ((intptr_t)((uintptr_t)t->end - (uintptr_t)t->pos) < (intptr_t)(need + extra)) {
        if (switch_buffer(t, tsc, cpu, need) < 0) {
            drop(t, no_buffer_cause(), need);
            return NULL;
        }
        return t->pos;
    }
    if (cpu != t->cpu) {
        fr_md_put_new_cpu_id(t->pos, (struct fr_md_new_cpu_id){ fr_cpu_number(cpu),
                                                                tsc - fr_clock.base_tsc });
        publish_pos(t, t->pos + FR_XRAY_METADATA_SIZE);
        t->cpu = cpu;
        t->last_tsc = tsc;
        t->enter_run = 0;
    } else if (tsc - t->last_tsc > max_delta) {
        fr_md_put_tsc_wrap(t->pos, (struct fr_md_tsc_wrap){ tsc - fr_clock.base_tsc });
        publish_pos(t, t->pos + FR_XRAY_METADATA_SIZE);
        t->last_tsc = tsc;
        t->enter_run = 0;
    }
    return t->pos;
}

/* Room for `need` bytes: inline check, else the slow path. */
static inline uint8_t *reserve(struct fr_thread *t, uint64_t tsc, uint32_t cpu, size_t need,
                               uint64_t max_delta, uint32_t rec)
{
    uint8_t *p = t->pos;
    if (LIKELY(rec == t->session && cpu == t->cpu && tsc - t->last_tsc <= max_delta &&
               (intptr_t)((uintptr_t)t->end - (uintptr_t)p) >= (intptr_t)need))
        return p;
    return reserve_slow(t, tsc, cpu, need, max_delta, rec);
}

/* A record dropped by a signal handler that interrupted one of this thread's: counted
 * in the session recording now (see nested_session). */
static __attribute__((noinline)) void count_nested(struct fr_thread *t)
{
    uint32_t rec = (uint32_t)__atomic_load_n(&fr_recording, __ATOMIC_RELAXED);
    uint64_t n = t->nested_session == rec ? t->nested_drops + 1 : 1;
    /* (relaxed stores: a snapshot reads them from another thread, fr_thread_dropped) */
    __atomic_store_n(&t->nested_drops, n, __ATOMIC_RELAXED);
    __atomic_store_n(&t->nested_session, rec, __ATOMIC_RELAXED);
}

/* Returns the session being recorded (fr_recording), or 0: do not record. */
static inline uint32_t guard_enter(struct fr_thread *t)
{
    if (UNLIKELY(t->busy)) {
        count_nested(t);
        return 0;
    }
    __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint32_t rec = (uint32_t)__atomic_load_n(&fr_recording, __ATOMIC_ACQUIRE);
    if (UNLIKELY(!rec))
        __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
    return rec;
}

static inline void guard_leave(struct fr_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* threshold_us: an exit right after its own enter, sooner than the threshold, removes
 * the enter instead of being written (the call leaves no record). Nested short calls
 * unwind one by one, as in compiler-rt's FDR mode. */
static inline int try_rewind(struct fr_thread *t, uint32_t id, uint64_t tsc)
{
    uint64_t w;   /* the previous record as FR_FN_RECORD_U64 stored it: word, delta */
    memcpy(&w, t->pos - FR_XRAY_FUNCTION_RECORD_SIZE, sizeof w);
    if ((uint32_t)w != fr_function_record_word(id, FR_FN_ENTER) ||
        tsc - t->last_tsc >= t->threshold_ticks)
        return 0;
    t->pos -= FR_XRAY_FUNCTION_RECORD_SIZE;
    memset(t->pos, 0, FR_XRAY_FUNCTION_RECORD_SIZE);   /* a backing file must not show the cancelled enter */
    t->last_tsc -= w >> 32;
    t->records--;
    t->enter_run--;
    t->below_threshold++;
    return 1;
}

/* Writes a function record at p (room already reserved) and advances the thread's
 * state. `run` is the count of rewindable enters before this record: the threshold
 * rewind may cancel an exit against them, and a record after a buffer or CPU change
 * starts a new run. */
static inline __attribute__((always_inline)) void
put_function(struct fr_thread *t, uint8_t *p, uint32_t id, unsigned kind, uint64_t tsc,
             uint32_t run)
{
    put_u64(p, FR_FN_RECORD_U64(id, kind, tsc - t->last_tsc));
    publish_pos(t, p + 8);   /* the record's bytes before pos, for a snapshot */
    t->last_tsc = tsc;
    t->records++;
    t->enter_run = kind == FR_FN_ENTER ? run + t->rewind_enabled : 0;
}

/* Function record through the slow path; also clears the guard (so that the hot path
 * reaches it by a tail call and needs no saved registers). */
static __attribute__((noinline)) void function_slow(uint32_t id, unsigned kind, uint64_t tsc,
                                                     uint32_t cpu, uint32_t rec)
{
    struct fr_thread *t = &fr_tls;
    uint8_t *p = reserve_slow(t, tsc, cpu, FR_XRAY_FUNCTION_RECORD_SIZE, UINT32_MAX, rec);
    if (p)
        put_function(t, p, id, kind, tsc, 0);
    guard_leave(t);
}

/* An exit that may cancel its short call (threshold_us); room is already checked. */
static __attribute__((noinline)) void function_exit_rewind(uint32_t id, unsigned kind, uint64_t tsc)
{
    struct fr_thread *t = &fr_tls;
    if (!try_rewind(t, id, tsc))
        put_function(t, t->pos, id, kind, tsc, 0);   /* an exit: ends the run */
    guard_leave(t);
}

/* Without a usable TSC: the same record with the CLOCK_MONOTONIC reading. */
static __attribute__((noinline)) void function_monotonic(uint32_t id, unsigned kind, uint32_t rec)
{
    struct fr_thread *t = &fr_tls;
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = reserve(t, tsc, cpu, FR_XRAY_FUNCTION_RECORD_SIZE, UINT32_MAX, rec);
    if (p) {
        if (kind != FR_FN_ENTER && t->enter_run && try_rewind(t, id, tsc)) {
            guard_leave(t);
            return;
        }
        put_function(t, p, id, kind, tsc, t->enter_run);
    }
    guard_leave(t);
}

/* ------------------------------------------------------------------ scheduling marks */

static void put_event(struct fr_thread *t, uint8_t *p, uint64_t tsc, int typed, uint16_t type,
                      const void *prefix, size_t prefix_len, const struct iovec *iov,
                      int iovcnt, size_t size);

/* Stretches off the CPU the kernel put in the thread's ring since its last record
 * (sched_marks.c), written before the record about to be made: each as an FR_TE_SCHED
 * at its switch in. The clocks are clamped so that time never goes back in the thread's
 * history (the conversion from CLOCK_MONOTONIC to ticks rounds). */
static __attribute__((noinline)) void sched_drain(struct fr_thread *t, uint32_t rec)
{
    if (!fr_sched_pending())
        return;
    struct fr_sched_mark m;
    while (fr_sched_next(&m)) {
        if (!fr_session.opts.sched)
            continue;   /* a ring left from an earlier session: emptied, not written */
        uint64_t now = fr_clock_now();
        uint32_t cpu = fr_cpu_raw();
        uint64_t in = fr_clock_mono_to_ticks(m.in_ns), out = fr_clock_mono_to_ticks(m.out_ns);
        if (in > now)
            in = now;
        if (t->session == rec && t->pos && (int64_t)(out - t->last_tsc) < 0)
            out = t->last_tsc;
        if ((int64_t)(in - out) < 0)
            out = in;
        struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = FR_TE_SCHED };
        struct fr_te_sched s = { .off_ticks = in - out, .flags = m.flags };
        struct iovec v = { &s, sizeof s };
        size_t size = sizeof e + sizeof s;
        uint8_t *p = reserve(t, in, cpu, FR_XRAY_METADATA_SIZE + size, INT32_MAX, rec);
        if (p)
            put_event(t, p, in, 0, 0, &e, sizeof e, &v, 1, size);
    }
}
#define SCHED_CHECK(t, rec)                                                     \
    do {                                                                        \
        if (UNLIKELY(fr_sched_ring != NULL))                                    \
            sched_drain((t), (rec));                                            \
    } while (0)

/* ------------------------------------------------------------------ record paths */

/* max_depth= (record --max-depth, uftrace -D): calls deeper than max_depth on their
 * thread leave no record, and are not drops. Every entry counts one level and every exit
 * (an unwound frame's too: the shadow stack emits those) gives it back, so the count
 * follows the program's stack; an exit with nothing open (its entry came before the
 * session) is recorded as ever. 1 when this record is too deep. */
static __attribute__((noinline)) int beyond_max_depth(struct fr_thread *t, int entry, uint32_t rec)
{
    if (t->depth_session != rec) {
        t->depth_session = rec;
        t->call_depth = 0;
    }
    if (entry)
        return ++t->call_depth > fr_session.opts.max_depth;
    if (t->call_depth == 0)
        return 0;
    return t->call_depth-- > fr_session.opts.max_depth;
}

void fr_record_function(uint32_t id, unsigned kind)
{
    struct fr_thread *t = &fr_tls;
    uint32_t rec = guard_enter(t);
    if (!rec)
        return;
    if (UNLIKELY(fr_session.opts.max_depth) && beyond_max_depth(t, kind == FR_FN_ENTER, rec))
        return guard_leave(t);
    id &= FR_XRAY_MAX_FUNCTION_ID;
    SCHED_CHECK(t, rec);
    if (UNLIKELY(!fr_clock_use_tsc))
        return function_monotonic(id, kind, rec);
    uint64_t tsc = fr_arch_rdtsc();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = t->pos;
    uint64_t delta = tsc - t->last_tsc;
    /* Fails closed: another session, or a detached state (end NULL, or pos past end
     * after a stale store) goes to the slow path. */
    if (UNLIKELY((cpu != t->cpu) | (delta > UINT32_MAX) | (rec != t->session) |
                 ((intptr_t)((uintptr_t)t->end - (uintptr_t)p) < 8)))
        return function_slow(id, kind, tsc, cpu, rec);
    if (UNLIKELY(kind != FR_FN_ENTER && t->enter_run))
        return function_exit_rewind(id, kind, tsc);
    put_function(t, p, id, kind, tsc, t->enter_run);
    guard_leave(t);
}

void fr_record_function_arg(uint32_t id, uint64_t arg)
{
    struct fr_thread *t = &fr_tls;
    uint32_t rec = guard_enter(t);
    if (!rec)
        return;
    SCHED_CHECK(t, rec);
    if (UNLIKELY(fr_session.opts.max_depth) && beyond_max_depth(t, 1, rec))
        return guard_leave(t);
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = reserve(t, tsc, cpu, FR_XRAY_ENTER_ARG_SIZE, UINT32_MAX, rec);
    if (p) {
        id &= FR_XRAY_MAX_FUNCTION_ID;
        put_u64(p, FR_FN_RECORD_U64(id, FR_FN_ENTER_ARG, tsc - t->last_tsc));
        fr_md_put_call_argument(p + FR_XRAY_FUNCTION_RECORD_SIZE, (struct fr_md_call_argument){ arg });
        publish_pos(t, p + FR_XRAY_ENTER_ARG_SIZE);
        t->last_tsc = tsc;
        t->records++;
        t->enter_run = 0;
    }
    guard_leave(t);
}

/* A record that will not be written, counted on the thread's slot (registering the
 * thread if it has none yet, so the count reaches the file). */
static __attribute__((noinline)) void drop_counted(struct fr_thread *t, uint32_t rec, int cause,
                                                    size_t bytes)
{
    if (t->session != rec)
        reset_thread_state(t, rec);
    if (t->exited) {
        fr_writer_drop_unowned(FR_DROP_AFTER_EXIT);
        return;
    }
    if (t->slot == -1) {
        int r = register_thread(t);
        if (r == -1)
            return;   /* recording stopped meanwhile: not asked for in this session */
        if (r == -2)
            t->slot = -2;
    }
    if (t->slot < 0)
        fr_writer_drop_unowned(FR_DROP_THREAD_LIMIT);
    else
        drop(t, cause, bytes);
}

/* Whether a program's event would be taken for one of our records by a reader: a typed
 * event in our type range (the legacy encoding), or a custom event that begins with our
 * envelope (fr_format.h). */
static int looks_like_ours(int typed, uint16_t type, const struct iovec *iov, int iovcnt)
{
    if (typed)
        return type >= FR_TE_FIRST && type <= FR_TE_LAST;
    uint8_t head[sizeof(struct fr_te_envelope)];
    size_t n = 0;
    for (int i = 0; i < iovcnt && n < sizeof head; i++) {
        size_t k = iov[i].iov_len < sizeof head - n ? iov[i].iov_len : sizeof head - n;
        memcpy(head + n, iov[i].iov_base, k);
        n += k;
    }
    return fr_te_enveloped_type(head, n) != 0;
}

/* Custom (kind 5) and typed (kind 8) events: a 16-byte header then the payload (`prefix`,
 * then the iovecs). Their delta is a signed 32-bit field, hence INT32_MAX. `ours`: the
 * runtime's own records; a program's events may not look like them. */
static void record_event(int typed, uint16_t type, const void *prefix, size_t prefix_len,
                         const struct iovec *iov, int iovcnt, int ours)
{
    struct fr_thread *t = &fr_tls;
    uint32_t rec = guard_enter(t);
    if (!rec)
        return;
    size_t size = prefix_len;
    for (int i = 0; i < iovcnt; i++)
        size += iov[i].iov_len;
    /* llvm-xray rejects empty events. */
    if (UNLIKELY(size == 0 || (!ours && looks_like_ours(typed, type, iov, iovcnt)))) {
        drop_counted(t, rec, FR_DROP_INVALID, size);
        guard_leave(t);
        return;
    }
    if (UNLIKELY(size > fr_pool.buffer_size)) {   /* also keeps size within INT32_MAX */
        drop_counted(t, rec, FR_DROP_TOO_LARGE, size);
        guard_leave(t);
        return;
    }
    SCHED_CHECK(t, rec);
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = reserve(t, tsc, cpu, FR_XRAY_METADATA_SIZE + size, INT32_MAX, rec);
    if (p)
        put_event(t, p, tsc, typed, type, prefix, prefix_len, iov, iovcnt, size);
    guard_leave(t);
}

/* Writes a custom or typed event at p (room reserved): header, prefix, iovecs. */
static void put_event(struct fr_thread *t, uint8_t *p, uint64_t tsc, int typed, uint16_t type,
                      const void *prefix, size_t prefix_len, const struct iovec *iov,
                      int iovcnt, size_t size)
{
    /* a custom event's header is a typed one's without the type */
    struct fr_md_typed_event ev = { (int32_t)size, (int32_t)(tsc - t->last_tsc),
                                    typed ? type : 0 };
    fr_md_put(p, typed ? FR_MD_TYPED_EVENT : FR_MD_CUSTOM_EVENT, &ev, sizeof ev);
    uint8_t *q = p + FR_XRAY_METADATA_SIZE;
    if (prefix_len)
        memcpy(q, prefix, prefix_len);
    q += prefix_len;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len)
            memcpy(q, iov[i].iov_base, iov[i].iov_len);
        q += iov[i].iov_len;
    }
    publish_pos(t, q);
    t->last_tsc = tsc;
    t->records++;
    t->enter_run = 0;
}

void fr_record_custom(const void *data, size_t size)
{
    struct iovec v = { (void *)data, size };
    record_event(0, 0, NULL, 0, &v, 1, 0);
}

void fr_record_typed(uint16_t type, const void *data, size_t size)
{
    struct iovec v = { (void *)data, size };
    record_event(1, type, NULL, 0, &v, 1, 0);
}

void fr_record_typed_iov(uint16_t type, const struct iovec *iov, int iovcnt)
{
    record_event(1, type, NULL, 0, iov, iovcnt, 0);
}

/* Our records are custom events with the envelope first (fr_format.h): a typed event
 * would give every later function record of the thread its type in llvm-xray. */
void fr_record_ours_iov(uint16_t type, const struct iovec *iov, int iovcnt)
{
    struct fr_te_envelope e = { .magic = FR_TE_MAGIC, .type = type };
    record_event(0, 0, &e, sizeof e, iov, iovcnt, 1);
}

/* ------------------------------------------------------------------ compact events */

/* Copies n bytes with inline loads and stores (two overlapping ones of the largest
 * power of two not above n): an event's fixed-size fields (1, 2, 4, 8, 16 bytes), its
 * short strings and varint heads cost no library call. Longer pieces go to memcpy.
 * Writes exactly [d, d + n) and reads exactly [s, s + n). */
static inline __attribute__((always_inline)) void put_bytes(uint8_t *d, const void *src, size_t n)
{
    const uint8_t *s = src;
    if (n >= 8) {
        if (n > 16) {
            memcpy(d, s, n);
            return;
        }
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n >= 2) {
        uint16_t a, b;
        memcpy(&a, s, 2);
        memcpy(&b, s + n - 2, 2);
        memcpy(d, &a, 2);
        memcpy(d + n - 2, &b, 2);
    } else if (n) {
        *d = *s;
    }
}

static inline uint8_t *put_iov(uint8_t *q, const struct iovec *iov, int iovcnt)
{
    for (int i = 0; i < iovcnt; i++) {
        put_bytes(q, iov[i].iov_base, iov[i].iov_len);
        q += iov[i].iov_len;
    }
    return q;
}

/* Bytes of v as a varint (fr_varint_put); one byte, the usual case, without a division. */
static inline size_t varint_len(uint64_t v)
{
    if (LIKELY(v < 0x80))
        return 1;
    return 1 + (size_t)(63 - __builtin_clzll(v)) / 7;
}

/* Writes the entry (head: the key, delta and size varints; ext; values) at q; returns
 * its end. The head is encoded in place, not copied from a temporary (reading back
 * bytes just stored one by one as wider words stalls store forwarding). The entry's
 * first byte last, in program order (a compiler fence, no instruction; x86 keeps stores
 * in order): it is never 0 (the key's first byte: site ids start at 1), so in a backing
 * file read after SIGKILL an entry whose first byte is still 0 was being written
 * (docs/BACKING.md). */
static inline __attribute__((always_inline)) uint8_t *
put_entry(uint8_t *q, uint64_t key, uint64_t delta, uint64_t size, const void *ext,
          size_t ext_len, const struct iovec *values, int nvalues)
{
    size_t n = 1;
    if (key >= 0x80)   /* the key's bytes after its first: the varint of key >> 7 */
        n += fr_varint_put(q + 1, key >> 7);
    n += fr_varint_put(q + n, delta);
    n += fr_varint_put(q + n, size);
    uint8_t *v = q + n;
    put_bytes(v, ext, ext_len);
    v = put_iov(v + ext_len, values, nvalues);
    __atomic_signal_fence(__ATOMIC_RELEASE);
    q[0] = (uint8_t)(key >= 0x80 ? key | 0x80 : key);
    return v;
}

void fr_record_event_entry(uint32_t site_id, const void *ext, size_t ext_len,
                           const struct iovec *values, int nvalues)
{
    struct fr_thread *t = &fr_tls;
    uint32_t rec = guard_enter(t);
    if (!rec)
        return;
    SCHED_CHECK(t, rec);
    size_t vsize = ext_len;
    for (int i = 0; i < nvalues; i++)
        vsize += values[i].iov_len;
    uint64_t key = (uint64_t)site_id << 1 | (ext_len != 0);
    size_t key_size_len = varint_len(key) + varint_len(vsize);
    uint64_t tsc = fr_clock_now();
    uint32_t cpu = fr_cpu_raw();
    uint8_t *p = t->pos;
    /* Append to the open run: it is the buffer's last record (run_end == pos), on this
     * CPU, in this session. Its entries' deltas chain from its own timestamp, which stays
     * the base of the next record's delta (last_tsc is left alone), as llvm-xray reads it. */
    if (LIKELY(t->run_end == p && p && rec == t->session && cpu == t->cpu && tsc >= t->run_tsc)) {
        uint64_t delta = tsc - t->run_tsc;
        size_t need = key_size_len + varint_len(delta) + vsize;
        int32_t size = fr_md_get_event_size(t->run_hdr);
        if (LIKELY((intptr_t)((uintptr_t)t->end - (uintptr_t)p) >= (intptr_t)need &&
                   need <= (size_t)(INT32_MAX - size))) {
            /* The size covers the entry before its bytes are written (a compiler fence,
             * no instruction): in a backing file read after SIGKILL, the bytes after a
             * run are never an entry half written, which could read as a function
             * record; an entry inside the run whose first byte is still 0 is cut
             * (put_entry, backing_recover.c). Readers of pos cut a run back to it
             * (fr_buffer_whole_records, close_own_run). */
            fr_md_set_event_size(t->run_hdr, size + (int32_t)need);
            __atomic_signal_fence(__ATOMIC_RELEASE);
            uint8_t *q = put_entry(p, key, delta, vsize, ext, ext_len, values, nvalues);
            /* release: a snapshot reading pos from another thread sees the entry */
            __atomic_store_n(&t->pos, q, __ATOMIC_RELEASE);
            t->run_end = q;
            t->run_tsc = tsc;
            __atomic_store_n(&t->records, t->records + 1, __ATOMIC_RELAXED);
            guard_leave(t);
            return;
        }
    }
    /* A new run: the custom event's header, the envelope, the entry (delta 0). */
    size_t size = sizeof(struct fr_te_envelope) + key_size_len + varint_len(0) + vsize;
    if (UNLIKELY(size > fr_pool.buffer_size)) {   /* also keeps size within INT32_MAX */
        drop_counted(t, rec, FR_DROP_TOO_LARGE, size);
        guard_leave(t);
        return;
    }
    p = reserve(t, tsc, cpu, FR_XRAY_METADATA_SIZE + size, INT32_MAX, rec);
    if (p) {
        fr_te_header_put(p, FR_TE_EVENT_RUN, size - sizeof(struct fr_te_envelope),
                         (int32_t)(tsc - t->last_tsc));
        uint8_t *q = put_entry(p + FR_ENVELOPED_HEADER_SIZE, key, 0, vsize, ext, ext_len,
                               values, nvalues);
        __atomic_store_n(&t->pos, q, __ATOMIC_RELEASE);
        t->last_tsc = tsc;
        __atomic_store_n(&t->records, t->records + 1, __ATOMIC_RELAXED);
        t->enter_run = 0;
        t->run_hdr = p;
        t->run_end = q;
        t->run_tsc = tsc;
    }
    guard_leave(t);
}

/* ------------------------------------------------------------------ public API */

void fr_log_enter(uint32_t function_id) { fr_record_function(function_id, FR_FN_ENTER); }
void fr_log_exit(uint32_t function_id) { fr_record_function(function_id, FR_FN_EXIT); }
void fr_log_tail_exit(uint32_t function_id) { fr_record_function(function_id, FR_FN_TAIL_EXIT); }
void fr_log_enter_arg(uint32_t function_id, uint64_t arg) { fr_record_function_arg(function_id, arg); }
void fr_log_custom_event(const void *data, size_t size) { fr_record_custom(data, size); }
void fr_log_typed_event(uint16_t type, const void *data, size_t size) { fr_record_typed(type, data, size); }
