/*
 * stack_spill.c - see stack_spill.h.
 *
 * Three files, all unlinked temporaries:
 *  - runs: each run's nodes in path order (a depth-first walk of the tree, each node's
 *    children by function id), as (depth, function id, index, figures): a path is the
 *    ids of the records before it at the depths above, so runs merge as sorted lists,
 *    comparing the paths the records spell, with no path stored;
 *  - nodes: each run's (parent, function id) by index, to spell the path of a node;
 *  - firsts (fr_stack_spill_by_creation): the merge's output, each distinct stack's
 *    index and summed figures, in a region of the run that first had it (as many
 *    places as that run's nodes), so that each run's firsts are read back together and
 *    written in index order: the runs in order, and each run's new stacks in its order,
 *    are the whole tree's order.
 */
#define _GNU_SOURCE   /* O_TMPFILE, qsort_r */
#include "stack_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fr_alloc.h"
#include "temp_space.h"

struct run_rec {
    uint32_t depth, function_id, index, pad;
    uint64_t calls, total, self;
};
struct node_rec { uint32_t parent, function_id; };
struct first_rec {
    uint32_t index, pad;
    uint64_t calls, total, self;
};
_Static_assert(sizeof(struct run_rec) == 40, "runs file layout");
_Static_assert(sizeof(struct first_rec) == 32, "firsts file layout");

struct run {
    uint64_t start;    /* its first node, counting the nodes of every run before it */
    uint64_t n;        /* its nodes (records in runs and in nodes) */
    uint64_t firsts;   /* firsts written in its region */
};

/* A buffered sequential writer at a file offset. */
struct writer {
    int fd;
    uint64_t off;
    char *buf;
    size_t len, cap;
};

struct fr_stack_spill {
    const char *command;
    const char *dir;
    int say_fd;                       /* where a failure is said */
    int runs_fd, nodes_fd, firsts_fd;
    struct writer runs_w, nodes_w;
    struct run *runs;
    size_t n_runs, cap_runs;
    uint64_t n_nodes;                 /* nodes of every run */
    struct sigaction old_xfsz;
};

/* ---------------------------------------------------------------- files */

static _Noreturn void fail(const fr_stack_spill *sp, const char *what, int err)
{
    fflush(stderr);
    dprintf(sp->say_fd, "flightrec %s: %s the stacks' temporary file in %s (more distinct stacks "
            "than memory holds are kept there): %s\n", sp->command, what, sp->dir,
            err ? strerror(err) : "short read");
    exit(1);
}

static int temp_file(fr_stack_spill *sp)
{
    int fd = open(sp->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {   /* a file system without O_TMPFILE: a name no one else can have, gone at once */
        char path[4096];
        snprintf(path, sizeof path, "%s/flightrec-stacks-XXXXXX", sp->dir);
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0)
            unlink(path);
    }
    if (fd < 0)
        fail(sp, "cannot create", errno);
    return fd;
}

/* Before writing `more` bytes: the file system keeps its reserve (temp_space.h), so that
 * a trace with millions of stacks cannot fill a shared disk to its last byte. */
static void check_room(const fr_stack_spill *sp, int fd, uint64_t more)
{
    uint64_t reserve, room = fr_temp_room(fd, &reserve);
    if (room == UINT64_MAX || room >= more)
        return;
    fflush(stderr);
    dprintf(sp->say_fd, "flightrec %s: stopped: %llu MiB more of the stacks' temporary files in %s "
            "(more distinct stacks than memory holds are kept there) would leave less than %llu "
            "MiB free there; set TMPDIR to a roomier place\n", sp->command,
            (unsigned long long)(more >> 20) + 1, sp->dir, (unsigned long long)(reserve >> 20));
    exit(1);
}

