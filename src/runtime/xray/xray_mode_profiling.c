/*
 * xray_mode_profiling.c - mode "xray-profiling", compiler-rt's profiler: each thread
 * builds a call trie (a node per distinct call path: call count and cumulative local
 * time, i.e. time in the function minus time in its traced callees); a thread hands its
 * trie to the collector when it exits, or at its first traced call after finalize, or,
 * for the thread calling finalize, at finalize. Finalize serialises one block per trie in
 * that order (compiler-rt's profile format, "xrayprof" version 20180424):
 *   file header: u64 magic 0x7872617970726f66, u64 version, u64 time (ns), u64 pid
 *   block:  u32 size, u32 number, u64 thread id, then per node, depth first from each
 *           root (a new root for every call made with an empty stack, as compiler-rt):
 *           the path's function ids leaf to root, i32 0, u64 call count, u64 local time
 * __xray_log_process_buffers hands out the header, then the blocks, between finalize and
 * flush; flush writes them to compiler-rt's log file unless no_flush, and empties the
 * collector. At exit, a mode still initialised is finalised and flushed.
 *
 * Options (XRAY_PROFILING_OPTIONS, then the init string), compiler-rt's:
 *   per_thread_allocator_max (16384): bytes for one thread's trie nodes; a call path that
 *     finds no room is not recorded; the call stack gets as much (deeper calls are counted
 *     as overflow and not recorded, as compiler-rt);
 *   buffers_max (128): compiler-rt gives each thread 4 buffers: at most buffers_max / 4
 *     threads get a trie per session;
 *   stack_allocator_max (2 MiB): bytes for the traversal stack while serialising;
 *   global_allocator_max (32 MiB): bytes for one thread's serialised block;
 *   grace_period_ms (1), no_flush (false).
 * Sizes of the per-thread parts are flightrec's own (16-byte stack entries, 40-byte
 * nodes), so the exact point where a limit cuts differs from compiler-rt's.
 * Timestamps: the TSC (local times are in TSC ticks, as compiler-rt's).
 * Hot path: no lock, no system call; a thread's memory is mapped at its first call.
 */
#define _GNU_SOURCE
#include "xray/xray_internal.h"
#include "arch/port.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct node {
    uint32_t parent;        /* index + 1, 0 for a root */
    uint32_t first_callee;  /* index + 1 of the first callee, in order of first call */
    uint32_t last_callee;
    uint32_t next_sibling;
    int32_t fid;
    uint32_t pad;
    uint64_t count;
    uint64_t local;
};

struct frame {
    uint64_t entry_tsc;
    uint32_t node;          /* index + 1 */
    uint32_t pad;
};

struct trie {
    struct trie *next;      /* in the collector's list (post order) or all_tries */
    struct trie *all_next;
    unsigned generation;
    int posted;
    uint64_t tid;
    struct node *nodes;
    uint32_t node_count, node_cap;
    uint32_t *roots;
    uint32_t root_count, root_cap;
    struct frame *stack;
    uint32_t depth, stack_cap;
    uint32_t overflowed;
    size_t map_size;
};

static int status = XRAY_LOG_UNINITIALIZED;
static int flushing;
static unsigned generation;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct trie *all_tries;              /* every trie of every session, to free */
static struct trie *posted_head, **posted_tail = &posted_head;
static unsigned tries_given;
static unsigned threads_refused;            /* no trie: buffers_max reached (a session) */
static uint64_t calls_unrecorded;           /* no room in a trie (a session, approximate) */

static struct {
    int per_thread_allocator_max, global_allocator_max, stack_allocator_max;
    int grace_period_ms, buffers_max;
    bool no_flush;
} opts;

/* The serialised profile: header + blocks (finalize makes it, flush/reset drop it). */
static uint8_t header[32];
static struct block { uint8_t *data; size_t size; } *blocks;
static size_t block_count;

static __thread struct trie *self;
static __thread int guard;
static pthread_key_t exit_key;

/* ---------------------------------------------------------------- the trie */

