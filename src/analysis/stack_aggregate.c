/*
 * stack_aggregate.c - see stack_aggregate.h.
 *
 * The calling-context tree is a prefix tree: a node per distinct path, holding only its
 * parent's index and its function id (the path is the chain of parents). Memory per node:
 *  - the node, 32 bytes, in an anonymous mapping that doubles with mremap (the kernel
 *    moves the pages: growing never copies nodes nor needs twice the memory for a
 *    moment, as realloc would; pages become memory only when nodes reach them);
 *  - one 16-byte slot of a hash table that finds a child from (parent, function id): the
 *    slot holds that key itself, the node's index and the top of the key's hash, so that
 *    a lookup reads the table only (one cache line), never a node; the table is kept at
 *    most 3/4 full, so 21 to 43 bytes a node.
 * The slot of a node is placed by the hash of its whole path (root first), computed from
 * its parent's path hash and its function id, not from the parent's index: so the slot of
 * a frame's node is known from the records alone, before the parent's node has been
 * found. On a trace with many stacks nearly every slot and node read misses the cache;
 * fr_stack_agg_on_steps prefetches them a chunk of records ahead (see there), which a
 * lookup keyed by the parent's index (or a cache of children in the parent's node, as
 * before) cannot do: each lookup would wait for the one before.
 * Per thread, at[d] is the node (and path hash) of the frame open at depth d: written at
 * the enter, read when the call completes. It stays right while the frame is open, since
 * only enters at a depth <= d (which need that frame closed first) overwrite it. So each
 * call costs one lookup, whatever its depth.
 */
#define _GNU_SOURCE   /* mremap */
#include "stack_aggregate.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include "fr_alloc.h"
#include "func_stats.h"
#include "u64_map.h"

/* A hash slot: the key (parent index, function id), the node's index + 1 (0: an empty
 * slot) and the top 32 bits of the path hash, which place the slot again when the table
 * grows. Four a cache line. Beyond MAX_NODES nodes, new stacks go to "other" nodes. */
struct slot {
    uint64_t key;        /* slot_key(parent, function_id) */
    uint32_t node;       /* index + 1 */
    uint32_t hash_hi;    /* path hash >> 32 */
};
#define MAX_NODES  ((1u << 26) - 2)    /* 67 M stacks, 2 GiB of nodes */

static inline uint64_t slot_key(uint32_t parent, uint32_t function_id)
{
    return (uint64_t)function_id << 32 | parent;
}

/* A frame's node and the hash that placed it (see path_hash); absorbs: the node is a
 * "deeper" one (ABSORBS_DEEPER) or an "other" one (ABSORBS_OTHER), which is the node of
 * every frame called from it too (no lookup for those). */
enum { ABSORBS_DEEPER = 1, ABSORBS_OTHER = 2 };
struct frame_node {
    uint64_t hash;
    uint32_t node;
    uint32_t absorbs;
};

/* fr_stack_agg_set_bound: each call counted in an "other" node also adds its share of
 * the figure asked for (1, its duration or its self time), by the identity its stack
 * would have in the whole tree (its placement hash), into one cell of each row of a
 * count-min sketch. A stack's figure is then at most its cells' in every row, so at most
 * the smallest, over the rows, of a row's largest cell: a bound of every stack that got no
 * node, whichever it is (fr_stack_agg_unkept_bound). One figure only, the ranking's: 2
 * rows of 2^15 cells of 8 bytes, 512 KiB, which stays in a core's L2 cache (three
 * figures, 1.5 MiB, did not: stack --top 10 took 10% longer on a trace of mostly
 * distinct stacks, where nearly every call adds to the sketch). */
#define BOUND_BITS 15
#define BOUND_ROWS 2

