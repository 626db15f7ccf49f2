/*
 * trace_file.c - creating a trace file safely (trace_file.h): never an existing file or a
 * planted link; a FIFO or a device written in place. Async-signal-safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "core/new_file.h"
#include "core/session.h"
#include "core/trace_file.h"

/* A name for the temporary file next to the target ("<dir>/.<base>.XXXXXXXX.tmp") that
 * another user cannot guess ahead of time; O_EXCL makes a guessed name merely fail (we try
 * another), never a file or link someone planted. */
static int open_temp(const char *path, char *tmp, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t baselen = strlen(base);
    if (dirlen + 1 + baselen + 1 + 16 + 5 > cap)
        return -ENAMETOOLONG;
    static uint64_t counter;
    for (int attempt = 0; attempt < 64; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
                     ((uint64_t)getpid() << 32) ^
                     (__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xbf58476d1ce4e5b9ull);
        x ^= x >> 31;
        x *= 0x94d049bb133111ebull;
        x ^= x >> 29;
        char *q = tmp;
        memcpy(q, path, dirlen);
        q += dirlen;
        *q++ = '.';
        memcpy(q, base, baselen);
        q += baselen;
        *q++ = '.';
        for (int i = 0; i < 16; i++)
            *q++ = "0123456789abcdef"[(x >> (4 * i)) & 15];
        memcpy(q, ".tmp", 5);
        /* read too: a streamed file is read back for copies (fr_stream_copy) */
        int fd = fr_open_new_file(tmp, O_RDWR, fr_session.opts.file_mode);
        if (fd != -EEXIST)
            return fd;
    }
    return -EEXIST;
}

/* FIFOs and character devices (a pipe, /dev/null, /dev/stdout) are written in place: a
 * rename would replace the device by a regular file. O_NONBLOCK on open so that a FIFO
 * with no reader fails (ENXIO) instead of hanging the program at exit. */
static int open_in_place(const char *path)
{
    int fd;
    do
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int fr_create_trace_file(const char *path, char *tmp, size_t cap, int *in_place)
{
    struct stat st;
    /* stat, not lstat: a symlink to a FIFO or device is written in place through the link;
     * any other symlink is replaced by the trace (rename replaces the link itself). */
    *in_place = stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
    return *in_place ? open_in_place(path) : open_temp(path, tmp, cap);
}
