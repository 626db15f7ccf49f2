/*
 * stack_aggregate.c - see stack_aggregate.h.
 *
 * The calling-context tree is a prefix tree: a node per distinct path, holding only its
 * parent's index and its function id (the path is the chain of parents). Memory per node:
 *  - the node, 64 bytes, in an anonymous mapping that doubles with mremap (the kernel
 *    moves the pages: growing never copies nodes nor needs twice the memory for a
 *    moment, as realloc would; pages become memory only when nodes reach them);
 *  - one slot of a hash table that finds a child from (parent, function id): the slot
 *    holds only the node's index and a 6-bit tag of the key's hash (4 bytes; the key is
 *    read from the node when the tag matches), the table is kept at most 3/4 full, so
 *    5.3 to 10.7 bytes a node.
 * Per thread, node_at[d] is the node of the frame open at depth d: written by the enter
 * callback, read when the call completes. It stays right while the frame is open, since
 * only enters at a depth <= d (which need that frame closed first) overwrite it. So each
 * call costs one lookup, whatever its depth; and each node (one cache line) remembers the
 * last FR_STACK_HINTS children looked up from it, which answers the lookups of functions
 * with few callees from the caller's node, already in cache, without the hash table's
 * cache miss. The child's node is prefetched at the enter, for its exit.
 */
#define _GNU_SOURCE   /* mremap */
#include "stack_aggregate.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include "fr_alloc.h"
#include "func_stats.h"
#include "u64_map.h"

/* A hash slot: node index + 1 in the low SLOT_INDEX_BITS bits, and the top bits of the
 * key's hash as a tag, so that probing past other keys rarely reads their nodes (each
 * read a likely cache miss). Beyond MAX_NODES nodes, new stacks go to "other" nodes. */
#define SLOT_INDEX_BITS 26
#define SLOT_INDEX_MASK ((1u << SLOT_INDEX_BITS) - 1)
#define MAX_NODES  (SLOT_INDEX_MASK - 1)    /* 67 M stacks, 2 GiB of nodes */

struct thread_nodes {
    int32_t   tid;
    uint32_t  root;        /* parent of the thread's depth-0 nodes */
    uint32_t  known;       /* node_at[0..known-1] were written by enters */
    size_t    cap;
    uint32_t *node_at;
};

struct fr_stack_agg {
    fr_stack_node  *nodes;         /* an anonymous mapping of cap_nodes nodes */
    size_t          cap_nodes;
    size_t          n;             /* nodes */
    uint32_t       *slots;         /* node index + 1; 0 = empty */
    uint32_t        slot_bits;
    size_t          limit;         /* nodes before "other" takes new stacks (<= MAX_NODES/2) */
    uint64_t        merged_calls;
    int             thread_roots;
    struct thread_nodes **threads;
    size_t          n_threads, cap_threads;
    fr_u64_map      by_tid;
    struct thread_nodes *last;
};

_Static_assert(sizeof(fr_stack_node) == 64, "a node is one cache line");

static inline fr_stack_node *node_at(const fr_stack_agg *sa, uint32_t i)
{
    return &sa->nodes[i];
}

/* Big tables in 2 MiB pages where the kernel allows (transparent huge pages on request):
 * the lookups are random, and with 4 KiB pages most of them also missed the TLB. */
static void *map_region(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "flightrec: out of memory (reserving %zu MiB of address space)\n", size >> 20);
        exit(1);
    }
#ifdef MADV_HUGEPAGE
    if (size >= (2u << 20))
        madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

fr_stack_agg *fr_stack_agg_new(void)
{
    fr_stack_agg *sa = fr_xcalloc(1, sizeof *sa);
    sa->slot_bits = 10;
    sa->slots = map_region(sizeof *sa->slots << sa->slot_bits);
    sa->cap_nodes = (64u << 20) / sizeof *sa->nodes;   /* grown by mremap, without copying */
    sa->nodes = map_region(sa->cap_nodes * sizeof *sa->nodes);
    sa->limit = MAX_NODES / 2;
    fr_u64_map_init(&sa->by_tid);
    return sa;
}

void fr_stack_agg_set_limit(fr_stack_agg *sa, size_t max_stacks)
{
    /* "other" nodes, at most one per node, must fit in MAX_NODES too */
    sa->limit = max_stacks && max_stacks < MAX_NODES / 2 ? max_stacks : MAX_NODES / 2;
}

void fr_stack_agg_set_thread_roots(fr_stack_agg *sa, int on)
{
    sa->thread_roots = on;
}

uint64_t fr_stack_agg_merged_calls(const fr_stack_agg *sa)
{
    return sa->merged_calls;
}

