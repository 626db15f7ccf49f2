/*
 * perf_order.c - samples of a perf.data file in time order, round by round
 * (perf_order.h): a binary min-heap of copied samples keyed by (time, file order).
 */
#include "perf_order.h"

#include <stdlib.h>
#include <string.h>

typedef struct node {
    fr_perf_sample s;
    uint64_t seq;       /* file order: equal times keep it */
    size_t   bytes;
    uint8_t  raw[];
} node;

struct fr_perf_order {
    node   **heap;
    size_t   n, cap;
    size_t   bytes;         /* queued, raw bytes and nodes */
    uint64_t seq;
    uint64_t seen_max;      /* newest time pushed */
    uint64_t marked_max;    /* seen_max at the last FINISHED_ROUND */
    bool     marked;        /* a FINISHED_ROUND was read */
    bool     limit_valid;   /* limit holds: two markers were read */
    uint64_t limit;         /* samples no newer than this may go */
    bool     ended;
    uint64_t last_given;
    bool     given_any;
    uint64_t out_of_order;
    node    *held;          /* the sample last given: its raw bytes are the caller's */
};

fr_perf_order *fr_perf_order_new(void)
{
    return calloc(1, sizeof(fr_perf_order));
}

void fr_perf_order_free(fr_perf_order *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++)
        free(o->heap[i]);
    free(o->heap);
    free(o->held);
    free(o);
}

static bool before(const node *a, const node *b)
{
    return a->s.time != b->s.time ? a->s.time < b->s.time : a->seq < b->seq;
}

static void sift_up(node **h, size_t i)
{
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(h[i], h[up]))
            break;
        node *t = h[i];
        h[i] = h[up];
        h[up] = t;
        i = up;
    }
}

static void sift_down(node **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (r < n && before(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        node *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int fr_perf_order_push(fr_perf_order *o, const fr_perf_sample *s)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 1024;
        node **h = realloc(o->heap, cap * sizeof *h);
        if (!h)
            return -1;
        o->heap = h;
        o->cap = cap;
    }
    size_t bytes = sizeof(node) + s->raw_size;
    node *e = malloc(bytes);
    if (!e)
        return -1;
    e->s = *s;
    memcpy(e->raw, s->raw, s->raw_size);
    e->s.raw = e->raw;
    /* a sample with no time stays where the file put it, among the newest */
    if (!s->has_time)
        e->s.time = o->seen_max;
    else if (s->time > o->seen_max)
        o->seen_max = s->time;
    e->seq = o->seq++;
    e->bytes = bytes;
    o->bytes += bytes;
    o->heap[o->n] = e;
    sift_up(o->heap, o->n++);
    return 0;
}

void fr_perf_order_round(fr_perf_order *o)
{
    if (o->marked) {
        o->limit = o->marked_max;
        o->limit_valid = true;
    }
    o->marked = true;
    o->marked_max = o->seen_max;
}

void fr_perf_order_end(fr_perf_order *o)
{
    o->ended = true;
}

int fr_perf_order_pop(fr_perf_order *o, fr_perf_sample *s)
{
    free(o->held);
    o->held = NULL;
    if (o->n == 0)
        return 0;
    node *top = o->heap[0];
    bool may_go = o->ended || (o->limit_valid && top->s.time <= o->limit) ||
                  o->bytes > FR_PERF_ORDER_MAX_BYTES;
    if (!may_go)
        return 0;
    o->heap[0] = o->heap[--o->n];
    sift_down(o->heap, o->n, 0);
    o->bytes -= top->bytes;
    if (o->given_any && top->s.time < o->last_given)
        o->out_of_order++;
    else
        o->last_given = top->s.time;
    o->given_any = true;
    o->held = top;
    *s = top->s;
    return 1;
}

uint64_t fr_perf_order_out_of_order(const fr_perf_order *o)
{
    return o->out_of_order;
}
