/*
 * temp_space.c - the reserve that temporary files leave in their file system
 * (temp_space.h says why it is what it is).
 */
#include "temp_space.h"

#include <sys/statvfs.h>

#define TEMP_RESERVE_MIN (16ull << 20)
#define TEMP_RESERVE_MAX (1ull << 30)

uint64_t fr_temp_room(int fd, uint64_t *reserve)
{
    struct statvfs v;
    *reserve = TEMP_RESERVE_MIN;
    if (fstatvfs(fd, &v) != 0)
        return UINT64_MAX;
    uint64_t size = (uint64_t)v.f_blocks * v.f_frsize, avail = (uint64_t)v.f_bavail * v.f_frsize;
    uint64_t r = size / 100;
    *reserve = r < TEMP_RESERVE_MIN ? TEMP_RESERVE_MIN : r > TEMP_RESERVE_MAX ? TEMP_RESERVE_MAX : r;
    return avail > *reserve ? avail - *reserve : 0;
}