void fr_stack_agg_free(fr_stack_agg *sa)
{
    if (!sa)
        return;
    for (size_t i = 0; i < sa->n_threads; i++) {
        free(sa->threads[i]->node_at);
        free(sa->threads[i]);
    }
    free(sa->threads);
    munmap(sa->nodes, sa->cap_nodes * sizeof *sa->nodes);
    munmap(sa->slots, sizeof *sa->slots << sa->slot_bits);
    fr_u64_map_free(&sa->by_tid);
    free(sa);
}

static inline uint64_t hash_of(uint32_t parent, uint32_t function_id)
{
    uint64_t key = (uint64_t)parent << 32 | function_id;
    return key * 0x9E3779B97F4A7C15ull;
}

static inline uint32_t tag_of(uint64_t hash)
{
    return (uint32_t)(hash >> 26) & ~SLOT_INDEX_MASK;   /* hash bits 58..63, placed at 26..31 */
}

/* The child (parent, function_id), or FR_STACK_ROOT; *slot: where it is or would go. */
static inline uint32_t lookup(const fr_stack_agg *sa, uint32_t parent, uint32_t function_id,
                              uint32_t *slot)
{
    uint32_t mask = (1u << sa->slot_bits) - 1;
    uint64_t h = hash_of(parent, function_id);
    uint32_t tag = tag_of(h);
    /* the slot from bits below the tag's, so that both vary independently */
    for (uint32_t s = (uint32_t)(h >> (58 - sa->slot_bits)) & mask;; s = (s + 1) & mask) {
        uint32_t v = sa->slots[s];
        if (!v) {
            *slot = s;
            return FR_STACK_ROOT;
        }
        if ((v & ~SLOT_INDEX_MASK) != tag)
            continue;
        const fr_stack_node *nd = node_at(sa, (v & SLOT_INDEX_MASK) - 1);
        if (nd->parent == parent && nd->function_id == function_id)
            return (v & SLOT_INDEX_MASK) - 1;
    }
}

__attribute__((noinline))
static void grow_slots(fr_stack_agg *sa)
{
    uint32_t bits = sa->slot_bits + 1;
    uint32_t *slots = map_region(sizeof *slots << bits);   /* zeroed */
    uint32_t mask = (1u << bits) - 1;
    for (size_t i = 0; i < sa->n; i++) {
        const fr_stack_node *nd = node_at(sa, (uint32_t)i);
        uint64_t h = hash_of(nd->parent, nd->function_id);
        uint32_t s = (uint32_t)(h >> (58 - bits)) & mask;
        while (slots[s])
            s = (s + 1) & mask;
        slots[s] = ((uint32_t)i + 1) | tag_of(h);
    }
    munmap(sa->slots, sizeof *sa->slots << sa->slot_bits);
    sa->slots = slots;
    sa->slot_bits = bits;
}

static uint32_t add_node(fr_stack_agg *sa, uint32_t parent, uint32_t function_id, uint32_t slot)
{
    if ((sa->n + 1) * 4 > ((size_t)3 << sa->slot_bits)) {
        grow_slots(sa);
        lookup(sa, parent, function_id, &slot);
    }
    if (sa->n == sa->cap_nodes) {   /* the kernel moves the pages: no copy, no 2x peak */
        size_t old = sa->cap_nodes * sizeof *sa->nodes;
        void *p = mremap(sa->nodes, old, 2 * old, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) {
            fprintf(stderr, "flightrec: out of memory (%zu MiB of stacks)\n", (2 * old) >> 20);
            exit(1);
        }
#ifdef MADV_HUGEPAGE
        madvise(p, 2 * old, MADV_HUGEPAGE);
#endif
        sa->nodes = p;
        sa->cap_nodes *= 2;
    }
    uint32_t i = (uint32_t)sa->n++;
    *node_at(sa, i) = (fr_stack_node){.parent = parent, .function_id = function_id};
    sa->slots[slot] = (i + 1) | tag_of(hash_of(parent, function_id));
    return i;
}

static uint32_t child_of(fr_stack_agg *sa, uint32_t parent, uint32_t function_id)
{
    fr_stack_node *p = NULL;
    if (parent != FR_STACK_ROOT) {
        /* The caller's node was touched when it was entered: likely in cache, unlike a
         * hash slot and the child's node. */
        p = node_at(sa, parent);
        for (int k = 0; k < FR_STACK_HINTS; k++)
            if (p->hints[k].function_id == function_id && p->hints[k].child)
                return p->hints[k].child - 1;
    }
    uint32_t slot;
    uint32_t i = lookup(sa, parent, function_id, &slot);
    if (i == FR_STACK_ROOT && sa->n < sa->limit)
        i = add_node(sa, parent, function_id, slot);
    if (i != FR_STACK_ROOT) {
        if (p) {   /* replaces the hints in turn: a free one first, then round robin */
            p = node_at(sa, parent);   /* add_node may have moved the nodes */
            int k = 0;
            while (k < FR_STACK_HINTS - 1 && p->hints[k].child)
                k++;
            if (p->hints[k].child) {
                memmove(&p->hints[0], &p->hints[1], sizeof p->hints[0] * (FR_STACK_HINTS - 1));
                k = FR_STACK_HINTS - 1;
            }
            p->hints[k].child = i + 1;
            p->hints[k].function_id = function_id;
        }
        return i;
    }
    /* Full: the stack continues in its deepest node's "other" child. */
    if (parent != FR_STACK_ROOT && node_at(sa, parent)->function_id == FR_STACK_OTHER)
        return parent;
    i = lookup(sa, parent, FR_STACK_OTHER, &slot);
    return i != FR_STACK_ROOT ? i : add_node(sa, parent, FR_STACK_OTHER, slot);
}