struct thread_nodes {
    int32_t   tid;
    uint32_t  root;        /* parent of the thread's depth-0 nodes */
    uint64_t  root_hash;   /* its placement hash (PATH_SEED without thread roots) */
    uint64_t  salt;        /* see path_hash: 0, or the root node's hash */
    uint32_t  known;       /* at[0..known-1] were written by enters (callbacks) */
    uint32_t  hi;          /* empty_tree: at[0..hi-1] are the open frames' */
    uint32_t  process;     /* the process it was fed in (sa->process then) */
    uint32_t  index;       /* its index in sa->threads */
    size_t    cap;
    struct frame_node *at; /* per depth, the open frame's node */
    uint64_t *pre;         /* per depth, the open frame's path hash (callbacks) */
};

struct fr_stack_agg {
    fr_stack_node  *nodes;         /* an anonymous mapping of cap_nodes nodes */
    size_t          cap_nodes;
    size_t          n;             /* nodes */
    struct slot    *slots;
    uint32_t        slot_bits;
    size_t          limit;         /* nodes before "other" takes new stacks (<= MAX_NODES/2) */
    uint32_t        max_depth;     /* frames at this depth and below go to "deeper" nodes */
    int             thread_roots;
    int             processes;     /* fr_stack_agg_set_process called: process roots */
    uint32_t        process;       /* the index of the process being fed */
    struct thread_nodes **threads;
    size_t          n_threads, cap_threads;
    fr_u64_map      by_tid;
    struct thread_nodes *last;
    uint64_t        cut_calls;     /* calls at depth >= max_depth, wherever counted */
    uint64_t       *bound;         /* fr_stack_agg_set_bound: BOUND_ROWS rows of cells */
    fr_stack_figure bound_figure;  /* what they add up */
    size_t          full_at;       /* fr_stack_agg_set_full: nodes that make the tree full */
    fr_stack_full_fn full_fn;
    void           *full_ctx;
    uint64_t        emptied_other, emptied_deeper;   /* calls_of in the trees emptied */
};

_Static_assert(sizeof(fr_stack_node) == 32, "two nodes a cache line");
_Static_assert(sizeof(struct slot) == 16, "four slots a cache line");

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
    sa->max_depth = UINT32_MAX;
    fr_u64_map_init(&sa->by_tid);
    return sa;
}

void fr_stack_agg_set_limit(fr_stack_agg *sa, size_t max_stacks)
{
    /* "other" nodes, at most one per node, must fit in MAX_NODES too */
    sa->limit = max_stacks && max_stacks < MAX_NODES / 2 ? max_stacks : MAX_NODES / 2;
}

static void grow_slots(fr_stack_agg *sa);

void fr_stack_agg_set_bound(fr_stack_agg *sa, size_t max_stacks, fr_stack_figure figure)
{
    fr_stack_agg_set_limit(sa, max_stacks);
    sa->bound_figure = figure;
    if (!sa->bound)
        sa->bound = fr_xcalloc((size_t)BOUND_ROWS << BOUND_BITS, sizeof *sa->bound);
    /* Once full, nearly every enter looks up a stack that has no node: at 3/4 full, a
     * lookup that finds nothing reads ~8 slots; so a table at most 1/4 full, for the
     * 2 * limit + 1 nodes there can be. */
    while (((size_t)1 << sa->slot_bits) < 8 * sa->limit + 8)
        grow_slots(sa);
}

void fr_stack_agg_set_max_depth(fr_stack_agg *sa, uint32_t max_depth)
{
    sa->max_depth = max_depth ? max_depth : UINT32_MAX;
}

void fr_stack_agg_set_thread_roots(fr_stack_agg *sa, int on)
{
    sa->thread_roots = on;
}

int32_t fr_stack_agg_thread_tid(const fr_stack_agg *sa, uint32_t function_id)
{
    uint32_t i = function_id & ~FR_STACK_PROCESS;
    return i < sa->n_threads ? sa->threads[i]->tid : 0;
}

void fr_stack_agg_set_process(fr_stack_agg *sa, uint32_t index)
{
    sa->processes = 1;
    sa->process = index;
    sa->last = NULL;   /* a tid of the next process is another thread */
}