static struct trie *new_trie(void)
{
    size_t per = (size_t)(opts.per_thread_allocator_max > 0 ? opts.per_thread_allocator_max : 0);
    uint32_t node_cap = (uint32_t)(per / sizeof(struct node));
    uint32_t stack_cap = (uint32_t)(per / sizeof(struct frame));
    uint32_t root_cap = (uint32_t)(per / sizeof(uint32_t));
    size_t size = sizeof(struct trie) + node_cap * sizeof(struct node) +
                  stack_cap * sizeof(struct frame) + root_cap * sizeof(uint32_t);
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    struct trie *t = mem;
    t->map_size = size;
    t->nodes = (struct node *)(t + 1);
    t->node_cap = node_cap;
    t->stack = (struct frame *)(t->nodes + node_cap);
    t->stack_cap = stack_cap;
    t->roots = (uint32_t *)(t->stack + stack_cap);
    t->root_cap = root_cap;
    t->tid = (uint64_t)gettid();
    return t;
}

static uint32_t add_node(struct trie *t, uint32_t parent, int32_t fid)
{
    if (t->node_count >= t->node_cap)
        return 0;
    uint32_t n = ++t->node_count;
    t->nodes[n - 1] = (struct node){.parent = parent, .fid = fid};
    if (parent) {
        struct node *p = &t->nodes[parent - 1];
        if (p->last_callee)
            t->nodes[p->last_callee - 1].next_sibling = n;
        else
            p->first_callee = n;
        p->last_callee = n;
    }
    return n;
}

