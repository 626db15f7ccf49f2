/*
 * backing_map.h - the pool's memory in a file (option backing=PATH): the file created
 * safely, mapped MAP_SHARED, its space reserved as the pool first uses it, removed once
 * the trace is written (backing_map.c). The pool knows the file through this only.
 */
#ifndef FLIGHTREC_BACKING_MAP_H
#define FLIGHTREC_BACKING_MAP_H

#include <stddef.h>
#include <stdint.h>
#include "core/options.h"
#include "core/visibility.h"
#include "fr_backing.h"

/* The event sites region: the part of the mapping between the header and the pool. */
#define FR_BACKING_SITES_OFF FR_BACKING_HEADER_SIZE
#define FR_BACKING_SITES_CAP (FR_BACKING_POOL_OFFSET - FR_BACKING_HEADER_SIZE)

/* The file in use ("" when the pool is not backed). */
extern FR_HIDDEN char fr_backing_path[FR_OPTIONS_PATH_MAX];

/* Creates the file for a pool of `pool_size` bytes whose first `data_size` are the
 * buffers' data and [threads_off, +threads_len) the thread slots, both reserved later,
 * as they are first used, by fr_backing_reserve (o->backing with %p expanded to this
 * process's pid; ".PID" appended when `force_pid` and the pattern has no %p) and maps
 * it. `fixed`: the address to map the pool at (a fork child replaces its parent's
 * mapping), or NULL. Returns the pool's address (2 MiB aligned) or MAP_FAILED after
 * saying why on stderr. Async-signal-safe enough for a fork child (no malloc, no stdio). */
FR_HIDDEN void *fr_backing_create(const struct fr_options *o, size_t pool_size, size_t data_size,
                                  size_t threads_off, size_t threads_len, int force_pid,
                                  void *fixed);
/* Reserves the file's space for the pool's bytes [off, off + len) (offsets from the
 * pool's start; 2 MiB steps, each once): called as the pool hands out a buffer or a
 * thread slot for the first time. 0, or -1 after saying
 * once on stderr why the file cannot grow (full file system, the file renamed). Lock-free,
 * async-signal-safe (system calls only). */
FR_HIDDEN int fr_backing_reserve(uint64_t off, uint64_t len);
FR_HIDDEN void fr_backing_set_state(uint32_t state);
/* Which set of sites the backing file holds: a new number for each file made at init
 * (0: no backing file); a fork child's file, which starts with a copy of its parent's
 * sites, keeps the parent's number. A site added under this number need not be again. */
FR_HIDDEN uint32_t fr_backing_generation(void);
/* The trace was written: the file has served its purpose and is removed (only if the
 * name still leads to the file we created). Async-signal-safe. */
FR_HIDDEN void fr_backing_remove(void);
/* Unmaps the whole file mapping (header and pool). */
FR_HIDDEN void fr_backing_unmap(void);
/* fork child: the mapping is still the parent's file (MAP_SHARED is inherited). When
 * `want_file` (the child goes on recording), maps a file of the child's own (backing=
 * with the child's pid, ".PID" appended when the pattern has no %p) at the same address; if that fails, zero anonymous memory there
 * (the child records without a backing file, said on stderr); else zero anonymous memory
 * quietly. 0, or -1 (unbacked). */
FR_HIDDEN int fr_backing_fork_child(int want_file);

/* The mapping as what fills it needs it (backing_meta.c): the header's address (NULL when
 * the pool is not backed), the mapping's size, the bytes of event sites a fork child's
 * file carried over from its parent's, and whether this process created the file (only
 * it writes into the header's regions). */
struct fr_backing_map {
    uint8_t *base;
    size_t   size;
    uint64_t carried;
    int      ours;
};
FR_HIDDEN struct fr_backing_map fr_backing_map(void);
/* Opens the file we created for writing again: by name, but only if the name still
 * leads to it (same device and inode), never through a link. -1 if not. */
FR_HIDDEN int fr_backing_reopen(void);
/* "flightrec: backing file PATH: WHAT[: the error]" on stderr (async-signal-safe). */
FR_HIDDEN void fr_backing_say(const char *what, const char *path, int err);

#endif