/* Calls of the nodes of one special function id: counted at the end, not per call. */
static uint64_t calls_of(const fr_stack_agg *sa, uint32_t function_id)
{
    uint64_t calls = 0;
    for (size_t i = 0; i < sa->n; i++)
        if (sa->nodes[i].function_id == function_id)
            calls += sa->nodes[i].calls;
    return calls;
}

uint64_t fr_stack_agg_merged_calls(const fr_stack_agg *sa)
{
    return sa->emptied_other + calls_of(sa, FR_STACK_OTHER);
}

uint64_t fr_stack_agg_deeper_calls(const fr_stack_agg *sa)
{
    return sa->emptied_deeper + calls_of(sa, FR_STACK_DEEPER);
}

uint64_t fr_stack_agg_cut_calls(const fr_stack_agg *sa)
{
    return sa->cut_calls;
}

/* The call's stack's cells in the sketch, one per row, each adding its share. */
static inline void bound_add(fr_stack_agg *sa, uint64_t stack_hash, uint64_t duration, uint64_t self)
{
    uint64_t share = sa->bound_figure == FR_STACK_BY_CALLS ? 1
                   : sa->bound_figure == FR_STACK_BY_SELF ? self : duration;
    uint64_t h = stack_hash;
    for (unsigned r = 0; r < BOUND_ROWS; r++) {
        sa->bound[((size_t)r << BOUND_BITS) + (h >> (64 - BOUND_BITS))] += share;
        h *= 0xFF51AFD7ED558CCDull;   /* other bits on top for the next row */
        h ^= h >> 29;
    }
}

bool fr_stack_agg_unkept_bound(const fr_stack_agg *sa, uint64_t *bound)
{
    if (!sa->bound || !calls_of(sa, FR_STACK_OTHER))   /* (every call added is an "other" node's) */
        return false;
    for (unsigned r = 0; r < BOUND_ROWS; r++) {
        uint64_t row = 0;
        for (size_t i = 0; i < ((size_t)1 << BOUND_BITS); i++)
            row = sa->bound[((size_t)r << BOUND_BITS) + i] > row ? sa->bound[((size_t)r << BOUND_BITS) + i] : row;
        *bound = !r || row < *bound ? row : *bound;
    }
    return true;
}

void fr_stack_agg_free(fr_stack_agg *sa)
{
    if (!sa)
        return;
    for (size_t i = 0; i < sa->n_threads; i++) {
        free(sa->threads[i]->at);
        free(sa->threads[i]->pre);
        free(sa->threads[i]);
    }
    free(sa->threads);
    free(sa->bound);
    munmap(sa->nodes, sa->cap_nodes * sizeof *sa->nodes);
    munmap(sa->slots, sizeof *sa->slots << sa->slot_bits);
    fr_u64_map_free(&sa->by_tid);
    free(sa);
}

/* Where a node's slot is: its placement hash, a function of the node alone, so that the
 * slot of a frame's node is known from the records, before the parent's node has been
 * found (see the top).
 *  - a node of a function: the path hash of its path (fr_call_path_hash, root first, as
 *    the tracker's steps carry it), xor the thread's salt: 0, or with process or thread
 *    roots the placement hash of the thread's root node, so that each tree has its own;
 *  - a process's or thread's root node: path_hash(its parent's placement hash, or
 *    PATH_SEED at the top, its function id);
 *  - an "other" or a "deeper" node: path_hash(its parent's placement hash, its id). */
#define PATH_SEED FR_CALL_PATH_SEED
static inline uint64_t path_hash(uint64_t parent_hash, uint32_t function_id)
{
    return fr_call_path_hash(parent_hash, function_id);
}

static inline uint32_t home_slot(uint64_t hash, uint32_t bits)
{
    return (uint32_t)(hash >> (64 - bits));
}

/* The child (parent, function_id) whose path hashes to hash, or FR_STACK_ROOT; *slot:
 * where it is or would go. Reads the table only. */