static void enter(struct trie *t, int32_t fid, uint64_t tsc)
{
    if (t->overflowed) {
        t->overflowed++;
        __atomic_fetch_add(&calls_unrecorded, 1, __ATOMIC_RELAXED);
        return;
    }
    uint32_t n;
    if (t->depth == 0) {
        if (t->root_count >= t->root_cap || !(n = add_node(t, 0, fid))) {
            __atomic_fetch_add(&calls_unrecorded, 1, __ATOMIC_RELAXED);
            return;
        }
        t->roots[t->root_count++] = n;
    } else {
        uint32_t top = t->stack[t->depth - 1].node;
        n = t->nodes[top - 1].first_callee;
        while (n && t->nodes[n - 1].fid != fid)
            n = t->nodes[n - 1].next_sibling;
        if (!n && !(n = add_node(t, top, fid))) {
            __atomic_fetch_add(&calls_unrecorded, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    if (t->depth >= t->stack_cap) {
        t->overflowed++;
        __atomic_fetch_add(&calls_unrecorded, 1, __ATOMIC_RELAXED);
        return;
    }
    t->stack[t->depth++] = (struct frame){tsc, n, 0};
}

static void leave(struct trie *t, int32_t fid, uint64_t tsc)
{
    if (t->overflowed) {
        t->overflowed--;
        return;
    }
    uint64_t tree = 0;
    while (t->depth) {
        struct frame *f = &t->stack[t->depth - 1];
        struct node *n = &t->nodes[f->node - 1];
        uint64_t local = tsc - f->entry_tsc;   /* wraps correctly, as compiler-rt's */
        n->count++;
        n->local += local - tree;
        tree += local;
        t->depth--;
        if (n->fid == fid)
            break;
    }
}

/* ---------------------------------------------------------------- collector */

static void post_locked(struct trie *t)
{
    if (t->posted || t->generation != generation)
        return;
    t->posted = 1;
    t->next = NULL;
    *posted_tail = t;
    posted_tail = &t->next;
}

static void post_self(void)
{
    struct trie *t = self;
    if (!t)
        return;
    self = NULL;
    pthread_mutex_lock(&lock);
    post_locked(t);
    pthread_mutex_unlock(&lock);
}

static void thread_exit(void *p)
{
    (void)p;
    guard = 1;   /* nothing of this thread is recorded any more */
    post_self();
}

static void drop_profile_locked(void)
{
    for (size_t i = 0; i < block_count; i++)
        free(blocks[i].data);
    free(blocks);
    blocks = NULL;
    block_count = 0;
}

/* The collector's reset: forgets posted tries and the profile; tries of the old session
 * still held by threads are recognised by their generation and dropped by them. */
static void reset_locked(void)
{
    drop_profile_locked();
    generation++;
    struct trie **pp = &all_tries;
    while (*pp) {
        struct trie *t = *pp;
        if (t->posted) {
            *pp = t->all_next;
            munmap(t, t->map_size);
        } else {
            pp = &t->all_next;
        }
    }
    posted_head = NULL;
    posted_tail = &posted_head;
    tries_given = 0;
    threads_refused = 0;
    __atomic_store_n(&calls_unrecorded, 0, __ATOMIC_RELAXED);
}

/* Depth-first from each root: the path (leaf to root), 0, count, local time. */
static int serialize_trie(const struct trie *t, uint32_t number)
{
    size_t stack_cap = (size_t)(opts.stack_allocator_max > 0 ? opts.stack_allocator_max : 0) / 4;
    size_t cap_bytes = (size_t)(opts.global_allocator_max > 0 ? opts.global_allocator_max : 0);
    uint32_t *stack = malloc((stack_cap ? stack_cap : 1) * sizeof *stack);
    size_t size = 16, cap = 4096;
    uint8_t *out = malloc(cap);
    if (!stack || !out) {
        free(stack);
        free(out);
        return -1;
    }
    int full = 0;
    for (uint32_t r = 0; r < t->root_count && !full; r++) {
        size_t sp = 0;
        if (sp < stack_cap)
            stack[sp++] = t->roots[r];
        while (sp && !full) {
            uint32_t n = stack[--sp];
            size_t depth = 0;
            for (uint32_t q = n; q; q = t->nodes[q - 1].parent)
                depth++;
            size_t rec = 4 * depth + 20;
            if (size + rec > cap_bytes) {
                full = 1;
                break;
            }
            if (size + rec > cap) {
                while (size + rec > cap)
                    cap *= 2;
                uint8_t *grown = realloc(out, cap);
                if (!grown) {
                    full = 1;
                    break;
                }
                out = grown;
            }
            for (uint32_t q = n; q; q = t->nodes[q - 1].parent) {
                memcpy(out + size, &t->nodes[q - 1].fid, 4);
                size += 4;
            }
            memset(out + size, 0, 4);
            memcpy(out + size + 4, &t->nodes[n - 1].count, 8);
            memcpy(out + size + 12, &t->nodes[n - 1].local, 8);
            size += 20;
            for (uint32_t c = t->nodes[n - 1].first_callee; c; c = t->nodes[c - 1].next_sibling)
                if (sp < stack_cap)
                    stack[sp++] = c;
        }
    }
    free(stack);
    uint32_t size32 = (uint32_t)size;
    memcpy(out, &size32, 4);
    memcpy(out + 4, &number, 4);
    memcpy(out + 8, &t->tid, 8);
    struct block *grown = realloc(blocks, (block_count + 1) * sizeof *blocks);
    if (!grown) {
        free(out);
        return -1;
    }
    blocks = grown;
    blocks[block_count++] = (struct block){out, size};
    return 0;
}

static void serialize_locked(void)
{
    drop_profile_locked();
    uint32_t number = 0;
    for (struct trie *t = posted_head; t; t = t->next)
        if (t->root_count && serialize_trie(t, number) == 0)
            number++;
    uint64_t magic = 0x7872617970726f66ull, version = 0x20180424ull;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t pid = (uint64_t)getpid();
    memcpy(header, &magic, 8);
    memcpy(header + 8, &version, 8);
    memcpy(header + 16, &now, 8);
    memcpy(header + 24, &pid, 8);
}

static struct XRayBuffer iterator(struct XRayBuffer b)
{
    pthread_mutex_lock(&lock);
    struct XRayBuffer r = {NULL, 0};
    if (block_count) {
        if (!b.Data) {
            r = (struct XRayBuffer){header, sizeof header};
        } else if (b.Data == header) {
            r = (struct XRayBuffer){blocks[0].data, blocks[0].size};
        } else {
            for (size_t i = 0; i + 1 < block_count; i++)
                if (b.Data == blocks[i].data)
                    r = (struct XRayBuffer){blocks[i + 1].data, blocks[i + 1].size};
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---------------------------------------------------------------- handlers */

static void handle(int32_t fid, enum XRayEntryType type)
{
    uint64_t tsc = fr_arch_rdtsc();
    if (guard)
        return;
    guard = 1;
    int st = __atomic_load_n(&status, __ATOMIC_ACQUIRE);
    if (st == XRAY_LOG_FINALIZING || st == XRAY_LOG_FINALIZED) {
        post_self();
    } else if (st == XRAY_LOG_INITIALIZED) {
        struct trie *t = self;
        if (t && t->generation != __atomic_load_n(&generation, __ATOMIC_ACQUIRE)) {
            self = t = NULL;   /* the collector was reset: a new session */
        }
        if (!t) {
            pthread_mutex_lock(&lock);
            if (tries_given < (unsigned)(opts.buffers_max > 0 ? opts.buffers_max : 0) / 4 &&
                (t = new_trie())) {
                t->generation = generation;
                t->all_next = all_tries;
                all_tries = t;
                tries_given++;
                pthread_setspecific(exit_key, (void *)1);
            } else if (!t) {
                threads_refused++;
            }
            pthread_mutex_unlock(&lock);
            self = t;
        }
        if (t) {
            if (type == ENTRY || type == LOG_ARGS_ENTRY)
                enter(t, fid, tsc);
            else if (type == EXIT || type == TAIL)
                leave(t, fid, tsc);
        }
    }
    guard = 0;
}

static void handle_arg1(int32_t fid, enum XRayEntryType type, uint64_t arg)
{
    (void)arg;
    handle(fid, type);
}

/* ---------------------------------------------------------------- the mode */

static enum XRayLogInitStatus prof_finalize(void);
static enum XRayLogFlushStatus prof_flush(void);

static void at_exit(void)
{
    guard = 1;
    if (prof_finalize() != XRAY_LOG_FINALIZED || prof_flush() != XRAY_LOG_FLUSHED)
        return;
    if (xr_verbose())
        xr_report("XRay Profile flushed at exit.");
}

static void setup_once(void)
{
    pthread_key_create(&exit_key, thread_exit);
    atexit(at_exit);
}

static enum XRayLogInitStatus prof_init(size_t buffer_size, size_t max_buffers, void *options,
                                        size_t options_size)
{
    (void)buffer_size;
    (void)max_buffers;
    (void)options_size;
    int expected = XRAY_LOG_UNINITIALIZED;
    if (!__atomic_compare_exchange_n(&status, &expected, XRAY_LOG_INITIALIZING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (xr_verbose())
            xr_report("Cannot initialize already initialised profiling implementation.\n");
        return (enum XRayLogInitStatus)expected;
    }
    xr_flags_init();
    int per = 16384, global = 2 << 24, stack = 2 << 20, grace = 1, bmax = 128;
    bool no_flush = false;
    const struct xr_flag table[] = {
        {"per_thread_allocator_max", XR_FLAG_INT, &per, 0},
        {"global_allocator_max", XR_FLAG_INT, &global, 0},
        {"stack_allocator_max", XR_FLAG_INT, &stack, 0},
        {"grace_period_ms", XR_FLAG_INT, &grace, 0},
        {"no_flush", XR_FLAG_BOOL, &no_flush, 0},
        {"buffers_max", XR_FLAG_INT, &bmax, 0},
    };
    const size_t n = sizeof table / sizeof table[0];
    int bad = xr_parse_flags(secure_getenv("XRAY_PROFILING_OPTIONS"), "XRAY_PROFILING_OPTIONS",
                             table, n, NULL, NULL, 0);
    if (options)
        bad |= xr_parse_flags((const char *)options, "xray-profiling options", table, n, NULL,
                              NULL, 0);
    if (bad) {
        __atomic_store_n(&status, XRAY_LOG_UNINITIALIZED, __ATOMIC_RELEASE);
        return XRAY_LOG_UNINITIALIZED;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_once);
    pthread_mutex_lock(&lock);
    opts.per_thread_allocator_max = per;
    opts.global_allocator_max = global;
    opts.stack_allocator_max = stack;
    opts.grace_period_ms = grace;
    opts.no_flush = no_flush;
    opts.buffers_max = bmax;
    reset_locked();
    pthread_mutex_unlock(&lock);
    __xray_log_set_buffer_iterator(iterator);
    __xray_set_handler(handle);
    __xray_set_handler_arg1(handle_arg1);
    __atomic_store_n(&status, XRAY_LOG_INITIALIZED, __ATOMIC_RELEASE);
    if (xr_verbose())
        xr_report("XRay Profiling init successful.\n");
    return XRAY_LOG_INITIALIZED;
}

static enum XRayLogInitStatus prof_finalize(void)
{
    int expected = XRAY_LOG_INITIALIZED;
    if (!__atomic_compare_exchange_n(&status, &expected, XRAY_LOG_FINALIZING, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (xr_verbose())
            xr_report("Cannot finalize profile, the profiling is not initialized.\n");
        return (enum XRayLogInitStatus)expected;
    }
    if (opts.grace_period_ms > 0) {
        struct timespec d = {opts.grace_period_ms / 1000,
                             (long)(opts.grace_period_ms % 1000) * 1000000L};
        while (nanosleep(&d, &d) != 0 && errno == EINTR)
            ;
    }
    int saved = guard;
    guard = 1;
    post_self();
    guard = saved;
    pthread_mutex_lock(&lock);
    serialize_locked();
    unsigned refused = threads_refused;
    uint64_t unrecorded = __atomic_load_n(&calls_unrecorded, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
    /* compiler-rt leaves these out silently: we say so. */
    if (refused)
        xr_report("flightrec: xray-profiling: %u threads not profiled (buffers_max=%d: %d "
                  "threads)\n", refused, opts.buffers_max, opts.buffers_max / 4);
    if (unrecorded)
        xr_report("flightrec: xray-profiling: %llu calls not profiled (no room in a thread's "
                  "trie: raise per_thread_allocator_max)\n", (unsigned long long)unrecorded);
    __atomic_store_n(&status, XRAY_LOG_FINALIZED, __ATOMIC_RELEASE);
    return XRAY_LOG_FINALIZED;
}

static enum XRayLogFlushStatus prof_flush(void)
{
    if (__atomic_load_n(&status, __ATOMIC_ACQUIRE) != XRAY_LOG_FINALIZED) {
        if (xr_verbose())
            xr_report("Not flushing profiles, profiling not been finalized.\n");
        return XRAY_LOG_NOT_FLUSHING;
    }
    if (__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) {
        if (xr_verbose())
            xr_report("Not flushing profiles, implementation still flushing.\n");
        return XRAY_LOG_FLUSHING;
    }
    pthread_mutex_lock(&lock);
    if (!opts.no_flush) {
        if (!block_count) {
            if (xr_verbose())
                xr_report("profiling: No data to flush.\n");
        } else {
            char path[XR_BASE_MAX + 512];
            int fd = xr_open_logfile(path, sizeof path);
            if (fd < 0) {
                if (xr_verbose())
                    xr_report("profiling: Failed to flush to file, dropping data.\n");
            } else {
                int err = 0;
                for (size_t i = 0; i <= block_count && !err; i++) {
                    const uint8_t *p = i ? blocks[i - 1].data : header;
                    size_t len = i ? blocks[i - 1].size : sizeof header;
                    while (len) {
                        ssize_t w = write(fd, p, len);
                        if (w < 0 && errno == EINTR)
                            continue;
                        if (w <= 0) {
                            err = 1;
                            break;
                        }
                        p += w;
                        len -= (size_t)w;
                    }
                }
                if (close(fd) != 0 || err)
                    xr_report("profiling: Failed to write %s; the profile is incomplete\n", path);
            }
        }
    }
    reset_locked();
    pthread_mutex_unlock(&lock);
    __atomic_store_n(&status, XRAY_LOG_UNINITIALIZED, __ATOMIC_RELEASE);
    __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
    return XRAY_LOG_FLUSHED;
}

FR_HIDDEN const struct XRayLogImpl xr_profiling_impl = {prof_init, prof_finalize, handle,
                                                        prof_flush};
