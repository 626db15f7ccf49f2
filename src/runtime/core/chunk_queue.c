/*
 * chunk_queue.c - the bounded lock-free FIFO of chunk_queue.h (per-cell turn numbers,
 * positions claimed by compare-and-swap). Orderings: a push's value store happens
 * before its release store of the cell's turn, which the pop reads with acquire; a
 * pop's read of the value happens before its release store handing the cell to the
 * push one lap later, which that push reads with acquire.
 */
#include "core/chunk_queue.h"

/* A cell stores its turn minus its own index, so that zeroed memory (a new mapping, a
 * fork child's wiped pool) is an empty queue: nothing to write at init, no page touched
 * before it is used. */
static uint64_t turn(const struct fr_queue_cell *c, uint64_t i)
{
    return __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) + i;
}

static void set_turn(struct fr_queue_cell *c, uint64_t i, uint64_t t)
{
    __atomic_store_n(&c->seq, t - i, __ATOMIC_RELEASE);
}

void fr_queue_init(struct fr_chunk_queue *q, struct fr_queue_cell *mem, uint64_t cells)
{
    q->head = q->tail = 0;
    q->mask = cells - 1;
    q->cells = mem;
}

int fr_queue_push(struct fr_chunk_queue *q, uint64_t value)
{
    uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t i = pos & q->mask;
        struct fr_queue_cell *c = &q->cells[i];
        int64_t dif = (int64_t)(turn(c, i) - pos);
        if (dif == 0) {
            if (__atomic_compare_exchange_n(&q->tail, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                c->value = value;
                set_turn(c, i, pos + 1);
                return 0;
            }
            /* pos was reloaded by the failed exchange */
        } else if (dif < 0) {
            return -1;   /* full: the cell still holds the value of one lap ago */
        } else {
            pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
        }
    }
}

int fr_queue_pop(struct fr_chunk_queue *q, uint64_t *value)
{
    uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t i = pos & q->mask;
        struct fr_queue_cell *c = &q->cells[i];
        int64_t dif = (int64_t)(turn(c, i) - (pos + 1));
        if (dif == 0) {
            if (__atomic_compare_exchange_n(&q->head, &pos, pos + 1, 1, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                *value = c->value;
                set_turn(c, i, pos + q->mask + 1);
                return 0;
            }
        } else if (dif < 0) {
            return -1;   /* empty, or the push of this cell has not published it yet */
        } else {
            pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
        }
    }
}