static inline uint32_t lookup(const fr_stack_agg *sa, uint32_t parent, uint32_t function_id,
                              uint64_t hash, uint32_t *slot)
{
    uint32_t mask = (1u << sa->slot_bits) - 1;
    uint64_t key = slot_key(parent, function_id);
    for (uint32_t s = home_slot(hash, sa->slot_bits);; s = (s + 1) & mask) {
        const struct slot *e = &sa->slots[s];
        if (e->key == key && e->node)
            return e->node - 1;
        if (!e->node) {
            *slot = s;
            return FR_STACK_ROOT;
        }
    }
}

__attribute__((noinline))
static void grow_slots(fr_stack_agg *sa)
{
    uint32_t bits = sa->slot_bits + 1;
    struct slot *slots = map_region(sizeof *slots << bits);   /* zeroed */
    uint32_t mask = (1u << bits) - 1;
    /* every slot again from its hash: any order of insertion makes a valid table */
    for (size_t i = 0; i < ((size_t)1 << sa->slot_bits); i++) {
        const struct slot *e = &sa->slots[i];
        if (!e->node)
            continue;
        uint32_t s = e->hash_hi >> (32 - bits);
        while (slots[s].node)
            s = (s + 1) & mask;
        slots[s] = *e;
    }
    munmap(sa->slots, sizeof *sa->slots << sa->slot_bits);
    sa->slots = slots;
    sa->slot_bits = bits;
}

