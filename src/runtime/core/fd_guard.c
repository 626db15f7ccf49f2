/*
 * fd_guard.c - see fd_guard.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/fd_guard.h"

int fr_fd_move_high(int fd)
{
    int hi = fcntl(fd, F_DUPFD_CLOEXEC, FR_FD_HIGH);
    if (hi < 0)
        return fd;
    close(fd);
    return hi;
}

int fr_fd_is(int fd, dev_t dev, ino_t ino)
{
    struct stat sb;
    return fd >= 0 && fstat(fd, &sb) == 0 && sb.st_dev == dev && sb.st_ino == ino;
}

int fr_fd_keep(int fd, dev_t *dev, ino_t *ino)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    *dev = sb.st_dev;
    *ino = sb.st_ino;
    return fr_fd_move_high(fd);
}

int fr_fd_reopen(const char *path, int flags, dev_t dev, ino_t ino)
{
    int fd;
    do
        fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0 && !fr_fd_is(fd, dev, ino)) {
        close(fd);
        fd = -1;
    }
    return fd;
}
