/*
 * pread_all.h - reading a whole range of a file at an offset.
 */
#ifndef FLIGHTREC_PREAD_ALL_H
#define FLIGHTREC_PREAD_ALL_H

#include <stddef.h>
#include <stdint.h>

/* The len bytes at offset off of fd into buf, through short reads and EINTR: 0, or -1
 * when they cannot all be read (an error, or the file ends first). */
int fr_pread_all(int fd, void *buf, size_t len, uint64_t off);

#endif