__attribute__((noinline))
static uint32_t add_node(fr_stack_agg *sa, uint32_t parent, uint32_t function_id, uint64_t hash,
                         uint32_t slot)
{
    if ((sa->n + 1) * 4 > ((size_t)3 << sa->slot_bits)) {
        grow_slots(sa);
        lookup(sa, parent, function_id, hash, &slot);
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
    sa->slots[slot] = (struct slot){slot_key(parent, function_id), i + 1, (uint32_t)(hash >> 32)};
    return i;
}

/* child_of's rare path: (parent, function_id) has no node yet. */
__attribute__((noinline))
static struct frame_node child_of_new(fr_stack_agg *sa, struct frame_node parent,
                                      uint32_t function_id, uint64_t h, uint32_t slot)
{
    if (sa->n < sa->limit)
        return (struct frame_node){h, add_node(sa, parent.node, function_id, h, slot), 0};
    /* Full: the stack continues in its deepest node's "other" child. */
    if (parent.node != FR_STACK_ROOT && node_at(sa, parent.node)->function_id == FR_STACK_OTHER)
        return (struct frame_node){parent.hash, parent.node, ABSORBS_OTHER};
    h = path_hash(parent.hash, FR_STACK_OTHER);
    uint32_t i = lookup(sa, parent.node, FR_STACK_OTHER, h, &slot);
    return (struct frame_node){h, i != FR_STACK_ROOT ? i : add_node(sa, parent.node, FR_STACK_OTHER, h, slot),
                               ABSORBS_OTHER};
}

/* The node of function_id called from the frame parent, created if new, and its
 * placement hash h (the call's path hash xor the thread's salt). */
static inline __attribute__((always_inline))
struct frame_node child_of(fr_stack_agg *sa, struct frame_node parent, uint32_t function_id,
                           uint64_t h)
{
    uint32_t slot;
    uint32_t i = lookup(sa, parent.node, function_id, h, &slot);
    if (__builtin_expect(i != FR_STACK_ROOT, 1))
        return (struct frame_node){h, i, 0};
    return child_of_new(sa, parent, function_id, h, slot);
}

/* The "deeper" child of parent, the node of every frame below the depth limit: created
 * whatever the node limit (a node has an "other" or a "deeper" child, never both: its
 * children are all at the limit or none is). Under an "other" or a "deeper" node, that
 * node itself. */
__attribute__((noinline))
static struct frame_node deeper_child(fr_stack_agg *sa, struct frame_node parent)
{
    if (parent.node != FR_STACK_ROOT && node_at(sa, parent.node)->function_id >= FR_STACK_DEEPER)
        return (struct frame_node){parent.hash, parent.node,
                                   node_at(sa, parent.node)->function_id == FR_STACK_OTHER ? ABSORBS_OTHER
                                                                                          : ABSORBS_DEEPER};
    uint32_t slot;
    uint64_t h = path_hash(parent.hash, FR_STACK_DEEPER);
    uint32_t i = lookup(sa, parent.node, FR_STACK_DEEPER, h, &slot);
    return (struct frame_node){h, i != FR_STACK_ROOT ? i : add_node(sa, parent.node, FR_STACK_DEEPER, h, slot),
                               ABSORBS_DEEPER};
}

/* The node of a process's or thread's root frame, whatever the limit. */
static struct frame_node root_child(fr_stack_agg *sa, struct frame_node parent, uint32_t fid)
{
    uint32_t slot;
    uint64_t h = path_hash(parent.hash, fid);
    uint32_t i = lookup(sa, parent.node, fid, h, &slot);
    return (struct frame_node){h, i != FR_STACK_ROOT ? i : add_node(sa, parent.node, fid, h, slot), 0};
}

static struct thread_nodes *thread_of(fr_stack_agg *sa, int32_t tid)
{
    if (sa->last && sa->last->tid == tid)
        return sa->last;
    uint64_t key = (uint64_t)sa->process << 32 | (uint32_t)tid;
    uint32_t i = fr_u64_map_get(&sa->by_tid, key);
    if (i == FR_U64_MAP_NONE) {
        struct thread_nodes *th = fr_xcalloc(1, sizeof *th);
        th->tid = tid;
        th->process = sa->process;
        th->index = (uint32_t)sa->n_threads;
        struct frame_node root = {PATH_SEED, FR_STACK_ROOT, 0};
        if (sa->processes)
            root = root_child(sa, root, FR_STACK_PROCESS | sa->process);
        if (sa->thread_roots)   /* whatever the limit: one per thread, by its index */
            root = root_child(sa, root, FR_STACK_THREAD | (uint32_t)sa->n_threads);
        th->root = root.node;
        th->root_hash = root.hash;
        th->salt = root.node != FR_STACK_ROOT ? root.hash : 0;   /* see path_hash */
        sa->threads = fr_xgrow(sa->threads, &sa->cap_threads, sa->n_threads + 1,
                               sizeof *sa->threads, 16);
        i = (uint32_t)sa->n_threads++;
        sa->threads[i] = th;
        fr_u64_map_put(&sa->by_tid, key, i);
    }
    sa->last = sa->threads[i];
    return sa->last;
}

/* The node of stack[0..depth] from the root; writes the path hashes into pre[0..depth]
 * (grow_frames first). */
static struct frame_node node_of_stack(fr_stack_agg *sa, struct thread_nodes *th,
                                       const uint32_t *stack, uint32_t depth)
{
    struct frame_node f = {th->root_hash, th->root, 0};
    uint64_t p = PATH_SEED;
    for (uint32_t d = 0; d <= depth; d++) {
        p = th->pre[d] = path_hash(p, stack[d]);
        f = d < sa->max_depth ? child_of(sa, f, stack[d], p ^ th->salt) : deeper_child(sa, f);
    }
    return f;
}

static inline void grow_frames(struct thread_nodes *th, uint32_t depth)
{
    if (__builtin_expect(depth >= th->cap, 0)) {
        size_t cap = th->cap;
        th->at = fr_xgrow(th->at, &cap, (size_t)depth + 1, sizeof *th->at, 64);
        th->pre = fr_xrealloc(th->pre, cap * sizeof *th->pre);
        /* at[] is read (as a prefetch hint) before frames are entered: no garbage */
        memset(th->at + th->cap, 0, (cap - th->cap) * sizeof *th->at);
        th->cap = cap;
    }
}

void fr_stack_agg_on_enter(int32_t tid, uint64_t tsc, const uint32_t *stack, uint32_t depth, void *ctx)
{
    (void)tsc;
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, tid);
    grow_frames(th, depth);
    struct frame_node parent = depth == 0 ? (struct frame_node){th->root_hash, th->root, 0}
                             : depth <= th->known ? th->at[depth - 1]
                             : node_of_stack(sa, th, stack, depth - 1);
    uint64_t p = th->pre[depth] = path_hash(depth ? th->pre[depth - 1] : PATH_SEED, stack[depth]);
    th->at[depth] = depth < sa->max_depth ? child_of(sa, parent, stack[depth], p ^ th->salt)
                                          : deeper_child(sa, parent);
    th->known = depth + 1;
}

