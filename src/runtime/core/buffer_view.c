/*
 * buffer_view.c - one buffer as seen at a moment, for the writers that read the pool while
 * threads record (buffer_view.h). A CURRENT buffer's end is its owner's position, read
 * through a pin; the pool itself knows nothing of the thread writer's state.
 */
#include <string.h>
#include "core/buffer_view.h"
#include "core/thread_writer.h"
#include "core/buffer_pool.h"

#define LOAD(p)       __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_R(p)     __atomic_load_n((p), __ATOMIC_RELAXED)

/* The end of whole records of t in buffer idx of generation gen (t pinned): bytes from
 * the buffer's start and records, or 0 if t is elsewhere. */
static void position(const struct fr_thread *t, uint32_t idx, uint32_t gen, uint64_t *used,
                     uint64_t *records)
{
    *used = *records = 0;
    if (__atomic_load_n(&t->hold.idx, __ATOMIC_RELAXED) != (int32_t)idx ||
        __atomic_load_n(&t->hold.gen, __ATOMIC_RELAXED) != gen)
        return;
    /* acquire: the bytes before pos are whole records (publish_pos, thread_writer.c) */
    uint8_t *pos = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);
    uint8_t *start = fr_pool_buffer(idx);
    if (pos >= start + FR_BUFFER_PREAMBLE && pos <= start + fr_pool_capacity(idx)) {
        *used = (uint64_t)(pos - start);
        *records = __atomic_load_n(&t->records, __ATOMIC_RELAXED);
    }
}

int fr_pool_view(uint32_t idx, struct fr_buffer_view *v)
{
    struct fr_buffer_desc *b = &fr_pool.bufs[idx];
    uint64_t w = LOAD(&b->own);
    uint32_t st = FR_OWN_STATE(w), slot = FR_OWN_SLOT(w);
    memset(v, 0, sizeof *v);
    v->index = idx;
    v->state = st;
    if (st == FR_BUF_FREE || slot >= FR_MAX_THREADS)
        return 0;
    v->slot = slot;
    v->tid = fr_pool.threads[slot].tid;
    v->seq = LOAD_R(&b->seq);
    if (st == FR_BUF_CURRENT) {
        struct fr_thread *t = fr_pool_pin(slot);
        if (t) {
            position(t, idx, FR_OWN_GEN(w), &v->used, &v->records);
            fr_pool_unpin(slot);
        }
    } else {
        v->used = LOAD_R(&b->used);
        v->records = LOAD_R(&b->records);
    }
    return v->used >= FR_BUFFER_PREAMBLE;
}