static void put_at(const fr_stack_spill *sp, int fd, const void *p, size_t n, uint64_t off)
{
    const char *c = p;
    while (n) {
        ssize_t w = pwrite(fd, c, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fail(sp, "writing", w < 0 ? errno : ENOSPC);
        c += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
}

static void get_at(const fr_stack_spill *sp, int fd, void *p, size_t n, uint64_t off)
{
    char *c = p;
    while (n) {
        ssize_t r = pread(fd, c, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            fail(sp, "reading", r < 0 ? errno : 0);
        c += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
}

static void writer_init(struct writer *w, int fd, uint64_t off, size_t cap)
{
    *w = (struct writer){.fd = fd, .off = off, .cap = cap};
}

static void writer_flush(const fr_stack_spill *sp, struct writer *w)
{
    if (w->len)
        put_at(sp, w->fd, w->buf, w->len, w->off);
    w->off += w->len;
    w->len = 0;
}

static inline void writer_put(const fr_stack_spill *sp, struct writer *w, const void *p, size_t n)
{
    if (w->len + n > w->cap)
        writer_flush(sp, w);
    if (!w->buf)
        w->buf = fr_xrealloc(NULL, w->cap);
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void writer_free(struct writer *w)
{
    free(w->buf);
    w->buf = NULL;
}

fr_stack_spill *fr_stack_spill_new(const char *command)
{
    fr_stack_spill *sp = fr_xcalloc(1, sizeof *sp);
    sp->command = command;
    sp->dir = getenv("TMPDIR");
    if (!sp->dir || !*sp->dir)
        sp->dir = "/tmp";
    sp->runs_fd = sp->nodes_fd = sp->firsts_fd = -1;
    sp->say_fd = 2;
    /* Past ulimit -f a write fails with EFBIG (said so) instead of killing us. */
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &sp->old_xfsz);
    return sp;
}

void fr_stack_spill_free(fr_stack_spill *sp)
{
    if (!sp)
        return;
    writer_free(&sp->runs_w);
    writer_free(&sp->nodes_w);
    if (sp->runs_fd >= 0) close(sp->runs_fd);
    if (sp->nodes_fd >= 0) close(sp->nodes_fd);
    if (sp->firsts_fd >= 0) close(sp->firsts_fd);
    sigaction(SIGXFSZ, &sp->old_xfsz, NULL);
    free(sp->runs);
    free(sp);
}

void fr_stack_spill_say_to(fr_stack_spill *sp, int fd)
{
    sp->say_fd = fd;
}

void fr_stack_spill_attach(fr_stack_spill *sp, fr_stack_agg *sa, size_t max_nodes)
{
    fr_stack_agg_set_full(sa, max_nodes, fr_stack_spill_on_full, sp);
}

size_t fr_stack_spill_runs(const fr_stack_spill *sp)
{
    return sp->n_runs;
}

/* ---------------------------------------------------------------- writing a run */

/* Children of one node, by function id (insertion sort: most groups are small). */
static int by_function(const void *a, const void *b, void *ctx)
{
    const fr_stack_node *nodes = ctx;
    uint32_t x = nodes[*(const uint32_t *)a].function_id, y = nodes[*(const uint32_t *)b].function_id;
    return (x > y) - (x < y);
}

static void sort_group(const fr_stack_node *nodes, uint32_t *g, size_t n)
{
    if (n > 16) {
        qsort_r(g, n, sizeof *g, by_function, (void *)nodes);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint32_t v = g[i], f = nodes[v].function_id;
        size_t j = i;
        for (; j > 0 && nodes[g[j - 1]].function_id > f; j--)
            g[j] = g[j - 1];
        g[j] = v;
    }
}

/* The tree's nodes as a run: the nodes file in index order, the runs file in path order. */
static void write_run(fr_stack_spill *sp, const fr_stack_agg *sa)
{
    size_t n = fr_stack_agg_count(sa);
    if (!n)
        return;
    if (sp->runs_fd < 0) {
        sp->runs_fd = temp_file(sp);
        sp->nodes_fd = temp_file(sp);
        writer_init(&sp->runs_w, sp->runs_fd, 0, 1u << 16);
        writer_init(&sp->nodes_w, sp->nodes_fd, 0, 1u << 16);
    }
    check_room(sp, sp->runs_fd, n * (sizeof(struct run_rec) + sizeof(struct node_rec)));
    /* Children lists: group g holds the children of node g - 1 (group 0: the roots),
     * in kids[first[g] .. first[g + 1]); counted two places up, so that after the sums
     * first[g + 1] is group g's start, the cursor of its placing, which leaves it at the
     * group's end. */
    const fr_stack_node *nodes = fr_stack_agg_nodes(sa);
    uint32_t *first = fr_xcalloc(n + 3, sizeof *first), *kids = fr_xrealloc(NULL, n * sizeof *kids);
    for (size_t i = 0; i < n; i++) {
        const fr_stack_node *s = &nodes[i];
        first[s->parent == FR_STACK_ROOT ? 2 : s->parent + 3]++;
        struct node_rec r = {s->parent, s->function_id};
        writer_put(sp, &sp->nodes_w, &r, sizeof r);
    }
    for (size_t g = 1; g < n + 3; g++)
        first[g] += first[g - 1];
    for (size_t i = 0; i < n; i++) {
        uint32_t p = nodes[i].parent;
        kids[first[p == FR_STACK_ROOT ? 1 : p + 2]++] = (uint32_t)i;
    }
    for (size_t g = 0; g < n + 1; g++)
        if (first[g + 1] - first[g] > 1)
            sort_group(nodes, kids + first[g], first[g + 1] - first[g]);
    /* Depth first: at each depth, where the walk is in its group and the group's end.
     * The walk lists the nodes and their depths first, then their records are written
     * from the list, each node prefetched well ahead (in path order the nodes are all
     * over the tree: each one a cache miss otherwise). */
    size_t cap = 64, k = 0;
    uint32_t *pos = fr_xrealloc(NULL, cap * sizeof *pos), *end = fr_xrealloc(NULL, cap * sizeof *end);
    uint32_t *walk = fr_xrealloc(NULL, n * sizeof *walk), *depth = fr_xrealloc(NULL, n * sizeof *depth);
    size_t d = 0;
    pos[0] = first[0];
    end[0] = first[1];
    for (;;) {
        if (pos[d] == end[d]) {
            if (d-- == 0)
                break;
            continue;
        }
        uint32_t v = kids[pos[d]++];
        walk[k] = v;
        depth[k++] = (uint32_t)d;
        if (++d == cap) {
            size_t c = cap;
            pos = fr_xgrow(pos, &c, cap + 1, sizeof *pos, 64);
            end = fr_xrealloc(end, c * sizeof *end);
            cap = c;
        }
        pos[d] = first[v + 1];
        end[d] = first[v + 2];
    }
    enum { AHEAD = 16 };
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            __builtin_prefetch(&nodes[walk[i + AHEAD]]);
        const fr_stack_node *s = &nodes[walk[i]];
        struct run_rec r = {depth[i], s->function_id, walk[i], 0, s->calls, s->total_ticks, s->self_ticks};
        writer_put(sp, &sp->runs_w, &r, sizeof r);
    }
    free(walk);
    free(depth);
    free(pos);
    free(end);
    free(first);
    free(kids);
    sp->runs = fr_xgrow(sp->runs, &sp->cap_runs, sp->n_runs + 1, sizeof *sp->runs, 16);
    sp->runs[sp->n_runs++] = (struct run){.start = sp->n_nodes, .n = n};
    sp->n_nodes += n;
}

void fr_stack_spill_on_full(fr_stack_agg *sa, void *ctx)
{
    write_run(ctx, sa);
}

void fr_stack_spill_last_run(fr_stack_spill *sp, fr_stack_agg *sa)
{
    write_run(sp, sa);
    if (sp->runs_fd >= 0) {
        writer_flush(sp, &sp->runs_w);
        writer_flush(sp, &sp->nodes_w);
        writer_free(&sp->runs_w);
        writer_free(&sp->nodes_w);
    }
    fr_stack_agg_release(sa);
}

/* ---------------------------------------------------------------- merging the runs */

/* One run read back: its records in turn, and the path they spell. */
struct stream {
    uint32_t run;
    uint64_t next, end;         /* records of the runs file */
    struct run_rec *buf;
    size_t buf_len, buf_at, buf_cap;
    struct run_rec cur;
    uint32_t *path;
    uint32_t len, cap;
};

/* The stream's next record; false at its end. */
static bool stream_next(const fr_stack_spill *sp, struct stream *s)
{
    if (s->buf_at == s->buf_len) {
        if (s->next == s->end)
            return false;
        size_t k = s->end - s->next < s->buf_cap ? (size_t)(s->end - s->next) : s->buf_cap;
        get_at(sp, sp->runs_fd, s->buf, k * sizeof *s->buf, s->next * sizeof *s->buf);
        s->next += k;
        s->buf_len = k;
        s->buf_at = 0;
    }
    s->cur = s->buf[s->buf_at++];
    uint32_t d = s->cur.depth;
    if (d >= s->cap) {
        size_t c = s->cap;
        s->path = fr_xgrow(s->path, &c, (size_t)d + 1, sizeof *s->path, 64);
        s->cap = (uint32_t)c;
    }
    s->path[d] = __builtin_bswap32(s->cur.function_id);   /* (big-endian: see stream_cmp) */
    s->len = d + 1;
    return true;
}

/* Path order, then run order (a stack's first run comes out first). The paths' ids are
 * big-endian, so that memcmp compares them in order, many at a time. */
static int stream_cmp(const struct stream *a, const struct stream *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->path, b->path, n * sizeof *a->path);
    if (c)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

static void heap_down(struct stream **h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < n && stream_cmp(h[l], h[m]) < 0) m = l;
        if (r < n && stream_cmp(h[r], h[m]) < 0) m = r;
        if (m == i)
            return;
        struct stream *t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}

static bool same_path(const struct stream *a, const uint32_t *path, uint32_t len)
{
    return a->len == len && !memcmp(a->path, path, len * sizeof *path);
}

void fr_stack_spill_merge(fr_stack_spill *sp, fr_spilled_fn fn, void *ctx)
{
    size_t n = sp->n_runs;
    if (!n)
        return;
    /* about 4 MiB of buffers in all, at least 16 records a run */
    size_t per = ((size_t)4 << 20) / sizeof(struct run_rec) / n;
    per = per < 16 ? 16 : per > 4096 ? 4096 : per;
    struct stream *st = fr_xcalloc(n, sizeof *st);
    struct stream **heap = fr_xrealloc(NULL, n * sizeof *heap);
    size_t h = 0;
    uint64_t at = 0;
    for (size_t r = 0; r < n; r++) {
        st[r] = (struct stream){.run = (uint32_t)r, .next = at, .end = at + sp->runs[r].n,
                                .buf = fr_xrealloc(NULL, per * sizeof *st[r].buf), .buf_cap = per};
        at += sp->runs[r].n;
        if (stream_next(sp, &st[r]))
            heap[h++] = &st[r];
    }
    for (size_t i = h / 2; i-- > 0;)
        heap_down(heap, h, i);
    uint32_t *path = NULL, *ids = NULL, cap = 0;   /* the stack's path: big-endian, as given */
    while (h) {
        struct stream *s = heap[0];
        if (s->len > cap) {
            size_t c = cap;
            path = fr_xgrow(path, &c, s->len, sizeof *path, 64);
            ids = fr_xrealloc(ids, c * sizeof *ids);
            cap = (uint32_t)c;
        }
        memcpy(path, s->path, s->len * sizeof *path);
        for (uint32_t d = 0; d < s->len; d++)
            ids[d] = __builtin_bswap32(path[d]);
        fr_spilled_stack out = {ids, s->len, 0, 0, 0, (uint64_t)s->run << 32 | s->cur.index};
        /* every run's record of this path: the heap's smallest while it is this path */
        while (h && same_path(heap[0], path, out.len)) {
            s = heap[0];
            out.calls += s->cur.calls;
            out.total_ticks += s->cur.total;
            out.self_ticks += s->cur.self;
            if (!stream_next(sp, s))
                heap[0] = heap[--h];
            heap_down(heap, h, 0);
        }
        fn(&out, ctx);
    }
    for (size_t r = 0; r < n; r++) {
        free(st[r].buf);
        free(st[r].path);
    }
    free(st);
    free(heap);
    free(path);
    free(ids);
}

/* ---------------------------------------------------------------- creation order */

struct firsts {
    fr_stack_spill *sp;
    struct writer *w;   /* per run, at its region */
    size_t per;         /* each writer's buffer */
};

static void put_first(const fr_spilled_stack *s, void *ctx)
{
    struct firsts *f = ctx;
    uint32_t r = (uint32_t)(s->order >> 32);
    struct first_rec rec = {(uint32_t)s->order, 0, s->calls, s->total_ticks, s->self_ticks};
    writer_put(f->sp, &f->w[r], &rec, sizeof rec);
    f->sp->runs[r].firsts++;
}

void fr_stack_spill_by_creation(fr_stack_spill *sp, fr_spilled_fn fn, void *ctx)
{
    size_t n = sp->n_runs;
    if (!n)
        return;
    if (sp->firsts_fd < 0)
        sp->firsts_fd = temp_file(sp);
    check_room(sp, sp->firsts_fd, sp->n_nodes * sizeof(struct first_rec));
    struct firsts f = {sp, fr_xcalloc(n, sizeof *f.w), 0};
    size_t per = ((size_t)4 << 20) / n;   /* 4 MiB of buffers in all */
    per = per < 512 ? 512 : per > (1u << 16) ? (1u << 16) : per;
    per -= per % sizeof(struct first_rec);
    for (size_t r = 0; r < n; r++) {
        writer_init(&f.w[r], sp->firsts_fd, sp->runs[r].start * sizeof(struct first_rec), per);
        sp->runs[r].firsts = 0;
    }
    fr_stack_spill_merge(sp, put_first, &f);
    for (size_t r = 0; r < n; r++) {
        writer_flush(sp, &f.w[r]);
        writer_free(&f.w[r]);
    }
    free(f.w);
    /* Each run in turn: its nodes' parents, its firsts by index, a path per first. */
    uint32_t *path = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < n; r++) {
        const struct run *run = &sp->runs[r];
        if (!run->firsts)
            continue;
        struct node_rec *nodes = fr_xrealloc(NULL, run->n * sizeof *nodes);
        get_at(sp, sp->nodes_fd, nodes, run->n * sizeof *nodes, run->start * sizeof *nodes);
        struct first_rec *recs = fr_xrealloc(NULL, run->firsts * sizeof *recs);
        get_at(sp, sp->firsts_fd, recs, run->firsts * sizeof *recs, run->start * sizeof *recs);
        /* by index: each first's place in recs, UINT32_MAX for the nodes that are not */
        uint32_t *at = fr_xrealloc(NULL, run->n * sizeof *at);
        memset(at, 0xFF, run->n * sizeof *at);
        for (uint64_t k = 0; k < run->firsts; k++)
            at[recs[k].index] = (uint32_t)k;
        for (uint64_t i = 0; i < run->n; i++) {
            if (at[i] == UINT32_MAX)
                continue;
            const struct first_rec *rec = &recs[at[i]];
            uint32_t len = 0;
            for (uint32_t v = (uint32_t)i; v != FR_STACK_ROOT; v = nodes[v].parent)
                len++;
            if (len > cap)
                path = fr_xgrow(path, &cap, len, sizeof *path, 64);
            uint32_t d = len;
            for (uint32_t v = (uint32_t)i; v != FR_STACK_ROOT; v = nodes[v].parent)
                path[--d] = nodes[v].function_id;
            fr_spilled_stack s = {path, len, rec->calls, rec->total, rec->self, (uint64_t)r << 32 | i};
            fn(&s, ctx);
        }
        free(at);
        free(recs);
        free(nodes);
    }
    free(path);
}

uint32_t fr_stack_spill_path(fr_stack_spill *sp, uint64_t order, uint32_t *ids, uint32_t cap)
{
    const struct run *run = &sp->runs[order >> 32];
    uint32_t *rev = NULL, len = 0;
    size_t rcap = 0;
    for (uint32_t v = (uint32_t)order; v != FR_STACK_ROOT;) {
        struct node_rec r;
        get_at(sp, sp->nodes_fd, &r, sizeof r, (run->start + v) * sizeof r);
        rev = fr_xgrow(rev, &rcap, (size_t)len + 1, sizeof *rev, 64);
        rev[len++] = r.function_id;
        v = r.parent;
    }
    for (uint32_t d = 0; d < len && d < cap; d++)
        ids[d] = rev[len - 1 - d];
    free(rev);
    return len;
}