static inline void count_call(fr_stack_agg *sa, uint32_t node, const fr_call *c)
{
    fr_stack_node *s = node_at(sa, node);
    s->calls++;
    /* a "deeper" node's total: its outermost calls' time only */
    if (c->depth <= sa->max_depth)
        s->total_ticks += fr_call_duration(c);
    s->self_ticks += fr_call_self(c);
    sa->cut_calls += c->depth >= sa->max_depth;
}

void fr_stack_agg_on_call(const fr_call *c, void *ctx)
{
    fr_stack_agg *sa = ctx;
    struct thread_nodes *th = thread_of(sa, c->tid);
    uint32_t node;
    if (c->depth < th->known) {
        node = th->at[c->depth].node;
        /* The deeper entries belong to frames closed by now. */
        th->known = c->depth;
    } else {
        grow_frames(th, c->depth);
        node = node_of_stack(sa, th, c->stack, c->depth).node;
    }
    if (sa->bound && node_at(sa, node)->function_id == FR_STACK_OTHER)   /* see bound_add */
        bound_add(sa, c->depth < sa->max_depth ? th->pre[c->depth] ^ th->salt
                                               : path_hash(th->pre[sa->max_depth - 1] ^ th->salt, FR_STACK_DEEPER),
                  c->depth <= sa->max_depth ? fr_call_duration(c) : 0, fr_call_self(c));
    count_call(sa, node, c);
}

/* fr_stack_agg_set_full: the tree is full. The consumer takes its nodes, then the tree
 * starts again, empty but for the frames open now, so that the calls of those frames that
 * complete later find their nodes (made again, in the new tree's order; the consumer's
 * merge of the trees keeps each stack's first node). The open frames are the first
 * entries of at[] of the threads of the process being fed (entries never written are
 * zeros): at[d] is stale when its node's parent is not at[d-1]'s node (an enter at d-1
 * overwrote that since, which closed the frame at d, or none was ever written there),
 * and then so is every entry above it; an entry that passes the check may
 * still be a frame closed since under a caller still open: made again, its node gets no
 * calls, which the merge adds as nothing. Threads of the processes fed before are not
 * fed again: their nodes are not made again. */
enum { SAME_AS_PARENT = 4 };   /* (at[d] during empty_tree: the node of at[d - 1]) */

/* At[0..hi-1] of a thread of the tree about to be emptied: each open frame's function id
 * in .node, or SAME_AS_PARENT in .absorbs; hi cut at the first stale entry. */
static void note_open_frames(const fr_stack_agg *sa, struct thread_nodes *th)
{
    uint32_t parent = th->root;
    uint32_t d = 0;
    for (; d < th->cap; d++) {
        struct frame_node *f = &th->at[d];
        if (d && f->absorbs && f->node == parent) {   /* below the depth limit: its caller's node */
            f->absorbs |= SAME_AS_PARENT;
            continue;
        }
        if (f->node >= sa->n || node_at(sa, f->node)->parent != parent ||
            node_at(sa, f->node)->function_id == FR_STACK_OTHER)
            break;
        parent = f->node;
        f->node = node_at(sa, parent)->function_id;
    }
    th->hi = d;
}

