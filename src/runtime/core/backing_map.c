/*
 * backing_map.c - the pool in a MAP_SHARED mapping of a file (backing=PATH), so that
 * what a process recorded outlives it when it dies without writing its trace (SIGKILL,
 * the OOM killer, _exit). The record path is the same: the same stores into a mapping;
 * only where the mapping's pages come from differs. Layout: src/common/fr_backing.h;
 * policies (fork, normal exit, removal): docs/BACKING.md.
 *
 * The file is created as every file we create (docs/THREAT_MODEL.md): O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode from file_mode= (0600 by default), never an existing file or link.
 * Its space is reserved with fallocate, so that a full tmpfs refuses a buffer (its records
 * are counted as dropped) instead of killing the program with SIGBUS at a record on an
 * unbacked page: the header and descriptors at init, the buffers' data 2 MiB at a time
 * as the pool hands out buffers it never used (fr_backing_reserve), so that a program
 * that records little costs little memory (a backing file is usually on /dev/shm).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/backing_map.h"
#include "core/fd_guard.h"
#include "core/output_path.h"
#include "core/session.h"
#include "core/text_out.h"
#include "core/new_file.h"
#include "core/write_error.h"
#include "core/write_signals.h"
#include "fr_backing.h"

char fr_backing_path[FR_OPTIONS_PATH_MAX];

/* Data space is reserved in steps of this many bytes (a huge page: tmpfs may give one),
 * remembered in a bitmap; past what the bitmap covers (128 GiB) every call reserves. */
#define RESERVE_STEP  (2ull << 20)
#define RESERVE_WORDS 1024

static struct {
    uint8_t *base;      /* the header; the pool is at base + FR_BACKING_POOL_OFFSET */
    size_t   size;
    dev_t    dev;
    ino_t    ino;
    pid_t    pid;       /* the process that created it: only it removes it */
    uint32_t gen;       /* the set of event sites the file holds (fr_backing_generation) */
    uint64_t carried;   /* fork child: bytes of event sites copied from the parent's file */
    size_t   data_size; /* the pool's buffers and thread slots: reserved by fr_backing_reserve */
    size_t   threads_off, threads_len;
    uint64_t reserved[RESERVE_WORDS];   /* bit per RESERVE_STEP of data: reserved (atomic) */
} bk;
static uint32_t last_gen;

void fr_backing_say(const char *what, const char *path, int err)
{
    char msg[FR_OPTIONS_PATH_MAX + 256];
    size_t len = 0;
    fr_fmt_str(msg, sizeof msg, &len, "flightrec: backing file ");
    fr_fmt_str(msg, sizeof msg, &len, path);
    fr_fmt_str(msg, sizeof msg, &len, ": ");
    fr_fmt_str(msg, sizeof msg, &len, what);
    if (err) {
        fr_fmt_str(msg, sizeof msg, &len, ": ");
        fr_fmt_write_error(msg, sizeof msg, &len, err);
    }
    fr_fmt_str(msg, sizeof msg, &len, "\n");
    fr_write_stderr(msg, len);
}

/* O_EXCL on PATH; if it exists (the same pid before an exec left its file), PATH.1 ..
 * PATH.9: a name someone else planted is never opened, only skipped. */
static int create_file(const char *path, mode_t mode, char *used, size_t cap)
{
    size_t n = strlen(path);
    if (n + 3 > cap)
        return -ENAMETOOLONG;
    for (int k = 0; k < 10; k++) {
        memcpy(used, path, n + 1);
        if (k) {
            used[n] = '.';
            used[n + 1] = (char)('0' + k);
            used[n + 2] = 0;
        }
        int fd = fr_open_new_file(used, O_RDWR, mode);
        if (fd != -EEXIST)
            return fd;
    }
    return -EEXIST;
}

/* fallocate, or nothing where the file system cannot (the space then comes at the
 * first touch, as it would without a backing file's promise). 0 or an errno value. */
static int reserve_range(int fd, uint64_t off, uint64_t len)
{
    int err = posix_fallocate(fd, (off_t)off, (off_t)len);
    return err == EOPNOTSUPP ? 0 : err;
}

