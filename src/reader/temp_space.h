/*
 * temp_space.h - how much the tools' temporary files (a copy of a trace on standard
 * input, the stacks' spill files) may still write into a file system.
 *
 * One rule for every such file: the file system keeps a reserve free, 1% of its size, at
 * least 16 MiB and at most 1 GiB. The floor keeps a small file system usable; the cap
 * keeps a large disk that is mostly full, but still has gigabytes free, usable for
 * small traces (a percentage alone refused a 3 KB trace on a 252 GB disk with 7 GB free).
 */
#ifndef FLIGHTREC_TEMP_SPACE_H
#define FLIGHTREC_TEMP_SPACE_H

#include <stdint.h>

/* Bytes that may still be written to fd's file system; *reserve is set to what must stay
 * free there. UINT64_MAX when the file system cannot be asked (nothing is then known). */
uint64_t fr_temp_room(int fd, uint64_t *reserve);

#endif