/* The nodes of a thread's roots and of its open frames (note_open_frames) in the new tree. */
static void make_open_frames(fr_stack_agg *sa, struct thread_nodes *th)
{
    struct frame_node f = {PATH_SEED, FR_STACK_ROOT, 0};
    if (sa->processes)
        f = root_child(sa, f, FR_STACK_PROCESS | th->process);
    if (sa->thread_roots)
        f = root_child(sa, f, FR_STACK_THREAD | th->index);
    th->root = f.node;
    f = (struct frame_node){th->root_hash, th->root, 0};
    for (uint32_t d = 0; d < th->hi; d++) {
        struct frame_node *at = &th->at[d];
        if (at->absorbs & SAME_AS_PARENT)
            *at = f;
        else if (at->node == FR_STACK_DEEPER)
            *at = f = deeper_child(sa, f);
        else
            *at = f = child_of(sa, f, at->node, at->hash);
    }
}

__attribute__((noinline))
static void empty_tree(fr_stack_agg *sa)
{
    sa->full_fn(sa, sa->full_ctx);
    sa->emptied_other += calls_of(sa, FR_STACK_OTHER);
    sa->emptied_deeper += calls_of(sa, FR_STACK_DEEPER);
    for (size_t t = 0; t < sa->n_threads; t++) {
        struct thread_nodes *th = sa->threads[t];
        th->known = 0;   /* (the callbacks' frames: found again from the root) */
        if (th->process == sa->process)
            note_open_frames(sa, th);
    }
    memset(sa->slots, 0, sizeof *sa->slots << sa->slot_bits);
    sa->n = 0;
    for (size_t t = 0; t < sa->n_threads; t++)
        if (sa->threads[t]->process == sa->process)
            make_open_frames(sa, sa->threads[t]);
}

void fr_stack_agg_set_full(fr_stack_agg *sa, size_t max_nodes, fr_stack_full_fn fn, void *ctx)
{
    sa->full_at = max_nodes;
    sa->full_fn = fn;
    sa->full_ctx = ctx;
}

void fr_stack_agg_release(fr_stack_agg *sa)
{
    sa->emptied_other += calls_of(sa, FR_STACK_OTHER);
    sa->emptied_deeper += calls_of(sa, FR_STACK_DEEPER);
    sa->n = 0;
    /* (anonymous pages read back as zeros: an empty table) */
    madvise(sa->nodes, sa->cap_nodes * sizeof *sa->nodes, MADV_DONTNEED);
    madvise(sa->slots, sizeof *sa->slots << sa->slot_bits, MADV_DONTNEED);
}

/* The steps tracker's stream (fr_call_tracker_new_steps): the work of
 * fr_stack_agg_on_enter and fr_stack_agg_on_call without a callback per record, nor the
 * stack array: an enter's parent is at[depth - 1], written by the enter of the frame
 * still open below it (the tracker hands over every open frame's enter first), and its
 * path hash comes with it.
 *
 * On a trace with many stacks, nearly every hash slot and node read is a cache miss, and
 * in a plain loop each waits for the one before. So a chunk of the stream is taken in
 * three passes: the first prefetches each step's slot (for a call, its frame's, touched
 * at the enter already); the second finds each enter's node from the slots, now in
 * cache, and prefetches the node, and lists each call's node and times; the third counts
 * the listed calls in their nodes, mostly in cache by then. (An enter under an "other"
 * node prefetches a slot for nothing.) */
#define CHUNK 256

struct pending_call {
    uint32_t node;
    uint64_t duration, self;
};

/* Counts the listed calls in their nodes. */
static void count_pending(fr_stack_agg *sa, const struct pending_call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fr_stack_node *s = node_at(sa, calls[i].node);
        s->calls++;
        s->total_ticks += calls[i].duration;
        s->self_ticks += calls[i].self;
    }
}