static struct thread_nodes *thread_of(fr_stack_agg *sa, int32_t tid)
{
    if (sa->last && sa->last->tid == tid)
        return sa->last;
    uint64_t key = (uint32_t)tid;
    uint32_t i = fr_u64_map_get(&sa->by_tid, key);
    if (i == FR_U64_MAP_NONE) {
        struct thread_nodes *th = fr_xcalloc(1, sizeof *th);
        th->tid = tid;
        th->root = FR_STACK_ROOT;
        if (sa->thread_roots) {   /* whatever the limit: one per thread */
            uint32_t fid = FR_STACK_THREAD | (uint32_t)tid, slot;
            th->root = lookup(sa, FR_STACK_ROOT, fid, &slot);
            if (th->root == FR_STACK_ROOT)
                th->root = add_node(sa, FR_STACK_ROOT, fid, slot);
        }
        sa->threads = fr_xgrow(sa->threads, &sa->cap_threads, sa->n_threads + 1,
                               sizeof *sa->threads, 16);
        i = (uint32_t)sa->n_threads++;
        sa->threads[i] = th;
        fr_u64_map_put(&sa->by_tid, key, i);
    }
    sa->last = sa->threads[i];
    return sa->last;
}

static uint32_t node_of_stack(fr_stack_agg *sa, const struct thread_nodes *th,
                              const uint32_t *stack, uint32_t depth)
{
    uint32_t node = th->root;
    for (uint32_t d = 0; d <= depth; d++)
        node = child_of(sa, node, stack[d]);
    return node;
}

void fr_stack_agg_on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    (void)tsc;
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, tid);
    if (depth >= th->cap)
        th->node_at = fr_xgrow(th->node_at, &th->cap, (size_t)depth + 1, sizeof *th->node_at, 64);
    uint32_t parent = depth == 0 ? th->root
                    : depth <= th->known ? th->node_at[depth - 1]
                    : node_of_stack(sa, th, stack, depth - 1);
    uint32_t node = child_of(sa, parent, stack[depth]);
    __builtin_prefetch(node_at(sa, node), 1);
    th->node_at[depth] = node;
    th->known = depth + 1;
}

void fr_stack_agg_on_call(const fr_call *c, void *ctx)
{
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, c->tid);
    uint32_t node;
    if (c->depth < th->known) {
        node = th->node_at[c->depth];
        /* The deeper entries belong to frames closed by now. */
        th->known = c->depth;
    } else {
        node = node_of_stack(sa, th, c->stack, c->depth);
    }
    fr_stack_node *s = node_at(sa, node);
    s->calls++;
    s->total_ticks += fr_call_duration(c);
    s->self_ticks += fr_call_self(c);
    if (s->function_id == FR_STACK_OTHER)
        sa->merged_calls++;
}

size_t fr_stack_agg_count(const fr_stack_agg *sa)
{
    return sa->n;
}

const fr_stack_node *fr_stack_agg_node(const fr_stack_agg *sa, uint32_t index)
{
    return index < sa->n ? node_at(sa, index) : NULL;
}

uint32_t fr_stack_agg_depth(const fr_stack_agg *sa, uint32_t index)
{
    uint32_t d = 0;
    for (uint32_t i = node_at(sa, index)->parent; i != FR_STACK_ROOT; i = node_at(sa, i)->parent)
        d++;
    return d;
}

uint32_t fr_stack_agg_path(const fr_stack_agg *sa, uint32_t index, uint32_t *ids, uint32_t cap)
{
    uint32_t len = fr_stack_agg_depth(sa, index) + 1, d = len;
    for (uint32_t i = index; i != FR_STACK_ROOT; i = node_at(sa, i)->parent)
        if (--d < cap)
            ids[d] = node_at(sa, i)->function_id;
    return len;
}

uint32_t fr_stack_agg_find(const fr_stack_agg *sa, const uint32_t *stack, uint32_t n)
{
    uint32_t node = FR_STACK_ROOT, slot;
    for (uint32_t d = 0; d < n; d++) {
        node = lookup(sa, node, stack[d], &slot);
        if (node == FR_STACK_ROOT)
            return FR_STACK_ROOT;
    }
    return node;
}
