/*
 * pread_all.c - see pread_all.h.
 */
#include "pread_all.h"

#include <errno.h>
#include <unistd.h>

int fr_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    for (uint8_t *p = buf; len;) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}