#ifndef AHEAD
#define AHEAD 64
#endif
static inline void prefetch_slot(const fr_stack_agg *sa, uint64_t h)
{
    __builtin_prefetch(&sa->slots[home_slot(h, sa->slot_bits)]);
}

void fr_stack_agg_on_steps(int32_t tid, const fr_call_step *steps, size_t n, void *ctx)
{
    fr_stack_agg *sa = ctx;
    /* room for every step's node and a new thread's two roots, or empty the tree */
    if (sa->full_fn && sa->n + n + 2 > sa->full_at && sa->n)
        empty_tree(sa);
    struct thread_nodes *th = thread_of(sa, tid);
    const uint64_t salt = th->salt;
    const uint32_t max_depth = sa->max_depth;   /* (a local: stores to at[] may alias sa) */
    const bool bounded = sa->bound != NULL;
    struct pending_call calls[CHUNK];
    size_t n_calls = 0;
    for (size_t i = 0; i < n && i < AHEAD; i++)
        prefetch_slot(sa, steps[i].path_hash ^ salt);
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            prefetch_slot(sa, steps[i + AHEAD].path_hash ^ salt);
        const fr_call_step *c = &steps[i];
        uint32_t d = c->depth;
        if (c->flags & FR_CALL_ENTER) {
            grow_frames(th, d);
            struct frame_node parent = d ? th->at[d - 1] : (struct frame_node){th->root_hash, th->root, 0};
            th->pre[d] = c->path_hash;   /* (for a "deeper" stack's identity, bound_add) */
            if (parent.absorbs) {        /* under an "other" or a "deeper" node: that node */
                th->at[d] = parent;
                continue;
            }
            struct frame_node f = __builtin_expect(d < max_depth, 1)
                                ? child_of(sa, parent, c->function_id, c->path_hash ^ salt)
                                : deeper_child(sa, parent);
            th->at[d] = f;
            __builtin_prefetch(node_at(sa, f.node), 1);
            continue;
        }
        /* (a "deeper" node's total: its outermost calls' time only) */
        if (__builtin_expect(d >= max_depth, 0))
            sa->cut_calls++;
        uint64_t duration = d <= max_depth ? c->duration : 0;
        if (bounded && th->at[d].absorbs == ABSORBS_OTHER)   /* its stack's identity in the whole tree */
            bound_add(sa, d < max_depth ? c->path_hash ^ salt
                                        : path_hash(th->pre[max_depth - 1] ^ salt, FR_STACK_DEEPER),
                      duration, c->self);
        calls[n_calls++] = (struct pending_call){th->at[d].node, duration, c->self};
        if (n_calls == CHUNK) {
            count_pending(sa, calls, n_calls);
            n_calls = 0;
        }
    }
    count_pending(sa, calls, n_calls);
}

size_t fr_stack_agg_count(const fr_stack_agg *sa)
{
    return sa->n;
}

const fr_stack_node *fr_stack_agg_node(const fr_stack_agg *sa, uint32_t index)
{
    return index < sa->n ? node_at(sa, index) : NULL;
}

const fr_stack_node *fr_stack_agg_nodes(const fr_stack_agg *sa)
{
    return sa->nodes;
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
    uint64_t h = PATH_SEED, p = PATH_SEED, salt = 0;   /* see path_hash */
    bool roots = true;   /* still in the process and thread roots above the functions */
    for (uint32_t d = 0; d < n; d++) {
        roots = roots && (fr_stack_is_thread(stack[d]) || fr_stack_is_process(stack[d]));
        if (roots)
            h = salt = path_hash(h, stack[d]);
        else if (stack[d] >= FR_STACK_DEEPER)   /* "other", "deeper" */
            h = path_hash(h, stack[d]);
        else
            h = (p = path_hash(p, stack[d])) ^ salt;
        node = lookup(sa, node, stack[d], h, &slot);
        if (node == FR_STACK_ROOT)
            return FR_STACK_ROOT;
    }
    return node;
}
