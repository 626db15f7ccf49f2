/*
 * new_file.c - creating a file of ours safely (new_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include "core/new_file.h"

int fr_open_new_file(const char *path, int access, unsigned mode)
{
    int fd;
    do
        fd = open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    return fd >= 0 ? fd : -errno;
}
