/*
 * fd_guard.c - see fd_guard.h.
 */
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
