/*
 * regular_file.c - see regular_file.h.
 *
 * The path is first opened with O_PATH, which opens no device and waits on no FIFO
 * (nothing is read through such a descriptor); its type is checked with fstat; then the
 * same inode is opened for reading through /proc/self/fd, so that nothing can be swapped
 * in between. Without /proc the path is opened again (O_NONBLOCK, O_NOCTTY: a device
 * swapped in at that moment is opened, but neither waited on nor kept) and must be the
 * inode that was checked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *type_name(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket" : "not a file";
}

static int refuse(int fd, char *err, size_t errlen, const char *path, const char *fmt,
                  const char *what)
{
    if (fd >= 0)
        close(fd);
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s: ", path);
        if (n >= 0 && (size_t)n < errlen)
            snprintf(err + n, errlen - (size_t)n, fmt, what);
    }
    return -1;
}

int fr_open_regular(const char *path, unsigned flags, char *err, size_t errlen)
{
    int nofollow = (flags & FR_OPEN_NOFOLLOW) ? O_NOFOLLOW : 0;
    int pfd = open(path, O_PATH | O_CLOEXEC | nofollow);
    if (pfd < 0)
        return refuse(-1, err, errlen, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(pfd, &st) != 0)
        return refuse(pfd, err, errlen, path, "cannot open: %s", strerror(errno));
    if (S_ISLNK(st.st_mode))
        return refuse(pfd, err, errlen, path, "%s", "cannot open: a symbolic link (not followed; "
                                                    "name the file it points to)");
    if (!S_ISREG(st.st_mode))
        return refuse(pfd, err, errlen, path, "cannot open: not a regular file (%s)",
                      type_name(st.st_mode));
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
    int fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {   /* no /proc */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | nofollow);
        struct stat again;
        if (fd >= 0 && (fstat(fd, &again) != 0 || again.st_dev != st.st_dev ||
                        again.st_ino != st.st_ino)) {
            close(fd);
            return refuse(pfd, err, errlen, path, "%s", "cannot open: replaced while being opened");
        }
    }
    if (fd < 0)
        return refuse(pfd, err, errlen, path, "cannot open: %s", strerror(errno));
    close(pfd);
    return fd;
}
