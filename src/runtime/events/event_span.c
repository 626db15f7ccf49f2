/*
 * event_span.c - activity ids and the thread's current span.
 *
 * An activity id is 16 bytes: 8 bytes chosen once per process (random), the thread id
 * (4 bytes) and a per-thread counter (4 bytes), so making one needs no lock and no
 * system call after the thread's first. Each thread keeps the id of its innermost span;
 * a span remembers its parent's id and restores it when it stops (spans nest per thread).
 * Everything here is async-signal-safe except the first id of a process or thread.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "events/events_internal.h"
#include "events/span_unwind.h"

#define FR_TLS __thread __attribute__((tls_model("initial-exec")))

FR_TLS struct fr_current_activity fr_current_activity;
#define current_id  fr_current_activity.id
#define current_set fr_current_activity.set
static FR_TLS uint32_t thread_tid;
static FR_TLS uint32_t thread_counter;
static uint64_t process_nonce;   /* 0 until the first id */

static uint64_t make_nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != (ssize_t)sizeof n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        n = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
    }
    return n ? n : 1;
}

void fr_activity_new_id(uint8_t id[16])
{
    uint64_t nonce = __atomic_load_n(&process_nonce, __ATOMIC_RELAXED);
    if (!nonce) {
        uint64_t mine = make_nonce(), expected = 0;
        if (!__atomic_compare_exchange_n(&process_nonce, &expected, mine, false,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            mine = expected;   /* another thread won: use its nonce */
        nonce = mine;
    }
    if (!thread_tid)
        thread_tid = (uint32_t)syscall(SYS_gettid);
    uint32_t count = ++thread_counter;
    memcpy(id, &nonce, 8);
    memcpy(id + 8, &thread_tid, 4);
    memcpy(id + 12, &count, 4);
}

bool fr_activity_current(uint8_t id[16])
{
    if (!current_set)
        return false;
    memcpy(id, current_id, 16);
    return true;
}

void fr_activity_enter(fr_activity_scope *scope, const uint8_t id[16])
{
    scope->had_current = current_set;
    if (current_set)
        memcpy(scope->saved, current_id, 16);
    current_set = id != NULL;   /* NULL (e.g. a span that never started): no activity */
    if (id)
        memcpy(current_id, id, 16);
}

void fr_activity_leave(fr_activity_scope *scope)
{
    current_set = scope->had_current;
    if (scope->had_current)
        memcpy(current_id, scope->saved, 16);
}

void fr__span_begin(fr_span *s, const uint8_t *parent, bool detached,
                    const uint8_t **activity, const uint8_t **related)
{
    fr_activity_new_id(s->id);
    s->flags = FR_SPAN_ACTIVE;
    if (detached) {
        s->flags |= FR_SPAN_DETACHED;
        if (parent) {
            memcpy(s->parent, parent, 16);
            s->flags |= FR_SPAN_PARENT;
        }
    } else {
        fr_span_keep(s, current_set, current_id);   /* for an unwind that skips the stop */
        if (current_set) {
            memcpy(s->parent, current_id, 16);
            s->flags |= FR_SPAN_PARENT;
        }
        memcpy(current_id, s->id, 16);
        current_set = true;
    }
    *activity = s->id;
    *related = (s->flags & FR_SPAN_PARENT) ? s->parent : NULL;
}

void fr__span_end(fr_span *s)
{
    if (!(s->flags & FR_SPAN_ACTIVE))
        return;
    if (!(s->flags & FR_SPAN_DETACHED)) {
        fr_span_forget(s);
        current_set = (s->flags & FR_SPAN_PARENT) != 0;
        if (current_set)
            memcpy(current_id, s->parent, 16);
    }
    s->flags = 0;
}

void fr_activity_after_fork_child(void)
{
    /* New process, new ids: the child must not repeat the parent's. */
    __atomic_store_n(&process_nonce, 0, __ATOMIC_RELAXED);
    thread_tid = 0;
}
