/*
 * pool_budget.c - how big the buffer pool's mapping is for given options, and whether
 * it fits in what the process may still have (RLIMIT_AS, the memory cgroup's limit on
 * every level, MemAvailable). fr_pool_create refuses a pool that does not fit; the
 * `flightrec record` command asks the same before it runs the program, so that a pool
 * the runtime would refuse is an error, not an untraced run.
 * No stdio, no malloc: it runs from the start-up constructor of any program.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/buffer_desc.h"
#include "core/chunk_queue.h"
#include "core/pool_budget.h"

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

int fr_pool_layout_of(const struct fr_options *o, struct fr_pool_layout *l)
{
    const size_t page = 4096;
    size_t data = (size_t)o->buffers * o->buffer_size;
    if (o->buffers && data / o->buffers != o->buffer_size)
        return -1;
    l->data = round_up(data, page);
    uint64_t ndesc = (uint64_t)o->buffers * (1 + fr_pool_small_per(o->buffer_size));
    l->bufs = round_up((size_t)ndesc * sizeof(struct fr_buffer_desc), page);
    l->threads = round_up(FR_MAX_THREADS * sizeof(struct fr_thread_desc), page);
    /* the file writer's sorted buffers, then sorted thread slots (fr_pool_sort_for_file) */
    l->scratch = round_up((size_t)(ndesc + FR_MAX_THREADS) * sizeof(uint32_t), page);
    /* The completion queue (buffers and small ones) may hold stale entries besides one
     * per descriptor (buffers the stream writer took from under it): twice the room. */
    l->done_q = round_up((size_t)(2 * fr_queue_cells_for(ndesc)) * sizeof(struct fr_queue_cell), page);
    l->free_q = round_up((size_t)(2 * fr_queue_cells_for(o->buffers)) * sizeof(struct fr_queue_cell),
                         page);
    l->total = l->data + l->bufs + l->threads + l->scratch + l->done_q + l->free_q;
    return l->data < data || l->total < l->data ? -1 : 0;
}

/* Reads a small file into buf (NUL-terminated); bytes read or -1. No stdio, no malloc. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return n;
}

static uint64_t parse_u64(const char *s, const char **end)
{
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (uint64_t)(*s++ - '0');
    if (end)
        *end = s;
    return v;
}

/* Bytes a memory cgroup still allows: the smallest limit - usage from the cgroup of
 * this process up to the hierarchy's root. `line` is the cgroup path (after the second
 * colon of its /proc/self/cgroup line). UINT64_MAX when unlimited or unknown. */
static uint64_t cgroup_path_room(const char *cgpath, const char *base, const char *limit_file,
                                 const char *usage_file)
{
    char dir[1200];
    size_t blen = strlen(base), len = blen;
    memcpy(dir, base, blen);
    for (const char *p = cgpath; *p && *p != '\n' && len < 1000; p++)
        dir[len++] = *p;
    while (len > blen && dir[len - 1] == '/')
        len--;
    uint64_t room = UINT64_MAX;
    for (;;) {
        char f[1300], v[64];
        size_t n = len;
        memcpy(f, dir, n);
        f[n++] = '/';
        memcpy(f + n, limit_file, strlen(limit_file) + 1);
        /* "max" (v2) or a number near 2^63 (v1) mean no limit */
        if (read_small(f, v, sizeof v) > 0 && v[0] >= '0' && v[0] <= '9') {
            uint64_t max = parse_u64(v, NULL), cur = 0;
            memcpy(f + n, usage_file, strlen(usage_file) + 1);
            if (read_small(f, v, sizeof v) > 0)
                cur = parse_u64(v, NULL);
            uint64_t r = max > cur ? max - cur : 0;
            if (max < (1ull << 62) && r < room)
                room = r;
        }
        if (len <= blen)
            break;
        while (len > blen && dir[len - 1] != '/')
            len--;
        if (len > blen)
            len--;   /* drop the slash */
    }
    return room;
}

/* Bytes the memory cgroup of this process (v2, or v1's memory controller) still allows. */
static uint64_t cgroup_room(void)
{
    char buf[4096];
    if (read_small("/proc/self/cgroup", buf, sizeof buf) <= 0)
        return UINT64_MAX;
    uint64_t room = UINT64_MAX, r;
    const char *v2 = strstr(buf, "0::");
    if (v2 && (v2 == buf || v2[-1] == '\n')) {
        r = cgroup_path_room(v2 + 3, "/sys/fs/cgroup", "memory.max", "memory.current");
        if (r < room)
            room = r;
    }
    const char *v1 = strstr(buf, ":memory:");
    if (v1) {
        r = cgroup_path_room(v1 + 8, "/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                             "memory.usage_in_bytes");
        if (r < room)
            room = r;
    }
    return room;
}

/* MemAvailable of /proc/meminfo in bytes, or UINT64_MAX. */
static uint64_t mem_available(void)
{
    char buf[4096];
    if (read_small("/proc/meminfo", buf, sizeof buf) <= 0)
        return UINT64_MAX;
    const char *p = strstr(buf, "MemAvailable:");
    if (!p)
        return UINT64_MAX;
    p += 13;
    while (*p == ' ')
        p++;
    return parse_u64(p, NULL) * 1024;
}

/* Address space left under RLIMIT_AS, or UINT64_MAX. */
static uint64_t as_room(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    char buf[128];
    uint64_t vsize = 0;
    if (read_small("/proc/self/statm", buf, sizeof buf) > 0)
        vsize = parse_u64(buf, NULL) * (uint64_t)sysconf(_SC_PAGESIZE);
    return rl.rlim_cur > vsize ? rl.rlim_cur - vsize : 0;
}

/* The pool may take at most 7/8 of what the process can still get (the program needs
 * the rest). */
int fr_pool_budget(uint64_t need, uint64_t *room, const char **limit)
{
    struct { uint64_t room; const char *what; } lim[3] = {
        { as_room(), "RLIMIT_AS (ulimit -v)" },
        { cgroup_room(), "the memory cgroup's limit" },
        { mem_available(), "MemAvailable" },
    };
    for (int i = 0; i < 3; i++)
        if (lim[i].room != UINT64_MAX && need > lim[i].room - lim[i].room / 8) {
            *room = lim[i].room;
            *limit = lim[i].what;
            return -1;
        }
    return 0;
}