void *fr_backing_create(const struct fr_options *o, size_t pool_size, size_t data_size,
                        size_t threads_off, size_t threads_len, int force_pid, void *fixed)
{
    char path[FR_OPTIONS_PATH_MAX];
    if (fr_expand_output(path, sizeof path, o->backing, (int32_t)getpid(), force_pid) < 0) {
        fr_backing_say("path too long", o->backing, 0);
        return MAP_FAILED;
    }
    const char *problem = fr_backing_path_problem(path);
    if (problem) {
        fr_backing_say(problem, path, 0);
        return MAP_FAILED;
    }
    char used[FR_OPTIONS_PATH_MAX];
    int fd = create_file(path, (mode_t)o->file_mode, used, sizeof used);
    if (fd < 0) {
        fr_backing_say("cannot create it", path, -fd);
        return MAP_FAILED;
    }
    const size_t huge = FR_BACKING_POOL_OFFSET;
    size_t size = huge + pool_size;
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : 0;
    /* Reserve the space now: a page the file system cannot give later is a SIGBUS in
     * the program's next record. Under `ulimit -f` a file past the limit raises SIGXFSZ,
     * which would kill the program: blocked here, so that it fails with EFBIG (and the
     * signal we caused is taken back: fr_write_signals_restore). */
    struct fr_write_signals sigs;
    fr_write_signals_block(&sigs);
    if (!err)
        err = ftruncate(fd, (off_t)size) != 0 ? errno : 0;
    /* the header and sites, and the buffer descriptors, queues and scratch; the buffers'
     * data and the thread slots come as they are first used (fr_backing_reserve) */
    if (!err)
        err = reserve_range(fd, 0, huge);
    if (!err && threads_off > data_size)
        err = reserve_range(fd, huge + data_size, threads_off - data_size);
    if (!err && pool_size > threads_off + threads_len)
        err = reserve_range(fd, huge + threads_off + threads_len, pool_size - threads_off - threads_len);
    fr_write_signals_restore(&sigs);
    /* A fork child's file holds the parent's event sites (the child's compact events
     * name them; nothing registers them again here): copied before our mapping replaces
     * the parent's. Same generation then; a new file at init gets a new one. */
    uint64_t carried = 0;
    uint32_t gen = bk.gen;
    if (!fixed) {
        gen = ++last_gen;
    } else if (!err) {
        const struct fr_backing_header *ph = (const void *)((uint8_t *)fixed - huge);
        uint64_t n = __atomic_load_n(&ph->sites_len, __ATOMIC_ACQUIRE);
        if (ph->version == FR_BACKING_VERSION && n <= FR_BACKING_SITES_CAP && n &&
            pwrite(fd, (const uint8_t *)ph + FR_BACKING_SITES_OFF, n, FR_BACKING_SITES_OFF) == (ssize_t)n) {
            carried = n;
        } else if (n) {
            gen = ++last_gen;
            fr_backing_say("cannot copy the parent's event sites (a recovered trace reports the child's "
                "structured events as undecoded)", used, errno);
        }
    }
    uint8_t *m = MAP_FAILED;
    if (!err) {
        /* the header and the pool in one mapping whose pool part is 2 MiB aligned */
        uint8_t *at = fixed ? (uint8_t *)fixed - huge : NULL;
        if (!at) {
            uint8_t *raw = mmap(NULL, size + huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
                                MAP_NORESERVE, -1, 0);
            if (raw != MAP_FAILED) {
                at = (uint8_t *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
                if (at > raw)
                    munmap(raw, (size_t)(at - raw));
                size_t tail = size + huge - (size_t)(at - raw) - size;
                if (tail)
                    munmap(at + size, tail);
            }
        }
        if (at)
            m = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
        if (m == MAP_FAILED) {
            err = errno ? errno : ENOMEM;
            if (at && !fixed)
                munmap(at, size);
        }
    }
    if (err) {
        fr_backing_say("cannot size or map it", used, err);
        unlink(used);
        close(fd);
        return MAP_FAILED;
    }
    madvise(m + huge, pool_size, MADV_HUGEPAGE);   /* advice: tmpfs may give 2 MiB pages */
    close(fd);   /* the mapping keeps the file; a program may close descriptors it
                    did not open, so none is kept */
    bk.base = m;
    bk.size = size;
    bk.dev = st.st_dev;
    bk.ino = st.st_ino;
    bk.pid = getpid();
    bk.gen = gen;
    bk.carried = carried;
    bk.data_size = data_size;
    bk.threads_off = threads_off;
    bk.threads_len = threads_len;
    memset(bk.reserved, 0, sizeof bk.reserved);
    memcpy(fr_backing_path, used, sizeof used);
    return m + huge;
}

int fr_backing_reserve(uint64_t off, uint64_t len)
{
    uint64_t first = off / RESERVE_STEP, last = (off + len - 1) / RESERVE_STEP;
    for (uint64_t step = first; step <= last; step++) {
        uint64_t *word = step / 64 < RESERVE_WORDS ? &bk.reserved[step / 64] : NULL;
        uint64_t bit = 1ull << (step % 64);
        if (word && (__atomic_load_n(word, __ATOMIC_ACQUIRE) & bit))
            continue;
        /* Two threads may both reserve a step: fallocate of reserved space is a no-op. */
        uint64_t at = step * RESERVE_STEP;
        uint64_t pool = bk.size - FR_BACKING_POOL_OFFSET;
        uint64_t n = at + RESERVE_STEP <= pool ? RESERVE_STEP : pool - at;
        int fd = fr_fd_reopen(fr_backing_path, O_WRONLY, bk.dev, bk.ino);
        int err = fd < 0 ? errno : reserve_range(fd, FR_BACKING_POOL_OFFSET + at, n);
        if (fd >= 0)
            close(fd);
        if (err) {
            static int said;
            if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
                fr_backing_say("cannot reserve more of it (the pool stops growing; records that find "
                    "no buffer are counted as dropped)", fr_backing_path, err);
            return -1;
        }
        if (word)
            __atomic_fetch_or(word, bit, __ATOMIC_RELEASE);
    }
    return 0;
}

struct fr_backing_map fr_backing_map(void)
{
    return (struct fr_backing_map){ bk.base, bk.size, bk.carried, bk.base && getpid() == bk.pid };
}

uint32_t fr_backing_generation(void)
{
    return bk.base ? bk.gen : 0;
}

int fr_backing_reopen(void)
{
    return fr_fd_reopen(fr_backing_path, O_WRONLY, bk.dev, bk.ino);
}

void fr_backing_set_state(uint32_t state)
{
    if (bk.base)
        __atomic_store_n(&((struct fr_backing_header *)bk.base)->state, state, __ATOMIC_RELEASE);
}

void fr_backing_remove(void)
{
    if (!bk.base || !fr_backing_path[0] || getpid() != bk.pid)
        return;
    fr_backing_set_state(FR_BACKING_WRITTEN);
    struct stat st;
    if (lstat(fr_backing_path, &st) == 0 && st.st_dev == bk.dev && st.st_ino == bk.ino)
        unlink(fr_backing_path);
    fr_backing_path[0] = 0;
}

int fr_backing_fork_child(int want_file)
{
    if (!bk.base)
        return 0;
    uint8_t *old = bk.base;
    size_t old_size = bk.size;
    bk.base = NULL;
    fr_backing_path[0] = 0;
    if (want_file && fr_backing_create(&fr_session.opts, old_size - FR_BACKING_POOL_OFFSET, bk.data_size,
                                       bk.threads_off, bk.threads_len, 1,
                                       old + FR_BACKING_POOL_OFFSET) != MAP_FAILED)
        return 0;
    /* Never keep writing into the parent's file: zero pages of our own instead. */
    if (mmap(old, old_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
             MAP_NORESERVE, -1, 0) == MAP_FAILED) {
        fr_write_stderr("flightrec: fork child: cannot replace the parent's backing mapping\n", 67);
        _exit(127);
    }
    if (want_file)
        fr_write_stderr("flightrec: fork child records without a backing file\n", 53);
    bk.base = NULL;
    return -1;
}

void fr_backing_unmap(void)
{
    if (bk.base)
        munmap(bk.base, bk.size);
    bk.base = NULL;
    bk.size = 0;
    fr_backing_path[0] = 0;
}
